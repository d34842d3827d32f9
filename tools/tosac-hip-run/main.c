/* main.c: tosac-hip-run, the reference HIP client: runs a tosac bundle + manifest on a GPU with the
 * HIP module API only (docs/hip-run.md). GPU-free decisions live in host.c. */
#include "host.h"
#include "bundle/bundle.h"

#include <cjson/cJSON.h>
#include <hip/hip_runtime_api.h>
#include <stdlib.h>
#include <string.h>

#define EXIT_SKIP 77 /* no GPU: the automake/Bats convention for "skipped" */
#define MAX_FILES 64

static const char *usage_text =
    "usage: tosac-hip-run BUNDLE [--manifest M] [--input X.npy]... [--output Y.npy]...\n"
    "                     [--weights W] [--streams N] [--device N] [--entry NAME]\n"
    "\n"
    "Runs a tosac bundle on the first (or --device N) HIP GPU: picks the manifest target that\n"
    "matches the device's gcnArchName, loads its code object with hipModuleLoadData, uploads the\n"
    "inputs (.npy, in graph argument order) and the weights file, plays the launch graph (its\n"
    "data-dependent if / while nodes too) on N streams (default 2) with events for cross-stream\n"
    "dependencies, times every kernel and writes the outputs (.npy, in result order). --entry\n"
    "picks the entry function of a module compiled with several public functions (default: the\n"
    "only one).\n"
    "\n"
    "exit status: 0 success, 1 error, 2 usage error, 77 no HIP device\n";

typedef struct opts {
  const char *bundle, *manifest, *weights, *entry;
  const char *inputs[MAX_FILES], *outputs[MAX_FILES];
  int ninputs, noutputs, streams, device;
} opts;

