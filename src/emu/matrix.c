/* Wave-level matrix instructions (MFMA, WMMA): closed-form per-lane layouts and D = A x B + C. */
#include "emu.h"

#include <math.h>
#include <pthread.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>

/* Processor families; the same intrinsic may decode FP8 differently per family (FNUZ vs OCP). */
enum { P908 = 1, P90A = 2, P942 = 4, P950 = 8, P11 = 16, P12 = 32 };
#define CDNA_ALL (P908 | P90A | P942 | P950)

typedef enum {
  T_F32, T_XF32, T_F64, T_F16, T_BF16, T_I8, T_IU8, T_IU4, T_FP8, T_BF8, T_I32, T_FP4
} mx_type;

/* How elements map to (lane, element-in-lane). Each kind is one closed form below. */
typedef enum {
  L_MFMA,     /* gfx9 MFMA, 4-byte accumulators */
  L_MFMA_F64, /* gfx9 f64 MFMA: same A/B, different C/D row interleave */
  L_WMMA11,   /* RDNA3: A/B replicated per 16-lane group, D rows interleave over groups */
  L_WMMA12,   /* RDNA4: K split over 16-lane groups, D rows in blocks of 8 */
} mx_layout;

typedef struct mx_instr {
  const char *intrinsic; /* LLVM name without overload suffix */
  unsigned procs;
  mx_layout layout;
  int m, n, k, blocks;
  mx_type a, b, cd;
  bool scaled; /* gfx950 block-scaled f8f6f4: one E8M0 scale per lane for A and for B */
} mx_instr;

