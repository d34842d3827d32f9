/* migraphx_attention.c: rocMLIR's migraphx.attention, the fused attention MIGraphX hands rocMLIR:
 *
 *   %r = migraphx.attention %q, %k, %v [pre_softmax_inputs(%x, ... : T, ...)]
 *          { ^bb0(%qk: T, %x': T, ...): ...elementwise migraphx ops... migraphx.yield %y : T }
 *          [softmax_type = f32] [{attrs}] : <Q>, <K>, <V> -> <R>
 *
 * computes softmax(body(Q . K, extras...)) . V with K given as [..., D, S_k]. It is read as the
 * ops rocMLIR's host decomposition writes (dot, the body inlined, softmax, dot), which tosac's
 * partitioner fuses into its attention kernel like any dot -> softmax -> dot chain. The variants
 * that need more than that (kvcache, causal, prefix_offset, sliding_window, splitkv and the
 * log-sum-exp result, grouped-query heads) are refused by name (docs/migraphx.md). */
#include "frontend/frontend.h"

#include <string.h>

/* The elementwise ops rocMLIR allows in the body (its isAllowedInPreSoftmaxBody). */
static const char *const body_ops[] = {"add",  "sub",  "mul",  "div",   "pow",   "neg",  "abs",   "ceil",    "floor",
                                       "exp",  "log",  "sqrt", "tanh",  "erf",   "recip", "relu", "sigmoid", "where",
                                       "convert", "dequantizelinear"};

static bool body_op_allowed(const char *nm, int n) {
  if (n <= 9 || memcmp(nm, "migraphx.", 9)) return false;
  for (size_t i = 0; i < sizeof body_ops / sizeof body_ops[0]; i++)
    if ((int)strlen(body_ops[i]) == n - 9 && !memcmp(nm + 9, body_ops[i], (size_t)n - 9)) return true;
  return false;
}

typedef struct att {
  fe_mgx_ctx m;
  value *extra[8];
  fe_mgx_type extra_t[8];
  int nextra;
  fe_mgx_type qkv_t[3], res_t[2];
  int nres_t;
  elem_type softmax_t;
  int depth; /* 1 while inside the body's braces */
} att;

/* After an error: the rest of the op (it spans lines, so the parser's line-based resynchronising
 * would stop inside it), up to and including its result type `-> <...>` outside the body. */
static void skip_op(fe_parser *p, int depth) {
  while (!p->fatal && p->tok.kind != T_EOF) {
    fe_tok_kind k = p->tok.kind;
    if (k == T_LBRACE || k == T_LPAREN) depth++;
    else if ((k == T_RBRACE || k == T_RPAREN) && depth > 0) depth--;
    else if (k == T_ARROW && depth == 0) {
      fe_next(p);
      if (p->tok.kind == T_BANG) fe_next(p);
      for (int angle = 0; p->tok.kind != T_EOF;) {
        angle += p->tok.kind == T_LANGLE ? 1 : p->tok.kind == T_RANGLE ? -1 : 0;
        fe_next(p);
        if (angle <= 0) break;
      }
      fe_skip_loc(p);
      return;
    }
    fe_next(p);
  }
}

/* pre_softmax_inputs(%a, %b : T, T) */
static bool parse_extras(fe_parser *p, fe_scope *fs, att *a) {
  fe_next(p);
  if (!fe_expect(p, T_LPAREN, "after 'pre_softmax_inputs'")) return false;
  while (p->tok.kind == T_VALUE) {
    if (a->nextra == 8) return fe_error(p, fe_loc(p, p->tok), "too many pre_softmax_inputs");
    value *v = fe_scope_find(p, fs, p->tok);
    a->extra[a->nextra++] = v ? v : fe_poison(p);
    fe_next(p);
    if (!fe_accept(p, T_COMMA)) break;
  }
  if (!fe_expect(p, T_COLON, "before the types of pre_softmax_inputs")) return false;
  for (int i = 0; i < a->nextra; i++)
    if (!fe_mgx_parse_type(p, &a->extra_t[i], NULL) || (i + 1 < a->nextra && !fe_expect(p, T_COMMA, "between the types")))
      return false;
  return fe_expect(p, T_RPAREN, "to close pre_softmax_inputs");
}

