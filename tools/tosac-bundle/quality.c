/* quality.c: "tosac-bundle quality": for every distinct GEMM-family kernel of a bundle and every
 * target in it, the resources, the steady-state main loop (llvm-mca-22 on gfx9 with a time limit,
 * a stated static model on WMMA targets and for the FMA path) and an estimated share of the
 * roofline. Models and assumptions: docs/quality.md, docs/bench.md#kernel-quality. */
#include "quality.h"

#include "codeobj.h"
#include "codegen/gemm.h"

#include <cjson/cJSON.h>
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <llvm-c/Disassembler.h>
#include <llvm-c/Target.h>
#include <math.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

/* ---------------------------------------------------------------- the kernel's machine code */

/* File range of function `name` (STT_FUNC in .symtab or .dynsym), else false. */
bool tb_find_function(const uint8_t *d, size_t size, const char *name, size_t *off,
                          size_t *len) {
  Elf64_Ehdr eh;
  if (size < sizeof eh)
    return false;
  memcpy(&eh, d, sizeof eh);
  if (eh.e_shentsize != sizeof(Elf64_Shdr) || eh.e_shoff > size ||
      (uint64_t)eh.e_shnum * sizeof(Elf64_Shdr) > size - eh.e_shoff)
    return false;
  Elf64_Shdr *sh = calloc(eh.e_shnum ? eh.e_shnum : 1, sizeof *sh);
  if (!sh)
    return false;
  memcpy(sh, d + eh.e_shoff, (size_t)eh.e_shnum * sizeof *sh);
  bool found = false;
  for (unsigned i = 0; i < eh.e_shnum && !found; i++) {
    if ((sh[i].sh_type != SHT_SYMTAB && sh[i].sh_type != SHT_DYNSYM) || sh[i].sh_link >= eh.e_shnum)
      continue;
    const Elf64_Shdr *st = &sh[sh[i].sh_link];
    if (sh[i].sh_offset > size || sh[i].sh_size > size - sh[i].sh_offset || st->sh_offset > size ||
        st->sh_size > size - st->sh_offset)
      continue;
    for (size_t k = 0; k < sh[i].sh_size / sizeof(Elf64_Sym) && !found; k++) {
      Elf64_Sym s;
      memcpy(&s, d + sh[i].sh_offset + k * sizeof s, sizeof s);
      if (ELF64_ST_TYPE(s.st_info) != STT_FUNC || s.st_name >= st->sh_size ||
          s.st_shndx >= eh.e_shnum)
        continue;
      const char *nm = (const char *)d + st->sh_offset + s.st_name;
      if (strnlen(nm, st->sh_size - s.st_name) != strlen(name) || strcmp(nm, name) != 0)
        continue;
      const Elf64_Shdr *text = &sh[s.st_shndx];
      uint64_t o = text->sh_offset + (s.st_value - text->sh_addr);
      if (s.st_value >= text->sh_addr && o <= size && s.st_size <= size - o)
        *off = (size_t)o, *len = (size_t)s.st_size, found = true;
    }
  }
  free(sh);
  return found;
}

/* Disassembles [off, off+len) for cpu; *n instructions (malloc). */
tb_insn *tb_disassemble(const uint8_t *d, size_t off, size_t len, const char *cpu, int *n) {
  *n = 0;
  LLVMDisasmContextRef dc = LLVMCreateDisasmCPU("amdgcn-amd-amdhsa", cpu, NULL, 0, NULL, NULL);
  if (!dc)
    return NULL;
  tb_insn *v = malloc(sizeof *v * (len / 4 + 1));
  size_t pc = 0;
  while (v && pc < len) {
    char buf[256];
    size_t used = LLVMDisasmInstruction(dc, (uint8_t *)d + off + pc, len - pc, pc, buf, sizeof buf);
    if (!used)
      break;
    const char *t = buf + strspn(buf, " \t");
    v[*n].pc = pc;
    snprintf(v[*n].text, sizeof v[*n].text, "%s", t);
    (*n)++;
    pc += used;
  }
  LLVMDisasmDispose(dc);
  return v;
}

static bool starts(const char *s, const char *p) { return strncmp(s, p, strlen(p)) == 0; }
bool tb_is_matrix(const char *s) {
  return starts(s, "v_mfma") || starts(s, "v_wmma") || starts(s, "v_smfmac");
}
/* FMA-path work: the multiply-adds of the FMA fallback (and dot products on RDNA). A gfx11+
 * dual-issue VOPD instruction ("v_dual_dot2acc_f32_f16 ... :: v_dual_add_nc_u32 ...") takes one
 * issue slot and counts when either half is such work. */
static bool is_fma_op(const char *s) {
  return starts(s, "fma") || starts(s, "pk_fma") || starts(s, "mac") || starts(s, "dot") ||
         starts(s, "mad") || starts(s, "pk_mad");
}
bool tb_is_fma(const char *s) {
  if (starts(s, "v_dual_")) {
    const char *y = strstr(s, ":: v_dual_");
    return is_fma_op(s + 7) || (y && is_fma_op(y + 10));
  }
  return starts(s, "v_") && is_fma_op(s + 2);
}
static bool is_branch(const char *s) { return starts(s, "s_cbranch") || starts(s, "s_branch"); }

/* Branch target of a SOPP branch at pc: pc + 4 + 4 * simm16. */
bool tb_branch_target(const tb_insn *x, size_t *target) {
  const char *sp = strpbrk(x->text, " \t");
  if (!is_branch(x->text) || !sp)
    return false;
  char *end;
  long v = strtol(sp, &end, 0);
  if (end == sp)
    return false;
  if (v > 32767)
    v -= 65536;
  long t = (long)x->pc + 4 + 4 * v;
  if (t < 0)
    return false;
  *target = (size_t)t;
  return true;
}

int tb_best_loop(const tb_insn *v, int n, int (*work_of)(const char *), bool longer_on_ties, int *b,
                 int *e) {
  int best = -1, best_len = 0;
  for (int i = 0; i < n; i++) {
    size_t t;
    if (!tb_branch_target(&v[i], &t) || t > v[i].pc)
      continue;
    int s = i;
    while (s > 0 && v[s].pc > t)
      s--;
    int work = 0;
    for (int j = s; j <= i; j++)
      work += work_of(v[j].text);
    if (work > best || (longer_on_ties && work == best && i - s + 1 > best_len))
      best = work, best_len = i - s + 1, *b = s, *e = i;
  }
  return best;
}

static int fma_work(const char *s) { return tb_is_fma(s); }
static int matrix_work(const char *s) { return tb_is_matrix(s); }

/* The main loop: of the backward branches, the one whose body holds the most matrix (or, for
 * the FMA path, multiply-add) instructions; [*b, *e] inclusive. false: no loop. */
bool tb_main_loop(const tb_insn *v, int n, bool fma, int *b, int *e) {
  return tb_best_loop(v, n, fma ? fma_work : matrix_work, false, b, e) > 0;
}

