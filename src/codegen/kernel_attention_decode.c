/* kernel_attention_decode.c: the attention kernel's decode variant, for few
 * query rows (a decode step: S <= CG_DECODE_ROWS) over many keys, whole or as a
 * split-KV partial.
 *
 * A work-group of DEC_LANES work-items owns one batch (batch x heads) entry,
 * all S rows, and one chunk of keys. Its lanes are spread over keys and the
 * head dimension: G lanes (a power of two) share a key, each holding `vec`
 * elements of the head (one 16-byte load of K and of V per key), so one pass of
 * the work-group covers DEC_LANES / G keys, `unroll` passes per loop iteration
 * (as many as the chunk holds, at most 4: the loads in flight per lane). Per
 * key a lane multiplies its part of K with its part of each Q row, the G
 * partial dot products are summed across the lanes (ds_swizzle butterflies),
 * the score ops apply, and each lane keeps a running max, sum and its part of
 * the output row per query row (online softmax, one rescale per iteration). No
 * LDS and no barrier in the loop: every load of an iteration is in flight at
 * once. At the end the lanes' partial softmax states merge, first across the
 * key slots of a wave (butterflies again), then across the waves in LDS; the
 * result is stored normalised, or as a split-KV partial (o, m, l) for the
 * combine kernel. docs/kernels-attention.md "Decode variant". */
#include "attention.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

enum {
  DEC_LANES = 256,
  DEC_MAX_UNROLL = 4,
  DEC_MAX_VEC = 8,
  DEC_MAX_GROUP = 32
};

typedef struct dec {
  att *A;
  int vec;         /* elements of a lane's part of a K or V row */
  int group;       /* G: lanes per key */
  int slots;       /* keys per pass of the work-group */
  int rows;        /* S */
  int unroll;      /* key passes per loop iteration */
  bool kvec, vvec; /* K (V) rows contiguous along the head dim: one vector load
                      per part */
  LLVMValueRef lane, part,
      slot; /* i32: lane in the wave, part of the head, key slot */
} dec;

static LLVMValueRef i32(dec *Dc, int64_t x) {
  return LLVMConstInt(Dc->A->cb->i32, (unsigned long long)x, 1);
}
static LLVMValueRef ix(dec *Dc, int64_t x) {
  return LLVMConstInt(Dc->A->it, (unsigned long long)x, 1);
}
static LLVMValueRef f32(dec *Dc, double x) {
  return LLVMConstReal(Dc->A->cb->f32, x);
}

static LLVMValueRef fmax2(dec *Dc, LLVMValueRef x, LLVMValueRef y) {
  LLVMTypeRef t = Dc->A->cb->f32;
  LLVMValueRef a[2] = {x, y};
  return cg_intrinsic(Dc->A->cb, "llvm.maxnum", &t, 1, a, 2);
}

static LLVMValueRef fexp(dec *Dc, LLVMValueRef x) {
  LLVMTypeRef t = Dc->A->cb->f32;
  return cg_intrinsic(Dc->A->cb, "llvm.exp", &t, 1, &x, 1);
}

static bool float_type(elem_type t) {
  return t == ET_F16 || t == ET_BF16 || t == ET_F32;
}

/* Elements along dimension cdim of operand v are contiguous in its input and
 * every part of `vec` of them starts aligned (checked on constant coordinates
 * at the corners, as the flash variant's loads are). */
static bool contiguous(dec *Dc, const value *v, int rdim, int cdim) {
  att *A = Dc->A;
  int64_t width = v->type->dims[cdim], rows = v->type->dims[rdim];
  int64_t bs[3] = {0, A->B > 1 ? 1 : 0, A->B - 1},
          rs[3 * 16] = {0, rows > 1 ? 1 : 0, rows - 1};
  /* through a concat view every piece is its own buffer: its first rows and its last */
  int nr = att_concat_rows(A, v, rdim, rs, 3 * 16);
  if (nr < 0)
    return false;
  nr = nr ? nr : 3;
  for (int bi = 0; bi < 3; bi++)
    for (int ri = 0; ri < nr; ri++) {
      int64_t base = 0;
      for (int64_t c = 0; c < width; c++) {
        LLVMValueRef co[3];
        co[0] = ix(Dc, bs[bi]), co[rdim] = ix(Dc, rs[ri]), co[cdim] = ix(Dc, c);
        const value *in;
        LLVMValueRef off = att_read_offset(A, v, co, &in);
        if (!LLVMIsAConstantInt(off))
          return false;
        int64_t o = LLVMConstIntGetSExtValue(off);
        if (c == 0)
          base = o;
        if ((c == 0 && o % Dc->vec) || o != base + c)
          return false;
      }
    }
  return true;
}

