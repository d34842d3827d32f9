/* fuse.c: many:1 fusion of elementwise chains (epilogues, recomputed broadcast producers,
 * transposes read as index maps) into groups that become one kernel each.
 *
 * Cost: every decision looks only at the ops involved and their neighbours. Groups are a
 * union-find with per-group op, edge and memory-read lists that concatenate in O(1); the one
 * global question, "would this merge create a cycle between kernels", searches only the groups
 * between the two in a topological order kept across merges, capped by REACH_BUDGET
 * (docs/partitioning.md, "Cost of the partitioner"). */
#include "partition.h"

#include <stdlib.h>
#include <string.h>

/* Operand edges a cycle query may examine before it gives up and refuses the merge. */
#define REACH_BUDGET 4096
/* Ops in one kernel at most: a longer chain is cut into kernels of this many ops, whose specs
 * repeat and so share code (dedup.c). Without a cap one generated function holds the whole
 * chain, and LLVM's optimiser takes minutes and gigabytes on 100,000 ops. */
#define FUSE_MAX_OPS 256

/* Per-group circular singly linked lists of op-level edges, concatenated when groups merge:
 * a group keeps only its tail (-1: empty), whose next is the head (4 bytes per group less than
 * head and tail; the order of a list is the same). */
typedef struct edge_list {
  int *tail;          /* per group */
  int *next, *target; /* per entry; target: the op at the other end */
} edge_list;

/* Bits of fuse_state.flags: facts about an op, then facts about the group an op roots. */
enum {
  F_VIEW = 1,    /* part_is_view, or a slice view (part_slice_views) */
  F_MAP = 2,     /* a transpose read as an index map by elementwise consumers */
  F_LIVE = 4,    /* a graph result depends on it (live_ops) */
  F_RESULT = 8,  /* its first result is a function result */
  F_HAS_MAP = 16, /* group: holds an index-map transpose (elementwise kernels only) */
  F_ATT = 32,    /* group: exactly a pattern's ops (attention.c, rownorm.c), nothing joins it */
  F_OPV = 64,    /* a transpose or slice a convolution reads through strides (operand_view) */
  F_OUTV = 128,  /* a transpose a convolution writes its result through (output_view); in a
                    group: nothing joins it any more */
  F_F8 = 256,    /* group: converts to or from an 8-bit float, which only elementwise kernels
                    compile (src/codegen/cvt_f8.c): it is no anchor's epilogue */
  F_GROUP = F_HAS_MAP | F_ATT | F_F8,
};

/* A group is named by one of its ops (its union-find root), so the per-group tables are per-op
 * tables and the union-find lives in the caller's group_of: one table less. */
typedef struct fuse_state {
  const graph *g;
  int *group_of; /* per op: -1 unplaced (constants, views, dead ops); else the union-find
                    parent's op id, or for a root -2 - its place in the topological order of
                    the groups (no rank: the root is the merge target, which the recomputation
                    pass's visiting order depends on; see ord_of) */
  bool nofuse;   /* TOSAC_NO_FUSION: every op is a kernel of its own */
  unsigned short *flags;   /* per op: F_* */
  int *use_start, *uses; /* value id -> reader op ids (CSR) */
  /* per union-find root */
  int *anchor;       /* the group's non-elementwise op: its id + 1, or 0 (anchor_op) */
  int *att;          /* op id: pattern number (attention.c, rownorm.c), -1 none; NULL when
                        the graph has no pattern (a malloc'd table, 4 bytes per op) */
  int *att_group;    /* pattern number: its group, -1 before its first op is placed */
  unsigned char *recomputed; /* cost of the small producers it recomputes (RECOMPUTE_MAX_COST) */
  uint16_t *nops;    /* ops in the group: at most FUSE_MAX_OPS, or a pattern's (at most 64);
                        the sum saturates (nops_add) */
  int next_ord;
  edge_list ins, outs; /* operand reads across groups: by reading / by producing group */
  int nedges;
  int *op_head, *op_tail, *op_next; /* its ops, linked by op id */
  /* memory reads: an op reading a view, or an index-map transpose reading its input, reads
   * another group's bytes from memory; entry e is listed by reader and by producer group */
  int *mr_reader, *mr_producer; /* op ids */
  int *rd_head, *rd_tail, *rd_next, *nrd; /* entries by reading group */
  int *pr_head, *pr_tail, *pr_next, *npr; /* entries by producing group */
  int nmr, capmr; /* the entry arrays grow on demand: most graphs read few views */
  size_t n;       /* groups at most (ops + 1): the per-group read tables, made at the first read */
  arena *a;
  /* cycle query scratch */
  part_marks visit; /* groups a window reached */
  int *stack;
  part_marks nb_seen; /* one group's neighbours listed so far */
  int *nbr, nbrcap; /* nbr grows: one group's distinct neighbours */
  int *setb, *setf;
  int64_t *keys;
} fuse_state;

static void *zalloc(arena *a, size_t n, size_t each) { return arena_alloc(a, n * each + each); }

static const op *anchor_op(const fuse_state *s, int x) {
  return s->anchor[x] ? s->g->ops[s->anchor[x] - 1] : NULL;
}

/* Root x's place in the topological order of the groups (order_for_merge), kept in its
 * group_of slot: only roots have one. */
static int ord_of(const fuse_state *s, int x) { return -2 - s->group_of[x]; }
static void set_ord(fuse_state *s, int x, int ord) { s->group_of[x] = -2 - ord; }

