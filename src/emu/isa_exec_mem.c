/* isa_exec_mem.c: scalar memory (SMEM) and global memory (FLAT global_*). Every lane's access
 * must fall inside a buffer of the launch (isa_mem); data is delivered at issue and the written
 * registers go on the wait scoreboard (isa_pend) until the covering s_waitcnt (ISA.md §3.2, §3.7,
 * §3.9). */
#include "isa_int.h"

#include <string.h>

/* s_load_dword*, s_load_b*: sdst, sbase (an SGPR pair), offset (constant or SGPR). */
static void s_load(isa_wave *w, const isa_inst *in) {
  const isa_opnd *d = &in->o[0];
  int n = in->def->arg;
  uint64_t base = isa_rd64(w, &in->o[1], 0) & 0xffffffffffffull;
  uint64_t off = in->nops > 2 ? (in->o[2].kind == OK_IMM ? in->o[2].imm : isa_rd(w, &in->o[2], 0)) : 0;
  uint64_t addr = (base + off + (uint64_t)in->offset) & ~3ull;
  const uint32_t *p = isa_mem(w, in, addr, 4ull * (uint64_t)n, false, 0);
  if (!p)
    return;
  for (int i = 0; i < n; i++)
    isa_wr_sgpr(w, d->reg + i, p[i]);
  isa_pend(w, in, CNT_LGKM, OK_SGPR, d->reg, n);
}

/* gfx12's sub-dword scalar loads (s_load_u8/i8/u16/i16): one byte or half-word at a byte
 * address, zero- or sign-extended into one SGPR; arg: bytes, arg2: 1 when signed. */
static void s_load_sub(isa_wave *w, const isa_inst *in) {
  int size = in->def->arg;
  uint64_t base = isa_rd64(w, &in->o[1], 0) & 0xffffffffffffull;
  uint64_t off = in->nops > 2 ? (in->o[2].kind == OK_IMM ? in->o[2].imm : isa_rd(w, &in->o[2], 0)) : 0;
  const uint8_t *p = isa_mem(w, in, base + off + (uint64_t)in->offset, (uint64_t)size, false, 0);
  if (!p)
    return;
  uint32_t v = size == 1 ? p[0] : (uint32_t)p[0] | (uint32_t)p[1] << 8;
  if (in->def->arg2)
    v = size == 1 ? (uint32_t)(int32_t)(int8_t)v : (uint32_t)(int32_t)(int16_t)v;
  isa_wr_sgpr(w, in->o[0].reg, v);
  isa_pend(w, in, CNT_LGKM, OK_SGPR, in->o[0].reg, 1);
}

/* s_buffer_load_dword*: sdst, a V# in four SGPRs, offset; reads past num_records return 0. */
static void s_buffer_load(isa_wave *w, const isa_inst *in) {
  const isa_opnd *d = &in->o[0];
  int n = in->def->arg;
  uint64_t base = isa_rd64(w, &in->o[1], 0) & 0xffffffffffffull;
  uint32_t records = isa_reg32(w, &in->o[1], 2, 0);
  uint64_t off = (in->o[2].kind == OK_IMM ? in->o[2].imm : isa_rd(w, &in->o[2], 0)) + (uint64_t)in->offset;
  off &= ~3ull;
  for (int i = 0; i < n; i++) {
    uint64_t o = off + 4ull * (uint64_t)i;
    uint32_t v = 0;
    if (o + 4 <= records) {
      const uint32_t *p = isa_mem(w, in, base + o, 4, false, 0);
      if (!p)
        return;
      v = *p;
    }
    isa_wr_sgpr(w, d->reg + i, v);
  }
  isa_pend(w, in, CNT_LGKM, OK_SGPR, d->reg, n);
}

