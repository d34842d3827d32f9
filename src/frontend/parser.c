/* parser.c: fe_parse. module.c scans the file's top level (modules, functions, aliases,
 * resources) and picks the entry function; this file parses the entry function's ops into a
 * graph, canonicalising and verifying each op, and holds the token helpers both share. */
#include "frontend/frontend.h"

#include <stdlib.h>
#include <string.h>

/* ---------------------------------------------------------------- token helpers */
void fe_next(fe_parser *p) {
  p->prev_end = p->tok.p + p->tok.n;
  p->prev = p->tok;
  int before = p->d->errors;
  p->tok = fe_lex(&p->lx);
  if (p->tok.kind == T_ERROR && p->d->errors != before) {
    int lim = p->d->max_errors ? p->d->max_errors : 20;
    if (p->d->errors >= lim) p->fatal = true;
  }
}

bool fe_accept(fe_parser *p, fe_tok_kind k) {
  if (p->tok.kind != k) return false;
  fe_next(p);
  return true;
}

bool fe_tok_is(const fe_parser *p, const char *word) {
  size_t n = strlen(word);
  return p->tok.kind == T_IDENT && (size_t)p->tok.n == n && memcmp(p->tok.p, word, n) == 0;
}

src_loc fe_loc(const fe_parser *p, fe_token t) { return src_loc_at(p->src, t.line, t.col); }

src_loc fe_loc_after_prev(const fe_parser *p) {
  if (!p->prev.p)
    return fe_loc(p, p->tok);
  src_loc l = src_loc_at(p->src, p->prev.line, p->prev.col);
  for (int i = 0; i < p->prev.n; i++) /* tokens may span lines (strings) */
    p->prev.p[i] == '\n' ? (l.line++, l.col = 1) : l.col++;
  return l;
}

bool fe_with_alias(fe_parser *p, bool *handled, bool (*fn)(fe_parser *, void *), void *out) {
  const fe_token name = p->tok;
  const fe_alias *al = NULL;
  for (int i = p->naliases - 1; i >= 0 && !al; i--)
    if (p->aliases[i].name.n == name.n && !memcmp(p->aliases[i].name.p, name.p, (size_t)name.n))
      al = &p->aliases[i];
  *handled = al != NULL;
  if (!al)
    return false;
  if (p->alias_depth >= 16)
    return fe_error(p, fe_loc(p, name), "aliases refer to each other more than 16 deep");
  fe_lexer save = p->lx;
  p->lx = al->lx;
  p->tok = al->value;
  p->alias_depth++;
  bool ok = fn(p, out);
  p->alias_depth--;
  p->lx = save;
  p->tok = name;
  if (ok)
    fe_next(p);
  return ok;
}

bool fe_error(fe_parser *p, src_loc loc, const char *fmt, ...) {
  char buf[1024];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(buf, sizeof buf, fmt, ap);
  va_end(ap);
  diag_error(p->d, loc, "%s", buf);
  int lim = p->d->max_errors ? p->d->max_errors : 20;
  if (p->d->errors >= lim) p->fatal = true;
  return false;
}

bool fe_profile_rule(fe_parser *p, src_loc loc, const char *fmt, ...) {
  fe_profile_mode mode = p->opt ? p->opt->profile : FE_PROFILE_ACCEPT;
  if (mode == FE_PROFILE_ACCEPT)
    return true;
  char buf[1024];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(buf, sizeof buf, fmt, ap);
  va_end(ap);
  if (mode == FE_PROFILE_STRICT)
    return fe_error(p, loc, "%s (--tosa-strict)", buf);
  diag_warning(p->d, loc, "%s [-Wtosa-profile]", buf);
  return true;
}

void fe_note(fe_parser *p, src_loc loc, const char *fmt, ...) {
  char buf[1024];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(buf, sizeof buf, fmt, ap);
  va_end(ap);
  diag_note(p->d, loc, "%s", buf);
}

const char *fe_tok_text(fe_parser *p, fe_token t) {
  if (t.kind == T_EOF) return "end of file";
  if (t.n > 40) return arena_printf(p->a, "'%.37s...'", t.p);
  return arena_printf(p->a, "'%.*s'", t.n, t.p);
}

bool fe_expect(fe_parser *p, fe_tok_kind k, const char *context) {
  if (p->tok.kind == k) {
    fe_next(p);
    return true;
  }
  if (p->tok.kind == T_ERROR) return false; /* the lexer said why */
  if (p->tok.kind == T_EOF)
    return fe_error(p, fe_loc(p, p->tok), "unexpected end of file; expected %s %s", fe_tok_desc(k), context);
  /* Where mlir-opt points: just after the text the missing token should follow. */
  return fe_error(p, fe_loc_after_prev(p), "expected %s %s, found %s", fe_tok_desc(k), context,
                  fe_tok_text(p, p->tok));
}

/* Where mlir-opt-22 reports an unexpected end of file: it backs up from the file's last byte over
 * blanks (comments count as blank) and reports just after the text left. So: just after the
 * last token, unless that token ends the file: then at its last character, or for a
 * one-character token (`{`), just after the text before it. */
static src_loc eof_loc(const fe_parser *p) {
  src_loc l = fe_loc_after_prev(p);
  const char *t = p->src->text, *tok = p->prev.p;
  if (!tok || tok + p->prev.n != t + p->src->len) return l;
  if (p->prev.n > 1) return l.col--, l;
  l = src_loc_at(p->src, p->prev.line, p->prev.col);
  for (; tok > t && strchr(" \t\r\n", tok[-1]); tok--)
    if (tok[-1] == '\n') l.line--;
  const char *bol = tok;
  while (bol > t && bol[-1] != '\n') bol--;
  l.col = (int)(tok - bol) + 1;
  return l;
}

bool fe_unterminated(fe_parser *p, fe_token open, const char *what) {
  fe_error(p, eof_loc(p), "unterminated %s: unexpected end of file", what);
  fe_note(p, fe_loc(p, open), "%s opened here", what);
  return false;
}

static fe_tok_kind closer_of(fe_tok_kind k) {
  switch (k) {
  case T_LPAREN: return T_RPAREN;
  case T_LBRACKET: return T_RBRACKET;
  case T_LBRACE: return T_RBRACE;
  case T_LANGLE: return T_RANGLE;
  default: return T_EOF;
  }
}

bool fe_skip_group(fe_parser *p) {
  fe_token open = p->tok;
  fe_tok_kind close = closer_of(open.kind);
  int depth = 0;
  do {
    if (p->tok.kind == T_EOF)
      return fe_unterminated(p, open, fe_tok_desc(open.kind));
    if (p->tok.kind == open.kind) depth++;
    if (p->tok.kind == close) depth--;
    fe_next(p);
  } while (depth > 0 && !p->fatal);
  return !p->fatal;
}

void fe_skip_loc(fe_parser *p) {
  if (fe_tok_is(p, "loc")) {
    fe_next(p);
    if (p->tok.kind == T_LPAREN) fe_skip_group(p);
  }
}

/* Does token t start its line? (recovery resynchronises on op boundaries) */
static bool starts_line(const fe_parser *p, fe_token t) {
  for (const char *s = t.p; s > p->src->text && s[-1] != '\n'; s--)
    if (s[-1] != ' ' && s[-1] != '\t' && s[-1] != '\r') return false;
  return true;
}

/* ---------------------------------------------------------------- values by name */
typedef struct vt_entry { /* 16 bytes */
  name_code name; /* 0: an empty slot */
  value *v;
} vt_entry;

typedef struct fn_state {
  graph *g;
  struct fn_state *parent; /* enclosing scope (regions see the values defined around them) */
  bool in_region;          /* the block ends with tosa.yield, not func.return */
  vt_entry *tab; /* names by hash, */
  int tabcap, tabn;
  value **dense; /* except decimals below densecap (most names: "%0" to "%N"), indexed by their
                    number: 8 bytes a name instead of two 16-byte entries at half load */
  uint32_t densecap, ndense;
  int vcap, ocap, rcap;
  tensor_type *res_types;
  int nres_types;
  fe_mgx_type *res_mgx; /* per result: the declared !migraphx.shaped layout (has_strides), or 0 */
  bool launched;        /* a function read in place of an mhal.launch: its arguments are bound to */
  value **launch_args;  /* launch_args, its func.return operands go to launch_res */
  int nlaunch_args, nbound, depth;
  const fe_mgx_type *launch_types; /* the types the launch states for its operands */
  value **launch_res;
} fn_state;

