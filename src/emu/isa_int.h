/* isa_int.h: what the machine-code emulator's files share (isa_code.c reads the code object,
 * isa_decode.c decodes .text once, isa_exec_*.c execute instruction families, isa_wave.c starts
 * and runs waves). Clients only see emu.h. */
#ifndef TOSAC_ISA_INT_H
#define TOSAC_ISA_INT_H

#include "emu.h"
#include "tosac.h"

#include <stdbool.h>
#include <stdint.h>

/* The scalar register file as the encoding numbers it: s0..s105, then the special registers. */
enum {
  ISA_NSGPR = 128,
  ISA_VCC = 106,
  ISA_TTMP = 108,
  ISA_M0 = 124,
  ISA_NULL = 125,
  ISA_EXEC = 126,
  ISA_LANES = 64, /* VGPR storage stride: lanes of the widest wave */
};

/* Operand kinds. */
enum { OK_NONE, OK_SGPR, OK_VGPR, OK_AGPR, OK_IMM, OK_OFF, OK_SCC };

/* Sub-dword selects (SDWA src_sel/dst_sel; true16 .l/.h use WORD_0/WORD_1). */
enum { SEL_B0, SEL_B1, SEL_B2, SEL_B3, SEL_W0, SEL_W1, SEL_DWORD };

typedef struct isa_opnd {
  uint8_t kind, n; /* n registers (a tuple v[0:3] has 4) */
  uint8_t sel;     /* SEL_*: part of the register read or written */
  bool sext;       /* SDWA sext(): sign-extend the selected part */
  bool preserve;   /* destination: keep the bits outside sel (true16, dst_unused:UNUSED_PRESERVE) */
  uint16_t reg;
  uint64_t clr, flip; /* float abs / neg on the bits: x = (x & ~clr) ^ flip */
  uint64_t imm;       /* OK_IMM: the value as the operand's width reads it */
} isa_opnd;

typedef struct isa_wave isa_wave;
typedef struct isa_inst isa_inst;
typedef void (*isa_fn)(isa_wave *w, const isa_inst *in);

/* What an opcode is: its executor and the facts decoding needs. */
typedef struct isa_opdef {
  const char *name; /* mnemonic without the _e32/_e64/_sdwa/_dpp suffix */
  isa_fn fn;
  int fw;    /* float width of the sources (16/32/64) for inline float constants, 0 integer */
  int arg;   /* executor parameter (access size, counter, ...) */
  int arg2;
} isa_opdef;

/* Counters of outstanding memory operations (s_waitcnt fields). */
enum { CNT_VM, CNT_LGKM, CNT_EXP, CNT_VS, CNT_N };

enum {
  IF_CLAMP = 1,
  IF_E64 = 2,  /* VOP3 encoding: carry/compare results go to the named SGPRs */
  IF_SDWA = 4,
  IF_DPP = 8,
  IF_CMPX = 16, /* v_cmpx: the compare result becomes EXEC */
  IF_OFFEN = 32, /* MUBUF: the VGPR address holds an offset (after the index with idxen) */
  IF_IDXEN = 64, /* MUBUF: the VGPR address holds an index */
  IF_RETURN = 128, /* atomics: the old value is returned (glc, sc0, th:TH_ATOMIC_RETURN) */
};

struct isa_inst {
  isa_fn fn;
  const isa_opdef *def;
  const char *mnemonic; /* for messages */
  uint32_t pc;          /* byte offset of the instruction from the code object's start */
  uint8_t size, nops;
  uint16_t flags;
  isa_opnd o[6];
  int64_t offset, offset1; /* memory offsets (ds: offset0/offset1) */
  uint8_t omod, op_sel, op_sel_hi, neg_lo, neg_hi;
  int16_t wait[CNT_N];  /* s_waitcnt fields, -1: no wait on that counter */
  int32_t target;       /* branch target: instruction index */
  uint8_t cmp, cmp_type; /* compare condition and operand type */
  uint16_t dpp_ctrl;
  uint8_t row_mask, bank_mask, dpp_src;
  bool bound_ctrl, fetch_inactive;
  uint8_t cbsz, abid, blgp; /* MFMA modifiers */
  const char *intrinsic;    /* MFMA/WMMA: the LLVM intrinsic matrix.c knows it by */
  isa_inst *dual;       /* VOPD: the second half */
};

