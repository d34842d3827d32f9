/* module.c: libtosac-hipemu's modules. hipModuleLoadData takes a clang offload bundle (plain or
 * CCOB) or a bare code object, picks the code object the device can run (the target-ID rule
 * HIP's loader uses) and runs its machine code (emu_load_code), or, with TOSAC_HIPEMU_EXEC=ir,
 * JIT-compiles the kernel IR tosac --embed-ir stored next to it (faster); the code object gives
 * each kernel's argument layout (its metadata note), as on a GPU. */
#include "hipemu.h"
#include "../tosac-bundle/codeobj.h"
#include "../tosac-hip-run/host.h"
#include "bundle/bundle.h"

#include <stdlib.h>
#include <string.h>

struct ihipModule_t {
  emu_module *emu;
  uint8_t *code;       /* the code object (its metadata note: argument layouts) */
  size_t code_size;
  char target_id[128]; /* of the entry loaded */
};

struct ihipModuleSymbol_t {
  struct ihipModule_t *module;
  cg_kernel_info meta;     /* name, kernarg size, LDS, every argument */
  int64_t explicit_end;    /* end of the last explicit argument in the kernarg segment */
  struct ihipModuleSymbol_t *next;
};

/* Functions of live modules (freed with their module). */
static struct ihipModuleSymbol_t *functions;

static uint64_t le64(const uint8_t *p) {
  uint64_t v;
  memcpy(&v, p, 8);
  return v;
}

/* hipModuleLoadData gets a pointer without a size: a bundle's extent follows from its header
 * (the end of its last entry), a CCOB's from its size field (versions 2 and 3). 0: unknown. */
static size_t image_extent(const uint8_t *p) {
  if (!memcmp(p, "CCOB", 4)) {
    uint16_t version;
    memcpy(&version, p + 4, 2);
    if (version == 2) {
      uint32_t total;
      memcpy(&total, p + 8, 4);
      return total;
    }
    return version == 3 ? (size_t)le64(p + 8) : 0;
  }
  if (memcmp(p, BND_MAGIC, BND_MAGIC_LEN))
    return 0;
  uint64_t n = le64(p + BND_MAGIC_LEN), end = BND_MAGIC_LEN + 8, pos = end;
  if (n > BND_MAX_ENTRIES)
    return 0;
  for (uint64_t i = 0; i < n; i++) {
    uint64_t off = le64(p + pos), size = le64(p + pos + 8), idlen = le64(p + pos + 16);
    if (idlen > 4096 || off > (1ull << 40) || size > (1ull << 40))
      return 0;
    pos += 24 + idlen;
    end = off + size > end ? off + size : end;
  }
  return (size_t)(pos > end ? pos : end);
}

/* A bare ELF code object's extent: the end of its section header table or of its furthest
 * segment or section. */
static size_t elf_extent(const uint8_t *p) {
  uint16_t phentsize, phnum, shentsize, shnum;
  uint64_t phoff = le64(p + 0x20), shoff = le64(p + 0x28);
  memcpy(&phentsize, p + 0x36, 2), memcpy(&phnum, p + 0x38, 2);
  memcpy(&shentsize, p + 0x3a, 2), memcpy(&shnum, p + 0x3c, 2);
  if (p[4] != 2 || phoff > (1ull << 32) || shoff > (1ull << 32) || phentsize < 0x38 || shentsize < 0x40)
    return 0;
  uint64_t end = shoff + (uint64_t)shnum * shentsize;
  for (int i = 0; i < phnum; i++) {
    const uint8_t *ph = p + phoff + (uint64_t)i * phentsize;
    uint64_t e = le64(ph + 0x08) + le64(ph + 0x20);
    end = e > end ? e : end;
  }
  for (int i = 0; i < shnum; i++) {
    const uint8_t *sh = p + shoff + (uint64_t)i * shentsize;
    uint32_t type;
    memcpy(&type, sh + 4, 4);
    uint64_t e = le64(sh + 0x18) + (type == 8 /* SHT_NOBITS */ ? 0 : le64(sh + 0x20));
    end = e > end ? e : end;
  }
  return end > (1ull << 32) ? 0 : (size_t)end;
}

