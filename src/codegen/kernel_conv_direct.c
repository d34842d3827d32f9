/* kernel_conv_direct.c: the direct depthwise_conv2d kernel, plain or transposed (one work-item
 * per output element looping over the filter window with bounds-checked reads; a depthwise convolution sums over
 * taps only, never over channels, so there is no matrix for a matrix instruction: conv2d,
 * conv3d and transpose_conv2d are implicit GEMMs in kernel_gemm.c), plus the shared helpers
 * every anchor kernel uses for its operands and fused elementwise epilogue. */
#include "codegen.h"

#include <stdlib.h>
#include <string.h>

#define CV_BLOCK 256

/* ---------------------------------------------------------------- shared anchor helpers */

bool cg_op_is(const op *o, const char *mnemonic) {
  return o && strcmp(op_table[o->kind].name, mnemonic) == 0;
}

int64_t cg_zero_point(const op *o, const char *name, int operand) {
  const attr *a = op_attr(o, name);
  if (a)
    return a->kind == ATTR_FLOAT ? (int64_t)a->f : a->i;
  /* not canonicalised (TOSA 1.0 operand form): read the constant operand */
  int64_t v = 0;
  if (operand >= 0 && operand < o->noperands) {
    const dense_data *d = cg_const_data(o->operands[operand]);
    if (d && cg_dense_int(d, 0, &v))
      return v;
  }
  return 0;
}

/* A private constant global holding v's data (splats expanded), in the constant address space. */
static LLVMValueRef const_global(cg_builder *cb, const part_kernel *k, const value *v) {
  const dense_data *d = cg_const_data(v);
  int64_t numel = tensor_numel(v->type);
  int nb = elem_type_bytes(v->type->elem);
  size_t bytes = (size_t)(numel * nb);
  if (!d || (!d->splat && d->nbytes < bytes) || (d->splat && d->nbytes < (size_t)nb)) {
    diag_error_noloc(cb->diag, "kernel '%s': value %%%s is neither a kernel argument nor a constant",
                     k->name, VALUE_NAME(v));
    cb->failed = true;
    return NULL;
  }
  char *data = malloc(bytes ? bytes : 1);
  for (int64_t i = 0; i < numel; i++)
    memcpy(data + i * nb, d->bytes + (d->splat ? 0 : i * nb), (size_t)nb);
  LLVMValueRef init = LLVMConstDataArray(cg_mem_type(cb, v->type->elem), data, bytes);
  free(data);
  char name[96];
  snprintf(name, sizeof name, "%s.v%d", k->name, v->id);
  LLVMValueRef g = cg_const_table(cb, name, init, 16);
  return g;
}

LLVMValueRef cg_operand_ptr(cg_builder *cb, const part_kernel *k, const value *v) {
  for (int i = 0; i < k->nin; i++)
    if (k->in_vals[i] == v)
      return LLVMGetParam(cb->fn, (unsigned)i);
  return const_global(cb, k, v);
}

LLVMValueRef cg_load_elem(cg_builder *cb, elem_type t, LLVMValueRef base, LLVMValueRef off) {
  LLVMTypeRef mt = cg_mem_type(cb, t);
  LLVMValueRef p = LLVMBuildInBoundsGEP2(cb->b, mt, base, &off, 1, "");
  LLVMValueRef x = cg_load(cb, mt, p, (unsigned)elem_type_bytes(t));
  return t == ET_I1 ? LLVMBuildICmp(cb->b, LLVMIntNE, x, LLVMConstNull(mt), "") : x;
}

/* Element offset of an operand of shape vt, broadcast (TOSA: dims of 1, missing leading dims)
 * to the iteration space whose coordinates are coords[0..rank). */
static LLVMValueRef broadcast_offset(cg_builder *cb, const tensor_type *vt, int rank,
                                     LLVMValueRef const *coords, LLVMTypeRef it) {
  LLVMValueRef off = LLVMConstInt(it, 0, 0);
  int64_t stride = 1;
  for (int d = vt->rank - 1; d >= 0; d--) {
    int id = rank - vt->rank + d;
    if (vt->dims[d] != 1 && id >= 0) {
      LLVMValueRef c = coords[id];
      if (stride != 1)
        c = LLVMBuildMul(cb->b, c, LLVMConstInt(it, (unsigned long long)stride, 0), "");
      off = LLVMBuildAdd(cb->b, off, c, "");
    }
    stride *= vt->dims[d];
  }
  return off;
}

