/* miir_client.c: a convolution run the way MIOpen runs its MLIR solvers,
 * against Miir.h and the HIP runtime API (here libtosac-hipemu), checked
 * against the mathematical definition.
 *
 *   miir-client SEED "OPTIONS"      (OPTIONS as MIOpen builds them, without
 * --kernel_id)
 *
 * One handle for the kernel count and workspace; then per kernel id a handle of
 * its own, the code object (miirBufferGet's two calls), the execution dims, and
 * a launch in id order with the one argument struct {filter, input, output,
 * workspace}. The tensor written is filled with NaN first, so an element no
 * kernel writes fails the check. The reference is a direct loop over the
 * definition in double precision, reading the tensors through their layouts.
 * Prints "kernels N workspace W", one line per kernel, "max_err E tol T" and
 * "OK"; exit 1 on a mismatch, 2 on an API failure.
 *
 * The workspace is passed as MIOpen's invokers pass it: NULL for forward and
 * backward data (a problem answering a nonzero workspace there fails, exit 3),
 * miirGetWorkspaceSize bytes for backward weight. With --workspace=requested
 * first, every operation gets the bytes it asks for (a solver that requests
 * them).
 *
 *   miir-client --lower "OPTIONS"   (every handle and binary, no launch: "handles to binaries: S")
 *   miir-client --threads N "OPTIONS"   (N threads lowering every kernel at once: same bytes?)
 *   miir-client --create "OPTIONS"  (OPTIONS complete, with --kernel_id)
 *
 * Only the API's answers: "NULL: <tosac_miir_error()>" or "kernels N workspace
 * W", then the status of miirLowerTuningParams, miirLowerBin and
 * miirGetExecutionDims. */
#include "Miir.h"

#include <hip/hip_runtime_api.h>
#include <math.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

typedef struct problem {
  int op; /* 0 fwd, 1 bwd data, 2 bwd weight */
  long g, n, c, k, hi, wi, ho, wo, y, x, dh, dw, sh, sw, ph, pw;
  char fl[8], il[8], ol[8]; /* layouts, MIOpen letters upper-cased */
  char ft[8], it[8], ot[8]; /* types */
} problem;

static const char *flag(const char *opts, const char *name) {
  static char v[64];
  char key[64];
  snprintf(key, sizeof key, "--%s ", name);
  const char *p = strstr(opts, key);
  if (!p)
    return NULL;
  sscanf(p + strlen(key), "%63s", v);
  return v;
}

static long iflag(const char *opts, const char *name, long def) {
  const char *v = flag(opts, name);
  return v ? atol(v) : def;
}

static void sflag(const char *opts, const char *name, char *out, const char *def) {
  const char *v = flag(opts, name);
  snprintf(out, 8, "%s", v ? v : def);
  for (char *c = out; *c; c++)
    *c = (char)(*c >= 'a' && *c <= 'z' ? *c - 32 : *c);
}

static int esize(const char *t) {
  return !strcmp(t, "FP32") || !strcmp(t, "I32")                                            ? 4
         : !strcmp(t, "I8") || !strcmp(t, "FP8") || !strcmp(t, "BFP8") || !strcmp(t, "BF8") ? 1
                                                                                            : 2;
}

/* Element offset of (g, a, b, h, w) in a layout of 4 or 5 letters: role 'f'
 * (letters G, K/N, C, Y/H, X/W), 'i' (G N C H W), 'o' (G N K/C H W). a/b are
 * the two "channel-like" indices: filter k,c; input n,c; output n,k. */
static long offset(const problem *p, char role, const char *layout, long g, long a, long b, long h,
                   long w) {
  long cg = p->c / p->g, kg = p->k / p->g;
  long idx = 0;
  bool has_g = strchr(layout, 'G') != NULL;
  for (const char *l = layout; *l; l++) {
    long size, i;
    char L = *l;
    if (role == 'f') {
      if (L == 'G')
        size = p->g, i = g;
      else if (L == 'K' || L == 'N')
        size = has_g ? kg : p->k, i = has_g ? a : g * kg + a;
      else if (L == 'C')
        size = cg, i = b;
      else if (L == 'Y' || L == 'H')
        size = p->y, i = h;
      else
        size = p->x, i = w;
    } else if (role == 'i') {
      if (L == 'G')
        size = p->g, i = g;
      else if (L == 'N')
        size = p->n, i = a;
      else if (L == 'C')
        size = has_g ? cg : p->c, i = has_g ? b : g * cg + b;
      else if (L == 'H')
        size = p->hi, i = h;
      else
        size = p->wi, i = w;
    } else {
      if (L == 'G')
        size = p->g, i = g;
      else if (L == 'N')
        size = p->n, i = a;
      else if (L == 'K' || L == 'C')
        size = has_g ? kg : p->k, i = has_g ? b : g * kg + b;
      else if (L == 'H')
        size = p->ho, i = h;
      else
        size = p->wo, i = w;
    }
    idx = idx * size + i;
  }
  return idx;
}

