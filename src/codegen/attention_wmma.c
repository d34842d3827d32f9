/* attention_wmma.c: the flash variant of the attention kernel for WMMA (gfx11, gfx12, wave32),
 * docs/kernels-attention.md "The WMMA flash variant".
 *
 * Up to AW_WAVES waves per work-group, each owning 16 query rows; keys go in blocks of nk that
 * the work-group stages in LDS, double-buffered (the next block's global loads are issued at a
 * block's start and written to the other buffer at its end: one barrier per block). The wave
 * computes Sᵀ = K Qᵀ (K the A operand from LDS, Q the B operand in registers), so a lane's
 * accumulators hold 8 keys of one query (column lane % 16): the row max is a per-lane max and
 * one exchange with the other half-wave per block, the row sum stays per lane until the end,
 * and the rescale factor is one scalar per lane. P, converted in registers, is the B operand of
 * Oᵀ += Vᵀ Pᵀ with k in the accumulators' order (gemm_mma_feed: gfx12's operand halves are its
 * accumulator halves; a gfx11 lane holds all 16 k, half of them from the other half-wave by
 * ds_bpermute); V is staged transposed with its keys in that order (gemm_mma_acc_slot), so a
 * lane's Vᵀ fragment is contiguous in LDS. */
#include "attention.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

enum { AW_WAVES = 8, AW_KEYS = 64, AW_MAX_CHUNKS = 16, AW_TILES = AW_KEYS / 16 };

typedef struct aw {
  att *A;
  gemm_mma mm;
  LLVMTypeRef ft;                             /* fragment element type: half or i16 (bf16 bits) */
  int waves, nk, vk, vv;                      /* waves, keys per block, elements per global load of K and V */
  int64_t kstride, vstride;                   /* row strides of K and V when their rows are affine, else 0 */
  LLVMValueRef kb, vb;                        /* LDS [2][nk][D], [2][Dv][nk] (keys in slot order per 16) */
  LLVMValueRef flat, lane, col, x16, from[2]; /* ids; ds_bpermute addresses: lane ^ 16, the
                                               * lanes of this column in half-wave 0 and 1 */
  LLVMValueRef krs, vrs;                      /* buffer resources of K and V */
  LLVMValueRef b, qc, kend, qf[16];
  LLVMTypeRef acc_t, o_t;
  LLVMValueRef m_p, l_p, o_p, par_p;
  bool folded;  /* the score ops are a positive scale, folded into `scale` */
  double scale; /* log2 e, times the graph's scale when folded */
} aw;

static LLVMValueRef ic(aw *F, int64_t x) { return LLVMConstInt(F->A->it, (unsigned long long)x, 1); }
static LLVMValueRef i32c(aw *F, int64_t x) { return LLVMConstInt(F->A->cb->i32, (unsigned long long)x, 1); }
static LLVMValueRef f32c(aw *F, double x) { return LLVMConstReal(F->A->cb->f32, x); }
static int bytes(aw *F) { return elem_type_bytes(F->mm.in); }

static LLVMValueRef lds(aw *F, LLVMValueRef arr, LLVMValueRef i) {
  return LLVMBuildInBoundsGEP2(F->A->b, F->ft, arr, &i, 1, "");
}

/* max(x, y) of operands that are never NaN (scores, -inf for masked keys) */
static LLVMValueRef aw_max(aw *F, LLVMValueRef x, LLVMValueRef y) {
  LLVMTypeRef t = F->A->cb->f32;
  LLVMValueRef a[2] = {x, y};
  LLVMValueRef r = cg_intrinsic(F->A->cb, "llvm.maxnum", &t, 1, a, 2);
  if (r)
    LLVMSetFastMathFlags(r, LLVMFastMathNoNaNs);
  return r;
}

/* 2^x, approximate: v_exp_f32 (the kernel flushes f32 denormals) */
static LLVMValueRef aw_exp2(aw *F, LLVMValueRef x) {
  LLVMTypeRef t = F->A->cb->f32;
  LLVMValueRef r = cg_intrinsic(F->A->cb, "llvm.exp2", &t, 1, &x, 1);
  if (r)
    LLVMSetFastMathFlags(r, LLVMFastMathApproxFunc);
  return r;
}

