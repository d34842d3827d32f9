/* migraphx_ops.c: each migraphx op lowered to TOSA ops on logical tensors, as rocMLIR's
 * MIGraphXToTosa lowers it where it does (docs/migraphx.md lists each op, its TOSA form and the
 * source of its semantics), and the small builders both this file and the function boundary
 * (migraphx.c) use. */
#include "frontend/frontend.h"

#include <string.h>

/* ---------------------------------------------------------------- building TOSA ops */

static value *finish(fe_mgx_ctx *m, op *o, const tensor_type *t) {
  m->last = fe_op_finish(m->p, m->fs, o, t, arena_printf(m->p->a, "%s_%d", m->res, ++m->ntmp));
  return m->last;
}

/* n operands of a, b, c: given, not inferred from which are NULL, since a NULL is an operand whose
 * construction failed (and reported why), never a missing one. */
static value *mk(fe_mgx_ctx *m, op_kind k, int n, value *a, value *b, value *c, const tensor_type *t) {
  value *ops[3] = {a, b, c};
  for (int i = 0; i < n; i++)
    if (!ops[i]) return NULL;
  return finish(m, fe_op_new(m->p, k, m->loc, ops, n), t);
}

static value *mk_unary(fe_mgx_ctx *m, op_kind k, value *x) { return x ? mk(m, k, 1, x, NULL, NULL, x->type) : NULL; }

static value *mk_binary(fe_mgx_ctx *m, op_kind k, value *a, value *b) {
  if (!a || !b) return NULL;
  tensor_type t;
  char x[160], y[160];
  if (!tensor_broadcast_shape(a->type, b->type, &t)) {
    fe_error(m->p, m->loc, "'%s' operands %s and %s have different shapes", m->opname, fe_type_str(a->type, x, sizeof x),
             fe_type_str(b->type, y, sizeof y));
    return NULL;
  }
  if (k == OP_GREATER || k == OP_GREATER_EQUAL || k == OP_EQUAL) t.elem = ET_I1;
  return mk(m, k, 2, a, b, NULL, &t);
}

static value *mk_cast(fe_mgx_ctx *m, value *x, elem_type et) {
  if (!x || x->type->elem == et) return x;
  tensor_type t = *x->type;
  t.elem = et;
  return mk(m, OP_CAST, 1, x, NULL, NULL, &t);
}

value *fe_mgx_cast(fe_mgx_ctx *m, value *x, elem_type et) { return mk_cast(m, x, et); }

value *fe_mgx_transpose(fe_mgx_ctx *m, value *x, const int64_t *perm) {
  if (!x) return NULL;
  int64_t composed[TOSAC_MAX_RANK];
  const attr *inner = x->def && x->def->kind == OP_TRANSPOSE ? op_attr(x->def, "perms") : NULL;
  if (inner && inner->kind == ATTR_INTS && inner->n == x->type->rank) {
    /* a transpose of a transpose is one transpose (NHWC memory read by a convolution that wants
     * NHWC is none at all); the inner one is dropped later if nothing else reads it */
    for (int i = 0; i < x->type->rank; i++) composed[i] = inner->ints[perm[i]];
    x = x->def->operands[0];
    perm = composed;
  }
  tensor_type t = *x->type;
  bool same = true;
  for (int i = 0; i < t.rank; i++) {
    t.dims[i] = x->type->dims[perm[i]];
    same &= perm[i] == i;
  }
  if (same) return x;
  op *o = fe_op_new(m->p, OP_TRANSPOSE, m->loc, &x, 1);
  fe_set_ints(m->p, o, "perms", perm, t.rank);
  return finish(m, o, &t);
}

value *fe_mgx_reshape(fe_mgx_ctx *m, value *x, const int64_t *dims, int rank) {
  if (!x) return NULL;
  tensor_type t = {.elem = x->type->elem, .rank = rank};
  memcpy(t.dims, dims, sizeof(int64_t) * (size_t)rank);
  if (tensor_type_equal(&t, x->type)) return x;
  op *o = fe_op_new(m->p, OP_RESHAPE, m->loc, &x, 1);
  fe_set_ints(m->p, o, "new_shape", dims, rank);
  return finish(m, o, &t);
}

value *fe_mgx_slice(fe_mgx_ctx *m, value *x, const int64_t *start, const int64_t *size) {
  if (!x) return NULL;
  tensor_type t = *x->type;
  memcpy(t.dims, size, sizeof(int64_t) * (size_t)t.rank);
  if (tensor_type_equal(&t, x->type)) return x;
  op *o = fe_op_new(m->p, OP_SLICE, m->loc, &x, 1);
  fe_set_ints(m->p, o, "start", start, t.rank);
  fe_set_ints(m->p, o, "size", size, t.rank);
  return finish(m, o, &t);
}

/* A splat constant of type t holding v. */
value *fe_mgx_splat(fe_mgx_ctx *m, const tensor_type *t, double v) {
  dense_data *dd = arena_alloc(m->p->a, sizeof *dd);
  dd->type = *t;
  dd->splat = true;
  dd->nbytes = (size_t)elem_type_bytes(t->elem);
  uint8_t *b = arena_alloc(m->p->a, dd->nbytes);
  uint64_t bits = elem_type_is_float(t->elem) ? (v == 0 ? 0 : fe_float_bits(v, t->elem)) : (uint64_t)(int64_t)v;
  for (size_t i = 0; i < dd->nbytes; i++) b[i] = (uint8_t)(bits >> (8 * i));
  dd->bytes = b;
  op *o = fe_op_new(m->p, OP_CONST, m->loc, NULL, 0);
  fe_add_attr(m->p, o, "values", ATTR_DENSE)->dense = dd;
  return finish(m, o, t);
}

/* x (same rank, dims 1 or equal) repeated to shape `to`: TOSA has no broadcast op, so x + 0
 * (an elementwise op the partitioner fuses into its consumer, as rocMLIR does); integers that
 * tosa.add does not take (i8, i16, i1) are tiled. */
value *fe_mgx_broadcast(fe_mgx_ctx *m, value *x, const tensor_type *to) {
  if (!x) return NULL;
  tensor_type t = *to;
  t.elem = x->type->elem;
  if (tensor_type_equal(&t, x->type)) return x;
  if (elem_type_is_float(t.elem) || t.elem == ET_I32) return mk_binary(m, OP_ADD, x, fe_mgx_splat(m, &t, 0));
  int64_t mult[TOSAC_MAX_RANK];
  for (int i = 0; i < t.rank; i++) mult[i] = x->type->dims[i] == t.dims[i] ? 1 : t.dims[i];
  op *o = fe_op_new(m->p, OP_TILE, m->loc, &x, 1);
  fe_set_ints(m->p, o, "multiples", mult, t.rank);
  return finish(m, o, &t);
}

