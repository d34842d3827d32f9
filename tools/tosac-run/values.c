/* values.c: host tensors for tosac-run: iree-run-module style parsing and printing, 16-bit float
 * conversions, .npy reading/writing and the expected-output comparison. */
#include "run.h"

#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#define NPY_MAGIC "\x93NUMPY"

bool run_elem_supported(elem_type t) {
  switch (t) {
  case ET_I1: case ET_I8: case ET_I16: case ET_I32: case ET_I48: case ET_I64:
  case ET_F16: case ET_BF16: case ET_F32: case ET_F64:
    return true;
  default:
    return elem_type_is_f8(t); /* moved as bytes, printed decoded, read from .npy only */
  }
}

/* An 8-bit float's value: OCP f8E4M3FN (no Inf, S.1111.111 NaN), OCP f8E5M2 (IEEE-like), AMD's
 * FNUZ forms (bias 2^(e-1), 0x80 the only NaN). */
static double f8_to_double(elem_type t, uint8_t b) {
  bool fnuz = t == ET_F8E4M3FNUZ || t == ET_F8E5M2FNUZ;
  int mb = t == ET_F8E4M3FN || t == ET_F8E4M3FNUZ ? 3 : 2, eb = 7 - mb;
  int bias = (1 << (eb - 1)) - (fnuz ? 0 : 1), e = (b >> mb) & ((1 << eb) - 1), m = b & ((1 << mb) - 1);
  if (fnuz && b == 0x80)
    return NAN;
  if (t == ET_F8E4M3FN && (b & 0x7f) == 0x7f)
    return NAN;
  if (t == ET_F8E5M2 && e == 31)
    return m ? NAN : (b & 0x80) ? -INFINITY : INFINITY;
  double r = e ? ldexp(m | 1 << mb, e - bias - mb) : ldexp(m, 1 - bias - mb);
  return b & 0x80 ? -r : r;
}

bool run_parse_shape_type(const char *s, size_t n, tensor_type *out) {
  memset(out, 0, sizeof(*out));
  /* The element type follows the last 'x'; everything before it is the shape. */
  size_t last_x = n;
  for (size_t i = 0; i < n; i++)
    if (s[i] == 'x')
      last_x = i;
  size_t type_start = last_x == n ? 0 : last_x + 1;
  out->elem = elem_type_parse(s + type_start, n - type_start);
  if (!run_elem_supported(out->elem))
    return false;
  size_t i = 0;
  while (last_x != n && i < last_x) {
    if (out->rank == TOSAC_MAX_RANK || s[i] < '0' || s[i] > '9')
      return false;
    int64_t d = 0;
    while (i < last_x && s[i] >= '0' && s[i] <= '9') {
      d = d * 10 + (s[i++] - '0');
      if (d > ((int64_t)1 << 40))
        return false;
    }
    out->dims[out->rank++] = d;
    if (i < last_x && s[i++] != 'x')
      return false;
  }
  return true;
}

char *run_shape_type_str(const tensor_type *t, char *buf, size_t size) {
  size_t n = 0;
  buf[0] = 0;
  for (int i = 0; i < t->rank && n < size; i++)
    n += (size_t)snprintf(buf + n, size - n, "%" PRId64 "x", t->dims[i]);
  if (n < size)
    snprintf(buf + n, size - n, "%s", elem_type_name(t->elem));
  return buf;
}

/* ---------------------------------------------------------------- 16-bit floats */

