/* digest.c: the digests that tie a manifest to the bundle and weights file written with it
 * (docs/manifest.md, "digests"): SHA-256 of the bytes as written, spelled "sha256:<64 hex>".
 * A client computes the digest of the files it loaded and refuses a pair that does not match,
 * so outputs of two compiles racing on the same -o are never silently mixed.
 *
 * The weights file is hashed on every compile, warm ones included (46 MB for ResNet-18), so the
 * block function uses the x86 SHA extensions where the processor has them (about 8x the
 * portable code's rate); both forms compute FIPS 180-4's SHA-256 and are checked against
 * libmd's by tests/unit/bundle.c. */
#include "bundle/bundle.h"

#include <string.h>
#if defined(__x86_64__) && defined(__GNUC__)
#include <immintrin.h>
#define DIGEST_SHA_NI 1
#endif

static const uint32_t sha_k[64] = {
    0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1, 0x923f82a4, 0xab1c5ed5,
    0xd807aa98, 0x12835b01, 0x243185be, 0x550c7dc3, 0x72be5d74, 0x80deb1fe, 0x9bdc06a7, 0xc19bf174,
    0xe49b69c1, 0xefbe4786, 0x0fc19dc6, 0x240ca1cc, 0x2de92c6f, 0x4a7484aa, 0x5cb0a9dc, 0x76f988da,
    0x983e5152, 0xa831c66d, 0xb00327c8, 0xbf597fc7, 0xc6e00bf3, 0xd5a79147, 0x06ca6351, 0x14292967,
    0x27b70a85, 0x2e1b2138, 0x4d2c6dfc, 0x53380d13, 0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85,
    0xa2bfe8a1, 0xa81a664b, 0xc24b8b70, 0xc76c51a3, 0xd192e819, 0xd6990624, 0xf40e3585, 0x106aa070,
    0x19a4c116, 0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a, 0x5b9cca4f, 0x682e6ff3,
    0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208, 0x90befffa, 0xa4506ceb, 0xbef9a3f7, 0xc67178f2,
};

static uint32_t ror(uint32_t x, int n) { return x >> n | x << (32 - n); }

/* n 64-byte blocks into the state h (FIPS 180-4 §6.2.2). */
static void blocks_portable(uint32_t h[8], const uint8_t *p, size_t n) {
  for (; n; n--, p += 64) {
    uint32_t w[64], s[8];
    for (int i = 0; i < 16; i++)
      w[i] = (uint32_t)p[4 * i] << 24 | (uint32_t)p[4 * i + 1] << 16 |
             (uint32_t)p[4 * i + 2] << 8 | p[4 * i + 3];
    for (int i = 16; i < 64; i++) {
      uint32_t s0 = ror(w[i - 15], 7) ^ ror(w[i - 15], 18) ^ w[i - 15] >> 3;
      uint32_t s1 = ror(w[i - 2], 17) ^ ror(w[i - 2], 19) ^ w[i - 2] >> 10;
      w[i] = w[i - 16] + s0 + w[i - 7] + s1;
    }
    memcpy(s, h, sizeof s);
    for (int i = 0; i < 64; i++) {
      uint32_t t1 = s[7] + (ror(s[4], 6) ^ ror(s[4], 11) ^ ror(s[4], 25)) +
                    ((s[4] & s[5]) ^ (~s[4] & s[6])) + sha_k[i] + w[i];
      uint32_t t2 = (ror(s[0], 2) ^ ror(s[0], 13) ^ ror(s[0], 22)) +
                    ((s[0] & s[1]) ^ (s[0] & s[2]) ^ (s[1] & s[2]));
      memmove(s + 1, s, 7 * sizeof *s);
      s[4] += t1;
      s[0] = t1 + t2;
    }
    for (int i = 0; i < 8; i++)
      h[i] += s[i];
  }
}

#ifdef DIGEST_SHA_NI
/* The same with SHA-NI: the state as the ABEF / CDGH register pair the instructions take, two
 * rounds per sha256rnds2, the schedule four words at a time with sha256msg1/msg2. */
__attribute__((target("sha,sse4.1"))) static void blocks_sha_ni(uint32_t h[8], const uint8_t *p,
                                                                  size_t n) {
  const __m128i bswap = _mm_set_epi64x(0x0c0d0e0f08090a0bll, 0x0405060700010203ll);
  __m128i dcba = _mm_shuffle_epi32(_mm_loadu_si128((const __m128i *)h), 0xB1); /* CDAB */
  __m128i hgfe = _mm_shuffle_epi32(_mm_loadu_si128((const __m128i *)(h + 4)), 0x1B);
  __m128i abef = _mm_alignr_epi8(dcba, hgfe, 8);
  __m128i cdgh = _mm_blend_epi16(hgfe, dcba, 0xF0);
  for (; n; n--, p += 64) {
    __m128i save_abef = abef, save_cdgh = cdgh, w[4];
    for (int r = 0; r < 16; r++) {
      __m128i m;
      if (r < 4) {
        m = w[r] = _mm_shuffle_epi8(_mm_loadu_si128((const __m128i *)(p + 16 * r)), bswap);
      } else { /* W[i..i+3] from W[i-16..i-1] */
        __m128i t = _mm_sha256msg1_epu32(w[r & 3], w[(r - 3) & 3]);
        t = _mm_add_epi32(t, _mm_alignr_epi8(w[(r - 1) & 3], w[(r - 2) & 3], 4));
        m = w[r & 3] = _mm_sha256msg2_epu32(t, w[(r - 1) & 3]);
      }
      __m128i wk = _mm_add_epi32(m, _mm_loadu_si128((const __m128i *)(sha_k + 4 * r)));
      cdgh = _mm_sha256rnds2_epu32(cdgh, abef, wk);
      abef = _mm_sha256rnds2_epu32(abef, cdgh, _mm_shuffle_epi32(wk, 0x0E));
    }
    abef = _mm_add_epi32(abef, save_abef);
    cdgh = _mm_add_epi32(cdgh, save_cdgh);
  }
  __m128i feba = _mm_shuffle_epi32(abef, 0x1B);
  __m128i dchg = _mm_shuffle_epi32(cdgh, 0xB1);
  _mm_storeu_si128((__m128i *)h, _mm_blend_epi16(feba, dchg, 0xF0));
  _mm_storeu_si128((__m128i *)(h + 4), _mm_alignr_epi8(dchg, feba, 8));
}
#endif

