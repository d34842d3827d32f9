/* kernel_gemm.c: the matrix kernel family: tosa.matmul, tosa.fully_connected and the
 * convolutions conv2d, conv3d and transpose_conv2d (implicit GEMMs, index maps in gemm_conv.c)
 * on the GEMM core of gemm.h. One work-group computes a bm x bn tile of
 * C[batch][m][n] = sum_k A(m,k) * B(k,n); operands are staged through two LDS buffers (the next
 * K tile is loaded into registers while the current one computes, one barrier per K step), the
 * waves multiply with the target's matrix instruction and the fused elementwise epilogue runs on
 * the accumulators before the only global store. A split-K GEMM (role KR_PARTIAL) sums one chunk
 * of K per work-group and stores the raw accumulators to a workspace instead; its combine kernel
 * (kernel_gemm_combine.c) adds the chunks and runs the epilogue. */
#include "gemm_conv.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

typedef enum { GK_MATMUL, GK_FC, GK_CONV } gemm_op;

typedef struct gk {
  cg_builder *cb;
  const graph *g;
  const target_info *t; /* the target when there is no builder (problem queries) */
  const part_kernel *k;
  const op *anchor;
  gemm_op kind;
  gemm_problem pb;
  const char *source; /* where P came from: "heuristic", "db", "perf-config" */
  gemm_params P;
  gemm_mma mm;
  gemm_conv cv;
  gemm_conv_phase ph; /* transpose_conv2d: this work-group's output phase */
  const value *src[2]; /* the kernel inputs holding A's and B's bytes (operand views) */
  bool bias_last;     /* bias added after rounding to the result type (strided transpose) */
  elem_type out_t; /* anchor result type */
  int a_zp, b_zp;
  int es;          /* bytes per operand element */
  int les;         /* bytes per element in LDS (4: bf16 widened to f32, gemm_mma.widen) */
  LLVMTypeRef mem; /* operand element type in memory/LDS (bf16 as i16) */
  LLVMValueRef a_ptr, b_ptr, bias_ptr;
  LLVMValueRef a_res;       /* a row-norm prologue's A rows ([bm][K] in LDS), NULL: A in memory */
  LLVMValueRef a_valid;     /* with a_res: the M tile's rows inside M, less one */
  LLVMValueRef a_rsrc, b_rsrc; /* MFMA: buffer resources of A and B (NULL: global loads) */
  int sa;            /* LDS row stride in bytes */
  int buf_bytes;     /* one LDS buffer (A then B) */
  int threads, waves, wgn;
  LLVMValueRef lds, tid, lane, wave_m0, wave_n0, m0, n0, batch;
  LLVMValueRef split_idx; /* KR_PARTIAL, KR_FIXUP: which chunk of K this work-group sums */
  bool fixing; /* KR_FIXUP's reduction: the epilogue stores the result, not a partial */
  const char *mine; /* grouped GEMM: per k->ops index, in the current GEMM's epilogue; NULL: all */
  /* dual-B GEMM (part_kernel.dual_b): the second matmul, reading the same A; its B tile is
   * staged after the first's, its accumulators follow the first's in each wave-tile row
   * (columns rn1..2rn1-1 of the wave's instruction grid), its result enters the epilogue
   * beside the first's */
  const op *anchor2;
  int nbm;                 /* B operands: 2 for the dual-B GEMM, else 1 */
  int nb1;                 /* B staging slots per B operand (nb = nb1 * nbm) */
  LLVMValueRef b2_ptr, b2_rsrc;
  LLVMValueRef acc2;       /* epilogue_element: the second accumulator of the element */
  /* per-thread staging slots */
  int na, nb;
  int rb; /* k rows of B a thread transposes together (8- and 16-bit n-contiguous B) */
  LLVMValueRef *a_row_ok, *a_row, *a_kc, *b_row, *b_kc; /* b_row: n (or k row) */
  gemm_conv_row *cv_rows;
  gemm_conv_slot *cv_slots; /* run gather: each A slot's pixel (gemm_conv_run_slot) */
} gk;

static LLVMValueRef c32(gk *K, int64_t v) { return LLVMConstInt(K->cb->i32, (unsigned long long)v, 1); }

static const char *anchor_name(const op *o) { return op_table[o->kind].name; }

/* ---------------------------------------------------------------- problem extraction */

#define DESCRIBE_FAIL(d, loc, ...) (void)((d) ? (diag_error((d), (loc), __VA_ARGS__), 0) : 0)

/* The GEMM problem of K->anchor; diagnostics go to d (NULL: silent, for the partitioner's
 * split-K query). */
static bool describe(gk *K, diag_sink *d) {
  const op *o = K->anchor;
  const char *nm = anchor_name(o);
  gemm_problem *pb = &K->pb;
  if (strcmp(nm, "tosa.matmul") == 0)
    K->kind = GK_MATMUL;
  else if (strcmp(nm, "tosa.fully_connected") == 0)
    K->kind = GK_FC;
  else if (gemm_conv_is(o))
    K->kind = GK_CONV;
  else {
    DESCRIBE_FAIL(d, o->loc, "%s: no GEMM kernel generator for this op yet", nm);
    return false;
  }
  int need = K->kind == GK_MATMUL ? 2 : 3;
  if (o->noperands < need || o->nresults < 1) {
    DESCRIBE_FAIL(d, o->loc, "%s: expected %d operands after canonicalisation", nm, need);
    return false;
  }
  const tensor_type *a = o->operands[0]->type, *b = o->operands[1]->type, *r = o->results[0]->type;
  pb->in = a->elem;
  K->out_t = r->elem;
  /* 8-bit floats: matmul and the implicit-GEMM convolutions (fully_connected left TOSA 1.0);
   * i16 and i32: matmul and fully_connected (the FMA path) */
  bool wide_int = (a->elem == ET_I16 || a->elem == ET_I32) && K->kind != GK_CONV;
  if (b->elem != a->elem || !(a->elem == ET_F32 || a->elem == ET_F16 || a->elem == ET_BF16 ||
                              a->elem == ET_I8 || wide_int || (elem_type_is_f8(a->elem) && K->kind != GK_FC))) {
    DESCRIBE_FAIL(d, o->loc, "%s: operand types %s x %s are not supported by the GEMM generator "
               "(f32, f16, bf16, i8 with equal operand types; i16 and i32 in matmul and "
               "fully_connected, 8-bit floats in matmul and convolutions only)", nm,
               elem_type_name(a->elem), elem_type_name(b->elem));
    return false;
  }
  /* integer results wrap as upstream's linalg arithmetic in the result type does: summed in
   * i32 and truncated, or in i64 for results wider than 32 bits */
  bool int_ok = r->elem == ET_I8 || r->elem == ET_I16 || r->elem == ET_I32 || r->elem == ET_I48 || r->elem == ET_I64;
  if (elem_type_is_int(a->elem) ? !int_ok : !(r->elem == ET_F32 || r->elem == ET_F16 || r->elem == ET_BF16)) {
    DESCRIBE_FAIL(d, o->loc, "%s: result type %s is not supported by the GEMM generator", nm,
               elem_type_name(r->elem));
    return false;
  }
  pb->acc64 = elem_type_is_int(a->elem) && elem_type_bits(r->elem) > 32;
  const char *zpa = K->kind == GK_MATMUL ? "a_zp" : "input_zp";
  const char *zpb = K->kind == GK_MATMUL ? "b_zp" : "weight_zp";
  K->a_zp = (int)op_attr_int(o, zpa, 0);
  K->b_zp = (int)op_attr_int(o, zpb, 0);
  pb->zero_points = elem_type_is_int(a->elem) && (K->a_zp || K->b_zp);
  switch (K->kind) {
  case GK_MATMUL:
    pb->batch = a->dims[0], pb->m = a->dims[1], pb->k = a->dims[2], pb->n = b->dims[2];
    pb->a_contig = pb->k, pb->b_contig = pb->n, pb->b_kcontig = false;
    break;
  case GK_FC:
    pb->batch = 1, pb->m = a->dims[0], pb->k = a->dims[1], pb->n = b->dims[0];
    pb->a_contig = pb->k, pb->b_contig = pb->k, pb->b_kcontig = true;
    break;
  case GK_CONV: {
    char err[160];
    if (!gemm_conv_describe(o, &K->cv, pb, err, sizeof err)) {
      DESCRIBE_FAIL(d, o->loc, "%s", err);
      return false;
    }
    /* the oracle lowers a strided transpose_conv2d to a conv2d with a zero bias, rounds, then
     * adds the bias in the result type; doing the same keeps f16/bf16 within its tolerance */
    K->bias_last = K->cv.transpose && K->cv.phases > 1;
    /* operand views (partition/views.c): the input and weights read through strides */
    if (K->k) {
      part_strided x, w;
      part_operand_strides(K->k, o->operands[0], &x);
      part_operand_strides(K->k, o->operands[1], &w);
      K->src[0] = x.src, K->src[1] = w.src;
      gemm_conv_views(&K->cv, pb, x.src != o->operands[0] ? &x : NULL, w.src != o->operands[1] ? &w : NULL);
    }
    if (K->k && K->k->role == KR_PHASE) /* one output phase (partition/expand.c) */
      gemm_conv_one_phase(&K->cv, pb, K->k->phase);
    break;
  }
  }
  pb->op = nm + 5; /* without "tosa." */
  /* a row norm computes A's rows into LDS (partition/group.c part_norm_gemv) */
  if (K->k && K->k->prologue_tile && K->kind != GK_CONV)
    pb->a_resident = (int)(pb->k * elem_type_bytes(pb->in));
  if (K->kind == GK_CONV && !(K->k && K->k->role == KR_COLS)) {
    /* the run gather where the target's estimate says it pays (tuning.c, cg_tune_runs) */
    const target_info *t = K->t ? K->t : K->cb ? K->cb->target->info : NULL;
    gemm_problem runs;
    if (t && gemm_conv_runs(&K->cv, pb, a->elem, pb->zero_points, &runs) && cg_tune_runs(t, pb, &runs))
      *pb = runs, K->cv.runs = true;
  }
  /* the plain GEMM over the im2col workspace [M + OC][Kpad] (partition/im2col.c) */
  if (K->k && K->k->role == KR_COLS) {
    const value *ws = K->k->nin > 0 ? K->k->in_vals[0] : NULL;
    if (K->kind != GK_CONV || !ws || ws->type->rank != 2 || ws->type->dims[0] != pb->m + pb->n) {
      DESCRIBE_FAIL(d, o->loc, "%s: im2col GEMM without its workspace matrix", nm);
      return false;
    }
    gemm_problem conv = *pb;
    cg_im2col_problem(&conv, ws->type->dims[1], pb);
    K->kind = GK_FC;
    memset(&K->cv, 0, sizeof K->cv);
  }
  int64_t biggest = tensor_numel(a) > tensor_numel(b) ? tensor_numel(a) : tensor_numel(b);
  if (tensor_numel(r) > biggest)
    biggest = tensor_numel(r);
  if (biggest >= ((int64_t)1 << 31) - 4096) {
    DESCRIBE_FAIL(d, o->loc, "%s: tensors of 2^31 elements or more are not supported yet", nm);
    return false;
  }
  return true;
}

/* Grouped GEMM: is o (an op of the kernel) the current GEMM's anchor or in its epilogue? */
static bool in_slice(const gk *K, const op *o) {
  if (!K->mine)
    return true;
  for (int i = 0; i < K->k->nops; i++)
    if (K->k->ops[i] == o)
      return K->mine[i];
  return false;
}

static int param_of(gk *K, const value *v) {
  for (int i = 0; i < K->k->nin; i++)
    if (K->k->in_vals[i] == v)
      return i;
  return -1;
}

/* ---------------------------------------------------------------- staging: global -> LDS */

static LLVMValueRef gep8(gk *K, LLVMValueRef base, LLVMValueRef byte) {
  return LLVMBuildInBoundsGEP2(K->cb->b, K->cb->i8, base, &byte, 1, "");
}

static LLVMValueRef gep_el(gk *K, LLVMValueRef base, LLVMValueRef idx) {
  return LLVMBuildInBoundsGEP2(K->cb->b, K->mem, base, &idx, 1, "");
}

static unsigned al(int bytes) { return (unsigned)(bytes >= 16 ? 16 : bytes); }

static LLVMValueRef clamp_row(gk *K, LLVMValueRef r, int64_t count) {
  LLVMValueRef args[2] = {r, c32(K, count - 1)};
  return cg_intrinsic(K->cb, "llvm.umin", &K->cb->i32, 1, args, 2);
}

/* Loop-invariant part of each staging slot: which A row / B row and k column a thread moves. */
static void plan_slots(gk *K) {
  LLVMBuilderRef b = K->cb->b;
  const gemm_params *P = &K->P;
  int T = K->threads;
  int a_total = P->bm * P->bk / P->va;
  K->na = (a_total + T - 1) / T;
  K->a_row_ok = calloc((size_t)K->na, sizeof(LLVMValueRef));
  K->a_row = calloc((size_t)K->na, sizeof(LLVMValueRef));
  K->a_kc = calloc((size_t)K->na, sizeof(LLVMValueRef));
  K->cv_rows = calloc((size_t)K->na, sizeof(gemm_conv_row));
  K->cv_slots = calloc((size_t)K->na, sizeof(gemm_conv_slot));
  bool clamp = K->cv.tile_taps || K->cv.lane_taps || K->cv.runs;
  int per_row = P->bk / P->va;
  for (int s = 0; s < K->na; s++) {
    LLVMValueRef c = LLVMBuildAdd(b, K->tid, c32(K, (int64_t)s * T), "");
    K->a_row[s] = LLVMBuildUDiv(b, c, c32(K, per_row), "");
    K->a_kc[s] = LLVMBuildMul(b, LLVMBuildURem(b, c, c32(K, per_row), ""), c32(K, P->va), "");
    LLVMValueRef m = LLVMBuildAdd(b, K->m0, K->a_row[s], "");
    K->a_row_ok[s] = LLVMBuildAnd(b, LLVMBuildICmp(b, LLVMIntULT, c, c32(K, a_total), ""),
                                  LLVMBuildICmp(b, LLVMIntULT, m, c32(K, K->pb.m), ""), "");
    /* per-tile gather: rows past M read the last row instead of a mask per K step */
    if (K->kind == GK_CONV)
      gemm_conv_row_init(K->cb, &K->cv, &K->ph, clamp ? clamp_row(K, m, K->pb.m) : m, &K->cv_rows[s]);
    if (K->kind == GK_CONV && K->cv.runs)
      gemm_conv_run_slot(K->cb, &K->cv, &K->cv_rows[s], K->a_kc[s], &K->cv_slots[s]);
  }
  bool kc = K->pb.b_kcontig;
  int b_total = P->bn * P->bk / P->vb;
  K->nb1 = (b_total + T - 1) / T;
  K->nb = K->nb1 * K->nbm;
  K->b_row = calloc((size_t)K->nb1, sizeof(LLVMValueRef));
  K->b_kc = calloc((size_t)K->nb1, sizeof(LLVMValueRef));
  per_row = kc ? P->bk / P->vb : P->bn / P->vb;
  /* 8-bit n-contiguous B (matmul): a thread loads rb = 2 consecutive k rows of the same n run, so
   * that each n gets one 2-byte LDS write of its k pair instead of two byte writes and their byte
   * extractions (4096^3 i8 on gfx950: 87 % -> 94 % matrix pipe, gfx1200 WMMA 74 % -> 80 %; not on
   * the FMA path, which was not measured with it); needs the staging to tile the
   * threads exactly and an even vector */
  K->rb = 1;
  /* 16-bit: each n's k pair is one 4-byte write (LLVM pairs them into ds_store_2addr_b32) and
   * one v_perm_b32, instead of two 2-byte writes: 16 -> 12 slots per two loads of 8 */
  bool pairs = K->es == 1 ? K->mm.row != NULL : K->es == 2 && !K->mm.widen;
  if (!kc && pairs && K->nb1 % 2 == 0 &&
      b_total % (2 * T) == 0 && P->bk % 2 == 0 && P->vb % 2 == 0)
    K->rb = 2;
  for (int s = 0; s < K->nb1; s++) {
    LLVMValueRef c = LLVMBuildAdd(b, K->tid, c32(K, (int64_t)(s / K->rb) * T), "");
    LLVMValueRef q = LLVMBuildUDiv(b, c, c32(K, per_row), "");
    if (K->rb > 1)
      q = LLVMBuildAdd(b, LLVMBuildMul(b, q, c32(K, K->rb), ""), c32(K, s % K->rb), "");
    LLVMValueRef rem = LLVMBuildMul(b, LLVMBuildURem(b, c, c32(K, per_row), ""), c32(K, P->vb), "");
    /* kc: q = n row, rem = k column; else q = k row, rem = n column */
    K->b_row[s] = kc ? q : rem;
    K->b_kc[s] = kc ? rem : q;
  }
}