static float bf16_to_f32(uint16_t b) {
  uint32_t u = (uint32_t)b << 16;
  float f;
  memcpy(&f, &u, 4);
  return f;
}
static uint16_t f32_to_bf16(float f) {
  uint32_t u;
  memcpy(&u, &f, 4);
  return (uint16_t)((u + 0x7fff + ((u >> 16) & 1)) >> 16);
}

/* 8-bit floats of the FNUZ kind MIOpen's fp8/bfp8 name: sign, exponent (bias 8 for E4M3, 16
 * for E5M2), mantissa, no infinities, 0x80 the only NaN. Values are exact multiples the type
 * holds. */
static int f8_mbits(const char *t) { return !strcmp(t, "FP8") ? 3 : 2; }
static double f8_decode(uint8_t b, const char *t) {
  int mb = f8_mbits(t), bias = mb == 3 ? 8 : 16, eb = 7 - mb;
  if (b == 0x80)
    return NAN;
  int e = (b >> mb) & ((1 << eb) - 1), m = b & ((1 << mb) - 1);
  double v =
      e ? ldexp(1.0 + m / (double)(1 << mb), e - bias) : ldexp(m / (double)(1 << mb), 1 - bias);
  return b & 0x80 ? -v : v;
}
static uint8_t f8_encode(double v, const char *t) {
  if (isnan(v))
    return 0x80;
  if (v == 0)
    return 0;
  int mb = f8_mbits(t), bias = mb == 3 ? 8 : 16;
  uint8_t sign = v < 0 ? 0x80 : 0;
  double a = fabs(v);
  int e = ilogb(a);
  int field = e + bias;
  unsigned m = field > 0 ? (unsigned)lround((a / ldexp(1, e) - 1) * (1 << mb))
                         : (unsigned)lround(a / ldexp(1, 1 - bias) * (1 << mb));
  return (uint8_t)(sign | (field > 0 ? (unsigned)field << mb : 0) | m);
}

static double get(const void *buf, const char *t, long i) {
  if (!strcmp(t, "FP32"))
    return ((const float *)buf)[i];
  if (!strcmp(t, "FP16"))
    return (double)((const _Float16 *)buf)[i];
  if (!strcmp(t, "BF16"))
    return bf16_to_f32(((const uint16_t *)buf)[i]);
  if (!strcmp(t, "I8"))
    return ((const int8_t *)buf)[i];
  if (esize(t) == 1)
    return f8_decode(((const uint8_t *)buf)[i], t);
  return ((const int32_t *)buf)[i];
}
static void put(void *buf, const char *t, long i, double v) {
  if (!strcmp(t, "FP32"))
    ((float *)buf)[i] = (float)v;
  else if (!strcmp(t, "FP16"))
    ((_Float16 *)buf)[i] = (_Float16)v;
  else if (!strcmp(t, "BF16"))
    ((uint16_t *)buf)[i] = f32_to_bf16((float)v);
  else if (!strcmp(t, "I8"))
    ((int8_t *)buf)[i] = (int8_t)v;
  else if (esize(t) == 1)
    ((uint8_t *)buf)[i] = f8_encode(v, t);
  else
    ((int32_t *)buf)[i] = (int32_t)v;
}

static uint64_t rng;
static double uniform(void) { /* xorshift64*: [-1, 1) */
  rng ^= rng >> 12, rng ^= rng << 25, rng ^= rng >> 27;
  return (double)((rng * 2685821657736338717ull) >> 11) / (double)(1ull << 52) - 1.0;
}