/* One row per instruction; the layout follows from (layout, m, n, k, blocks, types). */
static const mx_instr mx_table[] = {
#define MF(name, procs, m, n, k, blk, a, b, cd) \
  {"llvm.amdgcn.mfma." name, procs, L_MFMA, m, n, k, blk, a, b, cd, false},
  /* f32 */
  MF("f32.32x32x1f32", CDNA_ALL, 32, 32, 1, 2, T_F32, T_F32, T_F32)
  MF("f32.16x16x1f32", CDNA_ALL, 16, 16, 1, 4, T_F32, T_F32, T_F32)
  MF("f32.4x4x1f32", CDNA_ALL, 4, 4, 1, 16, T_F32, T_F32, T_F32)
  MF("f32.32x32x2f32", CDNA_ALL, 32, 32, 2, 1, T_F32, T_F32, T_F32)
  MF("f32.16x16x4f32", CDNA_ALL, 16, 16, 4, 1, T_F32, T_F32, T_F32)
  /* f16 */
  MF("f32.32x32x4f16", CDNA_ALL, 32, 32, 4, 2, T_F16, T_F16, T_F32)
  MF("f32.16x16x4f16", CDNA_ALL, 16, 16, 4, 4, T_F16, T_F16, T_F32)
  MF("f32.4x4x4f16", CDNA_ALL, 4, 4, 4, 16, T_F16, T_F16, T_F32)
  MF("f32.32x32x8f16", CDNA_ALL, 32, 32, 8, 1, T_F16, T_F16, T_F32)
  MF("f32.16x16x16f16", CDNA_ALL, 16, 16, 16, 1, T_F16, T_F16, T_F32)
  /* i8 */
  MF("i32.32x32x4i8", CDNA_ALL, 32, 32, 4, 2, T_I8, T_I8, T_I32)
  MF("i32.16x16x4i8", CDNA_ALL, 16, 16, 4, 4, T_I8, T_I8, T_I32)
  MF("i32.4x4x4i8", CDNA_ALL, 4, 4, 4, 16, T_I8, T_I8, T_I32)
  MF("i32.32x32x8i8", P908 | P90A, 32, 32, 8, 1, T_I8, T_I8, T_I32)
  MF("i32.16x16x16i8", P908 | P90A, 16, 16, 16, 1, T_I8, T_I8, T_I32)
  /* bf16, 2 per lane (gfx908/gfx90a only) */
  MF("f32.32x32x2bf16", P908 | P90A, 32, 32, 2, 2, T_BF16, T_BF16, T_F32)
  MF("f32.16x16x2bf16", P908 | P90A, 16, 16, 2, 4, T_BF16, T_BF16, T_F32)
  MF("f32.4x4x2bf16", P908 | P90A, 4, 4, 2, 16, T_BF16, T_BF16, T_F32)
  MF("f32.32x32x4bf16", P908 | P90A, 32, 32, 4, 1, T_BF16, T_BF16, T_F32)
  MF("f32.16x16x8bf16", P908 | P90A, 16, 16, 8, 1, T_BF16, T_BF16, T_F32)
  /* bf16 _1k, 4 per lane */
  MF("f32.32x32x4bf16.1k", P90A | P942 | P950, 32, 32, 4, 2, T_BF16, T_BF16, T_F32)
  MF("f32.16x16x4bf16.1k", P90A | P942 | P950, 16, 16, 4, 4, T_BF16, T_BF16, T_F32)
  MF("f32.4x4x4bf16.1k", P90A | P942 | P950, 4, 4, 4, 16, T_BF16, T_BF16, T_F32)
  MF("f32.32x32x8bf16.1k", P90A | P942 | P950, 32, 32, 8, 1, T_BF16, T_BF16, T_F32)
  MF("f32.16x16x16bf16.1k", P90A | P942 | P950, 16, 16, 16, 1, T_BF16, T_BF16, T_F32)
  /* gfx942: i8 with 8 per lane, xf32, fp8/bf8 (FNUZ on gfx942, OCP on gfx950) */
  MF("i32.16x16x32.i8", P942 | P950, 16, 16, 32, 1, T_I8, T_I8, T_I32)
  MF("i32.32x32x16.i8", P942 | P950, 32, 32, 16, 1, T_I8, T_I8, T_I32)
  MF("f32.16x16x8.xf32", P942, 16, 16, 8, 1, T_XF32, T_XF32, T_F32)
  MF("f32.32x32x4.xf32", P942, 32, 32, 4, 1, T_XF32, T_XF32, T_F32)
  MF("f32.16x16x32.fp8.fp8", P942 | P950, 16, 16, 32, 1, T_FP8, T_FP8, T_F32)
  MF("f32.16x16x32.fp8.bf8", P942 | P950, 16, 16, 32, 1, T_FP8, T_BF8, T_F32)
  MF("f32.16x16x32.bf8.fp8", P942 | P950, 16, 16, 32, 1, T_BF8, T_FP8, T_F32)
  MF("f32.16x16x32.bf8.bf8", P942 | P950, 16, 16, 32, 1, T_BF8, T_BF8, T_F32)
  MF("f32.32x32x16.fp8.fp8", P942 | P950, 32, 32, 16, 1, T_FP8, T_FP8, T_F32)
  MF("f32.32x32x16.fp8.bf8", P942 | P950, 32, 32, 16, 1, T_FP8, T_BF8, T_F32)
  MF("f32.32x32x16.bf8.fp8", P942 | P950, 32, 32, 16, 1, T_BF8, T_FP8, T_F32)
  MF("f32.32x32x16.bf8.bf8", P942 | P950, 32, 32, 16, 1, T_BF8, T_BF8, T_F32)
  /* gfx950 K-doubled forms: layout derived from the gfx942 pattern (no calculator tables) */
  MF("f32.16x16x32.f16", P950, 16, 16, 32, 1, T_F16, T_F16, T_F32)
  MF("f32.32x32x16.f16", P950, 32, 32, 16, 1, T_F16, T_F16, T_F32)
  MF("f32.16x16x32.bf16", P950, 16, 16, 32, 1, T_BF16, T_BF16, T_F32)
  MF("f32.32x32x16.bf16", P950, 32, 32, 16, 1, T_BF16, T_BF16, T_F32)
  MF("i32.16x16x64.i8", P950, 16, 16, 64, 1, T_I8, T_I8, T_I32)
  MF("i32.32x32x32.i8", P950, 32, 32, 32, 1, T_I8, T_I8, T_I32)
#undef MF
  /* gfx950 block-scaled f8f6f4 with fp4 (E2M1) A and B, the only formats whose lane layout is
   * confirmed (docs/emulator.md): lane L holds row/column L % M and the 32 consecutive K values
   * 32 * (L / M) + 0..31 in 4 VGPRs, low nibble first; C/D as every f32 MFMA. */
  {"llvm.amdgcn.mfma.scale.f32.16x16x128.f8f6f4", P950, L_MFMA, 16, 16, 128, 1, T_FP4, T_FP4, T_F32, true},
  {"llvm.amdgcn.mfma.scale.f32.32x32x64.f8f6f4", P950, L_MFMA, 32, 32, 64, 1, T_FP4, T_FP4, T_F32, true},
  /* f64 */
  {"llvm.amdgcn.mfma.f64.16x16x4f64", P90A | P942 | P950, L_MFMA_F64, 16, 16, 4, 1, T_F64, T_F64,
   T_F64, false},
  {"llvm.amdgcn.mfma.f64.4x4x4f64", P90A | P942 | P950, L_MFMA_F64, 4, 4, 4, 4, T_F64, T_F64,
   T_F64, false},
#define WM(name, procs, lay, k, a, b, cd) \
  {"llvm.amdgcn.wmma." name, procs, lay, 16, 16, k, 1, a, b, cd, false},
  /* RDNA3 */
  WM("f32.16x16x16.f16", P11, L_WMMA11, 16, T_F16, T_F16, T_F32)
  WM("f32.16x16x16.bf16", P11, L_WMMA11, 16, T_BF16, T_BF16, T_F32)
  WM("f16.16x16x16.f16", P11, L_WMMA11, 16, T_F16, T_F16, T_F16)
  WM("bf16.16x16x16.bf16", P11, L_WMMA11, 16, T_BF16, T_BF16, T_BF16)
  WM("f16.16x16x16.f16.tied", P11, L_WMMA11, 16, T_F16, T_F16, T_F16)
  WM("bf16.16x16x16.bf16.tied", P11, L_WMMA11, 16, T_BF16, T_BF16, T_BF16)
  WM("i32.16x16x16.iu8", P11, L_WMMA11, 16, T_IU8, T_IU8, T_I32)
  WM("i32.16x16x16.iu4", P11, L_WMMA11, 16, T_IU4, T_IU4, T_I32)
  /* RDNA4 (FP8 is OCP) */
  WM("f32.16x16x16.f16", P12, L_WMMA12, 16, T_F16, T_F16, T_F32)
  WM("f32.16x16x16.bf16", P12, L_WMMA12, 16, T_BF16, T_BF16, T_F32)
  WM("f16.16x16x16.f16", P12, L_WMMA12, 16, T_F16, T_F16, T_F16)
  WM("bf16.16x16x16.bf16", P12, L_WMMA12, 16, T_BF16, T_BF16, T_BF16)
  WM("i32.16x16x16.iu8", P12, L_WMMA12, 16, T_IU8, T_IU8, T_I32)
  WM("i32.16x16x16.iu4", P12, L_WMMA12, 16, T_IU4, T_IU4, T_I32)
  WM("i32.16x16x32.iu4", P12, L_WMMA12, 32, T_IU4, T_IU4, T_I32)
  WM("f32.16x16x16.fp8.fp8", P12, L_WMMA12, 16, T_FP8, T_FP8, T_F32)
  WM("f32.16x16x16.fp8.bf8", P12, L_WMMA12, 16, T_FP8, T_BF8, T_F32)
  WM("f32.16x16x16.bf8.fp8", P12, L_WMMA12, 16, T_BF8, T_FP8, T_F32)
  WM("f32.16x16x16.bf8.bf8", P12, L_WMMA12, 16, T_BF8, T_BF8, T_F32)
#undef WM
};
#define MX_NINSTR ((int)(sizeof mx_table / sizeof mx_table[0]))

