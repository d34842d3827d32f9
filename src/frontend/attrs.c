/* attrs.c: tensor types and the generic attribute grammar (every attribute becomes an `attr`). */
#include "frontend/frontend.h"

#include <string.h>

char *fe_type_str(const tensor_type *t, char *buf, size_t size) {
  if (size == 0) return buf;
  if (t->elem == ET_INDEX && t->rank == 1) {
    snprintf(buf, size, "!tosa.shape<%lld>", (long long)t->dims[0]);
    return buf;
  }
  size_t n = (size_t)snprintf(buf, size, "tensor<");
  for (int i = 0; i < t->rank && n < size; i++)
    n += t->dims[i] == FE_DYNAMIC_DIM ? (size_t)snprintf(buf + n, size - n, "?x")
                                      : (size_t)snprintf(buf + n, size - n, "%lldx", (long long)t->dims[i]);
  if (n < size) {
    const char *en = t->elem == ET_INVALID ? "?" : elem_type_name(t->elem);
    snprintf(buf + n, size - n, "%s>", en ? en : "?");
  }
  return buf;
}

bool fe_check_size(fe_parser *p, const tensor_type *t, src_loc loc) {
  char b[160];
  int64_t numel = 1;
  for (int i = 0; i < t->rank; i++) {
    if (__builtin_mul_overflow(numel, t->dims[i], &numel))
      return fe_error(p, loc, "tensor type %s has too many elements (the product of its dimensions overflows)",
                      fe_type_str(t, b, sizeof b));
  }
  int64_t bytes;
  if (__builtin_mul_overflow(numel, (int64_t)elem_type_bytes(t->elem), &bytes) || bytes > ((int64_t)1 << 40))
    return fe_error(p, loc, "tensor type %s is too large (more than 2^40 bytes)", fe_type_str(t, b, sizeof b));
  return true;
}

elem_type fe_scalar_type(const fe_parser *p) {
  if (p->tok.kind != T_IDENT) return ET_INVALID;
  return elem_type_parse(p->tok.p, (size_t)p->tok.n);
}

/* The raw text of a type starting at s, up to its closing '>' on the same line (for messages). */
static const char *type_text(fe_parser *p, const char *s) {
  const char *e = s;
  int depth = 0;
  while (e < p->lx.end && *e != '\n') {
    if (*e == '<') depth++;
    if (*e == '>' && --depth == 0) {
      e++;
      break;
    }
    e++;
  }
  return arena_strndup(p->a, s, (size_t)(e - s));
}

static bool parse_shape_type(fe_parser *p, tensor_type *out) {
  fe_next(p);
  if (!fe_expect(p, T_LANGLE, "after '!tosa.shape'")) return false;
  fe_token t = p->tok;
  int64_t n;
  if (t.kind != T_INT || !fe_tok_int(p, t, &n, NULL, NULL) || n < 0)
    return fe_error(p, fe_loc(p, t), "expected the rank of '!tosa.shape<N>', found %s", fe_tok_text(p, t));
  fe_next(p);
  if (!fe_expect(p, T_RANGLE, "to close '!tosa.shape<'")) return false;
  out->elem = ET_INDEX;
  out->rank = 1;
  out->dims[0] = n;
  return true;
}

static bool parse_type_cb(fe_parser *p, void *out) { return fe_parse_type(p, out, NULL); }

