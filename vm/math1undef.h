/*
 * vm/math1undef.h -- ends a reading of vm/math1.h's derivatives: undefines
 * the argument, the value and the operations that the reader defined.
 * Included once per reading (no include guard).  Internal header.
 */
#undef VLM_ARG
#undef VLM_VAL
#undef VLM_K
#undef VLM_ADD
#undef VLM_SUB
#undef VLM_MUL
#undef VLM_DIV
#undef VLM_FN
