/* kernel_im2col.c: the first kernel of a convolution expanded into im2col + GEMM
 * (partition/im2col.c, role KR_IM2COL). One work-item writes 16 bytes of one row of the
 * workspace matrix [M + OC][Kpad]: rows m < M the input patch of output pixel m (k -> input
 * offset and tap offsets from a constant table per k, else the implicit GEMM's general gather,
 * gemm_conv.c; out-of-image taps and k past K are zero), rows M + n the weights of output
 * channel n (k past K zero). The values are copied as raw bits, so every element type pads with
 * +0. The GEMM kernel (role KR_COLS) then reads both operands with 16-byte loads and no masks. */
#include "gemm_conv.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#define IM2COL_BLOCK 256

static LLVMValueRef k32(cg_builder *cb, int64_t v) { return LLVMConstInt(cb->i32, (unsigned long long)v, 1); }

/* Element k (< K if ok) of a row at element offset off from base, or 0. */
static LLVMValueRef load_or_zero(cg_builder *cb, LLVMTypeRef et, LLVMValueRef base, LLVMValueRef off,
                                 LLVMValueRef ok, int es) {
  LLVMBuilderRef b = cb->b;
  /* a 32-bit byte offset zero-extended next to the load: the SGPR base + VGPR offset form */
  LLVMValueRef safe = LLVMBuildSelect(b, ok, off, k32(cb, 0), "");
  LLVMValueRef bytes = LLVMBuildZExt(b, LLVMBuildNUWMul(b, safe, k32(cb, es), ""), cb->i64, "");
  LLVMValueRef x = cg_load(cb, et, LLVMBuildInBoundsGEP2(b, cb->i8, base, &bytes, 1, ""), (unsigned)es);
  return LLVMBuildSelect(b, ok, x, LLVMConstNull(et), "");
}

/* The patch gather by table: per k of the row, a constant entry of its input offset from the
 * row's origin (sum over dims of tap x dilation x the dim's input stride, + channel) and one of
 * its per-dim tap offsets (tap x dilation, TAB_BITS each) with bit 31 set for k past K. A
 * work-item then reads its v entries with two vector loads and needs per element a bit-field
 * extract and an unsigned compare per dim, an add and the select, instead of the general
 * gather's divisions (the stem's pass on gfx90a: 227 -> 156 instructions with 32-bit offsets). */
#define TAB_BITS 10
static bool table_fits(const gemm_conv *c) {
  for (int d = 0; d < c->ns; d++)
    if ((c->ker[d] - 1) * c->dil[d] >= (1 << TAB_BITS))
      return false;
  return true;
}

static LLVMValueRef table_global(cg_builder *cb, const part_kernel *k, const gemm_conv *c, int64_t K,
                                 int64_t kpad, bool taps, const char *what) {
  int32_t *e = calloc((size_t)kpad, sizeof *e);
  for (int64_t kk = 0; kk < kpad; kk++) {
    if (kk >= K) {
      e[kk] = taps ? INT32_MIN : 0;
      continue;
    }
    int64_t t = kk / c->ic, off = kk % c->ic, stride = c->ic;
    uint32_t bits = 0;
    for (int d = c->ns - 1; d >= 0; d--) {
      int64_t td = t % c->taps[d];
      t /= c->taps[d];
      off += td * c->dil[d] * stride;
      bits |= (uint32_t)(td * c->dil[d]) << (TAB_BITS * d);
      stride *= c->in[d];
    }
    e[kk] = taps ? (int32_t)bits : (int32_t)off;
  }
  LLVMValueRef init = LLVMConstDataArray(cb->i32, (const char *)e, (size_t)kpad * sizeof *e);
  free(e);
  char name[96];
  snprintf(name, sizeof name, "%s.%s", k->name, what);
  LLVMValueRef g = cg_const_table(cb, name, init, 16);
  return g;
}

/* v entries of table g from k0 (a multiple of v; 16-byte aligned for v >= 4). */
static LLVMValueRef table_load(cg_builder *cb, LLVMValueRef g, LLVMValueRef k0, int v) {
  LLVMValueRef i = LLVMBuildZExt(cb->b, k0, cb->i64, "");
  LLVMTypeRef vt = LLVMVectorType(cb->i32, (unsigned)v);
  return cg_load(cb, vt, LLVMBuildInBoundsGEP2(cb->b, cb->i32, g, &i, 1, ""), v >= 4 ? 16 : 4 * (unsigned)v);
}

