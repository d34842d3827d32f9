/* dialect_linalg.c: linalg ops on tensors as TOSA ops. Matrix products become tosa.matmul (plus
 * the output operand unless it is a zero fill), softmax the spelled-out TOSA softmax (so the
 * partitioner sees the same attention and row patterns), fill a splat constant, transpose and
 * broadcast tosa.transpose and a broadcasting add. linalg.generic (and map, reduce, whose bodies
 * are the same) is computed on the iteration space: each input is transposed and reshaped to it
 * by its projected-permutation map, the body's arith/math ops become TOSA elementwise ops on
 * those tensors, and a reduction's combining op becomes tosa.reduce_* over the reduction
 * dimensions. */
#include "frontend/dialect.h"

#include <string.h>

#define MAXR TOSAC_MAX_RANK

/* ---------------------------------------------------------------- affine maps */
typedef struct amap {
  int ndims, nres;
  int res[MAXR]; /* the iteration dimension of each result; -1: the constant 0 */
} amap;

static const char *skip_ws(const char *s) {
  while (*s == ' ' || *s == '\t' || *s == '\n' || *s == '\r') s++;
  return s;
}

static int ident_len(const char *s) {
  int n = 0;
  while ((s[n] >= 'a' && s[n] <= 'z') || (s[n] >= 'A' && s[n] <= 'Z') || (s[n] >= '0' && s[n] <= '9') || s[n] == '_')
    n++;
  return n;
}

/* The text of alias #name (its value), or NULL. */
static const char *alias_text(fe_parser *p, const char *name, int n) {
  for (int i = p->naliases - 1; i >= 0; i--)
    if (p->aliases[i].name.n == n && !memcmp(p->aliases[i].name.p, name, (size_t)n)) return p->aliases[i].value.p;
  return NULL;
}

/* affine_map<(d0, d1) -> (d1, 0)> at s (or an alias naming one); *end just after it. */
static bool parse_map(xd_op *x, const char *s, amap *m, const char **end) {
  fe_parser *p = x->m.p;
  s = skip_ws(s);
  if (*s == '#') {
    int n = 1 + ident_len(s + 1);
    while (s[n] == '.' || s[n] == '$') n += 1 + ident_len(s + n + 1);
    const char *t = alias_text(p, s, n);
    if (!t) return xd_error(x, "names the undefined affine map '%.*s'", n, s);
    const char *ignored;
    *end = s + n;
    return parse_map(x, t, m, &ignored);
  }
  if (strncmp(s, "affine_map<", 11)) return xd_error(x, "expects affine maps in indexing_maps");
  s = skip_ws(s + 11);
  const char *names[MAXR];
  int lens[MAXR];
  m->ndims = m->nres = 0;
  if (*s++ != '(') return xd_error(x, "has an affine map tosac cannot read");
  while (*(s = skip_ws(s)) != ')') {
    int n = ident_len(s);
    if (!n || m->ndims == MAXR) return xd_error(x, "has an affine map tosac cannot read");
    names[m->ndims] = s, lens[m->ndims++] = n;
    s = skip_ws(s + n);
    if (*s == ',') s++;
  }
  s = skip_ws(s + 1);
  if (*s == '[') return xd_error(x, "has an affine map with symbols (tosac reads projected permutations)");
  if (strncmp(s, "->", 2)) return xd_error(x, "has an affine map tosac cannot read");
  s = skip_ws(s + 2);
  if (*s++ != '(') return xd_error(x, "has an affine map tosac cannot read");
  while (*(s = skip_ws(s)) != ')') {
    if (m->nres == MAXR) return xd_error(x, "has an affine map of too many results");
    int n = ident_len(s), k = -2;
    if (n == 1 && *s == '0') k = -1;
    for (int i = 0; i < m->ndims && k == -2; i++)
      if (lens[i] == n && !memcmp(names[i], s, (size_t)n)) k = i;
    s = skip_ws(s + n);
    if (k == -2 || (*s != ',' && *s != ')'))
      return xd_error(x, "has an affine map whose results are not dimensions (tosac reads projected permutations)");
    m->res[m->nres++] = k;
    if (*s == ',') s++;
  }
  s = skip_ws(s + 1);
  if (*s != '>') return xd_error(x, "has an affine map tosac cannot read");
  *end = s + 1;
  return true;
}

