/* rewrite.c: the tools every pass shares. A pass never edits the op list
 * itself: it adds ops before an anchor and replaces values; opt_commit then
 * rebuilds the graph once, so a pass over a million ops stays linear. */
#include "optimize.h"

#include <stdlib.h>
#include <string.h>

/* p (old elements of elem bytes) with room for cap, the new part zeroed. The
 * per-id arrays live outside the arena: they are dropped when the stage ends
 * (opt_ctx_free), not at the compile's end, so a million-op graph does not
 * carry them into partitioning. */
static void *grow_zeroed(void *p, size_t elem, size_t old, size_t cap) {
  char *q = realloc(p, elem * cap);
  if (!q) {
    fputs("tosac: out of memory\n", stderr);
    abort();
  }
  memset(q + elem * old, 0, elem * (cap - old));
  return q;
}

/* Room for ids [0, n): the per-id arrays grow together. */
static void reserve_ids(opt_ctx *c, int n) {
  if (n <= c->capids)
    return;
  size_t old = (size_t)c->capids, cap = old ? old : 64;
  while (cap < (size_t)n)
    cap *= 2;
  c->subst = grow_zeroed(c->subst, sizeof *c->subst, old, cap);
  c->uses = grow_zeroed(c->uses, sizeof *c->uses, old, cap);
  c->pinned = grow_zeroed(c->pinned, sizeof *c->pinned, old, cap);
  c->capids = (int)cap;
}

void opt_ctx_free(opt_ctx *c) {
  free(c->subst);
  free(c->uses);
  free(c->pinned);
  free(c->fresh);
  c->fresh = NULL, c->nfresh = c->capfresh = 0;
  c->subst = NULL, c->uses = NULL, c->pinned = NULL;
  c->capids = 0;
}

void opt_ctx_init(opt_ctx *c, graph *g, const opt_options *o, opt_report *rep,
                  diag_sink *d) {
  *c = (opt_ctx){.g = g, .a = g->arena, .d = d, .o = o, .rep = rep};
  c->nids = g->nvalues;
  c->const_bytes_input = opt_const_bytes(g);
  reserve_ids(c, g->nvalues + 1);
}

/* Values of the enclosing graph are read inside regions by pointer: ids belong
 * to the graph that owns the value, so a region's own values are recognised by
 * pointer, not by id. */
static bool owned(const opt_ctx *c, const value *v) {
  return v->id >= 0 && v->id < c->nids &&
         (v->id < c->g->nvalues ? c->g->values[v->id] == v
                                : c->added_values[v->id - c->g->nvalues] == v);
}

value *opt_get(opt_ctx *c, value *v) {
  while (v && owned(c, v) && c->subst[v->id])
    v = c->subst[v->id];
  return v;
}

void opt_replace(opt_ctx *c, value *from, value *to) {
  to = opt_get(c, to);
  if (!owned(c, from) || from == to)
    return;
  c->subst[from->id] = to;
  c->changed = true;
}

static void count_region_reads(opt_ctx *c, const op *o) {
  for (int r = 0; r < (int)o->nregions; r++) {
    const graph *rg = op_regions(o)[r];
    for (int i = 0; i < rg->nops; i++) {
      const op *ro = rg->ops[i];
      for (int j = 0; j < ro->noperands; j++)
        if (owned(c, ro->operands[j]))
          c->pinned[ro->operands[j]->id] = true, c->uses[ro->operands[j]->id]++;
      count_region_reads(c, ro);
    }
    for (int i = 0; i < rg->nresults; i++)
      if (owned(c, rg->results[i]))
        c->pinned[rg->results[i]->id] = true, c->uses[rg->results[i]->id]++;
  }
}

void opt_count_uses(opt_ctx *c) {
  memset(c->uses, 0, sizeof *c->uses * (size_t)c->nids);
  memset(c->pinned, 0, sizeof *c->pinned * (size_t)c->nids);
  for (int i = 0; i < c->g->nops; i++) {
    op *o = c->g->ops[i];
    for (int j = 0; j < o->noperands; j++) {
      value *v = opt_get(c, o->operands[j]);
      if (owned(c, v))
        c->uses[v->id]++;
    }
    count_region_reads(c, o);
  }
  for (int i = 0; i < c->nadded; i++)
    for (int j = 0; j < c->added[i]->noperands; j++) {
      value *v = opt_get(c, c->added[i]->operands[j]);
      if (owned(c, v))
        c->uses[v->id]++;
    }
  for (int r = 0; r < c->g->nresults; r++) {
    value *v = opt_get(c, c->g->results[r]);
    if (owned(c, v))
      c->uses[v->id]++, c->pinned[v->id] = true;
  }
}

