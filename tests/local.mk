## tests/local.mk -- "make check" (style.md 2.10), Automake's parallel harness
##
## To add a golden test: create NAME.vlad and NAME.out (plus NAME.err,
## NAME.status, NAME.args, NAME.in as needed, see tests/run-golden) and add
## NAME.vlad to VLAD_GOLDEN_TESTS (tests/...) or VLAD_EXAMPLE_TESTS
## (examples/...).  The sidecar files are distributed automatically.
## A .vlad file under tests/ that is not a test (say, a file another test
## includes) goes into VLAD_TEST_FILES.  tests/check-listed fails when a
## .vlad file is in none of these lists.
##
## To add a C unit test: create tests/unit/test-NAME.c and add
## %reldir%/unit/test-NAME to VLAD_UNIT_TESTS.  It links libvlad-core.la
## and must print "N passed, N failed" and exit 0 or 1.

VLAD_GOLDEN_TESTS = \
	%reldir%/ad/chain.vlad \
	%reldir%/ad/checkpoint.vlad \
	%reldir%/ad/checkpoint-inside-starj.vlad \
	%reldir%/ad/checkpoint-inside-starj-cpj.vlad \
	%reldir%/ad/checkpoint-inside-cpj.vlad \
	%reldir%/ad/checkpoint-inside-cpj-cpj.vlad \
	%reldir%/ad/closures.vlad \
	%reldir%/ad/confusion.vlad \
	%reldir%/ad/cpj-rounding.vlad \
	%reldir%/ad/cpj-rounding-bisection1.vlad \
	%reldir%/ad/cpj-rounding-bisection4.vlad \
	%reldir%/ad/cpj-rounding-budget8k.vlad \
	%reldir%/ad/cpj-rounding-slots2.vlad \
	%reldir%/ad/cpj-rounding-slots3.vlad \
	%reldir%/ad/error-arity-fwd.vlad \
	%reldir%/ad/error-arity-rev.vlad \
	%reldir%/ad/error-cotangent-boolean.vlad \
	%reldir%/ad/error-cotangent-length.vlad \
	%reldir%/ad/error-cotangent-list-for-pair.vlad \
	%reldir%/ad/error-cotangent-shared.vlad \
	%reldir%/ad/error-cotangent-suspended-tape.vlad \
	%reldir%/ad/error-cotangent-suspended-tape-index.vlad \
	%reldir%/ad/error-inside-nested.vlad \
	%reldir%/ad/error-non-real.vlad \
	%reldir%/ad/error-not-procedure-fwd.vlad \
	%reldir%/ad/error-not-procedure-rev.vlad \
	%reldir%/ad/error-tangent-boolean.vlad \
	%reldir%/ad/error-tangent-closure-code.vlad \
	%reldir%/ad/error-tangent-length.vlad \
	%reldir%/ad/error-tangent-real-for-pair.vlad \
	%reldir%/ad/error-tangent-shared.vlad \
	%reldir%/ad/error-tangent-suspended-tape.vlad \
	%reldir%/ad/gradient-several.vlad \
	%reldir%/ad/helpers-derivative.vlad \
	%reldir%/ad/helpers-error-arity.vlad \
	%reldir%/ad/helpers-error-derivative-not-real.vlad \
	%reldir%/ad/helpers-error-directional-shape.vlad \
	%reldir%/ad/helpers-error-gradient-forward-not-real.vlad \
	%reldir%/ad/helpers-error-gradient-not-real.vlad \
	%reldir%/ad/helpers-error-hessian-not-real.vlad \
	%reldir%/ad/helpers-error-jacobian-procedure.vlad \
	%reldir%/ad/helpers-error-not-procedure.vlad \
	%reldir%/ad/helpers-gradient.vlad \
	%reldir%/ad/helpers-hessian.vlad \
	%reldir%/ad/helpers-jacobian.vlad \
	%reldir%/ad/helpers-nesting.vlad \
	%reldir%/ad/helpers-shadow.vlad \
	%reldir%/ad/hessian.vlad \
	%reldir%/ad/numeric-basics.vlad \
	%reldir%/ad/random-grad-1.vlad \
	%reldir%/ad/random-grad-2.vlad \
	%reldir%/ad/random-grad-3.vlad \
	%reldir%/ad/random-grad-4.vlad \
	%reldir%/ad/math1.vlad \
	%reldir%/ad/math2.vlad \
	%reldir%/ad/math-tails.vlad \
	%reldir%/ad/math-tails-cases.vlad \
	%reldir%/ad/escape-free.vlad \
	%reldir%/ad/sweep-far-parents.vlad \
	%reldir%/ad/modulo-partials.vlad \
	%reldir%/ad/primal-only.vlad \
	%reldir%/ad/primal-only-rebound.vlad \
	%reldir%/ad/primal-only-random-1.vlad \
	%reldir%/ad/primal-only-random-2.vlad \
	%reldir%/ad/random-jac-1.vlad \
	%reldir%/ad/random-jac-2.vlad \
	%reldir%/ad/random-ckpt-1.vlad \
	%reldir%/ad/random-ckpt-2.vlad \
	%reldir%/ad/random-ckpt-3.vlad \
	%reldir%/ad/random-ckpt-4.vlad \
	%reldir%/ad/resume-fresh-tags.vlad \
	%reldir%/ad/sharing-model.vlad \
	%reldir%/ad/steps.vlad \
	%reldir%/ad/strong-zero.vlad \
	%reldir%/ad/sweep-plain.vlad \
	%reldir%/ad/sweep-shared-short-chunks.vlad \
	%reldir%/ad/tape-rules.vlad \
	%reldir%/ad/structures.vlad \
	%reldir%/ad/temporaries.vlad \
	%reldir%/ad/temporaries-shadowed.vlad \
	%reldir%/checkpoint/chain-limit.vlad \
	%reldir%/checkpoint/chain-long.vlad \
	%reldir%/checkpoint/chain-random.vlad \
	%reldir%/checkpoint/chain-split.vlad \
	%reldir%/checkpoint/context-eval.vlad \
	%reldir%/checkpoint/context-limit.vlad \
	%reldir%/checkpoint/context-script.vlad \
	%reldir%/checkpoint/context-stdin.vlad \
	%reldir%/checkpoint/corpus-closures.vlad \
	%reldir%/checkpoint/corpus-cpj.vlad \
	%reldir%/checkpoint/reference-binomial-1-20.vlad \
	%reldir%/checkpoint/reference-binomial-10-3.vlad \
	%reldir%/checkpoint/reference-binomial-2-5.vlad \
	%reldir%/checkpoint/reference-binomial-3-1.vlad \
	%reldir%/checkpoint/reference-bisection-1.vlad \
	%reldir%/checkpoint/reference-bisection-7.vlad \
	%reldir%/checkpoint/corpus-deep.vlad \
	%reldir%/checkpoint/corpus-lists.vlad \
	%reldir%/checkpoint/corpus-long-loop.vlad \
	%reldir%/checkpoint/corpus-loops.vlad \
	%reldir%/checkpoint/corpus-nested.vlad \
	%reldir%/checkpoint/corpus-recursion.vlad \
	%reldir%/checkpoint/corpus-tuples.vlad \
	%reldir%/checkpoint/effects.vlad \
	%reldir%/checkpoint/firstclass.vlad \
	%reldir%/checkpoint/sizes.vlad \
	%reldir%/cli/checkpoint-case.vlad \
	%reldir%/cli/disassemble.vlad \
	%reldir%/cli/disassemble-bad-form.vlad \
	%reldir%/cli/disassemble-missing-file.vlad \
	%reldir%/cli/disassemble-syntax-error.vlad \
	%reldir%/cli/disassemble-usage.vlad \
	%reldir%/cli/e-named-apart.vlad \
	%reldir%/cli/e-number-argument.vlad \
	%reldir%/cli/e-then-file.vlad \
	%reldir%/cli/long-option-prefix.vlad \
	%reldir%/cli/program-extension.vlad \
	%reldir%/cli/shebang.vlad \
	%reldir%/cli/step-limit-exponent.vlad \
	%reldir%/cpj/bad-spec-base-fraction.vlad \
	%reldir%/cpj/bad-spec-base-zero.vlad \
	%reldir%/cpj/bad-spec-budget-bisection.vlad \
	%reldir%/cpj/bad-spec-budget-slots.vlad \
	%reldir%/cpj/bad-spec-budget-suffix.vlad \
	%reldir%/cpj/bad-spec-spill-bisection.vlad \
	%reldir%/cpj/bad-spec-spill-empty.vlad \
	%reldir%/cpj/spill-no-dir.vlad \
	%reldir%/cpj/spill-slots.vlad \
	%reldir%/cpj/budget-capture.vlad \
	%reldir%/cpj/online-capture.vlad \
	%reldir%/cpj/budget-too-small.vlad \
	%reldir%/cpj/bad-spec-option.vlad \
	%reldir%/cpj/bad-spec-slots-word.vlad \
	%reldir%/cpj/bad-spec-slots-zero.vlad \
	%reldir%/cpj/bad-spec-steps.vlad \
	%reldir%/cpj/bad-spec-unknown.vlad \
	%reldir%/cpj/corpus-checkpoint-values.vlad \
	%reldir%/cpj/corpus-closure-in-out.vlad \
	%reldir%/cpj/corpus-closures.vlad \
	%reldir%/cpj/corpus-conditionals.vlad \
	%reldir%/cpj/corpus-deep-list.vlad \
	%reldir%/cpj/corpus-deep-recursion.vlad \
	%reldir%/cpj/corpus-activity.vlad \
	%reldir%/cpj/corpus-display.vlad \
	%reldir%/cpj/corpus-forward-inside.vlad \
	%reldir%/cpj/corpus-hand-hof.vlad \
	%reldir%/cpj/corpus-helpers-inside.vlad \
	%reldir%/cpj/corpus-interface-inside.vlad \
	%reldir%/cpj/corpus-lists.vlad \
	%reldir%/cpj/corpus-matrix.vlad \
	%reldir%/cpj/corpus-mlp.vlad \
	%reldir%/cpj/corpus-mutual.vlad \
	%reldir%/cpj/corpus-nested-three.vlad \
	%reldir%/cpj/corpus-nested-two.vlad \
	%reldir%/cpj/corpus-newton.vlad \
	%reldir%/cpj/corpus-ode.vlad \
	%reldir%/cpj/corpus-patterns.vlad \
	%reldir%/cpj/corpus-prelude-hof.vlad \
	%reldir%/cpj/corpus-primitives.vlad \
	%reldir%/cpj/corpus-read-real.vlad \
	%reldir%/cpj/corpus-redefine.vlad \
	%reldir%/cpj/corpus-reverse-inside.vlad \
	%reldir%/cpj/corpus-special-values.vlad \
	%reldir%/cpj/corpus-structured-output.vlad \
	%reldir%/cpj/corpus-tail-pair.vlad \
	%reldir%/cpj/corpus-tail-sin.vlad \
	%reldir%/cpj/corpus-tail-vector.vlad \
	%reldir%/cpj/corpus-tiny.vlad \
	%reldir%/cpj/corpus-tree-recursion.vlad \
	%reldir%/cpj/corpus-write-real.vlad \
	%reldir%/cpj/corpus-write.vlad \
	%reldir%/cpj/count-200.vlad \
	%reldir%/cpj/count-closures.vlad \
	%reldir%/cpj/count-deep.vlad \
	%reldir%/cpj/count-effects.vlad \
	%reldir%/cpj/count-forward.vlad \
	%reldir%/cpj/count-grow.vlad \
	%reldir%/cpj/count-interface.vlad \
	%reldir%/cpj/count-list.vlad \
	%reldir%/cpj/count-long.vlad \
	%reldir%/cpj/count-loop.vlad \
	%reldir%/cpj/count-one.vlad \
	%reldir%/cpj/count-tiny.vlad \
	%reldir%/cpj/count-vector.vlad \
	%reldir%/cpj/count-online.vlad \
	%reldir%/cpj/count-online-effects.vlad \
	%reldir%/cpj/redefine-other-code.vlad \
	%reldir%/cpj/slots-one.vlad \
	%reldir%/cpj/steps-bisection.vlad \
	%reldir%/cpj/steps-budget.vlad \
	%reldir%/cpj/steps-default.vlad \
	%reldir%/cpj/steps-slots.vlad \
	%reldir%/cpj/steps-spill.vlad \
	%reldir%/errors/apply-boolean.vlad \
	%reldir%/errors/apply-list.vlad \
	%reldir%/errors/arith-list-operand.vlad \
	%reldir%/errors/arith-two-non-reals.vlad \
	%reldir%/errors/chain-backtrace.vlad \
	%reldir%/errors/compare-constant-first-list.vlad \
	%reldir%/errors/compare-list-operand.vlad \
	%reldir%/errors/compare-variadic-first-non-real.vlad \
	%reldir%/errors/compare-variadic-non-real.vlad \
	%reldir%/errors/apply-number.vlad \
	%reldir%/errors/apply-result.vlad \
	%reldir%/errors/arity-parameter-list.vlad \
	%reldir%/errors/arity-pattern-cons.vlad \
	%reldir%/errors/backtrace-long.vlad \
	%reldir%/errors/cpj-arity.vlad \
	%reldir%/errors/derivative-not-real.vlad \
	%reldir%/errors/error-after-output.vlad \
	%reldir%/errors/form-bad-pattern.vlad \
	%reldir%/errors/form-body-only-definitions.vlad \
	%reldir%/errors/form-cond-else-not-last.vlad \
	%reldir%/errors/form-cond-long-clause.vlad \
	%reldir%/errors/form-cond-no-else.vlad \
	%reldir%/errors/form-cons-three.vlad \
	%reldir%/errors/form-define-dotted-params.vlad \
	%reldir%/errors/form-define-in-expression.vlad \
	%reldir%/errors/form-define-keyword-proc.vlad \
	%reldir%/errors/form-define-keyword.vlad \
	%reldir%/errors/form-define-missing-expr.vlad \
	%reldir%/errors/form-define-two-exprs.vlad \
	%reldir%/errors/form-defined-twice.vlad \
	%reldir%/errors/form-definition-after-expression.vlad \
	%reldir%/errors/form-else-outside-cond.vlad \
	%reldir%/errors/form-if-four-subforms.vlad \
	%reldir%/errors/form-if-two-subforms.vlad \
	%reldir%/errors/form-include-not-string.vlad \
	%reldir%/errors/form-keyword-as-value.vlad \
	%reldir%/errors/form-lambda-dotted-params.vlad \
	%reldir%/errors/form-lambda-no-body.vlad \
	%reldir%/errors/form-lambda-rest-param.vlad \
	%reldir%/errors/form-lambda-two-exprs.vlad \
	%reldir%/errors/form-let-bad-binding.vlad \
	%reldir%/errors/form-let-binding-three.vlad \
	%reldir%/errors/form-let-bound-twice.vlad \
	%reldir%/errors/form-let-not-list.vlad \
	%reldir%/errors/form-letrec-non-lambda.vlad \
	%reldir%/errors/form-letrec-pattern.vlad \
	%reldir%/errors/form-named-let-bad.vlad \
	%reldir%/errors/form-pattern-bare-empty.vlad \
	%reldir%/errors/form-pattern-bound-twice.vlad \
	%reldir%/errors/form-quote-two.vlad \
	%reldir%/errors/form-used-before-definition.vlad \
	%reldir%/errors/gradient-list-for-tuple.vlad \
	%reldir%/errors/gradient-not-procedure.vlad \
	%reldir%/errors/include-cycle.vlad \
	%reldir%/errors/include-error-inside.vlad \
	%reldir%/errors/include-syntax-error.vlad \
	%reldir%/errors/length-not-list.vlad \
	%reldir%/errors/newline-argument.vlad \
	%reldir%/errors/pattern-car-empty.vlad \
	%reldir%/errors/pattern-cons-parameter.vlad \
	%reldir%/errors/pattern-constant.vlad \
	%reldir%/errors/pattern-let.vlad \
	%reldir%/errors/pattern-nested.vlad \
	%reldir%/errors/pattern-nullary.vlad \
	%reldir%/errors/pattern-parameter.vlad \
	%reldir%/errors/pattern-quoted-constant.vlad \
	%reldir%/errors/prim-add-boolean.vlad \
	%reldir%/errors/prim-car-number.vlad \
	%reldir%/errors/prim-expt-procedure.vlad \
	%reldir%/errors/prim-less-list.vlad \
	%reldir%/errors/prim-real-boolean.vlad \
	%reldir%/errors/prim-sqrt-empty.vlad \
	%reldir%/errors/prim-write-real-list.vlad \
	%reldir%/errors/prim-zero-boolean.vlad \
	%reldir%/errors/read-real-eof.vlad \
	%reldir%/errors/read-real-not-number.vlad \
	%reldir%/errors/starj-arity.vlad \
	%reldir%/errors/stdin-runtime-error.vlad \
	%reldir%/errors/step-limit-loop.vlad \
	%reldir%/errors/syntax-bad-token-hash.vlad \
	%reldir%/errors/syntax-bad-token-quasiquote.vlad \
	%reldir%/errors/syntax-begin-empty.vlad \
	%reldir%/errors/syntax-datum-comment-eof.vlad \
	%reldir%/errors/syntax-dot-alone.vlad \
	%reldir%/errors/syntax-dot-misuse.vlad \
	%reldir%/errors/syntax-dot-toplevel.vlad \
	%reldir%/errors/syntax-dotted-expression.vlad \
	%reldir%/errors/syntax-empty-combination.vlad \
	%reldir%/errors/syntax-mismatched-bracket.vlad \
	%reldir%/errors/syntax-quote-eof.vlad \
	%reldir%/errors/syntax-unclosed-paren.vlad \
	%reldir%/errors/syntax-unexpected-close.vlad \
	%reldir%/errors/syntax-unterminated-block-comment.vlad \
	%reldir%/errors/syntax-unterminated-string.vlad \
	%reldir%/errors/unbound-define-order.vlad \
	%reldir%/errors/unbound-in-procedure.vlad \
	%reldir%/errors/unbound-later-defined.vlad \
	%reldir%/errors/unbound-toplevel.vlad \
	%reldir%/lang/arith-expt-atan.vlad \
	%reldir%/lang/arith-modulo-floor.vlad \
	%reldir%/lang/arith-modulo-zero-sign.vlad \
	%reldir%/lang/arith-unary.vlad \
	%reldir%/lang/arith-variadic.vlad \
	%reldir%/lang/booleans-truthiness.vlad \
	%reldir%/lang/checkpoint-basics.vlad \
	%reldir%/lang/checkpoint-effects.vlad \
	%reldir%/lang/checkpoint-first-class.vlad \
	%reldir%/lang/checkpoint-multishot.vlad \
	%reldir%/lang/checkpoint-nested.vlad \
	%reldir%/lang/checkpoint-split.vlad \
	%reldir%/lang/closures-counter.vlad \
	%reldir%/lang/closures-currying.vlad \
	%reldir%/lang/closures-loop-capture.vlad \
	%reldir%/lang/comments.vlad \
	%reldir%/lang/forms-and-or.vlad \
	%reldir%/lang/forms-begin.vlad \
	%reldir%/lang/forms-cons-list.vlad \
	%reldir%/lang/forms-if-cond.vlad \
	%reldir%/lang/forms-lambda.vlad \
	%reldir%/lang/forms-let.vlad \
	%reldir%/lang/forms-letrec.vlad \
	%reldir%/lang/forms-named-let.vlad \
	%reldir%/lang/include-basic.vlad \
	%reldir%/lang/include-nested.vlad \
	%reldir%/lang/include-precedence.vlad \
	%reldir%/lang/include-search-path.vlad \
	%reldir%/lang/internal-defines.vlad \
	%reldir%/lang/io-read-real.vlad \
	%reldir%/lang/io-write.vlad \
	%reldir%/lang/labels-strings.vlad \
	%reldir%/lang/labels-symbols.vlad \
	%reldir%/lang/lists-long.vlad \
	%reldir%/lang/lists-long-forms.vlad \
	%reldir%/lang/names-identifiers.vlad \
	%reldir%/lang/names-keyword-shadowing.vlad \
	%reldir%/lang/numbers-exponents.vlad \
	%reldir%/lang/numbers-fractions.vlad \
	%reldir%/lang/numbers-integral.vlad \
	%reldir%/lang/numbers-read-special.vlad \
	%reldir%/lang/numbers-roundtrip.vlad \
	%reldir%/lang/numbers-special.vlad \
	%reldir%/lang/options-arguments.vlad \
	%reldir%/lang/options-eval.vlad \
	%reldir%/lang/options-no-arguments.vlad \
	%reldir%/lang/options-stdin.vlad \
	%reldir%/lang/options-step-limit.vlad \
	%reldir%/lang/output-display.vlad \
	%reldir%/lang/patterns-basic.vlad \
	%reldir%/lang/patterns-constants.vlad \
	%reldir%/lang/patterns-let.vlad \
	%reldir%/lang/printing-lists.vlad \
	%reldir%/lang/printing-procedures.vlad \
	%reldir%/lang/programs-newton.vlad \
	%reldir%/lang/programs-primes.vlad \
	%reldir%/lang/programs-queens.vlad \
	%reldir%/lang/programs-quicksort.vlad \
	%reldir%/lang/quote-data.vlad \
	%reldir%/lang/recursion-deep.vlad \
	%reldir%/lang/script-shebang.vlad \
	%reldir%/lang/tail-calls-loop.vlad \
	%reldir%/lang/tail-calls-mutual.vlad \
	%reldir%/lang/toplevel-definitions.vlad \
	%reldir%/lang/toplevel-late-binding.vlad \
	%reldir%/lang/toplevel-redefine-prims.vlad \
	%reldir%/lang/toplevel-redefine-arith-constant.vlad \
	%reldir%/lang/toplevel-redefine-compare-constant.vlad \
	%reldir%/lang/toplevel-shadow-prelude.vlad \
	%reldir%/lang/tuples-convention.vlad \
	%reldir%/lang/tuples-mixed-arity.vlad \
	%reldir%/stdlib/interface.vlad \
	%reldir%/stdlib/abs-zero.vlad \
	%reldir%/stdlib/ad.vlad \
	%reldir%/stdlib/append.vlad \
	%reldir%/stdlib/err-abs-boolean.vlad \
	%reldir%/stdlib/err-append-improper.vlad \
	%reldir%/stdlib/err-caddr-short.vlad \
	%reldir%/stdlib/err-cadr-short.vlad \
	%reldir%/stdlib/err-car-empty.vlad \
	%reldir%/stdlib/err-cdr-real.vlad \
	%reldir%/stdlib/err-conformance-cadr.vlad \
	%reldir%/stdlib/err-dot-length.vlad \
	%reldir%/stdlib/err-even-fraction.vlad \
	%reldir%/stdlib/err-filter-not-procedure.vlad \
	%reldir%/stdlib/err-fold-left-bad-f.vlad \
	%reldir%/stdlib/err-iota-not-real.vlad \
	%reldir%/stdlib/err-k*v-not-list.vlad \
	%reldir%/stdlib/err-length-improper.vlad \
	%reldir%/stdlib/err-length-real.vlad \
	%reldir%/stdlib/err-list-ref-negative.vlad \
	%reldir%/stdlib/err-list-ref-range.vlad \
	%reldir%/stdlib/err-magnitude-booleans.vlad \
	%reldir%/stdlib/err-map-error-in-f.vlad \
	%reldir%/stdlib/err-map-improper.vlad \
	%reldir%/stdlib/err-map-not-procedure.vlad \
	%reldir%/stdlib/err-map2-first-shorter.vlad \
	%reldir%/stdlib/err-map2-second-shorter.vlad \
	%reldir%/stdlib/err-max-empty.vlad \
	%reldir%/stdlib/err-max-non-real.vlad \
	%reldir%/stdlib/err-reduce-improper.vlad \
	%reldir%/stdlib/err-reverse-real.vlad \
	%reldir%/stdlib/err-round-boolean.vlad \
	%reldir%/stdlib/err-second-empty.vlad \
	%reldir%/stdlib/err-sqr-pair.vlad \
	%reldir%/stdlib/err-v+-length.vlad \
	%reldir%/stdlib/err-v-shape.vlad \
	%reldir%/stdlib/filter.vlad \
	%reldir%/stdlib/fold-left.vlad \
	%reldir%/stdlib/iota.vlad \
	%reldir%/stdlib/length.vlad \
	%reldir%/stdlib/list-ref.vlad \
	%reldir%/stdlib/map.vlad \
	%reldir%/stdlib/map2.vlad \
	%reldir%/stdlib/max-min.vlad \
	%reldir%/stdlib/names.vlad \
	%reldir%/stdlib/numeric.vlad \
	%reldir%/stdlib/pairs.vlad \
	%reldir%/stdlib/reduce.vlad \
	%reldir%/stdlib/reverse.vlad \
	%reldir%/stdlib/rounding.vlad \
	%reldir%/stdlib/shadow-global.vlad \
	%reldir%/stdlib/shadow-local.vlad \
	%reldir%/stdlib/vectors-tuples.vlad \
	%reldir%/stdlib/vectors.vlad

