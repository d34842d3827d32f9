/* manifest_read.c: load a tosac manifest (JSON, version 1) and check everything tosac-run relies
 * on, since it comes from a file: keys, types, ranges, buffer ids, offsets, the launch order. */
#include "run.h"

#include <cjson/cJSON.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

/* Reader state: where we are (for messages) and the first error. */
typedef struct reader {
  char where[160];
  char *err;
  size_t errsize;
  bool failed;
} reader;

__attribute__((format(printf, 3, 4))) static bool fail(reader *r, const char *key,
                                                       const char *fmt, ...) {
  if (r->failed)
    return false;
  r->failed = true;
  int n = snprintf(r->err, r->errsize, "%s%s%s: ", r->where, r->where[0] && key ? "." : "",
                   key ? key : "");
  va_list ap;
  va_start(ap, fmt);
  if (n >= 0 && (size_t)n < r->errsize)
    vsnprintf(r->err + n, r->errsize - (size_t)n, fmt, ap);
  va_end(ap);
  return false;
}

static const cJSON *need(reader *r, const cJSON *obj, const char *key) {
  const cJSON *it = cJSON_GetObjectItemCaseSensitive(obj, key);
  if (!it)
    fail(r, key, "missing");
  return it;
}

static bool as_int(reader *r, const cJSON *it, const char *key, int64_t lo, int64_t hi,
                   int64_t *out) {
  /* range first: converting a double outside int64_t is undefined */
  if (!cJSON_IsNumber(it) || !(it->valuedouble >= -0x1p63 && it->valuedouble < 0x1p63) ||
      it->valuedouble != (double)(int64_t)it->valuedouble)
    return fail(r, key, "expected an integer");
  int64_t v = (int64_t)it->valuedouble;
  if (v < lo || v > hi)
    return fail(r, key, "%" PRId64 " is out of range [%" PRId64 ", %" PRId64 "]", v, lo, hi);
  *out = v;
  return true;
}

static bool get_int(reader *r, const cJSON *obj, const char *key, int64_t lo, int64_t hi,
                    int64_t *out) {
  const cJSON *it = need(r, obj, key);
  return it && as_int(r, it, key, lo, hi, out);
}

static bool get_i32(reader *r, const cJSON *obj, const char *key, int64_t lo, int64_t hi,
                    int *out) {
  int64_t v;
  if (!get_int(r, obj, key, lo, hi, &v))
    return false;
  *out = (int)v;
  return true;
}

/* A string; "" for null when allow_null. */
static bool get_str(reader *r, const cJSON *obj, const char *key, char *buf, size_t size,
                    bool allow_null) {
  const cJSON *it = need(r, obj, key);
  if (!it)
    return false;
  if (allow_null && cJSON_IsNull(it)) {
    buf[0] = 0;
    return true;
  }
  if (!cJSON_IsString(it))
    return fail(r, key, allow_null ? "expected a string or null" : "expected a string");
  if (strlen(it->valuestring) >= size)
    return fail(r, key, "string is too long");
  strcpy(buf, it->valuestring);
  return true;
}

static const cJSON *get_array(reader *r, const cJSON *obj, const char *key) {
  const cJSON *it = need(r, obj, key);
  if (it && !cJSON_IsArray(it)) {
    fail(r, key, "expected an array");
    return NULL;
  }
  return it;
}

/* Buffer id or -1 for null. */
static bool get_buffer_ref(reader *r, const cJSON *obj, const char *key, int nbuffers,
                           bool allow_null, int *out) {
  const cJSON *it = need(r, obj, key);
  if (!it)
    return false;
  if (cJSON_IsNull(it) && allow_null) {
    *out = -1;
    return true;
  }
  int64_t v;
  if (!as_int(r, it, key, 0, nbuffers - 1, &v))
    return false;
  *out = (int)v;
  return true;
}

static bool get_int3(reader *r, const cJSON *obj, const char *key, uint32_t out[3]) {
  const cJSON *a = get_array(r, obj, key);
  if (!a)
    return false;
  if (cJSON_GetArraySize(a) != 3)
    return fail(r, key, "expected 3 integers");
  for (int i = 0; i < 3; i++) {
    int64_t v;
    if (!as_int(r, cJSON_GetArrayItem(a, i), key, 1, INT32_MAX, &v))
      return false;
    out[i] = (uint32_t)v;
  }
  return true;
}

