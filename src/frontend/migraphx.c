/* migraphx.c: the migraphx dialect (what MIGraphX hands rocMLIR) read into the TOSA graph: its
 * types, its op syntax, and the function boundary. Values are !migraphx.shaped<dims x elem,
 * strides>; every migraphx.* op becomes TOSA ops on the logical tensors (migraphx_ops.c), and
 * strides matter only where an argument is read and a result written through them (rocMLIR's
 * MIGraphX dialect and its MIGraphXToTosa lowering are the reference; docs/migraphx.md). */
#include "frontend/frontend.h"

#include <string.h>
/* ---------------------------------------------------------------- types */
bool fe_mgx_is_shaped(const fe_parser *p) {
  return p->tok.kind == T_BANG && p->tok.n == 16 && !memcmp(p->tok.p, "!migraphx.shaped", 16);
}

/* Integers separated by 'x', read from the raw text after the current token (the lexer would
 * read 2x3xf32 as 2 and x3xf32). dims: each is followed by 'x' (they precede the element type);
 * else the list ends with a number (strides). */
static bool scan_ints(fe_parser *p, int64_t *v, int *n, bool dims) {
  fe_lexer *lx = &p->lx;
  *n = 0;
  for (;;) {
    const char *s = lx->p;
    while (s < lx->end && (*s == ' ' || *s == '\t')) s++;
    src_loc at = src_loc_at(p->src, lx->line, (int)(s - lx->line_start) + 1);
    lx->p = s;
    if (s < lx->end && (*s == '?' || *s == '-'))
      return fe_error(p, at, *s == '?' ? "dynamic dimension '?' is not supported; tosac needs static shapes"
                                       : "negative strides are not supported");
    if (s >= lx->end || *s < '0' || *s > '9') {
      if (dims) return true;
      return fe_error(p, at, "expected a stride in '!migraphx.shaped'");
    }
    int64_t x = 0;
    while (s < lx->end && *s >= '0' && *s <= '9')
      if (__builtin_mul_overflow(x, 10, &x) || __builtin_add_overflow(x, *s++ - '0', &x))
        return fe_error(p, at, "'!migraphx.shaped' number is too large");
    if (*n == TOSAC_MAX_RANK) return fe_error(p, at, "tensor rank exceeds the maximum of %d", TOSAC_MAX_RANK);
    v[(*n)++] = x;
    bool more = s < lx->end && *s == 'x';
    lx->p = more ? s + 1 : s;
    if (dims && !more)
      return fe_error(p, src_loc_at(p->src, lx->line, (int)(s - lx->line_start) + 1),
                      "expected 'x' after a dimension in '!migraphx.shaped'");
    if (!dims && !more) return true;
  }
}

bool fe_mgx_parse_type(fe_parser *p, fe_mgx_type *out, src_loc *loc) {
  memset(out, 0, sizeof *out);
  fe_token start = p->tok;
  src_loc at = fe_loc(p, start);
  if (loc) *loc = at;
  if (fe_tok_is(p, "tensor")) { /* standard layout */
    bool was = p->sign_names, ok;
    p->sign_names = true;
    p->saw_unsigned = false;
    ok = fe_parse_type(p, &out->t, NULL);
    p->sign_names = was;
    out->is_unsigned = p->saw_unsigned;
    return ok;
  }
  if (fe_mgx_is_shaped(p)) fe_next(p);
  if (p->tok.kind != T_LANGLE)
    return fe_error(p, at, "expected a '!migraphx.shaped<...>' or tensor type, found %s", fe_tok_text(p, start));
  if (!scan_ints(p, out->t.dims, &out->t.rank, true)) return false;
  fe_next(p);
  fe_token et = p->tok;
  out->mx = et.kind == T_IDENT ? fe_mx_parse(et.p, (size_t)et.n) : FE_MX_NONE;
  out->t.elem = out->mx                ? ET_F32 /* the values it decodes to */
                : et.kind == T_IDENT ? elem_type_parse_signed(et.p, (size_t)et.n, &out->is_unsigned)
                                     : ET_INVALID;
  if (out->t.elem == ET_INVALID || out->t.elem == ET_INDEX)
    return fe_error(p, fe_loc(p, et), "unknown element type %s in '!migraphx.shaped'", fe_tok_text(p, et));
  fe_next(p);
  out->has_strides = true;
  if (p->tok.kind == T_COMMA) {
    int ns;
    if (!scan_ints(p, out->strides, &ns, false)) return false;
    if (ns != out->t.rank)
      return fe_error(p, at, "'!migraphx.shaped' has %d dimension%s but %d stride%s", out->t.rank,
                      out->t.rank == 1 ? "" : "s", ns, ns == 1 ? "" : "s");
    fe_next(p);
  } else if (out->t.rank > 0) {
    return fe_error(p, fe_loc(p, p->tok), "expected ',' and the strides in '!migraphx.shaped', found %s",
                    fe_tok_text(p, p->tok));
  }
  if (!fe_expect(p, T_RANGLE, "to close '!migraphx.shaped<'")) return false;
  return fe_check_size(p, &out->t, at);
}