/* A grouped GEMM's main loop: its slices' K loops sit in the switch's flow, whose backward
 * branch (the structurizer's) spans several of them; of the backward branches whose range holds
 * no other one, the one with the most matrix (FMA) work. */
static bool innermost_loop(const tb_insn *v, int n, bool fma, int *b, int *e) {
  int best = 0;
  for (int i = 0; i < n; i++) {
    size_t t;
    if (!tb_branch_target(&v[i], &t) || t > v[i].pc)
      continue;
    int s = i, work = 0;
    while (s > 0 && v[s].pc > t)
      s--;
    bool inner = true;
    for (int j = s; j < i && inner; j++) {
      size_t tj;
      inner = !(tb_branch_target(&v[j], &tj) && tj <= v[j].pc && tj >= v[s].pc);
    }
    for (int j = s; j <= i && inner; j++)
      work += fma ? fma_work(v[j].text) : matrix_work(v[j].text);
    if (inner && work > best)
      best = work, *b = s, *e = i;
  }
  return best > 0;
}

/* ---------------------------------------------------------------- llvm-mca with a time limit */

/* Runs llvm-mca-22 on `asm_path` for `iterations`; returns total cycles and the HWXDL pressure
 * per iteration. 0: ran; 1: failed; 2: killed after `timeout` seconds. */
static int mca_run(const char *cpu, const char *asm_path, int iterations, double timeout,
                   long *cycles, double *xdl) {
  char out_path[] = "/tmp/tosac-quality-XXXXXX";
  int fd = mkstemp(out_path);
  if (fd < 0)
    return 1;
  pid_t pid = fork();
  if (pid == 0) {
    char mcpu[48], it[32];
    snprintf(mcpu, sizeof mcpu, "-mcpu=%s", cpu);
    snprintf(it, sizeof it, "-iterations=%d", iterations);
    dup2(fd, 1);
    int nul = open("/dev/null", O_RDWR);
    dup2(nul, 0), dup2(nul, 2);
    execlp("llvm-mca-22", "llvm-mca-22", "-mtriple=amdgcn-amd-amdhsa", mcpu, it,
           "-instruction-info=false", "-skip-unsupported-instructions=lack-sched", asm_path,
           (char *)NULL);
    _exit(127);
  }
  int status = 0, rc = 1;
  if (pid > 0) {
    struct timespec t0, now, nap = {0, 10 * 1000 * 1000};
    clock_gettime(CLOCK_MONOTONIC, &t0);
    for (;;) {
      pid_t w = waitpid(pid, &status, WNOHANG);
      if (w == pid) {
        rc = WIFEXITED(status) && WEXITSTATUS(status) == 0 ? 0 : 1;
        break;
      }
      clock_gettime(CLOCK_MONOTONIC, &now);
      if (w < 0 || (double)(now.tv_sec - t0.tv_sec) + (now.tv_nsec - t0.tv_nsec) / 1e9 > timeout) {
        kill(pid, SIGKILL);
        waitpid(pid, &status, 0);
        rc = 2;
        break;
      }
      nanosleep(&nap, NULL);
    }
  }
  if (rc == 0) {
    size_t size = 0;
    char err[200];
    char *text = read_file(out_path, &size, err, sizeof err);
    rc = 1;
    const char *c = text ? strstr(text, "Total Cycles:") : NULL;
    const char *res = text ? strstr(text, "Resources:\n") : NULL;
    const char *pr = text ? strstr(text, "Resource pressure per iteration:\n") : NULL;
    if (c && res && pr) {
      *cycles = strtol(c + 13, NULL, 10);
      /* "[6]   - HWXDL" is resource 6: the 7th column of the pressure line */
      const char *x = strstr(res, "- HWXDL");
      const char *line = strchr(pr, '\n') ? strchr(strchr(pr, '\n') + 1, '\n') : NULL;
      *xdl = 0;
      if (x && line) {
        const char *open = x;
        while (open > res && *open != '[')
          open--;
        int col = atoi(open + 1);
        const char *p = line + 1;
        for (int i = 0; i <= col && *p && *p != '\n'; i++) {
          p += strspn(p, " ");
          char *end;
          double val = strtod(p, &end);
          if (i == col)
            *xdl = end == p ? 0 : val; /* "-": no pressure */
          p += strcspn(p, " \n");
        }
      }
      rc = 0;
    }
    free(text);
  }
  close(fd);
  unlink(out_path);
  return rc;
}

/* ---------------------------------------------------------------- per kernel */


bool tb_is_free(const char *s) {
  return starts(s, "s_waitcnt") || starts(s, "s_barrier") || starts(s, "s_wait_") ||
         starts(s, "s_cbranch") || starts(s, "s_branch") || starts(s, "s_setprio") ||
         starts(s, "s_nop");
}

/* Static model (WMMA targets, FMA path): one wave's stream issues one instruction per cycle;
 * a WMMA holds the issue for its table cycles (VALU does not overlap it on gfx11, assumed for
 * gfx12 too); waits, barriers, branches and priority hints cost nothing (latency assumed hidden
 * by the other waves). */
int tb_matrix_cycles(const target_info *t, const char *s) {
  for (int r = 0; r < target_matrix_count; r++)
    if (strcmp(target_matrix_table[r].target, t->name) == 0 &&
        starts(s, target_matrix_table[r].mnemonic))
      return target_matrix_table[r].cycles;
  return 32;
}

/* Matrix (or FMA) cycles of the loop's instructions and, for the static model, the issue cycles
 * of the whole iteration. */
static void count_loop(const target_info *t, const tb_insn *v, int b, int e, bool fma, double *work,
                       double *cyc) {
  *work = 0, *cyc = 0;
  for (int j = b; j <= e; j++) {
    const char *s = v[j].text;
    if (tb_is_free(s))
      continue;
    double c = 1;
    if (tb_is_matrix(s))
      *work += c = tb_matrix_cycles(t, s);
    else if (fma && tb_is_fma(s))
      *work += 1;
    *cyc += c;
  }
}

static void static_model(const target_info *t, const tb_insn *v, int b, int e, bool fma, tb_loop *q) {
  double cyc, work;
  count_loop(t, v, b, e, fma, &work, &cyc);
  q->loop_cycles = cyc;
  q->share = cyc > 0 ? work / cyc : 0;
  snprintf(q->model, sizeof q->model, "%s", fma ? "fma" : "wmma");
}

/* In-order issue model of the matrix pipe (gfx9 when llvm-mca-22 hangs or fails): one
 * instruction issues per 4-cycle pass; a matrix instruction waits until the pipe is free and then
 * holds it for its table cycles while later instructions keep issuing. Two iterations are
 * simulated and the second one's length is the steady state. No latencies or dependencies (the
 * load floor is applied to the kernel: tb_kernel_score). */