static bool placed(const fuse_state *s, int x) { return s->group_of[x] != -1; }

/* With path halving: each visited op's parent becomes its grandparent. */
static int find(fuse_state *s, int x) {
  for (int p; (p = s->group_of[x]) >= 0;) {
    int gp = s->group_of[p];
    x = gp >= 0 ? (s->group_of[x] = gp) : p;
  }
  return x;
}

/* The producer of v's view root (F_VIEW in flags), -1 for an argument: a view's value belongs
 * to it. Walked when asked (views are rare) instead of 4 bytes per value kept. */
static int view_root_def(const unsigned short *flags, const value *v) {
  while (v->def && (flags[v->def->id] & F_VIEW))
    v = v->def->operands[0];
  return v->def ? v->def->id : -1;
}

static int root_def(const fuse_state *s, const value *v) { return view_root_def(s->flags, v); }

/* The group that writes v's bytes, -1 none (a constant or an argument). */
static int group_of_value(fuse_state *s, const value *v) {
  int d = root_def(s, v);
  if (d < 0 || !placed(s, d))
    return -1;
  return find(s, d);
}

static uint16_t nops_add(int a, int b) {
  return (uint16_t)(a + b < UINT16_MAX ? a + b : UINT16_MAX);
}

static bool same_space(const tensor_type *a, const tensor_type *b) {
  if (a->rank != b->rank)
    return false;
  for (int i = 0; i < a->rank; i++)
    if (a->dims[i] != b->dims[i])
      return false;
  return true;
}

/* Concatenate list `from` onto list `to` (head/tail arrays per group, next per element). */
static void list_append(int *head, int *tail, int *next, int to, int from) {
  if (head[from] < 0)
    return;
  if (head[to] < 0)
    head[to] = head[from];
  else
    next[tail[to]] = head[from];
  tail[to] = tail[from];
}

/* Concatenate edge list `from` onto `to`: swapping the two tails' successors joins the rings
 * as to's entries, then from's. */
static void ring_append(edge_list *l, int to, int from) {
  int tf = l->tail[from], tt = l->tail[to];
  if (tf < 0)
    return;
  if (tt >= 0) {
    int head_to = l->next[tt];
    l->next[tt] = l->next[tf];
    l->next[tf] = head_to;
  }
  l->tail[to] = tf;
}

/* Group `child` joins group `root` (root stays the union-find root). */
static void merge(fuse_state *s, int child, int root) {
  s->group_of[child] = root;
  if (!s->anchor[root])
    s->anchor[root] = s->anchor[child];
  s->flags[root] |= s->flags[child] & F_GROUP;
  s->nops[root] = nops_add(s->nops[root], s->nops[child]);
  if (s->op_head) /* made when placement ends (op_lists) */
    list_append(s->op_head, s->op_tail, s->op_next, root, child);
  if (!s->ins.tail)
    return; /* placement's tables are gone: recomputation merges need none of them */
  ring_append(&s->ins, root, child);
  ring_append(&s->outs, root, child);
  if (!s->rd_head)
    return; /* no memory reads yet */
  list_append(s->rd_head, s->rd_tail, s->rd_next, root, child);
  list_append(s->pr_head, s->pr_tail, s->pr_next, root, child);
  s->nrd[root] += s->nrd[child];
  s->npr[root] += s->npr[child];
}

/* ---------------------------------------------------------------- legality of a merge
 * place_op merges the group `cur` holding the newest op o with a group h that o reads. The
 * group graph is a DAG and h -> cur is an edge, so the merge is legal unless
 *   - h also reaches cur through a third group (the merged kernel would both feed and read
 *     that group's kernel): order_for_merge;
 *   - cur reads h's bytes from memory (through a view or as a transposed index map): the
 *     merged kernel would read bytes it is still writing: reads_from_memory;
 *   - h feeds cur's anchor: an elementwise op would become a prologue of a GEMM, which no
 *     epilogue-taking kernel implements: feeds_anchor.
 * The mirrored conditions (cur reaching h) would close a cycle with h -> cur and cannot hold.
 *
 * Groups keep a topological order `ord` (dynamic topological sort, Pearce & Kelly 2006): a
 * path from h to cur only runs through groups ordered between them, so the search for it
 * stays inside that window, and a legal merge reorders only the window's ancestors of cur and
 * descendants of h. Groups are not contiguous in op order, so op positions cannot bound it. */

/* The distinct other groups adjacent to z through edge list l (ins: producers, outs:
 * consumers) into s->nbr; entries that became internal or duplicate are dropped for good, so
 * walking a large group's list costs its external neighbours, amortised. */
static int neighbours(fuse_state *s, edge_list *l, int z, int *budget) {
  int n = 0, last = l->tail[z];
  part_marks_clear(&s->nb_seen);
  if (last < 0)
    return 0;
  /* from the head (the tail's next) to the tail; prev: the entry before e in the ring */
  for (int prev = last, e = l->next[last], done = 0; !done; e = l->next[prev]) {
    done = e == last;
    --*budget;
    int p = find(s, l->target[e]);
    if (p == z || !part_marks_add(&s->nb_seen, p)) { /* unlink e */
      if (prev == e) { /* its only entry */
        l->tail[z] = -1;
        break;
      }
      l->next[prev] = l->next[e];
      if (l->tail[z] == e)
        l->tail[z] = prev;
      continue;
    }
    if (n == s->nbrcap) {
      s->nbr = arena_grow(s->a, s->nbr, sizeof(int), (size_t)n, 2 * (size_t)s->nbrcap);
      s->nbrcap *= 2;
    }
    s->nbr[n++] = p;
    prev = e;
  }
  return n;
}

