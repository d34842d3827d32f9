/* main.c: the tosac driver: options, then the stages in the order of DESIGN.md §1. */
#include "tosac.h"

#include <getopt.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define MAX_TARGETS 32

typedef enum emit_kind { EMIT_BUNDLE, EMIT_LLVM, EMIT_ASM, EMIT_PARTITIONS, EMIT_DOT, EMIT_TOSA } emit_kind;

typedef struct options {
  const char *input;
  const char *output;
  const char *manifest;
  const char *weights; /* --weights; default: bundle stem + .weights */
  const char *entry;
  const char *depfile;    /* -MF, or derived from the bundle name with -MD */
  const char *dep_target; /* -MT */
  bool write_depfile;     /* -MD or -MF */
  int jobs;
  emit_kind emit;
  bool syntax_only, embed_ir, verbose;
  bool time_report; /* --time-report */
  int compress;     /* --compress[=v2|v3]: CCOB version, 0 = uncompressed */
  const char *perf_config; /* --perf-config: GEMM tile parameters (docs/gemm.md) */
  part_init_mode init;     /* --init: fill nodes (memset) or init kernels */
  int opt_level, code_object_version;
  int ntargets;
  target_request targets[MAX_TARGETS];
} options;

static const char *usage_text =
    "usage: tosac [options] <input.mlir | ->\n"
    "\n"
    "Compiles a TOSA graph into an AMDGPU offload bundle and a JSON launch manifest.\n"
    "\n"
    "options:\n"
    "  -o FILE                  bundle to write (default: input stem + .hipfb)\n"
    "  --manifest FILE          manifest to write (default: bundle stem + .json)\n"
    "  --weights FILE           weights file for large constants (default: bundle stem +\n"
    "                           .weights; written only when the graph has such constants)\n"
    "  --offload-arch=ID[,ID]   targets, repeatable; IDs like gfx90a or gfx90a:sramecc+:xnack-\n"
    "                           (default: every target --print-targets marks as default)\n"
    "  --emit=KIND              bundle (default), llvm, asm, partitions, dot (Graphviz),\n"
    "                           tosa (the graph as canonical TOSA 1.0 MLIR);\n"
    "                           all but bundle print to -o FILE or standard output\n"
    "  --entry NAME             function to compile (default: the single public one)\n"
    "  --syntax-only            parse and verify only\n"
    "  --embed-ir               store each target's optimised kernel IR in the bundle (for\n"
    "                           tosac-run)\n"
    "  -O0 -O1 -O2 -O3          LLVM optimisation level (default -O3)\n"
    "  --perf-config=STRING     GEMM tile parameters, e.g. bm=128,bn=128,bk=32,wm=64,wn=64,mma=32\n"
    "  --init=memset|kernel     initialise accumulated outputs with fill nodes in the launch\n"
    "                           graph (default) or with generated init kernels\n"
    "  -j N                     code generation threads; the kernels of every target are\n"
    "                           compiled in parallel (default: number of cores)\n"
    "  -MD                      also write a Make depfile (bundle stem + .d)\n"
    "  -MF FILE                 write the depfile to FILE\n"
    "  -MT TARGET               name TARGET as the depfile's target (default: bundle and\n"
    "                           manifest)\n"
    "  --code-object-version=N  4, 5 or 6 (default 5)\n"
    "  --print-targets          list the known targets and exit\n"
    "  -v                       print the stages and their timings\n"
    "  --time-report            print a table of per-stage and per-target times to stderr\n"
    "  --compress[=v2|v3]       write a zstd-compressed (CCOB) bundle, version 2 by default\n"
    "                           (HIP runtimes from ROCm 6.x; ROCm 5.x cannot read it)\n"
    "  --version                print the version and exit\n"
    "  --help                   print this help and exit\n"
    "\n"
    "exit status: 0 success, 1 input or compile error, 2 usage error\n";

static int default_jobs(void) {
  long n = sysconf(_SC_NPROCESSORS_ONLN);
  return n < 1 ? 1 : n > 64 ? 64 : (int)n;
}

static int usage_error(const char *fmt, const char *arg) {
  fputs("tosac: error: ", stderr);
  fprintf(stderr, fmt, arg);
  fputs("\ntry 'tosac --help' for more information\n", stderr);
  return 2;
}

