/* miir.c: the Miir.h API (docs/miopen.md). A handle is a parsed problem and its compile
 * (compiled.c: one libtosac compile for the problem's one target with init kernels instead of
 * memsets, so every step of the launch graph is a kernel MIOpen can launch; shared by the
 * problem's handles). The kernels of the manifest's launch order are the problem's kernel
 * ids; miirLowerBin builds kernel --kernel_id alone into a code object with MIOpen's
 * four-pointer entry (abi.c). */
#define TOSAC_MIIR_BUILDING 1
#include "Miir.h"
#include "miir.h"
#include "tosac.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct miir_handle {
  miir_problem p;
  miir_compiled *c;
  uint8_t *code; /* miirLowerBin's output: the code object, or a bundle with its IR */
  size_t code_size;
} miir_handle;

static _Thread_local char last_error[2048];

static void set_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
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

MiirHandle miirCreateHandle(const char *options) {
  last_error[0] = 0;
  miir_handle *h = calloc(1, sizeof *h);
  char err[1024];
  if (!h || !miir_parse(options, &h->p, err, sizeof err) ||
      !(h->c = miir_compiled_get(&h->p, err, sizeof err))) {
    set_error("%s", h ? err : "out of memory");
    free(h);
    return NULL;
  }
  return h;
}

int miirGetKernelCount(MiirHandle handle) {
  const miir_handle *h = handle;
  return h ? h->c->nkernels : -1;
}

int miirGetWorkspaceSize(MiirHandle handle) {
  const miir_handle *h = handle;
  return h && h->c->workspace <= 0x7fffffff ? (int)h->c->workspace : 0;
}

/* The handle's kernel, or a status with the message set. */
static MiirStatus check(const miir_handle *h, MiirStatus not_applicable) {
  if (!h)
    return set_error("NULL handle"), MIIR_INVALID_PARAM;
  if (h->c->why[0])
    return set_error("%s", h->c->why), not_applicable;
  if (h->p.kernel_id < 0 || h->p.kernel_id >= h->c->nkernels)
    return set_error("--kernel_id %d: the problem has %d kernels", h->p.kernel_id, h->c->nkernels),
           MIIR_INVALID_PARAM;
  return MIIR_SUCCESS;
}

MiirStatus miirLowerTuningParams(MiirHandle handle) {
  miir_handle *h = handle;
  if (!h)
    return set_error("NULL handle"), MIIR_INVALID_PARAM;
  if (h->c->why[0] || h->c->tuning_why[0])
    return set_error("%s", h->c->why[0] ? h->c->why : h->c->tuning_why), MIIR_BUILD_FAILURE;
  return MIIR_SUCCESS;
}

MiirStatus miirLowerBin(MiirHandle handle) {
  miir_handle *h = handle;
  MiirStatus st = check(h, MIIR_BUILD_FAILURE);
  if (st != MIIR_SUCCESS || h->code)
    return st;
  const miir_compiled *c = h->c;
  const miir_kernel_info *k = &c->kernels[h->p.kernel_id];
  miir_kernel_src src = {c->bitcode, c->bitcode_size, k->name,        k->views,
                         k->nviews,  c->weights,      c->weights_size};
  bool embed = env_on("TOSAC_MIIR_EMBED_IR");
  uint8_t *co = NULL, *bc = NULL;
  size_t co_size = 0, bc_size = 0;
  char err[1024];
  if (!miir_build_kernel(&src, h->p.target, h->p.kernel_name, &co, &co_size, embed ? &bc : NULL,
                         &bc_size, err, sizeof err))
    return set_error("%s", err), MIIR_BUILD_FAILURE;
  if (embed) { /* for the emulator, which runs the IR: a bundle of the code object and its IR */
    bnd_entry e[3] = {
        {.id = BND_HOST_ID}, {.data = co, .size = co_size}, {.data = bc, .size = bc_size}};
    snprintf(e[1].id, sizeof e[1].id, "%s", c->co_id);
    snprintf(e[2].id, sizeof e[2].id, "%s", c->ir_id);
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
    return set_error("miirBufferGet before a successful miirLowerBin"), MIIR_INVALID_MODULE;
  if (!buffer) {
    *size = h->code_size;
    return MIIR_SUCCESS;
  }
  if (*size < h->code_size)
    return set_error("miirBufferGet: a buffer of %zu bytes for a code object of %zu", *size,
                     h->code_size),
           MIIR_INVALID_PARAM;
  memcpy(buffer, h->code, h->code_size);
  *size = h->code_size;
  return MIIR_SUCCESS;
}

MiirStatus miirGetExecutionDims(MiirHandle handle, size_t *global_size, size_t *local_size) {
  miir_handle *h = handle;
  if (h && (!global_size || !local_size))
    return set_error("NULL size pointer"), MIIR_INVALID_PARAM;
  MiirStatus st = check(h, MIIR_INVALID_MODULE);
  if (st != MIIR_SUCCESS)
    return st;
  const miir_kernel_info *k = &h->c->kernels[h->p.kernel_id];
  *local_size = k->block;
  *global_size = (size_t)k->groups * k->block;
  return MIIR_SUCCESS;
}

MiirStatus miirDestroyHandle(MiirHandle handle) {
  miir_handle *h = handle;
  if (!h)
    return set_error("NULL handle"), MIIR_INVALID_PARAM;
  miir_compiled_release(h->c);
  free(h->code);
  free(h);
  return MIIR_SUCCESS;
}
