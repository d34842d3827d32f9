/* manifest.c: the JSON launch manifest (version 1; several public functions add `entries`):
 * built as a cJSON tree in the documented key order (kernels' source-op lists excepted: they are
 * written from the plans as the printer reaches them), printed to a stream by our own
 * deterministic 2-space printer. */
#include "bundle/bundle.h"

#include <cjson/cJSON.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#define MANIFEST_VERSION 1
#define DEFAULT_CODE_OBJECT_VERSION 5

/* ------------------------------------------------------------------ tree helpers */

static cJSON *add_int(cJSON *obj, const char *key, int64_t v) {
  return cJSON_AddNumberToObject(obj, key, (double)v);
}

static cJSON *add_str_or_null(cJSON *obj, const char *key, const char *s) {
  return s ? cJSON_AddStringToObject(obj, key, s) : cJSON_AddNullToObject(obj, key);
}

static cJSON *int_array(const int64_t *v, int n) {
  cJSON *a = cJSON_CreateArray();
  for (int i = 0; i < n; i++)
    cJSON_AddItemToArray(a, cJSON_CreateNumber((double)v[i]));
  return a;
}

static cJSON *shape_array(const tensor_type *t) { return int_array(t->dims, t->rank); }

static cJSON *u32x3_array(const uint32_t v[3]) {
  int64_t w[3] = {v[0], v[1], v[2]};
  return int_array(w, 3);
}

/* "path:line:col", or NULL when the op carries no location. */
static char *loc_string(src_loc loc, char *buf, size_t size) {
  const source_file *f = src_loc_file(loc);
  if (!f || !f->path)
    return NULL;
  snprintf(buf, size, "%s:%d:%d", f->path, (int)loc.line, loc.col);
  return buf;
}

static const char *buffer_kind_name(buffer_kind k) {
  static const char *const names[] = {
      [BUF_INPUT] = "input",
      [BUF_OUTPUT] = "output",
      [BUF_INTERMEDIATE] = "intermediate",
      [BUF_WORKSPACE] = "workspace",
      [BUF_CONSTANT] = "constant",
  };
  return (unsigned)k < sizeof names / sizeof names[0] && names[k] ? names[k] : "unknown";
}

static const char *kernel_family_name(kernel_family f) {
  static const char *const names[KF_COUNT] = {
      [KF_ELEMENTWISE] = "elementwise", [KF_GEMM] = "gemm", [KF_REDUCTION] = "reduction",
      [KF_POOL] = "pool", [KF_DATA] = "data", [KF_FFT] = "fft", [KF_FILL] = "fill",
      [KF_ATTENTION] = "attention", [KF_ROWNORM] = "rownorm",
      [KF_MXGEMM] = "mxgemm"};
  return (unsigned)f < KF_COUNT && names[f] ? names[f] : "unknown";
}

/* ------------------------------------------------------------------ sections */

static cJSON *graph_values(value *const *vals, int n, bool with_name) {
  cJSON *a = cJSON_CreateArray();
  for (int i = 0; i < n; i++) {
    const value *v = vals[i];
    cJSON *o = cJSON_CreateObject();
    add_int(o, "index", i);
    if (with_name)
      cJSON_AddStringToObject(o, "name", v->name ? VALUE_NAME(v) : "");
    cJSON_AddItemToObject(o, "shape", shape_array(v->type));
    cJSON_AddStringToObject(o, "element_type", elem_type_name(v->type->elem));
    add_int(o, "bytes", tensor_bytes(v->type));
    cJSON_AddItemToArray(a, o);
  }
  return a;
}

static cJSON *buffer_json(const part_buffer *b) {
  cJSON *o = cJSON_CreateObject();
  add_int(o, "id", b->id);
  cJSON_AddStringToObject(o, "kind", buffer_kind_name(b->kind));
  add_int(o, "index", b->index);
  add_int(o, "offset", b->offset);
  add_int(o, "bytes", b->bytes);
  if (b->v) {
    cJSON_AddStringToObject(o, "element_type", elem_type_name(b->v->type->elem));
    cJSON_AddItemToObject(o, "shape", shape_array(b->v->type));
  } else {
    /* A pure workspace has no tensor behind it: raw bytes. */
    cJSON_AddNullToObject(o, "element_type");
    cJSON_AddNullToObject(o, "shape");
  }
  return o;
}

