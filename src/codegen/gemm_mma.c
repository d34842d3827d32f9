/* gemm_mma.c: the matrix-instruction abstraction of the GEMM core: which instruction a target
 * and type get, where each lane's A/B elements and accumulators sit (AMD's lane layouts,
 * AMDGPU.md §3.3/§3.5), and one multiply-accumulate step (MFMA, WMMA or per-lane FMA). */
#include "gemm.h"

#include <string.h>

bool gemm_mma_select(const target_info *t, elem_type in, int shape, bool force_fma, int64_t M,
                     int64_t N, gemm_mma *out) {
  memset(out, 0, sizeof *out);
  out->in = in;
  out->int_acc = elem_type_is_int(in);
  const target_matrix *best = NULL;
  if (!force_fma) {
    int want = shape ? shape : (M >= 32 && N >= 32 ? 32 : 16);
    for (int i = 0; i < target_matrix_count; i++) {
      const target_matrix *r = &target_matrix_table[i];
      if (strcmp(r->target, t->name) != 0 || r->in != in)
        continue;
      /* the table lists availability; cg_intrinsic_available is the builder's own guard */
      if (!cg_intrinsic_available(t, r->intrinsic))
        continue;
      if (!best || (r->m == want && best->m != want))
        best = r;
    }
    if (shape && best && best->m != shape)
      return false;
  }
  out->row = best;
  if (!best) { /* FMA: 8 x wave/8 lanes, each an 8x8 micro-tile, 16 bytes of k per step */
    out->lanes_m = 8;
    out->k = out->kl = out->chunk = 16 / elem_type_bytes(in);
    out->pack = 1;
    for (int i = 0; i < target_dot_count; i++)
      if (strcmp(target_dot_table[i].target, t->name) == 0 && target_dot_table[i].in == in)
        out->dot = &target_dot_table[i];
    out->widen = in == ET_BF16 && !out->dot;
    out->pair = t->dual_issue && !out->dot;
    if (out->widen) /* 16 bytes of f32 per LDS read */
      out->k = out->kl = out->chunk = 4;
    gemm_mma_fma_tile(t, out, 8, 8);
    snprintf(out->name, sizeof out->name, "fma");
    return true;
  }
  out->m = best->m, out->n = best->n, out->k = best->k;
  out->pack = 1;
  switch (best->layout) {
  case MATRIX_MFMA:
    out->kl = best->k * best->m / 64;
    out->chunk = out->kl;
    out->nacc = best->m * best->n / 64;
    break;
  case MATRIX_WMMA_GFX11: /* all 16 k per lane, both half-waves hold copies */
    out->kl = out->chunk = 16;
    out->nacc = 8;
    break;
  case MATRIX_WMMA_GFX12:
    /* AMD's layout splits k between the half-waves in 64-bit chunks (half 0: k 0-3 and 8-11 for
     * f16). A and B share that map, so any permutation of k applied to both gives the same sum:
     * half h reads k [8h, 8h + 8) with one contiguous read, and a fragment is one ds_load_b128
     * (16-bit immediate offsets, one base register per operand) instead of two 64-bit halves */
    out->kl = out->chunk = 8;
    out->nacc = 8;
    break;
  }
  snprintf(out->name, sizeof out->name, "%s", best->mnemonic);
  return true;
}

void gemm_mma_fma_tile(const target_info *t, gemm_mma *mm, int tm, int tn) {
  mm->tm = tm, mm->tn = tn;
  mm->m = mm->lanes_m * tm;
  mm->n = (t->wave_size / mm->lanes_m) * tn;
  mm->nacc = tm * tn;
}