VLAD_EXAMPLE_TESTS = \
	examples/checkpoints.vlad \
	examples/closures.vlad \
	examples/demo.vlad \
	examples/gradient-descent.vlad \
	examples/hessian.vlad \
	examples/lists.vlad \
	examples/mpi/heat.vlad \
	examples/mpi/ring.vlad \
	examples/nested.vlad \
	examples/newton.vlad \
	examples/pendulum.vlad

VLAD_TEST_FILES = \
	%reldir%/checkpoint/reference-programs.vlad \
	%reldir%/ad/ad-lib.vlad \
	%reldir%/ad/cpj-rounding-lib.vlad \
	%reldir%/ad/math-tails-ref.vlad \
	%reldir%/checkpoint/context-programs.vlad \
	%reldir%/checkpoint/harness.vlad \
	%reldir%/cpj/check.vlad \
	%reldir%/cpj/steps-lib.vlad \
	%reldir%/errors/inc/cycle-a.vlad \
	%reldir%/errors/inc/cycle-b.vlad \
	%reldir%/errors/inc/runtime-error.vlad \
	%reldir%/errors/inc/syntax-error.vlad \
	%reldir%/lang/inc/alt/pick.vlad \
	%reldir%/lang/inc/defs.vlad \
	%reldir%/lang/inc/nested.vlad \
	%reldir%/lang/inc/pick.vlad \
	%reldir%/lang/inc/prec-main.vlad \
	%reldir%/lang/inc/search-path.vlad \
	%reldir%/lang/inc/sibling.vlad \
	%reldir%/mpi/lines.vlad \
	$(VLAD_MPI_CASES)

