/* device.c: libtosac-hipemu's device (one, described by TOSAC_HIPEMU_ARCH), its error
 * reporting, and device memory (host memory, every allocation tracked). */
#include "hipemu.h"
#include "tosac.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

pthread_mutex_t he_lock = PTHREAD_MUTEX_INITIALIZER;

/* ---------------------------------------------------------------- the device */

static he_device dev;
static pthread_once_t dev_once = PTHREAD_ONCE_INIT;

/* TOSAC_HIPEMU_ARCH: a processor ("gfx1030") or a full target ID ("gfx90a:sramecc+:xnack-");
 * a bare processor gets the feature modes a ROCm device reports (sramecc on, xnack off). */
static void dev_init(void) {
  const char *env = getenv("TOSAC_HIPEMU_ARCH");
  const char *arch = env && *env ? env : "gfx90a";
  size_t n = strcspn(arch, ":");
  const target_info *ti = target_lookup(arch, n);
  if (!ti) {
    snprintf(dev.why, sizeof dev.why, "TOSAC_HIPEMU_ARCH=%s is not a target tosac knows "
             "(tosac --print-targets)", arch);
    return;
  }
  if (arch[n])
    snprintf(dev.arch, sizeof dev.arch, "%s", arch);
  else
    snprintf(dev.arch, sizeof dev.arch, "%s%s%s", ti->name, ti->has_sramecc ? ":sramecc+" : "",
             ti->has_xnack ? ":xnack-" : "");
  snprintf(dev.target.processor, sizeof dev.target.processor, "%s", ti->name);
  dev.target.wave_size = ti->wave_size;
  dev.target.lds_limit = ti->lds_bytes;
  dev.ok = true;
}

const he_device *he_dev(void) {
  pthread_once(&dev_once, dev_init);
  return &dev;
}

/* ---------------------------------------------------------------- errors */

static hipError_t last_error = hipSuccess;
static hipError_t message_code = hipSuccess;
static char message[1024];

hipError_t he_fail(hipError_t e, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(message, sizeof message, fmt, ap);
  va_end(ap);
  message_code = e;
  last_error = e;
  if (getenv("TOSAC_HIPEMU_VERBOSE"))
    fprintf(stderr, "libtosac-hipemu: %s\n", message);
  return e;
}

hipError_t he_ok(void) { return hipSuccess; }

static const struct {
  hipError_t code;
  const char *name, *text;
} error_table[] = {
    {hipSuccess, "hipSuccess", "no error"},
    {hipErrorInvalidValue, "hipErrorInvalidValue", "invalid argument"},
    {hipErrorOutOfMemory, "hipErrorOutOfMemory", "out of memory"},
    {hipErrorNotInitialized, "hipErrorNotInitialized", "initialization error"},
    {hipErrorInvalidConfiguration, "hipErrorInvalidConfiguration", "invalid configuration argument"},
    {hipErrorInvalidDevicePointer, "hipErrorInvalidDevicePointer", "invalid device pointer"},
    {hipErrorNoDevice, "hipErrorNoDevice", "no ROCm-capable device is detected"},
    {hipErrorInvalidDevice, "hipErrorInvalidDevice", "invalid device ordinal"},
    {hipErrorInvalidImage, "hipErrorInvalidImage", "device kernel image is invalid"},
    {hipErrorNoBinaryForGpu, "hipErrorNoBinaryForGpu", "no kernel image is available for execution on the device"},
    {hipErrorFileNotFound, "hipErrorFileNotFound", "file not found"},
    {hipErrorInvalidHandle, "hipErrorInvalidHandle", "invalid resource handle"},
    {hipErrorNotFound, "hipErrorNotFound", "named symbol not found"},
    {hipErrorNotReady, "hipErrorNotReady", "device not ready"},
    {hipErrorIllegalAddress, "hipErrorIllegalAddress", "an illegal memory access was encountered"},
    {hipErrorLaunchFailure, "hipErrorLaunchFailure", "unspecified launch failure"},
    {hipErrorNotSupported, "hipErrorNotSupported", "operation not supported"},
};

static int error_index(hipError_t e) {
  for (size_t i = 0; i < sizeof error_table / sizeof error_table[0]; i++)
    if (error_table[i].code == e)
      return (int)i;
  return -1;
}

