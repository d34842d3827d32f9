/* families.c: tosac-bundle quality's rows for the kernel families besides the GEMM family
 * (attention, row norms and softmax, elementwise, reductions, pooling, data movement, FFT,
 * fills, split-K and split-KV combines) and for copy and fill launches. Models and assumptions:
 * docs/quality.md.
 *
 * Attention: flops at the matrix peak (the FMA peak on the FMA path) against the main loop by
 * the GEMM report's loop model, as many iterations as the flops need. Everything else: the
 * memory roofline, the kernel's buffers once at the bandwidth, against the larger of the
 * vector-instruction issue time and the memory time Little's law allows. */
#include "quality.h"

#include "codeobj.h"
#include "codegen/gemm.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static bool starts(const char *s, const char *p) { return strncmp(s, p, strlen(p)) == 0; }

/* An instruction of a wave's vector stream (scalar ones, waits and branches issue elsewhere). */
static bool is_vector(const char *s) {
  return starts(s, "v_") || starts(s, "global_") || starts(s, "buffer_") || starts(s, "flat_") ||
         starts(s, "ds_");
}

static bool is_exp(const char *s) { return starts(s, "v_exp"); }

static double bytes_per_clk(const target_info *t) { return (double)t->mem_gbps * 1e3 / t->clock_mhz; }

/* Cycles one vector instruction holds a SIMD's issue: wave / VALU lanes per SIMD per clock. */
static double insn_cycles(const target_info *t) {
  double lanes = t->valu_flops_per_cu_clk / 2.0 / t->simds_per_cu;
  return t->wave_size / lanes < 1 ? 1 : t->wave_size / lanes;
}

static double numel(const cJSON *shape) {
  double n = 1;
  const cJSON *d;
  cJSON_ArrayForEach(d, shape) n *= cJSON_IsNumber(d) ? d->valuedouble : 1;
  return n;
}

static const cJSON *buffer_of(const cJSON *target, int id) {
  const cJSON *b;
  cJSON_ArrayForEach(b, cJSON_GetObjectItemCaseSensitive(target, "buffers")) if (tb_jint(b, "id", -2) == id) return b;
  return NULL;
}

/* The kernel's largest buffer (its iteration space, roughly), and the bytes it reads. */
static const cJSON *largest_buffer(const cJSON *target, const cJSON *k, double *read_bytes) {
  const cJSON *a, *big = NULL;
  *read_bytes = 0;
  cJSON_ArrayForEach(a, cJSON_GetObjectItemCaseSensitive(k, "args")) {
    const cJSON *b = buffer_of(target, tb_jint(a, "buffer", -1));
    if (!b)
      continue;
    double bytes = tb_jint(b, "bytes", 0);
    if (strcmp(tb_jstr(a, "access"), "write_only") != 0)
      *read_bytes += bytes;
    if (!big || bytes > tb_jint(big, "bytes", 0))
      big = b;
  }
  return big;
}

/* The family a row names: the manifest's, except combines (split-K, split-KV, partial
 * reductions), which get their own. */
static void family_name(const cJSON *k, char *out, size_t size) {
  const char *f = tb_jstr(k, "family");
  const cJSON *tun = cJSON_GetObjectItemCaseSensitive(k, "tuning");
  const char *name = tb_jstr(k, "name");
  size_t n = strlen(name);
  bool combine = (n > 8 && !strcmp(name + n - 8, "_combine")) ||
                 (!strcmp(f, "gemm") && cJSON_GetObjectItemCaseSensitive(tun, "split_k")) ||
                 (!strcmp(f, "attention") && !cJSON_GetObjectItemCaseSensitive(tun, "block_rows"));
  snprintf(out, size, "%s", combine ? "combine" : f);
}

