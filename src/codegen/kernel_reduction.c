/* kernel_reduction.c: the reduction family (reduce_sum/product/max/min/all/any, argmax). The
 * input is seen as [outer, r, inner] around the axis; a 256-item work-group owns tx columns of
 * inner and splits r into ty slices: serial accumulation per work-item, an xor butterfly across
 * the lanes of a wave (DPP quad_perm, ds_swizzle, ds_bpermute), then LDS across the waves. The
 * same body, with a chunk of r per work-group, emits the partial / combine / atomic variants
 * that partition/expand.c asks for (part_kernel.role). */
#include "codegen.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define RED_BLOCK CG_RED_BLOCK

typedef enum { R_SUM, R_PROD, R_MAX, R_MIN, R_ALL, R_ANY, R_ARGMAX } red_kind;

/* An accumulator: f32 for float inputs (f16/bf16 widen exactly; sums and products round once
 * at the end), i32 for integers and booleans; argmax carries the index of the value too. */
typedef struct acc {
  LLVMValueRef v, idx;
} acc;

typedef struct red {
  cg_builder *cb;
  LLVMBuilderRef b;
  const part_kernel *k;
  red_kind kind;
  bool propagate;   /* nan_mode PROPAGATE (default) rather than IGNORE */
  elem_type src_et; /* element type of the buffer read (the workspace's for a combine) */
  elem_type out_et; /* element type of the result */
  bool fl;          /* accumulator is f32, else i32 */
  LLVMTypeRef at;   /* accumulator type */
  LLVMTypeRef it;   /* index type for element offsets */
  int64_t outer, r, inner;
  int tx, ty, ws, split;
} red;

static bool classify(const op *o, red_kind *k) {
  static const struct { const char *name; red_kind kind; } names[] = {
      {"tosa.reduce_sum", R_SUM}, {"tosa.reduce_product", R_PROD}, {"tosa.reduce_max", R_MAX},
      {"tosa.reduce_min", R_MIN}, {"tosa.reduce_all", R_ALL},      {"tosa.reduce_any", R_ANY},
      {"tosa.argmax", R_ARGMAX},
  };
  for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
    if (strcmp(op_table[o->kind].name, names[i].name) == 0) {
      *k = names[i].kind;
      return true;
    }
  return false;
}

static LLVMValueRef i32c(red *R, int64_t v) { return LLVMConstInt(R->cb->i32, (unsigned long long)v, 1); }
static LLVMValueRef ic(red *R, int64_t v) { return LLVMConstInt(R->it, (unsigned long long)v, 0); }
static LLVMValueRef f32c(red *R, double v) { return LLVMConstReal(R->cb->f32, v); }

/* ---------------------------------------------------------------- scalar semantics */

static acc identity(red *R) {
  acc a = {NULL, NULL};
  switch (R->kind) {
  case R_SUM: a.v = R->fl ? f32c(R, 0) : i32c(R, 0); break;
  case R_PROD: a.v = R->fl ? f32c(R, 1) : i32c(R, 1); break;
  case R_ALL: a.v = i32c(R, 1); break;
  case R_ANY: a.v = i32c(R, 0); break;
  /* IGNORE starts from NaN: maxnum/minnum drop it against any number, and an all-NaN
   * reduction stays NaN as the spec requires. */
  case R_MAX:
  case R_ARGMAX:
    a.v = R->fl ? f32c(R, R->propagate ? -INFINITY : NAN) : i32c(R, INT32_MIN);
    break;
  case R_MIN: a.v = R->fl ? f32c(R, R->propagate ? INFINITY : NAN) : i32c(R, INT32_MAX); break;
  }
  if (R->kind == R_ARGMAX)
    a.idx = i32c(R, INT32_MAX); /* loses every tie against a real element */
  return a;
}

static LLVMValueRef call2(red *R, const char *name, LLVMValueRef x, LLVMValueRef y) {
  LLVMTypeRef t = LLVMTypeOf(x);
  LLVMValueRef args[2] = {x, y};
  return cg_intrinsic(R->cb, name, &t, 1, args, 2);
}

