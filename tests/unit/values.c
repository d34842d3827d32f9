/* values.c (unit test): tosac-run's value parsing/printing, 16-bit float rounding, .npy, result
 * comparison, kernarg layout and manifest validation. Reports every failed check; exits non-zero
 * if any. */
#include "../../tools/tosac-run/run.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"

#define CHECK_STR(got, want)                                                                   \
  do {                                                                                         \
    const char *g_ = (got), *w_ = (want);                                                      \
    if (strcmp(g_, w_) != 0) {                                                                 \
      fprintf(stderr, "%s:%d: got \"%s\", want \"%s\"\n", __FILE__, __LINE__, g_, w_);         \
      failures++;                                                                              \
    }                                                                                          \
  } while (0)

/* Parse one spec; returns the printed value (static buffer) or "ERROR: message". */
static const char *roundtrip(const char *spec, const tensor_type *hint) {
  static char out[4096];
  run_value_list l = {0};
  run_file_cursor cur = {0};
  char err[512];
  if (!run_parse_value(spec, hint, hint ? 1 : 0, &l, &cur, err, sizeof(err))) {
    snprintf(out, sizeof(out), "ERROR: %s", err);
  } else {
    char *buf = NULL;
    size_t n = 0;
    FILE *f = open_memstream(&buf, &n);
    for (int i = 0; i < l.count; i++)
      run_print_value(f, &l.items[i], 1024);
    fclose(f);
    snprintf(out, sizeof(out), "%s", buf);
    free(buf);
    size_t len = strlen(out);
    if (len && out[len - 1] == '\n')
      out[len - 1] = 0;
  }
  run_value_list_free(&l);
  run_cursor_free(&cur);
  return out;
}

static void test_shape_type(void) {
  tensor_type t;
  CHECK(run_parse_shape_type("2x3xf32", 7, &t) && t.rank == 2 && t.dims[0] == 2 &&
        t.dims[1] == 3 && t.elem == ET_F32);
  CHECK(run_parse_shape_type("f16", 3, &t) && t.rank == 0 && t.elem == ET_F16);
  CHECK(run_parse_shape_type("0x4xi8", 6, &t) && t.rank == 2 && t.dims[0] == 0);
  CHECK(!run_parse_shape_type("2x3xf33", 7, &t));
  CHECK(!run_parse_shape_type("2xx3xf32", 8, &t));
  CHECK(!run_parse_shape_type("2x3", 3, &t));
  CHECK(!run_parse_shape_type("1234", 4, &t));
  CHECK(!run_parse_shape_type("2x3xi4", 6, &t)); /* not supported by tosac-run */
  char buf[64];
  CHECK(run_parse_shape_type("1x2x3xbf16", 10, &t));
  CHECK_STR(run_shape_type_str(&t, buf, sizeof(buf)), "1x2x3xbf16");
}

static void test_half_floats(void) {
  CHECK(run_f16_from_double(1.0) == 0x3c00);
  CHECK(run_f16_from_double(-2.0) == 0xc000);
  CHECK(run_f16_from_double(65504.0) == 0x7bff);
  CHECK(run_f16_from_double(65519.0) == 0x7bff);
  CHECK(run_f16_from_double(65520.0) == 0x7c00); /* halfway to 2^16 rounds to infinity */
  CHECK(run_f16_from_double(ldexp(1, -24)) == 0x0001);
  CHECK(run_f16_from_double(ldexp(1, -25)) == 0x0000);     /* tie to even: 0 */
  CHECK(run_f16_from_double(ldexp(3, -25)) == 0x0002);     /* tie to even: 2 */
  CHECK(run_f16_from_double(1 + ldexp(1, -11)) == 0x3c00); /* tie to even */
  CHECK(run_f16_from_double(1 + ldexp(3, -11)) == 0x3c02);
  CHECK(run_f16_from_double(ldexp(1023, -24) + ldexp(1, -25)) == 0x0400); /* up to min normal */
  CHECK(run_f16_from_double(-0.0) == 0x8000);
  CHECK(run_f16_from_double(NAN) == 0x7e00);
  CHECK(run_f16_from_double(INFINITY) == 0x7c00);
  CHECK(run_bf16_from_double(1.0) == 0x3f80);
  CHECK(run_bf16_from_double(1 + ldexp(1, -8)) == 0x3f80);
  CHECK(run_bf16_from_double(1 + ldexp(3, -8)) == 0x3f82);
  CHECK(run_bf16_from_double(3.4e38) == 0x7f80);
  CHECK(run_bf16_from_double(3.39e38) == 0x7f7f);
  CHECK(run_bf16_from_double(3.38e38) == 0x7f7e);
  CHECK(run_f16_to_float(0x3555) == 0.333251953125f);
  CHECK(run_bf16_to_float(0xc040) == -3.0f);
  /* Every finite pattern survives bits -> float -> bits and bits -> text -> bits. */
  int bad = 0;
  for (uint32_t h = 0; h < 65536; h++) {
    for (int bf = 0; bf < 2; bf++) {
      float f = bf ? run_bf16_to_float((uint16_t)h) : run_f16_to_float((uint16_t)h);
      if (isnan(f))
        continue;
      uint16_t back = bf ? run_bf16_from_double(f) : run_f16_from_double(f);
      run_value v = {.type = {.elem = bf ? ET_BF16 : ET_F16}, .data = (uint8_t *)&h, .bytes = 2};
      uint16_t hh = (uint16_t)h;
      v.data = (uint8_t *)&hh;
      char text[64];
      run_format_element(&v, 0, text, sizeof(text));
      uint16_t parsed = bf ? run_bf16_from_double(strtod(text, NULL))
                           : run_f16_from_double(strtod(text, NULL));
      bad += back != hh || parsed != hh;
    }
  }
  CHECK(bad == 0);
}

