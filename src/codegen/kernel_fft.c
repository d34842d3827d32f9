/* kernel_fft.c: the FFT family (tosa.fft2d, tosa.rfft2d) as a direct, separable DFT: one
 * work-item per output element (n, ky, kx) sums the whole H x W input, row by row, with twiddle
 * factors read from a constant table computed in double precision at compile time. */
#include "codegen.h"

#include <math.h>
#include <stdlib.h>

/* Work-items per group. A DFT output element costs H*W multiply-adds, so small groups spread
 * the few outputs of a small transform over more compute units. */
#define FFT_BLOCK 64

typedef struct fft {
  cg_builder *cb;
  const part_kernel *k;
  const op *o;
  bool real_input; /* rfft2d: no imaginary input, W/2+1 output columns */
  bool inverse;
  int64_t N, H, W, WO; /* input [N,H,W], outputs [N,H,WO] */
  LLVMTypeRef it;
} fft;

static LLVMValueRef ic(fft *F, int64_t v) { return LLVMConstInt(F->it, (unsigned long long)v, 0); }

/* Shapes and types per TOSA 1.0: f32 [N,H,W] in, f32 [N,H,W] (fft2d) or [N,H,W/2+1] (rfft2d)
 * out. Any H, W >= 1 works for a direct DFT; TOSA only uses powers of two. */
static bool describe(fft *F) {
  const op *o = F->o;
  const char *name = op_table[o->kind].name;
  F->real_input = cg_op_is(o, "tosa.rfft2d");
  int nin = F->real_input ? 1 : 2;
  if (o->noperands != nin || o->nresults != 2) {
    diag_error(F->cb->diag, o->loc, "%s: expected %d operand%s and 2 results", name, nin, nin == 1 ? "" : "s");
    return false;
  }
  const tensor_type *in = o->operands[0]->type;
  if (in->rank != 3 || in->elem != ET_F32) {
    diag_error(F->cb->diag, o->loc, "%s: the input must be a rank-3 f32 tensor [N,H,W]", name);
    return false;
  }
  F->N = in->dims[0], F->H = in->dims[1], F->W = in->dims[2];
  F->WO = F->real_input ? F->W / 2 + 1 : F->W;
  if (F->H < 1 || F->W < 1) {
    diag_error(F->cb->diag, o->loc, "%s: empty transform (H and W must be at least 1)", name);
    return false;
  }
  if (!F->real_input && !tensor_type_equal(in, o->operands[1]->type)) {
    diag_error(F->cb->diag, o->loc, "%s: the real and imaginary inputs differ in type", name);
    return false;
  }
  for (int r = 0; r < 2; r++) {
    const tensor_type *t = o->results[r]->type;
    if (t->rank != 3 || t->elem != ET_F32 || t->dims[0] != F->N || t->dims[1] != F->H || t->dims[2] != F->WO) {
      char buf[96];
      diag_error(F->cb->diag, o->loc, "%s: result %d is %s, expected tensor<%lldx%lldx%lldxf32>", name, r,
                 tensor_type_str(t, buf, sizeof buf), (long long)F->N, (long long)F->H, (long long)F->WO);
      return false;
    }
  }
  const attr *inv = op_attr(o, "inverse");
  F->inverse = inv && (inv->kind == ATTR_BOOL || inv->kind == ATTR_INT) && inv->i != 0;
  if (F->real_input)
    F->inverse = false; /* rfft2d is always forward */
  return true;
}

/* cos and sin of 2*pi*t/n, exact at the quarter turns (where the libm values are only within
 * 1e-16 of 0 and 1). */
static void unit_root(int64_t t, int64_t n, double *c, double *s) {
  t %= n;
  if ((4 * t) % n == 0) {
    static const double qc[4] = {1, 0, -1, 0}, qs[4] = {0, 1, 0, -1};
    *c = qc[4 * t / n], *s = qs[4 * t / n];
    return;
  }
  double a = 2.0 * M_PI * (double)t / (double)n;
  *c = cos(a), *s = sin(a);
}

/* The twiddle table: W entries exp(sign*2*pi*i*t/W), then H entries exp(sign*2*pi*i*t/H), each
 * as (re, im) f32 pairs, sign = -1 forward, +1 inverse (TOSA's sign_val is the opposite sign of
 * the same angle). Rounded once from double, so every factor is within 0.5 ulp. */
