/* fold_control.c: compile-time control flow. tosa.cond_if with a constant condition becomes the
 * taken branch's ops; tosa.while_loop whose condition is a constant in every iteration is unrolled
 * (up to FOLD_MAX_ITERATIONS). Anything else stays in the graph and becomes a control node of
 * the launch graph (partition/control.c). */
#include "frontend.h"
#include "optimize/eval.h"

#include <stdlib.h>
#include <string.h>

/* Unrolling bounds: iterations of one loop, and ops the unrolled graph may reach. */
#define FOLD_MAX_ITERATIONS 256
#define FOLD_MAX_OPS 200000
/* Constants computed at compile time (loop counters, conditions) stay this small. */
#define FOLD_MAX_CONST_ELEMS 4096

/* value* -> pointer, open addressing (keys are never removed, only overwritten). */
typedef struct ptr_map {
  const void **keys;
  void **vals;
  size_t cap, n;
} ptr_map;

typedef struct folder {
  arena *a;
  diag_sink *d;
  op **ops; /* the graph being built */
  int nops, ocap;
  ptr_map remap;  /* original value -> the value standing for it now */
  ptr_map consts; /* value -> dense_data computed at compile time, or &no_const */
  bool failed;
  bool give_up; /* control flow inside an inlined region did not fold: the region's op stays */
} folder;

static const dense_data no_const; /* memo marker: not a compile-time constant */

static size_t ptr_hash(const void *p, size_t cap) {
  uint64_t x = (uint64_t)(uintptr_t)p;
  x ^= x >> 33;
  x *= 0xff51afd7ed558ccdull;
  x ^= x >> 33;
  return (size_t)x & (cap - 1);
}

static void *map_get(const ptr_map *m, const void *k) {
  if (!m->cap)
    return NULL;
  for (size_t i = ptr_hash(k, m->cap);; i = (i + 1) & (m->cap - 1)) {
    if (!m->keys[i])
      return NULL;
    if (m->keys[i] == k)
      return m->vals[i];
  }
}

static void map_put(arena *a, ptr_map *m, const void *k, void *v) {
  if (2 * (m->n + 1) > m->cap) {
    ptr_map old = *m;
    m->cap = old.cap ? old.cap * 2 : 256;
    m->n = 0;
    m->keys = arena_alloc(a, sizeof(void *) * m->cap);
    m->vals = arena_alloc(a, sizeof(void *) * m->cap);
    for (size_t i = 0; i < old.cap; i++)
      if (old.keys[i])
        map_put(a, m, old.keys[i], old.vals[i]);
  }
  size_t i = ptr_hash(k, m->cap);
  while (m->keys[i] && m->keys[i] != k)
    i = (i + 1) & (m->cap - 1);
  if (!m->keys[i])
    m->n++;
  m->keys[i] = k;
  m->vals[i] = v;
}

static ptr_map map_copy(arena *a, const ptr_map *m) {
  ptr_map c = *m;
  if (m->cap) {
    c.keys = arena_alloc(a, sizeof(void *) * m->cap);
    c.vals = arena_alloc(a, sizeof(void *) * m->cap);
    memcpy(c.keys, m->keys, sizeof(void *) * m->cap);
    memcpy(c.vals, m->vals, sizeof(void *) * m->cap);
  }
  return c;
}

static value *mapped(folder *F, value *v) {
  value *r = map_get(&F->remap, v);
  return r ? r : v;
}

/* ---------------------------------------------------------------- compile-time evaluation */

static const dense_data *const_value(folder *F, value *v);

/* Result of a pure op whose operands are all compile-time constants, by the
 * shared evaluator (optimize/eval.h); NULL if it is not one. */
