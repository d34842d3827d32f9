/* isa_exec_lds.c: LDS (DS) instructions and the cross-wave LDS race check. Addresses are VGPR +
 * offset (a 32-bit sum) inside the kernel's group segment (the descriptor's size; an access beyond it is an
 * error). Results are delivered at issue and wait on lgkmcnt like scalar loads (ISA.md §3.6).
 * Race check: per LDS dword the last writing wave, the bytes it wrote and the barrier interval
 * ("epoch") it wrote in, and the waves that read it in the current interval with the bytes they
 * read; two different waves touching the same bytes in one interval where one writes is reported
 * (read-after-write, write-after-read), and bytes two waves wrote with different values in one
 * interval are reported when read (write-after-write). */
#include "isa_int.h"

#include <string.h>

/* Lanes EXEC enables, as l (a loop a `return` may leave). */
#define LANES_DS                                                                                   \
  for (uint64_t m_ = isa_exec(w); m_; m_ &= m_ - 1)                                               \
    for (int l = __builtin_ctzll(m_), once_ = 1; once_; once_ = 0)

/* Bytes [off, off + size) of the group segment, checked and race-checked; NULL after a fault.
 * A store passes its data: rewriting bytes another wave wrote with the value they hold is not
 * reported (tiles whose elements several work-items load redundantly). */
static uint8_t *lds_at(isa_wave *w, const isa_inst *in, uint64_t off, int size, const void *data, int lane) {
  bool store = data != NULL;
  isa_group *g = w->g;
  if (off + (uint64_t)size > (uint64_t)g->lds_size) {
    isa_fault(w, in, "lane %d %s %d bytes at LDS offset %llu, beyond the kernel's %lld bytes of LDS", lane,
              store ? "stores" : "loads", size, (unsigned long long)off, (long long)g->lds_size);
    return NULL;
  }
  for (uint64_t d = off / 4; d <= (off + (uint64_t)size - 1) / 4; d++) {
    isa_lds_owner *o = &g->owner[d];
    uint32_t me = 1u << (w->id & 31);
    /* the bytes of this dword the access touches: waves may share a dword in disjoint bytes */
    uint64_t lo = d * 4 > off ? d * 4 : off, hi = d * 4 + 4 < off + (uint64_t)size ? d * 4 + 4 : off + (uint64_t)size;
    uint8_t bytes = (uint8_t)(((1u << (hi - lo)) - 1) << (lo - d * 4));
    bool other_writer = o->write_epoch == g->epoch && o->writer != w->id + 1 && o->writer;
    if (!store && (o->cbytes & bytes)) {
      isa_fault(w, in, "LDS race: lane %d reads LDS offset %llu, which waves %d and %d wrote without an s_barrier between",
                lane, (unsigned long long)(d * 4), o->rival - 1, o->writer - 1);
      return NULL;
    }
    if (!store && other_writer && (o->wbytes & bytes)) {
      isa_fault(w, in, "LDS race: lane %d reads LDS offset %llu, which wave %d wrote without an s_barrier between",
                lane, (unsigned long long)(d * 4), o->writer - 1);
      return NULL;
    }
    if (store) {
      uint32_t others = o->read_epoch == g->epoch ? o->readers & ~me : 0;
      if (others && (o->rbytes & bytes)) {
        isa_fault(w, in, "LDS race: lane %d overwrites LDS offset %llu, which wave %d read without an s_barrier between",
                  lane, (unsigned long long)(d * 4), __builtin_ctz(others));
        return NULL;
      }
      /* Two waves writing different values in one interval leave the bytes undefined: reported
       * when read (a slot that collects masked elements and is never read is fine). */
      o->cbytes &= (uint8_t)~bytes;
      if (other_writer && (o->wbytes & bytes) && memcmp(g->lds + off, data, (size_t)size)) {
        o->cbytes |= o->wbytes & bytes;
        o->rival = o->writer;
      }
      o->wbytes = other_writer || o->write_epoch != g->epoch ? bytes : (uint8_t)(o->wbytes | bytes);
      o->writer = (uint16_t)(w->id + 1);
      o->write_epoch = g->epoch;
    } else {
      if (o->read_epoch != g->epoch)
        o->readers = 0, o->rbytes = 0, o->read_epoch = g->epoch;
      o->readers |= me;
      o->rbytes |= bytes;
    }
  }
  return g->lds + off;
}

/* A DS address: VGPR + the instruction's offset, summed in 32 bits. From Sea Islands on LLVM folds
 * a constant into the offset field whatever the sign of the VGPR part (AMDGPUISelDAGToDAG.cpp
 * isDSOffsetLegal: only Southern Islands needs a base known to be non-negative), so a VGPR of
 * -256 with offset:256 addresses byte 0: the sum wraps. */
