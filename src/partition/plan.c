/* plan.c: turns fusion groups into kernels, buffers and a launch DAG for one target. */
#include "partition.h"

#include <stdlib.h>
#include <string.h>

typedef struct plan_builder {
  arena *a;   /* the plan's: what outlives part_plan */
  arena *tmp; /* the tables below (per op and value), freed when part_plan returns: with one
                 plan per target they would otherwise stay for the whole compile */
  const graph *g;
  partition_plan *p;
  int *buf_of_value; /* value id -> buffer id holding it, -1 if none */
  int nbuf_cap;
  int *readers;     /* per value id: who reads it outside its kernel (summarise_readers) */
  int *result_buf;  /* graph result index -> its BUF_OUTPUT buffer */
  int *group_start; /* group g's ops are at g->ops[group_pos[group_start[g] ..
                       group_start[g + 1] - 1]] */
  int *group_pos;
  int *op_pos;      /* op id -> index in g->ops; NULL when every op's id is its index */
  part_marks inputs; /* the values a kernel reads so far (collect_io) */
  bool *slice_views;  /* per op id: a slice view (views.c), NULL when none */
  bool *concat_views; /* per op id: a concat view (views.c), NULL when none */
} plan_builder;

static int add_buffer(plan_builder *b, buffer_kind kind, const value *v, int index) {
  part_buffer nb = {.id = b->p->nbuffers, .kind = kind, .v = v, .index = index,
                    .bytes = tensor_bytes(v->type), .align = 256};
  ARENA_PUSH(b->a, b->p->buffers, b->p->nbuffers, b->nbuf_cap, nb);
  return nb.id;
}

static bool value_in_group(const int *group_of, const value *v, int grp) {
  return v->def && group_of[v->def->id] == grp;
}

/* Who reads each value outside its producer's kernel, summarised once for the whole graph in
 * one int per value: READ_NONE, the one group that reads it, or READ_ESCAPES for a graph result
 * or a value read by two different groups (enough to answer "a group other than this one").
 * A view's readers count as readers of the value it aliases (views.c). */
enum { READ_NONE = -1, READ_ESCAPES = -2 };

static void summary_add(int *s, int grp) {
  if (*s == READ_NONE)
    *s = grp;
  else if (*s != grp)
    *s = READ_ESCAPES;
}

static int *summarise_readers(arena *a, const graph *g, const int *group_of, const bool *slice_views,
                              const bool *concat_views) {
  int *rs = arena_alloc(a, sizeof *rs * (size_t)(g->nvalues + 1));
  for (int i = 0; i < g->nvalues; i++)
    rs[i] = READ_NONE;
  for (int i = 0; i < g->nresults; i++)
    rs[g->results[i]->id] = READ_ESCAPES;
  /* Reverse topological order: a view's result is complete before it flows into its input. */
  for (int i = g->nops - 1; i >= 0; i--) {
    const op *o = g->ops[i];
    if (group_of[o->id] < 0) {
      if ((part_is_view(o) || (slice_views && slice_views[o->id])) && rs[o->results[0]->id] != READ_NONE)
        summary_add(&rs[o->operands[0]->id], rs[o->results[0]->id]);
      for (int j = 0; concat_views && concat_views[o->id] && j < o->noperands; j++) /* its pieces */
        if (rs[o->results[0]->id] != READ_NONE)
          summary_add(&rs[o->operands[j]->id], rs[o->results[0]->id]);
      continue;
    }
    for (int j = 0; j < o->noperands; j++)
      summary_add(&rs[o->operands[j]->id], group_of[o->id]);
  }
  return rs;
}

/* A value leaves its group when it is a graph result or read by an op of another group. */
static bool escapes(const plan_builder *b, const value *v, int grp) {
  int s = b->readers[v->id];
  return s == READ_ESCAPES || (s != READ_NONE && s != grp);
}

static void kernel_name(part_kernel *k) {
  int n = snprintf(k->name, sizeof k->name, "tosac_k%d", k->id);
  int shown = 0;
  for (int i = 0; i < k->nops && shown < 3; i++) {
    const char *nm = op_table[k->ops[i]->kind].name;
    if (op_table[k->ops[i]->kind].family == FAM_CONST || part_is_operand_view(k, k->ops[i]) ||
        part_is_output_view(k, k->ops[i]))
      continue;
    const char *dot = strchr(nm, '.');
    nm = dot ? dot + 1 : nm;
    if (n + 1 + (int)strlen(nm) >= (int)sizeof k->name)
      break;
    n += snprintf(k->name + n, sizeof k->name - (size_t)n, "_%s", nm);
    shown++;
  }
}

/* A constant that is one value: a splat or a single element. */
static bool const_is_immediate(const value *v) {
  const attr *a = op_attr(v->def, "values");
  return (a && a->kind == ATTR_DENSE && a->dense && a->dense->splat) || tensor_numel(v->type) == 1;
}

/* A constant an elementwise op reads is folded into the kernel's code when it is one value
 * (a splat or a single element: an immediate); every other constant is a weights buffer, so a
 * kernel's code depends on shapes and types, never on weight values. Shape constants are
 * always folded. */
static bool folds(const op *reader, const value *v) {
  if (!v->def || op_table[v->def->kind].family != FAM_CONST)
    return false;
  if (v->type->elem == ET_INDEX)
    return true;
  return op_table[reader->kind].family == FAM_ELEMENTWISE && const_is_immediate(v);
}

/* Each group's ops in graph order, bucketed once (CSR form) so that collecting a kernel's ops
 * costs its own size, not the graph's. */
/* Each group's ops' places in g->ops, in graph order, bucketed once (CSR form) so that
 * collecting a kernel's ops costs its own size, not the graph's. */
static void bucket_groups(plan_builder *b, const int *group_of, int ngroups) {
  const graph *g = b->g;
  b->group_start = arena_alloc(b->tmp, sizeof(int) * (size_t)(ngroups + 2));
  b->group_pos = arena_alloc(b->tmp, sizeof(int) * (size_t)(g->nops + 1));
  b->op_pos = NULL;
  for (int i = 0; i < g->nops && !b->op_pos; i++)
    if (g->ops[i]->id != i) { /* renumbered: a table (the parser numbers ops by place) */
      b->op_pos = arena_alloc(b->tmp, sizeof(int) * (size_t)(g->nops + 1));
      for (int k = 0; k < g->nops; k++)
        b->op_pos[g->ops[k]->id] = k;
    }
  for (int i = 0; i < g->nops; i++)
    if (group_of[g->ops[i]->id] >= 0)
      b->group_start[group_of[g->ops[i]->id] + 1]++;
  for (int grp = 0; grp < ngroups; grp++)
    b->group_start[grp + 1] += b->group_start[grp];
  int *fill = arena_alloc(b->tmp, sizeof(int) * (size_t)(ngroups + 1));
  for (int i = 0; i < g->nops; i++) {
    int grp = group_of[g->ops[i]->id];
    if (grp >= 0)
      b->group_pos[b->group_start[grp] + fill[grp]++] = i;
  }
}

