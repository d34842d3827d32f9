/* layout.c: the "propagate-layout" pass (docs/optimize.md, "Layout
 * propagation").
 *
 * Exporters that think in NCHW wrap every convolution in transposes (NCHW ->
 * NHWC before it, NHWC -> NCHW after it) and run everything between two
 * convolutions on the NCHW side. The pass moves each transpose down through
 * the ops that read it, computing them in the other layout, until it meets the
 * next transpose: two transposes compose into one, and one whose composition
 * is the identity disappears (cleanup removes it).
 *
 * Direction rule (termination): a transpose only ever moves toward the graph's
 * results, never up, and it moves only when every path below the op leads to
 * another transpose through ops it can cross (it "meets a partner"): a
 * transpose that would end at a graph result, a convolution, a matmul or any
 * other op it cannot cross stays where it is, so no rewrite is ever undone by
 * another. Transposes that only move dims of size 1 become reshapes. */
#include "optimize.h"

#include <stdlib.h>
#include <string.h>

typedef struct perm {
  int n;
  int64_t p[TOSAC_MAX_RANK]; /* result dim i is input dim p[i] */
} perm;

/* Distinct permutations whose answers are remembered per value; a graph has a
 * handful (NCHW <-> NHWC). Past this, a permutation is not moved. */
#define LAYOUT_MEMO_PERMS 8
/* How far up "could this operand be transposed too" looks (a residual branch:
 * the batch norm chain between a convolution's transpose and the add). */
#define LAYOUT_UP_DEPTH 6
/* How far down a transpose looks for its partner (the recursion's depth; a
 * chain longer than this keeps its transpose). */
#define LAYOUT_DOWN_DEPTH 512

typedef struct layout_state {
  opt_ctx *c;
  int nvalues; /* values of the graph as the pass started */
  int *ustart; /* readers of value v: users[ustart[v] .. ustart[v+1]) */
  op **users;  /* (op ids) */
  perm perms[LAYOUT_MEMO_PERMS];
  int nperms;
  signed char *memo; /* [perm][value]: 0 unknown, 1 meets a partner, -1 not */
} layout_state;

/* ---------------------------------------------------------------- perms */

static bool perm_equal(const perm *a, const perm *b) {
  return a->n == b->n && !memcmp(a->p, b->p, sizeof(int64_t) * (size_t)a->n);
}

static bool perm_identity(const perm *p) {
  for (int i = 0; i < p->n; i++)
    if (p->p[i] != i)
      return false;
  return true;
}

static perm perm_inverse(const perm *p) {
  perm q = {.n = p->n};
  for (int i = 0; i < p->n; i++)
    q.p[p->p[i]] = i;
  return q;
}

/* The permutation of v's defining transpose (false when v is not one). */
static bool transpose_perm(const value *v, perm *p) {
  if (!v || !v->def || v->def->kind != OP_TRANSPOSE || v->def->noperands != 1)
    return false;
  const attr *a = op_attr(v->def, "perms");
  int rank = v->def->operands[0]->type->rank;
  if (!a || a->kind != ATTR_INTS || a->n != rank || rank > TOSAC_MAX_RANK)
    return false;
  bool seen[TOSAC_MAX_RANK] = {0};
  p->n = rank;
  for (int i = 0; i < rank; i++) {
    if (a->ints[i] < 0 || a->ints[i] >= rank || seen[a->ints[i]])
      return false;
    seen[a->ints[i]] = true;
    p->p[i] = a->ints[i];
  }
  return true;
}

/* The type of transposing t by p. */
static tensor_type permuted(const tensor_type *t, const perm *p) {
  tensor_type r = *t;
  for (int i = 0; i < p->n; i++)
    r.dims[i] = t->dims[p->p[i]];
  return r;
}

/* The type x has when transposing x by p gives t. */
static tensor_type unpermuted(const tensor_type *t, const perm *p) {
  tensor_type r = *t;
  for (int i = 0; i < p->n; i++)
    r.dims[p->p[i]] = t->dims[i];
  return r;
}

/* Transposing t by p keeps row-major order: the dims larger than 1 keep their
 * relative order, so the bytes do not move (a reshape). */