#define CHECK_HIP(e)                                                                               \
  do {                                                                                             \
    hipError_t r_ = (e);                                                                           \
    if (r_ != hipSuccess) {                                                                        \
      fprintf(stderr, "miir-client: %s: %s\n", #e, hipGetErrorString(r_));                         \
      exit(2);                                                                                     \
    }                                                                                              \
  } while (0)

static MiirHandle create(const char *opts, int id, char *name) {
  char *s = malloc(strlen(opts) + 256);
  sprintf(name, "miir_client_kernel%d", id);
  sprintf(s, "%s --kernel_id %d --kernel_name %s", opts, id, name);
  MiirHandle h = miirCreateHandle(s);
  free(s);
  if (!h) {
    fprintf(stderr, "miir-client: miirCreateHandle: %s\n", tosac_miir_error());
    exit(2);
  }
  return h;
}

/* --threads N: N threads build every kernel of the same problem at once (the shared compile,
 * its reference counts); every thread must get the same code objects. Prints "threads N
 * kernels K identical". */
typedef struct lower_job {
  const char *opts;
  int count;
  size_t sizes[64];
  char *bins[64];
  int failed;
} lower_job;

static void *lower_all(void *arg) {
  lower_job *j = arg;
  for (int id = 0; id < j->count && id < 64; id++) {
    char *s = malloc(strlen(j->opts) + 128);
    sprintf(s, "%s --kernel_id %d --kernel_name k%d", j->opts, id, id);
    MiirHandle h = miirCreateHandle(s);
    free(s);
    size_t size = 0;
    if (!h || miirLowerBin(h) || miirBufferGet(h, NULL, &size)) {
      j->failed = 1;
      if (h)
        miirDestroyHandle(h);
      return NULL;
    }
    j->bins[id] = malloc(size);
    j->sizes[id] = size;
    miirBufferGet(h, j->bins[id], &size);
    miirDestroyHandle(h);
  }
  return NULL;
}

static int threads_test(int n, const char *opts) {
  char name[64];
  MiirHandle h = create(opts, 0, name);
  int count = miirGetKernelCount(h);
  miirDestroyHandle(h);
  lower_job *jobs = calloc((size_t)n, sizeof *jobs);
  pthread_t *t = calloc((size_t)n, sizeof *t);
  for (int i = 0; i < n; i++) {
    jobs[i].opts = opts, jobs[i].count = count;
    pthread_create(&t[i], NULL, lower_all, &jobs[i]);
  }
  int bad = 0;
  for (int i = 0; i < n; i++) {
    pthread_join(t[i], NULL);
    bad |= jobs[i].failed;
    for (int id = 0; !bad && id < count; id++)
      bad |= jobs[i].sizes[id] != jobs[0].sizes[id] ||
             memcmp(jobs[i].bins[id], jobs[0].bins[id], jobs[0].sizes[id]);
  }
  printf("threads %d kernels %d %s\n", n, count, bad ? "DIFFER" : "identical");
  for (int i = 0; i < n; i++)
    for (int id = 0; id < count && id < 64; id++)
      free(jobs[i].bins[id]);
  free(jobs);
  free(t);
  return bad;
}

static int create_only(const char *opts) {
  MiirHandle h = miirCreateHandle(opts);
  if (!h) {
    printf("NULL: %s\n", tosac_miir_error());
    return 0;
  }
  printf("kernels %d workspace %d\n", miirGetKernelCount(h), miirGetWorkspaceSize(h));
  printf("tuning %d\n", miirLowerTuningParams(h));
  MiirStatus st = miirLowerBin(h);
  printf("bin %d%s%s\n", st, st ? ": " : "", st ? tosac_miir_error() : "");
  size_t g = 0, l = 0;
  st = miirGetExecutionDims(h, &g, &l);
  printf("dims %d global %zu local %zu\n", st, g, l);
  miirDestroyHandle(h);
  return 0;
}

int main(int argc, char **argv) {
  bool requested = argc > 1 && !strcmp(argv[1], "--workspace=requested");
  if (requested)
    argc--, argv++;
  if (argc == 3 && !strcmp(argv[1], "--create"))
    return create_only(argv[2]);
  if (argc == 4 && !strcmp(argv[1], "--threads"))
    return threads_test(atoi(argv[2]), argv[3]);
  /* --lower: MIOpen's build steps only (every handle and binary, in one process), timed */
  bool lower_only = argc == 3 && !strcmp(argv[1], "--lower");
  struct timespec t0;
  clock_gettime(CLOCK_MONOTONIC, &t0);
  if (argc != 3) {
    fprintf(stderr, "usage: miir-client SEED \"OPTIONS\"\n");
    return 2;
  }
  rng = strtoull(argv[1], NULL, 10) * 0x9e3779b97f4a7c15ull + 1;
  const char *opts = argv[2];
  problem p = {0};
  const char *opn = flag(opts, "operation");
  p.op = !opn || !strcmp(opn, "conv2d") ? 0 : !strcmp(opn, "conv2d_bwd_data") ? 1 : 2;
  p.g = iflag(opts, "groupsize", 1), p.n = iflag(opts, "batchsize", 0);
  p.c = iflag(opts, "in_channels", 0), p.k = iflag(opts, "out_channels", 0);
  p.hi = iflag(opts, "in_h", 0), p.wi = iflag(opts, "in_w", 0);
  p.ho = iflag(opts, "out_h", 0), p.wo = iflag(opts, "out_w", 0);
  p.y = iflag(opts, "fil_h", 0), p.x = iflag(opts, "fil_w", 0);
  p.dh = iflag(opts, "dilation_h", 1), p.dw = iflag(opts, "dilation_w", 1);
  p.sh = iflag(opts, "conv_stride_h", 1), p.sw = iflag(opts, "conv_stride_w", 1);
  p.ph = iflag(opts, "padding_h", 0), p.pw = iflag(opts, "padding_w", 0);
  /* --out_h/--out_w are optional to the library: the definition's sizes when absent */
  if (!p.ho)
    p.ho = (p.hi + 2 * p.ph - p.dh * (p.y - 1) - 1) / p.sh + 1;
  if (!p.wo)
    p.wo = (p.wi + 2 * p.pw - p.dw * (p.x - 1) - 1) / p.sw + 1;
  sflag(opts, "fil_layout", p.fl, "GKCYX");
  sflag(opts, "in_layout", p.il, "NGCHW");
  sflag(opts, "out_layout", p.ol, "NGKHW");
  sflag(opts, "fil_type", p.ft, "fp32");
  sflag(opts, "in_type", p.it, "fp32");
  sflag(opts, "out_type", p.ot, "fp32");

  /* the kernel count and the workspace, as MIOpen's solver asks before building
   */
  char name[64];
  MiirHandle h = create(opts, 0, name);
  int count = miirGetKernelCount(h);
  int ws = miirGetWorkspaceSize(h);
  miirDestroyHandle(h);
  printf("kernels %d workspace %d\n", count, ws);
  if (ws > 0 && p.op != 2 && !requested && !lower_only) {
    printf("MIOpen passes no workspace for %s; the problem needs %d bytes\n",
           p.op ? "backward data" : "forward", ws);
    return 3;
  }

  hipModule_t *mods = calloc((size_t)count, sizeof *mods);
  hipFunction_t *fns = calloc((size_t)count, sizeof *fns);
  size_t *gsz = calloc((size_t)count, sizeof *gsz), *lsz = calloc((size_t)count, sizeof *lsz);
  for (int id = 0; id < count; id++) {
    h = create(opts, id, name);
    MiirStatus st = miirLowerBin(h);
    size_t size = 0;
    if (st == MIIR_SUCCESS)
      st = miirBufferGet(h, NULL, &size);
    char *bin = malloc(size ? size : 1);
    if (st == MIIR_SUCCESS)
      st = miirBufferGet(h, bin, &size);
    if (st == MIIR_SUCCESS)
      st = miirGetExecutionDims(h, &gsz[id], &lsz[id]);
    if (st != MIIR_SUCCESS) {
      fprintf(stderr, "miir-client: kernel %d: status %d: %s\n", id, st, tosac_miir_error());
      return 2;
    }
    miirDestroyHandle(h);
    if (!lower_only) {
      CHECK_HIP(hipModuleLoadData(&mods[id], bin));
      CHECK_HIP(hipModuleGetFunction(&fns[id], mods[id], name));
    }
    free(bin);
    printf("kernel %d global %zu local %zu code %zu bytes\n", id, gsz[id], lsz[id], size);
  }
  if (lower_only) {
    struct timespec t1;
    clock_gettime(CLOCK_MONOTONIC, &t1);
    printf("handles to binaries: %.3f s\n",
           (double)(t1.tv_sec - t0.tv_sec) + (t1.tv_nsec - t0.tv_nsec) * 1e-9);
    free(mods), free(fns), free(gsz), free(lsz);
    return 0;
  }

  long nf = p.k * (p.c / p.g) * p.y * p.x, ni = p.n * p.c * p.hi * p.wi,
       no = p.n * p.k * p.ho * p.wo;
  void *hf = malloc((size_t)nf * (size_t)esize(p.ft)),
       *hi = malloc((size_t)ni * (size_t)esize(p.it)),
       *ho = malloc((size_t)no * (size_t)esize(p.ot));
  /* operands: small values, exact in every type (multiples of 1/8 in [-1, 1],
   * i8 in [-8, 8]) */
  void *bufs[3] = {hf, hi, ho};
  const char *types[3] = {p.ft, p.it, p.ot};
  long counts[3] = {nf, ni, no};
  int written = p.op == 0 ? 2 : p.op == 1 ? 1 : 0;
  for (int t = 0; t < 3; t++)
    for (long i = 0; i < counts[t]; i++)
      put(bufs[t], types[t], i,
          t == written              ? NAN
          : !strcmp(types[t], "I8") ? round(uniform() * 8)
                                    : round(uniform() * 8) / 8);
  if (!strcmp(types[written], "I32"))
    memset(bufs[written], 0x7f, (size_t)counts[written] * 4);
  void *d[4] = {0};
  for (int t = 0; t < 3; t++) {
    size_t bytes = (size_t)counts[t] * (size_t)esize(types[t]);
    CHECK_HIP(hipMalloc(&d[t], bytes));
    CHECK_HIP(hipMemcpy(d[t], bufs[t], bytes, hipMemcpyHostToDevice));
  }
  if (ws > 0)
    CHECK_HIP(hipMalloc(&d[3], (size_t)ws));
  struct {
    void *filter, *input, *output, *workspace;
  } args = {d[0], d[1], d[2], d[3]};
  size_t args_size = sizeof args;
  for (int id = 0; id < count; id++) {
    void *extra[] = {HIP_LAUNCH_PARAM_BUFFER_POINTER, &args, HIP_LAUNCH_PARAM_BUFFER_SIZE,
                     &args_size, HIP_LAUNCH_PARAM_END};
    CHECK_HIP(hipModuleLaunchKernel(fns[id], (unsigned)(gsz[id] / lsz[id]), 1, 1, (unsigned)lsz[id],
                                    1, 1, 0, NULL, NULL, extra));
  }
  CHECK_HIP(hipDeviceSynchronize());
  size_t wbytes = (size_t)counts[written] * (size_t)esize(types[written]);
  void *got = malloc(wbytes);
  CHECK_HIP(hipMemcpy(got, d[written], wbytes, hipMemcpyDeviceToHost));

  /* reference: the definition, y[n,g,k,ho,wo] = sum x[n,g,c,ho*s+y*d-p, ...]
   * w[g,k,c,y,x] */
  double *ref = calloc((size_t)counts[written], sizeof *ref);
  long cg = p.c / p.g, kg = p.k / p.g;
  for (long g = 0; g < p.g; g++)
    for (long n = 0; n < p.n; n++)
      for (long k = 0; k < kg; k++)
        for (long oh = 0; oh < p.ho; oh++)
          for (long ow = 0; ow < p.wo; ow++)
            for (long c = 0; c < cg; c++)
              for (long fy = 0; fy < p.y; fy++)
                for (long fx = 0; fx < p.x; fx++) {
                  long ih = oh * p.sh + fy * p.dh - p.ph, iw = ow * p.sw + fx * p.dw - p.pw;
                  if (ih < 0 || ih >= p.hi || iw < 0 || iw >= p.wi)
                    continue;
                  long fo = offset(&p, 'f', p.fl, g, k, c, fy, fx);
                  long io = offset(&p, 'i', p.il, g, n, c, ih, iw);
                  long oo = offset(&p, 'o', p.ol, g, n, k, oh, ow);
                  if (p.op == 0)
                    ref[oo] += get(hf, p.ft, fo) * get(hi, p.it, io);
                  else if (p.op == 1)
                    ref[io] += get(hf, p.ft, fo) * get(ho, p.ot, oo);
                  else
                    ref[fo] += get(hi, p.it, io) * get(ho, p.ot, oo);
                }
  /* tolerance: the rounding of the result type over sums of exact products */
  const char *wt = types[written];
  double rel = !strcmp(wt, "FP32")   ? 1e-5
               : !strcmp(wt, "FP16") ? 2e-3
               : !strcmp(wt, "BF16") ? 1.6e-2
                                     : 0;
  double max_err = 0, max_tol = 0;
  long bad = -1;
  for (long i = 0; i < counts[written]; i++) {
    double v = get(got, wt, i), tol = rel * fabs(ref[i]) + rel;
    double e = fabs(v - ref[i]);
    if (!(e <= tol) && bad < 0)
      bad = i;
    if (e > max_err || isnan(e))
      max_err = isnan(e) ? INFINITY : e;
    if (tol > max_tol)
      max_tol = tol;
  }
  printf("max_err %g tol %g\n", max_err, max_tol);
  if (bad >= 0) {
    printf("MISMATCH at element %ld: got %g, expected %g\n", bad, get(got, wt, bad), ref[bad]);
    return 1;
  }
  printf("OK\n");
  for (int t = 0; t < 4; t++)
    if (d[t])
      hipFree(d[t]);
  for (int id = 0; id < count; id++)
    hipModuleUnload(mods[id]);
  free(mods), free(fns), free(gsz), free(lsz);
  free(hf), free(hi), free(ho), free(got), free(ref);
  return 0;
}