HE_API const char *hipGetErrorName(hipError_t e) {
  int i = error_index(e);
  return i >= 0 ? error_table[i].name : "hipErrorUnknown";
}

/* The detailed message of the last failure while it is the last one with that code, else the
 * generic text: a client printing hipGetErrorString(e) shows what the emulator found. */
HE_API const char *hipGetErrorString(hipError_t e) {
  if (e != hipSuccess && e == message_code && message[0])
    return message;
  int i = error_index(e);
  return i >= 0 ? error_table[i].text : "unknown error";
}

HE_API hipError_t hipGetLastError(void) {
  hipError_t e = last_error;
  last_error = hipSuccess;
  return e;
}

HE_API hipError_t hipPeekAtLastError(void) { return last_error; }

/* ---------------------------------------------------------------- device queries */

static hipError_t need_device(void) {
  const he_device *d = he_dev();
  return d->ok ? hipSuccess : he_fail(hipErrorNoDevice, "%s", d->why);
}

HE_API hipError_t hipInit(unsigned int flags) {
  (void)flags;
  return need_device();
}

HE_API hipError_t hipDriverGetVersion(int *v) {
  if (!v)
    return he_fail(hipErrorInvalidValue, "hipDriverGetVersion: NULL");
  *v = 50221153; /* the HIP 5.2 headers this library is compiled against */
  return hipSuccess;
}

HE_API hipError_t hipRuntimeGetVersion(int *v) { return hipDriverGetVersion(v); }

HE_API hipError_t hipGetDeviceCount(int *count) {
  if (!count)
    return he_fail(hipErrorInvalidValue, "hipGetDeviceCount: NULL");
  *count = he_dev()->ok;
  return need_device();
}

HE_API hipError_t hipSetDevice(int id) {
  hipError_t e = need_device();
  if (e == hipSuccess && id != 0)
    return he_fail(hipErrorInvalidDevice, "hipSetDevice(%d): the emulator has one device, 0", id);
  return e;
}

HE_API hipError_t hipGetDevice(int *id) {
  if (!id)
    return he_fail(hipErrorInvalidValue, "hipGetDevice: NULL");
  *id = 0;
  return need_device();
}

HE_API hipError_t hipGetDeviceProperties(hipDeviceProp_t *p, int id) {
  hipError_t e = hipSetDevice(id);
  if (e != hipSuccess)
    return e;
  if (!p)
    return he_fail(hipErrorInvalidValue, "hipGetDeviceProperties: NULL");
  const he_device *d = he_dev();
  memset(p, 0, sizeof *p);
  snprintf(p->name, sizeof p->name, "tosac emulator (%.31s)", d->target.processor);
  snprintf(p->gcnArchName, sizeof p->gcnArchName, "%.127s", d->arch);
  p->gcnArch = atoi(d->target.processor + 3); /* deprecated: 90 for gfx90a is not exact */
  p->totalGlobalMem = (size_t)16 << 30;
  p->sharedMemPerBlock = (size_t)d->target.lds_limit;
  p->maxSharedMemoryPerMultiProcessor = (size_t)d->target.lds_limit;
  p->warpSize = d->target.wave_size;
  p->maxThreadsPerBlock = 1024;
  p->maxThreadsDim[0] = p->maxThreadsDim[1] = p->maxThreadsDim[2] = 1024;
  p->maxGridSize[0] = p->maxGridSize[1] = p->maxGridSize[2] = 0x7fffffff;
  p->regsPerBlock = 65536;
  p->clockRate = 1000000;
  p->multiProcessorCount = 1;
  p->major = 9;
  p->canMapHostMemory = 1;
  return hipSuccess;
}

HE_API hipError_t hipDeviceSynchronize(void) { LOCKED(he_drain()); }

HE_API hipError_t hipDeviceReset(void) {
  pthread_mutex_lock(&he_lock);
  he_streams_reset();
  pthread_mutex_unlock(&he_lock);
  return hipSuccess;
}

/* ---------------------------------------------------------------- memory */

static he_alloc *allocs;
static emu_buffer *bufs;
static int nallocs, cap;

#define DEVICE_ALIGN 256