void tb_family_header(FILE *out) {
  fprintf(out, "%-8s %-11s %-34s %-28s %-5s %4s %4s %6s %3s %5s %4s %7s %-10s %5s %4s %5s %8s  %-9s %s\n",
          "target", "family", "kernel", "problem", "type", "vgpr", "agpr", "lds", "w/s", "spill", "loop",
          "cycles", "model", "mma%", "exp", "valu", "est_us", "roofline", "limit");
}

typedef struct fam_row {
  char problem[64], type[16], model[16], limit[8], share[8];
  int loop_len, nexp, nvalu;
  double loop_cycles, est_cycles, ideal_cycles;
  bool mma_roof; /* the roofline is the matrix (FMA) peak, not the memory */
} fam_row;

/* The loop of a memory kernel: of the backward branches, the one whose body loads the most
 * bytes per lane (ties: the longer body); [*b, *e]. false: none. */
static bool memory_loop(const tb_insn *v, int n, int *b, int *e) {
  return tb_best_loop(v, n, tb_vmem_load_bytes, true, b, e) >= 0;
}

/* Memory model: waves = the grid's; the loop (if any) runs as many wave-iterations as reading
 * the kernel's input bytes once takes with its per-lane loads (at least one per wave); the
 * issue time is every wave's straight-line vector instructions plus those iterations' over the
 * SIMDs the grid fills; the memory time is the kernel's buffers at the rate Little's law allows
 * with one iteration's loads (no loop: the whole kernel's) in flight per resident wave. */
static void memory_model(const target_info *t, const tb_insn *v, int n, const cJSON *target,
                         const cJSON *k, int occupancy, fam_row *r) {
  const cJSON *grid = cJSON_GetObjectItemCaseSensitive(k, "grid");
  double groups = numel(grid), block = tb_jint(cJSON_GetObjectItemCaseSensitive(k, "tuning"), "block_size", 1);
  double waves = groups * ceil(block / t->wave_size), simds = (double)t->cus * t->simds_per_cu;
  int b = 0, e = -1;
  bool loop = v && memory_loop(v, n, &b, &e);
  int straight = 0, in_loop = 0, lane_loop = 0, lane_all = 0;
  for (int j = 0; v && j < n; j++) {
    bool inside = loop && j >= b && j <= e;
    int lb = tb_vmem_load_bytes(v[j].text);
    lane_all += lb;
    if (inside)
      lane_loop += lb, in_loop += is_vector(v[j].text);
    else
      straight += is_vector(v[j].text);
    r->nexp += inside && is_exp(v[j].text);
    r->nvalu += inside && starts(v[j].text, "v_");
  }
  double read_bytes, moved = tb_kernel_bytes(target, k);
  largest_buffer(target, k, &read_bytes);
  double iters = 0;
  if (loop) {
    iters = lane_loop > 0 ? read_bytes / ((double)lane_loop * t->wave_size) : waves;
    iters = fmax(iters, waves);
    r->loop_len = e - b + 1;
    r->loop_cycles = in_loop * insn_cycles(t);
  }
  double used = fmin(waves, simds);
  double t_issue = used > 0 ? (waves * straight + iters * in_loop) * insn_cycles(t) / used : 0;
  double resident = fmin(waves, simds * (occupancy > 0 ? occupancy : 1));
  double inflight = resident * (loop && lane_loop > 0 ? lane_loop : lane_all) * t->wave_size;
  double bpc = bytes_per_clk(t);
  double t_mem = cg_tune_memory_cycles(t, moved, inflight);
  r->est_cycles = fmax(t_issue, t_mem);
  r->ideal_cycles = moved / bpc;
  snprintf(r->model, sizeof r->model, "%s", loop ? "mem-loop" : "mem");
  snprintf(r->limit, sizeof r->limit, "%s",
           t_issue >= t_mem ? "issue" : t_mem > moved / bpc * 1.0001 ? "lat" : "hbm");
  snprintf(r->share, sizeof r->share, "-");
}