op *opt_add_op(opt_ctx *c, op_kind k, const op *before, value *const *operands,
               int n, const tensor_type *result, src_loc loc) {
  op *o = arena_alloc(c->a, sizeof *o);
  o->kind = k;
  o->loc = loc;
  o->noperands = n;
  o->operands = arena_alloc(c->a, sizeof(value *) * (size_t)(n ? n : 1));
  for (int i = 0; i < n; i++)
    o->operands[i] = opt_get(c, operands[i]);
  value *r = arena_alloc(c->a, sizeof *r);
  r->type = type_intern(c->a, result);
  r->def = o;
  r->loc = loc;
  r->id = c->nids;
  reserve_ids(c, c->nids + 1);
  c->nids++;
  ARENA_PUSH(c->a, c->added_values, c->nadded_values, c->capadded_values, r);
  o->results = arena_alloc(c->a, sizeof(value *));
  o->results[0] = r;
  o->nresults = 1;
  o->id = -1; /* placed by opt_commit */
  int at = before ? before->id : c->g->nops;
  if (c->nadded == c->capadded)
    c->anchor =
        arena_grow(c->a, c->anchor, sizeof *c->anchor, (size_t)c->nadded,
                   (size_t)(c->capadded ? c->capadded * 2 : 16));
  ARENA_PUSH(c->a, c->added, c->nadded, c->capadded, o);
  c->anchor[c->nadded - 1] = at;
  c->changed = true;
  return o;
}

op *opt_add_copy(opt_ctx *c, const op *o, const op *before,
                 value *const *operands, int n, const tensor_type *result) {
  op *k = opt_add_op(c, o->kind, before, operands, n, result, o->loc);
  if (o->nattrs) {
    attr *v = arena_alloc(c->a, sizeof(attr) * o->nattrs);
    memcpy(v, op_attrs(o), sizeof(attr) * o->nattrs);
    op_set_attrs(c->a, k, v, (int)o->nattrs);
  }
  return k;
}

value *opt_add_const(opt_ctx *c, const op *before, const dense_data *d,
                     src_loc loc) {
  op *o = opt_add_op(c, OP_CONST, before, NULL, 0, &d->type, loc);
  attr *a = opt_set_attr(c, o, "values", ATTR_DENSE);
  a->dense = (dense_data *)d;
  a->loc = loc;
  return o->results[0];
}

attr *opt_set_attr(opt_ctx *c, op *o, const char *name, attr_kind kind) {
  attr *old = op_attrs(o);
  for (int i = 0; i < (int)o->nattrs; i++)
    if (!strcmp(old[i].name, name)) {
      old[i] = (attr){.name = old[i].name, .kind = kind, .loc = o->loc};
      return &old[i];
    }
  int n = (int)o->nattrs;
  attr *v = arena_alloc(c->a, sizeof(attr) * (size_t)(n + 1));
  if (n)
    memcpy(v, old, sizeof(attr) * (size_t)n);
  v[n] = (attr){.name = arena_strdup(c->a, name), .kind = kind, .loc = o->loc};
  op_set_attrs(c->a, o, v, n + 1);
  return &v[n];
}

void opt_set_ints(opt_ctx *c, op *o, const char *name, const int64_t *v,
                  int n) {
  attr *a = opt_set_attr(c, o, name, ATTR_INTS);
  a->ints = arena_alloc(c->a, sizeof(int64_t) * (size_t)(n ? n : 1));
  memcpy(a->ints, v, sizeof(int64_t) * (size_t)n);
  a->n = n;
}

const dense_data *opt_const_data(const value *v) {
  if (!v || !v->def || op_table[v->def->kind].family != FAM_CONST)
    return NULL;
  const attr *a = op_attr(v->def, "values");
  return a && a->kind == ATTR_DENSE ? a->dense : NULL;
}

int64_t opt_const_bytes(const graph *g) {
  int64_t n = 0;
  for (int i = 0; i < g->nops; i++) {
    const dense_data *d =
        opt_const_data(g->ops[i]->nresults ? g->ops[i]->results[0] : NULL);
    if (d)
      n += (int64_t)d->nbytes;
  }
  return n;
}

