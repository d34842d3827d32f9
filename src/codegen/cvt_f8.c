/* cvt_f8.c: f32 <-> 8-bit float conversion in kernel IR (casts, and any kernel that writes or
 * reads fp8 values). One semantics on every target, the non-saturating conversion of TOSA's CAST
 * (docs/ops.md, "8-bit floats"): round to nearest even at the format's precision, subnormals
 * included; a magnitude that rounds past the largest finite value, and an infinity, become
 * E5M2's infinity, E4M3FN's NaN S.1111.111 or the FNUZ NaN 0x80; NaN becomes S.1111.111 (OCP)
 * or 0x80 (FNUZ); -0 stays -0 in OCP and is 0x00 in FNUZ.
 * Targets with the fp8 conversion instructions (target_info.cvt_pk_f8: v_cvt_pk_fp8_f32 and
 * v_cvt_pk_bf8_f32 to f8, v_cvt_f32_fp8, v_cvt_pk_f32_fp8 and the bf8 forms back) convert the
 * format those use (FNUZ on gfx942, OCP on gfx950 and gfx1200: target_info.fp8_fnuz) with the
 * instructions, which without their clamp bit have these semantics (the emulators' reading,
 * docs/emulator.md, not confirmed on hardware); every other (target, format) pair takes the
 * integer arithmetic below. */
#include "codegen.h"

#include <math.h>
#include <stdlib.h>

typedef struct f8_format {
  int mb, bias, emin; /* mantissa bits, exponent bias, smallest normal exponent (unbiased) */
  bool fnuz, bf8;
  unsigned max_code;  /* largest finite magnitude code */
} f8_format;

static f8_format format_of(elem_type t) {
  f8_format f = {.bf8 = t == ET_F8E5M2 || t == ET_F8E5M2FNUZ,
                 .fnuz = t == ET_F8E4M3FNUZ || t == ET_F8E5M2FNUZ};
  f.mb = f.bf8 ? 2 : 3;
  int eb = 7 - f.mb;
  f.bias = (1 << (eb - 1)) - (f.fnuz ? 0 : 1);
  f.emin = 1 - f.bias;
  /* FNUZ: every code but 0x80 is a number; E4M3FN: S.1111.111 is NaN; E5M2: exponent 31 is
   * Inf/NaN */
  f.max_code = f.fnuz ? 0x7f : f.bf8 ? 0x7b : 0x7e;
  return f;
}

/* Constant c in the shape of `like` (scalar, or every lane of a vector). */
static LLVMValueRef splat(LLVMTypeRef like, LLVMValueRef c) {
  if (LLVMGetTypeKind(like) != LLVMVectorTypeKind)
    return c;
  unsigned n = LLVMGetVectorSize(like);
  LLVMValueRef *v = malloc(sizeof *v * n);
  for (unsigned i = 0; i < n; i++)
    v[i] = c;
  LLVMValueRef r = LLVMConstVector(v, n);
  free(v);
  return r;
}

static LLVMTypeRef shaped(LLVMTypeRef like, LLVMTypeRef et) {
  return LLVMGetTypeKind(like) == LLVMVectorTypeKind ? LLVMVectorType(et, LLVMGetVectorSize(like)) : et;
}

static LLVMValueRef ci(cg_builder *cb, LLVMTypeRef like, uint32_t v) {
  return splat(like, LLVMConstInt(cb->i32, v, 0));
}

bool cg_f8_hardware(const target_info *ti, elem_type t) {
  return ti->cvt_pk_f8 && (t == ET_F8E4M3FNUZ || t == ET_F8E5M2FNUZ) == ti->fp8_fnuz;
}

