/* ew_ops.c: scalar semantics of the elementwise TOSA ops, matching MLIR's tosa-to-linalg and
 * tosa-to-arith lowering (the oracle) bit for bit where the oracle is deterministic. */
#include "codegen.h"
#include "ew_math.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* ---------------------------------------------------------------- compile-time constants */

const dense_data *cg_const_data(const value *v) {
  if (!v || !v->def)
    return NULL;
  const op *o = v->def;
  if (op_table[o->kind].family != FAM_CONST)
    return NULL;
  for (int i = 0; i < o->nattrs; i++)
    if (op_attrs(o)[i].kind == ATTR_DENSE && op_attrs(o)[i].dense)
      return op_attrs(o)[i].dense;
  return NULL;
}

static double half_to_double(uint16_t h) {
  int e = (h >> 10) & 31, m = h & 1023;
  double s = (h & 0x8000) ? -1.0 : 1.0;
  if (e == 0)
    return s * ldexp(m, -24);
  if (e == 31)
    return m ? NAN : s * INFINITY;
  return s * ldexp(1024 + m, e - 25);
}

bool cg_dense_int(const dense_data *d, int64_t idx, int64_t *out) {
  int nb = elem_type_bytes(d->type.elem);
  if (!elem_type_is_int(d->type.elem) || nb > 8)
    return false;
  size_t off = d->splat ? 0 : (size_t)idx * (size_t)nb;
  if (off + (size_t)nb > d->nbytes)
    return false;
  uint64_t u = 0;
  memcpy(&u, d->bytes + off, (size_t)nb); /* little-endian host */
  int bits = nb * 8;
  if (d->type.elem == ET_I1)
    *out = u != 0;
  else
    *out = bits == 64 ? (int64_t)u : (int64_t)(u << (64 - bits)) >> (64 - bits);
  return true;
}

bool cg_dense_float(const dense_data *d, int64_t idx, double *out) {
  int nb = elem_type_bytes(d->type.elem);
  size_t off = d->splat ? 0 : (size_t)idx * (size_t)nb;
  if (!elem_type_is_float(d->type.elem) || off + (size_t)nb > d->nbytes)
    return false;
  uint16_t h;
  uint32_t w;
  float f;
  switch (d->type.elem) {
  case ET_F16: memcpy(&h, d->bytes + off, 2); *out = half_to_double(h); return true;
  case ET_BF16:
    memcpy(&h, d->bytes + off, 2);
    w = (uint32_t)h << 16;
    memcpy(&f, &w, 4);
    *out = f;
    return true;
  case ET_F32: memcpy(&f, d->bytes + off, 4); *out = f; return true;
  case ET_F64: memcpy(out, d->bytes + off, 8); return true;
  default: return false;
  }
}

/* An integer parameter given either as a constant operand (TOSA 1.0: mul's shift, negate's zero
 * points) or as an attribute (older dialect versions). */
static int64_t int_param(const op *o, int operand, const char *attr_name) {
  int64_t v = 0;
  if (operand < o->noperands) {
    const dense_data *d = cg_const_data(o->operands[operand]);
    if (d && cg_dense_int(d, 0, &v))
      return v;
  }
  return op_attr_int(o, attr_name, 0);
}

/* ---------------------------------------------------------------- helpers */

typedef struct ew {
  cg_builder *cb;
  LLVMBuilderRef b;
} ew;

static LLVMValueRef call1(ew *e, const char *name, LLVMValueRef x) {
  LLVMTypeRef t = LLVMTypeOf(x);
  return cg_intrinsic(e->cb, name, &t, 1, &x, 1);
}

static LLVMValueRef call2(ew *e, const char *name, LLVMValueRef x, LLVMValueRef y) {
  LLVMTypeRef t = LLVMTypeOf(x);
  LLVMValueRef a[2] = {x, y};
  return cg_intrinsic(e->cb, name, &t, 1, a, 2);
}

static LLVMValueRef fconst(LLVMValueRef like, double v) { return LLVMConstReal(LLVMTypeOf(like), v); }

static bool is_narrow_float(elem_type t) { return t == ET_F16 || t == ET_BF16; }

/* f16/bf16 operations that are not exact in the narrow type are computed in f32 and rounded
 * once, which is what the host oracle does (it promotes them) and is correctly rounded. */
static LLVMValueRef widen(ew *e, LLVMValueRef x, elem_type t) {
  return is_narrow_float(t) ? LLVMBuildFPExt(e->b, x, e->cb->f32, "") : x;
}
static LLVMValueRef narrow(ew *e, LLVMValueRef x, elem_type t) {
  return is_narrow_float(t) ? LLVMBuildFPTrunc(e->b, x, cg_elem_type(e->cb, t), "") : x;
}

