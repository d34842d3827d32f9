/* gemm_tiles.c: tile parameters of the GEMM core: the per-shape/type/target heuristic, the
 * --perf-config override (format in docs/gemm.md), feasibility checks and the manifest text. */
#include "gemm.h"

#include <stdlib.h>
#include <string.h>

#define GEMM_MAX_THREADS 1024

static int64_t round_up(int64_t x, int64_t m) { return (x + m - 1) / m * m; }

/* Widest power-of-two vector of at most 16 bytes that divides the contiguous run and the tile. */
static int vector_width(elem_type t, int64_t contig, int tile) {
  int v = 16 / elem_type_bytes(t);
  while (v > 1 && (contig % v != 0 || tile % v != 0))
    v /= 2;
  return v;
}

int gemm_lds_elem_bytes(const gemm_mma *mm) { return mm->widen ? 4 : elem_type_bytes(mm->in); }

/* A widened row's padding grows with its elements: the staging slots past the tile store a whole
 * widened vector (up to 16 bytes of bf16, 32 as f32) into the padding of the last row. */
int gemm_lds_row_bytes(const gemm_params *p, const gemm_mma *mm) {
  int les = gemm_lds_elem_bytes(mm);
  return p->bk * les + GEMM_LDS_PAD_BYTES * les / elem_type_bytes(mm->in);
}

int gemm_lds_bytes(const gemm_params *p, const gemm_mma *mm) {
  return 2 * (p->bm + p->bn * (p->nb > 1 ? p->nb : 1)) * gemm_lds_row_bytes(p, mm) + p->bm * p->resident;
}

typedef struct overrides {
  int bm, bn, bk, wm, wn, shape, va, vb;
  int kernel; /* GEMM_KERNEL_* */
  bool fma;
} overrides;

static bool parse_config(const char *s, overrides *o, char *err, size_t errsize) {
  memset(o, 0, sizeof *o);
  while (s && *s) {
    size_t n = strcspn(s, ",");
    const char *eq = memchr(s, '=', n);
    if (!eq) {
      snprintf(err, errsize, "--perf-config: expected key=value, found '%.*s'", (int)n, s);
      return false;
    }
    size_t kl = (size_t)(eq - s);
    char val[32];
    snprintf(val, sizeof val, "%.*s", (int)(n - kl - 1), eq + 1);
    char *end;
    long v = strtol(val, &end, 10);
    bool num = *val && !*end && v > 0 && v <= 4096;
#define KEY(name) (kl == strlen(name) && memcmp(s, name, kl) == 0)
    if (KEY("mma") && strcmp(val, "fma") == 0)
      o->fma = true;
    else if (KEY("kernel") && (strcmp(val, "gemv") == 0 || strcmp(val, "tile") == 0))
      o->kernel = val[0] == 'g' ? GEMM_KERNEL_GEMV : GEMM_KERNEL_TILE;
    else if (KEY("mma") && num && (v == 16 || v == 32))
      o->shape = (int)v;
    else if (num && KEY("bm")) o->bm = (int)v;
    else if (num && KEY("bn")) o->bn = (int)v;
    else if (num && KEY("bk")) o->bk = (int)v;
    else if (num && KEY("wm")) o->wm = (int)v;
    else if (num && KEY("wn")) o->wn = (int)v;
    else if (num && KEY("va")) o->va = (int)v;
    else if (num && KEY("vb")) o->vb = (int)v;
    else {
      snprintf(err, errsize,
               "--perf-config: bad entry '%.*s' (keys: bm, bn, bk, wm, wn, va, vb = positive "
               "integers; mma = 32, 16 or fma; kernel = tile or gemv)",
               (int)n, s);
      return false;
    }
#undef KEY
    s += n;
    if (*s == ',')
      s++;
  }
  return true;
}

bool gemm_config_check(const char *s, char *err, size_t errsize) {
  overrides o;
  return parse_config(s, &o, err, errsize);
}

/* LDS that resident work-groups share: a CU's on gfx9 (the per-group limit), a WGP's on RDNA in
 * WGP mode (twice the per-group limit); 4 SIMDs either way. */
static int lds_pool(const target_info *t) { return t->wave_size == 32 ? 2 * t->lds_bytes : t->lds_bytes; }