/* Machine code unless TOSAC_HIPEMU_EXEC=ir asks for the kernel IR. */
static bool use_ir(void) {
  const char *e = getenv("TOSAC_HIPEMU_EXEC");
  return e && !strcmp(e, "ir");
}

/* A module of the code object `co` (+ the IR `ir`, NULL when the bundle has none). */
static hipError_t load_module(hipModule_t *out, const char *tid, const uint8_t *co, size_t co_size,
                              const bnd_entry *ir, const char *irid) {
  const he_device *d = he_dev();
  bool run_ir = use_ir();
  if (run_ir && !ir)
    return he_fail(hipErrorInvalidImage, "the bundle has no kernel IR for %s (entry %s): "
                   "compile with tosac --embed-ir to run it with TOSAC_HIPEMU_EXEC=ir", tid, irid);
  struct ihipModule_t *m = calloc(1, sizeof *m);
  snprintf(m->target_id, sizeof m->target_id, "%s", tid);
  m->code = malloc(co_size ? co_size : 1);
  memcpy(m->code, co, co_size);
  m->code_size = co_size;
  char sub[1024];
  m->emu = run_ir ? emu_load(ir->data, ir->size, &d->target, sub, sizeof sub)
                  : emu_load_code(m->code, m->code_size, &d->target, sub, sizeof sub);
  if (!m->emu) {
    free(m->code);
    free(m);
    return he_fail(hipErrorInvalidImage, "cannot load the %s for %s: %s", run_ir ? "kernel IR" : "code object",
                   tid, sub);
  }
  *out = m;
  return hipSuccess;
}

static const bnd_entry *find_entry(const bnd_entry *e, int n, const char *id) {
  for (int i = 0; i < n; i++)
    if (!strcmp(e[i].id, id))
      return &e[i];
  return NULL;
}

#define CO_PREFIX "hipv4-amdgcn-amd-amdhsa--"
#define IR_PREFIX "openmp-amdgcn-amd-amdhsa--"

static hipError_t load(hipModule_t *out, const void *image) {
  const he_device *d = he_dev();
  if (!d->ok)
    return he_fail(hipErrorNoDevice, "%s", d->why);
  if (!out || !image)
    return he_fail(hipErrorInvalidValue, "hipModuleLoadData: NULL argument");
  const uint8_t *p = image;
  if (!memcmp(p, "\177ELF", 4)) {
    size_t extent = elf_extent(p);
    if (!extent)
      return he_fail(hipErrorInvalidImage, "hipModuleLoadData: a malformed ELF code object");
    return load_module(out, d->arch, p, extent, NULL, "none");
  }
  size_t size = image_extent(p);
  bnd_entry *entries = NULL;
  int n = 0;
  char err[512];
  if (!size || !bnd_parse(p, size, &entries, &n, err, sizeof err))
    return he_fail(hipErrorInvalidImage, "hipModuleLoadData: not a clang offload bundle%s%s",
                   size ? ": " : "", size ? err : "");
  const bnd_entry *co = NULL;
  for (int i = 0; i < n && !co; i++)
    if (!strncmp(entries[i].id, CO_PREFIX, strlen(CO_PREFIX)) &&
        hr_target_compatible(entries[i].id + strlen(CO_PREFIX), d->arch))
      co = &entries[i];
  if (!co) {
    free(entries);
    return he_fail(hipErrorNoBinaryForGpu, "the bundle has no code object for %s", d->arch);
  }
  const char *tid = co->id + strlen(CO_PREFIX);
  char irid[192];
  snprintf(irid, sizeof irid, IR_PREFIX "%s", tid);
  hipError_t e = load_module(out, tid, co->data, co->size, find_entry(entries, n, irid), irid);
  free(entries);
  return e;
}

HE_API hipError_t hipModuleLoadData(hipModule_t *m, const void *image) { LOCKED(load(m, image)); }

HE_API hipError_t hipModuleLoadDataEx(hipModule_t *m, const void *image, unsigned int n,
                                      hipJitOption *opts, void **vals) {
  (void)n, (void)opts, (void)vals;
  LOCKED(load(m, image));
}