/* Load one chunk (v elements, a whole vector or nothing: the contiguous run is a multiple of v)
 * at element offset off from base if ok, else the fill value (0, or the zero point for the FMA
 * path). base is uniform and off a non-negative i32: the zero-extended byte offset lets LLVM use
 * the SGPR-base + VGPR-offset form of global_load (no 64-bit address arithmetic per load). */
static LLVMValueRef load_chunk(gk *K, LLVMValueRef base, LLVMValueRef off, LLVMValueRef ok, int v,
                               int fill) {
  LLVMBuilderRef b = K->cb->b;
  LLVMTypeRef vt = LLVMVectorType(K->mem, (unsigned)v);
  LLVMValueRef safe = LLVMBuildSelect(b, ok, off, c32(K, 0), "");
  LLVMValueRef bytes = LLVMBuildZExt(b, LLVMBuildNUWMul(b, safe, c32(K, K->es), ""), K->cb->i64, "");
  LLVMValueRef x = cg_load(K->cb, vt, LLVMBuildInBoundsGEP2(b, K->cb->i8, base, &bytes, 1, ""),
                           al(v * K->es));
  LLVMValueRef f = LLVMConstNull(vt);
  if (fill) {
    LLVMValueRef e = LLVMConstInt(K->mem, (unsigned long long)fill, 1);
    LLVMValueRef el[16];
    for (int i = 0; i < v; i++)
      el[i] = e;
    f = LLVMConstVector(el, (unsigned)v);
  }
  return LLVMBuildSelect(b, ok, x, f, "");
}

/* Row (column) o + r clamped to the last valid one, as an offset from the tile origin o:
 * loop-invariant, so the clamp costs nothing in the main loop. */
static LLVMValueRef clamp_rel(gk *K, LLVMValueRef o, LLVMValueRef r, int64_t count) {
  LLVMBuilderRef b = K->cb->b;
  return LLVMBuildSub(b, clamp_row(K, LLVMBuildAdd(b, o, r, ""), count), o, "");
}

/* A raw buffer load of v elements at byte offset voff (per thread) + soff (uniform) of rsrc: the
 * uniform part travels in an SGPR and the loop-invariant per-thread part in one VGPR, so a
 * load is one instruction with no address arithmetic; and buffer loads count in vmcnt only
 * (llvm-mca counts FLAT global loads in lgkmcnt too, stalling every LDS wait behind them). */
static LLVMValueRef load_buffer(gk *K, LLVMValueRef rsrc, LLVMValueRef voff, LLVMValueRef soff,
                                LLVMValueRef ok, int v) {
  cg_builder *cb = K->cb;
  LLVMBuilderRef b = cb->b;
  LLVMTypeRef vt = LLVMVectorType(K->mem, (unsigned)v);
  int bytes = v * K->es;
  LLVMTypeRef lt = bytes >= 4 ? (bytes == 4 ? cb->i32 : LLVMVectorType(cb->i32, (unsigned)(bytes / 4)))
                              : LLVMIntTypeInContext(cb->ctx, (unsigned)bytes * 8);
  /* ok NULL: voff is a byte offset that reads zeros where it should (past num_records). The FMA
   * path moves a masked offset there too (bit 31: operands stay below 2^31 bytes) instead of
   * selecting zeros after the load (one select per load, not per load and register) */
  bool oob = ok && !K->mm.row;
  LLVMValueRef vo = !ok ? voff
                  : oob ? LLVMBuildSelect(b, ok, LLVMBuildNUWMul(b, voff, c32(K, K->es), ""), c32(K, INT32_MIN), "")
                        : LLVMBuildNUWMul(b, LLVMBuildSelect(b, ok, voff, c32(K, 0), ""), c32(K, K->es), "");
  LLVMValueRef so = LLVMBuildNUWMul(b, soff, c32(K, K->es), "");
  LLVMValueRef args[4] = {rsrc, vo, so, c32(K, 0)};
  LLVMValueRef x = cg_intrinsic(cb, "llvm.amdgcn.raw.ptr.buffer.load", &lt, 1, args, 4);
  x = LLVMBuildBitCast(b, x, vt, "");
  return ok && !oob ? LLVMBuildSelect(b, ok, x, LLVMConstNull(vt), "") : x;
}

/* Bytes of operand i (0: A, 1: B) as the kernel reads it: the anchor's operand, or the im2col
 * GEMM's part of the workspace matrix. */
static int64_t operand_size(const gk *K, int i) {
  if (K->k && K->k->role == KR_COLS)
    return (i ? K->pb.n : K->pb.m) * K->pb.k * K->es;
  return tensor_numel(K->src[i] ? K->src[i]->type : K->anchor->operands[i]->type) * K->es;
}

/* Buffer resources for A and B when the target has them (RDNA too: the FMA path's convolution
 * gather then reads its padding as the range check's zeros instead of selecting after each
 * load, ResNet-18's 3x3 loops on gfx1100: 10-14 fewer VALU per K tile), the path is MFMA or
 * FMA (not WMMA) without zero points (masked FMA-path elements read as the zero point, which the
 * range check cannot give), and each operand fits 2^31 bytes (32-bit offsets). */
static void make_rsrcs(gk *K) {
  cg_builder *cb = K->cb;
  const target_info *t = cb->target->info;
  K->a_rsrc = K->b_rsrc = K->b2_rsrc = NULL;
  if (!t->buffer_dword3 || (K->mm.row && K->mm.row->layout != MATRIX_MFMA) ||
      (!K->mm.row && (K->a_zp || K->b_zp)))
    return;
  LLVMValueRef *rs[3] = {&K->a_rsrc, &K->b_rsrc, &K->b2_rsrc}, ptrs[3] = {K->a_ptr, K->b_ptr, K->b2_ptr};
  for (int i = 0; i < 1 + K->nbm; i++) {
    if (i == 0 && K->a_res)
      continue; /* A is read from LDS */
    int64_t bytes = operand_size(K, i ? 1 : 0);
    if (bytes >= ((int64_t)1 << 31))
      return (void)(K->a_rsrc = K->b_rsrc = K->b2_rsrc = NULL);
    LLVMTypeRef ot[2] = {LLVMPointerTypeInContext(cb->ctx, 8), LLVMTypeOf(ptrs[i])};
    LLVMValueRef args[4] = {ptrs[i], LLVMConstInt(cb->i16, 0, 0), LLVMConstInt(cb->i64, (unsigned long long)bytes, 0),
                            LLVMConstInt(cb->i32, t->buffer_dword3, 0)};
    *rs[i] = cg_intrinsic(cb, "llvm.amdgcn.make.buffer.rsrc", ot, 2, args, 4);
  }
}

/* Run gather: one pixel's `ic` elements at element offset off (ok: else zeros), widened with
 * zeros to the icp-element staging vector. Buffer loads take the widest width the pixel's
 * alignment permits: one load when its bytes are a whole number of dwords (the stem's f32:
 * one 12-byte load), else pieces of its alignment (3 f16: three 2-byte loads); a masked pixel's
 * offset gets bit 31 (zeros, past num_records). Global loads (WMMA) load the vector at its
 * alignment and select. A pixel never crosses the end of the image, so no load leaves it. */
static LLVMValueRef load_pixel(gk *K, LLVMValueRef rsrc, LLVMValueRef base, LLVMValueRef off, LLVMValueRef ok,
                               bool bytes_given) {
  cg_builder *cb = K->cb;
  LLVMBuilderRef b = cb->b;
  int ic = (int)K->cv.ic, icp = (int)K->cv.icp, pbytes = ic * K->es;
  int align = pbytes & -pbytes;
  LLVMTypeRef vt = LLVMVectorType(K->mem, (unsigned)ic);
  LLVMValueRef x;
  if (rsrc) {
    LLVMValueRef bytes = bytes_given ? off : LLVMBuildNUWMul(b, off, c32(K, K->es), "");
    if (ok)
      bytes = LLVMBuildSelect(b, ok, bytes, c32(K, INT32_MIN), "");
    int piece = align >= 4 ? pbytes : align, n = pbytes / piece, pe = piece / K->es;
    x = LLVMGetUndef(vt);
    for (int i = 0; i < n; i++) {
      LLVMValueRef at = i ? LLVMBuildAdd(b, bytes, c32(K, (int64_t)i * piece), "") : bytes;
      LLVMValueRef p = load_buffer(K, rsrc, at, c32(K, 0), NULL, pe);
      for (int e = 0; e < pe; e++) {
        LLVMValueRef el = pe > 1 || LLVMGetTypeKind(LLVMTypeOf(p)) == LLVMVectorTypeKind
                              ? LLVMBuildExtractElement(b, p, c32(K, e), "") : p;
        x = LLVMBuildInsertElement(b, x, el, c32(K, (int64_t)i * pe + e), "");
      }
    }
  } else {
    LLVMValueRef safe = LLVMBuildSelect(b, ok, off, c32(K, 0), "");
    LLVMValueRef bytes = LLVMBuildZExt(b, LLVMBuildNUWMul(b, safe, c32(K, K->es), ""), cb->i64, "");
    x = cg_load(cb, vt, LLVMBuildInBoundsGEP2(b, cb->i8, base, &bytes, 1, ""), (unsigned)(align > 16 ? 16 : align));
    x = LLVMBuildSelect(b, ok, x, LLVMConstNull(vt), "");
  }
  LLVMValueRef idx[16];
  for (int i = 0; i < icp; i++)
    idx[i] = c32(K, i < ic ? i : ic);
  return LLVMBuildShuffleVector(b, x, LLVMConstNull(vt), LLVMConstVector(idx, (unsigned)icp), "pixel");
}

/* Global loads of K tile kt into registers (av[na], bv[nb]). Each offset is split into a
 * uniform part (work-group origin and k0, folded into the base pointer) and a loop-invariant
 * per-thread part. */
