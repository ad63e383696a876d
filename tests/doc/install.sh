#!/bin/sh
# tests/doc/install.sh -- a staged install is complete, its documents'
# links work, and the documented commands build a host against it
#
# Runs "make install DESTDIR=STAGE" in the build tree (into a temporary
# directory), then checks:
#   1. the installed files: vlad, libvlad, vlad.h, vlad.pc, the man page
#      (with no @VAR@ left, naming the installed directories), the prelude,
#      and in $(docdir) README.md, every document of doc/ and doc/spec/,
#      examples/embed/*.c and examples/*.vlad with their .out;
#   2. every relative Markdown link ](PATH) of every installed .md file
#      names an installed file, and every document the man page's SEE ALSO
#      names is installed;
#   3. the installed vlad runs (LD_LIBRARY_PATH) and prints each installed
#      example's .out (those with no .args, .in, .err or .status);
#   4. each installed examples/embed/*.c, as host.c, is built and run by
#      the commands of doc/embedding.md section 1 (the indented code
#      blocks, run as one shell script, with PREFIX set to the staged
#      prefix, and a pkg-config that relocates vlad.pc's prefix there):
#      the example checks its own output and exits 0; so is the C host of
#      README.md (it prints 144).
#
# Environment (tests/doc/local.mk): VLAD_MAKE, VLAD_TOP_BUILDDIR and the
# configured directories VLAD_INST_{PREFIX,BINDIR,LIBDIR,INCLUDEDIR,
# PKGDATADIR,DOCDIR,MANDIR}; VLAD_HOST_CFLAGS (the sanitizer flags in a
# sanitizer build, so that a host links the instrumented libvlad); $srcdir.

srcdir=${srcdir:-.}
for v in VLAD_TOP_BUILDDIR VLAD_INST_PREFIX VLAD_INST_BINDIR VLAD_INST_LIBDIR \
         VLAD_INST_INCLUDEDIR VLAD_INST_PKGDATADIR VLAD_INST_DOCDIR VLAD_INST_MANDIR; do
    eval "val=\${$v-}"
    if test -z "$val"; then
        echo "install: $v is not set (run through make check)" >&2
        exit 99
    fi
done

tmp=$(mktemp -d "${TMPDIR:-/tmp}/vlad-install.XXXXXX") || exit 99
trap 'rm -rf "$tmp"' 0
stage=$tmp/stage
passed=0
failed=0
ok() { passed=$((passed + 1)); echo "ok: $1"; }
fail() { failed=$((failed + 1)); echo "FAIL: $1"; }

# 0. make install DESTDIR=$stage (the parent make's jobserver and command
# line are not ours)
if env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL ${VLAD_MAKE:-make} -s \
       -C "$VLAD_TOP_BUILDDIR" install DESTDIR="$stage" >"$tmp/install.log" 2>&1; then
    ok "make install DESTDIR=STAGE"
else
    fail "make install DESTDIR=STAGE"
    sed 's/^/  /' "$tmp/install.log"
    echo "$passed passed, $failed failed"
    exit 1
fi

bindir=$stage$VLAD_INST_BINDIR
libdir=$stage$VLAD_INST_LIBDIR
docdir=$stage$VLAD_INST_DOCDIR
man=$stage$VLAD_INST_MANDIR/man1/vlad.1

# 1. the files
missing=
for f in "$bindir/vlad" "$libdir/libvlad.so" "$libdir/pkgconfig/vlad.pc" \
         "$stage$VLAD_INST_INCLUDEDIR/vlad.h" "$man" \
         "$stage$VLAD_INST_PKGDATADIR/prelude.vlad" \
         "$docdir/README.md" "$docdir/doc/spec/language.md" \
         "$docdir/doc/spec/ad-and-checkpointing.md"; do
    test -f "$f" || missing="$missing ${f#$stage}"
done
for f in "$srcdir"/doc/*.md "$srcdir"/examples/embed/*.c "$srcdir"/examples/*.vlad \
         "$srcdir"/examples/*.out; do
    rel=${f#$srcdir/}
    test -f "$docdir/$rel" || missing="$missing $VLAD_INST_DOCDIR/$rel"
done
if test -z "$missing"; then
    ok "installed: the program, library, header, vlad.pc, man page, prelude, documents, examples"
else
    fail "not installed:$missing"
fi

if grep -n '@[A-Za-z_]*@' "$man" >"$tmp/at" 2>&1; then
    fail "the installed man page has unsubstituted variables:"
    sed 's/^/  /' "$tmp/at"
elif grep -q "$VLAD_INST_PKGDATADIR/prelude.vlad" "$man" \
     && grep -q "$VLAD_INST_DOCDIR" "$man"; then
    ok "the man page names $VLAD_INST_PKGDATADIR and $VLAD_INST_DOCDIR"
else
    fail "the man page does not name $VLAD_INST_PKGDATADIR/prelude.vlad and $VLAD_INST_DOCDIR"
fi

# 2. links: ](PATH) in every installed .md, PATH relative (no scheme, not
# an anchor of the same page), without its #anchor, must exist
: >"$tmp/links"
nlinks=0
for md in $(cd "$docdir" && find . -name '*.md' | sort); do
    dir=$(dirname "$md")
    for target in $(grep -o '\]([^)]*)' "$docdir/$md" | sed 's/^](//; s/)$//; s/#.*//; s/ .*//'); do
        case $target in
        '' | *:*) continue ;;
        esac
        nlinks=$((nlinks + 1))
        test -e "$docdir/$dir/$target" || echo "  ${md#./}: $target" >>"$tmp/links"
    done
