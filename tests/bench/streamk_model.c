/* streamk_model.c: would stream-K (or a hybrid of data-parallel tiles and split-K) pay for BERT-base's
 * GEMMs by the tuning estimate? (docs/decisions.md#stream-k-does-not-pay, issue 13.)
 * It includes src/codegen/tuning.c to score variants with the estimate's own pieces (tile_cycles,
 * cg_tune_kernel_cycles, operand_bytes, est_cycles via best_split) and prints, per target and
 * shape, the default choice against:
 * - SK: stream-K, one kernel of G work-groups (one round), each summing an even share of the
 *   T x nk K tiles; a segment of a tile is its own loop (rounded to the loop's unroll) and
 *   epilogue; a tile's pieces but the last arriver's write an f32 partial tile that the last
 *   arriver (a per-tile counter, no spin-wait) reads after its loop and adds before the fused
 *   epilogue: traffic A + B + C + the partials twice, the reads serial at the end; the counters
 *   need a zero fill, a launch (`fill` us: 0 or the estimate's SPLITK_LAUNCH_US);
 * - DP+SK: whole tiles data-parallel for the full rounds, the last round's leftover tiles split
 *   S ways into a workspace and combined by the existing combine kernel (a launch, a serial read).
 * Both over the default tile and over every tile of the tuner's range (and 128/256-byte K tiles).
 * Build and run: tests/bench/streamk_model.sh [BUILD]. Not part of make: a modelling record. */
#include "../../src/codegen/tuning.c"

#include <stdio.h>

static int64_t ntiles(const gemm_problem *pb, const gemm_params *P) {
  return pb->batch * ((pb->m + P->bm - 1) / P->bm) * ((pb->n + P->bn - 1) / P->bn);
}

static double whole_cycles(const target_info *t, const gemm_params *P) {
  return 4.0 * (EST_WHOLE + P->wm * P->wn / t->wave_size);
}

/* SK: microseconds with G work-groups; *parts: partial tiles written. The estimate counts a
 * kernel's result write under its loops (max(c, mem)) and the combine kernel's after them; with
 * serial_out the last arrivers' result writes count after the loops too (the f32 result, as the
 * combine's). */
static double sk_us(const target_info *t, const gemm_problem *pb, const gemm_params *P,
                    const gemm_mma *mm, int64_t G, double fill_us, bool serial_out, int64_t *parts) {
  int64_t T = ntiles(pb, P), nk = (pb->k + P->bk - 1) / P->bk, total = T * nk;
  int u = two_tile_loop(t, P, mm) ? 2 : 1;
  int64_t w = (P->bm / P->wm) * (P->bn / P->wn), simds = (int64_t)t->cus * t->simds_per_cu;
  int64_t worst = 0, worst_seg = 1;
  *parts = 0;
  for (int64_t g = 0; g < G; g++) {
    int64_t a = total * g / G, b = total * (g + 1) / G, it = 0, seg = 0;
    while (a < b) {
      int64_t tend = (a / nk + 1) * nk, e = b < tend ? b : tend;
      it += (e - a + u - 1) / u, seg++;
      *parts += a % nk != 0;
      a = e;
    }
    if (it > worst)
      worst = it, worst_seg = seg;
  }
  double tile = tile_cycles(t, pb, P, mm);
  double c = (double)((G * w + simds - 1) / simds) *
             (cg_tune_kernel_cycles(t, (int)w, 0, u * tile, u, (double)worst) + (double)(worst_seg - 1) * whole_cycles(t, P));
  double bpc = (double)t->mem_gbps * 1e3 / t->clock_mhz, out4 = 4.0 * pb->batch * pb->m * pb->n;
  double pbytes = (double)*parts * P->bm * P->bn * 4, after = pbytes + (serial_out ? out4 : 0);
  /* Little's law, as the estimate (est_cycles): G work-groups' loop loads in flight */
  double mem = cg_tune_memory_cycles(t, operand_bytes(pb) + (serial_out ? 0 : out4) + pbytes,
                                     tile_inflight(t, pb, P, mm, G, u));
  return ((c > mem ? c : mem) + 0.05 * c + after / bpc) / t->clock_mhz + fill_us;
}

