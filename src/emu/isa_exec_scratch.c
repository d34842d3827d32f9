/* isa_exec_scratch.c: private (scratch) memory. Every lane of a wave owns the kernel
 * descriptor's private segment (plus a dynamic stack when the descriptor says it uses one);
 * the emulator stores it lane by lane and checks each access against that size. Two ways
 * reach it (docs/emulator.md, "Scratch"):
 * - scratch_* instructions (gfx9.4 architected flat scratch, gfx10.3, gfx11, gfx12): the
 *   address (VGPR and/or SGPR offset plus the instruction offset) is the lane's private byte
 *   offset; the flat scratch base the prologue sets up selects the wave, which the emulator
 *   knows anyway;
 * - buffer_* through the private segment buffer V# the HSA ABI puts in s[0:3] (gfx9 and gfx10
 *   without architected flat scratch): base + soffset selects the wave's slice (the scratch wave
 *   offset SGPR holds its start), the offen VGPR and the instruction offset are the lane's
 *   private offset; the hardware's swizzle (4-byte elements interleaved across the lanes) only
 *   places bytes and is not observable through these instructions. */
#include "isa_int.h"

#include <inttypes.h>
#include <string.h>

/* Per-lane limit: the fixed private segment, plus the stack a dynamic call stack may grow. */
uint64_t isa_private_limit(const isa_kernel *k) {
  return (uint64_t)k->private_segment_size + (k->code_props >> 11 & 1 ? ISA_DYNAMIC_STACK_BYTES : 0);
}

/* Bytes of one wave's slice of the scratch backing memory the wave offset SGPR counts in. */
static uint64_t wave_slice(const isa_wave *w) {
  return (isa_private_limit(w->g->k) + 3) / 4 * 4 * (uint64_t)w->lanes;
}

uint32_t isa_scratch_wave_offset(const isa_wave *w) { return (uint32_t)(wave_slice(w) * (uint64_t)w->id); }

/* Lane `lane`'s private bytes [off, off + size), or NULL and a fault naming the access. */
static uint8_t *private_bytes(isa_wave *w, const isa_inst *in, int64_t off, int size, bool store, int lane) {
  uint32_t limit = w->priv_limit;
  if (off < 0 || off + size > (int64_t)limit) {
    isa_fault(w, in, "lane %d %s %d private bytes at offset %" PRId64 ", outside its private segment of %u bytes",
              lane, store ? "writes" : "reads", size, off, limit);
    return NULL;
  }
  return w->priv + (size_t)lane * limit + (size_t)off;
}

/* scratch_*: the lane's private offset from the VGPR and/or SGPR offset (either may be `off`;
 * both is the gfx9.4/gfx11 SVS form) and the signed instruction offset. */
static int64_t scratch_offset(const isa_wave *w, const isa_inst *in, const isa_opnd *va, const isa_opnd *sa, int l) {
  int64_t a = in->offset;
  if (va->kind == OK_VGPR)
    a += isa_reg32(w, va, 0, l);
  if (sa->kind == OK_SGPR)
    a += isa_reg32(w, sa, 0, l);
  return a;
}

/* One lane: load into its destination registers, or store its data. */
static bool private_lane(isa_wave *w, const isa_inst *in, int64_t off, bool store, const isa_opnd *data, int l) {
  int size = in->def->arg;
  uint8_t *p = private_bytes(w, in, off, size, store, l);
  if (!p)
    return false;
  if (store) {
    uint32_t x[4];
    for (int i = 0; i < (size + 3) / 4; i++)
      x[i] = isa_store_word(w, in, data, l, i);
    memcpy(p, x, (size_t)size);
  } else {
    const uint8_t *dw[4] = {p, p + 4, p + 8, p + 12};
    isa_load_lane(w, in, l, dw);
  }
  return true;
}

static void scratch_access(isa_wave *w, const isa_inst *in, bool store) {
  /* load: vdst, vaddr|off, saddr|off; store: vaddr|off, vdata, saddr|off */
  const isa_opnd *va = &in->o[store ? 0 : 1], *data = &in->o[1], *sa = &in->o[2];
  for (uint64_t m = isa_exec(w); m; m &= m - 1) {
    int l = __builtin_ctzll(m);
    if (!private_lane(w, in, scratch_offset(w, in, va, sa, l), store, data, l))
      return;
  }
  isa_pend_vmem(w, in, store);
}
static void scratch_load(isa_wave *w, const isa_inst *in) { scratch_access(w, in, false); }
static void scratch_store(isa_wave *w, const isa_inst *in) { scratch_access(w, in, true); }

bool isa_is_scratch_load(const isa_inst *in) { return in->fn == scratch_load; }