/* The 32 bits x of the lane whose ds_bpermute address is addr. */
static LLVMValueRef aw_permute(aw *F, LLVMValueRef x, LLVMValueRef addr) {
  LLVMBuilderRef bl = F->A->b;
  LLVMTypeRef t = LLVMTypeOf(x);
  LLVMValueRef args[2] = {addr, LLVMBuildBitCast(bl, x, F->A->cb->i32, "")};
  LLVMValueRef r = cg_intrinsic(F->A->cb, "llvm.amdgcn.ds.bpermute", NULL, 0, args, 2);
  return r ? LLVMBuildBitCast(bl, r, t, "") : NULL;
}

static int chunks(aw *F, int64_t width, int vec) {
  int64_t n = F->nk * width / vec, wg = 32 * F->waves;
  return (int)((n + wg - 1) / wg);
}

bool att_wmma_fits(att *A) { return att_wmma_emit(A, NULL); }

static bool choose(att *A, aw *F) {
  elem_type t = A->q->type->elem;
  const target_info *ti = A->cb->target->info;
  if ((t != ET_F16 && t != ET_BF16) || A->kt->type->elem != t || A->v->type->elem != t ||
      A->mm2->operands[0]->type->elem != t || ti->wave_size != 32)
    return false;
  if (!gemm_mma_select(ti, t, 16, false, 16, 16, &F->mm) || !F->mm.row ||
      (F->mm.row->layout != MATRIX_WMMA_GFX11 && F->mm.row->layout != MATRIX_WMMA_GFX12))
    return false;
  if (A->D % 16 || A->D > 256 || A->Dv % 16 || A->Dv > 128 || getenv("TOSAC_ATTENTION_FMA") ||
      getenv("TOSAC_ATTENTION_LDS"))
    return false;
  F->A = A;
  F->waves = (int)((A->S + 15) / 16 < AW_WAVES ? (A->S + 15) / 16 : AW_WAVES);
  F->vk = att_vector(A, t, A->kt, 2, 1), F->vv = att_vector(A, t, A->v, 1, 2);
  F->kstride = att_row_stride(A, t, A->kt, 2, 1, F->vk), F->vstride = att_row_stride(A, t, A->v, 1, 2, F->vv);
  double scale = att_score_scale(A);
  F->folded = scale > 0, F->scale = 1.4426950408889634 * (F->folded ? scale : 1);
  for (F->nk = AW_KEYS; F->nk >= 32; F->nk /= 2)
    if (2 * F->nk * (A->D + A->Dv) * elem_type_bytes(t) <= ti->lds_bytes && chunks(F, A->D, F->vk) <= AW_MAX_CHUNKS &&
        chunks(F, A->Dv, F->vv) <= AW_MAX_CHUNKS)
      return true;
  return false;
}

/* One block's K and V chunks of this work-item: the global loads and their
 * places in LDS. */
typedef struct aw_stage {
  LLVMValueRef k[AW_MAX_CHUNKS], v[AW_MAX_CHUNKS], kidx[AW_MAX_CHUNKS], vidx[AW_MAX_CHUNKS];
  int nk, nv;
} aw_stage;

/* Keys [t0, t0 + nk): clamp false when they are all below L (the key goes in
 * the buffer loads' scalar offset). The chunks past the block's end repeat its
 * last chunk. */
