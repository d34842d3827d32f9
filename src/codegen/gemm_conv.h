/* gemm_conv.h: convolutions as implicit GEMMs for kernel_gemm.c (conv2d, conv3d,
 * transpose_conv2d). No im2col buffer exists: these helpers turn a GEMM row m and reduction
 * index k into input and weight element offsets while the operands are staged. */
#ifndef TOSAC_GEMM_CONV_H
#define TOSAC_GEMM_CONV_H

#include "gemm.h"

/* Geometry of an NHWC/NDHWC convolution seen as C[m][n] = sum_k A(m,k) B(k,n) with
 * m = (batch, output position), n = output channel, k = (kernel tap, input channel).
 * transpose_conv2d is decomposed by output phase: outputs with (oy mod sy, ox mod sx) =
 * (py, px) form a stride-1 convolution over the input with the taps ky = ry + j*ty read
 * backwards (iy = qy + off_y - j*ey). Without dilation ty = sy, ey = 1 and ry = (py -
 * out_pad_top) mod sy; with tosac's dilation dy (an extension attribute: backward data of a
 * dilated convolution) the taps of a phase solve ky*dy = py - out_pad_top (mod sy): with g =
 * gcd(sy, dy), ty = sy/g, ey = dy/g, and a phase g does not divide has no tap. All phases run in
 * one kernel (the phase is the slowest grid index) over the same padded K = taps[0]*taps[1]*IC; a
 * tap past the kernel (ry + j*ty >= KH) is masked to zero in both operands (docs/gemm.md). */
typedef struct gemm_conv {
  int ns;                   /* spatial dims: 2 or 3 */
  bool transpose;           /* transpose_conv2d */
  int64_t batch, ic, oc;
  int64_t in[3], out[3], ker[3], stride[3], dil[3];
  int64_t pad[3];           /* conv: padding before; transpose: out_pad before */
  int64_t tstep[3], istep[3]; /* transpose: kernel taps between a phase's taps (ty), input
                               * positions between them (ey) */
  int64_t taps[3];          /* taps per dim walked by k: ker (conv), ceil(ker/stride) (transpose) */
  int64_t q[3];             /* GEMM rows per dim: out (conv), ceil(out/stride) (transpose) */
  int phases;               /* 1, or sy*sx for transpose_conv2d (1 with one_phase) */
  bool one_phase;           /* transpose_conv2d's output phase `phase` alone (gemm_conv_one_phase) */
  int phase;
  bool tile_taps;           /* every K tile lies in one tap (gemm_conv_plan): per-tile gather */
  bool lane_taps;           /* else tap masks with (tap, delta) per element (gemm_conv_plan) */
  int mask_bits;            /* tap indices a mask covers (K padded to whole tiles) */
  bool unpadded;            /* no tap of any row leaves the image (no padding): no tap masks */
  /* run gather (conv2d with few channels, gemm_conv_describe): K is ordered (tap row ky, kx,
   * channel) with the channels of a pixel padded to icp (a power of two, one load) and a tap
   * row's KW*icp elements padded to `run` (a power of two dividing bk): a staging slot then
   * holds one pixel of one tap row, its kx loop-invariant, its ky uniform plus invariant */
  bool runs;
  int64_t icp, run;
  int64_t run_rows;         /* tap rows up to the end of the last K tile (gemm_conv_plan) */
  int run_bits;             /* width of a row's tap-row mask: 32, or 64 past 32 rows */
  /* element steps of the input's (batch, spatial..., channel) and the weights' (oc, taps...,
   * ic) dims and their first elements' offsets: row-major, or an operand view's
   * (gemm_conv_views); the image and kernel bounds stay in[] and ker[] */
  int64_t xs[5], xoff, ws[5], woff;
  bool x_view, w_view;      /* not row-major: no run gather; w_view: B decomposed per element */
  /* tosac's group extensions (docs/graph.md): `groups` G independent convolutions, each over
   * ic = IC/G input channels and oc = OC/G output channels (weights [OC, taps.., IC/G];
   * transpose_conv2d [OC/G, taps.., IC], group g reading weight channels g*ic...);
   * `batch_groups` (conv2d) G over batch/G images each, output channel group g reading input
   * images g*batch... (the result [N/G, .., OC]). The GEMM batch is the group: group g reads A
   * from channel g*ic (image g*batch), B from weight row g*oc and writes C's channels g*oc.. */
  int64_t groups;           /* 1 without */
  bool batch_grouped;       /* batch_groups, else groups */
} gemm_conv;

