/* host.c: the GPU-free half of tosac-hip-run (host.h): manifest reading, target selection,
 * kernarg packing, fill planning, stream scheduling and .npy files. */
#include "host.h"

#include <cjson/cJSON.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

__attribute__((format(printf, 3, 4))) static bool fail(char *err, size_t errsize,
                                                       const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(err, errsize, fmt, ap);
  va_end(ap);
  return false;
}

/* ------------------------------------------------------------------ manifest */

static const cJSON *get(const cJSON *o, const char *k) {
  return cJSON_GetObjectItemCaseSensitive(o, k);
}

/* An integer-valued number in [lo, hi]. */
static bool get_int(const cJSON *o, const char *k, int64_t lo, int64_t hi, int64_t *out) {
  const cJSON *j = get(o, k);
  /* range first: converting a double outside int64_t is undefined */
  if (!cJSON_IsNumber(j) || !(j->valuedouble >= -0x1p63 && j->valuedouble < 0x1p63) ||
      j->valuedouble != (double)(int64_t)j->valuedouble)
    return false;
  int64_t v = (int64_t)j->valuedouble;
  if (v < lo || v > hi)
    return false;
  *out = v;
  return true;
}

static bool get_str(const cJSON *o, const char *k, char *buf, size_t size) {
  const cJSON *j = get(o, k);
  if (!cJSON_IsString(j) || strlen(j->valuestring) >= size)
    return false;
  strcpy(buf, j->valuestring);
  return true;
}

static bool get_dim3(const cJSON *o, const char *k, uint32_t out[3]) {
  const cJSON *a = get(o, k);
  if (!cJSON_IsArray(a) || cJSON_GetArraySize(a) != 3)
    return false;
  for (int i = 0; i < 3; i++) {
    const cJSON *j = cJSON_GetArrayItem(a, i);
    if (!cJSON_IsNumber(j) || j->valuedouble < 1 || j->valuedouble > 4294967295.0)
      return false;
    out[i] = (uint32_t)j->valuedouble;
  }
  return true;
}

static bool parse_tensor(const cJSON *o, hr_tensor *t) {
  const cJSON *shape = get(o, "shape");
  if (!get_str(o, "element_type", t->element_type, sizeof t->element_type) ||
      !get_int(o, "bytes", 0, INT64_MAX, &t->bytes) || !cJSON_IsArray(shape) ||
      cJSON_GetArraySize(shape) > HR_MAX_RANK)
    return false;
  t->rank = cJSON_GetArraySize(shape);
  for (int i = 0; i < t->rank; i++) {
    const cJSON *d = cJSON_GetArrayItem(shape, i);
    if (!cJSON_IsNumber(d) || !(d->valuedouble >= 0 && d->valuedouble < 0x1p63))
      return false;
    t->dims[i] = (int64_t)d->valuedouble;
  }
  return true;
}

static bool parse_tensors(const cJSON *a, hr_tensor **out, int *n) {
  if (!cJSON_IsArray(a))
    return false;
  *n = cJSON_GetArraySize(a);
  *out = calloc(*n ? (size_t)*n : 1, sizeof(hr_tensor));
  for (int i = 0; i < *n; i++)
    if (!parse_tensor(cJSON_GetArrayItem(a, i), &(*out)[i]))
      return false;
  return true;
}

static bool parse_kernel(const cJSON *o, hr_kernel *k, int nbuffers) {
  const cJSON *args = get(o, "args");
  if (!get_str(o, "name", k->name, sizeof k->name) || !get_dim3(o, "block", k->block) ||
      !get_dim3(o, "grid", k->grid) || !get_int(o, "kernarg_size", 0, 1 << 20, &k->kernarg_size) ||
      !get_int(o, "kernarg_align", 1, 4096, &k->kernarg_align) || !cJSON_IsArray(args))
    return false;
  k->nargs = cJSON_GetArraySize(args);
  k->args = calloc(k->nargs ? (size_t)k->nargs : 1, sizeof(hr_arg));
  for (int i = 0; i < k->nargs; i++) {
    const cJSON *a = cJSON_GetArrayItem(args, i);
    hr_arg *ha = &k->args[i];
    if (!get_int(a, "offset", 0, k->kernarg_size, &ha->offset) ||
        !get_int(a, "size", 0, k->kernarg_size - ha->offset, &ha->size) ||
        !get_str(a, "value_kind", ha->value_kind, sizeof ha->value_kind))
      return false;
    int64_t b = -1;
    const cJSON *bj = get(a, "buffer");
    if (!cJSON_IsNull(bj) && !get_int(a, "buffer", 0, nbuffers - 1, &b))
      return false;
    ha->buffer = (int)b;
    /* A global_buffer argument must be bound and pointer-sized: the packer writes 8 bytes. */
    if (strcmp(ha->value_kind, "global_buffer") == 0 && (ha->buffer < 0 || ha->size != 8))
      return false;
  }
  return true;
}