/* Round a double to a binary format with ebits/mbits, nearest-even, overflow to infinity. */
static uint16_t small_float_from_double(double x, int ebits, int mbits) {
  uint16_t sign = signbit(x) ? (uint16_t)(1u << (ebits + mbits)) : 0;
  uint16_t expmask = (uint16_t)(((1u << ebits) - 1) << mbits);
  if (isnan(x))
    return sign | expmask | (uint16_t)(1u << (mbits - 1));
  double a = fabs(x);
  if (isinf(a))
    return sign | expmask;
  int bias = (1 << (ebits - 1)) - 1, emin = 1 - bias;
  if (a < ldexp(1.0, emin)) /* subnormal: a multiple of 2^(emin-mbits); may round up to min normal */
    return sign | (uint16_t)rint(ldexp(a, mbits - emin));
  int e;
  double f = frexp(a, &e); /* a = f * 2^e, f in [0.5, 1) */
  int exp = e - 1;
  double m = rint(ldexp(f, mbits + 1)); /* in [2^mbits, 2^(mbits+1)] */
  if (m >= ldexp(1.0, mbits + 1)) {
    m = ldexp(1.0, mbits);
    exp++;
  }
  if (exp > bias)
    return sign | expmask;
  return sign | (uint16_t)((exp + bias) << mbits) | (uint16_t)((uint32_t)m - (1u << mbits));
}

uint16_t run_f16_from_double(double x) { return small_float_from_double(x, 5, 10); }
uint16_t run_bf16_from_double(double x) { return small_float_from_double(x, 8, 7); }

float run_f16_to_float(uint16_t h) {
  int sign = h >> 15, exp = (h >> 10) & 31, man = h & 1023;
  float v;
  if (exp == 31)
    v = man ? NAN : INFINITY;
  else if (exp == 0)
    v = ldexpf((float)man, -24);
  else
    v = ldexpf((float)(man | 1024), exp - 25);
  return sign ? -v : v;
}

float run_bf16_to_float(uint16_t h) {
  uint32_t bits = (uint32_t)h << 16;
  float f;
  memcpy(&f, &bits, 4);
  return f;
}

/* ---------------------------------------------------------------- elements */

double run_value_get(const run_value *v, size_t i) {
  const uint8_t *p = v->data + i * (size_t)elem_type_bytes(v->type.elem);
  switch (v->type.elem) {
  case ET_I1: case ET_I8: return (int8_t)p[0];
  case ET_I16: { int16_t x; memcpy(&x, p, 2); return x; }
  case ET_I32: { int32_t x; memcpy(&x, p, 4); return x; }
  case ET_I48: /* sign-extended in 8 bytes */
  case ET_I64: { int64_t x; memcpy(&x, p, 8); return (double)x; }
  case ET_F16: { uint16_t x; memcpy(&x, p, 2); return run_f16_to_float(x); }
  case ET_BF16: { uint16_t x; memcpy(&x, p, 2); return run_bf16_to_float(x); }
  case ET_F32: { float x; memcpy(&x, p, 4); return x; }
  case ET_F64: { double x; memcpy(&x, p, 8); return x; }
  default: return elem_type_is_f8(v->type.elem) ? f8_to_double(v->type.elem, p[0]) : 0;
  }
}

/* Does text read back (as type t) to exactly the bits at p? */
static bool reads_back(const char *text, elem_type t, const uint8_t *p) {
  uint8_t got[8];
  switch (t) {
  case ET_F32: { float f = strtof(text, NULL); memcpy(got, &f, 4); return memcmp(got, p, 4) == 0; }
  case ET_F64: { double d = strtod(text, NULL); memcpy(got, &d, 8); return memcmp(got, p, 8) == 0; }
  case ET_F16: { uint16_t h = run_f16_from_double(strtod(text, NULL)); return memcmp(&h, p, 2) == 0; }
  case ET_BF16: { uint16_t h = run_bf16_from_double(strtod(text, NULL)); return memcmp(&h, p, 2) == 0; }
  default: return true;
  }
}

