/* control.c: data-dependent tosa.cond_if and tosa.while_loop as control nodes of the launch
 * graph. Each region is planned like a graph of its own (its arguments bound to the buffers of
 * the control op's operands, or of the values a loop carries) and its kernels, buffers and
 * launches are appended to the plan; the control node lists the region's launches. A
 * condition reaches the host through a readback node. Regions get workspace of their own past
 * the plan's, so nothing live around the control node is overwritten. docs/partitioning.md. */
#include "partition.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const op *part_control_op(const op *const *ops, int n) {
  for (int i = 0; i < n; i++)
    if (ops[i]->kind == OP_COND_IF || ops[i]->kind == OP_WHILE_LOOP)
      return ops[i];
  return NULL;
}

/* ---------------------------------------------------------------- captured values */

static bool defined_in(const graph *g, const value *v) {
  return v->id >= 0 && v->id < g->nvalues && g->values[v->id] == v;
}

static void replace_uses(graph *g, const value *from, value *to) {
  for (int i = 0; i < g->nops; i++)
    for (int j = 0; j < g->ops[i]->noperands; j++)
      if (g->ops[i]->operands[j] == from)
        g->ops[i]->operands[j] = to;
  for (int r = 0; r < g->nresults; r++)
    if (g->results[r] == from)
      g->results[r] = to;
}

static void add_capture(arena *a, op *o, value *c) {
  value **ops = arena_alloc(a, sizeof(value *) * (size_t)(o->noperands + 1));
  memcpy(ops, o->operands, sizeof(value *) * (size_t)o->noperands);
  ops[o->noperands++] = c;
  o->operands = ops;
  for (int r = 0; r < o->nregions; r++) {
    graph *rg = op_regions(o)[r];
    value *v = arena_alloc(a, sizeof *v);
    *v = (value){.id = rg->nvalues, .name = c->name, .type = c->type, .is_arg = 1,
                 .loc = c->loc};
    size_t vcap = (size_t)rg->nvalues, acap = (size_t)rg->nargs;
    rg->values = arena_grow(a, rg->values, sizeof(value *), vcap, vcap + 1);
    rg->values[rg->nvalues++] = v;
    rg->args = arena_grow(a, rg->args, sizeof(value *), acap, acap + 1);
    rg->args[rg->nargs++] = v;
    replace_uses(rg, c, v);
  }
}

/* The next value a region of o reads without defining it, or NULL. */
static value *next_capture(const op *o) {
  for (int r = 0; r < o->nregions; r++) {
    const graph *rg = op_regions(o)[r];
    for (int i = 0; i < rg->nops; i++)
      for (int j = 0; j < rg->ops[i]->noperands; j++)
        if (!defined_in(rg, rg->ops[i]->operands[j]))
          return rg->ops[i]->operands[j];
    for (int k = 0; k < rg->nresults; k++)
      if (!defined_in(rg, rg->results[k]))
        return rg->results[k];
  }
  return NULL;
}

void part_explicit_captures(arena *a, graph *g) {
  for (int i = 0; i < g->nops; i++) {
    op *o = g->ops[i];
    for (int r = 0; r < o->nregions; r++) /* inner ops first: their captures become operands */
      part_explicit_captures(a, op_regions(o)[r]);
    for (value *c; (c = next_capture(o));)
      add_capture(a, o, c);
  }
}

/* ---------------------------------------------------------------- conditions after expansion */

void part_link_conditions(partition_plan *p) {
  for (int i = 1; i < p->nnodes; i++)
    if (p->nodes[i].kind == LAUNCH_IF && p->nodes[i - 1].kind == LAUNCH_READBACK)
      p->nodes[i].cond = i - 1;
}

/* ---------------------------------------------------------------- merging a region's plan */

static int64_t align_up(int64_t x, int64_t a) { return (x + a - 1) / a * a; }

