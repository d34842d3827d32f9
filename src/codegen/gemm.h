/* gemm.h: the GEMM core shared by the matrix kernel family (matmul, fully_connected, conv2d and,
 * later, conv3d): tile parameters, the matrix-instruction abstraction, and the operand-staging
 * interface through which an op describes how to read its A and B operands. */
#ifndef TOSAC_GEMM_H
#define TOSAC_GEMM_H

#include "codegen.h"

/* ---------------------------------------------------------------- matrix instruction (gemm_mma.c) */
/* One wave-level multiply-accumulate step D[m][n] += A[m][k] * B[k][n], either a real matrix
 * instruction (row of target_matrix_table) or the FMA fallback, in which each lane owns a
 * tm x tn micro-tile of a (lanes_m*tm) x (lanes_n*tn) wave-instruction tile and k is 16 bytes of
 * elements: every A and B row of the micro-tile is one 16-byte LDS read per step, multiplied with
 * dot instructions where the target has them (target_dot_table), else with FMAs. */
typedef struct gemm_mma {
  const target_matrix *row; /* NULL: FMA fallback */
  elem_type in;             /* A/B element type */
  bool int_acc;             /* integer accumulation (i32; i64 with acc64) else f32 */
  bool acc64;               /* FMA, integer results wider than 32 bits (i48, i64): i64
                             * accumulators, products widened before the sum */
  int m, n, k;              /* tile of one step */
  int kl;                   /* A (and B) elements per lane per step */
  int chunk;                /* contiguous k elements per LDS read (kl / chunk reads) */
  int pack;                 /* MFMA: consecutive k steps fed by one LDS read of pack*kl elements
                             * (<= 16 bytes); lanes own pack*kl contiguous k, the same permutation
                             * of k for A and B, so the sum is unchanged (GEMM.md §1.2) */
  int nacc;                 /* accumulators per lane */
  int tm, tn, lanes_m;      /* FMA: micro-tile and lane grid (lanes_n = wave / lanes_m) */
  int a_zp, b_zp;           /* FMA, integers: zero points subtracted before the product */
  const target_dot *dot;    /* FMA: the dot instruction for `in`, or NULL */
  bool widen;               /* FMA, bf16 without a dot: staged into LDS as f32, so each element
                             * is widened once per K tile, not once per step of every lane that
                             * reads it (4096^3 on gfx1030: 76 % -> 90 % FMA slots) */
  bool pair;                /* FMA, f32 on a VOPD target (target_info.dual_issue): FMAs of k
                             * steps q and q+1 interleaved for v_dual_fmac_f32 (fma_step) */
  char name[64];            /* mnemonic for the manifest: "v_mfma_f32_32x32x8f16" / "fma" */
} gemm_mma;

/* Pick the instruction for operand type `in` on target t: shape 32 or 16 (0: the preferred one
 * that fits M/N), or the FMA path if force_fma, if the type has no matrix instruction there, or
 * if zero points are non-zero (raw i8 products would need correction terms). */
bool gemm_mma_select(const target_info *t, elem_type in, int shape, bool force_fma, int64_t M,
                     int64_t N, gemm_mma *out);

/* FMA path: the lanes' micro-tile tm x tn (instruction tile, accumulators). */
void gemm_mma_fma_tile(const target_info *t, gemm_mma *mm, int tm, int tn);
/* FMA path: the micro-tile (8x8, 8x4, 4x4) with the shortest estimated time, rounds of waves
 * over t's SIMDs x a wave's work over the tile's FMA-slot share (an 8x8 tile reads 16 rows per
 * 64 multiply-adds, a 4x4 one 8 per 16, but small layers would leave SIMDs idle: ResNet-18's
 * 7x7x512 convolutions make 16 waves of 64x32 for gfx1030's 160 SIMDs). */
void gemm_mma_fma_fit(const target_info *t, gemm_mma *mm, int64_t batch, int64_t M, int64_t N);