/* Groups reachable from `from` along l whose ord lies strictly inside (lo, hi), into set
 * (from included). Returns false when it meets `avoid` other than through the direct edge
 * from -> avoid, or when the budget is spent. */
static bool window(fuse_state *s, edge_list *l, int from, int avoid, int lo, int hi, int *set,
                   int *nset, int *budget) {
  part_marks_clear(&s->visit);
  part_marks_add(&s->visit, from);
  int sp = 0;
  s->stack[sp++] = from;
  *nset = 0;
  while (sp > 0) {
    int z = s->stack[--sp];
    set[(*nset)++] = z;
    int n = neighbours(s, l, z, budget);
    if (*budget < 0)
      return false;
    for (int i = 0; i < n; i++) {
      int p = s->nbr[i];
      if (p == avoid) {
        if (z == from)
          continue; /* the edge being contracted */
        return false;
      }
      if (part_marks_has(&s->visit, p) || ord_of(s, p) <= lo || ord_of(s, p) >= hi)
        continue;
      part_marks_add(&s->visit, p);
      s->stack[sp++] = p;
    }
  }
  return true;
}

static int cmp_i64(const void *x, const void *y) {
  int64_t a = *(const int64_t *)x, b = *(const int64_t *)y;
  return (a > b) - (a < b);
}

/* Sort a set of groups by ord, as (ord << 32 | group) keys. */
static void sort_by_ord(fuse_state *s, const int *set, int n, int64_t *key) {
  for (int i = 0; i < n; i++)
    key[i] = (int64_t)ord_of(s, set[i]) << 32 | set[i];
  qsort(key, (size_t)n, sizeof *key, cmp_i64);
}

/* Can h and cur merge without a cycle? If so, renumber the window so that the ancestors of
 * cur (B) precede the descendants of h (F) on the same ords, and return true; the merged
 * group then takes cur's new ord. An exhausted budget refuses the merge (a missed fusion,
 * never a wrong plan). */
static bool order_for_merge(fuse_state *s, int cur, int h) {
  int budget = REACH_BUDGET, nb, nf;
  int lo = ord_of(s, h), hi = ord_of(s, cur);
  if (!window(s, &s->ins, cur, h, lo, hi, s->setb, &nb, &budget) ||
      !window(s, &s->outs, h, cur, lo, hi, s->setf, &nf, &budget))
    return false;
  int64_t *kb = s->keys, *kf = s->keys + nb, *pool = s->keys + nb + nf;
  sort_by_ord(s, s->setb, nb, kb);
  sort_by_ord(s, s->setf, nf, kf);
  for (int i = 0; i < nb + nf; i++)
    pool[i] = i < nb ? kb[i] >> 32 : kf[i - nb] >> 32;
  qsort(pool, (size_t)(nb + nf), sizeof *pool, cmp_i64);
  for (int i = 0; i < nb; i++)
    set_ord(s, (int)(kb[i] & 0xffffffff), (int)pool[i]);
  for (int i = 0; i < nf; i++)
    set_ord(s, (int)(kf[i] & 0xffffffff), (int)pool[nb + i]);
  return true;
}

/* Does group cur read group h's bytes from memory? Walks the shorter of the two lists. */
static bool reads_from_memory(fuse_state *s, int cur, int h) {
  if (!s->rd_head)
    return false;
  if (s->nrd[cur] <= s->npr[h]) {
    for (int e = s->rd_head[cur]; e >= 0; e = s->rd_next[e])
      if (find(s, s->mr_producer[e]) == h)
        return true;
  } else {
    for (int e = s->pr_head[h]; e >= 0; e = s->pr_next[e])
      if (find(s, s->mr_reader[e]) == cur)
        return true;
  }
  return false;
}

static bool feeds_anchor(fuse_state *s, int cur, int h) {
  const op *a = anchor_op(s, cur);
  for (int j = 0; a && j < a->noperands; j++)
    if (group_of_value(s, a->operands[j]) == h)
      return true;
  return false;
}

/* Anchors whose kernels apply elementwise consumers in registers before the store. */
static bool takes_epilogue(const op *anchor) {
  return op_table[anchor->kind].family == FAM_MATMUL;
}

/* A group holds at most one anchor, and elementwise ops join it only as its epilogue; an
 * index-map transpose lives only in elementwise kernels (epilogues do not index by maps). */
static bool compatible(fuse_state *s, int a, int b) {
  const op *x = anchor_op(s, a), *y = anchor_op(s, b);
  if ((x && y) || ((s->flags[a] | s->flags[b]) & F_ATT) || (s->flags[a] & F_OUTV) || (s->flags[b] & F_OUTV))
    return false;
  if ((x && (s->flags[b] & (F_HAS_MAP | F_F8))) || (y && (s->flags[a] & (F_HAS_MAP | F_F8))))
    return false;
  if (s->nops[a] + s->nops[b] > FUSE_MAX_OPS)
    return false;
  const op *anc = x ? x : y;
  return !anc || takes_epilogue(anc);
}