/* Flops of one matrix instruction (m x n x k multiply-adds) by the target's table. */
static double matrix_flops(const target_info *t, const char *s) {
  for (int i = 0; i < target_matrix_count; i++)
    if (!strcmp(target_matrix_table[i].target, t->name) && starts(s, target_matrix_table[i].mnemonic))
      return 2.0 * target_matrix_table[i].m * target_matrix_table[i].n * target_matrix_table[i].k;
  return 0;
}

/* Flops one lane does with a vector instruction of the FMA path: a multiply-add 2, a packed one
 * or a two-way dot 4, a four-way dot 8, a lone multiply, add or subtract 1 (LLVM may leave the
 * dot products as multiplies and adds; they do the same work at half the rate). */
static double valu_flops(const char *s) {
  if (!starts(s, "v_") || tb_is_matrix(s))
    return 0;
  const char *op = s + 2;
  if (starts(op, "dot4") || starts(op, "dot8"))
    return 8;
  if (starts(op, "dot2") || starts(op, "pk_fma"))
    return 4;
  if (tb_is_fma(s))
    return 2;
  if (starts(op, "pk_mul_f") || starts(op, "pk_add_f"))
    return 2;
  return starts(op, "mul_f") || starts(op, "add_f") || starts(op, "sub_f") ? 1 : 0;
}

/* Attention (tuning "problem": attention:BxSxLxDxDv:type): flops 2 B S L (D + Dv) at the
 * target's best peak for the type (its fastest matrix instruction, else the FMA path's); the
 * main loop (most matrix, or FMA, instructions) by the loop model, each iteration doing its matrix instructions' flops (FMA path: its vector floating-point
 * operations', valu_flops, so the softmax's make the estimate optimistic by their share),
 * the iterations spread over the SIMDs the grid fills; never faster than its buffers at the rate
 * Little's law allows. */