/* FMA path: when wm x wn (a --perf-config or database entry) is no multiple of the instruction
 * tile, the largest micro-tile that divides it (else unchanged: the override is infeasible). */
void gemm_mma_fma_divide(const target_info *t, gemm_mma *mm, int wm, int wn);

/* Per-lane position helpers; lane is the lane id inside the wave (i32 value). */
typedef struct gemm_lane {
  LLVMValueRef row;  /* A/B row (m or n) of this lane inside one step tile */
  LLVMValueRef kofs; /* k offset of element 0 of this lane */
} gemm_lane;
gemm_lane gemm_mma_lane(cg_builder *cb, const gemm_mma *mm, LLVMValueRef lane, bool is_b);
/* Set mm->pack for K tile bk: as many k steps per 16-byte LDS read as bk allows (MFMA only). */
void gemm_mma_set_pack(gemm_mma *mm, int bk);
/* Row and column (inside the step tile) of accumulator e of this lane. */
void gemm_mma_acc_pos(cg_builder *cb, const gemm_mma *mm, LLVMValueRef lane, int e,
                      LLVMValueRef *row, LLVMValueRef *col);
/* WMMA, a step's results fed back as a later step's k (attention's P, gemm_mma.c): slot s
 * (0..15) of k holds accumulator s % nacc of half-wave s / nacc, whose row is
 * gemm_mma_acc_row(half, e). gemm_mma_feed: element i of a lane's operand is accumulator *e of
 * the lane of half-wave `return` in the same column, or of the lane itself (-1); gemm_mma_slot:
 * the slot of accumulator row `row` (i32). */
int gemm_mma_acc_row(const gemm_mma *mm, int half, int e);
int gemm_mma_feed(const gemm_mma *mm, int i, int *e);
LLVMValueRef gemm_mma_acc_slot(cg_builder *cb, const gemm_mma *mm, LLVMValueRef row);
/* Accumulator vector type and its zero. */
LLVMTypeRef gemm_mma_acc_type(cg_builder *cb, const gemm_mma *mm);
/* D = A*B + C for one step; a/b hold kl elements each as <kl x mem type> (bf16 as i16). */
LLVMValueRef gemm_mma_step(cg_builder *cb, const gemm_mma *mm, LLVMValueRef a, LLVMValueRef b,
                           LLVMValueRef c);
/* Keep the matrix steps that produced acc[0..n) where they are (before the epilogue's guards:
 * a matrix instruction runs with every lane on); WMMA only (gemm_mma.c says why). */
void gemm_mma_keep(cg_builder *cb, const gemm_mma *mm, LLVMValueRef *acc, int n);
/* The same for any matrix instruction's results acc[0..n) (VGPRs): gfx950's block-scaled MFMA
 * is sunk into a guarded store's branch like the WMMA (kernel_mxgemm.c). */
void gemm_keep_in_block(cg_builder *cb, LLVMValueRef *acc, int n);

/* One slot of the main loop's schedule (MFMA only; sched.group.barrier, GEMM.md §1.6): nwrite
 * LDS writes, nvmem global loads and nread LDS reads, then nmma MFMAs. A sequence of slots is the
 * order the scheduler follows inside one scheduling region (kernel_gemm.c schedule_half). */
/* The single-tile loop's order (gfx908's wave tiles that fill its AGPRs, kernel_gemm.c
 * kloop_simple): the fragment reads, the `first` MFMAs that consume them, the global loads of the
 * next tile, the other MFMAs, and the LDS writes spread over the last quarter of them. */
void gemm_mma_pipeline(cg_builder *cb, const gemm_mma *mm, int nvmem, int nread, int nmma, int first,
                       int nwrite);
void gemm_mma_slot(cg_builder *cb, const gemm_mma *mm, int nwrite, int nvmem, int nread, int nmma);
/* Whether the MFMA K loop of wave tile wm x wn is the software-pipelined two-tile loop
 * (kernel_gemm.c kloop_mfma) rather than the single-tile loop (kloop_simple); tuning.c's
 * estimate asks the same. */
