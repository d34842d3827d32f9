/* eval.c: the reference evaluator of TOSA semantics on constants (eval.h).
 * Elementwise ops walk the output with an odometer, each operand read through
 * strides that are 0 along broadcast dimensions (and everywhere for a splat);
 * data movement copies element bytes, so it is exact for every type. */
#include "optimize/eval.h"

#include "frontend/frontend.h"

#include <math.h>
#include <string.h>

int64_t ev_int(const dense_data *d, int64_t i) { return fe_dense_int(d, i); }

double ev_float(const dense_data *d, int64_t i) { return fe_dense_float(d, i); }

dense_data *ev_new(arena *a, const tensor_type *t, bool splat) {
  dense_data *d = arena_alloc(a, sizeof *d);
  d->type = *t;
  d->splat = splat;
  int64_t n = splat ? 1 : tensor_numel(t);
  d->nbytes = (size_t)(n * elem_type_bytes(t->elem));
  d->bytes = arena_alloc_raw(a, d->nbytes ? d->nbytes : 1);
  memset((uint8_t *)d->bytes, 0, d->nbytes);
  return d;
}

/* Room for a constant of type t whose every byte the caller writes (not
 * zeroed: a folded weight transpose writes tens of megabytes once, not twice).
 */
static dense_data *ev_new_raw(arena *a, const tensor_type *t) {
  dense_data *d = arena_alloc(a, sizeof *d);
  d->type = *t;
  d->nbytes = (size_t)(tensor_numel(t) * elem_type_bytes(t->elem));
  d->bytes = arena_alloc_raw(a, d->nbytes ? d->nbytes : 1);
  return d;
}

/* v wrapped to the width of t (two's complement, sign-extended). */
static int64_t wrap(elem_type t, int64_t v) {
  if (t == ET_I1)
    return v & 1;
  int bits = elem_type_bits(t);
  if (bits >= 64)
    return v;
  uint64_t u = (uint64_t)v & ((1ull << bits) - 1);
  if (u >> (bits - 1))
    u |= ~0ull << bits;
  return (int64_t)u;
}

void ev_store(dense_data *d, int64_t i, int64_t iv, double fv) {
  elem_type et = d->type.elem;
  int eb = elem_type_bytes(et);
  uint64_t u =
      elem_type_is_float(et) ? fe_float_bits(fv, et) : (uint64_t)wrap(et, iv);
  uint8_t *dst = (uint8_t *)d->bytes + (size_t)i * (size_t)eb;
  for (int b = 0; b < eb; b++)
    dst[b] = (uint8_t)(u >> (8 * b));
}

/* ---------------------------------------------------------------- walking */

/* Strides of d's elements along each dimension of out: 0 where d broadcasts
 * (a dimension of 1, a splat, or a single element of another rank). */
static void operand_strides(const dense_data *d, const tensor_type *out,
                            int64_t *st) {
  const tensor_type *t = &d->type;
  bool all = d->splat || (t->rank != out->rank && tensor_numel(t) == 1);
  int64_t s = 1;
  for (int k = out->rank - 1; k >= 0; k--) {
    st[k] = all || t->dims[k] == 1 ? 0 : s;
    if (!all)
      s *= t->dims[k];
  }
}

/* One step of an odometer over dims: idx advances, every offs[j] follows its
 * strides st[j]. */
static void advance(int rank, const int64_t *dims, int64_t *idx, int n,
                    int64_t *offs, int64_t (*st)[TOSAC_MAX_RANK]) {
  for (int k = rank - 1; k >= 0; k--) {
    idx[k]++;
    for (int j = 0; j < n; j++)
      offs[j] += st[j][k];
    if (idx[k] < dims[k])
      return;
    for (int j = 0; j < n; j++)
      offs[j] -= st[j][k] * dims[k];
    idx[k] = 0;
  }
}

static void row_major(const tensor_type *t, int64_t *st) {
  int64_t s = 1;
  for (int k = t->rank - 1; k >= 0; k--)
    st[k] = s, s *= t->dims[k];
}

/* One row of n elements of eb bytes: dst steps ds elements, src ss. Typed
 * copies for the usual element sizes, so a row costs no call per element. */
