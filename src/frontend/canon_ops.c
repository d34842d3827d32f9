/* canon_ops.c: canonical form (docs/graph.md) for matmul, convolution, pooling, reductions,
 * data movement, rescale and the legacy spellings (fully_connected, reluN, div,
 * quantization_info). Constant operands that hold shapes or zero points become attributes; older
 * conv/pool geometry that floors the output size becomes exact TOSA 1.0 geometry. */
#include "frontend/frontend.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static const char *op_name(const op *o) { return op_table[o->kind].name; }

/* The constant (tosa.const, tosa.const_shape) that defines operand idx, or NULL after an error. */
static const dense_data *const_of(fe_parser *p, fe_opctx *c, int idx, const char *what) {
  value *v = c->o->operands[idx];
  op *d = v->def;
  if (!d || (d->kind != OP_CONST && d->kind != OP_CONST_SHAPE)) {
    fe_error(p, c->operand_locs[idx], "the %s operand of '%s' must be a constant (tosa.const or tosa.const_shape), but '%%%s' is %s",
             what, op_name(c->o), VALUE_NAME(v),
             d ? arena_printf(p->a, "computed by '%s'", op_name(d)) : "a function argument");
    if (d) fe_note(p, d->loc, "operand defined here");
    return NULL;
  }
  attr *va = fe_find_attr(d, "values");
  if (!va || va->kind != ATTR_DENSE) {
    fe_error(p, c->operand_locs[idx], "the %s operand of '%s' has no constant value", what, op_name(c->o));
    return NULL;
  }
  return va->dense;
}

/* A one-element constant operand: a zero point, shift or pad value. */
static bool take_scalar(fe_parser *p, fe_opctx *c, int idx, const char *name, elem_type et) {
  const dense_data *dd = const_of(p, c, idx, name);
  if (!dd) return false;
  if (tensor_numel(&dd->type) != 1) {
    char tb[160];
    return fe_error(p, c->operand_locs[idx], "the %s operand of '%s' must hold one value, but it is %s", name,
                    op_name(c->o), fe_type_str(&dd->type, tb, sizeof tb));
  }
  attr *a;
  if (elem_type_is_float(dd->type.elem)) a = fe_set_float(p, c->o, name, fe_dense_float(dd, 0), et ? et : dd->type.elem);
  else a = fe_set_int(p, c->o, name, fe_dense_int(dd, 0), et ? et : dd->type.elem);
  a->loc = c->operand_locs[idx];
  return true;
}

/* A constant operand read as a list of integers (shapes, perms, padding, multipliers). */
static bool take_ints(fe_parser *p, fe_opctx *c, int idx, const char *name) {
  const dense_data *dd = const_of(p, c, idx, name);
  if (!dd) return false;
  int64_t n = tensor_numel(&dd->type);
  if (n > 4096) return fe_error(p, c->operand_locs[idx], "the %s operand of '%s' is too long", name, op_name(c->o));
  int64_t *v = arena_alloc(p->a, sizeof(int64_t) * (size_t)(n ? n : 1));
  for (int64_t i = 0; i < n; i++) v[i] = fe_dense_int(dd, i);
  attr *a = fe_set_ints(p, c->o, name, v, (int)n);
  a->loc = c->operand_locs[idx];
  return true;
}

/* `name = value` inside a legacy quantization_info attribute (#tosa.conv_quant<...> or a
 * dictionary, both kept as text). */
static bool quant_field(const op *o, const char *name, int64_t *out) {
  const attr *q = op_attr(o, "quantization_info");
  if (!q || q->kind != ATTR_STR || !q->s) return false;
  size_t n = strlen(name);
  for (const char *s = strstr(q->s, name); s; s = strstr(s + 1, name)) {
    if (s > q->s && (s[-1] == '_' || (s[-1] >= 'a' && s[-1] <= 'z'))) continue;
    const char *e = s + n;
    while (*e == ' ') e++;
    if (*e != '=') continue;
    e++;
    *out = strtoll(e, NULL, 10);
    return true;
  }
  return false;
}

/* Zero point `name`: from constant operand idx (TOSA 1.0), an attribute, or quantization_info;
 * stored as ATTR_INT / ATTR_FLOAT typed like `et` (the tensor it applies to). */