/* "shape" + "element_type" into a tensor type. */
static bool get_tensor(reader *r, const cJSON *obj, tensor_type *t) {
  memset(t, 0, sizeof(*t));
  char ets[32];
  if (!get_str(r, obj, "element_type", ets, sizeof(ets), false))
    return false;
  t->elem = elem_type_parse(ets, strlen(ets));
  if (!run_elem_supported(t->elem))
    return fail(r, "element_type", "'%s' is not supported by tosac-run", ets);
  const cJSON *shape = get_array(r, obj, "shape");
  if (!shape)
    return false;
  if (cJSON_GetArraySize(shape) > TOSAC_MAX_RANK)
    return fail(r, "shape", "rank %d exceeds %d", cJSON_GetArraySize(shape), TOSAC_MAX_RANK);
  const cJSON *d;
  cJSON_ArrayForEach(d, shape) {
    if (!as_int(r, d, "shape", 0, (int64_t)1 << 40, &t->dims[t->rank]))
      return false;
    t->rank++;
  }
  if (tensor_numel(t) > ((int64_t)1 << 40))
    return fail(r, "shape", "too many elements");
  return true;
}

static bool read_graph_values(reader *r, const cJSON *root, const char *key, tensor_type **out,
                              int *n) {
  const cJSON *arr = get_array(r, root, key);
  if (!arr)
    return false;
  *n = cJSON_GetArraySize(arr);
  *out = calloc((size_t)*n + 1, sizeof(**out));
  for (int i = 0; i < *n; i++) {
    const cJSON *it = cJSON_GetArrayItem(arr, i);
    snprintf(r->where, sizeof(r->where), "%s[%d]", key, i);
    int64_t idx, bytes;
    if (!get_int(r, it, "index", i, i, &idx) || !get_tensor(r, it, &(*out)[i]) ||
        !get_int(r, it, "bytes", 0, INT64_MAX, &bytes))
      return false;
    if (bytes != tensor_bytes(&(*out)[i]))
      return fail(r, "bytes", "%" PRId64 " does not match the shape (%" PRId64 ")", bytes,
                  tensor_bytes(&(*out)[i]));
  }
  r->where[0] = 0;
  return true;
}

static bool read_buffers(reader *r, const cJSON *tj, const char *tw, const run_manifest *m,
                         run_target *t) {
  const cJSON *arr = get_array(r, tj, "buffers");
  if (!arr)
    return false;
  t->nbuffers = cJSON_GetArraySize(arr);
  t->buffers = calloc((size_t)t->nbuffers + 1, sizeof(*t->buffers));
  static const char *const kinds[] = {"input", "output", "intermediate", "workspace", "constant"};
  const int nkinds = (int)(sizeof kinds / sizeof kinds[0]);
  for (int i = 0; i < t->nbuffers; i++) {
    const cJSON *bj = cJSON_GetArrayItem(arr, i);
    run_buffer *b = &t->buffers[i];
    snprintf(r->where, sizeof(r->where), "%s.buffers[%d]", tw, i);
    char kind[32];
    if (!get_i32(r, bj, "id", i, i, &b->id) || !get_str(r, bj, "kind", kind, sizeof(kind), false))
      return false;
    int k = 0;
    while (k < nkinds && strcmp(kind, kinds[k]) != 0)
      k++;
    if (k == nkinds)
      return fail(r, "kind", "unknown buffer kind '%s'", kind);
    b->kind = (buffer_kind)k;
    if (!get_i32(r, bj, "index", -1, INT32_MAX, &b->index) ||
        !get_int(r, bj, "offset", 0, INT64_MAX, &b->offset) ||
        !get_int(r, bj, "bytes", 0, INT64_MAX, &b->bytes) || !get_tensor(r, bj, &b->type))
      return false;
    if (b->kind == BUF_INPUT || b->kind == BUF_OUTPUT) {
      int n = b->kind == BUF_INPUT ? m->ninputs : m->noutputs;
      const tensor_type *g = b->kind == BUF_INPUT ? m->inputs : m->outputs;
      if (b->index < 0 || b->index >= n)
        return fail(r, "index", "%d is not a graph %s (there are %d)", b->index, kind, n);
      if (!tensor_type_equal(&b->type, &g[b->index]) || b->bytes != tensor_bytes(&b->type))
        return fail(r, NULL, "does not match the graph's %s %d", kind, b->index);
    } else if (b->kind == BUF_CONSTANT) {
      if (b->offset > m->weights_bytes || b->bytes > m->weights_bytes - b->offset)
        return fail(r, "offset", "[%" PRId64 ", %" PRId64 ") lies outside the weights file (%" PRId64
                    " bytes)", b->offset, b->offset + b->bytes, m->weights_bytes);
    } else if (b->offset > t->workspace_bytes || b->bytes > t->workspace_bytes - b->offset) {
      return fail(r, "offset", "[%" PRId64 ", %" PRId64 ") lies outside the workspace (%" PRId64
                  " bytes)", b->offset, b->offset + b->bytes, t->workspace_bytes);
    }
  }
  return true;
}