static void copy_row(uint8_t *dst, int64_t ds, const uint8_t *src, int64_t ss,
                     int64_t n, int eb) {
  if (ds == 1 && ss == 1) {
    memcpy(dst, src, (size_t)(n * eb));
    return;
  }
#define COPY_ROW(T)                                                            \
  for (int64_t i = 0; i < n; i++)                                              \
    memcpy(dst + i * ds * (int64_t)sizeof(T),                                  \
           src + i * ss * (int64_t)sizeof(T), sizeof(T));
  switch (eb) {
  case 1:
    COPY_ROW(uint8_t);
    break;
  case 2:
    COPY_ROW(uint16_t);
    break;
  case 4:
    COPY_ROW(uint32_t);
    break;
  case 8:
    COPY_ROW(uint64_t);
    break;
  default:
    for (int64_t i = 0; i < n; i++)
      memcpy(dst + i * ds * eb, src + i * ss * eb, (size_t)eb);
  }
#undef COPY_ROW
}

/* Copy the elements of box `dims` from src (offset src_base, strides sst) to
 * dst (dst_base, dst row-major strides dst_st); eb bytes each. The innermost
 * dimension is copied as rows, the odometer only walks the outer ones. */
static void copy_box(uint8_t *dst, int64_t dst_base, const int64_t *dst_st,
                     const uint8_t *src, int64_t src_base, const int64_t *sst,
                     int rank, const int64_t *dims, int eb) {
  int64_t n = 1;
  for (int k = 0; k < rank; k++)
    n *= dims[k];
  if (!n)
    return;
  if (!rank) {
    memcpy(dst + dst_base * eb, src + src_base * eb, (size_t)eb);
    return;
  }
  int64_t row = dims[rank - 1], rows = n / row;
  int64_t idx[TOSAC_MAX_RANK] = {0}, offs[2] = {dst_base, src_base};
  int64_t st[2][TOSAC_MAX_RANK];
  memcpy(st[0], dst_st, sizeof(int64_t) * (size_t)rank);
  memcpy(st[1], sst, sizeof(int64_t) * (size_t)rank);
  for (int64_t i = 0; i < rows; i++) {
    copy_row(dst + offs[0] * eb, dst_st[rank - 1], src + offs[1] * eb,
             sst[rank - 1], row, eb);
    advance(rank - 1, dims, idx, 2, offs, st);
  }
}

/* Strides of d's stored elements (0 everywhere for a splat). */
static void data_strides(const dense_data *d, int64_t *st) {
  row_major(&d->type, st);
  if (d->splat)
    for (int k = 0; k < d->type.rank; k++)
      st[k] = 0;
}

/* ---------------------------------------------------------------- elements */

static bool attr_true(const op *o, const char *name) {
  const attr *a = op_attr(o, name);
  if (!a)
    return false;
  if (a->kind == ATTR_STR && a->s)
    return !strcmp(a->s, "true");
  return a->i != 0;
}

static bool nan_ignore(const op *o) {
  const attr *a = op_attr(o, "nan_mode");
  return a && a->s && !strcmp(a->s, "IGNORE");
}

static double attr_num(const op *o, const char *name, double fallback) {
  const attr *a = op_attr(o, name);
  if (!a)
    return fallback;
  return a->kind == ATTR_FLOAT ? a->f : (double)a->i;
}

/* IEEE maximum/minimum (llvm.maximum: NaN wins, -0 < +0) or maxnum/minnum
 * (IGNORE: the number wins). */
static double fmax_op(double x, double y, bool ignore, bool max) {
  if (isnan(x) || isnan(y))
    return ignore ? (isnan(x) ? y : x) : NAN;
  if (x == y && x == 0)
    return (signbit(x) != signbit(y)) ? (max ? 0.0 : -0.0) : x;
  return max ? (x > y ? x : y) : (x < y ? x : y);
}

static int64_t umask(int bits) {
  return bits >= 64 ? -1 : (int64_t)((1ull << bits) - 1);
}

/* Shifts by an amount outside [0, bits) are defined as the code generator
 * defines them (amount read unsigned): logical shifts give 0, the arithmetic
 * shift fills with the sign. */
