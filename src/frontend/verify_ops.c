/* verify_ops.c: the TOSA specification's type and shape rules for matmul, convolutions,
 * pooling, reductions, data movement, rescale/table and the remaining elementwise ops. Runs on
 * the canonical form (docs/graph.md), so every shape argument is already an attribute. */
#include "frontend/frontend.h"

#include <string.h>

#define M FE_M
#define DATA_TYPES (FE_M(ET_I1) | FE_INTS | FE_FLOATS | FE_F8 | FE_M(ET_I64))
#define SHIFT_TYPES FE_INTS

static const char *op_name(const op *o) { return op_table[o->kind].name; }
static const tensor_type *in_type(const fe_opctx *c, int i) { return c->o->operands[i]->type; }

static const attr *ints_attr(const fe_opctx *c, const char *name) {
  const attr *a = op_attr(c->o, name);
  return a && a->kind == ATTR_INTS ? a : NULL;
}

static bool need_rank(fe_parser *p, const fe_opctx *c, int i, int rank, const char *what) {
  const tensor_type *t = in_type(c, i);
  if (t->rank == rank) return true;
  char tb[160];
  return fe_error(p, c->operand_locs[i], "'%s' %s must have rank %d, found %s", op_name(c->o), what, rank,
                  fe_type_str(t, tb, sizeof tb));
}

static bool need_len(fe_parser *p, const fe_opctx *c, const char *name, int n) {
  const attr *a = ints_attr(c, name);
  if (!a) return fe_error(p, c->name_loc, "'%s' requires the integer list '%s'", op_name(c->o), name);
  if (a->n != n)
    return fe_error(p, a->loc, "'%s' %s must have %d elements, found %d", op_name(c->o), name, n, a->n);
  return true;
}

/* Every element of list `name` is >= lo. */
static bool need_min(fe_parser *p, const fe_opctx *c, const char *name, int64_t lo) {
  const attr *a = ints_attr(c, name);
  for (int i = 0; a && i < a->n; i++)
    if (a->ints[i] < lo)
      return fe_error(p, a->loc, "'%s' %s[%d] must be at least %lld, found %lld", op_name(c->o), name, i, (long long)lo,
                      (long long)a->ints[i]);
  return true;
}

static bool need_axis(fe_parser *p, const fe_opctx *c, int rank, int64_t *axis) {
  const attr *a = op_attr(c->o, "axis");
  *axis = a ? a->i : 0;
  if (*axis < 0 || *axis >= rank)
    return fe_error(p, a ? a->loc : c->name_loc, "'%s' axis %lld is out of range for rank %d", op_name(c->o),
                    (long long)*axis, rank);
  return true;
}

/* Zero point `name` must be 0 unless the tensor it applies to is 8-bit (TOSA ERROR_IF). */
static bool zp_zero_unless_i8(fe_parser *p, const fe_opctx *c, const char *name, elem_type et) {
  const attr *a = op_attr(c->o, name);
  if (!a || et == ET_I8) return true;
  bool nz = a->kind == ATTR_FLOAT ? a->f != 0 : a->i != 0;
  if (nz)
    return fe_error(p, a->loc, "'%s' %s must be 0 for %s tensors", op_name(c->o), name, elem_type_name(et));
  return true;
}

/* ---------------------------------------------------------------- elementwise extras */
static bool v_float_unary(fe_parser *p, fe_opctx *c) { return fe_same_typed(p, c, FE_FLOATS, ET_INVALID); }
static bool v_i32(fe_parser *p, fe_opctx *c) { return fe_same_typed(p, c, M(ET_I32), ET_INVALID); }
static bool v_bitwise(fe_parser *p, fe_opctx *c) { return fe_same_typed(p, c, FE_INTS, ET_INVALID); }
static bool v_logical(fe_parser *p, fe_opctx *c) { return fe_same_typed(p, c, M(ET_I1), ET_I1); }

