/* main.c: tosac-bundle, the command line around inspect.c and quality.c: list, extract, info,
 * verify, quality. */
#include "quality.h"

#include <stdlib.h>
#include <string.h>

static const char *usage_text =
    "usage: tosac-bundle list FILE\n"
    "       tosac-bundle extract FILE ENTRY -o OUT\n"
    "       tosac-bundle info FILE\n"
    "       tosac-bundle verify FILE [--manifest M]\n"
    "       tosac-bundle quality FILE [--manifest M] [--mca-timeout SECONDS] [--no-mca] [--model]\n"
    "\n"
    "Inspects a tosac offload bundle (.hipfb), plain or compressed (CCOB).\n"
    "  list     entries with their offsets and sizes\n"
    "  extract  write one entry's payload (ENTRY: its ID or its number in 'list') to OUT\n"
    "  info     per target and kernel: registers, LDS, kernarg size, wave size\n"
    "  verify   check the code objects (flags, symbols, metadata) and, with --manifest, that\n"
    "           the manifest agrees with the bundle\n"
    "  quality  per target and distinct GEMM/convolution kernel: tile, registers, LDS, waves per\n"
    "           SIMD, spills, the main loop's matrix-pipe share (llvm-mca-22 on gfx9, limited to\n"
    "           --mca-timeout seconds per run, default 20, then the in-order issue model, which\n"
    "           --no-mca selects; a static model on WMMA targets and for the FMA path) and an\n"
    "           estimated share of the roofline with its ceiling, the best share any kernel\n"
    "           can reach for the problem; then a row per distinct kernel of every other family\n"
    "           (attention, rownorm, elementwise, reduction, pool, data, fft, combine, fill)\n"
    "           and per copy or fill launch with its model and limiting resource; --model adds\n"
    "           per target the launch graph's estimated time (launch gaps included, and the\n"
    "           kernels alone) against its roofline and each family's share (docs/quality.md);\n"
    "           the manifest defaults to FILE with .json\n"
    "\n"
    "exit status: 0 success, 1 malformed input or failed verification, 2 usage error\n";

static int usage(const char *msg) {
  if (msg)
    fprintf(stderr, "tosac-bundle: error: %s\ntry 'tosac-bundle --help'\n", msg);
  return 2;
}

int main(int argc, char **argv) {
  if (argc >= 2 && (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h"))) {
    fputs(usage_text, stdout);
    return 0;
  }
  if (argc < 3)
    return usage(argc < 2 ? "no command" : "no bundle file");
  const char *cmd = argv[1], *path = argv[2], *entry = NULL, *out = NULL, *manifest = NULL;
  bool is_extract = !strcmp(cmd, "extract"), is_verify = !strcmp(cmd, "verify");
  bool is_quality = !strcmp(cmd, "quality");
  tb_quality_options qo = {.use_mca = true, .mca_timeout = 20};
  if (!is_extract && !is_verify && !is_quality && strcmp(cmd, "list") && strcmp(cmd, "info")) {
    fprintf(stderr,
            "tosac-bundle: error: unknown command '%s' (list, extract, info, verify, quality)\n",
            cmd);
    return 2;
  }
  for (int i = 3; i < argc; i++) {
    if (is_extract && !strcmp(argv[i], "-o") && i + 1 < argc)
      out = argv[++i];
    else if ((is_verify || is_quality) && !strcmp(argv[i], "--manifest") && i + 1 < argc)
      manifest = argv[++i];
    else if ((is_verify || is_quality) && !strncmp(argv[i], "--manifest=", 11))
      manifest = argv[i] + 11;
    else if (is_quality && !strcmp(argv[i], "--no-mca"))
      qo.use_mca = false;
    else if (is_quality && !strcmp(argv[i], "--model"))
      qo.model = true;
    else if (is_quality && !strncmp(argv[i], "--mca-timeout", 13) &&
             (argv[i][13] == '=' || (!argv[i][13] && i + 1 < argc))) {
      const char *v = argv[i][13] ? argv[i] + 14 : argv[++i];
      char *end;
      qo.mca_timeout = strtod(v, &end);
      if (*end || !(qo.mca_timeout > 0))
        return usage("--mca-timeout takes a positive number of seconds");
    }
    else if (is_extract && !entry && argv[i][0] != '-')
      entry = argv[i];
    else {
      fprintf(stderr, "tosac-bundle: error: unexpected argument '%s'\n", argv[i]);
      return 2;
    }
  }
  if (is_extract && (!entry || !out))
    return usage("extract needs ENTRY and -o OUT");

  char err[600], default_manifest[4096];
  if (is_quality && !manifest) {
    const char *dot = strrchr(path, '.'), *slash = strrchr(path, '/');
    int stem = dot && (!slash || dot > slash) ? (int)(dot - path) : (int)strlen(path);
    snprintf(default_manifest, sizeof default_manifest, "%.*s.json", stem, path);
    manifest = default_manifest;
  }
  size_t size = 0;
  uint8_t *data = (uint8_t *)read_file(path, &size, err, sizeof err);
  if (!data) {
    fprintf(stderr, "tosac-bundle: error: %s\n", err);
    return 1;
  }
  char *mtext = NULL;
  size_t msize = 0;
  if (manifest && !(mtext = read_file(manifest, &msize, err, sizeof err))) {
    fprintf(stderr, "tosac-bundle: error: %s\n", err);
    free(data);
    return 1;
  }
  tb_bundle b;
  int rc = 0;
  if (!tb_open(data, size, &b, err, sizeof err)) {
    fprintf(stderr, "tosac-bundle: error: %s: %s\n", path, err);
    rc = 1;
  } else if (is_extract) {
    const bnd_entry *e = tb_find(&b, entry);
    if (!e) {
      fprintf(stderr, "tosac-bundle: error: %s has no entry '%s' (see 'tosac-bundle list')\n",
              path, entry);
      rc = 1;
    } else if (!strcmp(out, "-")) {
      rc = fwrite(e->data, 1, e->size, stdout) == e->size ? 0 : 1;
    } else if (!write_file_atomic(out, e->data, e->size, err, sizeof err)) {
      fprintf(stderr, "tosac-bundle: error: %s\n", err);
      rc = 1;
    }
  } else if (is_verify) {
    rc = tb_verify(&b, mtext, manifest, stdout) ? 1 : 0;
  } else if (is_quality) {
    rc = tb_quality(&b, mtext, &qo, stdout) ? 1 : 0;
  } else if (!strcmp(cmd, "info")) {
    rc = tb_info(&b, stdout) ? 1 : 0;
  } else {
    tb_list(&b, stdout);
  }
  tb_free(&b);
  free(mtext);
  free(data);
  return rc;
}
