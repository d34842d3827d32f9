/* kernel_pool.c: tosa.avg_pool2d and tosa.max_pool2d, one work-item per output element looping
 * over the window with bounds-checked reads (padding never contributes: the average divides by
 * the count of real elements, the maximum skips padded positions). */
#include "codegen.h"

#include <math.h>
#include <string.h>

#define POOL_BLOCK 256

typedef struct pool {
  cg_builder *cb;
  const op *o;
  bool avg;
  LLVMTypeRef it;
  int64_t IH, IW, C, ker[2], stride[2], pad[2];
  elem_type in_t, out_t, acc_t;
  LLVMTypeRef acc_ty;
  int64_t izp, ozp;
  bool nan_ignore;
} pool;

static LLVMValueRef pc(pool *P, int64_t v) { return LLVMConstInt(P->it, (unsigned long long)v, 1); }

static int64_t attr_at(const op *o, const char *name, int i, int64_t fallback) {
  const attr *a = op_attr(o, name);
  return a && a->kind == ATTR_INTS && i < a->n ? a->ints[i] : fallback;
}

static LLVMValueRef smin(LLVMBuilderRef b, LLVMValueRef x, LLVMValueRef y) {
  return LLVMBuildSelect(b, LLVMBuildICmp(b, LLVMIntSLT, x, y, ""), x, y, "");
}
static LLVMValueRef smax(LLVMBuilderRef b, LLVMValueRef x, LLVMValueRef y) {
  return LLVMBuildSelect(b, LLVMBuildICmp(b, LLVMIntSGT, x, y, ""), x, y, "");
}

static LLVMValueRef call2(cg_builder *cb, const char *name, LLVMValueRef x, LLVMValueRef y) {
  LLVMTypeRef t = LLVMTypeOf(x);
  LLVMValueRef a[2] = {x, y};
  return cg_intrinsic(cb, name, &t, 1, a, 2);
}

/* The identity of the reduction: 0 for the sum; for the maximum -inf (NaN when NaNs are
 * ignored, since maxnum(NaN, x) = x and an all-NaN window stays NaN) or the type minimum. */
static LLVMValueRef initial(pool *P) {
  if (P->avg)
    return LLVMConstNull(P->acc_ty);
  if (elem_type_is_float(P->acc_t))
    return LLVMConstReal(P->acc_ty, P->nan_ignore ? NAN : -INFINITY);
  int bits = elem_type_bits(P->acc_t);
  return LLVMConstInt(P->acc_ty, (unsigned long long)(-((int64_t)1 << (bits - 1))), 1);
}

static LLVMValueRef combine(pool *P, LLVMValueRef acc, LLVMValueRef x) {
  cg_builder *cb = P->cb;
  LLVMBuilderRef b = cb->b;
  if (P->avg) {
    if (elem_type_is_float(P->acc_t)) {
      if (P->in_t != P->acc_t)
        x = LLVMBuildFPExt(b, x, P->acc_ty, "");
      return LLVMBuildFAdd(b, acc, x, "");
    }
    x = LLVMBuildSExt(b, x, P->acc_ty, "");
    if (P->izp)
      x = LLVMBuildSub(b, x, LLVMConstInt(P->acc_ty, (unsigned long long)P->izp, 1), "");
    return LLVMBuildAdd(b, acc, x, "");
  }
  if (elem_type_is_float(P->acc_t))
    return call2(cb, P->nan_ignore ? "llvm.maxnum" : "llvm.maximum", acc, x);
  return smax(b, acc, x);
}

/* TOSA's integer average: acc * reciprocal_scale(count), rounded (apply_scale_32 with a single
 * rounding), plus the output zero point, clamped to the output type. */
static LLVMValueRef int_average(pool *P, LLVMValueRef acc, LLVMValueRef count) {
  cg_builder *cb = P->cb;
  LLVMBuilderRef b = cb->b;
  LLVMTypeRef i64 = cb->i64;
  LLVMValueRef c32 = LLVMTypeOf(count) == cb->i32 ? count : LLVMBuildTrunc(b, count, cb->i32, "");
  LLVMValueRef args[2] = {LLVMBuildSub(b, c32, LLVMConstInt(cb->i32, 1, 0), ""), LLVMConstInt(cb->i1, 0, 0)};
  LLVMTypeRef t32 = cb->i32;
  LLVMValueRef lz = cg_intrinsic(cb, "llvm.ctlz", &t32, 1, args, 2);
  if (!lz)
    return NULL;
  /* k = 32 - clz(count - 1): (1 << k) / 2 < count <= 1 << k */
  LLVMValueRef kk = LLVMBuildZExt(b, LLVMBuildSub(b, LLVMConstInt(cb->i32, 32, 0), lz, ""), i64, "");
  LLVMValueRef num = LLVMBuildShl(b, LLVMConstInt(i64, (1ull << 30) + 1, 0), kk, "");
  LLVMValueRef mult = LLVMBuildUDiv(b, num, LLVMBuildZExt(b, c32, i64, ""), "");
  LLVMValueRef shift = LLVMBuildAdd(b, kk, LLVMConstInt(i64, 30, 0), "");
  LLVMValueRef v = LLVMBuildMul(b, LLVMBuildSExt(b, acc, i64, ""), mult, "");
  LLVMValueRef round = LLVMBuildShl(b, LLVMConstInt(i64, 1, 0),
                                    LLVMBuildSub(b, shift, LLVMConstInt(i64, 1, 0), ""), "");
  v = LLVMBuildAShr(b, LLVMBuildAdd(b, v, round, ""), shift, "");
  v = LLVMBuildTrunc(b, v, cb->i32, "");
  v = LLVMBuildAdd(b, v, LLVMConstInt(cb->i32, (unsigned long long)P->ozp, 1), "");
  int bits = elem_type_bits(P->out_t);
  int64_t lo = -((int64_t)1 << (bits - 1)), hi = ((int64_t)1 << (bits - 1)) - 1;
  v = smax(b, v, LLVMConstInt(cb->i32, (unsigned long long)lo, 1));
  v = smin(b, v, LLVMConstInt(cb->i32, (unsigned long long)hi, 1));
  return LLVMBuildTrunc(b, v, cg_elem_type(cb, P->out_t), "");
}