/* Waves per SIMD that the LDS use of one work-group allows. */
static int lds_waves(const target_info *t, const gemm_params *p, const gemm_mma *mm) {
  int groups = lds_pool(t) / gemm_lds_bytes(p, mm);
  return groups * (p->bm / p->wm) * (p->bn / p->wn) / 4;
}

/* Global-to-LDS staging slots (vector loads) per thread of tile p. */
static int staging_slots(const gemm_problem *pb, const gemm_params *p, int threads) {
  int va = vector_width(pb->in, pb->a_contig, p->bk);
  int vb = vector_width(pb->in, pb->b_contig, pb->b_kcontig ? p->bk : p->bn);
  return (p->bm * p->bk / va + p->bn * p->bk / vb + threads - 1) / threads;
}

/* The default tiles (docs/gemm.md "Defaults"). Large MFMA problems get GEMM.md §6 row 1's shape:
 * 8 waves of 128x64 (128 accumulators, 2 waves/SIMD by registers) on a 256x256 tile; others 2x2
 * waves of 64x64. The K step starts at 128 bytes per row (the large shape; 64 otherwise) and halves until
 * the LDS of the double buffer leaves room for 2 waves per SIMD. */
static void default_tiles(const target_info *t, const gemm_problem *pb, const gemm_mma *mm,
                          gemm_params *out) {
  bool wmma = mm->row && mm->row->layout != MATRIX_MFMA;
  bool mfma = mm->row && !wmma;
  int64_t big_tiles = pb->batch * ((pb->m + 255) / 256) * ((pb->n + 255) / 256);
  bool big = mfma && pb->m >= 256 && pb->n >= 256 && big_tiles >= 32;
  /* WMMA operands are 8 VGPRs per fragment (gfx11 replicates A/B): 32x64 keeps them in budget.
   * gfx12's fragments are 4 VGPRs: 64x64 waves fit (256 VGPRs, no spills) and halve the fragment
   * reads per WMMA, which its 16-cycle WMMA needs (4096^3 f16 73.6 -> 82.8 % by the WMMA model);
   * only where the 128x128 tiles still give every CU one */
  int64_t tiles128 = pb->batch * ((pb->m + 127) / 128) * ((pb->n + 127) / 128);
  bool wide_wmma = wmma && mm->row->layout == MATRIX_WMMA_GFX12 && tiles128 >= t->cus;
  int rep_m = mm->row ? (big ? 128 : wmma && !wide_wmma ? 32 : 64) / mm->m : 1;
  int rep_n = mm->row ? 64 / mm->n : 1;
  /* Few work-groups leave CUs idle: BERT-base's 512x768x768 f16 makes 24 tiles of 128x128 for
   * 304 gfx942 CUs. When 128x128 tiles would not reach one per CU and the output still holds 16
   * tiles of 64x64, 2x2 waves of one 32x32 instruction each fill more CUs (tosac-tune and the
   * quality model: 512x768x768 10 -> 35 % of the roofline on gfx942, 22 -> 92 % on gfx90a). */
  if (mfma && !big && mm->m == 32 && mm->n == 32 && tiles128 < t->cus &&
      pb->batch * pb->m * pb->n >= 16 * 64 * 64)
    rep_m = rep_n = 1;
  out->wm = (int)(mm->m * (rep_m < 1 ? 1 : rep_m));
  out->wn = (int)(mm->n * (rep_n < 1 ? 1 : rep_n));
  if (out->wm > round_up(pb->m, mm->m))
    out->wm = (int)round_up(pb->m, mm->m);
  if (out->wn > round_up(pb->n, mm->n))
    out->wn = (int)round_up(pb->n, mm->n);
  /* 2x2 waves (2x4 for the large shape) unless the problem is smaller than that */
  out->bm = out->wm * (pb->m > out->wm ? 2 : 1);
  out->bn = out->wn * (pb->n > out->wn ? (big ? 4 : 2) : 1);
  int es = elem_type_bytes(pb->in);
  int kmin = 16 / es > mm->k ? 16 / es : mm->k; /* one 16-byte row chunk, one instruction */
  /* 64 bytes of K per row: the pipelined MFMA loop (kernel_gemm.c) keeps two staged tiles and
   * two fragment sets in registers; 128 bytes (which gfx950's 160 KiB LDS would hold) left
   * 4096^3 f16 at 256 VGPRs and 92 % matrix pipe against 93 % with 64 bytes, i8 77 % against
   * 87 %. 64 bytes on 2x2-wave tiles too: 128 unrolls short K loops whole and halves the waves */
  int start = 64;
  int bk = start / es > mm->k ? start / es : mm->k;
  out->bk = bk;
  while (bk / 2 >= kmin && bk / 2 % mm->k == 0 && lds_waves(t, out, mm) < 2)
    out->bk = bk /= 2;
  /* Odd contiguous runs (127x255x63: K = 255, N = 63) stage one element per slot; at 128x64x32
   * that is 48 masked loads per thread, whose addresses and masks spill (gfx950: 91 VGPRs). Down
   * to one 16-byte K chunk while a thread holds more than 16 slots (48 -> 24, no spills). */
  int threads = (out->bm / out->wm) * (out->bn / out->wn) * t->wave_size;
  while (bk / 2 >= kmin && bk / 2 % mm->k == 0 && staging_slots(pb, out, threads) > 16)
    out->bk = bk /= 2;
  /* not far beyond K itself */
  int64_t kneed = round_up(pb->k, kmin);
  if (out->bk > kneed)
    out->bk = (int)round_up(kneed, mm->k);
  /* the run gather's slots keep their pixel across K tiles: whole tap rows per tile */
  if (pb->k_run && out->bk % pb->k_run)
    out->bk = (int)round_up(round_up(out->bk, pb->k_run), mm->k);
}

