/* main.c: tosac-tune: for every distinct GEMM-family kernel of a graph and every requested
 * target, compile the kernel with each valid perf-config, score the code object with the static
 * model of "tosac-bundle quality", and write the best configuration per (target, problem key)
 * as a tuning database for tosac --tuning-db (docs/gemm.md "Tuning database"). */
#include "codegen/gemm.h"
#include "../tosac-bundle/quality.h"

#include <getopt.h>
#include <math.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static const char *usage_text =
    "usage: tosac-tune INPUT.mlir [--offload-arch=ID[,ID...]] [-o FILE] [-j N] [--entry NAME]\n"
    "                  [--mca] [-v]\n"
    "\n"
    "Writes a tuning database for tosac --tuning-db: one line per target and distinct GEMM or\n"
    "convolution problem of the graph, 'target<TAB>problem key<TAB>perf-config<TAB>score',\n"
    "sorted, the best of every valid perf-config by the static model of tosac-bundle quality\n"
    "(score: estimated share of the roofline, 0..1). Deterministic; mergeable with sort -u.\n"
    "  --offload-arch=ID  targets, repeatable (default: the default targets)\n"
    "  -o FILE            the database (default: standard output)\n"
    "  -j N               compile threads (default: the number of cores)\n"
    "  --entry NAME       tune only this function (default: every public function)\n"
    "  --mca              score gfx9 loops with llvm-mca-22 instead of the in-order issue model\n"
    "                     (slower; a run that times out falls back, so not deterministic)\n"
    "  -v                 print the number of configurations per problem\n"
    "\n"
    "exit status: 0 success, 1 input or compile error, 2 usage error\n";

/* One (target, problem) to tune, and the candidates compiled for it. */
typedef struct problem {
  int target;                 /* index into the requested targets */
  const graph *g;             /* the entry function's graph the kernel comes from */
  const part_kernel *kernel;  /* a kernel with this problem */
  const partition_plan *plan;
  char key[160];
  char **configs;
  tb_score *scores;
  bool *ok;
  int nconfigs;
} problem;

typedef struct tuner {
  target_request *targets;
  problem *problems;
  int nproblems;
  tb_quality_options qo;
  /* work queue over (problem, config) pairs */
  pthread_mutex_t lock;
  int next_p, next_c, done, total;
  bool progress, verbose;
} tuner;

static void add_config(problem *p, const char *cfg) {
  for (int i = 0; i < p->nconfigs; i++)
    if (strcmp(p->configs[i], cfg) == 0)
      return;
  p->configs = realloc(p->configs, sizeof(char *) * (size_t)(p->nconfigs + 1));
  p->configs[p->nconfigs++] = strdup(cfg);
}

typedef struct tile_ctx {
  const target_info *t;
  const gemm_problem *pb;
  problem *p;
} tile_ctx;

/* A tile of cg_tune_each_tile's range as a perf-config, when the tile rules accept it. */
static void add_tile(void *ctx, const gemm_mma *m0, const gemm_params *c) {
  tile_ctx *tc = ctx;
  char cfg[160], err[256];
  gemm_params P;
  gemm_mma mm;
  snprintf(cfg, sizeof cfg, "bm=%d,bn=%d,bk=%d,wm=%d,wn=%d%s", c->bm, c->bn, c->bk, c->wm, c->wn,
           m0->row && m0->m == 16 ? ",mma=16" : "");
  if (gemm_params_choose(tc->t, tc->pb, cfg, &P, &mm, err, sizeof err))
    add_config(tc->p, cfg);
}

/* Every perf-config the tile rules accept for this problem, within a sensible range: wave tiles
 * of 1, 2 or 4 instruction tiles per side up to 128, 1, 2 or 4 waves per side (at most 8), K
 * tiles of 32 and 64 bytes, each matrix instruction shape of the target; plus the heuristic's
 * own choice. */
