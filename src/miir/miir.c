/* miir.c: the Miir.h API (docs/miopen.md). A handle is one compile of the
 * problem's graph for its one target through libtosac (init kernels instead of
 * memsets, so every step of the launch graph is a kernel MIOpen can launch);
 * the kernels of the manifest's launch order are the problem's kernel ids.
 * miirLowerBin builds kernel --kernel_id alone into a code object with MIOpen's
 * four-pointer entry (abi.c). */
#define TOSAC_MIIR_BUILDING 1
#include "Miir.h"
#include "miir.h"
#include "tosac.h"
#include "tosac/tosac.h"

#include <cjson/cJSON.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct miir_handle {
  miir_problem p;
  tosac_result *r;
  bool applicable; /* the compile succeeded (false: only a --perf_config failed)
                    */
  char why[2048];  /* when !applicable */
  int nkernels;
  uint64_t workspace;
  uint8_t *code; /* miirLowerBin's output: code object, or bundle with the IR */
  size_t code_size;
} miir_handle;

static _Thread_local char last_error[2048];

static void set_error(const char *fmt, ...)
    __attribute__((format(printf, 1, 2)));
static void set_error(const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(last_error, sizeof last_error, fmt, ap);
  va_end(ap);
}

const char *tosac_miir_error(void) { return last_error; }

static bool env_on(const char *name) {
  const char *v = getenv(name);
  return v && *v && strcmp(v, "0");
}

/* The diagnostics of a failed compile, first error only (the graph is ours, so
 * it names the construct tosac refused rather than a place in the user's
 * input). */
static void compile_error(const tosac_result *r, char *buf, size_t n) {
  for (int i = 0; i < tosac_result_diagnostic_count(r); i++)
    if (!strcmp(tosac_result_diagnostic_severity(r, i), "error")) {
      snprintf(buf, n, "tosac: %s", tosac_result_diagnostic_message(r, i));
      return;
    }
  snprintf(buf, n, "tosac: the compile failed");
}

/* Kernel count and workspace from the manifest; checks that every launch is a
 * kernel MIOpen can launch with a 1-D grid. */
static bool read_plan(miir_handle *h) {
  cJSON *m = cJSON_Parse(tosac_result_manifest(h->r));
  cJSON *t = cJSON_GetArrayItem(cJSON_GetObjectItem(m, "targets"), 0);
  bool ok = t != NULL;
  if (ok) {
    h->workspace = (uint64_t)cJSON_GetNumberValue(
        cJSON_GetObjectItem(cJSON_GetObjectItem(t, "workspace"), "bytes"));
    cJSON *l;
    cJSON_ArrayForEach(l, cJSON_GetObjectItem(t, "launches")) {
      const char *kind = cJSON_GetStringValue(cJSON_GetObjectItem(l, "kind"));
      if (kind && strcmp(kind, "kernel")) {
        set_error(
            "the launch graph has a %s node; MIOpen can only launch kernels",
            kind);
        ok = false;
        break;
      }
    }
  } else {
    set_error("internal error: the manifest has no target");
  }
  cJSON_Delete(m);
  h->nkernels = tosac_result_kernel_count(h->r, 0);
  for (int i = 0; ok && i < h->nkernels; i++) {
    tosac_kernel k;
    tosac_result_kernel(h->r, 0, i, &k);
    if (k.grid[1] * k.grid[2] * k.block[1] * k.block[2] != 1) {
      set_error("kernel %s has a %ux%ux%u grid of %ux%ux%u blocks; MIOpen "
                "launches 1-D grids",
                k.name, k.grid[0], k.grid[1], k.grid[2], k.block[0], k.block[1],
                k.block[2]);
      ok = false;
    }
  }
  return ok;
}