/* Address of lane l: a 64-bit VGPR address with `off`, else an SGPR base plus a 32-bit VGPR offset. */
static inline uint64_t global_addr(const isa_wave *w, const isa_inst *in, const isa_opnd *va, const isa_opnd *sa,
                                   int l) {
  if (sa->kind == OK_OFF || sa->kind == OK_NONE)
    return isa_reg32(w, va, 0, l) + ((uint64_t)isa_reg32(w, va, 1, l) << 32) + (uint64_t)in->offset;
  return isa_rd64(w, sa, 0) + isa_reg32(w, va, 0, l) + (uint64_t)in->offset;
}

/* Lane l's loaded bytes into the destination registers (sub-dword kinds as the opcode says);
 * a NULL dword reads as zero (an out-of-range buffer access). */
void isa_load_lane(isa_wave *w, const isa_inst *in, int l, const uint8_t *const *dw) {
  int size = in->def->arg, kind = in->def->arg2;
  uint32_t *r = &w->v[in->o[0].reg * ISA_LANES + l];
  if (size >= 4) {
    for (int i = 0; i < size / 4; i++) {
      uint32_t x = 0;
      if (dw[i])
        memcpy(&x, dw[i], 4);
      r[i * ISA_LANES] = x;
    }
    return;
  }
  uint32_t x = 0;
  if (dw[0])
    memcpy(&x, dw[0], (size_t)size);
  if (kind == G_LOAD_SIGNED || kind == G_LOAD_D16_S || kind == G_LOAD_D16_HI_S)
    x = size == 1 ? (uint32_t)(int32_t)(int8_t)x : (uint32_t)(int32_t)(int16_t)x;
  if (kind == G_LOAD_D16 || kind == G_LOAD_D16_S)
    x = (r[0] & 0xffff0000u) | (x & 0xffff);
  else if (kind == G_LOAD_D16_HI || kind == G_LOAD_D16_HI_S)
    x = (r[0] & 0xffffu) | x << 16;
  r[0] = x;
}

static int load_regs(const isa_inst *in) { return in->def->arg >= 4 ? in->def->arg / 4 : 1; }

static void global_load(isa_wave *w, const isa_inst *in) {
  const isa_opnd *va = &in->o[1], *sa = &in->o[2];
  int size = in->def->arg;
  for (uint64_t m = isa_exec(w); m; m &= m - 1) {
    int l = __builtin_ctzll(m);
    uint64_t addr = global_addr(w, in, va, sa, l);
    const uint8_t *p = isa_mem(w, in, addr, (uint64_t)size, false, l);
    if (!p)
      return;
    const uint8_t *dw[4] = {p, p + 4, p + 8, p + 12};
    isa_load_lane(w, in, l, dw);
  }
  isa_pend(w, in, CNT_VM, OK_VGPR, in->o[0].reg, load_regs(in));
}

/* Lane l's store data (sub-dword stores take the low bytes, or the high half for d16_hi). */
uint32_t isa_store_word(const isa_wave *w, const isa_inst *in, const isa_opnd *data, int l, int i) {
  uint32_t x = w->v[(data->reg + i) * ISA_LANES + l];
  return in->def->arg2 == G_STORE_D16_HI ? x >> 16 : x;
}

/* Stores hold no registers but count: vmcnt on gfx9, vscnt where stores have their counter. */
static void pend_store(isa_wave *w, const isa_inst *in) {
  isa_pend(w, in, w->g->m->info->store_counter ? CNT_VS : CNT_VM, OK_NONE, 0, 0);
}

void isa_pend_vmem(isa_wave *w, const isa_inst *in, bool store) {
  if (store)
    pend_store(w, in);
  else
    isa_pend(w, in, CNT_VM, OK_VGPR, in->o[0].reg, load_regs(in));
}

static void global_store(isa_wave *w, const isa_inst *in) {
  const isa_opnd *va = &in->o[0], *data = &in->o[1], *sa = &in->o[2];
  int size = in->def->arg;
  for (uint64_t m = isa_exec(w); m; m &= m - 1) {
    int l = __builtin_ctzll(m);
    uint64_t addr = global_addr(w, in, va, sa, l);
    uint8_t *p = isa_mem(w, in, addr, (uint64_t)size, true, l);
    if (!p)
      return;
    uint32_t x[4];
    for (int i = 0; i < (size + 3) / 4; i++)
      x[i] = isa_store_word(w, in, data, l, i);
    if (!isa_global_written(w, in, addr, (uint64_t)size, x, l))
      return;
    memcpy(p, x, (size_t)size);
  }
  pend_store(w, in);
}