void opt_note(opt_ctx *c, src_loc loc, const char *fmt, ...) {
  if (!c->rep)
    return;
  va_list ap;
  va_start(ap, fmt);
  char buf[512];
  vsnprintf(buf, sizeof buf, fmt, ap);
  va_end(ap);
  opt_line n = {.pass = c->pass, .loc = loc, .text = arena_strdup(c->a, buf)};
  ARENA_PUSH(c->a, c->rep->lines, c->rep->nlines, c->rep->caplines, n);
}

/* ---------------------------------------------------------------- commit */

/* The ops in their new order: the added ops anchored at op i come just before
 * it, in the order they were added (stable sort by anchor). */
static op **placed_order(opt_ctx *c, int *n) {
  if (!c->nadded) { /* compacted in place: a million-op graph gets no second
                       list */
    *n = c->g->nops;
    return c->g->ops;
  }
  int *order = malloc(sizeof(int) * (size_t)(c->nadded + 1));
  for (int i = 0; i < c->nadded; i++)
    order[i] = i;
  /* insertion sort by anchor keeps the added order among equal anchors; passes
   * add few ops relative to the graph and mostly in anchor order, so this is
   * near-linear */
  for (int i = 1; i < c->nadded; i++) {
    int x = order[i], j = i;
    while (j > 0 && c->anchor[order[j - 1]] > c->anchor[x])
      order[j] = order[j - 1], j--;
    order[j] = x;
  }
  op **ops =
      arena_alloc(c->a, sizeof(op *) * (size_t)(c->g->nops + c->nadded + 1));
  int k = 0, a = 0;
  for (int i = 0; i <= c->g->nops; i++) {
    while (a < c->nadded && c->anchor[order[a]] <= i)
      ops[k++] = c->added[order[a++]];
    if (i < c->g->nops)
      ops[k++] = c->g->ops[i];
  }
  free(order);
  *n = k;
  return ops;
}

static void substitute_regions(opt_ctx *c, op *o) {
  for (int r = 0; r < (int)o->nregions; r++) {
    graph *rg = op_regions(o)[r];
    for (int i = 0; i < rg->nops; i++) {
      for (int j = 0; j < rg->ops[i]->noperands; j++)
        rg->ops[i]->operands[j] = opt_get(c, rg->ops[i]->operands[j]);
      substitute_regions(c, rg->ops[i]);
    }
    for (int i = 0; i < rg->nresults; i++)
      rg->results[i] = opt_get(c, rg->results[i]);
  }
}

/* Ops with effects beyond their results stay even when nothing reads them. */
static bool has_effects(const op *o) {
  return op_table[o->kind].family == FAM_OTHER && o->kind != OP_YIELD;
}

/* A value is live when a result, a region or a live op reads it; walk backwards
 * marking. */
static void mark_live(opt_ctx *c, op **ops, int n, char *live) {
  char *needed = calloc((size_t)c->nids + 1, 1);
  for (int r = 0; r < c->g->nresults; r++)
    if (owned(c, c->g->results[r]))
      needed[c->g->results[r]->id] = 1;
  opt_count_uses(c); /* pinned = read inside a region */
  for (int i = n - 1; i >= 0; i--) {
    op *o = ops[i];
    live[i] = has_effects(o);
    for (int r = 0; r < o->nresults && !live[i]; r++)
      live[i] = needed[o->results[r]->id] || c->pinned[o->results[r]->id];
    for (int j = 0; live[i] && j < o->noperands; j++)
      if (owned(c, o->operands[j]))
        needed[o->operands[j]->id] = 1;
  }
  free(needed);
}

static bool bytes_shared(const op *const *ops, int n, const uint8_t *bytes,
                         const op *self);

/* Buffers at least this large have an arena block of their own, which
 * arena_release can give back. */
#define OWN_BLOCK_BYTES (256 * 1024)

/* The large data buffers of the constants among ops[0..n) that are not live
 * (NULL-terminated, malloc'd), read before the op list is compacted. */
static const uint8_t **dead_data(op **ops, int n, const char *live) {
  const uint8_t **v = calloc((size_t)n + 1, sizeof *v);
  int k = 0;
  for (int i = 0; v && i < n; i++) {
    const dense_data *d = live[i] || !ops[i]->nresults
                              ? NULL
                              : opt_const_data(ops[i]->results[0]);
    if (d && !d->splat && d->nbytes >= OWN_BLOCK_BYTES)
      v[k++] = d->bytes;
  }
  return v;
}

