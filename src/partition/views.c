/* views.c: ops that only reinterpret their input's bytes (reshape, identity, a transpose that
 * moves unit dims) become aliases of the input's buffer instead of copy kernels. */
#include "partition.h"

#include <stdlib.h>
#include <string.h>

bool part_fusion_disabled(void) {
  const char *e = getenv("TOSAC_NO_FUSION");
  return e && *e && strcmp(e, "0") != 0;
}

/* A transpose keeps row-major order when the dims larger than 1 stay in their relative order:
 * only unit dims move, and a unit dim contributes nothing to any element's offset. */
static bool moves_only_unit_dims(const op *o) {
  const attr *p = op_attr(o, "perms");
  const tensor_type *in = o->operands[0]->type;
  if (!p || p->kind != ATTR_INTS || p->n != in->rank)
    return false;
  int last = -1;
  for (int i = 0; i < p->n; i++) {
    int64_t d = p->ints[i];
    if (d < 0 || d >= in->rank)
      return false;
    if (in->dims[d] == 1)
      continue;
    if (d < last)
      return false;
    last = (int)d;
  }
  return true;
}

bool part_is_view(const op *o) {
  if (o->nresults != 1 || o->noperands != 1 || part_fusion_disabled())
    return false;
  const tensor_type *in = o->operands[0]->type, *out = o->results[0]->type;
  if (in->elem != out->elem || in->elem == ET_INDEX || tensor_numel(in) != tensor_numel(out))
    return false;
  switch (o->kind) {
  case OP_RESHAPE:
  case OP_IDENTITY: return true;
  case OP_TRANSPOSE: return moves_only_unit_dims(o);
  default: return false;
  }
}

const value *part_view_root(const value *v) {
  while (v->def && part_is_view(v->def))
    v = v->def->operands[0];
  return v;
}

/* ---------------------------------------------------------------- operand views */

static bool in_kernel(const part_kernel *k, const op *o) {
  for (int i = 0; i < k->nops; i++)
    if (k->ops[i] == o)
      return true;
  return false;
}

bool part_is_operand_view(const part_kernel *k, const op *o) {
  if ((o->kind != OP_TRANSPOSE && o->kind != OP_SLICE) || o->nresults != 1 || o == k->anchor)
    return false;
  for (int i = 0; i < k->nops; i++)
    for (int j = 0; j < k->ops[i]->noperands; j++)
      if (k->ops[i]->operands[j] == o->results[0])
        return true;
  return false;
}

/* The chain of view ops of k computing v, innermost (nearest the kernel input) last. */
static int view_chain(const part_kernel *k, const value *v, const op **chain, int cap) {
  int n = 0;
  while (n < cap && v->def && in_kernel(k, v->def) && part_is_operand_view(k, v->def)) {
    chain[n++] = v->def;
    v = v->def->operands[0];
  }
  return n;
}

void part_operand_strides(const part_kernel *k, const value *v, part_strided *s) {
  const op *chain[16];
  int n = view_chain(k, v, chain, 16);
  const value *src = n ? chain[n - 1]->operands[0] : v;
  const tensor_type *t = src->type;
  s->src = src;
  s->offset = 0;
  int64_t step = 1;
  for (int d = t->rank - 1; d >= 0; d--)
    s->stride[d] = step, step *= t->dims[d];
  for (int i = n - 1; i >= 0; i--) { /* from the source toward v */
    const op *o = chain[i];
    int rank = o->results[0]->type->rank;
    if (o->kind == OP_SLICE) {
      const attr *st = op_attr(o, "start");
      for (int d = 0; st && d < rank && d < st->n; d++)
        s->offset += st->ints[d] * s->stride[d];
      continue;
    }
    const attr *p = op_attr(o, "perms"); /* result dim d is input dim p[d] */
    int64_t in[TOSAC_MAX_RANK];
    memcpy(in, s->stride, sizeof in);
    for (int d = 0; p && d < rank && d < p->n; d++)
      s->stride[d] = in[p->ints[d]];
  }
}

