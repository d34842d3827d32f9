/* buffers.c: intermediate buffers share one workspace arena, placed by liveness. */
#include "partition.h"

#include <stdlib.h>
#include <string.h>

typedef struct placed {
  int64_t offset, end;
  int last;
  int buf;
} placed;

static int64_t align_up(int64_t x, int64_t a) { return (x + a - 1) / a * a; }

/* Buffers are placed in the order they are first written (ties: buffer id). Buffer ids are
 * creation order, and expansion (expand.c, splitk.c) appends workspaces that an earlier launch
 * writes; placing those last would test them against a live set that already dropped values
 * live at their launch. */
typedef struct first_key {
  int first, buf;
} first_key;

static int cmp_first(const void *x, const void *y) {
  const first_key *a = x, *c = y;
  if (a->first != c->first)
    return (a->first > c->first) - (a->first < c->first);
  return (a->buf > c->buf) - (a->buf < c->buf);
}

/* Take over buffer j's allocation for buffer i (in-place reuse, inplace.c): j dies at the
 * launch that first writes i, so its entry is still in the live set. */
static bool take_over(placed *live, int nlive, int j, part_buffer *b, int i, int64_t size,
                      int last) {
  for (int e = 0; e < nlive; e++) {
    if (live[e].buf != j || live[e].end - live[e].offset < size)
      continue;
    live[e].end = live[e].offset + size;
    live[e].last = last;
    live[e].buf = i;
    b->offset = live[e].offset;
    b->inplace = 1 + j;
    return true;
  }
  return false;
}

/* First fit over the offsets still in use at the buffer's first launch: a buffer whose value
 * is dead (last use before this buffer's first write) frees its bytes for reuse. The result is
 * the lowest aligned offset that overlaps no live allocation; keeping the live allocations
 * sorted by offset finds it in one sweep. Cost: O(buffers x most allocations live at once).
 * inplace_of[i] >= 0: buffer i takes that buffer's offset (it dies where i is first written). */
int64_t part_place_workspace(part_buffer *bufs, int nbufs, const int *live_first,
                             const int *live_last, const int *inplace_of, int64_t *zeroed_bytes) {
  placed *live = calloc((size_t)nbufs + 1, sizeof *live); /* sorted by offset */
  first_key *order = malloc(sizeof *order * (size_t)(nbufs + 1));
  int nlive = 0, norder = 0;
  int64_t total = 0;
  /* The zeroed region first (split-K arrival counters): each buffer its own bytes, never shared,
   * so every kernel leaves its counters zero for the next run (docs/manifest.md). */
  int64_t zeroed = 0;
  for (int i = 0; i < nbufs; i++)
    if (bufs[i].kind == BUF_WORKSPACE && bufs[i].zeroed) {
      bufs[i].inplace = 0;
      bufs[i].offset = align_up(zeroed, bufs[i].align);
      zeroed = bufs[i].offset + (bufs[i].bytes > 0 ? bufs[i].bytes : 1);
    }
  zeroed = align_up(zeroed, 256);
  if (zeroed_bytes)
    *zeroed_bytes = zeroed;
  for (int i = 0; i < nbufs; i++)
    if ((bufs[i].kind == BUF_INTERMEDIATE || bufs[i].kind == BUF_WORKSPACE) && !bufs[i].zeroed)
      order[norder++] = (first_key){live_first[i], i};
  if (norder > 1)
    qsort(order, (size_t)norder, sizeof *order, cmp_first);
  for (int oi = 0; oi < norder; oi++) {
    int i = order[oi].buf;
    part_buffer *b = &bufs[i];
    b->inplace = 0;
    /* Drop allocations whose last reader runs before this buffer is first written. */
    int k = 0;
    for (int j = 0; j < nlive; j++)
      if (live[j].last >= live_first[i])
        live[k++] = live[j];
    nlive = k;
    int64_t size = align_up(b->bytes > 0 ? b->bytes : 1, b->align);
    if (inplace_of && inplace_of[i] >= 0 &&
        take_over(live, nlive, inplace_of[i], b, i, size, live_last[i]))
      continue;
    /* Every aligned offset below `off` overlaps some allocation; the sweep stops at the first
     * allocation that starts at or past off + size (all later ones start later still). */
    int64_t off = zeroed;
    int at = 0;
    for (; at < nlive && live[at].offset < off + size; at++)
      if (live[at].end > off)
        off = align_up(live[at].end, b->align);
    /* Keep the order: the new allocation goes after every one starting at or before off. */
    int pos = at;
    while (pos > 0 && live[pos - 1].offset > off)
      pos--;
    while (pos < nlive && live[pos].offset <= off)
      pos++;
    memmove(&live[pos + 1], &live[pos], sizeof *live * (size_t)(nlive - pos));
    live[pos] = (placed){off, off + size, live_last[i], i};
    nlive++;
    b->offset = off;
    if (off + size > total)
      total = off + size;
  }
  free(order);
  free(live);
  return total > zeroed ? total : zeroed;
}