/* The instruction on pairs of lanes: cvt.pk(a, b, old, hi) writes a, b into bytes 2hi, 2hi+1. */
static LLVMValueRef hardware_to_f8(cg_builder *cb, LLVMValueRef x, bool bf8) {
  LLVMBuilderRef b = cb->b;
  const char *name = bf8 ? "llvm.amdgcn.cvt.pk.bf8.f32" : "llvm.amdgcn.cvt.pk.fp8.f32";
  LLVMValueRef zero = LLVMConstReal(cb->f32, 0.0), i32z = LLVMConstInt(cb->i32, 0, 0);
  LLVMValueRef lo = LLVMConstInt(cb->i1, 0, 0);
  if (LLVMGetTypeKind(LLVMTypeOf(x)) != LLVMVectorTypeKind) {
    LLVMValueRef a[4] = {x, zero, i32z, lo};
    return LLVMBuildTrunc(b, cg_intrinsic(cb, name, NULL, 0, a, 4), cb->i8, "");
  }
  unsigned n = LLVMGetVectorSize(LLVMTypeOf(x));
  if (n % 4 == 0) { /* four lanes per word: the second pair goes into the high half (word_sel) */
    LLVMValueRef words = LLVMGetUndef(LLVMVectorType(cb->i32, n / 4));
    for (unsigned i = 0; i < n; i += 4) {
      LLVMValueRef w = i32z;
      for (unsigned h = 0; h < 2; h++) {
        LLVMValueRef a[4] = {LLVMBuildExtractElement(b, x, LLVMConstInt(cb->i32, i + 2 * h, 0), ""),
                             LLVMBuildExtractElement(b, x, LLVMConstInt(cb->i32, i + 2 * h + 1, 0), ""),
                             w, LLVMConstInt(cb->i1, h, 0)};
        if (!(w = cg_intrinsic(cb, name, NULL, 0, a, 4)))
          return NULL;
      }
      words = LLVMBuildInsertElement(b, words, w, LLVMConstInt(cb->i32, i / 4, 0), "");
    }
    return LLVMBuildBitCast(b, words, LLVMVectorType(cb->i8, n), "");
  }
  LLVMValueRef r = LLVMGetUndef(LLVMVectorType(cb->i8, n));
  for (unsigned i = 0; i < n; i += 2) {
    LLVMValueRef a[4] = {LLVMBuildExtractElement(b, x, LLVMConstInt(cb->i32, i, 0), ""),
                         i + 1 < n ? LLVMBuildExtractElement(b, x, LLVMConstInt(cb->i32, i + 1, 0), "")
                                   : zero,
                         i32z, lo};
    LLVMValueRef w = cg_intrinsic(cb, name, NULL, 0, a, 4);
    if (!w)
      return NULL;
    for (unsigned j = i; j < n && j < i + 2; j++) {
      LLVMValueRef byte = LLVMBuildLShr(b, w, LLVMConstInt(cb->i32, 8 * (j - i), 0), "");
      r = LLVMBuildInsertElement(b, r, LLVMBuildTrunc(b, byte, cb->i8, ""),
                                 LLVMConstInt(cb->i32, j, 0), "");
    }
  }
  return r;
}

/* Integer rounding of the f32 bits: in the normal range adding 2^(s-1) - 1 plus the kept
 * mantissa's low bit and shifting by s = 23 - mb rounds to nearest even, a carry moving into
 * the exponent; below the smallest normal the value scaled by 2^(mb - emin) is the code itself
 * (an integer 0 .. 2^mb after roundeven: exact, a power-of-two scaling). */
