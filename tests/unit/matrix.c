/* Checks every emulated matrix instruction against AMD's lane-layout CSV tables (the calculator's). */
#include "emu/emu.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Value kinds as the test sees them; derived from the mnemonic, not from the emulator's table. */
typedef enum { K_F32, K_XF32, K_F64, K_F16, K_BF16, K_I8, K_U8, K_I4, K_FP8, K_BF8, K_I32 } kind;

#define MAXLANE 64
#define MAXCOL 64
#define MAXWORD 64
#define MAXEL 4096

typedef struct col { int reg, lo, width; } col;
typedef struct cell { int blk, r, c; bool valid; } cell;
typedef struct table {
  int ncol, nlane;
  col cols[MAXCOL];
  cell cells[MAXLANE][MAXCOL];
  int max_blk, max_r, max_c; /* largest indices seen + 1 */
} table;

typedef struct tcase {
  const char *proc, *intrinsic, *mnemonic;
  const char *abdir, *cddir; /* CSV folders for A/B and for C/D */
  int wave;
  int cbsz, abid, blgp;
  const char *note;
} tcase;

static char g_root[512] = "tests/data/mfma_layouts";
static uint64_t g_rng = 0x9e3779b97f4a7c15ull;

static uint64_t rnd(void) {
  g_rng ^= g_rng << 13, g_rng ^= g_rng >> 7, g_rng ^= g_rng << 17;
  return g_rng;
}
static int rndi(int lo, int hi) { return lo + (int)(rnd() % (uint64_t)(hi - lo + 1)); }

/* Parses "v3", "v1.[15:0]", "v[3:2]" into (first register, low bit, width). */
static bool parse_col(const char *s, col *c) {
  int a, b;
  if (sscanf(s, "v[%d:%d]", &a, &b) == 2) {
    c->reg = b, c->lo = 0, c->width = 32 * (a - b + 1);
    return true;
  }
  if (sscanf(s, "v%d.[%d:%d]", &c->reg, &a, &b) == 3) {
    c->lo = b, c->width = a - b + 1;
    return true;
  }
  if (sscanf(s, "v%d", &c->reg) == 1) {
    c->lo = 0, c->width = 32;
    return true;
  }
  return false;
}

/* Parses "A[3][5]" or "D[0][1].B7"; false for empty or multi-element (sparse) cells. */
static bool parse_cell(const char *s, cell *c) {
  char m;
  int n = 0;
  c->blk = 0;
  if (sscanf(s, "%c[%d][%d]%n", &m, &c->r, &c->c, &n) != 3) return false;
  if (s[n] == '.' && sscanf(s + n, ".B%d", &c->blk) != 1) return false;
  return true;
}

static bool load_table(const char *dir, const char *mn, char m, table *t) {
  char path[1024], line[16384];
  snprintf(path, sizeof path, "%s/%s/%s.%c.csv", g_root, dir, mn, m);
  FILE *f = fopen(path, "r");
  if (!f) return false;
  memset(t, 0, sizeof *t);
  if (!fgets(line, sizeof line, f)) {
    fclose(f);
    return false;
  }
  line[strcspn(line, "\r\n")] = 0;
  char *save, *tok = strtok_r(line, ",", &save); /* "lane" */
  while ((tok = strtok_r(NULL, ",", &save)) && t->ncol < MAXCOL)
    if (!parse_col(tok, &t->cols[t->ncol++])) {
      fprintf(stderr, "%s: bad column %s\n", path, tok);
      exit(2);
    }
  while (fgets(line, sizeof line, f)) {
    line[strcspn(line, "\r\n")] = 0;
    char *p = line, *q = strchr(p, ',');
    if (!q) continue;
    int lane = atoi(p);
    if (lane < 0 || lane >= MAXLANE) continue;
    if (lane + 1 > t->nlane) t->nlane = lane + 1;
    for (int ci = 0; ci < t->ncol && q; ci++) {
      p = q + 1;
      q = strchr(p, ',');
      char buf[128];
      size_t len = q ? (size_t)(q - p) : strlen(p);
      if (len >= sizeof buf) len = sizeof buf - 1;
      memcpy(buf, p, len), buf[len] = 0;
      cell *c = &t->cells[lane][ci];
      c->valid = !strchr(buf, ' ') && parse_cell(buf, c);
      if (!c->valid) continue;
      if (c->blk + 1 > t->max_blk) t->max_blk = c->blk + 1;
      if (c->r + 1 > t->max_r) t->max_r = c->r + 1;
      if (c->c + 1 > t->max_c) t->max_c = c->c + 1;
    }
  }
  fclose(f);
  return true;
}

/* ------------------------------------------------------------------ encodings (test side) */

static uint64_t f32bits(float f) {
  uint32_t b;
  memcpy(&b, &f, 4);
  return b;
}

