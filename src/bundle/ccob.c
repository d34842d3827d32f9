/* ccob.c: compressed offload bundles ("CCOB", AMDGPU.md 1.3): zstd writer for versions 2 and 3,
 * defensive reader (zstd and zlib) that gives back the uncompressed bundle. */
#include "bundle/bundle.h"

#include <md5.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>
#include <zstd.h>

#define CCOB_METHOD_ZLIB 0
#define CCOB_METHOD_ZSTD 1

static void put_le(uint8_t *p, uint64_t v, int bytes) {
  for (int i = 0; i < bytes; i++)
    p[i] = (uint8_t)(v >> (8 * i));
}

static uint64_t get_le(const uint8_t *p, int bytes) {
  uint64_t v = 0;
  for (int i = bytes - 1; i >= 0; i--)
    v = (v << 8) | p[i];
  return v;
}

__attribute__((format(printf, 3, 4))) static bool fail(char *err, size_t errsize,
                                                       const char *fmt, ...) {
  if (err && errsize) {
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(err, errsize, fmt, ap);
    va_end(ap);
  }
  return false;
}

/* The bundler's hash: MD5 of the uncompressed bundle, its first 8 bytes as a little-endian u64
 * (llvm::MD5::MD5Result::low()). libmd is already loaded by LLVM's own dependencies. */
uint64_t bnd_ccob_hash(const uint8_t *data, size_t size) {
  MD5_CTX ctx;
  uint8_t digest[MD5_DIGEST_LENGTH];
  MD5Init(&ctx);
  /* MD5Update takes a size_t, but feed it in bounded chunks to stay portable. */
  for (size_t done = 0; done < size;) {
    size_t n = size - done > (1u << 30) ? (1u << 30) : size - done;
    MD5Update(&ctx, data + done, n);
    done += n;
  }
  MD5Final(digest, &ctx);
  return get_le(digest, 8);
}

static size_t header_size(int version) { return version == 2 ? 24 : 32; }

uint8_t *bnd_compress(const uint8_t *bundle, size_t size, int version, size_t *out_size,
                      char *err, size_t errsize) {
  if (out_size)
    *out_size = 0;
  if (version != 2 && version != 3) {
    fail(err, errsize, "unsupported compressed bundle version %d (use 2 or 3)", version);
    return NULL;
  }
  if (version == 2 && size > UINT32_MAX) {
    fail(err, errsize, "bundle of %zu bytes is too large for a version 2 CCOB header (4 GiB)",
         size);
    return NULL;
  }
  size_t hsize = header_size(version);
  size_t bound = ZSTD_compressBound(size);
  if (ZSTD_isError(bound) || bound > SIZE_MAX - hsize) {
    fail(err, errsize, "bundle of %zu bytes is too large to compress", size);
    return NULL;
  }
  uint8_t *out = malloc(hsize + bound);
  if (!out) {
    fail(err, errsize, "out of memory compressing %zu bytes", size);
    return NULL;
  }
  /* Level 19 for ordinary bundles (code objects compress ~4x and this takes milliseconds);
   * very large ones fall back to the bundler's own level 3 to keep compile times sane.
   * Either way the output depends only on the input, so builds stay reproducible. */
  int level = size <= (8u << 20) ? 19 : 3;
  size_t csize = ZSTD_compress(out + hsize, bound, bundle, size, level);
  if (ZSTD_isError(csize)) {
    fail(err, errsize, "zstd compression failed: %s", ZSTD_getErrorName(csize));
    free(out);
    return NULL;
  }
  size_t total = hsize + csize;
  if (version == 2 && total > UINT32_MAX) {
    fail(err, errsize, "compressed bundle of %zu bytes is too large for a version 2 header", total);
    free(out);
    return NULL;
  }
  memcpy(out, "CCOB", 4);
  put_le(out + 4, (uint64_t)version, 2);
  put_le(out + 6, CCOB_METHOD_ZSTD, 2);
  if (version == 2) {
    put_le(out + 8, total, 4);
    put_le(out + 12, size, 4);
    put_le(out + 16, bnd_ccob_hash(bundle, size), 8);
  } else {
    put_le(out + 8, total, 8);
    put_le(out + 16, size, 8);
    put_le(out + 24, bnd_ccob_hash(bundle, size), 8);
  }
  if (out_size)
    *out_size = total;
  return out;
}

