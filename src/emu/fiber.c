/* fiber.c: work-item fibers: guarded stacks (below 4 GiB when possible) and their start frame. */
#include "emu_int.h"

#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

void emu_fiber_trampoline(void);

/* The JIT may round-trip private and LDS pointers through i32 (they are 32-bit on the GPU), so
 * stacks and LDS go below 4 GiB when the kernel lets us; elsewhere they still work for code
 * that keeps pointers 64-bit. */
void *emu_map_low(size_t bytes) {
  void *p = mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_32BIT, -1, 0);
  if (p == MAP_FAILED)
    p = mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  return p == MAP_FAILED ? NULL : p;
}

bool emu_stacks_reserve(emu_stacks *s, int count) {
  if (count <= s->count)
    return true;
  emu_stacks_release(s);
  /* The guard is larger than any one frame the host code makes (MFMA kernels pass their
   * operands through stack slots), so an overflow cannot jump over it into a neighbour. */
  size_t page = (size_t)sysconf(_SC_PAGESIZE);
  page = page > 64 * 1024 ? page : 64 * 1024;
  size_t each = EMU_FIBER_STACK + page;
  uint8_t *base = emu_map_low(each * (size_t)count);
  if (!base)
    return false;
  /* The lowest pages of each stack trap an overflow instead of corrupting the neighbour. */
  for (int i = 0; i < count; i++)
    mprotect(base + (size_t)i * each, page, PROT_NONE);
  s->base = base;
  s->each = each;
  s->guard = page;
  s->count = count;
  return true;
}

void emu_stacks_release(emu_stacks *s) {
  if (s->base)
    munmap(s->base, s->each * (size_t)s->count);
  memset(s, 0, sizeof *s);
}

void emu_stack_range(const emu_stacks *s, int i, uintptr_t *lo, uintptr_t *hi) {
  *lo = (uintptr_t)(s->base + (size_t)i * s->each + s->guard);
  *hi = (uintptr_t)(s->base + (size_t)(i + 1) * s->each);
}

/* Lay out the frame emu_fiber_switch pops: six callee-saved registers (r12 = arg, r13 = fn),
 * then the trampoline as return address. 72 bytes below a 16-byte aligned top leaves the stack
 * aligned as the ABI wants when the trampoline calls fn. */
void *emu_fiber_init(const emu_stacks *s, int i, void (*fn)(void *), void *arg) {
  uintptr_t lo, hi;
  emu_stack_range(s, i, &lo, &hi);
  /* Stacks are a multiple of 4 KiB apart, so the lanes' operands of a wave operation (at the
   * same depth in every stack) would all fall into the same cache sets; starting each stack at
   * a different cache line of its top page spreads them. */
  hi -= (uintptr_t)((i * 5) % 64) * 64;
  uintptr_t *sp = (uintptr_t *)((hi & ~(uintptr_t)15) - 72);
  sp[0] = 0;                            /* r15 */
  sp[1] = 0;                            /* r14 */
  sp[2] = (uintptr_t)fn;                /* r13 */
  sp[3] = (uintptr_t)arg;               /* r12 */
  sp[4] = 0;                            /* rbx */
  sp[5] = 0;                            /* rbp */
  sp[6] = (uintptr_t)emu_fiber_trampoline;
  return sp;
}