typedef void (*block_fn)(uint32_t h[8], const uint8_t *p, size_t n);

static block_fn pick_blocks(void) {
#ifdef DIGEST_SHA_NI
  if (__builtin_cpu_supports("sha") && __builtin_cpu_supports("sse4.1"))
    return blocks_sha_ni;
#endif
  return blocks_portable;
}

void bnd_sha256_init(bnd_sha256 *c) {
  static const uint32_t h0[8] = {0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a,
                                 0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19};
  memcpy(c->h, h0, sizeof h0);
  c->nbuf = 0;
  c->bytes = 0;
  c->portable = false;
}

void bnd_sha256_update(bnd_sha256 *c, const void *data, size_t n) {
  block_fn blocks = c->portable ? blocks_portable : pick_blocks();
  const uint8_t *p = data;
  c->bytes += n;
  if (c->nbuf) {
    size_t k = 64 - c->nbuf < n ? 64 - c->nbuf : n;
    memcpy(c->buf + c->nbuf, p, k);
    c->nbuf += k, p += k, n -= k;
    if (c->nbuf < 64)
      return;
    blocks(c->h, c->buf, 1);
    c->nbuf = 0;
  }
  blocks(c->h, p, n / 64);
  p += n / 64 * 64;
  memcpy(c->buf, p, n % 64);
  c->nbuf = n % 64;
}

void bnd_sha256_final(bnd_sha256 *c, uint8_t out[32]) {
  uint64_t bits = c->bytes * 8;
  uint8_t pad[72] = {0x80};
  size_t padn = (c->nbuf < 56 ? 56 : 120) - c->nbuf;
  for (int i = 0; i < 8; i++)
    pad[padn + (size_t)i] = (uint8_t)(bits >> (56 - 8 * i));
  bnd_sha256_update(c, pad, padn + 8);
  for (int i = 0; i < 8; i++)
    for (int b = 0; b < 4; b++)
      out[4 * i + b] = (uint8_t)(c->h[i] >> (24 - 8 * b));
}

static void spell(const uint8_t d[32], char out[BND_DIGEST_SIZE]) {
  static const char hex[] = "0123456789abcdef";
  memcpy(out, "sha256:", 7);
  for (int i = 0; i < 32; i++)
    out[7 + 2 * i] = hex[d[i] >> 4], out[8 + 2 * i] = hex[d[i] & 15];
  out[71] = 0;
}

void bnd_digest(const void *data, size_t size, char out[BND_DIGEST_SIZE]) {
  bnd_sha256 c;
  uint8_t d[32];
  bnd_sha256_init(&c);
  bnd_sha256_update(&c, data ? data : "", size);
  bnd_sha256_final(&c, d);
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
static void update_repeated(bnd_sha256 *c, const void *data, size_t size, size_t span) {
  static const uint8_t zeros[1 << 12];
  uint8_t buf[1 << 16];
  if (!data) {
    for (size_t n; span > 0; span -= n)
      bnd_sha256_update(c, zeros, n = span < sizeof zeros ? span : sizeof zeros);
    return;
  }
  size_t fill = sizeof buf / size * size;
  for (size_t o = 0; o < fill; o += size)
    memcpy(buf + o, data, size);
  for (size_t n; span > 0; span -= n)
    bnd_sha256_update(c, buf, n = span < fill ? span : fill);
}

bool bnd_digest_pieces(size_t total, const file_piece *pieces, int n, char out[BND_DIGEST_SIZE]) {
  bnd_sha256 c;
  bnd_sha256_init(&c);
  size_t at = 0;
  for (int i = 0; i < n; i++) {
    const file_piece *p = &pieces[i];
    if (p->offset < at || p->offset > total || p->span > total - p->offset ||
        (p->span != p->size && (p->size == 0 || p->size > 1 << 16)))
      return false;
    update_repeated(&c, NULL, 0, p->offset - at);
    if (p->span == p->size)
      bnd_sha256_update(&c, p->data, p->size);
    else
      update_repeated(&c, p->data, p->size, p->span);
    at = p->offset + p->span;
  }
  update_repeated(&c, NULL, 0, total - at);
  uint8_t d[32];
  bnd_sha256_final(&c, d);
  spell(d, out);
  return true;
}