bool part_strided_is_plain(const part_strided *s, const tensor_type *t) {
  if (s->offset)
    return false;
  int64_t step = 1;
  for (int d = t->rank - 1; d >= 0; d--) {
    if (t->dims[d] != 1 && s->stride[d] != step)
      return false;
    step *= t->dims[d];
  }
  return true;
}

bool part_is_output_view(const part_kernel *k, const op *o) {
  return o->kind == OP_TRANSPOSE && o->noperands == 1 && o->nresults == 1 && k->anchor && o != k->anchor &&
         o->operands[0] == k->anchor->results[0] && in_kernel(k, o);
}

bool part_has_operand_views(const part_kernel *k) {
  for (int i = 0; i < k->nops; i++)
    if (part_is_operand_view(k, k->ops[i]))
      return true;
  return false;
}

bool part_has_output_view(const part_kernel *k) {
  for (int i = 0; i < k->nops; i++)
    if (part_is_output_view(k, k->ops[i]))
      return true;
  return false;
}

/* ---------------------------------------------------------------- slice views */

#define PART_VIEW_ALIGN 256

bool part_slice_offset(const op *o, int64_t *offset) {
  if (o->kind != OP_SLICE || o->nresults != 1 || o->noperands != 1)
    return false;
  const tensor_type *in = o->operands[0]->type, *out = o->results[0]->type;
  const attr *st = op_attr(o, "start");
  /* whole bytes per element: a pointer offset cannot start inside a byte */
  if (in->elem != out->elem || in->rank != out->rank || in->elem == ET_INDEX || elem_type_bits(in->elem) < 8 ||
      tensor_numel(out) <= 0 || !st || st->kind != ATTR_INTS || st->n != in->rank)
    return false;
  int p = 0; /* the first dim keeping more than one index (the last if none) */
  while (p < out->rank - 1 && out->dims[p] == 1)
    p++;
  for (int d = p + 1; d < out->rank; d++)
    if (out->dims[d] != in->dims[d])
      return false;
  int64_t step = 1, off = 0;
  for (int d = in->rank - 1; d >= 0; d--) {
    if (st->ints[d] < 0 || st->ints[d] + out->dims[d] > in->dims[d])
      return false;
    off += st->ints[d] * step;
    step *= in->dims[d];
  }
  /* kernels may assume of an argument the alignment every buffer has (the workspace's 256
   * bytes, buffers.c): a view starts on such a boundary of its buffer */
  if (off * elem_type_bytes(in->elem) % PART_VIEW_ALIGN)
    return false;
  *offset = off;
  return true;
}

bool *part_slice_views(arena *a, const graph *g) {
  if (part_fusion_disabled())
    return NULL;
  bool *sv = NULL;
  for (int i = 0; i < g->nops; i++) {
    const op *o = g->ops[i];
    int64_t off;
    if (o->kind == OP_COND_IF || o->kind == OP_WHILE_LOOP)
      return NULL; /* region buffers are bound by value (control.c): no offsets there */
    if (!part_slice_offset(o, &off))
      continue;
    /* a slice of a transpose stays with its readers, which read both through strides (operand
     * views, index maps): as a view it would make the transpose a copy kernel of its own */
    const value *src = part_view_root(o->operands[0]);
    if (src->def && src->def->kind == OP_TRANSPOSE)
      continue;
    if (!sv) {
      sv = arena_alloc(a, (size_t)g->nops + 1);
      memset(sv, 0, (size_t)g->nops + 1);
    }
    sv[o->id] = true;
  }
  /* a graph result owns its buffer from its first element: such a slice is copied */
  for (int r = 0; sv && r < g->nresults; r++) {
    const value *v = part_view_root(g->results[r]);
    if (v->def && v->def->kind == OP_SLICE)
      sv[v->def->id] = false;
  }
  return sv;
}

const value *part_bytes_root(const bool *slice_views, const value *v, int64_t *offset) {
  *offset = 0;
  v = part_view_root(v);
  int64_t off;
  while (slice_views && v->def && slice_views[v->def->id] && part_slice_offset(v->def, &off)) {
    *offset += off;
    v = part_view_root(v->def->operands[0]);
  }
  return v;
}

int64_t part_input_offset(const part_kernel *k, const value *v) {
  for (int i = 0; i < k->nin_offs; i++)
    if (k->in_off_vals[i] == v)
      return k->in_offs[i];
  return 0;
}

