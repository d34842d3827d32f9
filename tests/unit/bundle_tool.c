/* bundle_tool.c: tosac-bundle's readers on hostile input, a fuzz loop without libFuzzer.
 * usage: test-bundle_tool BUNDLE MANIFEST [ITERATIONS]; BUNDLE is a valid uncompressed tosac
 * bundle. Mutates it (byte flips, overwritten header fields, truncation, CCOB framing) and runs
 * open/list/info/verify on every mutant: any crash or sanitizer report fails the test; so does a
 * clean original failing verify or a CCOB round trip changing an entry. */
#include "../../tools/tosac-bundle/inspect.h"

#include <stdlib.h>
#include <string.h>

static int failures;

#define CHECK(cond, ...)                                                                       \
  do {                                                                                         \
    if (!(cond)) {                                                                             \
      fprintf(stderr, "FAIL %s:%d: ", __FILE__, __LINE__);                                     \
      fprintf(stderr, __VA_ARGS__);                                                            \
      fputc('\n', stderr);                                                                     \
      failures++;                                                                              \
    }                                                                                          \
  } while (0)

/* xorshift64*: reproducible mutations from a fixed seed. */
static uint64_t rng_state = 0x9e3779b97f4a7c15ull;
static uint64_t rnd(void) {
  rng_state ^= rng_state >> 12;
  rng_state ^= rng_state << 25;
  rng_state ^= rng_state >> 27;
  return rng_state * 0x2545f4914f6cdd1dull;
}

/* Runs every reader; returns the number of verify problems, -1 when the bundle did not open. */
static int run_readers(const uint8_t *d, size_t n, const char *manifest, FILE *sink) {
  tb_bundle b;
  char err[600];
  if (!tb_open(d, n, &b, err, sizeof err)) {
    CHECK(err[0] != 0, "tb_open failed without a message");
    return -1;
  }
  tb_list(&b, sink);
  tb_info(&b, sink);
  int problems = tb_verify(&b, manifest, NULL, sink);
  tb_verify(&b, NULL, NULL, sink);
  const bnd_entry *e = tb_find(&b, "1");
  if (e && e->size)
    CHECK(e->data != NULL, "entry 1 has no data");
  tb_free(&b);
  return problems;
}

/* A copy of the manifest whose digests.bundle is that of d: the CCOB versions of the bundle
 * are other files than the one the manifest was written with. */
static char *with_bundle_digest(const char *manifest, const uint8_t *d, size_t n) {
  char *m = strdup(manifest), *at = strstr(m, "\"digests\"");
  at = at ? strstr(at, "sha256:") : NULL;
  if (at) {
    char digest[BND_DIGEST_SIZE];
    bnd_digest(d, n, digest);
    memcpy(at, digest, strlen(digest));
  }
  return m;
}

static const uint64_t specials[] = {0, 1, 24, 4096, 0x7fffffffffffffffull, 0xffffffffffffffffull,
                                    0xfffffffffffffff8ull, 0x100000000ull};

static void mutate(uint8_t *d, size_t n, size_t *len) {
  int kind = (int)(rnd() % 5);
  if (kind == 0) { /* a few random bytes anywhere */
    for (int k = 0, m = 1 + (int)(rnd() % 8); k < m; k++)
      d[rnd() % n] = (uint8_t)rnd();
  } else if (kind == 1) { /* a header u64 set to a special value */
    size_t at = 24 + 8 * (rnd() % 24);
    uint64_t v = specials[rnd() % (sizeof specials / sizeof specials[0])];
    if (at + 8 <= n)
      memcpy(d + at, &v, 8);
  } else if (kind == 2) { /* truncation */
    *len = (size_t)(rnd() % n);
  } else if (kind == 3) { /* inside the first code object: ELF headers, notes, symbols */
    size_t base = 4096, span = n > base ? n - base : 1;
    for (int k = 0, m = 1 + (int)(rnd() % 4); k < m; k++)
      d[base + rnd() % (span < 8192 ? span : 8192)] ^= (uint8_t)(1u << (rnd() % 8));
  } else { /* an ELF header or program/section header field set to a special value */
    size_t at = 4096 + 8 * (rnd() % 8);
    uint64_t v = specials[rnd() % (sizeof specials / sizeof specials[0])];
    if (at + 8 <= n)
      memcpy(d + at + 0x18, &v, 8);
  }
}

