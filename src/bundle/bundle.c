/* bundle.c: clang offload bundle writer and defensive reader, plus the entry IDs tosac uses. */
#include "bundle/bundle.h"

#include <stdlib.h>
#include <string.h>

/* Fixed part of the header: magic + u64 entry count. */
#define BND_FIXED_HEADER (BND_MAGIC_LEN + 8)
/* Per entry record before the ID: u64 offset, u64 size, u64 ID length. */
#define BND_RECORD_FIXED 24

static void put_u64(uint8_t *p, uint64_t v) {
  for (int i = 0; i < 8; i++)
    p[i] = (uint8_t)(v >> (8 * i));
}

static uint64_t get_u64(const uint8_t *p) {
  uint64_t v = 0;
  for (int i = 7; i >= 0; i--)
    v = (v << 8) | p[i];
  return v;
}

/* a + b into *out; false on overflow. */
static bool add_ok(size_t a, size_t b, size_t *out) {
  if (a > SIZE_MAX - b)
    return false;
  *out = a + b;
  return true;
}

/* Round v up to a multiple of align (align >= 1, any value, as the bundler's alignTo). */
static bool align_up(size_t v, size_t align, size_t *out) {
  size_t rem = v % align;
  if (rem == 0) {
    *out = v;
    return true;
  }
  return add_ok(v, align - rem, out);
}

size_t bnd_header_size(const bnd_entry *entries, int n) {
  size_t total = BND_FIXED_HEADER;
  for (int i = 0; i < n; i++) {
    size_t rec;
    if (!add_ok(BND_RECORD_FIXED, strnlen(entries[i].id, sizeof entries[i].id), &rec) ||
        !add_ok(total, rec, &total))
      return 0;
  }
  return total;
}

uint8_t *bnd_build(const bnd_entry *entries, int n, size_t align, size_t *out_size) {
  if (out_size)
    *out_size = 0;
  if (n < 0 || (n > 0 && !entries))
    return NULL;
  if (align == 0)
    align = 1;
  for (int i = 0; i < n; i++)
    if (strnlen(entries[i].id, sizeof entries[i].id) == sizeof entries[i].id)
      return NULL; /* not NUL-terminated: refuse rather than read past the field */
  size_t header = bnd_header_size(entries, n);
  if (header == 0)
    return NULL;

  /* Lay out the payloads first so the header can be written in one pass. The bundler places
   * every entry, empty ones included, at the aligned running position; an empty last entry
   * therefore still extends the file with padding up to its offset. */
  size_t *offsets = malloc(sizeof(size_t) * (size_t)(n > 0 ? n : 1));
  if (!offsets)
    return NULL;
  size_t running = header;
  for (int i = 0; i < n; i++) {
    if (!align_up(running, align, &offsets[i]) ||
        !add_ok(offsets[i], entries[i].size, &running)) {
      free(offsets);
      return NULL;
    }
  }
  size_t total = running;
  uint8_t *buf = calloc(total ? total : 1, 1); /* gaps are zero padding */
  if (!buf) {
    free(offsets);
    return NULL;
  }
  memcpy(buf, BND_MAGIC, BND_MAGIC_LEN);
  put_u64(buf + BND_MAGIC_LEN, (uint64_t)n);
  uint8_t *p = buf + BND_FIXED_HEADER;
  for (int i = 0; i < n; i++) {
    size_t idlen = strlen(entries[i].id);
    put_u64(p, offsets[i]);
    put_u64(p + 8, entries[i].size);
    put_u64(p + 16, idlen);
    memcpy(p + BND_RECORD_FIXED, entries[i].id, idlen);
    p += BND_RECORD_FIXED + idlen;
  }
  for (int i = 0; i < n; i++)
    if (entries[i].size)
      memcpy(buf + offsets[i], entries[i].data, entries[i].size);
  free(offsets);
  if (out_size)
    *out_size = total;
  return buf;
}

/* Error message into err, always returns false so callers can `return fail(...)`. */
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

/* Payload range used to detect overlaps after the header is read. */
typedef struct span {
  uint64_t begin, end;
  int index;
} span;

static int span_cmp(const void *a, const void *b) {
  const span *x = a, *y = b;
  if (x->begin != y->begin)
    return x->begin < y->begin ? -1 : 1;
  return x->index - y->index;
}

static int entry_id_cmp(const void *a, const void *b) {
  const bnd_entry *const *x = a, *const *y = b;
  return strcmp((*x)->id, (*y)->id);
}

/* Reject overlapping non-empty payloads and duplicate IDs; both make "which bytes belong to
 * which target" ambiguous, and the bundler would silently pick one. */
