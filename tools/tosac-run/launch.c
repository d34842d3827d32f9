/* launch.c: play one target's launch graph like a HIP client would: allocate the graph's buffers
 * and the workspace, poison what kernels must write, then run fills, copies and kernels (with
 * their kernarg segments) in the manifest's order through the emulator. */
#include "run.h"
#include "emu/emu.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define DEVICE_ALIGN 256
/* A while loop that runs this often is taken for a runaway (its condition never false);
 * TOSAC_MAX_ITERATIONS changes the limit (docs/tosac-run.md). */
#define RUN_MAX_ITERATIONS 1000000

/* Like hipMalloc: 256-byte aligned; never NULL so even empty buffers have an address. */
static void *device_alloc(size_t bytes) {
  size_t rounded = (bytes + DEVICE_ALIGN - 1) / DEVICE_ALIGN * DEVICE_ALIGN;
  void *p = aligned_alloc(DEVICE_ALIGN, rounded ? rounded : DEVICE_ALIGN);
  if (!p) {
    fprintf(stderr, "tosac-run: error: out of memory allocating %zu bytes\n", bytes);
    exit(1);
  }
  return p;
}

static void fill_pattern(uint8_t *dst, size_t bytes, const void *elem, size_t esize) {
  for (size_t i = 0; i + esize <= bytes; i += esize)
    memcpy(dst + i, elem, esize);
}

/* Poison: a quiet NaN with a recognisable payload for floats, 0xCD bytes otherwise, so a kernel
 * that forgets to write an element produces a value no correct result has. */
static void poison(uint8_t *dst, size_t bytes, elem_type t) {
  static const uint16_t f16 = 0x7e5d, bf16 = 0x7fde;
  static const uint32_t f32 = 0x7fc0dead;
  static const uint64_t f64 = 0x7ff8deaddeaddeadull;
  switch (t) {
  case ET_F16: fill_pattern(dst, bytes, &f16, 2); break;
  case ET_BF16: fill_pattern(dst, bytes, &bf16, 2); break;
  case ET_F32: fill_pattern(dst, bytes, &f32, 4); break;
  case ET_F64: fill_pattern(dst, bytes, &f64, 8); break;
  default: memset(dst, 0xcd, bytes); break;
  }
}

static void put_le(uint8_t *p, uint64_t v, int64_t size) {
  for (int64_t i = 0; i < size; i++)
    p[i] = i < 8 ? (uint8_t)(v >> (8 * i)) : 0;
}

bool run_build_kernarg(const run_kernel *k, const uint64_t *addrs, int naddrs, uint8_t *out,
                       char *err, size_t errsize) {
  memset(out, 0, (size_t)k->kernarg_size);
  for (int i = 0; i < k->nargs; i++) {
    const run_arg *a = &k->args[i];
    uint8_t *p = out + a->offset;
    if (a->offset + a->size > k->kernarg_size) {
      snprintf(err, errsize, "kernel %s: argument %d lies outside the kernarg segment", k->name,
               a->index);
      return false;
    }
    if (strncmp(a->value_kind, "hidden_", 7) == 0) {
      put_le(p, emu_hidden_arg(a->value_kind, k->grid, k->block), a->size);
    } else if (strcmp(a->value_kind, "global_buffer") == 0 ||
               (strcmp(a->value_kind, "by_value") == 0 && !a->has_value)) {
      if (a->buffer < 0 || a->buffer >= naddrs) {
        snprintf(err, errsize, "kernel %s: argument %d (%s) is bound to no buffer", k->name,
                 a->index, a->value_kind);
        return false;
      }
      if (a->size != 8) {
        snprintf(err, errsize, "kernel %s: argument %d: a pointer takes 8 bytes, not %" PRId64,
                 k->name, a->index, a->size);
        return false;
      }
      put_le(p, addrs[a->buffer], 8);
    } else if (strcmp(a->value_kind, "by_value") == 0) {
      put_le(p, (uint64_t)a->value, a->size);
    } else {
      snprintf(err, errsize, "kernel %s: argument %d: value kind '%s' is not supported", k->name,
               a->index, a->value_kind);
      return false;
    }
  }
  return true;
}

