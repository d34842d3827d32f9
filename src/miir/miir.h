/* miir.h: libtosac-miir's internals (the public face is Miir.h).
 *
 *   problem.c  the option string MIOpen builds -> miir_problem (every check of
 * the input) graph.c    miir_problem -> a TOSA graph (forward, backward data,
 * backward weight) abi.c      a compiled kernel -> a code object whose one
 * kernel takes MIOpen's four pointers miir.c     the Miir.h API over libtosac
 */
#ifndef TOSAC_MIIR_H
#define TOSAC_MIIR_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef enum miir_op { MIIR_FWD, MIIR_BWD_DATA, MIIR_BWD_WEIGHT } miir_op;

/* MIOpen's argument slots, the order of every kernel's four pointers. */
enum { MIIR_SLOT_FILTER, MIIR_SLOT_INPUT, MIIR_SLOT_OUTPUT, MIIR_SLOT_WORKSPACE };

typedef struct miir_problem {
  miir_op op;
  int kernel_id, num_cu;
  bool x2;
  char target[96]; /* target ID for libtosac: "gfx90a:sramecc+:xnack-" */
  int groups;
  char fil_layout[8]; /* canonical letters with g: filter gkcyx, input gnchw,
                         output gnkhw */
  char in_layout[8], out_layout[8];
  char fil_type[16], in_type[16], out_type[16]; /* TOSA element types: f32, f16, bf16, i8, ... */
  int64_t n, c, k, hi, wi, ho, wo, y, x;
  int64_t dil_h, dil_w, stride_h, stride_w;
  int64_t pad_t, pad_b, pad_l, pad_r;
  char kernel_name[256];
  char perf_config[256]; /* "" when absent */
} miir_problem;

/* Writes the message to err and returns false (every failure of problem.c and abi.c). */
bool miir_fail(char *err, size_t errsize, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

/* Parse and check; false + message in err. */
bool miir_parse(const char *options, miir_problem *p, char *err, size_t errsize);

/* The problem as a TOSA function @main: forward (filter, input) -> output,
 * backward data (filter, output) -> input, backward weight (input, output) ->
 * filter. malloc'd text. */
char *miir_graph(const miir_problem *p);
/* The MIOpen slot of graph argument i / of the result. */
int miir_arg_slot(const miir_problem *p, int i);
int miir_result_slot(const miir_problem *p);

/* Where one kernel argument of the compiled graph lives, in MIOpen's terms. */
typedef struct miir_view {
  int slot;        /* MIIR_SLOT_*, or -1: a constant of the weights */
  uint64_t offset; /* into the slot's buffer (workspace) or into the weights */
  uint64_t bytes;
} miir_view;

/* Build the code object of one kernel: `name` from the target's kernel IR
 * `bitcode`, renamed `symbol`, taking MIOpen's four pointers and forwarding
 * views[i] as its argument i (nviews pointer arguments). With ir_out the
 * bitcode of the new module is returned too (malloc'd). */
typedef struct miir_kernel_src {
  const uint8_t *bitcode;
  size_t bitcode_size;
  const char *name;
  const miir_view *views;
  int nviews;
  const uint8_t *weights; /* constant bytes for views with slot -1 */
  size_t weights_size;
} miir_kernel_src;
bool miir_build_kernel(const miir_kernel_src *k, const char *target, const char *symbol,
                       uint8_t **code, size_t *code_size, uint8_t **ir, size_t *ir_size, char *err,
                       size_t errsize);

/* ---------------------------------------------------------------- compiled.c */
typedef struct miir_kernel_info {
  const char *name; /* tosac's kernel name (owned by the result) */
  uint32_t groups;  /* work-groups (1-D) */
  uint32_t block;   /* work-items per work-group */
  miir_view *views; /* its pointer arguments in MIOpen's terms */
  int nviews;
} miir_kernel_info;

typedef struct bnd_entry bnd_entry;
typedef struct tosac_result tosac_result;
typedef struct miir_compiled {
  miir_problem key; /* kernel_id 0, no kernel_name */
  int refs;
  char why[2048];       /* non-empty: only the --perf_config failed (not applicable) */
  char tuning_why[512]; /* non-empty: a --perf_config that is not a tosac tile (ignored) */
  tosac_result *r;
  int nkernels; /* launch order */
  miir_kernel_info *kernels;
  uint64_t workspace;
  bnd_entry *entries; /* the bundle's, pointing into r's bundle */
  const uint8_t *bitcode, *weights;
  size_t bitcode_size, weights_size;
  char ir_id[128], co_id[128];
} miir_compiled;

/* The compiled problem (shared; one more reference) or NULL + message. */
miir_compiled *miir_compiled_get(const miir_problem *p, char *err, size_t errsize);
void miir_compiled_release(miir_compiled *c);

#endif
