/* kernel_gemv.c: the skinny-GEMM kernel (M <= 16, decode-time matmuls and batch-1 fully connected
 * layers; tuning.c chooses it). Such a GEMM is bound by reading B once, so B is streamed with
 * 128-bit loads and nothing goes through LDS on the way in: every lane of a wave owns columns of
 * the output (tosa.matmul's [K][N] B: V adjacent columns, one 16-byte load per k row; the [N][K]
 * weights of fully_connected: one column, 16-byte loads along its k), and all lanes of a wave share
 * the same k, so the A elements they need are wave-uniform (scalar loads, no vector memory
 * traffic). In the sliced form (P->kl > 1, [K][N] B only) a wave's lanes are kl groups, each on
 * its own k rows and all on the same bn columns: a column block as narrow as one cache line per
 * B row, so that enough work-groups exist without splitting K; A then differs across a wave's
 * lanes and is read with vector loads. The waves of a work-group take interleaved K blocks; their
 * partial sums (one per wave and lane group) meet in LDS,
 * where the work-group adds them in wave order (deterministic) and the caller's epilogue stores
 * each output element. When even then too few work-groups exist to keep enough loads in flight,
 * tuning.c splits K over work-groups (split-K partials + the combine kernel). */
#include "gemm.h"

#include <stdlib.h>
#include <string.h>

typedef struct gv {
  cg_builder *cb;
  const gemv_kernel *g;
  const gemm_problem *pb;
  const gemm_params *P;
  bool kc;                 /* B is [N][K] (k-contiguous) */
  bool int_acc;
  int V, U, W, wave, bn, bk, M, nacc;
  int KL;                  /* lane groups of a wave on different k rows (1: all on one) */
  int es;
  LLVMTypeRef mem, acc_t;  /* operand element in memory (bf16 as i16), accumulator */
  LLVMValueRef acc;        /* alloca [nacc x acc_t]: SROA turns it into registers */
  LLVMValueRef batch, col, lane, wave_id, tid, kend;
  LLVMValueRef kofs, part; /* this lane's first row in a block (its group's), its partial's index
                            * among the work-group's W * KL (wave-major) */
} gv;

static LLVMValueRef c32(gv *G, int64_t v) { return LLVMConstInt(G->cb->i32, (unsigned long long)v, 1); }

int gemv_threads(const target_info *t, const gemm_params *P) { return P->kwaves * t->wave_size; }

int64_t gemv_groups(const gemm_problem *pb, const gemm_params *P) {
  return pb->batch * ((pb->n + P->bn - 1) / P->bn);
}

void gemv_params_json(const gemm_params *P, char *buf, size_t size) {
  char kl[24] = "";
  if (P->kl > 1) /* the sliced form */
    snprintf(kl, sizeof kl, ",\"kl\":%d", P->kl);
  snprintf(buf, size,
           "{\"kernel\":\"gemv\",\"bm\":%d,\"bn\":%d,\"bk\":%d,\"wm\":%d,\"wn\":%d,\"waves\":%d,"
           "\"mma\":\"1x1x1\",\"va\":%d,\"vb\":%d%s}",
           P->bm, P->bn, P->bk, P->wm, P->wn, P->kwaves, P->va, P->vb, kl);
}

/* Element x (memory type) as the accumulator type: f16/bf16 widened, i8 sign-extended minus its
 * zero point. */
static LLVMValueRef widen(gv *G, LLVMValueRef x, int zp) {
  LLVMBuilderRef b = G->cb->b;
  switch (G->pb->in) {
  case ET_F16:
    return LLVMBuildFPExt(b, x, G->cb->f32, "");
  case ET_BF16:
    return LLVMBuildBitCast(b, LLVMBuildShl(b, LLVMBuildZExt(b, x, G->cb->i32, ""), c32(G, 16), ""),
                            G->cb->f32, "");
  case ET_I8: {
    LLVMValueRef v = LLVMBuildSExt(b, x, G->cb->i32, "");
    return zp ? LLVMBuildSub(b, v, c32(G, zp), "") : v;
  }
  default:
    return x;
  }
}

static LLVMValueRef acc_ptr(gv *G, int i) {
  LLVMValueRef idx[2] = {c32(G, 0), c32(G, i)};
  return LLVMBuildInBoundsGEP2(G->cb->b, LLVMArrayType(G->acc_t, (unsigned)G->nacc), G->acc, idx, 2, "");
}

