/* link.c: the plans of one target's variants (--specialize) as one plan for code generation, so
 * one code object holds every variant's kernels and a kernel two variants share (same spec:
 * docs/partitioning.md) is compiled once and named once. */
#include "partition.h"

#include <stdio.h>
#include <string.h>

static int max_count(const graph *g, bool ops) {
  int n = ops ? g->nops : g->nvalues;
  for (int i = 0; i < g->nops; i++)
    for (int r = 0; r < g->ops[i]->nregions; r++) {
      int m = max_count(op_regions(g->ops[i])[r], ops);
      n = m > n ? m : n;
    }
  return n;
}

int part_op_bound(const graph *g) { return max_count(g, true); }

int part_value_bound(const graph *const *gs, int n) {
  int m = 0;
  for (int i = 0; i < n; i++) {
    int k = max_count(gs[i], false);
    m = k > m ? k : m;
  }
  return m;
}

static int *shifted(arena *a, const int *ids, int n, int by) {
  int *v = arena_alloc(a, sizeof(int) * (size_t)(n + 1));
  for (int i = 0; i < n; i++)
    v[i] = ids[i] + by;
  return v;
}

partition_plan *part_link(arena *a, partition_plan *const *plans, int n, const char *const *heads,
                          int *kernel_base, int *buffer_base) {
  if (n == 1) {
    kernel_base[0] = buffer_base[0] = 0;
    return plans[0];
  }
  partition_plan *l = arena_alloc(a, sizeof *l);
  *l = *plans[0];
  l->nkernels = l->nbuffers = l->nnodes = 0;
  for (int v = 0; v < n; v++)
    l->nkernels += plans[v]->nkernels, l->nbuffers += plans[v]->nbuffers;
  l->kernels = arena_alloc(a, sizeof(part_kernel) * (size_t)(l->nkernels + 1));
  l->buffers = arena_alloc(a, sizeof(part_buffer) * (size_t)(l->nbuffers + 1));
  int nk = 0, nb = 0;
  for (int v = 0; v < n; v++) {
    const partition_plan *p = plans[v];
    kernel_base[v] = nk, buffer_base[v] = nb;
    for (int i = 0; i < p->nbuffers; i++) {
      l->buffers[nb + i] = p->buffers[i];
      l->buffers[nb + i].id += nb;
    }
    for (int i = 0; i < p->nkernels; i++) {
      part_kernel *k = &l->kernels[nk + i];
      *k = p->kernels[i];
      k->id += nk;
      k->in_bufs = shifted(a, k->in_bufs, k->nin, nb);
      k->out_bufs = shifted(a, k->out_bufs, k->nout, nb);
      if (v > 0) { /* variant 0 keeps its names: a single-variant compile is unchanged */
        char name[sizeof k->name + 16]; /* the unique tosac_k<id> head survives truncation */
        int len = heads ? snprintf(name, sizeof name, "%s", heads[v])
                        : snprintf(name, sizeof name, "tosac_v%d_", v);
        const char *rest = k->name + (strncmp(k->name, "tosac_", 6) ? 0 : 6);
        size_t keep = strnlen(rest, sizeof k->name - 1 - (size_t)len);
        memcpy(name + len, rest, keep);
        name[(size_t)len + keep] = 0;
        memcpy(k->name, name, (size_t)len + keep + 1);
      }
    }
    nk += p->nkernels, nb += p->nbuffers;
  }
  part_dedup(l);
  for (int v = 0; v < n; v++) /* the manifest names each variant's kernels as linked */
    for (int i = 0; i < plans[v]->nkernels; i++)
      memcpy(plans[v]->kernels[i].name, l->kernels[kernel_base[v] + i].name, sizeof l->kernels[0].name);
  return l;
}

/* A variant's weights buffers at the offsets of the same constants (the same op in the source,
 * the same size) in the reference plan, whose weights file the bundle carries. */
bool part_share_weights(partition_plan *p, const partition_plan *ref, diag_sink *d) {
  for (int i = 0; i < p->nbuffers; i++) {
    part_buffer *b = &p->buffers[i];
    if (b->kind != BUF_CONSTANT)
      continue;
    const part_buffer *match = NULL;
    for (int j = 0; j < ref->nbuffers && !match; j++) {
      const part_buffer *r = &ref->buffers[j];
      const op *x = r->v->def, *y = b->v->def;
      if (r->kind == BUF_CONSTANT && r->bytes == b->bytes && x && y && x->loc.line == y->loc.line &&
          x->loc.col == y->loc.col)
        match = r;
    }
    if (!match) {
      diag_error(d, b->v->def ? b->v->def->loc : b->v->loc,
                 "this constant differs between the --specialize variants (one weights file holds "
                 "the constants of all variants)");
      return false;
    }
    b->offset = match->offset;
  }
  p->weights_bytes = ref->weights_bytes;
  return true;
}
