/* compiled.c: a problem compiled once for every handle of it. MIOpen creates one handle per
 * kernel id, in turn, for the same problem; each used to compile the whole graph again. The
 * compiled problem (libtosac's result, with everything the handles read from it extracted up
 * front: kernels in launch order, their launch sizes and argument views, the kernel IR and the
 * constants) is shared by reference count, and the last few problems stay in a small process
 * cache. Handles of one problem thus cost one compile plus one lowering each. */
#include "miir.h"
#include "tosac.h"
#include "tosac/tosac.h"

#include <cjson/cJSON.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define CACHE_SIZE 4

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static miir_compiled *cache[CACHE_SIZE]; /* most recently used first */

/* The key: the problem without what differs between the handles of one problem. */
static miir_problem key_of(const miir_problem *p) {
  miir_problem k = *p;
  k.kernel_id = 0;
  memset(k.kernel_name, 0, sizeof k.kernel_name);
  return k;
}

static void free_compiled(miir_compiled *c) {
  for (int i = 0; i < c->nkernels; i++)
    free(c->kernels[i].views);
  free(c->kernels);
  free(c->entries);
  if (c->r)
    tosac_result_dispose(c->r);
  free(c);
}

/* The first error of a failed compile (the graph is ours: the message names what tosac
 * refused, not a place in the caller's input). */
static void compile_error(const tosac_result *r, char *buf, size_t n) {
  for (int i = 0; i < tosac_result_diagnostic_count(r); i++)
    if (!strcmp(tosac_result_diagnostic_severity(r, i), "error")) {
      snprintf(buf, n, "tosac: %s", tosac_result_diagnostic_message(r, i));
      return;
    }
  snprintf(buf, n, "tosac: the compile failed");
}

static void views_of(miir_compiled *c, cJSON *bufs, const tosac_kernel *k, miir_kernel_info *ki) {
  ki->views = calloc((size_t)k->nargs + 1, sizeof *ki->views);
  for (int a = 0; a < k->nargs; a++) {
    if (strcmp(k->args[a].value_kind, "global_buffer"))
      continue;
    cJSON *b = cJSON_GetArrayItem(bufs, k->args[a].buffer);
    const char *kind = cJSON_GetStringValue(cJSON_GetObjectItem(b, "kind"));
    int index = (int)cJSON_GetNumberValue(cJSON_GetObjectItem(b, "index"));
    miir_view *v = &ki->views[ki->nviews++];
    v->offset = (uint64_t)cJSON_GetNumberValue(cJSON_GetObjectItem(b, "offset"));
    v->bytes = (uint64_t)cJSON_GetNumberValue(cJSON_GetObjectItem(b, "bytes"));
    if (kind && !strcmp(kind, "input"))
      v->slot = miir_arg_slot(&c->key, index), v->offset = 0;
    else if (kind && !strcmp(kind, "output"))
      v->slot = miir_result_slot(&c->key), v->offset = 0;
    else if (kind && !strcmp(kind, "constant"))
      v->slot = -1;
    else
      v->slot = MIIR_SLOT_WORKSPACE;
  }
}

/* Everything the handles read, from the manifest and the bundle; false + message when the
 * launch graph is not something MIOpen can launch. */
static bool extract(miir_compiled *c, char *err, size_t n) {
  cJSON *m = cJSON_Parse(tosac_result_manifest(c->r));
  cJSON *t = cJSON_GetArrayItem(cJSON_GetObjectItem(m, "targets"), 0);
  bool ok = t != NULL;
  if (!ok)
    snprintf(err, n, "internal error: the manifest has no target");
  cJSON *l;
  cJSON_ArrayForEach(l, cJSON_GetObjectItem(t, "launches")) {
    const char *kind = cJSON_GetStringValue(cJSON_GetObjectItem(l, "kind"));
    if (ok && kind && strcmp(kind, "kernel")) {
      snprintf(err, n, "the launch graph has a %s node; MIOpen can only launch kernels", kind);
      ok = false;
    }
  }
  c->workspace = (uint64_t)cJSON_GetNumberValue(
      cJSON_GetObjectItem(cJSON_GetObjectItem(t, "workspace"), "bytes"));
  c->nkernels = tosac_result_kernel_count(c->r, 0);
  c->kernels = calloc((size_t)c->nkernels + 1, sizeof *c->kernels);
  cJSON *bufs = cJSON_GetObjectItem(t, "buffers");
  for (int i = 0; ok && i < c->nkernels; i++) {
    tosac_kernel k;
    tosac_result_kernel(c->r, 0, i, &k);
    if (k.grid[1] * k.grid[2] * k.block[1] * k.block[2] != 1) {
      snprintf(err, n,
               "kernel %s has a %ux%ux%u grid of %ux%ux%u blocks; MIOpen launches 1-D grids",
               k.name, k.grid[0], k.grid[1], k.grid[2], k.block[0], k.block[1], k.block[2]);
      ok = false;
      break;
    }
    c->kernels[i].name = k.name;
    c->kernels[i].groups = k.grid[0];
    c->kernels[i].block = k.block[0];
    views_of(c, bufs, &k, &c->kernels[i]);
  }
  cJSON_Delete(m);
  size_t bsize = 0;
  const uint8_t *bundle = tosac_result_bundle(c->r, &bsize);
  c->weights = tosac_result_weights(c->r, &c->weights_size);
  target_request tr;
  int ne = 0;
  if (ok && (!target_parse(c->key.target, &tr, err, n) ||
             !bnd_parse(bundle, bsize, &c->entries, &ne, err, n)))
    ok = false;
  if (ok) {
    bnd_bitcode_id(&tr, c->ir_id, sizeof c->ir_id);
    bnd_code_object_id(&tr, c->co_id, sizeof c->co_id);
    for (int i = 0; i < ne; i++)
      if (!strcmp(c->entries[i].id, c->ir_id))
        c->bitcode = c->entries[i].data, c->bitcode_size = c->entries[i].size;
    if (!c->bitcode)
      snprintf(err, n, "internal error: the bundle has no kernel IR"), ok = false;
  }
  return ok;
}

