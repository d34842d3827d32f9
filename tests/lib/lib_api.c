/* lib_api.c: the libtosac API surface, one check per line of output (tests/bats/library.bats).
 *   test-lib_api graph.mlir bad.mlir
 * graph.mlir must compile for gfx90a; bad.mlir must fail. */
#include <tosac/tosac.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static char *slurp(const char *path, size_t *n) {
  FILE *f = fopen(path, "rb");
  if (!f)
    return NULL;
  fseek(f, 0, SEEK_END);
  long len = ftell(f);
  rewind(f);
  char *s = malloc((size_t)len + 1);
  *n = fread(s, 1, (size_t)len, f);
  s[*n] = 0;
  fclose(f);
  return s;
}

int main(int argc, char **argv) {
  if (argc != 3)
    return 2;
  printf("version %s\n", tosac_version());
  tosac_options *o = tosac_options_create();
  /* refused settings keep the old value and explain */
  printf("bad target: %d %s\n", tosac_options_add_targets(o, "gfx9999"), tosac_options_error(o));
  printf("bad level: %d %s\n", tosac_options_set_opt_level(o, 7), tosac_options_error(o));
  printf("bad jobs: %d %s\n", tosac_options_set_jobs(o, 0), tosac_options_error(o));
  printf("bad workspace expansions: %d %s\n", tosac_options_set_workspace_expansions(o, 2),
         tosac_options_error(o));
  printf("good target: %d\n", tosac_options_add_targets(o, "gfx90a"));
  tosac_options_set_output(o, "out/model.hipfb");

  /* a buffer compile equals the file compile */
  size_t n = 0;
  char *text = slurp(argv[1], &n);
  tosac_result *rf = tosac_compile_file(o, argv[1]);
  tosac_result *rb = tosac_compile_buffer(o, argv[1], text, n);
  size_t bf = 0, bb = 0;
  const uint8_t *pf = tosac_result_bundle(rf, &bf), *pb = tosac_result_bundle(rb, &bb);
  printf("file status %d, buffer status %d, bundles equal %d, manifests equal %d\n",
         tosac_result_status(rf), tosac_result_status(rb), bf == bb && !memcmp(pf, pb, bf),
         !strcmp(tosac_result_manifest(rf), tosac_result_manifest(rb)));
  printf("paths %s %s\n", tosac_result_bundle_path(rf), tosac_result_manifest_path(rf));
  size_t co = 0;
  tosac_result_code_object(rf, 0, &co);
  printf("targets %d, first %s, code object %s\n", tosac_result_target_count(rf),
         tosac_result_target_id(rf, 0), co > 0 ? "present" : "missing");
  tosac_kernel k;
  printf("kernel out of range: %d\n", tosac_result_kernel(rf, 0, 99999, &k));
  printf("write: %d\n", tosac_result_write(rf, NULL));
  tosac_result_dispose(rf);
  tosac_result_dispose(rb);
  free(text);

  /* the manifest streamed to the file by tosac_result_write (its text never asked for before)
   * is byte for byte the text tosac_result_manifest builds afterwards */
  tosac_options_set_output(o, "out/streamed.hipfb");
  tosac_result *rs = tosac_compile_file(o, argv[1]);
  printf("streamed write: %d\n", tosac_result_write(rs, NULL));
  size_t ms = 0;
  char *written = slurp("out/streamed.json", &ms);
  const char *mt = tosac_result_manifest(rs);
  printf("streamed manifest equals the text: %d (%s bytes)\n",
         written && mt && ms == strlen(mt) && !memcmp(written, mt, ms), ms > 1000 ? "over 1000" : "few");
  free(written);
  tosac_result_dispose(rs);
  tosac_options_set_output(o, "out/model.hipfb");

  /* text output */
  tosac_options_set_emit(o, TOSAC_EMIT_PARTITIONS);
  tosac_result *rt = tosac_compile_file(o, argv[1]);
  const char *t = tosac_result_text(rt);
  printf("partitions text starts %.14s\n", t ? t : "(null)");
  tosac_result_dispose(rt);
  tosac_options_set_emit(o, TOSAC_EMIT_BUNDLE);

  /* diagnostics as records */
  tosac_result *re = tosac_compile_file(o, argv[2]);
  printf("bad status %d, %d diagnostics\n", tosac_result_status(re),
         tosac_result_diagnostic_count(re));
  for (int i = 0; i < tosac_result_diagnostic_count(re); i++)
    printf("diag %s %d %d %s: %s\n", tosac_result_diagnostic_file(re, i),
           tosac_result_diagnostic_line(re, i), tosac_result_diagnostic_column(re, i),
           tosac_result_diagnostic_severity(re, i), tosac_result_diagnostic_message(re, i));
  printf("bad write: %d %s\n", tosac_result_write(re, NULL), tosac_result_write_error(re));
  printf("bad bundle %s\n", tosac_result_bundle(re, NULL) ? "present" : "absent");
  tosac_result_dispose(re);

  /* a missing file is an I/O status with a location-free diagnostic */
  tosac_result *rm = tosac_compile_file(o, "no/such.mlir");
  printf("missing status %d: %s\n", tosac_result_status(rm), tosac_result_diagnostic_message(rm, 0));
  tosac_result_dispose(rm);
  tosac_options_dispose(o);
  return 0;
}
