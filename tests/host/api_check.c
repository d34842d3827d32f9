/* api_check.c: libtosac-hipemu behaviour a HIP program relies on, checked through the HIP API
 * only (tests/bats/hipemu.bats). BUNDLE holds tosa.add of two tensor<1024xf32> compiled with
 * --embed-ir; its kernel is tosac_k0_add(in0, in1, out0).
 *   api_check oob BUNDLE     inputs too small: the launch succeeds, the sync reports the access
 *   api_check params BUNDLE  kernelParams instead of extra; prints out[0] and out[1023]
 *   api_check order BUNDLE   a copy on a second stream without an event wait runs before the
 *                            kernel it should wait for (poison), with the wait after it
 *   api_check bare CODEOBJ   hipModuleLoadData on a bare code object */
#include <hip/hip_runtime_api.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define N 1024

static void *slurp(const char *path) {
  FILE *f = fopen(path, "rb");
  if (!f)
    exit(2);
  fseek(f, 0, SEEK_END);
  long n = ftell(f);
  rewind(f);
  void *p = malloc((size_t)n + 1);
  if (fread(p, 1, (size_t)n, f) != (size_t)n)
    exit(2);
  fclose(f);
  return p;
}

static int report(const char *what, hipError_t e) {
  printf("%s: %s: %s\n", what, hipGetErrorName(e), hipGetErrorString(e));
  return e == hipSuccess ? 0 : 1;
}

/* in0[i] = i, in1[i] = 0.5 */
static void upload_inputs(float *a, float *b) {
  float h[N];
  for (int i = 0; i < N; i++)
    h[i] = (float)i;
  hipMemcpyHtoD(a, h, sizeof h);
  for (int i = 0; i < N; i++)
    h[i] = 0.5f;
  hipMemcpyHtoD(b, h, sizeof h);
}

static hipError_t launch(hipFunction_t f, hipStream_t s, float *a, float *b, float *c) {
  struct { void *a, *b, *c; } args = {a, b, c};
  size_t size = sizeof args;
  void *extra[] = {HIP_LAUNCH_PARAM_BUFFER_POINTER, &args, HIP_LAUNCH_PARAM_BUFFER_SIZE, &size,
                   HIP_LAUNCH_PARAM_END};
  return hipModuleLaunchKernel(f, 1, 1, 1, 256, 1, 1, 0, s, NULL, extra); /* the manifest's grid */
}

/* The code object stays alive as long as the module (the process); static so that it stays
 * reachable for the leak checker. */
static void *image;

int main(int argc, char **argv) {
  if (argc != 3)
    return 2;
  const char *mode = argv[1];
  hipModule_t mod;
  image = slurp(argv[2]);
  hipError_t e = hipModuleLoadData(&mod, image);
  if (strcmp(mode, "bare") == 0 || e != hipSuccess)
    return report("hipModuleLoadData", e);
  hipFunction_t f;
  if ((e = hipModuleGetFunction(&f, mod, "tosac_k0_add")) != hipSuccess)
    return report("hipModuleGetFunction", e);
  float *a, *b, *c, *d;
  hipMalloc((void **)&a, N * 4);
  hipMalloc((void **)&b, N * 4);
  hipMalloc((void **)&c, N * 4);
  hipMalloc((void **)&d, N * 4);
  upload_inputs(a, b);
  if (!strcmp(mode, "oob")) {
    float *small;
    hipMalloc((void **)&small, 16);
    report("launch", launch(f, NULL, small, b, c));
    return report("hipDeviceSynchronize", hipDeviceSynchronize());
  }
  if (!strcmp(mode, "params")) {
    void *pa = a, *pb = b, *pc = c;
    void *params[] = {&pa, &pb, &pc};
    e = hipModuleLaunchKernel(f, 1, 1, 1, 256, 1, 1, 0, NULL, params, NULL);
    float h[N];
    if (e == hipSuccess)
      e = hipMemcpyDtoH(h, c, sizeof h);
    printf("out[0] = %g, out[1023] = %g\n", h[0], h[N - 1]);
    return report("kernelParams launch", e);
  }
  if (!strcmp(mode, "order")) {
    hipStream_t s1, s2;
    hipEvent_t done;
    hipStreamCreate(&s1);
    hipStreamCreate(&s2);
    hipEventCreate(&done);
    float h[N];
    launch(f, s1, a, b, c);
    hipMemcpyDtoDAsync(d, c, N * 4, s2); /* no wait: races on a GPU */
    hipDeviceSynchronize();
    hipMemcpyDtoH(h, d, sizeof h);
    unsigned bits;
    memcpy(&bits, &h[5], 4);
    printf("without a wait: d[5] bits 0x%08x\n", bits);
    hipMemset(c, 0xff, N * 4);
    launch(f, s1, a, b, c);
    hipEventRecord(done, s1);
    hipStreamWaitEvent(s2, done, 0);
    hipMemcpyDtoDAsync(d, c, N * 4, s2);
    e = hipStreamSynchronize(s2);
    hipMemcpyDtoH(h, d, sizeof h);
    printf("with a wait: d[5] = %g\n", h[5]);
    hipEventDestroy(done);
    hipStreamDestroy(s1);
    hipStreamDestroy(s2);
    return report("order", e);
  }
  return 2;
}
