/* attention.c: recognises scaled dot-product attention as TOSA producers write it, so that
 * fuse.c can give the whole chain one flash-attention kernel (docs/partitioning.md,
 * "Attention"):
 *
 *   s = matmul(Q, K^T)          [B, S, L]     (K^T a tensor, a view or a transpose's result)
 *   [cast] [mul scale] [add mask] ...          elementwise, each read once, other operands
 *                                               from outside the pattern
 *   m = reduce_max(s, axis 2); e = exp(sub(s, m))
 *   p = mul(e, reciprocal(reduce_sum(e, axis 2)))   [cast]
 *   o = matmul(p, V)            [B, S, Dv]    [cast]
 *
 * Every intermediate must be read only inside the pattern and be no graph result; anything
 * else leaves the ops to the ordinary kernels. */
#include "partition.h"

#include "frontend/frontend.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

bool part_attention_disabled(void) {
  const char *e = getenv("TOSAC_NO_ATTENTION_FUSION");
  return e && *e && strcmp(e, "0") != 0;
}

typedef struct matcher {
  const graph *g;
  const target_info *t;
  const char *live;
  const int *use_start, *uses;
  const char *is_result;
  const op *ops[64];
  int nops;
} matcher;

/* The live readers of v; returns their count (up to max stored in u). */
static int readers(const matcher *m, const value *v, const op **u, int max) {
  int n = 0;
  for (int k = m->use_start[v->id]; k < m->use_start[v->id + 1]; k++) {
    const op *r = m->g->ops[m->uses[k]];
    if (!m->live[r->id])
      continue;
    if (n < max)
      u[n] = r;
    n++;
  }
  return n;
}

/* The single live reader of v, when v is no graph result; NULL otherwise. */
static const op *only_reader(const matcher *m, const value *v) {
  const op *u[1];
  if (m->is_result[v->id] || readers(m, v, u, 1) != 1)
    return NULL;
  return u[0];
}

static bool take(matcher *m, const op *o) {
  if (m->nops >= (int)(sizeof m->ops / sizeof m->ops[0]))
    return false;
  m->ops[m->nops++] = o;
  return true;
}

static bool last_axis(const op *o) {
  return op_attr_int(o, "axis", -1) == o->operands[0]->type->rank - 1;
}

static bool float3(const value *v) {
  return v->type->rank == 3 && elem_type_is_float(v->type->elem) && !elem_type_is_f8(v->type->elem) &&
         v->type->elem != ET_F64;
}

/* The fp8 form (docs/kernels-attention.md "The fp8 path"): Q, K and V in the 8-bit float type
 * `et`, and P cast to it for the second matmul, on a target with a 16 x 16 MFMA for that type
 * (FNUZ types on gfx942, OCP ones on gfx950), whose flash kernel is then the only variant: its
 * Vᵀ fragments need Dv in whole 16-column tiles. Elsewhere the ops stay unfused. */
static bool fp8_operand(const matcher *m, const value *v, elem_type et) {
  if (v->type->rank != 3 || v->type->elem != et || !elem_type_is_f8(et))
    return false;
  for (int i = 0; i < target_matrix_count; i++) {
    const target_matrix *r = &target_matrix_table[i];
    if (!strcmp(r->target, m->t->name) && r->in == et && r->layout == MATRIX_MFMA && r->m == 16 &&
        r->n == 16)
      return true;
  }
  return false;
}

/* Elementwise ops allowed between the first matmul and the softmax: they are evaluated per
 * score element, with their other operands broadcast over [B, S, L]. */
static bool score_op(const op *o, const value *chain) {
  switch (o->kind) {
  case OP_CAST:
    return float3(o->results[0]);
  case OP_SELECT: /* masked_fill: select(keep, s, -inf) */
    return o->operands[0] != chain && o->operands[0]->type->rank == 3 && o->operands[0]->type->elem == ET_I1 &&
           (o->operands[1] == chain) != (o->operands[2] == chain) && o->operands[1]->type->rank == 3 &&
           o->operands[2]->type->rank == 3 && float3(o->results[0]);
  case OP_ADD: case OP_SUB: case OP_MUL: case OP_MAXIMUM: case OP_MINIMUM:
    for (int j = 0; j < 2; j++)
      if (o->operands[j] != chain && o->operands[j]->type->rank != 3)
        return false;
    return o->operands[0] != o->operands[1] && float3(o->results[0]);
  default:
    return false;
  }
}

