/* emu_int.h: what the emulator's own files (emu.c, retarget.c, runtime.c, fiber.c) share; the
 * driver only sees emu.h. */
#ifndef TOSAC_EMU_INT_H
#define TOSAC_EMU_INT_H

#include "emu.h"

#include <llvm-c/Core.h>

#define EMU_FIBER_STACK (256 * 1024)
#define EMU_MAX_WAVE 64

/* Wave-level operations a lane hands to the runtime. Matrix instructions are
 * EMU_WOP_MATRIX + index into emu_rtinfo.matrix_ops. */
enum {
  EMU_WOP_WAVE_BARRIER = 1,
  EMU_WOP_READFIRSTLANE,
  EMU_WOP_READLANE,
  EMU_WOP_BALLOT,
  EMU_WOP_BPERMUTE,
  EMU_WOP_PERMUTE,
  EMU_WOP_SWIZZLE,
  EMU_WOP_UPDATE_DPP,
  EMU_WOP_MOV_DPP,
  EMU_WOP_PERMLANE16,
  EMU_WOP_PERMLANEX16,
  EMU_WOP_PERMLANE64,
  EMU_WOP_READ_TR16,
  EMU_WOP_COUNT,
  EMU_WOP_MATRIX = 1000,
};

/* emu_rt_matrix's scale-mode argument: a block-scaled MFMA with its scales, the A scale byte in
 * bits 1:0, the B scale byte in bits 3:2. */
#define EMU_SCALED 16

/* Kinds of checked memory access (the check calls' last argument). */
enum { EMU_ACC_LOAD, EMU_ACC_STORE, EMU_ACC_ATOMIC };

/* One kernel of a loaded module. */
typedef struct emu_kernel {
  char *name;
  char *entry_name;                 /* the generated entry(ptr kernarg) wrapper */
  void (*entry)(const uint8_t *kernarg);
  int64_t lds_size;                 /* static LDS as laid out by the re-target */
  int max_flat_wg;                  /* from amdgpu-flat-work-group-size (1024 if absent) */
  uint64_t explicit_kernarg_bytes;  /* end of the explicit arguments (AMDGPU layout) */
} emu_kernel;

/* A module-level global the kernels may read (constant tables): addresses valid after JIT. */
typedef struct emu_range {
  uintptr_t lo, hi;
} emu_range;

/* What the re-target found and the runtime needs. */
typedef struct emu_rtinfo {
  emu_kernel *kernels;
  int nkernels;
  char **matrix_ops; /* intrinsic base names, indexed by wave-op kind - EMU_WOP_MATRIX */
  int nmatrix;
  emu_range *globals; /* filled after JIT from the registry the re-target emits */
  int nglobals;
} emu_rtinfo;

#define EMU_GLOBALS_SYMBOL "__emu_globals"
#define EMU_NGLOBALS_SYMBOL "__emu_nglobals"

/* retarget.c: rewrite an AMDGPU kernel module in place for the host (TOOLCHAIN §13). */
bool emu_retarget(LLVMModuleRef m, const char *host_triple, const char *host_layout,
                  const emu_target *t, emu_rtinfo *info, char *err, size_t errsize);
void emu_rtinfo_free(emu_rtinfo *info);

/* runtime.c: the functions JIT code calls, by name, and the work-group executor. */
typedef struct emu_rt_symbol {
  const char *name;
  void *addr;
} emu_rt_symbol;
extern const emu_rt_symbol emu_rt_symbols[];
extern const int emu_rt_nsymbols;
const char *emu_wop_name(int kind, const emu_rtinfo *info);
/* Run every work-group of a launch (on up to `threads` OS threads). */
bool emu_execute(const emu_rtinfo *info, const emu_kernel *k, const emu_target *t,
                 const emu_launch *l, int threads, char *err, size_t errsize);

/* fiber.c */
typedef struct emu_stacks {
  uint8_t *base;
  size_t each, guard;
  int count;
} emu_stacks;
void *emu_map_low(size_t bytes);
bool emu_stacks_reserve(emu_stacks *s, int count);
void emu_stacks_release(emu_stacks *s);
void emu_stack_range(const emu_stacks *s, int i, uintptr_t *lo, uintptr_t *hi);
void *emu_fiber_init(const emu_stacks *s, int i, void (*fn)(void *), void *arg);
/* fiber_switch.S */
void emu_fiber_switch(void **save_sp, void *to_sp);

#endif
