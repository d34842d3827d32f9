/* splitk.c: split-K for GEMMs whose output tiles cannot fill the GPU (a 64x64 output with a
 * long K is one work-group on a 104-CU gfx90a). The GEMM kernel gets one more grid dimension
 * over S chunks of K, each writing its f32 (i32 for i8) partial tile into a workspace
 * [S, <result shape>]. Then either a combine kernel adds the S partials in order (deterministic,
 * unlike atomics) and applies the bias and the fused epilogue once, or (KR_FIXUP) the same
 * kernel does: the last work-group of each tile to arrive, counted in a zeroed workspace
 * counter per tile, adds them in order and runs the epilogue. The split factor and the form are
 * the tuning layer's (codegen/tuning.c, cg_tune_splitk). */
#include "partition.h"

#include <stdlib.h>
#include <string.h>

bool part_is_prologue(const part_kernel *k, const op *o) {
  for (int i = 0; i < k->nprologue; i++)
    if (k->prologue[i] == o)
      return true;
  return false;
}

bool part_read_by_epilogue(const part_kernel *k, const value *v) {
  const op *o = k->anchor;
  for (int i = 0; i < k->nops; i++)
    for (int j = 0; j < k->ops[i]->noperands; j++)
      if (k->ops[i]->operands[j] == v && !(k->ops[i] == o && j < 2) && !part_is_operand_view(k, k->ops[i]) &&
          !part_is_prologue(k, k->ops[i]))
        return true;
  return false;
}

/* Is v read by the anchor as its A or B operand, by an operand view of them, or by the row norm
 * that computes A (group.c)? */
static bool read_by_gemm(const part_kernel *k, const value *v) {
  for (int i = 0; i < k->nops; i++) {
    const op *u = k->ops[i];
    bool gemm = u == k->anchor, view = !gemm && part_is_operand_view(k, u), pro = part_is_prologue(k, u);
    for (int j = 0; (gemm || view || pro) && j < u->noperands; j++)
      if (u->operands[j] == v && (view || pro || j < 2))
        return true;
  }
  return false;
}

/* A workspace buffer of type t named name_k<id> (zeroed: in the zeroed region). */
int part_add_workspace(arena *a, partition_plan *p, int *bcap, const char *name, int id,
                       const tensor_type *t, bool zeroed, const value **out) {
  value *v = arena_alloc(a, sizeof *v);
  v->id = -1;
  v->name = name_intern(a, arena_printf(a, "%s_k%d", name, id));
  v->type = type_intern(a, t);
  part_buffer wb = {.id = p->nbuffers, .kind = BUF_WORKSPACE, .v = v, .index = -1,
                    .bytes = tensor_bytes(v->type), .align = zeroed ? 4 : 256, .zeroed = zeroed};
  ARENA_PUSH(a, p->buffers, p->nbuffers, *bcap, wb);
  *out = v;
  return wb.id;
}

void part_fixup_kernel(arena *a, partition_plan *p, int *bcap, const part_kernel *k, int split,
                       const char *what, const tensor_type *pt, const tensor_type *ct, part_kernel *fix) {
  *fix = *k;
  fix->role = KR_FIXUP;
  fix->split_count = split;
  fix->out_bufs = arena_alloc(a, sizeof(int) * (size_t)(k->nout + 2));
  fix->out_vals = arena_alloc(a, sizeof(value *) * (size_t)(k->nout + 2));
  memcpy(fix->out_bufs, k->out_bufs, sizeof(int) * (size_t)k->nout);
  memcpy(fix->out_vals, k->out_vals, sizeof(value *) * (size_t)k->nout);
  fix->out_bufs[k->nout] = part_add_workspace(a, p, bcap, arena_printf(a, "%s_partials", what), k->id, pt,
                                              false, &fix->out_vals[k->nout]);
  fix->out_bufs[k->nout + 1] = part_add_workspace(a, p, bcap, arena_printf(a, "%s_counters", what), k->id,
                                                  ct, true, &fix->out_vals[k->nout + 1]);
  fix->nout = k->nout + 2;
}