/* A name's hash: its number when it is a decimal (most are), else its spelling's. */
static uint32_t hash_name(name_code dec, const char *s, int n) {
  if (dec) return dec * 2654435761u;
  uint32_t h = 2166136261u;
  for (int i = 0; i < n; i++) h = (h ^ (unsigned char)s[i]) * 16777619u;
  return h;
}

/* The slot of name (dec: its code when it is a decimal, else 0). */
static vt_entry *vt_slot_dec(fn_state *fs, name_code dec, const char *name, int len) {
  uint32_t m = (uint32_t)fs->tabcap - 1;
  for (uint32_t i = hash_name(dec, name, len) & m;; i = (i + 1) & m) {
    vt_entry *e = &fs->tab[i];
    if (!e->name || (dec ? e->name == dec : (e->name & NAME_STRING) && name_equal(e->name, name, (size_t)len)))
      return e;
  }
}

static value *vt_find_local(fn_state *fs, const char *name, int len) {
  name_code dec = name_decimal(name, (size_t)len);
  if (dec && dec - 1 < fs->densecap && fs->dense[dec - 1]) return fs->dense[dec - 1];
  if (!fs->tabcap) return NULL;
  vt_entry *e = vt_slot_dec(fs, dec, name, len);
  return e->name ? e->v : NULL;
}

static value *vt_find(fn_state *fs, const char *name, int len) {
  for (; fs; fs = fs->parent) {
    value *v = vt_find_local(fs, name, len);
    if (v) return v;
  }
  return NULL;
}

static vt_entry *vt_slot_of(fn_state *fs, name_code c) {
  if (!(c & NAME_STRING)) return vt_slot_dec(fs, c, NULL, 0);
  char buf[VALUE_NAME_MAX];
  const char *s = name_str(c, buf);
  return vt_slot_dec(fs, 0, s, (int)strlen(s));
}

/* Can decimal n go to the dense table (grown if it stays at least a quarter full)? */
static bool dense_fits(fn_state *fs, uint32_t n) {
  if (n < fs->densecap) return true;
  if (n >= 4 * (uint64_t)fs->ndense + 1024) return false;
  uint32_t cap = fs->densecap ? fs->densecap : 1024;
  while (cap <= n) cap *= 2;
  value **d = realloc(fs->dense, sizeof *d * cap);
  if (!d) abort();
  memset(d + fs->densecap, 0, sizeof *d * (cap - fs->densecap));
  fs->dense = d, fs->densecap = cap;
  return true;
}

static void vt_put(fn_state *fs, name_code name, value *v) {
  if (!(name & NAME_STRING)) {
    uint32_t n = name - 1;
    bool in_tab = fs->tabcap && vt_slot_of(fs, name)->name;
    if (!in_tab && dense_fits(fs, n)) {
      fs->ndense += !fs->dense[n];
      fs->dense[n] = v;
      return;
    }
  }
  if (2 * (fs->tabn + 1) > fs->tabcap) {
    vt_entry *old = fs->tab;
    int oldcap = fs->tabcap;
    fs->tabcap = oldcap ? oldcap * 2 : 64;
    /* malloc, freed on growth and when the scope ends: outgrown tables of a million-value
     * function would otherwise stay in the arena (200 MB) */
    fs->tab = calloc((size_t)fs->tabcap, sizeof(vt_entry));
    if (!fs->tab) abort();
    for (int i = 0; i < oldcap; i++)
      if (old[i].name) *vt_slot_of(fs, old[i].name) = old[i];
    free(old);
  }
  vt_entry *e = vt_slot_of(fs, name);
  if (!e->name) fs->tabn++;
  *e = (vt_entry){name, v};
}

static void vt_free(fn_state *fs) {
  free(fs->tab);
  free(fs->dense);
}

/* Define %name (token t, without the %); reports a redefinition. */
static bool define_value(fe_parser *p, fn_state *fs, fe_token t, value *v) {
  const char *name = t.p + 1;
  int len = t.n - 1;
  value *old = vt_find_local(fs, name, len);
  if (old) {
    fe_error(p, fe_loc(p, t), "redefinition of value '%.*s'", t.n, t.p);
    fe_note(p, old->loc, "previous definition is here");
    return false;
  }
  v->name = name_intern_n(p->a, name, (size_t)len);
  v->loc = fe_loc(p, t);
  vt_put(fs, v->name, v);
  return true;
}

static value *poison_value(fe_parser *p) {
  value *v = arena_alloc(p->a, sizeof *v);
  v->id = -1; /* not in the graph: uses are skipped silently, the error was already reported */
  v->type = type_intern(p->a, &(tensor_type){0});
  return v;
}

/* ---------------------------------------------------------------- ops */
/* Ops that exist in the TOSA dialect (extensions after TOSA 1.0, shape arithmetic) or in
 * neighbouring dialects, but not in the TOSA 1.0 profile tosac compiles: a clearer message
 * than "unknown". */
static const char *const later_ops[] = {
    "tosa.matmul_t", "tosa.matmul_t_block_scaled", "tosa.row_gather", "tosa.row_gather_block_scaled",
    "tosa.reshape_block_scaled", "tosa.avg_pool2d_adaptive", "tosa.max_pool2d_adaptive", "tosa.conv2d_block_scaled",
    "tosa.cast_to_block_scaled", "tosa.cast_from_block_scaled", "tosa.assert_equal_shape", "tosa.dim",
    "tosa.apply_scale", "tosa.concat_shape", "tosa.add_shape", "tosa.sub_shape", "tosa.mul_shape", "tosa.div_shape",
    "tosa.div_floor_shape", "tosa.div_ceil_shape", "tosa.mod_shape", "tosa.max_shape", "tosa.min_shape",
    "tosa.exp2_shape", "tosa.log2_ceil_shape", "tosa.log2_floor_shape", "tosa.slice_shape",
    "func.call", "call",
};

static bool is_later_op(const char *s, int n) {
  for (size_t i = 0; i < sizeof later_ops / sizeof later_ops[0]; i++)
    if ((int)strlen(later_ops[i]) == n && !memcmp(later_ops[i], s, (size_t)n)) return true;
  return false;
}

/* Skip to the next op: a line starting with %name, an op name or the body's closing '}'. */
static void recover(fe_parser *p, int from_line) {
  int depth = 0;
  while (!p->fatal && p->tok.kind != T_EOF) {
    fe_token t = p->tok;
    bool fresh = t.line > from_line && depth == 0 && starts_line(p, t);
    if (fresh && (t.kind == T_VALUE || t.kind == T_IDENT || t.kind == T_STRING || t.kind == T_RBRACE)) return;
    if (t.kind == T_LPAREN || t.kind == T_LBRACKET || t.kind == T_LBRACE) depth++;
    if ((t.kind == T_RPAREN || t.kind == T_RBRACKET || t.kind == T_RBRACE) && depth > 0) depth--;
    fe_next(p);
  }
}

typedef struct op_syntax {
  fe_token results[16];
  int nresults;
  fe_token name;
  fe_token *operands;
  int noperands, capoperands;
  attr *attrs;
  int nattrs, capattrs;
  tensor_type *in_types;
  src_loc *in_locs;
  int nin, ninl, capin, capinl;
  bool has_sig_inputs;
  tensor_type out_types[64];
  int nout;
  src_loc sig_loc;
  int rcount[16]; /* results each name stands for (%r:3) */
  graph *regions[2];
  int nregions;
  fe_token *rargs; /* custom cond_if / while_loop: (%a = %x, ...) block argument names */
  int nrargs, caprargs;
  int build;   /* 1: tensor.from_elements, 2: tensor.splat (read as arith.constant; scalar.c) */
  /* First storage of the lists above: most ops fit, so a million-op graph does not leave a
   * kilobyte of outgrown lists per op in the arena (attrs are copied out at their size). */
  fe_token operands0[4];
  tensor_type in_types0[4];
  src_loc in_locs0[4];
  src_loc operand_locs0[4]; /* the operands' locations: only the verifier reads them */
  attr attrs0[4];
  bool scalar; /* arith.constant 0.5 : f32 */
} op_syntax;

