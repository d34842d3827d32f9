/* fuse.c: many:1 fusion of elementwise chains (epilogues, recomputed broadcast producers) into
 * groups that become one kernel each. */
#include "partition.h"

#include <stdlib.h>
#include <string.h>

typedef struct fuse_state {
  const graph *g;
  int *group_of; /* per op: union-find element id, -1 for constants, views and dead ops */
  int *parent;   /* union-find over provisional groups */
  int ngroups;
  const op **anchor; /* per union-find root: the group's non-elementwise op, or NULL */
  char *seen;    /* scratch for reachability */
  int *recomputed; /* per union-find root: cost of the small producers it recomputes */
  bool nofuse;   /* TOSAC_NO_FUSION: every op is a kernel of its own */
} fuse_state;

static int find(fuse_state *s, int x) {
  while (s->parent[x] != x)
    x = s->parent[x] = s->parent[s->parent[x]];
  return x;
}

/* The group that writes v's bytes: a view's value belongs to the producer of its root. */
static int group_of_value(fuse_state *s, const value *v) {
  v = part_view_root(v);
  if (!v->def || s->group_of[v->def->id] < 0)
    return -1;
  return find(s, s->group_of[v->def->id]);
}

static bool same_space(const tensor_type *a, const tensor_type *b) {
  if (a->rank != b->rank)
    return false;
  for (int i = 0; i < a->rank; i++)
    if (a->dims[i] != b->dims[i])
      return false;
  return true;
}

/* Does group `from` read, directly or through other groups, from group `to`?
 * `skip_direct` ignores the direct edge from->to (merging two groups joined by it is fine). */
static bool reaches(fuse_state *s, int from, int to, bool skip_direct) {
  memset(s->seen, 0, (size_t)s->ngroups);
  int *stack = malloc(sizeof(int) * (size_t)(s->ngroups + 1));
  int sp = 0;
  stack[sp++] = from;
  s->seen[from] = 1;
  bool found = false;
  while (sp > 0 && !found) {
    int x = stack[--sp];
    for (int i = 0; i < s->g->nops && !found; i++) {
      const op *o = s->g->ops[i];
      if (s->group_of[o->id] < 0 || find(s, s->group_of[o->id]) != x)
        continue;
      for (int j = 0; j < o->noperands; j++) {
        int h = group_of_value(s, o->operands[j]);
        if (h < 0 || h == x || s->seen[h])
          continue;
        if (h == to) {
          if (skip_direct && x == from)
            continue;
          found = true;
          break;
        }
        s->seen[h] = 1;
        stack[sp++] = h;
      }
    }
  }
  free(stack);
  return found;
}

/* Anchors whose kernels apply elementwise consumers in registers before the store. */
static bool takes_epilogue(const op *anchor) {
  return op_table[anchor->kind].family == FAM_MATMUL;
}

/* A group holds at most one anchor, and elementwise ops join it only as its epilogue. */
static bool compatible(fuse_state *s, int a, int b) {
  const op *x = s->anchor[a], *y = s->anchor[b];
  if (x && y)
    return false;
  const op *anc = x ? x : y;
  return !anc || takes_epilogue(anc);
}

/* An op never shares a kernel with the producer of a view it reads: the kernel would read
 * through the alias bytes that it is itself still writing. */
static bool view_conflict(fuse_state *s, int a, int b) {
  for (int i = 0; i < s->g->nops; i++) {
    const op *o = s->g->ops[i];
    if (s->group_of[o->id] < 0)
      continue;
    int x = find(s, s->group_of[o->id]);
    if (x != a && x != b)
      continue;
    for (int j = 0; j < o->noperands; j++) {
      const value *v = o->operands[j];
      if (!v->def || !part_is_view(v->def))
        continue;
      int h = group_of_value(s, v);
      if (h == a || h == b)
        return true;
    }
  }
  return false;
}

/* Try to put op o into a group of one of its producers, merging producer groups it connects.
 * Non-elementwise ops start a group of their own: they never fuse with their producers. */