/* ---------------------------------------------------------------- unsigned integers */
/* Values are stored signless; an unsigned (ui*) operand is given its meaning where an op needs
 * it. Below 32 bits it is zero-extended to i32 (sign-extending cast, then a mask), and i32 ops
 * then compute on it; a ui32 is ordered by flipping its sign bit. */
static value *splat_like(fe_mgx_ctx *m, const value *x, elem_type et, double v) {
  tensor_type t = {.elem = et, .rank = x->type->rank};
  for (int i = 0; i < t.rank; i++) t.dims[i] = 1;
  return fe_mgx_splat(m, &t, v);
}

static value *zext32(fe_mgx_ctx *m, value *x) {
  if (!x) return NULL;
  int bits = elem_type_bits(x->type->elem);
  if (bits >= 32) return x;
  value *w = mk_cast(m, x, ET_I32);
  return w ? mk_binary(m, OP_BITWISE_AND, w, splat_like(m, w, ET_I32, (double)(((int64_t)1 << bits) - 1))) : NULL;
}

/* x as an i32 whose signed order is x's order (signed or unsigned), and back. */
static value *ordered(fe_mgx_ctx *m, value *x, bool uns) {
  if (!x) return NULL;
  if (!uns) return mk_cast(m, x, ET_I32);
  if (elem_type_bits(x->type->elem) < 32) return zext32(m, x);
  return mk_binary(m, OP_BITWISE_XOR, x, splat_like(m, x, ET_I32, INT32_MIN));
}

static value *from_ordered(fe_mgx_ctx *m, value *y, bool uns, elem_type et) {
  if (y && uns && elem_type_bits(et) >= 32) return mk_binary(m, OP_BITWISE_XOR, y, splat_like(m, y, ET_I32, INT32_MIN));
  return mk_cast(m, y, et);
}

static bool any_unsigned(const fe_mgx_ctx *m) {
  for (int i = 0; i < m->nint; i++)
    if (m->in_t[i].is_unsigned && !elem_type_is_float(m->in_t[i].t.elem)) return true;
  return false;
}

/* ---------------------------------------------------------------- attributes */
static const attr *get_attr(const fe_mgx_ctx *m, const char *name) {
  for (int i = 0; i < m->nattrs; i++)
    if (!strcmp(m->attrs[i].name, name)) return &m->attrs[i];
  return NULL;
}

/* An integer list attribute; absent: required -> error, else *n = 0. */
static bool attr_ints(fe_mgx_ctx *m, const char *name, const int64_t **v, int *n, bool required) {
  const attr *a = get_attr(m, name);
  *n = 0;
  if (!a) return !required || fe_error(m->p, m->loc, "'%s' requires the attribute '%s'", m->opname, name);
  if (a->kind != ATTR_INTS && !(a->kind == ATTR_STR && !strcmp(a->s, "[]")))
    return fe_error(m->p, a->loc, "'%s' attribute '%s' must be a list of integers", m->opname, name);
  *v = a->ints;
  *n = a->kind == ATTR_INTS ? a->n : 0;
  return true;
}

static bool attr_int(fe_mgx_ctx *m, const char *name, int64_t *v, bool required, int64_t dflt) {
  const attr *a = get_attr(m, name);
  *v = dflt;
  if (!a) return !required || fe_error(m->p, m->loc, "'%s' requires the attribute '%s'", m->opname, name);
  if (a->kind != ATTR_INT) return fe_error(m->p, a->loc, "'%s' attribute '%s' must be an integer", m->opname, name);
  *v = a->i;
  return true;
}

static bool unsupported_value(fe_mgx_ctx *m, const char *name, const char *why) {
  const attr *a = get_attr(m, name);
  return fe_error(m->p, a ? a->loc : m->loc, "'%s' attribute '%s': %s", m->opname, name, why);
}

/* An axis in [-rank, rank), normalised. */
static bool norm_axis(fe_mgx_ctx *m, const char *name, int64_t *axis, int rank) {
  if (*axis < -rank || *axis >= rank)
    return unsupported_value(m, name, arena_printf(m->p->a, "axis %lld is out of range for rank %d", (long long)*axis, rank));
  if (*axis < 0) *axis += rank;
  return true;
}

/* ---------------------------------------------------------------- lowerings */
static value *l_binary(fe_mgx_ctx *m, int k) { return mk_binary(m, (op_kind)k, m->in[0], m->in[1]); }
static value *l_unary(fe_mgx_ctx *m, int k) { return mk_unary(m, (op_kind)k, m->in[0]); }
static value *l_sqrt(fe_mgx_ctx *m, int k) {
  (void)k;
  return mk_unary(m, OP_RECIPROCAL, mk_unary(m, OP_RSQRT, m->in[0]));
}

/* Floats: a * (1 / b), as rocMLIR lowers it (TOSA 1.0 has no float division); ints: intdiv. */
static value *l_div(fe_mgx_ctx *m, int k) {
  (void)k;
  elem_type et = m->in[0]->type->elem;
  if (!elem_type_is_float(et) && any_unsigned(m)) { /* below 32 bits: divide the zero-extended values */
    if (elem_type_bits(et) >= 32)
      return fe_error(m->p, m->loc, "'%s' of unsigned 32-bit integers is not supported (TOSA's intdiv is signed)", m->opname),
             NULL;
    return mk_cast(m, mk_binary(m, OP_INTDIV, zext32(m, m->in[0]), zext32(m, m->in[1])), et);
  }
  if (!elem_type_is_float(et)) return mk_binary(m, OP_INTDIV, m->in[0], m->in[1]);
  return mk_binary(m, OP_MUL, m->in[0], mk_unary(m, OP_RECIPROCAL, m->in[1]));
}

/* A comparison's i1 as the result type: 1 or 0. */
static value *from_bool(fe_mgx_ctx *m, value *c, elem_type et) {
  if (!c || !elem_type_is_float(et)) return mk_cast(m, c, et);
  tensor_type t = *c->type;
  t.elem = et;
  return mk(m, OP_SELECT, 3, c, splat_like(m, c, et, 1), splat_like(m, c, et, 0), &t);
}

/* convert: tosa.cast, but integers that are unsigned (a ui* operand or the zero_extend form)
 * are zero-extended when widened or made floats; target_type 0 (MIGraphX's bool) is x != 0. */
