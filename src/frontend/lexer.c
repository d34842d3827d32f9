/* lexer.c: turns MLIR text into tokens, on demand, keeping line and column for diagnostics. */
#include "frontend/frontend.h"

#include <string.h>

void fe_lex_init(fe_lexer *lx, const source_file *src, diag_sink *d) {
  lx->src = src;
  lx->d = d;
  lx->p = src->text;
  lx->end = src->text + src->len;
  lx->line_start = src->text;
  lx->line = 1;
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
      diag_error(lx->d, (src_loc){lx->src, line, col}, "expected a name after '%c'", c);
      return make(lx, T_ERROR, start, line, col);
    }
    fe_tok_kind k = c == '%' ? T_VALUE : c == '@' ? T_SYMBOL : c == '!' ? T_BANG : c == '^' ? T_CARET : T_HASH;
    return make(lx, k, start, line, col);
  }
  if (c == '"') {
    lx->p++;
    /* Fast path for long hex literals: find the closing quote with memchr, then make sure no
     * newline or escape lies before it (both are rare; the loop below handles them). */
    const char *q = memchr(lx->p, '"', (size_t)(lx->end - lx->p));
    if (q && !memchr(lx->p, '\n', (size_t)(q - lx->p)) && !memchr(lx->p, '\\', (size_t)(q - lx->p))) {
      lx->p = q + 1;
      return make(lx, T_STRING, start, line, col);
    }
    while (lx->p < lx->end && *lx->p != '"' && *lx->p != '\n') {
      if (*lx->p == '\\' && lx->p + 1 < lx->end && lx->p[1] != '\n') lx->p++;
      lx->p++;
    }
    if (lx->p >= lx->end || *lx->p != '"') {
      diag_error(lx->d, (src_loc){lx->src, line, col}, "unterminated string literal");
      return make(lx, T_ERROR, start, line, col);
    }
    lx->p++;
    return make(lx, T_STRING, start, line, col);
  }
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
               {'*', T_STAR}};
  for (size_t i = 0; i < sizeof punct / sizeof punct[0]; i++) {
    if (punct[i].ch == (char)c) {
      lx->p++;
      return make(lx, punct[i].k, start, line, col);
    }
  }
  lx->p++;
  if (c >= 0x20 && c < 0x7f)
    diag_error(lx->d, (src_loc){lx->src, line, col}, "unexpected character '%c'", c);
  else
    diag_error(lx->d, (src_loc){lx->src, line, col}, "unexpected byte 0x%02X", c);
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
      [T_ARROW] = "'->'",           [T_QUESTION] = "'?'",          [T_STAR] = "'*'",
      [T_META_BEGIN] = "'{-#'",     [T_META_END] = "'#-}'",
  };
  return names[k];
}