static bool read_args(reader *r, const cJSON *kj, const run_target *t, run_kernel *k) {
  const cJSON *arr = get_array(r, kj, "args");
  if (!arr)
    return false;
  k->nargs = cJSON_GetArraySize(arr);
  k->args = calloc((size_t)k->nargs + 1, sizeof(*k->args));
  size_t base = strlen(r->where);
  for (int i = 0; i < k->nargs; i++) {
    const cJSON *aj = cJSON_GetArrayItem(arr, i);
    run_arg *a = &k->args[i];
    snprintf(r->where + base, sizeof(r->where) - base, ".args[%d]", i);
    if (!get_i32(r, aj, "index", 0, INT32_MAX, &a->index) ||
        !get_str(r, aj, "value_kind", a->value_kind, sizeof(a->value_kind), false) ||
        !get_int(r, aj, "offset", 0, k->kernarg_size, &a->offset) ||
        !get_int(r, aj, "size", 1, 256, &a->size) ||
        !get_buffer_ref(r, aj, "buffer", t->nbuffers, true, &a->buffer))
      return false;
    const cJSON *name = cJSON_GetObjectItemCaseSensitive(aj, "name");
    if (cJSON_IsString(name))
      snprintf(a->name, sizeof(a->name), "%s", name->valuestring);
    const cJSON *access = cJSON_GetObjectItemCaseSensitive(aj, "access");
    a->reads = !cJSON_IsString(access) || strcmp(access->valuestring, "write_only");
    a->writes = !cJSON_IsString(access) || strcmp(access->valuestring, "read_only");
    if (a->offset + a->size > k->kernarg_size)
      return fail(r, "offset", "argument [%" PRId64 ", %" PRId64 ") exceeds kernarg_size %" PRId64,
                  a->offset, a->offset + a->size, k->kernarg_size);
    const cJSON *val = cJSON_GetObjectItemCaseSensitive(aj, "value");
    if (val && !cJSON_IsNull(val)) {
      if (!as_int(r, val, "value", INT64_MIN, INT64_MAX, &a->value))
        return false;
      a->has_value = true;
    }
  }
  r->where[base] = 0;
  return true;
}

static bool read_kernels(reader *r, const cJSON *tj, const char *tw, run_target *t) {
  const cJSON *arr = get_array(r, tj, "kernels");
  if (!arr)
    return false;
  t->nkernels = cJSON_GetArraySize(arr);
  t->kernels = calloc((size_t)t->nkernels + 1, sizeof(*t->kernels));
  for (int i = 0; i < t->nkernels; i++) {
    const cJSON *kj = cJSON_GetArrayItem(arr, i);
    run_kernel *k = &t->kernels[i];
    snprintf(r->where, sizeof(r->where), "%s.kernels[%d]", tw, i);
    if (!get_i32(r, kj, "id", i, i, &k->id) ||
        !get_str(r, kj, "name", k->name, sizeof(k->name), false) ||
        !get_int3(r, kj, "block", k->block) || !get_int3(r, kj, "grid", k->grid) ||
        !get_int(r, kj, "lds_bytes", 0, t->lds_limit, &k->lds_bytes) ||
        !get_int(r, kj, "kernarg_size", 0, 1 << 16, &k->kernarg_size) ||
        !get_int(r, kj, "kernarg_align", 1, 256, &k->kernarg_align) ||
        !get_int(r, kj, "max_flat_workgroup_size", 1, 1024, &k->max_flat_workgroup_size))
      return false;
    if (!k->name[0])
      return fail(r, "name", "empty kernel name");
    uint64_t wg = (uint64_t)k->block[0] * k->block[1] * k->block[2];
    if (wg > (uint64_t)k->max_flat_workgroup_size)
      return fail(r, "block", "%" PRIu64 " work-items per group exceed max_flat_workgroup_size %" PRId64,
                  wg, k->max_flat_workgroup_size);
    if (!read_args(r, kj, t, k))
      return false;
  }
  return true;
}