bool fe_parse_type(fe_parser *p, tensor_type *out, src_loc *loc) {
  *out = (tensor_type){0};
  fe_token start = p->tok;
  src_loc at = fe_loc(p, start);
  if (loc) *loc = at;
  if (start.kind == T_BANG && start.n == 11 && memcmp(start.p, "!tosa.shape", 11) == 0)
    return parse_shape_type(p, out);
  if (fe_mgx_is_shaped(p)) { /* a !migraphx.shaped value is seen as its logical tensor */
    fe_mgx_type mt;
    bool ok = fe_mgx_parse_type(p, &mt, loc);
    *out = mt.t;
    return ok;
  }
  bool handled;
  if (start.kind == T_BANG) {
    bool ok = fe_with_alias(p, &handled, parse_type_cb, out);
    if (handled) return ok;
  }
  if (!fe_tok_is(p, "tensor")) {
    if (fe_scalar_type(p) != ET_INVALID)
      return fe_error(p, at, "scalar type '%.*s' is not supported; use a tensor type such as tensor<%.*s>",
                      start.n, start.p, start.n, start.p);
    return fe_error(p, at, "expected a tensor type, found %s", fe_tok_text(p, start));
  }
  fe_next(p);
  if (p->tok.kind != T_LANGLE) return fe_expect(p, T_LANGLE, "after 'tensor'");
  /* Dimensions are scanned from the raw text: the lexer would see `2x3xf32` as 2, x3xf32. */
  fe_lexer *lx = &p->lx;
  int rank = 0;
  for (;;) {
    const char *s = lx->p;
    while (s < lx->end && (*s == ' ' || *s == '\t')) s++;
    lx->p = s;
    src_loc dl = src_loc_at(p->src, lx->line, (int)(s - lx->line_start) + 1);
    if (s < lx->end && *s == '*')
      return fe_error(p, dl, "unranked tensor type %s is not supported; tosac needs static shapes",
                      type_text(p, start.p));
    if (s < lx->end && *s == '?' && s + 1 < lx->end && s[1] == 'x') { /* dynamic.c resolves it */
      if (rank == TOSAC_MAX_RANK)
        return fe_error(p, dl, "tensor rank exceeds the maximum of %d", TOSAC_MAX_RANK);
      p->dyn_loc[rank] = dl;
      out->dims[rank++] = FE_DYNAMIC_DIM;
      lx->p = s + 2;
      continue;
    }
    if (s >= lx->end || *s < '0' || *s > '9') break;
    int64_t v = 0;
    while (s < lx->end && *s >= '0' && *s <= '9') {
      if (__builtin_mul_overflow(v, 10, &v) || __builtin_add_overflow(v, *s - '0', &v))
        return fe_error(p, dl, "tensor dimension is too large");
      s++;
    }
    if (s >= lx->end || *s != 'x') {
      lx->p = s;
      return fe_error(p, src_loc_at(p->src, lx->line, (int)(s - lx->line_start) + 1),
                      "expected 'x' after a dimension in %s", type_text(p, start.p));
    }
    if (rank == TOSAC_MAX_RANK)
      return fe_error(p, dl, "tensor rank exceeds the maximum of %d", TOSAC_MAX_RANK);
    out->dims[rank++] = v;
    lx->p = s + 1;
  }
  out->rank = rank;
  fe_next(p);
  fe_token et = p->tok;
  if (et.kind == T_BANG)
    return fe_error(p, fe_loc(p, et), "element type '%.*s' is not supported", et.n, et.p);
  if (et.kind != T_IDENT)
    return fe_error(p, fe_loc(p, et), "expected an element type in tensor type, found %s", fe_tok_text(p, et));
  out->elem = p->sign_names ? elem_type_parse_signed(et.p, (size_t)et.n, &p->saw_unsigned)
                            : elem_type_parse(et.p, (size_t)et.n);
  if (out->elem == ET_INVALID)
    return fe_error(p, fe_loc(p, et), "unknown element type '%.*s'", et.n, et.p);
  if (p->sign_names && p->saw_unsigned && !p->unsigned_at.line)
    p->unsigned_at = fe_loc(p, et), p->unsigned_elem = out->elem;
  fe_next(p);
  if (p->tok.kind == T_COMMA)
    return fe_error(p, fe_loc(p, p->tok), "tensor encodings are not supported");
  if (!fe_expect(p, T_RANGLE, "to close 'tensor<'")) return false;
  for (int i = 0; i < out->rank; i++)
    if (out->dims[i] == FE_DYNAMIC_DIM) return true; /* sized once its dimensions are known */
  return fe_check_size(p, out, at);
}

/* Skip a group and return the raw text from start to its end. */
static bool raw_group(fe_parser *p, const char *start, attr *out) {
  if (!fe_skip_group(p)) return false;
  out->kind = ATTR_STR;
  out->s = arena_strndup(p->a, start, (size_t)(p->prev_end - start));
  return true;
}

static bool parse_number_attr(fe_parser *p, attr *out) {
  fe_token t = p->tok;
  int64_t iv = 0;
  uint64_t bits = 0;
  bool hex = false;
  double fv = 0;
  if (t.kind == T_INT) {
    if (!fe_tok_int(p, t, &iv, &bits, &hex)) return false;
  } else {
    fv = fe_tok_float(t);
  }
  fe_next(p);
  elem_type ty = t.kind == T_INT ? ET_I64 : ET_F64;
  if (fe_accept(p, T_COLON)) {
    ty = fe_scalar_type(p);
    if (ty == ET_INVALID)
      return fe_error(p, fe_loc(p, p->tok), "expected a scalar type after ':', found %s", fe_tok_text(p, p->tok));
    fe_next(p);
  }
  out->type_elem = ty;
  if (elem_type_is_float(ty)) {
    out->kind = ATTR_FLOAT;
    out->f = t.kind == T_FLOAT ? fv : hex ? fe_bits_to_double(ty, bits) : (double)iv;
  } else {
    if (t.kind == T_FLOAT)
      return fe_error(p, fe_loc(p, t), "floating-point literal %.*s given an integer type", t.n, t.p);
    out->kind = ATTR_INT;
    out->i = iv;
    /* `1 : i1` is how the generic printer spells true: a boolean like `true`. */
    if (ty == ET_I1) {
      if (iv < -1 || iv > 1)
        return fe_error(p, fe_loc(p, t), "integer %lld does not fit type i1", (long long)iv);
      out->kind = ATTR_BOOL;
      out->i = iv != 0;
    }
  }
  return true;
}