static bool parse_type_list(fe_parser *p, op_syntax *s) {
  fe_next(p); /* ( */
  while (p->tok.kind != T_RPAREN) {
    tensor_type t;
    src_loc l;
    if (!fe_parse_type(p, &t, &l)) return false;
    if (s->nin == 0 && p->saw_unsigned) p->unsigned_sig |= 1;
    ARENA_PUSH(p->a, s->in_types, s->nin, s->capin, t);
    ARENA_PUSH(p->a, s->in_locs, s->ninl, s->capinl, l);
    if (!fe_accept(p, T_COMMA)) break;
  }
  return fe_expect(p, T_RPAREN, "to close the operand types");
}

static bool parse_result_type(fe_parser *p, op_syntax *s) {
  tensor_type t;
  if (p->tok.kind == T_LPAREN) {
    fe_next(p);
    while (p->tok.kind != T_RPAREN) {
      if (!fe_parse_type(p, &t, NULL)) return false;
      if (s->nout == 0 && p->saw_unsigned) p->unsigned_sig |= 2;
      if (s->nout < 64) s->out_types[s->nout] = t;
      s->nout++;
      if (!fe_accept(p, T_COMMA)) break;
    }
    return fe_expect(p, T_RPAREN, "to close the result types");
  }
  if (!fe_parse_type(p, &t, NULL)) return false;
  if (p->saw_unsigned) p->unsigned_sig |= 2;
  s->out_types[0] = t;
  s->nout = 1;
  return true;
}

static bool parse_op(fe_parser *p, fn_state *fs, bool *done);
static void append_op(fe_parser *p, fn_state *fs, fe_opctx *cp);
static bool parse_fn(fe_parser *p, const fe_func *f, fn_state *fs);
static bool launch_param(fe_parser *p, fn_state *fs, fe_token name, const fe_mgx_type *t, src_loc at);
static void drop_unused_consts(graph *g);

static bool region_arg(fe_parser *p, fn_state *fs, fe_token name, const tensor_type *t) {
  graph *rg = fs->g;
  value *v = arena_alloc(p->a, sizeof *v);
  v->type = type_intern(p->a, t);
  if (!define_value(p, fs, name, v)) return false;
  int acap = rg->nargs, vcap = rg->nvalues; /* exact sizes: ARENA_PUSH grows on equality */
  v->is_arg = 1;
  v->id = rg->nvalues;
  ARENA_PUSH(p->a, rg->values, rg->nvalues, vcap, v);
  ARENA_PUSH(p->a, rg->args, rg->nargs, acap, v);
  return true;
}

/* { [^bb0(%a: T, ...):] ops... tosa.yield ... } into a region graph. Block arguments come from
 * the label or, in the custom cond_if / while_loop form, from the names and types written before
 * the region. */
static bool parse_region_body(fe_parser *p, fn_state *fs, graph **out, const fe_token *names,
                              const tensor_type *types, int nargs);

static bool parse_region(fe_parser *p, fn_state *outer, graph **out, const fe_token *names, const tensor_type *types,
                         int nargs) {
  if (p->region_depth >= FE_MAX_REGION_DEPTH)
    return fe_error(p, fe_loc(p, p->tok), "regions nest more than %d deep", FE_MAX_REGION_DEPTH);
  p->region_depth++;
  fn_state fs = {.parent = outer, .in_region = true};
  bool ok = parse_region_body(p, &fs, out, names, types, nargs);
  vt_free(&fs);
  p->region_depth--;
  return ok;
}

static bool parse_region_body(fe_parser *p, fn_state *fs, graph **out, const fe_token *names,
                              const tensor_type *types, int nargs) {
  graph *rg = arena_alloc(p->a, sizeof *rg);
  rg->arena = p->a;
  rg->file = p->src;
  fs->g = rg;
  fe_token open = p->tok;
  if (!fe_expect(p, T_LBRACE, "to open the region")) return false;
  if (p->tok.kind == T_CARET) {
    fe_next(p);
    if (fe_accept(p, T_LPAREN)) {
      for (int k = 0; p->tok.kind == T_VALUE; k++) {
        fe_token nt = p->tok;
        tensor_type t;
        fe_next(p);
        if (!fe_expect(p, T_COLON, "after the block argument name") || !fe_parse_type(p, &t, NULL)) return false;
        if (k < nargs) fe_dyn_fill(&t, &types[k]); /* '?' dimensions: the operand's */
        fe_skip_loc(p);
        if (!region_arg(p, fs, nt, &t)) return false;
        if (!fe_accept(p, T_COMMA)) break;
      }
      if (!fe_expect(p, T_RPAREN, "to close the block arguments")) return false;
    }
    if (!fe_expect(p, T_COLON, "after the block label")) return false;
  } else {
    for (int i = 0; i < nargs; i++)
      if (!region_arg(p, fs, names[i], &types[i])) return false;
  }
  fs->vcap = rg->nvalues; /* region_arg allocated exactly: the next push grows the array */
  bool done = false;
  while (!done && !p->fatal) {
    if (p->tok.kind == T_RBRACE) return fe_error(p, fe_loc(p, p->tok), "region ends without tosa.yield");
    if (p->tok.kind == T_EOF) return fe_unterminated(p, open, "region");
    int line = p->tok.line;
    if (!parse_op(p, fs, &done) && !done) recover(p, line);
  }
  if (p->fatal) return false;
  drop_unused_consts(rg);
  *out = rg;
  return fe_expect(p, T_RBRACE, "to close the region");
}

/* Custom forms:  tosa.cond_if %c [(%a = %x, ...)] : tensor<i1> [(types)] -> types {..} else {..}
 *                tosa.cond_if %c -> (types) {..} else {..}  (2023, no block arguments)
 *                tosa.while_loop (%a = %x, ...) : (types) -> types {..} do {..} */
static bool parse_control_flow(fe_parser *p, fn_state *fs, op_syntax *s, op_kind kind) {
  if (kind == OP_COND_IF) {
    if (p->tok.kind != T_VALUE) return fe_expect(p, T_VALUE, "(the condition) after 'tosa.cond_if'");
    ARENA_PUSH(p->a, s->operands, s->noperands, s->capoperands, p->tok);
    fe_next(p);
  }
  if (fe_accept(p, T_LPAREN)) {
    while (p->tok.kind == T_VALUE) {
      ARENA_PUSH(p->a, s->rargs, s->nrargs, s->caprargs, p->tok);
      fe_next(p);
      if (!fe_expect(p, T_EQUAL, "after the region argument name")) return false;
      if (p->tok.kind != T_VALUE) return fe_expect(p, T_VALUE, "after '='");
      ARENA_PUSH(p->a, s->operands, s->noperands, s->capoperands, p->tok);
      fe_next(p);
      if (!fe_accept(p, T_COMMA)) break;
    }
    if (!fe_expect(p, T_RPAREN, "to close the region arguments")) return false;
  }
  /* The 2023 form `tosa.cond_if %c -> (types) {..} else {..}` writes no condition type: the
   * operand's own type stands for it (the verifier checks it as usual). */
  bool cond_untyped = kind == OP_COND_IF && p->tok.kind == T_ARROW;
  if (!cond_untyped && !fe_expect(p, T_COLON, "before the operation's type")) return false;
  s->sig_loc = fe_loc(p, p->tok);
  if (kind == OP_COND_IF && !cond_untyped && p->tok.kind != T_LPAREN) {
    tensor_type t;
    src_loc l;
    if (!fe_parse_type(p, &t, &l)) return false;
    ARENA_PUSH(p->a, s->in_types, s->nin, s->capin, t);
    ARENA_PUSH(p->a, s->in_locs, s->ninl, s->capinl, l);
  }
  if (!cond_untyped && p->tok.kind == T_LPAREN && !parse_type_list(p, s)) return false;
  s->has_sig_inputs = s->nin == s->noperands;
  if (fe_accept(p, T_ARROW) && !parse_result_type(p, s)) return false;
  int first = kind == OP_COND_IF ? 1 : 0;
  tensor_type *rt = s->nin > first ? s->in_types + first : NULL;
  int nr = s->nrargs <= s->nin - first ? s->nrargs : 0;
  for (int i = 0; i < s->nin - first && i + first < s->noperands; i++) { /* '?': the operand's */
    const value *v = vt_find(fs, s->operands[i + first].p + 1, s->operands[i + first].n - 1);
    if (v) fe_dyn_fill(&rt[i], v->type);
  }
  if (!parse_region(p, fs, &s->regions[0], s->rargs, rt, nr)) return false;
  const char *kw = kind == OP_COND_IF ? "else" : "do";
  if (!fe_tok_is(p, kw)) return fe_error(p, fe_loc(p, p->tok), "expected '%s' and the second region, found %s", kw, fe_tok_text(p, p->tok));
  fe_next(p);
  if (!parse_region(p, fs, &s->regions[1], s->rargs, rt, nr)) return false;
  s->nregions = 2;
  fe_skip_loc(p);
  return true;
}