/* The value other than x among o's first two operands, or NULL when x is not one of them. */
static const value *other(const op *o, const value *x) {
  if (o->operands[0] == x)
    return o->operands[1];
  if (o->operands[1] == x)
    return o->operands[0];
  return NULL;
}

/* Transposes between an operand and the buffer it comes from (through views: the head split
 * reshape -> transpose -> reshape) join the pattern when each link is read only by the next:
 * the kernel then reads the buffer through the permuted index map, and no copy kernel runs. */
static bool absorb_in(matcher *m, const value *x) {
  for (int hops = 0; hops < 8; hops++) {
    const op *d = x->def, *u[1];
    if (!d || m->is_result[x->id] || readers(m, x, u, 1) != 1)
      return true;
    if (d->kind == OP_TRANSPOSE && !part_is_view(d) && op_attr(d, "perms")) {
      if (!take(m, d))
        return false;
    } else if (!part_is_view(d)) {
      return true;
    }
    x = d->operands[0];
  }
  return true;
}

/* The same for the result: views and transposes after the second matmul, up to the last
 * transpose; the kernel stores through that index map. */
static bool absorb_out(matcher *m, const value *x) {
  for (int hops = 0; hops < 8; hops++) {
    const op *u = only_reader(m, x);
    if (!u)
      return true;
    if (u->kind == OP_TRANSPOSE && !part_is_view(u) && op_attr(u, "perms")) {
      if (!take(m, u))
        return false;
    } else if (!part_is_view(u)) {
      return true;
    }
    x = u->results[0];
  }
  return true;
}

/* Match the pattern starting at matmul mm; the ops land in m->ops (topological). */
static bool match_from(matcher *m, const op *mm) {
  m->nops = 0;
  const value *q = mm->operands[0], *kt = mm->operands[1];
  elem_type f8 = elem_type_is_f8(q->type->elem) ? q->type->elem : ET_F32; /* ET_F32: no fp8 form */
  bool fp8 = f8 != ET_F32;
  if (fp8 ? !fp8_operand(m, q, f8) || !fp8_operand(m, kt, f8) || !float3(mm->results[0])
          : !float3(q) || !float3(kt))
    return false;
  if (!take(m, mm))
    return false;
  const value *s = mm->results[0];
  const op *u;
  for (;;) { /* the score chain up to the value both the max and the subtraction read */
    const op *rd[3];
    int n = m->is_result[s->id] ? 0 : readers(m, s, rd, 3);
    if (n == 2)
      break;
    if (n != 1 || !score_op(rd[0], s) || !take(m, rd[0]))
      return false;
    s = rd[0]->results[0];
  }
  const op *rd[2];
  readers(m, s, rd, 2);
  const op *mx = rd[0]->kind == OP_REDUCE_MAX ? rd[0] : rd[1];
  const op *sb = mx == rd[0] ? rd[1] : rd[0];
  if (mx->kind != OP_REDUCE_MAX || !last_axis(mx) || sb->kind != OP_SUB ||
      sb->operands[0] != s || sb->operands[1] != mx->results[0] ||
      only_reader(m, mx->results[0]) != sb)
    return false;
  const op *ex = only_reader(m, sb->results[0]);
  if (!ex || ex->kind != OP_EXP)
    return false;
  const value *e = ex->results[0];
  if (m->is_result[e->id] || readers(m, e, rd, 2) != 2)
    return false;
  const op *sum = rd[0]->kind == OP_REDUCE_SUM ? rd[0] : rd[1];
  const op *mul = sum == rd[0] ? rd[1] : rd[0];
  if (sum->kind != OP_REDUCE_SUM || !last_axis(sum) || mul->kind != OP_MUL)
    return false;
  const op *rc = only_reader(m, sum->results[0]);
  if (!rc || rc->kind != OP_RECIPROCAL || only_reader(m, rc->results[0]) != mul ||
      other(mul, e) != rc->results[0])
    return false;
  if (!take(m, mx) || !take(m, sb) || !take(m, ex) || !take(m, sum) || !take(m, rc) || !take(m, mul))
    return false;
  const value *p = mul->results[0];
  u = only_reader(m, p);
  if (u && u->kind == OP_CAST) {
    if (!take(m, u))
      return false;
    p = u->results[0];
    u = only_reader(m, p);
  }
  /* the fp8 form's P is cast to the operands' type; without it P stays a float3 */
  if (!u || u->kind != OP_MATMUL || u->operands[0] != p || !take(m, u))
    return false;
  if (fp8 ? !fp8_operand(m, p, f8) || !fp8_operand(m, u->operands[1], f8) || !float3(u->results[0])
          : !float3(u->operands[1]))
    return false;
  const value *o = u->results[0], *v = u->operands[1];
  if (v->type->dims[1] != kt->type->dims[2] || q->type->dims[2] > PART_ATTENTION_MAX_HEAD ||
      v->type->dims[2] > PART_ATTENTION_MAX_HEAD || (fp8 && v->type->dims[2] % 16))
    return false;
  const op *c = only_reader(m, o);
  if (c && c->kind == OP_CAST && float3(c->results[0])) {
    if (!take(m, c))
      return false;
    o = c->results[0];
  }
  return absorb_in(m, q) && absorb_in(m, kt) && absorb_in(m, v) && absorb_out(m, o);
}