## Parallel programs (tests/mpi/runner.py): run as 1 rank always
## (serial.sh), as 2 and 4 ranks under mpiexec when vlad is built with MPI
## (ranks.sh).  Each NAME.vlad prints NAME.out for every number of ranks.
## heat.sh (heat-check.py): examples/mpi/heat.vlad's gradients agree on
## 1, 2 and 4 ranks and with j*.
VLAD_MPI_CASES = \
	%reldir%/mpi/collectives.vlad \
	%reldir%/mpi/deep.vlad \
	%reldir%/mpi/derivs.vlad \
	%reldir%/mpi/fig3.vlad \
	%reldir%/mpi/pairs.vlad \
	%reldir%/mpi/resume.vlad \
	%reldir%/mpi/ring.vlad \
	%reldir%/mpi/sendfirst.vlad
EXTRA_DIST += $(VLAD_MPI_CASES:.vlad=.out) \
	%reldir%/mpi/runner.py \
	%reldir%/mpi/serial.sh \
	%reldir%/mpi/ranks.sh \
	%reldir%/mpi/spmd.py \
	%reldir%/mpi/spmdgen.py \
	%reldir%/mpi/run-spmd.sh \
	%reldir%/mpi/heat-check.py \
	%reldir%/mpi/heat.sh