static LLVMValueRef horner(ew *e, LLVMValueRef u, const float *c, int n) {
  LLVMValueRef r = fconst(u, c[n - 1]);
  for (int i = n - 2; i >= 0; i--)
    r = LLVMBuildFAdd(e->b, LLVMBuildFMul(e->b, r, u, ""), fconst(u, c[i]), "");
  return r;
}

static LLVMValueRef smax(ew *e, LLVMValueRef a, LLVMValueRef b) {
  return LLVMBuildSelect(e->b, LLVMBuildICmp(e->b, LLVMIntSGT, a, b, ""), a, b, "");
}
static LLVMValueRef smin(ew *e, LLVMValueRef a, LLVMValueRef b) {
  return LLVMBuildSelect(e->b, LLVMBuildICmp(e->b, LLVMIntSLT, a, b, ""), a, b, "");
}

/* ---------------------------------------------------------------- f32 math without libm */

/* tanh: odd minimax-style polynomial below 1 (fitted on Chebyshev nodes), 1 - 2/(e^2|x|+1)
 * above; at most 1 ulp from the correctly rounded value in a host sweep. */
static const float tanh_poly[] = {-0.3333333432674408f,   0.13333314657211304f,
                                  -0.053963955491781235f, 0.02183222770690918f,
                                  -0.008704506792128086f, 0.003215577220544219f,
                                  -0.0009293564944528043f, 0.00014435197226703167f};

static LLVMValueRef tanh_f32(ew *e, LLVMValueRef x) {
  LLVMBuilderRef b = e->b;
  LLVMValueRef a = call1(e, "llvm.fabs", x);
  LLVMValueRef u = LLVMBuildFMul(b, x, x, "");
  LLVMValueRef p = horner(e, u, tanh_poly, 8);
  LLVMValueRef small = LLVMBuildFAdd(b, x, LLVMBuildFMul(b, LLVMBuildFMul(b, x, u, ""), p, ""), "");
  LLVMValueRef ex = call1(e, "llvm.exp", LLVMBuildFMul(b, a, fconst(x, 2.0), ""));
  LLVMValueRef q = LLVMBuildFDiv(b, fconst(x, 2.0), LLVMBuildFAdd(b, ex, fconst(x, 1.0), ""), "");
  LLVMValueRef large = call2(e, "llvm.copysign", LLVMBuildFSub(b, fconst(x, 1.0), q, ""), x);
  LLVMValueRef is_small = LLVMBuildFCmp(b, LLVMRealOLT, a, fconst(x, 1.0), "");
  return LLVMBuildSelect(b, is_small, small, large, "");
}

/* erf: x*P(x^2) below 1; 1 - e^-x^2 * Q(1/x) on [1,4); +-1 beyond (erfc(4) < half an ulp of 1).
 * Within 2 ulp of the correctly rounded value in a host sweep. */
static const float erf_poly[] = {1.128379225730896f,     -0.3761262893676758f,
                                 0.11283612251281738f,   -0.026854809373617172f,
                                 0.00519005348905921f,   -0.0008024353883229196f,
                                 7.898209878476337e-05f};
static const float erfc_poly[] = {2.596134800114669e-05f, 0.5637192130088806f,
                                  0.0030154583510011435f, -0.2851863205432892f,
                                  -0.06926850974559784f,  0.8994859457015991f,
                                  -1.524053931236267f,    1.4240049123764038f,
                                  -0.8106041550636292f,   0.26466262340545654f,
                                  -0.03821760416030884f};

static LLVMValueRef erf_f32(ew *e, LLVMValueRef x) {
  LLVMBuilderRef b = e->b;
  LLVMValueRef a = call1(e, "llvm.fabs", x);
  LLVMValueRef u = LLVMBuildFMul(b, x, x, "");
  LLVMValueRef small = LLVMBuildFMul(b, x, horner(e, u, erf_poly, 7), "");
  LLVMValueRef t = LLVMBuildFDiv(b, fconst(x, 1.0), a, "");
  LLVMValueRef q = horner(e, t, erfc_poly, 11);
  LLVMValueRef ex = call1(e, "llvm.exp", LLVMBuildFNeg(b, u, ""));
  LLVMValueRef mid = LLVMBuildFSub(b, fconst(x, 1.0), LLVMBuildFMul(b, ex, q, ""), "");
  LLVMValueRef big = LLVMBuildSelect(b, LLVMBuildFCmp(b, LLVMRealOGE, a, fconst(x, 4.0), ""),
                                     fconst(x, 1.0), mid, "");
  big = call2(e, "llvm.copysign", big, x);
  LLVMValueRef is_small = LLVMBuildFCmp(b, LLVMRealOLT, a, fconst(x, 1.0), "");
  return LLVMBuildSelect(b, is_small, small, big, "");
}

/* ---------------------------------------------------------------- cast */

static int mantissa_bits(elem_type t) { return t == ET_F16 ? 11 : t == ET_BF16 ? 8 : t == ET_F64 ? 53 : 24; }
static int max_exponent(elem_type t) { return t == ET_F16 ? 15 : t == ET_F64 ? 1023 : 127; }