static bool attention_model(const tb_quality_options *o, const target_info *t, const tb_insn *v,
                            int n, const cJSON *target, const cJSON *k, int occupancy, fam_row *r) {
  const cJSON *tun = cJSON_GetObjectItemCaseSensitive(k, "tuning");
  long long B, S, L, D, Dv;
  char type[16];
  if (sscanf(tb_jstr(tun, "problem"), "attention:%lldx%lldx%lldx%lldx%lld:%15s", &B, &S, &L, &D, &Dv, type) != 6)
    return false;
  snprintf(r->problem, sizeof r->problem, "%lldx%lldx%lldx%lldx%lld", B, S, L, D, Dv);
  snprintf(r->type, sizeof r->type, "%s", type); /* Q's and K's, not the largest buffer's */
  const char *instr = tb_jstr(k, "matrix_instruction");
  bool fma = !strcmp(instr, "fma") || !instr[0];
  int b = 0, e = n - 1;
  if (!v || n <= 0)
    return false;
  /* no loop (every key in one tile): the whole kernel is the one iteration */
  bool whole = !tb_main_loop(v, n, fma, &b, &e);
  if (whole)
    b = 0, e = n - 1;
  tb_loop q;
  tb_loop_model(t, v, b, e, fma, o, &q);
  if (whole)
    strcat(q.model, "-all");
  double iter_flops = 0;
  for (int j = b; j <= e; j++) {
    iter_flops += fma ? t->wave_size * valu_flops(v[j].text) : matrix_flops(t, v[j].text);
    r->nexp += is_exp(v[j].text);
    r->nvalu += starts(v[j].text, "v_") && !tb_is_matrix(v[j].text);
  }
  double flops = 2.0 * B * S * L * (D + Dv);
  double groups = numel(cJSON_GetObjectItemCaseSensitive(k, "grid"));
  double block = tb_jint(tun, "block_size", 1), waves = groups * ceil(block / t->wave_size);
  double simds = (double)t->cus * t->simds_per_cu, used = fmin(waves, simds);
  double wave_iters = iter_flops > 0 ? flops / iter_flops : 0;
  double cycles = used > 0 ? ceil(wave_iters / used) * q.loop_cycles : 0;
  int lane_bytes = 0;
  for (int j = b; j <= e; j++)
    lane_bytes += tb_vmem_load_bytes(v[j].text);
  double moved = tb_kernel_bytes(target, k), bpc = bytes_per_clk(t);
  double resident = fmin(waves, simds * (occupancy > 0 ? occupancy : 1));
  double t_mem = cg_tune_memory_cycles(t, moved, lane_bytes > 0 ? resident * lane_bytes * t->wave_size : 0);
  /* the roof is the target's best peak for the type: a matrix instruction where it has one,
   * even when this kernel takes the FMA path */
  double peak = tb_peak_per_cu_clk(t, fma ? "fma" : instr, type);
  elem_type et = elem_type_parse(type, strlen(type));
  for (int i = 0; i < target_matrix_count; i++) {
    const target_matrix *x = &target_matrix_table[i];
    if (!strcmp(x->target, t->name) && x->in == et)
      peak = fmax(peak, tb_peak_per_cu_clk(t, x->mnemonic, type));
  }
  double t_mma = flops / (peak * t->cus);
  r->est_cycles = fmax(cycles, t_mem);
  /* a split-KV decode kernel merging in its last work-group (split_kv_form lastwg): its release
   * fence, the counter's atomic and the loads of the other partials are each a round trip to the
   * coherent cache, and the partials are read once more (the combine's traffic, no launch) */
  if (!strcmp(tb_jstr(tun, "split_kv_form"), "lastwg")) {
    double parts = (double)tb_jint(tun, "split_kv", 1) * B * S * (Dv + 2) * 4.0;
    r->est_cycles += 3.0 * t->cache_latency_ns * t->clock_mhz / 1e3 + parts / bpc;
  }
  r->ideal_cycles = fmax(t_mma, moved / bpc);
  r->mma_roof = t_mma >= moved / bpc;
  r->loop_len = q.loop_len;
  r->loop_cycles = q.loop_cycles;
  snprintf(r->model, sizeof r->model, "%s", q.model);
  snprintf(r->share, sizeof r->share, "%.1f", 100.0 * q.share);
  /* what bounds the estimate: memory, the matrix pipe (its share of the loop at least half),
   * else the loop's other instructions (the softmax's VALU and exp work, LDS traffic) */
  snprintf(r->limit, sizeof r->limit, "%s",
           t_mem > cycles ? (t_mem > moved / bpc * 1.0001 ? "lat" : "hbm") : q.share >= 0.5 ? (fma ? "fma" : "mma") : "valu");
  return true;
}

static void print_row(const target_info *t, const char *family, const char *kernel, const cJSON *k,
                      const fam_row *r, const cg_kernel_info *md, int occupancy, FILE *out) {
  char est[24] = "-", roof[24] = "-", cyc[24] = "-", loop[16] = "-";
  if (r->est_cycles > 0) {
    snprintf(est, sizeof est, "%.2f", r->est_cycles / t->clock_mhz);
    snprintf(roof, sizeof roof, "%.0f%% %s", 100.0 * r->ideal_cycles / r->est_cycles, r->mma_roof ? "mma" : "mem");
  }
  if (r->loop_len > 0) {
    snprintf(loop, sizeof loop, "%d", r->loop_len);
    snprintf(cyc, sizeof cyc, "%.1f", r->loop_cycles);
  }
  fprintf(out, "%-8s %-11s %-34s %-28s %-5s %4d %4d %6d %3d %5d %4s %7s %-10s %5s %4d %5d %8s  %-9s %s\n", t->name,
          family, kernel, r->problem, r->type, md ? md->vgpr : 0, md ? md->agpr : 0, md ? (int)md->lds_bytes : 0,
          occupancy, md ? md->vgpr_spill + md->sgpr_spill : 0, loop, cyc, r->model, r->share, r->nexp, r->nvalu,
          est, roof, r->limit);
  (void)k;
}

