/* plan.c: turns fusion groups into kernels, buffers and a launch DAG for one target. */
#include "partition.h"

#include <stdlib.h>
#include <string.h>

typedef struct plan_builder {
  arena *a;
  const graph *g;
  partition_plan *p;
  int *buf_of_value; /* value id -> buffer id holding it, -1 if none */
  int nbuf_cap;
} plan_builder;

static int add_buffer(plan_builder *b, buffer_kind kind, const value *v, int index) {
  part_buffer nb = {.id = b->p->nbuffers, .kind = kind, .v = v, .index = index,
                    .bytes = tensor_bytes(&v->type), .align = 256};
  ARENA_PUSH(b->a, b->p->buffers, b->p->nbuffers, b->nbuf_cap, nb);
  return nb.id;
}

static bool value_in_group(const int *group_of, const value *v, int grp) {
  return v->def && group_of[v->def->id] == grp;
}

/* A value leaves its group when it is a graph result or read by an op of another group. */
static bool escapes(const graph *g, const int *group_of, const value *v, int grp) {
  for (int i = 0; i < g->nresults; i++)
    if (g->results[i] == v)
      return true;
  for (int i = 0; i < g->nops; i++) {
    const op *o = g->ops[i];
    if (group_of[o->id] < 0 && part_is_view(o) && o->operands[0] == v &&
        escapes(g, group_of, o->results[0], grp)) /* read through an alias (views.c) */
      return true;
    if (group_of[o->id] == grp || group_of[o->id] < 0)
      continue;
    for (int j = 0; j < o->noperands; j++)
      if (o->operands[j] == v)
        return true;
  }
  return false;
}

static void kernel_name(part_kernel *k) {
  int n = snprintf(k->name, sizeof k->name, "tosac_k%d", k->id);
  int shown = 0;
  for (int i = 0; i < k->nops && shown < 3; i++) {
    const char *nm = op_table[k->ops[i]->kind].name;
    if (op_table[k->ops[i]->kind].family == FAM_CONST)
      continue;
    const char *dot = strchr(nm, '.');
    nm = dot ? dot + 1 : nm;
    if (n + 1 + (int)strlen(nm) >= (int)sizeof k->name)
      break;
    n += snprintf(k->name + n, sizeof k->name - (size_t)n, "_%s", nm);
    shown++;
  }
}

/* A constant is folded into the kernel's code when it is small and only elementwise ops read
 * it; otherwise it is a weights buffer. Shape constants are always folded. */
static bool folds(const op *reader, const value *v) {
  if (!v->def || op_table[v->def->kind].family != FAM_CONST)
    return false;
  if (v->type.elem == ET_INDEX)
    return true;
  const attr *a = op_attr(v->def, "values");
  bool splat = a && a->kind == ATTR_DENSE && a->dense && a->dense->splat;
  return op_table[reader->kind].family == FAM_ELEMENTWISE &&
         (splat || tensor_bytes(&v->type) <= PART_FOLD_LIMIT);
}

/* Collect a group's ops (with the constants they fold) in topological order. */
static void collect_ops(plan_builder *b, const int *group_of, int grp, part_kernel *k) {
  const graph *g = b->g;
  char *take = arena_alloc(b->a, (size_t)g->nops + 1);
  for (int i = 0; i < g->nops; i++) {
    const op *o = g->ops[i];
    if (group_of[o->id] != grp)
      continue;
    take[o->id] = 1;
    for (int j = 0; j < o->noperands; j++)
      if (folds(o, o->operands[j]))
        take[o->operands[j]->def->id] = 1;
  }
  k->ops = arena_alloc(b->a, sizeof(op *) * (size_t)(g->nops + 1));
  for (int i = 0; i < g->nops; i++)
    if (take[g->ops[i]->id])
      k->ops[k->nops++] = g->ops[i];
}

