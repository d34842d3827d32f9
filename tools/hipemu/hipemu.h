/* hipemu.h: libtosac-hipemu's private map. The library implements the HIP runtime API subset
 * that tosac's host code (--emit=host) and tosac-hip-run use, on tosac-run's emulator
 * (docs/host.md): device memory is host memory, modules are the kernel IR of a bundle built
 * with --embed-ir, launches run with all of the emulator's checks. Every API entry point takes
 * one process-wide lock, so the emulator sees one call at a time.
 *
 *   device.c  device properties (TOSAC_HIPEMU_ARCH), error codes and messages, memory
 *   stream.c  streams, events and the queues of deferred work, drained at synchronisation
 *   module.c  hipModuleLoadData on a bundle, functions, hipModuleLaunchKernel */
#ifndef TOSAC_HIPEMU_H
#define TOSAC_HIPEMU_H

#include "emu/emu.h"

#include <hip/hip_runtime_api.h>
#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define HE_API __attribute__((visibility("default")))

/* ---------------------------------------------------------------- device.c */
typedef struct he_device {
  char arch[128];     /* gcnArchName, e.g. "gfx90a:sramecc+:xnack-" */
  emu_target target;  /* processor, wave size, LDS limit */
  bool ok;            /* TOSAC_HIPEMU_ARCH names a known target */
  char why[256];      /* when !ok */
} he_device;

extern pthread_mutex_t he_lock;
/* An API entry point's body: evaluate expr under the lock and return its error code. */
#define LOCKED(expr)                \
  do {                              \
    pthread_mutex_lock(&he_lock);   \
    hipError_t r_ = (expr);         \
    pthread_mutex_unlock(&he_lock); \
    return r_;                      \
  } while (0)
const he_device *he_dev(void);
/* Records a failure for hipGetLastError and hipGetErrorString (which returns this message for
 * the code while it is the last error) and returns e. */
hipError_t he_fail(hipError_t e, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
hipError_t he_ok(void);

/* Allocations: the emulator's bound buffers, and the device-pointer checks of copies. */
typedef struct he_alloc {
  uint8_t *base;
  size_t size;
} he_alloc;
/* The allocation containing [p, p + n), or NULL. */
const he_alloc *he_find(const void *p, size_t n);
/* Every live allocation as emulator buffers (valid until the next hipMalloc/hipFree). */
const emu_buffer *he_buffers(int *n);

/* ---------------------------------------------------------------- stream.c */
typedef enum he_op_kind { HE_OP_KERNEL, HE_OP_COPY, HE_OP_FILL, HE_OP_RECORD } he_op_kind;

typedef struct he_prereq {
  struct ihipStream_t *stream;
  uint64_t seq; /* done when stream->completed >= seq */
} he_prereq;

typedef struct he_op {
  he_op_kind kind;
  uint64_t seq; /* position on its stream, from 1 */
  he_prereq *pre;
  int npre;
  /* HE_OP_KERNEL */
  emu_module *module;
  char *kernel;
  uint32_t grid[3], block[3];
  uint8_t *kernarg;
  size_t kernarg_size;
  int64_t lds_bytes;
  /* HE_OP_COPY, HE_OP_FILL */
  uint8_t *dst;
  const uint8_t *src;
  size_t bytes;
  uint64_t pattern; /* HE_OP_FILL: element of `width` bytes */
  int width;
  /* HE_OP_RECORD */
  struct ihipEvent_t *event;
  struct he_op *next;
} he_op;

/* Queue an operation on a stream (NULL: the null stream); the op is owned by the queue. */
hipError_t he_enqueue(hipStream_t s, he_op *op);
/* Run every queued operation (the order exposes missing cross-stream waits, docs/host.md).
 * Returns the first failure of a queued operation, or the sticky error of an earlier one. */
hipError_t he_drain(void);
/* Drop every queued operation of modules being unloaded: drained first. */
void he_streams_reset(void);

/* ---------------------------------------------------------------- module.c */
/* Called with the lock held by he_drain: run one kernel op. */
hipError_t he_run_kernel(const he_op *op);

#endif
