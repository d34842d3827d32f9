/* result.c: libtosac's result object: entry points, accessors, the kernel tables read back
 * from the manifest (so callers see exactly what the manifest says), the time report, and
 * writing the outputs. */
#include "lib.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static tosac_result *new_result(void) {
  tosac_result *r = calloc(1, sizeof *r);
  if (!r)
    return NULL;
  r->diag_mem = open_memstream(&r->diag_text, &r->diag_len);
  if (!r->diag_mem) {
    free(r);
    return NULL;
  }
  return r;
}

/* A result that says only "out of memory" cannot be allocated either; NULL is the last resort. */
tosac_result *tosac_compile_file(const tosac_options *o, const char *path) {
  tosac_result *r = new_result();
  if (!r)
    return NULL;
  r->input_path = strdup(path ? path : "-");
  r->src.path = strcmp(r->input_path, "-") ? r->input_path : "<stdin>";
  lib_compile(r, o);
  return r;
}

tosac_result *tosac_compile_buffer(const tosac_options *o, const char *name, const char *text,
                                   size_t len) {
  tosac_result *r = new_result();
  if (!r)
    return NULL;
  r->input_path = strdup(name && *name ? name : "<buffer>");
  r->src.path = r->input_path;
  r->text = malloc(len + 1);
  if (!r->text) {
    lib_error(r, "out of memory copying the input");
    r->status = TOSAC_ERROR_IO;
    return r;
  }
  memcpy(r->text, text, len);
  r->text[len] = 0;
  r->len = len;
  lib_compile(r, o);
  return r;
}

void tosac_result_dispose(tosac_result *r) {
  if (!r)
    return;
  for (int i = 0; i < r->nres; i++)
    cg_result_free(&r->res[i]);
  if (r->a)
    arena_free(r->a);
  source_forget(&r->src);
  if (r->text) {
    if (r->mapped)
      source_unload(r->text, r->len, true);
    else
      free(r->text);
  }
  for (int i = 0; i < r->ndiags; i++) {
    free(r->diags[i].file);
    free(r->diags[i].severity);
    free(r->diags[i].message);
  }
  free(r->diags);
  if (r->diag_mem)
    fclose(r->diag_mem);
  free(r->diag_text);
  for (int t = 0; r->kt && t < (r->nentries > 0 ? r->nentries : 1) * r->ntargets; t++) {
    for (int k = 0; k < r->kt[t].nkernels; k++)
      free((void *)r->kt[t].kernels[k].args);
    free(r->kt[t].kernels);
  }
  free(r->kt);
  free(r->bundle);
  free(r->manifest);
  free(r->weights_rel);
  free(r->weights);
  free(r->text_out);
  free(r->host_c);
  free(r->host_h);
  free(r->host_c_path);
  free(r->host_h_path);
  free(r->bundle_path);
  free(r->manifest_path);
  free(r->weights_path);
  free(r->input_path);
  free(r->depfile);
  free(r->dep_target);
  free(r->time_report);
  free(r);
}

tosac_status tosac_result_status(const tosac_result *r) { return r ? r->status : TOSAC_ERROR_IO; }

/* ---------------------------------------------------------------- diagnostics */
int tosac_result_diagnostic_count(const tosac_result *r) { return r ? r->ndiags : 0; }

static const lib_diag *diag_at(const tosac_result *r, int i) {
  return r && i >= 0 && i < r->ndiags ? &r->diags[i] : NULL;
}
const char *tosac_result_diagnostic_file(const tosac_result *r, int i) {
  return diag_at(r, i) ? diag_at(r, i)->file : NULL;
}
int tosac_result_diagnostic_line(const tosac_result *r, int i) {
  return diag_at(r, i) ? diag_at(r, i)->line : 0;
}
int tosac_result_diagnostic_column(const tosac_result *r, int i) {
  return diag_at(r, i) ? diag_at(r, i)->col : 0;
}
const char *tosac_result_diagnostic_severity(const tosac_result *r, int i) {
  return diag_at(r, i) ? diag_at(r, i)->severity : NULL;
}
const char *tosac_result_diagnostic_message(const tosac_result *r, int i) {
  return diag_at(r, i) ? diag_at(r, i)->message : NULL;
}
const char *tosac_result_diagnostics_text(const tosac_result *r) {
  if (!r)
    return "";
  fflush(r->diag_mem);
  return r->diag_text ? r->diag_text : "";
}

/* ---------------------------------------------------------------- outputs */
const uint8_t *tosac_result_bundle(const tosac_result *r, size_t *size) {
  if (size)
    *size = r && r->bundle ? r->bundle_size : 0;
  return r ? r->bundle : NULL;
}

