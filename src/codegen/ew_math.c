/* ew_math.c: sin, cos and pow for f32 without libm (AMDGPU has none). The f32 argument is
 * widened to f64, where range reduction and Taylor polynomials are accurate to ~1e-16
 * relative, and the result is rounded once to f32: within 1 ulp of the correctly rounded value
 * (in practice equal to it), matching the oracle's glibc sinf/cosf/powf. */
#include "ew_math.h"

#include <math.h>

typedef struct mb {
  cg_builder *cb;
  LLVMBuilderRef b;
} mb;

static LLVMValueRef d(mb *m, double v) { return LLVMConstReal(m->cb->f64, v); }
static LLVMValueRef dmul(mb *m, LLVMValueRef a, LLVMValueRef b) { return LLVMBuildFMul(m->b, a, b, ""); }
static LLVMValueRef dadd(mb *m, LLVMValueRef a, LLVMValueRef b) { return LLVMBuildFAdd(m->b, a, b, ""); }
static LLVMValueRef dsub(mb *m, LLVMValueRef a, LLVMValueRef b) { return LLVMBuildFSub(m->b, a, b, ""); }
static LLVMValueRef sel(mb *m, LLVMValueRef c, LLVMValueRef a, LLVMValueRef b) {
  return LLVMBuildSelect(m->b, c, a, b, "");
}
static LLVMValueRef fcmp(mb *m, LLVMRealPredicate p, LLVMValueRef a, LLVMValueRef b) {
  return LLVMBuildFCmp(m->b, p, a, b, "");
}

static LLVMValueRef call1(mb *m, const char *name, LLVMValueRef x) {
  LLVMTypeRef t = LLVMTypeOf(x);
  return cg_intrinsic(m->cb, name, &t, 1, &x, 1);
}

static LLVMValueRef fma3(mb *m, LLVMValueRef a, LLVMValueRef b, LLVMValueRef c) {
  LLVMTypeRef t = LLVMTypeOf(a);
  LLVMValueRef args[3] = {a, b, c};
  return cg_intrinsic(m->cb, "llvm.fma", &t, 1, args, 3);
}

/* c[0] + u*(c[1] + u*(...)) */
static LLVMValueRef horner(mb *m, LLVMValueRef u, const double *c, int n) {
  LLVMValueRef r = d(m, c[n - 1]);
  for (int i = n - 2; i >= 0; i--)
    r = fma3(m, r, u, d(m, c[i]));
  return r;
}

/* ---------------------------------------------------------------- sin / cos */

/* pi/2 = P1 + P2 + P3 (each the f64 nearest the remainder). With fma, x - k*P1 is exact for
 * every k below 2^52 (both sides lie on the 2^-52 grid and the difference is below 1), so
 * the reduction keeps ~1e-16 relative accuracy for |x| up to about 2^50 (1e15). */
#define PIO2_1 1.5707963267948966
#define PIO2_2 6.123233995736766e-17
#define PIO2_3 -1.4973849048591698e-33
#define TWO_OVER_PI 0.6366197723675814

/* Taylor coefficients in r^2 on [-pi/4, pi/4]: truncation below 1e-17 relative. */
static const double sin_taylor[] = {1.0,
                                    -1.0 / 6,
                                    1.0 / 120,
                                    -1.0 / 5040,
                                    1.0 / 362880,
                                    -1.0 / 39916800,
                                    1.0 / 6227020800.0,
                                    -1.0 / 1307674368000.0,
                                    1.0 / 355687428096000.0};
static const double cos_taylor[] = {1.0,
                                    -1.0 / 2,
                                    1.0 / 24,
                                    -1.0 / 720,
                                    1.0 / 40320,
                                    -1.0 / 3628800,
                                    1.0 / 479001600,
                                    -1.0 / 87178291200.0,
                                    1.0 / 20922789888000.0,
                                    -1.0 / 6402373705728000.0};