/* DP+SK: microseconds with the leftover tiles split S ways; 1e9 where it does not apply. */
static double hybrid_us(const target_info *t, const gemm_problem *pb, const gemm_params *P,
                        const gemm_mma *mm, int64_t S, int64_t *parts) {
  int64_t T = ntiles(pb, P), nk = (pb->k + P->bk - 1) / P->bk;
  int u = two_tile_loop(t, P, mm) ? 2 : 1;
  int64_t w = (P->bm / P->wm) * (P->bn / P->wn), slots = (int64_t)t->cus * t->simds_per_cu / w;
  int64_t r = T / slots, left = T - r * slots, per = (nk + S - 1) / S;
  *parts = 0;
  if (left == 0 || S < 2 || left * S > slots)
    return 1e9;
  double tile = tile_cycles(t, pb, P, mm);
  double c = (double)r * cg_tune_kernel_cycles(t, (int)w, 0, u * tile, u, (double)((nk + u - 1) / u)) +
             (per <= u ? cg_tune_kernel_cycles(t, (int)w, whole_cycles(t, P), (double)per * tile, 0, 1)
                       : cg_tune_kernel_cycles(t, (int)w, 0, u * tile, u, (double)((per + u - 1) / u)));
  double bpc = (double)t->mem_gbps * 1e3 / t->clock_mhz, out4 = 4.0 * pb->batch * pb->m * pb->n;
  double ws = (double)left * S * P->bm * P->bn * 4, outl = (double)left * P->bm * P->bn * 4;
  double mem = cg_tune_memory_cycles(t, operand_bytes(pb) + out4 + ws,
                                     tile_inflight(t, pb, P, mm, T + left * S, u));
  *parts = left * S;
  return ((c > mem ? c : mem) + 0.05 * c + (ws + outl) / bpc) / t->clock_mhz + SPLITK_LAUNCH_US;
}

typedef struct best {
  double us;
  int64_t g, parts;
  char tile[64];
} best;

typedef struct search {
  const target_info *t;
  const gemm_problem *pb;
  double fill_us;
  best sk, dp;
} search;

static void keep(best *b, double us, int64_t g, int64_t parts, const gemm_params *P, int64_t T) {
  if (us >= b->us)
    return;
  b->us = us, b->g = g, b->parts = parts;
  snprintf(b->tile, sizeof b->tile, "%dx%dx%d/%dx%d T%lld", P->bm, P->bn, P->bk, P->wm, P->wn, (long long)T);
}

static void try_tile(search *x, const gemm_params *P, const gemm_mma *mm) {
  int64_t T = ntiles(x->pb, P), parts = 0;
  int64_t slots = (int64_t)x->t->cus * x->t->simds_per_cu / ((P->bm / P->wm) * (P->bn / P->wn));
  for (int64_t g = slots / 2 > 1 ? slots / 2 : 1; g <= slots; g++) {
    double us = sk_us(x->t, x->pb, P, mm, g, x->fill_us, false, &parts);
    if (parts)
      keep(&x->sk, us, g, parts, P, T);
  }
  for (int64_t s = 2; s <= 16; s++) {
    double us = hybrid_us(x->t, x->pb, P, mm, s, &parts);
    keep(&x->dp, us, s, parts, P, T);
  }
}

static void each(void *ctx, const gemm_mma *m0, const gemm_params *c0) {
  search *x = ctx;
  if (!m0->row || c0->wm > 64 || c0->wn > 64)
    return;
  for (int l = 1; l <= 4; l *= 2) { /* heur_try_long_k's 128- and 256-byte K tiles too */
    gemm_params c = *c0, P;
    gemm_mma mm;
    c.bk *= l;
    if (gemm_lds_bytes(&c, m0) > x->t->lds_bytes || (l > 1 && c0->bk * elem_type_bytes(x->pb->in) != 64))
      continue;
    char cfg[128], err[256];
    snprintf(cfg, sizeof cfg, "bm=%d,bn=%d,bk=%d,wm=%d,wn=%d,mma=%d", c.bm, c.bn, c.bk, c.wm, c.wn, m0->m);
    if (gemm_params_choose(x->t, x->pb, cfg, &P, &mm, err, sizeof err))
      try_tile(x, &P, &mm);
  }
}

