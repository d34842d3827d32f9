/* lexer.c: turns MLIR text into tokens, on demand, keeping line and column for diagnostics. */
#include "frontend/frontend.h"

#include <limits.h>
#include <string.h>

void fe_lex_init(fe_lexer *lx, const source_file *src, diag_sink *d) {
  lx->src = src;
  lx->d = d;
  lx->p = src->text;
  lx->end = src->text + src->len;
  lx->line_start = src->text;
  lx->released = src->text;
  lx->line = 1;
  lx->memo = NULL;
}

static bool is_id_start(int c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_'; }
static bool is_digit(int c) { return c >= '0' && c <= '9'; }
static bool is_hex(int c) { return is_digit(c) || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F'); }
static bool is_id_char(int c) { return is_id_start(c) || is_digit(c) || c == '.' || c == '$'; }
/* %names also allow '-' (MLIR suffix-id). */
static bool is_suffix_char(int c) { return is_id_char(c) || c == '-'; }

static void skip_space(fe_lexer *lx) {
  while (lx->p < lx->end) {
    char c = *lx->p;
    if (c == '\n') {
      lx->p++;
      lx->line++;
      lx->line_start = lx->p;
      /* Text already read is dropped every few MB: a million-op file's 65 MB would otherwise
       * stay resident through the whole compile. A token or diagnostic that reads it again
       * faults it back in from the file (source_release). */
      if (lx->src->mapped && lx->p - lx->released >= FE_RELEASE_STEP)
        lx->released = source_release(lx->src, lx->released, lx->p);
    } else if (c == ' ' || c == '\t' || c == '\r' || c == '\f' || c == '\v') {
      lx->p++;
    } else if (c == '/' && lx->p + 1 < lx->end && lx->p[1] == '/') {
      while (lx->p < lx->end && *lx->p != '\n') lx->p++;
    } else {
      break;
    }
  }
}

static fe_token make(fe_lexer *lx, fe_tok_kind k, const char *start, int line, int col) {
  return (fe_token){.kind = k, .p = start, .n = (int)(lx->p - start), .line = line, .col = col};
}

static fe_token lex_number(fe_lexer *lx, const char *start, int line, int col) {
  const char *s = lx->p;
  if (*s == '-') s++;
  if (s[0] == '0' && (s[1] == 'x' || s[1] == 'X') && s + 2 < lx->end && is_hex((unsigned char)s[2])) {
    s += 2;
    while (s < lx->end && is_hex((unsigned char)*s)) s++;
    lx->p = s;
    return make(lx, T_INT, start, line, col);
  }
  while (s < lx->end && is_digit(*s)) s++;
  bool is_float = false;
  if (s < lx->end && *s == '.') {
    is_float = true;
    s++;
    while (s < lx->end && is_digit(*s)) s++;
  }
  if (s < lx->end && (*s == 'e' || *s == 'E')) {
    const char *e = s + 1;
    if (e < lx->end && (*e == '+' || *e == '-')) e++;
    if (e < lx->end && is_digit(*e)) {
      is_float = true;
      while (e < lx->end && is_digit(*e)) e++;
      s = e;
    }
  }
  lx->p = s;
  return make(lx, is_float ? T_FLOAT : T_INT, start, line, col);
}

/* ---------------------------------------------------------------- string literals */
const fe_long_string *fe_lex_long_string(const fe_lexer *lx, const char *start) {
  const fe_lex_memo *m = lx->memo;
  if (!m || !m->n) return NULL;
  int lo = 0, hi = m->n;
  while (lo < hi) {
    int mid = lo + (hi - lo) / 2;
    if (m->v[mid].start < start) lo = mid + 1;
    else hi = mid;
  }
  return lo < m->n && m->v[lo].start == start ? &m->v[lo] : NULL;
}

/* A long string seen for the first time: decode it now if it is hex, and remember it. */
static void remember_long(fe_lexer *lx, const char *start, const char *end) {
  fe_lex_memo *m = lx->memo;
  const char *d = start + 1;
  size_t len = (size_t)(end - 1 - d);
  if (!m || (m->n && m->v[m->n - 1].start >= start)) { /* kept sorted: the first pass runs forward */
    source_release(lx->src, d, end);
    return;
  }
  fe_long_string ls = {.start = start, .end = end};
  if (d[0] == '0' && (d[1] == 'x' || d[1] == 'X') && len % 2 == 0) {
    ls.nbytes = (len - 2) / 2;
    ls.bytes = arena_alloc_raw(m->a, ls.nbytes ? ls.nbytes : 1); /* every byte is written */
    ls.valid = fe_hex_decode(lx->src, d + 2, ls.nbytes, ls.bytes);
  } else {
    source_release(lx->src, d, end);
  }
  ARENA_PUSH(m->a, m->v, m->n, m->cap, ls);
}

/* Chunks small enough to stay in cache between the three memchr scans. */
#define SCAN_CHUNK (256 * 1024)

/* The closing quote of a string that has no newline or escape before it, or NULL (the caller's
 * slow path handles those, and unterminated strings). Long strings are scanned chunk by chunk
 * and their pages released behind the scan, so a 100 MB constant never is resident at once. */
static const char *scan_plain(fe_lexer *lx, const char *s) {
  const char *low = s; /* released below this mark */
  for (const char *p = s; p < lx->end;) {
    size_t n = (size_t)(lx->end - p) < SCAN_CHUNK ? (size_t)(lx->end - p) : SCAN_CHUNK;
    const char *q = memchr(p, '"', n);
    size_t m = q ? (size_t)(q - p) : n;
    if (memchr(p, '\n', m) || memchr(p, '\\', m)) return NULL;
    if (q) return q; /* the caller releases the rest once it is decoded */
    p += n;
    if (p - low >= FE_RELEASE_STEP) low = source_release(lx->src, low, p);
  }
  return NULL;
}

static fe_token lex_string(fe_lexer *lx, const char *start, int line, int col) {
  const fe_long_string *known = fe_lex_long_string(lx, start);
  if (known) {
    lx->p = known->end; /* no newline inside: line and column stay right */
    return make(lx, T_STRING, start, line, col);
  }
  lx->p = start + 1;
  const char *q = scan_plain(lx, lx->p);
  if (q) {
    if (q - start >= INT_MAX) {
      lx->p = q + 1;
      diag_error(lx->d, src_loc_at(lx->src, line, col), "string literal is longer than 2 GiB");
      return make(lx, T_ERROR, start, line, col);
    }
    lx->p = q + 1;
    if (lx->p - start >= FE_LONG_STRING) remember_long(lx, start, lx->p);
    return make(lx, T_STRING, start, line, col);
  }
  while (lx->p < lx->end && *lx->p != '"' && *lx->p != '\n') {
    if (*lx->p == '\\' && lx->p + 1 < lx->end && lx->p[1] != '\n') lx->p++;
    lx->p++;
  }
  if (lx->p >= lx->end || *lx->p != '"') {
    diag_error(lx->d, src_loc_at(lx->src, line, col), "unterminated string literal");
    return make(lx, T_ERROR, start, line, col);
  }
  lx->p++;
  return make(lx, T_STRING, start, line, col);
}

fe_token fe_lex(fe_lexer *lx) {
  skip_space(lx);
  const char *start = lx->p;
  int line = lx->line, col = (int)(lx->p - lx->line_start) + 1;
  if (lx->p >= lx->end) return make(lx, T_EOF, start, line, col);
  unsigned char c = (unsigned char)*lx->p;
  const char *nx = lx->p + 1;
  if (is_id_start(c)) {
    while (lx->p < lx->end && is_id_char((unsigned char)*lx->p)) lx->p++;
    return make(lx, T_IDENT, start, line, col);
  }
  if (is_digit(c) || (c == '-' && nx < lx->end && is_digit((unsigned char)*nx)))
    return lex_number(lx, start, line, col);
  if (c == '%' || c == '@' || c == '!' || c == '^' || (c == '#' && !(nx < lx->end && *nx == '-'))) {
    lx->p++;
    if (c == '@' && lx->p < lx->end && *lx->p == '"') {
      /* @"quoted name" */
      lx->p++;
      while (lx->p < lx->end && *lx->p != '"' && *lx->p != '\n') lx->p++;
      if (lx->p < lx->end && *lx->p == '"') lx->p++;
      return make(lx, T_SYMBOL, start, line, col);
    }
    while (lx->p < lx->end && is_suffix_char((unsigned char)*lx->p) && !(c != '%' && *lx->p == '-'))
      lx->p++;
    if (c == '%' && lx->p + 1 < lx->end && *lx->p == '#' && is_digit((unsigned char)lx->p[1])) {
      lx->p++;
      while (lx->p < lx->end && is_digit((unsigned char)*lx->p)) lx->p++;
    }
    if (lx->p == start + 1) {
      diag_error(lx->d, src_loc_at(lx->src, line, col), "expected a name after '%c'", c);
      return make(lx, T_ERROR, start, line, col);
    }
    fe_tok_kind k = c == '%' ? T_VALUE : c == '@' ? T_SYMBOL : c == '!' ? T_BANG : c == '^' ? T_CARET : T_HASH;
    return make(lx, k, start, line, col);
  }
  if (c == '"') return lex_string(lx, start, line, col);
  if (c == '{' && nx + 1 < lx->end && nx[0] == '-' && nx[1] == '#') {
    lx->p += 3;
    return make(lx, T_META_BEGIN, start, line, col);
  }
  if (c == '#' && nx + 1 < lx->end && nx[0] == '-' && nx[1] == '}') {
    lx->p += 3;
    return make(lx, T_META_END, start, line, col);
  }
  if (c == '-' && nx < lx->end && *nx == '>') {
    lx->p += 2;
    return make(lx, T_ARROW, start, line, col);
  }
  static const struct {
    char ch;
    fe_tok_kind k;
  } punct[] = {{'(', T_LPAREN},   {')', T_RPAREN},   {'{', T_LBRACE}, {'}', T_RBRACE},
               {'[', T_LBRACKET}, {']', T_RBRACKET}, {'<', T_LANGLE}, {'>', T_RANGLE},
               {',', T_COMMA},    {':', T_COLON},    {'=', T_EQUAL},  {'?', T_QUESTION},
               {'*', T_STAR},     {'+', T_PLUS}};
  for (size_t i = 0; i < sizeof punct / sizeof punct[0]; i++) {
    if (punct[i].ch == (char)c) {
      lx->p++;
      return make(lx, punct[i].k, start, line, col);
    }
  }
  lx->p++;
  if (c >= 0x20 && c < 0x7f)
    diag_error(lx->d, src_loc_at(lx->src, line, col), "unexpected character '%c'", c);
  else
    diag_error(lx->d, src_loc_at(lx->src, line, col), "unexpected byte 0x%02X", c);
  return make(lx, T_ERROR, start, line, col);
}

const char *fe_tok_desc(fe_tok_kind k) {
  static const char *const names[] = {
      [T_EOF] = "end of file",     [T_ERROR] = "invalid token",   [T_IDENT] = "identifier",
      [T_VALUE] = "value name",     [T_SYMBOL] = "symbol name",    [T_HASH] = "'#' alias",
      [T_BANG] = "'!' type",        [T_CARET] = "block label",        [T_STRING] = "string",         [T_INT] = "integer",
      [T_FLOAT] = "float",          [T_LPAREN] = "'('",            [T_RPAREN] = "')'",
      [T_LBRACE] = "'{'",           [T_RBRACE] = "'}'",            [T_LBRACKET] = "'['",
      [T_RBRACKET] = "']'",         [T_LANGLE] = "'<'",            [T_RANGLE] = "'>'",
      [T_COMMA] = "','",            [T_COLON] = "':'",             [T_EQUAL] = "'='",
      [T_ARROW] = "'->'",           [T_QUESTION] = "'?'",          [T_STAR] = "'*'",            [T_PLUS] = "'+'",
      [T_META_BEGIN] = "'{-#'",     [T_META_END] = "'#-}'",
  };
  return names[k];
}
