/* dot.c: Graphviz view of a plan: ops grouped into kernels, kernels linked by dependencies.
 *
 * Node names are per kernel ("k3_op17"): an op that expansion spread over several kernels
 * (split-K GEMM + combine, partial reduction + combine, fill + atomic) appears in each of them,
 * and the kernels are linked by their data and launch edges instead of an op pointing at
 * itself. Values from memory come from the kernel that writes them; a view (views.c) is a node
 * of its own ("view of ...") fed by its root. */
#include "partition.h"

#include <stdlib.h>

typedef struct arg_slot {
  const value *v;
  int index; /* its place in its graph's args (values keep no index of their own) */
} arg_slot;

typedef struct dot_ctx {
  FILE *out;
  const partition_plan *p;
  int *writer;       /* value id -> kernel writing it to memory, -1 */
  bool *declared;    /* op id -> its const / view node was printed */
  int *shown_first;  /* kernel -> index in ops of its first shown op */
  int *shown_last;   /* kernel -> index in ops of its last shown op */
  arg_slot *args;    /* the arguments of the entry and of every region graph, by address */
  int nargs;
} dot_ctx;

static bool is_const(const op *o) { return op_table[o->kind].family == FAM_CONST; }

/* The ops drawn inside a kernel's cluster: its non-constant ops; a kernel that only writes a
 * constant (a constant graph result) shows that constant. */
static bool shown(const part_kernel *k, int i) {
  if (!is_const(k->ops[i]))
    return true;
  for (int j = 0; j < k->nops; j++)
    if (!is_const(k->ops[j]))
      return false;
  return true;
}

/* The kernel that writes v (or, for a value without an id, a split-K / reduction workspace). */
static int writer_of(const dot_ctx *c, const value *v) {
  if (v->id >= 0)
    return c->writer[v->id];
  for (int k = 0; k < c->p->nkernels; k++)
    for (int j = 0; j < c->p->kernels[k].nout; j++)
      if (c->p->kernels[k].out_vals[j] == v)
        return k;
  return -1;
}

static void source_node(dot_ctx *c, const value *v, char *name, size_t size);

/* Constants and views get one node each, printed the first time an edge needs them. */
static void declare(dot_ctx *c, const op *o) {
  char ty[128], root[64];
  if (c->declared[o->id])
    return;
  c->declared[o->id] = true;
  const value *v = o->results[0];
  if (is_const(o)) {
    fprintf(c->out, "  const%d [shape=note, label=\"const\\n%s\"];\n", o->id,
            tensor_type_str(v->type, ty, sizeof ty));
    return;
  }
  const value *r = part_view_root(v);
  const char *what = !r->def ? "input" : is_const(r->def) ? "constant" : "value";
  fprintf(c->out, "  view%d [shape=box, style=dashed, label=\"%s\\nview of %s %%%s\\n%s\"];\n", o->id,
          op_table[o->kind].name, what, r->name ? VALUE_NAME(r) : "?", tensor_type_str(v->type, ty, sizeof ty));
  source_node(c, o->operands[0], root, sizeof root);
  fprintf(c->out, "  %s -> view%d [style=dashed];\n", root, o->id);
}

static int cmp_arg(const void *x, const void *y) {
  uintptr_t a = (uintptr_t)((const arg_slot *)x)->v, b = (uintptr_t)((const arg_slot *)y)->v;
  return (a > b) - (a < b);
}

/* The arguments of g and of its region graphs, into c->args (grown; *cap its capacity). */
static void collect_args(dot_ctx *c, const graph *g, int *cap) {
  for (int i = 0; i < g->nargs; i++) {
    if (c->nargs == *cap) {
      *cap = *cap ? 2 * *cap : 16;
      c->args = realloc(c->args, sizeof(arg_slot) * (size_t)*cap);
      if (!c->args)
        abort();
    }
    c->args[c->nargs++] = (arg_slot){g->args[i], i};
  }
  for (int i = 0; i < g->nops; i++)
    for (int r = 0; r < g->ops[i]->nregions; r++)
      collect_args(c, op_regions(g->ops[i])[r], cap);
}

