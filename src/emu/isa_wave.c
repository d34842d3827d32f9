/* isa_wave.c: run a launch as machine code. Each work-group's waves start as the hardware starts
 * them from the kernel descriptor (user SGPRs, work-group ids in the system SGPRs, work-item ids
 * in v0..v2 or packed in v0, EXEC for partial waves; ISA.md §1), then run round-robin between
 * barriers. Loads complete at issue, but every outstanding load is kept on a scoreboard until the
 * s_waitcnt that covers it: touching its registers earlier is a "missing s_waitcnt" error. */
#include "isa_int.h"

#include <inttypes.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* ---------------------------------------------------------------- loading */
bool isa_load(isa_module *m, const uint8_t *elf, size_t size, const emu_target *t, char *err, size_t errsize) {
  memset(m, 0, sizeof *m);
  m->target = *t;
  m->info = target_lookup(t->processor, strlen(t->processor));
  if (!m->info) {
    snprintf(err, errsize, "the machine-code emulator does not know target %s", t->processor);
    return false;
  }
  if (!isa_code_read(elf, size, m, err, errsize))
    return false;
  for (int i = 0; i < m->nkernels; i++) {
    if (!isa_decode_kernel(m, &m->kernels[i], err, errsize))
      return false;
    isa_hazard_prepare(m, &m->kernels[i]);
  }
  const char *f = getenv("TOSAC_ISA_OPCODES");
  if (f && *f) {
    m->opcodes_file = f;
    for (int i = 0; i < m->nkernels; i++)
      m->kernels[i].executed = calloc((size_t)m->kernels[i].ninsts + 1, 1);
  }
  return true;
}

static int cmp_name(const void *a, const void *b) { return strcmp(*(const char *const *)a, *(const char *const *)b); }

/* Appends "PROCESSOR MNEMONIC" for every distinct opcode the module's waves executed (VOPD: both
 * halves) to TOSAC_ISA_OPCODES; lines of several processes may interleave, not tear (O_APPEND). */
static void write_opcodes(const isa_module *m) {
  size_t n = 0, cap = 0;
  const char **names = NULL;
  for (int i = 0; i < m->nkernels; i++) {
    const isa_kernel *k = &m->kernels[i];
    for (int j = 0; k->executed && j < k->ninsts; j++) {
      if (!k->executed[j])
        continue;
      for (const isa_inst *in = &k->insts[j]; in; in = in->dual) {
        if (n == cap)
          names = realloc(names, sizeof *names * (cap = cap ? 2 * cap : 256));
        names[n++] = in->mnemonic;
      }
    }
  }
  FILE *f = n ? fopen(m->opcodes_file, "a") : NULL;
  if (f) {
    qsort(names, n, sizeof *names, cmp_name);
    for (size_t i = 0; i < n; i++)
      if (i == 0 || strcmp(names[i], names[i - 1]))
        fprintf(f, "%s %s\n", m->target.processor, names[i]);
    fclose(f);
  }
  free(names);
}

static void free_inst(isa_inst *in) {
  if (in->def == &isa_cmp_def || in->def == &isa_matrix_def) /* strdup'd by the decoder */
    free((char *)in->mnemonic);
  if (in->dual) {
    free_inst(in->dual);
    free(in->dual);
  }
}

void isa_free(isa_module *m) {
  if (m->opcodes_file)
    write_opcodes(m);
  for (int i = 0; i < m->nkernels; i++) {
    isa_kernel *k = &m->kernels[i];
    free(k->executed);
    for (int j = 0; k->insts && j < k->ninsts; j++)
      free_inst(&k->insts[j]);
    free(k->insts);
    free(k->name);
    isa_hazard_free_kernel(k);
  }
  free(m->kernels);
  free(m->image);
  memset(m, 0, sizeof *m);
}

const isa_kernel *isa_kernel_named(const isa_module *m, const char *name) {
  for (int i = 0; i < m->nkernels; i++)
    if (!strcmp(m->kernels[i].name, name))
      return &m->kernels[i];
  return NULL;
}