/* The head's element split: `vec` elements per lane (16 bytes where D and Dv
 * allow), G lanes per key, G the next power of two of the parts of the wider
 * head. */
static bool shape(att *A, dec *Dc) {
  elem_type t = A->q->type->elem;
  if (A->S > CG_DECODE_ROWS || !float_type(t) || A->kt->type->elem != t ||
      A->v->type->elem != t)
    return false;
  int vec = 16 / elem_type_bytes(t);
  while (vec > 1 && (A->D % vec || A->Dv % vec))
    vec /= 2;
  int64_t parts = ((A->D > A->Dv ? A->D : A->Dv) + vec - 1) / vec;
  int g = 1;
  while (g < parts)
    g *= 2;
  if (g > DEC_MAX_GROUP || g > A->cb->target->info->wave_size)
    return false;
  Dc->A = A, Dc->vec = vec, Dc->group = g, Dc->slots = DEC_LANES / g,
  Dc->rows = (int)A->S;
  return true;
}

bool cg_attention_takes_decode(const target_info *t, elem_type q, elem_type k,
                               elem_type v, int64_t B, int64_t S, int64_t L,
                               int64_t D, int64_t Dv) {
  if (getenv("TOSAC_ATTENTION_FMA") || getenv("TOSAC_ATTENTION_LDS") ||
      !float_type(q) || k != q || v != q)
    return false;
  return cg_tune_attention_decode(t, B, S, L, D, Dv, elem_type_bytes(q));
}

bool cg_att_decode_fits(att *A) {
  dec Dc;
  if (!shape(A, &Dc))
    return false;
  return cg_attention_takes_decode(A->cb->target->info, A->q->type->elem,
                                   A->kt->type->elem, A->v->type->elem, A->B,
                                   A->S, A->L, A->D, A->Dv);
}

/* The value of lane ^ m of the wave: ds_swizzle's xor mode inside 32 lanes,
 * ds_bpermute across the halves of a wave64. */
static LLVMValueRef lane_xor(dec *Dc, LLVMValueRef x, int m) {
  cg_builder *cb = Dc->A->cb;
  LLVMBuilderRef bl = Dc->A->b;
  LLVMValueRef w = LLVMBuildBitCast(bl, x, cb->i32, ""), r;
  if (m < 32) {
    LLVMValueRef args[2] = {w, i32(Dc, 0x1f | (m << 10))};
    r = cg_intrinsic(cb, "llvm.amdgcn.ds.swizzle", NULL, 0, args, 2);
  } else {
    LLVMValueRef addr = LLVMBuildShl(
        bl, LLVMBuildXor(bl, Dc->lane, i32(Dc, m), ""), i32(Dc, 2), "");
    LLVMValueRef args[2] = {addr, w};
    r = cg_intrinsic(cb, "llvm.amdgcn.ds.bpermute", NULL, 0, args, 2);
  }
  return r ? LLVMBuildBitCast(bl, r, cb->f32, "") : NULL;
}

/* This lane's `vec` elements of operand v (K^T: rdim 2, cdim 1; V: rdim 1, cdim
 * 2) at key `key` and head elements [d0, d0 + vec), as f32; whole is a vector
 * load where the rows are contiguous. */
static void load_part(dec *Dc, const value *v, int rdim, int cdim, bool whole,
                      LLVMValueRef b, LLVMValueRef key, LLVMValueRef d0,
                      LLVMValueRef *out) {
  att *A = Dc->A;
  cg_builder *cb = A->cb;
  LLVMBuilderRef bl = A->b;
  elem_type et = v->type->elem;
  LLVMTypeRef mt = cg_mem_type(cb, et);
  for (int e = 0; e < Dc->vec; e += whole ? Dc->vec : 1) {
    LLVMValueRef co[3];
    co[0] = b, co[rdim] = key, co[cdim] = LLVMBuildAdd(bl, d0, ix(Dc, e), "");
    LLVMValueRef p = att_read_ptr(A, v, co);
    int n = whole ? Dc->vec : 1;
    LLVMValueRef x = cg_load(cb, n > 1 ? LLVMVectorType(mt, (unsigned)n) : mt,
                             p, (unsigned)(n * elem_type_bytes(et)));
    for (int j = 0; j < n; j++) {
      LLVMValueRef y =
          n > 1 ? LLVMBuildExtractElement(bl, x, i32(Dc, j), "") : x;
      out[e + j] = et == ET_F32 ? y : LLVMBuildFPExt(bl, y, cb->f32, "");
    }
  }
}

