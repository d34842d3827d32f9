/* codegen.h: the codegen stage's private interface (the public one is in tosac.h). */
#ifndef TOSAC_CODEGEN_H
#define TOSAC_CODEGEN_H

#include "tosac.h"

#include <llvm-c/Core.h>
#include <llvm-c/TargetMachine.h>

/* ---------------------------------------------------------------- builder.c */
/* Everything a kernel family needs to emit IR for one target, in one place. */
typedef struct cg_builder {
  LLVMContextRef ctx;
  LLVMModuleRef mod;
  LLVMBuilderRef b;
  LLVMTargetMachineRef tm;
  const target_request *target;
  diag_sink *diag;
  LLVMValueRef fn; /* the kernel being built */
  /* common types */
  LLVMTypeRef i1, i8, i16, i32, i64, f16, bf16, f32, f64, void_t, ptr_global, ptr_const;
  bool failed;     /* an error was reported; the caller stops */
  bool args_alias; /* the next kernel's pointer arguments may alias (in-place buffers) */
  const char *perf_config; /* --perf-config (cg_options), NULL: heuristic */
  const cg_tuning_db *tuning_db; /* --tuning-db (cg_options), NULL: none */
} cg_builder;

void cg_builder_init(cg_builder *cb, LLVMContextRef ctx, LLVMModuleRef mod, LLVMTargetMachineRef tm,
                     const target_request *t, diag_sink *d);
void cg_builder_dispose(cg_builder *cb);
/* Mark the loop whose back edge is latch_branch as not to be unrolled (llvm.loop metadata). */
void cg_loop_no_unroll(cg_builder *cb, LLVMValueRef latch_branch);
/* LLVM type of a buffer element / SSA value of elem_type (i1 in registers, i8 in memory). */
LLVMTypeRef cg_elem_type(cg_builder *cb, elem_type t);
LLVMTypeRef cg_mem_type(cg_builder *cb, elem_type t);
/* Declare an amdgpu_kernel with one global pointer per buffer; access[i] is "read_only",
 * "write_only" or "read_write". Sets flat work-group size bounds 1..max_wg. */
LLVMValueRef cg_kernel_begin(cg_builder *cb, const char *name, int nargs, const char *const *access,
                             int max_wg);
/* Launch fields of a 1-D kernel over k's buffers: `groups` work-groups of `block` work-items,
 * and the declared arguments (one pointer per buffer, inputs then outputs, with their access)
 * that the metadata reader later binds to the note's argument list. */
/* After a kernel's body: its inputs read at an element offset (part_kernel.in_offs, slice
 * views) get their argument pointer advanced there, at the entry, for every use. */
bool cg_offset_inputs(cg_builder *cb, const part_kernel *k, const cg_kernel_info *info);
void cg_launch_1d(cg_kernel_info *info, const part_kernel *k, int block, int64_t groups,
                  int64_t work_items, int vector_width, const char *const *access);
/* Call an intrinsic after checking the target has it; NULL (and a diagnostic) if not. */
LLVMValueRef cg_intrinsic(cg_builder *cb, const char *name, LLVMTypeRef *overloads, int noverloads,
                          LLVMValueRef *args, int nargs);
LLVMValueRef cg_thread_id_x(cg_builder *cb);  /* i32 */
LLVMValueRef cg_group_id_x(cg_builder *cb);   /* i32 */
void cg_barrier(cg_builder *cb);              /* workgroup fences around s.barrier */
LLVMValueRef cg_lds_alloc(cg_builder *cb, const char *name, LLVMTypeRef ty, unsigned align);
LLVMValueRef cg_const_table(cg_builder *cb, const char *name, LLVMValueRef init, unsigned align);
LLVMValueRef cg_load(cg_builder *cb, LLVMTypeRef ty, LLVMValueRef ptr, unsigned align);
void cg_store(cg_builder *cb, LLVMValueRef v, LLVMValueRef ptr, unsigned align);
/* Typed constant of elem_type from a double / integer. */
LLVMValueRef cg_const_float(cg_builder *cb, elem_type t, double v);
LLVMValueRef cg_const_int(cg_builder *cb, elem_type t, int64_t v);
/* Integer x (an accumulator of i32 or i64) as element type t's register value: the low bits of
 * t, as arithmetic in t wraps (i48: sign-extended from bit 47 into its i64). */