/* The body, inlined: its block arguments bound to qk and the extras in a nested scope. Returns
 * the yielded value (qk for an empty body), NULL after an error. */
static value *parse_body(fe_parser *p, fe_scope *fs, att *a, value *qk) {
  fe_token open = p->tok;
  if (!fe_expect(p, T_LBRACE, "to open the body of 'migraphx.attention'")) return NULL;
  a->depth = 1;
  fe_scope *in = fe_scope_nested(p, fs);
  value *y = NULL;
  bool ok = true;
  if (p->tok.kind == T_CARET) {
    fe_next(p);
    ok = fe_expect(p, T_LPAREN, "after the block label");
    for (int k = 0; ok && p->tok.kind == T_VALUE; k++) {
      fe_token nt = p->tok;
      fe_mgx_type t;
      src_loc tl;
      fe_next(p);
      ok = fe_expect(p, T_COLON, "after the block argument name") && fe_mgx_parse_type(p, &t, &tl);
      if (!ok) break;
      value *v = k == 0 ? qk : k <= a->nextra ? a->extra[k - 1] : NULL;
      char x[160], z[160];
      if (!v)
        ok = fe_error(p, tl, "the body of 'migraphx.attention' takes the Q.K product and %d pre_softmax_inputs, not more",
                      a->nextra);
      else if (v->id >= 0 && !tensor_type_equal(&t.t, v->type))
        ok = fe_error(p, tl, "block argument %d is declared as %s, but %s is %s", k, fe_type_str(&t.t, x, sizeof x),
                      k == 0 ? "the Q.K product" : "its pre_softmax_input", fe_type_str(v->type, z, sizeof z));
      else
        ok = fe_scope_bind(p, in, nt, v);
      if (!fe_accept(p, T_COMMA)) break;
    }
    ok = ok && fe_expect(p, T_RPAREN, "to close the block arguments") && fe_expect(p, T_COLON, "after the block label");
  }
  while (ok && !p->fatal) {
    if (p->tok.kind == T_RBRACE) break; /* an empty body yields the product itself */
    if (p->tok.kind == T_EOF) {
      ok = fe_unterminated(p, open, "body of 'migraphx.attention'");
      break;
    }
    if (fe_tok_is(p, "migraphx.yield")) {
      fe_next(p);
      if (p->tok.kind == T_VALUE) {
        y = fe_scope_find(p, in, p->tok);
        fe_next(p);
        fe_mgx_type t;
        ok = y && fe_expect(p, T_COLON, "before the yielded type") && fe_mgx_parse_type(p, &t, NULL);
      }
      fe_skip_loc(p);
      break;
    }
    fe_token res = p->tok;
    if (res.kind != T_VALUE) {
      ok = fe_error(p, fe_loc(p, res), "expected an operation of the body or 'migraphx.yield', found %s", fe_tok_text(p, res));
      break;
    }
    fe_next(p);
    if (!(ok = fe_expect(p, T_EQUAL, "after the result name"))) break;
    fe_token nm = p->tok;
    const char *s = nm.kind == T_STRING ? nm.p + 1 : nm.p;
    int n = nm.kind == T_STRING ? nm.n - 2 : nm.n;
    if (!body_op_allowed(s, n)) {
      ok = fe_error(p, fe_loc(p, nm), "%s is not allowed in the body of 'migraphx.attention' (elementwise migraphx ops only, "
                    "as rocMLIR's isAllowedInPreSoftmaxBody)", fe_tok_text(p, nm));
      break;
    }
    ok = fe_mgx_op(p, in, &res, 1, nm) && !p->fatal;
  }
  fe_scope_end(in);
  if (!ok) return NULL;
  if (!fe_expect(p, T_RBRACE, "to close the body of 'migraphx.attention'")) return NULL;
  a->depth = 0;
  if (!y) y = qk;
  if (y->id >= 0 && !elem_type_is_float(y->type->elem))
    return fe_error(p, a->m.loc, "the body of 'migraphx.attention' must yield floats for the softmax (an integer Q.K "
                    "needs its dequantization there)"),
           NULL;
  return y;
}

