/* isa_exec_salu.c: scalar ALU and program control (SOP1, SOP2, SOPK, SOPC, SOPP): one executor
 * per operation family, the operation chosen by the table's arg. Semantics: ISA.md §3.1. */
#include "isa_int.h"

#include <string.h>

static inline uint32_t s32(const isa_wave *w, const isa_inst *in, int i) { return isa_rd(w, &in->o[i], 0); }
static inline uint64_t s64(const isa_wave *w, const isa_inst *in, int i) { return isa_rd64(w, &in->o[i], 0); }
static inline void d32(isa_wave *w, const isa_inst *in, uint32_t x) { isa_wr_sgpr(w, in->o[0].reg, x); }
static inline void d64(isa_wave *w, const isa_inst *in, uint64_t x) {
  isa_wr_sgpr(w, in->o[0].reg, (uint32_t)x);
  isa_wr_sgpr(w, in->o[0].reg + 1, (uint32_t)(x >> 32));
}

enum {
  A_ADD_U, A_ADDC, A_SUB_U, A_SUBB, A_ADD_I, A_SUB_I, A_AND, A_OR, A_XOR, A_ANDN2, A_ORN2, A_NAND, A_NOR, A_XNOR,
  A_LSHL, A_LSHR, A_ASHR, A_MUL_I, A_MUL_HI_U, A_MUL_HI_I, A_MIN_I, A_MIN_U, A_MAX_I, A_MAX_U, A_CSELECT,
  A_BFE_U, A_BFE_I, A_LSHL1_ADD, A_LSHL2_ADD, A_LSHL3_ADD, A_LSHL4_ADD, A_PACK_LL, A_PACK_LH, A_PACK_HH,
  A_ABSDIFF, A_BFM,
};

static void sop2_32(isa_wave *w, const isa_inst *in) {
  uint32_t a = s32(w, in, 1), b = s32(w, in, 2), d = 0;
  uint64_t wide;
  bool scc = w->scc;
  switch (in->def->arg) {
  case A_ADD_U: wide = (uint64_t)a + b, d = (uint32_t)wide, scc = wide >> 32; break;
  case A_ADDC: wide = (uint64_t)a + b + w->scc, d = (uint32_t)wide, scc = wide >> 32; break;
  case A_SUB_U: d = a - b, scc = b > a; break;
  case A_SUBB: d = a - b - w->scc, scc = (uint64_t)b + w->scc > a; break;
  case A_ADD_I: d = a + b, scc = ((~(a ^ b)) & (a ^ d)) >> 31; break;
  case A_SUB_I: d = a - b, scc = ((a ^ b) & (a ^ d)) >> 31; break;
  case A_AND: d = a & b, scc = d != 0; break;
  case A_OR: d = a | b, scc = d != 0; break;
  case A_XOR: d = a ^ b, scc = d != 0; break;
  case A_ANDN2: d = a & ~b, scc = d != 0; break;
  case A_ORN2: d = a | ~b, scc = d != 0; break;
  case A_NAND: d = ~(a & b), scc = d != 0; break;
  case A_NOR: d = ~(a | b), scc = d != 0; break;
  case A_XNOR: d = ~(a ^ b), scc = d != 0; break;
  case A_LSHL: d = a << (b & 31), scc = d != 0; break;
  case A_LSHR: d = a >> (b & 31), scc = d != 0; break;
  case A_ASHR: d = (uint32_t)((int32_t)a >> (b & 31)), scc = d != 0; break;
  case A_MUL_I: d = a * b; break;
  case A_MUL_HI_U: d = (uint32_t)(((uint64_t)a * b) >> 32); break;
  case A_MUL_HI_I: d = (uint32_t)(((int64_t)(int32_t)a * (int32_t)b) >> 32); break;
  case A_MIN_I: scc = (int32_t)a < (int32_t)b, d = scc ? a : b; break;
  case A_MIN_U: scc = a < b, d = scc ? a : b; break;
  case A_MAX_I: scc = (int32_t)a > (int32_t)b, d = scc ? a : b; break;
  case A_MAX_U: scc = a > b, d = scc ? a : b; break;
  case A_CSELECT: d = w->scc ? a : b; break;
  case A_BFE_U: {
    uint32_t off = b & 31, width = (b >> 16) & 0x7f;
    d = width == 0 ? 0 : width >= 32 ? a >> off : (a >> off) & ((1u << width) - 1);
    scc = d != 0;
    break;
  }
  case A_BFE_I: {
    uint32_t off = b & 31, width = (b >> 16) & 0x7f;
    if (width == 0) {
      d = 0;
    } else {
      uint32_t x = a >> off;
      d = width >= 32 ? x : (uint32_t)((int32_t)(x << (32 - width)) >> (32 - width));
    }
    scc = d != 0;
    break;
  }
  case A_LSHL1_ADD:
  case A_LSHL2_ADD:
  case A_LSHL3_ADD:
  case A_LSHL4_ADD: {
    int sh = in->def->arg - A_LSHL1_ADD + 1;
    wide = ((uint64_t)a << sh) + b;
    d = (uint32_t)wide, scc = wide >> 32 != 0;
    break;
  }
  case A_PACK_LL: d = (a & 0xffff) | b << 16; break;
  case A_PACK_LH: d = (a & 0xffff) | (b & 0xffff0000u); break;
  case A_PACK_HH: d = a >> 16 | (b & 0xffff0000u); break;
  case A_ABSDIFF: {
    int64_t diff = (int64_t)(int32_t)a - (int32_t)b;
    d = (uint32_t)(diff < 0 ? -diff : diff), scc = d != 0;
    break;
  }
  case A_BFM: d = ((1u << (a & 31)) - 1) << (b & 31); break;
  }
  d32(w, in, d);
  w->scc = scc;
}