static int op_position(const plan_builder *b, const op *o) {
  return b->op_pos ? b->op_pos[o->id] : o->id;
}

static int cmp_op_pos(const void *x, const void *y) {
  int a = *(const int *)x, c = *(const int *)y;
  return (a > c) - (a < c);
}

/* Collect a group's ops (with the constants they fold) in topological order. A constant two
 * of them fold is listed once: positions sorted, repeats dropped. */
static void collect_ops(plan_builder *b, int grp, part_kernel *k) {
  const graph *g = b->g;
  const int *mine = b->group_pos + b->group_start[grp];
  int n = b->group_start[grp + 1] - b->group_start[grp];
  int count = 0;
  for (int i = 0; i < n; i++) {
    const op *o = g->ops[mine[i]];
    for (int j = 0; j < o->noperands; j++)
      count += folds(o, o->operands[j]);
  }
  int *pos = malloc(sizeof(int) * (size_t)(n + count + 1)), npos = 0;
  for (int i = 0; i < n; i++) {
    const op *o = g->ops[mine[i]];
    pos[npos++] = mine[i];
    for (int j = 0; j < o->noperands; j++)
      if (folds(o, o->operands[j]))
        pos[npos++] = op_position(b, o->operands[j]->def);
  }
  if (npos > 1)
    qsort(pos, (size_t)npos, sizeof *pos, cmp_op_pos);
  k->ops = arena_alloc(b->a, sizeof(op *) * (size_t)(npos + 1));
  for (int i = 0; i < npos; i++)
    if (i == 0 || pos[i] != pos[i - 1])
      k->ops[k->nops++] = g->ops[pos[i]];
  free(pos);
}

typedef struct io_caps {
  int in, inv, off, offv;
} io_caps;

/* Value v becomes an input of k: a view reads its root's bytes, a slice view from its first
 * element, a concat view is its pieces, each an input (views.c). */
static void add_input(plan_builder *b, part_kernel *k, const value *v, io_caps *c) {
  int64_t off;
  const value *root = part_bytes_root(b->slice_views, v, &off);
  if (b->concat_views && root->def && b->concat_views[root->def->id]) {
    for (int j = 0; j < root->def->noperands; j++)
      add_input(b, k, root->def->operands[j], c);
    return;
  }
  int buf = b->buf_of_value[root->id];
  if (buf < 0) /* a constant that lives in the weights file */
    buf = b->buf_of_value[root->id] = add_buffer(b, BUF_CONSTANT, root, -1);
  if (!part_marks_add(&b->inputs, v->id))
    return; /* already an input of this kernel */
  ARENA_PUSH(b->a, k->in_bufs, k->nin, c->in, buf);
  k->nin--;
  ARENA_PUSH(b->a, k->in_vals, k->nin, c->inv, v);
  if (off) {
    ARENA_PUSH(b->a, k->in_offs, k->nin_offs, c->off, off);
    k->nin_offs--;
    ARENA_PUSH(b->a, k->in_off_vals, k->nin_offs, c->offv, v);
  }
}

static void collect_io(plan_builder *b, const int *group_of, int grp, part_kernel *k) {
  int outcap = 0, outvcap = 0;
  io_caps caps = {0};
  part_marks_clear(&b->inputs);
  for (int i = 0; i < k->nops; i++) {
    const op *o = k->ops[i];
    if (op_table[o->kind].family == FAM_CONST)
      continue;
    for (int j = 0; j < o->noperands; j++) {
      const value *v = o->operands[j];
      /* a view of a value of this group (an attention kernel's absorbed transposes) is read
       * through its index map, not from memory */
      if (value_in_group(group_of, v, grp) || value_in_group(group_of, part_view_root(v), grp) ||
          folds(o, v))
        continue;
      add_input(b, k, v, &caps);
    }
    for (int r = 0; r < o->nresults; r++) {
      const value *v = o->results[r];
      if (!escapes(b, v, grp))
        continue;
      int buf = b->buf_of_value[v->id];
      if (buf < 0)
        buf = b->buf_of_value[v->id] = add_buffer(b, BUF_INTERMEDIATE, v, -1);
      ARENA_PUSH(b->a, k->out_bufs, k->nout, outcap, buf);
      k->nout--;
      ARENA_PUSH(b->a, k->out_vals, k->nout, outvcap, v);
    }
  }
}

static launch_node *add_node(plan_builder *b, launch_kind kind, int *cap) {
  launch_node n = {.id = b->p->nnodes, .kind = kind, .kernel = -1, .src_buf = -1, .dst_buf = -1};
  ARENA_PUSH(b->a, b->p->nodes, b->p->nnodes, *cap, n);
  return &b->p->nodes[b->p->nnodes - 1];
}

/* ---------------------------------------------------------------- launch dependencies
 * Two launches conflict when one writes bytes the other reads or writes. Rather than test every
 * pair of launches against every pair of buffers, each memory location keeps its last writer
 * and the readers since that write (the classic scoreboard): a launch depends on the last
 * writer of what it reads, and on the last writer and readers of what it writes. Those edges
 * have the same transitive closure as the all-pairs relation, so the transitive reduction
 * below (unique for a DAG) is the same set of edges.
 * Locations: each buffer outside the workspace on its own; workspace bytes as the elementary
 * segments between all intermediate buffers' boundaries. A zero-byte workspace buffer touches
 * no bytes, yet the pairwise rule made it overlap any buffer strictly around its offset; those
 * rare accesses are matched against a log of all workspace accesses to keep that rule. */
typedef struct loc_state {
  int writer; /* last node that wrote it, -1 none */
  int *readers, nreaders, cap;
} loc_state;

typedef struct ws_access {
  int node, buf;
  bool write;
} ws_access;