/* The v elements of a patch row from k0 by table (table_global). */
static LLVMValueRef patch_by_table(cg_builder *cb, const part_kernel *k, const gemm_conv *c, int64_t K,
                                   int64_t kpad, LLVMValueRef in, LLVMValueRef row, LLVMValueRef k0,
                                   LLVMTypeRef et, int v, int es) {
  LLVMBuilderRef b = cb->b;
  LLVMValueRef offs = table_load(cb, table_global(cb, k, c, K, kpad, false, "im2col_off"), k0, v);
  LLVMValueRef taps = table_load(cb, table_global(cb, k, c, K, kpad, true, "im2col_taps"), k0, v);
  /* the row's origin: its batch's image + per dim (output position x stride - pad) x stride */
  gemm_conv_phase ph;
  gemm_conv_row r;
  gemm_conv_phase_init(cb, c, NULL, &ph);
  gemm_conv_row_init(cb, c, &ph, row, &r);
  LLVMValueRef origin = r.base;
  int64_t stride = c->ic;
  for (int d = c->ns - 1; d >= 0; d--) {
    origin = LLVMBuildAdd(b, origin, LLVMBuildMul(b, r.pos0[d], k32(cb, stride), ""), "");
    stride *= c->in[d];
  }
  LLVMValueRef x = LLVMGetUndef(LLVMVectorType(et, (unsigned)v));
  for (int i = 0; i < v; i++) {
    LLVMValueRef t = LLVMBuildExtractElement(b, taps, k32(cb, i), "");
    LLVMValueRef ok = LLVMBuildICmp(b, LLVMIntSGE, t, k32(cb, 0), ""); /* bit 31: k past K */
    for (int d = 0; d < c->ns; d++) {
      LLVMValueRef td = LLVMBuildAnd(b, LLVMBuildLShr(b, t, k32(cb, TAB_BITS * d), ""), k32(cb, (1 << TAB_BITS) - 1), "");
      LLVMValueRef pos = LLVMBuildAdd(b, r.pos0[d], td, "");
      ok = LLVMBuildAnd(b, ok, LLVMBuildICmp(b, LLVMIntULT, pos, k32(cb, c->in[d]), ""), "");
    }
    LLVMValueRef off = LLVMBuildAdd(b, origin, LLVMBuildExtractElement(b, offs, k32(cb, i), ""), "");
    x = LLVMBuildInsertElement(b, x, load_or_zero(cb, et, in, off, ok, es), k32(cb, i), "");
  }
  return x;
}