/* float -> int as MLIR lowers it: round half to even, then one of three saturation schemes
 * depending on which integer limits the float type can represent. NaN results follow the
 * oracle on x86 (where MLIR's own result is target-defined). */
static LLVMValueRef float_to_int(ew *e, LLVMValueRef x, elem_type st, elem_type dt) {
  LLVMBuilderRef b = e->b;
  LLVMTypeRef it = cg_elem_type(e->cb, dt);
  int bits = elem_type_bits(dt);
  double imin = -ldexp(1.0, bits - 1), imax = ldexp(1.0, bits - 1) - 1;
  LLVMValueRef r = call1(e, "llvm.roundeven", x);
  LLVMValueRef cmin = LLVMConstInt(it, (unsigned long long)(int64_t)imin, 1);
  LLVMValueRef cmax = LLVMConstInt(it, (unsigned long long)(int64_t)imax, 1);
  LLVMValueRef isnan = LLVMBuildFCmp(b, LLVMRealUNO, r, r, "");
  if (bits - 1 > max_exponent(st)) {
    /* every finite value fits; infinities saturate, NaN gives INT_MIN like cvttss2si */
    LLVMValueRef safe = LLVMBuildSelect(b, LLVMBuildFCmp(b, LLVMRealONE, call1(e, "llvm.fabs", r),
                                                         fconst(r, INFINITY), ""),
                                        r, fconst(r, 0.0), "");
    LLVMValueRef conv = LLVMBuildFPToSI(b, safe, it, "");
    conv = LLVMBuildSelect(b, LLVMBuildFCmp(b, LLVMRealOEQ, r, fconst(r, INFINITY), ""), cmax, conv, "");
    conv = LLVMBuildSelect(b, LLVMBuildFCmp(b, LLVMRealOEQ, r, fconst(r, -INFINITY), ""), cmin, conv, "");
    return LLVMBuildSelect(b, isnan, cmin, conv, "");
  }
  if (mantissa_bits(st) >= bits - 1) {
    /* both limits exact: clamp (NaN propagates through minimum/maximum, then becomes 0) */
    LLVMValueRef c = call2(e, "llvm.minimum", r, fconst(r, imax));
    c = call2(e, "llvm.maximum", c, fconst(r, imin));
    LLVMValueRef safe = LLVMBuildSelect(b, isnan, fconst(r, 0.0), c, "");
    return LLVMBuildFPToSI(b, safe, it, "");
  }
  /* INT_MAX not representable: clamp below, compare against INT_MAX+1 (unordered: NaN too) */
  LLVMValueRef lo = call2(e, "llvm.maximum", r, fconst(r, imin));
  LLVMValueRef over = LLVMBuildFCmp(b, LLVMRealUGE, r, fconst(r, imax + 1.0), "");
  LLVMValueRef safe = LLVMBuildSelect(b, over, fconst(r, 0.0), lo, "");
  return LLVMBuildSelect(b, over, cmax, LLVMBuildFPToSI(b, safe, it, ""), "");
}

static LLVMValueRef emit_cast(ew *e, LLVMValueRef x, elem_type st, elem_type dt) {
  if (st == dt)
    return x;
  /* 8-bit floats are their codes (i8) in registers; every f8 value is exact in f32, and so is
   * every integer that does not overflow f8, so going through f32 rounds once */
  if (elem_type_is_f8(st))
    return emit_cast(e, cg_f8_to_f32(e->cb, x, st), ET_F32, dt);
  if (elem_type_is_f8(dt))
    return cg_f32_to_f8(e->cb, emit_cast(e, x, st, ET_F32), dt);
  LLVMBuilderRef b = e->b;
  LLVMTypeRef dty = cg_elem_type(e->cb, dt);
  bool sf = elem_type_is_float(st), df = elem_type_is_float(dt);
  if (dt == ET_I1)
    return sf ? LLVMBuildFCmp(b, LLVMRealUNE, x, fconst(x, 0.0), "")
              : LLVMBuildICmp(b, LLVMIntNE, x, LLVMConstNull(LLVMTypeOf(x)), "");
  if (st == ET_I1)
    return df ? LLVMBuildUIToFP(b, x, dty, "") : LLVMBuildZExt(b, x, dty, "");
  if (sf && df) {
    if (elem_type_bits(st) == elem_type_bits(dt)) /* f16 <-> bf16 through f32 */
      return LLVMBuildFPTrunc(b, LLVMBuildFPExt(b, x, e->cb->f32, ""), dty, "");
    return elem_type_bits(st) < elem_type_bits(dt) ? LLVMBuildFPExt(b, x, dty, "")
                                                   : LLVMBuildFPTrunc(b, x, dty, "");
  }
  if (!sf && df)
    return LLVMBuildSIToFP(b, x, dty, "");
  if (sf && !df)
    return float_to_int(e, x, st, dt);
  return elem_type_bits(st) < elem_type_bits(dt) ? LLVMBuildSExt(b, x, dty, "")
                                                 : LLVMBuildTrunc(b, x, dty, "");
}