/* Merge softmax state (m, l, acc) with another one (mo, lo, ao): both rescaled
 * to the larger max. */
static bool merge(dec *Dc, LLVMValueRef *m, LLVMValueRef *l, LLVMValueRef *acc,
                  LLVMValueRef mo, LLVMValueRef lo, LLVMValueRef const *ao,
                  int n) {
  LLVMBuilderRef bl = Dc->A->b;
  LLVMValueRef mx = fmax2(Dc, *m, mo), ms = att_finite_max(Dc->A, mx);
  LLVMValueRef wa = fexp(Dc, LLVMBuildFSub(bl, *m, ms, "")),
               wb = fexp(Dc, LLVMBuildFSub(bl, mo, ms, ""));
  if (!mx || !wa || !wb)
    return false;
  *m = mx;
  *l = LLVMBuildFAdd(bl, LLVMBuildFMul(bl, *l, wa, ""),
                     LLVMBuildFMul(bl, lo, wb, ""), "");
  for (int e = 0; e < n; e++)
    acc[e] = LLVMBuildFAdd(bl, LLVMBuildFMul(bl, acc[e], wa, ""),
                           LLVMBuildFMul(bl, ao[e], wb, ""), "");
  return true;
}

/* State of one query row in allocas (mem2reg makes them registers). */
typedef struct row_state {
  LLVMValueRef m, l, acc; /* f32, f32, [vec x f32] */
} row_state;

static LLVMValueRef acc_at(dec *Dc, row_state *rs, int e) {
  LLVMValueRef idx[2] = {i32(Dc, 0), i32(Dc, e)};
  return LLVMBuildInBoundsGEP2(
      Dc->A->b, LLVMArrayType2(Dc->A->cb->f32, (uint64_t)Dc->vec), rs->acc, idx,
      2, "");
}

/* One loop iteration: `unroll` keys per lane group, from t0 + u * slots +
 * slot. */