/* An array of integers (launch ids) into a malloc'ed array; their ranges are checked by the
 * caller, which names them in its message. */
static bool get_ids(const cJSON *a, int **out, int *n) {
  if (!cJSON_IsArray(a))
    return false;
  *n = cJSON_GetArraySize(a);
  *out = calloc(*n ? (size_t)*n : 1, sizeof(int));
  int i = 0;
  for (const cJSON *j = a->child; j; j = j->next, i++) {
    if (!cJSON_IsNumber(j) || !(j->valuedouble >= -0x1p31 && j->valuedouble < 0x1p31) ||
        j->valuedouble != (double)(int)j->valuedouble)
      return false;
    (*out)[i] = (int)j->valuedouble;
  }
  return true;
}

/* readback, if, while (docs/manifest.md "Control nodes"); the lists and the condition are
 * checked against the whole target by check_lists. */
static bool parse_control(const cJSON *o, const char *kind, hr_launch *l, const hr_target *t) {
  int64_t v;
  if (!strcmp(kind, "readback")) {
    l->kind = HR_READBACK;
    if (!get_int(o, "buffer", 0, t->nbuffers - 1, &v))
      return false;
    l->buffer = (int)v;
    int64_t cap = t->buffers[l->buffer].bytes < 8 ? t->buffers[l->buffer].bytes : 8;
    return get_int(o, "bytes", 1, cap, &l->bytes);
  }
  bool is_if = !strcmp(kind, "if");
  if (!is_if && strcmp(kind, "while") != 0)
    return false;
  l->kind = is_if ? HR_IF : HR_WHILE;
  if (!get_int(o, "condition", 0, INT32_MAX, &v))
    return false;
  l->condition = (int)v;
  return get_ids(get(o, is_if ? "then" : "cond"), &l->region[0], &l->nregion[0]) &&
         get_ids(get(o, is_if ? "else" : "body"), &l->region[1], &l->nregion[1]);
}

static bool parse_launch(const cJSON *o, hr_launch *l, const hr_target *t) {
  char kind[16], bits[24];
  if (!get_str(o, "kind", kind, sizeof kind))
    return false;
  int64_t v;
  if (!strcmp(kind, "kernel")) {
    l->kind = HR_KERNEL;
    if (!get_int(o, "kernel", 0, t->nkernels - 1, &v))
      return false;
    l->kernel = (int)v;
  } else if (!strcmp(kind, "fill")) {
    l->kind = HR_FILL;
    if (!get_int(o, "buffer", 0, t->nbuffers - 1, &v))
      return false;
    l->buffer = (int)v;
    const hr_buffer *b = &t->buffers[l->buffer];
    if (!get_int(o, "offset", 0, b->bytes, &l->offset) ||
        !get_int(o, "bytes", 0, b->bytes - l->offset, &l->bytes) ||
        !get_str(o, "bits", bits, sizeof bits) || strncmp(bits, "0x", 2) != 0)
      return false;
    size_t digits = strlen(bits + 2);
    char *end;
    l->bits = strtoull(bits + 2, &end, 16);
    l->bits_width = (int)digits * 4;
    if (*end || (digits != 2 && digits != 4 && digits != 8 && digits != 16) ||
        l->bytes % (l->bits_width / 8) != 0)
      return false;
  } else if (!strcmp(kind, "copy")) {
    l->kind = HR_COPY;
    int64_t s, d;
    if (!get_int(o, "src_buffer", 0, t->nbuffers - 1, &s) ||
        !get_int(o, "dst_buffer", 0, t->nbuffers - 1, &d))
      return false;
    l->src_buffer = (int)s, l->dst_buffer = (int)d;
    if (!get_int(o, "bytes", 0, t->buffers[s].bytes < t->buffers[d].bytes ? t->buffers[s].bytes
                                                                         : t->buffers[d].bytes,
                 &l->bytes))
      return false;
  } else if (!parse_control(o, kind, l, t)) {
    return false;
  }
  if (!get_ids(get(o, "deps"), &l->deps, &l->ndeps))
    return false;
  for (int i = 0; i < l->ndeps; i++)
    if (l->deps[i] < 0 || l->deps[i] >= t->nlaunches)
      return false;
  return true;
}

