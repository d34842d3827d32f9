/* generic_form.c: the top level in MLIR's generic op form, as `mlir-opt --mlir-print-op-generic`
 * and exporters print it: "builtin.module"() ({ ... }) : () -> () and
 * "func.func"() <{function_type = (T, ...) -> R, sym_name = "f"}> ({ ^bb0(%a: T, ...): ... }).
 * The function is recorded like a custom-form one (module.c); parser.c reads its type and body. */
#include "frontend/frontend.h"

#include <string.h>

/* `()` after a generic op name at the top level: these ops take no operands. */
static bool no_operands(fe_parser *p, fe_token name) {
  if (!fe_expect(p, T_LPAREN, "to start the operand list")) return false;
  if (p->tok.kind != T_RPAREN)
    return fe_error(p, fe_loc(p, p->tok), "'%.*s' takes no operands", name.n - 2, name.p + 1);
  fe_next(p);
  return true;
}

/* The value of one property: skipped up to the ',' or '}' that ends it. */
static bool skip_value(fe_parser *p) {
  while (p->tok.kind != T_COMMA && p->tok.kind != T_RBRACE && !p->fatal) {
    if (p->tok.kind == T_EOF) return fe_expect(p, T_RBRACE, "to close the attribute dictionary");
    bool open = p->tok.kind == T_LPAREN || p->tok.kind == T_LBRACKET || p->tok.kind == T_LBRACE ||
                p->tok.kind == T_LANGLE;
    if (open ? !fe_skip_group(p) : (fe_next(p), false)) return false;
  }
  return !p->fatal;
}

static bool key_is(fe_token k, const char *s) {
  size_t n = strlen(s);
  return (k.kind == T_IDENT && (size_t)k.n == n && !memcmp(k.p, s, n)) ||
         (k.kind == T_STRING && (size_t)k.n == n + 2 && !memcmp(k.p + 1, s, n));
}

/* { sym_name = "f", function_type = ..., sym_visibility = "private", ... } (properties or the
 * older attribute dictionary): the function's name, visibility, type position and rock.arch. */
static bool scan_func_props(fe_parser *p, fe_func *f) {
  if (!fe_expect(p, T_LBRACE, "to open the function's properties")) return false;
  while (p->tok.kind != T_RBRACE) {
    fe_token key = p->tok;
    if (key.kind != T_IDENT && key.kind != T_STRING)
      return fe_error(p, fe_loc(p, key), "expected an attribute name, found %s", fe_tok_text(p, key));
    fe_next(p);
    if (!fe_accept(p, T_EQUAL)) { /* a unit attribute */
      if (!fe_accept(p, T_COMMA)) break;
      continue;
    }
    fe_token v = p->tok;
    if (key_is(key, "sym_name") && v.kind == T_STRING) {
      char *s = arena_printf(p->a, "@%.*s", v.n - 2, v.p + 1);
      f->name = (fe_token){.kind = T_SYMBOL, .p = s, .n = (int)strlen(s), .line = v.line, .col = v.col};
    } else if (key_is(key, "sym_visibility") && v.kind == T_STRING) {
      f->is_public = v.n == 8 && !memcmp(v.p, "\"public\"", 8);
    } else if (key_is(key, "function_type")) {
      f->sig_lx = p->lx, f->sig_tok = v;
    } else if (key_is(key, "rock.arch") && v.kind == T_STRING) {
      f->arch = v;
    }
    if (!skip_value(p)) return false;
    if (!fe_accept(p, T_COMMA)) break;
  }
  return fe_expect(p, T_RBRACE, "to close the function's properties");
}

bool fe_generic_region_end(fe_parser *p) {
  if (!fe_expect(p, T_RPAREN, "to close the region list")) return false;
  if (p->tok.kind == T_LBRACE && !fe_skip_group(p)) return false; /* attribute dictionary */
  if (!fe_expect(p, T_COLON, "before the operation's type")) return false;
  if (!fe_expect(p, T_LPAREN, "in '() -> ()'") || !fe_expect(p, T_RPAREN, "in '() -> ()'") ||
      !fe_expect(p, T_ARROW, "in '() -> ()'") || !fe_expect(p, T_LPAREN, "in '() -> ()'") ||
      !fe_expect(p, T_RPAREN, "in '() -> ()'"))
    return false;
  fe_skip_loc(p);
  return true;
}

bool fe_generic_module_start(fe_parser *p) {
  if (!no_operands(p, p->prev)) return false;
  if (p->tok.kind == T_LANGLE) { /* <{sym_name = "m"}> */
    fe_next(p);
    if (p->tok.kind != T_LBRACE || !fe_skip_group(p)) return fe_expect(p, T_LBRACE, "after '<'");
    if (!fe_expect(p, T_RANGLE, "to close the properties '<{'")) return false;
  }
  if (p->tok.kind == T_LBRACE && !fe_skip_group(p)) return false;
  return fe_expect(p, T_LPAREN, "to start the module's region") && fe_expect(p, T_LBRACE, "to open the module body");
}

bool fe_scan_generic_func(fe_parser *p, fe_top *ts) {
  fe_func f = {.is_public = true, .kw = p->tok, .scope = ts->scope, .generic = true};
  fe_next(p);
  if (!no_operands(p, f.kw)) return false;
  if (fe_accept(p, T_LANGLE)) {
    if (!scan_func_props(p, &f) || !fe_expect(p, T_RANGLE, "to close the properties '<{'")) return false;
  }
  if (!fe_expect(p, T_LPAREN, "to start the function's region")) return false;
  if (p->tok.kind == T_LBRACE) {
    f.has_body = true;
    f.body_lx = p->lx, f.body_tok = p->tok;
    if (!fe_skip_group(p)) return false;
  }
  if (!fe_expect(p, T_RPAREN, "to close the region list")) return false;
  if (p->tok.kind == T_LBRACE && !scan_func_props(p, &f)) return false;
  if (!fe_expect(p, T_COLON, "before the operation's type") || !fe_expect(p, T_LPAREN, "in '() -> ()'") ||
      !fe_expect(p, T_RPAREN, "in '() -> ()'") || !fe_expect(p, T_ARROW, "in '() -> ()'") ||
      !fe_expect(p, T_LPAREN, "in '() -> ()'") || !fe_expect(p, T_RPAREN, "in '() -> ()'"))
    return false;
  fe_skip_loc(p);
  if (!f.name.p) return fe_error(p, fe_loc(p, f.kw), "'func.func' has no sym_name");
  if (!f.sig_tok.p) return fe_error(p, fe_loc(p, f.kw), "'func.func' has no function_type");
  return fe_add_func(p, ts, &f);
}