/* Every argument of the metadata note, as codegen copied it: explicit and hidden. */
static cJSON *args_json(const cg_kernel_info *ki, int buffer_base) {
  cJSON *a = cJSON_CreateArray();
  for (int i = 0; i < ki->nargs; i++) {
    const cg_arg *ar = &ki->args[i];
    cJSON *o = cJSON_CreateObject();
    add_int(o, "index", i);
    if (ar->name[0])
      cJSON_AddStringToObject(o, "name", ar->name);
    add_int(o, "offset", ar->offset);
    add_int(o, "size", ar->size);
    cJSON_AddStringToObject(o, "value_kind", ar->value_kind);
    if (ar->address_space[0])
      cJSON_AddStringToObject(o, "address_space", ar->address_space);
    if (ar->access[0])
      cJSON_AddStringToObject(o, "access", ar->access);
    if (ar->buffer >= 0)
      add_int(o, "buffer", ar->buffer - buffer_base);
    else
      cJSON_AddNullToObject(o, "buffer");
    cJSON_AddItemToArray(a, o);
  }
  return a;
}

/* A kernel's list of source ops is most of a million-op manifest: the tree holds a placeholder
 * (a raw node whose number indexes `kernels`) and the printer writes the list straight to the
 * stream from the plan when it reaches it. A kernel's, a buffer's and a launch's object are
 * deferred the same way (a raw node "k", "b" or "l" indexing `deferred`): built when the
 * printer reaches it and freed once printed, so the tree never holds every one at once (3,906
 * kernels of a million-op chain: 27 MB; their buffers and launches: 7 MB). */
typedef struct deferred_item {
  const part_kernel *pk;        /* "k" */
  const cg_kernel_info *ki;
  int buffer_base;
  const part_buffer *pb;        /* "b" */
  const partition_plan *p;      /* "l": launch ln, its control node parent (-1 none) */
  const launch_node *ln;
  int parent;
} deferred_item;

typedef struct op_lists {
  const part_kernel **kernels;
  int n, cap;
  deferred_item *deferred;
  int ndeferred, capdeferred;
  bool oom;
} op_lists;

static cJSON *ops_placeholder(op_lists *ol, const part_kernel *pk) {
  if (ol->n == ol->cap) {
    int cap = ol->cap ? 2 * ol->cap : 64;
    const part_kernel **k = realloc(ol->kernels, sizeof *k * (size_t)cap);
    if (!k) {
      ol->oom = true;
      return cJSON_CreateNull();
    }
    ol->kernels = k, ol->cap = cap;
  }
  cJSON *raw = cJSON_CreateRaw("");
  if (raw) {
    cJSON_SetNumberValue(raw, ol->n);
    ol->kernels[ol->n++] = pk;
  }
  return raw;
}

/* The placeholder of a deferred object of kind "k", "b" or "l" (print_value builds it). */
static cJSON *deferred_placeholder(op_lists *ol, const char *kind, deferred_item item) {
  if (ol->ndeferred == ol->capdeferred) {
    int cap = ol->capdeferred ? 2 * ol->capdeferred : 64;
    deferred_item *d = realloc(ol->deferred, sizeof *d * (size_t)cap);
    if (!d) {
      ol->oom = true;
      return cJSON_CreateNull();
    }
    ol->deferred = d, ol->capdeferred = cap;
  }
  cJSON *raw = cJSON_CreateRaw(kind);
  if (raw) {
    cJSON_SetNumberValue(raw, ol->ndeferred);
    ol->deferred[ol->ndeferred++] = item;
  }
  return raw;
}

static cJSON *kernel_placeholder(op_lists *ol, const part_kernel *pk, const cg_kernel_info *ki,
                                 int buffer_base) {
  deferred_item k = {.pk = pk, .ki = ki, .buffer_base = buffer_base};
  return deferred_placeholder(ol, "k", k);
}