MiirHandle miirCreateHandle(const char *options) {
  last_error[0] = 0;
  miir_handle *h = calloc(1, sizeof *h);
  char err[1024];
  if (!h || !miir_parse(options, &h->p, err, sizeof err)) {
    set_error("%s", h ? err : "out of memory");
    free(h);
    return NULL;
  }
  char *text = miir_graph(&h->p);
  const char *dump = getenv("TOSAC_MIIR_GRAPH"); /* tosac extension: the graph, for tosac itself */
  FILE *df = dump && *dump ? fopen(dump, "w") : NULL;
  if (df) {
    fputs(text, df);
    fclose(df);
  }
  tosac_options *o = tosac_options_create();
  bool ok = tosac_options_add_targets(o, h->p.target) == TOSAC_OK &&
            tosac_options_set_init_mode(o, TOSAC_INIT_KERNEL) == TOSAC_OK &&
            tosac_options_set_embed_ir(o, 1) == TOSAC_OK &&
            tosac_options_set_jobs(o, 1) == TOSAC_OK;
  bool perf_ok = !h->p.perf_config[0] ||
                 tosac_options_set_perf_config(o, h->p.perf_config) == TOSAC_OK;
  if (!ok) {
    set_error("internal error: %s", tosac_options_error(o));
  } else {
    if (!perf_ok) {
      snprintf(h->why, sizeof h->why, "--perf_config %s: %s", h->p.perf_config,
               tosac_options_error(o));
      tosac_options_set_perf_config(o, NULL);
    }
    h->r = tosac_compile_buffer(o, "miir.mlir", text, strlen(text));
    if (tosac_result_status(h->r) != TOSAC_OK) {
      compile_error(h->r, err, sizeof err);
      if (perf_ok && h->p.perf_config[0])
        snprintf(h->why, sizeof h->why, "--perf_config %s: %s",
                 h->p.perf_config, err);
      else
        set_error("%s", err), ok = false;
    } else {
      ok = read_plan(h);
    }
    h->applicable = ok && !h->why[0];
  }
  tosac_options_dispose(o);
  free(text);
  if (!ok) {
    tosac_result_dispose(h->r);
    free(h);
    return NULL;
  }
  return h;
}

int miirGetKernelCount(MiirHandle handle) {
  const miir_handle *h = handle;
  return h ? h->nkernels : -1;
}

int miirGetWorkspaceSize(MiirHandle handle) {
  const miir_handle *h = handle;
  return h && h->workspace <= 0x7fffffff ? (int)h->workspace : 0;
}

MiirStatus miirLowerTuningParams(MiirHandle handle) {
  miir_handle *h = handle;
  if (!h)
    return set_error("NULL handle"), MIIR_INVALID_PARAM;
  if (!h->applicable)
    return set_error("%s", h->why), MIIR_BUILD_FAILURE;
  return MIIR_SUCCESS;
}

/* Kernel i's arguments as MIOpen views, from the manifest's buffer table. */
static miir_view *kernel_views(const miir_handle *h, const tosac_kernel *k,
                               int *n) {
  cJSON *m = cJSON_Parse(tosac_result_manifest(h->r));
  cJSON *bufs = cJSON_GetObjectItem(
      cJSON_GetArrayItem(cJSON_GetObjectItem(m, "targets"), 0), "buffers");
  miir_view *v = calloc((size_t)k->nargs + 1, sizeof *v);
  *n = 0;
  for (int a = 0; a < k->nargs; a++) {
    if (strcmp(k->args[a].value_kind, "global_buffer"))
      continue;
    cJSON *b = cJSON_GetArrayItem(bufs, k->args[a].buffer);
    const char *kind = cJSON_GetStringValue(cJSON_GetObjectItem(b, "kind"));
    int index = (int)cJSON_GetNumberValue(cJSON_GetObjectItem(b, "index"));
    miir_view *x = &v[(*n)++];
    x->offset =
        (uint64_t)cJSON_GetNumberValue(cJSON_GetObjectItem(b, "offset"));
    x->bytes = (uint64_t)cJSON_GetNumberValue(cJSON_GetObjectItem(b, "bytes"));
    if (!kind)
      x->slot = -2;
    else if (!strcmp(kind, "input"))
      x->slot = miir_arg_slot(&h->p, index), x->offset = 0;
    else if (!strcmp(kind, "output"))
      x->slot = miir_result_slot(&h->p), x->offset = 0;
    else if (!strcmp(kind, "constant"))
      x->slot = -1;
    else
      x->slot = MIIR_SLOT_WORKSPACE;
  }
  cJSON_Delete(m);
  return v;
}

static const bnd_entry *find_entry(const bnd_entry *e, int n, const char *id) {
  for (int i = 0; i < n; i++)
    if (!strcmp(e[i].id, id))
      return &e[i];
  return NULL;
}

