/* dialect.c: ops of the tensor, arith, math and linalg dialects, as PyTorch/TF/ONNX exporters mix
 * them into TOSA, read in their custom or generic form and lowered to TOSA ops in the same graph
 * (dialect_tensor.c, dialect_arith.c, dialect_linalg.c lower each family). This file holds the
 * syntax every op shares, the builders, and the reading of linalg bodies. */
#include "frontend/dialect.h"

#include <stdarg.h>
#include <string.h>

static const char *const dialects[] = {"tensor", "arith", "math", "linalg"};

bool fe_xd_is_op(const char *nm, int nlen) {
  for (size_t i = 0; i < sizeof dialects / sizeof dialects[0]; i++) {
    int n = (int)strlen(dialects[i]);
    if (nlen > n + 1 && !memcmp(nm, dialects[i], (size_t)n) && nm[n] == '.') return true;
  }
  return false;
}

bool xd_error(xd_op *x, const char *fmt, ...) {
  char buf[800];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(buf, sizeof buf, fmt, ap);
  va_end(ap);
  return fe_error(x->m.p, x->m.loc, "'%s' %s", x->m.opname, buf);
}

/* ---------------------------------------------------------------- names */
value *xd_find(xd_op *x, fe_token t) {
  const xd_body *b = x->body;
  for (int i = b ? b->n - 1 : -1; i >= 0; i--)
    if (b->names[i].name.n == t.n && !memcmp(b->names[i].name.p, t.p, (size_t)t.n)) return b->names[i].v;
  return fe_scope_find(x->m.p, x->m.fs, t);
}

static bool bind(fe_parser *p, fe_scope *fs, xd_body *b, fe_token t, value *v) {
  if (!b) return fe_scope_bind(p, fs, t, v);
  xd_name e = {t, v};
  ARENA_PUSH(p->a, b->names, b->n, b->cap, e);
  return true;
}

/* ---------------------------------------------------------------- builders */
value *xd_mk(xd_op *x, op_kind k, value *const *in, int n, const tensor_type *t) {
  for (int i = 0; i < n; i++)
    if (!in[i]) return NULL;
  fe_mgx_ctx *m = &x->m;
  op *o = fe_op_new(m->p, k, m->loc, in, n);
  m->last = fe_op_finish(m->p, m->fs, o, t, arena_printf(m->p->a, "%s_%d", m->res, ++m->ntmp));
  return m->last;
}

value *xd_unary(xd_op *x, op_kind k, value *a) { return a ? xd_mk(x, k, &a, 1, a->type) : NULL; }

value *xd_binary(xd_op *x, op_kind k, value *a, value *b) {
  if (!a || !b) return NULL;
  tensor_type t;
  char s1[160], s2[160];
  if (!tensor_broadcast_shape(a->type, b->type, &t))
    return xd_error(x, "operands %s and %s have different shapes", fe_type_str(a->type, s1, sizeof s1),
                    fe_type_str(b->type, s2, sizeof s2)),
           NULL;
  if (k == OP_GREATER || k == OP_GREATER_EQUAL || k == OP_EQUAL) t.elem = ET_I1;
  value *in[2] = {a, b};
  return xd_mk(x, k, in, 2, &t);
}

value *xd_cast(xd_op *x, value *a, elem_type et) {
  if (!a || a->type->elem == et) return a;
  tensor_type t = *a->type;
  t.elem = et;
  return xd_mk(x, OP_CAST, &a, 1, &t);
}

value *xd_const(xd_op *x, dense_data *d) {
  fe_mgx_ctx *m = &x->m;
  op *o = fe_op_new(m->p, OP_CONST, m->loc, NULL, 0);
  fe_add_attr(m->p, o, "values", ATTR_DENSE)->dense = d;
  m->last = fe_op_finish(m->p, m->fs, o, &d->type, arena_printf(m->p->a, "%s_%d", m->res, ++m->ntmp));
  return m->last;
}

value *xd_splat(xd_op *x, const tensor_type *t, double v) {
  dense_data *dd = arena_alloc(x->m.p->a, sizeof *dd);
  dd->type = *t;
  dd->splat = true;
  dd->nbytes = (size_t)elem_type_bytes(t->elem);
  uint8_t *b = arena_alloc(x->m.p->a, dd->nbytes);
  uint64_t bits = elem_type_is_float(t->elem) ? fe_float_bits(v, t->elem) : (uint64_t)(int64_t)v;
  for (size_t i = 0; i < dd->nbytes; i++) b[i] = (uint8_t)(bits >> (8 * i));
  dd->bytes = b;
  return xd_const(x, dd);
}