static bool v_rescale(fe_parser *p, fe_opctx *c) {
  elem_type in = in_type(c, 0)->elem, out = c->declared.elem;
  if (!fe_check_elem(p, c, 0, FE_INTS | M(ET_I48)) ) return false;
  if (!(FE_INTS & M(out)))
    return fe_error(p, c->name_loc, "'tosa.rescale' cannot produce element type %s; expected i8, i16, i32",
                    elem_type_name(out));
  const attr *mul = ints_attr(c, "multiplier"), *sh = ints_attr(c, "shift");
  const attr *pc = op_attr(c->o, "per_channel"), *s32 = op_attr(c->o, "scale32");
  const tensor_type *t = in_type(c, 0);
  if (!mul || !sh) return fe_error(p, c->name_loc, "'tosa.rescale' requires multiplier and shift");
  int64_t want = pc && pc->i ? (t->rank ? t->dims[t->rank - 1] : 1) : 1;
  if (mul->n != want)
    return fe_error(p, mul->loc, "'tosa.rescale' multiplier has %d values, expected %lld (%s)", mul->n, (long long)want,
                    pc && pc->i ? "one per channel of the last dimension" : "per_channel is false");
  if (sh->n != want)
    return fe_error(p, sh->loc, "'tosa.rescale' shift has %d values, expected %lld", sh->n, (long long)want);
  for (int i = 0; i < sh->n; i++)
    if (sh->ints[i] < 2 || sh->ints[i] > 62)
      return fe_error(p, sh->loc, "'tosa.rescale' shift[%d] must be in [2, 62], found %lld", i, (long long)sh->ints[i]);
  bool wide = !s32 || s32->i;
  for (int i = 0; i < mul->n; i++) {
    int64_t m = mul->ints[i];
    if (wide ? (m < INT32_MIN || m > INT32_MAX) : (m < -32768 || m > 32767))
      return fe_error(p, mul->loc, "'tosa.rescale' multiplier[%d] = %lld does not fit in %s (scale32 = %s)", i,
                      (long long)m, wide ? "i32" : "i16", wide ? "true" : "false");
  }
  const attr *iu = op_attr(c->o, "input_unsigned"), *ou = op_attr(c->o, "output_unsigned");
  const attr *izp = op_attr(c->o, "input_zp"), *ozp = op_attr(c->o, "output_zp");
  if (izp && izp->i != 0 && !(in == ET_I8 || (in == ET_I16 && iu && iu->i)))
    return fe_error(p, izp->loc, "'tosa.rescale' input_zp must be 0 for %s input, found %lld", elem_type_name(in),
                    (long long)izp->i);
  if (ozp && ozp->i != 0 && !(out == ET_I8 || (out == ET_I16 && ou && ou->i)))
    return fe_error(p, ozp->loc, "'tosa.rescale' output_zp must be 0 for %s output, found %lld", elem_type_name(out),
                    (long long)ozp->i);
  /* an unsigned i16 side's zero point is 0 or 32768 (upstream's rule; read from ui16 bits) */
  if (in == ET_I16 && iu && iu->i && izp && izp->i != 0 && (izp->i & 0xffff) != 0x8000)
    return fe_error(p, izp->loc, "'tosa.rescale' input_zp must be 0 or 32768 for an unsigned i16 input, found %lld",
                    (long long)izp->i);
  if (out == ET_I16 && ou && ou->i && ozp && ozp->i != 0 && (ozp->i & 0xffff) != 0x8000)
    return fe_error(p, ozp->loc, "'tosa.rescale' output_zp must be 0 or 32768 for an unsigned i16 output, found %lld",
                    (long long)ozp->i);
  tensor_type r = *t;
  r.elem = out;
  return fe_check_result(p, c, &r);
}

static bool v_table(fe_parser *p, fe_opctx *c) {
  if (!fe_check_elem(p, c, 0, M(ET_I8) | M(ET_I16))) return false;
  elem_type in = in_type(c, 0)->elem;
  const tensor_type *tb = in_type(c, 1);
  int64_t n = in == ET_I8 ? 256 : 513;
  if (tb->rank != 1 || tb->dims[0] != n || tb->elem != in) {
    char b[160];
    return fe_error(p, c->operand_locs[1], "'tosa.table' table for %s input must be tensor<%lldx%s>, found %s",
                    elem_type_name(in), (long long)n, elem_type_name(in), fe_type_str(tb, b, sizeof b));
  }
  tensor_type r = *in_type(c, 0);
  r.elem = in == ET_I8 ? ET_I8 : ET_I32;
  return fe_check_result(p, c, &r);
}

/* ---------------------------------------------------------------- matmul and convolutions */
/* Result element type of an integer or float GEMM-like op from its input type. */
static bool gemm_result_ok(elem_type in, elem_type out) {
  switch (in) {
  case ET_I8: return out == ET_I32;
  case ET_I16: return out == ET_I48;
  case ET_F16: return out == ET_F16 || out == ET_F32;
  case ET_BF16: return out == ET_F32 || out == ET_BF16;
  case ET_F32: return out == ET_F32;
  case ET_F8E4M3FN:
  case ET_F8E5M2:
  case ET_F8E4M3FNUZ:
  case ET_F8E5M2FNUZ: return out == ET_F16 || out == ET_F32;
  default: return false;
  }
}

/* Integer matmul results upstream's verifier takes beyond TOSA 1.0's (i8 -> i16, i16 -> i32,
 * i32 -> i32 ...): the sum wraps in the result type, as its linalg lowering computes it. */
static bool int_matmul_wraps(const fe_opctx *c, elem_type a, elem_type out) {
  unsigned ok = M(ET_I8) | M(ET_I16) | M(ET_I32) | M(ET_I48) | M(ET_I64);
  return c->o->kind == OP_MATMUL && (M(a) & FE_INTS) && (M(out) & ok);
}