/* Does (vb, ib) beat (va, ia) for argmax? Larger value, then smaller index. PROPAGATE ranks
 * NaN above every number, IGNORE below (so the first NaN wins only when all are NaN). */
static LLVMValueRef argmax_takes(red *R, acc a, acc b) {
  LLVMBuilderRef bl = R->b;
  LLVMValueRef lt_idx = LLVMBuildICmp(bl, LLVMIntSLT, b.idx, a.idx, "");
  if (!R->fl) {
    LLVMValueRef gt = LLVMBuildICmp(bl, LLVMIntSGT, b.v, a.v, "");
    LLVMValueRef eq = LLVMBuildICmp(bl, LLVMIntEQ, b.v, a.v, "");
    return LLVMBuildOr(bl, gt, LLVMBuildAnd(bl, eq, lt_idx, ""), "");
  }
  LLVMValueRef na = LLVMBuildFCmp(bl, LLVMRealUNO, a.v, a.v, "");
  LLVMValueRef nb = LLVMBuildFCmp(bl, LLVMRealUNO, b.v, b.v, "");
  LLVMValueRef gt = LLVMBuildFCmp(bl, LLVMRealOGT, b.v, a.v, "");
  LLVMValueRef eq = LLVMBuildFCmp(bl, LLVMRealOEQ, b.v, a.v, "");
  LLVMValueRef nums = LLVMBuildOr(bl, gt, LLVMBuildAnd(bl, eq, lt_idx, ""), ""); /* both numbers */
  LLVMValueRef both_nan = LLVMBuildAnd(bl, LLVMBuildAnd(bl, na, nb, ""), lt_idx, "");
  LLVMValueRef one_nan = R->propagate ? LLVMBuildAnd(bl, nb, LLVMBuildNot(bl, na, ""), "")
                                      : LLVMBuildAnd(bl, na, LLVMBuildNot(bl, nb, ""), "");
  LLVMValueRef none = LLVMBuildNot(bl, LLVMBuildOr(bl, na, nb, ""), "");
  return LLVMBuildOr(bl, LLVMBuildOr(bl, one_nan, both_nan, ""), LLVMBuildAnd(bl, none, nums, ""), "");
}

static acc combine(red *R, acc a, acc b) {
  LLVMBuilderRef bl = R->b;
  acc r = {NULL, NULL};
  switch (R->kind) {
  case R_SUM: r.v = R->fl ? LLVMBuildFAdd(bl, a.v, b.v, "") : LLVMBuildAdd(bl, a.v, b.v, ""); break;
  case R_PROD: r.v = R->fl ? LLVMBuildFMul(bl, a.v, b.v, "") : LLVMBuildMul(bl, a.v, b.v, ""); break;
  case R_ALL: r.v = LLVMBuildAnd(bl, a.v, b.v, ""); break;
  case R_ANY: r.v = LLVMBuildOr(bl, a.v, b.v, ""); break;
  case R_MAX:
    r.v = call2(R, R->fl ? (R->propagate ? "llvm.maximum" : "llvm.maxnum") : "llvm.smax", a.v, b.v);
    break;
  case R_MIN:
    r.v = call2(R, R->fl ? (R->propagate ? "llvm.minimum" : "llvm.minnum") : "llvm.smin", a.v, b.v);
    break;
  case R_ARGMAX: {
    LLVMValueRef take = argmax_takes(R, a, b);
    r.v = LLVMBuildSelect(bl, take, b.v, a.v, "");
    r.idx = LLVMBuildSelect(bl, take, b.idx, a.idx, "");
    break;
  }
  }
  return r;
}

/* A loaded element (memory type of src_et) as an accumulator value. */
static LLVMValueRef widen(red *R, LLVMValueRef x) {
  LLVMBuilderRef bl = R->b;
  cg_builder *cb = R->cb;
  switch (R->src_et) {
  case ET_F16:
  case ET_BF16: x = LLVMBuildFPExt(bl, x, cb->f32, ""); break;
  case ET_I8:
  case ET_I16: x = LLVMBuildSExt(bl, x, cb->i32, ""); break;
  case ET_I1: x = LLVMBuildZExt(bl, LLVMBuildICmp(bl, LLVMIntNE, x, LLVMConstNull(cb->i8), ""), cb->i32, ""); break;
  default: break;
  }
  if (R->kind == R_ALL || R->kind == R_ANY) /* booleans as 0 / 1 whatever the storage holds */
    x = LLVMBuildZExt(bl, LLVMBuildICmp(bl, LLVMIntNE, x, i32c(R, 0), ""), cb->i32, "");
  return x;
}

