/* dialect_arith.c: arith and math ops on tensors (and on the scalars of linalg bodies, which stand
 * for tensors over the iteration space, and on scalars outside them, which are rank-0 tensors)
 * as the TOSA elementwise ops they compute, so they fuse as TOSA's do. fastmath flags are read and
 * do not change the result (tosac's elementwise code is the same with or without them). */
#include "frontend/dialect.h"

#include <string.h>

enum { A_BIN, A_UN, A_DIV, A_SQRT, A_CMPF, A_CMPI, A_SELECT, A_CAST, A_CONST, A_INDEX_CAST, A_BITCAST };

typedef struct arith_def {
  const char *name; /* "arith.addf" */
  int how;
  op_kind kind;
  op_kind kind_i1; /* the op on i1 (andi: logical_and), OP_COUNT: same */
} arith_def;

static const arith_def defs[] = {
    {"arith.addf", A_BIN, OP_ADD, OP_COUNT},        {"arith.addi", A_BIN, OP_ADD, OP_COUNT},
    {"arith.subf", A_BIN, OP_SUB, OP_COUNT},        {"arith.subi", A_BIN, OP_SUB, OP_COUNT},
    {"arith.mulf", A_BIN, OP_MUL, OP_COUNT},        {"arith.muli", A_BIN, OP_MUL, OP_COUNT},
    {"arith.divf", A_DIV, OP_MUL, OP_COUNT},        {"arith.divsi", A_BIN, OP_INTDIV, OP_COUNT},
    {"arith.maximumf", A_BIN, OP_MAXIMUM, OP_COUNT}, {"arith.maxnumf", A_BIN, OP_MAXIMUM, OP_COUNT},
    {"arith.maxsi", A_BIN, OP_MAXIMUM, OP_COUNT},   {"arith.minimumf", A_BIN, OP_MINIMUM, OP_COUNT},
    {"arith.minnumf", A_BIN, OP_MINIMUM, OP_COUNT}, {"arith.minsi", A_BIN, OP_MINIMUM, OP_COUNT},
    {"arith.negf", A_UN, OP_NEGATE, OP_COUNT},      {"arith.andi", A_BIN, OP_BITWISE_AND, OP_LOGICAL_AND},
    {"arith.ori", A_BIN, OP_BITWISE_OR, OP_LOGICAL_OR}, {"arith.xori", A_BIN, OP_BITWISE_XOR, OP_LOGICAL_XOR},
    {"arith.shli", A_BIN, OP_LOGICAL_LEFT_SHIFT, OP_COUNT}, {"arith.shrsi", A_BIN, OP_ARITHMETIC_RIGHT_SHIFT, OP_COUNT},
    {"arith.shrui", A_BIN, OP_LOGICAL_RIGHT_SHIFT, OP_COUNT}, {"arith.cmpf", A_CMPF, OP_COUNT, OP_COUNT},
    {"arith.cmpi", A_CMPI, OP_COUNT, OP_COUNT},     {"arith.select", A_SELECT, OP_SELECT, OP_COUNT},
    {"arith.extf", A_CAST, OP_CAST, OP_COUNT},      {"arith.truncf", A_CAST, OP_CAST, OP_COUNT},
    {"arith.sitofp", A_CAST, OP_CAST, OP_COUNT},    {"arith.fptosi", A_CAST, OP_CAST, OP_COUNT},
    {"arith.extsi", A_CAST, OP_CAST, OP_COUNT},     {"arith.trunci", A_CAST, OP_CAST, OP_COUNT},
    {"arith.extui", A_CAST, OP_CAST, OP_COUNT},     {"arith.uitofp", A_CAST, OP_CAST, OP_COUNT},
    {"arith.index_cast", A_INDEX_CAST, OP_CAST, OP_COUNT},
    {"arith.bitcast", A_BITCAST, OP_COUNT, OP_COUNT}, {"arith.constant", A_CONST, OP_COUNT, OP_COUNT},
    {"math.absf", A_UN, OP_ABS, OP_COUNT},          {"math.absi", A_UN, OP_ABS, OP_COUNT},
    {"math.exp", A_UN, OP_EXP, OP_COUNT},           {"math.log", A_UN, OP_LOG, OP_COUNT},
    {"math.tanh", A_UN, OP_TANH, OP_COUNT},         {"math.erf", A_UN, OP_ERF, OP_COUNT},
    {"math.rsqrt", A_UN, OP_RSQRT, OP_COUNT},       {"math.sqrt", A_SQRT, OP_COUNT, OP_COUNT},
    {"math.floor", A_UN, OP_FLOOR, OP_COUNT},       {"math.ceil", A_UN, OP_CEIL, OP_COUNT},
    {"math.sin", A_UN, OP_SIN, OP_COUNT},           {"math.cos", A_UN, OP_COS, OP_COUNT},
    {"math.powf", A_BIN, OP_POW, OP_COUNT},
};