/* A fill's bit pattern: a JSON integer or a string ("0x3f800000" or decimal). */
static bool get_bits(reader *r, const cJSON *obj, uint64_t *out) {
  const cJSON *it = need(r, obj, "bits");
  if (!it)
    return false;
  if (cJSON_IsString(it)) {
    char *end;
    *out = strtoull(it->valuestring, &end, 0);
    if (end == it->valuestring || *end)
      return fail(r, "bits", "'%s' is not an integer", it->valuestring);
    return true;
  }
  int64_t v;
  if (!as_int(r, it, "bits", INT64_MIN, INT64_MAX, &v))
    return false;
  *out = (uint64_t)v;
  return true;
}

static bool read_launch(reader *r, const cJSON *lj, run_target *t, run_launch *l) {
  char kind[16];
  if (!get_str(r, lj, "kind", kind, sizeof(kind), false))
    return false;
  if (strcmp(kind, "kernel") == 0) {
    l->kind = LAUNCH_KERNEL;
    return get_i32(r, lj, "kernel", 0, t->nkernels - 1, &l->kernel);
  }
  if (strcmp(kind, "fill") == 0) {
    l->kind = LAUNCH_FILL;
    char ets[32];
    if (!get_buffer_ref(r, lj, "buffer", t->nbuffers, false, &l->buffer) ||
        !get_int(r, lj, "offset", 0, INT64_MAX, &l->offset) ||
        !get_int(r, lj, "bytes", 0, INT64_MAX, &l->bytes) ||
        !get_str(r, lj, "element_type", ets, sizeof(ets), false) || !get_bits(r, lj, &l->bits))
      return false;
    l->fill_type = elem_type_parse(ets, strlen(ets));
    if (!run_elem_supported(l->fill_type))
      return fail(r, "element_type", "'%s' is not supported by tosac-run", ets);
    const run_buffer *b = &t->buffers[l->buffer];
    if (l->offset > b->bytes || l->bytes > b->bytes - l->offset)
      return fail(r, "bytes", "fill [%" PRId64 ", %" PRId64 ") exceeds buffer %d (%" PRId64 " bytes)",
                  l->offset, l->offset + l->bytes, b->id, b->bytes);
    if (l->bytes % elem_type_bytes(l->fill_type))
      return fail(r, "bytes", "%" PRId64 " is not a multiple of the %s element size", l->bytes,
                  ets);
    return true;
  }
  if (strcmp(kind, "copy") == 0) {
    l->kind = LAUNCH_COPY;
    if (!get_buffer_ref(r, lj, "src_buffer", t->nbuffers, false, &l->src_buffer) ||
        !get_buffer_ref(r, lj, "dst_buffer", t->nbuffers, false, &l->dst_buffer) ||
        !get_int(r, lj, "bytes", 0, INT64_MAX, &l->bytes))
      return false;
    /* Optional offsets: the spec copies whole buffers, but a sub-range costs nothing to allow. */
    const cJSON *so = cJSON_GetObjectItemCaseSensitive(lj, "src_offset");
    const cJSON *dof = cJSON_GetObjectItemCaseSensitive(lj, "dst_offset");
    if ((so && !as_int(r, so, "src_offset", 0, INT64_MAX, &l->src_offset)) ||
        (dof && !as_int(r, dof, "dst_offset", 0, INT64_MAX, &l->dst_offset)))
      return false;
    const run_buffer *s = &t->buffers[l->src_buffer], *d = &t->buffers[l->dst_buffer];
    if (l->src_offset > s->bytes || l->bytes > s->bytes - l->src_offset ||
        l->dst_offset > d->bytes || l->bytes > d->bytes - l->dst_offset)
      return fail(r, "bytes", "copy of %" PRId64 " bytes exceeds buffer %d or %d", l->bytes, s->id,
                  d->id);
    return true;
  }
  if (strcmp(kind, "readback") == 0) {
    l->kind = LAUNCH_READBACK;
    if (!get_buffer_ref(r, lj, "buffer", t->nbuffers, false, &l->buffer) ||
        !get_int(r, lj, "bytes", 1, 8, &l->bytes))
      return false;
    if (l->bytes > t->buffers[l->buffer].bytes)
      return fail(r, "bytes", "%" PRId64 " exceeds buffer %d", l->bytes, l->buffer);
    return true;
  }
  if (strcmp(kind, "if") == 0 || strcmp(kind, "while") == 0) {
    bool is_if = kind[0] == 'i';
    l->kind = is_if ? LAUNCH_IF : LAUNCH_WHILE;
    if (!get_i32(r, lj, "condition", 0, INT32_MAX, &l->cond))
      return false;
    for (int k = 0; k < 2; k++) {
      const char *key = is_if ? (k ? "else" : "then") : (k ? "body" : "cond");
      const cJSON *arr = get_array(r, lj, key);
      if (!arr)
        return false;
      l->nregion[k] = cJSON_GetArraySize(arr);
      l->region[k] = calloc((size_t)l->nregion[k] + 1, sizeof(int));
      for (int j = 0; j < l->nregion[k]; j++) {
        int64_t v;
        if (!as_int(r, cJSON_GetArrayItem(arr, j), key, 0, INT32_MAX, &v))
          return false;
        l->region[k][j] = (int)v;
      }
    }
    return true;
  }
  return fail(r, "kind", "unknown launch kind '%s'", kind);
}

