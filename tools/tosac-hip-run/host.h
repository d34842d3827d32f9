/* host.h: tosac-hip-run's GPU-free logic: the manifest as a HIP client needs it, entry selection
 * by target ID, kernarg packing, fill planning, stream scheduling of the launch DAG and .npy
 * files. No HIP header here, so tests/unit/hip_host.c runs without a GPU or the HIP runtime. */
#ifndef TOSAC_HIP_HOST_H
#define TOSAC_HIP_HOST_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define HR_MAX_RANK 8
/* Control nodes nest at most this deep (the client runs regions recursively). */
#define HR_MAX_NESTING 1024

typedef enum hr_buffer_kind { HR_INPUT, HR_OUTPUT, HR_INTERMEDIATE, HR_WORKSPACE, HR_CONSTANT } hr_buffer_kind;
/* HR_READBACK, HR_IF, HR_WHILE: the control nodes of data-dependent control flow
 * (docs/manifest.md "Control nodes"). */
typedef enum hr_launch_kind {
  HR_KERNEL, HR_FILL, HR_COPY, HR_READBACK, HR_IF, HR_WHILE
} hr_launch_kind;

typedef struct hr_tensor {
  char element_type[16]; /* MLIR spelling: "f32", "bf16", "i8" */
  int rank;
  int64_t dims[HR_MAX_RANK];
  int64_t bytes;
} hr_tensor;

typedef struct hr_arg {
  int64_t offset, size;
  char value_kind[48];
  int buffer; /* -1 for hidden arguments (the runtime fills them) */
} hr_arg;

typedef struct hr_kernel {
  char name[128];
  uint32_t block[3], grid[3];
  int64_t kernarg_size, kernarg_align;
  hr_arg *args;
  int nargs;
} hr_kernel;

typedef struct hr_buffer {
  hr_buffer_kind kind;
  int index; /* graph input/output index, else -1 */
  int64_t offset, bytes;
} hr_buffer;

typedef struct hr_launch {
  hr_launch_kind kind;
  int kernel;              /* HR_KERNEL */
  int buffer;              /* HR_FILL, HR_READBACK */
  int64_t offset, bytes;   /* HR_FILL range; HR_COPY bytes; HR_READBACK bytes (1-8) */
  int bits_width;          /* HR_FILL: 8, 16, 32 or 64 */
  uint64_t bits;           /* HR_FILL: element bit pattern */
  int src_buffer, dst_buffer; /* HR_COPY */
  int condition;           /* HR_IF, HR_WHILE: id of the readback deciding */
  int *region[2];          /* HR_IF: then, else; HR_WHILE: cond, body (launch ids, in order) */
  int nregion[2];
  int parent;              /* the control node whose region lists it; -1: in `order` */
  int *deps;
  int ndeps;
} hr_launch;

typedef struct hr_target {
  char target_id[96], bundle_entry_id[192];
  int64_t workspace_bytes;
  int64_t workspace_zeroed; /* its first bytes, zeroed once at allocation (docs/manifest.md) */
  hr_buffer *buffers;
  int nbuffers;
  hr_kernel *kernels;
  int nkernels;
  hr_launch *launches; /* indexed by id */
  int nlaunches;
  int *order;          /* a topological order of the top-level launches (control nodes run */
  int norder;          /* the launches of their regions) */
} hr_target;

typedef struct hr_manifest {
  hr_tensor *inputs, *outputs;
  int ninputs, noutputs;
  char weights_file[512]; /* "" when constants are folded into the code */
  int64_t weights_bytes;
  /* digests.bundle / digests.weights ("sha256:<hex>"), "" when absent: the client refuses a
   * bundle or weights file whose digest differs (bnd_digest_check). */
  char bundle_digest[80], weights_digest[80];
  hr_target *targets;
  int ntargets;
  int nvariants; /* --specialize: entries of the manifest's `variants` (0: none) */
} hr_manifest;