void gemm_mma_fma_fit(const target_info *t, gemm_mma *mm, int64_t batch, int64_t M, int64_t N) {
  /* micro-tile and its FMA-slot share (tosac-bundle quality, 4096^3 f32 on gfx1030, percent) */
  static const int tiles[][3] = {{8, 8, 90}, {8, 4, 85}, {4, 4, 75}};
  int64_t simds = (int64_t)t->cus * t->simds_per_cu, best_cost = 0;
  int best = 0;
  for (int i = 0; i < 3; i++) {
    gemm_mma_fma_tile(t, mm, tiles[i][0], tiles[i][1]);
    int64_t waves = batch * ((M + mm->m - 1) / mm->m) * ((N + mm->n - 1) / mm->n);
    /* rounds of waves over the SIMDs x one wave's issue time */
    int64_t cost = (waves + simds - 1) / simds * tiles[i][0] * tiles[i][1] * 1000 / tiles[i][2];
    if (i == 0 || cost < best_cost)
      best = i, best_cost = cost;
  }
  gemm_mma_fma_tile(t, mm, tiles[best][0], tiles[best][1]);
}

void gemm_mma_fma_divide(const target_info *t, gemm_mma *mm, int wm, int wn) {
  static const int tiles[][2] = {{8, 8}, {8, 4}, {4, 4}};
  for (int i = 0; i < 3 && (wm % mm->m || wn % mm->n); i++)
    gemm_mma_fma_tile(t, mm, tiles[i][0], tiles[i][1]);
}

static LLVMValueRef c32(cg_builder *cb, int64_t v) { return LLVMConstInt(cb->i32, (unsigned long long)v, 0); }

gemm_lane gemm_mma_lane(cg_builder *cb, const gemm_mma *mm, LLVMValueRef lane, bool is_b) {
  LLVMBuilderRef b = cb->b;
  gemm_lane r;
  if (!mm->row) {
    r.row = is_b ? LLVMBuildUDiv(b, lane, c32(cb, mm->lanes_m), "")
                 : LLVMBuildURem(b, lane, c32(cb, mm->lanes_m), "");
    r.kofs = c32(cb, 0);
    return r;
  }
  switch (mm->row->layout) {
  case MATRIX_MFMA:
    r.row = LLVMBuildURem(b, lane, c32(cb, mm->m), "");
    r.kofs = LLVMBuildMul(b, LLVMBuildUDiv(b, lane, c32(cb, mm->m), ""), c32(cb, mm->kl * mm->pack), "");
    break;
  case MATRIX_WMMA_GFX11:
    r.row = LLVMBuildURem(b, lane, c32(cb, 16), "");
    r.kofs = c32(cb, 0);
    break;
  default:
    r.row = LLVMBuildURem(b, lane, c32(cb, 16), "");
    r.kofs = LLVMBuildMul(b, LLVMBuildUDiv(b, lane, c32(cb, 16), ""), c32(cb, mm->chunk), "");
    break;
  }
  return r;
}

void gemm_mma_set_pack(gemm_mma *mm, int bk) {
  mm->pack = 1;
  if (!mm->row || mm->row->layout != MATRIX_MFMA)
    return;
  int bytes = mm->kl * elem_type_bytes(mm->in);
  while (bytes * mm->pack * 2 <= 16 && bk % (mm->k * mm->pack * 2) == 0)
    mm->pack *= 2;
}

void gemm_mma_acc_pos(cg_builder *cb, const gemm_mma *mm, LLVMValueRef lane, int e,
                      LLVMValueRef *row, LLVMValueRef *col) {
  LLVMBuilderRef b = cb->b;
  if (!mm->row) {
    int lanes_n = mm->n / mm->tn;
    LLVMValueRef lm = LLVMBuildURem(b, lane, c32(cb, mm->lanes_m), "");
    LLVMValueRef ln = LLVMBuildUDiv(b, lane, c32(cb, mm->lanes_m), "");
    *row = LLVMBuildAdd(b, lm, c32(cb, mm->lanes_m * (e / mm->tn)), "");
    *col = LLVMBuildAdd(b, ln, c32(cb, lanes_n * (e % mm->tn)), "");
    return;
  }
  LLVMValueRef half = LLVMBuildUDiv(b, lane, c32(cb, 16), "");
  switch (mm->row->layout) {
  case MATRIX_MFMA: {
    int ng = 64 / mm->n;
    LLVMValueRef s = LLVMBuildAdd(b, LLVMBuildUDiv(b, lane, c32(cb, mm->n), ""), c32(cb, (e / 4) * ng), "");
    *row = LLVMBuildAdd(b, LLVMBuildMul(b, s, c32(cb, 4), ""), c32(cb, e % 4), "");
    *col = LLVMBuildURem(b, lane, c32(cb, mm->n), "");
    break;
  }
  case MATRIX_WMMA_GFX11:
    *row = LLVMBuildAdd(b, half, c32(cb, 2 * e), "");
    *col = LLVMBuildURem(b, lane, c32(cb, 16), "");
    break;
  default:
    *row = LLVMBuildAdd(b, LLVMBuildMul(b, half, c32(cb, 8), ""), c32(cb, e), "");
    *col = LLVMBuildURem(b, lane, c32(cb, 16), "");
    break;
  }
}

