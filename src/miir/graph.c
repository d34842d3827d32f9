/* graph.c: a miir_problem as a TOSA function (docs/miopen.md "The graphs").
 *
 * Every tensor is 5-D in MIOpen's layout (the group dimension included, size 1 without groups).
 * Each group's 4-D slice is brought to TOSA's layouts (NHWC data, OHWI filters) by transposes,
 * convolved, and the groups' results are concatenated and transposed back:
 *   forward          conv2d(x[n,h,w,c], w[k,y,x,c]) -> y[n,h,w,k]
 *   backward data    transpose_conv2d(dy[n,h,w,k], w[c,y,x,k]) -> dx[n,h,w,c] (tosac's dilation
 *                    extension where dilated or padded past the filter)
 *   backward weight  conv2d(x[c,h,w,n], dy[k,h,w,n]) with stride and dilation swapped
 *                    -> dw[c,y,x,k]: the batch is the reduction channel
 * One channel per group on one side takes one depthwise_conv2d for all groups instead (forward
 * with one input channel per group; backward data the transposed form, tosac's extension).
 * TOSA wants an exact output size, (in + pads - span) divisible by the stride; MIOpen's sizes
 * round down, so the trailing padding shrinks by the remainder (rows no output reads), and where
 * it would go negative the input is cropped instead. */
#include "miir.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct gv {
  int id;
  int rank;
  int64_t shape[6];
  char et[16];
  char letters[8]; /* dimension names, one per dimension */
} gv;

typedef struct gb {
  FILE *f;
  int next;
  /* > 1: the convolutions built are one op for all groups, tosac's `groups` (or, with
   * batch_groups, `batch_groups`) extension (docs/graph.md) */
  int64_t groups;
  bool batch_groups;
} gb;

static void tensor_type(char *buf, size_t n, const gv *v) {
  size_t o = (size_t)snprintf(buf, n, "tensor<");
  for (int i = 0; i < v->rank; i++)
    o += (size_t)snprintf(buf + o, n - o, "%lldx", (long long)v->shape[i]);
  snprintf(buf + o, n - o, "%s>", v->et);
}

static gv new_value(gb *b, const gv *like) {
  gv v = *like;
  v.id = b->next++;
  return v;
}

static void shape_const(gb *b, int id, const int64_t *vals, int n) {
  fprintf(b->f, "  %%s%d = tosa.const_shape {values = dense<[", id);
  for (int i = 0; i < n; i++)
    fprintf(b->f, "%s%lld", i ? ", " : "", (long long)vals[i]);
  fprintf(b->f, "]> : tensor<%dxindex>} : () -> !tosa.shape<%d>\n", n, n);
}

static gv reshape(gb *b, const gv *x, int rank, const int64_t *shape, const char *letters) {
  gv r = new_value(b, x);
  r.rank = rank;
  memcpy(r.shape, shape, sizeof(int64_t) * (size_t)rank);
  snprintf(r.letters, sizeof r.letters, "%s", letters);
  shape_const(b, r.id, shape, rank);
  char a[128], o[128];
  tensor_type(a, sizeof a, x);
  tensor_type(o, sizeof o, &r);
  fprintf(b->f, "  %%v%d = tosa.reshape %%v%d, %%s%d : (%s, !tosa.shape<%d>) -> %s\n", r.id, x->id,
          r.id, a, rank, o);
  return r;
}

/* x with its dimensions in the order of `want` (letters of x); no op when
 * already so. */
static gv transpose(gb *b, const gv *x, const char *want) {
  if (!strcmp(x->letters, want))
    return *x;
  gv r = new_value(b, x);
  int perm[6];
  for (int i = 0; i < x->rank; i++) {
    perm[i] = (int)(strchr(x->letters, want[i]) - x->letters);
    r.shape[i] = x->shape[perm[i]];
  }
  snprintf(r.letters, sizeof r.letters, "%s", want);
  char a[128], o[128];
  tensor_type(a, sizeof a, x);
  tensor_type(o, sizeof o, &r);
  fprintf(b->f, "  %%v%d = tosa.transpose %%v%d {perms = array<i32: ", r.id, x->id);
  for (int i = 0; i < x->rank; i++)
    fprintf(b->f, "%s%d", i ? ", " : "", perm[i]);
  fprintf(b->f, ">} : (%s) -> %s\n", a, o);
  return r;
}

static gv slice(gb *b, const gv *x, const int64_t *start, const int64_t *size) {
  gv r = new_value(b, x);
  memcpy(r.shape, size, sizeof(int64_t) * (size_t)x->rank);
  int sid = b->next++;
  shape_const(b, sid, start, x->rank);
  shape_const(b, r.id, size, x->rank);
  char a[128], o[128];
  tensor_type(a, sizeof a, x);
  tensor_type(o, sizeof o, &r);
  fprintf(b->f,
          "  %%v%d = tosa.slice %%v%d, %%s%d, %%s%d : (%s, !tosa.shape<%d>, "
          "!tosa.shape<%d>) -> %s\n",
          r.id, x->id, sid, r.id, a, x->rank, x->rank, o);
  return r;
}

