/* dense.c: constant literals (dense<...>, hex blobs, dense_resource and the file's resource
 * section) decoded into little-endian element bytes, plus the float formats they need. */
#include "frontend/frontend.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#ifdef __SSE2__
#include <emmintrin.h>
#endif

/* ---------------------------------------------------------------- numbers */
bool fe_tok_int(fe_parser *p, fe_token t, int64_t *v, uint64_t *bits, bool *hex) {
  char buf[80];
  if (t.n >= (int)sizeof buf) return fe_error(p, fe_loc(p, t), "integer literal is too long");
  memcpy(buf, t.p, (size_t)t.n);
  buf[t.n] = 0;
  bool neg = buf[0] == '-';
  const char *s = buf + neg;
  bool is_hex = s[0] == '0' && (s[1] == 'x' || s[1] == 'X');
  errno = 0;
  char *end;
  unsigned long long u = strtoull(s, &end, is_hex ? 16 : 10);
  if (errno == ERANGE || (neg && u > (1ull << 63)) || (!neg && !is_hex && u > (uint64_t)INT64_MAX))
    return fe_error(p, fe_loc(p, t), "integer literal %s does not fit in 64 bits", buf);
  if (hex) *hex = is_hex;
  if (bits) *bits = neg ? (uint64_t)0 - u : u;
  if (v) *v = neg ? (int64_t)((uint64_t)0 - u) : (int64_t)u;
  return true;
}

double fe_tok_float(fe_token t) {
  char buf[128];
  int n = t.n < (int)sizeof buf - 1 ? t.n : (int)sizeof buf - 1;
  memcpy(buf, t.p, (size_t)n);
  buf[n] = 0;
  return strtod(buf, NULL);
}

/* double -> an IEEE-like binary format with ebits/mbits, round to nearest even. `fn` formats
 * (f8E4M3FN) have no infinity: the all-ones pattern is NaN and overflow gives NaN. */
static uint32_t f64_to_small(double v, int ebits, int mbits, bool fn) {
  uint64_t b;
  memcpy(&b, &v, 8);
  uint32_t sign = (uint32_t)(b >> 63) << (ebits + mbits);
  int exp = (int)((b >> 52) & 0x7ff);
  uint64_t mant = b & ((1ull << 52) - 1);
  uint32_t emax = (1u << ebits) - 1;
  uint32_t nan = fn ? (emax << mbits) | ((1u << mbits) - 1) : (emax << mbits) | (1u << (mbits - 1));
  uint32_t inf = fn ? nan : emax << mbits;
  if (exp == 0x7ff) return sign | (mant ? nan : inf);
  if (exp == 0) return sign; /* double subnormals are far below every small format */
  int bias = (1 << (ebits - 1)) - 1;
  int te = exp - 1023 + bias;
  uint64_t m = (1ull << 52) | mant;
  int shift = 52 - mbits + (te >= 1 ? 0 : 1 - te);
  if (shift >= 63) return sign;
  uint64_t q = m >> shift, rem = m & ((1ull << shift) - 1), half = 1ull << (shift - 1);
  if (rem > half || (rem == half && (q & 1))) q++;
  if (te < 1) return sign | (uint32_t)q; /* subnormal; a carry lands on the smallest normal */
  if (q == (2ull << mbits)) {
    q >>= 1;
    te++;
  }
  uint32_t r = ((uint32_t)te << mbits) | (uint32_t)(q & ((1u << mbits) - 1));
  if (fn ? (te > (int)emax || (r & nan) == nan) : te >= (int)emax) return sign | inf;
  return sign | r;
}

static double small_to_f64(uint32_t h, int ebits, int mbits, bool fn) {
  uint32_t sign = h >> (ebits + mbits), e = (h >> mbits) & ((1u << ebits) - 1), m = h & ((1u << mbits) - 1);
  int bias = (1 << (ebits - 1)) - 1;
  double r;
  if (e == (1u << ebits) - 1 && (!fn || m == (1u << mbits) - 1))
    r = (m && !fn) || fn ? NAN : INFINITY;
  else if (e == 0)
    r = ldexp((double)m, 1 - bias - mbits);
  else
    r = ldexp((double)(m | (1u << mbits)), (int)e - bias - mbits);
  return sign ? -r : r;
}