void run_format_element(const run_value *v, size_t i, char *buf, size_t size) {
  elem_type t = v->type.elem;
  const uint8_t *p = v->data + i * (size_t)elem_type_bytes(t);
  if (t == ET_I64 || t == ET_I48) {
    int64_t x;
    memcpy(&x, p, 8);
    snprintf(buf, size, "%" PRId64, x);
    return;
  }
  double x = run_value_get(v, i);
  if (!elem_type_is_float(t)) {
    snprintf(buf, size, "%.0f", x);
    return;
  }
  if (isnan(x)) {
    snprintf(buf, size, "nan");
    return;
  }
  if (isinf(x)) {
    snprintf(buf, size, x < 0 ? "-inf" : "inf");
    return;
  }
  /* Shortest %g that round-trips: 9 digits always suffice for f32, 17 for f64, 5 for f16 and
   * 4 for bf16, so values print like iree ("0.1", "2.5") yet never lose bits. */
  int maxp = t == ET_F64 ? 17 : t == ET_F32 ? 9 : t == ET_F16 ? 5 : 4;
  /* Start with enough digits for the integer part so 65504 does not print as 6.55e+04. */
  int int_digits = fabs(x) >= 1 ? (int)floor(log10(fabs(x))) + 1 : 1;
  for (int prec = int_digits < maxp ? int_digits : maxp; prec <= maxp; prec++) {
    snprintf(buf, size, "%.*g", prec, x);
    if (reads_back(buf, t, p))
      return;
  }
}

/* Parse one element token into p. */
static bool parse_element(const char *tok, elem_type t, uint8_t *p) {
  char *end;
  errno = 0;
  if (elem_type_is_f8(t))
    return false; /* 8-bit floats come as .npy bit arrays only */
  if (elem_type_is_float(t)) {
    if (t == ET_F32) {
      float f = strtof(tok, &end);
      if (*end || end == tok)
        return false;
      memcpy(p, &f, 4);
      return true;
    }
    double d = strtod(tok, &end);
    if (*end || end == tok)
      return false;
    uint16_t h = t == ET_F16 ? run_f16_from_double(d) : run_bf16_from_double(d);
    if (t == ET_F64)
      memcpy(p, &d, 8);
    else
      memcpy(p, &h, 2);
    return true;
  }
  if (t == ET_I1 && (strcmp(tok, "true") == 0 || strcmp(tok, "false") == 0)) {
    p[0] = tok[0] == 't';
    return true;
  }
  if (t == ET_I48) { /* 48-bit range, stored sign-extended */
    long long x = strtoll(tok, &end, 10);
    if (*end || end == tok || errno || x < -(1ll << 47) || x >= (1ll << 47))
      return false;
    int64_t y = x;
    memcpy(p, &y, 8);
    return true;
  }
  if (t == ET_I64) {
    int64_t x = strtoll(tok, &end, 10);
    if (errno == ERANGE && tok[0] != '-') {
      errno = 0;
      x = (int64_t)strtoull(tok, &end, 10);
    }
    if (*end || end == tok || errno)
      return false;
    memcpy(p, &x, 8);
    return true;
  }
  long long x = strtoll(tok, &end, 10);
  if (*end || end == tok || errno)
    return false;
  /* Like iree, accept both the signed and the unsigned range of the width. */
  int bits = elem_type_bits(t);
  long long lo = t == ET_I1 ? 0 : -(1LL << (bits - 1)), hi = t == ET_I1 ? 1 : (1LL << bits) - 1;
  if (x < lo || x > hi)
    return false;
  memcpy(p, &x, (size_t)elem_type_bytes(t)); /* little-endian host: low bytes first */
  return true;
}

void run_value_init(run_value *v, const tensor_type *t) {
  v->type = *t;
  v->bytes = (size_t)tensor_bytes(t);
  v->data = v->bytes ? calloc(1, v->bytes) : NULL;
  if (v->bytes && !v->data) {
    fprintf(stderr, "tosac-run: error: out of memory\n");
    exit(1);
  }
}

void run_value_free(run_value *v) {
  free(v->data);
  v->data = NULL;
  v->bytes = 0;
}

void run_value_list_free(run_value_list *l) {
  for (int i = 0; i < l->count; i++)
    run_value_free(&l->items[i]);
  free(l->items);
  memset(l, 0, sizeof(*l));
}