static bool canon_zp(fe_parser *p, fe_opctx *c, int idx, const char *name, elem_type et) {
  op *o = c->o;
  if (idx < o->noperands) return take_scalar(p, c, idx, name, ET_INVALID);
  attr *old = fe_find_attr(o, name);
  int64_t v = 0;
  double f = 0;
  if (old && old->kind == ATTR_FLOAT) f = old->f, v = (int64_t)old->f;
  else if (old && old->kind == ATTR_INT) v = old->i, f = (double)old->i;
  else if (quant_field(o, name, &v)) f = (double)v;
  if (elem_type_is_float(et)) fe_set_float(p, o, name, f, et);
  else fe_set_int(p, o, name, v, et);
  return true;
}

/* An attribute that must be an integer list (array<i64: ...> or [..]); absent -> error. */
static attr *need_ints(fe_parser *p, fe_opctx *c, const char *name, int n) {
  attr *a = fe_find_attr(c->o, name);
  if (!a) {
    fe_error(p, c->name_loc, "'%s' requires the attribute '%s'", op_name(c->o), name);
    return NULL;
  }
  if (a->kind != ATTR_INTS) {
    fe_error(p, a->loc, "'%s' attribute '%s' must be a list of integers", op_name(c->o), name);
    return NULL;
  }
  if (n >= 0 && a->n != n) {
    fe_error(p, a->loc, "'%s' attribute '%s' must have %d elements, found %d", op_name(c->o), name, n, a->n);
    return NULL;
  }
  return a;
}

/* Integer attribute (i32/i64), defaulting when absent. */
static bool need_int(fe_parser *p, fe_opctx *c, const char *name, bool required, int64_t dflt) {
  attr *a = fe_find_attr(c->o, name);
  if (!a) {
    if (required) return fe_error(p, c->name_loc, "'%s' requires the attribute '%s'", op_name(c->o), name);
    fe_set_int(p, c->o, name, dflt, ET_I32);
    return true;
  }
  if (a->kind != ATTR_INT) return fe_error(p, a->loc, "'%s' attribute '%s' must be an integer", op_name(c->o), name);
  a->type_elem = ET_I32;
  return true;
}

static void default_str(fe_parser *p, op *o, const char *name, const char *dflt) {
  attr *a = fe_find_attr(o, name);
  if (!a || a->kind != ATTR_STR) fe_set_str(p, o, name, dflt);
}

/* acc_type: kept when given (TOSA 1.0), else what older TOSA accumulated in. */
static void default_acc(fe_parser *p, op *o, elem_type in) {
  attr *a = fe_find_attr(o, "acc_type");
  if (a && a->kind == ATTR_TYPE) return;
  elem_type acc = in == ET_I16 ? ET_I48 : elem_type_is_int(in) ? ET_I32 : elem_type_is_f8(in) ? ET_F16 : ET_F32;
  fe_remove_attr(o, "acc_type");
  attr *n = fe_add_attr(p, o, "acc_type", ATTR_TYPE);
  n->type_elem = acc;
  n->s = elem_type_name(acc);
}

/* ---------------------------------------------------------------- exact conv/pool geometry */
/* Older TOSA floored (in - 1 + pad_before + pad_after - (k - 1) * dilation) / stride; TOSA 1.0
 * needs exact division. The remainder r of trailing rows is never read by any window, so trim it
 * from the trailing padding, or (when that padding is smaller) slice r - pad_after trailing input
 * rows away with a tosa.slice inserted before the op. */
static bool exact_geometry(fe_parser *p, fe_opctx *c, int nsp, int first_dim, const int64_t *kext) {
  op *o = c->o;
  attr *pad = fe_find_attr(o, "pad"), *stride = fe_find_attr(o, "stride");
  value *in = o->operands[0];
  int64_t cut[3] = {0, 0, 0};
  bool any = false;
  for (int i = 0; i < nsp; i++) {
    int64_t s = stride->ints[i];
    if (s < 1) return true; /* the verifier reports it */
    int64_t num = in->type->dims[first_dim + i] - 1 + pad->ints[2 * i] + pad->ints[2 * i + 1] - (kext[i] - 1);
    if (num < 0) return true;
    int64_t r = num % s;
    if (!r) continue;
    int64_t *after = &pad->ints[2 * i + 1];
    if (*after >= r) {
      *after -= r;
    } else {
      cut[i] = r - *after;
      *after = 0;
      any = true;
    }
  }
  if (!any) return true;
  if (c->npre == FE_MAX_PRE_OPS) return fe_error(p, c->name_loc, "internal: too many inserted ops");
  op *sl = arena_alloc(p->a, sizeof *sl);
  sl->kind = OP_SLICE;
  sl->loc = o->loc;
  sl->noperands = 1;
  sl->operands = arena_alloc(p->a, sizeof(value *));
  sl->operands[0] = in;
  value *r = arena_alloc(p->a, sizeof *r);
  tensor_type rt = *in->type;
  for (int i = 0; i < nsp; i++) rt.dims[first_dim + i] -= cut[i];
  r->type = type_intern(p->a, &rt);
  r->loc = o->loc;
  r->def = sl;
  r->name = name_intern(p->a, arena_printf(p->a, "%s_exact", in->name ? VALUE_NAME(in) : "v"));
  sl->results = arena_alloc(p->a, sizeof(value *));
  sl->results[0] = r;
  sl->nresults = 1;
  int64_t start[TOSAC_MAX_RANK] = {0};
  fe_set_ints(p, sl, "start", start, in->type->rank);
  fe_set_ints(p, sl, "size", r->type->dims, in->type->rank);
  c->pre_ops[c->npre++] = sl;
  o->operands[0] = r;
  return true;
}