static void source_node(dot_ctx *c, const value *v, char *name, size_t size) {
  if (v->def && is_const(v->def)) {
    declare(c, v->def);
    snprintf(name, size, "const%d", v->def->id);
  } else if (v->def && part_is_view(v->def)) {
    declare(c, v->def);
    snprintf(name, size, "view%d", v->def->id);
  } else if (v->is_arg) {
    const arg_slot key = {v, 0};
    const arg_slot *a = bsearch(&key, c->args, (size_t)c->nargs, sizeof key, cmp_arg);
    snprintf(name, size, "arg%d", a ? a->index : -1);
  } else {
    int k = writer_of(c, v);
    const part_kernel *pk = k >= 0 ? &c->p->kernels[k] : NULL;
    if (pk && v->def) {
      snprintf(name, size, "k%d_op%d", k, v->def->id);
    } else if (pk) {
      snprintf(name, size, "k%d_op%d", k, pk->ops[c->shown_last[k]]->id);
    } else {
      snprintf(name, size, "missing%d", v->id); /* not expected: every computed value has a writer */
    }
  }
}

static bool in_kernel(const part_kernel *k, const value *v) {
  for (int i = 0; i < k->nops; i++)
    if (k->ops[i] == v->def)
      return true;
  return false;
}

static bool read_by(const part_kernel *k, const value *v) {
  for (int i = 0; i < k->nin; i++)
    if (k->in_vals[i] == v)
      return true;
  return false;
}

/* Data edges into kernel k: between its own ops, and from where each value it reads lives. An
 * operand the kernel does not read (the combine of a split-K GEMM gets A x B as the partials)
 * has no edge; a value read without an op operand (those partials) feeds the first shown op. */
static void kernel_edges(dot_ctx *c, int k) {
  const part_kernel *pk = &c->p->kernels[k];
  char src[64];
  for (int i = 0; i < pk->nops; i++) {
    const op *o = pk->ops[i];
    if (!shown(pk, i) || is_const(o))
      continue;
    for (int j = 0; j < o->noperands; j++) {
      const value *v = o->operands[j];
      if (v->def && !is_const(v->def) && in_kernel(pk, v))
        snprintf(src, sizeof src, "k%d_op%d", k, v->def->id);
      else if ((v->def && is_const(v->def)) || read_by(pk, v))
        source_node(c, v, src, sizeof src);
      else
        continue;
      fprintf(c->out, "  %s -> k%d_op%d;\n", src, k, o->id);
    }
  }
  for (int i = 0; i < pk->nin; i++) {
    const value *v = pk->in_vals[i];
    bool operand = false;
    for (int x = 0; x < pk->nops && !operand; x++)
      for (int j = 0; j < pk->ops[x]->noperands; j++)
        operand |= pk->ops[x]->operands[j] == v;
    if (operand)
      continue;
    char ty[128];
    source_node(c, v, src, sizeof src);
    fprintf(c->out, "  %s -> k%d_op%d [label=\"%s\\n%s\"];\n", src, k, pk->ops[c->shown_first[k]]->id,
            v->name ? VALUE_NAME(v) : "", tensor_type_str(v->type, ty, sizeof ty));
  }
}

/* A launch node's end of a dashed dependency edge: a kernel's last (from) or first (to) shown
 * op, or the fill / copy node itself. */
static void launch_end(const dot_ctx *c, int n, bool from, char *name, size_t size) {
  const launch_node *ln = &c->p->nodes[n];
  if (ln->kind != LAUNCH_KERNEL) {
    snprintf(name, size, "launch%d", n);
    return;
  }
  int k = ln->kernel;
  const part_kernel *pk = &c->p->kernels[k];
  snprintf(name, size, "k%d_op%d", k, pk->ops[from ? c->shown_last[k] : c->shown_first[k]]->id);
}

