/* rownorm.c: row-wise normalisations (layer norm, RMS norm, softmax outside attention) as one
 * kernel per row block instead of a reduction kernel per statistic plus elementwise kernels
 * between them (docs/partitioning.md, "Row-wise normalisation").
 *
 * A pattern grows from a reduce_sum / reduce_max over the last axis of a value of shape F
 * ([..., H]); its rows are F's leading dims, and R is F with the last dim 1:
 *   - backwards, the elementwise chain producing the reduction's input (x * x of an RMS norm)
 *     when each link is read only by the next;
 *   - forwards, in graph order, every op reading the pattern: elementwise ops with a float
 *     result of shape F or R, and further last-axis reductions of an F value of the pattern.
 * The walk stops at the first op that reads the pattern but cannot join it (the matmul after a
 * layer norm), so no outside op sits between the pattern's ops and reads them: the group's only
 * readers come after its last op, which keeps fuse.c's topological order valid. A pattern is
 * kept when an F-shaped op reads a reduction's result (it normalises something). */
#include "partition.h"

#include <stdlib.h>
#include <string.h>

#define ROW_WINDOW 256 /* ops after the first reduction that the forward walk examines */
/* Longer rows keep the reduction family, whose expansion (expand.c) spreads one row over many
 * work-groups; a row kernel walks each row with one work-group. */
#define ROW_MAX 65536

typedef struct rowpat {
  const graph *g;
  const char *live;
  const int *use_start, *uses;
  const char *is_result;
  int *pat;
  char *in;    /* value id: computed by the pattern */
  char *row;   /* value id: a reduction's result, or computed from only such values */
  tensor_type f, r;
} rowpat;

static bool same_shape(const tensor_type *a, const tensor_type *b) {
  if (a->rank != b->rank)
    return false;
  for (int i = 0; i < a->rank; i++)
    if (a->dims[i] != b->dims[i])
      return false;
  return true;
}

static bool float_elem(elem_type t) {
  return elem_type_is_float(t) && !elem_type_is_f8(t) && t != ET_F64;
}

static bool row_reduction(const op *o) {
  if (o->kind != OP_REDUCE_SUM && o->kind != OP_REDUCE_MAX)
    return false;
  const value *x = o->operands[0];
  return x->type->rank >= 2 && op_attr_int(o, "axis", -1) == x->type->rank - 1 && float_elem(x->type->elem) &&
         x->type->dims[x->type->rank - 1] > 1 && x->type->dims[x->type->rank - 1] <= ROW_MAX;
}

/* Elementwise ops a row kernel evaluates per element (no tables, rescales or integer ops). */
static bool row_elementwise(const rowpat *P, const op *o) {
  if (op_table[o->kind].family != FAM_ELEMENTWISE || o->nresults != 1 || o->kind == OP_TABLE ||
      o->kind == OP_RESCALE || o->kind == OP_SELECT)
    return false;
  const value *v = o->results[0];
  if (!float_elem(v->type->elem) || !(same_shape(v->type, &P->f) || same_shape(v->type, &P->r)))
    return false;
  for (int j = 0; j < o->noperands; j++)
    if (o->operands[j]->type->rank != P->f.rank || !float_elem(o->operands[j]->type->elem))
      return false;
  return true;
}

static int readers(const rowpat *P, const value *v, const op **one) {
  int n = 0;
  for (int k = P->use_start[v->id]; k < P->use_start[v->id + 1]; k++) {
    const op *u = P->g->ops[P->uses[k]];
    if (P->live[u->id]) {
      *one = u;
      n++;
    }
  }
  return n;
}

static void join(rowpat *P, const op *o, int num) {
  P->pat[o->id] = num;
  P->in[o->results[0]->id] = 1;
}