void run_cursor_free(run_file_cursor *c) {
  free(c->path);
  free(c->data);
  memset(c, 0, sizeof(*c));
}

void run_value_list_push(run_value_list *l, run_value v) {
  if (l->count == l->cap) {
    l->cap = l->cap ? l->cap * 2 : 8;
    l->items = realloc(l->items, (size_t)l->cap * sizeof(*l->items));
    if (!l->items) {
      fprintf(stderr, "tosac-run: error: out of memory\n");
      exit(1);
    }
  }
  l->items[l->count++] = v;
}

/* Values text: tokens separated by blanks, commas and brackets; one token splats. */
static bool parse_text_values(const char *text, run_value *v, char *err, size_t errsize) {
  size_t n = (size_t)tensor_numel(&v->type), count = 0;
  size_t esize = (size_t)elem_type_bytes(v->type.elem);
  const char *s = text;
  char tok[128];
  for (;;) {
    while (*s && strchr(" \t\r\n,[]", *s))
      s++;
    if (!*s)
      break;
    size_t len = strcspn(s, " \t\r\n,[]");
    if (len >= sizeof(tok)) {
      snprintf(err, errsize, "element %zu is too long", count);
      return false;
    }
    memcpy(tok, s, len);
    tok[len] = 0;
    s += len;
    uint8_t elem[8];
    if (!parse_element(tok, v->type.elem, elem)) {
      snprintf(err, errsize, "element %zu: '%s' is not a valid %s", count, tok,
               elem_type_name(v->type.elem));
      return false;
    }
    if (count < n)
      memcpy(v->data + count * esize, elem, esize);
    count++;
  }
  if (count == 1 && n > 1) {
    for (size_t i = 1; i < n; i++)
      memcpy(v->data + i * esize, v->data, esize);
  } else if (count != n && count != 0) {
    char ts[160];
    snprintf(err, errsize, "%s needs %zu values, got %zu", run_shape_type_str(&v->type, ts, sizeof(ts)),
             n, count);
    return false;
  }
  return true;
}

/* Make cur hold path (reading it if it is a different file); restart at 0 unless `cont`. */
static bool cursor_open(run_file_cursor *cur, const char *path, bool cont, char *err,
                        size_t errsize) {
  if (cur->path && strcmp(cur->path, path) == 0) {
    if (!cont)
      cur->pos = 0;
    return true;
  }
  run_cursor_free(cur);
  size_t size;
  char *data = read_file(path, &size, err, errsize);
  if (!data)
    return false;
  cur->path = strdup(path);
  cur->data = (uint8_t *)data;
  cur->size = size;
  cur->pos = 0;
  return true;
}

static bool has_suffix(const char *s, const char *suffix) {
  size_t n = strlen(s), m = strlen(suffix);
  return n >= m && strcmp(s + n - m, suffix) == 0;
}

static bool is_npy(const run_file_cursor *cur, const char *path) {
  return has_suffix(path, ".npy") ||
         (cur->size >= 6 && memcmp(cur->data, NPY_MAGIC, 6) == 0);
}

static const tensor_type *hint_at(const tensor_type *hints, int nhints, int pos) {
  return hints && pos < nhints ? &hints[pos] : NULL;
}