static bool describe(pool *P) {
  const op *o = P->o;
  const tensor_type *in = o->operands[0]->type, *out = o->results[0]->type;
  P->avg = cg_op_is(o, "tosa.avg_pool2d");
  if (in->rank != 4 || out->rank != 4) {
    diag_error(P->cb->diag, o->loc, "%s: expected NHWC input and output", op_table[o->kind].name);
    return false;
  }
  P->IH = in->dims[1], P->IW = in->dims[2], P->C = in->dims[3];
  for (int s = 0; s < 2; s++) {
    P->ker[s] = attr_at(o, "kernel", s, 1);
    P->stride[s] = attr_at(o, "stride", s, 1);
    P->pad[s] = attr_at(o, "pad", 2 * s, 0);
  }
  P->in_t = in->elem, P->out_t = out->elem;
  const attr *nm = op_attr(o, "nan_mode");
  P->nan_ignore = nm && nm->s && strcmp(nm->s, "IGNORE") == 0;
  bool fl = elem_type_is_float(P->in_t);
  bool ok = P->in_t == P->out_t && P->in_t != ET_F64 && (fl || P->in_t == ET_I8 || P->in_t == ET_I16 ||
                                                          (!P->avg && P->in_t == ET_I32));
  if (P->avg) {
    const attr *acc = op_attr(o, "acc_type");
    P->acc_t = acc && acc->kind == ATTR_TYPE ? acc->type_elem : fl ? ET_F32 : ET_I32;
    if (!fl)
      P->acc_t = ET_I32;
    ok = ok && (fl == elem_type_is_float(P->acc_t)) && P->acc_t != ET_F64;
    P->izp = fl ? 0 : cg_zero_point(o, "input_zp", 1);
    P->ozp = fl ? 0 : cg_zero_point(o, "output_zp", 2);
  } else {
    P->acc_t = P->in_t;
  }
  if (!ok) {
    diag_error(P->cb->diag, o->loc, "%s: %s -> %s is not supported by the pooling kernel",
               op_table[o->kind].name, elem_type_name(P->in_t), elem_type_name(P->out_t));
    return false;
  }
  P->acc_ty = cg_elem_type(P->cb, P->acc_t);
  return true;
}