static uint64_t ds_addr(uint32_t vgpr, int64_t offset) { return (uint32_t)(vgpr + (uint32_t)offset); }

/* Kinds (arg2): plain, two addresses (offset0/offset1 in elements), the *2st64 forms (x64). */
enum { D_ONE, D_TWO, D_TWO64 };
enum { DL_U, DL_S };

static void ds_write(isa_wave *w, const isa_inst *in) {
  int size = in->def->arg, kind = in->def->arg2 & 3, n = kind == D_ONE ? 1 : 2;
  int64_t scale = kind == D_TWO64 ? 64 * size : size;
  LANES_DS {
    uint32_t addr = isa_reg32(w, &in->o[0], 0, l);
    for (int k = 0; k < n; k++) {
      uint64_t off = ds_addr(addr, n == 1 ? in->offset : (k ? in->offset1 : in->offset) * scale);
      const isa_opnd *data = &in->o[1 + k];
      uint32_t x[4];
      for (int i = 0; i < (size + 3) / 4; i++)
        x[i] = isa_reg32(w, data, i, l);
      if (size < 4)
        x[0] >>= in->def->arg2 & 4 ? 16 : 0;
      uint8_t *p = lds_at(w, in, off, size, x, l);
      if (!p)
        return;
      memcpy(p, x, (size_t)size);
    }
  }
  /* LDS writes count in lgkmcnt (dscnt) too: a wait for N leaves the newest N outstanding. */
  isa_pend(w, in, CNT_LGKM, OK_VGPR, 0, 0);
}

#define HI 4   /* the high half (d16_hi stores and loads) */
#define SG 8   /* sign-extend */
#define D16 16 /* a sub-dword load into one 16-bit half, the other half kept */
static void ds_read(isa_wave *w, const isa_inst *in) {
  int size = in->def->arg, kind = in->def->arg2 & 3, n = kind == D_ONE ? 1 : 2;
  bool sign = in->def->arg2 & SG, d16 = in->def->arg2 & D16, hi = in->def->arg2 & HI;
  int64_t scale = kind == D_TWO64 ? 64 * size : size;
  const isa_opnd *d = &in->o[0];
  int words = size >= 4 ? size / 4 : 1;
  LANES_DS {
    uint32_t addr = isa_reg32(w, &in->o[1], 0, l);
    for (int k = 0; k < n; k++) {
      uint64_t off = ds_addr(addr, n == 1 ? in->offset : (k ? in->offset1 : in->offset) * scale);
      const uint8_t *p = lds_at(w, in, off, size, NULL, l);
      if (!p)
        return;
      uint32_t *r = &w->v[(d->reg + k * words) * ISA_LANES + l];
      if (size >= 4) {
        for (int i = 0; i < words; i++)
          memcpy(&r[i * ISA_LANES], p + 4 * i, 4);
      } else {
        uint32_t x = 0;
        memcpy(&x, p, (size_t)size);
        if (sign)
          x = size == 1 ? (uint32_t)(int32_t)(int8_t)x : (uint32_t)(int32_t)(int16_t)x;
        if (d16)
          x = hi ? (r[0] & 0xffffu) | x << 16 : (r[0] & 0xffff0000u) | (x & 0xffffu);
        r[0] = x;
      }
    }
  }
  isa_pend(w, in, CNT_LGKM, OK_VGPR, d->reg, words * n);
}

/* ds_read_b64_tr_b16 d[2], addr (gfx950): a transposing read in groups of 16 lanes. Lane j of a
 * group reads the four 16-bit elements at its address: row j / 4, columns 4·(j % 4) .. + 3 of a
 * 4 x 16 tile; lane i then receives column i of the tile, element e = row e: element j % 4 of
 * what lane 4·e + i / 4 read. Sources: LLVM's AMDGPU intrinsic llvm.amdgcn.ds.read.tr16.b64
 * ("each 16-lane row loads a 4x16 tile, with per-lane exchange so each lane gets a column of the
 * tile", the Mojo ds_read_tr16_b64_row documentation of that intrinsic), and Triton's
 * chooseDsReadB64TrLayout unit test (mfma16 dot operand, kWidth 8, 16-bit: lane bases
 * {4,0},{8,0},{0,1},{0,2} for the addresses, registers {1,0},{2,0} within one lane's 8 bytes).
 * A group that EXEC enables only in part is refused (the hardware's result is undefined). */