bool gemm_mma_pipelined(const target_info *t, const gemm_mma *mm, int wm, int wn);

/* ---------------------------------------------------------------- tiles (gemm_tiles.c) */
typedef struct gemm_params {
  int bm, bn, bk;  /* work-group tile */
  int wm, wn;      /* wave tile (multiples of the instruction tile) */
  int shape;       /* requested instruction shape (32, 16) or 0 */
  bool fma;        /* force the FMA path */
  int va, vb;      /* global vector width (elements) of A and B staging */
  int kernel;      /* GEMM_KERNEL_*: what a perf-config asked for (tuning.c decides) */
  int kwaves;      /* > 0: the skinny-GEMM kernel (kernel_gemv.c) with this many waves over K;
                    * bm = M, bn = columns per work-group, bk = K elements per wave step,
                    * vb = B elements per 16-byte load */
  int nb;          /* B tiles staged per K step (2: the dual-B GEMM), 0 or 1: one */
  int kl;          /* skinny kernel, [K][N] B: a wave's lanes in kl groups on different k rows,
                    * each group a row piece of bn columns (the sliced form: narrow column
                    * blocks, all of K in each work-group); 0 or 1: every lane on one row */
  int resident;    /* bytes of one A row kept in LDS for all of K (gemm_problem.a_resident) */
} gemm_params;
enum { GEMM_KERNEL_ANY, GEMM_KERNEL_TILE, GEMM_KERNEL_GEMV };

/* Problem summary that drives the heuristic. */
typedef struct gemm_problem {
  int64_t batch, m, n, k;
  elem_type in;
  bool zero_points;      /* a non-zero zero point: FMA path */
  bool acc64;            /* an integer result wider than 32 bits: i64 accumulators, FMA path */
  int64_t a_contig, b_contig; /* length of the contiguous run along the staged dimension */
  bool b_kcontig;        /* B is [n][k] (weights) rather than [k][n] (matmul) */
  int64_t k_run;         /* convolution run gather: K is tap rows of k_run elements (a power of
                          * two); bk must be a multiple and va, vb the padded pixel (a_contig) */
  const char *op;        /* "matmul", "fully_connected", "conv2d", ...: part of the key */
  int nb;                /* B operands sharing A in one tile: 2 for the dual-B GEMM (two
                          * accumulator sets, two B tiles in LDS; key ":dual"), else 0 or 1 */
  int a_resident;        /* > 0: a row-norm prologue computes the tile's A rows, all of K, into
                          * LDS (this many bytes per row) before the loop (key ":normA") */
} gemm_problem;

/* Whether problem pb must take the FMA path whatever the target has: non-zero zero points, or
 * i64 accumulators (the matrix instructions sum in i32). */
static inline bool gemm_problem_fma_only(const gemm_problem *pb) { return pb->zero_points || pb->acc64; }

/* Default parameters for a problem on target t, then overridden by perf_config (may be NULL).
 * false + a message in err if the override is malformed or infeasible. */
bool gemm_params_choose(const target_info *t, const gemm_problem *pb, const char *perf_config,
                        gemm_params *out, gemm_mma *mma, char *err, size_t errsize);
/* Is s a well-formed perf-config (keys and values, not feasibility)? false + message. */
bool gemm_config_check(const char *s, char *err, size_t errsize);
/* The problem key of the tuning database and the manifest ("matmul:2x64x80x96:f16:a96:b80n":
 * op, batch x M x N x K, operand type, contiguous runs of A and B, B layout, ":zp", ":acc64"). */
void gemm_problem_key(const gemm_problem *pb, char *buf, size_t size);

/* kernel_gemm.c: the GEMM problem of a GEMM-family anchor op; false when it has no GEMM kernel. */
bool cg_gemm_problem(const target_info *t, const op *anchor, gemm_problem *pb);
/* ... as kernel k computes it (an im2col GEMM, role KR_COLS: the problem over its workspace
 * matrix); false for kernels without a GEMM (im2col pass, split-K combine). */