/* "arith.constant"() <{value = 0.5 : f32}> : () -> f32 (at the result type): a scalar, as
 * `arith.constant 0.5 : f32` is. */
static bool generic_scalar(fe_parser *p, op_syntax *s) {
  elem_type et = fe_scalar_type(p);
  const attr *v = NULL;
  for (int i = 0; i < s->nattrs; i++)
    if (!strcmp(s->attrs[i].name, "value")) v = &s->attrs[i];
  if (!v || (v->kind != ATTR_INT && v->kind != ATTR_FLOAT && v->kind != ATTR_BOOL))
    return fe_error(p, fe_loc(p, p->tok), "'arith.constant' of type %s needs a scalar value attribute", elem_type_name(et));
  dense_data *d = arena_alloc(p->a, sizeof *d);
  size_t nb = (size_t)elem_type_bytes(et);
  uint8_t *b = arena_alloc(p->a, nb ? nb : 1);
  uint64_t bits = elem_type_is_float(et) ? fe_float_bits(v->kind == ATTR_FLOAT ? v->f : (double)v->i, et) : (uint64_t)v->i;
  for (size_t i = 0; i < nb; i++) b[i] = (uint8_t)(bits >> (8 * i));
  *d = (dense_data){.type = {.elem = et}, .bytes = b, .nbytes = nb, .splat = true};
  attr a = {.name = "value", .kind = ATTR_DENSE, .dense = d, .loc = v->loc, .type_elem = et};
  s->attrs[0] = a;
  s->nattrs = 1;
  s->out_types[0] = d->type;
  s->nout = 1;
  s->scalar = true;
  fe_next(p);
  fe_skip_loc(p);
  return true;
}

/* Whether tensor.from_elements / tensor.splat (the current token) reads a scalar computed in the
 * graph: dialect_tensor.c then builds the tensor from it; of constants only it folds into a
 * constant here (scalar.c). A look ahead over the operand names on a copy of the lexer. */
static bool builds_from_computed(fe_parser *p, fn_state *fs) {
  diag_sink quiet = {.errors = 1 << 20, .max_errors = 1}; /* a bad token is reported when it is read */
  fe_lexer lx = p->lx;
  lx.d = &quiet;
  for (fe_token t = fe_lex(&lx); t.kind == T_VALUE; t = fe_lex(&lx)) {
    const value *v = vt_find(fs, t.p + 1, t.n - 1);
    if (v && v->id >= 0 && v->type->rank == 0) return true; /* a tensor is refused below, as upstream does */
    if (fe_lex(&lx).kind != T_COMMA) break;
  }
  return false;
}

/* Everything after the op name: operands, properties, attributes, `: type`, loc. */
static bool parse_op_syntax(fe_parser *p, fn_state *fs, op_syntax *s, op_kind kind) {
  bool generic = s->name.kind == T_STRING;
  if (!generic && (kind == OP_COND_IF || kind == OP_WHILE_LOOP)) return parse_control_flow(p, fs, s, kind);
  if (generic && !fe_expect(p, T_LPAREN, "to start the operand list")) return false;
  if (kind == OP_ARITH_CONST && !generic) { /* arith.constant dense<...> : tensor<...> */
    attr a = {.name = "value"};
    a.loc = fe_loc(p, p->tok);
    fe_token lit = p->tok;
    if (s->build ? !fe_parse_tensor_build(p, fs, s->build == 2, &a) : !fe_parse_attr_value(p, &a)) return false;
    if (a.kind == ATTR_INT || a.kind == ATTR_FLOAT || a.kind == ATTR_BOOL) { /* 0.5 : f32, a scalar */
      if (a.kind == ATTR_BOOL && lit.kind == T_IDENT) a.type_elem = ET_I1;
      if (!(a.dense = fe_dense_scalar(p, lit, a.type_elem))) return false;
      a.kind = ATTR_DENSE;
      s->scalar = true;
    }
    if (a.kind != ATTR_DENSE)
      return fe_error(p, a.loc, "arith.constant must hold a dense tensor literal or a scalar (0.5 : f32)");
    ARENA_PUSH(p->a, s->attrs, s->nattrs, s->capattrs, a);
    s->out_types[0] = a.dense->type;
    s->nout = 1;
    fe_skip_loc(p);
    return true;
  }
  while (p->tok.kind == T_VALUE) {
    ARENA_PUSH(p->a, s->operands, s->noperands, s->capoperands, p->tok);
    fe_next(p);
    if (!fe_accept(p, T_COMMA)) break;
    if (p->tok.kind != T_VALUE) return fe_error(p, fe_loc_after_prev(p), "expected SSA operand");
  }
  if (generic && !fe_expect(p, T_RPAREN, "to close the operand list")) return false;
  for (;;) {
    if (p->tok.kind == T_LANGLE) {
      fe_next(p);
      if (p->tok.kind != T_LBRACE) return fe_expect(p, T_LBRACE, "after '<' (properties are written <{...}>)");
      if (!fe_parse_attr_dict(p, &s->attrs, &s->nattrs, &s->capattrs)) return false;
      if (!fe_expect(p, T_RANGLE, "to close the properties '<{'")) return false;
    } else if (p->tok.kind == T_LBRACE) {
      if (!fe_parse_attr_dict(p, &s->attrs, &s->nattrs, &s->capattrs)) return false;
    } else if (p->tok.kind == T_LPAREN && generic) { /* ({region}, {region}) */
      fe_next(p);
      while (p->tok.kind == T_LBRACE) {
        if (s->nregions == 2) return fe_error(p, fe_loc(p, p->tok), "an operation has at most 2 regions");
        if (!parse_region(p, fs, &s->regions[s->nregions], NULL, NULL, 0)) return false;
        s->nregions++;
        if (!fe_accept(p, T_COMMA)) break;
      }
      if (!fe_expect(p, T_RPAREN, "to close the region list")) return false;
    } else {
      break;
    }
  }
  if (!fe_expect(p, T_COLON, "before the operation's type")) return false;
  s->sig_loc = fe_loc(p, p->tok);
  if (p->tok.kind == T_LPAREN) {
    s->has_sig_inputs = true;
    if (!parse_type_list(p, s)) return false;
    if (!fe_expect(p, T_ARROW, "after the operand types")) return false;
    if (kind == OP_ARITH_CONST && fe_scalar_type(p) != ET_INVALID) return generic_scalar(p, s);
    if (!parse_result_type(p, s)) return false;
  } else {
    fe_token ty = p->tok;
    if (!parse_result_type(p, s)) return false;
    if (p->tok.kind == T_ARROW) /* `: tensor<..> -> ...`: operand types without parentheses */
      return fe_error(p, s->sig_loc, "expected a function type '(operand types) -> result types', found '%.*s'",
                      (int)(p->prev_end - ty.p), ty.p);
  }
  fe_skip_loc(p);
  return true;
}

static void define_poison(fe_parser *p, fn_state *fs, const op_syntax *s) {
  for (int i = 0; i < s->nresults; i++) define_value(p, fs, s->results[i], poison_value(p));
}