/* Largest per-wave element count of any operand (32x32x1f32: 64 lanes x 32 accumulators). */
#define MX_MAX 2048

static unsigned mx_family(const char *p) {
  if (!p) return 0;
  if (!strcmp(p, "gfx908")) return P908;
  if (!strcmp(p, "gfx90a")) return P90A;
  if (!strcmp(p, "gfx940") || !strcmp(p, "gfx941") || !strcmp(p, "gfx942")) return P942;
  if (!strcmp(p, "gfx950")) return P950;
  if (!strncmp(p, "gfx11", 5)) return P11;
  if (!strncmp(p, "gfx12", 5)) return P12;
  return 0;
}

/* True if s is empty or only overload-type suffixes (".v8f32", ".v16i16", ".i32", ".f64"...). */
static bool mx_overload_only(const char *s) {
  while (*s) {
    if (*s++ != '.') return false;
    if (*s == 'v') {
      s++;
      if (*s < '0' || *s > '9') return false;
      while (*s >= '0' && *s <= '9') s++;
    }
    if (*s != 'i' && *s != 'f' && strncmp(s, "bf", 2)) return false;
    s += *s == 'b' ? 2 : 1;
    if (*s < '0' || *s > '9') return false;
    while (*s >= '0' && *s <= '9') s++;
  }
  return true;
}

/* Longest table name that equals the intrinsic up to an overload suffix, for that family. */
static const mx_instr *mx_find(const char *intrinsic, unsigned fam) {
  const mx_instr *best = NULL;
  if (!intrinsic) return NULL;
  for (int i = 0; i < MX_NINSTR; i++) {
    const mx_instr *in = &mx_table[i];
    size_t len = strlen(in->intrinsic);
    if (!(in->procs & fam) || strncmp(intrinsic, in->intrinsic, len)) continue;
    if (!mx_overload_only(intrinsic + len)) continue;
    if (!best || len > strlen(best->intrinsic)) best = in;
  }
  return best;
}

bool emu_matrix_supported(const char *intrinsic, const char *processor) {
  return mx_find(intrinsic, mx_family(processor)) != NULL;
}

/* ------------------------------------------------------------------ element formats */

static int mx_bits(mx_type t) {
  switch (t) {
  case T_F64: return 64;
  case T_F32: case T_XF32: case T_I32: return 32;
  case T_F16: case T_BF16: return 16;
  case T_IU4: case T_FP4: return 4;
  default: return 8;
  }
}

/* Element e of a lane's operand. Fixed-width loads: a memcpy of a variable width compiles to
 * byte stores read back as one word, a store-forwarding stall on every element. */
static inline __attribute__((always_inline)) uint64_t mx_load(const void *base, int e, int bits) {
  const uint8_t *p = base;
  switch (bits) {
  case 4: return (p[e / 2] >> (4 * (e % 2))) & 0xf;
  case 8: return p[e];
  case 16: { uint16_t v; memcpy(&v, p + 2 * (size_t)e, 2); return v; } /* little-endian, like the GPU */
  case 32: { uint32_t v; memcpy(&v, p + 4 * (size_t)e, 4); return v; }
  default: { uint64_t v; memcpy(&v, p + 8 * (size_t)e, 8); return v; }
  }
}

static inline __attribute__((always_inline)) void mx_store(void *base, int e, int bits, uint64_t v) {
  uint8_t *p = base;
  switch (bits) {
  case 8: p[e] = (uint8_t)v; break;
  case 16: { uint16_t w = (uint16_t)v; memcpy(p + 2 * (size_t)e, &w, 2); break; }
  case 32: { uint32_t w = (uint32_t)v; memcpy(p + 4 * (size_t)e, &w, 4); break; }
  default: memcpy(p + 8 * (size_t)e, &v, 8); break;
  }
}

static float mx_f32(uint32_t b) {
  float f;
  memcpy(&f, &b, 4);
  return f;
}

static uint32_t mx_f32_bits(float f) {
  uint32_t b;
  memcpy(&b, &f, 4);
  return b;
}