LLVMValueRef cg_ew_operand(cg_builder *cb, const part_kernel *k, const value *v, int rank,
                           LLVMValueRef const *coords, LLVMTypeRef it) {
  const dense_data *d = cg_const_data(v);
  bool param = false;
  for (int i = 0; i < k->nin; i++)
    param |= k->in_vals[i] == v;
  if (!param && d && (d->splat || tensor_numel(v->type) == 1)) {
    if (elem_type_is_float(v->type->elem)) {
      double f = 0;
      cg_dense_float(d, 0, &f);
      return cg_const_float(cb, v->type->elem, f);
    }
    int64_t x = 0;
    cg_dense_int(d, 0, &x);
    return v->type->elem == ET_I1 ? LLVMConstInt(cb->i1, x != 0, 0) : cg_const_int(cb, v->type->elem, x);
  }
  LLVMValueRef ptr = cg_operand_ptr(cb, k, v);
  if (!ptr)
    return NULL;
  return cg_load_elem(cb, v->type->elem, ptr, broadcast_offset(cb, v->type, rank, coords, it));
}

LLVMValueRef cg_slot_offset(cg_builder *cb, const part_kernel *k, const value *v, LLVMValueRef at) {
  const part_slot *s = &k->slot;
  if (!s->v || s->v != v)
    return at;
  LLVMTypeRef it = LLVMTypeOf(at);
  LLVMValueRef start = LLVMConstInt(it, (unsigned long long)s->start, 0);
  if (s->block >= tensor_numel(v->type)) /* one contiguous run */
    return LLVMBuildAdd(cb->b, at, start, "");
  LLVMValueRef blk = LLVMConstInt(it, (unsigned long long)s->block, 0);
  LLVMValueRef outer = LLVMBuildUDiv(cb->b, at, blk, ""), in = LLVMBuildURem(cb->b, at, blk, "");
  LLVMValueRef base = LLVMBuildMul(cb->b, outer, LLVMConstInt(it, (unsigned long long)s->dst_block, 0), "");
  return LLVMBuildAdd(cb->b, LLVMBuildAdd(cb->b, base, start, ""), in, "");
}

bool cg_epilogue_store(cg_builder *cb, const graph *g, const part_kernel *k, LLVMValueRef anchor_val,
                       LLVMValueRef const *coords, LLVMValueRef linear, LLVMTypeRef it) {
  LLVMValueRef *cur = calloc((size_t)g->nvalues, sizeof(LLVMValueRef));
  bool ok = true;
  cur[k->anchor->results[0]->id] = anchor_val;
  int rank = k->iter.rank;
  for (int oi = 0; oi < k->nops && ok; oi++) {
    const op *o = k->ops[oi];
    if (o == k->anchor || op_table[o->kind].family == FAM_CONST || part_is_operand_view(k, o))
      continue;
    if (part_is_output_view(k, o)) { /* the same element, stored through its strides */
      cur[o->results[0]->id] = cur[o->operands[0]->id];
      continue;
    }
    LLVMValueRef args[8];
    /* canonical operands are all data (shifts and zero points became attributes) */
    for (int a = 0; a < o->noperands && a < 8 && ok; a++) {
      const value *v = o->operands[a];
      if (!cur[v->id] && !(cur[v->id] = cg_ew_operand(cb, k, v, rank, coords, it))) {
        ok = false;
        break;
      }
      args[a] = cur[v->id];
    }
    if (!ok)
      break;
    if (o->kind == OP_RESCALE) /* per-channel parameters: the channel coordinate */
      args[1] = rank ? coords[rank - 1] : LLVMConstInt(it, 0, 0);
    LLVMValueRef r = cg_ew_op(cb, o, args);
    if (!r)
      ok = false;
    else
      cur[o->results[0]->id] = r;
  }
  for (int o = 0; o < k->nout && ok; o++) {
    const value *v = k->out_vals[o];
    LLVMValueRef x = cur[v->id];
    if (!x) {
      diag_error_noloc(cb->diag, "kernel '%s': output %%%s is not computed by the kernel", k->name, VALUE_NAME(v));
      ok = false;
      break;
    }
    if (v->type->elem == ET_I1)
      x = LLVMBuildZExt(cb->b, x, cb->i8, "");
    LLVMTypeRef mt = cg_mem_type(cb, v->type->elem);
    LLVMValueRef at = linear;
    if (v->def && part_is_output_view(k, v->def)) { /* iteration coordinate d lands in result dim i
                                                      where perms[i] = d */
      const attr *pm = op_attr(v->def, "perms");
      at = LLVMConstInt(it, 0, 0);
      int64_t step = 1;
      for (int i = v->type->rank - 1; i >= 0; i--) {
        LLVMValueRef c = coords[pm->ints[i]];
        at = LLVMBuildAdd(cb->b, at, LLVMBuildMul(cb->b, c, LLVMConstInt(it, (unsigned long long)step, 0), ""), "");
        step *= v->type->dims[i];
      }
    }
    at = cg_slot_offset(cb, k, v, at);
    LLVMValueRef p = LLVMBuildInBoundsGEP2(cb->b, mt, LLVMGetParam(cb->fn, (unsigned)(k->nin + o)), &at, 1, "");
    cg_store(cb, x, p, (unsigned)elem_type_bytes(v->type->elem));
  }
  free(cur);
  if (!ok)
    cb->failed = true;
  return ok;
}