/* Stable order of the matched ops: graph (topological) order. */
static int cmp_op_id(const void *x, const void *y) {
  int a = (*(const op *const *)x)->id, b = (*(const op *const *)y)->id;
  return (a > b) - (a < b);
}

int part_attention_find(const graph *g, const target_info *t, const char *live, const int *use_start,
                        const int *uses, const char *is_result, int *att) {
  for (int i = 0; i < g->nops; i++)
    att[g->ops[i]->id] = -1;
  if (part_attention_disabled() || part_fusion_disabled())
    return 0;
  matcher m = {.g = g, .t = t, .live = live, .use_start = use_start, .uses = uses, .is_result = is_result};
  int n = 0;
  for (int i = 0; i < g->nops; i++) {
    const op *o = g->ops[i];
    if (o->kind != OP_MATMUL || !live[o->id] || att[o->id] >= 0 || !match_from(&m, o))
      continue;
    bool free_ops = true; /* an op can belong to one pattern only */
    for (int j = 0; j < m.nops; j++)
      free_ops &= att[m.ops[j]->id] < 0;
    if (!free_ops)
      continue;
    qsort(m.ops, (size_t)m.nops, sizeof m.ops[0], cmp_op_id);
    for (int j = 0; j < m.nops; j++)
      att[m.ops[j]->id] = n;
    n++;
  }
  return n;
}

/* ---------------------------------------------------------------- causal masks
 * A score op that masks with a constant whose masked keys of query i are
 * exactly the keys j > i + o (o >= 0, the same for every batch entry) makes the
 * kernel causal: a query block needs no key past its last query's i + o,
 * because every later key is masked for all its rows. "Masked" means a
 * probability that is exactly 0 in f32 whatever the scores: an additive value
 * at or below CAUSAL_MASKED (-inf, torch's finfo.min, -1e9, BERT's -10000), or
 * a select taking a splat at or below it; the ops after the mask must keep it
 * there (casts, adds and subtractions of other values, minimum, multiplies by
 * positive splats that leave it below CAUSAL_ZERO_EXP, whose exp underflows to
 * 0 against the row's maximum). */
#define CAUSAL_MASKED (-1e4)
#define CAUSAL_ZERO_EXP (-200.0)

/* The data of a constant (through views: reshapes and unit-dim transposes keep
 * the row-major order), else NULL. */
