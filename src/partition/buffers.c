/* buffers.c: intermediate buffers share one workspace arena, placed by liveness. */
#include "partition.h"

#include <stdlib.h>
#include <string.h>

typedef struct placed {
  int64_t offset, end;
  int last;
} placed;

static int64_t align_up(int64_t x, int64_t a) { return (x + a - 1) / a * a; }

/* First fit over the offsets still in use at the buffer's first launch: a buffer whose value
 * is dead (last use before this buffer's first write) frees its bytes for reuse. The result is
 * the lowest aligned offset that overlaps no live allocation; keeping the live allocations
 * sorted by offset finds it in one sweep. Cost: O(buffers x most allocations live at once). */
int64_t part_place_workspace(part_buffer *bufs, int nbufs, const int *live_first,
                             const int *live_last) {
  placed *live = calloc((size_t)nbufs + 1, sizeof *live); /* sorted by offset */
  int nlive = 0;
  int64_t total = 0;
  for (int i = 0; i < nbufs; i++) {
    part_buffer *b = &bufs[i];
    if (b->kind != BUF_INTERMEDIATE && b->kind != BUF_WORKSPACE)
      continue;
    /* Drop allocations whose last reader runs before this buffer is first written. */
    int k = 0;
    for (int j = 0; j < nlive; j++)
      if (live[j].last >= live_first[i])
        live[k++] = live[j];
    nlive = k;
    int64_t size = align_up(b->bytes > 0 ? b->bytes : 1, b->align);
    /* Every aligned offset below `off` overlaps some allocation; the sweep stops at the first
     * allocation that starts at or past off + size (all later ones start later still). */
    int64_t off = 0;
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
    live[pos] = (placed){off, off + size, live_last[i]};
    nlive++;
    b->offset = off;
    if (off + size > total)
      total = off + size;
  }
  free(live);
  return total;
}
