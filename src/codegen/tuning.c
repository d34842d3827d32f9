/* tuning.c: the one place that decides tiles and split factors, fed by the target table: GEMM
 * tiles (--perf-config, a tuning database entry, or the heuristic: the MFMA and RDNA estimates
 * below, else gemm_tiles.c's defaults), split-K for GEMMs whose tiles cannot fill
 * the GPU, and the tile and split of large reductions. The
 * partitioner (partition/expand.c, splitk.c) asks here and the emitters use the same answers. */
#include "gemm.h"
#include "gemm_conv.h"

#include <math.h>
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* ---------------------------------------------------------------- reductions */

#define RED_BLOCK CG_RED_BLOCK
/* Reductions over fewer input elements never split: one launch is cheaper than two. */
#define RED_SPLIT_MIN_DEFAULT ((int64_t)1 << 20)
/* A chunk gives each work-item at least this many elements, so the extra launch pays off. */
#define RED_MIN_PER_ITEM 4

void cg_reduction_dims(const op *anchor, int64_t *outer, int64_t *r, int64_t *inner) {
  const tensor_type *t = anchor->operands[0]->type;
  int axis = (int)op_attr_int(anchor, "axis", 0);
  if (axis < 0 || axis >= t->rank)
    axis = 0;
  *outer = 1, *r = t->rank ? t->dims[axis] : 1, *inner = 1;
  for (int d = 0; d < t->rank; d++) {
    if (d < axis)
      *outer *= t->dims[d];
    if (d > axis)
      *inner *= t->dims[d];
  }
}

int64_t cg_pow2_at_least(int64_t x) {
  int64_t p = 1;
  while (p < x)
    p *= 2;
  return p;
}

/* Columns (inner) go across lanes for coalescing, up to 64 of them; the rest of the 256
 * work-items split r. A short r hands more lanes to the columns. */
void cg_reduction_tile(int64_t r, int64_t inner, int *tx, int *ty) {
  int64_t x = cg_pow2_at_least(inner), y_need = cg_pow2_at_least(r), x_cap = 64;
  if (y_need * x_cap < RED_BLOCK)
    x_cap = RED_BLOCK / y_need;
  if (x > x_cap)
    x = x_cap;
  *tx = (int)x;
  *ty = RED_BLOCK / (int)x;
}

static int64_t split_min(void) {
  const char *e = getenv("TOSAC_REDUCTION_SPLIT_MIN");
  if (e && *e) {
    char *end;
    long long v = strtoll(e, &end, 10);
    if (*end == 0 && v > 0)
      return v;
  }
  return RED_SPLIT_MIN_DEFAULT;
}

/* The atomic form needs a hardware read-modify-write in the result's own type: integer add /
 * max / min on i32 everywhere, float add on f32 only where it is native. */
static bool atomic_capable(const target_info *t, const op *o) {
  const char *nm = op_table[o->kind].name;
  elem_type et = o->results[0]->type->elem;
  if (o->operands[0]->type->elem != et)
    return false;
  if (strcmp(nm, "tosa.reduce_sum") == 0)
    return et == ET_I32 || (et == ET_F32 && t->f32_atomic_add);
  if (strcmp(nm, "tosa.reduce_max") == 0 || strcmp(nm, "tosa.reduce_min") == 0)
    return et == ET_I32;
  return false;
}

/* A plain kernel launches one work-group per (outer, column tile). When that leaves most compute
 * units idle and there is enough work, split the reduced axis into chunks so that about two
 * work-groups per CU run. argmax (value + index) is never split. */
cg_red_split cg_tune_reduction(const target_info *t, const op *o, int *split) {
  *split = 1;
  if (!o || strcmp(op_table[o->kind].name, "tosa.argmax") == 0)
    return CG_RED_NONE;
  int64_t outer, r, inner;
  cg_reduction_dims(o, &outer, &r, &inner);
  int tx, ty;
  cg_reduction_tile(r, inner, &tx, &ty);
  int64_t groups = outer * ((inner + tx - 1) / tx);
  if (outer * r * inner < split_min() || groups >= t->cus)
    return CG_RED_NONE;
  int64_t s = (2 * t->cus + groups - 1) / groups;
  int64_t most = (r + (int64_t)ty * RED_MIN_PER_ITEM - 1) / ((int64_t)ty * RED_MIN_PER_ITEM);
  if (s > most)
    s = most;
  if (s < 2)
    return CG_RED_NONE;
  *split = (int)s;
  return atomic_capable(t, o) ? CG_RED_ATOMIC : CG_RED_PARTIAL;
}

/* ---------------------------------------------------------------- the MFMA estimate */
/* The heuristic scores candidate tiles and split factors with an analytic stand-in for the
 * static model of tosac-bundle quality / tosac-tune (docs/quality.md, docs/bench.md#kernel-quality),
 * so that the default lands near what the tuner finds without compiling anything:
 * - one K tile of a wave costs max(its MFMA cycles + the reads and loads the MFMAs wait for, 4
 *   cycles per issued instruction), the instructions being the MFMAs, the fragment reads, 4 per
 *   16-byte global load per thread (load, LDS write, address arithmetic; an implicit-GEMM
 *   convolution whose channel run is shorter than the K tile gathers one run per load), a fixed
 *   26 per loop iteration (loop, waits, barrier, offsets; the pipelined loop of gfx90a and later
 *   runs two K tiles per iteration) and 20 more at problem edges (bounds checks); on gfx908 the
 *   accumulator copies LLVM puts into some convolution loops (acc_copies);
 * - a kernel whose K chunk is one loop iteration or less has no loop: the model then scores the
 *   whole kernel, prologue and accumulator stores included;
 * - rounds (waves of the grid over the SIMDs, as the model) x that, never below moving A, B and
 *   the result once at the rate Little's law allows (cg_tune_memory_cycles: the resident
 *   work-groups' loads of one loop iteration in flight, one memory latency at least); split-K
 *   adds the partials' workspace to the GEMM kernel's traffic, the combine kernel's read of it
 *   and a launch.
 * Refitted on tosac-tune --all's scores of every compiled candidate of the ResNet-18, ResNet-50,
 * BERT, odd-size and square sets on gfx908-gfx950 (docs/bench.md#heuristic-against-the-tuner). */

/* Instruction slots of one loop iteration besides the K tiles' work */
#define EST_LOOP_FIXED 26
/* ... and per K tile when M, N or K is no tile multiple */
#define EST_EDGE 20
/* A kernel without a K loop: prologue and epilogue slots, + 1 per accumulator of a lane */
#define EST_WHOLE 100
/* A [K][N] B tile smaller than one 16-byte load per thread: masked, narrower loads whose LDS
 * writes the MFMAs wait for (gfx908 BERT projection: 128x64 tiles 62 %, 64x128 78 %) */
#define EST_B_PARTIAL 8
/* gfx908 (AGPR accumulators), convolutions, wave tiles of two 16x16 MFMA tiles (16x32, 32x16):
 * LLVM's allocation rotates the accumulator chain through 16 v_accvgpr_read/write copies per
 * loop iteration, in work-groups wider than 16 both ways when the A gather has taps (ResNet-18's
 * 3x3 49x512x4608 f32: 32x32 tiles 376 loop cycles and 61 instructions, 16x128 and 64x16 308-320
 * and 52-54; f16 alike), in those 16 wide one way for a 1x1 convolution; matmuls never. */
#define EST_ACC_COPY 48

/* The software-pipelined loop runs two K tiles per iteration (kernel_gemm.c; gfx908's wave tiles
 * that fill its separate AGPR file keep the single-tile loop: gemm_mma_pipelined). */
static bool two_tile_loop(const target_info *t, const gemm_params *P, const gemm_mma *mm) {
  return gemm_mma_pipelined(t, mm, P->wm, P->wn);
}

/* A and B bytes from the problem alone: an implicit-GEMM convolution reads its input image
 * (about M x C: stride 1), not the M x K gather. */
static double operand_bytes(const gemm_problem *pb) {
  double es = elem_type_bytes(pb->in);
  bool conv = pb->op && strstr(pb->op, "conv");
  double a = (double)pb->batch * pb->m * (conv && pb->a_contig < pb->k ? pb->a_contig : pb->k) * es;
  double b = (conv || (pb->op && !strcmp(pb->op, "fully_connected")) ? 1.0 : (double)pb->batch) *
             (double)pb->n * pb->k * es;
  return a + b;
}

/* Staging loads per thread of a rows x bk operand tile: v-element vectors (gemm_params_choose's
 * va/vb: odd contiguous runs such as 127x255x63's K = 255 and N = 63 load one element per slot,
 * which makes small work-groups pay several times the loads of 16-byte vectors), 16 bytes when
 * the tile has none (an unchecked candidate). */
static int staging_loads(int rows, int bk, int v, int es, int threads) {
  int64_t elems = (int64_t)rows * bk, per = v > 0 ? v : 16 / es;
  return (int)((elems / per + threads - 1) / threads);
}

/* Whether the loop copies the accumulators (EST_ACC_COPY; the single-tile loop only: the
 * pipelined one has no copies on these tiles). */
static bool acc_copies(const target_info *t, const gemm_problem *pb, const gemm_params *P,
                       const gemm_mma *mm) {
  if (!t->agpr_file || two_tile_loop(t, P, mm) || mm->m != 16 || mm->n != 16 ||
      P->wm * P->wn != 2 * 16 * 16 || !pb->op || !strstr(pb->op, "conv"))
    return false;
  bool wide = P->bm > 16 && P->bn > 16;
  return pb->a_contig < pb->k ? wide : !wide;
}

/* The shortest K tile of the pipelined loop: llvm-mca-22's load latency is 320 cycles (80
 * four-cycle passes), of which a half's other instructions cover some (gfx90a: 200-232 cycles
 * per K tile of 64-128 MFMA cycles, 312-332 for 256) */
#define EST_LOAD_LATENCY 224
/* ... and where s_barrier drains memory, the rest of the latency and the loads' address work
 * before the wait, which nothing overlaps (gfx908: 376-394 cycles per K tile of 128-256 MFMA
 * cycles, 556 for 512) */
#define EST_DRAIN 160
/* The loads of a K tile have about one K tile of MFMAs to arrive under: the pipelined loop writes
 * the tile after next to LDS at the start of the next half, and on a target without a back-off
 * barrier (gfx908) LLVM waits for every load before each s_barrier. A wave tile with little
 * MFMA work per K tile waits for memory instead (llvm-mca on ResNet-18's 784x128x1152 f32, 16x16
 * waves of 16x16x4 MFMAs: 4 MFMAs (128 cycles) per 64-byte K tile, 52 % on gfx90a, 34 % on
 * gfx908; 8 per 128-byte tile 82 %, 66 %). tosac-tune's issue model applies the same floor
 * (tools/tosac-bundle/quality.c), so that the tuner and this estimate rank on one model. */
double cg_tune_load_wait_cycles(const target_info *t, int waves) {
  return EST_LOAD_LATENCY + (t->barrier_drains_memory && waves > 1 ? EST_DRAIN : 0);
}

/* A kernel scored whole (no K loop) pays CG_TUNE_KERNEL_WAITS load waits besides its issue
 * (llvm-mca: 1676-1912 cycles for one 128-byte K tile of 16x32 waves on gfx90a); each K tile of a
 * loop at least the floor. */
double cg_tune_kernel_cycles(const target_info *t, int waves, double outside, double iter,
                             double tiles, double iters) {
  double wait = cg_tune_load_wait_cycles(t, waves), floor = tiles * wait;
  if (tiles <= 0)
    return outside + iter + CG_TUNE_KERNEL_WAITS * wait;
  return iters * (iter > floor ? iter : floor);
}

/* Little's law at latency lat_ns, at most the memory bandwidth (a cache's reads too: the table
 * has no cache bandwidth, and a cache delivers at least that much). */
static double little_cycles(const target_info *t, double bytes, double inflight, double lat_ns) {
  double lat = lat_ns * t->clock_mhz / 1e3, bpc = (double)t->mem_gbps * 1e3 / t->clock_mhz;
  double w = inflight > 0 && inflight < bytes ? inflight : bytes, rate = w / lat;
  if (rate > bpc)
    rate = bpc;
  return rate > 0 ? bytes / rate : 0;
}

/* Little's law, the one memory bound of every kernel model (the skinny kernel's gemv_time, the
 * tile estimate below, tosac-bundle quality's scores and its ceiling): the memory system delivers
 * at most (bytes in flight) / latency, never more than the bandwidth, and a kernel has no more in
 * flight than the bytes it moves, so it takes one latency (mem_latency_ns) at least. inflight <= 0:
 * unknown, taken as all of them. */
double cg_tune_memory_cycles(const target_info *t, double bytes, double inflight) {
  return little_cycles(t, bytes, inflight, t->mem_latency_ns);
}

/* The row-norm prologue of a skinny GEMM (kernel_rownorm.c cg_rownorm_prologue, docs/gemm.md
 * "Row-norm prologue"), in cycles: per row, the first walk's read of the row from the coherent
 * cache (one hit latency: the kernel before it has just written it; later walks hit the CU's own
 * cache), per statistic one more walk, log2(wave) cross-lane steps and one LDS exchange with its
 * barrier, then the walk storing A to LDS; a walk's iterations (row / threads per work-item) are
 * in flight together. An on-chip round trip (a walk over the CU's cache, an LDS exchange with its
 * barrier) is taken as 128 cycles and a cross-lane step as 16: assumed, not measured. */
#define ONCHIP_CYCLES 128.0
double cg_tune_norm_prologue_cycles(const target_info *t, int64_t rows, int64_t row, int reductions, int threads) {
  double walk_iters = threads > 0 ? ceil((double)row / threads) : 1;
  double steps = log2((double)t->wave_size);
  double per_row = t->cache_latency_ns * t->clock_mhz / 1e3 + reductions * (ONCHIP_CYCLES + 16 * steps + ONCHIP_CYCLES) +
                   ONCHIP_CYCLES + (reductions + 1) * walk_iters * 4;
  return (double)rows * per_row;
}