/* ---------------------------------------------------------------- faults */
void isa_fault(isa_wave *w, const isa_inst *in, const char *fmt, ...) {
  if (w->state == WS_FAULT)
    return;
  w->state = WS_FAULT;
  isa_group *g = w->g;
  if (g->failed)
    return;
  g->failed = true;
  char msg[512];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(msg, sizeof msg, fmt, ap);
  va_end(ap);
  snprintf(g->err, g->errsize, "kernel %s, work-group (%u,%u,%u), wave %d, instruction at 0x%x (%s): %s", g->k->name,
           g->id[0], g->id[1], g->id[2], w->id, in->pc, in->mnemonic, msg);
}

/* ---------------------------------------------------------------- memory */
typedef struct range {
  uint64_t lo, hi;
  bool writable;
} range;

void *isa_mem(isa_wave *w, const isa_inst *in, uint64_t addr, uint64_t size, bool store, int lane) {
  isa_group *g = w->g;
  const emu_launch *l = g->l;
  if (addr + size < addr)
    goto bad;
  for (int i = 0; i < l->nbuffers; i++) {
    uint64_t lo = (uint64_t)(uintptr_t)l->buffers[i].base;
    if (addr >= lo && addr + size <= lo + l->buffers[i].size) {
      if (l->buffers[i].written && !isa_written_shadow(w, in, &l->buffers[i], addr - lo, size, store, lane))
        return NULL;
      return (void *)(uintptr_t)addr;
    }
  }
  const range ro[] = {
      {(uint64_t)(uintptr_t)l->kernarg, (uint64_t)(uintptr_t)l->kernarg + emu_kernarg_alloc_size(l->kernarg_size),
       false},
      {g->dispatch_ptr, g->dispatch_ptr + 64, false},
      {g->queue_ptr, g->queue_ptr + 256, false},
      {(uint64_t)(uintptr_t)g->m->image, (uint64_t)(uintptr_t)g->m->image + g->m->image_size, false},
  };
  for (size_t i = 0; i < sizeof ro / sizeof ro[0]; i++)
    if (addr >= ro[i].lo && addr + size <= ro[i].hi) {
      if (store)
        break;
      return (void *)(uintptr_t)addr;
    }
bad:
  isa_fault(w, in, "lane %d %s %" PRIu64 " bytes at 0x%" PRIx64 ", outside every buffer of the launch", lane,
            store ? "stores" : "loads", size, addr);
  return NULL;
}

bool isa_global_written(isa_wave *w, const isa_inst *in, uint64_t addr, uint64_t size, const void *data, int lane) {
  isa_group *g = w->g;
  const emu_launch *l = g->l;
  int b = 0;
  uint64_t lo = 0;
  for (; b < l->nbuffers; b++) {
    lo = (uint64_t)(uintptr_t)l->buffers[b].base;
    if (addr >= lo && addr + size <= lo + l->buffers[b].size)
      break;
  }
  if (b == l->nbuffers)
    return true;
  uint32_t **slot = &g->written->map[b], *map = __atomic_load_n(slot, __ATOMIC_ACQUIRE);
  if (!map) {
    uint32_t *fresh = calloc((l->buffers[b].size + 3) / 4 + 1, sizeof *fresh);
    if (__atomic_compare_exchange_n(slot, &map, fresh, false, __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE))
      map = fresh;
    else
      free(fresh);
  }
  uint32_t me = g->linear % 0x0fffffffu + 1;
  bool same = !memcmp((const void *)(uintptr_t)addr, data, (size_t)size);
  for (uint64_t a = addr & ~3ull; a < addr + size; a += 4) {
    uint64_t s0 = a > addr ? a : addr, s1 = a + 4 < addr + size ? a + 4 : addr + size;
    uint32_t bytes = ((1u << (s1 - s0)) - 1) << (s0 - a);
    uint32_t *e = &map[(a - lo) / 4], old = __atomic_load_n(e, __ATOMIC_RELAXED);
    uint32_t owner = old >> 4;
    if (owner && owner != me && (old & bytes) && !same) {
      uint32_t other = owner - 1, gx = l->grid[0], gy = l->grid[1];
      isa_fault(w, in,
                "lane %d writes global bytes at %s+%" PRIu64 " that work-group (%u,%u,%u) of this launch wrote "
                "too, without atomics",
                lane, l->buffers[b].name ? l->buffers[b].name : "buffer", a - lo, other % gx, other / gx % gy,
                other / (gx * gy));
      return false;
    }
    __atomic_store_n(e, me << 4 | (owner == me ? (old & 15) | bytes : bytes), __ATOMIC_RELAXED);
  }
  return true;
}