static void stage_load(aw *F, aw_stage *st, LLVMValueRef t0, bool clamp) {
  att *A = F->A;
  LLVMBuilderRef bl = A->b;
  int64_t wg = 32 * F->waves;
  for (int which = 0; which < 2; which++) {
    bool is_k = which == 0;
    int64_t width = is_k ? A->D : A->Dv;
    int vec = is_k ? F->vk : F->vv, n = chunks(F, width, vec);
    int64_t total = F->nk * width / vec;
    for (int i = 0; i < n; i++) {
      LLVMValueRef c = LLVMBuildAdd(bl, LLVMBuildZExt(bl, F->flat, A->it, ""), ic(F, i * wg), "");
      if ((i + 1) * wg > total)
        c = LLVMBuildSelect(bl, LLVMBuildICmp(bl, LLVMIntSLT, c, ic(F, total), ""), c, ic(F, total - 1), "");
      LLVMValueRef j = LLVMBuildSDiv(bl, c, ic(F, width / vec), "");
      LLVMValueRef d0 = LLVMBuildMul(bl, LLVMBuildSRem(bl, c, ic(F, width / vec), ""), ic(F, vec), "");
      LLVMValueRef key = clamp ? LLVMBuildAdd(bl, t0, j, "") : j, srow = clamp ? NULL : t0;
      /* rows past L read row L - 1 (clamped): P is exactly 0 there */
      LLVMValueRef x = is_k ? att_load(A, &F->mm, F->ft, &F->krs, F->kstride, A->kt, 2, 1, F->b, key, d0, vec, srow)
                            : att_load(A, &F->mm, F->ft, &F->vrs, F->vstride, A->v, 1, 2, F->b, key, d0, vec, srow);
      LLVMValueRef j32 = LLVMBuildTrunc(bl, j, A->cb->i32, ""), d32 = LLVMBuildTrunc(bl, d0, A->cb->i32, "");
      if (is_k) {
        st->k[i] = x;
        st->kidx[i] = LLVMBuildAdd(bl, LLVMBuildMul(bl, j32, i32c(F, A->D), ""), d32, "");
      } else { /* column j of Vᵀ: its 16-key group, the slot of the key in it */
        LLVMValueRef slot = gemm_mma_acc_slot(A->cb, &F->mm, LLVMBuildAnd(bl, j32, i32c(F, 15), ""));
        slot = LLVMBuildAdd(bl, LLVMBuildAnd(bl, j32, i32c(F, ~15), ""), slot, "");
        st->v[i] = x;
        st->vidx[i] = LLVMBuildAdd(bl, LLVMBuildMul(bl, d32, i32c(F, F->nk), ""), slot, "");
      }
    }
    if (is_k)
      st->nk = n;
    else
      st->nv = n;
  }
}

/* The staged chunks into buffer `buf` (i32 0 or 1): K rows as they are, V
 * transposed. */
static void stage_store(aw *F, const aw_stage *st, LLVMValueRef buf) {
  att *A = F->A;
  LLVMBuilderRef bl = A->b;
  int es = bytes(F);
  LLVMValueRef kofs = LLVMBuildMul(bl, buf, i32c(F, F->nk * A->D), "");
  LLVMValueRef vofs = LLVMBuildMul(bl, buf, i32c(F, F->nk * A->Dv), "");
  for (int i = 0; i < st->nk; i++)
    cg_store(A->cb, st->k[i], lds(F, F->kb, LLVMBuildAdd(bl, kofs, st->kidx[i], "")), (unsigned)(F->vk * es));
  for (int i = 0; i < st->nv; i++)
    for (int e = 0; e < F->vv; e++) {
      LLVMValueRef x = F->vv == 1 ? st->v[i] : LLVMBuildExtractElement(bl, st->v[i], i32c(F, e), "");
      if (LLVMGetTypeKind(LLVMTypeOf(x)) == LLVMVectorTypeKind)
        x = LLVMBuildExtractElement(bl, x, i32c(F, 0), "");
      LLVMValueRef idx = LLVMBuildAdd(bl, vofs, LLVMBuildAdd(bl, st->vidx[i], i32c(F, e * F->nk), ""), "");
      cg_store(A->cb, x, lds(F, F->vb, idx), (unsigned)es);
    }
}

/* A lane's operand fragment: kl contiguous elements of arr from idx. */
static LLVMValueRef frag(aw *F, LLVMValueRef arr, LLVMValueRef idx) {
  int kl = F->mm.kl;
  return cg_load(F->A->cb, LLVMVectorType(F->ft, (unsigned)kl), lds(F, arr, idx),
                 (unsigned)(kl * bytes(F) < 16 ? kl * bytes(F) : 16));
}

/* The Pᵀ B fragment of 16-key tile j from the lanes' probabilities p[8·j + e] (f32): element i
 * is accumulator e of this lane or of its column's lane in a half-wave (gemm_mma_feed), converted
 * and moved in pairs of 16-bit elements. */
