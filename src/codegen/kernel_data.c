/* kernel_data.c: the data movement kernel family (transpose, reshape, slice, pad, concat, tile,
 * reverse, identity, gather, scatter, resize). One work-item writes `vw` consecutive output
 * elements of one innermost row with a single vector store; each element's source position is
 * computed from its output coordinates, and when the row chunk is contiguous in the source too,
 * the source is read with one vector load. Every address is clamped or selected so that no access
 * leaves its buffer, whatever the output element (pad borders, concat seams, resize edges). */
#include "codegen.h"

#include <stdlib.h>
#include <string.h>

#define DM_BLOCK 256
#define DM_VECTOR_BYTES 16

typedef enum dm_op {
  DM_TRANSPOSE, DM_RESHAPE, DM_SLICE, DM_PAD, DM_CONCAT, DM_TILE, DM_REVERSE, DM_IDENTITY,
  DM_GATHER, DM_SCATTER, DM_RESIZE, DM_UNKNOWN
} dm_op;

/* By mnemonic, so this file does not depend on the order rows are added to ops.def. */
static const char *const dm_names[DM_UNKNOWN] = {
    [DM_TRANSPOSE] = "tosa.transpose", [DM_RESHAPE] = "tosa.reshape", [DM_SLICE] = "tosa.slice",
    [DM_PAD] = "tosa.pad",             [DM_CONCAT] = "tosa.concat",   [DM_TILE] = "tosa.tile",
    [DM_REVERSE] = "tosa.reverse",     [DM_IDENTITY] = "tosa.identity", [DM_GATHER] = "tosa.gather",
    [DM_SCATTER] = "tosa.scatter",     [DM_RESIZE] = "tosa.resize",
};

/* Where one output element comes from: element `off` of buffer `ptr`, or `fallback` where
 * `valid` (NULL: always) is false. */
typedef struct dm_loc {
  LLVMValueRef ptr, off, valid, fallback;
} dm_loc;

typedef struct dm_kernel {
  cg_builder *cb;
  LLVMBuilderRef b;
  const graph *g;
  const part_kernel *k;
  const op *a;         /* the anchor */
  dm_op kind;
  LLVMTypeRef it;      /* index type */
  int vw;              /* output elements per work-item, divides the innermost output dim */
  bool chunk_ok;       /* a chunk's sources are vw consecutive elements of one buffer */
  int rank;            /* output rank (rank 0 is treated as [1]) */
  int64_t odim[TOSAC_MAX_RANK], ostr[TOSAC_MAX_RANK];
  elem_type et;        /* output element type */
  LLVMTypeRef mem_t;   /* its memory type */
  LLVMValueRef co[TOSAC_MAX_RANK]; /* coordinates of the chunk's first element */
  LLVMValueRef cj[TOSAC_MAX_RANK]; /* coordinates of the element being produced */
  LLVMValueRef lin, lin_j;         /* linear output index of the chunk / the element */
  int64_t attr_v[4 * TOSAC_MAX_RANK]; /* the op's integer parameters (perms, start, ...) */
  int nattr;
  /* per-chunk state computed by prepare() */
  LLVMValueRef ptr, base;          /* gather, scatter, resize nearest: row base */
  LLVMValueRef rbase[4];           /* resize bilinear: the four corner rows */
  LLVMValueRef dy, dx;             /* resize bilinear weights (float or i32) */
} dm_kernel;

static LLVMValueRef ic(dm_kernel *K, int64_t v) { return LLVMConstInt(K->it, (unsigned long long)v, 1); }

static void strides_of(const tensor_type *t, int64_t *s) {
  int64_t acc = 1;
  for (int d = t->rank - 1; d >= 0; d--) {
    s[d] = acc;
    acc *= t->dims[d];
  }
}

static bool fail(dm_kernel *K, const char *fmt, const char *what) {
  diag_error(K->cb->diag, K->a->loc, fmt, op_table[K->a->kind].name, what);
  K->cb->failed = true;
  return false;
}

/* The kernel argument holding operand value v. */
static LLVMValueRef buffer_of(dm_kernel *K, const value *v) {
  for (int i = 0; i < K->k->nin; i++)
    if (K->k->in_vals[i] == v)
      return LLVMGetParam(K->cb->fn, (unsigned)i);
  return NULL;
}

static LLVMValueRef add(dm_kernel *K, LLVMValueRef x, LLVMValueRef y) { return LLVMBuildAdd(K->b, x, y, ""); }
static LLVMValueRef mul(dm_kernel *K, LLVMValueRef x, int64_t c) {
  return c == 1 ? x : LLVMBuildMul(K->b, x, ic(K, c), "");
}
static LLVMValueRef sel(dm_kernel *K, LLVMValueRef c, LLVMValueRef x, LLVMValueRef y) {
  return LLVMBuildSelect(K->b, c, x, y, "");
}
/* Signed clamp of x to [lo, hi]. */
static LLVMValueRef clamp(dm_kernel *K, LLVMValueRef x, int64_t lo, int64_t hi) {
  LLVMTypeRef t = LLVMTypeOf(x);
  LLVMValueRef l = LLVMConstInt(t, (unsigned long long)lo, 1), h = LLVMConstInt(t, (unsigned long long)hi, 1);
  x = sel(K, LLVMBuildICmp(K->b, LLVMIntSLT, x, l, ""), l, x);
  return sel(K, LLVMBuildICmp(K->b, LLVMIntSGT, x, h, ""), h, x);
}