char *fe_mgx_type_str(const fe_mgx_type *mt, char *buf, size_t size) {
  if (!mt->has_strides) return fe_type_str(&mt->t, buf, size);
  size_t n = (size_t)snprintf(buf, size, "!migraphx.shaped<");
  for (int i = 0; i < mt->t.rank && n < size; i++) n += (size_t)snprintf(buf + n, size - n, "%lldx", (long long)mt->t.dims[i]);
  if (n < size)
    n += (size_t)snprintf(buf + n, size - n, "%s%s", mt->is_unsigned ? "u" : "",
                          mt->mx ? fe_mx_name(mt->mx) : elem_type_name(mt->t.elem));
  for (int i = 0; i < mt->t.rank && n < size; i++)
    n += (size_t)snprintf(buf + n, size - n, "%s%lld", i ? "x" : ", ", (long long)mt->strides[i]);
  if (n < size) snprintf(buf + n, size - n, ">");
  return buf;
}

/* ---------------------------------------------------------------- function boundary */
/* Where a strided value lives: the dims present in memory (stride != 0) ordered outermost first
 * (by stride, then length, as MIGraphX orders strides), and each dim's length in memory (its
 * length, or more when the outer stride leaves room: a slice of a larger tensor). */
typedef struct layout {
  int order[TOSAC_MAX_RANK];
  int n;
  int64_t mem[TOSAC_MAX_RANK]; /* per logical dim; 1 for broadcast dims */
  bool in_mem[TOSAC_MAX_RANK];
} layout;

static bool get_layout(fe_parser *p, const fe_mgx_type *mt, src_loc loc, layout *L) {
  const int64_t *s = mt->strides, *len = mt->t.dims;
  memset(L, 0, sizeof *L);
  for (int i = 0; i < mt->t.rank; i++) {
    L->mem[i] = 1;
    if (!s[i]) continue;
    L->in_mem[i] = true;
    int k = L->n++;
    while (k > 0 && (s[L->order[k - 1]] < s[i] || (s[L->order[k - 1]] == s[i] && len[L->order[k - 1]] < len[i]))) {
      L->order[k] = L->order[k - 1];
      k--;
    }
    L->order[k] = i;
  }
  int prev = -1;
  char b[200];
  for (int k = 0; k < L->n; k++) {
    int d = L->order[k];
    if (len[d] == 1) continue; /* a unit dim's stride says nothing */
    L->mem[d] = len[d];
    if (prev >= 0) {
      if (s[prev] % s[d] || s[prev] / s[d] < len[d])
        return fe_error(p, loc, "strides of %s do not describe a transposed, sliced or broadcast packed tensor",
                        fe_mgx_type_str(mt, b, sizeof b));
      L->mem[d] = s[prev] / s[d];
    }
    prev = d;
  }
  if (prev >= 0 && s[prev] != 1)
    return fe_error(p, loc, "strides of %s leave gaps between elements (the innermost stride must be 1)",
                    fe_mgx_type_str(mt, b, sizeof b));
  return true;
}