/* ---------------------------------------------------------------- buffer (MUBUF) */
/* A V# in four SGPRs (ISA.md §4.1) and one lane's access through it (§4.2, §4.3). */
typedef struct vsharp {
  uint64_t base;
  uint32_t stride, records, word3;
  bool relative_soffset; /* gfx10+: the range check leaves soffset out */
} vsharp;

static bool vsharp_read(isa_wave *w, const isa_inst *in, const isa_opnd *r, vsharp *v) {
  uint32_t w0 = isa_reg32(w, r, 0, 0), w1 = isa_reg32(w, r, 1, 0);
  v->base = w0 | (uint64_t)(w1 & 0xffff) << 32;
  v->stride = (w1 >> 16) & 0x3fff;
  v->records = isa_reg32(w, r, 2, 0);
  v->word3 = isa_reg32(w, r, 3, 0);
  /* gfx10+ (RDNA) have OOB_SELECT in dword 3 and check offsets without soffset */
  v->relative_soffset = !strncmp(w->g->m->info->family, "RDNA", 4);
  if (w1 >> 30 || (v->word3 >> 23 & 1)) {
    isa_fault(w, in, "swizzled or add_tid buffer resources (V# 0x%08x 0x%08x 0x%08x 0x%08x) are not modelled", w0, w1,
              v->records, v->word3);
    return false;
  }
  return true;
}

/* Is the `bytes` chunk at byte `off` (offen offset + instruction offset) of record `index`
 * outside the V#'s range? soffset counts on gfx9 only. */
static bool buffer_oob(const vsharp *v, uint64_t soff, uint64_t index, uint64_t off, uint64_t bytes) {
  if (!v->relative_soffset)
    return off + soff + v->stride * index + bytes > v->records;
  switch (v->word3 >> 28 & 3) {
  case 2: return v->records == 0;
  case 1: return v->stride && index >= v->records;
  case 0: return v->stride ? index >= v->records || off + bytes > v->stride : off + bytes > v->records;
  default: return v->stride ? index >= v->records || off + bytes > v->stride : off + bytes > v->records;
  }
}

/* Operands: vdata, vaddr (or off), srsrc, soffset. Per lane the index and offset from vaddr. */
static void buffer_lane(const isa_wave *w, const isa_inst *in, int l, uint64_t *index, uint64_t *off) {
  const isa_opnd *va = &in->o[1];
  int i = 0;
  *index = 0, *off = (uint64_t)in->offset;
  if (in->flags & IF_IDXEN)
    *index = isa_reg32(w, va, i++, l);
  if (in->flags & IF_OFFEN)
    *off += isa_reg32(w, va, i, l);
}

static uint64_t buffer_soffset(const isa_wave *w, const isa_inst *in) {
  const isa_opnd *so = &in->o[3];
  return so->kind == OK_IMM ? (uint32_t)so->imm : so->kind == OK_SGPR ? isa_reg32(w, so, 0, 0) : 0;
}

/* One buffer access of every active lane. Multi-dword accesses are range-checked per dword
 * (ISA.md §4.3), sub-dword ones as one piece: a load's out-of-range dword reads zero, a store's is
 * dropped. */