static void issue_model(const target_info *t, const tb_insn *v, int b, int e, tb_loop *q) {
  double now = 0, pipe = 0, first = 0;
  for (int round = 0; round < 2; round++) {
    if (round == 1)
      first = now > pipe ? now : pipe;
    for (int j = b; j <= e; j++) {
      const char *s = v[j].text;
      if (tb_is_free(s))
        continue;
      if (tb_is_matrix(s)) {
        double start = now > pipe ? now : pipe;
        pipe = start + tb_matrix_cycles(t, s);
        now = start + 4;
      } else {
        now += 4;
      }
    }
  }
  double end = now > pipe ? now : pipe;
  q->loop_cycles = end - first;
  q->share = q->loop_cycles > 0 ? q->mma_cycles / q->loop_cycles : 0;
}

static void mca_model(const target_info *t, const tb_insn *v, int b, int e, double timeout, tb_loop *q) {
  char path[] = "/tmp/tosac-loop-XXXXXX.s";
  int fd = mkstemps(path, 2);
  FILE *f = fd >= 0 ? fdopen(fd, "w") : NULL;
  if (!f) {
    snprintf(q->model, sizeof q->model, "mca-failed");
    return;
  }
  for (int j = b; j <= e; j++)
    if (!is_branch(v[j].text))
      fprintf(f, "\t%s\n", v[j].text);
  fclose(f);
  long c1 = 0, c2 = 0;
  double x1 = 0, x2 = 0;
  /* steady state: the cycles of `it` more iterations, (C(2 it) - C(it)) / it, leaves out the
   * pipeline fill and the last barrier's modelled latency; about 20000 instructions per run */
  int it = 20000 / (e - b + 1);
  it = it < 4 ? 4 : it > 100 ? 100 : it;
  int r1 = mca_run(t->name, path, it, timeout, &c1, &x1);
  int r2 = r1 ? r1 : mca_run(t->name, path, 2 * it, timeout, &c2, &x2);
  unlink(path);
  if (r1 || r2 || c2 <= c1) {
    issue_model(t, v, b, e, q);
    snprintf(q->model, sizeof q->model, "%s", r1 == 2 || r2 == 2 ? "issue(to)" : "issue(f)");
  } else {
    /* llvm-mca counts an MFMA's pipe occupancy in passes and other instructions in issue
     * cycles: its HWXDL share is the loop's matrix share, and the iteration takes the matrix
     * cycles of the table divided by that share */
    q->share = x1 / ((double)(c2 - c1) / it);
    q->loop_cycles = q->share > 0 ? q->mma_cycles / q->share : 0;
    snprintf(q->model, sizeof q->model, "mca");
  }
}

void tb_loop_model(const target_info *t, const tb_insn *v, int b, int e, bool fma,
                   const tb_quality_options *o, tb_loop *q) {
  memset(q, 0, sizeof *q);
  snprintf(q->model, sizeof q->model, "noloop");
  q->loop_len = e - b + 1;
  for (int j = b; j <= e; j++)
    q->loop_mma += fma ? tb_is_fma(v[j].text) : tb_is_matrix(v[j].text);
  double all;
  count_loop(t, v, b, e, fma, &q->mma_cycles, &all);
  if (t->has_mfma && !fma && o->use_mca)
    mca_model(t, v, b, e, o->mca_timeout, q);
  else if (t->has_mfma && !fma)
    issue_model(t, v, b, e, q), snprintf(q->model, sizeof q->model, "issue");
  else
    static_model(t, v, b, e, fma, q);
}

/* ---------------------------------------------------------------- the ceiling */

/* The smallest share of the machine's matrix work one wave can own: a 16x16 output tile (tosac's
 * smallest instruction tile) over 32 of K (split-K included: each split keeps 4 K tiles of 32
 * bytes or more, 8 f32 elements at least). */
#define CEIL_TILE_MN 16
#define CEIL_TILE_K 32

/* The best share of the roofline any kernel can reach for d's problem on t (docs/quality.md,
 * the ceiling): the ideal time (t_mma: flops at the matrix peak, t_mem: the ideal bytes at the
 * bandwidth, in cycles) against the least time Little's law allows (one memory latency with
 * everything in flight: cg_tune_memory_cycles) and the matrix work spread over no more SIMDs
 * than the problem has 16x16x32 pieces (d NULL: no GEMM). The limit is the larger loss. */
static void ceiling(const target_info *t, const tb_gemm_desc *d, double t_mma, double t_mem,
                    tb_score *out) {
  double ideal = t_mma > t_mem ? t_mma : t_mem, lat = cg_tune_memory_cycles(t, 1, 0);
  double simds = (double)t->cus * t->simds_per_cu, grid = t_mma;
  if (d) {
    double pieces = (double)d->batch * ceil((double)d->m / CEIL_TILE_MN) * ceil((double)d->n * d->nb / CEIL_TILE_MN) *
                    fmax(1, floor((double)d->k_useful / CEIL_TILE_K));
    grid = t_mma * simds / fmin(simds, pieces);
  }
  double least = fmax(ideal, fmax(lat, grid));
  out->ceiling = least > 0 ? ideal / least : 0;
  snprintf(out->ceiling_limit, sizeof out->ceiling_limit, "%s",
           least <= ideal ? "-" : lat >= grid ? "lat" : "grid");
}

/* ---------------------------------------------------------------- the skinny kernel's memory model */

/* Bytes one lane reads from global memory with a vector load instruction (0: not one). */
int tb_vmem_load_bytes(const char *s) {
  if (!starts(s, "global_load") && !starts(s, "buffer_load") && !starts(s, "flat_load"))
    return 0;
  static const struct { const char *suffix; int bytes; } sizes[] = {
      {"dwordx4", 16}, {"b128", 16}, {"dwordx3", 12}, {"b96", 12}, {"dwordx2", 8}, {"b64", 8},
      {"dword", 4},    {"b32", 4},   {"short", 2},    {"u16", 2},  {"i16", 2},    {"b16", 2},
      {"byte", 1},     {"u8", 1},    {"i8", 1}};
  const char *op = s + strcspn(s, "_") + 1;
  op += strcspn(op, "_") + 1; /* past "global_load_" */
  for (size_t i = 0; i < sizeof sizes / sizeof sizes[0]; i++)
    if (strstr(op, sizes[i].suffix) && (op - s) < 16)
      return sizes[i].bytes;
  return 0;
}

/* What a split-K GEMM's reduction adds after its partials (cg_tune_reduce_cycles, the tuning
 * estimates' term): the last work-group's (split_k_form lastwg: its fence and atomic, then the
 * partials read by the tiles' last work-groups) or the combine kernel's (its launch and its pass);
 * 0 unsplit. */
static double split_reduce_cycles(const target_info *t, const tb_gemm_desc *d) {
  if (d->split < 2)
    return 0;
  double tiles = (double)d->batch * ceil((double)d->m / d->bm) * ceil((double)d->n / d->bn);
  double threads = (d->gemv ? d->waves : (double)(d->bm / d->wm) * (d->bn / d->wn)) * t->wave_size;
  return cg_tune_reduce_cycles(t, d->lastwg ? SPLITK_LASTWG : SPLITK_COMBINE, (double)d->batch * d->m * d->n,
                               d->split, cg_tune_lastwg_lanes(tiles, threads, d->n, d->bn));
}