typedef struct edge_builder {
  const partition_plan *p;
  loc_state *per_buf; /* buffers outside the workspace, and zero-byte workspace buffers */
  loc_state *segs;    /* workspace elementary segments */
  int nsegs;
  int *seg_lo, *seg_hi; /* per buffer: its segment range in the workspace */
  int *preds, npreds, pred_cap;
  int *pred_stamp; /* node id + 1 when already a predecessor of the current node */
  ws_access *log;  /* every workspace access, for zero-byte buffers */
  int nlog, log_cap;
  bool any_zero;
} edge_builder;

static bool in_workspace(const part_buffer *bf) {
  return bf->kind == BUF_INTERMEDIATE || bf->kind == BUF_WORKSPACE;
}

static void add_pred(edge_builder *e, int j, int i) {
  if (i < 0 || i >= j || e->pred_stamp[i] == j + 1)
    return;
  e->pred_stamp[i] = j + 1;
  if (e->npreds == e->pred_cap) {
    e->pred_cap = e->pred_cap ? 2 * e->pred_cap : 16;
    e->preds = realloc(e->preds, sizeof(int) * (size_t)e->pred_cap);
  }
  e->preds[e->npreds++] = i;
}

static void touch(edge_builder *e, loc_state *s, int j, bool write) {
  add_pred(e, j, s->writer);
  if (!write) {
    if (s->nreaders == s->cap) {
      s->cap = s->cap ? 2 * s->cap : 4;
      s->readers = realloc(s->readers, sizeof(int) * (size_t)s->cap);
    }
    s->readers[s->nreaders++] = j;
    return;
  }
  for (int r = 0; r < s->nreaders; r++)
    add_pred(e, j, s->readers[r]);
  s->nreaders = 0;
  s->writer = j;
}

/* The pairwise overlap rule of two workspace buffers, used for zero-byte ones. */
static bool ws_overlap(const part_buffer *x, const part_buffer *y) {
  return x->id == y->id || (x->offset < y->offset + y->bytes && y->offset < x->offset + x->bytes);
}

static void access_buf(edge_builder *e, int j, int buf, bool write) {
  if (buf < 0) /* a copy of a value no buffer holds (a shape constant) */
    return;
  const part_buffer *bf = &e->p->buffers[buf];
  if (!in_workspace(bf) || bf->bytes <= 0) {
    touch(e, &e->per_buf[buf], j, write);
  } else {
    for (int s = e->seg_lo[buf]; s < e->seg_hi[buf]; s++)
      touch(e, &e->segs[s], j, write);
  }
  if (!in_workspace(bf) || !e->any_zero)
    return;
  /* Zero-byte buffers against the log (both directions), then log this access. */
  for (int l = 0; l < e->nlog; l++) {
    const ws_access *w = &e->log[l];
    const part_buffer *other = &e->p->buffers[w->buf];
    if ((bf->bytes <= 0 || other->bytes <= 0) && w->buf != buf && (write || w->write) &&
        ws_overlap(bf, other))
      add_pred(e, j, w->node);
  }
  if (e->nlog == e->log_cap) {
    e->log_cap = e->log_cap ? 2 * e->log_cap : 64;
    e->log = realloc(e->log, sizeof(ws_access) * (size_t)e->log_cap);
  }
  e->log[e->nlog++] = (ws_access){j, buf, write};
}

static int cmp_i64(const void *x, const void *y) {
  int64_t a = *(const int64_t *)x, c = *(const int64_t *)y;
  return (a > c) - (a < c);
}

/* Elementary segments of the workspace: between consecutive distinct buffer boundaries. */
static void make_segments(edge_builder *e) {
  const partition_plan *p = e->p;
  int64_t *cut = malloc(sizeof(int64_t) * (size_t)(2 * p->nbuffers + 1));
  int ncut = 0;
  for (int x = 0; x < p->nbuffers; x++) {
    const part_buffer *bf = &p->buffers[x];
    if (!in_workspace(bf))
      continue;
    if (bf->bytes <= 0) {
      e->any_zero = true;
      continue;
    }
    cut[ncut++] = bf->offset;
    cut[ncut++] = bf->offset + bf->bytes;
  }
  if (ncut > 1)
    qsort(cut, (size_t)ncut, sizeof *cut, cmp_i64);
  int n = 0;
  for (int i = 0; i < ncut; i++)
    if (n == 0 || cut[n - 1] != cut[i])
      cut[n++] = cut[i];
  e->segs = calloc((size_t)n + 1, sizeof(loc_state));
  e->nsegs = n + 1;
  for (int s = 0; s <= n; s++)
    e->segs[s].writer = -1;
  for (int x = 0; x < p->nbuffers; x++) {
    const part_buffer *bf = &p->buffers[x];
    if (!in_workspace(bf) || bf->bytes <= 0)
      continue;
    int64_t end = bf->offset + bf->bytes;
    e->seg_lo[x] = (int)((int64_t *)bsearch(&bf->offset, cut, (size_t)n, sizeof *cut, cmp_i64) - cut);
    e->seg_hi[x] = (int)((int64_t *)bsearch(&end, cut, (size_t)n, sizeof *cut, cmp_i64) - cut);
  }
  free(cut);
}

/* Every buffer a node reads, then every buffer it writes; an atomic kernel also reads its
 * output. */
static void node_accesses(edge_builder *e, int j) {
  const partition_plan *p = e->p;
  const launch_node *n = &p->nodes[j];
  if (n->kind == LAUNCH_COPY || n->kind == LAUNCH_READBACK)
    access_buf(e, j, n->src_buf, false);
  if (n->kind == LAUNCH_IF || n->kind == LAUNCH_WHILE) { /* a WHILE reads what it carries */
    for (int i = 0; i < n->nin_bufs + (n->kind == LAUNCH_WHILE ? n->nout_bufs : 0); i++)
      access_buf(e, j, n->io_bufs[i], false);
    for (int i = 0; i < n->nout_bufs; i++)
      access_buf(e, j, n->io_bufs[n->nin_bufs + i], true);
    return;
  }
  if (n->kind != LAUNCH_KERNEL) {
    access_buf(e, j, n->dst_buf, true);
    return;
  }
  const part_kernel *k = &p->kernels[n->kernel];
  for (int i = 0; i < k->nin; i++)
    access_buf(e, j, k->in_bufs[i], false);
  for (int i = 0; k->role == KR_ATOMIC && i < k->nout; i++) /* accumulates into its output */
    access_buf(e, j, k->out_bufs[i], false);
  for (int i = 0; i < k->nout; i++)
    access_buf(e, j, k->out_bufs[i], true);
}

