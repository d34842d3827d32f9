/* optimize.c: the pass list and the loop that runs it. */
#include "optimize.h"

#include <string.h>

typedef struct pass_row {
  const char *name;
  bool (*run)(opt_ctx *c);
} pass_row;

/* In running order: folding first makes constants the later passes can see
 * through; layout before cleanup so the transposes it cancels leave dead ops
 * behind. */
static const pass_row passes[OPT_NPASSES] = {
    [OPT_FOLD_CONSTANTS] = {"fold-constants", opt_fold_constants},
    [OPT_FOLD_BATCHNORM] = {"fold-batchnorm", opt_fold_batchnorm},
    [OPT_PROPAGATE_LAYOUT] = {"propagate-layout", opt_propagate_layout},
    [OPT_CLEANUP] = {"cleanup", opt_cleanup},
};

/* Rounds of the whole list: each round runs every pass once; a graph stops
 * changing after a few (a transpose moves one op per round at worst, so long
 * chains take more). */
#define OPT_MAX_ROUNDS 64

const char *opt_pass_name(opt_pass_id p) {
  return p < OPT_NPASSES ? passes[p].name : "?";
}

int opt_pass_lookup(const char *name) {
  for (int p = 0; p < OPT_NPASSES; p++)
    if (!strcmp(passes[p].name, name))
      return p;
  return -1;
}

void opt_defaults(opt_options *o, int level) {
  *o = (opt_options){.fold_max_bytes = 64 << 20, .fold_max_growth = 200};
  for (int p = 0; p < OPT_NPASSES; p++)
    o->enabled[p] = level > 0;
}

bool opt_graph(graph *g, const opt_options *o, opt_report *rep, diag_sink *d) {
  bool any = false;
  for (int p = 0; p < OPT_NPASSES; p++)
    any |= o->enabled[p];
  if (rep) {
    rep->ops_before = g->nops;
    rep->const_bytes_before = opt_const_bytes(g);
  }
  if (!any || !g->nops) {
    if (rep)
      rep->ops_after = g->nops,
      rep->const_bytes_after = rep->const_bytes_before;
    return true;
  }
  opt_ctx c;
  opt_ctx_init(&c, g, o, rep, d);
  int errors = d->errors;
  bool changed = true;
  for (int round = 0; changed && round < OPT_MAX_ROUNDS; round++) {
    changed = false;
    for (int p = 0; p < OPT_NPASSES; p++) {
      if (!o->enabled[p])
        continue;
      c.pass = (opt_pass_id)p;
      c.changed = false;
      if (!passes[p].run(&c) || d->errors != errors) {
        opt_ctx_free(&c);
        return false;
      }
      if (c.changed) {
        opt_commit(&c);
        changed = true;
      }
    }
  }
  opt_ctx_free(&c);
  if (rep) {
    rep->ops_after = g->nops;
    rep->const_bytes_after = opt_const_bytes(g);
  }
  return true;
}

void opt_print_report(FILE *out, const opt_report *rep) {
  fprintf(out, "# optimize: %d ops -> %d, constant bytes %lld -> %lld\n",
          rep->ops_before, rep->ops_after, (long long)rep->const_bytes_before,
          (long long)rep->const_bytes_after);
  for (int i = 0; i < rep->nlines; i++) {
    const opt_line *l = &rep->lines[i];
    fprintf(out, "# %s: ", opt_pass_name(l->pass));
    if (l->loc.line)
      fprintf(out, "%d:%d: ", l->loc.line, l->loc.col);
    fprintf(out, "%s\n", l->text);
  }
}