static void place_op(fuse_state *s, const op *o) {
  int gid = s->ngroups++;
  s->parent[gid] = gid;
  s->group_of[o->id] = gid;
  bool elementwise = op_table[o->kind].family == FAM_ELEMENTWISE;
  s->anchor[gid] = elementwise ? NULL : o;
  if (!elementwise || o->nresults != 1 || s->nofuse)
    return;
  const tensor_type *space = &o->results[0]->type;
  for (int j = 0; j < o->noperands; j++) {
    const value *v = o->operands[j];
    if (v->def && part_is_view(v->def))
      continue; /* a view is read from memory: its producer stays a kernel of its own */
    int h = group_of_value(s, v);
    int cur = find(s, gid);
    if (h < 0 || h == cur || !same_space(&v->type, space) || !compatible(s, cur, h))
      continue;
    /* A table lookup needs its table as a pointer, which only elementwise kernels pass. */
    if (o->kind == OP_TABLE && (s->anchor[h] || s->anchor[cur]))
      continue;
    /* Merging h and cur is legal when neither reaches the other through a third group. */
    if (reaches(s, cur, h, true) || reaches(s, h, cur, true) || view_conflict(s, cur, h))
      continue;
    if (!s->anchor[h])
      s->anchor[h] = s->anchor[cur];
    s->parent[cur] = h;
  }
}

/* ---------------------------------------------------------------- recomputation
 * A small elementwise group whose values are only broadcast into one larger group (a [1,C]
 * BatchNorm scale, a softmax's 1/sum) is cheaper computed again per element of that group
 * than written, read and launched on its own: it merges into the consumer, whose kernel then
 * evaluates the few ops on broadcast-indexed inputs. */
#define RECOMPUTE_MAX_COST 8       /* per consuming kernel, in the units of recompute_cost */
#define RECOMPUTE_MAX_ELEMS 65536  /* largest value recomputed */

/* ALU cost of evaluating o once; -1: never recomputed (lookups, per-channel rescale). */
static int recompute_cost(const op *o) {
  switch (o->kind) {
  case OP_EXP: case OP_LOG: case OP_TANH: case OP_SIGMOID: case OP_ERF: case OP_POW:
  case OP_SIN: case OP_COS: case OP_RECIPROCAL: case OP_RSQRT: case OP_INTDIV: case OP_DIV:
    return 4;
  case OP_RESCALE: case OP_TABLE:
    return -1;
  default:
    return op_table[o->kind].family == FAM_ELEMENTWISE ? 1 : -1;
  }
}

static bool is_result(const graph *g, const value *v) {
  for (int r = 0; r < g->nresults; r++)
    if (g->results[r] == v)
      return true;
  return false;
}

/* Elements of group x's iteration space: its largest op result. */
static int64_t group_space(fuse_state *s, int x) {
  int64_t n = 0;
  for (int i = 0; i < s->g->nops; i++) {
    const op *o = s->g->ops[i];
    if (s->group_of[o->id] >= 0 && find(s, s->group_of[o->id]) == x && o->nresults &&
        tensor_numel(&o->results[0]->type) > n)
      n = tensor_numel(&o->results[0]->type);
  }
  return n;
}

/* The single group that reads group h's values, when h qualifies for recomputation; -1 else.
 * A value read by several kernels is materialised once instead: recomputing it in each would
 * multiply the work and still not save its producer's launch. */
static int recompute_target(fuse_state *s, int h, int *cost) {
  const graph *g = s->g;
  int target = -1;
  *cost = 0;
  for (int i = 0; i < g->nops; i++) {
    const op *o = g->ops[i];
    if (s->group_of[o->id] < 0 || find(s, s->group_of[o->id]) != h)
      continue;
    int c = recompute_cost(o);
    if (c < 0 || o->nresults != 1 || is_result(g, o->results[0]) ||
        tensor_numel(&o->results[0]->type) > RECOMPUTE_MAX_ELEMS)
      return -1;
    *cost += c;
    for (int k = 0; k < g->nops; k++) {
      const op *u = g->ops[k];
      bool reads = false;
      for (int j = 0; j < u->noperands; j++)
        reads |= u->operands[j] == o->results[0];
      if (!reads)
        continue;
      if (s->group_of[u->id] < 0) {
        if (part_is_view(u))
          return -1; /* read from memory through an alias */
        continue;    /* dead */
      }
      int x = find(s, s->group_of[u->id]);
      if (x == h)
        continue;
      if ((target >= 0 && x != target) || op_table[u->kind].family != FAM_ELEMENTWISE)
        return -1;
      target = x;
    }
  }
  return target;
}

