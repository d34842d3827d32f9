/* batchnorm.c: the "fold-batchnorm" pass (docs/optimize.md). A chain of
 * per-channel tosa.add / tosa.sub / tosa.mul / tosa.negate with constant
 * operands after a convolution, transpose convolution, fully connected layer
 * or matmul with constant weights is an affine map y * A[c] + B[c] of its
 * output channel c; it folds into the weights (W * A) and the bias (b * A + B).
 * Transposes and reshapes between the op and the chain (an NCHW exporter's
 * layout changes) are followed with the channel axis renamed, and repeated
 * on the new op's result. Float types only: integer and quantised chains stay
 * and fuse into the kernel's epilogue. */
#include "optimize.h"
#include "optimize/eval.h"

#include <string.h>

/* The op whose affine epilogue folds, and where its output channel lives. */
typedef struct anchor_info {
  int axis;      /* of the result */
  int64_t C;     /* output channels */
  int wi;        /* the weight operand */
  int bi;        /* the bias operand, -1: none (matmul) */
  bool per_dim0; /* the weight's channel is its first dimension, else its
                    flattened last dimensions (depthwise: C*M, matmul: W) */
} anchor_info;

static bool anchor_of(const op *o, anchor_info *a) {
  const tensor_type *r = o->results[0]->type;
  *a = (anchor_info){.axis = r->rank - 1, .wi = 1, .bi = 2, .per_dim0 = true};
  switch (o->kind) {
  case OP_CONV2D:
  case OP_CONV3D:
  case OP_TRANSPOSE_CONV2D:
  case OP_FULLY_CONNECTED:
    break;
  case OP_DEPTHWISE_CONV2D:
    if (op_attr(o, "out_pad")) /* transposed: the channel is not the weight's C*M */
      return false;
    a->per_dim0 = false;
    break;
  case OP_MATMUL:
    a->per_dim0 = false, a->bi = -1;
    break;
  default:
    return false;
  }
  a->C = r->rank ? r->dims[a->axis] : 0;
  return o->nresults == 1 && o->noperands > a->wi && o->noperands > a->bi &&
         a->C > 0;
}

/* Can a value of this type be scaled in double and rounded back? */
static bool foldable_float(elem_type t) {
  return t == ET_F32 || t == ET_F16 || t == ET_BF16 || t == ET_F64;
}

/* The channel axis after view op v (transpose or reshape) of a value whose
 * channel axis is axis; -1 when the view mixes the channel with other
 * dimensions. */
static int view_axis(const op *v, int axis, int64_t C) {
  const tensor_type *in = v->operands[0]->type, *out = v->results[0]->type;
  if (v->kind == OP_TRANSPOSE) {
    const attr *p = op_attr(v, "perms");
    if (!p || p->kind != ATTR_INTS || p->n != out->rank)
      return -1;
    for (int k = 0; k < out->rank; k++)
      if (p->ints[k] == axis)
        return k;
    return -1;
  }
  if (v->kind != OP_RESHAPE)
    return -1;
  int64_t outer = 1;
  for (int k = 0; k < axis; k++)
    outer *= in->dims[k];
  int64_t o = 1;
  for (int k = 0; k < out->rank; k++) {
    if (o == outer && out->dims[k] == C)
      return k;
    o *= out->dims[k];
  }
  return -1;
}

/* k holds one value per channel along axis of type t (or one for all). */
static bool per_channel(const dense_data *k, const tensor_type *t, int axis,
                        int64_t C) {
  if (tensor_numel(&k->type) == 1)
    return true;
  if (k->type.rank != t->rank)
    return false;
  for (int d = 0; d < t->rank; d++)
    if (k->type.dims[d] != 1 && !(d == axis && k->type.dims[d] == C))
      return false;
  return true;
}

/* The readers of every value when it has exactly one (after substitutions). */
static op **single_readers(opt_ctx *c) {
  op **r = arena_alloc(c->a, sizeof(op *) * (size_t)(c->nids + 1));
  for (int i = 0; i < c->g->nops; i++) {
    op *o = c->g->ops[i];
    for (int j = 0; j < o->noperands; j++) {
      value *v = opt_get(c, o->operands[j]);
      if (v->id >= 0 && v->id < c->nids)
        r[v->id] = o;
    }
  }
  return r;
}

/* The op reading v when it is v's only reader and may be rewritten. */
static op *only_reader(opt_ctx *c, op **readers, value *v) {
  if (v->id < 0 || v->id >= c->nids || c->uses[v->id] != 1 || c->pinned[v->id])
    return NULL;
  return readers[v->id];
}

typedef struct chain {
  op *views[TOSAC_MAX_RANK * 2];
  int nviews;
  int axis; /* of the chain's values */
  double *A, *B;
  int nops;   /* affine ops taken */
  bool muls;  /* some op scales */
  value *end; /* the last affine op's result */
} chain;