static bool iteration(dec *Dc, row_state *st, LLVMValueRef (*q)[DEC_MAX_VEC],
                      LLVMValueRef b, LLVMValueRef t0, LLVMValueRef kend,
                      LLVMValueRef dk, LLVMValueRef dv) {
  att *A = Dc->A;
  cg_builder *cb = A->cb;
  LLVMBuilderRef bl = A->b;
  LLVMValueRef kx[Dc->unroll][DEC_MAX_VEC], vx[Dc->unroll][DEC_MAX_VEC],
      key[Dc->unroll], valid[Dc->unroll];
  LLVMValueRef last = LLVMBuildSub(bl, kend, ix(Dc, 1), "");
  LLVMValueRef slot = LLVMBuildZExt(bl, Dc->slot, A->it, "");
  for (int u = 0; u < Dc->unroll;
       u++) { /* every load first: all of them in flight */
    LLVMValueRef k = LLVMBuildAdd(
        bl, t0, LLVMBuildAdd(bl, slot, ix(Dc, (int64_t)u * Dc->slots), ""),
        "key");
    valid[u] = LLVMBuildICmp(bl, LLVMIntSLT, k, kend, "");
    key[u] = LLVMBuildSelect(bl, valid[u], k, last, "");
    load_part(Dc, A->kt, 2, 1, Dc->kvec, b, key[u], dk, kx[u]);
    load_part(Dc, A->v, 1, 2, Dc->vvec, b, key[u], dv, vx[u]);
  }
  for (int r = 0; r < Dc->rows; r++) {
    LLVMValueRef s[DEC_MAX_UNROLL];
    LLVMValueRef m = cg_load(cb, cb->f32, st[r].m, 4), mx = m;
    for (int u = 0; u < Dc->unroll; u++) {
      LLVMValueRef dot = LLVMBuildFMul(bl, q[r][0], kx[u][0], "");
      for (int e = 1; e < Dc->vec; e++)
        dot = LLVMBuildFAdd(bl, dot, LLVMBuildFMul(bl, q[r][e], kx[u][e], ""),
                            "");
      for (int x = 1; x < Dc->group; x *= 2) {
        LLVMValueRef o = lane_xor(Dc, dot, x);
        if (!o)
          return false;
        dot = LLVMBuildFAdd(bl, dot, o, "");
      }
      LLVMValueRef co[3] = {b, ix(Dc, r), key[u]};
      LLVMValueRef sc = att_score_ops(A, dot, co);
      if (!sc)
        return false;
      s[u] = LLVMBuildSelect(bl, valid[u], sc, f32(Dc, -INFINITY), "");
      mx = fmax2(Dc, mx, s[u]);
    }
    LLVMValueRef ms = att_finite_max(A, mx);
    LLVMValueRef alpha = fexp(Dc, LLVMBuildFSub(bl, m, ms, ""));
    LLVMValueRef l = LLVMBuildFMul(bl, cg_load(cb, cb->f32, st[r].l, 4), alpha,
                                   ""),
                 p[DEC_MAX_UNROLL];
    for (int u = 0; u < Dc->unroll; u++) {
      if (!(p[u] = fexp(Dc, LLVMBuildFSub(bl, s[u], ms, ""))))
        return false;
      l = LLVMBuildFAdd(bl, l, p[u], "");
    }
    for (int e = 0; e < Dc->vec; e++) {
      LLVMValueRef ap = acc_at(Dc, &st[r], e);
      LLVMValueRef a =
          LLVMBuildFMul(bl, cg_load(cb, cb->f32, ap, 4), alpha, "");
      for (int u = 0; u < Dc->unroll; u++)
        a = LLVMBuildFAdd(bl, a, LLVMBuildFMul(bl, p[u], vx[u][e], ""), "");
      cg_store(cb, a, ap, 4);
    }
    cg_store(cb, l, st[r].l, 4);
    cg_store(cb, mx, st[r].m, 4);
  }
  return true;
}

/* KR_FIXUP, after the work-group stored its chunk's partial rows: it counts itself in at its
 * batch-and-head entry's counter; the last of the entry's `split` work-groups merges the
 * partials as the combine kernel does (att_combine_store: the same bits) and puts the counter
 * back to 0 for the next run. The release fence at agent scope orders each thread's partial
 * stores before the count (the barrier orders them before thread 0's atomic); the last
 * work-group acquires before reading the others' partials. Like the split-K GEMM's fixup
 * (kernel_gemm.c emit_fixup). */