/* Parse and check ids, ranges, buffer bindings, that every launch is in exactly one list
 * (`order` or a region of an if / while), each list a topological order of its launches' deps,
 * and that conditions name readbacks. false + message on any defect. */
bool hr_manifest_parse(const char *text, hr_manifest *m, char *err, size_t errsize);
void hr_manifest_free(hr_manifest *m);
/* The same for variant v of a --specialize manifest (its inputs, outputs and targets; -1: the
 * top level). */
bool hr_manifest_parse_variant(const char *text, int variant, hr_manifest *m, char *err,
                               size_t errsize);

/* AMDGPU.md 1.4: may a code object for target ID `code` ("gfx90a", "gfx90a:xnack-") run on a
 * device whose ISA is `device` (hipDeviceProp_t.gcnArchName, "gfx90a:sramecc+:xnack-")?
 * Processors must be equal; a feature the code object fixes (+/-) must equal the device's. */
bool hr_target_compatible(const char *code, const char *device);
/* The first manifest target compatible with the device, as HIP's loader picks; -1 if none. */
int hr_select_target(const hr_manifest *m, const char *device);

/* Explicit arguments at their metadata offsets; hidden ones are left to the runtime. Returns the
 * byte size to pass as HIP_LAUNCH_PARAM_BUFFER_SIZE (end of the last explicit argument), or 0
 * with a message when an argument does not fit `cap` or names a bad buffer. */
size_t hr_pack_kernargs(const hr_kernel *k, const uint64_t *buffer_addr, int nbuffers,
                        uint8_t *out, size_t cap, char *err, size_t errsize);

/* Where each buffer lives: inputs/outputs in the caller's allocations, intermediates and
 * workspaces at workspace + offset, constants at weights + offset. */
void hr_buffer_addresses(const hr_target *t, const uint64_t *inputs, const uint64_t *outputs,
                         uint64_t workspace, uint64_t weights, uint64_t *addr);

/* How to perform a fill with the HIP memset family. */
typedef struct hr_fill_plan {
  int width;      /* 8, 16, 32: hipMemsetD8/D16/D32 with `value` and `count`; 0: pattern copy */
  uint32_t value;
  size_t count;   /* elements of `width` bits */
} hr_fill_plan;
hr_fill_plan hr_plan_fill(const hr_launch *l);

/* Streams for the DAG: stream[i] for launch i; a launch continues the stream of its first dep
 * when that dep was the last launch put on it, else takes the next stream round-robin. A launch
 * waits (hipStreamWaitEvent) on every dep that ran on another stream: hr_needs_wait. The
 * launches of a control node's regions run on the stream of its top-level ancestor. */
void hr_schedule(const hr_target *t, int nstreams, int *stream);
bool hr_needs_wait(const hr_target *t, const int *stream, int launch, int dep_index);
/* Is launch l a control node (readback, if, while)? */
bool hr_is_control(const hr_launch *l);
/* The most iterations a while node may run before it is taken for a runaway: env (the value of
 * TOSAC_MAX_ITERATIONS, or NULL) or 1,000,000, as in tosac-run. False: env is not a positive
 * count. */
bool hr_max_iterations(const char *env, long *out);

/* .npy (version 1.0-3.0, little-endian, C order) */
typedef struct hr_npy {
  char descr[16]; /* "<f4" */
  int rank;
  int64_t dims[HR_MAX_RANK];
  const uint8_t *data; /* into the file's bytes */
  size_t bytes;
} hr_npy;
bool hr_npy_parse(const uint8_t *file, size_t size, hr_npy *out, char *err, size_t errsize);
/* numpy descr for an MLIR element type ("f32" -> "<f4"; bf16 as "<u2"); NULL if none. */
const char *hr_npy_descr(const char *element_type);
/* Does the .npy hold exactly the tensor the manifest expects? */
bool hr_npy_matches(const hr_npy *n, const hr_tensor *t, char *err, size_t errsize);
/* A complete .npy file (malloc) holding `data` as tensor t. */
uint8_t *hr_npy_encode(const hr_tensor *t, const void *data, size_t *size);

#endif