/* Gives back a dead constant's buffer unless another constant (but `self`)
 * shares it. */
static void release_data(opt_ctx *c, const uint8_t *bytes, const op *self) {
  if (bytes_shared((const op *const *)c->g->ops, c->g->nops, bytes, self) ||
      bytes_shared((const op *const *)c->added, c->nadded, bytes, self))
    return;
  for (int i = 0; i < c->nfresh; i++)
    if (c->fresh[i] == bytes)
      c->fresh[i] = NULL;
  arena_release(c->a, (void *)bytes);
}

void opt_commit(opt_ctx *c) {
  graph *g = c->g;
  int n;
  op **ops = placed_order(c, &n);
  for (int i = 0; i < n; i++) {
    for (int j = 0; j < ops[i]->noperands; j++)
      ops[i]->operands[j] = opt_get(c, ops[i]->operands[j]);
    substitute_regions(c, ops[i]);
  }
  for (int r = 0; r < g->nresults; r++)
    g->results[r] = opt_get(c, g->results[r]);
  char *live = calloc((size_t)n + 1, 1);
  mark_live(c, ops, n, live);
  value **values =
      c->nadded_values
          ? arena_alloc(c->a, sizeof(value *) * (size_t)(c->nids + 1))
          : g->values; /* only shrinks: compacted in place */
  int nv = 0, no = 0;
  for (int i = 0; i < g->nargs; i++)
    g->args[i]->id = nv, values[nv++] = g->args[i];
  for (int i = 0; i < n; i++) {
    if (!live[i])
      continue;
    op *o = ops[i];
    o->id = no;
    ops[no++] = o;
    for (int r = 0; r < o->nresults; r++)
      o->results[r]->id = nv, values[nv++] = o->results[r];
  }
  const uint8_t **dead =
      c->o->release_dead_constants ? dead_data(ops, n, live) : NULL;
  free(live);
  g->ops = ops, g->nops = no;
  for (int i = 0; dead && dead[i]; i++)
    release_data(c, dead[i], NULL);
  free(dead);
  g->values = values, g->nvalues = nv;
  /* the context starts over on the rebuilt graph */
  memset(c->subst, 0, sizeof *c->subst * (size_t)c->capids);
  c->nids = nv;
  c->nadded = c->nadded_values = 0;
}

void opt_note_fresh(opt_ctx *c, const dense_data *d) {
  if (d->splat)
    return;
  if (c->nfresh == c->capfresh) {
    int cap = c->capfresh ? 2 * c->capfresh : 16;
    c->fresh = grow_zeroed(c->fresh, sizeof *c->fresh, (size_t)c->capfresh,
                           (size_t)cap);
    c->capfresh = cap;
  }
  c->fresh[c->nfresh++] = d->bytes;
}

/* Constants of ops (regions included) whose data is bytes, besides `self`. */
static bool bytes_shared(const op *const *ops, int n, const uint8_t *bytes,
                         const op *self) {
  for (int i = 0; i < n; i++) {
    const op *o = ops[i];
    const dense_data *d =
        o == self || !o->nresults ? NULL : opt_const_data(o->results[0]);
    if (d && d->bytes == bytes)
      return true;
    for (int r = 0; r < (int)o->nregions; r++) {
      const graph *rg = op_regions(o)[r];
      if (bytes_shared((const op *const *)rg->ops, rg->nops, bytes, self))
        return true;
    }
  }
  return false;
}

dense_data *opt_exclusive_data(opt_ctx *c, value *v) {
  v = opt_get(c, v);
  const dense_data *d = opt_const_data(v);
  if (!d || d->splat || !owned(c, v) || c->uses[v->id] != 1 || c->pinned[v->id])
    return NULL;
  bool fresh = false;
  for (int i = 0; i < c->nfresh && !fresh; i++)
    fresh = c->fresh[i] == d->bytes;
  if (!fresh ||
      bytes_shared((const op *const *)c->g->ops, c->g->nops, d->bytes,
                   v->def) ||
      bytes_shared((const op *const *)c->added, c->nadded, d->bytes, v->def))
    return NULL;
  return (dense_data *)d;
}

void opt_release_if_dead(opt_ctx *c, value *v) {
  const dense_data *d = opt_const_data(v);
  if (c->o->release_dead_constants && d && !d->splat &&
      d->nbytes >= OWN_BLOCK_BYTES && owned(c, v) && !c->uses[v->id] &&
      !c->pinned[v->id])
    release_data(c, d->bytes, v->def);
}
