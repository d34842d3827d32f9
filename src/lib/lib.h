/* lib.h: libtosac's internals: the options and result objects behind the opaque handles of
 * include/tosac/tosac.h. options.c owns the options, compile.c runs the stages, result.c
 * answers the accessors and writes the files. */
#ifndef TOSAC_LIB_H
#define TOSAC_LIB_H

#define TOSAC_BUILDING_LIBRARY 1
#include "tosac.h"
#include "tosac/tosac.h"
#include "optimize/optimize.h"

#include <pthread.h>

#define LIB_MAX_TARGETS 32
#define LIB_MAX_STAGES 8
#define LIB_MAX_VARIANTS 64
#define LIB_MAX_SPECIALIZE 16
#define LIB_MAX_UNITS 1024 /* graphs of one compile: entries x their variants */

struct tosac_options {
  char error[640];
  char *entry, *perf_config, *output, *manifest, *weights, *depfile, *dep_target, *cache_dir;
  char *host_prefix;
  int host_streams;
  bool write_depfile, syntax_only, embed_ir, targets_given, verbose, progress;
  int jobs, opt_level, code_object_version, compress;
  int tosa_profile; /* fe_profile_mode */
  signed char pass_set[OPT_NPASSES]; /* -fNAME 1, -fno-NAME -1, else 0: the level decides */
  tosac_emit emit;
  tosac_init_mode init;
  bool no_workspace_expansions;
  bool no_zeroed_workspace; /* tosac_options_set_zeroed_workspace(o, 0) */
  uint64_t cache_max_size;
  FILE *messages;
  int ntargets;
  target_request targets[LIB_MAX_TARGETS];
  char **tuning_db; /* --tuning-db paths, in order */
  int ntuning_db;
  /* --specialize (specialize.c): nspec dimensions with one value per variant; spec[v] is
   * variant v's fe_options.specialize (the arg strings belong to spec[0]) */
  int nspec, nvariants;
  fe_dim_value spec[LIB_MAX_VARIANTS][LIB_MAX_SPECIALIZE];
};

typedef struct lib_diag {
  char *file; /* NULL: no location */
  int line, col;
  char *severity, *message;
} lib_diag;

/* One target's kernels in launch order, read back from the manifest the compile wrote. */
typedef struct lib_target {
  char *id;
  int nkernels;
  tosac_kernel *kernels;
} lib_target;

struct tosac_result {
  tosac_status status;
  /* what the options said, copied: the options may be disposed before the result */
  tosac_emit emit;
  bool verbose, write_depfile;
  FILE *messages;
  char *input_path; /* as given ("-" for standard input); NULL for a buffer */
  char *depfile, *dep_target;
  /* the compile */
  source_file src;
  char *text;
  size_t len;
  bool mapped;
  arena *a;
  graph *g;
  int ntargets;
  target_request targets[LIB_MAX_TARGETS];
  const partition_plan *plans[LIB_MAX_TARGETS]; /* variant 0's */
  cg_result res[LIB_MAX_TARGETS]; /* per target: the code object of every variant */
  /* Every graph compiled (a unit: one variant of one entry function; --specialize gives an
   * entry several), its plans, and where its kernels and buffers start in the linked plan
   * codegen compiled (part_link). Entry e's units are entry_first[e] .. + entry_units[e] - 1. */
  int nvariants; /* units */
  graph *vg[LIB_MAX_UNITS];
  const partition_plan *vplans[LIB_MAX_UNITS][LIB_MAX_TARGETS];
  opt_report *vreport[LIB_MAX_UNITS]; /* what the graph optimiser did to each unit */
  int kbase[LIB_MAX_UNITS][LIB_MAX_TARGETS], bbase[LIB_MAX_UNITS][LIB_MAX_TARGETS];
  int nentries; /* public functions compiled (1 with --entry) */
  const char **entry_names;
  int *entry_first, *entry_units;
  const partition_plan *wplan; /* the weights file's layout: every entry's constants */
  int nres;
  /* outputs */
  uint8_t *bundle;
  size_t bundle_size;
  /* The manifest is written from its input at tosac_result_write, streamed (never held whole);
   * its text is built only when tosac_result_manifest asks. mi points into the result (the
   * arrays below and the arena); mcg holds the two codegen options the manifest reads. */
  bnd_manifest_input mi;
  cg_options mcg;
  char bundle_digest[BND_DIGEST_SIZE], weights_digest[BND_DIGEST_SIZE];
  char *weights_rel; /* the weights file named relative to the manifest */
  bool outputs_ready; /* bundle and manifest input complete (a bundle compile succeeded) */
  char *manifest;
  uint8_t *weights; /* built on first request (tosac_result_weights) */
  size_t weights_size;
  char *text_out;
  char *host_c, *host_h, *host_c_path, *host_h_path; /* TOSAC_EMIT_HOST */
  char *bundle_path, *manifest_path, *weights_path;
  /* diagnostics */
  lib_diag *diags;
  int ndiags, cap_diags;
  char *diag_text;
  size_t diag_len, diag_shown;
  FILE *diag_mem;
  /* kernels per entry and target (lib_read_kernel_tables) */
  lib_target *kt; /* entry e, target t: kt[e * ntargets + t] */
  /* timing and cache */
  struct { const char *what; double ms; } stages[LIB_MAX_STAGES];
  int nstages;
  bool codegen_ran, cache_on;
  uint64_t cache_hits, cache_misses;
  char *time_report;
  char write_error[640];
};

/* compile.c */
void lib_compile(tosac_result *r, const tosac_options *o);
/* Record a driver-level error (no source location) in r's diagnostics. */
void lib_error(tosac_result *r, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Show diagnostics not yet shown on the message stream. */
void lib_show_diagnostics(tosac_result *r);
/* "dir/model.mlir" -> "model" + ext (keep_dir: "dir/model" + ext); "-" -> "a" + ext. */
char *lib_stem_with(const char *path, const char *ext, bool keep_dir);

/* specialize.c: the variants' values are distinct (a usage error in r otherwise). */
bool lib_check_variants(tosac_result *r, const tosac_options *o);

/* result.c */
/* Every entry's kernels per target in launch order, from the plans and codegen results the
 * manifest is written from (after a bundle compile). */
bool lib_read_kernel_tables(tosac_result *r);
/* result.c: the digest of the weights file tosac_result_write writes (manifest digests). */
bool lib_weights_digest(const tosac_result *r, char out[BND_DIGEST_SIZE]);

#endif
