/* test-bundle: bnd_build against clang-offload-bundler-22 byte for byte, and bnd_parse against
 * truncated, garbage, overlapping and overflowing inputs (each must fail with a message). */
#include "bundle/bundle.h"

#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static int checks, failures;

#define CHECK(cond, ...)                                                                       \
  do {                                                                                         \
    checks++;                                                                                  \
    if (!(cond)) {                                                                             \
      failures++;                                                                              \
      printf("FAIL %s:%d: ", __FILE__, __LINE__);                                              \
      printf(__VA_ARGS__);                                                                     \
      printf("\n");                                                                            \
    }                                                                                          \
  } while (0)

/* Deterministic payload bytes (xorshift), so failures reproduce. */
static uint64_t rng_state = 0x9e3779b97f4a7c15ull;
static uint64_t rng(void) {
  rng_state ^= rng_state << 13;
  rng_state ^= rng_state >> 7;
  rng_state ^= rng_state << 17;
  return rng_state;
}

static uint8_t *random_bytes(size_t n) {
  uint8_t *p = malloc(n ? n : 1);
  for (size_t i = 0; i < n; i++)
    p[i] = (uint8_t)rng();
  return p;
}

static bool write_all(const char *path, const uint8_t *p, size_t n) {
  FILE *f = fopen(path, "wb");
  if (!f)
    return false;
  bool ok = fwrite(p, 1, n, f) == n;
  return fclose(f) == 0 && ok;
}

static uint8_t *read_all(const char *path, size_t *n) {
  FILE *f = fopen(path, "rb");
  if (!f)
    return NULL;
  fseek(f, 0, SEEK_END);
  long len = ftell(f);
  fseek(f, 0, SEEK_SET);
  uint8_t *p = malloc(len > 0 ? (size_t)len : 1);
  *n = fread(p, 1, (size_t)len, f);
  fclose(f);
  return p;
}

static char tmpdir[256];

/* One bundler comparison case: entry 0 is the empty host entry (the bundler needs one). */
typedef struct bcase {
  const char *name;
  size_t align;
  int n;
  const char *ids[8];
  size_t sizes[8];
} bcase;

static void check_against_bundler(const bcase *c) {
  bnd_entry es[8];
  char cmd[4096], path[512];
  int len = snprintf(cmd, sizeof cmd, "clang-offload-bundler-22 -type=o -bundle-align=%zu -targets=",
                     c->align);
  for (int i = 0; i < c->n; i++)
    len += snprintf(cmd + len, sizeof cmd - (size_t)len, "%s%s", i ? "," : "", c->ids[i]);
  for (int i = 0; i < c->n; i++) {
    memset(&es[i], 0, sizeof es[i]);
    snprintf(es[i].id, sizeof es[i].id, "%s", c->ids[i]);
    es[i].size = c->sizes[i];
    es[i].data = random_bytes(c->sizes[i]);
    if (c->sizes[i] == 0) {
      len += snprintf(cmd + len, sizeof cmd - (size_t)len, " -input=/dev/null");
    } else {
      snprintf(path, sizeof path, "%s/in%d.bin", tmpdir, i);
      CHECK(write_all(path, es[i].data, es[i].size), "%s: cannot write %s", c->name, path);
      len += snprintf(cmd + len, sizeof cmd - (size_t)len, " -input=%s", path);
    }
  }
  snprintf(path, sizeof path, "%s/ref.hipfb", tmpdir);
  snprintf(cmd + len, sizeof cmd - (size_t)len, " -output=%s", path);
  int rc = system(cmd);
  CHECK(rc == 0, "%s: bundler failed (%d): %s", c->name, rc, cmd);

  size_t ref_size = 0, ours_size = 0;
  uint8_t *ref = read_all(path, &ref_size);
  uint8_t *ours = bnd_build(es, c->n, c->align, &ours_size);
  CHECK(ref != NULL, "%s: no bundler output", c->name);
  CHECK(ours != NULL, "%s: bnd_build failed", c->name);
  if (ref && ours) {
    size_t first_diff = 0;
    while (first_diff < ref_size && first_diff < ours_size && ref[first_diff] == ours[first_diff])
      first_diff++;
    CHECK(ref_size == ours_size && first_diff == ref_size,
          "%s: differs from the bundler: sizes %zu vs %zu, first difference at byte %zu", c->name,
          ours_size, ref_size, first_diff);
    printf("ok %s: %zu bytes identical to clang-offload-bundler-22\n", c->name, ours_size);

    /* The header must sit inside the first 4096 bytes for HIP, and the reader must give back
     * exactly what went in. */
    CHECK(bnd_header_size(es, c->n) <= BND_HIP_HEADER_LIMIT, "%s: header too large", c->name);
    bnd_entry *got = NULL;
    int ngot = 0;
    char err[256] = "";
    bool ok = bnd_parse(ours, ours_size, &got, &ngot, err, sizeof err);
    CHECK(ok && ngot == c->n, "%s: bnd_parse: %s", c->name, err);
    for (int i = 0; ok && i < ngot && i < c->n; i++) {
      CHECK(strcmp(got[i].id, es[i].id) == 0, "%s: entry %d id %s", c->name, i, got[i].id);
      CHECK(got[i].size == es[i].size && (es[i].size == 0 ||
                                          memcmp(got[i].data, es[i].data, es[i].size) == 0),
            "%s: entry %d payload differs", c->name, i);
      if (c->align > 1)
        CHECK((size_t)(got[i].data - ours) % c->align == 0, "%s: entry %d offset unaligned",
              c->name, i);
    }
    free(got);
  }
  for (int i = 0; i < c->n; i++)
    free((void *)es[i].data);
  free(ref);
  free(ours);
  unlink(path);
}

