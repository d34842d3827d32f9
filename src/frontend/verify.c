/* verify.c: the TOSA specification's type and shape rules, one rule per op kind in a table
 * (a new op needs a row in ops.def and a line in `rules` below). */
#include "frontend/frontend.h"

#include <string.h>

#define M(t) (1u << (t))
#define FLOATS (M(ET_F16) | M(ET_BF16) | M(ET_F32))
#define CAST_TYPES (FLOATS | M(ET_I32) | M(ET_I16) | M(ET_I8) | M(ET_I1) | M(ET_F8E4M3FN) | M(ET_F8E5M2) | M(ET_F8E4M3FNUZ) | M(ET_F8E5M2FNUZ))
#define ALL_TYPES (FLOATS | M(ET_I32) | M(ET_I16) | M(ET_I8) | M(ET_I1))

static const char *op_name(const op *o) { return op_table[o->kind].name; }
static const tensor_type *in_type(const fe_opctx *c, int i) { return c->o->operands[i]->type; }

const char *fe_type_set_str(fe_parser *p, unsigned mask) {
  char buf[128] = "";
  size_t n = 0;
  for (int t = 1; t < ET_COUNT; t++)
    if (mask & M(t)) n += (size_t)snprintf(buf + n, sizeof buf - n, "%s%s", n ? ", " : "", elem_type_name((elem_type)t));
  return arena_strdup(p->a, buf);
}

bool fe_check_elem(fe_parser *p, const fe_opctx *c, int i, unsigned mask) {
  elem_type et = in_type(c, i)->elem;
  if (mask & M(et)) return true;
  fe_error(p, c->operand_locs[i], "'%s' does not support element type %s (operand %d, '%%%s'); expected %s",
           op_name(c->o), elem_type_name(et), i, VALUE_NAME(c->o->operands[i]), fe_type_set_str(p, mask));
  return false;
}

bool fe_check_elem_upstream(fe_parser *p, const fe_opctx *c, int i, unsigned spec, unsigned extra) {
  elem_type et = in_type(c, i)->elem;
  if (spec & M(et)) return true;
  if (!(extra & M(et))) return fe_check_elem(p, c, i, spec | extra);
  return fe_profile_rule(p, c->operand_locs[i], "'%s' on %s is outside the TOSA 1.0 profiles", op_name(c->o),
                         elem_type_name(et));
}

bool fe_check_same_elem(fe_parser *p, const fe_opctx *c, int a, int b) {
  elem_type x = in_type(c, a)->elem, y = in_type(c, b)->elem;
  if (x == y) return true;
  return fe_error(p, c->operand_locs[b], "'%s' operands must have the same element type, found %s and %s",
                  op_name(c->o), elem_type_name(x), elem_type_name(y));
}

/* TOSA broadcasting over operands first..first+n-1: equal ranks, each dim equal or 1. */
bool fe_broadcast(fe_parser *p, const fe_opctx *c, int first, int n, tensor_type *out) {
  *out = *in_type(c, first);
  char x[160], y[160];
  for (int k = first + 1; k < first + n; k++) {
    const tensor_type *t = in_type(c, k);
    if (t->rank != out->rank)
      return fe_error(p, c->operand_locs[k],
                      "'%s' operands must have equal ranks, found %s and %s (insert a tosa.reshape to add unit dims)",
                      op_name(c->o), fe_type_str(in_type(c, first), x, sizeof x), fe_type_str(t, y, sizeof y));
    for (int d = 0; d < t->rank; d++) {
      if (t->dims[d] == out->dims[d] || t->dims[d] == 1) continue;
      if (out->dims[d] == 1) {
        out->dims[d] = t->dims[d];
        continue;
      }
      return fe_error(p, c->operand_locs[k], "'%s' operand shapes %s and %s are not broadcast-compatible (dimension %d: %lld vs %lld)",
                      op_name(c->o), fe_type_str(in_type(c, first), x, sizeof x), fe_type_str(t, y, sizeof y), d,
                      (long long)out->dims[d], (long long)t->dims[d]);
    }
  }
  return true;
}

bool fe_check_result(fe_parser *p, const fe_opctx *c, const tensor_type *inferred) {
  if (tensor_type_equal(&c->declared, inferred)) return true;
  if (fe_type_matches(&c->declared, inferred)) { /* '?' in the declared type: dynamic.c */
    c->o->results[0]->type = type_intern(p->a, inferred);
    return fe_check_size(p, inferred, c->name_loc);
  }
  char x[160], y[160];
  return fe_error(p, c->name_loc, "'%s' result type %s does not match the inferred type %s", op_name(c->o),
                  fe_type_str(&c->declared, x, sizeof x), fe_type_str(inferred, y, sizeof y));
}

/* ---------------------------------------------------------------- rules */
/* Elementwise op whose operands share one element type from `mask`; the result type is the
 * broadcast shape with element type `res` (ET_INVALID: the operands'). */
bool fe_same_typed(fe_parser *p, fe_opctx *c, unsigned mask, elem_type res) {
  int n = c->o->noperands;
  for (int i = 0; i < n; i++) {
    if (!fe_check_elem(p, c, i, mask)) return false;
    if (i > 0 && !fe_check_same_elem(p, c, 0, i)) return false;
  }
  tensor_type t;
  if (!fe_broadcast(p, c, 0, n, &t)) return false;
  if (res != ET_INVALID) t.elem = res;
  return fe_check_result(p, c, &t);
}

