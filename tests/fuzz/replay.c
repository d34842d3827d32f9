/* replay.c: main() for replaying fuzz inputs without libFuzzer: linked with one fuzz_<target>.c
 * into $(BUILD)/bin/replay-<target> (gcc, the build's own flags and sanitizers), it runs the
 * target's LLVMFuzzerTestOneInput on every file named on the command line. The regressions in
 * tests/fuzz/regress/<target>/ are replayed this way by tests/bats/fuzz_regress.bats. */
#include "fuzz.h"

int LLVMFuzzerInitialize(int *argc, char ***argv) __attribute__((weak));

int main(int argc, char **argv) {
  if (LLVMFuzzerInitialize)
    LLVMFuzzerInitialize(&argc, &argv);
  int n = 0;
  for (int i = 1; i < argc; i++) {
    char err[512];
    size_t size = 0;
    char *data = read_file(argv[i], &size, err, sizeof err);
    if (!data) {
      fprintf(stderr, "replay: %s\n", err);
      return 2;
    }
    LLVMFuzzerTestOneInput((const uint8_t *)data, size);
    free(data);
    n++;
  }
  printf("replayed %d input%s\n", n, n == 1 ? "" : "s");
  return 0;
}