LLVMValueRef cg_int_wrap(cg_builder *cb, LLVMValueRef x, elem_type t);
/* A counted loop: for (iv = from; iv < to; iv += step) (signed compare, iv of from's type).
 * cg_loop_begin leaves the builder in the body; cg_loop_end closes it and continues after. */
typedef struct cg_loop {
  LLVMBasicBlockRef pre, head, body, done;
  LLVMValueRef iv;
} cg_loop;
cg_loop cg_loop_begin(cg_builder *cb, LLVMValueRef from, LLVMValueRef to, const char *name);
void cg_loop_end(cg_builder *cb, cg_loop *l, int64_t step);
/* Does the target support the named intrinsic? (target-table check, never aborts LLVM) */
bool cg_intrinsic_available(const target_info *t, const char *name);

/* ---------------------------------------------------------------- ew_ops.c */
/* Dense data of a constant value (NULL if v is not defined by a const op). */
const dense_data *cg_const_data(const value *v);
bool cg_dense_int(const dense_data *d, int64_t idx, int64_t *out);
bool cg_dense_float(const dense_data *d, int64_t idx, double *out);
/* The scalar result of one elementwise op applied to its operands' scalar values. */
LLVMValueRef cg_ew_op(cg_builder *cb, const op *o, LLVMValueRef *operands);

/* ---------------------------------------------------------------- cvt_f8.c */
/* 8-bit float conversion (semantics: cvt_f8.c, docs/ops.md "8-bit floats"); t is one of the four
 * f8 types. x: f32 or <N x f32>; the codes as i8 or <N x i8> (a vector goes through
 * v_cvt_pk_fp8/bf8_f32 two lanes per instruction where the target has it for t: bitcast a
 * <2 x i8> result to i16 for two packed bytes). The same bits on every target. */
LLVMValueRef cg_f32_to_f8(cg_builder *cb, LLVMValueRef x, elem_type t);
/* i8 or <N x i8> codes of type t to f32 or <N x f32>, exactly (NaN: a quiet NaN, the OCP
 * code's sign kept). */
LLVMValueRef cg_f8_to_f32(cg_builder *cb, LLVMValueRef x, elem_type t);
/* Does target ti convert f32 to t with the packed instruction (else the integer rounding)? */
bool cg_f8_hardware(const target_info *ti, elem_type t);

/* ---------------------------------------------------------------- kernel_elementwise.c */
bool cg_emit_elementwise(cg_builder *cb, const graph *g, const partition_plan *p,
                         const part_kernel *k, cg_kernel_info *info);

/* The other kernel families, one file each (kernel_gemm.c, kernel_reduction.c, kernel_pool.c,
 * kernel_data.c). Same contract as cg_emit_elementwise: emit function k->name into cb's
 * module and fill info's launch fields. */
/* Work-items of a reduction work-group (kernel_reduction.c; tuning.c picks its tile). */
#define CG_RED_BLOCK 256

#define CG_EMITTER(name)                                                                       \
  bool name(cg_builder *cb, const graph *g, const partition_plan *p, const part_kernel *k,     \
            cg_kernel_info *info)
CG_EMITTER(cg_emit_gemm);
CG_EMITTER(cg_emit_reduction);
CG_EMITTER(cg_emit_pool);
CG_EMITTER(cg_emit_data);
/* kernel_data.c: a data kernel that only moves 8-bit floats (transpose, reshape, slice, concat,
 * tile, reverse, identity; no epilogue): it copies their bytes. */
bool cg_data_bytes_only(const part_kernel *k);
CG_EMITTER(cg_emit_fft); /* kernel_fft.c */
CG_EMITTER(cg_emit_gemm_combine); /* kernel_gemm_combine.c: split-K partials -> result */
/* kernel_im2col.c: a convolution's im2col workspace matrix (cg_emit_gemm routes role KR_IM2COL) */
bool cg_emit_im2col(cg_builder *cb, const part_kernel *k, cg_kernel_info *info);
CG_EMITTER(cg_emit_fill);         /* kernel_fill.c: --init=kernel init kernels */
CG_EMITTER(cg_emit_attention);    /* kernel_attention.c: fused attention (flash attention) */
CG_EMITTER(cg_emit_rownorm);      /* kernel_rownorm.c: layer norm, RMS norm, softmax per row */
/* kernel_reduction.c: lane (lane ^ m)'s x (i32 or f32) for every lane of the wave (m < wave size). */
LLVMValueRef cg_lane_xor(cg_builder *cb, LLVMValueRef x, int m, LLVMValueRef lane);
/* kernel_rownorm.c: k's row-norm prologue (part_kernel.prologue) for a skinny GEMM: rows r0 ..
 * r0 + nrows - 1 of the norm's value a into the LDS array dst ([nrows][H], a's element type), by
 * `threads` work-items (tid); ends with a barrier. Call it in the kernel's entry block. */
