/*
 * vm/ad/mathplain.h -- begins a reading of the derivatives of vm/core/math1.h and
 * vm/core/math2.h on doubles (vm/ad/tape.h's sweep, vm/ad/adfast.h's fast paths):
 * defines the operations as the plain ones; the reader defines the
 * arguments (VLM_ARG, or VLM_A and VLM_B), the value VLM_VAL and, for
 * vm/core/math2.h, the shared term VLM_T, expands the table, then includes
 * vm/ad/mathundef.h.  Included once per reading (no include guard).
 * Internal header.
 */
#define VLM_K VLM_PLAIN_K
#define VLM_ADD VLM_PLAIN_ADD
#define VLM_SUB VLM_PLAIN_SUB
#define VLM_MUL VLM_PLAIN_MUL
#define VLM_DIV VLM_PLAIN_DIV
#define VLM_NEG VLM_PLAIN_NEG
#define VLM_FN VLM_PLAIN_FN
#define VLM_FN2 VLM_PLAIN_FN2
#define VLM_SECH2 VLM_PLAIN_SECH2
#define VLM_ONE_MINUS_SQ VLM_PLAIN_ONE_MINUS_SQ
#define VLM_SCALE VLM_PLAIN_SCALE
#define VLM_SUMSQ VLM_PLAIN_SUMSQ
#define VLM_IF_NONZERO VLM_PLAIN_IF_NONZERO
#define VLM_IF VLM_PLAIN_IF
