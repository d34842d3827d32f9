/* buffers.c: intermediate buffers share one workspace arena, placed by liveness. */
#include "partition.h"

#include <stdlib.h>

typedef struct placed {
  int64_t offset, end;
  int last;
} placed;

static int64_t align_up(int64_t x, int64_t a) { return (x + a - 1) / a * a; }

/* First fit over the offsets still in use at the buffer's first launch: a buffer whose value
 * is dead (last use before this buffer's first write) frees its bytes for reuse. */
int64_t part_place_workspace(part_buffer *bufs, int nbufs, const int *live_first,
                             const int *live_last) {
  placed *live = calloc((size_t)nbufs + 1, sizeof *live);
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
    int64_t off = 0;
    for (bool moved = true; moved;) {
      moved = false;
      for (int j = 0; j < nlive; j++)
        if (off < live[j].end && live[j].offset < off + size) {
          off = align_up(live[j].end, b->align);
          moved = true;
        }
    }
    b->offset = off;
    live[nlive++] = (placed){off, off + size, live_last[i]};
    if (off + size > total)
      total = off + size;
  }
  free(live);
  return total;
}