int gemm_mma_acc_row(const gemm_mma *mm, int half, int e) {
  return mm->row->layout == MATRIX_WMMA_GFX11 ? half + 2 * e : 8 * half + e;
}

/* gfx12: a lane's 8 k of the operand (kofs = 8 * half) are the 8 accumulators of its own half;
 * gfx11: a lane holds all 16 k (both half-waves hold copies), half of them in the other
 * half-wave's accumulators */
int gemm_mma_feed(const gemm_mma *mm, int i, int *e) {
  *e = i % mm->nacc;
  return mm->row->layout == MATRIX_WMMA_GFX11 ? i / mm->nacc : -1;
}

LLVMValueRef gemm_mma_acc_slot(cg_builder *cb, const gemm_mma *mm, LLVMValueRef row) {
  if (mm->row->layout != MATRIX_WMMA_GFX11)
    return row;
  LLVMBuilderRef b = cb->b;
  LLVMValueRef odd = LLVMBuildAnd(b, row, c32(cb, 1), "");
  return LLVMBuildAdd(b, LLVMBuildMul(b, odd, c32(cb, mm->nacc), ""), LLVMBuildLShr(b, row, c32(cb, 1), ""), "");
}

LLVMTypeRef gemm_mma_acc_type(cg_builder *cb, const gemm_mma *mm) {
  return LLVMVectorType(mm->acc64 ? cb->i64 : mm->int_acc ? cb->i32 : cb->f32, (unsigned)mm->nacc);
}

/* <kl x mem type> -> the intrinsic's operand type (AMDGPU.md §3.2). */
static LLVMValueRef operand(cg_builder *cb, const gemm_mma *mm, LLVMValueRef v) {
  LLVMBuilderRef b = cb->b;
  switch (mm->in) {
  case ET_F32: return LLVMBuildExtractElement(b, v, c32(cb, 0), "");
  case ET_F16: return v;
  case ET_BF16:
    if (mm->row->layout == MATRIX_MFMA && mm->kl == 8) /* gfx950's K-doubled forms take bfloat */
      return LLVMBuildBitCast(b, v, LLVMVectorType(cb->bf16, 8), "");
    return v;
  case ET_I8:
    if (mm->kl == 4)
      return LLVMBuildBitCast(b, v, cb->i32, "");
    if (mm->kl == 8 && mm->row->layout == MATRIX_MFMA)
      return LLVMBuildBitCast(b, v, cb->i64, "");
    return LLVMBuildBitCast(b, v, LLVMVectorType(cb->i32, (unsigned)(mm->kl / 4)), "");
  default:
    if (elem_type_is_f8(mm->in)) /* 8 fp8/bf8 bytes per lane: one i64 (MFMA), <2 x i32> (WMMA) */
      return LLVMBuildBitCast(b, v, mm->row->layout == MATRIX_MFMA ? cb->i64 : LLVMVectorType(cb->i32, 2), "");
    return v;
  }
}

/* The register type of integer products: i32 (wrapping, or exact for inputs of up to 16 bits),
 * i64 for i32 inputs summed in i64. */
static LLVMTypeRef int_product_type(cg_builder *cb, const gemm_mma *mm) {
  return mm->acc64 && elem_type_bits(mm->in) > 16 ? cb->i64 : cb->i32;
}