static value *l_convert(fe_mgx_ctx *m, int k) {
  (void)k;
  value *x = m->in[0];
  elem_type in = x->type->elem, out = m->out_t.t.elem;
  const attr *z = get_attr(m, "zero_extend"), *tt = get_attr(m, "target_type");
  bool zext = m->zero_extend || (z && (z->kind == ATTR_BOOL && z->i)) || m->in_t[0].is_unsigned;
  if (tt && tt->kind != ATTR_INT)
    return unsupported_value(m, "target_type", "must be an integer (a MIGraphX shape type)"), NULL;
  if (tt && tt->i == 0) /* bool */
    return from_bool(m, mk_unary(m, OP_LOGICAL_NOT, mk_binary(m, OP_EQUAL, x, splat_like(m, x, in, 0))), out);
  if (!elem_type_is_float(out) && m->out_t.is_unsigned && elem_type_is_float(in) && elem_type_bits(out) >= 32)
    return fe_error(m->p, m->loc, "'%s' of floats to ui32 is not supported (TOSA's cast is signed)", m->opname), NULL;
  if (elem_type_is_float(out) && m->out_t.is_unsigned) zext = false;
  if (!elem_type_is_float(in) && zext && (elem_type_is_float(out) || elem_type_bits(out) > elem_type_bits(in))) {
    if (elem_type_bits(in) >= 32)
      return fe_error(m->p, m->loc, "'%s' zero-extending a 32-bit integer is not supported (tosac's integers end at i32)",
                      m->opname),
             NULL;
    return mk_cast(m, zext32(m, x), out);
  }
  if (elem_type_is_float(in) && !elem_type_is_float(out) && m->out_t.is_unsigned) /* via i32: 0..2^bits-1 fit */
    return mk_cast(m, mk_cast(m, x, ET_I32), out);
  return mk_cast(m, x, out);
}

/* greater, less, equal, greater_or_equal: a 1 or 0 in the operands' type (as rocMLIR: compare,
 * then cast); unsigned operands are compared in their unsigned order. */
static value *l_compare(fe_mgx_ctx *m, int k) {
  value *a = m->in[0], *b = m->in[1];
  bool swap = k < 0;
  op_kind kind = (op_kind)(swap ? -k : k);
  if (any_unsigned(m)) {
    a = ordered(m, a, true);
    b = ordered(m, b, true);
  }
  return from_bool(m, swap ? mk_binary(m, kind, b, a) : mk_binary(m, kind, a, b), m->out_t.t.elem);
}

static value *l_clip(fe_mgx_ctx *m, int k) {
  (void)k;
  if (any_unsigned(m)) {
    elem_type et = m->in[0]->type->elem;
    value *x = ordered(m, m->in[0], true), *lo = ordered(m, m->in[1], true), *hi = ordered(m, m->in[2], true);
    return from_ordered(m, mk_binary(m, OP_MINIMUM, mk_binary(m, OP_MAXIMUM, x, lo), hi), true, et);
  }
  return mk_binary(m, OP_MINIMUM, mk_binary(m, OP_MAXIMUM, m->in[0], m->in[1]), m->in[2]);
}

/* relu of an unsigned integer is itself. */
static value *l_relu(fe_mgx_ctx *m, int k) {
  return any_unsigned(m) ? m->in[0] : mk_unary(m, (op_kind)k, m->in[0]);
}

/* unpack: each byte along `axis` holds two 4-bit integers, the low nibble first (MIGraphX's
 * little-endian packing); unsigned ones (a ui8 input, or isUnsigned) are 0..15, signed ones
 * -8..7. Both halves are shifts and masks on i8, interleaved by a concat on a new axis. */
static value *l_unpack(fe_mgx_ctx *m, int k) {
  (void)k;
  value *x = m->in[0];
  int64_t axis;
  if (!attr_int(m, "axis", &axis, false, -1) || !norm_axis(m, "axis", &axis, x->type->rank)) return NULL;
  const attr *u = get_attr(m, "isUnsigned");
  bool uns = u ? u->kind == ATTR_BOOL && u->i : m->in_t[0].is_unsigned;
  char b1[160], b2[160];
  tensor_type want = *x->type;
  want.dims[axis] *= 2;
  if (x->type->elem != ET_I8 || m->out_t.t.elem != ET_I8 || m->out_t.t.rank != want.rank ||
      memcmp(m->out_t.t.dims, want.dims, sizeof(int64_t) * (size_t)want.rank))
    return fe_error(m->p, m->loc, "'%s' unpacks bytes into twice as many 8-bit integers along axis %lld: %s cannot give %s",
                    m->opname, (long long)axis, fe_type_str(x->type, b1, sizeof b1),
                    fe_type_str(&m->out_t.t, b2, sizeof b2)),
           NULL;
  value *four = splat_like(m, x, ET_I8, 4), *lo, *hi;
  if (uns) {
    value *mask = splat_like(m, x, ET_I8, 15);
    lo = mk_binary(m, OP_BITWISE_AND, x, mask);
    hi = mk_binary(m, OP_BITWISE_AND, mk_binary(m, OP_LOGICAL_RIGHT_SHIFT, x, four), mask);
  } else {
    lo = mk_binary(m, OP_ARITHMETIC_RIGHT_SHIFT, mk_binary(m, OP_LOGICAL_LEFT_SHIFT, x, four), four);
    hi = mk_binary(m, OP_ARITHMETIC_RIGHT_SHIFT, x, four);
  }
  int r = x->type->rank;
  int64_t d1[TOSAC_MAX_RANK + 1];
  for (int i = 0, j = 0; i < r; i++) {
    d1[j++] = x->type->dims[i];
    if (i == axis) d1[j++] = 1;
  }
  if (r + 1 > TOSAC_MAX_RANK) return fe_error(m->p, m->loc, "'%s' of rank %d is not supported", m->opname, r), NULL;
  value *parts[2] = {fe_mgx_reshape(m, lo, d1, r + 1), fe_mgx_reshape(m, hi, d1, r + 1)};
  if (!parts[0] || !parts[1]) return NULL;
  tensor_type ct = {.elem = ET_I8, .rank = r + 1};
  memcpy(ct.dims, d1, sizeof(int64_t) * (size_t)(r + 1));
  ct.dims[axis + 1] = 2;
  op *o = fe_op_new(m->p, OP_CONCAT, m->loc, parts, 2);
  fe_set_int(m->p, o, "axis", axis + 1, ET_I32);
  return fe_mgx_reshape(m, finish(m, o, &ct), want.dims, want.rank);
}

/* The condition is i8 (MIGraphX's booleans): non-zero selects inA. */
static value *l_where(fe_mgx_ctx *m, int k) {
  (void)k;
  value *c = mk_cast(m, m->in[0], ET_I1);
  if (!c) return NULL;
  return mk(m, OP_SELECT, 3, c, m->in[1], m->in[2], m->in[1]->type);
}

static value *l_literal(fe_mgx_ctx *m, int k) {
  (void)k;
  const attr *a = m->literal.kind == ATTR_DENSE ? &m->literal : get_attr(m, "value");
  if (!a || a->kind != ATTR_DENSE) return fe_error(m->p, m->loc, "'migraphx.literal' needs a dense value"), NULL;
  dense_data *dd = a->dense;
  const tensor_type *t = &m->out_t.t;
  char x[160], y[160];
  if (dd->type.elem != t->elem || (!dd->splat && !tensor_type_equal(&dd->type, t)))
    return fe_error(m->p, a->loc, "'migraphx.literal' value of type %s does not match its result %s",
                    fe_type_str(&dd->type, x, sizeof x), fe_type_str(t, y, sizeof y)),
           NULL;
  if (!tensor_type_equal(&dd->type, t)) { /* a splat takes the result's shape */
    dense_data *c = arena_alloc(m->p->a, sizeof *c);
    *c = *dd;
    c->type = *t;
    dd = c;
  }
  op *o = fe_op_new(m->p, OP_CONST, m->loc, NULL, 0);
  fe_add_attr(m->p, o, "values", ATTR_DENSE)->dense = dd;
  return finish(m, o, t);
}

