#!/bin/sh
# tests/doc/recipe-strategy.sh -- doc/internals.md's recipe "Adding a
# strategy" (section 19) is true: follow it in a scratch copy of the
# sources and the new strategy works.
#
# The copy is the distributed tree (make distdir, from this build: it
# works from a VPATH build and under distcheck).  A script makes the
# recipe's C edits for a throw-away strategy "halving" (bisection under
# another name, with its own split rule): a row of the table of
# strategies (vm/cpj/cpjstrat.c), its split rule beside the others
# (vm/cpj/cpjstrat.c) and its declaration (vm/cpj/cpjstrat.h) -- no other
# C file.  The copy is configured and built; a program then
# runs under --checkpoint=halving,base=10: checkpoint-*j's results equal
# *j's, the steps and results equal bisection's, --stats names the plan
# "halving", and a SPEC it does not take is refused as bisection's is.
# (A minute or two: it builds vlad.)
#
# Environment (tests/doc/local.mk): VLAD_MAKE, VLAD_TOP_BUILDDIR.

srcdir=${srcdir:-.}
build=${VLAD_TOP_BUILDDIR:?VLAD_TOP_BUILDDIR is not set (run from make check)}
make=${VLAD_MAKE:-make}
fails=0
passes=0
ok() { passes=$((passes + 1)); }
bad() { echo "FAIL: $*"; fails=$((fails + 1)); }

scratch=$(mktemp -d "${TMPDIR:-/tmp}/vlad-recipe.XXXXXX") || exit 99
trap 'chmod -R u+w "$scratch" 2>/dev/null; rm -rf "$scratch"' EXIT INT TERM
quiet() { env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL "$@" >"$scratch/log" 2>&1 \
              || { tail -30 "$scratch/log"; return 1; }; }

# 1. the distributed sources, writable
quiet $make -C "$build" distdir distdir="$scratch/src" \
    || { echo "make distdir failed"; exit 99; }
chmod -R u+w "$scratch/src"

# 2. the recipe's edits (doc/internals.md section 19, "Adding a strategy")
python3 - "$scratch/src" <<'EOF' || { echo "the recipe's edits failed"; exit 1; }
import sys
top = sys.argv[1]
def edit(path, anchor, text, after=True):
    p = top + '/' + path
    s = open(p).read()
    if s.count(anchor) != 1:
        sys.exit('%s: the recipe\'s anchor %r is not there once' % (path, anchor))
    s = s.replace(anchor, anchor + text if after else text + anchor)
    open(p, 'w').write(s)
# (1) a row at the end of the table of strategies
edit('vm/cpj/cpjstrat.c', '    {"binomial", 1, 1, vl_cpj_split_binomial},\n',
     '    {"halving", 0, 0, vl_cpj_split_halving},\n')
# (2) its split rule, beside the others
edit('vm/cpj/cpjstrat.c', 'int64_t vl_cpj_split_binomial(',
     'int64_t vl_cpj_split_halving(int64_t n, int64_t slots, int64_t base)\n'
     '{\n    (void)slots, (void)base;\n    return n - n / 2 - n % 2;\n}\n\n',
     after=False)
# (3) its declaration
edit('vm/cpj/cpjstrat.h', 'VL_INTERNAL int64_t vl_cpj_split_binomial(',
     'VL_INTERNAL int64_t vl_cpj_split_halving(int64_t n, int64_t slots,\n'
     '                                         int64_t base);\n',
     after=False)
EOF

# 3. build the copy's vlad
mkdir "$scratch/build" || exit 99
(cd "$scratch/build" && quiet "$scratch/src/configure" -q --disable-werror) \
    || { echo "configure failed"; exit 99; }
(cd "$scratch/build" && quiet $make -j2 all) \
    || { bad "the copy does not build"; exit 1; }
vlad=$scratch/build/vlad

# 4. the new strategy at work
cat >"$scratch/f.vlad" <<'EOF'
(define (f xs)
  (let loop ((i 0) (a (car xs)) (b (cadr xs)))
    (if (= i 50) (+ (* a a) (* 3 b))
        (loop (+ i 1) (+ (* a 0.99) (* b 0.01)) (- b (* a 0.02))))))
(define x '(1.5 -0.5))
(define a (*j f x 1))
(define b (checkpoint-*j f x 1))
(define (diff u v) (if (null? u) 0 (+ (abs (- (car u) (car v))) (diff (cdr u) (cdr v)))))
(write (and (= (car a) (car b)) (< (diff (cadr a) (cadr b)) 1e-12)))
(newline)
(write-real (car b))
(write-real (car (cadr b)))
(write-real (cadr (cadr b)))
EOF
out=$("$vlad" --stats --checkpoint=halving,base=10 "$scratch/f.vlad" 2>"$scratch/stats")
status=$?
if test $status = 0; then ok; else bad "vlad --checkpoint=halving,base=10 exited $status"; cat "$scratch/stats"; fi
case $out in
    "#t"*) ok ;;
    *) bad "checkpoint-*j under halving does not give *j's value: $out" ;;
esac
ref=$("$vlad" --stats --checkpoint=bisection,base=10 "$scratch/f.vlad" 2>"$scratch/ref")
if test "$out" = "$ref"; then ok; else
    bad "halving and bisection differ: '$out' and '$ref'"
fi
if grep -q '^checkpoint-\*j plan: halving, base 10 steps$' "$scratch/stats"; then ok; else
    bad "--stats does not name halving:"; grep plan "$scratch/stats"
fi
for line in 'steps:' 'checkpoint-\*j re-executed steps:' 'checkpoint-\*j base cases:'; do
    a=$(grep "^$line" "$scratch/stats")
    b=$(grep "^$line" "$scratch/ref")
    if test -n "$a" && test "$a" = "$b"; then ok; else
        bad "halving's '$a' is not bisection's '$b'"
    fi
done
if "$vlad" --checkpoint=halving,slots=2 "$scratch/f.vlad" >/dev/null 2>"$scratch/err"; then
    bad "halving took slots=2"
elif grep -q "unknown option 'slots'" "$scratch/err"; then ok; else
    bad "halving,slots=2: $(cat "$scratch/err")"
fi
if "$vlad" --checkpoint=nothing "$scratch/f.vlad" >/dev/null 2>"$scratch/err"; then
    bad "an unknown strategy was taken"
elif grep -q "expected bisection, binomial or halving" "$scratch/err"; then ok; else
    bad "an unknown strategy: $(cat "$scratch/err")"
fi

echo "$passes passed, $fails failed"
test $fails = 0