/* The result element to store, in the result's memory type. */
static LLVMValueRef finish(red *R, acc a) {
  LLVMBuilderRef bl = R->b;
  if (R->kind == R_ARGMAX)
    return a.idx;
  switch (R->out_et) {
  case ET_F16:
  case ET_BF16: return LLVMBuildFPTrunc(bl, a.v, cg_elem_type(R->cb, R->out_et), "");
  case ET_I1:
  case ET_I8: return LLVMBuildTrunc(bl, a.v, R->cb->i8, "");
  case ET_I16: return LLVMBuildTrunc(bl, a.v, R->cb->i16, "");
  default: return a.v;
  }
}

/* ---------------------------------------------------------------- cross-lane exchange */

/* The value of lane (lane ^ m) of the wave, for every lane. DPP quad_perm for the lanes of a
 * quad, ds_swizzle's xor mode inside 32 lanes, ds_bpermute across the halves of a wave64. */
LLVMValueRef cg_lane_xor(cg_builder *cb, LLVMValueRef x, int m, LLVMValueRef lane) {
  LLVMBuilderRef bl = cb->b;
  bool is_f = LLVMTypeOf(x) == cb->f32;
  LLVMValueRef w = is_f ? LLVMBuildBitCast(bl, x, cb->i32, "") : x;
  LLVMValueRef r;
  if (m == 1 || m == 2) {
    /* quad_perm selectors: xor 1 = [1,0,3,2] (0xb1), xor 2 = [2,3,0,1] (0x4e) */
    LLVMValueRef args[6] = {w, w, LLVMConstInt(cb->i32, m == 1 ? 0xb1 : 0x4e, 0), LLVMConstInt(cb->i32, 0xf, 0),
                            LLVMConstInt(cb->i32, 0xf, 0), LLVMConstInt(cb->i1, 0, 0)};
    LLVMTypeRef t = cb->i32;
    r = cg_intrinsic(cb, "llvm.amdgcn.update.dpp", &t, 1, args, 6);
  } else if (m < 32) {
    /* bit-mask mode: and 0x1f, or 0, xor m */
    LLVMValueRef args[2] = {w, LLVMConstInt(cb->i32, (unsigned long long)(0x1f | (m << 10)), 0)};
    r = cg_intrinsic(cb, "llvm.amdgcn.ds.swizzle", NULL, 0, args, 2);
  } else {
    LLVMValueRef addr = LLVMBuildShl(bl, LLVMBuildXor(bl, lane, LLVMConstInt(cb->i32, (unsigned long long)m, 0), ""),
                                     LLVMConstInt(cb->i32, 2, 0), "");
    LLVMValueRef args[2] = {addr, w};
    r = cg_intrinsic(cb, "llvm.amdgcn.ds.bpermute", NULL, 0, args, 2);
  }
  if (!r)
    return NULL;
  return is_f ? LLVMBuildBitCast(bl, r, cb->f32, "") : r;
}

static LLVMValueRef lane_xor(red *R, LLVMValueRef x, int m, LLVMValueRef lane) {
  return cg_lane_xor(R->cb, x, m, lane);
}

/* ---------------------------------------------------------------- body */

/* Serial accumulation of column col over rows [start, end) step ty, starting at element
 * offset base + start*inner. Returns the accumulator after the loop. */