/* Every launch runs from exactly one list (the order or a region of an if / while), after its
 * deps, which are earlier in that same list; a condition names a readback (for a while, the
 * last launch of its cond region). */
static bool check_lists(reader *r, run_target *t, int *list_of, int *pos) {
  for (int i = 0; i < t->nlaunches; i++)
    list_of[i] = -2;
  for (int i = 0; i < t->norder; i++)
    list_of[t->order[i]] = -1, pos[t->order[i]] = i;
  for (int i = 0; i < t->nlaunches; i++) {
    const run_launch *l = &t->launches[i];
    for (int k = 0; l->kind >= LAUNCH_IF && k < 2; k++)
      for (int j = 0; j < l->nregion[k]; j++) {
        int x = l->region[k][j];
        if (x < 0 || x >= t->nlaunches || list_of[x] != -2)
          return fail(r, "launches", "launch %d lists launch %d, which is out of range or already "
                      "in another list", i, x);
        list_of[x] = 2 * i + k, pos[x] = j;
      }
  }
  for (int i = 0; i < t->nlaunches; i++) {
    const run_launch *l = &t->launches[i];
    if (list_of[i] == -2)
      return fail(r, "order", "launch %d is in no list (order or region)", i);
    for (int j = 0; j < l->ndeps; j++)
      if (list_of[l->deps[j]] != list_of[i] || pos[l->deps[j]] >= pos[i])
        return fail(r, "order", "launch %d runs before its dependency %d", i, l->deps[j]);
    if (l->kind >= LAUNCH_IF &&
        (l->cond >= t->nlaunches || t->launches[l->cond].kind != LAUNCH_READBACK ||
         (l->kind == LAUNCH_WHILE &&
          (!l->nregion[0] || l->region[0][l->nregion[0] - 1] != l->cond))))
      return fail(r, "condition", "launch %d: %d is not its readback", i, l->cond);
  }
  return true;
}