static bool parse_return(fe_parser *p, fn_state *fs, fe_token kw) {
  graph launched = {0};
  graph *g = fs->launched ? &launched : fs->g;
  bool generic = kw.kind == T_STRING;
  fe_next(p);
  if (generic && !fe_expect(p, T_LPAREN, "to start the operand list")) return false;
  fe_token ops[64];
  int n = 0;
  while (p->tok.kind == T_VALUE) {
    if (n == 64) return fe_error(p, fe_loc(p, p->tok), "too many return values");
    ops[n++] = p->tok;
    fe_next(p);
    if (!fe_accept(p, T_COMMA)) break;
    if (p->tok.kind != T_VALUE) return fe_error(p, fe_loc_after_prev(p), "expected SSA operand");
  }
  if (generic && !fe_expect(p, T_RPAREN, "to close the operand list")) return false;
  tensor_type listed[64];
  src_loc listed_loc[64];
  int nlisted = 0;
  if (fe_accept(p, T_COLON)) {
    bool paren = generic && fe_accept(p, T_LPAREN);
    while (!paren || p->tok.kind != T_RPAREN) {
      if (nlisted == 64) return fe_error(p, fe_loc(p, p->tok), "too many return values");
      if (!fe_parse_type(p, &listed[nlisted], &listed_loc[nlisted])) return false;
      nlisted++;
      if (!fe_accept(p, T_COMMA)) break;
    }
    if (paren) {
      if (!fe_expect(p, T_RPAREN, "to close the operand types") || !fe_expect(p, T_ARROW, "after the operand types") ||
          !fe_expect(p, T_LPAREN, "(no results)") || !fe_expect(p, T_RPAREN, "(no results)"))
        return false;
    }
  }
  if (nlisted == 0 && n > 0)
    return fe_error(p, fe_loc_after_prev(p), "expected ':'");
  fe_skip_loc(p);
  if (nlisted != n)
    return fe_error(p, fe_loc(p, kw), "%.*s lists %d operand%s but %d type%s", kw.n, kw.p, n, n == 1 ? "" : "s", nlisted,
                    nlisted == 1 ? "" : "s");
  if (!fs->in_region && n != fs->nres_types)
    return fe_error(p, fe_loc(p, kw), "%.*s has %d operand%s, but the function declares %d result%s", kw.n, kw.p, n,
                    n == 1 ? "" : "s", fs->nres_types, fs->nres_types == 1 ? "" : "s");
  g->results = arena_alloc(p->a, sizeof(value *) * (size_t)(n ? n : 1));
  g->result_locs = arena_alloc(p->a, sizeof(src_loc) * (size_t)(n ? n : 1));
  g->nresults = n;
  bool ok = true;
  for (int i = 0; i < n; i++) {
    value *v = vt_find(fs, ops[i].p + 1, ops[i].n - 1);
    g->result_locs[i] = fe_loc(p, ops[i]);
    if (!v) {
      ok = fe_error(p, fe_loc(p, ops[i]), "use of undefined value '%.*s'", ops[i].n, ops[i].p);
      continue;
    }
    g->results[i] = v;
    if (v->id < 0) continue;
    v->used = 1;
    char a[160], b[160];
    if (!fe_type_matches(&listed[i], v->type)) {
      ok = fe_error(p, listed_loc[i], "type %s listed for '%.*s' does not match its type %s",
                    fe_type_str(&listed[i], a, sizeof a), ops[i].n, ops[i].p, fe_type_str(v->type, b, sizeof b));
      continue;
    }
    if (!fs->in_region && !fe_type_matches(&fs->res_types[i], v->type))
      ok = fe_error(p, fe_loc(p, ops[i]), "returned value '%.*s' has type %s, but the function declares result %d as %s",
                    ops[i].n, ops[i].p, fe_type_str(v->type, a, sizeof a), i,
                    fe_type_str(&fs->res_types[i], b, sizeof b));
    else if (!fs->in_region && !fs->launched && fs->res_mgx[i].has_strides) { /* written through its strides */
      value *w = fe_mgx_result(p, fs, v, &fs->res_mgx[i], g->result_locs[i]);
      if (!w) ok = false;
      else if (w != v) w->used = 1, g->results[i] = w; /* w is computed from v: v stays read */
    }
  }
  for (int i = 0; fs->launched && i < n; i++) fs->launch_res[i] = g->results[i];
  if (p->tok.kind != T_RBRACE) {
    if (p->tok.kind == T_EOF) return fe_expect(p, T_RBRACE, "to close the function body");
    return fe_error(p, fe_loc(p, p->tok), "expected '}' after %.*s (it must be the last operation), found %s", kw.n,
                    kw.p, fe_tok_text(p, p->tok));
  }
  return ok;
}

