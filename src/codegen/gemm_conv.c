/* gemm_conv.c: the index maps of convolutions as implicit GEMMs (gemm_conv.h). Divisors are
 * compile-time constants wherever possible: rows and taps are decomposed with the padded
 * per-phase extents, so only the phase's own first tap and origin are run-time values. */
#include "gemm_conv.h"

#include <stdio.h>
#include <string.h>

static LLVMValueRef k32(cg_builder *cb, int64_t v) { return LLVMConstInt(cb->i32, (unsigned long long)v, 1); }

static int64_t ints_at(const op *o, const char *name, int i, int64_t fallback) {
  const attr *a = op_attr(o, name);
  return a && a->kind == ATTR_INTS && i < a->n ? a->ints[i] : fallback;
}

bool gemm_conv_is(const op *o) {
  return cg_op_is(o, "tosa.conv2d") || cg_op_is(o, "tosa.conv3d") || cg_op_is(o, "tosa.transpose_conv2d");
}

static int64_t gcd64(int64_t a, int64_t b) {
  a = a < 0 ? -a : a, b = b < 0 ? -b : b;
  while (b) {
    int64_t t = a % b;
    a = b, b = t;
  }
  return a;
}

int64_t gemm_conv_groups(const op *o) {
  const attr *a = op_attr(o, "batch_groups");
  if (!a)
    a = op_attr(o, "groups");
  return a && a->kind == ATTR_INT ? a->i : 1;
}

bool gemm_conv_describe(const op *o, gemm_conv *c, gemm_problem *pb, char *err, size_t errsize) {
  const tensor_type *a = o->operands[0]->type, *w = o->operands[1]->type, *r = o->results[0]->type;
  memset(c, 0, sizeof *c);
  c->ns = cg_op_is(o, "tosa.conv3d") ? 3 : 2;
  c->transpose = cg_op_is(o, "tosa.transpose_conv2d");
  int ns = c->ns;
  if (a->rank != ns + 2 || w->rank != ns + 2 || r->rank != ns + 2) {
    snprintf(err, errsize, "%s: unexpected operand ranks for a convolution", op_table[o->kind].name);
    return false;
  }
  c->groups = gemm_conv_groups(o);
  c->batch_grouped = op_attr(o, "batch_groups") != NULL;
  int64_t fg = c->batch_grouped ? 1 : c->groups, bg = c->batch_grouped ? c->groups : 1;
  /* transposed: the weight is [OC/G, taps.., IC], the transpose of a grouped conv2d's */
  if (c->groups < 1 || a->dims[0] % bg || a->dims[ns + 1] % fg || (!c->transpose && w->dims[0] % c->groups)) {
    snprintf(err, errsize, "%s: %lld groups do not divide the convolution", op_table[o->kind].name,
             (long long)c->groups);
    return false;
  }
  c->batch = a->dims[0] / bg, c->ic = a->dims[ns + 1] / fg, c->oc = w->dims[0] / (c->transpose ? 1 : c->groups);
  c->phases = 1;
  int64_t rows = c->batch, taps = 1;
  for (int d = 0; d < ns; d++) {
    c->in[d] = a->dims[1 + d], c->out[d] = r->dims[1 + d], c->ker[d] = w->dims[1 + d];
    c->stride[d] = ints_at(o, "stride", d, 1);
    c->dil[d] = ints_at(o, "dilation", d, 1);
    c->pad[d] = ints_at(o, c->transpose ? "out_pad" : "pad", 2 * d, 0);
    if (c->stride[d] < 1 || c->dil[d] < 1) {
      snprintf(err, errsize, "%s: stride and dilation must be positive", op_table[o->kind].name);
      return false;
    }
    if (c->transpose) {
      int64_t g = gcd64(c->stride[d], c->dil[d]);
      c->tstep[d] = c->stride[d] / g, c->istep[d] = c->dil[d] / g;
      c->taps[d] = (c->ker[d] + c->tstep[d] - 1) / c->tstep[d];
      c->q[d] = (c->out[d] + c->stride[d] - 1) / c->stride[d];
      c->phases *= (int)c->stride[d];
    } else {
      c->taps[d] = c->ker[d], c->q[d] = c->out[d];
    }
    rows *= c->q[d], taps *= c->taps[d];
  }
  int64_t xstep = 1, wstep = 1;
  for (int d = ns + 1; d >= 0; d--) {
    c->xs[d] = xstep, c->ws[d] = wstep;
    xstep *= a->dims[d], wstep *= w->dims[d];
  }
  pb->batch = c->groups, pb->m = rows, pb->n = c->oc, pb->k = taps * c->ic;
  /* transposed weights are gathered tap by tap: only runs of IC are contiguous */
  pb->a_contig = c->ic, pb->b_contig = c->transpose ? c->ic : pb->k, pb->b_kcontig = true;
  return true;
}

