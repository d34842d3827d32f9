/* hip_host.c: tosac-hip-run's GPU-free logic (tools/tosac-hip-run/host.c): target selection,
 * kernarg packing, fills, stream scheduling of the launch DAG, .npy. Optional argument: a real
 * manifest, which must parse and select its own targets. */
#include "../../tools/tosac-hip-run/host.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int failures, checks;

#define CHECK(cond, ...)                                                                       \
  do {                                                                                         \
    checks++;                                                                                  \
    if (!(cond)) {                                                                             \
      fprintf(stderr, "FAIL %s:%d: ", __FILE__, __LINE__);                                     \
      fprintf(stderr, __VA_ARGS__);                                                            \
      fputc('\n', stderr);                                                                     \
      failures++;                                                                              \
    }                                                                                          \
  } while (0)

/* A diamond: fill 0 -> kernels 1 and 2 (independent) -> kernel 3; plus a copy 4 after 3. */
static const char *diamond =
    "{\"format\": \"tosac-manifest\", \"inputs\": [{\"index\": 0, \"shape\": [4], "
    "\"element_type\": \"f32\", \"bytes\": 16}], \"outputs\": [{\"index\": 0, \"shape\": [4], "
    "\"element_type\": \"f32\", \"bytes\": 16}, {\"index\": 1, \"shape\": [4], "
    "\"element_type\": \"f32\", \"bytes\": 16}],"
    "\"constants\": {\"storage\": \"folded\", \"file\": null, \"bytes\": 0, \"alignment\": 256},"
    "\"targets\": [{\"target_id\": \"gfx90a:sramecc+:xnack-\", \"bundle_entry_id\": \"hipv4-amdgcn-amd-amdhsa--gfx90a:sramecc+:xnack-\","
    " \"workspace\": {\"bytes\": 512, \"alignment\": 256},"
    " \"buffers\": [{\"id\": 0, \"kind\": \"input\", \"index\": 0, \"offset\": 0, \"bytes\": 16},"
    "  {\"id\": 1, \"kind\": \"intermediate\", \"index\": -1, \"offset\": 0, \"bytes\": 16},"
    "  {\"id\": 2, \"kind\": \"intermediate\", \"index\": -1, \"offset\": 256, \"bytes\": 16},"
    "  {\"id\": 3, \"kind\": \"output\", \"index\": 0, \"offset\": 0, \"bytes\": 16},"
    "  {\"id\": 4, \"kind\": \"output\", \"index\": 1, \"offset\": 0, \"bytes\": 16}],"
    " \"kernels\": [{\"id\": 0, \"name\": \"k\", \"block\": [64, 1, 1], \"grid\": [1, 1, 1],"
    "  \"kernarg_size\": 280, \"kernarg_align\": 8, \"args\": ["
    "   {\"index\": 0, \"offset\": 0, \"size\": 8, \"value_kind\": \"global_buffer\", \"buffer\": 0},"
    "   {\"index\": 1, \"offset\": 8, \"size\": 8, \"value_kind\": \"global_buffer\", \"buffer\": 1},"
    "   {\"index\": 2, \"offset\": 16, \"size\": 4, \"value_kind\": \"hidden_block_count_x\", \"buffer\": null}]}],"
    " \"launches\": [{\"id\": 0, \"kind\": \"fill\", \"buffer\": 1, \"offset\": 0, \"bytes\": 16, \"bits\": \"0xff800000\", \"deps\": []},"
    "  {\"id\": 1, \"kind\": \"kernel\", \"kernel\": 0, \"deps\": [0]},"
    "  {\"id\": 2, \"kind\": \"kernel\", \"kernel\": 0, \"deps\": [0]},"
    "  {\"id\": 3, \"kind\": \"kernel\", \"kernel\": 0, \"deps\": [1, 2]},"
    "  {\"id\": 4, \"kind\": \"copy\", \"src_buffer\": 3, \"dst_buffer\": 4, \"bytes\": 16, \"deps\": [3]}],"
    " \"order\": [0, 2, 1, 3, 4]},"
    " {\"target_id\": \"gfx90a\", \"bundle_entry_id\": \"hipv4-amdgcn-amd-amdhsa--gfx90a\","
    " \"workspace\": {\"bytes\": 0, \"alignment\": 256}, \"buffers\": [], \"kernels\": [],"
    " \"launches\": [], \"order\": []}]}";