static int cmp_int_desc(const void *x, const void *y) {
  int a = *(const int *)x, c = *(const int *)y;
  return (a < c) - (a > c);
}

/* Conflict edges, then their transitive reduction: a predecessor is dropped when a later
 * predecessor already depends on it. Ancestor sets are bitsets of the nodes before each node
 * (n^2/2 bits in all); nodes are already in a topological order. */
static void build_edges(plan_builder *b) {
  partition_plan *p = b->p;
  int n = p->nnodes;
  edge_builder e = {.p = p};
  e.per_buf = calloc((size_t)p->nbuffers + 1, sizeof(loc_state));
  for (int x = 0; x < p->nbuffers; x++)
    e.per_buf[x].writer = -1;
  e.seg_lo = calloc((size_t)p->nbuffers + 1, sizeof(int));
  e.seg_hi = calloc((size_t)p->nbuffers + 1, sizeof(int));
  e.pred_stamp = calloc((size_t)n + 1, sizeof(int));
  make_segments(&e);
  size_t *anc_at = malloc(sizeof(size_t) * (size_t)(n + 1));
  size_t total = 0;
  for (int j = 0; j < n; j++)
    anc_at[j] = total, total += ((size_t)j + 63) / 64;
  uint64_t *anc = calloc(total + 1, sizeof(uint64_t));
  for (int j = 0; j < n; j++) {
    e.npreds = 0;
    node_accesses(&e, j);
    if (e.npreds > 1)
      qsort(e.preds, (size_t)e.npreds, sizeof(int), cmp_int_desc);
    uint64_t *mine = anc + anc_at[j];
    launch_node *nd = &p->nodes[j];
    int kept = 0;
    for (int q = 0; q < e.npreds; q++) {
      int i = e.preds[q];
      if (mine[i / 64] >> (i % 64) & 1)
        continue; /* implied by a later predecessor */
      const uint64_t *theirs = anc + anc_at[i];
      for (size_t w = 0; w < ((size_t)i + 63) / 64; w++)
        mine[w] |= theirs[w];
      mine[i / 64] |= (uint64_t)1 << (i % 64);
      e.preds[kept++] = i;
    }
    nd->deps = arena_alloc(b->a, sizeof(int) * (size_t)(kept + 1));
    for (int q = kept - 1; q >= 0; q--) /* ascending */
      nd->deps[nd->ndeps++] = e.preds[q];
  }
  free(anc);
  free(anc_at);
  for (int x = 0; x < p->nbuffers; x++)
    free(e.per_buf[x].readers);
  for (int s = 0; s < e.nsegs; s++)
    free(e.segs[s].readers);
  free(e.segs);
  free(e.per_buf);
  free(e.seg_lo);
  free(e.seg_hi);
  free(e.pred_stamp);
  free(e.preds);
  free(e.log);
  p->order = arena_alloc(b->a, sizeof(int) * (size_t)(n + 1));
  for (int i = 0; i < n; i++)
    p->order[i] = i;
  p->norder = n;
}

/* Results that no kernel writes (arguments, repeated values) become copy nodes. */
static void add_copies(plan_builder *b, int *node_cap) {
  const graph *g = b->g;
  for (int r = 0; r < g->nresults; r++) {
    const value *v = g->results[r];
    int out = b->result_buf[r];
    int src = b->buf_of_value[part_view_root(v)->id];
    if (src == out)
      continue;
    launch_node *n = add_node(b, LAUNCH_COPY, node_cap);
    n->src_buf = src;
    n->dst_buf = out;
  }
}

/* The op a kernel is built around: its first non-elementwise op. Transposes that fusion put
 * into an elementwise kernel (index maps, fuse.c) and the operand views of a convolution
 * (views.c) are read through strides, not anchors. */
static const op *find_anchor(const part_kernel *k) {
  bool elementwise = false;
  for (int i = 0; i < k->nops; i++)
    elementwise |= op_table[k->ops[i]->kind].family == FAM_ELEMENTWISE;
  for (int i = 0; i < k->nops; i++) {
    op_family f = op_table[k->ops[i]->kind].family;
    if (f != FAM_CONST && f != FAM_ELEMENTWISE && !(elementwise && k->ops[i]->kind == OP_TRANSPOSE) &&
        !part_is_operand_view(k, k->ops[i]))
      return k->ops[i]; /* before any output view: ops are in topological order */
  }
  return NULL;
}

/* Only an attention group (fuse.c, attention.c) holds two matmuls: its anchor is the second,
 * whose result (or its cast) is the kernel's output, and its family is KF_ATTENTION. */
static const op *attention_anchor(const part_kernel *k) {
  const op *last = NULL;
  int n = 0;
  for (int i = 0; i < k->nops; i++)
    if (k->ops[i]->kind == OP_MATMUL)
      last = k->ops[i], n++;
  return n == 2 ? last : NULL;
}

/* A grouped GEMM: its matmuls in launch order, the first the anchor. */
static void group_anchors(arena *a, part_kernel *k) {
  k->gemm_anchors = arena_alloc(a, sizeof(op *) * (size_t)(k->nops + 1));
  for (int i = 0; i < k->nops; i++)
    if (k->ops[i]->kind == OP_MATMUL)
      k->gemm_anchors[k->ngemm++] = k->ops[i];
  k->anchor = k->gemm_anchors[0];
  k->family = KF_GEMM;
}

/* Only a block-scaled GEMM group (mxgemm.c) puts a gather beside a matmul: its anchor. */
static const op *mx_anchor(const part_kernel *k) {
  const op *mm = NULL;
  bool gather = false;
  for (int i = 0; i < k->nops; i++) {
    gather |= k->ops[i]->kind == OP_GATHER;
    if (k->ops[i]->kind == OP_MATMUL)
      mm = k->ops[i];
  }
  return gather ? mm : NULL;
}

/* Only a row-wise normalisation group (rownorm.c) puts elementwise ops or a second reduction
 * beside a reduction. */
static bool rownorm_group(const part_kernel *k) {
  int n = 0;
  for (int i = 0; i < k->nops; i++) {
    op_family f = op_table[k->ops[i]->kind].family;
    n += f == FAM_REDUCTION || f == FAM_ELEMENTWISE;
  }
  return n > 1;
}