/* The contiguous, aligned run of k elements a view keeps of `run` (channels innermost): the
 * channel step must be 1, and every other step and the offset a multiple of the run (a vector
 * load never starts off its alignment). */
static int64_t view_run(const part_strided *v, int rank, int64_t run) {
  if (v->stride[rank - 1] != 1)
    return 1;
  int64_t r = gcd64(run, v->offset);
  for (int d = 0; d + 1 < rank; d++)
    r = gcd64(r, v->stride[d]);
  return r ? r : run;
}

/* The contiguous, aligned run of output channels (dim 0, step 1) a weights view keeps. */
static int64_t n_run(const part_strided *v, int rank, int64_t oc) {
  int64_t r = gcd64(oc, v->offset);
  for (int d = 1; d < rank; d++)
    r = gcd64(r, v->stride[d]);
  return r ? r : oc;
}

void gemm_conv_views(gemm_conv *c, gemm_problem *pb, const part_strided *x, const part_strided *w) {
  int rank = c->ns + 2;
  if (x) {
    memcpy(c->xs, x->stride, sizeof(int64_t) * (size_t)rank);
    c->xoff = x->offset, c->x_view = true;
    pb->a_contig = view_run(x, rank, pb->a_contig);
  }
  if (w) {
    memcpy(c->ws, w->stride, sizeof(int64_t) * (size_t)rank);
    c->woff = w->offset, c->w_view = true;
    pb->b_contig = view_run(w, rank, c->ic);
    /* a transposed filter (backward data reading KYXC as CYXK) is contiguous along the output
     * channels instead: B is then loaded n-contiguous, vectors of output channels per k */
    if (c->transpose && pb->b_contig == 1 && w->stride[0] == 1 && c->oc > 1)
      pb->b_kcontig = false, pb->b_contig = n_run(w, rank, c->oc);
  }
}

/* The run gather may grow K (pixel channels to icp, tap rows to a power of two) by at most this
 * much: the stem's 7x7x3 grows 147 -> 224 (1.52), the same number of 32-element K tiles as a
 * 196-element flat padding; a 3x3x3 kernel (27 -> 48) keeps the per-element gather. */
#define RUN_MAX_GROWTH 1.6

bool gemm_conv_runs(gemm_conv *c, const gemm_problem *pb, elem_type et, bool zero_points, gemm_problem *runs) {
  int es = elem_type_bytes(et);
  int64_t icp = cg_pow2_at_least(c->ic), run = cg_pow2_at_least(c->ker[1] * icp);
  /* zero points: a padded channel would read as the zero point, not 0 */
  if (c->ns != 2 || c->transpose || c->groups > 1 || c->x_view || c->w_view || zero_points || elem_type_is_f8(et) || c->ic * es >= 16 || icp * es > 16 ||
      c->ker[0] > 32 || (double)(c->ker[0] * run) > RUN_MAX_GROWTH * (double)pb->k)
    return false;
  c->icp = icp, c->run = run;
  *runs = *pb;
  runs->k = c->ker[0] * run, runs->a_contig = runs->b_contig = icp, runs->k_run = run;
  return true;
}

int64_t gemm_conv_k(const gemm_conv *c) {
  int64_t k = c->ic;
  for (int d = 0; d < c->ns; d++)
    k *= c->ker[d];
  return k;
}

/* The first kernel tap of output phase p of transpose dim d, the least r with r * dil = p -
 * out_pad (mod stride) ((p - out_pad) mod stride without dilation); ker[d] when the phase has
 * none. */
static int64_t phase_tap0(const gemm_conv *c, int d, int64_t p) {
  int64_t s = c->stride[d];
  for (int64_t r = 0; r < c->tstep[d] && r < c->ker[d]; r++)
    if ((p - c->pad[d] - r * c->dil[d]) % s == 0)
      return r;
  return c->ker[d];
}

/* The input position of row q = 0, tap j = 0 of output phase p of transpose dim d (first tap
 * r): the whole number (p - out_pad - r * dil) / stride. */
static int64_t phase_origin(const gemm_conv *c, int d, int64_t p, int64_t r) {
  int64_t u = p - c->pad[d] - r * c->dil[d], s = c->stride[d];
  return (u - ((u % s) + s) % s) / s;
}

