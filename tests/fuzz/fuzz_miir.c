/* fuzz_miir.c: libFuzzer target for libtosac-miir's option parser
 * (docs/miopen.md): any bytes as MIOpen's option string. An accepted problem's
 * TOSA graph must parse and verify in tosac's frontend (abort otherwise: the
 * parser let through a problem the graph builder gets wrong). Graphs of more
 * than 16 groups are skipped (one slice and convolution per group: their text
 * grows with the group count, which says nothing new). */
#include "frontend/frontend.h"
#include "fuzz.h"
#include "miir/miir.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  char *text = malloc(size + 1);
  memcpy(text, data, size);
  text[size] = 0;
  miir_problem p;
  char err[1024];
  if (miir_parse(text, &p, err, sizeof err) && p.groups <= 16 &&
      (double)p.n * p.c * p.hi * p.wi < 1e6 && (double)p.n * p.k * p.ho * p.wo < 1e6) {
    char *g = miir_graph(&p);
    source_file src = {.path = "miir.mlir", .text = g, .len = strlen(g)};
    diag_sink d;
    diag_init(&d, fuzz_sink());
    arena *a = arena_new();
    fe_options fo = {0};
    graph *gr = fe_parse(a, &src, &fo, &d);
    if (!gr || d.errors) {
      fprintf(stderr, "options accepted, graph refused:\n%s\n%s\n", text, g);
      abort();
    }
    arena_free(a);
    free(g);
  }
  free(text);
  return 0;
}