static void sop2_64(isa_wave *w, const isa_inst *in) {
  uint64_t a = s64(w, in, 1), b, d = 0;
  uint32_t b32 = s32(w, in, 2);
  bool scc = w->scc;
  switch (in->def->arg) {
  case A_LSHL: d = a << (b32 & 63), scc = d != 0; break;
  case A_LSHR: d = a >> (b32 & 63), scc = d != 0; break;
  case A_ASHR: d = (uint64_t)((int64_t)a >> (b32 & 63)), scc = d != 0; break;
  case A_BFE_U:
  case A_BFE_I: {
    uint32_t off = b32 & 63, width = (b32 >> 16) & 0x7f;
    uint64_t x = a >> off;
    if (width == 0)
      d = 0;
    else if (width >= 64)
      d = x;
    else if (in->def->arg == A_BFE_U)
      d = x & ((1ull << width) - 1);
    else
      d = (uint64_t)((int64_t)(x << (64 - width)) >> (64 - width));
    scc = d != 0;
    break;
  }
  default:
    b = s64(w, in, 2);
    switch (in->def->arg) {
    case A_AND: d = a & b; break;
    case A_OR: d = a | b; break;
    case A_XOR: d = a ^ b; break;
    case A_ANDN2: d = a & ~b; break;
    case A_ORN2: d = a | ~b; break;
    case A_NAND: d = ~(a & b); break;
    case A_NOR: d = ~(a | b); break;
    case A_XNOR: d = ~(a ^ b); break;
    case A_CSELECT: d = w->scc ? a : b; break;
    case A_MUL_I: d = a * b; break;
    case A_ADD_U: d = a + b; break;
    case A_SUB_U: d = a - b; break;
    }
    scc = in->def->arg == A_CSELECT || in->def->arg == A_MUL_I || in->def->arg == A_ADD_U || in->def->arg == A_SUB_U
              ? w->scc
              : d != 0;
  }
  d64(w, in, d);
  w->scc = scc;
}

enum { U_MOV, U_NOT, U_BREV, U_FF1, U_FLBIT, U_FLBIT_I, U_BCNT1, U_SEXT8, U_SEXT16, U_ABS, U_BITSET0, U_BITSET1 };