static void gemm_row(const target_info *t, const char *name, int64_t m, int64_t n, int64_t k) {
  gemm_problem pb = {.batch = 1, .m = m, .n = n, .k = k, .in = ET_F16, .a_contig = k, .b_contig = n,
                     .op = "matmul"};
  gemm_params P;
  gemm_mma mm;
  const char *src;
  char err[256];
  if (!cg_tune_gemm(t, &pb, NULL, NULL, &P, &mm, &src, NULL, 0, err, sizeof err) || P.kwaves)
    return;
  double cyc;
  int64_t s = best_split(t, &pb, &P, &mm, &cyc);
  double now = cyc / t->clock_mhz;
  printf("%-7s %-19s default %dx%dx%d/%dx%d T%lld%s%.0lld: %.2f us\n", t->name, name, P.bm, P.bn, P.bk,
         P.wm, P.wn, (long long)ntiles(&pb, &P), s > 1 ? " split " : "", s > 1 ? (long long)s : 0LL, now);
  for (int f = 0; f <= 1; f++) {
    search same = {.t = t, .pb = &pb, .fill_us = f * SPLITK_LAUNCH_US, .sk.us = 1e9, .dp.us = 1e9};
    search any = same;
    try_tile(&same, &P, &mm);
    cg_tune_each_tile(t, &pb, each, &any);
    printf("        fill %.0f us: SK same tile G%lld (%lld partial tiles) %.2f us %+.0f %%; "
           "SK any tile %s G%lld %.2f us %+.0f %%", f * SPLITK_LAUNCH_US, (long long)same.sk.g,
           (long long)same.sk.parts, same.sk.us, 100 * (same.sk.us / now - 1), any.sk.tile,
           (long long)any.sk.g, any.sk.us, 100 * (any.sk.us / now - 1));
    if (f == 1 && same.sk.g) {
      int64_t parts;
      double us = sk_us(t, &pb, &P, &mm, same.sk.g, SPLITK_LAUNCH_US, true, &parts);
      printf("; SK same tile, result written after the loops %.2f us %+.0f %%", us, 100 * (us / now - 1));
    }
    if (f == 0 && any.dp.us < 1e9)
      printf("; DP+SK %s S%lld %.2f us %+.0f %%", any.dp.tile, (long long)any.dp.g, any.dp.us,
             100 * (any.dp.us / now - 1));
    printf("\n");
  }
}

/* The skinny kernel: an in-kernel combine would save the combine's launch (GEMV_LAUNCH_NS), but a
 * counter fill costs one back; printed: today's estimate and the one without that launch (a
 * free fill). The partials' traffic, 2 (s - 1) instead of 2 s tiles, is not separated here. */
static void gemv_row(const target_info *t, int64_t m, int64_t n, int64_t k) {
  gemm_problem pb = {.batch = 1, .m = m, .n = n, .k = k, .in = ET_F16, .a_contig = k, .b_contig = n,
                     .op = "matmul"};
  gemm_params P;
  gemm_mma mm;
  const char *src;
  char err[256];
  bool ib;
  if (!cg_tune_gemm(t, &pb, NULL, NULL, &P, &mm, &src, NULL, 0, err, sizeof err) || !P.kwaves)
    return;
  int s = gemv_split(t, &pb, &P);
  double now = gemv_time(t, &pb, &P, s > 1 ? s : 1, &ib) / 1e3;
  double free_fill = now - (s > 1 ? GEMV_LAUNCH_NS / 1e3 : 0);
  printf("%-7s gemv %lldx%lldx%lld split %d: %.2f us; without the combine's launch %.2f us %+.0f %%\n",
         t->name, (long long)m, (long long)n, (long long)k, s, now, free_fill, 100 * (free_fill / now - 1));
}

int main(void) {
  static const char *targets[] = {"gfx942", "gfx950", "gfx90a", "gfx908"};
  for (size_t i = 0; i < sizeof targets / sizeof targets[0]; i++) {
    const target_info *t = target_lookup(targets[i], strlen(targets[i]));
    if (!t)
      continue;
    gemm_row(t, "proj 512x768x768", 512, 768, 768);
    gemm_row(t, "ffn-down 512x768x3072", 512, 768, 3072);
    gemm_row(t, "ffn-up 512x3072x768", 512, 3072, 768);
    gemv_row(t, 16, 3072, 768);
  }
  return 0;
}