static int push_buffer(arena *a, partition_plan *p, part_buffer b) {
  p->buffers = arena_grow(a, p->buffers, sizeof b, (size_t)p->nbuffers, (size_t)p->nbuffers + 1);
  b.id = p->nbuffers;
  p->buffers[p->nbuffers++] = b;
  return b.id;
}

static launch_node *push_node(arena *a, partition_plan *p, launch_node n) {
  p->nodes = arena_grow(a, p->nodes, sizeof n, (size_t)p->nnodes, (size_t)p->nnodes + 1);
  n.id = p->nnodes;
  p->nodes[p->nnodes++] = n;
  return &p->nodes[n.id];
}

static int *map_ids(arena *a, const int *ids, int n, const int *map, int base) {
  int *v = arena_alloc(a, sizeof(int) * (size_t)(n + 1));
  for (int i = 0; i < n; i++)
    v[i] = ids[i] < 0 ? ids[i] : map ? map[ids[i]] : ids[i] + base;
  return v;
}

/* "tosac_k<old>_rest" -> "tosac_k<id>_rest": names stay unique in the merged plan. */
static void rename_kernel(part_kernel *k, int id) {
  const char *rest = k->name;
  if (!strncmp(rest, "tosac_k", 7))
    for (rest += 7; *rest >= '0' && *rest <= '9'; rest++) {
    }
  char tail[sizeof k->name];
  snprintf(tail, sizeof tail, "%s", rest);
  char name[sizeof k->name + 16];
  int n = snprintf(name, sizeof name, "tosac_k%d", id);
  size_t keep = strnlen(tail, sizeof k->name - 1 - (size_t)n);
  memcpy(name + n, tail, keep);
  name[(size_t)n + keep] = 0;
  memcpy(k->name, name, (size_t)n + keep + 1);
}

/* Append region plan sp to p. Its inputs are p's buffers in_map[index]; its outputs p's
 * out_map[index], or (out_map NULL) new buffers after its workspace, returned in fresh.
 * Everything else it allocates moves to workspace offset `base`. Returns the workspace end. */
typedef struct region_merge {
  const int *in_map, *out_map;
  int *fresh;
  int64_t base;
  int *list, nlist; /* the region's launches, in order */
} region_merge;

static int64_t merge_plan(arena *a, partition_plan *p, const partition_plan *sp, region_merge *m) {
  int *bmap = arena_alloc(a, sizeof(int) * (size_t)(sp->nbuffers + 1));
  int64_t end = m->base + align_up(sp->workspace_bytes, 256);
  for (int i = 0; i < sp->nbuffers; i++) {
    part_buffer b = sp->buffers[i];
    if (b.kind == BUF_INPUT) {
      bmap[i] = m->in_map[b.index];
      continue;
    }
    if (b.kind == BUF_OUTPUT && m->out_map) {
      bmap[i] = m->out_map[b.index];
      continue;
    }
    if (b.kind == BUF_OUTPUT) { /* a new buffer the control node copies or reads back */
      b.kind = BUF_INTERMEDIATE, b.offset = end, b.inplace = 0;
      end += align_up(b.bytes > 0 ? b.bytes : 1, 256);
    } else if (b.kind == BUF_INTERMEDIATE || b.kind == BUF_WORKSPACE) {
      b.offset += m->base;
    }
    b.index = -1;
    bmap[i] = push_buffer(a, p, b);
    if (sp->buffers[i].kind == BUF_OUTPUT)
      m->fresh[sp->buffers[i].index] = bmap[i];
  }
  for (int i = 0; i < sp->nbuffers; i++) /* in-place partners (both in the region) */
    if (sp->buffers[i].inplace && sp->buffers[i].kind == BUF_INTERMEDIATE)
      p->buffers[bmap[i]].inplace = 1 + bmap[sp->buffers[i].inplace - 1];
  int kbase = p->nkernels, nbase = p->nnodes;
  p->kernels = arena_grow(a, p->kernels, sizeof(part_kernel), (size_t)p->nkernels,
                          (size_t)(p->nkernels + sp->nkernels + 1));
  for (int i = 0; i < sp->nkernels; i++) {
    part_kernel k = sp->kernels[i];
    k.id = kbase + i;
    k.in_bufs = map_ids(a, k.in_bufs, k.nin, bmap, 0);
    k.out_bufs = map_ids(a, k.out_bufs, k.nout, bmap, 0);
    k.reuses = 0;
    rename_kernel(&k, k.id);
    p->kernels[p->nkernels++] = k;
  }
  for (int i = 0; i < sp->nnodes; i++) {
    launch_node n = sp->nodes[i];
    n.kernel = n.kind == LAUNCH_KERNEL ? n.kernel + kbase : -1;
    n.src_buf = n.src_buf >= 0 ? bmap[n.src_buf] : -1;
    n.dst_buf = n.dst_buf >= 0 ? bmap[n.dst_buf] : -1;
    n.deps = map_ids(a, n.deps, n.ndeps, NULL, nbase);
    n.io_bufs = map_ids(a, n.io_bufs, n.nin_bufs + n.nout_bufs, bmap, 0);
    n.cond = n.cond >= 0 ? n.cond + nbase : -1;
    for (int r = 0; r < 2; r++)
      n.region[r] = map_ids(a, n.region[r], n.nregion[r], NULL, nbase);
    n.in_region = true;
    push_node(a, p, n);
  }
  m->list = map_ids(a, sp->order, sp->norder, NULL, nbase);
  m->nlist = sp->norder;
  return end;
}

