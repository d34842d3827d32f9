/* diag.c: clang-style diagnostics pointing into the source with a caret. */
#include "tosac.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

/* The source-file registry behind src_loc's 6-bit file slot. Lookups scan without a lock (a
 * compile has one or two files); claiming and freeing a slot take the mutex. */
static const source_file *_Atomic src_slots[SRC_LOC_MAX_FILES + 1];
static pthread_mutex_t src_slots_lock = PTHREAD_MUTEX_INITIALIZER;

static unsigned src_slot_find(const source_file *f) {
  for (unsigned i = 1; i <= SRC_LOC_MAX_FILES; i++)
    if (atomic_load_explicit(&src_slots[i], memory_order_acquire) == f)
      return i;
  return 0;
}

static unsigned src_slot_claim(const source_file *f) {
  pthread_mutex_lock(&src_slots_lock);
  unsigned i = src_slot_find(f);
  for (unsigned k = 1; !i && k <= SRC_LOC_MAX_FILES; k++)
    if (!atomic_load_explicit(&src_slots[k], memory_order_relaxed)) {
      atomic_store_explicit(&src_slots[k], f, memory_order_release);
      i = k;
    }
  pthread_mutex_unlock(&src_slots_lock);
  return i;
}

src_loc src_loc_at(const source_file *f, int line, int col) {
  src_loc l = {0};
  if (!f)
    return l;
  unsigned i = src_slot_find(f);
  l.fidx = i ? i : src_slot_claim(f);
  l.line = (unsigned)(line < 0 ? 0 : line > SRC_LOC_MAX_LINE ? SRC_LOC_MAX_LINE : line);
  l.col = col;
  return l;
}

const source_file *src_loc_file(src_loc loc) {
  return loc.fidx ? atomic_load_explicit(&src_slots[loc.fidx], memory_order_acquire) : NULL;
}

void source_forget(const source_file *f) {
  pthread_mutex_lock(&src_slots_lock);
  unsigned i = f ? src_slot_find(f) : 0;
  if (i)
    atomic_store_explicit(&src_slots[i], NULL, memory_order_release);
  pthread_mutex_unlock(&src_slots_lock);
}

void diag_init(diag_sink *d, FILE *out) {
  d->out = out;
  d->errors = 0;
  d->max_errors = 20;
  d->record = NULL;
  d->record_ctx = NULL;
}

static void print_source_line(FILE *out, const source_file *f, src_loc loc) {
  const char *t = f->text, *end = t + f->len;
  for (int line = 1; line < (int)loc.line && t < end; t++)
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
  const source_file *f = src_loc_file(loc);
  char *msg = NULL;
  if (vasprintf(&msg, fmt, ap) < 0)
    msg = NULL;
  if (f)
    fprintf(out, "%s:%d:%d: %s: ", f->path, (int)loc.line, loc.col, kind);
  else
    fprintf(out, "tosac: %s: ", kind);
  fputs(msg ? msg : "(out of memory formatting a diagnostic)", out);
  fputc('\n', out);
  if (d->record)
    d->record(d->record_ctx, loc, kind, msg ? msg : "");
  free(msg);
  if (f && loc.line > 0)
    print_source_line(out, f, loc);
  if (is_error && d->errors == limit)
    fprintf(out, "tosac: note: too many errors emitted, stopping now\n");
}

void diag_error(diag_sink *d, src_loc loc, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  diag_verror(d, loc, "error", fmt, ap);
  va_end(ap);
}

void diag_warning(diag_sink *d, src_loc loc, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  diag_verror(d, loc, "warning", fmt, ap);
  va_end(ap);
}

void diag_note(diag_sink *d, src_loc loc, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  diag_verror(d, loc, "note", fmt, ap);
  va_end(ap);
}