static int64_t shift_elem(const op *o, elem_type t, int64_t x, int64_t s) {
  int bits = elem_type_bits(t);
  uint64_t u = (uint64_t)s & (uint64_t)umask(bits);
  bool in = u < (uint64_t)bits;
  uint64_t ux = (uint64_t)x & (uint64_t)umask(bits);
  switch (o->kind) {
  case OP_LOGICAL_LEFT_SHIFT:
    return in ? (int64_t)(ux << u) : 0;
  case OP_LOGICAL_RIGHT_SHIFT:
    return in ? (int64_t)(ux >> u) : 0;
  default: {
    int safe = in ? (int)u : bits - 1;
    int64_t r = x >> safe;
    if (attr_true(o, "round") && safe > 0)
      r += (x >> (safe - 1)) & 1;
    return r;
  }
  }
}

/* TOSA rescale as the code generator computes it (codegen/ew_ops.c): 64-bit
 * product, rounding add, arithmetic shift, output zero point, saturation.
 * false for a shift the 64-bit form does not define. */
static bool rescale_elem(const op *o, int64_t x, int64_t chan, int64_t *r) {
  elem_type it = o->operands[0]->type->elem, rt = o->results[0]->type->elem;
  int ibits = elem_type_bits(it), obits = elem_type_bits(rt);
  bool in_u = attr_true(o, "input_unsigned"),
       out_u = attr_true(o, "output_unsigned");
  const attr *ra = op_attr(o, "rounding_mode");
  bool dbl = ra && ra->s && !strcmp(ra->s, "DOUBLE_ROUND");
  int64_t izp = op_attr_int(o, "input_zp", 0),
          ozp = op_attr_int(o, "output_zp", 0);
  if (in_u && ibits < 32)
    izp &= umask(ibits), x &= umask(ibits);
  if (out_u && obits < 32)
    ozp &= umask(obits);
  const attr *ma = op_attr(o, "multiplier"), *sa = op_attr(o, "shift");
  if (!ma || !sa)
    return false;
  bool per = attr_true(o, "per_channel") && ma->kind == ATTR_INTS && ma->n > 1;
  int64_t k = per ? chan : 0;
  if ((ma->kind == ATTR_INTS && k >= ma->n) ||
      (sa->kind == ATTR_INTS && k >= sa->n))
    return false;
  int64_t mult = ma->kind == ATTR_INTS ? ma->ints[k] : ma->i;
  int64_t shift = (sa->kind == ATTR_INTS ? sa->ints[k] : sa->i) & 255;
  if (shift > 62)
    return false;
  int64_t v = ibits > 32 ? x - izp : wrap(ET_I32, x - izp);
  uint64_t p = (uint64_t)v * (uint64_t)(int64_t)(int32_t)mult;
  p += (1ull << shift) >> 1;
  if (dbl && shift > 31)
    p += v >= 0 ? (1ull << 30) : (uint64_t) - (1ll << 30);
  int64_t q = wrap(ET_I32, (int64_t)p >> shift);
  q = wrap(ET_I32, q + ozp);
  int64_t lo = -((int64_t)1 << (obits - 1)),
          hi = ((int64_t)1 << (obits - 1)) - 1;
  if (out_u)
    lo = 0, hi = obits >= 32 ? -1 : umask(obits);
  if (obits < 32 || out_u)
    q = out_u && obits >= 32 ? q : q < lo ? lo : q > hi ? hi : q;
  *r = q;
  return true;
}

/* tosa.table (MLIR's TableConverter): i8 looks up x + 128; i16 interpolates
 * 7 bits between entries (x + 32768) >> 7 and the next. */
static bool table_elem(const op *o, const dense_data *tab, int64_t x,
                       int64_t *r) {
  int64_t n = tensor_numel(&tab->type);
  if (o->operands[0]->type->elem == ET_I8) {
    if (x + 128 < 0 || x + 128 >= n)
      return false;
    *r = ev_int(tab, x + 128);
    return true;
  }
  int64_t v = x + 32768, idx = v >> 7, frac = v & 127;
  if (idx < 0 || idx + 1 >= n)
    return false;
  int64_t base = ev_int(tab, idx), next = ev_int(tab, idx + 1);
  *r = (base << 7) + (next - base) * frac;
  return true;
}

/* Float to integer: round half to even, saturate; NaN is not evaluated. */
static bool float_to_int(double f, elem_type t, int64_t *r) {
  if (isnan(f))
    return false;
  if (t == ET_I1) {
    *r = f != 0;
    return true;
  }
  int bits = elem_type_bits(t);
  double lo = -ldexp(1, bits - 1), hi = ldexp(1, bits - 1) - 1;
  double x = nearbyint(f);
  *r = x <= lo   ? (int64_t)lo
       : x >= hi ? (bits >= 64 ? INT64_MAX : (int64_t)hi)
                 : (int64_t)x;
  return true;
}

