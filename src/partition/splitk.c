/* splitk.c: split-K for GEMMs whose output tiles cannot fill the GPU (a 64x64 output with a
 * long K is one work-group on a 104-CU gfx90a). The GEMM becomes two kernels: the GEMM kernel
 * with one more grid dimension over S chunks of K, each writing its f32 (i32 for i8) partial
 * tile into a workspace [S, <result shape>], then a combine kernel that adds the S partials in
 * order (deterministic, unlike atomics) and applies the bias and the fused epilogue once. */
#include "partition.h"

#include <stdlib.h>
#include <string.h>

/* Split only when the output tiles would occupy at most a quarter of the compute units. */
#define SPLITK_TILE_SHARE 4
/* Each split runs at least this many K tiles, so its prologue and partial store stay small
 * against the loop. */
#define SPLITK_MIN_STEPS 8
/* Only a long K is split: below this many K elements, one kernel finishes soon enough that the
 * second launch and the partials' round trip through memory cost more than the idle CUs. This
 * keeps the usual model GEMMs (BERT K <= 3072, ResNet K <= 4608) single kernels. */
#define SPLITK_MIN_K 8192
/* The partials may take at most this much workspace. */
#define SPLITK_MAX_WORKSPACE ((int64_t)64 << 20)

/* TOSAC_SPLIT_K: unset or empty = the cost model, 0 (or 1) = never split, S = S splits for
 * every GEMM that has a GEMM kernel (capped at its number of K tiles). -1 when unset. */
static int forced_split(void) {
  const char *e = getenv("TOSAC_SPLIT_K");
  if (!e || !*e)
    return -1;
  char *end;
  long v = strtol(e, &end, 10);
  return *end == 0 && v >= 0 && v <= 65536 ? (int)v : -1;
}

int part_splitk_choose(const target_info *t, const part_kernel *k, int cus) {
  if (k->family != KF_GEMM || !k->anchor || k->role != KR_PLAIN)
    return 0;
  int64_t tiles, nk, klen;
  if (!cg_gemm_shape(t, k->anchor, &tiles, &nk, &klen) || tiles < 1 || nk < 2)
    return 0;
  int forced = forced_split();
  int64_t want;
  if (forced >= 0) {
    want = forced;
  } else {
    /* one work-group per CU: S = CUs / tiles, while every split keeps its minimum K */
    if (tiles * SPLITK_TILE_SHARE > cus || klen < SPLITK_MIN_K || nk < 2 * SPLITK_MIN_STEPS)
      return 0;
    want = cus / tiles;
    if (want > nk / SPLITK_MIN_STEPS)
      want = nk / SPLITK_MIN_STEPS;
  }
  int64_t bytes = tensor_numel(&k->anchor->results[0]->type) * 4;
  if (want * bytes > SPLITK_MAX_WORKSPACE)
    want = SPLITK_MAX_WORKSPACE / bytes;
  if (want > nk)
    want = nk;
  if (want < 2)
    return 0;
  /* whole K tiles per split: `steps` tiles each, the last split takes the rest */
  int64_t steps = (nk + want - 1) / want;
  int64_t s = (nk + steps - 1) / steps;
  return s >= 2 ? (int)s : 0;
}

/* Is v read by an op of k other than as the anchor's A or B operand? */
static bool read_by_epilogue(const part_kernel *k, const value *v) {
  const op *o = k->anchor;
  for (int i = 0; i < k->nops; i++)
    for (int j = 0; j < k->ops[i]->noperands; j++)
      if (k->ops[i]->operands[j] == v && !(k->ops[i] == o && j < 2))
        return true;
  return false;
}

void part_splitk_kernels(arena *a, partition_plan *p, int *bcap, const part_kernel *k, int split,
                         part_kernel *part, part_kernel *comb) {
  const op *o = k->anchor;
  value *pv = arena_alloc(a, sizeof *pv);
  pv->id = -1;
  pv->arg_index = -1;
  pv->name = arena_printf(a, "splitk_partials_k%d", k->id);
  pv->type = o->results[0]->type;
  pv->type.rank = o->results[0]->type.rank + 1;
  pv->type.dims[0] = split;
  memcpy(&pv->type.dims[1], o->results[0]->type.dims, sizeof(int64_t) * (size_t)o->results[0]->type.rank);
  pv->type.elem = elem_type_is_float(o->operands[0]->type.elem) ? ET_F32 : ET_I32;
  part_buffer wb = {.id = p->nbuffers, .kind = BUF_WORKSPACE, .v = pv, .index = -1,
                    .bytes = tensor_bytes(&pv->type), .align = 256};
  ARENA_PUSH(a, p->buffers, p->nbuffers, *bcap, wb);

  /* GEMM kernel: reads A and B, writes the partials; implements the anchor only */
  *part = *k;
  part->role = KR_PARTIAL;
  part->split_count = split;
  part->ops = arena_alloc(a, sizeof(op *));
  part->ops[0] = o;
  part->nops = 1;
  part->in_bufs = arena_alloc(a, sizeof(int) * 2);
  part->in_vals = arena_alloc(a, sizeof(value *) * 2);
  part->nin = 0;
  for (int i = 0; i < k->nin; i++)
    if (k->in_vals[i] == o->operands[0] || k->in_vals[i] == o->operands[1]) {
      part->in_bufs[part->nin] = k->in_bufs[i];
      part->in_vals[part->nin++] = k->in_vals[i];
    }
  part->out_bufs = arena_alloc(a, sizeof(int));
  part->out_vals = arena_alloc(a, sizeof(value *));
  part->out_bufs[0] = wb.id;
  part->out_vals[0] = pv;
  part->nout = 1;

  /* combine kernel: reads the partials and what the epilogue reads (bias, residuals, ...) */
  *comb = *k;
  comb->role = KR_COMBINE;
  comb->split_count = split;
  comb->in_bufs = arena_alloc(a, sizeof(int) * (size_t)(k->nin + 1));
  comb->in_vals = arena_alloc(a, sizeof(value *) * (size_t)(k->nin + 1));
  comb->in_bufs[0] = wb.id;
  comb->in_vals[0] = pv;
  comb->nin = 1;
  for (int i = 0; i < k->nin; i++)
    if (read_by_epilogue(k, k->in_vals[i])) {
      comb->in_bufs[comb->nin] = k->in_bufs[i];
      comb->in_vals[comb->nin++] = k->in_vals[i];
    }
}
