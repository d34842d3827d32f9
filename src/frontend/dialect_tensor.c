/* dialect_tensor.c: tensor ops on static shapes as TOSA data movement: extract_slice is
 * tosa.slice (+ reshape when it drops dimensions), insert_slice is slices of the destination
 * concatenated around the source, expand_shape / collapse_shape / reshape / cast are
 * tosa.reshape (or nothing), concat is tosa.concat, pad is tosa.pad with the yielded constant,
 * empty is a zero constant (its contents are undefined; every use overwrites or ignores them). */
#include "frontend/dialect.h"

#include <stdlib.h>
#include <string.h>

#define XD_LIST (2 * TOSAC_MAX_RANK)

static bool operand(xd_op *x) {
  fe_parser *p = x->m.p;
  if (p->tok.kind != T_VALUE) return fe_expect(p, T_VALUE, "(an operand)");
  x->in_tok[x->nin] = p->tok;
  x->in[x->nin++] = xd_find(x, p->tok);
  fe_next(p);
  return true;
}

/* `[a, b] ` into the named attribute (the generic form's name for it). */
static bool list_attr(xd_op *x, const char *name) {
  int64_t v[XD_LIST];
  int n;
  if (!xd_parse_int_list(x, v, XD_LIST, &n)) return false;
  xd_set_ints(x, name, v, n);
  return true;
}

/* `[offsets] [sizes] [strides]` of extract_slice / insert_slice. */
static bool slice_lists(xd_op *x) {
  return list_attr(x, "static_offsets") && list_attr(x, "static_sizes") && list_attr(x, "static_strides");
}

/* [[0, 1], [2]]: read and not needed (the result type says the shape). */
static bool skip_reassociation(xd_op *x) {
  fe_parser *p = x->m.p;
  if (p->tok.kind != T_LBRACKET) return fe_expect(p, T_LBRACKET, "(the reassociation [[...], ...])");
  return fe_skip_group(p);
}

static bool custom_syntax(xd_op *x) {
  fe_parser *p = x->m.p;
  const char *op = x->op;
  if (!strcmp(op, "empty")) {
    if (!fe_expect(p, T_LPAREN, "after 'tensor.empty'")) return false;
    if (p->tok.kind != T_RPAREN)
      return fe_error(p, fe_loc(p, p->tok), "'tensor.empty' with dynamic sizes is not supported (give a static type)");
    fe_next(p);
    if (!fe_expect(p, T_COLON, "before the result type")) return false;
    bool sc;
    x->has_out = true;
    if (!xd_parse_type(x, &x->out_t, &sc)) return false;
    fe_skip_loc(p);
    return true;
  }
  if (!strcmp(op, "concat")) {
    int64_t dim;
    if (!fe_tok_is(p, "dim")) return fe_error(p, fe_loc(p, p->tok), "expected 'dim(N)' after 'tensor.concat'");
    fe_next(p);
    if (!fe_expect(p, T_LPAREN, "after 'dim'")) return false;
    if (p->tok.kind != T_INT || !fe_tok_int(p, p->tok, &dim, NULL, NULL)) return fe_expect(p, T_INT, "(the dimension)");
    fe_next(p);
    if (!fe_expect(p, T_RPAREN, "after the dimension")) return false;
    attr a = {.name = "dim", .kind = ATTR_INT, .i = dim, .loc = x->m.loc};
    ARENA_PUSH(p->a, x->m.attrs, x->m.nattrs, x->m.capattrs, a);
    for (;;) {
      if (x->nin == XD_MAX_IN) return fe_error(p, fe_loc(p, p->tok), "too many operands");
      if (!operand(x)) return false;
      if (!fe_accept(p, T_COMMA)) break;
    }
    return xd_parse_tail(x);
  }
  if (!operand(x)) return false;
  if (!strcmp(op, "extract_slice")) {
    if (!slice_lists(x)) return false;
  } else if (!strcmp(op, "insert_slice")) {
    if (!fe_tok_is(p, "into")) return fe_error(p, fe_loc(p, p->tok), "expected 'into' after the source");
    fe_next(p);
    if (!operand(x) || !slice_lists(x)) return false;
  } else if (!strcmp(op, "expand_shape") || !strcmp(op, "collapse_shape")) {
    if (!skip_reassociation(x)) return false;
    if (fe_tok_is(p, "output_shape")) {
      fe_next(p);
      if (!list_attr(x, "static_output_shape")) return false;
    }
  } else if (!strcmp(op, "reshape")) {
    if (!fe_expect(p, T_LPAREN, "before the shape operand")) return false;
    if (!operand(x) || !fe_expect(p, T_RPAREN, "after the shape operand")) return false;
  }
  return xd_parse_tail(x);
}

