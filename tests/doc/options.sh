#!/bin/sh
# tests/doc/options.sh -- every option vlad accepts is documented
#
# The options are the string literals "-x" / "--name" of the code of
# cli/options.c (comments left out), and "-" as FILE (cli/main.c).  Each must be
#   * in vlad --help, at the start of an option line ("  -q, --quiet ...");
#   * in the man page doc/vlad.1.in: an item (.TP) of OPTIONS, or for
#     "--" and "-" a word of OPTIONS' text;
#   * in doc/reference.md section 11, in backticks (`--stats`, `-e EXPR`).
# A new option fails this test until it is documented in the three places.

srcdir=${srcdir:-.}
if test -z "$VLAD" || test ! -x "$VLAD"; then
    echo "options: VLAD is not set to the built vlad (run through make check)" >&2
    exit 99
fi
tmp=$(mktemp -d "${TMPDIR:-/tmp}/vlad-options.XXXXXX") || exit 99
trap 'rm -rf "$tmp"' 0

{
    sed -e 's#/\*.*\*/##' -e '/^ *\*/d' -e '/^\/\*/d' "$srcdir/cli/options.c" \
        | grep -o '"--*[A-Za-z][-A-Za-z]*"\|"--*"' | tr -d '"'
    echo -                      # FILE "-" (cli/main.c)
} | sort -u >"$tmp/options"
n=$(wc -l <"$tmp/options" | tr -d ' ')
if test "$n" -lt 10; then
    echo "options: FAIL: found only $n options in cli/options.c:" $(cat "$tmp/options")
    exit 1
fi

"$VLAD" --help >"$tmp/help" 2>&1 || { echo "options: FAIL: vlad --help failed"; exit 1; }
# the man page's OPTIONS section with \- made -, its .TP item lines, its text
sed -n '/^\.SH OPTIONS/,/^\.SH /p' "$srcdir/doc/vlad.1.in" | sed 's/\\-/-/g' >"$tmp/man"
awk 'tp { print; tp = 0 } /^\.TP/ { tp = 1 }' "$tmp/man" >"$tmp/man-items"
sed -n '/^## 11\./,/^## /p' "$srcdir/doc/reference.md" >"$tmp/ref"

failed=0
for o in $(cat "$tmp/options"); do
    re=$(printf '%s' "$o" | sed 's/[.[\*^$]/\\&/g')
    where=
    grep -q -e "^  \(-[A-Za-z], \)\{0,1\}$re\([ ,=]\|$\)" "$tmp/help" || where="$where --help"
    case $o in
    - | --) grep -q -e "^\.B $re\$" -e "^\.BR $re " -e " $re\$" "$tmp/man" || where="$where vlad.1" ;;
    *) grep -q -e "^\.[BIR]* *$re\([ \"]\|$\)" -e "^\.[BIR]* *-[A-Za-z] *\", \" *$re\b" \
            -e "^\.BR -[A-Za-z] \", \" $re\$" "$tmp/man-items" || where="$where vlad.1" ;;
    esac
    grep -q -e "\`$re\([\` =]\)" "$tmp/ref" || where="$where reference.md"
    if test -n "$where"; then
        echo "options: FAIL: $o is not documented in:$where"
        failed=$((failed + 1))
    else
        echo "ok: $o"
    fi
done
echo "$((n - failed)) passed, $failed failed"
test "$failed" -eq 0