/* What the prologue adds to the kernel: the wave's first block of B is in flight while it runs
 * (kernel_gemv.c), so only the part beyond one memory latency. */
double cg_tune_norm_prologue_extra_cycles(const target_info *t, int64_t rows, int64_t row, int reductions,
                                          int threads) {
  double extra = cg_tune_norm_prologue_cycles(t, rows, row, reductions, threads) -
                 (double)t->mem_latency_ns * t->clock_mhz / 1e3;
  return extra > 0 ? extra : 0;
}

/* The row-norm prologue of a tile GEMM (kernel_rownorm.c cg_rownorm_tile_prologue): each wave
 * normalises bm / waves of the tile's rows alone (cross-lane sums, no LDS exchange). Rows whose
 * elements fit the lane's registers go nb at a time (cg_rownorm_tile_batch): per batch one read
 * from the coherent cache (every load of the batch in flight together), the lane's element work
 * (load, two statistics, the LDS store: 4 issues each) and per statistic (2: a layer norm)
 * log2(wave) cross-lane steps with the batch's rows interleaved. Otherwise per row: the first
 * read, per statistic a walk and the cross-lane steps, and the walk storing the row to LDS.
 * Work-groups beyond one per CU run theirs after the first, so the kernel pays one prologue per
 * round of work-groups over the CUs. */
double cg_tune_norm_tile_cycles(const target_info *t, const gemm_problem *pb, const gemm_params *P) {
  int waves = (P->bm / (P->wm ? P->wm : 1)) * (P->bn / (P->wn ? P->wn : 1));
  waves = waves < 1 ? 1 : waves;
  int64_t rows = (P->bm + waves - 1) / waves;
  double walk_iters = ceil((double)pb->k / t->wave_size), steps = log2((double)t->wave_size);
  double lat = t->cache_latency_ns * t->clock_mhz / 1e3, cost;
  int nb = cg_rownorm_tile_batch(t->wave_size, pb->k, rows);
  if (nb > 0) {
    double batch = lat + 4 * 4 * nb * walk_iters + 2 * steps * (16 + 4 * (nb - 1)) + ONCHIP_CYCLES;
    cost = (double)((rows + nb - 1) / nb) * batch;
  } else {
    cost = (double)rows * (lat + 2 * (ONCHIP_CYCLES + 16 * steps) + ONCHIP_CYCLES + 3 * walk_iters * 4);
  }
  int64_t groups = pb->batch * ((pb->m + P->bm - 1) / P->bm) * ((pb->n + P->bn - 1) / P->bn);
  return cost * (double)((groups + t->cus - 1) / t->cus);
}

/* Bytes a tile kernel keeps in flight: per resident work-group the staging loads of `ktiles` K
 * tiles (one loop iteration; a kernel without a K loop all of its K chunk), work-groups resident
 * up to 2 waves per SIMD or what the LDS allows (at least one per CU). */
static double tile_inflight(const target_info *t, const gemm_problem *pb, const gemm_params *P,
                            const gemm_mma *mm, int64_t groups, double ktiles) {
  int waves = (P->bm / P->wm) * (P->bn / P->wn), lds = gemm_lds_bytes(P, mm);
  int64_t per_cu = (2 * t->simds_per_cu + waves - 1) / waves;
  if (lds > 0 && t->lds_bytes / lds < per_cu)
    per_cu = t->lds_bytes / lds;
  per_cu = per_cu < 1 ? 1 : per_cu;
  int64_t resident = groups < t->cus * per_cu ? groups : t->cus * per_cu;
  return (double)resident * (P->bm + P->bn) * P->bk * elem_type_bytes(pb->in) * ktiles;
}

/* Cycles of one K tile of one wave in the loop (the issue model's steady state, estimated). */
static double tile_cycles(const target_info *t, const gemm_problem *pb, const gemm_params *P,
                          const gemm_mma *mm) {
  int es = elem_type_bytes(pb->in);
  int rm = P->wm / mm->m, rn = P->wn / mm->n, steps = P->bk / mm->k;
  int pack = 16 / (mm->kl * es), chunks = (mm->kl * es + 15) / 16; /* 16-byte LDS reads */
  pack = pack < 1 ? 1 : pack > steps ? steps : pack;
  int reads = (rm + rn) * ((steps + pack - 1) / pack) * chunks;
  int threads = (P->bm / P->wm) * (P->bn / P->wn) * t->wave_size;
  int64_t tb = (int64_t)threads * 16; /* bytes of one 16-byte load per thread */
  /* convolutions keep the 16-byte count the estimate was fitted with (the stem's 147-element
   * weight rows load single elements: counted, the estimate lost gfx942's and gfx950's stem) */
  bool conv = pb->op && strstr(pb->op, "conv");
  int la = staging_loads(P->bm, P->bk, conv ? 0 : P->va, es, threads);
  int lb = staging_loads(P->bn, P->bk, conv ? 0 : P->vb, es, threads);
  /* a convolution's channel run shorter than the K tile: one load per run (the stem's 3) */
  if (conv && pb->a_contig > 0 && pb->a_contig < P->bk) {
    int64_t n = (int64_t)P->bm * ((P->bk + pb->a_contig - 1) / pb->a_contig);
    if ((n + threads - 1) / threads > la)
      la = (int)((n + threads - 1) / threads);
  }
  double fixed = (double)EST_LOOP_FIXED / (two_tile_loop(t, P, mm) ? 2 : 1);
  double edge = pb->m % P->bm || pb->n % P->bn || pb->k % P->bk ? EST_EDGE : 0;
  double bpart = !pb->b_kcontig && (int64_t)P->bn * P->bk * es < tb ? EST_B_PARTIAL : 0;
  int nmma = rm * rn * steps;
  double copy = acc_copies(t, pb, P, mm) ? EST_ACC_COPY : 0;
  double mma = (double)nmma * mm->row->cycles + 4.0 * (reads + 3 * (la + lb) + bpart) + copy;
  double issue = 4.0 * (fixed + reads + 4 * (la + lb) + nmma + edge + bpart) + copy;
  return mma > issue ? mma : issue;
}

/* Each split runs at least this many K tiles: its prologue and partial store stay small. */
#define SPLITK_MIN_TILES 4
/* The partials may take at most this much workspace. */
#define SPLITK_MAX_WORKSPACE ((int64_t)64 << 20)
/* and at most this many splits (the estimate flattens long before) */
#define SPLITK_MAX_SPLIT 128

/* A one-wave work-group (cg_tune_each_tile: where s_barrier drains memory) issues this much
 * more than estimated: its gathers and loads are one wave's, which the estimate, fitted on 2-8
 * waves, undercounts for taps (gfx908, llvm-mca, f32 16x16x4 MFMAs: ResNet-18's 3x3 784x128x576 on
 * 16x16x32 one-wave tiles 342 cycles per K tile against 320 estimated, 9 % slower than the
 * 32x64x64 tile of 8 waves that the estimate placed 1 % behind; its 1x1 196x256x128 308 against
 * 320, 17 % faster than 16x32x32 of 2 waves at the drain's 372); the memory floor stays as it
 * is (ResNet-50's 1x1 3136x64x64 f16: one-wave tiles at the floor, 0.66 against 1.02 us) */
#define EST_ONE_WAVE 0.08

/* The bytes the GEMM kernel writes split S ways over K: one f32/i32 partial tile per split (the
 * workspace), else the result (counted at 4 bytes). */
static double split_out_bytes(const gemm_problem *pb, int64_t S) {
  return (S > 1 ? (double)S : 1.0) * 4.0 * pb->batch * pb->m * pb->n;
}

/* The split-K forms' fixed cost and the switch between them. The last-work-group reduction
 * needs a zeroed workspace region (its arrival counters) that the client keeps zero; a client
 * that cannot (libtosac-miir: MIOpen hands out uninitialised workspace) turns it off. */
static _Thread_local bool thread_no_fixup;
bool cg_tuning_allow_fixup(bool allow) {
  bool was = !thread_no_fixup;
  thread_no_fixup = !allow;
  return was;
}

/* TOSAC_SPLIT_K_FORM: "combine" or "lastwg" forces that form of every split, else -1 (the
 * estimate decides). */
static int forced_form(void) {
  const char *e = getenv("TOSAC_SPLIT_K_FORM");
  if (!e)
    return -1;
  return strcmp(e, "combine") == 0 ? SPLITK_COMBINE : strcmp(e, "lastwg") == 0 ? SPLITK_LASTWG : -1;
}

double cg_tune_launch_cycles(const target_info *t) { return (double)t->launch_ns * t->clock_mhz / 1e3; }
double cg_tune_launch_us(const target_info *t) { return t->launch_ns / 1e3; }

/* Where the partials of a split are read from: the coherent cache (target table) while the
 * partials written by this dispatch fit in it, else memory. Either form reads them there right
 * after the GEMM's work-groups wrote them; its latency (ns) is returned. */
static double partials_latency_ns(const target_info *t, double outputs, int64_t S) {
  double cache = (double)t->coherent_cache_mib * (1 << 20);
  return 4.0 * (double)S * outputs <= cache ? t->cache_latency_ns : t->mem_latency_ns;
}

/* The combine kernel: a second, dependent launch (cg_tune_launch_cycles), then a grid that fills
 * the machine reads the S partials and writes the result at the bandwidth. The last work-group
 * of each tile reduces in the GEMM kernel: its release fence (its partial reaching the coherent
 * cache) and the counter's atomic, which runs there, are two cache latencies; then only the
 * tiles' last work-groups read the partials (`lanes`: their threads' bytes in flight per
 * partial) and write the result, so Little's law with their bytes in flight bounds it, where
 * the combine kernel's grid fills the machine. */
double cg_tune_reduce_cycles(const target_info *t, cg_splitk_form form, double outputs, int64_t S,
                             double lanes) {
  double bytes = ((double)S + 1) * 4.0 * outputs, lat = partials_latency_ns(t, outputs, S);
  if (form == SPLITK_LASTWG)
    return 2 * (double)t->cache_latency_ns * t->clock_mhz / 1e3 + little_cycles(t, bytes, lanes * (double)S, lat);
  return cg_tune_launch_cycles(t) + little_cycles(t, bytes, 0, lat);
}

static double combine_cycles(const target_info *t, const gemm_problem *pb, int64_t S) {
  return cg_tune_reduce_cycles(t, SPLITK_COMBINE, split_out_bytes(pb, 1) / 4, S, 0);
}

/* The last work-group's bytes in flight per partial: each thread of a tile (the skinny kernel's:
 * a column block, all its waves, kernel_gemm.c emit_gemv) one load of 16 bytes, 4 bytes where
 * result rows are not whole 16-byte vectors (kernel_gemm.c emit_fixup). */
double cg_tune_lastwg_lanes(double tiles, double threads, int64_t n, int bn) {
  return tiles * threads * (n % 4 == 0 && bn % 4 == 0 ? 16.0 : 4.0);
}

static double lastwg_cycles(const target_info *t, const gemm_problem *pb, const gemm_params *P,
                            int64_t S) {
  int64_t tiles = pb->batch * ((pb->m + P->bm - 1) / P->bm) * ((pb->n + P->bn - 1) / P->bn);
  double threads = P->kwaves ? (double)gemv_threads(t, P) : (double)(P->bm / P->wm) * (P->bn / P->wn) * t->wave_size;
  return cg_tune_reduce_cycles(t, SPLITK_LASTWG, split_out_bytes(pb, 1) / 4, S,
                               cg_tune_lastwg_lanes((double)tiles, threads, pb->n, P->bn));
}

cg_splitk_form cg_tune_splitk_form(const target_info *t, const gemm_problem *pb, const gemm_params *P,
                                   int64_t S) {
  int f = forced_form();
  if (S < 2 || thread_no_fixup)
    return SPLITK_COMBINE;
  if (f >= 0)
    return (cg_splitk_form)f;
  return lastwg_cycles(t, pb, P, S) < combine_cycles(t, pb, S) ? SPLITK_LASTWG : SPLITK_COMBINE;
}

/* What a split adds after the partials are written: the cheaper of the combine kernel and the
 * last-work-group reduction (cg_tune_splitk_form); 0 unsplit. */
static double split_combine_cycles(const target_info *t, const gemm_problem *pb, const gemm_params *P,
                                   int64_t S) {
  if (S < 2)
    return 0;
  return cg_tune_splitk_form(t, pb, P, S) == SPLITK_LASTWG ? lastwg_cycles(t, pb, P, S)
                                                           : combine_cycles(t, pb, S);
}

/* Estimated cycles of the GEMM with tile P split S ways over K; *at_floor (if given): whether
 * the memory floor, not the issue time, sets them. */
static double est_split(const target_info *t, const gemm_problem *pb, const gemm_params *P,
                        const gemm_mma *mm, int64_t S, bool *at_floor) {
  int64_t tiles = pb->batch * ((pb->m + P->bm - 1) / P->bm) * ((pb->n + P->bn - 1) / P->bn);
  int64_t nk = (pb->k + P->bk - 1) / P->bk, per = (nk + S - 1) / S;
  int64_t waves = tiles * S * (P->bm / P->wm) * (P->bn / P->wn);
  int64_t simds = (int64_t)t->cus * t->simds_per_cu, rounds = (waves + simds - 1) / simds;
  int unroll = two_tile_loop(t, P, mm) ? 2 : 1, wg = (P->bm / P->wm) * (P->bn / P->wn);
  double tile = tile_cycles(t, pb, P, mm), c;
  double inflight = tile_inflight(t, pb, P, mm, tiles * S, (double)(per <= unroll ? per : unroll));
  if (per <= unroll) /* no K loop: the model scores the whole kernel, prologue and epilogue too */
    c = cg_tune_kernel_cycles(t, wg, 4.0 * (EST_WHOLE + P->wm * P->wn / t->wave_size),
                              (double)per * tile, 0, 1);
  else /* whole iterations (an odd tile count runs a zero tile in front) */
    c = cg_tune_kernel_cycles(t, wg, 0, unroll * tile, unroll, (double)((per + unroll - 1) / unroll));
  c *= (double)rounds * (wg == 1 ? 1 + EST_ONE_WAVE : 1);
  double mem = cg_tune_memory_cycles(t, operand_bytes(pb) + split_out_bytes(pb, S), inflight);
  if (at_floor)
    *at_floor = mem > c;
  /* ties at the floor go to the shorter issue time (a twentieth of it is added) */
  double e = (c > mem ? c : mem) + 0.05 * c;
  return e + split_combine_cycles(t, pb, P, S);
}