typedef struct elem_in {
  int64_t i[3];
  double f[3];
} elem_in;

/* One element of elementwise op o. fl: the data operands are floats. */
static bool eval_elem(const op *o, const elem_in *x, bool fl, int64_t chan,
                      const dense_data *const *in, int64_t *ri, double *rf) {
  const int64_t *iv = x->i;
  const double *fv = x->f;
  elem_type it = o->operands[0]->type->elem, rt = o->results[0]->type->elem;
  switch (o->kind) {
  case OP_ADD:
    *ri = (int64_t)((uint64_t)iv[0] + (uint64_t)iv[1]), *rf = fv[0] + fv[1];
    return true;
  case OP_SUB:
    *ri = (int64_t)((uint64_t)iv[0] - (uint64_t)iv[1]), *rf = fv[0] - fv[1];
    return true;
  case OP_MUL: {
    *rf = fv[0] * fv[1];
    int64_t shift = rt == ET_I32 ? op_attr_int(o, "shift", 0) : 0;
    if (fl || shift <= 0) {
      *ri = (int64_t)((uint64_t)iv[0] * (uint64_t)iv[1]);
      return true;
    }
    if (shift > 62)
      return false;
    *ri =
        (int64_t)((uint64_t)iv[0] * (uint64_t)iv[1] + (1ull << (shift - 1))) >>
        shift;
    return true;
  }
  case OP_MAXIMUM:
  case OP_MINIMUM: {
    bool max = o->kind == OP_MAXIMUM;
    *rf = fmax_op(fv[0], fv[1], nan_ignore(o), max);
    *ri =
        max ? (iv[0] > iv[1] ? iv[0] : iv[1]) : (iv[0] < iv[1] ? iv[0] : iv[1]);
    return true;
  }
  case OP_NEGATE: {
    *rf = -fv[0];
    int64_t r =
        op_attr_int(o, "input1_zp", 0) + op_attr_int(o, "output_zp", 0) - iv[0];
    int bits = elem_type_bits(it);
    int64_t lo = -((int64_t)1 << (bits - 1)),
            hi = ((int64_t)1 << (bits - 1)) - 1;
    *ri = bits >= 64 ? (int64_t)(0 - (uint64_t)iv[0])
          : r < lo   ? lo
          : r > hi   ? hi
                     : r;
    return true;
  }
  case OP_ABS:
    *ri = iv[0] < 0 ? (int64_t)(0 - (uint64_t)iv[0]) : iv[0];
    *rf = fabs(fv[0]);
    return true;
  case OP_EXP:
    *rf = exp(fv[0]);
    return fl;
  case OP_LOG:
    *rf = log(fv[0]);
    return fl;
  case OP_TANH:
    *rf = tanh(fv[0]);
    return fl;
  case OP_ERF:
    *rf = erf(fv[0]);
    return fl;
  case OP_SIN:
    *rf = sin(fv[0]);
    return fl;
  case OP_COS:
    *rf = cos(fv[0]);
    return fl;
  case OP_POW:
    *rf = pow(fv[0], fv[1]);
    return fl;
  case OP_SIGMOID:
    *rf = 1.0 / (1.0 + exp(-fv[0]));
    return fl;
  case OP_RECIPROCAL:
    *rf = 1.0 / fv[0];
    return fl;
  case OP_RSQRT:
    *rf = 1.0 / sqrt(fv[0]);
    return fl;
  case OP_FLOOR:
    *rf = floor(fv[0]);
    return fl;
  case OP_CEIL:
    *rf = ceil(fv[0]);
    return fl;
  case OP_CLAMP:
    if (fl) {
      double lo = attr_num(o, "min_val", -INFINITY),
             hi = attr_num(o, "max_val", INFINITY);
      *rf = isnan(fv[0]) ? (nan_ignore(o) ? lo : fv[0])
            : fv[0] < lo ? lo
            : fv[0] > hi ? hi
                         : fv[0];
    } else {
      int64_t lo = op_attr_int(o, "min_val", INT64_MIN),
              hi = op_attr_int(o, "max_val", INT64_MAX);
      *ri = iv[0] < lo ? lo : iv[0] > hi ? hi : iv[0];
    }
    return true;
  case OP_SELECT:
    *ri = iv[0] ? iv[1] : iv[2], *rf = iv[0] ? fv[1] : fv[2];
    return true;
  case OP_EQUAL:
    *ri = fl ? fv[0] == fv[1] : iv[0] == iv[1];
    return true;
  case OP_GREATER:
    *ri = fl ? fv[0] > fv[1] : iv[0] > iv[1];
    return true;
  case OP_GREATER_EQUAL:
    *ri = fl ? fv[0] >= fv[1] : iv[0] >= iv[1];
    return true;
  case OP_LOGICAL_AND:
    *ri = iv[0] && iv[1];
    return true;
  case OP_LOGICAL_OR:
    *ri = iv[0] || iv[1];
    return true;
  case OP_LOGICAL_XOR:
    *ri = (iv[0] != 0) != (iv[1] != 0);
    return true;
  case OP_LOGICAL_NOT:
    *ri = !iv[0];
    return true;
  case OP_BITWISE_AND:
    *ri = iv[0] & iv[1];
    return !fl;
  case OP_BITWISE_OR:
    *ri = iv[0] | iv[1];
    return !fl;
  case OP_BITWISE_XOR:
    *ri = iv[0] ^ iv[1];
    return !fl;
  case OP_BITWISE_NOT:
    *ri = ~iv[0];
    return !fl;
  case OP_LOGICAL_LEFT_SHIFT:
  case OP_LOGICAL_RIGHT_SHIFT:
  case OP_ARITHMETIC_RIGHT_SHIFT:
    *ri = shift_elem(o, it, iv[0], iv[1]);
    return !fl;
  case OP_CLZ: {
    int bits = elem_type_bits(it);
    uint64_t u = (uint64_t)iv[0] & (uint64_t)umask(bits);
    int n = 0;
    while (n < bits && !(u >> (bits - 1 - n) & 1))
      n++;
    *ri = n;
    return !fl;
  }
  case OP_INTDIV: /* TOSA leaves x / 0 undefined: kept for run time */
    if (fl || iv[1] == 0)
      return false;
    *ri = iv[1] == -1 ? (int64_t)(0 - (uint64_t)iv[0]) : iv[0] / iv[1];
    return true;
  case OP_CAST:
    if (elem_type_is_float(rt)) {
      *rf = fl ? fv[0] : (double)iv[0];
      return true;
    }
    if (rt == ET_I1) {
      *ri = fl ? fv[0] != 0 || isnan(fv[0]) : iv[0] != 0;
      return true;
    }
    if (fl)
      return float_to_int(fv[0], rt, ri);
    *ri = iv[0];
    return true;
  case OP_RESCALE:
    return !fl && rescale_elem(o, iv[0], chan, ri);
  case OP_TABLE:
    return !fl && table_elem(o, in[1], iv[0], ri);
  case OP_IDENTITY:
    *ri = iv[0], *rf = fv[0];
    return true;
  default:
    return false;
  }
}

