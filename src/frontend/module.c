/* module.c: the file's top level, scanned once: modules, attribute aliases, the resource
 * section, and each func.func's name, visibility and where its signature starts (its body is
 * skipped here and parsed by parser.c only for the entry functions); then the entry choice:
 * one function (--entry, or the only public one) or every public one (docs/manifest.md,
 * "Entries"). */
#include "frontend/frontend.h"

#include <string.h>

static bool is_open(fe_tok_kind k) { return k == T_LPAREN || k == T_LBRACKET || k == T_LBRACE || k == T_LANGLE; }

/* Skip a type in a signature we are not compiling. */
static bool skip_type(fe_parser *p) {
  if (p->tok.kind != T_IDENT && p->tok.kind != T_BANG)
    return fe_error(p, fe_loc(p, p->tok), "expected a type, found %s", fe_tok_text(p, p->tok));
  fe_next(p);
  return p->tok.kind == T_LANGLE ? fe_skip_group(p) : true;
}

/* A function's attribute dictionary, skipped but for the target it was generated for: rocMLIR's
 * rock.arch = "gfx90a:sramecc+:xnack-", as MIGraphX writes it (the older arch = "..." of
 * rocMLIR's tests, often empty, is not read). */
static bool scan_func_attrs(fe_parser *p, fe_func *f) {
  fe_token open = p->tok;
  int depth = 0;
  do {
    if (p->tok.kind == T_EOF) return fe_unterminated(p, open, "attribute dictionary");
    depth += p->tok.kind == T_LBRACE;
    depth -= p->tok.kind == T_RBRACE;
    bool key = depth == 1 && p->tok.kind == T_IDENT && fe_tok_is(p, "rock.arch");
    fe_next(p);
    if (key && p->tok.kind == T_EQUAL) {
      fe_next(p);
      if (p->tok.kind == T_STRING) f->arch = p->tok;
    }
  } while (depth > 0 && !p->fatal);
  return !p->fatal;
}

static bool scan_func(fe_parser *p, fe_top *ts) {
  fe_func f = {.is_public = true, .kw = p->tok, .scope = ts->scope};
  fe_next(p);
  if (fe_tok_is(p, "private") || fe_tok_is(p, "nested")) f.is_public = false;
  if (fe_tok_is(p, "private") || fe_tok_is(p, "nested") || fe_tok_is(p, "public")) fe_next(p);
  if (p->tok.kind != T_SYMBOL)
    return fe_error(p, fe_loc(p, p->tok), "expected a function name (@name), found %s", fe_tok_text(p, p->tok));
  f.name = p->tok;
  fe_next(p);
  f.sig_lx = p->lx;
  f.sig_tok = p->tok;
  if (p->tok.kind != T_LPAREN) return fe_expect(p, T_LPAREN, "to start the argument list");
  if (!fe_skip_group(p)) return false;
  if (fe_accept(p, T_ARROW)) {
    if (p->tok.kind == T_LPAREN) {
      if (!fe_skip_group(p)) return false;
    } else if (!skip_type(p)) {
      return false;
    }
  }
  if (fe_tok_is(p, "attributes")) {
    fe_next(p);
    if (p->tok.kind != T_LBRACE) return fe_expect(p, T_LBRACE, "after 'attributes'");
    if (!scan_func_attrs(p, &f)) return false;
  }
  if (p->tok.kind == T_LBRACE) {
    f.has_body = true;
    if (!fe_skip_group(p)) return false;
  }
  fe_skip_loc(p);
  return fe_add_func(p, ts, &f);
}

bool fe_add_func(fe_parser *p, fe_top *ts, const fe_func *f) {
  for (int i = 0; i < ts->nfuncs; i++) /* each module is a symbol table */
    if (ts->funcs[i].scope == f->scope && ts->funcs[i].name.n == f->name.n &&
        !memcmp(ts->funcs[i].name.p, f->name.p, (size_t)f->name.n)) {
      fe_error(p, fe_loc(p, f->kw), "redefinition of symbol named '%.*s'", f->name.n - 1, f->name.p + 1);
      fe_note(p, fe_loc(p, ts->funcs[i].kw), "see existing symbol definition here");
      return false;
    }
  ARENA_PUSH(p->a, ts->funcs, ts->nfuncs, ts->cap, *f);
  return true;
}

