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

/* Kinds of global access (arg2); arg is the size in bytes. */
enum { G_LOAD, G_LOAD_SIGNED, G_LOAD_D16, G_LOAD_D16_HI, G_LOAD_D16_S, G_LOAD_D16_HI_S, G_STORE, G_STORE_D16_HI };

/* Address of lane l: a 64-bit VGPR address with `off`, else an SGPR base plus a 32-bit VGPR offset. */
static inline uint64_t global_addr(const isa_wave *w, const isa_inst *in, const isa_opnd *va, const isa_opnd *sa,
                                   int l) {
  if (sa->kind == OK_OFF || sa->kind == OK_NONE)
    return isa_reg32(w, va, 0, l) + ((uint64_t)isa_reg32(w, va, 1, l) << 32) + (uint64_t)in->offset;
  return isa_rd64(w, sa, 0) + isa_reg32(w, va, 0, l) + (uint64_t)in->offset;
}

static void global_load(isa_wave *w, const isa_inst *in) {
  const isa_opnd *d = &in->o[0], *va = &in->o[1], *sa = &in->o[2];
  int size = in->def->arg, kind = in->def->arg2;
  for (uint64_t m = isa_exec(w); m; m &= m - 1) {
    int l = __builtin_ctzll(m);
    uint64_t addr = global_addr(w, in, va, sa, l);
    const uint8_t *p = isa_mem(w, in, addr, (uint64_t)size, false, l);
    if (!p)
      return;
    uint32_t *r = &w->v[d->reg * ISA_LANES + l];
    if (size >= 4) {
      for (int i = 0; i < size / 4; i++)
        memcpy(&r[i * ISA_LANES], p + 4 * i, 4);
      continue;
    }
    uint32_t x = 0;
    memcpy(&x, p, (size_t)size);
    if (kind == G_LOAD_SIGNED || kind == G_LOAD_D16_S || kind == G_LOAD_D16_HI_S)
      x = size == 1 ? (uint32_t)(int32_t)(int8_t)x : (uint32_t)(int32_t)(int16_t)x;
    if (kind == G_LOAD_D16 || kind == G_LOAD_D16_S)
      x = (r[0] & 0xffff0000u) | (x & 0xffff);
    else if (kind == G_LOAD_D16_HI || kind == G_LOAD_D16_HI_S)
      x = (r[0] & 0xffffu) | x << 16;
    r[0] = x;
  }
  isa_pend(w, in, CNT_VM, OK_VGPR, d->reg, size >= 4 ? size / 4 : 1);
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
    const uint32_t *r = &w->v[data->reg * ISA_LANES + l];
    if (size >= 4) {
      for (int i = 0; i < size / 4; i++)
        memcpy(p + 4 * i, &r[i * ISA_LANES], 4);
      continue;
    }
    uint32_t x = in->def->arg2 == G_STORE_D16_HI ? r[0] >> 16 : r[0];
    memcpy(p, &x, (size_t)size);
  }
  /* Stores hold no registers but count: vmcnt on gfx9, vscnt where stores have their counter. */
  isa_pend(w, in, w->g->m->info->store_counter ? CNT_VS : CNT_VM, OK_NONE, 0, 0);
}

bool isa_is_vector_load(const isa_inst *in) { return in->fn == global_load; }

const isa_opdef isa_ops_mem[] = {
    {"s_load_dword", s_load, 0, 1, 0},
    {"s_load_dwordx2", s_load, 0, 2, 0},
    {"s_load_dwordx4", s_load, 0, 4, 0},
    {"s_load_dwordx8", s_load, 0, 8, 0},
    {"s_load_dwordx16", s_load, 0, 16, 0},
    {"s_load_b32", s_load, 0, 1, 0},
    {"s_load_b64", s_load, 0, 2, 0},
    {"s_load_b128", s_load, 0, 4, 0},
    {"s_load_b256", s_load, 0, 8, 0},
    {"s_load_b512", s_load, 0, 16, 0},
    {"s_buffer_load_dword", s_buffer_load, 0, 1, 0},
    {"s_buffer_load_dwordx2", s_buffer_load, 0, 2, 0},
    {"s_buffer_load_dwordx4", s_buffer_load, 0, 4, 0},
    {"s_buffer_load_b32", s_buffer_load, 0, 1, 0},
    {"s_buffer_load_b64", s_buffer_load, 0, 2, 0},
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
    {NULL, NULL, 0, 0, 0},
};