static bool moves_unit_dims_only(const tensor_type *t, const perm *p) {
  int last = -1;
  for (int i = 0; i < p->n; i++) {
    int64_t d = p->p[i];
    if (t->dims[d] == 1)
      continue;
    if (d < last)
      return false;
    last = (int)d;
  }
  return true;
}

/* ---------------------------------------------------------------- new ops */

static op *copy_op(opt_ctx *c, const op *o, value *const *operands,
                   const tensor_type *result) {
  op *n = opt_add_op(c, o->kind, o, operands, o->noperands, result, o->loc);
  int na = (int)o->nattrs;
  if (na) {
    attr *a = arena_alloc(c->a, sizeof(attr) * (size_t)na);
    memcpy(a, op_attrs(o), sizeof(attr) * (size_t)na);
    op_set_attrs(c->a, n, a, na);
  }
  return n;
}

static value *add_transpose(opt_ctx *c, const op *before, value *x,
                            const perm *p, src_loc loc) {
  tensor_type t = permuted(x->type, p);
  op *o = opt_add_op(c, OP_TRANSPOSE, before, &x, 1, &t, loc);
  opt_set_ints(c, o, "perms", p->p, p->n);
  return o->results[0];
}

static value *add_reshape(opt_ctx *c, const op *before, value *x,
                          const tensor_type *t, src_loc loc) {
  op *o = opt_add_op(c, OP_RESHAPE, before, &x, 1, t, loc);
  opt_set_ints(c, o, "new_shape", t->dims, t->rank);
  return o->results[0];
}

/* The integer attribute name of o (a copy made by copy_op) becomes v. */
static void set_int(op *o, const char *name, int64_t v) {
  attr *a = op_attrs(o);
  for (int i = 0; i < (int)o->nattrs; i++)
    if (!strcmp(a[i].name, name))
      a[i].i = v;
}

/* A list attribute with one entry per dim (`per` values each) whose entries
 * follow the dims from the transposed layout back to the untransposed one. */
static void permute_ints(opt_ctx *c, op *o, const char *name, const perm *p,
                         int per) {
  const attr *a = op_attr(o, name);
  if (!a || a->kind != ATTR_INTS || a->n != p->n * per)
    return;
  int64_t v[2 * TOSAC_MAX_RANK];
  for (int i = 0; i < p->n; i++)
    for (int k = 0; k < per; k++)
      v[p->p[i] * per + k] = a->ints[i * per + k];
  opt_set_ints(c, o, name, v, a->n);
}

/* The bytes of constant d transposed by q (non-splat; whole-byte elements). */
static dense_data *transposed_data(opt_ctx *c, const dense_data *d,
                                   const perm *q) {
  int eb = elem_type_bytes(d->type.elem), r = d->type.rank;
  tensor_type t = permuted(&d->type, q);
  int64_t stride[TOSAC_MAX_RANK], n = tensor_numel(&t);
  for (int i = r - 1, s = 1; i >= 0; i--)
    stride[i] = s, s *= (int)d->type.dims[i];
  dense_data *out = arena_alloc(c->a, sizeof *out);
  uint8_t *bytes = arena_alloc_raw(c->a, (size_t)(n * eb) + 1);
  int64_t idx[TOSAC_MAX_RANK] = {0};
  for (int64_t k = 0; k < n; k++) {
    int64_t src = 0;
    for (int i = 0; i < r; i++)
      src += idx[i] * stride[q->p[i]];
    memcpy(bytes + k * eb, d->bytes + src * eb, (size_t)eb);
    for (int i = r - 1; i >= 0 && ++idx[i] == t.dims[i]; i--)
      idx[i] = 0;
  }
  *out = (dense_data){.type = t, .bytes = bytes, .nbytes = (size_t)(n * eb)};
  return out;
}

/* A constant can take the other layout: a splat or whole-byte elements within
 * the fold bound. */
static bool const_permutable(const opt_ctx *c, const dense_data *d) {
  if (d->splat)
    return true;
  int bits = elem_type_bits(d->type.elem);
  return (bits % 8 == 0 || d->type.elem == ET_I1) &&
         (int64_t)d->nbytes <= c->o->fold_max_bytes;
}

/* Can operand a of an op computed in the untransposed layout be given as a'
 * with transpose(a', p) == a without moving data at run time? */