/* ---------------------------------------------------------------- the wait scoreboard */
static void retire(isa_wave *w, int counter, int keep);

void isa_pend(isa_wave *w, const isa_inst *in, int counter, int kind, int reg, int n) {
  if (w->npend == w->cappend) {
    w->cappend = w->cappend ? 2 * w->cappend : 16;
    w->pend = realloc(w->pend, sizeof *w->pend * (size_t)w->cappend);
  }
  w->pend[w->npend++] =
      (isa_pending){++w->seq, (uint8_t)counter, (uint8_t)kind, (uint16_t)reg, (uint16_t)n, in->pc};
  /* A counter never exceeds its width: the wave stalls at issue until the oldest operation
   * completes, and SIInsertWaitcnts relies on that (no wait for a load more than the maximum
   * operations back). */
  int max = counter == CNT_LGKM ? w->g->m->info->lgkm_max : counter == CNT_EXP ? 7 : 63;
  retire(w, counter, max);
}

/* kind: the register kind of the operations counted (gfx12 splits lgkmcnt into kmcnt for scalar
 * loads and dscnt for LDS), OK_NONE for all. */
static void retire_kind(isa_wave *w, int counter, int kind, int keep) {
  int count = 0;
  bool out_of_order = false;
#define COUNTED(e) ((e).counter == counter && (kind == OK_NONE || (e).kind == kind))
  for (int i = 0; i < w->npend; i++)
    if (COUNTED(w->pend[i])) {
      count++;
      out_of_order |= counter == CNT_LGKM && w->pend[i].kind == OK_SGPR; /* scalar loads */
    }
  if (count <= keep)
    return;
  /* In-order counters retire their oldest operations; with scalar loads among them only a
   * wait for 0 proves which ones completed. */
  int drop = out_of_order && keep > 0 ? 0 : count - keep, j = 0;
  for (int i = 0; i < w->npend; i++) {
    if (COUNTED(w->pend[i]) && drop > 0) {
      drop--;
      continue;
    }
    w->pend[j++] = w->pend[i];
  }
  w->npend = j;
#undef COUNTED
}
static void retire(isa_wave *w, int counter, int keep) { retire_kind(w, counter, OK_NONE, keep); }

/* gfx12's split counters: arg selects the counter, the operand is the count. */
enum { W_LOAD, W_STORE, W_DS, W_KM, W_LOAD_DS, W_STORE_DS };
void isa_wait_split(isa_wave *w, const isa_inst *in) {
  int n = in->nops ? (int)in->o[0].imm : 0;
  switch (in->def->arg) {
  case W_LOAD: retire(w, CNT_VM, n); break;
  case W_STORE: retire(w, CNT_VS, n); break;
  case W_DS: retire_kind(w, CNT_LGKM, OK_VGPR, n); break;
  case W_KM: retire_kind(w, CNT_LGKM, OK_SGPR, n); break;
  case W_LOAD_DS: /* load count in [13:8], dscnt in [5:0] */
    retire(w, CNT_VM, (n >> 8) & 0x3f);
    retire_kind(w, CNT_LGKM, OK_VGPR, n & 0x3f);
    break;
  default:
    retire(w, CNT_VS, (n >> 8) & 0x3f);
    retire_kind(w, CNT_LGKM, OK_VGPR, n & 0x3f);
  }
}

void isa_waitcnt(isa_wave *w, const isa_inst *in) {
  for (int c = 0; c < CNT_N; c++)
    if (in->wait[c] >= 0)
      retire(w, c, in->wait[c]);
}

static const char *const kind_prefix[] = {"", "s", "v", "a"};