bool hr_is_control(const hr_launch *l) {
  return l->kind == HR_READBACK || l->kind == HR_IF || l->kind == HR_WHILE;
}

bool hr_max_iterations(const char *env, long *out) {
  char *end = NULL;
  *out = env ? strtol(env, &end, 10) : 1000000;
  return !env || (*env && !*end && *out >= 1);
}

/* ------------------------------------------------------------------ launch lists */

/* Every launch is in exactly one list: `order` (list -1) or region k of control node c (list
 * 2c + k), at position pos. */
typedef struct lists {
  const hr_target *t;
  int *list_of, *pos;
  char *err;
  size_t errsize;
} lists;

/* The name of a list in messages: "order", "launch 8's else". */
static const char *list_name(const lists *ls, int list, char *buf, size_t size) {
  static const char *const keys[2][2] = {{"then", "else"}, {"cond", "body"}};
  if (list < 0)
    return "order";
  snprintf(buf, size, "launch %d's %s", list / 2,
           keys[ls->t->launches[list / 2].kind == HR_WHILE][list % 2]);
  return buf;
}

/* Put launch id x in `list` at position p, refusing an id out of range or already listed. */
static bool place(lists *ls, int x, int list, int p) {
  char a[48], b[48];
  if (x < 0 || x >= ls->t->nlaunches)
    return fail(ls->err, ls->errsize, "target %s: %s lists launch %d, which is out of range "
                "(%d launches)", ls->t->target_id, list_name(ls, list, a, sizeof a), x,
                ls->t->nlaunches);
  if (ls->list_of[x] != -2)
    return fail(ls->err, ls->errsize, "target %s: launch %d is in two lists (%s and %s)",
                ls->t->target_id, x, list_name(ls, ls->list_of[x], a, sizeof a),
                list_name(ls, list, b, sizeof b));
  ls->list_of[x] = list, ls->pos[x] = p;
  return true;
}

/* Launch i runs after its deps (earlier in its own list) and, when it is an if or a while,
 * decides on a readback that has run before: an earlier launch of its list (if) or the
 * last launch of its cond list (while). */
static bool check_launch(const lists *ls, int i) {
  const hr_target *t = ls->t;
  const hr_launch *l = &t->launches[i];
  char a[48];
  const char *id = t->target_id;
  for (int d = 0; d < l->ndeps; d++) {
    int x = l->deps[d];
    if (ls->list_of[x] != ls->list_of[i])
      return fail(ls->err, ls->errsize, "target %s: launch %d depends on launch %d, which is "
                  "not in its list (%s)", id, i, x, list_name(ls, ls->list_of[i], a, sizeof a));
    if (ls->pos[x] >= ls->pos[i])
      return ls->list_of[i] < 0
                 ? fail(ls->err, ls->errsize, "target %s: order is not a topological order of "
                        "the launches", id)
                 : fail(ls->err, ls->errsize, "target %s: %s is not a topological order of its "
                        "launches", id, list_name(ls, ls->list_of[i], a, sizeof a));
  }
  if (l->kind != HR_IF && l->kind != HR_WHILE)
    return true;
  int c = l->condition;
  if (c >= t->nlaunches || t->launches[c].kind != HR_READBACK)
    return fail(ls->err, ls->errsize, "target %s: launch %d: condition %d is not a readback "
                "launch", id, i, c);
  if (l->kind == HR_IF && (ls->list_of[c] != ls->list_of[i] || ls->pos[c] >= ls->pos[i]))
    return fail(ls->err, ls->errsize, "target %s: launch %d: condition %d does not run before "
                "it in its list", id, i, c);
  if (l->kind == HR_WHILE && (!l->nregion[0] || l->region[0][l->nregion[0] - 1] != c))
    return fail(ls->err, ls->errsize, "target %s: launch %d: condition %d is not the last "
                "launch of its cond list", id, i, c);
  return true;
}

/* Every launch runs, from `order` down through the regions (no control nodes listing each
 * other outside it), nested at most HR_MAX_NESTING deep. Each id is in one list, so the walk
 * visits it once. */
