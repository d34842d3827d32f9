/* isa_exec_matrix.c: wave-level matrix instructions (v_mfma_*, v_wmma_*) and the dot products of
 * the FMA path (v_dot2*, v_dot4*). A matrix instruction gathers every lane's A, B and C registers
 * into packed per-lane operands and hands them to emu_matrix_exec (matrix.c), the lane logic the
 * IR path uses too, so the lane layouts are checked once for both. ISA.md §3.3, §3.5. */
#include "isa_int.h"

#include <string.h>

/* Registers per lane the operands of the table's instructions use at most. */
enum { MX_AB_REGS = 8, MX_CD_REGS = 32 };

/* Lane l's `n` words of operand o into out (an inline constant fills every word). */
static void gather(const isa_wave *w, const isa_opnd *o, int n, int l, uint32_t *out) {
  for (int i = 0; i < n; i++)
    out[i] = o->kind == OK_IMM ? (uint32_t)o->imm : isa_reg32(w, o, i, l);
}

static void v_matrix(isa_wave *w, const isa_inst *in) {
  const isa_opnd *d = &in->o[0], *a = &in->o[1], *b = &in->o[2], *c = &in->o[3];
  int lanes = w->lanes, nd = d->n, na = a->n, nb = b->n;
  if (isa_exec(w) != w->lanemask) {
    isa_fault(w, in, "matrix instruction executed with lanes off in EXEC (0x%llx)", (unsigned long long)isa_exec(w));
    return;
  }
  if (na > MX_AB_REGS || nb > MX_AB_REGS || nd > MX_CD_REGS || (c->kind != OK_IMM && c->n != nd)) {
    isa_fault(w, in, "operand widths %d/%d/%d/%d do not fit the emulator", nd, na, nb, c->n);
    return;
  }
  /* block-scaled MFMA: sources 4 and 5 are the A and B scales, {op_sel_hi[i], op_sel[i]} picks
   * the byte of source i (CDNA4 ISA guide §7.2.1) */
  bool scaled = in->nops == 6 && !strncmp(in->mnemonic, "v_mfma_scale_", 13);
  uint32_t sa[ISA_LANES], sb[ISA_LANES];
  if (scaled && (in->o[4].kind == OK_IMM || in->o[5].kind == OK_IMM)) {
    isa_fault(w, in, "a block scale given as an inline constant is not modelled");
    return;
  }
  uint32_t ab[ISA_LANES][2][MX_AB_REGS], cd[ISA_LANES][2][MX_CD_REGS];
  const void *pa[ISA_LANES], *pb[ISA_LANES], *pc[ISA_LANES];
  void *pd[ISA_LANES];
  for (int l = 0; l < lanes; l++) {
    gather(w, a, na, l, ab[l][0]);
    gather(w, b, nb, l, ab[l][1]);
    gather(w, c, nd, l, cd[l][0]);
    pa[l] = ab[l][0], pb[l] = ab[l][1], pc[l] = cd[l][0], pd[l] = cd[l][1];
    if (scaled)
      sa[l] = isa_reg32(w, &in->o[4], 0, l), sb[l] = isa_reg32(w, &in->o[5], 0, l);
  }
  /* WMMA: signedness of integer A/B is neg_lo[0]/[1] (the IR path's cbsz/blgp), f16 outputs on
   * RDNA3 select a half with op_sel[2], integer outputs clamp (abid). */
  bool wmma = !strncmp(in->mnemonic, "v_wmma", 6);
  emu_matrix_call call = {
      .intrinsic = in->intrinsic,
      .processor = w->g->m->target.processor,
      .wave_size = lanes,
      .a = pa,
      .b = pb,
      .c = pc,
      .d = pd,
      .cbsz = wmma ? in->neg_lo & 1 : in->cbsz,
      .abid = wmma ? (strstr(in->intrinsic, ".iu") ? (in->flags & IF_CLAMP) != 0 : in->op_sel >> 2 & 1) : in->abid,
      .blgp = wmma ? in->neg_lo >> 1 & 1 : in->blgp,
      .scale_a = scaled ? sa : NULL,
      .scale_b = scaled ? sb : NULL,
      .opsel_a = (in->op_sel & 1) | (in->op_sel_hi & 1) << 1,
      .opsel_b = (in->op_sel >> 1 & 1) | (in->op_sel_hi >> 1 & 1) << 1,
  };
  char msg[256];
  if (!emu_matrix_exec(&call, msg, sizeof msg)) {
    isa_fault(w, in, "%s", msg);
    return;
  }
  for (int l = 0; l < lanes; l++)
    for (int i = 0; i < nd; i++) {
      isa_opnd r = *d;
      r.reg = (uint16_t)(d->reg + i), r.n = 1;
      isa_wr(w, &r, l, cd[l][1][i]);
    }
}

