/* lib_stress.c: libtosac from several threads at once (tests/bats/library.bats).
 *
 *   test-lib_stress THREADS ROUNDS graph.mlir...
 *
 * First compiles every graph once on the main thread (the reference), then THREADS threads
 * each compile every graph ROUNDS times, in a different order per thread, each compile with
 * its own options object, and compare bundle, manifest and diagnostics with the reference
 * byte for byte. A graph whose name contains "bad" must fail with diagnostics. Prints one line
 * per graph and "ok N compiles" at the end; exits 1 on any difference. */
#include <tosac/tosac.h>

#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct ref {
  const char *path;
  tosac_status status;
  char *bundle, *manifest, *diags;
  size_t bundle_size;
  int nkernels;
} ref;

static ref *refs;
static int nrefs, rounds;
static int failures;
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;

static tosac_result *compile(const char *path) {
  tosac_options *o = tosac_options_create();
  tosac_options_add_targets(o, "gfx90a,gfx1030");
  tosac_options_set_jobs(o, 1);
  tosac_options_set_embed_ir(o, 1);
  tosac_result *r = tosac_compile_file(o, path);
  tosac_options_dispose(o); /* the result must not depend on the options object living on */
  return r;
}

static char *dup_bytes(const void *p, size_t n) {
  char *q = malloc(n + 1);
  if (n)
    memcpy(q, p, n);
  q[n] = 0;
  return q;
}

static bool same(const ref *f, tosac_result *r) {
  size_t n = 0;
  const uint8_t *b = tosac_result_bundle(r, &n);
  const char *m = tosac_result_manifest(r);
  return tosac_result_status(r) == f->status && n == f->bundle_size &&
         (!n || memcmp(b, f->bundle, n) == 0) && !strcmp(m ? m : "", f->manifest) &&
         !strcmp(tosac_result_diagnostics_text(r), f->diags) &&
         tosac_result_kernel_count(r, 0) == f->nkernels;
}

static void *worker(void *arg) {
  int id = (int)(intptr_t)arg;
  for (int k = 0; k < rounds; k++)
    for (int j = 0; j < nrefs; j++) {
      const ref *f = &refs[(j + id) % nrefs];
      tosac_result *r = compile(f->path);
      if (!same(f, r)) {
        pthread_mutex_lock(&lock);
        fprintf(stderr, "thread %d: %s differs from the reference\n", id, f->path);
        failures++;
        pthread_mutex_unlock(&lock);
      }
      tosac_result_dispose(r);
    }
  return NULL;
}

int main(int argc, char **argv) {
  if (argc < 4)
    return fprintf(stderr, "usage: %s THREADS ROUNDS graph.mlir...\n", argv[0]), 2;
  int nthreads = atoi(argv[1]);
  rounds = atoi(argv[2]);
  nrefs = argc - 3;
  refs = calloc((size_t)nrefs, sizeof *refs);
  for (int i = 0; i < nrefs; i++) {
    ref *f = &refs[i];
    f->path = argv[3 + i];
    tosac_result *r = compile(f->path);
    const uint8_t *b = tosac_result_bundle(r, &f->bundle_size);
    const char *m = tosac_result_manifest(r);
    f->status = tosac_result_status(r);
    f->bundle = dup_bytes(b, f->bundle_size);
    f->manifest = dup_bytes(m ? m : "", m ? strlen(m) : 0);
    f->diags = strdup(tosac_result_diagnostics_text(r));
    f->nkernels = tosac_result_kernel_count(r, 0);
    bool bad = strstr(f->path, "bad") != NULL;
    if (bad != (f->status != TOSAC_OK) || bad != (tosac_result_diagnostic_count(r) > 0)) {
      fprintf(stderr, "%s: unexpected status %d\n", f->path, (int)f->status);
      failures++;
    }
    printf("%s: status %d, %d kernels on %s, %zu bundle bytes, %d diagnostics\n", f->path,
           (int)f->status, f->nkernels, tosac_result_target_id(r, 0) ? tosac_result_target_id(r, 0) : "-",
           f->bundle_size, tosac_result_diagnostic_count(r));
    tosac_result_dispose(r);
  }
  pthread_t *th = calloc((size_t)nthreads, sizeof *th);
  for (int t = 0; t < nthreads; t++)
    pthread_create(&th[t], NULL, worker, (void *)(intptr_t)t);
  for (int t = 0; t < nthreads; t++)
    pthread_join(th[t], NULL);
  for (int i = 0; i < nrefs; i++) {
    free(refs[i].bundle);
    free(refs[i].manifest);
    free(refs[i].diags);
  }
  free(refs);
  free(th);
  if (failures)
    return fprintf(stderr, "%d failures\n", failures), 1;
  printf("ok %d compiles\n", nthreads * rounds * nrefs);
  return 0;
}
