/* diag.c: clang-style diagnostics pointing into the source with a caret. */
#include "tosac.h"

#include <stdlib.h>
#include <string.h>

void diag_init(diag_sink *d, FILE *out) {
  d->out = out;
  d->errors = 0;
  d->max_errors = 20;
  d->record = NULL;
  d->record_ctx = NULL;
}

static void print_source_line(FILE *out, src_loc loc) {
  const char *t = loc.file->text, *end = t + loc.file->len;
  for (int line = 1; line < loc.line && t < end; t++)
    if (*t == '\n')
      line++;
  const char *eol = memchr(t, '\n', (size_t)(end - t));
  if (!eol)
    eol = end;
  fprintf(out, "%.*s\n", (int)(eol - t), t);
  /* Keep tabs so the caret lines up under tab-indented source. */
  for (int i = 1; i < loc.col && t + i - 1 < eol; i++)
    fputc(t[i - 1] == '\t' ? '\t' : ' ', out);
  fputs("^\n", out);
}

void diag_verror(diag_sink *d, src_loc loc, const char *kind, const char *fmt, va_list ap) {
  FILE *out = d->out ? d->out : stderr;
  bool is_error = strcmp(kind, "error") == 0;
  int limit = d->max_errors > 0 ? d->max_errors : 20;
  if (is_error) {
    d->errors++;
    if (d->errors > limit)
      return;
  } else if (d->errors > limit) {
    return;
  }
  char *msg = NULL;
  if (vasprintf(&msg, fmt, ap) < 0)
    msg = NULL;
  if (loc.file)
    fprintf(out, "%s:%d:%d: %s: ", loc.file->path, loc.line, loc.col, kind);
  else
    fprintf(out, "tosac: %s: ", kind);
  fputs(msg ? msg : "(out of memory formatting a diagnostic)", out);
  fputc('\n', out);
  if (d->record)
    d->record(d->record_ctx, loc, kind, msg ? msg : "");
  free(msg);
  if (loc.file && loc.line > 0)
    print_source_line(out, loc);
  if (is_error && d->errors == limit)
    fprintf(out, "tosac: note: too many errors emitted, stopping now\n");
}

void diag_error(diag_sink *d, src_loc loc, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  diag_verror(d, loc, "error", fmt, ap);
  va_end(ap);
}

void diag_note(diag_sink *d, src_loc loc, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  diag_verror(d, loc, "note", fmt, ap);
  va_end(ap);
}