/* The memory tensor: the in-memory dims in memory order ([1] when there are none). */
static tensor_type memory_type(const fe_mgx_type *mt, const layout *L) {
  tensor_type t = {.elem = mt->t.elem, .rank = L->n};
  for (int k = 0; k < L->n; k++) t.dims[k] = L->mem[L->order[k]];
  if (mt->t.rank > 0 && L->n == 0) t.rank = 1, t.dims[0] = 1;
  return t;
}

/* Do the in-memory dims longer than 1 appear in logical order? Then a reshape moves the unit
 * dims, else a transpose is needed. */
static bool in_order(const layout *L) {
  int last = -1;
  for (int k = 0; k < L->n; k++) {
    int d = L->order[k];
    if (L->mem[d] == 1) continue;
    if (d < last) return false;
    last = d;
  }
  return true;
}

/* Transpose permutation between memory order and logical order of the in-memory dims. */
static void mem_perm(const layout *L, bool to_logical, int64_t *perm) {
  int pos[TOSAC_MAX_RANK], k = 0;
  for (int i = 0; i < L->n; i++) pos[L->order[i]] = i;
  for (int d = 0; d < TOSAC_MAX_RANK && k < L->n; d++) {
    if (!L->in_mem[d]) continue;
    if (to_logical) perm[k++] = pos[d];
    else perm[pos[d]] = k++;
  }
}

value *fe_mgx_arg(fe_parser *p, fe_scope *fs, value *arg, const fe_mgx_type *mt, src_loc loc) {
  if (!mt->has_strides) return arg;
  layout L;
  if (!get_layout(p, mt, loc, &L)) return NULL;
  tensor_type mem = memory_type(mt, &L), bytes = mem;
  char nb[VALUE_NAME_MAX], b[200];
  fe_mgx_ctx m = {.p = p, .fs = fs, .loc = loc, .opname = "function argument", .res = value_name(arg, nb)};
  if (mt->mx && !fe_mx_storage(mt->mx, &bytes))
    return fe_error(p, loc, "%s packs two values per byte along its innermost memory dimension, whose length %lld is odd",
                    fe_mgx_type_str(mt, b, sizeof b), (long long)mem.dims[mem.rank - 1]),
           NULL;
  arg->type = type_intern(p->a, &bytes);
  const tensor_type *t = &mt->t;
  int64_t full[TOSAC_MAX_RANK], mid[TOSAC_MAX_RANK], start[TOSAC_MAX_RANK] = {0}, perm[TOSAC_MAX_RANK];
  int64_t size[TOSAC_MAX_RANK];
  int nmid = 0;
  for (int i = 0; i < t->rank; i++) {
    full[i] = L.mem[i];
    size[i] = L.in_mem[i] ? t->dims[i] : 1;
    if (L.in_mem[i]) mid[nmid++] = L.mem[i];
  }
  value *x = mt->mx ? fe_mx_decode(&m, arg, mt->mx, &mem) : arg;
  if (!in_order(&L)) {
    mem_perm(&L, true, perm);
    x = fe_mgx_transpose(&m, fe_mgx_reshape(&m, x, mem.dims, mem.rank), perm);
    x = fe_mgx_reshape(&m, x, mid, nmid);
  }
  x = fe_mgx_reshape(&m, x, full, t->rank);
  x = fe_mgx_slice(&m, x, start, size);
  x = fe_mgx_broadcast(&m, x, t);
  if (x && x == m.last) x->name = arg->name; /* diagnostics name the argument */
  return x;
}