/* ---------------------------------------------------------------- concat views */

bool part_concat_views_disabled(void) {
  const char *e = getenv("TOSAC_NO_CONCAT_VIEWS");
  return part_fusion_disabled() || (e && *e && strcmp(e, "0") != 0);
}

bool *part_concat_views(arena *a, const graph *g, const target_info *t, int *group_of, int ngroups,
                        const char *grouped, const bool *slice_views, const int *reader) {
  if (part_concat_views_disabled())
    return NULL;
  bool any = false;
  for (int i = 0; i < g->nops; i++) {
    if (g->ops[i]->kind == OP_COND_IF || g->ops[i]->kind == OP_WHILE_LOOP)
      return NULL; /* region buffers are bound by value (control.c) */
    any |= g->ops[i]->kind == OP_CONCAT;
  }
  if (!any)
    return NULL;
  /* per group: its op count and its first two matmuls (an attention group has exactly two) */
  int *nops = arena_alloc(a, sizeof(int) * (size_t)(ngroups + 1));
  int *nmm = arena_alloc(a, sizeof(int) * (size_t)(ngroups + 1));
  const op **mm = arena_alloc(a, sizeof(op *) * 2 * (size_t)(ngroups + 1));
  memset(nops, 0, sizeof(int) * (size_t)(ngroups + 1));
  memset(nmm, 0, sizeof(int) * (size_t)(ngroups + 1));
  bool *cv = arena_alloc(a, (size_t)g->nops + 1);
  memset(cv, 0, (size_t)g->nops + 1);
  for (int i = 0; i < g->nops; i++) {
    const op *o = g->ops[i];
    int grp = group_of[o->id];
    if (grp >= 0) {
      nops[grp]++;
      if (o->kind == OP_MATMUL && nmm[grp]++ < 2)
        mm[2 * grp + nmm[grp] - 1] = o;
    }
    /* a slice view of a concatenation reads its bytes at an offset: it keeps its buffer */
    if (slice_views && slice_views[o->id]) {
      const value *r = part_view_root(o->operands[0]);
      if (r->def && r->def->kind == OP_CONCAT)
        cv[r->def->id] = true; /* refused, cleared below */
    }
  }
  any = false;
  for (int i = 0; i < g->nops; i++) {
    const op *o = g->ops[i];
    if (o->kind != OP_CONCAT)
      continue;
    bool refused = cv[o->id];
    cv[o->id] = false;
    int grp = group_of[o->id], rd = reader[o->results[0]->id];
    const tensor_type *rt = o->results[0]->type;
    int64_t ax = op_attr_int(o, "axis", -1);
    if (refused || grp < 0 || nops[grp] != 1 || rd < 0 || grouped[rd] || nmm[rd] != 2 ||
        elem_type_bits(rt->elem) < 8 || ax < 0 || ax >= rt->rank)
      continue;
    /* the reader is an attention kernel taking the decode variant, the one that reads its K and V
     * element by element through pointers (kernel_attention_decode.c) */
    const op *m1 = mm[2 * rd], *m2 = mm[2 * rd + 1];
    const tensor_type *q = m1->operands[0]->type, *kt = m1->operands[1]->type, *v = m2->operands[1]->type;
    if (q->rank != 3 || kt->rank != 3 || v->rank != 3 ||
        !cg_attention_takes_decode(t, q->elem, kt->elem, v->elem, q->dims[0], q->dims[1], kt->dims[2],
                                   q->dims[2], v->dims[2]))
      continue;
    bool ok = true; /* a piece is a buffer of its own (no concat view of a concat view) */
    for (int j = 0; j < o->noperands && ok; j++) {
      int64_t off;
      const value *r = part_bytes_root(slice_views, o->operands[j], &off);
      ok = !(r->def && r->def->kind == OP_CONCAT && cv[r->def->id]) && o->operands[j]->type->elem == rt->elem;
    }
    if (!ok)
      continue;
    cv[o->id] = true;
    group_of[o->id] = -1; /* its group is empty: no kernel */
    any = true;
  }
  return any ? cv : NULL;
}
