#!/bin/sh
# tests/doc/recipe-function.sh -- doc/internals.md's checklist "A new
# differentiable function of one real" is all it takes
#
# In a scratch copy of the tree (tests/doc/recipe-lib.sh), makes every edit
# the checklist lists, and only those, for a throw-away function
# recipe-exp2 (2^x, C's exp2; derivative 2^x ln 2):
#   1. its row in vm/core/math1.h
#   2. its line in doc/reference.md section 6
#   3. its domain in tests/unit/test-math1.c
#   4. its points and closed-form derivatives in tests/unit/gen-math-ref.py,
#      and the references that script writes (needs mpmath: else a skip)
#   5. its row in tests/ad/math1.vlad, and the lines it adds to the
#      expected outputs of tests/ad/math1.vlad and tests/ad/math-tails.vlad
# then builds the copy and checks: its value, first derivative under j*
# and *j and second derivative under j* of *j and *j of j*, against
# numbers awk computes from exp and log; ,describe's text of it (the
# generated cli/doctable.c); and the copy's own tests of the table
# (test-math1, math1.vlad, math-tails.vlad), which fail for a row that
# lacks any of its pieces.  A place the checklist forgets fails here.
# Prints "N passed, N failed".

. "${srcdir:-.}/tests/doc/recipe-lib.sh"
if ! python3 -c 'import mpmath' 2>/dev/null; then
    echo "SKIP: python3 without mpmath (tests/unit/gen-math-ref.py needs it)"
    exit 77
fi
recipe_setup recipe-function

# 1. the row
recipe_edit vm/core/math1.h 's.replace("    /* new rows go above this line", '\
'"    ROW(RECIPE_EXP2, \"recipe-exp2\", exp2,                               \\\n"'\
'"        VLM_MUL(VLM_K(0.6931471805599453), VLM_VAL))                      \\\n"'\
'"    /* new rows go above this line")'
# 2. the reference (and so ,describe)
recipe_edit doc/reference.md 's.replace("| `=` `<` `>`", '\
'"| `recipe-exp2` | unary | 2 to the power x; derivative 2^x ln 2 |\n"'\
'"| `=` `<` `>`", 1)'
# 3. the domain of the unit test
recipe_edit tests/unit/test-math1.c 's.replace("        /* new domains go above", '\
'"        {\"recipe-exp2\", -5, 5},\n        /* new domains go above")'
# 4. the references
recipe_edit tests/unit/gen-math-ref.py 's.replace("    # new rows go above this line", '\
'"    rows.append((\"recipe-exp2\", [-1000, -100, -1, -1e-10, 0, 0.5, 1, 3, 100, 1000],\n"'\
'"                 lambda x: mpmath.ln2 * 2 ** x,\n"'\
'"                 lambda x: mpmath.ln2 ** 2 * 2 ** x))\n"'\
'"    # new rows go above this line")'
python3 "$tree/tests/unit/gen-math-ref.py" "$tree" >"$tmp/gen.log" 2>&1 \
    || { cat "$tmp/gen.log"; exit 99; }
# 5. the golden test of the table, and the expected outputs
recipe_edit tests/ad/math1.vlad 's.replace("   ;; new rows go above this line", '\
'"   (list (quote recipe-exp2) recipe-exp2\n"'\
'"         (lambda (x) (* (log 2) (recipe-exp2 x)))\n"'\
'"         (lambda (x) (* (log 2) (log 2) (recipe-exp2 x))) (quote (-3 -0.5 0 1 2.5)))\n"'\
'"   ;; new rows go above this line")'
recipe_edit tests/ad/math1.out 's.replace("))\n", '\
'") (recipe-exp2 #t #t #t #t #t #t #t #t))\n", 1)'
recipe_edit tests/ad/math-tails.out 's.replace("(+ 4 ())\n", '\
'"(recipe-exp2 10 ())\n(+ 4 ())\n", 1)'

recipe_make vlad tests/unit/test-math1 cli/doctable.c
vlad=$tree/vlad

# value and derivatives, against awk
check() {   # EXPR WANT...: the reals vlad prints for EXPR, to 1e-15 relative
    expr=$1
    shift
    got=$("$vlad" -e "$expr" 2>&1 | tr -d '()')
    if echo "$got $*" | awk '{ n = NF / 2; if (NF != 2 * n) exit 1
            for (i = 1; i <= n; i++) { g = $i; w = $(i + n)
                d = g - w; if (d < 0) d = -d; a = w < 0 ? -w : w
                if (d > 1e-15 * a) exit 1 } }'; then
        ok
    else
        bad "$expr gave '$got', want '$*'"
    fi
}
want() { awk "BEGIN { printf \"%.17g\", $1 }"; }
v=$(want 'exp(3 * log(2))')
d1=$(want 'exp(3 * log(2)) * log(2)')
d2=$(want 'exp(3 * log(2)) * log(2) * log(2)')
check "(recipe-exp2 3)" "$v"
check "(j* recipe-exp2 3 1)" "$v" "$d1"
check "(*j recipe-exp2 3 1)" "$v" "$d1"
check "(j* (lambda (x) (cadr (*j recipe-exp2 x 1))) 3 1)" "$d1" "$d2"
check "(*j (lambda (x) (cadr (j* recipe-exp2 x 1))) 3 1)" "$d1" "$d2"
check "(cadr (checkpoint-*j recipe-exp2 3 1))" "$d1"

# ,describe's text
if grep -A2 '{"recipe-exp2",' "$tree/cli/doctable.c" | grep -q '2 to the power x'
then
    ok
else
    bad ",describe recipe-exp2 has not the text of doc/reference.md"
fi

# the copy's own tests of the table
if "$tree/tests/unit/test-math1" >"$tmp/unit.log" 2>&1; then
    ok
else
    tail -20 "$tmp/unit.log"
    bad "tests/unit/test-math1 in the scratch tree"
fi
recipe_golden tests/ad/math1.vlad tests/ad/math-tails.vlad
recipe_finish