/* indexing_maps = [m, ...] (raw text): n maps. */
static bool parse_maps(xd_op *x, const char *text, amap *maps, int max, int *n) {
  const char *s = skip_ws(text);
  *n = 0;
  if (*s++ != '[') return xd_error(x, "indexing_maps must be a list of affine maps");
  while (*(s = skip_ws(s)) && *s != ']') {
    if (*n == max) return xd_error(x, "has more indexing maps than operands");
    if (!parse_map(x, s, &maps[(*n)++], &s)) return false;
    s = skip_ws(s);
    if (*s == ',') s++;
  }
  return true;
}

/* ---------------------------------------------------------------- syntax */
typedef struct lin {
  amap maps[XD_MAX_IN];
  int nmaps;
  bool reduction[MAXR];
  int niter;
  int64_t list[2 * MAXR]; /* permutation = / dimensions = */
  int nlist;
  int64_t dim; /* softmax's dimension(N) */
  const char *body_op; /* linalg.map { arith.addf } */
} lin;

/* ins(%a, ... : T, ...) or outs(...) */
static bool operand_group(xd_op *x, const char *kw) {
  fe_parser *p = x->m.p;
  if (!fe_tok_is(p, kw)) return fe_error(p, fe_loc(p, p->tok), "expected '%s(...)' in '%s', found %s", kw, x->m.opname,
                                          fe_tok_text(p, p->tok));
  fe_next(p);
  if (!fe_expect(p, T_LPAREN, kw[0] == 'i' ? "after 'ins'" : "after 'outs'")) return false;
  int first = x->nin;
  if (!xd_parse_operands(x)) return false;
  if (x->nin > first) {
    if (!fe_expect(p, T_COLON, "before the operand types")) return false;
    for (int i = first; i < x->nin; i++) {
      bool sc;
      if (!xd_parse_type(x, &x->in_t[i], &sc)) return false;
      x->nint = i + 1;
      if (!xd_check_operand_type(x, i, sc)) return false;
      if (i + 1 < x->nin && !fe_expect(p, T_COMMA, "between the operand types")) return false;
    }
    x->nint = x->nin;
  }
  return fe_expect(p, T_RPAREN, "to close the operand list");
}

static bool parse_attrs_into(xd_op *x) {
  return fe_parse_attr_dict(x->m.p, &x->m.attrs, &x->m.nattrs, &x->m.capattrs);
}

/* `name = [..]` */
static bool keyword_list(xd_op *x, const char *kw, lin *l) {
  fe_parser *p = x->m.p;
  if (!fe_tok_is(p, kw)) return true;
  fe_next(p);
  if (!fe_expect(p, T_EQUAL, "after the keyword")) return false;
  return xd_parse_int_list(x, l->list, 2 * MAXR, &l->nlist);
}

/* Everything up to the body or the end: [{attrs} | indexing_maps = [...]] ins(..) outs(..) ... */
static bool named_syntax(xd_op *x, lin *l) {
  fe_parser *p = x->m.p;
  if (fe_tok_is(p, "dimension")) { /* softmax */
    fe_next(p);
    if (!fe_expect(p, T_LPAREN, "after 'dimension'")) return false;
    if (p->tok.kind != T_INT || !fe_tok_int(p, p->tok, &l->dim, NULL, NULL)) return fe_expect(p, T_INT, "(the dimension)");
    fe_next(p);
    if (!fe_expect(p, T_RPAREN, "after the dimension")) return false;
  }
  if (fe_tok_is(p, "kind")) { /* elementwise kind=#linalg.elementwise_kind<exp> */
    fe_next(p);
    if (!fe_expect(p, T_EQUAL, "after 'kind'")) return false;
    attr a = {0};
    if (!fe_parse_attr_value(p, &a)) return false;
    if (a.kind != ATTR_STR) return xd_error(x, "kind must be #linalg.elementwise_kind<...>");
    x->word = (fe_token){.kind = T_IDENT, .p = a.s, .n = (int)strlen(a.s)};
  }
  if (fe_tok_is(p, "indexing_maps")) {
    fe_next(p);
    attr a = {.name = "indexing_maps"};
    if (!fe_expect(p, T_EQUAL, "after 'indexing_maps'") || !fe_parse_attr_value(p, &a)) return false;
    ARENA_PUSH(p->a, x->m.attrs, x->m.nattrs, x->m.capattrs, a);
  }
  if (p->tok.kind == T_LBRACE) {
    if (!strcmp(x->op, "map") || !strcmp(x->op, "reduce")) { /* { arith.addf } */
      fe_next(p);
      if (p->tok.kind != T_IDENT) return fe_expect(p, T_IDENT, "(the body's operation)");
      l->body_op = arena_strndup(p->a, p->tok.p, (size_t)p->tok.n);
      fe_next(p);
      if (p->tok.kind == T_LBRACE && !fe_skip_group(p)) return false;
      if (!fe_expect(p, T_RBRACE, "after the body's operation")) return false;
    } else if (!parse_attrs_into(x)) {
      return false;
    }
  }
  if (!operand_group(x, "ins")) return false;
  x->nins = x->nin;
  if (!operand_group(x, "outs")) return false;
  if (!keyword_list(x, "permutation", l) || !keyword_list(x, "dimensions", l)) return false;
  if (fe_tok_is(p, "attrs")) {
    fe_next(p);
    if (!fe_expect(p, T_EQUAL, "after 'attrs'") || !parse_attrs_into(x)) return false;
  }
  return true;
}