static void sop1_32(isa_wave *w, const isa_inst *in) {
  uint32_t a = s32(w, in, 1), d = 0;
  switch (in->def->arg) {
  case U_MOV: d = a; break;
  case U_NOT: d = ~a, w->scc = d != 0; break;
  case U_BREV: d = isa_brev32(a); break;
  case U_FF1: d = a ? (uint32_t)__builtin_ctz(a) : ~0u; break;
  case U_FLBIT: d = a ? (uint32_t)__builtin_clz(a) : ~0u; break;
  case U_FLBIT_I: {
    uint32_t x = (int32_t)a < 0 ? ~a : a;
    d = a == 0 || a == ~0u ? ~0u : (uint32_t)__builtin_clz(x) - 1;
    break;
  }
  case U_BCNT1: d = (uint32_t)__builtin_popcount(a), w->scc = d != 0; break;
  case U_SEXT8: d = (uint32_t)(int32_t)(int8_t)a; break;
  case U_SEXT16: d = (uint32_t)(int32_t)(int16_t)a; break;
  case U_ABS: d = (int32_t)a < 0 ? -a : a, w->scc = d != 0; break;
  case U_BITSET0: d = isa_reg32(w, &in->o[0], 0, 0) & ~(1u << (a & 31)); break;
  case U_BITSET1: d = isa_reg32(w, &in->o[0], 0, 0) | 1u << (a & 31); break;
  }
  d32(w, in, d);
}

static void sop1_64(isa_wave *w, const isa_inst *in) {
  uint64_t a = s64(w, in, 1);
  switch (in->def->arg) {
  case U_MOV: d64(w, in, a); break;
  case U_NOT: d64(w, in, ~a), w->scc = ~a != 0; break;
  case U_BCNT1: d32(w, in, (uint32_t)__builtin_popcountll(a)), w->scc = a != 0; break;
  case U_FF1: d32(w, in, a ? (uint32_t)__builtin_ctzll(a) : ~0u); break;
  case U_FLBIT: d32(w, in, a ? (uint32_t)__builtin_clzll(a) : ~0u); break;
  }
}

static void s_movk(isa_wave *w, const isa_inst *in) { d32(w, in, (uint32_t)(int32_t)(int16_t)in->o[1].imm); }
static void s_addk(isa_wave *w, const isa_inst *in) {
  uint32_t a = isa_reg32(w, &in->o[0], 0, 0), b = (uint32_t)(int32_t)(int16_t)in->o[1].imm, d = a + b;
  d32(w, in, d);
  w->scc = ((~(a ^ b)) & (a ^ d)) >> 31;
}
static void s_mulk(isa_wave *w, const isa_inst *in) {
  d32(w, in, isa_reg32(w, &in->o[0], 0, 0) * (uint32_t)(int32_t)(int16_t)in->o[1].imm);
}
static void s_cmovk(isa_wave *w, const isa_inst *in) {
  if (w->scc)
    d32(w, in, (uint32_t)(int32_t)(int16_t)in->o[1].imm);
}
static void s_cmov32(isa_wave *w, const isa_inst *in) {
  if (w->scc)
    d32(w, in, s32(w, in, 1));
}
static void s_cmov64(isa_wave *w, const isa_inst *in) {
  if (w->scc)
    d64(w, in, s64(w, in, 1));
}