static LLVMValueRef p_frag(aw *F, LLVMValueRef const *p, int j) {
  att *A = F->A;
  LLVMBuilderRef bl = A->b;
  int kl = F->mm.kl;
  LLVMTypeRef v2 = LLVMVectorType(F->ft, 2);
  LLVMValueRef r = LLVMGetUndef(LLVMVectorType(F->ft, (unsigned)kl));
  for (int i = 0; i < kl; i += 2) {
    int e0, e1, h = gemm_mma_feed(&F->mm, i, &e0);
    gemm_mma_feed(&F->mm, i + 1, &e1);
    LLVMValueRef two = LLVMGetUndef(v2);
    if (F->mm.in == ET_F16) { /* one v_cvt_pkrtz_f16_f32 per pair (rounding toward zero) */
      LLVMValueRef args[2] = {p[8 * j + e0], p[8 * j + e1]};
      two = cg_intrinsic(A->cb, "llvm.amdgcn.cvt.pkrtz", NULL, 0, args, 2);
    } else {
      two = LLVMBuildInsertElement(bl, two, att_to_frag(A, &F->mm, p[8 * j + e0]), i32c(F, 0), "");
      two = LLVMBuildInsertElement(bl, two, att_to_frag(A, &F->mm, p[8 * j + e1]), i32c(F, 1), "");
    }
    if (!two)
      return NULL;
    if (h >= 0 && !(two = aw_permute(F, two, F->from[h])))
      return NULL;
    for (int e = 0; e < 2; e++)
      r = LLVMBuildInsertElement(bl, r, LLVMBuildExtractElement(bl, two, i32c(F, e), ""), i32c(F, i + e), "");
  }
  return r;
}

/* One block of keys at t0 in buffer par (a constant in the paired loop, else
 * NULL: from F->par_p, which the block advances); keys from F->kend on are
 * masked when `masked`. The next block's loads are issued first (clamped when
 * `clamp`) and written to the other buffer at the end. */