static bool read_launches(reader *r, const cJSON *tj, const char *tw, run_target *t) {
  const cJSON *arr = get_array(r, tj, "launches");
  if (!arr)
    return false;
  t->nlaunches = cJSON_GetArraySize(arr);
  t->launches = calloc((size_t)t->nlaunches + 1, sizeof(*t->launches));
  for (int i = 0; i < t->nlaunches; i++) {
    const cJSON *lj = cJSON_GetArrayItem(arr, i);
    run_launch *l = &t->launches[i];
    snprintf(r->where, sizeof(r->where), "%s.launches[%d]", tw, i);
    if (!get_i32(r, lj, "id", i, i, &l->id) || !read_launch(r, lj, t, l))
      return false;
    const cJSON *deps = get_array(r, lj, "deps");
    if (!deps)
      return false;
    l->ndeps = cJSON_GetArraySize(deps);
    l->deps = calloc((size_t)l->ndeps + 1, sizeof(int));
    for (int j = 0; j < l->ndeps; j++) {
      int64_t v;
      if (!as_int(r, cJSON_GetArrayItem(deps, j), "deps", 0, t->nlaunches - 1, &v))
        return false;
      l->deps[j] = (int)v;
    }
  }
  /* The order must run every launch exactly once, each after its dependencies. */
  snprintf(r->where, sizeof(r->where), "%s", tw);
  const cJSON *order = get_array(r, tj, "order");
  if (!order)
    return false;
  t->norder = cJSON_GetArraySize(order);
  if (t->norder > t->nlaunches)
    return fail(r, "order", "lists %d launches, there are %d", t->norder, t->nlaunches);
  t->order = calloc((size_t)t->norder + 1, sizeof(int));
  int *pos = malloc(((size_t)t->nlaunches + 1) * sizeof(int));
  int *list_of = malloc(((size_t)t->nlaunches + 1) * sizeof(int));
  for (int i = 0; i < t->nlaunches; i++)
    pos[i] = -1;
  bool ok = true;
  for (int i = 0; ok && i < t->norder; i++) {
    int64_t v;
    ok = as_int(r, cJSON_GetArrayItem(order, i), "order", 0, t->nlaunches - 1, &v);
    if (ok && pos[v] >= 0)
      ok = fail(r, "order", "launch %" PRId64 " appears twice", v);
    if (ok) {
      pos[v] = i;
      t->order[i] = (int)v;
    }
  }
  ok = ok && check_lists(r, t, list_of, pos);
  free(pos);
  free(list_of);
  return ok;
}

static bool read_target(reader *r, const cJSON *tj, const char *prefix, int ti,
                        const run_manifest *m, run_target *t) {
  char tw[64];
  snprintf(tw, sizeof(tw), "%stargets[%d]", prefix, ti);
  snprintf(r->where, sizeof(r->where), "%s", tw);
  int64_t wave;
  if (!get_str(r, tj, "target_id", t->target_id, sizeof(t->target_id), false) ||
      !get_str(r, tj, "processor", t->processor, sizeof(t->processor), false) ||
      !get_str(r, tj, "bundle_entry_id", t->bundle_entry_id, sizeof(t->bundle_entry_id), false) ||
      !get_str(r, tj, "ir_entry_id", t->ir_entry_id, sizeof(t->ir_entry_id), true) ||
      !get_int(r, tj, "wavefront_size", 32, 64, &wave) ||
      !get_int(r, tj, "lds_limit", 0, (int64_t)1 << 30, &t->lds_limit))
    return false;
  if (wave != 32 && wave != 64)
    return fail(r, "wavefront_size", "%" PRId64 " is neither 32 nor 64", wave);
  t->wavefront_size = (int)wave;
  const cJSON *ws = need(r, tj, "workspace");
  if (!ws)
    return false;
  snprintf(r->where, sizeof(r->where), "%s.workspace", tw);
  if (!get_int(r, ws, "bytes", 0, (int64_t)1 << 40, &t->workspace_bytes) ||
      !get_int(r, ws, "alignment", 1, 1 << 20, &t->workspace_align))
    return false;
  if (t->workspace_align & (t->workspace_align - 1))
    return fail(r, "alignment", "%" PRId64 " is not a power of two", t->workspace_align);
  t->workspace_zeroed = 0;
  const cJSON *z = cJSON_GetObjectItemCaseSensitive(ws, "zeroed_bytes");
  if (z && !as_int(r, z, "zeroed_bytes", 0, t->workspace_bytes, &t->workspace_zeroed))
    return false;
  return read_buffers(r, tj, tw, m, t) && read_kernels(r, tj, tw, t) &&
         read_launches(r, tj, tw, t);
}

/* constants: {storage, file, bytes, alignment}; the file holds every "constant" buffer. */
static bool read_constants(reader *r, const cJSON *root, run_manifest *m) {
  const cJSON *c = cJSON_GetObjectItemCaseSensitive(root, "constants");
  snprintf(r->where, sizeof(r->where), "constants");
  if (!cJSON_IsObject(c))
    return fail(r, NULL, "missing or not an object");
  const cJSON *file = cJSON_GetObjectItemCaseSensitive(c, "file");
  if (file && cJSON_IsString(file)) {
    if (!get_str(r, c, "file", m->weights_file, sizeof(m->weights_file), false) ||
        !get_int(r, c, "bytes", 0, (int64_t)1 << 40, &m->weights_bytes))
      return false;
    if (!m->weights_file[0])
      return fail(r, "file", "empty file name");
  } else if (file && !cJSON_IsNull(file)) {
    return fail(r, "file", "must be a string or null");
  }
  return true;
}