LLVMBasicBlockRef cg_anchor_kernel_begin(cg_builder *cb, const part_kernel *k, int block, LLVMTypeRef it,
                                    LLVMValueRef *coords, LLVMValueRef *linear, cg_kernel_info *info) {
  int nargs = k->nin + k->nout;
  const char **access = calloc((size_t)nargs + 1, sizeof(char *));
  for (int i = 0; i < nargs; i++)
    access[i] = i < k->nin ? "read_only" : "write_only";
  cg_kernel_begin(cb, k->name, nargs, access, block);
  int64_t n = tensor_numel(&k->iter);
  int64_t groups = (n + block - 1) / block;
  cg_launch_1d(info, k, block, groups, n, 1, access);
  free(access);
  LLVMBuilderRef b = cb->b;
  LLVMValueRef tid = cg_thread_id_x(cb), gid = cg_group_id_x(cb);
  if (!tid || !gid)
    return NULL;
  tid = LLVMBuildZExt(b, tid, it, "");
  gid = LLVMBuildZExt(b, gid, it, "");
  LLVMValueRef idx = LLVMBuildAdd(b, LLVMBuildMul(b, gid, LLVMConstInt(it, (unsigned long long)block, 0), ""),
                                  tid, "idx");
  LLVMBasicBlockRef body = LLVMAppendBasicBlockInContext(cb->ctx, cb->fn, "body");
  LLVMBasicBlockRef exit = LLVMAppendBasicBlockInContext(cb->ctx, cb->fn, "exit");
  LLVMBuildCondBr(b, LLVMBuildICmp(b, LLVMIntULT, idx, LLVMConstInt(it, (unsigned long long)n, 0), ""),
                  body, exit);
  LLVMPositionBuilderAtEnd(b, exit);
  LLVMBuildRetVoid(b);
  LLVMPositionBuilderAtEnd(b, body);
  LLVMValueRef r = idx;
  for (int d = k->iter.rank - 1; d >= 0; d--) {
    LLVMValueRef dim = LLVMConstInt(it, (unsigned long long)k->iter.dims[d], 0);
    coords[d] = d == 0 ? r : LLVMBuildURem(b, r, dim, "");
    if (d > 0)
      r = LLVMBuildUDiv(b, r, dim, "");
  }
  *linear = idx;
  return exit;
}

LLVMTypeRef cg_anchor_index_type(cg_builder *cb, const part_kernel *k) {
  int64_t big = tensor_numel(&k->iter) + 4 * CV_BLOCK;
  for (int i = 0; i < k->nin; i++)
    big = tensor_numel(k->in_vals[i]->type) > big ? tensor_numel(k->in_vals[i]->type) : big;
  return big < ((int64_t)1 << 30) ? cb->i32 : cb->i64;
}