static bool try_recompute(fuse_state *s, int h) {
  if (s->anchor[h])
    return false;
  int cost;
  int t = recompute_target(s, h, &cost);
  if (t < 0 || !compatible(s, h, t) || s->recomputed[t] + s->recomputed[h] + cost > RECOMPUTE_MAX_COST)
    return false;
  if (group_space(s, h) >= group_space(s, t))
    return false;
  if (reaches(s, t, h, true) || reaches(s, h, t, true) || view_conflict(s, h, t))
    return false;
  s->parent[h] = t;
  s->recomputed[t] += s->recomputed[h] + cost;
  return true;
}

static void recompute_small_groups(fuse_state *s) {
  for (bool changed = true; changed;) {
    changed = false;
    for (int x = 0; x < s->ngroups; x++)
      if (find(s, x) == x && try_recompute(s, x))
        changed = true;
  }
}

/* Ops whose results reach no graph result are dead: they get no group and no kernel. */
static char *live_ops(arena *a, const graph *g) {
  char *live = arena_alloc(a, (size_t)g->nops + 1);
  char *needed = arena_alloc(a, (size_t)g->nvalues + 1);
  for (int r = 0; r < g->nresults; r++)
    needed[g->results[r]->id] = 1;
  for (int i = g->nops - 1; i >= 0; i--) {
    const op *o = g->ops[i];
    for (int r = 0; r < o->nresults && !live[o->id]; r++)
      live[o->id] = needed[o->results[r]->id];
    for (int j = 0; live[o->id] && j < o->noperands; j++)
      needed[o->operands[j]->id] = 1;
  }
  return live;
}

int part_fuse(arena *a, const graph *g, int *group_of) {
  fuse_state s = {.g = g, .group_of = group_of};
  s.parent = arena_alloc(a, sizeof(int) * (size_t)(g->nops + 1));
  s.seen = arena_alloc(a, (size_t)(g->nops + 1));
  s.anchor = arena_alloc(a, sizeof(op *) * (size_t)(g->nops + 1));
  s.recomputed = arena_alloc(a, sizeof(int) * (size_t)(g->nops + 1));
  s.nofuse = part_fusion_disabled();
  char *live = live_ops(a, g);
  for (int i = 0; i < g->nops; i++)
    group_of[i] = -1;
  for (int i = 0; i < g->nops; i++) {
    const op *o = g->ops[i];
    if (op_table[o->kind].family != FAM_CONST && live[o->id] && !part_is_view(o))
      place_op(&s, o);
  }
  if (!s.nofuse)
    recompute_small_groups(&s);
  /* Renumber roots densely, then order groups topologically (smallest first op first). */
  int *root_id = arena_alloc(a, sizeof(int) * (size_t)(s.ngroups + 1));
  for (int i = 0; i < s.ngroups; i++)
    root_id[i] = -1;
  int n = 0;
  for (int i = 0; i < g->nops; i++) {
    int x = group_of[g->ops[i]->id];
    if (x < 0)
      continue;
    int r = find(&s, x);
    if (root_id[r] < 0)
      root_id[r] = n++;
    group_of[g->ops[i]->id] = root_id[r];
  }
  /* Kahn's algorithm over group edges; ties broken by number for determinism. */
  char *edge = arena_alloc(a, (size_t)n * (size_t)n + 1);
  int *indeg = arena_alloc(a, sizeof(int) * (size_t)(n + 1));
  for (int i = 0; i < g->nops; i++) {
    const op *o = g->ops[i];
    int to = group_of[o->id];
    if (to < 0)
      continue;
    for (int j = 0; j < o->noperands; j++) {
      const value *v = part_view_root(o->operands[j]);
      int from = v->def ? group_of[v->def->id] : -1;
      if (from >= 0 && from != to && !edge[from * n + to]) {
        edge[from * n + to] = 1;
        indeg[to]++;
      }
    }
  }
  int *rank = arena_alloc(a, sizeof(int) * (size_t)(n + 1));
  char *done = arena_alloc(a, (size_t)n + 1);
  for (int k = 0; k < n; k++) {
    int pick = -1;
    for (int x = 0; x < n && pick < 0; x++)
      if (!done[x] && indeg[x] == 0)
        pick = x;
    done[pick] = 1;
    rank[pick] = k;
    for (int y = 0; y < n; y++)
      if (edge[pick * n + y])
        indeg[y]--;
  }
  for (int i = 0; i < g->nops; i++)
    if (group_of[g->ops[i]->id] >= 0)
      group_of[g->ops[i]->id] = rank[group_of[g->ops[i]->id]];
  return n;
}