int64_t gemm_conv_phase_taps(const gemm_conv *c, int phase, int64_t taps[3]) {
  int64_t all = 1, rest = phase;
  for (int d = c->ns - 1; d >= 0; d--) {
    int64_t s = c->stride[d], r = phase_tap0(c, d, d ? rest % s : rest), ts = c->tstep[d];
    rest /= s;
    taps[d] = r < c->ker[d] ? (c->ker[d] - r + ts - 1) / ts : 0;
    all *= taps[d];
  }
  return all;
}

void gemm_conv_one_phase(gemm_conv *c, gemm_problem *pb, int phase) {
  int64_t taps[3];
  pb->k = gemm_conv_phase_taps(c, phase, taps) * c->ic;
  memcpy(c->taps, taps, sizeof taps);
  c->phases = 1, c->one_phase = true, c->phase = phase;
}

void gemm_conv_phase_init(cg_builder *cb, const gemm_conv *c, LLVMValueRef batch, gemm_conv_phase *ph) {
  LLVMBuilderRef b = cb->b;
  memset(ph, 0, sizeof *ph);
  ph->group = k32(cb, 0);
  LLVMValueRef phase = batch;
  if (c->groups > 1 && batch) {
    ph->group = c->phases > 1 ? LLVMBuildUDiv(b, batch, k32(cb, c->phases), "group") : batch;
    phase = c->phases > 1 ? LLVMBuildURem(b, batch, k32(cb, c->phases), "") : k32(cb, 0);
  }
  if (!c->transpose)
    return;
  LLVMValueRef rest = c->one_phase ? k32(cb, c->phase) : phase;
  for (int d = c->ns - 1; d >= 0; d--) {
    int64_t s = c->stride[d];
    ph->p[d] = d ? LLVMBuildURem(b, rest, k32(cb, s), "phase") : rest;
    rest = LLVMBuildUDiv(b, rest, k32(cb, s), "");
    if (c->dil[d] > 1) { /* the phases' first taps and origins as constants, selected by p */
      ph->r[d] = ph->off[d] = k32(cb, 0);
      for (int64_t p = 0; p < s; p++) {
        int64_t r = phase_tap0(c, d, p);
        LLVMValueRef is = LLVMBuildICmp(b, LLVMIntEQ, ph->p[d], k32(cb, p), "");
        ph->r[d] = LLVMBuildSelect(b, is, k32(cb, r), ph->r[d], "tap0");
        ph->off[d] = LLVMBuildSelect(b, is, k32(cb, phase_origin(c, d, p, r)), ph->off[d], "off");
      }
      continue;
    }
    /* u = p - out_pad + bias >= 0 with bias a multiple of s: r = u mod s is the first tap whose
     * input row is a whole number, off = (p - out_pad - r) / s the input row of q = 0 */
    int64_t bias = s * ((c->pad[d] < 0 ? -c->pad[d] : c->pad[d]) / s + 1);
    LLVMValueRef u = LLVMBuildAdd(b, ph->p[d], k32(cb, bias - c->pad[d]), "");
    ph->r[d] = LLVMBuildURem(b, u, k32(cb, s), "tap0");
    ph->off[d] = LLVMBuildSub(b, LLVMBuildUDiv(b, u, k32(cb, s), ""), k32(cb, bias / s), "off");
  }
}

LLVMValueRef gemm_conv_k_tiles(cg_builder *cb, const gemm_conv *c, const gemm_conv_phase *ph, int bk) {
  LLVMBuilderRef b = cb->b;
  int64_t row = c->ic; /* K elements per tap of dim 0 */
  for (int d = 1; d < c->ns; d++)
    row *= c->taps[d];
  /* taps of dim 0 in this phase: ceil((ker - r) / tstep), >= 0 because r < tstep or r = ker */
  LLVMValueRef n0 = LLVMBuildUDiv(b, LLVMBuildSub(b, k32(cb, c->ker[0] + c->tstep[0] - 1), ph->r[0], ""),
                                  k32(cb, c->tstep[0]), "taps0");
  return LLVMBuildUDiv(b, LLVMBuildAdd(b, LLVMBuildMul(b, n0, k32(cb, row), ""), k32(cb, bk - 1), ""),
                       k32(cb, bk), "ktiles");
}

/* m -> (batch, per-dim row index) with the compile-time extents c->q. */
static LLVMValueRef split_rows(cg_builder *cb, const gemm_conv *c, LLVMValueRef m, LLVMValueRef *q) {
  LLVMValueRef rest = m;
  for (int d = c->ns - 1; d >= 0; d--) {
    q[d] = LLVMBuildURem(cb->b, rest, k32(cb, c->q[d]), "");
    rest = LLVMBuildUDiv(cb->b, rest, k32(cb, c->q[d]), "");
  }
  return rest;
}