value *xd_scalar_tensor(xd_op *x, value *s, int rank) {
  const dense_data *c = op_attrs(s->def)[0].dense;
  tensor_type t = {.elem = c->type.elem, .rank = rank};
  for (int i = 0; i < rank; i++) t.dims[i] = 1;
  if (t.elem == ET_INDEX) { /* index is i32 in the graph */
    t.elem = ET_I32;
    return xd_splat(x, &t, (double)fe_dense_int(c, 0));
  }
  dense_data *dd = arena_alloc(x->m.p->a, sizeof *dd);
  *dd = *c;
  dd->type = t;
  dd->splat = true;
  return xd_const(x, dd);
}

value *xd_reshape_ones(xd_op *x, value *v, int rank) {
  int64_t ones[TOSAC_MAX_RANK];
  for (int i = 0; i < TOSAC_MAX_RANK; i++) ones[i] = 1;
  return v ? fe_mgx_reshape(&x->m, v, ones, rank) : NULL;
}

value *xd_operand(xd_op *x, int i) {
  value *v = x->in[i];
  if (!v || v->id == -1) return NULL;
  if (x->body) {
    if (v->id == FE_SCALAR_ID) return xd_scalar_tensor(x, v, x->body->space.rank);
    if (v->type->rank == 0 && x->body->space.rank > 0) /* a scalar computed outside the body */
      return xd_reshape_ones(x, v, x->body->space.rank);
    return v;
  }
  if (v->id != FE_SCALAR_ID) return v;
  if (!strcmp(x->dialect, "arith") || !strcmp(x->dialect, "math")) return xd_scalar_tensor(x, v, 0);
  fe_error(x->m.p, fe_loc(x->m.p, x->in_tok[i]), "'%s' on the scalar '%.*s' is not supported: it takes a tensor "
           "(scalars are read by arith and math ops, tensor.from_elements, tensor.splat, linalg.fill and in linalg "
           "bodies)", x->m.opname, x->in_tok[i].n, x->in_tok[i].p);
  return NULL;
}

value *xd_new_scalar(xd_op *x, dense_data *d) {
  fe_parser *p = x->m.p;
  value *v = arena_alloc(p->a, sizeof *v);
  *v = (value){.id = FE_SCALAR_ID, .type = type_intern(p->a, &d->type), .loc = x->m.loc};
  v->def = arena_alloc(p->a, sizeof *v->def);
  *v->def = (op){.kind = OP_ARITH_CONST, .loc = x->m.loc};
  attr *a = arena_alloc(p->a, sizeof *a); /* the op keeps the pointer */
  *a = (attr){.name = "value", .kind = ATTR_DENSE, .dense = d, .loc = x->m.loc, .type_elem = d->type.elem};
  op_set_attrs(p->a, v->def, a, 1);
  return v;
}

const dense_data *xd_const_of(const value *v) {
  if (!v || v->id < 0 || !v->def || (v->def->kind != OP_CONST && v->def->kind != OP_ARITH_CONST)) return NULL;
  const attr *a = op_attr(v->def, "values");
  if (!a) a = op_attr(v->def, "value");
  return a && a->kind == ATTR_DENSE ? a->dense : NULL;
}

value *xd_bitcast(xd_op *x, value *a, elem_type to) {
  if (!a) return NULL;
  elem_type from = a->type->elem;
  if (to == from) return a;
  if (elem_type_bits(to) != elem_type_bits(from))
    return xd_error(x, "from %s to %s: the widths differ", elem_type_name(from), elem_type_name(to)), NULL;
  const dense_data *c = xd_const_of(a);
  if (!c)
    return xd_error(x, "from %s to %s of a computed tensor is not supported (tosac has no op that reinterprets bits; "
                    "a constant's bits are read)", elem_type_name(from), elem_type_name(to)),
           NULL;
  dense_data *d = arena_alloc(x->m.p->a, sizeof *d);
  *d = *c;
  d->type.elem = to;
  return xd_const(x, d);
}