static void ds_read_tr16(isa_wave *w, const isa_inst *in) {
  uint16_t got[ISA_LANES][4];
  uint64_t exec = isa_exec(w);
  for (int g = 0; g < w->lanes; g += 16) {
    uint64_t m = exec >> g & 0xffffu;
    if (m && m != 0xffffu) {
      isa_fault(w, in, "ds_read_b64_tr_b16 with lanes %d..%d only partly active", g, g + 15);
      return;
    }
  }
  LANES_DS {
    uint64_t off = ds_addr(isa_reg32(w, &in->o[1], 0, l), in->offset);
    const uint8_t *p = lds_at(w, in, off, 8, NULL, l);
    if (!p)
      return;
    memcpy(got[l], p, 8);
  }
  LANES_DS {
    int g = l & ~15, i = l & 15;
    uint16_t e4[4];
    for (int e = 0; e < 4; e++)
      e4[e] = got[g + 4 * e + i / 4][i % 4];
    w->v[in->o[0].reg * ISA_LANES + l] = (uint32_t)e4[0] | (uint32_t)e4[1] << 16;
    w->v[(in->o[0].reg + 1) * ISA_LANES + l] = (uint32_t)e4[2] | (uint32_t)e4[3] << 16;
  }
  isa_pend(w, in, CNT_LGKM, OK_VGPR, in->o[0].reg, 2);
}

/* ds_bpermute_b32 d, addr, data: lane l reads data of lane (addr + offset) / 4 mod wave size
 * (0 from an inactive lane); ds_permute_b32 pushes instead. LDS memory is not touched. */
static void ds_bpermute(isa_wave *w, const isa_inst *in) {
  uint32_t out[ISA_LANES];
  uint64_t exec = isa_exec(w);
  LANES_DS {
    int src = (int)(((isa_reg32(w, &in->o[1], 0, l) + (uint32_t)in->offset) >> 2) & (uint32_t)(w->lanes - 1));
    out[l] = exec >> src & 1 ? isa_reg32(w, &in->o[2], 0, src) : 0;
  }
  LANES_DS { w->v[in->o[0].reg * ISA_LANES + l] = out[l]; }
  isa_pend(w, in, CNT_LGKM, OK_VGPR, in->o[0].reg, 1);
}
static void ds_permute(isa_wave *w, const isa_inst *in) {
  uint32_t out[ISA_LANES] = {0};
  LANES_DS {
    int dst = (int)(((isa_reg32(w, &in->o[1], 0, l) + (uint32_t)in->offset) >> 2) & (uint32_t)(w->lanes - 1));
    out[dst] = isa_reg32(w, &in->o[2], 0, l);
  }
  LANES_DS { w->v[in->o[0].reg * ISA_LANES + l] = out[l]; }
  isa_pend(w, in, CNT_LGKM, OK_VGPR, in->o[0].reg, 1);
}

/* ds_swizzle_b32 d, src offset:...: bit 15 set: quad permute by the 2-bit selectors in bits 7:0;
 * else, in groups of 32 lanes, lane l reads ((l & and) | or) ^ xor (masks in bits 4:0, 9:5,
 * 14:10). An inactive source lane reads 0. */
static void ds_swizzle(isa_wave *w, const isa_inst *in) {
  uint32_t out[ISA_LANES];
  uint64_t exec = isa_exec(w);
  uint32_t off = (uint32_t)in->offset;
  LANES_DS {
    int s;
    if (off & 0x8000)
      s = (l & ~3) | (int)((off >> (2 * (l & 3))) & 3);
    else
      s = (l & ~31) | (int)((((uint32_t)l & (off & 31)) | ((off >> 5) & 31)) ^ ((off >> 10) & 31));
    out[l] = exec >> s & 1 ? isa_reg32(w, &in->o[1], 0, s) : 0;
  }
  LANES_DS { w->v[in->o[0].reg * ISA_LANES + l] = out[l]; }
  isa_pend(w, in, CNT_LGKM, OK_VGPR, in->o[0].reg, 1);
}