bool cg_emit_pool(cg_builder *cb, const graph *g, const partition_plan *p, const part_kernel *k,
                  cg_kernel_info *info) {
  (void)p;
  pool P = {.cb = cb, .o = k->anchor};
  if (!k->anchor || !describe(&P)) {
    cb->failed = true;
    return false;
  }
  LLVMBuilderRef b = cb->b;
  P.it = cg_anchor_index_type(cb, k);
  LLVMValueRef oc[TOSAC_MAX_RANK], linear;
  LLVMBasicBlockRef exit = cg_anchor_kernel_begin(cb, k, POOL_BLOCK, P.it, oc, &linear, info);
  LLVMValueRef in = exit ? cg_operand_ptr(cb, k, P.o->operands[0]) : NULL;
  if (!in) {
    cb->failed = true;
    return false;
  }
  /* window origin; the loops run over the whole kernel window with a bounds mask */
  LLVMValueRef y0 = LLVMBuildSub(b, LLVMBuildMul(b, oc[1], pc(&P, P.stride[0]), ""), pc(&P, P.pad[0]), "");
  LLVMValueRef x0 = LLVMBuildSub(b, LLVMBuildMul(b, oc[2], pc(&P, P.stride[1]), ""), pc(&P, P.pad[1]), "");
  LLVMValueRef rowbase = LLVMBuildMul(b, oc[0], pc(&P, P.IH), "");
  LLVMValueRef acc0 = initial(&P);
  LLVMBasicBlockRef pre = LLVMGetInsertBlock(b);
  LLVMBasicBlockRef hy = LLVMAppendBasicBlockInContext(cb->ctx, cb->fn, "ky");
  LLVMBuildBr(b, hy);
  LLVMPositionBuilderAtEnd(b, hy);
  LLVMValueRef ky = LLVMBuildPhi(b, P.it, "ky"), accy = LLVMBuildPhi(b, P.acc_ty, "acc");
  LLVMValueRef y = LLVMBuildAdd(b, y0, ky, "");
  LLVMValueRef yin = LLVMBuildICmp(b, LLVMIntULT, y, pc(&P, P.IH), "");
  LLVMBasicBlockRef prex = LLVMGetInsertBlock(b);
  LLVMBasicBlockRef hx = LLVMAppendBasicBlockInContext(cb->ctx, cb->fn, "kx");
  LLVMBuildBr(b, hx);
  LLVMPositionBuilderAtEnd(b, hx);
  LLVMValueRef kx = LLVMBuildPhi(b, P.it, "kx"), accx = LLVMBuildPhi(b, P.acc_ty, "acc");
  LLVMValueRef x = LLVMBuildAdd(b, x0, kx, "");
  LLVMValueRef inb = LLVMBuildAnd(b, yin, LLVMBuildICmp(b, LLVMIntULT, x, pc(&P, P.IW), ""), "");
  LLVMValueRef off = LLVMBuildAdd(b, LLVMBuildMul(b, LLVMBuildAdd(b, LLVMBuildMul(b, LLVMBuildAdd(b, rowbase, y, ""),
                                                                                  pc(&P, P.IW), ""),
                                                                  x, ""),
                                                  pc(&P, P.C), ""),
                                  oc[3], "");
  off = LLVMBuildSelect(b, inb, off, pc(&P, 0), ""); /* never read outside the buffer */
  LLVMValueRef v = cg_load_elem(cb, P.in_t, in, off);
  LLVMValueRef c = combine(&P, accx, v);
  if (!c)
    return false;
  LLVMValueRef accx_next = LLVMBuildSelect(b, inb, c, accx, "");
  /* close kx */
  LLVMValueRef kx_next = LLVMBuildAdd(b, kx, pc(&P, 1), "");
  LLVMBasicBlockRef latchx = LLVMGetInsertBlock(b);
  LLVMBasicBlockRef endx = LLVMAppendBasicBlockInContext(cb->ctx, cb->fn, "kx_end");
  LLVMBuildCondBr(b, LLVMBuildICmp(b, LLVMIntULT, kx_next, pc(&P, P.ker[1]), ""), hx, endx);
  LLVMValueRef kx_in[2] = {pc(&P, 0), kx_next}, ax_in[2] = {accy, accx_next};
  LLVMBasicBlockRef fx[2] = {prex, latchx};
  LLVMAddIncoming(kx, kx_in, fx, 2);
  LLVMAddIncoming(accx, ax_in, fx, 2);
  LLVMPositionBuilderAtEnd(b, endx);
  /* close ky */
  LLVMValueRef ky_next = LLVMBuildAdd(b, ky, pc(&P, 1), "");
  LLVMBasicBlockRef endy = LLVMAppendBasicBlockInContext(cb->ctx, cb->fn, "ky_end");
  LLVMBuildCondBr(b, LLVMBuildICmp(b, LLVMIntULT, ky_next, pc(&P, P.ker[0]), ""), hy, endy);
  LLVMValueRef ky_in[2] = {pc(&P, 0), ky_next}, ay_in[2] = {acc0, accx_next};
  LLVMBasicBlockRef fy[2] = {pre, endx};
  LLVMAddIncoming(ky, ky_in, fy, 2);
  LLVMAddIncoming(accy, ay_in, fy, 2);
  LLVMPositionBuilderAtEnd(b, endy);
  LLVMValueRef r = accx_next;
  if (P.avg) {
    /* count of real (unpadded) elements in the window */
    LLVMValueRef cy = LLVMBuildSub(b, smin(b, pc(&P, P.IH), LLVMBuildAdd(b, y0, pc(&P, P.ker[0]), "")),
                                   smax(b, pc(&P, 0), y0), "");
    LLVMValueRef cx = LLVMBuildSub(b, smin(b, pc(&P, P.IW), LLVMBuildAdd(b, x0, pc(&P, P.ker[1]), "")),
                                   smax(b, pc(&P, 0), x0), "");
    LLVMValueRef count = LLVMBuildMul(b, cy, cx, "count");
    if (elem_type_is_float(P.acc_t)) {
      r = LLVMBuildFDiv(b, r, LLVMBuildSIToFP(b, count, P.acc_ty, ""), "");
      if (P.acc_t != P.out_t)
        r = LLVMBuildFPTrunc(b, r, cg_elem_type(cb, P.out_t), "");
    } else if (!(r = int_average(&P, r, count))) {
      return false;
    }
  }
  if (!cg_epilogue_store(cb, g, k, r, oc, linear, P.it))
    return false;
  LLVMBuildBr(b, exit);
  return !cb->failed;
}