static void test_parse_print(void) {
  CHECK_STR(roundtrip("2x3xf32=1 2 3 4 5 6", NULL), "2x3xf32=[1 2 3][4 5 6]");
  CHECK_STR(roundtrip("2x3xi32=[1 2 3][4 5 6]", NULL), "2x3xi32=[1 2 3][4 5 6]");
  CHECK_STR(roundtrip("2xi32=11,12", NULL), "2xi32=11 12");
  CHECK_STR(roundtrip("2xi32", NULL), "2xi32=0 0");
  CHECK_STR(roundtrip("4xf32=2.0", NULL), "4xf32=2 2 2 2");
  CHECK_STR(roundtrip("i32=5", NULL), "i32=5");
  CHECK_STR(roundtrip("2x2x2xi8=1 2 3 4 5 6 7 -8", NULL), "2x2x2xi8=[[1 2][3 4]][[5 6][7 -8]]");
  CHECK_STR(roundtrip("3xf32=0.1 -2.5 1e10", NULL), "3xf32=0.1 -2.5 1e+10");
  CHECK_STR(roundtrip("f32=0.333333333", NULL), "f32=0.33333334");
  CHECK_STR(roundtrip("3xf32=nan inf -inf", NULL), "3xf32=nan inf -inf");
  CHECK_STR(roundtrip("2xf16=0.1 65504", NULL), "2xf16=0.1 65504");
  CHECK_STR(roundtrip("2xbf16=0.1 3", NULL), "2xbf16=0.1 3");
  CHECK_STR(roundtrip("3xbf16=1234 256 1e10", NULL), "3xbf16=1232 256 9.999e+09");
  CHECK_STR(roundtrip("2xf32=16777216 1e10", NULL), "2xf32=16777216 1e+10");
  CHECK_STR(roundtrip("3xi1=1 0 true", NULL), "3xi1=1 0 1");
  CHECK_STR(roundtrip("2xi8=255 -128", NULL), "2xi8=-1 -128");
  CHECK_STR(roundtrip("i64=-9223372036854775808", NULL), "i64=-9223372036854775808");
  CHECK_STR(roundtrip("f64=0.1", NULL), "f64=0.1");
  CHECK_STR(roundtrip("0x3xf32", NULL), "0x3xf32=");
  tensor_type hint = {.elem = ET_I32};
  CHECK_STR(roundtrip("1234", &hint), "i32=1234");
  CHECK_STR(roundtrip("-3.14", &(tensor_type){.elem = ET_F32}), "f32=-3.14");
  /* errors */
  CHECK_STR(roundtrip("1234", NULL),
            "ERROR: cannot tell the element type of '1234'; write it as f32=1234");
  CHECK_STR(roundtrip("2x3xf32=1 2 3", NULL), "ERROR: 2x3xf32 needs 6 values, got 3");
  CHECK_STR(roundtrip("2xi8=1 256", NULL), "ERROR: element 1: '256' is not a valid i8");
  CHECK_STR(roundtrip("2xf32=1 x", NULL), "ERROR: element 1: 'x' is not a valid f32");
  CHECK_STR(roundtrip("2xq32=1 2", NULL),
            "ERROR: '2xq32' is not a shape and element type like 2x3xf32");
  CHECK_STR(roundtrip("2xi1=2 0", NULL), "ERROR: element 0: '2' is not a valid i1");
  CHECK_STR(roundtrip("@/nonexistent.npy", NULL),
            "ERROR: cannot read '/nonexistent.npy': No such file or directory");
  /* truncation after max elements */
  run_value_list l = {0};
  run_file_cursor cur = {0};
  char err[256], *buf = NULL;
  size_t n = 0;
  CHECK(run_parse_value("2x3xi32=1 2 3 4 5 6", NULL, 0, &l, &cur, err, sizeof(err)));
  FILE *f = open_memstream(&buf, &n);
  run_print_value(f, &l.items[0], 4);
  fclose(f);
  CHECK_STR(buf, "2x3xi32=[1 2 3][4...]\n");
  free(buf);
  run_value_list_free(&l);
}