static double mx_f16_to(uint32_t h) {
  int e = (h >> 10) & 0x1f, m = h & 0x3ff;
  double v = e == 0 ? ldexp(m, -24) : e == 31 ? (m ? NAN : INFINITY) : ldexp(m + 1024, e - 25);
  return (h & 0x8000) ? -v : v;
}

/* Round-to-nearest-even float -> f16 bits. */
static uint16_t mx_f16_from(float f) {
  uint32_t x = mx_f32_bits(f), sign = (x >> 16) & 0x8000;
  int e = (int)((x >> 23) & 0xff);
  uint32_t m = x & 0x7fffff;
  if (e == 255) return (uint16_t)(sign | 0x7c00 | (m ? 0x200 : 0));
  int he = e - 127 + 15;
  if (he >= 31) return (uint16_t)(sign | 0x7c00);
  if (he <= 0) { /* subnormal or zero: shift the full mantissa into place, then round */
    if (he < -10) return (uint16_t)sign;
    m |= 0x800000;
    int shift = 14 - he;
    uint32_t q = m >> shift, rem = m & ((1u << shift) - 1), half = 1u << (shift - 1);
    if (rem > half || (rem == half && (q & 1))) q++;
    return (uint16_t)(sign | q);
  }
  uint32_t q = ((uint32_t)he << 10) | (m >> 13), rem = m & 0x1fff;
  if (rem > 0x1000 || (rem == 0x1000 && (q & 1))) q++; /* may carry into the exponent: fine */
  return (uint16_t)(sign | q);
}

static uint16_t mx_bf16_from(float f) {
  uint32_t x = mx_f32_bits(f);
  if ((x & 0x7fffffff) > 0x7f800000) return (uint16_t)((x >> 16) | 0x40);
  x += 0x7fff + ((x >> 16) & 1);
  return (uint16_t)(x >> 16);
}

/* 8-bit floats. FNUZ (gfx942): 0x80 is the only NaN, no -0, no Inf. OCP (gfx950, gfx12):
 * E4M3FN has NaN = S.1111.111 and no Inf; E5M2 is IEEE-like. */
static double mx_fp8_to(uint32_t b, int mbits, int bias, bool fnuz) {
  int ebits = 7 - mbits, e = (int)((b >> mbits) & ((1u << ebits) - 1));
  int m = (int)(b & ((1u << mbits) - 1));
  if (fnuz && b == 0x80) return NAN;
  if (!fnuz && mbits == 3 && (b & 0x7f) == 0x7f) return NAN;
  if (!fnuz && mbits == 2 && e == 31) return m ? NAN : ((b & 0x80) ? -INFINITY : INFINITY);
  double v = e == 0 ? ldexp(m, 1 - bias - mbits) : ldexp(m + (1 << mbits), e - bias - mbits);
  return (b & 0x80) ? -v : v;
}

/* xf32 keeps 10 mantissa bits (tf32-like); round to nearest even [assumption, see docs]. */
static float mx_xf32(float f) {
  uint32_t x = mx_f32_bits(f);
  if ((x & 0x7f800000) == 0x7f800000) return f;
  x += 0xfff + ((x >> 13) & 1);
  return mx_f32(x & ~0x1fffu);
}

/* OCP MX E2M1: bias 1, subnormal 0.5 at exponent 0, no Inf or NaN. */
static double mx_fp4_to(uint32_t b) {
  int e = (b >> 1) & 3, m = b & 1;
  double v = e ? ldexp(2 + m, e - 2) : 0.5 * m;
  return (b & 8) ? -v : v;
}

/* E8M0 scale byte: 2^(s - 127), 0xFF NaN (OCP MX v1.0). */
static double mx_e8m0_to(uint32_t s) { return s == 255 ? NAN : ldexp(1.0, (int)s - 127); }

static double mx_value(uint64_t raw, mx_type t, bool fnuz, bool is_signed) {
  switch (t) {
  case T_F32: return mx_f32((uint32_t)raw);
  case T_XF32: return mx_xf32(mx_f32((uint32_t)raw));
  case T_F64: { double d; memcpy(&d, &raw, 8); return d; }
  case T_F16: return mx_f16_to((uint32_t)raw);
  case T_BF16: return mx_f32((uint32_t)raw << 16);
  case T_I8: return (int8_t)raw;
  case T_IU8: return is_signed ? (double)(int8_t)raw : (double)(uint8_t)raw;
  case T_IU4: return is_signed ? (double)((int)(raw << 28) >> 28) : (double)(raw & 0xf);
  case T_I32: return (int32_t)raw;
  case T_FP8: return fnuz ? mx_fp8_to((uint32_t)raw, 3, 8, true) : mx_fp8_to((uint32_t)raw, 3, 7, false);
  case T_BF8: return fnuz ? mx_fp8_to((uint32_t)raw, 2, 16, true) : mx_fp8_to((uint32_t)raw, 2, 15, false);
  case T_FP4: return mx_fp4_to((uint32_t)raw);
  }
  return 0;
}

/* ------------------------------------------------------------------ closed-form layouts */

/* Elements of A (or B) per lane. */
static int mx_ab_per_lane(const mx_instr *in, int wave) {
  switch (in->layout) {
  case L_MFMA: case L_MFMA_F64: return in->k * in->blocks * in->m / 64;
  case L_WMMA11: return in->k;
  case L_WMMA12: return in->k * in->m / wave;
  }
  return 0;
}