TESTS += %reldir%/mpi/serial.sh
if VL_MPI
TESTS += %reldir%/mpi/ranks.sh
## The SPMD differential tester (issue 33 item 3): random programs whose
## values go through other ranks, against the serial program doing the
## same arithmetic, on 1, 2 and 4 ranks.
TESTS += %reldir%/mpi/run-spmd.sh
## examples/mpi/heat.vlad on 1, 2 and 4 ranks: the same global problem,
## the same objective and gradients (issue 33 item 4).
TESTS += %reldir%/mpi/heat.sh
endif

VLAD_UNIT_TESTS = \
	%reldir%/unit/test-reader \
	%reldir%/unit/test-read-limits \
	%reldir%/unit/test-expand \
	%reldir%/unit/test-cpj \
	%reldir%/unit/test-vm \
	%reldir%/unit/test-heap-limit \
	%reldir%/unit/test-gc-managed \
	%reldir%/unit/test-math1 \
	%reldir%/unit/test-math2 \
	%reldir%/unit/test-same-code \
	%reldir%/unit/test-cpj-interface \
	%reldir%/unit/test-spill \
	%reldir%/unit/test-cli-signals \
	%reldir%/unit/test-ckpt-load

## Files the unit tests include (e.g. a tests/unit/check.h harness):
## distributed, never compiled on their own.
VLAD_UNIT_SUPPORT = %reldir%/unit/check.h %reldir%/unit/state.h \
	%reldir%/unit/math-ref.h %reldir%/unit/ulps.h