/* One op line. Returns false when the caller must resynchronise. *done after func.return. */
static bool parse_op(fe_parser *p, fn_state *fs, bool *done) {
  op_syntax s = {0};
  s.operands = s.operands0, s.capoperands = 4;
  s.in_types = s.in_types0, s.capin = 4;
  s.in_locs = s.in_locs0, s.capinl = 4;
  s.attrs = s.attrs0, s.capattrs = 4;
  int total = 0;
  if (p->tok.kind == T_VALUE) {
    for (;;) {
      if (p->tok.kind != T_VALUE)
        return fe_error(p, fe_loc(p, p->tok), "expected a result name, found %s", fe_tok_text(p, p->tok));
      if (s.nresults == 16) return fe_error(p, fe_loc(p, p->tok), "too many results");
      s.rcount[s.nresults] = 1;
      s.results[s.nresults++] = p->tok;
      fe_next(p);
      if (p->tok.kind == T_COLON) { /* %r:2 = ... packs two results, used as %r#0 and %r#1 */
        fe_next(p);
        int64_t n = 0;
        if (p->tok.kind != T_INT) return fe_expect(p, T_INT, "(result count) after ':'");
        if (!fe_tok_int(p, p->tok, &n, NULL, NULL) || n < 1 || n > 64)
          return fe_error(p, fe_loc(p, p->tok), "result count %s must be in 1..64", fe_tok_text(p, p->tok));
        s.rcount[s.nresults - 1] = (int)n;
        fe_next(p);
      }
      if (!fe_accept(p, T_COMMA)) break;
    }
    if (!fe_expect(p, T_EQUAL, "after the result names")) return false;
  }
  for (int i = 0; i < s.nresults; i++) total += s.rcount[i];
  s.name = p->tok;
  const char *nm = s.name.kind == T_STRING ? s.name.p + 1 : s.name.p;
  int nlen = s.name.kind == T_STRING ? s.name.n - 2 : s.name.n;
  src_loc name_loc = fe_loc(p, s.name);
  if (s.name.kind != T_IDENT && s.name.kind != T_STRING) {
    if (s.name.kind == T_EOF) return fe_expect(p, T_RBRACE, "to close the function body");
    return fe_error(p, name_loc, "expected an operation name, found %s", fe_tok_text(p, s.name));
  }
  bool is_ret = (nlen == 11 && !memcmp(nm, "func.return", 11)) || (nlen == 6 && !memcmp(nm, "return", 6));
  bool is_yield = nlen == 10 && !memcmp(nm, "tosa.yield", 10);
  if (s.nresults == 0 && (is_ret || is_yield)) {
    if (is_yield != fs->in_region)
      return fe_error(p, name_loc, "'%.*s' %s", nlen, nm,
                      is_yield ? "outside a cond_if / while_loop region" : "inside a region (use tosa.yield)");
    *done = true;
    return parse_return(p, fs, s.name);
  }
  if (nlen > 9 && !memcmp(nm, "migraphx.", 9)) return fe_mgx_op(p, fs, s.results, s.nresults, s.name);
  if (nlen == 11 && !memcmp(nm, "mhal.launch", 11)) {
    if (fe_launch_op(p, fs, s.results, s.rcount, s.nresults)) return true;
    define_poison(p, fs, &s);
    return false;
  }
  if (nlen == 10 && !memcmp(nm, "mhal.await", 10) && s.nresults == 0) return fe_await_op(p, fs);
  if (nlen > 5 && !memcmp(nm, "mhal.", 5)) {
    define_poison(p, fs, &s);
    return fe_error(p, name_loc, "'%.*s' is not supported: tosac reads rocMLIR host graphs made of mhal.launch and "
                    "mhal.await on tensors (docs/migraphx.md)", nlen, nm);
  }
  op_kind kind = op_lookup(nm, (size_t)nlen);
  if (s.name.kind == T_IDENT && ((nlen == 20 && !memcmp(nm, "tensor.from_elements", 20)) ||
                                 (nlen == 12 && !memcmp(nm, "tensor.splat", 12))) &&
      !builds_from_computed(p, fs)) {
    kind = OP_ARITH_CONST; /* of scalars: folded into a constant (scalar.c) */
    s.build = nlen == 20 ? 1 : 2;
  }
  if (kind == OP_COUNT && fe_xd_is_op(nm, nlen)) /* dialect.c */
    return fe_xd_op(p, fs, s.results, s.nresults, s.name);
  if (kind == OP_COUNT) {
    define_poison(p, fs, &s);
    if (is_later_op(nm, nlen))
      return fe_error(p, name_loc, "operation '%.*s' is not supported (it is not part of TOSA 1.0)", nlen, nm);
    return fe_error(p, name_loc, "unknown operation '%.*s'", nlen, nm);
  }
  fe_next(p);
  p->unsigned_at = (src_loc){0}, p->unsigned_sig = 0;
  if (!parse_op_syntax(p, fs, &s, kind)) {
    define_poison(p, fs, &s);
    return false;
  }
  /* ui8 and ui16 are the bits of i8 and i16 whose reading the rescale's unsigned flags say */
  if (p->unsigned_at.line && !((kind == OP_RESCALE || kind == OP_CONST) &&
                               (p->unsigned_elem == ET_I8 || p->unsigned_elem == ET_I16))) {
    define_poison(p, fs, &s);
    return fe_error(p, p->unsigned_at, "'%.*s' on the unsigned type ui%d is not supported (tosac reads ui8 and ui16 "
                    "in tosa.rescale and its tosa.const zero points)", nlen, nm, elem_type_bits(p->unsigned_elem));
  }
  const op_info *info = &op_table[kind];
  attr *kept = s.nattrs ? arena_alloc(p->a, sizeof *kept * (size_t)s.nattrs) : NULL;
  if (s.nattrs) memcpy(kept, s.attrs, sizeof *kept * (size_t)s.nattrs);
  s.attrs = kept;
  if (s.scalar && s.nresults == 1 && s.rcount[0] == 1) { /* outside the graph (scalar.c) */
    value *v = arena_alloc(p->a, sizeof *v);
    *v = (value){.id = FE_SCALAR_ID, .type = type_intern(p->a, &s.out_types[0])};
    v->def = arena_alloc(p->a, sizeof *v->def);
    *v->def = (op){.kind = kind, .loc = name_loc};
    op_set_attrs(p->a, v->def, s.attrs, s.nattrs);
    define_value(p, fs, s.results[0], v);
    return true;
  }
  /* Operands by name. */
  op *o = arena_alloc(p->a, sizeof *o);
  o->kind = kind;
  o->loc = name_loc;
  o->noperands = s.noperands;
  o->operands = arena_alloc(p->a, sizeof(value *) * (size_t)(s.noperands ? s.noperands : 1));
  if (s.nregions) {
    graph **rs = arena_alloc(p->a, sizeof(graph *) * (size_t)s.nregions);
    for (int i = 0; i < s.nregions; i++) rs[i] = s.regions[i];
    op_set_regions(p->a, o, rs, s.nregions);
  }
  src_loc *olocs = s.noperands <= 4 ? s.operand_locs0 : arena_alloc(p->a, sizeof(src_loc) * (size_t)s.noperands);
  bool ok = true, poisoned = false;
  for (int i = 0; i < s.noperands; i++) {
    fe_token t = s.operands[i];
    olocs[i] = fe_loc(p, t);
    value *v = vt_find(fs, t.p + 1, t.n - 1);
    if (!v) {
      ok = fe_error(p, olocs[i], "use of undefined value '%.*s'", t.n, t.p);
      poisoned = true;
      continue;
    }
    if (v->id == FE_SCALAR_ID) { /* where and how mlir-opt-22 says it, and what to do */
      char a[160];
      if (s.has_sig_inputs && i < s.nin)
        ok = fe_error(p, olocs[i], "use of value '%.*s' expects different type than prior uses: '%s' vs '%s' (TOSA "
                      "operands are tensors: wrap the scalar with tensor.from_elements or tensor.splat)", t.n, t.p,
                      fe_type_str(&s.in_types[i], a, sizeof a), elem_type_name(v->type->elem));
      else
        ok = fe_error(p, name_loc, "'%.*s' op operand #%d must be a tensor, but '%.*s' is a scalar %s (wrap it with "
                      "tensor.from_elements or tensor.splat)", nlen, nm, i, t.n, t.p, elem_type_name(v->type->elem));
      poisoned = true;
    }
    if (v->id < 0) poisoned = true;
    o->operands[i] = v;
  }
  op_set_attrs(p->a, o, s.attrs, s.nattrs);
  /* The signature. */
  bool multi = info->family == FAM_OTHER || info->family == FAM_FFT;
  if (s.nout > 64) {
    define_poison(p, fs, &s);
    return fe_error(p, s.sig_loc, "'%.*s' has more than 64 results", nlen, nm);
  }
  if (multi ? (total != s.nout) : (s.nout != 1 || total != 1)) {
    if (total == 0 && s.nout > 0)
      ok = fe_error(p, name_loc, "'%.*s' produces %d result%s; give %s a name (%%r = ...)", nlen, nm, s.nout,
                    s.nout == 1 ? "" : "s", s.nout == 1 ? "it" : "them");
    else if (!multi && total != 1) ok = fe_error(p, name_loc, "'%.*s' produces one result, not %d", nlen, nm, total);
    else ok = fe_error(p, s.sig_loc, "'%.*s' has %d result name%s, but its type lists %d", nlen, nm, total,
                       total == 1 ? "" : "s", s.nout);
    define_poison(p, fs, &s);
    return true;
  }
  if (s.noperands < info->min_operands || s.noperands > info->max_operands) {
    if (info->min_operands == info->max_operands)
      ok = fe_error(p, name_loc, "'%s' expects %d operand%s, found %d", info->name, info->min_operands,
                    info->min_operands == 1 ? "" : "s", s.noperands);
    else
      ok = fe_error(p, name_loc, "'%s' expects %d to %d operands, found %d", info->name, info->min_operands,
                    info->max_operands, s.noperands);
    poisoned = true;
  }
  if (s.has_sig_inputs && s.nin != s.noperands) {
    /* at the operands, where mlir-opt-22 reports it */
    ok = fe_error(p, s.noperands ? olocs[0] : s.sig_loc, "'%.*s' has %d operand%s, but its type lists %d", nlen, nm, s.noperands,
                  s.noperands == 1 ? "" : "s", s.nin);
    poisoned = true;
  }
  for (int i = 0; !poisoned && s.has_sig_inputs && i < s.noperands; i++) {
    char a[160], b[160];
    if (!fe_type_matches(&s.in_types[i], o->operands[i]->type)) {
      ok = fe_error(p, s.in_locs[i], "operand %d is declared as %s, but '%.*s' has type %s", i,
                    fe_type_str(&s.in_types[i], a, sizeof a), s.operands[i].n, s.operands[i].p,
                    fe_type_str(o->operands[i]->type, b, sizeof b));
      fe_note(p, o->operands[i]->loc, "operand defined here");
    }
  }
  /* Results: %r for one, %r#k for a packed group. */
  o->nresults = s.nout;
  o->results = arena_alloc(p->a, sizeof(value *) * (size_t)(s.nout ? s.nout : 1));
  for (int i = 0, k = 0; i < s.nresults; i++) {
    for (int j = 0; j < s.rcount[i]; j++, k++) {
      value *r = arena_alloc(p->a, sizeof *r);
      r->type = type_intern(p->a, &s.out_types[k]);
      if (poisoned) r->id = -1;
      fe_token t = s.results[i];
      if (s.rcount[i] > 1) {
        char *nmk = arena_printf(p->a, "%.*s#%d", t.n, t.p, j);
        t.p = nmk;
        t.n = (int)strlen(nmk);
      }
      define_value(p, fs, t, r);
      o->results[k] = r;
    }
  }
  if (poisoned || !ok) return true;
  fe_opctx c = {.o = o, .operand_locs = olocs, .name_loc = name_loc, .declared = s.nout ? s.out_types[0] : (tensor_type){0},
                .declared_all = s.out_types, .ndeclared = s.nout};
  append_op(p, fs, &c);
  return true;
}

/* Canonical form, then the TOSA rules; the op joins the graph even after a verifier error
 * (the graph is discarded then) so later ops still see its result. */
static void append_op(fe_parser *p, fn_state *fs, fe_opctx *cp) {
  graph *g = fs->g;
  fe_opctx c = *cp;
  op *o = c.o;
  for (int k = 0; k < o->nresults; k++) o->results[k]->def = o;
  if (g->nvalues > VALUE_MAX_ID - 64 - o->nresults) { /* value.id's bits (never in practice: 40 GB of text) */
    fe_error(p, o->loc, "a function holds at most %d values", VALUE_MAX_ID - 64);
    p->fatal = true;
    return;
  }
  if (fe_dyn_tie(p, &c) && fe_canonicalize(p, &c) && fe_verify_op(p, &c)) fe_dyn_results(p, &c);
  for (int k = 0; k < c.npre; k++) { /* ops canonicalisation inserted before this one */
    op *pre = c.pre_ops[k];
    for (int i = 0; i < pre->noperands; i++) pre->operands[i]->used = 1;
    value *pr = pre->results[0];
    pr->id = g->nvalues;
    ARENA_PUSH_OWNED(p->a, g->values, g->nvalues, fs->vcap, pr);
    pre->id = g->nops;
    ARENA_PUSH_OWNED(p->a, g->ops, g->nops, fs->ocap, pre);
  }
  for (int i = 0; i < o->noperands; i++) o->operands[i]->used = 1;
  for (int k = 0; k < o->nresults; k++) {
    o->results[k]->id = g->nvalues;
    ARENA_PUSH_OWNED(p->a, g->values, g->nvalues, fs->vcap, o->results[k]);
  }
  o->id = g->nops;
  ARENA_PUSH_OWNED(p->a, g->ops, g->nops, fs->ocap, o);
}