/* ---------------------------------------------------------------- the ops */

static LLVMValueRef int_negate(ew *e, const op *o, LLVMValueRef x, elem_type t) {
  int bits = elem_type_bits(t);
  LLVMTypeRef it = cg_elem_type(e->cb, t);
  LLVMTypeRef wide = bits >= 32 ? e->cb->i64 : bits >= 16 ? e->cb->i32 : e->cb->i16;
  int64_t zp = int_param(o, 1, "input1_zp") + int_param(o, 2, "output_zp");
  LLVMValueRef r = LLVMBuildSub(e->b, LLVMConstInt(wide, (unsigned long long)zp, 1),
                                LLVMBuildSExt(e->b, x, wide, ""), "");
  int64_t lo = -((int64_t)1 << (bits - 1)), hi = ((int64_t)1 << (bits - 1)) - 1;
  r = smax(e, LLVMConstInt(wide, (unsigned long long)lo, 1), r);
  r = smin(e, LLVMConstInt(wide, (unsigned long long)hi, 1), r);
  return LLVMBuildTrunc(e->b, r, it, "");
}

static LLVMValueRef int_mul(ew *e, const op *o, LLVMValueRef x, LLVMValueRef y, elem_type rt) {
  LLVMBuilderRef b = e->b;
  LLVMTypeRef rty = cg_elem_type(e->cb, rt);
  int64_t shift = rt == ET_I32 ? int_param(o, 2, "shift") : 0;
  if (shift <= 0)
    return LLVMBuildMul(b, LLVMBuildSExt(b, x, rty, ""), LLVMBuildSExt(b, y, rty, ""), "");
  /* TOSA's rounding right shift with a 64-bit intermediate */
  LLVMValueRef p = LLVMBuildMul(b, LLVMBuildSExt(b, x, e->cb->i64, ""),
                                LLVMBuildSExt(b, y, e->cb->i64, ""), "");
  p = LLVMBuildAdd(b, p, LLVMConstInt(e->cb->i64, 1ull << (shift - 1), 0), "");
  p = LLVMBuildAShr(b, p, LLVMConstInt(e->cb->i64, (unsigned long long)shift, 0), "");
  return LLVMBuildTrunc(b, p, rty, "");
}

static LLVMValueRef clamp_bound(ew *e, const op *o, const char *name, elem_type t) {
  const attr *a = op_attr(o, name);
  if (elem_type_is_float(t))
    return cg_const_float(e->cb, t, !a ? 0.0 : a->kind == ATTR_FLOAT ? a->f : (double)a->i);
  return cg_const_int(e->cb, t, !a ? 0 : a->kind == ATTR_INT ? a->i : (int64_t)a->f);
}

static bool nan_ignore(const op *o) {
  const attr *a = op_attr(o, "nan_mode");
  return a && a->s && strcmp(a->s, "IGNORE") == 0;
}


/* ---------------------------------------------------------------- integer and logical ops */

static bool attr_bool(const op *o, const char *name) {
  const attr *a = op_attr(o, name);
  if (!a)
    return false;
  if (a->kind == ATTR_STR && a->s)
    return strcmp(a->s, "true") == 0;
  return a->i != 0;
}

/* Shifts by an amount outside [0, bits) are an ERROR in TOSA and poison in the oracle's
 * arith.shli/shrui/shrsi; tosac defines them (amount read unsigned): logical shifts give 0,
 * the arithmetic shift fills with the sign. No poison reaches the GPU. */
static LLVMValueRef shift_op(ew *e, op_kind k, LLVMValueRef x, LLVMValueRef s, bool round) {
  LLVMBuilderRef b = e->b;
  LLVMTypeRef t = LLVMTypeOf(x);
  unsigned bits = LLVMGetIntTypeWidth(t);
  LLVMValueRef zero = LLVMConstNull(t), one = LLVMConstInt(t, 1, 0);
  LLVMValueRef in_range = LLVMBuildICmp(b, LLVMIntULT, s, LLVMConstInt(t, bits, 0), "");
  LLVMValueRef safe = LLVMBuildSelect(b, in_range, s, LLVMConstInt(t, bits - 1, 0), "");
  if (k == OP_LOGICAL_LEFT_SHIFT)
    return LLVMBuildSelect(b, in_range, LLVMBuildShl(b, x, safe, ""), zero, "");
  if (k == OP_LOGICAL_RIGHT_SHIFT)
    return LLVMBuildSelect(b, in_range, LLVMBuildLShr(b, x, safe, ""), zero, "");
  LLVMValueRef r = LLVMBuildAShr(b, x, safe, "");
  if (!round)
    return r;
  /* round: add the last bit shifted out (x >> (s-1)) & 1 when s > 0, as MLIR lowers it */
  LLVMValueRef pos = LLVMBuildICmp(b, LLVMIntNE, safe, zero, "");
  LLVMValueRef sm1 = LLVMBuildSelect(b, pos, LLVMBuildSub(b, safe, one, ""), zero, "");
  LLVMValueRef bit = LLVMBuildAnd(b, LLVMBuildAShr(b, x, sm1, ""), one, "");
  return LLVMBuildAdd(b, r, LLVMBuildSelect(b, pos, bit, zero, ""), "");
}