/* Compares: arg = condition (0 eq, 1 lg, 2 gt, 3 ge, 4 lt, 5 le), arg2 unused; sign from name. */
enum { C_EQ, C_LG, C_GT, C_GE, C_LT, C_LE };
static bool compare(int cond, int64_t a, int64_t b) {
  switch (cond) {
  case C_EQ: return a == b;
  case C_LG: return a != b;
  case C_GT: return a > b;
  case C_GE: return a >= b;
  case C_LT: return a < b;
  default: return a <= b;
  }
}
static void s_cmp_i32(isa_wave *w, const isa_inst *in) {
  w->scc = compare(in->def->arg, (int32_t)s32(w, in, 0), (int32_t)s32(w, in, 1));
}
static void s_cmp_u32(isa_wave *w, const isa_inst *in) {
  w->scc = compare(in->def->arg, s32(w, in, 0), s32(w, in, 1));
}
static void s_cmp_u64(isa_wave *w, const isa_inst *in) {
  w->scc = in->def->arg == C_EQ ? s64(w, in, 0) == s64(w, in, 1) : s64(w, in, 0) != s64(w, in, 1);
}
static void s_cmpk_i32(isa_wave *w, const isa_inst *in) {
  w->scc = compare(in->def->arg, (int32_t)s32(w, in, 0), (int16_t)in->o[1].imm);
}
static void s_cmpk_u32(isa_wave *w, const isa_inst *in) {
  w->scc = compare(in->def->arg, s32(w, in, 0), (uint16_t)in->o[1].imm);
}
static void s_bitcmp0(isa_wave *w, const isa_inst *in) { w->scc = !(s32(w, in, 0) >> (s32(w, in, 1) & 31) & 1); }
static void s_bitcmp1(isa_wave *w, const isa_inst *in) { w->scc = s32(w, in, 0) >> (s32(w, in, 1) & 31) & 1; }

/* s_<op>_saveexec: sdst = EXEC, EXEC = op(src, EXEC), SCC = EXEC != 0. */
enum { X_AND, X_OR, X_XOR, X_ANDN2, X_ORN2, X_NAND, X_NOR, X_XNOR, X_ANDN1, X_ORN1 };
static uint64_t saveexec_op(int op, uint64_t s, uint64_t e) {
  switch (op) {
  case X_AND: return s & e;
  case X_OR: return s | e;
  case X_XOR: return s ^ e;
  case X_ANDN2: return s & ~e;
  case X_ORN2: return s | ~e;
  case X_NAND: return ~(s & e);
  case X_NOR: return ~(s | e);
  case X_XNOR: return ~(s ^ e);
  case X_ANDN1: return ~s & e;
  default: return ~s | e;
  }
}
static void s_saveexec(isa_wave *w, const isa_inst *in) {
  uint64_t old = isa_exec(w);
  bool wide = in->def->arg2 == 64;
  uint64_t src = wide ? s64(w, in, 1) : s32(w, in, 1);
  uint64_t e = saveexec_op(in->def->arg, src, old) & (wide ? ~0ull : 0xffffffffull);
  if (wide)
    d64(w, in, old);
  else
    d32(w, in, (uint32_t)old);
  w->s[ISA_EXEC] = (uint32_t)e;
  if (wide)
    w->s[ISA_EXEC + 1] = (uint32_t)(e >> 32);
  w->scc = (e & w->lanemask) != 0;
}