void gemm_conv_plan(gemm_conv *c, int bk) {
  if (c->runs) { /* tap rows up to the last K tile's: no shift of a 32-bit mask reaches 32 */
    c->tile_taps = c->lane_taps = c->unpadded = false;
    c->run_rows = c->ker[0] + bk / c->run;
    c->run_bits = c->run_rows <= 32 ? 32 : 64;
    return;
  }
  int64_t taps = 1;
  for (int d = 0; d < c->ns; d++)
    taps *= c->taps[d];
  int64_t kpad = (taps * c->ic + bk - 1) / bk * bk;
  /* tap masks add k to a row's origin: channels must be the input's innermost dim */
  bool linear = !c->transpose && c->xs[c->ns + 1] == 1;
  c->tile_taps = linear && c->ic % bk == 0 && taps <= 64;
  c->lane_taps = linear && !c->tile_taps && (kpad + c->ic - 1) / c->ic <= 64;
  c->mask_bits = (int)(c->tile_taps ? taps : (kpad + c->ic - 1) / c->ic);
  /* without padding the last tap of the last row is in[d] - 1 - (in[d] - 1 - span) % stride */
  c->unpadded = c->tile_taps;
  for (int d = 0; d < c->ns; d++)
    c->unpadded = c->unpadded && c->pad[d] == 0 && (c->q[d] - 1) * c->stride[d] + (c->ker[d] - 1) * c->dil[d] < c->in[d];
}

/* Elements between neighbouring input positions of spatial dim d. */
static int64_t in_stride(const gemm_conv *c, int d) { return c->xs[1 + d]; }

/* Run gather: the mask of the tap rows ky of a row with input origin pos0 inside the image. */
static LLVMValueRef rows_inside(cg_builder *cb, const gemm_conv *c, const gemm_conv_row *row) {
  LLVMBuilderRef b = cb->b;
  LLVMTypeRef mt = c->run_bits > 32 ? cb->i64 : cb->i32;
  LLVMValueRef acc = LLVMConstInt(mt, 0, 0);
  for (int64_t t = 0; t < c->ker[0]; t++) {
    LLVMValueRef pos = LLVMBuildAdd(b, row->pos0[0], k32(cb, t * c->dil[0]), "");
    LLVMValueRef in = LLVMBuildICmp(b, LLVMIntULT, pos, k32(cb, c->in[0]), "");
    acc = LLVMBuildOr(b, acc, LLVMBuildSelect(b, in, LLVMConstInt(mt, 1ull << t, 0), LLVMConstInt(mt, 0, 0), ""), "");
  }
  return acc;
}

/* The mask of the taps of a row with input origin pos0 that fall inside the image,
 * built per dim from the innermost (tap t of dim d is bit t x the taps of the dims inside d). */
static LLVMValueRef taps_inside(cg_builder *cb, const gemm_conv *c, const gemm_conv_row *row) {
  LLVMBuilderRef b = cb->b;
  LLVMTypeRef mt = c->mask_bits > 32 ? cb->i64 : cb->i32;
  LLVMValueRef good = LLVMConstInt(mt, 1, 0), zero = LLVMConstInt(mt, 0, 0);
  int64_t inner = 1;
  for (int d = c->ns - 1; d >= 0; d--) {
    LLVMValueRef acc = zero;
    for (int64_t t = 0; t < c->taps[d]; t++) {
      LLVMValueRef pos = LLVMBuildAdd(b, row->pos0[d], k32(cb, t * c->dil[d]), "");
      LLVMValueRef in = LLVMBuildICmp(b, LLVMIntULT, pos, k32(cb, c->in[d]), "");
      LLVMValueRef sh = LLVMBuildShl(b, good, LLVMConstInt(mt, (unsigned long long)(t * inner), 0), "");
      acc = LLVMBuildOr(b, acc, LLVMBuildSelect(b, in, sh, zero, ""), "");
    }
    good = acc, inner *= c->taps[d];
  }
  return good;
}

LLVMValueRef gemm_conv_out_chan(cg_builder *cb, const gemm_conv *c, const gemm_conv_phase *ph, LLVMValueRef n) {
  if (c->groups < 2)
    return n;
  return LLVMBuildAdd(cb->b, n, LLVMBuildMul(cb->b, ph->group, k32(cb, c->oc), ""), "chan");
}

