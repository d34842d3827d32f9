/* arena.c: bump allocation for everything that lives as long as one compile. */
#include "tosac.h"

#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#define ARENA_BLOCK (1u << 20)

typedef struct arena_block {
  struct arena_block *next;
  size_t used, size;
  bool own; /* a large request's block of its own (arena_regrow may resize it) */
  _Alignas(16) unsigned char data[];
} arena_block;

struct arena {
  arena_block *head;
  struct type_table *types; /* type_intern's table, in the arena's own blocks */
  uint32_t *name_slots;     /* the value-name registry's slots of strings held here (names.c) */
  size_t nname_slots, cap_name_slots;
};

static void *xmalloc(size_t n) {
  void *p = malloc(n);
  if (!p) {
    fputs("tosac: error: out of memory\n", stderr);
    abort();
  }
  return p;
}

arena *arena_new(void) {
  arena *a = xmalloc(sizeof *a);
  *a = (arena){0};
  return a;
}

struct type_table **arena_type_table(arena *a) { return &a->types; }

void arena_note_name_slot(arena *a, uint32_t slot) {
  ARENA_PUSH_OWNED(a, a->name_slots, a->nname_slots, a->cap_name_slots, slot);
}

void arena_free(arena *a) {
  if (!a)
    return;
  name_slots_release(a->name_slots, a->nname_slots);
  for (arena_block *b = a->head, *n; b; b = n) {
    n = b->next;
    free(b);
  }
  free(a);
}

void *arena_alloc(arena *a, size_t size) {
  void *p = arena_alloc_raw(a, size);
  memset(p, 0, size);
  return p;
}

void *arena_alloc_raw(arena *a, size_t size) {
  /* 8-byte granules: nothing tosac keeps needs more (no long double, no vectors), and a
   * million-op graph's small pieces (one-pointer lists, short names, 120-byte values) would
   * each waste 8 bytes in 16-byte ones. Large requests' own blocks stay 16-byte aligned. */
  size = (size + 7) & ~(size_t)7;
  arena_block *b = a->head;
  if (!b || b->size - b->used < size) {
    /* Large requests get a block of their own so small ones keep filling the current one. */
    size_t bs = size > ARENA_BLOCK / 4 ? size : ARENA_BLOCK;
    arena_block *nb = xmalloc(sizeof *nb + bs);
    nb->used = 0;
    nb->size = bs;
    nb->own = size > ARENA_BLOCK / 4;
    if (b && size > ARENA_BLOCK / 4) {
      nb->next = b->next;
      b->next = nb;
    } else {
      nb->next = b;
      a->head = nb;
    }
    b = nb;
  }
  void *p = b->data + b->used;
  b->used += size;
  return p;
}

char *arena_strndup(arena *a, const char *s, size_t n) {
  char *p = arena_alloc(a, n + 1);
  memcpy(p, s, n);
  p[n] = 0;
  return p;
}

char *arena_strdup(arena *a, const char *s) { return arena_strndup(a, s, strlen(s)); }

char *arena_printf(arena *a, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  char *tmp = NULL;
  int n = vasprintf(&tmp, fmt, ap);
  va_end(ap);
  if (n < 0) {
    fputs("tosac: error: out of memory\n", stderr);
    abort();
  }
  char *p = arena_strndup(a, tmp, (size_t)n);
  free(tmp);
  return p;
}

void *arena_grow(arena *a, void *old, size_t elem_size, size_t old_count, size_t new_cap) {
  void *p = arena_alloc(a, elem_size * new_cap);
  if (old && old_count)
    memcpy(p, old, elem_size * old_count);
  return p;
}

/* The link that points at the block p starts, or NULL when p does not start one of a's blocks. */
static arena_block **block_link(arena *a, const void *p) {
  const unsigned char *start = p ? (const unsigned char *)p - offsetof(arena_block, data) : NULL;
  const arena_block *b = (const arena_block *)start;
  arena_block **link = &a->head;
  while (b && *link && *link != b)
    link = &(*link)->next;
  return b && *link == b ? link : NULL;
}

void arena_release(arena *a, void *p) {
  arena_block **link = block_link(a, p);
  if (!link || !(*link)->own)
    return;
  arena_block *b = *link;
  *link = b->next;
  free(b);
}

void *arena_regrow(arena *a, void *old, size_t elem_size, size_t old_count, size_t new_cap) {
  arena_block **link = block_link(a, old);
  arena_block *ob = link ? *link : NULL;
  size_t bytes = (elem_size * new_cap + 7) & ~(size_t)7;
  if (!ob || !ob->own || bytes < ob->size)
    return arena_grow(a, old, elem_size, old_count, new_cap);
  arena_block *nb = realloc(ob, sizeof *nb + bytes);
  if (!nb) {
    fputs("tosac: error: out of memory\n", stderr);
    abort();
  }
  nb->used = nb->size = bytes;
  *link = nb;
  memset(nb->data + elem_size * old_count, 0, bytes - elem_size * old_count);
  return nb->data;
}