/* Division truncating toward zero (arith.divsi). Defined where TOSA says ERROR (LLVM: UB, x86:
 * a trap): x / 0 = x (divides by 1), INT_MIN / -1 wraps to INT_MIN (computed as 0 - x). */
static LLVMValueRef int_div(ew *e, LLVMValueRef x, LLVMValueRef y) {
  LLVMBuilderRef b = e->b;
  LLVMTypeRef t = LLVMTypeOf(x);
  LLVMValueRef m1 = LLVMConstAllOnes(t);
  LLVMValueRef special = LLVMBuildOr(b, LLVMBuildICmp(b, LLVMIntEQ, y, LLVMConstNull(t), ""),
                                     LLVMBuildICmp(b, LLVMIntEQ, y, m1, ""), "");
  LLVMValueRef d = LLVMBuildSelect(b, special, LLVMConstInt(t, 1, 0), y, "");
  LLVMValueRef q = LLVMBuildSDiv(b, x, d, "");
  LLVMValueRef neg = LLVMBuildSub(b, LLVMConstNull(t), x, "");
  return LLVMBuildSelect(b, LLVMBuildICmp(b, LLVMIntEQ, y, m1, ""), neg, q, "");
}

/* TABLE (MLIR's TableConverter): i8 -> i8 lookup at x + 128; i16 -> i32 with 7-bit linear
 * interpolation between table[x+32768 >> 7] and the next entry (513-entry table). `tab` is a
 * pointer to the table's elements. */
static LLVMValueRef table_op(ew *e, const op *o, LLVMValueRef x, LLVMValueRef tab) {
  LLVMBuilderRef b = e->b;
  cg_builder *cb = e->cb;
  elem_type tt = o->operands[1]->type->elem;
  LLVMTypeRef et = cg_elem_type(cb, tt);
  LLVMValueRef xi = LLVMBuildSExt(b, x, cb->i32, "");
  if (o->operands[0]->type->elem == ET_I8) {
    LLVMValueRef idx = LLVMBuildAdd(b, xi, LLVMConstInt(cb->i32, 128, 0), "");
    LLVMValueRef p = LLVMBuildInBoundsGEP2(b, et, tab, &idx, 1, "");
    return cg_load(cb, et, p, (unsigned)elem_type_bytes(tt));
  }
  LLVMValueRef v = LLVMBuildAdd(b, xi, LLVMConstInt(cb->i32, 32768, 0), "");
  LLVMValueRef idx = LLVMBuildLShr(b, v, LLVMConstInt(cb->i32, 7, 0), "");
  LLVMValueRef frac = LLVMBuildAnd(b, v, LLVMConstInt(cb->i32, 127, 0), "");
  LLVMValueRef idx1 = LLVMBuildAdd(b, idx, LLVMConstInt(cb->i32, 1, 0), "");
  LLVMValueRef base = LLVMBuildSExt(b, cg_load(cb, et, LLVMBuildInBoundsGEP2(b, et, tab, &idx, 1, ""), 2),
                                    cb->i32, "");
  LLVMValueRef next = LLVMBuildSExt(b, cg_load(cb, et, LLVMBuildInBoundsGEP2(b, et, tab, &idx1, 1, ""), 2),
                                    cb->i32, "");
  LLVMValueRef r = LLVMBuildShl(b, base, LLVMConstInt(cb->i32, 7, 0), "");
  r = LLVMBuildAdd(b, r, LLVMBuildMul(b, LLVMBuildSub(b, next, base, ""), frac, ""), "");
  return LLVMBuildTrunc(b, r, cg_elem_type(cb, o->results[0]->type->elem), "");
}

/* A per-channel parameter array as an internal constant i32 global (one per op and name). */
static LLVMValueRef channel_array(ew *e, const op *o, const char *what, const attr *a) {
  char name[64];
  snprintf(name, sizeof name, "tosac.rescale%d.%s", o->id, what);
  LLVMValueRef g = LLVMGetNamedGlobal(e->cb->mod, name);
  if (g)
    return g;
  LLVMValueRef *vals = malloc(sizeof(LLVMValueRef) * (size_t)(a->n ? a->n : 1));
  for (int i = 0; i < a->n; i++)
    vals[i] = LLVMConstInt(e->cb->i32, (unsigned long long)a->ints[i], 1);
  LLVMValueRef init = LLVMConstArray2(e->cb->i32, vals, (uint64_t)a->n);
  free(vals);
  g = LLVMAddGlobalInAddressSpace(e->cb->mod, LLVMTypeOf(init), name, 4);
  LLVMSetInitializer(g, init);
  LLVMSetLinkage(g, LLVMInternalLinkage);
  LLVMSetGlobalConstant(g, 1);
  LLVMSetAlignment(g, 4);
  return g;
}