/* buffer_* through the private segment buffer: false if the V# in o[2] is another buffer. */
bool isa_scratch_buffer(isa_wave *w, const isa_inst *in, bool store) {
  const isa_opnd *r = &in->o[2];
  uint64_t base = isa_reg32(w, r, 0, 0) | (uint64_t)(isa_reg32(w, r, 1, 0) & 0xffff) << 32;
  if (base < ISA_SCRATCH_BASE || base >= ISA_SCRATCH_BASE + (1ull << 32))
    return false;
  const isa_opnd *so = &in->o[3];
  uint64_t soff = so->kind == OK_IMM ? (uint32_t)so->imm : so->kind == OK_SGPR ? isa_reg32(w, so, 0, 0) : 0;
  /* the wave's slice, then whole swizzle rows (4 bytes of every lane) into it */
  int64_t rel = (int64_t)(base - ISA_SCRATCH_BASE + soff) - (int64_t)isa_scratch_wave_offset(w);
  int64_t row = 4 * (int64_t)w->lanes;
  if (rel % row || (in->flags & IF_IDXEN)) {
    isa_fault(w, in, "a private segment buffer access %s is not modelled (base + soffset %" PRId64
              " bytes from the wave's scratch, not a multiple of %" PRId64 ")",
              in->flags & IF_IDXEN ? "with idxen" : "between swizzle rows", rel, row);
    return true;
  }
  for (uint64_t m = isa_exec(w); m; m &= m - 1) {
    int l = __builtin_ctzll(m);
    int64_t off = rel / row * 4 + in->offset;
    if (in->flags & IF_OFFEN)
      off += isa_reg32(w, &in->o[1], 0, l);
    if (!private_lane(w, in, off, store, &in->o[0], l))
      return true;
  }
  isa_pend_vmem(w, in, store);
  return true;
}

const isa_opdef isa_ops_scratch[] = {
    {"scratch_load_ubyte", scratch_load, 0, 1, G_LOAD},
    {"scratch_load_sbyte", scratch_load, 0, 1, G_LOAD_SIGNED},
    {"scratch_load_ushort", scratch_load, 0, 2, G_LOAD},
    {"scratch_load_sshort", scratch_load, 0, 2, G_LOAD_SIGNED},
    {"scratch_load_dword", scratch_load, 0, 4, G_LOAD},
    {"scratch_load_dwordx2", scratch_load, 0, 8, G_LOAD},
    {"scratch_load_dwordx3", scratch_load, 0, 12, G_LOAD},
    {"scratch_load_dwordx4", scratch_load, 0, 16, G_LOAD},
    {"scratch_load_ubyte_d16", scratch_load, 0, 1, G_LOAD_D16},
    {"scratch_load_ubyte_d16_hi", scratch_load, 0, 1, G_LOAD_D16_HI},
    {"scratch_load_sbyte_d16", scratch_load, 0, 1, G_LOAD_D16_S},
    {"scratch_load_sbyte_d16_hi", scratch_load, 0, 1, G_LOAD_D16_HI_S},
    {"scratch_load_short_d16", scratch_load, 0, 2, G_LOAD_D16},
    {"scratch_load_short_d16_hi", scratch_load, 0, 2, G_LOAD_D16_HI},
    {"scratch_load_u8", scratch_load, 0, 1, G_LOAD},
    {"scratch_load_i8", scratch_load, 0, 1, G_LOAD_SIGNED},
    {"scratch_load_u16", scratch_load, 0, 2, G_LOAD},
    {"scratch_load_i16", scratch_load, 0, 2, G_LOAD_SIGNED},
    {"scratch_load_b32", scratch_load, 0, 4, G_LOAD},
    {"scratch_load_b64", scratch_load, 0, 8, G_LOAD},
    {"scratch_load_b96", scratch_load, 0, 12, G_LOAD},
    {"scratch_load_b128", scratch_load, 0, 16, G_LOAD},
    {"scratch_load_d16_u8", scratch_load, 0, 1, G_LOAD_D16},
    {"scratch_load_d16_hi_u8", scratch_load, 0, 1, G_LOAD_D16_HI},
    {"scratch_load_d16_i8", scratch_load, 0, 1, G_LOAD_D16_S},
    {"scratch_load_d16_hi_i8", scratch_load, 0, 1, G_LOAD_D16_HI_S},
    {"scratch_load_d16_b16", scratch_load, 0, 2, G_LOAD_D16},
    {"scratch_load_d16_hi_b16", scratch_load, 0, 2, G_LOAD_D16_HI},
    {"scratch_store_byte", scratch_store, 0, 1, G_STORE},
    {"scratch_store_byte_d16_hi", scratch_store, 0, 1, G_STORE_D16_HI},
    {"scratch_store_short", scratch_store, 0, 2, G_STORE},
    {"scratch_store_short_d16_hi", scratch_store, 0, 2, G_STORE_D16_HI},
    {"scratch_store_dword", scratch_store, 0, 4, G_STORE},
    {"scratch_store_dwordx2", scratch_store, 0, 8, G_STORE},
    {"scratch_store_dwordx3", scratch_store, 0, 12, G_STORE},
    {"scratch_store_dwordx4", scratch_store, 0, 16, G_STORE},
    {"scratch_store_b8", scratch_store, 0, 1, G_STORE},
    {"scratch_store_d16_hi_b8", scratch_store, 0, 1, G_STORE_D16_HI},
    {"scratch_store_b16", scratch_store, 0, 2, G_STORE},
    {"scratch_store_d16_hi_b16", scratch_store, 0, 2, G_STORE_D16_HI},
    {"scratch_store_b32", scratch_store, 0, 4, G_STORE},
    {"scratch_store_b64", scratch_store, 0, 8, G_STORE},
    {"scratch_store_b96", scratch_store, 0, 12, G_STORE},
    {"scratch_store_b128", scratch_store, 0, 16, G_STORE},
    {NULL, NULL, 0, 0, 0},
};