static bool check_reachable(const lists *ls) {
  const hr_target *t = ls->t;
  int *queue = malloc(sizeof(int) * (size_t)(t->nlaunches + 1));
  int *depth = calloc((size_t)t->nlaunches + 1, sizeof(int));
  int tail = 0, deepest = 0;
  for (int i = 0; i < t->norder; i++)
    queue[tail++] = t->order[i];
  for (int head = 0; head < tail; head++) {
    const hr_launch *l = &t->launches[queue[head]];
    for (int k = 0; hr_is_control(l) && k < 2; k++)
      for (int j = 0; j < l->nregion[k]; j++) {
        int x = l->region[k][j];
        depth[x] = depth[queue[head]] + 1;
        deepest = depth[x] > deepest ? depth[x] : deepest;
        queue[tail++] = x;
      }
  }
  free(queue);
  free(depth);
  if (tail < t->nlaunches)
    return fail(ls->err, ls->errsize, "target %s: %d launches are never run (control nodes "
                "outside order list each other)", t->target_id, t->nlaunches - tail);
  if (deepest > HR_MAX_NESTING)
    return fail(ls->err, ls->errsize, "target %s: control nodes nest %d deep (at most %d)",
                t->target_id, deepest, HR_MAX_NESTING);
  return true;
}

static bool check_lists(hr_target *t, char *err, size_t errsize) {
  lists ls = {t, malloc(sizeof(int) * (size_t)(t->nlaunches + 1)),
              malloc(sizeof(int) * (size_t)(t->nlaunches + 1)), err, errsize};
  for (int i = 0; i < t->nlaunches; i++)
    ls.list_of[i] = -2, t->launches[i].parent = -1;
  bool ok = true;
  for (int i = 0; ok && i < t->norder; i++)
    ok = place(&ls, t->order[i], -1, i);
  for (int c = 0; ok && c < t->nlaunches; c++) {
    const hr_launch *l = &t->launches[c];
    for (int k = 0; ok && (l->kind == HR_IF || l->kind == HR_WHILE) && k < 2; k++)
      for (int j = 0; ok && j < l->nregion[k]; j++)
        if ((ok = place(&ls, l->region[k][j], 2 * c + k, j)))
          t->launches[l->region[k][j]].parent = c;
  }
  for (int i = 0; ok && i < t->nlaunches; i++)
    if (ls.list_of[i] == -2)
      ok = fail(err, errsize, "target %s: launch %d is in no list (order or a region of an if "
                "/ while)", t->target_id, i);
  ok = ok && check_reachable(&ls);
  for (int i = 0; ok && i < t->nlaunches; i++)
    ok = check_launch(&ls, i);
  free(ls.list_of);
  free(ls.pos);
  return ok;
}

/* Does buffer b lie where its kind says: a graph input/output the manifest declares, a range of
 * the workspace or of the weights file? Unchecked, a hostile manifest makes the client bind
 * addresses outside its own allocations. */
static bool buffer_in_range(const hr_buffer *b, const hr_manifest *m, const hr_target *t) {
  int64_t limit = b->kind == HR_CONSTANT ? m->weights_bytes : t->workspace_bytes;
  switch (b->kind) {
  case HR_INPUT: return b->index >= 0 && b->index < m->ninputs;
  case HR_OUTPUT: return b->index >= 0 && b->index < m->noutputs;
  default: return b->offset <= limit && b->bytes <= limit - b->offset;
  }
}

