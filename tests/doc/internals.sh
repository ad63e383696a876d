#!/bin/sh
# tests/doc/internals.sh -- doc/internals.md names what exists
#
# The guide to the source (doc/internals.md: the map of files, the
# checklists of section 18 with the walk-through "a new differentiable
# function of one real") stays honest about the tree:
#   - every source path it writes in backticks (vm/..., parser/..., cli/...,
#     tests/..., bench/..., examples/..., stdlib/..., include/...) exists
#     (bench/ only where the benchmarks are: make dist leaves them out);
#   - every C identifier it writes in backticks that names vlad's own
#     functions or macros (vl_*, VL_*, VLM_*) occurs in the sources;
#   - the walk-throughs' tables (vm/core/math1.h, vm/core/math2.h) have the rows
#     they name;
#   - section 19's table of checkpoint-*j's private interface lists
#     exactly the private names vm/cpj/*.c and vm/exec/vm.c bind, and the
#     prelude's driver uses each.
# Prints "N passed, N failed".

srcdir=${srcdir:-.}
doc=$srcdir/doc/internals.md
passed=0
failed=0
ok() { passed=$((passed + 1)); }
bad() { failed=$((failed + 1)); echo "FAIL: $*"; }

paths=$(grep -o '`[^`]*`' "$doc" | tr -d '`' | tr ' ,' '\n\n' \
    | grep -E '^(vm|parser|cli|tests|bench|examples|stdlib|include|doc|scripts)/[A-Za-z0-9_./*-]+$' \
    | sort -u)
test -n "$paths" || bad "no source paths found in $doc"
for p in $paths; do
    case $p in
    bench/*)    # a distribution (make dist) leaves the benchmarks out
        test -e "$srcdir/bench/run" || continue ;;
    esac
    case $p in
    *'*'*) # a glob (parser/*): something must match it
        set -- $srcdir/$p
        if test -e "$1"; then ok; else bad "$p (doc/internals.md) matches nothing"; fi ;;
    *)
        if test -e "$srcdir/$p"; then ok; else bad "$p (doc/internals.md) does not exist"; fi ;;
    esac
done

names=$(grep -o '`[^`]*`' "$doc" | tr -d '`' \
    | grep -o -E '\<(vl|VL|VLM)_[A-Za-z0-9_]+' | sort -u)
test -n "$names" || bad "no identifiers found in $doc"
srcs=$(ls "$srcdir"/vm/*/*.[ch] "$srcdir"/parser/*.[ch] "$srcdir"/parser/*.[ly] \
          "$srcdir"/cli/*.[ch] "$srcdir"/include/*.h 2>/dev/null)
for n in $names; do
    if grep -q -w "$n" $srcs; then ok; else bad "$n (doc/internals.md) is in no source file"; fi
done

# the walk-throughs' tables
for row in SQRT SIN TANH LOG1P; do
    if grep -q "ROW($row, " "$srcdir/vm/core/math1.h"; then ok; else bad "vm/core/math1.h has no row $row"; fi
done
for row in ADD SUB ATAN EXPT; do
    if grep -q "ROW($row, " "$srcdir/vm/core/math2.h"; then ok; else bad "vm/core/math2.h has no row $row"; fi
done

# checkpoint-*j's private interface (section 19)
bound=$( (grep -ho '{"%[^"]*"' "$srcdir"/vm/cpj/*.c | tr -d '{"';
          grep -o 'bind_control(S, "%[^"]*"' "$srcdir/vm/exec/vm.c" \
              | sed 's/.*"\(%[^"]*\)"/\1/') | sort -u)
documented=$(sed -n '/^## 19\./,$p' "$doc" | grep -o '^| `%[^`]*`' \
    | sed 's/^| `//; s/`$//' | sort -u)
test -n "$bound" || bad "no private names found in vm/cpj/*.c and vm/exec/vm.c"
if test "$bound" = "$documented"; then ok; else
    bad "section 19 lists: $(echo $documented); vm/ binds: $(echo $bound)"
fi
for n in $bound; do
    # used by the driver: called, not only defined
    if grep -F -e "($n " -e "($n)" "$srcdir/stdlib/prelude.vlad" \
        | grep -v -F -e "(define ($n " -e "(define ($n)" \
        | grep -q .; then ok; else bad "$n is not used by stdlib/prelude.vlad"; fi
done

echo "$passed passed, $failed failed"
test "$failed" -eq 0
