/* inplace.c: which kernel outputs may overwrite an input that dies at that kernel.
 *
 * The output takes the input's workspace offset (buffers.c). That is safe only when every
 * element of the input is read by the work-item that stores the same element of the output,
 * before it stores it, and by no other work-item. The kernels where that holds by construction
 * (docs/partitioning.md, "In-place reuse"):
 * - elementwise kernels (kernel_elementwise.c): a work-item loads its chunk of every full-shape
 *   source at `base`, computes, then stores its chunk of every output at the same `base` (the
 *   scalar tail does the same element by element);
 * - GEMM / convolution epilogues and split-K combines (kernel_gemm.c epilogue_element,
 *   cg_epilogue_store): the thread that stores output element `lin` reads the epilogue operand
 *   at `lin` just before.
 * Anything that reads the input another way (the anchor's operands, a transpose read as an
 * index map, broadcasting, a table lookup) may read an element another work-item already
 * overwrote, so it disqualifies the input. The stored value must depend on the input inside the
 * kernel: the data dependence alone orders the load before the store, whatever the `noalias`
 * kernel arguments let the compiler reorder. */
#include "partition.h"

#include <stdlib.h>
#include <string.h>

/* TOSAC_NO_INPLACE=1: a debugging aid (and the tests' baseline) with no in-place reuse. */
static bool inplace_disabled(void) {
  const char *e = getenv("TOSAC_NO_INPLACE");
  return e && *e && strcmp(e, "0") != 0;
}

/* Operand j of an elementwise op is read per element, at the element's own index. */
static bool per_element_operand(const op *o, int j) {
  if (op_table[o->kind].family != FAM_ELEMENTWISE)
    return false; /* anchors, index-map transposes and anything newer */
  switch (o->kind) {
  case OP_MUL: return j < 2;     /* the shift is read at compile time */
  case OP_NEGATE: return j < 1;  /* zero points */
  case OP_TABLE: return j < 1;   /* the table is indexed by the data */
  case OP_RESCALE: return j < 1; /* per-channel parameters */
  default: return true;
  }
}

/* v has exactly the iteration space's shape (a leading run of 1s aside): no broadcast. */
static bool same_space(const tensor_type *v, const tensor_type *it) {
  if (v->rank > it->rank || tensor_numel(v) != tensor_numel(it))
    return false;
  int pad = it->rank - v->rank;
  for (int d = 0; d < it->rank; d++)
    if (it->dims[d] != (d < pad ? 1 : v->dims[d - pad]))
      return false;
  return true;
}

static bool reads_buffer(const part_kernel *k, const value *v, int buf) {
  for (int i = 0; i < k->nin; i++)
    if (k->in_vals[i] == v && k->in_bufs[i] == buf)
      return true;
  return false;
}

/* Every value of k bound to buffer buf is read only per element, over the iteration space. */
static bool identity_reads_only(const part_kernel *k, int buf) {
  for (int i = 0; i < k->nin; i++) {
    if (k->in_bufs[i] != buf)
      continue;
    const value *v = k->in_vals[i];
    if (v->id < 0 || !same_space(v->type, &k->iter))
      return false; /* a workspace value of its own shape (split-K partials) */
    for (int oi = 0; oi < k->nops; oi++) {
      const op *o = k->ops[oi];
      for (int j = 0; j < o->noperands; j++)
        if (o->operands[j] == v && !per_element_operand(o, j))
          return false;
    }
  }
  return true;
}

/* Does output `out` of k depend on a value read from buffer buf? dep[] is scratch indexed by
 * value id (values of the kernel's ops only). */
static bool depends_on(const part_kernel *k, const value *out, int buf, bool *dep) {
  bool found = false;
  for (int oi = 0; oi < k->nops; oi++) {
    const op *o = k->ops[oi];
    if (op_table[o->kind].family == FAM_CONST)
      continue;
    bool d = false;
    for (int j = 0; j < o->noperands; j++)
      d |= (o->operands[j]->id >= 0 && dep[o->operands[j]->id]) || reads_buffer(k, o->operands[j], buf);
    for (int r = 0; r < o->nresults; r++) {
      dep[o->results[r]->id] = d;
      found |= d && o->results[r] == out;
    }
  }
  for (int oi = 0; oi < k->nops; oi++)
    for (int r = 0; r < k->ops[oi]->nresults; r++)
      dep[k->ops[oi]->results[r]->id] = false;
  return found;
}

