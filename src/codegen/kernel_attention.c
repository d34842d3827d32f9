/* kernel_attention.c: one flash-attention kernel for an attention pattern (partition/attention.c):
 * o = softmax(score_ops(Q x K^T)) x V with the score tile never in memory.
 *
 * A work-group of ATT_ROWS work-items owns ATT_ROWS query rows of one batch (batch x heads)
 * entry; each work-item keeps its row of Q, the running max m, the running sum l and its output
 * row acc[Dv] in registers (f32 whatever the input type). Keys go by tiles of ATT_KEYS: the
 * work-group stages the K^T and V tile in LDS (f32, zero past the sequence end), then every
 * work-item walks the tile's keys: score = score_ops(q . k) (the graph's own scale, mask and
 * cast ops, evaluated per element with cg_ew_op and broadcast operands), online softmax
 * (m' = max(m, s); acc = acc * exp(m - m') + exp(s - m') * v; l likewise), and at the end
 * o = acc * (1 / l), the pattern's reciprocal and multiply. Only keys below L are visited (the
 * tile's count is uniform), and rows past S compute on a clamped row but store nothing.
 * That is the portable variant (gfx1030, f32 on gfx11/gfx12); the matrix variants follow it: the
 * LDS one (WMMA, "matrix-instruction variant") and the flash one (16x16 MFMA, "flash variant");
 * docs/kernels-attention.md. */
#include "attention.h"
#include "gemm.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

enum { ATT_ROWS = 64, ATT_KEYS = 32 };

static LLVMValueRef ic(att *A, int64_t x) { return LLVMConstInt(A->it, (unsigned long long)x, 1); }
static LLVMValueRef f32c(att *A, double x) { return LLVMConstReal(A->cb->f32, x); }

static LLVMValueRef to_f32(att *A, LLVMValueRef x) {
  return LLVMTypeOf(x) == A->cb->f32 ? x : LLVMBuildFPExt(A->b, x, A->cb->f32, "");
}

static LLVMValueRef from_f32(att *A, LLVMValueRef x, elem_type t) {
  LLVMTypeRef ty = cg_elem_type(A->cb, t);
  return ty == A->cb->f32 ? x : LLVMBuildFPTrunc(A->b, x, ty, "");
}

static LLVMValueRef call1(att *A, const char *name, LLVMValueRef x) {
  LLVMTypeRef t = LLVMTypeOf(x);
  return cg_intrinsic(A->cb, name, &t, 1, &x, 1);
}

static LLVMValueRef call2(att *A, const char *name, LLVMValueRef x, LLVMValueRef y) {
  LLVMTypeRef t = LLVMTypeOf(x);
  LLVMValueRef a[2] = {x, y};
  return cg_intrinsic(A->cb, name, &t, 1, a, 2);
}

/* The running max as the exponents' reference: -inf (every key so far masked with -inf) is
 * replaced by 0, so that e^(s - m) and the rescale e^(m_old - m) are 0 instead of NaN. */
static LLVMValueRef finite_max(att *A, LLVMValueRef m) {
  LLVMValueRef ninf = LLVMBuildFCmp(A->b, LLVMRealOEQ, m, f32c(A, -INFINITY), "");
  return LLVMBuildSelect(A->b, ninf, f32c(A, 0), m, "");
}

/* ---------------------------------------------------------------- index maps
 * The pattern's operands may come through views (same bytes) and absorbed transposes (members
 * of the kernel, partition/attention.c); so may the stored result. Coordinates follow the
 * chain: a view keeps the linear index, a transpose permutes the coordinates. */

static bool member(const part_kernel *k, const op *o) {
  for (int i = 0; i < k->nops; i++)
    if (k->ops[i] == o)
      return true;
  return false;
}

static bool is_input(const part_kernel *k, const value *v) {
  for (int i = 0; i < k->nin; i++)
    if (k->in_vals[i] == v)
      return true;
  return false;
}

static LLVMValueRef linearize(att *A, LLVMValueRef const *c, const tensor_type *t) {
  LLVMValueRef lin = ic(A, 0);
  for (int i = 0; i < t->rank; i++)
    lin = LLVMBuildAdd(A->b, LLVMBuildMul(A->b, lin, ic(A, t->dims[i]), ""), c[i], "");
  return lin;
}

static void delinearize(att *A, LLVMValueRef lin, const tensor_type *t, LLVMValueRef *c) {
  for (int i = t->rank - 1; i >= 0; i--) {
    c[i] = i ? LLVMBuildSRem(A->b, lin, ic(A, t->dims[i]), "") : lin;
    if (i)
      lin = LLVMBuildSDiv(A->b, lin, ic(A, t->dims[i]), "");
  }
}

/* One link of a chain, from the coordinates of its operand to those of its result. */
static void forward_link(att *A, const op *o, LLVMValueRef *c) {
  LLVMValueRef t[TOSAC_MAX_RANK];
  const attr *pm = member(A->k, o) ? op_attr(o, "perms") : NULL;
  if (pm) { /* result[i] = input[perms[i]] */
    for (int i = 0; i < pm->n; i++)
      t[i] = c[pm->ints[i]];
  } else {
    delinearize(A, linearize(A, c, o->operands[0]->type), o->results[0]->type, t);
  }
  memcpy(c, t, sizeof t);
}

/* A concatenation the kernel reads through (a concat view, docs/partitioning.md): not one of
 * its ops and not an input; its pieces are the inputs. */
static bool concat_view(const att *A, const value *v) {
  return v->def && v->def->kind == OP_CONCAT && !member(A->k, v->def) && !is_input(A->k, v);
}

/* The piece of concat view o holding index `at` along its axis (a constant); *start: the
 * piece's first index. */
static int concat_piece(const op *o, int64_t at, int64_t *start) {
  int axis = (int)op_attr_int(o, "axis", 0), j = 0;
  *start = 0;
  while (j + 1 < o->noperands && at >= *start + o->operands[j]->type->dims[axis])
    *start += o->operands[j++]->type->dims[axis];
  return j;
}

/* Coordinates c of o's result as coordinates of its operand (a transpose of the kernel: by its
 * perms, input[perms[i]] = result[i]; a reshape: through the linear index); returns the operand. */
static const value *map_back(att *A, const op *o, LLVMValueRef *c) {
  LLVMValueRef t[TOSAC_MAX_RANK];
  const attr *pm = member(A->k, o) ? op_attr(o, "perms") : NULL;
  if (pm) {
    for (int i = 0; i < pm->n; i++)
      t[pm->ints[i]] = c[i];
  } else {
    delinearize(A, linearize(A, c, o->results[0]->type), o->operands[0]->type, t);
  }
  memcpy(c, t, sizeof(LLVMValueRef) * (size_t)o->operands[0]->type->rank);
  return o->operands[0];
}

/* Offset of element c (of v's shape) in the kernel input v comes from; *in: that input. Through
 * a concat view the coordinate along its axis must be a constant (it picks the piece); a
 * computed one takes read_ptr. */
static LLVMValueRef read_offset(att *A, const value *v, LLVMValueRef const *coords, const value **in) {
  LLVMValueRef c[TOSAC_MAX_RANK];
  memcpy(c, coords, sizeof(LLVMValueRef) * (size_t)v->type->rank);
  for (int hops = 0; hops < 32 && !is_input(A->k, v) && v->def; hops++) {
    const op *o = v->def;
    if (concat_view(A, v)) {
      int axis = (int)op_attr_int(o, "axis", 0);
      int64_t start = 0;
      int j = 0;
      if (LLVMIsAConstantInt(c[axis])) {
        j = concat_piece(o, LLVMConstIntGetSExtValue(c[axis]), &start);
      } else {
        diag_error(A->cb->diag, o->loc, "internal error: kernel '%s' reads a concatenation at a computed index",
                   A->k->name);
        A->cb->failed = true;
      }
      c[axis] = LLVMBuildSub(A->b, c[axis], ic(A, start), "");
      v = o->operands[j];
      continue;
    }
    v = map_back(A, o, c);
  }
  *in = v;
  return linearize(A, c, v->type);
}

/* Pointer to element c (of v's shape) in the kernel input it comes from. Through a concat view
 * each piece's element pointer is formed (the index along the axis clamped into the piece) and
 * the index selects one: the kernel reads the pieces' buffers, never a concatenated copy. */
static LLVMValueRef read_ptr(att *A, const value *v, LLVMValueRef const *coords, int depth) {
  LLVMValueRef c[TOSAC_MAX_RANK];
  memcpy(c, coords, sizeof(LLVMValueRef) * (size_t)v->type->rank);
  for (int hops = 0; hops < 32 && !is_input(A->k, v) && v->def; hops++) {
    const op *o = v->def;
    if (concat_view(A, v) && depth < 4) {
      int axis = (int)op_attr_int(o, "axis", 0);
      LLVMValueRef at = c[axis], ptr = NULL;
      int64_t start = 0;
      for (int j = 0; j < o->noperands; j++) {
        int64_t n = o->operands[j]->type->dims[axis];
        LLVMValueRef x = LLVMBuildSub(A->b, at, ic(A, start), "");
        x = LLVMBuildSelect(A->b, LLVMBuildICmp(A->b, LLVMIntSLT, x, ic(A, 0), ""), ic(A, 0), x, "");
        x = LLVMBuildSelect(A->b, LLVMBuildICmp(A->b, LLVMIntSGT, x, ic(A, n - 1), ""), ic(A, n - 1), x, "");
        c[axis] = x;
        LLVMValueRef pj = read_ptr(A, o->operands[j], c, depth + 1);
        ptr = j ? LLVMBuildSelect(A->b, LLVMBuildICmp(A->b, LLVMIntSGE, at, ic(A, start), ""), pj, ptr, "")
                : pj;
        start += n;
      }
      return ptr;
    }
    v = map_back(A, o, c);
  }
  LLVMValueRef off = linearize(A, c, v->type);
  return LLVMBuildInBoundsGEP2(A->b, cg_mem_type(A->cb, v->type->elem), cg_operand_ptr(A->cb, A->k, v), &off,
                               1, "");
}

/* Does the kernel read v (a pattern operand) through a concat view? *direct: v is the
 * concatenation itself (no index map between). */
static const op *reads_concat(const att *A, const value *v, bool *direct) {
  *direct = concat_view(A, v);
  for (int hops = 0; hops < 32 && !is_input(A->k, v) && v->def; hops++) {
    if (concat_view(A, v))
      return v->def;
    v = v->def->operands[0];
  }
  return NULL;
}

/* Load element c of pattern operand v as f32. */
static LLVMValueRef load_operand(att *A, const value *v, LLVMValueRef const *c) {
  return to_f32(A, cg_load_elem(A->cb, v->type->elem, read_ptr(A, v, c, 0), ic(A, 0)));
}

/* Offset in the output buffer of element c of `from` (the second matmul's result or its cast),
 * following the chain of views and absorbed transposes down to the kernel's output. */
static LLVMValueRef write_offset(att *A, const value *from, LLVMValueRef const *coords) {
  const op *chain[32];
  int n = 0;
  for (const value *v = A->k->out_vals[0]; v != from && v->def && n < 32; v = v->def->operands[0])
    chain[n++] = v->def;
  LLVMValueRef c[TOSAC_MAX_RANK];
  memcpy(c, coords, sizeof(LLVMValueRef) * 3);
  for (int i = n - 1; i >= 0; i--)
    forward_link(A, chain[i], c);
  return linearize(A, c, A->k->out_vals[0]->type);
}

/* The value whose elements the kernel stores: the second matmul's result, or its cast. */
static const value *result_value(att *A) {
  const value *from = A->mm2->results[0];
  for (int i = 0; i < A->k->nops; i++) /* a cast is applied by the store's rounding */
    if (A->k->ops[i]->kind == OP_CAST && A->k->ops[i]->operands[0] == from)
      from = A->k->ops[i]->results[0];
  return from;
}

/* ---------------------------------------------------------------- pieces */

static LLVMValueRef lds_at(att *A, LLVMValueRef arr, LLVMValueRef i) {
  return LLVMBuildInBoundsGEP2(A->b, A->cb->f32, arr, &i, 1, "");
}

/* Stage keys [t0, t0 + ATT_KEYS) of K^T [B, D, L] and V [B, L, Dv] for batch b into LDS as
 * [key][d], zeros past L: every work-item copies elements tid, tid + ATT_ROWS, ... */
static void stage_tile(att *A, LLVMValueRef tid, LLVMValueRef b, LLVMValueRef t0) {
  LLVMBuilderRef bl = A->b;
  for (int which = 0; which < 2; which++) {
    bool is_k = which == 0;
    int64_t width = is_k ? A->D : A->Dv;
    const value *src = is_k ? A->kt : A->v;
    cg_loop l = cg_loop_begin(A->cb, tid, ic(A, ATT_KEYS * width), "stage");
    LLVMValueRef j = LLVMBuildSDiv(bl, l.iv, ic(A, width), "");
    LLVMValueRef d = LLVMBuildSRem(bl, l.iv, ic(A, width), "");
    LLVMValueRef key = LLVMBuildAdd(bl, t0, j, "key");
    LLVMValueRef in = LLVMBuildICmp(bl, LLVMIntSLT, key, ic(A, A->L), "");
    LLVMValueRef kc = LLVMBuildSelect(bl, in, key, ic(A, 0), "");
    /* K^T[b, d, key] or V[b, key, d] */
    LLVMValueRef c[3] = {b, is_k ? d : kc, is_k ? kc : d};
    LLVMValueRef x = load_operand(A, src, c);
    x = LLVMBuildSelect(bl, in, x, f32c(A, 0), "");
    cg_store(A->cb, x, lds_at(A, is_k ? A->lds_k : A->lds_v, l.iv), 4);
    cg_loop_end(A->cb, &l, ATT_ROWS);
  }
}

/* The score of key `key`: q . k (k from LDS slot j), in mm1's result type, through the
 * pattern's score ops up to the value the softmax reads; returned as f32. */
static LLVMValueRef score_ops(att *A, LLVMValueRef dot, LLVMValueRef const *coords);

static LLVMValueRef score(att *A, LLVMValueRef const *q, LLVMValueRef j, LLVMValueRef const *coords) {
  LLVMBuilderRef bl = A->b;
  LLVMValueRef dot = f32c(A, 0), base = LLVMBuildMul(bl, j, ic(A, A->D), "");
  for (int64_t d = 0; d < A->D; d++) {
    LLVMValueRef kd = cg_load(A->cb, A->cb->f32, lds_at(A, A->lds_k, LLVMBuildAdd(bl, base, ic(A, d), "")), 4);
    dot = LLVMBuildFAdd(bl, dot, LLVMBuildFMul(bl, q[d], kd, ""), "");
  }
  return score_ops(A, dot, coords);
}

/* The pattern's score ops (scale, mask, casts) applied to the f32 dot product of the element
 * at coords [b, query, key]; the value the softmax reads, as f32. */
static LLVMValueRef score_ops(att *A, LLVMValueRef dot, LLVMValueRef const *coords) {
  LLVMValueRef *cur = calloc((size_t)A->g->nvalues, sizeof(LLVMValueRef));
  const value *last = A->mm1->results[0];
  cur[last->id] = from_f32(A, dot, last->type->elem);
  for (int i = 0; i < A->k->nops; i++) {
    const op *o = A->k->ops[i];
    if (o->kind == OP_REDUCE_MAX)
      break;
    if (op_table[o->kind].family != FAM_ELEMENTWISE || o->id < A->mm1->id)
      continue; /* constants, absorbed transposes */
    LLVMValueRef args[4];
    for (int a = 0; a < o->noperands && a < 4; a++) {
      const value *v = o->operands[a];
      if (!cur[v->id] && !(cur[v->id] = cg_ew_operand(A->cb, A->k, v, 3, coords, A->it))) {
        free(cur);
        return NULL;
      }
      args[a] = cur[v->id];
    }
    LLVMValueRef r = cg_ew_op(A->cb, o, args);
    if (!r) {
      free(cur);
      return NULL;
    }
    cur[o->results[0]->id] = r;
    last = o->results[0];
  }
  LLVMValueRef s = to_f32(A, cur[last->id]);
  free(cur);
  return s;
}

/* When the score ops are only a multiply by a positive splat constant (and casts): that
 * constant, else 0. The flash kernel then takes the scores at f32 as the MFMA produced them
 * and folds the scale into the exponent's multiply-add (its softmax is f32 whatever the type). */
static double score_scale(att *A) {
  const value *cur = A->mm1->results[0];
  double scale = 1;
  for (int i = 0; i < A->k->nops; i++) {
    const op *o = A->k->ops[i];
    if (o->kind == OP_REDUCE_MAX)
      break;
    if (op_table[o->kind].family != FAM_ELEMENTWISE || o->id < A->mm1->id)
      continue;
    if (o->kind == OP_CAST && o->operands[0] == cur && elem_type_is_float(o->results[0]->type->elem)) {
      cur = o->results[0];
      continue;
    }
    if (o->kind != OP_MUL || (o->operands[0] != cur && o->operands[1] != cur))
      return 0;
    const value *c = o->operands[o->operands[0] == cur ? 1 : 0];
    const dense_data *d = cg_const_data(c);
    double f = 0;
    if (is_input(A->k, c) || !d || !(d->splat || tensor_numel(c->type) == 1) || !elem_type_is_float(c->type->elem) ||
        !cg_dense_float(d, 0, &f) || !(f > 0) || isinf(f))
      return 0;
    scale *= f, cur = o->results[0];
  }
  return scale;
}

/* ---------------------------------------------------------------- causal block
 * bound With a constant causal mask (part_kernel.causal, partition/attention.c)
 * every key past i_last + offset, i_last the block's last query row, is masked
 * for all the block's rows: the key loop ends there. The end is kept at or
 * after kstart (a split-KV chunk wholly past it runs no block and stores m =
 * -inf, l = 0, which the combine weighs 0). */
static LLVMValueRef causal_end(att *A, LLVMValueRef kstart, LLVMValueRef kend,
                               LLVMValueRef row0, int rows) {
  if (!A->k->causal)
    return kend;
  LLVMBuilderRef bl = A->b;
  LLVMValueRef past =
      LLVMBuildAdd(bl, row0, ic(A, rows), ""); /* one past the block's rows */
  past =
      LLVMBuildSelect(bl, LLVMBuildICmp(bl, LLVMIntSLT, past, ic(A, A->S), ""),
                      past, ic(A, A->S), "");
  LLVMValueRef c =
      LLVMBuildAdd(bl, past, ic(A, A->k->causal_offset), "causal_end");
  kend = LLVMBuildSelect(bl, LLVMBuildICmp(bl, LLVMIntSLT, c, kend, ""), c,
                         kend, "");
  return LLVMBuildSelect(bl, LLVMBuildICmp(bl, LLVMIntSLT, kend, kstart, ""),
                         kstart, kend, "kend_causal");
}

/* Online softmax over the keys of one staged tile (count n, uniform), for this work-item's
 * row: m, l and acc[Dv] live in allocas that mem2reg turns into registers. */