/* ---------------------------------------------------------------- loops and guards */

typedef struct cv_loop {
  LLVMBasicBlockRef pre, head;
  LLVMValueRef iv, acc, acc0;
} cv_loop;

/* Counted loop 0 .. n-1 (n >= 1) carrying one accumulator. */
static void loop_open(cg_builder *cb, cv_loop *L, LLVMTypeRef it, LLVMValueRef acc0) {
  L->pre = LLVMGetInsertBlock(cb->b);
  L->head = LLVMAppendBasicBlockInContext(cb->ctx, cb->fn, "loop");
  LLVMBuildBr(cb->b, L->head);
  LLVMPositionBuilderAtEnd(cb->b, L->head);
  L->iv = LLVMBuildPhi(cb->b, it, "i");
  L->acc = LLVMBuildPhi(cb->b, LLVMTypeOf(acc0), "acc");
  L->acc0 = acc0;
}

static LLVMValueRef loop_close(cg_builder *cb, cv_loop *L, int64_t n, LLVMValueRef acc_next) {
  LLVMBuilderRef b = cb->b;
  LLVMTypeRef it = LLVMTypeOf(L->iv);
  LLVMBasicBlockRef latch = LLVMGetInsertBlock(b);
  LLVMValueRef next = LLVMBuildAdd(b, L->iv, LLVMConstInt(it, 1, 0), "");
  LLVMBasicBlockRef exit = LLVMAppendBasicBlockInContext(cb->ctx, cb->fn, "loop_end");
  LLVMBuildCondBr(b, LLVMBuildICmp(b, LLVMIntULT, next, LLVMConstInt(it, (unsigned long long)n, 0), ""),
                  L->head, exit);
  LLVMValueRef iv_in[2] = {LLVMConstInt(it, 0, 0), next}, acc_in[2] = {L->acc0, acc_next};
  LLVMBasicBlockRef from[2] = {L->pre, latch};
  LLVMAddIncoming(L->iv, iv_in, from, 2);
  LLVMAddIncoming(L->acc, acc_in, from, 2);
  LLVMPositionBuilderAtEnd(b, exit);
  return acc_next;
}

/* ---------------------------------------------------------------- the convolutions */

typedef struct cv {
  cg_builder *cb;
  const part_kernel *k;
  const op *o;
  LLVMTypeRef it;
  int ns;                                 /* spatial dims: 2 */
  int64_t in_sp[3], out_sp[3], ker[3], stride[3], dil[3], pad[3]; /* pad: before (-out_pad) */
  int64_t IC, OC, M;
  bool transposed; /* `out_pad` in place of `pad`: the transposed depthwise convolution */
  elem_type in_t, w_t, bias_t, out_t, acc_t;
  int64_t izp, wzp;
  LLVMValueRef in, w, bias; /* pointers */
  LLVMTypeRef acc_ty;
  part_strided xv, wv; /* element steps of input (n, h, w, c) and weights (ky, kx, c, m): row-major,
                          or an operand view's (partition/views.c) */
} cv;

static LLVMValueRef ic(cv *C, int64_t v) { return LLVMConstInt(C->it, (unsigned long long)v, 1); }

static int64_t attr_at(const op *o, const char *name, int i, int64_t fallback) {
  const attr *a = op_attr(o, name);
  return a && a->kind == ATTR_INTS && i < a->n ? a->ints[i] : fallback;
}

/* One operand of the product, in the accumulator type with its zero point removed. */
static LLVMValueRef to_acc(cv *C, LLVMValueRef x, elem_type t, int64_t zp) {
  LLVMBuilderRef b = C->cb->b;
  if (elem_type_is_float(t))
    return t == C->acc_t ? x : LLVMBuildFPExt(b, x, C->acc_ty, "");
  x = LLVMBuildSExt(b, x, C->acc_ty, "");
  return zp ? LLVMBuildSub(b, x, LLVMConstInt(C->acc_ty, (unsigned long long)zp, 1), "") : x;
}