/* cmpf / cmpi predicates: the TOSA comparison, whether the operands swap, whether it is negated.
 * TOSA's float comparisons are ordered (false on NaN), so an unordered predicate is the negation
 * of the opposite ordered one (ugt = !ole); `one` is a > b or b > a, `ord` is a == a and b == b.
 * `value` is the predicate's number in the generic form. */
enum { P_CMP, P_ONE, P_ORD, P_FALSE };
typedef struct pred {
  const char *name;
  int value;
  op_kind kind;
  bool swap, negate;
  int how;
} pred;
static const pred fpreds[] = {
    {"false", 0, OP_COUNT, false, false, P_FALSE},       {"oeq", 1, OP_EQUAL, false, false, P_CMP},
    {"ogt", 2, OP_GREATER, false, false, P_CMP},         {"oge", 3, OP_GREATER_EQUAL, false, false, P_CMP},
    {"olt", 4, OP_GREATER, true, false, P_CMP},          {"ole", 5, OP_GREATER_EQUAL, true, false, P_CMP},
    {"one", 6, OP_COUNT, false, false, P_ONE},           {"ord", 7, OP_COUNT, false, false, P_ORD},
    {"ueq", 8, OP_COUNT, false, true, P_ONE},            {"ugt", 9, OP_GREATER_EQUAL, true, true, P_CMP},
    {"uge", 10, OP_GREATER, true, true, P_CMP},          {"ult", 11, OP_GREATER_EQUAL, false, true, P_CMP},
    {"ule", 12, OP_GREATER, false, true, P_CMP},         {"une", 13, OP_EQUAL, false, true, P_CMP},
    {"uno", 14, OP_COUNT, false, true, P_ORD},           {"true", 15, OP_COUNT, false, true, P_FALSE},
};
static const pred ipreds[] = {
    {"eq", 0, OP_EQUAL, false, false, P_CMP},   {"ne", 1, OP_EQUAL, false, true, P_CMP},
    {"slt", 2, OP_GREATER, true, false, P_CMP}, {"sle", 3, OP_GREATER_EQUAL, true, false, P_CMP},
    {"sgt", 4, OP_GREATER, false, false, P_CMP}, {"sge", 5, OP_GREATER_EQUAL, false, false, P_CMP},
};

static const pred *find_pred(xd_op *x, bool fl) {
  const pred *t = fl ? fpreds : ipreds;
  int n = fl ? (int)(sizeof fpreds / sizeof fpreds[0]) : (int)(sizeof ipreds / sizeof ipreds[0]);
  const attr *a = xd_attr(x, "predicate");
  for (int i = 0; i < n; i++) {
    if (x->generic ? a && a->kind == ATTR_INT && a->i == t[i].value
                   : x->word.n == (int)strlen(t[i].name) && !memcmp(x->word.p, t[i].name, (size_t)x->word.n))
      return &t[i];
  }
  if (x->generic) xd_error(x, "predicate %lld is not supported", a && a->kind == ATTR_INT ? (long long)a->i : -1LL);
  else
    fe_error(x->m.p, fe_loc(x->m.p, x->word), "'%s' predicate '%.*s' is not supported (tosac reads %s)", x->m.opname,
             x->word.n, x->word.p,
             fl ? "false oeq ogt oge olt ole one ord ueq ugt uge ult ule une uno true" : "eq ne slt sle sgt sge");
  return NULL;
}