static void test_compatibility(void) {
  static const struct { const char *code, *device; bool ok; } cases[] = {
      {"gfx90a", "gfx90a:sramecc+:xnack-", true},
      {"gfx90a:sramecc+:xnack-", "gfx90a:sramecc+:xnack-", true},
      {"gfx90a:xnack+", "gfx90a:sramecc+:xnack-", false},
      {"gfx90a:sramecc-", "gfx90a:sramecc+:xnack-", false},
      {"gfx90a", "amdgcn-amd-amdhsa--gfx90a:sramecc+:xnack-", true},
      {"gfx942", "gfx90a:sramecc+:xnack-", false},
      {"gfx1100", "gfx1100", true},
      {"gfx110", "gfx1100", false},
      {"gfx1100", "gfx110", false},
      {"gfx942:xnack-", "gfx942", false}, /* the device does not report xnack: no match */
  };
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++)
    CHECK(hr_target_compatible(cases[i].code, cases[i].device) == cases[i].ok,
          "code %s on device %s: expected %s", cases[i].code, cases[i].device,
          cases[i].ok ? "compatible" : "incompatible");
}

static void test_diamond(void) {
  hr_manifest m;
  char err[512];
  bool ok = hr_manifest_parse(diamond, &m, err, sizeof err);
  CHECK(ok, "diamond manifest: %s", err);
  if (!ok)
    return;
  /* First compatible target wins: the specific one for a matching device, the Any one for the
   * other xnack mode. */
  CHECK(hr_select_target(&m, "gfx90a:sramecc+:xnack-") == 0, "select sramecc+/xnack-");
  CHECK(hr_select_target(&m, "gfx90a:sramecc+:xnack+") == 1, "select xnack+ device -> Any");
  CHECK(hr_select_target(&m, "gfx942:sramecc+:xnack-") == -1, "gfx942 has no target");
  const hr_target *t = &m.targets[0];

  uint64_t in[1] = {0x1000}, out[2] = {0x2000, 0x3000}, addr[5];
  hr_buffer_addresses(t, in, out, 0x10000, 0x20000, addr);
  CHECK(addr[0] == 0x1000 && addr[1] == 0x10000 && addr[2] == 0x10100 && addr[3] == 0x2000 &&
            addr[4] == 0x3000,
        "buffer addresses %llx %llx %llx %llx %llx", (unsigned long long)addr[0],
        (unsigned long long)addr[1], (unsigned long long)addr[2], (unsigned long long)addr[3],
        (unsigned long long)addr[4]);

  uint8_t args[280];
  memset(args, 0xaa, sizeof args);
  size_t size = hr_pack_kernargs(&t->kernels[0], addr, t->nbuffers, args, sizeof args, err,
                                 sizeof err);
  uint64_t a0, a1;
  memcpy(&a0, args, 8);
  memcpy(&a1, args + 8, 8);
  CHECK(size == 16, "kernarg size %zu, expected 16 (explicit arguments only)", size);
  CHECK(a0 == 0x1000 && a1 == 0x10000, "packed pointers %llx %llx", (unsigned long long)a0,
        (unsigned long long)a1);
  CHECK(args[16] == 0 && args[279] == 0, "hidden argument bytes are zeroed");
  CHECK(hr_pack_kernargs(&t->kernels[0], addr, t->nbuffers, args, 12, err, sizeof err) == 0 &&
            strstr(err, "does not fit"),
        "a too-small kernarg buffer is refused: %s", err);

  hr_fill_plan fp = hr_plan_fill(&t->launches[0]);
  CHECK(fp.width == 32 && fp.value == 0xff800000u && fp.count == 4, "-inf fill: D32 x4, got %d %x %zu",
        fp.width, fp.value, fp.count);
  hr_launch zero = {.kind = HR_FILL, .bytes = 64, .bits_width = 32, .bits = 0};
  fp = hr_plan_fill(&zero);
  CHECK(fp.width == 8 && fp.value == 0 && fp.count == 64, "zero fill: D8 x64");
  hr_launch h = {.kind = HR_FILL, .bytes = 8, .bits_width = 16, .bits = 0x3c00};
  fp = hr_plan_fill(&h);
  CHECK(fp.width == 16 && fp.value == 0x3c00 && fp.count == 4, "f16 1.0 fill: D16 x4");
  hr_launch d = {.kind = HR_FILL, .bytes = 16, .bits_width = 64, .bits = 0x3ff0000000000000ull};
  fp = hr_plan_fill(&d);
  CHECK(fp.width == 0 && fp.count == 2, "f64 1.0 fill: pattern copy of 2 elements");

  /* Two streams, order 0 2 1 3 4: 0 on s0; 2 continues 0's chain on s0; 1 (0 is no longer last
   * on s0) takes s1; 3 continues its first dep 1 on s1 and waits for 2; 4 follows 3. */
  int stream[5];
  hr_schedule(t, 2, stream);
  CHECK(stream[0] == 0 && stream[2] == 0 && stream[1] == 1, "streams %d %d %d", stream[0],
        stream[1], stream[2]);
  CHECK(stream[3] == 1 && stream[4] == 1, "3 continues 1's chain, 4 continues 3's: %d %d",
        stream[3], stream[4]);
  CHECK(hr_needs_wait(t, stream, 1, 0), "1 waits for the fill on another stream");
  CHECK(hr_needs_wait(t, stream, 3, 1) && !hr_needs_wait(t, stream, 3, 0),
        "3 waits for 2 (other stream) but not for 1");
  CHECK(!hr_needs_wait(t, stream, 4, 0), "4 follows 3 on the same stream");
  int one[5];
  hr_schedule(t, 1, one);
  for (int i = 0; i < 5; i++)
    CHECK(one[i] == 0, "one stream: everything on stream 0");
  hr_manifest_free(&m);
}