/* ---------------------------------------------------------------- ops built by dialect frontends */
value *fe_scope_find(fe_parser *p, fe_scope *fs, fe_token t) {
  value *v = vt_find(fs, t.p + 1, t.n - 1);
  if (!v) fe_error(p, fe_loc(p, t), "use of undefined value '%.*s'", t.n, t.p);
  return v;
}

bool fe_scope_bind(fe_parser *p, fe_scope *fs, fe_token t, value *v) {
  value *old = vt_find_local(fs, t.p + 1, t.n - 1);
  if (old) {
    fe_error(p, fe_loc(p, t), "redefinition of value '%.*s'", t.n, t.p);
    fe_note(p, old->loc, "previous definition is here");
    return false;
  }
  vt_put(fs, name_intern_n(p->a, t.p + 1, (size_t)t.n - 1), v);
  return true;
}

value *fe_poison(fe_parser *p) { return poison_value(p); }

fe_scope *fe_scope_nested(fe_parser *p, fe_scope *outer) {
  fn_state *s = arena_alloc(p->a, sizeof *s);
  *s = (fn_state){.g = outer->g, .parent = outer, .vcap = outer->vcap, .ocap = outer->ocap, .rcap = outer->rcap};
  return s;
}

void fe_scope_end(fe_scope *inner) { /* the graph's arrays may have grown through inner */
  inner->parent->vcap = inner->vcap;
  inner->parent->ocap = inner->ocap;
  inner->parent->rcap = inner->rcap;
  vt_free(inner);
}

op *fe_op_new(fe_parser *p, op_kind k, src_loc loc, value *const *operands, int n) {
  op *o = arena_alloc(p->a, sizeof *o);
  o->kind = k;
  o->loc = loc;
  o->noperands = n;
  o->operands = arena_alloc(p->a, sizeof(value *) * (size_t)(n ? n : 1));
  for (int i = 0; i < n; i++) o->operands[i] = operands[i];
  return o;
}

value *fe_op_finish(fe_parser *p, fe_scope *fs, op *o, const tensor_type *result, const char *name) {
  value *r = arena_alloc(p->a, sizeof *r);
  r->type = type_intern(p->a, result);
  r->name = name_intern(p->a, name);
  r->loc = o->loc;
  o->nresults = 1;
  o->results = arena_alloc(p->a, sizeof(value *));
  o->results[0] = r;
  src_loc *locs = arena_alloc(p->a, sizeof(src_loc) * (size_t)(o->noperands ? o->noperands : 1));
  for (int i = 0; i < o->noperands; i++) locs[i] = o->loc;
  int before = p->d->errors;
  fe_opctx c = {.o = o, .operand_locs = locs, .name_loc = o->loc, .declared = *result, .declared_all = result,
                .ndeclared = 1};
  append_op(p, fs, &c);
  return p->d->errors == before ? r : NULL;
}

/* ---------------------------------------------------------------- rocMLIR host graphs */
/* A parameter of a function read in place of a launch: bound to the launch's operand. */
static bool launch_param(fe_parser *p, fn_state *fs, fe_token name, const fe_mgx_type *t, src_loc at) {
  char a[160], b[160];
  if (fs->nbound == fs->nlaunch_args)
    return fe_error(p, at, "the launched function has more parameters than the launch's %d operand%s",
                    fs->nlaunch_args, fs->nlaunch_args == 1 ? "" : "s");
  const fe_mgx_type *lt = &fs->launch_types[fs->nbound];
  value *v = fs->launch_args[fs->nbound++];
  /* the callee reads the operand's memory through its own parameter type: it must be the one
   * the launch states (as for a call), strides included */
  bool same = tensor_type_equal(&t->t, &lt->t) && t->has_strides == lt->has_strides &&
              (!t->has_strides || !memcmp(t->strides, lt->strides, sizeof(int64_t) * (size_t)t->t.rank));
  if (!same)
    return fe_error(p, at, "parameter '%.*s' is declared as %s, but the launch passes %s", name.n, name.p,
                    fe_mgx_type_str(t, a, sizeof a), fe_mgx_type_str(lt, b, sizeof b));
  if (v->id >= 0 && !tensor_type_equal(&t->t, v->type))
    return fe_error(p, at, "parameter '%.*s' has type %s, but the launch's operand is %s", name.n, name.p,
                    fe_type_str(&t->t, a, sizeof a), fe_type_str(v->type, b, sizeof b));
  return fe_scope_bind(p, fs, name, v);
}

bool fe_read_launched(fe_parser *p, fe_scope *fs, const fe_func *f, value **args, const fe_mgx_type *types, int n,
                      value **res, int *nres, src_loc at) {
  if (fs->depth == 8) return fe_error(p, at, "'mhal.launch' nests more than 8 deep");
  fn_state cs = {.g = fs->g, .vcap = fs->vcap, .ocap = fs->ocap, .launched = true, .launch_args = args,
                 .nlaunch_args = n, .depth = fs->depth + 1, .launch_types = types, .launch_res = res};
  fe_lexer save = p->lx;
  fe_token tok = p->tok;
  int before = p->d->errors;
  bool ok = parse_fn(p, f, &cs) && p->d->errors == before;
  vt_free(&cs);
  fs->vcap = cs.vcap, fs->ocap = cs.ocap;
  p->lx = save, p->tok = tok;
  if (!ok) return fe_error(p, at, "in the function launched here");
  if (cs.nbound != n)
    return fe_error(p, at, "'mhal.launch' passes %d operands, @%.*s takes %d", n, f->name.n - 1, f->name.p + 1, cs.nbound);
  *nres = cs.nres_types;
  return true;
}

/* ---------------------------------------------------------------- the entry function */
/* `%a: T [{attrs}] [loc], ...` up to the closing ')': the function's arguments. */
static bool parse_args(fe_parser *p, fn_state *fs, int *acap) {
  graph *g = fs->g;
  while (p->tok.kind != T_RPAREN) {
    fe_token nt = p->tok;
    if (nt.kind != T_VALUE)
      return fe_error(p, fe_loc(p, nt), "expected an argument name (%%arg0), found %s", fe_tok_text(p, nt));
    fe_next(p);
    if (!fe_expect(p, T_COLON, "after the argument name")) return false;
    value *v = arena_alloc(p->a, sizeof *v);
    v->is_arg = 1; /* g->args[g->nargs] once defined (a launch parameter stands for argument 0) */
    fe_mgx_type mt = {0};
    src_loc tl = fe_loc(p, p->tok);
    bool shaped = fe_mgx_is_shaped(p);
    tensor_type at = {0}; /* a shaped argument's type is set by fe_mgx_arg */
    if (shaped ? !fe_mgx_parse_type(p, &mt, NULL) : !fe_parse_type(p, &at, NULL)) return false;
    v->type = type_intern(p->a, &at);
    if (!shaped) fe_dyn_arg(p, v, fs->launched ? 0 : g->nargs);
    if (p->tok.kind == T_LBRACE && !fe_skip_group(p)) return false; /* argument attributes */
    fe_skip_loc(p);
    if (fs->launched) {
      if (!shaped) mt.t = *v->type;
      if (!launch_param(p, fs, nt, &mt, tl)) return false;
      if (!fe_accept(p, T_COMMA)) break;
      continue;
    }
    if (!define_value(p, fs, nt, v)) return false;
    v->id = g->nvalues;
    ARENA_PUSH_OWNED(p->a, g->values, g->nvalues, fs->vcap, v);
    ARENA_PUSH(p->a, g->args, g->nargs, *acap, v);
    if (shaped) { /* the argument is the memory layout; its name now stands for the logical view */
      value *logical = fe_mgx_arg(p, fs, v, &mt, tl);
      if (!logical) return false;
      vt_put(fs, v->name, logical);
    }
    if (!fe_accept(p, T_COMMA)) break;
  }
  return true;
}