static bool check_operands(isa_wave *w, const isa_inst *in, const isa_inst *at) {
  for (int i = 0; i < in->nops; i++) {
    const isa_opnd *o = &in->o[i];
    if (o->kind != OK_SGPR && o->kind != OK_VGPR && o->kind != OK_AGPR)
      continue;
    for (int p = 0; p < w->npend; p++) {
      const isa_pending *e = &w->pend[p];
      if (e->kind != o->kind || o->reg >= e->reg + e->n || e->reg >= o->reg + o->n)
        continue;
      /* Loads of one in-order counter complete in order: a later load may overwrite (d16
       * halves) what an earlier one writes. */
      if (i == 0 && e->counter == CNT_VM && isa_is_vector_load(in))
        continue;
      int r = o->reg > e->reg ? o->reg : e->reg;
      isa_fault(w, at, "missing s_waitcnt: %s%d is still being written by the load at 0x%x", kind_prefix[o->kind], r,
                e->pc);
      return false;
    }
  }
  return true;
}

static bool check_pending(isa_wave *w, const isa_inst *in) {
  for (const isa_inst *h = in; h; h = h->dual)
    if (!check_operands(w, h, in))
      return false;
  return true;
}

/* ---------------------------------------------------------------- starting waves */
typedef struct isa_worker {
  isa_wave *waves;
  int nwaves, cap;
  uint32_t *vfile;
  size_t vfile_size;
  uint8_t *priv; /* private memory of the group's waves */
  size_t priv_size;
} isa_worker;

static void init_wave(isa_wave *w, isa_group *g, int id, const uint32_t block[3]) {
  const isa_kernel *k = g->k;
  const isa_module *m = g->m;
  const emu_launch *l = g->l;
  memset(w->s, 0, sizeof w->s);
  w->scc = false, w->pc = 0, w->state = WS_RUN, w->id = id, w->g = g, w->npend = 0;
  w->lanes = k->wave_size;
  w->lanemask = w->lanes == 64 ? ~0ull : (1ull << w->lanes) - 1;
  w->mode = (k->rsrc1 >> 12) & 0xff;
  /* User SGPRs, packed in this order as the enable bits say (ISA.md §1.2). */
  int s = 0;
  uint16_t p = k->code_props;
  if (p & 1) { /* private segment buffer V# (isa_exec_scratch.c): swizzled, 4-byte elements */
    uint64_t b = ISA_SCRATCH_BASE;
    w->s[s] = (uint32_t)b, w->s[s + 1] = (uint32_t)(b >> 32) | 1u << 31;
    w->s[s + 2] = 0xffffffffu, w->s[s + 3] = 1u << 23 | 3u << 21 | 1u << 19;
    s += 4;
  }
  if (p & 2) {
    w->s[s] = (uint32_t)g->dispatch_ptr, w->s[s + 1] = (uint32_t)(g->dispatch_ptr >> 32);
    s += 2;
  }
  if (p & 4) {
    w->s[s] = (uint32_t)g->queue_ptr, w->s[s + 1] = (uint32_t)(g->queue_ptr >> 32);
    s += 2;
  }
  if (p & 8) {
    uint64_t ka = (uint64_t)(uintptr_t)l->kernarg;
    w->s[s] = (uint32_t)ka, w->s[s + 1] = (uint32_t)(ka >> 32);
    s += 2;
  }
  if (p & 16)
    s += 2; /* dispatch id 0 */
  if (p & 32) { /* flat scratch init: the scratch base (the wave adds its offset) */
    w->s[s] = (uint32_t)ISA_SCRATCH_BASE, w->s[s + 1] = (uint32_t)(ISA_SCRATCH_BASE >> 32);
    s += 2;
  }
  if (p & 64)
    w->s[s++] = k->private_segment_size;
  int preload = k->kernarg_preload & 0x7f, preload_off = k->kernarg_preload >> 7;
  for (int i = 0; i < preload && s < 16; i++, s++)
    if ((size_t)(preload_off + i) * 4 + 4 <= l->kernarg_size)
      memcpy(&w->s[s], l->kernarg + (preload_off + i) * 4, 4);
  /* System SGPRs from USER_SGPR_COUNT on. */
  int sys = (k->rsrc2 >> 1) & 0x1f;
  for (int d = 0; d < 3; d++)
    if (k->rsrc2 >> (7 + d) & 1)
      w->s[sys++] = g->id[d];
  if (k->rsrc2 >> 10 & 1) {
    int nw = (int)((block[0] * block[1] * block[2] + (uint32_t)w->lanes - 1) / (uint32_t)w->lanes);
    w->s[sys++] = (id == 0 ? 1u << 31 : 0) | (uint32_t)nw;
  }
  /* The scratch wave offset SGPR comes last; architected flat scratch (neither private
   * segment buffer nor flat scratch init may be enabled there) has none. */
  if ((k->rsrc2 & 1) && (p & (1 | 32)))
    w->s[sys++] = isa_scratch_wave_offset(w);
  /* Architected work-group ids (gfx12): TTMP9 = x, TTMP7 = y | z << 16. */
  w->s[ISA_TTMP + 9] = g->id[0];
  w->s[ISA_TTMP + 7] = g->id[1] | g->id[2] << 16;
  /* Work-item ids and EXEC. */
  uint32_t total = block[0] * block[1] * block[2];
  uint64_t exec = 0;
  int ids = (k->rsrc2 >> 11) & 3;
  for (int lane = 0; lane < w->lanes; lane++) {
    uint32_t f = (uint32_t)(id * w->lanes + lane);
    if (f >= total)
      continue;
    exec |= 1ull << lane;
    uint32_t x = f % block[0], y = f / block[0] % block[1], z = f / (block[0] * block[1]);
    if (m->info->packed_workitem_ids) {
      w->v[lane] = x | (ids >= 1 ? y << 10 : 0) | (ids >= 2 ? z << 20 : 0);
    } else {
      w->v[lane] = x;
      if (ids >= 1)
        w->v[ISA_LANES + lane] = y;
      if (ids >= 2)
        w->v[2 * ISA_LANES + lane] = z;
    }
  }
  w->s[ISA_EXEC] = (uint32_t)exec;
  w->s[ISA_EXEC + 1] = (uint32_t)(exec >> 32);
}