static bool gemm_types(fe_parser *p, fe_opctx *c, const char *wname) {
  unsigned in_ok = M(ET_I8) | M(ET_I16) | FE_FLOATS | FE_F8;
  if (c->o->kind == OP_MATMUL ? !fe_check_elem_upstream(p, c, 0, in_ok, M(ET_I32)) : !fe_check_elem(p, c, 0, in_ok))
    return false;
  elem_type a = in_type(c, 0)->elem, b = in_type(c, 1)->elem;
  bool w_ok = a == b || (a == ET_I8 && b == ET_I4) || (a == ET_I16 && b == ET_I8) ||
              ((M(a) & FE_F8) && (M(b) & FE_F8));
  if (!w_ok)
    return fe_error(p, c->operand_locs[1], "'%s' %s element type %s does not match the input's %s", op_name(c->o), wname,
                    elem_type_name(b), elem_type_name(a));
  elem_type out = c->declared.elem;
  if (!gemm_result_ok(a, out) && !int_matmul_wraps(c, a, out))
    return fe_error(p, c->name_loc, "'%s' with %s inputs cannot produce %s", op_name(c->o), elem_type_name(a),
                    elem_type_name(out));
  /* i32 inputs were reported as outside the profiles already */
  if (!gemm_result_ok(a, out) && a != ET_I32 &&
      !fe_profile_rule(p, c->name_loc, "'%s' with %s inputs producing %s is outside the TOSA 1.0 profiles",
                       op_name(c->o), elem_type_name(a), elem_type_name(out)))
    return false;
  const attr *acc = op_attr(c->o, "acc_type");
  if (acc) {
    elem_type t = acc->kind == ATTR_TYPE ? acc->type_elem : ET_INVALID;
    bool ok = a == ET_I8 ? t == ET_I32 : a == ET_I16 ? t == ET_I48 : a == ET_F16 ? (t == ET_F16 || t == ET_F32)
            : (a == ET_BF16 || a == ET_F32) ? t == ET_F32 : t == ET_F16;
    if (!ok)
      return fe_error(p, acc->loc, "'%s' acc_type %s is not allowed for %s inputs (TOSA 1.0: i8 -> i32, i16 -> i48, f16 -> f16 or f32, bf16/f32 -> f32, f8 -> f16)",
                      op_name(c->o), t ? elem_type_name(t) : "?", elem_type_name(a));
  }
  return true;
}

static bool v_matmul(fe_parser *p, fe_opctx *c) {
  if (!need_rank(p, c, 0, 3, "A") || !need_rank(p, c, 1, 3, "B") || !gemm_types(p, c, "B")) return false;
  const tensor_type *a = in_type(c, 0), *b = in_type(c, 1);
  if (a->dims[0] != b->dims[0] || a->dims[2] != b->dims[1]) {
    char x[160], y[160];
    return fe_error(p, c->operand_locs[1], "'tosa.matmul' shapes %s and %s do not multiply (need [N,H,C] x [N,C,W])",
                    fe_type_str(a, x, sizeof x), fe_type_str(b, y, sizeof y));
  }
  if (!zp_zero_unless_i8(p, c, "a_zp", a->elem) || !zp_zero_unless_i8(p, c, "b_zp", b->elem)) return false;
  tensor_type r = {.elem = c->declared.elem, .rank = 3, .dims = {a->dims[0], a->dims[1], b->dims[2]}};
  return fe_check_result(p, c, &r);
}

static bool check_bias(fe_parser *p, fe_opctx *c, int64_t oc) {
  const tensor_type *b = in_type(c, 2);
  if (b->rank == 1 && (b->dims[0] == oc || b->dims[0] == 1)) return true;
  char x[160];
  return fe_error(p, c->operand_locs[2], "'%s' bias must be tensor<%lldx...> or tensor<1x...>, found %s", op_name(c->o),
                  (long long)oc, fe_type_str(b, x, sizeof x));
}

static bool v_fully_connected(fe_parser *p, fe_opctx *c) {
  if (!need_rank(p, c, 0, 2, "input") || !need_rank(p, c, 1, 2, "weight") || !gemm_types(p, c, "weight")) return false;
  const tensor_type *x = in_type(c, 0), *w = in_type(c, 1);
  if (x->dims[1] != w->dims[1])
    return fe_error(p, c->operand_locs[1], "'tosa.fully_connected' weight has %lld input channels, the input %lld",
                    (long long)w->dims[1], (long long)x->dims[1]);
  if (!check_bias(p, c, w->dims[0])) return false;
  tensor_type r = {.elem = c->declared.elem, .rank = 2, .dims = {x->dims[0], w->dims[0]}};
  return fe_check_result(p, c, &r);
}

/* One spatial output size: (in - 1 + pads - (k - 1) * d) / s + 1, exactly divisible. */
static bool conv_out(fe_parser *p, const fe_opctx *c, int i, int64_t in, int64_t pb, int64_t pa, int64_t kext, int64_t s,
                     int64_t *out) {
  int64_t num = in - 1 + pb + pa - (kext - 1);
  const attr *st = op_attr(c->o, "stride");
  if (num < 0)
    return fe_error(p, c->name_loc, "'%s' window (extent %lld) is larger than the padded input (%lld) in spatial dimension %d",
                    op_name(c->o), (long long)kext, (long long)(in + pb + pa), i);
  if (num % s)
    return fe_error(p, st ? st->loc : c->name_loc,
                    "'%s' spatial dimension %d: (in - 1 + pad - (kernel - 1) * dilation) = %lld is not divisible by stride %lld",
                    op_name(c->o), i, (long long)num, (long long)s);
  *out = num / s + 1;
  return true;
}