/* Encodes a value that the caller knows to be exact in a small float format. */
static uint64_t enc_small_float(double v, int mbits, int ebits, int bias) {
  if (v == 0) return 0;
  uint64_t s = v < 0 ? 1 : 0;
  double a = fabs(v);
  int e = (int)floor(log2(a));
  int be = e + bias;
  uint64_t mant;
  if (be <= 0) { /* subnormal */
    mant = (uint64_t)llround(a / ldexp(1, 1 - bias - mbits));
    be = 0;
  } else {
    mant = (uint64_t)llround((a / ldexp(1, e) - 1) * (1 << mbits));
  }
  return (s << (mbits + ebits)) | ((uint64_t)be << mbits) | mant;
}

static uint64_t encode(kind k, double v, bool fnuz) {
  switch (k) {
  case K_F32: case K_XF32: return f32bits((float)v);
  case K_F64: { uint64_t b; memcpy(&b, &v, 8); return b; }
  case K_F16: return enc_small_float(v, 10, 5, 15);
  case K_BF16: return f32bits((float)v) >> 16;
  case K_I8: return (uint8_t)(int8_t)v;
  case K_U8: return (uint8_t)v;
  case K_I4: return (uint64_t)((int)v & 0xf);
  case K_I32: return (uint32_t)(int32_t)v;
  case K_FP8: return fnuz ? enc_small_float(v, 3, 4, 8) : enc_small_float(v, 3, 4, 7);
  case K_BF8: return fnuz ? enc_small_float(v, 2, 5, 16) : enc_small_float(v, 2, 5, 15);
  }
  return 0;
}

static double decode_out(kind k, uint64_t b) {
  switch (k) {
  case K_F32: { float f; uint32_t u = (uint32_t)b; memcpy(&f, &u, 4); return f; }
  case K_F64: { double d; memcpy(&d, &b, 8); return d; }
  case K_I32: return (int32_t)(uint32_t)b;
  case K_F16: {
    int e = (int)((b >> 10) & 31), m = (int)(b & 1023);
    double v = e ? ldexp(1024 + m, e - 25) : ldexp(m, -24);
    return (b & 0x8000) ? -v : v;
  }
  case K_BF16: { float f; uint32_t u = (uint32_t)b << 16; memcpy(&f, &u, 4); return f; }
  default: return NAN;
  }
}

/* Random value of the kind, exactly representable so that sums stay exact where promised. */
static double rnd_value(kind k, bool small) {
  switch (k) {
  case K_F32: return (double)(float)((double)(int64_t)(rnd() % 2000001 - 1000000) / 1e6);
  case K_F64: return (double)(int64_t)(rnd() % 2000001 - 1000000) / 1048576.0 + 1e-9 * rndi(0, 9);
  case K_XF32: return rndi(-32, 32) / 8.0;
  case K_F16: case K_BF16: case K_FP8: case K_BF8: return small ? rndi(-2, 2) : rndi(-8, 8) / 2.0;
  case K_I8: return rndi(-128, 127);
  case K_U8: return rndi(0, 255);
  case K_I4: return rndi(-8, 7);
  case K_I32: return rndi(-1000000, 1000000);
  }
  return 0;
}

static void put_bits(uint32_t *regs, const col *c, uint64_t v) {
  for (int b = 0; b < c->width; b++) {
    int bit = c->reg * 32 + c->lo + b;
    uint32_t m = 1u << (bit % 32);
    if ((v >> b) & 1) regs[bit / 32] |= m;
    else regs[bit / 32] &= ~m;
  }
}

static uint64_t get_bits(const uint32_t *regs, const col *c) {
  uint64_t v = 0;
  for (int b = 0; b < c->width; b++) {
    int bit = c->reg * 32 + c->lo + b;
    v |= (uint64_t)((regs[bit / 32] >> (bit % 32)) & 1) << b;
  }
  return v;
}

/* ------------------------------------------------------------------ one instruction */

static void kinds_of(const char *mn, kind *ka, kind *kb, kind *kcd, int *signed_iu) {
  const char *tail = strchr(mn + 2, '_') + 1; /* after "v_mfma_"/"v_wmma_" */
  *kcd = !strncmp(tail, "f32", 3) ? K_F32 : !strncmp(tail, "f64", 3) ? K_F64
         : !strncmp(tail, "i32", 3) ? K_I32 : !strncmp(tail, "f16", 3) ? K_F16 : K_BF16;
  const char *fp8 = strstr(mn, "fp8_"), *bf8 = strstr(mn, "bf8_");
  if (fp8 || bf8) {
    const char *first = fp8 && (!bf8 || fp8 < bf8) ? fp8 : bf8;
    *ka = first[0] == 'f' ? K_FP8 : K_BF8;
    *kb = first[4] == 'f' ? K_FP8 : K_BF8;
    return;
  }
  kind k = strstr(mn, "xf32") ? K_XF32 : strstr(mn, "f64") ? K_F64 : strstr(mn, "bf16") ? K_BF16
           : strstr(mn, "f16") ? K_F16 : strstr(mn, "iu8") ? (*signed_iu ? K_I8 : K_U8)
           : strstr(mn, "iu4") ? K_I4 : strstr(mn, "i8") ? K_I8 : K_F32;
  *ka = *kb = k;
}