bool bnd_ccob_header(const uint8_t *data, size_t size, bnd_ccob_info *info, char *err,
                     size_t errsize) {
  memset(info, 0, sizeof *info);
  if (size < 8 || memcmp(data, "CCOB", 4) != 0)
    return fail(err, errsize, "not a compressed bundle: missing magic 'CCOB'");
  info->version = (int)get_le(data + 4, 2);
  info->method = (int)get_le(data + 6, 2);
  uint64_t total;
  if (info->version == 1) {
    if (size < 20)
      return fail(err, errsize, "header truncated: %zu of 20 bytes", size);
    total = size; /* v1 has no size field: the blob runs to the end of the file */
    info->uncompressed_size = get_le(data + 8, 4);
    info->hash = get_le(data + 12, 8);
    info->header_size = 20;
  } else if (info->version == 2 || info->version == 3) {
    size_t h = header_size(info->version);
    if (size < h)
      return fail(err, errsize, "header truncated: %zu of %zu bytes", size, h);
    total = get_le(data + 8, info->version == 2 ? 4 : 8);
    info->uncompressed_size = get_le(data + (info->version == 2 ? 12 : 16), info->version == 2 ? 4 : 8);
    info->hash = get_le(data + (info->version == 2 ? 16 : 24), 8);
    info->header_size = h;
  } else {
    return fail(err, errsize, "version %d is not supported (1, 2 or 3)",
                info->version);
  }
  if (info->method != CCOB_METHOD_ZLIB && info->method != CCOB_METHOD_ZSTD)
    return fail(err, errsize, "compression method %d is not supported (0 zlib, 1 zstd)",
                info->method);
  if (total < info->header_size || total > size)
    return fail(err, errsize,
                "header claims %llu bytes, but the file has %zu (header %zu)",
                (unsigned long long)total, size, info->header_size);
  info->total_size = total;
  if (info->uncompressed_size > BND_CCOB_MAX_UNCOMPRESSED)
    return fail(err, errsize,
                "header claims %llu uncompressed bytes; at most %llu are accepted",
                (unsigned long long)info->uncompressed_size,
                (unsigned long long)BND_CCOB_MAX_UNCOMPRESSED);
  return true;
}

uint8_t *bnd_decompress(const uint8_t *data, size_t size, size_t *out_size, bnd_ccob_info *info,
                        char *err, size_t errsize) {
  bnd_ccob_info local;
  if (!info)
    info = &local;
  if (out_size)
    *out_size = 0;
  if (!bnd_ccob_header(data, size, info, err, errsize))
    return NULL;
  size_t usize = (size_t)info->uncompressed_size;
  const uint8_t *src = data + info->header_size;
  size_t csize = (size_t)info->total_size - info->header_size;
  uint8_t *out = malloc(usize ? usize : 1);
  if (!out) {
    fail(err, errsize, "out of memory for a %zu-byte decompressed bundle", usize);
    return NULL;
  }
  bool ok;
  if (info->method == CCOB_METHOD_ZSTD) {
    unsigned long long fsize = ZSTD_getFrameContentSize(src, csize);
    size_t got = ZSTD_decompress(out, usize, src, csize);
    ok = !ZSTD_isError(got) && got == usize &&
         (fsize == ZSTD_CONTENTSIZE_UNKNOWN || fsize == usize);
    if (!ok)
      fail(err, errsize, "zstd data is corrupt or does not give %zu bytes (%s)",
           usize, ZSTD_isError(got) ? ZSTD_getErrorName(got) : "size mismatch");
  } else {
    uLongf got = (uLongf)usize;
    int zr = uncompress(out, &got, src, (uLong)csize);
    ok = zr == Z_OK && got == usize;
    if (!ok)
      fail(err, errsize, "zlib data is corrupt or does not give %zu bytes",
           usize);
  }
  if (!ok) {
    free(out);
    return NULL;
  }
  info->computed_hash = bnd_ccob_hash(out, usize);
  if (out_size)
    *out_size = usize;
  return out;
}