/* The generic form: "linalg.op"(ins..., outs...) <{operandSegmentSizes = array<i32: I, O>, ...}>,
 * read by dialect.c up to the region; the attributes the custom form writes as keywords. */
static bool generic_syntax(xd_op *x, lin *l) {
  const attr *seg = xd_attr(x, "operandSegmentSizes"), *a;
  if (seg && (seg->kind != ATTR_INTS || seg->n != 2 || seg->ints[0] < 0 || seg->ints[0] + seg->ints[1] != x->nin))
    return xd_error(x, "has an operandSegmentSizes that does not split its %d operands into ins and outs", x->nin);
  x->nins = seg ? (int)seg->ints[0] : x->nin - 1; /* without it (map, reduce, transpose, ...): one output */
  if (((a = xd_attr(x, "permutation")) || (a = xd_attr(x, "dimensions"))) && a->kind == ATTR_INTS && a->n <= 2 * MAXR) {
    memcpy(l->list, a->ints, sizeof(int64_t) * (size_t)a->n);
    l->nlist = a->n;
  }
  if ((a = xd_attr(x, "dimension")) && a->kind == ATTR_INT) l->dim = a->i;
  if ((a = xd_attr(x, "kind")) && a->kind == ATTR_STR) x->word = (fe_token){.kind = T_IDENT, .p = a->s, .n = (int)strlen(a->s)};
  return true;
}

static bool op_syntax(xd_op *x, lin *l) { return x->generic ? generic_syntax(x, l) : named_syntax(x, l); }

static bool result_tail(xd_op *x) {
  fe_parser *p = x->m.p;
  if (x->generic) { /* ({region}) {attrs} : (T, ...) -> T; a named op's region is its definition */
    if (x->has_out) return true; /* no region: dialect.c read the type */
    if (p->tok.kind == T_LPAREN && !fe_skip_group(p)) return false;
    return xd_parse_tail(x);
  }
  if (p->tok.kind == T_LBRACE && !parse_attrs_into(x)) return false;
  if (fe_accept(p, T_ARROW)) {
    bool sc, paren = fe_accept(p, T_LPAREN);
    if (!xd_parse_type(x, &x->out_t, &sc) || (paren && !fe_expect(p, T_RPAREN, "to close the result types")))
      return false;
    x->has_out = true;
  } else if (x->nin > x->nins) {
    x->out_t = x->in_t[x->nin - 1]; /* transpose, broadcast, reduce, map: the init's type */
    x->has_out = true;
  }
  fe_skip_loc(p);
  return true;
}

/* ---------------------------------------------------------------- helpers */
static bool is_zero_const(const value *v) {
  if (!v || !v->def || v->def->kind != OP_CONST) return false;
  const attr *a = op_attr(v->def, "values");
  if (!a || a->kind != ATTR_DENSE || !a->dense->splat) return false;
  for (size_t i = 0; i < (size_t)elem_type_bytes(a->dense->type.elem); i++)
    if (a->dense->bytes[i]) return false;
  return true;
}

/* The init of a reduction is its combining op's identity (a fill of 0 for a sum, of -inf or the
 * type's lowest for a max): then it need not be combined. */
static bool is_identity(const value *v, op_kind k) {
  if (k == OP_ADD) return is_zero_const(v);
  if (!v || !v->def || v->def->kind != OP_CONST) return false;
  const attr *a = op_attr(v->def, "values");
  if (!a || a->kind != ATTR_DENSE || !a->dense->splat) return false;
  double f = elem_type_is_float(a->dense->type.elem) ? fe_dense_float(a->dense, 0) : (double)fe_dense_int(a->dense, 0);
  if (k == OP_MUL) return f == 1;
  if (f != f) return k == OP_MAXIMUM || k == OP_MINIMUM; /* NaN: upstream's maxnumf identity (softmax) */
  if (k == OP_MAXIMUM) return f == -__builtin_inf() || (!elem_type_is_float(a->dense->type.elem) && f <= -2147483648.0);
  if (k == OP_MINIMUM) return f == __builtin_inf() || (!elem_type_is_float(a->dense->type.elem) && f >= 2147483647.0);
  return false;
}

