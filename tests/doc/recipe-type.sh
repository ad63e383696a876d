#!/bin/sh
# tests/doc/recipe-type.sh -- doc/internals.md's checklist "A new data
# type" is all it takes
#
# In a scratch copy of the tree (tests/doc/recipe-lib.sh), makes every edit
# the checklist lists, in its order, for a throw-away immutable box of one
# value: (box v), (unbox b), (box? v), printed #<box V>:
#   1. vm/core/value.h: VT_BOX, IS_BOX, AS_BOX; vm/core/object.h: Box
#   2. vm/core/object.c: its kind name (no case in `equal`: a box is never
#      a constant of code or of a pattern, the checklist says so)
#   3. vm/core/print.c: how it prints
#   4. vm/exec/prims.c: box, unbox, box?; their rows in doc/reference.md
#      section 6, the type in section 2
#   5. vm/ad/walk.c: its case in the walker and in vl_walk_any;
#      vm/api/apihost.c's `differentiated`
#   6. vm/persist/ckptfile.h: R_BOX
#   7. vm/persist/ckptsave.c: put_value, push_value (K_BOX), enter, emit
#   8. vm/persist/ckptload.c: get_value, read_box and its case in the
#      loop, kind_name, taint and check_outside; R_BOX in section 20
#   9. vm/api/apiconv.h: vl_api_valid
#  10. tests/api/forge.h: VT_BOX, R_BOX; tests/api/test-api-forged.c: a
#      forged file hiding an internal value in a box, one naming a box
#      where a pair is expected
#  11. golden tests of it (tests/lang/, tests/ad/), listed in
#      tests/local.mk
# then builds the copy and checks through its vlad: printing, the
# predicate, unbox and its error, the kind name in a message, derivatives
# through boxes under j*, *j and checkpoint-*j (bisection down to one
# step: the states the reversal holds have boxes of active reals), a
# checkpoint holding boxes saved at every step, loaded back in a fresh
# state and resumed (tests/persist/persist-helper) and resumed by
# `vlad --resume`; the copy's tests/api/test-api-forged (step 10) and its
# golden tests (step 11).  A place the checklist forgets fails here.
# Prints "N passed, N failed".

. "${srcdir:-.}/tests/doc/recipe-lib.sh"
recipe_setup recipe-type