/* Is o a convolution this module maps (conv2d, conv3d, transpose_conv2d)? */
bool gemm_conv_is(const op *o);
/* Fill c and pb's M, N, K and contiguous runs from conv anchor o (operands already checked to
 * be rank ns+2 by the caller's type checks); false + message in err on a bad shape. */
bool gemm_conv_describe(const op *o, gemm_conv *c, gemm_problem *pb, char *err, size_t errsize);

/* Read the input and weights through strided views x and w (partition/views.c; NULL:
 * row-major): steps and offsets into c, and pb's contiguous runs shortened to what the steps
 * and offsets keep contiguous and aligned. A channel step other than 1 leaves only the
 * per-element gather (gemm_conv_plan). */
void gemm_conv_views(gemm_conv *c, gemm_problem *pb, const part_strided *x, const part_strided *w);

/* Whether conv2d c can take the run gather: row-major operands, not transposed, no zero points, not 8-bit floats,
 * a pixel's channels shorter than one 16-byte load and padded to icp at most 16 bytes, at most
 * 32 tap rows, the padded K at most RUN_MAX_GROWTH times K (gemm_conv.c). Then c->icp, c->run
 * are set and *runs is pb with K = tap rows x run, a_contig = b_contig = icp and k_run; the
 * caller sets c->runs when it takes it. */
bool gemm_conv_runs(gemm_conv *c, const gemm_problem *pb, elem_type et, bool zero_points, gemm_problem *runs);

/* The convolution's own K: taps x input channels (the run gather's problem pads it). */
int64_t gemm_conv_k(const gemm_conv *c);

/* Taps per spatial dim of transpose output phase `phase` (py * sx + px; 0 for a phase no tap
 * reaches); returns their product. */
int64_t gemm_conv_phase_taps(const gemm_conv *c, int phase, int64_t taps[3]);
/* Restrict transpose c (and pb's K) to output phase `phase`: one phase in the grid, K exactly its
 * taps x IC (no masked slots), its first tap and origin compile-time constants. */
void gemm_conv_one_phase(gemm_conv *c, gemm_problem *pb, int phase);

/* The G of o's `groups` or `batch_groups` (1 without either). */
int64_t gemm_conv_groups(const op *o);

/* Per-work-group values of the group and phase this work-group computes: `batch` is the grid's
 * GEMM-batch index, group x phases + phase (phase fields: transpose only, zero otherwise). */
typedef struct gemm_conv_phase {
  LLVMValueRef group;  /* the group (i32; 0 without groups) */
  LLVMValueRef p[3];   /* output phase per dim */
  LLVMValueRef r[3];   /* first kernel tap of the phase */
  LLVMValueRef off[3]; /* input position of q = 0, j = 0 */
} gemm_conv_phase;
void gemm_conv_phase_init(cg_builder *cb, const gemm_conv *c, LLVMValueRef batch, gemm_conv_phase *ph);
/* The output channel of group-local channel n (n + group x oc). */
LLVMValueRef gemm_conv_out_chan(cg_builder *cb, const gemm_conv *c, const gemm_conv_phase *ph, LLVMValueRef n);

/* K tiles of bk elements this phase needs (transpose): K is ordered (tap_y, tap_x, ic), so a
 * phase with fewer y taps stops early; its missing x taps stay masked inside the tiles. */
LLVMValueRef gemm_conv_k_tiles(cg_builder *cb, const gemm_conv *c, const gemm_conv_phase *ph, int bk);

/* Decide the gather for K tiles of bk: c->tile_taps when the convolution is not transposed, IC is
 * a multiple of bk (a tile never crosses a tap, and K is a whole number of tiles) and there are at
 * most 64 taps (one bit each in a row's mask); else c->lane_taps when not transposed and the tap
 * indices of K padded to whole tiles fit 64 bits (the taps past K have no bit: they read zeros);
 * c->unpadded when it has no padding (and K is whole tiles). */
void gemm_conv_plan(gemm_conv *c, int bk);