static value *l_transpose(fe_mgx_ctx *m, int k) {
  (void)k;
  const int64_t *perm;
  int n;
  const char *name = get_attr(m, "permutation") ? "permutation" : "dims";
  if (!attr_ints(m, name, &perm, &n, true)) return NULL;
  int rank = m->in[0]->type->rank;
  unsigned seen = 0;
  for (int i = 0; i < n; i++)
    if (perm[i] >= 0 && perm[i] < rank) seen |= 1u << perm[i];
  if (n != rank || seen != (1u << rank) - 1)
    return unsupported_value(m, name, arena_printf(m->p->a, "not a permutation of %d dimensions", rank)), NULL;
  return fe_mgx_transpose(m, m->in[0], perm);
}

/* reshape (dims may hold 0 and -1, so the result type gives the shape) and flatten. */
static value *l_reshape(fe_mgx_ctx *m, int k) {
  (void)k;
  return fe_mgx_reshape(m, m->in[0], m->out_t.t.dims, m->out_t.t.rank);
}

static value *l_slice(fe_mgx_ctx *m, int k) {
  (void)k;
  const int64_t *axes, *starts, *ends;
  int na, ns, ne;
  if (!attr_ints(m, "axes", &axes, &na, true) || !attr_ints(m, "starts", &starts, &ns, true) ||
      !attr_ints(m, "ends", &ends, &ne, true))
    return NULL;
  if (ns != na || ne != na) return unsupported_value(m, "starts", "axes, starts and ends differ in length"), NULL;
  const tensor_type *t = m->in[0]->type;
  int64_t start[TOSAC_MAX_RANK] = {0}, size[TOSAC_MAX_RANK];
  memcpy(size, t->dims, sizeof size);
  for (int i = 0; i < na; i++) {
    int64_t ax = axes[i];
    if (!norm_axis(m, "axes", &ax, t->rank)) return NULL;
    int64_t len = t->dims[ax], s = starts[i] < 0 ? starts[i] + len : starts[i], e = ends[i] < 0 ? ends[i] + len : ends[i];
    s = s < 0 ? 0 : s > len ? len : s;
    e = e < 0 ? 0 : e > len ? len : e;
    if (e <= s) return unsupported_value(m, "ends", "the slice is empty"), NULL;
    start[ax] = s;
    size[ax] = e - s;
  }
  return fe_mgx_slice(m, m->in[0], start, size);
}

/* A multibroadcast to a higher rank: the result type's strides say where the input's dims land,
 * as rocMLIR reads them: its dims longer than 1, in order, on the result's dims that have a
 * non-zero stride and are longer than 1 (stride 0 = broadcast). False when they do not say it
 * consistently (then numpy's right alignment applies). */
static bool place_by_strides(const tensor_type *in, const fe_mgx_type *out, int64_t *dims) {
  int o = 0, r = out->t.rank;
  for (int i = 0; i < r; i++) dims[i] = 1;
  if (!out->has_strides) return false;
  for (int i = 0; i < in->rank; i++) {
    if (in->dims[i] == 1) continue;
    while (o < r && (!out->strides[o] || out->t.dims[o] == 1)) o++;
    if (o == r || out->t.dims[o] != in->dims[i]) return false;
    dims[o++] = in->dims[i];
  }
  for (; o < r; o++)
    if (out->strides[o] && out->t.dims[o] > 1) return false;
  return true;
}

/* multibroadcast: the input's dims where the result's strides put them, else aligned at the
 * right (numpy rules); broadcast: the input's dims placed from `axis` on. Both become reshape +
 * x + 0. An out_lens that disagrees with the result type: the result type wins (as in rocMLIR),
 * with a warning. */
static value *l_broadcast(fe_mgx_ctx *m, int multi) {
  const int64_t *lens;
  int n;
  value *x = m->in[0];
  const tensor_type *out = &m->out_t.t;
  if (!attr_ints(m, "out_lens", &lens, &n, false)) return NULL;
  const int64_t *dyn;
  int nd;
  if (!attr_ints(m, "out_dyn_dims", &dyn, &nd, false)) return NULL;
  if (nd) return unsupported_value(m, "out_dyn_dims", "dynamic shapes are not supported"), NULL;
  if (n && (n != out->rank || memcmp(lens, out->dims, sizeof(int64_t) * (size_t)n))) {
    char b[200];
    diag_warning(m->p->d, get_attr(m, "out_lens")->loc,
                 "'%s' out_lens does not match its result type %s; the result type is used", m->opname,
                 fe_mgx_type_str(&m->out_t, b, sizeof b));
  }
  int64_t axis = out->rank - x->type->rank, dims[TOSAC_MAX_RANK];
  if (!multi && !attr_int(m, "axis", &axis, true, 0)) return NULL;
  if (axis < 0 || axis + x->type->rank > out->rank)
    return unsupported_value(m, multi ? "out_lens" : "axis", "the input does not fit the result"), NULL;
  if (!multi || x->type->rank == out->rank || !place_by_strides(x->type, &m->out_t, dims))
    for (int i = 0; i < out->rank; i++) dims[i] = i >= axis && i < axis + x->type->rank ? x->type->dims[i - axis] : 1;
  for (int i = 0; i < out->rank; i++)
    if (dims[i] != 1 && dims[i] != out->dims[i])
      return fe_error(m->p, m->loc, "'%s' cannot broadcast dimension %d of length %lld to %lld", m->opname, i,
                      (long long)dims[i], (long long)out->dims[i]),
             NULL;
  return fe_mgx_broadcast(m, fe_mgx_reshape(m, x, dims, out->rank), out);
}

static value *reduce(fe_mgx_ctx *m, op_kind k, value *x, int64_t axis) {
  if (!x) return NULL;
  tensor_type t = *x->type;
  t.dims[axis] = 1;
  op *o = fe_op_new(m->p, k, m->loc, &x, 1);
  fe_set_int(m->p, o, "axis", axis, ET_I32);
  return finish(m, o, &t);
}

/* reduce_sum / reduce_mean over `axes` (dims kept as 1): one tosa.reduce_sum per axis; the
 * mean multiplies by 1/N (floats only). */
