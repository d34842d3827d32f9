/* isa_hazard.c: the wait-state hazards of the gfx9 family that the hardware does not interlock
 * and the compiler must cover with independent instructions or s_nop (ISA.md §6, LLVM's
 * GCNHazardRecognizer). Results are instant in the emulator, so a missing wait state would go
 * unnoticed; instead every wave keeps a wait-state clock (one per issued instruction, N + 1 for
 * s_nop N) and, per register, which matrix or VALU instruction last wrote it (and which matrix
 * instruction last read it as src C) at what clock, and each instruction is checked against the
 * distance its target family requires. gfx10+ have no such data-dependency hazards. */
#include "isa_int.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* What an instruction is to the hazard rules (decided once per kernel). */
enum {
  HZ_OTHER,     /* SALU, SMEM, program control: one wait state, nothing checked */
  HZ_NOP,       /* s_nop N: N + 1 wait states */
  HZ_VALU,      /* reads and writes VGPRs */
  HZ_DOT,       /* v_dot*: a VALU whose writes LLVM does not count as legacy VALU writes */
  HZ_VMEM,      /* buffer/global/flat/scratch: VGPR addresses and data, SGPR addresses */
  HZ_DS,        /* LDS */
  HZ_MFMA,      /* D = o[0], A = o[1], B = o[2], C = o[3] */
  HZ_ACC_READ,  /* v_accvgpr_read: the AGPR source of gfx908's separate file */
  HZ_ACC_WRITE, /* v_accvgpr_write */
  HZ_LANE,      /* v_readlane/v_writelane: o[2] is the lane select */
  HZ_DIV_FMAS,  /* v_div_fmas reads VCC */
};

typedef struct isa_hz_inst {
  uint8_t kind, passes; /* passes of an MFMA (the matrix unit's cycles / 4) */
  bool xdl;             /* gfx94x: an XDL matrix instruction (not f32), longer forwarding */
  uint8_t first_src;    /* operands before it are destinations */
} isa_hz_inst;

/* Wait states needed after a matrix instruction of p passes: base + p * per_pass, + gt2 when
 * p > 2; never below 0. */
typedef struct hz_rule {
  int8_t base, per_pass, gt2;
} hz_rule;

/* One row per target family: the numbers of GCNHazardRecognizer (checkMAIHazards908/90A,
 * checkMAIVALUHazards, checkMAILdStHazards, checkRWLaneHazards, checkVMEMHazards,
 * checkDivFMasHazards), [0] for a non-XDL writer, [1] for an XDL writer (gfx90a: all alike). */
typedef struct hz_family {
  const char *processor;
  hz_rule mfma_read[2];  /* MFMA writes a register -> VALU, VMEM, LDS reads it */
  hz_rule mfma_write[2]; /* -> VALU writes it (WAW) */
  hz_rule mfma_srcab[2]; /* -> another MFMA reads it as A or B */
  hz_rule mfma_srcc[2];  /* -> another MFMA reads an overlapping, different tuple as C */
  hz_rule same_srcc[2];  /* -> the next MFMA of a chain reads exactly that tuple as C */
  hz_rule srcc_write;    /* MFMA reads C -> VALU overwrites it (WAR) */
  int8_t valu_mfma;      /* VALU writes a VGPR -> MFMA reads it */
  int8_t valu_exec_mfma; /* VALU writes EXEC -> MFMA */
  int8_t accw_srcc, accw_srcab, accw_accr; /* gfx908: v_accvgpr_write -> MFMA C, A/B, accvgpr_read */
  int8_t accr_mem;       /* gfx908: v_accvgpr_read writes a VGPR -> VMEM/LDS reads it */
  int8_t sgpr_lane;      /* VALU writes an SGPR -> v_readlane/v_writelane lane select */
  int8_t sgpr_vmem;      /* VALU writes an SGPR -> VMEM reads it */
  int8_t vcc_div_fmas;   /* VALU writes VCC -> v_div_fmas */
  bool xdl_c_after_smfma; /* gfx94x: an XDL MFMA reading C written by a non-XDL one needs none */
  bool war_xdl_only;      /* gfx94x: only XDL MFMAs make overwriting their src C a hazard */
} hz_family;