/* tensor.pad's region: `{ ^bb0(%i: index, ...): [%c = arith.constant V : T] tensor.yield %c : T }`
 * (before the type in the custom form): the padding value. */
static bool pad_region(xd_op *x, double *v) {
  fe_parser *p = x->m.p;
  fe_token open = p->tok;
  if (!fe_expect(p, T_LBRACE, "to open tensor.pad's region")) return false;
  if (p->tok.kind == T_CARET) {
    fe_next(p);
    if (p->tok.kind == T_LPAREN && !fe_skip_group(p)) return false;
    if (!fe_expect(p, T_COLON, "after the block label")) return false;
  }
  fe_token cname = {0};
  const dense_data *local = NULL;
  if (p->tok.kind == T_VALUE) { /* %c = arith.constant 0.0 : f32 */
    cname = p->tok;
    fe_next(p);
    if (!fe_expect(p, T_EQUAL, "after the result name")) return false;
    if (!fe_tok_is(p, "arith.constant"))
      return fe_error(p, fe_loc(p, p->tok), "tensor.pad's region may hold an arith.constant and tensor.yield only");
    fe_next(p);
    attr a = {.name = "value"};
    fe_token lit = p->tok;
    if (!fe_parse_attr_value(p, &a)) return false;
    if (a.kind != ATTR_INT && a.kind != ATTR_FLOAT) return fe_error(p, a.loc, "expected a scalar constant (0.0 : f32)");
    if (!(local = fe_dense_scalar(p, lit, a.type_elem))) return false;
    fe_skip_loc(p);
  }
  bool generic = p->tok.kind == T_STRING && p->tok.n == 14 && !memcmp(p->tok.p, "\"tensor.yield\"", 14);
  if (!fe_tok_is(p, "tensor.yield") && !generic) {
    if (p->tok.kind == T_EOF) return fe_unterminated(p, open, "region");
    return fe_error(p, fe_loc(p, p->tok), "expected 'tensor.yield' in tensor.pad's region, found %s",
                    fe_tok_text(p, p->tok));
  }
  fe_next(p);
  if (generic && !fe_expect(p, T_LPAREN, "to start the operand list")) return false;
  fe_token vt = p->tok;
  if (vt.kind != T_VALUE) return fe_expect(p, T_VALUE, "after 'tensor.yield'");
  fe_next(p);
  if (generic && !fe_expect(p, T_RPAREN, "to close the operand list")) return false;
  const dense_data *d = NULL;
  if (local && vt.n == cname.n && !memcmp(vt.p, cname.p, (size_t)vt.n)) {
    d = local;
  } else {
    value *s = fe_scope_find(p, x->m.fs, vt);
    if (!s) return false;
    if (s->id != FE_SCALAR_ID)
      return fe_error(p, fe_loc(p, vt), "tensor.pad's padding value '%.*s' must be a scalar constant (arith.constant)",
                      vt.n, vt.p);
    d = op_attrs(s->def)[0].dense;
  }
  *v = elem_type_is_float(d->type.elem) ? fe_dense_float(d, 0) : (double)fe_dense_int(d, 0);
  if (!fe_expect(p, T_COLON, "before the yielded type")) return false;
  tensor_type t;
  bool sc;
  if (generic && !fe_expect(p, T_LPAREN, "before the yielded type")) return false;
  if (!xd_parse_type(x, &t, &sc)) return false;
  if (generic && (!fe_expect(p, T_RPAREN, "after the yielded type") || !fe_expect(p, T_ARROW, "in '(T) -> ()'") ||
                  !fe_expect(p, T_LPAREN, "in '(T) -> ()'") || !fe_expect(p, T_RPAREN, "in '(T) -> ()'")))
    return false;
  fe_skip_loc(p);
  return fe_expect(p, T_RBRACE, "to close tensor.pad's region");
}

