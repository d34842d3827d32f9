/* kernel_fill.c: init kernels for --init=kernel. Each replaces one fill node of the launch DAG:
 * one work-item per element of k->iter (the fill type, bytes / element size elements) stores
 * the fill's bit pattern as an integer of the element's width at out_bufs[0] + fill_offset.
 * Integer stores write the exact pattern (an f32 -inf or a NaN payload survives unchanged). */
#include "codegen.h"

#define FILL_BLOCK 256

bool cg_emit_fill(cg_builder *cb, const graph *g, const partition_plan *p, const part_kernel *k,
                  cg_kernel_info *info) {
  (void)g, (void)p;
  int es = elem_type_bytes(k->iter.elem);
  int64_t n = tensor_numel(&k->iter);
  if (k->nin != 0 || k->nout != 1 || k->iter.rank != 1 || !(es == 1 || es == 2 || es == 4 || es == 8) ||
      k->fill_offset % es) {
    diag_error_noloc(cb->diag, "kernel '%s': an init kernel writes one aligned range of one buffer", k->name);
    cb->failed = true;
    return false;
  }
  const char *access[1] = {"write_only"};
  cg_kernel_begin(cb, k->name, 1, access, FILL_BLOCK);
  int64_t groups = (n + FILL_BLOCK - 1) / FILL_BLOCK;
  cg_launch_1d(info, k, FILL_BLOCK, groups, n, 1, access);
  LLVMBuilderRef b = cb->b;
  LLVMValueRef tid = cg_thread_id_x(cb), gid = cg_group_id_x(cb);
  if (!tid || !gid)
    return false;
  LLVMTypeRef it = n + k->fill_offset / es + FILL_BLOCK < ((int64_t)1 << 31) ? cb->i32 : cb->i64;
  LLVMValueRef base = LLVMBuildMul(b, LLVMBuildZExt(b, gid, it, ""), LLVMConstInt(it, FILL_BLOCK, 0), "");
  LLVMValueRef idx = LLVMBuildAdd(b, base, LLVMBuildZExt(b, tid, it, ""), "idx");
  LLVMBasicBlockRef body = LLVMAppendBasicBlockInContext(cb->ctx, cb->fn, "body");
  LLVMBasicBlockRef exit = LLVMAppendBasicBlockInContext(cb->ctx, cb->fn, "exit");
  LLVMValueRef in = LLVMBuildICmp(b, LLVMIntULT, idx, LLVMConstInt(it, (unsigned long long)n, 0), "");
  LLVMBuildCondBr(b, in, body, exit);
  LLVMPositionBuilderAtEnd(b, body);
  LLVMTypeRef et = LLVMIntTypeInContext(cb->ctx, (unsigned)(8 * es));
  LLVMValueRef off = LLVMBuildAdd(b, idx, LLVMConstInt(it, (unsigned long long)(k->fill_offset / es), 0), "");
  LLVMValueRef ptr = LLVMBuildInBoundsGEP2(b, et, LLVMGetParam(cb->fn, 0), &off, 1, "");
  cg_store(cb, LLVMConstInt(et, k->fill_bits, 0), ptr, (unsigned)es);
  LLVMBuildBr(b, exit);
  LLVMPositionBuilderAtEnd(b, exit);
  LLVMBuildRetVoid(b);
  return !cb->failed;
}
