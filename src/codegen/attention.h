/* attention.h: what the attention kernel's variants share (kernel_attention.c
 * owns the pattern's index maps and score ops; kernel_attention_decode.c is the
 * few-query variant). */
#ifndef TOSAC_ATTENTION_H
#define TOSAC_ATTENTION_H

#include "codegen.h"

/* One attention kernel being emitted: the pattern's ops and operands (Q [B, S,
 * D], K^T [B, D, L], V [B, L, Dv]) and the index type of its offsets. */
typedef struct att {
  cg_builder *cb;
  LLVMBuilderRef b;
  const graph *g;
  const part_kernel *k;
  const op *mm1, *mm2;
  const value *q, *kt, *v;
  int64_t B, S, L, D, Dv;
  LLVMTypeRef it;
  LLVMValueRef lds_k,
      lds_v; /* the portable variant's [ATT_KEYS][D], [ATT_KEYS][Dv] f32 */
} att;

/* kernel_attention.c, for the variants */
/* Offset of element coords (of v's shape) in the kernel input it comes from
 * (*in). */
LLVMValueRef cg_att_read_offset(att *A, const value *v,
                                LLVMValueRef const *coords, const value **in);
/* Offset in the output buffer of element coords of the stored value
 * (cg_att_result). */
LLVMValueRef cg_att_write_offset(att *A, const value *from,
                                 LLVMValueRef const *coords);
/* The value whose elements the kernel stores: the second matmul's result, or
 * its cast. */
const value *cg_att_result(att *A);
/* The pattern's score ops applied to the f32 dot product at [b, query, key], as
 * f32; NULL on failure (a diagnostic). */
LLVMValueRef cg_att_score_ops(att *A, LLVMValueRef dot,
                              LLVMValueRef const *coords);
/* -inf as 0, the exponents' reference while every key so far is masked. */
LLVMValueRef cg_att_finite_max(att *A, LLVMValueRef m);
/* The key end of rows [row0, row0 + rows) under a constant causal mask (kend
 * otherwise). */
LLVMValueRef cg_att_causal_end(att *A, LLVMValueRef kstart, LLVMValueRef kend,
                               LLVMValueRef row0, int rows);
/* Append the "problem" of the quality report to info->tuning. */
void cg_att_add_problem(att *A, cg_kernel_info *info);

/* kernel_attention_decode.c: the decode variant, for few query rows (S <=
 * CG_DECODE_ROWS). */
bool cg_att_decode_fits(att *A);
bool cg_att_emit_decode(att *A, cg_kernel_info *info, bool partial, int split,
                        int64_t chunk);

#endif