static bool kernel_may_alias(const part_kernel *k) {
  if (k->family == KF_ELEMENTWISE)
    return true;
  /* a grouped GEMM's other slices may still read the input an output would overwrite; so may
   * the other work-groups of a GEMM whose row-norm prologue reads its rows (group.c) */
  return k->ngemm == 0 && k->family == KF_GEMM && k->anchor &&
         ((k->role == KR_PLAIN && !k->nprologue) || k->role == KR_COMBINE);
}

static int64_t aligned_size(const part_buffer *b) {
  int64_t n = b->bytes > 0 ? b->bytes : 1;
  return (n + b->align - 1) / b->align * b->align;
}

/* May output o (value ov) of kernel k, at launch position pos, take input buffer c's bytes? */
static bool pair_ok(const partition_plan *p, const part_kernel *k, int pos, int o, const value *ov,
                    int c, const int *first, const int *last, bool *dep) {
  const part_buffer *ob = &p->buffers[o], *cb = &p->buffers[c];
  if (cb->kind != BUF_INTERMEDIATE && cb->kind != BUF_WORKSPACE)
    return false;
  if (last[c] != pos || first[c] >= pos || cb->bytes <= 0 || aligned_size(cb) < aligned_size(ob))
    return false;
  for (int j = 0; j < k->nout; j++)
    if (k->out_bufs[j] == c)
      return false;
  /* element for element: the same number of bytes per element on both sides, read from the
   * buffer's start (a slice view's element lin is another work-item's store) */
  for (int i = 0; i < k->nin; i++)
    if (k->in_bufs[i] == c && (elem_type_bytes(k->in_vals[i]->type->elem) != elem_type_bytes(ov->type->elem) ||
                               part_input_offset(k, k->in_vals[i])))
      return false;
  return identity_reads_only(k, c) && depends_on(k, ov, c, dep);
}

void part_inplace_pairs(const graph *g, const partition_plan *p, const int *first, const int *last,
                        int *inplace_of) {
  bool *taken = calloc((size_t)p->nbuffers + 1, sizeof(bool));
  bool *dep = calloc((size_t)g->nvalues + 1, sizeof(bool));
  for (int x = 0; x < p->nbuffers; x++)
    inplace_of[x] = -1;
  if (inplace_disabled()) {
    free(dep);
    free(taken);
    return;
  }
  for (int pos = 0; pos < p->nnodes; pos++) {
    const launch_node *n = &p->nodes[pos];
    if (n->kind != LAUNCH_KERNEL)
      continue;
    const part_kernel *k = &p->kernels[n->kernel];
    if (!kernel_may_alias(k))
      continue;
    for (int j = 0; j < k->nout; j++) {
      int o = k->out_bufs[j];
      const value *ov = k->out_vals[j];
      if (p->buffers[o].kind != BUF_INTERMEDIATE || first[o] != pos || inplace_of[o] >= 0 ||
          ov->id < 0 || !same_space(ov->type, &k->iter) || k->slot.v == ov)
        continue;
      for (int i = 0; i < k->nin && inplace_of[o] < 0; i++) {
        int c = k->in_bufs[i];
        if (!taken[c] && pair_ok(p, k, pos, o, ov, c, first, last, dep))
          inplace_of[o] = c, taken[c] = true;
      }
    }
  }
  free(dep);
  free(taken);
}

void part_mark_aliasing(partition_plan *p, const int *inplace_of) {
  for (int i = 0; i < p->nkernels; i++) {
    part_kernel *k = &p->kernels[i];
    for (int j = 0; j < k->nout; j++) {
      int c = inplace_of[k->out_bufs[j]];
      for (int x = 0; x < k->nin && c >= 0; x++)
        k->args_alias |= k->in_bufs[x] == c;
    }
  }
}