# 1. the tag and the object
recipe_edit vm/core/value.h 's.replace('\
'"    VT_VOID         /* the value of display and newline: never echoed */\n", '\
'"    VT_VOID,        /* the value of display and newline: never echoed */\n"'\
'"    VT_BOX          /* as.obj -> Box */\n", 1)'
recipe_edit vm/core/value.h 's.replace("#define IS_VOID(v) ((v).tag == VT_VOID)\n", '\
'"#define IS_VOID(v) ((v).tag == VT_VOID)\n#define IS_BOX(v) ((v).tag == VT_BOX)\n", 1)'
recipe_edit vm/core/value.h 's.replace("#define AS_CKPT(v) ((Checkpoint *)(v).as.obj)\n", '\
'"#define AS_CKPT(v) ((Checkpoint *)(v).as.obj)\n#define AS_BOX(v) ((Box *)(v).as.obj)\n", 1)'
recipe_edit vm/core/object.h 's.replace(" *   Pair        two Values; immutable once built.\n", '\
'" *   Pair        two Values; immutable once built.\n *   Box         one Value; immutable once built.\n", 1)'
recipe_edit vm/core/object.h 's.replace("} Pair;\n", '\
'"} Pair;\n\ntypedef struct Box {\n    Value v;\n} Box;\n", 1)'
# 2. its kind name
recipe_edit vm/core/object.c 's.replace("    case VT_VOID: return \"void\";\n", '\
'"    case VT_VOID: return \"void\";\n    case VT_BOX: return \"box\";\n", 1)'
# 3. printing
recipe_edit vm/core/print.c 's.replace('\
'"        case VT_VOID:\n            vl_strbuf_adds(b, \"#<void>\");\n            break;\n", '\
'"        case VT_VOID:\n            vl_strbuf_adds(b, \"#<void>\");\n            break;\n"'\
'"        case VT_BOX:\n"'\
'"            vl_strbuf_adds(b, \"#<box \");\n"'\
'"            st[n++] = (Work){NIL_VAL, 2, \">\"};\n"'\
'"            st[n++] = (Work){AS_BOX(x)->v, 0, NULL};\n"'\
'"            break;\n", 1)'
# 4. the primitives and their documentation
recipe_edit vm/exec/prims.c 's.replace("static const PrimInfo prim_table[] = {\n", '\
'"static Value p_box(VladState *S, Value *args)\n{\n    (void)S;\n"'\
'"    Box *b = vl_gc_alloc(sizeof *b);\n    b->v = args[0];\n"'\
'"    return vl_obj(VT_BOX, b);\n}\n\n"'\
'"static Value p_unbox(VladState *S, Value *args)\n{\n"'\
'"    if (!IS_BOX(args[0]))\n        type_error(S, \"unbox\", \"a box\", args[0]);\n"'\
'"    return AS_BOX(args[0])->v;\n}\n\n"'\
'"static Value p_boxp(VladState *S, Value *args)\n{\n    (void)S;\n"'\
'"    return vl_bool(IS_BOX(args[0]));\n}\n\n"'\
'"static const PrimInfo prim_table[] = {\n", 1)'
recipe_edit vm/exec/prims.c 's.replace("    {\"cons\", p_cons, 2, -1},\n", '\
'"    {\"cons\", p_cons, 2, -1},\n    {\"box\", p_box, 1, -1},\n"'\
'"    {\"unbox\", p_unbox, 1, -1},\n    {\"box?\", p_boxp, 1, -1},\n", 1)'
recipe_edit doc/reference.md 's.replace("| `pair?` | unary | `#t` for pairs |\n", '\
'"| `pair?` | unary | `#t` for pairs |\n"'\
'"| `box` | unary | `(box v)` => a box holding v |\n"'\
'"| `unbox` | unary | the value a box holds |\n"'\
'"| `box?` | unary | `#t` for boxes |\n", 1)'
recipe_edit doc/reference.md 's.replace("| void | `(newline)` |", '\
'"| box | `(box v)`, printed `#<box v>` | holds one value, immutable |\n"'\
'"| void | `(newline)` |", 1)'
# 5. the walker of j*, *j and checkpoint-*j; the search for reals
recipe_edit vm/ad/walk.c 's.replace("        case VT_CKPT:\n        case VT_PAIR: {\n", '\
'"        case VT_CKPT:\n        case VT_BOX:\n        case VT_PAIR: {\n", 1)'
recipe_edit vm/ad/walk.c 's.replace("            if (w->zip && !IS_PAIR(b))\n                mismatch(w, a, b);\n", '\
'"            if (a.tag == VT_BOX) {\n"'\
'"                if (w->zip && !IS_BOX(b))\n                    mismatch(w, a, b);\n"'\
'"                Box *ba = AS_BOX(a), *bb = w->zip ? AS_BOX(b) : ba;\n"'\
'"                Box *nb = vl_gc_alloc(sizeof *nb);\n"'\
'"                nb->v = NIL_VAL;\n"'\
'"                r = vl_obj(VT_BOX, nb);\n"'\
'"                memo_put(&w->memo, ba, bb, r);\n"'\
'"                push(&t, ba->v, bb->v, &nb->v, 0);\n"'\
'"                break;\n            }\n"'\
'"            if (w->zip && !IS_PAIR(b))\n                mismatch(w, a, b);\n", 1)'
recipe_edit vm/ad/walk.c 's.replace("            v = AS_PAIR(v)->car;\n            continue;\n        }\n", '\
'"            v = AS_PAIR(v)->car;\n            continue;\n"'\
'"        } else if (IS_BOX(v)\n"'\
'"                   && memo_find(&memo, v.as.obj, v.as.obj) == NULL) {\n"'\
'"            memo_put(&memo, v.as.obj, v.as.obj, NIL_VAL);\n"'\
'"            v = AS_BOX(v)->v;\n            continue;\n        }\n", 1)'
recipe_edit vm/api/apihost.c 's.replace("        else if (IS_PAIR(args[k])\n", '\
'"        else if ((IS_PAIR(args[k]) || IS_BOX(args[k]))\n", 1)'
# 6. its record kind
recipe_edit vm/persist/ckptfile.h 's.replace("    R__COUNT\n", '\
'"    R_BOX,              /* a box: its value */\n    R__COUNT\n", 1)'
# 7. saving
recipe_edit vm/persist/ckptsave.c 's.replace("K_GLOBAL, K_TEXT\n", "K_GLOBAL, K_TEXT, K_BOX\n", 1)'
recipe_edit vm/persist/ckptsave.c 's.replace('\
'"    case VT_RAW:\n        if (role == ROLE_INT || role == ROLE_TAG) {\n", '\
'"    case VT_BOX:\n        vl_ckptfile_put_byte(o, v.tag);\n"'\
'"        vl_ckptfile_put_u(o, number(e, v.as.obj, K_BOX));\n        return;\n"'\
'"    case VT_RAW:\n        if (role == ROLE_INT || role == ROLE_TAG) {\n", 1)'
recipe_edit vm/persist/ckptsave.c 's.replace("    case VT_PAIR: push_obj(e, v.as.obj, K_PAIR); break;\n", '\
'"    case VT_PAIR: push_obj(e, v.as.obj, K_PAIR); break;\n"'\
'"    case VT_BOX: push_obj(e, v.as.obj, K_BOX); break;\n", 1)'
recipe_edit vm/persist/ckptsave.c 's.replace("    case K_GLOBAL:             /* queued", '\
'"    case K_BOX:\n        push_value(e, ((const Box *)obj)->v, ROLE_DATA);\n        break;\n"'\
'"    case K_GLOBAL:             /* queued", 1)'
recipe_edit vm/persist/ckptsave.c 's.replace("    case K_GLOBAL: {\n", '\
'"    case K_BOX:\n        vl_ckptfile_put_byte(o, R_BOX);\n"'\
'"        put_value(e, ((const Box *)obj)->v, ROLE_DATA);\n        break;\n"'\
'"    case K_GLOBAL: {\n", 1)'
# 8. loading
recipe_edit vm/persist/ckptload.c 's.replace('\
'"    case VT_CLOSURE:\n        return vl_obj(VT_CLOSURE, obj_ref(d, R_CLOSURE));\n", '\
'"    case VT_BOX:\n        return vl_obj(VT_BOX, obj_ref(d, R_BOX));\n"'\
'"    case VT_CLOSURE:\n        return vl_obj(VT_CLOSURE, obj_ref(d, R_CLOSURE));\n", 1)'
recipe_edit vm/persist/ckptload.c 's.replace("static void read_dual(Dec *d)\n", '\
'"static void read_box(Dec *d)\n{\n    Box *b = vl_gc_alloc(sizeof *b);\n"'\
'"    b->v = get_value(d, ROLE_DATA, 0);\n"'\
'"    unsigned t = d->local ? 0 : taint(d, b->v);\n"'\
'"    if (t != 0)\n"'\
'"        *vl_keymap_put(&d->tainted, (uint64_t)(uintptr_t)b, NULL) = t;\n"'\
'"    add_obj(d, R_BOX, b);\n}\n\n"'\
'"static void read_dual(Dec *d)\n", 1)'
recipe_edit vm/persist/ckptload.c 's.replace("        case R_PAIR: read_pair(d); continue;\n", '\
'"        case R_PAIR: read_pair(d); continue;\n        case R_BOX: read_box(d); continue;\n", 1)'
recipe_edit vm/persist/ckptload.c 's.replace("\"text\", \"closure\"};", "\"text\", \"closure\", \"box\"};", 1)'
recipe_edit vm/persist/ckptload.c 's.replace("    if (!IS_PAIR(v))\n        return 0;\n", '\
'"    if (!IS_PAIR(v) && !IS_BOX(v))\n        return 0;\n", 1)'
recipe_edit vm/persist/ckptload.c 's.replace("        if (IS_PAIR(v)) {\n            uint64_t *t", '\
'"        if (IS_PAIR(v) || IS_BOX(v)) {\n            uint64_t *t", 1)'
recipe_edit vm/persist/ckptload.c 's.replace('\
'"            st[n++] = AS_PAIR(v)->car;\n            st[n++] = AS_PAIR(v)->cdr;\n", '\
'"            if (IS_BOX(v)) {\n                st[n++] = AS_BOX(v)->v;\n                continue;\n            }\n"'\
'"            st[n++] = AS_PAIR(v)->car;\n            st[n++] = AS_PAIR(v)->cdr;\n", 1)'
recipe_edit doc/internals.md 's.replace("| `R_END` | the root value |\n", '\
'"| `R_BOX` | its value |\n| `R_END` | the root value |\n", 1)'
# 9. the API's boundary
recipe_edit vm/api/apiconv.h 's.replace("    case VT_SYM:\n    case VT_STR:\n        return v.as.ptr != NULL;", '\
'"    case VT_SYM:\n    case VT_STR:\n    case VT_BOX:\n        return v.as.ptr != NULL;", 1)'
# 10. the forged files
recipe_edit tests/api/forge.h 's.replace("VT_STR, VT_VOID };", "VT_STR, VT_VOID, VT_BOX };", 1)'
recipe_edit tests/api/forge.h 's.replace("R_TEXT, R_LCLOSURE };", "R_TEXT, R_LCLOSURE, R_BOX };", 1)'
recipe_edit tests/api/test-api-forged.c 's.replace("    for (int c = 0; c < 8; c++) {\n", '\
'"    for (int c = 0; c < 9; c++) {\n", 1)'
recipe_edit tests/api/test-api-forged.c 's.replace('\
'"        default: {                              /* the attack\x27s file */\n", '\
'"        case 7:                                 /* in a box */\n"'\
'"            b_byte(&b, R_BOX); b_byte(&b, VT_PRIM); b_byte(&b, 0);\n"'\
'"            b_str(&b, \"%cpj-split\");\n"'\
'"            b_byte(&b, R_GLOBAL); b_str(&b, \"p\"); b_byte(&b, VT_BOX);\n"'\
'"            b_u(&b, 2);\n"'\
'"            break;\n"'\
'"        default: {                              /* the attack\x27s file */\n", 1)'
recipe_edit tests/api/test-api-forged.c 's.replace("\nint main(void)\n", '\
'"\n/* A box where a pair is expected is refused, naming both. */\n"'\
'"static void box_for_pair(void)\n{\n"'\
'"    VladState *S = fresh_out();\n    Buf b = {0};\n    plant(&b);\n"'\
'"    b_byte(&b, R_BOX); b_byte(&b, VT_NIL);\n"'\
'"    b_byte(&b, R_GLOBAL); b_str(&b, \"p\"); b_byte(&b, VT_PAIR); b_u(&b, 2);\n"'\
'"    b_byte(&b, R_END); b_byte(&b, VT_NIL);\n"'\
'"    VladValue u;\n"'\
'"    CHECK_STATUS(S, load_forged(S, &b, &u), VLAD_ERR_IO);\n"'\
'"    CHECK_CONTAINS(vlad_last_error(S)->message,\n"'\
'"                   \"object 2 is a box where a pair is expected\");\n"'\
'"    unchanged(S, \"a box for a pair\");\n    vlad_close(S);\n}\n"'\
'"\nint main(void)\n", 1)'
recipe_edit tests/api/test-api-forged.c 's.replace("    internal_values();\n", '\
'"    internal_values();\n    box_for_pair();\n", 1)'
# 11. golden tests
cat >"$tree/tests/lang/recipe-box.vlad" <<'EOF'
;; a throw-away type of tests/doc/recipe-type.sh: printing, the predicate
(box 1)
(box (list 1 (box "two") 'three))
(list (box? (box 1)) (box? 1) (box? (list 1)) (box? '()))
(unbox (unbox (box (box 7))))
(let ((b (box (cons 1 2)))) (cdr (unbox b)))
EOF
cat >"$tree/tests/lang/recipe-box.out" <<'EOF'
#<box 1>
#<box (1 #<box "two"> three)>
(#t #f #f #f)
7
2
EOF
cat >"$tree/tests/ad/recipe-box.vlad" <<'EOF'
;; a throw-away type of tests/doc/recipe-type.sh: derivatives through boxes
(define (spin n b) (if (zero? n) b (spin (- n 1) (box (* 2 (unbox b))))))
(define (g x) (unbox (spin 5 (box (* x x)))))
(j* g 3 1)
(*j g 3 1)
(checkpoint-*j g 3 1)
(*j (lambda (b) (spin 3 b)) (box 3) (box 1))
(checkpoint-*j (lambda (b) (spin 3 b)) (box 3) (box 1))
EOF
cat >"$tree/tests/ad/recipe-box.out" <<'EOF'
(288 192)
(288 192)
(288 192)
(#<box 24> #<box 8>)
(#<box 24> #<box 8>)
EOF
echo '--checkpoint=bisection,base=1' >"$tree/tests/ad/recipe-box.args"
recipe_edit tests/local.mk 's.replace("VLAD_GOLDEN_TESTS = \\\n", '\
'"VLAD_GOLDEN_TESTS = \\\n\t%reldir%/lang/recipe-box.vlad \\\n"'\
'"\t%reldir%/ad/recipe-box.vlad \\\n", 1)'

recipe_make vlad tests/persist/persist-helper tests/api/test-api-forged \
    cli/doctable.c
vlad=$tree/vlad

# what vlad prints for EXPR (standard output and error), with OPTIONS
run() {     # EXPR WANT [OPTION...]: the output is WANT
    expr=$1
    want=$2
    shift 2
    got=$("$vlad" "$@" -e "$expr" 2>&1)
    if test "$got" = "$want"; then
        ok
    else
        bad "$expr gave '$got', want '$want'"
    fi
}
has() {     # EXPR TEXT: the output contains TEXT
    got=$("$vlad" -e "$1" 2>&1)
    case $got in
    *"$2"*) ok ;;
    *) bad "$1 gave '$got', want it to say '$2'" ;;
    esac
}

# printing, the primitives
run "(box (list 1 (box 2) \"s\"))" '#<box (1 #<box 2> "s")>'
run "(list (box? (box 1)) (box? 1) (box? (list 1)))" '(#t #f #f)'
run "(unbox (box 7))" 7
has "(unbox 1)" "unbox: expected a box, got 1"
# the kind name (a cotangent of the wrong shape)
has "(*j (lambda (x) (box x)) 3 1)" "expected box where"
# derivatives through a box
sq='(lambda (x) (unbox (box (* x x))))'
run "(j* $sq 3 1)" '(9 6)'
run "(*j $sq 3 1)" '(9 6)'
run "(checkpoint-*j $sq 3 1)" '(9 6)'
spin='(define (spin n b) (if (zero? n) b (spin (- n 1) (box (* 2 (unbox b))))))'
g='(lambda (x) (unbox (spin 5 (box (* x x)))))'
run "$spin (j* $g 3 1)" '(288 192)'
run "$spin (*j $g 3 1)" '(288 192)'
run "$spin (checkpoint-*j $g 3 1)" '(288 192)' --checkpoint=bisection,base=1
run "$spin (checkpoint-*j $g 3 1)" '(288 192)' --checkpoint=binomial,slots=2
# ... and with respect to a box, and to a box of it
h='(lambda (b) (* (unbox b) (unbox b)))'
run "(j* (lambda (b) (box ($h b))) (box 3) (box 1))" '(#<box 9> #<box 6>)'
run "(*j $h (box 3) 1)" '(9 #<box 6>)'
run "$spin (checkpoint-*j (lambda (b) (unbox (spin 3 b))) (box 3) 1)" \
    '(24 #<box 8>)' --checkpoint=bisection,base=1

# a checkpoint holding boxes: saved at every step, loaded in a fresh state
cat >"$tmp/prog.vlad" <<'EOF'
(define (spin n b) (if (zero? n) b (spin (- n 1) (box (* 2 (unbox b))))))
(define (whole x)
  (let ((b (spin 4 (box x))))
    (box (list (unbox b) (box? b) (box (unbox (spin 2 (box x))))))))
(define point 3)
EOF
mkdir "$tmp/ckpt"
if "$tree/tests/persist/persist-helper" save "$tmp/ckpt" "$tmp/prog.vlad" 100 \
        >"$tmp/save.log" 2>&1; then
    ok
else
    cat "$tmp/save.log"
    bad "persist-helper save"
fi
saved=0
for f in "$tmp"/ckpt/*.ckpt; do
    test -f "$f" || continue
    k=$(basename "$f" .ckpt)
    want=$(sed -n "/^#INPROC $k\$/,/^#INPROC-RESULT/s/^#INPROC-RESULT //p" \
        "$tmp/save.log")
    got=$("$tree/tests/persist/persist-helper" load "$f" 2>&1 \
        | sed -n 's/^#RESULT //p')
    if test -n "$want" && test "$got" = "$want"; then
        saved=$((saved + 1))
    else
        bad "checkpoint $k: loaded and resumed gave '$got', want '$want'"
    fi
done
if test "$saved" -ge 10; then ok; else bad "only $saved checkpoints resumed"; fi
# (vlad --resume prints the value: a box handed out by the API)
got=$("$vlad" --resume "$tmp/ckpt/1.ckpt" 2>&1)
if test "$got" = '#<box (48 #t #<box 12>)>'; then
    ok
else
    bad "vlad --resume of a box gave '$got'"
fi

# ,describe's text
if grep -A2 '{"unbox",' "$tree/cli/doctable.c" | grep -q 'the value a box holds'
then
    ok
else
    bad ",describe unbox has not the text of doc/reference.md"
fi

# the copy's own tests: forged files (step 10), the golden tests (step 11)
if (cd "$tree" && tests/api/test-api-forged) >"$tmp/forged.log" 2>&1; then
    ok
else
    grep -i "fail" "$tmp/forged.log" | head -20
    bad "tests/api/test-api-forged in the scratch tree"
fi
recipe_golden tests/lang/recipe-box.vlad tests/ad/recipe-box.vlad
recipe_finish