static bool merge_last(dec *Dc, LLVMValueRef b, LLVMValueRef tid, LLVMValueRef lds,
                       int split) {
  att *A = Dc->A;
  cg_builder *cb = A->cb;
  LLVMBuilderRef bl = A->b;
  const part_kernel *k = A->k;
  unsigned agent = LLVMGetSyncScopeID(cb->ctx, "agent", 5);
  int nargs = k->nin + k->nout;
  LLVMValueRef parts = LLVMGetParam(cb->fn, (unsigned)(nargs - 2)),
               counters = LLVMGetParam(cb->fn, (unsigned)(nargs - 1)),
               out = LLVMGetParam(cb->fn, (unsigned)k->nin);
  LLVMValueRef slot =
      LLVMBuildInBoundsGEP2(bl, cb->i32, counters, &b, 1, "counter");
  LLVMBuildFenceSyncScope(bl, LLVMAtomicOrderingRelease, agent, "");
  cg_barrier(cb); /* also: every thread is done with the state in LDS */
  LLVMBasicBlockRef count =
      LLVMAppendBasicBlockInContext(cb->ctx, cb->fn, "count");
  LLVMBasicBlockRef counted =
      LLVMAppendBasicBlockInContext(cb->ctx, cb->fn, "counted");
  LLVMBasicBlockRef fix =
      LLVMAppendBasicBlockInContext(cb->ctx, cb->fn, "merge");
  LLVMBasicBlockRef reset =
      LLVMAppendBasicBlockInContext(cb->ctx, cb->fn, "merge_reset");
  LLVMBasicBlockRef done =
      LLVMAppendBasicBlockInContext(cb->ctx, cb->fn, "merged");
  LLVMValueRef first = LLVMBuildICmp(bl, LLVMIntEQ, tid, i32(Dc, 0), "");
  LLVMBuildCondBr(bl, first, count, counted);
  LLVMPositionBuilderAtEnd(bl, count);
  LLVMValueRef old =
      LLVMBuildAtomicRMWSyncScope(bl, LLVMAtomicRMWBinOpAdd, slot, i32(Dc, 1),
                                  LLVMAtomicOrderingMonotonic, agent);
  LLVMValueRef last = LLVMBuildSelect(
      bl, LLVMBuildICmp(bl, LLVMIntEQ, old, i32(Dc, split - 1), ""),
      f32(Dc, 1), f32(Dc, 0), "");
  cg_store(cb, last, lds, 4);
  LLVMBuildBr(bl, counted);
  LLVMPositionBuilderAtEnd(bl, counted);
  cg_barrier(cb);
  LLVMValueRef flag = cg_load(cb, cb->f32, lds, 4);
  LLVMBuildCondBr(bl, LLVMBuildFCmp(bl, LLVMRealONE, flag, f32(Dc, 0), ""),
                  fix, done);
  LLVMPositionBuilderAtEnd(bl, fix);
  LLVMBuildFenceSyncScope(bl, LLVMAtomicOrderingAcquire, agent, "");
  LLVMValueRef t = LLVMBuildZExt(bl, tid, A->it, "");
  cg_loop elems = cg_loop_begin(cb, t, ix(Dc, Dc->rows * A->Dv), "merge_elems");
  LLVMValueRef r = LLVMBuildSDiv(bl, elems.iv, ix(Dc, A->Dv), ""),
               d = LLVMBuildSRem(bl, elems.iv, ix(Dc, A->Dv), "");
  LLVMValueRef bs =
      LLVMBuildAdd(bl, LLVMBuildMul(bl, b, ix(Dc, A->S), ""), r, "bs");
  if (!att_combine_store(A, parts, out, bs, d, split))
    return false;
  cg_loop_end(cb, &elems, DEC_LANES);
  LLVMBuildCondBr(bl, first, reset, done);
  LLVMPositionBuilderAtEnd(bl, reset);
  cg_store(cb, i32(Dc, 0), slot, 4);
  LLVMBuildBr(bl, done);
  LLVMPositionBuilderAtEnd(bl, done);
  return true;
}