/* Grow a pattern from reduction red; true if it normalises something (then pat[] holds it). */
static bool grow(rowpat *P, const op *red, int num, const op **members, int *nmem) {
  *nmem = 0;
  P->f = *red->operands[0]->type;
  P->r = *red->results[0]->type;
  /* backwards: single-reader elementwise producers of the reduction's input */
  const op *chain[8];
  int nchain = 0;
  for (const value *x = red->operands[0]; nchain < 8;) {
    const op *d = x->def, *u = NULL;
    if (!d || P->pat[d->id] >= 0 || part_is_view(d) || P->is_result[x->id] || readers(P, x, &u) != 1 ||
        !row_elementwise(P, d) || !same_shape(x->type, &P->f))
      break;
    chain[nchain++] = d;
    x = d->operands[0];
    if (d->noperands > 1 && same_shape(d->operands[1]->type, &P->f) && d->operands[1] != d->operands[0])
      break; /* two row inputs: stop here */
  }
  for (int i = nchain - 1; i >= 0; i--)
    join(P, chain[i], num), members[(*nmem)++] = chain[i];
  join(P, red, num);
  members[(*nmem)++] = red;
  P->row[red->results[0]->id] = 1;
  bool normalises = false;
  int end = red->id + ROW_WINDOW < P->g->nops ? red->id + ROW_WINDOW : P->g->nops;
  for (int i = red->id + 1; i < end; i++) {
    const op *o = P->g->ops[i];
    if (!P->live[o->id] || op_table[o->kind].family == FAM_CONST)
      continue;
    bool reads = false, reads_row = false;
    for (int j = 0; j < o->noperands; j++) {
      reads |= P->in[o->operands[j]->id];
      reads_row |= P->row[o->operands[j]->id];
    }
    if (!reads)
      continue;
    bool ok = P->pat[o->id] < 0 && !part_is_view(o) &&
              (row_elementwise(P, o) ||
               (row_reduction(o) && same_shape(o->operands[0]->type, &P->f) && P->in[o->operands[0]->id]));
    if (!ok)
      break; /* first outside reader: the walk ends (see the file comment) */
    join(P, o, num);
    members[(*nmem)++] = o;
    const value *v = o->results[0];
    bool all_row = o->kind != OP_REDUCE_SUM && o->kind != OP_REDUCE_MAX;
    for (int j = 0; j < o->noperands && all_row; j++)
      all_row = P->row[o->operands[j]->id] || !same_shape(o->operands[j]->type, &P->f);
    if (op_table[o->kind].family == FAM_REDUCTION || (all_row && same_shape(v->type, &P->r)))
      P->row[v->id] = 1;
    normalises |= reads_row && same_shape(v->type, &P->f);
    if (*nmem >= 250)
      break;
  }
  return normalises;
}

int part_rownorm_find(arena *a, const graph *g, const char *live, const int *use_start, const int *uses,
                      const char *is_result, int *pat, int first) {
  if (part_fusion_disabled() || part_rownorm_disabled())
    return first;
  rowpat P = {.g = g, .live = live, .use_start = use_start, .uses = uses, .is_result = is_result, .pat = pat};
  P.in = arena_alloc(a, (size_t)g->nvalues + 1);
  P.row = arena_alloc(a, (size_t)g->nvalues + 1);
  const op *members[256];
  int n = first;
  for (int i = 0; i < g->nops; i++) {
    const op *o = g->ops[i];
    if (!live[o->id] || pat[o->id] >= 0 || !row_reduction(o))
      continue;
    int nmem;
    if (grow(&P, o, n, members, &nmem)) {
      n++;
      continue;
    }
    for (int j = 0; j < nmem; j++) { /* undo */
      pat[members[j]->id] = -1;
      P.in[members[j]->results[0]->id] = P.row[members[j]->results[0]->id] = 0;
    }
  }
  return n;
}

bool part_rownorm_disabled(void) {
  const char *e = getenv("TOSAC_NO_ROW_FUSION");
  return e && *e && strcmp(e, "0") != 0;
}