static value *matmul(xd_op *x, value *a, value *b, value *c, const tensor_type *out) {
  if (!a || !b || !c) return NULL;
  char s1[160], s2[160];
  int r = a->type->rank;
  if (r < 2 || b->type->rank != r || out->rank != r || a->type->dims[r - 1] != b->type->dims[r - 2])
    return xd_error(x, "shapes %s and %s do not multiply", fe_type_str(a->type, s1, sizeof s1),
                    fe_type_str(b->type, s2, sizeof s2)),
           NULL;
  x->m.in[0] = a, x->m.in[1] = b, x->m.nin = 2;
  x->m.out_t = (fe_mgx_type){.t = *out};
  value *mm = fe_mgx_find_op("dot")->fn(&x->m, 0); /* [..., M, K] x [..., K, N] as tosa.matmul */
  return is_zero_const(c) ? mm : xd_binary(x, OP_ADD, mm, c);
}

static value *swap_last(xd_op *x, value *v) {
  if (!v) return NULL;
  int64_t perm[MAXR];
  int r = v->type->rank;
  for (int i = 0; i < r; i++) perm[i] = i;
  perm[r - 1] = r - 2, perm[r - 2] = r - 1;
  return fe_mgx_transpose(&x->m, v, perm);
}

/* linalg.matmul's indexing_maps (current MLIR): which operand is transposed. */
static bool matmul_maps(xd_op *x, bool *ta, bool *tb) {
  const attr *a = xd_attr(x, "indexing_maps");
  *ta = *tb = false;
  if (!a) return true;
  amap m[3];
  int n;
  if (a->kind != ATTR_STR || !parse_maps(x, a->s, m, 3, &n)) return a->kind == ATTR_STR ? false : xd_error(x, "has unreadable indexing_maps");
  int batch = m[0].ndims - 3;
  for (int i = 0; i < n; i++)
    if (m[i].nres != batch + 2) return xd_error(x, "indexing_maps must keep every operand's rank");
  int M = batch, N = batch + 1, K = batch + 2;
  *ta = m[0].res[batch] == K && m[0].res[batch + 1] == M;
  *tb = m[1].res[batch] == N && m[1].res[batch + 1] == K;
  bool ok = (*ta || (m[0].res[batch] == M && m[0].res[batch + 1] == K)) &&
            (*tb || (m[1].res[batch] == K && m[1].res[batch + 1] == N)) && m[2].res[batch] == M &&
            m[2].res[batch + 1] == N;
  return ok || xd_error(x, "indexing_maps other than (transposed) matrix products are not supported");
}

/* ---------------------------------------------------------------- generic */
/* Input v read through map m, as a tensor of the iteration space's rank (1 where it does not vary). */
static value *to_space(xd_op *x, value *v, const amap *m, const tensor_type *space) {
  if (!v) return NULL;
  int64_t perm[MAXR], dims[MAXR];
  int np = 0;
  int64_t one[MAXR] = {0};
  for (int d = 0; d < space->rank; d++)
    for (int i = 0; i < m->nres; i++)
      if (m->res[i] == d) perm[np++] = i;
  /* constant results (size 1) drop out: slice them away first by reshaping */
  int64_t kept[MAXR];
  int nk = 0;
  for (int i = 0; i < m->nres; i++)
    if (m->res[i] >= 0) kept[nk++] = v->type->dims[i];
  (void)one;
  if (nk != m->nres) {
    int64_t rp[MAXR];
    for (int i = 0, j = 0; i < m->nres; i++)
      if (m->res[i] >= 0) rp[i] = j++;
    for (int i = 0; i < np; i++) perm[i] = rp[perm[i]];
    v = fe_mgx_reshape(&x->m, v, kept, nk);
  }
  v = fe_mgx_transpose(&x->m, v, perm);
  for (int d = 0; d < space->rank; d++) {
    dims[d] = 1;
    for (int i = 0; i < m->nres; i++)
      if (m->res[i] == d) dims[d] = space->dims[d];
  }
  return fe_mgx_reshape(&x->m, v, dims, space->rank);
}