HE_API hipError_t hipModuleLoad(hipModule_t *m, const char *path) {
  char err[512];
  size_t size;
  char *data = path ? read_file(path, &size, err, sizeof err) : NULL;
  if (!data)
    return he_fail(hipErrorFileNotFound, "hipModuleLoad: %s", path ? err : "NULL path");
  pthread_mutex_lock(&he_lock);
  hipError_t e = load(m, data);
  pthread_mutex_unlock(&he_lock);
  free(data);
  return e;
}

static hipError_t unload(hipModule_t m) {
  if (!m)
    return he_fail(hipErrorInvalidHandle, "hipModuleUnload: NULL module");
  hipError_t e = he_drain(); /* no queued launch may outlive its code */
  for (struct ihipModuleSymbol_t **f = &functions; *f;) {
    if ((*f)->module == m) {
      struct ihipModuleSymbol_t *dead = *f;
      *f = dead->next;
      tb_kernel_meta_free(&dead->meta);
      free(dead);
    } else {
      f = &(*f)->next;
    }
  }
  emu_free(m->emu);
  free(m->code);
  free(m);
  return e;
}

HE_API hipError_t hipModuleUnload(hipModule_t m) { LOCKED(unload(m)); }

static bool is_hidden(const cg_arg *a) { return !strncmp(a->value_kind, "hidden_", 7); }

static hipError_t get_function(hipFunction_t *out, hipModule_t m, const char *name) {
  if (!out || !m || !name)
    return he_fail(hipErrorInvalidValue, "hipModuleGetFunction: NULL argument");
  struct ihipModuleSymbol_t *f = calloc(1, sizeof *f);
  char err[512];
  if (!emu_has_kernel(m->emu, name) ||
      !tb_kernel_meta(m->code, m->code_size, name, &f->meta, err, sizeof err)) {
    free(f);
    return he_fail(hipErrorNotFound, "hipModuleGetFunction: no kernel '%s' in the %s code object",
                   name, m->target_id);
  }
  for (int i = 0; i < f->meta.nargs; i++) {
    const cg_arg *a = &f->meta.args[i];
    if (!is_hidden(a) && a->offset + a->size > f->explicit_end)
      f->explicit_end = a->offset + a->size;
  }
  f->module = m;
  f->next = functions;
  functions = f;
  *out = f;
  return hipSuccess;
}

HE_API hipError_t hipModuleGetFunction(hipFunction_t *f, hipModule_t m, const char *name) {
  LOCKED(get_function(f, m, name));
}

/* The kernarg segment from `extra` (a packed buffer, HIP_LAUNCH_PARAM_*) or from
 * `kernelParams` (one pointer per explicit argument, in metadata order). */
static hipError_t build_kernarg(const struct ihipModuleSymbol_t *f, void **params, void **extra,
                                uint8_t *ka) {
  const char *name = f->meta.name;
  if (extra) {
    const void *buf = NULL;
    size_t size = 0;
    bool have_size = false;
    for (int i = 0; extra[i] != HIP_LAUNCH_PARAM_END; i += 2) {
      if (i > 64)
        return he_fail(hipErrorInvalidValue, "launch of %s: `extra` lacks HIP_LAUNCH_PARAM_END", name);
      if (extra[i] == HIP_LAUNCH_PARAM_BUFFER_POINTER)
        buf = extra[i + 1];
      else if (extra[i] == HIP_LAUNCH_PARAM_BUFFER_SIZE)
        size = *(const size_t *)extra[i + 1], have_size = true;
      else
        return he_fail(hipErrorInvalidValue, "launch of %s: unknown `extra` key %p", name, extra[i]);
    }
    if (!buf || !have_size)
      return he_fail(hipErrorInvalidValue, "launch of %s: `extra` needs BUFFER_POINTER and "
                     "BUFFER_SIZE", name);
    if ((int64_t)size < f->explicit_end)
      return he_fail(hipErrorInvalidValue, "launch of %s: the argument buffer holds %zu bytes, the "
                     "kernel's explicit arguments end at byte %lld", name, size,
                     (long long)f->explicit_end);
    memcpy(ka, buf, (size_t)f->explicit_end);
    return hipSuccess;
  }
  if (!params && f->explicit_end > 0)
    return he_fail(hipErrorInvalidValue, "launch of %s: neither kernelParams nor extra given", name);
  for (int i = 0, k = 0; i < f->meta.nargs; i++) {
    const cg_arg *a = &f->meta.args[i];
    if (!is_hidden(a))
      memcpy(ka + a->offset, params[k++], (size_t)a->size);
  }
  return hipSuccess;
}