int main(int argc, char **argv) {
  if (argc < 3) {
    fprintf(stderr, "usage: test-bundle_tool BUNDLE MANIFEST [ITERATIONS]\n");
    return 2;
  }
  int iterations = argc > 3 ? atoi(argv[3]) : 4000;
  char err[600];
  size_t n = 0, mlen = 0;
  uint8_t *orig = (uint8_t *)read_file(argv[1], &n, err, sizeof err);
  char *manifest = read_file(argv[2], &mlen, err, sizeof err);
  if (!orig || !manifest) {
    fprintf(stderr, "%s\n", err);
    return 2;
  }
  FILE *sink = fopen("/dev/null", "w");

  /* The original is clean. */
  CHECK(run_readers(orig, n, manifest, sink) == 0, "the unmutated bundle does not verify");

  /* CCOB v2 and v3 round trips give the same entries, and verify clean. */
  for (int v = 2; v <= 3; v++) {
    size_t cn = 0;
    uint8_t *c = bnd_compress(orig, n, v, &cn, err, sizeof err);
    CHECK(c != NULL, "bnd_compress v%d: %s", v, err);
    if (!c)
      continue;
    bnd_entry *pe = NULL, *ce = NULL;
    int pn = 0, cnn = 0;
    CHECK(bnd_parse(orig, n, &pe, &pn, err, sizeof err), "parse: %s", err);
    CHECK(bnd_parse(c, cn, &ce, &cnn, err, sizeof err), "parse CCOB v%d: %s", v, err);
    CHECK(pn == cnn, "CCOB v%d: %d entries, expected %d", v, cnn, pn);
    for (int i = 0; i < pn && i < cnn; i++)
      CHECK(!strcmp(pe[i].id, ce[i].id) && pe[i].size == ce[i].size &&
                (pe[i].size == 0 || !memcmp(pe[i].data, ce[i].data, pe[i].size)),
            "CCOB v%d: entry %d differs", v, i);
    free(pe);
    free(ce);
    char *cman = with_bundle_digest(manifest, c, cn);
    CHECK(run_readers(c, cn, cman, sink) == 0, "CCOB v%d does not verify", v);
    free(cman);
    /* Hostile CCOB: truncations, flipped bytes in header and zstd frame, a wrong hash. */
    uint8_t *m = malloc(cn);
    for (int it = 0; it < iterations / 4; it++) {
      memcpy(m, c, cn);
      size_t len = cn;
      if (it % 3 == 0)
        len = (size_t)(rnd() % cn);
      else
        for (int k = 0, cnt = 1 + (int)(rnd() % 4); k < cnt; k++)
          m[rnd() % (cn < 64 ? cn : 64 + rnd() % (cn - 64))] ^= (uint8_t)(1u << (rnd() % 8));
      run_readers(m, len, manifest, sink);
    }
    memcpy(m, c, cn);
    m[v == 2 ? 16 : 24] ^= 1; /* the hash: bnd_parse accepts it (like the bundler), verify not */
    cman = with_bundle_digest(manifest, m, cn);
    CHECK(run_readers(m, cn, cman, sink) == 1, "CCOB v%d with a wrong hash verifies", v);
    free(cman);
    free(m);
    free(c);
  }

  /* Random mutations of the uncompressed bundle. */
  uint8_t *d = malloc(n);
  int opened = 0, clean = 0;
  for (int it = 0; it < iterations; it++) {
    memcpy(d, orig, n);
    size_t len = n;
    mutate(d, n, &len);
    uint8_t *copy = malloc(len ? len : 1); /* exact-size copy: ASan sees any overread */
    memcpy(copy, d, len);
    int r = run_readers(copy, len, manifest, sink);
    opened += r >= 0;
    clean += r == 0;
    free(copy);
  }
  /* Every prefix of the header region. */
  for (size_t len = 0; len < 600 && len < n; len++) {
    uint8_t *copy = malloc(len ? len : 1);
    memcpy(copy, orig, len);
    CHECK(run_readers(copy, len, manifest, sink) != 0, "a %zu-byte prefix verifies", len);
    free(copy);
  }
  free(d);
  fclose(sink);
  printf("fuzz: %d mutants, %d opened, %d still verified clean; %d failures\n", iterations,
         opened, clean, failures);
  free(orig);
  free(manifest);
  return failures ? 1 : 0;
}