/* "@path" / "+path" (a fresh buffer per call, enough for one statement). */
static const char *prefixed(char c, const char *path) {
  static char buf[160];
  snprintf(buf, sizeof(buf), "%c%s", c, path);
  return buf;
}

static void test_files(void) {
  char dir[] = "/tmp/test-values-XXXXXX";
  CHECK(mkdtemp(dir) != NULL);
  char npy[128], bin[128], txt[128], err[256];
  snprintf(npy, sizeof(npy), "%s/a.npy", dir);
  snprintf(bin, sizeof(bin), "%s/a.bin", dir);
  snprintf(txt, sizeof(txt), "%s/in.txt", dir);
  run_value_list l = {0};
  run_file_cursor cur = {0};
  CHECK(run_parse_value("2x3xf32=1 2 3 4 5 6", NULL, 0, &l, &cur, err, sizeof(err)));
  CHECK(run_parse_value("3xi1=1 0 1", NULL, 0, &l, &cur, err, sizeof(err)));
  CHECK(run_parse_value("bf16=1.5", NULL, 0, &l, &cur, err, sizeof(err)));
  /* header is padded so the data starts at a multiple of 64 */
  size_t size;
  uint8_t *enc = run_npy_encode(&l.items[0], &size);
  CHECK(size == 128 + 24);
  CHECK(memcmp(enc + 10, "{'descr': '<f4', 'fortran_order': False, 'shape': (2, 3), }", 59) == 0);
  CHECK(enc[127] == '\n' && enc[8] == 118 && enc[9] == 0);
  free(enc);
  enc = run_npy_encode(&l.items[1], &size);
  CHECK(memcmp(enc + 10, "{'descr': '|b1', 'fortran_order': False, 'shape': (3,), }", 57) == 0);
  free(enc);
  /* @ writes, + appends; *file reads them all back */
  CHECK(run_write_output(prefixed('@', npy), 0, &l.items[0], 1024, err, sizeof(err)));
  CHECK(run_write_output(prefixed('+', npy), 1, &l.items[1], 1024, err, sizeof(err)));
  CHECK(run_write_output(prefixed('+', npy), 2, &l.items[2], 1024, err, sizeof(err)));
  char spec[160];
  snprintf(spec, sizeof(spec), "*%s", npy);
  run_value_list back = {0};
  CHECK(run_parse_value(spec, NULL, 0, &back, &cur, err, sizeof(err)));
  CHECK(back.count == 3);
  for (int i = 0; i < back.count && i < 3; i++)
    CHECK(tensor_type_equal(&back.items[i].type, &l.items[i].type) &&
          memcmp(back.items[i].data, l.items[i].data, l.items[i].bytes) == 0);
  run_value_list_free(&back);
  /* @ then + read arrays one after the other */
  snprintf(spec, sizeof(spec), "@%s", npy);
  CHECK(run_parse_value(spec, NULL, 0, &back, &cur, err, sizeof(err)));
  snprintf(spec, sizeof(spec), "+%s", npy);
  CHECK(run_parse_value(spec, NULL, 0, &back, &cur, err, sizeof(err)));
  CHECK(back.count == 2 && back.items[1].type.elem == ET_I1);
  run_value_list_free(&back);
  /* raw binary with @ and + */
  CHECK(run_write_output(prefixed('@', bin), 0, &l.items[0], 1024, err, sizeof(err)));
  snprintf(spec, sizeof(spec), "3xf32=@%s", bin);
  CHECK(run_parse_value(spec, NULL, 0, &back, &cur, err, sizeof(err)));
  snprintf(spec, sizeof(spec), "3xf32=+%s", bin);
  CHECK(run_parse_value(spec, NULL, 0, &back, &cur, err, sizeof(err)));
  CHECK(!run_parse_value(spec, NULL, 0, &back, &cur, err, sizeof(err)));
  CHECK(strstr(err, "needs 12 bytes at offset 24, file has 24") != NULL);
  CHECK(back.count == 2 && run_value_get(&back.items[1], 2) == 6.0);
  run_value_list_free(&back);
  /* a text file of specs */
  FILE *f = fopen(txt, "w");
  fprintf(f, "2xi32=1 2\n# comment\n\nf32=3\n");
  fclose(f);
  snprintf(spec, sizeof(spec), "@%s", txt);
  CHECK(run_parse_value(spec, NULL, 0, &back, &cur, err, sizeof(err)));
  CHECK(back.count == 2 && back.items[1].type.elem == ET_F32);
  run_value_list_free(&back);
  /* malformed .npy */
  size_t pos = 0;
  run_value v;
  CHECK(!run_npy_read((const uint8_t *)"hello world", 11, &pos, &v, err, sizeof(err)));
  CHECK_STR(err, "not a .npy array at offset 0");
  enc = run_npy_encode(&l.items[0], &size);
  CHECK(!run_npy_read(enc, size - 1, &pos, &v, err, sizeof(err)));
  CHECK_STR(err, ".npy data is truncated: needs 24 bytes, has 23");
  memcpy(enc + 10 + 34, "True ", 5);
  CHECK(!run_npy_read(enc, size, &pos, &v, err, sizeof(err)));
  CHECK_STR(err, "Fortran-order .npy arrays are not supported");
  memcpy(enc + 10 + 34, "False", 5);
  memcpy(enc + 10 + 11, "<c8", 3);
  CHECK(!run_npy_read(enc, size, &pos, &v, err, sizeof(err)));
  CHECK_STR(err, "unsupported .npy dtype <c8");
  free(enc);
  run_value_list_free(&l);
  run_cursor_free(&cur);
  remove(npy);
  remove(bin);
  remove(txt);
  remove(dir);
}