/* Elements of C/D per lane (16-bit RDNA3 outputs count both halves of each VGPR). */
static int mx_cd_per_lane(const mx_instr *in, int wave) {
  int n = in->m * in->n * in->blocks / wave;
  return in->layout == L_WMMA11 && mx_bits(in->cd) == 16 ? 2 * n : n;
}

/* Element e of lane's A (dim = M, rc = row i) or B (dim = N, rc = column j) operand. */
static void mx_ab_coord(const mx_instr *in, mx_type t, int dim, int wave, int lane, int e,
                        int *blk, int *rc, int *k) {
  int per = mx_ab_per_lane(in, wave);
  switch (in->layout) {
  case L_MFMA: case L_MFMA_F64: {
    /* lane group g = (k chunk)*blocks + block; each group holds dim rows, per consecutive k */
    int g = lane / dim;
    *rc = lane % dim;
    *blk = g % in->blocks;
    *k = (g / in->blocks) * per + e;
    return;
  }
  case L_WMMA11: /* every 16-lane group holds the whole row: all K in one lane */
    *blk = 0, *rc = lane % 16, *k = e;
    return;
  case L_WMMA12: {
    /* 64-bit chunks of c elements; group G holds chunk G of every ng*c-wide k slice */
    int ng = wave / 16, g = lane / 16, bits = per * mx_bits(t);
    int c = (bits < 64 ? bits : 64) / mx_bits(t);
    *blk = 0, *rc = lane % 16;
    *k = (e / c) * (c * ng) + g * c + e % c;
    return;
  }
  }
}

/* Element e of lane's C/D operand. For RDNA3 16-bit outputs, e = 2*VGPR + half. */
static void mx_cd_coord(const mx_instr *in, int wave, int lane, int e, int *blk, int *i, int *j) {
  switch (in->layout) {
  case L_MFMA: {
    /* rows in chunks of 4 per group of 4 accumulators; chunk slots run over lane groups first */
    int ng = 64 / in->n, g = lane / in->n, chunks = in->m / 4;
    int s = (e / 4) * ng + g;
    *j = lane % in->n;
    *blk = s / chunks;
    *i = 4 * (s % chunks) + e % 4;
    return;
  }
  case L_MFMA_F64: {
    /* lane group g = blocks*(row%4) + block; accumulator pair e picks row/4 */
    int g = lane / in->n;
    *j = lane % in->n;
    *blk = g % in->blocks;
    *i = 4 * e + g / in->blocks;
    return;
  }
  case L_WMMA11: {
    int r = mx_bits(in->cd) == 16 ? e / 2 : e;
    *blk = 0, *j = lane % 16;
    *i = (wave / 16) * r + lane / 16;
    return;
  }
  case L_WMMA12: {
    int g = lane / 16, per = mx_cd_per_lane(in, wave);
    *blk = 0, *j = lane % 16;
    *i = 8 * (g % 2) + per * (g / 2) + e;
    return;
  }
  }
}

/* ------------------------------------------------------------------ execution */

/* Where each lane's register elements go, per (instruction, wave size): computed once from the
 * closed forms above and reused by every call, so a call costs one pass over the lanes plus the
 * M x N x K arithmetic on decoded operands. */
#define MX_SLOTS (64 * 64) /* lanes x elements per lane, enough for every table row */
typedef struct mx_map {
  const mx_instr *in;
  int wave, per_ab, per_cd;
  bool replicated;           /* an A/B element lives in several lanes (RDNA3 16-lane groups) */
  int16_t a[MX_SLOTS];       /* lane * per_ab + e -> (blk * M + i) * K + k */
  int16_t b[MX_SLOTS];       /* lane * per_ab + e -> (blk * N + j) * K + k (B transposed) */
  int16_t cd[MX_SLOTS];      /* lane * per_cd + e -> (blk * M + i) * N + j */
} mx_map;

/* Operands decoded once per call: B is stored transposed so the K loop reads both contiguously. */
typedef struct mx_mats {
  union { float f[MX_MAX]; double d[MX_MAX]; int64_t i[MX_MAX]; } a, b;
  uint64_t raw_a[MX_MAX], raw_b[MX_MAX], c[MX_MAX], d[MX_MAX];
  float acc[MX_MAX];
  bool seta[MX_MAX], setb[MX_MAX];
} mx_mats;

/* A thread's matrix state: reached through one initial-exec pointer, because in a shared library
 * (libtosac-hipemu) every access to a thread-local array would be a __tls_get_addr call, and
 * ~150 KB of initial-exec TLS would keep the library from being dlopen'ed. */
typedef struct mx_state {
  mx_map map;  /* the last instruction's maps (kernels use one or two) */
  mx_mats mm;
  bool seen_a[MX_MAX], seen_b[MX_MAX];
  /* mx_find's last answer, by the name's text: a name's storage belongs to its module, and a
   * module loaded after another one is freed can have its name at the same address */
  char last_name[96];
  unsigned last_fam;
  const mx_instr *last_in;
} mx_state;

static pthread_key_t mx_key;
static pthread_once_t mx_key_once = PTHREAD_ONCE_INIT;
static __thread mx_state *mx_tls __attribute__((tls_model("initial-exec")));

static void mx_key_init(void) { pthread_key_create(&mx_key, free); }