static LLVMValueRef mac(cv *C, LLVMValueRef acc, LLVMValueRef x, LLVMValueRef w) {
  LLVMBuilderRef b = C->cb->b;
  x = to_acc(C, x, C->in_t, C->izp);
  w = to_acc(C, w, C->w_t, C->wzp);
  if (elem_type_is_float(C->acc_t))
    return LLVMBuildFAdd(b, acc, LLVMBuildFMul(b, x, w, ""), "");
  return LLVMBuildAdd(b, acc, LLVMBuildMul(b, x, w, ""), "");
}

static LLVMValueRef bias_value(cv *C, LLVMValueRef oc, LLVMTypeRef to) {
  const value *bv = C->o->operands[2];
  LLVMValueRef off = tensor_numel(bv->type) == 1 ? ic(C, 0) : oc;
  LLVMValueRef x = cg_load_elem(C->cb, C->bias_t, C->bias, off);
  if (elem_type_is_float(C->bias_t))
    return LLVMTypeOf(x) == to ? x : LLVMBuildFPExt(C->cb->b, x, to, "");
  return LLVMBuildSExtOrBitCast(C->cb->b, x, to, "");
}

/* The sum to the output element. The oracle rounds a depthwise sum to the output type before
 * adding the bias in the output type; following it keeps f16/bf16 results within an ulp. */
static LLVMValueRef finish(cv *C, LLVMValueRef acc, LLVMValueRef och) {
  LLVMBuilderRef b = C->cb->b;
  LLVMTypeRef out_ty = cg_elem_type(C->cb, C->out_t);
  if (C->acc_t != C->out_t)
    acc = elem_type_is_float(C->out_t) ? LLVMBuildFPTrunc(b, acc, out_ty, "") : LLVMBuildTrunc(b, acc, out_ty, "");
  LLVMValueRef bias = bias_value(C, och, out_ty);
  return elem_type_is_float(C->out_t) ? LLVMBuildFAdd(b, acc, bias, "") : LLVMBuildAdd(b, acc, bias, "");
}

static LLVMValueRef and3(LLVMBuilderRef b, LLVMValueRef a, LLVMValueRef c) {
  return a ? LLVMBuildAnd(b, a, c, "") : c;
}

/* 0 <= v < n */
static LLVMValueRef in_range(cv *C, LLVMValueRef v, int64_t n) {
  return LLVMBuildICmp(C->cb->b, LLVMIntULT, v, ic(C, n), ""); /* negative wraps to huge */
}

/* Offset of element idx[0..rank) of an operand read through steps v. */
static LLVMValueRef strided_offset(cv *C, const part_strided *v, LLVMValueRef *idx, int rank) {
  LLVMBuilderRef b = C->cb->b;
  LLVMValueRef off = ic(C, v->offset);
  for (int d = 0; d < rank; d++)
    off = LLVMBuildAdd(b, off, LLVMBuildMul(b, idx[d], ic(C, v->stride[d]), ""), "");
  return off;
}

/* Depthwise: out[n, y, x, c*M + m] = sum_{ky,kx} in[n, iy, ix, c] * w[ky, kx, c, m], then + bias
 * (the oracle adds the bias after the sum, so this order keeps f32 results bit-close). */
static LLVMValueRef emit_depthwise(cv *C, LLVMValueRef *oc) {
  cg_builder *cb = C->cb;
  LLVMBuilderRef b = cb->b;
  LLVMValueRef n = oc[0], och = oc[3];
  LLVMValueRef c = LLVMBuildUDiv(b, och, ic(C, C->M), ""), m = LLVMBuildURem(b, och, ic(C, C->M), "");
  LLVMValueRef acc = LLVMConstNull(C->acc_ty);
  cv_loop L[2];
  LLVMValueRef pos[2], inb = NULL;
  for (int s = 0; s < 2; s++) {
    loop_open(cb, &L[s], C->it, s == 0 ? acc : L[0].acc);
    pos[s] = LLVMBuildAdd(b, LLVMBuildMul(b, oc[1 + s], ic(C, C->stride[s]), ""),
                          LLVMBuildSub(b, LLVMBuildMul(b, L[s].iv, ic(C, C->dil[s]), ""), ic(C, C->pad[s]), ""),
                          "");
    inb = and3(b, inb, in_range(C, pos[s], C->in_sp[s]));
  }
  LLVMValueRef xi[4] = {n, pos[0], pos[1], c}, wi[4] = {L[0].iv, L[1].iv, c, m};
  LLVMValueRef off = LLVMBuildSelect(b, inb, strided_offset(C, &C->xv, xi, 4), ic(C, C->xv.offset), "");
  LLVMValueRef x = cg_load_elem(cb, C->in_t, C->in, off);
  LLVMValueRef w = cg_load_elem(cb, C->w_t, C->w, strided_offset(C, &C->wv, wi, 4));
  acc = LLVMBuildSelect(b, inb, mac(C, L[1].acc, x, w), L[1].acc, "");
  acc = loop_close(cb, &L[1], C->ker[1], acc);
  acc = loop_close(cb, &L[0], C->ker[0], acc);
  return finish(C, acc, och);
}

