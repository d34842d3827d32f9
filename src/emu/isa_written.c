/* isa_written.c: reads of buffer bytes nothing wrote in this run. A client that owns the launch
 * graph (tosac-run) gives a buffer, its workspace, a shadow of one byte per byte, set by fills,
 * copies and every store or atomic a kernel makes; a kernel that loads a byte whose shadow is
 * still clear reads memory no producer of this run wrote (a producing launch missing from the
 * graph, or its output redirected elsewhere). */
#include "isa_int.h"

#include <inttypes.h>
#include <string.h>

bool isa_written_shadow(isa_wave *w, const isa_inst *in, const emu_buffer *b, uint64_t off, uint64_t size, bool store,
                        int lane) {
  uint8_t *s = b->written + off;
  if (store) {
    memset(s, 1, (size_t)size);
    return true;
  }
  for (uint64_t i = 0; i < size; i++)
    if (!s[i]) {
      isa_fault(w, in, "lane %d loads %" PRIu64 " bytes at %s+%" PRIu64 ", of which byte %" PRIu64
                       " was not written by anything in this run",
                lane, size, b->name ? b->name : "buffer", off, off + i);
      return false;
    }
  return true;
}