bool cg_gemm_kernel_problem(const target_info *t, const part_kernel *k, gemm_problem *pb);
/* tuning.c: the smallest power of two >= x (1 for x <= 1). */
int64_t cg_pow2_at_least(int64_t x);
/* tuning.c: whether convolution problem `runs` (the run gather of `plain`, gemm_conv_runs) is
 * estimated faster on t than `plain`; TOSAC_CONV_RUNS=0/1 forces it off / on. */
bool cg_tune_runs(const target_info *t, const gemm_problem *plain, const gemm_problem *runs);

/* ---------------------------------------------------------------- tuning.c */
/* The tiles of a GEMM problem on t: perf_config if set (source "perf-config"; an infeasible
 * one is an error), else a matching entry of db (source "db"; an infeasible one puts a message in
 * warn and falls back), else the heuristic (source "heuristic"). perf_config and db both NULL:
 * those given to cg_tuning_set on this thread. */
bool cg_tune_gemm(const target_info *t, const gemm_problem *pb, const char *perf_config,
                  const cg_tuning_db *db, gemm_params *out, gemm_mma *mm, const char **source,
                  char *warn, size_t wsize, char *err, size_t errsize);

/* The cheaper form of tile P split S ways on t: the combine kernel, or the last work-group of
 * each tile reducing (SPLITK_LASTWG: no second launch; only where the zeroed workspace is
 * allowed, never for the skinny kernel); TOSAC_SPLIT_K_FORM forces one. */
cg_splitk_form cg_tune_splitk_form(const target_info *t, const gemm_problem *pb, const gemm_params *P,
                                   int64_t S);

/* Every tile of tosac-tune's search range for pb on t, with its instruction m0: each matrix
 * instruction shape of the target (32- and 16-wide; the FMA path's one), wave tiles of 1, 2 or 4
 * instruction tiles per side (up to 128, at most 128 accumulators per lane), 1, 2 or 4 waves per
 * side (2 to 8 in all), K tiles of 32 and 64 bytes, no tile beyond the problem. The heuristic
 * scores a subset of them; tosac-tune compiles them all. */
typedef void (*cg_tile_fn)(void *ctx, const gemm_mma *m0, const gemm_params *c);
void cg_tune_each_tile(const target_info *t, const gemm_problem *pb, cg_tile_fn fn, void *ctx);

/* The heuristic's perf-config for pb on t ("bm=..,bn=..,bk=..,wm=..,wn=..,mma=.."), chosen by the
 * analytic estimate of tuning.c; false where gemm_tiles.c's defaults apply as they are (non-MFMA
 * targets, small problems, the large-square 256x256 tile). */
bool cg_tune_heuristic(const target_info *t, const gemm_problem *pb, char *cfg, size_t size);
/* The load floor of the GEMM cost models, one definition for the tuning estimate below and
 * tosac-tune's issue model (tosac-bundle quality without llvm-mca): the cycles a K tile's global
 * loads take to arrive when the loop's other work does not cover them (target table:
 * barrier_drains_memory adds the wait every s_barrier makes for them on gfx908, in work-groups
 * of more than one wave: LLVM turns the barrier of a one-wave group into a wave barrier). */
double cg_tune_load_wait_cycles(const target_info *t, int waves);
/* Cycles of one wave's GEMM kernel under that floor, as the quality model scores kernels: with a
 * K loop (tiles > 0), `iters` steady-state iterations of `iter` cycles, each at least `tiles` K
 * tiles x the floor (the prologue is not scored, as llvm-mca's loop figures do not); without
 * one (tiles 0), the whole kernel: `outside` + `iter` issue cycles + CG_TUNE_KERNEL_WAITS
 * exposed load waits (its loads, the LDS round trip, the epilogue's loads and stores), which
 * llvm-mca sees when it scores the whole kernel (`mca-all`). */