static int64_t first_int(const attr *a) {
  if (!a)
    return 0;
  if (a->kind == ATTR_INTS)
    return a->n > 0 ? a->ints[0] : 0;
  return a->i;
}

/* RESCALE as MLIR's RescaleConverter + tosa.apply_scale (64-bit form) compute it: extend the
 * input (zero-extend if input_unsigned), subtract input_zp in 32 bits (64 for i48), multiply
 * in 64 bits, add (1 << shift) >> 1 (and +-2^30 when DOUBLE_ROUND and shift > 31), shift right
 * arithmetically, truncate to 32 bits, add output_zp, saturate to the output range (unsigned
 * if output_unsigned). Zero points of unsigned sides are read unsigned. With per_channel,
 * `chan` is the element's index along the last dimension. */
static LLVMValueRef rescale_op(ew *e, const op *o, LLVMValueRef x, LLVMValueRef chan) {
  LLVMBuilderRef b = e->b;
  cg_builder *cb = e->cb;
  elem_type it = o->operands[0]->type->elem, rt = o->results[0]->type->elem;
  int ibits = elem_type_bits(it), obits = elem_type_bits(rt);
  bool in_u = attr_bool(o, "input_unsigned"), out_u = attr_bool(o, "output_unsigned");
  const attr *ra = op_attr(o, "rounding_mode");
  bool dbl = (ra && ra->s && strcmp(ra->s, "DOUBLE_ROUND") == 0) || attr_bool(o, "double_round");
  int64_t izp = op_attr_int(o, "input_zp", 0), ozp = op_attr_int(o, "output_zp", 0);
  if (in_u && ibits < 32)
    izp &= ((int64_t)1 << ibits) - 1;
  if (out_u && obits < 32)
    ozp &= ((int64_t)1 << obits) - 1;
  LLVMTypeRef vt = ibits > 32 ? cb->i64 : cb->i32;
  LLVMValueRef v = x;
  if (ibits < 32)
    v = in_u ? LLVMBuildZExt(b, x, vt, "") : LLVMBuildSExt(b, x, vt, "");
  else if (ibits > 32 && ibits < 64)
    v = LLVMBuildSExt(b, x, vt, "");
  v = LLVMBuildSub(b, v, LLVMConstInt(vt, (unsigned long long)izp, 1), "");

  const attr *ma = op_attr(o, "multiplier"), *sa = op_attr(o, "shift");
  LLVMValueRef mult, shift;
  bool per_channel = attr_bool(o, "per_channel") && ma && ma->kind == ATTR_INTS && ma->n > 1 && chan;
  if (per_channel) {
    LLVMValueRef c = LLVMBuildZExtOrBitCast(b, chan, cb->i32, "");
    if (LLVMGetIntTypeWidth(LLVMTypeOf(chan)) > 32)
      c = LLVMBuildTrunc(b, chan, cb->i32, "");
    LLVMValueRef mg = channel_array(e, o, "multiplier", ma), sg = channel_array(e, o, "shift", sa);
    mult = cg_load(cb, cb->i32, LLVMBuildInBoundsGEP2(b, cb->i32, mg, &c, 1, ""), 4);
    shift = cg_load(cb, cb->i32, LLVMBuildInBoundsGEP2(b, cb->i32, sg, &c, 1, ""), 4);
    /* the oracle reads the shift as i8 zero-extended */
    shift = LLVMBuildAnd(b, shift, LLVMConstInt(cb->i32, 255, 0), "");
  } else {
    mult = LLVMConstInt(cb->i32, (unsigned long long)first_int(ma), 1);
    shift = LLVMConstInt(cb->i32, (unsigned long long)(first_int(sa) & 255), 0);
  }
  LLVMValueRef v64 = vt == cb->i64 ? v : LLVMBuildSExt(b, v, cb->i64, "");
  LLVMValueRef p = LLVMBuildMul(b, v64, LLVMBuildSExt(b, mult, cb->i64, ""), "");
  LLVMValueRef sh64 = LLVMBuildZExt(b, shift, cb->i64, "");
  LLVMValueRef one64 = LLVMConstInt(cb->i64, 1, 0);
  LLVMValueRef round = LLVMBuildLShr(b, LLVMBuildShl(b, one64, sh64, ""), one64, "");
  p = LLVMBuildAdd(b, p, round, "");
  if (dbl) {
    LLVMValueRef dir = LLVMBuildSelect(b, LLVMBuildICmp(b, LLVMIntSGE, v, LLVMConstNull(vt), ""),
                                       LLVMConstInt(cb->i64, 1u << 30, 1),
                                       LLVMConstInt(cb->i64, (unsigned long long)-(1ll << 30), 1), "");
    LLVMValueRef big = LLVMBuildICmp(b, LLVMIntSGT, shift, LLVMConstInt(cb->i32, 31, 0), "");
    p = LLVMBuildSelect(b, big, LLVMBuildAdd(b, p, dir, ""), p, "");
  }
  LLVMValueRef r = LLVMBuildTrunc(b, LLVMBuildAShr(b, p, sh64, ""), cb->i32, "");
  r = LLVMBuildAdd(b, r, LLVMConstInt(cb->i32, (unsigned long long)ozp, 1), "");
  int64_t lo = -((int64_t)1 << (obits - 1)), hi = ((int64_t)1 << (obits - 1)) - 1;
  if (out_u)
    lo = 0, hi = obits >= 32 ? -1 : ((int64_t)1 << obits) - 1;
  if (obits < 32 || out_u) {
    r = smax(e, r, LLVMConstInt(cb->i32, (unsigned long long)lo, 1));
    r = smin(e, r, LLVMConstInt(cb->i32, (unsigned long long)hi, 1));
  }
  LLVMTypeRef ot = cg_elem_type(cb, rt);
  return obits < 32 ? LLVMBuildTrunc(b, r, ot, "") : obits > 32 ? LLVMBuildSExt(b, r, ot, "") : r;
}