/* `[pred,] %a, ... [fastmath<...>]` then the tail; `arith.constant LITERAL : T`. */
static bool parse_custom(xd_op *x, int how) {
  fe_parser *p = x->m.p;
  if (how == A_CMPF || how == A_CMPI) {
    if (p->tok.kind != T_IDENT) return fe_expect(p, T_IDENT, "(the predicate)");
    x->word = p->tok;
    fe_next(p);
    if (!fe_expect(p, T_COMMA, "after the predicate")) return false;
  }
  if (!xd_parse_operands(x)) return false;
  if (fe_tok_is(p, "fastmath")) {
    x->fastmath = true;
    fe_next(p);
    if (p->tok.kind != T_LANGLE) return fe_expect(p, T_LANGLE, "after 'fastmath'");
    if (!fe_skip_group(p)) return false;
  }
  return xd_parse_tail(x);
}

/* arith.constant in a linalg body: a scalar literal as a splat of the iteration space's rank. */
static value *body_constant(xd_op *x) {
  fe_parser *p = x->m.p;
  attr a = {.name = "value"};
  fe_token lit = p->tok;
  if (!fe_parse_attr_value(p, &a)) return NULL;
  if (a.kind == ATTR_BOOL && lit.kind == T_IDENT) a.type_elem = ET_I1;
  if (a.kind != ATTR_INT && a.kind != ATTR_FLOAT && a.kind != ATTR_BOOL)
    return fe_error(p, a.loc, "'arith.constant' in a linalg body must be a scalar (0.5 : f32)"), NULL;
  dense_data *d = fe_dense_scalar(p, lit, a.type_elem);
  fe_skip_loc(p);
  if (!d) return NULL;
  d->type.rank = x->body->space.rank;
  for (int i = 0; i < d->type.rank; i++) d->type.dims[i] = 1;
  x->has_out = true, x->scalar_out = true, x->out_t = (tensor_type){.elem = a.type_elem};
  return xd_const(x, d);
}

/* extui / uitofp: the integer read as unsigned. i1 casts give 0 or 1 already; i8 and i16 are
 * sign-extended to i32 and masked to their width (then converted); a ui32 does not fit tosac's
 * i32 arithmetic. */
static value *zero_extend(xd_op *x, value *a, elem_type to) {
  elem_type from = a->type->elem;
  if (from == ET_I1) return xd_cast(x, a, to);
  if (from != ET_I8 && from != ET_I16)
    return xd_error(x, "of %s is not supported (tosac reads unsigned i1, i8 and i16; its integers are signed i32)",
                    elem_type_name(from)),
           NULL;
  if (elem_type_is_int(to) && elem_type_bits(to) <= elem_type_bits(from))
    return xd_error(x, "from %s to %s does not widen", elem_type_name(from), elem_type_name(to)), NULL;
  value *w = xd_cast(x, a, ET_I32);
  tensor_type mt = {.elem = ET_I32, .rank = a->type->rank};
  for (int i = 0; i < mt.rank; i++) mt.dims[i] = 1;
  value *u = xd_binary(x, OP_BITWISE_AND, w, xd_splat(x, &mt, from == ET_I8 ? 0xff : 0xffff));
  return xd_cast(x, u, to);
}

