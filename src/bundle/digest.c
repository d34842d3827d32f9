/* digest.c: the digests that tie a manifest to the bundle and weights file written with it
 * (docs/manifest.md, "digests"): SHA-256 of the bytes as written, spelled "sha256:<64 hex>".
 * A client computes the digest of the files it loaded and refuses a pair that does not match,
 * so outputs of two compiles racing on the same -o are never silently mixed. */
#include "bundle/bundle.h"

#include <openssl/evp.h>
#include <string.h>

/* OpenSSL's SHA-256, not libmd's: it uses the processor's SHA instructions, and a warm compile
 * hashes the whole weights file (tens of megabytes) each time */
static void spell(const uint8_t d[32], char out[BND_DIGEST_SIZE]) {
  int k = snprintf(out, BND_DIGEST_SIZE, "sha256:");
  for (int i = 0; i < 32; i++)
    k += snprintf(out + k, BND_DIGEST_SIZE - (size_t)k, "%02x", d[i]);
}

void bnd_digest(const void *data, size_t size, char out[BND_DIGEST_SIZE]) {
  uint8_t d[EVP_MAX_MD_SIZE];
  unsigned n = 0;
  if (!EVP_Digest(data ? data : "", size, d, &n, EVP_sha256(), NULL) || n != 32)
    memset(d, 0, sizeof d); /* allocation failure inside OpenSSL: a digest no file matches */
  spell(d, out);
}

bool bnd_digest_check(const char *expected, const void *data, size_t size, const char *path,
                      char *err, size_t errsize) {
  if (!expected || !expected[0])
    return true; /* a manifest from before digests: nothing to compare */
  char got[BND_DIGEST_SIZE];
  bnd_digest(data, size, got);
  if (strcmp(got, expected) == 0)
    return true;
  snprintf(err, errsize,
           "%s does not belong to this manifest: its digest is %.23s..., the manifest records "
           "%.23s... (outputs of another compile?)",
           path, got, expected);
  return false;
}

/* `span` bytes of `size`-byte data repeated (NULL data: zeros), fed to the hash in 64 KiB
 * blocks of whole repeats, as write_file_pieces writes them. */
static void update_repeated(EVP_MD_CTX *c, const void *data, size_t size, size_t span) {
  static const uint8_t zeros[1 << 12];
  uint8_t buf[1 << 16];
  if (!data) {
    for (size_t n; span > 0; span -= n)
      EVP_DigestUpdate(c, zeros, n = span < sizeof zeros ? span : sizeof zeros);
    return;
  }
  size_t fill = sizeof buf / size * size;
  for (size_t o = 0; o < fill; o += size)
    memcpy(buf + o, data, size);
  for (size_t n; span > 0; span -= n)
    EVP_DigestUpdate(c, buf, n = span < fill ? span : fill);
}

bool bnd_digest_pieces(size_t total, const file_piece *pieces, int n, char out[BND_DIGEST_SIZE]) {
  EVP_MD_CTX *c = EVP_MD_CTX_new();
  if (!c || !EVP_DigestInit_ex(c, EVP_sha256(), NULL)) {
    EVP_MD_CTX_free(c);
    return false;
  }
  size_t at = 0;
  for (int i = 0; i < n; i++) {
    const file_piece *p = &pieces[i];
    if (p->offset < at || p->offset > total || p->span > total - p->offset ||
        (p->span != p->size && (p->size == 0 || p->size > 1 << 16))) {
      EVP_MD_CTX_free(c);
      return false;
    }
    update_repeated(c, NULL, 0, p->offset - at);
    if (p->span == p->size)
      EVP_DigestUpdate(c, p->data, p->size);
    else
      update_repeated(c, p->data, p->size, p->span);
    at = p->offset + p->span;
  }
  update_repeated(c, NULL, 0, total - at);
  uint8_t d[EVP_MAX_MD_SIZE];
  unsigned len = 0;
  bool ok = EVP_DigestFinal_ex(c, d, &len) && len == 32;
  EVP_MD_CTX_free(c);
  if (ok)
    spell(d, out);
  return ok;
}
