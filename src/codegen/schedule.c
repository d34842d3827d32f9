/* schedule.c: parallel code generation. Every target's kernels are split into chunks
 * (cg_plan_chunks), and the chunks of all targets go into one queue served by `jobs` threads,
 * so two cores stay busy even with one target. Each thread keeps one LLVM context and one
 * target machine per target. The thread that completes a target's last chunk links that
 * target at once (links are serialised in link.c). Results do not depend on which thread ran
 * what: chunk boundaries come from the plan alone, objects and modules are linked in chunk
 * order, and diagnostics are collected per chunk and printed in target and chunk order. */
#include "codegen.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

typedef struct cg_queue {
  const cg_batch *b;
  cg_chunk *chunks; /* in target and chunk order */
  int *order;       /* the order they are taken in: largest estimate first */
  int nchunks, next;
  int *first, *count, *left; /* per target: its first chunk, chunk count, chunks still running */
  char **diag_text;          /* per target (memstream buffers) */
  size_t *diag_len;
  bool *ok;
  bool progress; /* stderr is a terminal: show "[k/n] target ..." */
  pthread_mutex_t lock;
} cg_queue;

static void finish(cg_queue *q, int target, cg_thread *t) {
  FILE *mem = open_memstream(&q->diag_text[target], &q->diag_len[target]);
  q->ok[target] = cg_finish_target(q->b, target, q->chunks + q->first[target], q->count[target],
                                   t, mem);
  fclose(mem);
}

static void *worker(void *arg) {
  cg_queue *q = arg;
  cg_thread t = {0};
  for (;;) {
    pthread_mutex_lock(&q->lock);
    int i = q->next++;
    if (i < q->nchunks && q->progress) /* under the lock: lines never interleave */
      fprintf(stderr, "\r\033[K[%d/%d] %s ...", i + 1, q->nchunks,
              q->b->plans[q->chunks[q->order[i]].target]->target->id);
    pthread_mutex_unlock(&q->lock);
    if (i >= q->nchunks)
      break;
    cg_chunk *c = &q->chunks[q->order[i]];
    cg_compile_chunk(q->b, c, &t);
    pthread_mutex_lock(&q->lock);
    bool last = --q->left[c->target] == 0;
    pthread_mutex_unlock(&q->lock);
    if (last)
      finish(q, c->target, &t);
  }
  cg_thread_dispose(&t);
  return NULL;
}

/* Largest work items first, so no big one is left for the end while other threads idle
 * (ties keep target and chunk order). Only the timing depends on this order. */
static int by_cost(const void *a, const void *b, void *chunks) {
  const cg_chunk *c = chunks;
  int x = *(const int *)a, y = *(const int *)b;
  return c[x].cost != c[y].cost ? (c[x].cost < c[y].cost ? 1 : -1) : (x > y) - (x < y);
}

static void order_chunks(cg_queue *q) {
  q->order = malloc((size_t)q->nchunks * sizeof *q->order);
  for (int i = 0; i < q->nchunks; i++)
    q->order[i] = i;
  qsort_r(q->order, (size_t)q->nchunks, sizeof *q->order, by_cost, q->chunks);
}

static void run_threads(cg_queue *q, int jobs) {
  int nthreads = jobs < q->nchunks ? jobs : q->nchunks;
  pthread_t *th = calloc(nthreads > 1 ? (size_t)nthreads : 1, sizeof *th);
  int started = 0;
  for (int i = 1; i < nthreads; i++)
    if (pthread_create(&th[started], NULL, worker, q) == 0)
      started++;
  worker(q);
  for (int i = 0; i < started; i++)
    pthread_join(th[i], NULL);
  free(th);
  if (q->progress)
    fputs("\r\033[K", stderr); /* erase the progress line before any diagnostics */
}

bool cg_compile_targets(const graph *g, const partition_plan *const *plans, int n,
                        const cg_options *opt, int jobs, bool progress, cg_result *out,
                        char **diag_text) {
  cg_init();
  cg_batch b = {.g = g, .plans = plans, .ntargets = n, .opt = opt, .out = out};
  int total = 0;
  for (int i = 0; i < n; i++)
    total += plans[i]->nkernels + 1;
  cg_queue q = {.b = &b, .chunks = calloc((size_t)total, sizeof(cg_chunk)),
                .first = calloc((size_t)n, sizeof(int)), .count = calloc((size_t)n, sizeof(int)),
                .left = calloc((size_t)n, sizeof(int)), .diag_text = diag_text,
                .diag_len = calloc((size_t)n, sizeof(size_t)), .ok = calloc((size_t)n, sizeof(bool)),
                .progress = progress};
  for (int i = 0; i < n; i++) {
    memset(&out[i], 0, sizeof out[i]);
    out[i].nkernels = plans[i]->nkernels;
    out[i].kernels = calloc(plans[i]->nkernels ? (size_t)plans[i]->nkernels : 1,
                            sizeof(cg_kernel_info));
    q.first[i] = q.nchunks;
    q.count[i] = q.left[i] = cg_plan_chunks(plans[i], i, q.chunks + q.nchunks, total - q.nchunks);
    q.nchunks += q.count[i];
    diag_text[i] = NULL;
  }
  order_chunks(&q);
  pthread_mutex_init(&q.lock, NULL);
  run_threads(&q, jobs < 1 ? 1 : jobs);
  pthread_mutex_destroy(&q.lock);
  bool ok = true;
  for (int i = 0; i < n; i++) {
    ok &= q.ok[i];
    if (diag_text[i] && !q.diag_len[i]) {
      free(diag_text[i]);
      diag_text[i] = NULL;
    }
  }
  free(q.chunks);
  free(q.order);
  free(q.first);
  free(q.count);
  free(q.left);
  free(q.diag_len);
  free(q.ok);
  return ok;
}

bool cg_compile(const graph *g, const partition_plan *p, const cg_options *opt, cg_result *out,
                diag_sink *d) {
  char *text = NULL;
  bool ok = cg_compile_targets(g, &p, 1, opt, 1, false, out, &text);
  if (text)
    fputs(text, d->out);
  free(text);
  if (!ok)
    d->errors++;
  return ok;
}