static kernel_family family_of(const op *anchor) {
  switch (op_table[anchor->kind].family) {
  case FAM_MATMUL: return KF_GEMM;
  case FAM_REDUCTION: return KF_REDUCTION;
  case FAM_POOL: return KF_POOL;
  case FAM_FFT: return KF_FFT;
  default: return KF_DATA;
  }
}

/* Liveness in launch positions: written first by the producing node, last read by a later one.
 * One pass over the nodes' reads and writes. */
static void liveness(const partition_plan *p, int *first, int *last) {
  for (int x = 0; x < p->nbuffers; x++)
    first[x] = p->nnodes, last[x] = -1;
  for (int i = 0; i < p->nnodes; i++) {
    const launch_node *n = &p->nodes[i];
    if ((n->kind == LAUNCH_COPY || n->kind == LAUNCH_READBACK) && n->src_buf >= 0)
      last[n->src_buf] = i; /* -1: a value no buffer holds */
    if (n->kind == LAUNCH_IF || n->kind == LAUNCH_WHILE) {
      for (int j = 0; j < n->nin_bufs + n->nout_bufs; j++)
        last[n->io_bufs[j]] = i;
      for (int j = n->nin_bufs; j < n->nin_bufs + n->nout_bufs; j++)
        first[n->io_bufs[j]] = i < first[n->io_bufs[j]] ? i : first[n->io_bufs[j]];
      continue;
    }
    if (n->kind != LAUNCH_KERNEL) {
      if (n->dst_buf >= 0 && i < first[n->dst_buf])
        first[n->dst_buf] = i;
      continue;
    }
    const part_kernel *k = &p->kernels[n->kernel];
    for (int j = 0; j < k->nin; j++)
      last[k->in_bufs[j]] = i;
    for (int j = 0; j < k->nout; j++) {
      if (i < first[k->out_bufs[j]])
        first[k->out_bufs[j]] = i;
      if (k->role == KR_ATOMIC) /* accumulates into its output */
        last[k->out_bufs[j]] = i;
    }
  }
}

/* A constant's alignment in the weights file: its size rounded up to a power of two, 16 bytes
 * (one vector load) at least and 256 at most, so small constants pack densely. */
static int64_t const_align(int64_t bytes) {
  int64_t a = 16;
  while (a < bytes && a < 256)
    a *= 2;
  return a;
}

/* Larger alignments first, each in value order: every constant then starts where the previous
 * one ends, with no padding (each alignment divides the ones before it). */
static int cmp_const_buf(const void *x, const void *y) {
  const part_buffer *a = *(const part_buffer *const *)x, *c = *(const part_buffer *const *)y;
  if (a->align != c->align)
    return (a->align < c->align) - (a->align > c->align);
  if (a->v->id != c->v->id)
    return (a->v->id > c->v->id) - (a->v->id < c->v->id);
  return (a->id > c->id) - (a->id < c->id);
}

/* Constants get weights-file offsets by alignment and value order, so every target's plan
 * agrees. The file's size is a multiple of 256. */
static int64_t place_constants(partition_plan *p, const graph *g) {
  part_buffer **cs = malloc(sizeof(part_buffer *) * (size_t)(p->nbuffers + 1));
  int n = 0;
  for (int i = 0; i < p->nbuffers; i++)
    if (p->buffers[i].kind == BUF_CONSTANT && p->buffers[i].v->id < g->nvalues) {
      cs[n] = &p->buffers[i];
      cs[n]->align = const_align(cs[n]->bytes);
      n++;
    }
  if (n > 1)
    qsort(cs, (size_t)n, sizeof *cs, cmp_const_buf);
  int64_t off = 0;
  for (int i = 0; i < n; i++) {
    cs[i]->offset = off;
    off += (cs[i]->bytes + cs[i]->align - 1) / cs[i]->align * cs[i]->align;
  }
  free(cs);
  return (off + 255) / 256 * 256;
}

uint8_t *part_weights_image(const partition_plan *p, size_t *size) {
  *size = (size_t)p->weights_bytes;
  uint8_t *img = calloc(1, *size ? *size : 1);
  if (!img)
    return NULL;
  for (int i = 0; i < p->nbuffers; i++) {
    const part_buffer *bf = &p->buffers[i];
    const attr *a = bf->kind == BUF_CONSTANT ? op_attr(bf->v->def, "values") : NULL;
    if (!a || a->kind != ATTR_DENSE || !a->dense)
      continue;
    const dense_data *dd = a->dense;
    if (!dd->splat) {
      memcpy(img + bf->offset, dd->bytes, dd->nbytes < (size_t)bf->bytes ? dd->nbytes : (size_t)bf->bytes);
      continue;
    }
    size_t es = dd->nbytes;
    for (int64_t o = 0; es && o + (int64_t)es <= bf->bytes; o += (int64_t)es)
      memcpy(img + bf->offset + o, dd->bytes, es);
  }
  return img;
}

/* Buffer holding operand or result v of a control op (a constant operand: the weights file). */
static int control_buf(plan_builder *b, const value *v) {
  const value *root = part_view_root(v);
  int *buf = &b->buf_of_value[root->id];
  if (*buf < 0) {
    bool is_const = root->def && op_table[root->def->kind].family == FAM_CONST;
    *buf = add_buffer(b, is_const ? BUF_CONSTANT : BUF_INTERMEDIATE, root, -1);
  }
  return *buf;
}

/* A control op's node: IF after a readback of its condition, WHILE after copies of the initial
 * values into the buffers it carries (its results). */
static void add_control(plan_builder *b, const op *o, int *cap) {
  int *io = arena_alloc(b->a, sizeof(int) * (size_t)(o->noperands + o->nresults + 1));
  for (int i = 0; i < o->noperands; i++)
    io[i] = control_buf(b, o->operands[i]);
  for (int r = 0; r < o->nresults; r++)
    io[o->noperands + r] = control_buf(b, o->results[r]);
  if (o->kind == OP_COND_IF) {
    launch_node *rb = add_node(b, LAUNCH_READBACK, cap);
    rb->src_buf = io[0];
  }
  for (int r = 0; o->kind == OP_WHILE_LOOP && r < o->nresults; r++) {
    if (io[r] == io[o->noperands + r])
      continue;
    launch_node *c = add_node(b, LAUNCH_COPY, cap);
    c->src_buf = io[r];
    c->dst_buf = io[o->noperands + r];
  }
  launch_node *n = add_node(b, o->kind == OP_COND_IF ? LAUNCH_IF : LAUNCH_WHILE, cap);
  n->ctl = o;
  n->io_bufs = io;
  n->nin_bufs = o->noperands;
  n->nout_bufs = o->nresults;
  n->cond = -1;
}