static mx_state *mx_state_get(void) {
  if (!mx_tls) {
    pthread_once(&mx_key_once, mx_key_init);
    mx_tls = calloc(1, sizeof *mx_tls);
    if (mx_tls)
      pthread_setspecific(mx_key, mx_tls); /* freed when the thread exits */
  }
  return mx_tls;
}

/* Source lane of B under the BLGP lane-group pattern (0 = identity). */
static int mx_blgp_lane(int blgp, int lane) {
  switch (blgp) {
  case 1: return lane % 32;
  case 2: return 32 + lane % 32;
  case 3: return (lane + 16) % 64;
  case 4: case 5: case 6: case 7: return 16 * (blgp - 4) + lane % 16;
  default: return lane;
  }
}

static bool mx_fail(char *err, size_t errsize, const char *fmt, const char *a, int x) {
  if (err && errsize) snprintf(err, errsize, fmt, a, x);
  return false;
}

/* Checks modifiers against what the instruction encodes. */
static bool mx_check_mods(const mx_instr *in, unsigned fam, const emu_matrix_call *c, char *err,
                          size_t errsize) {
  const char *nm = in->intrinsic;
  if (in->layout == L_WMMA11 || in->layout == L_WMMA12) {
    bool iu = in->a == T_IU8 || in->a == T_IU4, half = mx_bits(in->cd) == 16;
    if ((unsigned)c->cbsz > (iu ? 1u : 0u) || (unsigned)c->blgp > (iu ? 1u : 0u))
      return mx_fail(err, errsize, "%s: cbsz/blgp (signedness) %d not allowed", nm, c->cbsz | c->blgp);
    int max_abid = iu ? 1 : (half && in->layout == L_WMMA11) ? 1 : 0;
    if (c->abid < 0 || c->abid > max_abid)
      return mx_fail(err, errsize, "%s: opsel/clamp (abid) %d not allowed", nm, c->abid);
    return true;
  }
  if (in->scaled) {
    /* cbsz/blgp are the A/B formats (0 E4M3, 1 E5M2, 2 E2M3, 3 E3M2, 4 E2M1) */
    if (c->cbsz != 4 || c->blgp != 4) {
      if (err && errsize)
        snprintf(err, errsize,
                 "%s: formats A %d / B %d: only fp4 (E2M1, format 4) operands are emulated (the lane "
                 "layout of the fp8/fp6 formats is not confirmed)",
                 nm, c->cbsz, c->blgp);
      return false;
    }
    if (c->opsel_a < 0 || c->opsel_a > 3 || c->opsel_b < 0 || c->opsel_b > 3)
      return mx_fail(err, errsize, "%s: scale byte select %d out of range", nm, c->opsel_a | c->opsel_b);
    return true;
  }
  int lg = 0;
  while ((1 << lg) < in->blocks) lg++;
  if (in->layout == L_MFMA_F64) {
    if (c->cbsz || c->abid)
      return mx_fail(err, errsize, "%s: cbsz/abid %d not supported", nm, c->cbsz | c->abid);
    if (c->blgp && !(fam & (P942 | P950)))
      return mx_fail(err, errsize, "%s: blgp %d not supported on this processor", nm, c->blgp);
    if (c->blgp < 0 || c->blgp > 7) return mx_fail(err, errsize, "%s: bad blgp %d", nm, c->blgp);
    return true;
  }
  if (c->cbsz < 0 || c->cbsz > lg)
    return mx_fail(err, errsize, "%s: cbsz %d exceeds log2(blocks)", nm, c->cbsz);
  if (c->abid < 0 || c->abid >= (1 << c->cbsz))
    return mx_fail(err, errsize, "%s: abid %d out of range for cbsz", nm, c->abid);
  if (c->blgp < 0 || c->blgp > 7) return mx_fail(err, errsize, "%s: bad blgp %d", nm, c->blgp);
  /* gfx942+ dropped BLGP on the single-block forms that are not plain f32 */
  if (c->blgp && (fam & (P942 | P950)) && in->blocks == 1 && in->a != T_F32)
    return mx_fail(err, errsize, "%s: blgp %d not supported on gfx942+", nm, c->blgp);
  return true;
}

/* acc[i][j] += sum over k of a[i][k] * bt[j][k], one fused multiply-add per k in K order as the
 * hardware's adder does. A build for FMA hosts is picked at load time (an ifunc): the same bits,
 * without a libm call per product. */
__attribute__((target_clones("fma", "default"))) static void
mx_dots(const float *a, const float *bt, float *acc, int M, int N, int K) {
  for (int i = 0; i < M; i++)
    for (int j = 0; j < N; j++) {
      float s = acc[i * N + j];
      const float *ar = a + i * K, *bc = bt + j * K;
      for (int k = 0; k < K; k++)
        s = fmaf(ar[k], bc[k], s);
      acc[i * N + j] = s;
    }
}

/* The scaled form: operands already carry their scales (doubles: 6 x 2^127 is no f32); each
 * product is exact, each addition rounds to f32 (RNE, the mode the instruction forces), in K order
 * like mx_dots. */
static void mx_dots_scaled(const double *a, const double *bt, float *acc, int M, int N, int K) {
  for (int i = 0; i < M; i++)
    for (int j = 0; j < N; j++) {
      float s = acc[i * N + j];
      const double *ar = a + i * K, *bc = bt + j * K;
      for (int k = 0; k < K; k++)
        s = (float)((double)s + ar[k] * bc[k]);
      acc[i * N + j] = s;
    }
}

