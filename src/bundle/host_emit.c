/* host_emit.c: --emit=host: the launch graph as self-contained C17 host code over the HIP module
 * API (docs/host.md). Walks the same plans and codegen results the manifest is written from:
 * per target, tables (kernels, arguments, buffers) and one static function per partition (the
 * launches one TOSA op became), then a run function calling the partitions in topological order
 * on up to --host-streams streams joined by events. */
#include "bundle/bundle.h"

#include <ctype.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ------------------------------------------------------------------ partitions */

/* One partition: the launch nodes one op (or one fill/copy) became, in plan order. */
typedef struct hpart {
  int *nodes, nnodes;
  int *deps, ndeps; /* partitions that must finish first */
  int stream;       /* --host-streams: which stream runs it */
  bool recorded;    /* a later partition on another stream waits for its event */
} hpart;

typedef struct hplan {
  const partition_plan *p;
  int *part_of; /* node id -> partition */
  hpart *parts;
  int nparts;
  int *porder;  /* partitions in topological order */
} hplan;

/* The op a kernel node belongs to: expanded kernels (partial + combine, split-K, init kernels)
 * share their anchor; an elementwise kernel is a partition of its own. */
static const void *node_key(const partition_plan *p, const launch_node *n) {
  if (n->kind != LAUNCH_KERNEL)
    return NULL;
  const part_kernel *k = &p->kernels[n->kernel];
  if (k->anchor)
    return k->anchor;
  return k->family == KF_FILL && k->nops ? (const void *)k->ops[0] : NULL;
}

static void add_unique(int **v, int *n, int x) {
  for (int i = 0; i < *n; i++)
    if ((*v)[i] == x)
      return;
  *v = realloc(*v, sizeof **v * (size_t)(*n + 1));
  (*v)[(*n)++] = x;
}

/* Partition dependencies and a topological order; false if grouping made a cycle. */
static bool order_parts(hplan *h) {
  const partition_plan *p = h->p;
  for (int i = 0; i < h->nparts; i++) {
    hpart *pt = &h->parts[i];
    for (int j = 0; j < pt->nnodes; j++) {
      const launch_node *n = &p->nodes[pt->nodes[j]];
      for (int d = 0; d < n->ndeps; d++)
        if (h->part_of[n->deps[d]] != i)
          add_unique(&pt->deps, &pt->ndeps, h->part_of[n->deps[d]]);
    }
  }
  /* Kahn's algorithm, picking the partition whose first node comes earliest in the plan's
   * order, so one stream replays the plan's order when no grouping moved anything. */
  int *pos = calloc((size_t)p->nnodes + 1, sizeof *pos), *left = calloc((size_t)h->nparts + 1, sizeof *left);
  bool *done = calloc((size_t)h->nparts + 1, sizeof *done);
  for (int i = 0; i < p->norder; i++)
    pos[p->order[i]] = i;
  for (int i = 0; i < h->nparts; i++)
    left[i] = h->parts[i].ndeps;
  int n = 0;
  for (; n < h->nparts; n++) {
    int best = -1;
    for (int i = 0; i < h->nparts; i++)
      if (!done[i] && left[i] == 0 &&
          (best < 0 || pos[h->parts[i].nodes[0]] < pos[h->parts[best].nodes[0]]))
        best = i;
    if (best < 0)
      break;
    done[best] = true;
    h->porder[n] = best;
    for (int i = 0; i < h->nparts; i++)
      for (int d = 0; d < h->parts[i].ndeps; d++)
        if (h->parts[i].deps[d] == best)
          left[i]--;
  }
  free(pos), free(left), free(done);
  return n == h->nparts;
}

static void hplan_free(hplan *h) {
  for (int i = 0; i < h->nparts; i++)
    free(h->parts[i].nodes), free(h->parts[i].deps);
  free(h->parts), free(h->part_of), free(h->porder);
  memset(h, 0, sizeof *h);
}

/* Group nodes: kernel nodes by their op; a fill joins the partition of the first kernel that
 * waits for it; copies stay alone. group = false: one partition per node (the fallback when
 * grouping would make a cycle). */
static bool hplan_build(hplan *h, const partition_plan *p, bool group) {
  memset(h, 0, sizeof *h);
  h->p = p;
  h->part_of = malloc(sizeof *h->part_of * ((size_t)p->nnodes + 1));
  h->parts = calloc((size_t)p->nnodes + 1, sizeof *h->parts);
  h->porder = calloc((size_t)p->nnodes + 1, sizeof *h->porder);
  const void **keys = calloc((size_t)p->nnodes + 1, sizeof *keys);
  for (int i = 0; i < p->nnodes; i++)
    h->part_of[i] = -1;
  for (int oi = 0; oi < p->norder; oi++) { /* kernels, copies, control nodes, in plan order */
    const launch_node *n = &p->nodes[p->order[oi]];
    if (n->kind == LAUNCH_FILL && group)
      continue;
    const void *key = group ? node_key(p, n) : NULL;
    int part = -1;
    for (int k = 0; key && k < h->nparts; k++)
      if (keys[k] == key)
        part = k;
    if (part < 0) {
      part = h->nparts++;
      keys[part] = key;
    }
    h->part_of[n->id] = part;
  }
  for (int oi = 0; oi < p->norder; oi++) { /* fills: with their first waiting kernel */
    const launch_node *f = &p->nodes[p->order[oi]];
    if (f->kind != LAUNCH_FILL || h->part_of[f->id] >= 0)
      continue;
    for (int oj = oi + 1; oj < p->norder && h->part_of[f->id] < 0; oj++) {
      const launch_node *n = &p->nodes[p->order[oj]];
      for (int d = 0; d < n->ndeps; d++)
        if (n->deps[d] == f->id && n->kind == LAUNCH_KERNEL)
          h->part_of[f->id] = h->part_of[n->id];
    }
    if (h->part_of[f->id] < 0)
      h->part_of[f->id] = h->nparts++;
  }
  free(keys);
  for (int oi = 0; oi < p->norder; oi++) {
    int id = p->order[oi];
    hpart *pt = &h->parts[h->part_of[id]];
    add_unique(&pt->nodes, &pt->nnodes, id);
  }
  if (order_parts(h))
    return true;
  hplan_free(h);
  return false;
}

