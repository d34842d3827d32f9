/* launch.c: rocMLIR's host graphs. A function of mhal.launch and mhal.await ops (the wrapper
 * rocMLIR's tests put around a kernel) is read as the launch graph it states: each launched
 * function is read in place (parser.c, fe_read_launched) with its parameters bound to the
 * launch's operands, and the launch's results stand for what it returns (docs/migraphx.md). */
#include "frontend/frontend.h"

#include <string.h>

static bool skip_type(fe_parser *p) {
  if (p->tok.kind == T_LPAREN) return fe_skip_group(p);
  fe_next(p);
  return p->tok.kind == T_LANGLE ? fe_skip_group(p) : true;
}

/* %token, %r... = mhal.launch @f [%deps] (%args) : (types) -> types. The launched function is
 * read in place with its parameters bound to %args and %r bound to what it returns: the
 * launches become one graph that the partitioner cuts again, and a token orders nothing beyond
 * the data flow (functions on tensors have no side effects). */
bool fe_launch_op(fe_parser *p, fe_scope *fs, const fe_token *results, const int *rcount, int nresults) {
  src_loc at = fe_loc(p, p->tok);
  fe_next(p);
  if (p->tok.kind != T_SYMBOL) return fe_expect(p, T_SYMBOL, "(the launched function) after 'mhal.launch'");
  fe_token callee = p->tok;
  fe_next(p);
  if (fe_accept(p, T_LBRACKET)) { /* the tokens it waits for */
    while (p->tok.kind == T_VALUE) {
      if (!fe_scope_find(p, fs, p->tok)) return false;
      fe_next(p);
      if (!fe_accept(p, T_COMMA)) break;
    }
    if (!fe_expect(p, T_RBRACKET, "to close the launch's dependencies")) return false;
  }
  value *args[64];
  int n = 0;
  if (!fe_expect(p, T_LPAREN, "to start the launch's operands")) return false;
  while (p->tok.kind == T_VALUE) {
    if (n == 64) return fe_error(p, fe_loc(p, p->tok), "too many launch operands");
    if (!(args[n++] = fe_scope_find(p, fs, p->tok))) return false;
    fe_next(p);
    if (!fe_accept(p, T_COMMA)) break;
  }
  if (!fe_expect(p, T_RPAREN, "to close the launch's operands") || !fe_expect(p, T_COLON, "before the launch's types"))
    return false;
  fe_token types = p->tok;
  fe_lexer tl = p->lx;
  fe_next(p);
  if (fe_tok_is(p, "memref"))
    return fe_error(p, fe_loc(p, p->tok), "'mhal.launch' on memref operands (the bufferized host form) is not "
                    "supported; tosac reads launches on tensors and !migraphx.shaped values");
  p->lx = tl, p->tok = types;
  fe_mgx_type lt[64];
  int nt = 0;
  if (!fe_expect(p, T_LPAREN, "to start the launch's operand types")) return false;
  while (p->tok.kind != T_RPAREN && nt < 64) {
    if (!fe_mgx_parse_type(p, &lt[nt++], NULL)) return false;
    if (!fe_accept(p, T_COMMA)) break;
  }
  if (!fe_expect(p, T_RPAREN, "to close the launch's operand types")) return false;
  if (nt != n) return fe_error(p, fe_loc(p, types), "'mhal.launch' has %d operand%s but %d type%s", n, n == 1 ? "" : "s", nt, nt == 1 ? "" : "s");
  if (fe_accept(p, T_ARROW) && !skip_type(p)) return false;
  fe_skip_loc(p);
  const fe_func *f = NULL;
  for (int i = 0; p->top && i < p->top->nfuncs && !f; i++) {
    const fe_func *g = &p->top->funcs[i];
    if (g->has_body && g->name.n == callee.n && !memcmp(g->name.p, callee.p, (size_t)callee.n)) f = g;
  }
  if (!f) return fe_error(p, fe_loc(p, callee), "'mhal.launch' of %.*s: no function with that name has a body", callee.n, callee.p);
  value *res[64] = {0};
  int nret;
  if (!fe_read_launched(p, fs, f, args, lt, n, res, &nret, at)) return false;
  int nres = 0;
  for (int i = 0; i < nresults; i++) nres += rcount[i];
  if (nres != nret + 1)
    return fe_error(p, at, "'mhal.launch' names %d result%s, @%.*s returns %d (plus the token)", nres - 1,
                    nres == 2 ? "" : "s", f->name.n - 1, f->name.p + 1, nret);
  for (int i = 0, k = 0; i < nresults; i++) {
    for (int j = 0; j < rcount[i]; j++, k++) {
      fe_token t = results[i];
      if (rcount[i] > 1) {
        char *nmk = arena_printf(p->a, "%.*s#%d", t.n, t.p, j);
        t.p = nmk;
        t.n = (int)strlen(nmk);
      }
      if (!fe_scope_bind(p, fs, t, k == 0 ? fe_poison(p) : res[k - 1])) return false;
    }
  }
  return true;
}

/* mhal.await %token [: !mhal.token]: the graph is already ordered by its data flow. */
bool fe_await_op(fe_parser *p, fe_scope *fs) {
  fe_next(p);
  if (p->tok.kind != T_VALUE) return fe_expect(p, T_VALUE, "(the token) after 'mhal.await'");
  if (!fe_scope_find(p, fs, p->tok)) return false;
  fe_next(p);
  if (fe_accept(p, T_COLON) && !skip_type(p)) return false;
  fe_skip_loc(p);
  return true;
}