/* The body's computation over the space, reduced and laid out as the output (map mo). */
static value *from_space(xd_op *x, xd_body *b, const amap *mo, const bool *red, value *init) {
  const tensor_type *sp = &b->space;
  value *r = b->result;
  tensor_type full = *sp;
  if (r == b->acc) { /* a reduction: reduce the combined value, then combine with the init */
    op_kind k = b->combine;
    full.elem = b->combined ? b->combined->type->elem : ET_F32;
    value *v = fe_mgx_broadcast(&x->m, b->combined, &full);
    op_kind rk = k == OP_ADD ? OP_REDUCE_SUM : k == OP_MAXIMUM ? OP_REDUCE_MAX : k == OP_MINIMUM ? OP_REDUCE_MIN
                                                                                                 : OP_REDUCE_PRODUCT;
    for (int d = 0; d < sp->rank && v; d++) {
      if (!red[d]) continue;
      tensor_type t = *v->type;
      t.dims[d] = 1;
      op *o = fe_op_new(x->m.p, rk, x->m.loc, &v, 1);
      fe_set_int(x->m.p, o, "axis", d, ET_I32);
      x->m.last = fe_op_finish(x->m.p, x->m.fs, o, &t, arena_printf(x->m.p->a, "%s_%d", x->m.res, ++x->m.ntmp));
      v = x->m.last;
    }
    if (!v) return NULL;
    r = is_identity(init, k) ? v : xd_binary(x, k, v, to_space(x, init, mo, sp));
  } else if (r) {
    for (int d = 0; d < sp->rank; d++)
      if (red[d]) full.dims[d] = 1;
    full.elem = r->type->elem;
    r = fe_mgx_broadcast(&x->m, r, &full);
  }
  if (!r) return NULL;
  int64_t perm[MAXR], dims[MAXR];
  int np = 0;
  for (int i = 0; i < mo->nres; i++) {
    if (mo->res[i] < 0) return xd_error(x, "has an output map with a constant result"), NULL;
    perm[np] = mo->res[i], dims[np++] = sp->dims[mo->res[i]];
  }
  for (int d = 0; d < sp->rank; d++)
    if (red[d]) perm[np++] = d;
  if (np != sp->rank) return xd_error(x, "has an output map that leaves out a parallel dimension"), NULL;
  return fe_mgx_reshape(&x->m, fe_mgx_transpose(&x->m, r, perm), dims, mo->nres);
}

/* The iteration space's sizes from the operands' shapes. */
static bool space_of(xd_op *x, const amap *maps, int n, tensor_type *sp) {
  *sp = (tensor_type){.rank = maps[0].ndims, .elem = ET_F32};
  for (int d = 0; d < sp->rank; d++) sp->dims[d] = -1;
  for (int k = 0; k < n; k++) {
    if (maps[k].ndims != sp->rank) return xd_error(x, "has indexing maps over different dimension counts");
    const value *v = x->in[k];
    if (maps[k].nres != v->type->rank)
      return xd_error(x, "operand %d has rank %d, but its indexing map has %d results", k, v->type->rank, maps[k].nres);
    for (int i = 0; i < maps[k].nres; i++) {
      int d = maps[k].res[i];
      if (d < 0) {
        if (v->type->dims[i] != 1) return xd_error(x, "operand %d: a constant map result on a dimension of size %lld", k,
                                                   (long long)v->type->dims[i]);
        continue;
      }
      if (sp->dims[d] >= 0 && sp->dims[d] != v->type->dims[i])
        return xd_error(x, "operands disagree on the size of iteration dimension d%d (%lld and %lld)", d,
                        (long long)sp->dims[d], (long long)v->type->dims[i]);
      sp->dims[d] = v->type->dims[i];
    }
  }
  for (int d = 0; d < sp->rank; d++)
    if (sp->dims[d] < 0) return xd_error(x, "iteration dimension d%d is read by no operand", d);
  return true;
}

