/* dialect_tensor.c: tensor ops on static shapes as TOSA data movement: extract_slice is
 * tosa.slice (+ reshape when it drops dimensions; strides > 1 slice a view in which each strided
 * dimension is split into [rows, stride]), insert_slice is slices of the destination
 * concatenated around the source (strided: the source spread by a pad and selected in),
 * expand_shape / collapse_shape / reshape / cast are tosa.reshape (or nothing), concat is
 * tosa.concat, pad is tosa.pad with the yielded constant, empty is a zero constant (its contents
 * are undefined; every use overwrites or ignores them), extract is a scalar (a constant's element,
 * or a one-element slice), from_elements / splat of computed scalars are concat / broadcast. */
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
  if (!strcmp(op, "from_elements") || !strcmp(op, "splat")) {
    if (!xd_parse_operands(x)) return false;
    if (x->m.p->tok.kind == T_LBRACKET)
      return fe_error(p, fe_loc(p, p->tok),
                      "tensor.splat with dynamic sizes is not supported (give a static tensor type)");
    return xd_parse_tail(x);
  }
  if (!operand(x)) return false;
  if (!strcmp(op, "extract")) { /* %t[%i, %j] : T */
    if (!fe_expect(p, T_LBRACKET, "before the indices") || !xd_parse_operands(x) ||
        !fe_expect(p, T_RBRACKET, "after the indices"))
      return false;
  } else if (!strcmp(op, "extract_slice")) {
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

/* v padded with zeros: lo[i] before and hi[i] after dimension i (none: v). */
static value *pad_zeros(xd_op *x, value *v, const int64_t *lo, const int64_t *hi) {
  if (!v) return NULL;
  int r = v->type->rank;
  int64_t pad[XD_LIST] = {0};
  tensor_type t = *v->type;
  bool any = false;
  for (int i = 0; i < r; i++) {
    pad[2 * i] = lo[i], pad[2 * i + 1] = hi[i];
    t.dims[i] += lo[i] + hi[i];
    any |= lo[i] > 0 || hi[i] > 0;
  }
  if (!any) return v;
  op *o = fe_op_new(x->m.p, OP_PAD, x->m.loc, &v, 1);
  fe_set_ints(x->m.p, o, "padding", pad, 2 * r);
  if (elem_type_is_float(t.elem)) fe_set_float(x->m.p, o, "pad_const", 0, t.elem);
  else fe_set_int(x->m.p, o, "pad_const", 0, t.elem);
  x->m.last = fe_op_finish(x->m.p, x->m.fs, o, &t, arena_printf(x->m.p->a, "%s_%d", x->m.res, ++x->m.ntmp));
  return x->m.last;
}

static value *concat(xd_op *x, value **parts, int np, int d) {
  if (np == 1) return parts[0];
  for (int i = 0; i < np; i++)
    if (!parts[i]) return NULL;
  tensor_type t = *parts[0]->type;
  for (int i = 1; i < np; i++) t.dims[d] += parts[i]->type->dims[d];
  op *c = fe_op_new(x->m.p, OP_CONCAT, x->m.loc, parts, np);
  fe_set_int(x->m.p, c, "axis", d, ET_I32);
  x->m.last = fe_op_finish(x->m.p, x->m.fs, c, &t, arena_printf(x->m.p->a, "%s_%d", x->m.res, ++x->m.ntmp));
  return x->m.last;
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
  parts[np++] = insert(x, fe_mgx_slice(&x->m, dst, start, size), src, off, d + 1);
  if (o + n < t->dims[d]) {
    start[d] = o + n, size[d] = t->dims[d] - o - n;
    parts[np++] = fe_mgx_slice(&x->m, dst, start, size);
  }
  return concat(x, parts, np, d);
}

/* A strided slice (off, size, st) of a tensor of type t as a unit-stride one of it split: each
 * dimension with a stride s > 1 (and more than one element taken) padded (hi) to a multiple of s
 * and reshaped into [rows, s], so that its elements off + k*s are rows off/s.. of column off%s.
 * The split shape goes to dims, the slice in it to so/ss; its rank is returned (0 after an
 * error). */
static int split_strided(xd_op *x, const tensor_type *t, const int64_t *off, const int64_t *size, const int64_t *st,
                         int64_t *hi, int64_t *dims, int64_t *so, int64_t *ss) {
  int r = t->rank, k = 0;
  for (int i = 0; i < r; i++) k += st[i] > 1 && size[i] > 1 ? 2 : 1;
  if (k > TOSAC_MAX_RANK)
    return xd_error(x, "with %d strided dimensions on a rank-%d tensor is not supported (at most rank %d once each "
                    "strided dimension is split in two)", k - r, r, TOSAC_MAX_RANK),
           0;
  k = 0;
  for (int i = 0; i < r; i++) {
    bool strided = st[i] > 1 && size[i] > 1;
    hi[i] = strided ? (st[i] - t->dims[i] % st[i]) % st[i] : 0;
    if (strided) {
      dims[k] = (t->dims[i] + hi[i]) / st[i], so[k] = off[i] / st[i], ss[k++] = size[i];
      dims[k] = st[i], so[k] = off[i] % st[i], ss[k++] = 1;
    } else {
      dims[k] = t->dims[i], so[k] = off[i], ss[k++] = size[i];
    }
  }
  return k;
}

/* Strided insert_slice: the source spread over the destination's shape (zeros between, a pad
 * in the split shape) and a select by the constant mask of the positions it writes. */
static value *insert_strided(xd_op *x, value *dst, value *src, const int64_t *off, const int64_t *size,
                             const int64_t *st) {
  const tensor_type *t = dst->type;
  int r = t->rank;
  int64_t hi[XD_LIST], dims[XD_LIST], so[XD_LIST], ss[XD_LIST], lo2[XD_LIST], hi2[XD_LIST], padded[XD_LIST];
  int64_t zero[XD_LIST] = {0};
  int k = split_strided(x, t, off, size, st, hi, dims, so, ss);
  if (!k) return NULL;
  for (int i = 0; i < k; i++) lo2[i] = so[i], hi2[i] = dims[i] - so[i] - ss[i];
  for (int i = 0; i < r; i++) padded[i] = t->dims[i] + hi[i];
  tensor_type part = {.elem = src->type->elem, .rank = k};
  memcpy(part.dims, ss, sizeof(int64_t) * (size_t)k);
  value *spread = pad_zeros(x, reshape_to(x, src, &part), lo2, hi2);
  spread = fe_mgx_slice(&x->m, fe_mgx_reshape(&x->m, spread, padded, r), zero, t->dims);
  int64_t numel = tensor_numel(t), idx[TOSAC_MAX_RANK] = {0};
  uint8_t *m = arena_alloc(x->m.p->a, (size_t)numel);
  for (int64_t e = 0; e < numel; e++) { /* element e is written when each index is off + j*st, j < size */
    bool in = true;
    for (int i = 0; i < r && in; i++) {
      int64_t j = idx[i] - off[i];
      in = j >= 0 && j % st[i] == 0 && j / st[i] < size[i];
    }
    m[e] = in;
    for (int i = r - 1; i >= 0 && ++idx[i] == t->dims[i]; i--) idx[i] = 0;
  }
  dense_data *d = arena_alloc(x->m.p->a, sizeof *d);
  *d = (dense_data){.type = *t, .bytes = m, .nbytes = (size_t)numel};
  d->type.elem = ET_I1;
  value *in[3] = {xd_const(x, d), spread, dst};
  return xd_mk(x, OP_SELECT, in, 3, t);
}

static value *l_slice(xd_op *x, bool ins) {
  if (!count(x, ins ? 2 : 1)) return NULL;
  value *src = xd_operand(x, 0), *dst = ins ? xd_operand(x, 1) : src;
  if (!src || !dst) return NULL;
  int r = dst->type->rank;
  int64_t off[XD_LIST], size[XD_LIST], st[XD_LIST];
  if (!xd_ints(x, "static_offsets", off, r, NULL) || !xd_ints(x, "static_sizes", size, r, NULL) ||
      !xd_ints(x, "static_strides", st, r, NULL))
    return NULL;
  bool strided = false;
  for (int i = 0; i < r; i++) {
    if (st[i] < 1)
      return xd_error(x, "with stride %lld is not supported (strides are positive)", (long long)st[i]), NULL;
    int64_t span = size[i] > 0 ? (size[i] - 1) * st[i] + 1 : 0;
    if (off[i] < 0 || size[i] < 0 || off[i] + span > dst->type->dims[i])
      return xd_error(x, "dimension %d: offset %lld, size %lld and stride %lld are outside 0..%lld", i,
                      (long long)off[i], (long long)size[i], (long long)st[i], (long long)dst->type->dims[i]),
             NULL;
    strided |= st[i] > 1 && size[i] > 1;
  }
  tensor_type full = {.elem = src->type->elem, .rank = r};
  memcpy(full.dims, size, sizeof(int64_t) * (size_t)r);
  if (ins) {
    value *part = reshape_to(x, src, &full); /* NULL: the sizes disagree with the source, said */
    if (!part) return NULL;
    return strided ? insert_strided(x, dst, part, off, size, st) : insert(x, dst, part, off, 0);
  }
  int64_t hi[XD_LIST], dims[XD_LIST], so[XD_LIST], ss[XD_LIST], zero[XD_LIST] = {0};
  int k = split_strided(x, src->type, off, size, st, hi, dims, so, ss);
  if (!k) return NULL;
  value *g = fe_mgx_reshape(&x->m, pad_zeros(x, src, zero, hi), dims, k);
  return reshape_to(x, fe_mgx_slice(&x->m, g, so, ss), x->has_out ? &x->out_t : &full);
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
  if (d->i < 0 || d->i >= x->in[0]->type->rank)
    return xd_error(x, "dim %lld is outside the rank %d", (long long)d->i, x->in[0]->type->rank), NULL;
  return concat(x, x->in, x->nin, (int)d->i);
}

/* One element of a constant as a scalar constant of its type. */
static value *const_element(xd_op *x, const dense_data *c, int64_t i) {
  tensor_type t = {.elem = c->type.elem};
  elem_type et = t.elem == ET_INDEX ? ET_I32 : t.elem;
  size_t nb = (size_t)elem_type_bytes(et);
  uint64_t bits = elem_type_is_float(et) ? fe_float_bits(fe_dense_float(c, i), et) : (uint64_t)fe_dense_int(c, i);
  uint8_t *b = arena_alloc(x->m.p->a, nb);
  for (size_t k = 0; k < nb; k++) b[k] = (uint8_t)(bits >> (8 * k));
  dense_data *d = arena_alloc(x->m.p->a, sizeof *d);
  t.elem = et;
  *d = (dense_data){.type = t, .bytes = b, .nbytes = nb, .splat = true};
  return xd_new_scalar(x, d);
}

/* tensor.extract %t[%i, ...] at constant indices: an element of a constant is a scalar constant;
 * of a computed tensor, a one-element slice reshaped to rank 0 (a scalar in the graph). */
static value *l_extract(xd_op *x) {
  if (x->nin == 0) return xd_error(x, "needs a tensor operand"), NULL;
  value *t = xd_operand(x, 0);
  if (!t) return NULL;
  int r = t->type->rank;
  if (x->nin != 1 + r) return xd_error(x, "takes %d indices for a rank-%d tensor, found %d", r, r, x->nin - 1), NULL;
  int64_t idx[TOSAC_MAX_RANK], lin = 0, ones[TOSAC_MAX_RANK];
  for (int i = 0; i < r; i++) {
    const value *v = x->in[1 + i];
    if (!v || v->id == -1) return NULL;
    if (v->id != FE_SCALAR_ID || (!elem_type_is_int(v->type->elem) && v->type->elem != ET_INDEX))
      return fe_error(x->m.p, fe_loc(x->m.p, x->in_tok[1 + i]), "'tensor.extract' index '%.*s' is not a constant: "
                      "tosac reads tensor.extract at constant indices (arith.constant N : index)",
                      x->in_tok[1 + i].n, x->in_tok[1 + i].p),
             NULL;
    idx[i] = fe_dense_int(op_attrs(v->def)[0].dense, 0);
    ones[i] = 1;
    if (idx[i] < 0 || idx[i] >= t->type->dims[i])
      return fe_error(x->m.p, fe_loc(x->m.p, x->in_tok[1 + i]), "'tensor.extract' index %lld is outside 0..%lld of "
                      "dimension %d", (long long)idx[i], (long long)t->type->dims[i] - 1, i),
             NULL;
    lin = lin * t->type->dims[i] + idx[i];
  }
  x->out_t = (tensor_type){.elem = t->type->elem};
  x->scalar_out = true;
  const dense_data *c = xd_const_of(t);
  if (c) return const_element(x, c, c->splat ? 0 : lin);
  return fe_mgx_reshape(&x->m, fe_mgx_slice(&x->m, t, idx, ones), ones, 0);
}

/* tensor.from_elements / tensor.splat of scalars some of which are computed (of constants only
 * the parser folds them, scalar.c; the generic form comes here either way). */
static value *l_build(xd_op *x, bool splat) {
  const tensor_type *t = &x->out_t;
  int64_t numel = tensor_numel(t);
  if (x->nin == 0) return xd_error(x, "needs operands"), NULL;
  if (splat ? x->nin != 1 : numel != x->nin)
    return xd_error(x, "has %d operand%s for %lld element%s", x->nin, x->nin == 1 ? "" : "s",
                    (long long)(splat ? 1 : numel), (splat ? 1 : numel) == 1 ? "" : "s"),
           NULL;
  bool constant = true;
  for (int i = 0; i < x->nin; i++) {
    const value *v = x->in[i];
    if (!v || v->id == -1) return NULL;
    elem_type et = v->type->elem == ET_INDEX ? ET_I32 : v->type->elem;
    if (v->type->rank != 0 || et != t->elem) {
      char s1[160];
      return fe_error(x->m.p, fe_loc(x->m.p, x->in_tok[i]), "'%s' operand '%.*s' is %s, but the result's elements are "
                      "%s (it takes scalars)", x->m.opname, x->in_tok[i].n, x->in_tok[i].p,
                      fe_type_str(v->type, s1, sizeof s1), elem_type_name(t->elem)),
             NULL;
    }
    constant &= v->id == FE_SCALAR_ID;
  }
  if (constant) { /* one dense constant */
    size_t eb = (size_t)elem_type_bytes(t->elem);
    uint8_t *b = arena_alloc(x->m.p->a, eb * (size_t)x->nin);
    for (int i = 0; i < x->nin; i++) memcpy(b + eb * (size_t)i, op_attrs(x->in[i]->def)[0].dense->bytes, eb);
    dense_data *d = arena_alloc(x->m.p->a, sizeof *d);
    *d = (dense_data){.type = *t, .bytes = b, .nbytes = eb * (size_t)x->nin, .splat = splat || numel == 1};
    return xd_const(x, d);
  }
  value *parts[XD_MAX_IN];
  for (int i = 0; i < x->nin; i++) {
    value *v = x->in[i];
    parts[i] = v->id == FE_SCALAR_ID ? xd_scalar_tensor(x, v, 1) : xd_reshape_ones(x, v, 1);
  }
  if (splat) return fe_mgx_broadcast(&x->m, xd_reshape_ones(x, parts[0], t->rank), t);
  return reshape_to(x, concat(x, parts, x->nin, 0), t);
}

value *xd_tensor_op(xd_op *x, bool *known) {
  static const char *const ops[] = {"extract_slice", "insert_slice", "expand_shape", "collapse_shape", "empty",
                                    "cast", "concat", "pad", "reshape", "bitcast", "extract", "from_elements", "splat"};
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
  if (!strcmp(op, "extract")) return l_extract(x);
  if (!strcmp(op, "from_elements") || !strcmp(op, "splat")) return l_build(x, !strcmp(op, "splat"));
  if (!count(x, strcmp(op, "reshape") ? 1 : 2)) return NULL;
  value *a = xd_operand(x, 0);
  if (!a) return NULL;
  if (!strcmp(op, "bitcast")) a = xd_bitcast(x, a, x->out_t.elem);
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