static void load_tile(gk *K, LLVMValueRef kt, LLVMValueRef *av, LLVMValueRef *bv) {
  LLVMBuilderRef b = K->cb->b;
  const gemm_params *P = &K->P;
  const gemm_problem *pb = &K->pb;
  LLVMValueRef k0 = LLVMBuildMul(b, kt, c32(K, P->bk), "");
  int fa = K->mm.row ? 0 : K->a_zp, fb = K->mm.row ? 0 : K->b_zp;
  /* masks that tile-multiple problems never need are left out (no selects after the loads) */
  LLVMValueRef yes = LLVMConstInt(K->cb->i1, 1, 0);
  bool k_in = pb->k % P->bk == 0;
  bool a_in = (P->bm * P->bk / P->va) % K->threads == 0 && pb->m % P->bm == 0;
  bool b_in = (P->bn * P->bk / P->vb) % K->threads == 0 && pb->n % P->bn == 0;
  LLVMValueRef abase = K->a_ptr, bbase = K->b_ptr, ua = c32(K, 0), ub = c32(K, 0);
  if (K->kind != GK_CONV) { /* uniform parts: always in bounds (m0 < M, n0 < N, k0 < K) */
    LLVMValueRef row0 = K->m0;
    if (K->kind == GK_MATMUL)
      row0 = LLVMBuildAdd(b, LLVMBuildMul(b, K->batch, c32(K, pb->m), ""), K->m0, "");
    ua = LLVMBuildAdd(b, LLVMBuildMul(b, row0, c32(K, pb->k), ""), k0, "");
    ub = pb->b_kcontig
        ? LLVMBuildAdd(b, LLVMBuildMul(b, K->n0, c32(K, pb->k), ""), k0, "")
        : LLVMBuildAdd(b, LLVMBuildMul(b, LLVMBuildAdd(b, LLVMBuildMul(b, K->batch, c32(K, pb->k), ""), k0, ""),
                                       c32(K, pb->n), ""), K->n0, "");
    if (K->a_res) /* the tile's rows in LDS: row m0 is the array's first */
      ua = k0;
    abase = gep_el(K, K->a_ptr, LLVMBuildZExt(b, ua, K->cb->i64, ""));
    bbase = gep_el(K, K->b_ptr, LLVMBuildZExt(b, ub, K->cb->i64, ""));
  }
  /* An unmasked load of an operand under 4 GiB takes its whole offset in 32 bits, the uniform
   * part added in the loop: the zero extension then sits next to the load, which selects the
   * SGPR-base + VGPR-offset form; a 64-bit base per K tile plus a hoisted (invariant) 64-bit
   * offset cost two VALU adds per load (4096^3 i8 on gfx1200: 16 per K tile). A masked load's
   * offset is computed in the loop anyway (its select): it keeps the uniform base pointer, which
   * costs scalar adds only */
  bool a32 = K->kind != GK_CONV && operand_size(K, 0) < ((int64_t)1 << 32);
  bool b32 = K->kind != GK_CONV && operand_size(K, 1) < ((int64_t)1 << 32);
  /* Rows past M (columns past N) only feed outputs the epilogue never stores: instead of a mask
   * per slot and K step their address is clamped to the last row, once, outside the loop. Only
   * k past K must read as zero (a convolution's A keeps its row masks: padding decides them). */
  bool conv = K->kind == GK_CONV;
  gemm_conv_tile tile; /* conv with whole taps per K tile: the tile's tap, once (gemm_conv.c) */
  if (conv && K->cv.tile_taps)
    gemm_conv_tile_init(K->cb, &K->cv, k0, &tile);
  bool masks = conv && (K->cv.tile_taps || K->cv.lane_taps);
  for (int s = 0; s < K->na && conv && K->cv.runs; s++) { /* run gather: one pixel per slot */
    if (K->a_rsrc) {
      av[s] = load_pixel(K, K->a_rsrc, NULL, gemm_conv_run_bytes(K->cb, &K->cv, &K->cv_slots[s], k0, K->es), NULL, true);
    } else {
      LLVMValueRef ok = yes;
      LLVMValueRef off = gemm_conv_run_offset(K->cb, &K->cv, &K->cv_slots[s], k0, &ok);
      av[s] = load_pixel(K, NULL, K->a_ptr, off, ok, false);
    }
  }
  for (int s = 0; s < K->na && !(conv && K->cv.runs); s++) {
    LLVMValueRef k = LLVMBuildAdd(b, k0, K->a_kc[s], "");
    /* tap masks: rows are clamped (plan_slots), k past K has no bit in the mask */
    LLVMValueRef ok = masks ? yes
                    : LLVMBuildAnd(b, a_in || !conv ? yes : K->a_row_ok[s],
                                   k_in ? yes : LLVMBuildICmp(b, LLVMIntULT, k, c32(K, pb->k), ""), "");
    LLVMValueRef arow = !a_in && !conv ? clamp_rel(K, K->m0, K->a_row[s], pb->m) : K->a_row[s];
    if (K->a_res) { /* rows the prologue computed only (slots past the tile read its last row) */
      LLVMValueRef args[2] = {K->a_row[s], K->a_valid};
      arow = cg_intrinsic(K->cb, "llvm.umin", &K->cb->i32, 1, args, 2);
    }
    LLVMValueRef off;
    if (masks) {
      gemm_conv_tile t = tile;
      LLVMValueRef kc = K->a_kc[s];
      if (K->cv.lane_taps)
        gemm_conv_tile_init(K->cb, &K->cv, k, &t), kc = c32(K, 0);
      if (K->a_rsrc) {
        av[s] = load_buffer(K, K->a_rsrc, gemm_conv_a_tile_bytes(K->cb, &K->cv_rows[s], &t, kc, K->es), ua, NULL,
                            P->va);
        continue;
      }
      off = gemm_conv_a_tile_offset(K->cb, &K->cv_rows[s], &t, kc, &ok);
    } else if (conv) {
      off = gemm_conv_a_offset(K->cb, &K->cv, &K->ph, &K->cv_rows[s], k, &ok); /* gemm_conv.c */
    } else {
      off = LLVMBuildAdd(b, LLVMBuildMul(b, arow, c32(K, pb->k), ""), K->a_kc[s], "");
    }
    av[s] = K->a_rsrc ? load_buffer(K, K->a_rsrc, off, ua, ok, P->va)
            : K->a_res ? load_chunk(K, abase, off, ok, P->va, fa)
            : a32 && LLVMIsConstant(ok) ? load_chunk(K, K->a_ptr, LLVMBuildNUWAdd(b, ua, off, ""), ok, P->va, fa)
                                        : load_chunk(K, abase, off, ok, P->va, fa);
  }
  /* slots past the tile (the thread count does not divide it) are stored to LDS padding; a
   * k row past the tile is clamped into it so that the load stays inside B */
  bool b_spill = (P->bn * P->bk / P->vb) % K->threads && !pb->b_kcontig;
  LLVMValueRef b2base = K->b2_ptr ? gep_el(K, K->b2_ptr, LLVMBuildZExt(b, ub, K->cb->i64, "")) : NULL;
  for (int q = 0; q < K->nb; q++) {
    /* slot q: slot s of B operand q / nb1 (the dual-B GEMM's second B after the first's) */
    int s = q % K->nb1;
    bool second = q >= K->nb1;
    LLVMValueRef bp = second ? K->b2_ptr : K->b_ptr, bb = second ? b2base : bbase;
    LLVMValueRef brs = second ? K->b2_rsrc : K->b_rsrc;
    LLVMValueRef kc = b_spill ? clamp_row(K, K->b_kc[s], P->bk) : K->b_kc[s];
    LLVMValueRef k = LLVMBuildAdd(b, k0, kc, "");
    LLVMValueRef ok = k_in ? yes : LLVMBuildICmp(b, LLVMIntULT, k, c32(K, pb->k), "");
    /* matmul B rows are n-contiguous: the last whole vector of the row */
    LLVMValueRef brow = b_in ? K->b_row[s]
                             : clamp_rel(K, K->n0, K->b_row[s], pb->b_kcontig ? pb->n : pb->n - P->vb + 1);
    LLVMValueRef off;
    if (K->kind == GK_CONV) {
      LLVMValueRef n = LLVMBuildAdd(b, K->n0, brow, "");
      off = gemm_conv_b_offset(K->cb, &K->cv, &K->ph, n, k, &ok);
      if (K->cv.runs) {
        bv[q] = load_pixel(K, K->b_rsrc, K->b_ptr, off, ok, false);
        continue;
      }
    } else if (pb->b_kcontig) {
      off = LLVMBuildAdd(b, LLVMBuildMul(b, brow, c32(K, pb->k), ""), kc, "");
    } else {
      off = LLVMBuildAdd(b, LLVMBuildMul(b, kc, c32(K, pb->n), ""), brow, "");
    }
    bv[q] = brs ? load_buffer(K, brs, off, ub, ok, P->vb)
            : b32 && LLVMIsConstant(ok) ? load_chunk(K, bp, LLVMBuildNUWAdd(b, ub, off, ""), ok, P->vb, fb)
                                        : load_chunk(K, bb, off, ok, P->vb, fb);
  }
}

/* A staged vector (or element) as LDS holds it: bf16 bits shifted into the high half of an f32
 * when the FMA path widens (gemm_mma.widen), else unchanged. */
static LLVMValueRef lds_value(gk *K, LLVMValueRef x) {
  if (!K->mm.widen)
    return x;
  LLVMBuilderRef b = K->cb->b;
  LLVMTypeRef t = LLVMTypeOf(x);
  bool vec = LLVMGetTypeKind(t) == LLVMVectorTypeKind;
  unsigned n = vec ? LLVMGetVectorSize(t) : 1;
  LLVMTypeRef it = vec ? LLVMVectorType(K->cb->i32, n) : K->cb->i32;
  LLVMValueRef sh = LLVMConstInt(K->cb->i32, 16, 0);
  if (vec) {
    LLVMValueRef el[16];
    for (unsigned i = 0; i < n; i++)
      el[i] = sh;
    sh = LLVMConstVector(el, n);
  }
  LLVMValueRef w = LLVMBuildShl(b, LLVMBuildZExt(b, x, it, ""), sh, "");
  return LLVMBuildBitCast(b, w, vec ? LLVMVectorType(K->cb->f32, n) : K->cb->f32, "");
}

/* LDS layout per buffer: A rows (m, k contiguous) then B rows (n, k contiguous), each row
 * bk elements (of les bytes) + 16 bytes of padding so that lanes reading the same k of
 * consecutive rows hit different banks. */
static void store_slots(gk *K, LLVMValueRef buf, LLVMValueRef *av, LLVMValueRef *bv, int s0, int s1) {
  LLVMBuilderRef b = K->cb->b;
  const gemm_params *P = &K->P;
  LLVMValueRef base = LLVMBuildMul(b, buf, c32(K, K->buf_bytes), "");
  for (int s = s0; s < K->na && s < s1; s++) {
    LLVMValueRef byte = LLVMBuildAdd(b, base, LLVMBuildAdd(b, LLVMBuildMul(b, K->a_row[s], c32(K, K->sa), ""),
                                                           LLVMBuildMul(b, K->a_kc[s], c32(K, K->les), ""), ""), "");
    /* slots past the tile (the thread count does not divide it) write into the padding of the
     * last row, which no fragment read touches */
    if ((P->bm * P->bk / P->va) % K->threads) {
      LLVMValueRef in = LLVMBuildICmp(b, LLVMIntULT, K->a_row[s], c32(K, P->bm), "");
      LLVMValueRef pad = LLVMBuildAdd(b, base, c32(K, (int64_t)(P->bm - 1) * K->sa + P->bk * K->les), "");
      byte = LLVMBuildSelect(b, in, byte, pad, "");
    }
    cg_store(K->cb, lds_value(K, av[s]), gep8(K, K->lds, byte), al(P->va * K->les));
  }
  LLVMValueRef bbase0 = LLVMBuildAdd(b, base, c32(K, (int64_t)P->bm * K->sa), "");
  bool kc = K->pb.b_kcontig;
  int b_total = P->bn * P->bk / P->vb;
  for (int q = s0 > K->na ? s0 - K->na : 0; q < K->nb && K->na + q < s1; q++) {
    /* slot s of B operand q / nb1: the dual-B GEMM's second B tile follows the first's bn rows */
    int s = q % K->nb1;
    LLVMValueRef bbase = q < K->nb1 ? bbase0 : LLVMBuildAdd(b, bbase0, c32(K, (int64_t)P->bn * K->sa), "");
    LLVMValueRef in = NULL;
    if (b_total % K->threads)
      in = LLVMBuildICmp(b, LLVMIntULT, kc ? K->b_row[s] : K->b_kc[s], c32(K, kc ? P->bn : P->bk), "");
    LLVMValueRef pad = LLVMBuildAdd(b, bbase, c32(K, (int64_t)(P->bn - 1) * K->sa + P->bk * K->les), "");
    if (kc) {
      LLVMValueRef byte = LLVMBuildAdd(b, bbase, LLVMBuildAdd(b, LLVMBuildMul(b, K->b_row[s], c32(K, K->sa), ""),
                                                              LLVMBuildMul(b, K->b_kc[s], c32(K, K->les), ""), ""), "");
      if (in)
        byte = LLVMBuildSelect(b, in, byte, pad, "");
      cg_store(K->cb, lds_value(K, bv[q]), gep8(K, K->lds, byte), al(P->vb * K->les));
    } else if (K->rb > 1) { /* rows s, s+1 (k, k+1): one 2-byte write of the k pair per n */
      if ((q - (s0 > K->na ? s0 - K->na : 0)) % K->rb)
        continue;
      if (K->es == 2) { /* n's pair (k, k+1) as one dword */
        for (int j = 0; j < P->vb; j++) {
          LLVMValueRef mask[2] = {c32(K, j), c32(K, P->vb + j)};
          LLVMValueRef w = LLVMBuildShuffleVector(b, bv[q], bv[q + 1], LLVMConstVector(mask, 2), "");
          LLVMValueRef n = LLVMBuildAdd(b, K->b_row[s], c32(K, j), "");
          LLVMValueRef byte = LLVMBuildAdd(b, bbase, LLVMBuildAdd(b, LLVMBuildMul(b, n, c32(K, K->sa), ""),
                                                                  LLVMBuildMul(b, K->b_kc[s], c32(K, K->les), ""), ""), "");
          cg_store(K->cb, LLVMBuildBitCast(b, w, K->cb->i32, ""), gep8(K, K->lds, byte), 4);
        }
        continue;
      }
      /* the pairs of n and n+1 in one dword (one v_perm_b32), written as its two halves */
      for (int j = 0; j < P->vb; j += 2) {
        LLVMValueRef mask[4] = {c32(K, j), c32(K, P->vb + j), c32(K, j + 1), c32(K, P->vb + j + 1)};
        LLVMValueRef w = LLVMBuildShuffleVector(b, bv[q], bv[q + 1], LLVMConstVector(mask, 4), "");
        w = LLVMBuildBitCast(b, w, LLVMVectorType(K->cb->i16, 2), "");
        for (int h = 0; h < 2; h++) {
          LLVMValueRef n = LLVMBuildAdd(b, K->b_row[s], c32(K, j + h), "");
          LLVMValueRef byte = LLVMBuildAdd(b, bbase, LLVMBuildAdd(b, LLVMBuildMul(b, n, c32(K, K->sa), ""),
                                                                  K->b_kc[s], ""), "");
          cg_store(K->cb, LLVMBuildExtractElement(b, w, c32(K, h), ""), gep8(K, K->lds, byte), 2);
        }
      }
    } else { /* matmul B is n-contiguous in memory: transpose element by element */
      for (int j = 0; j < P->vb; j++) {
        LLVMValueRef n = LLVMBuildAdd(b, K->b_row[s], c32(K, j), "");
        LLVMValueRef byte = LLVMBuildAdd(b, bbase, LLVMBuildAdd(b, LLVMBuildMul(b, n, c32(K, K->sa), ""),
                                                                LLVMBuildMul(b, K->b_kc[s], c32(K, K->les), ""), ""), "");
        if (in)
          byte = LLVMBuildSelect(b, in, byte, pad, "");
        LLVMValueRef x = LLVMBuildExtractElement(b, bv[q], c32(K, j), "");
        cg_store(K->cb, lds_value(K, x), gep8(K, K->lds, byte), (unsigned)K->les);
      }
    }
  }
}

/* Staging slots [s0, s1) (A's slots, then B's) of the registers into LDS buffer buf. */
static void store_tile(gk *K, LLVMValueRef buf, LLVMValueRef *av, LLVMValueRef *bv) {
  store_slots(K, buf, av, bv, 0, K->na + K->nb);
}

/* ---------------------------------------------------------------- compute one LDS buffer */

/* kl elements of one A (is_b false) or B fragment for step kk of instruction tile t. The lane's
 * part of the address is built the same way for every fragment (CSE keeps one copy) and the
 * fragment's constant part is added last, so that it becomes the LDS instruction's immediate
 * offset: one base register per operand and buffer (gfx1200's 64x32-wave loop had six adds). */
static LLVMValueRef fragment(gk *K, LLVMValueRef bufbase, const gemm_lane *ln, bool is_b, int t, int kk) {
  LLVMBuilderRef b = K->cb->b;
  const gemm_mma *mm = &K->mm;
  int64_t region = is_b ? (int64_t)K->P.bm * K->sa : 0;
  /* B fragment t of the dual-B GEMM's wave tile: fragments [rn1, 2 rn1) read the second B tile */
  int rn1 = K->P.wn / mm->n;
  if (is_b && t >= rn1)
    region += (int64_t)(t / rn1) * K->P.bn * K->sa, t %= rn1;
  LLVMValueRef w0 = is_b ? K->wave_n0 : K->wave_m0;
  int step = is_b ? mm->n : mm->m;
  LLVMValueRef lane = LLVMBuildMul(b, LLVMBuildAdd(b, w0, ln->row, ""), c32(K, K->sa), "");
  if (mm->row)
    lane = LLVMBuildAdd(b, lane, LLVMBuildMul(b, ln->kofs, c32(K, K->es), ""), "");
  LLVMValueRef base = LLVMBuildAdd(b, bufbase, lane, "");
  int64_t c0 = region + (int64_t)t * step * K->sa;
  if (!mm->row) { /* FMA: tm (tn) rows strided by the lane grid, one 16-byte read of k each */
    int nr = is_b ? mm->tn : mm->tm, stride = is_b ? mm->n / mm->tn : mm->lanes_m;
    LLVMTypeRef et = mm->widen ? K->cb->f32 : K->mem, rt = LLVMVectorType(et, (unsigned)mm->k);
    LLVMValueRef v = LLVMGetUndef(LLVMVectorType(et, (unsigned)(nr * mm->k)));
    for (int i = 0; i < nr; i++) {
      LLVMValueRef byte = LLVMBuildAdd(b, base, c32(K, c0 + (int64_t)i * stride * K->sa + (int64_t)kk * K->les), "");
      LLVMValueRef x = cg_load(K->cb, rt, gep8(K, K->lds, byte), al(mm->k * K->les));
      for (int e = 0; e < mm->k; e++)
        v = LLVMBuildInsertElement(b, v, LLVMBuildExtractElement(b, x, c32(K, e), ""), c32(K, i * mm->k + e), "");
    }
    return v;
  }
  /* pack k steps at once: one (up to 16-byte) read of kl*pack contiguous elements */
  int kl = mm->kl * mm->pack, chunk = mm->chunk * mm->pack;
  LLVMValueRef v = LLVMGetUndef(LLVMVectorType(K->mem, (unsigned)kl));
  LLVMTypeRef ct = LLVMVectorType(K->mem, (unsigned)chunk);
  for (int e = 0; e < kl; e += chunk) {
    LLVMValueRef byte = LLVMBuildAdd(b, base, c32(K, c0 + (int64_t)(kk + e) * K->es), "");
    LLVMValueRef x = cg_load(K->cb, ct, gep8(K, K->lds, byte), al(chunk * K->es));
    if (chunk == kl) {
      v = x;
      continue;
    }
    for (int i = 0; i < chunk; i++)
      v = LLVMBuildInsertElement(b, v, LLVMBuildExtractElement(b, x, c32(K, i), ""), c32(K, e + i), "");
  }
  return v;
}

