/* types.c: element types, tensor types and the op table shared by every stage. */
#include "tosac.h"

#include <string.h>

typedef struct elem_desc {
  const char *name;
  int bits, bytes;
  bool is_float;
} elem_desc;

static const elem_desc elem_descs[ET_COUNT] = {
    [ET_INVALID] = {"<invalid>", 0, 0, false},
    [ET_I1] = {"i1", 1, 1, false},
    [ET_I4] = {"i4", 4, 1, false},
    [ET_I8] = {"i8", 8, 1, false},
    [ET_I16] = {"i16", 16, 2, false},
    [ET_I32] = {"i32", 32, 4, false},
    [ET_I48] = {"i48", 48, 8, false},
    [ET_I64] = {"i64", 64, 8, false},
    [ET_F16] = {"f16", 16, 2, true},
    [ET_BF16] = {"bf16", 16, 2, true},
    [ET_F32] = {"f32", 32, 4, true},
    [ET_F64] = {"f64", 64, 8, true},
    [ET_F8E4M3FN] = {"f8E4M3FN", 8, 1, true},
    [ET_F8E5M2] = {"f8E5M2", 8, 1, true},
    [ET_F8E4M3FNUZ] = {"f8E4M3FNUZ", 8, 1, true},
    [ET_F8E5M2FNUZ] = {"f8E5M2FNUZ", 8, 1, true},
    [ET_INDEX] = {"index", 64, 8, false},
};

const char *elem_type_name(elem_type t) {
  return t > ET_INVALID && t < ET_COUNT ? elem_descs[t].name : elem_descs[0].name;
}

elem_type elem_type_parse(const char *s, size_t n) {
  for (int t = ET_INVALID + 1; t < ET_COUNT; t++)
    if (strlen(elem_descs[t].name) == n && memcmp(elem_descs[t].name, s, n) == 0)
      return (elem_type)t;
  return ET_INVALID;
}

elem_type elem_type_parse_signed(const char *s, size_t n, bool *is_unsigned) {
  *is_unsigned = false;
  if (n > 2 && (s[0] == 's' || s[0] == 'u') && s[1] == 'i') {
    elem_type t = elem_type_parse(s + 1, n - 1);
    if (!elem_type_is_int(t) || t == ET_I1) return ET_INVALID;
    *is_unsigned = s[0] == 'u';
    return t;
  }
  return elem_type_parse(s, n);
}

int elem_type_bits(elem_type t) { return t < ET_COUNT ? elem_descs[t].bits : 0; }
int elem_type_bytes(elem_type t) { return t < ET_COUNT ? elem_descs[t].bytes : 0; }
bool elem_type_is_float(elem_type t) { return t < ET_COUNT && elem_descs[t].is_float; }
bool elem_type_is_f8(elem_type t) { return elem_type_is_float(t) && elem_type_bits(t) == 8; }
bool elem_type_is_int(elem_type t) {
  return t > ET_INVALID && t < ET_COUNT && !elem_descs[t].is_float && t != ET_INDEX;
}

/* Both saturate at INT64_MAX: the frontend refuses such types (fe_check_size), but the clients
 * also read shapes from hostile manifests and .npy headers, and compare the result with what
 * they hold. */
int64_t tensor_numel(const tensor_type *t) {
  int64_t n = 1;
  for (int i = 0; i < t->rank; i++)
    if (__builtin_mul_overflow(n, t->dims[i], &n))
      return INT64_MAX;
  return n;
}

int64_t tensor_bytes(const tensor_type *t) {
  int64_t b;
  return __builtin_mul_overflow(tensor_numel(t), (int64_t)elem_type_bytes(t->elem), &b) ? INT64_MAX : b;
}

bool tensor_type_equal(const tensor_type *a, const tensor_type *b) {
  if (a->elem != b->elem || a->rank != b->rank)
    return false;
  for (int i = 0; i < a->rank; i++)
    if (a->dims[i] != b->dims[i])
      return false;
  return true;
}

struct type_table {
  const tensor_type **slots; /* open addressing, a power of two, at most half full */
  size_t cap, count;
};

static size_t type_hash(const tensor_type *t) {
  const unsigned char *b = (const unsigned char *)t;
  uint64_t h = 1469598103934665603u; /* FNV-1a over all 72 bytes: equal types are equal bytes */
  for (size_t i = 0; i < sizeof *t; i++)
    h = (h ^ b[i]) * 1099511628211u;
  return (size_t)h;
}