static bool read_targets(reader *r, const cJSON *obj, const char *prefix, const run_manifest *m,
                         run_target **out, int *n) {
  const cJSON *targets = get_array(r, obj, "targets");
  if (!targets)
    return false;
  *n = cJSON_GetArraySize(targets);
  if (*n == 0)
    return fail(r, "targets", "empty");
  *out = calloc((size_t)*n, sizeof(**out));
  for (int i = 0; i < *n; i++)
    if (!read_target(r, cJSON_GetArrayItem(targets, i), prefix, i, m, &(*out)[i]))
      return false;
  return true;
}

/* variants[v]: {id, dims, inputs, outputs, targets}; buffers are checked against the variant's
 * own inputs and outputs. */
static bool read_variants(reader *r, const cJSON *root, run_manifest *m) {
  const cJSON *vs = cJSON_GetObjectItemCaseSensitive(root, "variants");
  if (!vs)
    return true;
  if (!cJSON_IsArray(vs) || cJSON_GetArraySize(vs) == 0)
    return fail(r, "variants", "must be a non-empty array");
  m->nvariants = cJSON_GetArraySize(vs);
  m->variants = calloc((size_t)m->nvariants, sizeof(*m->variants));
  for (int v = 0; v < m->nvariants; v++) {
    const cJSON *vj = cJSON_GetArrayItem(vs, v);
    run_variant *x = &m->variants[v];
    char prefix[32];
    snprintf(prefix, sizeof prefix, "variants[%d].", v);
    snprintf(r->where, sizeof(r->where), "variants[%d]", v);
    if (!cJSON_IsObject(vj))
      return fail(r, NULL, "must be an object");
    if (!read_graph_values(r, vj, "inputs", &x->inputs, &x->ninputs) ||
        !read_graph_values(r, vj, "outputs", &x->outputs, &x->noutputs))
      return false;
    if (x->ninputs != m->ninputs || x->noutputs != m->noutputs)
      return fail(r, NULL, "has %d inputs and %d outputs, the graph %d and %d", x->ninputs,
                  x->noutputs, m->ninputs, m->noutputs);
    run_manifest view = *m;
    view.inputs = x->inputs, view.outputs = x->outputs;
    if (!read_targets(r, vj, prefix, &view, &x->targets, &x->ntargets))
      return false;
  }
  return true;
}

static void append(char *buf, size_t size, const char *s) {
  size_t n = strlen(buf);
  snprintf(buf + n, size - n, "%s", s);
}

bool run_manifest_pick(run_manifest *m, const tensor_type *in, int n, char *err, size_t errsize) {
  for (int v = 0; v < m->nvariants; v++) {
    run_variant *x = &m->variants[v];
    bool same = x->ninputs == n;
    for (int i = 0; same && i < n; i++)
      same = tensor_type_equal(&x->inputs[i], &in[i]);
    if (!same)
      continue;
    run_variant top = {m->inputs, m->outputs, m->ninputs, m->noutputs, m->targets, m->ntargets};
    m->inputs = x->inputs, m->outputs = x->outputs, m->targets = x->targets;
    m->ntargets = x->ntargets;
    *x = top; /* freed with the variants */
    m->variant = v;
    return true;
  }
  if (m->nvariants == 0)
    return true;
  char tb[160];
  snprintf(err, errsize, "%s was compiled for other input shapes: got (", m->entry);
  for (int i = 0; i < n; i++) {
    append(err, errsize, i ? ", " : "");
    append(err, errsize, run_shape_type_str(&in[i], tb, sizeof tb));
  }
  append(err, errsize, "); the variants take");
  for (int v = 0; v < m->nvariants; v++) {
    append(err, errsize, v ? " or (" : " (");
    for (int i = 0; i < m->variants[v].ninputs; i++) {
      append(err, errsize, i ? ", " : "");
      append(err, errsize, run_shape_type_str(&m->variants[v].inputs[i], tb, sizeof tb));
    }
    append(err, errsize, ")");
  }
  return false;
}