/* Nodes of list that no other node of it waits for: after them the region is done. */
static int sinks(const partition_plan *p, const int *list, int n, int *out) {
  int k = 0;
  for (int i = 0; i < n; i++) {
    bool waited = false;
    for (int j = 0; j < n && !waited; j++)
      for (int d = 0; d < p->nodes[list[j]].ndeps && !waited; d++)
        waited = p->nodes[list[j]].deps[d] == list[i];
    if (!waited)
      out[k++] = list[i];
  }
  return k;
}

/* Append node x (deps: the sinks of list) to list; returns the grown list. */
static int *append_after(arena *a, partition_plan *p, launch_node x, int **list, int *n) {
  int *deps = arena_alloc(a, sizeof(int) * (size_t)(*n + 1));
  x.ndeps = sinks(p, *list, *n, deps);
  x.deps = deps;
  x.in_region = true;
  launch_node *nd = push_node(a, p, x);
  *list = arena_grow(a, *list, sizeof(int), (size_t)*n, (size_t)*n + 1);
  (*list)[(*n)++] = nd->id;
  return *list;
}

/* A region's plan. Regions share workspace past the parent's (both branches of an if start at
 * the same offset), so a region keeps no zeroed bytes: its splits take the combine kernel. */
static partition_plan *region_plan(arena *a, const graph *g, const target_request *t, diag_sink *d) {
  bool allowed = cg_tuning_allow_fixup(false);
  partition_plan *sp = part_plan(a, g, t, d);
  cg_tuning_allow_fixup(allowed);
  return sp;
}

static bool expand_if(arena *a, partition_plan *p, int at, diag_sink *d) {
  launch_node n = p->nodes[at];
  int64_t base = align_up(p->workspace_bytes, 256), end = base;
  for (int r = 0; r < 2; r++) { /* only one branch runs: both start at base */
    partition_plan *sp = region_plan(a, op_regions(n.ctl)[r], p->target, d);
    if (!sp)
      return false;
    region_merge m = {.in_map = n.io_bufs + 1, .out_map = n.io_bufs + n.nin_bufs, .base = base};
    int64_t e = merge_plan(a, p, sp, &m);
    end = e > end ? e : end;
    p->nodes[at].region[r] = m.list, p->nodes[at].nregion[r] = m.nlist;
  }
  p->workspace_bytes = end;
  return true;
}

