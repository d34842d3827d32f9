/* names.c: values' SSA names in 32 bits; the spellings that are not plain decimals in a
 * process-wide registry. */
#include "tosac.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

/* A name code: 0 none; a decimal n (no leading zero, n < NAME_DECIMAL_LIMIT) as n + 1; any
 * other spelling as NAME_STRING | slot. Most names are decimals ("%123"): no string at all. */
#define NAME_DECIMAL_LIMIT (NAME_STRING - 1u)

/* The registry: slot -> string (an arena copy). Two levels so a slot never moves: a reader
 * (any thread, e.g. codegen's workers) loads the chunk without a lock; claiming and freeing
 * slots take the mutex. A slot is freed when the arena its string lives in is freed (each
 * arena lists its slots), and is then reused. */
#define CHUNK_BITS 16
#define CHUNK_SIZE (1u << CHUNK_BITS)
#define NCHUNKS (1u << (31 - CHUNK_BITS))
static const char **_Atomic chunks[NCHUNKS];
static pthread_mutex_t names_lock = PTHREAD_MUTEX_INITIALIZER;
static uint32_t next_slot;   /* slots below it have been handed out at least once */
static uint32_t *free_slots; /* freed slots, reused first */
static size_t nfree, capfree;

static void *xrealloc(void *p, size_t n) {
  p = realloc(p, n);
  if (!p) {
    fputs("tosac: error: out of memory\n", stderr);
    abort();
  }
  return p;
}

static uint32_t slot_claim(const char *s) {
  pthread_mutex_lock(&names_lock);
  uint32_t i;
  if (nfree)
    i = free_slots[--nfree];
  else {
    if (next_slot == NCHUNKS * CHUNK_SIZE) {
      fputs("tosac: error: more than 2^31 value names alive\n", stderr);
      abort();
    }
    i = next_slot++;
    if (!atomic_load_explicit(&chunks[i >> CHUNK_BITS], memory_order_relaxed))
      atomic_store_explicit(&chunks[i >> CHUNK_BITS], xrealloc(NULL, CHUNK_SIZE * sizeof(char *)),
                            memory_order_release);
  }
  atomic_load_explicit(&chunks[i >> CHUNK_BITS], memory_order_relaxed)[i & (CHUNK_SIZE - 1)] = s;
  pthread_mutex_unlock(&names_lock);
  return i;
}

void name_slots_release(const uint32_t *slots, size_t n) {
  if (!n)
    return;
  pthread_mutex_lock(&names_lock);
  if (nfree + n > capfree) {
    capfree = (nfree + n) * 2;
    free_slots = xrealloc(free_slots, capfree * sizeof *free_slots);
  }
  memcpy(free_slots + nfree, slots, n * sizeof *slots);
  nfree += n;
  pthread_mutex_unlock(&names_lock);
}

name_code name_intern(arena *a, const char *s) { return s ? name_intern_n(a, s, strlen(s)) : 0; }

name_code name_decimal(const char *s, size_t n) {
  bool decimal = n > 0 && n <= 10 && (s[0] != '0' || n == 1);
  uint64_t x = 0;
  for (size_t i = 0; decimal && i < n; i++) {
    decimal = s[i] >= '0' && s[i] <= '9';
    x = x * 10 + (uint64_t)(s[i] - '0');
  }
  return decimal && x < NAME_DECIMAL_LIMIT ? (name_code)x + 1 : 0;
}

name_code name_intern_n(arena *a, const char *s, size_t n) {
  name_code c = name_decimal(s, n);
  if (c)
    return c;
  uint32_t slot = slot_claim(arena_strndup(a, s, n));
  arena_note_name_slot(a, slot);
  return NAME_STRING | slot;
}

const char *name_str(name_code c, char buf[VALUE_NAME_MAX]) {
  if (!c)
    return NULL;
  if (!(c & NAME_STRING)) {
    snprintf(buf, VALUE_NAME_MAX, "%u", (unsigned)(c - 1));
    return buf;
  }
  uint32_t i = c & ~NAME_STRING;
  return atomic_load_explicit(&chunks[i >> CHUNK_BITS], memory_order_acquire)[i & (CHUNK_SIZE - 1)];
}

bool name_equal(name_code c, const char *s, size_t n) {
  char buf[VALUE_NAME_MAX];
  const char *t = name_str(c, buf);
  return t && strlen(t) == n && !memcmp(t, s, n);
}