static hipError_t launch(hipFunction_t f, const uint32_t grid[3], const uint32_t block[3],
                         unsigned shared, hipStream_t s, void **params, void **extra) {
  if (!f)
    return he_fail(hipErrorInvalidResourceHandle, "hipModuleLaunchKernel: NULL function");
  uint64_t items = (uint64_t)block[0] * block[1] * block[2];
  if (!items || !grid[0] || !grid[1] || !grid[2] || items > (uint64_t)f->meta.max_flat_wg)
    return he_fail(hipErrorInvalidConfiguration, "launch of %s: grid %ux%ux%u of blocks %ux%ux%u "
                   "(the kernel allows up to %d work-items per block)", f->meta.name, grid[0],
                   grid[1], grid[2], block[0], block[1], block[2], f->meta.max_flat_wg);
  size_t size = (size_t)(f->meta.kernarg_size > f->explicit_end ? f->meta.kernarg_size
                                                                 : f->explicit_end);
  uint8_t *ka = aligned_alloc(64, emu_kernarg_alloc_size(size));
  memset(ka, 0, emu_kernarg_alloc_size(size));
  hipError_t e = build_kernarg(f, params, extra, ka);
  if (e != hipSuccess) {
    free(ka);
    return e;
  }
  /* hidden arguments as the HIP runtime fills them (machine code reads them) */
  for (int i = 0; i < f->meta.nargs; i++) {
    const cg_arg *a = &f->meta.args[i];
    if (is_hidden(a) && a->offset + a->size <= (int64_t)size) {
      uint64_t v = emu_hidden_arg(a->value_kind, grid, block);
      memcpy(ka + a->offset, &v, a->size < 8 ? (size_t)a->size : 8);
    }
  }
  he_op *op = calloc(1, sizeof *op);
  op->kind = HE_OP_KERNEL;
  op->module = f->module->emu;
  op->kernel = strdup(f->meta.name);
  memcpy(op->grid, grid, sizeof op->grid);
  memcpy(op->block, block, sizeof op->block);
  op->kernarg = ka;
  op->kernarg_size = size;
  op->lds_bytes = f->meta.lds_bytes + shared;
  return he_enqueue(s, op);
}

HE_API hipError_t hipModuleLaunchKernel(hipFunction_t f, unsigned int gx, unsigned int gy,
                                        unsigned int gz, unsigned int bx, unsigned int by,
                                        unsigned int bz, unsigned int shared, hipStream_t s,
                                        void **params, void **extra) {
  const uint32_t grid[3] = {gx, gy, gz}, block[3] = {bx, by, bz};
  LOCKED(launch(f, grid, block, shared, s, params, extra));
}

/* Out-of-bounds accesses are HIP's illegal address; other checks (barriers, partial-wave
 * collectives) a launch failure. */
hipError_t he_run_kernel(const he_op *op) {
  int nbuf;
  const emu_buffer *bufs = he_buffers(&nbuf);
  emu_launch l = {.kernel = op->kernel,
                  .block = {op->block[0], op->block[1], op->block[2]},
                  .grid = {op->grid[0], op->grid[1], op->grid[2]},
                  .kernarg = op->kernarg,
                  .kernarg_size = op->kernarg_size,
                  .lds_bytes = op->lds_bytes,
                  .buffers = bufs,
                  .nbuffers = nbuf};
  char err[1024];
  if (emu_run(op->module, &l, err, sizeof err))
    return hipSuccess;
  bool oob = strstr(err, "outside") != NULL;
  return he_fail(oob ? hipErrorIllegalAddress : hipErrorLaunchFailure, "%s", err);
}