static bool parse_array(fe_parser *p, attr *out) {
  fe_next(p);
  if (!fe_expect(p, T_LANGLE, "after 'array'")) return false;
  elem_type ty = fe_scalar_type(p);
  if (ty == ET_INVALID)
    return fe_error(p, fe_loc(p, p->tok), "expected an element type in 'array<', found %s", fe_tok_text(p, p->tok));
  fe_next(p);
  bool fl = elem_type_is_float(ty);
  out->kind = fl ? ATTR_FLOATS : ATTR_INTS;
  out->type_elem = ty;
  int cap = 0;
  if (fe_accept(p, T_COLON)) {
    for (;;) {
      fe_token t = p->tok;
      int64_t iv = 0;
      double fv = 0;
      if (t.kind == T_INT) {
        if (!fe_tok_int(p, t, &iv, NULL, NULL)) return false;
        fv = (double)iv;
      } else if (t.kind == T_FLOAT && fl) {
        fv = fe_tok_float(t);
      } else if (t.kind == T_IDENT && (fe_tok_is(p, "true") || fe_tok_is(p, "false")) && !fl) {
        iv = fe_tok_is(p, "true");
      } else {
        return fe_error(p, fe_loc(p, t), "expected a %s element in 'array<', found %s", elem_type_name(ty),
                        fe_tok_text(p, t));
      }
      fe_next(p);
      if (fl)
        ARENA_PUSH(p->a, out->floats, out->n, cap, fv);
      else
        ARENA_PUSH(p->a, out->ints, out->n, cap, iv);
      if (!fe_accept(p, T_COMMA)) break;
    }
  }
  return fe_expect(p, T_RANGLE, "to close 'array<'");
}

static bool parse_list_items(fe_parser *p, const char *start, attr *out);

static bool parse_list(fe_parser *p, attr *out) {
  const char *start = p->tok.p;
  if (p->list_depth >= FE_MAX_LIST_DEPTH)
    return fe_error(p, fe_loc(p, p->tok), "attribute lists nest more than %d deep", FE_MAX_LIST_DEPTH);
  p->list_depth++;
  bool ok = parse_list_items(p, start, out);
  p->list_depth--;
  return ok;
}

static bool parse_list_items(fe_parser *p, const char *start, attr *out) {
  fe_next(p);
  attr *items = NULL;
  int n = 0, cap = 0;
  bool all_int = true, all_num = true;
  while (p->tok.kind != T_RBRACKET) {
    attr it = {0};
    if (!fe_parse_attr_value(p, &it)) return false;
    if (it.kind != ATTR_INT) all_int = false;
    if (it.kind != ATTR_INT && it.kind != ATTR_FLOAT) all_num = false;
    ARENA_PUSH(p->a, items, n, cap, it);
    if (!fe_accept(p, T_COMMA)) break;
  }
  if (!fe_expect(p, T_RBRACKET, "to close the list")) return false;
  if (all_int || all_num) {
    out->kind = all_int ? ATTR_INTS : ATTR_FLOATS;
    out->n = n;
    if (all_int) out->ints = arena_alloc(p->a, sizeof(int64_t) * (size_t)(n ? n : 1));
    else out->floats = arena_alloc(p->a, sizeof(double) * (size_t)(n ? n : 1));
    for (int i = 0; i < n; i++) {
      if (all_int) out->ints[i] = items[i].i;
      else out->floats[i] = items[i].kind == ATTR_INT ? (double)items[i].i : items[i].f;
    }
    out->type_elem = all_int ? ET_I64 : ET_F64;
  } else {
    out->kind = ATTR_STR;
    out->s = arena_strndup(p->a, start, (size_t)(p->prev_end - start));
  }
  return true;
}

static bool parse_attr_cb(fe_parser *p, void *out) { return fe_parse_attr_value(p, out); }