static bool walk_tile(att *A, LLVMValueRef const *q, LLVMValueRef n, LLVMValueRef b, LLVMValueRef row,
                      LLVMValueRef t0, LLVMValueRef m_p, LLVMValueRef l_p, LLVMValueRef acc_p) {
  LLVMBuilderRef bl = A->b;
  cg_builder *cb = A->cb;
  LLVMTypeRef acc_t = LLVMArrayType2(cb->f32, (uint64_t)A->Dv);
  cg_loop l = cg_loop_begin(cb, ic(A, 0), n, "keys");
  LLVMValueRef coords[3] = {b, row, LLVMBuildAdd(bl, t0, l.iv, "")};
  LLVMValueRef s = score(A, q, l.iv, coords);
  if (!s)
    return false;
  LLVMValueRef m = cg_load(cb, cb->f32, m_p, 4);
  LLVMValueRef m2 = call2(A, "llvm.maxnum", m, s), ms = finite_max(A, m2);
  LLVMValueRef alpha = call1(A, "llvm.exp", LLVMBuildFSub(bl, m, ms, ""));
  LLVMValueRef p = call1(A, "llvm.exp", LLVMBuildFSub(bl, s, ms, ""));
  if (!alpha || !p)
    return false;
  LLVMValueRef lsum = cg_load(cb, cb->f32, l_p, 4);
  cg_store(cb, LLVMBuildFAdd(bl, LLVMBuildFMul(bl, lsum, alpha, ""), p, ""), l_p, 4);
  cg_store(cb, m2, m_p, 4);
  LLVMValueRef vbase = LLVMBuildMul(bl, l.iv, ic(A, A->Dv), "");
  for (int64_t d = 0; d < A->Dv; d++) {
    LLVMValueRef idx[2] = {LLVMConstInt(cb->i32, 0, 0), LLVMConstInt(cb->i32, (unsigned long long)d, 0)};
    LLVMValueRef ap = LLVMBuildInBoundsGEP2(bl, acc_t, acc_p, idx, 2, "");
    LLVMValueRef vd = cg_load(cb, cb->f32, lds_at(A, A->lds_v, LLVMBuildAdd(bl, vbase, ic(A, d), "")), 4);
    LLVMValueRef a = LLVMBuildFMul(bl, cg_load(cb, cb->f32, ap, 4), alpha, "");
    cg_store(cb, LLVMBuildFAdd(bl, a, LLVMBuildFMul(bl, p, vd, ""), ""), ap, 4);
  }
  cg_loop_end(cb, &l, 1);
  return true;
}

/* The pattern's operands: Q and K^T of the first matmul, V of the second. */
static bool find_parts(att *A) {
  const part_kernel *k = A->k;
  for (int i = 0; i < k->nops && !A->mm1; i++)
    if (k->ops[i]->kind == OP_MATMUL)
      A->mm1 = k->ops[i];
  A->mm2 = k->anchor;
  /* KR_FIXUP: the output, then the partials and the counters its last work-groups read */
  if (!A->mm1 || !A->mm2 || A->mm1 == A->mm2 || k->nout != (k->role == KR_FIXUP ? 3 : 1))
    return false;
  A->q = A->mm1->operands[0], A->kt = A->mm1->operands[1], A->v = A->mm2->operands[1];
  A->B = A->q->type->dims[0], A->S = A->q->type->dims[1], A->D = A->q->type->dims[2];
  A->L = A->kt->type->dims[2], A->Dv = A->v->type->dims[2];
  return A->kt->type->dims[0] == A->B && A->v->type->dims[0] == A->B && A->v->type->dims[1] == A->L;
}

/* ---------------------------------------------------------------- matrix-instruction variant
 * One wave per work-group owns MT = 16 query rows. Per key tile of 16: S = Q K^T through the
 * GEMM core's matrix step (gemm_mma_step: MFMA on CDNA, WMMA on gfx11/gfx12) from fragments of
 * the Q block and K tile in LDS; the score ops on S's accumulators; S to LDS, where lanes
 * 0..15 (one per row) do the online-softmax bookkeeping (m, l, alpha per row) and write P in
 * the operand type; then O = O * alpha + P V, one matrix step per 16 columns of Dv and 16 keys
 * (Dv / 16 accumulator tiles). O / l is stored through the output index map. */
enum { MT = 16 };

typedef struct att_mma {
  gemm_mma mm;
  LLVMTypeRef ft; /* fragment element type in LDS: half, i16 (bf16 bits) or float */
  LLVMValueRef qs, ks, vs, ps, ss, ms, ls, as;
} att_mma;

static LLVMValueRef i32c(att *A, int64_t x) { return LLVMConstInt(A->cb->i32, (unsigned long long)x, 1); }

static LLVMValueRef to_frag(att *A, const gemm_mma *mm, LLVMValueRef x) {
  if (mm->in == ET_F32)
    return x;
  if (mm->in == ET_F16)
    return LLVMBuildFPTrunc(A->b, x, A->cb->f16, "");
  return LLVMBuildBitCast(A->b, LLVMBuildFPTrunc(A->b, x, A->cb->bf16, ""), A->cb->i16, "");
}

static LLVMValueRef lds_arr(att *A, const char *what, LLVMTypeRef t, int64_t n) {
  char name[96];
  snprintf(name, sizeof name, "%s.%s", A->k->name, what);
  return cg_lds_alloc(A->cb, name, LLVMArrayType2(t, (uint64_t)n), 16);
}

static LLVMValueRef at(att *A, LLVMTypeRef t, LLVMValueRef arr, LLVMValueRef i) {
  return LLVMBuildInBoundsGEP2(A->b, t, arr, &i, 1, "");
}

static unsigned frag_align(att *A, att_mma *M) {
  return (unsigned)LLVMABISizeOfType(LLVMGetModuleDataLayout(A->cb->mod), M->ft);
}

/* A lane's operand fragment: kl elements at arr[base + row * rs + k * ksd], k = kbase + kofs + e
 * (the GEMM core's lane layout). */
static LLVMValueRef frag(att *A, att_mma *M, LLVMValueRef arr, gemm_lane ln, int64_t rs, int64_t ksd,
                         int64_t kbase, int64_t base) {
  LLVMBuilderRef bl = A->b;
  LLVMValueRef v = LLVMGetUndef(LLVMVectorType(M->ft, (unsigned)M->mm.kl));
  LLVMValueRef r = LLVMBuildAdd(bl, i32c(A, base), LLVMBuildMul(bl, ln.row, i32c(A, rs), ""), "");
  for (int e = 0; e < M->mm.kl; e++) {
    LLVMValueRef k = LLVMBuildAdd(bl, ln.kofs, i32c(A, kbase + e), "");
    LLVMValueRef x = cg_load(A->cb, M->ft, at(A, M->ft, arr, LLVMBuildAdd(bl, r, LLVMBuildMul(bl, k, i32c(A, ksd), ""), "")),
                             frag_align(A, M));
    v = LLVMBuildInsertElement(bl, v, x, i32c(A, e), "");
  }
  return v;
}

/* Copy rows [first, first + MT) of operand v (coords (b, row, col) with row clamped to rows - 1,
 * zeros past `rows` when zero is set) into arr[MT][width] as fragment elements. */
static void stage_rows(att *A, att_mma *M, LLVMValueRef arr, const value *v, bool transposed, LLVMValueRef lane,
                       LLVMValueRef b, LLVMValueRef first, int64_t rows, int64_t width, bool zero) {
  LLVMBuilderRef bl = A->b;
  int ws = A->cb->target->info->wave_size;
  cg_loop l = cg_loop_begin(A->cb, lane, ic(A, MT * width), "stage");
  LLVMValueRef r = LLVMBuildSDiv(bl, l.iv, ic(A, width), ""), c = LLVMBuildSRem(bl, l.iv, ic(A, width), "");
  LLVMValueRef row = LLVMBuildAdd(bl, first, r, "");
  LLVMValueRef in = LLVMBuildICmp(bl, LLVMIntSLT, row, ic(A, rows), "");
  LLVMValueRef rc = LLVMBuildSelect(bl, in, row, ic(A, rows - 1), "");
  LLVMValueRef co[3] = {b, transposed ? c : rc, transposed ? rc : c};
  LLVMValueRef x = load_operand(A, v, co);
  if (zero)
    x = LLVMBuildSelect(bl, in, x, f32c(A, 0), "");
  cg_store(A->cb, to_frag(A, &M->mm, x), at(A, M->ft, arr, LLVMBuildTrunc(bl, l.iv, A->cb->i32, "")), frag_align(A, M));
  cg_loop_end(A->cb, &l, ws);
}

/* Lanes 0..MT-1, one row each: fold the tile's scores into m and l, write P and alpha. */
static bool softmax_rows(att *A, att_mma *M, LLVMValueRef lane) {
  cg_builder *cb = A->cb;
  LLVMBuilderRef bl = A->b;
  LLVMBasicBlockRef body = LLVMAppendBasicBlockInContext(cb->ctx, cb->fn, "rows");
  LLVMBasicBlockRef next = LLVMAppendBasicBlockInContext(cb->ctx, cb->fn, "rows_done");
  LLVMBuildCondBr(bl, LLVMBuildICmp(bl, LLVMIntULT, lane, i32c(A, MT), ""), body, next);
  LLVMPositionBuilderAtEnd(bl, body);
  LLVMValueRef base = LLVMBuildMul(bl, lane, i32c(A, MT), "");
  LLVMValueRef sv[MT];
  LLVMValueRef mo = cg_load(cb, cb->f32, at(A, cb->f32, M->ms, lane), 4), mx = mo;
  for (int c = 0; c < MT; c++) {
    sv[c] = cg_load(cb, cb->f32, at(A, cb->f32, M->ss, LLVMBuildAdd(bl, base, i32c(A, c), "")), 4);
    mx = call2(A, "llvm.maxnum", mx, sv[c]);
  }
  LLVMValueRef ms = finite_max(A, mx);
  LLVMValueRef alpha = call1(A, "llvm.exp", LLVMBuildFSub(bl, mo, ms, ""));
  LLVMValueRef sum = f32c(A, 0);
  for (int c = 0; c < MT; c++) {
    LLVMValueRef p = call1(A, "llvm.exp", LLVMBuildFSub(bl, sv[c], ms, ""));
    if (!p || !alpha)
      return false;
    sum = LLVMBuildFAdd(bl, sum, p, "");
    cg_store(cb, to_frag(A, &M->mm, p), at(A, M->ft, M->ps, LLVMBuildAdd(bl, base, i32c(A, c), "")), frag_align(A, M));
  }
  LLVMValueRef lo = cg_load(cb, cb->f32, at(A, cb->f32, M->ls, lane), 4);
  cg_store(cb, LLVMBuildFAdd(bl, LLVMBuildFMul(bl, lo, alpha, ""), sum, ""), at(A, cb->f32, M->ls, lane), 4);
  cg_store(cb, mx, at(A, cb->f32, M->ms, lane), 4);
  cg_store(cb, alpha, at(A, cb->f32, M->as, lane), 4);
  LLVMBuildBr(bl, next);
  LLVMPositionBuilderAtEnd(bl, next);
  return true;
}

/* The matrix instruction the kernel can use for this pattern on this target, if any. */
static bool mma_choice(att *A, gemm_mma *mm) {
  elem_type t = A->q->type->elem;
  if (A->kt->type->elem != t || A->v->type->elem != t || A->mm2->operands[0]->type->elem != t)
    return false;
  if (!gemm_mma_select(A->cb->target->info, t, MT, false, MT, MT, mm) || !mm->row)
    return false;
  return mm->m == MT && mm->n == MT && A->D % mm->k == 0 && MT % mm->k == 0 && A->Dv % MT == 0 &&
         A->Dv / MT <= 8;
}

static void add_problem(att *A, cg_kernel_info *info);

/* The final accumulators o_p[0..nb) before the store guards (gemm_mma_keep). */
static void keep_accumulators(cg_builder *cb, const gemm_mma *mm, LLVMTypeRef o_t, LLVMValueRef o_p,
                              int nb) {
  if (!mm->row || mm->row->layout == MATRIX_MFMA) /* no IR at all where gemm_mma_keep has none */
    return;
  LLVMTypeRef acc_t = LLVMGetElementType(o_t);
  for (int n = 0; n < nb; n++) {
    LLVMValueRef idx[2] = {LLVMConstInt(cb->i32, 0, 0), LLVMConstInt(cb->i32, (unsigned long long)n, 0)};
    LLVMValueRef o = cg_load(cb, acc_t, LLVMBuildInBoundsGEP2(cb->b, o_t, o_p, idx, 2, ""), 16);
    gemm_mma_keep(cb, mm, &o, 1);
  }
}

static bool emit_mma(att *A, att_mma *M, cg_kernel_info *info) {
  cg_builder *cb = A->cb;
  LLVMBuilderRef bl = A->b;
  const part_kernel *k = A->k;
  int ws = cb->target->info->wave_size, nb = (int)(A->Dv / MT), nacc = M->mm.nacc;
  M->ft = M->mm.in == ET_F16 ? cb->f16 : M->mm.in == ET_BF16 ? cb->i16 : cb->f32;
  int nargs = k->nin + k->nout;
  const char **access = calloc((size_t)nargs + 1, sizeof(char *));
  for (int i = 0; i < nargs; i++)
    access[i] = i < k->nin ? "read_only" : "write_only";
  cg_kernel_begin(cb, k->name, nargs, access, ws);
  int64_t row_blocks = (A->S + MT - 1) / MT;
  cg_launch_1d(info, k, ws, A->B * row_blocks, A->B * row_blocks * ws, 1, access);
  free(access);
  M->qs = lds_arr(A, "q", M->ft, MT * A->D);
  M->ks = lds_arr(A, "k", M->ft, MT * A->D);
  M->vs = lds_arr(A, "v", M->ft, MT * A->Dv);
  M->ps = lds_arr(A, "p", M->ft, MT * MT);
  M->ss = lds_arr(A, "s", cb->f32, MT * MT);
  M->ms = lds_arr(A, "m", cb->f32, MT);
  M->ls = lds_arr(A, "l", cb->f32, MT);
  M->as = lds_arr(A, "alpha", cb->f32, MT);
  LLVMTypeRef acc_t = gemm_mma_acc_type(cb, &M->mm);
  LLVMTypeRef o_t = LLVMArrayType2(acc_t, (uint64_t)nb);
  LLVMValueRef o_p = LLVMBuildAlloca(bl, o_t, "o");
  LLVMValueRef lane = cg_thread_id_x(cb), gid32 = cg_group_id_x(cb);
  if (!lane || !gid32)
    return false;
  LLVMValueRef gid = LLVMBuildZExt(bl, gid32, A->it, "");
  LLVMValueRef b = LLVMBuildSDiv(bl, gid, ic(A, row_blocks), "b");
  LLVMValueRef row0 = LLVMBuildMul(bl, LLVMBuildSRem(bl, gid, ic(A, row_blocks), ""), ic(A, MT), "row0");
  LLVMValueRef lane_it = LLVMBuildZExt(bl, lane, A->it, "");
  cg_store(cb, LLVMConstNull(o_t), o_p, 16);
  stage_rows(A, M, M->qs, A->q, false, lane_it, b, row0, A->S, A->D, false);
  LLVMBasicBlockRef init = LLVMAppendBasicBlockInContext(cb->ctx, cb->fn, "init");
  LLVMBasicBlockRef go = LLVMAppendBasicBlockInContext(cb->ctx, cb->fn, "go");
  LLVMBuildCondBr(bl, LLVMBuildICmp(bl, LLVMIntULT, lane, i32c(A, MT), ""), init, go);
  LLVMPositionBuilderAtEnd(bl, init);
  cg_store(cb, f32c(A, -INFINITY), at(A, cb->f32, M->ms, lane), 4);
  cg_store(cb, f32c(A, 0), at(A, cb->f32, M->ls, lane), 4);
  LLVMBuildBr(bl, go);
  LLVMPositionBuilderAtEnd(bl, go);
  gemm_lane la = gemm_mma_lane(cb, &M->mm, lane, false), lb = gemm_mma_lane(cb, &M->mm, lane, true);

  LLVMValueRef kend = causal_end(A, ic(A, 0), ic(A, A->L), row0, MT);
  cg_loop tiles = cg_loop_begin(cb, ic(A, 0), kend, "tiles");
  /* K tile as [key][d] (K^T[b, d, key]), V tile as [key][d] */
  stage_rows(A, M, M->ks, A->kt, true, lane_it, b, tiles.iv, A->L, A->D, true);
  stage_rows(A, M, M->vs, A->v, false, lane_it, b, tiles.iv, A->L, A->Dv, true);
  cg_barrier(cb);
  LLVMValueRef s = LLVMConstNull(acc_t);
  for (int64_t kk = 0; kk < A->D; kk += M->mm.k)
    s = gemm_mma_step(cb, &M->mm, frag(A, M, M->qs, la, A->D, 1, kk, 0), frag(A, M, M->ks, lb, A->D, 1, kk, 0), s);
  for (int e = 0; e < nacc; e++) {
    LLVMValueRef r, c;
    gemm_mma_acc_pos(cb, &M->mm, lane, e, &r, &c);
    LLVMValueRef q = LLVMBuildAdd(bl, row0, LLVMBuildZExt(bl, r, A->it, ""), "");
    LLVMValueRef key = LLVMBuildAdd(bl, tiles.iv, LLVMBuildZExt(bl, c, A->it, ""), "");
    LLVMValueRef qc = LLVMBuildSelect(bl, LLVMBuildICmp(bl, LLVMIntSLT, q, ic(A, A->S), ""), q, ic(A, A->S - 1), "");
    LLVMValueRef kin = LLVMBuildICmp(bl, LLVMIntSLT, key, ic(A, A->L), "");
    LLVMValueRef co[3] = {b, qc, LLVMBuildSelect(bl, kin, key, ic(A, A->L - 1), "")};
    LLVMValueRef x = score_ops(A, LLVMBuildExtractElement(bl, s, i32c(A, e), ""), co);
    if (!x)
      return false;
    x = LLVMBuildSelect(bl, kin, x, f32c(A, -INFINITY), "");
    cg_store(cb, x, at(A, cb->f32, M->ss, LLVMBuildAdd(bl, LLVMBuildMul(bl, r, i32c(A, MT), ""), c, "")), 4);
  }
  cg_barrier(cb);
  if (!softmax_rows(A, M, lane))
    return false;
  cg_barrier(cb);
  for (int n = 0; n < nb; n++) {
    LLVMValueRef idx[2] = {i32c(A, 0), i32c(A, n)};
    LLVMValueRef op = LLVMBuildInBoundsGEP2(bl, o_t, o_p, idx, 2, "");
    LLVMValueRef o = cg_load(cb, acc_t, op, 16);
    for (int e = 0; e < nacc; e++) {
      LLVMValueRef r, c;
      gemm_mma_acc_pos(cb, &M->mm, lane, e, &r, &c);
      LLVMValueRef al = cg_load(cb, cb->f32, at(A, cb->f32, M->as, r), 4);
      LLVMValueRef ie = i32c(A, e);
      o = LLVMBuildInsertElement(bl, o, LLVMBuildFMul(bl, LLVMBuildExtractElement(bl, o, ie, ""), al, ""), ie, "");
    }
    for (int64_t kk = 0; kk < MT; kk += M->mm.k)
      o = gemm_mma_step(cb, &M->mm, frag(A, M, M->ps, la, MT, 1, kk, 0), frag(A, M, M->vs, lb, 1, A->Dv, kk, n * MT), o);
    cg_store(cb, o, op, 16);
  }
  cg_barrier(cb); /* everyone is done with the tiles and P before they are overwritten */
  cg_loop_end(cb, &tiles, MT);

  keep_accumulators(cb, &M->mm, o_t, o_p, nb);
  const value *from = result_value(A), *out = k->out_vals[0];
  LLVMTypeRef mt = cg_mem_type(cb, out->type->elem);
  LLVMValueRef dst = LLVMGetParam(cb->fn, (unsigned)k->nin);
  for (int n = 0; n < nb; n++) {
    LLVMValueRef idx[2] = {i32c(A, 0), i32c(A, n)};
    LLVMValueRef o = cg_load(cb, acc_t, LLVMBuildInBoundsGEP2(bl, o_t, o_p, idx, 2, ""), 16);
    for (int e = 0; e < nacc; e++) {
      LLVMValueRef r, c;
      gemm_mma_acc_pos(cb, &M->mm, lane, e, &r, &c);
      LLVMValueRef q = LLVMBuildAdd(bl, row0, LLVMBuildZExt(bl, r, A->it, ""), "");
      LLVMValueRef x = LLVMBuildFDiv(bl, LLVMBuildExtractElement(bl, o, i32c(A, e), ""),
                                     cg_load(cb, cb->f32, at(A, cb->f32, M->ls, r), 4), "");
      LLVMBasicBlockRef st = LLVMAppendBasicBlockInContext(cb->ctx, cb->fn, "store");
      LLVMBasicBlockRef nx = LLVMAppendBasicBlockInContext(cb->ctx, cb->fn, "next");
      LLVMBuildCondBr(bl, LLVMBuildICmp(bl, LLVMIntSLT, q, ic(A, A->S), ""), st, nx);
      LLVMPositionBuilderAtEnd(bl, st);
      LLVMValueRef co[3] = {b, q, LLVMBuildAdd(bl, ic(A, n * MT), LLVMBuildZExt(bl, c, A->it, ""), "")};
      LLVMValueRef off = write_offset(A, from, co);
      cg_store(cb, from_f32(A, x, out->type->elem), LLVMBuildInBoundsGEP2(bl, mt, dst, &off, 1, ""),
               (unsigned)elem_type_bytes(out->type->elem));
      LLVMBuildBr(bl, nx);
      LLVMPositionBuilderAtEnd(bl, nx);
    }
  }
  LLVMBuildRetVoid(bl);
  snprintf(info->tuning, sizeof info->tuning, "{\"block_rows\":%d,\"block_keys\":%d}", MT, MT);
  snprintf(info->matrix_instruction, sizeof info->matrix_instruction, "%s", M->mm.name);
  add_problem(A, info);
  return !cb->failed;
}

