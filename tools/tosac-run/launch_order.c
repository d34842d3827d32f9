/* launch_order.c: the launch graph's missing-edge check. A runtime may run two launches that no
 * chain of dependency edges orders in either order or at once, so if they touch overlapping
 * bytes of one allocation and one of them writes, the manifest lacks an edge. Checked per list
 * (the top-level order and each control region: edges never cross lists) from what each launch
 * declares: a kernel's buffer arguments with their access, a fill's range, a copy's source and
 * destination. */
#include "run.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Bytes [lo, hi) of one allocation: inputs and outputs are their own, intermediates and the
 * workspace share the workspace, constants the weights. */
typedef struct span {
  int alloc; /* 2 * index for inputs, 2 * index + 1 for outputs; -1 workspace, -2 weights */
  int64_t lo, hi;
  bool write;
} span;

static span buffer_span(const run_target *t, int b, int64_t off, int64_t bytes, bool write) {
  const run_buffer *buf = &t->buffers[b];
  int alloc = buf->kind == BUF_INPUT    ? 2 * buf->index
              : buf->kind == BUF_OUTPUT ? 2 * buf->index + 1
              : buf->kind == BUF_CONSTANT ? -2
                                          : -1;
  int64_t base = buf->kind == BUF_INPUT || buf->kind == BUF_OUTPUT ? 0 : buf->offset;
  return (span){alloc, base + off, base + off + (bytes < 0 ? buf->bytes : bytes), write};
}

/* What launch l touches (at most nmax spans); the count. */
static int launch_spans(const run_target *t, const run_launch *l, span *out, int nmax) {
  int n = 0;
  switch (l->kind) {
  case LAUNCH_KERNEL: {
    const run_kernel *k = &t->kernels[l->kernel];
    for (int i = 0; i < k->nargs && n + 2 <= nmax; i++) {
      const run_arg *a = &k->args[i];
      if (a->buffer < 0 || strcmp(a->value_kind, "global_buffer"))
        continue;
      if (a->reads)
        out[n++] = buffer_span(t, a->buffer, 0, -1, false);
      if (a->writes)
        out[n++] = buffer_span(t, a->buffer, 0, -1, true);
    }
    break;
  }
  case LAUNCH_FILL:
    out[n++] = buffer_span(t, l->buffer, l->offset, l->bytes, true);
    break;
  case LAUNCH_COPY:
    out[n++] = buffer_span(t, l->src_buffer, l->src_offset, l->bytes, false);
    out[n++] = buffer_span(t, l->dst_buffer, l->dst_offset, l->bytes, true);
    break;
  default:
    break; /* control nodes: their regions are checked as lists of their own */
  }
  return n;
}

static const char *alloc_name(int alloc, char *buf, size_t size) {
  if (alloc == -1)
    return "the workspace";
  if (alloc == -2)
    return "the weights";
  snprintf(buf, size, "%s %d", alloc % 2 ? "output" : "input", alloc / 2);
  return buf;
}

/* reach[i * n + j]: launch list[j] is a (transitive) dependency of list[i]. */
static void closure(const run_target *t, const int *list, int n, const int *pos, uint8_t *reach) {
  for (int i = 0; i < n; i++) /* dependencies come earlier in the list */
    for (int d = 0; d < t->launches[list[i]].ndeps; d++) {
      int j = pos[t->launches[list[i]].deps[d]];
      reach[i * n + j] = 1;
      for (int k = 0; k < n; k++)
        reach[i * n + k] |= reach[j * n + k];
    }
}

static bool check_list(const run_target *t, const int *list, int n, char *err, size_t errsize) {
  enum { SPANS = 64 };
  int *pos = malloc(sizeof(int) * (size_t)(t->nlaunches + 1));
  uint8_t *reach = calloc((size_t)n * (size_t)n + 1, 1);
  span *sp = malloc(sizeof(span) * SPANS * (size_t)(n + 1));
  int *nsp = malloc(sizeof(int) * (size_t)(n + 1));
  for (int i = 0; i < n; i++)
    pos[list[i]] = i;
  closure(t, list, n, pos, reach);
  for (int i = 0; i < n; i++)
    nsp[i] = launch_spans(t, &t->launches[list[i]], sp + SPANS * i, SPANS);
  bool ok = true;
  for (int i = 0; ok && i < n; i++)
    for (int j = 0; ok && j < i; j++) {
      if (reach[i * n + j])
        continue;
      for (int a = 0; ok && a < nsp[i]; a++)
        for (int b = 0; ok && b < nsp[j]; b++) {
          const span *x = &sp[SPANS * i + a], *y = &sp[SPANS * j + b];
          if (x->alloc != y->alloc || !(x->write || y->write) || x->hi <= y->lo || y->hi <= x->lo)
            continue;
          char name[32];
          int64_t lo = x->lo > y->lo ? x->lo : y->lo, hi = x->hi < y->hi ? x->hi : y->hi;
          snprintf(err, errsize,
                   "launches %d and %d are unordered in the launch graph, but launch %d writes bytes "
                   "[%lld, %lld) of %s that launch %d %s (a missing dependency edge)",
                   list[j], list[i], x->write ? list[i] : list[j], (long long)lo, (long long)hi,
                   alloc_name(x->alloc, name, sizeof name), x->write ? list[j] : list[i],
                   (x->write ? y->write : x->write) ? "writes too" : "reads");
          ok = false;
        }
    }
  free(pos), free(reach), free(sp), free(nsp);
  return ok;
}

bool run_check_launch_order(const run_target *t, char *err, size_t errsize) {
  if (!check_list(t, t->order, t->norder, err, errsize))
    return false;
  for (int i = 0; i < t->nlaunches; i++) {
    const run_launch *l = &t->launches[i];
    for (int k = 0; l->kind >= LAUNCH_IF && k < 2; k++)
      if (!check_list(t, l->region[k], l->nregion[k], err, errsize))
        return false;
  }
  return true;
}