static double est_cycles(const target_info *t, const gemm_problem *pb, const gemm_params *P,
                         const gemm_mma *mm, int64_t S) {
  return est_split(t, pb, P, mm, S, NULL);
}

/* Whether tile P's estimate (unsplit) sits at the memory floor. */
static bool est_memory_bound(const target_info *t, const gemm_problem *pb, const gemm_params *P,
                             const gemm_mma *mm) {
  bool floor;
  est_split(t, pb, P, mm, 1, &floor);
  return floor;
}

/* An estimate of tile P's cycles split S ways (the MFMA one or the RDNA one). */
typedef double (*split_est_fn)(const target_info *t, const gemm_problem *pb, const gemm_params *P,
                               const gemm_mma *mm, int64_t S);

/* The split factor (1: none) with the smallest estimate `est` for tile P: whole K tiles per
 * split, at least SPLITK_MIN_TILES each, the workspace bounded. */
static int64_t best_split_by(const target_info *t, const gemm_problem *pb, const gemm_params *P,
                             const gemm_mma *mm, split_est_fn est, double *cycles) {
  int64_t nk = (pb->k + P->bk - 1) / P->bk, best = 1;
  double out4 = split_out_bytes(pb, 1);
  *cycles = est(t, pb, P, mm, 1);
  /* a row-norm prologue computing A's rows (kernel_gemm.c): unsplit, its prologue charged */
  if (pb->a_resident) {
    *cycles += cg_tune_norm_tile_cycles(t, pb, P);
    return 1;
  }
  /* the large-square 256x256 tile already fills the GPU, and its split variant spills on gfx908
   * (2048^3 f16: 20 VGPRs) */
  if (P->bm >= 256 && P->bn >= 256)
    return 1;
  for (int64_t want = 2; want <= nk / SPLITK_MIN_TILES && want <= SPLITK_MAX_SPLIT &&
                        want * out4 <= SPLITK_MAX_WORKSPACE;
       want++) {
    int64_t steps = (nk + want - 1) / want, s = (nk + steps - 1) / steps;
    if (s != want)
      continue;
    double c = est(t, pb, P, mm, s);
    if (c < *cycles)
      *cycles = c, best = s;
  }
  return best;
}

static int round_up_int(int64_t x, int m) { return (int)((x + m - 1) / m * m); }

void cg_tune_each_tile(const target_info *t, const gemm_problem *pb, cg_tile_fn fn, void *ctx) {
  static const int shapes[] = {32, 16};
  int es = elem_type_bytes(pb->in);
  bool fma = !t->has_mfma && !t->has_wmma;
  for (int si = 0; si < 2; si++) {
    gemm_mma m0;
    if (!gemm_mma_select(t, pb->in, fma ? 0 : shapes[si], fma || gemm_problem_fma_only(pb), pb->m, pb->n, &m0))
      continue;
    m0.acc64 = pb->acc64;
    if (si == 1 && (fma || !m0.row || m0.m != 16))
      continue;
    for (int rm = 1; rm <= 4; rm *= 2)
      for (int rn = 1; rn <= 4; rn *= 2)
        for (int gm = 1; gm <= 4; gm *= 2)
          for (int gn = 1; gn <= 4; gn *= 2)
            for (int kb = 32; kb <= 64; kb *= 2) {
              gemm_params c = {.wm = m0.m * rm, .wn = m0.n * rn, .bk = kb / es};
              c.bm = c.wm * gm, c.bn = c.wn * gn;
              /* at most 128 accumulators per lane (registers), 2 to 8 waves; one wave where
               * s_barrier drains memory: a one-wave work-group has no s_barrier (LLVM makes it
               * a wave barrier), so its loads stay in flight across the K steps */
              if (c.wm > 128 || c.wn > 128 || c.wm * c.wn > 128 * t->wave_size || gm * gn > 8 ||
                  gm * gn < (t->barrier_drains_memory ? 1 : 2) || c.bk < m0.k || c.bk % m0.k)
                continue;
              /* no tile beyond the problem (rounded to the instruction) */
              if (c.bm > round_up_int(pb->m < 4096 ? pb->m : 4096, c.wm) ||
                  c.bn > round_up_int(pb->n < 4096 ? pb->n : 4096, c.wn) ||
                  c.bk > round_up_int(pb->k < 4096 ? pb->k : 4096, m0.k))
                continue;
              fn(ctx, &m0, &c);
            }
  }
}

/* Problems below this many multiply-adds keep gemm_tiles.c's defaults: the estimate would pick
 * many tiny work-groups for them, which costs the emulator and gains microseconds. 127x255x63
 * (2M) needs it: gemm_tiles.c's 128x64 tile reached 1.3 % of the roofline on gfx90a, the
 * estimate's 32x64 10.1 %. */
#define HEUR_MIN_MACS ((int64_t)1 << 20)

/* The best MFMA candidate so far (estimated cycles, waves of the grid, its perf-config). */
typedef struct heur_best {
  const target_info *t;
  const gemm_problem *pb;
  double cycles;
  int64_t waves;
  bool found;
  double share; /* RDNA: the candidate's matrix (FMA) share of its main loop */
  double slack; /* MFMA: the fraction the candidate must win by (EST_UNFITTED) */
  char cfg[128];
} heur_best;

/* Score tile c (instruction m0, gm x gn waves) and keep it if it beats hb: faster, or as fast
 * with fewer waves (less split, fewer work-groups to emulate). */
static void heur_try(void *ctx, const gemm_mma *m0, const gemm_params *c) {
  heur_best *hb = ctx;
  const target_info *t = hb->t;
  const gemm_problem *pb = hb->pb;
  int gm = c->bm / c->wm, gn = c->bn / c->wn;
  /* of cg_tune_each_tile's range, wave tiles up to 64x64: the estimate misses the longer
   * epilogue and register pressure of 128-wide ones, which lost on ResNet-50's 1x1 convolutions
   * and BERT's FFN */
  if (!m0->row || c->wm > 64 || c->wn > 64 || gemm_lds_bytes(c, m0) > t->lds_bytes)
    return;
  char buf[128], err[256];
  gemm_params P;
  gemm_mma mm;
  snprintf(buf, sizeof buf, "bm=%d,bn=%d,bk=%d,wm=%d,wn=%d,mma=%d", c->bm, c->bn, c->bk, c->wm,
           c->wn, m0->m);
  if (!gemm_params_choose(t, pb, buf, &P, &mm, err, sizeof err))
    return;
  double cyc;
  int64_t s = best_split_by(t, pb, &P, m0, est_cycles, &cyc); /* P: with its vector widths */
  cyc *= 1 + hb->slack;
  int64_t waves = pb->batch * ((pb->m + c->bm - 1) / c->bm) * ((pb->n + c->bn - 1) / c->bn) * s *
                  gm * gn;
  if (!(cyc < hb->cycles || (cyc == hb->cycles && waves < hb->waves)))
    return;
  if (cyc < hb->cycles)
    hb->cycles = cyc;
  hb->waves = waves, hb->found = true;
  snprintf(hb->cfg, sizeof hb->cfg, "%s", buf);
}

/* Work-groups a CU holds at 2 waves per SIMD (*want), and those the grid gives it at most: a grid
 * of fewer work-groups than CUs (BERT-base's 512x768 outputs: 96-192 tiles for 256-304 CUs) runs
 * one per CU whatever the LDS allows, so the LDS of a longer K tile costs it no waves. */
static int64_t groups_needed(const target_info *t, const gemm_problem *pb, const gemm_params *c,
                             int64_t *want) {
  int64_t groups = pb->batch * ((pb->m + c->bm - 1) / c->bm) * ((pb->n + c->bn - 1) / c->bn);
  int waves = (c->bm / c->wm) * (c->bn / c->wn);
  int64_t per_cu = (groups + t->cus - 1) / t->cus;
  *want = (2 * t->simds_per_cu + waves - 1) / waves;
  return per_cu < *want ? per_cu : *want;
}

/* A candidate beyond what the estimate was fitted and checked on must win by this much: a
 * 256-byte K tile whose MFMAs stay below twice the load floor (the estimate's floor is a
 * constant, llvm-mca's loop grows with the loads: ResNet's 196x256x2304 f16 on gfx90a,
 * 32x64x128/16x16 estimated 7 % faster than 64x64x64/16x32 split 3 ways, 3.3 against 2.7 us by
 * the quality model, which counts no second launch; where the MFMAs cover twice the floor, as
 * f32's 16x16 waves at 256 bytes, the fitted MFMA term decides: 196x256x2304 f32 on gfx942
 * estimated 1 % faster, 2.7 -> 2.4 us), or an LDS that keeps it below 2 waves per SIMD, hiding
 * no load latency behind another wave, which neither the estimate nor llvm-mca's one-wave loop
 * sees (BERT-base's 512x3072x768 f16 on gfx942: 32x64x128/16x32 at 1 wave per SIMD estimated 2 %
 * faster than 64x128x64/32x32 split 3 ways; 4.7 against 3.6 us). */
#define EST_UNFITTED 0.10

/* A wave tile whose MFMAs of a K tile take less than twice the load floor
 * (cg_tune_load_wait_cycles) also tries a K tile twice as long, beyond tosac-tune's range: twice
 * the MFMAs per barrier and per load round trip (ResNet-18's 16x32 waves of 16x16x4 f32 MFMAs: 77 -> 89 % by llvm-mca on
 * gfx90a, 65 -> 89 % on gfx908), where K holds four such tiles (a K loop of two iterations: a
 * kernel without a loop has no load floor) and the LDS of the double buffer still lets a CU hold
 * the work-groups it needs (groups_needed). 128 bytes, then 256 (BERT-base's 512x768x768 f16 on
 * gfx942, 16x32 waves: 266 cycles per 128-byte K tile, 410 per 256-byte one, 44 -> 57 % of the
 * roofline) where that tile's MFMAs cover the floor or the grid has no more work-groups than CUs:
 * the estimate counts a K tile below the floor as the floor whatever its loads, but llvm-mca's
 * loop grows with them (16x16 waves of f16 MFMAs at 256 bytes: 1056 cycles per two K tiles on
 * gfx942 against 528 at 128), which pays only where the grid cannot fill the CUs anyway
 * (gfx950's 512x768x768, 64x64x128/16x32: 32 -> 63 %; its 512x3072x768, 384 work-groups: 89 ->
 * 70 %). A convolution whose K tile lay inside one tap keeps it there (a longer one would gather
 * per element: ResNet-50's 3136x64x576 f16 on gfx908, 394 -> 1032 cycles per K tile), and one
 * gathering channel runs shorter than the longer K tile gets none: its gather grows with the K
 * tile at more than the 4 slots per load tile_cycles counts (ResNet-18's stem, 3 channels,
 * gfx942: 32x64x32/16x16 estimated 2.66 us, 3.14 by tosac-tune's model, 27 % by llvm-mca;
 * 64x64x16/32x32 2.82, 2.88 and 34 %). */
static void heur_try_long_k(void *ctx, const gemm_mma *m0, const gemm_params *c) {
  heur_best *hb = ctx;
  const gemm_problem *pb = hb->pb;
  heur_try(ctx, m0, c);
  if (!m0->row || c->bk * elem_type_bytes(pb->in) != 64)
    return;
  bool conv = pb->op && strstr(pb->op, "conv") && pb->a_contig > 0;
  double floor = cg_tune_load_wait_cycles(hb->t, (c->bm / c->wm) * (c->bn / c->wn)), per = (double)(c->wm / m0->m) * (c->wn / m0->n) *
                                               m0->row->cycles / m0->k; /* per k element */
  gemm_params L = *c;
  for (int x = 2; x <= 4; x *= 2) {
    L.bk = c->bk * x;
    int lds = gemm_lds_bytes(&L, m0);
    int64_t want, need = groups_needed(hb->t, pb, &L, &want);
    bool few = pb->batch * ((pb->m + L.bm - 1) / L.bm) * ((pb->n + L.bn - 1) / L.bn) <= hb->t->cus;
    if (per * L.bk / 2 >= 2 * floor || (x > 2 && per * L.bk < floor && !few) || pb->k < 4 * L.bk ||
        (conv && (pb->a_contig < L.bk || (pb->a_contig % c->bk == 0 && pb->a_contig % L.bk))) ||
        lds > hb->t->lds_bytes || hb->t->lds_bytes / lds < need)
      return;
    bool near = x > 2 && per * L.bk < 2 * floor;
    hb->slack = near || hb->t->lds_bytes / lds < want ? EST_UNFITTED : 0;
    heur_try(ctx, m0, &L);
    hb->slack = 0;
  }
}

/* ---------------------------------------------------------------- the RDNA estimate */
/* WMMA (gfx1100, gfx1200) and the FMA path (gfx1030; f32 on RDNA) are scored like the MFMA
 * candidates above, with the quality model's RDNA issue model instead: one instruction per cycle
 * and a WMMA its table cycles. One main-loop iteration of a wave issues the WMMAs (or FMA/dot
 * instructions), its LDS fragment reads, per 16-byte staging load per thread a load, an address
 * add and its LDS writes (A or k-contiguous B: one; an n-contiguous B is transposed: a 4-byte
 * write per two elements and a v_perm each with k pairs, else a write per element), ~24 fixed
 * (loop, buffer select, barrier) and a convolution's gather (20 + 11 per A load). Fitted to
 * tosac-bundle quality's cycles of BERT and ResNet-18 tiles on gfx1030, gfx1100 and gfx1200
 * (within ~3 %). */