static cJSON *kernel_json(op_lists *ol, const part_kernel *pk, const cg_kernel_info *ki,
                          int buffer_base) {
  cJSON *o = cJSON_CreateObject();
  add_int(o, "id", pk->id);
  cJSON_AddStringToObject(o, "name", ki->name);
  cJSON_AddStringToObject(o, "symbol", ki->symbol);
  cJSON_AddStringToObject(o, "family", kernel_family_name(pk->family));
  cJSON_AddItemToObject(o, "block", u32x3_array(ki->block));
  cJSON_AddItemToObject(o, "grid", u32x3_array(ki->grid));
  int64_t global[3];
  for (int d = 0; d < 3; d++)
    global[d] = (int64_t)ki->block[d] * ki->grid[d];
  cJSON_AddItemToObject(o, "global", int_array(global, 3));
  add_int(o, "lds_bytes", ki->lds_bytes);
  add_int(o, "private_bytes", ki->private_bytes);
  add_int(o, "kernarg_size", ki->kernarg_size);
  add_int(o, "kernarg_align", ki->kernarg_align);
  add_int(o, "max_flat_workgroup_size", ki->max_flat_wg);

  cJSON *regs = cJSON_AddObjectToObject(o, "registers");
  add_int(regs, "sgpr", ki->sgpr);
  add_int(regs, "vgpr", ki->vgpr);
  add_int(regs, "agpr", ki->agpr);
  add_int(regs, "sgpr_spills", ki->sgpr_spill);
  add_int(regs, "vgpr_spills", ki->vgpr_spill);

  cJSON_AddItemToObject(o, "args", args_json(ki, buffer_base));

  /* GEMM kernels add their tile parameters (a JSON object text, docs/gemm.md) */
  cJSON *tuning = ki->tuning[0] ? cJSON_Parse(ki->tuning) : NULL;
  if (!tuning)
    tuning = cJSON_CreateObject();
  cJSON_AddItemToObject(o, "tuning", tuning);
  add_int(tuning, "block_size", (int64_t)ki->block[0] * ki->block[1] * ki->block[2]);
  add_int(tuning, "vector_width", ki->vector_width);
  add_str_or_null(o, "matrix_instruction", ki->matrix_instruction[0] ? ki->matrix_instruction : NULL);

  cJSON_AddItemToObject(o, "ops", ops_placeholder(ol, pk));
  return o;
}

/* Raw bit pattern of a fill value as "0x" + hex digits for the element width. A string, because
 * f64/i64 patterns (e.g. -inf = 0xfff0000000000000) do not survive a JSON number. */
static void fill_bits(elem_type t, uint64_t v, char *buf, size_t size) {
  int bits = t != ET_INVALID ? elem_type_bits(t) : 8;
  int digits = bits < 8 ? 2 : (bits + 3) / 4;
  if (bits < 64)
    v &= ((uint64_t)1 << bits) - 1;
  snprintf(buf, size, "0x%0*llx", digits, (unsigned long long)v);
}

static const part_buffer *plan_buffer(const partition_plan *p, int id) {
  return id >= 0 && id < p->nbuffers ? &p->buffers[id] : NULL;
}

static cJSON *id_array(const int *ids, int n) {
  cJSON *a = cJSON_CreateArray();
  for (int i = 0; i < n; i++)
    cJSON_AddItemToArray(a, cJSON_CreateNumber(ids[i]));
  return a;
}

/* if / while: the readback deciding, the regions' launches, the buffers read and written. */
static void control_json(cJSON *o, const launch_node *ln) {
  bool is_if = ln->kind == LAUNCH_IF;
  cJSON_AddStringToObject(o, "kind", is_if ? "if" : "while");
  add_int(o, "condition", ln->cond);
  cJSON_AddItemToObject(o, is_if ? "then" : "cond", id_array(ln->region[0], ln->nregion[0]));
  cJSON_AddItemToObject(o, is_if ? "else" : "body", id_array(ln->region[1], ln->nregion[1]));
  cJSON_AddItemToObject(o, "operands", id_array(ln->io_bufs, ln->nin_bufs));
  cJSON_AddItemToObject(o, "results", id_array(ln->io_bufs + ln->nin_bufs, ln->nout_bufs));
}