/* AMD's FNUZ 8-bit floats (f8E4M3FNUZ, f8E5M2FNUZ): bias 2^(ebits-1), every exponent code is
 * finite, 0x80 is the only NaN (there is no -0) and overflow gives NaN, as MLIR's APFloat does. */
static uint32_t f64_to_fnuz(double v, int ebits, int mbits) {
  if (isnan(v)) return 0x80;
  int bias = 1 << (ebits - 1);
  double a = fabs(v), maxv = ldexp(2.0 - ldexp(1.0, -mbits), (1 << ebits) - 1 - bias);
  if (a == 0) return 0;
  int e;
  frexp(a, &e);
  int ue = e - 1 < 1 - bias ? 1 - bias : e - 1;
  double q = nearbyint(ldexp(a, mbits - ue)); /* round to nearest even */
  if (ldexp(q, ue - mbits) > maxv) return 0x80;
  if (q == 0) return 0;
  if (q >= ldexp(1.0, mbits + 1)) {
    q /= 2;
    ue++;
  }
  uint32_t r = q < ldexp(1.0, mbits) ? (uint32_t)q
                                     : (uint32_t)(ue + bias) << mbits | ((uint32_t)q & ((1u << mbits) - 1));
  return (v < 0 ? 0x80 : 0) | r;
}

static double fnuz_to_f64(uint32_t b, int ebits, int mbits) {
  if (b == 0x80) return NAN;
  int bias = 1 << (ebits - 1);
  uint32_t e = (b >> mbits) & ((1u << ebits) - 1), m = b & ((1u << mbits) - 1);
  double r = e ? ldexp((double)(m | 1u << mbits), (int)e - bias - mbits) : ldexp((double)m, 1 - bias - mbits);
  return b & 0x80 ? -r : r;
}

uint16_t fe_f64_to_f16(double v) { return (uint16_t)f64_to_small(v, 5, 10, false); }
uint16_t fe_f64_to_bf16(double v) { return (uint16_t)f64_to_small(v, 8, 7, false); }
double fe_f16_to_f64(uint16_t h) { return small_to_f64(h, 5, 10, false); }
double fe_bf16_to_f64(uint16_t h) { return small_to_f64(h, 8, 7, false); }

double fe_bits_to_double(elem_type et, uint64_t bits) {
  switch (et) {
  case ET_F32: {
    uint32_t u = (uint32_t)bits;
    float f;
    memcpy(&f, &u, 4);
    return f;
  }
  case ET_F64: {
    double d;
    memcpy(&d, &bits, 8);
    return d;
  }
  case ET_F16: return fe_f16_to_f64((uint16_t)bits);
  case ET_BF16: return fe_bf16_to_f64((uint16_t)bits);
  case ET_F8E4M3FN: return small_to_f64((uint32_t)bits & 0xff, 4, 3, true);
  case ET_F8E5M2: return small_to_f64((uint32_t)bits & 0xff, 5, 2, false);
  case ET_F8E4M3FNUZ: return fnuz_to_f64((uint32_t)bits & 0xff, 4, 3);
  case ET_F8E5M2FNUZ: return fnuz_to_f64((uint32_t)bits & 0xff, 5, 2);
  default: return (double)bits;
  }
}

uint64_t fe_float_bits(double v, elem_type et) {
  switch (et) {
  case ET_F32: {
    float f = (float)v;
    uint32_t u;
    memcpy(&u, &f, 4);
    return u;
  }
  case ET_F16: return fe_f64_to_f16(v);
  case ET_BF16: return fe_f64_to_bf16(v);
  case ET_F8E4M3FN: return f64_to_small(v, 4, 3, true);
  case ET_F8E5M2: return f64_to_small(v, 5, 2, false);
  case ET_F8E4M3FNUZ: return f64_to_fnuz(v, 4, 3);
  case ET_F8E5M2FNUZ: return f64_to_fnuz(v, 5, 2);
  default: {
    uint64_t u;
    memcpy(&u, &v, 8);
    return u;
  }
  }
}