static const dense_data *const_data(const value *v) {
  const value *r = part_view_root(v);
  const attr *a = r->def && op_table[r->def->kind].family == FAM_CONST
                      ? op_attr(r->def, "values")
                      : NULL;
  return a && a->kind == ATTR_DENSE ? a->dense : NULL;
}

/* A splat constant's value, else NAN. */
static double splat_value(const value *v) {
  const dense_data *d = const_data(v);
  return d && (d->splat || tensor_numel(&d->type) == 1) ? fe_dense_float(d, 0)
                                                        : NAN;
}

/* The largest (sign 1) or smallest (sign -1) element of a constant; +inf when v
 * is none. */
static double const_extreme(const value *v, double sign) {
  const dense_data *d = const_data(v);
  if (!d || !elem_type_is_float(d->type.elem))
    return INFINITY;
  double best = -INFINITY;
  for (int64_t e = 0, n = d->splat ? 1 : tensor_numel(&d->type); e < n; e++)
    best = fmax(best, sign * fe_dense_float(d, e));
  return best;
}

/* The constant data of v when v is [1 or B, S, L] like the scores. */
static const dense_data *mask_data(const value *v, int64_t B, int64_t S,
                                   int64_t L) {
  const tensor_type *t = v->type;
  if (t->rank != 3 || (t->dims[0] != 1 && t->dims[0] != B) || t->dims[1] != S ||
      t->dims[2] != L)
    return NULL;
  const dense_data *d = const_data(v);
  return d && !d->splat && tensor_numel(&d->type) == tensor_numel(t) ? d : NULL;
}

/* Is the element at i masked: a value at or below the threshold (additive
 * masks), or a keep flag that is false (keep_is != flag, select masks)? */
static bool masked_at(const dense_data *d, int64_t i, int keep_is) {
  if (keep_is >= 0)
    return (fe_dense_int(d, i) != 0) != keep_is;
  return fe_dense_float(d, i) <= CAUSAL_MASKED;
}

/* The offset o when d masks exactly the keys j > i + o of every query i (o >=
 * 0, at least one key masked), else -1. */
static int64_t causal_offset(const dense_data *d, int64_t nb, int64_t S,
                             int64_t L, int keep_is) {
  int64_t o = 0;
  while (o < L && !masked_at(d, o, keep_is))
    o++;
  o--; /* row 0 keeps keys 0..o */
  if (o < 0 || o + 1 >= L)
    return -1;
  for (int64_t b = 0; b < nb; b++)
    for (int64_t i = 0; i < S; i++)
      for (int64_t j = 0; j < L; j++)
        if (masked_at(d, (b * S + i) * L + j, keep_is) != (j > i + o))
          return -1;
  return o;
}

