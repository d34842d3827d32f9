/* dynamic.c: '?' dimensions of the entry's arguments. Each compile specialises them
 * (--specialize=ARG:DIM=V), and dimensions the TOSA shape rules tie to a known one (the
 * operands of an elementwise op, matmul's batch, concat's other axes) take its value, so a
 * dynamic batch is named once. Result types written with '?' take the inferred shape
 * (fe_check_result). Nothing here runs for a graph without '?'. */
#include "frontend/frontend.h"

#include <stdlib.h>
#include <string.h>

bool fe_type_matches(const tensor_type *declared, const tensor_type *actual) {
  if (declared->elem != actual->elem || declared->rank != actual->rank) return false;
  for (int i = 0; i < declared->rank; i++)
    if (declared->dims[i] != actual->dims[i] && declared->dims[i] != FE_DYNAMIC_DIM &&
        actual->dims[i] != FE_DYNAMIC_DIM)
      return false;
  return true;
}

void fe_dyn_arg(fe_parser *p, value *v, int index) {
  for (int d = 0; d < v->type->rank; d++) {
    if (v->type->dims[d] != FE_DYNAMIC_DIM) continue;
    fe_dyn_dim x = {.arg = v, .index = index, .dim = d, .loc = p->dyn_loc[d]};
    ARENA_PUSH(p->a, p->dyn, p->ndyn, p->dyncap, x);
  }
}

static value *find_arg(const graph *g, const char *name) {
  char *end;
  long idx = strtol(name, &end, 10);
  if (*name && !*end) return idx >= 0 && idx < g->nargs ? g->args[idx] : NULL;
  for (int i = 0; i < g->nargs; i++)
    if (name_equal(g->args[i]->name, name, strlen(name))) return g->args[i];
  return NULL;
}

static const char *arg_list(fe_parser *p, const graph *g) {
  char *s = arena_strdup(p->a, "");
  for (int i = 0; i < g->nargs; i++) s = arena_printf(p->a, "%s%s%%%s", s, i ? ", " : "", VALUE_NAME(g->args[i]));
  return g->nargs ? s : "none";
}

bool fe_dyn_signature(fe_parser *p, graph *g, src_loc fn_loc) {
  const fe_options *o = p->opt;
  bool ok = true;
  if (o && o->specialize_if_dynamic && p->ndyn == 0) return true; /* a static entry among several */
  for (int i = 0; o && i < o->nspecialize; i++) {
    const fe_dim_value *s = &o->specialize[i];
    value *v = find_arg(g, s->arg);
    char tb[160];
    if (!v) {
      ok = fe_error(p, fn_loc, "--specialize=%s:%d: @%s has no argument '%s' (arguments: %s)", s->arg, s->dim,
                    g->entry, s->arg, arg_list(p, g));
      continue;
    }
    if (s->dim < 0 || s->dim >= v->type->rank) {
      ok = fe_error(p, v->loc, "--specialize=%s:%d: argument '%%%s' (%s) has no dimension %d", s->arg, s->dim,
                    VALUE_NAME(v), fe_type_str(v->type, tb, sizeof tb), s->dim);
      continue;
    }
    bool dynamic = false;
    for (int k = 0; k < p->ndyn; k++) dynamic |= p->dyn[k].arg == v && p->dyn[k].dim == s->dim;
    if (!dynamic) {
      ok = fe_error(p, v->loc, "--specialize=%s:%d: dimension %d of argument '%%%s' (%s) is static; only '?' "
                    "dimensions take values", s->arg, s->dim, s->dim, VALUE_NAME(v), fe_type_str(v->type, tb, sizeof tb));
      continue;
    }
    tensor_type t = *v->type;
    t.dims[s->dim] = s->value;
    v->type = type_intern(p->a, &t);
  }
  return ok;
}

static bool unresolved_error(fe_parser *p, const value *v, int d, const op *user) {
  src_loc at = v->loc;
  for (int k = 0; k < p->ndyn; k++)
    if (p->dyn[k].arg == v && p->dyn[k].dim == d) at = p->dyn[k].loc;
  fe_error(p, at, "dynamic dimension %d of argument '%%%s' has no value; compile with --specialize=%s:%d=V1,V2,...",
           d, VALUE_NAME(v), VALUE_NAME(v), d);
  if (user) fe_note(p, user->loc, "first used here by '%s'", op_table[user->kind].name);
  return false;
}