MiirStatus miirLowerBin(MiirHandle handle) {
  miir_handle *h = handle;
  if (!h)
    return set_error("NULL handle"), MIIR_INVALID_PARAM;
  if (!h->applicable)
    return set_error("%s", h->why), MIIR_BUILD_FAILURE;
  if (h->p.kernel_id < 0 || h->p.kernel_id >= h->nkernels)
    return set_error("--kernel_id %d: the problem has %d kernels",
                     h->p.kernel_id, h->nkernels),
           MIIR_INVALID_PARAM;
  if (h->code)
    return MIIR_SUCCESS;
  tosac_kernel k;
  tosac_result_kernel(h->r, 0, h->p.kernel_id, &k);
  size_t bsize = 0, wsize = 0;
  const uint8_t *bundle = tosac_result_bundle(h->r, &bsize);
  const uint8_t *weights = tosac_result_weights(h->r, &wsize);
  bnd_entry *entries = NULL;
  int ne = 0;
  char err[1024];
  target_request tr;
  if (!target_parse(h->p.target, &tr, err, sizeof err) ||
      !bnd_parse(bundle, bsize, &entries, &ne, err, sizeof err))
    return set_error("internal error: %s", err), MIIR_BUILD_FAILURE;
  char irid[128], coid[128];
  bnd_bitcode_id(&tr, irid, sizeof irid);
  bnd_code_object_id(&tr, coid, sizeof coid);
  const bnd_entry *ir = find_entry(entries, ne, irid);
  int nviews;
  miir_view *views = kernel_views(h, &k, &nviews);
  miir_kernel_src src = {ir ? ir->data : NULL,
                         ir ? ir->size : 0,
                         k.name,
                         views,
                         nviews,
                         weights,
                         wsize};
  bool embed = env_on("TOSAC_MIIR_EMBED_IR");
  uint8_t *co = NULL, *bc = NULL;
  size_t co_size = 0, bc_size = 0;
  bool ok = ir && miir_build_kernel(&src, h->p.target, h->p.kernel_name, &co,
                                    &co_size, embed ? &bc : NULL, &bc_size, err,
                                    sizeof err);
  if (!ir)
    snprintf(err, sizeof err, "internal error: the bundle has no kernel IR");
  free(views);
  free(entries);
  if (!ok)
    return set_error("%s", err), MIIR_BUILD_FAILURE;
  if (embed) { /* the emulator runs the IR: a bundle of the code object and its
                  IR */
    bnd_entry e[3] = {{.id = BND_HOST_ID},
                      {.data = co, .size = co_size},
                      {.data = bc, .size = bc_size}};
    snprintf(e[1].id, sizeof e[1].id, "%s", coid);
    snprintf(e[2].id, sizeof e[2].id, "%s", irid);
    h->code = bnd_build(e, 3, BND_ALIGN, &h->code_size);
    free(co);
    free(bc);
  } else {
    h->code = co, h->code_size = co_size;
  }
  return MIIR_SUCCESS;
}

MiirStatus miirBufferGet(MiirHandle handle, char *buffer, size_t *size) {
  miir_handle *h = handle;
  if (!h || !size)
    return set_error(!h ? "NULL handle" : "NULL size"), MIIR_INVALID_PARAM;
  if (!h->code)
    return set_error("miirBufferGet before a successful miirLowerBin"),
           MIIR_INVALID_MODULE;
  if (!buffer) {
    *size = h->code_size;
    return MIIR_SUCCESS;
  }
  if (*size < h->code_size)
    return set_error(
               "miirBufferGet: buffer of %zu bytes, the code object has %zu",
               *size, h->code_size),
           MIIR_INVALID_PARAM;
  memcpy(buffer, h->code, h->code_size);
  *size = h->code_size;
  return MIIR_SUCCESS;
}

MiirStatus miirGetExecutionDims(MiirHandle handle, size_t *global_size,
                                size_t *local_size) {
  miir_handle *h = handle;
  if (!h || !global_size || !local_size)
    return set_error(!h ? "NULL handle" : "NULL size pointer"),
           MIIR_INVALID_PARAM;
  if (!h->applicable)
    return set_error("%s", h->why), MIIR_INVALID_MODULE;
  if (h->p.kernel_id < 0 || h->p.kernel_id >= h->nkernels)
    return set_error("--kernel_id %d: the problem has %d kernels",
                     h->p.kernel_id, h->nkernels),
           MIIR_INVALID_PARAM;
  tosac_kernel k;
  tosac_result_kernel(h->r, 0, h->p.kernel_id, &k);
  *local_size = k.block[0];
  *global_size = (size_t)k.grid[0] * k.block[0];
  return MIIR_SUCCESS;
}

MiirStatus miirDestroyHandle(MiirHandle handle) {
  miir_handle *h = handle;
  if (!h)
    return set_error("NULL handle"), MIIR_INVALID_PARAM;
  tosac_result_dispose(h->r);
  free(h->code);
  free(h);
  return MIIR_SUCCESS;
}
