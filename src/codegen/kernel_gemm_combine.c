/* kernel_gemm_combine.c: the second kernel of a split-K GEMM (partition/splitk.c). One work-item
 * per output element adds the split_count partial sums the GEMM kernel left in the workspace
 * ([split][<result shape>], f32 or i32), in split order so the result is deterministic, then does
 * what the GEMM epilogue would have done: bias (fully_connected, conv2d), the cast to the result
 * type and the fused elementwise ops, and stores the kernel's outputs. */
#include "codegen.h"

#include <string.h>

#define COMBINE_BLOCK 256

/* sum over s of partials[s * numel + linear], in split order */
static LLVMValueRef sum_partials(cg_builder *cb, LLVMValueRef ptr, elem_type at, int split,
                                 int64_t numel, LLVMValueRef linear, LLVMTypeRef it) {
  LLVMBuilderRef b = cb->b;
  LLVMTypeRef t = cg_elem_type(cb, at);
  LLVMBasicBlockRef pre = LLVMGetInsertBlock(b);
  LLVMBasicBlockRef loop = LLVMAppendBasicBlockInContext(cb->ctx, cb->fn, "splits");
  LLVMBasicBlockRef done = LLVMAppendBasicBlockInContext(cb->ctx, cb->fn, "summed");
  LLVMBuildBr(b, loop);
  LLVMPositionBuilderAtEnd(b, loop);
  LLVMValueRef s = LLVMBuildPhi(b, it, "s");
  LLVMValueRef acc = LLVMBuildPhi(b, t, "acc");
  LLVMValueRef off = LLVMBuildAdd(b, LLVMBuildMul(b, s, LLVMConstInt(it, (unsigned long long)numel, 0), ""),
                                  linear, "");
  LLVMValueRef x = cg_load_elem(cb, at, ptr, off);
  LLVMValueRef nacc = at == ET_F32 ? LLVMBuildFAdd(b, acc, x, "") : LLVMBuildAdd(b, acc, x, "");
  LLVMValueRef ns = LLVMBuildAdd(b, s, LLVMConstInt(it, 1, 0), "");
  LLVMValueRef more = LLVMBuildICmp(b, LLVMIntULT, ns, LLVMConstInt(it, (unsigned long long)split, 0), "");
  LLVMBuildCondBr(b, more, loop, done);
  LLVMValueRef sin[2] = {LLVMConstInt(it, 0, 0), ns}, ain[2] = {LLVMConstNull(t), nacc};
  LLVMBasicBlockRef from[2] = {pre, loop};
  LLVMAddIncoming(s, sin, from, 2);
  LLVMAddIncoming(acc, ain, from, 2);
  LLVMPositionBuilderAtEnd(b, done);
  return nacc;
}

/* The anchor's result from the summed accumulator: + bias (the last dim's index, or a scalar),
 * then f16/bf16 results rounded once, as kernel_gemm.c's epilogue does. */
static LLVMValueRef finish(cg_builder *cb, const part_kernel *k, LLVMValueRef x, elem_type at,
                           LLVMValueRef const *coords, LLVMTypeRef it) {
  LLVMBuilderRef b = cb->b;
  const op *o = k->anchor;
  if (!cg_op_is(o, "tosa.matmul") && o->noperands > 2) {
    const value *bv = o->operands[2];
    LLVMValueRef ptr = cg_operand_ptr(cb, k, bv);
    if (!ptr)
      return NULL;
    int rank = k->iter.rank;
    LLVMValueRef bi = tensor_numel(bv->type) == 1 || rank == 0 ? LLVMConstInt(it, 0, 0) : coords[rank - 1];
    LLVMValueRef bias = cg_load_elem(cb, bv->type->elem, ptr, bi);
    if (at == ET_I32)
      x = LLVMBuildAdd(b, x, LLVMBuildSExtOrBitCast(b, bias, cb->i32, ""), "");
    else
      x = LLVMBuildFAdd(b, x, bv->type->elem == ET_F32 ? bias : LLVMBuildFPExt(b, bias, cb->f32, ""), "");
  }
  elem_type rt = o->results[0]->type->elem;
  if (rt == ET_F16 || rt == ET_BF16)
    x = LLVMBuildFPTrunc(b, x, cg_elem_type(cb, rt), "");
  else if (at == ET_I32)
    x = cg_int_wrap(cb, x, rt);
  return x;
}

bool cg_emit_gemm_combine(cg_builder *cb, const graph *g, const partition_plan *p,
                          const part_kernel *k, cg_kernel_info *info) {
  (void)p;
  const value *pv = k->nin > 0 ? k->in_vals[0] : NULL;
  if (!k->anchor || !pv || pv->type->rank < 1 || (pv->type->elem != ET_F32 && pv->type->elem != ET_I32) ||
      k->split_count < 1) {
    diag_error_noloc(cb->diag, "kernel '%s': split-K combine without its partials workspace", k->name);
    cb->failed = true;
    return false;
  }
  LLVMTypeRef it = cg_anchor_index_type(cb, k);
  LLVMValueRef coords[TOSAC_MAX_RANK], linear;
  LLVMBasicBlockRef exit = cg_anchor_kernel_begin(cb, k, COMBINE_BLOCK, it, coords, &linear, info);
  if (!exit)
    return false;
  LLVMValueRef x = sum_partials(cb, LLVMGetParam(cb->fn, 0), pv->type->elem, k->split_count,
                                tensor_numel(&k->iter), linear, it);
  x = finish(cb, k, x, pv->type->elem, coords, it);
  if (!x || !cg_epilogue_store(cb, g, k, x, coords, linear, it))
    return false;
  LLVMBuildBr(cb->b, exit);
  snprintf(info->tuning, sizeof info->tuning, "{\"split_k\":%d}", k->split_count);
  return !cb->failed;
}