static bool block(aw *F, LLVMValueRef t0, bool masked, LLVMValueRef par, bool clamp) {
  att *A = F->A;
  cg_builder *cb = A->cb;
  LLVMBuilderRef bl = A->b;
  gemm_mma *mm = &F->mm;
  int nb = (int)(A->Dv / 16), nj = F->nk / 16;
  bool carried = !par;
  if (carried)
    par = cg_load(cb, cb->i32, F->par_p, 4);
  LLVMValueRef other = LLVMBuildSub(bl, i32c(F, 1), par, "");
  aw_stage st;
  stage_load(F, &st, LLVMBuildAdd(bl, t0, ic(F, F->nk), ""), clamp);
  /* Sᵀ: step-major, consecutive WMMAs independent */
  gemm_lane la = gemm_mma_lane(cb, mm, F->lane, false);
  LLVMValueRef kbase = LLVMBuildAdd(bl, LLVMBuildMul(bl, par, i32c(F, F->nk * A->D), ""), la.kofs, "");
  kbase = LLVMBuildAdd(bl, kbase, LLVMBuildMul(bl, F->col, i32c(F, A->D), ""), "");
  LLVMValueRef s[AW_TILES];
  for (int j = 0; j < nj; j++)
    s[j] = LLVMConstNull(F->acc_t);
  for (int kk = 0; kk < A->D; kk += 16)
    for (int j = 0; j < nj; j++) {
      LLVMValueRef kf = frag(F, F->kb, LLVMBuildAdd(bl, kbase, i32c(F, 16 * j * A->D + kk), ""));
      s[j] = gemm_mma_step(cb, mm, kf, F->qf[kk / 16], s[j]);
    }
  /* x: the score before the log2 scale c; the max is taken on x (c > 0) and
   * scaled once */
  LLVMValueRef x[8 * AW_TILES], mloc = f32c(F, -INFINITY), c = f32c(F, F->scale);
  for (int j = 0; j < nj; j++)
    for (int e = 0; e < mm->nacc; e++) {
      LLVMValueRef v = LLVMBuildExtractElement(bl, s[j], i32c(F, e), "");
      if (masked || !F->folded) {
        LLVMValueRef r, cl;
        gemm_mma_acc_pos(cb, mm, F->lane, e, &r, &cl);
        LLVMValueRef key =
            LLVMBuildAdd(bl, t0, LLVMBuildZExt(bl, LLVMBuildAdd(bl, r, i32c(F, 16 * j), ""), A->it, ""), "");
        if (!F->folded) {
          LLVMValueRef kc =
              LLVMBuildSelect(bl, LLVMBuildICmp(bl, LLVMIntSLT, key, ic(F, A->L), ""), key, ic(F, A->L - 1), "");
          LLVMValueRef co[3] = {F->b, F->qc, kc};
          if (!(v = att_score_ops(A, v, co)))
            return false;
        }
        if (masked)
          v = LLVMBuildSelect(bl, LLVMBuildICmp(bl, LLVMIntSLT, key, F->kend, ""), v, f32c(F, -INFINITY), "");
      }
      x[8 * j + e] = v;
      mloc = aw_max(F, mloc, v);
    }
  LLVMValueRef mx = aw_permute(F, mloc, F->x16);
  if (!mx)
    return false;
  mloc = aw_max(F, mloc, mx);
  LLVMValueRef mo = cg_load(cb, cb->f32, F->m_p, 4), mn = aw_max(F, mo, LLVMBuildFMul(bl, mloc, c, ""));
  /* with only a scale as score ops every block has a finite score: the max is
   * finite */
  LLVMValueRef ms = F->folded ? mn : att_finite_max(A, mn), alpha = aw_exp2(F, LLVMBuildFSub(bl, mo, ms, ""));
  if (!alpha)
    return false;
  LLVMValueRef p[8 * AW_TILES], nms = LLVMBuildFNeg(bl, ms, ""), sum = f32c(F, 0);
  for (int f = 0; f < 8 * nj; f++) {
    LLVMValueRef fa[3] = {x[f], c, nms};
    LLVMTypeRef ft32 = cb->f32;
    LLVMValueRef e = aw_exp2(F, cg_intrinsic(cb, "llvm.fma", &ft32, 1, fa, 3));
    if (!e)
      return false;
    sum = LLVMBuildFAdd(bl, sum, e, "");
    p[f] = e;
  }
  cg_store(cb, LLVMBuildFAdd(bl, LLVMBuildFMul(bl, cg_load(cb, cb->f32, F->l_p, 4), alpha, ""), sum, ""), F->l_p, 4);
  cg_store(cb, mn, F->m_p, 4);
  LLVMValueRef pf[AW_TILES];
  for (int j = 0; j < nj; j++)
    if (!(pf[j] = p_frag(F, p, j)))
      return false;
  /* alpha in a second register (an opaque copy) for the odd accumulators: two multiplies
   * reading different registers can pair as one v_dual_mul_f32 (VOPD wants each operand pair in
   * different VGPR banks) */
  LLVMTypeRef ft32 = cb->f32;
  LLVMTypeRef copy_t = LLVMFunctionType(ft32, &ft32, 1, 0);
  LLVMValueRef copy = LLVMGetInlineAsm(copy_t, "", 0, "=v,0", 4, 0, 0, LLVMInlineAsmDialectATT, 0);
  LLVMValueRef alpha2 = LLVMBuildCall2(bl, copy_t, copy, &alpha, 1, "alpha2");
  LLVMValueRef asplat = LLVMGetUndef(F->acc_t);
  for (int e = 0; e < mm->nacc; e++)
    asplat = LLVMBuildInsertElement(bl, asplat, e % 2 ? alpha2 : alpha, i32c(F, e), "");
  /* Vᵀ fragments, one 16-column tile of O at a time (all of them at once would not fit the
   * registers with head size 128) */
  LLVMValueRef vbase = LLVMBuildAdd(bl, LLVMBuildMul(bl, par, i32c(F, F->nk * A->Dv), ""), la.kofs, "");
  vbase = LLVMBuildAdd(bl, vbase, LLVMBuildMul(bl, F->col, i32c(F, F->nk), ""), "");
  for (int n = 0; n < nb; n++) {
    LLVMValueRef idx[2] = {i32c(F, 0), i32c(F, n)};
    LLVMValueRef op = LLVMBuildInBoundsGEP2(bl, F->o_t, F->o_p, idx, 2, "");
    LLVMValueRef o = LLVMBuildFMul(bl, cg_load(cb, F->acc_t, op, 16), asplat, "");
    for (int j = 0; j < nj; j++)
      o = gemm_mma_step(cb, mm, frag(F, F->vb, LLVMBuildAdd(bl, vbase, i32c(F, 16 * n * F->nk + 16 * j), "")), pf[j],
                        o);
    cg_store(cb, o, op, 16);
  }
  stage_store(F, &st, other);
  if (carried)
    cg_store(cb, other, F->par_p, 4);
  cg_barrier(cb); /* the next block is in LDS, and this one is read by every wave */
  return true;
}

