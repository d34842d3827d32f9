/* attention.h: what the attention kernels' files share (kernel_attention.c owns
 * the pattern, its index maps and score ops and the portable, LDS matrix and
 * MFMA flash variants; attention_wmma.c the WMMA flash variant; kernel_attention_decode.c the
 * few-query variant). Private to src/codegen. */
#ifndef TOSAC_ATTENTION_H
#define TOSAC_ATTENTION_H

#include "gemm.h"

typedef struct att {
  cg_builder *cb;
  LLVMBuilderRef b;
  const graph *g;
  const part_kernel *k;
  const op *mm1, *mm2;
  const value *q, *kt, *v;
  int64_t B, S, L, D, Dv;
  LLVMTypeRef it;
  LLVMValueRef lds_k, lds_v; /* [ATT_KEYS][D], [ATT_KEYS][Dv] f32 */
} att;

/* kernel_attention.c: the pattern's pieces for the other variants */
/* Offset of element coords (of v's shape) in the kernel input it comes from (*in). */
LLVMValueRef att_read_offset(att *A, const value *v, LLVMValueRef const *coords, const value **in);
/* Pointer to element coords of v in its kernel input; reads through a concat view (the pieces'
 * buffers, selected by the index along its axis). */
LLVMValueRef att_read_ptr(att *A, const value *v, LLVMValueRef const *coords);
/* Rows (indices along rdim) where v's concat view changes piece, to sample for contiguity: 3 per
 * piece in rows[0..n), n returned; 0 when v reads no concat view, -1 when it reads one through
 * other ops or along another dim (then sample no vector loads). */
int att_concat_rows(att *A, const value *v, int rdim, int64_t *rows, int cap);
/* Merge output element d of row bs (batch-and-head entry x S + row) from the P split-KV partials
 * in ws and store it through the output index map into dst (the combine kernel's element). */
bool att_combine_store(att *A, LLVMValueRef ws, LLVMValueRef dst, LLVMValueRef bs, LLVMValueRef d, int P);
LLVMValueRef att_score_ops(att *A, LLVMValueRef dot, LLVMValueRef const *coords);
double att_score_scale(att *A);
LLVMValueRef att_finite_max(att *A, LLVMValueRef m);
LLVMValueRef att_causal_end(att *A, LLVMValueRef kstart, LLVMValueRef kend, LLVMValueRef row0, int rows);
LLVMValueRef att_load_operand(att *A, const value *v, LLVMValueRef const *c);
LLVMValueRef att_write_offset(att *A, const value *from, LLVMValueRef const *coords);
const value *att_result_value(att *A);
LLVMValueRef att_to_frag(att *A, const gemm_mma *mm, LLVMValueRef x);
LLVMValueRef att_lds_arr(att *A, const char *what, LLVMTypeRef t, int64_t n);
void att_add_problem(att *A, cg_kernel_info *info);
/* A flash kernel's start: its arguments, `groups` work-groups of `wg`, f32 denormals flushed */
void att_flash_begin(att *A, cg_kernel_info *info, int wg, int64_t groups);
/* The flash variant's global loads of K (rdim 2, cdim 1) and V (rdim 1, cdim
 * 2): elements per load, the row stride when the rows are affine (the key in
 * the scalar offset), and one load (srow: the uniform first row, unclamped;
 * *rsrc: the operand's buffer resource, made at the first call) */
int att_vector(att *A, elem_type t, const value *v, int rdim, int cdim);
int64_t att_row_stride(att *A, elem_type t, const value *v, int rdim, int cdim, int vec);
LLVMValueRef att_load(att *A, const gemm_mma *mm, LLVMTypeRef ft, LLVMValueRef *rsrc, int64_t stride, const value *v,
                      int rdim, int cdim, LLVMValueRef bidx, LLVMValueRef row, LLVMValueRef c0, int vec,
                      LLVMValueRef srow);

/* attention_wmma.c: the WMMA flash variant (gfx11, gfx12), when it fits the
 * pattern */
bool att_wmma_fits(att *A);
bool att_wmma_emit(att *A, cg_kernel_info *info);

/* kernel_attention_decode.c: the decode variant, for few query rows (S <= CG_DECODE_ROWS). */
bool cg_att_decode_fits(att *A);
bool cg_att_emit_decode(att *A, cg_kernel_info *info, bool partial, int split, int64_t chunk);

#endif