/* Dimension d of x cut to [from, from + len). */
static gv crop(gb *b, const gv *x, int d, int64_t from, int64_t len) {
  if (from == 0 && len == x->shape[d])
    return *x;
  int64_t start[6] = {0}, size[6];
  memcpy(size, x->shape, sizeof size);
  start[d] = from, size[d] = len;
  return slice(b, x, start, size);
}

/* [n,h,w,c] cut to its first keep_h rows and keep_w columns: one slice (one copy kernel). */
static gv crop_hw(gb *b, const gv *x, int64_t keep_h, int64_t keep_w) {
  if (keep_h == x->shape[1] && keep_w == x->shape[2])
    return *x;
  int64_t start[6] = {0}, size[6];
  memcpy(size, x->shape, sizeof size);
  size[1] = keep_h, size[2] = keep_w;
  return slice(b, x, start, size);
}

static gv cast(gb *b, const gv *x, const char *et) {
  if (!strcmp(x->et, et))
    return *x;
  gv r = new_value(b, x);
  snprintf(r.et, sizeof r.et, "%s", et);
  char a[128], o[128];
  tensor_type(a, sizeof a, x);
  tensor_type(o, sizeof o, &r);
  fprintf(b->f, "  %%v%d = tosa.cast %%v%d : (%s) -> %s\n", r.id, x->id, a, o);
  return r;
}

static bool is_int(const char *et) { return et[0] == 'i'; }

/* A one-element constant of type et (zero): a conv's bias or zero point. */
static int zero_const(gb *b, const char *et) {
  int id = b->next++;
  fprintf(b->f,
          "  %%v%d = \"tosa.const\"() <{values = dense<%s> : tensor<1x%s>}> : "
          "() -> tensor<1x%s>\n",
          id, is_int(et) ? "0" : "0.0", et, et);
  return id;
}

/* The type a convolution of these operands produces, and its accumulator. */
static const char *conv_result_type(const char *in_et) {
  return !strcmp(in_et, "i8") ? "i32" : !strncmp(in_et, "f8", 2) ? "f16" : in_et;
}
static const char *acc_type(const char *in_et) {
  return !strcmp(in_et, "i8") ? "i32" : !strncmp(in_et, "f8", 2) ? "f16" : "f32";
}

/* A convolution op: its zero bias and zero points, then `op %x, %w, ... {acc_type, attrs}`. */
static void conv_op(gb *b, const char *op, const gv *x, const gv *w, const gv *r,
                    const char *attrs) {
  int bias = zero_const(b, r->et), xz = zero_const(b, x->et), wz = zero_const(b, w->et);
  char ta[128], tw[128], tr[128];
  tensor_type(ta, sizeof ta, x);
  tensor_type(tw, sizeof tw, w);
  tensor_type(tr, sizeof tr, r);
  fprintf(b->f,
          "  %%v%d = %s %%v%d, %%v%d, %%v%d, %%v%d, %%v%d {acc_type = %s, %s} : (%s, %s, "
          "tensor<1x%s>, tensor<1x%s>, tensor<1x%s>) -> %s\n",
          r->id, op, x->id, w->id, bias, xz, wz, acc_type(x->et), attrs, ta, tw, r->et, x->et,
          w->et, tr);
}

/* The result of a convolution of x [n,h,w,c] by w [o,y,x,c]: [n,?,?,o] (spatial sizes set by
 * the caller). */
static gv conv_result(gb *b, const gv *x, const gv *w, const char *letters) {
  gv r = new_value(b, x);
  snprintf(r.et, sizeof r.et, "%s", conv_result_type(x->et));
  snprintf(r.letters, sizeof r.letters, "%s", letters);
  r.shape[3] = w->shape[0];
  return r;
}

/* The dilation, pad and stride attributes of conv2d and depthwise_conv2d. */
static void conv_attrs(char *buf, size_t size, const int64_t pad[4], const int64_t stride[2],
                       const int64_t dil[2]) {
  snprintf(buf, size,
           "dilation = array<i64: %lld, %lld>, pad = array<i64: %lld, %lld, %lld, %lld>, "
           "stride = array<i64: %lld, %lld>",
           (long long)dil[0], (long long)dil[1], (long long)pad[0], (long long)pad[1],
           (long long)pad[2], (long long)pad[3], (long long)stride[0], (long long)stride[1]);
}

/* The group extension's attribute for the next convolution ("" without groups); its length. */
static int group_attr(const gb *b, char *buf, size_t size) {
  buf[0] = 0;
  if (b->groups < 2)
    return 0;
  return snprintf(buf, size, "%s = %lld : i64, ", b->batch_groups ? "batch_groups" : "groups",
                  (long long)b->groups);
}

/* conv2d of x [n,h,w,c] with w [o,y,x,c] -> [n,oh,ow,o] (letters given for the result); with
 * b->groups x [n,h,w,(g c)], w [(g o),y,x,c] -> [n,oh,ow,(g o)], with batch_groups x
 * [(g n),h,w,c] -> [n,oh,ow,(g o)]. */
