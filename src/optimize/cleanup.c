/* cleanup.c: the "cleanup" pass. Ops that compute what another op already
 * computes (same kind, same operands, same attributes, same result type;
 * constants with the same bytes) are replaced by the first; a reshape of a
 * reshape reads the first one's input; reshapes and transposes that change
 * nothing, and tosa.identity, disappear. Dead ops go at commit. */
#include "optimize.h"

#include <stdlib.h>
#include <string.h>

static uint64_t mix(uint64_t h, uint64_t x) {
  h ^= x + 0x9e3779b97f4a7c15ull + (h << 6) + (h >> 2);
  return h;
}

static uint64_t hash_bytes(uint64_t h, const uint8_t *p, size_t n) {
  for (size_t i = 0; i < n; i++)
    h = (h ^ p[i]) * 0x100000001b3ull;
  return h;
}

/* Constants this large are hashed by a sample of their bytes: the pass runs
 * every round over tens of megabytes of weights, and equal hashes are
 * confirmed by comparing every byte anyway. */
#define DENSE_HASH_WHOLE 4096
#define DENSE_HASH_SAMPLES 64

static uint64_t dense_hash(uint64_t h, const dense_data *d) {
  if (d->nbytes <= DENSE_HASH_WHOLE)
    return hash_bytes(h, d->bytes, d->nbytes);
  size_t step = (d->nbytes - 8) / (DENSE_HASH_SAMPLES - 1);
  for (size_t i = 0; i < DENSE_HASH_SAMPLES; i++) {
    uint64_t x;
    memcpy(&x, d->bytes + i * step, 8);
    h = mix(h, x);
  }
  return h;
}

static uint64_t attr_hash(uint64_t h, const attr *a) {
  h = hash_bytes(h, (const uint8_t *)a->name, strlen(a->name));
  h = mix(h, (uint64_t)a->kind);
  switch (a->kind) {
  case ATTR_INT:
  case ATTR_BOOL:
    return mix(h, (uint64_t)a->i);
  case ATTR_INTS:
    return hash_bytes(h, (const uint8_t *)a->ints,
                      sizeof(int64_t) * (size_t)a->n);
  case ATTR_DENSE:
    return a->dense ? dense_hash(mix(h, a->dense->nbytes), a->dense) : h;
  default:
    return h; /* floats, strings, types: compared exactly, not hashed */
  }
}

static bool attr_equal(const attr *a, const attr *b) {
  if (strcmp(a->name, b->name) || a->kind != b->kind || a->i != b->i ||
      a->n != b->n || a->type_elem != b->type_elem)
    return false;
  if (memcmp(&a->f, &b->f, sizeof a->f))
    return false;
  if ((a->s || b->s) && (!a->s || !b->s || strcmp(a->s, b->s)))
    return false;
  if (a->n && a->ints &&
      (!b->ints || memcmp(a->ints, b->ints, sizeof(int64_t) * (size_t)a->n)))
    return false;
  if (a->n && a->floats &&
      (!b->floats ||
       memcmp(a->floats, b->floats, sizeof(double) * (size_t)a->n)))
    return false;
  if (a->kind == ATTR_DENSE) {
    const dense_data *x = a->dense, *y = b->dense;
    if (!x || !y)
      return x == y;
    return x->splat == y->splat && x->nbytes == y->nbytes &&
           tensor_type_equal(&x->type, &y->type) &&
           !memcmp(x->bytes, y->bytes, x->nbytes);
  }
  return true;
}

/* Only ops whose one result is a function of their operands and attributes take
 * part. */
static bool cse_candidate(const op *o) {
  op_family f = op_table[o->kind].family;
  return o->nresults == 1 && !o->nregions && f != FAM_OTHER;
}

static uint64_t op_hash(opt_ctx *c, const op *o) {
  uint64_t h = mix(0xcbf29ce484222325ull, (uint64_t)o->kind);
  h = mix(h, (uint64_t)(uintptr_t)o->results[0]->type);
  for (int i = 0; i < o->noperands; i++)
    h = mix(h, (uint64_t)(uintptr_t)opt_get(c, o->operands[i]));
  const attr *a = op_attrs(o);
  for (int i = 0; i < (int)o->nattrs; i++)
    h = attr_hash(h, &a[i]);
  return h;
}

static bool same_op(opt_ctx *c, const op *x, const op *y) {
  if (x->kind != y->kind || x->noperands != y->noperands ||
      x->nattrs != y->nattrs || x->results[0]->type != y->results[0]->type)
    return false;
  for (int i = 0; i < x->noperands; i++)
    if (opt_get(c, x->operands[i]) != opt_get(c, y->operands[i]))
      return false;
  const attr *a = op_attrs(x), *b = op_attrs(y);
  for (int i = 0; i < (int)x->nattrs; i++)
    if (!attr_equal(&a[i], &b[i]))
      return false;
  return true;
}

static void eliminate_common(opt_ctx *c) {
  graph *g = c->g;
  size_t cap = 16;
  while (cap < 2 * (size_t)g->nops)
    cap *= 2;
  const op **table = calloc(cap, sizeof *table);
  for (int i = 0; i < g->nops; i++) {
    op *o = g->ops[i];
    if (!cse_candidate(o) ||
        c->pinned[o->results[0]->id]) /* results keep their own buffers */
      continue;
    for (size_t k = op_hash(c, o) & (cap - 1);; k = (k + 1) & (cap - 1)) {
      if (!table[k]) {
        table[k] = o;
        break;
      }
      if (same_op(c, table[k], o)) {
        opt_replace(c, o->results[0], table[k]->results[0]);
        opt_note(c, o->loc, "removed %s: the same as the one at %d:%d",
                 op_table[o->kind].name, table[k]->loc.line, table[k]->loc.col);
        break;
      }
    }
  }
  free(table);
}