static void put_le(uint8_t *dst, uint64_t v, int nbytes) {
  for (int i = 0; i < nbytes; i++) dst[i] = (uint8_t)(v >> (8 * i));
}

static uint64_t get_le(const uint8_t *src, int nbytes) {
  uint64_t v = 0;
  for (int i = 0; i < nbytes; i++) v |= (uint64_t)src[i] << (8 * i);
  return v;
}

int64_t fe_dense_int(const dense_data *dd, int64_t i) {
  elem_type et = dd->type.elem;
  if (elem_type_is_float(et)) return (int64_t)fe_dense_float(dd, i);
  int eb = elem_type_bytes(et);
  if (dd->splat) i = 0;
  if ((size_t)(i + 1) * (size_t)eb > dd->nbytes) return 0;
  uint64_t v = get_le(dd->bytes + (size_t)i * (size_t)eb, eb);
  int bits = et == ET_INDEX ? 64 : elem_type_bits(et);
  if (et == ET_I1) return v != 0;
  if (bits < 64 && (v >> (bits - 1) & 1)) v |= ~0ull << bits; /* sign-extend */
  else if (bits < 64) v &= (1ull << bits) - 1;
  return (int64_t)v;
}

double fe_dense_float(const dense_data *dd, int64_t i) {
  elem_type et = dd->type.elem;
  if (!elem_type_is_float(et)) return (double)fe_dense_int(dd, i);
  int eb = elem_type_bytes(et);
  if (dd->splat) i = 0;
  if ((size_t)(i + 1) * (size_t)eb > dd->nbytes) return 0;
  return fe_bits_to_double(et, get_le(dd->bytes + (size_t)i * (size_t)eb, eb));
}

/* ---------------------------------------------------------------- element literals */
/* One decimal/boolean element into dst, checked against the element type. */
static bool store_elem(fe_parser *p, fe_token t, elem_type et, uint8_t *dst) {
  int eb = elem_type_bytes(et);
  bool is_bool = t.kind == T_IDENT && ((t.n == 4 && !memcmp(t.p, "true", 4)) || (t.n == 5 && !memcmp(t.p, "false", 5)));
  if (is_bool) {
    if (et != ET_I1)
      return fe_error(p, fe_loc(p, t), "boolean literal %.*s is only valid for i1 elements, not %s", t.n, t.p,
                      elem_type_name(et));
    dst[0] = t.p[0] == 't';
    return true;
  }
  if (t.kind != T_INT && t.kind != T_FLOAT)
    return fe_error(p, fe_loc(p, t), "expected a number in dense literal, found %s", fe_tok_text(p, t));
  if (elem_type_is_float(et)) {
    double v;
    if (t.kind == T_INT) {
      int64_t iv;
      uint64_t bits;
      bool hex;
      if (!fe_tok_int(p, t, &iv, &bits, &hex)) return false;
      if (hex) { /* a bit pattern of exactly the element's width */
        int w = elem_type_bits(et);
        if (t.p[0] == '-' || (w < 64 && bits >> w))
          return fe_error(p, fe_loc(p, t), "hexadecimal literal %.*s does not fit %s", t.n, t.p, elem_type_name(et));
        put_le(dst, bits, eb);
        return true;
      }
      v = (double)iv;
    } else {
      v = fe_tok_float(t);
    }
    switch (et) {
    case ET_F32: {
      char buf[128];
      int n = t.n < 127 ? t.n : 127;
      memcpy(buf, t.p, (size_t)n);
      buf[n] = 0;
      float f = t.kind == T_FLOAT ? strtof(buf, NULL) : (float)v; /* decimal -> f32 rounded once */
      memcpy(dst, &f, 4);
      return true;
    }
    case ET_F64: memcpy(dst, &v, 8); return true;
    case ET_F16: put_le(dst, fe_f64_to_f16(v), 2); return true;
    case ET_BF16: put_le(dst, fe_f64_to_bf16(v), 2); return true;
    case ET_F8E4M3FN: dst[0] = (uint8_t)f64_to_small(v, 4, 3, true); return true;
    case ET_F8E5M2: dst[0] = (uint8_t)f64_to_small(v, 5, 2, false); return true;
    case ET_F8E4M3FNUZ: dst[0] = (uint8_t)f64_to_fnuz(v, 4, 3); return true;
    case ET_F8E5M2FNUZ: dst[0] = (uint8_t)f64_to_fnuz(v, 5, 2); return true;
    default: return fe_error(p, fe_loc(p, t), "unsupported float element type %s", elem_type_name(et));
    }
  }
  if (t.kind == T_FLOAT)
    return fe_error(p, fe_loc(p, t), "floating-point literal %.*s in a dense literal of %s elements", t.n, t.p,
                    elem_type_name(et));
  int64_t iv;
  uint64_t bits;
  if (!fe_tok_int(p, t, &iv, &bits, NULL)) return false;
  int w = et == ET_INDEX ? 64 : elem_type_bits(et);
  /* Like MLIR: a value fits if it fits as signed or as unsigned. */
  bool fits = w >= 64 || (iv >= -((int64_t)1 << (w - 1)) && iv < ((int64_t)1 << w));
  if (et == ET_I1) fits = iv == 0 || iv == 1 || iv == -1;
  if (!fits) return fe_error(p, fe_loc(p, t), "integer %.*s does not fit in %s", t.n, t.p, elem_type_name(et));
  put_le(dst, et == ET_I1 ? (uint64_t)(iv != 0) : bits, eb);
  return true;
}