/* ---------------------------------------------------------------- matmul and convolutions */
static bool canon_matmul(fe_parser *p, fe_opctx *c) {
  op *o = c->o;
  if (o->noperands == 3) return fe_error(p, c->name_loc, "'tosa.matmul' takes 2 operands or 4 (with a_zp and b_zp), found 3");
  if (!canon_zp(p, c, 2, "a_zp", o->operands[0]->type->elem)) return false;
  if (!canon_zp(p, c, 3, "b_zp", o->operands[1]->type->elem)) return false;
  o->noperands = 2;
  fe_remove_attr(o, "quantization_info");
  return true;
}

/* i4 weights of the fully_connected before TOSA 1.0: the constant's values sign-extended to i8,
 * exactly the numbers the i8 GEMM then multiplies (the constant is retyped in place). */
static bool widen_i4_weights(fe_parser *p, fe_opctx *c) {
  value *w = c->o->operands[1];
  if (w->type->elem != ET_I4) return true;
  const dense_data *dd = const_of(p, c, 1, "i4 weight");
  if (!dd) return fe_note(p, c->operand_locs[1], "tosac widens i4 weights to i8 at compile time"), false;
  int64_t n = tensor_numel(&dd->type);
  dense_data *wide = arena_alloc(p->a, sizeof *wide);
  uint8_t *bytes = arena_alloc(p->a, (size_t)(n ? n : 1));
  for (int64_t i = 0; i < (dd->splat ? 1 : n); i++) bytes[i] = (uint8_t)fe_dense_int(dd, i);
  *wide = (dense_data){.type = dd->type, .bytes = bytes, .nbytes = (size_t)(dd->splat ? 1 : n), .splat = dd->splat};
  wide->type.elem = ET_I8;
  fe_find_attr(w->def, "values")->dense = wide;
  tensor_type t = *w->type;
  t.elem = ET_I8;
  w->type = type_intern(p->a, &t);
  return true;
}

static bool canon_fc(fe_parser *p, fe_opctx *c) {
  op *o = c->o;
  if (!widen_i4_weights(p, c)) return false;
  if (!canon_zp(p, c, 3, "input_zp", o->operands[0]->type->elem)) return false;
  if (!canon_zp(p, c, 4, "weight_zp", o->operands[1]->type->elem)) return false;
  fe_remove_attr(o, "quantization_info");
  return true;
}