bool cg_rownorm_prologue(cg_builder *cb, const graph *g, const part_kernel *k, const value *a, LLVMValueRef r0,
                         int nrows, LLVMValueRef tid, int threads, LLVMValueRef dst);
/* kernel_rownorm.c: k's row-norm prologue for a tile GEMM (k->prologue_tile): rows r0 ..
 * r0 + nvalid - 1 (nvalid <= nrows) into dst ([nrows][H] in LDS), a wave per row; with `store`
 * true also the prologue's kernel outputs to their buffers. */
bool cg_rownorm_tile_prologue(cg_builder *cb, const graph *g, const part_kernel *k, const value *a, LLVMValueRef r0,
                              LLVMValueRef nvalid, int nrows, LLVMValueRef tid32, int threads, LLVMValueRef dst,
                              LLVMValueRef store);
/* kernel_rownorm.c: rows of `row` elements a wave of that prologue evaluates at once (of the
 * `rows` it owns), their loads in flight together; 0: a row at a time, walked. */
int cg_rownorm_tile_batch(int wave, int64_t row, int64_t rows);
CG_EMITTER(cg_emit_mxgemm);       /* kernel_mxgemm.c: mxfp4 GEMM on the block-scaled MFMA */

/* ---------------------------------------------------------------- kernel_conv_direct.c */
/* depthwise_conv2d (cg_emit_gemm routes it here): one work-item
 * per output element, fused elementwise epilogue. Same contract as cg_emit_elementwise. */
bool cg_emit_conv_direct(cg_builder *cb, const graph *g, const partition_plan *p,
                         const part_kernel *k, cg_kernel_info *info);
/* Shared by anchor kernels (one work-item per element of k->iter): */
bool cg_op_is(const op *o, const char *mnemonic); /* by mnemonic, e.g. "tosa.conv3d" */
/* Zero point from the canonical attribute, else from constant operand `operand` (-1: none). */
int64_t cg_zero_point(const op *o, const char *name, int operand);
/* Index type for k: i32 unless some element count needs i64. */
LLVMTypeRef cg_anchor_index_type(cg_builder *cb, const part_kernel *k);
/* Declare k's kernel (block work-items per group, 1-D grid over k->iter, info filled) and
 * position the builder in the in-range body with k->iter's coordinates and the linear index.
 * Returns the exit block (the body must branch there), NULL on error. */
LLVMBasicBlockRef cg_anchor_kernel_begin(cg_builder *cb, const part_kernel *k, int block,
                                         LLVMTypeRef it, LLVMValueRef *coords, LLVMValueRef *linear,
                                         cg_kernel_info *info);
/* Pointer to value v inside k: its kernel argument, or a constant global of its data. */
LLVMValueRef cg_operand_ptr(cg_builder *cb, const part_kernel *k, const value *v);
/* Load element `off` of a buffer of type t (i1 bytes become i1). */
LLVMValueRef cg_load_elem(cg_builder *cb, elem_type t, LLVMValueRef base, LLVMValueRef off);
/* The scalar value of k's operand v at the element coords[0..rank) of the iteration space: a
 * folded splat constant, or a load broadcast (TOSA rules) from its argument or constant global.
 * NULL (diagnosed) when v is neither. */
LLVMValueRef cg_ew_operand(cg_builder *cb, const part_kernel *k, const value *v, int rank,
                           LLVMValueRef const *coords, LLVMTypeRef it);
/* The element offset at which k stores element `at` (row-major) of output v: `at` itself, or
 * its place in the concat's buffer when v is k's slot (part_slot). */
LLVMValueRef cg_slot_offset(cg_builder *cb, const part_kernel *k, const value *v, LLVMValueRef at);
/* Apply the elementwise ops after k->anchor to the anchor result `anchor_val` of the element at
 * coords/linear (broadcast operands read from buffers or folded constants) and store every
 * k->out_vals there. false (diagnosed, cb->failed) on error. */
bool cg_epilogue_store(cg_builder *cb, const graph *g, const part_kernel *k, LLVMValueRef anchor_val,
                       LLVMValueRef const *coords, LLVMValueRef linear, LLVMTypeRef it);