/* The problem in the tuning object, for the quality report (tosac-bundle quality, docs/quality.md):
 * "attention:BxSxLxDxDv:type", B the batch x heads, S the queries, L the keys. */
static void add_problem(att *A, cg_kernel_info *info) {
  size_t n = strlen(info->tuning);
  if (n < 2 || info->tuning[n - 1] != '}')
    return;
  snprintf(info->tuning + n - 1, sizeof info->tuning - (n - 1),
           ",\"problem\":\"attention:%lldx%lldx%lldx%lldx%lld:%s\"}", (long long)A->B, (long long)A->S,
           (long long)A->L, (long long)A->D, (long long)A->Dv, elem_type_name(A->q->type->elem));
}

int64_t cg_attention_chunk(int64_t L, int split) {
  int64_t c = (L + split - 1) / split;
  return (c + 63) / 64 * 64;
}

/* Split-KV combine: one work-item per output element (b, s, d) merges the chunks' partial
 * rows of the workspace [P, B, S, Dv + 2] (o_p[Dv], m_p, l_p). */
static bool combine_store(att *A, LLVMValueRef ws, LLVMValueRef dst, LLVMValueRef bs, LLVMValueRef d, int P);

static bool emit_combine(att *A, cg_kernel_info *info) {
  cg_builder *cb = A->cb;
  LLVMBuilderRef bl = A->b;
  const part_kernel *k = A->k;
  int P = k->split_count;
  int64_t n = A->B * A->S * A->Dv;
  const char *access[2] = {"read_only", "write_only"};
  cg_kernel_begin(cb, k->name, 2, access, 256);
  cg_launch_1d(info, k, 256, (n + 255) / 256, n, 1, access);
  LLVMValueRef tid = cg_thread_id_x(cb), gid = cg_group_id_x(cb);
  if (!tid || !gid)
    return false;
  LLVMValueRef i = LLVMBuildAdd(bl, LLVMBuildMul(bl, LLVMBuildZExt(bl, gid, A->it, ""), ic(A, 256), ""),
                                LLVMBuildZExt(bl, tid, A->it, ""), "i");
  LLVMBasicBlockRef body = LLVMAppendBasicBlockInContext(cb->ctx, cb->fn, "body");
  LLVMBasicBlockRef exit = LLVMAppendBasicBlockInContext(cb->ctx, cb->fn, "exit");
  LLVMBuildCondBr(bl, LLVMBuildICmp(bl, LLVMIntSLT, i, ic(A, n), ""), body, exit);
  LLVMPositionBuilderAtEnd(bl, body);
  LLVMValueRef d = LLVMBuildSRem(bl, i, ic(A, A->Dv), "d"), bs = LLVMBuildSDiv(bl, i, ic(A, A->Dv), "");
  if (!combine_store(A, LLVMGetParam(cb->fn, 0), LLVMGetParam(cb->fn, 1), bs, d, P))
    return false;
  LLVMBuildBr(bl, exit);
  LLVMPositionBuilderAtEnd(bl, exit);
  LLVMBuildRetVoid(bl);
  snprintf(info->tuning, sizeof info->tuning, "{\"split_kv\":%d}", P);
  add_problem(A, info);
  return !cb->failed;
}

/* Output element d of row bs (batch-and-head entry x S + query row) merged from the P chunks'
 * partials in ws [P, B, S, Dv + 2] (M = max m_p, l = sum l_p e^(m_p - M), o = sum o_p e^(m_p -
 * M) / l, chunks in order) and stored through the output index map into dst: the combine
 * kernel's element, and the decode kernel's last work-group's (att_combine_store). */
static bool combine_store(att *A, LLVMValueRef ws, LLVMValueRef dst, LLVMValueRef bs, LLVMValueRef d, int P) {
  cg_builder *cb = A->cb;
  LLVMBuilderRef bl = A->b;
  const part_kernel *k = A->k;
  int64_t w = A->Dv + 2;
  LLVMValueRef mp[256], big = f32c(A, -INFINITY);
  for (int c = 0; c < P && c < 256; c++) {
    LLVMValueRef row = LLVMBuildMul(bl, LLVMBuildAdd(bl, ic(A, (int64_t)c * A->B * A->S), bs, ""), ic(A, w), "");
    LLVMValueRef off = LLVMBuildAdd(bl, row, ic(A, A->Dv), "");
    mp[c] = cg_load(cb, cb->f32, LLVMBuildInBoundsGEP2(bl, cb->f32, ws, &off, 1, ""), 4);
    big = call2(A, "llvm.maxnum", big, mp[c]);
  }
  LLVMValueRef l = f32c(A, 0), o = f32c(A, 0);
  for (int c = 0; c < P && c < 256; c++) {
    LLVMValueRef row = LLVMBuildMul(bl, LLVMBuildAdd(bl, ic(A, (int64_t)c * A->B * A->S), bs, ""), ic(A, w), "");
    LLVMValueRef wt = call1(A, "llvm.exp", LLVMBuildFSub(bl, mp[c], finite_max(A, big), ""));
    if (!wt)
      return false;
    LLVMValueRef loff = LLVMBuildAdd(bl, row, ic(A, A->Dv + 1), ""), ooff = LLVMBuildAdd(bl, row, d, "");
    LLVMValueRef lp = cg_load(cb, cb->f32, LLVMBuildInBoundsGEP2(bl, cb->f32, ws, &loff, 1, ""), 4);
    LLVMValueRef op = cg_load(cb, cb->f32, LLVMBuildInBoundsGEP2(bl, cb->f32, ws, &ooff, 1, ""), 4);
    l = LLVMBuildFAdd(bl, l, LLVMBuildFMul(bl, lp, wt, ""), "");
    o = LLVMBuildFAdd(bl, o, LLVMBuildFMul(bl, op, wt, ""), "");
  }
  const value *out = k->out_vals[0];
  LLVMValueRef c[3] = {LLVMBuildSDiv(bl, bs, ic(A, A->S), ""), LLVMBuildSRem(bl, bs, ic(A, A->S), ""), d};
  LLVMValueRef off = write_offset(A, result_value(A), c);
  LLVMTypeRef mt = cg_mem_type(cb, out->type->elem);
  cg_store(cb, from_f32(A, LLVMBuildFDiv(bl, o, l, ""), out->type->elem),
           LLVMBuildInBoundsGEP2(bl, mt, dst, &off, 1, ""), (unsigned)elem_type_bytes(out->type->elem));
  return true;
}

/* ---------------------------------------------------------------- flash variant (MFMA 16 x 16)
 * FL_WAVES waves per work-group, each owning 16 query rows; keys go by blocks of nk that
 * the work-group stages in LDS, double-buffered: the global loads of block t + 1 are issued
 * before block t's matrix work and written to the other buffer after it (one barrier per
 * block). The wave computes Sᵀ = K Qᵀ, so that a lane's accumulators hold 4 keys of one query
 * (column lane % 16): the row statistics are per lane (max: two cross-lane exchanges in a block
 * that moves the row's shift, fl_block; sum: per lane, exchanged once at the end), and P in the
 * accumulators' order is directly the B operand of Oᵀ += Vᵀ Pᵀ (MFMA B lanes own
 * k = 4·(lane / 16) + e, the accumulators' rows). V is staged transposed ([Dv][keys]) so a lane's A fragment is contiguous. Q stays in registers as
 * B fragments, the scores never leave the accumulators, exp runs in the log2 domain (v_exp_f32). */
enum { FL_WAVES = 4, FL_KEYS = 32, FL_BLOCK_KEYS = 64, FL_MAX_KEYS = 128, FL_MAX_CHUNKS = 16 };

typedef struct flash {
  att *A;
  gemm_mma mm;
  LLVMTypeRef ft;           /* fragment element type: half, i16 (bf16 bits), float */
  int vk, vv;               /* elements per global load of K and V staging */
  int waves;                /* waves per work-group */
  int64_t dp;               /* K rows in LDS: D rounded up to the instruction's k (zero padded) */
  int nk;                   /* keys per block: FL_BLOCK_KEYS when the LDS holds them (the fp8 path:
                             * FL_MAX_KEYS), else FL_KEYS; FL_MAX_KEYS also where the issue bounds
                             * the loop (emit_flash) */
  bool vtr;                 /* V staged as it is ([keys][Dv]), its Vᵀ fragments read transposed
                             * (ds_read_b64_tr_b16); else staged transposed ([Dv][keys]) */
  LLVMValueRef kb, vb;      /* LDS [2][nk][dp], [2][Dv][nk] ([2][nk][Dv] with vtr) */
  LLVMValueRef flat, g, col; /* work-item id, lane / 16, lane % 16 (i32) */
  LLVMValueRef x16, x32;    /* ds_bpermute addresses of lane ^ 16, lane ^ 32 */
  /* the loop's state: batch entry, clamped query, key end, Q fragments, and the allocas of
   * the scores, max, sum, output and buffer parity */
  LLVMValueRef b, qc, kend, *qf;
  LLVMTypeRef acc_t, o_t, s_t;
  LLVMValueRef s_p, m_p, l_p, o_p, par_p;
  LLVMValueRef p_p;      /* the previous block's P (fragment elements) */
  LLVMValueRef held_p; /* the next blocks' K and V chunks, loaded one iteration ahead */
  LLVMValueRef krs, vrs; /* buffer resources of K and V (16-byte loads), made at first use */
  int64_t kstride, vstride; /* fl_row_stride of K and V: 0 when a load's key must be clamped */
  bool folded;  /* the score ops are a positive scale, folded into `scale` */
  double scale; /* log2 e, times the graph's scale when folded */
  double bias;  /* added to the exponent: cancels the mean error of truncating P (fl_pack) */
  bool negk;    /* F->m_p holds the exponent's addend bias - k instead of the shift k (the fast
                 * path's multiply-add takes it as it is) */
  const target_dot *dot; /* the row sum of P's converted pairs by this dot (fl_probs), or NULL */
  bool f8;      /* the fp8 path: fp8/bf8 operands and P (fl_f8_*), bytes in LDS and fragments */
  LLVMValueRef cap_k, cap_v; /* non-NULL: the unclamped loads' scalar offset (fl_load) */
  bool shift; /* a block starting past L - nk reads the whole block ending at L (emit_flash) */
  int f8w;      /* fp8 path, V in 16-byte rows: dwords per key of a lane's 4-key unit of V, which
                 * it transposes in registers (fl_f8_stage_v); 0: V written byte by byte */
} flash;

static int fl_bytes(flash *F) { return elem_type_bytes(F->mm.in); }

/* Elements per global load along dimension `cdim` of operand v (rows along `rdim`): 16 bytes'
 * worth when the index map keeps that dimension contiguous and aligned in the input (checked on
 * constant coordinates at the corners), else 1. */
static int fl_vector(flash *F, const value *v, int rdim, int cdim) {
  att *A = F->A;
  int vec = 16 / fl_bytes(F);
  int64_t width = v->type->dims[cdim], rows = v->type->dims[rdim];
  if (width % vec)
    return 1;
  int64_t bs[2] = {0, A->B - 1}, rs[3] = {0, 1, rows - 1};
  for (int bi = 0; bi < 2; bi++)
    for (int ri = 0; ri < 3; ri++) {
      int64_t base = 0;
      for (int64_t c = 0; c < width; c++) {
        LLVMValueRef co[3];
        co[0] = ic(A, bs[bi]), co[rdim] = ic(A, rs[ri]), co[cdim] = ic(A, c);
        const value *in;
        LLVMValueRef off = read_offset(A, v, co, &in);
        if (!LLVMIsAConstantInt(off) || !is_input(A->k, in))
          return 1;
        int64_t o = LLVMConstIntGetSExtValue(off);
        if (c == 0)
          base = o;
        if ((c == 0 && o % vec) || o != base + c)
          return 1;
      }
    }
  return vec;
}

/* Elements between consecutive rows of operand v (rows along `rdim`) when its offsets are
 * row-affine, off(b, r, c) = off(b, 0, c) + r·stride (checked on constant coordinates at the
 * corners and a few rows, like fl_vector), and its loads are 16-byte buffer loads; else 0. */
static int64_t fl_row_stride(flash *F, const value *v, int rdim, int cdim, int vec) {
  att *A = F->A;
  const value *in = NULL;
  LLVMValueRef zero[3] = {ic(A, 0), ic(A, 0), ic(A, 0)};
  read_offset(A, v, zero, &in);
  if (vec * fl_bytes(F) != 16 || !A->cb->target->info->buffer_dword3 ||
      tensor_numel(in->type) * fl_bytes(F) >= ((int64_t)1 << 31))
    return 0;
  int64_t rows = v->type->dims[rdim], width = v->type->dims[cdim], stride = 0, base = 0;
  int64_t bs[2] = {0, A->B - 1}, cs[2] = {0, width - 1}, rs[5] = {0, 1, 2, rows / 2, rows - 1};
  for (int bi = 0; bi < 2; bi++)
    for (int ci = 0; ci < 2; ci++)
      for (int ri = 0; ri < 5; ri++) {
        LLVMValueRef co[3];
        co[0] = ic(A, bs[bi]), co[rdim] = ic(A, rs[ri]), co[cdim] = ic(A, cs[ci]);
        LLVMValueRef off = read_offset(A, v, co, &in);
        if (!LLVMIsAConstantInt(off))
          return 0;
        int64_t o = LLVMConstIntGetSExtValue(off);
        if (ri == 0)
          base = o;
        else if (ri == 1)
          stride = o - base;
        else if (o != base + rs[ri] * stride)
          return 0;
      }
  return stride > 0 ? stride : 0;
}

/* The `vec` elements of operand v at row `row` (clamped below `rows`), columns [c0, c0 + vec).
 * srow non-NULL: row srow + row, unclamped, with srow uniform (the buffer load's scalar offset;
 * only when fl_row_stride found the rows affine). */
static LLVMValueRef fl_load(flash *F, const value *v, int rdim, int cdim, LLVMValueRef bidx, LLVMValueRef row,
                            LLVMValueRef c0, int vec, LLVMValueRef srow) {
  att *A = F->A;
  LLVMBuilderRef bl = A->b;
  int64_t rows = v->type->dims[rdim], stride = srow ? (v == A->kt ? F->kstride : F->vstride) : 0;
  if (srow && !stride) /* not row-affine: the whole row, clamped */
    row = LLVMBuildAdd(bl, srow, row, ""), srow = NULL;
  LLVMValueRef rc = srow ? row : LLVMBuildSelect(bl, LLVMBuildICmp(bl, LLVMIntSLT, row, ic(A, rows), ""), row, ic(A, rows - 1), "");
  LLVMValueRef co[3];
  co[0] = bidx, co[rdim] = rc, co[cdim] = c0;
  const value *in;
  LLVMValueRef off = read_offset(A, v, co, &in);
  LLVMTypeRef vt = LLVMVectorType(F->ft, (unsigned)vec);
  LLVMValueRef base = cg_operand_ptr(A->cb, A->k, in);
  int64_t bytes = tensor_numel(in->type) * fl_bytes(F);
  unsigned dw3 = A->cb->target->info->buffer_dword3;
  int lbytes = vec * fl_bytes(F); /* 16; the fp8 path's V units also 4 or 8 */
  bool buf_width = lbytes == 16 || (F->f8w && v == A->v && lbytes % 4 == 0);
  if (buf_width && dw3 && bytes < ((int64_t)1 << 31)) {
    /* a buffer load: a 32-bit offset instead of 64-bit address arithmetic, and it counts in
     * vmcnt only (llvm-mca counts FLAT global loads in lgkmcnt too, so every LDS wait of the
     * loop would wait for them); the resource is made once, at the first (prologue) load */
    LLVMValueRef *rs = v == A->kt ? &F->krs : &F->vrs;
    if (!*rs) {
      LLVMTypeRef ot[2] = {LLVMPointerTypeInContext(A->cb->ctx, 8), LLVMTypeOf(base)};
      LLVMValueRef args[4] = {base, LLVMConstInt(A->cb->i16, 0, 0), LLVMConstInt(A->cb->i64, (unsigned long long)bytes, 0),
                              LLVMConstInt(A->cb->i32, dw3, 0)};
      *rs = cg_intrinsic(A->cb, "llvm.amdgcn.make.buffer.rsrc", ot, 2, args, 4);
    }
    LLVMValueRef vo = LLVMBuildMul(bl, LLVMBuildTrunc(bl, off, A->cb->i32, ""), i32c(A, fl_bytes(F)), "");
    LLVMValueRef so = i32c(A, 0);
    if (srow) {
      LLVMValueRef cap = v == A->kt ? F->cap_k : F->cap_v;
      so = cap ? cap
               : LLVMBuildMul(bl, LLVMBuildTrunc(bl, srow, A->cb->i32, ""),
                              i32c(A, stride * fl_bytes(F)), "");
    }
    LLVMValueRef args[4] = {*rs, vo, so, i32c(A, 0)};
    LLVMTypeRef lt = lbytes == 4 ? A->cb->i32 : LLVMVectorType(A->cb->i32, (unsigned)(lbytes / 4));
    LLVMValueRef x = *rs ? cg_intrinsic(A->cb, "llvm.amdgcn.raw.ptr.buffer.load", &lt, 1, args, 4) : NULL;
    if (x)
      return LLVMBuildBitCast(bl, x, vt, "");
  }
  LLVMValueRef p = LLVMBuildInBoundsGEP2(bl, F->ft, base, &off, 1, "");
  return cg_load(A->cb, vt, p, (unsigned)(vec * fl_bytes(F)));
}