## The conformance suite, vendored (tests/conformance/README.md): the
## runner and its programs.  The .vlad files are run by conformance.sh, not
## as golden tests, so they are listed here for check-listed and the tarball.
VLAD_CONFORMANCE_TESTS = \
	%reldir%/conformance/tests/01-basics.vlad \
	%reldir%/conformance/tests/02-data.vlad \
	%reldir%/conformance/tests/03-forward.vlad \
	%reldir%/conformance/tests/04-reverse.vlad \
	%reldir%/conformance/tests/05-nesting.vlad \
	%reldir%/conformance/tests/06-interface.vlad \
	%reldir%/conformance/tests/07-checkpoint-rev.vlad \
	%reldir%/conformance/tests/08-effects.vlad \
	%reldir%/conformance/tests/09-read-replay.vlad \
	%reldir%/conformance/tests/10-error-unbound.vlad \
	%reldir%/conformance/tests/11-error-pattern.vlad \
	%reldir%/conformance/tests/12-error-syntax.vlad
VLAD_CONFORMANCE_FILES = \
	%reldir%/conformance/README.md \
	%reldir%/conformance/run \
	%reldir%/conformance/tests/01-basics.out \
	%reldir%/conformance/tests/02-data.out \
	%reldir%/conformance/tests/03-forward.out \
	%reldir%/conformance/tests/04-reverse.out \
	%reldir%/conformance/tests/05-nesting.out \
	%reldir%/conformance/tests/06-interface.out \
	%reldir%/conformance/tests/07-checkpoint-rev.out \
	%reldir%/conformance/tests/08-effects.out \
	%reldir%/conformance/tests/09-read-replay.out \
	%reldir%/conformance/tests/10-error-unbound.err \
	%reldir%/conformance/tests/10-error-unbound.out \
	%reldir%/conformance/tests/11-error-pattern.err \
	%reldir%/conformance/tests/11-error-pattern.out \
	%reldir%/conformance/tests/12-error-syntax.err \
	%reldir%/conformance/tests/12-error-syntax.out

check_PROGRAMS += $(VLAD_UNIT_TESTS)
## Programs without their own _LDADD (the unit tests) link the core.
LDADD = libvlad-core.la $(GC_LIBS) $(MPI_LINK) -lm
## The one unit test of the vlad program's own code: its SIGINT
## bookkeeping, with cli/signals.c and the whole library.
%canon_reldir%_unit_test_cli_signals_SOURCES = \
	%reldir%/unit/test-cli-signals.c cli/signals.c cli/signals.h
%canon_reldir%_unit_test_cli_signals_LDADD = libvlad.la -lm

TESTS += \
	$(VLAD_GOLDEN_TESTS) \
	$(VLAD_EXAMPLE_TESTS) \
	$(VLAD_UNIT_TESTS) \
	%reldir%/check-listed \
	%reldir%/conformance.sh \
	%reldir%/cpj/run-corpus.sh \
	%reldir%/cpj/run-spill.sh \
	%reldir%/ad/tape-nodes.sh

TEST_EXTENSIONS = .vlad .sh
VLAD_LOG_COMPILER = $(SHELL) $(srcdir)/%reldir%/run-golden
SH_LOG_COMPILER = $(SHELL)

## Every test sees these.  $(srcdir) is exported by Automake itself.
## VLAD_TEST_OUTDIR: where run-golden writes actual outputs (never next to
## the sources).  VLAD_LISTED: what tests/check-listed checks against.
AM_TESTS_ENVIRONMENT = \
	VLAD='$(abs_top_builddir)/vlad$(EXEEXT)'; \
	VLAD_PATH='$(abs_top_srcdir)/stdlib'; \
	VLAD_TEST_OUTDIR='$(abs_top_builddir)/test-output'; \
	VLAD_LISTED='$(VLAD_GOLDEN_TESTS) $(VLAD_EXAMPLE_TESTS) $(VLAD_TEST_FILES) $(VLAD_CONFORMANCE_TESTS)'; \
	export VLAD VLAD_PATH VLAD_TEST_OUTDIR VLAD_LISTED;

## Boehm's heap confuses LeakSanitizer; make UBSan failures fatal.
if VL_SANITIZERS
AM_TESTS_ENVIRONMENT += \
	ASAN_OPTIONS="detect_leaks=0$${ASAN_OPTIONS:+:$$ASAN_OPTIONS}"; \
	UBSAN_OPTIONS="print_stacktrace=1:halt_on_error=1$${UBSAN_OPTIONS:+:$$UBSAN_OPTIONS}"; \
	export ASAN_OPTIONS UBSAN_OPTIONS;
endif

EXTRA_DIST += \
	%reldir%/README.md \
	examples/README.md \
	%reldir%/run-golden \
	%reldir%/check-listed \
	%reldir%/conformance.sh \
	%reldir%/cpj/run-corpus.sh \
	%reldir%/cpj/runner.py \
	%reldir%/cpj/run-spill.sh \
	%reldir%/cpj/spill.py \
	%reldir%/ad/gen-random.py \
	%reldir%/ad/gen-primal-only.py \
	%reldir%/ad/gen-fresh-tags.py \
	%reldir%/unit/gen-math-ref.py \
	%reldir%/ad/tape-nodes.sh \
	$(VLAD_UNIT_SUPPORT) \
	$(VLAD_CONFORMANCE_TESTS) \
	$(VLAD_CONFORMANCE_FILES) \
	$(VLAD_GOLDEN_TESTS) \
	$(VLAD_EXAMPLE_TESTS) \
	$(VLAD_TEST_FILES)