static double now_ms(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

/* Driver stages as they finish, and each target's cg_compile stages, for --time-report. */
static struct { const char *what; double ms; } stage_times[8];
static int nstage_times;
static double target_times[MAX_TARGETS][CG_STAGE_COUNT];

static void stage_done(const options *o, const char *what, double *t0) {
  double t = now_ms();
  if (nstage_times < (int)(sizeof stage_times / sizeof stage_times[0]))
    stage_times[nstage_times].what = what, stage_times[nstage_times++].ms = t - *t0;
  if (o->verbose)
    fprintf(stderr, "tosac: %-28s %8.1f ms\n", what, t - *t0);
  *t0 = t;
}

static int add_targets(options *o, const char *list) {
  char *copy = strdup(list);
  int rc = 0;
  for (char *save = NULL, *tok = strtok_r(copy, ",", &save); tok && !rc;
       tok = strtok_r(NULL, ",", &save)) {
    char err[512];
    target_request t;
    if (!target_parse(tok, &t, err, sizeof err)) {
      rc = usage_error("%s", err);
      break;
    }
    bool dup = false;
    for (int i = 0; i < o->ntargets; i++)
      dup |= strcmp(o->targets[i].id, t.id) == 0;
    if (dup)
      continue;
    if (o->ntargets == MAX_TARGETS) {
      rc = usage_error("too many targets (at most %s)", "32");
      break;
    }
    o->targets[o->ntargets++] = t;
  }
  if (!copy || (!rc && !*list))
    rc = usage_error("%s", "--offload-arch needs at least one target");
  free(copy);
  return rc;
}

static void print_targets(void) {
  printf("%-8s %-6s %-5s %-9s %-8s %s\n", "target", "family", "wave", "LDS", "matrix", "default");
  for (int i = 0; i < target_count; i++) {
    const target_info *t = &target_table[i];
    printf("%-8s %-6s %-5d %-9d %-8s %s\n", t->name, t->family, t->wave_size, t->lds_bytes,
           t->has_mfma ? "mfma" : t->has_wmma ? "wmma" : "none", t->default_target ? "yes" : "no");
  }
}

static int parse_options(int argc, char **argv, options *o) {
  enum { OPT_MANIFEST = 256, OPT_WEIGHTS, OPT_MD, OPT_MF, OPT_MT, OPT_ARCH, OPT_EMIT, OPT_ENTRY, OPT_SYNTAX, OPT_EMBED, OPT_COV,
         OPT_TIME_REPORT, OPT_COMPRESS, OPT_PRINT_TARGETS, OPT_VERSION, OPT_HELP, OPT_PERF_CONFIG, OPT_INIT };
  static const struct option longopts[] = {
      {"manifest", required_argument, 0, OPT_MANIFEST},
      {"weights", required_argument, 0, OPT_WEIGHTS},
      {"MD", no_argument, 0, OPT_MD},
      {"MF", required_argument, 0, OPT_MF},
      {"MT", required_argument, 0, OPT_MT},
      {"offload-arch", required_argument, 0, OPT_ARCH},
      {"emit", required_argument, 0, OPT_EMIT},
      {"entry", required_argument, 0, OPT_ENTRY},
      {"syntax-only", no_argument, 0, OPT_SYNTAX},
      {"embed-ir", no_argument, 0, OPT_EMBED},
      {"perf-config", required_argument, 0, OPT_PERF_CONFIG},
      {"init", required_argument, 0, OPT_INIT},
      {"code-object-version", required_argument, 0, OPT_COV},
      {"print-targets", no_argument, 0, OPT_PRINT_TARGETS},
      {"time-report", no_argument, 0, OPT_TIME_REPORT},
      {"compress", optional_argument, 0, OPT_COMPRESS},
      {"version", no_argument, 0, OPT_VERSION},
      {"help", no_argument, 0, OPT_HELP},
      {0, 0, 0, 0}};
  *o = (options){.opt_level = 3, .code_object_version = 5, .jobs = default_jobs()};
  opterr = 0;
  int c, rc;
  while ((c = getopt_long_only(argc, argv, ":o:O:j:v", longopts, NULL)) != -1) {
    switch (c) {
    case 'o': o->output = optarg; break;
    case 'v': o->verbose = true; break;
    case 'j': {
      char *end;
      long n = strtol(optarg, &end, 10);
      if (*end || n < 1 || n > 256)
        return usage_error("invalid job count '-j %s' (use 1 to 256)", optarg);
      o->jobs = (int)n;
      break;
    }
    case OPT_MD: o->write_depfile = true; break;
    case OPT_MF: o->write_depfile = true; o->depfile = optarg; break;
    case OPT_MT: o->dep_target = optarg; break;
    case 'O':
      if (strlen(optarg) != 1 || optarg[0] < '0' || optarg[0] > '3')
        return usage_error("invalid optimisation level '-O%s' (use -O0 to -O3)", optarg);
      o->opt_level = optarg[0] - '0';
      break;
    case OPT_MANIFEST: o->manifest = optarg; break;
    case OPT_WEIGHTS: o->weights = optarg; break;
    case OPT_ARCH:
      if ((rc = add_targets(o, optarg)))
        return rc;
      break;
    case OPT_EMIT:
      if (!strcmp(optarg, "bundle")) o->emit = EMIT_BUNDLE;
      else if (!strcmp(optarg, "llvm")) o->emit = EMIT_LLVM;
      else if (!strcmp(optarg, "asm")) o->emit = EMIT_ASM;
      else if (!strcmp(optarg, "partitions")) o->emit = EMIT_PARTITIONS;
      else if (!strcmp(optarg, "dot")) o->emit = EMIT_DOT;
      else if (!strcmp(optarg, "tosa")) o->emit = EMIT_TOSA;
      else
        return usage_error("unknown --emit kind '%s' (use bundle, llvm, asm, partitions, dot or tosa)", optarg);
      break;
    case OPT_ENTRY: o->entry = optarg; break;
    case OPT_SYNTAX: o->syntax_only = true; break;
    case OPT_EMBED: o->embed_ir = true; break;
    case OPT_PERF_CONFIG: o->perf_config = optarg; break;
    case OPT_INIT:
      if (!strcmp(optarg, "memset")) o->init = PART_INIT_MEMSET;
      else if (!strcmp(optarg, "kernel")) o->init = PART_INIT_KERNEL;
      else
        return usage_error("unknown --init mode '%s' (use memset or kernel)", optarg);
      break;
    case OPT_COV:
      if (strcmp(optarg, "4") && strcmp(optarg, "5") && strcmp(optarg, "6"))
        return usage_error("invalid code object version '%s' (use 4, 5 or 6)", optarg);
      o->code_object_version = optarg[0] - '0';
      break;
    case OPT_TIME_REPORT: o->time_report = true; break;
    case OPT_COMPRESS:
      if (!optarg || !strcmp(optarg, "v2")) o->compress = 2;
      else if (!strcmp(optarg, "v3")) o->compress = 3;
      else
        return usage_error("invalid --compress version '%s' (use v2 or v3)", optarg);
      break;
    case OPT_PRINT_TARGETS: print_targets(); exit(0);
    case OPT_VERSION: printf("tosac %s (LLVM 22)\n", TOSAC_VERSION); exit(0);
    case OPT_HELP: fputs(usage_text, stdout); exit(0);
    case ':': return usage_error("option '%s' needs a value", argv[optind - 1]);
    default: return usage_error("unknown option '%s'", argv[optind - 1]);
    }
  }
  if (optind == argc)
    return usage_error("%s", "no input file");
  if (optind + 1 < argc)
    return usage_error("only one input file may be given, got also '%s'", argv[optind + 1]);
  o->input = argv[optind];
  if (o->ntargets == 0)
    for (int i = 0; i < target_count; i++)
      if (target_table[i].default_target)
        add_targets(o, target_table[i].name);
  return 0;
}

/* "dir/model.mlir" -> "model" + ext; "-" -> "a" + ext. */
static char *stem_with(const char *path, const char *ext, bool keep_dir) {
  const char *base = keep_dir ? path : strrchr(path, '/');
  base = base ? (keep_dir ? base : base + 1) : path;
  if (!strcmp(path, "-"))
    base = "a";
  const char *slash = strrchr(base, '/');
  const char *dot = strrchr(slash ? slash : base, '.');
  size_t n = dot && dot != (slash ? slash + 1 : base) ? (size_t)(dot - base) : strlen(base);
  char *s = malloc(n + strlen(ext) + 1);
  memcpy(s, base, n);
  strcpy(s + n, ext);
  return s;
}

static bool write_text(const char *path, const char *text) {
  char err[512];
  if (!path) {
    fputs(text, stdout);
    return true;
  }
  if (!write_file_atomic(path, text, strlen(text), err, sizeof err)) {
    fprintf(stderr, "tosac: error: %s\n", err);
    return false;
  }
  return true;
}

/* Text outputs (--emit=llvm/asm) for several targets are concatenated with a header each. */
static char *join_text(const options *o, cg_result *res, bool want_asm) {
  size_t total = 1;
  for (int i = 0; i < o->ntargets; i++) {
    const char *t = want_asm ? res[i].asm_text : res[i].llvm_ir;
    total += (t ? strlen(t) : 0) + 128;
  }
  char *s = malloc(total), *p = s;
  *p = 0;
  for (int i = 0; i < o->ntargets; i++) {
    const char *t = want_asm ? res[i].asm_text : res[i].llvm_ir;
    if (o->ntargets > 1)
      p += sprintf(p, "%s target %s\n", want_asm ? ";" : ";", o->targets[i].id);
    p += sprintf(p, "%s", t ? t : "");
  }
  return s;
}

/* Make depfile: the outputs depend on the input graph (the only file tosac reads). */
static int write_depfile(const options *o, const char *bundle, const char *manifest) {
  if (!o->write_depfile)
    return 0;
  if (!strcmp(o->input, "-")) {
    fprintf(stderr, "tosac: error: a depfile needs a named input file, not standard input\n");
    return 1;
  }
  char *path = o->depfile ? strdup(o->depfile) : stem_with(bundle, ".d", true);
  size_t n = strlen(bundle) + strlen(manifest) + strlen(o->input) +
             (o->dep_target ? strlen(o->dep_target) : 0) + 16;
  char *text = malloc(n);
  if (o->dep_target)
    snprintf(text, n, "%s: %s\n", o->dep_target, o->input);
  else
    snprintf(text, n, "%s %s: %s\n", bundle, manifest, o->input);
  char err[512];
  int rc = 0;
  if (!write_file_atomic(path, text, strlen(text), err, sizeof err)) {
    fprintf(stderr, "tosac: error: %s\n", err);
    rc = 1;
  }
  free(text);
  free(path);
  return rc;
}

/* The manifest names the weights file relative to its own directory, so the three files can
 * move together; a weights file elsewhere is named by its absolute path. */
static char *path_from_manifest(const char *manifest, const char *file) {
  const char *ms = strrchr(manifest, '/'), *fs = strrchr(file, '/');
  size_t md = ms ? (size_t)(ms - manifest) : 0, fd = fs ? (size_t)(fs - file) : 0;
  if (md == fd && strncmp(manifest, file, md) == 0)
    return strdup(fs ? fs + 1 : file);
  if (file[0] == '/')
    return strdup(file);
  char *dir = fs ? strndup(file, fd) : strdup(".");
  char *real = realpath(dir, NULL);
  free(dir);
  if (!real)
    return strdup(file);
  size_t n = strlen(real) + strlen(fs ? fs : file) + 2;
  char *out = malloc(n);
  snprintf(out, n, "%s/%s", real, fs ? fs + 1 : file);
  free(real);
  return out;
}

/* Replace the bundle by its CCOB form (frees the original); NULL after reporting an error. */
static uint8_t *compress_bundle(const options *o, uint8_t *bundle, size_t *size) {
  char err[512];
  size_t csize = 0;
  uint8_t *c = bnd_compress(bundle, *size, o->compress, &csize, err, sizeof err);
  if (!c)
    fprintf(stderr, "tosac: error: %s\n", err);
  else if (o->verbose)
    fprintf(stderr, "tosac: compressed the bundle (CCOB v%d) from %zu to %zu bytes\n",
            o->compress, *size, csize);
  free(bundle);
  *size = csize;
  return c;
}

/* --time-report: wall time of the driver's stages, then each target's codegen stages: the sum
 * of the wall times its work items spent in each stage on their threads (with -j they run in
 * parallel, so the targets' sum may exceed the codegen wall time). */
static void print_time_report(const options *o, bool codegen_ran) {
  static const char *const cg_names[CG_STAGE_COUNT] = {
      [CG_STAGE_IR] = "IR build", [CG_STAGE_OPT] = "optimise", [CG_STAGE_EMIT] = "codegen",
      [CG_STAGE_LINK] = "link", [CG_STAGE_META] = "metadata"};
  double total = 0;
  fputs("tosac: time report (ms, wall clock)\n", stderr);
  fprintf(stderr, "  %-28s %10s\n", "stage", "ms");
  for (int i = 0; i < nstage_times; i++) {
    fprintf(stderr, "  %-28s %10.2f\n", stage_times[i].what, stage_times[i].ms);
    total += stage_times[i].ms;
  }
  fprintf(stderr, "  %-28s %10.2f\n", "total", total);
  if (!codegen_ran)
    return;
  fprintf(stderr, "  %-28s", "target");
  for (int s = 0; s < CG_STAGE_COUNT; s++)
    fprintf(stderr, " %10s", cg_names[s]);
  fprintf(stderr, " %10s\n", "total");
  for (int i = 0; i < o->ntargets; i++) {
    double sum = 0;
    fprintf(stderr, "  %-28s", o->targets[i].id);
    for (int s = 0; s < CG_STAGE_COUNT; s++) {
      fprintf(stderr, " %10.2f", target_times[i][s]);
      sum += target_times[i][s];
    }
    fprintf(stderr, " %10.2f\n", sum);
  }
}

static int cmp_piece(const void *a, const void *b) {
  const file_piece *x = a, *y = b;
  return x->offset < y->offset ? -1 : x->offset > y->offset;
}

/* The weights file as pieces written straight from the decoded constants, so the constant
 * bytes are never copied into a second image (part_weights_image's layout: non-splats copied
 * up to the buffer size, splats repeated whole elements). NULL when pieces overlap, where the
 * image keeps the last writer's bytes. */
static file_piece *weight_pieces(const partition_plan *p, int *n) {
  file_piece *v = malloc(sizeof *v * (size_t)(p->nbuffers + 1));
  int k = 0;
  for (int i = 0; v && i < p->nbuffers; i++) {
    const part_buffer *bf = &p->buffers[i];
    const attr *a = bf->kind == BUF_CONSTANT ? op_attr(bf->v->def, "values") : NULL;
    if (!a || a->kind != ATTR_DENSE || !a->dense)
      continue;
    const dense_data *dd = a->dense;
    size_t room = (size_t)bf->bytes, es = dd->nbytes;
    size_t span = dd->splat ? (es ? room / es * es : 0) : (es < room ? es : room);
    if (span)
      v[k++] = (file_piece){(size_t)bf->offset, span, dd->bytes, dd->splat ? es : span};
  }
  if (v && k > 1)
    qsort(v, (size_t)k, sizeof *v, cmp_piece);
  for (int i = 1; v && i < k; i++) {
    if (v[i].offset < v[i - 1].offset + v[i - 1].span) {
      free(v);
      return NULL;
    }
  }
  *n = k;
  return v;
}

/* The weights file from pieces, or through part_weights_image when they overlap, staged
 * (commit_staged puts it in place); digest receives the digest of the bytes written (the
 * manifest's digests.weights). */
static staged_file *stage_weights(const partition_plan *p, const char *path, char *digest,
                                  char *err, size_t errsize) {
  int n = 0;
  file_piece *pieces = weight_pieces(p, &n);
  if (pieces) {
    staged_file *f = NULL;
    if (bnd_digest_pieces((size_t)p->weights_bytes, pieces, n, digest))
      f = stage_file_pieces(path, (size_t)p->weights_bytes, pieces, n, err, errsize);
    else
      snprintf(err, errsize, "cannot write '%s': overlapping constants", path);
    free(pieces);
    return f;
  }
  size_t size = 0;
  uint8_t *img = part_weights_image(p, &size);
  if (img)
    bnd_digest(img, size, digest);
  staged_file *f = img ? stage_file(path, img, size, err, errsize) : NULL;
  if (!img)
    snprintf(err, errsize, "out of memory building the weights file");
  free(img);
  return f;
}

static int write_bundle(const options *o, const graph *g, const partition_plan **plans,
                        cg_result *res, const cg_options *cgo) {
  bnd_entry entries[1 + 2 * MAX_TARGETS];
  int n = 0;
  entries[n++] = (bnd_entry){.id = BND_HOST_ID, .data = NULL, .size = 0};
  for (int i = 0; i < o->ntargets; i++) {
    bnd_code_object_id(&o->targets[i], entries[n].id, sizeof entries[n].id);
    entries[n].data = res[i].code_object;
    entries[n++].size = res[i].code_size;
  }
  for (int i = 0; o->embed_ir && i < o->ntargets; i++) {
    bnd_bitcode_id(&o->targets[i], entries[n].id, sizeof entries[n].id);
    entries[n].data = res[i].bitcode;
    entries[n++].size = res[i].bitcode_size;
  }
  char *out = o->output ? strdup(o->output) : stem_with(o->input, ".hipfb", false);
  char *man = o->manifest ? strdup(o->manifest) : stem_with(out, ".json", true);
  size_t size = 0, wsize = 0;
  uint8_t *bundle = bnd_build(entries, n, BND_ALIGN, &size);
  if (bundle && o->compress)
    bundle = compress_bundle(o, bundle, &size);
  /* Every target's plan places the constants identically; the first one writes the file. */
  bool weights = plans[0]->weights_bytes > 0;
  wsize = weights ? (size_t)plans[0]->weights_bytes : 0;
  char *wpath = !weights ? NULL : o->weights ? strdup(o->weights) : stem_with(out, ".weights", true);
  char *wrel = wpath ? path_from_manifest(man, wpath) : NULL;
  /* The three files are staged in full (weights, bundle, then the manifest holding the digests
   * of the other two's bytes, bundle/digest.c) and renamed into place only when all of them
   * were written: a full disk or a read-only directory leaves every old output untouched. */
  char err[512] = "", bdigest[BND_DIGEST_SIZE] = "", wdigest[BND_DIGEST_SIZE] = "";
  staged_file *st[3] = {0};
  int ns = 0;
  bool ok = !weights || (st[ns++] = stage_weights(plans[0], wpath, wdigest, err, sizeof err));
  if (bundle)
    bnd_digest(bundle, size, bdigest);
  bnd_manifest_input mi = {.g = g, .source_path = o->input, .bundle_path = out,
                           .ntargets = o->ntargets, .targets = o->targets, .plans = plans,
                           .results = res, .cg = cgo, .weights_path = wrel,
                           .weights_bytes = (int64_t)wsize, .bundle_digest = bdigest,
                           .weights_digest = wdigest};
  char *json = bundle && ok ? bnd_manifest_json(&mi) : NULL;
  int rc = 0;
  if (ok && (!bundle || !json)) {
    discard_staged(st, ns);
    fprintf(stderr, "tosac: error: cannot build the bundle and manifest\n");
    rc = 1;
  } else if (!ok || !(st[ns++] = stage_file(out, bundle, size, err, sizeof err)) ||
             !(st[ns++] = stage_file(man, json, strlen(json), err, sizeof err)) ||
             !commit_staged(st, ns, err, sizeof err)) {
    discard_staged(st, ns);
    fprintf(stderr, "tosac: error: %s\n", err);
    rc = 1;
  } else {
    rc = write_depfile(o, out, man);
    if (!rc && o->verbose)
      fprintf(stderr, "tosac: wrote %s (%zu bytes) and %s\n", out, size, man);
  }
  free(bundle);
  free(json);
  free(wpath);
  free(wrel);
  free(out);
  free(man);
  return rc;
}

/* Work items (chunks of kernels, of every target) compile in parallel threads inside
 * cg_compile_targets; each target's diagnostics come back as text, printed in target order so
 * output does not depend on timing. */
static bool codegen_all(const options *o, const graph *g, const partition_plan **plans,
                        const cg_options *cgo, cg_result *res) {
  char *diag[MAX_TARGETS];
  bool ok = cg_compile_targets(g, plans, o->ntargets, cgo, o->jobs, isatty(STDERR_FILENO), res,
                               diag);
  for (int i = 0; i < o->ntargets; i++) {
    memcpy(target_times[i], res[i].time_ms, sizeof target_times[i]);
    if (diag[i])
      fputs(diag[i], stderr);
    free(diag[i]);
    double ms = 0;
    for (int s = 0; s < CG_STAGE_COUNT; s++)
      ms += res[i].time_ms[s];
    if (o->verbose)
      fprintf(stderr, "tosac: codegen %-19s %8.1f ms in %d work item%s\n", o->targets[i].id, ms,
              res[i].work_items, res[i].work_items == 1 ? "" : "s");
  }
  return ok;
}

static int compile(const options *o, const graph *g, arena *a, diag_sink *d, double *t0) {
  const partition_plan *plans[MAX_TARGETS];
  part_set_init_mode(o->init);
  cg_gemm_set_perf_config(o->perf_config); /* the split-K cost model sees the same tiles */
  for (int i = 0; i < o->ntargets; i++) {
    plans[i] = part_plan(a, g, &o->targets[i], d);
    if (!plans[i])
      return 1;
  }
  stage_done(o, "partition", t0);
  if (o->emit == EMIT_PARTITIONS || o->emit == EMIT_DOT) {
    FILE *f = stdout;
    char *buf = NULL;
    size_t len = 0;
    if (o->output)
      f = open_memstream(&buf, &len);
    for (int i = 0; i < o->ntargets; i++)
      (o->emit == EMIT_DOT ? part_print_dot : part_print)(f, g, plans[i]);
    if (o->output) {
      fclose(f);
      bool ok = write_text(o->output, buf);
      free(buf);
      return ok ? 0 : 1;
    }
    return 0;
  }
  cg_options cgo = {.opt_level = o->opt_level, .code_object_version = o->code_object_version,
                    .embed_ir = o->embed_ir, .want_llvm_ir = o->emit == EMIT_LLVM,
                    .want_asm = o->emit == EMIT_ASM, .perf_config = o->perf_config};
  cg_gemm_set_perf_config(o->perf_config);
  cg_result res[MAX_TARGETS] = {0};
  cg_init();
  int rc = codegen_all(o, g, plans, &cgo, res) ? 0 : 1;
  stage_done(o, "codegen (all targets)", t0);
  if (!rc && (o->emit == EMIT_LLVM || o->emit == EMIT_ASM)) {
    char *text = join_text(o, res, o->emit == EMIT_ASM);
    rc = write_text(o->output, text) ? 0 : 1;
    free(text);
  } else if (!rc) {
    rc = write_bundle(o, g, plans, res, &cgo);
    stage_done(o, "bundle and manifest", t0);
  }
  for (int i = 0; i < o->ntargets; i++)
    cg_result_free(&res[i]);
  return rc;
}

int main(int argc, char **argv) {
  options o;
  int rc = parse_options(argc, argv, &o);
  if (rc)
    return rc;
  double t0 = now_ms();
  char err[512];
  size_t len = 0;
  bool mapped = false;
  char *text = source_load(o.input, &len, &mapped, err, sizeof err);
  if (!text) {
    fprintf(stderr, "tosac: error: %s\n", err);
    return 1;
  }
  source_file src = {.path = strcmp(o.input, "-") ? o.input : "<stdin>", .text = text, .len = len,
                     .mapped = mapped};
  diag_sink d;
  diag_init(&d, stderr);
  arena *a = arena_new();
  fe_options fo = {.entry = o.entry};
  graph *g = fe_parse(a, &src, &fo, &d);
  stage_done(&o, "parse and verify", &t0);
  if (!g || d.errors)
    rc = 1;
  else if (o.emit == EMIT_TOSA && !o.syntax_only) { /* the graph as canonical TOSA 1.0 */
    FILE *f = o.output && strcmp(o.output, "-") ? fopen(o.output, "w") : stdout;
    if (!f) fprintf(stderr, "tosac: error: cannot write %s\n", o.output), rc = 1;
    else fe_print_tosa(f, g), rc = f != stdout ? (fclose(f) ? 1 : 0) : (fflush(f) ? 1 : 0);
  } else if (!o.syntax_only)
    rc = compile(&o, g, a, &d, &t0);
  if (!rc && d.errors)
    rc = 1;
  if (o.time_report)
    print_time_report(&o, nstage_times > 2);
  arena_free(a);
  source_unload(text, len, mapped);
  return rc;
}