/* A malformed input must be refused with a message and leave no entries behind. */
static void expect_reject(const char *name, const uint8_t *data, size_t size, const char *want) {
  bnd_entry *got = (bnd_entry *)1;
  int n = -1;
  char err[256] = "";
  bool ok = bnd_parse(data, size, &got, &n, err, sizeof err);
  CHECK(!ok, "%s: accepted", name);
  CHECK(got == NULL && n == 0, "%s: outputs not cleared", name);
  CHECK(err[0] != '\0', "%s: no message", name);
  CHECK(!want || strstr(err, want), "%s: message '%s' lacks '%s'", name, err, want);
  if (!ok)
    printf("ok reject %s: %s\n", name, err);
  if (ok)
    free(got);
}

static void put64(uint8_t *p, uint64_t v) {
  for (int i = 0; i < 8; i++)
    p[i] = (uint8_t)(v >> (8 * i));
}

/* A small valid bundle to mutate: host (empty), two payloads, alignment 1. Record layout:
 * count at 24, records from 32: host [32, 86), a [86, 143), b [143, 200). */
static uint8_t *sample_bundle(size_t *size, size_t rec_off[3]) {
  bnd_entry es[3] = {0};
  snprintf(es[0].id, sizeof es[0].id, "%s", BND_HOST_ID);
  snprintf(es[1].id, sizeof es[1].id, "hipv4-amdgcn-amd-amdhsa--gfx90a:sramecc+:xnack-");
  snprintf(es[2].id, sizeof es[2].id, "hipv4-amdgcn-amd-amdhsa--gfx1030");
  static const uint8_t pa[40] = {1, 2, 3}, pb[24] = {4, 5, 6};
  es[1].data = pa, es[1].size = sizeof pa;
  es[2].data = pb, es[2].size = sizeof pb;
  size_t pos = 32;
  for (int i = 0; i < 3; i++) {
    rec_off[i] = pos;
    pos += 24 + strlen(es[i].id);
  }
  return bnd_build(es, 3, 1, size);
}