static void buffer_access(isa_wave *w, const isa_inst *in, bool store) {
  if (isa_scratch_buffer(w, in, store))
    return;
  vsharp v;
  if (!vsharp_read(w, in, &in->o[2], &v))
    return;
  int size = in->def->arg, chunk = size < 4 ? size : 4;
  uint64_t soff = buffer_soffset(w, in);
  for (uint64_t m = isa_exec(w); m; m &= m - 1) {
    int l = __builtin_ctzll(m);
    uint64_t index, off;
    buffer_lane(w, in, l, &index, &off);
    const uint8_t *dw[4] = {NULL, NULL, NULL, NULL};
    for (int i = 0; i * chunk < size; i++) {
      uint64_t o = off + (uint64_t)(i * chunk);
      if (buffer_oob(&v, soff, index, o, (uint64_t)chunk))
        continue;
      uint8_t *p = isa_mem(w, in, v.base + soff + v.stride * index + o, (uint64_t)chunk, store, l);
      if (!p)
        return;
      dw[i] = p;
      if (store) {
        uint32_t x = isa_store_word(w, in, &in->o[0], l, i);
        if (!isa_global_written(w, in, (uint64_t)(uintptr_t)p, (uint64_t)chunk, &x, l))
          return;
        memcpy(p, &x, (size_t)chunk);
      }
    }
    if (!store)
      isa_load_lane(w, in, l, dw);
  }
  isa_pend_vmem(w, in, store);
}
static void buffer_load(isa_wave *w, const isa_inst *in) { buffer_access(w, in, false); }
static void buffer_store(isa_wave *w, const isa_inst *in) { buffer_access(w, in, true); }

/* ---------------------------------------------------------------- atomics */
enum { AT_ADD, AT_SUB, AT_SMIN, AT_SMAX, AT_UMIN, AT_UMAX, AT_AND, AT_OR, AT_XOR, AT_SWAP, AT_CMPSWAP, AT_FADD, AT_FMIN,
       AT_FMAX };

static uint32_t atomic_new(int op, uint32_t old, uint32_t x) {
  float f, g;
  memcpy(&f, &old, 4), memcpy(&g, &x, 4);
  switch (op) {
  case AT_ADD: return old + x;
  case AT_SUB: return old - x;
  case AT_SMIN: return (int32_t)old < (int32_t)x ? old : x;
  case AT_SMAX: return (int32_t)old > (int32_t)x ? old : x;
  case AT_UMIN: return old < x ? old : x;
  case AT_UMAX: return old > x ? old : x;
  case AT_AND: return old & x;
  case AT_OR: return old | x;
  case AT_XOR: return old ^ x;
  case AT_FADD: f += g; break;
  case AT_FMIN: f = g < f || f != f ? g : f; break;
  case AT_FMAX: f = g > f || f != f ? g : f; break;
  default: return x; /* swap */
  }
  uint32_t r;
  memcpy(&r, &f, 4);
  return r;
}

/* One dword, atomic against the other OS threads running work-groups: a compare-and-swap loop.
 * cmpswap's data is (new, compare). Returns the old value. */
static uint32_t atomic_dword(int op, uint32_t *p, uint32_t x, uint32_t cmp) {
  uint32_t old = __atomic_load_n(p, __ATOMIC_RELAXED), nw;
  do {
    nw = op == AT_CMPSWAP ? (old == cmp ? x : old) : atomic_new(op, old, x);
  } while (!__atomic_compare_exchange_n(p, &old, nw, false, __ATOMIC_SEQ_CST, __ATOMIC_RELAXED));
  return old;
}

/* global_atomic_*: [vdst,] vaddr, vdata, saddr|off — the returning form has the extra operand. */
static void global_atomic(isa_wave *w, const isa_inst *in) {
  bool ret = in->nops == 4;
  const isa_opnd *va = &in->o[ret], *data = &in->o[ret + 1], *sa = &in->o[ret + 2];
  int op = in->def->arg2;
  for (uint64_t m = isa_exec(w); m; m &= m - 1) {
    int l = __builtin_ctzll(m);
    uint32_t *p = isa_mem(w, in, global_addr(w, in, va, sa, l), 4, true, l);
    if (!p)
      return;
    uint32_t x = w->v[data->reg * ISA_LANES + l], c = op == AT_CMPSWAP ? w->v[(data->reg + 1) * ISA_LANES + l] : 0;
    uint32_t old = atomic_dword(op, p, x, c);
    if (ret)
      w->v[in->o[0].reg * ISA_LANES + l] = old;
  }
  if (ret)
    isa_pend(w, in, CNT_VM, OK_VGPR, in->o[0].reg, 1);
  else
    pend_store(w, in);
}

