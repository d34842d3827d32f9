/* kernel_rownorm.c: a row-wise normalisation group (partition/rownorm.c: layer norm, RMS norm,
 * softmax) as one kernel. One work-group per row of F = [..., H]: for each last-axis reduction
 * in graph order, the work-items walk the row (h = tid, tid + block, ...), evaluate the
 * reduction's input from the graph's own elementwise ops (cg_ew_op, operands broadcast over F,
 * earlier reductions' results as per-row scalars), accumulate in f32 and combine through an
 * LDS tree; row-shaped ops ([..., 1]) are evaluated once per row; a last walk evaluates and
 * stores every output of the group. No statistic ever goes through memory, and the row of each
 * full-shape input is read from memory once: copied to LDS first (cache_rows), every walk reads it
 * there. */
#include "codegen.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define RN_MAX_CACHED 4
#define RN_CACHE_BYTES 32768 /* LDS for cached input rows, at most */

typedef struct rn {
  cg_builder *cb;
  LLVMBuilderRef b;
  const graph *g;
  const part_kernel *k;
  tensor_type f;   /* the rows' shape [..., H] */
  int64_t rows, h;
  int block;
  LLVMTypeRef it;
  char *member;    /* op id: in this kernel */
  LLVMValueRef *row; /* value id: per-row scalar (reduction results, row-shaped ops) */
  LLVMValueRef lds;
  LLVMValueRef acc_p; /* the work-item's accumulator (an entry-block alloca: a register) */
  /* the row of each full-shape input, copied to LDS once and read from there by every walk */
  const value *cached[RN_MAX_CACHED];
  LLVMValueRef cache[RN_MAX_CACHED];
  int ncached;
} rn;

static LLVMValueRef ic(rn *R, int64_t x) { return LLVMConstInt(R->it, (unsigned long long)x, 1); }

static bool same_shape(const tensor_type *a, const tensor_type *b) {
  if (a->rank != b->rank)
    return false;
  for (int i = 0; i < a->rank; i++)
    if (a->dims[i] != b->dims[i])
      return false;
  return true;
}

/* v at coords: a row scalar, an op of the group evaluated here (memo), or an operand. */
static LLVMValueRef eval(rn *R, const value *v, LLVMValueRef const *coords, LLVMValueRef *memo) {
  if (R->row[v->id])
    return R->row[v->id];
  if (memo[v->id])
    return memo[v->id];
  const op *d = v->def;
  for (int i = 0; i < R->ncached; i++)
    if (R->cached[i] == v) {
      LLVMTypeRef t = cg_elem_type(R->cb, v->type->elem);
      LLVMValueRef h = coords[R->f.rank - 1];
      return memo[v->id] = cg_load(R->cb, t, LLVMBuildInBoundsGEP2(R->b, t, R->cache[i], &h, 1, ""),
                                   (unsigned)elem_type_bytes(v->type->elem));
    }
  if (!d || !R->member[d->id] || op_table[d->kind].family != FAM_ELEMENTWISE)
    return memo[v->id] = cg_ew_operand(R->cb, R->k, v, R->f.rank, coords, R->it);
  LLVMValueRef args[4];
  for (int a = 0; a < d->noperands && a < 4; a++)
    if (!(args[a] = eval(R, d->operands[a], coords, memo)))
      return NULL;
  return memo[v->id] = cg_ew_op(R->cb, d, args);
}

/* coords of element h of row r (r, h of the index type) */
static void coords_of(rn *R, LLVMValueRef r, LLVMValueRef h, LLVMValueRef *coords) {
  for (int d = R->f.rank - 2; d >= 0; d--) {
    coords[d] = LLVMBuildSRem(R->b, r, ic(R, R->f.dims[d]), "");
    r = LLVMBuildSDiv(R->b, r, ic(R, R->f.dims[d]), "");
  }
  coords[R->f.rank - 1] = h;
}

