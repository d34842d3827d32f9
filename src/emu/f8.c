/* f8.c: f32 to the 8-bit float encodings and back, as the fp8/bf8 conversion instructions do it
 * (v_cvt_pk_fp8_f32, v_cvt_pk_bf8_f32, v_cvt_f32_fp8, v_cvt_pk_f32_fp8 and the bf8 forms;
 * llvm.amdgcn.cvt.pk.fp8.f32, cvt.f32.fp8, cvt.pk.f32.fp8 and the bf8 ones in IR mode). */
#include "emu.h"

#include <math.h>
#include <string.h>

/* Rounded to nearest even at the format's precision, subnormals included. Past the largest
 * finite value (after rounding) and for infinities: FNUZ's only NaN 0x80, E4M3FN's NaN
 * S.1111.111 or E5M2's infinity (no saturation: the instructions have no clamp). NaN: 0x80
 * (FNUZ), S.1111.111 (OCP). FNUZ has no -0: a negative value that rounds to 0 is 0x00. */
uint32_t emu_f8_from_f32(float x, bool bf8, bool fnuz) {
  int mbits = bf8 ? 2 : 3, ebits = 7 - mbits;
  int bias = (1 << (ebits - 1)) - (fnuz ? 0 : 1), emin = 1 - bias;
  /* the largest finite: E4M3FN gives its top mantissa code to NaN, E5M2 its top exponent to
   * Inf/NaN; the FNUZ forms use every code but 0x80 */
  int emax = (1 << ebits) - 1 - bias - (!fnuz && bf8 ? 1 : 0);
  double top = ldexp((1 << (mbits + 1)) - 1 - (!fnuz && !bf8 ? 1 : 0), emax - mbits);
  uint32_t sign = signbit(x) ? 0x80u : 0u;
  if (isnan(x))
    return fnuz ? 0x80u : sign | 0x7fu;
  double a = fabs((double)x);
  int e;
  frexp(a, &e); /* a = f·2^e, f in [0.5, 1): unbiased exponent e - 1 */
  int q = (e - 1 > emin ? e - 1 : emin) - mbits;
  double r = a == 0 ? 0 : ldexp(rint(ldexp(a, -q)), q);
  if (r > top)
    return fnuz ? 0x80u : bf8 ? sign | 0x7cu : sign | 0x7fu;
  if (r == 0)
    return fnuz ? 0u : sign;
  frexp(r, &e);
  if (e - 1 < emin) /* subnormal: exponent field 0 */
    return sign | (uint32_t)ldexp(r, mbits - emin);
  uint32_t m = (uint32_t)ldexp(r, mbits - (e - 1)) - (1u << mbits);
  return sign | (uint32_t)(e - 1 + bias) << mbits | m;
}

/* Exact for every number. NaN codes (FNUZ 0x80, E4M3FN S.1111.111, E5M2 S.11111.xx with xx != 0)
 * give the quiet NaN 0x7fc00000, with the code's sign in OCP; E5M2's infinities stay infinite.
 * The NaN payload is this emulator's reading, not confirmed on hardware. */
uint32_t emu_f8_to_f32(uint32_t code, bool bf8, bool fnuz) {
  int mbits = bf8 ? 2 : 3, ebits = 7 - mbits;
  int bias = (1 << (ebits - 1)) - (fnuz ? 0 : 1);
  code &= 0xff;
  uint32_t sign = (code & 0x80u) << 24, mag = code & 0x7fu;
  uint32_t e = mag >> mbits, m = mag & ((1u << mbits) - 1);
  if (fnuz && code == 0x80u)
    return 0x7fc00000u;
  if (!fnuz && !bf8 && mag == 0x7fu)
    return sign | 0x7fc00000u;
  if (!fnuz && bf8 && e == 31u)
    return sign | (m ? 0x7fc00000u : 0x7f800000u);
  float v = e ? ldexpf((float)(m | 1u << mbits), (int)e - bias - mbits) : ldexpf((float)m, 1 - bias - mbits);
  uint32_t u;
  memcpy(&u, &v, sizeof u);
  return sign | u;
}