static bool parse_target(const cJSON *o, const hr_manifest *m, hr_target *t, char *err,
                         size_t errsize) {
  const cJSON *bufs = get(o, "buffers"), *ks = get(o, "kernels"), *ls = get(o, "launches"),
              *order = get(o, "order"), *ws = get(o, "workspace");
  if (!get_str(o, "target_id", t->target_id, sizeof t->target_id) ||
      !get_str(o, "bundle_entry_id", t->bundle_entry_id, sizeof t->bundle_entry_id) ||
      !cJSON_IsArray(bufs) || !cJSON_IsArray(ks) || !cJSON_IsArray(ls) || !cJSON_IsArray(order) ||
      !get_int(ws, "bytes", 0, INT64_MAX, &t->workspace_bytes))
    return fail(err, errsize, "a target lacks target_id, bundle_entry_id, workspace, buffers, "
                              "kernels, launches or order");
  t->workspace_zeroed = 0;
  if (get(ws, "zeroed_bytes") &&
      (!get_int(ws, "zeroed_bytes", 0, t->workspace_bytes, &t->workspace_zeroed)))
    return fail(err, errsize, "workspace.zeroed_bytes is not a count within workspace.bytes");
  t->nbuffers = cJSON_GetArraySize(bufs);
  t->buffers = calloc(t->nbuffers ? (size_t)t->nbuffers : 1, sizeof(hr_buffer));
  for (int i = 0; i < t->nbuffers; i++) {
    const cJSON *b = cJSON_GetArrayItem(bufs, i);
    hr_buffer *hb = &t->buffers[i];
    char kind[16];
    int64_t id, index;
    static const char *const kinds[] = {"input", "output", "intermediate", "workspace", "constant"};
    int k = -1;
    if (get_str(b, "kind", kind, sizeof kind))
      for (int j = 0; j < 5; j++)
        if (!strcmp(kind, kinds[j]))
          k = j;
    if (k < 0 || !get_int(b, "id", i, i, &id) || !get_int(b, "index", -1, INT32_MAX, &index) ||
        !get_int(b, "offset", 0, INT64_MAX, &hb->offset) ||
        !get_int(b, "bytes", 0, INT64_MAX, &hb->bytes))
      return fail(err, errsize, "target %s: buffer %d is malformed (ids must be dense)",
                  t->target_id, i);
    hb->kind = (hr_buffer_kind)k;
    hb->index = (int)index;
    if (!buffer_in_range(hb, m, t))
      return fail(err, errsize, "target %s: buffer %d (%s) lies outside the graph's inputs, "
                  "outputs, workspace or weights file", t->target_id, i, kind);
  }
  t->nkernels = cJSON_GetArraySize(ks);
  t->kernels = calloc(t->nkernels ? (size_t)t->nkernels : 1, sizeof(hr_kernel));
  for (int i = 0; i < t->nkernels; i++)
    if (!parse_kernel(cJSON_GetArrayItem(ks, i), &t->kernels[i], t->nbuffers))
      return fail(err, errsize, "target %s: kernel %d is malformed", t->target_id, i);
  t->nlaunches = cJSON_GetArraySize(ls);
  t->launches = calloc(t->nlaunches ? (size_t)t->nlaunches : 1, sizeof(hr_launch));
  for (int i = 0; i < t->nlaunches; i++) {
    int64_t id;
    if (!get_int(cJSON_GetArrayItem(ls, i), "id", i, i, &id) ||
        !parse_launch(cJSON_GetArrayItem(ls, i), &t->launches[i], t))
      return fail(err, errsize, "target %s: launch %d is malformed", t->target_id, i);
  }
  if (!get_ids(order, &t->order, &t->norder))
    return fail(err, errsize, "target %s: order is not an array of launch ids", t->target_id);
  return check_lists(t, err, errsize);
}

/* A digests entry into out[80]; "" when null or absent. A longer string is cut, which never
 * equals a real digest (71 characters), so it is refused rather than skipped. */
static void copy_digest(const cJSON *j, char out[80]) {
  if (cJSON_IsString(j))
    snprintf(out, 80, "%s", j->valuestring);
}

bool hr_manifest_parse(const char *text, hr_manifest *m, char *err, size_t errsize) {
  return hr_manifest_parse_variant(text, -1, m, err, errsize);
}

