/* fold.c: the "fold-constants" pass (docs/optimize.md). An op whose operands
 * are all constants becomes a constant holding its result, computed by the
 * reference evaluator (eval.c), within the size bounds below. Constants
 * nothing reads any more go at commit. */
#include "optimize.h"
#include "optimize/eval.h"

#include <string.h>

/* A result this small always folds (shapes, broadcast scalars, a batch norm's
 * per-channel vectors), whatever it expands from; the growth budget has this
 * much room on top of its share of the input's constants. */
#define FOLD_SMALL_BYTES 65536
/* A larger result stores at most this many times the elements its constant
 * operands store together: a transpose, cast or slice of a weight folds, a
 * broadcast or tile of a small constant into a large one stays a kernel. */
#define FOLD_MAX_EXPANSION 2

static int64_t stored_elems(const dense_data *d) {
  return d->splat ? 1 : tensor_numel(&d->type);
}

/* Bytes of the constants something still reads. */
static int64_t live_const_bytes(opt_ctx *c) {
  int64_t n = 0;
  for (int i = 0; i < c->g->nops; i++) {
    const op *o = c->g->ops[i];
    const dense_data *d = o->nresults ? opt_const_data(o->results[0]) : NULL;
    if (d && c->uses[o->results[0]->id])
      n += (int64_t)d->nbytes;
  }
  return n;
}

/* A note for an op the bounds keep, once (the pass runs every round). */
static void note_kept(opt_ctx *c, const op *o, const char *why) {
  char text[256];
  snprintf(text, sizeof text, "kept %s: %s", op_table[o->kind].name, why);
  for (int i = c->rep ? c->rep->nlines - 1 : -1; i >= 0; i--) {
    const opt_line *l = &c->rep->lines[i];
    if (l->pass == c->pass && l->loc.line == o->loc.line &&
        l->loc.col == o->loc.col && l->loc.fidx == o->loc.fidx &&
        !strcmp(l->text, text))
      return;
  }
  opt_note(c, o->loc, "%s", text);
}

/* Bytes freed when o stops reading its operands: constants o is the only
 * reader of (each counted once). */
static int64_t freed_bytes(opt_ctx *c, value **ops, const dense_data **in,
                           int n) {
  int64_t freed = 0;
  for (int j = 0; j < n; j++) {
    bool first = true;
    int k = 0;
    for (int m = 0; m < n; m++)
      if (ops[m] == ops[j])
        k++, first &= m >= j;
    if (first && k == c->uses[ops[j]->id] && !c->pinned[ops[j]->id])
      freed += (int64_t)in[j]->nbytes;
  }
  return freed;
}

static void fold_op(opt_ctx *c, op *o, int64_t *live, int64_t budget) {
  value *r = o->results[0];
  int n = o->noperands;
  for (int j = 0; j < n; j++) /* most ops read a value that is not constant */
    if (!opt_const_data(opt_get(c, o->operands[j])))
      return;
  value **ops = arena_alloc(c->a, sizeof(value *) * (size_t)n);
  const dense_data **in = arena_alloc(c->a, sizeof *in * (size_t)n);
  int64_t in_elems = 0;
  bool all_splat = true;
  for (int j = 0; j < n; j++) {
    ops[j] = opt_get(c, o->operands[j]);
    if (!(in[j] = opt_const_data(ops[j])))
      return;
    in_elems += stored_elems(in[j]);
    all_splat &= in[j]->splat;
  }
  char why[160];
  int64_t bytes = tensor_bytes(r->type);
  if (!all_splat && bytes > c->o->fold_max_bytes) {
    snprintf(why, sizeof why,
             "its result of %lld bytes is over the %lld-byte bound",
             (long long)bytes, (long long)c->o->fold_max_bytes);
    note_kept(c, o, why);
    return;
  }
  const dense_data *d = ev_op(c->a, o, in);
  if (!d)
    return;
  if ((int64_t)d->nbytes > FOLD_SMALL_BYTES &&
      stored_elems(d) > FOLD_MAX_EXPANSION * in_elems) {
    snprintf(why, sizeof why,
             "its result of %lld elements expands the %lld constant elements "
             "it reads",
             (long long)stored_elems(d), (long long)in_elems);
    note_kept(c, o, why);
    return;
  }
  int64_t grow = (int64_t)d->nbytes - freed_bytes(c, ops, in, n);
  if (grow > 0 && *live + grow > budget) {
    snprintf(why, sizeof why,
             "the constants would grow to %lld bytes, over the %lld-byte "
             "budget",
             (long long)(*live + grow), (long long)budget);
    note_kept(c, o, why);
    return;
  }
  *live += grow;
  bool fresh = true; /* not a view of an operand's bytes (reshape) */
  for (int j = 0; j < n; j++)
    fresh &= d->bytes != in[j]->bytes;
  if (fresh)
    opt_note_fresh(c, d);
  for (int j = 0; j < n; j++)
    c->uses[ops[j]->id]--;
  for (int j = 0; j < n; j++) /* a weight's transpose: the input goes now */
    if (d->bytes != in[j]->bytes)
      opt_release_if_dead(c, ops[j]);
  value *k = opt_add_const(c, o, d, o->loc);
  c->uses[k->id] = c->uses[r->id];
  opt_replace(c, r, k);
  char tb[160];
  opt_note(c, o->loc, "folded %s of constants into a constant %s",
           op_table[o->kind].name, tensor_type_str(r->type, tb, sizeof tb));
}

bool opt_fold_constants(opt_ctx *c) {
  opt_count_uses(c);
  int64_t live = live_const_bytes(c);
  int64_t budget =
      c->const_bytes_input * c->o->fold_max_growth / 100 + FOLD_SMALL_BYTES;
  for (int i = 0; i < c->g->nops; i++) {
    op *o = c->g->ops[i];
    if (ev_supported(o) && c->uses[o->results[0]->id])
      fold_op(c, o, &live, budget);
  }
  return true;
}