/* "@file" / "+file" / "*file" without a shape: .npy arrays, or a text file of specs. */
static bool parse_file_spec(const char *spec, const tensor_type *hints, int nhints,
                            run_value_list *out, run_file_cursor *cur, char *err,
                            size_t errsize) {
  char mode = spec[0];
  const char *path = spec + 1;
  if (!cursor_open(cur, path, mode == '+', err, errsize))
    return false;
  if (!is_npy(cur, path)) {
    if (mode != '@') {
      snprintf(err, errsize, "%s: not a .npy file", path);
      return false;
    }
    /* A list of specs, one per line; copy it since parsing reuses the cursor. */
    char *text = malloc(cur->size + 1);
    memcpy(text, cur->data, cur->size);
    text[cur->size] = 0;
    bool ok = true;
    for (char *line = strtok(text, "\n"); ok && line; line = strtok(NULL, "\n")) {
      line[strcspn(line, "\r")] = 0;
      if (line[0] && line[0] != '#')
        ok = run_parse_value(line, hints, nhints, out, cur, err, errsize);
    }
    free(text);
    return ok;
  }
  do {
    run_value v;
    char sub[256];
    if (!run_npy_read(cur->data, cur->size, &cur->pos, &v, sub, sizeof(sub))) {
      snprintf(err, errsize, "%s: %s", path, sub);
      return false;
    }
    const tensor_type *h = hint_at(hints, nhints, out->count);
    if (h && elem_type_is_f8(v.type.elem) && elem_type_is_f8(h->elem))
      v.type.elem = h->elem;
    if (h && v.type.elem == ET_I64 && h->elem == ET_I48) /* int64 arrays feed i48 arguments */
      v.type.elem = ET_I48;
    /* uint8 / uint16 arrays (read as 8-bit float / bf16 bits) feed i8 / i16 arguments: a ui8 in
     * the source is stored signless */
    if (h && ((elem_type_is_f8(v.type.elem) && h->elem == ET_I8) || (v.type.elem == ET_BF16 && h->elem == ET_I16)))
      v.type.elem = h->elem;
    run_value_list_push(out, v);
  } while (mode == '*' && cur->pos < cur->size);
  return true;
}

bool run_parse_value(const char *spec, const tensor_type *hints, int nhints, run_value_list *out,
                     run_file_cursor *cur, char *err, size_t errsize) {
  while (*spec == ' ' || *spec == '"')
    spec++;
  if (spec[0] == '@' || spec[0] == '+' || spec[0] == '*')
    return parse_file_spec(spec, hints, nhints, out, cur, err, errsize);

  const char *eq = strchr(spec, '=');
  size_t lhs_len = eq ? (size_t)(eq - spec) : strlen(spec);
  tensor_type t;
  run_value v;
  if (!run_parse_shape_type(spec, lhs_len, &t)) {
    if (eq) {
      snprintf(err, errsize, "'%.*s' is not a shape and element type like 2x3xf32", (int)lhs_len,
               spec);
      return false;
    }
    /* A bare scalar: its type is the one the function expects. */
    const tensor_type *hint = hint_at(hints, nhints, out->count);
    if (!hint) {
      snprintf(err, errsize, "cannot tell the element type of '%s'; write it as f32=%s", spec,
               spec);
      return false;
    }
    t = (tensor_type){.elem = hint->elem, .rank = 0};
    run_value_init(&v, &t);
    if (!parse_element(spec, t.elem, v.data)) {
      snprintf(err, errsize, "'%s' is not a valid %s", spec, elem_type_name(t.elem));
      run_value_free(&v);
      return false;
    }
    run_value_list_push(out, v);
    return true;
  }
  if (tensor_bytes(&t) > RUN_MAX_VALUE_BYTES) {
    snprintf(err, errsize, "%.*s needs %lld bytes; tosac-run holds values up to %lld bytes",
             (int)lhs_len, spec, (long long)tensor_bytes(&t), (long long)RUN_MAX_VALUE_BYTES);
    return false;
  }
  run_value_init(&v, &t);
  const char *data = eq ? eq + 1 : "";
  if (data[0] == '@' || data[0] == '+') { /* raw little-endian bytes */
    if (!cursor_open(cur, data + 1, data[0] == '+', err, errsize)) {
      run_value_free(&v);
      return false;
    }
    if (cur->size - cur->pos < v.bytes) {
      snprintf(err, errsize, "%s: needs %zu bytes at offset %zu, file has %zu", data + 1, v.bytes,
               cur->pos, cur->size);
      run_value_free(&v);
      return false;
    }
    if (v.bytes)
      memcpy(v.data, cur->data + cur->pos, v.bytes);
    cur->pos += v.bytes;
  } else if (!parse_text_values(data, &v, err, errsize)) {
    run_value_free(&v);
    return false;
  }
  run_value_list_push(out, v);
  return true;
}

