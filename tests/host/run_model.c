/* run_model.c: a complete program around the host code tosac --emit=host writes (docs/host.md).
 * It reads each graph input from a raw little-endian file, runs the model on device 0 through
 * PREFIX_load / PREFIX_run / PREFIX_unload, and writes each result to a raw file.
 *
 *   tosac model.mlir --emit=host -o model_host.c          (prefix: the entry function, "main")
 *   cc -std=c17 -Wall -Werror -D__HIP_PLATFORM_AMD__ -DMODEL=main -DMODEL_UPPER=MAIN \
 *      -include model_host.h run_model.c model_host.c -o run_model -lamdhip64
 *   ./run_model model.hipfb [model.weights | -] in0.bin ... -- out0.bin ...
 *
 * An input written FILE@2x16x32 has that shape (a --specialize model: PREFIX_select picks the
 * variant); otherwise its shape is PREFIX_inputs[i]'s.
 *
 * Link -ltosac-hipemu instead of -lamdhip64 to run on the CPU emulator. Exit status: 0, or 1
 * with the generated code's error message. */
#include <hip/hip_runtime_api.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define CAT_(a, b) a##b
#define CAT(a, b) CAT_(a, b)
#define M(name) CAT(MODEL, name)
#define MU(name) CAT(MODEL_UPPER, name)

static void *slurp(const char *path, size_t *size) {
  FILE *f = fopen(path, "rb");
  if (!f || fseek(f, 0, SEEK_END) || ftell(f) < 0) {
    fprintf(stderr, "run_model: cannot read %s\n", path);
    exit(1);
  }
  *size = (size_t)ftell(f);
  rewind(f);
  void *p = malloc(*size + 1);
  if (!p || fread(p, 1, *size, f) != *size) {
    fprintf(stderr, "run_model: cannot read %s\n", path);
    exit(1);
  }
  fclose(f);
  return p;
}

/* The files read whole; released on every way out so that the sanitizer runs see no leak. */
static void *bundle, *weights, *host;

static void release(void) {
  free(bundle);
  free(weights);
  free(host);
  bundle = weights = host = NULL;
}

static int fail(M(_ctx) *ctx, hipError_t e, const char *what) {
  fprintf(stderr, "run_model: %s: %s (%s)\n", what, ctx ? M(_error)(ctx) : hipGetErrorString(e),
          hipGetErrorName(e));
  M(_unload)(ctx);
  release();
  return 1;
}

int main(int argc, char **argv) {
  int nin = MU(_NUM_INPUTS), nout = MU(_NUM_OUTPUTS);
  if (argc != 3 + nin + 1 + nout || strcmp(argv[3 + nin], "--")) {
    fprintf(stderr, "usage: %s BUNDLE WEIGHTS|- IN.bin x%d -- OUT.bin x%d\n", argv[0], nin, nout);
    return 2;
  }
  size_t bsize, wsize = 0;
  bundle = slurp(argv[1], &bsize);
  if (strcmp(argv[2], "-"))
    weights = slurp(argv[2], &wsize);
  M(_ctx) *ctx;
  hipError_t e = M(_load)(&ctx, bundle, weights, wsize, 0);
  if (e != hipSuccess)
    return fail(ctx, e, "load");
  fprintf(stderr, "run_model: target %s\n", M(_target_id)(ctx));
  void *in[MU(_NUM_INPUTS) + 1], *out[MU(_NUM_OUTPUTS) + 1];
  int64_t dims[MU(_NUM_INPUTS) + 1][8];
  const int64_t *shapes[MU(_NUM_INPUTS) + 1];
  for (int i = 0; i < nin; i++) {
    char *at = strchr(argv[3 + i], '@');
    memcpy(dims[i], M(_inputs)[i].shape, sizeof dims[i]);
    for (int d = 0; at && d < M(_inputs)[i].rank; d++)
      dims[i][d] = strtoll(at + 1, &at, 10);
    if (strchr(argv[3 + i], '@'))
      *strchr(argv[3 + i], '@') = '\0';
    shapes[i] = dims[i];
  }
  if ((e = M(_select)(ctx, shapes)) != hipSuccess)
    return fail(ctx, e, "select");
  for (int i = 0; i < nin; i++) {
    size_t n;
    host = slurp(argv[3 + i], &n);
    if (n != M(_input)(ctx, i)->bytes) {
      fprintf(stderr, "run_model: %s holds %zu bytes, input %d takes %zu\n", argv[3 + i], n, i,
              M(_input)(ctx, i)->bytes);
      M(_unload)(ctx);
      release();
      return 1;
    }
    if ((e = hipMalloc(&in[i], n + 1)) != hipSuccess ||
        (e = hipMemcpyHtoD(in[i], host, n)) != hipSuccess)
      return fail(ctx, e, "input upload");
    free(host);
    host = NULL;
  }
  for (int i = 0; i < nout; i++)
    if ((e = hipMalloc(&out[i], M(_output)(ctx, i)->bytes + 1)) != hipSuccess)
      return fail(NULL, e, "hipMalloc");
  hipStream_t stream;
  if ((e = hipStreamCreate(&stream)) != hipSuccess)
    return fail(NULL, e, "hipStreamCreate");
  /* RUN_MODEL_RUNS=N: N runs on one context, the outputs set to 0xff bytes before each later
   * one, so a run that depends on state an earlier run left behind shows in the output */
  int runs = getenv("RUN_MODEL_RUNS") ? atoi(getenv("RUN_MODEL_RUNS")) : 1;
  for (int r = 0; r < (runs > 0 ? runs : 1); r++) {
    for (int i = 0; r > 0 && i < nout; i++)
      if ((e = hipMemset(out[i], 0xff, M(_output)(ctx, i)->bytes)) != hipSuccess)
        return fail(NULL, e, "hipMemset");
    if ((e = M(_run)(ctx, stream, (const void *const *)in, out)) != hipSuccess)
      return fail(ctx, e, "run");
    if ((e = hipStreamSynchronize(stream)) != hipSuccess)
      return fail(NULL, e, "hipStreamSynchronize");
  }
  for (int i = 0; i < nout; i++) {
    size_t n = M(_output)(ctx, i)->bytes;
    host = malloc(n + 1);
    if ((e = hipMemcpyDtoH(host, out[i], n)) != hipSuccess)
      return fail(ctx, e, "hipMemcpyDtoH");
    FILE *f = fopen(argv[4 + nin + i], "wb");
    if (!f || fwrite(host, 1, n, f) != n || fclose(f)) {
      fprintf(stderr, "run_model: cannot write %s\n", argv[4 + nin + i]);
      M(_unload)(ctx);
      release();
      return 1;
    }
    free(host);
    host = NULL;
  }
  for (int i = 0; i < nin; i++)
    hipFree(in[i]);
  for (int i = 0; i < nout; i++)
    hipFree(out[i]);
  hipStreamDestroy(stream);
  M(_unload)(ctx);
  release();
  return 0;
}