static void enumerate(const target_info *t, const gemm_problem *pb, problem *p) {
  char err[256], cfg[160];
  gemm_params P;
  gemm_mma mm;
  if (cg_tune_heuristic(t, pb, cfg, sizeof cfg)) {
    add_config(p, cfg);
  } else if (gemm_params_choose(t, pb, NULL, &P, &mm, err, sizeof err)) {
    snprintf(cfg, sizeof cfg, "bm=%d,bn=%d,bk=%d,wm=%d,wn=%d", P.bm, P.bn, P.bk, P.wm, P.wn);
    add_config(p, cfg);
  }
  /* the skinny-GEMM kernel where the problem has one (M <= 16) */
  const char *src;
  if (cg_tune_gemm(t, pb, "kernel=gemv", NULL, &P, &mm, &src, NULL, 0, err, sizeof err))
    add_config(p, "kernel=gemv");
  tile_ctx tc = {t, pb, p};
  cg_tune_each_tile(t, pb, add_tile, &tc);
}

/* Bytes of the kernel's buffers: the memory roofline's traffic. */
static double kernel_bytes(const partition_plan *pl, const part_kernel *k) {
  double sum = 0;
  for (int i = 0; i < k->nin; i++)
    sum += (double)pl->buffers[k->in_bufs[i]].bytes;
  for (int i = 0; i < k->nout; i++)
    sum += (double)pl->buffers[k->out_bufs[i]].bytes;
  return sum;
}

/* Compile the problem's kernel alone with cfg and score it. */
static bool score_one(tuner *T, problem *p, const char *cfg, tb_score *out) {
  partition_plan one = *p->plan;
  part_kernel k = *p->kernel;
  k.reuses = 0;
  one.kernels = &k;
  one.nkernels = 1;
  cg_options opt = {.opt_level = 3, .code_object_version = 5, .perf_config = cfg};
  cg_result r = {0};
  diag_sink d;
  FILE *sink = fopen("/dev/null", "w");
  diag_init(&d, sink);
  bool ok = cg_compile(p->g, &one, &opt, &r, &d) && !d.errors && r.nkernels == 1;
  fclose(sink);
  if (ok) {
    cJSON *tun = cJSON_Parse(r.kernels[0].tuning);
    tb_gemm_desc desc;
    char err[300];
    ok = tun && tb_gemm_desc_from_json(tun, r.kernels[0].matrix_instruction,
                                       kernel_bytes(p->plan, p->kernel), &desc) &&
         tb_kernel_score(T->targets[p->target].info, r.code_object, r.code_size,
                         r.kernels[0].name, &desc, &T->qo, out, err, sizeof err) &&
         out->est_us > 0;
    cJSON_Delete(tun);
  }
  cg_result_free(&r);
  return ok;
}

static void *worker(void *arg) {
  tuner *T = arg;
  for (;;) {
    pthread_mutex_lock(&T->lock);
    while (T->next_p < T->nproblems && T->next_c >= T->problems[T->next_p].nconfigs)
      T->next_p++, T->next_c = 0;
    if (T->next_p >= T->nproblems) {
      pthread_mutex_unlock(&T->lock);
      return NULL;
    }
    problem *p = &T->problems[T->next_p];
    int c = T->next_c++;
    pthread_mutex_unlock(&T->lock);
    p->ok[c] = score_one(T, p, p->configs[c], &p->scores[c]);
    pthread_mutex_lock(&T->lock);
    T->done++;
    if (T->progress)
      fprintf(stderr, "\r\033[K[%d/%d] %s %s", T->done, T->total, T->targets[p->target].info->name,
              p->key);
    pthread_mutex_unlock(&T->lock);
  }
}