static value *l_reduce(fe_mgx_ctx *m, int mean) {
  const int64_t *axes;
  int n;
  if (!attr_ints(m, "axes", &axes, &n, true)) return NULL;
  value *x = m->in[0];
  int64_t count = 1;
  for (int i = 0; i < n && x; i++) {
    int64_t ax = axes[i];
    if (!norm_axis(m, "axes", &ax, x->type->rank)) return NULL;
    count *= x->type->dims[ax];
    x = reduce(m, OP_REDUCE_SUM, x, ax);
  }
  if (!mean || !x) return x;
  if (!elem_type_is_float(x->type->elem))
    return fe_error(m->p, m->loc, "'migraphx.reduce_mean' of %s is not supported (floats only)", elem_type_name(x->type->elem)),
           NULL;
  tensor_type one = {.elem = x->type->elem, .rank = x->type->rank};
  for (int i = 0; i < one.rank; i++) one.dims[i] = 1;
  return mk_binary(m, OP_MUL, x, fe_mgx_splat(m, &one, 1.0 / (double)count));
}

/* exp(x - max) / sum(exp(x - max)) along axis, as rocMLIR lowers it. */
value *fe_mgx_softmax(fe_mgx_ctx *m, value *x, int64_t axis) {
  value *e = mk_unary(m, OP_EXP, mk_binary(m, OP_SUB, x, reduce(m, OP_REDUCE_MAX, x, axis)));
  return mk_binary(m, OP_MUL, e, mk_unary(m, OP_RECIPROCAL, reduce(m, OP_REDUCE_SUM, e, axis)));
}

static value *l_softmax(fe_mgx_ctx *m, int k) {
  (void)k;
  int64_t axis;
  value *x = m->in[0];
  if (!attr_int(m, "axis", &axis, true, 0) || !norm_axis(m, "axis", &axis, x->type->rank)) return NULL;
  return fe_mgx_softmax(m, x, axis);
}

/* Operand i as an i32 holding its unsigned value when it is a ui* integer (ui32: refused). */
static value *unsigned_value(fe_mgx_ctx *m, int i) {
  value *x = m->in[i];
  if (!m->in_t[i].is_unsigned || elem_type_is_float(x->type->elem)) return x;
  if (elem_type_bits(x->type->elem) >= 32)
    return fe_error(m->p, m->loc, "'%s' of unsigned 32-bit integers is not supported (tosac's integers end at i32)", m->opname),
           NULL;
  return zext32(m, x);
}

/* (convert(x) - convert(bias)) * scale in the scale's type. */
static value *l_dequantize(fe_mgx_ctx *m, int k) {
  (void)k;
  elem_type et = m->in[1]->type->elem;
  value *x = mk_cast(m, unsigned_value(m, 0), et);
  if (m->nin == 3) x = mk_binary(m, OP_SUB, x, mk_cast(m, unsigned_value(m, 2), et));
  return mk_binary(m, OP_MUL, x, m->in[1]);
}

/* convert<i32>(x / scale) + bias, clamped to the output type: tosa.cast rounds to nearest even. */
static value *l_quantize(fe_mgx_ctx *m, int k) {
  (void)k;
  elem_type out = m->out_t.t.elem;
  if (elem_type_is_float(out) || out == ET_I1)
    return fe_error(m->p, m->loc, "'migraphx.quantizelinear' to %s is not supported (integer outputs only)",
                    elem_type_name(out)),
           NULL;
  value *q = mk_cast(m, mk_binary(m, OP_MUL, m->in[0], mk_unary(m, OP_RECIPROCAL, m->in[1])), ET_I32);
  if (m->nin == 3) q = mk_binary(m, OP_ADD, q, mk_cast(m, unsigned_value(m, 2), ET_I32));
  if (!q) return NULL;
  int bits = elem_type_bits(out); /* TOSA 1.0 has no i32 clamp: maximum / minimum */
  double lo = bits >= 32 ? INT32_MIN : -(double)((int64_t)1 << (bits - 1)), hi = -lo - 1;
  if (m->out_t.is_unsigned) {
    if (bits >= 32)
      return fe_error(m->p, m->loc, "'migraphx.quantizelinear' to ui32 is not supported (tosac's integers end at i32)"), NULL;
    lo = 0, hi = (double)(((int64_t)1 << bits) - 1);
  }
  q = mk_binary(m, OP_MINIMUM, mk_binary(m, OP_MAXIMUM, q, fe_mgx_splat(m, q->type, lo)), fe_mgx_splat(m, q->type, hi));
  return mk_cast(m, q, out);
}

/* dot / quant_dot: [..., M, K] x [..., K, N] with equal batch dims -> tosa.matmul on
 * [batch, M, K] x [batch, K, N], reshaped back. */
value *fe_mgx_dot(fe_mgx_ctx *m, value *a, value *b, const tensor_type *out) {
  if (!a || !b) return NULL;
  const tensor_type *ta = a->type, *tb = b->type;
  int r = ta->rank;
  char x[160], y[160];
  bool ok = r >= 2 && tb->rank == r && out->rank == r && ta->dims[r - 1] == tb->dims[r - 2];
  int64_t batch = 1;
  for (int i = 0; ok && i < r - 2; i++) {
    ok = ta->dims[i] == tb->dims[i];
    batch *= ta->dims[i];
  }
  if (!ok)
    return fe_error(m->p, m->loc, "'%s' shapes %s and %s do not multiply (need [..., M, K] x [..., K, N], equal batch dims)",
                    m->opname, fe_type_str(ta, x, sizeof x), fe_type_str(tb, y, sizeof y)),
           NULL;
  int64_t da[3] = {batch, ta->dims[r - 2], ta->dims[r - 1]}, db[3] = {batch, tb->dims[r - 2], tb->dims[r - 1]};
  tensor_type t = {.elem = out->elem, .rank = 3, .dims = {batch, da[1], db[2]}};
  value *mm = mk(m, OP_MATMUL, 2, fe_mgx_reshape(m, a, da, 3), fe_mgx_reshape(m, b, db, 3), NULL, &t);
  return fe_mgx_reshape(m, mm, out->dims, out->rank);
}

/* The block-scaled GEMM (MX formats): each operand times its scale, element by element, then the
 * product. MIGraphX gives each scale the operand's shape, broadcast from one value per block of
 * 32 along K, so the elementwise product is the block-scaled one; K must hold whole blocks (as
 * rocMLIR requires). A power-of-two scale times an fp4 value is exact in f32 and, above 2^-126,
 * in bf16: the GEMM reads bf16 operands (the targets' bf16 MFMA / WMMA) into an f32 result. */