const isa_opdef isa_ops_lds[] = {
    {"ds_write_b8", ds_write, 0, 1, D_ONE},
    {"ds_write_b16", ds_write, 0, 2, D_ONE},
    {"ds_write_b8_d16_hi", ds_write, 0, 1, D_ONE | HI},
    {"ds_write_b16_d16_hi", ds_write, 0, 2, D_ONE | HI},
    {"ds_write_b32", ds_write, 0, 4, D_ONE},
    {"ds_write_b64", ds_write, 0, 8, D_ONE},
    {"ds_write_b96", ds_write, 0, 12, D_ONE},
    {"ds_write_b128", ds_write, 0, 16, D_ONE},
    {"ds_write2_b32", ds_write, 0, 4, D_TWO},
    {"ds_write2_b64", ds_write, 0, 8, D_TWO},
    {"ds_write2st64_b32", ds_write, 0, 4, D_TWO64},
    {"ds_write2st64_b64", ds_write, 0, 8, D_TWO64},
    {"ds_store_b8", ds_write, 0, 1, D_ONE},
    {"ds_store_b16", ds_write, 0, 2, D_ONE},
    {"ds_store_b8_d16_hi", ds_write, 0, 1, D_ONE | HI},
    {"ds_store_b16_d16_hi", ds_write, 0, 2, D_ONE | HI},
    {"ds_store_b32", ds_write, 0, 4, D_ONE},
    {"ds_store_b64", ds_write, 0, 8, D_ONE},
    {"ds_store_b96", ds_write, 0, 12, D_ONE},
    {"ds_store_b128", ds_write, 0, 16, D_ONE},
    {"ds_store_2addr_b32", ds_write, 0, 4, D_TWO},
    {"ds_store_2addr_b64", ds_write, 0, 8, D_TWO},
    {"ds_store_2addr_stride64_b32", ds_write, 0, 4, D_TWO64},
    {"ds_store_2addr_stride64_b64", ds_write, 0, 8, D_TWO64},
    {"ds_read_u8", ds_read, 0, 1, D_ONE},
    {"ds_read_i8", ds_read, 0, 1, D_ONE | SG},
    {"ds_read_u16", ds_read, 0, 2, D_ONE},
    {"ds_read_i16", ds_read, 0, 2, D_ONE | SG},
    {"ds_read_u8_d16", ds_read, 0, 1, D_ONE | D16},
    {"ds_read_u8_d16_hi", ds_read, 0, 1, D_ONE | D16 | HI},
    {"ds_read_i8_d16", ds_read, 0, 1, D_ONE | D16 | SG},
    {"ds_read_i8_d16_hi", ds_read, 0, 1, D_ONE | D16 | HI | SG},
    {"ds_read_u16_d16", ds_read, 0, 2, D_ONE | D16},
    {"ds_read_u16_d16_hi", ds_read, 0, 2, D_ONE | D16 | HI},
    {"ds_read_b32", ds_read, 0, 4, D_ONE},
    {"ds_read_b64", ds_read, 0, 8, D_ONE},
    {"ds_read_b96", ds_read, 0, 12, D_ONE},
    {"ds_read_b128", ds_read, 0, 16, D_ONE},
    {"ds_read2_b32", ds_read, 0, 4, D_TWO},
    {"ds_read2_b64", ds_read, 0, 8, D_TWO},
    {"ds_read2st64_b32", ds_read, 0, 4, D_TWO64},
    {"ds_read2st64_b64", ds_read, 0, 8, D_TWO64},
    {"ds_load_u8", ds_read, 0, 1, D_ONE},
    {"ds_load_i8", ds_read, 0, 1, D_ONE | SG},
    {"ds_load_u16", ds_read, 0, 2, D_ONE},
    {"ds_load_i16", ds_read, 0, 2, D_ONE | SG},
    {"ds_load_u8_d16", ds_read, 0, 1, D_ONE | D16},
    {"ds_load_u8_d16_hi", ds_read, 0, 1, D_ONE | D16 | HI},
    {"ds_load_i8_d16", ds_read, 0, 1, D_ONE | D16 | SG},
    {"ds_load_i8_d16_hi", ds_read, 0, 1, D_ONE | D16 | HI | SG},
    {"ds_load_u16_d16", ds_read, 0, 2, D_ONE | D16},
    {"ds_load_u16_d16_hi", ds_read, 0, 2, D_ONE | D16 | HI},
    {"ds_load_b32", ds_read, 0, 4, D_ONE},
    {"ds_load_b64", ds_read, 0, 8, D_ONE},
    {"ds_load_b96", ds_read, 0, 12, D_ONE},
    {"ds_load_b128", ds_read, 0, 16, D_ONE},
    {"ds_load_2addr_b32", ds_read, 0, 4, D_TWO},
    {"ds_load_2addr_b64", ds_read, 0, 8, D_TWO},
    {"ds_load_2addr_stride64_b32", ds_read, 0, 4, D_TWO64},
    {"ds_load_2addr_stride64_b64", ds_read, 0, 8, D_TWO64},
    {"ds_read_b64_tr_b16", ds_read_tr16, 0, 0, 0},
    {"ds_bpermute_b32", ds_bpermute, 0, 0, 0},
    {"ds_swizzle_b32", ds_swizzle, 0, 0, 0},
    {"ds_permute_b32", ds_permute, 0, 0, 0},
    {NULL, NULL, 0, 0, 0},
};