/* acc[i] += a * b */
static void mac(gv *G, int i, LLVMValueRef a, LLVMValueRef bx) {
  LLVMBuilderRef b = G->cb->b;
  LLVMValueRef p = acc_ptr(G, i);
  LLVMValueRef c = cg_load(G->cb, G->acc_t, p, 4), r;
  if (G->int_acc) {
    r = LLVMBuildAdd(b, c, LLVMBuildMul(b, a, bx, ""), "");
  } else {
    LLVMValueRef args[3] = {a, bx, c};
    LLVMTypeRef f32 = G->cb->f32;
    r = cg_intrinsic(G->cb, "llvm.fmuladd", &f32, 1, args, 3);
  }
  cg_store(G->cb, r, p, 4);
}

static unsigned al(int bytes) { return (unsigned)(bytes >= 16 ? 16 : bytes); }

/* Load n elements at element offset off of base as a vector (n > 1) or scalar; align in bytes. */
static LLVMValueRef load_n(gv *G, LLVMValueRef base, LLVMValueRef off, int n, unsigned align) {
  LLVMTypeRef t = n > 1 ? LLVMVectorType(G->mem, (unsigned)n) : G->mem;
  return cg_load(G->cb, t, LLVMBuildInBoundsGEP2(G->cb->b, G->mem, base, &off, 1, ""), align);
}

static LLVMValueRef elem(gv *G, LLVMValueRef v, int n, int i) {
  return n > 1 ? LLVMBuildExtractElement(G->cb->b, v, c32(G, i), "") : v;
}

/* Element offset of A[batch][m][k]. */
static LLVMValueRef a_off(gv *G, int m, LLVMValueRef k) {
  LLVMBuilderRef b = G->cb->b;
  if (G->g->prologue) /* this batch entry's rows in LDS */
    return LLVMBuildAdd(b, c32(G, (int64_t)m * G->pb->k), k, "");
  LLVMValueRef row = LLVMBuildAdd(b, LLVMBuildMul(b, G->batch, c32(G, G->pb->m), ""), c32(G, m), "");
  return LLVMBuildAdd(b, LLVMBuildMul(b, row, c32(G, G->pb->k), ""), k, "");
}

/* One K block's B as loaded (block_load), before its multiply-adds (block_mac). */
typedef struct gv_block {
  LLVMValueRef k0, bw[GEMV_MAX_U], ok[GEMV_MAX_U], kk[GEMV_MAX_U];
  bool masked;
} gv_block;

/* One K block of tosa.matmul's [K][N] B: U rows of V columns per lane, each row times the
 * wave-uniform A[m][k] of every row m. masked: rows at or past kend contribute zero (both
 * operands, so that a non-finite value past the end cannot make a NaN). */
static void load_ncontig(gv *G, gv_block *B) {
  LLVMBuilderRef b = G->cb->b;
  const gemm_problem *pb = G->pb;
  for (int u = 0; u < G->U; u++) {
    LLVMValueRef k = LLVMBuildAdd(b, B->k0, LLVMBuildAdd(b, G->kofs, c32(G, u), ""), "");
    B->ok[u] = B->masked ? LLVMBuildICmp(b, LLVMIntSLT, k, G->kend, "") : NULL;
    if (B->masked)
      k = LLVMBuildSelect(b, B->ok[u], k, c32(G, 0), "");
    LLVMValueRef krow = LLVMBuildAdd(b, LLVMBuildMul(b, G->batch, c32(G, pb->k), ""), k, "");
    LLVMValueRef off = LLVMBuildAdd(b, LLVMBuildMul(b, krow, c32(G, pb->n), ""), G->col, "");
    B->bw[u] = load_n(G, G->g->b_ptr, off, G->V, al(G->V * G->es));
  }
}