/* ---------------------------------------------------------------- printing */

typedef struct printer {
  FILE *f;
  const run_value *v;
  size_t next;    /* next element index */
  int64_t budget; /* elements left to print; <0 once "..." was printed */
} printer;

static void print_dim(printer *p, int d) {
  const tensor_type *t = &p->v->type;
  for (int64_t i = 0; i < t->dims[d] && p->budget >= 0; i++) {
    if (d == t->rank - 1) {
      if (p->budget == 0) {
        fputs("...", p->f);
        p->budget = -1;
        return;
      }
      char buf[64];
      run_format_element(p->v, p->next++, buf, sizeof(buf));
      fprintf(p->f, i ? " %s" : "%s", buf);
      p->budget--;
    } else {
      fputc('[', p->f);
      print_dim(p, d + 1);
      fputc(']', p->f);
    }
  }
}

void run_print_value(FILE *f, const run_value *v, int64_t max_elems) {
  char ts[160];
  fprintf(f, "%s=", run_shape_type_str(&v->type, ts, sizeof(ts)));
  if (v->type.rank == 0) {
    char buf[64];
    run_format_element(v, 0, buf, sizeof(buf));
    fputs(buf, f);
  } else {
    printer p = {f, v, 0, max_elems};
    print_dim(&p, 0);
  }
  fputc('\n', f);
}

/* ---------------------------------------------------------------- .npy */

typedef struct npy_dtype {
  const char *descr; /* without the byte-order character */
  elem_type type;
} npy_dtype;

/* bf16 has no numpy dtype: it travels as its raw bits, '<u2'; so do the 8-bit floats, as
 * '|u1' (read as f8E4M3FN, retagged to the argument's 8-bit float type). */
static const npy_dtype npy_dtypes[] = {
    {"f4", ET_F32}, {"f2", ET_F16}, {"f8", ET_F64}, {"i4", ET_I32}, {"i2", ET_I16},
    {"i1", ET_I8},  {"i8", ET_I48}, {"i8", ET_I64}, {"b1", ET_I1},  {"u2", ET_BF16}, {"u1", ET_F8E5M2},
    {"u1", ET_F8E4M3FNUZ}, {"u1", ET_F8E5M2FNUZ}, {"u1", ET_F8E4M3FN},
};

static const char *header_value(const char *hdr, const char *key) {
  const char *k = strstr(hdr, key);
  if (!k)
    return NULL;
  k = strchr(k + strlen(key), ':');
  if (!k)
    return NULL;
  k++;
  while (*k == ' ')
    k++;
  return k;
}

