## tests/bad-input/local.mk -- the catalogue of bad input (doc/hardening.md)
##
## Golden tests (tests/run-golden): each NAME.vlad says in its first line
## what it checks; NAME.err holds the exact diagnostic (message and
## FILE:LINE:COL), NAME.out what was printed before it (often nothing),
## NAME.status the exit status when it is not 1, NAME.args / NAME.in the
## command line and standard input.  Named by area: syntax-, expand-,
## runtime-, ad-, ckpt- (the checkpointing interface), cpj- (checkpoint-*j,
## including malformed --checkpoint SPECs), cli-, limit-.  limits.sh and
## limits-deep.sh generate inputs too big to keep (a million levels of
## nesting, 2 MB lines).  Add a test: write NAME.vlad (+ .args/.in),
## list it here, make accept-golden TEST=tests/bad-input/NAME.vlad, and
## read the result: it must show correct behaviour.  A test whose expected
## files show the correct behaviour that vlad does not have yet goes into
## XFAIL_TESTS below, with a note in its header.

VLAD_GOLDEN_TESTS += \
	%reldir%/ad-abs-negative-zero.vlad \
	%reldir%/ad-cotangent-list-for-real.vlad \
	%reldir%/ad-cotangent-procedure.vlad \
	%reldir%/ad-error-inside-f-jstar-nested.vlad \
	%reldir%/ad-error-inside-f-starj.vlad \
	%reldir%/ad-inf-propagation.vlad \
	%reldir%/ad-nan-propagation.vlad \
	%reldir%/ad-resume-inside-own-execution.vlad \
	%reldir%/ad-starj-not-procedure-list.vlad \
	%reldir%/ad-starj-one-argument-missing.vlad \
	%reldir%/ad-tangent-boolean-mismatch.vlad \
	%reldir%/ad-tangent-for-checkpoint.vlad \
	%reldir%/ad-tangent-procedure.vlad \
	%reldir%/ad-tangent-real-for-list.vlad \
	%reldir%/ckpt-chain-long.vlad \
	%reldir%/ckpt-error-on-resume.vlad \
	%reldir%/ckpt-k-boolean.vlad \
	%reldir%/ckpt-k-fraction.vlad \
	%reldir%/ckpt-k-huge.vlad \
	%reldir%/ckpt-k-nan.vlad \
	%reldir%/ckpt-k-negative.vlad \
	%reldir%/ckpt-not-procedure.vlad \
	%reldir%/ckpt-primops-not-procedure.vlad \
	%reldir%/ckpt-resume-list-of-checkpoint.vlad \
	%reldir%/ckpt-resume-number.vlad \
	%reldir%/ckpt-resume-procedure.vlad \
	%reldir%/ckpt-two-arguments.vlad \
	%reldir%/cli-autosave-directory.vlad \
	%reldir%/cli-autosave-missing-dir.vlad \
	%reldir%/cli-autosave-not-save.vlad \
	%reldir%/cli-autosave-program.vlad \
	%reldir%/cli-autosave-stdin.vlad \
	%reldir%/cli-directory-as-file.vlad \
	%reldir%/cli-e-missing.vlad \
	%reldir%/cli-e-runtime-error.vlad \
	%reldir%/cli-e-syntax-error.vlad \
	%reldir%/cli-flag-with-value.vlad \
	%reldir%/cli-heap-limit-overflow.vlad \
	%reldir%/cli-heap-limit-suffix.vlad \
	%reldir%/cli-include-dir-missing.vlad \
	%reldir%/cli-missing-file.vlad \
	%reldir%/cli-option-ambiguous.vlad \
	%reldir%/cli-script-argument-word.vlad \
	%reldir%/cli-stdin-syntax-error.vlad \
	%reldir%/cli-step-limit-fraction.vlad \
	%reldir%/cli-step-limit-missing.vlad \
	%reldir%/cli-step-limit-negative.vlad \
	%reldir%/cli-step-limit-word.vlad \
	%reldir%/cli-unknown-long-option.vlad \
	%reldir%/cli-unknown-short-option.vlad \
	%reldir%/cpj-bad-spec-empty.vlad \
	%reldir%/cpj-bad-spec-huge-slots.vlad \
	%reldir%/cpj-bad-spec-misspelled.vlad \
	%reldir%/cpj-bad-spec-negative-base.vlad \
	%reldir%/cpj-bad-spec-space.vlad \
	%reldir%/cpj-bad-spec-trailing-comma.vlad \
	%reldir%/cpj-cotangent-shape.vlad \
	%reldir%/cpj-error-nested.vlad \
	%reldir%/cpj-heap-limit.vlad \
	%reldir%/cpj-huge-base.vlad \
	%reldir%/cpj-huge-slots-step-limit.vlad \
	%reldir%/cpj-huge-slots.vlad \
	%reldir%/cpj-not-procedure.vlad \
	%reldir%/cpj-private-first.vlad \
	%reldir%/cpj-private-prelude-helper.vlad \
	%reldir%/cpj-private-split.vlad \
	%reldir%/cpj-read-real-empty-input.vlad \
	%reldir%/cpj-read-real-eof-after-output.vlad \
	%reldir%/cpj-read-real-eof-second.vlad \
	%reldir%/cpj-step-limit.vlad \
	%reldir%/expand-and-pattern.vlad \
	%reldir%/expand-begin-definition.vlad \
	%reldir%/expand-cond-clause-not-list.vlad \
	%reldir%/expand-cond-empty.vlad \
	%reldir%/expand-define-number.vlad \
	%reldir%/expand-define-pattern-bound-twice.vlad \
	%reldir%/expand-error-deep-inside.vlad \
	%reldir%/expand-if-empty.vlad \
	%reldir%/expand-include-bom.vlad \
	%reldir%/expand-include-in-expression.vlad \
	%reldir%/expand-include-missing-file.vlad \
	%reldir%/expand-include-no-argument.vlad \
	%reldir%/expand-include-self.vlad \
	%reldir%/expand-include-two-arguments.vlad \
	%reldir%/expand-lambda-pattern-application.vlad \
	%reldir%/expand-let-no-body.vlad \
	%reldir%/expand-let-star-binding-one.vlad \
	%reldir%/expand-letrec-bound-twice.vlad \
	%reldir%/expand-named-let-bindings-not-list.vlad \
	%reldir%/expand-quote-empty.vlad \
	%reldir%/limit-heap-long-list.vlad \
	%reldir%/limit-heap-tape.vlad \
	%reldir%/limit-huge-number-literals.vlad \
	%reldir%/limit-long-line.vlad \
	%reldir%/limit-long-symbol.vlad \
	%reldir%/limit-print-shared-echo.vlad \
	%reldir%/limit-print-shared-write.vlad \
	%reldir%/limit-step-nested-primops.vlad \
	%reldir%/runtime-apply-checkpoint.vlad \
	%reldir%/runtime-atan-boolean.vlad \
	%reldir%/runtime-backtrace-control-frames.vlad \
	%reldir%/runtime-backtrace-repeated.vlad \
	%reldir%/runtime-constant-pattern.vlad \
	%reldir%/runtime-error-after-output.vlad \
	%reldir%/runtime-error-in-map-lambda.vlad \
	%reldir%/runtime-floor-procedure.vlad \
	%reldir%/runtime-modulo-list.vlad \
	%reldir%/runtime-mutual-recursion-backtrace.vlad \
	%reldir%/runtime-quoted-pattern.vlad \
	%reldir%/runtime-read-real-long-token.vlad \
	%reldir%/runtime-read-real-nan-word.vlad \
	%reldir%/runtime-read-real-nul.vlad \
	%reldir%/runtime-read-real-special.vlad \
	%reldir%/runtime-read-real-trailing-garbage.vlad \
	%reldir%/runtime-step-limit-deep.vlad \
	%reldir%/runtime-step-limit-per-form.vlad \
	%reldir%/runtime-tuple-too-short.vlad \
	%reldir%/runtime-unbound-called-later.vlad \
	%reldir%/syntax-block-comment-nested-open.vlad \
	%reldir%/syntax-bom-inside.vlad \
	%reldir%/syntax-bom-start.vlad \
	%reldir%/syntax-bracket-mismatch-inner.vlad \
	%reldir%/syntax-crlf-lines.vlad \
	%reldir%/syntax-datum-comment-before-close.vlad \
	%reldir%/syntax-deep-unclosed.vlad \
	%reldir%/syntax-dot-first.vlad \
	%reldir%/syntax-dot-two-tails.vlad \
	%reldir%/syntax-error-after-forms.vlad \
	%reldir%/syntax-hash-backslash.vlad \
	%reldir%/syntax-nul-byte.vlad \
	%reldir%/syntax-quote-before-close.vlad \
	%reldir%/syntax-string-to-eof.vlad \
	%reldir%/syntax-tab-columns.vlad \
	%reldir%/syntax-two-dots.vlad \
	%reldir%/syntax-two-errors.vlad \
	%reldir%/syntax-unterminated-string-escape.vlad \
	%reldir%/syntax-vector-literal.vlad

TESTS += %reldir%/limits.sh %reldir%/limits-deep.sh
EXTRA_DIST += %reldir%/limits.sh %reldir%/limits-deep.sh

## Issue 19: C stacks of 16 KiB-1 MiB under the CLI (C2); over-long tokens
## and inputs, includes nested deep and long include names (C4, C3, U7).
TESTS += %reldir%/small-stack.sh %reldir%/limits-input.sh
EXTRA_DIST += %reldir%/small-stack.sh %reldir%/limits-input.sh
## Included by expand-include-bom.vlad.
VLAD_TEST_FILES += %reldir%/inc/bom-lib.vlad


## Wrong today: expected files show the correct behaviour; each XPASS
## (a fix) fails make check until its line is removed.  See
## tests/fuzz/crashers/README.md for the findings.  (None at present:
## limits-deep.sh left it when F4 and F5 were fixed.)
XFAIL_TESTS =