bool hr_manifest_parse_variant(const char *text, int variant, hr_manifest *m, char *err,
                               size_t errsize) {
  memset(m, 0, sizeof *m);
  cJSON *root = cJSON_Parse(text);
  if (!root)
    return fail(err, errsize, "manifest is not valid JSON");
  bool ok = false;
  char format[32];
  const cJSON *variants = get(root, "variants");
  m->nvariants = cJSON_IsArray(variants) ? cJSON_GetArraySize(variants) : 0;
  /* a variant's inputs, outputs and targets replace the top level's (docs/manifest.md) */
  const cJSON *src = variant < 0 ? root : cJSON_GetArrayItem(variants, variant);
  const cJSON *targets = get(src, "targets"), *consts = get(root, "constants");
  if (!get_str(root, "format", format, sizeof format) || strcmp(format, "tosac-manifest") != 0) {
    fail(err, errsize, "not a tosac manifest (\"format\": \"tosac-manifest\")");
  } else if (!src) {
    fail(err, errsize, "manifest has no variant %d", variant);
  } else if (!parse_tensors(get(src, "inputs"), &m->inputs, &m->ninputs) ||
             !parse_tensors(get(src, "outputs"), &m->outputs, &m->noutputs)) {
    fail(err, errsize, "manifest inputs or outputs are malformed");
  } else if (!cJSON_IsArray(targets) || cJSON_GetArraySize(targets) == 0) {
    fail(err, errsize, "manifest has no targets");
  } else {
    if (cJSON_IsString(get(consts, "file")))
      get_str(consts, "file", m->weights_file, sizeof m->weights_file);
    get_int(consts, "bytes", 0, INT64_MAX, &m->weights_bytes);
    copy_digest(get(get(root, "digests"), "bundle"), m->bundle_digest);
    copy_digest(get(get(root, "digests"), "weights"), m->weights_digest);
    m->ntargets = cJSON_GetArraySize(targets);
    m->targets = calloc((size_t)m->ntargets, sizeof(hr_target));
    ok = true;
    for (int i = 0; ok && i < m->ntargets; i++)
      ok = parse_target(cJSON_GetArrayItem(targets, i), m, &m->targets[i], err, errsize);
  }
  cJSON_Delete(root);
  if (!ok)
    hr_manifest_free(m);
  return ok;
}

void hr_manifest_free(hr_manifest *m) {
  for (int i = 0; i < m->ntargets; i++) {
    hr_target *t = &m->targets[i];
    for (int k = 0; k < t->nkernels; k++)
      free(t->kernels[k].args);
    for (int l = 0; l < t->nlaunches; l++) {
      free(t->launches[l].deps);
      free(t->launches[l].region[0]);
      free(t->launches[l].region[1]);
    }
    free(t->kernels);
    free(t->launches);
    free(t->buffers);
    free(t->order);
  }
  free(m->targets);
  free(m->inputs);
  free(m->outputs);
  memset(m, 0, sizeof *m);
}

/* ------------------------------------------------------------------ target selection */

/* The mode of `feature` ("xnack") in a target ID: '+', '-' or 0 when unspecified. */
static char feature_mode(const char *id, const char *feature) {
  size_t n = strlen(feature);
  for (const char *p = strchr(id, ':'); p; p = strchr(p + 1, ':'))
    if (strncmp(p + 1, feature, n) == 0 && (p[1 + n] == '+' || p[1 + n] == '-'))
      return p[1 + n];
  return 0;
}

bool hr_target_compatible(const char *code, const char *device) {
  /* gcnArchName may carry the triple prefix ("amdgcn-amd-amdhsa--gfx90a:..."). */
  const char *dd = strstr(device, "--");
  if (dd)
    device = dd + 2;
  size_t pc = strcspn(code, ":"), pd = strcspn(device, ":");
  if (pc != pd || strncmp(code, device, pc) != 0)
    return false;
  static const char *const features[] = {"sramecc", "xnack"};
  for (int i = 0; i < 2; i++) {
    char c = feature_mode(code, features[i]);
    if (c && c != feature_mode(device, features[i]))
      return false; /* fixed by the code object, and the device is in the other mode */
  }
  return true;
}

int hr_select_target(const hr_manifest *m, const char *device) {
  for (int i = 0; i < m->ntargets; i++)
    if (hr_target_compatible(m->targets[i].target_id, device))
      return i;
  return -1;
}

/* ------------------------------------------------------------------ launches */

size_t hr_pack_kernargs(const hr_kernel *k, const uint64_t *buffer_addr, int nbuffers,
                        uint8_t *out, size_t cap, char *err, size_t errsize) {
  size_t size = 0;
  memset(out, 0, cap);
  for (int i = 0; i < k->nargs; i++) {
    const hr_arg *a = &k->args[i];
    if (strncmp(a->value_kind, "hidden_", 7) == 0)
      continue; /* filled by the runtime at the metadata offset */
    if (strcmp(a->value_kind, "global_buffer") != 0) {
      fail(err, errsize, "kernel %s: argument %d has value kind %s, which needs a value the "
                         "manifest does not give", k->name, i, a->value_kind);
      return 0;
    }
    if (a->buffer < 0 || a->buffer >= nbuffers || a->size != 8 || a->offset < 0 ||
        (uint64_t)a->offset + 8 > cap) {
      fail(err, errsize, "kernel %s: argument %d (offset %lld) does not fit the kernarg buffer",
           k->name, i, (long long)a->offset);
      return 0;
    }
    memcpy(out + a->offset, &buffer_addr[a->buffer], 8); /* little-endian device pointer */
    if ((size_t)a->offset + 8 > size)
      size = (size_t)a->offset + 8;
  }
  if (size == 0)
    fail(err, errsize, "kernel %s has no explicit arguments", k->name);
  return size;
}