bool part_attention_causal(const part_kernel *k, int64_t *offset) {
  const op *mm1 = NULL;
  for (int i = 0; i < k->nops && !mm1; i++)
    if (k->ops[i]->kind == OP_MATMUL)
      mm1 = k->ops[i];
  if (k->family != KF_ATTENTION || !mm1)
    return false;
  int64_t B = mm1->operands[0]->type->dims[0],
          S = mm1->operands[0]->type->dims[1];
  int64_t L = mm1->operands[1]->type->dims[2];
  const value *cur = mm1->results[0];
  int64_t off = -1;
  double below = 0; /* after the mask: the most a masked score can be, over the
                       mask's value */
  for (int i = 0; i < k->nops; i++) {
    const op *o = k->ops[i];
    if (o->kind == OP_REDUCE_MAX)
      break;
    if (op_table[o->kind].family != FAM_ELEMENTWISE || o->id < mm1->id)
      continue; /* constants, absorbed transposes */
    int at = o->operands[0] == cur                       ? 0
             : o->operands[1] == cur                     ? 1
             : o->noperands > 2 && o->operands[2] == cur ? 2
                                                         : -1;
    if (at < 0)
      return false;
    const value *x = o->operands[at == 0 ? 1 : 0];
    switch (o->kind) {
    case OP_CAST:
      break;
    case OP_ADD: {
      const dense_data *d = off < 0 ? mask_data(x, B, S, L) : NULL;
      int64_t c = d ? causal_offset(d, x->type->dims[0], S, L, -1) : -1;
      if (c >= 0) {
        double worst = -INFINITY;
        for (int64_t e = 0; e < tensor_numel(x->type); e++) {
          double f = fe_dense_float(d, e);
          if (f <= CAUSAL_MASKED && f > worst)
            worst = f;
        }
        off = c, below = worst;
      } else if (off >= 0 && below > -INFINITY) {
        below += const_extreme(
            x, 1); /* an input (+inf: unknown) can lift a finite mask */
      }
      break;
    }
    case OP_SUB: /* s - x; x - s turns a masked score into a large one */
      if (at != 0)
        return false;
      below += off >= 0 && below > -INFINITY ? const_extreme(x, -1) : 0;
      break;
    case OP_MINIMUM:
      break;
    case OP_MUL: {
      double f = splat_value(x);
      if (!(f > 0) || isinf(f))
        return false;
      below *= f;
      break;
    }
    case OP_SELECT: { /* select(keep, s, fill) or select(drop, fill, s) */
      if (at == 0)
        return false;
      double fill = splat_value(o->operands[at == 1 ? 2 : 1]);
      if (!(fill <= CAUSAL_MASKED))
        return false; /* a select that replaces masked scores by finite ones
                         unmasks them */
      const dense_data *d = off < 0 ? mask_data(o->operands[0], B, S, L) : NULL;
      int64_t c =
          d ? causal_offset(d, o->operands[0]->type->dims[0], S, L, at == 1)
            : -1;
      if (c >= 0)
        off = c, below = fill;
      else if (off >= 0)
        below = fmax(below, fill);
      break;
    }
    default:
      return false; /* maximum and others can lift a masked score */
    }
    cur = o->results[0];
  }
  if (off < 0 || !(below <= CAUSAL_ZERO_EXP))
    return false;
  *offset = off;
  return true;
}

/* ---------------------------------------------------------------- split-KV
 * (1:many) Decode-time attention (few query rows, a long KV sequence) gives the
 * attention kernel too few work-groups: B * ceil(S / 16) of them, each walking
 * all L keys. Split-KV cuts the keys into P chunks: a partial kernel (P times
 * the work-groups) writes each chunk's unnormalised output row, its running max
 * m and sum l into a workspace [P, B, S, Dv + 2] (f32), and a combine kernel
 * merges the chunks: M = max m_p, l = sum l_p e^(m_p - M), o = sum o_p e^(m_p -
 * M) / l, stored through the output's index map. P comes from the tuning
 * layer's estimate (cg_tune_splitkv). */
static const op *first_matmul(const part_kernel *k) {
  for (int i = 0; i < k->nops; i++)
    if (k->ops[i]->kind == OP_MATMUL)
      return k->ops[i];
  return NULL;
}

int part_attention_split_choose(const part_kernel *k, const target_info *t) {
  const op *mm1 = first_matmul(k);
  if (k->family != KF_ATTENTION || k->role != KR_PLAIN || !mm1)
    return 0;
  const tensor_type *q = mm1->operands[0]->type;
  int64_t L = mm1->operands[1]->type->dims[2],
          Dv = k->anchor->operands[1]->type->dims[2];
  const char *e = getenv("TOSAC_SPLIT_KV");
  int64_t want; /* forced, like TOSAC_SPLIT_K: 0 or 1 never splits */
  if (e && *e)
    want = strtol(e, NULL, 10);
  else
    want = cg_tune_splitkv(t, q->dims[0], q->dims[1], L, q->dims[2], Dv,
                           elem_type_bytes(q->elem), NULL);
  if (want < 2)
    return 0;
  int64_t chunk = cg_attention_chunk(L, (int)want);
  int64_t p = (L + chunk - 1) / chunk;
  return p >= 2 ? (int)p : 0;
}