/* Element e of v as an f32 (an integer product operand for integers, minus the zero point). */
static LLVMValueRef fma_elem(cg_builder *cb, const gemm_mma *mm, LLVMValueRef v, int e, int zp) {
  LLVMBuilderRef b = cb->b;
  LLVMValueRef x = LLVMBuildExtractElement(b, v, c32(cb, e), "");
  if (mm->int_acc) {
    LLVMTypeRef pt = int_product_type(cb, mm);
    return LLVMBuildSub(b, LLVMBuildSExt(b, x, pt, ""), LLVMConstInt(pt, (unsigned long long)zp, 1), "");
  }
  if (mm->in == ET_F32 || mm->widen)
    return x;
  return LLVMBuildFPExt(b, mm->in == ET_BF16 ? LLVMBuildBitCast(b, x, cb->bf16, "") : x, cb->f32, "");
}

/* Elements [e, e + dot->k) of v as the dot intrinsic's operand (<2 x half>, <2 x bfloat>, i32). */
static LLVMValueRef dot_operand(cg_builder *cb, const gemm_mma *mm, LLVMValueRef v, int e) {
  LLVMBuilderRef b = cb->b;
  int k = mm->dot->k;
  LLVMValueRef idx[4];
  for (int i = 0; i < k; i++)
    idx[i] = c32(cb, e + i);
  LLVMValueRef s = LLVMBuildShuffleVector(b, v, LLVMGetUndef(LLVMTypeOf(v)), LLVMConstVector(idx, (unsigned)k), "");
  if (mm->in == ET_I8)
    return LLVMBuildBitCast(b, s, cb->i32, "");
  if (mm->in == ET_BF16)
    return LLVMBuildBitCast(b, s, LLVMVectorType(cb->bf16, 2), "");
  return s;
}

/* The FMAs of one step for VOPD (gfx11, gfx12): k steps q and q+1 alternate, accumulator f of
 * step q next to f + n/2 of step q+1. A fragment row's k elements sit in consecutive VGPRs, so
 * the two FMAs read different VGPR banks, as v_dual_fmac_f32 requires (in k-outer order all
 * rows' element q share a bank, and LLVM paired whatever else it found: neighbouring k steps of
 * one accumulator, each pair then an s_delay_alu). Half the accumulators take k step q+1 before
 * q, a reordering of the sum. ResNet-18's 3x3 7x7x512 loop on gfx1100: 528 -> 364 issue slots
 * per iteration (255 of 256 pairs formed, from 110). */
static LLVMValueRef fma_pairs(cg_builder *cb, const gemm_mma *mm, LLVMValueRef *av, LLVMValueRef *bw,
                              LLVMValueRef *acc, LLVMValueRef c) {
  int n = mm->tm * mm->tn, kv = mm->k;
  LLVMTypeRef ft = cb->f32;
  for (int q = 0; q < kv; q += 2)
    for (int e = 0; e < n; e++)
      for (int h = 0; h < 2; h++) {
        int f = h ? (e + n / 2) % n : e, i = f / mm->tn, j = f % mm->tn;
        LLVMValueRef args[3] = {av[i * kv + q + h], bw[j * kv + q + h], acc[f]};
        acc[f] = cg_intrinsic(cb, "llvm.fmuladd", &ft, 1, args, 3);
      }
  for (int e = 0; e < n; e++)
    c = LLVMBuildInsertElement(cb->b, c, acc[e], c32(cb, e), "");
  return c;
}

/* FMA fallback: a = <tm*k x mem> (row i's k elements at i*k), b = <tn*k x mem>. With a dot
 * instruction (not for integers with zero points: raw products would need correction terms)
 * each accumulator takes k/dot->k dots per step, else k FMAs (products of converted elements,
 * each converted once per step). */
