/* kernel_mxgemm.c: a block-scaled (mxfp4) GEMM (partition/mxgemm.c) on the
 * target's block-scaled MFMA (target_scaled_matrix_table, the 16x16 row): the
 * fp4 bytes and E8M0 scale bytes go to the instruction as they are in memory,
 * nothing is decoded (docs/migraphx.md, "MX types and block-scaled GEMMs").
 *
 * One wave per 16 x 16 output tile of one batch. Lane L holds row (A) / column
 * (B) L % 16 and the 32 consecutive K values of block L / 16 of each 128-K
 * step, 8 nibbles per dword with the lower K in the low nibble, and that
 * block's scale byte (docs/emulator.md, "Block-scaled MFMA"). An operand whose
 * K runs along its packed bytes is one 16-byte load per lane and step; any
 * other affine layout (tosa.matmul's [K][N] B, packed along N) gathers its 32
 * nibbles one by one. Rows past M / N and blocks past K read the nibble 0
 * (whose product is 0) with scale 1.0, so every lane is on for the MFMA and K
 * needs only be a multiple of 32. The instruction accumulates in f32; register
 * r of lane L is D[4 (L / 16) + r][L % 16]. */
#include "gemm.h"

#include <stdio.h>
#include <string.h>

enum { MX_WAVE = 64, MX_TILE = 16, MX_KSTEP = 128 };

typedef struct mxk {
  cg_builder *cb;
  LLVMBuilderRef b;
  const part_mx_gemm *mx;
  LLVMValueRef lane_r, lane_blk; /* L % 16, L / 16 (i64) */
} mxk;

static LLVMValueRef c64(mxk *X, int64_t v) { return LLVMConstInt(X->cb->i64, (unsigned long long)v, 1); }
static LLVMValueRef add(mxk *X, LLVMValueRef a, LLVMValueRef b) { return LLVMBuildAdd(X->b, a, b, ""); }
static LLVMValueRef mulc(mxk *X, LLVMValueRef a, int64_t c) { return LLVMBuildMul(X->b, a, c64(X, c), ""); }

/* The byte at element offset `at` of base, or 0 where !ok (the address clamped
 * to 0). */
static LLVMValueRef byte_at(mxk *X, LLVMValueRef base, LLVMValueRef at, LLVMValueRef ok) {
  LLVMValueRef off = LLVMBuildSelect(X->b, ok, at, c64(X, 0), "");
  LLVMValueRef p = LLVMBuildInBoundsGEP2(X->b, X->cb->i8, base, &off, 1, "");
  LLVMValueRef v = LLVMBuildZExt(X->b, cg_load(X->cb, X->cb->i8, p, 1), X->cb->i32, "");
  return LLVMBuildSelect(X->b, ok, v, LLVMConstInt(X->cb->i32, 0, 0), "");
}

/* Whether operand o's K runs along its bytes from a whole byte: one 16-byte
 * load per block. */
static bool k_contiguous(const part_mx_operand *o) {
  return o->d[2] == 1 && o->d_off % 2 == 0 && o->d[0] % 2 == 0 && o->d[1] % 2 == 0;
}

/* This lane's 32 nibbles of operand o (as <4 x i32>) and its scale byte (i32)
 * for the block starting at K = kb * 32, in batch `bt`, row `row`; `ok`: the
 * row and the block exist. */
static void lane_operand(mxk *X, const part_mx_operand *o, LLVMValueRef data, LLVMValueRef scale, LLVMValueRef bt,
                         LLVMValueRef row, LLVMValueRef kb, LLVMValueRef ok, LLVMValueRef *vec, LLVMValueRef *sc) {
  cg_builder *cb = X->cb;
  LLVMBuilderRef b = X->b;
  LLVMValueRef nib =
      add(X, add(X, c64(X, o->d_off), mulc(X, bt, o->d[0])), add(X, mulc(X, row, o->d[1]), mulc(X, kb, 32 * o->d[2])));
  LLVMTypeRef v4 = LLVMVectorType(cb->i32, 4);
  if (k_contiguous(o)) {
    LLVMValueRef off = LLVMBuildSelect(b, ok, LLVMBuildAShr(b, nib, c64(X, 1), ""), c64(X, 0), "");
    LLVMValueRef p = LLVMBuildInBoundsGEP2(b, cb->i8, data, &off, 1, "");
    LLVMValueRef v = cg_load(cb, v4, p, 1);
    *vec = LLVMBuildSelect(b, ok, v, LLVMConstNull(v4), "");
  } else {
    LLVMValueRef words[4] = {0};
    for (int j = 0; j < 32; j++) {
      LLVMValueRef at = add(X, nib, c64(X, j * o->d[2]));
      LLVMValueRef byte = byte_at(X, data, LLVMBuildAShr(b, at, c64(X, 1), ""), ok);
      LLVMValueRef sh = LLVMBuildShl(b, LLVMBuildTrunc(b, LLVMBuildAnd(b, at, c64(X, 1), ""), cb->i32, ""),
                                     LLVMConstInt(cb->i32, 2, 0), "");
      LLVMValueRef n = LLVMBuildAnd(b, LLVMBuildLShr(b, byte, sh, ""), LLVMConstInt(cb->i32, 15, 0), "");
      n = LLVMBuildShl(b, n, LLVMConstInt(cb->i32, (unsigned long long)(4 * (j % 8)), 0), "");
      words[j / 8] = words[j / 8] ? LLVMBuildOr(b, words[j / 8], n, "") : n;
    }
    LLVMValueRef v = LLVMGetUndef(v4);
    for (int w = 0; w < 4; w++)
      v = LLVMBuildInsertElement(b, v, words[w], LLVMConstInt(cb->i32, (unsigned long long)w, 0), "");
    *vec = v;
  }
  LLVMValueRef s =
      add(X, add(X, c64(X, o->s_off), mulc(X, bt, o->s[0])), add(X, mulc(X, row, o->s[1]), mulc(X, kb, o->s[2])));
  LLVMValueRef e = byte_at(X, scale, s, ok);
  *sc = LLVMBuildSelect(b, ok, e, LLVMConstInt(cb->i32, 127, 0), ""); /* 1.0 where no data */
}