static LLVMValueRef to_f32(rn *R, LLVMValueRef x) {
  return LLVMTypeOf(x) == R->cb->f32 ? x : LLVMBuildFPExt(R->b, x, R->cb->f32, "");
}

static LLVMValueRef combine(rn *R, bool is_max, LLVMValueRef a, LLVMValueRef b) {
  if (!is_max)
    return LLVMBuildFAdd(R->b, a, b, "");
  LLVMTypeRef t = R->cb->f32;
  LLVMValueRef args[2] = {a, b};
  return cg_intrinsic(R->cb, "llvm.maximum", &t, 1, args, 2);
}

static LLVMValueRef lds_at(rn *R, LLVMValueRef i) {
  return LLVMBuildInBoundsGEP2(R->b, R->cb->f32, R->lds, &i, 1, "");
}

/* One reduction over the row: per-work-item accumulation, then an LDS tree; every work-item
 * gets the result (in the reduction's result type). */
static LLVMValueRef reduce_row(rn *R, const op *o, LLVMValueRef r, LLVMValueRef tid) {
  cg_builder *cb = R->cb;
  LLVMBuilderRef bl = R->b;
  bool is_max = o->kind == OP_REDUCE_MAX;
  LLVMValueRef acc_p = R->acc_p;
  LLVMValueRef id = LLVMConstReal(cb->f32, is_max ? -INFINITY : 0.0);
  cg_store(cb, id, acc_p, 4);
  cg_loop l = cg_loop_begin(cb, tid, ic(R, R->h), "row");
  LLVMValueRef coords[TOSAC_MAX_RANK];
  coords_of(R, r, l.iv, coords);
  LLVMValueRef *memo = calloc((size_t)R->g->nvalues, sizeof(LLVMValueRef));
  LLVMValueRef x = eval(R, o->operands[0], coords, memo);
  free(memo);
  if (!x)
    return NULL;
  cg_store(cb, combine(R, is_max, cg_load(cb, cb->f32, acc_p, 4), to_f32(R, x)), acc_p, 4);
  cg_loop_end(cb, &l, R->block);
  cg_store(cb, cg_load(cb, cb->f32, acc_p, 4), lds_at(R, tid), 4);
  cg_barrier(cb);
  for (int s = R->block / 2; s > 0; s /= 2) {
    LLVMBasicBlockRef add = LLVMAppendBasicBlockInContext(cb->ctx, cb->fn, "tree");
    LLVMBasicBlockRef next = LLVMAppendBasicBlockInContext(cb->ctx, cb->fn, "tree_next");
    LLVMBuildCondBr(bl, LLVMBuildICmp(bl, LLVMIntSLT, tid, ic(R, s), ""), add, next);
    LLVMPositionBuilderAtEnd(bl, add);
    LLVMValueRef a = cg_load(cb, cb->f32, lds_at(R, tid), 4);
    LLVMValueRef b = cg_load(cb, cb->f32, lds_at(R, LLVMBuildAdd(bl, tid, ic(R, s), "")), 4);
    cg_store(cb, combine(R, is_max, a, b), lds_at(R, tid), 4);
    LLVMBuildBr(bl, next);
    LLVMPositionBuilderAtEnd(bl, next);
    cg_barrier(cb);
  }
  LLVMValueRef res = cg_load(cb, cb->f32, lds_at(R, ic(R, 0)), 4);
  cg_barrier(cb); /* everyone has read slot 0 before the next reduction writes it */
  LLVMTypeRef rt = cg_elem_type(cb, o->results[0]->type->elem);
  return rt == cb->f32 ? res : LLVMBuildFPTrunc(bl, res, rt, "");
}

/* Copy the row of every full-shape float input the group reads (up to RN_MAX_CACHED of them,
 * RN_CACHE_BYTES in all) to LDS, so each walk after the first reads LDS instead of memory. */