bool part_attention_split_lastwg(const part_kernel *k, const target_info *t, int split) {
  const op *mm1 = first_matmul(k);
  if (k->family != KF_ATTENTION || !mm1 || split < 2)
    return false;
  const tensor_type *q = mm1->operands[0]->type, *kt = mm1->operands[1]->type,
                    *v = k->anchor->operands[1]->type;
  return cg_attention_takes_decode(t, q->elem, kt->elem, v->elem, q->dims[0], q->dims[1], kt->dims[2],
                                   q->dims[2], v->dims[2]) &&
         cg_tune_splitkv_lastwg(t, q->dims[0], q->dims[1], kt->dims[2], q->dims[2], v->dims[2],
                                elem_type_bytes(q->elem), split);
}

void part_attention_fixup_kernel(arena *a, partition_plan *p, int *bcap, const part_kernel *k, int split,
                                 part_kernel *fix) {
  const op *mm1 = first_matmul(k), *mm2 = k->anchor;
  int64_t B = mm1->operands[0]->type->dims[0];
  tensor_type pt = {.elem = ET_F32, .rank = 4, .dims = {split, B, mm1->operands[0]->type->dims[1],
                                                         mm2->operands[1]->type->dims[2] + 2}};
  tensor_type ct = {.elem = ET_I32, .rank = 1, .dims = {B}};
  part_fixup_kernel(a, p, bcap, k, split, "splitkv", &pt, &ct, fix);
}

void part_attention_print_split(FILE *out, const part_kernel *k,
                                const target_info *t) {
  const op *mm1 = first_matmul(k);
  if (k->family != KF_ATTENTION || (k->role != KR_PARTIAL && k->role != KR_FIXUP) || !mm1)
    return;
  const tensor_type *q = mm1->operands[0]->type;
  int64_t L = mm1->operands[1]->type->dims[2],
          Dv = k->anchor->operands[1]->type->dims[2];
  int eb = elem_type_bytes(q->elem);
  double at, one;
  cg_tune_splitkv_at(t, q->dims[0], q->dims[1], L, q->dims[2], Dv, eb,
                     k->split_count, &at);
  cg_tune_splitkv_at(t, q->dims[0], q->dims[1], L, q->dims[2], Dv, eb, 1, &one);
  fprintf(out,
          "    split-KV estimate: %d chunks %.2f us with the combine, one "
          "kernel %.2f us%s\n",
          k->split_count, at, one,
          k->role == KR_FIXUP ? "; merged by the last work-group" : "");
}

void part_attention_split_kernels(arena *a, partition_plan *p, int *bcap, const part_kernel *k,
                                  int split, part_kernel *part, part_kernel *comb) {
  const op *mm1 = first_matmul(k), *mm2 = k->anchor;
  value *pv = arena_alloc(a, sizeof *pv);
  pv->id = -1;
  pv->name = name_intern(a, arena_printf(a, "splitkv_partials_k%d", k->id));
  tensor_type pt = {.elem = ET_F32, .rank = 4};
  pt.dims[0] = split;
  pt.dims[1] = mm1->operands[0]->type->dims[0];
  pt.dims[2] = mm1->operands[0]->type->dims[1];
  pt.dims[3] = mm2->operands[1]->type->dims[2] + 2;
  pv->type = type_intern(a, &pt);
  part_buffer wb = {.id = p->nbuffers, .kind = BUF_WORKSPACE, .v = pv, .index = -1,
                    .bytes = tensor_bytes(pv->type), .align = 256};
  ARENA_PUSH(a, p->buffers, p->nbuffers, *bcap, wb);
  const value **pvals = arena_alloc(a, sizeof(value *));
  int *pbuf = arena_alloc(a, sizeof(int));
  pvals[0] = pv;
  pbuf[0] = wb.id;
  *part = *k, *comb = *k;
  part->role = KR_PARTIAL;
  comb->role = KR_COMBINE;
  part->split_count = comb->split_count = split;
  part->out_bufs = pbuf, part->out_vals = pvals, part->nout = 1;
  comb->in_bufs = pbuf, comb->in_vals = pvals, comb->nin = 1;
}