const isa_opdef isa_matrix_def = {"v_matrix", v_matrix, 0, 0, 0};

bool isa_matrix_resolve(const char *processor, const char *kernel, isa_inst *in, char *err, size_t errsize) {
  for (int i = 0; i < target_matrix_count; i++) {
    const target_matrix *t = &target_matrix_table[i];
    if (!strcmp(t->target, processor) && !strcmp(t->mnemonic, in->mnemonic) &&
        emu_matrix_supported(t->intrinsic, processor)) {
      in->intrinsic = t->intrinsic;
      return true;
    }
  }
  const target_scaled_matrix *s = target_scaled_matrix_by_mnemonic(processor, in->mnemonic);
  if (s && emu_matrix_supported(s->intrinsic, processor)) {
    in->intrinsic = s->intrinsic;
    return true;
  }
  snprintf(err, errsize, "kernel %s: instruction %s is not implemented by the emulator", kernel, in->mnemonic);
  return false;
}

/* ---------------------------------------------------------------- dot products */
/* d = c + the products of the widened pairs (exact in f32), summed in order, as the IR path's
 * fdot2/sdot4; `c` is the destination for the VOP2 (dot*c) forms. */
static inline float half_f(uint32_t h) {
  _Float16 x;
  uint16_t b = (uint16_t)h;
  memcpy(&x, &b, 2);
  return (float)x;
}
static inline float bf16_f(uint32_t h) {
  uint32_t u = (h & 0xffff) << 16;
  float f;
  memcpy(&f, &u, 4);
  return f;
}

enum { DOT_F16, DOT_BF16, DOT_I8, DOT_IU8 };

/* sign: bit 0 A's bytes are signed, bit 1 B's (v_dot4_i32_iu8's neg_lo; always for i8). */
static uint32_t dot_lane(int kind, int sign, uint32_t a, uint32_t b, uint32_t c) {
  if (kind == DOT_I8 || kind == DOT_IU8) {
    uint32_t acc = c;
    for (int i = 0; i < 4; i++) {
      int32_t x = sign & 1 ? (int8_t)(a >> 8 * i) : (uint8_t)(a >> 8 * i);
      int32_t y = sign & 2 ? (int8_t)(b >> 8 * i) : (uint8_t)(b >> 8 * i);
      acc += (uint32_t)(x * y); /* wraps like a 32-bit adder */
    }
    return acc;
  }
  float acc;
  memcpy(&acc, &c, 4);
  for (int i = 0; i < 2; i++) {
    uint32_t x = a >> 16 * i, y = b >> 16 * i;
    acc += kind == DOT_F16 ? half_f(x) * half_f(y) : bf16_f(x) * bf16_f(y);
  }
  uint32_t r;
  memcpy(&r, &acc, 4);
  return r;
}

static void v_dot(isa_wave *w, const isa_inst *in) {
  bool accumulate = in->def->arg2; /* VOP2 dot*c: the destination is the addend */
  int kind = in->def->arg, sign = kind == DOT_IU8 ? in->neg_lo & 3 : 3;
  if (in->op_sel || (kind != DOT_IU8 && in->neg_lo) || in->neg_hi || (in->flags & IF_CLAMP)) {
    isa_fault(w, in, "op_sel, neg or clamp modifiers on a dot product are not modelled");
    return;
  }
  ISA_LANES_OF(w, l) {
    uint32_t a = isa_rd(w, &in->o[1], (int)l), b = isa_rd(w, &in->o[2], (int)l);
    uint32_t c = accumulate ? isa_reg32(w, &in->o[0], 0, (int)l) : isa_rd(w, &in->o[3], (int)l);
    isa_wr(w, &in->o[0], (int)l, dot_lane(kind, sign, a, b, c));
  }
}

const isa_opdef isa_ops_matrix[] = {
    {"v_dot2c_f32_f16", v_dot, 0, DOT_F16, 1},
    {"v_dot2acc_f32_f16", v_dot, 0, DOT_F16, 1},
    {"v_dot2_f32_f16", v_dot, 0, DOT_F16, 0},
    {"v_dot2c_f32_bf16", v_dot, 0, DOT_BF16, 1},
    {"v_dot2_f32_bf16", v_dot, 0, DOT_BF16, 0},
    {"v_dot4c_i32_i8", v_dot, 0, DOT_I8, 1},
    {"v_dot4_i32_i8", v_dot, 0, DOT_I8, 0},
    {"v_dot4_i32_iu8", v_dot, 0, DOT_IU8, 0},
    {NULL, NULL, 0, 0, 0},
};