/* ---------------------------------------------------------------- program control */
static void s_branch(isa_wave *w, const isa_inst *in) { w->pc = in->target; }
enum { B_SCC0, B_SCC1, B_VCCZ, B_VCCNZ, B_EXECZ, B_EXECNZ };
static void s_cbranch(isa_wave *w, const isa_inst *in) {
  bool take;
  switch (in->def->arg) {
  case B_SCC0: take = !w->scc; break;
  case B_SCC1: take = w->scc; break;
  case B_VCCZ: take = isa_vcc(w) == 0; break;
  case B_VCCNZ: take = isa_vcc(w) != 0; break;
  case B_EXECZ: take = isa_exec(w) == 0; break;
  default: take = isa_exec(w) != 0; break;
  }
  if (take)
    w->pc = in->target;
}
static void s_getpc(isa_wave *w, const isa_inst *in) {
  uint64_t pc = (uint64_t)(uintptr_t)w->g->m->image + in->pc + in->size;
  d64(w, in, pc);
}
/* s_setpc_b64 / s_swappc_b64: the target must be an instruction of this kernel. */
static void jump_to(isa_wave *w, const isa_inst *in, uint64_t addr) {
  const isa_kernel *k = w->g->k;
  uint64_t base = (uint64_t)(uintptr_t)w->g->m->image;
  for (int i = 0; i <= k->ninsts; i++)
    if (base + k->insts[i].pc == addr) {
      w->pc = i;
      return;
    }
  isa_fault(w, in, "jumps to 0x%llx, which is not an instruction of the kernel", (unsigned long long)(addr - base));
}
static void s_setpc(isa_wave *w, const isa_inst *in) { jump_to(w, in, s64(w, in, 0)); }
static void s_swappc(isa_wave *w, const isa_inst *in) {
  uint64_t target = s64(w, in, 1);
  d64(w, in, (uint64_t)(uintptr_t)w->g->m->image + in->pc + in->size);
  jump_to(w, in, target);
}
static void s_endpgm(isa_wave *w, const isa_inst *in) {
  (void)in;
  w->state = WS_DONE;
}
static void s_barrier(isa_wave *w, const isa_inst *in) {
  (void)in;
  w->state = WS_BARRIER;
}
static void s_nothing(isa_wave *w, const isa_inst *in) {
  (void)w;
  (void)in;
}
static void s_waitcnt_vscnt(isa_wave *w, const isa_inst *in) {
  isa_inst tmp = *in;
  for (int c = 0; c < CNT_N; c++)
    tmp.wait[c] = -1;
  tmp.wait[CNT_VS] = (int16_t)in->o[1].imm;
  isa_waitcnt(w, &tmp);
}
static void s_trap(isa_wave *w, const isa_inst *in) { isa_fault(w, in, "the kernel executed a trap"); }