#define CG_TUNE_KERNEL_WAITS 3
double cg_tune_kernel_cycles(const target_info *t, int waves, double outside, double iter,
                             double tiles, double iters);
/* Little's law, the memory bound of every kernel model: cycles to move `bytes` with `inflight`
 * bytes outstanding, at most the bandwidth, at least one memory latency (the target table's
 * mem_latency_ns: no kernel has more in flight than it moves); inflight <= 0: all of them. */
double cg_tune_memory_cycles(const target_info *t, double bytes, double inflight);
/* A skinny GEMM's row-norm prologue (kernel_rownorm.c): `rows` rows of `row` elements and
 * `reductions` statistics each, by `threads` work-items; its cycles, and what it adds to the
 * kernel (beyond the memory latency of the B block loaded before it). */
double cg_tune_norm_prologue_cycles(const target_info *t, int64_t rows, int64_t row, int reductions, int threads);
/* A tile GEMM's row-norm prologue (pb->a_resident), in cycles of the whole kernel. */
double cg_tune_norm_tile_cycles(const target_info *t, const gemm_problem *pb, const gemm_params *P);
double cg_tune_norm_prologue_extra_cycles(const target_info *t, int64_t rows, int64_t row, int reductions,
                                          int threads);
/* One more dependent kernel launch: the target table's launch_ns (its dispatch and wave start),
 * in cycles and microseconds. Every choice between kernel counts (split-K's combine, split-KV's,
 * im2col's pass, per-phase kernels) and tosac-bundle quality's rows and --model sum price a
 * launch with it. */
double cg_tune_launch_cycles(const target_info *t);
double cg_tune_launch_us(const target_info *t);
/* What a split of S f32/i32 partials of `outputs` elements each adds after they are written, in
 * cycles: the combine kernel (a launch, then the partials read and the result written) or the
 * last work-group's reduction (SPLITK_LASTWG: its fence and atomic, then the partials read with
 * `lanes` bytes in flight per partial: cg_tune_lastwg_lanes). The tuning estimates and the
 * quality report's rows both add it. */
double cg_tune_reduce_cycles(const target_info *t, cg_splitk_form form, double outputs, int64_t S,
                             double lanes);
double cg_tune_lastwg_lanes(double tiles, double threads, int64_t n, int bn);
/* The skinny kernel's time without its split's reduction, one model for the tuning layer (its
 * estimates of the kernel) and tosac-bundle quality (the compiled kernel's loop, loads and
 * occupancy): the larger of the bytes at the rate Little's law allows (the resident work-groups'
 * waves that have a block, one block of B loads per lane each, at most 2 work-groups per CU) and
 * the blocks' issue time on the SIMDs the grid occupies. *mem_cycles, *issue_cycles: the two. */
typedef struct cg_gemv_cost {
  double groups;        /* work-groups without split-K: batch x column blocks */
  double blocks;        /* K blocks (bk) of the whole K */
  int kwaves, split;    /* waves per work-group, split-K factor (1: none) */
  double lane_bytes;    /* B bytes one lane loads per block before it uses any */
  double groups_per_cu; /* work-groups a CU holds by registers and LDS */
  double block_issue;   /* one block's vector instructions of one wave */
  double bytes;         /* bytes the kernel moves (its operands, result and partials) */
  double line_extra;    /* what B's reads move into the CUs beyond its bytes, in whole cache
                         * lines (cg_tune_line_extra_bytes): charged to the busy CUs' load rate */
} cg_gemv_cost;
double cg_tune_gemv_cycles(const target_info *t, const cg_gemv_cost *c, double *mem_cycles, double *issue_cycles);
/* What reading `rows` rows of row_bytes in pieces of `piece` bytes moves beyond those bytes, in
 * whole cache lines (the target table's line_bytes): the skinny kernel's B as the CUs load it (a
 * column block narrower than a line still moves lines into its CU; from memory each line comes
 * once, the neighbouring work-groups reading the rest of it at about the same time). */