static acc serial(red *R, LLVMValueRef src, LLVMValueRef base, LLVMValueRef start, LLVMValueRef end,
                  LLVMValueRef valid) {
  cg_builder *cb = R->cb;
  LLVMBuilderRef bl = R->b;
  LLVMTypeRef mt = cg_mem_type(cb, R->src_et);
  unsigned align = (unsigned)elem_type_bytes(R->src_et);
  acc id = identity(R);
  LLVMBasicBlockRef pre = LLVMGetInsertBlock(bl);
  LLVMBasicBlockRef body = LLVMAppendBasicBlockInContext(cb->ctx, cb->fn, "accumulate");
  LLVMBasicBlockRef done = LLVMAppendBasicBlockInContext(cb->ctx, cb->fn, "accumulated");
  LLVMValueRef any = LLVMBuildAnd(bl, valid, LLVMBuildICmp(bl, LLVMIntSLT, start, end, ""), "");
  LLVMValueRef off0 = LLVMBuildAdd(bl, base, LLVMBuildMul(bl, LLVMBuildSExt(bl, start, R->it, ""),
                                                          ic(R, R->inner), ""), "");
  LLVMBuildCondBr(bl, any, body, done);

  LLVMPositionBuilderAtEnd(bl, body);
  LLVMValueRef r = LLVMBuildPhi(bl, cb->i32, "r");
  LLVMValueRef off = LLVMBuildPhi(bl, R->it, "off");
  LLVMValueRef av = LLVMBuildPhi(bl, R->at, "acc");
  LLVMValueRef ai = R->kind == R_ARGMAX ? LLVMBuildPhi(bl, cb->i32, "acc_idx") : NULL;
  LLVMValueRef p = LLVMBuildInBoundsGEP2(bl, mt, src, &off, 1, "");
  acc x = {widen(R, cg_load(cb, mt, p, align)), r};
  acc nx = combine(R, (acc){av, ai}, x);
  LLVMValueRef r2 = LLVMBuildAdd(bl, r, i32c(R, R->ty), "");
  LLVMValueRef off2 = LLVMBuildAdd(bl, off, ic(R, (int64_t)R->ty * R->inner), "");
  LLVMBasicBlockRef latch = LLVMGetInsertBlock(bl);
  LLVMBuildCondBr(bl, LLVMBuildICmp(bl, LLVMIntSLT, r2, end, ""), body, done);
  LLVMValueRef rv[2] = {start, r2}, ov[2] = {off0, off2}, avv[2] = {id.v, nx.v};
  LLVMBasicBlockRef from[2] = {pre, latch};
  LLVMAddIncoming(r, rv, from, 2);
  LLVMAddIncoming(off, ov, from, 2);
  LLVMAddIncoming(av, avv, from, 2);
  if (ai) {
    LLVMValueRef aiv[2] = {id.idx, nx.idx};
    LLVMAddIncoming(ai, aiv, from, 2);
  }

  LLVMPositionBuilderAtEnd(bl, done);
  acc out = {LLVMBuildPhi(bl, R->at, "sum"), NULL};
  LLVMValueRef sv[2] = {id.v, nx.v};
  LLVMAddIncoming(out.v, sv, from, 2);
  if (ai) {
    out.idx = LLVMBuildPhi(bl, cb->i32, "sum_idx");
    LLVMValueRef siv[2] = {id.idx, nx.idx};
    LLVMAddIncoming(out.idx, siv, from, 2);
  }
  return out;
}

static LLVMValueRef lds_array(red *R, const char *what, LLVMTypeRef t) {
  char name[96];
  snprintf(name, sizeof name, "%s.%s", R->k->name, what);
  return cg_lds_alloc(R->cb, name, LLVMArrayType2(t, RED_BLOCK), 16);
}

static LLVMValueRef lds_at(red *R, LLVMValueRef arr, LLVMTypeRef t, LLVMValueRef i) {
  LLVMValueRef idx[2] = {i32c(R, 0), i};
  return LLVMBuildInBoundsGEP2(R->b, LLVMArrayType2(t, RED_BLOCK), arr, idx, 2, "");
}