/* The operands an elementwise op reads element by element (tosa.table's table
 * is read whole). */
static int elem_operands(const op *o) {
  return o->kind == OP_TABLE ? 1 : o->noperands;
}

static const dense_data *eval_elementwise(arena *a, const op *o,
                                          const dense_data *const *in) {
  const tensor_type *out = o->results[0]->type;
  int n = elem_operands(o);
  if (n > 3)
    return NULL;
  bool splat = o->kind != OP_RESCALE; /* per-channel parameters vary */
  for (int j = 0; j < n; j++)
    splat &= in[j]->splat;
  dense_data *r = ev_new(a, out, splat && tensor_numel(out) > 1);
  int64_t total = r->splat ? 1 : tensor_numel(out);
  /* the data operands' type: for select the chosen values, not the condition */
  bool fl = elem_type_is_float(o->operands[n - 1]->type->elem);
  int64_t st[3][TOSAC_MAX_RANK] = {{0}}, idx[TOSAC_MAX_RANK] = {0},
          offs[3] = {0};
  for (int j = 0; j < n; j++)
    operand_strides(in[j], out, st[j]);
  int64_t last = out->rank ? out->dims[out->rank - 1] : 1;
  for (int64_t i = 0; i < total; i++) {
    elem_in x = {{0}, {0}};
    for (int j = 0; j < n; j++) {
      if (elem_type_is_float(in[j]->type.elem))
        x.f[j] = ev_float(in[j], offs[j]);
      else
        x.i[j] = ev_int(in[j], offs[j]), x.f[j] = (double)x.i[j];
    }
    int64_t ri = 0;
    double rf = 0;
    if (!eval_elem(o, &x, fl, last ? i % last : 0, in, &ri, &rf))
      return NULL;
    ev_store(r, i, ri, rf);
    advance(out->rank, out->dims, idx, n, offs, st);
  }
  return r;
}