static uint32_t g_regs[4][MAXLANE][MAXWORD];
static table g_ta, g_tb, g_tc, g_td;
static double g_a[MAXEL], g_b[MAXEL], g_c[MAXEL];

static int blgp_src(int blgp, int lane) {
  switch (blgp) {
  case 1: return lane < 32 ? lane : lane - 32;
  case 2: return lane < 32 ? lane + 32 : lane;
  case 3: return lane < 48 ? lane + 16 : lane - 48;
  case 4: case 5: case 6: case 7: return (blgp - 4) * 16 + lane % 16;
  }
  return lane;
}

/* 0 = ok, 1 = mismatch, -1 = tables missing. */
static int run_case(const tcase *tc, const table *ovA, const table *ovD) {
  table *ta = &g_ta, *tb = &g_tb, *tcc = &g_tc, *td = &g_td;
  if (ovA) {
    *ta = *ovA, *tb = *ovA, *td = *ovD, *tcc = *ovD;
    for (int l = 0; l < MAXLANE; l++) /* B[k][j] uses A's rule with j in place of i */
      for (int ci = 0; ci < tb->ncol; ci++) {
        cell *c = &tb->cells[l][ci];
        int t = c->r;
        c->r = c->c, c->c = t;
      }
    int t = tb->max_r;
    tb->max_r = tb->max_c, tb->max_c = t;
  } else {
    if (!load_table(tc->abdir, tc->mnemonic, 'A', ta) || !load_table(tc->abdir, tc->mnemonic, 'B', tb) ||
        !load_table(tc->cddir, tc->mnemonic, 'D', td))
      return -1;
    if (!load_table(tc->cddir, tc->mnemonic, 'C', tcc)) *tcc = *td; /* C has D's layout */
  }
  int signed_iu = tc->cbsz;
  kind ka, kb, kcd;
  kinds_of(tc->mnemonic, &ka, &kb, &kcd, &signed_iu);
  bool fnuz = !strcmp(tc->proc, "gfx942"), mfma = tc->mnemonic[2] == 'm';
  bool small = kcd == K_BF16 || kcd == K_F16;
  int NB = td->max_blk, M = td->max_r, N = td->max_c, K = ta->max_c;
  if (NB * M * K > MAXEL || NB * K * N > MAXEL || NB * M * N > MAXEL) return -1;

  for (int i = 0; i < NB * M * K; i++) g_a[i] = rnd_value(ka, small);
  for (int i = 0; i < NB * K * N; i++) g_b[i] = rnd_value(kb, small);
  for (int i = 0; i < NB * M * N; i++)
    g_c[i] = kcd == K_I32 ? rnd_value(K_I32, false) : kcd == K_F64 ? rnd_value(K_F64, false)
             : small ? rndi(-8, 8) : rndi(-32, 32) / 2.0;

  /* garbage everywhere first: bits the tables do not name must not matter */
  for (int o = 0; o < 4; o++)
    for (int l = 0; l < MAXLANE; l++)
      for (int w = 0; w < MAXWORD; w++) g_regs[o][l][w] = (uint32_t)rnd();
  for (int l = 0; l < tc->wave; l++) {
    for (int ci = 0; ci < ta->ncol; ci++) {
      const cell *c = &ta->cells[l][ci];
      if (c->valid) put_bits(g_regs[0][l], &ta->cols[ci], encode(ka, g_a[(c->blk * M + c->r) * K + c->c], fnuz));
    }
    for (int ci = 0; ci < tb->ncol; ci++) {
      const cell *c = &tb->cells[l][ci];
      if (c->valid) put_bits(g_regs[1][l], &tb->cols[ci], encode(kb, g_b[(c->blk * K + c->r) * N + c->c], fnuz));
    }
    for (int ci = 0; ci < tcc->ncol; ci++) {
      const cell *c = &tcc->cells[l][ci];
      if (c->valid) put_bits(g_regs[2][l], &tcc->cols[ci], encode(kcd, g_c[(c->blk * M + c->r) * N + c->c], fnuz));
    }
  }

  /* what the hardware multiplies: B as seen after the BLGP lane pattern */
  static double beff[MAXEL];
  memcpy(beff, g_b, sizeof(double) * (size_t)(NB * K * N));
  if (mfma && tc->blgp && kcd != K_F64)
    for (int l = 0; l < tc->wave; l++)
      for (int ci = 0; ci < tb->ncol; ci++) {
        const cell *c = &tb->cells[l][ci], *s = &tb->cells[blgp_src(tc->blgp, l)][ci];
        if (c->valid && s->valid)
          beff[(c->blk * K + c->r) * N + c->c] = g_b[(s->blk * K + s->r) * N + s->c];
      }

  const void *pa[MAXLANE], *pb[MAXLANE], *pc[MAXLANE];
  void *pd[MAXLANE];
  for (int l = 0; l < MAXLANE; l++)
    pa[l] = g_regs[0][l], pb[l] = g_regs[1][l], pc[l] = g_regs[2][l], pd[l] = g_regs[3][l];
  emu_matrix_call call = {tc->intrinsic, tc->proc, tc->wave, pa, pb, pc, pd,
                          tc->cbsz, tc->abid, tc->blgp, NULL, NULL, 0, 0};
  char err[256] = "";
  if (!emu_matrix_supported(tc->intrinsic, tc->proc)) {
    printf("FAIL %s %s: not supported\n", tc->proc, tc->mnemonic);
    return 1;
  }
  if (!emu_matrix_exec(&call, err, sizeof err)) {
    printf("FAIL %s %s: %s\n", tc->proc, tc->mnemonic, err);
    return 1;
  }

  int checked = 0;
  for (int l = 0; l < tc->wave; l++)
    for (int ci = 0; ci < td->ncol; ci++) {
      const cell *c = &td->cells[l][ci];
      if (!c->valid) continue;
      int b = c->blk, i = c->r, j = c->c;
      int ab = (!mfma || kcd == K_F64 || !tc->cbsz) ? b : ((b >> tc->cbsz) << tc->cbsz) + tc->abid;
      double ref = g_c[(b * M + i) * N + j], mag = fabs(ref);
      double sa = 1, sb = 1;
      if (kcd == K_F64 && tc->blgp) {
        sa = (tc->blgp & 1) ? -1 : 1, sb = (tc->blgp & 2) ? -1 : 1;
        ref = (tc->blgp & 4) ? -ref : ref;
      }
      for (int k = 0; k < K; k++) {
        double p = sa * g_a[(ab * M + i) * K + k] * sb * beff[(b * K + k) * N + j];
        ref += p, mag += fabs(p);
      }
      double got = decode_out(kcd, get_bits(g_regs[3][l], &td->cols[ci]));
      double tol = (ka == K_F32 || ka == K_XF32) ? 1e-6 * mag + 1e-30
                   : ka == K_F64 ? 1e-14 * mag + 1e-300 : 0;
      if (!(fabs(got - ref) <= tol)) {
        printf("FAIL %s %s: lane %d col %d D[%d][%d].B%d = %.9g, expected %.9g\n", tc->proc,
               tc->mnemonic, l, ci, i, j, b, got, ref);
        return 1;
      }
      checked++;
    }
  if (checked != NB * M * N) {
    printf("FAIL %s %s: D table names %d elements, expected %d\n", tc->proc, tc->mnemonic,
           checked, NB * M * N);
    return 1;
  }
  printf("ok %s %s%s%s\n", tc->proc, tc->mnemonic, tc->note ? " " : "", tc->note ? tc->note : "");
  return 0;
}