static bool check_overlaps_and_duplicates(const bnd_entry *es, int n, const uint8_t *data,
                                          char *err, size_t errsize) {
  span *spans = malloc(sizeof(span) * (size_t)n);
  const bnd_entry **byid = malloc(sizeof(*byid) * (size_t)n);
  bool ok = spans && byid;
  if (!ok) {
    fail(err, errsize, "out of memory while checking %d bundle entries", n);
  }
  int ns = 0;
  for (int i = 0; ok && i < n; i++) {
    byid[i] = &es[i];
    if (es[i].size) {
      uint64_t off = (uint64_t)(es[i].data - data);
      spans[ns++] = (span){off, off + es[i].size, i};
    }
  }
  if (ok) {
    qsort(spans, (size_t)ns, sizeof(span), span_cmp);
    for (int i = 1; i < ns; i++) {
      if (spans[i].begin < spans[i - 1].end) {
        int a = spans[i - 1].index < spans[i].index ? spans[i - 1].index : spans[i].index;
        int b = spans[i - 1].index < spans[i].index ? spans[i].index : spans[i - 1].index;
        ok = fail(err, errsize, "bundle entries %d (%s) and %d (%s) overlap", a, es[a].id, b,
                  es[b].id);
        break;
      }
    }
  }
  if (ok) {
    qsort(byid, (size_t)n, sizeof(*byid), entry_id_cmp);
    for (int i = 1; i < n; i++) {
      if (strcmp(byid[i - 1]->id, byid[i]->id) == 0) {
        ok = fail(err, errsize, "duplicate bundle entry ID '%s'", byid[i]->id);
        break;
      }
    }
  }
  free(spans);
  free(byid);
  return ok;
}

/* CCOB: decompress, parse the inner bundle, then move the entry array and the decompressed
 * bytes into one allocation so the caller's single free() releases both. */
static bool parse_compressed(const uint8_t *data, size_t size, bnd_entry **entries, int *n,
                             char *err, size_t errsize) {
  char sub[400];
  size_t usize = 0;
  uint8_t *plain = bnd_decompress(data, size, &usize, NULL, sub, sizeof sub);
  if (!plain)
    return fail(err, errsize, "compressed (CCOB) bundle: %s", sub);
  if (usize >= 4 && memcmp(plain, "CCOB", 4) == 0) {
    free(plain);
    return fail(err, errsize, "compressed (CCOB) bundle holds another compressed bundle");
  }
  bnd_entry *es = NULL;
  int count = 0;
  if (!bnd_parse(plain, usize, &es, &count, sub, sizeof sub)) {
    free(plain);
    return fail(err, errsize, "compressed (CCOB) bundle: %s", sub);
  }
  size_t head = sizeof(bnd_entry) * (size_t)count;
  bnd_entry *block = malloc(head + usize);
  if (!block) {
    free(es);
    free(plain);
    return fail(err, errsize, "out of memory for a %zu-byte decompressed bundle", usize);
  }
  uint8_t *copy = (uint8_t *)block + head;
  memcpy(copy, plain, usize);
  for (int i = 0; i < count; i++) {
    block[i] = es[i];
    block[i].data = es[i].data ? copy + (es[i].data - plain) : NULL;
  }
  free(es);
  free(plain);
  *entries = block;
  *n = count;
  return true;
}