/* Accumulators per lane of p's wave tile, both sets of a dual-B tile. */
static int lane_accumulators(const gemm_params *p, const gemm_mma *mm) {
  return (p->wm / mm->m) * (p->wn / mm->n) * mm->nacc * (p->nb > 1 ? p->nb : 1);
}

/* The dual-B GEMM (pb->nb == 2) keeps two accumulator sets and stages two B tiles. Its tile is
 * the single GEMM's, then the wave tile's n (then m) halves while both sets hold more than the
 * single tile's accumulators (at least 64 per lane: 2 waves per SIMD by registers), and bk halves
 * while the double buffer of A and both B tiles exceeds the LDS. */
static void fit_dual(const target_info *t, const gemm_problem *pb, const gemm_mma *mm, gemm_params *p) {
  int budget = lane_accumulators(p, mm);
  if (budget < 64)
    budget = 64;
  p->nb = pb->nb;
  while (lane_accumulators(p, mm) > budget && p->wn / 2 >= mm->n && (p->wn / 2) % mm->n == 0)
    p->wn /= 2, p->bn /= 2;
  while (lane_accumulators(p, mm) > budget && p->wm / 2 >= mm->m && (p->wm / 2) % mm->m == 0)
    p->wm /= 2, p->bm /= 2;
  int kmin = 16 / elem_type_bytes(pb->in) > mm->k ? 16 / elem_type_bytes(pb->in) : mm->k;
  while (gemm_lds_bytes(p, mm) > t->lds_bytes && p->bk / 2 >= kmin && (p->bk / 2) % mm->k == 0)
    p->bk /= 2;
}