static LLVMValueRef load(dm_kernel *K, LLVMTypeRef t, LLVMValueRef ptr, LLVMValueRef off, unsigned align) {
  LLVMTypeRef et = LLVMGetTypeKind(t) == LLVMVectorTypeKind ? LLVMGetElementType(t) : t;
  LLVMValueRef p = LLVMBuildInBoundsGEP2(K->b, et, ptr, &off, 1, "");
  return cg_load(K->cb, t, p, align);
}

/* ---------------------------------------------------------------- operand parameters */

/* Copy integer attribute `name` (exactly n values, n < 0: any count) into K->attr_v at `at`. */
static bool int_list(dm_kernel *K, const char *name, int n, int at) {
  const attr *x = op_attr(K->a, name);
  if (!x || x->kind != ATTR_INTS || (n >= 0 && x->n != n) || at + x->n > (int)(sizeof K->attr_v / 8))
    return fail(K, "%s: missing or malformed attribute '%s'", name);
  memcpy(&K->attr_v[at], x->ints, sizeof(int64_t) * (size_t)x->n);
  K->nattr = at + x->n;
  return true;
}

static const tensor_type *in_type(dm_kernel *K, int i) { return K->a->operands[i]->type; }

/* ---------------------------------------------------------------- source positions */

/* Offset of coordinates `c` in a row-major tensor of type t. */
static LLVMValueRef offset_of(dm_kernel *K, const tensor_type *t, LLVMValueRef *c) {
  int64_t s[TOSAC_MAX_RANK];
  strides_of(t, s);
  LLVMValueRef off = ic(K, 0);
  for (int d = 0; d < t->rank; d++)
    if (t->dims[d] != 1)
      off = add(K, off, mul(K, c[d], s[d]));
  return off;
}

static void locate_transpose(dm_kernel *K, dm_loc *L) {
  LLVMValueRef c[TOSAC_MAX_RANK];
  for (int i = 0; i < K->rank; i++)
    c[K->attr_v[i]] = K->cj[i]; /* output dim i is input dim perms[i] */
  L->off = offset_of(K, in_type(K, 0), c);
}

static void locate_slice(dm_kernel *K, dm_loc *L) {
  LLVMValueRef c[TOSAC_MAX_RANK];
  for (int d = 0; d < K->rank; d++)
    c[d] = add(K, K->cj[d], ic(K, K->attr_v[d]));
  L->off = offset_of(K, in_type(K, 0), c);
}

static void locate_pad(dm_kernel *K, dm_loc *L) {
  const tensor_type *t = in_type(K, 0);
  LLVMValueRef c[TOSAC_MAX_RANK];
  for (int d = 0; d < K->rank; d++) {
    int64_t before = K->attr_v[2 * d], after = K->attr_v[2 * d + 1];
    c[d] = LLVMBuildSub(K->b, K->cj[d], ic(K, before), "");
    if (before == 0 && after == 0)
      continue;
    /* negative positions wrap to large unsigned values: one compare checks both borders */
    LLVMValueRef in = LLVMBuildICmp(K->b, LLVMIntULT, c[d], ic(K, t->dims[d]), "");
    L->valid = L->valid ? LLVMBuildAnd(K->b, L->valid, in, "") : in;
  }
  L->off = offset_of(K, t, c);
  const attr *pc = op_attr(K->a, "pad_const");
  double f = pc ? (pc->kind == ATTR_FLOAT ? pc->f : (double)pc->i) : 0.0;
  int64_t i = pc ? (pc->kind == ATTR_FLOAT ? (int64_t)pc->f : pc->i) : 0;
  L->fallback = elem_type_is_float(K->et) ? cg_const_float(K->cb, K->et, f)
                                          : LLVMConstInt(K->mem_t, (unsigned long long)(K->et == ET_I1 ? i != 0 : i), 1);
}

static void locate_tile(dm_kernel *K, dm_loc *L) {
  const tensor_type *t = in_type(K, 0);
  LLVMValueRef c[TOSAC_MAX_RANK];
  for (int d = 0; d < K->rank; d++)
    c[d] = t->dims[d] == K->odim[d] ? K->cj[d] : LLVMBuildURem(K->b, K->cj[d], ic(K, t->dims[d]), "");
  L->off = offset_of(K, t, c);
}

static void locate_reverse(dm_kernel *K, dm_loc *L) {
  int ax = (int)K->attr_v[0];
  LLVMValueRef c[TOSAC_MAX_RANK];
  memcpy(c, K->cj, sizeof c);
  c[ax] = LLVMBuildSub(K->b, ic(K, K->odim[ax] - 1), K->cj[ax], "");
  L->off = offset_of(K, in_type(K, 0), c);
}

/* Operand i holds axis positions [start_i, start_i + dim_i); the last operand whose start is
 * not past the coordinate supplies the element. */
static void locate_concat(dm_kernel *K, dm_loc *L) {
  int ax = (int)K->attr_v[0];
  int64_t start = 0;
  for (int i = 0; i < K->a->noperands; i++) {
    const tensor_type *t = in_type(K, i);
    LLVMValueRef c[TOSAC_MAX_RANK];
    memcpy(c, K->cj, sizeof c);
    c[ax] = LLVMBuildSub(K->b, K->cj[ax], ic(K, start), "");
    LLVMValueRef off = offset_of(K, t, c), ptr = buffer_of(K, K->a->operands[i]);
    if (i == 0) {
      L->ptr = ptr, L->off = off;
    } else if (t->dims[ax] > 0) {
      LLVMValueRef here = LLVMBuildICmp(K->b, LLVMIntUGE, K->cj[ax], ic(K, start), "");
      L->ptr = sel(K, here, ptr, L->ptr);
      L->off = sel(K, here, off, L->off);
    }
    start += t->dims[ax];
  }
}