static double rdna_iter(const target_info *t, const gemm_problem *pb, const gemm_params *P,
                        const gemm_mma *mm, double *share) {
  int es = elem_type_bytes(pb->in), les = gemm_lds_elem_bytes(mm);
  int rm = P->wm / mm->m, rn = P->wn / mm->n, steps = P->bk / mm->k;
  int threads = (P->bm / P->wm) * (P->bn / P->wn) * t->wave_size;
  bool conv = pb->op && strstr(pb->op, "conv");
  int la = staging_loads(P->bm, P->bk, P->va, es, threads);
  int lb = staging_loads(P->bn, P->bk, P->vb, es, threads);
  int vb = P->vb > 0 ? P->vb : 16 / es; /* LDS writes per B load */
  /* an n-contiguous B of single elements (odd N): a write and a shift per load (127x255x63 on
   * gfx1200: 32x64 tiles, 8 B loads per thread, 4 loop instructions more than 64x32's 4) */
  int bw = pb->b_kcontig ? 1 : vb < 2 ? 2
           : (es <= 2 && lb % 2 == 0 && !mm->widen) ? vb * 3 / 4 : vb * les / es;
  double work, reads;
  if (mm->row) {
    work = (double)rm * rn * steps * mm->row->cycles;
    reads = (double)(rm + rn) * steps * ((mm->kl * es + 15) / 16);
  } else {
    int dk = mm->dot ? mm->dot->k : 1;
    work = (double)rm * rn * mm->tm * mm->tn * steps * (mm->k / dk);
    reads = (double)(rm * mm->tm + rn * mm->tn) * steps;
    /* VOPD (gfx11, gfx12): fma_step orders f32 FMAs for v_dual_fmac_f32 (gemm_mma.pair), one
     * issue slot per pair: 83-100 % of the FMAs paired in ResNet-18's loops on gfx1100/gfx1200
     * whatever the micro-tile (k-outer order: 19-90 %, the more the more accumulators) */
    if (mm->pair)
      work *= 1 - 0.93 / 2;
  }
  double other = 24 + 3.0 * la + (2.0 + bw) * lb + reads + (conv ? 20 + 11.0 * la : 0);
  other += pb->m % P->bm || pb->n % P->bn || pb->k % P->bk ? 10 : 0;
  *share = work / (work + other);
  return work + other;
}

/* Estimated cycles of tile P split S ways over K (1: none): rounds of the grid's waves (x S) over
 * the SIMDs x the split's iterations x rdna_iter, plus a short epilogue per round, never below
 * moving the buffers (Little's law; a split's partials included), plus a split's combine as
 * est_split prices it. */
static double rdna_est(const target_info *t, const gemm_problem *pb, const gemm_params *P,
                       const gemm_mma *mm, int64_t S, double *share) {
  int64_t tiles = pb->batch * ((pb->m + P->bm - 1) / P->bm) * ((pb->n + P->bn - 1) / P->bn);
  int64_t nk = (pb->k + P->bk - 1) / P->bk, per = (nk + S - 1) / S;
  int64_t waves = tiles * S * (P->bm / P->wm) * (P->bn / P->wn);
  int64_t simds = (int64_t)t->cus * t->simds_per_cu, rounds = (waves + simds - 1) / simds;
  double c = (double)rounds * (per * rdna_iter(t, pb, P, mm, share) + 40 +
                               2.0 * P->wm * P->wn / t->wave_size);
  /* Little's law as every kernel's score: the resident work-groups' loads of one K tile in
   * flight (docs/decisions.md#one-latency-aware-bound-everywhere): small problems go to tiles of more
   * work-groups */
  double mem = cg_tune_memory_cycles(t, operand_bytes(pb) + split_out_bytes(pb, S),
                                     tile_inflight(t, pb, P, mm, tiles * S, 1));
  return (c > mem ? c : mem) + split_combine_cycles(t, pb, P, S);
}

static double rdna_cycles(const target_info *t, const gemm_problem *pb, const gemm_params *P,
                          const gemm_mma *mm, int64_t S) {
  double share;
  return rdna_est(t, pb, P, mm, S, &share);
}

/* The split (1: none) with the smallest estimate for tile P on this target's model. */
static int64_t tile_best_split(const target_info *t, const gemm_problem *pb, const gemm_params *P,
                               const gemm_mma *mm, double *cycles) {
  return best_split_by(t, pb, P, mm, t->has_mfma ? est_cycles : rdna_cycles, cycles);
}

double cg_tune_estimate_us(const target_info *t, const gemm_problem *pb, const gemm_params *P,
                           const gemm_mma *mm, int split) {
  int64_t S = split < 1 ? 1 : split;
  if (!t->has_mfma)
    return rdna_cycles(t, pb, P, mm, S) / t->clock_mhz;
  return mm->row ? est_cycles(t, pb, P, mm, S) / t->clock_mhz : 0;
}

/* Score candidate c as a perf-config (the FMA path's micro-tile is what gemm_params_choose makes
 * of the wave tile) and keep it if it beats hb: faster, or as fast (within 1 %) with a higher
 * share, or as both with fewer waves. */
static void rdna_try(void *ctx, const gemm_mma *m0, const gemm_params *c) {
  heur_best *hb = ctx;
  /* wave tiles up to 64x64: 128-wide ones hold 128+ accumulators per lane; the FMA path at most
   * 64 (with 128 its fragments spilled: 4096^3 bf16 46 VGPRs, i8 5 on gfx1030) */
  if (c->wm > 64 || c->wn > 64 || gemm_lds_bytes(c, m0) > hb->t->lds_bytes ||
      (!m0->row && c->wm * c->wn > 64 * hb->t->wave_size))
    return;
  /* the FMA path keeps two K tiles at least: a single one (no loop) spilled (12x512x512x64 f16
   * at bk = K = 64 on gfx1030: 315 VGPRs) */
  if (!m0->row && (hb->pb->k + c->bk - 1) / c->bk < 2 && c->bk > m0->k)
    return;
  char buf[128], err[256];
  gemm_params P;
  gemm_mma mm;
  int n = snprintf(buf, sizeof buf, "bm=%d,bn=%d,bk=%d,wm=%d,wn=%d", c->bm, c->bn, c->bk, c->wm, c->wn);
  if (m0->row)
    snprintf(buf + n, sizeof buf - (size_t)n, ",mma=%d", m0->m);
  if (!gemm_params_choose(hb->t, hb->pb, buf, &P, &mm, err, sizeof err))
    return;
  /* the FMA path unrolls its K tile: at most 512 FMA/dot instructions per iteration (1024 cost
   * ResNet-18's compile 12 % more time for 2 points of FMA-slot share; with split-K 19 % more
   * compile CPU on gfx1100 for 2.5 % of its estimated time, docs/decisions.md#split-k-on-rdna) */
  if (!mm.row && (P.wm / mm.m) * (P.wn / mm.n) * mm.tm * mm.tn * (P.bk / mm.k) *
                     (mm.k / (mm.dot ? mm.dot->k : 1)) > 512)
    return;
  /* at least 2 waves per SIMD by LDS (a WGP's two CUs' LDS, 4 SIMDs): the issue model sees no
   * latency, one wave per SIMD would hide none (gfx1030 bf16 widened 128x32x32: 51200 bytes) */
  if (2 * hb->t->lds_bytes / gemm_lds_bytes(&P, &mm) * (P.bm / P.wm) * (P.bn / P.wn) < 8)
    return;
  /* at its best split: the waves a small grid lacks, at the partials' and combine's price */
  double share, cyc;
  int64_t s = tile_best_split(hb->t, hb->pb, &P, &mm, &cyc);
  rdna_iter(hb->t, hb->pb, &P, &mm, &share);
  int64_t waves = hb->pb->batch * ((hb->pb->m + P.bm - 1) / P.bm) * ((hb->pb->n + P.bn - 1) / P.bn) *
                  s * (P.bm / P.wm) * (P.bn / P.wn);
  /* within 1 % (bandwidth-bound tiles tie at the floor): the higher share of the loop (fewer
   * instructions beside each WMMA or FMA), then fewer waves */
  bool tie = cyc < hb->cycles * 1.01 && cyc > hb->cycles * 0.99;
  if (!(tie ? share > hb->share + 0.005 || (share > hb->share - 0.005 && waves < hb->waves)
            : cyc < hb->cycles))
    return;
  hb->cycles = cyc, hb->waves = waves, hb->share = share, hb->found = true;
  snprintf(hb->cfg, sizeof hb->cfg, "%s", buf);
}

/* RDNA candidates: tosac-tune's range for WMMA; for the FMA path, wave tiles of 1 or 2 of the
 * fitted micro-tile grids per side (8x8, 8x4, 4x4 micro-tiles: gemm_mma_fma_fit), 2 to 8 waves
 * and K tiles of 32, 64 and 128 bytes (longer K tiles halve the loop's fixed cost per FMA). */
static bool rdna_heuristic(const target_info *t, const gemm_problem *pb, const gemm_params *P0,
                           const gemm_mma *mm0, char *cfg, size_t size) {
  heur_best hb = {.t = t, .pb = pb, .waves = INT64_MAX};
  tile_best_split(t, pb, P0, mm0, &hb.cycles);
  rdna_iter(t, pb, P0, mm0, &hb.share);
  if (mm0->row) {
    cg_tune_each_tile(t, pb, rdna_try, &hb);
  } else {
    int es = elem_type_bytes(pb->in);
    for (int rm = 1; rm <= 2; rm++)
      for (int rn = 1; rn <= 2; rn++)
        for (int gm = 1; gm <= 4; gm *= 2)
          for (int gn = 1; gn <= 4; gn *= 2)
            for (int kb = 32; kb <= 128; kb *= 2) {
              gemm_params c = {.wm = mm0->m * rm, .wn = mm0->n * rn, .bk = kb / es};
              c.bm = c.wm * gm, c.bn = c.wn * gn;
              if (gm * gn < 2 || gm * gn > 8 || c.bk < mm0->k || c.bm > pb->m + c.wm - 1 ||
                  c.bn > pb->n + c.wn - 1 || c.bk > pb->k + mm0->k - 1)
                continue;
              rdna_try(&hb, mm0, &c);
            }
  }
  if (hb.found)
    snprintf(cfg, size, "%s", hb.cfg);
  return hb.found;
}

static bool heuristic(const target_info *t, const gemm_problem *pb, char *cfg, size_t size) {
  gemm_params P;
  gemm_mma mm;
  char err[256];
  if (!t->has_mfma && !pb->zero_points && pb->batch * pb->m * pb->n * pb->k >= HEUR_MIN_MACS &&
      gemm_params_choose(t, pb, NULL, &P, &mm, err, sizeof err))
    return rdna_heuristic(t, pb, &P, &mm, cfg, size);
  if (!t->has_mfma || pb->zero_points ||
      pb->batch * pb->m * pb->n * pb->k < HEUR_MIN_MACS ||
      !gemm_params_choose(t, pb, NULL, &P, &mm, err, sizeof err) || !mm.row)
    return false;
  /* the large-square MFMA default (256x256 tiles of 128x64 waves), kept for llvm-mca's matrix
   * share where the matrix units bound it; at the memory floor the share does not decide, the
   * estimate does (BERT's batched 12x512x64x512: 48 work-groups, too few loads in flight) */
  if (P.bm >= 256 && !est_memory_bound(t, pb, &P, &mm)) {
    /* where its waves keep the single-tile loop (gfx908: they fill the AGPR file), against
     * 128x128 tiles of 64x64 waves at its K tile, which run the pipelined loop: wave tiles as
     * large (llvm-mca's matrix share needs them: 32x64 waves reached 84-86 % on gfx942) in twice
     * the waves, which fill whole rounds better (gfx908's 4096^3: 4.3 rounds -> 5 of 256x256
     * tiles, 8.5 -> 9 of half the work) */
    gemm_params Q;
    gemm_mma qm;
    char q[128];
    snprintf(q, sizeof q, "bm=128,bn=128,bk=%d,wm=64,wn=64,mma=%d", P.bk, mm.m);
    if (two_tile_loop(t, &P, &mm) || !gemm_params_choose(t, pb, q, &Q, &qm, err, sizeof err) ||
        est_cycles(t, pb, &Q, &qm, 1) >= est_cycles(t, pb, &P, &mm, 1))
      return false;
    snprintf(cfg, size, "%s", q);
    return true;
  }
  /* the default is the first candidate; every 32- and 16-wide MFMA tile of the tuner's range */
  heur_best hb = {.t = t, .pb = pb, .cycles = est_cycles(t, pb, &P, &mm, 1), .waves = INT64_MAX};
  cg_tune_each_tile(t, pb, heur_try_long_k, &hb);
  if (hb.found)
    snprintf(cfg, size, "%s", hb.cfg);
  return hb.found;
}

/* The heuristic's answers, remembered per target and problem: the partitioner asks for every
 * GEMM's tile (its split-K choice) and the emitter asks again for the same problems, every
 * compile of the process (the library's clients, tosac-tune) asks for the layers models share.
 * A pure function of its arguments (no environment, no tuning database), so a table shared by
 * every thread under a lock; full, it stops remembering. */
#define HEUR_MEMO_SLOTS 1024
typedef struct heur_memo {
  const target_info *t; /* NULL: empty */
  gemm_problem pb;      /* pb.op points at op below */
  char op[32];
  bool found;
  char cfg[128];
} heur_memo;
static heur_memo heur_table[HEUR_MEMO_SLOTS];
/* heur_same compares every field: a field added to gemm_problem must be added there. */
_Static_assert(sizeof(gemm_problem) == 88, "gemm_problem changed: update heur_slot and heur_same");
static pthread_mutex_t heur_lock = PTHREAD_MUTEX_INITIALIZER;

static uint64_t heur_slot(const target_info *t, const gemm_problem *pb) {
  uint64_t h = (uint64_t)(uintptr_t)t;
  int64_t f[] = {pb->batch, pb->m, pb->n, pb->k, pb->in, pb->zero_points, pb->a_contig,
                 pb->b_contig, pb->b_kcontig, pb->k_run, pb->nb, pb->a_resident};
  for (size_t i = 0; i < sizeof f / sizeof *f; i++)
    h = (h ^ (uint64_t)f[i]) * 0x100000001b3ull;
  for (const char *c = pb->op ? pb->op : ""; *c; c++)
    h = (h ^ (uint8_t)*c) * 0x100000001b3ull;
  return h % HEUR_MEMO_SLOTS;
}