static const char *compare(const char *got, const char *exp, double f32_threshold) {
  static char out[512];
  run_value_list l = {0};
  run_file_cursor cur = {0};
  char err[256];
  CHECK(run_parse_value(got, NULL, 0, &l, &cur, err, sizeof(err)));
  CHECK(run_parse_value(exp, NULL, 0, &l, &cur, err, sizeof(err)));
  run_tolerance tol;
  run_tolerance_defaults(&tol);
  if (f32_threshold >= 0) {
    tol.atol[ET_F32] = f32_threshold;
    tol.rtol[ET_F32] = 0;
  }
  char *buf = NULL;
  size_t n = 0;
  FILE *f = open_memstream(&buf, &n);
  bool ok = run_compare(1, &l.items[0], &l.items[1], &tol, f);
  fclose(f);
  snprintf(out, sizeof(out), "%s%s", ok ? "OK" : "", buf);
  free(buf);
  run_value_list_free(&l);
  return out;
}

static void test_compare(void) {
  CHECK_STR(compare("3xf32=1 2 nan", "3xf32=1 2.00001 nan", -1), "OK");
  CHECK_STR(compare("4xf32=1 2 3 2.5", "4xf32=1 2 3 4.5", -1),
            "[FAILED] result[1]: element at index 3 (2.5) does not match the expected (4.5); "
            "tolerance 5.5e-05\n");
  CHECK_STR(compare("f32=2", "f32=2.5", 0.6), "OK");
  CHECK_STR(compare("f32=nan", "f32=1", 0.6),
            "[FAILED] result[1]: element at index 0 (nan) does not match the expected (1); "
            "tolerance 0.6\n");
  CHECK_STR(compare("2xi32=1 2", "2xi32=1 3", -1),
            "[FAILED] result[1]: element at index 1 (2) does not match the expected (3)\n");
  CHECK_STR(compare("2xi32=1 2", "2xf32=1 2", -1),
            "[FAILED] result[1]: metadata is 2xi32; expected that the view matches 2xf32\n");
  CHECK_STR(compare("2xf16=1 2", "2xf16=1.001 2", -1), "OK");
  CHECK_STR(compare("f32=inf", "f32=inf", -1), "OK");
}