/* tosac's group extensions (docs/graph.md): `groups` G on conv2d (G convolutions of IC/G input
 * and OC/G output channels, the weight [OC, KH, KW, IC/G]) and transpose_conv2d (the transpose
 * of that: weight [OC/G, KH, KW, IC], the result OC = G x the weight's channels), `batch_groups`
 * G on conv2d (output channel group g convolves input images g*N/G..., the result
 * [N/G, OH, OW, OC]: backward weight of a grouped convolution). `chans` (what) must divide into
 * the groups. *fg, *bg: the two G (1 without). */
static bool conv_groups(fe_parser *p, const fe_opctx *c, int64_t n, int64_t chans, const char *what, int64_t *fg,
                        int64_t *bg) {
  const attr *ga = op_attr(c->o, "groups"), *ba = op_attr(c->o, "batch_groups");
  op_kind k = c->o->kind;
  *fg = *bg = 1;
  if (!ga && !ba) return true;
  if ((k != OP_CONV2D && k != OP_TRANSPOSE_CONV2D) || (ba && k != OP_CONV2D))
    return fe_error(p, (ba ? ba : ga)->loc, "'%s' takes no %s (tosac's extension of conv2d%s)", op_name(c->o),
                    ba ? "batch_groups" : "groups", ba ? "" : " and transpose_conv2d");
  if (ga && ba) return fe_error(p, ba->loc, "'%s' takes groups or batch_groups, not both", op_name(c->o));
  const attr *a = ga ? ga : ba;
  const char *name = ga ? "groups" : "batch_groups";
  if (a->kind != ATTR_INT) return fe_error(p, a->loc, "'%s' %s must be an integer", op_name(c->o), name);
  if (a->i < 1)
    return fe_error(p, a->loc, "'%s' %s must be at least 1, found %lld", op_name(c->o), name, (long long)a->i);
  if (chans % a->i)
    return fe_error(p, a->loc, "'%s' %lld %s do not divide into %lld %s", op_name(c->o), (long long)chans, what,
                    (long long)a->i, name);
  if (ba && n % a->i)
    return fe_error(p, a->loc, "'%s' batch %lld does not divide into %lld batch_groups", op_name(c->o), (long long)n,
                    (long long)a->i);
  *(ga ? fg : bg) = a->i;
  return true;
}

/* tosac's extension: a depthwise_conv2d with `out_pad` in place of `pad` is a transposed
 * depthwise convolution (backward data of a grouped layer with one channel per group on one
 * side, docs/miopen.md), with tosac's transpose_conv2d geometry: input element x[iy, ix, .]
 * reaches out[iy * stride + ky * dilation + out_pad_top, ...] through tap (ky, kx). Weight
 * [KH, KW, C, M]; the input has C*M channels and the result C (the transpose of depthwise_conv2d:
 * result channel c sums input channels c*M + m), or the input C and the result C*M (result
 * channel c*M + m from input channel c). */
static bool v_depthwise_transposed(fe_parser *p, fe_opctx *c) {
  if (!need_rank(p, c, 0, 4, "input") || !need_rank(p, c, 1, 4, "weight") || !gemm_types(p, c, "weight")) return false;
  if (!need_len(p, c, "out_pad", 4) || !need_len(p, c, "stride", 2) || !need_len(p, c, "dilation", 2)) return false;
  if (!need_min(p, c, "stride", 1) || !need_min(p, c, "dilation", 1)) return false;
  const tensor_type *x = in_type(c, 0), *w = in_type(c, 1);
  const int64_t *op_ = ints_attr(c, "out_pad")->ints, *st = ints_attr(c, "stride")->ints;
  const int64_t *dil = ints_attr(c, "dilation")->ints;
  int64_t cm = w->dims[2] * w->dims[3], fg, bg;
  if (!conv_groups(p, c, x->dims[0], cm, "channels", &fg, &bg)) return false; /* none: an error if given */
  if (x->dims[3] != cm && x->dims[3] != w->dims[2])
    return fe_error(p, c->operand_locs[1], "'tosa.depthwise_conv2d' (transposed) weight has %lld x %lld channels, the input %lld",
                    (long long)w->dims[2], (long long)w->dims[3], (long long)x->dims[3]);
  int64_t oc = x->dims[3] == cm ? w->dims[2] : cm;
  if (!check_bias(p, c, oc)) return false;
  if (!zp_zero_unless_i8(p, c, "input_zp", x->elem) || !zp_zero_unless_i8(p, c, "weight_zp", w->elem)) return false;
  tensor_type r = {.elem = c->declared.elem, .rank = 4, .dims = {x->dims[0], 0, 0, oc}};
  for (int i = 0; i < 2; i++) {
    r.dims[1 + i] = (x->dims[1 + i] - 1) * st[i] + op_[2 * i] + op_[2 * i + 1] + (w->dims[i] - 1) * dil[i] + 1;
    if (r.dims[1 + i] < 1)
      return fe_error(p, op_attr(c->o, "out_pad")->loc,
                      "'tosa.depthwise_conv2d' out_pad leaves no output in spatial dimension %d", i);
  }
  return fe_check_result(p, c, &r);
}