/* Transposed (tosac's extension, verify_ops.c): out[n, y, x, oc] = sum over the taps with
 * y = iy * stride + ky * dil - pad (the scatter of backward data read as a gather: iy = (y + pad
 * - ky * dil) / stride where that divides and lands in the input) of in[n, iy, ix, ic] * w[ky,
 * kx, c, m]: with C*M input channels oc = c sums ic = c*M + m over m; with C, oc = c*M + m reads
 * ic = c alone. */
static LLVMValueRef emit_depthwise_transposed(cv *C, LLVMValueRef *oc) {
  cg_builder *cb = C->cb;
  LLVMBuilderRef b = cb->b;
  bool sum_m = C->M > 1 && C->IC == C->OC * C->M; /* IC = C*M, OC = C */
  LLVMValueRef n = oc[0], c = sum_m ? oc[3] : LLVMBuildUDiv(b, oc[3], ic(C, C->M), "");
  cv_loop L[3];
  LLVMValueRef pos[2], inb = NULL, m;
  if (sum_m) {
    loop_open(cb, &L[0], C->it, LLVMConstNull(C->acc_ty));
    m = L[0].iv;
  } else {
    L[0].acc = LLVMConstNull(C->acc_ty);
    m = LLVMBuildURem(b, oc[3], ic(C, C->M), "");
  }
  for (int s = 0; s < 2; s++) {
    loop_open(cb, &L[1 + s], C->it, L[s].acc);
    LLVMValueRef t = LLVMBuildSub(b, LLVMBuildAdd(b, oc[1 + s], ic(C, C->pad[s]), ""),
                                  LLVMBuildMul(b, L[1 + s].iv, ic(C, C->dil[s]), ""), "");
    inb = and3(b, inb, LLVMBuildICmp(b, LLVMIntSGE, t, ic(C, 0), ""));
    if (C->stride[s] > 1) {
      inb = and3(b, inb, LLVMBuildICmp(b, LLVMIntEQ, LLVMBuildURem(b, t, ic(C, C->stride[s]), ""), ic(C, 0), ""));
      t = LLVMBuildUDiv(b, t, ic(C, C->stride[s]), "");
    }
    pos[s] = t;
    inb = and3(b, inb, in_range(C, t, C->in_sp[s]));
  }
  LLVMValueRef ich = sum_m ? LLVMBuildAdd(b, LLVMBuildMul(b, c, ic(C, C->M), ""), m, "") : c;
  LLVMValueRef xi[4] = {n, pos[0], pos[1], ich}, wi[4] = {L[1].iv, L[2].iv, c, m};
  LLVMValueRef off = LLVMBuildSelect(b, inb, strided_offset(C, &C->xv, xi, 4), ic(C, C->xv.offset), "");
  LLVMValueRef x = cg_load_elem(cb, C->in_t, C->in, off);
  LLVMValueRef w = cg_load_elem(cb, C->w_t, C->w, strided_offset(C, &C->wv, wi, 4));
  LLVMValueRef acc = LLVMBuildSelect(b, inb, mac(C, L[2].acc, x, w), L[2].acc, "");
  acc = loop_close(cb, &L[2], C->ker[1], acc);
  acc = loop_close(cb, &L[1], C->ker[0], acc);
  if (sum_m)
    acc = loop_close(cb, &L[0], C->M, acc);
  return finish(C, acc, oc[3]);
}