static void launch_edges(dot_ctx *c) {
  char a[64], b[64];
  for (int n = 0; n < c->p->nnodes; n++) {
    const launch_node *ln = &c->p->nodes[n];
    if (ln->kind == LAUNCH_FILL)
      fprintf(c->out, "  launch%d [shape=cds, label=\"fill b%d\"];\n", n, ln->dst_buf);
    else if (ln->kind == LAUNCH_COPY)
      fprintf(c->out, "  launch%d [shape=cds, label=\"copy b%d -> b%d\"];\n", n, ln->src_buf, ln->dst_buf);
    else if (ln->kind == LAUNCH_READBACK)
      fprintf(c->out, "  launch%d [shape=cds, label=\"readback b%d\"];\n", n, ln->src_buf);
    else if (ln->kind == LAUNCH_IF || ln->kind == LAUNCH_WHILE)
      fprintf(c->out, "  launch%d [shape=diamond, label=\"%s\"];\n", n,
              ln->kind == LAUNCH_IF ? "if" : "while");
  }
  for (int n = 0; n < c->p->nnodes; n++) {
    const launch_node *ln = &c->p->nodes[n];
    launch_end(c, n, false, b, sizeof b);
    for (int d = 0; d < ln->ndeps; d++) {
      launch_end(c, ln->deps[d], true, a, sizeof a);
      fprintf(c->out, "  %s -> %s [style=dashed, color=gray, constraint=false];\n", a, b);
    }
  }
}

static void clusters(dot_ctx *c) {
  char ty[128];
  for (int k = 0; k < c->p->nkernels; k++) {
    const part_kernel *pk = &c->p->kernels[k];
    c->shown_first[k] = c->shown_last[k] = 0;
    fprintf(c->out, "  subgraph cluster_k%d {\n    label=\"kernel %d: %s\";\n", k, k, pk->name);
    bool any = false;
    for (int j = 0; j < pk->nops; j++) {
      if (!shown(pk, j))
        continue;
      const op *o = pk->ops[j];
      if (!any)
        c->shown_first[k] = j;
      c->shown_last[k] = j;
      any = true;
      fprintf(c->out, "    k%d_op%d [label=\"%s\\n%s\"];\n", k, o->id, op_table[o->kind].name,
              tensor_type_str(o->results[0]->type, ty, sizeof ty));
    }
    fprintf(c->out, "  }\n");
  }
}

void part_print_dot(FILE *out, const graph *g, const partition_plan *p) {
  char ty[128], src[64];
  dot_ctx c = {.out = out, .p = p};
  /* region kernels (control flow) name ops and values of their region graphs */
  int nvalues = part_value_bound(&g, 1), nops = part_op_bound(g);
  c.writer = malloc(sizeof(int) * ((size_t)nvalues + 1));
  c.declared = calloc((size_t)nops + 1, sizeof(bool));
  c.shown_first = calloc((size_t)p->nkernels + 1, sizeof(int));
  c.shown_last = calloc((size_t)p->nkernels + 1, sizeof(int));
  for (int i = 0; i < nvalues; i++)
    c.writer[i] = -1;
  int acap = 0;
  collect_args(&c, g, &acap);
  qsort(c.args, (size_t)c.nargs, sizeof *c.args, cmp_arg);
  for (int k = 0; k < p->nkernels; k++)
    for (int j = 0; j < p->kernels[k].nout; j++)
      if (p->kernels[k].out_vals[j]->id >= 0 && p->kernels[k].family != KF_FILL)
        c.writer[p->kernels[k].out_vals[j]->id] = k;
  fprintf(out, "digraph \"%s\" {\n", p->target->id);
  fprintf(out, "  label=\"%s: %d kernels, workspace %lld bytes\";\n", p->target->id, p->nkernels,
          (long long)p->workspace_bytes);
  fprintf(out, "  node [shape=box, style=rounded, fontname=\"monospace\", fontsize=10];\n");
  for (int i = 0; i < g->nargs; i++)
    fprintf(out, "  arg%d [shape=ellipse, label=\"input %d\\n%s\"];\n", i, i,
            tensor_type_str(g->args[i]->type, ty, sizeof ty));
  clusters(&c);
  for (int k = 0; k < p->nkernels; k++)
    kernel_edges(&c, k);
  for (int r = 0; r < g->nresults; r++) {
    fprintf(out, "  res%d [shape=ellipse, label=\"result %d\"];\n", r, r);
    source_node(&c, g->results[r], src, sizeof src);
    fprintf(out, "  %s -> res%d;\n", src, r);
  }
  launch_edges(&c);
  fprintf(out, "}\n");
  free(c.writer);
  free(c.declared);
  free(c.shown_first);
  free(c.shown_last);
  free(c.args);
}
