/* stream.c: libtosac-hipemu's streams and events. Work is queued per stream and runs when the
 * program synchronises (any synchronous call drains every queue). The drain prefers the newest
 * stream whose next operation may start (or the oldest, TOSAC_HIPEMU_ORDER=oldest), so work on
 * one stream that misses a wait for another stream's result runs too early and reads poison: a
 * host program with a missing hipStreamWaitEvent fails here instead of racing on a GPU. */
#include "hipemu.h"

#include <stdlib.h>
#include <string.h>
#include <time.h>

struct ihipStream_t {
  int index;            /* creation order; the null stream is 0 */
  bool blocking;        /* synchronises with the null stream (no hipStreamNonBlocking) */
  he_op *head, *tail;
  uint64_t enqueued, completed;
  struct ihipStream_t *next;
};

struct ihipEvent_t {
  he_prereq rec;  /* the last hipEventRecord: done when rec.stream completed rec.seq */
  bool recorded;
  bool timed;     /* its record has run: `ms` holds the time */
  double ms;
};

static struct ihipStream_t null_stream = {.index = 0, .blocking = true};
static struct ihipStream_t *streams = &null_stream; /* every stream, newest first */
static int created;
static hipError_t sticky = hipSuccess; /* a failed kernel poisons the device, as on a GPU */