/* A body (read at the current token) over maps: the output's value. */
static value *run_body(xd_op *x, const amap *maps, const bool *red, bool label, const char *body_op) {
  int nout = x->nin - x->nins;
  if (nout != 1) return xd_error(x, "with %d outputs is not supported (one output)", nout), NULL;
  for (int i = 0; i < x->nin; i++)
    if (!x->in[i] || x->in[i]->id == -1) { /* reported: step over the body */
      fe_parser *p = x->m.p;
      if (label && p->tok.kind == T_LPAREN) fe_skip_group(p);
      if (!body_op && p->tok.kind == T_LBRACE) fe_skip_group(p);
      return NULL;
    }
  xd_body b = {.combine = OP_COUNT, .min_args = !strcmp(x->op, "map") ? x->nins : x->nin}; /* map: init optional */
  if (!space_of(x, maps, x->nin, &b.space)) return NULL;
  bool any_red = false;
  for (int d = 0; d < b.space.rank; d++) any_red |= red[d];
  value *args[XD_MAX_IN];
  xd_op bx = *x;
  bx.body = &b;
  for (int i = 0; i < x->nins; i++) args[i] = x->in[i]->id == FE_SCALAR_ID ? xd_scalar_tensor(&bx, x->in[i], b.space.rank)
                                                                              : to_space(&bx, x->in[i], &maps[i], &b.space);
  value *init = x->in[x->nins];
  if (any_red) {
    b.acc = arena_alloc(x->m.p->a, sizeof *b.acc);
    *b.acc = (value){.id = -3, .type = init->type};
    args[x->nins] = b.acc;
  } else {
    args[x->nins] = to_space(&bx, init, &maps[x->nins], &b.space);
  }
  if (body_op) { /* linalg.map / reduce { arith.addf }: the op on the arguments in order */
    xd_op ox = bx;
    ox.m.opname = body_op;
    ox.nin = any_red ? 2 : x->nins;
    for (int i = 0; i < ox.nin; i++) ox.in[i] = args[i], ox.in_tok[i] = x->in_tok[i];
    if (any_red) ox.in[0] = args[0], ox.in[1] = b.acc;
    ox.nins = ox.nint = 0;
    ox.generic = true; /* no syntax left to read */
    ox.has_out = false;
    const char *dot = strchr(body_op, '.');
    if (!dot) return xd_error(x, "body operation '%s' is not supported", body_op), NULL;
    ox.dialect = arena_strndup(x->m.p->a, body_op, (size_t)(dot - body_op));
    ox.op = dot + 1;
    bool known = true;
    b.result = strcmp(ox.dialect, "arith") && strcmp(ox.dialect, "math") ? NULL : xd_arith_op(&ox, &known);
    if (!known || (!b.result && !strcmp(ox.dialect, "linalg")))
      return xd_error(x, "body operation '%s' is not supported", body_op), NULL;
    x->m.ntmp = ox.m.ntmp;
  } else if (!xd_parse_body(&bx, &b, args, x->nin, label)) {
    return NULL;
  }
  x->m.ntmp = bx.m.ntmp > x->m.ntmp ? bx.m.ntmp : x->m.ntmp;
  if (!b.result) return NULL;
  if (b.acc && b.result == b.acc && b.combine == OP_COUNT)
    return xd_error(x, "yields its accumulator unchanged"), NULL;
  if (any_red && b.result != b.acc)
    return xd_error(x, "body must yield its combining op (arith.addf / maximumf / minimumf / mulf of the output "
                    "argument) to be read as a reduction"),
           NULL;
  return from_space(x, &b, &maps[x->nins], red, init);
}

/* run_body, in the generic form inside the region list's parentheses. */
static value *body(xd_op *x, const amap *maps, const bool *red, bool label, const char *body_op) {
  fe_parser *p = x->m.p;
  if (x->generic && !fe_expect(p, T_LPAREN, "to start the region list")) return NULL;
  value *v = run_body(x, maps, red, label, body_op);
  return v && (!x->generic || fe_expect(p, T_RPAREN, "to close the region list")) ? v : NULL;
}

static void identity_map(amap *m, int rank) {
  m->ndims = m->nres = rank;
  for (int i = 0; i < rank; i++) m->res[i] = i;
}

/* linalg.generic {indexing_maps = [...], iterator_types = [...]} ins(..) outs(..) {body} -> T */
static value *l_generic(xd_op *x) {
  lin l = {0};
  if (!op_syntax(x, &l)) return NULL;
  const attr *im = xd_attr(x, "indexing_maps"), *it = xd_attr(x, "iterator_types");
  if (!im || !it || im->kind != ATTR_STR || it->kind != ATTR_STR)
    return xd_error(x, "needs indexing_maps and iterator_types"), NULL;
  if (!parse_maps(x, im->s, l.maps, XD_MAX_IN, &l.nmaps)) return NULL;
  if (l.nmaps != x->nin) return xd_error(x, "has %d indexing maps for %d operands", l.nmaps, x->nin), NULL;
  int n = 0;
  for (const char *s = it->s; *s; s++) {
    bool par = !strncmp(s, "parallel", 8), red = !strncmp(s, "reduction", 9);
    if (!par && !red) continue;
    if (n == MAXR) return xd_error(x, "has too many iterators"), NULL;
    l.reduction[n++] = red;
    s += 7;
  }
  if (n != l.maps[0].ndims) return xd_error(x, "has %d iterator types for %d dimensions", n, l.maps[0].ndims), NULL;
  value *r = body(x, l.maps, l.reduction, false, NULL);
  return r && result_tail(x) ? r : NULL;
}

