/* run.h: tosac-run's private map: host values (parse/print/.npy), the manifest as read, and the
 * launcher that plays a target's launch graph through the emulator. */
#ifndef TOSAC_RUN_H
#define TOSAC_RUN_H

#include "tosac.h"

/* ---------------------------------------------------------------- values.c */
/* A host tensor: dense, row-major, little-endian, i1 stored as one byte per element. */
typedef struct run_value {
  tensor_type type;
  uint8_t *data; /* malloc'd, bytes long (NULL when bytes == 0) */
  size_t bytes;
} run_value;

typedef struct run_value_list {
  run_value *items;
  int count, cap;
} run_value_list;

/* Remembers the last file read by an `@`/`+` form so `+file` continues where it stopped. */
typedef struct run_file_cursor {
  char *path;
  uint8_t *data;
  size_t size, pos;
} run_file_cursor;

/* Absolute + relative tolerance of one element type: |got - exp| <= atol + rtol * |exp|. */
typedef struct run_tolerance {
  double atol[ET_COUNT];
  double rtol[ET_COUNT];
} run_tolerance;

bool run_elem_supported(elem_type t);
/* "2x3xf32" / "f32" (0-D). false if malformed or the type is not supported. */
bool run_parse_shape_type(const char *s, size_t n, tensor_type *out);
/* "2x3xf32" (iree spelling: no tensor<>) into buf. */
char *run_shape_type_str(const tensor_type *t, char *buf, size_t size);

/* Decimal <-> bits for the 16-bit floats, rounding to nearest even. */
uint16_t run_f16_from_double(double x);
uint16_t run_bf16_from_double(double x);
float run_f16_to_float(uint16_t h);
float run_bf16_to_float(uint16_t h);

/* One element as a double (exact for every supported type but large i64). */
double run_value_get(const run_value *v, size_t i);
/* Shortest decimal that reads back to the same bits ("nan", "inf", "-inf" for specials). */
void run_format_element(const run_value *v, size_t i, char *buf, size_t size);

/* Largest value --input / --expected_output may describe (a splat like 4000000000xf32=1 would
 * otherwise allocate without bound): 1 GiB, far beyond what the emulator runs in useful time. */
#define RUN_MAX_VALUE_BYTES (1ll << 30)

/* Parse one iree-run-module value spec ("2x3xf32=1 2 3 4 5 6", "@x.npy", "*all.npy",
 * "2xi32=@x.bin", "1234", ...) and append the value(s) to out. hints[k] is the type the manifest
 * expects for value k (may be NULL): a bare scalar like "1234" takes its element type. */
bool run_parse_value(const char *spec, const tensor_type *hints, int nhints, run_value_list *out,
                     run_file_cursor *cur, char *err, size_t errsize);
void run_value_free(run_value *v);
void run_value_list_free(run_value_list *l);
void run_value_list_push(run_value_list *l, run_value v);
void run_cursor_free(run_file_cursor *c);
/* Allocate a zeroed value of type t. */
void run_value_init(run_value *v, const tensor_type *t);

/* "2x3xf32=[1 2 3][4 5 6]"; at most max_elems elements, then "...". */
void run_print_value(FILE *f, const run_value *v, int64_t max_elems);

/* .npy (format 1.0/2.0/3.0 read, 1.0 written). read starts at *pos and advances it. */
bool run_npy_read(const uint8_t *data, size_t size, size_t *pos, run_value *out, char *err,
                  size_t errsize);
uint8_t *run_npy_encode(const run_value *v, size_t *out_size);
/* Handle one --output spec: "" skip, "-" print (at most max_print elements), "@f.npy"/"+f.npy"
 * (append), "@f.bin"/"+f.bin". */
bool run_write_output(const char *spec, int index, const run_value *v, int64_t max_print,
                      char *err, size_t errsize);

void run_tolerance_defaults(run_tolerance *t);
/* Compare one result; on mismatch print "[FAILED] result[i]: ..." to out and return false. */
bool run_compare(int index, const run_value *got, const run_value *exp, const run_tolerance *tol,
                 FILE *out);

/* ---------------------------------------------------------------- manifest_read.c */
typedef struct run_arg {
  int index;
  char name[64];
  char value_kind[48];
  int64_t offset, size;
  int buffer;        /* bound buffer id, -1 for null */
  bool reads, writes; /* "access" (read_only, write_only, read_write; absent: both) */
  bool has_value;    /* by_value argument with a "value" in the manifest */
  int64_t value;
} run_arg;

typedef struct run_kernel {
  int id;
  char name[128];
  uint32_t block[3], grid[3];
  int64_t lds_bytes, kernarg_size, kernarg_align, max_flat_workgroup_size;
  run_arg *args;
  int nargs;
} run_kernel;