/* digests: {bundle, weights} (docs/manifest.md); absent in manifests from before digests. */
static bool read_digests(reader *r, const cJSON *root, run_manifest *m) {
  const cJSON *d = cJSON_GetObjectItemCaseSensitive(root, "digests");
  snprintf(r->where, sizeof(r->where), "digests");
  if (!d)
    return true;
  if (!cJSON_IsObject(d))
    return fail(r, NULL, "must be an object");
  return get_str(r, d, "bundle", m->bundle_digest, sizeof m->bundle_digest, true) &&
         get_str(r, d, "weights", m->weights_digest, sizeof m->weights_digest, true);
}

bool run_weights_check(const run_manifest *m, const uint8_t *data, size_t size, const char *path,
                       char *err, size_t errsize) {
  if ((int64_t)size != m->weights_bytes) {
    snprintf(err, errsize, "%s has %zu bytes; the manifest says %" PRId64, path, size,
             m->weights_bytes);
    return false;
  }
  return bnd_digest_check(m->weights_digest, data, size, path, err, errsize);
}

bool run_manifest_parse(const char *text, run_manifest *m, char *err, size_t errsize) {
  return run_manifest_parse_entry(text, NULL, m, err, errsize);
}

bool run_manifest_parse_entry(const char *text, const char *entry, run_manifest *m, char *err,
                              size_t errsize) {
  memset(m, 0, sizeof(*m));
  reader r = {.err = err, .errsize = errsize};
  cJSON *root = cJSON_Parse(text);
  if (!root) {
    const char *at = cJSON_GetErrorPtr();
    int line = 1;
    for (const char *s = text; at && s < at; s++)
      line += *s == '\n';
    snprintf(err, errsize, "not valid JSON (near line %d)", line);
    return false;
  }
  bool ok = false;
  char format[64];
  int64_t version;
  if (!cJSON_IsObject(root)) {
    fail(&r, NULL, "the manifest must be a JSON object");
    goto done;
  }
  if (!get_str(&r, root, "format", format, sizeof(format), false))
    goto done;
  if (strcmp(format, "tosac-manifest") != 0) {
    fail(&r, "format", "'%s' is not \"tosac-manifest\"", format);
    goto done;
  }
  if (!get_int(&r, root, "version", 1, INT32_MAX, &version))
    goto done;
  if (version != 1) {
    fail(&r, "version", "%" PRId64 " is newer than this tosac-run understands (1)", version);
    goto done;
  }
  if (!bnd_manifest_select_entry(root, entry, err, errsize))
    goto done;
  if (!get_str(&r, root, "entry", m->entry, sizeof(m->entry), false) ||
      !read_graph_values(&r, root, "inputs", &m->inputs, &m->ninputs) ||
      !read_graph_values(&r, root, "outputs", &m->outputs, &m->noutputs) ||
      !read_constants(&r, root, m) || !read_digests(&r, root, m))
    goto done;
  if (!read_targets(&r, root, "", m, &m->targets, &m->ntargets) || !read_variants(&r, root, m))
    goto done;
  ok = true;
done:
  cJSON_Delete(root);
  if (!ok)
    run_manifest_free(m);
  return ok;
}

static void free_targets(run_target *targets, int n) {
  for (int i = 0; i < n; i++) {
    run_target *t = &targets[i];
    for (int k = 0; k < t->nkernels; k++)
      free(t->kernels[k].args);
    for (int l = 0; l < t->nlaunches; l++) {
      free(t->launches[l].deps);
      free(t->launches[l].region[0]);
      free(t->launches[l].region[1]);
    }
    free(t->buffers);
    free(t->kernels);
    free(t->launches);
    free(t->order);
  }
  free(targets);
}

void run_manifest_free(run_manifest *m) {
  free_targets(m->targets, m->ntargets);
  for (int v = 0; v < m->nvariants; v++) {
    free_targets(m->variants[v].targets, m->variants[v].ntargets);
    free(m->variants[v].inputs);
    free(m->variants[v].outputs);
  }
  free(m->variants);
  free(m->inputs);
  free(m->outputs);
  memset(m, 0, sizeof(*m));
}

const run_target *run_manifest_find_target(const run_manifest *m, const char *name) {
  for (int i = 0; i < m->ntargets; i++)
    if (strcmp(m->targets[i].target_id, name) == 0 || strcmp(m->targets[i].processor, name) == 0)
      return &m->targets[i];
  return NULL;
}