value *fe_mgx_result(fe_parser *p, fe_scope *fs, value *v, const fe_mgx_type *mt, src_loc loc) {
  layout L;
  if (!get_layout(p, mt, loc, &L)) return NULL;
  char b[200];
  if (mt->mx)
    return fe_error(p, loc, "results of the MX type %s are not supported (tosac decodes MX values to f32)",
                    fe_mgx_type_str(mt, b, sizeof b)),
           NULL;
  for (int i = 0; i < mt->t.rank; i++)
    if (L.in_mem[i] && L.mem[i] != mt->t.dims[i])
      return fe_error(p, loc, "results with padded strides are not supported: %s", fe_mgx_type_str(mt, b, sizeof b)), NULL;
  tensor_type mem = memory_type(mt, &L);
  char nb[VALUE_NAME_MAX];
  const char *vn = value_name(v, nb);
  fe_mgx_ctx m = {.p = p, .fs = fs, .loc = loc, .opname = "function result", .res = vn ? vn : "result"};
  int64_t mid[TOSAC_MAX_RANK], perm[TOSAC_MAX_RANK], start[TOSAC_MAX_RANK] = {0}, one[TOSAC_MAX_RANK];
  int nmid = 0;
  for (int i = 0; i < mt->t.rank; i++) {
    one[i] = L.in_mem[i] ? mt->t.dims[i] : 1;
    if (L.in_mem[i]) mid[nmid++] = L.mem[i];
  }
  /* a broadcast (stride 0) dimension is one element in memory, which every index along it
   * writes (MIGraphX's kernels store the same value there): the first is written */
  value *x = fe_mgx_slice(&m, v, start, one);
  if (!in_order(&L)) {
    mem_perm(&L, false, perm);
    x = fe_mgx_transpose(&m, fe_mgx_reshape(&m, x, mid, nmid), perm);
  }
  return fe_mgx_reshape(&m, x, mem.dims, mem.rank);
}

/* ---------------------------------------------------------------- op syntax */
static bool allowed_attr(const char *list, const char *name) {
  size_t n = strlen(name);
  for (const char *s = strstr(list, name); s; s = strstr(s + 1, name))
    if ((s == list || s[-1] == ' ') && (s[n] == 0 || s[n] == ' ')) return true;
  return false;
}

static value *operand(fe_parser *p, fe_scope *fs) {
  value *v = p->tok.kind == T_VALUE ? fe_scope_find(p, fs, p->tok) : NULL;
  if (p->tok.kind == T_VALUE) fe_next(p);
  else fe_error(p, fe_loc(p, p->tok), "expected an operand, found %s", fe_tok_text(p, p->tok));
  return v ? v : fe_poison(p);
}

/* After the n-th operand or operand type: `scaled by` (quant_dot's block scales) counts it in
 * *nsc; the scales must then follow every operand from the first. */
static bool scaled_by(fe_parser *p, int *nsc, int n) {
  if (!fe_tok_is(p, "scaled")) return true;
  fe_token at = p->tok;
  fe_next(p);
  if (!fe_tok_is(p, "by"))
    return fe_error(p, fe_loc(p, p->tok), "expected 'by' after 'scaled', found %s", fe_tok_text(p, p->tok));
  fe_next(p);
  if (*nsc != n - 1) return fe_error(p, fe_loc(p, at), "'scaled by' must follow every operand or none");
  *nsc = n;
  return true;
}

/* migraphx.add %a, %b {attrs} : <T>, <T> -> <T>    (also "(%a, %b)" and the generic form)
 * migraphx.quant_dot %a scaled by %sa, %b scaled by %sb : <A> scaled by <SA>, <B> scaled by <SB> -> <R>
 * migraphx.literal (dense<...> : tensor<...>) : <T>    migraphx.convert %a : <T> to <T> */