double cg_tune_line_extra_bytes(const target_info *t, int64_t rows, int64_t row_bytes,
                                int64_t piece);
/* What the same reads fetch from memory beyond those bytes: a piece smaller than a line leaves
 * the rest of its line to the neighbouring work-groups, which sit on other L2 caches where the
 * target deals work-groups across several (l2_parts): each of those fetches the line. */
double cg_tune_line_fetch_extra_bytes(const target_info *t, int64_t rows, int64_t row_bytes,
                                      int64_t piece);
/* The heuristic's estimate of tile P (instruction mm) split S ways, in microseconds
 * (tosac-tune --all prints it next to the model's time, to refit the estimate). */
double cg_tune_estimate_us(const target_info *t, const gemm_problem *pb, const gemm_params *P,
                           const gemm_mma *mm, int split);

/* The plain GEMM over a convolution's im2col workspace (partition/im2col.c, role KR_COLS): A the
 * [M][kpad] patch matrix, B the [N][kpad] padded weights, op "im2col". */
void cg_im2col_problem(const gemm_problem *conv, int64_t kpad, gemm_problem *cols);

/* ---------------------------------------------------------------- kernel_gemv.c */
/* The skinny-GEMM kernel (P->kwaves > 0): B streamed once with 16-byte loads, lanes owning
 * columns, waves splitting K, partial sums added in LDS. kernel_gemm.c declares the kernel and
 * supplies the epilogue of one output element through `store` (split: the split-K chunk index,
 * for the partials' offset). */
typedef bool (*gemv_store_fn)(void *ctx, LLVMValueRef acc, LLVMValueRef batch, LLVMValueRef split,
                              LLVMValueRef m, LLVMValueRef n);
typedef struct gemv_kernel {
  const gemm_problem *pb;
  const gemm_params *P;
  int a_zp, b_zp; /* integer zero points, subtracted before the product */
  int split;      /* K chunks over work-groups (a split-K partial kernel), else 1 */
  LLVMValueRef a_ptr, b_ptr;
  gemv_store_fn store;
  void *ctx;
  /* A computed by the kernel (a row norm, part_kernel.prologue): prologue(ctx, batch) fills
   * a_ptr, an LDS array [M][K] holding this work-group's batch entry, before the loop */
  bool (*prologue)(void *ctx, LLVMValueRef batch);
} gemv_kernel;
/* LDS per work-group for the partial sums: R rows of kwaves x bn accumulators at a time. */
#define GEMV_LDS_BYTES 16384
/* Most loads of B per lane in one block (the block's rows, or vectors along k). */
#define GEMV_MAX_U 32
int gemv_lds_rows(const gemm_params *P, int M);
int gemv_threads(const target_info *t, const gemm_params *P);
int64_t gemv_groups(const gemm_problem *pb, const gemm_params *P); /* without split-K */
void gemv_params_json(const gemm_params *P, char *buf, size_t size);
/* The body of kernel `name` (declared, builder in its entry block) through its last store. */
bool cg_gemv_body(cg_builder *cb, const gemv_kernel *g, const char *name);

/* LDS bytes of the two staging buffers (A and B (both B tiles of a dual-B GEMM), rows padded by
 * 16 bytes). */
int gemm_lds_bytes(const gemm_params *p, const gemm_mma *mm);
/* Bytes of one operand element in LDS (f32 for a widened bf16). */
int gemm_lds_elem_bytes(const gemm_mma *mm);
/* One LDS row of a tile: bk elements and the bank-conflict padding (the row stride). */
int gemm_lds_row_bytes(const gemm_params *p, const gemm_mma *mm);
#define GEMM_LDS_PAD_BYTES 16
/* {"bm":..,...} into buf (<= 128 bytes). */
void gemm_params_json(const gemm_params *p, const gemm_mma *mm, int waves, char *buf, size_t size);

#endif