/* The ops added for issue 8; NULL with *handled false if o is none of them. */
static LLVMValueRef more_ops(ew *e, const op *o, LLVMValueRef *x, bool *handled) {
  LLVMBuilderRef b = e->b;
  cg_builder *cb = e->cb;
  elem_type it = o->operands[0]->type->elem;
  *handled = true;
  switch (o->kind) {
  case OP_BITWISE_AND:
  case OP_LOGICAL_AND: return LLVMBuildAnd(b, x[0], x[1], "");
  case OP_BITWISE_OR:
  case OP_LOGICAL_OR: return LLVMBuildOr(b, x[0], x[1], "");
  case OP_BITWISE_XOR:
  case OP_LOGICAL_XOR: return LLVMBuildXor(b, x[0], x[1], "");
  case OP_BITWISE_NOT:
  case OP_LOGICAL_NOT: return LLVMBuildNot(b, x[0], "");
  case OP_LOGICAL_LEFT_SHIFT:
  case OP_LOGICAL_RIGHT_SHIFT:
  case OP_ARITHMETIC_RIGHT_SHIFT:
    return shift_op(e, o->kind, x[0], x[1], o->kind == OP_ARITHMETIC_RIGHT_SHIFT && attr_bool(o, "round"));
  case OP_CLZ: {
    LLVMTypeRef t = LLVMTypeOf(x[0]);
    LLVMValueRef a[2] = {x[0], LLVMConstInt(cb->i1, 0, 0)};
    return cg_intrinsic(cb, "llvm.ctlz", &t, 1, a, 2);
  }
  case OP_INTDIV: return int_div(e, x[0], x[1]);
  case OP_TABLE: return table_op(e, o, x[0], x[1]);
  case OP_RESCALE: return rescale_op(e, o, x[0], attr_bool(o, "per_channel") ? x[1] : NULL);
  case OP_SIN:
  case OP_COS:
  case OP_POW: {
    if (it == ET_F64) {
      diag_error_noloc(cb->diag, "%s on f64 is not supported by the AMDGPU code generator",
                       op_table[o->kind].name);
      cb->failed = true;
      return NULL;
    }
    LLVMValueRef w = widen(e, x[0], it), r;
    if (o->kind == OP_SIN)
      r = cg_math_sin_f32(cb, w);
    else if (o->kind == OP_COS)
      r = cg_math_cos_f32(cb, w);
    else
      r = cg_math_pow_f32(cb, w, widen(e, x[1], it));
    return narrow(e, r, it);
  }
  default: *handled = false; return NULL;
  }
}

/* Operand conventions beyond the op's data operands: for tosa.table, operands[1] is a pointer
 * to the table's elements (global or constant address space); for tosa.rescale with
 * per_channel, operands[1] is the element's index along the last dimension (any integer type). */