/* Store, or atomically accumulate, the work-group's result for column col. */
static void emit_store(red *R, LLVMValueRef dst, LLVMValueRef o, LLVMValueRef s, LLVMValueRef col, acc a) {
  cg_builder *cb = R->cb;
  LLVMBuilderRef bl = R->b;
  switch (R->k->role) {
  case KR_PARTIAL: {
    /* workspace [split, outer*inner] in the accumulator type */
    LLVMValueRef row = LLVMBuildAdd(bl, LLVMBuildMul(bl, s, ic(R, R->outer), ""), o, "");
    LLVMValueRef off = LLVMBuildAdd(bl, LLVMBuildMul(bl, row, ic(R, R->inner), ""), col, "");
    cg_store(cb, a.v, LLVMBuildInBoundsGEP2(bl, R->at, dst, &off, 1, ""), 4);
    return;
  }
  case KR_ATOMIC: {
    LLVMValueRef off = LLVMBuildAdd(bl, LLVMBuildMul(bl, o, ic(R, R->inner), ""), col, "");
    LLVMValueRef p = LLVMBuildInBoundsGEP2(bl, R->at, dst, &off, 1, "");
    LLVMAtomicRMWBinOp opc = R->kind == R_SUM ? (R->fl ? LLVMAtomicRMWBinOpFAdd : LLVMAtomicRMWBinOpAdd)
                             : R->kind == R_MAX ? LLVMAtomicRMWBinOpMax
                                                : LLVMAtomicRMWBinOpMin;
    unsigned agent = LLVMGetSyncScopeID(cb->ctx, "agent", 5);
    LLVMValueRef rmw = LLVMBuildAtomicRMWSyncScope(bl, opc, p, a.v, LLVMAtomicOrderingMonotonic, agent);
    LLVMSetAlignment(rmw, 4);
    /* Plain device memory (hipMalloc), not fine-grained host memory: lets LLVM use the native
     * float atomic instead of a compare-and-swap loop. */
    LLVMValueRef empty = LLVMMetadataAsValue(cb->ctx, LLVMMDNodeInContext2(cb->ctx, NULL, 0));
    LLVMSetMetadata(rmw, LLVMGetMDKindIDInContext(cb->ctx, "amdgpu.no.fine.grained.memory", 29), empty);
    LLVMSetMetadata(rmw, LLVMGetMDKindIDInContext(cb->ctx, "amdgpu.ignore.denormal.mode", 27), empty);
    return;
  }
  default: {
    LLVMTypeRef mt = cg_mem_type(cb, R->kind == R_ARGMAX ? ET_I32 : R->out_et);
    LLVMValueRef off = LLVMBuildAdd(bl, LLVMBuildMul(bl, o, ic(R, R->inner), ""), col, "");
    LLVMValueRef v = finish(R, a);
    cg_store(cb, v, LLVMBuildInBoundsGEP2(bl, mt, dst, &off, 1, ""), (unsigned)LLVMABIAlignmentOfType(
                                                                          LLVMGetModuleDataLayout(cb->mod), mt));
    return;
  }
  }
}

static bool supported_type(elem_type t) {
  switch (t) {
  case ET_F32: case ET_F16: case ET_BF16: case ET_I32: case ET_I16: case ET_I8: case ET_I1: return true;
  default: return false;
  }
}