static void mac_ncontig(gv *G, const gv_block *B) {
  LLVMBuilderRef b = G->cb->b;
  int U = G->U, V = G->V;
  bool masked = B->masked;
  /* A: va consecutive k of row m in one (scalar) load, at most 16 bytes, aligned inside the row */
  int va = masked || G->P->va < 1 || U % G->P->va ? 1 : G->P->va;
  for (int m = 0; m < G->M; m++) {
    LLVMValueRef av = NULL;
    for (int u = 0; u < U; u++) {
      if (u % va == 0) {
        LLVMValueRef k = LLVMBuildAdd(b, B->k0, LLVMBuildAdd(b, G->kofs, c32(G, u), ""), "");
        if (masked)
          k = LLVMBuildSelect(b, B->ok[u], k, c32(G, 0), "");
        av = load_n(G, G->g->a_ptr, a_off(G, m, k), va, al(va * G->es));
      }
      LLVMValueRef a = widen(G, elem(G, av, va, u % va), G->g->a_zp);
      if (masked)
        a = LLVMBuildSelect(b, B->ok[u], a, LLVMConstNull(G->acc_t), "");
      for (int v = 0; v < V; v++) {
        LLVMValueRef x = widen(G, elem(G, B->bw[u], V, v), G->g->b_zp);
        if (masked)
          x = LLVMBuildSelect(b, B->ok[u], x, LLVMConstNull(G->acc_t), "");
        mac(G, m * V + v, a, x);
      }
    }
  }
}

/* One K block of fully_connected's [N][K] weights: U vectors of V k per lane along its column,
 * times the wave-uniform vectors A[m][k..k+V). masked: vectors at or past kend (V divides K, so
 * a vector is wholly inside or outside) contribute zero. */
static void load_kcontig(gv *G, gv_block *B) {
  LLVMBuilderRef b = G->cb->b;
  int V = G->V;
  for (int u = 0; u < G->U; u++) {
    B->kk[u] = LLVMBuildAdd(b, B->k0, c32(G, (int64_t)u * V), "");
    B->ok[u] = B->masked ? LLVMBuildICmp(b, LLVMIntSLT, B->kk[u], G->kend, "") : NULL;
    if (B->masked)
      B->kk[u] = LLVMBuildSelect(b, B->ok[u], B->kk[u], c32(G, 0), "");
    LLVMValueRef off = LLVMBuildAdd(b, LLVMBuildMul(b, G->col, c32(G, G->pb->k), ""), B->kk[u], "");
    B->bw[u] = load_n(G, G->g->b_ptr, off, V, al(V * G->es));
  }
}

static void mac_kcontig(gv *G, const gv_block *B) {
  LLVMBuilderRef b = G->cb->b;
  int V = G->V;
  for (int m = 0; m < G->M; m++)
    for (int u = 0; u < G->U; u++) {
      LLVMValueRef av = load_n(G, G->g->a_ptr, a_off(G, m, B->kk[u]), V, al(V * G->es));
      for (int v = 0; v < V; v++) {
        LLVMValueRef a = widen(G, elem(G, av, V, v), G->g->a_zp);
        LLVMValueRef x = widen(G, elem(G, B->bw[u], V, v), G->g->b_zp);
        if (B->masked) {
          a = LLVMBuildSelect(b, B->ok[u], a, LLVMConstNull(G->acc_t), "");
          x = LLVMBuildSelect(b, B->ok[u], x, LLVMConstNull(G->acc_t), "");
        }
        mac(G, m, a, x);
      }
    }
}

static void block_load(gv *G, LLVMValueRef k0, bool masked, gv_block *B) {
  B->k0 = k0, B->masked = masked;
  if (G->kc)
    load_kcontig(G, B);
  else
    load_ncontig(G, B);
}

static void block_mac(gv *G, const gv_block *B) {
  if (G->kc)
    mac_kcontig(G, B);
  else
    mac_ncontig(G, B);
}

static void block(gv *G, LLVMValueRef k0, bool masked) {
  gv_block B;
  block_load(G, k0, masked, &B);
  block_mac(G, &B);
}

/* This wave's partial sums of output rows [r0, r0 + R) into LDS: row r of the lane's columns
 * goes to lds[(wave * R + r) * bn + column]. */