static bool describe(cv *C) {
  const op *o = C->o;
  cg_builder *cb = C->cb;
  const tensor_type *in = o->operands[0]->type, *w = o->operands[1]->type, *out = o->results[0]->type;
  C->ns = 2;
  C->transposed = op_attr(o, "out_pad") != NULL;
  if (o->noperands < 3 || in->rank != C->ns + 2 || w->rank != C->ns + 2 || out->rank != C->ns + 2) {
    diag_error(cb->diag, o->loc, "%s: unexpected operand shapes for the convolution kernel",
               op_table[o->kind].name);
    return false;
  }
  C->in_t = in->elem, C->w_t = w->elem, C->bias_t = o->operands[2]->type->elem, C->out_t = out->elem;
  C->IC = in->dims[C->ns + 1];
  C->OC = out->dims[C->ns + 1];
  for (int s = 0; s < C->ns; s++) {
    C->in_sp[s] = in->dims[1 + s];
    C->out_sp[s] = out->dims[1 + s];
    C->stride[s] = attr_at(o, "stride", s, 1);
    C->dil[s] = attr_at(o, "dilation", s, 1);
    C->pad[s] = C->transposed ? -attr_at(o, "out_pad", 2 * s, 0) : attr_at(o, "pad", 2 * s, 0);
    C->ker[s] = w->dims[s]; /* [KH, KW, C, M] */
  }
  C->M = w->dims[3];
  const attr *acc = op_attr(o, "acc_type");
  C->acc_t = acc && acc->kind == ATTR_TYPE ? acc->type_elem
             : elem_type_is_float(C->out_t) ? ET_F32
                                             : ET_I32;
  if (C->in_t == ET_I8 && C->acc_t != ET_I32)
    C->acc_t = ET_I32;
  C->izp = elem_type_is_float(C->in_t) ? 0 : cg_zero_point(o, "input_zp", 3);
  C->wzp = elem_type_is_float(C->w_t) ? 0 : cg_zero_point(o, "weight_zp", 4);
  bool types_ok = (C->in_t == ET_I8 && C->w_t == ET_I8 && C->out_t == ET_I32) ||
                  (elem_type_is_float(C->in_t) && C->in_t != ET_F64 && C->w_t == C->in_t &&
                   elem_type_is_float(C->acc_t) && C->out_t == C->in_t);
  if (!types_ok) {
    diag_error(cb->diag, o->loc, "%s: %s x %s -> %s (acc_type %s) is not supported by the direct convolution kernel",
               op_table[o->kind].name, elem_type_name(C->in_t), elem_type_name(C->w_t),
               elem_type_name(C->out_t), elem_type_name(C->acc_t));
    return false;
  }
  C->acc_ty = cg_elem_type(cb, C->acc_t);
  return true;
}

bool cg_emit_conv_direct(cg_builder *cb, const graph *g, const partition_plan *p, const part_kernel *k,
                         cg_kernel_info *info) {
  (void)p;
  cv C = {.cb = cb, .k = k, .o = k->anchor};
  if (!describe(&C)) {
    cb->failed = true;
    return false;
  }
  C.it = cg_anchor_index_type(cb, k);
  LLVMValueRef coords[TOSAC_MAX_RANK], linear;
  LLVMBasicBlockRef exit = cg_anchor_kernel_begin(cb, k, CV_BLOCK, C.it, coords, &linear, info);
  if (!exit)
    return false;
  /* the input and weights read through their operand views' strides (NCHW data, a filter
   * transposed to [KH, KW, C, M]) */
  part_operand_strides(k, C.o->operands[0], &C.xv);
  part_operand_strides(k, C.o->operands[1], &C.wv);
  C.in = cg_operand_ptr(cb, k, C.xv.src);
  C.w = cg_operand_ptr(cb, k, C.wv.src);
  C.bias = cg_operand_ptr(cb, k, C.o->operands[2]);
  if (!C.in || !C.w || !C.bias)
    return false;
  LLVMValueRef acc = C.transposed ? emit_depthwise_transposed(&C, coords) : emit_depthwise(&C, coords);
  if (!cg_epilogue_store(cb, g, k, acc, coords, linear, C.it))
    return false;
  LLVMBuildBr(cb->b, exit);
  return !cb->failed;
}
