/*
 * vm/ad/mathundef.h -- ends a reading of the derivatives of vm/core/math1.h or
 * vm/core/math2.h: undefines the arguments, the value, the shared term and the
 * operations that the reader defined.  Included once per reading (no
 * include guard).  Internal header.
 */
#undef VLM_ARG
#undef VLM_A
#undef VLM_B
#undef VLM_T
#undef VLM_VAL
#undef VLM_K
#undef VLM_ADD
#undef VLM_SUB
#undef VLM_MUL
#undef VLM_DIV
#undef VLM_NEG
#undef VLM_FN
#undef VLM_FN2
#undef VLM_SECH2
#undef VLM_ONE_MINUS_SQ
#undef VLM_SCALE
#undef VLM_SUMSQ
#undef VLM_IF_NONZERO
#undef VLM_IF