/* The kernel argument holding root's bytes: the kernel reads them through
 * reshapes (views, which move no byte), so the argument may be such a reshape
 * of root. */
static LLVMValueRef root_ptr(cg_builder *cb, const part_kernel *k, const value *root) {
  for (int i = 0; i < k->nin; i++) {
    const value *v = k->in_vals[i];
    while (v != root && v->def && v->def->kind == OP_RESHAPE)
      v = v->def->operands[0];
    if (v == root)
      return LLVMGetParam(cb->fn, (unsigned)i);
  }
  return NULL;
}

static LLVMValueRef lt(mxk *X, LLVMValueRef a, int64_t n) { return LLVMBuildICmp(X->b, LLVMIntSLT, a, c64(X, n), ""); }

bool cg_emit_mxgemm(cg_builder *cb, const graph *g, const partition_plan *p, const part_kernel *k,
                    cg_kernel_info *info) {
  (void)g, (void)p;
  part_mx_gemm mx;
  const target_scaled_matrix *row = target_scaled_matrix_find(cb->target->info->name, MX_TILE);
  if (!row || !part_mx_match(k->anchor, &mx) || k->nout != 1 || k->out_vals[0] != k->anchor->results[0] ||
      cb->target->info->wave_size != MX_WAVE) {
    diag_error(cb->diag, k->anchor->loc, "internal error: kernel '%s' is no block-scaled GEMM of %s", k->name,
               cb->target->id);
    cb->failed = true;
    return false;
  }
  mxk X = {.cb = cb, .b = cb->b, .mx = &mx};
  LLVMBuilderRef b = cb->b;
  int nargs = k->nin + k->nout;
  const char *access[64];
  for (int i = 0; i < nargs && i < 64; i++)
    access[i] = i < k->nin ? "read_only" : "write_only";
  int64_t tm = (mx.m + MX_TILE - 1) / MX_TILE, tn = (mx.n + MX_TILE - 1) / MX_TILE;
  int64_t groups = mx.batch * tm * tn;
  cg_kernel_begin(cb, k->name, nargs, access, MX_WAVE);
  cg_launch_1d(info, k, MX_WAVE, groups, groups * MX_WAVE, 1, access);
  LLVMValueRef lane = cg_thread_id_x(cb), gid = cg_group_id_x(cb);
  if (!lane || !gid)
    return false;
  lane = LLVMBuildZExt(b, lane, cb->i64, "lane");
  gid = LLVMBuildZExt(b, gid, cb->i64, "group");
  X.lane_r = LLVMBuildURem(b, lane, c64(&X, MX_TILE), "");
  X.lane_blk = LLVMBuildUDiv(b, lane, c64(&X, MX_TILE), "");
  LLVMValueRef bt = LLVMBuildUDiv(b, gid, c64(&X, tm * tn), "batch");
  LLVMValueRef t = LLVMBuildURem(b, gid, c64(&X, tm * tn), "");
  LLVMValueRef m0 = mulc(&X, LLVMBuildUDiv(b, t, c64(&X, tn), ""), MX_TILE);
  LLVMValueRef n0 = mulc(&X, LLVMBuildURem(b, t, c64(&X, tn), ""), MX_TILE);
  LLVMValueRef am = add(&X, m0, X.lane_r), bn = add(&X, n0, X.lane_r);
  LLVMValueRef pa = root_ptr(cb, k, mx.a.data), psa = root_ptr(cb, k, mx.a.scale);
  LLVMValueRef pb = root_ptr(cb, k, mx.b.data), psb = root_ptr(cb, k, mx.b.scale);
  if (!pa || !psa || !pb || !psb) {
    diag_error(cb->diag, k->anchor->loc,
               "internal error: kernel '%s' does not read the bytes of its fp4 "
               "operands",
               k->name);
    cb->failed = true;
    return false;
  }
  LLVMValueRef out = LLVMGetParam(cb->fn, (unsigned)k->nin);
  LLVMTypeRef v4f = LLVMVectorType(cb->f32, 4), v4i = LLVMVectorType(cb->i32, 4);
  LLVMValueRef acc_p = LLVMBuildAlloca(b, v4f, "acc");
  cg_store(cb, LLVMConstNull(v4f), acc_p, 16);
  int64_t kblocks = mx.k / 32;
  cg_loop l = cg_loop_begin(cb, c64(&X, 0), c64(&X, (kblocks + 3) / 4), "kstep");
  LLVMValueRef kb = add(&X, mulc(&X, l.iv, MX_KSTEP / 32), X.lane_blk);
  LLVMValueRef kin = lt(&X, kb, kblocks);
  LLVMValueRef va, vb, sa, sb;
  lane_operand(&X, &mx.a, pa, psa, bt, am, kb, LLVMBuildAnd(b, kin, lt(&X, am, mx.m), ""), &va, &sa);
  lane_operand(&X, &mx.b, pb, psb, bt, bn, kb, LLVMBuildAnd(b, kin, lt(&X, bn, mx.n), ""), &vb, &sb);
  LLVMValueRef zero = LLVMConstInt(cb->i32, 0, 0), fp4 = LLVMConstInt(cb->i32, 4, 0);
  LLVMValueRef args[9] = {va, vb, cg_load(cb, v4f, acc_p, 16), fp4, fp4, zero, sa, zero, sb};
  LLVMTypeRef ov[2] = {v4i, v4i};
  LLVMValueRef d = cg_intrinsic(cb, row->intrinsic, ov, 2, args, 9);
  if (!d)
    return false;
  cg_store(cb, d, acc_p, 16);
  cg_loop_end(cb, &l, 1);
  /* D: register r of lane L is row 4 (L / 16) + r, column L % 16 of the tile */
  LLVMValueRef acc = cg_load(cb, v4f, acc_p, 16);
  gemm_keep_in_block(cb, &acc, 1); /* not into the guarded stores' branches */
  LLVMValueRef col = bn, ncol = lt(&X, col, mx.n);
  for (int r = 0; r < 4; r++) {
    LLVMValueRef rowi = add(&X, add(&X, m0, mulc(&X, X.lane_blk, 4)), c64(&X, r));
    LLVMBasicBlockRef st = LLVMAppendBasicBlockInContext(cb->ctx, cb->fn, "store");
    LLVMBasicBlockRef next = LLVMAppendBasicBlockInContext(cb->ctx, cb->fn, "next");
    LLVMBuildCondBr(b, LLVMBuildAnd(b, ncol, lt(&X, rowi, mx.m), ""), st, next);
    LLVMPositionBuilderAtEnd(b, st);
    LLVMValueRef at = add(&X, mulc(&X, add(&X, mulc(&X, bt, mx.m), rowi), mx.n), col);
    LLVMValueRef ptr = LLVMBuildInBoundsGEP2(b, cb->f32, out, &at, 1, "");
    cg_store(cb, LLVMBuildExtractElement(b, acc, LLVMConstInt(cb->i32, (unsigned long long)r, 0), ""), ptr, 4);
    LLVMBuildBr(b, next);
    LLVMPositionBuilderAtEnd(b, next);
  }
  LLVMBuildRetVoid(b);
  snprintf(info->tuning, sizeof info->tuning,
           "{\"kernel\":\"mxgemm\",\"bm\":%d,\"bn\":%d,\"bk\":%d,\"wm\":%d,\"wn\":%d,\"waves\":1,"
           "\"mma\":\"%dx%dx%d\",\"a\":\"%s\",\"b\":\"%s\",\"problem\":\"mxgemm:%lldx%lldx%lldx%lld:fp4\"}",
           MX_TILE, MX_TILE, MX_KSTEP, MX_TILE, MX_TILE, row->m, row->n, row->k,
           k_contiguous(&mx.a) ? "k16" : "nibbles", k_contiguous(&mx.b) ? "k16" : "nibbles", (long long)mx.batch,
           (long long)mx.m, (long long)mx.n, (long long)mx.k);
  snprintf(info->matrix_instruction, sizeof info->matrix_instruction, "%s", row->mnemonic);
  return !cb->failed;
}