/* ---------------------------------------------------------------- concatenation in place */

/* Is v the one value a GEMM-family kernel (a convolution or matmul with its elementwise
 * epilogue; no output view, no grouped GEMM, no attention) computes for other kernels? */
static bool slot_producer(const plan_builder *b, const int *group_of, const char *grouped,
                          const value *v) {
  const op *d = v->def;
  if (!d || v->is_arg || op_table[d->kind].family == FAM_CONST || group_of[d->id] < 0 ||
      grouped[group_of[d->id]])
    return false;
  const op *c = d->kind == OP_TRANSPOSE ? d->operands[0]->def : NULL; /* an output view's anchor */
  if (d->kind == OP_TRANSPOSE &&
      (!c || op_table[c->kind].family != FAM_MATMUL || group_of[c->id] != group_of[d->id]))
    return false;
  int grp = group_of[d->id], anchors = 0;
  for (int i = b->group_start[grp]; i < b->group_start[grp + 1]; i++) {
    const op *o = b->g->ops[b->group_pos[i]];
    int fam = op_table[o->kind].family;
    if (fam == FAM_MATMUL)
      anchors++;
    else if (fam != FAM_ELEMENTWISE && fam != FAM_CONST && o->kind != OP_TRANSPOSE && o->kind != OP_SLICE)
      return false;
    for (int r = 0; r < o->nresults; r++)
      if (o->results[r] != v && escapes(b, o->results[r], grp))
        return false;
  }
  return anchors == 1;
}

/* A tosa.concat alone in its group whose every operand (or the value a view of it reshapes) is
 * the one result of a GEMM-family kernel that nothing else reads: those kernels store into
 * their slices of the concat's buffer (part_slot) and the concat launches nothing. Marks
 * in_place[concat op id], binds the operands' buffers to the concat's, fills slots[value id]. */
static void plan_concat(plan_builder *b, const int *group_of, const char *grouped, const op *c,
                        char *in_place, part_slot *slots) {
  int grp = group_of[c->id];
  if (c->nresults != 1 || grp < 0 || b->group_start[grp + 1] - b->group_start[grp] != 1)
    return;
  const tensor_type *rt = c->results[0]->type;
  int64_t axis = op_attr_int(c, "axis", -1);
  if (axis < 0 || axis >= rt->rank || rt->elem == ET_INDEX || rt->elem == ET_I1 ||
      elem_type_bytes(rt->elem) < 1)
    return;
  int64_t inner = 1;
  for (int d = (int)axis + 1; d < rt->rank; d++)
    inner *= rt->dims[d];
  for (int j = 0; j < c->noperands; j++) {
    const value *u = c->operands[j], *v = part_view_root(u);
    if (b->readers[u->id] != grp || b->readers[v->id] != grp || b->buf_of_value[v->id] >= 0 ||
        u->type->rank != rt->rank || !slot_producer(b, group_of, grouped, v))
      return;
    for (int i = 0; i < j; i++)
      if (part_view_root(c->operands[i]) == v)
        return;
  }
  int buf = b->buf_of_value[c->results[0]->id];
  if (buf < 0)
    buf = b->buf_of_value[c->results[0]->id] = add_buffer(b, BUF_INTERMEDIATE, c->results[0], -1);
  int64_t at = 0;
  for (int j = 0; j < c->noperands; j++) {
    const value *u = c->operands[j], *v = part_view_root(u);
    b->buf_of_value[v->id] = buf;
    slots[v->id] = (part_slot){v, u->type->dims[axis] * inner, rt->dims[axis] * inner, at * inner};
    at += u->type->dims[axis];
  }
  in_place[c->id] = 1;
}