/* The input element offset of the group's first element: channel g*ic or image g*batch. */
static LLVMValueRef group_a_offset(cg_builder *cb, const gemm_conv *c, const gemm_conv_phase *ph) {
  int64_t step = c->batch_grouped ? c->batch * c->xs[0] : c->ic * c->xs[c->ns + 1];
  return LLVMBuildMul(cb->b, ph->group, k32(cb, step), "");
}

void gemm_conv_row_init(cg_builder *cb, const gemm_conv *c, const gemm_conv_phase *ph, LLVMValueRef m,
                        gemm_conv_row *row) {
  LLVMBuilderRef b = cb->b;
  LLVMValueRef q[3];
  LLVMValueRef n = split_rows(cb, c, m, q);
  for (int d = 0; d < c->ns; d++) {
    row->pos0[d] = c->transpose ? LLVMBuildAdd(b, q[d], ph->off[d], "")
                                : LLVMBuildSub(b, LLVMBuildMul(b, q[d], k32(cb, c->stride[d]), ""),
                                               k32(cb, c->pad[d]), "");
  }
  row->base = LLVMBuildAdd(b, LLVMBuildMul(b, n, k32(cb, c->xs[0]), ""), k32(cb, c->xoff), "");
  if (c->groups > 1)
    row->base = LLVMBuildAdd(b, row->base, group_a_offset(cb, c, ph), "");
  row->origin = row->taps_in = NULL;
  if (!c->tile_taps && !c->lane_taps && !c->runs)
    return;
  /* the origin may lie before the image (padding): only taps the mask passes are ever added */
  row->origin = row->base;
  for (int d = 0; d < c->ns; d++)
    row->origin = LLVMBuildAdd(b, row->origin, LLVMBuildMul(b, row->pos0[d], k32(cb, in_stride(c, d)), ""), "");
  if (c->runs)
    row->taps_in = rows_inside(cb, c, row);
  else if (!c->unpadded)
    row->taps_in = taps_inside(cb, c, row);
}

/* x >> amount for a mask of c->run_bits bits; amounts past the mask's width are clamped to its
 * last bit, which is 0 (at most 32 tap rows): the shift stays defined. */
static LLVMValueRef mask_shift(cg_builder *cb, const gemm_conv *c, LLVMValueRef x, LLVMValueRef amount,
                               int64_t max_amount) {
  LLVMTypeRef mt = LLVMTypeOf(x);
  if (max_amount >= c->run_bits) {
    LLVMValueRef args[2] = {amount, k32(cb, c->run_bits - 1)};
    amount = cg_intrinsic(cb, "llvm.umin", &cb->i32, 1, args, 2);
  }
  return LLVMBuildLShr(cb->b, x, LLVMBuildIntCast2(cb->b, amount, mt, 0, ""), "");
}

/* Run gather: K element k's tap row (k / run) and kx (its pixel within the row's run). */
static LLVMValueRef run_pos(cg_builder *cb, const gemm_conv *c, LLVMValueRef k, LLVMValueRef *kx) {
  LLVMBuilderRef b = cb->b;
  *kx = LLVMBuildUDiv(b, LLVMBuildURem(b, k, k32(cb, c->run), ""), k32(cb, c->icp), "kx");
  return LLVMBuildUDiv(b, k, k32(cb, c->run), "");
}

void gemm_conv_run_slot(cg_builder *cb, const gemm_conv *c, const gemm_conv_row *row, LLVMValueRef kc,
                        gemm_conv_slot *s) {
  LLVMBuilderRef b = cb->b;
  LLVMValueRef kx, kq = run_pos(cb, c, kc, &kx);
  s->off = LLVMBuildAdd(b, row->origin, LLVMBuildMul(b, kq, k32(cb, c->dil[0] * in_stride(c, 0)), ""), "");
  s->off = LLVMBuildAdd(b, s->off, LLVMBuildMul(b, kx, k32(cb, c->dil[1] * in_stride(c, 1)), ""), "");
  LLVMValueRef ix = LLVMBuildAdd(b, row->pos0[1], LLVMBuildMul(b, kx, k32(cb, c->dil[1]), ""), "");
  LLVMValueRef in = LLVMBuildAnd(b, LLVMBuildICmp(b, LLVMIntULT, kx, k32(cb, c->ker[1]), ""),
                                 LLVMBuildICmp(b, LLVMIntULT, ix, k32(cb, c->in[1]), ""), "");
  LLVMValueRef rows = mask_shift(cb, c, row->taps_in, kq, c->run_rows - 1);
  s->mask = LLVMBuildSelect(b, in, rows, LLVMConstNull(LLVMTypeOf(rows)), "");
}

