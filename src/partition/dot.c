/* dot.c: Graphviz view of a plan: ops grouped into kernels, kernels linked by dependencies. */
#include "partition.h"

#include <stdlib.h>

static void value_source(FILE *out, const partition_plan *p, const int *kernel_of, const value *v) {
  if (!v->def)
    fprintf(out, "arg%d", v->arg_index);
  else if (kernel_of[v->def->id] >= 0)
    fprintf(out, "op%d", v->def->id);
  else
    fprintf(out, "const%d", v->def->id);
  (void)p;
}

void part_print_dot(FILE *out, const graph *g, const partition_plan *p) {
  char ty[128];
  int *kernel_of = calloc((size_t)g->nops + 1, sizeof(int));
  for (int i = 0; i < g->nops; i++)
    kernel_of[i] = -1;
  for (int k = 0; k < p->nkernels; k++)
    for (int j = 0; j < p->kernels[k].nops; j++)
      if (op_table[p->kernels[k].ops[j]->kind].family != FAM_CONST)
        kernel_of[p->kernels[k].ops[j]->id] = k;
  fprintf(out, "digraph \"%s\" {\n", p->target->id);
  fprintf(out, "  label=\"%s: %d kernels, workspace %lld bytes\";\n", p->target->id, p->nkernels,
          (long long)p->workspace_bytes);
  fprintf(out, "  node [shape=box, style=rounded, fontname=\"monospace\", fontsize=10];\n");
  for (int i = 0; i < g->nargs; i++)
    fprintf(out, "  arg%d [shape=ellipse, label=\"input %d\\n%s\"];\n", i, i,
            tensor_type_str(&g->args[i]->type, ty, sizeof ty));
  for (int k = 0; k < p->nkernels; k++) {
    const part_kernel *pk = &p->kernels[k];
    fprintf(out, "  subgraph cluster_k%d {\n    label=\"kernel %d: %s\";\n", k, k, pk->name);
    for (int j = 0; j < pk->nops; j++) {
      const op *o = pk->ops[j];
      if (op_table[o->kind].family == FAM_CONST)
        continue;
      fprintf(out, "    op%d [label=\"%s\\n%s\"];\n", o->id, op_table[o->kind].name,
              tensor_type_str(&o->results[0]->type, ty, sizeof ty));
    }
    fprintf(out, "  }\n");
  }
  for (int i = 0; i < g->nops; i++) {
    const op *o = g->ops[i];
    if (kernel_of[o->id] < 0)
      continue;
    for (int j = 0; j < o->noperands; j++) {
      const value *v = o->operands[j];
      if (v->def && kernel_of[v->def->id] < 0 && op_table[v->def->kind].family == FAM_CONST)
        fprintf(out, "  const%d [shape=note, label=\"const\\n%s\"];\n", v->def->id,
                tensor_type_str(&v->type, ty, sizeof ty));
      fprintf(out, "  ");
      value_source(out, p, kernel_of, v);
      fprintf(out, " -> op%d;\n", o->id);
    }
  }
  for (int r = 0; r < g->nresults; r++) {
    fprintf(out, "  res%d [shape=ellipse, label=\"result %d\"];\n  ", r, r);
    value_source(out, p, kernel_of, g->results[r]);
    fprintf(out, " -> res%d;\n", r);
  }
  /* Launch dependencies between kernels, dashed, from the last op of one to the first of the
   * other (Graphviz clusters cannot be edge endpoints). */
  for (int n = 0; n < p->nnodes; n++) {
    const launch_node *ln = &p->nodes[n];
    for (int d = 0; d < ln->ndeps; d++) {
      const launch_node *from = &p->nodes[ln->deps[d]];
      if (ln->kind != LAUNCH_KERNEL || from->kind != LAUNCH_KERNEL)
        continue;
      const part_kernel *a = &p->kernels[from->kernel], *b = &p->kernels[ln->kernel];
      fprintf(out, "  op%d -> op%d [style=dashed, color=gray, constraint=false];\n",
              a->ops[a->nops - 1]->id, b->ops[b->nops - 1]->id);
    }
  }
  fprintf(out, "}\n");
  free(kernel_of);
}
