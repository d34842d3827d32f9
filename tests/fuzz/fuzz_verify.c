/* fuzz_verify.c: libFuzzer target for the manifest reader of `tosac-bundle verify`: the input is
 * a manifest checked against one real bundle, read once from $TOSAC_FUZZ_BUNDLE (make fuzz
 * compiles tests/fuzz/data/verify.mlir for it); without it, against an empty bundle. */
#include "../../tools/tosac-bundle/inspect.h"
#include "fuzz.h"

static tb_bundle bundle;

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerInitialize(int *argc, char ***argv) {
  (void)argc, (void)argv;
  const char *path = getenv("TOSAC_FUZZ_BUNDLE");
  char err[600];
  size_t size = 0;
  uint8_t *data = path ? (uint8_t *)read_file(path, &size, err, sizeof err) : NULL;
  static const bnd_entry host = {.id = BND_HOST_ID, .data = NULL, .size = 0};
  if (!data)
    data = bnd_build(&host, 1, BND_ALIGN, &size);
  if (!tb_open(data, size, &bundle, err, sizeof err)) {
    fprintf(stderr, "fuzz-verify: %s\n", err);
    abort();
  }
  return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  char *text = fuzz_text(data, size);
  tb_verify(&bundle, text, NULL, fuzz_sink());
  free(text);
  return 0;
}