#define R(b, p, g) {b, p, g}
static const hz_family families[] = {
    /* gfx908: MFMA results live in the AGPR file, read back with v_accvgpr_read */
    {"gfx908", {R(2, 1, 0), R(2, 1, 0)}, {R(-1, 1, 0), R(-1, 1, 0)}, {R(4, 0, 0), R(4, 0, 0)},
     {R(2, 0, 0), R(2, 0, 0)}, {R(0, 0, 0), R(0, 0, 0)}, R(-3, 1, 0), 2, 4, 1, 3, 3, 2, 4, 5, 4, false, false},
    {"gfx90a", {R(3, 1, 0), R(3, 1, 0)}, {R(3, 1, 0), R(3, 1, 0)}, {R(3, 1, 0), R(3, 1, 0)},
     {R(0, 1, 0), R(0, 1, 0)}, {R(0, 0, 0), R(0, 0, 0)}, R(-1, 1, 0), 2, 4, 0, 0, 0, 0, 4, 5, 4, false, false},
    {"gfx942", {R(2, 1, 0), R(3, 1, 0)}, {R(2, 1, 0), R(3, 1, 0)}, {R(2, 1, 0), R(3, 1, 0)},
     {R(0, 1, 0), R(1, 1, 0)}, {R(0, 0, 0), R(0, 0, 0)}, R(-1, 1, 0), 2, 4, 0, 0, 0, 0, 4, 5, 4, true, true},
    /* gfx950: XDL results need one more wait state than gfx942 beyond 2 passes */
    {"gfx950", {R(2, 1, 0), R(3, 1, 1)}, {R(2, 1, 0), R(3, 1, 1)}, {R(2, 1, 0), R(3, 1, 1)},
     {R(0, 1, 0), R(1, 1, 0)}, {R(0, 0, 0), R(0, 0, 0)}, R(-1, 1, 0), 2, 4, 0, 0, 0, 0, 4, 5, 4, true, true},
};
#undef R

static int need(hz_rule r, int passes) {
  int n = r.base + r.per_pass * passes + (passes > 2 ? r.gt2 : 0);
  return n > 0 ? n : 0;
}

/* The last writers and src-C reader of one register: clocks and instruction indices (-1: none). */
typedef struct hz_reg {
  uint64_t mfma_w, srcc_r, valu_w;
  int32_t mfma_i, srcc_i, valu_i;
} hz_reg;

typedef struct isa_hz_wave isa_hz_wave;
struct isa_hz_wave {
  const hz_family *f;
  uint64_t clock;
  int nregs;       /* VGPR file (+ gfx908's AGPR file after it) */
  hz_reg *reg;
  uint64_t sgpr_w[ISA_NSGPR]; /* clock of the last VALU write of each SGPR */
  int32_t sgpr_i[ISA_NSGPR];
};

static const hz_family *family_of(const char *processor) {
  for (size_t i = 0; i < sizeof families / sizeof families[0]; i++)
    if (!strcmp(families[i].processor, processor))
      return &families[i];
  return NULL;
}

static bool prefix(const char *s, const char *p) { return !strncmp(s, p, strlen(p)); }

