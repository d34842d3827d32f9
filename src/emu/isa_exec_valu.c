/* isa_exec_valu.c: vector ALU (VOP1, VOP2, VOP3, VOPC, VOP3P, SDWA sources and destinations,
 * true16 halves, VOPD pairs). Every executor loops over the lanes EXEC enables. Floats are host
 * IEEE arithmetic: fused operations use fma, transcendental approximations (exp, log, rcp, rsq,
 * sqrt, sin, cos) are computed exactly by libm, which the ISA's 1-ULP bounds allow (ISA.md §5).
 * Denormals are kept and rounding is to nearest even: MODE is not modelled. */
#include "isa_int.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static inline float F(uint32_t u) {
  float f;
  memcpy(&f, &u, 4);
  return f;
}
static inline uint32_t UF(float f) {
  uint32_t u;
  memcpy(&u, &f, 4);
  return u;
}
static inline double D(uint64_t u) {
  double f;
  memcpy(&f, &u, 8);
  return f;
}
static inline uint64_t UD(double f) {
  uint64_t u;
  memcpy(&u, &f, 8);
  return u;
}
static inline float H(uint32_t u) {
  uint16_t b = (uint16_t)u;
  _Float16 h;
  memcpy(&h, &b, 2);
  return (float)h;
}
static inline uint32_t UH(double x) {
  _Float16 h = (_Float16)x;
  uint16_t b;
  memcpy(&b, &h, 2);
  return b;
}
/* f32 -> f16 rounding toward zero (v_cvt_pkrtz_f16_f32). */
static uint32_t UH_rtz(float x) {
  uint32_t h = UH(x);
  if (isnan(x) || isinf(x))
    return h;
  if (fabsf(H(h)) > fabsf(x))
    h = (h & 0x8000) | ((h & 0x7fff) - 1);
  return h;
}