/* gather: values [N,K,C], indices [N,W] -> [N,W,C]. The row is fixed per chunk. */
static void prepare_gather(dm_kernel *K) {
  const tensor_type *vt = in_type(K, 0), *xt = in_type(K, 1);
  LLVMValueRef xp = buffer_of(K, K->a->operands[1]);
  LLVMTypeRef xmt = cg_mem_type(K->cb, xt->elem);
  LLVMValueRef row = add(K, mul(K, K->co[0], xt->dims[1]), K->co[1]);
  LLVMValueRef idx = load(K, xmt, xp, row, (unsigned)elem_type_bytes(xt->elem));
  idx = LLVMBuildIntCast2(K->b, idx, K->it, 1, "");
  /* out-of-range indices are undefined in TOSA; clamping keeps the read inside the buffer */
  idx = clamp(K, idx, 0, vt->dims[1] - 1);
  K->base = mul(K, add(K, mul(K, K->co[0], vt->dims[1]), idx), vt->dims[2]);
  K->ptr = buffer_of(K, K->a->operands[0]);
}

/* scatter: values_in [N,K,C], indices [N,W], input [N,W,C] -> [N,K,C]. Output row (n,k) is
 * input row (n,w) for the last w with indices[n,w] == k, else values_in row (n,k): a search
 * over W per chunk keeps the kernel a pure gather, so no ordering between work-items is needed. */
static void prepare_scatter(dm_kernel *K) {
  cg_builder *cb = K->cb;
  LLVMBuilderRef b = K->b;
  const tensor_type *vt = in_type(K, 0), *xt = in_type(K, 1);
  int64_t W = xt->dims[1], C = vt->dims[2];
  LLVMValueRef xp = buffer_of(K, K->a->operands[1]);
  LLVMTypeRef xmt = cg_mem_type(cb, xt->elem);
  LLVMValueRef n = K->co[0], kk = K->co[1];
  LLVMValueRef found = ic(K, -1);
  if (W > 0) {
    LLVMBasicBlockRef pre = LLVMGetInsertBlock(b);
    LLVMBasicBlockRef body = LLVMAppendBasicBlockInContext(cb->ctx, cb->fn, "search");
    LLVMBasicBlockRef done = LLVMAppendBasicBlockInContext(cb->ctx, cb->fn, "searched");
    LLVMValueRef rowbase = mul(K, n, W);
    LLVMBuildBr(b, body);
    LLVMPositionBuilderAtEnd(b, body);
    LLVMValueRef w = LLVMBuildPhi(b, K->it, "w"), f = LLVMBuildPhi(b, K->it, "found");
    LLVMValueRef idx = load(K, xmt, xp, add(K, rowbase, w), (unsigned)elem_type_bytes(xt->elem));
    idx = LLVMBuildIntCast2(b, idx, K->it, 1, "");
    LLVMValueRef nf = sel(K, LLVMBuildICmp(b, LLVMIntEQ, idx, kk, ""), w, f);
    LLVMValueRef nw = add(K, w, ic(K, 1));
    LLVMBuildCondBr(b, LLVMBuildICmp(b, LLVMIntULT, nw, ic(K, W), ""), body, done);
    LLVMValueRef wv[2] = {ic(K, 0), nw}, fv[2] = {ic(K, -1), nf};
    LLVMBasicBlockRef bb[2] = {pre, body};
    LLVMAddIncoming(w, wv, bb, 2);
    LLVMAddIncoming(f, fv, bb, 2);
    LLVMPositionBuilderAtEnd(b, done);
    LLVMValueRef ff = LLVMBuildPhi(b, K->it, "hit");
    LLVMValueRef fin[1] = {nf};
    LLVMBasicBlockRef fbb[1] = {body};
    LLVMAddIncoming(ff, fin, fbb, 1);
    found = ff;
  }
  LLVMValueRef hit = LLVMBuildICmp(b, LLVMIntSGE, found, ic(K, 0), "");
  LLVMValueRef from_input = mul(K, add(K, mul(K, n, W), found), C);
  LLVMValueRef from_values = mul(K, add(K, mul(K, n, vt->dims[1]), kk), C);
  K->base = sel(K, hit, from_input, from_values);
  K->ptr = sel(K, hit, buffer_of(K, K->a->operands[2]), buffer_of(K, K->a->operands[0]));
}

static void locate_row(dm_kernel *K, dm_loc *L) {
  L->ptr = K->ptr;
  L->off = add(K, K->base, K->cj[K->rank - 1]);
}

/* ---------------------------------------------------------------- resize */

typedef struct rs_axis {
  LLVMValueRef i0, i1; /* clamped source positions */
  LLVMValueRef r;      /* remainder in [0, scale_n), i32 */
  LLVMValueRef near;   /* nearest position, clamped */
} rs_axis;

/* TOSA 1.0: v = o * scale_d + offset; i = floor(v / scale_n); r = v - i * scale_n. A unit input
 * dim always reads position 0 with no weight (what the reference lowering does too). */