static bool check_scaled(fe_mgx_ctx *m, int i) {
  char x[200], y[200];
  const fe_mgx_type *d = &m->in_t[i], *s = &m->in_t[2 + i];
  if (!elem_type_is_float(d->t.elem))
    return fe_error(m->p, m->loc, "'%s' operand %d of type %s cannot be block scaled (it needs f4E2M1FN or a float)",
                    m->opname, i, fe_mgx_type_str(d, x, sizeof x));
  if (s->mx != FE_MX_F8E8M0FNU)
    return fe_error(m->p, m->loc, "'%s' scale of operand %d has type %s; block scales are f8E8M0FNU", m->opname, i,
                    fe_mgx_type_str(s, x, sizeof x));
  if (d->t.rank != s->t.rank || memcmp(d->t.dims, s->t.dims, sizeof(int64_t) * (size_t)d->t.rank))
    return fe_error(m->p, m->loc,
                    "'%s' scale %s does not have the shape of its operand %s (one scale per element, broadcast "
                    "from one per block)",
                    m->opname, fe_mgx_type_str(s, x, sizeof x), fe_mgx_type_str(d, y, sizeof y));
  return true;
}

static value *scaled_dot(fe_mgx_ctx *m) {
  if (m->nin != 4)
    return fe_error(m->p, m->loc, "'%s' with scales needs two operands, each scaled by one scale", m->opname), NULL;
  const tensor_type *out = &m->out_t.t;
  if (!check_scaled(m, 0) || !check_scaled(m, 1)) return NULL;
  int r = m->in_t[0].t.rank;
  int64_t kdim = r ? m->in_t[0].t.dims[r - 1] : 0;
  if (kdim % 32)
    return fe_error(m->p, m->loc, "'%s' K dimension (%lld) must be a multiple of the block size (32)", m->opname,
                    (long long)kdim),
           NULL;
  if (!elem_type_is_float(out->elem))
    return fe_error(m->p, m->loc, "'%s' with scales gives a float result", m->opname), NULL;
  value *a = mk_cast(m, mk_binary(m, OP_MUL, mk_cast(m, m->in[0], ET_F32), m->in[2]), ET_BF16);
  value *b = mk_cast(m, mk_binary(m, OP_MUL, mk_cast(m, m->in[1], ET_F32), m->in[3]), ET_BF16);
  tensor_type t = *out;
  t.elem = ET_F32;
  return mk_cast(m, fe_mgx_dot(m, a, b, &t), out->elem);
}

static value *l_dot(fe_mgx_ctx *m, int k) {
  (void)k;
  if (m->nscaled) return scaled_dot(m);
  if (m->nin != 2) return fe_error(m->p, m->loc, "'%s' expects 2 operands, found %d", m->opname, m->nin), NULL;
  return fe_mgx_dot(m, m->in[0], m->in[1], &m->out_t.t);
}

/* The convolution proper on channels-last operands: [N, spatial..., C] x [OC, k..., C/group]. */
static value *conv_nhwc(fe_mgx_ctx *m, value *x, value *w, const tensor_type *out, const int64_t *pad, const int64_t *st,
                        const int64_t *dil, int nsp) {
  if (!x || !w) return NULL;
  tensor_type bt = {.elem = out->elem, .rank = 1, .dims = {1}};
  op *o = fe_op_new(m->p, nsp == 3 ? OP_CONV3D : OP_CONV2D, m->loc, (value *[]){x, w, fe_mgx_splat(m, &bt, 0)}, 3);
  if (!o->operands[2]) return NULL;
  fe_set_ints(m->p, o, "pad", pad, 2 * nsp);
  fe_set_ints(m->p, o, "stride", st, nsp);
  fe_set_ints(m->p, o, "dilation", dil, nsp);
  return finish(m, o, out);
}

/* Groups beyond depthwise: one convolution per group on channel slices, concatenated. */
static value *conv_groups(fe_mgx_ctx *m, value *x, value *w, const tensor_type *out, const int64_t *pad, const int64_t *st,
                          const int64_t *dil, int nsp, int64_t groups) {
  int r = nsp + 2;
  int64_t cg = x->type->dims[r - 1] / groups, og = w->type->dims[0] / groups;
  value **parts = arena_alloc(m->p->a, sizeof(value *) * (size_t)groups);
  for (int64_t g = 0; g < groups; g++) {
    int64_t xs[TOSAC_MAX_RANK] = {0}, ws[TOSAC_MAX_RANK] = {0}, xz[TOSAC_MAX_RANK], wz[TOSAC_MAX_RANK];
    memcpy(xz, x->type->dims, sizeof xz);
    memcpy(wz, w->type->dims, sizeof wz);
    xs[r - 1] = g * cg, xz[r - 1] = cg;
    ws[0] = g * og, wz[0] = og;
    tensor_type ot = *out;
    ot.dims[r - 1] = og;
    parts[g] = conv_nhwc(m, fe_mgx_slice(m, x, xs, xz), fe_mgx_slice(m, w, ws, wz), &ot, pad, st, dil, nsp);
    if (!parts[g]) return NULL;
  }
  op *o = fe_op_new(m->p, OP_CONCAT, m->loc, parts, (int)groups);
  fe_set_int(m->p, o, "axis", r - 1, ET_I32);
  return finish(m, o, out);
}

/* A convolution that is a plain matrix product in NCHW: one image, a 1x1 filter, stride 1, no
 * padding, one group. It becomes a matmul on views of the operands, so no transposes and the
 * elementwise epilogue fuses into the GEMM (MIGraphX's NCHW 1x1 convolutions, as in ResNet). */
static bool pointwise(const value *x, const value *w, int64_t groups, const int64_t *pd, int np, const int64_t *sd,
                      int nsp) {
  bool ok = groups == 1 && x->type->dims[0] == 1;
  for (int i = 0; ok && i < nsp; i++) ok = w->type->dims[2 + i] == 1 && sd[i] == 1;
  for (int i = 0; ok && i < np; i++) ok = pd[i] == 0;
  return ok;
}

/* A convolution's attributes, checked against its nsp spatial dims. */
typedef struct conv_attrs {
  const int64_t *pad, *stride, *dil;
  int npad;
  int64_t groups;
} conv_attrs;

static bool read_conv_attrs(fe_mgx_ctx *m, int nsp, conv_attrs *ca) {
  int ns, nd;
  int64_t mode;
  if (!attr_ints(m, "padding", &ca->pad, &ca->npad, true) || !attr_ints(m, "stride", &ca->stride, &ns, true) ||
      !attr_ints(m, "dilation", &ca->dil, &nd, true) || !attr_int(m, "group", &ca->groups, false, 1) ||
      !attr_int(m, "padding_mode", &mode, false, 0))
    return false;
  if (mode != 0) return unsupported_value(m, "padding_mode", "only 0 (explicit padding) is supported");
  if (ca->npad != nsp && ca->npad != 2 * nsp)
    return unsupported_value(m, "padding", arena_printf(m->p->a, "needs %d or %d values", nsp, 2 * nsp));
  if (ns != nsp || nd != nsp)
    return unsupported_value(m, ns != nsp ? "stride" : "dilation", arena_printf(m->p->a, "needs %d values", nsp));
  return true;
}