static bool parse_syntax(fe_mgx_ctx *m, fe_token name, bool literal) {
  fe_parser *p = m->p;
  bool generic = name.kind == T_STRING;
  fe_next(p);
  if (fe_tok_is(p, "zero_extend")) { /* migraphx.convert zero_extend %x : ... */
    m->zero_extend = true;
    fe_next(p);
  }
  if (literal && !generic) {
    if (!fe_expect(p, T_LPAREN, "before the literal's value")) return false;
    m->literal.name = "value";
    bool was = p->sign_names;
    p->sign_names = true; /* dense<8> : tensor<1xui8> */
    bool ok = fe_parse_attr_value(p, &m->literal);
    p->sign_names = was;
    if (!ok || !fe_expect(p, T_RPAREN, "after the literal's value")) return false;
  } else {
    bool paren = fe_accept(p, T_LPAREN);
    value *scales[8];
    int nsc = 0;
    while (p->tok.kind == T_VALUE) {
      if (m->nin + nsc >= 8) return fe_error(p, fe_loc(p, p->tok), "too many operands");
      m->in[m->nin++] = operand(p, m->fs);
      if (!scaled_by(p, &nsc, m->nin)) return false;
      if (nsc == m->nin) scales[nsc - 1] = operand(p, m->fs);
      if (!fe_accept(p, T_COMMA)) break;
    }
    if (paren && !fe_expect(p, T_RPAREN, "to close the operand list")) return false;
    if (nsc && nsc != m->nin) return fe_error(p, m->loc, "'%s' scales every operand or none", m->opname);
    for (int i = 0; i < nsc; i++) m->in[m->nin++] = scales[i];
    m->nscaled = nsc;
  }
  for (;;) {
    if (p->tok.kind == T_LBRACE) {
      if (!fe_parse_attr_dict(p, &m->attrs, &m->nattrs, &m->capattrs)) return false;
    } else if (p->tok.kind == T_LANGLE) {
      fe_next(p);
      if (!fe_parse_attr_dict(p, &m->attrs, &m->nattrs, &m->capattrs) || !fe_expect(p, T_RANGLE, "to close the properties"))
        return false;
    } else {
      break;
    }
  }
  if (!fe_expect(p, T_COLON, "before the operation's type")) return false;
  bool paren = fe_accept(p, T_LPAREN);
  fe_mgx_type scale_t[8];
  int nsct = 0;
  while (!paren || p->tok.kind != T_RPAREN) {
    if (m->nint + nsct >= 8) return fe_error(p, fe_loc(p, p->tok), "too many operand types");
    if (!fe_mgx_parse_type(p, &m->in_t[m->nint++], NULL) || !scaled_by(p, &nsct, m->nint)) return false;
    if (nsct == m->nint && !fe_mgx_parse_type(p, &scale_t[nsct - 1], NULL)) return false;
    if (!fe_accept(p, T_COMMA)) break;
  }
  if (paren && !fe_expect(p, T_RPAREN, "to close the operand types")) return false;
  if (nsct != m->nscaled)
    return fe_error(p, m->loc, "'%s' scales %d operands, but its type lists %d scales", m->opname, m->nscaled, nsct);
  for (int i = 0; i < nsct; i++) m->in_t[m->nint++] = scale_t[i];
  if (fe_accept(p, T_ARROW) || (fe_tok_is(p, "to") && (fe_next(p), true))) {
    bool rp = fe_accept(p, T_LPAREN);
    if (!fe_mgx_parse_type(p, &m->out_t, NULL) || (rp && !fe_expect(p, T_RPAREN, "to close the result type"))) return false;
  } else if (literal && m->nint == 1) {
    m->out_t = m->in_t[0];
    m->nint = 0;
  } else {
    return fe_expect(p, T_ARROW, "before the result type");
  }
  fe_skip_loc(p);
  return true;
}