static isa_hz_inst classify(const isa_module *m, const isa_inst *in) {
  const char *mn = in->mnemonic;
  isa_hz_inst h = {HZ_OTHER, 0, false, (uint8_t)isa_first_source(mn)};
  if (!strcmp(mn, "s_nop"))
    h.kind = HZ_NOP;
  else if (prefix(mn, "v_mfma_")) {
    h.kind = HZ_MFMA;
    for (int i = 0; i < target_matrix_count; i++) {
      const target_matrix *t = &target_matrix_table[i];
      if (!strcmp(t->target, m->target.processor) && !strcmp(t->mnemonic, mn)) {
        h.passes = (uint8_t)(t->cycles / 4);
        h.xdl = t->in != ET_F32;
      }
    }
    const target_scaled_matrix *s = target_scaled_matrix_by_mnemonic(m->target.processor, mn);
    if (s)
      h.passes = (uint8_t)(s->cycles_f4 / 4), h.xdl = true;
  } else if (prefix(mn, "v_accvgpr_read"))
    h.kind = HZ_ACC_READ;
  else if (prefix(mn, "v_accvgpr_write"))
    h.kind = HZ_ACC_WRITE;
  else if (prefix(mn, "v_readlane") || prefix(mn, "v_writelane"))
    h.kind = HZ_LANE;
  else if (prefix(mn, "v_div_fmas"))
    h.kind = HZ_DIV_FMAS;
  else if (prefix(mn, "v_dot"))
    h.kind = HZ_DOT;
  else if (prefix(mn, "v_"))
    h.kind = HZ_VALU;
  else if (prefix(mn, "buffer_") || prefix(mn, "global_") || prefix(mn, "flat_") || prefix(mn, "scratch_"))
    h.kind = HZ_VMEM;
  else if (prefix(mn, "ds_"))
    h.kind = HZ_DS;
  return h;
}

void isa_hazard_prepare(isa_module *m, isa_kernel *k) {
  if (!family_of(m->target.processor))
    return; /* no data-dependency hazards to check */
  k->hz = calloc((size_t)k->ninsts + 1, sizeof *k->hz);
  for (int i = 0; i < k->ninsts; i++)
    k->hz[i] = classify(m, &k->insts[i]);
}

void isa_hazard_free_kernel(isa_kernel *k) {
  free(k->hz);
  k->hz = NULL;
}

void isa_hazard_start(isa_wave *w) {
  const isa_kernel *k = w->g->k;
  if (!k->hz)
    return;
  int nregs = w->nv + (w->a ? k->nagpr : 0);
  isa_hz_wave *s = w->hz;
  if (!s || s->nregs < nregs) {
    if (s)
      free(s->reg);
    free(s);
    s = w->hz = calloc(1, sizeof *s);
    s->reg = calloc((size_t)nregs, sizeof *s->reg);
    s->nregs = nregs;
    s->f = family_of(w->g->m->target.processor);
    for (int i = 0; i < nregs; i++)
      s->reg[i].mfma_i = s->reg[i].srcc_i = s->reg[i].valu_i = -1;
    for (int i = 0; i < ISA_NSGPR; i++)
      s->sgpr_i[i] = -1;
  }
  /* A new wave: everything recorded lies far enough in the past to be harmless. */
  s->clock += 1024;
}

void isa_hazard_free(isa_wave *w) {
  if (w->hz)
    free(w->hz->reg);
  free(w->hz);
  w->hz = NULL;
}

/* Index into the per-register records: VGPRs (AGPRs of the unified file included), then gfx908's
 * AGPR file. -1 for other operands. */
static int reg_index(const isa_wave *w, const isa_opnd *o, int i) {
  if (o->kind == OK_VGPR)
    return o->reg + i;
  if (o->kind == OK_AGPR)
    return w->nv + o->reg + i;
  return -1;
}

static const char *reg_name(const isa_wave *w, int r, char *buf, size_t size) {
  int acc = w->g->k->accum_offset;
  if (r >= w->nv)
    snprintf(buf, size, "a%d", r - w->nv);
  else if (acc && r >= acc)
    snprintf(buf, size, "a%d", r - acc);
  else
    snprintf(buf, size, "v%d", r);
  return buf;
}

static int first_lane(const isa_wave *w) {
  uint64_t e = isa_exec(w);
  return e ? __builtin_ctzll(e) : 0;
}

/* Report `what` when fewer than `needed` wait states separate the instruction at index `since_i`
 * (issued at clock `since`) from `in`. */