/* One block's K and V chunks of this work-item: global loads (issued now, written later).
 * bidx NULL: only the chunks' places in LDS (kidx, vidx), no loads. */
typedef struct fl_stage {
  LLVMValueRef k[FL_MAX_CHUNKS], v[FL_MAX_CHUNKS];
  LLVMValueRef kidx[FL_MAX_CHUNKS], vidx[FL_MAX_CHUNKS];
  int nk, nv;
} fl_stage;

static int fl_chunks(flash *F, int64_t width, int vec) {
  int64_t n = F->nk * width / vec, wg = 64 * F->waves;
  return (int)((n + wg - 1) / wg);
}

/* ---------------------------------------------------------------- the fp8 path
 * Q, K, V and P are fp8/bf8 bytes (docs/kernels-attention.md "The fp8 path"): the 16x16x32 MFMA
 * takes 8 bytes of k per lane, k = 8·(lane / 16) + e. P's order (tile, accumulator) gives lane
 * g of step s the keys 32·s + 16·r + 4·g + e (r = 0, 1; e < 4); V is staged transposed with its
 * keys permuted inside every 32 so that those 8 keys are contiguous: key 32·a + 16·r + 4·g + e
 * sits at 32·a + 8·g + 4·r + e, and a lane's Vᵀ fragment is one 8-byte read, like K's. */

/* The LDS slot of key j of a block in V's transposed rows. */
static LLVMValueRef fl_f8_vslot(flash *F, LLVMValueRef j) {
  LLVMBuilderRef bl = F->A->b;
  LLVMTypeRef t = LLVMTypeOf(j);
  LLVMValueRef keep = LLVMBuildAnd(bl, j, LLVMConstInt(t, ~(unsigned long long)28, 1), "");
  LLVMValueRef g = LLVMBuildAnd(bl, j, LLVMConstInt(t, 12, 0), "");
  LLVMValueRef r = LLVMBuildAnd(bl, j, LLVMConstInt(t, 16, 0), "");
  g = LLVMBuildShl(bl, g, LLVMConstInt(t, 1, 0), "");
  r = LLVMBuildLShr(bl, r, LLVMConstInt(t, 2, 0), "");
  return LLVMBuildOr(bl, keep, LLVMBuildOr(bl, g, r, ""), "");
}

/* Element co of Q as its fp8 byte (0, which is +0 in every fp8 type, where `in` is false). */
static LLVMValueRef fl_f8_q(flash *F, LLVMValueRef const *co, LLVMValueRef in) {
  att *A = F->A;
  const value *src;
  LLVMValueRef off = read_offset(A, A->q, co, &src);
  LLVMValueRef x = cg_load_elem(A->cb, src->type->elem, cg_operand_ptr(A->cb, A->k, src), off);
  return LLVMBuildSelect(A->b, in, x, LLVMConstNull(A->cb->i8), "");
}

/* Two probabilities into the bytes 2·hi, 2·hi + 1 of `old` (NULL: a new dword), rounded as a
 * standalone tosa.cast to the type rounds them (cg_f32_to_f8). Where the target converts the
 * type with v_cvt_pk_fp8_f32 / v_cvt_pk_bf8_f32 (cg_f8_hardware: every target the fp8 form is
 * taken on) that is the same instruction, here writing the second pair into the high half of
 * the first one's register: one instruction per two probabilities and none to merge them. */
static LLVMValueRef fl_f8_pack(flash *F, LLVMValueRef old, LLVMValueRef e0, LLVMValueRef e1,
                               bool hi) {
  cg_builder *cb = F->A->cb;
  LLVMBuilderRef bl = F->A->b;
  elem_type t = F->mm.in;
  if (cg_f8_hardware(cb->target->info, t)) {
    bool bf8 = t == ET_F8E5M2 || t == ET_F8E5M2FNUZ;
    /* a new dword's other half is undefined: the second pair overwrites it (a 0 there would
     * cost a register clear per dword) */
    LLVMValueRef args[4] = {e0, e1, old ? old : LLVMGetUndef(cb->i32), LLVMConstInt(cb->i1, hi, 0)};
    const char *name = bf8 ? "llvm.amdgcn.cvt.pk.bf8.f32" : "llvm.amdgcn.cvt.pk.fp8.f32";
    return cg_intrinsic(cb, name, NULL, 0, args, 4);
  }
  LLVMValueRef x = LLVMGetUndef(LLVMVectorType(cb->f32, 2));
  x = LLVMBuildInsertElement(bl, x, e0, i32c(F->A, 0), "");
  x = LLVMBuildInsertElement(bl, x, e1, i32c(F->A, 1), "");
  LLVMValueRef b2 = cg_f32_to_f8(cb, x, t);
  if (!b2)
    return NULL;
  LLVMValueRef w = LLVMBuildZExt(bl, LLVMBuildBitCast(bl, b2, cb->i16, ""), cb->i32, "");
  w = hi ? LLVMBuildShl(bl, w, i32c(F->A, 16), "") : w;
  return old ? LLVMBuildOr(bl, old, w, "") : w;
}

/* P's dword w (four probabilities) as elements f .. f + 3 of the block's P vector pv. */
static LLVMValueRef fl_f8_put(flash *F, LLVMValueRef pv, LLVMValueRef w, int f) {
  LLVMBuilderRef bl = F->A->b;
  LLVMValueRef b4 = LLVMBuildBitCast(bl, w, LLVMVectorType(F->ft, 4), "");
  for (int i = 0; i < 4; i++)
    pv = LLVMBuildInsertElement(bl, pv, LLVMBuildExtractElement(bl, b4, i32c(F->A, i), ""),
                                i32c(F->A, f + i), "");
  return pv;
}

/* A 16-byte chunk of V (one key, `vv` columns) into its transposed rows from slot idx on, one
 * byte per row, taken from the chunk's dwords by shifts: as bytes of a <16 x i8>, the chunk held
 * across the loop's back edge is a bitcast in the pair loop's header that LLVM's cost model
 * prices as 16 extractions, too large a header to rotate the loop (a loop test at the top and a
 * copy of every loop-carried register at the bottom). */
static void fl_f8_store_v(flash *F, LLVMValueRef v, LLVMValueRef idx) {
  att *A = F->A;
  LLVMBuilderRef bl = A->b;
  LLVMValueRef w = LLVMBuildBitCast(bl, v, LLVMVectorType(A->cb->i32, (unsigned)(F->vv / 4)), "");
  for (int e = 0; e < F->vv; e++) {
    LLVMValueRef x = LLVMBuildExtractElement(bl, w, i32c(A, e / 4), "");
    x = LLVMBuildTrunc(bl, LLVMBuildLShr(bl, x, i32c(A, 8 * (e % 4)), ""), A->cb->i8, "");
    cg_store(A->cb, x, at(A, F->ft, F->vb, LLVMBuildAdd(bl, idx, i32c(A, e * F->nk), "")), 1);
  }
}

/* The fp8 path's V units: a lane loads 4 consecutive keys 4·q + r of 4·f8w columns (one 4-, 8-
 * or 16-byte load per key), transposes the 4 x 4 byte tiles with v_perm_b32 (8 per tile) and
 * writes each column's 4 keys as one dword, contiguous in its transposed row (fl_f8_vslot keeps
 * runs of 4 keys together): per 16 bytes 4 loads, 8 permutes and 4 dword writes (two
 * ds_write2_b32), where 16-byte chunks take 1 load, 16 byte writes and 8 shifts. f8w: as few
 * dwords as give every lane of the work-group a unit. */
static int fl_f8_units(flash *F, int w) { return (int)(F->nk / 4 * (F->A->Dv / (4 * w))); }

static int fl_f8_width(flash *F) {
  int w = 1;
  while (w < 4 && fl_f8_units(F, w) > 64 * F->waves)
    w *= 2;
  return (fl_f8_units(F, w) + 64 * F->waves - 1) / (64 * F->waves) * 4 <= FL_MAX_CHUNKS ? w : 0;
}

static void fl_f8_stage_v(flash *F, fl_stage *st, LLVMValueRef bidx, LLVMValueRef t0, bool clamp) {
  att *A = F->A;
  LLVMBuilderRef bl = A->b;
  int w = F->f8w, units = fl_f8_units(F, w), wg = 64 * F->waves, per_key = (int)(A->Dv / (4 * w));
  LLVMTypeRef lt = w == 1 ? A->cb->i32 : LLVMVectorType(A->cb->i32, (unsigned)w);
  st->nv = 0;
  for (int i = 0; i * wg < units; i++) {
    LLVMValueRef u = LLVMBuildAdd(bl, F->flat, i32c(A, i * wg), "");
    if ((i + 1) * wg > units) /* past the end: repeat the last unit (same value, same place) */
      u = LLVMBuildSelect(bl, LLVMBuildICmp(bl, LLVMIntULT, u, i32c(A, units), ""), u,
                          i32c(A, units - 1), "");
    LLVMValueRef q4 = LLVMBuildMul(bl, LLVMBuildUDiv(bl, u, i32c(A, per_key), ""), i32c(A, 4), "");
    LLVMValueRef c0 = LLVMBuildURem(bl, u, i32c(A, per_key), "");
    c0 = LLVMBuildMul(bl, c0, i32c(A, 4 * w), "");
    LLVMValueRef c0i = LLVMBuildZExt(bl, c0, A->it, "");
    for (int r = 0; r < 4; r++) {
      LLVMValueRef j = LLVMBuildZExt(bl, LLVMBuildAdd(bl, q4, i32c(A, r), ""), A->it, "");
      LLVMValueRef key = clamp ? LLVMBuildAdd(bl, t0, j, "") : j, srow = clamp ? NULL : t0;
      LLVMValueRef x = bidx ? fl_load(F, A->v, 1, 2, bidx, key, c0i, 4 * w, srow) : NULL;
      st->v[st->nv] = x ? LLVMBuildBitCast(bl, x, lt, "") : NULL;
      /* the unit's first row and slot: column c0, keys from 4·q on */
      LLVMValueRef row = LLVMBuildMul(bl, c0, i32c(A, F->nk), "");
      st->vidx[st->nv++] = LLVMBuildAdd(bl, row, fl_f8_vslot(F, q4), "");
    }
  }
}

static LLVMValueRef fl_perm(flash *F, LLVMValueRef hi, LLVMValueRef lo, unsigned sel) {
  LLVMValueRef args[3] = {hi, lo, LLVMConstInt(F->A->cb->i32, sel, 0)};
  return cg_intrinsic(F->A->cb, "llvm.amdgcn.perm", NULL, 0, args, 3);
}

static void fl_f8_store_units(flash *F, const fl_stage *st, LLVMValueRef vofs) {
  att *A = F->A;
  LLVMBuilderRef bl = A->b;
  int w = F->f8w;
  for (int i = 0; i + 4 <= st->nv; i += 4) {
    LLVMValueRef base = LLVMBuildAdd(bl, vofs, st->vidx[i], "");
    for (int t = 0; t < w; t++) {
      LLVMValueRef a[4], lo[2], hi[2];
      for (int r = 0; r < 4; r++)
        a[r] = w == 1 ? st->v[i + r] : LLVMBuildExtractElement(bl, st->v[i + r], i32c(A, t), "");
      /* key pairs interleaved: lo = bytes 0, 1 of both keys (b0 b0' b1 b1'), hi = bytes 2, 3 */
      for (int h = 0; h < 2; h++) {
        lo[h] = fl_perm(F, a[2 * h + 1], a[2 * h], 0x05010400);
        hi[h] = fl_perm(F, a[2 * h + 1], a[2 * h], 0x07030602);
      }
      for (int c = 0; c < 4; c++) { /* column 4·t + c: its byte of keys 0 .. 3 */
        LLVMValueRef *x = c < 2 ? lo : hi;
        LLVMValueRef col = fl_perm(F, x[1], x[0], c % 2 ? 0x07060302 : 0x05040100);
        if (!col)
          return;
        LLVMValueRef idx = LLVMBuildAdd(bl, base, i32c(A, (4 * t + c) * F->nk), "");
        cg_store(A->cb, col, at(A, F->ft, F->vb, idx), 4);
      }
    }
  }
}

/* clamp false: the rows are below L (the loads' scalar offsets carry the block's key). */
static void fl_stage_load(flash *F, fl_stage *st, LLVMValueRef bidx, LLVMValueRef tk, LLVMValueRef tv, bool clamp) {
  att *A = F->A;
  LLVMBuilderRef bl = A->b;
  int64_t wg = 64 * F->waves;
  st->nk = st->nv = 0;
  /* a clamped block starting past L - nk (the partial last one) reads the whole block ending at
   * L instead, like the capped pairs' loads: fl_block masks the keys before its start */
  if (clamp && bidx && F->shift)
    for (int i = 0; i < 2; i++) {
      LLVMValueRef *t = i ? &tv : &tk;
      if (*t)
        *t = LLVMBuildSelect(bl, LLVMBuildICmp(bl, LLVMIntSLT, *t, ic(A, A->L - F->nk), ""), *t,
                             ic(A, A->L - F->nk), "");
    }
  for (int which = 0; which < 2; which++) {
    bool is_k = which == 0;
    LLVMValueRef t0 = is_k ? tk : tv;
    if (!t0)
      continue;
    if (!is_k && F->f8w) {
      fl_f8_stage_v(F, st, bidx, t0, clamp);
      continue;
    }
    int64_t width = is_k ? A->D : A->Dv;
    int vec = is_k ? F->vk : F->vv, n = fl_chunks(F, width, vec);
    int64_t total = F->nk * width / vec;
    for (int i = 0; i < n; i++) {
      LLVMValueRef c = LLVMBuildAdd(bl, LLVMBuildZExt(bl, F->flat, A->it, ""), ic(A, i * wg), "");
      if ((i + 1) * wg > total) /* past the end: repeat the last chunk (same value, same place) */
        c = LLVMBuildSelect(bl, LLVMBuildICmp(bl, LLVMIntSLT, c, ic(A, total), ""), c, ic(A, total - 1), "");
      LLVMValueRef j = LLVMBuildSDiv(bl, c, ic(A, width / vec), "");
      LLVMValueRef d0 = LLVMBuildMul(bl, LLVMBuildSRem(bl, c, ic(A, width / vec), ""), ic(A, vec), "");
      LLVMValueRef key = clamp ? LLVMBuildAdd(bl, t0, j, "") : j, srow = clamp ? NULL : t0;
      LLVMValueRef x = !bidx ? NULL
                       : is_k ? fl_load(F, A->kt, 2, 1, bidx, key, d0, vec, srow)
                              : fl_load(F, A->v, 1, 2, bidx, key, d0, vec, srow);
      /* rows past L read row L - 1 (fl_load clamps): finite whenever the row L - 1 the
       * graph itself weighs is, and P is exactly 0 there, so V needs no zeroing */
      LLVMValueRef idx = is_k     ? LLVMBuildAdd(bl, LLVMBuildMul(bl, j, ic(A, F->dp), ""), d0, "")
                         : F->vtr ? LLVMBuildAdd(bl, LLVMBuildMul(bl, j, ic(A, A->Dv), ""), d0, "")
                                  : LLVMBuildAdd(bl, LLVMBuildMul(bl, d0, ic(A, F->nk), ""),
                                                 F->f8 ? fl_f8_vslot(F, j) : j, "");
      idx = LLVMBuildTrunc(bl, idx, A->cb->i32, "");
      if (is_k)
        st->k[i] = x, st->kidx[i] = idx;
      else
        st->v[i] = x, st->vidx[i] = idx;
    }
    if (is_k)
      st->nk = n;
    else
      st->nv = n;
  }
}

/* The chunks of `st` kept in (or taken from) F->held_p across the loop's back edge. */
static void fl_hold(flash *F, fl_stage *st, bool keep) {
  att *A = F->A;
  for (int i = 0; i < st->nk + st->nv; i++) {
    LLVMValueRef *x = i < st->nk ? &st->k[i] : &st->v[i - st->nk];
    int bytes = i < st->nk ? F->vk * fl_bytes(F) : F->f8w ? 4 * F->f8w : F->vv * fl_bytes(F);
    LLVMTypeRef held_t = LLVMGetAllocatedType(F->held_p);
    LLVMValueRef slot = LLVMBuildStructGEP2(A->b, held_t, F->held_p, (unsigned)i, "");
    if (keep)
      cg_store(A->cb, *x, slot, (unsigned)bytes);
    else
      *x = cg_load(A->cb, LLVMStructGetTypeAtIndex(held_t, (unsigned)i), slot, (unsigned)bytes);
  }
}

/* Write the staged chunks into buffers kbuf and vbuf (i32 0 or 1): K rows as they are, V
 * transposed unless F->vtr. */
static void fl_stage_store(flash *F, const fl_stage *st, LLVMValueRef kbuf, LLVMValueRef vbuf) {
  att *A = F->A;
  LLVMBuilderRef bl = A->b;
  int es = fl_bytes(F);
  LLVMValueRef kofs = LLVMBuildMul(bl, kbuf, i32c(A, F->nk * F->dp), "");
  LLVMValueRef vofs = LLVMBuildMul(bl, vbuf, i32c(A, F->nk * A->Dv), "");
  for (int i = 0; i < st->nk; i++)
    cg_store(A->cb, st->k[i], at(A, F->ft, F->kb, LLVMBuildAdd(bl, kofs, st->kidx[i], "")), (unsigned)(F->vk * es));
  for (int i = 0; i < st->nv && F->vtr && !F->f8w; i++)
    cg_store(A->cb, st->v[i], at(A, F->ft, F->vb, LLVMBuildAdd(bl, vofs, st->vidx[i], "")), (unsigned)(F->vv * es));
  for (int i = 0; i < st->nv && !F->vtr && !F->f8w; i++)
    for (int e = 0; e < F->vv && !(F->f8 && F->vv % 4 == 0); e++) {
      LLVMValueRef x = LLVMBuildExtractElement(bl, st->v[i], i32c(A, e), "");
      LLVMValueRef idx = LLVMBuildAdd(bl, vofs, LLVMBuildAdd(bl, st->vidx[i], i32c(A, e * F->nk), ""), "");
      cg_store(A->cb, x, at(A, F->ft, F->vb, idx), (unsigned)es);
    }
  for (int i = 0; i < st->nv && !F->vtr && F->f8 && !F->f8w && F->vv % 4 == 0; i++)
    fl_f8_store_v(F, st->v[i], LLVMBuildAdd(bl, vofs, st->vidx[i], ""));
  if (F->f8w)
    fl_f8_store_units(F, st, vofs);
}