bool cg_emit_im2col(cg_builder *cb, const part_kernel *k, cg_kernel_info *info) {
  const op *o = k->anchor;
  gemm_conv c;
  gemm_problem pb = {0};
  char err[160];
  const value *ws = k->nout == 1 ? k->out_vals[0] : NULL;
  if (!o || !ws || ws->type->rank != 2 || !gemm_conv_describe(o, &c, &pb, err, sizeof err) || c.transpose ||
      ws->type->dims[0] != pb.m + pb.n) {
    diag_error_noloc(cb->diag, "kernel '%s': im2col without a convolution and its workspace matrix", k->name);
    cb->failed = true;
    return false;
  }
  pb.in = o->operands[0]->type->elem, pb.op = op_table[o->kind].name + 5; /* the key's "conv2d" */
  pb.zero_points = false;
  LLVMBuilderRef b = cb->b;
  int es = elem_type_bytes(pb.in), v = 16 / es;
  int64_t kpad = ws->type->dims[1], per_row = kpad / v, items = (pb.m + pb.n) * per_row;
  int nargs = k->nin + k->nout;
  const char *access[8];
  for (int i = 0; i < nargs && i < 8; i++)
    access[i] = i < k->nin ? "read_only" : "write_only";
  cg_kernel_begin(cb, k->name, nargs, access, IM2COL_BLOCK);
  int64_t groups = (items + IM2COL_BLOCK - 1) / IM2COL_BLOCK;
  cg_launch_1d(info, k, IM2COL_BLOCK, groups, items, v, access);
  LLVMValueRef in = cg_operand_ptr(cb, k, o->operands[0]), w = cg_operand_ptr(cb, k, o->operands[1]);
  LLVMValueRef tid = cg_thread_id_x(cb), gid = cg_group_id_x(cb);
  if (!in || !w || !tid || !gid)
    return false;
  LLVMValueRef idx = LLVMBuildAdd(b, LLVMBuildMul(b, gid, k32(cb, IM2COL_BLOCK), ""), tid, "idx");
  LLVMBasicBlockRef body = LLVMAppendBasicBlockInContext(cb->ctx, cb->fn, "body");
  LLVMBasicBlockRef gather = LLVMAppendBasicBlockInContext(cb->ctx, cb->fn, "patch");
  LLVMBasicBlockRef weights = LLVMAppendBasicBlockInContext(cb->ctx, cb->fn, "weights");
  LLVMBasicBlockRef store = LLVMAppendBasicBlockInContext(cb->ctx, cb->fn, "store");
  LLVMBasicBlockRef exit = LLVMAppendBasicBlockInContext(cb->ctx, cb->fn, "exit");
  LLVMBuildCondBr(b, LLVMBuildICmp(b, LLVMIntULT, idx, k32(cb, items), ""), body, exit);
  LLVMPositionBuilderAtEnd(b, body);
  LLVMValueRef row = LLVMBuildUDiv(b, idx, k32(cb, per_row), "row");
  LLVMValueRef k0 = LLVMBuildMul(b, LLVMBuildURem(b, idx, k32(cb, per_row), ""), k32(cb, v), "k0");
  LLVMBuildCondBr(b, LLVMBuildICmp(b, LLVMIntULT, row, k32(cb, pb.m), ""), gather, weights);

  LLVMTypeRef et = LLVMIntTypeInContext(cb->ctx, (unsigned)(8 * es)), vt = LLVMVectorType(et, (unsigned)v);
  LLVMValueRef xs[2] = {LLVMGetUndef(vt), LLVMGetUndef(vt)};
  LLVMBasicBlockRef from[2];
  /* a patch row: by table, or (tap offsets past the table's fields) the general gather's
   * per-element tap, bounds and offset (gemm_conv.c) */
  LLVMPositionBuilderAtEnd(b, gather);
  if (table_fits(&c)) {
    xs[0] = patch_by_table(cb, k, &c, pb.k, kpad, in, row, k0, et, v, es);
  } else {
    gemm_conv_phase ph;
    gemm_conv_row r;
    gemm_conv_phase_init(cb, &c, NULL, &ph);
    gemm_conv_row_init(cb, &c, &ph, row, &r);
    for (int i = 0; i < v; i++) {
      LLVMValueRef kk = LLVMBuildAdd(b, k0, k32(cb, i), "");
      LLVMValueRef ok = LLVMBuildICmp(b, LLVMIntULT, kk, k32(cb, pb.k), "");
      LLVMValueRef off = gemm_conv_a_offset(cb, &c, &ph, &r, kk, &ok);
      xs[0] = LLVMBuildInsertElement(b, xs[0], load_or_zero(cb, et, in, off, ok, es), k32(cb, i), "");
    }
  }
  from[0] = LLVMGetInsertBlock(b);
  LLVMBuildBr(b, store);
  /* a weight row: [OC][K] copied, k past K zero */
  LLVMPositionBuilderAtEnd(b, weights);
  LLVMValueRef n = LLVMBuildSub(b, row, k32(cb, pb.m), "oc");
  for (int i = 0; i < v; i++) {
    LLVMValueRef kk = LLVMBuildAdd(b, k0, k32(cb, i), "");
    LLVMValueRef ok = LLVMBuildICmp(b, LLVMIntULT, kk, k32(cb, pb.k), "");
    LLVMValueRef off = LLVMBuildAdd(b, LLVMBuildMul(b, n, k32(cb, pb.k), ""), kk, "");
    xs[1] = LLVMBuildInsertElement(b, xs[1], load_or_zero(cb, et, w, off, ok, es), k32(cb, i), "");
  }
  from[1] = LLVMGetInsertBlock(b);
  LLVMBuildBr(b, store);
  /* one 16-byte store per work-item */
  LLVMPositionBuilderAtEnd(b, store);
  LLVMValueRef x = LLVMBuildPhi(b, vt, "x");
  LLVMAddIncoming(x, xs, from, 2);
  LLVMValueRef at = LLVMBuildAdd(b, LLVMBuildMul(b, row, k32(cb, kpad), ""), k0, "");
  at = LLVMBuildZExt(b, LLVMBuildNUWMul(b, at, k32(cb, es), ""), cb->i64, "");
  cg_store(cb, x, LLVMBuildInBoundsGEP2(b, cb->i8, LLVMGetParam(cb->fn, (unsigned)k->nin), &at, 1, ""), 16);
  LLVMBuildBr(b, exit);
  LLVMPositionBuilderAtEnd(b, exit);
  LLVMBuildRetVoid(b);
  char key[160];
  gemm_problem_key(&pb, key, sizeof key);
  snprintf(info->tuning, sizeof info->tuning, "{\"kernel\":\"im2col\",\"problem\":\"%s\",\"kpad\":%lld,"
           "\"vector_width\":%d}", key, (long long)kpad, v);
  return !cb->failed;
}
