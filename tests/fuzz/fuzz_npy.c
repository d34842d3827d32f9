/* fuzz_npy.c: libFuzzer target for the .npy readers of tosac-run (run_npy_read, every array of
 * a file in turn, as `*all.npy` does) and tosac-hip-run (hr_npy_parse). Each array read must
 * survive the round trip: encoded again (run_npy_encode) and read back, it is the same array. */
#include "../../tools/tosac-hip-run/host.h"
#include "../../tools/tosac-run/run.h"
#include "fuzz.h"

static void round_trip(const run_value *v) {
  size_t n = 0;
  uint8_t *enc = run_npy_encode(v, &n);
  if (!enc)
    return;
  size_t pos = 0;
  run_value back;
  char err[400];
  if (!run_npy_read(enc, n, &pos, &back, err, sizeof err)) {
    fprintf(stderr, "fuzz-npy: own encoding refused: %s\n", err);
    abort();
  }
  if (pos != n || back.bytes != v->bytes || back.type.rank != v->type.rank ||
      back.type.elem != v->type.elem || (v->bytes && memcmp(back.data, v->data, v->bytes)) ||
      memcmp(back.type.dims, v->type.dims, sizeof(int64_t) * (size_t)v->type.rank)) {
    fprintf(stderr, "fuzz-npy: round trip changed the array\n");
    abort();
  }
  hr_npy h;
  if (!hr_npy_parse(enc, n, &h, err, sizeof err) && v->type.rank <= HR_MAX_RANK) {
    fprintf(stderr, "fuzz-npy: tosac-hip-run refuses tosac-run's encoding: %s\n", err);
    abort();
  }
  run_value_free(&back);
  free(enc);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  size_t pos = 0;
  char err[400];
  for (int k = 0; k < 8 && pos < size; k++) {
    run_value v;
    size_t before = pos;
    if (!run_npy_read(data, size, &pos, &v, err, sizeof err))
      break;
    if (pos <= before) {
      fprintf(stderr, "fuzz-npy: read did not advance\n");
      abort();
    }
    round_trip(&v);
    char buf[64];
    if (v.bytes)
      run_format_element(&v, 0, buf, sizeof buf);
    run_value_free(&v);
  }
  hr_npy h;
  if (hr_npy_parse(data, size, &h, err, sizeof err) && h.bytes) {
    volatile uint8_t x = h.data[0] ^ h.data[h.bytes - 1];
    (void)x;
  }
  return 0;
}