/* ---------------------------------------------------------------- attributes */
const attr *xd_attr(const xd_op *x, const char *name) {
  for (int i = x->m.nattrs - 1; i >= 0; i--)
    if (!strcmp(x->m.attrs[i].name, name)) return &x->m.attrs[i];
  return NULL;
}

bool xd_ints(xd_op *x, const char *name, int64_t *out, int n, int *count) {
  const attr *a = xd_attr(x, name);
  if (!a) return xd_error(x, "needs '%s'", name);
  if (a->kind != ATTR_INTS || (n >= 0 && a->n != n) || a->n > 2 * TOSAC_MAX_RANK) {
    if (n >= 0) return fe_error(x->m.p, a->loc, "'%s' attribute '%s' must list %d integers", x->m.opname, name, n);
    return fe_error(x->m.p, a->loc, "'%s' attribute '%s' must be a list of integers", x->m.opname, name);
  }
  memcpy(out, a->ints, sizeof(int64_t) * (size_t)a->n);
  if (count) *count = a->n;
  return true;
}

void xd_set_ints(xd_op *x, const char *name, const int64_t *v, int n) {
  attr a = {.name = name, .kind = ATTR_INTS, .n = n, .loc = x->m.loc, .type_elem = ET_I64};
  a.ints = arena_alloc(x->m.p->a, sizeof(int64_t) * (size_t)(n ? n : 1));
  memcpy(a.ints, v, sizeof(int64_t) * (size_t)n);
  ARENA_PUSH(x->m.p->a, x->m.attrs, x->m.nattrs, x->m.capattrs, a);
}

/* ---------------------------------------------------------------- syntax */
bool xd_parse_int_list(xd_op *x, int64_t *out, int max, int *n) {
  fe_parser *p = x->m.p;
  *n = 0;
  if (!fe_expect(p, T_LBRACKET, "to start the list")) return false;
  while (p->tok.kind != T_RBRACKET) {
    if (p->tok.kind != T_INT)
      return fe_error(p, fe_loc(p, p->tok), "expected an integer in '%s', found %s (tosac reads static sizes only)",
                      x->m.opname, fe_tok_text(p, p->tok));
    if (*n == max) return fe_error(p, fe_loc(p, p->tok), "too many entries in the list");
    if (!fe_tok_int(p, p->tok, &out[(*n)++], NULL, NULL)) return false;
    fe_next(p);
    if (!fe_accept(p, T_COMMA)) break;
  }
  return fe_expect(p, T_RBRACKET, "to close the list");
}

bool xd_parse_type(xd_op *x, tensor_type *t, bool *scalar) {
  fe_parser *p = x->m.p;
  elem_type et = fe_scalar_type(p);
  if (et == ET_INDEX) et = ET_I32; /* linalg.index: i32 in the graph */
  *scalar = et != ET_INVALID;
  if (*scalar) {
    *t = (tensor_type){.elem = et};
    fe_next(p);
    return true;
  }
  src_loc l;
  return fe_parse_type(p, t, &l) && fe_check_size(p, t, l);
}

static bool parse_attrs(xd_op *x) {
  fe_parser *p = x->m.p;
  for (;;) {
    if (p->tok.kind == T_LANGLE) {
      fe_next(p);
      if (!fe_parse_attr_dict(p, &x->m.attrs, &x->m.nattrs, &x->m.capattrs) ||
          !fe_expect(p, T_RANGLE, "to close the properties '<{'"))
        return false;
    } else if (p->tok.kind == T_LBRACE) {
      if (!fe_parse_attr_dict(p, &x->m.attrs, &x->m.nattrs, &x->m.capattrs)) return false;
    } else {
      return true;
    }
  }
}

static bool push_type(xd_op *x) {
  bool sc;
  if (x->nint == XD_MAX_IN) return fe_error(x->m.p, fe_loc(x->m.p, x->m.p->tok), "too many operand types");
  return xd_parse_type(x, &x->in_t[x->nint++], &sc);
}