/* ---------------------------------------------------------------- reductions
 */

static const dense_data *eval_reduce(arena *a, const op *o,
                                     const dense_data *x) {
  const tensor_type *t = &x->type, *out = o->results[0]->type;
  int axis = (int)op_attr_int(o, "axis", 0);
  if (axis < 0 || axis >= t->rank)
    return NULL;
  int64_t outer = 1, inner = 1, len = t->dims[axis];
  for (int k = 0; k < axis; k++)
    outer *= t->dims[k];
  for (int k = axis + 1; k < t->rank; k++)
    inner *= t->dims[k];
  bool ign = nan_ignore(o);
  dense_data *r = ev_new(a, out, false);
  for (int64_t p = 0; p < outer; p++)
    for (int64_t q = 0; q < inner; q++) {
      double f = o->kind == OP_REDUCE_PRODUCT ? 1 : 0;
      int64_t iv = o->kind == OP_REDUCE_PRODUCT || o->kind == OP_REDUCE_ALL;
      for (int64_t k = 0; k < len; k++) {
        int64_t at = (p * len + k) * inner + q;
        double xf = ev_float(x, at);
        int64_t xi = ev_int(x, at);
        bool first = k == 0;
        switch (o->kind) {
        case OP_REDUCE_SUM:
          f += xf, iv = (int64_t)((uint64_t)iv + (uint64_t)xi);
          break;
        case OP_REDUCE_PRODUCT:
          f *= xf, iv = (int64_t)((uint64_t)iv * (uint64_t)xi);
          break;
        case OP_REDUCE_MAX:
        case OP_REDUCE_MIN: {
          bool max = o->kind == OP_REDUCE_MAX;
          f = first ? xf : fmax_op(f, xf, ign, max);
          iv = first ? xi : max ? (xi > iv ? xi : iv) : (xi < iv ? xi : iv);
          break;
        }
        case OP_REDUCE_ALL:
          iv = iv && xi;
          break;
        case OP_REDUCE_ANY:
          iv = iv || xi;
          break;
        default:
          return NULL;
        }
      }
      ev_store(r, p * inner + q, iv, f);
    }
  return r;
}

/* ---------------------------------------------------------------- data
 * movement */

static const attr *ints_attr(const op *o, const char *name, int n) {
  const attr *a = op_attr(o, name);
  return a && a->kind == ATTR_INTS && a->n == n ? a : NULL;
}

/* x's first element filling type t (bytes shared): a splat, or the one
 * element of a single-element tensor. */
static const dense_data *splat_as(arena *a, const dense_data *x,
                                  const tensor_type *t) {
  dense_data *r = arena_alloc(a, sizeof *r);
  *r = (dense_data){.type = *t,
                    .bytes = x->bytes,
                    .nbytes = (size_t)elem_type_bytes(t->elem),
                    .splat = tensor_numel(t) != 1};
  return r;
}

/* out[i] = x[i] where x's element order is kept (reshape, identity). */
static const dense_data *same_bytes(arena *a, const dense_data *x,
                                    const tensor_type *t) {
  dense_data *r = arena_alloc(a, sizeof *r);
  *r = *x;
  r->type = *t;
  return r;
}

static const dense_data *eval_transpose(arena *a, const op *o,
                                        const dense_data *x) {
  const tensor_type *out = o->results[0]->type;
  const attr *p = ints_attr(o, "perms", out->rank);
  if (!p)
    return NULL;
  if (x->splat)
    return splat_as(a, x, out);
  int64_t xs[TOSAC_MAX_RANK], sst[TOSAC_MAX_RANK], dst[TOSAC_MAX_RANK];
  row_major(&x->type, xs);
  row_major(out, dst);
  for (int k = 0; k < out->rank; k++) {
    if (p->ints[k] < 0 || p->ints[k] >= x->type.rank)
      return NULL;
    sst[k] = xs[p->ints[k]];
  }
  dense_data *r = ev_new_raw(a, out);
  copy_box((uint8_t *)r->bytes, 0, dst, x->bytes, 0, sst, out->rank, out->dims,
           elem_type_bytes(out->elem));
  return r;
}