bool att_wmma_emit(att *A, cg_kernel_info *info) {
  aw W = {0}, *F = &W;
  if (!choose(A, F))
    return false;
  if (!info)
    return true;
  cg_builder *cb = A->cb;
  LLVMBuilderRef bl = A->b;
  const part_kernel *k = A->k;
  gemm_mma *mm = &F->mm;
  int nb = (int)(A->Dv / 16);
  F->ft = mm->in == ET_F16 ? cb->f16 : cb->i16;
  int rows = 16 * F->waves, wg = 32 * F->waves;
  int64_t row_blocks = (A->S + rows - 1) / rows, groups = A->B * row_blocks;
  att_flash_begin(A, info, wg, groups);
  F->kb = att_lds_arr(A, "k", F->ft, 2 * F->nk * A->D);
  F->vb = att_lds_arr(A, "v", F->ft, 2 * F->nk * A->Dv);
  F->acc_t = gemm_mma_acc_type(cb, mm), F->o_t = LLVMArrayType2(F->acc_t, (uint64_t)nb);
  F->o_p = LLVMBuildAlloca(bl, F->o_t, "o"), F->m_p = LLVMBuildAlloca(bl, cb->f32, "m");
  F->l_p = LLVMBuildAlloca(bl, cb->f32, "l"), F->par_p = LLVMBuildAlloca(bl, cb->i32, "parity");
  LLVMValueRef flat = cg_thread_id_x(cb), gid32 = cg_group_id_x(cb);
  if (!flat || !gid32)
    return false;
  F->flat = flat;
  F->lane = LLVMBuildURem(bl, flat, i32c(F, 32), "lane");
  LLVMValueRef wave = LLVMBuildUDiv(bl, flat, i32c(F, 32), "wave");
  F->col = LLVMBuildURem(bl, F->lane, i32c(F, 16), "col");
  F->x16 = LLVMBuildShl(bl, LLVMBuildXor(bl, F->lane, i32c(F, 16), ""), i32c(F, 2), "");
  for (int h = 0; h < 2; h++)
    F->from[h] = LLVMBuildShl(bl, LLVMBuildAdd(bl, F->col, i32c(F, 16 * h), ""), i32c(F, 2), "");
  LLVMValueRef gid = LLVMBuildZExt(bl, gid32, A->it, "");
  LLVMValueRef b = LLVMBuildSDiv(bl, gid, ic(F, row_blocks), "b");
  LLVMValueRef row0 = LLVMBuildMul(bl, LLVMBuildSRem(bl, gid, ic(F, row_blocks), ""), ic(F, rows), "");
  LLVMValueRef q = LLVMBuildAdd(
      bl, row0, LLVMBuildZExt(bl, LLVMBuildAdd(bl, LLVMBuildMul(bl, wave, i32c(F, 16), ""), F->col, ""), A->it, ""),
      "q");
  LLVMValueRef live = LLVMBuildICmp(bl, LLVMIntSLT, q, ic(F, A->S), "live");
  F->b = b;
  F->qc = LLVMBuildSelect(bl, live, q, ic(F, A->S - 1), "qc");
  F->kend = att_causal_end(A, ic(F, 0), ic(F, A->L), row0, rows);
  /* Q as B fragments: column q, k = d */
  gemm_lane lb = gemm_mma_lane(cb, mm, F->lane, true);
  for (int s = 0; s < A->D / 16; s++) {
    F->qf[s] = LLVMGetUndef(LLVMVectorType(F->ft, (unsigned)mm->kl));
    for (int e = 0; e < mm->kl; e++) {
      LLVMValueRef d = LLVMBuildZExt(bl, LLVMBuildAdd(bl, lb.kofs, i32c(F, 16 * s + e), ""), A->it, "");
      LLVMValueRef co[3] = {b, F->qc, d};
      F->qf[s] =
          LLVMBuildInsertElement(bl, F->qf[s], att_to_frag(A, mm, att_load_operand(A, A->q, co)), i32c(F, e), "");
    }
  }
  cg_store(cb, LLVMConstNull(F->o_t), F->o_p, 16);
  cg_store(cb, f32c(F, -INFINITY), F->m_p, 4);
  cg_store(cb, f32c(F, 0), F->l_p, 4);
  LLVMValueRef zero = i32c(F, 0), one = i32c(F, 1);
  aw_stage st;
  stage_load(F, &st, ic(F, 0), true);
  stage_store(F, &st, zero);
  cg_barrier(cb);
  /* full blocks in pairs (parity 0 then 1: constant LDS offsets) while the
   * pair's loads (keys below t0 + 3·nk) stay below L without clamping, then the
   * rest one at a time, masked */
  LLVMValueRef nfull = LLVMBuildSDiv(bl, F->kend, ic(F, F->nk), "nfull");
  bool clamp = !F->kstride || !F->vstride;
  LLVMValueRef npair = nfull;
  if (!clamp) {
    LLVMValueRef room = ic(F, A->L / F->nk - 1);
    npair = LLVMBuildSelect(bl, LLVMBuildICmp(bl, LLVMIntSLT, room, nfull, ""), room, nfull, "");
  }
  npair = LLVMBuildSDiv(bl, npair, ic(F, 2), "npair");
  LLVMValueRef kpair = LLVMBuildMul(bl, npair, ic(F, 2 * F->nk), "kpair");
  if (A->L / F->nk >= 2 && (clamp || A->L / F->nk >= 3)) {
    cg_loop pairs = cg_loop_begin(cb, ic(F, 0), kpair, "pairs");
    if (!block(F, pairs.iv, false, zero, clamp) ||
        !block(F, LLVMBuildAdd(bl, pairs.iv, ic(F, F->nk), ""), false, one, clamp))
      return false;
    cg_loop_end(cb, &pairs, 2 * F->nk);
  } else {
    kpair = ic(F, 0);
  }
  cg_store(cb, zero, F->par_p, 4);
  cg_loop rest = cg_loop_begin(cb, kpair, F->kend, "blocks");
  if (!block(F, rest.iv, true, NULL, true))
    return false;
  cg_loop_end(cb, &rest, F->nk);

  LLVMValueRef l = cg_load(cb, cb->f32, F->l_p, 4), lx = aw_permute(F, l, F->x16);
  if (!lx)
    return false;
  l = LLVMBuildFAdd(bl, l, lx, "l");
  for (int n = 0; n < nb; n++) {
    LLVMValueRef idx[2] = {i32c(F, 0), i32c(F, n)};
    LLVMValueRef o = cg_load(cb, F->acc_t, LLVMBuildInBoundsGEP2(bl, F->o_t, F->o_p, idx, 2, ""), 16);
    gemm_mma_keep(cb, mm, &o, 1);
  }
  LLVMBasicBlockRef store = LLVMAppendBasicBlockInContext(cb->ctx, cb->fn, "store");
  LLVMBasicBlockRef exit = LLVMAppendBasicBlockInContext(cb->ctx, cb->fn, "exit");
  LLVMBuildCondBr(bl, live, store, exit);
  LLVMPositionBuilderAtEnd(bl, store);
  const value *from = att_result_value(A), *out = k->out_vals[0];
  LLVMTypeRef mt = cg_mem_type(cb, out->type->elem);
  LLVMTypeRef ot = cg_elem_type(cb, out->type->elem);
  LLVMValueRef dst = LLVMGetParam(cb->fn, (unsigned)k->nin);
  LLVMValueRef inv = LLVMBuildFDiv(bl, f32c(F, 1), l, "inv");
  for (int n = 0; n < nb; n++) {
    LLVMValueRef idx[2] = {i32c(F, 0), i32c(F, n)};
    LLVMValueRef o = cg_load(cb, F->acc_t, LLVMBuildInBoundsGEP2(bl, F->o_t, F->o_p, idx, 2, ""), 16);
    for (int e = 0; e < mm->nacc; e++) {
      LLVMValueRef r, cl;
      gemm_mma_acc_pos(cb, mm, F->lane, e, &r, &cl);
      LLVMValueRef co[3] = {b, q, LLVMBuildZExt(bl, LLVMBuildAdd(bl, r, i32c(F, 16 * n), ""), A->it, "")};
      LLVMValueRef off = att_write_offset(A, from, co);
      LLVMValueRef y = LLVMBuildFMul(bl, LLVMBuildExtractElement(bl, o, i32c(F, e), ""), inv, "");
      if (ot != cb->f32)
        y = LLVMBuildFPTrunc(bl, y, ot, "");
      cg_store(cb, y, LLVMBuildInBoundsGEP2(bl, mt, dst, &off, 1, ""), (unsigned)elem_type_bytes(out->type->elem));
    }
  }
  LLVMBuildBr(bl, exit);
  LLVMPositionBuilderAtEnd(bl, exit);
  LLVMBuildRetVoid(bl);
  snprintf(info->tuning, sizeof info->tuning, "{\"block_rows\":%d,\"block_keys\":%d}", rows, F->nk);
  snprintf(info->matrix_instruction, sizeof info->matrix_instruction, "%s", mm->name);
  att_add_problem(A, info);
  return !cb->failed;
}