static const tensor_type **type_slot(struct type_table *tt, const tensor_type *t) {
  size_t i = type_hash(t) & (tt->cap - 1);
  while (tt->slots[i] && memcmp(tt->slots[i], t, sizeof *t))
    i = (i + 1) & (tt->cap - 1);
  return &tt->slots[i];
}

const tensor_type *type_intern(arena *a, const tensor_type *t) {
  struct type_table **ptt = arena_type_table(a), *tt = *ptt;
  if (!tt) {
    tt = *ptt = arena_alloc(a, sizeof *tt);
    tt->cap = 64;
    tt->slots = arena_alloc(a, tt->cap * sizeof *tt->slots);
  }
  const tensor_type **s = type_slot(tt, t);
  if (*s)
    return *s;
  if (2 * (tt->count + 1) > tt->cap) { /* rehash into twice the slots; the old ones stay in the arena */
    const tensor_type **old = tt->slots;
    size_t ocap = tt->cap;
    tt->cap *= 2;
    tt->slots = arena_alloc(a, tt->cap * sizeof *tt->slots);
    for (size_t i = 0; i < ocap; i++)
      if (old[i])
        *type_slot(tt, old[i]) = old[i];
    s = type_slot(tt, t);
  }
  tensor_type *copy = arena_alloc_raw(a, sizeof *copy);
  memcpy(copy, t, sizeof *copy);
  tt->count++;
  return *s = copy;
}

char *tensor_type_str(const tensor_type *t, char *buf, size_t size) {
  size_t n = (size_t)snprintf(buf, size, "tensor<");
  for (int i = 0; i < t->rank && n < size; i++)
    n += (size_t)snprintf(buf + n, size - n, "%lldx", (long long)t->dims[i]);
  if (n < size)
    snprintf(buf + n, size - n, "%s>", elem_type_name(t->elem));
  return buf;
}

bool tensor_broadcast_shape(const tensor_type *a, const tensor_type *b, tensor_type *out) {
  if (a->rank != b->rank)
    return false;
  tensor_type r = *a;
  for (int i = 0; i < a->rank; i++) {
    int64_t x = a->dims[i], y = b->dims[i];
    if (x != y && x != 1 && y != 1)
      return false;
    r.dims[i] = x == 1 ? y : x;
  }
  *out = r;
  return true;
}

#define OP(e, name, fam, mn, mx) [OP_##e] = {name, fam, mn, mx},
const op_info op_table[OP_COUNT] = {
#include "ops.def"
};
#undef OP

/* Names older producers wrote for ops TOSA has since renamed. */
static const struct {
  const char *name;
  op_kind kind;
} op_aliases[] = {{"tosa.reduce_prod", OP_REDUCE_PRODUCT}};

op_kind op_lookup(const char *name, size_t n) {
  for (int k = 0; k < OP_COUNT; k++)
    if (strlen(op_table[k].name) == n && memcmp(op_table[k].name, name, n) == 0)
      return (op_kind)k;
  for (size_t i = 0; i < sizeof op_aliases / sizeof op_aliases[0]; i++)
    if (strlen(op_aliases[i].name) == n && memcmp(op_aliases[i].name, name, n) == 0)
      return op_aliases[i].kind;
  return OP_COUNT;
}

static op_rare *rare_of(arena *a, op *o) {
  if (!o->rare)
    o->rare = arena_alloc(a, sizeof *o->rare);
  return o->rare;
}

void op_set_attrs(arena *a, op *o, attr *attrs, int n) {
  if (n || o->rare)
    rare_of(a, o)->attrs = attrs;
  o->nattrs = (unsigned)n;
}

void op_set_regions(arena *a, op *o, struct graph **r, int n) {
  if (n || o->rare)
    rare_of(a, o)->regions = r;
  o->nregions = (unsigned)n;
}

const attr *op_attr(const op *o, const char *name) {
  const attr *as = op_attrs(o);
  for (int i = 0; i < o->nattrs; i++)
    if (strcmp(as[i].name, name) == 0)
      return &as[i];
  return NULL;
}

int64_t op_attr_int(const op *o, const char *name, int64_t fallback) {
  const attr *a = op_attr(o, name);
  if (!a)
    return fallback;
  if (a->kind == ATTR_INT || a->kind == ATTR_BOOL)
    return a->i;
  if (a->kind == ATTR_FLOAT)
    return (int64_t)a->f;
  return fallback;
}

double op_attr_float(const op *o, const char *name, double fallback) {
  const attr *a = op_attr(o, name);
  if (!a)
    return fallback;
  if (a->kind == ATTR_FLOAT)
    return a->f;
  if (a->kind == ATTR_INT || a->kind == ATTR_BOOL)
    return (double)a->i;
  return fallback;
}