static bool v_arith(fe_parser *p, fe_opctx *c) { return fe_same_typed(p, c, FLOATS | M(ET_I32), ET_INVALID); }
static bool v_float_unary(fe_parser *p, fe_opctx *c) { return fe_same_typed(p, c, FLOATS, ET_INVALID); }
static bool v_abs(fe_parser *p, fe_opctx *c) { return fe_same_typed(p, c, FLOATS | M(ET_I32), ET_INVALID); }
static bool v_compare(fe_parser *p, fe_opctx *c) { return fe_same_typed(p, c, FLOATS | M(ET_I32), ET_I1); }

static bool v_mul(fe_parser *p, fe_opctx *c) {
  elem_type et = in_type(c, 0)->elem;
  bool is_int = et == ET_I8 || et == ET_I16 || et == ET_I32;
  const attr *sh = op_attr(c->o, "shift");
  int64_t shift = sh ? sh->i : 0;
  if (shift != 0 && et != ET_I32)
    return fe_error(p, sh->loc, "'tosa.mul' shift must be 0 unless the inputs are i32 (found %lld with %s inputs)",
                    (long long)shift, elem_type_name(et));
  if (shift < 0 || shift > 63)
    return fe_error(p, sh->loc, "'tosa.mul' shift must be in [0, 63], found %lld", (long long)shift);
  return fe_same_typed(p, c, FLOATS | M(ET_I8) | M(ET_I16) | M(ET_I32), is_int ? ET_I32 : ET_INVALID);
}

static bool v_negate(fe_parser *p, fe_opctx *c) {
  elem_type et = in_type(c, 0)->elem;
  static const char *const zps[2] = {"input1_zp", "output_zp"};
  for (int k = 0; k < 2; k++) {
    const attr *a = op_attr(c->o, zps[k]);
    if (a && a->i != 0 && et != ET_I8)
      return fe_error(p, a->loc, "'tosa.negate' %s must be 0 for %s tensors, found %lld", zps[k], elem_type_name(et),
                      (long long)a->i);
  }
  return fe_same_typed(p, c, FLOATS | M(ET_I8) | M(ET_I16) | M(ET_I32), ET_INVALID);
}

static bool v_clamp(fe_parser *p, fe_opctx *c) {
  const attr *lo = op_attr(c->o, "min_val"), *hi = op_attr(c->o, "max_val");
  if (lo && hi) {
    bool bad = lo->kind == ATTR_FLOAT ? lo->f > hi->f : lo->i > hi->i;
    if (bad) return fe_error(p, lo->loc, "'tosa.clamp' min_val is greater than max_val");
  }
  if (!fe_check_elem_upstream(p, c, 0, FLOATS | M(ET_I8) | M(ET_I16), M(ET_I32))) return false;
  return fe_same_typed(p, c, FLOATS | M(ET_I8) | M(ET_I16) | M(ET_I32), ET_INVALID);
}

static bool v_select(fe_parser *p, fe_opctx *c) {
  if (in_type(c, 0)->elem != ET_I1)
    return fe_error(p, c->operand_locs[0], "'tosa.select' condition must have element type i1, found %s",
                    elem_type_name(in_type(c, 0)->elem));
  if (!fe_check_elem(p, c, 1, ALL_TYPES) || !fe_check_same_elem(p, c, 1, 2)) return false;
  tensor_type t;
  if (!fe_broadcast(p, c, 0, 3, &t)) return false;
  t.elem = in_type(c, 1)->elem;
  return fe_check_result(p, c, &t);
}

static bool v_cast(fe_parser *p, fe_opctx *c) {
  if (!fe_check_elem(p, c, 0, CAST_TYPES)) return false;
  elem_type from = in_type(c, 0)->elem, to = c->declared.elem;
  if (!(CAST_TYPES & M(to)))
    return fe_error(p, c->name_loc, "'tosa.cast' cannot produce element type %s; expected %s", elem_type_name(to),
                    fe_type_set_str(p, CAST_TYPES));
  if (from == to && !fe_profile_rule(p, c->name_loc, "'tosa.cast' from %s to the same type is outside the TOSA 1.0 profiles",
                                      elem_type_name(from)))
    return false;
  tensor_type t = *in_type(c, 0);
  t.elem = to;
  return fe_check_result(p, c, &t);
}

static bool v_const(fe_parser *p, fe_opctx *c) {
  (void)p, (void)c;
  return true; /* canon.c checked the literal against the result type */
}

typedef bool (*verify_fn)(fe_parser *p, fe_opctx *c);

static const verify_fn rules[OP_COUNT] = {
    [OP_CONST] = v_const,           [OP_ARITH_CONST] = v_const,     [OP_CONST_SHAPE] = v_const,
    [OP_ADD] = v_arith,             [OP_SUB] = v_arith,             [OP_MAXIMUM] = v_arith,
    [OP_MINIMUM] = v_arith,         [OP_MUL] = v_mul,               [OP_NEGATE] = v_negate,
    [OP_ABS] = v_abs,               [OP_EXP] = v_float_unary,       [OP_LOG] = v_float_unary,
    [OP_TANH] = v_float_unary,      [OP_SIGMOID] = v_float_unary,   [OP_ERF] = v_float_unary,
    [OP_CLAMP] = v_clamp,           [OP_RECIPROCAL] = v_float_unary, [OP_RSQRT] = v_float_unary,
    [OP_FLOOR] = v_float_unary,     [OP_CEIL] = v_float_unary,      [OP_SELECT] = v_select,
    [OP_EQUAL] = v_compare,         [OP_GREATER] = v_compare,       [OP_GREATER_EQUAL] = v_compare,
    [OP_CAST] = v_cast,
};

bool fe_verify_op(fe_parser *p, fe_opctx *c) {
  verify_fn f = rules[c->o->kind];
  if (!f) f = fe_verify_rule_more(c->o->kind);
  if (!f) return fe_error(p, c->name_loc, "operation '%s' has no verifier rule yet", op_name(c->o));
  return f(p, c);
}