static const dense_data *eval_op(folder *F, const op *o) {
  if (!ev_supported(o) || tensor_numel(o->results[0]->type) > FOLD_MAX_CONST_ELEMS)
    return NULL;
  const dense_data **in = arena_alloc(F->a, sizeof *in * (size_t)o->noperands);
  for (int i = 0; i < o->noperands; i++) {
    in[i] = const_value(F, o->operands[i]);
    if (!in[i] || (!in[i]->splat && tensor_numel(&in[i]->type) > FOLD_MAX_CONST_ELEMS))
      return NULL;
  }
  return ev_op(F->a, o, in);
}

/* The data of v if it is known at compile time (a constant, or an evaluable op of constants). */
static const dense_data *const_value(folder *F, value *v) {
  if (!v->def)
    return NULL;
  if (op_table[v->def->kind].family == FAM_CONST) {
    const attr *a = op_attr(v->def, "values");
    if (!a)
      a = op_attr(v->def, "value");
    return a && a->kind == ATTR_DENSE ? a->dense : NULL;
  }
  const dense_data *m = map_get(&F->consts, v);
  if (m)
    return m == &no_const ? NULL : m;
  map_put(F->a, &F->consts, v, (void *)&no_const); /* also stops cycles */
  const dense_data *r = eval_op(F, v->def);
  if (r)
    map_put(F->a, &F->consts, v, (void *)r);
  return r;
}

/* ---------------------------------------------------------------- building the graph */

static void push_op(folder *F, op *o) {
  if (F->nops >= FOLD_MAX_OPS && !F->failed) {
    diag_error(F->d, o->loc, "unrolling control flow makes more than %d operations", FOLD_MAX_OPS);
    F->failed = true;
  }
  if (!F->failed)
    ARENA_PUSH(F->a, F->ops, F->nops, F->ocap, o);
}

static value *new_value(folder *F, const value *like, op *def) {
  value *v = arena_alloc(F->a, sizeof *v);
  v->name = like->name;
  v->type = like->type;
  v->def = def;
  v->loc = like->loc;
  return v;
}

/* A tosa.const op holding d, standing for value like. */
static value *const_op(folder *F, const op *at, const value *like, const dense_data *d) {
  op *c = arena_alloc(F->a, sizeof *c);
  c->kind = OP_CONST;
  c->loc = at->loc;
  attr *va = arena_alloc(F->a, sizeof(attr));
  *va = (attr){.name = "values", .kind = ATTR_DENSE, .dense = (dense_data *)d, .loc = at->loc};
  op_set_attrs(F->a, c, va, 1);
  c->results = arena_alloc(F->a, sizeof(value *));
  c->results[0] = new_value(F, like, c);
  c->nresults = 1;
  push_op(F, c);
  return c->results[0];
}

static void emit_op(folder *F, op *o, bool clone);

/* Inline region rg with its block arguments bound to args; out[i] gets its i-th yielded value. */
static void inline_region(folder *F, const op *owner, graph *rg, value **args, int nargs, value **out) {
  if (rg->nargs > nargs) {
    diag_error(F->d, owner->loc, "'%s': a region takes %d arguments but the operation passes %d",
               op_table[owner->kind].name, rg->nargs, nargs);
    F->failed = true;
    return;
  }
  for (int i = 0; i < rg->nargs; i++)
    map_put(F->a, &F->remap, rg->args[i], args[i]);
  for (int i = 0; i < rg->nops && !F->failed && !F->give_up; i++)
    emit_op(F, rg->ops[i], true);
  for (int i = 0; i < rg->nresults && out; i++)
    out[i] = mapped(F, rg->results[i]);
}

/* Is v a constant boolean? *truth gets it. */
static bool const_bool(folder *F, value *v, bool *truth) {
  const dense_data *d = const_value(F, v);
  if (!d || tensor_numel(v->type) != 1)
    return false;
  *truth = fe_dense_int(d, 0) != 0;
  return true;
}

static value **mapped_operands(folder *F, const op *o, int from) {
  int n = o->noperands - from;
  value **a = arena_alloc(F->a, sizeof(value *) * (size_t)(n > 0 ? n : 1));
  for (int i = 0; i < n; i++)
    a[i] = mapped(F, o->operands[from + i]);
  return a;
}