static bool v_conv(fe_parser *p, fe_opctx *c) {
  op_kind k = c->o->kind;
  if (k == OP_DEPTHWISE_CONV2D && op_attr(c->o, "out_pad")) return v_depthwise_transposed(p, c);
  int nsp = k == OP_CONV3D ? 3 : 2;
  if (!need_rank(p, c, 0, nsp + 2, "input") || !need_rank(p, c, 1, nsp + 2, "weight")) return false;
  if (!gemm_types(p, c, "weight")) return false;
  if (!need_len(p, c, "pad", 2 * nsp) || !need_len(p, c, "stride", nsp) || !need_len(p, c, "dilation", nsp)) return false;
  if (!need_min(p, c, "pad", 0) || !need_min(p, c, "stride", 1) || !need_min(p, c, "dilation", 1)) return false;
  const tensor_type *x = in_type(c, 0), *w = in_type(c, 1);
  const int64_t *pad = ints_attr(c, "pad")->ints, *st = ints_attr(c, "stride")->ints, *dil = ints_attr(c, "dilation")->ints;
  int64_t ic = x->dims[nsp + 1], oc, wic;
  const int64_t *kd;
  if (k == OP_DEPTHWISE_CONV2D) {
    wic = w->dims[2];
    oc = w->dims[2] * w->dims[3];
    kd = w->dims;
  } else {
    wic = w->dims[nsp + 1];
    oc = w->dims[0];
    kd = w->dims + 1;
  }
  int64_t fg, bg;
  if (!conv_groups(p, c, x->dims[0], oc, "output channels", &fg, &bg)) return false;
  if (wic * fg != ic)
    return fe_error(p, c->operand_locs[1], "'%s' weight has %lld input channels, the input %lld%s", op_name(c->o),
                    (long long)wic, (long long)ic, fg > 1 ? " (groups: the weight's times the groups)" : "");
  if (!check_bias(p, c, oc)) return false;
  if (!zp_zero_unless_i8(p, c, "input_zp", x->elem) || !zp_zero_unless_i8(p, c, "weight_zp", w->elem)) return false;
  tensor_type r = {.elem = c->declared.elem, .rank = nsp + 2};
  r.dims[0] = x->dims[0] / bg;
  r.dims[nsp + 1] = oc;
  for (int i = 0; i < nsp; i++)
    if (!conv_out(p, c, i, x->dims[1 + i], pad[2 * i], pad[2 * i + 1], (kd[i] - 1) * dil[i] + 1, st[i], &r.dims[1 + i]))
      return false;
  return fe_check_result(p, c, &r);
}

/* tosac's extension `dilation` (backward data of a dilated convolution, docs/miopen.md): the
 * kernel taps dilation apart, and out_pad free to crop the whole span of a tap (padding of the
 * filter's size or more) as long as an output remains. */
static bool v_transpose_conv(fe_parser *p, fe_opctx *c) {
  if (!need_rank(p, c, 0, 4, "input") || !need_rank(p, c, 1, 4, "weight") || !gemm_types(p, c, "weight")) return false;
  if (!need_len(p, c, "out_pad", 4) || !need_len(p, c, "stride", 2) || !need_min(p, c, "stride", 1)) return false;
  const attr *da = op_attr(c->o, "dilation");
  if (da && (!need_len(p, c, "dilation", 2) || !need_min(p, c, "dilation", 1))) return false;
  const tensor_type *x = in_type(c, 0), *w = in_type(c, 1);
  const int64_t *op_ = ints_attr(c, "out_pad")->ints, *st = ints_attr(c, "stride")->ints;
  const int64_t *dil = da ? ints_attr(c, "dilation")->ints : (const int64_t[]){1, 1};
  int64_t fg, bg;
  if (!conv_groups(p, c, x->dims[0], x->dims[3], "input channels", &fg, &bg)) return false;
  if (w->dims[3] != x->dims[3])
    return fe_error(p, c->operand_locs[1], "'tosa.transpose_conv2d' weight has %lld input channels, the input %lld",
                    (long long)w->dims[3], (long long)x->dims[3]);
  if (!check_bias(p, c, w->dims[0] * fg)) return false;
  tensor_type r = {.elem = c->declared.elem, .rank = 4, .dims = {x->dims[0], 0, 0, w->dims[0] * fg}};
  for (int i = 0; i < 2; i++) {
    int64_t kk = (w->dims[1 + i] - 1) * dil[i] + 1;
    r.dims[1 + i] = (x->dims[1 + i] - 1) * st[i] + op_[2 * i] + op_[2 * i + 1] + kk;
    if (!da && (op_[2 * i] <= -kk || op_[2 * i + 1] <= -kk))
      return fe_error(p, op_attr(c->o, "out_pad")->loc, "'tosa.transpose_conv2d' out_pad must be greater than -kernel");
    if (r.dims[1 + i] < 1)
      return fe_error(p, op_attr(c->o, "out_pad")->loc,
                      "'tosa.transpose_conv2d' out_pad leaves no output in spatial dimension %d", i);
  }
  return fe_check_result(p, c, &r);
}