static void malformed_inputs(void) {
  size_t size, rec[3];
  uint8_t *good = sample_bundle(&size, rec);
  uint8_t *m = malloc(size + 64);
  bnd_entry *got = NULL;
  int n = 0;
  char err[256];
  CHECK(bnd_parse(good, size, &got, &n, err, sizeof err) && n == 3, "sample bundle: %s", err);
  free(got);

  expect_reject("empty input", good, 0, "shorter than the 32-byte header");
  expect_reject("null input", NULL, 0, "shorter than the 32-byte header");
  /* Every strict prefix cuts the header or the last payload. */
  int prefixes_rejected = 0;
  for (size_t len = 0; len < size; len++) {
    bool ok = bnd_parse(good, len, &got, &n, err, sizeof err);
    if (ok)
      free(got);
    else if (err[0])
      prefixes_rejected++;
  }
  CHECK(prefixes_rejected == (int)size, "only %d of %zu truncations rejected", prefixes_rejected,
        size);
  printf("ok reject all %zu truncated prefixes\n", size);
  expect_reject("truncated in record", good, rec[2] + 10, "truncated in entry 2's record");
  expect_reject("truncated in ID", good, rec[1] + 30, "truncated in entry 1's ID");
  expect_reject("truncated payload", good, size - 1, "runs past the end of the file");

  memcpy(m, good, size);
  memcpy(m, "__CLANG_OFFLOAD_BUNDLX__", 24);
  expect_reject("bad magic", m, size, "missing magic");
  expect_reject("compressed", (const uint8_t *)"CCOB\x03\x00\x01\x00", 8, "compressed (CCOB)");

  uint8_t *garbage = random_bytes(4096);
  expect_reject("garbage", garbage, 4096, "missing magic");
  memcpy(garbage, BND_MAGIC, 24);
  bool ok = bnd_parse(garbage, 4096, &got, &n, err, sizeof err);
  CHECK(!ok && err[0], "garbage after magic accepted");
  printf("ok reject garbage after magic: %s\n", err);
  free(garbage);

  static const struct {
    const char *name;
    uint64_t count;
    const char *want;
  } counts[] = {
      {"count 2^64-1", UINT64_MAX, "bundle claims 18446744073709551615 entries; at most 4096"},
      {"count 2^63", 1ull << 63, "at most 4096 are accepted"},
      {"count 4097", 4097, "at most 4096 are accepted"},
      {"count beyond file", 10, "bundle claims 10 entries but its 277 bytes hold at most 9"},
      {"count 0", 0, "no entries"},
  };
  for (size_t i = 0; i < sizeof counts / sizeof counts[0]; i++) {
    memcpy(m, good, size);
    put64(m + 24, counts[i].count);
    expect_reject(counts[i].name, m, size, counts[i].want);
  }
  /* count 4 with room for 9: the fourth record reads payload bytes as a record. */
  memcpy(m, good, size);
  put64(m + 24, 4);
  expect_reject("count 4", m, size, NULL);

  memcpy(m, good, size);
  put64(m + rec[1] + 16, UINT64_MAX);
  expect_reject("huge ID length", m, size, "ID length 18446744073709551615 outside 1..127");
  memcpy(m, good, size);
  put64(m + rec[1] + 16, 0);
  expect_reject("zero ID length", m, size, "ID length 0");
  memcpy(m, good, size);
  m[rec[1] + 24 + 3] = 0;
  expect_reject("NUL in ID", m, size, "not printable ASCII");

  memcpy(m, good, size);
  put64(m + rec[1], UINT64_MAX - 7);
  put64(m + rec[1] + 8, 16);
  expect_reject("offset+size overflow", m, size, "runs past the end of the file");
  memcpy(m, good, size);
  put64(m + rec[1] + 8, UINT64_MAX);
  expect_reject("huge size", m, size, "exceeds the file size");
  memcpy(m, good, size);
  put64(m + rec[1], 0);
  expect_reject("offset 0", m, size, "inside the header");
  memcpy(m, good, size);
  put64(m + rec[2], 100);
  expect_reject("payload in header", m, size, "inside the header");
  /* Entry 2 starts 8 bytes into entry 1's payload. */
  memcpy(m, good, size);
  uint64_t off1 = 0;
  for (int i = 7; i >= 0; i--)
    off1 = (off1 << 8) | m[rec[1] + i];
  put64(m + rec[2], off1 + 8);
  expect_reject("overlapping payloads", m, size, "overlap");
  {
    bnd_entry es[2] = {0};
    snprintf(es[0].id, sizeof es[0].id, "hipv4-amdgcn-amd-amdhsa--gfx90a");
    snprintf(es[1].id, sizeof es[1].id, "hipv4-amdgcn-amd-amdhsa--gfx90a");
    es[0].data = good, es[0].size = 4;
    es[1].data = good, es[1].size = 4;
    size_t dsize;
    uint8_t *dup = bnd_build(es, 2, 1, &dsize);
    expect_reject("duplicate IDs", dup, dsize, "duplicate bundle entry ID");
    free(dup);
  }

  /* Random mutations of the header bytes: the reader must never crash, and whatever it accepts
   * must lie inside the buffer. */
  int accepted = 0, rejected = 0;
  for (int iter = 0; iter < 20000; iter++) {
    memcpy(m, good, size);
    int flips = 1 + (int)(rng() % 4);
    for (int f = 0; f < flips; f++) {
      size_t at = (size_t)(rng() % rec[2]) + 24;
      m[at] = (uint8_t)(rng() % 4 == 0 ? 0xff : rng());
    }
    size_t len = rng() % 8 == 0 ? (size_t)(rng() % size) : size;
    err[0] = '\0';
    if (bnd_parse(m, len, &got, &n, err, sizeof err)) {
      accepted++;
      for (int i = 0; i < n; i++)
        CHECK(got[i].size == 0 || (got[i].data >= m && got[i].data + got[i].size <= m + len),
              "fuzz %d: entry %d out of bounds", iter, i);
      free(got);
    } else {
      rejected++;
      CHECK(err[0] != '\0', "fuzz %d: rejected without a message", iter);
    }
  }
  printf("ok fuzz: 20000 mutated headers, %d accepted in bounds, %d rejected with a message\n",
         accepted, rejected);
  free(m);
  free(good);
}