static miir_compiled *compile(const miir_problem *key, char *err, size_t n) {
  miir_compiled *c = calloc(1, sizeof *c);
  c->key = *key;
  char *text = miir_graph(key);
  const char *dump = getenv("TOSAC_MIIR_GRAPH"); /* tosac extension: the graph, for tosac itself */
  FILE *df = dump && *dump ? fopen(dump, "w") : NULL;
  if (df) {
    fputs(text, df);
    fclose(df);
  }
  tosac_options *o = tosac_options_create();
  bool ok = tosac_options_add_targets(o, key->target) == TOSAC_OK &&
            tosac_options_set_init_mode(o, TOSAC_INIT_KERNEL) == TOSAC_OK &&
            tosac_options_set_zeroed_workspace(o, 0) == TOSAC_OK && /* MIOpen's is uninitialised */
            tosac_options_set_embed_ir(o, 1) == TOSAC_OK &&
            tosac_options_set_jobs(o, 1) == TOSAC_OK &&
            /* MIOpen's forward and backward-data invokers pass no workspace (docs/miopen.md
             * "Workspace"): no split-K or im2col there */
            tosac_options_set_workspace_expansions(o, key->op == MIIR_BWD_WEIGHT) == TOSAC_OK;
  if (!ok)
    snprintf(err, n, "internal error: %s", tosac_options_error(o));
  /* rocMLIR's tuning strings ("v2:128,128,4,...") are no tosac tile: the problem still builds
   * with tosac's own tile, but the tuning query says the string does not apply */
  bool foreign = key->perf_config[0] && !strchr(key->perf_config, '=');
  if (foreign)
    snprintf(c->tuning_why, sizeof c->tuning_why,
             "--perf_config %s: not a tosac tile (bm=..,bn=..,...; docs/gemm.md); the kernels use "
             "tosac's own tile",
             key->perf_config);
  else if (ok && key->perf_config[0] &&
           tosac_options_set_perf_config(o, key->perf_config) != TOSAC_OK)
    snprintf(c->why, sizeof c->why, "--perf_config %s: %s", key->perf_config,
             tosac_options_error(o));
  if (ok && !c->why[0]) {
    c->r = tosac_compile_buffer(o, "miir.mlir", text, strlen(text));
    if (tosac_result_status(c->r) != TOSAC_OK) {
      char msg[1024];
      compile_error(c->r, msg, sizeof msg);
      if (key->perf_config[0] && !foreign) /* the tile's failure: not applicable, still a handle */
        snprintf(c->why, sizeof c->why, "--perf_config %s: %s", key->perf_config, msg);
      else
        snprintf(err, n, "%s", msg), ok = false;
    } else {
      ok = extract(c, err, n);
    }
  }
  tosac_options_dispose(o);
  free(text);
  if (!ok) {
    free_compiled(c);
    return NULL;
  }
  c->refs = 1;
  return c;
}

miir_compiled *miir_compiled_get(const miir_problem *p, char *err, size_t n) {
  miir_problem key = key_of(p);
  pthread_mutex_lock(&lock);
  for (int i = 0; i < CACHE_SIZE; i++)
    if (cache[i] && !memcmp(&cache[i]->key, &key, sizeof key)) {
      miir_compiled *c = cache[i];
      memmove(cache + 1, cache, sizeof *cache * (size_t)i);
      cache[0] = c;
      c->refs++;
      pthread_mutex_unlock(&lock);
      return c;
    }
  pthread_mutex_unlock(&lock);
  /* compile outside the lock: handles of other problems compile in parallel */
  miir_compiled *c = compile(&key, err, n);
  if (!c)
    return NULL;
  pthread_mutex_lock(&lock);
  miir_compiled *old = cache[CACHE_SIZE - 1];
  memmove(cache + 1, cache, sizeof *cache * (CACHE_SIZE - 1));
  cache[0] = c;
  c->refs++; /* the cache's reference */
  bool drop = old && --old->refs == 0;
  pthread_mutex_unlock(&lock);
  if (drop)
    free_compiled(old);
  return c;
}

void miir_compiled_release(miir_compiled *c) {
  pthread_mutex_lock(&lock);
  bool drop = --c->refs == 0;
  pthread_mutex_unlock(&lock);
  if (drop)
    free_compiled(c);
}