void part_splitk_fixup_kernel(arena *a, partition_plan *p, int *bcap, const part_kernel *k, int split,
                              int64_t tiles, part_kernel *fix) {
  const op *o = k->anchor;
  const tensor_type *rt = o->results[0]->type;
  tensor_type pt = *rt;
  pt.rank = rt->rank + 1;
  pt.dims[0] = split;
  memcpy(&pt.dims[1], rt->dims, sizeof(int64_t) * (size_t)rt->rank);
  pt.elem = elem_type_is_float(o->operands[0]->type->elem) ? ET_F32 : ET_I32;
  tensor_type ct = {.rank = 1, .dims = {tiles}, .elem = ET_I32};
  part_fixup_kernel(a, p, bcap, k, split, "splitk", &pt, &ct, fix);
}

void part_splitk_kernels(arena *a, partition_plan *p, int *bcap, const part_kernel *k, int split,
                         part_kernel *part, part_kernel *comb) {
  const op *o = k->anchor;
  value *pv = arena_alloc(a, sizeof *pv);
  pv->id = -1;
  pv->name = name_intern(a, arena_printf(a, "splitk_partials_k%d", k->id));
  tensor_type pt = *o->results[0]->type;
  pt.rank = o->results[0]->type->rank + 1;
  pt.dims[0] = split;
  memcpy(&pt.dims[1], o->results[0]->type->dims, sizeof(int64_t) * (size_t)o->results[0]->type->rank);
  pt.elem = elem_type_is_float(o->operands[0]->type->elem) ? ET_F32 : ET_I32;
  pv->type = type_intern(a, &pt);
  part_buffer wb = {.id = p->nbuffers, .kind = BUF_WORKSPACE, .v = pv, .index = -1,
                    .bytes = tensor_bytes(pv->type), .align = 256};
  ARENA_PUSH(a, p->buffers, p->nbuffers, *bcap, wb);

  /* GEMM kernel: reads A and B (through their operand views), writes the partials; implements
   * the anchor only */
  *part = *k;
  part->role = KR_PARTIAL;
  part->split_count = split;
  part->ops = arena_alloc(a, sizeof(op *) * (size_t)(k->nops + 1));
  part->nops = 0;
  /* with the row norm computing A and the constants it reads (group.c) */
  for (int i = 0; i < k->nops; i++)
    if (k->ops[i] == o || part_is_operand_view(k, k->ops[i]) || part_is_prologue(k, k->ops[i]) ||
        (k->nprologue && op_table[k->ops[i]->kind].family == FAM_CONST))
      part->ops[part->nops++] = k->ops[i];
  part->in_bufs = arena_alloc(a, sizeof(int) * (size_t)(k->nin + 2));
  part->in_vals = arena_alloc(a, sizeof(value *) * (size_t)(k->nin + 2));
  part->nin = 0;
  for (int i = 0; i < k->nin; i++)
    if (read_by_gemm(k, k->in_vals[i])) {
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
  comb->ops = arena_alloc(a, sizeof(op *) * (size_t)(k->nops + 1));
  comb->nops = 0;
  for (int i = 0; i < k->nops; i++)
    if (!part_is_operand_view(k, k->ops[i]) && !part_is_prologue(k, k->ops[i]))
      comb->ops[comb->nops++] = k->ops[i];
  comb->prologue = NULL, comb->nprologue = 0;
  comb->in_bufs = arena_alloc(a, sizeof(int) * (size_t)(k->nin + 1));
  comb->in_vals = arena_alloc(a, sizeof(value *) * (size_t)(k->nin + 1));
  comb->in_bufs[0] = wb.id;
  comb->in_vals[0] = pv;
  comb->nin = 1;
  for (int i = 0; i < k->nin; i++)
    if (part_read_by_epilogue(k, k->in_vals[i])) {
      comb->in_bufs[comb->nin] = k->in_bufs[i];
      comb->in_vals[comb->nin++] = k->in_vals[i];
    }
}