bool cg_emit_reduction(cg_builder *cb, const graph *g, const partition_plan *p, const part_kernel *k,
                       cg_kernel_info *info) {
  (void)g, (void)p;
  const op *o = k->anchor;
  red R = {.cb = cb, .b = cb->b, .k = k};
  if (!o || !classify(o, &R.kind)) {
    diag_error(cb->diag, o ? o->loc : (src_loc){0}, "no reduction kernel for '%s'",
               o ? op_table[o->kind].name : "?");
    cb->failed = true;
    return false;
  }
  elem_type in_et = o->operands[0]->type->elem;
  R.out_et = o->results[0]->type->elem;
  if (!supported_type(in_et) || !supported_type(R.out_et)) {
    diag_error(cb->diag, o->loc, "%s: element type %s is not supported by the reduction kernel",
               op_table[o->kind].name, elem_type_name(in_et));
    cb->failed = true;
    return false;
  }
  const attr *nm = op_attr(o, "nan_mode");
  R.propagate = !(nm && nm->s && strcmp(nm->s, "IGNORE") == 0);
  R.fl = elem_type_is_float(in_et);
  R.at = R.fl ? cb->f32 : cb->i32;
  R.ws = cb->target->info->wave_size;
  R.split = k->role == KR_PLAIN ? 1 : k->split_count > 0 ? k->split_count : 1;
  cg_reduction_dims(o, &R.outer, &R.r, &R.inner);
  R.src_et = in_et;
  if (k->role == KR_COMBINE) {
    /* the workspace [split, outer*inner]: reduce its rows */
    R.inner *= R.outer;
    R.outer = 1;
    R.r = R.split;
    R.src_et = R.fl ? ET_F32 : ET_I32;
  }
  cg_reduction_tile(R.r, R.inner, &R.tx, &R.ty);
  int chunks = k->role == KR_PARTIAL || k->role == KR_ATOMIC ? R.split : 1;
  int64_t ntiles = (R.inner + R.tx - 1) / R.tx;
  int64_t groups = R.outer * ntiles * chunks;
  int64_t numel = R.outer * R.r * R.inner;
  R.it = numel + (int64_t)R.ty * R.inner < ((int64_t)1 << 31) ? cb->i32 : cb->i64;
  /* rows of r per chunk, a multiple of ty so every work-item gets the same count */
  int64_t chunk = (R.r + chunks - 1) / chunks;
  chunk = (chunk + R.ty - 1) / R.ty * R.ty;

  const char *access[2] = {"read_only", k->role == KR_ATOMIC ? "read_write" : "write_only"};
  if (k->nin != 1 || k->nout != 1) {
    diag_error(cb->diag, o->loc, "%s: reduction kernel expects one input and one output buffer, got %d and %d",
               op_table[o->kind].name, k->nin, k->nout);
    cb->failed = true;
    return false;
  }
  cg_kernel_begin(cb, k->name, 2, access, RED_BLOCK);
  LLVMBuilderRef bl = cb->b;
  LLVMValueRef src = LLVMGetParam(cb->fn, 0), dst = LLVMGetParam(cb->fn, 1);
  LLVMValueRef tid = cg_thread_id_x(cb), gid = cg_group_id_x(cb);
  if (!tid || !gid)
    return false;
  /* group -> (chunk s, outer o, column tile t) */
  LLVMValueRef per_chunk = i32c(&R, R.outer * ntiles);
  LLVMValueRef s = LLVMBuildUDiv(bl, gid, per_chunk, "s");
  LLVMValueRef rest = LLVMBuildURem(bl, gid, per_chunk, "");
  LLVMValueRef oi = LLVMBuildUDiv(bl, rest, i32c(&R, ntiles), "o");
  LLVMValueRef ti = LLVMBuildURem(bl, rest, i32c(&R, ntiles), "tile");
  LLVMValueRef x = LLVMBuildAnd(bl, tid, i32c(&R, R.tx - 1), "x");
  LLVMValueRef y = LLVMBuildLShr(bl, tid, i32c(&R, __builtin_ctz((unsigned)R.tx)), "y");
  LLVMValueRef col32 = LLVMBuildAdd(bl, LLVMBuildMul(bl, ti, i32c(&R, R.tx), ""), x, "col");
  LLVMValueRef valid = LLVMBuildICmp(bl, LLVMIntSLT, col32, i32c(&R, R.inner), "valid");
  LLVMValueRef col = LLVMBuildZExt(bl, col32, R.it, "");
  LLVMValueRef o_it = LLVMBuildZExt(bl, oi, R.it, "");
  LLVMValueRef s_it = LLVMBuildZExt(bl, s, R.it, "");
  LLVMValueRef base = LLVMBuildAdd(bl, LLVMBuildMul(bl, o_it, ic(&R, R.r * R.inner), ""), col, "base");
  LLVMValueRef c0 = LLVMBuildMul(bl, s, i32c(&R, chunk), "");
  LLVMValueRef start = LLVMBuildAdd(bl, c0, y, "start");
  LLVMValueRef end = LLVMBuildAdd(bl, c0, i32c(&R, chunk), "");
  end = LLVMBuildSelect(bl, LLVMBuildICmp(bl, LLVMIntSLT, end, i32c(&R, R.r), ""), end, i32c(&R, R.r), "end");
  acc a = serial(&R, src, base, start, end, valid);

  /* Butterfly over the lanes of a wave that hold other slices of the same column; executed by
   * the whole wave (uniform control flow). Afterwards those lanes all hold the wave's value. */
  LLVMValueRef lane = LLVMBuildAnd(bl, tid, i32c(&R, R.ws - 1), "lane");
  for (int m = R.tx; m < R.ws && m < RED_BLOCK; m *= 2) {
    acc other = {lane_xor(&R, a.v, m, lane), NULL};
    if (R.kind == R_ARGMAX)
      other.idx = lane_xor(&R, a.idx, m, lane);
    if (!other.v || (R.kind == R_ARGMAX && !other.idx))
      return false;
    a = combine(&R, a, other);
  }
  /* Across waves (or slices, when a wave is all columns) through LDS. */
  int rows = R.tx < R.ws ? RED_BLOCK / R.ws : R.ty;
  LLVMValueRef row = R.tx < R.ws ? LLVMBuildLShr(bl, tid, i32c(&R, __builtin_ctz((unsigned)R.ws)), "") : y;
  LLVMValueRef writer = R.tx < R.ws ? LLVMBuildICmp(bl, LLVMIntULT, lane, i32c(&R, R.tx), "")
                                    : LLVMConstInt(cb->i1, 1, 0);
  LLVMValueRef lv = lds_array(&R, "lds_v", R.at);
  LLVMValueRef li = R.kind == R_ARGMAX ? lds_array(&R, "lds_i", cb->i32) : NULL;
  LLVMBasicBlockRef wr = LLVMAppendBasicBlockInContext(cb->ctx, cb->fn, "to_lds");
  LLVMBasicBlockRef sync = LLVMAppendBasicBlockInContext(cb->ctx, cb->fn, "sync");
  LLVMBuildCondBr(bl, writer, wr, sync);
  LLVMPositionBuilderAtEnd(bl, wr);
  LLVMValueRef slot = LLVMBuildAdd(bl, LLVMBuildMul(bl, row, i32c(&R, R.tx), ""), x, "");
  cg_store(cb, a.v, lds_at(&R, lv, R.at, slot), 4);
  if (li)
    cg_store(cb, a.idx, lds_at(&R, li, cb->i32, slot), 4);
  LLVMBuildBr(bl, sync);
  LLVMPositionBuilderAtEnd(bl, sync);
  cg_barrier(cb);
  LLVMBasicBlockRef fin = LLVMAppendBasicBlockInContext(cb->ctx, cb->fn, "final");
  LLVMBasicBlockRef exit = LLVMAppendBasicBlockInContext(cb->ctx, cb->fn, "exit");
  LLVMValueRef finisher = LLVMBuildAnd(bl, LLVMBuildICmp(bl, LLVMIntULT, tid, i32c(&R, R.tx), ""), valid, "");
  LLVMBuildCondBr(bl, finisher, fin, exit);
  LLVMPositionBuilderAtEnd(bl, fin);
  acc f = {NULL, NULL};
  for (int j = 0; j < rows; j++) {
    LLVMValueRef sl = LLVMBuildAdd(bl, i32c(&R, (int64_t)j * R.tx), x, "");
    acc e = {cg_load(cb, R.at, lds_at(&R, lv, R.at, sl), 4), NULL};
    if (li)
      e.idx = cg_load(cb, cb->i32, lds_at(&R, li, cb->i32, sl), 4);
    f = j == 0 ? e : combine(&R, f, e);
  }
  emit_store(&R, dst, o_it, s_it, col, f);
  LLVMBuildBr(bl, exit);
  LLVMPositionBuilderAtEnd(bl, exit);
  LLVMBuildRetVoid(bl);
  if (cb->failed)
    return false;

  info->block[0] = RED_BLOCK, info->block[1] = 1, info->block[2] = 1;
  info->grid[0] = (uint32_t)groups, info->grid[1] = 1, info->grid[2] = 1;
  info->work_items = groups * RED_BLOCK;
  info->vector_width = 1;
  info->args = calloc(3, sizeof(cg_arg));
  info->nargs = 2;
  for (int i = 0; i < 2; i++) {
    cg_arg *ar = &info->args[i];
    snprintf(ar->name, sizeof ar->name, "%s0", i == 0 ? "in" : "out");
    ar->buffer = i == 0 ? k->in_bufs[0] : k->out_bufs[0];
    snprintf(ar->access, sizeof ar->access, "%s", access[i]);
  }
  return true;
}