static void builder_limits(void) {
  bnd_entry e = {0};
  memset(e.id, 'x', sizeof e.id); /* no terminating NUL */
  size_t size = 1;
  CHECK(bnd_build(&e, 1, 4096, &size) == NULL && size == 0, "unterminated ID accepted");
  snprintf(e.id, sizeof e.id, "hipv4-amdgcn-amd-amdhsa--gfx90a");
  e.size = SIZE_MAX - 8;
  CHECK(bnd_build(&e, 1, 4096, &size) == NULL, "overflowing size accepted");
  printf("ok bnd_build refuses unterminated IDs and overflowing sizes\n");

  target_request t = {0};
  snprintf(t.id, sizeof t.id, "gfx90a:sramecc+:xnack-");
  char buf[128];
  bnd_code_object_id(&t, buf, sizeof buf);
  CHECK(strcmp(buf, "hipv4-amdgcn-amd-amdhsa--gfx90a:sramecc+:xnack-") == 0, "code object id %s",
        buf);
  bnd_bitcode_id(&t, buf, sizeof buf);
  CHECK(strcmp(buf, "openmp-amdgcn-amd-amdhsa--gfx90a:sramecc+:xnack-") == 0, "bitcode id %s", buf);
  printf("ok entry IDs: hipv4-amdgcn-amd-amdhsa--gfx90a:sramecc+:xnack- / %s\n", buf);
}

/* --manifest-sample: a hand-built two-target plan (add -> intermediate -> exp, a fill and a
 * copy node) printed as a manifest, so manifest.bats can check the schema and determinism
 * without the driver. */