/* TOSAC_ISA_TRACE=N prints every instruction wave N of work-group 0 executes (debugging). */
static int trace_wave = -2;

static void run_wave(isa_wave *w) {
  const isa_inst *insts = w->g->k->insts;
  if (trace_wave == -2) {
    const char *e = getenv("TOSAC_ISA_TRACE");
    trace_wave = e ? atoi(e) : -1;
  }
  bool trace = trace_wave == w->id && !w->g->id[0] && !w->g->id[1] && !w->g->id[2];
  uint8_t *executed = w->g->k->executed;
  bool hazards = w->g->k->hz != NULL;
  uint64_t max_steps = w->g->l->max_steps;
  while (w->state == WS_RUN) {
    if (executed && !__atomic_load_n(&executed[w->pc], __ATOMIC_RELAXED))
      __atomic_store_n(&executed[w->pc], 1, __ATOMIC_RELAXED);
    const isa_inst *in = &insts[w->pc++];
    if (max_steps && ++w->steps > max_steps) {
      isa_fault(w, in, "the wave executed more than %llu instructions (the launch's step limit)", (unsigned long long)max_steps);
      break;
    }
    if (trace)
      fprintf(stderr, "0x%x %-24s exec %016llx vcc %016llx scc %d\n", in->pc, in->mnemonic,
              (unsigned long long)isa_exec(w), (unsigned long long)isa_vcc(w), w->scc);
    if (w->npend && !check_pending(w, in))
      break;
    if (hazards && !isa_hazard_step(w, in))
      break;
    in->fn(w, in);
    if (trace && in->nops && in->o[0].kind != OK_IMM)
      fprintf(stderr, "    -> %08x %08x\n", isa_reg32(w, &in->o[0], 0, 0),
              in->o[0].n > 1 ? isa_reg32(w, &in->o[0], 1, 0) : 0);
  }
}