/* sin(x) for quadrant_shift 0, cos(x) for 1 (cos x = sin(x + pi/2)). */
static LLVMValueRef sincos_f32(cg_builder *cb, LLVMValueRef x, int quadrant_shift) {
  mb M = {cb, cb->b}, *m = &M;
  LLVMValueRef xd = LLVMBuildFPExt(m->b, x, cb->f64, "");
  LLVMValueRef k = call1(m, "llvm.roundeven", dmul(m, xd, d(m, TWO_OVER_PI)));
  LLVMValueRef nk = LLVMBuildFNeg(m->b, k, "");
  LLVMValueRef r = fma3(m, nk, d(m, PIO2_1), xd);
  r = fma3(m, nk, d(m, PIO2_2), r);
  r = fma3(m, nk, d(m, PIO2_3), r);
  LLVMValueRef u = dmul(m, r, r);
  LLVMValueRef s = dmul(m, r, horner(m, u, sin_taylor, 9));
  LLVMValueRef c = horner(m, u, cos_taylor, 10);
  /* quadrant q = (k + shift) mod 4, in floating point: no poison for infinite/NaN k */
  LLVMValueRef kq = dadd(m, k, d(m, quadrant_shift));
  LLVMValueRef q = dsub(m, kq, dmul(m, call1(m, "llvm.floor", dmul(m, kq, d(m, 0.25))), d(m, 4.0)));
  LLVMValueRef odd = fcmp(m, LLVMRealOEQ, call1(m, "llvm.fabs", dsub(m, q, d(m, 2.0))), d(m, 1.0));
  LLVMValueRef neg = fcmp(m, LLVMRealOGE, q, d(m, 2.0));
  LLVMValueRef v = sel(m, odd, c, s);
  v = sel(m, neg, LLVMBuildFNeg(m->b, v, ""), v);
  LLVMValueRef res = LLVMBuildFPTrunc(m->b, v, cb->f32, "");
  if (quadrant_shift == 0) /* sin(-0) = -0 */
    res = sel(m, fcmp(m, LLVMRealOEQ, x, LLVMConstReal(cb->f32, 0.0)), x, res);
  return res;
}

LLVMValueRef cg_math_sin_f32(cg_builder *cb, LLVMValueRef x) { return sincos_f32(cb, x, 0); }
LLVMValueRef cg_math_cos_f32(cg_builder *cb, LLVMValueRef x) { return sincos_f32(cb, x, 1); }

/* ---------------------------------------------------------------- pow */

#define LN2_HI 0.6931471805599453
#define LN2_LO 2.3190468138462996e-17
#define INV_LN2 1.4426950408889634

/* log(a) for a positive finite f64 whose exponent field is normal: a = m * 2^e with m in
 * [sqrt(1/2), sqrt(2)); log m = 2 atanh(f), f = (m-1)/(m+1), |f| < 0.172: the series in f^2
 * up to f^23 is below 1e-19 relative. */
static LLVMValueRef log_f64(mb *m, LLVMValueRef a) {
  LLVMBuilderRef b = m->b;
  cg_builder *cb = m->cb;
  LLVMValueRef bits = LLVMBuildBitCast(b, a, cb->i64, "");
  LLVMValueRef e = LLVMBuildSub(b, LLVMBuildLShr(b, bits, LLVMConstInt(cb->i64, 52, 0), ""),
                                LLVMConstInt(cb->i64, 1023, 0), "");
  LLVMValueRef mb_ = LLVMBuildOr(b, LLVMBuildAnd(b, bits, LLVMConstInt(cb->i64, 0x000FFFFFFFFFFFFFull, 0), ""),
                                 LLVMConstInt(cb->i64, 0x3FF0000000000000ull, 0), "");
  LLVMValueRef mant = LLVMBuildBitCast(b, mb_, cb->f64, "");
  LLVMValueRef big = fcmp(m, LLVMRealOGT, mant, d(m, 1.4142135623730951));
  mant = sel(m, big, dmul(m, mant, d(m, 0.5)), mant);
  LLVMValueRef ef = LLVMBuildSIToFP(b, e, cb->f64, "");
  ef = sel(m, big, dadd(m, ef, d(m, 1.0)), ef);
  LLVMValueRef f = LLVMBuildFDiv(b, dsub(m, mant, d(m, 1.0)), dadd(m, mant, d(m, 1.0)), "");
  LLVMValueRef s = dmul(m, f, f);
  double c[12];
  for (int i = 0; i < 12; i++)
    c[i] = 2.0 / (2 * i + 1);
  LLVMValueRef lm = dmul(m, f, horner(m, s, c, 12));
  return fma3(m, ef, d(m, LN2_HI), dadd(m, lm, dmul(m, ef, d(m, LN2_LO))));
}

/* e^t for t in [-120, 100] (clamped by the caller): t = k ln2 + r, |r| <= ln2/2, Taylor to
 * r^13 (below 1e-17 relative), times 2^k built from the exponent bits. */
static LLVMValueRef exp_f64(mb *m, LLVMValueRef t) {
  LLVMBuilderRef b = m->b;
  cg_builder *cb = m->cb;
  LLVMValueRef k = call1(m, "llvm.roundeven", dmul(m, t, d(m, INV_LN2)));
  LLVMValueRef nk = LLVMBuildFNeg(b, k, "");
  LLVMValueRef r = fma3(m, nk, d(m, LN2_HI), t);
  r = fma3(m, nk, d(m, LN2_LO), r);
  double c[14];
  double f = 1.0;
  for (int i = 0; i < 14; i++) {
    c[i] = 1.0 / f;
    f *= i + 1;
  }
  LLVMValueRef p = horner(m, r, c, 14);
  LLVMValueRef ki = LLVMBuildFPToSI(b, k, cb->i64, "");
  LLVMValueRef sbits = LLVMBuildShl(b, LLVMBuildAdd(b, ki, LLVMConstInt(cb->i64, 1023, 0), ""),
                                    LLVMConstInt(cb->i64, 52, 0), "");
  return dmul(m, p, LLVMBuildBitCast(b, sbits, cb->f64, ""));
}