static gv conv2d(gb *b, const gv *x, const gv *w, const int64_t pad[4], const int64_t stride[2],
                 const int64_t dil[2], const char *letters) {
  gv r = conv_result(b, x, w, letters);
  for (int d = 0; d < 2; d++) {
    int64_t span = dil[d] * (w->shape[1 + d] - 1) + 1;
    r.shape[1 + d] = (x->shape[1 + d] + pad[2 * d] + pad[2 * d + 1] - span) / stride[d] + 1;
  }
  char attrs[320];
  int n = group_attr(b, attrs, sizeof attrs);
  if (b->groups > 1 && b->batch_groups)
    r.shape[0] /= b->groups;
  conv_attrs(attrs + n, sizeof attrs - (size_t)n, pad, stride, dil);
  conv_op(b, "tosa.conv2d", x, w, &r, attrs);
  return r;
}

/* transpose_conv2d of x [n,ih,iw,ic] with w [o,y,x,ic] -> [n,oh,ow,o] (with b->groups x
 * [n,ih,iw,(g ic)], w [o,y,x,(g ic)] -> [n,oh,ow,(g o)]). dil: NULL, or tosac's
 * `dilation` extension (the kernel taps dil apart; out_pad may then crop a whole tap's span). */
static gv transpose_conv2d(gb *b, const gv *x, const gv *w, const int64_t out_pad[4],
                           const int64_t stride[2], const int64_t *dil, const char *letters) {
  gv r = conv_result(b, x, w, letters);
  for (int d = 0; d < 2; d++)
    r.shape[1 + d] = (x->shape[1 + d] - 1) * stride[d] + out_pad[2 * d] + out_pad[2 * d + 1] +
                     (w->shape[1 + d] - 1) * (dil ? dil[d] : 1) + 1;
  char attrs[320];
  int n = group_attr(b, attrs, sizeof attrs);
  if (b->groups > 1)
    r.shape[3] *= b->groups;
  if (dil)
    n += snprintf(attrs + n, sizeof attrs - (size_t)n, "dilation = array<i64: %lld, %lld>, ",
                  (long long)dil[0], (long long)dil[1]);
  snprintf(attrs + n, sizeof attrs - (size_t)n,
           "out_pad = array<i64: %lld, %lld, %lld, %lld>, stride = array<i64: %lld, %lld>",
           (long long)out_pad[0], (long long)out_pad[1], (long long)out_pad[2],
           (long long)out_pad[3], (long long)stride[0], (long long)stride[1]);
  conv_op(b, "tosa.transpose_conv2d", x, w, &r, attrs);
  return r;
}

/* depthwise_conv2d of x [n,h,w,c] with w [y,x,c,m] -> [n,oh,ow,c*m]. */
static gv depthwise_conv2d(gb *b, const gv *x, const gv *w, const int64_t pad[4],
                           const int64_t stride[2], const int64_t dil[2]) {
  gv r = conv_result(b, x, w, "nhwk");
  for (int d = 0; d < 2; d++) {
    int64_t span = dil[d] * (w->shape[d] - 1) + 1;
    r.shape[1 + d] = (x->shape[1 + d] + pad[2 * d] + pad[2 * d + 1] - span) / stride[d] + 1;
  }
  r.shape[3] = w->shape[2] * w->shape[3];
  char attrs[256];
  conv_attrs(attrs, sizeof attrs, pad, stride, dil);
  conv_op(b, "tosa.depthwise_conv2d", x, w, &r, attrs);
  return r;
}

/* Fit one spatial dimension to TOSA's exact output rule: returns the trailing
 * padding and sets *keep, the input extent to use (a crop when the padding
 * alone cannot absorb the remainder). */
static int64_t fit_pad(int64_t in, int64_t lo, int64_t hi, int64_t fil, int64_t dil, int64_t stride,
                       int64_t out, int64_t *keep) {
  int64_t rem = in + lo + hi - 1 - (fil - 1) * dil - (out - 1) * stride;
  *keep = in;
  if (rem <= hi)
    return hi - rem;
  *keep = in - (rem - hi);
  return 0;
}

/* ---------------------------------------------------------------- tensors of
 * the problem */
typedef struct dims {
  int64_t g, n, c, k, hi, wi, ho, wo, y, x; /* c and k per group */
} dims;

static int64_t dim_size(const dims *d, char tensor, char l) {
  switch (l) {
  case 'g':
    return d->g;
  case 'n':
    return d->n;
  case 'c':
    return d->c;
  case 'k':
    return d->k;
  case 'y':
    return d->y;
  case 'x':
    return d->x;
  case 'h':
    return tensor == 'i' ? d->hi : d->ho;
  case 'w':
    return tensor == 'i' ? d->wi : d->wo;
  }
  return 0;
}

