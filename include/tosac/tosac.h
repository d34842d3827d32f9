/* tosac.h: libtosac, the tosac compiler as a C library (docs/library.md).
 *
 * The style is the LLVM C API's: opaque handles with create/dispose pairs, plain C types, no
 * callbacks into the caller. A compile never prints (unless tosac_options_set_message_stream
 * asks it to) and never exits the caller's process; its diagnostics, outputs and kernel tables
 * belong to the result object until tosac_result_dispose.
 *
 * Thread safety: handles are not shared between threads, but any number of threads may compile
 * at once, each with its own options and result objects. Nothing of one compile is visible in
 * another (no global state besides LLVM's one-time target registration).
 *
 * Typical use:
 *   tosac_options *o = tosac_options_create();
 *   tosac_options_add_targets(o, "gfx90a,gfx1100");
 *   tosac_result *r = tosac_compile_file(o, "model.mlir");
 *   if (tosac_result_status(r) == TOSAC_OK)
 *     for (int k = 0; k < tosac_result_kernel_count(r, 0); k++) ...
 *   tosac_result_dispose(r);
 *   tosac_options_dispose(o);
 */
#ifndef TOSAC_TOSAC_H
#define TOSAC_TOSAC_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#ifdef __cplusplus
extern "C" {
#endif

#if defined(TOSAC_BUILDING_LIBRARY)
#define TOSAC_API __attribute__((visibility("default")))
#else
#define TOSAC_API
#endif

/* The library's version ("0.1.0") and the API level this header describes. */
#define TOSAC_API_VERSION 1
TOSAC_API const char *tosac_version(void);

typedef enum tosac_status {
  TOSAC_OK = 0,
  TOSAC_ERROR_INPUT = 1, /* the graph or a compile step failed: see the diagnostics */
  TOSAC_ERROR_USAGE = 2, /* an option or argument is invalid: see tosac_options_error */
  TOSAC_ERROR_IO = 3,    /* a file could not be read or written */
} tosac_status;

/* ------------------------------------------------------------------------- options */
typedef struct tosac_options tosac_options;

typedef enum tosac_emit {
  TOSAC_EMIT_BUNDLE = 0, /* bundle + manifest (+ weights): tosac_result_bundle & co. */
  TOSAC_EMIT_LLVM,       /* text outputs: tosac_result_text */
  TOSAC_EMIT_ASM,
  TOSAC_EMIT_PARTITIONS,
  TOSAC_EMIT_DOT,
  TOSAC_EMIT_TOSA,
  TOSAC_EMIT_HOST,       /* bundle + manifest (+ weights) and C host code (docs/host.md):
                            tosac_result_host_source & co. */
} tosac_emit;

typedef enum tosac_init_mode { TOSAC_INIT_MEMSET = 0, TOSAC_INIT_KERNEL = 1 } tosac_init_mode;

/* Defaults: the default targets (tosac --print-targets), -O3, code object version 5, memset
 * init, the heuristic tiles, jobs = number of cores, no cache, outputs named after "a.mlir". */
TOSAC_API tosac_options *tosac_options_create(void);
TOSAC_API void tosac_options_dispose(tosac_options *o);
/* Setters that can fail return TOSAC_ERROR_USAGE and leave the message in tosac_options_error
 * (valid until the next call on o); the option keeps its previous value then. */
TOSAC_API const char *tosac_options_error(const tosac_options *o);
/* Comma-separated clang target IDs ("gfx90a:xnack-,gfx1100"); adds to the list (duplicates
 * ignored). The first call replaces the default targets. */
TOSAC_API tosac_status tosac_options_add_targets(tosac_options *o, const char *ids);
TOSAC_API tosac_status tosac_options_set_opt_level(tosac_options *o, int level); /* 0..3 */
/* Forms mlir-opt-22 accepts that no TOSA 1.0 profile defines (docs/ops.md "Profiles"):
 * 0 accept (default), 1 accept with a warning (-Wtosa-profile), 2 refuse (--tosa-strict). */
TOSAC_API tosac_status tosac_options_set_tosa_profile_check(tosac_options *o, int mode);
/* Turn one graph optimisation pass on or off ("fold-constants", "fold-batchnorm",
 * "propagate-layout", "cleanup"; docs/optimize.md), whatever the level (by default the passes
 * run at -O1 and above). */
TOSAC_API tosac_status tosac_options_set_pass(tosac_options *o, const char *pass, int enabled);
TOSAC_API tosac_status tosac_options_set_code_object_version(tosac_options *o, int v); /* 4..6 */
TOSAC_API tosac_status tosac_options_set_init_mode(tosac_options *o, tosac_init_mode m);
/* 1 (default): a kernel may be expanded into forms that add workspace buffers (split-K partials,
 * an im2col matrix, reduction partials) where the estimate prefers them; 0: never (a caller
 * whose launches pass no workspace, as MIOpen's forward and backward-data invokers). */
TOSAC_API tosac_status tosac_options_set_workspace_expansions(tosac_options *o, int on);
/* Whether the client zeroes the workspace's zeroed region once when it allocates the workspace
 * (docs/manifest.md "Zeroed workspace"; default 1). 0: the compile uses none, and every split-K
 * GEMM gets its combine kernel (a client whose workspace comes uninitialised, as MIOpen's). */
TOSAC_API tosac_status tosac_options_set_zeroed_workspace(tosac_options *o, int available);
/* GEMM tile parameters overriding the heuristic ("bm=128,bn=128,..."; docs/gemm.md); NULL: none */
TOSAC_API tosac_status tosac_options_set_perf_config(tosac_options *o, const char *config);
/* Add a tuning database file (repeatable; a later file's entry for the same target and problem
 * wins; docs/gemm.md "Tuning database"); read when the compile starts. NULL forgets the files
 * added so far. */
TOSAC_API tosac_status tosac_options_add_tuning_db(tosac_options *o, const char *path);
TOSAC_API tosac_status tosac_options_set_jobs(tosac_options *o, int jobs); /* 1..256 */
TOSAC_API tosac_status tosac_options_set_emit(tosac_options *o, tosac_emit what);
/* --emit=host: the name of the generated API (PREFIX_load/run/unload; a C identifier, NULL: the
 * entry function's name; a module of several entry functions gets one API per function,
 * PREFIX_<function>_... or, NULL, <function>_...) and how many HIP streams independent
 * partitions may use (1..16). */
TOSAC_API tosac_status tosac_options_set_host_prefix(tosac_options *o, const char *prefix);
TOSAC_API tosac_status tosac_options_set_host_streams(tosac_options *o, int streams);
/* Compile only this function (its name, '@' optional). NULL (default): every public function
 * of the module, each an entry of the one bundle and manifest (tosac_result_entry_count). */
TOSAC_API tosac_status tosac_options_set_entry(tosac_options *o, const char *function);
TOSAC_API tosac_status tosac_options_set_syntax_only(tosac_options *o, int on);
TOSAC_API tosac_status tosac_options_set_embed_ir(tosac_options *o, int on);
/* 0: plain bundle; 2 or 3: CCOB compressed bundle of that version */
TOSAC_API tosac_status tosac_options_set_compress(tosac_options *o, int version);
/* Output names. They are written into the manifest (which names the bundle and the weights
 * file) and used by tosac_result_write. NULL keeps the default: bundle = input stem + .hipfb in
 * the current directory, manifest = bundle stem + .json, weights = bundle stem + .weights. */
TOSAC_API tosac_status tosac_options_set_output(tosac_options *o, const char *bundle_path);
TOSAC_API tosac_status tosac_options_set_manifest_path(tosac_options *o, const char *path);
TOSAC_API tosac_status tosac_options_set_weights_path(tosac_options *o, const char *path);
/* Make depfile written by tosac_result_write: path (NULL: bundle stem + .d) and target (NULL:
 * "bundle manifest"). */
TOSAC_API tosac_status tosac_options_set_depfile(tosac_options *o, int on, const char *path,
                                                 const char *target);
/* Dynamic shapes (docs/manifest.md "Variants"): "ARG:DIM=V1,V2,..." gives dimension DIM (a '?')
 * of entry argument ARG (its name without '%', or its index) one value per variant; repeatable,
 * every call listing as many values as the first (variant i takes the i-th value of each). One
 * bundle holds every variant; the manifest's `variants` table describes each. Compiling several
 * entry functions, the values apply to those with '?' argument dimensions; the others compile
 * once. */
TOSAC_API tosac_status tosac_options_add_specialize(tosac_options *o, const char *spec);
/* Persistent kernel cache (docs/library.md#kernel-cache): NULL or "" turns it off (default). */
TOSAC_API tosac_status tosac_options_set_cache_dir(tosac_options *o, const char *dir);
/* Bound on the cache directory's size in bytes; least recently used entries are evicted after
 * each compile. 0: no bound. */
TOSAC_API tosac_status tosac_options_set_cache_max_size(tosac_options *o, uint64_t bytes);
/* Where diagnostics are also printed as they arise, with -v stage lines and, if progress is
 * on and the stream is a terminal, a progress line. NULL (default): nothing is printed. */
TOSAC_API tosac_status tosac_options_set_message_stream(tosac_options *o, FILE *stream,
                                                        int verbose, int progress);

/* The known targets as the table `tosac --print-targets` prints (static text). */
TOSAC_API const char *tosac_targets_table(void);

/* ------------------------------------------------------------------------- compiling */
typedef struct tosac_result tosac_result;

/* Compile a file ("-" reads standard input) or a buffer (name is used in diagnostics and for
 * the default output names). Never NULL: even a failed compile returns a result to ask. */
TOSAC_API tosac_result *tosac_compile_file(const tosac_options *o, const char *path);
TOSAC_API tosac_result *tosac_compile_buffer(const tosac_options *o, const char *name,
                                             const char *text, size_t len);
TOSAC_API void tosac_result_dispose(tosac_result *r);
TOSAC_API tosac_status tosac_result_status(const tosac_result *r);

/* Diagnostics in the order they were reported. file is NULL and line/col 0 for diagnostics
 * without a source location; severity is "error", "warning" or "note". */
TOSAC_API int tosac_result_diagnostic_count(const tosac_result *r);
TOSAC_API const char *tosac_result_diagnostic_file(const tosac_result *r, int i);
TOSAC_API int tosac_result_diagnostic_line(const tosac_result *r, int i);
TOSAC_API int tosac_result_diagnostic_column(const tosac_result *r, int i);
TOSAC_API const char *tosac_result_diagnostic_severity(const tosac_result *r, int i);
TOSAC_API const char *tosac_result_diagnostic_message(const tosac_result *r, int i);
/* All diagnostics as tosac prints them (with source lines and carets); "" when none. */
TOSAC_API const char *tosac_result_diagnostics_text(const tosac_result *r);

/* Outputs of TOSAC_EMIT_BUNDLE (NULL / 0 when absent; the weights only when the graph has
 * constants larger than 4 KiB). */
TOSAC_API const uint8_t *tosac_result_bundle(const tosac_result *r, size_t *size);
/* The manifest's text is built on the first call and kept until dispose (its size: about 1.7x
 * the input for op-heavy graphs); tosac_result_write streams the same bytes to the file without
 * holding them, so a caller that only writes never pays for it. */
TOSAC_API const char *tosac_result_manifest(const tosac_result *r);
TOSAC_API const uint8_t *tosac_result_weights(const tosac_result *r, size_t *size);
/* Output of the text emit kinds (llvm, asm, partitions, dot, tosa). */
TOSAC_API const char *tosac_result_text(const tosac_result *r);
/* Outputs of TOSAC_EMIT_HOST besides the bundle's: the .c and .h files and their paths (the
 * output path, default input stem + "_host.c"; the header has the same stem). With
 * TOSAC_EMIT_HOST the bundle keeps its default name (input stem + .hipfb). */
TOSAC_API const char *tosac_result_host_source(const tosac_result *r);
TOSAC_API const char *tosac_result_host_header(const tosac_result *r);
TOSAC_API const char *tosac_result_host_source_path(const tosac_result *r);
TOSAC_API const char *tosac_result_host_header_path(const tosac_result *r);
/* The paths the outputs are named by (options or defaults). */
TOSAC_API const char *tosac_result_bundle_path(const tosac_result *r);
TOSAC_API const char *tosac_result_manifest_path(const tosac_result *r);
TOSAC_API const char *tosac_result_weights_path(const tosac_result *r); /* NULL: none */
/* Write the outputs atomically (a temporary in the same directory, then rename): weights,
 * bundle, manifest and depfile for TOSAC_EMIT_BUNDLE; the text to text_path (NULL: stdout) for
 * the others. On failure nothing of the failed file is left and the message is in
 * tosac_result_write_error. */
TOSAC_API tosac_status tosac_result_write(tosac_result *r, const char *text_path);
TOSAC_API const char *tosac_result_write_error(const tosac_result *r);

/* Per target, in the order of the options: what MIOpen/MIGraphX-style callers need without
 * parsing the manifest. Kernels are listed in launch order (the manifest's topological order
 * of the launch graph; a kernel launched twice is listed twice); fills and copies between
 * them are the manifest's business. */
TOSAC_API int tosac_result_target_count(const tosac_result *r);
TOSAC_API const char *tosac_result_target_id(const tosac_result *r, int target);
TOSAC_API int tosac_result_kernel_count(const tosac_result *r, int target);

typedef struct tosac_kernel_arg {
  const char *name;       /* "in0", "out0", ... or the hidden argument's kind */
  const char *value_kind; /* "global_buffer", "by_value", "hidden_block_count_x", ... */
  uint64_t offset, size;  /* in the kernarg segment */
  int buffer;             /* manifest buffer id bound to it, -1 for hidden and scalar args */
} tosac_kernel_arg;

typedef struct tosac_kernel {
  const char *name;   /* kernel name */
  const char *symbol; /* its kernel descriptor symbol in the code object ("name.kd") */
  uint32_t grid[3];   /* work-groups per dimension */
  uint32_t block[3];  /* work-items per work-group */
  uint64_t lds_bytes, kernarg_size, kernarg_align;
  int nargs;
  const tosac_kernel_arg *args; /* owned by the result */
} tosac_kernel;

/* Fills *k with kernel i (launch order) of target t; TOSAC_ERROR_USAGE if out of range. */
TOSAC_API tosac_status tosac_result_kernel(const tosac_result *r, int target, int i,
                                           tosac_kernel *k);

/* Entry functions (docs/manifest.md "Entries"). Without --entry every public function of the
 * module is compiled into the same bundle and manifest; entry 0 is the first in the file, the
 * one tosac_result_kernel_count / tosac_result_kernel describe. Count: 0 before a bundle
 * compile succeeded, 1 for a module with one public function or with --entry. A kernel two
 * entries share (the same code) is one symbol in the code object, listed by both entries. */
TOSAC_API int tosac_result_entry_count(const tosac_result *r);
TOSAC_API const char *tosac_result_entry_name(const tosac_result *r, int entry); /* no '@' */
TOSAC_API int tosac_result_entry_kernel_count(const tosac_result *r, int entry, int target);
TOSAC_API tosac_status tosac_result_entry_kernel(const tosac_result *r, int entry, int target,
                                                 int i, tosac_kernel *k);
/* The target's code object (an entry of the bundle). */
TOSAC_API const uint8_t *tosac_result_code_object(const tosac_result *r, int target, size_t *size);

/* Kernel cache counters of this compile (work items found / compiled and stored). */
TOSAC_API void tosac_result_cache_counts(const tosac_result *r, uint64_t *hits, uint64_t *misses);
/* The --time-report table (driver stages, then per target codegen stages and cache hits). */
TOSAC_API const char *tosac_result_time_report(const tosac_result *r);

/* ------------------------------------------------------------------------- cache */
/* Totals recorded in a cache directory over all compiles: hits, misses, entries, bytes.
 * TOSAC_ERROR_IO when dir is not a tosac cache. */
TOSAC_API tosac_status tosac_cache_stats(const char *dir, uint64_t *hits, uint64_t *misses,
                                         uint64_t *entries, uint64_t *bytes);

#ifdef __cplusplus
}
#endif
#endif