static int manifest_sample(bool embed_ir) {
  static source_file src = {.path = "sample.mlir", .text = "", .len = 0};
  static value va = {.id = 0, .is_arg = 1};
  static value vb = {.id = 1, .is_arg = 1};
  static value vt = {.id = 2};
  static value vr = {.id = 3};
  value *vals[] = {&va, &vb, &vt, &vr};
  arena *names = arena_new(); /* the names' strings */
  const char *spelling[] = {"arg0", "arg1", "0", "1"};
  for (int i = 0; i < 4; i++)
    vals[i]->name = name_intern(names, spelling[i]);
  static const tensor_type t23 = {.elem = ET_F32, .rank = 2, .dims = {2, 3}};
  for (int i = 0; i < 4; i++)
    vals[i]->type = &t23;
  static op add = {.id = 0, .kind = OP_ADD}, ex = {.id = 1, .kind = OP_EXP};
  add.loc = src_loc_at(&src, 3, 10);
  ex.loc = src_loc_at(&src, 4, 10);
  value *args[] = {&va, &vb}, *results[] = {&vr, &va};
  graph g = {.file = &src, .entry = "main", .values = vals, .nvalues = 4, .args = args,
             .nargs = 2, .results = results, .nresults = 2};

  part_buffer bufs[] = {
      {.id = 0, .kind = BUF_INPUT, .v = &va, .index = 0, .bytes = 24, .align = 256},
      {.id = 1, .kind = BUF_INPUT, .v = &vb, .index = 1, .bytes = 24, .align = 256},
      {.id = 2, .kind = BUF_OUTPUT, .v = &vr, .index = 0, .bytes = 24, .align = 256},
      {.id = 3, .kind = BUF_OUTPUT, .v = &va, .index = 1, .bytes = 24, .align = 256},
      {.id = 4, .kind = BUF_INTERMEDIATE, .v = &vt, .index = -1, .bytes = 24, .offset = 0,
       .align = 256},
  };
  const op *k0ops[] = {&add}, *k1ops[] = {&ex};
  int k0in[] = {0, 1}, k0out[] = {4}, k1in[] = {4}, k1out[] = {2};
  part_kernel ks[2] = {
      {.id = 0, .name = "tosac_k0_add", .ops = k0ops, .nops = 1, .in_bufs = k0in, .nin = 2,
       .out_bufs = k0out, .nout = 1},
      {.id = 1, .name = "tosac_k1_exp", .ops = k1ops, .nops = 1, .in_bufs = k1in, .nin = 1,
       .out_bufs = k1out, .nout = 1},
  };
  int d1[] = {0}, d2[] = {0, 1};
  launch_node nodes[] = {
      {.id = 0, .kind = LAUNCH_KERNEL, .kernel = 0},
      {.id = 1, .kind = LAUNCH_FILL, .dst_buf = 2, .src_buf = -1, .kernel = -1},
      {.id = 2, .kind = LAUNCH_KERNEL, .kernel = 1, .deps = d2, .ndeps = 2},
      {.id = 3, .kind = LAUNCH_COPY, .src_buf = 0, .dst_buf = 3, .kernel = -1},
  };
  nodes[1].deps = d1, nodes[1].ndeps = 0;
  int order[] = {0, 1, 2, 3};

  static const target_info gfx90a = {.name = "gfx90a", .wave_size = 64, .lds_bytes = 65536,
                                     .has_sramecc = true, .has_xnack = true, .elf_mach = 0x3f};
  static const target_info gfx1030 = {.name = "gfx1030", .wave_size = 32, .lds_bytes = 65536,
                                      .elf_mach = 0x36};
  target_request ts[2] = {{.info = &gfx90a, .sramecc = FEAT_ON, .xnack = FEAT_OFF},
                          {.info = &gfx1030}};
  snprintf(ts[0].id, sizeof ts[0].id, "gfx90a:sramecc+:xnack-");
  snprintf(ts[1].id, sizeof ts[1].id, "gfx1030");

  partition_plan plans[2];
  const partition_plan *pplans[2];
  cg_result res[2];
  cg_kernel_info kinfo[2][2];
  cg_arg kargs[2][2][4];
  static uint8_t bc[4] = {'B', 'C', 0xc0, 0xde};
  for (int t = 0; t < 2; t++) {
    plans[t] = (partition_plan){.target = &ts[t], .kernels = ks, .nkernels = 2, .buffers = bufs,
                                .nbuffers = 5, .nodes = nodes, .nnodes = 4, .order = order, .norder = 4,
                                .workspace_bytes = 256, .workspace_align = 256};
    pplans[t] = &plans[t];
    for (int k = 0; k < 2; k++) {
      cg_kernel_info *ki = &kinfo[t][k];
      memset(ki, 0, sizeof *ki);
      snprintf(ki->name, sizeof ki->name, "%s", ks[k].name);
      snprintf(ki->symbol, sizeof ki->symbol, "%s.kd", ks[k].name);
      int nexp = ks[k].nin + ks[k].nout;
      for (int a = 0; a < nexp; a++) {
        cg_arg *ar = &kargs[t][k][a];
        memset(ar, 0, sizeof *ar);
        bool in = a < ks[k].nin;
        snprintf(ar->name, sizeof ar->name, "%s%d", in ? "in" : "out", in ? a : a - ks[k].nin);
        ar->offset = 8 * a, ar->size = 8;
        snprintf(ar->value_kind, sizeof ar->value_kind, "global_buffer");
        snprintf(ar->address_space, sizeof ar->address_space, "global");
        snprintf(ar->access, sizeof ar->access, in ? "read_only" : "write_only");
        ar->buffer = in ? ks[k].in_bufs[a] : ks[k].out_bufs[a - ks[k].nin];
      }
      /* One hidden argument, as an IR pipeline that keeps block counts would leave. */
      cg_arg *h = &kargs[t][k][nexp];
      memset(h, 0, sizeof *h);
      h->offset = 8 * nexp, h->size = 4, h->buffer = -1;
      snprintf(h->value_kind, sizeof h->value_kind, "hidden_block_count_x");
      ki->args = kargs[t][k], ki->nargs = nexp + 1;
      ki->kernarg_size = 8 * nexp + 4, ki->kernarg_align = 8;
      ki->sgpr = 10 + k, ki->vgpr = 8 + t, ki->wave_size = t ? 32 : 64, ki->max_flat_wg = 256;
      ki->block[0] = 256, ki->block[1] = ki->block[2] = 1;
      ki->grid[0] = ki->grid[1] = ki->grid[2] = 1;
      ki->work_items = 2, ki->vector_width = 4;
    }
    res[t] = (cg_result){.kernels = kinfo[t], .nkernels = 2, .e_flags = t ? 0x36 : 0xe3f,
                         .abi_version = 3, .bitcode = embed_ir ? bc : NULL,
                         .bitcode_size = embed_ir ? sizeof bc : 0};
  }
  cg_options cg = {.opt_level = 3, .code_object_version = 5, .embed_ir = embed_ir};
  bnd_manifest_input in = {.g = &g, .source_path = "sample.mlir", .bundle_path = "sample.hipfb",
                           .ntargets = 2, .targets = ts, .plans = pplans, .results = res,
                           .cg = &cg};
  char *json = bnd_manifest_json(&in);
  arena_free(names);
  if (!json) {
    fprintf(stderr, "bnd_manifest_json failed\n");
    return 1;
  }
  fputs(json, stdout);
  free(json);
  return 0;
}