/* The skinny kernel (docs/gemm.md, "Skinny GEMMs"): against the ideal of moving
 * A, B and C once at the bandwidth, its time is the tuning layer's model (cg_tune_gemv_cycles)
 * with this kernel's figures, the larger of (a) issue: every K block is one main-loop iteration
 * of one wave, a VALU instruction takes wave / (VALU lanes per SIMD per clock) cycles, the
 * iterations spread over the SIMDs the grid occupies; and (b) memory: the bytes of the kernel's
 * buffers at the rate that Little's law allows, min(bandwidth, bytes in flight / memory
 * latency), where the bytes in flight are the resident work-groups' waves that have a block
 * (occupancy, at most 2 work-groups per CU) times one iteration's loads (the loop issues all of
 * them before it uses the first); then its split's reduction. */
static void gemv_model(const target_info *t, const tb_insn *v, int b, int e, const tb_gemm_desc *d,
                       int occupancy, double issue_cycles, tb_score *out) {
  int lane_bytes = 0;
  for (int j = b; j <= e; j++)
    lane_bytes += tb_vmem_load_bytes(v[j].text);
  double lanes_clk = t->valu_flops_per_cu_clk / 2.0 / t->simds_per_cu;
  double per_insn = t->wave_size / lanes_clk < 1 ? 1 : t->wave_size / lanes_clk;
  double loop = issue_cycles * per_insn;
  double ncb = ceil((double)d->n / d->bn), blocks = ceil((double)d->k / d->bk);
  double bpc = (double)t->mem_gbps * 1e3 / t->clock_mhz;
  /* the GEMM's own traffic (A, B and C once) is the ideal; a split-K kernel moves its partials
   * too (its buffers include the workspace) and its reduction reads them once more */
  int es = strcmp(d->type, "f32") == 0 ? 4 : strcmp(d->type, "i8") == 0 ? 1 : 2;
  double ideal = (double)d->batch * ((double)d->m * d->k * es + (double)d->k * d->n * es + (double)d->m * d->n * 4);
  double moved = d->bytes;
  /* B loaded by the CUs in whole cache lines: batch x K rows of N in pieces of bn columns ([K][N],
   * matmul), or batch x N rows of K read whole (fully_connected's [N][K]); the tuning layer's
   * figure, charged to the busy CUs' load rate */
  bool kc = strncmp(d->problem, "fully_connected", 15) == 0;
  int64_t rows = d->batch * (kc ? d->n : d->k), row = (kc ? d->k : d->n) * es;
  int64_t piece = kc ? row : (int64_t)d->bn * es;
  double lines = cg_tune_line_extra_bytes(t, rows, row, piece);
  /* and what several L2s fetch of lines read in pieces smaller than a line */
  moved += cg_tune_line_fetch_extra_bytes(t, rows, row, piece);
  /* C counted at 4 bytes overstates an f16 result written in place (no split): the ideal never
   * exceeds the buffers the kernel touches once each */
  if (ideal > moved)
    ideal = moved;
  /* the tuning layer's model of the kernel, with this kernel's loop, loads and occupancy */
  cg_gemv_cost c = {.groups = (double)d->batch * ncb, .blocks = blocks, .kwaves = d->waves, .split = d->split,
                    .lane_bytes = lane_bytes, .block_issue = issue_cycles, .bytes = moved,
                    .line_extra = lines,
                    .groups_per_cu = (double)occupancy * t->simds_per_cu / (d->waves > 0 ? d->waves : 1)};
  double cycles = lane_bytes > 0 ? cg_tune_gemv_cycles(t, &c, NULL, NULL) : 0;
  if (cycles > 0)
    cycles += split_reduce_cycles(t, d);
  if (cycles > 0 && d->norm_rows > 0) /* a row norm computing A: what of it the first B block's latency does not hide */
    cycles += cg_tune_norm_prologue_extra_cycles(t, d->norm_rows, d->norm_row, d->norm_reductions,
                                                 d->waves * t->wave_size);
  ceiling(t, d, 0, ideal / bpc, out); /* its roofline is the memory term alone */
  out->loop_cycles = loop;
  double waves = c.groups * d->split * d->waves, simds = (double)t->cus * t->simds_per_cu;
  double resident = waves < simds * occupancy ? waves : simds * occupancy;
  out->inflight_kib = resident * lane_bytes * t->wave_size / 1024.0 / t->cus;
  if (cycles > 0) {
    out->est_us = cycles / t->clock_mhz;
    out->roofline = ideal / bpc / cycles;
    out->mem_bound = true;
  }
}

/* The im2col pass of a convolution (kernel_im2col.c): no loop, one 16-byte row chunk per
 * work-item. Against the ideal of moving its buffers once (input and weights read, the
 * workspace matrix written) at the bandwidth, its time is the larger of (a) issue: the whole
 * kernel's vector instructions (both branches, an upper bound; scalar ones, waits and branches
 * free) once per wave, one taking
 * wave / (VALU lanes per SIMD per clock) cycles, over the SIMDs; (b) memory: those bytes at
 * min(bandwidth, bytes in flight / latency) with one work-item's 16 bytes of loads in flight per
 * lane of every resident wave (Little's law, as the skinny kernel's model). */
static void im2col_model(const target_info *t, int ninsn, const tb_gemm_desc *d, int occupancy,
                         tb_score *out) {
  double items = (double)(d->m + d->n) * d->kpad / (d->vw > 0 ? d->vw : 1);
  double waves = ceil(items / t->wave_size), simds = (double)t->cus * t->simds_per_cu;
  double lanes_clk = t->valu_flops_per_cu_clk / 2.0 / t->simds_per_cu;
  double per_insn = t->wave_size / lanes_clk < 1 ? 1 : t->wave_size / lanes_clk;
  double t_issue = ceil(waves / simds) * ninsn * per_insn;
  double resident = waves < simds * occupancy ? waves : simds * occupancy;
  double bpc = (double)t->mem_gbps * 1e3 / t->clock_mhz;
  double t_mem = cg_tune_memory_cycles(t, d->bytes, resident * 16.0 * t->wave_size);
  double cycles = t_issue > t_mem ? t_issue : t_mem;
  ceiling(t, NULL, 0, d->bytes / bpc, out);
  out->loop_len = ninsn;
  out->inflight_kib = resident * 16.0 * t->wave_size / 1024.0 / t->cus;
  if (cycles > 0) {
    out->est_us = cycles / t->clock_mhz;
    out->roofline = d->bytes / bpc / cycles;
    out->mem_bound = true;
  }
}

/* ---------------------------------------------------------------- the report */