/* softmax_type = f32 | features = ... | splitKV = N | slidingWindowSize = N | {attrs} */
static bool parse_trailing(fe_parser *p, att *a) {
  for (;;) {
    if (p->tok.kind == T_LBRACE) {
      if (!fe_parse_attr_dict(p, &a->m.attrs, &a->m.nattrs, &a->m.capattrs)) return false;
      continue;
    }
    if (p->tok.kind != T_IDENT) return true;
    fe_token key = p->tok;
    if (fe_tok_is(p, "softmax_type")) {
      fe_next(p);
      if (!fe_expect(p, T_EQUAL, "after 'softmax_type'")) return false;
      a->softmax_t = p->tok.kind == T_IDENT ? elem_type_parse(p->tok.p, (size_t)p->tok.n) : ET_INVALID;
      if (a->softmax_t != ET_F32 && a->softmax_t != ET_F16 && a->softmax_t != ET_BF16)
        return fe_error(p, fe_loc(p, p->tok), "softmax_type must be f32, f16 or bf16, found %s", fe_tok_text(p, p->tok));
      fe_next(p);
    } else if (fe_tok_is(p, "features") || fe_tok_is(p, "splitKV") || fe_tok_is(p, "slidingWindowSize")) {
      return fe_error(p, fe_loc(p, key),
                      "'migraphx.attention' %s is not supported (tosac reads the plain variant: no kvcache, causal, "
                      "prefix_offset, sliding_window or splitkv)", fe_tok_text(p, key));
    } else {
      return true;
    }
  }
}

/* The result: softmax(y) . V in the softmax type, then V's type (as rocMLIR's decomposition). */
static value *lower(att *a, value *y, value *v) {
  fe_mgx_ctx *m = &a->m;
  elem_type st = a->softmax_t ? a->softmax_t : v->type->elem;
  value *pr = fe_mgx_softmax(m, fe_mgx_cast(m, y, st), y->type->rank - 1);
  tensor_type ot = a->res_t[0].t;
  ot.elem = st;
  return fe_mgx_cast(m, fe_mgx_dot(m, pr, fe_mgx_cast(m, v, st), &ot), v->type->elem);
}