/* Streams for the partitions (as tosac-hip-run's hr_schedule does for nodes): a partition
 * continues the stream of a dependency that was the last put there (a chain needs no event),
 * else it takes the next stream round-robin. Stream 0 is the caller's. */
static void hplan_schedule(hplan *h, int nstreams) {
  int *last = malloc(sizeof *last * (size_t)nstreams), next = 0;
  for (int s = 0; s < nstreams; s++)
    last[s] = -1;
  for (int i = 0; i < h->nparts; i++) {
    hpart *pt = &h->parts[h->porder[i]];
    int s = -1;
    for (int d = 0; d < pt->ndeps && s < 0; d++)
      if (last[h->parts[pt->deps[d]].stream] == pt->deps[d])
        s = h->parts[pt->deps[d]].stream;
    if (s < 0) {
      s = next;
      next = (next + 1) % nstreams;
    }
    pt->stream = s;
    last[s] = h->porder[i];
    for (int d = 0; d < pt->ndeps; d++)
      if (h->parts[pt->deps[d]].stream != s)
        h->parts[pt->deps[d]].recorded = true;
  }
  free(last);
}

/* ------------------------------------------------------------------ text helpers */

typedef struct emitter {
  FILE *c, *h;
  FILE *rows; /* PREFIX_targets rows, written after every (target, variant) */
  const char *header_name;
  const bnd_manifest_input *in;
  const char *prefix;
  char upper[64];
  int streams;
  char (*tname)[48]; /* per target: identifier part ("gfx90a", "gfx90a_1") */
  int nvariants;      /* 1 without --specialize */
  /* the (target, variant) being written: */
  int ti, kbase, bbase; /* target; where the variant's kernels / buffers start in its code */
  const partition_plan *p;
  char T[64];           /* identifier part: "gfx90a", "gfx90a_v1" with variants */
  int *pattern_of;      /* node -> fill pattern index (-1) */
  int *cond_of;         /* readback node -> offset of its bytes in the ctx's cond area */
  int cond_bytes;       /* the largest cond area of any (target, variant) */
} emitter;