## The sidecar files of each golden test (NAME.out, .err, .status, .args,
## .in) go into the tarball without being listed one by one.
dist-hook-tests:
	@for t in $(VLAD_GOLDEN_TESTS) $(VLAD_EXAMPLE_TESTS); do \
	  b=`echo "$$t" | sed 's/\.vlad$$//'`; \
	  for x in out err status args in; do \
	    if test -f "$(srcdir)/$$b.$$x"; then \
	      cp -p "$(srcdir)/$$b.$$x" "$(distdir)/$$b.$$x" || exit 1; \
	    fi; \
	  done; \
	done

clean-local-tests:
	-rm -rf test-output

## make accept-golden TEST='tests/lang/A.vlad tests/lang/B.vlad': run the tests
## and rewrite NAME.out/.err/.status in the SOURCE tree from what vlad
## printed.  A deliberate act: review the diff like code.
accept-golden: vlad$(EXEEXT)
	@if test -z '$(TEST)'; then \
	  echo 'usage: make accept-golden TEST=tests/DIR/NAME.vlad' >&2; exit 1; \
	fi; \
	$(AM_TESTS_ENVIRONMENT) \
	srcdir='$(srcdir)'; export srcdir; \
	for t in $(TEST); do \
	  if test -f "$$t"; then p=$$t; else p='$(srcdir)'/$$t; fi; \
	  VLAD_GOLDEN_ACCEPT=1 $(SHELL) '$(srcdir)/%reldir%/run-golden' "$$p" \
	    || exit 1; \
	done

.PHONY: accept-golden dist-hook-tests clean-local-tests

## The REPL and the command line (cli/): Python scripts that drive vlad
## through a real pseudo-terminal (tests/repl/vlpty.py; run by
## tests/repl/run-pty, skipped without python3).  To add one: create
## tests/repl/NAME.py (see any of them: a Checks() object, one t.check per
## case, t.finish()) and list it here.  Each must stay well under 10 s.
VLAD_REPL_TESTS = \
	%reldir%/repl/commands.py \
	%reldir%/repl/complete.py \
	%reldir%/repl/editing.py \
	%reldir%/repl/familiar.py \
	%reldir%/repl/history.py \
	%reldir%/repl/interrupt.py \
	%reldir%/repl/output.py \
	%reldir%/repl/language.py \
	%reldir%/repl/long.py \
	%reldir%/repl/options.py \
	%reldir%/repl/persist.py

TESTS += $(VLAD_REPL_TESTS)
TEST_EXTENSIONS += .py
PY_LOG_COMPILER = $(SHELL) $(srcdir)/%reldir%/repl/run-pty
EXTRA_DIST += \
	%reldir%/repl/inputrc \
	%reldir%/repl/run-pty \
	%reldir%/repl/vlpty.py \
	%reldir%/repl/workload.py \
	%reldir%/repl/stress.sh \
	$(VLAD_REPL_TESTS)

## Waits in the REPL tests are longer under the sanitizers (only a failing
## test ever waits that long).
if VL_SANITIZERS
AM_TESTS_ENVIRONMENT += VLAD_TEST_TIME_SCALE=4; export VLAD_TEST_TIME_SCALE;
endif

## ---- The embedding API (issue 6): tests/api/ and examples/embed/ ----
## C programs that include only <vlad.h> (-I include, none of the internal
## directories) and link the installed library, libvlad.la, as a host
## does.  -no-install: real executables, not libtool wrappers (valgrind
## runs them directly).  Each prints "N passed, N failed" (tests) or
## checks its own output (examples) and exits 0 or 1.
## To add one: tests/api/test-api-NAME.c, listed in VLAD_API_TESTS with
## the four lines below it; an example goes into VLAD_EMBED_EXAMPLES.
VLAD_API_TESTS = \
	%reldir%/api/test-api-state \
	%reldir%/api/test-api-values \
	%reldir%/api/test-api-call \
	%reldir%/api/test-api-host \
	%reldir%/api/test-api-limits \
	%reldir%/api/test-api-heap \
	%reldir%/api/test-api-cycle \
	%reldir%/api/test-api-threads \
	%reldir%/api/test-api-args \
	%reldir%/api/test-api-close \
	%reldir%/api/test-api-boundary \
	%reldir%/api/test-api-lookup \
	%reldir%/api/test-api-backtrace \
	%reldir%/api/test-api-hangs \
	%reldir%/api/test-api-small-stack \
	%reldir%/api/test-api-include \
	%reldir%/api/test-api-io \
	%reldir%/api/test-api-progress \
	%reldir%/api/test-api-cpj-suspend \
	%reldir%/api/test-api-persist \
	%reldir%/api/test-api-savefile \
	%reldir%/api/test-api-forged \
	%reldir%/api/test-api-spill \
	%reldir%/api/test-api-stdin

VLAD_EMBED_EXAMPLES = \
	examples/embed/minimal \
	examples/embed/optimise \
	examples/embed/hostprim \
	examples/embed/timeslice

VLAD_API_INCLUDES = -I$(srcdir)/include
VLAD_API_LINKLIBS = libvlad.la -lm
VLAD_API_LINK = -no-install