/* Run one work-group to completion: waves in turn, each until it ends or reaches a barrier. */
static bool run_group(isa_worker *wk, isa_group *g, const uint32_t block[3]) {
  const isa_kernel *k = g->k;
  uint32_t total = block[0] * block[1] * block[2];
  int nw = (int)((total + (uint32_t)k->wave_size - 1) / (uint32_t)k->wave_size);
  int nv = k->nvgpr + 1; /* + the VOPD staging register */
  size_t per = (size_t)nv * ISA_LANES;
  if (nw > wk->cap) {
    wk->waves = realloc(wk->waves, sizeof *wk->waves * (size_t)nw);
    memset(wk->waves + wk->cap, 0, sizeof *wk->waves * (size_t)(nw - wk->cap));
    wk->cap = nw;
  }
  if (per * (size_t)nw * 2 > wk->vfile_size) {
    free(wk->vfile);
    wk->vfile_size = per * (size_t)nw * 2;
    wk->vfile = malloc(wk->vfile_size * sizeof *wk->vfile);
  }
  uint32_t priv_limit = (uint32_t)isa_private_limit(k); /* at most 256 KiB: isa_code.c */
  size_t priv_wave = (size_t)priv_limit * (size_t)k->wave_size;
  if (priv_wave * (size_t)nw > wk->priv_size) {
    free(wk->priv);
    wk->priv_size = priv_wave * (size_t)nw;
    wk->priv = malloc(wk->priv_size);
  }
  if (priv_wave) /* zeroed: runs do not depend on what an earlier group left */
    memset(wk->priv, 0, priv_wave * (size_t)nw);
  bool agpr_file = g->m->info->agpr_file && k->nagpr;
  memset(wk->vfile, 0, per * (size_t)nw * (agpr_file ? 2 : 1) * sizeof *wk->vfile);
  for (int i = 0; i < nw; i++) {
    isa_wave *w = &wk->waves[i];
    w->v = wk->vfile + per * (size_t)i;
    w->a = agpr_file ? wk->vfile + per * (size_t)(nw + i) : NULL;
    w->nv = nv;
    w->priv = priv_wave ? wk->priv + priv_wave * (size_t)i : NULL;
    w->priv_limit = priv_limit;
    init_wave(w, g, i, block);
    w->steps = 0;
    isa_hazard_start(w);
  }
  for (;;) {
    int running = 0, waiting = 0;
    for (int i = 0; i < nw; i++) {
      isa_wave *w = &wk->waves[i];
      if (w->state == WS_RUN)
        run_wave(w);
      if (w->state == WS_FAULT)
        return false;
    }
    for (int i = 0; i < nw; i++) {
      running += wk->waves[i].state == WS_RUN;
      waiting += wk->waves[i].state == WS_BARRIER;
    }
    if (!waiting && !running)
      return true;
    /* Every wave is at the barrier or done (waves that ended count as arrived). */
    g->epoch++;
    for (int i = 0; i < nw; i++)
      if (wk->waves[i].state == WS_BARRIER)
        wk->waves[i].state = WS_RUN;
  }
}

/* ---------------------------------------------------------------- the launch */
typedef struct launch_ctx {
  const isa_module *m;
  const isa_kernel *k;
  const emu_launch *l;
  uint64_t dispatch_ptr, queue_ptr;
  isa_written *written;
  uint64_t ngroups;
  atomic_ullong next;
  atomic_bool failed;
  pthread_mutex_t lock;
  uint64_t fail_group; /* the lowest failing work-group so far: its error is the one reported */
  char *err;
  size_t errsize;
} launch_ctx;

static void *worker_main(void *arg) {
  launch_ctx *c = arg;
  isa_worker wk = {0};
  char err[1024];
  uint32_t lds_size = c->k->group_segment_size;
  uint8_t *lds = lds_size ? aligned_alloc(16, (lds_size + 15) / 16 * 16) : NULL;
  isa_lds_owner *owner = lds_size ? malloc(sizeof *owner * ((lds_size + 3) / 4)) : NULL;
  for (;;) {
    uint64_t gi = atomic_fetch_add(&c->next, 1);
    if (gi >= c->ngroups || atomic_load(&c->failed))
      break;
    const emu_launch *l = c->l;
    isa_group g = {.m = c->m, .k = c->k, .l = l, .lds = lds, .lds_size = lds_size, .owner = owner, .epoch = 1,
                   .dispatch_ptr = c->dispatch_ptr, .queue_ptr = c->queue_ptr, .written = c->written,
                   .linear = (uint32_t)gi, .err = err, .errsize = sizeof err};
    g.id[0] = (uint32_t)(gi % l->grid[0]);
    g.id[1] = (uint32_t)(gi / l->grid[0] % l->grid[1]);
    g.id[2] = (uint32_t)(gi / ((uint64_t)l->grid[0] * l->grid[1]));
    if (lds) {
      memset(lds, 0, lds_size);
      memset(owner, 0, sizeof *owner * ((lds_size + 3) / 4));
    }
    if (!run_group(&wk, &g, l->block)) {
      /* Work-groups are handed out in order, so every lower one is already running and finishes:
       * keeping the lowest failure makes the report independent of thread timing. */
      pthread_mutex_lock(&c->lock);
      if (!atomic_load(&c->failed) || gi < c->fail_group) {
        c->fail_group = gi;
        snprintf(c->err, c->errsize, "%s", err);
      }
      atomic_store(&c->failed, true);
      pthread_mutex_unlock(&c->lock);
      break;
    }
  }
  for (int i = 0; i < wk.cap; i++) {
    free(wk.waves[i].pend);
    isa_hazard_free(&wk.waves[i]);
  }
  free(wk.waves);
  free(wk.vfile);
  free(wk.priv);
  free(lds);
  free(owner);
  return NULL;
}