/* ---------------------------------------------------------------- pooling */
static bool v_pool(fe_parser *p, fe_opctx *c) {
  bool avg = c->o->kind == OP_AVG_POOL2D;
  unsigned ok = FE_M(ET_I8) | FE_M(ET_I16) | FE_FLOATS | FE_F8;
  if (!need_rank(p, c, 0, 4, "input") || !fe_check_elem_upstream(p, c, 0, ok, avg ? 0 : FE_M(ET_I32))) return false;
  if (!need_len(p, c, "kernel", 2) || !need_len(p, c, "stride", 2) || !need_len(p, c, "pad", 4)) return false;
  if (!need_min(p, c, "kernel", 1) || !need_min(p, c, "stride", 1) || !need_min(p, c, "pad", 0)) return false;
  const tensor_type *x = in_type(c, 0);
  const int64_t *k = ints_attr(c, "kernel")->ints, *st = ints_attr(c, "stride")->ints, *pad = ints_attr(c, "pad")->ints;
  for (int i = 0; i < 4; i++)
    if (pad[i] >= k[i / 2])
      return fe_error(p, op_attr(c->o, "pad")->loc, "'%s' pad[%d] = %lld must be smaller than the kernel (%lld)",
                      op_name(c->o), i, (long long)pad[i], (long long)k[i / 2]);
  if (avg && (!zp_zero_unless_i8(p, c, "input_zp", x->elem) || !zp_zero_unless_i8(p, c, "output_zp", x->elem)))
    return false;
  tensor_type r = *x;
  for (int i = 0; i < 2; i++)
    if (!conv_out(p, c, i, x->dims[1 + i], pad[2 * i], pad[2 * i + 1], k[i], st[i], &r.dims[1 + i])) return false;
  return fe_check_result(p, c, &r);
}

/* ---------------------------------------------------------------- reductions */
static bool v_reduce(fe_parser *p, fe_opctx *c) {
  op_kind k = c->o->kind;
  unsigned ok = k == OP_REDUCE_ALL || k == OP_REDUCE_ANY ? M(ET_I1)
                : k == OP_REDUCE_SUM || k == OP_REDUCE_PRODUCT ? (FE_FLOATS | M(ET_I32))
                                                               : (FE_FLOATS | FE_INTS);
  if (k == OP_ARGMAX) ok = FE_FLOATS | FE_F8 | M(ET_I8) | M(ET_I16);
  if (!fe_check_elem(p, c, 0, ok)) return false;
  const tensor_type *x = in_type(c, 0);
  int64_t axis;
  if (x->rank < 1) return fe_error(p, c->operand_locs[0], "'%s' input must have rank at least 1", op_name(c->o));
  if (!need_axis(p, c, x->rank, &axis)) return false;
  tensor_type r = *x;
  if (k == OP_ARGMAX) {
    for (int i = (int)axis; i + 1 < r.rank; i++) r.dims[i] = r.dims[i + 1];
    r.rank--;
    r.elem = ET_I32;
  } else {
    r.dims[axis] = 1;
  }
  return fe_check_result(p, c, &r);
}

/* ---------------------------------------------------------------- data movement */
static bool v_transpose(fe_parser *p, fe_opctx *c) {
  if (!fe_check_elem(p, c, 0, DATA_TYPES)) return false;
  const tensor_type *x = in_type(c, 0);
  if (!need_len(p, c, "perms", x->rank)) return false;
  const attr *pa = ints_attr(c, "perms");
  bool seen[TOSAC_MAX_RANK] = {0};
  tensor_type r = *x;
  for (int i = 0; i < x->rank; i++) {
    int64_t v = pa->ints[i];
    if (v < 0 || v >= x->rank || seen[v])
      return fe_error(p, pa->loc, "'tosa.transpose' perms is not a permutation of 0..%d", x->rank - 1);
    seen[v] = true;
    r.dims[i] = x->dims[v];
  }
  return fe_check_result(p, c, &r);
}

static bool v_reshape(fe_parser *p, fe_opctx *c) {
  if (!fe_check_elem(p, c, 0, DATA_TYPES)) return false;
  const attr *ns = ints_attr(c, "new_shape");
  const tensor_type *x = in_type(c, 0);
  if (!ns || ns->n > TOSAC_MAX_RANK)
    return fe_error(p, ns ? ns->loc : c->name_loc, "'tosa.reshape' new_shape must have at most %d elements", TOSAC_MAX_RANK);
  tensor_type r = {.elem = x->elem, .rank = ns->n};
  int64_t numel = 1;
  for (int i = 0; i < ns->n; i++) {
    if (ns->ints[i] < 0)
      return fe_error(p, ns->loc, "'tosa.reshape' new_shape[%d] = %lld is not a static size", i, (long long)ns->ints[i]);
    r.dims[i] = ns->ints[i];
    if (__builtin_mul_overflow(numel, ns->ints[i], &numel)) numel = -1;
  }
  if (numel != tensor_numel(x)) {
    char a[160], b[160];
    return fe_error(p, ns->loc, "'tosa.reshape' from %s to %s changes the element count", fe_type_str(x, a, sizeof a),
                    fe_type_str(&r, b, sizeof b));
  }
  return fe_check_result(p, c, &r);
}

static bool v_slice(fe_parser *p, fe_opctx *c) {
  if (!fe_check_elem(p, c, 0, DATA_TYPES)) return false;
  const tensor_type *x = in_type(c, 0);
  if (!need_len(p, c, "start", x->rank) || !need_len(p, c, "size", x->rank)) return false;
  const attr *st = ints_attr(c, "start"), *sz = ints_attr(c, "size");
  tensor_type r = *x;
  for (int i = 0; i < x->rank; i++) {
    int64_t s = st->ints[i], n = sz->ints[i];
    if (s < 0 || n < 1 || s > x->dims[i] - n)
      return fe_error(p, sz->loc, "'tosa.slice' dimension %d: start %lld and size %lld do not fit in %lld", i, (long long)s,
                      (long long)n, (long long)x->dims[i]);
    r.dims[i] = n;
  }
  return fe_check_result(p, c, &r);
}