static gv argument(int id, const dims *d, char tensor, const char *layout, const char *et) {
  gv v = {.id = id, .rank = 5};
  snprintf(v.et, sizeof v.et, "%s", et);
  snprintf(v.letters, sizeof v.letters, "%s", layout);
  for (int i = 0; i < 5; i++)
    v.shape[i] = dim_size(d, tensor, layout[i]);
  return v;
}

/* x without its size-1 dimension g (a reshape: no data moves). */
static gv drop_g(gb *b, const gv *x) {
  int64_t s4[4];
  char l4[8];
  int j = 0;
  for (int i = 0; i < 5; i++)
    if (x->letters[i] != 'g')
      s4[j] = x->shape[i], l4[j++] = x->letters[i];
  l4[j] = 0;
  return reshape(b, x, 4, s4, l4);
}

/* x without its dimension `l` (size 1; a reshape), the rest renamed by `rename` (pairs of
 * letters, "gc": g becomes c). */
static gv drop_dim(gb *b, const gv *x, char l, const char *rename) {
  int64_t s4[4];
  char l4[8];
  int j = 0;
  for (int i = 0; i < 5; i++)
    if (x->letters[i] != l) {
      char c = x->letters[i];
      for (const char *r = rename; r[0] && r[1]; r += 2)
        if (c == r[0]) {
          c = r[1];
          break;
        }
      s4[j] = x->shape[i], l4[j++] = c;
    }
  l4[j] = 0;
  return reshape(b, x, 4, s4, l4);
}

/* Does bringing x to the order `want` move only its size-1 dimensions (the non-unit ones keep
 * their order)? */
static bool moves_unit_dims_only(const gv *x, const char *want) {
  int last = -1;
  for (int i = 0; i < x->rank; i++) {
    int d = (int)(strchr(x->letters, want[i]) - x->letters);
    if (x->shape[d] == 1)
      continue;
    if (d < last)
      return false;
    last = d;
  }
  return true;
}

/* Per-group 4-D views of a 5-D argument, dimensions in the order `want` (4 letters). When a
 * dimension follows g, g merges into it (a reshape) and each group is a slice of the merged
 * dimension, transposed to `want`: a slice and a transpose the convolution reads through
 * strides (docs/partitioning.md "Operand views"). Otherwise one transpose brings the tensor to
 * g-major `want` order first and the groups are contiguous slices of it. */
static int split_groups(gb *b, const gv *x, const char *want, gv *out) {
  int gd = (int)(strchr(x->letters, 'g') - x->letters);
  int64_t groups = x->shape[gd];
  char l4[8], g5[8] = "g";
  int j = 0;
  for (int i = 0; i < 5; i++)
    if (x->letters[i] != 'g')
      l4[j++] = x->letters[i];
  l4[j] = 0;
  memcpy(g5 + 1, want, 5);
  if (groups > 1 && gd < 4) { /* g merged into the next dimension: each group a slice of it */
    int64_t s4[4], len = x->shape[gd + 1];
    for (int i = 0, q = 0; i < 5; i++)
      if (i != gd)
        s4[q++] = x->shape[i] * (i == gd + 1 ? groups : 1);
    gv m = reshape(b, x, 4, s4, l4);
    if (moves_unit_dims_only(&m, want)) {
      /* a transpose of unit dimensions is a reshape, and a slice read through a reshape is no
       * operand view: transpose the whole tensor first (an alias of it), then slice it */
      gv t = transpose(b, &m, want);
      int md = (int)(strchr(want, x->letters[gd + 1]) - want);
      for (int64_t gi = 0; gi < groups; gi++)
        out[gi] = crop(b, &t, md, gi * len, len);
      return (int)groups;
    }
    for (int64_t gi = 0; gi < groups; gi++) {
      gv sl = crop(b, &m, gd, gi * len, len);
      out[gi] = transpose(b, &sl, want);
    }
    return (int)groups;
  }
  gv t = groups == 1 || !strcmp(l4, want) ? *x : transpose(b, x, g5);
  gd = (int)(strchr(t.letters, 'g') - t.letters);
  for (int64_t gi = 0; gi < groups; gi++) {
    gv s = crop(b, &t, gd, gi, 1);
    gv r = drop_g(b, &s);
    out[gi] = transpose(b, &r, want);
  }
  return (int)groups;
}

/* The groups' 4-D results joined into the 5-D tensor of `layout`: each transposed to the
 * layout's order (an output view of its convolution), given its size-1 g (a reshape) and
 * concatenated along g, which the convolutions write in place (docs/partitioning.md
 * "Concatenation in place"). */