/* One decoded kernel. */
typedef struct isa_kernel {
  char *name;
  uint64_t entry;       /* code object address of the first instruction */
  uint64_t code_size;   /* bytes of code (the code symbol's size) */
  isa_inst *insts;      /* ninsts + 1 (a sentinel that reports running off the end) */
  int ninsts;
  /* from the kernel descriptor */
  uint32_t group_segment_size, private_segment_size, kernarg_size;
  uint32_t rsrc1, rsrc2, rsrc3;
  uint16_t code_props, kernarg_preload;
  int wave_size, nvgpr, nagpr, accum_offset;
  uint8_t *executed; /* TOSAC_ISA_OPCODES: per instruction, 1 once a wave executed it */
  struct isa_hz_inst *hz; /* per instruction: its class for the hazard checks (isa_hazard.c), or NULL */
} isa_kernel;

typedef struct isa_module {
  emu_target target;
  const target_info *info;
  uint8_t *image; /* the code object's loadable segments at their addresses */
  uint64_t image_size;
  isa_kernel *kernels;
  int nkernels;
  const char *opcodes_file; /* TOSAC_ISA_OPCODES: where isa_free appends the executed opcodes */
} isa_module;

/* isa_wave.c: load (read + decode), run one launch on up to `threads` OS threads, free. */
bool isa_load(isa_module *m, const uint8_t *elf, size_t size, const emu_target *t, char *err, size_t errsize);
bool isa_run(const isa_module *m, const emu_launch *l, int threads, char *err, size_t errsize);
void isa_free(isa_module *m);
const isa_kernel *isa_kernel_named(const isa_module *m, const char *name);
/* s_waitcnt: retire what the instruction's counts cover. */
void isa_waitcnt(isa_wave *w, const isa_inst *in);
/* gfx12's s_wait_loadcnt/storecnt/dscnt/kmcnt and the combined forms (arg: which). */
void isa_wait_split(isa_wave *w, const isa_inst *in);

/* isa_code.c: read the ELF code object (segments, kernel symbols, descriptors). */
bool isa_code_read(const uint8_t *elf, size_t size, isa_module *m, char *err, size_t errsize);

/* isa_decode.c: decode every kernel's .text with LLVM's disassembler. */
bool isa_decode_kernel(isa_module *m, isa_kernel *k, char *err, size_t errsize);
/* isa_disasm.c: LLVMDisasmInstruction on context dc for the instruction at code offset off of k,
 * guarded against the encodings LLVM 22 crashes on: its length, or 0 with err set. */
size_t isa_disasm(void *dc, const isa_module *m, const isa_kernel *k, uint64_t off, char *text, size_t textsize,
                  char *err, size_t errsize);
const isa_opdef *isa_find_op(const char *name);
/* Index of the first source operand of a mnemonic (without encoding suffix): the operands
 * before it are destinations (carry forms and div_scale have two). */
int isa_first_source(const char *name);

/* isa_hazard.c: wait-state hazards of the gfx9 family (docs/emulator.md). prepare classifies a
 * decoded kernel's instructions (nothing on targets without such hazards); start gives a wave
 * a fresh clock; step checks one instruction before it executes (false + fault on a hazard) and
 * records what it writes. */
void isa_hazard_prepare(isa_module *m, isa_kernel *k);
void isa_hazard_free_kernel(isa_kernel *k);
void isa_hazard_start(isa_wave *w);
bool isa_hazard_step(isa_wave *w, const isa_inst *in);
void isa_hazard_free(isa_wave *w);

/* The opcode tables of each executor file, NULL-name terminated. */
extern const isa_opdef isa_ops_salu[], isa_ops_valu[], isa_ops_mem[], isa_ops_lds[], isa_ops_matrix[],
    isa_ops_scratch[];
/* isa_exec_matrix.c: MFMA and WMMA (v_mfma_*, v_wmma_*) share one opdef; the decoder asks
 * isa_matrix_resolve for the intrinsic of the mnemonic on the processor (the target's matrix
 * table), false + message if the emulator does not know it. */