static bool v_pad(fe_parser *p, fe_opctx *c) {
  if (!fe_check_elem(p, c, 0, DATA_TYPES)) return false;
  const tensor_type *x = in_type(c, 0);
  if (!need_len(p, c, "padding", 2 * x->rank) || !need_min(p, c, "padding", 0)) return false;
  const attr *pa = ints_attr(c, "padding");
  tensor_type r = *x;
  for (int i = 0; i < x->rank; i++) r.dims[i] += pa->ints[2 * i] + pa->ints[2 * i + 1];
  return fe_check_result(p, c, &r);
}

static bool v_tile(fe_parser *p, fe_opctx *c) {
  if (!fe_check_elem(p, c, 0, DATA_TYPES)) return false;
  const tensor_type *x = in_type(c, 0);
  if (!need_len(p, c, "multiples", x->rank) || !need_min(p, c, "multiples", 1)) return false;
  const attr *m = ints_attr(c, "multiples");
  tensor_type r = *x;
  for (int i = 0; i < x->rank; i++)
    if (__builtin_mul_overflow(r.dims[i], m->ints[i], &r.dims[i]))
      return fe_error(p, m->loc, "'tosa.tile' result dimension %d overflows", i);
  if (!fe_check_size(p, &r, c->name_loc)) return false;
  return fe_check_result(p, c, &r);
}

static bool v_concat(fe_parser *p, fe_opctx *c) {
  const tensor_type *x = in_type(c, 0);
  int64_t axis;
  if (!fe_check_elem(p, c, 0, DATA_TYPES) || !need_axis(p, c, x->rank, &axis)) return false;
  tensor_type r = *x;
  for (int k = 1; k < c->o->noperands; k++) {
    const tensor_type *t = in_type(c, k);
    if (!fe_check_same_elem(p, c, 0, k)) return false;
    bool same = t->rank == x->rank;
    for (int i = 0; same && i < t->rank; i++) same = i == axis || t->dims[i] == x->dims[i];
    if (!same) {
      char a[160], b[160];
      return fe_error(p, c->operand_locs[k], "'tosa.concat' operand %d %s does not match %s outside axis %lld", k,
                      fe_type_str(t, a, sizeof a), fe_type_str(x, b, sizeof b), (long long)axis);
    }
    r.dims[axis] += t->dims[axis];
  }
  return fe_check_result(p, c, &r);
}

static bool v_same_shape(fe_parser *p, fe_opctx *c) {
  const tensor_type *x = in_type(c, 0);
  int64_t axis;
  if (!fe_check_elem(p, c, 0, DATA_TYPES)) return false;
  if (c->o->kind == OP_REVERSE && !need_axis(p, c, x->rank, &axis)) return false;
  return fe_check_result(p, c, x);
}

static bool v_gather(fe_parser *p, fe_opctx *c) {
  if (!need_rank(p, c, 0, 3, "values") || !need_rank(p, c, 1, 2, "indices")) return false;
  if (!fe_check_elem(p, c, 0, DATA_TYPES) || !fe_check_elem(p, c, 1, M(ET_I32) | M(ET_I64))) return false;
  const tensor_type *v = in_type(c, 0), *ix = in_type(c, 1);
  if (ix->dims[0] != v->dims[0])
    return fe_error(p, c->operand_locs[1], "'tosa.gather' indices batch %lld differs from the values batch %lld",
                    (long long)ix->dims[0], (long long)v->dims[0]);
  tensor_type r = {.elem = v->elem, .rank = 3, .dims = {v->dims[0], ix->dims[1], v->dims[2]}};
  return fe_check_result(p, c, &r);
}

static bool v_scatter(fe_parser *p, fe_opctx *c) {
  if (!need_rank(p, c, 0, 3, "values_in") || !need_rank(p, c, 1, 2, "indices") || !need_rank(p, c, 2, 3, "input"))
    return false;
  if (!fe_check_elem(p, c, 0, DATA_TYPES) || !fe_check_elem(p, c, 1, M(ET_I32) | M(ET_I64)) ||
      !fe_check_same_elem(p, c, 0, 2))
    return false;
  const tensor_type *v = in_type(c, 0), *ix = in_type(c, 1), *in = in_type(c, 2);
  if (ix->dims[0] != v->dims[0] || in->dims[0] != v->dims[0] || in->dims[1] != ix->dims[1] || in->dims[2] != v->dims[2] ||
      ix->dims[1] > v->dims[1]) {
    char a[160], b[160], d[160];
    return fe_error(p, c->operand_locs[2], "'tosa.scatter' shapes %s, %s, %s do not fit [N,K,C], [N,W], [N,W,C] with W <= K",
                    fe_type_str(v, a, sizeof a), fe_type_str(ix, b, sizeof b), fe_type_str(in, d, sizeof d));
  }
  return fe_check_result(p, c, v);
}