static gv join_groups(gb *b, gv *parts, int groups, const char *layout) {
  char order[8]; /* the concatenation's layout: each part transposed to it (an output view of
                    its convolution), so the concatenation is in place */
  memcpy(order, layout, 6);
  int gd = (int)(strchr(order, 'g') - order);
  char without_g[8];
  for (int i = 0, q = 0; i < 6; i++)
    if (order[i] != 'g')
      without_g[q++] = order[i];
  gv *r5 = malloc(sizeof *r5 * (size_t)groups);
  for (int gi = 0; gi < groups; gi++) {
    gv t = transpose(b, &parts[gi], without_g);
    int64_t s5[6];
    for (int i = 0, q = 0; i < 5; i++)
      s5[i] = i == gd ? 1 : t.shape[q++];
    r5[gi] = reshape(b, &t, 5, s5, order);
  }
  gv joined = r5[0];
  if (groups > 1) {
    joined = new_value(b, &r5[0]);
    joined.shape[gd] = groups;
    char a[128], o[128];
    tensor_type(a, sizeof a, &r5[0]);
    tensor_type(o, sizeof o, &joined);
    fprintf(b->f, "  %%v%d = tosa.concat ", joined.id);
    for (int gi = 0; gi < groups; gi++)
      fprintf(b->f, "%s%%v%d", gi ? ", " : "", r5[gi].id);
    fprintf(b->f, " {axis = %d : i32} : (", gd);
    for (int gi = 0; gi < groups; gi++)
      fprintf(b->f, "%s%s", gi ? ", " : "", a);
    fprintf(b->f, ") -> %s\n", o);
  }
  free(r5);
  return transpose(b, &joined, layout);
}

static gv forward_group(gb *b, const miir_problem *p, const gv *x, const gv *w) {
  int64_t keep_h, keep_w;
  int64_t pb =
      fit_pad(x->shape[1], p->pad_t, p->pad_b, p->y, p->dil_h, p->stride_h, p->ho, &keep_h);
  int64_t pr =
      fit_pad(x->shape[2], p->pad_l, p->pad_r, p->x, p->dil_w, p->stride_w, p->wo, &keep_w);
  gv xc = crop_hw(b, x, keep_h, keep_w);
  int64_t pad[4] = {p->pad_t, pb, p->pad_l, pr}, stride[2] = {p->stride_h, p->stride_w},
          dil[2] = {p->dil_h, p->dil_w};
  return conv2d(b, &xc, w, pad, stride, dil, "nhwk");
}

/* dy [n,ho,wo,k], w [c,y,x,k] -> dx [n,hi,wi,c]: a transposed convolution; dilation, or
 * padding that crops a tap's whole span, take tosac's `dilation` extension (TOSA has neither),
 * which indexes dy through the stride and dilation in the kernel (no upsampled copy). */
static gv bwd_data_group(gb *b, const miir_problem *p, const gv *dy, const gv *w) {
  int64_t span_h = (p->y - 1) * p->dil_h + 1, span_w = (p->x - 1) * p->dil_w + 1;
  int64_t otop = -p->pad_t, oleft = -p->pad_l;
  int64_t obot = p->hi - (p->ho - 1) * p->stride_h - span_h + p->pad_t;
  int64_t oright = p->wi - (p->wo - 1) * p->stride_w - span_w + p->pad_l;
  bool tosa_fits = -otop < span_h && -obot < span_h && -oleft < span_w && -oright < span_w;
  int64_t out_pad[4] = {otop, obot, oleft, oright}, stride[2] = {p->stride_h, p->stride_w};
  int64_t dil[2] = {p->dil_h, p->dil_w};
  bool plain = p->dil_h == 1 && p->dil_w == 1 && tosa_fits;
  return transpose_conv2d(b, dy, w, out_pad, stride, plain ? NULL : dil, "nhwc");
}

/* x [c,hi,wi,n], dy [k,ho,wo,n] -> dw [c,y,x,k] */
static gv bwd_weight_group(gb *b, const miir_problem *p, const gv *x, const gv *dy) {
  int64_t keep_h, keep_w;
  int64_t pb = fit_pad(x->shape[1], p->pad_t, 0, p->ho, p->stride_h, p->dil_h, p->y, &keep_h);
  int64_t pr = fit_pad(x->shape[2], p->pad_l, 0, p->wo, p->stride_w, p->dil_w, p->x, &keep_w);
  gv xc = crop_hw(b, x, keep_h, keep_w);
  int64_t pad[4] = {p->pad_t, pb, p->pad_l, pr}, stride[2] = {p->dil_h, p->dil_w},
          dil[2] = {p->stride_h, p->stride_w};
  return conv2d(b, &xc, dy, pad, stride, dil, "cyxk");
}

int miir_arg_slot(const miir_problem *p, int i) {
  static const int slots[3][2] = {
      [MIIR_FWD] = {MIIR_SLOT_FILTER, MIIR_SLOT_INPUT},
      [MIIR_BWD_DATA] = {MIIR_SLOT_FILTER, MIIR_SLOT_OUTPUT},
      [MIIR_BWD_WEIGHT] = {MIIR_SLOT_INPUT, MIIR_SLOT_OUTPUT},
  };
  return i >= 0 && i < 2 ? slots[p->op][i] : -1;
}

int miir_result_slot(const miir_problem *p) {
  return p->op == MIIR_FWD        ? MIIR_SLOT_OUTPUT
         : p->op == MIIR_BWD_DATA ? MIIR_SLOT_INPUT
                                  : MIIR_SLOT_FILTER;
}