static cJSON *launch_json(const partition_plan *p, const launch_node *ln, int parent) {
  cJSON *o = cJSON_CreateObject();
  add_int(o, "id", ln->id);
  switch (ln->kind) {
  case LAUNCH_KERNEL:
    cJSON_AddStringToObject(o, "kind", "kernel");
    add_int(o, "kernel", ln->kernel);
    break;
  case LAUNCH_FILL: {
    const part_buffer *b = plan_buffer(p, ln->dst_buf);
    char bits[32];
    cJSON_AddStringToObject(o, "kind", "fill");
    add_int(o, "buffer", ln->dst_buf);
    /* The plan's fill (value and range); a fill without a type or range covers the whole
     * buffer with zeros of the buffer's element type. */
    elem_type ft = ln->fill_type != ET_INVALID ? ln->fill_type : b && b->v ? b->v->type->elem : ET_INVALID;
    int64_t bytes = ln->fill_bytes > 0 ? ln->fill_bytes : b ? b->bytes - ln->fill_offset : 0;
    add_int(o, "offset", ln->fill_offset);
    add_int(o, "bytes", bytes);
    add_str_or_null(o, "element_type", ft != ET_INVALID ? elem_type_name(ft) : NULL);
    cJSON_AddNumberToObject(o, "value", ln->fill_value); /* the exact pattern is in "bits" */
    fill_bits(ft, ln->fill_bits, bits, sizeof bits);
    cJSON_AddStringToObject(o, "bits", bits);
    break;
  }
  case LAUNCH_COPY: {
    const part_buffer *b = plan_buffer(p, ln->dst_buf);
    cJSON_AddStringToObject(o, "kind", "copy");
    add_int(o, "src_buffer", ln->src_buf);
    add_int(o, "dst_buffer", ln->dst_buf);
    add_int(o, "bytes", b ? b->bytes : 0);
    break;
  }
  case LAUNCH_READBACK: {
    const part_buffer *b = plan_buffer(p, ln->src_buf);
    cJSON_AddStringToObject(o, "kind", "readback");
    add_int(o, "buffer", ln->src_buf);
    add_int(o, "bytes", b ? b->bytes : 0);
    break;
  }
  case LAUNCH_IF:
  case LAUNCH_WHILE: control_json(o, ln); break;
  }
  if (parent >= 0)
    add_int(o, "parent", parent);
  cJSON *d = cJSON_AddArrayToObject(o, "deps");
  for (int i = 0; i < ln->ndeps; i++)
    cJSON_AddItemToArray(d, cJSON_CreateNumber(ln->deps[i]));
  return o;
}

static void processor_of(const target_request *t, char *buf, size_t size) {
  if (t->info && t->info->name) {
    snprintf(buf, size, "%s", t->info->name);
    return;
  }
  size_t n = strcspn(t->id, ":");
  snprintf(buf, size, "%.*s", (int)n, t->id);
}

