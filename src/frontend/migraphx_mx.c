/* migraphx_mx.c: the OCP microscaling (MX) element types of MIGraphX's block-scaled GEMMs,
 * f4E2M1FN data and f8E8M0FNU scales. Their bytes are graph inputs; the graph decodes them to
 * f32 with a gather from a table of every encoding's value (exact: each value of both types is
 * an f32), so every later op computes on real numbers (docs/migraphx.md). The values follow the
 * OCP Microscaling Formats (MX) v1.0 specification: E2M1 has exponent bias 1, a subnormal when
 * the exponent field is 0, and no Inf or NaN; E8M0 is 2^(e - 127), 0xFF its NaN. */
#include "frontend/frontend.h"

#include <math.h>
#include <string.h>

static const char *const mx_names[] = {"", "f4E2M1FN", "f8E8M0FNU"};

fe_mx_kind fe_mx_parse(const char *s, size_t n) {
  for (int k = FE_MX_F4E2M1FN; k <= FE_MX_F8E8M0FNU; k++)
    if (strlen(mx_names[k]) == n && !memcmp(s, mx_names[k], n)) return (fe_mx_kind)k;
  return FE_MX_NONE;
}

const char *fe_mx_name(fe_mx_kind k) { return mx_names[k]; }

bool fe_mx_storage(fe_mx_kind k, tensor_type *t) {
  t->elem = ET_I8;
  if (k != FE_MX_F4E2M1FN) return true;
  if (t->rank == 0 || t->dims[t->rank - 1] % 2) return false;
  t->dims[t->rank - 1] /= 2;
  return true;
}

/* The f32 bits of encoding e of kind k. */
static uint32_t mx_value_bits(fe_mx_kind k, unsigned e) {
  if (k == FE_MX_F8E8M0FNU) {
    if (e == 255) return 0x7fc00000u;    /* NaN */
    return e ? e << 23 : 0x00400000u; /* 2^(e-127); 2^-127 is an f32 subnormal */
  }
  unsigned exp = (e >> 1) & 3, man = e & 1;
  float v = exp ? ldexpf(1.0f + 0.5f * (float)man, (int)exp - 1) : 0.5f * (float)man;
  if (e & 8) v = -v;
  uint32_t b;
  memcpy(&b, &v, sizeof b);
  return b;
}

/* The constant [1, 2^bits, 1] f32 table of every encoding's value. */
static value *mx_table(fe_mgx_ctx *m, fe_mx_kind k) {
  unsigned n = k == FE_MX_F4E2M1FN ? 16 : 256;
  dense_data *dd = arena_alloc(m->p->a, sizeof *dd);
  memset(dd, 0, sizeof *dd);
  dd->type = (tensor_type){.elem = ET_F32, .rank = 3, .dims = {1, n, 1}};
  dd->nbytes = 4 * (size_t)n;
  uint8_t *b = arena_alloc(m->p->a, dd->nbytes);
  for (unsigned e = 0; e < n; e++) {
    uint32_t v = mx_value_bits(k, e);
    for (int i = 0; i < 4; i++) b[4 * e + (unsigned)i] = (uint8_t)(v >> (8 * i));
  }
  dd->bytes = b;
  op *o = fe_op_new(m->p, OP_CONST, m->loc, NULL, 0);
  fe_add_attr(m->p, o, "values", ATTR_DENSE)->dense = dd;
  return fe_op_finish(m->p, m->fs, o, &dd->type, arena_printf(m->p->a, "%s_%d", m->res, ++m->ntmp));
}

static value *op2(fe_mgx_ctx *m, op_kind k, value *a, value *b, const tensor_type *t) {
  if (!a || !b) return NULL;
  return m->last = fe_op_finish(m->p, m->fs, fe_op_new(m->p, k, m->loc, (value *[]){a, b}, 2), t,
                                arena_printf(m->p->a, "%s_%d", m->res, ++m->ntmp));
}

static value *splat_i32(fe_mgx_ctx *m, int rank, double v) {
  tensor_type t = {.elem = ET_I32, .rank = rank};
  for (int i = 0; i < rank; i++) t.dims[i] = 1;
  return fe_mgx_splat(m, &t, v);
}

/* The storage bytes as codes 0..2^bits-1 in i32, flattened to [1, count] in memory order (an fp4
 * byte gives its low nibble, then its high one). */
static value *mx_codes(fe_mgx_ctx *m, value *x, fe_mx_kind k) {
  int64_t count = tensor_numel(x->type), flat[2] = {1, count};
  tensor_type ti = {.elem = ET_I32, .rank = 2, .dims = {1, count}};
  value *c = fe_mgx_reshape(m, x, flat, 2);
  if (!c) return NULL;
  c = m->last = fe_op_finish(m->p, m->fs, fe_op_new(m->p, OP_CAST, m->loc, &c, 1), &ti,
                             arena_printf(m->p->a, "%s_%d", m->res, ++m->ntmp));
  if (k == FE_MX_F8E8M0FNU) return op2(m, OP_BITWISE_AND, c, splat_i32(m, 2, 255), &ti);
  value *lo = op2(m, OP_BITWISE_AND, c, splat_i32(m, 2, 15), &ti);
  value *hi = op2(m, OP_BITWISE_AND, op2(m, OP_ARITHMETIC_RIGHT_SHIFT, c, splat_i32(m, 2, 4), &ti), splat_i32(m, 2, 15), &ti);
  int64_t d3[3] = {1, count, 1};
  value *parts[2] = {fe_mgx_reshape(m, lo, d3, 3), fe_mgx_reshape(m, hi, d3, 3)};
  if (!parts[0] || !parts[1]) return NULL;
  op *o = fe_op_new(m->p, OP_CONCAT, m->loc, parts, 2);
  fe_set_int(m->p, o, "axis", 2, ET_I32);
  tensor_type ct = {.elem = ET_I32, .rank = 3, .dims = {1, count, 2}};
  value *both = m->last = fe_op_finish(m->p, m->fs, o, &ct, arena_printf(m->p->a, "%s_%d", m->res, ++m->ntmp));
  int64_t out[2] = {1, 2 * count};
  return fe_mgx_reshape(m, both, out, 2);
}

value *fe_mx_decode(fe_mgx_ctx *m, value *x, fe_mx_kind k, const tensor_type *to) {
  value *codes = mx_codes(m, x, k), *table = mx_table(m, k);
  if (!codes || !table) return NULL;
  int64_t n = codes->type->dims[1];
  tensor_type gt = {.elem = ET_F32, .rank = 3, .dims = {1, n, 1}};
  value *g = op2(m, OP_GATHER, table, codes, &gt);
  return fe_mgx_reshape(m, g, to->dims, to->rank);
}