bool fe_parse_attr_value(fe_parser *p, attr *out) {
  fe_token t = p->tok;
  out->loc = fe_loc(p, t);
  switch (t.kind) {
  case T_INT:
  case T_FLOAT:
    return parse_number_attr(p, out);
  case T_STRING:
    out->kind = ATTR_STR;
    out->s = arena_strndup(p->a, t.p + 1, (size_t)t.n - 2);
    fe_next(p);
    return true;
  case T_LBRACKET:
    return parse_list(p, out);
  case T_LBRACE:
    return raw_group(p, t.p, out);
  case T_SYMBOL:
    out->kind = ATTR_STR;
    out->s = arena_strndup(p->a, t.p, (size_t)t.n);
    fe_next(p);
    return true;
  case T_HASH:
  case T_BANG: {
    bool handled, ok = fe_with_alias(p, &handled, parse_attr_cb, out);
    if (handled) {
      out->loc = fe_loc(p, t);
      return ok;
    }
    fe_next(p);
    out->kind = t.kind == T_HASH ? ATTR_STR : ATTR_TYPE;
    if (p->tok.kind != T_LANGLE) {
      out->s = arena_strndup(p->a, t.p, (size_t)t.n);
      return true;
    }
    /* #tosa.rounding_mode<SINGLE_ROUND>: keep the keyword; anything richer stays raw text. */
    fe_lexer save = p->lx;
    fe_token lt = p->tok;
    fe_next(p);
    fe_token kw = p->tok;
    if (t.kind == T_HASH && kw.kind == T_IDENT) {
      fe_next(p);
      if (p->tok.kind == T_RANGLE) {
        out->s = arena_strndup(p->a, kw.p, (size_t)kw.n);
        fe_next(p);
        return true;
      }
    }
    p->lx = save;
    p->tok = lt;
    return raw_group(p, t.p, out);
  }
  case T_IDENT:
    break;
  default:
    return fe_error(p, out->loc, "expected an attribute value, found %s", fe_tok_text(p, t));
  }
  if (fe_tok_is(p, "true") || fe_tok_is(p, "false") || fe_tok_is(p, "unit")) {
    out->kind = ATTR_BOOL;
    out->i = !fe_tok_is(p, "false");
    fe_next(p);
    return true;
  }
  if (fe_tok_is(p, "dense")) return fe_parse_dense(p, out);
  if (fe_tok_is(p, "dense_resource")) return fe_parse_dense_resource(p, out);
  if (fe_tok_is(p, "array")) return parse_array(p, out);
  if (fe_tok_is(p, "tensor")) {
    tensor_type tt;
    if (!fe_parse_type(p, &tt, NULL)) return false;
    out->kind = ATTR_TYPE;
    out->type_elem = tt.elem;
    out->s = arena_strndup(p->a, t.p, (size_t)(p->prev_end - t.p));
    return true;
  }
  elem_type et = fe_scalar_type(p);
  fe_next(p);
  if (et != ET_INVALID) {
    out->kind = ATTR_TYPE;
    out->type_elem = et;
    out->s = arena_strndup(p->a, t.p, (size_t)t.n);
    return true;
  }
  if (p->tok.kind == T_LANGLE) return raw_group(p, t.p, out); /* affine_map<...> and the like */
  out->kind = ATTR_STR; /* bare keyword: SINGLE_ROUND, PROPAGATE */
  out->s = arena_strndup(p->a, t.p, (size_t)t.n);
  return true;
}

bool fe_parse_attr_dict(fe_parser *p, attr **attrs, int *n, int *cap) {
  if (!fe_expect(p, T_LBRACE, "to open the attribute dictionary")) return false;
  while (p->tok.kind != T_RBRACE) {
    fe_token nt = p->tok;
    attr a = {0};
    a.loc = fe_loc(p, nt);
    if (nt.kind == T_IDENT)
      a.name = arena_strndup(p->a, nt.p, (size_t)nt.n);
    else if (nt.kind == T_STRING)
      a.name = arena_strndup(p->a, nt.p + 1, (size_t)nt.n - 2);
    else
      return fe_error(p, a.loc, "expected an attribute name, found %s", fe_tok_text(p, nt));
    if (*n >= OP_MAX_ATTRS)
      return fe_error(p, a.loc, "an operation has at most %d attributes", OP_MAX_ATTRS);
    fe_next(p);
    if (fe_accept(p, T_EQUAL)) {
      src_loc nl = a.loc;
      if (!fe_parse_attr_value(p, &a)) return false;
      a.loc = nl;
    } else {
      a.kind = ATTR_BOOL; /* unit attribute */
      a.i = 1;
    }
    ARENA_PUSH(p->a, *attrs, *n, *cap, a);
    if (!fe_accept(p, T_COMMA)) break;
  }
  return fe_expect(p, T_RBRACE, "to close the attribute dictionary");
}