/* Built on first request from the plans it is written from: tosac_result_write streams the
 * same bytes to the file without ever holding them. */
const char *tosac_result_manifest(const tosac_result *r) {
  tosac_result *m = (tosac_result *)r;
  if (r && r->outputs_ready && !r->manifest)
    m->manifest = bnd_manifest_json(&r->mi);
  return r ? r->manifest : NULL;
}

const uint8_t *tosac_result_weights(const tosac_result *r, size_t *size) {
  tosac_result *m = (tosac_result *)r; /* built lazily: most callers write it piece by piece */
  if (size)
    *size = 0;
  if (!r || !r->weights_path || !r->outputs_ready)
    return NULL;
  if (!m->weights)
    m->weights = part_weights_image(r->wplan, &m->weights_size);
  if (size)
    *size = m->weights ? m->weights_size : 0;
  return m->weights;
}

const char *tosac_result_text(const tosac_result *r) { return r ? r->text_out : NULL; }
const char *tosac_result_bundle_path(const tosac_result *r) { return r ? r->bundle_path : NULL; }
const char *tosac_result_manifest_path(const tosac_result *r) { return r ? r->manifest_path : NULL; }
const char *tosac_result_weights_path(const tosac_result *r) { return r ? r->weights_path : NULL; }
const char *tosac_result_host_source(const tosac_result *r) { return r ? r->host_c : NULL; }
const char *tosac_result_host_header(const tosac_result *r) { return r ? r->host_h : NULL; }
const char *tosac_result_host_source_path(const tosac_result *r) { return r ? r->host_c_path : NULL; }
const char *tosac_result_host_header_path(const tosac_result *r) { return r ? r->host_h_path : NULL; }

int tosac_result_target_count(const tosac_result *r) {
  return r && r->outputs_ready ? r->ntargets : 0;
}

const char *tosac_result_target_id(const tosac_result *r, int t) {
  return r && t >= 0 && t < tosac_result_target_count(r) ? r->targets[t].id : NULL;
}

int tosac_result_entry_count(const tosac_result *r) { return r && r->outputs_ready ? r->nentries : 0; }

const char *tosac_result_entry_name(const tosac_result *r, int e) {
  return r && e >= 0 && e < tosac_result_entry_count(r) ? r->entry_names[e] : NULL;
}

static const lib_target *entry_target(const tosac_result *r, int e, int t) {
  bool ok = r && r->kt && e >= 0 && e < tosac_result_entry_count(r) && t >= 0 &&
            t < tosac_result_target_count(r);
  return ok ? &r->kt[e * r->ntargets + t] : NULL;
}

int tosac_result_entry_kernel_count(const tosac_result *r, int e, int t) {
  const lib_target *lt = entry_target(r, e, t);
  return lt ? lt->nkernels : 0;
}

tosac_status tosac_result_entry_kernel(const tosac_result *r, int e, int t, int i,
                                       tosac_kernel *k) {
  const lib_target *lt = entry_target(r, e, t);
  if (!lt || i < 0 || i >= lt->nkernels)
    return TOSAC_ERROR_USAGE;
  *k = lt->kernels[i];
  return TOSAC_OK;
}

int tosac_result_kernel_count(const tosac_result *r, int t) {
  return tosac_result_entry_kernel_count(r, 0, t);
}

tosac_status tosac_result_kernel(const tosac_result *r, int t, int i, tosac_kernel *k) {
  return tosac_result_entry_kernel(r, 0, t, i, k);
}

const uint8_t *tosac_result_code_object(const tosac_result *r, int t, size_t *size) {
  bool ok = r && t >= 0 && t < tosac_result_target_count(r);
  if (size)
    *size = ok ? r->res[t].code_size : 0;
  return ok ? r->res[t].code_object : NULL;
}

void tosac_result_cache_counts(const tosac_result *r, uint64_t *hits, uint64_t *misses) {
  if (hits)
    *hits = r ? r->cache_hits : 0;
  if (misses)
    *misses = r ? r->cache_misses : 0;
}

tosac_status tosac_cache_stats(const char *dir, uint64_t *hits, uint64_t *misses,
                               uint64_t *entries, uint64_t *bytes) {
  uint64_t h, m, e, b;
  bool ok = dir && cg_cache_stats(dir, &h, &m, &e, &b);
  if (hits)
    *hits = ok ? h : 0;
  if (misses)
    *misses = ok ? m : 0;
  if (entries)
    *entries = ok ? e : 0;
  if (bytes)
    *bytes = ok ? b : 0;
  return ok ? TOSAC_OK : TOSAC_ERROR_IO;
}