bool xd_parse_tail(xd_op *x) {
  fe_parser *p = x->m.p;
  if (!parse_attrs(x)) return false;
  if (!fe_expect(p, T_COLON, "before the operation's type")) return false;
  if (fe_accept(p, T_LPAREN)) { /* (T, ...) -> T */
    while (p->tok.kind != T_RPAREN) {
      if (!push_type(x)) return false;
      if (!fe_accept(p, T_COMMA)) break;
    }
    if (!fe_expect(p, T_RPAREN, "to close the operand types") || !fe_expect(p, T_ARROW, "after the operand types"))
      return false;
    bool paren = fe_accept(p, T_LPAREN);
    if (!xd_parse_type(x, &x->out_t, &x->scalar_out) || (paren && !fe_expect(p, T_RPAREN, "to close the result types")))
      return false;
    for (int i = 0; x->nint == x->nin && i < x->nin; i++)
      if (!xd_check_operand_type(x, i, x->in_t[i].rank == 0)) return false;
  } else {
    for (;;) { /* T [, T ...] [to|into T] */
      if (!push_type(x)) return false;
      if (!fe_accept(p, T_COMMA)) break;
    }
    if (fe_tok_is(p, "to") || fe_tok_is(p, "into")) { /* `SRC to|into RESULT`: the source is operand 0 */
      fe_next(p);
      if (!xd_parse_type(x, &x->out_t, &x->scalar_out)) return false;
      if (x->nin > 0 && !xd_check_operand_type(x, 0, x->in_t[0].rank == 0)) return false;
    } else { /* one type: the result's (and the operands') */
      x->out_t = x->in_t[x->nint - 1];
      x->scalar_out = x->out_t.rank == 0 && x->body;
    }
  }
  x->has_out = true;
  fe_skip_loc(p);
  return true;
}

/* Operand i's declared type (the one type written for every operand, or its own) against its
 * value's; `scalar`: declared as a bare element type. Inside a linalg body only element types are
 * compared. Checked where the type is read, so an error names the mismatch, not a later op's
 * complaint about the value. */
bool xd_check_operand_type(xd_op *x, int i, bool scalar) {
  char s1[160], s2[160];
  if (x->nint == 0) return true;
  const tensor_type *t = x->nint == x->nin ? &x->in_t[i] : &x->in_t[x->nint - 1];
  const value *v = x->in[i];
  if (!v || v->id == -1) return true;
  tensor_type vt = *v->type;
  if (vt.elem == ET_INDEX) vt.elem = ET_I32; /* an index constant: i32 in the graph */
  bool same = x->body ? vt.elem == t->elem : scalar ? vt.rank == 0 && vt.elem == t->elem : fe_type_matches(t, &vt);
  if (same) return true;
  return fe_error(x->m.p, fe_loc(x->m.p, x->in_tok[i]), "operand %d of '%s' is declared as %s, but '%.*s' has type %s",
                  i, x->m.opname, x->body || scalar ? elem_type_name(t->elem) : fe_type_str(t, s1, sizeof s1),
                  x->in_tok[i].n, x->in_tok[i].p, fe_type_str(v->type, s2, sizeof s2));
}

bool xd_parse_operands(xd_op *x) {
  fe_parser *p = x->m.p;
  while (p->tok.kind == T_VALUE) {
    if (x->nin == XD_MAX_IN) return fe_error(p, fe_loc(p, p->tok), "too many operands");
    x->in_tok[x->nin] = p->tok;
    x->in[x->nin++] = xd_find(x, p->tok);
    fe_next(p);
    if (!fe_accept(p, T_COMMA)) break;
  }
  return true;
}

/* "dialect.op"(%a, ...) <{props}> ({regions}) {attrs} : (T, ...) -> T */
static bool parse_generic(xd_op *x) {
  fe_parser *p = x->m.p;
  if (!fe_expect(p, T_LPAREN, "to start the operand list") || !xd_parse_operands(x)) return false;
  if (!fe_expect(p, T_RPAREN, "to close the operand list") || !parse_attrs(x)) return false;
  if (p->tok.kind == T_LPAREN && (!strcmp(x->dialect, "linalg") || !strcmp(x->m.opname, "tensor.pad")))
    return true; /* its region: dialect_linalg.c, dialect_tensor.c */
  if (p->tok.kind == T_LPAREN)
    return fe_error(p, fe_loc(p, p->tok), "'%s' with a region in the generic form is not supported (write it in its "
                    "custom form)", x->m.opname);
  return xd_parse_tail(x);
}