dense_data *fe_dense_scalar(fe_parser *p, fe_token lit, elem_type et) {
  dense_data *d = arena_alloc(p->a, sizeof *d);
  uint8_t *b = arena_alloc(p->a, 8);
  d->type = (tensor_type){.elem = et, .rank = 0};
  d->bytes = b;
  d->nbytes = (size_t)elem_type_bytes(et);
  d->splat = true;
  return store_elem(p, lit, et, b) ? d : NULL;
}

typedef struct lit_list {
  fe_token *elems;
  int64_t n, cap;
  int64_t dims[TOSAC_MAX_RANK];
  bool seen[TOSAC_MAX_RANK];
  int rank; /* -1 until the first scalar shows the nesting depth */
} lit_list;

static bool parse_nested(fe_parser *p, lit_list *l, int depth) {
  fe_token open = p->tok;
  if (depth >= TOSAC_MAX_RANK) return fe_error(p, fe_loc(p, open), "dense literal nests too deeply");
  fe_next(p);
  int64_t count = 0;
  while (p->tok.kind != T_RBRACKET) {
    fe_token t = p->tok;
    if (t.kind == T_LBRACKET) {
      if (!parse_nested(p, l, depth + 1)) return false;
    } else {
      if (t.kind != T_INT && t.kind != T_FLOAT && t.kind != T_IDENT)
        return fe_error(p, fe_loc(p, t), "expected a number in dense literal, found %s", fe_tok_text(p, t));
      if (l->rank < 0) l->rank = depth + 1;
      if (l->rank != depth + 1)
        return fe_error(p, fe_loc(p, t), "inconsistent nesting in dense literal");
      ARENA_PUSH(p->a, l->elems, l->n, l->cap, t);
      fe_next(p);
    }
    count++;
    if (!fe_accept(p, T_COMMA)) break;
  }
  if (!fe_expect(p, T_RBRACKET, "to close the dense literal list")) return false;
  if (l->seen[depth] && l->dims[depth] != count)
    return fe_error(p, fe_loc(p, open), "inconsistent list lengths in dense literal (%lld and %lld)",
                    (long long)l->dims[depth], (long long)count);
  l->seen[depth] = true;
  l->dims[depth] = count;
  return true;
}