/* ---------------------------------------------------------------- kernel tables */
/* Filled from the plans and codegen results the manifest is written from (kernel i of a unit's
 * plan is the linked result's kernel kbase + i; buffers are numbered from the unit's bbase), so
 * they say what the manifest says without parsing it back (a cJSON tree of a million-op
 * manifest would hold ~12 nodes per op for the result's life). */
static bool fill_kernel(const cg_kernel_info *ki, int bbase, tosac_kernel *k) {
  *k = (tosac_kernel){.name = ki->name, .symbol = ki->symbol, .lds_bytes = (uint64_t)ki->lds_bytes,
                      .kernarg_size = (uint64_t)ki->kernarg_size,
                      .kernarg_align = (uint64_t)ki->kernarg_align};
  for (int d = 0; d < 3; d++)
    k->grid[d] = ki->grid[d], k->block[d] = ki->block[d];
  tosac_kernel_arg *v = calloc(ki->nargs ? (size_t)ki->nargs : 1, sizeof *v);
  if (!v)
    return false;
  for (int a = 0; a < ki->nargs; a++) {
    const cg_arg *ar = &ki->args[a];
    v[a] = (tosac_kernel_arg){.name = ar->name, .value_kind = ar->value_kind,
                              .offset = (uint64_t)ar->offset, .size = (uint64_t)ar->size,
                              .buffer = ar->buffer >= 0 ? ar->buffer - bbase : -1};
  }
  k->nargs = ki->nargs;
  k->args = v;
  return true;
}

/* Entry e's kernels per target in launch order: its first unit's (the manifest's top level, or
 * entries[e], describes that variant). */
static bool read_entry_tables(tosac_result *r, int e, lib_target *kt) {
  int u = r->entry_first ? r->entry_first[e] : 0;
  for (int t = 0; t < r->ntargets; t++) {
    const partition_plan *p = u ? r->vplans[u][t] : r->plans[t];
    const cg_result *res = &r->res[t];
    int kb = u ? r->kbase[u][t] : 0, bb = u ? r->bbase[u][t] : 0;
    lib_target *lt = &kt[t];
    lt->kernels = calloc(p->norder ? (size_t)p->norder : 1, sizeof *lt->kernels);
    if (!lt->kernels)
      return false;
    for (int i = 0; i < p->norder; i++) {
      int id = p->order[i];
      if (id < 0 || id >= p->nnodes || p->nodes[id].id != id)
        return false;
      const launch_node *ln = &p->nodes[id];
      if (ln->kind != LAUNCH_KERNEL)
        continue;
      if (ln->kernel < 0 || ln->kernel >= p->nkernels || kb + ln->kernel >= res->nkernels ||
          !fill_kernel(&res->kernels[kb + ln->kernel], bb, &lt->kernels[lt->nkernels]))
        return false;
      lt->nkernels++;
    }
  }
  return true;
}

bool lib_read_kernel_tables(tosac_result *r) {
  int ne = r->nentries > 0 ? r->nentries : 1;
  r->kt = calloc((size_t)(ne * r->ntargets + 1), sizeof *r->kt);
  if (!r->kt)
    return false;
  for (int e = 0; e < ne; e++)
    if (!read_entry_tables(r, e, &r->kt[e * r->ntargets]))
      return false;
  return true;
}

/* ---------------------------------------------------------------- time report */
/* Wall time of the driver's stages, then each target's codegen stages: the sum of the wall
 * times its work items spent in each stage on their threads (with -j they run in parallel,
 * so the targets' sum may exceed the codegen wall time). */