/* `T` or `(T [{attrs}], ...)` after the '->': the function's results. */
static bool parse_results(fe_parser *p, fn_state *fs) {
  bool paren = fe_accept(p, T_LPAREN);
  int mcap = 0, nmgx = 0, rcap = 0;
  while (!paren || p->tok.kind != T_RPAREN) {
    tensor_type t;
    fe_mgx_type mt = {0};
    if (fe_mgx_is_shaped(p) ? !fe_mgx_parse_type(p, &mt, NULL) : !fe_parse_type(p, &t, NULL)) return false;
    if (mt.has_strides) t = mt.t;
    ARENA_PUSH(p->a, fs->res_mgx, nmgx, mcap, mt);
    ARENA_PUSH(p->a, fs->res_types, fs->nres_types, rcap, t);
    if (!paren) break;
    if (p->tok.kind == T_LBRACE && !fe_skip_group(p)) return false; /* result attributes */
    if (!fe_accept(p, T_COMMA)) break;
  }
  return !paren || fe_expect(p, T_RPAREN, "to close the result types");
}

static bool parse_signature(fe_parser *p, fn_state *fs) {
  int acap = 0;
  if (!fe_expect(p, T_LPAREN, "to start the argument list")) return false;
  if (!parse_args(p, fs, &acap)) return false;
  if (!fe_expect(p, T_RPAREN, "to close the argument list")) return false;
  if (fe_accept(p, T_ARROW) && !parse_results(p, fs)) return false;
  if (fe_tok_is(p, "attributes")) {
    fe_next(p);
    if (p->tok.kind != T_LBRACE || !fe_skip_group(p)) return false;
  }
  return true;
}

/* The generic form: the results from function_type, the arguments from the body's entry block
 * label `^bb0(%a: T, ...):` (their types must be function_type's inputs); leaves the lexer after
 * the label. */
static bool parse_generic_signature(fe_parser *p, const fe_func *f, fn_state *fs) {
  tensor_type in[64];
  src_loc inl[64];
  int nin = 0, acap = 0;
  if (!fe_expect(p, T_LPAREN, "to start the function type")) return false;
  while (p->tok.kind != T_RPAREN) {
    if (nin == 64) return fe_error(p, fe_loc(p, p->tok), "a function takes at most 64 arguments here");
    if (!fe_parse_type(p, &in[nin], &inl[nin])) return false;
    nin++;
    if (!fe_accept(p, T_COMMA)) break;
  }
  if (!fe_expect(p, T_RPAREN, "to close the argument types") || !fe_expect(p, T_ARROW, "in the function type") ||
      !parse_results(p, fs))
    return false;
  p->lx = f->body_lx;
  p->tok = f->body_tok;
  fe_next(p); /* { */
  int before = fs->g->nargs;
  if (p->tok.kind == T_CARET) {
    fe_token label = p->tok;
    fe_next(p);
    if (fe_accept(p, T_LPAREN)) {
      if (!parse_args(p, fs, &acap) || !fe_expect(p, T_RPAREN, "to close the block arguments")) return false;
    }
    if (!fe_expect(p, T_COLON, "after the block label")) return false;
    if (fs->g->nargs - before != nin)
      return fe_error(p, fe_loc(p, label), "the entry block has %d argument%s, but function_type lists %d",
                      fs->g->nargs - before, fs->g->nargs - before == 1 ? "" : "s", nin);
  } else if (nin) {
    return fe_error(p, fe_loc(p, p->tok), "expected the entry block's label ^bb0(...) with the %d argument%s",
                    nin, nin == 1 ? "" : "s");
  }
  for (int i = 0; i < nin && !fs->launched; i++) {
    char a[160], b[160];
    const value *v = fs->g->args[before + i];
    if (!tensor_type_equal(&in[i], v->type))
      return fe_error(p, inl[i], "function_type lists argument %d as %s, but the entry block's '%%%s' is %s", i,
                      fe_type_str(&in[i], a, sizeof a), name_str(v->name, (char[VALUE_NAME_MAX]){0}),
                      fe_type_str(v->type, b, sizeof b));
  }
  return true;
}

static bool parse_entry(fe_parser *p, const fe_func *f, graph *g) {
  fn_state fs = {.g = g};
  bool ok = parse_fn(p, f, &fs);
  vt_free(&fs);
  return ok;
}

/* A function's signature and body into fs: the entry function, or one read in place of an
 * mhal.launch. */
static bool parse_fn(fe_parser *p, const fe_func *f, fn_state *fs) {
  p->lx = f->sig_lx;
  p->tok = f->sig_tok;
  fe_token open = f->body_tok;
  if (f->generic ? !parse_generic_signature(p, f, fs) : !parse_signature(p, fs)) return false;
  if (!fe_dyn_signature(p, fs->g, fe_loc(p, f->name))) return false;
  if (!f->generic && (open = p->tok, !fe_expect(p, T_LBRACE, "to open the function body"))) return false;
  bool done = false;
  while (!done && !p->fatal) {
    if (p->tok.kind == T_RBRACE) {
      return fe_error(p, fe_loc(p, p->tok), "function @%.*s ends without func.return", f->name.n - 1, f->name.p + 1);
    }
    if (p->tok.kind == T_EOF) {
      return fe_unterminated(p, open, "function body");
    }
    int line = p->tok.line;
    if (!parse_op(p, fs, &done) && !done) recover(p, line);
  }
  return !p->fatal;
}

/* Unused constants leave the graph (also those whose only reader took them as attributes);
 * ids are renumbered densely. */
static void drop_unused_consts(graph *g) {
  int no = 0;
  for (int i = 0; i < g->nops; i++) {
    op *o = g->ops[i];
    if (op_table[o->kind].family == FAM_CONST && !o->results[0]->used) {
      o->results[0]->id = -1;
      continue;
    }
    o->id = no;
    g->ops[no++] = o;
  }
  g->nops = no;
  int nv = 0;
  for (int i = 0; i < g->nvalues; i++) {
    if (g->values[i]->id < 0) continue;
    g->values[i]->id = nv;
    g->values[nv++] = g->values[i];
  }
  g->nvalues = nv;
}

struct fe_module {
  fe_parser p; /* just after the scan: aliases, resources, functions */
  fe_top ts;
  fe_lex_memo memo; /* long strings the scan saw: every function's pass steps over them */
};

fe_module *fe_open(arena *a, const source_file *src, diag_sink *d) {
  fe_module *m = arena_alloc(a, sizeof *m);
  /* sign_names: ui8 / ui16 read as i8 / i16 where tosa.rescale takes them (parse_op) */
  *m = (fe_module){.p = {.a = a, .src = src, .d = d, .sign_names = true}, .memo = {.a = a}};
  fe_lex_init(&m->p.lx, src, d);
  m->p.lx.memo = &m->memo;
  int before = d->errors;
  if (!fe_scan_top(&m->p, &m->ts) || d->errors != before) return NULL;
  m->p.top = &m->ts;
  return m;
}

int fe_entry_names(fe_module *m, const fe_options *opt, const char ***names) {
  return fe_list_entries(&m->p, &m->ts, opt, names);
}

graph *fe_parse_function(fe_module *m, const fe_options *opt) {
  fe_parser p = m->p; /* per function: its own '?' dimensions and nesting counts */
  p.opt = opt;
  p.dyn = NULL, p.ndyn = p.dyncap = 0;
  diag_sink *d = p.d;
  int before = d->errors;
  const fe_func *f = fe_choose_entry(&p, &m->ts, opt);
  if (!f) return NULL;
  graph *g = arena_alloc(p.a, sizeof *g);
  g->arena = p.a;
  g->file = p.src;
  g->entry = arena_strndup(p.a, f->name.p + 1, (size_t)f->name.n - 1);
  if (f->arch.kind == T_STRING && f->arch.n > 2) g->arch = arena_strndup(p.a, f->arch.p + 1, (size_t)f->arch.n - 2);
  if (!parse_entry(&p, f, g) || d->errors != before || !fe_dyn_finish(&p, g)) return NULL;
  fe_xd_fold_pads(g); /* dialect_tensor.c */
  drop_unused_consts(g);
  if (!fe_fold_control(g, d)) return NULL; /* fold_control.c: constant cond_if / while_loop */
  return g;
}

graph *fe_parse(arena *a, const source_file *src, const fe_options *opt, diag_sink *d) {
  fe_module *m = fe_open(a, src, d);
  return m ? fe_parse_function(m, opt) : NULL;
}