static const uint8_t hex_table[256] = {
    ['0'] = 0x10, ['1'] = 0x11, ['2'] = 0x12, ['3'] = 0x13, ['4'] = 0x14, ['5'] = 0x15, ['6'] = 0x16,
    ['7'] = 0x17, ['8'] = 0x18, ['9'] = 0x19, ['a'] = 0x1a, ['b'] = 0x1b, ['c'] = 0x1c, ['d'] = 0x1d,
    ['e'] = 0x1e, ['f'] = 0x1f, ['A'] = 0x1a, ['B'] = 0x1b, ['C'] = 0x1c, ['D'] = 0x1d, ['E'] = 0x1e,
    ['F'] = 0x1f,
};

/* SSE2 (every x86-64): 16 digits -> their values, and-ing validity into *valid. */
#ifdef __SSE2__
static inline __m128i hex_nibbles(__m128i c, __m128i *valid) {
  __m128i d = _mm_sub_epi8(c, _mm_set1_epi8('0'));
  __m128i is_d = _mm_cmpeq_epi8(_mm_min_epu8(d, _mm_set1_epi8(9)), d);
  __m128i a = _mm_sub_epi8(_mm_or_si128(c, _mm_set1_epi8(0x20)), _mm_set1_epi8('a'));
  __m128i is_a = _mm_cmpeq_epi8(_mm_min_epu8(a, _mm_set1_epi8(5)), a);
  *valid = _mm_and_si128(*valid, _mm_or_si128(is_d, is_a));
  return _mm_or_si128(_mm_and_si128(d, is_d), _mm_and_si128(_mm_add_epi8(a, _mm_set1_epi8(10)), is_a));
}

/* Digit pairs (first, second) as 16-bit lanes -> first << 4 | second in each lane's low byte. */
static inline __m128i hex_join(__m128i v) {
  return _mm_or_si128(_mm_and_si128(_mm_slli_epi16(v, 4), _mm_set1_epi16(0xf0)), _mm_srli_epi16(v, 8));
}
#endif

/* n pairs of hex digits from s into b; returns 0x10 when every character was a hex digit (bit 4
 * of every table entry), 0 otherwise. No branch per byte: validity is accumulated and checked
 * once by the caller. SSE2 (every x86-64) decodes 32 digits per step; the table does the rest. */
static unsigned hex_pairs(const unsigned char *s, uint8_t *b, size_t n) {
  unsigned ok = 0x10;
  size_t i = 0;
#ifdef __SSE2__
  __m128i valid = _mm_set1_epi8(-1);
  /* Large arena blocks are 16-byte aligned: large outputs take streaming stores, which skip
   * reading each destination line before overwriting it. */
  bool stream = ((uintptr_t)b & 15) == 0 && n >= FE_LONG_STRING;
  for (; i + 16 <= n; i += 16) {
    __m128i c0 = _mm_loadu_si128((const __m128i *)(s + 2 * i));
    __m128i c1 = _mm_loadu_si128((const __m128i *)(s + 2 * i + 16));
    __m128i v0 = hex_join(hex_nibbles(c0, &valid)), v1 = hex_join(hex_nibbles(c1, &valid));
    if (stream) _mm_stream_si128((__m128i *)(b + i), _mm_packus_epi16(v0, v1));
    else _mm_storeu_si128((__m128i *)(b + i), _mm_packus_epi16(v0, v1));
  }
  if (stream) _mm_sfence();
  if (_mm_movemask_epi8(valid) != 0xffff) ok = 0;
#endif
  for (; i < n; i++) {
    unsigned h = hex_table[s[2 * i]], l = hex_table[s[2 * i + 1]];
    ok &= h & l;
    b[i] = (uint8_t)(h << 4 | (l & 0xf));
  }
  return ok;
}