/* Target ti of variant v (-1: the top level, which describes variant 0). */
static cJSON *target_json(op_lists *ol, const bnd_manifest_input *in, int ti, int v) {
  const target_request *t = &in->targets[ti];
  const partition_plan *p = v < 0 ? in->plans[ti] : in->variants[v].plans[ti];
  int kbase = v < 0 ? 0 : in->variants[v].kernel_base[ti];
  int bbase = v < 0 ? 0 : in->variants[v].buffer_base[ti];
  const cg_result *r = &in->results[ti];
  char buf[160];
  cJSON *o = cJSON_CreateObject();
  cJSON_AddStringToObject(o, "target_id", t->id);
  processor_of(t, buf, sizeof buf);
  cJSON_AddStringToObject(o, "processor", buf);
  bnd_code_object_id(t, buf, sizeof buf);
  cJSON_AddStringToObject(o, "bundle_entry_id", buf);
  if (in->cg && in->cg->embed_ir && r->bitcode) {
    bnd_bitcode_id(t, buf, sizeof buf);
    cJSON_AddStringToObject(o, "ir_entry_id", buf);
  } else {
    cJSON_AddNullToObject(o, "ir_entry_id");
  }
  snprintf(buf, sizeof buf, "0x%x", r->e_flags);
  cJSON_AddStringToObject(o, "e_flags", buf);
  add_int(o, "abi_version", r->abi_version);
  add_int(o, "wavefront_size", t->info ? t->info->wave_size : 64);
  add_int(o, "lds_limit", t->info ? t->info->lds_bytes : 65536);
  add_int(o, "kernel_count", p->nkernels);
  add_int(o, "distinct_kernels", p->ndistinct);
  cJSON *ws = cJSON_AddObjectToObject(o, "workspace");
  add_int(ws, "bytes", p->workspace_bytes);
  add_int(ws, "alignment", p->workspace_align);
  if (p->workspace_zeroed > 0) /* docs/manifest.md "Zeroed workspace" */
    add_int(ws, "zeroed_bytes", p->workspace_zeroed);

  cJSON *bufs = cJSON_AddArrayToObject(o, "buffers");
  for (int i = 0; i < p->nbuffers; i++)
    cJSON_AddItemToArray(bufs, deferred_placeholder(ol, "b", (deferred_item){.pb = p->buffers + i}));
  cJSON *ks = cJSON_AddArrayToObject(o, "kernels");
  for (int i = 0; i < p->nkernels; i++)
    cJSON_AddItemToArray(ks, kernel_placeholder(ol, &p->kernels[i], &r->kernels[kbase + i], bbase));
  int *parent = malloc(sizeof(int) * (size_t)(p->nnodes + 1)); /* control node of region nodes */
  for (int i = 0; i < p->nnodes; i++)
    parent[i] = -1;
  for (int i = 0; i < p->nnodes; i++)
    for (int r = 0; r < 2; r++)
      for (int j = 0; j < p->nodes[i].nregion[r]; j++)
        parent[p->nodes[i].region[r][j]] = i;
  cJSON *ls = cJSON_AddArrayToObject(o, "launches");
  for (int i = 0; i < p->nnodes; i++) {
    deferred_item l = {.p = p, .ln = &p->nodes[i], .parent = parent[i]};
    cJSON_AddItemToArray(ls, deferred_placeholder(ol, "l", l));
  }
  free(parent);
  cJSON_AddItemToObject(o, "order", id_array(p->order, p->norder));
  return o;
}

/* --specialize: which input dimensions vary, then per variant its shapes and its targets
 * (variants first .. first + n - 1 of the input: one entry's). */
static cJSON *variants_json(op_lists *ol, const bnd_manifest_input *in, int first, int n) {
  cJSON *vs = cJSON_CreateArray();
  for (int v = first; v < first + n; v++) {
    const graph *g = in->variants[v].g;
    cJSON *o = cJSON_CreateObject();
    add_int(o, "id", v - first);
    cJSON *dims = cJSON_AddArrayToObject(o, "dims");
    for (int k = 0; k < g->ndynamic; k++) {
      const value *a = g->args[g->dynamic_dims[2 * k]];
      int d = g->dynamic_dims[2 * k + 1];
      cJSON *e = cJSON_CreateObject();
      add_int(e, "input", g->dynamic_dims[2 * k]);
      add_int(e, "dim", d);
      add_int(e, "value", a->type->dims[d]);
      cJSON_AddItemToArray(dims, e);
    }
    cJSON_AddItemToObject(o, "inputs", graph_values(g->args, g->nargs, true));
    cJSON_AddItemToObject(o, "outputs", graph_values(g->results, g->nresults, false));
    cJSON *ts = cJSON_AddArrayToObject(o, "targets");
    for (int i = 0; i < in->ntargets; i++)
      cJSON_AddItemToArray(ts, target_json(ol, in, i, v));
    cJSON_AddItemToArray(vs, o);
  }
  return vs;
}

/* Several public functions: each entry as the top level describes the first (name, inputs,
 * outputs, targets, variants); the kernels of every entry live in one code object per target. */