%canon_reldir%_api_test_api_state_SOURCES = %reldir%/api/test-api-state.c %reldir%/api/apitest.h
%canon_reldir%_api_test_api_state_CPPFLAGS = $(VLAD_API_INCLUDES)
%canon_reldir%_api_test_api_state_LDADD = $(VLAD_API_LINKLIBS)
%canon_reldir%_api_test_api_state_LDFLAGS = $(VLAD_API_LINK)
%canon_reldir%_api_test_api_values_SOURCES = %reldir%/api/test-api-values.c %reldir%/api/apitest.h
%canon_reldir%_api_test_api_values_CPPFLAGS = $(VLAD_API_INCLUDES)
%canon_reldir%_api_test_api_values_LDADD = $(VLAD_API_LINKLIBS)
%canon_reldir%_api_test_api_values_LDFLAGS = $(VLAD_API_LINK)
%canon_reldir%_api_test_api_call_SOURCES = %reldir%/api/test-api-call.c %reldir%/api/apitest.h
%canon_reldir%_api_test_api_call_CPPFLAGS = $(VLAD_API_INCLUDES)
%canon_reldir%_api_test_api_call_LDADD = $(VLAD_API_LINKLIBS)
%canon_reldir%_api_test_api_call_LDFLAGS = $(VLAD_API_LINK)
%canon_reldir%_api_test_api_host_SOURCES = %reldir%/api/test-api-host.c %reldir%/api/apitest.h
%canon_reldir%_api_test_api_host_CPPFLAGS = $(VLAD_API_INCLUDES)
%canon_reldir%_api_test_api_host_LDADD = $(VLAD_API_LINKLIBS)
%canon_reldir%_api_test_api_host_LDFLAGS = $(VLAD_API_LINK)
%canon_reldir%_api_test_api_limits_SOURCES = %reldir%/api/test-api-limits.c %reldir%/api/apitest.h
%canon_reldir%_api_test_api_limits_CPPFLAGS = $(VLAD_API_INCLUDES)
%canon_reldir%_api_test_api_limits_LDADD = $(VLAD_API_LINKLIBS) -lpthread
%canon_reldir%_api_test_api_limits_LDFLAGS = $(VLAD_API_LINK)
%canon_reldir%_api_test_api_heap_SOURCES = %reldir%/api/test-api-heap.c %reldir%/api/apitest.h
%canon_reldir%_api_test_api_heap_CPPFLAGS = $(VLAD_API_INCLUDES)
%canon_reldir%_api_test_api_heap_LDADD = $(VLAD_API_LINKLIBS)
%canon_reldir%_api_test_api_heap_LDFLAGS = $(VLAD_API_LINK)
%canon_reldir%_api_test_api_cycle_SOURCES = %reldir%/api/test-api-cycle.c %reldir%/api/apitest.h
%canon_reldir%_api_test_api_cycle_CPPFLAGS = $(VLAD_API_INCLUDES)
%canon_reldir%_api_test_api_cycle_LDADD = $(VLAD_API_LINKLIBS)
%canon_reldir%_api_test_api_cycle_LDFLAGS = $(VLAD_API_LINK)
%canon_reldir%_api_test_api_threads_SOURCES = %reldir%/api/test-api-threads.c %reldir%/api/apitest.h
%canon_reldir%_api_test_api_threads_CPPFLAGS = $(VLAD_API_INCLUDES)
%canon_reldir%_api_test_api_threads_LDADD = $(VLAD_API_LINKLIBS) -lpthread
%canon_reldir%_api_test_api_threads_LDFLAGS = $(VLAD_API_LINK)
%canon_reldir%_api_test_api_args_SOURCES = %reldir%/api/test-api-args.c %reldir%/api/apitest.h
%canon_reldir%_api_test_api_args_CPPFLAGS = $(VLAD_API_INCLUDES)
%canon_reldir%_api_test_api_args_LDADD = $(VLAD_API_LINKLIBS)
%canon_reldir%_api_test_api_args_LDFLAGS = $(VLAD_API_LINK)
%canon_reldir%_api_test_api_close_SOURCES = %reldir%/api/test-api-close.c %reldir%/api/apitest.h
%canon_reldir%_api_test_api_close_CPPFLAGS = $(VLAD_API_INCLUDES)
%canon_reldir%_api_test_api_close_LDADD = $(VLAD_API_LINKLIBS) -lpthread
%canon_reldir%_api_test_api_close_LDFLAGS = $(VLAD_API_LINK)
%canon_reldir%_api_test_api_boundary_SOURCES = %reldir%/api/test-api-boundary.c %reldir%/api/apitest.h
%canon_reldir%_api_test_api_boundary_CPPFLAGS = $(VLAD_API_INCLUDES)
%canon_reldir%_api_test_api_boundary_LDADD = $(VLAD_API_LINKLIBS)
%canon_reldir%_api_test_api_boundary_LDFLAGS = $(VLAD_API_LINK)
%canon_reldir%_api_test_api_lookup_SOURCES = %reldir%/api/test-api-lookup.c %reldir%/api/apitest.h
%canon_reldir%_api_test_api_lookup_CPPFLAGS = $(VLAD_API_INCLUDES)
%canon_reldir%_api_test_api_lookup_LDADD = $(VLAD_API_LINKLIBS) -lpthread
%canon_reldir%_api_test_api_lookup_LDFLAGS = $(VLAD_API_LINK)
%canon_reldir%_api_test_api_backtrace_SOURCES = %reldir%/api/test-api-backtrace.c %reldir%/api/apitest.h
%canon_reldir%_api_test_api_backtrace_CPPFLAGS = $(VLAD_API_INCLUDES)
%canon_reldir%_api_test_api_backtrace_LDADD = $(VLAD_API_LINKLIBS)
%canon_reldir%_api_test_api_backtrace_LDFLAGS = $(VLAD_API_LINK)
%canon_reldir%_api_test_api_hangs_SOURCES = %reldir%/api/test-api-hangs.c %reldir%/api/apitest.h
%canon_reldir%_api_test_api_hangs_CPPFLAGS = $(VLAD_API_INCLUDES)
%canon_reldir%_api_test_api_hangs_LDADD = $(VLAD_API_LINKLIBS)
%canon_reldir%_api_test_api_hangs_LDFLAGS = $(VLAD_API_LINK)
%canon_reldir%_api_test_api_small_stack_SOURCES = %reldir%/api/test-api-small-stack.c %reldir%/api/apitest.h
%canon_reldir%_api_test_api_small_stack_CPPFLAGS = $(VLAD_API_INCLUDES)
%canon_reldir%_api_test_api_small_stack_LDADD = $(VLAD_API_LINKLIBS) -lpthread
%canon_reldir%_api_test_api_small_stack_LDFLAGS = $(VLAD_API_LINK)
%canon_reldir%_api_test_api_include_SOURCES = %reldir%/api/test-api-include.c %reldir%/api/apitest.h
%canon_reldir%_api_test_api_include_CPPFLAGS = $(VLAD_API_INCLUDES)
%canon_reldir%_api_test_api_include_LDADD = $(VLAD_API_LINKLIBS) -lpthread
%canon_reldir%_api_test_api_include_LDFLAGS = $(VLAD_API_LINK)
%canon_reldir%_api_test_api_stdin_SOURCES = %reldir%/api/test-api-stdin.c %reldir%/api/apitest.h
%canon_reldir%_api_test_api_stdin_CPPFLAGS = $(VLAD_API_INCLUDES)
%canon_reldir%_api_test_api_stdin_LDADD = $(VLAD_API_LINKLIBS) -lpthread
%canon_reldir%_api_test_api_stdin_LDFLAGS = $(VLAD_API_LINK)
%canon_reldir%_api_test_api_io_SOURCES = %reldir%/api/test-api-io.c %reldir%/api/apitest.h
%canon_reldir%_api_test_api_io_CPPFLAGS = $(VLAD_API_INCLUDES)
%canon_reldir%_api_test_api_io_LDADD = $(VLAD_API_LINKLIBS)
%canon_reldir%_api_test_api_io_LDFLAGS = $(VLAD_API_LINK)
%canon_reldir%_api_test_api_locale_SOURCES = %reldir%/api/test-api-locale.c %reldir%/api/apitest.h
%canon_reldir%_api_test_api_locale_CPPFLAGS = $(VLAD_API_INCLUDES)
%canon_reldir%_api_test_api_locale_LDADD = $(VLAD_API_LINKLIBS)
%canon_reldir%_api_test_api_locale_LDFLAGS = $(VLAD_API_LINK)
%canon_reldir%_api_test_api_progress_SOURCES = %reldir%/api/test-api-progress.c %reldir%/api/apitest.h
%canon_reldir%_api_test_api_progress_CPPFLAGS = $(VLAD_API_INCLUDES)
%canon_reldir%_api_test_api_progress_LDADD = $(VLAD_API_LINKLIBS)
%canon_reldir%_api_test_api_progress_LDFLAGS = $(VLAD_API_LINK)
%canon_reldir%_api_test_api_persist_SOURCES = %reldir%/api/test-api-persist.c %reldir%/api/apitest.h
%canon_reldir%_api_test_api_persist_CPPFLAGS = $(VLAD_API_INCLUDES)
%canon_reldir%_api_test_api_persist_LDADD = $(VLAD_API_LINKLIBS)
%canon_reldir%_api_test_api_persist_LDFLAGS = $(VLAD_API_LINK)
%canon_reldir%_api_test_api_savefile_SOURCES = %reldir%/api/test-api-savefile.c %reldir%/api/apitest.h
%canon_reldir%_api_test_api_savefile_CPPFLAGS = $(VLAD_API_INCLUDES)
%canon_reldir%_api_test_api_savefile_LDADD = $(VLAD_API_LINKLIBS)
%canon_reldir%_api_test_api_savefile_LDFLAGS = $(VLAD_API_LINK)
%canon_reldir%_api_test_api_spill_SOURCES = %reldir%/api/test-api-spill.c %reldir%/api/apitest.h
%canon_reldir%_api_test_api_spill_CPPFLAGS = $(VLAD_API_INCLUDES)
%canon_reldir%_api_test_api_spill_LDADD = $(VLAD_API_LINKLIBS) -lpthread
%canon_reldir%_api_test_api_spill_LDFLAGS = $(VLAD_API_LINK)
%canon_reldir%_api_test_api_forged_SOURCES = %reldir%/api/test-api-forged.c %reldir%/api/apitest.h %reldir%/api/forge.h
%canon_reldir%_api_test_api_forged_CPPFLAGS = $(VLAD_API_INCLUDES)
%canon_reldir%_api_test_api_forged_LDADD = $(VLAD_API_LINKLIBS)
%canon_reldir%_api_test_api_forged_LDFLAGS = $(VLAD_API_LINK)
%canon_reldir%_api_test_api_cpj_suspend_SOURCES = %reldir%/api/test-api-cpj-suspend.c %reldir%/api/apitest.h
%canon_reldir%_api_test_api_cpj_suspend_CPPFLAGS = $(VLAD_API_INCLUDES)
%canon_reldir%_api_test_api_cpj_suspend_LDADD = $(VLAD_API_LINKLIBS)
%canon_reldir%_api_test_api_cpj_suspend_LDFLAGS = $(VLAD_API_LINK)