static bool check_operands(fe_mgx_ctx *m, const fe_mgx_opdef *d) {
  char x[160], y[160], nb[VALUE_NAME_MAX];
  if (m->nin < d->min_in || m->nin > d->max_in) {
    if (d->min_in == d->max_in)
      return fe_error(m->p, m->loc, "'%s' expects %d operand%s, found %d", m->opname, d->min_in, d->min_in == 1 ? "" : "s",
                      m->nin);
    return fe_error(m->p, m->loc, "'%s' expects %d to %d operands, found %d", m->opname, d->min_in, d->max_in, m->nin);
  }
  if (m->nint != m->nin)
    return fe_error(m->p, m->loc, "'%s' has %d operand%s, but its type lists %d", m->opname, m->nin, m->nin == 1 ? "" : "s",
                    m->nint);
  for (int i = 0; i < m->nin; i++)
    if (m->in[i]->id >= 0 && !tensor_type_equal(m->in[i]->type, &m->in_t[i].t))
      return fe_error(m->p, m->loc, "operand %d of '%s' is declared as %s, but '%%%s' has type %s", i, m->opname,
                      fe_type_str(&m->in_t[i].t, x, sizeof x), value_name(m->in[i], nb), fe_type_str(m->in[i]->type, y, sizeof y));
  for (int i = 0; i < m->nattrs; i++)
    if (d->attrs && !allowed_attr(d->attrs, m->attrs[i].name))
      return fe_error(m->p, m->attrs[i].loc, "'%s' attribute '%s' is not supported", m->opname, m->attrs[i].name);
  return true;
}

/* Ops computed on signless integers that would give other numbers for unsigned ones (TOSA's
 * integer ops are signed) are refused on ui* types rather than computed wrong. */
static bool check_unsigned(fe_mgx_ctx *m, const fe_mgx_opdef *d) {
  if (d->unsigned_ok) return true;
  char b[200];
  for (int i = 0; i <= m->nint; i++) {
    const fe_mgx_type *t = i < m->nint ? &m->in_t[i] : &m->out_t;
    if (t->is_unsigned)
      return fe_error(m->p, m->loc, "'%s' on the unsigned type %s is not supported (tosac computes it on signed integers)",
                      m->opname, fe_mgx_type_str(t, b, sizeof b));
  }
  return true;
}

bool fe_mgx_op(fe_parser *p, fe_scope *fs, const fe_token *results, int nresults, fe_token name) {
  const char *nm = name.kind == T_STRING ? name.p + 1 : name.p;
  int nlen = name.kind == T_STRING ? name.n - 2 : name.n;
  fe_mgx_ctx m = {.p = p, .fs = fs, .loc = fe_loc(p, name), .opname = arena_strndup(p->a, nm, (size_t)nlen)};
  m.res = nresults ? arena_strndup(p->a, results[0].p + 1, (size_t)results[0].n - 1) : "r";
  if (!strcmp(m.opname, "migraphx.attention")) return fe_mgx_attention(p, fs, results, nresults, name);
  const fe_mgx_opdef *d = fe_mgx_find_op(m.opname + 9);
  bool ok = false;
  value *r = NULL;
  if (!d) {
    fe_error(p, m.loc, "unknown migraphx operation '%s'", m.opname);
  } else if (nresults != 1) {
    fe_error(p, m.loc, "'%s' produces one result; give it a name (%%r = ...)", m.opname);
  } else if (parse_syntax(&m, name, !strcmp(d->name, "literal"))) {
    ok = true;
    bool poisoned = false;
    for (int i = 0; i < m.nin; i++) poisoned |= m.in[i]->id < 0;
    if (!poisoned && check_operands(&m, d) && check_unsigned(&m, d)) r = d->fn(&m, d->arg);
  }
  char x[160], y[160];
  if (r && !tensor_type_equal(r->type, &m.out_t.t)) {
    fe_error(p, m.loc, "'%s' result type is declared as %s, but its operands give %s", m.opname,
             fe_type_str(&m.out_t.t, x, sizeof x), fe_type_str(r->type, y, sizeof y));
    r = NULL;
  }
  if (r && r == m.last) r->name = name_intern(p->a, m.res);
  for (int i = 0; i < nresults; i++) fe_scope_bind(p, fs, results[i], r && i == 0 ? r : fe_poison(p));
  return ok;
}