static value *lower(xd_op *x, const arith_def *d) {
  int want = d->how == A_SELECT ? 3 : d->how == A_BIN || d->how == A_DIV || d->how == A_CMPF || d->how == A_CMPI ? 2 : 1;
  if (x->nin != want) return xd_error(x, "expects %d operand%s, found %d", want, want == 1 ? "" : "s", x->nin), NULL;
  for (int i = d->how == A_SELECT ? 1 : 0; i < x->nin; i++)
    if (!xd_check_operand_type(x, i, false)) return NULL;
  value *a[3] = {NULL};
  for (int i = 0; i < want; i++)
    if (!(a[i] = xd_operand(x, i))) return NULL;
  xd_body *b = x->body;
  for (int i = 0; b && b->acc && i < want; i++) { /* a reduction's output argument: its combining op */
    if (a[i] != b->acc) continue;
    bool combines = d->how == A_BIN && (d->kind == OP_ADD || d->kind == OP_MAXIMUM || d->kind == OP_MINIMUM ||
                                         d->kind == OP_MUL);
    if (!combines || b->combine != OP_COUNT || a[1 - i] == b->acc)
      return xd_error(x, "reads the reduction's output argument; tosac reads it only as the accumulator of one "
                      "arith.addf / addi / mulf / maximumf / maxnumf / minimumf / minnumf"),
             NULL;
    b->combine = d->kind;
    b->combined = a[1 - i];
    return b->acc;
  }
  elem_type et = a[0]->type->elem;
  switch (d->how) {
  case A_BIN: return xd_binary(x, et == ET_I1 && d->kind_i1 != OP_COUNT ? d->kind_i1 : d->kind, a[0], a[1]);
  case A_UN: return xd_unary(x, d->kind, a[0]);
  case A_DIV: /* TOSA 1.0 has no float division: a * (1 / b) */
    return xd_binary(x, OP_MUL, a[0], xd_unary(x, OP_RECIPROCAL, a[1]));
  case A_SQRT: return xd_unary(x, OP_RECIPROCAL, xd_unary(x, OP_RSQRT, a[0]));
  case A_CMPF:
  case A_CMPI: {
    const pred *pr = find_pred(x, d->how == A_CMPF);
    if (!pr) return NULL;
    value *c = NULL;
    if (pr->how == P_CMP) {
      c = pr->swap ? xd_binary(x, pr->kind, a[1], a[0]) : xd_binary(x, pr->kind, a[0], a[1]);
    } else if (pr->how == P_ONE) {
      c = xd_binary(x, OP_LOGICAL_OR, xd_binary(x, OP_GREATER, a[0], a[1]), xd_binary(x, OP_GREATER, a[1], a[0]));
    } else if (pr->how == P_ORD) {
      c = xd_binary(x, OP_LOGICAL_AND, xd_binary(x, OP_EQUAL, a[0], a[0]), xd_binary(x, OP_EQUAL, a[1], a[1]));
    } else { /* false, true: the comparison's shape */
      tensor_type t;
      if (!tensor_broadcast_shape(a[0]->type, a[1]->type, &t)) return xd_binary(x, OP_EQUAL, a[0], a[1]);
      t.elem = ET_I1;
      c = xd_splat(x, &t, 0);
    }
    return pr->negate ? xd_unary(x, OP_LOGICAL_NOT, c) : c;
  }
  case A_SELECT: {
    tensor_type t;
    if (a[0]->type->elem != ET_I1) return xd_error(x, "condition must be i1"), NULL;
    if (!tensor_broadcast_shape(a[1]->type, a[2]->type, &t)) return xd_error(x, "operands do not have one shape"), NULL;
    if (a[0]->type->rank == 0 && t.rank > 0) a[0] = xd_reshape_ones(x, a[0], t.rank); /* one i1 picks whole tensors */
    if (!a[0] || !tensor_broadcast_shape(&t, a[0]->type, &t))
      return xd_error(x, "operands do not have one shape"), NULL;
    t.elem = a[1]->type->elem;
    return xd_mk(x, OP_SELECT, a, 3, &t);
  }
  case A_INDEX_CAST: /* index is i32 in the graph: casts between index, i32 and narrower integers */
  case A_CAST:
    if (x->out_t.elem == ET_I64 || et == ET_I64)
      return xd_error(x, "to or from i64 is not supported (tosac computes integers up to i32)"), NULL;
    if (!strcmp(x->op, "extui") || !strcmp(x->op, "uitofp")) return zero_extend(x, a[0], x->out_t.elem);
    return xd_cast(x, a[0], x->out_t.elem);
  case A_BITCAST: return xd_bitcast(x, a[0], x->out_t.elem);
  }
  return NULL;
}

value *xd_arith_op(xd_op *x, bool *known) {
  const arith_def *d = NULL;
  for (size_t i = 0; i < sizeof defs / sizeof defs[0] && !d; i++)
    if (!strcmp(defs[i].name, x->m.opname)) d = &defs[i];
  if (!d) return *known = false, NULL;
  if (d->how == A_CONST) {
    if (x->body && !x->generic) return body_constant(x);
    const attr *v = xd_attr(x, "value");
    if (!x->body || !v || (v->kind != ATTR_FLOAT && v->kind != ATTR_INT && v->kind != ATTR_BOOL))
      return xd_error(x, "in the generic form is read in linalg bodies only, with a scalar value"), NULL;
    tensor_type t = {.elem = x->out_t.elem, .rank = x->body->space.rank};
    for (int i = 0; i < t.rank; i++) t.dims[i] = 1;
    return xd_splat(x, &t, v->kind == ATTR_FLOAT ? v->f : (double)v->i);
  }
  if (!x->generic && !parse_custom(x, d->how)) return NULL;
  if (!x->generic && (d->how == A_CMPF || d->how == A_CMPI)) x->out_t.elem = ET_I1; /* `: T` is the operands' */
  return lower(x, d);
}