/* One affine op u reading x: A, B updated; false when u is not per-channel
 * affine in x. */
static bool take_affine(opt_ctx *c, chain *ch, op *u, value *x, int64_t C) {
  if (u->kind != OP_ADD && u->kind != OP_SUB && u->kind != OP_MUL &&
      u->kind != OP_NEGATE)
    return false;
  const tensor_type *t = x->type;
  if (!tensor_type_equal(u->results[0]->type, t))
    return false;
  if (u->kind == OP_NEGATE) {
    for (int64_t k = 0; k < C; k++)
      ch->A[k] = -ch->A[k], ch->B[k] = -ch->B[k];
    ch->muls = true;
    return true;
  }
  if (u->kind == OP_MUL && op_attr_int(u, "shift", 0))
    return false;
  value *a = opt_get(c, u->operands[0]), *b = opt_get(c, u->operands[1]);
  bool x_first = a == x;
  const dense_data *k = opt_const_data(x_first ? b : a);
  if ((!x_first && b != x) || !k || !per_channel(k, t, ch->axis, C))
    return false;
  bool one = tensor_numel(&k->type) == 1;
  for (int64_t i = 0; i < C; i++) {
    double kv = ev_float(k, one ? 0 : i);
    if (u->kind == OP_ADD)
      ch->B[i] += kv;
    else if (u->kind == OP_SUB && x_first)
      ch->B[i] -= kv;
    else if (u->kind == OP_SUB) /* k - y */
      ch->A[i] = -ch->A[i], ch->B[i] = kv - ch->B[i];
    else
      ch->A[i] *= kv, ch->B[i] *= kv;
  }
  ch->muls |= u->kind != OP_ADD;
  return true;
}

/* The chain after anchor o: views, then affine ops; false when there is none.
 */
static bool find_chain(opt_ctx *c, op **readers, op *o, const anchor_info *ai,
                       chain *ch) {
  value *v = o->results[0];
  ch->axis = ai->axis;
  op *u;
  while ((u = only_reader(c, readers, v)) &&
         (u->kind == OP_TRANSPOSE || u->kind == OP_RESHAPE) &&
         ch->nviews < (int)(sizeof ch->views / sizeof *ch->views)) {
    int ax = view_axis(u, ch->axis, ai->C);
    if (ax < 0)
      return false;
    ch->views[ch->nviews++] = u;
    ch->axis = ax;
    v = u->results[0];
  }
  ch->A = arena_alloc(c->a, sizeof(double) * (size_t)ai->C);
  ch->B = arena_alloc(c->a, sizeof(double) * (size_t)ai->C);
  for (int64_t i = 0; i < ai->C; i++)
    ch->A[i] = 1;
  while ((u = only_reader(c, readers, v)) && take_affine(c, ch, u, v, ai->C)) {
    ch->nops++;
    v = u->results[0];
    ch->end = v;
    if (c->pinned[v->id] || c->uses[v->id] != 1)
      break;
  }
  return ch->nops > 0;
}

/* f32 weights of C channels x per elements (channel first, or last when
 * !per_dim0) times A[channel], computed in double and rounded once: what
 * ev_store(ev_float(w) * A) gives, without the per-element conversions.
 * dst may be src. */
static void scale_f32(uint8_t *dst, const uint8_t *src, int64_t per,
                      const anchor_info *ai, const double *A) {
  for (int64_t o = 0; o < (ai->per_dim0 ? ai->C : per); o++)
    for (int64_t i = 0; i < (ai->per_dim0 ? per : ai->C); i++) {
      int64_t e = o * (ai->per_dim0 ? per : ai->C) + i;
      float x;
      memcpy(&x, src + 4 * e, 4);
      x = (float)((double)x * A[ai->per_dim0 ? o : i]);
      memcpy(dst + 4 * e, &x, 4);
    }
}

/* W scaled per output channel by A, rounded to W's type. */
static const dense_data *scaled_weight(opt_ctx *c, const dense_data *w,
                                       const anchor_info *ai, const double *A) {
  int64_t n = tensor_numel(&w->type);
  if (ai->C <= 0 || n % ai->C)
    return NULL;
  dense_data *r = ev_new(c->a, &w->type, false);
  int64_t per = n / ai->C;
  if (w->type.elem == ET_F32 && !w->splat) {
    scale_f32((uint8_t *)r->bytes, w->bytes, per, ai, A);
    return r;
  }
  for (int64_t e = 0; e < n; e++) {
    int64_t oc = ai->per_dim0 ? e / per : e % ai->C;
    ev_store(r, e, 0, ev_float(w, e) * A[oc]);
  }
  return r;
}