extern const isa_opdef isa_matrix_def;
bool isa_matrix_resolve(const char *processor, const char *kernel, isa_inst *in, char *err, size_t errsize);
/* isa_opdef.arg2 values the decoder acts on. */
enum { ISA_BRANCH = 100, ISA_TEXT_OPERANDS = 101 /* operands are scheduling text, not read */ };
/* Compares (v_cmp_<cond>_<type>, v_cmpx_...) are decoded from their name: sets in->fn and
 * in->cmp; false if the condition or type is unknown. */
bool isa_valu_cmp(const char *name, isa_inst *in);
/* DPP: fills the staging VGPR with the permuted src0 and runs in->dual on the lanes it writes. */
void isa_exec_dpp(isa_wave *w, const isa_inst *in);
/* VOPD: runs in->dual (first half, writing the staging VGPR) and its ->dual (second half). */
void isa_exec_dual(isa_wave *w, const isa_inst *in);
extern const isa_opdef isa_cmp_def;

/* ---------------------------------------------------------------- wave state (isa_wave.c) */
enum { WS_RUN, WS_BARRIER, WS_DONE, WS_FAULT };

/* A register range written by an outstanding memory operation. */
typedef struct isa_pending {
  uint64_t seq;
  uint8_t counter, kind; /* CNT_*, OK_SGPR / OK_VGPR */
  uint16_t reg, n;
  uint32_t pc;
} isa_pending;

typedef struct isa_group isa_group;

/* Who touched one LDS dword in which barrier interval (the race check of isa_exec_lds.c). */
typedef struct isa_lds_owner {
  uint16_t writer; /* wave id + 1, 0: never written */
  uint32_t write_epoch, read_epoch;
  uint32_t readers; /* waves (bit = id mod 32) that read it in read_epoch */
  uint8_t wbytes, rbytes; /* bytes of the dword the writer wrote / the readers read (bit = byte) */
  uint8_t cbytes;         /* bytes two waves wrote with different values in one interval */
  uint16_t rival;         /* the other of those waves + 1 */
} isa_lds_owner;

struct isa_wave {
  uint32_t s[ISA_NSGPR];
  uint32_t *v; /* nv registers x ISA_LANES */
  uint32_t *a; /* gfx908's separate AGPR file, else NULL (AGPRs are v[accum_offset + i]) */
  int nv;      /* VGPRs allocated (+1 scratch register for VOPD) */
  int lanes;
  uint64_t lanemask;
  bool scc;
  int pc;      /* index of the next instruction */
  int state;
  int id;      /* wave index in the work-group */
  isa_group *g;
  isa_pending *pend; /* outstanding loads, oldest first */
  int npend, cappend;
  uint64_t seq;
  uint32_t mode; /* MODE register: round [3:0], denorm [7:4] */
  struct isa_hz_wave *hz; /* wait-state clock and last writers (isa_hazard.c) */
  uint64_t steps;         /* instructions executed in this work-group (emu_launch.max_steps) */
  uint8_t *priv;          /* private memory: priv_limit bytes per lane, lane after lane */
  uint32_t priv_limit;
};

/* Who wrote each global dword in this launch, per launch buffer (allocated on the first store,
 * zero pages until touched): (work-group linear id + 1) << 4 | the bytes it wrote. */
typedef struct isa_written {
  uint32_t **map; /* one per buffer of the launch, NULL until a store reaches it */
} isa_written;

/* A work-group in flight: shared by its waves. */
struct isa_group {
  const isa_module *m;
  const isa_kernel *k;
  const emu_launch *l;
  uint32_t id[3];
  uint8_t *lds;
  int64_t lds_size;
  isa_lds_owner *owner; /* per LDS dword */
  uint32_t epoch;       /* barrier intervals passed, from 1 */
  uint64_t dispatch_ptr, queue_ptr;
  isa_written *written;
  uint32_t linear; /* work-group linear id */
  char *err;
  size_t errsize;
  bool failed;
};