static void write_partials(gv *G, LLVMValueRef lds, int r0, int R) {
  LLVMBuilderRef b = G->cb->b;
  int per = G->kc ? 1 : G->V; /* columns per lane */
  for (int r = 0; r < R && r0 + r < G->M; r++) {
    LLVMValueRef v = per > 1 ? LLVMGetUndef(LLVMVectorType(G->acc_t, (unsigned)per)) : NULL, x = NULL;
    for (int c = 0; c < per; c++) {
      x = cg_load(G->cb, G->acc_t, acc_ptr(G, G->kc ? r0 + r : (r0 + r) * per + c), 4);
      if (per > 1)
        v = LLVMBuildInsertElement(b, v, x, c32(G, c), "");
    }
    LLVMValueRef lc = G->KL > 1 ? LLVMBuildURem(b, G->lane, c32(G, G->wave / G->KL), "") : G->lane;
    LLVMValueRef idx = LLVMBuildAdd(b, LLVMBuildMul(b, LLVMBuildAdd(b, LLVMBuildMul(b, G->part, c32(G, R), ""),
                                                                     c32(G, r), ""), c32(G, G->bn), ""),
                                    LLVMBuildMul(b, lc, c32(G, per), ""), "");
    LLVMValueRef p = LLVMBuildInBoundsGEP2(b, G->acc_t, lds, &idx, 1, "");
    cg_store(G->cb, per > 1 ? v : x, p, al(per * 4));
  }
}

/* Sum the waves' partials of rows [r0, r0 + R) in wave order and hand each in-range output
 * element to the epilogue; thread t takes elements t, t + T, ... of the R x bn tile, so
 * consecutive threads store consecutive columns. */
static bool reduce_store(gv *G, LLVMValueRef lds, int r0, int R, LLVMValueRef n0, LLVMValueRef split) {
  cg_builder *cb = G->cb;
  LLVMBuilderRef b = cb->b;
  int T = G->W * G->wave, total = R * G->bn;
  bool ok = true;
  for (int j = 0; j * T < total && ok; j++) {
    LLVMValueRef e = LLVMBuildAdd(b, G->tid, c32(G, (int64_t)j * T), "");
    LLVMValueRef r = LLVMBuildUDiv(b, e, c32(G, G->bn), ""), c = LLVMBuildURem(b, e, c32(G, G->bn), "");
    LLVMValueRef m = LLVMBuildAdd(b, r, c32(G, r0), ""), n = LLVMBuildAdd(b, n0, c, "");
    LLVMValueRef in = LLVMBuildAnd(b, LLVMBuildICmp(b, LLVMIntULT, m, c32(G, G->M), ""),
                                   LLVMBuildICmp(b, LLVMIntULT, n, c32(G, G->pb->n), ""), "");
    if ((j + 1) * T > total)
      in = LLVMBuildAnd(b, in, LLVMBuildICmp(b, LLVMIntULT, e, c32(G, total), ""), "");
    LLVMBasicBlockRef body = LLVMAppendBasicBlockInContext(cb->ctx, cb->fn, "gemv_store");
    LLVMBasicBlockRef next = LLVMAppendBasicBlockInContext(cb->ctx, cb->fn, "gemv_next");
    LLVMBuildCondBr(b, in, body, next);
    LLVMPositionBuilderAtEnd(b, body);
    LLVMValueRef sum = NULL;
    for (int w = 0; w < G->W * G->KL; w++) {
      LLVMValueRef idx = LLVMBuildAdd(b, LLVMBuildMul(b, LLVMBuildAdd(b, c32(G, (int64_t)w * R), r, ""),
                                                      c32(G, G->bn), ""), c, "");
      LLVMValueRef x = cg_load(cb, G->acc_t, LLVMBuildInBoundsGEP2(b, G->acc_t, lds, &idx, 1, ""), 4);
      sum = !sum ? x : G->int_acc ? LLVMBuildAdd(b, sum, x, "") : LLVMBuildFAdd(b, sum, x, "");
    }
    ok = G->g->store(G->g->ctx, sum, G->batch, split, m, n) && !cb->failed;
    if (ok) {
      LLVMBuildBr(b, next);
      LLVMPositionBuilderAtEnd(b, next);
    }
  }
  return ok;
}