/* A depthwise result r [n,h,w,(g m)] as the 5-D tensor of `layout`, whose channel letter (m's)
 * is `chan`. Where the layout has g right before m (NGKHW, NHWGK) it is r transposed to the
 * layout's order with g and m merged (an output view of the convolution) and reshaped; else
 * reshaped and transposed. */
static gv depthwise_result(gb *b, const gv *r, const char *layout, int64_t m, char chan) {
  const char *gk = strchr(layout, 'g');
  char mc = gk && gk[1] ? gk[1] : 0, l4[8];
  if (mc != chan && m == 1) { /* m a unit dimension: r (NHWG) transposed to the layout's order
                                 without it (an output view), then given it (a reshape) */
    for (int i = 0, q = 0; i < 5; i++)
      if (layout[i] != chan)
        l4[q++] = layout[i];
    l4[4] = 0;
    gv named = *r;
    snprintf(named.letters, sizeof named.letters, "nhwg");
    gv t = transpose(b, &named, l4);
    int64_t s5[6];
    for (int i = 0, q = 0; i < 5; i++)
      s5[i] = layout[i] == chan ? 1 : t.shape[q++];
    return reshape(b, &t, 5, s5, layout);
  }
  if (mc != chan) {
    int64_t s5[6] = {r->shape[0], r->shape[1], r->shape[2], r->shape[3] / m, m};
    char l5[8] = {'n', 'h', 'w', 'g', chan, 0};
    return reshape(b, r, 5, s5, l5); /* the caller transposes it to the layout */
  }
  for (int i = 0, q = 0; i < 5; i++)
    if (layout[i] != 'g')
      l4[q++] = layout[i];
  l4[4] = 0;
  gv named = *r;
  snprintf(named.letters, sizeof named.letters, "nhw%c", mc);
  gv t = transpose(b, &named, l4);
  int64_t s5[6]; /* t's merged dimension splits into g and m */
  for (int i = 0, q = 0; i < 5; i++)
    s5[i] = layout[i] == 'g' ? r->shape[3] / m : layout[i] == mc ? m : t.shape[q], q += layout[i] != 'g';
  return reshape(b, &t, 5, s5, layout);
}

/* Forward with one input channel per group (depthwise, channel multiplier K/G): one
 * depthwise_conv2d instead of a convolution per group. x [n,g,1,h,w] (any order), w
 * [g,m,1,y,x] -> y [n,g,m,ho,wo]. */
static gv forward_depthwise(gb *b, const miir_problem *p, const gv *x5, const gv *w5) {
  gv x = drop_dim(b, x5, 'c', "gc"); /* the group is the channel */
  x = transpose(b, &x, "nhwc");
  gv w = drop_dim(b, w5, 'c', "gc");
  w = transpose(b, &w, "yxck");
  int64_t keep_h, keep_w;
  int64_t pb = fit_pad(x.shape[1], p->pad_t, p->pad_b, p->y, p->dil_h, p->stride_h, p->ho, &keep_h);
  int64_t pr = fit_pad(x.shape[2], p->pad_l, p->pad_r, p->x, p->dil_w, p->stride_w, p->wo, &keep_w);
  gv xc = crop_hw(b, &x, keep_h, keep_w);
  int64_t pad[4] = {p->pad_t, pb, p->pad_l, pr}, stride[2] = {p->stride_h, p->stride_w},
          dil[2] = {p->dil_h, p->dil_w};
  gv r = depthwise_conv2d(b, &xc, &w, pad, stride, dil);
  return depthwise_result(b, &r, p->out_layout, p->k / p->groups, 'k');
}

/* Data x5 [n,g,chan,h,w] (any order; m channels per group) as [n,h,w,(g m)]: where g sits right
 * before chan the two merge (a reshape) and one transpose brings it to NHWC (an operand view);
 * with m = 1 chan is a unit dimension, dropped; else a transpose (a copy) brings them together. */
static gv depthwise_data(gb *b, const gv *x5, char chan) {
  const char *gp = strchr(x5->letters, 'g');
  gv x;
  if (gp[1] == chan) {
    int64_t s4[4];
    char l4[8];
    for (int i = 0, q = 0; i < 5; i++) {
      if (x5->letters[i] == chan)
        continue;
      s4[q] = x5->shape[i] * (x5->letters[i] == 'g' ? x5->shape[i + 1] : 1);
      l4[q++] = x5->letters[i] == 'g' ? 'c' : x5->letters[i];
    }
    l4[4] = 0;
    x = reshape(b, x5, 4, s4, l4);
  } else if (x5->shape[strchr(x5->letters, chan) - x5->letters] == 1) {
    x = drop_dim(b, x5, chan, "gc");
  } else {
    char l5[8] = {'n', 'g', chan, 'h', 'w', 0};
    gv t = transpose(b, x5, l5);
    return depthwise_data(b, &t, chan);
  }
  return transpose(b, &x, "nhwc");
}