/* The AQL dispatch packet the dispatch pointer points at (hsa_kernel_dispatch_packet_t). */
static void fill_packet(uint8_t *p, const isa_kernel *k, const emu_launch *l) {
  memset(p, 0, 64);
  uint16_t setup = 3;
  memcpy(p + 2, &setup, 2);
  for (int d = 0; d < 3; d++) {
    uint16_t wg = (uint16_t)l->block[d];
    uint32_t grid = l->block[d] * l->grid[d];
    memcpy(p + 4 + 2 * d, &wg, 2);
    memcpy(p + 12 + 4 * d, &grid, 4);
  }
  memcpy(p + 24, &k->private_segment_size, 4);
  memcpy(p + 28, &k->group_segment_size, 4);
  uint64_t ka = (uint64_t)(uintptr_t)l->kernarg;
  memcpy(p + 40, &ka, 8);
}

bool isa_run(const isa_module *m, const emu_launch *l, int threads, char *err, size_t errsize) {
  const isa_kernel *k = isa_kernel_named(m, l->kernel);
  if (!k) {
    snprintf(err, errsize, "kernel %s is not in the code object for %s", l->kernel, m->target.processor);
    return false;
  }
  if (l->kernarg_size < k->kernarg_size) {
    snprintf(err, errsize, "kernel %s: the launch passes %zu kernarg bytes, its descriptor needs %u", k->name,
             l->kernarg_size, k->kernarg_size);
    return false;
  }
  uint64_t per_group = (uint64_t)l->block[0] * l->block[1] * l->block[2];
  if (per_group == 0 || per_group > 1024) {
    snprintf(err, errsize, "kernel %s: a work-group of %" PRIu64 " work-items", k->name, per_group);
    return false;
  }
  uint8_t *packet = aligned_alloc(64, 64 + 256);
  fill_packet(packet, k, l);
  memset(packet + 64, 0, 256);
  isa_written written = {calloc((size_t)l->nbuffers + 1, sizeof *written.map)};
  launch_ctx c = {.m = m, .k = k, .l = l, .dispatch_ptr = (uint64_t)(uintptr_t)packet,
                  .queue_ptr = (uint64_t)(uintptr_t)(packet + 64), .written = &written, .err = err,
                  .errsize = errsize};
  c.ngroups = (uint64_t)l->grid[0] * l->grid[1] * l->grid[2];
  atomic_init(&c.next, 0);
  atomic_init(&c.failed, false);
  pthread_mutex_init(&c.lock, NULL);
  if (threads > 1 && c.ngroups > 1) {
    int n = threads < (int)c.ngroups ? threads : (int)c.ngroups;
    pthread_t tid[64];
    n = n > 64 ? 64 : n;
    for (int i = 0; i < n; i++)
      pthread_create(&tid[i], NULL, worker_main, &c);
    for (int i = 0; i < n; i++)
      pthread_join(tid[i], NULL);
  } else {
    worker_main(&c);
  }
  pthread_mutex_destroy(&c.lock);
  for (int i = 0; i < l->nbuffers; i++)
    free(written.map[i]);
  free(written.map);
  free(packet);
  return !atomic_load(&c.failed);
}
