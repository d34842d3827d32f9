/* quality.h: "tosac-bundle quality": the static kernel quality report of a bundle's GEMM-family
 * kernels (resources, main-loop matrix share, roofline estimate; docs/bench.md). */
#ifndef TOSAC_BUNDLE_QUALITY_H
#define TOSAC_BUNDLE_QUALITY_H

#include "inspect.h"

#include <cjson/cJSON.h>

typedef struct tb_quality_options {
  bool use_mca;       /* gfx9: llvm-mca-22, else the in-order issue model (deterministic) */
  bool model;         /* --model: the launch graph's time per target against its roofline */
  double mca_timeout; /* seconds per llvm-mca-22 run; a slower run falls back to the issue model */
} tb_quality_options;

/* What the roofline needs to know about one GEMM-family kernel (the manifest's tuning object). */
typedef struct tb_gemm_desc {
  char problem[160], type[16], instr[64];
  long long batch, m, n, k;
  long long k_useful;    /* K of the flops: the run gather's "conv_k" (K padded per tap row), else k */
  int bm, bn, bk, wm, wn, waves, split;
  int mm_m, mm_n, mm_k; /* one instruction's tile */
  bool lastwg;          /* split-K reduced by the last work-group ("split_k_form":"lastwg") */
  bool gemv;            /* the skinny-GEMM kernel ("kernel":"gemv"): bk = K per wave step,
                         * waves split K, rated by the memory model */
  bool im2col;          /* a convolution's im2col pass ("kernel":"im2col"): m x k the conv's GEMM,
                         * rows (m + n) x kpad written, vector_width elements per work-item;
                         * rated by the memory model */
  int kpad, vw;
  int norm_rows, norm_row, norm_reductions; /* a skinny GEMM's row-norm prologue ("norm_rows"...,
                                               kernel_rownorm.c), else 0 */
  int nb;               /* B operands per tile: 2 for the dual-B GEMM ("b_operands"; flops and
                         * matrix instructions per K step of both GEMMs), else 1 */
  int gemms;            /* a grouped GEMM's GEMMs ("gemms": in batch too), else 1 */
  double bytes;         /* the kernel's buffers, each read or written once */
} tb_gemm_desc;
/* From a tuning object (manifest or cg_kernel_info.tuning) and the instruction mnemonic. */
bool tb_gemm_desc_from_json(const cJSON *tuning, const char *instr, double bytes, tb_gemm_desc *d);

typedef struct tb_score {
  char model[24];      /* "mca", "issue", "wmma", "fma", "issue(to)" ...; "-all": no K loop */
  int vgpr, agpr, spills, occupancy, loop_len;
  long long lds;
  double loop_cycles;  /* one steady-state main-loop iteration, real cycles */
  double share;        /* matrix-pipe (FMA-slot) share of it, 0..1 */
  double est_us;       /* estimated kernel time; 0 when unknown */
  double roofline;     /* ideal time / estimated time, 0..1 */
  bool mem_bound;      /* the ideal time is the memory term */
  double inflight_kib; /* skinny kernel: bytes in flight per CU (Little's law), KiB */
  double ceiling;      /* the best roofline share any kernel can reach for the problem, 0..1 */
  char ceiling_limit[8]; /* what limits it: "lat" (one memory latency), "grid" (too few 16x16
                          * output tiles for the SIMDs), "-" (nothing: 100 %) */
} tb_score;

/* LLVM's AMDGPU disassembler, once per process before tb_kernel_score. */
void tb_quality_init(void);
/* Score kernel `name` of code object co for target t; false + message if unreadable. */
bool tb_kernel_score(const target_info *t, const uint8_t *co, size_t co_size, const char *name,
                     const tb_gemm_desc *d, const tb_quality_options *o, tb_score *out, char *err,
                     size_t errsize);

/* One line per distinct GEMM-family kernel and target of the manifest; returns the number of
 * problems (targets missing from the bundle, unreadable kernels). */