/* ------------------------------------------------------------------ gfx950 derived tables */

/* AMDGPU.md 3.3 written out as tables: single-block MxMxK, lane L holds row L%M and k values
 * (L/M)*KL + e; D accumulator r holds row 8(r/4)+4(L/32)+r%4 (32x32) or 4(L/16)+r (16x16). */
static void derived_tables(int M, int K, int ebits, table *a, table *d) {
  memset(a, 0, sizeof *a), memset(d, 0, sizeof *d);
  int kl = K * M / 64;
  a->ncol = kl, a->nlane = d->nlane = 64;
  for (int e = 0; e < kl; e++) a->cols[e] = (col){e * ebits / 32, e * ebits % 32, ebits};
  d->ncol = M * M / 64;
  for (int r = 0; r < d->ncol; r++) d->cols[r] = (col){r, 0, 32};
  for (int l = 0; l < 64; l++) {
    for (int e = 0; e < kl; e++) a->cells[l][e] = (cell){0, l % M, (l / M) * kl + e, true};
    for (int r = 0; r < d->ncol; r++) {
      int i = M == 32 ? 8 * (r / 4) + 4 * (l / 32) + r % 4 : 4 * (l / 16) + r;
      d->cells[l][r] = (cell){0, i, l % M, true};
    }
  }
  a->max_blk = d->max_blk = 1;
  a->max_r = d->max_r = d->max_c = M, a->max_c = K;
}

#define C908(mn, in) {"gfx908", "llvm.amdgcn.mfma." in, mn, "gfx908", "gfx908", 64, 0, 0, 0, NULL},
#define C90A(mn, in) {"gfx90a", "llvm.amdgcn.mfma." in, mn, "gfx90a", "gfx90a", 64, 0, 0, 0, NULL},
#define C942(mn, in) {"gfx942", "llvm.amdgcn.mfma." in, mn, "gfx942", "gfx942", 64, 0, 0, 0, NULL},
#define C950(mn, in) {"gfx950", "llvm.amdgcn.mfma." in, mn, "gfx942", "gfx942", 64, 0, 0, 0, "(gfx942 layout)"},
/* iu forms run signed (cbsz = A signed, blgp = B signed); others take no modifiers */
#define W11(mn, in, dir, w) {"gfx1100", "llvm.amdgcn.wmma." in, mn, dir, dir, w, 0, 0, 0, NULL},
#define W12(mn, in, dir, w) {"gfx1200", "llvm.amdgcn.wmma." in, mn, dir, dir, w, 0, 0, 0, NULL},
#define W11S(mn, in, dir, w) {"gfx1100", "llvm.amdgcn.wmma." in, mn, dir, dir, w, 1, 0, 1, NULL},
#define W12S(mn, in, dir, w) {"gfx1200", "llvm.amdgcn.wmma." in, mn, dir, dir, w, 1, 0, 1, NULL},