done
if test -s "$tmp/links"; then
    fail "broken links in the installed documents:"
    cat "$tmp/links"
elif test "$nlinks" -lt 10; then
    fail "only $nlinks relative links found in the installed documents"
else
    ok "all $nlinks relative links of the installed documents work"
fi

# the documents the man page's SEE ALSO names (.I doc/NAME.md, README.md)
seealso=$(sed -n '/^\.SH SEE ALSO/,$p' "$man" | sed -n 's/^\.I[R]* \([A-Za-z/]*[.a-z]*\).*/\1/p' \
    | grep -v '^@' | grep '\.md$\|/$')
bad=
n=0
for f in $seealso; do
    case $f in /*) continue ;; esac
    n=$((n + 1))
    test -e "$docdir/$f" || bad="$bad $f"
done
if test -n "$bad"; then
    fail "the man page's SEE ALSO names documents that are not installed:$bad"
elif test "$n" -lt 5; then
    fail "the man page's SEE ALSO names only $n documents: $seealso"
else
    ok "the $n documents of the man page's SEE ALSO are installed"
fi

# 3. the installed vlad runs the installed examples
bad=
for f in "$docdir"/examples/*.vlad; do
    b=$(basename "$f" .vlad)
    # an example that needs arguments or input, or fails on purpose, is
    # run by make check, not here
    for x in args in err status; do
        test -f "$srcdir/examples/$b.$x" && continue 2
    done
    (cd "$docdir/examples" && LD_LIBRARY_PATH=$libdir "$bindir/vlad" "$b.vlad") \
        >"$tmp/$b.got" 2>"$tmp/$b.err" </dev/null
    cmp -s "$tmp/$b.got" "$docdir/examples/$b.out" || bad="$bad $b"
done
if test -z "$bad"; then
    ok "the installed vlad prints each installed example's .out"
else
    fail "the installed vlad does not print the .out of:$bad"
fi

# 4. the commands of doc/embedding.md section 1, on each example
sed -n '/^## 1\./,/^## 2\./p' "$srcdir/doc/embedding.md" \
    | sed -n 's/^    \([^ ].*\)$/\1/p' >"$tmp/commands"
if ! grep -q 'pkg-config --cflags --libs vlad' "$tmp/commands" \
   || ! grep -q '^PREFIX=' "$tmp/commands"; then
    fail "doc/embedding.md section 1 has no PREFIX= and pkg-config commands"
    sed 's/^/  /' "$tmp/commands"
else
    prefix=$stage$VLAD_INST_PREFIX
    mkdir "$tmp/bin"
    real=$(command -v pkg-config) || real=pkg-config
    printf '#!/bin/sh\nexec %s --define-variable=prefix=%s "$@"\n' \
        "$real" "$prefix" >"$tmp/bin/pkg-config"
    chmod +x "$tmp/bin/pkg-config"
    {
        echo 'set -ex'
        echo "cc() { command cc ${VLAD_HOST_CFLAGS:-} \"\$@\"; }"
        sed "s|^PREFIX=.*|PREFIX='$prefix'|" "$tmp/commands"
    } >"$tmp/commands.sh"
    # README's one-line command is the first of them
    first=$(sed -n 1p "$tmp/commands")
    if grep -q -F "\`$first\`" "$docdir/README.md"; then
        ok "README.md's cc command is doc/embedding.md's: $first"
    else
        fail "README.md does not give doc/embedding.md's command \`$first\`"
    fi
    # README's C host, which prints 144, as well
    sed -n '/^```c$/,/^```$/p' "$docdir/README.md" | sed '1d;$d' >"$tmp/readme.c"
    if grep -q 'vlad_open' "$tmp/readme.c"; then
        mkdir "$tmp/host-readme"
        cp "$tmp/readme.c" "$tmp/host-readme/host.c"
        if (cd "$tmp/host-readme" && unset LD_LIBRARY_PATH \
              && PKG_CONFIG_PATH=$libdir/pkgconfig PATH=$tmp/bin:$PATH \
                 sh "$tmp/commands.sh") >"$tmp/readme.log" 2>&1 \
           && test "$(grep -c '^144$' "$tmp/readme.log")" -eq 2; then
            ok "README.md's C host built and run (144) by doc/embedding.md's commands"
        else
            fail "README.md's C host with doc/embedding.md's commands:"
            sed 's/^/  /' "$tmp/readme.log"
        fi
    else
        fail "README.md has no C host (a \`\`\`c block calling vlad_open)"
    fi
    for c in "$docdir"/examples/embed/*.c; do
        b=$(basename "$c" .c)
        if grep -q '<vlad-mpi.h>' "$c"; then
            # a host of MPI: built with mpicc by make check and run under
            # mpiexec (tests/api/mpihost.sh), not by plain cc
            continue
        fi
        mkdir "$tmp/host-$b"
        cp "$c" "$tmp/host-$b/host.c"
        # the first command is for the default prefix, which pkg-config
        # searches: PKG_CONFIG_PATH plays that part here
        if (cd "$tmp/host-$b" && unset LD_LIBRARY_PATH \
              && PKG_CONFIG_PATH=$libdir/pkgconfig PATH=$tmp/bin:$PATH \
                 sh "$tmp/commands.sh") >"$tmp/$b.log" 2>&1; then
            ok "examples/embed/$b.c built and run by doc/embedding.md's commands"
        else
            fail "examples/embed/$b.c with doc/embedding.md's commands:"
            sed 's/^/  /' "$tmp/$b.log"
        fi
    done
fi

echo "$passed passed, $failed failed"
test "$failed" -eq 0
