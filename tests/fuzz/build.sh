#!/bin/sh
# tests/fuzz/build.sh -- build the libFuzzer harnesses with clang
#
# usage: build.sh OUTDIR
#
# Compiles the library's sources (FUZZ_LIB_SOURCES) once into OUTDIR/obj
# with -fsanitize=fuzzer-no-link,address,undefined, then links each
# harness (tests/fuzz/fuzz-NAME.c: read, eval, ad, api, print, load) into OUTDIR/fuzz-NAME.  Only what is
# out of date is rebuilt.  Normal builds are unaffected: nothing here is
# part of "make all".  Called by "make fuzz-build" and by the smoke test,
# which pass the environment below.
#
# Exit status: 0 built; 77 when clang or its libFuzzer runtime is missing
# (the smoke test then skips); 1 on a compile error.
#
# Environment (set by tests/fuzz/local.mk):
#   FUZZ_CC            clang                                   [clang]
#   FUZZ_CFLAGS        extra flags                             []
#   FUZZ_SANITIZE      sanitizers              [address,undefined]
#   FUZZ_SRCDIR        the top of the source tree              [required]
#   FUZZ_BUILDDIR      the top of the build tree (config.h, generated
#                      parser sources)                          [required]
#   FUZZ_LIB_SOURCES   the library's sources, relative to the top: .c
#                      files are compiled, NAME.y and NAME.l stand for the
#                      generated NAME.c, anything else is skipped (looked
#                      up in the build tree, then the source tree)
#   FUZZ_LIBS          libraries to link                 [-lgc -lpthread -lm]
#   FUZZ_DEFS          extra -D flags (VLAD_LIBDIR)

set -u
test $# -eq 1 || { echo "usage: $0 OUTDIR" >&2; exit 2; }
out=$1
cc=${FUZZ_CC:-clang}
san=${FUZZ_SANITIZE:-address,undefined}
srcdir=${FUZZ_SRCDIR:?FUZZ_SRCDIR is not set}
builddir=${FUZZ_BUILDDIR:?FUZZ_BUILDDIR is not set}
libs=${FUZZ_LIBS:--lgc -lpthread -lm}
harnesses="read eval ad api print load"

if ! command -v "$cc" >/dev/null 2>&1; then
    echo "fuzz-build: $cc not found: the fuzz harnesses need clang with libFuzzer" \
         "(Debian: apt-get install clang)"
    exit 77
fi
mkdir -p "$out/obj" || exit 1

# Can this compiler link a libFuzzer target?
probe=$out/obj/probe
if ! test -x "$probe"; then
    printf '%s\n' '#include <stddef.h>' '#include <stdint.h>' \
        'int LLVMFuzzerTestOneInput(const uint8_t *d, size_t n);' \
        'int LLVMFuzzerTestOneInput(const uint8_t *d, size_t n) { (void)d; (void)n; return 0; }' \
        >"$probe.c"
    if ! "$cc" -fsanitize=fuzzer,$san "$probe.c" -o "$probe" >"$probe.log" 2>&1; then
        echo "fuzz-build: $cc cannot link -fsanitize=fuzzer,$san (no libFuzzer runtime):"
        cat "$probe.log"
        rm -f "$probe"
        exit 77
    fi
fi

# VL_PRINT_STRING_MAX: vlad_to_string cuts at 64 KiB instead of 64 MiB,
# so that fuzz-print reaches the cut without building 64 MiB per input
cflags="-g -O1 -fno-omit-frame-pointer -fsanitize=$san
 -std=c11 -Wall -Wno-unused-function -I$srcdir -I$srcdir/include -I$builddir
 -DVL_PRINT_STRING_MAX=65536 ${FUZZ_DEFS:-} ${FUZZ_CFLAGS:-}"

# up_to_date TARGET SOURCE...: TARGET exists and is newer than each SOURCE
up_to_date() {
    u_target=$1
    shift
    test -f "$u_target" || return 1
    for u_dep in "$@"; do
        test "$u_target" -nt "$u_dep" || return 1
    done
    return 0
}

# headers: any change rebuilds everything (the library is small)
headers=$(ls "$srcdir"/vm/*/*.h "$srcdir"/parser/*.h "$srcdir"/include/*.h \
              "$builddir"/config.h 2>/dev/null)
test -f "$builddir/parser/parser.h" && headers="$headers $builddir/parser/parser.h"
test -f "$builddir/stdlib/prelude.inc" && headers="$headers $builddir/stdlib/prelude.inc"
test -f "$srcdir/stdlib/prelude.inc" && headers="$headers $srcdir/stdlib/prelude.inc"

# compile SRC OBJ FLAGS...: compile when out of date
compile() {
    c_src=$1 c_obj=$2
    shift 2
    # shellcheck disable=SC2086
    if ! up_to_date "$c_obj" "$c_src" $headers; then
        echo "  CC (fuzz) $c_src -> $(basename "$c_obj")"
        # shellcheck disable=SC2086
        $cc $cflags "$@" -c "$c_src" -o "$c_obj" || exit 1
        built=1
    fi
}

# Two sets of objects.  objs: everything with coverage, for fuzz-read.
# objs_fast: the same, except that the lexer and the parser are compiled
# without coverage: fuzz-eval and fuzz-ad read the prelude on every input
# (a fresh state each time), and tracing every comparison of the scanner
# over it took over half their time; fuzz-read covers those two files.
objs=
objs_fast=
built=0
for lib_src in ${FUZZ_LIB_SOURCES:?FUZZ_LIB_SOURCES is not set}; do
    case $lib_src in
    *.c) ;;
    *.y | *.l) lib_src=${lib_src%.?}.c ;;     # the bison/flex output
    *) continue ;;                          # headers
    esac
    if test -f "$builddir/$lib_src"; then src=$builddir/$lib_src
    elif test -f "$srcdir/$lib_src"; then src=$srcdir/$lib_src
    else echo "fuzz-build: $lib_src: not found" >&2; exit 1
    fi
    o=$out/obj/$(echo "$lib_src" | sed 's|/|_|g; s|\.c$|.o|')
    compile "$src" "$o" -fsanitize=fuzzer-no-link
    objs="$objs $o"
    case $lib_src in
    */lexer.c | */parser.c)
        o2=${o%.o}-nocov.o
        compile "$src" "$o2"
        objs_fast="$objs_fast $o2" ;;
    *)
        objs_fast="$objs_fast $o" ;;
    esac
done

for h in $harnesses; do
    src=$srcdir/tests/fuzz/fuzz-$h.c
    bin=$out/fuzz-$h
    case $h in read) o=$objs ;; *) o=$objs_fast ;; esac
    # shellcheck disable=SC2086
    if test $built = 1 || ! up_to_date "$bin" "$src" $o $headers; then
        echo "  CCLD (fuzz) fuzz-$h"
        # shellcheck disable=SC2086
        $cc $cflags -fsanitize=fuzzer "$src" $o $libs -o "$bin" || exit 1
    fi
done
exit 0