static bool count(xd_op *x, int n) {
  if (x->nin == n) return true;
  return xd_error(x, "expects %d operand%s, found %d", n, n == 1 ? "" : "s", x->nin);
}

static value *reshape_to(xd_op *x, value *v, const tensor_type *t) {
  if (!v) return NULL;
  if (tensor_numel(v->type) != tensor_numel(t)) {
    char s1[160], s2[160];
    return xd_error(x, "cannot reshape %s to %s", fe_type_str(v->type, s1, sizeof s1), fe_type_str(t, s2, sizeof s2)),
           NULL;
  }
  return fe_mgx_reshape(&x->m, v, t->dims, t->rank);
}

/* The destination with the source written at off (sizes: the source's dims), one dimension at a
 * time: dst[:o] ++ insert(dst[o:o+n], src) ++ dst[o+n:] along each dimension in turn. */
static value *insert(xd_op *x, value *dst, value *src, const int64_t *off, int d) {
  if (!dst || !src) return NULL; /* a slice or the source's reshape failed and said why */
  const tensor_type *t = dst->type;
  if (d == t->rank) return src;
  int64_t o = off[d], n = src->type->dims[d], start[TOSAC_MAX_RANK] = {0}, size[TOSAC_MAX_RANK];
  memcpy(size, t->dims, sizeof size);
  value *parts[3];
  int np = 0;
  if (o > 0) {
    size[d] = o;
    parts[np++] = fe_mgx_slice(&x->m, dst, start, size);
  }
  start[d] = o, size[d] = n;
  value *mid = insert(x, fe_mgx_slice(&x->m, dst, start, size), src, off, d + 1);
  parts[np++] = mid;
  if (o + n < t->dims[d]) {
    start[d] = o + n, size[d] = t->dims[d] - o - n;
    parts[np++] = fe_mgx_slice(&x->m, dst, start, size);
  }
  if (np == 1) return mid;
  for (int i = 0; i < np; i++)
    if (!parts[i]) return NULL;
  op *c = fe_op_new(x->m.p, OP_CONCAT, x->m.loc, parts, np);
  fe_set_int(x->m.p, c, "axis", d, ET_I32);
  x->m.last = fe_op_finish(x->m.p, x->m.fs, c, t, arena_printf(x->m.p->a, "%s_%d", x->m.res, ++x->m.ntmp));
  return x->m.last;
}

static bool unit_strides(xd_op *x, int rank) {
  int64_t st[XD_LIST];
  if (!xd_ints(x, "static_strides", st, rank, NULL)) return false;
  for (int i = 0; i < rank; i++)
    if (st[i] != 1) return xd_error(x, "with stride %lld is not supported (strides 1 only)", (long long)st[i]);
  return true;
}

static value *l_slice(xd_op *x, bool ins) {
  if (!count(x, ins ? 2 : 1)) return NULL;
  value *src = xd_operand(x, 0), *dst = ins ? xd_operand(x, 1) : src;
  if (!src || !dst) return NULL;
  int r = dst->type->rank;
  int64_t off[XD_LIST], size[XD_LIST];
  if (!xd_ints(x, "static_offsets", off, r, NULL) || !xd_ints(x, "static_sizes", size, r, NULL) || !unit_strides(x, r))
    return NULL;
  for (int i = 0; i < r; i++)
    if (off[i] < 0 || size[i] < 0 || off[i] + size[i] > dst->type->dims[i])
      return xd_error(x, "dimension %d: offset %lld and size %lld are outside 0..%lld", i, (long long)off[i],
                      (long long)size[i], (long long)dst->type->dims[i]),
             NULL;
  if (!ins) {
    tensor_type full = {.elem = src->type->elem, .rank = r};
    memcpy(full.dims, size, sizeof(int64_t) * (size_t)r);
    return reshape_to(x, fe_mgx_slice(&x->m, src, off, size), x->has_out ? &x->out_t : &full);
  }
  tensor_type full = {.elem = src->type->elem, .rank = r};
  memcpy(full.dims, size, sizeof(int64_t) * (size_t)r);
  return insert(x, dst, reshape_to(x, src, &full), off, 0);
}