/* ---------------------------------------------------------------- link.c / lld_shim.cpp */
typedef struct cg_object {
  uint8_t *data; /* malloc */
  size_t size;
} cg_object;
/* LLVM reports backend errors (e.g. resource limits) through the context; without a handler
 * it would exit the process. cg_on_llvm_diagnostic (for LLVMContextSetDiagnosticHandler, ctx a
 * cg_llvm_diag) keeps the first error's message and drops warnings and remarks. */
typedef struct cg_llvm_diag {
  char message[512];
  bool error;
} cg_llvm_diag;
void cg_on_llvm_diagnostic(LLVMDiagnosticInfoRef info, void *ctx);
/* Link relocatable objects, in this order, into one shared code object (ld.lld -shared), in
 * process; calls are serialised (lld is not thread-safe). */
bool cg_link(const cg_object *objs, int n, uint8_t **out, size_t *out_size, char *err,
             size_t errsize);
/* note_merge.c: give objs[0] one metadata note listing every object's kernels (in order) and
 * drop the others' notes from the link (SHF_EXCLUDE). Patches the objects in place. */
bool cg_merge_metadata_notes(cg_object *objs, int n, char *err, size_t errsize);
#ifdef __cplusplus
extern "C"
#endif
    int cg_lld_main(int argc, const char **argv, char *err, size_t errsize, int *can_run_again);

/* ---------------------------------------------------------------- pipeline.c / schedule.c */
/* A work item: a contiguous range of one target's plan kernels (twins that reuse another
 * kernel's code are skipped), compiled in one LLVM module, optimised and emitted as one
 * relocatable object on whichever thread takes it. The ranges depend on the plan only, never
 * on -j, so the linked code object does not either. */
typedef struct cg_chunk {
  int target;      /* index into cg_batch.plans */
  int first, end;  /* plan kernels [first, end) */
  int cost;        /* estimate, for the queue order (largest first) */
  cg_object obj;
  cg_object bitcode; /* optimised module, when the target's IR is wanted (cg_need_ir) */
  char *diag_text;   /* diagnostics (memstream) */
  size_t diag_len;
  bool ok;
  bool cache_hit; /* obj (and bitcode) came from the kernel cache */
  double ms[CG_STAGE_COUNT];
} cg_chunk;

typedef struct cg_batch {
  const graph *g;
  const partition_plan *const *plans;
  int ntargets;
  const cg_options *opt;
  cg_result *out; /* one per target */
} cg_batch;

/* One per thread, reused by every work item the thread runs: a target machine per target of
 * the batch, created on first use (each work item gets an LLVM context of its own). */
typedef struct cg_thread {
  LLVMTargetMachineRef *tms;
  int ntms;
} cg_thread;

/* Split plan p's kernels into chunks (at most max); returns their number (>= 1). */
int cg_plan_chunks(const partition_plan *p, int target, cg_chunk *chunks, int max);
void cg_compile_chunk(const cg_batch *b, cg_chunk *c, cg_thread *t);
/* All of target's chunks are done: link, read the metadata, build the IR outputs, sum times.
 * Appends the target's diagnostics (the chunks' in order, up to the first failed one) to
 * diag. */
bool cg_finish_target(const cg_batch *b, int target, cg_chunk *chunks, int nchunks, cg_thread *t,
                      FILE *diag);
void cg_thread_dispose(cg_thread *t);

/* ---------------------------------------------------------------- cache.c */
/* The key of a work item whose unoptimised module is m (hex SHA-256, NUL-terminated). */
void cg_cache_key(const cg_options *opt, const target_request *t, bool need_ir, LLVMModuleRef m,
                  char key[CG_CACHE_KEY_LEN]);
/* The entry's object (and optimised bitcode when need_ir), malloc'd; false on a miss or a
 * damaged entry (removed). Counts the hit or miss. */
bool cg_cache_get(cg_cache *c, const char *key, bool need_ir, cg_object *obj, cg_object *bc);
/* Store an entry (atomically; failures are ignored: the next compile misses again). */
void cg_cache_put(cg_cache *c, const char *key, const cg_object *obj, const cg_object *bc);

/* ---------------------------------------------------------------- metadata.c */
/* Read the NT_AMDGPU_METADATA note of a linked code object and fill each kernel's info
 * (matched by name); also e_flags and EI_ABIVERSION. */
bool cg_read_metadata(const uint8_t *elf, size_t size, cg_result *r, char *err, size_t errsize);

#endif