/* The lane maps of `in` at `wave` lanes; false when an index does not fit (never for the table). */
static bool mx_map_build(mx_state *st, const mx_instr *in, int wave) {
  mx_map *mp = &st->map;
  bool *seen_a = st->seen_a, *seen_b = st->seen_b;
  int per_ab = mx_ab_per_lane(in, wave), per_cd = mx_cd_per_lane(in, wave);
  if (wave * per_ab > MX_SLOTS || wave * per_cd > MX_SLOTS)
    return false;
  memset(seen_a, 0, sizeof st->seen_a);
  memset(seen_b, 0, sizeof st->seen_b);
  mp->replicated = false;
  int M = in->m, N = in->n, K = in->k;
  for (int l = 0; l < wave; l++) {
    for (int e = 0; e < per_ab; e++) {
      int b = 0, r = 0, k = 0;
      mx_ab_coord(in, in->a, M, wave, l, e, &b, &r, &k);
      int ia = (b * M + r) * K + k;
      mx_ab_coord(in, in->b, N, wave, l, e, &b, &r, &k);
      int ib = (b * N + r) * K + k;
      if (ia < 0 || ia >= MX_MAX || ib < 0 || ib >= MX_MAX)
        return false;
      mp->replicated |= seen_a[ia] || seen_b[ib];
      seen_a[ia] = seen_b[ib] = true;
      mp->a[l * per_ab + e] = (int16_t)ia;
      mp->b[l * per_ab + e] = (int16_t)ib;
    }
    for (int e = 0; e < per_cd; e++) {
      int b = 0, i = 0, j = 0;
      mx_cd_coord(in, wave, l, e, &b, &i, &j);
      int ic = (b * M + i) * N + j;
      if (ic < 0 || ic >= MX_MAX)
        return false;
      mp->cd[l * per_cd + e] = (int16_t)ic;
    }
  }
  mp->in = in, mp->wave = wave, mp->per_ab = per_ab, mp->per_cd = per_cd;
  return true;
}

/* One decoded operand element in the accumulation domain of the instruction. */
static void mx_decode(mx_mats *mm, bool is_a, int idx, uint64_t raw, mx_type t, mx_type cd,
                      bool fnuz, bool sgn) {
  double v = mx_value(raw, t, fnuz, sgn);
  if (cd == T_F64)
    (is_a ? mm->a.d : mm->b.d)[idx] = v;
  else if (cd == T_I32)
    (is_a ? mm->a.i : mm->b.i)[idx] = (int64_t)v;
  else
    (is_a ? mm->a.f : mm->b.f)[idx] = (float)v;
}

