/* im2col.c: a convolution whose per-element gather dominates (a few input channels under a large
 * window: ResNet's 3-channel 7x7 stem) becomes two kernels when the tuning layer's estimate says
 * so (codegen/tuning.c, cg_tune_im2col): an im2col pass that writes the patch matrix [M][kpad]
 * and the weights [OC][kpad] (k past K zero) into one workspace buffer, then a plain GEMM over
 * it that runs the bias and the fused epilogue (docs/gemm.md "im2col"). */
#include "partition.h"

#include <string.h>

void part_im2col_kernels(arena *a, partition_plan *p, int *bcap, const part_kernel *k, int64_t kpad,
                         part_kernel *cols, part_kernel *gemm) {
  const op *o = k->anchor;
  int64_t m = 1, oc = o->operands[1]->type->dims[0];
  const tensor_type *r = o->results[0]->type;
  for (int d = 0; d + 1 < r->rank; d++)
    m *= r->dims[d];
  value *wv = arena_alloc(a, sizeof *wv);
  wv->id = -1;
  wv->name = name_intern(a, arena_printf(a, "im2col_k%d", k->id));
  tensor_type wt = {.rank = 2, .dims = {m + oc, kpad}, .elem = o->operands[0]->type->elem};
  wv->type = type_intern(a, &wt);
  part_buffer wb = {.id = p->nbuffers, .kind = BUF_WORKSPACE, .v = wv, .index = -1,
                    .bytes = tensor_bytes(wv->type), .align = 256};
  ARENA_PUSH(a, p->buffers, p->nbuffers, *bcap, wb);

  /* the im2col pass: reads the input and the weights, writes the matrix; the anchor only */
  *cols = *k;
  cols->role = KR_IM2COL;
  cols->iter = wt;
  cols->ops = arena_alloc(a, sizeof(op *));
  cols->ops[0] = o;
  cols->nops = 1;
  cols->in_bufs = arena_alloc(a, sizeof(int) * 2);
  cols->in_vals = arena_alloc(a, sizeof(value *) * 2);
  cols->nin = 0;
  for (int i = 0; i < k->nin; i++)
    if (k->in_vals[i] == o->operands[0] || k->in_vals[i] == o->operands[1]) {
      cols->in_bufs[cols->nin] = k->in_bufs[i];
      cols->in_vals[cols->nin++] = k->in_vals[i];
    }
  cols->out_bufs = arena_alloc(a, sizeof(int));
  cols->out_vals = arena_alloc(a, sizeof(value *));
  cols->out_bufs[0] = wb.id;
  cols->out_vals[0] = wv;
  cols->nout = 1;
  cols->args_alias = false;

  /* the GEMM: reads the matrix and what the epilogue reads (bias, residuals, ...) */
  *gemm = *k;
  gemm->role = KR_COLS;
  gemm->in_bufs = arena_alloc(a, sizeof(int) * (size_t)(k->nin + 1));
  gemm->in_vals = arena_alloc(a, sizeof(value *) * (size_t)(k->nin + 1));
  gemm->in_bufs[0] = wb.id;
  gemm->in_vals[0] = wv;
  gemm->nin = 1;
  for (int i = 0; i < k->nin; i++)
    if (part_read_by_epilogue(k, k->in_vals[i])) {
      gemm->in_bufs[gemm->nin] = k->in_bufs[i];
      gemm->in_vals[gemm->nin++] = k->in_vals[i];
    }
}