static bool cache_rows(rn *R, LLVMValueRef r, LLVMValueRef tid) {
  int64_t bytes = 0;
  const part_kernel *k = R->k;
  for (int i = 0; i < k->nops; i++) {
    const op *o = k->ops[i];
    if (op_table[o->kind].family == FAM_CONST)
      continue;
    for (int j = 0; j < o->noperands && R->ncached < RN_MAX_CACHED; j++) {
      const value *v = o->operands[j];
      bool seen = false;
      for (int c = 0; c < R->ncached; c++)
        seen |= R->cached[c] == v;
      int64_t b = R->h * elem_type_bytes(v->type->elem);
      if (seen || (v->def && R->member[v->def->id]) || !same_shape(v->type, &R->f) ||
          !elem_type_is_float(v->type->elem) || bytes + b > RN_CACHE_BYTES)
        continue;
      char name[96];
      snprintf(name, sizeof name, "%s.row%d", k->name, R->ncached);
      R->cache[R->ncached] = cg_lds_alloc(R->cb, name, LLVMArrayType2(cg_elem_type(R->cb, v->type->elem), (uint64_t)R->h), 16);
      R->cached[R->ncached++] = v;
      bytes += b;
    }
  }
  if (!R->ncached)
    return true;
  cg_loop l = cg_loop_begin(R->cb, tid, ic(R, R->h), "cache");
  LLVMValueRef coords[TOSAC_MAX_RANK];
  coords_of(R, r, l.iv, coords);
  for (int c = 0; c < R->ncached; c++) {
    LLVMValueRef x = cg_ew_operand(R->cb, k, R->cached[c], R->f.rank, coords, R->it);
    if (!x)
      return false;
    LLVMTypeRef t = cg_elem_type(R->cb, R->cached[c]->type->elem);
    cg_store(R->cb, x, LLVMBuildInBoundsGEP2(R->b, t, R->cache[c], &l.iv, 1, ""),
             (unsigned)elem_type_bytes(R->cached[c]->type->elem));
  }
  cg_loop_end(R->cb, &l, R->block);
  cg_barrier(R->cb);
  return true;
}

static void store_out(rn *R, int i, LLVMValueRef x, LLVMValueRef off) {
  const value *v = R->k->out_vals[i];
  LLVMTypeRef mt = cg_mem_type(R->cb, v->type->elem);
  LLVMValueRef dst = LLVMGetParam(R->cb->fn, (unsigned)(R->k->nin + i));
  cg_store(R->cb, x, LLVMBuildInBoundsGEP2(R->b, mt, dst, &off, 1, ""), (unsigned)elem_type_bytes(v->type->elem));
}

static int block_for(int64_t h) {
  int b = 64;
  while (b < 256 && b < h)
    b *= 2;
  return b;
}