/* Backward data with one channel per group on one side, by one transposed depthwise_conv2d
 * (tosac's extension: `out_pad` in place of `pad`, transpose_conv2d's geometry) with the filter
 * as [y,x,g,m]. One input channel per group (depthwise, multiplier m = K/G): dy [n,g,m,ho,wo]
 * -> dx [n,g,1,hi,wi], each dx channel summing its m dy channels; one output channel per group
 * (m = C/G): dy [n,g,1,ho,wo] -> dx [n,g,m,hi,wi], each dx channel from its group's dy channel.
 * dy and the filter are read through strides and dx written through them (operand and output
 * views): no upsampled dy, no flipped filter, no workspace. */
static gv bwd_data_depthwise(gb *b, const miir_problem *p, const gv *dy5, const gv *w5) {
  bool one_in = p->c == p->groups;
  gv dy = depthwise_data(b, dy5, 'k');
  gv w = one_in ? drop_dim(b, w5, 'c', "gc") : drop_dim(b, w5, 'k', "gcck");
  w = transpose(b, &w, "yxck");
  int64_t span_h = (p->y - 1) * p->dil_h + 1, span_w = (p->x - 1) * p->dil_w + 1;
  int64_t out_pad[4] = {-p->pad_t, p->hi - (p->ho - 1) * p->stride_h - span_h + p->pad_t, -p->pad_l,
                        p->wi - (p->wo - 1) * p->stride_w - span_w + p->pad_l};
  gv r = conv_result(b, &dy, &w, "nhwc");
  r.shape[1] = p->hi, r.shape[2] = p->wi, r.shape[3] = p->c;
  char attrs[256];
  snprintf(attrs, sizeof attrs,
           "dilation = array<i64: %lld, %lld>, out_pad = array<i64: %lld, %lld, %lld, %lld>, "
           "stride = array<i64: %lld, %lld>",
           (long long)p->dil_h, (long long)p->dil_w, (long long)out_pad[0], (long long)out_pad[1],
           (long long)out_pad[2], (long long)out_pad[3], (long long)p->stride_h,
           (long long)p->stride_w);
  conv_op(b, "tosa.depthwise_conv2d", &dy, &w, &r, attrs);
  return depthwise_result(b, &r, p->in_layout, p->c / p->groups, 'c');
}

/* Does g sit right before `chan` in a 5-letter layout? */
static bool g_before(const char *layout, char chan) {
  const char *g = strchr(layout, 'g');
  return g && g[1] == chan;
}

/* x5 with g merged into the channel `chan` right after it (a reshape), brought to the order
 * `want` (4 letters, the merged dimension named chan): an operand view of the convolution. */
static gv merge_groups(gb *b, const gv *x5, char chan, const char *want) {
  int64_t s4[4];
  char l4[8];
  for (int i = 0, q = 0; i < 5; i++) {
    if (x5->letters[i] == chan)
      continue;
    bool g = x5->letters[i] == 'g';
    s4[q] = x5->shape[i] * (g ? x5->shape[i + 1] : 1);
    l4[q++] = g ? chan : x5->letters[i];
  }
  l4[4] = 0;
  gv x = reshape(b, x5, 4, s4, l4);
  return transpose(b, &x, want);
}

/* A grouped result r (4 letters, its channel `chan` holding the groups' runs) as the 5-D tensor
 * of `layout`, g right before chan: r transposed to the layout's order without g (an output view
 * of the convolution), then g split off (a reshape). */
static gv unmerge_groups(gb *b, const gv *r, const char *layout, int64_t groups, char chan) {
  char l4[8];
  for (int i = 0, q = 0; i < 5; i++)
    if (layout[i] != 'g')
      l4[q++] = layout[i];
  l4[4] = 0;
  gv t = transpose(b, r, l4);
  int64_t s5[6];
  for (int i = 0, q = 0; i < 5; i++)
    s5[i] = layout[i] == 'g' ? groups : t.shape[q++] / (layout[i] == chan ? groups : 1);
  return reshape(b, &t, 5, s5, layout);
}

/* Can the groups be one convolution op (tosac's group extension)? Every tensor's g right before
 * its split channel (the layouts MIOpen and rocMLIR use, with and without G): each merges with
 * it by a reshape, no data moves. */
static bool one_grouped_op(const miir_problem *p) {
  return p->groups > 1 && g_before(p->in_layout, 'c') && g_before(p->out_layout, 'k') &&
         g_before(p->fil_layout, 'k');
}

/* All groups as one convolution: forward conv2d with `groups` (x [n,h,w,(g c)], w
 * [(g k),y,x,c]), backward data transpose_conv2d with `groups` (dy [n,h,w,(g k)], the filter
 * as [c,y,x,(g k)]), backward weight conv2d with `batch_groups` (x [(g c),h,w,n], dy
 * [(g k),h,w,n] -> [c,y,x,(g k)]). The merged tensors are reshapes and transposes the kernel
 * reads and writes through strides. */