/* false: the condition is not a compile-time constant (nothing emitted). */
static bool fold_if(folder *F, op *o) {
  bool truth;
  if (o->nregions != 2 || !const_bool(F, mapped(F, o->operands[0]), &truth))
    return false;
  value **res = arena_alloc(F->a, sizeof(value *) * (size_t)(o->nresults + 1));
  graph *rg = op_regions(o)[truth ? 0 : 1];
  inline_region(F, o, rg, mapped_operands(F, o, 1), o->noperands - 1, res);
  if (F->give_up)
    return false;
  for (int i = 0; i < o->nresults && !F->failed; i++)
    map_put(F->a, &F->remap, o->results[i], res[i]);
  return true;
}

/* false: the condition is not a compile-time constant in some iteration (the caller drops what
 * the earlier iterations emitted). */
static bool fold_while(folder *F, op *o) {
  int n = o->noperands;
  value **cur = mapped_operands(F, o, 0);
  for (int iter = 0; !F->failed; iter++) {
    /* Evaluate the condition on ops emitted into a scratch list that is then dropped. */
    op **saved = F->ops;
    int saved_n = F->nops, saved_cap = F->ocap;
    F->ops = NULL, F->nops = 0, F->ocap = 0;
    value *c = NULL;
    if (o->nregions == 2)
      inline_region(F, o, op_regions(o)[0], cur, n, &c);
    F->ops = saved, F->nops = saved_n, F->ocap = saved_cap;
    if (F->failed)
      return true;
    if (F->give_up)
      return false;
    bool go;
    if (!c || !const_bool(F, c, &go))
      return false;
    if (!go)
      break;
    if (iter == FOLD_MAX_ITERATIONS) /* too long to unroll: the runtime iterates it */
      return false;
    value **next = arena_alloc(F->a, sizeof(value *) * (size_t)(n > 0 ? n : 1));
    inline_region(F, o, op_regions(o)[1], cur, n, next);
    if (F->give_up)
      return false;
    cur = next;
  }
  for (int i = 0; i < o->nresults && i < n && !F->failed; i++)
    map_put(F->a, &F->remap, o->results[i], cur[i]);
  return true;
}

/* Rewire the values a kept op's regions capture from outside (they may stand for folded ones). */
static void rewire_regions(folder *F, op *o) {
  for (int r = 0; r < o->nregions; r++) {
    graph *rg = op_regions(o)[r];
    for (int i = 0; i < rg->nops; i++) {
      for (int j = 0; j < rg->ops[i]->noperands; j++)
        rg->ops[i]->operands[j] = mapped(F, rg->ops[i]->operands[j]);
      rewire_regions(F, rg->ops[i]);
    }
    for (int i = 0; i < rg->nresults; i++)
      rg->results[i] = mapped(F, rg->results[i]);
  }
}

/* Emit o into the graph being built: control flow folded; region ops cloned (a loop body is
 * inlined many times) and replaced by constants when they compute one. */