static void resize_axis(dm_kernel *K, LLVMValueRef o, int64_t sn, int64_t sd, int64_t offset, int64_t size,
                        rs_axis *ax) {
  cg_builder *cb = K->cb;
  LLVMBuilderRef b = K->b;
  LLVMValueRef zero = LLVMConstInt(cb->i32, 0, 0);
  if (size == 1) {
    ax->i0 = ax->i1 = ax->near = zero;
    ax->r = zero;
    return;
  }
  LLVMValueRef v = LLVMBuildIntCast2(b, o, cb->i32, 0, "");
  v = LLVMBuildAdd(b, LLVMBuildMul(b, v, LLVMConstInt(cb->i32, (unsigned long long)sd, 1), ""),
                   LLVMConstInt(cb->i32, (unsigned long long)offset, 1), "");
  LLVMValueRef n = LLVMConstInt(cb->i32, (unsigned long long)sn, 1);
  LLVMValueRef q = LLVMBuildSDiv(b, v, n, ""), rem = LLVMBuildSRem(b, v, n, "");
  LLVMValueRef neg = LLVMBuildICmp(b, LLVMIntSLT, rem, zero, "");
  q = LLVMBuildSub(b, q, LLVMBuildZExt(b, neg, cb->i32, ""), "");
  ax->r = LLVMBuildSub(b, v, LLVMBuildMul(b, q, n, ""), "");
  ax->i0 = clamp(K, q, 0, size - 1);
  ax->i1 = clamp(K, LLVMBuildAdd(b, q, LLVMConstInt(cb->i32, 1, 0), ""), 0, size - 1);
  LLVMValueRef up = LLVMBuildICmp(b, LLVMIntSGE, LLVMBuildShl(b, ax->r, LLVMConstInt(cb->i32, 1, 0), ""), n, "");
  ax->near = clamp(K, LLVMBuildAdd(b, q, LLVMBuildZExt(b, up, cb->i32, ""), ""), 0, size - 1);
}

static bool is_narrow(elem_type t) { return t == ET_F16 || t == ET_BF16; }

/* f16/bf16 arithmetic is done in f32 and rounded after every operation, as the oracle's
 * per-operation rounding does. */
static LLVMValueRef fop(dm_kernel *K, LLVMOpcode opc, LLVMValueRef x, LLVMValueRef y) {
  if (!is_narrow(K->et))
    return LLVMBuildBinOp(K->b, opc, x, y, "");
  LLVMValueRef r = LLVMBuildBinOp(K->b, opc, LLVMBuildFPExt(K->b, x, K->cb->f32, ""),
                                  LLVMBuildFPExt(K->b, y, K->cb->f32, ""), "");
  return LLVMBuildFPTrunc(K->b, r, K->mem_t, "");
}

static LLVMValueRef pixel_row(dm_kernel *K, const tensor_type *t, LLVMValueRef y, LLVMValueRef x) {
  LLVMValueRef n = K->co[0];
  LLVMValueRef yy = LLVMBuildIntCast2(K->b, y, K->it, 0, ""), xx = LLVMBuildIntCast2(K->b, x, K->it, 0, "");
  return mul(K, add(K, mul(K, add(K, mul(K, n, t->dims[1]), yy), t->dims[2]), xx), t->dims[3]);
}

static bool resize_bilinear(dm_kernel *K) { return strcmp(op_attr(K->a, "mode")->s, "BILINEAR") == 0; }

static void prepare_resize(dm_kernel *K) {
  const tensor_type *t = in_type(K, 0);
  const int64_t *s = K->attr_v; /* scale[4], offset[2], border[2] */
  rs_axis ay, ax;
  resize_axis(K, K->co[1], s[0], s[1], s[4], t->dims[1], &ay);
  resize_axis(K, K->co[2], s[2], s[3], s[5], t->dims[2], &ax);
  K->ptr = buffer_of(K, K->a->operands[0]);
  if (!resize_bilinear(K)) {
    K->base = pixel_row(K, t, ay.near, ax.near);
    return;
  }
  K->rbase[0] = pixel_row(K, t, ay.i0, ax.i0);
  K->rbase[1] = pixel_row(K, t, ay.i0, ax.i1);
  K->rbase[2] = pixel_row(K, t, ay.i1, ax.i0);
  K->rbase[3] = pixel_row(K, t, ay.i1, ax.i1);
  if (elem_type_is_float(K->et)) {
    LLVMTypeRef ft = is_narrow(K->et) ? K->cb->f32 : K->mem_t;
    LLVMValueRef dy = LLVMBuildFDiv(K->b, LLVMBuildSIToFP(K->b, ay.r, ft, ""), LLVMConstReal(ft, (double)s[0]), "");
    LLVMValueRef dx = LLVMBuildFDiv(K->b, LLVMBuildSIToFP(K->b, ax.r, ft, ""), LLVMConstReal(ft, (double)s[2]), "");
    K->dy = is_narrow(K->et) ? LLVMBuildFPTrunc(K->b, dy, K->mem_t, "") : dy;
    K->dx = is_narrow(K->et) ? LLVMBuildFPTrunc(K->b, dx, K->mem_t, "") : dx;
  } else {
    K->dy = LLVMBuildIntCast2(K->b, ay.r, K->mem_t, 1, "");
    K->dx = LLVMBuildIntCast2(K->b, ax.r, K->mem_t, 1, "");
  }
}

