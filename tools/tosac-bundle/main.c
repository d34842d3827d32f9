/* main.c: tosac-bundle, the command line around inspect.c: list, extract, info, verify. */
#include "inspect.h"

#include <stdlib.h>
#include <string.h>

static const char *usage_text =
    "usage: tosac-bundle list FILE\n"
    "       tosac-bundle extract FILE ENTRY -o OUT\n"
    "       tosac-bundle info FILE\n"
    "       tosac-bundle verify FILE [--manifest M]\n"
    "\n"
    "Inspects a tosac offload bundle (.hipfb), plain or compressed (CCOB).\n"
    "  list     entries with their offsets and sizes\n"
    "  extract  write one entry's payload (ENTRY: its ID or its number in 'list') to OUT\n"
    "  info     per target and kernel: registers, LDS, kernarg size, wave size\n"
    "  verify   check the code objects (flags, symbols, metadata) and, with --manifest, that\n"
    "           the manifest agrees with the bundle\n"
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
  if (!is_extract && !is_verify && strcmp(cmd, "list") && strcmp(cmd, "info")) {
    fprintf(stderr, "tosac-bundle: error: unknown command '%s' (list, extract, info, verify)\n",
            cmd);
    return 2;
  }
  for (int i = 3; i < argc; i++) {
    if (is_extract && !strcmp(argv[i], "-o") && i + 1 < argc)
      out = argv[++i];
    else if (is_verify && !strcmp(argv[i], "--manifest") && i + 1 < argc)
      manifest = argv[++i];
    else if (is_verify && !strncmp(argv[i], "--manifest=", 11))
      manifest = argv[i] + 11;
    else if (is_extract && !entry && argv[i][0] != '-')
      entry = argv[i];
    else {
      fprintf(stderr, "tosac-bundle: error: unexpected argument '%s'\n", argv[i]);
      return 2;
    }
  }
  if (is_extract && (!entry || !out))
    return usage("extract needs ENTRY and -o OUT");

  char err[600];
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