static bool heur_same(const heur_memo *e, const target_info *t, const gemm_problem *pb) {
  const gemm_problem *q = &e->pb;
  return e->t == t && q->batch == pb->batch && q->m == pb->m && q->n == pb->n && q->k == pb->k &&
         q->in == pb->in && q->zero_points == pb->zero_points && q->a_contig == pb->a_contig &&
         q->b_contig == pb->b_contig && q->b_kcontig == pb->b_kcontig && q->k_run == pb->k_run &&
         q->nb == pb->nb && q->a_resident == pb->a_resident && !strcmp(e->op, pb->op ? pb->op : "");
}

bool cg_tune_heuristic(const target_info *t, const gemm_problem *pb, char *cfg, size_t size) {
  uint64_t at = heur_slot(t, pb);
  pthread_mutex_lock(&heur_lock);
  for (uint64_t i = at, n = 0; n < HEUR_MEMO_SLOTS && heur_table[i].t; i = (i + 1) % HEUR_MEMO_SLOTS, n++)
    if (heur_same(&heur_table[i], t, pb)) {
      bool found = heur_table[i].found;
      if (found)
        snprintf(cfg, size, "%s", heur_table[i].cfg);
      pthread_mutex_unlock(&heur_lock);
      return found;
    }
  pthread_mutex_unlock(&heur_lock);
  heur_memo e = {.t = t, .pb = *pb};
  e.found = heuristic(t, pb, e.cfg, sizeof e.cfg);
  if (e.found)
    snprintf(cfg, size, "%s", e.cfg);
  const char *op = pb->op ? pb->op : "";
  if (strlen(op) >= sizeof e.op)
    return e.found;
  snprintf(e.op, sizeof e.op, "%s", op);
  e.pb.op = NULL;
  pthread_mutex_lock(&heur_lock);
  for (uint64_t i = at, n = 0; n < HEUR_MEMO_SLOTS; i = (i + 1) % HEUR_MEMO_SLOTS, n++) {
    if (heur_table[i].t && !heur_same(&heur_table[i], t, pb))
      continue;
    if (!heur_table[i].t)
      heur_table[i] = e;
    break;
  }
  pthread_mutex_unlock(&heur_lock);
  return e.found;
}

/* ---------------------------------------------------------------- split-K */

/* Where no estimate applies (GEMMs under HEUR_MIN_MACS, RDNA GEMMs with zero points): split
 * only when the output tiles would occupy at most a quarter of the compute units. */
#define SPLITK_TILE_SHARE 4
/* Each split runs at least this many K tiles, so its prologue and partial store stay small
 * against the loop. */
#define SPLITK_MIN_STEPS 8
/* Only a long K is split: below this many K elements, one kernel finishes soon enough that the
 * second launch and the partials' round trip through memory cost more than the idle CUs. This
 * keeps the usual model GEMMs (BERT K <= 3072, ResNet K <= 4608) single kernels there. */
#define SPLITK_MIN_K 8192

/* TOSAC_SPLIT_K: unset or empty = the cost model, 0 (or 1) = never split, S = S splits for
 * every GEMM that has a GEMM kernel (capped at its number of K tiles). -1 when unset. */
/* An on/off environment override (TOSAC_IM2COL, TOSAC_CONV_RUNS): "0" or "1", else -1 (the
 * estimate decides). */
static int env_switch(const char *name) {
  const char *e = getenv(name);
  return e && (e[0] == '0' || e[0] == '1') && !e[1] ? e[0] - '0' : -1;
}

static int forced_split(void) {
  const char *e = getenv("TOSAC_SPLIT_K");
  if (!e || !*e)
    return -1;
  char *end;
  long v = strtol(e, &end, 10);
  return *end == 0 && v >= 0 && v <= 65536 ? (int)v : -1;
}

/* ---------------------------------------------------------------- skinny GEMMs (kernel_gemv.c) */

/* Lane groups of a wave on different k rows: the sliced form's kl (kernel_gemv.c), else 1. */
static int gemv_kl(const gemm_problem *pb, const gemm_params *P) {
  return !pb->b_kcontig && P->kl > 1 ? P->kl : 1;
}

/* Bytes one lane loads per K block before it uses any of them: B's (16-byte loads) and, in the
 * sliced form, its rows of A (vector loads there: a wave's lanes are on different k). */
static int64_t gemv_lane_bytes(const gemm_problem *pb, const gemm_params *P) {
  int kl = gemv_kl(pb, P), es = elem_type_bytes(pb->in);
  int64_t b = (int64_t)(pb->b_kcontig ? P->bk : P->bk / kl * P->vb) * es;
  return kl > 1 ? b + pb->m * (P->bk / kl) * es : b;
}

/* What B's reads move beyond its bytes: `rows` rows of row_bytes, each read in pieces of piece
 * bytes (a work-group's columns of it), move whole cache lines (the target table's line_bytes),
 * so a piece not starting or ending on a line moves the rest of its first and last lines. Rows
 * start at row x row_bytes from a line-aligned base, so the pattern repeats every line /
 * gcd(row_bytes, line) rows. One figure for the tuning layer and tosac-bundle quality. */
double cg_tune_line_extra_bytes(const target_info *t, int64_t rows, int64_t row_bytes,
                                int64_t piece) {
  int64_t L = t->line_bytes > 0 ? t->line_bytes : 1, g = L, r = row_bytes % L;
  if (rows < 1 || row_bytes < 1 || piece < 1 || L == 1)
    return 0;
  for (int64_t a = r; a;) { /* gcd(row_bytes mod L, L) */
    int64_t x = g % a;
    g = a, a = x;
  }
  int64_t period = L / g, n = rows < period ? rows : period;
  double extra = 0;
  for (int64_t i = 0; i < n; i++)
    for (int64_t p = 0; p < row_bytes; p += piece) {
      int64_t a = i * row_bytes + p, e = a + (piece < row_bytes - p ? piece : row_bytes - p);
      extra += (double)((e + L - 1) / L - a / L) * L - (double)(e - a);
    }
  return extra * (double)rows / (double)n;
}

double cg_tune_line_fetch_extra_bytes(const target_info *t, int64_t rows, int64_t row_bytes,
                                      int64_t piece) {
  int64_t L = t->line_bytes, parts = L > 0 && piece > 0 ? L / piece : 1;
  if (parts > t->l2_parts)
    parts = t->l2_parts;
  return parts > 1 ? (double)rows * row_bytes * (double)(parts - 1) : 0;
}

/* The skinny kernel's B as it reads it: batch x K rows of N in pieces of bn columns, or for an
 * [N][K] B batch x N rows read whole; what it loads into the CUs in lines (fetch: 0) or fetches
 * from memory (fetch: 1) beyond its bytes. */
static double gemv_line_extra(const target_info *t, const gemm_problem *pb, const gemm_params *P,
                              int fetch) {
  int es = elem_type_bytes(pb->in);
  int64_t rows = pb->batch * (pb->b_kcontig ? pb->n : pb->k);
  int64_t row = (pb->b_kcontig ? pb->k : pb->n) * es, piece = pb->b_kcontig ? row : (int64_t)P->bn * es;
  return fetch ? cg_tune_line_fetch_extra_bytes(t, rows, row, piece)
               : cg_tune_line_extra_bytes(t, rows, row, piece);
}

/* M <= 16 matmuls and fully connected layers are bound by reading B once: the skinny kernel. */
static bool gemv_fits(const gemm_problem *pb) {
  bool op = pb->op && (!strcmp(pb->op, "matmul") || !strcmp(pb->op, "fully_connected"));
  bool type = pb->in == ET_F32 || pb->in == ET_F16 || pb->in == ET_BF16 || (pb->in == ET_I8 && !pb->acc64);
  return op && type && pb->m >= 1 && pb->m <= 16;
}

/* Its shape: lanes own V adjacent columns of a [K][N] B (at most 64 accumulators per lane: 128
 * spill on CDNA at M = 16, with the widened A and B of a block) and step 8 rows per base block, or
 * one column of an [N][K] B and 64 bytes of its k per base block. V: 16 bytes of elements, halved
 * until it divides the contiguous run (an odd N or K gets element loads). The block (bk: `unroll`
 * base blocks, all loads issued before the first multiply-add) and the waves are chosen by
 * gemv_best below. */
static void gemv_shape(const target_info *t, const gemm_problem *pb, int unroll, int narrow, int kl,
                       gemm_params *out) {
  int es = elem_type_bytes(pb->in), v = 16 / es;
  int64_t contig = pb->b_kcontig ? pb->k : pb->n;
  while (v > 1 && (contig % v || (!pb->b_kcontig && pb->m * v > 64)))
    v /= 2;
  out->vb = v = v / narrow > 1 ? v / narrow : 1;
  out->bm = out->wm = (int)pb->m, out->kl = 0;
  if (pb->b_kcontig) {
    int u = 64 / (v * es);
    out->bk = (u > 16 ? 16 : u) * v * unroll, out->bn = t->wave_size, out->va = v;
  } else {
    int u = 8 * unroll, va = u * es > 16 ? 16 / es : u;
    while (va > 1 && pb->k % va)
      va /= 2;
    out->bk = u * kl, out->bn = t->wave_size / kl * v, out->va = va, out->kl = kl > 1 ? kl : 0;
  }
  out->wn = out->bn;
}

/* The skinny kernel's estimated time (ns) with split-K S: Little's law. The memory system delivers
 * at most (bytes in flight) / latency; a work-group keeps one block per lane of its waves in
 * flight (no more than the blocks it has), and a CU holds as many work-groups as its registers
 * allow, at most two, so a few work-groups cannot reach the bandwidth. Splitting K makes more of
 * them but adds the partials (written here) and their reduction (split_combine_cycles).
 * The multiply-adds' issue time bounds it from below. */
#define GEMV_GROUPS_PER_CU 2
#define GEMV_MIN_BLOCKS 1
/* Registers besides the accumulators and the block's B (addresses, A, loop state), assumed. */
#define GEMV_OTHER_VGPRS 32
/* SGPRs the block's A may take (of about 100, the rest for addresses and loop state). */
#define GEMV_A_SGPRS 64
double cg_tune_gemv_cycles(const target_info *t, const cg_gemv_cost *c, double *mem_cycles, double *issue_cycles) {
  double wg = c->groups * c->split, cus = t->cus, simds = (double)t->cus * t->simds_per_cu;
  double steps = ceil(c->blocks / c->split), busy = steps < c->kwaves ? steps : c->kwaves;
  double cap = c->groups_per_cu < 1 ? 1 : c->groups_per_cu < GEMV_GROUPS_PER_CU ? floor(c->groups_per_cu)
                                                                               : GEMV_GROUPS_PER_CU;
  double per_cu = ceil(wg / cus), active = wg < cus ? wg : cus;
  double inflight = active * c->lane_bytes * busy * t->wave_size * (per_cu < cap ? per_cu : cap);
  double mem = c->lane_bytes > 0 ? cg_tune_memory_cycles(t, c->bytes, inflight) : 0;
  /* the busy CUs' own load rate, for what they load in whole lines: a grid of few work-groups
   * streams B through few CUs, and pieces of lines cost those CUs whole lines */
  double cu_rate = active * t->cu_load_bytes_clk, cu_bytes = c->bytes + c->line_extra;
  if (c->lane_bytes > 0 && cu_rate > 0 && cu_bytes / cu_rate > mem)
    mem = cu_bytes / cu_rate;
  double waves = wg * c->kwaves, used = waves < simds ? waves : simds;
  double lanes_clk = t->valu_flops_per_cu_clk / 2.0 / t->simds_per_cu;
  double insn = t->wave_size / lanes_clk < 1 ? 1 : t->wave_size / lanes_clk;
  double issue = c->groups * c->blocks * c->block_issue * insn / used;
  if (issue_cycles)
    *issue_cycles = issue;
  if (mem_cycles)
    *mem_cycles = mem;
  return mem > issue ? mem : issue;
}

static double gemv_stream(const target_info *t, const gemm_problem *pb, const gemm_params *P, int64_t s,
                          bool *doubtful) {
  int64_t groups = gemv_groups(pb, P), nkb = (pb->k + P->bk - 1) / P->bk;
  int es = elem_type_bytes(pb->in);
  int64_t lane = gemv_lane_bytes(pb, P), nacc = pb->b_kcontig ? pb->m : pb->m * P->vb;
  /* VGPRs: accumulators, the block as loaded and (narrow types, M > 1: each element serves every
   * row, so LLVM keeps it) widened to 32 bits, and for a
   * [K][N] B the block's A when it does not fit the SGPRs (M rows of bk k: wave-uniform scalar
   * loads, all hoisted to the block's start; past the SGPRs LLVM spills them to VGPR lanes) */
  int kl = gemv_kl(pb, P);
  int64_t adw = pb->b_kcontig ? 0 : pb->m * P->bk * es / 4;
  /* B's part of the lane's loads; the sliced form's A in VGPRs, widened */
  int64_t blane = lane - (kl > 1 ? pb->m * (P->bk / kl) * es : 0);
  int64_t regs = nacc + lane / 4 + (es < 4 && pb->m > 1 ? blane / es : 0) + GEMV_OTHER_VGPRS +
                 (kl > 1 ? pb->m * (P->bk / kl) : adw > GEMV_A_SGPRS ? adw : 0);
  int64_t per_simd = (P->kwaves + t->simds_per_cu - 1) / t->simds_per_cu;
  int64_t fit = t->vgprs_per_simd / (regs * per_simd);
  double base = (double)pb->batch * (pb->m * pb->k + pb->k * pb->n + pb->m * pb->n) * es;
  double lanes_clk = t->valu_flops_per_cu_clk / 2.0 / t->simds_per_cu;
  double insn = t->wave_size / lanes_clk < 1 ? 1 : t->wave_size / lanes_clk;
  /* a block's VALU work of one wave: a multiply-add per row of A and a conversion per B element */
  double elems = (double)blane / es;
  cg_gemv_cost c = {.groups = (double)groups, .blocks = (double)nkb, .kwaves = P->kwaves, .split = (int)s,
                    .lane_bytes = (double)lane, .groups_per_cu = (double)fit,
                    .block_issue = elems * (pb->m + 1),
                    /* the partials written, lines fetched by several L2s */
                    .bytes = base + (s > 1 ? split_out_bytes(pb, s) : 0) +
                             gemv_line_extra(t, pb, P, 1),
                    .line_extra = gemv_line_extra(t, pb, P, 0)};
  double mem, issue, time = cg_tune_gemv_cycles(t, &c, &mem, &issue) * 1e3 / t->clock_mhz;
  mem *= 1e3 / t->clock_mhz, issue *= 1e3 / t->clock_mhz;
  double simds = (double)t->cus * t->simds_per_cu, waves = (double)groups * s * P->kwaves;
  double per_ns = (t->clock_mhz / 1e3) * (waves < simds ? waves : simds);
  /* issue bound: also when a conversion per A element of a [K][N] B of a narrow type (M x bk per
   * block, whatever the columns: what narrower columns multiply) is counted too, an upper bound
   * (packed f32 FMAs on CDNA2+ halve the multiply-adds) that keeps narrow columns for
   * memory-bound cases */
  double a_cvt =
      !pb->b_kcontig && es < 4 ? (double)groups * nkb * pb->m * (P->bk / kl) * insn / per_ns : 0;
  /* doubtful: issue bound, or not one work-group per CU by the register estimate */
  *doubtful = issue + a_cvt > mem || regs > 256 || fit < 1;
  return time;
}