/* Map the fresh pages of a large output buffer in one call instead of one page fault per 4 KiB
 * page as the decoder reaches them (faults are most of the decode time under virtualisation). */
static void prefault(void *b, size_t n) {
#ifdef MADV_POPULATE_WRITE
  uintptr_t ps = 4096, lo = ((uintptr_t)b + ps - 1) & ~(ps - 1), hi = ((uintptr_t)b + n) & ~(ps - 1);
  if (hi > lo) madvise((void *)lo, hi - lo, MADV_POPULATE_WRITE); /* a hint: failure changes nothing */
#else
  (void)b, (void)n;
#endif
}

/* Hex text decoded per chunk, so the consumed text can be released while the rest is read. */
#define HEX_CHUNK (256 * 1024)

bool fe_hex_decode(const source_file *src, const char *s, size_t n, uint8_t *b) {
  if (n >= FE_LONG_STRING) prefault(b, n);
  unsigned ok = 0x10;
  const char *low = s;
  for (size_t i = 0; i < n; i += HEX_CHUNK / 2) {
    size_t m = n - i < HEX_CHUNK / 2 ? n - i : HEX_CHUNK / 2;
    ok &= hex_pairs((const unsigned char *)s + 2 * i, b + i, m);
    const char *done = s + 2 * (i + m);
    if (2 * n >= FE_LONG_STRING && (done - low >= FE_RELEASE_STEP || i + m == n))
      low = source_release(src, low, done);
  }
  return ok != 0;
}

/* "0x..." string token -> bytes in the arena, in one pass over the text (the lexer already
 * decoded long ones while it scanned them). */
static bool decode_hex(fe_parser *p, fe_token t, uint8_t **out, size_t *n) {
  const fe_long_string *ls = fe_lex_long_string(&p->lx, t.p);
  if (ls && ls->bytes && ls->valid) {
    *out = ls->bytes;
    *n = ls->nbytes;
    return true;
  }
  const unsigned char *s = (const unsigned char *)t.p + 1;
  size_t len = (size_t)t.n - 2;
  if (len < 2 || s[0] != '0' || (s[1] != 'x' && s[1] != 'X'))
    return fe_error(p, fe_loc(p, t), "expected a hexadecimal string \"0x...\" in dense literal");
  s += 2;
  len -= 2;
  if (len % 2)
    return fe_error(p, fe_loc(p, t), "hexadecimal literal has an odd number of digits (%zu)", len);
  size_t nb = len / 2;
  uint8_t *b = arena_alloc_raw(p->a, nb ? nb : 1); /* every byte is written below */
  bool ok = fe_hex_decode(p->src, (const char *)s, nb, b);
  if (!ok) {
    for (size_t i = 0; i < len; i++) {
      if (!hex_table[s[i]]) {
        src_loc at = fe_loc(p, t);
        at.col += 3 + (int)i;
        return fe_error(p, at, "invalid hexadecimal digit '%c' in dense literal", s[i] >= 0x20 && s[i] < 0x7f ? s[i] : '?');
      }
    }
  }
  *out = b;
  *n = nb;
  return true;
}

/* Raw little-endian bytes for type t: the whole tensor or a single splat element. i1 also
 * accepts MLIR's bit-packed form. */
