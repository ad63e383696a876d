#!/bin/sh
# tests/api/locale.sh -- libvlad and vlad in a decimal-comma locale
# (doc/hardening.md W4)
#
# Compiles de_DE.UTF-8 from the sources of Debian's 'locales' package
# (scripts/install-deps.sh installs it) into the build tree with localedef,
# once, then runs tests/api/test-api-locale under LOCPATH and LC_ALL, and
# the vlad program too (which never calls setlocale, so it must not care).
# A locale that cannot be compiled is a failure, not a skip: the test
# exists to run on CI.

prog=${VLAD_API_LOCALE:-tests/api/test-api-locale}
vlad=${VLAD:-./vlad}
dir=${VLAD_TEST_OUTDIR:-test-output}/locale
name=de_DE.UTF-8

if ! test -f "$dir/$name/LC_NUMERIC"; then
    mkdir -p "$dir" || exit 99
    if ! localedef -i de_DE -f UTF-8 "$dir/$name" >"$dir/localedef.log" 2>&1 \
       || ! test -f "$dir/$name/LC_NUMERIC"; then
        echo "FAIL: localedef -i de_DE -f UTF-8 did not build $name" \
             "(is the 'locales' package installed? scripts/install-deps.sh)"
        cat "$dir/localedef.log"
        rm -rf "$dir/$name"
        exit 1
    fi
fi
LOCPATH=`cd "$dir" && pwd`
export LOCPATH
LC_ALL=$name
export LC_ALL

status=0
"$prog" || status=1

# the vlad program: the same text whatever the environment's locale
got=`"$vlad" -e '(+ 2.25 0.25)' -e '(write-real 0.1)' 2>&1`
expect='2.5
0.1
0.1'
if test "$got" = "$expect"; then
    echo "ok: vlad prints 2.5 under LC_ALL=$name"
else
    echo "FAIL: vlad under LC_ALL=$name printed:"
    echo "$got"
    status=1
fi
got=`echo '2.5' | "$vlad" -e '(* 2 (read-real 0))' 2>&1`
if test "$got" = "5"; then
    echo "ok: vlad reads 2.5 under LC_ALL=$name"
else
    echo "FAIL: vlad's read-real under LC_ALL=$name gave: $got"
    status=1
fi
exit $status
