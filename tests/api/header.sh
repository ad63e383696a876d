#!/bin/sh
# tests/api/header.sh -- include/vlad.h stands alone (style.md 2.9): it
# compiles as the only include of a translation unit under
# -std=c99 -pedantic -Werror, under -std=c11, and as C++ (-std=c++11,
# extern "C"), and it includes nothing but standard headers; its table of
# function pointers names every function vlad.h declares.
#
# Compilers: $CC (default cc) and $CXX (default c++); a missing C++
# compiler skips that part, a missing C compiler skips the test (77).

srcdir=${srcdir:-.}
header=$srcdir/include/vlad.h
cc=${CC:-cc}
cxx=${CXX:-c++}
tmp=${TMPDIR:-/tmp}/vlad-header.$$
mkdir "$tmp" || exit 99
trap 'rm -rf "$tmp"' 0

if ! command -v "$cc" >/dev/null 2>&1; then
    echo "header: SKIP: no C compiler ($cc)"
    exit 77
fi

failed=0
passed=0
check() {
    # $1: what; the rest: the command
    what=$1
    shift
    if "$@" >"$tmp/log" 2>&1; then
        passed=`expr $passed + 1`
        echo "ok: $what"
    else
        failed=`expr $failed + 1`
        echo "FAIL: $what"
        sed 's/^/  /' "$tmp/log"
    fi
}

cat >"$tmp/t.c" <<'EOC'
#include <vlad.h>
/* every type, and a pointer to every function, so that each declaration
   is checked */
static void (*const fns[])(void) = {
    (void (*)(void))vlad_config_init, (void (*)(void))vlad_open,
    (void (*)(void))vlad_close, (void (*)(void))vlad_eval_string,
    (void (*)(void))vlad_eval_file, (void (*)(void))vlad_disassemble,
    (void (*)(void))vlad_last_error,
    (void (*)(void))vlad_interrupt, (void (*)(void))vlad_call,
    (void (*)(void))vlad_interrupted, (void (*)(void))vlad_resume,
    (void (*)(void))vlad_checkpoint_save,
    (void (*)(void))vlad_checkpoint_save_buffer,
    (void (*)(void))vlad_checkpoint_load,
    (void (*)(void))vlad_checkpoint_load_buffer,
    (void (*)(void))vlad_set_autosave, (void (*)(void))vlad_saved_info,
    (void (*)(void))vlad_run_saved, (void (*)(void))vlad_stop_autosave,
    (void (*)(void))vlad_set_warning, (void (*)(void))vlad_saved_autosave,
    (void (*)(void))vlad_globals, (void (*)(void))vlad_get_global,
    (void (*)(void))vlad_set_global, (void (*)(void))vlad_set_heap_limit,
    (void (*)(void))vlad_set_step_limit, (void (*)(void))vlad_set_checkpoint,
    (void (*)(void))vlad_checkpoint_strategy,
    (void (*)(void))vlad_get_stats, (void (*)(void))vlad_to_string,
    (void (*)(void))vlad_number, (void (*)(void))vlad_is_number,
    (void (*)(void))vlad_to_number, (void (*)(void))vlad_boolean,
    (void (*)(void))vlad_is_boolean, (void (*)(void))vlad_to_boolean,
    (void (*)(void))vlad_nil, (void (*)(void))vlad_is_nil,
    (void (*)(void))vlad_cons, (void (*)(void))vlad_is_pair,
    (void (*)(void))vlad_car, (void (*)(void))vlad_cdr,
    (void (*)(void))vlad_is_procedure, (void (*)(void))vlad_is_checkpoint,
    (void (*)(void))vlad_list_of_numbers, (void (*)(void))vlad_numbers_of_list,
    (void (*)(void))vlad_ref, (void (*)(void))vlad_ref_get,
    (void (*)(void))vlad_ref_set, (void (*)(void))vlad_unref,
    (void (*)(void))vlad_derivative, (void (*)(void))vlad_gradient,
    (void (*)(void))vlad_directional_derivative,
    (void (*)(void))vlad_register, (void (*)(void))vlad_host_error,
    (void (*)(void))vlad_collect, (void (*)(void))vlad_flush,
    (void (*)(void))vlad_mpi_init, (void (*)(void))vlad_mpi_rank,
    (void (*)(void))vlad_mpi_size, (void (*)(void))vlad_mpi_abort,
};
typedef char value_is_16_bytes[sizeof(VladValue) == 16 ? 1 : -1];
int main(void)
{
    VladConfig c;
    VladStats s;
    VladHostPrim p;
    VladError e;
    VladStatus st = VLAD_ERR_ARGUMENT;
    VladRef *r = 0;
    VladHostFn fn = 0;
    (void)c; (void)s; (void)p; (void)e; (void)st; (void)r; (void)fn;
    return (int)(sizeof fns / sizeof fns[0]) == 52 ? 0 : 1;
}
EOC
check "C99 -pedantic" "$cc" -std=c99 -pedantic -Wall -Wextra -Werror \
    -I"$srcdir/include" -c "$tmp/t.c" -o "$tmp/t99.o"
check "C11 -pedantic" "$cc" -std=c11 -pedantic -Wall -Wextra -Werror \
    -I"$srcdir/include" -c "$tmp/t.c" -o "$tmp/t11.o"

# the table above names every function vlad.h declares
missing=
for f in `sed -n 's/.*\(vlad_[a-z_]*\)(.*/\1/p' "$header" | sort -u`; do
    grep -q "(void (\*)(void))$f," "$tmp/t.c" || missing="$missing $f"
done
if test -z "$missing"; then
    passed=`expr $passed + 1`
    echo "ok: every function of vlad.h is checked"
else
    failed=`expr $failed + 1`
    echo "FAIL: not in the table of header.sh:$missing"
fi

# only standard headers
bad=`sed -n 's/^[ 	]*#[ 	]*include[ 	]*\([<"][^>"]*[>"]\).*/\1/p' "$header" \
    | grep -v -x -e '<stddef.h>' -e '<stdint.h>' -e '<stdarg.h>'`
if test -z "$bad"; then
    passed=`expr $passed + 1`
    echo "ok: includes only standard headers"
else
    failed=`expr $failed + 1`
    echo "FAIL: vlad.h includes $bad"
fi

if command -v "$cxx" >/dev/null 2>&1; then
    cp "$tmp/t.c" "$tmp/t.cc"
    check "C++11" "$cxx" -std=c++11 -Wall -Wextra -Werror \
        -I"$srcdir/include" -c "$tmp/t.cc" -o "$tmp/tcc.o"
    # the C++ object refers to the unmangled names
    if command -v nm >/dev/null 2>&1; then
        if nm "$tmp/tcc.o" | grep -q ' U _Z.*vlad_'; then
            failed=`expr $failed + 1`
            echo "FAIL: C++ mangles vlad_* names (no extern \"C\")"
        else
            passed=`expr $passed + 1`
            echo "ok: extern \"C\""
        fi
    fi
else
    echo "note: no C++ compiler ($cxx): C++ not checked"
fi

echo "$passed passed, $failed failed"
test "$failed" -eq 0