void hr_buffer_addresses(const hr_target *t, const uint64_t *inputs, const uint64_t *outputs,
                         uint64_t workspace, uint64_t weights, uint64_t *addr) {
  for (int i = 0; i < t->nbuffers; i++) {
    const hr_buffer *b = &t->buffers[i];
    switch (b->kind) {
    case HR_INPUT: addr[i] = inputs[b->index]; break;
    case HR_OUTPUT: addr[i] = outputs[b->index]; break;
    case HR_CONSTANT: addr[i] = weights + (uint64_t)b->offset; break;
    default: addr[i] = workspace + (uint64_t)b->offset; break;
    }
  }
}

hr_fill_plan hr_plan_fill(const hr_launch *l) {
  hr_fill_plan p = {0};
  int bytes = l->bits_width / 8;
  /* A pattern whose bytes are all equal (0.0, -1) is a byte memset, the fastest form. */
  bool uniform = true;
  for (int i = 1; i < bytes; i++)
    uniform &= ((l->bits >> (8 * i)) & 0xff) == (l->bits & 0xff);
  if (uniform) {
    p.width = 8, p.value = (uint32_t)(l->bits & 0xff), p.count = (size_t)l->bytes;
  } else if (bytes == 2 || bytes == 4) {
    /* hipMemsetD16/D32 need an aligned destination; buffers are 256-byte aligned, offsets are
     * multiples of the element size. */
    p.width = l->bits_width, p.value = (uint32_t)l->bits, p.count = (size_t)l->bytes / (size_t)bytes;
  } else {
    p.width = 0; /* 64-bit pattern: the caller copies a host image of the pattern */
    p.count = (size_t)l->bytes / 8;
  }
  return p;
}

void hr_schedule(const hr_target *t, int nstreams, int *stream) {
  int *last = malloc(sizeof(int) * (size_t)(nstreams > 0 ? nstreams : 1));
  for (int s = 0; s < nstreams; s++)
    last[s] = -1;
  int next = 0;
  for (int i = 0; i < t->norder; i++) {
    int id = t->order[i];
    const hr_launch *l = &t->launches[id];
    int s = -1;
    if (l->ndeps > 0 && last[stream[l->deps[0]]] == l->deps[0])
      s = stream[l->deps[0]]; /* continue the chain: no event needed */
    if (s < 0)
      s = next, next = (next + 1) % (nstreams > 0 ? nstreams : 1);
    stream[id] = s;
    last[s] = id;
  }
  free(last);
  /* a region's launches: in order on their control node's stream, so they wait for nothing */
  for (int i = 0; i < t->nlaunches; i++) {
    int top = i;
    while (t->launches[top].parent >= 0)
      top = t->launches[top].parent;
    stream[i] = stream[top];
  }
}

bool hr_needs_wait(const hr_target *t, const int *stream, int launch, int dep_index) {
  return stream[t->launches[launch].deps[dep_index]] != stream[launch];
}

/* ------------------------------------------------------------------ .npy */

static uint64_t le(const uint8_t *p, int n) {
  uint64_t v = 0;
  for (int i = n - 1; i >= 0; i--)
    v = v << 8 | p[i];
  return v;
}