static partition_plan *build_plan(arena *a, arena *tmp, const graph *g, const target_request *t,
                                  diag_sink *d) {
  part_explicit_captures(a, (graph *)g); /* control regions read only their arguments */
  partition_plan *p = arena_alloc(a, sizeof *p);
  p->target = t;
  p->workspace_align = 256;
  plan_builder b = {.a = a, .tmp = tmp, .g = g, .p = p};
  int *group_of = arena_alloc(tmp, sizeof(int) * (size_t)(g->nops + 1));
  /* fusion's per-op tables (a few hundred bytes per op) die with it: a scratch arena, so a
   * million-op graph does not keep them through code generation; it runs before the buffer
   * tables exist, which so do not add to its peak */
  arena *scratch = arena_new();
  int ngroups = part_fuse(scratch, g, t->info, group_of);
  arena_free(scratch);
  b.buf_of_value = arena_alloc(tmp, sizeof(int) * (size_t)(g->nvalues + 1));
  for (int i = 0; i < g->nvalues; i++)
    b.buf_of_value[i] = -1;
  for (int i = 0; i < g->nargs; i++)
    b.buf_of_value[g->args[i]->id] = add_buffer(&b, BUF_INPUT, g->args[i], i);
  b.result_buf = arena_alloc(tmp, sizeof(int) * (size_t)(g->nresults + 1));
  for (int r = 0; r < g->nresults; r++) {
    int buf = b.result_buf[r] = add_buffer(&b, BUF_OUTPUT, g->results[r], r);
    const value *v = part_view_root(g->results[r]); /* its producer writes the result */
    /* The first result naming a computed value holds it; arguments, constants and repeats
     * are copied. */
    bool is_const = v->def && op_table[v->def->kind].family == FAM_CONST;
    if (!v->is_arg && !is_const && b.buf_of_value[v->id] < 0)
      b.buf_of_value[v->id] = buf;
  }

  char *grouped = arena_alloc(tmp, (size_t)ngroups + 1);
  ngroups = part_group_gemms(g, t->info, group_of, ngroups, grouped);
  ngroups = part_pair_gemms(g, t->info, group_of, ngroups, grouped);
  char *prologue_op = arena_alloc(tmp, (size_t)g->nops + 1);
  memset(prologue_op, 0, (size_t)g->nops + 1);
  ngroups = part_norm_gemv(g, t->info, group_of, ngroups, grouped, prologue_op);
  b.slice_views = part_slice_views(tmp, g);
  for (int i = 0; b.slice_views && i < g->nops; i++) /* placed: a convolution's operand view */
    b.slice_views[g->ops[i]->id] &= group_of[g->ops[i]->id] < 0;
  b.readers = summarise_readers(tmp, g, group_of, b.slice_views, NULL);
  b.concat_views = part_concat_views(tmp, g, t->info, group_of, ngroups, grouped, b.slice_views, b.readers);
  if (b.concat_views) /* their readers read the pieces */
    b.readers = summarise_readers(tmp, g, group_of, b.slice_views, b.concat_views);
  bucket_groups(&b, group_of, ngroups);
  char *in_place = arena_alloc(tmp, (size_t)g->nops + 1);
  memset(in_place, 0, (size_t)g->nops + 1);
  /* one slot per value only when there is a concatenation: a million-op graph has none */
  part_slot *slots = NULL;
  for (int i = 0; i < g->nops && !part_fusion_disabled(); i++)
    if (g->ops[i]->kind == OP_CONCAT && !(b.concat_views && b.concat_views[g->ops[i]->id])) {
      if (!slots) {
        slots = arena_alloc(tmp, sizeof *slots * (size_t)(g->nvalues + 1));
        memset(slots, 0, sizeof *slots * (size_t)(g->nvalues + 1));
      }
      plan_concat(&b, group_of, grouped, g->ops[i], in_place, slots);
    }
  part_marks_init(&b.inputs, 64);
  p->kernels = arena_alloc(a, sizeof(part_kernel) * (size_t)(ngroups + 1));
  int node_cap = 0;
  for (int grp = 0; grp < ngroups; grp++) {
    part_kernel *k = &p->kernels[p->nkernels];
    k->id = p->nkernels++;
    collect_ops(&b, grp, k);
    const op *ctl = k->nops ? part_control_op(k->ops, k->nops) : NULL;
    if (!k->nops || (k->nops == 1 && in_place[k->ops[0]->id])) { /* its producers wrote it
                                                                    (plan_concat), a concat view */
      *k = (part_kernel){0};
      p->nkernels--;
      continue;
    }
    if (ctl) { /* a control node, not a kernel (control.c) */
      add_control(&b, ctl, &node_cap);
      *k = (part_kernel){0};
      p->nkernels--;
      continue;
    }
    collect_io(&b, group_of, grp, k);
    k->anchor = find_anchor(k);
    for (int i = 0; i < k->nops; i++) /* a row norm before a skinny GEMM (group.c) */
      if (prologue_op[k->ops[i]->id] && op_table[k->ops[i]->kind].family != FAM_CONST) {
        if (!k->prologue)
          k->prologue = arena_alloc(a, sizeof(op *) * (size_t)k->nops);
        k->prologue[k->nprologue++] = k->ops[i];
        k->prologue_tile |= prologue_op[k->ops[i]->id] == 2;
      }
    for (int i = 0; i < k->nops && k->nprologue; i++)
      if (op_table[k->ops[i]->kind].family == FAM_MATMUL) {
        k->anchor = k->ops[i];
        break;
      }
    if (k->anchor && op_table[k->anchor->kind].family == FAM_OTHER) {
      diag_error(d, k->anchor->loc, "operation '%s' cannot be compiled into a kernel yet",
                 op_table[k->anchor->kind].name);
      part_marks_free(&b.inputs);
      return NULL;
    }
    k->family = k->anchor ? family_of(k->anchor) : KF_ELEMENTWISE;
    const op *att = grouped[grp] ? NULL : attention_anchor(k);
    if (grouped[grp])
      group_anchors(a, k);
    k->dual_b = grouped[grp] == GROUP_DUAL;
    const op *mx = grouped[grp] || att ? NULL : mx_anchor(k);
    if (mx) {
      k->anchor = mx, k->family = KF_MXGEMM;
    } else if (att) {
      k->anchor = att, k->family = KF_ATTENTION;
      k->causal = part_attention_causal(k, &k->causal_offset);
    } else if (k->family == KF_REDUCTION && rownorm_group(k))
      k->family = KF_ROWNORM;
    k->iter = k->anchor ? *k->anchor->results[0]->type : *k->out_vals[0]->type;
    if (k->nout && slots && slots[k->out_vals[0]->id].v) {
      if (k->family != KF_GEMM || k->nout != 1) {
        diag_error(d, k->out_vals[0]->loc, "internal error: kernel '%s' cannot store into a concatenation",
                   k->name);
        part_marks_free(&b.inputs);
        return NULL;
      }
      k->slot = slots[k->out_vals[0]->id];
    }
    kernel_name(k);
    if (att)
      snprintf(k->name, sizeof k->name, "tosac_k%d_attention", k->id);
    else if (mx)
      snprintf(k->name, sizeof k->name, "tosac_k%d_mxgemm", k->id);
    else if (k->dual_b)
      snprintf(k->name, sizeof k->name, "tosac_k%d_matmul_dual", k->id);
    else if (k->ngemm)
      snprintf(k->name, sizeof k->name, "tosac_k%d_%smatmul_group%d", k->id, k->nprologue ? "rownorm_" : "",
               k->ngemm);
    else if (k->nprologue)
      snprintf(k->name, sizeof k->name, "tosac_k%d_rownorm_%s", k->id,
               k->anchor->kind == OP_MATMUL ? "matmul" : "fully_connected");
    else if (k->family == KF_ROWNORM) {
      snprintf(k->name, sizeof k->name, "tosac_k%d_rownorm", k->id);
      k->iter = *k->anchor->operands[0]->type; /* the rows */
    }
    launch_node *n = add_node(&b, LAUNCH_KERNEL, &node_cap);
    n->kernel = k->id;
  }
  /* A constant result is copied from the weights file, unless it is one value (a splat): a
   * kernel that holds just that value writes it. */
  for (int r = 0; r < g->nresults; r++) {
    const value *v = part_view_root(g->results[r]);
    if (!v->def || op_table[v->def->kind].family != FAM_CONST || v->type->elem == ET_INDEX)
      continue;
    int out = b.result_buf[r];
    if (b.buf_of_value[v->id] >= 0)
      continue; /* a weights buffer already, or an earlier result: add_copies handles it */
    if (!const_is_immediate(v)) {
      b.buf_of_value[v->id] = add_buffer(&b, BUF_CONSTANT, v, -1);
      continue;
    }
    b.buf_of_value[v->id] = out;
    p->kernels = arena_grow(a, p->kernels, sizeof(part_kernel), (size_t)p->nkernels,
                            (size_t)p->nkernels + 2);
    part_kernel *k = &p->kernels[p->nkernels];
    k->id = p->nkernels++;
    k->family = KF_ELEMENTWISE;
    k->ops = arena_alloc(a, sizeof(op *));
    k->ops[k->nops++] = v->def;
    k->out_bufs = arena_alloc(a, sizeof(int));
    k->out_vals = arena_alloc(a, sizeof(value *));
    k->out_bufs[0] = out;
    k->out_vals[0] = v;
    k->nout = 1;
    k->iter = *v->type;
    snprintf(k->name, sizeof k->name, "tosac_k%d_const", k->id);
    launch_node *n = add_node(&b, LAUNCH_KERNEL, &node_cap);
    n->kernel = k->id;
  }
  part_marks_free(&b.inputs);
  add_copies(&b, &node_cap);
  if (!part_expand(a, g, p, d)) /* large reductions: fill + atomic, or partial + combine */
    return NULL;
  part_link_conditions(p); /* expand renumbered the nodes */
  for (int i = 0; i < p->nkernels; i++) { /* split-K partials, im2col: workspace, not the slice */
    part_kernel *k = &p->kernels[i];
    bool stores = false;
    for (int j = 0; j < k->nout; j++)
      stores |= k->slot.v && k->out_vals[j] == k->slot.v;
    if (!stores)
      k->slot = (part_slot){0};
  }

  int *first = arena_alloc(a, sizeof(int) * (size_t)(p->nbuffers + 1));
  int *last = arena_alloc(a, sizeof(int) * (size_t)(p->nbuffers + 1));
  liveness(p, first, last);
  int *inplace_of = arena_alloc(a, sizeof(int) * (size_t)(p->nbuffers + 1));
  part_inplace_pairs(g, p, first, last, inplace_of);
  p->workspace_bytes = part_place_workspace(p->buffers, p->nbuffers, first, last, inplace_of, &p->workspace_zeroed);
  part_mark_aliasing(p, inplace_of);
  p->weights_bytes = place_constants(p, g);
  build_edges(&b);
  if (!part_expand_control(a, p, d)) /* the regions' launches (control.c) */
    return NULL;
  part_dedup(p);
  return p;
}