static bool operand_adaptable(const opt_ctx *c, const value *a, const perm *p) {
  perm q;
  if (transpose_perm(a, &q) && perm_equal(&q, p))
    return true;
  if (a->type->rank != p->n)
    return false;
  perm inv = perm_inverse(p);
  if (moves_unit_dims_only(a->type, &inv))
    return true;
  const dense_data *d = opt_const_data(a);
  return d && const_permutable(c, d);
}

/* That a': the transpose's input, a reshape (only unit dims move), or a
 * transposed constant. */
static value *adapt_operand(opt_ctx *c, const op *before, value *a,
                            const perm *p) {
  perm q;
  if (transpose_perm(a, &q) && perm_equal(&q, p))
    return opt_get(c, a->def->operands[0]);
  perm inv = perm_inverse(p);
  tensor_type t = unpermuted(a->type, p);
  const dense_data *d = opt_const_data(a);
  if (d && (d->splat || moves_unit_dims_only(a->type, &inv))) {
    dense_data *nd = arena_alloc(c->a, sizeof *nd);
    *nd = *d;
    nd->type = t;
    return opt_add_const(c, before, nd, a->loc);
  }
  if (moves_unit_dims_only(a->type, &inv))
    return add_reshape(c, before, a, &t, a->loc);
  return opt_add_const(c, before, transposed_data(c, d, &inv), a->loc);
}

/* reshape(transpose(x, p), s) as transpose(reshape(x, s2), q): possible when
 * the reshape only merges dims that are neighbours in x's order too, and splits
 * dims (size-1 dims aside). The dims of x and s form groups of equal products;
 * a group's transposed dims must be consecutive, increasing dims of x. s2 is
 * s with its groups in x's order (a size-1 dim of s goes with the group after
 * it), q puts them back. */
static bool reshape_across(const tensor_type *x, const perm *p,
                           const tensor_type *s, tensor_type *s2, perm *q) {
  int yi[TOSAC_MAX_RANK], sj[TOSAC_MAX_RANK], xn[TOSAC_MAX_RANK];
  int nyi = 0, nsj = 0, nx = 0;
  if (s->rank > TOSAC_MAX_RANK || s->rank < 1)
    return false;
  for (int d = 0; d < x->rank; d++) {
    if (x->dims[d] < 1)
      return false;
    xn[d] = x->dims[d] == 1 ? -1 : nx++;
  }
  for (int i = 0; i < p->n; i++)
    if (x->dims[p->p[i]] != 1)
      yi[nyi++] = i;
  for (int j = 0; j < s->rank; j++) {
    if (s->dims[j] < 1)
      return false;
    if (s->dims[j] != 1)
      sj[nsj++] = j;
  }
  /* groups: y's non-unit dims [ga[g], ga[g+1]) make s's [gb[g], gb[g+1]) */
  int ga[TOSAC_MAX_RANK + 1], gb[TOSAC_MAX_RANK + 1], key[TOSAC_MAX_RANK];
  int ng = 0, a = 0, b = 0;
  while (a < nyi && b < nsj) {
    ga[ng] = a, gb[ng] = b;
    int64_t py = x->dims[p->p[yi[a++]]], ps = s->dims[sj[b++]];
    while (py != ps) {
      if (py < ps && a < nyi)
        py *= x->dims[p->p[yi[a++]]];
      else if (ps < py && b < nsj)
        ps *= s->dims[sj[b++]];
      else
        return false;
    }
    for (int k = ga[ng]; k + 1 < a; k++)
      if (xn[p->p[yi[k + 1]]] != xn[p->p[yi[k]]] + 1)
        return false;
    key[ng] = xn[p->p[yi[ga[ng]]]];
    ng++;
  }
  if (a != nyi || b != nsj || ng == 0)
    return false;
  gb[ng] = nsj;
  /* each position of s belongs to a group: its own, or for a unit dim the one
   * of the next non-unit dim (the last group past them all) */
  int group_of[TOSAC_MAX_RANK], next = ng - 1;
  for (int j = s->rank - 1, k = nsj - 1; j >= 0; j--) {
    if (k >= 0 && sj[k] == j) {
      int g = 0;
      while (gb[g + 1] <= k)
        g++;
      next = g, k--;
    }
    group_of[j] = next;
  }
  *s2 = *s;
  q->n = s->rank;
  int at = 0;
  for (int rank = 0; rank < nx; rank++)
    for (int g = 0; g < ng; g++) {
      if (key[g] != rank)
        continue;
      for (int j = 0; j < s->rank; j++)
        if (group_of[j] == g)
          s2->dims[at] = s->dims[j], q->p[j] = at++;
    }
  return at == s->rank;
}

