/* canon.c: one graph form for three syntax generations. Zero points and shifts that TOSA 1.0
 * passes as constant operands become attributes, legacy attribute spellings get their TOSA 1.0
 * names, and both constant ops become OP_CONST with "values". */
#include "frontend/frontend.h"

#include <string.h>

attr *fe_find_attr(op *o, const char *name) {
  for (int i = 0; i < o->nattrs; i++)
    if (!strcmp(op_attrs(o)[i].name, name)) return &op_attrs(o)[i];
  return NULL;
}

void fe_remove_attr(op *o, const char *name) {
  int n = 0;
  attr *as = op_attrs(o);
  for (int i = 0; i < o->nattrs; i++)
    if (strcmp(as[i].name, name)) as[n++] = as[i];
  o->nattrs = n;
}

attr *fe_add_attr(fe_parser *p, op *o, const char *name, attr_kind kind) {
  int n = o->nattrs;
  op_set_attrs(p->a, o, arena_grow(p->a, op_attrs(o), sizeof(attr), (size_t)n, (size_t)n + 1), n + 1);
  attr *a = &op_attrs(o)[n];
  memset(a, 0, sizeof *a);
  a->name = name;
  a->kind = kind;
  a->loc = o->loc;
  return a;
}

static const char *op_name(const op *o) { return op_table[o->kind].name; }

/* A one-element constant operand, consumed into an attribute. */
static const dense_data *const_operand(fe_parser *p, fe_opctx *c, int idx, const char *what) {
  value *v = c->o->operands[idx];
  op *d = v->def;
  char tb[160];
  if (!d || d->kind != OP_CONST) {
    fe_error(p, c->operand_locs[idx], "the %s operand of '%s' must be a constant (tosa.const), but '%%%s' is %s", what,
             op_name(c->o), VALUE_NAME(v), d ? arena_printf(p->a, "computed by '%s'", op_name(d)) : "a function argument");
    return NULL;
  }
  attr *va = fe_find_attr(d, "values");
  if (!va || va->kind != ATTR_DENSE) return NULL; /* the constant itself was reported */
  if (tensor_numel(&va->dense->type) != 1) {
    fe_error(p, c->operand_locs[idx], "the %s operand of '%s' must hold one value, but '%%%s' is %s", what,
             op_name(c->o), VALUE_NAME(v), fe_type_str(&va->dense->type, tb, sizeof tb));
    return NULL;
  }
  return va->dense;
}

static bool canon_const(fe_parser *p, fe_opctx *c) {
  op *o = c->o;
  attr *a = fe_find_attr(o, "values");
  if (!a && (a = fe_find_attr(o, "value"))) a->name = "values";
  if (!a || a->kind != ATTR_DENSE)
    return fe_error(p, a ? a->loc : c->name_loc, "'%s' requires a 'values' attribute holding a dense literal",
                    op_name(o));
  if (o->kind == OP_ARITH_CONST) o->kind = OP_CONST;
  tensor_type lit = a->dense->type;
  const tensor_type *res = &c->declared;
  char x[160], y[160];
  bool same = o->kind == OP_CONST_SHAPE
                  ? res->elem == ET_INDEX && res->rank == 1 && lit.rank == 1 && lit.dims[0] == res->dims[0] &&
                        (lit.elem == ET_INDEX || (elem_type_is_int(lit.elem) && lit.elem != ET_I1))
                  : tensor_type_equal(&lit, res);
  if (!same)
    return fe_error(p, a->loc, "the literal's type %s does not match the result type %s", fe_type_str(&lit, x, sizeof x),
                    fe_type_str(res, y, sizeof y));
  return true;
}

static bool canon_mul(fe_parser *p, fe_opctx *c) {
  op *o = c->o;
  int64_t shift = 0;
  attr *old = fe_find_attr(o, "shift");
  src_loc at = old ? old->loc : c->name_loc;
  if (o->noperands == 3) {
    const dense_data *dd = const_operand(p, c, 2, "shift");
    if (!dd) return false;
    if (dd->type.elem != ET_I8) {
      char tb[160];
      return fe_error(p, c->operand_locs[2], "the shift operand of 'tosa.mul' must be tensor<1xi8>, found %s",
                      fe_type_str(&dd->type, tb, sizeof tb));
    }
    shift = fe_dense_int(dd, 0);
    at = c->operand_locs[2];
    o->noperands = 2;
  } else if (old) {
    if (old->kind != ATTR_INT) return fe_error(p, old->loc, "'tosa.mul' attribute 'shift' must be an integer");
    shift = old->i;
  }
  fe_remove_attr(o, "shift");
  attr *a = fe_add_attr(p, o, "shift", ATTR_INT);
  a->i = shift;
  a->type_elem = ET_I8;
  a->loc = at;
  return true;
}