/* buffer_atomic_*: vdata (also the destination with IF_RETURN), vaddr, srsrc, soffset; an
 * out-of-range lane does nothing (and returns zero). */
static void buffer_atomic(isa_wave *w, const isa_inst *in) {
  vsharp v;
  if (!vsharp_read(w, in, &in->o[2], &v))
    return;
  int op = in->def->arg2;
  bool ret = in->flags & IF_RETURN;
  uint64_t soff = buffer_soffset(w, in);
  const isa_opnd *data = &in->o[0];
  for (uint64_t m = isa_exec(w); m; m &= m - 1) {
    int l = __builtin_ctzll(m);
    uint64_t index, off;
    buffer_lane(w, in, l, &index, &off);
    uint32_t old = 0;
    if (!buffer_oob(&v, soff, index, off, 4)) {
      uint32_t *p = isa_mem(w, in, v.base + soff + v.stride * index + off, 4, true, l);
      if (!p)
        return;
      uint32_t x = w->v[data->reg * ISA_LANES + l], c = op == AT_CMPSWAP ? w->v[(data->reg + 1) * ISA_LANES + l] : 0;
      old = atomic_dword(op, p, x, c);
    }
    if (ret)
      w->v[data->reg * ISA_LANES + l] = old;
  }
  if (ret)
    isa_pend(w, in, CNT_VM, OK_VGPR, data->reg, 1);
  else
    pend_store(w, in);
}

bool isa_is_vector_load(const isa_inst *in) {
  return in->fn == global_load || in->fn == buffer_load || isa_is_scratch_load(in);
}