static LLVMValueRef fma_step(cg_builder *cb, const gemm_mma *mm, LLVMValueRef a, LLVMValueRef bv,
                             LLVMValueRef c, int a_zp, int b_zp) {
  LLVMBuilderRef b = cb->b;
  int kv = mm->k;
  bool dot = mm->dot && !(mm->int_acc && (a_zp || b_zp || mm->acc64));
  LLVMValueRef av[128], bw[128];
  for (int e = 0; e < mm->tm * kv; e++)
    av[e] = dot ? NULL : fma_elem(cb, mm, a, e, a_zp);
  for (int e = 0; e < mm->tn * kv; e++)
    bw[e] = dot ? NULL : fma_elem(cb, mm, bv, e, b_zp);
  LLVMValueRef acc[64];
  for (int e = 0; e < mm->tm * mm->tn; e++)
    acc[e] = LLVMBuildExtractElement(b, c, c32(cb, e), "");
  if (mm->pair && !dot && !mm->int_acc && kv % 2 == 0)
    return fma_pairs(cb, mm, av, bw, acc, c);
  /* k outer: consecutive instructions update different accumulators (no dependent chains) */
  for (int q = 0; q < kv; q += dot ? mm->dot->k : 1)
    for (int i = 0; i < mm->tm; i++)
      for (int j = 0; j < mm->tn; j++) {
        LLVMValueRef *x = &acc[i * mm->tn + j];
        if (dot) {
          LLVMValueRef args[4] = {dot_operand(cb, mm, a, i * kv + q), dot_operand(cb, mm, bv, j * kv + q), *x,
                                  LLVMConstInt(cb->i1, 0, 0)};
          *x = cg_intrinsic(cb, mm->dot->intrinsic, NULL, 0, args, 4);
        } else if (mm->int_acc) {
          LLVMValueRef p = LLVMBuildMul(b, av[i * kv + q], bw[j * kv + q], "");
          *x = LLVMBuildAdd(b, *x, LLVMBuildSExt(b, p, LLVMTypeOf(*x), ""), "");
        } else {
          LLVMValueRef args[3] = {av[i * kv + q], bw[j * kv + q], *x};
          LLVMTypeRef ft = cb->f32;
          *x = cg_intrinsic(cb, "llvm.fmuladd", &ft, 1, args, 3);
        }
      }
  for (int e = 0; e < mm->tm * mm->tn; e++)
    c = LLVMBuildInsertElement(b, c, acc[e], c32(cb, e), "");
  return c;
}

LLVMValueRef gemm_mma_step(cg_builder *cb, const gemm_mma *mm, LLVMValueRef a, LLVMValueRef b,
                           LLVMValueRef c) {
  if (!mm->row)
    return fma_step(cb, mm, a, b, c, mm->a_zp, mm->b_zp);
  LLVMValueRef ao = operand(cb, mm, a), bo = operand(cb, mm, b);
  LLVMTypeRef ot[2] = {LLVMTypeOf(c), LLVMTypeOf(ao)};
  if (mm->row->layout == MATRIX_MFMA) {
    LLVMValueRef args[6] = {ao, bo, c, c32(cb, 0), c32(cb, 0), c32(cb, 0)};
    return cg_intrinsic(cb, mm->row->intrinsic, NULL, 0, args, 6);
  }
  if (mm->int_acc) {
    LLVMValueRef t1 = LLVMConstInt(cb->i1, 1, 0), f1 = LLVMConstInt(cb->i1, 0, 0);
    LLVMValueRef args[6] = {t1, ao, t1, bo, c, f1};
    return cg_intrinsic(cb, mm->row->intrinsic, ot, 2, args, 6);
  }
  LLVMValueRef args[3] = {ao, bo, c};
  return cg_intrinsic(cb, mm->row->intrinsic, ot, 2, args, 3);
}

/* LLVM 22's machine sinking moves a gfx11 WMMA whose result only a guarded store reads into
 * that store's divergent branch (its machine instruction is not marked convergent there; LLVM
 * #178314), where it runs with lanes off in EXEC and its result is undefined. An empty volatile
 * asm reading each final accumulator here, before the guards, keeps the WMMA in the block that
 * computed it: the data are masked, never the lanes. (llvm.fake.use would not do: inlining drops
 * it, and libtosac-miir inlines every kernel into MIOpen's entry.) MFMA's machine instructions
 * are convergent, and their accumulators may live in AGPRs, which a "v" operand would copy. */