/* ---------------------------------------------------------------- which ops */

typedef enum cross_kind {
  CROSS_NONE,
  CROSS_ELEMENTWISE, /* every operand adapted */
  CROSS_FIRST,       /* operand 0 only: reductions, pad, tile, slice, reverse,
                        pooling */
  CROSS_CONCAT,      /* every operand adapted, axis renamed */
  CROSS_RESHAPE,     /* reshape_across: another permutation below */
} cross_kind;

/* How a transpose by p of operand `at` crosses o (CROSS_NONE: it cannot). */
static cross_kind crossing(const op *o, int at, const perm *p) {
  if (o->kind == OP_RESHAPE && o->nresults == 1 && o->noperands == 1) {
    tensor_type x = unpermuted(o->operands[0]->type, p), s2;
    perm q;
    return o->operands[0]->type->rank == p->n &&
                   reshape_across(&x, p, o->results[0]->type, &s2, &q)
               ? CROSS_RESHAPE
               : CROSS_NONE;
  }
  if (o->nresults != 1 || o->nregions || o->results[0]->type->rank != p->n)
    return CROSS_NONE;
  switch (op_table[o->kind].family) {
  case FAM_ELEMENTWISE:
    if (o->kind == OP_TABLE ||
        (o->kind == OP_RESCALE && op_attr_int(o, "per_channel", 0)))
      return CROSS_NONE; /* a table operand; a per-channel last axis */
    return CROSS_ELEMENTWISE;
  case FAM_REDUCTION: {
    /* a reduction over the last axis is a row reduction that the partitioner
     * fuses with the ops around it (docs/partitioning.md, row normalisation):
     * the transpose does not move its axis away from there */
    int64_t axis = op_attr_int(o, "axis", -1), last = p->n - 1;
    if (o->kind == OP_ARGMAX || (axis == last && p->p[axis] != last))
      return CROSS_NONE;
    return CROSS_FIRST;
  }
  case FAM_POOL:
    /* pooling runs over dims 1 and 2 of NHWC: a permutation that keeps them in
     * place (swaps batch and channels) commutes with it */
    return p->n == 4 && p->p[1] == 1 && p->p[2] == 2 ? CROSS_FIRST : CROSS_NONE;
  case FAM_DATA:
    switch (o->kind) {
    case OP_PAD:
    case OP_TILE:
    case OP_SLICE:
    case OP_REVERSE:
      return at == 0 ? CROSS_FIRST : CROSS_NONE;
    case OP_CONCAT:
      return CROSS_CONCAT;
    default:
      return CROSS_NONE;
    }
  default:
    return CROSS_NONE;
  }
}

/* Could value a be a transpose by p by the time the op reading it is
 * rewritten: it is one, adapts (constant, broadcast), or an op the transpose
 * crosses computes it from such values (the other branch of a residual add). */
static bool could_adapt(layout_state *S, value *a, const perm *p, int depth) {
  a = opt_get(S->c, a);
  if (operand_adaptable(S->c, a, p))
    return true;
  const op *d = a->def;
  if (!d || depth >= LAYOUT_UP_DEPTH)
    return false;
  cross_kind k = crossing(d, 0, p);
  if (k == CROSS_NONE)
    return false;
  int n = k == CROSS_FIRST ? 1 : d->noperands;
  for (int i = 0; i < n; i++)
    if (!could_adapt(S, d->operands[i], p, depth + 1))
      return false;
  return true;
}

/* The permutation the transpose has below o once it crossed o. */
static perm perm_below(const op *o, const perm *p) {
  if (o->kind != OP_RESHAPE)
    return *p; /* every other crossing keeps the rank and the permutation */
  tensor_type x = unpermuted(o->operands[0]->type, p), s2;
  perm q = *p;
  reshape_across(&x, p, o->results[0]->type, &s2, &q);
  return q;
}