/* Elements [p*kl, (p+1)*kl) of a packed fragment: the operand of k step p. */
static LLVMValueRef pack_part(gk *K, LLVMValueRef v, int p) {
  const gemm_mma *mm = &K->mm;
  if (mm->pack == 1)
    return v;
  LLVMValueRef idx[16];
  for (int i = 0; i < mm->kl; i++)
    idx[i] = c32(K, (int64_t)p * mm->kl + i);
  return LLVMBuildShuffleVector(K->cb->b, v, LLVMGetUndef(LLVMTypeOf(v)), LLVMConstVector(idx, (unsigned)mm->kl), "");
}

static void compute_buffer(gk *K, LLVMValueRef buf, LLVMValueRef *acc) {
  LLVMBuilderRef b = K->cb->b;
  const gemm_mma *mm = &K->mm;
  int rm = K->P.wm / mm->m, rn = K->P.wn / mm->n * K->nbm;
  LLVMValueRef base = LLVMBuildMul(b, buf, c32(K, K->buf_bytes), "");
  gemm_lane la = gemm_mma_lane(K->cb, mm, K->lane, false), lb = gemm_mma_lane(K->cb, mm, K->lane, true);
  LLVMValueRef *fa = calloc((size_t)rm, sizeof(LLVMValueRef)), *fb = calloc((size_t)rn, sizeof(LLVMValueRef));
  for (int kk = 0; kk < K->P.bk; kk += mm->k * mm->pack) {
    for (int i = 0; i < rm; i++)
      fa[i] = fragment(K, base, &la, false, i, kk);
    for (int j = 0; j < rn; j++)
      fb[j] = fragment(K, base, &lb, true, j, kk);
    /* k step outer, (m, n) inner: consecutive MFMAs write different accumulators */
    /* each step: row 0 and column 0 first, so that every fragment is in use after rm+rn-1
     * instructions (gemm_mma_pipeline issues the global loads after that) */
    for (int p = 0; p < mm->pack; p++)
      for (int pass = 0; pass < 2; pass++)
        for (int i = 0; i < rm; i++)
          for (int j = 0; j < rn; j++)
            if ((i == 0 || j == 0) == (pass == 0))
              acc[i * rn + j] = gemm_mma_step(K->cb, mm, pack_part(K, fa[i], p), pack_part(K, fb[j], p),
                                              acc[i * rn + j]);
    /* FMA path: one step's fragments at a time; hoisting every step's 16-byte reads of the K
     * tile ahead of the FMAs takes the whole register file and spills on gfx11/gfx12 */
    if (!mm->row && kk + mm->k < K->P.bk)
      cg_intrinsic(K->cb, "llvm.amdgcn.sched.barrier", NULL, 0, (LLVMValueRef[]){c32(K, 0)}, 1);
  }
  free(fa);
  free(fb);
}

/* ---------------------------------------------------------------- the MFMA main loop */

/* The MFMA loop is software-pipelined and unrolled by two K tiles, so that the matrix pipe never
 * waits for the loop's other instructions (docs/gemm.md "Main loop"):
 * - tile t lives in LDS buffer t&1, a compile-time constant in each half of the body: every LDS
 *   address is a register plus an immediate offset;
 * - the global loads of tile t+2 are issued in half t and written to LDS at the start of half
 *   t+1, a whole half later, so their latency hides behind a half's MFMAs;
 * - fragments are read one k group ahead into the other of two register sets; the first group
 *   of tile t+1 is read right after half t's barrier, under the last MFMAs of tile t, so no
 *   iteration starts with a wait for LDS. */

typedef struct mloop {
  int rm, rn, nf, G, n, c; /* wave tile in instructions, fragments, k groups, MFMAs per group,
                            * MFMAs of the last group placed after the barrier */
  gemm_lane la, lb;
  LLVMValueRef *F[2]; /* two fragment sets: A fragments [0, rm), B [rm, rm+rn) */
  int (*order)[3];    /* MFMA e of a group: pack step, A fragment, B fragment */
  int *wr;            /* [G]: LDS writes of the staged tile in k group g of the current half */
} mloop;

/* The rm + rn fragments of k group g of LDS buffer buf into f. */
static void read_group(gk *K, const mloop *L, int buf, int g, LLVMValueRef *f) {
  LLVMValueRef base = c32(K, (int64_t)buf * K->buf_bytes);
  int kk = g * K->mm.k * K->mm.pack;
  for (int i = 0; i < L->rm; i++)
    f[i] = fragment(K, base, &L->la, false, i, kk);
  for (int j = 0; j < L->rn; j++)
    f[L->rm + j] = fragment(K, base, &L->lb, true, j, kk);
}

/* MFMAs [from, to) of one k group on fragments f. */
static void mma_range(gk *K, const mloop *L, LLVMValueRef *f, LLVMValueRef *acc, int from, int to) {
  for (int e = from; e < to; e++) {
    int p = L->order[e][0], i = L->order[e][1], j = L->order[e][2];
    acc[i * L->rn + j] = gemm_mma_step(K->cb, &K->mm, pack_part(K, f[i], p),
                                       pack_part(K, f[L->rm + j], p), acc[i * L->rn + j]);
  }
}

static LLVMValueRef smin(gk *K, LLVMValueRef x, LLVMValueRef y) {
  return LLVMBuildSelect(K->cb->b, LLVMBuildICmp(K->cb->b, LLVMIntSLT, x, y, ""), x, y, "");
}

static LLVMValueRef smax(gk *K, LLVMValueRef x, LLVMValueRef y) {
  return LLVMBuildSelect(K->cb->b, LLVMBuildICmp(K->cb->b, LLVMIntSGT, x, y, ""), x, y, "");
}

/* Count of `total` items that falls on slot i of [from, to) when spread evenly. */
static int spread(int total, int i, int from, int to) {
  if (i < from || i >= to || to <= from)
    return 0;
  int len = to - from, x = i - from;
  return (int)((int64_t)total * (x + 1) / len - (int64_t)total * x / len);
}

/* sched.group.barrier plan of k group g of a half (one scheduling region each, sched.barrier
 * between them, so that no MFMA of a later group is pulled in front of its fragments): group 0
 * issues the global loads of the tile after next and the LDS writes of the staged tile, every
 * group but the last reads the next group's fragments under its MFMAs; after the barrier the
 * next tile's group 0 is read under the last c MFMAs (after_barrier). */
static void schedule_group(gk *K, const mloop *L, int g, bool after_barrier) {
  int nvmem = K->na + K->nb, nr = L->nf;
  if (after_barrier) {
    for (int i = 0; i < L->c; i++)
      gemm_mma_slot(K->cb, &K->mm, 0, 0, spread(nr, i, 0, L->c), 1);
    return;
  }
  int m = g + 1 < L->G ? L->n : L->n - L->c, nwrite = L->wr[g];
  if (g > 0)
    nvmem = 0;
  int wend = (nwrite + 2) / 3 < m ? (nwrite + 2) / 3 : m;
  int vend = (nvmem + 3) / 4 < m ? (nvmem + 3) / 4 : m;
  int rd = g + 1 < L->G ? nr : 0;
  for (int i = 0; i < m; i++)
    gemm_mma_slot(K->cb, &K->mm, spread(nwrite, i, 0, wend), spread(nvmem, i, 0, vend), spread(rd, i, 0, m), 1);
}

static void sched_fence(gk *K) {
  cg_intrinsic(K->cb, "llvm.amdgcn.sched.barrier", NULL, 0, (LLVMValueRef[]){c32(K, 0)}, 1);
}

/* Half h (0 or 1) of the loop body for the tile in LDS buffer h: store the staged tile
 * (sa, sb) to buffer h^1, load tile `next` into (sa, sb), multiply, barrier, read group 0 of
 * buffer h^1. */
static void mloop_half(gk *K, mloop *L, int h, LLVMValueRef next, LLVMValueRef *sa, LLVMValueRef *sb,
                       LLVMValueRef *acc) {
  /* the staged tile's LDS writes, spread over the k groups by their instruction counts (an
   * n-contiguous B slot is vb / rb writes) */
  int ns = K->na + K->nb, wb = K->pb.b_kcontig ? 1 : K->P.vb / K->rb, wtot = K->na + K->nb * wb;
  LLVMValueRef *st = malloc(sizeof(LLVMValueRef) * (size_t)ns);
  memcpy(st, sa, sizeof(LLVMValueRef) * (size_t)K->na), memcpy(st + K->na, sb, sizeof(LLVMValueRef) * (size_t)K->nb);
  load_tile(K, next, sa, sb);
  for (int g = 0, s0 = 0; g < L->G; g++) {
    LLVMValueRef *f = L->F[(h * L->G + g) % 2];
    int s1 = s0, w = 0, want = (int)((int64_t)wtot * (g + 1) / L->G);
    for (int s = 0; s < ns; s++) /* B splits between blocks of rb rows only */
      w += s < K->na ? 1 : wb, s1 = w <= want && (s < K->na || (s + 1 - K->na) % K->rb == 0) ? s + 1 : s1;
    if (g + 1 == L->G)
      s1 = ns;
    store_slots(K, c32(K, h ^ 1), st, st + K->na, s0, s1);
    L->wr[g] = 0;
    for (int s = s0; s < s1; s++)
      L->wr[g] += s < K->na ? 1 : wb;
    s0 = s1;
    if (g + 1 < L->G)
      read_group(K, L, h, g + 1, L->F[(h * L->G + g + 1) % 2]);
    mma_range(K, L, f, acc, 0, g + 1 < L->G ? L->n : L->n - L->c);
    schedule_group(K, L, g, false);
    /* nothing crosses a group boundary or the barrier */
    sched_fence(K);
  }
  free(st);
  cg_barrier(K->cb);
  LLVMValueRef *last = L->F[(h * L->G + L->G - 1) % 2];
  read_group(K, L, h ^ 1, 0, L->F[(h * L->G + L->G) % 2]);
  mma_range(K, L, last, acc, L->n - L->c, L->n);
  schedule_group(K, L, 0, true);
}

/* The MFMA K loop over `count` tiles from kbeg; acc[] holds the sums when it returns, the builder
 * sits in the block after the loop. An odd count gets a zero tile in front (the sequence index j
 * runs over count + 1 tiles then), so that both halves of every iteration have a tile. */
static void kloop_mfma(gk *K, LLVMValueRef kbeg, LLVMValueRef count, LLVMValueRef *acc) {
  cg_builder *cb = K->cb;
  LLVMBuilderRef b = cb->b;
  const gemm_mma *mm = &K->mm;
  mloop L = {.rm = K->P.wm / mm->m, .rn = K->P.wn / mm->n * K->nbm};
  L.nf = L.rm + L.rn, L.G = K->P.bk / (mm->k * mm->pack), L.n = L.rm * L.rn * mm->pack;
  L.c = (L.nf + 2) / 3 < L.n ? (L.nf + 2) / 3 : L.n - 1;
  if (L.c < 1)
    L.c = L.n > 1 ? 1 : 0;
  L.la = gemm_mma_lane(cb, mm, K->lane, false), L.lb = gemm_mma_lane(cb, mm, K->lane, true);
  L.order = calloc((size_t)L.n, sizeof *L.order);
  L.wr = calloc((size_t)L.G, sizeof *L.wr);
  /* row 0 and column 0 first: every fragment is in use early in the group */
  for (int p = 0, e = 0; p < mm->pack; p++)
    for (int pass = 0; pass < 2; pass++)
      for (int i = 0; i < L.rm; i++)
        for (int j = 0; j < L.rn; j++)
          if ((i == 0 || j == 0) == (pass == 0))
            L.order[e][0] = p, L.order[e][1] = i, L.order[e++][2] = j;
  L.F[0] = calloc((size_t)L.nf, sizeof(LLVMValueRef));
  L.F[1] = calloc((size_t)L.nf, sizeof(LLVMValueRef));
  int ns = K->na + K->nb, nacc = L.rm * L.rn;
  LLVMValueRef *sv = calloc((size_t)ns, sizeof(LLVMValueRef)), *phis = calloc((size_t)(nacc + L.nf + ns), sizeof(LLVMValueRef));
  LLVMValueRef one = c32(K, 1);
  LLVMValueRef T = LLVMBuildSelect(b, LLVMBuildICmp(b, LLVMIntSLT, count, one, ""), one, count, "tiles");
  LLVMValueRef odd = LLVMBuildAnd(b, T, one, "");
  LLVMValueRef T2 = LLVMBuildAdd(b, T, odd, "");
  LLVMValueRef lastt = LLVMBuildSub(b, T, one, "");
#define TILE(j) LLVMBuildAdd(b, kbeg, smin(K, smax(K, LLVMBuildSub(b, (j), odd, ""), c32(K, 0)), lastt), "")
  /* prologue: sequence tile 0 (zeros when count is odd) into buffer 0, tile 1 staged */
  load_tile(K, TILE(c32(K, 0)), sv, sv + K->na);
  LLVMValueRef isodd = LLVMBuildICmp(b, LLVMIntNE, odd, c32(K, 0), "");
  for (int s = 0; s < ns; s++)
    sv[s] = LLVMBuildSelect(b, isodd, LLVMConstNull(LLVMTypeOf(sv[s])), sv[s], "");
  store_tile(K, c32(K, 0), sv, sv + K->na);
  load_tile(K, TILE(one), sv, sv + K->na);
  cg_barrier(cb);
  read_group(K, &L, 0, 0, L.F[0]);
  LLVMBasicBlockRef pre = LLVMGetInsertBlock(b);
  LLVMBasicBlockRef loop = LLVMAppendBasicBlockInContext(cb->ctx, cb->fn, "kloop");
  LLVMBasicBlockRef done = LLVMAppendBasicBlockInContext(cb->ctx, cb->fn, "epilogue");
  LLVMBuildBr(b, loop);
  LLVMPositionBuilderAtEnd(b, loop);
  LLVMValueRef j = LLVMBuildPhi(b, cb->i32, "j");
  LLVMValueRef *init = calloc((size_t)(nacc + L.nf + ns), sizeof(LLVMValueRef));
  int np = 0;
  LLVMTypeRef acc_t = gemm_mma_acc_type(cb, mm);
  for (int i = 0; i < nacc; i++)
    init[np] = LLVMConstNull(acc_t), acc[i] = phis[np++] = LLVMBuildPhi(b, acc_t, "acc");
  for (int i = 0; i < L.nf; i++)
    init[np] = L.F[0][i], L.F[0][i] = phis[np++] = LLVMBuildPhi(b, LLVMTypeOf(L.F[0][i]), "frag");
  for (int s = 0; s < ns; s++)
    init[np] = sv[s], sv[s] = phis[np++] = LLVMBuildPhi(b, LLVMTypeOf(sv[s]), "staged");
  mloop_half(K, &L, 0, TILE(LLVMBuildAdd(b, j, c32(K, 2), "")), sv, sv + K->na, acc);
  mloop_half(K, &L, 1, TILE(LLVMBuildAdd(b, j, c32(K, 3), "")), sv, sv + K->na, acc);
#undef TILE
  LLVMValueRef j2 = LLVMBuildAdd(b, j, c32(K, 2), "");
  LLVMBasicBlockRef latch = LLVMGetInsertBlock(b);
  LLVMValueRef back = LLVMBuildCondBr(b, LLVMBuildICmp(b, LLVMIntSLT, j2, T2, ""), loop, done);
  cg_loop_no_unroll(cb, back); /* already two tiles per iteration */
  LLVMBasicBlockRef bbs[2] = {pre, latch};
  LLVMValueRef jin[2] = {c32(K, 0), j2};
  LLVMAddIncoming(j, jin, bbs, 2);
  np = 0;
  for (int i = 0; i < nacc; i++, np++)
    LLVMAddIncoming(phis[np], (LLVMValueRef[]){init[np], acc[i]}, bbs, 2);
  for (int i = 0; i < L.nf; i++, np++) /* (2 G) % 2 == 0: an iteration ends in set 0 again */
    LLVMAddIncoming(phis[np], (LLVMValueRef[]){init[np], L.F[0][i]}, bbs, 2);
  for (int s = 0; s < ns; s++, np++)
    LLVMAddIncoming(phis[np], (LLVMValueRef[]){init[np], sv[s]}, bbs, 2);
  LLVMPositionBuilderAtEnd(b, done);
  free(L.order), free(L.wr), free(L.F[0]), free(L.F[1]), free(sv), free(phis), free(init);
}