bool emu_matrix_exec(const emu_matrix_call *call, char *err, size_t errsize) {
  unsigned fam = mx_family(call->processor);
  mx_state *st = mx_state_get();
  if (!st)
    return mx_fail(err, errsize, "%s: out of memory for the matrix state", "emulator", 0);
  const mx_instr *in = call->intrinsic && st->last_in && st->last_fam == fam && !strcmp(st->last_name, call->intrinsic)
                           ? st->last_in
                           : mx_find(call->intrinsic, fam);
  if (!in) {
    if (err && errsize)
      snprintf(err, errsize, "matrix intrinsic %s is not emulated for %s",
               call->intrinsic ? call->intrinsic : "(null)",
               call->processor ? call->processor : "(null)");
    return false;
  }
  if (strlen(call->intrinsic) < sizeof st->last_name) {
    strcpy(st->last_name, call->intrinsic);
    st->last_fam = fam, st->last_in = in;
  } else {
    st->last_in = NULL;
  }
  int wave = call->wave_size;
  bool mfma = in->layout == L_MFMA || in->layout == L_MFMA_F64;
  if (mfma ? wave != 64 : (wave != 32 && wave != 64))
    return mx_fail(err, errsize, "%s: unsupported wave size %d", in->intrinsic, wave);
  if (!mx_check_mods(in, fam, call, err, errsize)) return false;

  mx_map *map = &st->map;
  mx_mats *mm = &st->mm;
  if (map->in != in || map->wave != wave) {
    map->in = NULL;
    if (!mx_map_build(st, in, wave))
      return mx_fail(err, errsize, "%s: layout does not fit the emulator's tables (wave %d)",
                     in->intrinsic, wave);
  }
  int M = in->m, N = in->n, K = in->k, NB = in->blocks;
  int abits = mx_bits(in->a), bbits = mx_bits(in->b), cbits = mx_bits(in->cd);
  int per_ab = map->per_ab, per_cd = map->per_cd;
  bool fnuz = (fam & P942) != 0;
  bool wmma = !mfma, iu = in->a == T_IU8 || in->a == T_IU4;
  bool sgn_a = wmma && iu ? call->cbsz : true, sgn_b = wmma && iu ? call->blgp : true;
  int opsel = wmma && !iu ? call->abid : 0, clamp = wmma && iu ? call->abid : 0;
  bool f64neg = in->layout == L_MFMA_F64;
  int blgp = mfma && !f64neg && !in->scaled ? call->blgp : 0;
  bool half_out = in->layout == L_WMMA11 && cbits == 16;

  /* RDNA3 replicates A and B over 16-lane groups: the replicas must agree. */
  if (map->replicated) {
    memset(mm->seta, 0, sizeof mm->seta);
    memset(mm->setb, 0, sizeof mm->setb);
  }
  for (int l = 0; l < wave; l++) {
    const void *la = call->a[l], *lb = call->b[mx_blgp_lane(blgp, l)];
    const int16_t *ma = &map->a[l * per_ab], *mb = &map->b[l * per_ab];
    double sca = call->scale_a ? mx_e8m0_to(call->scale_a[l] >> 8 * call->opsel_a & 0xff) : 1;
    double scb = call->scale_b ? mx_e8m0_to(call->scale_b[l] >> 8 * call->opsel_b & 0xff) : 1;
    for (int e = 0; e < per_ab; e++) {
      uint64_t va = mx_load(la, e, abits), vb = mx_load(lb, e, bbits);
      int ia = ma[e], ib = mb[e];
      if (map->replicated) {
        if ((mm->seta[ia] && mm->raw_a[ia] != va) || (mm->setb[ib] && mm->raw_b[ib] != vb))
          return mx_fail(err, errsize, mm->seta[ia] && mm->raw_a[ia] != va
                         ? "%s: lane %d holds a different A value than its replica lane (RDNA3 "
                           "needs identical 16-lane groups)"
                         : "%s: lane %d holds a different B value than its replica lane (RDNA3 "
                           "needs identical 16-lane groups)", in->intrinsic, l);
        mm->raw_a[ia] = va, mm->seta[ia] = true;
        mm->raw_b[ib] = vb, mm->setb[ib] = true;
      }
      if (in->scaled) {
        mm->a.d[ia] = mx_value(va, in->a, false, true) * sca;
        mm->b.d[ib] = mx_value(vb, in->b, false, true) * scb;
        continue;
      }
      mx_decode(mm, true, ia, va, in->a, in->cd, fnuz, sgn_a);
      mx_decode(mm, false, ib, vb, in->b, in->cd, fnuz, sgn_b);
    }
    const int16_t *mc = &map->cd[l * per_cd];
    for (int e = 0; e < per_cd; e++) {
      if (half_out && e % 2 != opsel) continue;
      mm->c[mc[e]] = mx_load(call->c[l], e, cbits);
    }
  }

  /* D = A x B + C per block; cbsz/abid broadcast one A block to 2^cbsz blocks */
  double sa = 1, sb = 1, sc = 1;
  if (f64neg) {
    sa = (call->blgp & 1) ? -1 : 1, sb = (call->blgp & 2) ? -1 : 1, sc = (call->blgp & 4) ? -1 : 1;
  }
  for (int b = 0; b < NB; b++) {
    int ab = mfma ? ((b >> call->cbsz) << call->cbsz) + call->abid : b;
    for (int i = 0; i < M; i++)
      for (int j = 0; j < N; j++) {
        int ic = (b * M + i) * N + j, ia = (ab * M + i) * K, ib = (b * N + j) * K;
        uint64_t craw = mm->c[ic], out;
        if (in->cd == T_F64) {
          double acc = sc * mx_value(craw, T_F64, fnuz, true);
          for (int k = 0; k < K; k++)
            acc = fma(sa * mm->a.d[ia + k], sb * mm->b.d[ib + k], acc);
          memcpy(&out, &acc, 8);
        } else if (in->cd == T_I32) {
          int64_t acc = (int32_t)craw;
          for (int k = 0; k < K; k++)
            acc += mm->a.i[ia + k] * mm->b.i[ib + k];
          if (clamp) acc = acc > INT32_MAX ? INT32_MAX : acc < INT32_MIN ? INT32_MIN : acc;
          out = (uint32_t)(uint64_t)acc; /* wraps like a 32-bit adder */
        } else {
          /* f32 accumulation: C now, the products in mx_dots below */
          mm->acc[ic] = in->cd == T_F32   ? mx_f32((uint32_t)craw)
                       : in->cd == T_F16 ? (float)mx_f16_to((uint32_t)craw)
                                         : mx_f32((uint32_t)craw << 16);
          continue;
        }
        mm->d[ic] = out;
      }
    if (in->cd != T_F64 && in->cd != T_I32) {
      if (in->scaled)
        mx_dots_scaled(&mm->a.d[ab * M * K], &mm->b.d[b * N * K], &mm->acc[b * M * N], M, N, K);
      else
        mx_dots(&mm->a.f[ab * M * K], &mm->b.f[b * N * K], &mm->acc[b * M * N], M, N, K);
      for (int ic = b * M * N; ic < (b + 1) * M * N; ic++)
        mm->d[ic] = in->cd == T_F32   ? mx_f32_bits(mm->acc[ic])
                   : in->cd == T_F16 ? mx_f16_from(mm->acc[ic])
                                     : mx_bf16_from(mm->acc[ic]);
    }
  }

  for (int l = 0; l < wave; l++) {
    const int16_t *mc = &map->cd[l * per_cd];
    for (int e = 0; e < per_cd; e++) {
      if (half_out && e % 2 != opsel) { /* the other half keeps C (the _tied behaviour) */
        mx_store(call->d[l], e, cbits, mx_load(call->c[l], e, cbits));
        continue;
      }
      mx_store(call->d[l], e, cbits, mm->d[mc[e]]);
    }
  }
  return true;
}
