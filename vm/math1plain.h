/*
 * vm/math1plain.h -- begins a reading of vm/math1.h's derivatives on
 * doubles (vm/ad.h's sweep, vm/adfast.h's fast paths): defines the
 * operations as the plain ones; the reader defines VLM_ARG and VLM_VAL,
 * expands the table, then includes vm/math1undef.h.  Included once per
 * reading (no include guard).  Internal header.
 */
#define VLM_K VLM_PLAIN_K
#define VLM_ADD VLM_PLAIN_ADD
#define VLM_SUB VLM_PLAIN_SUB
#define VLM_MUL VLM_PLAIN_MUL
#define VLM_DIV VLM_PLAIN_DIV
#define VLM_FN VLM_PLAIN_FN