int tb_occupancy(const target_info *t, const cg_kernel_info *m, int waves_wg) {
  int ru, regs;
  if (t->agpr_file) { /* gfx908: separate VGPR and AGPR files */
    int v = m->vgpr > m->agpr ? m->vgpr : m->agpr;
    ru = (v + t->vgpr_granule - 1) / t->vgpr_granule * t->vgpr_granule;
    regs = t->agpr_file / (ru ? ru : 1);
  } else {
    ru = (m->vgpr + t->vgpr_granule - 1) / t->vgpr_granule * t->vgpr_granule;
    regs = t->vgprs_per_simd / (ru ? ru : 1);
  }
  if (regs > t->max_waves_per_simd)
    regs = t->max_waves_per_simd;
  int pool = t->wave_size == 32 ? 2 * t->lds_bytes : t->lds_bytes; /* CU, or WGP on RDNA */
  if (m->lds_bytes > 0) {
    int lds = (int)(pool / m->lds_bytes) * waves_wg / 4;
    if (lds < regs)
      regs = lds;
  }
  return regs;
}

int tb_jint(const cJSON *o, const char *k, int dflt) {
  const cJSON *x = cJSON_GetObjectItemCaseSensitive(o, k);
  return cJSON_IsNumber(x) ? x->valueint : dflt;
}
const char *tb_jstr(const cJSON *o, const char *k) {
  const cJSON *x = cJSON_GetObjectItemCaseSensitive(o, k);
  return cJSON_IsString(x) ? x->valuestring : "";
}

/* The elements a GEMM kernel of one output phase of a transposed convolution (tuning "phase")
 * stores: its problem's batch x M x N, the phase's pixels; -1 for any other kernel. */
static double phase_elements(const cJSON *k) {
  const cJSON *tun = cJSON_GetObjectItemCaseSensitive(k, "tuning");
  long long batch, m, n;
  if (!cJSON_IsNumber(cJSON_GetObjectItemCaseSensitive(tun, "phase")) ||
      sscanf(tb_jstr(tun, "problem"), "%*[^:]:%lldx%lldx%lld", &batch, &m, &n) != 3)
    return -1;
  return (double)batch * (double)m * (double)n;
}

/* Bytes of the buffers a kernel reads and writes (each once: the memory roofline's traffic). A
 * per-phase kernel of a transposed convolution writes only its phase's pixels (whole runs of
 * channels), not its whole result buffer: it is charged those. */
double tb_kernel_bytes(const cJSON *target, const cJSON *k) {
  const cJSON *bufs = cJSON_GetObjectItemCaseSensitive(target, "buffers"), *a;
  double sum = 0, written = phase_elements(k);
  cJSON_ArrayForEach(a, cJSON_GetObjectItemCaseSensitive(k, "args")) {
    int id = tb_jint(a, "buffer", -1);
    bool writes = !strcmp(tb_jstr(a, "access"), "write_only");
    const cJSON *b;
    cJSON_ArrayForEach(b, bufs) if (tb_jint(b, "id", -2) == id) {
      const cJSON *bytes = cJSON_GetObjectItemCaseSensitive(b, "bytes");
      if (!cJSON_IsNumber(bytes))
        continue;
      const char *et = tb_jstr(b, "element_type");
      double part = written * elem_type_bytes(elem_type_parse(et, strlen(et)));
      sum += writes && written >= 0 && part < bytes->valuedouble ? part : bytes->valuedouble;
    }
  }
  return sum;
}

/* Per-CU per-clock peak of the kernel's instruction (the FMA path: the f32 vector rate times the
 * products per lane of the target's dot instruction for the type: 2 for f16, 4 for i8; a bf16
 * without a dot is widened to f32 FMAs). */
double tb_peak_per_cu_clk(const target_info *t, const char *mnemonic, const char *type) {
  for (int r = 0; r < target_matrix_count; r++) {
    const target_matrix *x = &target_matrix_table[r];
    if (strcmp(x->target, t->name) == 0 && strcmp(x->mnemonic, mnemonic) == 0)
      return 2.0 * x->m * x->n * x->k / x->cycles * t->simds_per_cu;
  }
  for (int r = 0; r < target_scaled_matrix_count; r++) { /* fp4 operands (kernel_mxgemm.c) */
    const target_scaled_matrix *x = &target_scaled_matrix_table[r];
    if (strcmp(x->target, t->name) == 0 && strcmp(x->mnemonic, mnemonic) == 0)
      return 2.0 * x->m * x->n * x->k / x->cycles_f4 * t->simds_per_cu;
  }
  elem_type in = elem_type_parse(type, strlen(type));
  for (int i = 0; i < target_dot_count; i++)
    if (strcmp(target_dot_table[i].target, t->name) == 0 && target_dot_table[i].in == in)
      return (double)t->valu_flops_per_cu_clk * target_dot_table[i].k;
  return t->valu_flops_per_cu_clk;
}

bool tb_gemm_desc_from_json(const cJSON *tuning, const char *instr, double bytes, tb_gemm_desc *d) {
  memset(d, 0, sizeof *d);
  d->nb = 1;
  snprintf(d->problem, sizeof d->problem, "%s", tb_jstr(tuning, "problem"));
  snprintf(d->instr, sizeof d->instr, "%s", instr);
  char opname[32];
  if (sscanf(d->problem, "%31[^:]:%lldx%lldx%lldx%lld:%15[^:]", opname, &d->batch, &d->m, &d->n,
             &d->k, d->type) != 6)
    return false;
  d->k_useful = tb_jint(tuning, "conv_k", 0) > 0 ? tb_jint(tuning, "conv_k", 0) : d->k;
  /* a transposed convolution with its output phases in the grid: the problem is one phase's;
   * the grid runs every phase (batch x phases), each over its own K tiles (phases_k in all),
   * the convolution's K (conv_k) spread across them */
  int phases = tb_jint(tuning, "phases", 1);
  if (phases > 1) {
    d->batch *= phases;
    d->k = (tb_jint(tuning, "phases_k", (int)(d->k * phases)) + phases - 1) / phases;
    d->k_useful = (d->k_useful + phases - 1) / phases;
  }
  /* a grouped GEMM (docs/partitioning.md "Grouped GEMMs"): its grid holds every GEMM's tiles,
   * each GEMM the problem's shape, as a batch of them would */
  d->gemms = tb_jint(tuning, "gemms", 1) > 1 ? tb_jint(tuning, "gemms", 1) : 1;
  d->batch *= d->gemms;
  d->bm = tb_jint(tuning, "bm", 1), d->bn = tb_jint(tuning, "bn", 1), d->bk = tb_jint(tuning, "bk", 1);
  d->wm = tb_jint(tuning, "wm", 1), d->wn = tb_jint(tuning, "wn", 1);
  d->waves = tb_jint(tuning, "waves", 1), d->split = tb_jint(tuning, "split_k", 1);
  d->gemv = strcmp(tb_jstr(tuning, "kernel"), "gemv") == 0;
  d->lastwg = d->split > 1 && strcmp(tb_jstr(tuning, "split_k_form"), "lastwg") == 0;
  d->im2col = strcmp(tb_jstr(tuning, "kernel"), "im2col") == 0;
  d->kpad = tb_jint(tuning, "kpad", 0), d->vw = tb_jint(tuning, "vector_width", 1);
  d->norm_rows = tb_jint(tuning, "norm_rows", 0), d->norm_row = tb_jint(tuning, "norm_row", 0);
  d->norm_reductions = tb_jint(tuning, "norm_reductions", 0);
  d->nb = tb_jint(tuning, "b_operands", 1) > 1 ? tb_jint(tuning, "b_operands", 1) : 1;
  d->mm_m = d->mm_n = d->mm_k = 1;
  sscanf(tb_jstr(tuning, "mma"), "%dx%dx%d", &d->mm_m, &d->mm_n, &d->mm_k);
  d->bytes = bytes;
  return true;
}