/* Give every '?' of operand dimension (i, d) the value `known`. */
static void tie(fe_parser *p, fe_opctx *c, int i, int d, int64_t known) {
  value *v = c->o->operands[i];
  if (v->type->dims[d] == FE_DYNAMIC_DIM && known > 0) {
    tensor_type t = *v->type;
    t.dims[d] = known;
    v->type = type_intern(p->a, &t);
  }
}

/* Dimension d of operands [first, first+n): a known size other than 1 (broadcasting), else 1
 * when every known one is 1 and `ones` (equal-size rules), else 0. */
static int64_t known_dim(const fe_opctx *c, int first, int n, int d, bool ones) {
  int64_t k = 0;
  for (int i = first; i < first + n; i++) {
    const tensor_type *t = c->o->operands[i]->type;
    if (d >= t->rank || t->dims[d] == FE_DYNAMIC_DIM) continue;
    if (t->dims[d] != 1 || (ones && !k)) k = t->dims[d];
  }
  return k;
}

bool fe_dyn_tie(fe_parser *p, fe_opctx *c) {
  if (!p->ndyn) return true;
  op *o = c->o;
  op_family fam = op_table[o->kind].family;
  if (fam == FAM_ELEMENTWISE && o->noperands > 1) {
    for (int d = 0; d < o->operands[0]->type->rank; d++) {
      int64_t k = known_dim(c, 0, o->noperands, d, false);
      for (int i = 0; i < o->noperands; i++)
        if (o->operands[i]->type->rank == o->operands[0]->type->rank) tie(p, c, i, d, k);
    }
  } else if (o->kind == OP_MATMUL && o->noperands >= 2) {
    int64_t k = known_dim(c, 0, 2, 0, true);
    tie(p, c, 0, 0, k), tie(p, c, 1, 0, k);
  } else if (o->kind == OP_CONCAT) {
    int64_t axis = op_attr_int(o, "axis", 0);
    for (int d = 0; d < o->operands[0]->type->rank; d++) {
      if (d == axis) continue;
      int64_t k = known_dim(c, 0, o->noperands, d, true);
      for (int i = 0; i < o->noperands; i++) tie(p, c, i, d, k);
    }
  }
  for (int i = 0; i < o->noperands; i++) {
    const value *v = o->operands[i];
    for (int d = 0; d < v->type->rank; d++)
      if (v->type->dims[d] == FE_DYNAMIC_DIM) /* a non-argument: its producer was reported */
        return v->is_arg ? unresolved_error(p, v, d, o) : false;
  }
  return true;
}

void fe_dyn_fill(tensor_type *t, const tensor_type *from) {
  for (int d = 0; d < t->rank && t->rank == from->rank; d++)
    if (t->dims[d] == FE_DYNAMIC_DIM) t->dims[d] = from->dims[d];
}

static void fill_value(fe_parser *p, value *v, const tensor_type *from) {
  tensor_type t = *v->type;
  fe_dyn_fill(&t, from);
  if (memcmp(&t, v->type, sizeof t)) v->type = type_intern(p->a, &t);
}

bool fe_dyn_results(fe_parser *p, const fe_opctx *c) {
  const op *o = c->o; /* control flow: a result is what the (then / body) region yields */
  const graph *rg = o->nregions == 2 ? op_regions(o)[o->kind == OP_COND_IF ? 0 : 1] : NULL;
  for (int r = 0; rg && r < o->nresults && r < rg->nresults; r++)
    if (rg->results[r]) fill_value(p, o->results[r], rg->results[r]->type);
  for (int r = 0; r < c->o->nresults; r++) {
    const tensor_type *t = c->o->results[r]->type;
    for (int d = 0; d < t->rank; d++)
      if (t->dims[d] == FE_DYNAMIC_DIM)
        return fe_error(p, c->name_loc, "'%s' result %d: dimension %d ('?') cannot be inferred "
                        "(tosac infers '?' result dimensions of ops with a shape rule only)",
                        op_table[c->o->kind].name, r, d);
  }
  return true;
}

bool fe_dyn_finish(fe_parser *p, graph *g) {
  g->ndynamic = p->ndyn;
  g->dynamic_dims = arena_alloc(p->a, sizeof(int) * (size_t)(2 * p->ndyn + 1));
  for (int k = 0; k < p->ndyn; k++)
    g->dynamic_dims[2 * k] = p->dyn[k].index, g->dynamic_dims[2 * k + 1] = p->dyn[k].dim;
  for (int k = 0; k < p->ndyn; k++) {
    const value *v = p->dyn[k].arg;
    if (v->type->dims[p->dyn[k].dim] == FE_DYNAMIC_DIM) return unresolved_error(p, v, p->dyn[k].dim, NULL);
  }
  return true;
}