/* With the split's reduction in the form it will get (cg_tune_splitk_form): the last work-group's
 * fence, atomic and partial reads, or the combine kernel's launch and pass. */
static double gemv_time(const target_info *t, const gemm_problem *pb, const gemm_params *P, int64_t s,
                        bool *doubtful) {
  double time = gemv_stream(t, pb, P, s, doubtful);
  return s > 1 ? time + split_combine_cycles(t, pb, P, s) * 1e3 / t->clock_mhz : time;
}

/* The split-K factor with the smallest estimate (whole blocks per split: `steps` each, the last
 * one the rest); *best its time. A split must gain 2 % over none (no workspace otherwise); among
 * the splits the least estimate wins, as tosac-bundle quality's rows rank them. */
static int gemv_split_time(const target_info *t, const gemm_problem *pb, const gemm_params *P, double *best,
                           bool *doubtful) {
  int64_t nkb = (pb->k + P->bk - 1) / P->bk;
  int64_t most = nkb / ((int64_t)P->kwaves * GEMV_MIN_BLOCKS);
  int s_best = 1;
  double one = gemv_time(t, pb, P, 1, doubtful);
  *best = one;
  if (gemv_kl(pb, P) > 1) /* the sliced form is the unsplit one */
    return 0;
  for (int64_t s = 2; s <= most && s <= 1024; s++) {
    /* only splits the kernel runs: S splits of whole blocks, `steps` each (fewer splits when
     * the last would be empty: scored as those, where their chunks are) */
    int64_t steps = (nkb + s - 1) / s;
    if ((nkb + steps - 1) / steps != s)
      continue;
    bool ib;
    double time = gemv_time(t, pb, P, s, &ib);
    if (time < *best && time < one * 0.98)
      *best = time, s_best = (int)s, *doubtful = ib;
  }
  int64_t steps = (nkb + s_best - 1) / s_best;
  int64_t s = (nkb + steps - 1) / steps;
  return s >= 2 ? (int)s : 0;
}

static int gemv_split(const target_info *t, const gemm_problem *pb, const gemm_params *P) {
  double time;
  bool ib;
  return gemv_split_time(t, pb, P, &time, &ib);
}

/* The waves: 64 KiB of B in flight per work-group with one base block per lane (waves of one
 * group share their partial sums in LDS, where split-K would send them through memory), 256 to
 * 1024 threads; at most 512 above 32 accumulators per lane (1024 threads leave 128 VGPRs per lane
 * on CDNA: 64 accumulators and a block of B spill). The block: one, two or four base blocks of
 * loads in flight per lane, the one with the smallest estimate (with its best split); a longer
 * block must gain 2 %. A grid too small to fill the machine (ResNet's classifier: 16 work-groups)
 * reaches more bytes in flight this way than with its base block. */
static void gemv_waves(const target_info *t, const gemm_problem *pb, gemm_params *P) {
  int64_t threads = 65536 / gemv_lane_bytes(pb, P);
  int64_t most = (pb->b_kcontig ? pb->m : pb->m * P->vb) > 32 ? 512 : 1024;
  threads = threads < 256 ? 256 : threads > most ? most : threads;
  P->kwaves = (int)(threads / t->wave_size);
}

static void gemv_wide_params(const target_info *t, const gemm_problem *pb, gemm_params *out) {
  gemv_shape(t, pb, 1, 1, 1, out);
  gemv_waves(t, pb, out);
  double best;
  bool ib;
  gemv_split_time(t, pb, out, &best, &ib);
  for (int narrow = 1; narrow <= (pb->b_kcontig ? 1 : 4); narrow *= 2)
    for (int unroll = 1; unroll <= 4; unroll *= 2) {
      gemm_params P = *out;
      gemv_shape(t, pb, 1, narrow, 1, &P); /* the waves by the base block */
      gemv_waves(t, pb, &P);
      gemv_shape(t, pb, unroll, narrow, 1, &P);
      double time;
      gemv_split_time(t, pb, &P, &time, &ib);
      /* better with the split's reduction counted (a grid of few work-groups that each stream
       * much of B is held to those CUs' load rate by the estimate), and neither issue bound nor
       * short of registers by the estimate */
      if (P.bk <= (pb->b_kcontig ? GEMV_MAX_U * P.vb : GEMV_MAX_U) && !ib && time < best * 0.98)
        best = time, *out = P;
    }
}

/* TOSAC_GEMV_FORM: "sliced" or "wide" forces that form of every skinny GEMM of a [K][N] B, else
 * -1 (the estimate decides); 1 sliced, 0 wide. TOSAC_GEMV_KL=kl keeps the sliced form's
 * candidates to that kl (a power of two below the wave size), else 0. */
static int forced_gemv_form(void) {
  const char *e = getenv("TOSAC_GEMV_FORM");
  return !e ? -1 : !strcmp(e, "sliced") ? 1 : !strcmp(e, "wide") ? 0 : -1;
}

static int forced_gemv_kl(void) {
  const char *e = getenv("TOSAC_GEMV_KL");
  return e && *e ? atoi(e) : 0;
}

/* The skinny kernel's parameters: the wide form (columns of a whole wave's loads, 512 f16
 * columns; split-K where Little's law asks for more work-groups) or, for a [K][N] B, the sliced
 * form (kl lane groups on different rows of a block, bn = wave / kl x V columns: down to one cache
 * line of each B row, so the grid has enough work-groups without a split and no reduction), the
 * one with the smaller estimate (TOSAC_GEMV_FORM forces one). The sliced form's candidates: kl,
 * the columns per lane (narrow), the block (unroll) and 256, 512 or 1024 threads (its waves buy
 * bytes in flight, where the wide form's split would); the least estimate that is neither issue
 * bound nor short of registers, an earlier (smaller) one on a tie. */
static void gemv_params(const target_info *t, const gemm_problem *pb, gemm_params *out) {
  int form = forced_gemv_form();
  gemv_wide_params(t, pb, out);
  if (pb->b_kcontig || form == 0)
    return;
  double wide;
  bool ib;
  gemv_split_time(t, pb, out, &wide, &ib);
  gemm_params best = *out, any = *out;
  double tbest = 0, tany = 0;
  bool have = false, have_any = false;
  int only = forced_gemv_kl();
  for (int narrow = 1; narrow <= 4; narrow *= 2) /* 16-byte loads first, on a tie */
    for (int kl = 2; kl < t->wave_size; kl *= 2)
      for (int unroll = 1; unroll <= 4; unroll *= 2)
        for (int threads = 256; threads <= 1024; threads *= 2) {
          if (only && only != kl)
            continue;
          gemm_params P = *out;
          gemv_shape(t, pb, unroll, narrow, kl, &P);
          P.kwaves = threads / t->wave_size;
          if (P.bk / kl > GEMV_MAX_U || (pb->m * P.vb > 32 && threads > 512))
            continue;
          bool pib;
          double time = gemv_stream(t, pb, &P, 1, &pib);
          if (!have_any || time < tany * 0.999)
            any = P, tany = time, have_any = true;
          if (!pib && (!have || time < tbest * 0.999))
            best = P, tbest = time, have = true;
        }
  if (!have && form == 1)
    best = any, tbest = tany, have = have_any;
  if (have && (form == 1 || tbest < wide))
    *out = best;
}

static bool gemv_choose(const target_info *t, const gemm_problem *pb, bool heuristic,
                        gemm_params *out, char *err, size_t errsize) {
  out->kwaves = 0;
  bool want = out->kernel == GEMM_KERNEL_GEMV || (heuristic && out->kernel == GEMM_KERNEL_ANY && gemv_fits(pb));
  if (want && !gemv_fits(pb)) {
    snprintf(err, errsize, "--perf-config: kernel=gemv needs a matmul or fully_connected with M <= "
             "16 and f32, f16, bf16 or i8 operands (this one: M = %lld, %s)", (long long)pb->m,
             elem_type_name(pb->in));
    return false;
  }
  if (want)
    gemv_params(t, pb, out);
  return true;
}

int cg_tune_splitk(const target_info *t, const op *anchor, cg_splitk_form *form) {
  gemm_problem pb;
  gemm_params P;
  gemm_mma mm;
  const char *src;
  char err[256];
  if (form)
    *form = SPLITK_COMBINE;
  /* the partials workspace holds f32 or i32 sums: i64 accumulators stay in one kernel */
  if (cg_gemm_problem(t, anchor, &pb) && pb.acc64)
    return 0;
  if (forced_split() < 0 && cg_gemm_problem(t, anchor, &pb) &&
      cg_tune_gemm(t, &pb, NULL, NULL, &P, &mm, &src, NULL, 0, err, sizeof err) && P.kwaves) {
    int s = gemv_split(t, &pb, &P);
    int64_t bytes = tensor_numel(anchor->results[0]->type) * 4;
    if ((int64_t)s * bytes > SPLITK_MAX_WORKSPACE)
      return 0;
    if (form && s >= 2)
      *form = cg_tune_splitk_form(t, &pb, &P, s);
    return s;
  }
  int64_t tiles, nk, klen;
  if (!cg_gemm_shape(t, anchor, NULL, &tiles, &nk, &klen) || tiles < 1 || nk < 2)
    return 0;
  int forced = forced_split();
  int64_t want;
  if (forced >= 0) {
    want = forced;
  } else if (cg_gemm_problem(t, anchor, &pb) && pb.batch * pb.m * pb.n * pb.k >= HEUR_MIN_MACS &&
             (t->has_mfma || !pb.zero_points) &&
             cg_tune_gemm(t, &pb, NULL, NULL, &P, &mm, &src, NULL, 0, err, sizeof err) &&
             (mm.row || !t->has_mfma)) {
    /* MFMA and RDNA (WMMA, the FMA path): the split with the smallest estimate for the tile the
     * kernel will use, as its heuristic chose it */
    double cyc;
    want = tile_best_split(t, &pb, &P, &mm, &cyc);
  } else {
    /* one work-group per CU: S = CUs / tiles, while every split keeps its minimum K */
    if (tiles * SPLITK_TILE_SHARE > t->cus || klen < SPLITK_MIN_K || nk < 2 * SPLITK_MIN_STEPS)
      return 0;
    want = t->cus / tiles;
    if (want > nk / SPLITK_MIN_STEPS)
      want = nk / SPLITK_MIN_STEPS;
  }
  int64_t bytes = tensor_numel(anchor->results[0]->type) * 4;
  if (want * bytes > SPLITK_MAX_WORKSPACE)
    want = SPLITK_MAX_WORKSPACE / bytes;
  if (want > nk)
    want = nk;
  if (want < 2)
    return 0;
  /* whole K tiles per split: `steps` tiles each, the last split takes the rest */
  int64_t steps = (nk + want - 1) / want;
  int64_t s = (nk + steps - 1) / steps;
  if (s < 2)
    return 0;
  if (form && cg_gemm_problem(t, anchor, &pb) &&
      cg_tune_gemm(t, &pb, NULL, NULL, &P, &mm, &src, NULL, 0, err, sizeof err))
    *form = cg_tune_splitk_form(t, &pb, &P, s);
  return (int)s;
}

/* ---------------------------------------------------------------- GEMM tiles and the database */

/* What cg_gemm_shape (the split-K cost model, on the partitioning thread) sees; the emitters
 * take cg_options' copies through cg_builder. */
static _Thread_local const char *thread_perf_config;
static _Thread_local const cg_tuning_db *thread_db;
void cg_tuning_set(const char *perf_config, const cg_tuning_db *db) {
  thread_perf_config = perf_config, thread_db = db;
}

typedef struct db_entry {
  char target[32];
  char *key, *config;
} db_entry;
struct cg_tuning_db {
  db_entry *e;
  int n, cap;
};

cg_tuning_db *cg_tuning_db_new(void) { return calloc(1, sizeof(cg_tuning_db)); }

void cg_tuning_db_free(cg_tuning_db *db) {
  if (!db)
    return;
  for (int i = 0; i < db->n; i++)
    free(db->e[i].key), free(db->e[i].config);
  free(db->e);
  free(db);
}

static char *dup_n(const char *s, size_t n) {
  char *r = malloc(n + 1);
  if (r) {
    memcpy(r, s, n);
    r[n] = 0;
  }
  return r;
}