static const dense_data *new_bias(opt_ctx *c, const dense_data *b,
                                  const anchor_info *ai, const chain *ch) {
  int64_t n = tensor_numel(&b->type);
  if (n != 1 && n != ai->C)
    return NULL;
  tensor_type t = {.elem = b->type.elem, .rank = 1, .dims = {ai->C}};
  dense_data *r = ev_new(c->a, &t, false);
  for (int64_t i = 0; i < ai->C; i++)
    ev_store(r, i, 0, ev_float(b, n == 1 ? 0 : i) * ch->A[i] + ch->B[i]);
  return r;
}

static bool any_nonzero(const double *v, int64_t n) {
  for (int64_t i = 0; i < n; i++)
    if (v[i] != 0)
      return true;
  return false;
}

/* Does o qualify as an anchor, judging by itself (types and constant weights)?
 */
static bool anchor_candidate(opt_ctx *c, const op *o, anchor_info *ai) {
  if (!anchor_of(o, ai) || !foldable_float(o->results[0]->type->elem))
    return false;
  const dense_data *w = opt_const_data(opt_get(c, o->operands[ai->wi]));
  return w && foldable_float(w->type.elem);
}

static void fold_anchor(opt_ctx *c, op **readers, op *o) {
  anchor_info ai;
  if (!anchor_candidate(c, o, &ai))
    return;
  value *wv = opt_get(c, o->operands[ai.wi]);
  value *bv = ai.bi >= 0 ? opt_get(c, o->operands[ai.bi]) : NULL;
  const dense_data *w = opt_const_data(wv);
  const dense_data *b = bv ? opt_const_data(bv) : NULL;
  if (!w || (bv && !b) || !foldable_float(w->type.elem) ||
      (b && !foldable_float(b->type.elem)))
    return;
  chain ch = {0};
  if (!find_chain(c, readers, o, &ai, &ch))
    return;
  bool shift = any_nonzero(ch.B, ai.C);
  if (!b && !ch.muls) /* a matmul with an add only: nothing for its weights */
    return;
  const dense_data *nb = b ? new_bias(c, b, &ai, &ch) : NULL;
  if (b && !nb)
    return;
  /* Weights a fold made (torch's transposed weights) are scaled where they
   * are, the last step of the rewrite: the folded graph then holds one copy
   * of them, not two. */
  int64_t wn = tensor_numel(&w->type);
  dense_data *own = ch.muls && w->type.elem == ET_F32 && wn % ai.C == 0
                        ? opt_exclusive_data(c, wv)
                        : NULL;
  const dense_data *nw = own       ? own
                         : ch.muls ? scaled_weight(c, w, &ai, ch.A)
                                   : w;
  if (!nw)
    return;
  if (own)
    scale_f32((uint8_t *)own->bytes, own->bytes, wn / ai.C, &ai, ch.A);
  value **operands = arena_alloc(c->a, sizeof(value *) * (size_t)o->noperands);
  for (int j = 0; j < o->noperands; j++)
    operands[j] = opt_get(c, o->operands[j]);
  operands[ai.wi] = nw == w ? wv : opt_add_const(c, o, nw, wv->loc);
  if (b)
    operands[ai.bi] = opt_add_const(c, o, nb, bv->loc);
  value *v = opt_add_copy(c, o, o, operands, o->noperands, o->results[0]->type)
                 ->results[0];
  if (!b && shift) { /* matmul: the shift stays as one add, channel last */
    const tensor_type *t = o->results[0]->type;
    tensor_type kt = {.elem = t->elem, .rank = t->rank};
    for (int d = 0; d < t->rank; d++)
      kt.dims[d] = d == ai.axis ? ai.C : 1;
    dense_data *k = ev_new(c->a, &kt, false);
    for (int64_t i = 0; i < ai.C; i++)
      ev_store(k, i, 0, ch.B[i]);
    value *add[2] = {v, opt_add_const(c, o, k, o->loc)};
    v = opt_add_op(c, OP_ADD, o, add, 2, t, o->loc)->results[0];
  }
  for (int i = 0; i < ch.nviews; i++) {
    op *view = ch.views[i];
    v = opt_add_copy(c, view, view, &v, 1, view->results[0]->type)->results[0];
  }
  opt_replace(c, ch.end, v);
  opt_note(c, o->loc, "folded %d per-channel op%s after %s into its weights%s",
           ch.nops, ch.nops == 1 ? "" : "s", op_table[o->kind].name,
           b ? " and bias" : "");
}

bool opt_fold_batchnorm(opt_ctx *c) {
  int n = c->g->nops;
  anchor_info ai;
  bool any = false; /* the readers' table costs a pointer per value: only for
                       a graph with something to fold into */
  for (int i = 0; i < n && !any; i++)
    any = anchor_candidate(c, c->g->ops[i], &ai);
  if (!any)
    return true;
  opt_count_uses(c);
  op **readers = single_readers(c);
  for (int i = 0; i < n; i++)
    fold_anchor(c, readers, c->g->ops[i]);
  return true;
}