int tb_quality(const tb_bundle *b, const char *manifest_text, const tb_quality_options *o,
               FILE *out);

/* ---------------------------------------------------------------- shared with families.c */

typedef struct tb_insn {
  size_t pc;
  char text[160]; /* packed VOP3P operands with op_sel and neg modifiers exceed 96 characters */
} tb_insn;

/* One steady-state main-loop iteration by the target's model. */
typedef struct tb_loop {
  char model[16];     /* "mca", "wmma", "fma", "issue", "issue(to)" (llvm-mca timed out),
                       * "issue(f)" (it failed); "-all" when the K loop was fully unrolled */
  double loop_cycles; /* one steady-state iteration */
  double share;       /* matrix-pipe (FMA-slot) share of the iteration, 0..1 */
  double mma_cycles;  /* matrix (FMA) cycles the iteration's instructions need (target table) */
  int loop_len, loop_mma;
} tb_loop;

/* File range of function `name` in a code object. */
bool tb_find_function(const uint8_t *d, size_t size, const char *name, size_t *off, size_t *len);
/* Disassembles [off, off+len) for cpu; *n instructions (malloc). */
tb_insn *tb_disassemble(const uint8_t *d, size_t off, size_t len, const char *cpu, int *n);
bool tb_is_matrix(const char *s); /* MFMA, WMMA, SMFMAC */
bool tb_is_fma(const char *s);    /* FMA-path work: multiply-adds, dot products */
bool tb_is_free(const char *s);   /* waits, barriers, branches, priority hints, nops */
bool tb_branch_target(const tb_insn *x, size_t *target);
/* Of the backward branches, the one whose body has the most work (the sum of work_of over its
 * instructions; ties: the first, or the longer body); [*b, *e] inclusive. Returns that work, -1
 * when there is no loop. */
int tb_best_loop(const tb_insn *v, int n, int (*work_of)(const char *), bool longer_on_ties, int *b,
                 int *e);
/* The backward branch whose body holds the most matrix (fma: multiply-add) instructions. */
bool tb_main_loop(const tb_insn *v, int n, bool fma, int *b, int *e);
int tb_vmem_load_bytes(const char *s); /* bytes one lane loads from memory (0: no load) */
int tb_matrix_cycles(const target_info *t, const char *s);
/* The loop [b, e] by llvm-mca-22 (gfx9, o->use_mca), the issue model (gfx9), or the static WMMA
 * or FMA-slot model. */
void tb_loop_model(const target_info *t, const tb_insn *v, int b, int e, bool fma,
                   const tb_quality_options *o, tb_loop *q);
int tb_occupancy(const target_info *t, const cg_kernel_info *m, int waves_wg);
/* Bytes of the buffers a kernel's arguments name, each once. */
double tb_kernel_bytes(const cJSON *target, const cJSON *k);
double tb_peak_per_cu_clk(const target_info *t, const char *mnemonic, const char *type);
int tb_jint(const cJSON *o, const char *k, int dflt);
const char *tb_jstr(const cJSON *o, const char *k);

/* families.c: a row per distinct kernel of the families besides GEMM, convolution, the skinny
 * GEMM and im2col (attention, rownorm, elementwise, reduction, pool, data, fft, fill, combines)
 * and per copy or fill launch, for target t; and the launch graph's model (--model). */
typedef struct tb_cost {
  char family[16];
  double est_us, ideal_us; /* the estimate and the roofline, max(bytes/bandwidth, flops/peak) */
} tb_cost;
void tb_family_header(FILE *out);
/* The row of kernel k (not a GEMM-family kernel), printed when out; its cost in *c. */
bool tb_family_row(const tb_quality_options *o, const target_info *t, const cJSON *target,
                   const cJSON *k, const uint8_t *co, size_t co_size, FILE *out, tb_cost *c);
/* The row of a copy or fill launch node. */
void tb_node_row(const target_info *t, const cJSON *node, FILE *out, tb_cost *c);

#endif