int main(int argc, char **argv) {
  if (argc >= 2 && strcmp(argv[1], "--manifest-sample") == 0)
    return manifest_sample(argc >= 3 && strcmp(argv[2], "--embed-ir") == 0);
  const char *base = getenv("BATS_TEST_TMPDIR");
  if (!base)
    base = getenv("TMPDIR");
  snprintf(tmpdir, sizeof tmpdir, "%s/test-bundle-XXXXXX", base ? base : "/tmp");
  if (!mkdtemp(tmpdir)) {
    perror("mkdtemp");
    return 2;
  }
  const bcase cases[] = {
      {"hip layout align 4096", 4096, 3,
       {BND_HOST_ID, "hipv4-amdgcn-amd-amdhsa--gfx90a", "hipv4-amdgcn-amd-amdhsa--gfx942"},
       {0, 7720, 7720}},
      {"align 1", 1, 3,
       {BND_HOST_ID, "hipv4-amdgcn-amd-amdhsa--gfx90a", "hipv4-amdgcn-amd-amdhsa--gfx1030"},
       {0, 5000, 4112}},
      {"embedded IR entries", 4096, 5,
       {BND_HOST_ID, "hipv4-amdgcn-amd-amdhsa--gfx90a:sramecc+:xnack-",
        "openmp-amdgcn-amd-amdhsa--gfx90a:sramecc+:xnack-", "hipv4-amdgcn-amd-amdhsa--gfx1030",
        "openmp-amdgcn-amd-amdhsa--gfx1030"},
       {0, 5064, 1540, 4112, 1540}},
      {"exact multiples", 4096, 3,
       {BND_HOST_ID, "hipv4-amdgcn-amd-amdhsa--gfx1100", "hipv4-amdgcn-amd-amdhsa--gfx1201"},
       {0, 4096, 1}},
      {"align 16", 16, 2, {BND_HOST_ID, "hipv4-amdgcn-amd-amdhsa--gfx908"}, {0, 33}},
  };
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++)
    check_against_bundler(&cases[i]);
  malformed_inputs();
  builder_limits();
  for (int i = 0; i < 8; i++) {
    char p[512];
    snprintf(p, sizeof p, "%s/in%d.bin", tmpdir, i);
    unlink(p);
  }
  rmdir(tmpdir);
  if (failures) {
    printf("%d of %d checks failed\n", failures, checks);
    return 1;
  }
  printf("all %d checks passed\n", checks);
  return 0;
}