static bool identity_perm(const attr *p) {
  for (int i = 0; p && i < p->n; i++)
    if (p->ints[i] != i)
      return false;
  return p != NULL;
}

/* A reshape of a reshape reads the inner one's input; reshapes to the same
 * shape, identity transposes and tosa.identity stand for their input. */
static void simplify_views(opt_ctx *c) {
  graph *g = c->g;
  for (int i = 0; i < g->nops; i++) {
    op *o = g->ops[i];
    if (o->nresults != 1 || o->noperands < 1)
      continue;
    value *x = opt_get(c, o->operands[0]), *r = o->results[0];
    if (c->pinned[r->id])
      continue;
    bool same_type = x->type == r->type;
    if ((o->kind == OP_IDENTITY && same_type) ||
        (o->kind == OP_RESHAPE && same_type) ||
        (o->kind == OP_TRANSPOSE && same_type &&
         identity_perm(op_attr(o, "perms")))) {
      opt_replace(c, r, x);
      opt_note(c, o->loc, "removed %s: it changes nothing",
               op_table[o->kind].name);
    } else if (o->kind == OP_RESHAPE && x->def && x->def->kind == OP_RESHAPE) {
      value *inner = opt_get(c, x->def->operands[0]);
      o->operands[0] = inner;
      c->changed = true;
      opt_note(c, o->loc,
               "tosa.reshape of a tosa.reshape reads the first one's input");
    }
  }
}

/* Do a and b hold the same dims once their leading 1s are dropped (a reshape between them
 * only adds or removes leading unit dims, so both index their elements alike from the last dim
 * on)? */
static bool same_but_leading_ones(const tensor_type *a, const tensor_type *b) {
  int i = 0, j = 0;
  while (i < a->rank && a->dims[i] == 1)
    i++;
  while (j < b->rank && b->dims[j] == 1)
    j++;
  if (a->rank - i != b->rank - j)
    return false;
  for (; i < a->rank; i++, j++)
    if (a->dims[i] != b->dims[j])
      return false;
  return true;
}

/* t with rank `rank`: leading 1s added or dropped (false when a dropped dim is not 1). */
static bool to_rank(const tensor_type *t, int rank, tensor_type *out) {
  *out = *t;
  out->rank = rank;
  int shift = rank - t->rank;
  for (int d = 0; d < rank; d++)
    out->dims[d] = d - shift >= 0 ? t->dims[d - shift] : 1;
  for (int d = 0; d < -shift; d++)
    if (t->dims[d] != 1)
      return false;
  return true;
}

/* The elementwise ops a GEMM epilogue applies whose other operands may be constants. */
static bool epilogue_kind(const op *o) {
  switch (o->kind) {
  case OP_ADD: case OP_SUB: case OP_MUL: case OP_MAXIMUM: case OP_MINIMUM: case OP_CLAMP: return true;
  default: return false;
  }
}

/* e(reshape(y), constants) with y a matmul's or convolution's result and a reshape that only
 * adds or removes leading unit dims (the classifier's [1,1,N] -> [1,N] before its bias add)
 * becomes reshape(e(y, constants')): the op then reads the GEMM's result in its own shape and
 * fuses into its epilogue, and the reshape is a view. The constants get y's rank (same bytes). */
static void sink_unit_reshapes(opt_ctx *c) {
  graph *g = c->g;
  for (int i = 0; i < g->nops; i++) {
    op *e = g->ops[i];
    if (!epilogue_kind(e) || e->nresults != 1 || e->noperands < 1)
      continue;
    value *r = opt_get(c, e->operands[0]);
    op *rs = r->def;
    if (!rs || rs->kind != OP_RESHAPE || c->uses[r->id] != 1 || c->pinned[r->id])
      continue;
    value *y = opt_get(c, rs->operands[0]);
    if (!y->def || op_table[y->def->kind].family != FAM_MATMUL || y->type->rank == r->type->rank ||
        !same_but_leading_ones(y->type, r->type))
      continue;
    int ndata = e->kind == OP_MUL ? 2 : e->kind == OP_CLAMP ? 1 : 2;
    value *ops[8] = {y};
    bool ok = e->noperands <= 8;
    for (int j = 1; ok && j < e->noperands; j++) {
      value *a = opt_get(c, e->operands[j]);
      const dense_data *d = opt_const_data(a);
      ops[j] = a;
      if (j >= ndata)
        continue; /* a mul's shift */
      tensor_type t;
      if (!d || a->type->rank != r->type->rank || !to_rank(a->type, y->type->rank, &t)) {
        ok = false;
        break;
      }
      dense_data *nd = arena_alloc(c->a, sizeof *nd);
      *nd = *d;
      nd->type = t;
      nd->type.elem = a->type->elem;
      ops[j] = opt_add_const(c, e, nd, a->def->loc);
    }
    if (!ok)
      continue;
    tensor_type et = *y->type;
    et.elem = e->results[0]->type->elem;
    op *n = opt_add_copy(c, e, e, ops, e->noperands, &et);
    op *back = opt_add_op(c, OP_RESHAPE, e, n->results, 1, e->results[0]->type, rs->loc);
    opt_set_ints(c, back, "new_shape", e->results[0]->type->dims, e->results[0]->type->rank);
    opt_replace(c, e->results[0], back->results[0]);
    opt_note(c, e->loc, "%s reads the %s result in its own shape: the reshape moved below it",
             op_table[e->kind].name, op_table[y->def->kind].name);
  }
}

bool opt_cleanup(opt_ctx *c) {
  opt_count_uses(c);
  simplify_views(c);
  eliminate_common(c);
  sink_unit_reshapes(c);
  return true;
}