static bool too_close(isa_wave *w, const isa_inst *in, uint64_t since, int32_t since_i, int needed,
                      const char *what, int r) {
  if (since_i < 0)
    return false;
  uint64_t have = w->hz->clock - since;
  if (have >= (uint64_t)needed)
    return false;
  const isa_inst *p = &w->g->k->insts[since_i];
  char name[16];
  if (r >= 0)
    reg_name(w, r, name, sizeof name);
  else
    snprintf(name, sizeof name, "s%d", -r - 1);
  isa_fault(w, in, "hazard: lane %d %s %s %llu wait state%s after the %s at 0x%x; %s needs %d", first_lane(w), what,
            name, (unsigned long long)have, have == 1 ? "" : "s", p->mnemonic, p->pc, w->g->m->target.processor,
            needed);
  return true;
}

static const isa_hz_inst *hz_of(const isa_wave *w, int32_t i) { return &w->g->k->hz[i]; }

/* Checks of one register r read (or written, `write`) by `in` of class h as operand `op`. */
static bool check_reg(isa_wave *w, const isa_inst *in, const isa_hz_inst *h, const hz_family *f, int op, int r,
                      bool write) {
  hz_reg *e = &w->hz->reg[r];
  if (e->mfma_i >= 0) {
    const isa_hz_inst *p = hz_of(w, e->mfma_i);
    int n;
    const char *what = write ? "overwrites" : "reads";
    if (h->kind == HZ_MFMA) {
      const isa_inst *pi = &w->g->k->insts[e->mfma_i];
      if (op == 3) {
        bool same = pi->o[0].kind == in->o[3].kind && pi->o[0].reg == in->o[3].reg && pi->o[0].n == in->o[3].n;
        n = same                                  ? need(f->same_srcc[p->xdl], p->passes)
            : f->xdl_c_after_smfma && h->xdl && !p->xdl ? 0
                                                      : need(f->mfma_srcc[p->xdl], p->passes);
        what = "reads as src C";
      } else if (op == 0) {
        n = 0; /* the destination of a chain: ordered by the matrix unit */
      } else {
        n = need(f->mfma_srcab[p->xdl], p->passes);
        what = "reads as src A/B";
      }
    } else {
      n = need(write ? f->mfma_write[p->xdl] : f->mfma_read[p->xdl], p->passes);
    }
    if (too_close(w, in, e->mfma_w, e->mfma_i, n, what, r))
      return false;
  }
  if (h->kind == HZ_MFMA && op > 0 && e->valu_i >= 0) {
    bool accw = hz_of(w, e->valu_i)->kind == HZ_ACC_WRITE && r >= w->nv;
    int n = !accw ? f->valu_mfma : op == 3 ? f->accw_srcc : f->accw_srcab;
    if (too_close(w, in, e->valu_w, e->valu_i, n, "reads", r))
      return false;
  }
  if (h->kind == HZ_ACC_READ && op == 1 && e->valu_i >= 0 && r >= w->nv &&
      too_close(w, in, e->valu_w, e->valu_i, f->accw_accr, "reads", r))
    return false;
  if ((h->kind == HZ_VMEM || h->kind == HZ_DS) && !write && e->valu_i >= 0 && hz_of(w, e->valu_i)->kind == HZ_ACC_READ &&
      too_close(w, in, e->valu_w, e->valu_i, f->accr_mem, "reads", r))
    return false;
  if (write && e->srcc_i >= 0 && h->kind != HZ_MFMA && (!f->war_xdl_only || hz_of(w, e->srcc_i)->xdl) &&
      too_close(w, in, e->srcc_r, e->srcc_i, need(f->srcc_write, hz_of(w, e->srcc_i)->passes),
                "overwrites (read as src C)", r))
    return false;
  return true;
}

static bool check_sgpr(isa_wave *w, const isa_inst *in, int s, int needed) {
  s &= ISA_NSGPR - 1;
  return !too_close(w, in, w->hz->sgpr_w[s], w->hz->sgpr_i[s], needed, "reads", -s - 1);
}