static int memo_slot(layout_state *S, const perm *p) {
  for (int i = 0; i < S->nperms; i++)
    if (perm_equal(&S->perms[i], p))
      return i;
  if (S->nperms == LAYOUT_MEMO_PERMS)
    return -1;
  S->perms[S->nperms] = *p;
  return S->nperms++;
}

/* Does every path from v (computed as transpose(v', p) once moved) reach
 * another transpose through ops the transpose crosses? */
static bool meets_partner(layout_state *S, const value *v, const perm *p,
                          int depth) {
  opt_ctx *c = S->c;
  if (v->id < 0 || v->id >= S->nvalues || c->pinned[v->id] ||
      depth > LAYOUT_DOWN_DEPTH)
    return false; /* a graph result keeps its layout; a region reads it */
  int slot = memo_slot(S, p);
  if (slot < 0)
    return false;
  signed char *m = &S->memo[(size_t)slot * (size_t)S->nvalues + (size_t)v->id];
  if (*m)
    return *m > 0;
  bool ok = S->ustart[v->id] < S->ustart[v->id + 1];
  for (int k = S->ustart[v->id]; ok && k < S->ustart[v->id + 1]; k++) {
    op *u = S->users[k];
    if (u->kind == OP_TRANSPOSE)
      continue;
    int at = 0;
    while (at < u->noperands && opt_get(c, u->operands[at]) != v)
      at++;
    cross_kind kind = crossing(u, at, p);
    if (kind == CROSS_NONE || (kind == CROSS_FIRST && at != 0)) {
      ok = false;
      break;
    }
    for (int i = 0; ok && kind != CROSS_FIRST && i < u->noperands; i++) {
      value *w = opt_get(c, u->operands[i]);
      ok = w == v || could_adapt(S, w, p, 0);
    }
    perm below = perm_below(u, p);
    ok = ok && meets_partner(S, u->results[0], &below, depth + 1);
  }
  *m = ok ? 1 : -1;
  return ok;
}

/* ---------------------------------------------------------------- rewrites */

/* reshape(transpose(x, p), s) becomes transpose(reshape(x, s2), q). */
static bool sink_reshape(layout_state *S, op *o, const perm *p) {
  opt_ctx *c = S->c;
  value *y = opt_get(c, o->operands[0]), *x = opt_get(c, y->def->operands[0]);
  tensor_type s2;
  perm q;
  if (!reshape_across(x->type, p, o->results[0]->type, &s2, &q) ||
      !meets_partner(S, o->results[0], &q, 0))
    return false;
  value *r = add_reshape(c, o, x, &s2, o->loc);
  opt_replace(c, o->results[0], add_transpose(c, o, r, &q, o->loc));
  opt_note(c, o->loc, "moved tosa.transpose below tosa.reshape");
  return true;
}

/* o reads transpose(x, p) at operand `at`: compute o on x and transpose its
 * result instead. */
static bool sink(layout_state *S, op *o, int at, const perm *p) {
  opt_ctx *c = S->c;
  cross_kind kind = crossing(o, at, p);
  if (kind == CROSS_NONE || (kind == CROSS_FIRST && at != 0))
    return false;
  if (kind == CROSS_RESHAPE)
    return sink_reshape(S, o, p);
  int n = kind == CROSS_FIRST ? 1 : o->noperands;
  for (int i = 0; i < n; i++)
    if (!operand_adaptable(c, opt_get(c, o->operands[i]), p))
      return false;
  if (!meets_partner(S, o->results[0], p, 0))
    return false;
  int64_t axis = op_attr_int(o, "axis", 0);
  if (op_attr(o, "axis") && (axis < 0 || axis >= p->n))
    return false;
  value *ops[16], **opsv = ops;
  if (o->noperands > 16)
    opsv = arena_alloc(c->a, sizeof(value *) * (size_t)o->noperands);
  for (int i = 0; i < o->noperands; i++)
    opsv[i] = adapt_operand(c, o, opt_get(c, o->operands[i]), p);
  tensor_type rt = unpermuted(o->results[0]->type, p);
  op *n2 = copy_op(c, o, opsv, &rt);
  switch (o->kind) {
  case OP_PAD:
    permute_ints(c, n2, "padding", p, 2);
    break;
  case OP_TILE:
    permute_ints(c, n2, "multiples", p, 1);
    break;
  case OP_SLICE:
    permute_ints(c, n2, "start", p, 1);
    permute_ints(c, n2, "size", p, 1);
    break;
  default:
    if (op_attr(o, "axis"))
      set_int(n2, "axis", p->p[axis]);
  }
  value *t = add_transpose(c, o, n2->results[0], p, o->loc);
  opt_replace(c, o->results[0], t);
  opt_note(c, o->loc, "moved tosa.transpose below %s", op_table[o->kind].name);
  return true;
}