static bool expand_while(arena *a, partition_plan *p, int at, diag_sink *d) {
  launch_node n = p->nodes[at];
  int nc = n.nout_bufs; /* region arguments: the carried buffers, then captured operands */
  int *in_map = arena_alloc(a, sizeof(int) * (size_t)(n.nin_bufs + 1));
  for (int i = 0; i < n.nin_bufs; i++)
    in_map[i] = i < nc ? n.io_bufs[n.nin_bufs + i] : n.io_bufs[i];
  int *fresh = arena_alloc(a, sizeof(int) * (size_t)(nc + 2));
  int64_t base = align_up(p->workspace_bytes, 256);
  for (int r = 0; r < 2; r++) { /* cond then body, one after the other in the workspace */
    partition_plan *sp = region_plan(a, op_regions(n.ctl)[r], p->target, d);
    if (!sp)
      return false;
    region_merge m = {.in_map = in_map, .fresh = fresh, .base = base};
    base = align_up(merge_plan(a, p, sp, &m), 256);
    if (r == 0) { /* the condition to the host */
      launch_node rb = {.kind = LAUNCH_READBACK, .kernel = -1, .src_buf = fresh[0], .dst_buf = -1,
                        .cond = -1};
      append_after(a, p, rb, &m.list, &m.nlist);
      p->nodes[at].cond = m.list[m.nlist - 1];
    } else { /* the body's results become the carried values */
      for (int i = 0; i < nc; i++) {
        launch_node c = {.kind = LAUNCH_COPY, .kernel = -1, .src_buf = fresh[i],
                         .dst_buf = n.io_bufs[n.nin_bufs + i], .cond = -1};
        append_after(a, p, c, &m.list, &m.nlist);
      }
    }
    p->nodes[at].region[r] = m.list, p->nodes[at].nregion[r] = m.nlist;
  }
  p->workspace_bytes = base;
  return true;
}

/* Region constants go after the plan's in the weights file, in buffer order. */
static void place_region_constants(partition_plan *p, int first_buffer) {
  for (int i = first_buffer; i < p->nbuffers; i++) {
    part_buffer *b = &p->buffers[i];
    if (b->kind != BUF_CONSTANT)
      continue;
    b->offset = p->weights_bytes;
    p->weights_bytes += align_up(b->bytes, b->align ? b->align : 256);
  }
}

bool part_expand_control(arena *a, partition_plan *p, diag_sink *d) {
  int top = p->nnodes, nb = p->nbuffers;
  for (int i = 0; i < top; i++) {
    launch_kind k = p->nodes[i].kind;
    if ((k == LAUNCH_IF && !expand_if(a, p, i, d)) || (k == LAUNCH_WHILE && !expand_while(a, p, i, d)))
      return false;
    if (k == LAUNCH_IF && p->nodes[i].cond >= 0) { /* the IF waits for its readback */
      launch_node *n = &p->nodes[i];
      bool has = false;
      for (int j = 0; j < n->ndeps; j++)
        has |= n->deps[j] == n->cond;
      if (!has) {
        n->deps = arena_grow(a, n->deps, sizeof(int), (size_t)n->ndeps, (size_t)n->ndeps + 1);
        n->deps[n->ndeps++] = n->cond;
      }
    }
  }
  place_region_constants(p, nb);
  return true;
}

void part_print_control(FILE *out, const launch_node *n) {
  fprintf(out, "  launch %d: %s", n->id, n->kind == LAUNCH_IF ? "if" : "while");
  if (n->kind == LAUNCH_IF)
    fprintf(out, " readback %d", n->cond);
  for (int r = 0; r < 2; r++) {
    static const char *const names[2][2] = {{"then", "else"}, {"cond", "body"}};
    fprintf(out, " %s [", names[n->kind == LAUNCH_WHILE][r]);
    for (int j = 0; j < n->nregion[r]; j++)
      fprintf(out, "%s%d", j ? " " : "", n->region[r][j]);
    fputc(']', out);
  }
}