const he_alloc *he_find(const void *p, size_t n) {
  uintptr_t a = (uintptr_t)p;
  for (int i = 0; i < nallocs; i++) {
    uintptr_t lo = (uintptr_t)allocs[i].base;
    if (a >= lo && a - lo <= allocs[i].size && n <= allocs[i].size - (a - lo))
      return &allocs[i];
  }
  return NULL;
}

const emu_buffer *he_buffers(int *n) {
  for (int i = 0; i < nallocs; i++)
    bufs[i] = (emu_buffer){.name = "device allocation", .base = allocs[i].base, .size = allocs[i].size};
  *n = nallocs;
  return bufs;
}

/* Fresh memory holds 0xff bytes (NaN in every float type), like tosac-run's poison, so a
 * result a kernel forgot to write cannot look right. */
static hipError_t do_malloc(void **ptr, size_t size) {
  if (!ptr)
    return he_fail(hipErrorInvalidValue, "hipMalloc: NULL result pointer");
  size_t rounded = (size + DEVICE_ALIGN - 1) / DEVICE_ALIGN * DEVICE_ALIGN;
  void *p = aligned_alloc(DEVICE_ALIGN, rounded ? rounded : DEVICE_ALIGN);
  if (!p)
    return he_fail(hipErrorOutOfMemory, "hipMalloc(%zu): out of host memory", size);
  memset(p, 0xff, rounded ? rounded : DEVICE_ALIGN);
  if (nallocs == cap) {
    cap = cap ? 2 * cap : 64;
    allocs = realloc(allocs, sizeof *allocs * (size_t)cap);
    bufs = realloc(bufs, sizeof *bufs * (size_t)cap);
  }
  allocs[nallocs++] = (he_alloc){p, size};
  *ptr = p;
  return hipSuccess;
}

HE_API hipError_t hipMalloc(void **ptr, size_t size) { LOCKED(do_malloc(ptr, size)); }

static hipError_t do_free(void *p) {
  if (!p)
    return hipSuccess;
  hipError_t e = he_drain(); /* hipFree synchronises the device */
  for (int i = 0; i < nallocs; i++)
    if (allocs[i].base == p) {
      free(p);
      allocs[i] = allocs[--nallocs];
      return e;
    }
  return he_fail(hipErrorInvalidDevicePointer, "hipFree(%p): not an allocation of hipMalloc", p);
}

HE_API hipError_t hipFree(void *p) { LOCKED(do_free(p)); }

/* A device range [p, p + n) must lie in one allocation. */
static hipError_t check_device(const char *what, const void *p, size_t n) {
  if (he_find(p, n))
    return hipSuccess;
  return he_fail(hipErrorInvalidValue, "%s: %zu bytes at %p are not inside one device allocation",
                 what, n, p);
}

/* Copies: the device side(s) checked, then queued; synchronous forms drain after. */
static hipError_t copy(const char *what, void *dst, const void *src, size_t n, bool dev_dst,
                       bool dev_src, hipStream_t s, bool sync) {
  if (n == 0)
    return sync ? he_drain() : hipSuccess;
  hipError_t e;
  if ((dev_dst && (e = check_device(what, dst, n)) != hipSuccess) ||
      (dev_src && (e = check_device(what, src, n)) != hipSuccess))
    return e;
  he_op *op = calloc(1, sizeof *op);
  op->kind = HE_OP_COPY, op->dst = dst, op->src = src, op->bytes = n;
  e = he_enqueue(s, op);
  return e == hipSuccess && sync ? he_drain() : e;
}

/* The direction from the kind; hipMemcpyDefault infers it from the pointers. */
static hipError_t copy_kind(const char *what, void *dst, const void *src, size_t n,
                            hipMemcpyKind kind, hipStream_t s, bool sync) {
  bool dd = kind == hipMemcpyHostToDevice || kind == hipMemcpyDeviceToDevice;
  bool ds = kind == hipMemcpyDeviceToHost || kind == hipMemcpyDeviceToDevice;
  if (kind == hipMemcpyDefault)
    dd = he_find(dst, n) != NULL, ds = he_find(src, n) != NULL;
  return copy(what, dst, src, n, dd, ds, s, sync);
}