bool cg_att_emit_decode(att *A, cg_kernel_info *info, bool partial, int split,
                        int64_t chunk) {
  cg_builder *cb = A->cb;
  LLVMBuilderRef bl = A->b;
  const part_kernel *k = A->k;
  dec D;
  if (!shape(A, &D))
    return false;
  dec *Dc = &D;
  D.kvec = D.vec > 1 && contiguous(Dc, A->kt, 2, 1);
  D.vvec = D.vec > 1 && contiguous(Dc, A->v, 1, 2);
  D.unroll = (int)cg_tune_decode_unroll(chunk, D.slots);
  int ws = cb->target->info->wave_size, waves = DEC_LANES / ws;
  int nargs = k->nin + k->nout;
  /* KR_FIXUP: outputs, then the partials and the counters, which the last work-group reads */
  bool fixup = k->role == KR_FIXUP;
  const char **access = calloc((size_t)nargs + 1, sizeof(char *));
  for (int i = 0; i < nargs; i++)
    access[i] = i < k->nin ? "read_only" : fixup && i >= nargs - 2 ? "read_write" : "write_only";
  cg_kernel_begin(cb, k->name, nargs, access, DEC_LANES);
  cg_launch_1d(info, k, DEC_LANES, split * A->B, split * A->B * DEC_LANES, 1,
               access);
  free(access);
  char name[96];
  snprintf(name, sizeof name, "%s.state", k->name);
  int64_t w = A->Dv + 2;
  LLVMValueRef lds = cg_lds_alloc(
      cb, name, LLVMArrayType2(cb->f32, (uint64_t)(waves * D.rows * w)), 16);
  LLVMValueRef tid = cg_thread_id_x(cb), gid32 = cg_group_id_x(cb);
  if (!tid || !gid32)
    return false;
  D.lane = LLVMBuildURem(bl, tid, i32(Dc, ws), "lane");
  LLVMValueRef wave = LLVMBuildUDiv(bl, tid, i32(Dc, ws), "wave");
  D.part = LLVMBuildURem(bl, tid, i32(Dc, D.group), "part");
  D.slot = LLVMBuildUDiv(bl, tid, i32(Dc, D.group), "slot");
  LLVMValueRef gid = LLVMBuildZExt(bl, gid32, A->it, "");
  LLVMValueRef chunk_i = LLVMBuildSDiv(bl, gid, ix(Dc, A->B), "chunk");
  LLVMValueRef b = LLVMBuildSRem(bl, gid, ix(Dc, A->B), "b");
  LLVMValueRef kstart = LLVMBuildMul(bl, chunk_i, ix(Dc, chunk), "kstart");
  LLVMValueRef kend = LLVMBuildAdd(bl, kstart, ix(Dc, chunk), "");
  kend =
      LLVMBuildSelect(bl, LLVMBuildICmp(bl, LLVMIntSLT, kend, ix(Dc, A->L), ""),
                      kend, ix(Dc, A->L), "kend");
  kend = att_causal_end(A, kstart, kend, ix(Dc, 0), D.rows);
  /* this lane's head elements: [d0, d0 + vec), clamped into K's and V's rows
   * (lanes past the head compute on the first part with q = 0 and store
   * nothing) */
  LLVMValueRef d0 = LLVMBuildZExt(
      bl, LLVMBuildMul(bl, D.part, i32(Dc, D.vec), ""), A->it, "d0");
  LLVMValueRef kin = LLVMBuildICmp(bl, LLVMIntSLT, d0, ix(Dc, A->D), "");
  LLVMValueRef dk = LLVMBuildSelect(bl, kin, d0, ix(Dc, 0), "dk");
  LLVMValueRef dv =
      LLVMBuildSelect(bl, LLVMBuildICmp(bl, LLVMIntSLT, d0, ix(Dc, A->Dv), ""),
                      d0, ix(Dc, 0), "dv");
  LLVMValueRef q[CG_DECODE_ROWS][DEC_MAX_VEC];
  row_state st[CG_DECODE_ROWS];
  LLVMTypeRef acc_t = LLVMArrayType2(cb->f32, (uint64_t)D.vec);
  for (int r = 0; r < D.rows; r++) {
    for (int e = 0; e < D.vec; e++) {
      LLVMValueRef co[3] = {b, ix(Dc, r), LLVMBuildAdd(bl, dk, ix(Dc, e), "")};
      LLVMValueRef x = cg_load_elem(cb, A->q->type->elem,
                                    att_read_ptr(A, A->q, co), ix(Dc, 0));
      x = LLVMTypeOf(x) == cb->f32 ? x : LLVMBuildFPExt(bl, x, cb->f32, "");
      q[r][e] = LLVMBuildSelect(bl, kin, x, f32(Dc, 0), "");
    }
    st[r].m = LLVMBuildAlloca(bl, cb->f32, "m");
    st[r].l = LLVMBuildAlloca(bl, cb->f32, "l");
    st[r].acc = LLVMBuildAlloca(bl, acc_t, "acc");
    cg_store(cb, f32(Dc, -INFINITY), st[r].m, 4);
    cg_store(cb, f32(Dc, 0), st[r].l, 4);
    cg_store(cb, LLVMConstNull(acc_t), st[r].acc, 4);
  }
  cg_loop keys = cg_loop_begin(cb, kstart, kend, "keys");
  if (!iteration(Dc, st, q, b, keys.iv, kend, dk, dv))
    return false;
  cg_loop_end(cb, &keys, (int64_t)D.slots * D.unroll);

  /* merge the key slots of each wave: lanes l and l ^ x (x >= G) hold the same
   * part */
  LLVMValueRef m[CG_DECODE_ROWS], l[CG_DECODE_ROWS],
      acc[CG_DECODE_ROWS][DEC_MAX_VEC];
  for (int r = 0; r < D.rows; r++) {
    m[r] = cg_load(cb, cb->f32, st[r].m, 4),
    l[r] = cg_load(cb, cb->f32, st[r].l, 4);
    for (int e = 0; e < D.vec; e++)
      acc[r][e] = cg_load(cb, cb->f32, acc_at(Dc, &st[r], e), 4);
    for (int x = D.group; x < ws; x *= 2) {
      LLVMValueRef ao[DEC_MAX_VEC], mo = lane_xor(Dc, m[r], x),
                                    lo = lane_xor(Dc, l[r], x);
      for (int e = 0; e < D.vec; e++)
        ao[e] = lane_xor(Dc, acc[r][e], x);
      if (!mo || !lo || !merge(Dc, &m[r], &l[r], acc[r], mo, lo, ao, D.vec))
        return false;
    }
  }
  /* lanes 0..G-1 of each wave: its state into LDS [waves][rows][Dv + 2] */
  LLVMBasicBlockRef body =
      LLVMAppendBasicBlockInContext(cb->ctx, cb->fn, "wave_out");
  LLVMBasicBlockRef done =
      LLVMAppendBasicBlockInContext(cb->ctx, cb->fn, "wave_out_done");
  LLVMBuildCondBr(bl,
                  LLVMBuildICmp(bl, LLVMIntULT, D.lane, i32(Dc, D.group), ""),
                  body, done);
  LLVMPositionBuilderAtEnd(bl, body);
  LLVMValueRef din = LLVMBuildICmp(bl, LLVMIntSLT, d0, ix(Dc, A->Dv), "");
  LLVMValueRef d32 = LLVMBuildTrunc(bl, d0, cb->i32, "");
  for (int r = 0; r < D.rows; r++) {
    LLVMValueRef base = LLVMBuildMul(
        bl,
        LLVMBuildAdd(bl, LLVMBuildMul(bl, wave, i32(Dc, D.rows), ""),
                     i32(Dc, r), ""),
        i32(Dc, w), "");
    /* lanes past Dv (G rounded up) write the row's m slot with m, the value
     * stored there below */
    for (int e = 0; e < D.vec; e++) {
      LLVMValueRef idx = LLVMBuildAdd(
          bl, base,
          LLVMBuildSelect(bl, din, LLVMBuildAdd(bl, d32, i32(Dc, e), ""),
                          i32(Dc, A->Dv), ""),
          "");
      LLVMValueRef x = LLVMBuildSelect(bl, din, acc[r][e], m[r], "");
      cg_store(cb, x, LLVMBuildInBoundsGEP2(bl, cb->f32, lds, &idx, 1, ""), 4);
    }
    /* every lane of the group holds the same m and l */
    for (int i = 0; i < 2; i++) {
      LLVMValueRef idx = LLVMBuildAdd(bl, base, i32(Dc, A->Dv + i), "");
      cg_store(cb, i ? l[r] : m[r],
               LLVMBuildInBoundsGEP2(bl, cb->f32, lds, &idx, 1, ""), 4);
    }
  }
  LLVMBuildBr(bl, done);
  LLVMPositionBuilderAtEnd(bl, done);
  cg_barrier(cb);

  /* the waves' states merged per output element (row r, element d) */
  const value *from = att_result_value(A), *out = k->out_vals[0];
  LLVMTypeRef mt = cg_mem_type(cb, out->type->elem);
  LLVMValueRef dst = LLVMGetParam(cb->fn, (unsigned)(fixup ? nargs - 2 : k->nin));
  LLVMValueRef t = LLVMBuildZExt(bl, tid, A->it, "");
  cg_loop outs = cg_loop_begin(cb, t, ix(Dc, D.rows * A->Dv), "outs");
  LLVMValueRef r = LLVMBuildSDiv(bl, outs.iv, ix(Dc, A->Dv), "r"),
               d = LLVMBuildSRem(bl, outs.iv, ix(Dc, A->Dv), "d");
  LLVMValueRef r32 = LLVMBuildTrunc(bl, r, cb->i32, ""),
               d32o = LLVMBuildTrunc(bl, d, cb->i32, "");
  LLVMValueRef mm = f32(Dc, -INFINITY), lv = f32(Dc, 0), ov = f32(Dc, 0),
               mw[64], lw[64], ow[64];
  for (int i = 0; i < waves; i++) {
    LLVMValueRef base = LLVMBuildMul(
        bl, LLVMBuildAdd(bl, i32(Dc, (int64_t)i * D.rows), r32, ""), i32(Dc, w),
        "");
    LLVMValueRef at[3] = {LLVMBuildAdd(bl, base, i32(Dc, A->Dv), ""),
                          LLVMBuildAdd(bl, base, i32(Dc, A->Dv + 1), ""),
                          LLVMBuildAdd(bl, base, d32o, "")};
    mw[i] = cg_load(cb, cb->f32,
                    LLVMBuildInBoundsGEP2(bl, cb->f32, lds, &at[0], 1, ""), 4);
    lw[i] = cg_load(cb, cb->f32,
                    LLVMBuildInBoundsGEP2(bl, cb->f32, lds, &at[1], 1, ""), 4);
    ow[i] = cg_load(cb, cb->f32,
                    LLVMBuildInBoundsGEP2(bl, cb->f32, lds, &at[2], 1, ""), 4);
    mm = fmax2(Dc, mm, mw[i]);
  }
  LLVMValueRef ms = att_finite_max(A, mm);
  for (int i = 0; i < waves; i++) {
    LLVMValueRef wt = fexp(Dc, LLVMBuildFSub(bl, mw[i], ms, ""));
    if (!wt)
      return false;
    lv = LLVMBuildFAdd(bl, lv, LLVMBuildFMul(bl, lw[i], wt, ""), "");
    ov = LLVMBuildFAdd(bl, ov, LLVMBuildFMul(bl, ow[i], wt, ""), "");
  }
  if (partial) { /* the chunk's unnormalised row, m and l into the workspace [P,
                    B, S, Dv + 2] */
    LLVMValueRef row = LLVMBuildAdd(
        bl,
        LLVMBuildMul(bl,
                     LLVMBuildAdd(bl,
                                  LLVMBuildMul(bl, chunk_i, ix(Dc, A->B), ""),
                                  b, ""),
                     ix(Dc, A->S), ""),
        r, "");
    LLVMValueRef base = LLVMBuildMul(bl, row, ix(Dc, w), "");
    LLVMValueRef off = LLVMBuildAdd(bl, base, d, "");
    cg_store(cb, ov, LLVMBuildInBoundsGEP2(bl, cb->f32, dst, &off, 1, ""), 4);
    LLVMBasicBlockRef first =
        LLVMAppendBasicBlockInContext(cb->ctx, cb->fn, "stats");
    LLVMBasicBlockRef next =
        LLVMAppendBasicBlockInContext(cb->ctx, cb->fn, "stats_done");
    LLVMBuildCondBr(bl, LLVMBuildICmp(bl, LLVMIntEQ, d, ix(Dc, 0), ""), first,
                    next);
    LLVMPositionBuilderAtEnd(bl, first);
    LLVMValueRef so[2] = {LLVMBuildAdd(bl, base, ix(Dc, A->Dv), ""),
                          LLVMBuildAdd(bl, base, ix(Dc, A->Dv + 1), "")};
    cg_store(cb, mm, LLVMBuildInBoundsGEP2(bl, cb->f32, dst, &so[0], 1, ""), 4);
    cg_store(cb, lv, LLVMBuildInBoundsGEP2(bl, cb->f32, dst, &so[1], 1, ""), 4);
    LLVMBuildBr(bl, next);
    LLVMPositionBuilderAtEnd(bl, next);
  } else {
    LLVMValueRef co[3] = {b, r, d};
    LLVMValueRef off = att_write_offset(A, from, co);
    LLVMValueRef x = LLVMBuildFDiv(bl, ov, lv, "");
    LLVMTypeRef et = cg_elem_type(cb, out->type->elem);
    cg_store(cb, et == cb->f32 ? x : LLVMBuildFPTrunc(bl, x, et, ""),
             LLVMBuildInBoundsGEP2(bl, mt, dst, &off, 1, ""),
             (unsigned)elem_type_bytes(out->type->elem));
  }
  cg_loop_end(cb, &outs, DEC_LANES);
  if (fixup && !merge_last(Dc, b, tid, lds, split))
    return false;
  LLVMBuildRetVoid(bl);
  if (partial)
    snprintf(info->tuning, sizeof info->tuning,
             "{\"kernel\":\"decode\",\"block_rows\":%d,\"block_keys\":%d,"
             "\"split_kv\":%d,\"chunk\":%lld%s}",
             D.rows, D.slots * D.unroll, split, (long long)chunk,
             fixup ? ",\"split_kv_form\":\"lastwg\"" : "");
  else
    snprintf(info->tuning, sizeof info->tuning,
             "{\"kernel\":\"decode\",\"block_rows\":%d,\"block_keys\":%d}",
             D.rows, D.slots * D.unroll);
  snprintf(info->matrix_instruction, sizeof info->matrix_instruction, "fma");
  att_add_problem(A, info);
  return !cb->failed;
}
