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
    "                  [--mca] [--no-prune] [--all] [--compare] [-v]\n"
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
    "  --no-prune         compile every configuration (by default, with the issue model, one\n"
    "                     whose bound on the time (its matrix instructions, the memory floor)\n"
    "                     exceeds the best time found is skipped: the same database, faster)\n"
    "  --all              write every compiled configuration with its score, time, loop cycles,\n"
    "                     loop length, registers, waves/SIMD, spills, the heuristic's estimate\n"
    "                     in us, the split-K factor and 'default' on the compiler's own choice\n"
    "                     (not a database; with --no-prune every configuration)\n"
    "  --compare          add the default choice (heuristic) and its score to each line, and the\n"
    "                     split-K factor both use (not a database; docs/bench.md)\n"
    "  -v                 print the number of configurations per problem and how many were\n"
    "                     compiled\n"
    "\n"
    "exit status: 0 success, 1 input or compile error, 2 usage error\n";

/* One (target, problem) to tune, and the candidates compiled for it. */
typedef struct problem {
  int target;                 /* index into the requested targets */
  const graph *g;             /* the entry function's graph the kernel comes from */
  const part_kernel *kernel;  /* a kernel with this problem */
  const partition_plan *plan;
  gemm_problem pb;
  char key[160];
  char **configs;
  tb_score *scores;
  bool *ok;
  int nconfigs;
  double *bound; /* a lower bound on each configuration's estimated time (us), 0: none */
  int *order;    /* the configurations by ascending bound */
  double best;   /* the best estimated time so far (us) */
  int pruned;
  bool has_default; /* configs[0] is the compiler's default choice */
} problem;