static void emit_op(folder *F, op *o, bool clone) {
  if (o->kind == OP_COND_IF || o->kind == OP_WHILE_LOOP) {
    int mark = F->nops;
    ptr_map before = map_copy(F->a, &F->remap); /* a fold that gives up leaves no mapping */
    F->give_up = false;
    bool folded = o->kind == OP_COND_IF ? fold_if(F, o) : fold_while(F, o);
    if (F->failed || (folded && !F->give_up))
      return;
    F->nops = mark;
    F->remap = before;
    if (clone) { /* inside inlined control flow: the enclosing op stays (a copy of its regions
                    per iteration is not made), the runtime runs it (partition/control.c) */
      F->give_up = true;
      return;
    }
    F->give_up = false;
    rewire_regions(F, o); /* stays in the graph: a control node (partition/control.c) */
  }
  if (!clone) { /* a top-level op: emitted once, operands rewired in place */
    for (int i = 0; i < o->noperands; i++)
      o->operands[i] = mapped(F, o->operands[i]);
    push_op(F, o);
    return;
  }
  op *c = arena_alloc(F->a, sizeof *c);
  *c = *o;
  c->operands = mapped_operands(F, o, 0);
  c->results = arena_alloc(F->a, sizeof(value *) * (size_t)(o->nresults + 1));
  for (int i = 0; i < o->nresults; i++)
    c->results[i] = new_value(F, o->results[i], c);
  if (op_table[o->kind].family != FAM_CONST && o->nresults == 1) {
    const dense_data *d = const_value(F, c->results[0]);
    if (d) {
      map_put(F->a, &F->remap, o->results[0], const_op(F, o, o->results[0], d));
      return;
    }
  }
  push_op(F, c);
  for (int i = 0; i < o->nresults; i++)
    map_put(F->a, &F->remap, o->results[i], c->results[i]);
}

/* Values of the enclosing graph that o's regions read are needed when o is. */
static void need_captured(folder *F, ptr_map *needed, const op *o) {
  for (int r = 0; r < o->nregions; r++) {
    const graph *rg = op_regions(o)[r];
    for (int i = 0; i < rg->nops; i++) {
      for (int j = 0; j < rg->ops[i]->noperands; j++)
        map_put(F->a, needed, rg->ops[i]->operands[j], (void *)1);
      need_captured(F, needed, rg->ops[i]);
    }
    for (int i = 0; i < rg->nresults; i++)
      map_put(F->a, needed, rg->results[i], (void *)1);
  }
}

/* Keep the ops some result needs; renumber ops and values densely. */
static void rebuild(folder *F, graph *g) {
  char *live = arena_alloc(F->a, (size_t)F->nops + 1);
  ptr_map needed = {0};
  for (int r = 0; r < g->nresults; r++)
    map_put(F->a, &needed, g->results[r], (void *)1);
  for (int i = F->nops - 1; i >= 0; i--) {
    op *o = F->ops[i];
    for (int r = 0; r < o->nresults && !live[i]; r++)
      live[i] = map_get(&needed, o->results[r]) != NULL;
    for (int j = 0; live[i] && j < o->noperands; j++)
      map_put(F->a, &needed, o->operands[j], (void *)1);
    if (live[i])
      need_captured(F, &needed, o);
  }
  int vcap = 0, ocap = 0;
  g->values = NULL, g->nvalues = 0;
  g->ops = NULL, g->nops = 0;
  for (int i = 0; i < g->nargs; i++) {
    g->args[i]->id = g->nvalues;
    ARENA_PUSH(F->a, g->values, g->nvalues, vcap, g->args[i]);
  }
  for (int i = 0; i < F->nops; i++) {
    op *o = F->ops[i];
    if (!live[i])
      continue;
    o->id = g->nops;
    ARENA_PUSH(F->a, g->ops, g->nops, ocap, o);
    for (int r = 0; r < o->nresults; r++) {
      o->results[r]->id = g->nvalues;
      ARENA_PUSH(F->a, g->values, g->nvalues, vcap, o->results[r]);
    }
  }
}

bool fe_fold_control(graph *g, diag_sink *d) {
  bool any = false;
  for (int i = 0; i < g->nops && !any; i++)
    any = g->ops[i]->kind == OP_COND_IF || g->ops[i]->kind == OP_WHILE_LOOP;
  if (!any)
    return true;
  folder F = {.a = g->arena, .d = d};
  for (int i = 0; i < g->nops && !F.failed; i++)
    emit_op(&F, g->ops[i], false);
  if (F.failed)
    return false;
  for (int r = 0; r < g->nresults; r++)
    g->results[r] = mapped(&F, g->results[r]);
  rebuild(&F, g);
  return true;
}