static double now_ms(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

/* Device memory of one run: one allocation per graph input/output plus the workspace. */
typedef struct device {
  uint8_t **in, **out, *workspace, *weights;
  uint8_t *written; /* the workspace's shadow: 1 per byte something wrote in this run */
  size_t workspace_bytes;
  uint64_t *addrs; /* per manifest buffer */
  emu_buffer *bufs;
  char (*names)[32];
  int nbufs;
} device;

static void add_buffer(device *dev, void *base, size_t size, const char *kind, int index, uint8_t *written) {
  char *name = dev->names[dev->nbufs];
  if (index >= 0)
    snprintf(name, 32, "%s %d", kind, index);
  else
    snprintf(name, 32, "%s", kind);
  dev->bufs[dev->nbufs++] = (emu_buffer){.name = name, .base = base, .size = size, .written = written};
}

/* shadow: keep the workspace's written shadow (machine code, whose loads consult it). */
static void device_setup(device *dev, const run_manifest *m, const run_target *t,
                         const run_value_list *inputs, bool shadow) {
  int n = m->ninputs + m->noutputs + 2;
  dev->in = calloc((size_t)m->ninputs + 1, sizeof(*dev->in));
  dev->out = calloc((size_t)m->noutputs + 1, sizeof(*dev->out));
  dev->bufs = calloc((size_t)n, sizeof(*dev->bufs));
  dev->names = calloc((size_t)n, sizeof(*dev->names));
  dev->addrs = calloc((size_t)t->nbuffers + 1, sizeof(*dev->addrs));
  for (int i = 0; i < m->ninputs; i++) {
    size_t bytes = (size_t)tensor_bytes(&m->inputs[i]);
    dev->in[i] = device_alloc(bytes);
    if (bytes)
      memcpy(dev->in[i], inputs->items[i].data, bytes);
    add_buffer(dev, dev->in[i], bytes, "input", i, NULL);
  }
  for (int i = 0; i < m->noutputs; i++) {
    size_t bytes = (size_t)tensor_bytes(&m->outputs[i]);
    dev->out[i] = device_alloc(bytes);
    poison(dev->out[i], bytes, m->outputs[i].elem);
    add_buffer(dev, dev->out[i], bytes, "output", i, NULL);
  }
  dev->workspace = device_alloc((size_t)t->workspace_bytes);
  if (t->workspace_bytes > 0) {
    memset(dev->workspace, 0xcd, (size_t)t->workspace_bytes);
    dev->written = shadow ? calloc((size_t)t->workspace_bytes, 1) : NULL;
    dev->workspace_bytes = (size_t)t->workspace_bytes;
    add_buffer(dev, dev->workspace, (size_t)t->workspace_bytes, "workspace", -1, dev->written);
  }
  /* Weights are uploaded once, as a client would, and bound per buffer at their offsets. */
  dev->weights = device_alloc((size_t)m->weights_bytes);
  if (m->weights_bytes > 0) {
    memcpy(dev->weights, m->weights, (size_t)m->weights_bytes);
    add_buffer(dev, dev->weights, (size_t)m->weights_bytes, "weights", -1, NULL);
  }
  for (int b = 0; b < t->nbuffers; b++) {
    const run_buffer *buf = &t->buffers[b];
    uint8_t *p = buf->kind == BUF_INPUT      ? dev->in[buf->index]
                 : buf->kind == BUF_OUTPUT   ? dev->out[buf->index]
                 : buf->kind == BUF_CONSTANT ? dev->weights + buf->offset
                                             : dev->workspace + buf->offset;
    if (buf->kind == BUF_INTERMEDIATE || buf->kind == BUF_WORKSPACE)
      poison(p, (size_t)buf->bytes, buf->type.elem);
    dev->addrs[b] = (uint64_t)(uintptr_t)p;
  }
  /* the zeroed region (split-K arrival counters): zero once, as a client allocates it */
  if (dev->workspace)
    memset(dev->workspace, 0, (size_t)t->workspace_zeroed);
}

static void device_free(device *dev, const run_manifest *m) {
  for (int i = 0; i < m->ninputs; i++)
    free(dev->in[i]);
  for (int i = 0; i < m->noutputs; i++)
    free(dev->out[i]);
  free(dev->in);
  free(dev->out);
  free(dev->workspace);
  free(dev->written);
  free(dev->weights);
  free(dev->addrs);
  free(dev->bufs);
  free(dev->names);
}

/* The workspace shadow of [p, p + bytes), NULL outside the workspace. */
static uint8_t *shadow_of(const device *dev, const uint8_t *p, size_t bytes) {
  if (!dev->written || p < dev->workspace || bytes > dev->workspace_bytes ||
      (size_t)(p - dev->workspace) > dev->workspace_bytes - bytes)
    return NULL;
  return dev->written + (p - dev->workspace);
}

/* A copy out of the workspace must read bytes something of this run wrote. */
static bool copy_source_written(const device *dev, const run_launch *l, const uint8_t *src, char *err,
                                size_t errsize) {
  const uint8_t *s = shadow_of(dev, src, (size_t)l->bytes);
  for (int64_t i = 0; s && i < l->bytes; i++)
    if (!s[i]) {
      snprintf(err, errsize,
               "launch %d: copy of %" PRId64 " bytes at workspace+%td reads byte workspace+%td, which nothing "
               "wrote in this run",
               l->id, l->bytes, src - dev->workspace, src + i - dev->workspace);
      return false;
    }
  return true;
}

static bool run_kernel_launch(emu_module *mod, const run_kernel *k, const device *dev,
                              int naddrs, char *err, size_t errsize) {
  size_t size = emu_kernarg_alloc_size((size_t)k->kernarg_size);
  uint8_t *kernarg = aligned_alloc(64, size);
  memset(kernarg, 0, size);
  bool ok = run_build_kernarg(k, dev->addrs, naddrs, kernarg, err, errsize);
  if (ok) {
    emu_launch l = {
        .kernel = k->name,
        .block = {k->block[0], k->block[1], k->block[2]},
        .grid = {k->grid[0], k->grid[1], k->grid[2]},
        .kernarg = kernarg,
        .kernarg_size = (size_t)k->kernarg_size,
        .lds_bytes = k->lds_bytes,
        .buffers = dev->bufs,
        .nbuffers = dev->nbufs,
    };
    ok = emu_run(mod, &l, err, errsize);
  }
  free(kernarg);
  return ok;
}

/* One launch list run in order on the emulated device (tosac-run's in-order stream); if and
 * while nodes run their regions' lists, deciding on the byte their readback copied. */
typedef struct run_ctx {
  emu_module *mod;
  const run_target *t;
  device *dev;
  uint8_t *cond;
  long max_iterations;
  bool verbose;
  char *err;
  size_t errsize;
} run_ctx;

static bool run_list(run_ctx *c, const int *list, int n);

static bool run_control(run_ctx *c, const run_launch *l) {
  if (l->kind == LAUNCH_IF)
    return c->cond[l->cond] ? run_list(c, l->region[0], l->nregion[0])
                            : run_list(c, l->region[1], l->nregion[1]);
  for (long iter = 0;; iter++) {
    if (!run_list(c, l->region[0], l->nregion[0]))
      return false;
    if (!c->cond[l->cond])
      return true;
    if (iter == c->max_iterations) {
      snprintf(c->err, c->errsize, "launch %d: while loop still running after %ld iterations",
               l->id, c->max_iterations);
      return false;
    }
    if (!run_list(c, l->region[1], l->nregion[1]))
      return false;
  }
}

static bool run_list(run_ctx *c, const int *list, int n) {
  const run_target *t = c->t;
  device dev = *c->dev;
  emu_module *mod = c->mod;
  bool verbose = c->verbose;
  char *err = c->err, sub[1024];
  size_t errsize = c->errsize;
  bool ok = true;
  for (int i = 0; ok && i < n; i++) {
    const run_launch *l = &t->launches[list[i]];
    double start = now_ms();
    switch (l->kind) {
    case LAUNCH_FILL: {
      uint8_t elem[8];
      put_le(elem, l->bits, elem_type_bytes(l->fill_type));
      uint8_t *dst = (uint8_t *)(uintptr_t)dev.addrs[l->buffer] + l->offset, *s;
      fill_pattern(dst, (size_t)l->bytes, elem, (size_t)elem_type_bytes(l->fill_type));
      if ((s = shadow_of(&dev, dst, (size_t)l->bytes)))
        memset(s, 1, (size_t)l->bytes);
      break;
    }
    case LAUNCH_COPY: {
      uint8_t *dst = (uint8_t *)(uintptr_t)dev.addrs[l->dst_buffer] + l->dst_offset, *s;
      const uint8_t *src = (const uint8_t *)(uintptr_t)dev.addrs[l->src_buffer] + l->src_offset;
      ok = copy_source_written(&dev, l, src, err, errsize);
      memmove(dst, src, (size_t)l->bytes);
      if ((s = shadow_of(&dev, dst, (size_t)l->bytes)))
        memset(s, 1, (size_t)l->bytes);
      break;
    }
    case LAUNCH_READBACK: {
      const uint8_t *src = (const uint8_t *)(uintptr_t)dev.addrs[l->buffer];
      c->cond[l->id] = 0;
      for (int64_t b = 0; b < l->bytes; b++)
        c->cond[l->id] |= src[b] != 0;
      break;
    }
    case LAUNCH_IF:
    case LAUNCH_WHILE: ok = run_control(c, l); break;
    case LAUNCH_KERNEL:
      ok = run_kernel_launch(mod, &t->kernels[l->kernel], &dev, t->nbuffers, sub, sizeof(sub));
      if (!ok)
        snprintf(err, errsize, "launch %d: %s", l->id, sub);
      break;
    }
    if (ok && verbose) {
      if (l->kind == LAUNCH_KERNEL) {
        const run_kernel *k = &t->kernels[l->kernel];
        fprintf(stderr,
                "tosac-run: launch %d: kernel %s grid %ux%ux%u block %ux%ux%u (%.2f ms)\n", l->id,
                k->name, k->grid[0], k->grid[1], k->grid[2], k->block[0], k->block[1],
                k->block[2], now_ms() - start);
      } else if (l->kind == LAUNCH_READBACK) {
        fprintf(stderr, "tosac-run: launch %d: readback %s\n", l->id, c->cond[l->id] ? "true" : "false");
      } else if (l->kind <= LAUNCH_COPY) {
        fprintf(stderr, "tosac-run: launch %d: %s of %" PRId64 " bytes\n", l->id,
                l->kind == LAUNCH_FILL ? "fill" : "copy", l->bytes);
      }
    }
  }
  return ok;
}

/* The while-loop limit: TOSAC_MAX_ITERATIONS if set (a positive count), else the default. */
static bool max_iterations(long *out, char *err, size_t errsize) {
  const char *e = getenv("TOSAC_MAX_ITERATIONS");
  char *end = NULL;
  *out = e ? strtol(e, &end, 10) : RUN_MAX_ITERATIONS;
  if (e && (!*e || *end || *out < 1)) {
    snprintf(err, errsize, "TOSAC_MAX_ITERATIONS: '%s' is not a positive count", e);
    return false;
  }
  return true;
}

bool run_execute(const run_manifest *m, const run_target *t, const uint8_t *code, size_t code_size,
                 bool machine_code, const run_value_list *inputs, run_value_list *outputs,
                 bool verbose, char *err, size_t errsize) {
  emu_target et = {.wave_size = t->wavefront_size, .lds_limit = t->lds_limit};
  snprintf(et.processor, sizeof(et.processor), "%s", t->processor);
  long cap;
  if (!max_iterations(&cap, err, errsize))
    return false;
  if (!run_check_launch_order(t, err, errsize))
    return false;
  double t0 = now_ms();
  char sub[1024];
  /* A graph whose results are views of its inputs has only copy nodes and no kernel: there
   * is no IR to load. */
  emu_module *mod = !t->nkernels ? NULL
                    : machine_code ? emu_load_code(code, code_size, &et, sub, sizeof(sub))
                                   : emu_load(code, code_size, &et, sub, sizeof(sub));
  const char *what = machine_code ? "code object" : "kernel IR";
  if (!mod && t->nkernels) {
    snprintf(err, errsize, "cannot load the %s for %s: %s", what, t->target_id, sub);
    return false;
  }
  if (verbose && mod)
    fprintf(stderr, "tosac-run: loaded the %s for %s (%zu bytes) in %.1f ms\n", what,
            t->target_id, code_size, now_ms() - t0);
  device dev = {0};
  device_setup(&dev, m, t, inputs, machine_code);
  uint8_t *cond = calloc((size_t)t->nlaunches + 1, 1); /* readbacks' host copies */
  run_ctx c = {mod, t, &dev, cond, cap, verbose, err, errsize};
  bool ok = run_list(&c, t->order, t->norder);
  free(cond);
  /* the next run of the same workspace needs the zeroed region zero again (docs/manifest.md) */
  for (int64_t i = 0; ok && i < t->workspace_zeroed; i++)
    if (dev.workspace[i]) {
      snprintf(err, errsize, "the launches left byte %" PRId64 " of the zeroed workspace region (%" PRId64
               " bytes) non-zero", i, t->workspace_zeroed);
      ok = false;
    }
  for (int i = 0; ok && i < m->noutputs; i++) {
    run_value v;
    run_value_init(&v, &m->outputs[i]);
    if (v.bytes)
      memcpy(v.data, dev.out[i], v.bytes);
    run_value_list_push(outputs, v);
  }
  device_free(&dev, m);
  emu_free(mod);
  return ok;
}