static cJSON *entries_json(op_lists *ol, const bnd_manifest_input *in) {
  cJSON *es = cJSON_CreateArray();
  for (int e = 0; e < in->nentries; e++) {
    const bnd_manifest_entry *en = &in->entries[e];
    const graph *g = in->variants[en->first].g;
    cJSON *o = cJSON_CreateObject();
    cJSON_AddStringToObject(o, "name", en->name);
    cJSON_AddItemToObject(o, "inputs", graph_values(g->args, g->nargs, true));
    cJSON_AddItemToObject(o, "outputs", graph_values(g->results, g->nresults, false));
    cJSON *ts = cJSON_AddArrayToObject(o, "targets");
    for (int i = 0; i < in->ntargets; i++)
      cJSON_AddItemToArray(ts, target_json(ol, in, i, en->first));
    if (en->count > 1)
      cJSON_AddItemToObject(o, "variants", variants_json(ol, in, en->first, en->count));
    cJSON_AddItemToArray(es, o);
  }
  return es;
}

/* ------------------------------------------------------------------ printer */

/* cJSON_Print indents with tabs and formats numbers its own way; the manifest is read by people
 * and diffed between builds, so it gets a small printer with fixed rules: 2-space indent, arrays
 * of scalars on one line, integral numbers without a fraction, keys in insertion order. It
 * writes to a stream as it goes: the text is never held whole (a million-op graph's manifest is
 * 1.7x its input). */
typedef struct sbuf {
  FILE *f;
  op_lists *ol; /* printing a deferred kernel adds its ops placeholder */
} sbuf;

static void sb_put(sbuf *s, const char *text, size_t n) { fwrite(text, 1, n, s->f); }

static void sb_puts(sbuf *s, const char *text) { fputs(text, s->f); }

static void sb_indent(sbuf *s, int depth) {
  for (int i = 0; i < depth; i++)
    sb_put(s, "  ", 2);
}

/* Length of the well-formed UTF-8 sequence at c (1-4), or 0 if it is not one. */
static int utf8_len(const unsigned char *c) {
  int n = *c < 0x80 ? 1 : (*c >> 5) == 0x6 ? 2 : (*c >> 4) == 0xe ? 3 : (*c >> 3) == 0x1e ? 4 : 0;
  for (int i = 1; i < n; i++)
    if ((c[i] & 0xc0) != 0x80)
      return 0;
  return n;
}

static void print_string(sbuf *s, const char *str) {
  sb_put(s, "\"", 1);
  for (const unsigned char *c = (const unsigned char *)str; *c; c++) {
    char esc[8];
    int n = utf8_len(c);
    if (n == 0) {
      /* A path that is not UTF-8 would make the whole file invalid JSON. */
      sb_puts(s, "\\ufffd");
      continue;
    }
    if (n > 1) {
      sb_put(s, (const char *)c, (size_t)n);
      c += n - 1;
      continue;
    }
    switch (*c) {
    case '"': sb_puts(s, "\\\""); break;
    case '\\': sb_puts(s, "\\\\"); break;
    case '\n': sb_puts(s, "\\n"); break;
    case '\r': sb_puts(s, "\\r"); break;
    case '\t': sb_puts(s, "\\t"); break;
    default:
      if (*c < 0x20) {
        snprintf(esc, sizeof esc, "\\u%04x", *c);
        sb_puts(s, esc);
      } else {
        sb_put(s, (const char *)c, 1);
      }
    }
  }
  sb_put(s, "\"", 1);
}

static void print_number(sbuf *s, double d) {
  char num[40];
  if (!isfinite(d)) {
    sb_puts(s, "null"); /* JSON has no inf/nan */
    return;
  }
  if (d == floor(d) && fabs(d) < 9007199254740992.0) {
    snprintf(num, sizeof num, "%lld", (long long)d);
  } else {
    /* Shortest representation that reads back to the same double. */
    for (int prec = 15; prec <= 17; prec++) {
      snprintf(num, sizeof num, "%.*g", prec, d);
      if (strtod(num, NULL) == d)
        break;
    }
  }
  sb_puts(s, num);
}

static bool is_container(const cJSON *v) { return cJSON_IsArray(v) || cJSON_IsObject(v); }