/* K's padding columns [D, dp) of both buffers are zero (Q's are too, but 0 x NaN is not 0). */
static void fl_zero_pad(flash *F) {
  att *A = F->A;
  LLVMBuilderRef bl = A->b;
  int64_t pad = F->dp - A->D, n = 2 * F->nk * pad, wg = 64 * F->waves;
  for (int64_t i = 0; i * wg < n; i++) {
    LLVMValueRef c = LLVMBuildAdd(bl, F->flat, i32c(A, i * wg), "");
    c = LLVMBuildSelect(bl, LLVMBuildICmp(bl, LLVMIntULT, c, i32c(A, n), ""), c, i32c(A, n - 1), "");
    LLVMValueRef row = LLVMBuildUDiv(bl, c, i32c(A, pad), ""), col = LLVMBuildURem(bl, c, i32c(A, pad), "");
    LLVMValueRef idx = LLVMBuildAdd(bl, LLVMBuildMul(bl, row, i32c(A, F->dp), ""), LLVMBuildAdd(bl, col, i32c(A, A->D), ""), "");
    cg_store(A->cb, LLVMConstNull(F->ft), at(A, F->ft, F->kb, idx), (unsigned)fl_bytes(F));
  }
}

/* V buffer 1 is zero (the V of the block before the first, whose P is 0: 0 x NaN is not 0). */
static void fl_zero_v(flash *F) {
  att *A = F->A;
  LLVMBuilderRef bl = A->b;
  int vec = 16 / fl_bytes(F);
  int64_t n = F->nk * A->Dv / vec, wg = 64 * F->waves;
  LLVMTypeRef vt = LLVMVectorType(F->ft, (unsigned)vec);
  for (int64_t i = 0; i * wg < n; i++) {
    LLVMValueRef c = LLVMBuildAdd(bl, F->flat, i32c(A, i * wg), "");
    c = LLVMBuildSelect(bl, LLVMBuildICmp(bl, LLVMIntULT, c, i32c(A, n), ""), c, i32c(A, n - 1), "");
    LLVMValueRef idx = LLVMBuildAdd(bl, LLVMBuildMul(bl, c, i32c(A, vec), ""), i32c(A, F->nk * A->Dv), "");
    cg_store(A->cb, LLVMConstNull(vt), at(A, F->ft, F->vb, idx), 16);
  }
}

static LLVMValueRef fl_xor(flash *F, LLVMValueRef x, LLVMValueRef addr) {
  att *A = F->A;
  LLVMValueRef args[2] = {addr, LLVMBuildBitCast(A->b, x, A->cb->i32, "")};
  LLVMValueRef r = cg_intrinsic(A->cb, "llvm.amdgcn.ds.bpermute", NULL, 0, args, 2);
  return r ? LLVMBuildBitCast(A->b, r, A->cb->f32, "") : NULL;
}

/* max(x, y) for operands that are never NaN (scores, or -inf for masked keys): no quieting of
 * the inputs (a v_max_f32 x, x, x each) before the max. */
static LLVMValueRef fl_max(att *A, LLVMValueRef x, LLVMValueRef y) {
  LLVMValueRef r = call2(A, "llvm.maxnum", x, y);
  if (r)
    LLVMSetFastMathFlags(r, LLVMFastMathNoNaNs);
  return r;
}

/* x over the four lanes of this lane's column (lanes col, col + 16, col + 32, col + 48). */
static LLVMValueRef fl_column(flash *F, LLVMValueRef x, bool max) {
  for (int i = 0; i < 2 && x; i++) {
    LLVMValueRef y = fl_xor(F, x, i ? F->x32 : F->x16);
    if (!y)
      return NULL;
    x = max ? fl_max(F->A, x, y) : LLVMBuildFAdd(F->A->b, x, y, "");
  }
  return x;
}

/* 2^x, approximate: v_exp_f32 (the kernel flushes f32 denormals, emit_flash). */
static LLVMValueRef fl_exp2(att *A, LLVMValueRef x) {
  LLVMValueRef r = call1(A, "llvm.exp2", x);
  if (r)
    LLVMSetFastMathFlags(r, LLVMFastMathApproxFunc);
  return r;
}

/* A lane's kl-element fragment read from LDS at arr[base .. base + kl) in runs of `run`
 * contiguous elements, run r starting at base + r_off(r). */
static LLVMValueRef fl_frag(flash *F, LLVMValueRef arr, LLVMValueRef const *starts, int runs, int run) {
  att *A = F->A;
  LLVMBuilderRef bl = A->b;
  int kl = F->mm.kl, es = fl_bytes(F);
  LLVMValueRef v = LLVMGetUndef(LLVMVectorType(F->ft, (unsigned)kl));
  for (int r = 0; r < runs; r++) {
    LLVMValueRef x = cg_load(A->cb, LLVMVectorType(F->ft, (unsigned)run), at(A, F->ft, arr, starts[r]), (unsigned)(run * es));
    for (int e = 0; e < run; e++)
      v = LLVMBuildInsertElement(bl, v, LLVMBuildExtractElement(bl, x, i32c(A, e), ""), i32c(A, r * run + e), "");
  }
  return v;
}

/* Whether the block's other instructions outlast its matrix pipe time (per 16-key tile: M MFMAs
 * of cycles / 4 issue slots each, a wave64 VALU instruction taking 4 cycles, against about 3
 * VALU per score and lane, the fragment reads, the staging and the O rescale,
 * docs/kernels-attention.md): gfx950's double-rate MFMAs, not gfx942's or gfx90a's. */
static bool fl_issue_bound(flash *F) {
  att *A = F->A;
  int64_t m = (F->dp + A->Dv) / F->mm.k, pipe = m * F->mm.row->cycles / 4;
  int64_t other = 12 + (F->dp + A->Dv) / 16 + 2 + A->Dv / 16 + A->Dv / 32;
  return pipe < other;
}

/* The 16 x 16 MFMA this target has for the pattern, when the flash variant fits. */
static bool flash_choice(att *A, flash *F) {
  elem_type t = A->q->type->elem;
  const target_info *ti = A->cb->target->info;
  F->f8 = elem_type_is_f8(t);
  if ((t != ET_F16 && t != ET_BF16 && t != ET_F32 && !F->f8) || A->kt->type->elem != t ||
      A->v->type->elem != t || A->mm2->operands[0]->type->elem != t)
    return false;
  if (!gemm_mma_select(ti, t, 16, false, 16, 16, &F->mm) || !F->mm.row || F->mm.row->layout != MATRIX_MFMA)
    return false;
  F->dp = (A->D + F->mm.k - 1) / F->mm.k * F->mm.k;
  int64_t row_bytes = 2 * (F->dp + A->Dv) * elem_type_bytes(t), lds = FL_KEYS * row_bytes;
  /* long sequences take the larger block: half the per-block work (the rescale check, the
   * barrier, and where a block rescales, the row max's exchanges and O's rescale) per key */
  F->nk = A->L >= 2 * FL_BLOCK_KEYS && FL_BLOCK_KEYS * row_bytes <= ti->lds_bytes ? FL_BLOCK_KEYS : FL_KEYS;
  /* the fp8 path's softmax is most of its issue (docs/kernels-attention.md): 128-key blocks halve
   * the per-block work again (the rescale check, the barrier, the first reads' waits) */
  if (F->f8 && A->L >= 2 * FL_MAX_KEYS && FL_MAX_KEYS * row_bytes <= ti->lds_bytes)
    F->nk = FL_MAX_KEYS;
  if (F->mm.m != 16 || F->mm.n != 16 || FL_KEYS % F->mm.k || A->Dv % 16 || A->Dv / 16 > 8 ||
      A->D > 256 || lds > ti->lds_bytes)
    return false;
  if (!F->f8 && (getenv("TOSAC_ATTENTION_FMA") || getenv("TOSAC_ATTENTION_LDS")))
    return false; /* the fp8 form has no other variant */
  F->waves = (int)((A->S + 15) / 16 < FL_WAVES ? (A->S + 15) / 16 : FL_WAVES);
  F->vk = fl_vector(F, A->kt, 2, 1), F->vv = fl_vector(F, A->v, 1, 2);
  F->vtr = ti->lds_read_tr16 && elem_type_bytes(t) == 2 && F->mm.kl % 4 == 0;
  F->f8w = F->f8 && F->vv == 16 ? fl_f8_width(F) : 0;
  /* where the issue bounds the 16-bit loop and P is rounded to nearest (no bias), the row sum is
   * one dot of each converted pair with (1, 1) (the target table's f16 or bf16 dot) instead of
   * packed f32 adds, which LLVM splits in two beside the MFMAs: l then sums the P that O takes.
   * Measured better by llvm-mca (docs/kernels-attention.md) */
  F->dot = NULL;
  for (int i = 0; i < target_dot_count && !F->f8 && t != ET_F32 && ti->cvt_pk_rne && fl_issue_bound(F); i++)
    if (!strcmp(target_dot_table[i].target, ti->name) && target_dot_table[i].in == t)
      F->dot = &target_dot_table[i];
  F->kstride = fl_row_stride(F, A->kt, 2, 1, F->vk), F->vstride = fl_row_stride(F, A->v, 1, 2, F->vv);
  double scale = score_scale(A);
  F->folded = scale > 0, F->scale = 1.4426950408889634 * (F->folded ? scale : 1);
  /* truncating x to a significand of b bits loses on average u / (4 ln 2) of x relatively
   * (u = 2^-b, x spread evenly in log scale over its binade); 2^bias = 1 + that makes P's error
   * zero on average, and the row sum, taken from the same exponentials, carries the same factor */
  double u = t == ET_F16 ? 0x1p-10 : 0x1p-7;
  F->bias = t == ET_F32 || F->f8 || ti->cvt_pk_rne ? 0 : log2(1 + u / (4 * 0.6931471805599453));
  return fl_chunks(F, A->D, F->vk) <= FL_MAX_CHUNKS && fl_chunks(F, A->Dv, F->vv) <= FL_MAX_CHUNKS;
}

/* fl_v_frags from V staged as it is: a run of 4 keys 16·(f / 4) + 4·g + e of Dv column 16·n +
 * col is one ds_read_b64_tr_b16, whose 16-lane group g reads the 4 x 16 tile of those keys and
 * columns (lane col addresses key 16·(f / 4) + 4·g + col / 4, columns 16·n + 4·(col % 4) .. + 3)
 * and hands lane col its column. */
static void fl_v_frags_tr(flash *F, LLVMValueRef *vf, LLVMValueRef vbase, int n) {
  att *A = F->A;
  LLVMBuilderRef bl = A->b;
  int kl = F->mm.kl;
  LLVMValueRef q = LLVMBuildUDiv(bl, F->col, i32c(A, 4), ""), r = LLVMBuildURem(bl, F->col, i32c(A, 4), "");
  LLVMValueRef key = LLVMBuildAdd(bl, LLVMBuildMul(bl, F->g, i32c(A, 4), ""), q, "");
  LLVMValueRef lane = LLVMBuildAdd(bl, LLVMBuildMul(bl, key, i32c(A, A->Dv), ""), LLVMBuildMul(bl, r, i32c(A, 4), ""), "");
  lane = LLVMBuildAdd(bl, vbase, lane, "");
  LLVMTypeRef t4 = LLVMVectorType(F->ft, 4);
  for (int s = 0; s < F->nk / F->mm.k; s++) {
    LLVMValueRef v = LLVMGetUndef(LLVMVectorType(F->ft, (unsigned)kl));
    for (int f = s * kl; f < (s + 1) * kl; f += 4) {
      LLVMValueRef idx = LLVMBuildAdd(bl, lane, i32c(A, 16 * (f / 4) * A->Dv + 16 * n), "");
      LLVMValueRef p = at(A, F->ft, F->vb, idx);
      LLVMValueRef x = cg_intrinsic(A->cb, "llvm.amdgcn.ds.read.tr16.b64", &t4, 1, &p, 1);
      if (!x)
        return;
      for (int e = 0; e < 4; e++)
        v = LLVMBuildInsertElement(bl, v, LLVMBuildExtractElement(bl, x, i32c(A, e), ""), i32c(A, f % kl + e), "");
    }
    vf[s] = v;
  }
}

/* The fp8 path's Vᵀ fragments: step s of a lane is the 8 bytes at slot 32·s + 8·g of row
 * 16·n + col (fl_f8_vslot). */
static void fl_f8_v_frags(flash *F, LLVMValueRef *vf, LLVMValueRef vbase, int n) {
  att *A = F->A;
  LLVMBuilderRef bl = A->b;
  LLVMValueRef row = LLVMBuildAdd(bl, F->col, i32c(A, 16 * n), "");
  row = LLVMBuildAdd(bl, vbase, LLVMBuildMul(bl, row, i32c(A, F->nk), ""), "");
  row = LLVMBuildAdd(bl, row, LLVMBuildMul(bl, F->g, i32c(A, 8), ""), "");
  for (int s = 0; s < F->nk / F->mm.k; s++) {
    LLVMValueRef start = LLVMBuildAdd(bl, row, i32c(A, 32 * s), "");
    vf[s] = fl_frag(F, F->vb, &start, 1, F->mm.kl);
  }
}

/* Element f of a lane's P sequence (block f / 4, accumulator f % 4) is key 16·(f / 4) + 4·g +
 * f % 4 of the block: the order of the Pᵀ B fragments, and of the Vᵀ A fragments that match. */
static void fl_v_frags(flash *F, LLVMValueRef *vf, LLVMValueRef vbase, int n) {
  att *A = F->A;
  LLVMBuilderRef bl = A->b;
  int kl = F->mm.kl, run = kl < 4 ? kl : 4, runs = kl / run;
  if (F->vtr) {
    fl_v_frags_tr(F, vf, vbase, n);
    return;
  }
  if (F->f8) {
    fl_f8_v_frags(F, vf, vbase, n);
    return;
  }
  LLVMValueRef row = LLVMBuildAdd(bl, vbase, LLVMBuildMul(bl, LLVMBuildAdd(bl, F->col, i32c(A, 16 * n), ""), i32c(A, F->nk), ""), "");
  row = LLVMBuildAdd(bl, row, LLVMBuildMul(bl, F->g, i32c(A, 4), ""), "");
  for (int s = 0; s < F->nk / F->mm.k; s++) {
    LLVMValueRef starts[2];
    for (int r = 0; r < runs; r++) {
      int f = s * kl + r * run;
      starts[r] = LLVMBuildAdd(bl, row, i32c(A, 16 * (f / 4) + f % 4), "");
    }
    vf[s] = fl_frag(F, F->vb, starts, runs, run);
  }
}

static LLVMValueRef fl_pv(flash *F, LLVMValueRef o, LLVMValueRef const *p, LLVMValueRef const *vf) {
  int kl = F->mm.kl;
  for (int s = 0; s < F->nk / F->mm.k; s++) {
    LLVMValueRef bf = LLVMGetUndef(LLVMVectorType(F->ft, (unsigned)kl));
    for (int i = 0; i < kl; i++)
      bf = LLVMBuildInsertElement(F->A->b, bf, p[s * kl + i], i32c(F->A, i), "");
    o = gemm_mma_step(F->A->cb, &F->mm, vf[s], bf, o);
  }
  return o;
}

enum { FL_MAX_KFRAGS = FL_MAX_KEYS / 16 * 256 / 4 }; /* 16-key blocks x steps (k >= 4, D <= 256) */

/* The K fragment of step kk (columns kk .. kk + k) and 16-key block j of K buffer `buf`. */
static LLVMValueRef fl_k_frag(flash *F, LLVMValueRef buf, int64_t kk, int j) {
  att *A = F->A;
  LLVMBuilderRef bl = A->b;
  LLVMValueRef kbase = LLVMBuildMul(bl, buf, i32c(A, F->nk * F->dp), "");
  kbase = LLVMBuildAdd(bl, kbase, LLVMBuildMul(bl, F->g, i32c(A, F->mm.kl), ""), "");
  LLVMValueRef row = LLVMBuildMul(bl, LLVMBuildAdd(bl, F->col, i32c(A, 16 * j), ""), i32c(A, F->dp), "");
  LLVMValueRef start = LLVMBuildAdd(bl, LLVMBuildAdd(bl, kbase, row, ""), i32c(A, kk), "");
  return fl_frag(F, F->kb, &start, 1, F->mm.kl);
}

/* The block's K fragments in fl_scores' order (step-major). */
static void fl_k_frags(flash *F, LLVMValueRef buf, LLVMValueRef *kf) {
  int i = 0;
  for (int64_t kk = 0; kk < F->dp; kk += F->mm.k)
    for (int j = 0; j < F->nk / 16; j++)
      kf[i++] = fl_k_frag(F, buf, kk, j);
}

/* Sᵀ of the block whose keys are in K buffer `buf` (its fragments kf when read already, else
 * read beside their MFMAs): 16-key blocks of accumulators. Step-major: consecutive MFMAs are
 * independent (an in-order issue would wait for each accumulator's previous step). */
static LLVMValueRef fl_scores(flash *F, LLVMValueRef const *qf, LLVMValueRef buf, LLVMValueRef const *kf,
                              LLVMTypeRef s_t) {
  att *A = F->A;
  gemm_mma *mm = &F->mm;
  LLVMValueRef all = LLVMGetUndef(s_t), s[FL_MAX_KEYS / 16];
  int nj = F->nk / 16, i = 0;
  for (int j = 0; j < nj; j++)
    s[j] = LLVMConstNull(gemm_mma_acc_type(A->cb, mm));
  for (int64_t kk = 0; kk < F->dp; kk += mm->k)
    for (int j = 0; j < nj; j++, i++)
      s[j] = gemm_mma_step(A->cb, mm, kf ? kf[i] : fl_k_frag(F, buf, kk, j), qf[kk / mm->k], s[j]);
  for (int j = 0; j < nj; j++)
    all = LLVMBuildInsertValue(A->b, all, s[j], (unsigned)j, "");
  return all;
}

/* Two probabilities (f32) as a pair of P's fragment elements. Where the target has no packed
 * round-to-nearest conversion, P is truncated (f16: v_cvt_pkrtz_f16_f32; bf16: the high
 * halves of the two f32, one v_perm_b32), one instruction per pair instead of three (f16) or
 * about eight (bf16); F->bias cancels the truncation's mean error. The perm is the intrinsic,
 * not a shuffle of the halves: the shuffle's combines with the building of P's vector moved the
 * loads of the block pair's first block late in it (gfx942, bf16 head 128: 72.8 % of the matrix
 * pipe by llvm-mca against f16's 76.5 %, which the intrinsic matches). */
