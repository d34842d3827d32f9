/* fuzz_parser.c: libFuzzer target for the frontend: parse + canonicalise + verify any bytes, and
 * print the graph as TOSA 1.0 when it is accepted. Any crash, hang or sanitizer report is a bug. */
#include "frontend/frontend.h"

#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  static FILE *sink;
  if (!sink) sink = fopen("/dev/null", "w");
  char *text = malloc(size + 1);
  memcpy(text, data, size);
  text[size] = 0;
  source_file src = {.path = "fuzz.mlir", .text = text, .len = size};
  diag_sink d;
  diag_init(&d, sink);
  arena *a = arena_new();
  fe_options fo = {0};
  graph *g = fe_parse(a, &src, &fo, &d);
  if (g && !d.errors) fe_print_tosa(sink, g);
  arena_free(a);
  free(text);
  return 0;
}