static LLVMValueRef software_to_f8(cg_builder *cb, LLVMValueRef x, f8_format f) {
  LLVMBuilderRef b = cb->b;
  LLVMTypeRef xt = LLVMTypeOf(x), it = shaped(xt, cb->i32);
  LLVMValueRef u = LLVMBuildBitCast(b, x, it, "");
  LLVMValueRef sign = LLVMBuildAnd(b, LLVMBuildLShr(b, u, ci(cb, xt, 24), ""), ci(cb, xt, 0x80), "");
  LLVMValueRef a = LLVMBuildAnd(b, u, ci(cb, xt, 0x7fffffff), "");
  int s = 23 - f.mb;
  LLVMValueRef odd = LLVMBuildAnd(b, LLVMBuildLShr(b, a, ci(cb, xt, (uint32_t)s), ""), ci(cb, xt, 1), "");
  LLVMValueRef r = LLVMBuildAdd(b, a, ci(cb, xt, (1u << (s - 1)) - 1), "");
  r = LLVMBuildLShr(b, LLVMBuildAdd(b, r, odd, ""), ci(cb, xt, (uint32_t)s), "");
  LLVMValueRef normal = LLVMBuildSub(b, r, ci(cb, xt, (uint32_t)(127 - f.bias) << f.mb), "");
  LLVMTypeRef ft = shaped(xt, cb->f32);
  LLVMValueRef scaled = LLVMBuildFMul(b, LLVMBuildBitCast(b, a, ft, ""),
                                      splat(xt, LLVMConstReal(cb->f32, ldexp(1.0, f.mb - f.emin))), "");
  LLVMValueRef sub = LLVMBuildFPToUI(b, cg_intrinsic(cb, "llvm.roundeven", &ft, 1, &scaled, 1), it, "");
  LLVMValueRef tiny = LLVMBuildICmp(b, LLVMIntULT, a, ci(cb, xt, (uint32_t)(127 + f.emin) << 23), "");
  LLVMValueRef code = LLVMBuildSelect(b, tiny, sub, normal, "");
  LLVMValueRef nan = LLVMBuildICmp(b, LLVMIntUGT, a, ci(cb, xt, 0x7f800000), "");
  LLVMValueRef ovf = LLVMBuildICmp(b, LLVMIntUGT, code, ci(cb, xt, f.max_code), "");
  if (f.fnuz) { /* 0x80 for NaN and overflow; no -0 */
    LLVMValueRef signed_code = LLVMBuildSelect(b, LLVMBuildICmp(b, LLVMIntEQ, code, ci(cb, xt, 0), ""),
                                               code, LLVMBuildOr(b, code, sign, ""), "");
    code = LLVMBuildSelect(b, LLVMBuildOr(b, nan, ovf, ""), ci(cb, xt, 0x80), signed_code, "");
  } else {
    code = LLVMBuildSelect(b, ovf, ci(cb, xt, f.bf8 ? 0x7c : 0x7f), code, "");
    code = LLVMBuildOr(b, LLVMBuildSelect(b, nan, ci(cb, xt, 0x7f), code, ""), sign, "");
  }
  return LLVMBuildTrunc(b, code, shaped(xt, cb->i8), "");
}

LLVMValueRef cg_f32_to_f8(cg_builder *cb, LLVMValueRef x, elem_type t) {
  f8_format f = format_of(t);
  if (cg_f8_hardware(cb->target->info, t))
    return hardware_to_f8(cb, x, f.bf8);
  return software_to_f8(cb, x, f);
}

/* The instruction reading codes: cvt.pk.f32 takes the low or high two bytes of a word,
 * cvt.f32 one byte (a lone code, or the lanes of a vector whose length is not a multiple of 4). */
static LLVMValueRef hardware_from_f8(cg_builder *cb, LLVMValueRef x, bool bf8) {
  LLVMBuilderRef b = cb->b;
  const char *one = bf8 ? "llvm.amdgcn.cvt.f32.bf8" : "llvm.amdgcn.cvt.f32.fp8";
  const char *pk = bf8 ? "llvm.amdgcn.cvt.pk.f32.bf8" : "llvm.amdgcn.cvt.pk.f32.fp8";
  LLVMValueRef i32z = LLVMConstInt(cb->i32, 0, 0);
  if (LLVMGetTypeKind(LLVMTypeOf(x)) != LLVMVectorTypeKind) {
    LLVMValueRef a[2] = {LLVMBuildZExt(b, x, cb->i32, ""), i32z};
    return cg_intrinsic(cb, one, NULL, 0, a, 2);
  }
  unsigned n = LLVMGetVectorSize(LLVMTypeOf(x));
  LLVMValueRef r = LLVMGetUndef(LLVMVectorType(cb->f32, n));
  if (n % 4 == 0) {
    LLVMValueRef words = LLVMBuildBitCast(b, x, LLVMVectorType(cb->i32, n / 4), "");
    for (unsigned i = 0; i < n; i += 4) {
      LLVMValueRef w = LLVMBuildExtractElement(b, words, LLVMConstInt(cb->i32, i / 4, 0), "");
      for (unsigned h = 0; h < 2; h++) {
        LLVMValueRef a[2] = {w, LLVMConstInt(cb->i1, h, 0)};
        LLVMValueRef two = cg_intrinsic(cb, pk, NULL, 0, a, 2);
        if (!two)
          return NULL;
        for (unsigned j = 0; j < 2; j++)
          r = LLVMBuildInsertElement(b, r, LLVMBuildExtractElement(b, two, LLVMConstInt(cb->i32, j, 0), ""),
                                     LLVMConstInt(cb->i32, i + 2 * h + j, 0), "");
      }
    }
    return r;
  }
  for (unsigned i = 0; i < n; i++) {
    LLVMValueRef e = LLVMBuildExtractElement(b, x, LLVMConstInt(cb->i32, i, 0), "");
    LLVMValueRef a[2] = {LLVMBuildZExt(b, e, cb->i32, ""), i32z};
    LLVMValueRef v = cg_intrinsic(cb, one, NULL, 0, a, 2);
    if (!v)
      return NULL;
    r = LLVMBuildInsertElement(b, r, v, LLVMConstInt(cb->i32, i, 0), "");
  }
  return r;
}