/* linalg.map / linalg.reduce: identity maps (reduce: the output drops `dimensions`). */
static value *l_map_reduce(xd_op *x, bool reduce) {
  lin l = {0};
  if (!op_syntax(x, &l)) return NULL;
  if (x->nin < 2 || !x->in[0] || x->in[0]->id == -1) return xd_error(x, "needs ins and outs"), NULL;
  int r = x->in[0]->type->rank;
  for (int i = 0; i < x->nins; i++) identity_map(&l.maps[i], r);
  bool red[MAXR] = {false};
  amap *mo = &l.maps[x->nins];
  mo->ndims = r, mo->nres = 0;
  for (int i = 0; reduce && i < l.nlist; i++) {
    if (l.list[i] < 0 || l.list[i] >= r) return xd_error(x, "dimension %lld is outside the rank %d", (long long)l.list[i], r), NULL;
    red[l.list[i]] = true;
  }
  for (int d = 0; d < r; d++)
    if (!red[d]) mo->res[mo->nres++] = d;
  fe_parser *p = x->m.p;
  bool label = !x->generic && !l.body_op && p->tok.kind == T_LPAREN;
  if (!l.body_op && !label && !x->generic) return xd_error(x, "needs a body"), NULL;
  value *v = body(x, l.maps, red, label, l.body_op);
  return v && result_tail(x) ? v : NULL;
}

static value *l_elementwise(xd_op *x) {
  lin l = {0};
  if (!op_syntax(x, &l) || !result_tail(x)) return NULL;
  static const struct {
    const char *kind;
    const char *op;
  } kinds[] = {{"exp", "math.exp"},     {"log", "math.log"},         {"abs", "math.absf"},   {"ceil", "math.ceil"},
               {"floor", "math.floor"}, {"negf", "arith.negf"},     {"sqrt", "math.sqrt"},  {"rsqrt", "math.rsqrt"},
               {"tanh", "math.tanh"},   {"erf", "math.erf"},         {"add", "arith.addf"},  {"sub", "arith.subf"},
               {"mul", "arith.mulf"},   {"div", "arith.divf"},       {"powf", "math.powf"},  {"max_signed", "arith.maximumf"},
               {"min_signed", "arith.minimumf"}};
  const char *op = NULL;
  for (size_t i = 0; i < sizeof kinds / sizeof kinds[0]; i++)
    if ((size_t)x->word.n == strlen(kinds[i].kind) && !memcmp(x->word.p, kinds[i].kind, (size_t)x->word.n)) op = kinds[i].op;
  if (!op) return xd_error(x, "kind '%.*s' is not supported", x->word.n, x->word.p), NULL;
  xd_op ox = *x;
  ox.m.opname = op;
  ox.dialect = op[0] == 'a' ? "arith" : "math";
  ox.op = strchr(op, '.') + 1;
  ox.generic = true;
  ox.nin = ox.nint = x->nins;
  bool known = true;
  value *v = xd_arith_op(&ox, &known);
  x->m.ntmp = ox.m.ntmp, x->m.last = ox.m.last;
  return v;
}