static gv grouped(gb *b, const miir_problem *p, const gv *a0, const gv *a1, const char *et) {
  b->groups = p->groups, b->batch_groups = p->op == MIIR_BWD_WEIGHT;
  gv r;
  const char *layout;
  char chan;
  if (p->op == MIIR_FWD) {
    gv x = merge_groups(b, a1, 'c', "nhwc"), w = merge_groups(b, a0, 'k', "kyxc");
    r = forward_group(b, p, &x, &w), layout = p->out_layout, chan = 'k';
  } else if (p->op == MIIR_BWD_DATA) {
    gv dy = merge_groups(b, a1, 'k', "nhwk"), w = merge_groups(b, a0, 'k', "cyxk");
    r = bwd_data_group(b, p, &dy, &w), layout = p->in_layout, chan = 'c';
  } else {
    gv x = merge_groups(b, a0, 'c', "chwn"), dy = merge_groups(b, a1, 'k', "khwn");
    r = bwd_weight_group(b, p, &x, &dy), layout = p->fil_layout, chan = 'k';
  }
  b->groups = 1;
  r = cast(b, &r, et);
  return unmerge_groups(b, &r, layout, p->groups, chan);
}

char *miir_graph(const miir_problem *p) {
  char *text = NULL;
  size_t len = 0;
  gb b = {.f = open_memstream(&text, &len), .next = 2, .groups = 1};
  dims d = {p->groups, p->n, p->c / p->groups, p->k / p->groups, p->hi, p->wi, p->ho, p->wo,
            p->y,      p->x};
  gv fil = argument(0, &d, 'f', p->fil_layout, p->fil_type);
  gv in = argument(0, &d, 'i', p->in_layout, p->in_type);
  gv out = argument(0, &d, 'o', p->out_layout, p->out_type);
  gv args[2] = {p->op == MIIR_BWD_WEIGHT ? in : fil, p->op == MIIR_FWD ? in : out};
  gv res = p->op == MIIR_FWD ? out : p->op == MIIR_BWD_DATA ? in : fil;
  args[1].id = 1;
  res.id = -1;
  char t0[128], t1[128], tr[128];
  tensor_type(t0, sizeof t0, &args[0]);
  tensor_type(t1, sizeof t1, &args[1]);
  tensor_type(tr, sizeof tr, &res);
  fprintf(b.f, "func.func @main(%%v0: %s, %%v1: %s) -> %s {\n", t0, t1, tr);
  int groups = p->groups;
  gv *ga = malloc(sizeof *ga * (size_t)groups * 3), *gw = ga + groups, *gr = gw + groups;
  const char *res_letters;
  /* depthwise_conv2d has no 8-bit float kernel: those take the per-group GEMMs */
  bool depthwise_fwd = p->op == MIIR_FWD && groups > 1 && p->c == groups && strncmp(p->in_type, "f8", 2);
  bool depthwise_bwd = p->op == MIIR_BWD_DATA && groups > 1 && (p->c == groups || p->k == groups);
  if (depthwise_fwd || depthwise_bwd) {
    gv r = depthwise_fwd ? forward_depthwise(&b, p, &args[1], &args[0])
                         : bwd_data_depthwise(&b, p, &args[1], &args[0]);
    r = cast(&b, &r, res.et);
    r = transpose(&b, &r, depthwise_fwd ? p->out_layout : p->in_layout);
    fprintf(b.f, "  return %%v%d : %s\n}\n", r.id, tr);
    free(ga);
    fclose(b.f);
    return text;
  }
  if (one_grouped_op(p)) {
    gv r = grouped(&b, p, &args[0], &args[1], res.et);
    fprintf(b.f, "  return %%v%d : %s\n}\n", r.id, tr);
    free(ga);
    fclose(b.f);
    return text;
  }
  if (p->op == MIIR_FWD) {
    split_groups(&b, &args[1], "nhwc", ga);
    split_groups(&b, &args[0], "kyxc", gw);
    for (int g = 0; g < groups; g++)
      gr[g] = forward_group(&b, p, &ga[g], &gw[g]);
    res_letters = p->out_layout;
  } else if (p->op == MIIR_BWD_DATA) {
    split_groups(&b, &args[1], "nhwk", ga);
    split_groups(&b, &args[0], "cyxk", gw);
    for (int g = 0; g < groups; g++)
      gr[g] = bwd_data_group(&b, p, &ga[g], &gw[g]);
    res_letters = p->in_layout;
  } else {
    split_groups(&b, &args[0], "chwn", ga);
    split_groups(&b, &args[1], "khwn", gw);
    for (int g = 0; g < groups; g++)
      gr[g] = bwd_weight_group(&b, p, &ga[g], &gw[g]);
    res_letters = p->fil_layout;
  }
  for (int g = 0; g < groups; g++)
    gr[g] = cast(&b, &gr[g], res.et);
  gv r = join_groups(&b, gr, groups, res_letters);
  fprintf(b.f, "  return %%v%d : %s\n}\n", r.id, tr);
  free(ga);
  fclose(b.f);
  return text;
}