#define LANES                                                                                      \
  for (uint64_t m_ = isa_exec(w); m_; m_ &= m_ - 1) {                                            \
    int l = __builtin_ctzll(m_);
#define END }
#define A isa_rd(w, &in->o[s0], l)
#define B isa_rd(w, &in->o[s0 + 1], l)
#define C isa_rd(w, &in->o[s0 + 2], l)
#define A64 isa_rd64(w, &in->o[s0], l)
#define B64 isa_rd64(w, &in->o[s0 + 1], l)
#define C64 isa_rd64(w, &in->o[s0 + 2], l)

/* Output modifiers and clamp of float results. */
static inline float post32(const isa_inst *in, float r) {
  if (in->omod)
    r *= in->omod == 1 ? 2.0f : in->omod == 2 ? 4.0f : 0.5f;
  if (in->flags & IF_CLAMP)
    r = isnan(r) ? 0.0f : fminf(fmaxf(r, 0.0f), 1.0f);
  return r;
}
static inline double post64(const isa_inst *in, double r) {
  if (in->omod)
    r *= in->omod == 1 ? 2.0 : in->omod == 2 ? 4.0 : 0.5;
  if (in->flags & IF_CLAMP)
    r = isnan(r) ? 0.0 : fmin(fmax(r, 0.0), 1.0);
  return r;
}

#define OP_F32(NAME, N, EXPR)                                                                      \
  static void NAME(isa_wave *w, const isa_inst *in) {                                              \
    const int s0 = 1;                                                                              \
    (void)s0;                                                                                      \
    LANES float a = F(A), b = N > 1 ? F(B) : 0, c = N > 2 ? F(C) : 0;                              \
    (void)b, (void)c;                                                                              \
    isa_wr(w, &in->o[0], l, UF(post32(in, (EXPR))));                                               \
    END                                                                                            \
  }
#define OP_F64(NAME, N, EXPR)                                                                      \
  static void NAME(isa_wave *w, const isa_inst *in) {                                              \
    const int s0 = 1;                                                                              \
    LANES double a = D(A64), b = N > 1 ? D(B64) : 0, c = N > 2 ? D(C64) : 0;                       \
    (void)b, (void)c;                                                                              \
    isa_wr64(w, &in->o[0], l, UD(post64(in, (EXPR))));                                             \
    END                                                                                            \
  }
#define OP_F16(NAME, N, EXPR)                                                                      \
  static void NAME(isa_wave *w, const isa_inst *in) {                                              \
    const int s0 = 1;                                                                              \
    LANES double a = H(A), b = N > 1 ? H(B) : 0, c = N > 2 ? H(C) : 0;                             \
    (void)b, (void)c;                                                                              \
    isa_wr(w, &in->o[0], l, UH(post64(in, (EXPR))));                                               \
    END                                                                                            \
  }
#define OP_U32(NAME, EXPR)                                                                         \
  static void NAME(isa_wave *w, const isa_inst *in) {                                              \
    const int s0 = 1;                                                                              \
    int n_ = in->nops;                                                                             \
    LANES uint32_t a = A, b = n_ > 2 ? B : 0, c = n_ > 3 ? C : 0;                                  \
    (void)b, (void)c;                                                                              \
    isa_wr(w, &in->o[0], l, (uint32_t)(EXPR));                                                     \
    END                                                                                            \
  }
/* VOP3 clamp of an unsigned add or subtract (x exact): the result saturates to [0, max]
 * (without clamp it wraps). */
static inline uint32_t clamp_u(const isa_inst *in, int64_t x, int64_t max) {
  if (in->flags & IF_CLAMP)
    x = x < 0 ? 0 : x > max ? max : x;
  return (uint32_t)x;
}
/* 16-bit integer results clear the high half (or land in the selected half). */
#define OP_U16(NAME, EXPR)                                                                         \
  static void NAME(isa_wave *w, const isa_inst *in) {                                              \
    const int s0 = 1;                                                                              \
    int n_ = in->nops;                                                                             \
    LANES uint32_t a = A & 0xffff, b = n_ > 2 ? B & 0xffff : 0, c = n_ > 3 ? C & 0xffff : 0;       \
    (void)b, (void)c;                                                                              \
    isa_wr(w, &in->o[0], l, (uint32_t)(EXPR) & 0xffff);                                            \
    END                                                                                            \
  }

/* ---------------------------------------------------------------- f32 */
static float med3f(float a, float b, float c) { return fmaxf(fminf(a, b), fminf(fmaxf(a, b), c)); }
static float fractf(float a) {
  if (isinf(a))
    return NAN;
  float r = a - floorf(a);
  return r >= 1.0f ? nextafterf(1.0f, 0.0f) : r;
}
static float sin_rev(float a) { return (float)sin((double)a * 2 * M_PI); }
static float cos_rev(float a) { return (float)cos((double)a * 2 * M_PI); }
static float mul_legacy(float a, float b) { return a == 0 || b == 0 ? 0.0f : a * b; }

/* IEEE 754-2019 maximum/minimum: NaN propagates, -0 < +0. */
static float maximumf(float a, float b) {
  if (isnan(a) || isnan(b))
    return NAN;
  if (a == b)
    return signbit(a) ? b : a;
  return a > b ? a : b;
}
static float minimumf(float a, float b) {
  if (isnan(a) || isnan(b))
    return NAN;
  if (a == b)
    return signbit(a) ? a : b;
  return a < b ? a : b;
}
OP_F32(v_maximum_f32, 2, maximumf(a, b))
OP_F32(v_minimum_f32, 2, minimumf(a, b))
OP_F32(v_maximum3_f32, 3, maximumf(maximumf(a, b), c))
OP_F32(v_minimummaximum_f32, 3, maximumf(minimumf(a, b), c))
OP_F32(v_maximumminimum_f32, 3, minimumf(maximumf(a, b), c))
OP_F32(v_minimum3_f32, 3, minimumf(minimumf(a, b), c))
OP_F32(v_add_f32, 2, a + b)
OP_F32(v_sub_f32, 2, a - b)
OP_F32(v_subrev_f32, 2, b - a)
OP_F32(v_mul_f32, 2, a *b)
OP_F32(v_mul_legacy_f32, 2, mul_legacy(a, b))
OP_F32(v_min_f32, 2, fminf(a, b))
OP_F32(v_max_f32, 2, fmaxf(a, b))
OP_F32(v_fma_f32, 3, fmaf(a, b, c))
OP_F32(v_mad_f32, 3, a *b + c)
OP_F32(v_min3_f32, 3, fminf(fminf(a, b), c))
OP_F32(v_max3_f32, 3, fmaxf(fmaxf(a, b), c))
OP_F32(v_med3_f32, 3, med3f(a, b, c))
OP_F32(v_minmax_f32, 3, fmaxf(fminf(a, b), c)) /* gfx11+: the min of S0, S1, then the max with S2 */
OP_F32(v_maxmin_f32, 3, fminf(fmaxf(a, b), c))
OP_F32(v_exp_f32, 1, exp2f(a))
OP_F32(v_log_f32, 1, log2f(a))
OP_F32(v_rcp_f32, 1, 1.0f / a)
OP_F32(v_rsq_f32, 1, 1.0f / sqrtf(a))
OP_F32(v_sqrt_f32, 1, sqrtf(a))
OP_F32(v_sin_f32, 1, sin_rev(a))
OP_F32(v_cos_f32, 1, cos_rev(a))
OP_F32(v_floor_f32, 1, floorf(a))
OP_F32(v_ceil_f32, 1, ceilf(a))
OP_F32(v_trunc_f32, 1, truncf(a))
OP_F32(v_rndne_f32, 1, rintf(a))
OP_F32(v_fract_f32, 1, fractf(a))
OP_F32(v_frexp_mant_f32, 1, isinf(a) || isnan(a) ? a : frexpf(a, &(int){0}))

/* d = a * b + d */
static void v_fmac_f32(isa_wave *w, const isa_inst *in) {
  const int s0 = 1;
  LANES float d = F(isa_reg32(w, &in->o[0], 0, l));
  isa_wr(w, &in->o[0], l, UF(post32(in, fmaf(F(A), F(B), d))));
  END
}
static void v_mac_f32(isa_wave *w, const isa_inst *in) {
  const int s0 = 1;
  LANES float d = F(isa_reg32(w, &in->o[0], 0, l));
  isa_wr(w, &in->o[0], l, UF(post32(in, F(A) * F(B) + d)));
  END
}
static void v_ldexp_f32(isa_wave *w, const isa_inst *in) {
  const int s0 = 1;
  LANES isa_wr(w, &in->o[0], l, UF(post32(in, ldexpf(F(A), (int32_t)B))));
  END
}
static void v_frexp_exp_i32_f32(isa_wave *w, const isa_inst *in) {
  const int s0 = 1;
  LANES float a = F(A);
  int e = 0;
  if (!isinf(a) && !isnan(a))
    frexpf(a, &e);
  isa_wr(w, &in->o[0], l, (uint32_t)e);
  END
}

/* v_div_scale / v_div_fmas / v_div_fixup (the f32 and f64 division sequence, ISA.md §5). The
 * scaling cases apply to operands near the ends of the exponent range. */
static int expo32(float x) { return (int)((UF(x) >> 23) & 0xff); }
static int expo64(double x) { return (int)((UD(x) >> 52) & 0x7ff); }

static uint64_t mask_read(const isa_wave *w, const isa_opnd *o) {
  if (o->kind == OK_IMM)
    return o->imm;
  uint64_t m = w->s[o->reg & (ISA_NSGPR - 1)];
  if (o->n > 1)
    m |= (uint64_t)w->s[(o->reg + 1) & (ISA_NSGPR - 1)] << 32;
  return m;
}
static void mask_write(isa_wave *w, const isa_opnd *o, uint64_t m) {
  if (o->kind != OK_SGPR)
    return;
  isa_wr_sgpr(w, o->reg, (uint32_t)m);
  if (o->n > 1)
    isa_wr_sgpr(w, o->reg + 1, (uint32_t)(m >> 32));
}

/* One lane of v_div_scale (the f32 form computes its quotient in float precision: width 32).
 * The reciprocal is tested for a denormal in f64 for both widths, as the CDNA3 ISA's pseudo-code
 * says: so an f32 denominator near the top of the range (2 / 2.5e38 in tanh) is not scaled
 * by 2^64 into infinity; only the numerator is scaled, because the quotient is an f32 denormal. */
static double div_scale_one(double a, double den, double num, int width, bool *vcc) {
  bool f32 = width == 32;
  int scale = f32 ? 64 : 128;
#define DENORM(x) (f32 ? fpclassify((float)(x)) == FP_SUBNORMAL : fpclassify(x) == FP_SUBNORMAL)
  int ediff = f32 ? expo32((float)num) - expo32((float)den) : expo64(num) - expo64(den);
  int enum_ = f32 ? expo32((float)num) : expo64(num);
  double q = f32 ? (double)((float)num / (float)den) : num / den;
  bool r_denorm = fpclassify(1.0 / den) == FP_SUBNORMAL;
  *vcc = false;
  if (num == 0 || den == 0)
    return NAN;
  if (ediff >= (f32 ? 96 : 768)) {
    *vcc = true;
    return a == den ? ldexp(a, scale) : a;
  }
  if (DENORM(den))
    return ldexp(a, scale);
  if (r_denorm && DENORM(q)) {
    *vcc = true;
    return a == den ? ldexp(a, scale) : a;
  }
  if (r_denorm)
    return ldexp(a, -scale);
  if (DENORM(q)) {
    *vcc = true;
    return a == num ? ldexp(a, scale) : a;
  }
  if (enum_ <= (f32 ? 23 : 53))
    return ldexp(a, scale);
  return a;
#undef DENORM
}
static void v_div_scale_f32(isa_wave *w, const isa_inst *in) {
  const int s0 = 2;
  uint64_t vcc = 0;
  LANES bool v;
  float d = (float)div_scale_one(F(A), F(B), F(C), 32, &v);
  vcc |= (uint64_t)v << l;
  isa_wr(w, &in->o[0], l, UF(d));
  END
  mask_write(w, &in->o[1], vcc);
}
static void v_div_scale_f64(isa_wave *w, const isa_inst *in) {
  const int s0 = 2;
  uint64_t vcc = 0;
  LANES bool v;
  double d = div_scale_one(D(A64), D(B64), D(C64), 64, &v);
  vcc |= (uint64_t)v << l;
  isa_wr64(w, &in->o[0], l, UD(d));
  END
  mask_write(w, &in->o[1], vcc);
}
static void v_div_fmas_f32(isa_wave *w, const isa_inst *in) {
  const int s0 = 1;
  uint64_t vcc = isa_vcc(w);
  LANES float a = F(A), b = F(B), c = F(C), r = fmaf(a, b, c);
  if (vcc >> l & 1)
    r = ldexpf(r, expo32(c) > 127 ? 64 : -64);
  isa_wr(w, &in->o[0], l, UF(post32(in, r)));
  END
}
static void v_div_fmas_f64(isa_wave *w, const isa_inst *in) {
  const int s0 = 1;
  uint64_t vcc = isa_vcc(w);
  LANES double a = D(A64), b = D(B64), c = D(C64), r = fma(a, b, c);
  if (vcc >> l & 1)
    r = ldexp(r, expo64(c) > 1023 ? 128 : -128);
  isa_wr64(w, &in->o[0], l, UD(post64(in, r)));
  END
}
/* d = quotient a of numerator c by denominator b, with the special cases of IEEE division. */
static double div_fixup(double q, double den, double num) {
  if (isnan(num) || isnan(den))
    return NAN;
  if ((den == 0 && num == 0) || (isinf(den) && isinf(num)))
    return NAN;
  bool neg = signbit(den) != signbit(num);
  if (den == 0 || isinf(num))
    return neg ? -INFINITY : INFINITY;
  if (isinf(den) || num == 0)
    return neg ? -0.0 : 0.0;
  return neg ? -fabs(q) : fabs(q);
}
OP_F32(v_div_fixup_f32, 3, (float)div_fixup(a, b, c))
OP_F64(v_div_fixup_f64, 3, div_fixup(a, b, c))

/* ---------------------------------------------------------------- f64 */
static double fract64(double a) {
  if (isinf(a))
    return NAN;
  double r = a - floor(a);
  return r >= 1.0 ? nextafter(1.0, 0.0) : r;
}
OP_F64(v_add_f64, 2, a + b)
OP_F64(v_mul_f64, 2, a *b)
OP_F64(v_min_f64, 2, fmin(a, b))
OP_F64(v_max_f64, 2, fmax(a, b))
OP_F64(v_fma_f64, 3, fma(a, b, c))
OP_F64(v_rcp_f64, 1, 1.0 / a)
OP_F64(v_rsq_f64, 1, 1.0 / sqrt(a))
OP_F64(v_sqrt_f64, 1, sqrt(a))
OP_F64(v_floor_f64, 1, floor(a))
OP_F64(v_ceil_f64, 1, ceil(a))
OP_F64(v_trunc_f64, 1, trunc(a))
OP_F64(v_rndne_f64, 1, rint(a))
OP_F64(v_fract_f64, 1, fract64(a))
OP_F64(v_frexp_mant_f64, 1, isinf(a) || isnan(a) ? a : frexp(a, &(int){0}))
static void v_fmac_f64(isa_wave *w, const isa_inst *in) {
  const int s0 = 1;
  LANES double d = D(isa_reg32(w, &in->o[0], 0, l) | (uint64_t)isa_reg32(w, &in->o[0], 1, l) << 32);
  isa_wr64(w, &in->o[0], l, UD(post64(in, fma(D(A64), D(B64), d))));
  END
}
static void v_ldexp_f64(isa_wave *w, const isa_inst *in) {
  const int s0 = 1;
  LANES isa_wr64(w, &in->o[0], l, UD(post64(in, ldexp(D(A64), (int32_t)B))));
  END
}
static void v_frexp_exp_i32_f64(isa_wave *w, const isa_inst *in) {
  const int s0 = 1;
  LANES double a = D(A64);
  int e = 0;
  if (!isinf(a) && !isnan(a))
    frexp(a, &e);
  isa_wr(w, &in->o[0], l, (uint32_t)e);
  END
}

/* ---------------------------------------------------------------- f16 */
OP_F16(v_maximum_f16, 2, maximumf((float)a, (float)b))
OP_F16(v_minimum_f16, 2, minimumf((float)a, (float)b))
OP_F16(v_maximum3_f16, 3, maximumf(maximumf((float)a, (float)b), (float)c))
OP_F16(v_minimummaximum_f16, 3, maximumf(minimumf((float)a, (float)b), (float)c))
OP_F16(v_maximumminimum_f16, 3, minimumf(maximumf((float)a, (float)b), (float)c))
OP_F16(v_minimum3_f16, 3, minimumf(minimumf((float)a, (float)b), (float)c))
static double med3d(double a, double b, double c) { return fmax(fmin(a, b), fmin(fmax(a, b), c)); }
OP_F16(v_add_f16, 2, a + b)
OP_F16(v_sub_f16, 2, a - b)
OP_F16(v_subrev_f16, 2, b - a)
OP_F16(v_mul_f16, 2, a *b)
OP_F16(v_min_f16, 2, fmin(a, b))
OP_F16(v_max_f16, 2, fmax(a, b))
OP_F16(v_fma_f16, 3, fma(a, b, c))
OP_F16(v_med3_f16, 3, med3d(a, b, c))
OP_F16(v_minmax_f16, 3, fmax(fmin(a, b), c))
OP_F16(v_maxmin_f16, 3, fmin(fmax(a, b), c))
OP_F16(v_exp_f16, 1, exp2(a))
OP_F16(v_log_f16, 1, log2(a))
OP_F16(v_rcp_f16, 1, 1.0 / a)
OP_F16(v_rsq_f16, 1, 1.0 / sqrt(a))
OP_F16(v_sqrt_f16, 1, sqrt(a))
OP_F16(v_sin_f16, 1, sin(a * 2 * M_PI))
OP_F16(v_cos_f16, 1, cos(a * 2 * M_PI))
OP_F16(v_floor_f16, 1, floor(a))
OP_F16(v_ceil_f16, 1, ceil(a))
OP_F16(v_trunc_f16, 1, trunc(a))
OP_F16(v_rndne_f16, 1, rint(a))
OP_F16(v_fract_f16, 1, a - floor(a))
static void v_fmac_f16(isa_wave *w, const isa_inst *in) {
  const int s0 = 1;
  LANES double d = H(isa_rd(w, &in->o[0], l));
  isa_wr(w, &in->o[0], l, UH(post64(in, fma(H(A), H(B), d))));
  END
}
static void v_ldexp_f16(isa_wave *w, const isa_inst *in) {
  const int s0 = 1;
  LANES isa_wr(w, &in->o[0], l, UH(ldexp(H(A), (int16_t)B)));
  END
}

/* ---------------------------------------------------------------- conversions */
static uint32_t f2i(double x, double lo, double hi) {
  if (isnan(x))
    return 0;
  x = trunc(x);
  return (uint32_t)(int64_t)(x < lo ? lo : x > hi ? hi : x);
}
OP_U32(v_cvt_i32_f32, f2i(F(a), -2147483648.0, 2147483647.0))
OP_U32(v_cvt_u32_f32, f2i(F(a), 0, 4294967295.0))
OP_U32(v_cvt_f32_i32, UF((float)(int32_t)a))
OP_U32(v_cvt_f32_u32, UF((float)a))
OP_U32(v_cvt_f16_f32, UH(F(a)))
OP_U32(v_cvt_f32_f16, UF(H(a)))
OP_U32(v_cvt_i16_f16, f2i(H(a), -32768, 32767) & 0xffff)
OP_U32(v_cvt_u16_f16, f2i(H(a), 0, 65535) & 0xffff)
OP_U32(v_cvt_f16_i16, UH((int16_t)a))
OP_U32(v_cvt_f16_u16, UH((uint16_t)a))
OP_U32(v_cvt_flr_i32_f32, f2i(floorf(F(a)), -2147483648.0, 2147483647.0))
OP_U32(v_cvt_rpi_i32_f32, f2i(floorf(F(a) + 0.5f), -2147483648.0, 2147483647.0))
OP_U32(v_cvt_f32_ubyte0, UF((float)(a & 0xff)))
OP_U32(v_cvt_f32_ubyte1, UF((float)((a >> 8) & 0xff)))
OP_U32(v_cvt_f32_ubyte2, UF((float)((a >> 16) & 0xff)))
OP_U32(v_cvt_f32_ubyte3, UF((float)(a >> 24)))
OP_U32(v_cvt_pkrtz_f16_f32, UH_rtz(F(a)) | UH_rtz(F(b)) << 16)
/* v_cvt_pk_{fp8,bf8}_f32 D, S0, S1 op_sel:[0,0,w]: bytes 2w, 2w + 1 of D become S0, S1 as 8-bit
 * floats (FNUZ or OCP per the target), the other half of D is kept. */
static void cvt_pk_f8(isa_wave *w, const isa_inst *in, bool bf8) {
  const int s0 = 1;
  bool fnuz = w->g->m->info->fp8_fnuz;
  int sh = in->op_sel & 0xc ? 16 : 0;
  LANES uint32_t d = isa_rd(w, &in->o[0], l) & ~(0xffffu << sh);
  uint32_t pk = emu_f8_from_f32(F(A), bf8, fnuz) | emu_f8_from_f32(F(B), bf8, fnuz) << 8;
  isa_wr(w, &in->o[0], l, d | pk << sh);
  END
}
static void v_cvt_pk_fp8_f32(isa_wave *w, const isa_inst *in) { cvt_pk_f8(w, in, false); }
static void v_cvt_pk_bf8_f32(isa_wave *w, const isa_inst *in) { cvt_pk_f8(w, in, true); }
/* v_cvt_f32_{fp8,bf8} D, S0: the byte of S0 selected by SDWA src0_sel (gfx9) or byte_sel (gfx12),
 * both read into the operand's select at decode time. */
static void cvt_f32_f8(isa_wave *w, const isa_inst *in, bool bf8) {
  const int s0 = 1;
  bool fnuz = w->g->m->info->fp8_fnuz;
  LANES isa_wr(w, &in->o[0], l, emu_f8_to_f32(A & 0xff, bf8, fnuz));
  END
}
static void v_cvt_f32_fp8(isa_wave *w, const isa_inst *in) { cvt_f32_f8(w, in, false); }
static void v_cvt_f32_bf8(isa_wave *w, const isa_inst *in) { cvt_f32_f8(w, in, true); }
/* v_cvt_pk_f32_{fp8,bf8} D[0:1], S0: the low or high two bytes of S0 (SDWA src0_sel:WORD_1 on
 * gfx9, op_sel:[1,0] on gfx12) to two f32. */
static void cvt_pk_f32_f8(isa_wave *w, const isa_inst *in, bool bf8) {
  const int s0 = 1;
  bool fnuz = w->g->m->info->fp8_fnuz;
  int sh = in->op_sel & 1 ? 16 : 0;
  LANES uint32_t a = A >> sh;
  isa_wr64(w, &in->o[0], l,
           emu_f8_to_f32(a & 0xff, bf8, fnuz) | (uint64_t)emu_f8_to_f32(a >> 8 & 0xff, bf8, fnuz) << 32);
  END
}
static void v_cvt_pk_f32_fp8(isa_wave *w, const isa_inst *in) { cvt_pk_f32_f8(w, in, false); }
static void v_cvt_pk_f32_bf8(isa_wave *w, const isa_inst *in) { cvt_pk_f32_f8(w, in, true); }
OP_U32(v_cvt_pk_i16_f32, (f2i(F(a), -32768, 32767) & 0xffff) | f2i(F(b), -32768, 32767) << 16)
OP_U32(v_cvt_pk_u16_f32, (f2i(F(a), 0, 65535) & 0xffff) | f2i(F(b), 0, 65535) << 16)
static uint32_t bf16_rne(uint32_t u) {
  return (u & 0x7fffffffu) > 0x7f800000u ? (u >> 16) | 0x40 : (u + 0x7fffu + ((u >> 16) & 1)) >> 16;
}
OP_U32(v_pack_b32_f16, (a & 0xffff) | (b & 0xffff) << 16)
OP_U32(v_cvt_pk_bf16_f32, bf16_rne(a) | bf16_rne(b) << 16)
OP_U32(v_cvt_pk_f16_f32, UH(F(a)) | UH(F(b)) << 16)

static void v_cvt_f64_f32(isa_wave *w, const isa_inst *in) {
  const int s0 = 1;
  LANES isa_wr64(w, &in->o[0], l, UD(post64(in, F(A))));
  END
}
static void v_cvt_f64_i32(isa_wave *w, const isa_inst *in) {
  const int s0 = 1;
  LANES isa_wr64(w, &in->o[0], l, UD((int32_t)A));
  END
}
static void v_cvt_f64_u32(isa_wave *w, const isa_inst *in) {
  const int s0 = 1;
  LANES isa_wr64(w, &in->o[0], l, UD(A));
  END
}
static void v_cvt_f32_f64(isa_wave *w, const isa_inst *in) {
  const int s0 = 1;
  LANES isa_wr(w, &in->o[0], l, UF(post32(in, (float)D(A64))));
  END
}
static void v_cvt_i32_f64(isa_wave *w, const isa_inst *in) {
  const int s0 = 1;
  LANES isa_wr(w, &in->o[0], l, f2i(D(A64), -2147483648.0, 2147483647.0));
  END
}
static void v_cvt_u32_f64(isa_wave *w, const isa_inst *in) {
  const int s0 = 1;
  LANES isa_wr(w, &in->o[0], l, f2i(D(A64), 0, 4294967295.0));
  END
}

/* ---------------------------------------------------------------- integer */
static uint32_t bfe_u(uint32_t a, uint32_t off, uint32_t width) {
  off &= 31, width &= 31;
  return width == 0 ? 0 : (a >> off) & ((1u << width) - 1);
}
static uint32_t bfe_i(uint32_t a, uint32_t off, uint32_t width) {
  off &= 31, width &= 31;
  if (width == 0)
    return 0;
  uint32_t x = a >> off;
  return (uint32_t)((int32_t)(x << (32 - width)) >> (32 - width));
}
static uint32_t perm(uint32_t a, uint32_t b, uint32_t sel) {
  uint64_t in = (uint64_t)a << 32 | b;
  uint32_t d = 0;
  for (int i = 0; i < 4; i++) {
    uint32_t s = (sel >> (8 * i)) & 0xff, byte;
    if (s < 8)
      byte = (uint32_t)(in >> (8 * s)) & 0xff;
    else if (s < 12)
      byte = (in >> (16 * (s - 8) + 15)) & 1 ? 0xff : 0;
    else
      byte = s == 12 ? 0 : 0xff;
    d |= byte << (8 * i);
  }
  return d;
}
static uint32_t med3i(int32_t a, int32_t b, int32_t c) {
  int32_t lo = a < b ? a : b, hi = a < b ? b : a;
  return (uint32_t)(c < lo ? lo : c > hi ? hi : c);
}
static uint32_t med3u(uint32_t a, uint32_t b, uint32_t c) {
  uint32_t lo = a < b ? a : b, hi = a < b ? b : a;
  return c < lo ? lo : c > hi ? hi : c;
}
static uint32_t ffbh_i(uint32_t a) {
  if (a == 0 || a == ~0u)
    return ~0u;
  uint32_t x = (int32_t)a < 0 ? ~a : a;
  return (uint32_t)__builtin_clz(x) - 1;
}
#define I24(x) ((int32_t)((x) << 8) >> 8)

OP_U32(v_mov_b32, a)
/* Lanes below this one whose bit is set in the mask's low (lo) or high (hi) 32 bits, plus c. */
static void v_mbcnt(isa_wave *w, const isa_inst *in) {
  const int s0 = 1;
  bool hi = in->def->arg;
  LANES uint64_t below = (1ull << l) - 1;
  uint32_t part = hi ? (uint32_t)(below >> 32) : (uint32_t)below;
  isa_wr(w, &in->o[0], l, (uint32_t)__builtin_popcount(A & part) + B);
  END
}
/* Bit i of the result is bit (a_i << 2 | b_i << 1 | c_i) of the bitop3 truth table. */
static uint32_t bitop3(uint32_t a, uint32_t b, uint32_t c, unsigned table) {
  uint32_t r = 0;
  for (unsigned k = 0; k < 8; k++)
    if (table >> k & 1)
      r |= (k & 4 ? a : ~a) & (k & 2 ? b : ~b) & (k & 1 ? c : ~c);
  return r;
}
OP_U32(v_bitop3_b32, bitop3(a, b, c, (unsigned)in->offset))
OP_U16(v_bitop3_b16, bitop3(a, b, c, (unsigned)in->offset))
OP_U32(v_not_b32, ~a)
OP_U32(v_bfrev_b32, isa_brev32(a))
OP_U32(v_ffbh_u32, a ? (uint32_t)__builtin_clz(a) : ~0u)
OP_U32(v_ffbl_b32, a ? (uint32_t)__builtin_ctz(a) : ~0u)
OP_U32(v_ffbh_i32, ffbh_i(a))
OP_U32(v_bcnt_u32_b32, (uint32_t)__builtin_popcount(a) + b)
OP_U32(v_and_b32, a &b)
OP_U32(v_or_b32, a | b)
OP_U32(v_xor_b32, a ^ b)
OP_U32(v_xnor_b32, ~(a ^ b))
OP_U32(v_add_u32, clamp_u(in, (int64_t)a + b, UINT32_MAX))
OP_U32(v_sub_u32, clamp_u(in, (int64_t)a - b, UINT32_MAX))
OP_U32(v_subrev_u32, clamp_u(in, (int64_t)b - a, UINT32_MAX))
OP_U32(v_lshlrev_b32, b << (a & 31))
OP_U32(v_lshrrev_b32, b >> (a & 31))
OP_U32(v_ashrrev_i32, (int32_t)b >> (a & 31))
OP_U32(v_min_i32, (int32_t)a < (int32_t)b ? a : b)
OP_U32(v_max_i32, (int32_t)a > (int32_t)b ? a : b)
OP_U32(v_min_u32, a < b ? a : b)
OP_U32(v_max_u32, a > b ? a : b)
OP_U32(v_mul_lo_u32, a *b)
OP_U32(v_mul_hi_u32, ((uint64_t)a * b) >> 32)
OP_U32(v_mul_hi_i32, ((int64_t)(int32_t)a * (int32_t)b) >> 32)
OP_U32(v_mul_u32_u24, (a & 0xffffff) * (b & 0xffffff))
OP_U32(v_mul_hi_u32_u24, ((uint64_t)(a & 0xffffff) * (b & 0xffffff)) >> 32)
OP_U32(v_mul_i32_i24, (int64_t)I24(a) * I24(b))
OP_U32(v_mul_hi_i32_i24, ((int64_t)I24(a) * I24(b)) >> 32)
OP_U32(v_mad_u32_u24, (a & 0xffffff) * (b & 0xffffff) + c)
OP_U32(v_mad_i32_i24, (int64_t)I24(a) * I24(b) + (int32_t)c)
OP_U32(v_bfe_u32, bfe_u(a, b, c))
OP_U32(v_bfe_i32, bfe_i(a, b, c))
OP_U32(v_bfi_b32, (a & b) | (~a & c))
OP_U32(v_bfm_b32, ((1u << (a & 31)) - 1) << (b & 31))
OP_U32(v_alignbit_b32, (uint32_t)((((uint64_t)a << 32) | b) >> (c & 31)))
OP_U32(v_alignbyte_b32, (uint32_t)((((uint64_t)a << 32) | b) >> (8 * (c & 3))))
OP_U32(v_perm_b32, perm(a, b, c))
OP_U32(v_lshl_or_b32, (a << (b & 31)) | c)
OP_U32(v_and_or_b32, (a & b) | c)
OP_U32(v_or3_b32, a | b | c)
OP_U32(v_xor3_b32, a ^ b ^ c)
OP_U32(v_lshl_add_u32, (a << (b & 31)) + c)
OP_U32(v_add_lshl_u32, (a + b) << (c & 31))
OP_U32(v_add3_u32, a + b + c)
OP_U32(v_xad_u32, (a ^ b) + c)
OP_U32(v_med3_i32, med3i((int32_t)a, (int32_t)b, (int32_t)c))
OP_U32(v_med3_u32, med3u(a, b, c))
OP_U32(v_sad_u32, (a > b ? a - b : b - a) + c)

OP_U16(v_add_u16, clamp_u(in, (int64_t)a + b, UINT16_MAX))
OP_U16(v_sub_u16, clamp_u(in, (int64_t)a - b, UINT16_MAX))
OP_U16(v_subrev_u16, clamp_u(in, (int64_t)b - a, UINT16_MAX))
OP_U16(v_mul_lo_u16, a *b)
OP_U16(v_lshlrev_b16, b << (a & 15))
OP_U16(v_lshrrev_b16, b >> (a & 15))
OP_U16(v_ashrrev_i16, (int16_t)b >> (a & 15))
OP_U16(v_min_u16, a < b ? a : b)
OP_U16(v_max_u16, a > b ? a : b)
OP_U16(v_min_i16, (int16_t)a < (int16_t)b ? a : b)
OP_U16(v_max_i16, (int16_t)a > (int16_t)b ? a : b)
OP_U16(v_and_b16, a &b)
OP_U16(v_or_b16, a | b)
OP_U16(v_xor_b16, a ^ b)
OP_U16(v_not_b16, ~a)
OP_U16(v_mov_b16, a)
OP_U16(v_mad_u16, a *b + c)
OP_U16(v_med3_i16, med3i((int16_t)a, (int16_t)b, (int16_t)c))
OP_U16(v_med3_u16, med3u(a, b, c))
OP_U16(v_min3_i16, (int16_t)a < (int16_t)b ? ((int16_t)a < (int16_t)c ? a : c) : ((int16_t)b < (int16_t)c ? b : c))
OP_U16(v_max3_i16, (int16_t)a > (int16_t)b ? ((int16_t)a > (int16_t)c ? a : c) : ((int16_t)b > (int16_t)c ? b : c))
OP_U16(v_min3_u16, a < b ? (a < c ? a : c) : (b < c ? b : c))
OP_U16(v_max3_u16, a > b ? (a > c ? a : c) : (b > c ? b : c))
OP_U32(v_min3_u32, a < b ? (a < c ? a : c) : (b < c ? b : c))
OP_U32(v_max3_u32, a > b ? (a > c ? a : c) : (b > c ? b : c))

static void v_min3_i32_fn(isa_wave *w, const isa_inst *in) {
  const int s0 = 1;
  LANES int32_t a = (int32_t)A, b = (int32_t)B, c = (int32_t)C, m = a < b ? a : b;
  isa_wr(w, &in->o[0], l, (uint32_t)(m < c ? m : c));
  END
}
static void v_max3_i32_fn(isa_wave *w, const isa_inst *in) {
  const int s0 = 1;
  LANES int32_t a = (int32_t)A, b = (int32_t)B, c = (int32_t)C, m = a > b ? a : b;
  isa_wr(w, &in->o[0], l, (uint32_t)(m > c ? m : c));
  END
}

/* 64-bit shifts: shift amount first. */
static void v_lshlrev_b64(isa_wave *w, const isa_inst *in) {
  const int s0 = 1;
  LANES isa_wr64(w, &in->o[0], l, B64 << (A & 63));
  END
}
static void v_lshrrev_b64(isa_wave *w, const isa_inst *in) {
  const int s0 = 1;
  LANES isa_wr64(w, &in->o[0], l, B64 >> (A & 63));
  END
}
static void v_ashrrev_i64(isa_wave *w, const isa_inst *in) {
  const int s0 = 1;
  LANES isa_wr64(w, &in->o[0], l, (uint64_t)((int64_t)B64 >> (A & 63)));
  END
}
static void v_lshl_add_u64(isa_wave *w, const isa_inst *in) {
  const int s0 = 1;
  LANES isa_wr64(w, &in->o[0], l, (A64 << (B & 7)) + C64);
  END
}
static void v_mov_b64(isa_wave *w, const isa_inst *in) {
  const int s0 = 1;
  LANES isa_wr64(w, &in->o[0], l, A64);
  END
}

/* Carry forms: d, carry-out SGPR(s), a, b[, carry-in]. arg: 0 add, 1 sub, 2 subrev. */
static void carry_op(isa_wave *w, const isa_inst *in) {
  const int s0 = 2;
  int op = in->def->arg;
  bool cin = in->def->arg2;
  uint64_t cm = cin ? mask_read(w, &in->o[4]) : 0, out = 0;
  LANES uint64_t a = A, b = B, c = cm >> l & 1, r;
  if (op == 2) {
    uint64_t t = a;
    a = b, b = t;
  }
  if (op == 0) {
    r = a + b + c;
    out |= (r >> 32) << l;
  } else {
    r = a - b - c;
    out |= (uint64_t)(b + c > a) << l;
  }
  isa_wr(w, &in->o[0], l, clamp_u(in, op == 0 ? (int64_t)r : (int64_t)a - (int64_t)(b + c), UINT32_MAX));
  END
  mask_write(w, &in->o[1], out);
}
static void v_mad_u64_u32(isa_wave *w, const isa_inst *in) {
  const int s0 = 2;
  uint64_t out = 0;
  LANES unsigned __int128 r = (unsigned __int128)A * B + C64;
  out |= (uint64_t)(r >> 64 != 0) << l;
  isa_wr64(w, &in->o[0], l, (uint64_t)r);
  END
  mask_write(w, &in->o[1], out);
}
static void v_mad_i64_i32(isa_wave *w, const isa_inst *in) {
  const int s0 = 2;
  uint64_t out = 0;
  LANES __int128 r = (__int128)(int32_t)A * (int32_t)B + (int64_t)C64;
  out |= (uint64_t)(r != (int64_t)r) << l;
  isa_wr64(w, &in->o[0], l, (uint64_t)r);
  END
  mask_write(w, &in->o[1], out);
}
static void v_cndmask_b32(isa_wave *w, const isa_inst *in) {
  const int s0 = 1;
  uint64_t m = mask_read(w, &in->o[3]);
  LANES isa_wr(w, &in->o[0], l, m >> l & 1 ? B : A);
  END
}
static void v_cndmask_b16(isa_wave *w, const isa_inst *in) {
  const int s0 = 1;
  uint64_t m = mask_read(w, &in->o[3]);
  LANES isa_wr(w, &in->o[0], l, (m >> l & 1 ? B : A) & 0xffff);
  END
}

/* ---------------------------------------------------------------- lane access */
static void v_readfirstlane_b32(isa_wave *w, const isa_inst *in) {
  uint64_t e = isa_exec(w);
  int l = e ? __builtin_ctzll(e) : 0;
  isa_wr_sgpr(w, in->o[0].reg, isa_rd(w, &in->o[1], l));
}
static void v_readlane_b32(isa_wave *w, const isa_inst *in) {
  int l = (int)(isa_rd(w, &in->o[2], 0) & (uint32_t)(w->lanes - 1));
  isa_wr_sgpr(w, in->o[0].reg, isa_rd(w, &in->o[1], l));
}
static void v_writelane_b32(isa_wave *w, const isa_inst *in) {
  int l = (int)(isa_rd(w, &in->o[2], 0) & (uint32_t)(w->lanes - 1));
  isa_wr(w, &in->o[0], l, isa_rd(w, &in->o[1], 0));
}

/* ---------------------------------------------------------------- VOP3P (packed) */
/* Half h (0 low, 1 high) of source i as op_sel / op_sel_hi choose, with neg_lo / neg_hi. */
static inline uint32_t pk_half(const isa_wave *w, const isa_inst *in, int i, int h, int l, bool flt) {
  uint32_t x = isa_rd(w, &in->o[1 + i], l);
  int sel = h ? in->op_sel_hi >> i & 1 : in->op_sel >> i & 1;
  uint32_t v = sel ? x >> 16 : x & 0xffff;
  if (flt && ((h ? in->neg_hi : in->neg_lo) >> i & 1))
    v ^= 0x8000;
  return v;
}
enum { P_ADD_U16, P_SUB_U16, P_MUL_LO_U16, P_MIN_U16, P_MAX_U16, P_MIN_I16, P_MAX_I16, P_LSHL, P_LSHR, P_ASHR,
       P_ADD_F16, P_MUL_F16, P_FMA_F16, P_MIN_F16, P_MAX_F16, P_MINIMUM_F16, P_MAXIMUM_F16, P_MINIMUM3_F16,
       P_MAXIMUM3_F16 };
static uint32_t pk_one(int op, uint32_t a, uint32_t b, uint32_t c) {
  switch (op) {
  case P_ADD_U16: return a + b;
  case P_SUB_U16: return a - b;
  case P_MUL_LO_U16: return a * b;
  case P_MIN_U16: return a < b ? a : b;
  case P_MAX_U16: return a > b ? a : b;
  case P_MIN_I16: return (int16_t)a < (int16_t)b ? a : b;
  case P_MAX_I16: return (int16_t)a > (int16_t)b ? a : b;
  case P_LSHL: return b << (a & 15);
  case P_LSHR: return b >> (a & 15);
  case P_ASHR: return (uint32_t)((int16_t)b >> (a & 15));
  case P_ADD_F16: return UH((double)H(a) + H(b));
  case P_MUL_F16: return UH((double)H(a) * H(b));
  case P_FMA_F16: return UH(fma(H(a), H(b), H(c)));
  case P_MIN_F16: return UH(fmin(H(a), H(b)));
  case P_MINIMUM_F16: return UH(minimumf(H(a), H(b)));
  case P_MAXIMUM_F16: return UH(maximumf(H(a), H(b)));
  case P_MINIMUM3_F16: return UH(minimumf(minimumf(H(a), H(b)), H(c)));
  case P_MAXIMUM3_F16: return UH(maximumf(maximumf(H(a), H(b)), H(c)));
  default: return UH(fmax(H(a), H(b)));
  }
}
static void vop3p_16(isa_wave *w, const isa_inst *in) {
  int op = in->def->arg, n = in->nops - 1;
  bool flt = op >= P_ADD_F16;
  LANES uint32_t r[2];
  for (int h = 0; h < 2; h++) {
    uint32_t a = pk_half(w, in, 0, h, l, flt), b = n > 1 ? pk_half(w, in, 1, h, l, flt) : 0,
             c = n > 2 ? pk_half(w, in, 2, h, l, flt) : 0;
    r[h] = pk_one(op, a, b, c) & 0xffff;
  }
  isa_wr(w, &in->o[0], l, r[0] | r[1] << 16);
  END
}
/* Packed f32 (gfx90a+): op_sel picks the dword of each 64-bit source. */
static inline float pk_f32(const isa_wave *w, const isa_inst *in, int i, int h, int l) {
  const isa_opnd *o = &in->o[1 + i];
  int sel = h ? in->op_sel_hi >> i & 1 : in->op_sel >> i & 1;
  uint32_t x = o->kind == OK_IMM ? (uint32_t)o->imm : isa_reg32(w, o, sel, l);
  if ((h ? in->neg_hi : in->neg_lo) >> i & 1)
    x ^= 0x80000000u;
  return F(x);
}
enum { PF_ADD, PF_MUL, PF_FMA, PF_MOV };
static void vop3p_f32(isa_wave *w, const isa_inst *in) {
  int op = in->def->arg;
  LANES float r[2];
  for (int h = 0; h < 2; h++) {
    if (op == PF_MOV) { /* v_pk_mov_b32: op_sel picks the dword of src0 (low) and src1 (high) */
      const isa_opnd *o = &in->o[1 + h];
      int sel = in->op_sel >> h & 1;
      r[h] = F(o->kind == OK_IMM ? (uint32_t)o->imm : isa_reg32(w, o, sel, l));
      continue;
    }
    float a = pk_f32(w, in, 0, h, l), b = pk_f32(w, in, 1, h, l);
    r[h] = op == PF_ADD ? a + b : op == PF_MUL ? a * b : fmaf(a, b, pk_f32(w, in, 2, h, l));
  }
  isa_wr64(w, &in->o[0], l, UF(r[0]) | (uint64_t)UF(r[1]) << 32);
  END
}

/* v_fma_mix*: op_sel_hi bit i makes source i an f16 (the half op_sel bit i picks), else an f32;
 * arg: 0 f32 result, 1 f16 into the low half, 2 f16 into the high half (the other kept). */
static inline float mix_src(const isa_wave *w, const isa_inst *in, int i, int l) {
  const isa_opnd *o = &in->o[1 + i];
  uint32_t x = isa_reg32(w, o, 0, l);
  float f = in->op_sel_hi >> i & 1 ? H(in->op_sel >> i & 1 ? x >> 16 : x) : F(x);
  if (o->clr)
    f = fabsf(f);
  return o->flip ? -f : f;
}
static void v_fma_mix(isa_wave *w, const isa_inst *in) {
  int kind = in->def->arg;
  LANES float r = post32(in, fmaf(mix_src(w, in, 0, l), mix_src(w, in, 1, l), mix_src(w, in, 2, l)));
  if (kind == 0) {
    isa_wr(w, &in->o[0], l, UF(r));
  } else {
    uint32_t old = isa_reg32(w, &in->o[0], 0, l), h = UH(r);
    isa_wr(w, &in->o[0], l, kind == 1 ? (old & 0xffff0000u) | h : (old & 0xffffu) | h << 16);
  }
  END
}

/* ---------------------------------------------------------------- compares */
enum { T_F16, T_F32, T_F64, T_I16, T_U16, T_I32, T_U32, T_I64, T_U64 };
enum { K_F, K_LT, K_EQ, K_LE, K_GT, K_LG, K_GE, K_O, K_U, K_NGE, K_NLG, K_NGT, K_NLE, K_NEQ, K_NLT, K_TRU, K_CLASS };

static bool fcmp(int k, double a, double b) {
  bool un = isnan(a) || isnan(b);
  switch (k) {
  case K_F: return false;
  case K_LT: return a < b;
  case K_EQ: return a == b;
  case K_LE: return a <= b;
  case K_GT: return a > b;
  case K_LG: return !un && a != b;
  case K_GE: return a >= b;
  case K_O: return !un;
  case K_U: return un;
  case K_NGE: return !(a >= b);
  case K_NLG: return un || a == b;
  case K_NGT: return !(a > b);
  case K_NLE: return !(a <= b);
  case K_NEQ: return !(a == b);
  case K_NLT: return !(a < b);
  default: return true;
  }
}
static bool fclass(double x, uint32_t mask, int width) {
  int bit;
  int c = fpclassify(x);
  bool neg = signbit(x);
  if (c == FP_NAN) {
    uint64_t quiet = width == 64 ? UD(x) >> 51 & 1 : 1; /* floats arrive widened: quiet */
    bit = quiet ? 1 : 0;
  } else if (c == FP_INFINITE) {
    bit = neg ? 2 : 9;
  } else if (c == FP_ZERO) {
    bit = neg ? 5 : 6;
  } else if (c == FP_SUBNORMAL) {
    bit = neg ? 4 : 7;
  } else {
    bit = neg ? 3 : 8;
  }
  return mask >> bit & 1;
}
static bool icmp(int k, int64_t a, int64_t b) {
  switch (k) {
  case K_F: return false;
  case K_LT: return a < b;
  case K_EQ: return a == b;
  case K_LE: return a <= b;
  case K_GT: return a > b;
  case K_LG: return a != b;
  case K_GE: return a >= b;
  default: return true;
  }
}
static bool ucmp(int k, uint64_t a, uint64_t b) {
  switch (k) {
  case K_F: return false;
  case K_LT: return a < b;
  case K_EQ: return a == b;
  case K_LE: return a <= b;
  case K_GT: return a > b;
  case K_LG: return a != b;
  case K_GE: return a >= b;
  default: return true;
  }
}

static void v_cmp(isa_wave *w, const isa_inst *in) {
  bool x = in->flags & IF_CMPX;
  int s0 = in->nops == 3 ? 1 : 0, k = in->cmp, t = in->cmp_type;
  uint64_t r = 0;
  LANES bool v;
  switch (t) {
  case T_F16: v = k == K_CLASS ? fclass(H(A), B, 16) : fcmp(k, H(A), H(B)); break;
  case T_F32: v = k == K_CLASS ? fclass(F(A), B, 32) : fcmp(k, F(A), F(B)); break;
  case T_F64: v = k == K_CLASS ? fclass(D(A64), B, 64) : fcmp(k, D(A64), D(B64)); break;
  case T_I16: v = icmp(k, (int16_t)A, (int16_t)B); break;
  case T_U16: v = ucmp(k, A & 0xffff, B & 0xffff); break;
  case T_I32: v = icmp(k, (int32_t)A, (int32_t)B); break;
  case T_U32: v = ucmp(k, A, B); break;
  case T_I64: v = icmp(k, (int64_t)A64, (int64_t)B64); break;
  default: v = ucmp(k, A64, B64); break;
  }
  r |= (uint64_t)v << l;
  END
  if (s0 == 1)
    mask_write(w, &in->o[0], r);
  if (x) {
    w->s[ISA_EXEC] = (uint32_t)r;
    if (w->lanes == 64)
      w->s[ISA_EXEC + 1] = (uint32_t)(r >> 32);
  }
}

const isa_opdef isa_cmp_def = {"v_cmp", v_cmp, 0, 0, 0};

/* ---------------------------------------------------------------- scalar float (gfx12 SALU) */
/* gfx12's SOP1/SOP2/SOPC float operations: one value per wave, in SGPRs; SCC is only written by
 * the compares. They live here for the float helpers they share with the VALU. A 16-bit result
 * clears the high half of its SGPR. */
enum {
  SF_ADD, SF_SUB, SF_MUL, SF_FMAC, SF_FMAAK, SF_FMAMK, SF_MIN_NUM, SF_MAX_NUM, SF_MINIMUM, SF_MAXIMUM,
  SF_CEIL, SF_FLOOR, SF_TRUNC, SF_RNDNE, SF_EXP, SF_LOG, SF_RCP, SF_RSQ, SF_SQRT, SF_CVT_PK_RTZ, SF_CVT_F32_I32, SF_CVT_F32_U32, SF_CVT_I32_F32,
  SF_CVT_U32_F32, SF_CVT_F16_F32, SF_CVT_F32_F16, SF_CVT_HI_F32_F16,
};

/* In double: + - * of f32 or f16 values rounded once more to their width give the correctly
 * rounded result (53 >= 2 x 24 + 2); fma is rounded by fma itself (f32) or as v_fma_f16 does. */
static double s_float_arith(int op, double a, double b, double c) {
  switch (op) {
  case SF_ADD: return a + b;
  case SF_SUB: return a - b;
  case SF_MUL: return a * b;
  case SF_FMAC:
  case SF_FMAAK:
  case SF_FMAMK: return fma(a, b, c);
  case SF_MIN_NUM: return fmin(a, b);
  case SF_MAX_NUM: return fmax(a, b);
  case SF_MINIMUM: return minimumf((float)a, (float)b);
  case SF_MAXIMUM: return maximumf((float)a, (float)b);
  case SF_CEIL: return ceil(a);
  case SF_FLOOR: return floor(a);
  case SF_TRUNC: return trunc(a);
  /* v_s_*: exact, as the VALU's transcendental approximations are computed here */
  case SF_EXP: return exp2(a);
  case SF_LOG: return log2(a);
  case SF_RCP: return 1.0 / a;
  case SF_RSQ: return 1.0 / sqrt(a);
  case SF_SQRT: return sqrt(a);
  default: return rint(a);
  }
}

/* arg: the operation, arg2: the float width (16 or 32). s_fmac reads its destination as the
 * addend; s_fmaak (S0 * S1 + K) and s_fmamk (S0 * K + S1) take their operands in the order the
 * disassembler prints them. */
static void s_float(isa_wave *w, const isa_inst *in) {
  int op = in->def->arg;
  bool half = in->def->arg2 == 16;
  uint32_t u[3] = {0, 0, 0};
  for (int i = 0; i + 1 < in->nops && i < 3; i++)
    u[i] = isa_rd(w, &in->o[1 + i], 0);
  if (op == SF_FMAC)
    u[2] = isa_rd(w, &in->o[0], 0);
  bool fused = op == SF_FMAC || op == SF_FMAAK || op == SF_FMAMK;
  uint32_t d;
  if (half)
    d = UH(s_float_arith(op, H(u[0]), H(u[1]), H(u[2])));
  else if (fused)
    d = UF(fmaf(F(u[0]), F(u[1]), F(u[2])));
  else
    d = UF((float)s_float_arith(op, F(u[0]), F(u[1]), F(u[2])));
  isa_wr_sgpr(w, in->o[0].reg, d);
}

static void s_float_cvt(isa_wave *w, const isa_inst *in) {
  uint32_t a = isa_rd(w, &in->o[1], 0), d;
  switch (in->def->arg) {
  case SF_CVT_PK_RTZ: d = UH_rtz(F(a)) | UH_rtz(F(isa_rd(w, &in->o[2], 0))) << 16; break;
  case SF_CVT_F32_I32: d = UF((float)(int32_t)a); break;
  case SF_CVT_F32_U32: d = UF((float)a); break;
  case SF_CVT_I32_F32: d = f2i(F(a), -2147483648.0, 2147483647.0); break;
  case SF_CVT_U32_F32: d = f2i(F(a), 0, 4294967295.0); break;
  case SF_CVT_F16_F32: d = UH(F(a)); break;
  case SF_CVT_F32_F16: d = UF(H(a)); break;
  default: d = UF(H(a >> 16)); break;
  }
  isa_wr_sgpr(w, in->o[0].reg, d);
}

static void s_cmp_float(isa_wave *w, const isa_inst *in) {
  uint32_t a = isa_rd(w, &in->o[0], 0), b = isa_rd(w, &in->o[1], 0);
  w->scc = in->cmp_type == T_F16 ? fcmp(in->cmp, H(a), H(b)) : fcmp(in->cmp, F(a), F(b));
}

bool isa_valu_cmp(const char *name, isa_inst *in) {
  static const char *const conds[] = {"f", "lt", "eq", "le", "gt", "lg", "ge", "o", "u", "nge", "nlg", "ngt",
                                      "nle", "neq", "nlt", "tru", "class"};
  static const char *const types[] = {"f16", "f32", "f64", "i16", "u16", "i32", "u32", "i64", "u64"};
  bool x = !strncmp(name, "v_cmpx_", 7), scalar = name[0] == 's';
  const char *p = name + (x ? 7 : 6);
  const char *us = strchr(p, '_');
  if (!us)
    return false;
  size_t n = (size_t)(us - p);
  int k = -1, t = -1;
  for (int i = 0; i < (int)(sizeof conds / sizeof conds[0]); i++)
    if (strlen(conds[i]) == n && !strncmp(p, conds[i], n))
      k = i;
  if (n == 2 && !strncmp(p, "ne", 2))
    k = K_LG;
  if (n == 1 && !strncmp(p, "t", 1))
    k = K_TRU;
  for (int i = 0; i < (int)(sizeof types / sizeof types[0]); i++)
    if (!strcmp(us + 1, types[i]))
      t = i;
  if (k < 0 || t < 0 || (t >= T_I16 && k > K_GE && k != K_TRU))
    return false;
  /* the scalar compares: the float types, the conditions lt..nlt */
  if (scalar && (t > T_F32 || k == K_F || k >= K_TRU))
    return false;
  in->cmp = (uint8_t)k;
  in->cmp_type = (uint8_t)t;
  in->fn = scalar ? s_cmp_float : v_cmp;
  if (x)
    in->flags |= IF_CMPX;
  return true;
}

/* ---------------------------------------------------------------- DPP */
/* Source lane of lane l under dpp_ctrl, or -1 when it lies outside the row / wave. */
static int dpp_lane(int ctrl, int l, int lanes) {
  int row = l & ~15, r = l & 15;
  if (ctrl <= 0xff)
    return (l & ~3) | ((ctrl >> (2 * (l & 3))) & 3);
  int n = ctrl & 15;
  switch (ctrl & ~15) {
  case 0x100: return r + n < 16 ? l + n : -1;
  case 0x110: return r >= n ? l - n : -1;
  case 0x120: return row | ((r - n) & 15);
  case 0x150: return row | n;
  case 0x160: return row | (r ^ n);
  }
  switch (ctrl) {
  case 0x130: return l + 1 < lanes ? l + 1 : -1;
  case 0x134: return (l + 1) % lanes;
  case 0x138: return l >= 1 ? l - 1 : -1;
  case 0x13c: return (l + lanes - 1) % lanes;
  case 0x140: return row | (15 - r);
  case 0x141: return (l & ~7) | (7 - (l & 7));
  case 0x142: return row >= 16 ? row - 1 : -1;
  case 0x143: return row >= 32 ? 31 : -1;
  }
  return -1;
}

void isa_exec_dpp(isa_wave *w, const isa_inst *in) {
  const isa_inst *inner = in->dual;
  const isa_opnd *src = &in->o[in->dpp_src];
  int stage = inner->o[in->dpp_src].reg;
  uint64_t exec = isa_exec(w), write = 0;
  LANES int row = l >> 4, bank = (l >> 2) & 3;
  if (!(in->row_mask >> row & 1) || !(in->bank_mask >> bank & 1))
    continue;
  int s = dpp_lane(in->dpp_ctrl, l, w->lanes);
  bool valid = s >= 0 && (in->fetch_inactive || (exec >> s & 1));
  if (!valid && !in->bound_ctrl)
    continue;
  w->v[stage * ISA_LANES + l] = valid ? w->v[src->reg * ISA_LANES + s] : 0;
  write |= 1ull << l;
  END
  uint32_t lo = w->s[ISA_EXEC], hi = w->s[ISA_EXEC + 1];
  w->s[ISA_EXEC] = (uint32_t)write, w->s[ISA_EXEC + 1] = (uint32_t)(write >> 32);
  inner->fn(w, inner);
  /* The operation may have written EXEC (v_cmpx); otherwise the mask returns. */
  if (w->s[ISA_EXEC] == (uint32_t)write && w->s[ISA_EXEC + 1] == (uint32_t)(write >> 32))
    w->s[ISA_EXEC] = lo, w->s[ISA_EXEC + 1] = hi;
}

/* ---------------------------------------------------------------- VOPD */
/* Both halves read their sources before either writes: the first half works on the staging
 * register (the decoder pointed its destination there), which then moves to the real one. */
void isa_exec_dual(isa_wave *w, const isa_inst *in) {
  const isa_inst *x = in->dual, *y = x->dual;
  int stage = x->o[0].reg, dst = in->o[0].reg;
  LANES w->v[stage * ISA_LANES + l] = w->v[dst * ISA_LANES + l]; /* v_dual_fmac reads it */
  END
  x->fn(w, x);
  y->fn(w, y);
  LANES w->v[dst * ISA_LANES + l] = w->v[stage * ISA_LANES + l];
  END
}

const isa_opdef isa_ops_valu[] = {
    {"s_add_f32", s_float, 0, SF_ADD, 32},
    {"s_add_f16", s_float, 0, SF_ADD, 16},
    {"s_sub_f32", s_float, 0, SF_SUB, 32},
    {"s_sub_f16", s_float, 0, SF_SUB, 16},
    {"s_mul_f32", s_float, 0, SF_MUL, 32},
    {"s_mul_f16", s_float, 0, SF_MUL, 16},
    {"s_fmac_f32", s_float, 0, SF_FMAC, 32},
    {"s_fmac_f16", s_float, 0, SF_FMAC, 16},
    {"s_min_num_f32", s_float, 0, SF_MIN_NUM, 32},
    {"s_min_num_f16", s_float, 0, SF_MIN_NUM, 16},
    {"s_max_num_f32", s_float, 0, SF_MAX_NUM, 32},
    {"s_max_num_f16", s_float, 0, SF_MAX_NUM, 16},
    {"s_min_f32", s_float, 0, SF_MIN_NUM, 32},
    {"s_min_f16", s_float, 0, SF_MIN_NUM, 16},
    {"s_max_f32", s_float, 0, SF_MAX_NUM, 32},
    {"s_max_f16", s_float, 0, SF_MAX_NUM, 16},
    {"s_minimum_f32", s_float, 0, SF_MINIMUM, 32},
    {"s_minimum_f16", s_float, 0, SF_MINIMUM, 16},
    {"s_maximum_f32", s_float, 0, SF_MAXIMUM, 32},
    {"s_maximum_f16", s_float, 0, SF_MAXIMUM, 16},
    {"s_ceil_f32", s_float, 0, SF_CEIL, 32},
    {"s_ceil_f16", s_float, 0, SF_CEIL, 16},
    {"s_floor_f32", s_float, 0, SF_FLOOR, 32},
    {"s_floor_f16", s_float, 0, SF_FLOOR, 16},
    {"s_trunc_f32", s_float, 0, SF_TRUNC, 32},
    {"s_trunc_f16", s_float, 0, SF_TRUNC, 16},
    {"s_rndne_f32", s_float, 0, SF_RNDNE, 32},
    {"s_rndne_f16", s_float, 0, SF_RNDNE, 16},
    {"v_s_exp_f32", s_float, 0, SF_EXP, 32},
    {"v_s_exp_f16", s_float, 0, SF_EXP, 16},
    {"v_s_log_f32", s_float, 0, SF_LOG, 32},
    {"v_s_log_f16", s_float, 0, SF_LOG, 16},
    {"v_s_rcp_f32", s_float, 0, SF_RCP, 32},
    {"v_s_rcp_f16", s_float, 0, SF_RCP, 16},
    {"v_s_rsq_f32", s_float, 0, SF_RSQ, 32},
    {"v_s_rsq_f16", s_float, 0, SF_RSQ, 16},
    {"v_s_sqrt_f32", s_float, 0, SF_SQRT, 32},
    {"v_s_sqrt_f16", s_float, 0, SF_SQRT, 16},
    {"s_fmaak_f32", s_float, 0, SF_FMAAK, 32},
    {"s_fmamk_f32", s_float, 0, SF_FMAMK, 32},
    {"s_cvt_pk_rtz_f16_f32", s_float_cvt, 0, SF_CVT_PK_RTZ, 0},
    {"s_cvt_f32_i32", s_float_cvt, 0, SF_CVT_F32_I32, 0},
    {"s_cvt_f32_u32", s_float_cvt, 0, SF_CVT_F32_U32, 0},
    {"s_cvt_i32_f32", s_float_cvt, 0, SF_CVT_I32_F32, 0},
    {"s_cvt_u32_f32", s_float_cvt, 0, SF_CVT_U32_F32, 0},
    {"s_cvt_f16_f32", s_float_cvt, 0, SF_CVT_F16_F32, 0},
    {"s_cvt_f32_f16", s_float_cvt, 0, SF_CVT_F32_F16, 0},
    {"s_cvt_hi_f32_f16", s_float_cvt, 0, SF_CVT_HI_F32_F16, 0},
    {"v_add_f32", v_add_f32, 0, 0, 0},
    {"v_sub_f32", v_sub_f32, 0, 0, 0},
    {"v_subrev_f32", v_subrev_f32, 0, 0, 0},
    {"v_mul_f32", v_mul_f32, 0, 0, 0},
    {"v_mul_legacy_f32", v_mul_legacy_f32, 0, 0, 0},
    {"v_mul_dx9_zero_f32", v_mul_legacy_f32, 0, 0, 0},
    {"v_min_f32", v_min_f32, 0, 0, 0},
    {"v_max_f32", v_max_f32, 0, 0, 0},
    {"v_min_num_f32", v_min_f32, 0, 0, 0},
    {"v_maximum_f32", v_maximum_f32, 0, 0, 0},
    {"v_minimum_f32", v_minimum_f32, 0, 0, 0},
    {"v_maximum3_f32", v_maximum3_f32, 0, 0, 0},
    {"v_minimum3_f32", v_minimum3_f32, 0, 0, 0},
    {"v_max_num_f32", v_max_f32, 0, 0, 0},
    {"v_fma_f32", v_fma_f32, 0, 0, 0},
    {"v_fmac_f32", v_fmac_f32, 0, 0, 0},
    /* the constant forms print their operands in multiply-add order: src0, K, src1 / src0, src1, K */
    {"v_fmamk_f32", v_fma_f32, 0, 0, 0},
    {"v_fmaak_f32", v_fma_f32, 0, 0, 0},
    {"v_madmk_f32", v_mad_f32, 0, 0, 0},
    {"v_madak_f32", v_mad_f32, 0, 0, 0},
    {"v_fmamk_f16", v_fma_f16, 0, 0, 0},
    {"v_fmaak_f16", v_fma_f16, 0, 0, 0},
    {"v_mac_f32", v_mac_f32, 0, 0, 0},
    {"v_mad_f32", v_mad_f32, 0, 0, 0},
    {"v_min3_f32", v_min3_f32, 0, 0, 0},
    {"v_max3_f32", v_max3_f32, 0, 0, 0},
    {"v_max3_num_f32", v_max3_f32, 0, 0, 0},
    {"v_min3_num_f32", v_min3_f32, 0, 0, 0},
    {"v_med3_f32", v_med3_f32, 0, 0, 0},
    {"v_exp_f32", v_exp_f32, 0, 0, 0},
    {"v_log_f32", v_log_f32, 0, 0, 0},
    {"v_rcp_f32", v_rcp_f32, 0, 0, 0},
    {"v_rcp_iflag_f32", v_rcp_f32, 0, 0, 0},
    {"v_rsq_f32", v_rsq_f32, 0, 0, 0},
    {"v_sqrt_f32", v_sqrt_f32, 0, 0, 0},
    {"v_sin_f32", v_sin_f32, 0, 0, 0},
    {"v_cos_f32", v_cos_f32, 0, 0, 0},
    {"v_floor_f32", v_floor_f32, 0, 0, 0},
    {"v_ceil_f32", v_ceil_f32, 0, 0, 0},
    {"v_trunc_f32", v_trunc_f32, 0, 0, 0},
    {"v_rndne_f32", v_rndne_f32, 0, 0, 0},
    {"v_fract_f32", v_fract_f32, 0, 0, 0},
    {"v_frexp_mant_f32", v_frexp_mant_f32, 0, 0, 0},
    {"v_frexp_exp_i32_f32", v_frexp_exp_i32_f32, 0, 0, 0},
    {"v_ldexp_f32", v_ldexp_f32, 0, 0, 0},
    {"v_div_scale_f32", v_div_scale_f32, 0, 0, 0},
    {"v_div_fmas_f32", v_div_fmas_f32, 0, 0, 0},
    {"v_div_fixup_f32", v_div_fixup_f32, 0, 0, 0},
    {"v_add_f64", v_add_f64, 0, 0, 0},
    {"v_mul_f64", v_mul_f64, 0, 0, 0},
    {"v_min_f64", v_min_f64, 0, 0, 0},
    {"v_max_f64", v_max_f64, 0, 0, 0},
    {"v_fma_f64", v_fma_f64, 0, 0, 0},
    {"v_fmac_f64", v_fmac_f64, 0, 0, 0},
    {"v_rcp_f64", v_rcp_f64, 0, 0, 0},
    {"v_rsq_f64", v_rsq_f64, 0, 0, 0},
    {"v_sqrt_f64", v_sqrt_f64, 0, 0, 0},
    {"v_floor_f64", v_floor_f64, 0, 0, 0},
    {"v_ceil_f64", v_ceil_f64, 0, 0, 0},
    {"v_trunc_f64", v_trunc_f64, 0, 0, 0},
    {"v_rndne_f64", v_rndne_f64, 0, 0, 0},
    {"v_fract_f64", v_fract_f64, 0, 0, 0},
    {"v_frexp_mant_f64", v_frexp_mant_f64, 0, 0, 0},
    {"v_frexp_exp_i32_f64", v_frexp_exp_i32_f64, 0, 0, 0},
    {"v_ldexp_f64", v_ldexp_f64, 0, 0, 0},
    {"v_div_scale_f64", v_div_scale_f64, 0, 0, 0},
    {"v_div_fmas_f64", v_div_fmas_f64, 0, 0, 0},
    {"v_div_fixup_f64", v_div_fixup_f64, 0, 0, 0},
    {"v_add_f16", v_add_f16, 0, 0, 0},
    {"v_sub_f16", v_sub_f16, 0, 0, 0},
    {"v_subrev_f16", v_subrev_f16, 0, 0, 0},
    {"v_mul_f16", v_mul_f16, 0, 0, 0},
    {"v_min_f16", v_min_f16, 0, 0, 0},
    {"v_max_f16", v_max_f16, 0, 0, 0},
    {"v_fma_f16", v_fma_f16, 0, 0, 0},
    {"v_fmac_f16", v_fmac_f16, 0, 0, 0},
    {"v_med3_f16", v_med3_f16, 0, 0, 0},
    {"v_minmax_f16", v_minmax_f16, 0, 0, 0},
    {"v_maxmin_f16", v_maxmin_f16, 0, 0, 0},
    {"v_minmax_num_f16", v_minmax_f16, 0, 0, 0},
    {"v_maxmin_num_f16", v_maxmin_f16, 0, 0, 0},
    {"v_minmax_f32", v_minmax_f32, 0, 0, 0},
    {"v_maxmin_f32", v_maxmin_f32, 0, 0, 0},
    {"v_minmax_num_f32", v_minmax_f32, 0, 0, 0},
    {"v_maxmin_num_f32", v_maxmin_f32, 0, 0, 0},
    {"v_exp_f16", v_exp_f16, 0, 0, 0},
    {"v_log_f16", v_log_f16, 0, 0, 0},
    {"v_rcp_f16", v_rcp_f16, 0, 0, 0},
    {"v_rsq_f16", v_rsq_f16, 0, 0, 0},
    {"v_sqrt_f16", v_sqrt_f16, 0, 0, 0},
    {"v_sin_f16", v_sin_f16, 0, 0, 0},
    {"v_cos_f16", v_cos_f16, 0, 0, 0},
    {"v_floor_f16", v_floor_f16, 0, 0, 0},
    {"v_ceil_f16", v_ceil_f16, 0, 0, 0},
    {"v_trunc_f16", v_trunc_f16, 0, 0, 0},
    {"v_rndne_f16", v_rndne_f16, 0, 0, 0},
    {"v_fract_f16", v_fract_f16, 0, 0, 0},
    {"v_ldexp_f16", v_ldexp_f16, 0, 0, 0},
    {"v_cvt_i32_f32", v_cvt_i32_f32, 0, 0, 0},
    {"v_cvt_u32_f32", v_cvt_u32_f32, 0, 0, 0},
    {"v_cvt_f32_i32", v_cvt_f32_i32, 0, 0, 0},
    {"v_cvt_f32_u32", v_cvt_f32_u32, 0, 0, 0},
    {"v_cvt_f16_f32", v_cvt_f16_f32, 0, 0, 0},
    {"v_cvt_f32_f16", v_cvt_f32_f16, 0, 0, 0},
    {"v_cvt_i16_f16", v_cvt_i16_f16, 0, 0, 0},
    {"v_cvt_u16_f16", v_cvt_u16_f16, 0, 0, 0},
    {"v_cvt_f16_i16", v_cvt_f16_i16, 0, 0, 0},
    {"v_cvt_f16_u16", v_cvt_f16_u16, 0, 0, 0},
    {"v_cvt_flr_i32_f32", v_cvt_flr_i32_f32, 0, 0, 0},
    {"v_cvt_floor_i32_f32", v_cvt_flr_i32_f32, 0, 0, 0},
    {"v_cvt_rpi_i32_f32", v_cvt_rpi_i32_f32, 0, 0, 0},
    {"v_cvt_nearest_i32_f32", v_cvt_rpi_i32_f32, 0, 0, 0},
    {"v_cvt_f32_ubyte0", v_cvt_f32_ubyte0, 0, 0, 0},
    {"v_cvt_f32_ubyte1", v_cvt_f32_ubyte1, 0, 0, 0},
    {"v_cvt_f32_ubyte2", v_cvt_f32_ubyte2, 0, 0, 0},
    {"v_cvt_f32_ubyte3", v_cvt_f32_ubyte3, 0, 0, 0},
    {"v_cvt_pkrtz_f16_f32", v_cvt_pkrtz_f16_f32, 0, 0, 0},
    {"v_cvt_pk_rtz_f16_f32", v_cvt_pkrtz_f16_f32, 0, 0, 0},
    {"v_cvt_pk_fp8_f32", v_cvt_pk_fp8_f32, 0, 0, 0},
    {"v_cvt_pk_bf8_f32", v_cvt_pk_bf8_f32, 0, 0, 0},
    {"v_cvt_f32_fp8", v_cvt_f32_fp8, 0, 0, 0},
    {"v_cvt_f32_bf8", v_cvt_f32_bf8, 0, 0, 0},
    {"v_cvt_pk_f32_fp8", v_cvt_pk_f32_fp8, 0, 0, 0},
    {"v_cvt_pk_f32_bf8", v_cvt_pk_f32_bf8, 0, 0, 0},
    {"v_cvt_pk_i16_f32", v_cvt_pk_i16_f32, 0, 0, 0},
    {"v_cvt_pk_u16_f32", v_cvt_pk_u16_f32, 0, 0, 0},
    {"v_pack_b32_f16", v_pack_b32_f16, 0, 0, 0},
    {"v_cvt_pk_bf16_f32", v_cvt_pk_bf16_f32, 0, 0, 0},
    {"v_cvt_pk_f16_f32", v_cvt_pk_f16_f32, 0, 0, 0},
    {"v_cvt_f64_f32", v_cvt_f64_f32, 0, 0, 0},
    {"v_cvt_f64_i32", v_cvt_f64_i32, 0, 0, 0},
    {"v_cvt_f64_u32", v_cvt_f64_u32, 0, 0, 0},
    {"v_cvt_f32_f64", v_cvt_f32_f64, 0, 0, 0},
    {"v_cvt_i32_f64", v_cvt_i32_f64, 0, 0, 0},
    {"v_cvt_u32_f64", v_cvt_u32_f64, 0, 0, 0},
    {"v_mov_b32", v_mov_b32, 0, 0, 0},
    {"v_mbcnt_lo_u32_b32", v_mbcnt, 0, 0, 0},
    {"v_mbcnt_hi_u32_b32", v_mbcnt, 0, 1, 0},
    {"v_accvgpr_write_b32", v_mov_b32, 0, 0, 0},
    {"v_accvgpr_read_b32", v_mov_b32, 0, 0, 0},
    {"v_accvgpr_mov_b32", v_mov_b32, 0, 0, 0},
    {"v_bitop3_b32", v_bitop3_b32, 0, 0, 0},
    {"v_bitop3_b16", v_bitop3_b16, 0, 0, 0},
    {"v_minimummaximum_f32", v_minimummaximum_f32, 0, 0, 0},
    {"v_maximumminimum_f32", v_maximumminimum_f32, 0, 0, 0},
    {"v_minimummaximum_f16", v_minimummaximum_f16, 0, 0, 0},
    {"v_maximumminimum_f16", v_maximumminimum_f16, 0, 0, 0},
    {"v_min_num_f64", v_min_f64, 0, 0, 0},
    {"v_max_num_f64", v_max_f64, 0, 0, 0},
    {"v_mov_b64", v_mov_b64, 0, 0, 0},
    {"v_not_b32", v_not_b32, 0, 0, 0},
    {"v_bfrev_b32", v_bfrev_b32, 0, 0, 0},
    {"v_ffbh_u32", v_ffbh_u32, 0, 0, 0},
    {"v_clz_i32_u32", v_ffbh_u32, 0, 0, 0},
    {"v_ffbl_b32", v_ffbl_b32, 0, 0, 0},
    {"v_ctz_i32_b32", v_ffbl_b32, 0, 0, 0},
    {"v_ffbh_i32", v_ffbh_i32, 0, 0, 0},
    {"v_cls_i32", v_ffbh_i32, 0, 0, 0},
    {"v_bcnt_u32_b32", v_bcnt_u32_b32, 0, 0, 0},
    {"v_and_b32", v_and_b32, 0, 0, 0},
    {"v_or_b32", v_or_b32, 0, 0, 0},
    {"v_xor_b32", v_xor_b32, 0, 0, 0},
    {"v_xnor_b32", v_xnor_b32, 0, 0, 0},
    {"v_add_u32", v_add_u32, 0, 0, 0},
    {"v_add_nc_u32", v_add_u32, 0, 0, 0},
    {"v_sub_u32", v_sub_u32, 0, 0, 0},
    {"v_sub_nc_u32", v_sub_u32, 0, 0, 0},
    {"v_subrev_u32", v_subrev_u32, 0, 0, 0},
    {"v_subrev_nc_u32", v_subrev_u32, 0, 0, 0},
    {"v_lshlrev_b32", v_lshlrev_b32, 0, 0, 0},
    {"v_lshrrev_b32", v_lshrrev_b32, 0, 0, 0},
    {"v_ashrrev_i32", v_ashrrev_i32, 0, 0, 0},
    {"v_min_i32", v_min_i32, 0, 0, 0},
    {"v_max_i32", v_max_i32, 0, 0, 0},
    {"v_min_u32", v_min_u32, 0, 0, 0},
    {"v_max_u32", v_max_u32, 0, 0, 0},
    {"v_mul_lo_u32", v_mul_lo_u32, 0, 0, 0},
    {"v_mul_hi_u32", v_mul_hi_u32, 0, 0, 0},
    {"v_mul_hi_i32", v_mul_hi_i32, 0, 0, 0},
    {"v_mul_u32_u24", v_mul_u32_u24, 0, 0, 0},
    {"v_mul_hi_u32_u24", v_mul_hi_u32_u24, 0, 0, 0},
    {"v_mul_i32_i24", v_mul_i32_i24, 0, 0, 0},
    {"v_mul_hi_i32_i24", v_mul_hi_i32_i24, 0, 0, 0},
    {"v_mad_u32_u24", v_mad_u32_u24, 0, 0, 0},
    {"v_mad_i32_i24", v_mad_i32_i24, 0, 0, 0},
    {"v_bfe_u32", v_bfe_u32, 0, 0, 0},
    {"v_bfe_i32", v_bfe_i32, 0, 0, 0},
    {"v_bfi_b32", v_bfi_b32, 0, 0, 0},
    {"v_bfm_b32", v_bfm_b32, 0, 0, 0},
    {"v_alignbit_b32", v_alignbit_b32, 0, 0, 0},
    {"v_alignbyte_b32", v_alignbyte_b32, 0, 0, 0},
    {"v_perm_b32", v_perm_b32, 0, 0, 0},
    {"v_lshl_or_b32", v_lshl_or_b32, 0, 0, 0},
    {"v_and_or_b32", v_and_or_b32, 0, 0, 0},
    {"v_or3_b32", v_or3_b32, 0, 0, 0},
    {"v_xor3_b32", v_xor3_b32, 0, 0, 0},
    {"v_lshl_add_u32", v_lshl_add_u32, 0, 0, 0},
    {"v_add_lshl_u32", v_add_lshl_u32, 0, 0, 0},
    {"v_add3_u32", v_add3_u32, 0, 0, 0},
    {"v_xad_u32", v_xad_u32, 0, 0, 0},
    {"v_min3_i32", v_min3_i32_fn, 0, 0, 0},
    {"v_max3_i32", v_max3_i32_fn, 0, 0, 0},
    {"v_med3_i32", v_med3_i32, 0, 0, 0},
    {"v_med3_u32", v_med3_u32, 0, 0, 0},
    {"v_sad_u32", v_sad_u32, 0, 0, 0},
    {"v_add_u16", v_add_u16, 0, 0, 0},
    {"v_add_nc_u16", v_add_u16, 0, 0, 0},
    {"v_sub_u16", v_sub_u16, 0, 0, 0},
    {"v_sub_nc_u16", v_sub_u16, 0, 0, 0},
    {"v_subrev_u16", v_subrev_u16, 0, 0, 0},
    {"v_mul_lo_u16", v_mul_lo_u16, 0, 0, 0},
    {"v_lshlrev_b16", v_lshlrev_b16, 0, 0, 0},
    {"v_lshrrev_b16", v_lshrrev_b16, 0, 0, 0},
    {"v_ashrrev_i16", v_ashrrev_i16, 0, 0, 0},
    {"v_min_u16", v_min_u16, 0, 0, 0},
    {"v_max_u16", v_max_u16, 0, 0, 0},
    {"v_min_i16", v_min_i16, 0, 0, 0},
    {"v_max_i16", v_max_i16, 0, 0, 0},
    {"v_and_b16", v_and_b16, 0, 0, 0},
    {"v_or_b16", v_or_b16, 0, 0, 0},
    {"v_xor_b16", v_xor_b16, 0, 0, 0},
    {"v_not_b16", v_not_b16, 0, 0, 0},
    {"v_mov_b16", v_mov_b16, 0, 0, 0},
    {"v_mad_u16", v_mad_u16, 0, 0, 0},
    {"v_med3_i16", v_med3_i16, 0, 0, 0},
    {"v_med3_u16", v_med3_u16, 0, 0, 0},
    {"v_min3_i16", v_min3_i16, 0, 0, 0},
    {"v_max3_i16", v_max3_i16, 0, 0, 0},
    {"v_min3_u16", v_min3_u16, 0, 0, 0},
    {"v_max3_u16", v_max3_u16, 0, 0, 0},
    {"v_min3_u32", v_min3_u32, 0, 0, 0},
    {"v_max3_u32", v_max3_u32, 0, 0, 0},
    {"v_mad_legacy_u16", v_mad_u16, 0, 0, 0},
    {"v_mad_i16", v_mad_u16, 0, 0, 0},
    {"v_mad_legacy_i16", v_mad_u16, 0, 0, 0},
    {"v_lshlrev_b64", v_lshlrev_b64, 0, 0, 0},
    {"v_lshrrev_b64", v_lshrrev_b64, 0, 0, 0},
    {"v_lshl_add_u64", v_lshl_add_u64, 0, 0, 0},
    {"v_ashrrev_i64", v_ashrrev_i64, 0, 0, 0},
    {"v_add_co_u32", carry_op, 0, 0, 0},
    {"v_sub_co_u32", carry_op, 0, 1, 0},
    {"v_subrev_co_u32", carry_op, 0, 2, 0},
    {"v_addc_co_u32", carry_op, 0, 0, 1},
    {"v_add_co_ci_u32", carry_op, 0, 0, 1},
    {"v_subb_co_u32", carry_op, 0, 1, 1},
    {"v_sub_co_ci_u32", carry_op, 0, 1, 1},
    {"v_subbrev_co_u32", carry_op, 0, 2, 1},
    {"v_subrev_co_ci_u32", carry_op, 0, 2, 1},
    {"v_mad_u64_u32", v_mad_u64_u32, 0, 0, 0},
    {"v_mad_i64_i32", v_mad_i64_i32, 0, 0, 0},
    {"v_mad_co_u64_u32", v_mad_u64_u32, 0, 0, 0},
    {"v_mad_co_i64_i32", v_mad_i64_i32, 0, 0, 0},
    {"v_cndmask_b32", v_cndmask_b32, 0, 0, 0},
    {"v_cndmask_b16", v_cndmask_b16, 0, 0, 0},
    {"v_readfirstlane_b32", v_readfirstlane_b32, 0, 0, 0},
    {"v_readlane_b32", v_readlane_b32, 0, 0, 0},
    {"v_writelane_b32", v_writelane_b32, 0, 0, 0},
    {"v_pk_add_u16", vop3p_16, 0, P_ADD_U16, 0},
    {"v_pk_sub_u16", vop3p_16, 0, P_SUB_U16, 0},
    {"v_pk_mul_lo_u16", vop3p_16, 0, P_MUL_LO_U16, 0},
    {"v_pk_min_u16", vop3p_16, 0, P_MIN_U16, 0},
    {"v_pk_max_u16", vop3p_16, 0, P_MAX_U16, 0},
    {"v_pk_min_i16", vop3p_16, 0, P_MIN_I16, 0},
    {"v_pk_max_i16", vop3p_16, 0, P_MAX_I16, 0},
    {"v_pk_lshlrev_b16", vop3p_16, 0, P_LSHL, 0},
    {"v_pk_lshrrev_b16", vop3p_16, 0, P_LSHR, 0},
    {"v_pk_ashrrev_i16", vop3p_16, 0, P_ASHR, 0},
    {"v_pk_add_f16", vop3p_16, 0, P_ADD_F16, 0},
    {"v_pk_mul_f16", vop3p_16, 0, P_MUL_F16, 0},
    {"v_pk_fma_f16", vop3p_16, 0, P_FMA_F16, 0},
    {"v_pk_min_f16", vop3p_16, 0, P_MIN_F16, 0},
    {"v_pk_max_f16", vop3p_16, 0, P_MAX_F16, 0},
    {"v_fma_mix_f32", v_fma_mix, 0, 0, 0},
    {"v_fma_mixlo_f16", v_fma_mix, 0, 1, 0},
    {"v_fma_mixhi_f16", v_fma_mix, 0, 2, 0},
    {"v_mad_mix_f32", v_fma_mix, 0, 0, 0},
    {"v_mad_mixlo_f16", v_fma_mix, 0, 1, 0},
    {"v_mad_mixhi_f16", v_fma_mix, 0, 2, 0},
    {"v_pk_minimum_f16", vop3p_16, 0, P_MINIMUM_F16, 0},
    {"v_pk_maximum_f16", vop3p_16, 0, P_MAXIMUM_F16, 0},
    {"v_pk_minimum3_f16", vop3p_16, 0, P_MINIMUM3_F16, 0},
    {"v_pk_maximum3_f16", vop3p_16, 0, P_MAXIMUM3_F16, 0},
    {"v_maximum_f16", v_maximum_f16, 0, 0, 0},
    {"v_minimum_f16", v_minimum_f16, 0, 0, 0},
    {"v_maximum3_f16", v_maximum3_f16, 0, 0, 0},
    {"v_minimum3_f16", v_minimum3_f16, 0, 0, 0},
    {"v_pk_add_f32", vop3p_f32, 0, PF_ADD, 0},
    {"v_pk_mul_f32", vop3p_f32, 0, PF_MUL, 0},
    {"v_pk_fma_f32", vop3p_f32, 0, PF_FMA, 0},
    {"v_pk_mov_b32", vop3p_f32, 0, PF_MOV, 0},
    {NULL, NULL, 0, 0, 0},
};