value *xd_linalg_op(xd_op *x, bool *known) {
  const char *op = x->op;
  if (x->body && !strcmp(op, "index")) { /* %i = linalg.index 0 : index, an iota over the space */
    fe_parser *p = x->m.p;
    int64_t d;
    const attr *da = xd_attr(x, "dim");
    if (x->generic && (!da || da->kind != ATTR_INT)) return xd_error(x, "needs 'dim'"), NULL;
    if (x->generic) {
      d = da->i;
    } else {
      if (p->tok.kind != T_INT || !fe_tok_int(p, p->tok, &d, NULL, NULL)) return fe_expect(p, T_INT, "(the dimension)"), NULL;
      fe_next(p);
      if (!xd_parse_tail(x)) return NULL;
    }
    const tensor_type *sp = &x->body->space;
    if (d < 0 || d >= sp->rank) return xd_error(x, "dimension %lld is outside the iteration space", (long long)d), NULL;
    tensor_type t = {.elem = ET_I32, .rank = sp->rank};
    for (int i = 0; i < t.rank; i++) t.dims[i] = i == d ? sp->dims[i] : 1;
    dense_data *dd = arena_alloc(p->a, sizeof *dd);
    int32_t *v = arena_alloc(p->a, sizeof(int32_t) * (size_t)sp->dims[d]);
    for (int64_t i = 0; i < sp->dims[d]; i++) v[i] = (int32_t)i;
    *dd = (dense_data){.type = t, .bytes = (uint8_t *)v, .nbytes = sizeof(int32_t) * (size_t)sp->dims[d]};
    return xd_const(x, dd);
  }
  if (!strcmp(op, "generic")) return l_generic(x);
  if (!strcmp(op, "map")) return l_map_reduce(x, false);
  if (!strcmp(op, "reduce")) return l_map_reduce(x, true);
  if (!strcmp(op, "elementwise")) return l_elementwise(x);
  static const char *const named[] = {"matmul", "batch_matmul", "matmul_transpose_a", "matmul_transpose_b",
                                      "batch_matmul_transpose_a", "batch_matmul_transpose_b", "fill", "softmax",
                                      "transpose", "broadcast"};
  bool found = false;
  for (size_t i = 0; i < sizeof named / sizeof named[0]; i++) found |= !strcmp(named[i], op);
  if (!found) return *known = false, NULL;
  lin l = {0};
  if (!op_syntax(x, &l) || !result_tail(x)) return NULL;
  int nouts = x->nin - x->nins;
  if (nouts != 1) return xd_error(x, "expects one operand in outs(...), found %d", nouts), NULL;
  for (int i = 0; i < x->nin; i++)
    if (!x->in[i] || x->in[i]->id == -1) return NULL;
  value *out = x->in[x->nins];
  if (!strcmp(op, "fill")) {
    if (x->nins != 1) return xd_error(x, "expects one operand in ins(...)"), NULL;
    value *s = x->in[0];
    if (s->id == FE_SCALAR_ID) {
      dense_data *dd = arena_alloc(x->m.p->a, sizeof *dd);
      *dd = *op_attrs(s->def)[0].dense;
      dd->type = *out->type;
      dd->splat = true;
      if (dd->type.elem != s->type->elem) return xd_error(x, "fills %s with a %s", elem_type_name(out->type->elem),
                                                          elem_type_name(s->type->elem)), NULL;
      return xd_const(x, dd);
    }
    return fe_mgx_broadcast(&x->m, fe_mgx_reshape(&x->m, s, (int64_t[MAXR]){1, 1, 1, 1, 1, 1}, out->type->rank), out->type);
  }
  if (x->nins != (strstr(op, "matmul") ? 2 : 1)) return xd_error(x, "has %d operands in ins(...)", x->nins), NULL;
  for (int i = 0; i < x->nin; i++)
    if (x->in[i]->id == FE_SCALAR_ID) return xd_operand(x, i);
  value *a = x->in[0];
  if (strstr(op, "matmul")) {
    bool ta = strstr(op, "transpose_a") != NULL, tb = strstr(op, "transpose_b") != NULL, ma, mb;
    if (!matmul_maps(x, &ma, &mb)) return NULL;
    value *A = ta || ma ? swap_last(x, a) : a, *B = tb || mb ? swap_last(x, x->in[1]) : x->in[1];
    return matmul(x, A, B, out, out->type);
  }
  if (!strcmp(op, "softmax")) {
    if (l.dim < 0 || l.dim >= a->type->rank) return xd_error(x, "dimension %lld is outside the rank", (long long)l.dim), NULL;
    attr ax = {.name = "axis", .kind = ATTR_INT, .i = l.dim, .loc = x->m.loc};
    x->m.nattrs = 0;
    ARENA_PUSH(x->m.p->a, x->m.attrs, x->m.nattrs, x->m.capattrs, ax);
    x->m.in[0] = a, x->m.nin = 1;
    return fe_mgx_find_op("softmax")->fn(&x->m, 0);
  }
  int r = out->type->rank;
  if (!strcmp(op, "transpose")) {
    if (l.nlist != r) return xd_error(x, "permutation must list %d dimensions", r), NULL;
    return fe_mgx_transpose(&x->m, a, l.list);
  }
  /* broadcast: `dimensions` are the output's new dimensions */
  int64_t dims[MAXR];
  bool added[MAXR] = {false};
  for (int i = 0; i < l.nlist; i++)
    if (l.list[i] >= 0 && l.list[i] < r) added[l.list[i]] = true;
  if (a->type->rank + l.nlist != r) return xd_error(x, "dimensions must list the %d added dimensions", r - a->type->rank), NULL;
  for (int d = 0, k = 0; d < r; d++) dims[d] = added[d] ? 1 : a->type->dims[k++];
  return fe_mgx_broadcast(&x->m, fe_mgx_reshape(&x->m, a, dims, r), out->type);
}