bool cg_gemv_body(cg_builder *cb, const gemv_kernel *g, const char *name) {
  const gemm_params *P = g->P;
  const gemm_problem *pb = g->pb;
  const target_info *t = cb->target->info;
  LLVMBuilderRef b = cb->b;
  gv G = {.cb = cb, .g = g, .pb = pb, .P = P, .kc = pb->b_kcontig, .int_acc = elem_type_is_int(pb->in),
          .V = P->vb, .W = P->kwaves, .wave = t->wave_size, .bn = P->bn, .bk = P->bk, .M = (int)pb->m,
          .es = elem_type_bytes(pb->in)};
  G.KL = !G.kc && P->kl > 1 ? P->kl : 1;
  G.U = G.kc ? P->bk / G.V : P->bk / G.KL;
  G.nacc = G.kc ? G.M : G.M * G.V;
  G.mem = pb->in == ET_BF16 ? cb->i16 : cg_mem_type(cb, pb->in);
  G.acc_t = G.int_acc ? cb->i32 : cb->f32;
  if (G.U < 1 || G.U > GEMV_MAX_U || G.M < 1 || G.M > 16 || G.wave % G.KL || P->bk % G.KL ||
      G.bn != G.wave / G.KL * (G.kc ? 1 : G.V))
    return false;
  G.acc = LLVMBuildAlloca(b, LLVMArrayType(G.acc_t, (unsigned)G.nacc), "acc");
  cg_store(cb, LLVMConstNull(LLVMArrayType(G.acc_t, (unsigned)G.nacc)), G.acc, 4);

  G.tid = cg_thread_id_x(cb);
  LLVMValueRef gid = cg_group_id_x(cb);
  if (!G.tid || !gid)
    return false;
  /* the wave index is uniform; readfirstlane lets LLVM see that, so A's addresses (which depend
   * only on it and the group) become scalar loads */
  LLVMValueRef wv = LLVMBuildUDiv(b, G.tid, c32(&G, G.wave), "");
  G.wave_id = cg_intrinsic(cb, "llvm.amdgcn.readfirstlane", &cb->i32, 1, &wv, 1);
  if (!G.wave_id)
    return false;
  G.lane = LLVMBuildURem(b, G.tid, c32(&G, G.wave), "lane");
  /* lane group g = lane / (wave / KL) takes rows [g U, (g + 1) U) of each block */
  LLVMValueRef grp = G.KL > 1 ? LLVMBuildUDiv(b, G.lane, c32(&G, G.wave / G.KL), "") : c32(&G, 0);
  G.kofs = LLVMBuildMul(b, grp, c32(&G, G.U), "kofs");
  G.part = LLVMBuildAdd(b, LLVMBuildMul(b, G.wave_id, c32(&G, G.KL), ""), grp, "part");

  /* grid: split (slowest), batch, column block */
  int64_t groups = gemv_groups(pb, P), ncb = (pb->n + P->bn - 1) / P->bn;
  LLVMValueRef split = c32(&G, 0);
  if (g->split > 1) {
    split = LLVMBuildUDiv(b, gid, c32(&G, groups), "split");
    gid = LLVMBuildURem(b, gid, c32(&G, groups), "");
  }
  G.batch = LLVMBuildUDiv(b, gid, c32(&G, ncb), "batch");
  LLVMValueRef n0 = LLVMBuildMul(b, LLVMBuildURem(b, gid, c32(&G, ncb), ""), c32(&G, P->bn), "n0");
  /* this lane's column (its first, matmul), clamped into B: a lane past N reads real data and
   * its sums are never stored */
  LLVMValueRef lc = G.KL > 1 ? LLVMBuildURem(b, G.lane, c32(&G, G.wave / G.KL), "") : G.lane;
  LLVMValueRef col = LLVMBuildAdd(b, n0, LLVMBuildMul(b, lc, c32(&G, G.kc ? 1 : G.V), ""), "");
  G.col = LLVMBuildSelect(b, LLVMBuildICmp(b, LLVMIntULT, col, c32(&G, pb->n), ""), col, c32(&G, 0), "col");

  /* K chunk of this work-group: `steps` blocks from split * steps (the last chunk shorter) */
  int64_t nkb = (pb->k + G.bk - 1) / G.bk, steps = (nkb + g->split - 1) / g->split;
  LLVMValueRef kbeg = LLVMBuildMul(b, split, c32(&G, steps * G.bk), "kbeg");
  LLVMValueRef kend = LLVMBuildAdd(b, kbeg, c32(&G, steps * G.bk), "");
  G.kend = kend = LLVMBuildSelect(b, LLVMBuildICmp(b, LLVMIntSLT, kend, c32(&G, pb->k), ""), kend,
                                  c32(&G, pb->k), "kend");
  LLVMValueRef len = LLVMBuildSub(b, kend, kbeg, "");
  len = LLVMBuildSelect(b, LLVMBuildICmp(b, LLVMIntSLT, len, c32(&G, 0), ""), c32(&G, 0), len, "len");
  LLVMValueRef nfull = LLVMBuildSDiv(b, len, c32(&G, G.bk), "nfull");

  /* the main loop: wave w takes full blocks w, w + W, ... With a prologue computing A (a row
   * norm) the wave's first block of B is loaded before it, so its memory latency passes while
   * the prologue runs (a wave without a full block loads block 0 and drops it; masked where K is
   * shorter than a block, so that no lane reads past B) */
  LLVMValueRef first = G.wave_id;
  if (g->prologue) {
    LLVMValueRef has = LLVMBuildICmp(b, LLVMIntSLT, G.wave_id, nfull, "");
    gv_block B0;
    block_load(&G, LLVMBuildSelect(b, has, LLVMBuildAdd(b, kbeg, LLVMBuildMul(b, G.wave_id, c32(&G, G.bk), ""), ""),
                                   c32(&G, 0), ""), pb->k < G.bk, &B0);
    if (!g->prologue(g->ctx, G.batch))
      return false;
    LLVMBasicBlockRef use = LLVMAppendBasicBlockInContext(cb->ctx, cb->fn, "gemv_first");
    LLVMBasicBlockRef rest = LLVMAppendBasicBlockInContext(cb->ctx, cb->fn, "gemv_rest");
    LLVMBuildCondBr(b, has, use, rest);
    LLVMPositionBuilderAtEnd(b, use);
    block_mac(&G, &B0);
    LLVMBuildBr(b, rest);
    LLVMPositionBuilderAtEnd(b, rest);
    first = LLVMBuildAdd(b, G.wave_id, c32(&G, G.W), "");
  }
  cg_loop l = cg_loop_begin(cb, first, nfull, "gemv_k");
  block(&G, LLVMBuildAdd(b, kbeg, LLVMBuildMul(b, l.iv, c32(&G, G.bk), ""), ""), false);
  cg_loop_end(cb, &l, G.W);
  /* K not a multiple of the block: the one partial block, masked, by the next wave in turn */
  if (pb->k % G.bk) {
    LLVMValueRef rest = LLVMBuildICmp(b, LLVMIntSGT, LLVMBuildSRem(b, len, c32(&G, G.bk), ""), c32(&G, 0), "");
    LLVMValueRef mine = LLVMBuildICmp(b, LLVMIntEQ, G.wave_id, LLVMBuildSRem(b, nfull, c32(&G, G.W), ""), "");
    LLVMBasicBlockRef tail = LLVMAppendBasicBlockInContext(cb->ctx, cb->fn, "gemv_tail");
    LLVMBasicBlockRef after = LLVMAppendBasicBlockInContext(cb->ctx, cb->fn, "gemv_reduce");
    LLVMBuildCondBr(b, LLVMBuildAnd(b, rest, mine, ""), tail, after);
    LLVMPositionBuilderAtEnd(b, tail);
    block(&G, LLVMBuildAdd(b, kbeg, LLVMBuildMul(b, nfull, c32(&G, G.bk), ""), ""), true);
    LLVMBuildBr(b, after);
    LLVMPositionBuilderAtEnd(b, after);
  }

  /* the waves' partial sums meet in LDS, R output rows at a time */
  int R = gemv_lds_rows(P, G.M);
  char lname[96];
  snprintf(lname, sizeof lname, "%s.gemv", name);
  LLVMValueRef lds =
      cg_lds_alloc(cb, lname, LLVMArrayType(G.acc_t, (unsigned)(G.W * G.KL * R * G.bn)), 16);
  bool ok = !cb->failed;
  for (int r0 = 0; r0 < G.M && ok; r0 += R) {
    if (r0)
      cg_barrier(cb); /* the previous rows' reads are done */
    write_partials(&G, lds, r0, R);
    cg_barrier(cb);
    ok = reduce_store(&G, lds, r0, R, n0, split);
  }
  return ok;
}

int gemv_lds_rows(const gemm_params *P, int M) {
  int row = P->kwaves * (P->kl > 1 ? P->kl : 1) * P->bn * 4, R = GEMV_LDS_BYTES / (row ? row : 1);
  return R < 1 ? 1 : R > M ? M : R;
}