/* v0 * (unit - d) + v1 * d; a unit dim contributes v0 alone (float) or v0 * scale (integer). */
static LLVMValueRef lerp(dm_kernel *K, LLVMValueRef v0, LLVMValueRef v1, LLVMValueRef d, int64_t scale_n,
                         int64_t size) {
  if (elem_type_is_float(K->et)) {
    if (size == 1)
      return v0;
    LLVMValueRef one = cg_const_float(K->cb, K->et, 1.0);
    return fop(K, LLVMFAdd, fop(K, LLVMFMul, v0, fop(K, LLVMFSub, one, d)), fop(K, LLVMFMul, v1, d));
  }
  LLVMValueRef sc = LLVMConstInt(K->mem_t, (unsigned long long)scale_n, 1);
  if (size == 1)
    return LLVMBuildMul(K->b, v0, sc, "");
  return LLVMBuildAdd(K->b, LLVMBuildMul(K->b, v0, LLVMBuildSub(K->b, sc, d, ""), ""), LLVMBuildMul(K->b, v1, d, ""), "");
}

static LLVMValueRef value_bilinear(dm_kernel *K) {
  const tensor_type *t = in_type(K, 0);
  LLVMTypeRef in_mt = cg_mem_type(K->cb, t->elem);
  LLVMValueRef v[4];
  for (int i = 0; i < 4; i++) {
    v[i] = load(K, in_mt, K->ptr, add(K, K->rbase[i], K->cj[3]), (unsigned)elem_type_bytes(t->elem));
    if (!elem_type_is_float(K->et))
      v[i] = LLVMBuildSExt(K->b, v[i], K->mem_t, "");
  }
  LLVMValueRef top = lerp(K, v[0], v[1], K->dx, K->attr_v[2], t->dims[2]);
  LLVMValueRef bottom = lerp(K, v[2], v[3], K->dx, K->attr_v[2], t->dims[2]);
  return lerp(K, top, bottom, K->dy, K->attr_v[0], t->dims[1]);
}

/* ---------------------------------------------------------------- op setup */

static int64_t pow2_divisor(int64_t x, int64_t cap) {
  int64_t v = 1;
  while (v * 2 <= cap && x % (v * 2) == 0)
    v *= 2;
  return v;
}

/* Parameters, checks of what the verifier guarantees (so a malformed graph cannot make the
 * kernel read out of bounds), and the contiguity of a chunk. */
static bool setup_op(dm_kernel *K) {
  const op *a = K->a;
  const tensor_type *ot = a->results[0]->type, *t0 = a->noperands ? in_type(K, 0) : NULL;
  int last = K->rank - 1;
  int64_t inner = K->odim[last];
  switch (K->kind) {
  case DM_RESHAPE:
  case DM_IDENTITY:
    if (tensor_numel(t0) != tensor_numel(ot))
      return fail(K, "%s: element count changes%s", "");
    K->chunk_ok = true;
    return true;
  case DM_TRANSPOSE: {
    if (!int_list(K, "perms", ot->rank, 0))
      return false;
    bool seen[TOSAC_MAX_RANK] = {0};
    for (int i = 0; i < ot->rank; i++) {
      int64_t p = K->attr_v[i];
      if (p < 0 || p >= ot->rank || seen[p] || t0->dims[p] != ot->dims[i])
        return fail(K, "%s: %s does not match the shapes", "perms");
      seen[p] = true;
    }
    K->chunk_ok = ot->rank == 0 || K->attr_v[last] == last;
    return true;
  }
  case DM_SLICE:
    if (!int_list(K, "start", ot->rank, 0) || !int_list(K, "size", ot->rank, ot->rank))
      return false;
    for (int d = 0; d < ot->rank; d++)
      if (K->attr_v[d] < 0 || K->attr_v[d] + ot->dims[d] > t0->dims[d])
        return fail(K, "%s: %s is out of range", "start");
    K->nattr = ot->rank;
    K->chunk_ok = true;
    return true;
  case DM_PAD:
    if (!int_list(K, "padding", 2 * ot->rank, 0))
      return false;
    if (tensor_numel(t0) == 0)
      return fail(K, "%s: %s input is not supported", "an empty");
    for (int d = 0; d < ot->rank; d++)
      if (K->attr_v[2 * d] < 0 || K->attr_v[2 * d + 1] < 0 ||
          t0->dims[d] + K->attr_v[2 * d] + K->attr_v[2 * d + 1] != ot->dims[d])
        return fail(K, "%s: %s does not match the shapes", "padding");
    K->chunk_ok = ot->rank == 0 || (K->attr_v[2 * last] == 0 && K->attr_v[2 * last + 1] == 0);
    return true;
  case DM_TILE:
    for (int d = 0; d < ot->rank; d++)
      if (t0->dims[d] <= 0 || ot->dims[d] % t0->dims[d] != 0)
        return fail(K, "%s: %s does not match the shapes", "multiples");
    K->chunk_ok = ot->rank == 0 || t0->dims[last] % K->vw == 0;
    return true;
  case DM_REVERSE: {
    int64_t ax = op_attr_int(a, "axis", -1);
    if (ax < 0 || ax >= ot->rank || !tensor_type_equal(t0, ot))
      return fail(K, "%s: %s is out of range", "axis");
    K->attr_v[0] = ax;
    K->chunk_ok = ax != last || inner == 1;
    return true;
  }
  case DM_CONCAT: {
    int64_t ax = op_attr_int(a, "axis", -1), sum = 0;
    if (ax < 0 || ax >= ot->rank)
      return fail(K, "%s: %s is out of range", "axis");
    K->attr_v[0] = ax;
    K->chunk_ok = true;
    for (int i = 0; i < a->noperands; i++) {
      const tensor_type *t = in_type(K, i);
      if (t->rank != ot->rank || !buffer_of(K, a->operands[i]))
        return fail(K, "%s: %s does not match the result", "an operand");
      for (int d = 0; d < ot->rank; d++)
        if (d != ax && t->dims[d] != ot->dims[d])
          return fail(K, "%s: %s does not match the result", "an operand");
      sum += t->dims[ax];
      K->chunk_ok &= ax != last || t->dims[ax] % K->vw == 0;
    }
    if (sum != ot->dims[ax])
      return fail(K, "%s: %s do not add up to the result", "the operand sizes");
    return true;
  }
  case DM_GATHER: {
    const tensor_type *xt = in_type(K, 1);
    if (t0->rank != 3 || xt->rank != 2 || ot->rank != 3 || !elem_type_is_int(xt->elem) ||
        xt->dims[0] != t0->dims[0] || ot->dims[0] != t0->dims[0] || ot->dims[1] != xt->dims[1] ||
        ot->dims[2] != t0->dims[2] || t0->dims[1] <= 0)
      return fail(K, "%s: %s do not match", "operand shapes");
    K->chunk_ok = true;
    return true;
  }
  case DM_SCATTER: {
    const tensor_type *xt = in_type(K, 1), *it = in_type(K, 2);
    if (a->noperands != 3 || t0->rank != 3 || xt->rank != 2 || it->rank != 3 || !elem_type_is_int(xt->elem) ||
        !tensor_type_equal(t0, ot) || xt->dims[0] != t0->dims[0] || it->dims[0] != t0->dims[0] ||
        it->dims[1] != xt->dims[1] || it->dims[2] != t0->dims[2])
      return fail(K, "%s: %s do not match", "operand shapes");
    K->chunk_ok = true;
    return true;
  }
  case DM_RESIZE: {
    const attr *m = op_attr(a, "mode");
    if (!int_list(K, "scale", 4, 0) || !int_list(K, "offset", 2, 4) || !int_list(K, "border", 2, 6))
      return false;
    if (!m || m->kind != ATTR_STR || (strcmp(m->s, "BILINEAR") && strcmp(m->s, "NEAREST_NEIGHBOR")))
      return fail(K, "%s: %s", "mode must be BILINEAR or NEAREST_NEIGHBOR");
    if (t0->rank != 4 || ot->rank != 4 || t0->dims[0] != ot->dims[0] || t0->dims[3] != ot->dims[3])
      return fail(K, "%s: %s do not match", "operand shapes");
    if (K->attr_v[0] <= 0 || K->attr_v[1] <= 0 || K->attr_v[2] <= 0 || K->attr_v[3] <= 0)
      return fail(K, "%s: %s must be positive", "scale");
    bool fl = elem_type_is_float(t0->elem);
    if (fl != elem_type_is_float(ot->elem) || (fl && t0->elem != ot->elem) ||
        (!fl && !resize_bilinear(K) && t0->elem != ot->elem) ||
        (!fl && resize_bilinear(K) && elem_type_bits(ot->elem) < 32))
      return fail(K, "%s: %s is not supported", "this input/output element type pair");
    K->chunk_ok = !resize_bilinear(K);
    return true;
  }
  default: return fail(K, "%s: %s", "no data movement kernel for this operation");
  }
}