/* ---------------------------------------------------------------- one op */
static value *lower(xd_op *x, bool *known) {
  if (!strcmp(x->dialect, "tensor")) return xd_tensor_op(x, known);
  if (!strcmp(x->dialect, "linalg")) return xd_linalg_op(x, known);
  return xd_arith_op(x, known);
}

static bool read_op(fe_parser *p, fe_scope *fs, xd_body *b, const fe_token *results, int nresults, fe_token name) {
  const char *nm = name.kind == T_STRING ? name.p + 1 : name.p;
  int nlen = name.kind == T_STRING ? name.n - 2 : name.n;
  xd_op x = {.m = {.p = p, .fs = fs, .loc = fe_loc(p, name), .opname = arena_strndup(p->a, nm, (size_t)nlen)},
             .generic = name.kind == T_STRING, .body = b};
  x.m.res = nresults ? arena_strndup(p->a, results[0].p + 1, (size_t)results[0].n - 1) : "r";
  const char *dot = strchr(x.m.opname, '.');
  x.dialect = arena_strndup(p->a, x.m.opname, (size_t)(dot - x.m.opname));
  x.op = dot + 1;
  fe_next(p);
  bool known = true;
  value *r = NULL;
  int before = p->d->errors;
  if (!x.generic || parse_generic(&x)) {
    r = lower(&x, &known);
    if (!known)
      fe_error(p, x.m.loc, "operation '%s' is not supported: of the %s dialect tosac reads %s (docs/ops.md, "
               "\"Exporters' dialects\")", x.m.opname, x.dialect,
               !strcmp(x.dialect, "tensor")   ? "extract_slice, insert_slice, extract, expand_shape, collapse_shape, "
                                                "empty, cast, concat, pad, reshape, bitcast, splat, from_elements"
               : !strcmp(x.dialect, "linalg") ? "matmul, batch_matmul, matmul_transpose_a/b, batch_matmul_transpose_a/b, "
                                                "fill, softmax, transpose, broadcast, reduce, map, elementwise, generic, "
                                                "index, yield"
               : !strcmp(x.dialect, "math")   ? "absf, exp, log, tanh, erf, sqrt, rsqrt, floor, ceil, sin, cos, powf"
                                              : "constant and the elementwise ops on floats and integers");
  }
  char s1[160], s2[160];
  if (r && x.has_out && r->id >= 0) {
    bool same = x.scalar_out ? r->type->elem == x.out_t.elem : tensor_type_equal(r->type, &x.out_t);
    if (!same) {
      fe_error(p, x.m.loc, "'%s' result type is declared as %s, but its operands give %s", x.m.opname,
               x.scalar_out ? elem_type_name(x.out_t.elem) : fe_type_str(&x.out_t, s1, sizeof s1),
               fe_type_str(r->type, s2, sizeof s2));
      r = NULL;
    }
  }
  if (r && r == x.m.last && r->id >= 0) r->name = name_intern(p->a, x.m.res);
  if (!r && p->d->errors == before) r = fe_poison(p); /* a yield / an op without a result */
  for (int i = 0; i < nresults; i++) bind(p, fs, b, results[i], r && i == 0 ? r : fe_poison(p));
  return r && p->d->errors == before;
}

bool fe_xd_op(fe_parser *p, fe_scope *fs, const fe_token *results, int nresults, fe_token name) {
  return read_op(p, fs, NULL, results, nresults, name);
}