bool run_npy_read(const uint8_t *data, size_t size, size_t *pos, run_value *out, char *err,
                  size_t errsize) {
  memset(out, 0, sizeof(*out));
  const uint8_t *p = data + *pos;
  size_t avail = size - *pos;
  if (avail < 10 || memcmp(p, NPY_MAGIC, 6) != 0) {
    snprintf(err, errsize, "not a .npy array at offset %zu", *pos);
    return false;
  }
  int major = p[6];
  size_t hlen, hstart;
  if (major == 1) {
    hlen = p[8] | (size_t)p[9] << 8;
    hstart = 10;
  } else if (major == 2 || major == 3) {
    if (avail < 12) {
      snprintf(err, errsize, "truncated .npy header");
      return false;
    }
    hlen = p[8] | (size_t)p[9] << 8 | (size_t)p[10] << 16 | (size_t)p[11] << 24;
    hstart = 12;
  } else {
    snprintf(err, errsize, "unsupported .npy format version %d", major);
    return false;
  }
  if (hlen > avail - hstart || hlen > 1 << 20) {
    snprintf(err, errsize, "truncated .npy header");
    return false;
  }
  char *hdr = malloc(hlen + 1);
  memcpy(hdr, p + hstart, hlen);
  hdr[hlen] = 0;
  bool ok = false;
  const char *descr = header_value(hdr, "'descr'");
  const char *fortran = header_value(hdr, "'fortran_order'");
  const char *shape = header_value(hdr, "'shape'");
  tensor_type t = {0};
  if (!descr || !fortran || !shape || (*descr != '\'' && *descr != '"') || *shape != '(') {
    snprintf(err, errsize, "malformed .npy header");
    goto done;
  }
  if (strncmp(fortran, "False", 5) != 0) {
    snprintf(err, errsize, "Fortran-order .npy arrays are not supported");
    goto done;
  }
  char order = descr[1];
  size_t dlen = strcspn(descr + 1, "'\"");
  for (size_t i = 0; i < sizeof(npy_dtypes) / sizeof(npy_dtypes[0]); i++)
    if (dlen == 3 && memcmp(descr + 2, npy_dtypes[i].descr, 2) == 0)
      t.elem = npy_dtypes[i].type;
  if (t.elem == ET_INVALID || (order != '<' && order != '|' && order != '=' &&
                               !(order == '>' && elem_type_bytes(t.elem) == 1))) {
    snprintf(err, errsize, "unsupported .npy dtype %.*s", (int)dlen, descr + 1);
    goto done;
  }
  for (const char *s = shape + 1; *s != ')';) {
    while (*s == ' ' || *s == ',')
      s++;
    if (*s == ')')
      break;
    char *end;
    long long d = strtoll(s, &end, 10);
    if (end == s || d < 0 || t.rank == TOSAC_MAX_RANK) {
      snprintf(err, errsize, "malformed .npy shape");
      goto done;
    }
    t.dims[t.rank++] = d;
    s = end;
  }
  size_t bytes = (size_t)tensor_bytes(&t);
  if (bytes > avail - hstart - hlen) {
    snprintf(err, errsize, ".npy data is truncated: needs %zu bytes, has %zu", bytes,
             avail - hstart - hlen);
    goto done;
  }
  run_value_init(out, &t);
  if (bytes)
    memcpy(out->data, p + hstart + hlen, bytes);
  *pos += hstart + hlen + bytes;
  ok = true;
done:
  free(hdr);
  return ok;
}

uint8_t *run_npy_encode(const run_value *v, size_t *out_size) {
  const char *descr = "";
  for (size_t i = 0; i < sizeof(npy_dtypes) / sizeof(npy_dtypes[0]); i++)
    if (npy_dtypes[i].type == v->type.elem)
      descr = npy_dtypes[i].descr;
  char hdr[512];
  int n = snprintf(hdr, sizeof(hdr), "{'descr': '%c%s', 'fortran_order': False, 'shape': (",
                   elem_type_bytes(v->type.elem) == 1 ? '|' : '<', descr);
  for (int i = 0; i < v->type.rank; i++)
    n += snprintf(hdr + n, sizeof(hdr) - (size_t)n, i ? ", %" PRId64 : "%" PRId64,
                  v->type.dims[i]);
  n += snprintf(hdr + n, sizeof(hdr) - (size_t)n, v->type.rank == 1 ? ",), }" : "), }");
  /* Pad with spaces and end with '\n' so the data starts at a multiple of 64 bytes. */
  size_t total = 10 + (size_t)n + 1;
  size_t padded = (total + 63) / 64 * 64;
  size_t hlen = padded - 10;
  uint8_t *buf = malloc(padded + v->bytes);
  memcpy(buf, NPY_MAGIC, 6);
  buf[6] = 1;
  buf[7] = 0;
  buf[8] = (uint8_t)(hlen & 0xff);
  buf[9] = (uint8_t)(hlen >> 8);
  memcpy(buf + 10, hdr, (size_t)n);
  memset(buf + 10 + n, ' ', hlen - (size_t)n - 1);
  buf[padded - 1] = '\n';
  if (v->bytes)
    memcpy(buf + padded, v->data, v->bytes);
  *out_size = padded + v->bytes;
  return buf;
}