/* The tap-row part of K tile k0 (uniform): its first tap row and that row's element distance. */
static LLVMValueRef run_row(cg_builder *cb, const gemm_conv *c, LLVMValueRef k0, LLVMValueRef *delta) {
  LLVMValueRef ku = LLVMBuildUDiv(cb->b, k0, k32(cb, c->run), "ku");
  *delta = LLVMBuildMul(cb->b, ku, k32(cb, c->dil[0] * in_stride(c, 0)), "");
  return ku;
}

/* A buffer offset LLVM keeps whole. Instruction selection moves a constant addend of a buffer
 * offset into the instruction's offset field, and the hardware adds the two without wrapping
 * (a sum past 2^32 is out of range). A row origin above or left of the image (padding) is
 * negative, so the rest of an in-range tap's offset can be too, and the tap would read zeros:
 * umin with bit 31 hides the addend and keeps every value (one with bit 31 set stays past
 * num_records). */
static LLVMValueRef buffer_offset_whole(cg_builder *cb, LLVMValueRef bytes) {
  LLVMValueRef args[2] = {bytes, k32(cb, INT32_MIN)};
  return cg_intrinsic(cb, "llvm.umin", &cb->i32, 1, args, 2);
}

LLVMValueRef gemm_conv_run_bytes(cg_builder *cb, const gemm_conv *c, const gemm_conv_slot *s, LLVMValueRef k0,
                                 int es) {
  LLVMBuilderRef b = cb->b;
  LLVMValueRef delta, ku = run_row(cb, c, k0, &delta);
  LLVMValueRef bytes = LLVMBuildMul(b, LLVMBuildAdd(b, s->off, delta, ""), k32(cb, es), "");
  /* bit ku of the rows outside, moved to bit 31: a shift right, then one shift-or */
  LLVMValueRef out = mask_shift(cb, c, LLVMBuildNot(b, s->mask, ""), ku, c->run_rows - 1);
  out = LLVMBuildShl(b, LLVMBuildTrunc(b, out, cb->i32, ""), k32(cb, 31), "");
  return buffer_offset_whole(cb, LLVMBuildOr(b, bytes, out, ""));
}

LLVMValueRef gemm_conv_run_offset(cg_builder *cb, const gemm_conv *c, const gemm_conv_slot *s, LLVMValueRef k0,
                                  LLVMValueRef *ok) {
  LLVMBuilderRef b = cb->b;
  LLVMValueRef delta, ku = run_row(cb, c, k0, &delta);
  LLVMValueRef bit = LLVMBuildTrunc(b, mask_shift(cb, c, s->mask, ku, c->run_rows - 1), cb->i1, "");
  *ok = LLVMBuildAnd(b, *ok, bit, "");
  return LLVMBuildAdd(b, s->off, delta, "");
}

void gemm_conv_tile_init(cg_builder *cb, const gemm_conv *c, LLVMValueRef k0, gemm_conv_tile *t) {
  LLVMBuilderRef b = cb->b;
  t->tap = LLVMBuildUDiv(b, k0, k32(cb, c->ic), "tap");
  /* k0 = sum_d t_d * kstride_d + channel, the input offset sum_d t_d * dil_d * in_stride_d +
   * channel: k0 plus a correction per dim, none for an undilated innermost dim */
  t->delta = k0;
  int64_t kstride = c->ic;
  for (int d = c->ns - 1; d >= 0; d--) {
    int64_t fix = c->dil[d] * in_stride(c, d) - kstride;
    if (fix) {
      LLVMValueRef td = LLVMBuildUDiv(b, k0, k32(cb, kstride), "");
      if (d)
        td = LLVMBuildURem(b, td, k32(cb, c->taps[d]), "");
      t->delta = LLVMBuildAdd(b, t->delta, LLVMBuildMul(b, td, k32(cb, fix), ""), "");
    }
    kstride *= c->taps[d];
  }
}

LLVMValueRef gemm_conv_a_tile_offset(cg_builder *cb, const gemm_conv_row *row, const gemm_conv_tile *t,
                                     LLVMValueRef kc, LLVMValueRef *ok) {
  LLVMBuilderRef b = cb->b;
  /* origin + kc is loop-invariant: one add of the uniform delta per K tile */
  LLVMValueRef off = LLVMBuildAdd(b, LLVMBuildAdd(b, row->origin, kc, ""), t->delta, "");
  if (!row->taps_in)
    return off;
  LLVMTypeRef mt = LLVMTypeOf(row->taps_in);
  LLVMValueRef bit = LLVMBuildShl(b, LLVMConstInt(mt, 1, 0), LLVMBuildIntCast2(b, t->tap, mt, 0, ""), "");
  LLVMValueRef in = LLVMBuildICmp(b, LLVMIntNE, LLVMBuildAnd(b, row->taps_in, bit, ""), LLVMConstInt(mt, 0, 0), "");
  *ok = LLVMBuildAnd(b, *ok, in, "");
  return off;
}

