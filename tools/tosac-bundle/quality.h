/* quality.h: "tosac-bundle quality": the static kernel quality report of a bundle's GEMM-family
 * kernels (resources, main-loop matrix share, roofline estimate; docs/bench.md). */
#ifndef TOSAC_BUNDLE_QUALITY_H
#define TOSAC_BUNDLE_QUALITY_H

#include "inspect.h"

#include <cjson/cJSON.h>

typedef struct tb_quality_options {
  bool use_mca;       /* gfx9: llvm-mca-22, else the in-order issue model (deterministic) */
  double mca_timeout; /* seconds per llvm-mca-22 run; a slower run falls back to the issue model */
} tb_quality_options;

/* What the roofline needs to know about one GEMM-family kernel (the manifest's tuning object). */
typedef struct tb_gemm_desc {
  char problem[160], type[16], instr[64];
  long long batch, m, n, k;
  long long k_useful;    /* K of the flops: the run gather's "conv_k" (K padded per tap row), else k */
  int bm, bn, bk, wm, wn, waves, split;
  int mm_m, mm_n, mm_k; /* one instruction's tile */
  bool gemv;            /* the skinny-GEMM kernel ("kernel":"gemv"): bk = K per wave step,
                         * waves split K, rated by the memory model */
  bool im2col;          /* a convolution's im2col pass ("kernel":"im2col"): m x k the conv's GEMM,
                         * rows (m + n) x kpad written, vector_width elements per work-item;
                         * rated by the memory model */
  int kpad, vw;
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

#endif