static LLVMValueRef twiddles(fft *F) {
  cg_builder *cb = F->cb;
  int64_t n = F->W + F->H;
  float *t = malloc(sizeof(float) * 2 * (size_t)n);
  double sign = F->inverse ? 1.0 : -1.0;
  for (int64_t i = 0; i < n; i++) {
    double c, s;
    if (i < F->W)
      unit_root(i, F->W, &c, &s);
    else
      unit_root(i - F->W, F->H, &c, &s);
    t[2 * i] = (float)c;
    t[2 * i + 1] = (float)(sign * s);
  }
  LLVMValueRef init = LLVMConstDataArray(cb->f32, (const char *)t, sizeof(float) * 2 * (size_t)n);
  free(t);
  char name[96];
  snprintf(name, sizeof name, "%s.twiddle", F->k->name);
  LLVMValueRef g = cg_const_table(cb, name, init, 16);
  return g;
}

/* A counted loop 0 .. n-1 (n >= 1) carrying a complex accumulator (re, im). */
typedef struct fft_loop {
  LLVMBasicBlockRef pre, head;
  LLVMValueRef iv, re, im;
  LLVMValueRef re0, im0;
} fft_loop;

static void loop_open(fft *F, fft_loop *L, LLVMValueRef re0, LLVMValueRef im0, const char *name) {
  cg_builder *cb = F->cb;
  L->pre = LLVMGetInsertBlock(cb->b);
  L->head = LLVMAppendBasicBlockInContext(cb->ctx, cb->fn, name);
  LLVMBuildBr(cb->b, L->head);
  LLVMPositionBuilderAtEnd(cb->b, L->head);
  L->iv = LLVMBuildPhi(cb->b, F->it, name);
  L->re = LLVMBuildPhi(cb->b, cb->f32, "re");
  L->im = LLVMBuildPhi(cb->b, cb->f32, "im");
  L->re0 = re0, L->im0 = im0;
}

static void loop_close(fft *F, fft_loop *L, int64_t n, LLVMValueRef re_next, LLVMValueRef im_next) {
  cg_builder *cb = F->cb;
  LLVMBuilderRef b = cb->b;
  LLVMBasicBlockRef latch = LLVMGetInsertBlock(b);
  LLVMValueRef next = LLVMBuildAdd(b, L->iv, ic(F, 1), "");
  LLVMBasicBlockRef end = LLVMAppendBasicBlockInContext(cb->ctx, cb->fn, "loop_end");
  LLVMBuildCondBr(b, LLVMBuildICmp(b, LLVMIntULT, next, ic(F, n), ""), L->head, end);
  LLVMBasicBlockRef from[2] = {L->pre, latch};
  LLVMValueRef iv_in[2] = {ic(F, 0), next}, re_in[2] = {L->re0, re_next}, im_in[2] = {L->im0, im_next};
  LLVMAddIncoming(L->iv, iv_in, from, 2);
  LLVMAddIncoming(L->re, re_in, from, 2);
  LLVMAddIncoming(L->im, im_in, from, 2);
  LLVMPositionBuilderAtEnd(b, end);
}

/* Twiddle entry `idx` of the table: (re, im). */
static void load_twiddle(fft *F, LLVMValueRef table, LLVMValueRef idx, LLVMValueRef *c, LLVMValueRef *s) {
  cg_builder *cb = F->cb;
  LLVMValueRef i2 = LLVMBuildShl(cb->b, idx, ic(F, 1), "");
  *c = cg_load_elem(cb, ET_F32, table, i2);
  *s = cg_load_elem(cb, ET_F32, table, LLVMBuildOr(cb->b, i2, ic(F, 1), ""));
}

/* acc + x * w for complex numbers; fused multiply-adds, so each step rounds twice. */
static void complex_mac(fft *F, LLVMValueRef ar, LLVMValueRef ai, LLVMValueRef xr, LLVMValueRef xi,
                        LLVMValueRef wr, LLVMValueRef wi, LLVMValueRef *rr, LLVMValueRef *ri) {
  cg_builder *cb = F->cb;
  LLVMTypeRef t = cb->f32;
  LLVMValueRef a[3];
  a[0] = xr, a[1] = wr, a[2] = ar;
  LLVMValueRef r = cg_intrinsic(cb, "llvm.fma", &t, 1, a, 3);
  a[0] = LLVMBuildFNeg(cb->b, xi, ""), a[1] = wi, a[2] = r;
  *rr = cg_intrinsic(cb, "llvm.fma", &t, 1, a, 3);
  a[0] = xr, a[1] = wi, a[2] = ai;
  LLVMValueRef i = cg_intrinsic(cb, "llvm.fma", &t, 1, a, 3);
  a[0] = xi, a[1] = wr, a[2] = i;
  *ri = cg_intrinsic(cb, "llvm.fma", &t, 1, a, 3);
}