partition_plan *part_plan(arena *a, const graph *g, const target_request *t, diag_sink *d) {
  arena *tmp = arena_new();
  partition_plan *p = build_plan(a, tmp, g, t, d);
  arena_free(tmp);
  return p;
}

static const char *buffer_kind_name(buffer_kind k) {
  static const char *names[] = {"input", "output", "intermediate", "workspace", "constant"};
  return names[k];
}

void part_print(FILE *out, const graph *g, const partition_plan *p) {
  char ty[128];
  fprintf(out, "target %s: %d kernels, %d launches, workspace %lld bytes\n", p->target->id,
          p->nkernels, p->nnodes, (long long)p->workspace_bytes);
  for (int i = 0; i < p->nbuffers; i++) {
    const part_buffer *bf = &p->buffers[i];
    fprintf(out, "  buffer %d %s %s %lld bytes", bf->id, buffer_kind_name(bf->kind),
            tensor_type_str(bf->v->type, ty, sizeof ty), (long long)bf->bytes);
    if (bf->kind == BUF_INTERMEDIATE || bf->kind == BUF_WORKSPACE)
      fprintf(out, " at workspace+%lld", (long long)bf->offset);
    if (bf->inplace)
      fprintf(out, " (in place of b%d)", bf->inplace - 1);
    if (bf->kind == BUF_CONSTANT)
      fprintf(out, " at weights+%lld", (long long)bf->offset);
    fputc('\n', out);
  }
  for (int i = 0; i < p->nkernels; i++) {
    const part_kernel *k = &p->kernels[i];
    fprintf(out, "  kernel %d %s over %s\n", k->id, k->name,
            tensor_type_str(&k->iter, ty, sizeof ty));
    for (int j = 0; j < k->nops; j++) {
      const op *o = k->ops[j];
      fprintf(out, "    %s", op_table[o->kind].name);
      if (src_loc_file(o->loc))
        fprintf(out, " at %s:%d:%d", src_loc_file(o->loc)->path, (int)o->loc.line, o->loc.col);
      fputc('\n', out);
    }
    fprintf(out, "    reads");
    for (int j = 0; j < k->nin; j++) {
      fprintf(out, " b%d", k->in_bufs[j]);
      int64_t off = part_input_offset(k, k->in_vals[j]);
      if (off) /* a slice view (views.c) */
        fprintf(out, " (from element %lld)", (long long)off);
    }
    fprintf(out, "; writes");
    for (int j = 0; j < k->nout; j++)
      fprintf(out, " b%d", k->out_bufs[j]);
    if (k->causal && k->role != KR_COMBINE)
      fprintf(out, "; causal mask, key j of query i masked for j > i + %lld",
              (long long)k->causal_offset);
    if (k->slot.v) /* concatenation in place (plan_concat) */
      fprintf(out, " (slice of the concatenation: %lld of every %lld elements from element %lld)",
              (long long)k->slot.block, (long long)k->slot.dst_block, (long long)k->slot.start);
    fputc('\n', out);
    part_attention_print_split(out, k, p->target->info);
  }
  for (int i = 0; i < p->nnodes; i++) {
    const launch_node *n = &p->nodes[i];
    if (n->kind == LAUNCH_KERNEL)
      fprintf(out, "  launch %d: kernel %d", n->id, n->kernel);
    else if (n->kind == LAUNCH_FILL)
      fprintf(out, "  launch %d: fill b%d with 0x%llx", n->id, n->dst_buf,
              (unsigned long long)n->fill_bits);
    else if (n->kind == LAUNCH_COPY)
      fprintf(out, "  launch %d: copy b%d -> b%d", n->id, n->src_buf, n->dst_buf);
    else if (n->kind == LAUNCH_READBACK)
      fprintf(out, "  launch %d: readback b%d", n->id, n->src_buf);
    else
      part_print_control(out, n);
    fprintf(out, " after [");
    for (int j = 0; j < n->ndeps; j++)
      fprintf(out, "%s%d", j ? " " : "", n->deps[j]);
    fprintf(out, "]\n");
  }
  (void)g;
}
