/* bundle.h: the bundle stage's interface: re-exports tosac.h's bnd_* API plus the helpers
 * shared by bundle.c and manifest.c. */
#ifndef TOSAC_BUNDLE_H
#define TOSAC_BUNDLE_H

#include "tosac.h"

/* Magic at offset 0 of an uncompressed clang offload bundle (24 bytes, no NUL). */
#define BND_MAGIC "__CLANG_OFFLOAD_BUNDLE__"
#define BND_MAGIC_LEN 24
/* comgr reads only the first 4096 bytes of a bundle to find its entries (AMDGPU.md 1.4). */
#define BND_HIP_HEADER_LIMIT 4096
/* bnd_parse refuses more entries than this: far beyond what a header in 4096 bytes can hold,
 * small enough that a hostile count cannot make the reader allocate much. */
#define BND_MAX_ENTRIES 4096

/* Header bytes bnd_build writes for these entries (magic, count, records with IDs); 0 if
 * the sum overflows. A bundle meant for hipModuleLoadData needs this <= BND_HIP_HEADER_LIMIT. */
size_t bnd_header_size(const bnd_entry *entries, int n);

/* ---------------------------------------------------------------- ccob.c */
/* Largest uncompressed size a CCOB header may claim before the reader refuses it (1 GiB): a
 * hostile header must not make a reader allocate without bound. */
#define BND_CCOB_MAX_UNCOMPRESSED (1ull << 30)

typedef struct bnd_ccob_info {
  int version;               /* 1, 2, 3 */
  int method;                /* 0 zlib, 1 zstd */
  size_t header_size;        /* 20, 24, 32 */
  uint64_t total_size;       /* header + compressed data (v1: to the end of the file) */
  uint64_t uncompressed_size;
  uint64_t hash;             /* as stored */
  uint64_t computed_hash;    /* of the decompressed bytes (bnd_decompress only) */
} bnd_ccob_info;

/* First 8 bytes of MD5(data) as a little-endian u64: the CCOB header's hash. */
uint64_t bnd_ccob_hash(const uint8_t *data, size_t size);
/* Read and range-check a CCOB header (no decompression). */
bool bnd_ccob_header(const uint8_t *data, size_t size, bnd_ccob_info *info, char *err,
                     size_t errsize);
/* Decompress the first CCOB blob of data into a malloc'd uncompressed bundle; info (may be NULL)
 * receives the header and the computed hash. Like the bundler, a wrong hash is not an error
 * here; callers that care compare info->hash and info->computed_hash. */
uint8_t *bnd_decompress(const uint8_t *data, size_t size, size_t *out_size, bnd_ccob_info *info,
                        char *err, size_t errsize);

/* ---------------------------------------------------------------- host_text.c */
/* The fixed parts of --emit=host output, with PFX / UPFX replaced by prefix / upper: the helpers
 * (after the types and tables of host_emit.c) and the public API (after the target table). */
void bnd_host_put_runtime(FILE *f, const char *prefix, const char *upper);
void bnd_host_put_api(FILE *f, const char *prefix, const char *upper);

/* Notes on the tosac.h API, which this file implements:
 * - bnd_build: entries are written in the given order; each payload at
 *   align_up(previous end, align) exactly like clang-offload-bundler-22 -bundle-align=align;
 *   align 0 means 1. NULL on arithmetic overflow or an entry ID longer than 127 bytes.
 * - bnd_parse: *entries is malloc'd (free() it; NULL when n == 0 or on error); each entry's
 *   data points into `data`; for a compressed (CCOB) bundle it points into a decompressed copy
 *   stored in the same allocation as the entry array, so free(*entries) releases both. Rejects
 *   bad magic, undecodable CCOB data, a CCOB inside a CCOB, truncated headers,
 *   counts above BND_MAX_ENTRIES, IDs that are empty, too long or not printable ASCII,
 *   duplicate IDs, payloads outside the file, inside the header, or overlapping each other.
 * - bnd_code_object_id: "hipv4-amdgcn-amd-amdhsa--<target-id>" (what comgr matches).
 * - bnd_bitcode_id: "openmp-amdgcn-amd-amdhsa--<target-id>" (docs/bundle.md says why).
 * - bnd_manifest_write / bnd_manifest_json: false / NULL when a plan and its cg_result disagree
 *   on the number of kernels (the manifest would bind names to the wrong launches), on out of
 *   memory or a write error. Format:
 *   docs/manifest.md, schema/manifest.schema.json. */

#endif