static void print_value(sbuf *s, const cJSON *v, int depth);

/* A kernel's source ops, one `{op, loc}` object each, as print_value prints an array of
 * objects; each entry's node lives only while it is printed. */
static void print_ops(sbuf *s, const part_kernel *pk, int depth) {
  if (pk->nops == 0) {
    sb_puts(s, "[]");
    return;
  }
  sb_puts(s, "[");
  for (int i = 0; i < pk->nops; i++) {
    const op *op_ = pk->ops[i];
    char buf[1024];
    cJSON *e = cJSON_CreateObject();
    /* constant keys and the op table's names are referenced, not copied */
    cJSON_AddItemToObjectCS(e, "op", cJSON_CreateStringReference(
                                         (unsigned)op_->kind < OP_COUNT ? op_table[op_->kind].name : "?"));
    const char *loc = loc_string(op_->loc, buf, sizeof buf);
    cJSON_AddItemToObjectCS(e, "loc", loc ? cJSON_CreateStringReference(loc) : cJSON_CreateNull());
    sb_puts(s, i ? ",\n" : "\n");
    sb_indent(s, depth + 1);
    print_value(s, e, depth + 1);
    cJSON_Delete(e);
  }
  sb_puts(s, "\n");
  sb_indent(s, depth);
  sb_puts(s, "]");
}

static void print_value(sbuf *s, const cJSON *v, int depth) {
  if (cJSON_IsRaw(v) && v->valuestring && v->valuestring[0]) { /* deferred_placeholder */
    const deferred_item *dk = &s->ol->deferred[v->valueint];
    char kind = v->valuestring[0];
    cJSON *k = kind == 'k'   ? kernel_json(s->ol, dk->pk, dk->ki, dk->buffer_base)
               : kind == 'b' ? buffer_json(dk->pb)
                             : launch_json(dk->p, dk->ln, dk->parent);
    if (!k)
      s->ol->oom = true;
    print_value(s, k, depth);
    cJSON_Delete(k);
  } else if (cJSON_IsRaw(v)) { /* ops_placeholder */
    print_ops(s, s->ol->kernels[v->valueint], depth);
  } else if (cJSON_IsNull(v)) {
    sb_puts(s, "null");
  } else if (cJSON_IsTrue(v)) {
    sb_puts(s, "true");
  } else if (cJSON_IsFalse(v)) {
    sb_puts(s, "false");
  } else if (cJSON_IsNumber(v)) {
    print_number(s, v->valuedouble);
  } else if (cJSON_IsString(v)) {
    print_string(s, v->valuestring);
  } else if (cJSON_IsArray(v) || cJSON_IsObject(v)) {
    bool obj = cJSON_IsObject(v);
    const cJSON *c = v->child;
    if (!c) {
      sb_puts(s, obj ? "{}" : "[]");
      return;
    }
    bool inline_ = !obj;
    for (const cJSON *e = c; inline_ && e; e = e->next)
      if (is_container(e) || cJSON_IsRaw(e))
        inline_ = false;
    sb_puts(s, obj ? "{" : "[");
    for (const cJSON *e = c; e; e = e->next) {
      if (inline_) {
        if (e != c)
          sb_puts(s, ", ");
      } else {
        sb_puts(s, e == c ? "\n" : ",\n");
        sb_indent(s, depth + 1);
      }
      if (obj) {
        print_string(s, e->string);
        sb_puts(s, ": ");
      }
      print_value(s, e, depth + 1);
    }
    if (!inline_) {
      sb_puts(s, "\n");
      sb_indent(s, depth);
    }
    sb_puts(s, obj ? "}" : "]");
  }
}

/* ------------------------------------------------------------------ entry points */

bool bnd_manifest_valid(const bnd_manifest_input *in) {
  if (!in || !in->g || (in->ntargets > 0 && (!in->targets || !in->plans || !in->results)))
    return false;
  /* The kernel list comes from the plan, the facts about each kernel from codegen; they must
   * describe the same kernels or the manifest would bind wrong names to wrong launches. */
  for (int i = 0; i < in->ntargets; i++)
    if (!in->plans[i] || in->plans[i]->nkernels > in->results[i].nkernels)
      return false;
  for (int v = 0; v < in->nvariants; v++)
    for (int i = 0; i < in->ntargets; i++)
      if (in->variants[v].kernel_base[i] + in->variants[v].plans[i]->nkernels > in->results[i].nkernels)
        return false;
  return true;
}