static void test_bad_manifests(void) {
  hr_manifest m;
  char err[512];
  char *bad = strdup(diamond);
  /* order violating a dep: 3 before 1 */
  char *o = strstr(bad, "\"order\": [0, 2, 1, 3, 4]");
  memcpy(o, "\"order\": [0, 2, 3, 1, 4]", 24);
  CHECK(!hr_manifest_parse(bad, &m, err, sizeof err) && strstr(err, "topological"),
        "an order against the deps is refused: %s", err);
  free(bad);
  bad = strdup(diamond);
  o = strstr(bad, "\"buffer\": 1}");
  memcpy(o, "\"buffer\": 9}", 12);
  CHECK(!hr_manifest_parse(bad, &m, err, sizeof err) && strstr(err, "kernel 0"),
        "an argument bound to buffer 9 of 5 is refused: %s", err);
  free(bad);
  CHECK(!hr_manifest_parse("{\"format\": 1}", &m, err, sizeof err), "format must be a string");
  CHECK(!hr_manifest_parse("[", &m, err, sizeof err), "invalid JSON");
}

/* The diamond's launches replaced by a readback of buffer 1 and an if running kernel 3 or the
 * copy 4 (docs/manifest.md "Control nodes"); `order` and `then` as given. */
static char *control_graph(const char *order, const char *then) {
  static const char *const old_order = "\"order\": [0, 2, 1, 3, 4]},";
  const char *a = strstr(diamond, " \"launches\": ["), *b = strstr(diamond, old_order);
  char *s = malloc(strlen(diamond) + 1024);
  int n = sprintf(s, "%.*s", (int)(a - diamond), diamond);
  n += sprintf(s + n, " \"launches\": [{\"id\": 0, \"kind\": \"fill\", \"buffer\": 1,"
               " \"offset\": 0, \"bytes\": 16, \"bits\": \"0x00000000\", \"deps\": []},"
               " {\"id\": 1, \"kind\": \"readback\", \"buffer\": 1, \"bytes\": 1, \"deps\": [0]},"
               " {\"id\": 2, \"kind\": \"if\", \"condition\": 1, \"then\": %s, \"else\": [4],"
               " \"operands\": [], \"results\": [], \"deps\": [1]},"
               " {\"id\": 3, \"kind\": \"kernel\", \"kernel\": 0, \"deps\": []},"
               " {\"id\": 4, \"kind\": \"copy\", \"src_buffer\": 3, \"dst_buffer\": 4,"
               " \"bytes\": 16, \"deps\": []}], \"order\": %s},", then, order);
  strcpy(s + n, b + strlen(old_order));
  return s;
}

