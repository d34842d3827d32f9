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

#include <llvm-c/DebugInfo.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#define RN_MAX_CACHED 4
#define RN_CACHE_BYTES 32768 /* LDS for cached input rows, at most */
#define RN_CHUNK_BYTES 16    /* one work-item's load of a row copy */

typedef struct rn {
  cg_builder *cb;
  LLVMBuilderRef b;
  const graph *g;
  const part_kernel *k;
  tensor_type f;   /* the rows' shape [..., H] */
  int64_t rows, h;
  int block;       /* work-items walking a row */
  int tree;        /* the power of two <= block the LDS tree combines (block folds into it) */
  int wave;        /* > 0: combine across each wave's lanes first, then the waves' sums in LDS */
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
  LLVMTypeRef rt = cg_elem_type(cb, o->results[0]->type->elem);
  if (R->wave) { /* lanes by xor butterfly (every lane ends with the wave's sum), then the waves */
    LLVMValueRef x = cg_load(cb, cb->f32, acc_p, 4);
    LLVMValueRef t32 = LLVMBuildTrunc(bl, tid, cb->i32, "");
    LLVMValueRef lane = LLVMBuildURem(bl, t32, LLVMConstInt(cb->i32, (unsigned)R->wave, 0), "");
    for (int m = 1; m < R->wave && x; m *= 2) {
      LLVMValueRef y = cg_lane_xor(cb, x, m, lane);
      x = y ? combine(R, is_max, x, y) : NULL;
    }
    if (!x)
      return NULL;
    if (R->block == R->wave) /* one wave per row (cg_rownorm_tile_prologue): every lane has it */
      return rt == cb->f32 ? x : LLVMBuildFPTrunc(bl, x, rt, "");
    LLVMBasicBlockRef st = LLVMAppendBasicBlockInContext(cb->ctx, cb->fn, "wave_sum");
    LLVMBasicBlockRef next = LLVMAppendBasicBlockInContext(cb->ctx, cb->fn, "wave_sum_next");
    LLVMBuildCondBr(bl, LLVMBuildICmp(bl, LLVMIntEQ, lane, LLVMConstInt(cb->i32, 0, 0), ""), st, next);
    LLVMPositionBuilderAtEnd(bl, st);
    cg_store(cb, x, lds_at(R, LLVMBuildUDiv(bl, tid, ic(R, R->wave), "")), 4);
    LLVMBuildBr(bl, next);
    LLVMPositionBuilderAtEnd(bl, next);
    cg_barrier(cb);
    LLVMValueRef res = cg_load(cb, cb->f32, lds_at(R, ic(R, 0)), 4);
    for (int w = 1; w < R->block / R->wave; w++) /* in wave order: every work-item the same bits */
      res = combine(R, is_max, res, cg_load(cb, cb->f32, lds_at(R, ic(R, w)), 4));
    cg_barrier(cb); /* read before the next reduction writes */
    return rt == cb->f32 ? res : LLVMBuildFPTrunc(bl, res, rt, "");
  }
  cg_store(cb, cg_load(cb, cb->f32, acc_p, 4), lds_at(R, tid), 4);
  cg_barrier(cb);
  if (R->tree < R->block) { /* a block that is no power of two: its top folds into the tree */
    LLVMBasicBlockRef add = LLVMAppendBasicBlockInContext(cb->ctx, cb->fn, "fold");
    LLVMBasicBlockRef next = LLVMAppendBasicBlockInContext(cb->ctx, cb->fn, "fold_next");
    LLVMBuildCondBr(bl, LLVMBuildICmp(bl, LLVMIntSLT, tid, ic(R, R->block - R->tree), ""), add, next);
    LLVMPositionBuilderAtEnd(bl, add);
    LLVMValueRef a = cg_load(cb, cb->f32, lds_at(R, tid), 4);
    LLVMValueRef b = cg_load(cb, cb->f32, lds_at(R, LLVMBuildAdd(bl, tid, ic(R, R->tree), "")), 4);
    cg_store(cb, combine(R, is_max, a, b), lds_at(R, tid), 4);
    LLVMBuildBr(bl, next);
    LLVMPositionBuilderAtEnd(bl, next);
    cg_barrier(cb);
  }
  for (int s = R->tree / 2; s > 0; s /= 2) {
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
  return rt == cb->f32 ? res : LLVMBuildFPTrunc(bl, res, rt, "");
}

/* The row copy in 16-byte chunks (a work-item loads one chunk per input per step, so a row of
 * 2,048 f16 elements is one step of 256 work-items): when every cached row is a whole number of
 * chunks, each row then starts 16-byte aligned in its (row-major, same-shape) argument buffer.
 * False when the rows do not allow it (the caller copies element by element). */
static bool cache_rows_wide(rn *R, LLVMValueRef r, LLVMValueRef tid) {
  int vw = 0;
  for (int c = 0; c < R->ncached; c++) {
    int es = elem_type_bytes(R->cached[c]->type->elem);
    bool param = false;
    for (int i = 0; i < R->k->nin; i++)
      param |= R->k->in_vals[i] == R->cached[c];
    if (!param || (R->h * es) % RN_CHUNK_BYTES || (vw && vw != RN_CHUNK_BYTES / es))
      return false;
    vw = RN_CHUNK_BYTES / es;
  }
  LLVMBuilderRef b = R->b;
  cg_loop l = cg_loop_begin(R->cb, tid, ic(R, R->h / vw), "cache16");
  LLVMValueRef h = LLVMBuildMul(b, l.iv, ic(R, vw), "");
  LLVMValueRef off = LLVMBuildAdd(b, LLVMBuildMul(b, r, ic(R, R->h), ""), h, "");
  for (int c = 0; c < R->ncached; c++) {
    LLVMValueRef base = cg_operand_ptr(R->cb, R->k, R->cached[c]);
    if (!base)
      return false;
    LLVMTypeRef t = cg_mem_type(R->cb, R->cached[c]->type->elem), vt = LLVMVectorType(t, (unsigned)vw);
    LLVMValueRef x = cg_load(R->cb, vt, LLVMBuildInBoundsGEP2(b, t, base, &off, 1, ""), RN_CHUNK_BYTES);
    cg_store(R->cb, x, LLVMBuildInBoundsGEP2(b, t, R->cache[c], &h, 1, ""), RN_CHUNK_BYTES);
  }
  cg_loop_end(R->cb, &l, R->block);
  cg_barrier(R->cb);
  return true;
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
  if (cache_rows_wide(R, r, tid))
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

/* Elements of a row one work-item stores per step: 16 bytes of the widest full-shape output
 * when every output row is a whole number of such chunks (each row then starts aligned to its
 * chunk), else 1. */
static int out_chunk(const rn *R) {
  int maxb = 1;
  for (int i = 0; i < R->k->nout; i++) {
    const value *v = R->k->out_vals[i];
    if (same_shape(v->type, &R->f))
      maxb = elem_type_bytes(v->type->elem) > maxb ? elem_type_bytes(v->type->elem) : maxb;
  }
  int vw = RN_CHUNK_BYTES / maxb;
  for (int i = 0; i < R->k->nout && vw > 1; i++)
    if (R->k->out_vals[i]->type->elem == ET_I1)
      vw = 1;
  return vw > 1 && R->h % vw == 0 ? vw : 1;
}

/* The last walk: every full-shape output evaluated along row r and stored, a chunk of
 * out_chunk elements per work-item and step (one vector store per output). */
static bool store_rows(rn *R, LLVMValueRef r, LLVMValueRef tid) {
  cg_builder *cb = R->cb;
  LLVMBuilderRef bl = R->b;
  int vw = out_chunk(R), nout = R->k->nout;
  cg_loop l = cg_loop_begin(cb, tid, ic(R, R->h / vw), "out");
  LLVMValueRef h0 = vw == 1 ? l.iv : LLVMBuildMul(bl, l.iv, ic(R, vw), "");
  LLVMValueRef off = LLVMBuildAdd(bl, LLVMBuildMul(bl, r, ic(R, R->h), ""), h0, "");
  LLVMValueRef *chunk = calloc((size_t)nout + 1, sizeof(LLVMValueRef));
  LLVMValueRef *memo = calloc((size_t)R->g->nvalues, sizeof(LLVMValueRef));
  bool ok = true;
  for (int j = 0; j < vw && ok; j++) {
    LLVMValueRef coords[TOSAC_MAX_RANK];
    coords_of(R, r, j ? LLVMBuildAdd(bl, h0, ic(R, j), "") : h0, coords);
    memset(memo, 0, sizeof(LLVMValueRef) * (size_t)R->g->nvalues);
    for (int i = 0; i < nout && ok; i++) {
      const value *v = R->k->out_vals[i];
      if (!same_shape(v->type, &R->f))
        continue;
      LLVMValueRef x = eval(R, v, coords, memo);
      if (!(ok = x != NULL))
        break;
      x = v->type->elem == ET_I1 ? LLVMBuildZExt(bl, x, cb->i8, "") : x;
      if (vw == 1) {
        store_out(R, i, x, off);
        continue;
      }
      if (!chunk[i])
        chunk[i] = LLVMGetUndef(LLVMVectorType(LLVMTypeOf(x), (unsigned)vw));
      chunk[i] = LLVMBuildInsertElement(bl, chunk[i], x, LLVMConstInt(cb->i32, (unsigned)j, 0), "");
    }
  }
  for (int i = 0; i < nout && ok && vw > 1; i++) {
    if (!chunk[i])
      continue;
    const value *v = R->k->out_vals[i];
    LLVMTypeRef mt = cg_mem_type(cb, v->type->elem);
    LLVMValueRef dst = LLVMGetParam(cb->fn, (unsigned)(R->k->nin + i));
    cg_store(cb, chunk[i], LLVMBuildInBoundsGEP2(bl, mt, dst, &off, 1, ""),
             (unsigned)(vw * elem_type_bytes(v->type->elem)));
  }
  free(memo);
  free(chunk);
  cg_loop_end(cb, &l, R->block);
  return ok;
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
  R.block = R.tree = block_for(R.h);
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
  if (ok)
    ok = store_rows(&R, r, tid);
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

/* The row norm a skinny GEMM evaluates before its loop (k->prologue, partition/group.c): rows
 * r0 .. r0 + nrows - 1 of value a (the norm's full-shape value the GEMM reads as A) into dst
 * ([nrows][H] of a's element type in LDS), by the kernel's `threads` work-items. Per row: the
 * statistics in graph order (as cg_emit_rownorm, but each combined across a wave's lanes first
 * and then over the waves: one barrier instead of a tree's log2(threads)), then a walk storing
 * a's elements; a barrier at the end, so every work-item may read any row. The row is read from
 * memory by each walk (the first from the cache the previous kernel wrote it to, the others from
 * the CU's), not copied to LDS first: the LDS holds A and the GEMM's partial sums. */
bool cg_rownorm_prologue(cg_builder *cb, const graph *g, const part_kernel *k, const value *a, LLVMValueRef r0,
                         int nrows, LLVMValueRef tid32, int threads, LLVMValueRef dst) {
  rn R = {.cb = cb, .b = cb->b, .g = g, .k = k, .block = threads, .wave = cb->target->info->wave_size};
  const op *first = NULL;
  for (int i = 0; i < k->nprologue && !first; i++)
    if (op_table[k->prologue[i]->kind].family == FAM_REDUCTION)
      first = k->prologue[i];
  if (!first || threads < R.wave || threads % R.wave)
    return false;
  R.f = *first->operands[0]->type;
  R.h = R.f.dims[R.f.rank - 1];
  R.rows = tensor_numel(&R.f) / R.h;
  for (R.tree = 1; R.tree * 2 <= threads; R.tree *= 2)
    ;
  R.it = cg_anchor_index_type(cb, k);
  char name[96];
  snprintf(name, sizeof name, "%s.norm", k->name);
  R.lds = cg_lds_alloc(cb, name, LLVMArrayType2(cb->f32, (uint64_t)threads), 16);
  R.member = calloc((size_t)g->nops + 1, 1);
  R.row = calloc((size_t)g->nvalues + 1, sizeof(LLVMValueRef));
  LLVMValueRef *memo = calloc((size_t)g->nvalues + 1, sizeof(LLVMValueRef));
  for (int i = 0; i < k->nprologue; i++)
    R.member[k->prologue[i]->id] = 1;
  LLVMBuilderRef bl = cb->b;
  R.acc_p = LLVMBuildAlloca(bl, cb->f32, "norm_acc"); /* the caller is still in the entry block */
  LLVMValueRef tid = LLVMBuildZExt(bl, tid32, R.it, "");
  LLVMValueRef base = LLVMBuildZExt(bl, r0, R.it, "");
  tensor_type rshape = R.f;
  rshape.dims[R.f.rank - 1] = 1;
  bool ok = R.acc_p != NULL;
  for (int m = 0; m < nrows && ok; m++) {
    LLVMValueRef r = LLVMBuildAdd(bl, base, ic(&R, m), "norm_row"), c0[TOSAC_MAX_RANK];
    memset(R.row, 0, sizeof(LLVMValueRef) * ((size_t)g->nvalues + 1));
    coords_of(&R, r, ic(&R, 0), c0);
    for (int i = 0; i < k->nprologue && ok; i++) {
      const op *o = k->prologue[i];
      if (op_table[o->kind].family == FAM_REDUCTION) {
        ok = (R.row[o->results[0]->id] = reduce_row(&R, o, r, tid)) != NULL;
      } else if (op_table[o->kind].family == FAM_ELEMENTWISE && same_shape(o->results[0]->type, &rshape)) {
        memset(memo, 0, sizeof(LLVMValueRef) * ((size_t)g->nvalues + 1));
        ok = (R.row[o->results[0]->id] = eval(&R, o->results[0], c0, memo)) != NULL;
      }
    }
    if (!ok)
      break;
    cg_loop l = cg_loop_begin(cb, tid, ic(&R, R.h), "norm_out");
    LLVMValueRef coords[TOSAC_MAX_RANK];
    coords_of(&R, r, l.iv, coords);
    memset(memo, 0, sizeof(LLVMValueRef) * ((size_t)g->nvalues + 1));
    LLVMValueRef x = eval(&R, a, coords, memo);
    ok = x != NULL;
    if (ok) {
      LLVMValueRef at = LLVMBuildAdd(bl, l.iv, ic(&R, (int64_t)m * R.h), "");
      cg_store(cb, x, LLVMBuildInBoundsGEP2(bl, LLVMTypeOf(x), dst, &at, 1, ""),
               (unsigned)elem_type_bytes(a->type->elem));
    }
    cg_loop_end(cb, &l, R.block);
  }
  if (ok)
    cg_barrier(cb);
  free(memo);
  free(R.member);
  free(R.row);
  return ok && !cb->failed;
}

/* The loop whose latch block is `latch` neither vectorised nor unrolled: a lane's walk over a
 * row stays one element per step (the vectorised form of the prologue's LDS stores addressed
 * them from a base below the array, VGPR = -256 with offset:256). */
static void loop_plain(cg_builder *cb, LLVMBasicBlockRef latch) {
  LLVMValueRef br = LLVMGetBasicBlockTerminator(latch);
  if (!br)
    return;
  static const char *const names[] = {"llvm.loop.unroll.disable", "llvm.loop.vectorize.enable"};
  LLVMMetadataRef self = LLVMTemporaryMDNode(cb->ctx, NULL, 0), ops[3] = {self};
  LLVMMetadataRef s0 = LLVMMDStringInContext2(cb->ctx, names[0], strlen(names[0]));
  ops[1] = LLVMMDNodeInContext2(cb->ctx, &s0, 1);
  LLVMMetadataRef v[2] = {LLVMMDStringInContext2(cb->ctx, names[1], strlen(names[1])),
                          LLVMValueAsMetadata(LLVMConstInt(cb->i1, 0, 0))};
  ops[2] = LLVMMDNodeInContext2(cb->ctx, v, 2);
  LLVMMetadataRef loop = LLVMMDNodeInContext2(cb->ctx, ops, 3);
  LLVMMetadataReplaceAllUsesWith(self, loop);
  LLVMSetMetadata(br, LLVMGetMDKindIDInContext(cb->ctx, "llvm.loop", 9), LLVMMetadataAsValue(cb->ctx, loop));
}

/* Values a lane of a tile GEMM's row-norm prologue holds at once: nb rows x row / wave elements
 * (the rows' loads all in flight together). */
#define RN_TILE_REGS 64

int cg_rownorm_tile_batch(int wave, int64_t row, int64_t rows) {
  if (wave < 1 || row < wave || row % wave || row / wave > RN_TILE_REGS)
    return 0;
  int64_t nb = RN_TILE_REGS / (row / wave);
  rows = rows < 1 ? 1 : rows;
  return (int)(nb < rows ? nb : rows);
}

/* The tile prologue's stores of the norm's value (and any other member value the kernel outputs)
 * at element offset off of a row, for kernels that read it after the GEMM. */
static bool store_norm_value(rn *R, LLVMValueRef off, LLVMValueRef *coords, LLVMValueRef *memo) {
  for (int i = 0; i < R->k->nout; i++) {
    const value *v = R->k->out_vals[i];
    if (!v->def || !R->member[v->def->id] || !same_shape(v->type, &R->f))
      continue;
    LLVMValueRef y = eval(R, v, coords, memo);
    if (!y)
      return false;
    store_out(R, i, y, cg_slot_offset(R->cb, R->k, v, off));
  }
  return true;
}

/* The tile prologue's rows nb at a time per wave (m0 = w, w + waves * nb, ...): a lane evaluates
 * its row / wave elements of every row of the batch in straight-line code, so all their loads
 * are issued before the first statistic waits on any; the statistics then reduce each row in
 * registers and across lanes (the rows' cg_lane_xor steps interleaved), and the rows go to dst.
 * A batch's rows past nvalid repeat row m0 (the same values to the same places): no branch. */
static bool tile_rows_batched(rn *R, const value *a, LLVMValueRef base, LLVMValueRef w, LLVMValueRef lane,
                              LLVMValueRef nvalid, int nb, int waves, LLVMValueRef dst, LLVMValueRef store,
                              bool any) {
  cg_builder *cb = R->cb;
  LLVMBuilderRef bl = R->b;
  int wave = R->wave, J = (int)(R->h / wave), n = nb * J;
  size_t nv = (size_t)R->g->nvalues + 1;
  LLVMValueRef **rowv = calloc((size_t)nb, sizeof *rowv), **memo = calloc((size_t)n, sizeof *memo);
  LLVMValueRef(*coords)[TOSAC_MAX_RANK] = calloc((size_t)n, sizeof *coords);
  LLVMValueRef(*c0)[TOSAC_MAX_RANK] = calloc((size_t)nb, sizeof *c0);
  LLVMValueRef *mrow = calloc((size_t)nb, sizeof *mrow), *r = calloc((size_t)nb, sizeof *r);
  LLVMValueRef *x = calloc((size_t)n, sizeof *x), *acc = calloc((size_t)nb, sizeof *acc);
  LLVMValueRef *tmp = calloc(nv, sizeof *tmp);
  LLVMValueRef *row0 = R->row;
  tensor_type rshape = R->f;
  rshape.dims[R->f.rank - 1] = 1;
  bool ok = rowv && memo && coords && c0 && mrow && r && x && acc && tmp;
  for (int i = 0; i < nb && ok; i++)
    ok = (rowv[i] = calloc(nv, sizeof **rowv)) != NULL;
  for (int e = 0; e < n && ok; e++)
    ok = (memo[e] = calloc(nv, sizeof **memo)) != NULL;
  cg_loop rows = cg_loop_begin(cb, w, nvalid, "norm_rows");
  LLVMValueRef lane32 = LLVMBuildTrunc(bl, lane, cb->i32, "");
  for (int i = 0; i < nb && ok; i++) {
    LLVMValueRef mi = LLVMBuildAdd(bl, rows.iv, ic(R, (int64_t)i * waves), "");
    mrow[i] = i ? LLVMBuildSelect(bl, LLVMBuildICmp(bl, LLVMIntULT, mi, nvalid, ""), mi, rows.iv, "") : mi;
    r[i] = LLVMBuildAdd(bl, base, mrow[i], "norm_row");
    coords_of(R, r[i], ic(R, 0), c0[i]);
    for (int j = 0; j < J; j++)
      coords_of(R, r[i], LLVMBuildAdd(bl, lane, ic(R, (int64_t)j * wave), ""), coords[i * J + j]);
  }
  for (int p = 0; p < R->k->nprologue && ok; p++) {
    const op *o = R->k->prologue[p];
    if (op_table[o->kind].family == FAM_REDUCTION) {
      bool is_max = o->kind == OP_REDUCE_MAX;
      for (int e = 0; e < n && ok; e++) { /* every element's input first: the loads in flight */
        R->row = rowv[e / J];
        ok = (x[e] = eval(R, o->operands[0], coords[e], memo[e])) != NULL;
      }
      for (int i = 0; i < nb && ok; i++) {
        acc[i] = LLVMConstReal(cb->f32, is_max ? -INFINITY : 0.0);
        for (int j = 0; j < J; j++)
          acc[i] = combine(R, is_max, acc[i], to_f32(R, x[i * J + j]));
      }
      for (int s = 1; s < wave && ok; s *= 2)
        for (int i = 0; i < nb && ok; i++) {
          LLVMValueRef y = cg_lane_xor(cb, acc[i], s, lane32);
          ok = y != NULL;
          if (ok)
            acc[i] = combine(R, is_max, acc[i], y);
        }
      LLVMTypeRef rt = cg_elem_type(cb, o->results[0]->type->elem);
      for (int i = 0; i < nb && ok; i++)
        rowv[i][o->results[0]->id] = rt == cb->f32 ? acc[i] : LLVMBuildFPTrunc(bl, acc[i], rt, "");
    } else if (op_table[o->kind].family == FAM_ELEMENTWISE && same_shape(o->results[0]->type, &rshape)) {
      for (int i = 0; i < nb && ok; i++) {
        R->row = rowv[i];
        memset(tmp, 0, nv * sizeof *tmp);
        ok = (rowv[i][o->results[0]->id] = eval(R, o->results[0], c0[i], tmp)) != NULL;
      }
    }
  }
  for (int e = 0; e < n && ok; e++) {
    R->row = rowv[e / J];
    LLVMValueRef y = eval(R, a, coords[e], memo[e]);
    if (!(ok = y != NULL))
      break;
    LLVMValueRef at = LLVMBuildAdd(bl, LLVMBuildMul(bl, mrow[e / J], ic(R, R->h), ""),
                                   LLVMBuildAdd(bl, lane, ic(R, (int64_t)(e % J) * wave), ""), "");
    cg_store(cb, y, LLVMBuildInBoundsGEP2(bl, LLVMTypeOf(y), dst, &at, 1, ""),
             (unsigned)elem_type_bytes(a->type->elem));
  }
  if (ok && any && store) { /* the value other kernels read: one work-group per M tile writes it */
    LLVMBasicBlockRef st = LLVMAppendBasicBlockInContext(cb->ctx, cb->fn, "norm_store");
    LLVMBasicBlockRef next = LLVMAppendBasicBlockInContext(cb->ctx, cb->fn, "norm_store_next");
    LLVMBuildCondBr(bl, store, st, next);
    LLVMPositionBuilderAtEnd(bl, st);
    for (int e = 0; e < n && ok; e++) {
      R->row = rowv[e / J];
      LLVMValueRef h = LLVMBuildAdd(bl, lane, ic(R, (int64_t)(e % J) * wave), "");
      LLVMValueRef off = LLVMBuildAdd(bl, LLVMBuildMul(bl, r[e / J], ic(R, R->h), ""), h, "");
      ok = store_norm_value(R, off, coords[e], memo[e]);
    }
    LLVMBuildBr(bl, next);
    LLVMPositionBuilderAtEnd(bl, next);
  }
  if (ok)
    cg_loop_end(cb, &rows, (int64_t)waves * nb);
  R->row = row0;
  for (int i = 0; rowv && i < nb; i++)
    free(rowv[i]);
  for (int e = 0; memo && e < n; e++)
    free(memo[e]);
  free(rowv), free(memo), free(coords), free(c0), free(mrow), free(r), free(x), free(acc), free(tmp);
  return ok;
}

/* The row norm a tile GEMM evaluates before its loop (k->prologue with k->prologue_tile,
 * partition/group.c): rows r0 .. r0 + nvalid - 1 of the norm's rows (nvalid <= nrows, the tile's
 * rows inside M) into dst ([nrows][H] of a's element type in LDS). Each wave takes rows
 * w, w + waves, ... on its own: the statistics are sums across its lanes (cg_lane_xor), no LDS
 * exchange and no barrier per row; a barrier at the end. When `store` (a uniform i1) is true, the
 * walk also stores every kernel output the prologue computes (the norm's value read by other
 * kernels or returned) to its buffer. */
bool cg_rownorm_tile_prologue(cg_builder *cb, const graph *g, const part_kernel *k, const value *a, LLVMValueRef r0,
                              LLVMValueRef nvalid, int nrows, LLVMValueRef tid32, int threads, LLVMValueRef dst,
                              LLVMValueRef store) {
  int wave = cb->target->info->wave_size;
  rn R = {.cb = cb, .b = cb->b, .g = g, .k = k, .block = wave, .tree = wave, .wave = wave};
  const op *first = NULL;
  for (int i = 0; i < k->nprologue && !first; i++)
    if (op_table[k->prologue[i]->kind].family == FAM_REDUCTION)
      first = k->prologue[i];
  if (!first || threads < wave || threads % wave || nrows < 1)
    return false;
  R.f = *first->operands[0]->type;
  R.h = R.f.dims[R.f.rank - 1];
  R.rows = tensor_numel(&R.f) / R.h;
  R.it = cg_anchor_index_type(cb, k);
  R.member = calloc((size_t)g->nops + 1, 1);
  R.row = calloc((size_t)g->nvalues + 1, sizeof(LLVMValueRef));
  LLVMValueRef *memo = calloc((size_t)g->nvalues + 1, sizeof(LLVMValueRef));
  for (int i = 0; i < k->nprologue; i++)
    R.member[k->prologue[i]->id] = 1;
  LLVMBuilderRef bl = cb->b;
  /* the accumulator in the entry block (a register), wherever the caller is (a grouped GEMM's
   * slice) */
  LLVMBuilderRef eb = LLVMCreateBuilderInContext(cb->ctx);
  LLVMBasicBlockRef entry = LLVMGetEntryBasicBlock(cb->fn);
  LLVMValueRef first_i = LLVMGetFirstInstruction(entry);
  if (first_i)
    LLVMPositionBuilderBefore(eb, first_i);
  else
    LLVMPositionBuilderAtEnd(eb, entry);
  R.acc_p = LLVMBuildAlloca(eb, cb->f32, "norm_acc");
  LLVMDisposeBuilder(eb);
  LLVMValueRef tid = LLVMBuildZExt(bl, tid32, R.it, "");
  LLVMValueRef lane = LLVMBuildURem(bl, tid, ic(&R, wave), "");
  LLVMValueRef w = LLVMBuildUDiv(bl, tid, ic(&R, wave), "");
  LLVMValueRef base = LLVMBuildZExt(bl, r0, R.it, "");
  tensor_type rshape = R.f;
  rshape.dims[R.f.rank - 1] = 1;
  bool ok = R.acc_p != NULL, any = false;
  for (int i = 0; i < k->nout; i++)
    any |= k->out_vals[i]->def && R.member[k->out_vals[i]->def->id];
  int nb = cg_rownorm_tile_batch(wave, R.h, (nrows + threads / wave - 1) / (threads / wave));
  if (nb > 0 && ok) {
    ok = tile_rows_batched(&R, a, base, w, lane, LLVMBuildZExt(bl, nvalid, R.it, ""), nb, threads / wave, dst,
                           store, any);
    if (ok)
      cg_barrier(cb);
    free(memo);
    free(R.member);
    free(R.row);
    return ok && !cb->failed;
  }
  cg_loop rows = cg_loop_begin(cb, w, LLVMBuildZExt(bl, nvalid, R.it, ""), "norm_rows");
  LLVMValueRef m = rows.iv;
  LLVMValueRef r = LLVMBuildAdd(bl, base, m, "norm_row"), c0[TOSAC_MAX_RANK];
  coords_of(&R, r, ic(&R, 0), c0);
  for (int i = 0; i < k->nprologue && ok; i++) {
    const op *o = k->prologue[i];
    if (op_table[o->kind].family == FAM_REDUCTION) {
      ok = (R.row[o->results[0]->id] = reduce_row(&R, o, r, lane)) != NULL;
    } else if (op_table[o->kind].family == FAM_ELEMENTWISE && same_shape(o->results[0]->type, &rshape)) {
      memset(memo, 0, sizeof(LLVMValueRef) * ((size_t)g->nvalues + 1));
      ok = (R.row[o->results[0]->id] = eval(&R, o->results[0], c0, memo)) != NULL;
    }
  }
  if (ok) {
    cg_loop l = cg_loop_begin(cb, lane, ic(&R, R.h), "norm_out");
    LLVMValueRef coords[TOSAC_MAX_RANK];
    coords_of(&R, r, l.iv, coords);
    memset(memo, 0, sizeof(LLVMValueRef) * ((size_t)g->nvalues + 1));
    LLVMValueRef x = eval(&R, a, coords, memo);
    ok = x != NULL;
    if (ok) {
      LLVMValueRef at = LLVMBuildAdd(bl, l.iv, LLVMBuildMul(bl, m, ic(&R, R.h), ""), "");
      cg_store(cb, x, LLVMBuildInBoundsGEP2(bl, LLVMTypeOf(x), dst, &at, 1, ""),
               (unsigned)elem_type_bytes(a->type->elem));
    }
    if (ok && any && store) { /* the value other kernels read: one work-group per M tile writes it */
      LLVMBasicBlockRef st = LLVMAppendBasicBlockInContext(cb->ctx, cb->fn, "norm_store");
      LLVMBasicBlockRef next = LLVMAppendBasicBlockInContext(cb->ctx, cb->fn, "norm_store_next");
      LLVMBuildCondBr(bl, store, st, next);
      LLVMPositionBuilderAtEnd(bl, st);
      LLVMValueRef off = LLVMBuildAdd(bl, LLVMBuildMul(bl, r, ic(&R, R.h), ""), l.iv, "");
      ok = store_norm_value(&R, off, coords, memo);
      LLVMBuildBr(bl, next);
      LLVMPositionBuilderAtEnd(bl, next);
    }
    LLVMBasicBlockRef latch = LLVMGetInsertBlock(bl);
    cg_loop_end(cb, &l, wave);
    loop_plain(cb, latch);
  }
  if (ok) {
    cg_loop_end(cb, &rows, threads / wave);
    cg_barrier(cb);
  }
  free(memo);
  free(R.member);
  free(R.row);
  return ok && !cb->failed;
}