/* ---------------------------------------------------------------- epilogue */

static int data_operands(const op *o) {
  if (strcmp(anchor_name(o), "tosa.mul") == 0)
    return 2;
  if (strcmp(anchor_name(o), "tosa.negate") == 0)
    return 1;
  return o->noperands;
}

/* Element offset into value v (broadcast against the iteration shape) of linear index lin. */
static LLVMValueRef bcast_offset(gk *K, const value *v, LLVMValueRef lin) {
  LLVMBuilderRef b = K->cb->b;
  const tensor_type *it = &K->k->iter, *vt = v->type;
  if (tensor_numel(vt) == tensor_numel(it))
    return lin;
  if (tensor_numel(vt) == 1)
    return c32(K, 0);
  int pad = it->rank - vt->rank;
  LLVMValueRef off = c32(K, 0);
  int64_t inner = 1, vstride = 1;
  for (int d = it->rank - 1; d >= 0; d--) {
    int64_t vd = d >= pad ? vt->dims[d - pad] : 1;
    if (vd != 1) {
      LLVMValueRef idx = LLVMBuildURem(b, LLVMBuildUDiv(b, lin, c32(K, inner), ""), c32(K, it->dims[d]), "");
      off = LLVMBuildAdd(b, off, LLVMBuildMul(b, idx, c32(K, vstride), ""), "");
      vstride *= vd;
    }
    inner *= it->dims[d];
  }
  return off;
}

static LLVMValueRef const_global(gk *K, const value *v, const dense_data *d) {
  char name[96];
  snprintf(name, sizeof name, "%s.const%d", K->k->name, v->id);
  LLVMValueRef g = LLVMGetNamedGlobal(K->cb->mod, name);
  if (g)
    return g;
  LLVMTypeRef mt = cg_mem_type(K->cb, v->type->elem);
  size_t nbytes = (size_t)tensor_numel(v->type) * (size_t)elem_type_bytes(v->type->elem);
  LLVMValueRef init = LLVMConstDataArray(mt, (const char *)d->bytes, nbytes);
  g = LLVMAddGlobalInAddressSpace(K->cb->mod, LLVMTypeOf(init), name, 4);
  LLVMSetInitializer(g, init);
  LLVMSetLinkage(g, LLVMInternalLinkage);
  LLVMSetGlobalConstant(g, 1);
  LLVMSetAlignment(g, 16);
  return g;
}

/* Scalar (register type) of value v at linear output index lin, from a buffer or a constant. */
static LLVMValueRef read_value(gk *K, const value *v, LLVMValueRef lin) {
  cg_builder *cb = K->cb;
  LLVMBuilderRef b = cb->b;
  elem_type et = v->type->elem;
  LLVMTypeRef mt = cg_mem_type(cb, et);
  LLVMValueRef ptr = NULL;
  int pi = param_of(K, v);
  if (pi >= 0) {
    ptr = LLVMGetParam(cb->fn, (unsigned)pi);
  } else {
    const dense_data *d = cg_const_data(v);
    if (!d) {
      diag_error_noloc(cb->diag, "kernel '%s': value %%%s is neither an input nor computed", K->k->name, VALUE_NAME(v));
      cb->failed = true;
      return NULL;
    }
    if (d->splat || tensor_numel(v->type) == 1) {
      if (elem_type_is_float(et)) {
        double f = 0;
        cg_dense_float(d, 0, &f);
        return cg_const_float(cb, et, f);
      }
      int64_t i = 0;
      cg_dense_int(d, 0, &i);
      return LLVMConstInt(cg_elem_type(cb, et), (unsigned long long)i, 1);
    }
    ptr = const_global(K, v, d);
  }
  LLVMValueRef off = bcast_offset(K, v, lin);
  LLVMValueRef x = cg_load(cb, mt, LLVMBuildInBoundsGEP2(b, mt, ptr, &off, 1, ""), (unsigned)elem_type_bytes(et));
  if (et == ET_I1)
    x = LLVMBuildICmp(b, LLVMIntNE, x, LLVMConstNull(mt), "");
  return x;
}

/* Does the kernel write split-K partials (KR_PARTIAL, KR_FIXUP)? */
static bool splits_k(const gk *K) { return K->k->role == KR_PARTIAL || K->k->role == KR_FIXUP; }

/* The kernel's graph outputs: KR_FIXUP's last two are its partials and counters. */
static int graph_outputs(const gk *K) { return K->k->role == KR_FIXUP ? K->k->nout - 2 : K->k->nout; }

/* The partials workspace argument: the only output of KR_PARTIAL, after the outputs for KR_FIXUP. */
static LLVMValueRef partials_arg(gk *K) {
  return LLVMGetParam(K->cb->fn, (unsigned)(K->k->nin + (K->k->role == KR_FIXUP ? K->k->nout - 2 : 0)));
}

/* Split-K (KR_PARTIAL, KR_FIXUP): the raw accumulator goes to partials[split][lin] of the
 * workspace, in the accumulator type; bias, casts and the fused ops run once, in the combine
 * kernel or the tile's last work-group (emit_fixup). */
static bool store_partial(gk *K, LLVMValueRef accv, LLVMValueRef lin) {
  LLVMBuilderRef b = K->cb->b;
  int64_t numel = K->pb.batch * K->pb.m * K->pb.n;
  LLVMValueRef off = LLVMBuildAdd(b, LLVMBuildMul(b, K->split_idx, c32(K, numel), ""), lin, "");
  LLVMTypeRef at = K->mm.int_acc ? K->cb->i32 : K->cb->f32;
  LLVMValueRef p = LLVMBuildInBoundsGEP2(b, at, partials_arg(K), &off, 1, "");
  cg_store(K->cb, accv, p, 4);
  return true;
}

/* Element offset of the convolution's output (pixel m, channel n) in the layout of output view
 * t: pixel m decomposed into (batch, spatial...) over the result's dims, each coordinate times
 * the step of the dim the transpose moves it to. */
static LLVMValueRef out_view_offset(gk *K, const op *t, LLVMValueRef m, LLVMValueRef n) {
  LLVMBuilderRef b = K->cb->b;
  const tensor_type *r = K->anchor->results[0]->type, *tr = t->results[0]->type;
  const attr *p = op_attr(t, "perms");
  int64_t step[TOSAC_MAX_RANK], at = 1;
  for (int i = tr->rank - 1; i >= 0; i--) { /* result dim i is the anchor's dim p[i] */
    step[p->ints[i]] = at;
    at *= tr->dims[i];
  }
  int last = r->rank - 1;
  LLVMValueRef off = LLVMBuildMul(b, n, c32(K, step[last]), ""), rest = m;
  for (int d = last - 1; d >= 0; d--) {
    LLVMValueRef q = d ? LLVMBuildURem(b, rest, c32(K, r->dims[d]), "") : rest;
    off = LLVMBuildAdd(b, off, LLVMBuildMul(b, q, c32(K, step[d]), ""), "");
    if (d)
      rest = LLVMBuildUDiv(b, rest, c32(K, r->dims[d]), "");
  }
  return off;
}

/* The row-major element of output (m, n) in the anchor's result (and the partials); a grouped
 * convolution's n becomes the result's channel (gemm_conv_out_chan). */
static LLVMValueRef out_linear(gk *K, LLVMValueRef m, LLVMValueRef *n) {
  LLVMBuilderRef b = K->cb->b;
  LLVMValueRef row = m;
  int64_t width = K->pb.n;
  if (K->kind == GK_MATMUL)
    row = LLVMBuildAdd(b, LLVMBuildMul(b, K->batch, c32(K, K->pb.m), ""), m, "");
  if (K->kind == GK_CONV && K->cv.groups > 1)
    *n = gemm_conv_out_chan(K->cb, &K->cv, &K->ph, *n), width *= K->cv.groups;
  return LLVMBuildAdd(b, LLVMBuildMul(b, row, c32(K, width), ""), *n, "");
}

/* The anchor's result element of accumulator accv at column n: + bias, rounded to the result
 * type (integers wrapped). */
static LLVMValueRef anchor_value(gk *K, LLVMValueRef accv, LLVMValueRef n) {
  cg_builder *cb = K->cb;
  LLVMBuilderRef b = cb->b;
  LLVMValueRef x = accv;
  if (K->bias_last && (K->out_t == ET_F16 || K->out_t == ET_BF16))
    x = LLVMBuildFPTrunc(b, x, cg_elem_type(cb, K->out_t), "");
  if (K->bias_ptr) {
    const value *bv = K->anchor->operands[2];
    LLVMValueRef bi = tensor_numel(bv->type) == 1 ? c32(K, 0) : n;
    LLVMTypeRef bt = cg_mem_type(cb, bv->type->elem);
    LLVMValueRef bias = cg_load(cb, bt, LLVMBuildInBoundsGEP2(b, bt, K->bias_ptr, &bi, 1, ""),
                                (unsigned)elem_type_bytes(bv->type->elem));
    if (K->mm.int_acc)
      x = LLVMBuildAdd(b, x, LLVMBuildSExt(b, bias, LLVMTypeOf(x), ""), "");
    else if (LLVMTypeOf(x) != cb->f32) /* bias_last: add in the result type */
      x = LLVMBuildFAdd(b, x, LLVMTypeOf(bias) == LLVMTypeOf(x) ? bias : LLVMBuildFPTrunc(b, bias, LLVMTypeOf(x), ""), "");
    else
      x = LLVMBuildFAdd(b, x, bv->type->elem == ET_F32 ? bias : LLVMBuildFPExt(b, bias, cb->f32, ""), "");
  }
  if ((K->out_t == ET_F16 || K->out_t == ET_BF16) && LLVMTypeOf(x) == cb->f32)
    x = LLVMBuildFPTrunc(b, x, cg_elem_type(cb, K->out_t), "");
  if (K->mm.int_acc)
    x = cg_int_wrap(cb, x, K->out_t);
  return x;
}

/* acc (+ bias) -> anchor result -> epilogue ops -> stores, for output (m, n); for a
 * convolution m is the output pixel (gemm_conv_out_pixel). The dual-B GEMM's second result
 * (K->acc2) enters beside the first, each op of the epilogue reading either or both. */
static bool epilogue_element(gk *K, LLVMValueRef accv, LLVMValueRef m, LLVMValueRef n, LLVMValueRef *cur) {
  cg_builder *cb = K->cb;
  LLVMBuilderRef b = cb->b;
  LLVMValueRef lin = out_linear(K, m, &n);
  if (splits_k(K) && !K->fixing)
    return store_partial(K, accv, lin);
  memset(cur, 0, sizeof(LLVMValueRef) * (size_t)K->g->nvalues);
  if (K->anchor2)
    cur[K->anchor2->results[0]->id] = anchor_value(K, K->acc2, n);
  cur[K->anchor->results[0]->id] = anchor_value(K, accv, n);
  for (int oi = 0; oi < K->k->nops; oi++) {
    const op *o = K->k->ops[oi];
    if (o == K->anchor || o == K->anchor2 || op_table[o->kind].family == FAM_CONST || !in_slice(K, o) ||
        part_is_operand_view(K->k, o) || part_is_prologue(K->k, o))
      continue;
    if (part_is_output_view(K->k, o)) { /* the same element, stored through its strides */
      cur[o->results[0]->id] = cur[o->operands[0]->id];
      continue;
    }
    LLVMValueRef args[8];
    int na = data_operands(o);
    for (int a = 0; a < na && a < 8; a++) {
      const value *v = o->operands[a];
      if (!cur[v->id])
        cur[v->id] = read_value(K, v, lin);
      if (!cur[v->id])
        return false;
      args[a] = cur[v->id];
    }
    if (o->kind == OP_RESCALE) { /* per-channel parameters: the output's last-dim index */
      const tensor_type *rt = o->results[0]->type;
      int64_t c = rt->rank ? rt->dims[rt->rank - 1] : 1;
      args[1] = c > 1 ? LLVMBuildURem(b, lin, c32(K, c), "chan") : c32(K, 0);
    }
    LLVMValueRef r = cg_ew_op(cb, o, args);
    if (!r)
      return false;
    cur[o->results[0]->id] = r;
  }
  for (int o = 0; o < graph_outputs(K); o++) {
    const value *v = K->k->out_vals[o];
    if (K->mine && (!v->def || !in_slice(K, v->def)))
      continue; /* another GEMM's output */
    if (v->def && part_is_prologue(K->k, v->def))
      continue; /* the row norm's value: the prologue stores it */
    LLVMValueRef y = cur[v->id] ? cur[v->id] : read_value(K, v, lin);
    if (!y)
      return false;
    elem_type et = v->type->elem;
    if (et == ET_I1)
      y = LLVMBuildZExt(b, y, cb->i8, "");
    LLVMTypeRef mt = cg_mem_type(cb, et);
    LLVMValueRef at = v->def && part_is_output_view(K->k, v->def) ? out_view_offset(K, v->def, m, n) : lin;
    at = cg_slot_offset(cb, K->k, v, at);
    LLVMValueRef p = LLVMBuildInBoundsGEP2(b, mt, LLVMGetParam(cb->fn, (unsigned)(K->k->nin + o)), &at, 1, "");
    cg_store(cb, y, p, (unsigned)elem_type_bytes(et));
  }
  return true;
}