static bool raw_to_dense(fe_parser *p, src_loc at, const char *what, const uint8_t *b, size_t nb,
                         const tensor_type *t, dense_data *dd) {
  int64_t numel = tensor_numel(t);
  size_t eb = (size_t)elem_type_bytes(t->elem);
  char tb[160];
  dd->type = *t;
  if (t->elem == ET_I1 && nb != (size_t)numel && numel > 1) {
    if (nb == 1 && (b[0] == 0 || b[0] == 0xff || b[0] == 1)) {
      uint8_t *one = arena_alloc(p->a, 1);
      one[0] = b[0] != 0;
      dd->bytes = one, dd->nbytes = 1, dd->splat = true;
      return true;
    }
    if (nb == (size_t)(numel + 7) / 8) {
      uint8_t *v = arena_alloc(p->a, (size_t)numel);
      for (int64_t i = 0; i < numel; i++) v[i] = (b[i / 8] >> (i % 8)) & 1;
      dd->bytes = v, dd->nbytes = (size_t)numel, dd->splat = false;
      return true;
    }
  }
  if (nb == (size_t)numel * eb) {
    if (t->elem == ET_I1) {
      uint8_t *v = arena_alloc(p->a, nb ? nb : 1);
      for (size_t i = 0; i < nb; i++) v[i] = b[i] != 0;
      b = v;
    }
    dd->bytes = b, dd->nbytes = nb, dd->splat = false;
    return true;
  }
  if (nb == eb) {
    dd->bytes = b, dd->nbytes = nb, dd->splat = true;
    return true;
  }
  return fe_error(p, at, "%s has %zu bytes, but %s needs %lld (or %zu for a splat)", what, nb,
                  fe_type_str(t, tb, sizeof tb), (long long)numel * (long long)eb, eb);
}

static bool parse_literal_type(fe_parser *p, tensor_type *t) {
  if (!fe_expect(p, T_COLON, "and a type after the dense literal")) return false;
  src_loc tl;
  return fe_parse_type(p, t, &tl);
}

bool fe_parse_dense(fe_parser *p, attr *out) {
  fe_next(p);
  if (!fe_expect(p, T_LANGLE, "after 'dense'")) return false;
  fe_token first = p->tok;
  lit_list l = {.rank = -1};
  uint8_t *hex = NULL;
  size_t hexn = 0;
  bool splat = false;
  if (first.kind == T_STRING) {
    if (!decode_hex(p, first, &hex, &hexn)) return false;
    fe_next(p);
  } else if (first.kind == T_LBRACKET) {
    if (!parse_nested(p, &l, 0)) return false;
    if (l.rank < 0) l.rank = 1; /* [] or [[]] */
  } else if (first.kind != T_RANGLE) {
    if (first.kind != T_INT && first.kind != T_FLOAT && first.kind != T_IDENT)
      return fe_error(p, fe_loc(p, first), "expected a dense literal, found %s", fe_tok_text(p, first));
    ARENA_PUSH(p->a, l.elems, l.n, l.cap, first);
    splat = true;
    fe_next(p);
  } else {
    l.rank = 1; /* dense<> : tensor<0xf32> */
  }
  if (!fe_expect(p, T_RANGLE, "to close 'dense<'")) return false;
  tensor_type t;
  if (!parse_literal_type(p, &t)) return false;
  dense_data *dd = arena_alloc(p->a, sizeof *dd);
  out->kind = ATTR_DENSE;
  out->dense = dd;
  out->type_elem = t.elem;
  if (hex) return raw_to_dense(p, fe_loc(p, first), "hexadecimal dense literal", hex, hexn, &t, dd);
  int64_t numel = tensor_numel(&t);
  char tb[160];
  if (!splat) {
    bool same = l.rank == t.rank || (numel == 0 && l.n == 0);
    for (int i = 0; same && i < t.rank && i < l.rank; i++) same = l.dims[i] == t.dims[i];
    if (!same) {
      if (l.n != numel)
        return fe_error(p, fe_loc(p, first), "dense literal has %lld elements, but %s has %lld", (long long)l.n,
                        fe_type_str(&t, tb, sizeof tb), (long long)numel);
      return fe_error(p, fe_loc(p, first), "dense literal nesting does not match the shape of %s",
                      fe_type_str(&t, tb, sizeof tb));
    }
  }
  size_t eb = (size_t)elem_type_bytes(t.elem);
  uint8_t *b = arena_alloc(p->a, (size_t)(l.n ? l.n : 1) * eb);
  for (int64_t i = 0; i < l.n; i++)
    if (!store_elem(p, l.elems[i], t.elem, b + (size_t)i * eb)) return false;
  dd->type = t;
  dd->bytes = b;
  dd->nbytes = (size_t)l.n * eb;
  dd->splat = splat;
  return true;
}