bool tb_kernel_score(const target_info *t, const uint8_t *co, size_t co_size, const char *name,
                     const tb_gemm_desc *d, const tb_quality_options *o, tb_score *out, char *err,
                     size_t errsize) {
  memset(out, 0, sizeof *out);
  cg_kernel_info md;
  if (!tb_kernel_meta(co, co_size, name, &md, err, errsize))
    return false;
  out->vgpr = md.vgpr, out->agpr = md.agpr, out->lds = md.lds_bytes;
  out->spills = md.vgpr_spill + md.sgpr_spill;
  out->occupancy = tb_occupancy(t, &md, d->waves);
  tb_kernel_meta_free(&md);
  bool fma = strcmp(d->instr, "fma") == 0;
  tb_loop q = {.model = "noloop"};
  size_t off, len;
  int n = 0;
  tb_insn *v = tb_find_function(co, co_size, name, &off, &len) ? tb_disassemble(co, off, len, t->name, &n) : NULL;
  int b = 0, e = -1;
  /* no loop: K fully unrolled; the whole body is then one "iteration" covering every K step */
  bool whole = v && !(d->gemms > 1 ? innermost_loop(v, n, fma, &b, &e) : tb_main_loop(v, n, fma, &b, &e));
  /* the issue model has no latencies: the kernel gets the tuning estimate's load floor
   * (cg_tune_kernel_cycles); llvm-mca models its own */
  bool floored = false;
  if (whole)
    b = 0, e = n - 1;
  int lane_bytes = 0; /* the loop's (whole kernel's) vector-memory loads per lane */
  for (int j = b; v && j <= e; j++)
    lane_bytes += tb_vmem_load_bytes(v[j].text);
  if (v && n > 0) {
    tb_loop_model(t, v, b, e, fma, o, &q);
    floored = t->has_mfma && !fma && !o->use_mca; /* the issue model */
  }
  if (d->im2col) {
    int vector = 0; /* vector instructions: scalar ones, waits and branches issue elsewhere */
    for (int j = 0; v && j < n; j++)
      vector += !strncmp(v[j].text, "v_", 2) || !strncmp(v[j].text, "global_", 7) ||
                !strncmp(v[j].text, "buffer_", 7);
    free(v);
    im2col_model(t, vector, d, out->occupancy, out);
    snprintf(out->model, sizeof out->model, "im2col");
    return true;
  }
  if (d->gemv && v && n > 0) {
    double work, cyc;
    count_loop(t, v, b, e, true, &work, &cyc);
    gemv_model(t, v, b, e, d, out->occupancy, cyc, out);
    free(v);
    snprintf(out->model, sizeof out->model, "gemv%s", whole ? "-all" : "");
    out->loop_len = q.loop_len, out->share = q.share;
    return true;
  }
  free(v);
  if (whole && q.loop_cycles > 0)
    strcat(q.model, "-all");
  snprintf(out->model, sizeof out->model, "%s", q.model);
  out->loop_len = q.loop_len, out->loop_cycles = q.loop_cycles, out->share = q.share;
  /* roofline: K steps of one loop iteration from its instruction count */
  double per_tile = fma ? 0 : (double)(d->wm / d->mm_m) * (d->wn / d->mm_n) * (d->bk / d->mm_k) * d->nb;
  double steps_per_iter = per_tile > 0 && q.loop_mma ? q.loop_mma / per_tile : 1;
  if (q.loop_cycles > 0 && d->m > 0) {
    double tiles = (double)d->batch * ceil((double)d->m / d->bm) * ceil((double)d->n / d->bn) * d->split;
    double iters = ceil(ceil((double)d->k / d->bk) / d->split / steps_per_iter);
    double rounds = ceil(tiles * d->waves / ((double)t->cus * t->simds_per_cu));
    double flops = 2.0 * d->batch * d->m * d->n * d->k_useful * d->nb;
    double bpc = (double)t->mem_gbps * 1e3 / t->clock_mhz; /* bytes per clock */
    double t_mma = flops / (tb_peak_per_cu_clk(t, d->instr, d->type) * t->cus), t_mem = d->bytes / bpc;
    /* the loops' issue time, but never faster than moving the buffers once at the rate Little's
     * law allows: one loop iteration's (the whole kernel's) loads in flight per resident wave,
     * one memory latency at least */
    double cycles = rounds * (floored ? cg_tune_kernel_cycles(t, d->waves, 0, q.loop_cycles,
                                                              whole ? 0 : steps_per_iter, iters)
                                      : iters * q.loop_cycles);
    double simds = (double)t->cus * t->simds_per_cu, waves = tiles * d->waves;
    double resident = fmin(waves, simds * (out->occupancy > 0 ? out->occupancy : 1));
    double floor_mem = cg_tune_memory_cycles(t, d->bytes, resident * lane_bytes * t->wave_size);
    if (cycles < floor_mem)
      cycles = floor_mem;
    if (d->split > 1) {
      /* split-K: the kernel's buffers include the workspace of split f32/i32 partial tiles; the
       * ideal moves A, B and one 4-byte result, and the reduction's time (split_reduce_cycles) is
       * added to the estimate */
      double out4 = 4.0 * d->batch * d->m * d->n, ws = d->split * out4;
      t_mem = (d->bytes > ws ? d->bytes - ws : 0) / bpc + out4 / bpc;
      cycles += split_reduce_cycles(t, d);
    }
    if (d->norm_rows > 0) { /* a row-norm prologue computing the tile's A rows (the tuning's model) */
      gemm_problem pb = {.batch = d->batch, .m = d->m, .n = d->n, .k = d->norm_row};
      gemm_params P = {.bm = d->bm, .bn = d->bn, .wm = d->wm, .wn = d->wn};
      cycles += cg_tune_norm_tile_cycles(t, &pb, &P);
    }
    out->est_us = cycles / t->clock_mhz;
    out->roofline = (t_mma > t_mem ? t_mma : t_mem) / cycles;
    out->mem_bound = t_mem > t_mma;
    ceiling(t, d, t_mma, t_mem, out);
  }
  return true;
}

/* Costs of the kernels scored so far (by name), for the rows' impossibility check and --model. */
typedef struct cost_list {
  struct named_cost {
    char name[80];
    tb_cost c;
  } *v;
  int n, cap;
} cost_list;

static void cost_add(cost_list *l, const char *name, const tb_cost *c) {
  if (l->n == l->cap) {
    l->cap = l->cap ? 2 * l->cap : 32;
    l->v = realloc(l->v, sizeof *l->v * (size_t)l->cap);
  }
  snprintf(l->v[l->n].name, sizeof l->v[l->n].name, "%s", name);
  l->v[l->n++].c = *c;
}