static void test_control(void) {
  hr_manifest m;
  char err[512];
  char *text = control_graph("[0, 1, 2]", "[3]");
  bool ok = hr_manifest_parse(text, &m, err, sizeof err);
  CHECK(ok, "a readback + if graph parses: %s", err);
  free(text);
  if (!ok)
    return;
  const hr_target *t = &m.targets[0];
  CHECK(t->norder == 3 && t->launches[2].kind == HR_IF && t->launches[1].kind == HR_READBACK,
        "order has the 3 top-level launches");
  CHECK(t->launches[3].parent == 2 && t->launches[4].parent == 2 && t->launches[2].parent == -1,
        "region launches know their control node");
  /* order 0 1 2 on 3 streams: 0 s0, 1 continues it, 2 continues 1; the regions run on s0 */
  int stream[5];
  hr_schedule(t, 3, stream);
  CHECK(stream[3] == stream[2] && stream[4] == stream[2], "regions on the if's stream: %d %d %d",
        stream[2], stream[3], stream[4]);
  hr_manifest_free(&m);
  text = control_graph("[0, 1]", "[2]");
  CHECK(!hr_manifest_parse(text, &m, err, sizeof err) &&
            !strcmp(err, "target gfx90a:sramecc+:xnack-: launch 3 is in no list (order or a "
                         "region of an if / while)"), "a launch in no list: %s", err);
  free(text);
  text = control_graph("[0, 1]", "[2, 3]");
  CHECK(!hr_manifest_parse(text, &m, err, sizeof err) &&
            !strcmp(err, "target gfx90a:sramecc+:xnack-: 3 launches are never run (control "
                         "nodes outside order list each other)"), "an if listing itself: %s", err);
  free(text);
}

static void test_npy(void) {
  hr_tensor t = {.element_type = "f32", .rank = 2, .dims = {2, 3}, .bytes = 24};
  float v[6] = {1, 2, 3, 4, 5, -6};
  size_t size;
  uint8_t *f = hr_npy_encode(&t, v, &size);
  hr_npy n;
  char err[256];
  CHECK(size == 128 + 24, ".npy size %zu, expected 152 (64-byte aligned header)", size);
  CHECK(hr_npy_parse(f, size, &n, err, sizeof err), "parse: %s", err);
  CHECK(!strcmp(n.descr, "<f4") && n.rank == 2 && n.dims[0] == 2 && n.dims[1] == 3 &&
            n.bytes == 24 && !memcmp(n.data, v, 24),
        "round trip");
  CHECK(hr_npy_matches(&n, &t, err, sizeof err), "matches: %s", err);
  hr_tensor other = {.element_type = "f16", .rank = 2, .dims = {2, 3}, .bytes = 12};
  CHECK(!hr_npy_matches(&n, &other, err, sizeof err), "f32 data for an f16 input is refused");
  free(f);
  hr_tensor vec = {.element_type = "i32", .rank = 1, .dims = {3}, .bytes = 12};
  int32_t iv[3] = {7, 8, 9};
  f = hr_npy_encode(&vec, iv, &size);
  CHECK(memmem(f, size, "'shape': (3,)", 13) != NULL, "rank-1 shape spelled (3,)");
  free(f);
  CHECK(!hr_npy_parse((const uint8_t *)"\x93NUMPY\x01\x00\xff\xff", 10, &n, err, sizeof err),
        "a header longer than the file is refused");
}

static void test_real_manifest(const char *path) {
  FILE *f = fopen(path, "rb");
  CHECK(f != NULL, "cannot open %s", path);
  if (!f)
    return;
  fseek(f, 0, SEEK_END);
  long n = ftell(f);
  rewind(f);
  char *text = calloc((size_t)n + 1, 1);
  CHECK(fread(text, 1, (size_t)n, f) == (size_t)n, "read %s", path);
  fclose(f);
  hr_manifest m;
  char err[512];
  bool ok = hr_manifest_parse(text, &m, err, sizeof err);
  CHECK(ok, "%s: %s", path, err);
  for (int i = 0; ok && i < m.ntargets; i++) {
    CHECK(hr_select_target(&m, m.targets[i].target_id) <= i, "target %s selects itself or an "
          "earlier compatible one", m.targets[i].target_id);
    const hr_target *t = &m.targets[i];
    uint64_t *addr = calloc((size_t)t->nbuffers + 1, 8);
    for (int b = 0; b < t->nbuffers; b++)
      addr[b] = 0x100000ull * (uint64_t)(b + 1);
    for (int k = 0; k < t->nkernels; k++) {
      uint8_t args[4096];
      size_t size = hr_pack_kernargs(&t->kernels[k], addr, t->nbuffers, args, sizeof args, err,
                                     sizeof err);
      CHECK(size > 0 && size <= (size_t)t->kernels[k].kernarg_size, "%s kernel %s: %s",
            t->target_id, t->kernels[k].name, err);
    }
    free(addr);
  }
  if (ok)
    hr_manifest_free(&m);
  free(text);
}

int main(int argc, char **argv) {
  test_compatibility();
  test_diamond();
  test_bad_manifests();
  test_control();
  test_npy();
  for (int i = 1; i < argc; i++)
    test_real_manifest(argv[i]);
  printf("hip_host: %d checks, %d failures\n", checks, failures);
  return failures ? 1 : 0;
}