typedef struct tuner {
  target_request *targets;
  problem *problems;
  int nproblems;
  tb_quality_options qo;
  /* work queue over (problem, config) pairs */
  pthread_mutex_t lock;
  int next_p, next_c, done, total;
  bool progress, verbose, prune, all, compare;
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
  const char *src;
  /* the compiler's own choice first: the skinny kernel, the heuristic's tile or the default */
  bool gemv = cg_tune_gemm(t, pb, NULL, NULL, &P, &mm, &src, NULL, 0, err, sizeof err) && P.kwaves;
  if (gemv) {
    add_config(p, "kernel=gemv");
  } else if (cg_tune_heuristic(t, pb, cfg, sizeof cfg)) {
    add_config(p, cfg);
  } else if (gemm_params_choose(t, pb, NULL, &P, &mm, err, sizeof err)) {
    snprintf(cfg, sizeof cfg, "bm=%d,bn=%d,bk=%d,wm=%d,wn=%d", P.bm, P.bn, P.bk, P.wm, P.wn);
    add_config(p, cfg);
  }
  p->has_default = p->nconfigs == 1;
  /* the skinny-GEMM kernel where the problem has one (M <= 16) */
  if (!gemv && cg_tune_gemm(t, pb, "kernel=gemv", NULL, &P, &mm, &src, NULL, 0, err, sizeof err))
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

/* The plan's split-K factor of the problem's kernel (1: none). */
static int split_of(const problem *p) {
  return p->kernel->role == KR_PARTIAL && p->kernel->split_count > 1 ? p->kernel->split_count : 1;
}

/* A lower bound on the estimated time (us) of cfg for problem p by the issue model, from what
 * the configuration alone fixes: tb_kernel_score's rounds x K tiles x a loop that issues at least
 * its matrix instructions back to back (and at least one 4-cycle pass per MFMA, 16-byte fragment
 * read, 16-byte global load and LDS write of its K tile), with the load floor, never below moving
 * the buffers once nor one memory latency, plus split-K's combine. 0 (compile it) when there is
 * none: llvm-mca, no MFMA, the skinny kernel. */
static double config_bound(const tuner *T, const problem *p, const char *cfg) {
  const target_info *t = T->targets[p->target].info;
  gemm_params P;
  gemm_mma mm;
  char err[256];
  if (T->qo.use_mca || !t->has_mfma || strstr(cfg, "gemv") ||
      !gemm_params_choose(t, &p->pb, cfg, &P, &mm, err, sizeof err) || !mm.row)
    return 0;
  const gemm_problem *pb = &p->pb;
  double es = elem_type_bytes(pb->in), S = split_of(p);
  double waves = (double)(P.bm / P.wm) * (P.bn / P.wn), threads = waves * t->wave_size;
  double tiles = (double)pb->batch * ceil((double)pb->m / P.bm) * ceil((double)pb->n / P.bn) * S;
  double rounds = ceil(tiles * waves / ((double)t->cus * t->simds_per_cu));
  double nk = ceil((double)pb->k / P.bk);
  double nmma = (double)(P.wm / mm.m) * (P.wn / mm.n) * (P.bk / mm.k);
  double loads = ceil(P.bm * P.bk * es / (threads * 16)) + ceil(P.bn * P.bk * es / (threads * 16));
  double reads = ceil((P.wm + P.wn) * P.bk * es / (t->wave_size * 16.0));
  double per_tile = fmax(nmma * mm.row->cycles, 4 * (nmma + reads + 2 * loads));
  double bpc = (double)t->mem_gbps * 1e3 / t->clock_mhz, out4 = 4.0 * pb->batch * pb->m * pb->n;
  /* each K tile at least the load floor in a loop; a whole kernel pays its waits instead, at
   * least that for up to 3 K tiles (cg_tune_kernel_cycles) */
  double wait = cg_tune_load_wait_cycles(t, (int)waves), per_wave = nk / S * per_tile;
  per_wave += fmin(nk / S, CG_TUNE_KERNEL_WAITS) * fmax(wait - per_tile, 0);
  /* the buffers at the bandwidth, and one memory latency (Little's law with all of them in
   * flight: cg_tune_memory_cycles, the score's floor with its own bytes in flight) */
  double least = cg_tune_memory_cycles(t, kernel_bytes(p->plan, p->kernel), 0);
  double cycles = fmax(rounds * per_wave, least);
  if (S > 1)
    cycles += (S * out4 + out4) / bpc;
  return cycles / t->clock_mhz;
}

/* The heuristic's estimate of cfg (us; 0: none), at the plan's split. */
static double estimate_us(const tuner *T, const problem *p, const char *cfg) {
  const target_info *t = T->targets[p->target].info;
  gemm_params P;
  gemm_mma mm;
  char err[256];
  if (strstr(cfg, "gemv") || !gemm_params_choose(t, &p->pb, cfg, &P, &mm, err, sizeof err))
    return 0;
  return cg_tune_estimate_us(t, &p->pb, &P, &mm, split_of(p));
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
    int c = p->order[T->next_c++];
    /* a configuration that cannot beat the best time found is not compiled: the best is the
     * same, since scores and times order the configurations alike (one problem, one ideal) */
    bool skip = T->prune && p->bound[c] > p->best * (1 + 1e-9) && !(c == 0 && p->has_default);
    if (skip)
      p->pruned++, T->done++;
    pthread_mutex_unlock(&T->lock);
    if (skip)
      continue;
    p->ok[c] = score_one(T, p, p->configs[c], &p->scores[c]);
    pthread_mutex_lock(&T->lock);
    if (p->ok[c] && !p->scores[c].spills && p->scores[c].est_us < p->best)
      p->best = p->scores[c].est_us; /* a spilling best cannot prune (it never wins over these) */
    if (p->ok[c] && p->bound[c] > p->scores[c].est_us * (1 + 1e-6))
      fprintf(stderr, "tosac-tune: warning: %s %s %s: bound %.3f us above the estimate %.3f us\n",
              T->targets[p->target].info->name, p->key, p->configs[c], p->bound[c],
              p->scores[c].est_us);
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
        (k->role != KR_PLAIN && k->role != KR_PARTIAL && k->role != KR_COLS) ||
        !strcmp(op_table[k->anchor->kind].name, "tosa.depthwise_conv2d") ||
        !cg_gemm_kernel_problem(T->targets[ti].info, k, &pb))
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
    *p = (problem){.target = ti, .g = g, .kernel = k, .plan = pl, .pb = pb, .best = INFINITY};
    snprintf(p->key, sizeof p->key, "%s", key);
    enumerate(T->targets[ti].info, &pb, p);
    p->scores = calloc((size_t)p->nconfigs + 1, sizeof(tb_score));
    p->ok = calloc((size_t)p->nconfigs + 1, sizeof(bool));
    p->bound = calloc((size_t)p->nconfigs + 1, sizeof(double));
    p->order = calloc((size_t)p->nconfigs + 1, sizeof(int));
    for (int c = 0; c < p->nconfigs; c++) {
      p->bound[c] = config_bound(T, p, p->configs[c]);
      /* insertion by ascending bound (stable): the likely best are compiled first */
      int j = c;
      for (; j > 0 && p->bound[p->order[j - 1]] > p->bound[c]; j--)
        p->order[j] = p->order[j - 1];
      p->order[j] = c;
    }
    T->total += p->nconfigs;
  }
}

