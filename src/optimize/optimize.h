/* optimize.h: the graph optimiser's face. A graph in, the same graph rewritten:
 * constants folded, batch norm folded into its convolution, transposes
 * propagated until they cancel or are absorbed, common subexpressions and dead
 * ops removed. Each rewrite is a pass with a name that the command line can
 * turn off (-fno-NAME); every pass keeps the graph's meaning (results within
 * the documented tolerance, docs/optimize.md).
 *
 * The passes' shared tools (rewrite.c) are below the entry point: a pass reads
 * the graph, adds ops before an anchor op, replaces values, and opt_commit
 * rebuilds the op and value lists (substitutions applied, added ops placed,
 * dead ops dropped, ids renumbered). */
#ifndef TOSAC_OPTIMIZE_H
#define TOSAC_OPTIMIZE_H

#include "tosac.h"

/* ---------------------------------------------------------------- the entry
 * point */
typedef enum opt_pass_id {
  OPT_FOLD_CONSTANTS, /* "fold-constants": ops of constants evaluated at compile
                         time */
  OPT_FOLD_BATCHNORM, /* "fold-batchnorm": per-channel affine chains into
                         conv/matmul weights */
  OPT_PROPAGATE_LAYOUT, /* "propagate-layout": transposes moved, cancelled or
                           absorbed */
  OPT_CLEANUP, /* "cleanup": common subexpressions, reshape chains, dead ops */
  OPT_NPASSES
} opt_pass_id;

typedef struct opt_options {
  bool enabled[OPT_NPASSES];
  int64_t fold_max_bytes;  /* a folded constant is at most this large */
  int64_t fold_max_growth; /* percent: folding never grows the graph's constant
                              bytes past this share of what the input held (100
                              = no growth) */
  /* The graph alone holds its constants' data (no other variant or entry
   * function of the file shares it): data of constants that die is given back
   * to the arena at once (large buffers only), so a fold's input does not stay
   * beside its result. */
  bool release_dead_constants;
} opt_options;

/* What the passes did, for --emit=partitions: one line per rewrite. */
typedef struct opt_line {
  opt_pass_id pass;
  src_loc loc;      /* the op rewritten */
  const char *text; /* "removed tosa.add (all operands constant)" */
} opt_line;

typedef struct opt_report {
  opt_line *lines;
  int nlines, caplines;
  int ops_before, ops_after;
  int64_t const_bytes_before, const_bytes_after;
} opt_report;

const char *opt_pass_name(opt_pass_id p); /* "fold-constants" */
int opt_pass_lookup(const char *name);    /* its id, -1 if unknown */
/* The passes of optimisation level `level` (0: none; 1..3: all) with the
 * default bounds. */
void opt_defaults(opt_options *o, int level);
/* Run the enabled passes to a fixed point (bounded); false after an error was
 * reported. The graph's arena holds everything added; rep may be NULL. */
bool opt_graph(graph *g, const opt_options *o, opt_report *rep, diag_sink *d);
/* The report as text ("# optimize: ..." lines), for --emit=partitions. */
void opt_print_report(FILE *out, const opt_report *rep);

/* ---------------------------------------------------------------- rewrite.c:
 * the passes' tools */
typedef struct opt_ctx {
  graph *g;
  arena *a; /* g->arena */
  diag_sink *d;
  const opt_options *o;
  opt_report *rep;
  opt_pass_id pass; /* the pass running (notes are filed under it) */
  bool changed;     /* set by every rewrite: the pass loop runs again */
  /* by value id (ids >= g->nvalues are values added since the last commit) */
  value **subst; /* the value standing for it now, NULL: itself */
  int *uses; /* readers: op operands, graph results; valid after opt_count_uses
              */
  bool *pinned; /* read inside a region or a graph result: never removed or
                   retyped */
  int nids,
      capids; /* ids in use (g->nvalues + added values) and the arrays' room */
  value **added_values;
  int nadded_values, capadded_values;
  op **added;  /* ops added since the last commit, each placed before
                  ops[anchor[i]] */
  int *anchor; /* an op id, or g->nops: after every op */
  int nadded, capadded;
  int64_t const_bytes_input; /* the graph's constant bytes when the stage began
                                (the growth bound's base) */
  /* Data buffers the passes allocated (folded constants), which nothing
   * outside the stage holds: a pass may rewrite one in place when a single
   * constant owns it (opt_exclusive_data). The frontend's buffers are never
   * here (another variant of the function may share them). */
  const uint8_t **fresh;
  int nfresh, capfresh;
} opt_ctx;

