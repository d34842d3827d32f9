/* fuzz_partitions.c: libFuzzer target for the compile path before code generation: parse,
 * canonicalise and verify, then partition for one target (the first byte picks which) and print
 * the plan as `--emit=partitions` and `--emit=dot` do, plus the weights image. */
#include "frontend/frontend.h"
#include "fuzz.h"

static const char *const targets[] = {"gfx908", "gfx90a", "gfx942",  "gfx950",
                                      "gfx1030", "gfx1100", "gfx1200"};

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  if (size < 1)
    return 0;
  target_request t;
  char err[400];
  if (!target_parse(targets[data[0] % 7], &t, err, sizeof err))
    abort();
  char *text = fuzz_text(data + 1, size - 1);
  source_file src = {.path = "fuzz.mlir", .text = text, .len = size - 1};
  diag_sink d;
  diag_init(&d, fuzz_sink());
  arena *a = arena_new();
  fe_options fo = {0};
  graph *g = fe_parse(a, &src, &fo, &d);
  if (g && !d.errors) {
    const partition_plan *p = part_plan(a, g, &t, &d);
    if (p) {
      part_print(fuzz_sink(), g, p);
      part_print_dot(fuzz_sink(), g, p);
      size_t wsize = 0;
      free(part_weights_image(p, &wsize));
    }
  }
  arena_free(a);
  free(text);
  return 0;
}