void gemm_mma_keep(cg_builder *cb, const gemm_mma *mm, LLVMValueRef *acc, int n) {
  if (!mm->row || mm->row->layout == MATRIX_MFMA)
    return;
  gemm_keep_in_block(cb, acc, n);
}

void gemm_keep_in_block(cg_builder *cb, LLVMValueRef *acc, int n) {
  for (int i = 0; i < n; i++) {
    LLVMTypeRef at = LLVMTypeOf(acc[i]);
    LLVMTypeRef ft = LLVMFunctionType(LLVMVoidTypeInContext(cb->ctx), &at, 1, 0);
    LLVMValueRef keep = LLVMGetInlineAsm(ft, "", 0, "v", 1, 1, 0, LLVMInlineAsmDialectATT, 0);
    LLVMBuildCall2(cb->b, ft, keep, &acc[i], 1, "");
  }
}

/* sched.group.barrier masks (AMDGPUUsage) */
enum { SG_MFMA = 0x8, SG_VMEM_READ = 0x20, SG_DS_READ = 0x100, SG_DS_WRITE = 0x200 };

static void sched_group(cg_builder *cb, int mask, int count) {
  if (count <= 0)
    return;
  LLVMValueRef args[3] = {c32(cb, mask), c32(cb, count), c32(cb, 0)};
  cg_intrinsic(cb, "llvm.amdgcn.sched.group.barrier", NULL, 0, args, 3);
}

void gemm_mma_slot(cg_builder *cb, const gemm_mma *mm, int nwrite, int nvmem, int nread, int nmma) {
  if (!mm->row || mm->row->layout != MATRIX_MFMA)
    return;
  sched_group(cb, SG_VMEM_READ, nvmem);
  sched_group(cb, SG_DS_WRITE, nwrite);
  sched_group(cb, SG_DS_READ, nread);
  sched_group(cb, SG_MFMA, nmma);
}
void gemm_mma_pipeline(cg_builder *cb, const gemm_mma *mm, int nvmem, int nread, int nmma, int first,
                       int nwrite) {
  if (!mm->row || mm->row->layout != MATRIX_MFMA)
    return;
  if (first > nmma)
    first = nmma;
  int rest = nmma - first, tail = rest / 4 < nwrite ? rest / 4 : nwrite;
  if (tail < 1)
    tail = rest ? 1 : 0;
  sched_group(cb, SG_DS_READ, nread);
  sched_group(cb, SG_MFMA, first);
  sched_group(cb, SG_VMEM_READ, nvmem);
  sched_group(cb, SG_MFMA, rest - tail);
  for (int i = 0; i < tail; i++) {
    sched_group(cb, SG_DS_WRITE, nwrite * (i + 1) / tail - nwrite * i / tail);
    sched_group(cb, SG_MFMA, 1);
  }
}

/* A separate AGPR file (gfx908) holds the accumulators apart from the VGPRs; at 2 waves per SIMD
 * a wave owns agpr_file / 2 of them. The pipelined loop's second fragment set and second staged
 * tile fit beside accumulators taking at most half of that (64x64 f16 waves: 64 AGPRs, 104
 * VGPRs, no spills); a wave tile filling all of it (128x64: 128 AGPRs) spilled 43 dwords there,
 * so it keeps the single-tile loop, which is near the matrix limit on such tiles (4096^3:
 * 98.5 %). A unified file (gfx90a and later) always pipelines. */
bool gemm_mma_pipelined(const target_info *t, const gemm_mma *mm, int wm, int wn) {
  if (!mm->row || mm->row->layout != MATRIX_MFMA)
    return false;
  int acc_regs = (wm / mm->m) * (wn / mm->n) * mm->nacc;
  return !t->agpr_file || acc_regs <= t->agpr_file / 4;
}