/* Loop-invariant part of one staged A row m: input origin per dim and the batch's offset; with
 * tile_taps or lane_taps also the row's element offset of tap 0 (`origin`, may lie outside the
 * image) and `taps_in`, a mask of the taps that fall inside it (NULL when c->unpadded: all do);
 * the caller then passes rows past M clamped to the last one (their outputs are never stored). */
typedef struct gemm_conv_row {
  LLVMValueRef pos0[3], base;
  LLVMValueRef origin, taps_in;
} gemm_conv_row;
void gemm_conv_row_init(cg_builder *cb, const gemm_conv *c, const gemm_conv_phase *ph, LLVMValueRef m,
                        gemm_conv_row *row);

/* tile_taps: the wave-uniform part of K tile k0 (scalar registers): its tap and the element
 * distance of (tap, first channel) from a row's origin; lane_taps: the same for one element k
 * (per lane: a multiply-high per spatial dim, no division chain). */
typedef struct gemm_conv_tile {
  LLVMValueRef tap, delta;
} gemm_conv_tile;
void gemm_conv_tile_init(cg_builder *cb, const gemm_conv *c, LLVMValueRef k0, gemm_conv_tile *t);
/* Input element offset of (row, k0 + kc) for t = the tile of k0 (lane_taps: t of the element,
 * kc 0); *ok &= the tap lies inside the image. One add and one bit test, no division. */
LLVMValueRef gemm_conv_a_tile_offset(cg_builder *cb, const gemm_conv_row *row, const gemm_conv_tile *t,
                                     LLVMValueRef kc, LLVMValueRef *ok);
/* The same as a byte offset (es bytes per element) for a buffer load, with bit 31 set for a tap
 * outside the image: past num_records (operands under 2^31 bytes), the hardware reads zeros, so
 * padding costs neither a select of the offset nor of the data. */
LLVMValueRef gemm_conv_a_tile_bytes(cg_builder *cb, const gemm_conv_row *row, const gemm_conv_tile *t,
                                    LLVMValueRef kc, int es);

/* Run gather: a staging slot's loop-invariant part for K column kc of the tile (a multiple of
 * icp): `off`, the element offset of its pixel in tap row ky = k0 / run + 0 ... (may lie outside
 * the image), and `mask`, the row's tap rows inside the image shifted by the slot's own tap row,
 * 0 where the slot's kx lies outside the image or the kernel. */
typedef struct gemm_conv_slot {
  LLVMValueRef off, mask;
} gemm_conv_slot;
void gemm_conv_run_slot(cg_builder *cb, const gemm_conv *c, const gemm_conv_row *row, LLVMValueRef kc,
                        gemm_conv_slot *s);
/* The slot's byte offset (es bytes per element) in K tile k0: offset + tap row k0/run times the
 * row distance, bit 31 set where the pixel lies outside (a buffer load then reads zeros). */
LLVMValueRef gemm_conv_run_bytes(cg_builder *cb, const gemm_conv *c, const gemm_conv_slot *s, LLVMValueRef k0,
                                 int es);
/* The same as an element offset and *ok &= the pixel lies inside (global loads). */
LLVMValueRef gemm_conv_run_offset(cg_builder *cb, const gemm_conv *c, const gemm_conv_slot *s, LLVMValueRef k0,
                                  LLVMValueRef *ok);

/* Input element offset of (row, k); *ok &= the tap lies inside the image (and the kernel). */
LLVMValueRef gemm_conv_a_offset(cg_builder *cb, const gemm_conv *c, const gemm_conv_phase *ph,
                                const gemm_conv_row *row, LLVMValueRef k, LLVMValueRef *ok);
/* Weight element offset of (output channel n, k); *ok &= the tap lies inside the kernel. */
LLVMValueRef gemm_conv_b_offset(cg_builder *cb, const gemm_conv *c, const gemm_conv_phase *ph,
                                LLVMValueRef n, LLVMValueRef k, LLVMValueRef *ok);
/* Output pixel (linear over batch and spatial dims) of GEMM row m; *ok &= it exists. */
LLVMValueRef gemm_conv_out_pixel(cg_builder *cb, const gemm_conv *c, const gemm_conv_phase *ph,
                                 LLVMValueRef m, LLVMValueRef *ok);

#endif