static void locate(dm_kernel *K, dm_loc *L) {
  memset(L, 0, sizeof *L);
  L->ptr = K->a->noperands ? buffer_of(K, K->a->operands[0]) : NULL;
  switch (K->kind) {
  case DM_RESHAPE:
  case DM_IDENTITY: L->off = K->lin_j; break;
  case DM_TRANSPOSE: locate_transpose(K, L); break;
  case DM_SLICE: locate_slice(K, L); break;
  case DM_PAD: locate_pad(K, L); break;
  case DM_TILE: locate_tile(K, L); break;
  case DM_REVERSE: locate_reverse(K, L); break;
  case DM_CONCAT: locate_concat(K, L); break;
  default: locate_row(K, L); break; /* gather, scatter, resize nearest */
  }
}

static void prepare(dm_kernel *K) {
  if (K->kind == DM_GATHER)
    prepare_gather(K);
  else if (K->kind == DM_SCATTER)
    prepare_scatter(K);
  else if (K->kind == DM_RESIZE)
    prepare_resize(K);
}

/* ---------------------------------------------------------------- epilogue */

/* Elementwise ops fused after the anchor: each operand is a value computed here, a splat
 * constant, or an input buffer of the iteration shape read at the element's position. */
static bool epilogue(dm_kernel *K, LLVMValueRef *cur) {
  cg_builder *cb = K->cb;
  for (int oi = 0; oi < K->k->nops; oi++) {
    const op *o = K->k->ops[oi];
    if (o == K->a || op_table[o->kind].family == FAM_CONST)
      continue;
    LLVMValueRef args[8];
    for (int i = 0; i < o->noperands && i < 8; i++) {
      const value *v = o->operands[i];
      if (cur[v->id]) {
        args[i] = cur[v->id];
        continue;
      }
      const dense_data *d = cg_const_data(v);
      LLVMValueRef p = buffer_of(K, v);
      elem_type t = v->type->elem;
      if (d && (d->splat || tensor_numel(v->type) == 1)) {
        double f = 0;
        int64_t n = 0;
        if (elem_type_is_float(t) && cg_dense_float(d, 0, &f))
          args[i] = cg_const_float(cb, t, f);
        else if (cg_dense_int(d, 0, &n))
          args[i] = cg_const_int(cb, t, n);
        else
          return fail(K, "%s: %s", "unsupported constant in a fused epilogue");
      } else if (p && tensor_numel(v->type) == tensor_numel(&K->k->iter)) {
        args[i] = load(K, cg_mem_type(cb, t), p, K->lin_j, (unsigned)elem_type_bytes(t));
        if (t == ET_I1)
          args[i] = LLVMBuildICmp(K->b, LLVMIntNE, args[i], LLVMConstNull(cb->i8), "");
      } else {
        return fail(K, "%s: %s", "a fused epilogue operand that needs broadcasting is not supported");
      }
    }
    LLVMValueRef r = cg_ew_op(cb, o, args);
    if (!r)
      return false;
    cur[o->results[0]->id] = r;
  }
  return true;
}