bool tb_family_row(const tb_quality_options *o, const target_info *t, const cJSON *target,
                   const cJSON *k, const uint8_t *co, size_t co_size, FILE *out, tb_cost *c) {
  const char *name = tb_jstr(k, "name");
  char family[16];
  family_name(k, family, sizeof family);
  memset(c, 0, sizeof *c);
  snprintf(c->family, sizeof c->family, "%s", family);
  cg_kernel_info md;
  char err[300];
  if (!tb_kernel_meta(co, co_size, name, &md, err, sizeof err)) {
    if (out)
      fprintf(out, "%-8s %-11s %-34s error: %s\n", t->name, family, name, err);
    return false;
  }
  int block = tb_jint(cJSON_GetObjectItemCaseSensitive(k, "tuning"), "block_size", t->wave_size);
  int occ = tb_occupancy(t, &md, (block + t->wave_size - 1) / t->wave_size);
  size_t off, len;
  int n = 0;
  tb_insn *v = tb_find_function(co, co_size, name, &off, &len) ? tb_disassemble(co, off, len, t->name, &n) : NULL;
  fam_row r = {0};
  double read_bytes;
  const cJSON *big = largest_buffer(target, k, &read_bytes);
  snprintf(r.type, sizeof r.type, "%s", big ? tb_jstr(big, "element_type") : "-");
  if (big) { /* the largest buffer's shape */
    const cJSON *d;
    size_t at = 0;
    cJSON_ArrayForEach(d, cJSON_GetObjectItemCaseSensitive(big, "shape")) {
      if (at < sizeof r.problem - 24)
        at += (size_t)snprintf(r.problem + at, sizeof r.problem - at, "%s%lld", at ? "x" : "", (long long)d->valuedouble);
    }
    if (!at)
      snprintf(r.problem, sizeof r.problem, "scalar");
  }
  bool attention = !strcmp(family, "attention") && attention_model(o, t, v, n, target, k, occ, &r);
  if (!attention)
    memory_model(t, v, n, target, k, occ, &r);
  free(v);
  if (out)
    print_row(t, family, name, k, &r, &md, occ, out);
  tb_kernel_meta_free(&md);
  c->est_us = r.est_cycles / t->clock_mhz;
  c->ideal_us = r.ideal_cycles / t->clock_mhz;
  return true;
}

/* A copy reads and writes its bytes, a fill writes them; the runtime's engines move them at the
 * bandwidth at best, one memory latency at least (all of them in flight). */
void tb_node_row(const target_info *t, const cJSON *node, FILE *out, tb_cost *c) {
  bool copy = !strcmp(tb_jstr(node, "kind"), "copy");
  double bytes = cJSON_GetNumberValue(cJSON_GetObjectItemCaseSensitive(node, "bytes"));
  bytes = isnan(bytes) ? 0 : bytes * (copy ? 2 : 1);
  fam_row r = {.type = "-"};
  snprintf(r.problem, sizeof r.problem, "%.0f bytes", bytes);
  r.est_cycles = cg_tune_memory_cycles(t, bytes, 0);
  r.ideal_cycles = bytes / bytes_per_clk(t);
  snprintf(r.model, sizeof r.model, "dma");
  snprintf(r.share, sizeof r.share, "-");
  snprintf(r.limit, sizeof r.limit, "%s", r.est_cycles > r.ideal_cycles * 1.0001 ? "lat" : "hbm");
  memset(c, 0, sizeof *c);
  snprintf(c->family, sizeof c->family, "%s", copy ? "copy" : "fill");
  c->est_us = r.est_cycles / t->clock_mhz;
  c->ideal_us = r.ideal_cycles / t->clock_mhz;
  if (out) {
    char kernel[32];
    snprintf(kernel, sizeof kernel, "launch %d", tb_jint(node, "id", -1));
    print_row(t, c->family, kernel, node, &r, NULL, 0, out);
  }
}