bool cg_emit_fft(cg_builder *cb, const graph *g, const partition_plan *p, const part_kernel *k,
                 cg_kernel_info *info) {
  (void)g, (void)p;
  fft F = {.cb = cb, .k = k, .o = k->anchor};
  if (!k->anchor || !describe(&F)) {
    cb->failed = true;
    return false;
  }
  LLVMBuilderRef b = cb->b;
  F.it = cg_anchor_index_type(cb, k);
  /* The row index times the column index must fit too: x * kx < W * W. */
  if (F.W * F.W >= ((int64_t)1 << 30) || F.H * F.H >= ((int64_t)1 << 30))
    F.it = cb->i64;
  LLVMValueRef oc[TOSAC_MAX_RANK], linear;
  LLVMBasicBlockRef exit = cg_anchor_kernel_begin(cb, k, FFT_BLOCK, F.it, oc, &linear, info);
  if (!exit) {
    cb->failed = true;
    return false;
  }
  LLVMValueRef in_re = cg_operand_ptr(cb, k, F.o->operands[0]);
  LLVMValueRef in_im = F.real_input ? NULL : cg_operand_ptr(cb, k, F.o->operands[1]);
  if (!in_re || (!F.real_input && !in_im)) {
    cb->failed = true;
    return false;
  }
  LLVMValueRef table = twiddles(&F);
  LLVMValueRef zero = LLVMConstReal(cb->f32, 0.0);
  LLVMValueRef ky = oc[1], kx = oc[2];
  LLVMValueRef plane = LLVMBuildMul(b, oc[0], ic(&F, F.H * F.W), "plane");

  /* sum over rows y of exp(sign*2*pi*i*(y*ky mod H)/H) * (sum over x of in[y,x] * exp(... x*kx mod W / W)) */
  fft_loop Y, X;
  loop_open(&F, &Y, zero, zero, "y");
  LLVMValueRef row = LLVMBuildAdd(b, plane, LLVMBuildMul(b, Y.iv, ic(&F, F.W), ""), "row");
  loop_open(&F, &X, zero, zero, "x");
  LLVMValueRef off = LLVMBuildAdd(b, row, X.iv, "");
  LLVMValueRef xr = cg_load_elem(cb, ET_F32, in_re, off);
  LLVMValueRef xi = F.real_input ? NULL : cg_load_elem(cb, ET_F32, in_im, off);
  LLVMValueRef tx = LLVMBuildURem(b, LLVMBuildMul(b, X.iv, kx, ""), ic(&F, F.W), "");
  LLVMValueRef wr, wi, sr, si;
  load_twiddle(&F, table, tx, &wr, &wi);
  if (F.real_input) {
    LLVMTypeRef t = cb->f32;
    LLVMValueRef a[3] = {xr, wr, X.re};
    sr = cg_intrinsic(cb, "llvm.fma", &t, 1, a, 3);
    a[1] = wi, a[2] = X.im;
    si = cg_intrinsic(cb, "llvm.fma", &t, 1, a, 3);
  } else {
    complex_mac(&F, X.re, X.im, xr, xi, wr, wi, &sr, &si);
  }
  if (!sr || !si) {
    cb->failed = true;
    return false;
  }
  loop_close(&F, &X, F.W, sr, si);
  LLVMValueRef ty = LLVMBuildURem(b, LLVMBuildMul(b, Y.iv, ky, ""), ic(&F, F.H), "");
  LLVMValueRef vr, vi, re, im;
  load_twiddle(&F, table, LLVMBuildAdd(b, ty, ic(&F, F.W), ""), &vr, &vi);
  complex_mac(&F, Y.re, Y.im, sr, si, vr, vi, &re, &im);
  if (!re || !im) {
    cb->failed = true;
    return false;
  }
  loop_close(&F, &Y, F.H, re, im);

  for (int i = 0; i < k->nout; i++) {
    const value *v = k->out_vals[i];
    LLVMValueRef x = v == F.o->results[0] ? re : v == F.o->results[1] ? im : NULL;
    if (!x) {
      diag_error_noloc(cb->diag, "kernel '%s': output %%%s is not a result of %s", k->name, VALUE_NAME(v),
                       op_table[F.o->kind].name);
      cb->failed = true;
      return false;
    }
    LLVMValueRef ptr = LLVMBuildInBoundsGEP2(b, cb->f32, LLVMGetParam(cb->fn, (unsigned)(k->nin + i)), &linear, 1, "");
    cg_store(cb, x, ptr, 4);
  }
  LLVMBuildBr(b, exit);
  return !cb->failed;
}