## Saved checkpoints across processes (issue 23): persist-helper saves
## the split checkpoints of random programs in one process and resumes
## them in fresh ones; roundtrip.py drives it (roundtrip.sh: make check).
check_PROGRAMS += %reldir%/persist/persist-helper
%canon_reldir%_persist_persist_helper_SOURCES = %reldir%/persist/persist-helper.c
%canon_reldir%_persist_persist_helper_CPPFLAGS = $(VLAD_API_INCLUDES)
%canon_reldir%_persist_persist_helper_LDADD = $(VLAD_API_LINKLIBS)
%canon_reldir%_persist_persist_helper_LDFLAGS = $(VLAD_API_LINK)
## autosave.py and read-real.py: --autosave never destroys a file, and
## resumes as one relies on it (issue 31).
TESTS += %reldir%/persist/roundtrip.sh %reldir%/persist/crash.py \
	%reldir%/persist/autosave.py %reldir%/persist/read-real.py
EXTRA_DIST += %reldir%/persist/roundtrip.sh %reldir%/persist/roundtrip.py \
	%reldir%/persist/crash.py %reldir%/persist/autosave.py \
	%reldir%/persist/read-real.py %reldir%/persist/persistlib.py

examples_embed_minimal_SOURCES = examples/embed/minimal.c
examples_embed_minimal_CPPFLAGS = $(VLAD_API_INCLUDES)
examples_embed_minimal_LDADD = $(VLAD_API_LINKLIBS)
examples_embed_minimal_LDFLAGS = $(VLAD_API_LINK)
examples_embed_optimise_SOURCES = examples/embed/optimise.c
examples_embed_optimise_CPPFLAGS = $(VLAD_API_INCLUDES)
examples_embed_optimise_LDADD = $(VLAD_API_LINKLIBS)
examples_embed_optimise_LDFLAGS = $(VLAD_API_LINK)
examples_embed_hostprim_SOURCES = examples/embed/hostprim.c
examples_embed_hostprim_CPPFLAGS = $(VLAD_API_INCLUDES)
examples_embed_hostprim_LDADD = $(VLAD_API_LINKLIBS)
examples_embed_hostprim_LDFLAGS = $(VLAD_API_LINK)
examples_embed_timeslice_SOURCES = examples/embed/timeslice.c
examples_embed_timeslice_CPPFLAGS = $(VLAD_API_INCLUDES)
examples_embed_timeslice_LDADD = $(VLAD_API_LINKLIBS)
examples_embed_timeslice_LDFLAGS = $(VLAD_API_LINK)

check_PROGRAMS += $(VLAD_API_TESTS) $(VLAD_EMBED_EXAMPLES)

## A host that uses MPI itself (vlad_mpi_attach, include/vlad-mpi.h):
## built with MPI's flags, run under mpiexec by mpihost.sh.
examples_embed_mpihost_SOURCES = examples/embed/mpihost.c
examples_embed_mpihost_CPPFLAGS = $(VLAD_API_INCLUDES)
examples_embed_mpihost_CFLAGS = $(AM_CFLAGS) $(MPI_CFLAGS)
examples_embed_mpihost_LDADD = $(VLAD_API_LINKLIBS) $(MPI_LIBS)
examples_embed_mpihost_LDFLAGS = $(VLAD_API_LINK)
EXTRA_DIST += %reldir%/api/mpihost.sh
if VL_MPI
check_PROGRAMS += examples/embed/mpihost
TESTS += %reldir%/api/mpihost.sh
endif

## test-api-locale runs under a decimal-comma locale that locale.sh
## compiles (W4): built here, run by locale.sh.
check_PROGRAMS += %reldir%/api/test-api-locale

## header.sh: vlad.h alone under C99 -pedantic and C++; valgrind-leaks.sh:
## create/use/destroy cycles under valgrind (skipped, 77, without valgrind
## or in the sanitizer build).
TESTS += \
	$(VLAD_API_TESTS) \
	$(VLAD_EMBED_EXAMPLES) \
	%reldir%/api/header.sh \
	%reldir%/api/valgrind-leaks.sh \
	%reldir%/api/locale.sh

EXTRA_DIST += \
	%reldir%/api/header.sh \
	%reldir%/api/valgrind-leaks.sh \
	%reldir%/api/locale.sh \
	%reldir%/api/boehm.supp