/* One line "target<TAB>key<TAB>perf-config<TAB>score"; false + the column of the fault. */
static bool db_line(const char *s, size_t n, db_entry *e, int *col, char *msg, size_t msize) {
  const char *f[4];
  size_t len[4];
  int nf = 0;
  for (size_t i = 0, start = 0; i <= n; i++)
    if (i == n || s[i] == '\t') {
      if (nf < 4)
        f[nf] = s + start, len[nf] = i - start;
      nf++;
      start = i + 1;
    }
  *col = 1;
  if (nf != 4) {
    snprintf(msg, msize, "expected 4 tab-separated fields (target, problem key, perf-config, "
             "score), found %d", nf);
    return false;
  }
  size_t plen = strcspn(f[0], ":\t");
  if (plen > len[0])
    plen = len[0];
  if (!target_lookup(f[0], plen)) {
    snprintf(msg, msize, "unknown target '%.*s'", (int)len[0], f[0]);
    return false;
  }
  char key[160], opname[40];
  long long dims[4];
  int used = 0;
  snprintf(key, sizeof key, "%.*s", (int)len[1], f[1]);
  if (len[1] >= sizeof key || memchr(f[1], ' ', len[1]) ||
      sscanf(key, "%39[a-z_0-9]:%lldx%lldx%lldx%lld:%n", opname, &dims[0], &dims[1], &dims[2],
             &dims[3], &used) != 5 || !used) {
    *col = (int)(f[1] - s) + 1;
    snprintf(msg, msize, "malformed problem key '%.*s' (expected op:BxMxNxK:type:..., as in the "
             "manifest's tuning.problem)", (int)len[1], f[1]);
    return false;
  }
  char cfg[256], err[256];
  snprintf(cfg, sizeof cfg, "%.*s", (int)len[2], f[2]);
  if (!len[2] || len[2] >= sizeof cfg || !gemm_config_check(cfg, err, sizeof err)) {
    *col = (int)(f[2] - s) + 1;
    const char *why = strncmp(err, "--perf-config: ", 15) ? err : err + 15;
    snprintf(msg, msize, "%s", len[2] ? why : "empty perf-config");
    return false;
  }
  char num[32], *end;
  snprintf(num, sizeof num, "%.*s", (int)len[3], f[3]);
  (void)strtod(num, &end);
  if (!len[3] || len[3] >= sizeof num || *end) {
    *col = (int)(f[3] - s) + 1;
    snprintf(msg, msize, "score '%.*s' is not a number", (int)len[3], f[3]);
    return false;
  }
  snprintf(e->target, sizeof e->target, "%.*s", (int)plen, f[0]);
  e->key = dup_n(f[1], len[1]);
  e->config = dup_n(f[2], len[2]);
  return e->key && e->config;
}

bool cg_tuning_db_add(cg_tuning_db *db, const source_file *src, diag_sink *d) {
  const char *t = src->text, *end = t + src->len;
  bool ok = true;
  for (int line = 1; t < end; line++) {
    const char *eol = memchr(t, '\n', (size_t)(end - t));
    size_t n = (size_t)((eol ? eol : end) - t);
    if (n && t[n - 1] == '\r')
      n--;
    if (n && t[0] != '#') {
      db_entry e = {0};
      int col;
      char msg[320] = "out of memory";
      if (!db_line(t, n, &e, &col, msg, sizeof msg)) {
        diag_error(d, src_loc_at(src, line, col), "%s", msg);
        ok = false;
      } else if (db->n == db->cap) {
        db_entry *grown = realloc(db->e, sizeof *grown * (size_t)(db->cap * 2 + 16));
        if (grown)
          db->e = grown, db->cap = db->cap * 2 + 16;
      }
      if (e.key && e.config && db->n < db->cap)
        db->e[db->n++] = e; /* a later line (or file) with the same target and key wins */
      else
        free(e.key), free(e.config);
    }
    t = eol ? eol + 1 : end;
  }
  return ok;
}

static const char *db_find(const cg_tuning_db *db, const char *target, const char *key) {
  for (int i = db ? db->n - 1 : -1; i >= 0; i--)
    if (strcmp(db->e[i].target, target) == 0 && strcmp(db->e[i].key, key) == 0)
      return db->e[i].config;
  return NULL;
}

void gemm_problem_key(const gemm_problem *pb, char *buf, size_t size) {
  snprintf(buf, size, "%s:%lldx%lldx%lldx%lld:%s:a%lld:b%lld%c%s%s%s%s", pb->op ? pb->op : "gemm",
           (long long)pb->batch, (long long)pb->m, (long long)pb->n, (long long)pb->k,
           elem_type_name(pb->in), (long long)pb->a_contig, (long long)pb->b_contig,
           pb->b_kcontig ? 'k' : 'n', pb->zero_points ? ":zp" : "", pb->acc64 ? ":acc64" : "",
           pb->nb > 1 ? ":dual" : "", pb->a_resident ? ":normA" : "");
}

bool cg_tune_gemm(const target_info *t, const gemm_problem *pb, const char *perf_config,
                  const cg_tuning_db *db, gemm_params *out, gemm_mma *mm, const char **source,
                  char *warn, size_t wsize, char *err, size_t errsize) {
  if (warn && wsize)
    warn[0] = 0;
  if (!perf_config && !db) /* the partitioner's query */
    perf_config = thread_perf_config, db = thread_db;
  if (perf_config) {
    *source = "perf-config";
    return gemm_params_choose(t, pb, perf_config, out, mm, err, errsize) &&
           gemv_choose(t, pb, false, out, err, errsize);
  }
  char key[160];
  gemm_problem_key(pb, key, sizeof key);
  const char *cfg = db_find(db, t->name, key);
  if (cfg) {
    char why[256];
    if (gemm_params_choose(t, pb, cfg, out, mm, why, sizeof why) &&
        gemv_choose(t, pb, false, out, why, sizeof why)) {
      *source = "db";
      return true;
    }
    const char *w = strncmp(why, "--perf-config: ", 15) ? why : why + 15;
    if (warn)
      snprintf(warn, wsize, "tuning database entry for %s on %s is not usable (%s); using the "
               "heuristic", key, t->name, w);
  }
  *source = "heuristic";
  char hcfg[128];
  if (cg_tune_heuristic(t, pb, hcfg, sizeof hcfg) &&
      gemm_params_choose(t, pb, hcfg, out, mm, err, errsize))
    return gemv_choose(t, pb, true, out, err, errsize);
  return gemm_params_choose(t, pb, NULL, out, mm, err, errsize) &&
         gemv_choose(t, pb, true, out, err, errsize);
}

/* ---------------------------------------------------------------- im2col (partition/im2col.c) */
/* A convolution whose input channel run is shorter than one 16-byte load (ResNet's 3-channel
 * stem) gathers every element of its A tile on its own (per element: its tap, a multiply-high
 * per dim, the tap mask, a load of 1-3 channels): the implicit GEMM's loop is issue-bound by the
 * gather (162-231 instructions per iteration for the stem's 16-32 MFMAs). The alternative is two
 * kernels: an im2col pass writing the [M, Kpad] patch matrix and the [OC, Kpad] weights (k past
 * K zero) to a workspace with 16-byte stores, then a plain GEMM over it (16-byte loads, no masks).
 * It moves the matrix twice more (the stem in f32: 12544 x 160 x 4 = 8 MB written and read) and
 * costs a launch; chosen when the estimate of the pair beats the implicit GEMM's. */

/* Kpad: K rounded up to 64 bytes, the K tile of most tiles, so that the GEMM has no K tail. */
#define IM2COL_K_BYTES 64
/* The workspace matrix stays below 2^31 bytes (buffer offsets) and this bound. */
#define IM2COL_MAX_WORKSPACE ((int64_t)256 << 20)
/* The implicit GEMM's per-element gather is a chain per element (tap, multiply-high per dim, mask,
 * load, LDS write) that the issue estimate counts but whose latencies it does not see: llvm-mca's
 * steady state of the stem's loops is 1.95x (gfx908), 2.46x (gfx950) and 2.59x (gfx942) the issue
 * model's (docs/decisions.md#im2col-only-where-the-estimate-says; gfx90a's run fails), 2.3x in their geometric mean
 * (1.91x, 2.51x, 2.52x on the code of "Run gather for few input channels"). On targets whose loops
 * llvm-mca grades (a matrix pipe) the per-element gather's estimate is scaled by this; the RDNA
 * issue models have no latencies. The run gather (whole pixels, no per-element chain) is not
 * scaled: tosac-bundle quality's times of the stem's run loops are 0.90-0.91x its estimate. */
#define IM2COL_GATHER_LATENCY 2.3
/* Two kernels and a workspace must gain this share of the time (near-ties keep one kernel). */
#define IM2COL_MIN_GAIN 0.05

void cg_im2col_problem(const gemm_problem *conv, int64_t kpad, gemm_problem *cols) {
  *cols = *conv;
  cols->batch = 1, cols->k = kpad;
  cols->a_contig = cols->b_contig = kpad, cols->b_kcontig = true, cols->k_run = 0;
  cols->op = "im2col";
}

/* TOSAC_IM2COL: unset or empty = the estimate, 0 = never, 1 = every convolution that can. */
static int forced_im2col(void) { return env_switch("TOSAC_IM2COL"); }

/* The estimate of a GEMM problem with the heuristic's tile, in microseconds: the expansion
 * never depends on --perf-config or a tuning database, which then set the tiles of the kernels
 * it made. */
static double gemm_est_us(const target_info *t, const gemm_problem *pb) {
  gemm_params P;
  gemm_mma mm;
  char cfg[128], err[256];
  if (!(cg_tune_heuristic(t, pb, cfg, sizeof cfg) && gemm_params_choose(t, pb, cfg, &P, &mm, err, sizeof err)) &&
      !gemm_params_choose(t, pb, NULL, &P, &mm, err, sizeof err))
    return -1;
  double us = cg_tune_estimate_us(t, pb, &P, &mm, 1);
  bool gather = pb->op && strstr(pb->op, "conv") && !pb->k_run && pb->a_contig * elem_type_bytes(pb->in) < 16;
  return gather && t->has_mfma ? us * IM2COL_GATHER_LATENCY : us;
}

/* ---------------------------------------------------------------- the run gather (gemm_conv.c) */
/* A convolution with few channels may gather whole pixels of (ky, kx, channel) runs instead of
 * one element per slot (docs/gemm.md "Convolution gather"): no per-element tap arithmetic, but
 * K padded (the stem 147 -> 224). Matrix pipes idle behind the per-element gather gain (the
 * stem on gfx908: 46.6 -> 97.7 % by llvm-mca); the RDNA FMA path, compute-bound, pays the padded
 * K in FMAs (gfx1030: 14.6 -> 18.9 us by tosac-bundle quality). Chosen by the estimates with the
 * heuristic's tiles (the per-element gather's with its latency factor, as against im2col). */
bool cg_tune_runs(const target_info *t, const gemm_problem *plain, const gemm_problem *runs) {
  int force = env_switch("TOSAC_CONV_RUNS");
  if (force >= 0)
    return force == 1;
  double a = gemm_est_us(t, plain), r = gemm_est_us(t, runs);
  return r > 0 && (a <= 0 || r < a);
}

int64_t cg_tune_im2col(const target_info *t, const op *anchor) {
  gemm_problem pb, cols;
  int force = forced_im2col();
  /* the im2col pass gathers one convolution's matrix: a grouped one stays an implicit GEMM */
  if (force == 0 || !anchor || !(cg_op_is(anchor, "tosa.conv2d") || cg_op_is(anchor, "tosa.conv3d")) ||
      gemm_conv_groups(anchor) > 1 ||
      !cg_gemm_problem(t, anchor, &pb) || pb.zero_points || elem_type_is_f8(pb.in))
    return 0;
  int es = elem_type_bytes(pb.in);
  /* the convolution's own K and channels (the run gather's problem pads both) */
  const tensor_type *in = anchor->operands[0]->type;
  int64_t k = tensor_numel(anchor->operands[1]->type) / pb.n, ic = in->dims[in->rank - 1];
  int64_t g = IM2COL_K_BYTES / es, kpad = (k + g - 1) / g * g;
  int64_t ws = (pb.m + pb.n) * kpad * es;
  if (ws > IM2COL_MAX_WORKSPACE || ws >= ((int64_t)1 << 31))
    return 0;
  if (force == 1)
    return kpad;
  /* only a channel run shorter than one 16-byte load gathers element by element */
  if (ic * es >= 16 || pb.batch * pb.m * pb.n * k < HEUR_MIN_MACS)
    return 0;
  cg_im2col_problem(&pb, kpad, &cols);
  double direct = gemm_est_us(t, &pb), gemm = gemm_est_us(t, &cols);
  if (direct <= 0 || gemm <= 0)
    return 0;
  /* the im2col pass: the input and weights read once, the workspace written, at the bandwidth */
  double moved = (double)ws + (double)tensor_numel(anchor->operands[0]->type) * es +
                 (double)tensor_numel(anchor->operands[1]->type) * es;
  double pass = moved / ((double)t->mem_gbps * 1e3);
  return gemm + pass + cg_tune_launch_us(t) < (1 - IM2COL_MIN_GAIN) * direct ? kpad : 0;
}

/* ---------------------------------------------------------------- transpose_conv2d phases */

/* Per-phase kernels must gain this share of the one kernel's time (near-ties keep one kernel). */
#define PHASE_MIN_GAIN 0.05

/* TOSAC_CONV_PHASES: unset or empty = the estimate, 0 = one kernel, 1 = one per phase. */
static int forced_phases(void) { return env_switch("TOSAC_CONV_PHASES"); }