bool fe_mgx_attention(fe_parser *p, fe_scope *fs, const fe_token *results, int nresults, fe_token name) {
  att a = {.m = {.p = p, .fs = fs, .loc = fe_loc(p, name), .opname = "migraphx.attention"}};
  fe_mgx_ctx *m = &a.m;
  m->res = nresults ? arena_strndup(p->a, results[0].p + 1, (size_t)results[0].n - 1) : "r";
  value *r = NULL, *qkv[3] = {NULL, NULL, NULL};
  bool ok = false;
  char x[200], z[200];
  fe_next(p);
  if (nresults != 1) {
    fe_error(p, m->loc, "'migraphx.attention' with %d results is not supported (tosac reads one result; the log-sum-exp "
             "result belongs to splitkv)", nresults);
    goto out;
  }
  for (int i = 0; i < 3; i++) {
    if (p->tok.kind != T_VALUE) {
      fe_error(p, fe_loc(p, p->tok), "'migraphx.attention' expects Q, K and V, found %s", fe_tok_text(p, p->tok));
      goto out;
    }
    qkv[i] = fe_scope_find(p, fs, p->tok);
    if (!qkv[i]) goto out;
    fe_next(p);
    if (i < 2 && !fe_expect(p, T_COMMA, "between Q, K and V")) goto out;
  }
  if (fe_tok_is(p, "pre_softmax_inputs") && !parse_extras(p, fs, &a)) goto out;
  if (fe_tok_is(p, "current_seq_len") || fe_tok_is(p, "prefix_offset")) {
    fe_error(p, fe_loc(p, p->tok), "'migraphx.attention' %s is not supported (tosac reads the plain variant: no kvcache, "
             "causal, prefix_offset, sliding_window or splitkv)", fe_tok_text(p, p->tok));
    goto out;
  }
  const tensor_type *q = qkv[0]->type, *k = qkv[1]->type, *v = qkv[2]->type;
  int rk = q->rank;
  bool shapes = rk >= 3 && k->rank == rk && v->rank == rk && q->dims[rk - 1] == k->dims[rk - 2] &&
                k->dims[rk - 1] == v->dims[rk - 2];
  for (int i = 0; shapes && i < rk - 2; i++) shapes = q->dims[i] == k->dims[i] && k->dims[i] == v->dims[i];
  if (!shapes) {
    fe_error(p, m->loc, "'migraphx.attention' needs Q [..., S_q, D], K [..., D, S_k] and V [..., S_k, D_v] with equal "
             "leading dims (grouped-query heads are not supported): %s, %s",
             fe_type_str(q, x, sizeof x), fe_type_str(k, z, sizeof z));
    goto out;
  }
  tensor_type qkt = *q;
  qkt.dims[rk - 1] = k->dims[rk - 1];
  qkt.elem = elem_type_is_float(q->elem) ? q->elem : ET_I32;
  value *qk = fe_mgx_dot(m, qkv[0], qkv[1], &qkt);
  if (!qk) goto out;
  value *y = parse_body(p, fs, &a, qk);
  if (!y || !parse_trailing(p, &a) || !fe_expect(p, T_COLON, "before the operation's type")) goto out;
  for (int i = 0; i < 3; i++)
    if (!fe_mgx_parse_type(p, &a.qkv_t[i], NULL) || (i < 2 && !fe_expect(p, T_COMMA, "between the operand types"))) goto out;
  if (!fe_expect(p, T_ARROW, "before the result type") || !fe_mgx_parse_type(p, &a.res_t[0], NULL)) goto out;
  if (p->tok.kind == T_COMMA) {
    fe_error(p, fe_loc(p, p->tok), "'migraphx.attention' with a log-sum-exp result is not supported");
    goto out;
  }
  fe_skip_loc(p);
  ok = true;
  for (int i = 0; i < 3; i++)
    if (!tensor_type_equal(&a.qkv_t[i].t, qkv[i]->type)) {
      fe_error(p, m->loc, "operand %d of 'migraphx.attention' is declared as %s, but it has type %s", i,
               fe_type_str(&a.qkv_t[i].t, x, sizeof x), fe_type_str(qkv[i]->type, z, sizeof z));
      goto out;
    }
  for (int i = 0; i < m->nattrs; i++)
    if (strcmp(m->attrs[i].name, "perf_config")) {
      fe_error(p, m->attrs[i].loc, "'migraphx.attention' attribute '%s' is not supported", m->attrs[i].name);
      goto out;
    }
  r = lower(&a, y, qkv[2]);
  if (r && !tensor_type_equal(r->type, &a.res_t[0].t)) {
    fe_error(p, m->loc, "'migraphx.attention' result type is declared as %s, but its operands give %s",
             fe_type_str(&a.res_t[0].t, x, sizeof x), fe_type_str(r->type, z, sizeof z));
    r = NULL;
  }
  if (r && r == m->last) r->name = name_intern(p->a, m->res);
out:
  if (!ok) skip_op(p, a.depth);
  for (int i = 0; i < nresults; i++) fe_scope_bind(p, fs, results[i], r && i == 0 ? r : fe_poison(p));
  return true;
}