bool bnd_parse(const uint8_t *data, size_t size, bnd_entry **entries, int *n, char *err,
               size_t errsize) {
  if (entries)
    *entries = NULL;
  if (n)
    *n = 0;
  if (!entries || !n || (!data && size))
    return fail(err, errsize, "bnd_parse: invalid arguments");
  if (size >= 4 && memcmp(data, "CCOB", 4) == 0)
    return parse_compressed(data, size, entries, n, err, errsize);
  if (size < BND_FIXED_HEADER)
    return fail(err, errsize, "not an offload bundle: %zu bytes, shorter than the %d-byte header",
                size, BND_FIXED_HEADER);
  if (memcmp(data, BND_MAGIC, BND_MAGIC_LEN) != 0)
    return fail(err, errsize, "not an offload bundle: missing magic '" BND_MAGIC "'");

  uint64_t count = get_u64(data + BND_MAGIC_LEN);
  /* Each record needs at least 25 bytes (fixed part + a non-empty ID), so the file size bounds
   * the plausible count before anything is allocated. */
  uint64_t room = (size - BND_FIXED_HEADER) / (BND_RECORD_FIXED + 1);
  if (count > BND_MAX_ENTRIES)
    return fail(err, errsize, "bundle claims %llu entries; at most %d are accepted",
                (unsigned long long)count, BND_MAX_ENTRIES);
  if (count > room)
    return fail(err, errsize, "bundle claims %llu entries but its %zu bytes hold at most %llu",
                (unsigned long long)count, size, (unsigned long long)room);
  if (count == 0)
    return fail(err, errsize, "bundle has no entries");

  bnd_entry *es = calloc((size_t)count, sizeof(bnd_entry));
  if (!es)
    return fail(err, errsize, "out of memory for %llu bundle entries", (unsigned long long)count);

  size_t pos = BND_FIXED_HEADER;
  /* Offsets and sizes are validated after the loop, once the header's end is known. */
  uint64_t *offs = malloc(sizeof(uint64_t) * (size_t)count);
  if (!offs) {
    free(es);
    return fail(err, errsize, "out of memory for %llu bundle entries", (unsigned long long)count);
  }
  bool ok = true;
  for (uint64_t i = 0; ok && i < count; i++) {
    if (size - pos < BND_RECORD_FIXED) {
      ok = fail(err, errsize, "bundle header truncated in entry %llu's record (at byte %zu of %zu)",
                (unsigned long long)i, pos, size);
      break;
    }
    uint64_t off = get_u64(data + pos), sz = get_u64(data + pos + 8),
             idlen = get_u64(data + pos + 16);
    pos += BND_RECORD_FIXED;
    if (idlen == 0 || idlen >= sizeof es[i].id) {
      ok = fail(err, errsize, "bundle entry %llu: ID length %llu outside 1..%zu",
                (unsigned long long)i, (unsigned long long)idlen, sizeof es[i].id - 1);
      break;
    }
    if (size - pos < idlen) {
      ok = fail(err, errsize, "bundle header truncated in entry %llu's ID (needs %llu bytes at %zu, file has %zu)",
                (unsigned long long)i, (unsigned long long)idlen, pos, size);
      break;
    }
    for (uint64_t k = 0; k < idlen; k++) {
      uint8_t c = data[pos + k];
      if (c < 0x21 || c > 0x7e) {
        ok = fail(err, errsize, "bundle entry %llu: ID byte %llu is 0x%02x, not printable ASCII",
                  (unsigned long long)i, (unsigned long long)k, c);
        break;
      }
    }
    if (!ok)
      break;
    memcpy(es[i].id, data + pos, (size_t)idlen);
    es[i].id[idlen] = '\0';
    pos += (size_t)idlen;
    offs[i] = off;
    es[i].size = (size_t)sz; /* range-checked below before use */
    if (sz > size) {
      ok = fail(err, errsize, "bundle entry %llu (%s): size %llu exceeds the file size %zu",
                (unsigned long long)i, es[i].id, (unsigned long long)sz, size);
    }
  }
  size_t header_end = pos;
  for (uint64_t i = 0; ok && i < count; i++) {
    uint64_t off = offs[i], sz = es[i].size;
    /* sz <= size was checked, so size - sz cannot wrap. */
    if (off > size - sz) {
      ok = fail(err, errsize,
                "bundle entry %llu (%s): payload [%llu, +%llu) runs past the end of the file (%zu bytes)",
                (unsigned long long)i, es[i].id, (unsigned long long)off, (unsigned long long)sz,
                size);
    } else if (off < header_end) {
      ok = fail(err, errsize,
                "bundle entry %llu (%s): payload offset %llu lies inside the header (%zu bytes)",
                (unsigned long long)i, es[i].id, (unsigned long long)off, header_end);
    } else {
      es[i].data = data + off;
    }
  }
  free(offs);
  if (ok)
    ok = check_overlaps_and_duplicates(es, (int)count, data, err, errsize);
  if (!ok) {
    free(es);
    return false;
  }
  *entries = es;
  *n = (int)count;
  return true;
}

/* "<kind>-amdgcn-amd-amdhsa--<target-id>": the bundler normalises the AMDHSA triple to four
 * components with an empty environment, hence the double dash that comgr also requires. */
static void amdgcn_id(const char *kind, const target_request *t, char *buf, size_t size) {
  if (!buf || !size)
    return;
  snprintf(buf, size, "%s-amdgcn-amd-amdhsa--%s", kind, t ? t->id : "");
}

void bnd_code_object_id(const target_request *t, char *buf, size_t size) {
  amdgcn_id("hipv4", t, buf, size);
}

/* The bitcode rides along under the OpenMP offload kind: clang-offload-bundler-22 accepts it for
 * -list and -unbundle, and comgr skips every kind other than hip/hipv4/hcc, so HIP never mistakes
 * the bitcode for a code object. docs/bundle.md records the alternatives that were rejected. */
void bnd_bitcode_id(const target_request *t, char *buf, size_t size) {
  amdgcn_id("openmp", t, buf, size);
}