static double now_ms(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

static struct ihipStream_t *resolve(hipStream_t s) { return s ? s : &null_stream; }

static bool known_stream(hipStream_t s) {
  for (struct ihipStream_t *t = streams; t; t = t->next)
    if (t == resolve(s))
      return true;
  return false;
}

static void add_prereq(he_op *op, struct ihipStream_t *s, uint64_t seq) {
  if (seq <= s->completed)
    return;
  op->pre = realloc(op->pre, sizeof *op->pre * (size_t)(op->npre + 1));
  op->pre[op->npre++] = (he_prereq){s, seq};
}

static void op_free(he_op *op) {
  free(op->pre);
  free(op->kernel);
  free(op->kernarg);
  free(op);
}

hipError_t he_enqueue(hipStream_t hs, he_op *op) {
  struct ihipStream_t *s = resolve(hs);
  if (!known_stream(hs)) {
    op_free(op);
    return he_fail(hipErrorInvalidHandle, "stream %p is not a live stream", (void *)hs);
  }
  /* Legacy null-stream semantics: it waits for every blocking stream and they wait for it. */
  if (s == &null_stream) {
    for (struct ihipStream_t *t = streams; t; t = t->next)
      if (t != s && t->blocking)
        add_prereq(op, t, t->enqueued);
  } else if (s->blocking) {
    add_prereq(op, &null_stream, null_stream.enqueued);
  }
  op->seq = ++s->enqueued;
  if (op->kind == HE_OP_RECORD && op->event)
    op->event->rec = (he_prereq){s, op->seq}, op->event->recorded = true, op->event->timed = false;
  if (s->tail)
    s->tail->next = op;
  else
    s->head = op;
  s->tail = op;
  return hipSuccess;
}

static bool ready(const he_op *op) {
  for (int i = 0; i < op->npre; i++)
    if (op->pre[i].stream->completed < op->pre[i].seq)
      return false;
  return true;
}

static hipError_t run_op(he_op *op) {
  switch (op->kind) {
  case HE_OP_COPY:
    memmove(op->dst, op->src, op->bytes);
    return hipSuccess;
  case HE_OP_FILL:
    for (size_t i = 0; i < op->bytes; i += (size_t)op->width)
      memcpy(op->dst + i, &op->pattern, (size_t)op->width); /* little-endian host */
    return hipSuccess;
  case HE_OP_RECORD:
    if (op->event)
      op->event->ms = now_ms(), op->event->timed = true;
    return hipSuccess;
  case HE_OP_KERNEL:
    return he_run_kernel(op);
  }
  return hipSuccess;
}

/* Drop everything still queued (after a failure, or at reset). */
static void discard_all(void) {
  for (struct ihipStream_t *t = streams; t; t = t->next) {
    while (t->head) {
      he_op *op = t->head;
      t->head = op->next;
      if (op->kind == HE_OP_RECORD && op->event)
        op->event->timed = true, op->event->ms = now_ms();
      op_free(op);
    }
    t->tail = NULL;
    t->completed = t->enqueued;
  }
}

/* TOSAC_HIPEMU_ORDER=oldest drains the oldest stream first instead (the null stream first):
 * running a program under both orders exposes a missing wait in either direction. */
static bool oldest_first(void) {
  static int v = -1;
  if (v < 0) {
    const char *e = getenv("TOSAC_HIPEMU_ORDER");
    v = e && !strcmp(e, "oldest");
  }
  return v;
}

hipError_t he_drain(void) {
  bool oldest = oldest_first();
  for (;;) {
    struct ihipStream_t *pick = NULL;
    for (struct ihipStream_t *t = streams; t && (oldest || !pick); t = t->next)
      if (t->head && ready(t->head))
        pick = t;
    if (!pick)
      break; /* all queues empty: prerequisites always name earlier work, so never stuck */
    he_op *op = pick->head;
    pick->head = op->next;
    if (!pick->head)
      pick->tail = NULL;
    hipError_t e = sticky == hipSuccess ? run_op(op) : hipSuccess;
    pick->completed = op->seq;
    op_free(op);
    if (e != hipSuccess) {
      sticky = e;
      discard_all();
      return e;
    }
  }
  return sticky;
}

void he_streams_reset(void) {
  discard_all();
  sticky = hipSuccess;
}

/* ---------------------------------------------------------------- streams */

static hipError_t stream_create(hipStream_t *out, unsigned flags) {
  if (!out)
    return he_fail(hipErrorInvalidValue, "hipStreamCreate: NULL result pointer");
  struct ihipStream_t *s = calloc(1, sizeof *s);
  if (!s)
    return he_fail(hipErrorOutOfMemory, "hipStreamCreate: out of memory");
  s->index = ++created;
  s->blocking = !(flags & hipStreamNonBlocking);
  s->next = streams;
  streams = s;
  *out = s;
  return hipSuccess;
}

HE_API hipError_t hipStreamCreate(hipStream_t *s) { LOCKED(stream_create(s, 0)); }
HE_API hipError_t hipStreamCreateWithFlags(hipStream_t *s, unsigned int flags) {
  LOCKED(stream_create(s, flags));
}

static hipError_t stream_destroy(hipStream_t s) {
  if (!s || !known_stream(s))
    return he_fail(hipErrorInvalidHandle, "hipStreamDestroy: %p is not a live stream", (void *)s);
  hipError_t e = he_drain();
  for (struct ihipStream_t **p = &streams; *p; p = &(*p)->next)
    if (*p == s) {
      *p = s->next;
      break;
    }
  free(s);
  return e;
}

HE_API hipError_t hipStreamDestroy(hipStream_t s) { LOCKED(stream_destroy(s)); }

static hipError_t stream_sync(hipStream_t s) {
  if (!known_stream(s))
    return he_fail(hipErrorInvalidHandle, "%p is not a live stream", (void *)s);
  return he_drain();
}

HE_API hipError_t hipStreamSynchronize(hipStream_t s) { LOCKED(stream_sync(s)); }
HE_API hipError_t hipStreamQuery(hipStream_t s) { LOCKED(stream_sync(s)); }

static hipError_t stream_wait(hipStream_t s, hipEvent_t ev, unsigned flags) {
  if (!ev)
    return he_fail(hipErrorInvalidHandle, "hipStreamWaitEvent: NULL event");
  if (flags)
    return he_fail(hipErrorInvalidValue, "hipStreamWaitEvent: flags must be 0");
  he_op *op = calloc(1, sizeof *op);
  op->kind = HE_OP_RECORD; /* an op without an event: it only waits */
  if (ev->recorded)
    add_prereq(op, ev->rec.stream, ev->rec.seq);
  return he_enqueue(s, op);
}

HE_API hipError_t hipStreamWaitEvent(hipStream_t s, hipEvent_t ev, unsigned int flags) {
  LOCKED(stream_wait(s, ev, flags));
}

/* ---------------------------------------------------------------- events */

static hipError_t event_create(hipEvent_t *out) {
  if (!out)
    return he_fail(hipErrorInvalidValue, "hipEventCreate: NULL result pointer");
  *out = calloc(1, sizeof **out);
  return *out ? hipSuccess : he_fail(hipErrorOutOfMemory, "hipEventCreate: out of memory");
}

HE_API hipError_t hipEventCreate(hipEvent_t *e) { LOCKED(event_create(e)); }
HE_API hipError_t hipEventCreateWithFlags(hipEvent_t *e, unsigned flags) {
  (void)flags; /* timing is always on; blocking sync is what a drain does anyway */
  LOCKED(event_create(e));
}

static hipError_t event_destroy(hipEvent_t ev) {
  if (!ev)
    return he_fail(hipErrorInvalidHandle, "hipEventDestroy: NULL event");
  hipError_t e = he_drain(); /* a queued record must not outlive its event */
  free(ev);
  return e;
}

HE_API hipError_t hipEventDestroy(hipEvent_t ev) { LOCKED(event_destroy(ev)); }

static hipError_t event_record(hipEvent_t ev, hipStream_t s) {
  if (!ev)
    return he_fail(hipErrorInvalidHandle, "hipEventRecord: NULL event");
  he_op *op = calloc(1, sizeof *op);
  op->kind = HE_OP_RECORD, op->event = ev;
  return he_enqueue(s, op);
}

HE_API hipError_t hipEventRecord(hipEvent_t ev, hipStream_t s) { LOCKED(event_record(ev, s)); }

static hipError_t event_sync(hipEvent_t ev) {
  if (!ev)
    return he_fail(hipErrorInvalidHandle, "NULL event");
  return he_drain();
}

HE_API hipError_t hipEventSynchronize(hipEvent_t ev) { LOCKED(event_sync(ev)); }
HE_API hipError_t hipEventQuery(hipEvent_t ev) { LOCKED(event_sync(ev)); }

static hipError_t elapsed(float *ms, hipEvent_t a, hipEvent_t b) {
  if (!ms || !a || !b)
    return he_fail(hipErrorInvalidValue, "hipEventElapsedTime: NULL argument");
  hipError_t e = he_drain();
  if (e != hipSuccess)
    return e;
  if (!a->timed || !b->timed)
    return he_fail(hipErrorNotReady, "hipEventElapsedTime: an event was never recorded");
  *ms = (float)(b->ms - a->ms);
  return hipSuccess;
}

HE_API hipError_t hipEventElapsedTime(float *ms, hipEvent_t a, hipEvent_t b) {
  LOCKED(elapsed(ms, a, b));
}