static LLVMValueRef fl_pack(flash *F, LLVMValueRef e0, LLVMValueRef e1) {
  att *A = F->A;
  cg_builder *cb = A->cb;
  LLVMBuilderRef bl = A->b;
  LLVMValueRef x = LLVMGetUndef(LLVMVectorType(cb->f32, 2));
  x = LLVMBuildInsertElement(bl, x, e0, i32c(A, 0), "");
  x = LLVMBuildInsertElement(bl, x, e1, i32c(A, 1), "");
  if (F->mm.in == ET_F32)
    return x;
  bool f16 = F->mm.in == ET_F16;
  if (cb->target->info->cvt_pk_rne) {
    LLVMValueRef r = LLVMBuildFPTrunc(bl, x, LLVMVectorType(f16 ? cb->f16 : cb->bf16, 2), "");
    return f16 ? r : LLVMBuildBitCast(bl, r, LLVMVectorType(cb->i16, 2), "");
  }
  if (f16) {
    LLVMValueRef args[2] = {e0, e1};
    return cg_intrinsic(cb, "llvm.amdgcn.cvt.pkrtz", NULL, 0, args, 2);
  }
  /* bytes 2-3 of e0, then bytes 2-3 of e1 (the second operand holds the low bytes) */
  LLVMValueRef args[3] = {LLVMBuildBitCast(bl, e1, cb->i32, ""), LLVMBuildBitCast(bl, e0, cb->i32, ""), i32c(A, 0x07060302)};
  LLVMValueRef r = cg_intrinsic(cb, "llvm.amdgcn.perm", NULL, 0, args, 3);
  return r ? LLVMBuildBitCast(bl, r, LLVMVectorType(cb->i16, 2), "") : NULL;
}

/* O += Vᵀ Pᵀ for the block whose V is in buffer `vbuf` (i32), P from F->p_p. */
typedef LLVMValueRef fl_vfrags[8][FL_MAX_KEYS / 4];

static void fl_all_v_frags(flash *F, LLVMValueRef vbuf, fl_vfrags vf) {
  LLVMValueRef vbase = LLVMBuildMul(F->A->b, vbuf, i32c(F->A, F->nk * F->A->Dv), "");
  for (int n = 0; n < F->A->Dv / 16; n++)
    fl_v_frags(F, vf[n], vbase, n);
}

/* O += Vᵀ Pᵀ from the block's V fragments and P from F->p_p (O and P against the same shift:
 * the slow path of fl_block rescales O when it moves the shift). */
static void fl_update_of(flash *F, fl_vfrags vf) {
  att *A = F->A;
  cg_builder *cb = A->cb;
  LLVMBuilderRef bl = A->b;
  int nb = (int)(A->Dv / 16), npe = F->nk / 4;
  LLVMValueRef p[FL_MAX_KEYS / 4];
  LLVMValueRef pv = cg_load(cb, LLVMGetAllocatedType(F->p_p), F->p_p, 16);
  for (int f = 0; f < npe; f++)
    p[f] = LLVMBuildExtractElement(bl, pv, i32c(A, f), "");
  for (int n = 0; n < nb; n++) {
    LLVMValueRef idx[2] = {i32c(A, 0), i32c(A, n)};
    LLVMValueRef op = LLVMBuildInBoundsGEP2(bl, F->o_t, F->o_p, idx, 2, "");
    cg_store(cb, fl_pv(F, cg_load(cb, F->acc_t, op, 16), p, vf[n]), op, 16);
  }
}

static void fl_update(flash *F, LLVMValueRef vbuf) {
  fl_vfrags vf;
  fl_all_v_frags(F, vbuf, vf);
  fl_update_of(F, vf);
}

static void fl_group(flash *F, int mask, int n) {
  LLVMValueRef a[3] = {i32c(F->A, mask), i32c(F->A, n), i32c(F->A, 0)};
  cg_intrinsic(F->A->cb, "llvm.amdgcn.sched.group.barrier", NULL, 0, a, 3);
}

/* Where the matrix pipe covers the other instructions, the MFMAs are spread over the block one
 * at a time, each followed by one VALU and one LDS read instruction: issued back to back after
 * the softmax, they would stall the issue for their pipe time. Where the issue bounds the
 * block, forcing such groups measured worse: only the K fragment reads go first (the first
 * MFMAs wait for them once instead of the reads trickling in beside the MFMAs, each with its
 * own wait), the scheduler orders the rest. */
static void fl_interleave(flash *F) {
  int64_t m = (F->dp + F->A->Dv) / F->mm.k;
  if (fl_issue_bound(F)) {
    fl_group(F, 0x100, (int)(F->nk / 16 * F->dp / F->mm.k)); /* K fragment reads */
    return;
  }
  /* the fast path's VALU, about 10 per 16-key tile (fl_probs: 2 packed multiply-adds, 4 exp, 2
   * conversions, 2 packed adds), spread evenly over the MFMAs: a VALU group per MFMA where
   * there are fewer would leave the last MFMAs back to back, their accumulators' chains
   * stalling the issue */
  int64_t groups = m * (F->nk / 16), valu = 10 * (F->nk / 16);
  fl_group(F, 0x100, 2); /* the first fragments */
  for (int64_t i = 0; i < groups; i++) {
    fl_group(F, 0x8, 1); /* MFMA */
    int64_t nv = valu >= groups ? 1 : (i + 1) * valu / groups - i * valu / groups;
    if (nv)
      fl_group(F, 0x2 | 0x400, (int)nv); /* VALU, transcendental */
    fl_group(F, 0x100, 1); /* LDS read */
  }
}

/* The largest P the fast path of fl_block lets through: a power of two within P's type (f16
 * 65504, E4M3FNUZ 240, E4M3FN 448, E5M2 and E5M2FNUZ 57344), so no P overflows it, and for
 * f32 and bf16 (f32's range) one that keeps O and l far from f32's overflow. */
static double fl_bound(flash *F) {
  switch (F->mm.in) {
  case ET_F8E4M3FNUZ: return 0x1p7;
  case ET_F8E4M3FN: return 0x1p8;
  case ET_F16: case ET_F8E5M2: case ET_F8E5M2FNUZ: return 0x1p15;
  default: return 0x1p32;
  }
}

/* The exponent's addend bias - k for the shift k, and k for the addend (the same operation). */
static LLVMValueRef fl_addend(flash *F, LLVMValueRef k) {
  LLVMBuilderRef bl = F->A->b;
  return F->bias ? LLVMBuildFSub(bl, f32c(F->A, F->bias), k, "") : LLVMBuildFNeg(bl, k, "");
}

/* P = 2^(c·x + nms) (nms = bias - k, fl_addend) for the block's scores x (pairs through v_pk_fma_f32) as the fragment
 * elements *pv, and the lane's sum of the f32 probabilities *sum (pairs through v_pk_add_f32). */
static bool fl_probs(flash *F, LLVMValueRef const *x, LLVMValueRef nms, LLVMValueRef *pvo, LLVMValueRef *sumo) {
  att *A = F->A;
  cg_builder *cb = A->cb;
  LLVMBuilderRef bl = A->b;
  LLVMTypeRef v2 = LLVMVectorType(cb->f32, 2);
  LLVMValueRef c = f32c(A, F->scale);
  LLVMValueRef sum2 = LLVMConstNull(v2);
  LLVMValueRef c2 = LLVMGetUndef(v2), n2 = LLVMGetUndef(v2), x2 = LLVMGetUndef(v2), e2 = LLVMGetUndef(v2);
  LLVMValueRef pv = LLVMGetUndef(LLVMGetAllocatedType(F->p_p)), w = NULL, dsum = f32c(A, 0);
  for (int h = 0; h < 2; h++) {
    c2 = LLVMBuildInsertElement(bl, c2, c, i32c(A, h), "");
    n2 = LLVMBuildInsertElement(bl, n2, nms, i32c(A, h), "");
  }
  for (int f = 0; f < F->nk / 4; f += 2) {
    for (int h = 0; h < 2; h++)
      x2 = LLVMBuildInsertElement(bl, x2, x[f + h], i32c(A, h), "");
    LLVMValueRef fa[3] = {x2, c2, n2};
    LLVMValueRef y = cg_intrinsic(cb, "llvm.fma", &v2, 1, fa, 3), e[2];
    for (int h = 0; h < 2; h++) {
      e[h] = y ? fl_exp2(A, LLVMBuildExtractElement(bl, y, i32c(A, h), "")) : NULL;
      if (!e[h])
        return false;
      e2 = LLVMBuildInsertElement(bl, e2, e[h], i32c(A, h), "");
    }
    if (F->f8) { /* four probabilities per dword of fp8 bytes */
      if (!(w = fl_f8_pack(F, f % 4 ? w : NULL, e[0], e[1], f % 4 != 0)))
        return false;
      pv = f % 4 ? fl_f8_put(F, pv, w, f - 2) : pv;
    } else {
      LLVMValueRef pk = fl_pack(F, e[0], e[1]);
      if (!pk)
        return false;
      for (int h = 0; h < 2; h++)
        pv = LLVMBuildInsertElement(bl, pv, LLVMBuildExtractElement(bl, pk, i32c(A, h), ""), i32c(A, f + h), "");
      if (F->dot) { /* the pair's sum as the MFMA takes it: a dot with (1, 1) */
        LLVMTypeRef et = F->mm.in == ET_F16 ? cb->f16 : cb->bf16;
        LLVMValueRef one = LLVMConstReal(et, 1.0), ones[2] = {one, one};
        LLVMValueRef da[4] = {LLVMBuildBitCast(bl, pk, LLVMVectorType(et, 2), ""), LLVMConstVector(ones, 2), dsum,
                              LLVMConstInt(LLVMInt1TypeInContext(cb->ctx), 0, 0)};
        if (!(dsum = cg_intrinsic(cb, F->dot->intrinsic, NULL, 0, da, 4)))
          return false;
        continue;
      }
    }
    sum2 = LLVMBuildFAdd(bl, sum2, e2, "");
  }
  *pvo = pv;
  if (F->dot) {
    *sumo = dsum;
    return true;
  }
  *sumo = LLVMBuildFAdd(bl, LLVMBuildExtractElement(bl, sum2, i32c(A, 0), ""),
                        LLVMBuildExtractElement(bl, sum2, i32c(A, 1), ""), "");
  return true;
}

/* Marks a conditional branch's true side as rare (branch weights): LLVM lays it out of line. */
static void fl_unlikely(flash *F, LLVMValueRef br) {
  cg_builder *cb = F->A->cb;
  LLVMTypeRef i32 = cb->i32;
  LLVMMetadataRef w[3] = {LLVMMDStringInContext2(cb->ctx, "branch_weights", 14),
                          LLVMValueAsMetadata(LLVMConstInt(i32, 1, 0)),
                          LLVMValueAsMetadata(LLVMConstInt(i32, 1 << 20, 0))};
  LLVMSetMetadata(br, LLVMGetMDKindIDInContext(cb->ctx, "prof", 4),
                  LLVMMetadataAsValue(cb->ctx, LLVMMDNodeInContext2(cb->ctx, w, 3)));
}

/* One block of keys at t0 (iteration t): K_t+1 and V_t-1 are in buffers (t + 1) % 2, S_t in
 * registers, P_t-1 in F->p_p (against the row's shift F->m_p, as O and l are); keys from
 * F->kend on are masked when `masked`. par: t % 2 as a constant (the unrolled loop: the
 * buffers' LDS offsets become immediates), or NULL (from F->par_p, which the block advances). clamp false: the loads' keys
 * are below L. The block's matrix work, S_t+1 = K_t+1 Qᵀ and O += V_t-1 P_t-1, depends on
 * nothing of its softmax (of S_t), so the two overlap. */
static bool fl_block(flash *F, LLVMValueRef t0, bool masked, LLVMValueRef par, bool clamp) {
  att *A = F->A;
  cg_builder *cb = A->cb;
  LLVMBuilderRef bl = A->b;
  int nj = F->nk / 16, npe = F->nk / 4;
  LLVMValueRef one = i32c(A, 1);
  fl_stage st;
  bool carried = !par;
  if (carried)
    par = cg_load(cb, cb->i32, F->par_p, 4);
  /* par ^ 1, not 1 - par: (1 - par)·size becomes size - par·size, a negative LDS base with the
   * size in the instruction's offset, which an out-of-range check on the 64-bit sum rejects */
  LLVMValueRef other = LLVMBuildXor(bl, par, one, "");
  /* K_t+2 and V_t, loaded during the previous iteration, go to the buffers that K_t and V_t-2
   * left (every wave passed the last barrier); the loads of K_t+3 and V_t+1 then have a whole
   * iteration before they are needed, so no wait for global memory falls in the loop */
  fl_stage held;
  /* where the issue bounds the 16-bit loop, the K fragments of the block's first step are read
   * before the block's LDS writes (a scheduling barrier that nothing crosses keeps them there):
   * the LDS counter counts reads and writes in order, so the first MFMAs then wait for their
   * fragments only, not for the writes too. Measured better by llvm-mca */
  LLVMValueRef kf[FL_MAX_KFRAGS], s_next;
  int pre = fl_issue_bound(F) && !F->f8 ? F->nk / 16 : 0;
  if (pre) {
    for (int j = 0; j < pre; j++)
      kf[j] = fl_k_frag(F, other, 0, j);
    LLVMValueRef z = i32c(A, 0);
    cg_intrinsic(cb, "llvm.amdgcn.sched.barrier", NULL, 0, &z, 1);
  }
  if (fl_issue_bound(F)) {
    /* one wait for all of them (s_waitcnt vmcnt(0), gfx9's encoding: expcnt 7 and lgkmcnt at
     * its largest leave those counters alone): LLVM waits before each write for its own load,
     * one instruction per chunk where the issue bounds the loop */
    LLVMValueRef w = i32c(A, 0x70 | cb->target->info->lgkm_max << 8);
    cg_intrinsic(cb, "llvm.amdgcn.s.waitcnt", NULL, 0, &w, 1);
  }
  fl_stage_load(F, &held, NULL, t0, t0, true); /* the chunks' LDS places only */
  fl_hold(F, &held, false);
  fl_stage_store(F, &held, par, par);
  /* no LDS write below and no global load above this point: the loads then reuse the held
   * registers (no copies on the back edge); arithmetic, MFMA and LDS reads move freely */
  LLVMValueRef mask = i32c(A, 0x1 | 0x2 | 0x4 | 0x8 | 0x100 | 0x400);
  cg_intrinsic(cb, "llvm.amdgcn.sched.barrier", NULL, 0, &mask, 1);
  LLVMValueRef tk = LLVMBuildAdd(bl, t0, ic(A, 3 * F->nk), ""), tv = LLVMBuildAdd(bl, t0, ic(A, F->nk), "");
  fl_stage_load(F, &st, F->b, tk, tv, clamp);
  fl_hold(F, &st, true);
  /* the loads stay at the block's start: a whole block passes before their data is written */
  LLVMValueRef late = i32c(A, 0x1 | 0x2 | 0x4 | 0x8 | 0x80 | 0x100 | 0x200 | 0x400);
  cg_intrinsic(cb, "llvm.amdgcn.sched.barrier", NULL, 0, &late, 1);
  /* S_t+1 and the previous block's P V; where the issue bounds the block, every fragment read
   * comes before the MFMAs (fl_interleave) */
  if (fl_issue_bound(F)) {
    fl_vfrags vf;
    if (pre) { /* the other steps' */
      int i = pre;
      for (int64_t kk = F->mm.k; kk < F->dp; kk += F->mm.k)
        for (int j = 0; j < F->nk / 16; j++)
          kf[i++] = fl_k_frag(F, other, kk, j);
    } else {
      fl_k_frags(F, other, kf);
    }
    fl_all_v_frags(F, other, vf);
    s_next = fl_scores(F, F->qf, other, kf, F->s_t);
    fl_update_of(F, vf);
  } else {
    s_next = fl_scores(F, F->qf, other, NULL, F->s_t);
    fl_update(F, other);
  }
  LLVMValueRef s_cur = cg_load(cb, F->s_t, F->s_p, 16);
  /* x: the score before the log2 scale c (the graph's scale too when folded, F->scale); the
   * max is taken on x (c > 0) and scaled once, the exponent is one multiply-add */
  LLVMValueRef x[FL_MAX_KEYS / 4], c = f32c(A, F->scale), kbase = t0;
  /* the masked block's rows: those of the whole block ending at L where it starts past L - nk
   * (fl_stage_load), the keys before t0 masked as already weighed */
  bool shifted = masked && F->shift;
  if (shifted)
    kbase = LLVMBuildSelect(bl, LLVMBuildICmp(bl, LLVMIntSLT, t0, ic(A, A->L - F->nk), ""), t0,
                            ic(A, A->L - F->nk), "");
  for (int j = 0; j < nj; j++) {
    LLVMValueRef sj = LLVMBuildExtractValue(bl, s_cur, (unsigned)j, "");
    for (int e = 0; e < 4; e++) {
      LLVMValueRef key = LLVMBuildAdd(bl, kbase, LLVMBuildZExt(bl, LLVMBuildAdd(bl, LLVMBuildMul(bl, F->g, i32c(A, 4), ""), i32c(A, 16 * j + e), ""), A->it, ""), "");
      LLVMValueRef kin = masked ? LLVMBuildICmp(bl, LLVMIntSLT, key, F->kend, "") : NULL;
      if (shifted)
        kin = LLVMBuildAnd(bl, kin, LLVMBuildICmp(bl, LLVMIntSGE, key, t0, ""), "");
      LLVMValueRef v = LLVMBuildExtractElement(bl, sj, i32c(A, e), "");
      if (!F->folded) {
        LLVMValueRef co[3] = {F->b, F->qc, LLVMBuildSelect(bl, LLVMBuildICmp(bl, LLVMIntSLT, key, ic(A, A->L), ""), key, ic(A, A->L - 1), "")};
        if (!(v = score_ops(A, v, co)))
          return false;
      }
      x[4 * j + e] = masked ? LLVMBuildSelect(bl, kin, v, f32c(A, -INFINITY), "") : v;
    }
  }
  /* the fast path: P = 2^(c·x - k) against the shift k the row already has (F->m_p), its
   * block sum, and one wave-uniform check that every lane's sum stays within fl_bound (so every
   * P does, representable in P's type; a NaN or inf, as with k = -inf before the first finite
   * key, fails): O, l and k then stay as they are, and the block needs no max, no exchange, no
   * rescale factor and no O rescale */
  LLVMValueRef mo = cg_load(cb, cb->f32, F->m_p, 4), lo = cg_load(cb, cb->f32, F->l_p, 4), pv, sum;
  if (!fl_probs(F, x, F->negk ? mo : fl_addend(F, mo), &pv, &sum))
    return false;
  cg_store(cb, LLVMBuildFAdd(bl, lo, sum, ""), F->l_p, 4);
  cg_store(cb, pv, F->p_p, 16);
  cg_store(cb, s_next, F->s_p, 16);
  if (carried)
    cg_store(cb, other, F->par_p, 4);
  LLVMValueRef fail = LLVMBuildFCmp(bl, LLVMRealUGT, sum, f32c(A, fl_bound(F)), "");
  LLVMTypeRef i64 = LLVMInt64TypeInContext(cb->ctx);
  LLVMValueRef lanes = cg_intrinsic(cb, "llvm.amdgcn.ballot", &i64, 1, &fail, 1);
  if (!lanes)
    return false;
  fl_interleave(F);
  LLVMValueRef none = i32c(A, 0);
  cg_intrinsic(cb, "llvm.amdgcn.sched.barrier", NULL, 0, &none, 1);
  LLVMBasicBlockRef slow = LLVMAppendBasicBlockInContext(cb->ctx, cb->fn, "rescale");
  LLVMBasicBlockRef join = LLVMAppendBasicBlockInContext(cb->ctx, cb->fn, "rescaled");
  LLVMValueRef any = LLVMBuildICmp(bl, LLVMIntNE, lanes, LLVMConstInt(i64, 0, 0), "");
  fl_unlikely(F, LLVMBuildCondBr(bl, any, slow, join));
  /* the slow path, the exact step: the row max over the block and the column, the new
   * shift, alpha = 2^(k_old - k), O and l rescaled by alpha, P recomputed */
  LLVMPositionBuilderAtEnd(bl, slow);
  if (F->negk)
    mo = fl_addend(F, mo); /* the shift */
  LLVMValueRef mloc = f32c(A, -INFINITY);
  for (int f = 0; f < npe; f++)
    mloc = fl_max(A, mloc, x[f]);
  LLVMValueRef mcol = fl_column(F, mloc, true);
  if (!mcol)
    return false;
  LLVMValueRef mn = fl_max(A, mo, LLVMBuildFMul(bl, mcol, c, ""));
  /* with only a scale as score ops every block has a finite score (the partial one too), so
   * the max is finite from the first block on */
  LLVMValueRef ms = F->folded ? mn : finite_max(A, mn), alpha = fl_exp2(A, LLVMBuildFSub(bl, mo, ms, ""));
  if (!alpha || !fl_probs(F, x, fl_addend(F, ms), &pv, &sum))
    return false;
  cg_store(cb, LLVMBuildFAdd(bl, LLVMBuildFMul(bl, lo, alpha, ""), sum, ""), F->l_p, 4);
  cg_store(cb, F->negk ? fl_addend(F, mn) : mn, F->m_p, 4);
  cg_store(cb, pv, F->p_p, 16);
  /* O holds the blocks up to t - 1 (this block's P V included), all against the old shift */
  LLVMValueRef asplat = LLVMGetUndef(F->acc_t);
  for (int e = 0; e < F->mm.nacc; e++)
    asplat = LLVMBuildInsertElement(bl, asplat, alpha, i32c(A, e), "");
  for (int n = 0; n < A->Dv / 16; n++) {
    LLVMValueRef idx[2] = {i32c(A, 0), i32c(A, n)};
    LLVMValueRef op = LLVMBuildInBoundsGEP2(bl, F->o_t, F->o_p, idx, 2, "");
    cg_store(cb, LLVMBuildFMul(bl, cg_load(cb, F->acc_t, op, 16), asplat, ""), op, 16);
  }
  LLVMBuildBr(bl, join);
  LLVMPositionBuilderAtEnd(bl, join);
  cg_barrier(cb); /* the next blocks are in LDS, and these are read by every wave */
  return true;
}