bool cg_emit_rownorm(cg_builder *cb, const graph *g, const partition_plan *p, const part_kernel *k,
                     cg_kernel_info *info) {
  (void)p;
  rn R = {.cb = cb, .b = cb->b, .g = g, .k = k};
  R.f = *k->anchor->operands[0]->type;
  R.h = R.f.dims[R.f.rank - 1];
  R.rows = tensor_numel(&R.f) / R.h;
  R.block = block_for(R.h);
  R.it = cg_anchor_index_type(cb, k);
  int nargs = k->nin + k->nout;
  const char **access = calloc((size_t)nargs + 1, sizeof(char *));
  for (int i = 0; i < nargs; i++)
    access[i] = i < k->nin ? "read_only" : "write_only";
  cg_kernel_begin(cb, k->name, nargs, access, R.block);
  cg_launch_1d(info, k, R.block, R.rows, R.rows * R.block, 1, access);
  free(access);
  char name[96];
  snprintf(name, sizeof name, "%s.lds", k->name);
  R.lds = cg_lds_alloc(cb, name, LLVMArrayType2(cb->f32, (uint64_t)R.block), 16);
  R.member = calloc((size_t)g->nops + 1, 1);
  R.row = calloc((size_t)g->nvalues + 1, sizeof(LLVMValueRef));
  for (int i = 0; i < k->nops; i++)
    R.member[k->ops[i]->id] = 1;
  LLVMBuilderRef bl = cb->b;
  R.acc_p = LLVMBuildAlloca(bl, cb->f32, "acc");
  LLVMValueRef tid32 = cg_thread_id_x(cb), gid32 = cg_group_id_x(cb);
  bool ok = tid32 && gid32;
  LLVMValueRef tid = ok ? LLVMBuildZExt(bl, tid32, R.it, "") : NULL;
  LLVMValueRef r = ok ? LLVMBuildZExt(bl, gid32, R.it, "row") : NULL;
  tensor_type rshape = R.f;
  rshape.dims[R.f.rank - 1] = 1;
  LLVMValueRef c0[TOSAC_MAX_RANK];
  if (ok)
    coords_of(&R, r, ic(&R, 0), c0);
  ok = ok && cache_rows(&R, r, tid);
  /* statistics and row-shaped ops, in graph order */
  for (int i = 0; i < k->nops && ok; i++) {
    const op *o = k->ops[i];
    if (op_table[o->kind].family == FAM_REDUCTION) {
      ok = (R.row[o->results[0]->id] = reduce_row(&R, o, r, tid)) != NULL;
    } else if (op_table[o->kind].family == FAM_ELEMENTWISE && same_shape(o->results[0]->type, &rshape)) {
      LLVMValueRef *memo = calloc((size_t)g->nvalues, sizeof(LLVMValueRef));
      LLVMValueRef x = eval(&R, o->results[0], c0, memo);
      free(memo);
      ok = (R.row[o->results[0]->id] = x) != NULL;
    }
  }
  /* outputs: row-shaped ones by work-item 0, the others along the row */
  if (ok) {
    cg_loop l = cg_loop_begin(cb, tid, ic(&R, R.h), "out");
    LLVMValueRef coords[TOSAC_MAX_RANK];
    coords_of(&R, r, l.iv, coords);
    LLVMValueRef *memo = calloc((size_t)g->nvalues, sizeof(LLVMValueRef));
    LLVMValueRef off = LLVMBuildAdd(bl, LLVMBuildMul(bl, r, ic(&R, R.h), ""), l.iv, "");
    for (int i = 0; i < k->nout && ok; i++) {
      const value *v = k->out_vals[i];
      if (!same_shape(v->type, &R.f))
        continue;
      LLVMValueRef x = eval(&R, v, coords, memo);
      if (!(ok = x != NULL))
        break;
      store_out(&R, i, v->type->elem == ET_I1 ? LLVMBuildZExt(bl, x, cb->i8, "") : x, off);
    }
    free(memo);
    cg_loop_end(cb, &l, R.block);
  }
  if (ok) {
    LLVMBasicBlockRef st = LLVMAppendBasicBlockInContext(cb->ctx, cb->fn, "row_out");
    LLVMBasicBlockRef exit = LLVMAppendBasicBlockInContext(cb->ctx, cb->fn, "exit");
    LLVMBuildCondBr(bl, LLVMBuildICmp(bl, LLVMIntEQ, tid, ic(&R, 0), ""), st, exit);
    LLVMPositionBuilderAtEnd(bl, st);
    for (int i = 0; i < k->nout; i++)
      if (!same_shape(k->out_vals[i]->type, &R.f))
        store_out(&R, i, R.row[k->out_vals[i]->id], r);
    LLVMBuildBr(bl, exit);
    LLVMPositionBuilderAtEnd(bl, exit);
    LLVMBuildRetVoid(bl);
  }
  free(R.member);
  free(R.row);
  snprintf(info->tuning, sizeof info->tuning, "{\"block\":%d,\"row\":%lld}", R.block, (long long)R.h);
  return ok && !cb->failed;
}