/* ---------------------------------------------------------------- linalg bodies */
bool xd_parse_body(xd_op *x, xd_body *b, value *const *args, int nargs, bool label) {
  fe_parser *p = x->m.p;
  b->combine = OP_COUNT;
  if (label) { /* (%a: f32, ...) before the '{' (linalg.map / reduce) */
    if (!fe_expect(p, T_LPAREN, "to start the body's arguments")) return false;
  }
  fe_token open = p->tok;
  if (!label && !fe_expect(p, T_LBRACE, "to open the body")) return false;
  if (!label && p->tok.kind == T_CARET) {
    fe_next(p);
    if (!fe_expect(p, T_LPAREN, "after the block label")) return false;
    label = true;
  }
  int k = 0;
  while (label && p->tok.kind == T_VALUE) {
    fe_token nt = p->tok;
    tensor_type t;
    bool sc;
    fe_next(p);
    if (!fe_expect(p, T_COLON, "after the block argument name") || !xd_parse_type(x, &t, &sc)) return false;
    fe_skip_loc(p);
    if (k >= nargs) return fe_error(p, fe_loc(p, nt), "'%s' body takes %d argument%s", x->m.opname, nargs, nargs == 1 ? "" : "s");
    if (args[k] && args[k]->type->elem != t.elem)
      return fe_error(p, fe_loc(p, nt), "block argument '%.*s' is %s, but its operand's elements are %s", nt.n, nt.p,
                      elem_type_name(t.elem), elem_type_name(args[k]->type->elem));
    bind(p, x->m.fs, b, nt, args[k++]);
    if (!fe_accept(p, T_COMMA)) break;
  }
  if (label && !fe_expect(p, T_RPAREN, "to close the body's arguments")) return false;
  if (label && k != nargs && k != b->min_args)
    return fe_error(p, fe_loc(p, p->prev), "'%s' body takes %d argument%s, found %d", x->m.opname, nargs,
                    nargs == 1 ? "" : "s", k);
  if (p->tok.kind == T_COLON) fe_next(p); /* ^bb0(...): */
  if (open.kind != T_LBRACE) {
    open = p->tok;
    if (!fe_expect(p, T_LBRACE, "to open the body")) return false;
  }
  while (!p->fatal) {
    if (p->tok.kind == T_EOF) return fe_unterminated(p, open, "body");
    fe_token res[4];
    int nres = 0;
    while (p->tok.kind == T_VALUE && nres < 4) {
      res[nres++] = p->tok;
      fe_next(p);
      if (!fe_accept(p, T_COMMA)) break;
    }
    if (nres && !fe_expect(p, T_EQUAL, "after the result names")) return false;
    fe_token name = p->tok;
    const char *nm = name.kind == T_STRING ? name.p + 1 : name.p;
    int nlen = name.kind == T_STRING ? name.n - 2 : name.n;
    if ((name.kind == T_IDENT || name.kind == T_STRING) && nlen == 12 && !memcmp(nm, "linalg.yield", 12)) {
      fe_next(p);
      bool generic = name.kind == T_STRING;
      if (generic && !fe_expect(p, T_LPAREN, "to start the operand list")) return false;
      if (p->tok.kind != T_VALUE) return fe_expect(p, T_VALUE, "after 'linalg.yield'");
      b->result = xd_find(x, p->tok);
      fe_next(p);
      if (p->tok.kind == T_COMMA)
        return fe_error(p, fe_loc(p, p->tok), "'%s' with more than one result is not supported", x->m.opname);
      if (generic && !fe_expect(p, T_RPAREN, "to close the operand list")) return false;
      if (!fe_expect(p, T_COLON, "before the yielded type")) return false;
      if (generic && fe_accept(p, T_LPAREN)) {
        tensor_type t;
        bool sc;
        if (!xd_parse_type(x, &t, &sc) || !fe_expect(p, T_RPAREN, "") || !fe_expect(p, T_ARROW, "") ||
            !fe_expect(p, T_LPAREN, "") || !fe_expect(p, T_RPAREN, ""))
          return false;
      } else {
        tensor_type t;
        bool sc;
        if (!xd_parse_type(x, &t, &sc)) return false;
      }
      fe_skip_loc(p);
      if (!b->result) return false;
      return fe_expect(p, T_RBRACE, "to close the body (linalg.yield ends it)");
    }
    if ((name.kind != T_IDENT && name.kind != T_STRING) || !fe_xd_is_op(nm, nlen))
      return fe_error(p, fe_loc(p, name), "%s in a linalg body is not supported: tosac reads arith and math ops, "
                      "linalg.index and linalg.yield there", fe_tok_text(p, name));
    if (!read_op(p, x->m.fs, b, res, nres, name)) { /* skip the rest of the body (recovery goes on after it) */
      for (int depth = 0; !p->fatal && p->tok.kind != T_EOF && (depth > 0 || p->tok.kind != T_RBRACE); fe_next(p))
        depth += (p->tok.kind == T_LBRACE) - (p->tok.kind == T_RBRACE);
      fe_accept(p, T_RBRACE);
      return false;
    }
  }
  return false;
}