static int cmp_line(const void *a, const void *b) {
  return strcmp(*(char *const *)a, *(char *const *)b);
}

/* The best configuration of each problem (none that spills while one does not: the static model
 * does not see the scratch traffic; then the highest score; ties: the smaller estimated time,
 * then the configuration text), as sorted database lines. */
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
      bool fs = s->spills == 0, fb = b && b->spills == 0;
      if (!b || fs > fb || (fs == fb && (rs > rb || (rs == rb && (s->est_us < b->est_us ||
                                         (s->est_us == b->est_us &&
                                          strcmp(p->configs[c], p->configs[best]) < 0))))))
        best = c;
    }
    if (T->verbose)
      fprintf(stderr, "tosac-tune: %s %s: %d configurations, %d compiled\n",
              T->targets[p->target].info->name, p->key, p->nconfigs, p->nconfigs - p->pruned);
    for (int c = 0; T->all && c < p->nconfigs; c++) {
      const tb_score *s = &p->scores[c];
      if (!p->ok[c])
        continue;
      lines = realloc(lines, sizeof(char *) * (size_t)(n + T->nproblems + 1));
      if (asprintf(&lines[n], "%s\t%s\t%s\t%.4f\t%.3f\t%.1f\t%d\t%d\t%d\t%d\t%.3f\t%d\t%s\n",
                   T->targets[p->target].info->name, p->key, p->configs[c], s->roofline,
                   s->est_us, s->loop_cycles, s->loop_len, s->vgpr + s->agpr, s->occupancy,
                   s->spills, estimate_us(T, p, p->configs[c]), split_of(p),
                   c == 0 && p->has_default ? "default" : "-") > 0)
        n++;
    }
    if (best < 0 || T->all)
      continue;
    char extra[300] = "";
    if (T->compare && p->has_default)
      snprintf(extra, sizeof extra, "\t%s\t%.4f\t%d", p->configs[0],
               p->ok[0] ? p->scores[0].roofline : 0.0, split_of(p));
    if (asprintf(&lines[n], "%s\t%s\t%s\t%.4f%s\n", T->targets[p->target].info->name, p->key,
                 p->configs[best], p->scores[best].roofline, extra) > 0)
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
  enum { OPT_ARCH = 256, OPT_ENTRY, OPT_MCA, OPT_NO_PRUNE, OPT_ALL, OPT_COMPARE, OPT_HELP };
  static const struct option longopts[] = {{"offload-arch", required_argument, 0, OPT_ARCH},
                                           {"entry", required_argument, 0, OPT_ENTRY},
                                           {"mca", no_argument, 0, OPT_MCA},
                                           {"no-prune", no_argument, 0, OPT_NO_PRUNE},
                                           {"all", no_argument, 0, OPT_ALL},
                                           {"compare", no_argument, 0, OPT_COMPARE},
                                           {"help", no_argument, 0, OPT_HELP},
                                           {0, 0, 0, 0}};
  tuner T = {.qo = {.use_mca = false, .mca_timeout = 20}, .prune = true};
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
    case OPT_NO_PRUNE: T.prune = false; break;
    case OPT_ALL: T.all = true; break;
    case OPT_COMPARE: T.compare = true; break;
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
    free(T.problems[i].bound), free(T.problems[i].order);
  }
  free(T.problems);
  arena_free(a);
  source_unload(text, src.len, src.mapped);
  return rc;
}
