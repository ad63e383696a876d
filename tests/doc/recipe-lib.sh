# tests/doc/recipe-lib.sh -- what the recipe tests share (sourced, not run)
#
# The tests/doc/recipe-*.sh scripts follow a checklist of doc/internals.md
# section 18 in a scratch copy of the source tree: they copy $srcdir,
# apply the checklist's edits, build the copy and run the new thing.  This
# file gives them:
#   recipe_setup NAME    $tmp (removed at exit) and $tree, a copy of
#                        $srcdir without build products (an in-tree build's
#                        objects, Makefiles, logs), writable, configured
#                        (--disable-shared: one compilation per file)
#   recipe_make ARGS     make in $tree, quietly; its log on failure
#   recipe_edit FILE PYTHON-EXPR
#                        rewrites FILE as PYTHON-EXPR of its text `s`;
#                        fails (exit 99) when the text does not change: an
#                        anchor the recipe names has gone
#   recipe_golden TEST...
#                        the copy's golden tests TEST... (tests/run-golden),
#                        run by its vlad: a check each
#   ok / bad MESSAGE     count a check; recipe_finish prints the totals
# The scripts need python3 (for the edits); without it they skip.

passed=0
failed=0
ok() { passed=$((passed + 1)); }
bad() { failed=$((failed + 1)); echo "FAIL: $*"; }

recipe_finish() {
    echo "$passed passed, $failed failed"
    test "$failed" -eq 0
    exit $?
}

recipe_setup() {
    if ! command -v python3 >/dev/null 2>&1; then
        echo "SKIP: python3 not found"
        exit 77
    fi
    srcdir=${srcdir:-.}
    tmp=$(mktemp -d "${TMPDIR:-/tmp}/vlad-$1.XXXXXX") || exit 99
    trap 'chmod -R u+w "$tmp" 2>/dev/null; rm -rf "$tmp"' 0
    tree=$tmp/tree
    mkdir "$tree" || exit 99
    # the sources, not what a build in $srcdir (or in a folder of it) made
    skip_build=
    top=${VLAD_TOP_BUILDDIR:-}
    if test -n "$top"; then
        abs_src=$(cd "$srcdir" && pwd -P)
        abs_top=$(cd "$top" && pwd -P)
        case $abs_top in
        "$abs_src"/*) skip_build=--exclude=./${abs_top#"$abs_src"/} ;;
        esac
    fi
    (cd "$srcdir" && tar cf - $skip_build --exclude=./.git \
        --exclude='*.o' --exclude='*.lo' --exclude='*.la' --exclude='*.a' \
        --exclude=.libs --exclude=.deps --exclude=.dirstamp \
        --exclude=autom4te.cache --exclude=test-output \
        --exclude='*.log' --exclude='*.trs' --exclude=config.status \
        --exclude=./config.h --exclude=./stamp-h1 --exclude=./libtool \
        --exclude=./Makefile --exclude='./*/Makefile' \
        --exclude=./cli/doctable.c --exclude='vlad-*.tar.gz' .) \
        | (cd "$tree" && tar xf -) || exit 99
    chmod -R u+w "$tree"
    if ! test -f "$tree/configure"; then
        (cd "$tree" && ./autogen.sh) >"$tmp/autogen.log" 2>&1 \
            || { cat "$tmp/autogen.log"; exit 99; }
    fi
    (cd "$tree" && ./configure -q --disable-shared --enable-werror) \
        >"$tmp/configure.log" 2>&1 || { cat "$tmp/configure.log"; exit 99; }
}

recipe_make() {
    if ! (cd "$tree" && env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL \
            ${VLAD_MAKE:-make} -j2 "$@") >"$tmp/make.log" 2>&1; then
        tail -40 "$tmp/make.log"
        bad "make $* in the scratch tree"
        recipe_finish
    fi
}

recipe_edit() {
    python3 - "$tree/$1" "$2" <<'EOF' || { echo "recipe_edit $1: the anchor is gone"; exit 99; }
import sys
path, expr = sys.argv[1], sys.argv[2]
with open(path) as f:
    s = f.read()
new = eval(expr, {"s": s})
if new == s:
    sys.exit(1)
with open(path, "w") as f:
    f.write(new)
EOF
}

recipe_golden() {
    for t in "$@"; do
        if (cd "$tree" && VLAD=$tree/vlad srcdir=. VLAD_TEST_OUTDIR=$tmp/out \
                sh tests/run-golden "$t") >"$tmp/golden.log" 2>&1; then
            ok
        else
            tail -20 "$tmp/golden.log"
            bad "$t in the scratch tree"
        fi
    done
}