int cg_tune_phases(const target_info *t, const op *anchor, uint64_t *empty_mask) {
  gemm_problem pb;
  gemm_conv c;
  char err[160];
  int force = forced_phases();
  *empty_mask = 0;
  if (force == 0 || !anchor || !cg_op_is(anchor, "tosa.transpose_conv2d") ||
      !cg_gemm_problem(t, anchor, &pb) || !gemm_conv_describe(anchor, &c, &(gemm_problem){0}, err, sizeof err) ||
      c.phases < 2 || c.phases > 64)
    return 0;
  /* Both forms as the same per-phase GEMM problems (M the phase's rows, its share of the
   * result): the single kernel runs each phase over its y taps with every x tap (masked past the
   * kernel; a phase without y taps only writes its zeros); per phase, each kernel runs its exact
   * taps, one launch each, and a zero fill of the whole result runs first when some phase has
   * no tap. A per-phase kernel reads all of the input and the filter and writes its share of the
   * result, and is never faster than moving those bytes: tosac-bundle quality's model, which
   * charges every kernel its buffers once (the phase's pixels of the result) and overlaps that
   * traffic with the matrix work. */
  double bpu = (double)t->mem_gbps * 1e3; /* bytes per microsecond */
  double share = (double)tensor_bytes(anchor->results[0]->type) / c.phases / bpu;
  double reads = (double)(tensor_bytes(anchor->operands[0]->type) + tensor_bytes(anchor->operands[1]->type)) / bpu;
  double one = 0, per = 0;
  int64_t taps[3];
  int kernels = 0;
  for (int p = 0; p < c.phases; p++) {
    int64_t n = gemm_conv_phase_taps(&c, p, taps);
    gemm_problem exact = pb, padded = pb;
    exact.k = n * c.ic, padded.k = taps[0] * c.taps[1] * c.ic;
    double q = padded.k ? gemm_est_us(t, &padded) : share;
    if (!n)
      *empty_mask |= 1ull << p;
    if (q <= 0)
      return 0;
    one += q;
    if (!n || force == 1)
      continue;
    double e = gemm_est_us(t, &exact);
    if (e <= 0)
      return 0;
    per += e > reads + share ? e : reads + share, kernels++;
  }
  if (force == 1)
    return c.phases;
  if (*empty_mask)
    per += share * c.phases + cg_tune_launch_us(t);
  per += (kernels - 1) * cg_tune_launch_us(t);
  return per < (1 - PHASE_MIN_GAIN) * one ? c.phases : 0;
}

/* ---------------------------------------------------------------- split-KV
 * attention A decode step's attention (few query rows, a long KV cache) has few work-groups
 * (one per batch entry and block of rows), each walking all L keys: too few to keep the memory
 * system busy. P chunks of keys (cg_attention_chunk: whole 64-key tiles) make P times the
 * work-groups, each walking L / P keys, and add the partials' round trip and a combine kernel.
 * Per P the estimate is the larger of
 * - the K/V bytes (and the partials written) at the rate Little's law allows with the resident
 * work-groups' loads in flight: the decode kernel (kernel_attention_decode.c, S <= CG_DECODE_ROWS)
 * one loop iteration's 16-byte K and V loads per lane, up to 4 keys (cg_tune_decode_unroll); the flash kernel (MFMA
 * targets) about two 64-key blocks of K and V per work-group; the portable kernel one 32-key
 * tile;
 * - the issue time: the waves in rounds over the SIMDs, each walking its chunk at the kernel's
 * instructions per key (decode, per wave: its keys' share of the dot products' and the output's
 * multiply-adds, the lane butterflies and the softmax of the loop, by tosac-bundle quality's
 * count of the loop; flash, per wave of 16 queries: 6 + (D + Dv) / 20, 801 per 64-key block for
 * head size 64 on gfx942 by tosac-bundle quality; portable: the D + Dv multiply-adds, their LDS
 * reads and about 10 more per key);
 * plus, when split, the combine kernel: a dependent launch (the target table's launch_ns), then
 * the partials read and the result written at the rate Little's law allows (one memory latency
 * at least). P is the smallest with the least estimate, kept only when it gains
 * SPLITKV_MIN_GAIN over one kernel.
 */
/* A split is kept when it gains this share over one kernel: its launch is priced (launch_ns),
 * the margin keeps near-ties one kernel (no workspace) */
#define SPLITKV_MIN_GAIN 0.05
#define SPLITKV_MAX_SPLIT                                                      \
  256 /* the combine kernel merges at most this many chunks */
#define SPLITKV_WGS_PER_CU                                                     \
  2 /* resident per CU: the flash kernel's 32 KiB of LDS, two of them */
/* The decode kernel (kernel_attention_decode.c): work-items per work-group, keys per lane group
 * per loop iteration, and work-groups resident per CU (its LDS is a few KiB; its registers,
 * under 64, allow 8 waves per SIMD) */
#define DECODE_LANES 256
#define DECODE_MAX_UNROLL 4
#define DECODE_WAVES_PER_SIMD 8
#define DECODE_TIE 0.05

enum { SKV_PORTABLE, SKV_FLASH, SKV_DECODE };

/* The decode kernel's split of a head row: vec elements per lane (16 bytes where D and Dv
 * allow), G lanes per key; false when it does not fit (kernel_attention_decode.c, shape). */
static bool decode_shape(const target_info *t, int64_t S, int64_t D, int64_t Dv, int eb, int *vec, int *g) {
  if (S > CG_DECODE_ROWS || (eb != 2 && eb != 4))
    return false;
  int v = 16 / eb;
  while (v > 1 && (D % v || Dv % v))
    v /= 2;
  int64_t parts = ((D > Dv ? D : Dv) + v - 1) / v;
  int n = 1;
  while (n < parts)
    n *= 2;
  *vec = v, *g = n;
  return n <= 32 && n <= t->wave_size;
}

int64_t cg_tune_decode_unroll(int64_t chunk, int64_t slots) {
  int64_t u = chunk / slots;
  return u < 1 ? 1 : u > DECODE_MAX_UNROLL ? DECODE_MAX_UNROLL : u;
}

/* The decode kernel's cycles (memory and issue) for one kernel over chunks of `chunk` keys. */
static double decode_cycles(const target_info *t, int64_t B, int64_t S, int64_t L, int64_t D, int64_t Dv, int eb,
                            int64_t P, double bytes) {
  int vec, g;
  decode_shape(t, S, D, Dv, eb, &vec, &g);
  int64_t chunk = cg_attention_chunk(L, (int)P), slots = DECODE_LANES / g;
  int64_t unroll = cg_tune_decode_unroll(chunk, slots);
  double wgs = (double)B * P, waves_per_wg = ceil((double)DECODE_LANES / t->wave_size);
  double per_cu = floor((double)DECODE_WAVES_PER_SIMD * t->simds_per_cu / waves_per_wg);
  double resident = fmin(wgs, (double)t->cus * (per_cu < 1 ? 1 : per_cu));
  double inflight = resident * DECODE_LANES * unroll * 2.0 * vec * eb;
  double mem = cg_tune_memory_cycles(t, bytes, inflight);
  /* per loop iteration and wave: per key and row the dot's vec multiply-adds, log2 G
   * butterfly steps (exchange and add), the score ops, max, exp and the output's vec
   * multiply-adds; per row the rescale; the loads and the loop's own */
  double lg = log2((double)g);
  double per_iter = (double)S * (unroll * (2.0 * vec + 2 * lg + 8) + vec + 8) + 4 * unroll + 12;
  double iters = ceil((double)chunk / (slots * unroll));
  double lanes = t->valu_flops_per_cu_clk / 2.0 / t->simds_per_cu;
  double insn = t->wave_size / lanes < 1 ? 1 : t->wave_size / lanes;
  double simds = (double)t->cus * t->simds_per_cu;
  /* the merge after the loop: butterflies of (m, l, vec outputs) per row and the LDS pass */
  double tail = (double)S * (log2((double)t->wave_size / g) * (3.0 * vec + 12) + waves_per_wg * 8) + 40;
  double issue = ceil(wgs * waves_per_wg / simds) * (iters * per_iter + tail) * insn;
  return fmax(mem, issue);
}

static double splitkv_cycles(const target_info *t, int kind, int64_t B, int64_t S,
                             int64_t L, int64_t D, int64_t Dv, int eb,
                             int64_t P) {
  bool flash = kind == SKV_FLASH;
  int64_t G = B * ((S + 15) / 16), chunk = cg_attention_chunk(L, (int)P);
  double wide = (double)(D + Dv), wgs = (double)G * P;
  double kv = (double)B * L * wide * eb,
         parts = P > 1 ? (double)P * B * S * (Dv + 2) * 4.0 : 0;
  double total;
  if (kind == SKV_DECODE) {
    total = decode_cycles(t, B, S, L, D, Dv, eb, P, kv + parts);
  } else {
    double waves_per_wg =
        flash ? 1 : ceil(64.0 / t->wave_size); /* the portable kernel: 64 rows */
    double resident = fmin(wgs, (double)t->cus * SPLITKV_WGS_PER_CU);
    double inflight = resident * (flash ? 128.0 : 32.0) * wide * eb;
    double mem = cg_tune_memory_cycles(t, (double)G * L * wide * eb + parts, inflight);
    double lanes = t->valu_flops_per_cu_clk / 2.0 / t->simds_per_cu;
    double insn = t->wave_size / lanes < 1 ? 1 : t->wave_size / lanes;
    double per_key = flash ? 6 + wide / 20 : 1.25 * wide + 10;
    double simds = (double)t->cus * t->simds_per_cu;
    double issue =
        ceil(wgs * waves_per_wg / simds) * (double)chunk * per_key * insn;
    total = fmax(mem, issue);
  }
  if (P > 1)
    total += cg_tune_memory_cycles(t, parts + (double)B * S * Dv * eb, 0) + cg_tune_launch_cycles(t);
  return total;
}

/* The least estimate of kernel `kind` over the split counts; *pick: its P. */
static double splitkv_best(const target_info *t, int kind, int64_t B, int64_t S, int64_t L, int64_t D, int64_t Dv,
                           int eb, int *pick) {
  double one = splitkv_cycles(t, kind, B, S, L, D, Dv, eb, 1), best = one;
  *pick = 1;
  for (int64_t p = 2; p <= SPLITKV_MAX_SPLIT && (p - 1) * 64 < L; p++) {
    int64_t chunk = cg_attention_chunk(L, (int)p);
    if ((L + chunk - 1) / chunk != p)
      continue; /* the same chunks as a smaller P */
    double c = splitkv_cycles(t, kind, B, S, L, D, Dv, eb, p);
    if (c < best)
      best = c, *pick = (int)p;
  }
  if (best > one * (1 - SPLITKV_MIN_GAIN))
    best = one, *pick = 1;
  return best;
}

/* The partial kernel for this problem: the decode kernel where it fits, on MFMA targets only
 * where its estimate beats the flash kernel's. */
static int splitkv_kind(const target_info *t, int64_t B, int64_t S, int64_t L, int64_t D, int64_t Dv, int eb) {
  int vec, g, pd, pf;
  const char *force = getenv("TOSAC_ATTENTION_DECODE");
  int other = t->has_mfma ? SKV_FLASH : SKV_PORTABLE;
  if (!decode_shape(t, S, D, Dv, eb, &vec, &g) || (force && !strcmp(force, "0")))
    return other;
  if (!t->has_mfma || (force && !strcmp(force, "1")))
    return SKV_DECODE;
  /* near-ties go to the decode kernel: the flash estimate's issue term counts each instruction
   * slot once, where tosac-bundle quality's loop model finds its decode-shaped loop 2x slower
   * (gfx950, 1 query over 1024 keys: 1.26 us) */
  return splitkv_best(t, SKV_DECODE, B, S, L, D, Dv, eb, &pd) <=
                 (1 + DECODE_TIE) * splitkv_best(t, SKV_FLASH, B, S, L, D, Dv, eb, &pf)
             ? SKV_DECODE
             : SKV_FLASH;
}

bool cg_tune_attention_decode(const target_info *t, int64_t B, int64_t S, int64_t L, int64_t D, int64_t Dv, int eb) {
  return splitkv_kind(t, B, S, L, D, Dv, eb) == SKV_DECODE;
}

/* The split-KV forms after the partials: a combine kernel (a dependent launch, then its bytes:
 * the partials and the result) or the decode kernel's last work-group per batch-and-head entry
 * (its release fence and the counter's atomic, two coherent-cache latencies, then the B last
 * work-groups read the partials with S x Dv of their 256 threads' loads in flight, P each).
 * Only the decode kernel has the last-work-group form; it needs the zeroed workspace region
 * (cg_tuning_allow_fixup). TOSAC_SPLIT_KV_FORM=combine / lastwg forces one where allowed. */
bool cg_tune_splitkv_lastwg(const target_info *t, int64_t B, int64_t S, int64_t L, int64_t D, int64_t Dv, int eb,
                            int P) {
  if (P < 2 || thread_no_fixup || splitkv_kind(t, B, S, L, D, Dv, eb) != SKV_DECODE)
    return false;
  const char *e = getenv("TOSAC_SPLIT_KV_FORM");
  if (e && (!strcmp(e, "combine") || !strcmp(e, "lastwg")))
    return !strcmp(e, "lastwg");
  double parts = (double)P * B * S * (Dv + 2) * 4.0, out = (double)B * S * Dv * eb;
  double combine = cg_tune_launch_cycles(t) + cg_tune_memory_cycles(t, parts + out, 0);
  double threads = S * Dv < DECODE_LANES ? (double)S * Dv : DECODE_LANES;
  double lastwg = 2 * (double)t->cache_latency_ns * t->clock_mhz / 1e3 +
                  little_cycles(t, parts + out, (double)B * threads * P * 12.0, t->cache_latency_ns);
  return lastwg < combine;
}

void cg_tune_splitkv_at(const target_info *t, int64_t B, int64_t S, int64_t L,
                        int64_t D, int64_t Dv, int eb, int P, double *est_us) {
  int kind = splitkv_kind(t, B, S, L, D, Dv, eb);
  *est_us = splitkv_cycles(t, kind, B, S, L, D, Dv, eb, P) / t->clock_mhz;
}

int cg_tune_splitkv(const target_info *t, int64_t B, int64_t S, int64_t L,
                    int64_t D, int64_t Dv, int eb, double *est_us) {
  int pick, kind = splitkv_kind(t, B, S, L, D, Dv, eb);
  if (kind == SKV_PORTABLE && t->has_wmma) {
    /* Unsplit, the WMMA kernels run this problem; they have no partial form and this estimate
     * does not model them, and the portable partials are slower than them at any P. */
    if (est_us)
      *est_us = splitkv_cycles(t, kind, B, S, L, D, Dv, eb, 1) / t->clock_mhz;
    return 1;
  }
  double best = splitkv_best(t, kind, B, S, L, D, Dv, eb, &pick);
  if (est_us)
    *est_us = best / t->clock_mhz;
  return pick;
}