static bool canon_conv(fe_parser *p, fe_opctx *c) {
  op *o = c->o;
  int nsp = o->kind == OP_CONV3D ? 3 : 2;
  bool tconv = o->kind == OP_TRANSPOSE_CONV2D;
  if (o->noperands == 4)
    return fe_error(p, c->name_loc, "'%s' takes 3 operands or 5 (with input_zp and weight_zp), found 4", op_name(o));
  if (!canon_zp(p, c, 3, "input_zp", o->operands[0]->type->elem)) return false;
  if (!canon_zp(p, c, 4, "weight_zp", o->operands[1]->type->elem)) return false;
  o->noperands = 3;
  fe_remove_attr(o, "quantization_info");
  fe_remove_attr(o, "local_bound");
  default_acc(p, o, o->operands[0]->type->elem);
  if (tconv) {
    fe_remove_attr(o, "out_shape");
    if (!need_ints(p, c, "out_pad", 4) || !need_ints(p, c, "stride", 2)) return false;
    return true;
  }
  if (o->kind == OP_DEPTHWISE_CONV2D && fe_find_attr(o, "out_pad")) /* transposed (verify_ops.c) */
    return need_ints(p, c, "out_pad", 4) && need_ints(p, c, "stride", 2) && need_ints(p, c, "dilation", 2);
  attr *pad = need_ints(p, c, "pad", 2 * nsp), *stride = need_ints(p, c, "stride", nsp);
  attr *dil = need_ints(p, c, "dilation", nsp);
  if (!pad || !stride || !dil) return false;
  const tensor_type *w = o->operands[1]->type, *x = o->operands[0]->type;
  if (x->rank != nsp + 2 || w->rank != nsp + 2) return true; /* the verifier reports ranks */
  int64_t kext[3];
  for (int i = 0; i < nsp; i++) {
    int64_t k = o->kind == OP_DEPTHWISE_CONV2D ? w->dims[i] : w->dims[1 + i];
    kext[i] = (k - 1) * dil->ints[i] + 1;
  }
  return exact_geometry(p, c, nsp, 1, kext);
}

static bool canon_pool(fe_parser *p, fe_opctx *c) {
  op *o = c->o;
  elem_type et = o->operands[0]->type->elem;
  if (o->kind == OP_AVG_POOL2D) {
    if (o->noperands == 2)
      return fe_error(p, c->name_loc, "'tosa.avg_pool2d' takes 1 operand or 3 (with input_zp and output_zp), found 2");
    if (!canon_zp(p, c, 1, "input_zp", et)) return false;
    if (!canon_zp(p, c, 2, "output_zp", c->declared.elem)) return false;
    default_acc(p, o, et);
  } else {
    default_str(p, o, "nan_mode", "PROPAGATE");
  }
  o->noperands = 1;
  fe_remove_attr(o, "quantization_info");
  attr *k = need_ints(p, c, "kernel", 2), *pad = need_ints(p, c, "pad", 4), *st = need_ints(p, c, "stride", 2);
  if (!k || !pad || !st) return false;
  if (o->operands[0]->type->rank != 4) return true;
  return exact_geometry(p, c, 2, 1, k->ints);
}

/* ---------------------------------------------------------------- reductions */
static bool canon_reduce(fe_parser *p, fe_opctx *c) {
  op *o = c->o;
  if (!need_int(p, c, "axis", true, 0)) return false;
  if (o->kind == OP_REDUCE_MAX || o->kind == OP_REDUCE_MIN || o->kind == OP_ARGMAX)
    default_str(p, o, "nan_mode", "PROPAGATE");
  return true;
}

/* ---------------------------------------------------------------- data movement */
/* Shape-like argument: the TOSA 1.0 operand at idx, else the attribute (also legacy names). */
static bool shape_arg(fe_parser *p, fe_opctx *c, int idx, const char *name, const char *legacy) {
  op *o = c->o;
  if (idx < o->noperands) return take_ints(p, c, idx, name);
  attr *a = fe_find_attr(o, name);
  if (!a && legacy && (a = fe_find_attr(o, legacy))) a->name = name;
  if (!a) return fe_error(p, c->name_loc, "'%s' requires the %s operand (or attribute)", op_name(o), name);
  if (a->kind != ATTR_INTS) return fe_error(p, a->loc, "'%s' attribute '%s' must be a list of integers", op_name(o), name);
  return true;
}

static bool canon_transpose(fe_parser *p, fe_opctx *c) {
  if (!shape_arg(p, c, 1, "perms", NULL)) return false;
  c->o->noperands = 1;
  return true;
}

static bool canon_reshape(fe_parser *p, fe_opctx *c) {
  op *o = c->o;
  if (!shape_arg(p, c, 1, "new_shape", "shape")) return false;
  o->noperands = 1;
  attr *a = fe_find_attr(o, "new_shape");
  /* Older graphs allow one -1 (inferred) dimension; the result type says what it is. */
  if (a->n == c->declared.rank)
    for (int i = 0; i < a->n; i++)
      if (a->ints[i] == -1) a->ints[i] = c->declared.dims[i];
  /* Still -1 when the result type says '?' too (a dynamic batch): the element count tells. */
  int64_t known = 1, numel = tensor_numel(o->operands[0]->type);
  int unknown = -1;
  for (int i = 0; i < a->n; i++) {
    if (a->ints[i] == -1 && unknown < 0) unknown = i;
    else known *= a->ints[i] > 0 ? a->ints[i] : 1;
  }
  if (unknown >= 0 && known > 0 && numel % known == 0) a->ints[unknown] = numel / known;
  return true;
}