static const dense_data *eval_slice(arena *a, const op *o,
                                    const dense_data *x) {
  const tensor_type *out = o->results[0]->type;
  const attr *st = ints_attr(o, "start", out->rank);
  if (!st || x->type.rank != out->rank)
    return NULL;
  if (x->splat)
    return splat_as(a, x, out);
  int64_t xs[TOSAC_MAX_RANK], dst[TOSAC_MAX_RANK], base = 0;
  row_major(&x->type, xs);
  row_major(out, dst);
  for (int k = 0; k < out->rank; k++) {
    if (st->ints[k] < 0 || st->ints[k] + out->dims[k] > x->type.dims[k])
      return NULL;
    base += st->ints[k] * xs[k];
  }
  dense_data *r = ev_new_raw(a, out);
  copy_box((uint8_t *)r->bytes, 0, dst, x->bytes, base, xs, out->rank,
           out->dims, elem_type_bytes(out->elem));
  return r;
}

static const dense_data *eval_reverse(arena *a, const op *o,
                                      const dense_data *x) {
  const tensor_type *out = o->results[0]->type;
  int axis = (int)op_attr_int(o, "axis", -1);
  if (axis < 0 || axis >= out->rank)
    return NULL;
  if (x->splat)
    return splat_as(a, x, out);
  int64_t xs[TOSAC_MAX_RANK], dst[TOSAC_MAX_RANK];
  row_major(&x->type, xs);
  row_major(out, dst);
  int64_t base = (out->dims[axis] - 1) * xs[axis];
  xs[axis] = -xs[axis];
  dense_data *r = ev_new_raw(a, out);
  copy_box((uint8_t *)r->bytes, 0, dst, x->bytes, base, xs, out->rank,
           out->dims, elem_type_bytes(out->elem));
  return r;
}

static const dense_data *eval_pad(arena *a, const op *o, const dense_data *x) {
  const tensor_type *out = o->results[0]->type;
  const attr *p = ints_attr(o, "padding", 2 * out->rank);
  if (!p || x->type.rank != out->rank)
    return NULL;
  dense_data *r = ev_new(a, out, false);
  double pf = op_attr_float(o, "pad_const", 0);
  int64_t pi = op_attr_int(o, "pad_const", 0);
  const attr *pc = op_attr(o, "pad_const");
  if (pc && pc->kind == ATTR_FLOAT)
    pi = (int64_t)pc->f;
  else if (pc && pc->kind == ATTR_INT)
    pf = (double)pc->i;
  int64_t n = tensor_numel(out);
  for (int64_t i = 0; i < n; i++)
    ev_store(r, i, pi, pf);
  int64_t xs[TOSAC_MAX_RANK], dst[TOSAC_MAX_RANK], base = 0;
  data_strides(x, xs);
  row_major(out, dst);
  for (int k = 0; k < out->rank; k++) {
    if (p->ints[2 * k] < 0 || p->ints[2 * k] + x->type.dims[k] > out->dims[k])
      return NULL;
    base += p->ints[2 * k] * dst[k];
  }
  copy_box((uint8_t *)r->bytes, base, dst, x->bytes, 0, xs, out->rank,
           x->type.dims, elem_type_bytes(out->elem));
  return r;
}

static const dense_data *eval_tile(arena *a, const op *o, const dense_data *x) {
  const tensor_type *out = o->results[0]->type, *t = &x->type;
  if (t->rank != out->rank)
    return NULL;
  if (x->splat)
    return splat_as(a, x, out);
  dense_data *r = ev_new(a, out, false);
  int64_t xs[TOSAC_MAX_RANK], dst[TOSAC_MAX_RANK], mult[TOSAC_MAX_RANK],
      tid[TOSAC_MAX_RANK] = {0}, ntiles = 1;
  row_major(t, xs);
  row_major(out, dst);
  for (int k = 0; k < out->rank; k++) {
    if (!t->dims[k] || out->dims[k] % t->dims[k])
      return NULL;
    mult[k] = out->dims[k] / t->dims[k];
    ntiles *= mult[k];
  }
  for (int64_t i = 0; i < ntiles; i++) {
    int64_t base = 0;
    for (int k = 0; k < out->rank; k++)
      base += tid[k] * t->dims[k] * dst[k];
    copy_box((uint8_t *)r->bytes, base, dst, x->bytes, 0, xs, out->rank,
             t->dims, elem_type_bytes(out->elem));
    for (int k = out->rank - 1; k >= 0 && ++tid[k] == mult[k]; k--)
      tid[k] = 0;
  }
  return r;
}