LLVMValueRef cg_ew_op(cg_builder *cb, const op *o, LLVMValueRef *x) {
  ew E = {cb, cb->b}, *e = &E;
  LLVMBuilderRef b = cb->b;
  elem_type it = o->operands[0]->type->elem, rt = o->results[0]->type->elem;
  bool fl = elem_type_is_float(it);
  bool f64 = it == ET_F64;
  switch (o->kind) {
  case OP_ADD: return fl ? LLVMBuildFAdd(b, x[0], x[1], "") : LLVMBuildAdd(b, x[0], x[1], "");
  case OP_SUB: return fl ? LLVMBuildFSub(b, x[0], x[1], "") : LLVMBuildSub(b, x[0], x[1], "");
  case OP_MUL: return fl ? LLVMBuildFMul(b, x[0], x[1], "") : int_mul(e, o, x[0], x[1], rt);
  case OP_MAXIMUM:
    if (fl)
      return call2(e, nan_ignore(o) ? "llvm.maxnum" : "llvm.maximum", x[0], x[1]);
    return smax(e, x[0], x[1]);
  case OP_MINIMUM:
    if (fl)
      return call2(e, nan_ignore(o) ? "llvm.minnum" : "llvm.minimum", x[0], x[1]);
    return smin(e, x[0], x[1]);
  case OP_CLAMP: {
    LLVMValueRef lo = clamp_bound(e, o, "min_val", it), hi = clamp_bound(e, o, "max_val", it);
    if (!fl)
      return smin(e, hi, smax(e, lo, x[0]));
    if (nan_ignore(o)) /* NaN inputs clamp to min_val */
      return LLVMBuildSelect(b, LLVMBuildFCmp(b, LLVMRealUNO, x[0], x[0], ""), lo,
                             call2(e, "llvm.maxnum", call2(e, "llvm.minnum", x[0], hi), lo), "");
    return call2(e, "llvm.maximum", call2(e, "llvm.minimum", x[0], hi), lo);
  }
  case OP_NEGATE: return fl ? LLVMBuildFNeg(b, x[0], "") : int_negate(e, o, x[0], it);
  case OP_ABS:
    if (fl)
      return call1(e, "llvm.fabs", x[0]);
    return smax(e, x[0], LLVMBuildSub(b, LLVMConstNull(LLVMTypeOf(x[0])), x[0], ""));
  case OP_EXP:
  case OP_LOG:
  case OP_TANH:
  case OP_ERF: {
    if (f64) {
      diag_error_noloc(cb->diag, "%s on f64 is not supported by the AMDGPU code generator",
                       op_table[o->kind].name);
      cb->failed = true;
      return NULL;
    }
    LLVMValueRef w = widen(e, x[0], it), r;
    if (o->kind == OP_EXP)
      r = call1(e, "llvm.exp", w);
    else if (o->kind == OP_LOG)
      r = call1(e, "llvm.log", w);
    else if (o->kind == OP_TANH)
      r = tanh_f32(e, w);
    else
      r = erf_f32(e, w);
    return narrow(e, r, it);
  }
  case OP_SIGMOID: {
    /* 1 / (1 + exp(-x)), each step rounded to the element type as in MLIR */
    LLVMValueRef one = fconst(x[0], 1.0);
    LLVMValueRef ex = narrow(e, call1(e, "llvm.exp", widen(e, LLVMBuildFNeg(b, x[0], ""), it)), it);
    LLVMValueRef den = LLVMBuildFAdd(b, ex, one, "");
    return narrow(e, LLVMBuildFDiv(b, widen(e, one, it), widen(e, den, it), ""), it);
  }
  case OP_RECIPROCAL:
    return narrow(e, LLVMBuildFDiv(b, widen(e, fconst(x[0], 1.0), it), widen(e, x[0], it), ""), it);
  case OP_RSQRT: {
    LLVMValueRef s = narrow(e, call1(e, "llvm.sqrt", widen(e, x[0], it)), it);
    return narrow(e, LLVMBuildFDiv(b, widen(e, fconst(x[0], 1.0), it), widen(e, s, it), ""), it);
  }
  case OP_FLOOR: return call1(e, "llvm.floor", x[0]);
  case OP_CEIL: return call1(e, "llvm.ceil", x[0]);
  case OP_SELECT: return LLVMBuildSelect(b, x[0], x[1], x[2], "");
  case OP_EQUAL:
    return fl ? LLVMBuildFCmp(b, LLVMRealOEQ, x[0], x[1], "") : LLVMBuildICmp(b, LLVMIntEQ, x[0], x[1], "");
  case OP_GREATER:
    return fl ? LLVMBuildFCmp(b, LLVMRealOGT, x[0], x[1], "") : LLVMBuildICmp(b, LLVMIntSGT, x[0], x[1], "");
  case OP_GREATER_EQUAL:
    return fl ? LLVMBuildFCmp(b, LLVMRealOGE, x[0], x[1], "") : LLVMBuildICmp(b, LLVMIntSGE, x[0], x[1], "");
  case OP_CAST: return emit_cast(e, x[0], it, rt);
  default: {
    bool handled;
    LLVMValueRef r = more_ops(e, o, x, &handled);
    if (handled || cb->failed)
      return r;
    diag_error_noloc(cb->diag, "%s cannot be generated as an elementwise kernel", op_table[o->kind].name);
    cb->failed = true;
    return NULL;
  }
  }
}