/* The distinct GEMM problems of a plan (the first kernel of each key). */
static void collect(tuner *T, int ti, const graph *g, const partition_plan *pl) {
  for (int i = 0; i < pl->nkernels; i++) {
    const part_kernel *k = &pl->kernels[i];
    gemm_problem pb;
    if (k->family != KF_GEMM || !k->anchor || k->reuses ||
        (k->role != KR_PLAIN && k->role != KR_PARTIAL) ||
        !strcmp(op_table[k->anchor->kind].name, "tosa.depthwise_conv2d") ||
        !cg_gemm_problem(k->anchor, &pb))
      continue;
    char key[160];
    gemm_problem_key(&pb, key, sizeof key);
    bool seen = false;
    for (int j = 0; j < T->nproblems && !seen; j++)
      seen = T->problems[j].target == ti && !strcmp(T->problems[j].key, key);
    if (seen)
      continue;
    T->problems = realloc(T->problems, sizeof(problem) * (size_t)(T->nproblems + 1));
    problem *p = &T->problems[T->nproblems++];
    *p = (problem){.target = ti, .g = g, .kernel = k, .plan = pl};
    snprintf(p->key, sizeof p->key, "%s", key);
    enumerate(T->targets[ti].info, &pb, p);
    p->scores = calloc((size_t)p->nconfigs + 1, sizeof(tb_score));
    p->ok = calloc((size_t)p->nconfigs + 1, sizeof(bool));
    T->total += p->nconfigs;
    if (T->verbose)
      fprintf(stderr, "tosac-tune: %s %s: %d configurations\n", T->targets[ti].info->name, key,
              p->nconfigs);
  }
}

static int cmp_line(const void *a, const void *b) {
  return strcmp(*(char *const *)a, *(char *const *)b);
}

/* The best configuration of each problem (highest score; ties: the smaller estimated time, then
 * the configuration text), as sorted database lines. */
static char *database(const tuner *T) {
  char **lines = calloc((size_t)T->nproblems + 1, sizeof(char *));
  int n = 0;
  for (int i = 0; i < T->nproblems; i++) {
    const problem *p = &T->problems[i];
    int best = -1;
    for (int c = 0; c < p->nconfigs; c++) {
      if (!p->ok[c])
        continue;
      const tb_score *s = &p->scores[c], *b = best >= 0 ? &p->scores[best] : NULL;
      double rs = round(s->roofline * 1e4), rb = b ? round(b->roofline * 1e4) : -1;
      if (!b || rs > rb || (rs == rb && (s->est_us < b->est_us ||
                                         (s->est_us == b->est_us &&
                                          strcmp(p->configs[c], p->configs[best]) < 0))))
        best = c;
    }
    if (best < 0)
      continue;
    if (asprintf(&lines[n], "%s\t%s\t%s\t%.4f\n", T->targets[p->target].info->name, p->key,
                 p->configs[best], p->scores[best].roofline) > 0)
      n++;
  }
  qsort(lines, (size_t)n, sizeof(char *), cmp_line);
  size_t total = 1;
  for (int i = 0; i < n; i++)
    total += strlen(lines[i]);
  char *text = malloc(total);
  text[0] = 0;
  for (int i = 0; i < n; i++) {
    strcat(text, lines[i]);
    free(lines[i]);
  }
  free(lines);
  return text;
}

static int usage(const char *msg, const char *arg) {
  fprintf(stderr, "tosac-tune: error: ");
  fprintf(stderr, msg, arg);
  fprintf(stderr, "\ntry 'tosac-tune --help'\n");
  return 2;
}