/* ---------------------------------------------------------------- the chunk */

/* One element's value in memory type. */
static LLVMValueRef element(dm_kernel *K) {
  if (K->kind == DM_RESIZE && resize_bilinear(K))
    return value_bilinear(K);
  dm_loc L;
  locate(K, &L);
  LLVMValueRef off = L.valid ? sel(K, L.valid, L.off, ic(K, 0)) : L.off;
  LLVMValueRef x = load(K, K->mem_t, L.ptr, off, (unsigned)elem_type_bytes(K->et));
  return L.valid ? sel(K, L.valid, x, L.fallback) : x;
}

static bool has_epilogue(dm_kernel *K) {
  for (int oi = 0; oi < K->k->nops; oi++)
    if (K->k->ops[oi] != K->a && op_table[K->k->ops[oi]->kind].family != FAM_CONST)
      return true;
  return false;
}

static void set_element(dm_kernel *K, int j) {
  memcpy(K->cj, K->co, sizeof K->cj);
  if (j) {
    K->cj[K->rank - 1] = add(K, K->co[K->rank - 1], ic(K, j));
    K->lin_j = add(K, K->lin, ic(K, j));
  } else {
    K->lin_j = K->lin;
  }
}

static bool emit_chunk(dm_kernel *K) {
  cg_builder *cb = K->cb;
  LLVMBuilderRef b = K->b;
  int vw = K->vw;
  LLVMValueRef rem = K->lin;
  for (int d = 0; d < K->rank; d++) {
    if (K->odim[d] == 1) {
      K->co[d] = ic(K, 0);
      continue;
    }
    LLVMValueRef c = K->ostr[d] == 1 ? rem : LLVMBuildUDiv(b, rem, ic(K, K->ostr[d]), "");
    K->co[d] = d == 0 ? c : LLVMBuildURem(b, c, ic(K, K->odim[d]), "");
  }
  prepare(K);
  LLVMValueRef vals[DM_VECTOR_BYTES];
  LLVMTypeRef vt = LLVMVectorType(K->mem_t, (unsigned)vw);
  LLVMValueRef vec = NULL;
  if (vw > 1 && K->chunk_ok) {
    set_element(K, 0);
    dm_loc L;
    locate(K, &L);
    LLVMValueRef off = L.valid ? sel(K, L.valid, L.off, ic(K, 0)) : L.off;
    unsigned align = (unsigned)elem_type_bytes(K->et) * (K->kind == DM_RESHAPE || K->kind == DM_IDENTITY ? (unsigned)vw : 1u);
    vec = load(K, vt, L.ptr, off, align);
    if (L.valid) {
      LLVMValueRef fb = LLVMGetUndef(vt);
      for (int j = 0; j < vw; j++)
        fb = LLVMBuildInsertElement(b, fb, L.fallback, LLVMConstInt(cb->i32, (unsigned)j, 0), "");
      vec = sel(K, L.valid, vec, fb);
    }
    for (int j = 0; j < vw; j++)
      vals[j] = LLVMBuildExtractElement(b, vec, LLVMConstInt(cb->i32, (unsigned)j, 0), "");
  } else {
    for (int j = 0; j < vw; j++) {
      set_element(K, j);
      vals[j] = element(K);
    }
  }
  const value *res = K->a->results[0];
  bool epi = has_epilogue(K);
  for (int o = 0; o < K->k->nout; o++) {
    const value *ov = K->k->out_vals[o];
    elem_type oet = ov->type->elem;
    LLVMTypeRef omt = cg_mem_type(cb, oet);
    LLVMValueRef out = LLVMGetParam(cb->fn, (unsigned)(K->k->nin + o));
    LLVMValueRef acc = (ov == res && vec) ? vec : LLVMGetUndef(LLVMVectorType(omt, (unsigned)vw));
    if (!(ov == res && vec)) {
      for (int j = 0; j < vw; j++) {
        LLVMValueRef x = vals[j];
        if (epi && ov != res) {
          LLVMValueRef *cur = calloc((size_t)K->g->nvalues, sizeof(LLVMValueRef));
          set_element(K, j);
          cur[res->id] = K->et == ET_I1 ? LLVMBuildICmp(b, LLVMIntNE, x, LLVMConstNull(cb->i8), "") : x;
          bool ok = epilogue(K, cur);
          x = cur[ov->id];
          free(cur);
          if (!ok || !x)
            return ok ? fail(K, "%s: %s", "kernel output is not computed by the kernel") : false;
          if (oet == ET_I1)
            x = LLVMBuildZExt(b, x, cb->i8, "");
        }
        acc = vw > 1 ? LLVMBuildInsertElement(b, acc, x, LLVMConstInt(cb->i32, (unsigned)j, 0), "") : x;
      }
    }
    LLVMValueRef p = LLVMBuildInBoundsGEP2(b, omt, out, &K->lin, 1, "");
    cg_store(cb, acc, p, (unsigned)(vw * elem_type_bytes(oet)));
  }
  return true;
}