const char *tosac_result_time_report(const tosac_result *r) {
  static const char *const cg_names[CG_STAGE_COUNT] = {
      [CG_STAGE_IR] = "IR build", [CG_STAGE_OPT] = "optimise", [CG_STAGE_EMIT] = "codegen",
      [CG_STAGE_LINK] = "link", [CG_STAGE_META] = "metadata"};
  tosac_result *m = (tosac_result *)r;
  if (!r)
    return "";
  free(m->time_report);
  size_t len = 0;
  FILE *f = open_memstream(&m->time_report, &len);
  if (!f)
    return "";
  double total = 0;
  fputs("tosac: time report (ms, wall clock)\n", f);
  fprintf(f, "  %-28s %10s\n", "stage", "ms");
  for (int i = 0; i < r->nstages; i++) {
    fprintf(f, "  %-28s %10.2f\n", r->stages[i].what, r->stages[i].ms);
    total += r->stages[i].ms;
  }
  fprintf(f, "  %-28s %10.2f\n", "total", total);
  if (r->codegen_ran && r->nres) {
    fprintf(f, "  %-28s", "target");
    for (int s = 0; s < CG_STAGE_COUNT; s++)
      fprintf(f, " %10s", cg_names[s]);
    fprintf(f, " %10s%s\n", "total", r->cache_on ? "  cache hits" : "");
    for (int i = 0; i < r->nres; i++) {
      double sum = 0;
      fprintf(f, "  %-28s", r->targets[i].id);
      for (int s = 0; s < CG_STAGE_COUNT; s++) {
        fprintf(f, " %10.2f", r->res[i].time_ms[s]);
        sum += r->res[i].time_ms[s];
      }
      fprintf(f, " %10.2f", sum);
      if (r->cache_on)
        fprintf(f, "  %d/%d", r->res[i].cache_hits, r->res[i].work_items);
      fputc('\n', f);
    }
  }
  fclose(f);
  return m->time_report ? m->time_report : "";
}

/* ---------------------------------------------------------------- writing */
static int cmp_piece(const void *a, const void *b) {
  const file_piece *x = a, *y = b;
  return x->offset < y->offset ? -1 : x->offset > y->offset;
}

/* The weights file as pieces written straight from the decoded constants, so the constant
 * bytes are never copied into a second image (part_weights_image's layout: non-splats copied
 * up to the buffer size, splats repeated whole elements). NULL when pieces overlap, where the
 * image keeps the last writer's bytes. */
static file_piece *weight_pieces(const partition_plan *p, int *n) {
  file_piece *v = malloc(sizeof *v * (size_t)(p->nbuffers + 1));
  int k = 0;
  for (int i = 0; v && i < p->nbuffers; i++) {
    const part_buffer *bf = &p->buffers[i];
    const attr *a = bf->kind == BUF_CONSTANT ? op_attr(bf->v->def, "values") : NULL;
    if (!a || a->kind != ATTR_DENSE || !a->dense)
      continue;
    const dense_data *dd = a->dense;
    size_t room = (size_t)bf->bytes, es = dd->nbytes;
    size_t span = dd->splat ? (es ? room / es * es : 0) : (es < room ? es : room);
    if (span)
      v[k++] = (file_piece){(size_t)bf->offset, span, dd->bytes, dd->splat ? es : span};
  }
  if (v && k > 1)
    qsort(v, (size_t)k, sizeof *v, cmp_piece);
  for (int i = 1; v && i < k; i++) {
    if (v[i].offset < v[i - 1].offset + v[i - 1].span) {
      free(v);
      return NULL;
    }
  }
  *n = k;
  return v;
}

bool lib_weights_digest(const tosac_result *r, char out[BND_DIGEST_SIZE]) {
  const partition_plan *p = r->wplan;
  int n = 0;
  file_piece *pieces = weight_pieces(p, &n);
  if (pieces) {
    bool ok = bnd_digest_pieces((size_t)p->weights_bytes, pieces, n, out);
    free(pieces);
    return ok;
  }
  size_t size = 0;
  uint8_t *img = part_weights_image(p, &size);
  if (img)
    bnd_digest(img, size, out);
  free(img);
  return img != NULL;
}

/* The weights file staged from the same pieces lib_weights_digest hashed. */
static staged_file *stage_weights(tosac_result *r, char *err, size_t errsize) {
  const partition_plan *p = r->wplan;
  int n = 0;
  file_piece *pieces = weight_pieces(p, &n);
  if (pieces) {
    staged_file *f =
        stage_file_pieces(r->weights_path, (size_t)p->weights_bytes, pieces, n, err, errsize);
    free(pieces);
    return f;
  }
  size_t size = 0;
  const uint8_t *img = tosac_result_weights(r, &size);
  if (!img)
    snprintf(err, errsize, "out of memory building the weights file");
  return img ? stage_file(r->weights_path, img, size, err, errsize) : NULL;
}

/* The manifest streamed to its temporary file as the printer produces it (its text, a
 * million-op graph's 1.7x the input, is never held). A descriptor of its own: fclose must not
 * close the stage's. */
static bool write_manifest(int fd, const void *ctx) {
  const tosac_result *r = ctx;
  int dup_fd = dup(fd);
  FILE *f = dup_fd >= 0 ? fdopen(dup_fd, "w") : NULL;
  if (!f) {
    if (dup_fd >= 0)
      close(dup_fd);
    return false;
  }
  bool ok = bnd_manifest_write(f, &r->mi);
  int saved = errno;
  ok = fclose(f) == 0 && ok;
  if (!ok && !errno)
    errno = saved;
  return ok;
}