LLVMValueRef gemm_conv_a_tile_bytes(cg_builder *cb, const gemm_conv_row *row, const gemm_conv_tile *t,
                                    LLVMValueRef kc, int es) {
  LLVMBuilderRef b = cb->b;
  LLVMValueRef off = LLVMBuildAdd(b, LLVMBuildAdd(b, row->origin, kc, ""), t->delta, "");
  LLVMValueRef bytes = LLVMBuildMul(b, off, k32(cb, es), "");
  if (!row->taps_in)
    return bytes;
  /* bit `tap` of the taps outside, moved to bit 31: a shift right, then one shift-or */
  LLVMTypeRef mt = LLVMTypeOf(row->taps_in);
  LLVMValueRef out = LLVMBuildLShr(b, LLVMBuildNot(b, row->taps_in, ""), LLVMBuildIntCast2(b, t->tap, mt, 0, ""), "");
  out = LLVMBuildShl(b, LLVMBuildTrunc(b, out, cb->i32, ""), k32(cb, 31), "");
  return buffer_offset_whole(cb, LLVMBuildOr(b, bytes, out, ""));
}

/* k -> (per-dim tap index, input channel). */
static LLVMValueRef split_k(cg_builder *cb, const gemm_conv *c, LLVMValueRef k, LLVMValueRef *t) {
  LLVMValueRef tap = LLVMBuildUDiv(cb->b, k, k32(cb, c->ic), "");
  for (int d = c->ns - 1; d >= 0; d--) {
    t[d] = d ? LLVMBuildURem(cb->b, tap, k32(cb, c->taps[d]), "") : tap;
    tap = LLVMBuildUDiv(cb->b, tap, k32(cb, c->taps[d]), "");
  }
  return LLVMBuildURem(cb->b, k, k32(cb, c->ic), "");
}

/* Transpose: kernel tap of tap index t in dim d, and *ok &= it lies inside the kernel. */
static LLVMValueRef kernel_tap(cg_builder *cb, const gemm_conv *c, const gemm_conv_phase *ph, int d,
                               LLVMValueRef t, LLVMValueRef *ok) {
  LLVMBuilderRef b = cb->b;
  LLVMValueRef kt = LLVMBuildAdd(b, ph->r[d], LLVMBuildMul(b, t, k32(cb, c->tstep[d]), ""), "");
  /* else every phase has all taps[d] taps (with dilation some phases have none) */
  if (c->ker[d] % c->tstep[d] || c->istep[d] != c->dil[d])
    *ok = LLVMBuildAnd(b, *ok, LLVMBuildICmp(b, LLVMIntULT, kt, k32(cb, c->ker[d]), ""), "");
  return kt;
}

LLVMValueRef gemm_conv_a_offset(cg_builder *cb, const gemm_conv *c, const gemm_conv_phase *ph,
                                const gemm_conv_row *row, LLVMValueRef k, LLVMValueRef *ok) {
  LLVMBuilderRef b = cb->b;
  LLVMValueRef t[3];
  LLVMValueRef ch = split_k(cb, c, k, t);
  LLVMValueRef off = LLVMBuildAdd(b, row->base, LLVMBuildMul(b, ch, k32(cb, c->xs[c->ns + 1]), ""), "");
  for (int d = 0; d < c->ns; d++) {
    LLVMValueRef pos;
    if (c->transpose) {
      kernel_tap(cb, c, ph, d, t[d], ok);
      /* taps walk the input backwards, istep positions apart */
      pos = LLVMBuildSub(b, row->pos0[d], LLVMBuildMul(b, t[d], k32(cb, c->istep[d]), ""), "");
    } else {
      pos = LLVMBuildAdd(b, row->pos0[d], LLVMBuildMul(b, t[d], k32(cb, c->dil[d]), ""), "");
    }
    /* unsigned compares reject negative positions too */
    *ok = LLVMBuildAnd(b, *ok, LLVMBuildICmp(b, LLVMIntULT, pos, k32(cb, c->in[d]), ""), "");
    off = LLVMBuildAdd(b, off, LLVMBuildMul(b, pos, k32(cb, c->xs[1 + d]), ""), "");
  }
  return off;
}