static bool emit_epilogue(gk *K, LLVMValueRef *acc) {
  cg_builder *cb = K->cb;
  LLVMBuilderRef b = cb->b;
  const gemm_mma *mm = &K->mm;
  int rm = K->P.wm / mm->m, rn = K->P.wn / mm->n, row = rn * K->nbm;
  bool guard = K->pb.m % K->P.bm || K->pb.n % K->P.bn || K->cv.transpose;
  LLVMValueRef *cur = calloc((size_t)K->g->nvalues, sizeof(LLVMValueRef));
  bool ok = true;
  for (int i = 0; i < rm && ok; i++)
    for (int j = 0; j < rn && ok; j++)
      for (int e = 0; e < mm->nacc && ok; e++) {
        LLVMValueRef r, c;
        gemm_mma_acc_pos(cb, mm, K->lane, e, &r, &c);
        LLVMValueRef m = LLVMBuildAdd(b, LLVMBuildAdd(b, K->m0, K->wave_m0, ""),
                                      LLVMBuildAdd(b, r, c32(K, (int64_t)i * mm->m), ""), "");
        LLVMValueRef n = LLVMBuildAdd(b, LLVMBuildAdd(b, K->n0, K->wave_n0, ""),
                                      LLVMBuildAdd(b, c, c32(K, (int64_t)j * mm->n), ""), "");
        LLVMValueRef x = LLVMBuildExtractElement(b, acc[i * row + j], c32(K, e), "");
        K->acc2 = K->anchor2 ? LLVMBuildExtractElement(b, acc[i * row + rn + j], c32(K, e), "") : NULL;
        LLVMBasicBlockRef next = NULL;
        LLVMValueRef in = LLVMBuildAnd(b, LLVMBuildICmp(b, LLVMIntULT, m, c32(K, K->pb.m), ""),
                                       LLVMBuildICmp(b, LLVMIntULT, n, c32(K, K->pb.n), ""), "");
        if (K->kind == GK_CONV) /* transpose: rows past this phase's outputs are skipped */
          m = gemm_conv_out_pixel(cb, &K->cv, &K->ph, m, &in);
        if (guard) {
          LLVMBasicBlockRef body = LLVMAppendBasicBlockInContext(cb->ctx, cb->fn, "store");
          next = LLVMAppendBasicBlockInContext(cb->ctx, cb->fn, "next");
          LLVMBuildCondBr(b, in, body, next);
          LLVMPositionBuilderAtEnd(b, body);
        }
        ok = epilogue_element(K, x, m, n, cur) && !cb->failed;
        if (guard && ok) {
          LLVMBuildBr(b, next);
          LLVMPositionBuilderAtEnd(b, next);
        }
        /* one accumulator tile at a time: without this fence the scheduler hoists every
         * store address of the tile grid and the epilogue, not the loop, sets the VGPR peak */
        if (ok && e == mm->nacc - 1 && rm * rn > 1)
          cg_intrinsic(cb, "llvm.amdgcn.sched.barrier", NULL, 0, (LLVMValueRef[]){c32(K, 0)}, 1);
      }
  free(cur);
  return ok;
}

/* KR_FIXUP: after every thread stored its partials, the work-group counts itself in at its
 * tile's counter; the last of the split_count work-groups of the tile sums the partials in split
 * order (the combine kernel's order: the same bits) and runs the epilogue for the tile's
 * elements, then puts the counter back to 0 for the next run. Release fences at agent scope
 * order each thread's partial stores before the count (the barrier orders them before thread
 * 0's atomic); the last work-group's threads acquire before reading the others' partials. */
static int64_t grid_groups(const gk *K);

static bool emit_fixup(gk *K, LLVMValueRef tile) {
  cg_builder *cb = K->cb;
  LLVMBuilderRef b = cb->b;
  unsigned agent = LLVMGetSyncScopeID(cb->ctx, "agent", 5);
  int split = K->k->split_count;
  if (tensor_numel(K->k->out_vals[K->k->nout - 1]->type) < grid_groups(K)) {
    diag_error_noloc(cb->diag, "kernel '%s': %lld split-K counters for %lld tiles", K->k->name,
                     (long long)tensor_numel(K->k->out_vals[K->k->nout - 1]->type), (long long)grid_groups(K));
    return false;
  }
  LLVMValueRef counters = LLVMGetParam(cb->fn, (unsigned)(K->k->nin + K->k->nout - 1));
  LLVMValueRef slot = LLVMBuildInBoundsGEP2(b, cb->i32, counters, &tile, 1, "counter");
  LLVMBuildFenceSyncScope(b, LLVMAtomicOrderingRelease, agent, "");
  cg_barrier(cb);
  LLVMBasicBlockRef count = LLVMAppendBasicBlockInContext(cb->ctx, cb->fn, "count");
  LLVMBasicBlockRef counted = LLVMAppendBasicBlockInContext(cb->ctx, cb->fn, "counted");
  LLVMBasicBlockRef fix = LLVMAppendBasicBlockInContext(cb->ctx, cb->fn, "fixup");
  LLVMBasicBlockRef done = LLVMAppendBasicBlockInContext(cb->ctx, cb->fn, "fixed");
  LLVMValueRef first = LLVMBuildICmp(b, LLVMIntEQ, K->tid, c32(K, 0), "");
  LLVMBuildCondBr(b, first, count, counted);
  LLVMPositionBuilderAtEnd(b, count);
  LLVMValueRef old = LLVMBuildAtomicRMWSyncScope(b, LLVMAtomicRMWBinOpAdd, slot, c32(K, 1),
                                                 LLVMAtomicOrderingMonotonic, agent);
  LLVMValueRef last = LLVMBuildZExt(b, LLVMBuildICmp(b, LLVMIntEQ, old, c32(K, split - 1), ""), cb->i32, "");
  cg_store(cb, last, K->lds, 4); /* the K loop's LDS is free: every wave passed the barrier */
  LLVMBuildBr(b, counted);
  LLVMPositionBuilderAtEnd(b, counted);
  cg_barrier(cb);
  LLVMValueRef flag = cg_load(cb, cb->i32, K->lds, 4);
  LLVMBuildCondBr(b, LLVMBuildICmp(b, LLVMIntNE, flag, c32(K, 0), ""), fix, done);

  LLVMPositionBuilderAtEnd(b, fix);
  LLVMBuildFenceSyncScope(b, LLVMAtomicOrderingAcquire, agent, "");
  /* vector q of v columns of the bm x bn tile per thread, strided by the work-group: v = 4
   * (16-byte loads, S of them in flight per thread) where rows of the result and of the tile
   * are whole vectors */
  int v = K->pb.n % 4 == 0 && K->P.bn % 4 == 0 ? 4 : 1, qrow = K->P.bn / v;
  LLVMBasicBlockRef head = LLVMGetInsertBlock(b);
  LLVMBasicBlockRef loop = LLVMAppendBasicBlockInContext(cb->ctx, cb->fn, "fix_elem");
  LLVMBasicBlockRef body = LLVMAppendBasicBlockInContext(cb->ctx, cb->fn, "fix_store");
  LLVMBasicBlockRef next = LLVMAppendBasicBlockInContext(cb->ctx, cb->fn, "fix_next");
  LLVMBasicBlockRef reset = LLVMAppendBasicBlockInContext(cb->ctx, cb->fn, "fix_reset");
  LLVMBuildBr(b, loop);
  LLVMPositionBuilderAtEnd(b, loop);
  LLVMValueRef e = LLVMBuildPhi(b, cb->i32, "q");
  LLVMValueRef m = LLVMBuildAdd(b, K->m0, LLVMBuildUDiv(b, e, c32(K, qrow), ""), "");
  LLVMValueRef n = LLVMBuildAdd(b, K->n0, LLVMBuildMul(b, LLVMBuildURem(b, e, c32(K, qrow), ""), c32(K, v), ""), "");
  LLVMValueRef in = LLVMBuildAnd(b, LLVMBuildICmp(b, LLVMIntULT, m, c32(K, K->pb.m), ""),
                                 LLVMBuildICmp(b, LLVMIntULT, n, c32(K, K->pb.n), ""), "");
  LLVMBuildCondBr(b, in, body, next);
  LLVMPositionBuilderAtEnd(b, body);
  LLVMValueRef chan = n, lin = out_linear(K, m, &chan);
  int64_t numel = K->pb.batch * K->pb.m * K->pb.n;
  LLVMTypeRef at = K->mm.int_acc ? cb->i32 : cb->f32, vt = v > 1 ? LLVMVectorType(at, (unsigned)v) : at;
  LLVMValueRef parts = partials_arg(K), sum = NULL;
  for (int s = 0; s < split; s++) { /* independent loads, added in split order */
    LLVMValueRef off = LLVMBuildAdd(b, lin, c32(K, s * numel), "");
    LLVMValueRef x = cg_load(cb, vt, LLVMBuildInBoundsGEP2(b, at, parts, &off, 1, ""), (unsigned)(4 * v));
    sum = !sum ? x : K->mm.int_acc ? LLVMBuildAdd(b, sum, x, "") : LLVMBuildFAdd(b, sum, x, "");
  }
  LLVMValueRef *cur = calloc((size_t)K->g->nvalues + 1, sizeof(LLVMValueRef));
  K->fixing = true;
  bool ok = true;
  for (int c = 0; c < v && ok; c++) {
    LLVMValueRef x = v > 1 ? LLVMBuildExtractElement(b, sum, c32(K, c), "") : sum;
    ok = epilogue_element(K, x, m, LLVMBuildAdd(b, n, c32(K, c), ""), cur) && !cb->failed;
  }
  K->fixing = false;
  free(cur);
  if (!ok)
    return false;
  LLVMBuildBr(b, next);
  LLVMPositionBuilderAtEnd(b, next);
  LLVMValueRef ne = LLVMBuildAdd(b, e, c32(K, K->threads), "");
  LLVMBuildCondBr(b, LLVMBuildICmp(b, LLVMIntULT, ne, c32(K, (int64_t)K->P.bm * qrow), ""), loop, reset);
  LLVMValueRef ein[2] = {K->tid, ne};
  LLVMBasicBlockRef efrom[2] = {head, next};
  LLVMAddIncoming(e, ein, efrom, 2);
  LLVMPositionBuilderAtEnd(b, reset);
  /* every work-group of the tile has counted: nobody else touches the counter this run */
  LLVMBasicBlockRef zero = LLVMAppendBasicBlockInContext(cb->ctx, cb->fn, "fix_zero");
  LLVMBuildCondBr(b, first, zero, done);
  LLVMPositionBuilderAtEnd(b, zero);
  LLVMValueRef st = LLVMBuildStore(b, c32(K, 0), slot);
  LLVMSetAlignment(st, 4);
  LLVMSetOrdering(st, LLVMAtomicOrderingMonotonic);
  LLVMSetAtomicSyncScopeID(st, agent);
  LLVMBuildBr(b, done);
  LLVMPositionBuilderAtEnd(b, done);
  return true;
}

/* ---------------------------------------------------------------- kernel */

static void fn_attr(cg_builder *cb, const char *key, const char *v) {
  LLVMAddAttributeAtIndex(cb->fn, LLVMAttributeFunctionIndex,
                          LLVMCreateStringAttribute(cb->ctx, key, (unsigned)strlen(key), v, (unsigned)strlen(v)));
}

/* The K loop of the WMMA and FMA paths: one tile per iteration, the next one prefetched into
 * registers while this one computes, one barrier. */
static void kloop_simple(gk *K, LLVMValueRef kbeg, LLVMValueRef count, LLVMValueRef *av,
                         LLVMValueRef *bv, LLVMValueRef *acc) {
  cg_builder *cb = K->cb;
  LLVMBuilderRef b = cb->b;
  const gemm_params *P = &K->P;
  int nacc = (P->wm / K->mm.m) * (P->wn / K->mm.n) * K->nbm;
  LLVMValueRef *phis = calloc((size_t)nacc, sizeof(LLVMValueRef));
  LLVMTypeRef acc_t = gemm_mma_acc_type(cb, &K->mm);
  /* prologue: the first tile into buffer 0 */
  load_tile(K, kbeg, av, bv);
  store_tile(K, c32(K, 0), av, bv);
  cg_barrier(cb);
  LLVMBasicBlockRef pre = LLVMGetInsertBlock(b);
  LLVMBasicBlockRef loop = LLVMAppendBasicBlockInContext(cb->ctx, cb->fn, "kloop");
  LLVMBasicBlockRef done = LLVMAppendBasicBlockInContext(cb->ctx, cb->fn, "epilogue");
  LLVMBuildBr(b, loop);
  LLVMPositionBuilderAtEnd(b, loop);
  LLVMValueRef kt = LLVMBuildPhi(b, cb->i32, "kt");
  for (int i = 0; i < nacc; i++)
    acc[i] = phis[i] = LLVMBuildPhi(b, acc_t, "acc");
  LLVMValueRef next = LLVMBuildAdd(b, kt, c32(K, 1), "");
  LLVMValueRef more = LLVMBuildICmp(b, LLVMIntSLT, next, count, "");
  /* prefetch the next tile (the last iteration reloads its own: in bounds, never stored to a
   * buffer anyone reads) while this one computes; kt counts from this group's first tile */
  load_tile(K, LLVMBuildAdd(b, kbeg, LLVMBuildSelect(b, more, next, kt, ""), ""), av, bv);
  compute_buffer(K, LLVMBuildAnd(b, kt, c32(K, 1), ""), acc);
  store_tile(K, LLVMBuildAnd(b, next, c32(K, 1), ""), av, bv);
  int rm = P->wm / K->mm.m, rn = P->wn / K->mm.n * K->nbm;
  int kgroups = P->bk / (K->mm.k * K->mm.pack), step = nacc * K->mm.pack;
  gemm_mma_pipeline(cb, &K->mm, K->na + K->nb, kgroups * (rm + rn), kgroups * step,
                    (kgroups - 1) * step + rm + rn - 1, K->na + K->nb * (K->pb.b_kcontig ? 1 : P->vb));
  cg_barrier(cb);
  LLVMBasicBlockRef latch = LLVMGetInsertBlock(b);
  LLVMValueRef back = LLVMBuildCondBr(b, more, loop, done);
  /* WMMA fragments are 8 VGPRs each (gfx11 replicates them): a short K loop unrolled whole keeps
   * every iteration's fragments and staging loads live at once and spills (2x64x96 by 2x96x80 f16
   * on gfx1100: 256 VGPRs, 74 spilled); one iteration at a time fits */
  if (!K->mm.row || K->mm.row->layout != MATRIX_MFMA) /* the FMA path's 16-byte fragments too */
    cg_loop_no_unroll(cb, back);
  LLVMValueRef kin[2] = {c32(K, 0), next};
  LLVMBasicBlockRef kbb[2] = {pre, latch};
  LLVMAddIncoming(kt, kin, kbb, 2);
  for (int i = 0; i < nacc; i++) {
    LLVMValueRef in[2] = {LLVMConstNull(acc_t), acc[i]};
    LLVMAddIncoming(phis[i], in, kbb, 2);
  }
  LLVMPositionBuilderAtEnd(b, done);
  free(phis);
}

/* The exact work-group size lets LLVM use the whole register budget (GEMM.md §1.7); the default
 * tiles hold <= 64 accumulators per lane, so 2 waves per SIMD fit without spills. */
static void set_wg_size(cg_builder *cb, int threads) {
  char v[32];
  snprintf(v, sizeof v, "%d,%d", threads, threads);
  fn_attr(cb, "amdgpu-flat-work-group-size", v);
  fn_attr(cb, "amdgpu-waves-per-eu", "2");
}

/* The grid's work-groups per GEMM: batch x tiles (transpose_conv2d: x phases), without the
 * split-K factor. */
static int64_t grid_groups(const gk *K) {
  const gemm_params *P = &K->P;
  int64_t tiles_m = (K->pb.m + P->bm - 1) / P->bm, tiles_n = (K->pb.n + P->bn - 1) / P->bn;
  return K->pb.batch * (K->kind == GK_CONV ? K->cv.phases : 1) * tiles_m * tiles_n;
}