#define S2(n, a) {n "_b32", sop2_32, 0, a, 0}, {n "_b64", sop2_64, 0, a, 0}
const isa_opdef isa_ops_salu[] = {
    {"s_add_u32", sop2_32, 0, A_ADD_U, 0},
    {"s_addc_u32", sop2_32, 0, A_ADDC, 0},
    {"s_sub_u32", sop2_32, 0, A_SUB_U, 0},
    {"s_subb_u32", sop2_32, 0, A_SUBB, 0},
    {"s_add_i32", sop2_32, 0, A_ADD_I, 0},
    {"s_add_co_u32", sop2_32, 0, A_ADD_U, 0},
    {"s_add_co_ci_u32", sop2_32, 0, A_ADDC, 0},
    {"s_sub_co_u32", sop2_32, 0, A_SUB_U, 0},
    {"s_sub_co_ci_u32", sop2_32, 0, A_SUBB, 0},
    {"s_add_co_i32", sop2_32, 0, A_ADD_I, 0},
    {"s_sub_co_i32", sop2_32, 0, A_SUB_I, 0},
    {"s_sub_i32", sop2_32, 0, A_SUB_I, 0},
    S2("s_and", A_AND),
    S2("s_or", A_OR),
    S2("s_xor", A_XOR),
    S2("s_andn2", A_ANDN2),
    S2("s_and_not1", A_ANDN2),
    S2("s_orn2", A_ORN2),
    S2("s_or_not1", A_ORN2),
    S2("s_nand", A_NAND),
    S2("s_nor", A_NOR),
    S2("s_xnor", A_XNOR),
    S2("s_cselect", A_CSELECT),
    S2("s_lshl", A_LSHL),
    S2("s_lshr", A_LSHR),
    {"s_ashr_i32", sop2_32, 0, A_ASHR, 0},
    {"s_ashr_i64", sop2_64, 0, A_ASHR, 0},
    {"s_mul_i32", sop2_32, 0, A_MUL_I, 0},
    {"s_mul_u64", sop2_64, 0, A_MUL_I, 0},
    {"s_add_nc_u64", sop2_64, 0, A_ADD_U, 0},
    {"s_sub_nc_u64", sop2_64, 0, A_SUB_U, 0},
    {"s_mul_hi_u32", sop2_32, 0, A_MUL_HI_U, 0},
    {"s_mul_hi_i32", sop2_32, 0, A_MUL_HI_I, 0},
    {"s_min_i32", sop2_32, 0, A_MIN_I, 0},
    {"s_min_u32", sop2_32, 0, A_MIN_U, 0},
    {"s_max_i32", sop2_32, 0, A_MAX_I, 0},
    {"s_max_u32", sop2_32, 0, A_MAX_U, 0},
    {"s_bfe_u32", sop2_32, 0, A_BFE_U, 0},
    {"s_bfe_i32", sop2_32, 0, A_BFE_I, 0},
    {"s_bfe_u64", sop2_64, 0, A_BFE_U, 0},
    {"s_bfe_i64", sop2_64, 0, A_BFE_I, 0},
    {"s_bfm_b32", sop2_32, 0, A_BFM, 0},
    {"s_lshl1_add_u32", sop2_32, 0, A_LSHL1_ADD, 0},
    {"s_lshl2_add_u32", sop2_32, 0, A_LSHL2_ADD, 0},
    {"s_lshl3_add_u32", sop2_32, 0, A_LSHL3_ADD, 0},
    {"s_lshl4_add_u32", sop2_32, 0, A_LSHL4_ADD, 0},
    {"s_pack_ll_b32_b16", sop2_32, 0, A_PACK_LL, 0},
    {"s_pack_lh_b32_b16", sop2_32, 0, A_PACK_LH, 0},
    {"s_pack_hh_b32_b16", sop2_32, 0, A_PACK_HH, 0},
    {"s_absdiff_i32", sop2_32, 0, A_ABSDIFF, 0},
    {"s_mov_b32", sop1_32, 0, U_MOV, 0},
    {"s_mov_b64", sop1_64, 0, U_MOV, 0},
    {"s_not_b32", sop1_32, 0, U_NOT, 0},
    {"s_not_b64", sop1_64, 0, U_NOT, 0},
    {"s_brev_b32", sop1_32, 0, U_BREV, 0},
    {"s_ff1_i32_b32", sop1_32, 0, U_FF1, 0},
    {"s_ctz_i32_b32", sop1_32, 0, U_FF1, 0},
    {"s_ff1_i32_b64", sop1_64, 0, U_FF1, 0},
    {"s_ctz_i32_b64", sop1_64, 0, U_FF1, 0},
    {"s_flbit_i32_b32", sop1_32, 0, U_FLBIT, 0},
    {"s_clz_i32_u32", sop1_32, 0, U_FLBIT, 0},
    {"s_flbit_i32", sop1_32, 0, U_FLBIT_I, 0},
    {"s_cls_i32", sop1_32, 0, U_FLBIT_I, 0},
    {"s_flbit_i32_b64", sop1_64, 0, U_FLBIT, 0},
    {"s_bcnt1_i32_b32", sop1_32, 0, U_BCNT1, 0},
    {"s_bcnt1_i32_b64", sop1_64, 0, U_BCNT1, 0},
    {"s_sext_i32_i8", sop1_32, 0, U_SEXT8, 0},
    {"s_sext_i32_i16", sop1_32, 0, U_SEXT16, 0},
    {"s_abs_i32", sop1_32, 0, U_ABS, 0},
    {"s_bitset0_b32", sop1_32, 0, U_BITSET0, 0},
    {"s_bitset1_b32", sop1_32, 0, U_BITSET1, 0},
    {"s_cmov_b32", s_cmov32, 0, 0, 0},
    {"s_cmov_b64", s_cmov64, 0, 0, 0},
    {"s_movk_i32", s_movk, 0, 0, 0},
    {"s_addk_i32", s_addk, 0, 0, 0},
    {"s_addk_co_i32", s_addk, 0, 0, 0},
    {"s_mulk_i32", s_mulk, 0, 0, 0},
    {"s_cmovk_i32", s_cmovk, 0, 0, 0},
    {"s_cmp_eq_i32", s_cmp_i32, 0, C_EQ, 0},
    {"s_cmp_lg_i32", s_cmp_i32, 0, C_LG, 0},
    {"s_cmp_gt_i32", s_cmp_i32, 0, C_GT, 0},
    {"s_cmp_ge_i32", s_cmp_i32, 0, C_GE, 0},
    {"s_cmp_lt_i32", s_cmp_i32, 0, C_LT, 0},
    {"s_cmp_le_i32", s_cmp_i32, 0, C_LE, 0},
    {"s_cmp_eq_u32", s_cmp_u32, 0, C_EQ, 0},
    {"s_cmp_lg_u32", s_cmp_u32, 0, C_LG, 0},
    {"s_cmp_gt_u32", s_cmp_u32, 0, C_GT, 0},
    {"s_cmp_ge_u32", s_cmp_u32, 0, C_GE, 0},
    {"s_cmp_lt_u32", s_cmp_u32, 0, C_LT, 0},
    {"s_cmp_le_u32", s_cmp_u32, 0, C_LE, 0},
    {"s_cmp_eq_u64", s_cmp_u64, 0, C_EQ, 0},
    {"s_cmp_lg_u64", s_cmp_u64, 0, C_LG, 0},
    {"s_cmpk_eq_i32", s_cmpk_i32, 0, C_EQ, 0},
    {"s_cmpk_lg_i32", s_cmpk_i32, 0, C_LG, 0},
    {"s_cmpk_gt_i32", s_cmpk_i32, 0, C_GT, 0},
    {"s_cmpk_ge_i32", s_cmpk_i32, 0, C_GE, 0},
    {"s_cmpk_lt_i32", s_cmpk_i32, 0, C_LT, 0},
    {"s_cmpk_le_i32", s_cmpk_i32, 0, C_LE, 0},
    {"s_cmpk_eq_u32", s_cmpk_u32, 0, C_EQ, 0},
    {"s_cmpk_lg_u32", s_cmpk_u32, 0, C_LG, 0},
    {"s_cmpk_gt_u32", s_cmpk_u32, 0, C_GT, 0},
    {"s_cmpk_ge_u32", s_cmpk_u32, 0, C_GE, 0},
    {"s_cmpk_lt_u32", s_cmpk_u32, 0, C_LT, 0},
    {"s_cmpk_le_u32", s_cmpk_u32, 0, C_LE, 0},
    {"s_bitcmp0_b32", s_bitcmp0, 0, 0, 0},
    {"s_bitcmp1_b32", s_bitcmp1, 0, 0, 0},
    {"s_and_saveexec_b64", s_saveexec, 0, X_AND, 64},
    {"s_or_saveexec_b64", s_saveexec, 0, X_OR, 64},
    {"s_xor_saveexec_b64", s_saveexec, 0, X_XOR, 64},
    {"s_andn2_saveexec_b64", s_saveexec, 0, X_ANDN2, 64},
    {"s_orn2_saveexec_b64", s_saveexec, 0, X_ORN2, 64},
    {"s_andn1_saveexec_b64", s_saveexec, 0, X_ANDN1, 64},
    {"s_and_saveexec_b32", s_saveexec, 0, X_AND, 32},
    {"s_or_saveexec_b32", s_saveexec, 0, X_OR, 32},
    {"s_xor_saveexec_b32", s_saveexec, 0, X_XOR, 32},
    {"s_andn2_saveexec_b32", s_saveexec, 0, X_ANDN2, 32},
    {"s_and_not1_saveexec_b32", s_saveexec, 0, X_ANDN2, 32},
    {"s_and_not1_saveexec_b64", s_saveexec, 0, X_ANDN2, 64},
    {"s_orn2_saveexec_b32", s_saveexec, 0, X_ORN2, 32},
    {"s_or_not1_saveexec_b32", s_saveexec, 0, X_ORN2, 32},
    {"s_andn1_saveexec_b32", s_saveexec, 0, X_ANDN1, 32},
    {"s_and_not0_saveexec_b32", s_saveexec, 0, X_ANDN1, 32},
    {"s_branch", s_branch, 0, 0, ISA_BRANCH},
    {"s_cbranch_scc0", s_cbranch, 0, B_SCC0, ISA_BRANCH},
    {"s_cbranch_scc1", s_cbranch, 0, B_SCC1, ISA_BRANCH},
    {"s_cbranch_vccz", s_cbranch, 0, B_VCCZ, ISA_BRANCH},
    {"s_cbranch_vccnz", s_cbranch, 0, B_VCCNZ, ISA_BRANCH},
    {"s_cbranch_execz", s_cbranch, 0, B_EXECZ, ISA_BRANCH},
    {"s_cbranch_execnz", s_cbranch, 0, B_EXECNZ, ISA_BRANCH},
    {"s_getpc_b64", s_getpc, 0, 0, 0},
    {"s_setpc_b64", s_setpc, 0, 0, 0},
    {"s_swappc_b64", s_swappc, 0, 0, 0},
    {"s_endpgm", s_endpgm, 0, 0, 0},
    {"s_barrier", s_barrier, 0, 0, 0},
    {"s_waitcnt", isa_waitcnt, 0, 0, 0},
    {"s_waitcnt_vscnt", s_waitcnt_vscnt, 0, 0, 0},
    {"s_trap", s_trap, 0, 0, 0},
    {"s_wait_loadcnt", isa_wait_split, 0, 0, 0},
    {"s_wait_storecnt", isa_wait_split, 0, 1, 0},
    {"s_wait_dscnt", isa_wait_split, 0, 2, 0},
    {"s_wait_kmcnt", isa_wait_split, 0, 3, 0},
    {"s_wait_loadcnt_dscnt", isa_wait_split, 0, 4, 0},
    {"s_wait_storecnt_dscnt", isa_wait_split, 0, 5, 0},
    {"s_barrier_wait", s_barrier, 0, 0, 0},
    {"s_barrier_signal", s_nothing, 0, 0, 0},
    {"s_wait_alu", s_nothing, 0, 0, ISA_TEXT_OPERANDS},
    {"s_wait_expcnt", s_nothing, 0, 0, 0},
    /* Scheduling hints and MODE writes: no effect on results here (docs/emulator.md says what
     * the emulator does not model: denormal flushing and rounding modes). */
    {"s_nop", s_nothing, 0, 0, 0},
    {"buffer_gl0_inv", s_nothing, 0, 0, 0},
    {"global_inv", s_nothing, 0, 0, ISA_TEXT_OPERANDS},
    {"buffer_gl1_inv", s_nothing, 0, 0, 0},
    {"buffer_wbinvl1_vol", s_nothing, 0, 0, 0},
    /* gfx940's L2 write-back and cache invalidation of agent-scope release / acquire fences
     * (the split-K last-work-group reduction's): memory is one coherent array here, and the
     * waits before them already completed the wave's stores */
    {"buffer_wbl2", s_nothing, 0, 0, ISA_TEXT_OPERANDS},
    {"buffer_inv", s_nothing, 0, 0, ISA_TEXT_OPERANDS},
    {"global_wb", s_nothing, 0, 0, ISA_TEXT_OPERANDS},
    {"s_clause", s_nothing, 0, 0, 0},
    {"s_code_end", s_nothing, 0, 0, 0},
    {"s_setprio", s_nothing, 0, 0, 0},
    {"s_sleep", s_nothing, 0, 0, 0},
    {"s_inst_prefetch", s_nothing, 0, 0, 0},
    {"s_set_inst_prefetch_distance", s_nothing, 0, 0, 0},
    {"s_delay_alu", s_nothing, 0, 0, ISA_TEXT_OPERANDS},
    {"s_waitcnt_depctr", s_nothing, 0, 0, ISA_TEXT_OPERANDS},
    {"s_sendmsg", s_nothing, 0, 0, ISA_TEXT_OPERANDS},
    {"s_setreg_imm32_b32", s_nothing, 0, 0, ISA_TEXT_OPERANDS},
    {"s_setreg_b32", s_nothing, 0, 0, ISA_TEXT_OPERANDS},
    {"s_denorm_mode", s_nothing, 0, 0, 0},
    {"s_round_mode", s_nothing, 0, 0, 0},
    {NULL, NULL, 0, 0, 0},
};