/* convolution / quant_convolution: NC(D)HW input, KC(D)HW filter, 1 to 3 spatial dims. Padding
 * is [begin..., end...] (or one value per dim for both sides), TOSA wants [begin, end] pairs.
 * 1-D becomes 2-D with a unit width, as rocMLIR does. */
static value *l_conv(fe_mgx_ctx *m, int k) {
  (void)k;
  value *x = m->in[0], *w = m->in[1];
  int r = x->type->rank, nsp = r - 2;
  const tensor_type *out = &m->out_t.t;
  if (nsp < 1 || nsp > 3 || w->type->rank != r || out->rank != r)
    return fe_error(m->p, m->loc, "'%s' needs input, filter and result of equal rank 3 to 5 (1 to 3 spatial dims)", m->opname),
           NULL;
  conv_attrs ca;
  if (!read_conv_attrs(m, nsp, &ca)) return NULL;
  const int64_t *pd = ca.pad, *sd = ca.stride, *dd = ca.dil;
  int np = ca.npad;
  int64_t groups = ca.groups;
  int64_t c = x->type->dims[1], oc = w->type->dims[0];
  if (groups < 1 || c % groups || oc % groups || w->type->dims[1] * groups != c)
    return unsupported_value(m, "group", arena_printf(m->p->a, "%lld does not divide input channels %lld and filter %lld x %lld",
                                                      (long long)groups, (long long)c, (long long)oc,
                                                      (long long)w->type->dims[1])),
           NULL;
  if (pointwise(x, w, groups, pd, np, sd, nsp)) { /* one image, 1x1 filter: W[K, C] x X[C, HW] */
    int64_t hw = tensor_numel(x->type) / c, da[3] = {1, oc, c}, db[3] = {1, c, hw};
    tensor_type t = {.elem = out->elem, .rank = 3, .dims = {1, oc, hw}};
    value *mm = mk(m, OP_MATMUL, 2, fe_mgx_reshape(m, w, da, 3), fe_mgx_reshape(m, x, db, 3), NULL, &t);
    return fe_mgx_reshape(m, mm, out->dims, out->rank);
  }
  int tn = nsp == 1 ? 2 : nsp; /* TOSA spatial dims */
  int64_t pad[6] = {0}, st[3] = {1, 1, 1}, dil[3] = {1, 1, 1};
  for (int i = 0; i < nsp; i++) {
    pad[2 * i] = pd[i];
    pad[2 * i + 1] = np == nsp ? pd[i] : pd[i + nsp];
    st[i] = sd[i];
    dil[i] = dd[i];
  }
  int64_t to_last[5] = {0}, from_last[5] = {0};
  for (int i = 0; i < nsp; i++) to_last[1 + i] = 2 + i, from_last[2 + i] = 1 + i;
  to_last[r - 1] = 1, from_last[1] = r - 1;
  value *xt = fe_mgx_transpose(m, x, to_last), *wt = fe_mgx_transpose(m, w, to_last);
  tensor_type ot = {.elem = out->elem, .rank = tn + 2};
  ot.dims[0] = out->dims[0];
  for (int i = 0; i < nsp; i++) ot.dims[1 + i] = out->dims[2 + i];
  if (nsp == 1) { /* [N, W, C] -> [N, W, 1, C] */
    int64_t xd[4] = {x->type->dims[0], x->type->dims[2], 1, c}, wd[4] = {oc, w->type->dims[2], 1, w->type->dims[1]};
    xt = fe_mgx_reshape(m, xt, xd, 4);
    wt = fe_mgx_reshape(m, wt, wd, 4);
    ot.dims[2] = 1;
  }
  ot.dims[tn + 1] = oc;
  value *y;
  if (groups == 1) {
    y = conv_nhwc(m, xt, wt, &ot, pad, st, dil, tn);
  } else if (groups == c && tn == 2) { /* depthwise: filter [C*M, 1, KH, KW] -> [KH, KW, C, M] */
    int64_t kh = w->type->dims[2], kw = nsp == 1 ? 1 : w->type->dims[3];
    int64_t wd[4] = {c, oc / c, kh, kw}, perm[4] = {2, 3, 0, 1};
    value *wdw = fe_mgx_transpose(m, fe_mgx_reshape(m, w, wd, 4), perm);
    value *bias = fe_mgx_splat(m, &(tensor_type){.elem = out->elem, .rank = 1, .dims = {1}}, 0);
    if (!xt || !wdw || !bias) return NULL;
    op *o = fe_op_new(m->p, OP_DEPTHWISE_CONV2D, m->loc, (value *[]){xt, wdw, bias}, 3);
    fe_set_ints(m->p, o, "pad", pad, 4);
    fe_set_ints(m->p, o, "stride", st, 2);
    fe_set_ints(m->p, o, "dilation", dil, 2);
    y = finish(m, o, &ot);
  } else {
    y = xt && wt ? conv_groups(m, xt, wt, &ot, pad, st, dil, tn, groups) : NULL;
  }
  if (nsp == 1) {
    int64_t yd[3] = {ot.dims[0], ot.dims[1], oc};
    y = fe_mgx_reshape(m, y, yd, 3);
  }
  return fe_mgx_transpose(m, y, from_last);
}

/* backwards_data_convolution: a convolution's gradient with respect to its input, i.e. a
 * transposed convolution. Input [N, K, H(, W)] (the output gradient), filter [K, C, kh(, kw)]:
 * out[n, c, y * stride + ky - pad_begin] += in[n, k, y] * w[k, c, ky]. That is
 * tosa.transpose_conv2d on channels-last operands with the filter as [C, kh, kw, K] and
 * out_pad = -padding; 1-D as 2-D with a unit width. rocMLIR reads 1-D and 2-D forms only. */