/* transpose(transpose(y, p1), p2) is transpose(y, p1 o p2); the identity
 * leaves y. A transpose that only moves unit dims is a reshape. */
static void simplify_transpose(layout_state *S, op *o) {
  opt_ctx *c = S->c;
  value *x = opt_get(c, o->operands[0]), *r = o->results[0];
  perm p2, p1;
  if (!transpose_perm(r, &p2))
    return;
  if (transpose_perm(x, &p1)) {
    perm comp = {.n = p2.n};
    for (int j = 0; j < p2.n; j++)
      comp.p[j] = p1.p[p2.p[j]];
    value *y = opt_get(c, x->def->operands[0]);
    if (perm_identity(&comp)) {
      opt_replace(c, r, y);
      opt_note(c, o->loc, "removed tosa.transpose: it undoes the one at %d:%d",
               x->def->loc.line, x->def->loc.col);
    } else {
      opt_replace(c, r, add_transpose(c, o, y, &comp, o->loc));
      opt_note(c, o->loc,
               "tosa.transpose of a tosa.transpose became one tosa.transpose");
    }
    return;
  }
  if (moves_unit_dims_only(x->type, &p2) && !perm_identity(&p2)) {
    opt_replace(c, r, add_reshape(c, o, x, r->type, o->loc));
    opt_note(c, o->loc,
             "tosa.transpose moves only dims of size 1: became tosa.reshape");
  }
}

/* The readers of every value (ops of the top-level graph; regions pin): an op
 * reading v twice is listed twice. */
static void build_users(layout_state *S) {
  graph *g = S->c->g;
  int nv = S->nvalues;
  S->ustart = calloc((size_t)nv + 2, sizeof(int));
  for (int i = 0; i < g->nops; i++)
    for (int j = 0; j < g->ops[i]->noperands; j++) {
      value *v = opt_get(S->c, g->ops[i]->operands[j]);
      if (v->id >= 0 && v->id < nv && g->values[v->id] == v)
        S->ustart[v->id + 1]++;
    }
  for (int v = 0; v < nv; v++)
    S->ustart[v + 1] += S->ustart[v];
  int *fill = malloc(sizeof(int) * ((size_t)nv + 1));
  memcpy(fill, S->ustart, sizeof(int) * ((size_t)nv + 1));
  S->users = malloc(sizeof(op *) * ((size_t)S->ustart[nv] + 1));
  for (int i = 0; i < g->nops; i++)
    for (int j = 0; j < g->ops[i]->noperands; j++) {
      value *v = opt_get(S->c, g->ops[i]->operands[j]);
      if (v->id >= 0 && v->id < nv && g->values[v->id] == v)
        S->users[fill[v->id]++] = g->ops[i];
    }
  free(fill);
}

bool opt_propagate_layout(opt_ctx *c) {
  graph *g = c->g;
  bool any = false;
  for (int i = 0; i < g->nops && !any; i++)
    any = g->ops[i]->kind == OP_TRANSPOSE;
  if (!any)
    return true;
  opt_count_uses(c);
  layout_state S = {.c = c, .nvalues = g->nvalues};
  build_users(&S);
  S.memo = calloc((size_t)LAYOUT_MEMO_PERMS * (size_t)g->nvalues + 1, 1);
  int nops = g->nops;
  for (int i = 0; i < nops; i++) {
    op *o = g->ops[i];
    if (o->kind == OP_TRANSPOSE) {
      simplify_transpose(&S, o);
      continue;
    }
    for (int k = 0; k < o->noperands; k++) {
      perm p;
      if (transpose_perm(opt_get(c, o->operands[k]), &p) && sink(&S, o, k, &p))
        break;
    }
  }
  free(S.memo);
  free(S.users);
  free(S.ustart);
  return true;
}