/* The flash kernels' start: the kernel (inputs read-only, outputs write-only) launched as
 * `groups` work-groups of `wg`, with f32 denormals flushed: exp2 is then the bare v_exp_f32 (P
 * below 2^-126 weighs nothing against the row's largest, which is 1), without the rescaling of
 * tiny results. */
void att_flash_begin(att *A, cg_kernel_info *info, int wg, int64_t groups) {
  cg_builder *cb = A->cb;
  const part_kernel *k = A->k;
  int nargs = k->nin + k->nout;
  const char **access = calloc((size_t)nargs + 1, sizeof(char *));
  for (int i = 0; i < nargs; i++)
    access[i] = i < k->nin ? "read_only" : "write_only";
  cg_kernel_begin(cb, k->name, nargs, access, wg);
  const char *dk = "denormal-fp-math-f32", *dv = "preserve-sign,preserve-sign";
  LLVMAddAttributeAtIndex(cb->fn, LLVMAttributeFunctionIndex,
                          LLVMCreateStringAttribute(cb->ctx, dk, (unsigned)strlen(dk), dv, (unsigned)strlen(dv)));
  cg_launch_1d(info, k, wg, groups, groups * wg, 1, access);
  free(access);
}

static bool emit_flash(att *A, flash *F, cg_kernel_info *info, bool partial, int split, int64_t chunk) {
  cg_builder *cb = A->cb;
  LLVMBuilderRef bl = A->b;
  const part_kernel *k = A->k;
  /* where the issue bounds the loop, a block of 128 keys halves the per-block work per key again
   * (the barrier, the rescale check and its branch, the waits between the block's reads and
   * MFMAs): taken for 512 keys or more (512 to 639: four blocks and maybe a partial one, two
   * capped pairs) while one work-group's buffers fit the LDS (head size 128: 128 KiB of
   * gfx950's 160 KiB, one work-group per CU and one wave per SIMD, measured faster by the loop's issue than two work-groups of 64-key blocks,
   * docs/kernels-attention.md) */
  int64_t row_bytes = 2 * (F->dp + A->Dv) * fl_bytes(F);
  bool mid = false; /* 128-key blocks in a chunk of 5 to 7 of them */
  if (F->nk == FL_BLOCK_KEYS && chunk >= 4 * FL_MAX_KEYS &&
      FL_MAX_KEYS * row_bytes <= cb->target->info->lds_bytes && fl_issue_bound(F)) {
    F->nk = FL_MAX_KEYS;
    mid = chunk < 8 * FL_MAX_KEYS;
    /* the staging's chunks per lane double (element loads where the operand is not contiguous) */
    if (fl_chunks(F, A->D, F->vk) > FL_MAX_CHUNKS || fl_chunks(F, A->Dv, F->vv) > FL_MAX_CHUNKS)
      F->nk = FL_BLOCK_KEYS, mid = false;
  }
  /* fewer than five whole blocks and a partial one: every block's loads stay whole (the partial
   * block reads the whole one ending at L, its keys before it masked), so its pairs run capped
   * instead of clamped; longer sequences keep the partial block's clamped rows (the single-block
   * loop's scalar mins measured worse there) */
  F->shift = A->L > F->nk && A->L % F->nk && A->L / F->nk < 5;
  gemm_mma *mm = &F->mm;
  int nb = (int)(A->Dv / 16), nj = F->nk / 16, kl = mm->kl;
  F->ft = mm->in == ET_F16 ? cb->f16 : mm->in == ET_BF16 ? cb->i16 : F->f8 ? cb->i8 : cb->f32;
  int rows = 16 * F->waves, wg = 64 * F->waves;
  int64_t row_blocks = (A->S + rows - 1) / rows, groups = split * A->B * row_blocks;
  att_flash_begin(A, info, wg, groups);
  /* the issue-bound head-64 loops (the softmax most of their issue) take LLVM's ILP scheduling
   * strategy: it spreads the softmax over the MFMAs better than the default, which schedules
   * for occupancy (the fp8 loop stays within two waves per SIMD; gfx950's 16-bit loop drops to
   * one, which its issue model still rates faster). Measured by llvm-mca
   * (docs/kernels-attention.md); head 128 measured worse or no better */
  if (fl_issue_bound(F) && F->dp + A->Dv <= 128) {
    const char *sk = "amdgpu-sched-strategy", *sv = "max-ilp";
    LLVMAddAttributeAtIndex(cb->fn, LLVMAttributeFunctionIndex,
                            LLVMCreateStringAttribute(cb->ctx, sk, (unsigned)strlen(sk), sv, (unsigned)strlen(sv)));
  }
  F->kb = lds_arr(A, "k", F->ft, 2 * F->nk * F->dp);
  F->vb = lds_arr(A, "v", F->ft, 2 * F->nk * A->Dv);
  LLVMTypeRef acc_t = gemm_mma_acc_type(cb, mm), o_t = LLVMArrayType2(acc_t, (uint64_t)nb);
  LLVMValueRef o_p = LLVMBuildAlloca(bl, o_t, "o"), m_p = LLVMBuildAlloca(bl, cb->f32, "m");
  LLVMValueRef l_p = LLVMBuildAlloca(bl, cb->f32, "l"), par_p = LLVMBuildAlloca(bl, cb->i32, "parity");
  LLVMValueRef flat = cg_thread_id_x(cb), gid32 = cg_group_id_x(cb);
  if (!flat || !gid32)
    return false;
  F->flat = flat;
  LLVMValueRef lane = LLVMBuildURem(bl, flat, i32c(A, 64), "lane"), wave = LLVMBuildUDiv(bl, flat, i32c(A, 64), "wave");
  F->g = LLVMBuildUDiv(bl, lane, i32c(A, 16), "g"), F->col = LLVMBuildURem(bl, lane, i32c(A, 16), "col");
  F->x16 = LLVMBuildShl(bl, LLVMBuildXor(bl, lane, i32c(A, 16), ""), i32c(A, 2), "");
  F->x32 = LLVMBuildShl(bl, LLVMBuildXor(bl, lane, i32c(A, 32), ""), i32c(A, 2), "");
  LLVMValueRef gid = LLVMBuildZExt(bl, gid32, A->it, "");
  LLVMValueRef part = LLVMBuildSDiv(bl, gid, ic(A, A->B * row_blocks), "part");
  gid = LLVMBuildSRem(bl, gid, ic(A, A->B * row_blocks), "");
  LLVMValueRef b = LLVMBuildSDiv(bl, gid, ic(A, row_blocks), "b");
  LLVMValueRef q = LLVMBuildMul(bl, LLVMBuildSRem(bl, gid, ic(A, row_blocks), ""), ic(A, rows), "");
  q = LLVMBuildAdd(bl, q, LLVMBuildZExt(bl, LLVMBuildAdd(bl, LLVMBuildMul(bl, wave, i32c(A, 16), ""), F->col, ""), A->it, ""), "q");
  LLVMValueRef live = LLVMBuildICmp(bl, LLVMIntSLT, q, ic(A, A->S), "live");
  LLVMValueRef qc = LLVMBuildSelect(bl, live, q, ic(A, A->S - 1), "qc");
  LLVMValueRef kstart = LLVMBuildMul(bl, part, ic(A, chunk), "kstart");
  LLVMValueRef kend = LLVMBuildAdd(bl, kstart, ic(A, chunk), "");
  kend = LLVMBuildSelect(bl, LLVMBuildICmp(bl, LLVMIntSLT, kend, ic(A, A->L), ""), kend, ic(A, A->L), "kend");
  kend =
      causal_end(A, kstart, kend,
                 LLVMBuildMul(bl, LLVMBuildSRem(bl, gid, ic(A, row_blocks), ""),
                              ic(A, rows), ""),
                 rows);
  /* Q as B fragments: column q, k = s·K + 4g-ish lane offset + e */
  LLVMValueRef qf[64];
  LLVMValueRef kofs = LLVMBuildMul(bl, F->g, i32c(A, kl), "");
  for (int s = 0; s < F->dp / mm->k; s++) {
    qf[s] = LLVMGetUndef(LLVMVectorType(F->ft, (unsigned)kl));
    for (int e = 0; e < kl; e++) {
      LLVMValueRef d = LLVMBuildZExt(bl, LLVMBuildAdd(bl, kofs, i32c(A, s * mm->k + e), ""), A->it, "");
      LLVMValueRef din = LLVMBuildICmp(bl, LLVMIntSLT, d, ic(A, A->D), "");
      LLVMValueRef co[3] = {b, qc, LLVMBuildSelect(bl, din, d, ic(A, A->D - 1), "")};
      LLVMValueRef x = F->f8 ? fl_f8_q(F, co, din)
                             : LLVMBuildSelect(bl, din, load_operand(A, A->q, co), f32c(A, 0), "");
      qf[s] = LLVMBuildInsertElement(bl, qf[s], F->f8 ? x : to_frag(A, &F->mm, x), i32c(A, e), "");
    }
  }
  fl_zero_pad(F);
  cg_store(cb, LLVMConstNull(o_t), o_p, 16);
  /* the fp8 loop with the least matrix work per tile (head size 64) carries the addend instead
   * of the shift: one negation less per block, and LLVM's schedule of the block measured better
   * for it (docs/kernels-attention.md); the other loops measured better with the shift */
  F->negk = F->f8 && F->dp + A->Dv <= 128;
  cg_store(cb, f32c(A, F->negk ? INFINITY : -INFINITY), m_p, 4);
  cg_store(cb, f32c(A, 0), l_p, 4);
  cg_store(cb, i32c(A, 0), par_p, 4);
  LLVMTypeRef s_t = LLVMArrayType2(acc_t, (uint64_t)nj);
  LLVMValueRef s_p = LLVMBuildAlloca(bl, s_t, "s");
  LLVMValueRef zero = i32c(A, 0), one = i32c(A, 1);
  fl_stage st;
  /* K_0 and K_1 in LDS, K_2 and V_0 in registers; the first block's P V (of a block -1) is
   * that of P = 0 and V = 0 in V buffer 1 */
  fl_stage_load(F, &st, b, kstart, NULL, true);
  fl_stage_store(F, &st, zero, zero);
  fl_stage_load(F, &st, b, LLVMBuildAdd(bl, kstart, ic(A, F->nk), ""), NULL, true);
  fl_stage_store(F, &st, one, zero);
  fl_zero_v(F);
  fl_stage_load(F, &st, b, LLVMBuildAdd(bl, kstart, ic(A, 2 * F->nk), ""), kstart, true);
  LLVMTypeRef held_e[2 * FL_MAX_CHUNKS];
  for (int i = 0; i < st.nk + st.nv; i++)
    held_e[i] = LLVMTypeOf(i < st.nk ? st.k[i] : st.v[i - st.nk]);
  LLVMTypeRef held_t = LLVMStructTypeInContext(cb->ctx, held_e, (unsigned)(st.nk + st.nv), 0);
  F->held_p = LLVMBuildAlloca(bl, held_t, "held");
  fl_hold(F, &st, true);
  cg_barrier(cb);
  cg_store(cb, fl_scores(F, qf, zero, NULL, s_t), s_p, 16);
  cg_barrier(cb); /* block 0's keys are read before block 2's overwrite them */

  F->b = b, F->qc = qc, F->kend = kend, F->qf = qf, F->acc_t = acc_t, F->o_t = o_t, F->s_t = s_t;
  F->s_p = s_p, F->m_p = m_p, F->l_p = l_p, F->o_p = o_p, F->par_p = par_p;
  F->p_p = LLVMBuildAlloca(bl, LLVMVectorType(F->ft, (unsigned)(F->nk / 4)), "p");
  cg_store(cb, LLVMConstNull(LLVMGetAllocatedType(F->p_p)), F->p_p, 16);
  /* full blocks without the key bound, then the last partial block with it. The full blocks
   * go in pairs first (parity 0 then 1: constant LDS offsets, and the scores alternate between
   * two sets of registers instead of being copied on the back edge), while the pair's loads
   * (keys up to t0 + 5·nk) stay below L without clamping; the rest one block at a time. */
  LLVMValueRef span = LLVMBuildSub(bl, kend, kstart, "");
  LLVMValueRef nfull = LLVMBuildSDiv(bl, span, ic(A, F->nk), "");
  LLVMValueRef kfull = LLVMBuildAdd(bl, kstart, LLVMBuildMul(bl, nfull, ic(A, F->nk), ""), "kfull");
  /* element loads clamp their keys anyway. Unclamped pairs run while their loads (keys up to
   * t0 + 5·nk) stay below L, or, in a chunk of fewer than 5 blocks, capped: a load of a block
   * past the keys reads the last whole block instead (three scalar mins per pair, no lane's
   * address). A partial last block the work-group weighs past L - nk is read capped only with
   * F->shift (its keys before it masked); otherwise its pairs stop before their loads reach it */
  int64_t lf = A->L / F->nk * F->nk; /* the partial block's first key, or L */
  bool clamp = !F->kstride || !F->vstride;
  LLVMValueRef npair = nfull, ncap = nfull;
  if (!clamp) {
    LLVMValueRef room = LLVMBuildSub(bl, LLVMBuildSDiv(bl, LLVMBuildSub(bl, ic(A, A->L), kstart, ""), ic(A, F->nk), ""), ic(A, 3), "");
    npair = LLVMBuildSelect(bl, LLVMBuildICmp(bl, LLVMIntSLT, room, nfull, ""), room, nfull, "");
    npair = LLVMBuildSelect(bl, LLVMBuildICmp(bl, LLVMIntSLT, npair, ic(A, 0), ""), ic(A, 0), npair, "");
    if (!F->shift) {
      /* the partial block (a chunk's need not start at a multiple of nk) is weighed and its
       * rows pass L - nk: the cap would move them */
      LLVMValueRef past = LLVMBuildICmp(bl, LLVMIntSGT, kfull, ic(A, A->L - F->nk), "");
      LLVMValueRef moved = LLVMBuildAnd(bl, LLVMBuildICmp(bl, LLVMIntSLT, kfull, kend, ""), past, "");
      ncap = LLVMBuildSelect(bl, moved, npair, nfull, "");
    }
  }
  npair = LLVMBuildSDiv(bl, npair, ic(A, 2), "npair");
  ncap = LLVMBuildSDiv(bl, ncap, ic(A, 2), "ncap");
  LLVMValueRef kpair = LLVMBuildAdd(bl, kstart, LLVMBuildMul(bl, npair, ic(A, 2 * F->nk), ""), "kpair");
  LLVMValueRef kcap =
      LLVMBuildAdd(bl, kstart, LLVMBuildMul(bl, ncap, ic(A, 2 * F->nk), ""), "kcap");
  /* no pair loop where none can run (short sequences). A chunk of fewer than 5 blocks runs its
   * unclamped pairs capped (the first loop would take none of them near L); a longer one runs
   * the first loop only, its last pairs one block at a time: a capped loop after it measured
   * a worse schedule of the first loop, which holds most of the blocks. Five to seven whole
   * 128-key blocks and no partial one run capped too: the first loop would take one pair of
   * them, the single-block loop the rest (a partial block stops the capped pairs as early as
   * the first loop's, whose schedule measured better) */
  bool paired = chunk / F->nk >= 2, shortc = chunk / F->nk < 5 || (mid && lf == A->L);
  bool first = paired && (clamp || !shortc);
  if (first) {
    cg_loop pairs = cg_loop_begin(cb, kstart, kpair, "pairs");
    if (!fl_block(F, pairs.iv, false, zero, clamp) ||
        !fl_block(F, LLVMBuildAdd(bl, pairs.iv, ic(A, F->nk), ""), false, one, clamp))
      return false;
    cg_loop_end(cb, &pairs, 2 * F->nk);
  } else {
    kpair = kstart;
  }
  if (paired && !clamp && shortc) {
    /* a block starting past L - nk is one these pairs never weigh (kcap keeps them off a
     * partial last block they weigh): its loads read the last whole block instead, so every
     * address stays inside the operand's own rows. The pair's capped offsets (the first
     * block's V, block t0 + nk, is a full one) are three scalar mins at its start: computed
     * next to the loads, they measured a stall of the loads on them */
    cg_loop pairs = cg_loop_begin(cb, kpair, kcap, "pairs_capped");
    LLVMValueRef t32 = LLVMBuildTrunc(bl, pairs.iv, cb->i32, ""), ck[2], cv;
    for (int i = 0; i < 3; i++) {
      int64_t stride = (i < 2 ? F->kstride : F->vstride) * fl_bytes(F);
      LLVMValueRef key = LLVMBuildAdd(bl, t32, i32c(A, (i < 2 ? 3 + i : 2) * F->nk), "");
      LLVMValueRef so = LLVMBuildMul(bl, key, i32c(A, stride), "");
      LLVMValueRef last = i32c(A, (A->L - F->nk) * stride);
      so = LLVMBuildSelect(bl, LLVMBuildICmp(bl, LLVMIntULT, so, last, ""), so, last, "");
      if (i < 2)
        ck[i] = so;
      else
        cv = so;
    }
    F->cap_k = ck[0];
    if (!fl_block(F, pairs.iv, false, zero, false))
      return false;
    F->cap_k = ck[1], F->cap_v = cv;
    if (!fl_block(F, LLVMBuildAdd(bl, pairs.iv, ic(A, F->nk), ""), false, one, false))
      return false;
    cg_loop_end(cb, &pairs, 2 * F->nk);
    F->cap_k = F->cap_v = NULL;
    kpair = kcap;
  }
  cg_loop tiles = cg_loop_begin(cb, kpair, kfull, "blocks");
  if (!fl_block(F, tiles.iv, false, NULL, true))
    return false;
  cg_loop_end(cb, &tiles, F->nk);
  LLVMBasicBlockRef tail = LLVMAppendBasicBlockInContext(cb->ctx, cb->fn, "tail");
  LLVMBasicBlockRef done = LLVMAppendBasicBlockInContext(cb->ctx, cb->fn, "tail_done");
  LLVMBuildCondBr(bl, LLVMBuildICmp(bl, LLVMIntSLT, kfull, kend, ""), tail, done);
  LLVMPositionBuilderAtEnd(bl, tail);
  if (!fl_block(F, kfull, true, NULL, true))
    return false;
  LLVMBuildBr(bl, done);
  LLVMPositionBuilderAtEnd(bl, done);
  /* the last block's P V: its V is in the buffer before the parity's */
  fl_update(F, LLVMBuildXor(bl, cg_load(cb, cb->i32, par_p, 4), one, ""));

  LLVMValueRef l = fl_column(F, cg_load(cb, cb->f32, l_p, 4), false);
  if (!l)
    return false;
  keep_accumulators(cb, mm, o_t, o_p, nb);
  LLVMBasicBlockRef store = LLVMAppendBasicBlockInContext(cb->ctx, cb->fn, "store");
  LLVMBasicBlockRef exit = LLVMAppendBasicBlockInContext(cb->ctx, cb->fn, "exit");
  LLVMBuildCondBr(bl, live, store, exit);
  LLVMPositionBuilderAtEnd(bl, store);
  const value *from = result_value(A), *out = k->out_vals[0];
  LLVMTypeRef mt = cg_mem_type(cb, out->type->elem);
  LLVMValueRef dst = LLVMGetParam(cb->fn, (unsigned)k->nin);
  LLVMValueRef inv = LLVMBuildFDiv(bl, f32c(A, 1), l, "inv");
  /* split-KV: the unnormalised row, m (natural log domain) and l into [P, B, S, Dv + 2] */
  LLVMValueRef wrow = LLVMBuildMul(bl, LLVMBuildAdd(bl, LLVMBuildMul(bl, LLVMBuildAdd(bl, LLVMBuildMul(bl, part, ic(A, A->B), ""), b, ""), ic(A, A->S), ""), q, ""), ic(A, A->Dv + 2), "");
  for (int n = 0; n < nb; n++) {
    LLVMValueRef idx[2] = {i32c(A, 0), i32c(A, n)};
    LLVMValueRef o = cg_load(cb, acc_t, LLVMBuildInBoundsGEP2(bl, o_t, o_p, idx, 2, ""), 16);
    for (int e = 0; e < mm->nacc; e++) {
      LLVMValueRef dv = LLVMBuildZExt(bl, LLVMBuildAdd(bl, LLVMBuildMul(bl, F->g, i32c(A, 4), ""), i32c(A, 16 * n + e), ""), A->it, "");
      LLVMValueRef xv = LLVMBuildExtractElement(bl, o, i32c(A, e), "");
      if (partial) {
        LLVMValueRef off = LLVMBuildAdd(bl, wrow, dv, "");
        cg_store(cb, xv, LLVMBuildInBoundsGEP2(bl, cb->f32, dst, &off, 1, ""), 4);
        continue;
      }
      LLVMValueRef co[3] = {b, q, dv};
      LLVMValueRef off = write_offset(A, from, co);
      cg_store(cb, from_f32(A, LLVMBuildFMul(bl, xv, inv, ""), out->type->elem), LLVMBuildInBoundsGEP2(bl, mt, dst, &off, 1, ""),
               (unsigned)elem_type_bytes(out->type->elem));
    }
  }
  if (partial) {
    LLVMValueRef mk = cg_load(cb, cb->f32, m_p, 4);
    LLVMValueRef st2[2] = {LLVMBuildFMul(bl, F->negk ? fl_addend(F, mk) : mk, f32c(A, 0.6931471805599453), ""), l};
    for (int i = 0; i < 2; i++) {
      LLVMValueRef off = LLVMBuildAdd(bl, wrow, ic(A, A->Dv + i), "");
      cg_store(cb, st2[i], LLVMBuildInBoundsGEP2(bl, cb->f32, dst, &off, 1, ""), 4);
    }
  }
  LLVMBuildBr(bl, exit);
  LLVMPositionBuilderAtEnd(bl, exit);
  LLVMBuildRetVoid(bl);
  if (partial)
    snprintf(info->tuning, sizeof info->tuning, "{\"block_rows\":%d,\"block_keys\":%d,\"split_kv\":%d,\"chunk\":%lld}", rows,
             F->nk, split, (long long)chunk);
  else
    snprintf(info->tuning, sizeof info->tuning, "{\"block_rows\":%d,\"block_keys\":%d}", rows, F->nk);
  snprintf(info->matrix_instruction, sizeof info->matrix_instruction, "%s", mm->name);
  add_problem(A, info);
  return !cb->failed;
}