static value *l_bwd_conv(fe_mgx_ctx *m, int k) {
  (void)k;
  value *x = m->in[0], *w = m->in[1];
  int r = x->type->rank, nsp = r - 2;
  const tensor_type *out = &m->out_t.t;
  if (nsp < 1 || nsp > 2 || w->type->rank != r || out->rank != r)
    return fe_error(m->p, m->loc, "'%s' needs input, filter and result of equal rank 3 or 4 (1 or 2 spatial dims)", m->opname),
           NULL;
  conv_attrs ca;
  if (!read_conv_attrs(m, nsp, &ca)) return NULL;
  const int64_t *pd = ca.pad, *sd = ca.stride;
  int np = ca.npad;
  for (int i = 0; i < nsp; i++)
    if (ca.dil[i] != 1)
      return unsupported_value(m, "dilation", "only 1 is supported (tosa.transpose_conv2d has none)"), NULL;
  if (ca.groups != 1) return unsupported_value(m, "group", "only 1 is supported"), NULL;
  if (w->type->dims[0] != x->type->dims[1])
    return fe_error(m->p, m->loc, "'%s' filter has %lld input channels, the input %lld", m->opname,
                    (long long)w->type->dims[0], (long long)x->type->dims[1]),
           NULL;
  int64_t n = x->type->dims[0], kc = x->type->dims[1], c = w->type->dims[1];
  int64_t xd[4] = {n, x->type->dims[2], nsp == 2 ? x->type->dims[3] : 1, kc};
  int64_t wd[4] = {c, w->type->dims[2], nsp == 2 ? w->type->dims[3] : 1, kc};
  int64_t xperm[4] = {0, 2, 3, 1}, wperm[4] = {1, 2, 3, 0};
  if (nsp == 1) xperm[1] = 2, xperm[2] = 1, wperm[1] = 2, wperm[2] = 0;
  value *xt = fe_mgx_reshape(m, fe_mgx_transpose(m, x, xperm), xd, 4);
  value *wt = fe_mgx_reshape(m, fe_mgx_transpose(m, w, wperm), wd, 4);
  value *bias = fe_mgx_splat(m, &(tensor_type){.elem = out->elem, .rank = 1, .dims = {1}}, 0);
  if (!xt || !wt || !bias) return NULL;
  int64_t opad[4] = {0}, st[2] = {1, 1};
  for (int i = 0; i < nsp; i++) {
    opad[2 * i] = -pd[i];
    opad[2 * i + 1] = -(np == nsp ? pd[i] : pd[i + nsp]);
    st[i] = sd[i];
  }
  tensor_type ot = {.elem = out->elem, .rank = 4, .dims = {n, out->dims[2], nsp == 2 ? out->dims[3] : 1, c}};
  op *o = fe_op_new(m->p, OP_TRANSPOSE_CONV2D, m->loc, (value *[]){xt, wt, bias}, 3);
  fe_set_ints(m->p, o, "out_pad", opad, 4);
  fe_set_ints(m->p, o, "stride", st, 2);
  value *y = finish(m, o, &ot);
  int64_t yd[3] = {n, out->dims[2], c}, back[4] = {0, 3, 1, 2}, back1[3] = {0, 2, 1};
  if (nsp == 1) return fe_mgx_transpose(m, fe_mgx_reshape(m, y, yd, 3), back1);
  return fe_mgx_transpose(m, y, back);
}

static value *l_refused(fe_mgx_ctx *m, int k) {
  (void)k;
  return fe_error(m->p, m->loc, "'%s' is not supported by tosac's migraphx frontend (docs/migraphx.md lists the ops it reads)",
                  m->opname),
         NULL;
}

/* ---------------------------------------------------------------- the op table */

#define CONV_ATTRS "padding stride dilation group padding_mode perf_config xdlopsV2"
static const fe_mgx_opdef mgx_ops[] = {
    /* add, sub, mul and neg wrap the same way signed or unsigned */
    {"add", l_binary, OP_ADD, 2, 2, "", true},
    {"sub", l_binary, OP_SUB, 2, 2, "", true},
    {"mul", l_binary, OP_MUL, 2, 2, "", true},
    {"pow", l_binary, OP_POW, 2, 2, "", false},
    {"div", l_div, 0, 2, 2, "", true},
    {"greater", l_compare, OP_GREATER, 2, 2, "", true},
    {"less", l_compare, -OP_GREATER, 2, 2, "", true},
    {"equal", l_compare, OP_EQUAL, 2, 2, "", true},
    {"greater_or_equal", l_compare, OP_GREATER_EQUAL, 2, 2, "", true},
    {"abs", l_unary, OP_ABS, 1, 1, "", false},
    {"ceil", l_unary, OP_CEIL, 1, 1, "", false},
    {"erf", l_unary, OP_ERF, 1, 1, "", false},
    {"exp", l_unary, OP_EXP, 1, 1, "", false},
    {"floor", l_unary, OP_FLOOR, 1, 1, "", false},
    {"log", l_unary, OP_LOG, 1, 1, "", false},
    {"neg", l_unary, OP_NEGATE, 1, 1, "", true},
    {"recip", l_unary, OP_RECIPROCAL, 1, 1, "", false},
    {"relu", l_relu, OP_RELU, 1, 1, "", true},
    {"rsqrt", l_unary, OP_RSQRT, 1, 1, "", false},
    {"sigmoid", l_unary, OP_SIGMOID, 1, 1, "", false},
    {"tanh", l_unary, OP_TANH, 1, 1, "", false},
    {"sqrt", l_sqrt, 0, 1, 1, "", false},
    {"convert", l_convert, 0, 1, 1, "zero_extend target_type", true},
    {"clip", l_clip, 0, 3, 3, "", true},
    {"where", l_where, 0, 3, 3, "", true},
    {"literal", l_literal, 0, 0, 0, "value", true},
    {"unpack", l_unpack, 0, 1, 1, "axis isUnsigned", true},
    {"convolution", l_conv, 0, 2, 2, CONV_ATTRS, false},
    {"quant_convolution", l_conv, 1, 2, 2, CONV_ATTRS, false},
    {"backwards_data_convolution", l_bwd_conv, 0, 2, 2, CONV_ATTRS " kernelId", false},
    {"dot", l_dot, 0, 2, 2, "perf_config xdlopsV2", false},
    {"quant_dot", l_dot, 1, 2, 4, "perf_config xdlopsV2", false},
    {"transpose", l_transpose, 0, 1, 1, "permutation dims", true},
    {"reshape", l_reshape, 0, 1, 1, "dims", true},
    {"flatten", l_reshape, 0, 1, 1, "axis", true},
    {"slice", l_slice, 0, 1, 1, "axes starts ends", true},
    {"multibroadcast", l_broadcast, 1, 1, 1, "out_lens out_dyn_dims", true},
    {"broadcast", l_broadcast, 0, 1, 1, "axis out_lens out_dyn_dims", true},
    {"reduce_sum", l_reduce, 0, 1, 1, "axes", true},
    {"reduce_mean", l_reduce, 1, 1, 1, "axes", false},
    {"softmax", l_softmax, 0, 1, 1, "axis", false},
    {"dequantizelinear", l_dequantize, 0, 2, 3, "", true},
    {"quantizelinear", l_quantize, 0, 2, 3, "", true},
    /* In the dialect, but not read (yet): a clear refusal rather than "unknown". */
    {"pooling", l_refused, 0, 0, 8, NULL, false},
    {"pad", l_refused, 0, 0, 8, NULL, false},
    {"batch_norm_inference", l_refused, 0, 0, 8, NULL, false},
    {"code_object", l_refused, 0, 0, 8, NULL, false},
    {"mlir.as.logical.shape", l_refused, 0, 0, 8, NULL, false},
    {"mlir.as.underlying.shape", l_refused, 0, 0, 8, NULL, false},
};

const fe_mgx_opdef *fe_mgx_find_op(const char *name) {
  for (size_t i = 0; i < sizeof mgx_ops / sizeof mgx_ops[0]; i++)
    if (!strcmp(mgx_ops[i].name, name)) return &mgx_ops[i];
  return NULL;
}
