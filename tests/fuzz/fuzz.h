/* fuzz.h: what every libFuzzer target in tests/fuzz shares: the entry points and a sink for
 * everything a reader prints (the fuzzers check for crashes and sanitizer reports, not text). */
#ifndef TOSAC_FUZZ_H
#define TOSAC_FUZZ_H

#include "tosac.h"

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static inline FILE *fuzz_sink(void) {
  static FILE *sink;
  if (!sink)
    sink = fopen("/dev/null", "w");
  return sink;
}

/* The input as a NUL-terminated string (malloc'd): every text reader takes one. */
static inline char *fuzz_text(const uint8_t *data, size_t size) {
  char *t = malloc(size + 1);
  memcpy(t, data, size);
  t[size] = 0;
  return t;
}

#endif