static bool v_resize(fe_parser *p, fe_opctx *c) {
  if (!need_rank(p, c, 0, 4, "input") || !fe_check_elem(p, c, 0, M(ET_I8) | M(ET_I16) | FE_FLOATS)) return false;
  if (!need_len(p, c, "scale", 4) || !need_len(p, c, "offset", 2) || !need_len(p, c, "border", 2)) return false;
  const attr *sa = ints_attr(c, "scale"), *mode = op_attr(c->o, "mode");
  const int64_t *s = sa->ints, *off = ints_attr(c, "offset")->ints, *bd = ints_attr(c, "border")->ints;
  bool bil = mode && mode->s && !strcmp(mode->s, "BILINEAR");
  if (!mode || !mode->s || (!bil && strcmp(mode->s, "NEAREST_NEIGHBOR")))
    return fe_error(p, mode ? mode->loc : c->name_loc, "'tosa.resize' mode must be NEAREST_NEIGHBOR or BILINEAR");
  const tensor_type *x = in_type(c, 0);
  tensor_type r = *x;
  for (int i = 0; i < 2; i++) {
    if (s[2 * i] <= 0 || s[2 * i + 1] <= 0)
      return fe_error(p, sa->loc, "'tosa.resize' scale numerators and denominators must be positive");
    int64_t num = (x->dims[1 + i] - 1) * s[2 * i] - off[i] + bd[i];
    if (num < 0 || num % s[2 * i + 1])
      return fe_error(p, sa->loc, "'tosa.resize' spatial dimension %d: ((in - 1) * scale_n - offset + border) = %lld is not a non-negative multiple of scale_d %lld",
                      i, (long long)num, (long long)s[2 * i + 1]);
    r.dims[1 + i] = num / s[2 * i + 1] + 1;
  }
  if (x->elem == ET_I8) r.elem = bil ? ET_I32 : ET_I8;
  if (x->elem == ET_I16) r.elem = bil ? ET_I48 : ET_I16;
  return fe_check_result(p, c, &r);
}

static bool v_other(fe_parser *p, fe_opctx *c) {
  (void)p, (void)c;
  return true; /* no kernel family: the regions and results were checked by the parser */
}

static const fe_verify_fn more_rules[OP_COUNT] = {
    [OP_POW] = v_float_unary,
    [OP_SIN] = v_float_unary,
    [OP_COS] = v_float_unary,
    [OP_CLZ] = v_i32,
    [OP_INTDIV] = v_i32,
    [OP_BITWISE_AND] = v_bitwise,
    [OP_BITWISE_OR] = v_bitwise,
    [OP_BITWISE_XOR] = v_bitwise,
    [OP_BITWISE_NOT] = v_bitwise,
    [OP_LOGICAL_LEFT_SHIFT] = v_bitwise,
    [OP_LOGICAL_RIGHT_SHIFT] = v_bitwise,
    [OP_ARITHMETIC_RIGHT_SHIFT] = v_bitwise,
    [OP_LOGICAL_AND] = v_logical,
    [OP_LOGICAL_OR] = v_logical,
    [OP_LOGICAL_XOR] = v_logical,
    [OP_LOGICAL_NOT] = v_logical,
    [OP_RESCALE] = v_rescale,
    [OP_TABLE] = v_table,
    [OP_MATMUL] = v_matmul,
    [OP_FULLY_CONNECTED] = v_fully_connected,
    [OP_CONV2D] = v_conv,
    [OP_DEPTHWISE_CONV2D] = v_conv,
    [OP_CONV3D] = v_conv,
    [OP_TRANSPOSE_CONV2D] = v_transpose_conv,
    [OP_AVG_POOL2D] = v_pool,
    [OP_MAX_POOL2D] = v_pool,
    [OP_REDUCE_SUM] = v_reduce,
    [OP_REDUCE_MAX] = v_reduce,
    [OP_REDUCE_MIN] = v_reduce,
    [OP_REDUCE_PRODUCT] = v_reduce,
    [OP_REDUCE_ALL] = v_reduce,
    [OP_REDUCE_ANY] = v_reduce,
    [OP_ARGMAX] = v_reduce,
    [OP_TRANSPOSE] = v_transpose,
    [OP_RESHAPE] = v_reshape,
    [OP_SLICE] = v_slice,
    [OP_PAD] = v_pad,
    [OP_TILE] = v_tile,
    [OP_CONCAT] = v_concat,
    [OP_REVERSE] = v_same_shape,
    [OP_IDENTITY] = v_same_shape,
    [OP_GATHER] = v_gather,
    [OP_SCATTER] = v_scatter,
    [OP_RESIZE] = v_resize,
    [OP_FFT2D] = v_other,
    [OP_RFFT2D] = v_other,
    [OP_COND_IF] = v_other,
    [OP_WHILE_LOOP] = v_other,
    [OP_YIELD] = v_other,
    [OP_CUSTOM] = v_other,
    [OP_VARIABLE] = v_other,
    [OP_VARIABLE_READ] = v_other,
    [OP_VARIABLE_WRITE] = v_other,
};

fe_verify_fn fe_verify_rule_more(op_kind k) { return k < OP_COUNT ? more_rules[k] : NULL; }