static void test_kernarg(void) {
  run_arg args[] = {
      {.index = 0, .value_kind = "global_buffer", .offset = 0, .size = 8, .buffer = 1},
      {.index = 1, .value_kind = "global_buffer", .offset = 8, .size = 8, .buffer = 0},
      {.index = 2, .value_kind = "hidden_block_count_x", .offset = 16, .size = 4, .buffer = -1},
      {.index = 3, .value_kind = "hidden_block_count_y", .offset = 20, .size = 4, .buffer = -1},
      {.index = 4, .value_kind = "hidden_group_size_x", .offset = 28, .size = 2, .buffer = -1},
      {.index = 5, .value_kind = "hidden_remainder_x", .offset = 34, .size = 2, .buffer = -1},
      {.index = 6, .value_kind = "hidden_global_offset_x", .offset = 56, .size = 8, .buffer = -1},
      {.index = 7, .value_kind = "hidden_grid_dims", .offset = 80, .size = 2, .buffer = -1},
  };
  run_kernel k = {.name = "k", .block = {256, 1, 1}, .grid = {7, 1, 1}, .kernarg_size = 272,
                  .args = args, .nargs = 8};
  uint64_t addrs[2] = {0x1000, 0x2000};
  uint8_t ka[272];
  char err[256];
  CHECK(run_build_kernarg(&k, addrs, 2, ka, err, sizeof(err)));
  uint64_t p0, p1, off;
  uint32_t bx, by;
  uint16_t gx, rx, dims;
  memcpy(&p0, ka, 8);
  memcpy(&p1, ka + 8, 8);
  memcpy(&bx, ka + 16, 4);
  memcpy(&by, ka + 20, 4);
  memcpy(&gx, ka + 28, 2);
  memcpy(&rx, ka + 34, 2);
  memcpy(&off, ka + 56, 8);
  memcpy(&dims, ka + 80, 2);
  CHECK(p0 == 0x2000 && p1 == 0x1000 && bx == 7 && by == 1 && gx == 256 && rx == 0 &&
        off == 0 && dims == 3);
  args[1].buffer = -1;
  CHECK(!run_build_kernarg(&k, addrs, 2, ka, err, sizeof(err)));
  CHECK_STR(err, "kernel k: argument 1 (global_buffer) is bound to no buffer");
}

static const char manifest_ok[] =
    "{\"format\": \"tosac-manifest\", \"version\": 1, \"entry\": \"main\","
    " \"constants\": {\"storage\": \"file\", \"file\": null, \"bytes\": 0, \"alignment\": 256},"
    " \"inputs\": [{\"index\": 0, \"name\": \"arg0\", \"shape\": [2,3], \"element_type\": \"f32\", \"bytes\": 24}],"
    " \"outputs\": [{\"index\": 0, \"shape\": [2,3], \"element_type\": \"f32\", \"bytes\": 24}],"
    " \"targets\": [{\"target_id\": \"gfx90a:sramecc+:xnack-\", \"processor\": \"gfx90a\","
    "   \"bundle_entry_id\": \"hipv4-amdgcn-amd-amdhsa--gfx90a:sramecc+:xnack-\", \"ir_entry_id\": null,"
    "   \"wavefront_size\": 64, \"lds_limit\": 65536, \"workspace\": {\"bytes\": 256, \"alignment\": 256},"
    "   \"buffers\": [{\"id\": 0, \"kind\": \"input\", \"index\": 0, \"offset\": 0, \"bytes\": 24, \"element_type\": \"f32\", \"shape\": [2,3]},"
    "                {\"id\": 1, \"kind\": \"output\", \"index\": 0, \"offset\": 0, \"bytes\": 24, \"element_type\": \"f32\", \"shape\": [2,3]},"
    "                {\"id\": 2, \"kind\": \"intermediate\", \"index\": -1, \"offset\": 0, \"bytes\": 24, \"element_type\": \"f32\", \"shape\": [2,3]}],"
    "   \"kernels\": [{\"id\": 0, \"name\": \"k0\", \"block\": [256,1,1], \"grid\": [1,1,1], \"lds_bytes\": 0,"
    "     \"kernarg_size\": 16, \"kernarg_align\": 8, \"max_flat_workgroup_size\": 256,"
    "     \"args\": [{\"index\": 0, \"offset\": 0, \"size\": 8, \"value_kind\": \"global_buffer\", \"buffer\": 0},"
    "               {\"index\": 1, \"offset\": 8, \"size\": 8, \"value_kind\": \"global_buffer\", \"buffer\": 2}]}],"
    "   \"launches\": [{\"id\": 0, \"kind\": \"fill\", \"buffer\": 2, \"offset\": 0, \"bytes\": 24, \"element_type\": \"f32\", \"value\": 0, \"bits\": \"0x3f800000\", \"deps\": []},"
    "                 {\"id\": 1, \"kind\": \"kernel\", \"kernel\": 0, \"deps\": [0]},"
    "                 {\"id\": 2, \"kind\": \"copy\", \"src_buffer\": 2, \"dst_buffer\": 1, \"bytes\": 24, \"deps\": [1]}],"
    "   \"order\": [0, 1, 2]}]}";