/* The text tosac_result_manifest already built, else the stream. */
static staged_file *stage_manifest(tosac_result *r, char *err, size_t errsize) {
  if (r->manifest)
    return stage_file(r->manifest_path, r->manifest, strlen(r->manifest), err, errsize);
  return stage_file_with(r->manifest_path, write_manifest, r, err, errsize);
}

/* Make depfile: the outputs depend on the input graph (the only file tosac reads). */
static bool write_depfile(tosac_result *r) {
  if (!r->input_path || !strcmp(r->input_path, "-")) {
    snprintf(r->write_error, sizeof r->write_error,
             "a depfile needs a named input file, not standard input");
    return false;
  }
  char *path = r->depfile ? strdup(r->depfile) : lib_stem_with(r->bundle_path, ".d", true);
  char *text = NULL;
  int n = r->dep_target ? asprintf(&text, "%s: %s\n", r->dep_target, r->input_path)
                        : asprintf(&text, "%s %s: %s\n", r->bundle_path, r->manifest_path,
                                   r->input_path);
  bool ok = n >= 0 && path &&
            write_file_atomic(path, text, (size_t)n, r->write_error, sizeof r->write_error);
  if (n < 0 || !path)
    snprintf(r->write_error, sizeof r->write_error, "out of memory");
  free(text);
  free(path);
  return ok;
}

static bool write_text(tosac_result *r, const char *path) {
  const char *t = r->text_out ? r->text_out : "";
  if (!path || !strcmp(path, "-")) {
    fputs(t, stdout);
    if (fflush(stdout) == 0)
      return true;
    snprintf(r->write_error, sizeof r->write_error, "cannot write to standard output");
    return false;
  }
  return write_file_atomic(path, t, strlen(t), r->write_error, sizeof r->write_error);
}

tosac_status tosac_result_write(tosac_result *r, const char *text_path) {
  if (!r)
    return TOSAC_ERROR_USAGE;
  r->write_error[0] = 0;
  if (r->status != TOSAC_OK) {
    snprintf(r->write_error, sizeof r->write_error, "the compile failed; nothing to write");
    return TOSAC_ERROR_USAGE;
  }
  if (r->emit != TOSAC_EMIT_BUNDLE && r->emit != TOSAC_EMIT_HOST)
    return r->text_out ? (write_text(r, text_path) ? TOSAC_OK : TOSAC_ERROR_IO) : TOSAC_OK;
  if (!r->outputs_ready)
    return TOSAC_OK; /* --syntax-only: nothing was produced */
  char *err = r->write_error;
  size_t es = sizeof r->write_error;
  struct timespec t0, t1;
  clock_gettime(CLOCK_MONOTONIC, &t0);
  /* All three files are written in full before any is renamed into place (commit_staged): a
   * full disk or a read-only directory leaves every old output untouched. The manifest, which
   * holds the digests of the other two, goes last. */
  staged_file *st[3] = {0};
  int ns = 0;
  bool ok = (!r->weights_path || (st[ns++] = stage_weights(r, err, es))) &&
            (st[ns++] = stage_file(r->bundle_path, r->bundle, r->bundle_size, err, es)) &&
            (st[ns++] = stage_manifest(r, err, es)) &&
            commit_staged(st, ns, err, es);
  discard_staged(st, ns);
  clock_gettime(CLOCK_MONOTONIC, &t1);
  /* the time report's "bundle and manifest" stage includes writing them, as it always did */
  for (int i = 0; i < r->nstages; i++)
    if (!strcmp(r->stages[i].what, "bundle and manifest"))
      r->stages[i].ms += (t1.tv_sec - t0.tv_sec) * 1e3 + (t1.tv_nsec - t0.tv_nsec) / 1e6;
  if (!ok)
    return TOSAC_ERROR_IO;
  if (r->host_c && (!write_file_atomic(r->host_h_path, r->host_h, strlen(r->host_h), err, es) ||
                    !write_file_atomic(r->host_c_path, r->host_c, strlen(r->host_c), err, es)))
    return TOSAC_ERROR_IO;
  if (r->write_depfile && !write_depfile(r))
    return TOSAC_ERROR_IO;
  if (r->verbose)
    fprintf(r->messages, "tosac: wrote %s (%zu bytes) and %s\n", r->bundle_path, r->bundle_size,
            r->manifest_path);
  return TOSAC_OK;
}

const char *tosac_result_write_error(const tosac_result *r) { return r ? r->write_error : ""; }