static value *l_pad(xd_op *x, double v) {
  if (!count(x, 1)) return NULL;
  value *a = xd_operand(x, 0);
  if (!a) return NULL;
  int r = a->type->rank;
  int64_t lo[XD_LIST], hi[XD_LIST], pad[XD_LIST];
  if (!xd_ints(x, "static_low", lo, r, NULL) || !xd_ints(x, "static_high", hi, r, NULL)) return NULL;
  tensor_type t = *a->type;
  for (int i = 0; i < r; i++) {
    if (lo[i] < 0 || hi[i] < 0) return xd_error(x, "with negative padding is not supported"), NULL;
    pad[2 * i] = lo[i], pad[2 * i + 1] = hi[i];
    t.dims[i] += lo[i] + hi[i];
  }
  op *o = fe_op_new(x->m.p, OP_PAD, x->m.loc, &a, 1);
  fe_set_ints(x->m.p, o, "padding", pad, 2 * r);
  fe_set_bool(x->m.p, o, "tensor.pad", true); /* may move into a convolution (fe_xd_fold_pads) */
  if (elem_type_is_float(t.elem)) fe_set_float(x->m.p, o, "pad_const", v, t.elem);
  else fe_set_int(x->m.p, o, "pad_const", (int64_t)v, t.elem);
  x->m.last = fe_op_finish(x->m.p, x->m.fs, o, &t, arena_printf(x->m.p->a, "%s_%d", x->m.res, ++x->m.ntmp));
  return x->m.last;
}

static value *l_concat(xd_op *x) {
  const attr *d = xd_attr(x, "dim");
  if (!d || d->kind != ATTR_INT) return xd_error(x, "needs 'dim'"), NULL;
  if (x->nin == 0) return xd_error(x, "needs operands"), NULL;
  for (int i = 0; i < x->nin; i++)
    if (!xd_operand(x, i)) return NULL;
  op *o = fe_op_new(x->m.p, OP_CONCAT, x->m.loc, x->in, x->nin);
  fe_set_int(x->m.p, o, "axis", d->i, ET_I32);
  tensor_type t = *x->in[0]->type;
  if (d->i < 0 || d->i >= t.rank) return xd_error(x, "dim %lld is outside the rank %d", (long long)d->i, t.rank), NULL;
  for (int i = 1; i < x->nin; i++) t.dims[d->i] += x->in[i]->type->dims[d->i];
  x->m.last = fe_op_finish(x->m.p, x->m.fs, o, &t, arena_printf(x->m.p->a, "%s_%d", x->m.res, ++x->m.ntmp));
  return x->m.last;
}

value *xd_tensor_op(xd_op *x, bool *known) {
  static const char *const ops[] = {"extract_slice", "insert_slice", "expand_shape", "collapse_shape", "empty",
                                    "cast", "concat", "pad", "reshape", "bitcast"};
  bool found = false;
  for (size_t i = 0; i < sizeof ops / sizeof ops[0]; i++) found |= !strcmp(ops[i], x->op);
  if (!found) return *known = false, NULL;
  double padv = 0;
  if (!strcmp(x->op, "pad") && x->generic) { /* ({region}) : (T) -> T */
    fe_parser *p = x->m.p;
    if (!fe_expect(p, T_LPAREN, "to start the region list") || !pad_region(x, &padv) ||
        !fe_expect(p, T_RPAREN, "to close the region list") || !xd_parse_tail(x))
      return NULL;
    return l_pad(x, padv);
  }
  if (!strcmp(x->op, "pad")) { /* the region comes before the type in the custom form */
    fe_parser *p = x->m.p;
    if (!operand(x)) return NULL;
    if (fe_tok_is(p, "nofold")) fe_next(p);
    if (!fe_tok_is(p, "low")) return fe_error(p, fe_loc(p, p->tok), "expected 'low[...]' in 'tensor.pad'"), NULL;
    fe_next(p);
    if (!list_attr(x, "static_low")) return NULL;
    if (!fe_tok_is(p, "high")) return fe_error(p, fe_loc(p, p->tok), "expected 'high[...]' in 'tensor.pad'"), NULL;
    fe_next(p);
    if (!list_attr(x, "static_high") || !pad_region(x, &padv) || !xd_parse_tail(x)) return NULL;
    return l_pad(x, padv);
  }
  if (!x->generic && !custom_syntax(x)) return NULL;
  const char *op = x->op;
  if (!strcmp(op, "empty")) {
    if (!count(x, 0)) return NULL;
    return xd_splat(x, &x->out_t, 0);
  }
  if (!strcmp(op, "concat")) return l_concat(x);
  if (!strcmp(op, "extract_slice")) return l_slice(x, false);
  if (!strcmp(op, "insert_slice")) return l_slice(x, true);
  if (!count(x, strcmp(op, "reshape") ? 1 : 2)) return NULL;
  value *a = xd_operand(x, 0);
  if (!a) return NULL;
  if (!strcmp(op, "bitcast") && a->type->elem != x->out_t.elem)
    return xd_error(x, "from %s to %s is not supported (only to the same element type)", elem_type_name(a->type->elem),
                    elem_type_name(x->out_t.elem)),
           NULL;
  return reshape_to(x, a, &x->out_t); /* expand_shape, collapse_shape, reshape, cast, bitcast */
}