/* ---------------------------------------------------------------- entry */

bool cg_data_bytes_only(const part_kernel *k) {
  const op *a = k->anchor;
  if (k->family != KF_DATA || !a || !elem_type_is_f8(a->results[0]->type->elem))
    return false;
  static const char *const moves[] = {"tosa.transpose", "tosa.reshape", "tosa.slice", "tosa.concat",
                                      "tosa.tile",      "tosa.reverse", "tosa.identity"};
  bool move = false;
  for (size_t i = 0; i < sizeof moves / sizeof *moves; i++)
    move |= strcmp(op_table[a->kind].name, moves[i]) == 0;
  for (int i = 0; i < k->nops; i++) /* no epilogue: nothing computes on the values */
    move &= k->ops[i] == a || op_table[k->ops[i]->kind].family == FAM_CONST;
  for (int i = 0; i < k->nout; i++)
    move &= k->out_vals[i]->type->elem == a->results[0]->type->elem;
  return move;
}

bool cg_emit_data(cg_builder *cb, const graph *g, const partition_plan *p, const part_kernel *k,
                  cg_kernel_info *info) {
  (void)p;
  dm_kernel K = {.cb = cb, .b = cb->b, .g = g, .k = k, .a = k->anchor, .kind = DM_UNKNOWN};
  if (!K.a) {
    diag_error_noloc(cb->diag, "kernel '%s': a data movement kernel needs an anchor op", k->name);
    cb->failed = true;
    return false;
  }
  for (int i = 0; i < DM_UNKNOWN; i++)
    if (strcmp(op_table[K.a->kind].name, dm_names[i]) == 0)
      K.kind = (dm_op)i;
  const tensor_type *ot = K.a->results[0]->type;
  bool bytes = cg_data_bytes_only(k);
  K.et = bytes ? ET_I8 : ot->elem; /* 8-bit floats move as bytes */
  if (!cg_elem_type(cb, K.et) || K.et == ET_F64 || K.et == ET_I64)
    return fail(&K, "%s: element type %s is not supported by the code generator", elem_type_name(K.et));
  for (int i = 0; i < K.a->noperands; i++)
    if (!cg_elem_type(cb, K.a->operands[i]->type->elem) && !bytes)
      return fail(&K, "%s: element type %s is not supported by the code generator",
                  elem_type_name(K.a->operands[i]->type->elem));
  K.mem_t = cg_mem_type(cb, K.et);
  K.rank = ot->rank ? ot->rank : 1;
  for (int d = 0; d < K.rank; d++)
    K.odim[d] = ot->rank ? ot->dims[d] : 1;
  tensor_type shaped = {.elem = K.et, .rank = K.rank};
  memcpy(shaped.dims, K.odim, sizeof K.odim);
  strides_of(&shaped, K.ostr);
  int64_t n = tensor_numel(ot);
  int maxb = elem_type_bytes(K.et);
  for (int o = 0; o < k->nout; o++)
    maxb = elem_type_bytes(k->out_vals[o]->type->elem) > maxb ? elem_type_bytes(k->out_vals[o]->type->elem) : maxb;
  K.vw = (int)pow2_divisor(K.odim[K.rank - 1], DM_VECTOR_BYTES / maxb);
  int64_t biggest = n;
  for (int i = 0; i < K.a->noperands; i++)
    biggest = tensor_numel(K.a->operands[i]->type) > biggest ? tensor_numel(K.a->operands[i]->type) : biggest;
  int64_t items = n / K.vw, groups = (items + DM_BLOCK - 1) / DM_BLOCK;

  int nargs = k->nin + k->nout;
  const char **access = calloc((size_t)nargs + 1, sizeof(char *));
  for (int i = 0; i < nargs; i++)
    access[i] = i < k->nin ? "read_only" : "write_only";
  cg_kernel_begin(cb, k->name, nargs, access, DM_BLOCK);
  K.it = biggest < ((int64_t)1 << 30) && (groups + 1) * DM_BLOCK * K.vw < ((int64_t)1 << 30) ? cb->i32 : cb->i64;
  bool ok = setup_op(&K);
  if (ok) {
    LLVMBuilderRef b = cb->b;
    LLVMValueRef tid = cg_thread_id_x(cb), gid = cg_group_id_x(cb);
    ok = tid && gid;
    if (ok) {
      tid = LLVMBuildZExt(b, tid, K.it, "");
      gid = LLVMBuildZExt(b, gid, K.it, "");
      LLVMValueRef item = add(&K, mul(&K, gid, DM_BLOCK), tid);
      LLVMBasicBlockRef body = LLVMAppendBasicBlockInContext(cb->ctx, cb->fn, "chunk");
      LLVMBasicBlockRef exit = LLVMAppendBasicBlockInContext(cb->ctx, cb->fn, "exit");
      LLVMBuildCondBr(b, LLVMBuildICmp(b, LLVMIntULT, item, ic(&K, items), ""), body, exit);
      LLVMPositionBuilderAtEnd(b, body);
      K.lin = mul(&K, item, K.vw);
      ok = emit_chunk(&K) && !cb->failed;
      if (ok) {
        LLVMBuildBr(b, exit);
        LLVMPositionBuilderAtEnd(b, exit);
        LLVMBuildRetVoid(b);
      }
    }
  }
  if (ok) {
    cg_launch_1d(info, k, DM_BLOCK, groups, items, K.vw, access);
  }
  if (!ok)
    cb->failed = true;
  free(access);
  return ok;
}