const isa_opdef isa_ops_mem[] = {
    {"s_load_dword", s_load, 0, 1, 0},
    {"s_load_dwordx2", s_load, 0, 2, 0},
    {"s_load_dwordx4", s_load, 0, 4, 0},
    {"s_load_dwordx8", s_load, 0, 8, 0},
    {"s_load_dwordx16", s_load, 0, 16, 0},
    {"s_load_b32", s_load, 0, 1, 0},
    {"s_load_b64", s_load, 0, 2, 0},
    {"s_load_b96", s_load, 0, 3, 0},
    {"s_load_b128", s_load, 0, 4, 0},
    {"s_load_b256", s_load, 0, 8, 0},
    {"s_load_b512", s_load, 0, 16, 0},
    {"s_load_u8", s_load_sub, 0, 1, 0},
    {"s_load_i8", s_load_sub, 0, 1, 1},
    {"s_load_u16", s_load_sub, 0, 2, 0},
    {"s_load_i16", s_load_sub, 0, 2, 1},
    {"s_buffer_load_dword", s_buffer_load, 0, 1, 0},
    {"s_buffer_load_dwordx2", s_buffer_load, 0, 2, 0},
    {"s_buffer_load_dwordx4", s_buffer_load, 0, 4, 0},
    {"s_buffer_load_b32", s_buffer_load, 0, 1, 0},
    {"s_buffer_load_b64", s_buffer_load, 0, 2, 0},
    {"s_buffer_load_b96", s_buffer_load, 0, 3, 0},
    {"s_buffer_load_b128", s_buffer_load, 0, 4, 0},
    {"global_load_ubyte", global_load, 0, 1, G_LOAD},
    {"global_load_sbyte", global_load, 0, 1, G_LOAD_SIGNED},
    {"global_load_ushort", global_load, 0, 2, G_LOAD},
    {"global_load_sshort", global_load, 0, 2, G_LOAD_SIGNED},
    {"global_load_dword", global_load, 0, 4, G_LOAD},
    {"global_load_dwordx2", global_load, 0, 8, G_LOAD},
    {"global_load_dwordx3", global_load, 0, 12, G_LOAD},
    {"global_load_dwordx4", global_load, 0, 16, G_LOAD},
    {"global_load_ubyte_d16", global_load, 0, 1, G_LOAD_D16},
    {"global_load_ubyte_d16_hi", global_load, 0, 1, G_LOAD_D16_HI},
    {"global_load_short_d16", global_load, 0, 2, G_LOAD_D16},
    {"global_load_sbyte_d16", global_load, 0, 1, G_LOAD_D16_S},
    {"global_load_sbyte_d16_hi", global_load, 0, 1, G_LOAD_D16_HI_S},
    {"global_load_d16_i8", global_load, 0, 1, G_LOAD_D16_S},
    {"global_load_d16_hi_i8", global_load, 0, 1, G_LOAD_D16_HI_S},
    {"global_load_short_d16_hi", global_load, 0, 2, G_LOAD_D16_HI},
    {"global_load_u8", global_load, 0, 1, G_LOAD},
    {"global_load_i8", global_load, 0, 1, G_LOAD_SIGNED},
    {"global_load_u16", global_load, 0, 2, G_LOAD},
    {"global_load_i16", global_load, 0, 2, G_LOAD_SIGNED},
    {"global_load_b32", global_load, 0, 4, G_LOAD},
    {"global_load_b64", global_load, 0, 8, G_LOAD},
    {"global_load_b96", global_load, 0, 12, G_LOAD},
    {"global_load_b128", global_load, 0, 16, G_LOAD},
    {"global_load_d16_u8", global_load, 0, 1, G_LOAD_D16},
    {"global_load_d16_hi_u8", global_load, 0, 1, G_LOAD_D16_HI},
    {"global_load_d16_b16", global_load, 0, 2, G_LOAD_D16},
    {"global_load_d16_hi_b16", global_load, 0, 2, G_LOAD_D16_HI},
    {"global_store_byte", global_store, 0, 1, G_STORE},
    {"global_store_byte_d16_hi", global_store, 0, 1, G_STORE_D16_HI},
    {"global_store_short", global_store, 0, 2, G_STORE},
    {"global_store_short_d16_hi", global_store, 0, 2, G_STORE_D16_HI},
    {"global_store_dword", global_store, 0, 4, G_STORE},
    {"global_store_dwordx2", global_store, 0, 8, G_STORE},
    {"global_store_dwordx3", global_store, 0, 12, G_STORE},
    {"global_store_dwordx4", global_store, 0, 16, G_STORE},
    {"global_store_b8", global_store, 0, 1, G_STORE},
    {"global_store_d16_hi_b8", global_store, 0, 1, G_STORE_D16_HI},
    {"global_store_b16", global_store, 0, 2, G_STORE},
    {"global_store_d16_hi_b16", global_store, 0, 2, G_STORE_D16_HI},
    {"global_store_b32", global_store, 0, 4, G_STORE},
    {"global_store_b64", global_store, 0, 8, G_STORE},
    {"global_store_b96", global_store, 0, 12, G_STORE},
    {"global_store_b128", global_store, 0, 16, G_STORE},
    {"buffer_load_dword", buffer_load, 0, 4, G_LOAD},
    {"buffer_load_dwordx2", buffer_load, 0, 8, G_LOAD},
    {"buffer_load_dwordx3", buffer_load, 0, 12, G_LOAD},
    {"buffer_load_dwordx4", buffer_load, 0, 16, G_LOAD},
    {"buffer_load_ubyte", buffer_load, 0, 1, G_LOAD},
    {"buffer_load_sbyte", buffer_load, 0, 1, G_LOAD_SIGNED},
    {"buffer_load_ushort", buffer_load, 0, 2, G_LOAD},
    {"buffer_load_sshort", buffer_load, 0, 2, G_LOAD_SIGNED},
    {"buffer_load_ubyte_d16", buffer_load, 0, 1, G_LOAD_D16},
    {"buffer_load_ubyte_d16_hi", buffer_load, 0, 1, G_LOAD_D16_HI},
    {"buffer_load_sbyte_d16", buffer_load, 0, 1, G_LOAD_D16_S},
    {"buffer_load_sbyte_d16_hi", buffer_load, 0, 1, G_LOAD_D16_HI_S},
    {"buffer_load_short_d16", buffer_load, 0, 2, G_LOAD_D16},
    {"buffer_load_short_d16_hi", buffer_load, 0, 2, G_LOAD_D16_HI},
    {"buffer_load_b32", buffer_load, 0, 4, G_LOAD},
    {"buffer_load_b64", buffer_load, 0, 8, G_LOAD},
    {"buffer_load_b96", buffer_load, 0, 12, G_LOAD},
    {"buffer_load_b128", buffer_load, 0, 16, G_LOAD},
    {"buffer_load_u8", buffer_load, 0, 1, G_LOAD},
    {"buffer_load_i8", buffer_load, 0, 1, G_LOAD_SIGNED},
    {"buffer_load_u16", buffer_load, 0, 2, G_LOAD},
    {"buffer_load_i16", buffer_load, 0, 2, G_LOAD_SIGNED},
    {"buffer_load_d16_u8", buffer_load, 0, 1, G_LOAD_D16},
    {"buffer_load_d16_hi_u8", buffer_load, 0, 1, G_LOAD_D16_HI},
    {"buffer_load_d16_i8", buffer_load, 0, 1, G_LOAD_D16_S},
    {"buffer_load_d16_hi_i8", buffer_load, 0, 1, G_LOAD_D16_HI_S},
    {"buffer_load_d16_b16", buffer_load, 0, 2, G_LOAD_D16},
    {"buffer_load_d16_hi_b16", buffer_load, 0, 2, G_LOAD_D16_HI},
    {"buffer_store_dword", buffer_store, 0, 4, G_STORE},
    {"buffer_store_dwordx2", buffer_store, 0, 8, G_STORE},
    {"buffer_store_dwordx3", buffer_store, 0, 12, G_STORE},
    {"buffer_store_dwordx4", buffer_store, 0, 16, G_STORE},
    {"buffer_store_byte", buffer_store, 0, 1, G_STORE},
    {"buffer_store_byte_d16_hi", buffer_store, 0, 1, G_STORE_D16_HI},
    {"buffer_store_short", buffer_store, 0, 2, G_STORE},
    {"buffer_store_short_d16_hi", buffer_store, 0, 2, G_STORE_D16_HI},
    {"buffer_store_b8", buffer_store, 0, 1, G_STORE},
    {"buffer_store_b16", buffer_store, 0, 2, G_STORE},
    {"buffer_store_b32", buffer_store, 0, 4, G_STORE},
    {"buffer_store_b64", buffer_store, 0, 8, G_STORE},
    {"buffer_store_b96", buffer_store, 0, 12, G_STORE},
    {"buffer_store_b128", buffer_store, 0, 16, G_STORE},
    {"buffer_store_d16_hi_b8", buffer_store, 0, 1, G_STORE_D16_HI},
    {"buffer_store_d16_hi_b16", buffer_store, 0, 2, G_STORE_D16_HI},
    {"buffer_atomic_add", buffer_atomic, 0, 4, AT_ADD},
    {"global_atomic_add", global_atomic, 0, 4, AT_ADD},
    {"buffer_atomic_add_u32", buffer_atomic, 0, 4, AT_ADD},
    {"global_atomic_add_u32", global_atomic, 0, 4, AT_ADD},
    {"buffer_atomic_sub", buffer_atomic, 0, 4, AT_SUB},
    {"global_atomic_sub", global_atomic, 0, 4, AT_SUB},
    {"buffer_atomic_sub_u32", buffer_atomic, 0, 4, AT_SUB},
    {"global_atomic_sub_u32", global_atomic, 0, 4, AT_SUB},
    {"buffer_atomic_smin", buffer_atomic, 0, 4, AT_SMIN},
    {"global_atomic_smin", global_atomic, 0, 4, AT_SMIN},
    {"buffer_atomic_min_i32", buffer_atomic, 0, 4, AT_SMIN},
    {"global_atomic_min_i32", global_atomic, 0, 4, AT_SMIN},
    {"buffer_atomic_smax", buffer_atomic, 0, 4, AT_SMAX},
    {"global_atomic_smax", global_atomic, 0, 4, AT_SMAX},
    {"buffer_atomic_max_i32", buffer_atomic, 0, 4, AT_SMAX},
    {"global_atomic_max_i32", global_atomic, 0, 4, AT_SMAX},
    {"buffer_atomic_umin", buffer_atomic, 0, 4, AT_UMIN},
    {"global_atomic_umin", global_atomic, 0, 4, AT_UMIN},
    {"buffer_atomic_min_u32", buffer_atomic, 0, 4, AT_UMIN},
    {"global_atomic_min_u32", global_atomic, 0, 4, AT_UMIN},
    {"buffer_atomic_umax", buffer_atomic, 0, 4, AT_UMAX},
    {"global_atomic_umax", global_atomic, 0, 4, AT_UMAX},
    {"buffer_atomic_max_u32", buffer_atomic, 0, 4, AT_UMAX},
    {"global_atomic_max_u32", global_atomic, 0, 4, AT_UMAX},
    {"buffer_atomic_and", buffer_atomic, 0, 4, AT_AND},
    {"global_atomic_and", global_atomic, 0, 4, AT_AND},
    {"buffer_atomic_and_b32", buffer_atomic, 0, 4, AT_AND},
    {"global_atomic_and_b32", global_atomic, 0, 4, AT_AND},
    {"buffer_atomic_or", buffer_atomic, 0, 4, AT_OR},
    {"global_atomic_or", global_atomic, 0, 4, AT_OR},
    {"buffer_atomic_or_b32", buffer_atomic, 0, 4, AT_OR},
    {"global_atomic_or_b32", global_atomic, 0, 4, AT_OR},
    {"buffer_atomic_xor", buffer_atomic, 0, 4, AT_XOR},
    {"global_atomic_xor", global_atomic, 0, 4, AT_XOR},
    {"buffer_atomic_xor_b32", buffer_atomic, 0, 4, AT_XOR},
    {"global_atomic_xor_b32", global_atomic, 0, 4, AT_XOR},
    {"buffer_atomic_swap", buffer_atomic, 0, 4, AT_SWAP},
    {"global_atomic_swap", global_atomic, 0, 4, AT_SWAP},
    {"buffer_atomic_swap_b32", buffer_atomic, 0, 4, AT_SWAP},
    {"global_atomic_swap_b32", global_atomic, 0, 4, AT_SWAP},
    {"buffer_atomic_cmpswap", buffer_atomic, 0, 4, AT_CMPSWAP},
    {"global_atomic_cmpswap", global_atomic, 0, 4, AT_CMPSWAP},
    {"buffer_atomic_cmpswap_b32", buffer_atomic, 0, 4, AT_CMPSWAP},
    {"global_atomic_cmpswap_b32", global_atomic, 0, 4, AT_CMPSWAP},
    {"buffer_atomic_add_f32", buffer_atomic, 0, 4, AT_FADD},
    {"global_atomic_add_f32", global_atomic, 0, 4, AT_FADD},
    {"buffer_atomic_fmin", buffer_atomic, 0, 4, AT_FMIN},
    {"global_atomic_fmin", global_atomic, 0, 4, AT_FMIN},
    {"buffer_atomic_fmax", buffer_atomic, 0, 4, AT_FMAX},
    {"global_atomic_fmax", global_atomic, 0, 4, AT_FMAX},
    {"buffer_atomic_min_num_f32", buffer_atomic, 0, 4, AT_FMIN},
    {"global_atomic_min_num_f32", global_atomic, 0, 4, AT_FMIN},
    {"buffer_atomic_max_num_f32", buffer_atomic, 0, 4, AT_FMAX},
    {"global_atomic_max_num_f32", global_atomic, 0, 4, AT_FMAX},
    {NULL, NULL, 0, 0, 0},
};