bool cg_emit_attention(cg_builder *cb, const graph *g, const partition_plan *p, const part_kernel *k,
                       cg_kernel_info *info) {
  (void)p;
  att A = {.cb = cb, .b = cb->b, .g = g, .k = k};
  if (!find_parts(&A)) {
    diag_error(cb->diag, k->anchor ? k->anchor->loc : (src_loc){0}, "kernel '%s': not an attention pattern", k->name);
    cb->failed = true;
    return false;
  }
  A.it = cg_anchor_index_type(cb, k);
  if (k->role == KR_COMBINE)
    return emit_combine(&A, info);
  bool partial = k->role == KR_PARTIAL || k->role == KR_FIXUP;
  int split = partial ? k->split_count : 1;
  int64_t chunk = partial ? cg_attention_chunk(A.L, split) : A.L;
  if (cg_att_decode_fits(&A))
    return cg_att_emit_decode(&A, info, partial, split, chunk);
  if (k->role == KR_FIXUP) { /* only the decode kernel merges in its last work-group */
    diag_error(cb->diag, k->anchor->loc, "internal error: kernel '%s' is no decode attention", k->name);
    cb->failed = true;
    return false;
  }
  flash F = {.A = &A};
  if (flash_choice(&A, &F))
    return emit_flash(&A, &F, info, partial, split, chunk);
  if (!partial && att_wmma_fits(&A))
    return att_wmma_emit(&A, info);
  att_mma M = {0};
  if (!partial && mma_choice(&A, &M.mm) && !getenv("TOSAC_ATTENTION_FMA"))
    return emit_mma(&A, &M, info); /* split-KV partials take the portable kernel (few rows) */
  int nargs = k->nin + k->nout;
  const char **access = calloc((size_t)nargs + 1, sizeof(char *));
  for (int i = 0; i < nargs; i++)
    access[i] = i < k->nin ? "read_only" : "write_only";
  cg_kernel_begin(cb, k->name, nargs, access, ATT_ROWS);
  int64_t row_blocks = (A.S + ATT_ROWS - 1) / ATT_ROWS;
  cg_launch_1d(info, k, ATT_ROWS, split * A.B * row_blocks, split * A.B * A.S, 1, access);
  free(access);
  LLVMBuilderRef bl = cb->b;
  char name[96];
  snprintf(name, sizeof name, "%s.k_tile", k->name);
  A.lds_k = cg_lds_alloc(cb, name, LLVMArrayType2(cb->f32, (uint64_t)(ATT_KEYS * A.D)), 16);
  snprintf(name, sizeof name, "%s.v_tile", k->name);
  A.lds_v = cg_lds_alloc(cb, name, LLVMArrayType2(cb->f32, (uint64_t)(ATT_KEYS * A.Dv)), 16);
  LLVMTypeRef acc_t = LLVMArrayType2(cb->f32, (uint64_t)A.Dv);
  LLVMValueRef m_p = LLVMBuildAlloca(bl, cb->f32, "m");
  LLVMValueRef l_p = LLVMBuildAlloca(bl, cb->f32, "l");
  LLVMValueRef acc_p = LLVMBuildAlloca(bl, acc_t, "acc");
  LLVMValueRef tid32 = cg_thread_id_x(cb), gid32 = cg_group_id_x(cb);
  if (!tid32 || !gid32)
    return false;
  LLVMValueRef tid = LLVMBuildZExt(bl, tid32, A.it, ""), gid = LLVMBuildZExt(bl, gid32, A.it, "");
  LLVMValueRef part = LLVMBuildSDiv(bl, gid, ic(&A, A.B * row_blocks), "part");
  gid = LLVMBuildSRem(bl, gid, ic(&A, A.B * row_blocks), "");
  LLVMValueRef kstart = LLVMBuildMul(bl, part, ic(&A, chunk), "kstart");
  LLVMValueRef kend = LLVMBuildAdd(bl, kstart, ic(&A, chunk), "");
  kend = LLVMBuildSelect(bl, LLVMBuildICmp(bl, LLVMIntSLT, kend, ic(&A, A.L), ""), kend, ic(&A, A.L), "kend");
  LLVMValueRef b = LLVMBuildSDiv(bl, gid, ic(&A, row_blocks), "b");
  LLVMValueRef row0 =
      LLVMBuildMul(bl, LLVMBuildSRem(bl, gid, ic(&A, row_blocks), ""),
                   ic(&A, ATT_ROWS), "row0");
  LLVMValueRef row = LLVMBuildAdd(bl, row0, tid, "row");
  kend = causal_end(&A, kstart, kend, row0, ATT_ROWS);
  LLVMValueRef live = LLVMBuildICmp(bl, LLVMIntSLT, row, ic(&A, A.S), "live");
  LLVMValueRef rc = LLVMBuildSelect(bl, live, row, ic(&A, A.S - 1), "row_c");
  /* this row of Q, in registers */
  LLVMValueRef *q = calloc((size_t)A.D, sizeof(LLVMValueRef));
  for (int64_t d = 0; d < A.D; d++) {
    LLVMValueRef c[3] = {b, rc, ic(&A, d)};
    q[d] = load_operand(&A, A.q, c);
  }
  cg_store(cb, f32c(&A, -INFINITY), m_p, 4);
  cg_store(cb, f32c(&A, 0), l_p, 4);
  cg_store(cb, LLVMConstNull(acc_t), acc_p, 4);

  cg_loop tiles = cg_loop_begin(cb, kstart, kend, "tiles");
  stage_tile(&A, tid, b, tiles.iv);
  cg_barrier(cb);
  LLVMValueRef left = LLVMBuildSub(bl, kend, tiles.iv, "");
  LLVMValueRef n = LLVMBuildSelect(bl, LLVMBuildICmp(bl, LLVMIntSLT, left, ic(&A, ATT_KEYS), ""), left, ic(&A, ATT_KEYS), "n");
  bool ok = walk_tile(&A, q, n, b, rc, tiles.iv, m_p, l_p, acc_p);
  free(q);
  if (!ok)
    return false;
  cg_barrier(cb); /* the tile is read by everyone before the next one overwrites it */
  cg_loop_end(cb, &tiles, ATT_KEYS);

  LLVMBasicBlockRef store = LLVMAppendBasicBlockInContext(cb->ctx, cb->fn, "store");
  LLVMBasicBlockRef exit = LLVMAppendBasicBlockInContext(cb->ctx, cb->fn, "exit");
  LLVMBuildCondBr(bl, live, store, exit);
  LLVMPositionBuilderAtEnd(bl, store);
  LLVMValueRef inv = LLVMBuildFDiv(bl, f32c(&A, 1), cg_load(cb, cb->f32, l_p, 4), "inv");
  const value *out = k->out_vals[0];
  LLVMValueRef dst = LLVMGetParam(cb->fn, (unsigned)k->nin);
  LLVMTypeRef mt = cg_mem_type(cb, out->type->elem);
  const value *from = result_value(&A);
  if (partial) { /* the chunk's unnormalised row, m and l into the workspace [P, B, S, Dv + 2] */
    LLVMValueRef base = LLVMBuildMul(bl, LLVMBuildAdd(bl, LLVMBuildMul(bl, LLVMBuildAdd(bl, LLVMBuildMul(bl, part, ic(&A, A.B), ""), b, ""), ic(&A, A.S), ""), row, ""), ic(&A, A.Dv + 2), "");
    for (int64_t d = 0; d < A.Dv + 2; d++) {
      LLVMValueRef idx[2] = {LLVMConstInt(cb->i32, 0, 0), LLVMConstInt(cb->i32, (unsigned long long)d, 0)};
      LLVMValueRef x = d < A.Dv ? cg_load(cb, cb->f32, LLVMBuildInBoundsGEP2(bl, acc_t, acc_p, idx, 2, ""), 4)
                                : cg_load(cb, cb->f32, d == A.Dv ? m_p : l_p, 4);
      LLVMValueRef o = LLVMBuildAdd(bl, base, ic(&A, d), "");
      cg_store(cb, x, LLVMBuildInBoundsGEP2(bl, cb->f32, dst, &o, 1, ""), 4);
    }
  }
  for (int64_t d = 0; d < A.Dv && !partial; d++) {
    LLVMValueRef idx[2] = {LLVMConstInt(cb->i32, 0, 0), LLVMConstInt(cb->i32, (unsigned long long)d, 0)};
    LLVMValueRef x = LLVMBuildFMul(bl, cg_load(cb, cb->f32, LLVMBuildInBoundsGEP2(bl, acc_t, acc_p, idx, 2, ""), 4), inv, "");
    LLVMValueRef c[3] = {b, row, ic(&A, d)};
    LLVMValueRef o = write_offset(&A, from, c);
    cg_store(cb, from_f32(&A, x, out->type->elem), LLVMBuildInBoundsGEP2(bl, mt, dst, &o, 1, ""),
             (unsigned)elem_type_bytes(out->type->elem));
  }
  LLVMBuildBr(bl, exit);
  LLVMPositionBuilderAtEnd(bl, exit);
  LLVMBuildRetVoid(bl);
  if (partial)
    snprintf(info->tuning, sizeof info->tuning, "{\"block_rows\":%d,\"block_keys\":%d,\"split_kv\":%d,\"chunk\":%lld}",
             ATT_ROWS, ATT_KEYS, split, (long long)chunk);
  else
    snprintf(info->tuning, sizeof info->tuning, "{\"block_rows\":%d,\"block_keys\":%d}", ATT_ROWS, ATT_KEYS);
  snprintf(info->matrix_instruction, sizeof info->matrix_instruction, "fma");
  add_problem(&A, info);
  return !cb->failed;
}

/* ---------------------------------------------------------------- for the variants (attention.h) */

LLVMValueRef att_read_offset(att *A, const value *v, LLVMValueRef const *coords, const value **in) {
  return read_offset(A, v, coords, in);
}

LLVMValueRef att_read_ptr(att *A, const value *v, LLVMValueRef const *coords) { return read_ptr(A, v, coords, 0); }

bool att_combine_store(att *A, LLVMValueRef ws, LLVMValueRef dst, LLVMValueRef bs, LLVMValueRef d, int P) {
  return combine_store(A, ws, dst, bs, d, P);
}

int att_concat_rows(att *A, const value *v, int rdim, int64_t *rows, int cap) {
  bool direct;
  const op *o = reads_concat(A, v, &direct);
  if (!o)
    return 0;
  if (!direct || (int)op_attr_int(o, "axis", 0) != rdim)
    return -1;
  int n = 0;
  int64_t start = 0;
  for (int j = 0; j < o->noperands && n + 3 <= cap; j++) {
    int64_t len = o->operands[j]->type->dims[rdim];
    rows[n++] = start, rows[n++] = start + (len > 1 ? 1 : 0), rows[n++] = start + len - 1;
    start += len;
  }
  return n;
}

LLVMValueRef att_score_ops(att *A, LLVMValueRef dot, LLVMValueRef const *coords) { return score_ops(A, dot, coords); }
double att_score_scale(att *A) { return score_scale(A); }
LLVMValueRef att_finite_max(att *A, LLVMValueRef m) { return finite_max(A, m); }
LLVMValueRef att_causal_end(att *A, LLVMValueRef kstart, LLVMValueRef kend, LLVMValueRef row0, int rows) {
  return causal_end(A, kstart, kend, row0, rows);
}
LLVMValueRef att_load_operand(att *A, const value *v, LLVMValueRef const *c) { return load_operand(A, v, c); }
LLVMValueRef att_write_offset(att *A, const value *from, LLVMValueRef const *coords) {
  return write_offset(A, from, coords);
}
const value *att_result_value(att *A) { return result_value(A); }
LLVMValueRef att_to_frag(att *A, const gemm_mma *mm, LLVMValueRef x) { return to_frag(A, mm, x); }
LLVMValueRef att_lds_arr(att *A, const char *what, LLVMTypeRef t, int64_t n) { return lds_arr(A, what, t, n); }
void att_add_problem(att *A, cg_kernel_info *info) { add_problem(A, info); }

int att_vector(att *A, elem_type t, const value *v, int rdim, int cdim) {
  flash F = {.A = A, .mm = {.in = t}};
  return fl_vector(&F, v, rdim, cdim);
}

int64_t att_row_stride(att *A, elem_type t, const value *v, int rdim, int cdim, int vec) {
  flash F = {.A = A, .mm = {.in = t}};
  return fl_row_stride(&F, v, rdim, cdim, vec);
}

LLVMValueRef att_load(att *A, const gemm_mma *mm, LLVMTypeRef ft, LLVMValueRef *rsrc, int64_t stride, const value *v,
                      int rdim, int cdim, LLVMValueRef bidx, LLVMValueRef row, LLVMValueRef c0, int vec,
                      LLVMValueRef srow) {
  flash F = {.A = A, .mm = *mm, .ft = ft, .kstride = stride, .vstride = stride, .krs = *rsrc, .vrs = *rsrc};
  LLVMValueRef x = fl_load(&F, v, rdim, cdim, bidx, row, c0, vec, srow);
  *rsrc = v == A->kt ? F.krs : F.vrs;
  return x;
}
