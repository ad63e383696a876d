#!/bin/sh
# tests/fuzz/update-seeds.sh -- refresh tests/fuzz/corpus-programs/
#
# usage: sh tests/fuzz/update-seeds.sh [CONFORMANCE-TESTS-DIR]
#
# Copies every .vlad file of tests/ (but tests/fuzz/ and
# tests/conformance/), examples/ and the conformance suite (default: the
# vendored tests/conformance/tests; named conformance_NAME) of at most
# 16 KB into tests/fuzz/corpus-programs/,
# named after its path (tests/lang/forms-let.vlad ->
# tests_lang_forms-let: no .vlad, which tests/check-listed would ask
# to be listed), replacing what was there.  These are the
# seeds of fuzz-read and fuzz-eval.  Run it from the top of the source
# tree after adding tests, and commit the result.
set -eu
cd "$(dirname "$0")/../.."
conf=${1:-tests/conformance/tests}
dest=tests/fuzz/corpus-programs
rm -rf "$dest"
mkdir -p "$dest"
find tests examples -name '*.vlad' -not -path 'tests/fuzz/*' \
    -not -path 'tests/conformance/*' -size -16k \
    | sort | while read -r f; do
    cp "$f" "$dest/$(echo "$f" | sed 's|/|_|g; s|\.vlad$||')"
done
if test -d "$conf"; then
    for f in "$conf"/*.vlad; do
        cp "$f" "$dest/conformance_$(basename "$f" .vlad)"
    done
fi
echo "update-seeds: $(ls "$dest" | wc -l) seeds in $dest"
