#!/bin/sh
# tests/doc/api-glance.sh -- doc/embedding.md's "The API at a glance" lists
# every function include/vlad.h declares, and nothing else
#
# The functions of vlad.h are the names NAME of "VLAD_API TYPE NAME(" (a
# declaration may wrap: the name is the first vlad_ word followed by "("
# after VLAD_API); those of the glance are the `vlad_NAME` words of the
# table under "## 14. The API at a glance" (up to the next heading or the
# end).  Each name must be written out in full there (no vlad_is_a/b).

srcdir=${srcdir:-.}
header=$srcdir/include/vlad.h
doc=$srcdir/doc/embedding.md
tmp=$(mktemp -d "${TMPDIR:-/tmp}/vlad-glance.XXXXXX") || exit 99
trap 'rm -rf "$tmp"' 0

# join each VLAD_API declaration onto one line, then take its name
awk '/^VLAD_API/ { decl = $0; while (decl !~ /\(/ && (getline line) > 0) decl = decl " " line;
                   print decl }' "$header" \
    | sed -n 's/^VLAD_API[^(]*\<\(vlad_[a-z0-9_]*\)[ ]*(.*/\1/p' | sort -u >"$tmp/header"
sed -n '/^## [0-9]*\. The API at a glance/,/^## /p' "$doc" \
    | grep '^|' | grep -o 'vlad_[a-z0-9_]*' | sort -u >"$tmp/glance"

nh=$(wc -l <"$tmp/header" | tr -d ' ')
ng=$(wc -l <"$tmp/glance" | tr -d ' ')
if test "$nh" -lt 30; then
    echo "api-glance: FAIL: found only $nh functions in $header"
    exit 1
fi
if test "$ng" -eq 0; then
    echo "api-glance: FAIL: no table under \"The API at a glance\" in $doc"
    exit 1
fi
status=0
missing=$(comm -23 "$tmp/header" "$tmp/glance")
extra=$(comm -13 "$tmp/header" "$tmp/glance")
if test -n "$missing"; then
    echo "api-glance: FAIL: declared in vlad.h, missing from the glance of doc/embedding.md:"
    echo "$missing" | sed 's/^/  /'
    status=1
fi
if test -n "$extra"; then
    echo "api-glance: FAIL: in the glance of doc/embedding.md, not a function of vlad.h:"
    echo "$extra" | sed 's/^/  /'
    status=1
fi
test $status -eq 0 && echo "api-glance: the glance lists all $nh functions of vlad.h"
exit $status