static const tcase cases[] = {
  C908("v_mfma_f32_32x32x1f32", "f32.32x32x1f32") C908("v_mfma_f32_16x16x1f32", "f32.16x16x1f32")
  C908("v_mfma_f32_4x4x1f32", "f32.4x4x1f32") C908("v_mfma_f32_32x32x2f32", "f32.32x32x2f32")
  C908("v_mfma_f32_16x16x4f32", "f32.16x16x4f32") C908("v_mfma_f32_32x32x4f16", "f32.32x32x4f16")
  C908("v_mfma_f32_16x16x4f16", "f32.16x16x4f16") C908("v_mfma_f32_4x4x4f16", "f32.4x4x4f16")
  C908("v_mfma_f32_32x32x8f16", "f32.32x32x8f16") C908("v_mfma_f32_16x16x16f16", "f32.16x16x16f16")
  C908("v_mfma_i32_32x32x4i8", "i32.32x32x4i8") C908("v_mfma_i32_16x16x4i8", "i32.16x16x4i8")
  C908("v_mfma_i32_4x4x4i8", "i32.4x4x4i8") C908("v_mfma_i32_32x32x8i8", "i32.32x32x8i8")
  C908("v_mfma_i32_16x16x16i8", "i32.16x16x16i8") C908("v_mfma_f32_32x32x2bf16", "f32.32x32x2bf16")
  C908("v_mfma_f32_16x16x2bf16", "f32.16x16x2bf16") C908("v_mfma_f32_4x4x2bf16", "f32.4x4x2bf16")
  C908("v_mfma_f32_32x32x4bf16", "f32.32x32x4bf16") C908("v_mfma_f32_16x16x8bf16", "f32.16x16x8bf16")

  C90A("v_mfma_f32_32x32x1f32", "f32.32x32x1f32") C90A("v_mfma_f32_16x16x1f32", "f32.16x16x1f32")
  C90A("v_mfma_f32_4x4x1f32", "f32.4x4x1f32") C90A("v_mfma_f32_32x32x2f32", "f32.32x32x2f32")
  C90A("v_mfma_f32_16x16x4f32", "f32.16x16x4f32") C90A("v_mfma_f32_32x32x4f16", "f32.32x32x4f16")
  C90A("v_mfma_f32_16x16x4f16", "f32.16x16x4f16") C90A("v_mfma_f32_4x4x4f16", "f32.4x4x4f16")
  C90A("v_mfma_f32_32x32x8f16", "f32.32x32x8f16") C90A("v_mfma_f32_16x16x16f16", "f32.16x16x16f16")
  C90A("v_mfma_i32_32x32x4i8", "i32.32x32x4i8") C90A("v_mfma_i32_16x16x4i8", "i32.16x16x4i8")
  C90A("v_mfma_i32_4x4x4i8", "i32.4x4x4i8") C90A("v_mfma_i32_32x32x8i8", "i32.32x32x8i8")
  C90A("v_mfma_i32_16x16x16i8", "i32.16x16x16i8") C90A("v_mfma_f32_32x32x2bf16", "f32.32x32x2bf16")
  C90A("v_mfma_f32_16x16x2bf16", "f32.16x16x2bf16") C90A("v_mfma_f32_4x4x2bf16", "f32.4x4x2bf16")
  C90A("v_mfma_f32_32x32x4bf16", "f32.32x32x4bf16") C90A("v_mfma_f32_16x16x8bf16", "f32.16x16x8bf16")
  C90A("v_mfma_f32_32x32x4bf16_1k", "f32.32x32x4bf16.1k")
  C90A("v_mfma_f32_16x16x4bf16_1k", "f32.16x16x4bf16.1k")
  C90A("v_mfma_f32_4x4x4bf16_1k", "f32.4x4x4bf16.1k")
  C90A("v_mfma_f32_32x32x8bf16_1k", "f32.32x32x8bf16.1k")
  C90A("v_mfma_f32_16x16x16bf16_1k", "f32.16x16x16bf16.1k")
  C90A("v_mfma_f64_16x16x4f64", "f64.16x16x4f64") C90A("v_mfma_f64_4x4x4f64", "f64.4x4x4f64")

#define GFX942_SET(C)                                                                           \
  C("v_mfma_f32_32x32x1_2b_f32", "f32.32x32x1f32") C("v_mfma_f32_16x16x1_4b_f32", "f32.16x16x1f32") \
  C("v_mfma_f32_4x4x1_16b_f32", "f32.4x4x1f32") C("v_mfma_f32_32x32x2_f32", "f32.32x32x2f32")     \
  C("v_mfma_f32_16x16x4_f32", "f32.16x16x4f32") C("v_mfma_f32_32x32x4_2b_f16", "f32.32x32x4f16")  \
  C("v_mfma_f32_16x16x4_4b_f16", "f32.16x16x4f16") C("v_mfma_f32_4x4x4_16b_f16", "f32.4x4x4f16")  \
  C("v_mfma_f32_32x32x8_f16", "f32.32x32x8f16") C("v_mfma_f32_16x16x16_f16", "f32.16x16x16f16")   \
  C("v_mfma_i32_32x32x4_2b_i8", "i32.32x32x4i8") C("v_mfma_i32_16x16x4_4b_i8", "i32.16x16x4i8")   \
  C("v_mfma_i32_4x4x4_16b_i8", "i32.4x4x4i8") C("v_mfma_i32_32x32x16_i8", "i32.32x32x16.i8")      \
  C("v_mfma_i32_16x16x32_i8", "i32.16x16x32.i8")                                                  \
  C("v_mfma_f32_32x32x4_2b_bf16", "f32.32x32x4bf16.1k")                                           \
  C("v_mfma_f32_16x16x4_4b_bf16", "f32.16x16x4bf16.1k")                                           \
  C("v_mfma_f32_4x4x4_16b_bf16", "f32.4x4x4bf16.1k")                                              \
  C("v_mfma_f32_32x32x8_bf16", "f32.32x32x8bf16.1k")                                              \
  C("v_mfma_f32_16x16x16_bf16", "f32.16x16x16bf16.1k")                                            \
  C("v_mfma_f64_16x16x4_f64", "f64.16x16x4f64") C("v_mfma_f64_4x4x4_4b_f64", "f64.4x4x4f64")      \
  C("v_mfma_f32_16x16x32_fp8_fp8", "f32.16x16x32.fp8.fp8")                                        \
  C("v_mfma_f32_16x16x32_fp8_bf8", "f32.16x16x32.fp8.bf8")                                        \
  C("v_mfma_f32_16x16x32_bf8_fp8", "f32.16x16x32.bf8.fp8")                                        \
  C("v_mfma_f32_16x16x32_bf8_bf8", "f32.16x16x32.bf8.bf8")                                        \
  C("v_mfma_f32_32x32x16_fp8_fp8", "f32.32x32x16.fp8.fp8")                                        \
  C("v_mfma_f32_32x32x16_fp8_bf8", "f32.32x32x16.fp8.bf8")                                        \
  C("v_mfma_f32_32x32x16_bf8_fp8", "f32.32x32x16.bf8.fp8")                                        \
  C("v_mfma_f32_32x32x16_bf8_bf8", "f32.32x32x16.bf8.bf8")
  GFX942_SET(C942)
  C942("v_mfma_f32_16x16x8_xf32", "f32.16x16x8.xf32") C942("v_mfma_f32_32x32x4_xf32", "f32.32x32x4.xf32")
  GFX942_SET(C950)

  W11("v_wmma_f32_16x16x16_f16", "f32.16x16x16.f16", "gfx1100", 32)
  W11("v_wmma_f32_16x16x16_bf16", "f32.16x16x16.bf16", "gfx1100", 32)
  W11("v_wmma_f16_16x16x16_f16", "f16.16x16x16.f16", "gfx1100", 32)
  W11("v_wmma_bf16_16x16x16_bf16", "bf16.16x16x16.bf16", "gfx1100", 32)
  W11S("v_wmma_i32_16x16x16_iu8", "i32.16x16x16.iu8", "gfx1100", 32)
  W11S("v_wmma_i32_16x16x16_iu4", "i32.16x16x16.iu4", "gfx1100", 32)
  W11("v_wmma_f32_16x16x16_f16", "f32.16x16x16.f16", "gfx1100/wave64", 64)
  W11("v_wmma_f32_16x16x16_bf16", "f32.16x16x16.bf16", "gfx1100/wave64", 64)
  W11("v_wmma_f16_16x16x16_f16", "f16.16x16x16.f16", "gfx1100/wave64", 64)
  W11S("v_wmma_i32_16x16x16_iu8", "i32.16x16x16.iu8", "gfx1100/wave64", 64)
  {"gfx1100", "llvm.amdgcn.wmma.f16.16x16x16.f16", "v_wmma_f16_16x16x16_f16", "gfx1100",
   "gfx1100/opsel1", 32, 0, 1, 0, "(opsel 1)"},
  {"gfx1100", "llvm.amdgcn.wmma.bf16.16x16x16.bf16.tied", "v_wmma_bf16_16x16x16_bf16", "gfx1100",
   "gfx1100/opsel1", 32, 0, 1, 0, "(tied, opsel 1)"},
  {"gfx1100", "llvm.amdgcn.wmma.i32.16x16x16.iu8", "v_wmma_i32_16x16x16_iu8", "gfx1100",
   "gfx1100", 32, 0, 0, 0, "(unsigned)"},

  W12("v_wmma_f32_16x16x16_f16", "f32.16x16x16.f16", "gfx1200", 32)
  W12("v_wmma_f32_16x16x16_bf16", "f32.16x16x16.bf16", "gfx1200", 32)
  W12("v_wmma_f16_16x16x16_f16", "f16.16x16x16.f16", "gfx1200", 32)
  W12("v_wmma_bf16_16x16x16_bf16", "bf16.16x16x16.bf16", "gfx1200", 32)
  W12S("v_wmma_i32_16x16x16_iu8", "i32.16x16x16.iu8", "gfx1200", 32)
  W12S("v_wmma_i32_16x16x16_iu4", "i32.16x16x16.iu4", "gfx1200", 32)
  W12S("v_wmma_i32_16x16x32_iu4", "i32.16x16x32.iu4", "gfx1200", 32)
  W12("v_wmma_f32_16x16x16_fp8_fp8", "f32.16x16x16.fp8.fp8", "gfx1200", 32)
  W12("v_wmma_f32_16x16x16_fp8_bf8", "f32.16x16x16.fp8.bf8", "gfx1200", 32)
  W12("v_wmma_f32_16x16x16_bf8_fp8", "f32.16x16x16.bf8.fp8", "gfx1200", 32)
  W12("v_wmma_f32_16x16x16_bf8_bf8", "f32.16x16x16.bf8.bf8", "gfx1200", 32)
  W12("v_wmma_f32_16x16x16_f16", "f32.16x16x16.f16", "gfx1200/wave64", 64)
  W12("v_wmma_f32_16x16x16_bf16", "f32.16x16x16.bf16", "gfx1200/wave64", 64)
  W12("v_wmma_f16_16x16x16_f16", "f16.16x16x16.f16", "gfx1200/wave64", 64)
  W12S("v_wmma_i32_16x16x16_iu8", "i32.16x16x16.iu8", "gfx1200/wave64", 64)

  /* modifiers: CBSZ/ABID broadcast and BLGP lane patterns on multi-block forms, f64 negation */
  {"gfx90a", "llvm.amdgcn.mfma.f32.4x4x4f16", "v_mfma_f32_4x4x4f16", "gfx90a", "gfx90a", 64, 2, 3, 0, "(cbsz 2 abid 3)"},
  {"gfx908", "llvm.amdgcn.mfma.f32.32x32x1f32", "v_mfma_f32_32x32x1f32", "gfx908", "gfx908", 64, 1, 1, 0, "(cbsz 1 abid 1)"},
  {"gfx942", "llvm.amdgcn.mfma.i32.16x16x4i8", "v_mfma_i32_16x16x4_4b_i8", "gfx942", "gfx942", 64, 2, 2, 3, "(cbsz 2 abid 2 blgp 3)"},
  {"gfx90a", "llvm.amdgcn.mfma.f32.32x32x8f16", "v_mfma_f32_32x32x8f16", "gfx90a", "gfx90a", 64, 0, 0, 1, "(blgp 1)"},
  {"gfx90a", "llvm.amdgcn.mfma.f32.16x16x16f16", "v_mfma_f32_16x16x16f16", "gfx90a", "gfx90a", 64, 0, 0, 2, "(blgp 2)"},
  {"gfx908", "llvm.amdgcn.mfma.f32.16x16x4f32", "v_mfma_f32_16x16x4f32", "gfx908", "gfx908", 64, 0, 0, 6, "(blgp 6)"},
  {"gfx942", "llvm.amdgcn.mfma.f32.4x4x1f32", "v_mfma_f32_4x4x1_16b_f32", "gfx942", "gfx942", 64, 4, 9, 7, "(cbsz 4 abid 9 blgp 7)"},
  {"gfx942", "llvm.amdgcn.mfma.f64.16x16x4f64", "v_mfma_f64_16x16x4_f64", "gfx942", "gfx942", 64, 0, 0, 5, "(neg a, c)"},
};