bool gemm_params_choose(const target_info *t, const gemm_problem *pb, const char *perf_config,
                        gemm_params *out, gemm_mma *mm, char *err, size_t errsize) {
  overrides o;
  if (!parse_config(perf_config, &o, err, errsize))
    return false;
  if (!gemm_mma_select(t, pb->in, o.shape, o.fma || gemm_problem_fma_only(pb), pb->m, pb->n, mm)) {
    snprintf(err, errsize, "--perf-config: %s has no %dx%d matrix instruction for %s", t->name,
             o.shape, o.shape, elem_type_name(pb->in));
    return false;
  }
  if (elem_type_is_f8(pb->in) && !mm->row) { /* no byte-float FMA fallback */
    snprintf(err, errsize, "%s inputs need an fp8 matrix instruction and %s has none "
             "(f8E4M3FNUZ and f8E5M2FNUZ: gfx942; f8E4M3FN and f8E5M2: gfx950, gfx1200)",
             elem_type_name(pb->in), t->name);
    return false;
  }
  mm->acc64 = pb->acc64;
  if (!mm->row)
    gemm_mma_fma_fit(t, mm, pb->batch, pb->m, pb->n);
  /* the FMA path's dual-B tile: two micro-tiles of at most 64 accumulators together */
  if (!mm->row && pb->nb > 1 && mm->tm * mm->tn * pb->nb > 64)
    gemm_mma_fma_tile(t, mm, mm->tm, mm->tn / pb->nb);
  memset(out, 0, sizeof *out);
  out->shape = o.shape;
  out->fma = !mm->row;
  out->kernel = o.kernel;
  out->resident = pb->a_resident;
  default_tiles(t, pb, mm, out);
  if (o.bm) out->bm = o.bm;
  if (o.bn) out->bn = o.bn;
  if (o.bk) out->bk = o.bk;
  if (o.wm) out->wm = o.wm;
  if (o.wn) out->wn = o.wn;
  if (!mm->row && (o.wm || o.wn))
    gemm_mma_fma_divide(t, mm, out->wm, out->wn);
  if (pb->nb > 1)
    fit_dual(t, pb, mm, out);
  /* A rows resident in LDS (a row-norm prologue): fewer rows per work-group until they fit
   * beside the staging buffers: fewer waves along M, shorter wave tiles, then fewer waves along N */
  while (pb->a_resident && !o.bm && gemm_lds_bytes(out, mm) > t->lds_bytes) {
    if (out->bm / out->wm > 1)
      out->bm /= 2;
    else if (!o.wm && (mm->row ? out->wm / 2 >= mm->m && (out->wm / 2) % mm->m == 0 : out->wm / 2 >= 16))
      out->wm /= 2, out->bm /= 2; /* the FMA path: gemm_mma_fma_divide fits its micro-tile */
    else if (!o.bn && out->bn / out->wn > 1)
      out->bn /= 2;
    else
      break;
    if (!mm->row)
      gemm_mma_fma_divide(t, mm, out->wm, out->wn);
  }
  gemm_mma_set_pack(mm, out->bk);
  out->va = o.va ? o.va : vector_width(pb->in, pb->a_contig, out->bk);
  out->vb = o.vb ? o.vb : vector_width(pb->in, pb->b_contig, pb->b_kcontig ? out->bk : out->bn);

  /* feasibility */
  int waves = (out->bm / (out->wm ? out->wm : 1)) * (out->bn / (out->wn ? out->wn : 1));
  const char *why = NULL;
  if (out->wm % mm->m || out->wn % mm->n)
    why = "the wave tile must be a multiple of the instruction tile";
  else if (out->bm % out->wm || out->bn % out->wn)
    why = "the work-group tile must be a multiple of the wave tile";
  else if (out->bk % mm->k || (out->bk * elem_type_bytes(pb->in)) % 16)
    why = "bk must be a multiple of the instruction's k and of 16 bytes";
  else if (waves * t->wave_size > GEMM_MAX_THREADS)
    why = "too many waves per work-group";
  else if (gemm_lds_bytes(out, mm) > t->lds_bytes)
    why = "the LDS buffers exceed the target's LDS";
  else if (out->va * elem_type_bytes(pb->in) > 16 || out->vb * elem_type_bytes(pb->in) > 16 ||
           (out->va & (out->va - 1)) || (out->vb & (out->vb - 1)))
    why = "va/vb must be powers of two of at most 16 bytes";
  else if (pb->a_contig % out->va || out->bk % out->va)
    why = "va must divide the contiguous run of A and bk";
  else if (pb->b_contig % out->vb || (pb->b_kcontig ? out->bk : out->bn) % out->vb)
    why = "vb must divide the contiguous run of B and its tile";
  else if (pb->k_run && (out->bk % pb->k_run || out->va != pb->a_contig || out->vb != pb->b_contig))
    why = "the convolution's run gather needs bk a multiple of its tap row and va, vb one pixel";
  if (why) {
    snprintf(err, errsize, "--perf-config: bm=%d,bn=%d,bk=%d,wm=%d,wn=%d is infeasible on %s: %s",
             out->bm, out->bn, out->bk, out->wm, out->wn, t->name, why);
    return false;
  }
  return true;
}

void gemm_params_json(const gemm_params *p, const gemm_mma *mm, int waves, char *buf, size_t size) {
  snprintf(buf, size,
           "{\"bm\":%d,\"bn\":%d,\"bk\":%d,\"wm\":%d,\"wn\":%d,\"waves\":%d,\"mma\":\"%dx%dx%d\","
           "\"kpack\":%d,\"va\":%d,\"vb\":%d,\"lds_buffers\":2}",
           p->bm, p->bn, p->bk, p->wm, p->wn, waves, mm->m, mm->n, mm->k, mm->pack, p->va, p->vb);
}