bool fe_parse_dense_resource(fe_parser *p, attr *out) {
  fe_next(p);
  if (!fe_expect(p, T_LANGLE, "after 'dense_resource'")) return false;
  fe_token nt = p->tok;
  if (nt.kind != T_IDENT && nt.kind != T_STRING)
    return fe_error(p, fe_loc(p, nt), "expected a resource name in 'dense_resource<', found %s", fe_tok_text(p, nt));
  fe_next(p);
  if (!fe_expect(p, T_RANGLE, "to close 'dense_resource<'")) return false;
  tensor_type t;
  if (!parse_literal_type(p, &t)) return false;
  const char *name = nt.kind == T_STRING ? nt.p + 1 : nt.p;
  int nlen = nt.kind == T_STRING ? nt.n - 2 : nt.n;
  for (int i = 0; i < p->nblobs; i++) {
    fe_blob *bl = &p->blobs[i];
    if (bl->nlen == nlen && !memcmp(bl->name, name, (size_t)nlen)) {
      dense_data *dd = arena_alloc(p->a, sizeof *dd);
      out->kind = ATTR_DENSE;
      out->dense = dd;
      out->type_elem = t.elem;
      return raw_to_dense(p, fe_loc(p, nt), "resource blob", bl->bytes, bl->n, &t, dd);
    }
  }
  return fe_error(p, fe_loc(p, nt), "unknown resource '%.*s' (no such blob in the file's dialect_resources)", nlen,
                  name);
}

/* ---------------------------------------------------------------- {-# dialect_resources #-} */
static bool parse_res_dict(fe_parser *p, int depth, bool blobs) {
  if (!fe_expect(p, T_LBRACE, "in the resource section")) return false;
  while (p->tok.kind != T_RBRACE) {
    fe_token key = p->tok;
    if (key.kind == T_EOF) return fe_expect(p, T_RBRACE, "to close the resource dictionary");
    if (key.kind != T_IDENT && key.kind != T_STRING)
      return fe_error(p, fe_loc(p, key), "expected a resource key, found %s", fe_tok_text(p, key));
    fe_next(p);
    if (!fe_expect(p, T_COLON, "after the resource key")) return false;
    if (p->tok.kind == T_LBRACE) {
      if (!parse_res_dict(p, depth + 1, blobs)) return false;
    } else if (p->tok.kind == T_STRING && blobs && depth == 1) {
      fe_token v = p->tok;
      uint8_t *b;
      size_t n;
      if (!decode_hex(p, v, &b, &n)) return false;
      if (n < 4) return fe_error(p, fe_loc(p, v), "resource blob is shorter than its 4-byte alignment prefix");
      fe_blob bl = {.name = key.kind == T_STRING ? key.p + 1 : key.p,
                    .nlen = key.kind == T_STRING ? key.n - 2 : key.n,
                    .bytes = b + 4,
                    .n = n - 4};
      ARENA_PUSH(p->a, p->blobs, p->nblobs, p->capblobs, bl);
      fe_next(p);
    } else {
      attr ignored = {0};
      if (!fe_parse_attr_value(p, &ignored)) return false;
    }
    if (!fe_accept(p, T_COMMA)) break;
  }
  return fe_expect(p, T_RBRACE, "to close the resource dictionary");
}

bool fe_parse_resources(fe_parser *p) {
  fe_next(p); /* {-# */
  while (p->tok.kind != T_META_END) {
    fe_token key = p->tok;
    if (key.kind != T_IDENT)
      return fe_error(p, fe_loc(p, key), "expected a resource section name or '#-}', found %s", fe_tok_text(p, key));
    fe_next(p);
    if (!fe_expect(p, T_COLON, "after the resource section name")) return false;
    bool blobs = key.n == 17 && !memcmp(key.p, "dialect_resources", 17);
    if (!parse_res_dict(p, 0, blobs)) return false;
    fe_accept(p, T_COMMA);
  }
  fe_next(p);
  return true;
}