/* Exact: the magnitude bits moved under an f32 exponent rebased by 127 - bias (normal codes) or
 * the mantissa integer scaled by 2^(emin - mb) (subnormals, so no f32 denormal is ever formed).
 * NaN codes become the quiet NaN 0x7fc00000 (with the code's sign in OCP), as the conversion
 * instructions write them in the emulators (docs/emulator.md). */
LLVMValueRef cg_f8_to_f32(cg_builder *cb, LLVMValueRef x, elem_type t) {
  LLVMBuilderRef b = cb->b;
  f8_format f = format_of(t);
  if (cg_f8_hardware(cb->target->info, t))
    return hardware_from_f8(cb, x, f.bf8);
  LLVMTypeRef xt = LLVMTypeOf(x), it = shaped(xt, cb->i32), ft = shaped(xt, cb->f32);
  LLVMValueRef c = LLVMBuildZExt(b, x, it, "");
  LLVMValueRef sign = LLVMBuildShl(b, LLVMBuildAnd(b, c, ci(cb, xt, 0x80), ""), ci(cb, xt, 24), "");
  LLVMValueRef mag = LLVMBuildAnd(b, c, ci(cb, xt, 0x7f), "");
  LLVMValueRef e = LLVMBuildLShr(b, mag, ci(cb, xt, (uint32_t)f.mb), "");
  LLVMValueRef m = LLVMBuildAnd(b, mag, ci(cb, xt, (1u << f.mb) - 1), "");
  LLVMValueRef normal = LLVMBuildAdd(b, LLVMBuildShl(b, mag, ci(cb, xt, (uint32_t)(23 - f.mb)), ""),
                                     ci(cb, xt, (uint32_t)(127 - f.bias) << 23), "");
  LLVMValueRef sub = LLVMBuildFMul(b, LLVMBuildUIToFP(b, m, ft, ""),
                                   splat(xt, LLVMConstReal(cb->f32, ldexp(1.0, f.emin - f.mb))), "");
  LLVMValueRef bits = LLVMBuildSelect(b, LLVMBuildICmp(b, LLVMIntEQ, e, ci(cb, xt, 0), ""),
                                      LLVMBuildBitCast(b, sub, it, ""), normal, "");
  bits = LLVMBuildOr(b, bits, sign, "");
  LLVMValueRef qnan = ci(cb, xt, 0x7fc00000);
  if (f.fnuz) {
    bits = LLVMBuildSelect(b, LLVMBuildICmp(b, LLVMIntEQ, c, ci(cb, xt, 0x80), ""), qnan, bits, "");
  } else if (!f.bf8) {
    LLVMValueRef isnan = LLVMBuildICmp(b, LLVMIntEQ, mag, ci(cb, xt, 0x7f), "");
    bits = LLVMBuildSelect(b, isnan, LLVMBuildOr(b, qnan, sign, ""), bits, "");
  } else {
    LLVMValueRef top = LLVMBuildICmp(b, LLVMIntEQ, e, ci(cb, xt, 31), "");
    LLVMValueRef inf = LLVMBuildICmp(b, LLVMIntEQ, m, ci(cb, xt, 0), "");
    LLVMValueRef special = LLVMBuildSelect(b, inf, ci(cb, xt, 0x7f800000), qnan, "");
    bits = LLVMBuildSelect(b, top, LLVMBuildOr(b, special, sign, ""), bits, "");
  }
  return LLVMBuildBitCast(b, bits, ft, "");
}