bool run_write_output(const char *spec, int index, const run_value *v, int64_t max_print,
                      char *err, size_t errsize) {
  if (spec[0] == 0)
    return true;
  if (strcmp(spec, "-") == 0) {
    printf("result[%d]: hal.buffer_view\n", index);
    run_print_value(stdout, v, max_print);
    return true;
  }
  if ((spec[0] != '@' && spec[0] != '+') || !spec[1]) {
    snprintf(err, errsize, "--output=%s: expected '', '-', @FILE or +FILE", spec);
    return false;
  }
  const char *path = spec + 1;
  size_t size;
  uint8_t *blob;
  if (has_suffix(path, ".npy")) {
    blob = run_npy_encode(v, &size);
  } else {
    size = v->bytes;
    blob = malloc(size ? size : 1);
    if (size)
      memcpy(blob, v->data, size);
  }
  if (spec[0] == '+') { /* append: previous contents (if any), then this array */
    size_t old_size = 0;
    char sub[256];
    char *old = read_file(path, &old_size, sub, sizeof(sub));
    if (old) {
      uint8_t *both = malloc(old_size + size + 1);
      memcpy(both, old, old_size);
      memcpy(both + old_size, blob, size);
      free(old);
      free(blob);
      blob = both;
      size += old_size;
    }
  }
  bool ok = write_file_atomic(path, blob, size, err, errsize);
  free(blob);
  return ok;
}

/* ---------------------------------------------------------------- comparison */

void run_tolerance_defaults(run_tolerance *t) {
  memset(t, 0, sizeof(*t));
  t->atol[ET_F32] = 1e-5;
  t->rtol[ET_F32] = 1e-5;
  t->atol[ET_F16] = 1e-3;
  t->rtol[ET_F16] = 1e-3;
  t->atol[ET_BF16] = 1e-2;
  t->rtol[ET_BF16] = 1e-2;
  t->atol[ET_F64] = 1e-10;
  t->rtol[ET_F64] = 1e-10;
}

bool run_compare(int index, const run_value *got, const run_value *exp, const run_tolerance *tol,
                 FILE *out) {
  if (!tensor_type_equal(&got->type, &exp->type)) {
    char g[160], e[160];
    fprintf(out, "[FAILED] result[%d]: metadata is %s; expected that the view matches %s\n",
            index, run_shape_type_str(&got->type, g, sizeof(g)),
            run_shape_type_str(&exp->type, e, sizeof(e)));
    return false;
  }
  elem_type t = got->type.elem;
  size_t n = (size_t)tensor_numel(&got->type), esize = (size_t)elem_type_bytes(t);
  for (size_t i = 0; i < n; i++) {
    bool match;
    double tolerance = 0;
    if (!elem_type_is_float(t)) {
      match = memcmp(got->data + i * esize, exp->data + i * esize, esize) == 0;
    } else {
      double g = run_value_get(got, i), e = run_value_get(exp, i);
      tolerance = tol->atol[t] + tol->rtol[t] * fabs(e);
      if (isnan(g) || isnan(e))
        match = isnan(g) && isnan(e);
      else if (isinf(g) || isinf(e))
        match = g == e;
      else
        match = fabs(g - e) <= tolerance;
    }
    if (!match) {
      char gs[64], es[64];
      run_format_element(got, i, gs, sizeof(gs));
      run_format_element(exp, i, es, sizeof(es));
      fprintf(out, "[FAILED] result[%d]: element at index %zu (%s) does not match the expected (%s)",
              index, i, gs, es);
      if (elem_type_is_float(t))
        fprintf(out, "; tolerance %g", tolerance);
      fputc('\n', out);
      return false;
    }
  }
  return true;
}
