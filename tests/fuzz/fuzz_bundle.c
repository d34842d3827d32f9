/* fuzz_bundle.c: libFuzzer target for the bundle reader behind every client (bnd_parse) and
 * tosac-bundle's list/info/verify on it. The first byte picks the framing so the fuzzer reaches
 * the inside of compressed bundles too: 'P' plain bytes as given (including CCOB files as
 * found), '2'/'3' the rest wrapped in a CCOB v2/v3 zstd frame before reading. */
#include "../../tools/tosac-bundle/inspect.h"
#include "fuzz.h"

static void read_all(const uint8_t *d, size_t n) {
  tb_bundle b;
  char err[600];
  if (!tb_open(d, n, &b, err, sizeof err))
    return;
  tb_list(&b, fuzz_sink());
  tb_info(&b, fuzz_sink());
  tb_verify(&b, NULL, NULL, fuzz_sink());
  for (int i = 0; i < b.nentries; i++) /* every payload byte must be readable */
    if (b.entries[i].size) {
      volatile uint8_t x = b.entries[i].data[0] ^ b.entries[i].data[b.entries[i].size - 1];
      (void)x;
    }
  tb_free(&b);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  if (size < 1)
    return 0;
  if (data[0] == '2' || data[0] == '3') {
    char err[400];
    size_t csize = 0;
    uint8_t *c = bnd_compress(data + 1, size - 1, data[0] - '0', &csize, err, sizeof err);
    if (c)
      read_all(c, csize);
    free(c);
    return 0;
  }
  read_all(data + 1, size - 1);
  return 0;
}