/* ---------------------------------------------------------------- padding into convolutions */
/* Exporters pad a convolution's input with tensor.pad of zeros and give the convolution no
 * padding; TOSA producers write the padding on the convolution. The pads tensor.pad became
 * (marked "tensor.pad") move into the convolutions that read them, so both forms compile to the
 * same kernels; a pad nothing else reads then leaves the graph. */
static bool fold_pad(op *conv, int nsp) {
  value *in = conv->operands[0];
  op *pad = in->def;
  if (!pad || pad->kind != OP_PAD || !op_attr(pad, "tensor.pad") || !elem_type_is_float(in->type->elem)) return false;
  const attr *pc = op_attr(pad, "pad_const"), *pp = op_attr(pad, "padding");
  attr *cp = fe_find_attr(conv, "pad");
  if (!pc || pc->kind != ATTR_FLOAT || pc->f != 0 || !pp || pp->n != 2 * (nsp + 2) || !cp || cp->n != 2 * nsp)
    return false;
  const int64_t *v = pp->ints;
  if (v[0] || v[1] || v[2 * nsp + 2] || v[2 * nsp + 3]) return false; /* batch and channels unpadded */
  for (int i = 0; i < 2 * nsp; i++) cp->ints[i] += v[2 + i];
  conv->operands[0] = pad->operands[0];
  return true;
}

void fe_xd_fold_pads(graph *g) {
  bool any = false;
  for (int i = 0; i < g->nops; i++) {
    op *o = g->ops[i];
    int nsp = o->kind == OP_CONV3D ? 3 : o->kind == OP_CONV2D || o->kind == OP_DEPTHWISE_CONV2D ? 2 : 0;
    while (nsp && fold_pad(o, nsp)) any = true;
  }
  int *uses = any ? calloc((size_t)g->nvalues, sizeof *uses) : NULL;
  for (int i = 0; uses && i < g->nops; i++)
    for (int k = 0; k < g->ops[i]->noperands; k++) uses[g->ops[i]->operands[k]->id]++;
  for (int i = 0; uses && i < g->nresults; i++)
    if (g->results[i] && g->results[i]->id >= 0) uses[g->results[i]->id]++;
  int no = 0, nv = 0;
  for (int i = 0; i < g->nops; i++) {
    op *o = g->ops[i];
    if (o->kind == OP_PAD && op_attr(o, "tensor.pad")) {
      fe_remove_attr(o, "tensor.pad");
      if (uses && !uses[o->results[0]->id]) { /* dead: dropped below */
        o->results[0]->id = -1;
        continue;
      }
    }
    o->id = no;
    g->ops[no++] = o;
  }
  free(uses);
  g->nops = no;
  for (int i = 0; i < g->nvalues; i++) {
    if (g->values[i]->id < 0) continue;
    g->values[i]->id = nv;
    g->values[nv++] = g->values[i];
  }
  g->nvalues = nv;
}