/* gfx950 K-doubled forms have no calculator tables: checked against AMDGPU.md's formulas. */
static const struct { const char *in, *mn; int m, k, ebits; } derived[] = {
  {"llvm.amdgcn.mfma.f32.16x16x32.f16", "v_mfma_f32_16x16x32_f16", 16, 32, 16},
  {"llvm.amdgcn.mfma.f32.32x32x16.f16", "v_mfma_f32_32x32x16_f16", 32, 16, 16},
  {"llvm.amdgcn.mfma.f32.16x16x32.bf16", "v_mfma_f32_16x16x32_bf16", 16, 32, 16},
  {"llvm.amdgcn.mfma.f32.32x32x16.bf16", "v_mfma_f32_32x32x16_bf16", 32, 16, 16},
  {"llvm.amdgcn.mfma.i32.16x16x64.i8", "v_mfma_i32_16x16x64_i8", 16, 64, 8},
  {"llvm.amdgcn.mfma.i32.32x32x32.i8", "v_mfma_i32_32x32x32_i8", 32, 32, 8},
};

/* Negative checks: unsupported combinations must be refused with a message, not computed. */
static int refusals(void) {
  static const struct { const char *in, *proc; } no[] = {
    {"llvm.amdgcn.mfma.i32.32x32x8i8", "gfx942"},
    {"llvm.amdgcn.mfma.f32.32x32x4.xf32", "gfx950"},
    {"llvm.amdgcn.mfma.f32.32x32x8f16", "gfx1100"},
    {"llvm.amdgcn.wmma.f32.16x16x16.f16", "gfx90a"},
    {"llvm.amdgcn.mfma.f32.32x32x4bf16.1k", "gfx908"},
    {"llvm.amdgcn.mfma.f32.32x32x8f16", "gfx1030"},
  };
  int bad = 0;
  for (size_t i = 0; i < sizeof no / sizeof no[0]; i++)
    if (emu_matrix_supported(no[i].in, no[i].proc)) {
      printf("FAIL %s claims support for %s\n", no[i].proc, no[i].in);
      bad++;
    }
  if (!emu_matrix_supported("llvm.amdgcn.wmma.f32.16x16x16.f16.v8f32.v16f16", "gfx1100") ||
      !emu_matrix_supported("llvm.amdgcn.mfma.f32.32x32x8bf16.1k", "gfx942")) {
    printf("FAIL overload-suffixed or _1k names not recognised\n");
    bad++;
  }
  /* blgp is not encodable on gfx942's 2x-rate f16 form: must be an error */
  static uint32_t regs[64][16];
  const void *p[64];
  void *q[64];
  for (int l = 0; l < 64; l++) p[l] = regs[l], q[l] = regs[l];
  emu_matrix_call c = {"llvm.amdgcn.mfma.f32.32x32x8f16", "gfx942", 64, p, p, p, q, 0, 0, 1, NULL, NULL, 0, 0};
  char err[256] = "";
  if (emu_matrix_exec(&c, err, sizeof err) || !strstr(err, "blgp")) {
    printf("FAIL blgp on gfx942 32x32x8f16 accepted (%s)\n", err);
    bad++;
  }
  /* RDNA3 reads A from both half-waves: lanes 16-31 must replicate lanes 0-15 */
  memset(regs, 0, sizeof regs);
  regs[17][3] = 0x3c00; /* lane 17 (row 1) k = 6 is 1.0, lane 1 still 0 */
  emu_matrix_call w = {"llvm.amdgcn.wmma.f32.16x16x16.f16", "gfx1100", 32, p, p, p, q, 0, 0, 0, NULL, NULL, 0, 0};
  if (emu_matrix_exec(&w, err, sizeof err) || !strstr(err, "lane 17 holds a different A value")) {
    printf("FAIL unreplicated RDNA3 A operand accepted (%s)\n", err);
    bad++;
  }
  /* a name where an earlier call's name was (its module freed, the next one's name allocated at
   * the same address) is looked up again, not taken for the earlier instruction */
  char name[64] = "llvm.amdgcn.mfma.f32.32x32x8f16";
  memset(regs, 0, sizeof regs);
  c.intrinsic = name, c.blgp = 0;
  if (!emu_matrix_exec(&c, err, sizeof err)) {
    printf("FAIL gfx942 32x32x8f16 refused (%s)\n", err);
    bad++;
  }
  strcpy(name, "llvm.amdgcn.mfma.f32.nope");
  if (emu_matrix_exec(&c, err, sizeof err) || !strstr(err, "not emulated")) {
    printf("FAIL a name reusing an earlier name's storage taken for the earlier instruction (%s)\n", err);
    bad++;
  }
  c.intrinsic = "llvm.amdgcn.mfma.f32.nope";
  if (emu_matrix_exec(&c, err, sizeof err) || !strstr(err, "not emulated")) {
    printf("FAIL unknown intrinsic accepted (%s)\n", err);
    bad++;
  }
  return bad;
}

int main(int argc, char **argv) {
  if (argc > 1) snprintf(g_root, sizeof g_root, "%s", argv[1]);
  int ok = 0, failed = 0;
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    int r = run_case(&cases[i], NULL, NULL);
    if (r < 0) {
      printf("FAIL %s %s: layout tables missing under %s\n", cases[i].proc, cases[i].mnemonic, g_root);
      failed++;
    } else if (r) {
      failed++;
    } else {
      ok++;
    }
  }
  static table da, dd;
  for (size_t i = 0; i < sizeof derived / sizeof derived[0]; i++) {
    tcase tc = {"gfx950", derived[i].in, derived[i].mn, "", "", 64, 0, 0, 0, "[derived]"};
    derived_tables(derived[i].m, derived[i].k, derived[i].ebits, &da, &dd);
    if (run_case(&tc, &da, &dd)) failed++;
    else ok++;
  }
  failed += refusals();
  printf("matrix: %d instructions checked, %d failed\n", ok, failed);
  return failed ? 1 : 0;
}