static const tb_cost *cost_find(const cost_list *l, const char *name) {
  for (int i = 0; i < l->n; i++)
    if (!strcmp(l->v[i].name, name))
      return &l->v[i].c;
  return NULL;
}

static bool is_gemm_row(const cJSON *k) {
  const cJSON *tun = cJSON_GetObjectItemCaseSensitive(k, "tuning");
  return cJSON_GetObjectItemCaseSensitive(tun, "bm") || strcmp(tb_jstr(tun, "kernel"), "im2col") == 0;
}

static bool report_kernel(const tb_quality_options *o, const target_info *t, const cJSON *target,
                          const cJSON *k, const uint8_t *co, size_t co_size, FILE *out, tb_cost *c) {
  const char *name = tb_jstr(k, "name");
  tb_gemm_desc d;
  tb_score sc;
  char err[300];
  tb_gemm_desc_from_json(cJSON_GetObjectItemCaseSensitive(k, "tuning"),
                         tb_jstr(k, "matrix_instruction"), tb_kernel_bytes(target, k), &d);
  memset(c, 0, sizeof *c);
  snprintf(c->family, sizeof c->family, "%s", d.im2col ? "im2col" : "gemm");
  if (!tb_kernel_score(t, co, co_size, name, &d, o, &sc, err, sizeof err)) {
    if (out)
      fprintf(out, "%-8s %-22s error: %s\n", t->name, name, err);
    return false;
  }
  c->est_us = sc.est_us;
  c->ideal_us = sc.roofline * sc.est_us;
  if (d.split > 1 && !d.lastwg) /* the combine kernel has its own row and launch: not twice */
    c->est_us -= split_reduce_cycles(t, &d) / t->clock_mhz;
  if (!out)
    return true;
  char tile[48], share[16], est[32] = "-", roof[32] = "-", ceil_s[32] = "-";
  snprintf(tile, sizeof tile, "%dx%dx%d/%dx%d", d.bm, d.bn, d.bk, d.wm, d.wn);
  if (d.im2col) /* the pass writes [m + n][kpad] */
    snprintf(tile, sizeof tile, "im2col %lldx%d", d.m + d.n, d.kpad);
  if (d.split > 1)
    snprintf(tile + strlen(tile), sizeof tile - strlen(tile), "/s%d", d.split);
  snprintf(share, sizeof share, "%.1f", 100.0 * sc.share);
  if (sc.est_us > 0) {
    snprintf(est, sizeof est, "%.1f", sc.est_us);
    snprintf(roof, sizeof roof, "%.0f%% %s", 100.0 * sc.roofline, sc.mem_bound ? "mem" : "mma");
    snprintf(ceil_s, sizeof ceil_s, "%.0f%% %s", 100.0 * sc.ceiling, sc.ceiling_limit);
  }
  fprintf(out,
          "%-8s %-42s %-5s %-22s %-28s %4d %4d %6lld %3d %5d %4d %7.1f %-13s %7s %8s  %-8s  %s\n",
          t->name, d.problem, d.type, tile, d.instr[0] ? d.instr : "-", sc.vgpr, sc.agpr, sc.lds, sc.occupancy,
          sc.spills, sc.loop_len, sc.loop_cycles, sc.loop_cycles > 0 || d.im2col ? sc.model : "-",
          sc.loop_cycles > 0 ? share : d.im2col ? "-" : sc.model, est, roof, ceil_s);
  return true;
}

/* A row's estimate faster than its roofline is a defect of a model: reported, and counted. */
static int impossible(const target_info *t, const char *name, const tb_cost *c, FILE *out) {
  if (c->est_us <= 0 || c->ideal_us <= c->est_us * 1.0005)
    return 0;
  fprintf(out, "error: %s on %s: estimated %.3f us, faster than its roofline %.3f us (%.0f %%)\n", name,
          t->name, c->est_us, c->ideal_us, 100.0 * c->ideal_us / c->est_us);
  return 1;
}

/* The kernels of kernels_of (target t of the top level or of an entry) not yet in `costs`: the
 * GEMM-family rows (gemm true) or the other families' rows; returns the impossible figures. */
static int report_kernels(const tb_quality_options *o, const target_info *ti, const cJSON *t,
                          const cJSON *kernels_of, const bnd_entry *e, bool gemm, cost_list *costs,
                          FILE *out) {
  const cJSON *k;
  int bad = 0;
  cJSON_ArrayForEach(k, cJSON_GetObjectItemCaseSensitive(kernels_of, "kernels")) {
    const char *name = tb_jstr(k, "name");
    if (is_gemm_row(k) != gemm || cost_find(costs, name))
      continue;
    tb_cost c;
    bool ok = gemm ? report_kernel(o, ti, t, k, e->data, e->size, out, &c)
                   : tb_family_row(o, ti, t, k, e->data, e->size, out, &c);
    if (ok)
      bad += impossible(ti, name, &c, out);
    cost_add(costs, name, &c);
    fflush(out);
  }
  return bad;
}

/* Copy and fill launches of a launch graph: a row each. */
static int report_nodes(const target_info *ti, const cJSON *launches_of, FILE *out) {
  const cJSON *n;
  int bad = 0;
  cJSON_ArrayForEach(n, cJSON_GetObjectItemCaseSensitive(launches_of, "launches")) {
    const char *kind = tb_jstr(n, "kind");
    if (strcmp(kind, "copy") && strcmp(kind, "fill"))
      continue;
    tb_cost c;
    tb_node_row(ti, n, out, &c);
    bad += impossible(ti, kind, &c, out);
  }
  return bad;
}

void tb_quality_init(void) {
  LLVMInitializeAMDGPUTargetInfo();
  LLVMInitializeAMDGPUTargetMC();
  LLVMInitializeAMDGPUDisassembler();
}

/* The families in the model's order. */
static const char *const model_families[] = {"gemm", "im2col", "attention", "rownorm", "elementwise",
                                             "reduction", "pool", "data", "fft", "combine", "fill", "copy"};
enum { NFAM = sizeof model_families / sizeof model_families[0] };

/* --model: every launch of one launch graph (the regions' too, once each) with its kernel's
 * estimate against its roofline, summed per family and in all, each launch charged the
 * dependent launch (cg_tune_launch_us) on top, in a row of its own. A kernel launch without a row,
 * a family of the model or an estimate is unaccounted: reported, and counted as a problem. */
