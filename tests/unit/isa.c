/* isa.c: runs one kernel of a code object as machine code (emu_load_code + emu_run) for the
 * tests in tests/bats/isa.bats, which assemble tiny kernels with llvm-mc-22 and link them with
 * ld.lld-22.
 *
 *   test-isa CODE.co TARGET KERNEL N [BLOCK [GRID]]
 *
 * One buffer of N 32-bit words holding 0, 1, ..., N-1 is the kernel's only argument (its address
 * at kernarg offset 0); GRID (default 1) work-groups of BLOCK work-items (default: the target's
 * wave size) run.
 * Prints "out[i] = v" per word, or "error: MESSAGE" and exits 1. */
#include "emu/emu.h"
#include "tosac.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int main(int argc, char **argv) {
  if (argc < 5) {
    fprintf(stderr, "usage: test-isa CODE.co TARGET KERNEL N [BLOCK [GRID]]\n");
    return 2;
  }
  size_t size;
  char err[1024];
  uint8_t *code = (uint8_t *)read_file(argv[1], &size, err, sizeof err);
  const target_info *ti = target_lookup(argv[2], strlen(argv[2]));
  if (!code || !ti) {
    fprintf(stderr, "error: cannot read %s or unknown target %s\n", argv[1], argv[2]);
    free(code);
    return 2;
  }
  emu_target t = {.wave_size = ti->wave_size, .lds_limit = ti->lds_bytes};
  snprintf(t.processor, sizeof t.processor, "%s", ti->name);
  int n = atoi(argv[4]);
  uint32_t block = argc > 5 ? (uint32_t)atoi(argv[5]) : (uint32_t)ti->wave_size;
  uint32_t grid = argc > 6 ? (uint32_t)atoi(argv[6]) : 1;
  emu_module *m = emu_load_code(code, size, &t, err, sizeof err);
  if (!m) {
    printf("error: %s\n", err);
    free(code);
    return 1;
  }
  uint32_t *buf = aligned_alloc(256, ((size_t)n * 4 + 255) / 256 * 256);
  for (int i = 0; i < n; i++)
    buf[i] = (uint32_t)i;
  uint64_t addr = (uint64_t)(uintptr_t)buf;
  uint8_t kernarg[256] = {0};
  memcpy(kernarg, &addr, 8);
  emu_buffer b = {.name = "out", .base = buf, .size = (size_t)n * 4};
  emu_launch l = {.kernel = argv[3], .block = {block, 1, 1}, .grid = {grid, 1, 1}, .kernarg = kernarg,
                  .kernarg_size = sizeof kernarg, .buffers = &b, .nbuffers = 1};
  bool ok = emu_run(m, &l, err, sizeof err);
  if (ok)
    for (int i = 0; i < n; i++)
      printf("out[%d] = %u\n", i, buf[i]);
  else
    printf("error: %s\n", err);
  free(buf);
  emu_free(m);
  free(code);
  return ok ? 0 : 1;
}