/* The row norm computing A (part_kernel.prologue, prologue_tile): the M tile's rows, all of K,
 * into the LDS array K->a_res (kernel_rownorm.c), which load_tile then reads instead of memory.
 * The work-groups of the first N block (of the first GEMM of a grouped kernel, of the first K
 * split) also store the norm's value for the kernels that read it after this one. */
static bool tile_prologue(gk *K, LLVMValueRef tn) {
  cg_builder *cb = K->cb;
  LLVMBuilderRef b = cb->b;
  const gemm_problem *pb = &K->pb;
  const value *a = K->anchor->operands[0];
  while (a->def && !part_is_prologue(K->k, a->def) && a->def->noperands > 0)
    a = a->def->operands[0];
  if (!a->def || !K->a_res)
    return false;
  K->a_ptr = K->a_res;
  LLVMValueRef left = LLVMBuildSub(b, c32(K, pb->m), K->m0, "");
  LLVMValueRef args[2] = {left, c32(K, K->P.bm)};
  LLVMValueRef nvalid = cg_intrinsic(cb, "llvm.umin", &cb->i32, 1, args, 2);
  K->a_valid = LLVMBuildSub(b, nvalid, c32(K, 1), "");
  LLVMValueRef r0 = LLVMBuildAdd(b, LLVMBuildMul(b, K->batch, c32(K, pb->m), ""), K->m0, "");
  LLVMValueRef store = LLVMBuildICmp(b, LLVMIntEQ, tn, c32(K, 0), "");
  if (K->mine && K->anchor != K->k->gemm_anchors[0])
    store = LLVMConstInt(cb->i1, 0, 0);
  return cg_rownorm_tile_prologue(cb, K->g, K->k, a, r0, nvalid, K->P.bm, K->tid, K->threads, K->a_res, store);
}

/* One GEMM (K->anchor) of the kernel for work-group gid of its grid, through the final
 * return: tile staging, the K loop and the epilogue. */
static bool emit_gemm(gk *K, LLVMValueRef gid) {
  cg_builder *cb = K->cb;
  LLVMBuilderRef b = cb->b;
  const gemm_params *P = &K->P;
  const gemm_problem *pb = &K->pb;
  const target_info *t = cb->target->info;
  int64_t tiles_m = (pb->m + P->bm - 1) / P->bm, tiles_n = (pb->n + P->bn - 1) / P->bn;
  int64_t groups = grid_groups(K);
  int nk = (int)((pb->k + P->bk - 1) / P->bk);
  /* Split-K: split_count chunks of `steps` K tiles each (the last one shorter), one more grid
   * dimension folded into the 1-D grid as its slowest index. */
  bool partial = splits_k(K);
  int split = partial && K->k->split_count > 1 ? K->k->split_count : 1;
  int steps = (nk + split - 1) / split;
  /* kernel arguments, or constants folded into the code object (small weights) */
  if (K->k->role == KR_COLS) { /* A then B in the im2col workspace */
    K->a_ptr = cg_operand_ptr(cb, K->k, K->k->in_vals[0]);
    K->b_ptr = gep8(K, K->a_ptr, LLVMConstInt(cb->i64, (unsigned long long)operand_size(K, 0), 0));
  } else {
    K->a_ptr = K->a_res ? K->a_res : cg_operand_ptr(cb, K->k, K->src[0] ? K->src[0] : K->anchor->operands[0]);
    K->b_ptr = cg_operand_ptr(cb, K->k, K->src[1] ? K->src[1] : K->anchor->operands[1]);
    K->b2_ptr = K->anchor2 ? cg_operand_ptr(cb, K->k, K->anchor2->operands[1]) : NULL;
    if (K->anchor2 && !K->b2_ptr)
      return false;
  }
  bool bias = K->kind != GK_MATMUL && K->k->role != KR_PARTIAL;
  K->bias_ptr = bias ? cg_operand_ptr(cb, K->k, K->anchor->operands[2]) : NULL;
  if (!K->a_ptr || !K->b_ptr || (!K->bias_ptr && bias))
    return false;
  /* K tiles [kbeg, kbeg + count) of this work-group; count <= 0 only for a split the problem
   * cannot fill, which runs one all-zero step and stores zeros */
  LLVMValueRef kbeg = c32(K, 0), count = c32(K, nk);
  K->split_idx = c32(K, 0);
  if (partial) {
    K->split_idx = LLVMBuildUDiv(b, gid, c32(K, groups), "split");
    gid = LLVMBuildURem(b, gid, c32(K, groups), "");
    kbeg = LLVMBuildMul(b, K->split_idx, c32(K, steps), "kbeg");
    LLVMValueRef left = LLVMBuildSub(b, c32(K, nk), kbeg, "");
    count = LLVMBuildSelect(b, LLVMBuildICmp(b, LLVMIntSLT, left, c32(K, steps), ""), left, c32(K, steps), "count");
  }
  K->lane = LLVMBuildURem(b, K->tid, c32(K, t->wave_size), "lane");
  LLVMValueRef wave = LLVMBuildUDiv(b, K->tid, c32(K, t->wave_size), "wave");
  K->wave_m0 = LLVMBuildMul(b, LLVMBuildUDiv(b, wave, c32(K, K->wgn), ""), c32(K, P->wm), "");
  K->wave_n0 = LLVMBuildMul(b, LLVMBuildURem(b, wave, c32(K, K->wgn), ""), c32(K, P->wn), "");
  LLVMValueRef tn = LLVMBuildURem(b, gid, c32(K, tiles_n), "");
  LLVMValueRef rest = LLVMBuildUDiv(b, gid, c32(K, tiles_n), "");
  K->m0 = LLVMBuildMul(b, LLVMBuildURem(b, rest, c32(K, tiles_m), ""), c32(K, P->bm), "m0");
  K->n0 = LLVMBuildMul(b, tn, c32(K, P->bn), "n0");
  K->batch = LLVMBuildUDiv(b, rest, c32(K, tiles_m), "batch");
  if (K->kind == GK_CONV)
    gemm_conv_phase_init(cb, &K->cv, K->batch, &K->ph);
  if (K->kind == GK_CONV && K->cv.transpose) /* never split (cg_gemm_shape): count was nk */
    count = gemm_conv_k_tiles(cb, &K->cv, &K->ph, P->bk);
  free(K->a_row_ok), free(K->a_row), free(K->a_kc), free(K->b_row), free(K->b_kc);
  free(K->cv_rows), free(K->cv_slots);
  if (K->kind == GK_CONV)
    gemm_conv_plan(&K->cv, P->bk);
  if (K->k->prologue_tile && !tile_prologue(K, tn))
    return false;
  plan_slots(K);
  make_rsrcs(K);

  LLVMValueRef *av = calloc((size_t)K->na, sizeof(LLVMValueRef)), *bv = calloc((size_t)K->nb, sizeof(LLVMValueRef));
  int nacc = (P->wm / K->mm.m) * (P->wn / K->mm.n) * K->nbm;
  LLVMValueRef *acc = calloc((size_t)nacc, sizeof(LLVMValueRef));
  /* wave tiles whose accumulators fill gfx908's separate AGPR budget keep the single-tile loop
   * (gemm_mma_pipelined: the pipelined loop's second fragment set spilled there) */
  if (gemm_mma_pipelined(cb->target->info, &K->mm, P->wm, P->wn * K->nbm))
    kloop_mfma(K, kbeg, count, acc);
  else
    kloop_simple(K, kbeg, count, av, bv, acc);
  gemm_mma_keep(cb, &K->mm, acc, nacc);
  bool ok = !cb->failed && emit_epilogue(K, acc);
  if (ok && K->k->role == KR_FIXUP)
    ok = emit_fixup(K, gid);
  if (ok)
    LLVMBuildRetVoid(b);
  free(av);
  free(bv);
  free(acc);
  return ok;
}

/* A grouped GEMM's slice s: its anchor, and the kernel's ops downstream of it (its epilogue). */
static bool select_gemm(gk *K, int s, char *mine) {
  K->anchor = K->k->gemm_anchors[s];
  memset(mine, 0, (size_t)K->k->nops + 1);
  K->mine = mine;
  for (int i = 0; i < K->k->nops; i++) {
    const op *o = K->k->ops[i];
    mine[i] = o == K->anchor;
    for (int j = 0; j < o->noperands && !mine[i]; j++)
      mine[i] = o->operands[j]->def && op_table[o->kind].family != FAM_CONST && in_slice(K, o->operands[j]->def);
  }
  return describe(K, K->cb->diag);
}

/* A grouped GEMM (part_kernel.gemm_anchors): the slowest grid index picks the GEMM, each
 * slice runs its own K loop and epilogue over the shared LDS. */
static bool emit_grouped(gk *K, LLVMValueRef gid, int64_t groups) {
  cg_builder *cb = K->cb;
  LLVMBuilderRef b = cb->b;
  int n = K->k->ngemm;
  LLVMValueRef slice = LLVMBuildUDiv(b, gid, c32(K, groups), "gemm");
  LLVMValueRef local = LLVMBuildURem(b, gid, c32(K, groups), "");
  LLVMBasicBlockRef other = LLVMAppendBasicBlockInContext(cb->ctx, cb->fn, "no_gemm");
  LLVMValueRef sw = LLVMBuildSwitch(b, slice, other, (unsigned)n);
  char *mine = malloc((size_t)K->k->nops + 1);
  bool ok = true;
  for (int s = 0; s < n && ok; s++) {
    LLVMBasicBlockRef bb = LLVMAppendBasicBlockInContext(cb->ctx, cb->fn, "gemm_slice");
    LLVMAddCase(sw, c32(K, s), bb);
    LLVMPositionBuilderAtEnd(b, bb);
    ok = select_gemm(K, s, mine) && emit_gemm(K, local);
  }
  LLVMPositionBuilderAtEnd(b, other);
  LLVMBuildRetVoid(b);
  K->anchor = K->k->anchor, K->mine = NULL;
  free(mine);
  return ok;
}

/* The K elements the phases of a transposed convolution in one grid iterate, summed: each runs
 * its own tap rows (gemm_conv_k_tiles) in whole tiles of bk. */
static int64_t phases_k(const gemm_conv *c, int bk) {
  int64_t sum = 0, taps[3], row = c->ic;
  for (int d = 1; d < c->ns; d++)
    row *= c->taps[d];
  for (int p = 0; p < c->phases; p++) {
    gemm_conv_phase_taps(c, p, taps);
    sum += (taps[0] * row + bk - 1) / bk * bk;
  }
  return sum;
}

static bool emit_body(gk *K, cg_kernel_info *info) {
  cg_builder *cb = K->cb;
  const gemm_params *P = &K->P;
  const gemm_problem *pb = &K->pb;
  const target_info *t = cb->target->info;
  int wgm = P->bm / P->wm;
  K->wgn = P->bn / P->wn;
  K->waves = wgm * K->wgn;
  K->threads = K->waves * t->wave_size;
  K->es = elem_type_bytes(pb->in);
  K->mem = pb->in == ET_BF16 ? cb->i16 : elem_type_is_f8(pb->in) ? cb->i8 : cg_elem_type(cb, pb->in);
  K->les = gemm_lds_elem_bytes(&K->mm);
  K->sa = gemm_lds_row_bytes(P, &K->mm);
  K->buf_bytes = (P->bm + P->bn * K->nbm) * K->sa;
  int64_t groups = grid_groups(K);
  bool partial = splits_k(K);
  int split = partial && K->k->split_count > 1 ? K->k->split_count : 1;

  int nargs = K->k->nin + K->k->nout;
  const char **access = calloc((size_t)nargs + 1, sizeof(char *));
  for (int i = 0; i < nargs; i++) /* KR_FIXUP reads back its partials and counters */
    access[i] = i < K->k->nin ? "read_only" : i >= K->k->nin + graph_outputs(K) ? "read_write" : "write_only";
  cg_kernel_begin(cb, K->k->name, nargs, access, K->threads);
  set_wg_size(cb, K->threads);

  char lname[96];
  snprintf(lname, sizeof lname, "%s.lds", K->k->name);
  /* a row norm's A rows of the work-group's M tile: after the staging buffers, in the same array */
  int64_t lds_bytes = 2 * (int64_t)K->buf_bytes, res_at = (lds_bytes + 15) / 16 * 16;
  if (K->k->prologue_tile)
    lds_bytes = res_at + (int64_t)P->bm * pb->k * K->es;
  K->lds = cg_lds_alloc(cb, lname, LLVMArrayType(cb->i8, (unsigned)lds_bytes), 16);
  if (K->k->prologue_tile)
    K->a_res = gep8(K, K->lds, LLVMConstInt(cb->i64, (unsigned long long)res_at, 0));

  K->tid = cg_thread_id_x(cb);
  LLVMValueRef gid = cg_group_id_x(cb);
  if (!K->tid || !gid) {
    free(access);
    return false;
  }
  bool grouped = K->k->ngemm > 1 && !K->anchor2;
  bool ok = grouped ? emit_grouped(K, gid, groups) : emit_gemm(K, gid);

  groups *= split * (grouped ? K->k->ngemm : 1);
  cg_launch_1d(info, K->k, K->threads, groups, groups * K->threads, 1, access);
  char key[160];
  gemm_problem_key(pb, key, sizeof key);
  gemm_params_json(P, &K->mm, K->waves, info->tuning, sizeof info->tuning);
  size_t tl = strlen(info->tuning);
  if (tl && info->tuning[tl - 1] == '}')
    snprintf(info->tuning + tl - 1, sizeof info->tuning - (tl - 1), ",\"problem\":\"%s\","
             "\"source\":\"%s\"}", key, K->source);
  tl = strlen(info->tuning);
  /* the run gather: the convolution's own K beside the padded one (the report's flops) */
  if (K->cv.runs && tl && info->tuning[tl - 1] == '}')
    snprintf(info->tuning + tl - 1, sizeof info->tuning - (tl - 1), ",\"conv_k\":%lld}",
             (long long)gemm_conv_k(&K->cv));
  tl = strlen(info->tuning);
  /* the phases in the grid: each runs its own number of K tiles (phases_k: their sum) over the
   * convolution's K spread across them (conv_k); the report's flops and iterations need both */
  if (K->kind == GK_CONV && K->cv.transpose && K->cv.phases > 1 && tl && info->tuning[tl - 1] == '}')
    snprintf(info->tuning + tl - 1, sizeof info->tuning - (tl - 1), ",\"phases\":%d,\"phases_k\":%lld,\"conv_k\":%lld}",
             K->cv.phases, (long long)phases_k(&K->cv, P->bk), (long long)gemm_conv_k(&K->cv));
  tl = strlen(info->tuning);
  /* one output phase of a transposed convolution: its stores are the problem's M x N alone
   * (tosac-bundle quality charges those bytes, not the whole result buffer) */
  if (K->kind == GK_CONV && K->cv.one_phase && tl && info->tuning[tl - 1] == '}')
    snprintf(info->tuning + tl - 1, sizeof info->tuning - (tl - 1), ",\"phase\":%d}", K->cv.phase);
  tl = strlen(info->tuning);
  /* the dual-B GEMM: two B operands per tile (the report's flops and MFMAs per K step) */
  if (K->anchor2 && tl && info->tuning[tl - 1] == '}')
    snprintf(info->tuning + tl - 1, sizeof info->tuning - (tl - 1), ",\"b_operands\":%d}", K->nbm);
  tl = strlen(info->tuning);
  /* a grouped GEMM: its grid runs the problem once per GEMM (the report's tiles and flops) */
  if (grouped && tl && info->tuning[tl - 1] == '}')
    snprintf(info->tuning + tl - 1, sizeof info->tuning - (tl - 1), ",\"gemms\":%d}", K->k->ngemm);
  tl = strlen(info->tuning);
  if (partial && tl && info->tuning[tl - 1] == '}')
    snprintf(info->tuning + tl - 1, sizeof info->tuning - (tl - 1), ",\"split_k\":%d%s}", split,
             K->k->role == KR_FIXUP ? ",\"split_k_form\":\"lastwg\"" : "");
  tl = strlen(info->tuning);
  if (K->k->prologue_tile && tl && info->tuning[tl - 1] == '}') { /* the report prices the prologue */
    int nred = 0;
    for (int i = 0; i < K->k->nprologue; i++)
      nred += op_table[K->k->prologue[i]->kind].family == FAM_REDUCTION;
    snprintf(info->tuning + tl - 1, sizeof info->tuning - (tl - 1),
             ",\"norm_rows\":%d,\"norm_row\":%lld,\"norm_reductions\":%d}", P->bm, (long long)pb->k, nred);
  }
  snprintf(info->matrix_instruction, sizeof info->matrix_instruction, "%s", K->mm.name);
  free(access);
  return ok;
}