void opt_ctx_init(opt_ctx *c, graph *g, const opt_options *o, opt_report *rep,
                  diag_sink *d);
/* Gives back the per-id arrays (the graph keeps everything the passes added).
 */
void opt_ctx_free(opt_ctx *c);
/* The value standing for v now (substitutions followed). */
value *opt_get(opt_ctx *c, value *v);
/* Every reader of from reads to instead (at commit; opt_get sees it at once).
 * from must not be pinned unless to has from's type. */
void opt_replace(opt_ctx *c, value *from, value *to);
/* Count the readers of every value (after substitutions); marks pinned values.
 */
void opt_count_uses(opt_ctx *c);
/* A new op of kind k reading operands (after opt_get), with one result of type
 * result, placed just before op `before` (NULL: at the end). Its location is
 * before's (or loc_of's). */
op *opt_add_op(opt_ctx *c, op_kind k, const op *before, value *const *operands,
               int n, const tensor_type *result, src_loc loc);
/* A copy of op o (kind, attributes; no regions) reading operands, with one
 * result of type result, placed before `before`. */
op *opt_add_copy(opt_ctx *c, const op *o, const op *before,
                 value *const *operands, int n, const tensor_type *result);
/* A tosa.const holding d, placed before `before`. */
value *opt_add_const(opt_ctx *c, const op *before, const dense_data *d,
                     src_loc loc);
/* Attributes on an op the pass built (appended; an existing one of the name is
 * replaced). */
attr *opt_set_attr(opt_ctx *c, op *o, const char *name, attr_kind kind);
void opt_set_ints(opt_ctx *c, op *o, const char *name, const int64_t *v, int n);
/* The constant data of v when its defining op is a constant, else NULL. */
const dense_data *opt_const_data(const value *v);
/* d's bytes were allocated by a pass for d alone (recorded once). */
void opt_note_fresh(opt_ctx *c, const dense_data *d);
/* The data of constant v when the passes allocated it, v is its only holder
 * (no other constant shares the bytes) and v's one reader may change: safe to
 * rewrite in place. NULL otherwise. */
dense_data *opt_exclusive_data(opt_ctx *c, value *v);
/* With release_dead_constants: constant v, which nothing reads any more
 * (c->uses), gives its data back now unless another constant shares it (the
 * op itself stays until commit; nothing reads its data again). */
void opt_release_if_dead(opt_ctx *c, value *v);
/* Bytes of the constants g holds (a splat counts its one element). */
int64_t opt_const_bytes(const graph *g);
/* One line for --emit=partitions under the running pass. */
void opt_note(opt_ctx *c, src_loc loc, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
/* Apply the substitutions, place the added ops, drop ops nothing needs,
 * renumber ops and values densely (a topological order is kept). The context is
 * ready for the next pass. */
void opt_commit(opt_ctx *c);

/* ---------------------------------------------------------------- the passes,
 * one file each */
/* Each runs once over c->g, sets c->changed when it rewrote something, and
 * leaves its work for opt_commit (the caller commits); false after an error was
 * reported. */
bool opt_fold_constants(opt_ctx *c);   /* fold.c */
bool opt_fold_batchnorm(opt_ctx *c);   /* batchnorm.c */
bool opt_propagate_layout(opt_ctx *c); /* layout.c */
bool opt_cleanup(opt_ctx *c);          /* cleanup.c */

#endif