static bool checks(isa_wave *w, const isa_inst *in, const isa_hz_inst *h, const hz_family *f) {
  for (int op = 0; op < in->nops; op++) {
    const isa_opnd *o = &in->o[op];
    if (o->kind == OK_VGPR || o->kind == OK_AGPR) {
      bool write = op < h->first_src && h->kind != HZ_MFMA && h->kind != HZ_VMEM && h->kind != HZ_DS;
      for (int i = 0; i < o->n; i++) {
        int r = reg_index(w, o, i);
        if (r >= 0 && r < w->hz->nregs && !check_reg(w, in, h, f, op, r, write))
          return false;
      }
    } else if (o->kind == OK_SGPR) {
      if (h->kind == HZ_LANE && op == 2 && !check_sgpr(w, in, o->reg, f->sgpr_lane))
        return false;
      if (h->kind == HZ_VMEM)
        for (int i = 0; i < o->n; i++)
          if (!check_sgpr(w, in, o->reg + i, f->sgpr_vmem))
            return false;
    }
  }
  if (h->kind == HZ_DIV_FMAS && !check_sgpr(w, in, ISA_VCC, f->vcc_div_fmas))
    return false;
  if (h->kind == HZ_MFMA && (!check_sgpr(w, in, ISA_EXEC, f->valu_exec_mfma) ||
                             !check_sgpr(w, in, ISA_EXEC + 1, f->valu_exec_mfma)))
    return false;
  return true;
}

/* Record what `in` (instruction index ii) writes and reads at the current clock. */
static void record(isa_wave *w, const isa_inst *in, const isa_hz_inst *h, int ii) {
  isa_hz_wave *s = w->hz;
  bool valu = h->kind == HZ_VALU || h->kind == HZ_DOT || h->kind == HZ_ACC_READ || h->kind == HZ_ACC_WRITE ||
              h->kind == HZ_LANE || h->kind == HZ_DIV_FMAS;
  for (int op = 0; op < in->nops; op++) {
    const isa_opnd *o = &in->o[op];
    if (h->kind == HZ_MFMA && (op == 0 || op == 3) && (o->kind == OK_VGPR || o->kind == OK_AGPR)) {
      for (int i = 0; i < o->n; i++) {
        int r = reg_index(w, o, i);
        if (r < 0 || r >= s->nregs)
          continue;
        if (op == 0)
          s->reg[r].mfma_w = s->clock + 1, s->reg[r].mfma_i = ii, s->reg[r].valu_i = -1;
        else
          s->reg[r].srcc_r = s->clock + 1, s->reg[r].srcc_i = ii;
      }
    } else if (valu && op < h->first_src) {
      for (int i = 0; i < o->n; i++) {
        if (o->kind == OK_SGPR) {
          int r = (o->reg + i) & (ISA_NSGPR - 1);
          s->sgpr_w[r] = s->clock + 1, s->sgpr_i[r] = ii;
          continue;
        }
        int r = reg_index(w, o, i);
        if (r < 0 || r >= s->nregs)
          continue;
        s->reg[r].mfma_i = -1;
        if (h->kind != HZ_DOT)
          s->reg[r].valu_w = s->clock + 1, s->reg[r].valu_i = ii;
      }
    }
  }
  if (valu && (in->flags & IF_CMPX))
    for (int r = ISA_EXEC; r <= ISA_EXEC + 1; r++)
      s->sgpr_w[r] = s->clock + 1, s->sgpr_i[r] = ii;
}

bool isa_hazard_step(isa_wave *w, const isa_inst *in) {
  const isa_kernel *k = w->g->k;
  int ii = (int)(in - k->insts);
  const isa_hz_inst *h = &k->hz[ii];
  if (h->kind == HZ_NOP) {
    w->hz->clock += (uint64_t)(in->nops ? (in->o[0].imm & 15) + 1 : 1);
    return true;
  }
  if (h->kind != HZ_OTHER) {
    if (!checks(w, in, h, w->hz->f))
      return false;
    record(w, in, h, ii);
  }
  w->hz->clock++;
  return true;
}