/* ---------------------------------------------------------------- the skinny kernel (kernel_gemv.c) */

static bool gemv_store(void *ctx, LLVMValueRef acc, LLVMValueRef batch, LLVMValueRef split,
                       LLVMValueRef m, LLVMValueRef n) {
  gk *K = ctx;
  K->batch = batch, K->split_idx = split;
  LLVMValueRef *cur = calloc((size_t)K->g->nvalues + 1, sizeof(LLVMValueRef));
  bool ok = epilogue_element(K, acc, m, n, cur);
  free(cur);
  return ok;
}

/* The row norm computing A (part_kernel.prologue): this batch entry's M rows into the LDS
 * array at K->a_ptr (kernel_rownorm.c). */
static bool gemv_prologue(void *ctx, LLVMValueRef batch) {
  gk *K = ctx;
  cg_builder *cb = K->cb;
  LLVMValueRef tid = cg_thread_id_x(cb);
  LLVMValueRef r0 = LLVMBuildMul(cb->b, batch, c32(K, K->pb.m), "");
  /* A is the norm's value, or views of it (reshapes: the same bytes) */
  const value *a = K->anchor->operands[0];
  while (a->def && !part_is_prologue(K->k, a->def) && a->def->noperands > 0)
    a = a->def->operands[0];
  return tid && a->def && cg_rownorm_prologue(cb, K->g, K->k, a, r0, (int)K->pb.m, tid,
                                              gemv_threads(cb->target->info, &K->P), K->a_ptr);
}

/* kernel_gemv.c's loop and reduction with this file's epilogue and manifest record. */
static bool emit_gemv(gk *K, cg_kernel_info *info) {
  cg_builder *cb = K->cb;
  bool partial = splits_k(K), fixup = K->k->role == KR_FIXUP;
  int split = partial && K->k->split_count > 1 ? K->k->split_count : 1;
  int threads = gemv_threads(cb->target->info, &K->P), nargs = K->k->nin + K->k->nout;
  const char **access = calloc((size_t)nargs + 1, sizeof(char *));
  for (int i = 0; i < nargs; i++) /* KR_FIXUP reads back its partials and counters */
    access[i] = i < K->k->nin ? "read_only" : i >= K->k->nin + graph_outputs(K) ? "read_write" : "write_only";
  cg_kernel_begin(cb, K->k->name, nargs, access, threads);
  set_wg_size(cb, threads);
  if (K->k->nprologue) { /* A: the normalised rows of the work-group's batch entry, in LDS */
    char lname[96];
    snprintf(lname, sizeof lname, "%s.a", K->k->name);
    LLVMTypeRef mt = K->pb.in == ET_BF16 ? cb->i16 : cg_mem_type(cb, K->pb.in);
    K->a_ptr = cg_lds_alloc(cb, lname, LLVMArrayType2(mt, (uint64_t)(K->pb.m * K->pb.k)), 16);
  } else {
    K->a_ptr = cg_operand_ptr(cb, K->k, K->anchor->operands[0]);
  }
  K->b_ptr = cg_operand_ptr(cb, K->k, K->anchor->operands[1]);
  bool bias = K->kind != GK_MATMUL && K->k->role != KR_PARTIAL;
  K->bias_ptr = bias ? cg_operand_ptr(cb, K->k, K->anchor->operands[2]) : NULL;
  bool ok = K->a_ptr && K->b_ptr && (K->bias_ptr || !bias);
  gemv_kernel G = {.pb = &K->pb, .P = &K->P, .a_zp = K->a_zp, .b_zp = K->b_zp, .split = split,
                   .a_ptr = K->a_ptr, .b_ptr = K->b_ptr, .store = gemv_store, .ctx = K,
                   .prologue = K->k->nprologue ? gemv_prologue : NULL};
  ok = ok && cg_gemv_body(cb, &G, K->k->name) && !cb->failed;
  if (ok && fixup) {
    /* the tile of emit_fixup is the work-group's column block (the grid: split slowest, then
     * batch, then column block); its flag in an LDS word of its own */
    int64_t groups = gemv_groups(&K->pb, &K->P), ncb = groups / K->pb.batch;
    LLVMValueRef gid = cg_group_id_x(cb);
    K->tid = cg_thread_id_x(cb);
    ok = gid && K->tid;
    if (ok) {
      LLVMValueRef tile = LLVMBuildURem(cb->b, gid, c32(K, groups), "tile");
      K->batch = LLVMBuildUDiv(cb->b, tile, c32(K, ncb), "");
      K->m0 = c32(K, 0);
      K->n0 = LLVMBuildMul(cb->b, LLVMBuildURem(cb->b, tile, c32(K, ncb), ""), c32(K, K->P.bn), "");
      K->threads = threads;
      char lname[96];
      snprintf(lname, sizeof lname, "%s.last", K->k->name);
      K->lds = cg_lds_alloc(cb, lname, cb->i32, 4);
      ok = emit_fixup(K, tile) && !cb->failed;
    }
  }
  if (ok)
    LLVMBuildRetVoid(cb->b);
  int64_t groups = gemv_groups(&K->pb, &K->P) * split;
  cg_launch_1d(info, K->k, threads, groups, groups * threads, 1, access);
  char key[160];
  gemm_problem_key(&K->pb, key, sizeof key);
  gemv_params_json(&K->P, info->tuning, sizeof info->tuning);
  size_t tl = strlen(info->tuning);
  snprintf(info->tuning + tl - 1, sizeof info->tuning - (tl - 1), ",\"problem\":\"%s\",\"source\":\"%s\"%s",
           key, K->source, partial ? "" : "}");
  tl = strlen(info->tuning);
  if (partial)
    snprintf(info->tuning + tl, sizeof info->tuning - tl, ",\"split_k\":%d%s}", split,
             fixup ? ",\"split_k_form\":\"lastwg\"" : "");
  tl = strlen(info->tuning);
  if (K->k->nprologue && tl && info->tuning[tl - 1] == '}') { /* the report prices the prologue */
    int nred = 0;
    for (int i = 0; i < K->k->nprologue; i++)
      nred += op_table[K->k->prologue[i]->kind].family == FAM_REDUCTION;
    const tensor_type *a = K->anchor->operands[0]->type;
    snprintf(info->tuning + tl - 1, sizeof info->tuning - (tl - 1),
             ",\"norm_rows\":%lld,\"norm_row\":%lld,\"norm_reductions\":%d}", (long long)K->pb.m,
             (long long)a->dims[a->rank - 1], nred);
  }
  snprintf(info->matrix_instruction, sizeof info->matrix_instruction, "fma");
  free(access);
  return ok;
}

bool cg_emit_gemm(cg_builder *cb, const graph *g, const partition_plan *p, const part_kernel *k,
                  cg_kernel_info *info) {
  /* depthwise convolutions reduce over taps only, never over channels: no matrix to multiply */
  if (cg_op_is(k->anchor, "tosa.depthwise_conv2d"))
    return cg_emit_conv_direct(cb, g, p, k, info); /* kernel_conv_direct.c */
  if (k->role == KR_COMBINE)
    return cg_emit_gemm_combine(cb, g, p, k, info); /* kernel_gemm_combine.c */
  if (k->role == KR_IM2COL)
    return cg_emit_im2col(cb, k, info); /* kernel_im2col.c */
  (void)p;
  gk K = {.cb = cb, .g = g, .k = k, .anchor = k->anchor, .nbm = 1};
  bool ok = false;
  char err[256];
  if (!K.anchor) {
    diag_error_noloc(cb->diag, "kernel '%s': GEMM kernel without an anchor op", k->name);
    goto out;
  }
  if (k->dual_b) /* partition/group.c: two matmuls of one A and equal types */
    K.anchor2 = k->gemm_anchors[1], K.nbm = 2;
  if (!describe(&K, cb->diag))
    goto out;
  K.pb.nb = K.anchor2 ? 2 : 0; /* 0: one B, as cg_gemm_problem leaves it */
  char warn[600];
  if (!cg_tune_gemm(cb->target->info, &K.pb, cb->perf_config, cb->tuning_db, &K.P, &K.mm,
                    &K.source, warn, sizeof warn, err, sizeof err)) {
    diag_error(cb->diag, K.anchor->loc, "%s", err);
    goto out;
  }
  if (warn[0])
    diag_warning(cb->diag, K.anchor->loc, "%s", warn);
  K.mm.a_zp = K.a_zp, K.mm.b_zp = K.b_zp;
  /* a grouped GEMM shares one tile kernel over its slices (the skinny kernel's last-work-group
   * reduction reduces its column block: emit_gemv) */
  /* a row-norm prologue (partition/group.c) exists only in the skinny kernel, which the
   * partitioner saw chosen (with this compile's perf-config and database); should the choice
   * differ here, the skinny kernel is still the one that can run it */
  if (!K.P.kwaves && k->nprologue && !k->prologue_tile) {
    const char *src = K.source;
    if (!cg_tune_gemm(cb->target->info, &K.pb, "kernel=gemv", NULL, &K.P, &K.mm, &K.source, NULL, 0, err,
                      sizeof err)) {
      diag_error(cb->diag, K.anchor->loc, "%s", err);
      goto out;
    }
    K.source = src;
    K.mm.a_zp = K.a_zp, K.mm.b_zp = K.b_zp;
  }
  if (K.P.kwaves && (k->ngemm > 1 || k->prologue_tile)) {
    const char *src = K.source;
    if (!cg_tune_gemm(cb->target->info, &K.pb, "kernel=tile", NULL, &K.P, &K.mm, &K.source, NULL, 0,
                      err, sizeof err))
      goto out;
    K.source = src;
    K.mm.a_zp = K.a_zp, K.mm.b_zp = K.b_zp;
  }
  ok = K.P.kwaves ? emit_gemv(&K, info) : emit_body(&K, info);
out:
  if (!ok)
    cb->failed = true;
  free(K.a_row_ok), free(K.a_row), free(K.a_kc), free(K.b_row), free(K.b_kc);
  free(K.cv_rows), free(K.cv_slots);
  return ok;
}

bool cg_gemm_kernel_problem(const target_info *t, const part_kernel *k, gemm_problem *pb) {
  gk K = {.anchor = k->anchor, .k = k, .t = t};
  if (!k->anchor || k->role == KR_IM2COL || k->role == KR_COMBINE || !describe(&K, NULL))
    return false;
  *pb = K.pb;
  pb->nb = k->dual_b ? 2 : 0;
  return true;
}

bool cg_gemm_problem(const target_info *t, const op *anchor, gemm_problem *pb) {
  gk K = {.anchor = anchor, .t = t};
  if (!anchor || !describe(&K, NULL))
    return false;
  *pb = K.pb;
  return true;
}

bool cg_gemm_shape(const target_info *t, const op *anchor, const part_kernel *kernel, int64_t *tiles,
                   int64_t *ksteps, int64_t *k) {
  gk K = {.anchor = anchor, .t = t, .k = kernel};
  gemm_params P;
  gemm_mma mm;
  char err[256];
  /* transpose_conv2d never splits K: its phases already multiply the work-groups */
  if (!anchor || !describe(&K, NULL) || (K.kind == GK_CONV && K.cv.transpose) ||
      !cg_tune_gemm(t, &K.pb, NULL, NULL, &P, &mm, &K.source, NULL, 0, err, sizeof err))
    return false;
  *tiles = K.pb.batch * ((K.pb.m + P.bm - 1) / P.bm) * ((K.pb.n + P.bn - 1) / P.bn);
  *ksteps = (K.pb.k + P.bk - 1) / P.bk;
  *k = K.pb.k;
  return true;
}

bool cg_tune_gemm_skinny(const target_info *t, const op *anchor) {
  gk K = {.anchor = anchor, .t = t};
  gemm_params P;
  gemm_mma mm;
  char err[256];
  return anchor && describe(&K, NULL) &&
         cg_tune_gemm(t, &K.pb, NULL, NULL, &P, &mm, &K.source, NULL, 0, err, sizeof err) && P.kwaves > 0;
}

bool cg_tune_gemm_resident(const target_info *t, const op *anchor, int ngemm) {
  gk K = {.anchor = anchor, .t = t};
  gemm_params P, Q;
  gemm_mma mm, mq;
  char err[256];
  if (!anchor || !describe(&K, NULL) || K.kind == GK_CONV || !elem_type_is_float(K.pb.in) ||
      elem_type_is_f8(K.pb.in))
    return false;
  gemm_problem plain = K.pb;
  K.pb.a_resident = (int)(K.pb.k * elem_type_bytes(K.pb.in));
  if (!cg_tune_gemm(t, &K.pb, NULL, NULL, &P, &mm, &K.source, NULL, 0, err, sizeof err) || P.kwaves ||
      gemm_lds_bytes(&P, &mm) > t->lds_bytes)
    return false;
  /* worth it by the estimate: the GEMMs with the prologue (their tile, unsplit) against the plain
   * GEMMs (their tile and split) plus the norm kernel (a memory latency, its rows read and
   * written at the bandwidth) and its launch */
  if (ngemm < 1)
    return true;
  /* the FMA path's estimate rated merged kernels faster than tosac-bundle quality's model of
   * their code does (BERT-base, sequence 128, f16 on gfx1030: 1964 us against 1940 unmerged):
   * only forced there */
  if (!mm.row || !cg_tune_gemm(t, &plain, NULL, NULL, &Q, &mq, &K.source, NULL, 0, err, sizeof err) ||
      Q.kwaves)
    return !!mm.row;
  int split = cg_tune_splitk(t, anchor, NULL);
  double fused = cg_tune_estimate_us(t, &K.pb, &P, &mm, 1) + cg_tune_norm_tile_cycles(t, &K.pb, &P) / t->clock_mhz;
  double unfused = cg_tune_estimate_us(t, &plain, &Q, &mq, split < 1 ? 1 : split);
  double rows = 2.0 * plain.batch * plain.m * plain.k * elem_type_bytes(plain.in);
  double norm = t->mem_latency_ns / 1e3 + rows / ((double)t->mem_gbps * 1e3) + cg_tune_launch_us(t);
  return fused <= 0 || unfused <= 0 || ngemm * (fused - unfused) < norm;
}