static bool canon_slice(fe_parser *p, fe_opctx *c) {
  op *o = c->o;
  if (o->noperands == 2) return fe_error(p, c->name_loc, "'tosa.slice' takes 1 operand or 3 (input, start, size), found 2");
  if (!shape_arg(p, c, 1, "start", NULL) || !shape_arg(p, c, 2, "size", NULL)) return false;
  o->noperands = 1;
  attr *st = fe_find_attr(o, "start"), *sz = fe_find_attr(o, "size");
  const tensor_type *in = o->operands[0]->type;
  if (st->n == in->rank && sz->n == in->rank)
    for (int i = 0; i < sz->n; i++)
      if (sz->ints[i] == -1) sz->ints[i] = in->dims[i] - st->ints[i];
  return true;
}

static bool canon_pad(fe_parser *p, fe_opctx *c) {
  op *o = c->o;
  elem_type et = o->operands[0]->type->elem;
  if (o->noperands >= 2) {
    if (!take_ints(p, c, 1, "padding")) return false;
  } else if (!shape_arg(p, c, 9, "padding", "pad")) {
    return false;
  }
  if (o->noperands == 3) {
    if (!take_scalar(p, c, 2, "pad_const", et)) return false;
  } else {
    attr *fp = fe_find_attr(o, "pad_const_fp"), *ip = fe_find_attr(o, "pad_const_int"), *pc = fe_find_attr(o, "pad_const");
    int64_t zp = 0;
    double v = 0;
    if (pc && pc->kind == ATTR_FLOAT) v = pc->f;
    else if (pc && pc->kind == ATTR_INT) v = (double)pc->i;
    else if (elem_type_is_float(et) && fp) v = fp->kind == ATTR_FLOAT ? fp->f : (double)fp->i;
    else if (!elem_type_is_float(et) && ip && ip->kind == ATTR_INT) v = (double)ip->i;
    else if (quant_field(o, "input_zp", &zp)) v = (double)zp;
    fe_remove_attr(o, "pad_const_fp");
    fe_remove_attr(o, "pad_const_int");
    if (elem_type_is_float(et)) fe_set_float(p, o, "pad_const", v, et);
    else fe_set_int(p, o, "pad_const", (int64_t)v, et);
  }
  o->noperands = 1;
  fe_remove_attr(o, "quantization_info");
  return true;
}

static bool canon_tile(fe_parser *p, fe_opctx *c) {
  if (!shape_arg(p, c, 1, "multiples", NULL)) return false;
  c->o->noperands = 1;
  return true;
}

static bool canon_resize(fe_parser *p, fe_opctx *c) {
  op *o = c->o;
  if (o->noperands != 1 && o->noperands != 4)
    return fe_error(p, c->name_loc, "'tosa.resize' takes 1 operand or 4 (input, scale, offset, border), found %d",
                    o->noperands);
  if (!shape_arg(p, c, 1, "scale", NULL) || !shape_arg(p, c, 2, "offset", NULL) || !shape_arg(p, c, 3, "border", NULL))
    return false;
  o->noperands = 1;
  attr *m = fe_find_attr(o, "mode");
  if (!m || m->kind != ATTR_STR)
    return fe_error(p, m ? m->loc : c->name_loc, "'tosa.resize' requires the attribute 'mode' (NEAREST_NEIGHBOR or BILINEAR)");
  return true;
}