bool fe_scan_top(fe_parser *p, fe_top *ts) {
  fe_token modules[16];
  int scopes[16], depth = 0;
  bool generic[16];
  fe_next(p);
  while (!p->fatal) {
    fe_token t = p->tok;
    switch (t.kind) {
    case T_EOF:
      if (depth > 0)
        return fe_unterminated(p, modules[depth - 1], "'module'");
      return true;
    case T_ERROR: return false;
    case T_META_BEGIN:
      if (!fe_parse_resources(p)) return false;
      continue;
    case T_HASH: /* #alias = value / !alias = type: recorded, read again where used */
    case T_BANG: {
      fe_next(p);
      if (!fe_expect(p, T_EQUAL, t.kind == T_HASH ? "after the attribute alias name" : "after the type alias name")) return false;
      fe_alias al = {.name = t, .lx = p->lx, .value = p->tok};
      ARENA_PUSH(p->a, p->aliases, p->naliases, p->capaliases, al);
      while (p->tok.kind != T_EOF && p->tok.line == t.line && !p->fatal) {
        if (is_open(p->tok.kind)) {
          if (!fe_skip_group(p)) return false;
        } else {
          fe_next(p);
        }
      }
      continue;
    }
    case T_RBRACE:
      if (depth == 0) return fe_error(p, fe_loc(p, t), "unexpected '}' at top level");
      depth--;
      ts->scope = depth ? scopes[depth - 1] : 0;
      fe_next(p);
      if (generic[depth] && !fe_generic_region_end(p)) return false;
      fe_skip_loc(p);
      continue;
    default: break;
    }
    bool quoted = t.kind == T_STRING;
    if (quoted && t.n == 16 && !memcmp(t.p, "\"builtin.module\"", 16)) {
      if (depth == 16) return fe_error(p, fe_loc(p, t), "modules nest too deeply");
      scopes[depth] = ts->scope = ++ts->nscopes;
      generic[depth] = true;
      modules[depth++] = t;
      fe_next(p);
      if (!fe_generic_module_start(p)) return false;
      continue;
    }
    if (quoted && t.n == 11 && !memcmp(t.p, "\"func.func\"", 11)) {
      if (!fe_scan_generic_func(p, ts)) return false;
      continue;
    }
    if (fe_tok_is(p, "module") || fe_tok_is(p, "builtin.module")) {
      if (depth == 16) return fe_error(p, fe_loc(p, t), "modules nest too deeply");
      scopes[depth] = ts->scope = ++ts->nscopes;
      generic[depth] = false;
      modules[depth++] = t;
      fe_next(p);
      if (p->tok.kind == T_SYMBOL) fe_next(p);
      if (fe_tok_is(p, "attributes")) {
        fe_next(p);
        if (p->tok.kind != T_LBRACE) return fe_expect(p, T_LBRACE, "after 'attributes'");
        if (!fe_skip_group(p)) return false;
      }
      if (!fe_expect(p, T_LBRACE, "to open the module body")) return false;
      continue;
    }
    if (fe_tok_is(p, "func.func") || fe_tok_is(p, "func")) { /* `func @f`: MLIR before the func dialect (2022) */
      if (!scan_func(p, ts)) return false;
      continue;
    }
    return fe_error(p, fe_loc(p, t), "expected 'func.func' or 'module' at top level, found %s", fe_tok_text(p, t));
  }
  return false;
}

const fe_func *fe_choose_entry(fe_parser *p, const fe_top *ts, const fe_options *opt) {
  if (opt && opt->entry) {
    const char *e = opt->entry[0] == '@' ? opt->entry + 1 : opt->entry;
    for (int i = 0; i < ts->nfuncs; i++) {
      const fe_func *f = &ts->funcs[i];
      if ((size_t)f->name.n - 1 != strlen(e) || memcmp(f->name.p + 1, e, strlen(e))) continue;
      if (f->has_body) return f;
      return fe_error(p, fe_loc(p, f->kw), "--entry @%s names a declaration; it has no body to compile", e),
             NULL;
    }
    diag_error_noloc(p->d, "no function named '@%s' in %s", e, p->src->path);
    return NULL;
  }
  const fe_func *pick = NULL;
  int npublic = 0;
  char names[256] = "";
  for (int i = 0; i < ts->nfuncs; i++) {
    const fe_func *f = &ts->funcs[i];
    if (!f->has_body || !f->is_public) continue;
    if (npublic < 4) {
      size_t l = strlen(names);
      snprintf(names + l, sizeof names - l, "%s@%.*s", npublic ? ", " : "", f->name.n - 1 > 40 ? 40 : f->name.n - 1,
               f->name.p + 1);
    }
    npublic++;
    pick = f;
  }
  if (npublic == 1) return pick;
  if (npublic == 0)
    diag_error_noloc(p->d, "%s has no public function with a body to compile", p->src->path);
  else
    diag_error_noloc(p->d, "%s has %d public functions (%s%s); choose one with --entry NAME", p->src->path,
                     npublic, names, npublic > 4 ? ", ..." : "");
  return NULL;
}

int fe_list_entries(fe_parser *p, const fe_top *ts, const fe_options *opt, const char ***names) {
  int n = 0;
  *names = arena_alloc(p->a, sizeof(char *) * (size_t)(ts->nfuncs + 1));
  if (opt && opt->entry) {
    const fe_func *f = fe_choose_entry(p, ts, opt);
    if (f) (*names)[n++] = arena_strndup(p->a, f->name.p + 1, (size_t)f->name.n - 1);
    return n;
  }
  for (int i = 0; i < ts->nfuncs; i++) {
    const fe_func *f = &ts->funcs[i];
    if (!f->has_body || !f->is_public) continue;
    for (int j = 0; j < i; j++) /* entries are chosen by name: one per name */
      if (ts->funcs[j].has_body && ts->funcs[j].is_public && ts->funcs[j].name.n == f->name.n &&
          !memcmp(ts->funcs[j].name.p, f->name.p, (size_t)f->name.n)) {
        fe_error(p, fe_loc(p, f->kw), "a second public function named '@%.*s' (in another module): entry "
                 "functions are chosen by name; make one of them private", f->name.n - 1, f->name.p + 1);
        return 0;
      }
    (*names)[n++] = arena_strndup(p->a, f->name.p + 1, (size_t)f->name.n - 1);
  }
  if (n == 0) diag_error_noloc(p->d, "%s has no public function with a body to compile", p->src->path);
  return n;
}