/* ---------------------------------------------------------------- placement */

static void edge_add(edge_list *l, int grp, int e, int target) {
  l->target[e] = target;
  int t = l->tail[grp];
  if (t < 0) {
    l->next[e] = e;
  } else {
    l->next[e] = l->next[t];
    l->next[t] = e;
  }
  l->tail[grp] = e;
}

/* The per-group ends of the memory-read lists, 24 bytes per op: made at the first read (a
 * million-op chain reads no view and never needs them), every list empty. */
static void read_tables(fuse_state *s) {
  int **t[] = {&s->rd_head, &s->rd_tail, &s->pr_head, &s->pr_tail, &s->nrd, &s->npr};
  for (size_t i = 0; i < sizeof t / sizeof *t; i++)
    *t[i] = arena_alloc(s->a, s->n * sizeof(int));
  for (size_t i = 0; i < s->n; i++)
    s->rd_head[i] = s->pr_head[i] = -1;
}

static void add_memory_read(fuse_state *s, const op *reader, const value *v) {
  int d = root_def(s, v);
  if (d < 0 || !placed(s, d))
    return; /* a constant or an argument */
  if (!s->rd_head)
    read_tables(s);
  if (s->nmr == s->capmr) {
    size_t cap = s->capmr ? 2 * (size_t)s->capmr : 256, n = (size_t)s->nmr;
    s->mr_reader = arena_grow(s->a, s->mr_reader, sizeof(int), n, cap);
    s->mr_producer = arena_grow(s->a, s->mr_producer, sizeof(int), n, cap);
    s->rd_next = arena_grow(s->a, s->rd_next, sizeof(int), n, cap);
    s->pr_next = arena_grow(s->a, s->pr_next, sizeof(int), n, cap);
    s->capmr = (int)cap;
  }
  int e = s->nmr++, rg = reader->id, pg = find(s, d); /* the reader's group is new: itself */
  s->mr_reader[e] = reader->id;
  s->mr_producer[e] = d;
  s->rd_next[e] = s->pr_next[e] = -1;
  s->rd_head[rg] < 0 ? (s->rd_head[rg] = e) : (s->rd_next[s->rd_tail[rg]] = e);
  s->rd_tail[rg] = e;
  s->pr_head[pg] < 0 ? (s->pr_head[pg] = e) : (s->pr_next[s->pr_tail[pg]] = e);
  s->pr_tail[pg] = e;
  s->nrd[rg]++;
  s->npr[pg]++;
}

/* o's group of its own, named by o. */
static int new_group(fuse_state *s, const op *o) {
  int gid = o->id;
  set_ord(s, gid, s->next_ord++);
  if (s->rd_head)
    s->rd_head[gid] = s->pr_head[gid] = -1;
  s->ins.tail[gid] = s->outs.tail[gid] = -1;
  s->nops[gid] = 1;
  bool elementwise = op_table[o->kind].family == FAM_ELEMENTWISE, map = s->flags[gid] & F_MAP;
  s->anchor[gid] = elementwise || map || (s->flags[gid] & (F_OPV | F_OUTV)) ? 0 : o->id + 1;
  if (map)
    s->flags[gid] |= F_HAS_MAP;
  for (int j = 0; elementwise && j < o->noperands + o->nresults; j++)
    if (elem_type_is_f8((j < o->noperands ? o->operands[j] : o->results[j - o->noperands])->type->elem))
      s->flags[gid] |= F_F8;
  for (int j = 0; j < o->noperands; j++) {
    const value *v = o->operands[j];
    int d = root_def(s, v);
    if (d >= 0 && placed(s, d)) {
      int e = s->nedges++; /* the same entry number in both lists: each has its own arrays */
      edge_add(&s->ins, gid, e, d);
      edge_add(&s->outs, find(s, d), e, o->id);
    }
    if (map || (v->def && (s->flags[v->def->id] & F_VIEW)))
      add_memory_read(s, o, v);
  }
  return gid;
}

/* Try to put op o into a group of one of its producers, merging producer groups it connects.
 * Non-elementwise ops (and index-map transposes) start a group of their own: they never fuse
 * with their producers. */
static void place_op(fuse_state *s, const op *o) {
  int gid = new_group(s, o);
  int pat = s->att ? s->att[o->id] : -1;
  if (pat >= 0) { /* a pattern's ops form one group and nothing else joins it */
    s->flags[gid] |= F_ATT;
    int h = s->att_group[pat];
    if (h < 0) {
      s->att_group[pat] = gid;
      return;
    }
    h = find(s, h);
    /* no group reads the pattern's values before its last op (attention.c, rownorm.c), so
     * taking the newest op's place in the topological order keeps it valid */
    int at = ord_of(s, gid);
    merge(s, gid, h);
    set_ord(s, h, at);
    return;
  }
  /* operand views join their reader: the view's only consumer is this op, so the merged group
   * keeps the reader's (the newest) place in the topological order */
  for (int j = 0; j < o->noperands; j++) {
    const op *d = o->operands[j]->def;
    if (d && (s->flags[d->id] & F_OPV) && placed(s, d->id))
      merge(s, find(s, d->id), find(s, gid));
  }
  /* an output view joins its convolution, which keeps its place: the view reads nothing else */
  if (s->flags[gid] & F_OUTV) {
    int h = find(s, o->operands[0]->def->id);
    merge(s, find(s, gid), h);
    s->flags[h] |= F_OUTV;
    return;
  }
  if (op_table[o->kind].family != FAM_ELEMENTWISE || o->nresults != 1 || s->nofuse)
    return;
  const tensor_type *space = o->results[0]->type;
  for (int j = 0; j < o->noperands; j++) {
    const value *v = o->operands[j];
    if (v->def && (s->flags[v->def->id] & F_VIEW))
      continue; /* a view is read from memory: its producer stays a kernel of its own */
    int h = group_of_value(s, v);
    int cur = find(s, gid);
    if (h < 0 || h == cur || !same_space(v->type, space) || !compatible(s, cur, h))
      continue;
    /* A table lookup needs its table as a pointer, which only elementwise kernels pass. */
    if (o->kind == OP_TABLE && (s->anchor[h] || s->anchor[cur]))
      continue;
    if (feeds_anchor(s, cur, h) || reads_from_memory(s, cur, h) || !order_for_merge(s, cur, h))
      continue;
    int at = ord_of(s, cur);
    merge(s, cur, h);
    set_ord(s, h, at);
  }
}