/* Parse manifest_ok with one substring replaced; "" or the error message. */
static const char *manifest_with(const char *from, const char *to) {
  static char err[512];
  char text[sizeof(manifest_ok) + 256];
  const char *at = strstr(manifest_ok, from);
  CHECK(at != NULL);
  if (!at)
    return "substring not found";
  snprintf(text, sizeof(text), "%.*s%s%s", (int)(at - manifest_ok), manifest_ok, to,
           at + strlen(from));
  run_manifest m;
  err[0] = 0;
  if (run_manifest_parse(text, &m, err, sizeof(err)))
    run_manifest_free(&m);
  return err;
}

static void test_manifest(void) {
  run_manifest m;
  char err[512];
  CHECK(run_manifest_parse(manifest_ok, &m, err, sizeof(err)));
  CHECK(m.ninputs == 1 && m.ntargets == 1 && m.targets[0].nbuffers == 3 &&
        m.targets[0].launches[0].bits == 0x3f800000 && m.targets[0].ir_entry_id[0] == 0);
  CHECK(run_manifest_find_target(&m, "gfx90a") == &m.targets[0]);
  CHECK(run_manifest_find_target(&m, "gfx90a:sramecc+:xnack-") == &m.targets[0]);
  CHECK(run_manifest_find_target(&m, "gfx1100") == NULL);
  run_manifest_free(&m);
  CHECK_STR(manifest_with("\"entry\": \"main\",", ""), "entry: missing");
  CHECK_STR(manifest_with("\"version\": 1", "\"version\": 2"),
            "version: 2 is newer than this tosac-run understands (1)");
  CHECK_STR(manifest_with("\"wavefront_size\": 64", "\"wavefront_size\": \"64\""),
            "targets[0].wavefront_size: expected an integer");
  CHECK_STR(manifest_with("\"buffer\": 2}]", "\"buffer\": 7}]"),
            "targets[0].kernels[0].args[1].buffer: 7 is out of range [0, 2]");
  CHECK_STR(manifest_with("\"kind\": \"intermediate\", \"index\": -1, \"offset\": 0",
                          "\"kind\": \"intermediate\", \"index\": -1, \"offset\": 240"),
            "targets[0].buffers[2].offset: [240, 264) lies outside the workspace (256 bytes)");
  CHECK_STR(manifest_with("\"order\": [0, 1, 2]", "\"order\": [1, 0, 2]"),
            "targets[0].order: launch 1 runs before its dependency 0");
  CHECK_STR(manifest_with("\"order\": [0, 1, 2]", "\"order\": [0, 0, 2]"),
            "targets[0].order: launch 0 appears twice");
  CHECK_STR(manifest_with("\"offset\": 8, \"size\": 8", "\"offset\": 12, \"size\": 8"),
            "targets[0].kernels[0].args[1].offset: argument [12, 20) exceeds kernarg_size 16");
  CHECK_STR(manifest_with("\"block\": [256,1,1]", "\"block\": [512,1,1]"),
            "targets[0].kernels[0].block: 512 work-items per group exceed max_flat_workgroup_size 256");
  CHECK_STR(manifest_with("\"kind\": \"copy\"", "\"kind\": \"teleport\""),
            "targets[0].launches[2].kind: unknown launch kind 'teleport'");
  CHECK_STR(manifest_with("\"shape\": [2,3], \"element_type\": \"f32\", \"bytes\": 24}],",
                          "\"shape\": [3,2], \"element_type\": \"f32\", \"bytes\": 24}],"),
            "targets[0].buffers[0]: does not match the graph's input 0");
  CHECK_STR(manifest_with("{\"format\"", "[{\"format\""), "not valid JSON (near line 1)");
}

int main(void) {
  test_shape_type();
  test_half_floats();
  test_parse_print();
  test_files();
  test_compare();
  test_kernarg();
  test_manifest();
  if (failures) {
    fprintf(stderr, "test-values: %d failure(s)\n", failures);
    return 1;
  }
  printf("test-values: all passed\n");
  return 0;
}