HE_API hipError_t hipMemcpy(void *dst, const void *src, size_t n, hipMemcpyKind kind) {
  LOCKED(copy_kind("hipMemcpy", dst, src, n, kind, NULL, true));
}
HE_API hipError_t hipMemcpyAsync(void *dst, const void *src, size_t n, hipMemcpyKind kind,
                                 hipStream_t s) {
  LOCKED(copy_kind("hipMemcpyAsync", dst, src, n, kind, s, false));
}
HE_API hipError_t hipMemcpyHtoD(hipDeviceptr_t dst, void *src, size_t n) {
  LOCKED(copy("hipMemcpyHtoD", dst, src, n, true, false, NULL, true));
}
HE_API hipError_t hipMemcpyDtoH(void *dst, hipDeviceptr_t src, size_t n) {
  LOCKED(copy("hipMemcpyDtoH", dst, src, n, false, true, NULL, true));
}
HE_API hipError_t hipMemcpyDtoD(hipDeviceptr_t dst, hipDeviceptr_t src, size_t n) {
  LOCKED(copy("hipMemcpyDtoD", dst, src, n, true, true, NULL, true));
}
HE_API hipError_t hipMemcpyHtoDAsync(hipDeviceptr_t dst, void *src, size_t n, hipStream_t s) {
  LOCKED(copy("hipMemcpyHtoDAsync", dst, src, n, true, false, s, false));
}
HE_API hipError_t hipMemcpyDtoHAsync(void *dst, hipDeviceptr_t src, size_t n, hipStream_t s) {
  LOCKED(copy("hipMemcpyDtoHAsync", dst, src, n, false, true, s, false));
}
HE_API hipError_t hipMemcpyDtoDAsync(hipDeviceptr_t dst, hipDeviceptr_t src, size_t n,
                                     hipStream_t s) {
  LOCKED(copy("hipMemcpyDtoDAsync", dst, src, n, true, true, s, false));
}

static hipError_t fill(const char *what, void *dst, uint64_t pattern, int width, size_t count,
                       hipStream_t s, bool sync) {
  size_t n = count * (size_t)width;
  if (n == 0)
    return sync ? he_drain() : hipSuccess;
  hipError_t e = check_device(what, dst, n);
  if (e != hipSuccess)
    return e;
  if ((uintptr_t)dst % (uintptr_t)width)
    return he_fail(hipErrorInvalidValue, "%s: %p is not %d-byte aligned", what, dst, width);
  he_op *op = calloc(1, sizeof *op);
  op->kind = HE_OP_FILL, op->dst = dst, op->bytes = n, op->pattern = pattern, op->width = width;
  e = he_enqueue(s, op);
  return e == hipSuccess && sync ? he_drain() : e;
}

HE_API hipError_t hipMemset(void *dst, int v, size_t n) {
  LOCKED(fill("hipMemset", dst, (uint8_t)v, 1, n, NULL, true));
}
HE_API hipError_t hipMemsetAsync(void *dst, int v, size_t n, hipStream_t s) {
  LOCKED(fill("hipMemsetAsync", dst, (uint8_t)v, 1, n, s, false));
}
HE_API hipError_t hipMemsetD8(hipDeviceptr_t dst, unsigned char v, size_t count) {
  LOCKED(fill("hipMemsetD8", dst, v, 1, count, NULL, true));
}
HE_API hipError_t hipMemsetD8Async(hipDeviceptr_t dst, unsigned char v, size_t count,
                                   hipStream_t s) {
  LOCKED(fill("hipMemsetD8Async", dst, v, 1, count, s, false));
}
HE_API hipError_t hipMemsetD16(hipDeviceptr_t dst, unsigned short v, size_t count) {
  LOCKED(fill("hipMemsetD16", dst, v, 2, count, NULL, true));
}
HE_API hipError_t hipMemsetD16Async(hipDeviceptr_t dst, unsigned short v, size_t count,
                                    hipStream_t s) {
  LOCKED(fill("hipMemsetD16Async", dst, v, 2, count, s, false));
}
HE_API hipError_t hipMemsetD32(hipDeviceptr_t dst, int v, size_t count) {
  LOCKED(fill("hipMemsetD32", dst, (uint32_t)v, 4, count, NULL, true));
}
HE_API hipError_t hipMemsetD32Async(hipDeviceptr_t dst, int v, size_t count, hipStream_t s) {
  LOCKED(fill("hipMemsetD32Async", dst, (uint32_t)v, 4, count, s, false));
}
