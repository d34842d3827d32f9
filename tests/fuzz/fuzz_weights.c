/* fuzz_weights.c: libFuzzer target for what the clients do with a weights file: the input is a
 * manifest, a NUL byte, then the weights bytes. tosac-run and tosac-hip-run parse the manifest,
 * check the file against it (size and digest, bnd_digest_check) and read every constant
 * buffer's bytes at its offset: an accepted pair must never make them read outside the file. */
#include "../../tools/tosac-hip-run/host.h"
#include "../../tools/tosac-run/run.h"
#include "fuzz.h"

/* Sum of every byte of a constant buffer: ASan reports a read outside the weights copy. */
static unsigned touch(const uint8_t *w, int64_t offset, int64_t bytes) {
  unsigned s = 0;
  for (int64_t i = 0; i < bytes; i++)
    s += w[offset + i];
  return s;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  const uint8_t *nul = memchr(data, 0, size);
  if (!nul)
    return 0;
  char *text = fuzz_text(data, (size_t)(nul - data));
  size_t wsize = size - (size_t)(nul - data) - 1;
  uint8_t *w = malloc(wsize + 1); /* exactly the file's bytes, as a client loads it */
  memcpy(w, nul + 1, wsize);
  char err[600];
  volatile unsigned sink = 0;
  run_manifest m;
  if (run_manifest_parse(text, &m, err, sizeof err)) {
    if (run_weights_check(&m, w, wsize, "fuzz.weights", err, sizeof err))
      for (int t = 0; t < m.ntargets; t++)
        for (int b = 0; b < m.targets[t].nbuffers; b++)
          if (m.targets[t].buffers[b].kind == BUF_CONSTANT)
            sink += touch(w, m.targets[t].buffers[b].offset, m.targets[t].buffers[b].bytes);
    run_manifest_free(&m);
  }
  hr_manifest h;
  if (hr_manifest_parse(text, &h, err, sizeof err)) {
    if (wsize == (size_t)h.weights_bytes && /* tosac-hip-run's checks before it uploads */
        bnd_digest_check(h.weights_digest, w, wsize, "fuzz.weights", err, sizeof err))
      for (int t = 0; t < h.ntargets; t++)
        for (int b = 0; b < h.targets[t].nbuffers; b++)
          if (h.targets[t].buffers[b].kind == HR_CONSTANT)
            sink += touch(w, h.targets[t].buffers[b].offset, h.targets[t].buffers[b].bytes);
    hr_manifest_free(&h);
  }
  (void)sink;
  free(w);
  free(text);
  return 0;
}