/* ---------------------------------------------------------------- elementwise extras */
static bool canon_rescale(fe_parser *p, fe_opctx *c) {
  op *o = c->o;
  elem_type in = o->operands[0]->type->elem, out = c->declared.elem;
  if (o->noperands != 1 && o->noperands != 5)
    return fe_error(p, c->name_loc, "'tosa.rescale' takes 1 operand or 5 (input, multiplier, shift, input_zp, output_zp), found %d",
                    o->noperands);
  if (o->noperands == 5) {
    if (!take_ints(p, c, 1, "multiplier") || !take_ints(p, c, 2, "shift")) return false;
    if (!take_scalar(p, c, 3, "input_zp", in) || !take_scalar(p, c, 4, "output_zp", out)) return false;
  } else {
    if (!need_ints(p, c, "multiplier", -1) || !need_ints(p, c, "shift", -1)) return false;
    if (!canon_zp(p, c, 9, "input_zp", in) || !canon_zp(p, c, 9, "output_zp", out)) return false;
  }
  o->noperands = 1;
  attr *rm = fe_find_attr(o, "rounding_mode"), *dr = fe_find_attr(o, "double_round");
  if (!rm || rm->kind != ATTR_STR)
    fe_set_str(p, o, "rounding_mode", dr && dr->kind == ATTR_BOOL && dr->i ? "DOUBLE_ROUND" : "SINGLE_ROUND");
  fe_remove_attr(o, "double_round");
  /* without the flags (the forms before TOSA 1.0), a ui8 / ui16 input or result is unsigned */
  static const char *const flags[] = {"scale32", "per_channel", "input_unsigned", "output_unsigned"};
  for (int i = 0; i < 4; i++) {
    attr *f = fe_find_attr(o, flags[i]);
    if (!f || f->kind != ATTR_BOOL) fe_set_bool(p, o, flags[i], i == 0 || (i >= 2 && (p->unsigned_sig >> (i - 2) & 1)));
  }
  return true;
}

static bool canon_shift(fe_parser *p, fe_opctx *c) {
  attr *r = fe_find_attr(c->o, "round");
  if (!r) fe_set_bool(p, c->o, "round", false);
  else if (r->kind != ATTR_BOOL) return fe_error(p, r->loc, "'tosa.arithmetic_right_shift' attribute 'round' must be true or false");
  return true;
}

/* relu (max = +inf / type max) and reluN (max_fp / max_int) become clamp from 0. */
static bool canon_relu(fe_parser *p, fe_opctx *c) {
  op *o = c->o;
  elem_type et = o->operands[0]->type->elem;
  bool fl = elem_type_is_float(et);
  attr *mx = fe_find_attr(o, fl ? "max_fp" : "max_int");
  if (o->kind == OP_RELUN && !mx)
    return fe_error(p, c->name_loc, "'tosa.reluN' requires the attribute '%s'", fl ? "max_fp" : "max_int");
  double hi;
  if (mx) hi = mx->kind == ATTR_FLOAT ? mx->f : (double)mx->i;
  else if (fl) hi = INFINITY;
  else hi = (double)(((int64_t)1 << (elem_type_bits(et) - 1)) - 1);
  o->kind = OP_CLAMP;
  o->nattrs = 0;
  if (fl) {
    fe_set_float(p, o, "min_val", 0.0, et);
    fe_set_float(p, o, "max_val", hi, et);
  } else {
    fe_set_int(p, o, "min_val", 0, et);
    fe_set_int(p, o, "max_val", (int64_t)hi, et);
  }
  fe_set_str(p, o, "nan_mode", "PROPAGATE");
  return true;
}

bool fe_canon_more(fe_parser *p, fe_opctx *c, bool *handled) {
  *handled = true;
  switch (c->o->kind) {
  case OP_MATMUL: return canon_matmul(p, c);
  case OP_FULLY_CONNECTED: return canon_fc(p, c);
  case OP_CONV2D:
  case OP_DEPTHWISE_CONV2D:
  case OP_CONV3D:
  case OP_TRANSPOSE_CONV2D: return canon_conv(p, c);
  case OP_AVG_POOL2D:
  case OP_MAX_POOL2D: return canon_pool(p, c);
  case OP_REDUCE_SUM:
  case OP_REDUCE_MAX:
  case OP_REDUCE_MIN:
  case OP_REDUCE_PRODUCT:
  case OP_REDUCE_ALL:
  case OP_REDUCE_ANY:
  case OP_ARGMAX: return canon_reduce(p, c);
  case OP_CONCAT:
  case OP_REVERSE: return need_int(p, c, "axis", true, 0);
  case OP_TRANSPOSE: return canon_transpose(p, c);
  case OP_RESHAPE: return canon_reshape(p, c);
  case OP_SLICE: return canon_slice(p, c);
  case OP_PAD: return canon_pad(p, c);
  case OP_TILE: return canon_tile(p, c);
  case OP_RESIZE: return canon_resize(p, c);
  case OP_RESCALE: return canon_rescale(p, c);
  case OP_ARITHMETIC_RIGHT_SHIFT: return canon_shift(p, c);
  case OP_DIV: c->o->kind = OP_INTDIV; return true;
  case OP_RELU:
  case OP_RELUN: return canon_relu(p, c);
  default: *handled = false; return true;
  }
}