static int model_summary(const target_info *ti, const char *label, const cJSON *graph, const cost_list *costs,
                         FILE *out) {
  double est[NFAM + 1] = {0}, ideal[NFAM + 1] = {0};
  int count[NFAM + 1] = {0}, launches = 0, unaccounted = 0;
  const cJSON *n;
  cJSON_ArrayForEach(n, cJSON_GetObjectItemCaseSensitive(graph, "launches")) {
    const char *kind = tb_jstr(n, "kind");
    tb_cost c;
    memset(&c, 0, sizeof c);
    if (!strcmp(kind, "kernel")) {
      const cJSON *k;
      int id = tb_jint(n, "kernel", -1);
      cJSON_ArrayForEach(k, cJSON_GetObjectItemCaseSensitive(graph, "kernels")) if (tb_jint(k, "id", -2) == id) {
        const tb_cost *f = cost_find(costs, tb_jstr(k, "name"));
        if (f)
          c = *f;
      }
    } else if (!strcmp(kind, "copy") || !strcmp(kind, "fill")) {
      tb_node_row(ti, n, NULL, &c);
    } else {
      continue;
    }
    int f = 0;
    while (f < NFAM && strcmp(model_families[f], c.family))
      f++;
    if (f == NFAM || c.est_us <= 0) {
      fprintf(out, "error: launch %d (%s) on %s%s is not accounted for: %s\n", tb_jint(n, "id", -1), kind,
              ti->name, label, f == NFAM ? "no row of a family" : "no estimate");
      unaccounted++;
    }
    est[f] += c.est_us, ideal[f] += c.ideal_us, count[f]++;
    est[NFAM] += c.est_us, ideal[NFAM] += c.ideal_us, launches++;
  }
  /* every launch waits for the one before it: the dependent launch the tuning layer prices */
  double gap = launches * cg_tune_launch_us(ti);
  est[NFAM] += gap;
  fprintf(out, "model %s%s: %d launches, estimated %.1f us, roofline %.1f us: %.0f%% of the roofline (%.2fx)\n",
          ti->name, label, launches, est[NFAM], ideal[NFAM], est[NFAM] > 0 ? 100.0 * ideal[NFAM] / est[NFAM] : 0,
          ideal[NFAM] > 0 ? est[NFAM] / ideal[NFAM] : 0);
  /* the kernels alone: how far the code is from its roofline, whatever the runtime's launch gap */
  double kern = est[NFAM] - gap;
  fprintf(out, "kernels %s%s: estimated %.1f us: %.0f%% of the roofline (%.2fx), launch gaps %.1f us\n", ti->name,
          label, kern, kern > 0 ? 100.0 * ideal[NFAM] / kern : 0, ideal[NFAM] > 0 ? kern / ideal[NFAM] : 0, gap);
  fprintf(out, "  %-12s %8s %10s %6s %11s %9s\n", "family", "launches", "est_us", "share", "roofline_us", "roofline");
  fprintf(out, "  %-12s %8d %10.1f %5.1f%% %11.1f %9s\n", "launch", launches, gap,
          est[NFAM] > 0 ? 100.0 * gap / est[NFAM] : 0, 0.0, "-");
  for (int f = 0; f <= NFAM; f++)
    if (count[f] > 0)
      fprintf(out, "  %-12s %8d %10.1f %5.1f%% %11.1f %8.0f%%\n", f < NFAM ? model_families[f] : "other", count[f],
              est[f], est[NFAM] > 0 ? 100.0 * est[f] / est[NFAM] : 0, ideal[f], est[f] > 0 ? 100.0 * ideal[f] / est[f] : 0);
  return unaccounted;
}

int tb_quality(const tb_bundle *b, const char *manifest_text, const tb_quality_options *o,
               FILE *out) {
  tb_quality_init();
  cJSON *m = cJSON_Parse(manifest_text);
  if (!m) {
    fprintf(out, "error: the manifest is not valid JSON\n");
    return 1;
  }
  fprintf(out, "%-8s %-42s %-5s %-22s %-28s %4s %4s %6s %3s %5s %4s %7s %-13s %7s %8s  %-8s  %s\n",
          "target", "problem", "type", "tile", "instruction", "vgpr", "agpr", "lds", "w/s", "spill",
          "loop", "cycles", "model", "mma%", "est_us", "roofline", "ceiling");
  const cJSON *es = cJSON_GetObjectItemCaseSensitive(m, "entries");
  int ntargets = cJSON_GetArraySize(cJSON_GetObjectItemCaseSensitive(m, "targets"));
  cost_list *costs = calloc((size_t)ntargets + 1, sizeof *costs);
  const target_info **tis = calloc((size_t)ntargets + 1, sizeof *tis);
  const bnd_entry **ents = calloc((size_t)ntargets + 1, sizeof *ents);
  int problems = 0;
  /* the GEMM family's rows, then the other families' (a second table, when there are any),
   * then the model */
  char *second = NULL;
  size_t second_size = 0;
  FILE *rows = out;
  for (int pass = 0; pass < 2; pass++) {
    if (pass == 1 && !(rows = open_memstream(&second, &second_size)))
      break;
    for (int ti = 0; ti < ntargets; ti++) {
      const cJSON *t = cJSON_GetArrayItem(cJSON_GetObjectItemCaseSensitive(m, "targets"), ti);
      const char *proc = tb_jstr(t, "processor");
      tis[ti] = target_lookup(proc, strlen(proc));
      ents[ti] = tb_find(b, tb_jstr(t, "bundle_entry_id"));
      if (!tis[ti] || !ents[ti]) {
        if (pass == 0) {
          fprintf(out, "error: target '%s' of the manifest is not in the bundle\n", proc);
          problems++;
        }
        continue;
      }
      /* the top level's kernels, then every entry function's (a shared kernel once) */
      problems += report_kernels(o, tis[ti], t, t, ents[ti], pass == 0, &costs[ti], rows);
      for (int en = 0; cJSON_IsArray(es) && en < cJSON_GetArraySize(es); en++) {
        const cJSON *ets = cJSON_GetObjectItemCaseSensitive(cJSON_GetArrayItem(es, en), "targets");
        problems += report_kernels(o, tis[ti], t, cJSON_GetArrayItem(ets, ti), ents[ti], pass == 0, &costs[ti], rows);
      }
      if (pass == 1)
        problems += report_nodes(tis[ti], t, rows);
    }
  }
  if (rows != out) {
    fclose(rows);
    if (second_size) {
      fputc('\n', out);
      tb_family_header(out);
      fputs(second, out);
    }
    free(second);
  }
  for (int ti = 0; o->model && ti < ntargets; ti++) {
    if (!tis[ti] || !ents[ti])
      continue;
    if (ti == 0)
      fputc('\n', out);
    const cJSON *t = cJSON_GetArrayItem(cJSON_GetObjectItemCaseSensitive(m, "targets"), ti);
    int nes = cJSON_IsArray(es) ? cJSON_GetArraySize(es) : 0;
    problems += model_summary(tis[ti], "", t, &costs[ti], out);
    for (int en = 1; en < nes; en++) {
      const cJSON *entry = cJSON_GetArrayItem(es, en);
      char label[96];
      snprintf(label, sizeof label, " (entry %s)", tb_jstr(entry, "name"));
      const cJSON *et = cJSON_GetArrayItem(cJSON_GetObjectItemCaseSensitive(entry, "targets"), ti);
      problems += model_summary(tis[ti], label, et, &costs[ti], out);
    }
  }
  for (int ti = 0; ti < ntargets; ti++)
    free(costs[ti].v);
  free(costs);
  free(tis);
  free(ents);
  cJSON_Delete(m);
  return problems;
}