static const dense_data *eval_concat(arena *a, const op *o,
                                     const dense_data *const *in) {
  const tensor_type *out = o->results[0]->type;
  int axis = (int)op_attr_int(o, "axis", -1);
  if (axis < 0 || axis >= out->rank)
    return NULL;
  dense_data *r = ev_new(a, out, false);
  int64_t dst[TOSAC_MAX_RANK], at = 0;
  row_major(out, dst);
  for (int j = 0; j < o->noperands; j++) {
    const dense_data *x = in[j];
    int64_t xs[TOSAC_MAX_RANK];
    if (x->type.rank != out->rank || at + x->type.dims[axis] > out->dims[axis])
      return NULL;
    data_strides(x, xs);
    copy_box((uint8_t *)r->bytes, at * dst[axis], dst, x->bytes, 0, xs,
             out->rank, x->type.dims, elem_type_bytes(out->elem));
    at += x->type.dims[axis];
  }
  return at == out->dims[axis] ? r : NULL;
}

/* values [N,K,C], indices [N,W] -> [N,W,C]; an index outside [0, K) is not
 * evaluated. */
static const dense_data *eval_gather(arena *a, const op *o,
                                     const dense_data *const *in) {
  const tensor_type *out = o->results[0]->type, *vt = &in[0]->type;
  if (vt->rank != 3 || out->rank != 3 || in[1]->type.rank != 2)
    return NULL;
  int64_t N = out->dims[0], W = out->dims[1], C = out->dims[2], K = vt->dims[1];
  int eb = elem_type_bytes(out->elem);
  dense_data *r = ev_new(a, out, false);
  for (int64_t n = 0; n < N; n++)
    for (int64_t w = 0; w < W; w++) {
      int64_t k = ev_int(in[1], n * W + w);
      if (k < 0 || k >= K)
        return NULL;
      for (int64_t c = 0; c < C; c++) {
        int64_t from = in[0]->splat ? 0 : (n * K + k) * C + c;
        memcpy((uint8_t *)r->bytes + ((n * W + w) * C + c) * eb,
               in[0]->bytes + from * eb, (size_t)eb);
      }
    }
  return r;
}

/* ---------------------------------------------------------------- the entry */

bool ev_supported(const op *o) {
  if (o->nresults != 1 || o->nregions || o->noperands < 1)
    return false;
  switch (op_table[o->kind].family) {
  case FAM_ELEMENTWISE:
    return o->kind != OP_DIV && o->kind != OP_RELU && o->kind != OP_RELUN;
  case FAM_REDUCTION:
    return o->kind != OP_ARGMAX;
  case FAM_DATA:
    return o->kind != OP_SCATTER && o->kind != OP_RESIZE;
  default:
    return false;
  }
}

const dense_data *ev_op(arena *a, const op *o, const dense_data *const *in) {
  if (!ev_supported(o))
    return NULL;
  const tensor_type *out = o->results[0]->type;
  for (int j = 0; j < o->noperands; j++)
    if (!in[j] || !tensor_type_equal(&in[j]->type, o->operands[j]->type))
      return NULL;
  switch (o->kind) {
  case OP_RESHAPE:
  case OP_IDENTITY:
    return tensor_numel(out) == tensor_numel(&in[0]->type)
               ? same_bytes(a, in[0], out)
               : NULL;
  case OP_TRANSPOSE:
    return eval_transpose(a, o, in[0]);
  case OP_SLICE:
    return eval_slice(a, o, in[0]);
  case OP_REVERSE:
    return eval_reverse(a, o, in[0]);
  case OP_PAD:
    return eval_pad(a, o, in[0]);
  case OP_TILE:
    return eval_tile(a, o, in[0]);
  case OP_CONCAT:
    return eval_concat(a, o, in);
  case OP_GATHER:
    return eval_gather(a, o, in);
  default:
    break;
  }
  if (op_table[o->kind].family == FAM_REDUCTION)
    return eval_reduce(a, o, in[0]);
  return eval_elementwise(a, o, in);
}