#define HIP_CHECK(call)                                                                        \
  do {                                                                                         \
    hipError_t e_ = (call);                                                                    \
    if (e_ != hipSuccess) {                                                                    \
      fprintf(stderr, "tosac-hip-run: error: %s failed: %s\n", #call, hipGetErrorString(e_)); \
      exit(1);                                                                                 \
    }                                                                                          \
  } while (0)

static void die(const char *fmt, const char *a, const char *b) {
  fputs("tosac-hip-run: error: ", stderr);
  fprintf(stderr, fmt, a, b);
  fputc('\n', stderr);
  exit(1);
}

static int parse_args(int argc, char **argv, opts *o) {
  *o = (opts){.streams = 2};
  for (int i = 1; i < argc; i++) {
    const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
    if (!strcmp(a, "--help")) {
      fputs(usage_text, stdout);
      exit(0);
    } else if (!strcmp(a, "--manifest") && v) {
      o->manifest = v, i++;
    } else if (!strcmp(a, "--entry") && v) {
      o->entry = v, i++;
    } else if (!strcmp(a, "--weights") && v) {
      o->weights = v, i++;
    } else if (!strcmp(a, "--input") && v && o->ninputs < MAX_FILES) {
      o->inputs[o->ninputs++] = v, i++;
    } else if (!strcmp(a, "--output") && v && o->noutputs < MAX_FILES) {
      o->outputs[o->noutputs++] = v, i++;
    } else if (!strcmp(a, "--streams") && v && atoi(v) >= 1 && atoi(v) <= 16) {
      o->streams = atoi(v), i++;
    } else if (!strcmp(a, "--device") && v && atoi(v) >= 0) {
      o->device = atoi(v), i++;
    } else if (a[0] != '-' && !o->bundle) {
      o->bundle = a;
    } else {
      fprintf(stderr, "tosac-hip-run: error: unexpected argument '%s'\n%s", a, usage_text);
      return 2;
    }
  }
  if (!o->bundle) {
    fprintf(stderr, "tosac-hip-run: error: no bundle given\n%s", usage_text);
    return 2;
  }
  return 0;
}

/* "dir/model.hipfb" -> "dir/model.json" */
static char *default_manifest(const char *bundle) {
  size_t n = strlen(bundle);
  const char *dot = strrchr(bundle, '.'), *slash = strrchr(bundle, '/');
  if (dot && (!slash || dot > slash))
    n = (size_t)(dot - bundle);
  char *s = malloc(n + 6);
  memcpy(s, bundle, n);
  strcpy(s + n, ".json");
  return s;
}

static uint8_t *slurp(const char *path, size_t *size) {
  char err[512];
  uint8_t *d = (uint8_t *)read_file(path, size, err, sizeof err);
  if (!d)
    die("%s%s", err, "");
  return d;
}

/* A manifest of several entry functions (or --entry): the chosen one's as a one-entry manifest
 * (bundle/entries.c), so everything below reads it unchanged. */
static char *select_entry(char *mtext, const char *entry, const char *mpath) {
  cJSON *root = cJSON_Parse(mtext);
  if (!root || (!entry && !cJSON_GetObjectItemCaseSensitive(root, "entries"))) {
    cJSON_Delete(root);
    return mtext; /* hr_manifest_parse reports malformed text */
  }
  char err[600];
  if (!bnd_manifest_select_entry(root, entry, err, sizeof err)) {
    cJSON_Delete(root); /* leak-free exit under make asan */
    free(mtext);
    die("%s: %s", mpath, err);
  }
  char *text = cJSON_PrintUnformatted(root);
  cJSON_Delete(root);
  free(mtext);
  return text;
}

/* --specialize: the variant whose input shapes are the .npy files' replaces the top level (which
 * describes variant 0); none: the top level stays and the shape check names the mismatch. */
static void select_variant(const char *mtext, hr_manifest *m, const hr_npy *in, int n) {
  char err[600];
  for (int v = 0; v < m->nvariants; v++) {
    hr_manifest mv;
    if (!hr_manifest_parse_variant(mtext, v, &mv, err, sizeof err))
      die("manifest variant: %s%s", err, "");
    bool same = mv.ninputs == n;
    for (int i = 0; same && i < n; i++)
      same = hr_npy_matches(&in[i], &mv.inputs[i], err, sizeof err);
    if (same) {
      hr_manifest_free(m);
      *m = mv;
      return;
    }
    hr_manifest_free(&mv);
  }
}

/* One target's launch graph on the device: buffer addresses, kernels, streams (stream[i] for
 * launch i) and the start/done events of every launch. */
typedef struct hip_graph {
  const hr_target *t;
  const uint64_t *addr;
  hipFunction_t *fn;
  hipStream_t *streams;
  const int *stream;
  hipEvent_t *start, *done;
  bool *ran;  /* launches that ran (and have timing events) */
  bool *cond; /* readbacks' results, by launch id */
  long max_iterations;
} hip_graph;

static void run_fill(const hip_graph *g, const hr_launch *l, hipStream_t st) {
  void *dst = (void *)(uintptr_t)(g->addr[l->buffer] + (uint64_t)l->offset);
  hr_fill_plan fp = hr_plan_fill(l);
  if (fp.width == 8)
    HIP_CHECK(hipMemsetD8Async(dst, (unsigned char)fp.value, fp.count, st));
  else if (fp.width == 16)
    HIP_CHECK(hipMemsetD16Async(dst, (unsigned short)fp.value, fp.count, st));
  else if (fp.width == 32)
    HIP_CHECK(hipMemsetD32Async(dst, (int)fp.value, fp.count, st));
  else { /* 64-bit pattern: upload a host image of it */
    uint64_t *img = malloc(fp.count * 8 + 8);
    for (size_t k = 0; k < fp.count; k++)
      img[k] = l->bits;
    HIP_CHECK(hipMemcpyHtoD(dst, img, fp.count * 8)); /* synchronous: img is freed next */
    free(img);
  }
}

static void run_kernel(const hip_graph *g, const hr_launch *l, hipStream_t st) {
  const hr_kernel *k = &g->t->kernels[l->kernel];
  char err[600];
  uint8_t args[4096] __attribute__((aligned(16)));
  size_t size = hr_pack_kernargs(k, g->addr, g->t->nbuffers, args, sizeof args, err, sizeof err);
  if (!size)
    die("%s%s", err, "");
  void *extra[] = {HIP_LAUNCH_PARAM_BUFFER_POINTER, args, HIP_LAUNCH_PARAM_BUFFER_SIZE, &size,
                   HIP_LAUNCH_PARAM_END};
  HIP_CHECK(hipModuleLaunchKernel(g->fn[l->kernel], k->grid[0], k->grid[1], k->grid[2],
                                  k->block[0], k->block[1], k->block[2], 0, st, NULL, extra));
}

/* docs/manifest.md "Control nodes": a condition is true when any byte its readback copied to
 * the host is non-zero. */
static bool read_condition(const hip_graph *g, const hr_launch *l, hipStream_t st) {
  uint8_t host[8] = {0};
  HIP_CHECK(hipMemcpyDtoHAsync(host, (hipDeviceptr_t)(uintptr_t)g->addr[l->buffer],
                               (size_t)l->bytes, st));
  HIP_CHECK(hipStreamSynchronize(st));
  bool any = false;
  for (int64_t b = 0; b < l->bytes; b++)
    any |= host[b] != 0;
  return any;
}

static void run_list(hip_graph *g, const int *ids, int n);

/* if: the then or else list; while: cond, and body while cond's readback reads true. A region
 * runs on its control node's stream (hr_schedule), in list order. */
static void run_control(hip_graph *g, const hr_launch *l) {
  if (l->kind == HR_IF) {
    int k = g->cond[l->condition] ? 0 : 1;
    run_list(g, l->region[k], l->nregion[k]);
    return;
  }
  for (long iter = 0;; iter++) {
    run_list(g, l->region[0], l->nregion[0]);
    if (!g->cond[l->condition])
      return;
    if (iter == g->max_iterations) {
      fprintf(stderr, "tosac-hip-run: error: launch %d: while loop still running after %ld "
              "iterations\n", (int)(l - g->t->launches), g->max_iterations);
      exit(1); /* like die: no output file is written */
    }
    run_list(g, l->region[1], l->nregion[1]);
  }
}

/* Launch `id` on its stream after its deps on other streams; its done event follows it (for a
 * control node, the launches of its regions). */
static void run_launch(hip_graph *g, int id) {
  const hr_target *t = g->t;
  const hr_launch *l = &t->launches[id];
  hipStream_t st = g->streams[g->stream[id]];
  for (int d = 0; d < l->ndeps; d++)
    if (hr_needs_wait(t, g->stream, id, d))
      HIP_CHECK(hipStreamWaitEvent(st, g->done[l->deps[d]], 0));
  HIP_CHECK(hipEventRecord(g->start[id], st));
  switch (l->kind) {
  case HR_FILL: run_fill(g, l, st); break;
  case HR_COPY:
    HIP_CHECK(hipMemcpyDtoDAsync((hipDeviceptr_t)(uintptr_t)g->addr[l->dst_buffer],
                                 (hipDeviceptr_t)(uintptr_t)g->addr[l->src_buffer],
                                 (size_t)l->bytes, st));
    break;
  case HR_KERNEL: run_kernel(g, l, st); break;
  case HR_READBACK: g->cond[id] = read_condition(g, l, st); break;
  case HR_IF:
  case HR_WHILE: run_control(g, l); break;
  }
  HIP_CHECK(hipEventRecord(g->done[id], st));
  g->ran[id] = true;
}

/* The launches of a list (`order` or a region) in its order. */
static void run_list(hip_graph *g, const int *ids, int n) {
  for (int i = 0; i < n; i++)
    run_launch(g, ids[i]);
}

int main(int argc, char **argv) {
  opts o;
  int rc = parse_args(argc, argv, &o);
  if (rc)
    return rc;
  char err[600];
  char *mpath = o.manifest ? strdup(o.manifest) : default_manifest(o.bundle);
  size_t msize, bsize;
  char *mtext = select_entry((char *)slurp(mpath, &msize), o.entry, mpath);
  hr_manifest m;
  if (!hr_manifest_parse(mtext, &m, err, sizeof err))
    die("%s: %s", mpath, err);
  uint8_t *bundle = slurp(o.bundle, &bsize);
  bnd_entry *entries;
  int nentries;
  if (!bnd_parse(bundle, bsize, &entries, &nentries, err, sizeof err))
    die("%s: %s", o.bundle, err);
  if (!bnd_digest_check(m.bundle_digest, bundle, bsize, o.bundle, err, sizeof err))
    die("%s (manifest %s)", err, mpath);
  /* The weights file: --weights, else constants.file relative to the manifest's directory. */
  uint8_t *wdata = NULL;
  size_t wsize = 0;
  char *wpath = NULL;
  if (m.weights_bytes) {
    const char *slash = strrchr(mpath, '/');
    size_t dir = o.weights || m.weights_file[0] == '/' || !slash ? 0 : (size_t)(slash - mpath) + 1;
    const char *name = o.weights ? o.weights : m.weights_file;
    wpath = malloc(dir + strlen(name) + 1);
    sprintf(wpath, "%.*s%s", (int)dir, mpath, name);
    wdata = slurp(wpath, &wsize);
    if (wsize != (size_t)m.weights_bytes) {
      snprintf(err, sizeof err, "%s has %zu bytes; the manifest says %lld", wpath, wsize,
               (long long)m.weights_bytes);
      die("%s%s", err, "");
    }
    if (!bnd_digest_check(m.weights_digest, wdata, wsize, wpath, err, sizeof err))
      die("%s (manifest %s)", err, mpath);
  }
  if (o.ninputs != m.ninputs) {
    fprintf(stderr, "tosac-hip-run: error: the graph takes %d inputs, %d given\n", m.ninputs,
            o.ninputs);
    exit(1); /* like die: what main holds stays reachable */
  }
  uint8_t *in_files[MAX_FILES];
  hr_npy in_npy[MAX_FILES];
  for (int i = 0; i < o.ninputs; i++) {
    size_t n;
    in_files[i] = slurp(o.inputs[i], &n);
    if (!hr_npy_parse(in_files[i], n, &in_npy[i], err, sizeof err))
      die("%s: %s", o.inputs[i], err);
  }
  select_variant(mtext, &m, in_npy, o.ninputs);
  for (int i = 0; i < o.ninputs; i++)
    if (!hr_npy_matches(&in_npy[i], &m.inputs[i], err, sizeof err))
      die("%s: %s", o.inputs[i], err);

  /* Without a GPU everything above still ran: arguments, manifest, bundle and inputs are
   * checked before the skip. */
  int ndev = 0;
  hipError_t e = hipGetDeviceCount(&ndev);
  if (e != hipSuccess || ndev == 0 || o.device >= ndev) {
    fprintf(stderr, "tosac-hip-run: no usable HIP device (%s, %d device%s); nothing was run\n",
            e != hipSuccess ? hipGetErrorString(e) : "hipGetDeviceCount succeeded", ndev,
            ndev == 1 ? "" : "s");
    for (int i = 0; i < o.ninputs; i++)
      free(in_files[i]);
    free(wdata);
    free(wpath);
    free(entries);
    free(bundle);
    hr_manifest_free(&m);
    free(mtext);
    free(mpath);
    return EXIT_SKIP;
  }
  HIP_CHECK(hipSetDevice(o.device));
  hipDeviceProp_t prop;
  HIP_CHECK(hipGetDeviceProperties(&prop, o.device));
  int ti = hr_select_target(&m, prop.gcnArchName);
  if (ti < 0)
    die("no target in the manifest runs on this device (%s%s)", prop.gcnArchName,
        "; compile with --offload-arch for it");
  const hr_target *t = &m.targets[ti];
  const bnd_entry *co = NULL;
  for (int i = 0; i < nentries; i++)
    if (!strcmp(entries[i].id, t->bundle_entry_id))
      co = &entries[i];
  if (!co)
    die("the bundle has no entry %s%s", t->bundle_entry_id, "");
  fprintf(stderr, "tosac-hip-run: device %d %s: target %s\n", o.device, prop.gcnArchName,
          t->target_id);

  /* The whole bundle, uncompressed: HIP's loader picks the entry for the device (the same
   * target-ID rule as hr_select_target), and a runtime that needs more than the code object
   * finds it beside it (libtosac-hipemu with TOSAC_HIPEMU_EXEC=ir runs the --embed-ir kernel
   * IR). A CCOB bundle is decompressed here because ROCm 5.x cannot read one. */
  size_t isize = bsize;
  void *image = NULL;
  if (bsize >= 4 && !memcmp(bundle, "CCOB", 4)) {
    image = bnd_decompress(bundle, bsize, &isize, NULL, err, sizeof err);
    if (!image)
      die("%s: %s", o.bundle, err);
  } else {
    image = malloc(bsize); /* a copy, suitably aligned */
    memcpy(image, bundle, bsize);
  }
  hipModule_t mod;
  HIP_CHECK(hipModuleLoadData(&mod, image));
  hipFunction_t *fn = calloc((size_t)t->nkernels + 1, sizeof *fn);
  for (int k = 0; k < t->nkernels; k++)
    HIP_CHECK(hipModuleGetFunction(&fn[k], mod, t->kernels[k].name));

  /* Device memory: one allocation per input and output, one workspace, one weights buffer. */
  uint64_t in_addr[MAX_FILES] = {0}, out_addr[MAX_FILES] = {0}, ws = 0, weights = 0;
  for (int i = 0; i < m.ninputs; i++) {
    void *p;
    HIP_CHECK(hipMalloc(&p, (size_t)m.inputs[i].bytes + 1));
    HIP_CHECK(hipMemcpyHtoD(p, (void *)in_npy[i].data, (size_t)m.inputs[i].bytes));
    in_addr[i] = (uint64_t)(uintptr_t)p;
  }
  for (int i = 0; i < m.noutputs && i < MAX_FILES; i++) {
    void *p;
    HIP_CHECK(hipMalloc(&p, (size_t)m.outputs[i].bytes + 1));
    out_addr[i] = (uint64_t)(uintptr_t)p;
  }
  if (t->workspace_bytes) {
    void *p;
    HIP_CHECK(hipMalloc(&p, (size_t)t->workspace_bytes)); /* >= 256-byte aligned */
    /* the zeroed region (split-K arrival counters): zero once, every run leaves it zero */
    if (t->workspace_zeroed)
      HIP_CHECK(hipMemset(p, 0, (size_t)t->workspace_zeroed));
    ws = (uint64_t)(uintptr_t)p;
  }
  if (m.weights_bytes) {
    void *p;
    HIP_CHECK(hipMalloc(&p, wsize));
    HIP_CHECK(hipMemcpyHtoD(p, wdata, wsize));
    weights = (uint64_t)(uintptr_t)p;
    free(wdata);
    free(wpath);
  }
  uint64_t *addr = calloc((size_t)t->nbuffers + 1, sizeof *addr);
  hr_buffer_addresses(t, in_addr, out_addr, ws, weights, addr);

  /* Streams and events: launch i runs on stream[i] after waiting for the done events of its
   * deps on other streams; kernels are bracketed by timing events. */
  int *stream = calloc((size_t)t->nlaunches + 1, sizeof *stream);
  hr_schedule(t, o.streams, stream);
  hipStream_t streams[16];
  for (int s = 0; s < o.streams; s++)
    HIP_CHECK(hipStreamCreate(&streams[s]));
  hipEvent_t *done = calloc((size_t)t->nlaunches + 1, sizeof *done);
  hipEvent_t *start = calloc((size_t)t->nlaunches + 1, sizeof *start);
  for (int n = 0; n < t->nlaunches; n++) {
    HIP_CHECK(hipEventCreate(&done[n]));
    HIP_CHECK(hipEventCreate(&start[n]));
  }
  bool *ran = calloc((size_t)t->nlaunches + 1, sizeof *ran);
  bool *cond = calloc((size_t)t->nlaunches + 1, sizeof *cond);
  hip_graph g = {t, addr, fn, streams, stream, start, done, ran, cond, 0};
  if (!hr_max_iterations(getenv("TOSAC_MAX_ITERATIONS"), &g.max_iterations))
    die("TOSAC_MAX_ITERATIONS: '%s' is not a positive count%s", getenv("TOSAC_MAX_ITERATIONS"), "");
  run_list(&g, t->order, t->norder);
  for (int s = 0; s < o.streams; s++)
    HIP_CHECK(hipStreamSynchronize(streams[s]));
  for (int n = 0; n < t->nlaunches; n++) {
    const hr_launch *l = &t->launches[n];
    if (l->kind != HR_KERNEL || !ran[n])
      continue; /* in a branch not taken or a loop run zero times; else its last run */
    float ms = 0;
    HIP_CHECK(hipEventElapsedTime(&ms, start[n], done[n]));
    printf("kernel %s: %.3f ms\n", t->kernels[l->kernel].name, ms);
  }
  for (int i = 0; i < o.noutputs && i < m.noutputs; i++) {
    size_t bytes = (size_t)m.outputs[i].bytes, fsize;
    void *host = malloc(bytes + 1);
    HIP_CHECK(hipMemcpyDtoH(host, (void *)(uintptr_t)out_addr[i], bytes));
    uint8_t *f = hr_npy_encode(&m.outputs[i], host, &fsize);
    if (!write_file_atomic(o.outputs[i], f, fsize, err, sizeof err))
      die("%s%s", err, "");
    free(f);
    free(host);
  }
  /* Everything is released (not left to exit) so that leak checking stays meaningful. */
  for (int n = 0; n < t->nlaunches; n++) {
    HIP_CHECK(hipEventDestroy(done[n]));
    HIP_CHECK(hipEventDestroy(start[n]));
  }
  for (int s = 0; s < o.streams; s++)
    HIP_CHECK(hipStreamDestroy(streams[s]));
  for (int i = 0; i < m.ninputs; i++)
    HIP_CHECK(hipFree((void *)(uintptr_t)in_addr[i]));
  for (int i = 0; i < m.noutputs && i < MAX_FILES; i++)
    HIP_CHECK(hipFree((void *)(uintptr_t)out_addr[i]));
  if (ws)
    HIP_CHECK(hipFree((void *)(uintptr_t)ws));
  if (weights)
    HIP_CHECK(hipFree((void *)(uintptr_t)weights));
  HIP_CHECK(hipModuleUnload(mod));
  free(done);
  free(start);
  free(ran);
  free(cond);
  free(stream);
  free(addr);
  free(fn);
  free(image);
  for (int i = 0; i < o.ninputs; i++)
    free(in_files[i]);
  free(entries);
  free(bundle);
  hr_manifest_free(&m);
  free(mtext);
  free(mpath);
  return 0;
}