/* C99 powf semantics (what glibc, hence the oracle, implements): pow(x, 0) = pow(1, y) = 1 even
 * for NaN, pow(-1, +-inf) = 1, negative finite x with a non-integer finite y is NaN, an odd
 * integer y keeps the sign of x (including -0 and -inf). */
LLVMValueRef cg_math_pow_f32(cg_builder *cb, LLVMValueRef x, LLVMValueRef y) {
  mb M = {cb, cb->b}, *m = &M;
  LLVMBuilderRef b = m->b;
  LLVMTypeRef f32 = cb->f32;
  LLVMValueRef xd = LLVMBuildFPExt(b, x, cb->f64, ""), yd = LLVMBuildFPExt(b, y, cb->f64, "");
  LLVMValueRef ax = call1(m, "llvm.fabs", xd);
  LLVMValueRef lg = log_f64(m, ax);
  lg = sel(m, fcmp(m, LLVMRealOEQ, ax, d(m, 0.0)), d(m, -INFINITY), lg);
  lg = sel(m, fcmp(m, LLVMRealOEQ, ax, d(m, INFINITY)), d(m, INFINITY), lg);
  LLVMValueRef t = dmul(m, yd, lg);
  /* beyond these every f32 result is 0 or inf; minnum/maxnum keep t finite for the exponent
   * arithmetic (a NaN t only arises in cases overridden below) */
  LLVMValueRef tc = LLVMBuildSelect(b, fcmp(m, LLVMRealOLT, t, d(m, 100.0)), t, d(m, 100.0), "");
  tc = sel(m, fcmp(m, LLVMRealOGT, tc, d(m, -120.0)), tc, d(m, -120.0));
  LLVMValueRef mag = exp_f64(m, tc);
  mag = sel(m, fcmp(m, LLVMRealOGE, t, d(m, 100.0)), d(m, INFINITY), mag);
  mag = sel(m, fcmp(m, LLVMRealOLE, t, d(m, -120.0)), d(m, 0.0), mag);
  LLVMValueRef res = LLVMBuildFPTrunc(b, mag, f32, "");

  LLVMValueRef ay = call1(m, "llvm.fabs", y);
  LLVMValueRef y_int = fcmp(m, LLVMRealOEQ, call1(m, "llvm.floor", y), y); /* inf counts as even */
  LLVMValueRef small = fcmp(m, LLVMRealOLT, ay, LLVMConstReal(f32, 16777216.0));
  LLVMValueRef yi = LLVMBuildFPToSI(b, sel(m, small, y, LLVMConstReal(f32, 0.0)), cb->i32, "");
  LLVMValueRef odd = LLVMBuildAnd(b, LLVMBuildAnd(b, y_int, small, ""),
                                  LLVMBuildTrunc(b, yi, cb->i1, ""), "");
  LLVMValueRef xneg = LLVMBuildICmp(b, LLVMIntSLT, LLVMBuildBitCast(b, x, cb->i32, ""),
                                    LLVMConstInt(cb->i32, 0, 0), "");
  res = sel(m, LLVMBuildAnd(b, xneg, odd, ""), LLVMBuildFNeg(b, res, ""), res);
  LLVMValueRef nan = LLVMConstReal(f32, NAN);
  LLVMValueRef xfin_neg = LLVMBuildAnd(b, fcmp(m, LLVMRealOLT, x, LLVMConstReal(f32, 0.0)),
                                       fcmp(m, LLVMRealOGT, x, LLVMConstReal(f32, -INFINITY)), "");
  LLVMValueRef yfinite = fcmp(m, LLVMRealONE, ay, LLVMConstReal(f32, INFINITY));
  LLVMValueRef bad = LLVMBuildAnd(b, xfin_neg, LLVMBuildAnd(b, yfinite, LLVMBuildNot(b, y_int, ""), ""), "");
  bad = LLVMBuildOr(b, bad, fcmp(m, LLVMRealUNO, x, y), "");
  res = sel(m, bad, nan, res);
  LLVMValueRef one = LLVMBuildOr(b, fcmp(m, LLVMRealOEQ, y, LLVMConstReal(f32, 0.0)),
                                 fcmp(m, LLVMRealOEQ, x, LLVMConstReal(f32, 1.0)), "");
  one = LLVMBuildOr(b, one, LLVMBuildAnd(b, fcmp(m, LLVMRealOEQ, x, LLVMConstReal(f32, -1.0)),
                                         fcmp(m, LLVMRealOEQ, ay, LLVMConstReal(f32, INFINITY)), ""), "");
  return sel(m, one, LLVMConstReal(f32, 1.0), res);
}