static inline uint64_t isa_exec(const isa_wave *w) {
  return ((uint64_t)w->s[ISA_EXEC] | (uint64_t)w->s[ISA_EXEC + 1] << 32) & w->lanemask;
}
static inline uint64_t isa_vcc(const isa_wave *w) {
  return ((uint64_t)w->s[ISA_VCC] | (uint64_t)w->s[ISA_VCC + 1] << 32) & w->lanemask;
}

/* Stop the wave with an error naming kernel, wave, instruction address and mnemonic. */
void isa_fault(isa_wave *w, const isa_inst *in, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

static inline uint32_t isa_brev32(uint32_t x) {
  x = (x >> 1 & 0x55555555u) | (x & 0x55555555u) << 1;
  x = (x >> 2 & 0x33333333u) | (x & 0x33333333u) << 2;
  x = (x >> 4 & 0x0f0f0f0fu) | (x & 0x0f0f0f0fu) << 4;
  return __builtin_bswap32(x);
}

/* Register access of executors. */
static inline uint32_t isa_sel_read(uint32_t x, int sel, bool sext) {
  switch (sel) {
  case SEL_DWORD: return x;
  case SEL_W0: return sext ? (uint32_t)(int32_t)(int16_t)x : x & 0xffff;
  case SEL_W1: return sext ? (uint32_t)(int32_t)(int16_t)(x >> 16) : x >> 16;
  default: {
    uint32_t b = (x >> (8 * sel)) & 0xff;
    return sext ? (uint32_t)(int32_t)(int8_t)b : b;
  }
  }
}

static inline uint32_t isa_reg32(const isa_wave *w, const isa_opnd *o, int i, int l) {
  switch (o->kind) {
  case OK_VGPR: return w->v[(o->reg + i) * ISA_LANES + l];
  case OK_SGPR: return w->s[(o->reg + i) & (ISA_NSGPR - 1)];
  case OK_AGPR: return w->a[(o->reg + i) * ISA_LANES + l];
  case OK_IMM: return i ? (uint32_t)(o->imm >> 32) : (uint32_t)o->imm;
  case OK_SCC: return w->scc;
  default: return 0;
  }
}

/* Source operand of lane l, 32 bits, with select and float modifiers. */
static inline uint32_t isa_rd(const isa_wave *w, const isa_opnd *o, int l) {
  uint32_t x = isa_reg32(w, o, 0, l);
  if (o->sel != SEL_DWORD)
    x = isa_sel_read(x, o->sel, o->sext);
  return (uint32_t)((x & ~o->clr) ^ o->flip);
}
static inline uint64_t isa_rd64(const isa_wave *w, const isa_opnd *o, int l) {
  uint64_t x = o->kind == OK_IMM ? o->imm
                                 : isa_reg32(w, o, 0, l) | (uint64_t)isa_reg32(w, o, 1, l) << 32;
  return (x & ~o->clr) ^ o->flip;
}

static inline void isa_wr_sgpr(isa_wave *w, int reg, uint32_t x) {
  if (reg != ISA_NULL)
    w->s[reg & (ISA_NSGPR - 1)] = x;
}

/* Write 32 bits of lane l to a VGPR/AGPR destination (select and preserve honoured). */
static inline void isa_wr(isa_wave *w, const isa_opnd *o, int l, uint32_t x) {
  if (o->kind == OK_SGPR) {
    isa_wr_sgpr(w, o->reg, x);
    return;
  }
  uint32_t *p = o->kind == OK_AGPR ? &w->a[o->reg * ISA_LANES + l] : &w->v[o->reg * ISA_LANES + l];
  if (o->sel != SEL_DWORD) {
    int shift = o->sel == SEL_W1 ? 16 : o->sel == SEL_W0 ? 0 : 8 * o->sel;
    uint32_t mask = (o->sel >= SEL_W0 ? 0xffffu : 0xffu) << shift;
    uint32_t v = (x << shift) & mask;
    if (o->preserve)
      v |= *p & ~mask;
    else if (o->sext && (v >> shift) & ((mask >> shift) + 1) >> 1)
      v |= ~mask & ~((1u << shift) - 1);
    x = v;
  }
  *p = x;
}
static inline void isa_wr64(isa_wave *w, const isa_opnd *o, int l, uint64_t x) {
  if (o->kind == OK_SGPR) {
    isa_wr_sgpr(w, o->reg, (uint32_t)x);
    isa_wr_sgpr(w, o->reg + 1, (uint32_t)(x >> 32));
    return;
  }
  uint32_t *f = o->kind == OK_AGPR ? w->a : w->v;
  f[o->reg * ISA_LANES + l] = (uint32_t)x;
  f[(o->reg + 1) * ISA_LANES + l] = (uint32_t)(x >> 32);
}

/* Memory of the launch: [addr, addr + size) must lie in a bound buffer, the kernarg segment, the
 * dispatch packet or the code object; NULL (and a fault) otherwise. */
void *isa_mem(isa_wave *w, const isa_inst *in, uint64_t addr, uint64_t size, bool store, int lane);
/* isa_written.c: a buffer with a written shadow (emu_buffer.written): a store or atomic of
 * [off, off + size) marks the bytes, a load of a byte nothing wrote in this run is a fault. */
bool isa_written_shadow(isa_wave *w, const isa_inst *in, const emu_buffer *b, uint64_t off, uint64_t size, bool store,
                        int lane);
/* A non-atomic global store of `size` bytes of `data` at addr (inside a launch buffer): false
 * (and a fault) when another work-group of the launch wrote one of these bytes with a different
 * value (a cross-work-group write race; rewriting the same value is not one). */
bool isa_global_written(isa_wave *w, const isa_inst *in, uint64_t addr, uint64_t size, const void *data, int lane);
/* Kinds of vector-memory access (isa_opdef.arg2; arg is the size in bytes). */
enum { G_LOAD, G_LOAD_SIGNED, G_LOAD_D16, G_LOAD_D16_HI, G_LOAD_D16_S, G_LOAD_D16_HI_S, G_STORE, G_STORE_D16_HI };
/* isa_exec_mem.c, shared with isa_exec_scratch.c: lane l's loaded bytes (dw: one pointer per
 * dword, NULL reads zero) into the destination; dword i of lane l's store data; a vector-memory
 * load or store (o[0] the load's destination) on the wait counters. */
void isa_load_lane(isa_wave *w, const isa_inst *in, int l, const uint8_t *const *dw);
uint32_t isa_store_word(const isa_wave *w, const isa_inst *in, const isa_opnd *data, int l, int i);
void isa_pend_vmem(isa_wave *w, const isa_inst *in, bool store);

/* isa_exec_scratch.c: private memory. The private segment buffer V# and flat scratch init
 * point at ISA_SCRATCH_BASE (never a host address: above the 47-bit user space); a dynamic call
 * stack gets ISA_DYNAMIC_STACK_BYTES per lane beyond the fixed private segment. */
#define ISA_SCRATCH_BASE 0xfffe00000000ull
enum { ISA_DYNAMIC_STACK_BYTES = 16384, ISA_MAX_WAVE_PRIVATE = 8 << 20 };
/* A lane's private bytes (the load refuses more than ISA_MAX_WAVE_PRIVATE per wave). */
uint64_t isa_private_limit(const isa_kernel *k);
/* The scratch wave offset SGPR of wave w: its slice's byte offset from ISA_SCRATCH_BASE. */
uint32_t isa_scratch_wave_offset(const isa_wave *w);
/* buffer_* whose V# is the private segment buffer: executes it and returns true; false for
 * any other buffer. */
bool isa_scratch_buffer(isa_wave *w, const isa_inst *in, bool store);
bool isa_is_scratch_load(const isa_inst *in);
/* A vector-memory load (its o[0] is the destination). */
bool isa_is_vector_load(const isa_inst *in);
/* Record an outstanding load writing registers [reg, reg + n) of kind, counted by counter. */
void isa_pend(isa_wave *w, const isa_inst *in, int counter, int kind, int reg, int n);

#define ISA_LANES_OF(w, l)                                                                        \
  for (uint64_t m_ = isa_exec(w), l; m_ && ((l = (uint64_t)__builtin_ctzll(m_)), 1); m_ &= m_ - 1)

#endif