static void out(FILE *f, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void out(FILE *f, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  vfprintf(f, fmt, ap);
  va_end(ap);
}

/* A string literal body: quotes, backslashes and control bytes escaped. */
static void c_string(FILE *f, const char *s) {
  fputc('"', f);
  for (; s && *s; s++) {
    unsigned char ch = (unsigned char)*s;
    if (ch == '"' || ch == '\\')
      out(f, "\\%c", ch);
    else if (ch < 0x20 || ch >= 0x7f)
      out(f, "\\%03o", ch);
    else
      fputc(ch, f);
  }
  fputc('"', f);
}

/* A comment-safe copy of s (no star-slash). */
static void comment_text(FILE *f, const char *s) {
  for (; s && *s; s++)
    if (!(s[0] == '*' && s[1] == '/') && (unsigned char)*s >= 0x20)
      fputc(*s, f);
}

static const char *op_name(const op *o) {
  return (unsigned)o->kind < OP_COUNT ? op_table[o->kind].name : "?";
}

/* "tosa.conv2d at model.mlir:12:5" for a partition's comment. */
static void describe_node(FILE *f, const partition_plan *p, const launch_node *n) {
  if (n->kind == LAUNCH_COPY) {
    out(f, "copy of buffer %d into buffer %d", n->src_buf, n->dst_buf);
    return;
  }
  if (n->kind == LAUNCH_FILL) {
    out(f, "fill of buffer %d", n->dst_buf);
    return;
  }
  if (n->kind == LAUNCH_READBACK) {
    out(f, "readback of buffer %d", n->src_buf);
    return;
  }
  if (n->kind == LAUNCH_IF || n->kind == LAUNCH_WHILE) {
    out(f, "%s", n->kind == LAUNCH_IF ? "tosa.cond_if" : "tosa.while_loop");
    const source_file *sf = n->ctl ? src_loc_file(n->ctl->loc) : NULL;
    if (sf && sf->path) {
      out(f, " at ");
      comment_text(f, sf->path);
      out(f, ":%d:%d", n->ctl->loc.line, n->ctl->loc.col);
    }
    return;
  }
  const part_kernel *k = &p->kernels[n->kernel];
  const op *o = k->anchor ? k->anchor : k->nops ? k->ops[k->nops - 1] : NULL;
  if (!o) {
    out(f, "%s", k->name);
    return;
  }
  out(f, "%s", op_name(o));
  if (!k->anchor && k->nops > 1)
    out(f, " (and %d fused ops)", k->nops - 1);
  const source_file *sf = src_loc_file(o->loc);
  if (sf && sf->path) {
    out(f, " at ");
    comment_text(f, sf->path);
    out(f, ":%d:%d", o->loc.line, o->loc.col);
  }
}

/* ------------------------------------------------------------------ per-target tables */

static int fill_width(const launch_node *n, const part_buffer *b) {
  elem_type t = n->fill_type != ET_INVALID ? n->fill_type : b && b->v ? b->v->type->elem : ET_INVALID;
  int bits = t != ET_INVALID ? elem_type_bits(t) : 8;
  return bits <= 8 ? 8 : bits <= 16 ? 16 : bits <= 32 ? 32 : 64;
}

static int64_t fill_bytes(const partition_plan *p, const launch_node *n) {
  const part_buffer *b = &p->buffers[n->dst_buf];
  return n->fill_bytes > 0 ? n->fill_bytes : b->bytes - n->fill_offset;
}

/* True if every byte of the element pattern is the same (a plain byte memset). */
static bool bytes_uniform(uint64_t bits, int width) {
  for (int i = 1; i < width / 8; i++)
    if (((bits >> (8 * i)) & 0xff) != (bits & 0xff))
      return false;
  return true;
}

static const char *kind_macro(buffer_kind k) {
  switch (k) {
  case BUF_INPUT: return "IN";
  case BUF_OUTPUT: return "OUT";
  case BUF_CONSTANT: return "CONST";
  default: return "WS";
  }
}

static bool emit_tables(emitter *e, char *err, size_t errsize) {
  const partition_plan *p = e->p;
  const cg_result *r = &e->in->results[e->ti];
  const char *P = e->prefix, *T = e->T;
  FILE *c = e->c;
  out(c, "static const %s_buffer %s_%s_buffers[] = {\n", P, P, T);
  for (int i = 0; i < p->nbuffers; i++) {
    const part_buffer *b = &p->buffers[i];
    out(c, "  {%s_%s, %d, %lld, %lld},\n", e->upper, kind_macro(b->kind), b->index,
        (long long)b->offset, (long long)b->bytes);
  }
  if (!p->nbuffers)
    out(c, "  {0, 0, 0, 0},\n");
  out(c, "};\n");
  out(c, "static const %s_arg %s_%s_args[] = {\n", P, P, T);
  int nargs = 0;
  for (int k = 0; k < p->nkernels; k++) {
    const cg_kernel_info *ki = &r->kernels[e->kbase + k];
    for (int a = 0; a < ki->nargs; a++) {
      const cg_arg *ar = &ki->args[a];
      if (!strncmp(ar->value_kind, "hidden_", 7))
        continue;
      int buf = ar->buffer - e->bbase; /* linked code numbers buffers across variants */
      if (buf < 0 || buf >= p->nbuffers || ar->size != 8) {
        snprintf(err, errsize, "kernel %s: argument %d (%s) is not a buffer pointer; --emit=host "
                 "binds only buffer arguments", ki->name, a, ar->value_kind);
        return false;
      }
      out(c, "  {%lld, %d}, /* %s arg %d */\n", (long long)ar->offset, buf, ki->name, a);
      nargs++;
    }
  }
  if (!nargs)
    out(c, "  {0, 0},\n");
  out(c, "};\n");
  out(c, "static const %s_kernel %s_%s_kernels[] = {\n", P, P, T);
  int first = 0;
  for (int k = 0; k < p->nkernels; k++) {
    const cg_kernel_info *ki = &r->kernels[e->kbase + k];
    int n = 0;
    for (int a = 0; a < ki->nargs; a++)
      n += strncmp(ki->args[a].value_kind, "hidden_", 7) != 0;
    out(c, "  {");
    c_string(c, ki->name);
    out(c, ", {%u, %u, %u}, {%u, %u, %u}, %d, %d},\n", ki->grid[0], ki->grid[1], ki->grid[2],
        ki->block[0], ki->block[1], ki->block[2], first, n);
    first += n;
  }
  if (!p->nkernels)
    out(c, "  {\"\", {0, 0, 0}, {0, 0, 0}, 0, 0},\n");
  out(c, "};\n");
  return true;
}

/* A 64-bit fill whose halves differ: no HIP memset writes it. */
static bool is_pattern_fill(const partition_plan *p, const launch_node *nd) {
  return nd->kind == LAUNCH_FILL && fill_width(nd, &p->buffers[nd->dst_buf]) == 64 &&
         !bytes_uniform(nd->fill_bits, 64) && (nd->fill_bits >> 32) != (nd->fill_bits & 0xffffffffu);
}

/* 64-bit fill patterns with unequal halves have no HIP memset: they are copied from device
 * images uploaded at load time; these are their offsets in that area. */
static void emit_patterns(emitter *e, int64_t *pattern_bytes) {
  const partition_plan *p = e->p;
  const char *P = e->prefix, *T = e->T;
  int n = 0;
  *pattern_bytes = 0;
  out(e->c, "static const %s_pattern %s_%s_patterns[] = {\n", P, P, T);
  for (int i = 0; i < p->nnodes; i++) {
    const launch_node *nd = &p->nodes[i];
    if (!is_pattern_fill(p, nd))
      continue;
    out(e->c, "  {%lld, 0x%016llxull, %lld}, /* fill node %d */\n", (long long)*pattern_bytes,
        (unsigned long long)nd->fill_bits, (long long)fill_bytes(p, nd), nd->id);
    *pattern_bytes += (fill_bytes(p, nd) + 255) / 256 * 256;
    n++;
  }
  if (!n)
    out(e->c, "  {0, 0, 0},\n");
  out(e->c, "};\n");
}

/* ------------------------------------------------------------------ partition functions */

static void emit_list(emitter *e, const int *ids, int n, int depth);

/* One launch node at `depth` levels of indentation; a control node writes its regions' launches
 * inline (docs/manifest.md "Control nodes"): they run on the control node's stream. */
static void emit_node(emitter *e, const launch_node *n, int depth) {
  const partition_plan *p = e->p;
  const char *P = e->prefix, *U = e->upper;
  FILE *c = e->c;
  int ind = 2 * depth;
  if (n->kind == LAUNCH_KERNEL) {
    out(c, "%*s%s_TRY(%s_launch(c, s, %d)); /* %s */\n", ind, "", U, P, n->kernel,
        e->in->results[e->ti].kernels[e->kbase + n->kernel].name);
  } else if (n->kind == LAUNCH_COPY) {
    out(c, "%*s%s_TRY(%s_copy(c, s, %d, %d, %lld));\n", ind, "", U, P, n->dst_buf, n->src_buf,
        (long long)p->buffers[n->dst_buf].bytes);
  } else if (n->kind == LAUNCH_READBACK) {
    out(c, "%*s%s_TRY(%s_readback(c, s, %d, %d, %lld)); /* condition of node %d */\n", ind, "", U,
        P, n->src_buf, e->cond_of[n->id], (long long)p->buffers[n->src_buf].bytes, n->id);
  } else if (n->kind == LAUNCH_IF) {
    const launch_node *rb = &p->nodes[n->cond];
    out(c, "%*sif (%s_is_true(c, %d, %lld)) { /* readback node %d */\n", ind, "", P,
        e->cond_of[rb->id], (long long)p->buffers[rb->src_buf].bytes, rb->id);
    emit_list(e, n->region[0], n->nregion[0], depth + 1);
    out(c, "%*s} else {\n", ind, "");
    emit_list(e, n->region[1], n->nregion[1], depth + 1);
    out(c, "%*s}\n", ind, "");
  } else if (n->kind == LAUNCH_WHILE) {
    const launch_node *rb = &p->nodes[n->cond];
    out(c, "%*sfor (;;) {\n", ind, "");
    emit_list(e, n->region[0], n->nregion[0], depth + 1);
    out(c, "%*s  if (!%s_is_true(c, %d, %lld)) /* readback node %d */\n%*s    break;\n", ind, "",
        P, e->cond_of[rb->id], (long long)p->buffers[rb->src_buf].bytes, rb->id, ind, "");
    emit_list(e, n->region[1], n->nregion[1], depth + 1);
    out(c, "%*s}\n", ind, "");
  } else {
    int w = fill_width(n, &p->buffers[n->dst_buf]);
    uint64_t bits = w == 64 ? n->fill_bits : n->fill_bits & ((1ull << w) - 1);
    int64_t bytes = fill_bytes(p, n);
    if (bytes_uniform(bits, w))
      w = 8, bits &= 0xff;
    else if (w == 64 && (bits >> 32) == (bits & 0xffffffffu))
      w = 32, bits &= 0xffffffffu;
    if (w == 64)
      out(c, "%*s%s_TRY(%s_fill_pattern(c, s, %d, %lld, %d));\n", ind, "", U, P, n->dst_buf,
          (long long)n->fill_offset, e->pattern_of[n->id]);
    else
      out(c, "%*s%s_TRY(%s_fill%d(c, s, %d, %lld, %lld, 0x%llxu));\n", ind, "", U, P, w,
          n->dst_buf, (long long)n->fill_offset, (long long)bytes, (unsigned long long)bits);
  }
}

static void emit_list(emitter *e, const int *ids, int n, int depth) {
  for (int i = 0; i < n; i++)
    emit_node(e, &e->p->nodes[ids[i]], depth);
}

/* Per node: its fill pattern (in node-id order, as emit_patterns) and the offset of a readback's
 * bytes in the ctx's cond area. */
static void index_nodes(emitter *e) {
  const partition_plan *p = e->p;
  e->pattern_of = calloc((size_t)p->nnodes + 1, sizeof *e->pattern_of);
  e->cond_of = calloc((size_t)p->nnodes + 1, sizeof *e->cond_of);
  int conds = 0;
  for (int i = 0, k = 0; i < p->nnodes; i++) {
    const launch_node *nd = &p->nodes[i];
    e->pattern_of[i] = is_pattern_fill(p, nd) ? k++ : -1;
    if (nd->kind == LAUNCH_READBACK) {
      e->cond_of[i] = conds;
      conds += (int)((p->buffers[nd->src_buf].bytes + 7) / 8 * 8);
    }
  }
  if (conds > e->cond_bytes)
    e->cond_bytes = conds;
}

static void emit_partitions(emitter *e, const hplan *h) {
  const partition_plan *p = h->p;
  const char *P = e->prefix, *T = e->T;
  FILE *c = e->c;
  for (int i = 0; i < h->nparts; i++) {
    const hpart *pt = &h->parts[i];
    out(c, "\n/* p%d: ", i);
    describe_node(c, p, &p->nodes[pt->nodes[pt->nnodes - 1]]);
    out(c, "; %d launch%s */\n", pt->nnodes, pt->nnodes == 1 ? "" : "es");
    out(c, "static hipError_t %s_%s_p%d(%s_ctx *c, hipStream_t s) {\n", P, T, i, P);
    for (int j = 0; j < pt->nnodes; j++)
      emit_node(e, &p->nodes[pt->nodes[j]], 1);
    out(c, "  return hipSuccess;\n}\n");
  }
}

/* The run function: partitions in topological order; with several streams, a partition first
 * waits for the events of its dependencies on other streams. Events: one per partition, then
 * the start event (stream 0 -> others) and one end event per stream (others -> stream 0). */
static void emit_run(emitter *e, const hplan *h) {
  const char *P = e->prefix, *T = e->T, *U = e->upper;
  FILE *c = e->c;
  int ns = e->streams;
  bool *used = calloc((size_t)ns + 1, sizeof *used);
  for (int i = 0; i < h->nparts; i++)
    used[h->parts[i].stream] = true;
  out(c, "\nstatic hipError_t %s_%s_run(%s_ctx *c) {\n", P, T, P);
  out(c, "  hipStream_t *st = c->streams;\n");
  if (!h->nparts)
    out(c, "  (void)st;\n");
  bool aux = false; /* does any partition run on a stream other than the caller's? */
  for (int i = 1; i < ns; i++)
    aux |= used[i];
  if (aux) {
    out(c, "  /* the other streams start after what the caller queued on its stream */\n");
    out(c, "  %s_TRY(%s_record(c, %d, st[0]));\n", U, P, h->nparts);
    for (int s = 1; s < ns; s++)
      if (used[s])
        out(c, "  %s_TRY(%s_wait(c, st[%d], %d));\n", U, P, s, h->nparts);
  }
  for (int i = 0; i < h->nparts; i++) {
    int pi = h->porder[i];
    const hpart *pt = &h->parts[pi];
    for (int d = 0; d < pt->ndeps; d++)
      if (h->parts[pt->deps[d]].stream != pt->stream)
        out(c, "  %s_TRY(%s_wait(c, st[%d], %d));\n", U, P, pt->stream, pt->deps[d]);
    out(c, "  %s_TRY(%s_%s_p%d(c, st[%d]));\n", U, P, T, pi, pt->stream);
    if (pt->recorded)
      out(c, "  %s_TRY(%s_record(c, %d, st[%d]));\n", U, P, pi, pt->stream);
  }
  if (aux) {
    out(c, "  /* the caller's stream continues when every stream is done */\n");
    for (int s = 1; s < ns; s++)
      if (used[s]) {
        out(c, "  %s_TRY(%s_record(c, %d, st[%d]));\n", U, P, h->nparts + s, s);
        out(c, "  %s_TRY(%s_wait(c, st[0], %d));\n", U, P, h->nparts + s);
      }
  }
  out(c, "  return hipSuccess;\n}\n");
  free(used);
}

static const char *o_header(const emitter *e) { return e->header_name; }

static void emit_header(emitter *e) {
  const bnd_manifest_input *in = e->in;
  const char *P = e->prefix, *U = e->upper;
  FILE *h = e->h;
  out(h, "/* %s: generated by tosac %s from ", o_header(e), TOSAC_VERSION);
  comment_text(h, in->source_path ? in->source_path : "<stdin>");
  out(h, " (--emit=host); do not edit.\n"
         " * The model as C host code over the HIP module API: docs/host.md. */\n");
  out(h, "#ifndef %s_HOST_H\n#define %s_HOST_H\n\n", U, U);
  out(h, "#include <hip/hip_runtime_api.h>\n#include <stddef.h>\n#include <stdint.h>\n\n");
  out(h, "#define %s_NUM_INPUTS %d\n#define %s_NUM_OUTPUTS %d\n", U, in->g->nargs, U,
      in->g->nresults);
  out(h, "#define %s_NUM_VARIANTS %d /* --specialize: input shapes compiled for */\n", U,
      e->nvariants);
  out(h, "#define %s_WEIGHTS_BYTES %lldll /* size of the weights file (0: none) */\n\n", U,
      (long long)(in->weights_path ? in->weights_bytes : 0));
  out(h, "/* One graph input or output: device buffers hold `bytes` bytes, row-major. */\n");
  out(h, "typedef struct %s_tensor {\n  const char *name;         /* input name, \"\" for results */\n"
         "  const char *element_type; /* MLIR spelling: \"f32\", \"bf16\", \"i8\" */\n"
         "  int rank;\n  int64_t shape[8];\n  size_t bytes;\n} %s_tensor;\n", P, P);
  out(h, "extern const %s_tensor %s_inputs[];  /* %s_NUM_INPUTS entries */\n", P, P, U);
  out(h, "extern const %s_tensor %s_outputs[]; /* %s_NUM_OUTPUTS entries */\n", P, P, U);
  out(h, "/* (with --specialize: variant 0's shapes; %s_input / %s_output give the selected one's) */\n\n",
      P, P);
  out(h, "typedef struct %s_ctx %s_ctx;\n\n", P, P);
  out(h,
      "/* Picks the target for `device`'s gcnArchName, loads the code objects from `bundle` (the\n"
      " * .hipfb file in host memory) with hipModuleLoadData, uploads the weights file (`weights`,\n"
      " * %s_WEIGHTS_BYTES bytes; NULL when 0) and allocates the workspace. A bundle or weights\n"
      " * file of another compile (SHA-256 not the manifest's) is refused. *ctx is set even on\n"
      " * failure (NULL only when out of memory): read %s_error(*ctx), then %s_unload it. */\n",
      U, P, P);
  out(h, "hipError_t %s_load(%s_ctx **ctx, const void *bundle, const void *weights,\n"
         "                   size_t weights_bytes, int device);\n", P, P);
  out(h, "/* Queues the whole graph on `stream` (asynchronous: synchronise the stream before reading\n"
         " * outputs; a graph with data-dependent control flow synchronises at each condition). inputs[i] / outputs[i] are device buffers of %s_inputs[i].bytes /\n"
         " * %s_outputs[i].bytes. One run at a time per context (the workspace is shared). */\n",
      P, P);
  out(h, "hipError_t %s_run(%s_ctx *ctx, hipStream_t stream, const void *const inputs[],\n"
         "                  void *const outputs[]);\n", P, P);
  out(h, "/* Selects the variant compiled for these input shapes (shapes[i]: %s_inputs[i].rank\n"
         " * dimensions of input i) for the next runs; variant 0 until called. No variant takes them:\n"
         " * hipErrorInvalidValue, and %s_error names the shapes each variant takes. */\n", P, P);
  out(h, "hipError_t %s_select(%s_ctx *ctx, const int64_t *const shapes[]);\n", P, P);
  out(h, "/* Input / output i of the selected variant (its shape and bytes); NULL if i is out of range. */\n");
  out(h, "const %s_tensor *%s_input(const %s_ctx *ctx, int i);\n", P, P, P);
  out(h, "const %s_tensor *%s_output(const %s_ctx *ctx, int i);\n", P, P, P);
  out(h, "/* What failed last, e.g. \"hipModuleLaunchKernel(tosac_k0_add) failed: ...\". */\n");
  out(h, "const char *%s_error(const %s_ctx *ctx);\n", P, P);
  out(h, "/* The manifest target_id the context runs (NULL before a target was chosen). */\n");
  out(h, "const char *%s_target_id(const %s_ctx *ctx);\n", P, P);
  out(h, "void %s_unload(%s_ctx *ctx);\n\n#endif\n", P, P);
}

static void put_tensor_rows(emitter *e, value *const *vals, int n, bool named);

static void emit_tensors(emitter *e, const char *what, value *const *vals, int n, bool named) {
  FILE *c = e->c;
  out(c, "const %s_tensor %s_%s[] = {\n", e->prefix, e->prefix, what);
  put_tensor_rows(e, vals, n, named);
  if (!n)
    out(c, "  {\"\", \"\", 0, {0}, 0},\n");
  out(c, "};\n");
}

/* "2x16x32xf32" (as tosac-run prints a shape). */
static void shape_text(FILE *f, const value *v) {
  for (int d = 0; d < v->type->rank; d++)
    out(f, "%lldx", (long long)v->type->dims[d]);
  out(f, "%s", elem_type_name(v->type->elem));
}

/* Every variant's inputs and outputs (rows v * count + i), and its input shapes as text. */
static void emit_variant_tensors(emitter *e) {
  const bnd_manifest_input *in = e->in;
  FILE *c = e->c;
  const char *P = e->prefix;
  for (int k = 0; k < 2; k++) {
    out(c, "static const %s_tensor %s_v%s[] = {\n", P, P, k ? "outputs" : "inputs");
    for (int v = 0; v < e->nvariants; v++) {
      const graph *g = in->nvariants ? in->variants[v].g : in->g;
      put_tensor_rows(e, k ? g->results : g->args, k ? g->nresults : g->nargs, !k);
    }
    out(c, "  {\"\", \"\", 0, {0}, 0},\n};\n");
  }
  out(c, "static const char *const %s_vshapes[] = {\n", P);
  for (int v = 0; v < e->nvariants; v++) {
    const graph *g = in->nvariants ? in->variants[v].g : in->g;
    out(c, "  \"(");
    for (int i = 0; i < g->nargs; i++) {
      out(c, "%s", i ? ", " : "");
      shape_text(c, g->args[i]);
    }
    out(c, ")\",\n");
  }
  out(c, "};\n#define %s_ENTRY ", e->upper);
  c_string(c, in->g->entry ? in->g->entry : "main");
  out(c, "\n");
}

static void put_tensor_rows(emitter *e, value *const *vals, int n, bool named) {
  FILE *c = e->c;
  for (int i = 0; i < n; i++) {
    const value *v = vals[i];
    out(c, "  {");
    c_string(c, named && v->name ? VALUE_NAME(v) : "");
    out(c, ", \"%s\", %d, {", elem_type_name(v->type->elem), v->type->rank);
    for (int d = 0; d < v->type->rank && d < 8; d++)
      out(c, "%s%lld", d ? ", " : "", (long long)v->type->dims[d]);
    out(c, "}, %lld},\n", (long long)tensor_bytes(v->type));
  }
}

static void emit_types(emitter *e, int max_kernarg) {
  const char *P = e->prefix, *U = e->upper;
  FILE *c = e->c;
  out(c, "#define %s_STREAMS %d /* --host-streams */\n", U, e->streams);
  out(c, "#define %s_MAX_KERNARG %d\n", U, max_kernarg);
  out(c, "enum { %s_IN, %s_OUT, %s_WS, %s_CONST };\n\n", U, U, U, U);
  out(c, "typedef struct %s_buffer { int kind, index; long long offset, bytes; } %s_buffer;\n", P, P);
  out(c, "typedef struct %s_arg { int offset, buffer; } %s_arg;\n", P, P);
  out(c, "typedef struct %s_kernel {\n  const char *name;\n  unsigned grid[3], block[3]; /* work-groups, "
         "work-items per group */\n  int first_arg, nargs;\n} %s_kernel;\n", P, P);
  out(c, "typedef struct %s_pattern { long long offset; unsigned long long bits; long long bytes; } "
         "%s_pattern;\n", P, P);
  out(c, "typedef struct %s_target_tab %s_target_tab;\n\n", P, P);
  out(c, "struct %s_ctx {\n  const %s_target_tab *t;    /* the selected variant's row */\n"
         "  const %s_target_tab *rows; /* the target's rows, one per variant */\n"
         "  hipModule_t module;\n"
         "  int loaded, ready, nevents; /* module loaded; %s_load succeeded */\n"
         "  hipFunction_t *fn;   /* per kernel (of the selected variant) */\n"
         "  void **addr;         /* per buffer (of the selected variant) */\n  void *patterns;\n"
         "  hipFunction_t *vfn[%s_NUM_VARIANTS];\n  void **vaddr[%s_NUM_VARIANTS];\n"
         "  void *vpatterns[%s_NUM_VARIANTS];\n"
         "  void *workspace, *weights;\n  unsigned char *cond; /* read-back conditions */\n"
         "  hipStream_t streams[%s_STREAMS];\n"
         "  hipEvent_t *events;\n  char message[512];\n};\n\n", P, P, P, P, U, U, U, U);
  out(c, "struct %s_target_tab {\n  const char *id;\n  int nkernels, nbuffers, nevents, npatterns;\n"
         "  long long workspace_bytes, workspace_zeroed, pattern_bytes;\n  const %s_kernel *kernels;\n"
         "  const %s_arg *args;\n  const %s_buffer *buffers;\n  const %s_pattern *patterns;\n"
         "  hipError_t (*run)(%s_ctx *c);\n};\n\n", P, P, P, P, P, P);
}

/* A C identifier part for each target: the processor, suffixed when two targets share it. */
static void target_names(emitter *e) {
  int n = e->in->ntargets;
  for (int i = 0; i < n; i++) {
    const char *id = e->in->targets[i].id;
    size_t len = strcspn(id, ":");
    snprintf(e->tname[i], sizeof e->tname[i], "%.*s", (int)(len < 40 ? len : 40), id);
    for (char *s = e->tname[i]; *s; s++)
      if (!isalnum((unsigned char)*s))
        *s = '_';
  }
  for (int i = 0; i < n; i++)
    for (int j = 0; j < i; j++)
      if (!strncmp(e->tname[i], e->tname[j], strcspn(e->tname[j], "_"))) {
        size_t l = strlen(e->tname[i]);
        snprintf(e->tname[i] + l, sizeof e->tname[i] - l, "_%d", i);
        break;
      }
}

bool bnd_host_prefix_valid(const char *s) {
  if (!s || !*s || strlen(s) > 40 || !(isalpha((unsigned char)*s) || *s == '_'))
    return false;
  for (; *s; s++)
    if (!isalnum((unsigned char)*s) && *s != '_')
      return false;
  return true;
}

/* The plan of target t in variant v (its kernels / buffers from kbase / bbase of the code). */
static const partition_plan *unit_plan(const bnd_manifest_input *in, int t, int v, int *kbase,
                                       int *bbase) {
  *kbase = in->nvariants ? in->variants[v].kernel_base[t] : 0;
  *bbase = in->nvariants ? in->variants[v].buffer_base[t] : 0;
  return in->nvariants ? in->variants[v].plans[t] : in->plans[t];
}

static bool plans_agree(const bnd_manifest_input *in, char *err, size_t errsize) {
  for (int i = 0; i < in->ntargets; i++)
    for (int v = 0; v < (in->nvariants ? in->nvariants : 1); v++) {
      int kb, bb;
      const partition_plan *p = unit_plan(in, i, v, &kb, &bb);
      if (!p || (in->nvariants ? kb + p->nkernels > in->results[i].nkernels
                               : p->nkernels != in->results[i].nkernels)) {
        snprintf(err, errsize, "the plan and the compiled kernels of target %d disagree", i);
        return false;
      }
    }
  return true;
}

/* Tables, partition functions and run function of (target t, variant v): one row of
 * PREFIX_targets. */
static bool emit_unit(emitter *e, int t, int v, hplan *h, char *err, size_t errsize) {
  const bnd_manifest_input *in = e->in;
  e->ti = t;
  e->p = unit_plan(in, t, v, &e->kbase, &e->bbase);
  const partition_plan *p = e->p;
  if (in->nvariants)
    snprintf(e->T, sizeof e->T, "%s_v%d", e->tname[t], v);
  else
    snprintf(e->T, sizeof e->T, "%s", e->tname[t]);
  if (!hplan_build(h, p, true) && !hplan_build(h, p, false)) {
    snprintf(err, errsize, "target %s: the launch graph has a cycle", in->targets[t].id);
    return false;
  }
  hplan_schedule(h, e->streams);
  out(e->c, "\n/* ---------------------------------------------------------------- %s", in->targets[t].id);
  if (in->nvariants)
    out(e->c, ", variant %d", v);
  out(e->c, " */\n/* %d kernels, %d launches in %d partitions, workspace %lld bytes */\n",
      p->nkernels, p->nnodes, h->nparts, (long long)p->workspace_bytes);
  if (!emit_tables(e, err, errsize))
    return false;
  int64_t pattern_bytes = 0;
  emit_patterns(e, &pattern_bytes);
  index_nodes(e);
  emit_partitions(e, h);
  emit_run(e, h);
  free(e->pattern_of), free(e->cond_of);
  e->pattern_of = e->cond_of = NULL;
  int npatterns = 0;
  for (int i = 0; i < p->nnodes; i++)
    npatterns += is_pattern_fill(p, &p->nodes[i]);
  const char *P = e->prefix, *T = e->T;
  /* the row, written after every unit into the table (kept in a side buffer) */
  out(e->rows, "  {\"%s\", %d, %d, %d, %d, %lldll, %lldll, %lldll, %s_%s_kernels, %s_%s_args, %s_%s_buffers, "
      "%s_%s_patterns, %s_%s_run},\n", in->targets[t].id, p->nkernels, p->nbuffers,
      h->nparts + e->streams, npatterns, (long long)p->workspace_bytes, (long long)p->workspace_zeroed,
      (long long)pattern_bytes,
      P, T, P, T, P, T, P, T, P, T);
  return true;
}

/* The files the load accepts: their names and the manifest's digests of them (bundle/digest.c). */
static void emit_digests(emitter *e) {
  const bnd_manifest_input *in = e->in;
  const char *bslash = in->bundle_path ? strrchr(in->bundle_path, '/') : NULL;
  const char *wslash = in->weights_path ? strrchr(in->weights_path, '/') : NULL;
  out(e->c, "#define %s_BUNDLE_NAME ", e->upper);
  c_string(e->c, bslash ? bslash + 1 : in->bundle_path ? in->bundle_path : "the bundle");
  out(e->c, "\n#define %s_BUNDLE_DIGEST \"%s\"\n#define %s_WEIGHTS_NAME ", e->upper,
      in->bundle_digest ? in->bundle_digest : "", e->upper);
  c_string(e->c, wslash ? wslash + 1 : in->weights_path ? in->weights_path : "");
  out(e->c, "\n#define %s_WEIGHTS_DIGEST \"%s\"\n", e->upper,
      in->weights_path && in->weights_digest ? in->weights_digest : "");
}

bool bnd_host_emit(const bnd_manifest_input *in, const bnd_host_options *o, char **c_text,
                   char **h_text, char *err, size_t errsize) {
  *c_text = *h_text = NULL;
  if (!bnd_host_prefix_valid(o->prefix)) {
    snprintf(err, errsize, "--prefix '%s' is not a C identifier of at most 40 characters",
             o->prefix ? o->prefix : "");
    return false;
  }
  if (!plans_agree(in, err, errsize))
    return false;
  size_t clen, hlen, rlen;
  char *rows_text = NULL;
  emitter e = {.in = in, .prefix = o->prefix, .streams = o->streams < 1 ? 1 : o->streams,
               .header_name = o->header_name ? o->header_name : "model_host.h",
               .nvariants = in->nvariants ? in->nvariants : 1};
  for (size_t i = 0; o->prefix[i] && i + 1 < sizeof e.upper; i++)
    e.upper[i] = (char)toupper((unsigned char)o->prefix[i]);
  e.tname = calloc((size_t)in->ntargets + 1, sizeof *e.tname);
  e.c = open_memstream(c_text, &clen);
  e.h = open_memstream(h_text, &hlen);
  e.rows = open_memstream(&rows_text, &rlen);
  target_names(&e);
  emit_header(&e);

  const char *P = e.prefix, *U = e.upper;
  FILE *c = e.c;
  out(c, "/* %s: generated by tosac %s from ", o->source_name ? o->source_name : "model_host.c",
      TOSAC_VERSION);
  comment_text(c, in->source_path ? in->source_path : "<stdin>");
  out(c, " (entry %s); do not edit.\n * Build: cc -std=c17 -D__HIP_PLATFORM_AMD__ -c %s; link "
         "-lamdhip64 (docs/host.md). */\n", in->g->entry ? in->g->entry : "?",
      o->source_name ? o->source_name : "model_host.c");
  out(c, "#include \"%s\"\n\n#include <stdio.h>\n#include <stdlib.h>\n#include <string.h>\n\n",
      e.header_name);
  int max_kernarg = 16;
  for (int t = 0; t < in->ntargets; t++)
    for (int k = 0; k < in->results[t].nkernels; k++)
      if (in->results[t].kernels[k].kernarg_size > max_kernarg)
        max_kernarg = (int)in->results[t].kernels[k].kernarg_size;
  emit_types(&e, (max_kernarg + 15) / 16 * 16);
  emit_tensors(&e, "inputs", in->g->args, in->g->nargs, true);
  emit_tensors(&e, "outputs", in->g->results, in->g->nresults, false);
  emit_variant_tensors(&e);
  out(c, "\n");
  bnd_host_put_runtime(c, P, U);

  bool ok = true;
  for (int t = 0; ok && t < in->ntargets; t++)
    for (int v = 0; ok && v < e.nvariants; v++) {
      hplan h;
      ok = emit_unit(&e, t, v, &h, err, errsize);
      hplan_free(&h);
    }
  fclose(e.rows);
  if (ok) {
    out(c, "\n#define %s_NUM_TARGETS %d\n#define %s_COND_BYTES %d\n#define %s_TARGET_LIST \"",
        U, in->ntargets, U, e.cond_bytes + 8, U);
    for (int t = 0; t < in->ntargets; t++)
      out(c, "%s%s", t ? ", " : "", in->targets[t].id);
    out(c, "\"\n");
    emit_digests(&e);
    out(c, "/* one row per (target, variant): row t * %s_NUM_VARIANTS + v */\n", U);
    out(c, "static const %s_target_tab %s_targets[] = {\n%s", P, P, rows_text ? rows_text : "");
    if (!in->ntargets)
      out(c, "  {\"\", 0, 0, 0, 0, 0, 0, NULL, NULL, NULL, NULL, NULL},\n");
    out(c, "};\n\n");
    bnd_host_put_api(c, P, U);
  }
  free(rows_text);
  free(e.tname);
  fclose(e.c);
  fclose(e.h);
  if (!ok) {
    free(*c_text), free(*h_text);
    *c_text = *h_text = NULL;
  }
  return ok;
}