LLVMValueRef gemm_conv_b_offset(cg_builder *cb, const gemm_conv *c, const gemm_conv_phase *ph,
                                LLVMValueRef n, LLVMValueRef k, LLVMValueRef *ok) {
  LLVMBuilderRef b = cb->b;
  if (c->groups > 1 && !c->transpose)
    n = gemm_conv_out_chan(cb, c, ph, n); /* the group's weight rows */
  if (!c->transpose && c->w_view) { /* weights read through a view: (oc, taps..., ic) */
    LLVMValueRef t[3];
    LLVMValueRef ch = split_k(cb, c, k, t);
    LLVMValueRef off = LLVMBuildAdd(b, LLVMBuildMul(b, n, k32(cb, c->ws[0]), ""), k32(cb, c->woff), "");
    for (int d = 0; d < c->ns; d++)
      off = LLVMBuildAdd(b, off, LLVMBuildMul(b, t[d], k32(cb, c->ws[1 + d]), ""), "");
    return LLVMBuildAdd(b, off, LLVMBuildMul(b, ch, k32(cb, c->ws[c->ns + 1]), ""), "");
  }
  if (!c->transpose) { /* weights [OC][taps..][IC] are exactly B^T */
    int64_t K = gemm_conv_k(c);
    if (c->runs) { /* k -> (tap row, kx, channel 0 of a pixel): k past K' is the caller's */
      LLVMValueRef kx, row = run_pos(cb, c, k, &kx);
      *ok = LLVMBuildAnd(b, *ok, LLVMBuildICmp(b, LLVMIntULT, kx, k32(cb, c->ker[1]), ""), "");
      LLVMValueRef off = LLVMBuildAdd(b, LLVMBuildMul(b, row, k32(cb, c->ker[1] * c->ic), ""),
                                      LLVMBuildMul(b, kx, k32(cb, c->ic), ""), "");
      return LLVMBuildAdd(b, LLVMBuildMul(b, n, k32(cb, K), ""), off, "");
    }
    return LLVMBuildAdd(b, LLVMBuildMul(b, n, k32(cb, K), ""), k, "");
  }
  LLVMValueRef t[3];
  LLVMValueRef ch = split_k(cb, c, k, t);
  if (c->groups > 1) /* the group's input channels of weights [OC/G][ker..][IC] */
    ch = LLVMBuildAdd(b, ch, LLVMBuildMul(b, ph->group, k32(cb, c->ic), ""), "");
  if (c->w_view || c->groups > 1) { /* weights [OC][ker..][IC] read through the (view's) strides */
    LLVMValueRef off = LLVMBuildAdd(b, LLVMBuildMul(b, n, k32(cb, c->ws[0]), ""), k32(cb, c->woff), "");
    for (int d = 0; d < c->ns; d++)
      off = LLVMBuildAdd(b, off, LLVMBuildMul(b, kernel_tap(cb, c, ph, d, t[d], ok), k32(cb, c->ws[1 + d]), ""), "");
    return LLVMBuildAdd(b, off, LLVMBuildMul(b, ch, k32(cb, c->ws[c->ns + 1]), ""), "");
  }
  LLVMValueRef off = n;
  for (int d = 0; d < c->ns; d++)
    off = LLVMBuildAdd(b, LLVMBuildMul(b, off, k32(cb, c->ker[d]), ""), kernel_tap(cb, c, ph, d, t[d], ok), "");
  return LLVMBuildAdd(b, LLVMBuildMul(b, off, k32(cb, c->ic), ""), ch, "");
}

LLVMValueRef gemm_conv_out_pixel(cg_builder *cb, const gemm_conv *c, const gemm_conv_phase *ph,
                                 LLVMValueRef m, LLVMValueRef *ok) {
  if (!c->transpose)
    return m;
  LLVMBuilderRef b = cb->b;
  LLVMValueRef q[3];
  LLVMValueRef pix = split_rows(cb, c, m, q);
  for (int d = 0; d < c->ns; d++) {
    LLVMValueRef o = LLVMBuildAdd(b, LLVMBuildMul(b, q[d], k32(cb, c->stride[d]), ""), ph->p[d], "");
    if (c->out[d] % c->stride[d]) /* else q < ceil(out/stride) already keeps o inside */
      *ok = LLVMBuildAnd(b, *ok, LLVMBuildICmp(b, LLVMIntULT, o, k32(cb, c->out[d]), ""), "");
    pix = LLVMBuildAdd(b, LLVMBuildMul(b, pix, k32(cb, c->out[d]), ""), o, "");
  }
  return pix;
}
