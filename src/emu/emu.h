/* emu.h: the emulator library's face (src/emu, libtosac-emu.a). Its clients, tosac-run and
 * libtosac-hipemu, use emu_* to JIT a target's kernel module (the bitcode tosac embedded with
 * --embed-ir) and run kernels with GPU semantics on the CPU; wave-level matrix ops are computed
 * by matrix.c. */
#ifndef TOSAC_EMU_H
#define TOSAC_EMU_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* What the emulator must know about the target (from the manifest). */
typedef struct emu_target {
  char processor[32]; /* "gfx90a" */
  int wave_size;      /* 64 on gfx9, 32 on gfx10+ */
  int64_t lds_limit;  /* bytes per work-group */
} emu_target;

/* One device allocation. Every global access of a kernel must fall inside a bound buffer. */
typedef struct emu_buffer {
  const char *name; /* for error messages: "input 0", "workspace", ... */
  void *base;       /* 256-byte aligned */
  size_t size;
  uint8_t *written; /* NULL, or one byte per byte of the buffer, nonzero once something wrote it in
                       this run: machine code then reports a load of a byte still 0 (tosac-run's
                       workspace shadow); stores and atomics set it */
} emu_buffer;

typedef struct emu_launch {
  const char *kernel;      /* function name (manifest "name") */
  uint32_t block[3];       /* work-items per group */
  uint32_t grid[3];        /* work-groups per dimension */
  const uint8_t *kernarg;  /* kernarg segment laid out as the manifest's args say, allocated
                            * emu_kernarg_alloc_size(kernarg_size) bytes with the tail zeroed */
  size_t kernarg_size;
  int64_t lds_bytes;       /* static LDS of the kernel */
  const emu_buffer *buffers; /* every buffer the launch may touch */
  int nbuffers;
  uint64_t max_steps;      /* machine code: instructions one wave may execute, 0 = no limit (fuzzing) */
} emu_launch;

/* The bytes a client allocates for a kernarg segment of `size` bytes; machine code may read all
 * of them. LLVM reads kernel arguments with scalar loads of a power-of-two count of dwords (7
 * pointers: two s_load_dwordx8, 64 bytes), as the runtime's kernarg pool allows: ROCm hands
 * out kernarg segments in 64-byte aligned chunks. */
static inline size_t emu_kernarg_alloc_size(size_t size) { return (size + 63) / 64 * 64 + 64 * !size; }

typedef struct emu_module emu_module;

/* Re-target the AMDGPU bitcode to the host and JIT it. NULL + message in err on failure
 * (unknown intrinsic, bad bitcode, ...). */
emu_module *emu_load(const uint8_t *bitcode, size_t size, const emu_target *t, char *err,
                     size_t errsize);
/* Load a code object (an AMDGPU ELF as tosac writes it) to run its machine code: every kernel's
 * .text is decoded once; NULL + message on a malformed object or an instruction the emulator does
 * not implement (named with its kernel). emu_run then executes the machine code (src/emu/isa_*.c,
 * docs/emulator.md): additionally reports missing s_waitcnt and accesses outside every buffer. */
emu_module *emu_load_code(const uint8_t *elf, size_t size, const emu_target *t, char *err, size_t errsize);
/* Run one launch to completion. false + message naming the kernel, work-item and address when
 * a check fires (out-of-bounds global or LDS access, partial-wave collective, divergent barrier). */
bool emu_run(emu_module *m, const emu_launch *l, char *err, size_t errsize);
void emu_free(emu_module *m);
/* The value the HIP runtime puts in a hidden kernel argument of that kind ("hidden_block_count_x",
 * "hidden_group_size_y", "hidden_grid_dims", ...; AMDGPU.md 2.6) for a launch of grid x block
 * (whole groups: remainders 0; 3-D dispatch); 0 for kinds without a runtime value. */
uint64_t emu_hidden_arg(const char *kind, const uint32_t grid[3], const uint32_t block[3]);
/* true if the module has a kernel of that name (libtosac-hipemu's hipModuleGetFunction). */
bool emu_has_kernel(const emu_module *m, const char *name);

/* ---------------------------------------------------------------- matrix.c */
/* A wave-level matrix instruction (MFMA on gfx9, WMMA on gfx11/gfx12), identified by its LLVM
 * intrinsic name without the overload suffix, e.g. "llvm.amdgcn.mfma.f32.32x32x8f16" or
 * "llvm.amdgcn.wmma.f32.16x16x16.f16". Operands are per lane: a[l], b[l], c[l] point at lane l's
 * register values (as the IR passes them: vector elements packed in memory), d[l] receives the
 * result. cbsz/abid/blgp are the MFMA modifiers (0 for WMMA); for WMMA, opsel/clamp go in abid.
 * Block-scaled MFMA (llvm.amdgcn.mfma.scale.*): cbsz/blgp are the A/B formats, scale_a[l] and
 * scale_b[l] lane l's 32-bit scale sources, opsel_a/opsel_b which of their bytes is the E8M0
 * scale; NULL scales are the unscaled form (every scale 1.0). */
typedef struct emu_matrix_call {
  const char *intrinsic;
  const char *processor; /* layouts differ between gfx1100 and gfx1200 */
  int wave_size;
  const void *const *a;
  const void *const *b;
  const void *const *c;
  void *const *d;
  int cbsz, abid, blgp;
  const uint32_t *scale_a, *scale_b;
  int opsel_a, opsel_b;
} emu_matrix_call;

/* true if the intrinsic (for that processor) is emulated. */
bool emu_matrix_supported(const char *intrinsic, const char *processor);
/* Compute D = A x B + C for the whole wave. false + message if unsupported. */
bool emu_matrix_exec(const emu_matrix_call *call, char *err, size_t errsize);

/* f8.c: f32 to an 8-bit float code (E5M2 when bf8, else E4M3; FNUZ or OCP), as the packed fp8
 * conversion instructions round it. */
uint32_t emu_f8_from_f32(float x, bool bf8, bool fnuz);
/* An 8-bit float code to f32 bits, as the fp8/bf8-to-f32 conversion instructions write them. */
uint32_t emu_f8_to_f32(uint32_t code, bool bf8, bool fnuz);

#endif
