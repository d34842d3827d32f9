/* inspect.h: tosac-bundle's logic on bundles held in memory (list, extract, info, verify), kept
 * apart from the command line so tests/unit/bundle_tool.c can fuzz it without files. */
#ifndef TOSAC_BUNDLE_INSPECT_H
#define TOSAC_BUNDLE_INSPECT_H

#include "bundle/bundle.h"

/* A parsed bundle; compressed (CCOB) input is decompressed by bnd_parse and described here. */
typedef struct tb_bundle {
  const uint8_t *file; /* the bytes as read */
  size_t file_size;
  bool compressed;
  bnd_ccob_info ccob;  /* when compressed */
  bnd_entry *entries;  /* bnd_parse's array (owns the decompressed copy) */
  int nentries;
} tb_bundle;

/* Parse; false + message for anything malformed. tb_free releases what tb_open allocated. */
bool tb_open(const uint8_t *data, size_t size, tb_bundle *b, char *err, size_t errsize);
void tb_free(tb_bundle *b);

/* The entry with this ID, or entry number `key` when key is all digits; NULL if none. */
const bnd_entry *tb_find(const tb_bundle *b, const char *key);

/* "tosac-bundle list": one line per entry (index, offset, size, ID). */
void tb_list(const tb_bundle *b, FILE *out);
/* "tosac-bundle info": per code object, its flags and every kernel's resources from the
 * metadata note. Returns the number of problems (unreadable objects), each reported on out. */
int tb_info(const tb_bundle *b, FILE *out);
/* "tosac-bundle verify": checks the bundle alone, and against the manifest when manifest_text is
 * not NULL. Prints "error: ..." lines for every problem found; returns their number. */
/* With manifest_path, also the weights file the manifest names (constants.file, relative to the
 * manifest's directory): it exists, has constants.bytes bytes and digests.weights. */
int tb_verify(const tb_bundle *b, const char *manifest_text, const char *manifest_path,
              FILE *out);

/* graph_check.c: a target's launch lists (control nodes, docs/manifest.md) and the manifest's
 * variants are consistent; false + the first problem. */
#include <cjson/cJSON.h>
bool tb_check_launch_lists(const cJSON *target, char *err, size_t errsize);
bool tb_check_variants(const cJSON *root, char *err, size_t errsize);

#endif