/* ---------------------------------------------------------------- recomputation
 * A small elementwise group whose values are only broadcast into one larger group (a [1,C]
 * BatchNorm scale, a softmax's 1/sum) is cheaper computed again per element of that group
 * than written, read and launched on its own: it merges into the consumer, whose kernel then
 * evaluates the few ops on broadcast-indexed inputs. */
#define RECOMPUTE_MAX_COST 8       /* per consuming kernel, in the units of recompute_cost */
#define RECOMPUTE_MAX_ELEMS 65536  /* largest value recomputed */

/* ALU cost of evaluating o once; -1: never recomputed (lookups, per-channel rescale). An
 * index-map transpose costs nothing: its consumer reads the input through broadcast strides. */
static int recompute_cost(const fuse_state *s, const op *o) {
  if (s->flags[o->id] & F_MAP)
    return 0;
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

/* The single group that reads group h's values, when h qualifies for recomputation; -1 else.
 * A value read by several kernels is materialised once instead: recomputing it in each would
 * multiply the work and still not save its producer's launch. */
static int recompute_target(fuse_state *s, int h, int *cost) {
  int target = -1;
  *cost = 0;
  for (int oi = s->op_head[h]; oi >= 0; oi = s->op_next[oi]) {
    const op *o = s->g->ops[oi];
    int c = recompute_cost(s, o);
    if (c < 0 || o->nresults != 1 || (s->flags[o->id] & F_RESULT) ||
        tensor_numel(o->results[0]->type) > RECOMPUTE_MAX_ELEMS)
      return -1;
    *cost += c;
    int v = o->results[0]->id;
    for (int k = s->use_start[v]; k < s->use_start[v + 1]; k++) {
      const op *u = s->g->ops[s->uses[k]];
      if (!placed(s, u->id)) {
        if (s->flags[u->id] & F_VIEW)
          return -1; /* read from memory through an alias */
        continue;    /* dead */
      }
      int x = find(s, u->id);
      if (x == h)
        continue;
      if ((target >= 0 && x != target) || op_table[u->kind].family != FAM_ELEMENTWISE)
        return -1;
      target = x;
    }
  }
  return target;
}

/* Elements of the largest first result among group x's ops (at most FUSE_MAX_OPS of them,
 * or a pattern's few): computed when asked instead of 8 bytes per op kept up to date. */
static int64_t group_space(fuse_state *s, int x) {
  int64_t space = 0;
  for (int oi = s->op_head[x]; oi >= 0; oi = s->op_next[oi]) {
    const op *o = s->g->ops[oi];
    int64_t e = o->nresults ? tensor_numel(o->results[0]->type) : 0;
    if (e > space)
      space = e;
  }
  return space;
}

/* No cycle or memory-read check is needed: every reader of h is an elementwise op of t (no
 * view, no transpose), so a path between h and t through a third group, or t's bytes read
 * from memory by h, would close a cycle. */
static bool try_recompute(fuse_state *s, int h) {
  if (s->anchor[h])
    return false;
  int cost;
  int t = recompute_target(s, h, &cost);
  if (t < 0 || !compatible(s, h, t) || s->recomputed[t] + s->recomputed[h] + cost > RECOMPUTE_MAX_COST)
    return false;
  if (group_space(s, h) >= group_space(s, t))
    return false;
  merge(s, h, t);
  s->recomputed[t] += s->recomputed[h] + cost;
  return true;
}

/* Passes over all groups until nothing changes; each pass is linear, and a pass only repeats
 * when a merge enabled another one (a chain of ever larger broadcasts), so there are few. */
static void recompute_small_groups(fuse_state *s) {
  for (bool changed = true; changed;) {
    changed = false;
    for (int i = 0; i < s->g->nops; i++) { /* the groups in the order of their first op */
      int x = s->g->ops[i]->id;
      if (s->group_of[x] < -1 && try_recompute(s, x)) /* a root */
        changed = true;
    }
  }
}

/* ---------------------------------------------------------------- per-graph facts */

/* Ops whose results reach no graph result are dead: they get no group and no kernel. */
static char *live_ops(arena *a, const graph *g) {
  char *live = arena_alloc(a, (size_t)g->nops + 1);
  char *needed = calloc((size_t)g->nvalues + 1, 1); /* freed here: placement's peak is lower */
  if (!needed)
    abort();
  for (int r = 0; r < g->nresults; r++)
    needed[g->results[r]->id] = 1;
  for (int i = g->nops - 1; i >= 0; i--) {
    const op *o = g->ops[i];
    for (int r = 0; r < o->nresults && !live[o->id]; r++)
      live[o->id] = needed[o->results[r]->id];
    for (int j = 0; live[o->id] && j < o->noperands; j++)
      needed[o->operands[j]->id] = 1;
  }
  free(needed);
  return live;
}

/* The flags (in `keep`: ordering the groups reads the views' after the rest is freed) and the
 * result flags per value (in `a`, read only before placement) into *is_result. */
static void index_graph(arena *a, arena *keep, fuse_state *s, char **is_result) {
  const graph *g = s->g;
  s->flags = arena_alloc(keep, sizeof *s->flags * ((size_t)g->nops + 1));
  *is_result = arena_alloc(a, (size_t)g->nvalues + 1);
  for (int r = 0; r < g->nresults; r++)
    (*is_result)[g->results[r]->id] = 1;
  const bool *sv = part_slice_views(a, g); /* a slice view is placed like a view */
  for (int i = 0; i < g->nops; i++) {
    const op *o = g->ops[i];
    s->flags[o->id] = (part_is_view(o) || (sv && sv[o->id]) ? F_VIEW : 0) |
                      (o->nresults && (*is_result)[o->results[0]->id] ? F_RESULT : 0);
  }
}

/* Readers of every value (CSR) into arena a; returns the number of operand reads. Made for the
 * passes before placement and again for recomputation, not kept through placement. */
static int index_uses(arena *a, fuse_state *s) {
  const graph *g = s->g;
  s->use_start = arena_alloc(a, sizeof(int) * (size_t)(g->nvalues + 2));
  int nuses = 0;
  for (int i = 0; i < g->nops; i++) {
    const op *o = g->ops[i];
    for (int j = 0; j < o->noperands; j++)
      s->use_start[o->operands[j]->id + 1]++;
    nuses += o->noperands;
  }
  for (int i = 0; i < g->nvalues; i++)
    s->use_start[i + 1] += s->use_start[i];
  s->uses = arena_alloc(a, sizeof(int) * (size_t)(nuses + 1));
  int *fill = calloc((size_t)g->nvalues + 1, sizeof(int));
  for (int i = 0; i < g->nops; i++)
    for (int j = 0; j < g->ops[i]->noperands; j++) {
      int v = g->ops[i]->operands[j]->id;
      s->uses[s->use_start[v] + fill[v]++] = g->ops[i]->id;
    }
  free(fill);
  return nuses;
}

/* Each group's ops as a list (recomputation walks them), made once placement has ended: the
 * order inside a list does not matter to recompute_target or group_space. */
static void op_lists(arena *a, fuse_state *s) {
  s->op_head = zalloc(a, s->n, sizeof(int));
  s->op_tail = zalloc(a, s->n, sizeof(int));
  s->op_next = zalloc(a, s->n, sizeof(int));
  for (size_t x = 0; x < s->n; x++)
    s->op_head[x] = -1;
  for (int i = 0; i < s->g->nops; i++) {
    int id = s->g->ops[i]->id;
    if (!placed(s, id))
      continue;
    int x = find(s, id);
    s->op_next[id] = -1;
    s->op_head[x] < 0 ? (s->op_head[x] = id) : (s->op_next[s->op_tail[x]] = id);
    s->op_tail[x] = id;
  }
}

/* Does u read its operand j as data that an elementwise kernel indexes per element (not a
 * table, shift or zero point read at compile time or through a pointer)? */
static bool reads_as_element(const op *u, int j) {
  switch (u->kind) {
  case OP_MUL: return j < 2;
  case OP_NEGATE: case OP_TABLE: case OP_RESCALE: return j == 0;
  default: return true;
  }
}

/* A transpose whose result only elementwise ops read (and is no function result) is an index
 * map: its consumers' kernel reads the input through permuted strides instead of a copy. */
static bool index_map(fuse_state *s, const char *live, const op *o) {
  if (o->kind != OP_TRANSPOSE || s->nofuse || (s->flags[o->id] & F_VIEW) || o->nresults != 1 ||
      o->noperands != 1 || o->results[0]->type->elem == ET_INDEX)
    return false;
  int v = o->results[0]->id, nlive = 0;
  if (s->flags[o->id] & F_RESULT)
    return false;
  for (int k = s->use_start[v]; k < s->use_start[v + 1]; k++) {
    const op *u = s->g->ops[s->uses[k]];
    if (!live[u->id])
      continue;
    if (op_table[u->kind].family != FAM_ELEMENTWISE)
      return false;
    for (int j = 0; j < u->noperands; j++)
      if (u->operands[j]->id == v && !reads_as_element(u, j))
        return false;
    nlive++;
  }
  return nlive > 0;
}

/* Does convolution u read v once, as its input or its weights (the operands its kernel reads
 * through strides, views.c)? */
static bool reads_through_strides(const op *u, const value *v) {
  if (u->kind != OP_CONV2D && u->kind != OP_CONV3D && u->kind != OP_TRANSPOSE_CONV2D && u->kind != OP_DEPTHWISE_CONV2D)
    return false;
  int n = 0;
  bool ab = true;
  for (int j = 0; j < u->noperands; j++)
    if (u->operands[j] == v)
      n++, ab = ab && j < 2;
  return n == 1 && ab;
}

/* A transpose or slice (or a short chain of them) whose result only a convolution's input or
 * weights read (and is no function result) is an operand view: it joins the convolution's
 * kernel, which reads the bytes under it through strides (no copy kernel). */
static bool operand_view(fuse_state *s, const char *live, const op *o, int depth) {
  if ((o->kind != OP_TRANSPOSE && o->kind != OP_SLICE) || s->nofuse || depth > 4 || o->nresults != 1 ||
      o->noperands != 1 || (s->flags[o->id] & F_VIEW) || o->results[0]->type->elem == ET_INDEX ||
      (s->flags[o->id] & F_RESULT))
    return false;
  int v = o->results[0]->id;
  const op *reader = NULL;
  for (int k = s->use_start[v]; k < s->use_start[v + 1]; k++) {
    const op *u = s->g->ops[s->uses[k]];
    if (!live[u->id])
      continue;
    if (reader)
      return false;
    reader = u;
  }
  return reader && (reads_through_strides(reader, o->results[0]) || operand_view(s, live, reader, depth + 1));
}

/* A transpose that is the only reader of a convolution's result (no epilogue between them) is
 * an output view: it joins the convolution's kernel, which stores its result through the
 * transpose's strides (an NCHW model's NHWC convolution written as NCHW); no op joins that
 * kernel afterwards (its epilogue would index the permuted space). */
static bool output_view(fuse_state *s, const char *live, const op *o) {
  if (o->kind != OP_TRANSPOSE || s->nofuse || o->nresults != 1 || o->noperands != 1 || part_is_view(o) ||
      o->results[0]->type->elem == ET_INDEX || (s->flags[o->id] & F_OPV))
    return false;
  const op *c = o->operands[0]->def;
  if (!c ||
      (c->kind != OP_CONV2D && c->kind != OP_CONV3D && c->kind != OP_TRANSPOSE_CONV2D &&
       c->kind != OP_DEPTHWISE_CONV2D) ||
      c->results[0] != o->operands[0] ||
      (s->flags[c->id] & F_RESULT))
    return false;
  int v = o->operands[0]->id, n = 0;
  for (int k = s->use_start[v]; k < s->use_start[v + 1]; k++)
    n += live[s->uses[k]] != 0;
  return n == 1;
}

/* ---------------------------------------------------------------- groups in launch order */

/* Min-heap of group numbers, for Kahn's algorithm with ties broken by number. */
static void heap_push(int *h, int *n, int x) {
  int i = (*n)++;
  for (; i > 0 && h[(i - 1) / 2] > x; i = (i - 1) / 2)
    h[i] = h[(i - 1) / 2];
  h[i] = x;
}

static int heap_pop(int *h, int *n) {
  int top = h[0], x = h[--*n], i = 0;
  for (;;) {
    int c = 2 * i + 1;
    if (c >= *n)
      break;
    if (c + 1 < *n && h[c + 1] < h[c])
      c++;
    if (h[c] >= x)
      break;
    h[i] = h[c];
    i = c;
  }
  if (*n > 0)
    h[i] = x;
  return top;
}

/* Number groups 0..n-1 topologically: among the groups whose producers are all numbered, the
 * one whose first op comes first. Edges are counted with multiplicity (one per operand read
 * across groups), which leaves the order unchanged and needs no deduplication. */
static void order_groups(arena *a, const graph *g, int *group_of, int n,
                         const unsigned short *flags) {
  int *start = arena_alloc(a, sizeof(int) * (size_t)(n + 2));
  int *indeg = arena_alloc(a, sizeof(int) * (size_t)(n + 1));
  int *fill = arena_alloc(a, sizeof(int) * (size_t)(n + 1));
  int *adj = NULL;
  for (int pass = 0; pass < 2; pass++) {
    for (int i = 0; i < g->nops; i++) {
      const op *o = g->ops[i];
      int to = group_of[o->id];
      for (int j = 0; to >= 0 && j < o->noperands; j++) {
        int d = view_root_def(flags, o->operands[j]);
        int from = d >= 0 ? group_of[d] : -1;
        if (from < 0 || from == to)
          continue;
        if (pass)
          adj[start[from] + fill[from]++] = to;
        else
          start[from + 1]++, indeg[to]++;
      }
    }
    if (!pass) {
      for (int x = 0; x < n; x++)
        start[x + 1] += start[x];
      adj = arena_alloc(a, sizeof(int) * (size_t)(start[n] + 1));
    }
  }
  int *heap = arena_alloc(a, sizeof(int) * (size_t)(n + 1)), nheap = 0;
  int *rank = arena_alloc(a, sizeof(int) * (size_t)(n + 1));
  for (int x = 0; x < n; x++)
    if (indeg[x] == 0)
      heap_push(heap, &nheap, x);
  for (int k = 0; k < n; k++) {
    int pick = heap_pop(heap, &nheap);
    rank[pick] = k;
    for (int e = start[pick]; e < start[pick + 1]; e++)
      if (--indeg[adj[e]] == 0)
        heap_push(heap, &nheap, adj[e]);
  }
  for (int i = 0; i < g->nops; i++)
    if (group_of[g->ops[i]->id] >= 0)
      group_of[g->ops[i]->id] = rank[group_of[g->ops[i]->id]];
}

/* Renumber the groups densely in the order of their first op (root_id: per op, -1 filled),
 * replacing the union-find in group_of by those numbers; returns their count. */
static int number_groups(fuse_state *s, int *root_id) {
  const graph *g = s->g;
  int ng = 0;
  for (int i = 0; i < g->nops; i++) { /* every placed op's slot to its root (roots keep theirs) */
    int id = g->ops[i]->id;
    if (!placed(s, id))
      continue;
    int r = find(s, id);
    if (r != id)
      s->group_of[id] = r;
    if (root_id[r] < 0)
      root_id[r] = ng++;
  }
  for (int i = 0; i < g->nops; i++) { /* a member reads its root's id, never its slot */
    int id = g->ops[i]->id, x = s->group_of[id];
    if (x != -1)
      s->group_of[id] = root_id[x >= 0 ? x : id];
  }
  return ng;
}

int part_fuse(arena *keep, const graph *g, const target_info *t, int *group_of) {
  /* Tables live as long as the phase that reads them, so placement's (edge lists, cycle-query
   * marks), the reader lists, liveness and result flags (before placement, and the readers
   * again for recomputation) and the op lists (recomputation) never coexist: `a` holds what
   * every phase reads and is freed before the groups are ordered, so ordering's tables do not
   * add to the peak either. */
  arena *a = arena_new(), *pa = arena_new(), *ua = arena_new();
  fuse_state s = {.g = g, .group_of = group_of, .a = pa, .n = (size_t)g->nops + 1};
  size_t n = s.n;
  s.nofuse = part_fusion_disabled();
  char *is_result;
  index_graph(ua, keep, &s, &is_result);
  size_t nedge = (size_t)index_uses(ua, &s) + 1; /* one entry per operand read */
  s.anchor = zalloc(a, n, sizeof(int));
  s.nops = zalloc(a, n, sizeof(uint16_t));
  char *live = live_ops(ua, g);
  s.att = calloc(n + 1, sizeof(int));
  if (!s.att)
    abort();
  int npat = part_attention_find(g, t, live, s.use_start, s.uses, is_result, s.att);
  npat = part_rownorm_find(ua, g, live, s.use_start, s.uses, is_result, s.att, npat);
  npat = part_mx_find(g, t, live, s.use_start, s.uses, is_result, s.att, npat);
  if (!npat) { /* no pattern: the table is not read */
    free(s.att);
    s.att = NULL;
  }
  s.att_group = zalloc(a, (size_t)npat + 1, sizeof(int));
  for (int i = 0; i < npat; i++)
    s.att_group[i] = -1;
  for (int i = 0; i < g->nops; i++) {
    const op *o = g->ops[i];
    group_of[o->id] = -1;
    s.flags[o->id] |= (live[o->id] ? F_LIVE : 0) | (index_map(&s, live, o) ? F_MAP : 0) |
                      (live[o->id] && operand_view(&s, live, o, 0) ? F_OPV : 0);
    if (live[o->id] && output_view(&s, live, o))
      s.flags[o->id] |= F_OUTV;
  }
  arena_free(ua);
  s.use_start = s.uses = NULL;
  part_marks_init(&s.nb_seen, 64);
  s.nbrcap = 64;
  s.nbr = zalloc(pa, (size_t)s.nbrcap, sizeof(int));
  /* A cycle query's two windows hold at most REACH_BUDGET + 2 groups together: each group
   * pushed beyond the two starts came from an operand edge examined while the budget lasted
   * (window). Its sets, stack and sort keys are sized by that, not by the graph. */
  size_t nw = n < REACH_BUDGET + 2 ? n : REACH_BUDGET + 2;
  s.setb = zalloc(pa, nw, sizeof(int));
  s.setf = zalloc(pa, nw, sizeof(int));
  s.keys = zalloc(pa, 2 * nw, sizeof(int64_t));
  edge_list *ls[2] = {&s.ins, &s.outs};
  for (int i = 0; i < 2; i++) {
    ls[i]->tail = zalloc(pa, n, sizeof(int));
    ls[i]->next = zalloc(pa, nedge, sizeof(int));
    ls[i]->target = zalloc(pa, nedge, sizeof(int));
  }
  part_marks_init(&s.visit, 64);
  s.stack = zalloc(pa, nw, sizeof(int));
  for (int i = 0; i < g->nops; i++) {
    const op *o = g->ops[i];
    unsigned short f = s.flags[o->id];
    if (op_table[o->kind].family != FAM_CONST && (f & F_LIVE) && !(f & F_VIEW))
      place_op(&s, o);
  }
  arena_free(pa);
  part_marks_free(&s.visit);
  part_marks_free(&s.nb_seen);
  s.ins.tail = s.outs.tail = NULL;
  s.rd_head = NULL; /* recomputation checks no memory reads (try_recompute) */
  s.a = a;
  if (!s.nofuse) {
    ua = arena_new();
    index_uses(ua, &s);
    s.recomputed = zalloc(ua, n, 1);
    op_lists(ua, &s);
    recompute_small_groups(&s);
    arena_free(ua);
  }
  int *root_id = s.anchor; /* dead once merging ends */
  for (size_t i = 0; i < n; i++)
    root_id[i] = -1;
  int ng = number_groups(&s, root_id);
  arena_free(a);
  free(s.att);
  order_groups(keep, g, group_of, ng, s.flags);
  return ng;
}