bool hr_npy_parse(const uint8_t *f, size_t size, hr_npy *out, char *err, size_t errsize) {
  memset(out, 0, sizeof *out);
  if (size < 10 || memcmp(f, "\x93NUMPY", 6) != 0)
    return fail(err, errsize, "not a .npy file");
  int major = f[6];
  size_t hlen_bytes = major == 1 ? 2 : 4, start = 8 + hlen_bytes;
  if (major < 1 || major > 3 || size < start)
    return fail(err, errsize, ".npy version %d is not supported", major);
  uint64_t hlen = le(f + 8, (int)hlen_bytes);
  if (hlen > size - start || hlen > 65536)
    return fail(err, errsize, ".npy header runs past the end of the file");
  char hdr[65537];
  memcpy(hdr, f + start, (size_t)hlen);
  hdr[hlen] = 0;
  const char *d = strstr(hdr, "'descr'"), *fo = strstr(hdr, "'fortran_order'"),
             *sh = strstr(hdr, "'shape'");
  if (!d || !fo || !sh || sscanf(d, "'descr': '%15[^']'", out->descr) != 1)
    return fail(err, errsize, ".npy header lacks descr, fortran_order or shape");
  if (strncmp(fo, "'fortran_order': False", 22) != 0)
    return fail(err, errsize, ".npy in Fortran order is not supported");
  const char *p = strchr(sh, '(');
  if (!p)
    return fail(err, errsize, ".npy shape is malformed");
  p++;
  while (*p && *p != ')') {
    char *end;
    long long v = strtoll(p, &end, 10);
    if (end == p || v < 0 || out->rank == HR_MAX_RANK)
      return fail(err, errsize, ".npy shape is malformed");
    out->dims[out->rank++] = v;
    p = end;
    while (*p == ',' || *p == ' ')
      p++;
  }
  out->data = f + start + hlen;
  out->bytes = size - start - (size_t)hlen;
  return true;
}

const char *hr_npy_descr(const char *t) {
  static const char *const map[][2] = {
      {"f32", "<f4"}, {"f16", "<f2"}, {"f64", "<f8"}, {"bf16", "<u2"}, {"i1", "|b1"},
      {"i8", "|i1"}, {"i16", "<i2"}, {"i32", "<i4"}, {"i64", "<i8"}, {"f8E4M3FN", "|u1"},
      {"f8E5M2", "|u1"}, {"f8E4M3FNUZ", "|u1"}, {"f8E5M2FNUZ", "|u1"}};
  for (size_t i = 0; i < sizeof map / sizeof map[0]; i++)
    if (!strcmp(map[i][0], t))
      return map[i][1];
  return NULL;
}

bool hr_npy_matches(const hr_npy *n, const hr_tensor *t, char *err, size_t errsize) {
  const char *want = hr_npy_descr(t->element_type);
  bool same_shape = n->rank == t->rank;
  for (int i = 0; same_shape && i < t->rank; i++)
    same_shape = n->dims[i] == t->dims[i];
  /* Accept the byte order marks '=' and '|' for the same type, and bf16 as raw '<u2'/'<i2'. */
  bool same_type = want && strcmp(n->descr + 1, want + 1) == 0;
  if (!same_type && want && !strcmp(t->element_type, "bf16"))
    same_type = !strcmp(n->descr + 1, "i2");
  if (!same_shape || !same_type)
    return fail(err, errsize, "holds %s of rank %d; the manifest expects %s (%s) of rank %d",
                n->descr, n->rank, t->element_type, want ? want : "?", t->rank);
  if (n->bytes < (size_t)t->bytes)
    return fail(err, errsize, "holds %zu data bytes; the manifest expects %lld", n->bytes,
                (long long)t->bytes);
  return true;
}

uint8_t *hr_npy_encode(const hr_tensor *t, const void *data, size_t *size) {
  char hdr[256];
  int n = snprintf(hdr, sizeof hdr, "{'descr': '%s', 'fortran_order': False, 'shape': (",
                   hr_npy_descr(t->element_type) ? hr_npy_descr(t->element_type) : "|u1");
  for (int i = 0; i < t->rank; i++)
    n += snprintf(hdr + n, sizeof hdr - (size_t)n, "%lld%s", (long long)t->dims[i],
                  t->rank == 1 ? "," : i + 1 < t->rank ? ", " : ""); /* numpy: "(3,)" */
  n += snprintf(hdr + n, sizeof hdr - (size_t)n, "), }");
  /* Pad with spaces so the data starts at a multiple of 64, newline last (format 1.0). */
  size_t total_hdr = 10 + (size_t)n + 1;
  size_t pad = (64 - total_hdr % 64) % 64;
  size_t hlen = (size_t)n + pad + 1;
  *size = 10 + hlen + (size_t)t->bytes;
  uint8_t *f = malloc(*size);
  memcpy(f, "\x93NUMPY\x01\x00", 8);
  f[8] = (uint8_t)(hlen & 0xff), f[9] = (uint8_t)(hlen >> 8);
  memcpy(f + 10, hdr, (size_t)n);
  memset(f + 10 + n, ' ', pad);
  f[10 + hlen - 1] = '\n';
  memcpy(f + 10 + hlen, data, (size_t)t->bytes);
  return f;
}