static void collect_io(plan_builder *b, const int *group_of, int grp, part_kernel *k) {
  const graph *g = b->g;
  int incap = 0, outcap = 0, invcap = 0, outvcap = 0;
  for (int i = 0; i < k->nops; i++) {
    const op *o = k->ops[i];
    if (op_table[o->kind].family == FAM_CONST)
      continue;
    for (int j = 0; j < o->noperands; j++) {
      const value *v = o->operands[j];
      if (value_in_group(group_of, v, grp) || folds(o, v))
        continue;
      const value *root = part_view_root(v); /* a view reads its root's bytes (views.c) */
      int buf = b->buf_of_value[root->id];
      if (buf < 0) /* a constant that lives in the weights file */
        buf = b->buf_of_value[root->id] = add_buffer(b, BUF_CONSTANT, root, -1);
      bool dup = false;
      for (int x = 0; x < k->nin; x++)
        dup |= k->in_vals[x] == v;
      if (dup)
        continue;
      ARENA_PUSH(b->a, k->in_bufs, k->nin, incap, buf);
      k->nin--;
      ARENA_PUSH(b->a, k->in_vals, k->nin, invcap, v);
    }
    for (int r = 0; r < o->nresults; r++) {
      const value *v = o->results[r];
      if (!escapes(g, group_of, v, grp))
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

/* Node ids that write / read each buffer, for dependency edges. */
static bool node_writes(const partition_plan *p, const launch_node *n, int buf) {
  if (n->kind != LAUNCH_KERNEL)
    return n->dst_buf == buf;
  const part_kernel *k = &p->kernels[n->kernel];
  for (int i = 0; i < k->nout; i++)
    if (k->out_bufs[i] == buf)
      return true;
  return false;
}

static bool node_reads(const partition_plan *p, const launch_node *n, int buf) {
  if (n->kind == LAUNCH_COPY)
    return n->src_buf == buf;
  if (n->kind != LAUNCH_KERNEL)
    return false;
  const part_kernel *k = &p->kernels[n->kernel];
  for (int i = 0; i < k->nin; i++)
    if (k->in_bufs[i] == buf)
      return true;
  for (int i = 0; k->role == KR_ATOMIC && i < k->nout; i++) /* accumulates into its output */
    if (k->out_bufs[i] == buf)
      return true;
  return false;
}

static bool overlaps(const part_buffer *x, const part_buffer *y) {
  bool ws = (x->kind == BUF_INTERMEDIATE || x->kind == BUF_WORKSPACE) &&
            (y->kind == BUF_INTERMEDIATE || y->kind == BUF_WORKSPACE);
  return x->id == y->id ||
         (ws && x->offset < y->offset + y->bytes && y->offset < x->offset + x->bytes);
}

/* Edges: read-after-write on every buffer, and write-after-read / write-after-write where the
 * workspace reuses bytes; then the transitive reduction keeps only the minimal ones. */
static void build_edges(plan_builder *b) {
  partition_plan *p = b->p;
  int n = p->nnodes;
  char *dep = arena_alloc(b->a, (size_t)n * (size_t)n + 1);
  for (int j = 0; j < n; j++)
    for (int i = 0; i < j; i++)
      for (int x = 0; x < p->nbuffers && !dep[j * n + i]; x++)
        for (int y = 0; y < p->nbuffers && !dep[j * n + i]; y++) {
          if (!overlaps(&p->buffers[x], &p->buffers[y]))
            continue;
          const launch_node *a = &p->nodes[i], *c = &p->nodes[j];
          bool raw = node_writes(p, a, x) && node_reads(p, c, y);
          bool war = node_reads(p, a, x) && node_writes(p, c, y);
          bool waw = node_writes(p, a, x) && node_writes(p, c, y);
          if (raw || war || waw)
            dep[j * n + i] = 1;
        }
  /* Reachability closure (nodes are already in a topological order), then reduction. */
  char *reach = arena_alloc(b->a, (size_t)n * (size_t)n + 1);
  for (int j = 0; j < n; j++)
    for (int i = 0; i < j; i++)
      if (dep[j * n + i]) {
        reach[j * n + i] = 1;
        for (int k = 0; k < i; k++)
          reach[j * n + k] |= reach[i * n + k];
      }
  for (int j = 0; j < n; j++) {
    launch_node *nd = &p->nodes[j];
    int cap = 0;
    for (int i = 0; i < j; i++) {
      if (!dep[j * n + i])
        continue;
      bool implied = false;
      for (int k = i + 1; k < j && !implied; k++)
        implied = dep[j * n + k] && reach[k * n + i];
      if (!implied)
        ARENA_PUSH(b->a, nd->deps, nd->ndeps, cap, i);
    }
  }
  p->order = arena_alloc(b->a, sizeof(int) * (size_t)(n + 1));
  for (int i = 0; i < n; i++)
    p->order[i] = i;
}

static int result_buffer(const partition_plan *p, int r) {
  for (int i = 0; i < p->nbuffers; i++)
    if (p->buffers[i].kind == BUF_OUTPUT && p->buffers[i].index == r)
      return i;
  return -1;
}

/* Results that no kernel writes (arguments, repeated values) become copy nodes. */
static void add_copies(plan_builder *b, int *node_cap) {
  const graph *g = b->g;
  for (int r = 0; r < g->nresults; r++) {
    const value *v = g->results[r];
    int out = result_buffer(b->p, r);
    int src = b->buf_of_value[part_view_root(v)->id];
    if (src == out)
      continue;
    launch_node *n = add_node(b, LAUNCH_COPY, node_cap);
    n->src_buf = src;
    n->dst_buf = out;
  }
}

static const op *find_anchor(const part_kernel *k) {
  for (int i = 0; i < k->nops; i++) {
    op_family f = op_table[k->ops[i]->kind].family;
    if (f != FAM_CONST && f != FAM_ELEMENTWISE)
      return k->ops[i];
  }
  return NULL;
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

/* Constants get weights-file offsets in value order, so every target's plan agrees. */
static int64_t place_constants(partition_plan *p, const graph *g) {
  int64_t off = 0;
  for (int vid = 0; vid < g->nvalues; vid++)
    for (int i = 0; i < p->nbuffers; i++) {
      part_buffer *bf = &p->buffers[i];
      if (bf->kind != BUF_CONSTANT || bf->v->id != vid)
        continue;
      bf->offset = off;
      off += (bf->bytes + bf->align - 1) / bf->align * bf->align;
    }
  return off;
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

partition_plan *part_plan(arena *a, const graph *g, const target_request *t, diag_sink *d) {
  partition_plan *p = arena_alloc(a, sizeof *p);
  p->target = t;
  p->workspace_align = 256;
  plan_builder b = {.a = a, .g = g, .p = p};
  b.buf_of_value = arena_alloc(a, sizeof(int) * (size_t)(g->nvalues + 1));
  for (int i = 0; i < g->nvalues; i++)
    b.buf_of_value[i] = -1;
  for (int i = 0; i < g->nargs; i++)
    b.buf_of_value[g->args[i]->id] = add_buffer(&b, BUF_INPUT, g->args[i], i);
  for (int r = 0; r < g->nresults; r++) {
    int buf = add_buffer(&b, BUF_OUTPUT, g->results[r], r);
    const value *v = part_view_root(g->results[r]); /* its producer writes the result */
    /* The first result naming a computed value holds it; arguments, constants and repeats
     * are copied. */
    bool is_const = v->def && op_table[v->def->kind].family == FAM_CONST;
    if (v->arg_index < 0 && !is_const && b.buf_of_value[v->id] < 0)
      b.buf_of_value[v->id] = buf;
  }

  int *group_of = arena_alloc(a, sizeof(int) * (size_t)(g->nops + 1));
  int ngroups = part_fuse(a, g, group_of);
  p->kernels = arena_alloc(a, sizeof(part_kernel) * (size_t)(ngroups + 1));
  int node_cap = 0;
  for (int grp = 0; grp < ngroups; grp++) {
    part_kernel *k = &p->kernels[p->nkernels];
    k->id = p->nkernels++;
    collect_ops(&b, group_of, grp, k);
    collect_io(&b, group_of, grp, k);
    k->anchor = find_anchor(k);
    if (k->anchor && op_table[k->anchor->kind].family == FAM_OTHER) {
      diag_error(d, k->anchor->loc, "operation '%s' cannot be compiled%s", op_table[k->anchor->kind].name,
                 k->anchor->nregions ? ": " FE_CONTROL_NOT_CONSTANT : " into a kernel yet");
      return NULL;
    }
    k->family = k->anchor ? family_of(k->anchor) : KF_ELEMENTWISE;
    k->iter = k->anchor ? k->anchor->results[0]->type : k->out_vals[0]->type;
    kernel_name(k);
    launch_node *n = add_node(&b, LAUNCH_KERNEL, &node_cap);
    n->kernel = k->id;
  }
  /* A constant result is copied from the weights file when it lives there (or is large),
   * else written by a kernel that holds just the constant. */
  for (int r = 0; r < g->nresults; r++) {
    const value *v = part_view_root(g->results[r]);
    if (!v->def || op_table[v->def->kind].family != FAM_CONST || v->type.elem == ET_INDEX)
      continue;
    int out = result_buffer(p, r);
    if (b.buf_of_value[v->id] >= 0)
      continue; /* a weights buffer already, or an earlier result: add_copies handles it */
    const attr *va = op_attr(v->def, "values");
    bool splat = va && va->kind == ATTR_DENSE && va->dense && va->dense->splat;
    if (!splat && tensor_bytes(&v->type) > PART_FOLD_LIMIT) {
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
    k->iter = v->type;
    snprintf(k->name, sizeof k->name, "tosac_k%d_const", k->id);
    launch_node *n = add_node(&b, LAUNCH_KERNEL, &node_cap);
    n->kernel = k->id;
  }
  add_copies(&b, &node_cap);
  if (!part_expand(a, g, p, d)) /* large reductions: fill + atomic, or partial + combine */
    return NULL;

  /* Liveness in launch positions: written by the producing node, last read by a later one. */
  int *first = arena_alloc(a, sizeof(int) * (size_t)(p->nbuffers + 1));
  int *last = arena_alloc(a, sizeof(int) * (size_t)(p->nbuffers + 1));
  for (int x = 0; x < p->nbuffers; x++) {
    first[x] = p->nnodes;
    last[x] = -1;
    for (int i = 0; i < p->nnodes; i++) {
      if (node_writes(p, &p->nodes[i], x) && i < first[x])
        first[x] = i;
      if (node_reads(p, &p->nodes[i], x))
        last[x] = i;
    }
  }
  p->workspace_bytes = part_place_workspace(p->buffers, p->nbuffers, first, last);
  p->weights_bytes = place_constants(p, g);
  build_edges(&b);
  part_dedup(p);
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
            tensor_type_str(&bf->v->type, ty, sizeof ty), (long long)bf->bytes);
    if (bf->kind == BUF_INTERMEDIATE || bf->kind == BUF_WORKSPACE)
      fprintf(out, " at workspace+%lld", (long long)bf->offset);
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
      if (o->loc.file)
        fprintf(out, " at %s:%d:%d", o->loc.file->path, o->loc.line, o->loc.col);
      fputc('\n', out);
    }
    fprintf(out, "    reads");
    for (int j = 0; j < k->nin; j++)
      fprintf(out, " b%d", k->in_bufs[j]);
    fprintf(out, "; writes");
    for (int j = 0; j < k->nout; j++)
      fprintf(out, " b%d", k->out_bufs[j]);
    fputc('\n', out);
  }
  for (int i = 0; i < p->nnodes; i++) {
    const launch_node *n = &p->nodes[i];
    if (n->kind == LAUNCH_KERNEL)
      fprintf(out, "  launch %d: kernel %d", n->id, n->kernel);
    else if (n->kind == LAUNCH_FILL)
      fprintf(out, "  launch %d: fill b%d with 0x%llx", n->id, n->dst_buf,
              (unsigned long long)n->fill_bits);
    else
      fprintf(out, "  launch %d: copy b%d -> b%d", n->id, n->src_buf, n->dst_buf);
    fprintf(out, " after [");
    for (int j = 0; j < n->ndeps; j++)
      fprintf(out, "%s%d", j ? " " : "", n->deps[j]);
    fprintf(out, "]\n");
  }
  (void)g;
}