/* The whole manifest as a tree, kernels' op lists as placeholders into ol. */
static cJSON *manifest_tree(const bnd_manifest_input *in, op_lists *ol) {
  const graph *g = in->g;
  cJSON *root = cJSON_CreateObject();
  cJSON_AddStringToObject(root, "format", "tosac-manifest");
  add_int(root, "version", MANIFEST_VERSION);
  cJSON *prod = cJSON_AddObjectToObject(root, "producer");
  cJSON_AddStringToObject(prod, "name", "tosac");
  cJSON_AddStringToObject(prod, "version", TOSAC_VERSION);
  const char *src = in->source_path ? in->source_path : (g->file ? g->file->path : NULL);
  add_str_or_null(root, "source", src);
  add_str_or_null(root, "entry", g->entry);
  add_str_or_null(root, "bundle", in->bundle_path);
  /* What ties this manifest to the bundle and weights written with it (bundle/digest.c). */
  cJSON *digests = cJSON_AddObjectToObject(root, "digests");
  add_str_or_null(digests, "bundle", in->bundle_digest);
  add_str_or_null(digests, "weights", in->weights_path ? in->weights_digest : NULL);
  add_int(root, "code_object_version",
          in->cg && in->cg->code_object_version ? in->cg->code_object_version
                                                : DEFAULT_CODE_OBJECT_VERSION);
  cJSON_AddBoolToObject(root, "ir_embedded", in->cg && in->cg->embed_ir);
  cJSON_AddItemToObject(root, "inputs", graph_values(g->args, g->nargs, true));
  cJSON_AddItemToObject(root, "outputs", graph_values(g->results, g->nresults, false));
  cJSON *consts = cJSON_AddObjectToObject(root, "constants");
  /* Small constants are folded into code; the rest live in one weights file that a client
   * uploads once and binds per buffer at its offset. */
  cJSON_AddStringToObject(consts, "storage", in->weights_path ? "weights_file" : "folded");
  add_str_or_null(consts, "file", in->weights_path);
  add_int(consts, "bytes", in->weights_path ? in->weights_bytes : 0);
  add_int(consts, "alignment", 256);
  cJSON *targets = cJSON_AddArrayToObject(root, "targets");
  for (int i = 0; i < in->ntargets; i++)
    cJSON_AddItemToArray(targets, target_json(ol, in, i, -1));
  if (in->nentries > 0 && in->entries[0].count > 1)
    cJSON_AddItemToObject(root, "variants", variants_json(ol, in, 0, in->entries[0].count));
  else if (in->nentries == 0 && in->nvariants > 0)
    cJSON_AddItemToObject(root, "variants", variants_json(ol, in, 0, in->nvariants));
  if (in->nentries > 0)
    cJSON_AddItemToObject(root, "entries", entries_json(ol, in));
  return root;
}

bool bnd_manifest_write(FILE *f, const bnd_manifest_input *in) {
  if (!bnd_manifest_valid(in))
    return false;
  op_lists ol = {0};
  cJSON *root = manifest_tree(in, &ol);
  bool ok = root && !ol.oom;
  if (ok) {
    sbuf s = {f, &ol};
    print_value(&s, root, 0);
    sb_puts(&s, "\n");
  }
  cJSON_Delete(root);
  free(ol.kernels);
  free(ol.deferred);
  return ok && !ol.oom && fflush(f) == 0 && !ferror(f);
}

char *bnd_manifest_json(const bnd_manifest_input *in) {
  char *text = NULL;
  size_t len = 0;
  FILE *f = open_memstream(&text, &len);
  if (!f)
    return NULL;
  bool ok = bnd_manifest_write(f, in);
  if (fclose(f) != 0 || !ok) {
    free(text);
    return NULL;
  }
  return text;
}