typedef struct run_buffer {
  int id;
  buffer_kind kind;
  int index; /* graph input/output index, or -1 */
  int64_t offset, bytes;
  tensor_type type;
} run_buffer;

typedef struct run_launch {
  int id;
  launch_kind kind;
  int kernel;             /* kernel */
  int buffer;             /* fill */
  int64_t offset, bytes;  /* fill: byte range in buffer; copy: bytes */
  elem_type fill_type;
  uint64_t bits;          /* fill: element bit pattern */
  int src_buffer, dst_buffer;
  int64_t src_offset, dst_offset;
  int *deps;
  int ndeps;
  int cond;          /* if / while: the readback node deciding; readback: buffer in `buffer` */
  int *region[2];    /* if: then, else; while: cond, body */
  int nregion[2];
} run_launch;

typedef struct run_target {
  char target_id[96], processor[32], bundle_entry_id[192];
  char ir_entry_id[192]; /* "" when the manifest says null */
  int wavefront_size;
  int64_t lds_limit;
  int64_t workspace_bytes, workspace_align;
  int64_t workspace_zeroed; /* its first bytes, zeroed at allocation and left zero by a run */
  run_buffer *buffers;
  int nbuffers;
  run_kernel *kernels;
  int nkernels;
  run_launch *launches;
  int nlaunches;
  int *order;
  int norder;
} run_target;

/* One entry of `variants` (tosac --specialize): shapes and the launch graph per target. */
typedef struct run_variant {
  tensor_type *inputs, *outputs;
  int ninputs, noutputs;
  run_target *targets;
  int ntargets;
} run_variant;

typedef struct run_manifest {
  char entry[128];
  tensor_type *inputs;
  int ninputs;
  tensor_type *outputs;
  int noutputs;
  run_target *targets;
  int ntargets;
  char weights_file[1024]; /* constants.file, relative to the manifest's directory; "" if none */
  int64_t weights_bytes;
  const uint8_t *weights;  /* the loaded weights file (set by the caller before run_execute) */
  run_variant *variants;   /* NULL when the manifest has no `variants` */
  int nvariants;
  int variant;             /* the variant inputs/outputs/targets describe (run_manifest_pick) */
  char bundle_digest[BND_DIGEST_SIZE];  /* digests.bundle, "" when absent or null */
  char weights_digest[BND_DIGEST_SIZE]; /* digests.weights */
} run_manifest;

/* Parse and validate (types, ranges, ids, offsets, order). false + message on any defect. */
bool run_manifest_parse(const char *text, run_manifest *m, char *err, size_t errsize);
/* The same for entry function `entry` of a manifest of several (NULL: the only one). */
bool run_manifest_parse_entry(const char *text, const char *entry, run_manifest *m, char *err,
                              size_t errsize);
void run_manifest_free(run_manifest *m);
/* Make inputs/outputs/targets describe the variant whose input shapes are `in` (no-op without
 * variants); false + a message naming the shapes every variant takes when none does. */
bool run_manifest_pick(run_manifest *m, const tensor_type *in, int n, char *err, size_t errsize);
/* Is this weights file (data, size bytes, read from path) the one the manifest was written
 * with: its size and digest? false + message naming path. */
bool run_weights_check(const run_manifest *m, const uint8_t *data, size_t size, const char *path,
                       char *err, size_t errsize);
/* Target whose target_id or processor equals name; NULL if none. */
const run_target *run_manifest_find_target(const run_manifest *m, const char *name);

/* ---------------------------------------------------------------- launch.c */
/* Run the target's launch graph: inputs are host values matching m->inputs; outputs receives one
 * value per m->outputs. Loads the kernels first: `code` is the embedded IR (emu_load) or, with
 * machine_code, the code object (emu_load_code). */
bool run_execute(const run_manifest *m, const run_target *t, const uint8_t *code, size_t code_size,
                 bool machine_code, const run_value_list *inputs, run_value_list *outputs,
                 bool verbose, char *err, size_t errsize);
/* Kernarg segment of one launch (exposed for tests): addrs[b] is buffer b's device address. */
/* launch_order.c: two launches of the top-level order that no chain of dependency edges orders
 * and that touch overlapping bytes of one allocation, one of them writing: false + message
 * naming both launch ids (a missing edge in the manifest's launch graph). */
bool run_check_launch_order(const run_target *t, char *err, size_t errsize);
bool run_build_kernarg(const run_kernel *k, const uint64_t *addrs, int naddrs, uint8_t *out,
                       char *err, size_t errsize);

#endif