int main(int argc, char **argv) {
  enum { OPT_ARCH = 256, OPT_ENTRY, OPT_MCA, OPT_HELP };
  static const struct option longopts[] = {{"offload-arch", required_argument, 0, OPT_ARCH},
                                           {"entry", required_argument, 0, OPT_ENTRY},
                                           {"mca", no_argument, 0, OPT_MCA},
                                           {"help", no_argument, 0, OPT_HELP},
                                           {0, 0, 0, 0}};
  tuner T = {.qo = {.use_mca = false, .mca_timeout = 20}};
  target_request targets[32];
  int ntargets = 0, ndefault = 0, jobs = (int)sysconf(_SC_NPROCESSORS_ONLN);
  const char *out = NULL, *entry = NULL;
  opterr = 0;
  int c;
  while ((c = getopt_long_only(argc, argv, ":o:j:v", longopts, NULL)) != -1) {
    switch (c) {
    case 'o': out = optarg; break;
    case 'v': T.verbose = true; break;
    case 'j': {
      char *end;
      long n = strtol(optarg, &end, 10);
      if (*end || n < 1 || n > 256)
        return usage("invalid job count '-j %s' (use 1 to 256)", optarg);
      jobs = (int)n;
      break;
    }
    case OPT_ARCH:
      for (char *s = optarg, *tok; (tok = strsep(&s, ","));) {
        char err[400];
        if (ntargets == 32)
          return usage("%s", "too many targets");
        if (!target_parse(tok, &targets[ntargets], err, sizeof err))
          return usage("%s", err);
        ntargets++;
      }
      break;
    case OPT_ENTRY: entry = optarg; break;
    case OPT_MCA: T.qo.use_mca = true; break;
    case OPT_HELP: fputs(usage_text, stdout); return 0;
    case ':': return usage("option '%s' needs a value", argv[optind - 1]);
    default: return usage("unknown option '%s'", argv[optind - 1]);
    }
  }
  if (optind + 1 != argc)
    return usage("%s", optind == argc ? "no input file" : "more than one input file");
  char terr[256];
  for (int j = 0; j < target_count && !ntargets; j++)
    if (target_table[j].default_target &&
        target_parse(target_table[j].name, &targets[ndefault], terr, sizeof terr))
      ndefault++;
  if (!ntargets)
    ntargets = ndefault;
  T.targets = targets;

  char err[512];
  source_file src = {.path = argv[optind]};
  char *text = source_load(src.path, &src.len, &src.mapped, err, sizeof err);
  if (!text) {
    fprintf(stderr, "tosac-tune: error: %s\n", err);
    return 1;
  }
  src.text = text;
  diag_sink d;
  diag_init(&d, stderr);
  arena *a = arena_new();
  /* every entry function (as tosac compiles them), or the one --entry names; a problem that
   * several share is tuned once */
  fe_options fo = {.entry = entry};
  int rc = 1;
  const char **names = NULL;
  fe_module *mod = fe_open(a, &src, &d);
  int nnames = mod && !d.errors ? fe_entry_names(mod, &fo, &names) : 0;
  if (!nnames)
    goto done;
  cg_init();
  tb_quality_init();
  for (int e = 0; e < nnames; e++) {
    fe_options one = {.entry = names[e]};
    graph *g = fe_parse_function(mod, &one);
    if (!g || d.errors)
      goto done;
    for (int i = 0; i < ntargets; i++) {
      partition_plan *pl = part_plan(a, g, &targets[i], &d);
      if (!pl || d.errors)
        goto done;
      collect(&T, i, g, pl);
    }
  }
  T.progress = isatty(2);
  pthread_mutex_init(&T.lock, NULL);
  pthread_t th[256];
  int nth = jobs < T.total ? jobs : T.total > 0 ? T.total : 1;
  for (int i = 0; i < nth; i++)
    pthread_create(&th[i], NULL, worker, &T);
  for (int i = 0; i < nth; i++)
    pthread_join(th[i], NULL);
  pthread_mutex_destroy(&T.lock);
  if (T.progress)
    fputs("\r\033[K", stderr);
  char *db = database(&T);
  if (!out || !strcmp(out, "-")) {
    fputs(db, stdout);
    rc = 0;
  } else if (write_file_atomic(out, db, strlen(db), err, sizeof err)) {
    rc = 0;
  } else {
    fprintf(stderr, "tosac-tune: error: %s\n", err);
  }
  free(db);
done:
  for (int i = 0; i < T.nproblems; i++) {
    for (int j = 0; j < T.problems[i].nconfigs; j++)
      free(T.problems[i].configs[j]);
    free(T.problems[i].configs), free(T.problems[i].scores), free(T.problems[i].ok);
  }
  free(T.problems);
  arena_free(a);
  source_unload(text, src.len, src.mapped);
  return rc;
}