static bool canon_negate(fe_parser *p, fe_opctx *c) {
  op *o = c->o;
  int64_t zp[2] = {0, 0};
  static const char *const names[2] = {"input1_zp", "output_zp"};
  if (o->noperands == 2)
    return fe_error(p, c->name_loc, "'tosa.negate' takes 1 operand or 3 (input and two zero points), found 2");
  for (int k = 0; k < 2; k++) {
    if (o->noperands == 3) {
      const dense_data *dd = const_operand(p, c, 1 + k, names[k]);
      if (!dd) return false;
      zp[k] = fe_dense_int(dd, 0);
    } else {
      attr *old = fe_find_attr(o, names[k]);
      if (old && old->kind == ATTR_INT) zp[k] = old->i;
    }
  }
  o->noperands = 1;
  for (int k = 0; k < 2; k++) {
    fe_remove_attr(o, names[k]);
    attr *a = fe_add_attr(p, o, names[k], ATTR_INT);
    a->i = zp[k];
    a->type_elem = o->operands[0]->type->elem;
  }
  fe_remove_attr(o, "quantization_info");
  return true;
}

/* min_fp/max_fp/min_int/max_int (before TOSA 1.0) -> min_val/max_val typed by the input. */
static bool canon_clamp(fe_parser *p, fe_opctx *c) {
  op *o = c->o;
  elem_type et = o->operands[0]->type->elem;
  bool fl = elem_type_is_float(et);
  static const char *const newn[2] = {"min_val", "max_val"};
  static const char *const oldf[2] = {"min_fp", "max_fp"};
  static const char *const oldi[2] = {"min_int", "max_int"};
  for (int k = 0; k < 2; k++) {
    attr *a = fe_find_attr(o, newn[k]);
    attr *legacy = fe_find_attr(o, fl ? oldf[k] : oldi[k]);
    attr v;
    if (a) v = *a;
    else if (legacy) v = *legacy;
    else
      return fe_error(p, c->name_loc, "'tosa.clamp' requires the attribute '%s' (or legacy '%s')", newn[k],
                      fl ? oldf[k] : oldi[k]);
    if (fl && v.kind == ATTR_INT) {
      v.kind = ATTR_FLOAT;
      v.f = (double)v.i;
    }
    if (fl ? v.kind != ATTR_FLOAT : v.kind != ATTR_INT)
      return fe_error(p, v.loc, "'tosa.clamp' attribute '%s' must be %s for %s tensors", a ? newn[k] : v.name,
                      fl ? "a float" : "an integer", elem_type_name(et));
    fe_remove_attr(o, newn[k]);
    fe_remove_attr(o, oldf[k]);
    fe_remove_attr(o, oldi[k]);
    attr *n = fe_add_attr(p, o, newn[k], v.kind);
    n->i = v.i;
    n->f = v.f;
    n->type_elem = et;
    n->loc = v.loc;
  }
  return true;
}

attr *fe_set_int(fe_parser *p, op *o, const char *name, int64_t v, elem_type et) {
  attr *old = fe_find_attr(o, name);
  src_loc at = old ? old->loc : o->loc;
  fe_remove_attr(o, name);
  attr *a = fe_add_attr(p, o, name, ATTR_INT);
  a->i = v;
  a->type_elem = et;
  a->loc = at;
  return a;
}

attr *fe_set_float(fe_parser *p, op *o, const char *name, double v, elem_type et) {
  attr *old = fe_find_attr(o, name);
  src_loc at = old ? old->loc : o->loc;
  fe_remove_attr(o, name);
  attr *a = fe_add_attr(p, o, name, ATTR_FLOAT);
  a->f = v;
  a->type_elem = et;
  a->loc = at;
  return a;
}

attr *fe_set_ints(fe_parser *p, op *o, const char *name, const int64_t *v, int n) {
  int64_t *copy = arena_alloc(p->a, sizeof(int64_t) * (size_t)(n ? n : 1));
  if (n) memcpy(copy, v, sizeof(int64_t) * (size_t)n);
  attr *old = fe_find_attr(o, name);
  src_loc at = old ? old->loc : o->loc;
  fe_remove_attr(o, name);
  attr *a = fe_add_attr(p, o, name, ATTR_INTS);
  a->ints = copy;
  a->n = n;
  a->type_elem = ET_I64;
  a->loc = at;
  return a;
}

attr *fe_set_str(fe_parser *p, op *o, const char *name, const char *s) {
  attr *old = fe_find_attr(o, name);
  src_loc at = old ? old->loc : o->loc;
  fe_remove_attr(o, name);
  attr *a = fe_add_attr(p, o, name, ATTR_STR);
  a->s = s;
  a->loc = at;
  return a;
}

attr *fe_set_bool(fe_parser *p, op *o, const char *name, bool v) {
  attr *old = fe_find_attr(o, name);
  src_loc at = old ? old->loc : o->loc;
  fe_remove_attr(o, name);
  attr *a = fe_add_attr(p, o, name, ATTR_BOOL);
  a->i = v;
  a->loc = at;
  return a;
}

bool fe_canonicalize(fe_parser *p, fe_opctx *c) {
  bool handled = false;
  bool ok = fe_canon_more(p, c, &handled);
  if (handled) return ok;
  switch (c->o->kind) {
  case OP_CONST:
  case OP_ARITH_CONST:
  case OP_CONST_SHAPE: return canon_const(p, c);
  case OP_MUL: return canon_mul(p, c);
  case OP_NEGATE: return canon_negate(p, c);
  case OP_CLAMP: return canon_clamp(p, c);
  default: return true;
  }
}
