/* compile.c: one compile, the stages in the order of DESIGN.md §1: load, parse and verify,
 * partition per target, code generation (with the kernel cache), bundle and manifest. Every
 * output stays in the result object; nothing is written to a file here (result.c does that). */
#include "lib.h"

#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static double now_ms(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

void lib_show_diagnostics(tosac_result *r) {
  if (r->diag_mem)
    fflush(r->diag_mem);
  if (r->messages && r->diag_text && r->diag_len > r->diag_shown) {
    fwrite(r->diag_text + r->diag_shown, 1, r->diag_len - r->diag_shown, r->messages);
    fflush(r->messages);
  }
  r->diag_shown = r->diag_len;
}

static void stage_done(tosac_result *r, const char *what, double *t0) {
  double t = now_ms();
  if (r->nstages < LIB_MAX_STAGES)
    r->stages[r->nstages].what = what, r->stages[r->nstages++].ms = t - *t0;
  lib_show_diagnostics(r);
  if (r->verbose)
    fprintf(r->messages, "tosac: %-28s %8.1f ms\n", what, t - *t0);
  *t0 = t;
}

static void add_record(tosac_result *r, const char *file, int line, int col, const char *kind,
                       const char *msg) {
  if (r->ndiags == r->cap_diags) {
    int cap = r->cap_diags ? 2 * r->cap_diags : 8;
    lib_diag *v = realloc(r->diags, (size_t)cap * sizeof *v);
    if (!v)
      return;
    r->diags = v, r->cap_diags = cap;
  }
  r->diags[r->ndiags++] = (lib_diag){file ? strdup(file) : NULL, line, col, strdup(kind),
                                     strdup(msg)};
}

static void record_diag(void *ctx, src_loc loc, const char *kind, const char *message) {
  tosac_result *r = ctx;
  const source_file *f = src_loc_file(loc);
  add_record(r, f ? f->path : NULL, f ? (int)loc.line : 0, f ? loc.col : 0, kind, message);
}

void lib_error(tosac_result *r, const char *fmt, ...) {
  char msg[1024];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(msg, sizeof msg, fmt, ap);
  va_end(ap);
  fprintf(r->diag_mem, "tosac: error: %s\n", msg);
  add_record(r, NULL, 0, 0, "error", msg);
}

/* Codegen diagnostics come back per target as printed text (the work items run on other
 * threads); their header lines become records: "path:L:C: kind: msg" or "tosac: kind: msg". */
static void add_text_diagnostics(tosac_result *r, const char *text) {
  fputs(text, r->diag_mem);
  const char *path = r->src.path;
  size_t plen = strlen(path);
  for (const char *line = text; *line;) {
    const char *eol = strchr(line, '\n');
    size_t n = eol ? (size_t)(eol - line) : strlen(line);
    char *l = strndup(line, n);
    int ln = 0, col = 0, used = 0;
    char kind[16];
    if (!strncmp(l, path, plen) && l[plen] == ':' &&
        sscanf(l + plen, ":%d:%d: %15[a-z]: %n", &ln, &col, kind, &used) == 3 && used)
      add_record(r, path, ln, col, kind, l + plen + used);
    else if (sscanf(l, "tosac: %15[a-z]: %n", kind, &used) == 1 && used)
      add_record(r, NULL, 0, 0, kind, l + used);
    free(l);
    line += n + (eol ? 1 : 0);
  }
}

char *lib_stem_with(const char *path, const char *ext, bool keep_dir) {
  const char *base = keep_dir ? path : strrchr(path, '/');
  base = base ? (keep_dir ? base : base + 1) : path;
  if (!strcmp(path, "-"))
    base = "a";
  const char *slash = strrchr(base, '/');
  const char *dot = strrchr(slash ? slash : base, '.');
  size_t n = dot && dot != (slash ? slash + 1 : base) ? (size_t)(dot - base) : strlen(base);
  char *s = malloc(n + strlen(ext) + 1);
  if (!s)
    return NULL;
  memcpy(s, base, n);
  strcpy(s + n, ext);
  return s;
}

/* The manifest names the weights file relative to its own directory, so the three files can
 * move together; a weights file elsewhere is named by its absolute path. */
static char *path_from_manifest(const char *manifest, const char *file) {
  const char *ms = strrchr(manifest, '/'), *fs = strrchr(file, '/');
  size_t md = ms ? (size_t)(ms - manifest) : 0, fd = fs ? (size_t)(fs - file) : 0;
  if (md == fd && strncmp(manifest, file, md) == 0)
    return strdup(fs ? fs + 1 : file);
  if (file[0] == '/')
    return strdup(file);
  char *dir = fs ? strndup(file, fd) : strdup(".");
  char *real = realpath(dir, NULL);
  free(dir);
  if (!real)
    return strdup(file);
  size_t n = strlen(real) + strlen(fs ? fs : file) + 2;
  char *out = malloc(n);
  snprintf(out, n, "%s/%s", real, fs ? fs + 1 : file);
  free(real);
  return out;
}

/* Text outputs (--emit=llvm/asm) for several targets are concatenated with a header each. */
static char *join_text(const tosac_result *r, bool want_asm) {
  size_t total = 1;
  for (int i = 0; i < r->ntargets; i++) {
    const char *t = want_asm ? r->res[i].asm_text : r->res[i].llvm_ir;
    total += (t ? strlen(t) : 0) + 128;
  }
  char *s = malloc(total), *p = s;
  if (!s)
    return NULL;
  *p = 0;
  for (int i = 0; i < r->ntargets; i++) {
    const char *t = want_asm ? r->res[i].asm_text : r->res[i].llvm_ir;
    if (r->ntargets > 1)
      p += sprintf(p, "; target %s\n", r->targets[i].id);
    p += sprintf(p, "%s", t ? t : "");
  }
  return s;
}

/* --emit=host: the host code from the same input as the manifest (bundle/host_emit.c), its API
 * named by prefix; *c / *h receive the two texts. */
static bool emit_host_as(tosac_result *r, const tosac_options *o, const bnd_manifest_input *mi,
                         const char *prefix, char **c, char **h) {
  if (!bnd_host_prefix_valid(prefix)) {
    lib_error(r, "the entry function's name '%s' is not a C identifier; name the host API with "
              "--prefix", prefix ? prefix : "");
    return false;
  }
  const char *slash = strrchr(r->host_h_path, '/');
  const char *cslash = strrchr(r->host_c_path, '/');
  bnd_host_options ho = {.prefix = prefix, .streams = o->host_streams,
                         .header_name = slash ? slash + 1 : r->host_h_path,
                         .source_name = cslash ? cslash + 1 : r->host_c_path};
  char err[512];
  if (!bnd_host_emit(mi, &ho, c, h, err, sizeof err)) {
    lib_error(r, "--emit=host: %s", err);
    return false;
  }
  return true;
}

/* Several entry functions: each one's host code under its own prefix (its name, or
 * PREFIX_name with --prefix), one after another in the same two files. Every name is a
 * prefix of its own, so the parts never collide; each loads the same bundle and weights. */
static bool emit_host(tosac_result *r, const tosac_options *o, const bnd_manifest_input *mi) {
  if (r->nentries < 2)
    return emit_host_as(r, o, mi, o->host_prefix ? o->host_prefix : r->g->entry, &r->host_c,
                        &r->host_h);
  size_t cl = 0, hl = 0;
  FILE *fc = open_memstream(&r->host_c, &cl), *fh = open_memstream(&r->host_h, &hl);
  bool ok = fc && fh;
  for (int e = 0; ok && e < r->nentries; e++) {
    int first = r->entry_first[e];
    bnd_manifest_input me = *mi; /* the entry's units: variants even for one (kernel bases) */
    me.g = r->vg[first], me.plans = r->vplans[first];
    me.variants = mi->variants + first, me.nvariants = r->entry_units[e];
    me.entries = NULL, me.nentries = 0;
    const char *name = r->entry_names[e];
    char *c = NULL, *h = NULL;
    ok = emit_host_as(r, o, &me, o->host_prefix ? arena_printf(r->a, "%s_%s", o->host_prefix, name)
                                                : name, &c, &h);
    if (ok)
      fprintf(fc, "%s%s", e ? "\n" : "", c), fprintf(fh, "%s%s", e ? "\n" : "", h);
    free(c);
    free(h);
  }
  if (fc)
    fclose(fc);
  if (fh)
    fclose(fh);
  return ok;
}

static bool build_bundle(tosac_result *r, const tosac_options *o, const cg_options *cgo) {
  bnd_entry entries[1 + 2 * LIB_MAX_TARGETS];
  int n = 0;
  entries[n++] = (bnd_entry){.id = BND_HOST_ID, .data = NULL, .size = 0};
  for (int i = 0; i < r->ntargets; i++) {
    bnd_code_object_id(&r->targets[i], entries[n].id, sizeof entries[n].id);
    entries[n].data = r->res[i].code_object;
    entries[n++].size = r->res[i].code_size;
  }
  for (int i = 0; o->embed_ir && i < r->ntargets; i++) {
    bnd_bitcode_id(&r->targets[i], entries[n].id, sizeof entries[n].id);
    entries[n].data = r->res[i].bitcode;
    entries[n++].size = r->res[i].bitcode_size;
  }
  r->bundle = bnd_build(entries, n, BND_ALIGN, &r->bundle_size);
  if (r->bundle && o->compress) {
    char err[512];
    size_t csize = 0;
    uint8_t *c = bnd_compress(r->bundle, r->bundle_size, o->compress, &csize, err, sizeof err);
    if (!c)
      lib_error(r, "%s", err);
    else if (r->verbose)
      fprintf(r->messages, "tosac: compressed the bundle (CCOB v%d) from %zu to %zu bytes\n",
              o->compress, r->bundle_size, csize);
    free(r->bundle);
    r->bundle = c;
    r->bundle_size = csize;
    if (!c)
      return false;
  }
  /* Every target's plan places the constants identically; the first one gives the file. */
  int64_t wbytes = r->plans[0]->weights_bytes;
  if (wbytes > 0)
    r->weights_path = o->weights ? strdup(o->weights) : lib_stem_with(r->bundle_path, ".weights", true);
  r->weights_rel = r->weights_path ? path_from_manifest(r->manifest_path, r->weights_path) : NULL;
  bnd_variant *variants = arena_alloc(r->a, sizeof *variants * (size_t)(r->nvariants + 1));
  bnd_manifest_entry *fns = arena_alloc(r->a, sizeof *fns * (size_t)(r->nentries + 1));
  for (int e = 0; e < r->nentries; e++)
    fns[e] = (bnd_manifest_entry){r->entry_names[e], r->entry_first[e], r->entry_units[e]};
  for (int v = 0; v < r->nvariants; v++)
    variants[v] = (bnd_variant){.g = r->vg[v], .plans = r->vplans[v], .kernel_base = r->kbase[v],
                                .buffer_base = r->bbase[v]};
  /* The manifest ties itself to the bytes tosac_result_write will write (bundle/digest.c). */
  if (r->bundle)
    bnd_digest(r->bundle, r->bundle_size, r->bundle_digest);
  bool wok = !r->weights_path || lib_weights_digest(r, r->weights_digest);
  r->mcg = (cg_options){.code_object_version = cgo->code_object_version, .embed_ir = cgo->embed_ir};
  r->mi = (bnd_manifest_input){
      .g = r->g, .source_path = r->input_path ? r->input_path : r->src.path,
      .bundle_path = r->bundle_path, .ntargets = r->ntargets, .targets = r->targets,
      .plans = r->plans, .results = r->res, .cg = &r->mcg, .weights_path = r->weights_rel,
      .weights_bytes = wbytes > 0 ? wbytes : 0, .variants = variants,
      .nvariants = r->nvariants > 1 || r->nentries > 1 ? r->nvariants : 0, .entries = fns,
      .nentries = r->nentries > 1 ? r->nentries : 0, .bundle_digest = r->bundle_digest,
      .weights_digest = r->weights_digest};
  bool mok = r->bundle && wok && bnd_manifest_valid(&r->mi);
  if (mok && o->emit == TOSAC_EMIT_HOST && !emit_host(r, o, &r->mi))
    return false;
  if (!mok) {
    lib_error(r, "cannot build the bundle and manifest");
    return false;
  }
  if (!lib_read_kernel_tables(r)) {
    lib_error(r, "internal error: cannot read the kernel tables back from the manifest");
    return false;
  }
  r->outputs_ready = true;
  return true;
}

/* The kernel-name head of each unit in the linked plan: NULL (part_link's tosac_v<u>_, the
 * variants of one entry) or, with several entries, tosac_e<e>_ and tosac_e<e>v<v>_. */
static const char **unit_heads(tosac_result *r) {
  if (r->nentries < 2)
    return NULL;
  const char **h = arena_alloc(r->a, sizeof(char *) * (size_t)r->nvariants);
  for (int e = 0; e < r->nentries; e++)
    for (int v = 0; v < r->entry_units[e]; v++)
      h[r->entry_first[e] + v] = v ? arena_printf(r->a, "tosac_e%dv%d_", e, v)
                                   : arena_printf(r->a, "tosac_e%d_", e);
  return h;
}

/* Work items (chunks of kernels, of every target) compile in parallel threads inside
 * cg_compile_targets; each target's diagnostics come back as text, kept in target order so
 * output does not depend on timing. */
static bool codegen_all(tosac_result *r, const tosac_options *o, const cg_options *cgo) {
  char *diag[LIB_MAX_TARGETS];
  bool progress = o->progress && isatty(fileno(o->messages));
  const partition_plan *linked[LIB_MAX_TARGETS]; /* one code object holds every variant */
  for (int i = 0; i < r->ntargets; i++) {
    partition_plan *pv[LIB_MAX_UNITS];
    int kb[LIB_MAX_UNITS], bb[LIB_MAX_UNITS];
    for (int v = 0; v < r->nvariants; v++)
      pv[v] = (partition_plan *)r->vplans[v][i];
    linked[i] = part_link(r->a, pv, r->nvariants, unit_heads(r), kb, bb);
    for (int v = 0; v < r->nvariants; v++)
      r->kbase[v][i] = kb[v], r->bbase[v][i] = bb[v];
  }
  graph shell = *r->g; /* codegen sizes its per-value tables by nvalues (regions, variants) */
  shell.nvalues = part_value_bound((const graph *const *)r->vg, r->nvariants);
  bool ok = cg_compile_targets(&shell, linked, r->ntargets, cgo, o->jobs, progress, r->res, diag);
  r->nres = r->ntargets;
  for (int i = 0; i < r->ntargets; i++) {
    if (diag[i])
      add_text_diagnostics(r, diag[i]);
    free(diag[i]);
    double ms = 0;
    for (int s = 0; s < CG_STAGE_COUNT; s++)
      ms += r->res[i].time_ms[s];
    lib_show_diagnostics(r);
    if (r->verbose && cgo->cache)
      fprintf(r->messages, "tosac: codegen %-19s %8.1f ms in %d work item%s, %d from the cache\n",
              r->targets[i].id, ms, r->res[i].work_items, r->res[i].work_items == 1 ? "" : "s",
              r->res[i].cache_hits);
    else if (r->verbose)
      fprintf(r->messages, "tosac: codegen %-19s %8.1f ms in %d work item%s\n", r->targets[i].id,
              ms, r->res[i].work_items, r->res[i].work_items == 1 ? "" : "s");
  }
  return ok;
}

static int unit_entry(const tosac_result *r, int u) {
  int e = 0;
  while (e + 1 < r->nentries && r->entry_first[e + 1] <= u)
    e++;
  return e;
}

static char *plans_text(const tosac_result *r, bool dot) {
  char *buf = NULL;
  size_t len = 0;
  FILE *f = open_memstream(&buf, &len);
  if (!f)
    return NULL;
  for (int v = 0; v < r->nvariants; v++)
    for (int i = 0; i < r->ntargets; i++) {
      int e = unit_entry(r, v), lv = v - r->entry_first[e];
      if (r->nentries > 1 && !dot && i == 0 && lv == 0)
        fprintf(f, "entry @%s\n", r->entry_names[e]);
      if (r->entry_units[e] > 1 && !dot)
        fprintf(f, "variant %d\n", lv);
      if (!dot && i == 0 && r->vreport[v] && r->vreport[v]->nlines)
        opt_print_report(f, r->vreport[v]);
      (dot ? part_print_dot : part_print)(f, r->vg[v], r->vplans[v][i]);
    }
  fclose(f);
  return buf;
}

/* The --tuning-db files in order (a later entry for the same target and key wins); NULL with
 * r->status set when one cannot be read or has a malformed line. */
static cg_tuning_db *load_tuning_db(tosac_result *r, const tosac_options *o, diag_sink *d) {
  cg_tuning_db *db = cg_tuning_db_new();
  if (!db) {
    lib_error(r, "out of memory");
    r->status = TOSAC_ERROR_INPUT;
    return NULL;
  }
  for (int i = 0; i < o->ntuning_db; i++) {
    char err[512];
    source_file src = {.path = o->tuning_db[i]};
    char *text = source_load(src.path, &src.len, &src.mapped, err, sizeof err);
    if (!text) {
      lib_error(r, "--tuning-db: %s", err);
      r->status = TOSAC_ERROR_IO;
      break;
    }
    src.text = text;
    if (!cg_tuning_db_add(db, &src, d))
      r->status = TOSAC_ERROR_INPUT;
    source_forget(&src);
    source_unload(text, src.len, src.mapped);
  }
  if (r->status != TOSAC_OK) {
    cg_tuning_db_free(db);
    return NULL;
  }
  return db;
}

static void compile_plans(tosac_result *r, const tosac_options *o, double *t0,
                          const cg_tuning_db *db);

static void compile_graph(tosac_result *r, const tosac_options *o, double *t0) {
  diag_sink d;
  diag_init(&d, r->diag_mem);
  d.record = record_diag, d.record_ctx = r;
  cg_tuning_db *db = o->ntuning_db ? load_tuning_db(r, o, &d) : NULL;
  if (o->ntuning_db && !db)
    return;
  compile_plans(r, o, t0, db);
  cg_tuning_set(NULL, NULL);
  cg_tuning_db_free(db);
}

/* Several entries share one weights file: entry e's constants follow entry e-1's (256-byte
 * aligned) in every plan of e; the plan returned lists them all for writing the file. */
static const partition_plan *entry_weights(tosac_result *r) {
  partition_plan *w = arena_alloc(r->a, sizeof *w);
  int n = 0;
  for (int e = 0; e < r->nentries; e++)
    n += r->vplans[r->entry_first[e]][0]->nbuffers;
  w->buffers = arena_alloc(r->a, sizeof(part_buffer) * (size_t)(n + 1));
  int64_t base = 0;
  for (int e = 0; e < r->nentries; e++) {
    int first = r->entry_first[e];
    const partition_plan *ref = r->vplans[first][0];
    for (int v = first; v < first + r->entry_units[e]; v++)
      for (int i = 0; i < r->ntargets; i++) {
        partition_plan *p = (partition_plan *)r->vplans[v][i];
        for (int b = 0; b < p->nbuffers; b++)
          if (p->buffers[b].kind == BUF_CONSTANT)
            p->buffers[b].offset += base;
      }
    for (int b = 0; b < ref->nbuffers; b++)
      if (ref->buffers[b].kind == BUF_CONSTANT)
        w->buffers[w->nbuffers++] = ref->buffers[b];
    base += ref->weights_bytes ? (ref->weights_bytes + 255) / 256 * 256 : 0;
  }
  for (int v = 0; v < r->nvariants; v++)
    for (int i = 0; i < r->ntargets; i++)
      ((partition_plan *)r->vplans[v][i])->weights_bytes = base;
  w->weights_bytes = base;
  return w;
}

static void compile_plans(tosac_result *r, const tosac_options *o, double *t0,
                          const cg_tuning_db *db) {
  part_set_init_mode(o->init == TOSAC_INIT_KERNEL ? PART_INIT_KERNEL : PART_INIT_MEMSET);
  part_set_workspace_expansions(!o->no_workspace_expansions);
  cg_tuning_set(o->perf_config, db); /* the split-K cost model sees the same tiles */
  /* variants and entries share one workspace in the host code: their zeroed regions would
   * overlap each other's intermediates, so only a single graph reduces in the last work-group */
  cg_tuning_allow_fixup(!o->no_zeroed_workspace && r->nvariants == 1);
  diag_sink d;
  diag_init(&d, r->diag_mem);
  d.record = record_diag, d.record_ctx = r;
  /* Past the frontend nothing looks a value up by its id (a region's list stays: partitioning
   * finds its captures by it); a million-op graph's list is 8 MB at the compile's peak. */
  for (int v = 0; v < r->nvariants; v++) {
    arena_release(r->vg[v]->arena, r->vg[v]->values);
    r->vg[v]->values = NULL;
  }
  for (int v = 0; v < r->nvariants; v++) /* an entry's variants share its first one's weights */
    for (int i = 0; i < r->ntargets; i++) {
      int first = r->entry_first[unit_entry(r, v)];
      partition_plan *p = part_plan(r->a, r->vg[v], &r->targets[i], &d);
      if (!p || d.errors || (v > first && !part_share_weights(p, r->vplans[first][i], &d))) {
        r->status = TOSAC_ERROR_INPUT;
        return;
      }
      r->vplans[v][i] = p;
    }
  memcpy(r->plans, r->vplans[0], sizeof r->plans);
  r->wplan = r->nentries > 1 ? entry_weights(r) : r->plans[0];
  stage_done(r, "partition", t0);
  if (o->emit == TOSAC_EMIT_PARTITIONS || o->emit == TOSAC_EMIT_DOT) {
    r->text_out = plans_text(r, o->emit == TOSAC_EMIT_DOT);
    if (!r->text_out)
      lib_error(r, "out of memory"), r->status = TOSAC_ERROR_INPUT;
    return;
  }
  cg_cache cache;
  char err[512];
  if (o->cache_dir && !cg_cache_open(&cache, o->cache_dir, o->cache_max_size, err, sizeof err)) {
    cg_cache_close(&cache);
    lib_error(r, "%s", err);
    r->status = TOSAC_ERROR_IO;
    return;
  }
  cg_options cgo = {.opt_level = o->opt_level, .code_object_version = o->code_object_version,
                    .embed_ir = o->embed_ir, .want_llvm_ir = o->emit == TOSAC_EMIT_LLVM,
                    .want_asm = o->emit == TOSAC_EMIT_ASM, .perf_config = o->perf_config,
                    .tuning_db = db,
                    .cache = o->cache_dir ? &cache : NULL};
  cg_init();
  r->codegen_ran = true;
  bool ok = codegen_all(r, o, &cgo);
  if (cgo.cache) {
    r->cache_on = true;
    r->cache_hits = cache.hits, r->cache_misses = cache.misses;
    cg_cache_finish(&cache);
    cg_cache_close(&cache);
  }
  stage_done(r, "codegen (all targets)", t0);
  if (!ok) {
    r->status = TOSAC_ERROR_INPUT;
  } else if (o->emit == TOSAC_EMIT_LLVM || o->emit == TOSAC_EMIT_ASM) {
    r->text_out = join_text(r, o->emit == TOSAC_EMIT_ASM);
  } else {
    if (!build_bundle(r, o, &cgo))
      r->status = TOSAC_ERROR_INPUT;
    stage_done(r, "bundle and manifest", t0);
  }
}

/* Every entry function (the one --entry names, else every public one), each once per
 * --specialize variant when it has '?' dimensions: r->vg and the entry tables. The first
 * entry's first graph, or NULL after diagnostics. */
static graph *parse_entries(tosac_result *r, const tosac_options *o, diag_sink *d) {
  fe_module *m = fe_open(r->a, &r->src, d);
  fe_options pick = {.entry = o->entry};
  r->nentries = m ? fe_entry_names(m, &pick, &r->entry_names) : 0;
  r->entry_first = arena_alloc(r->a, sizeof(int) * (size_t)(r->nentries + 1));
  r->entry_units = arena_alloc(r->a, sizeof(int) * (size_t)(r->nentries + 1));
  int nvar = o->nvariants ? o->nvariants : 1, limit = d->max_errors > 0 ? d->max_errors : 20;
  r->nvariants = 0;
  bool failed = false; /* an entry with errors: the others are still checked (--syntax-only) */
  for (int e = 0; e < r->nentries && d->errors < limit; e++) {
    r->entry_first[e] = r->nvariants;
    for (int v = 0; v < nvar; v++) { /* one parse per variant */
      fe_options fo = {.entry = r->entry_names[e], .specialize = o->nspec ? o->spec[v] : NULL,
                       .nspecialize = o->nspec, .specialize_if_dynamic = r->nentries > 1,
                       .profile = (fe_profile_mode)o->tosa_profile};
      int before = d->errors;
      graph *g = fe_parse_function(m, &fo);
      if (!g || d->errors != before) {
        failed = true;
        break;
      }
      if (r->nvariants == LIB_MAX_UNITS) {
        lib_error(r, "%s: too many functions and variants to compile at once (at most %d); "
                  "choose one with --entry NAME", r->src.path, LIB_MAX_UNITS);
        return NULL;
      }
      r->vg[r->nvariants++] = g;
      if (g->ndynamic == 0 && r->nentries > 1) /* a static entry: --specialize is not its */
        break;
    }
    r->entry_units[e] = r->nvariants - r->entry_first[e];
  }
  return r->nentries && !failed && !d->errors ? r->vg[0] : NULL;
}

/* The graph optimiser over every unit (docs/optimize.md); false after an error. */
static bool optimize_units(tosac_result *r, const tosac_options *o, diag_sink *d) {
  opt_options oo;
  opt_defaults(&oo, o->opt_level);
  for (int p = 0; p < OPT_NPASSES; p++)
    if (o->pass_set[p])
      oo.enabled[p] = o->pass_set[p] > 0;
  /* One graph: its constants' data is its own (variants and entry functions share the
   * frontend's decoded weights) */
  oo.release_dead_constants = r->nvariants == 1;
  for (int v = 0; v < r->nvariants; v++) {
    r->vreport[v] = arena_alloc(r->a, sizeof(opt_report));
    if (!opt_graph(r->vg[v], &oo, r->vreport[v], d))
      return false;
  }
  return true;
}

/* Without --offload-arch, a graph generated for one target (rocMLIR's rock.arch, as MIGraphX
 * writes it) is compiled for that target; one tosac does not know keeps the default targets. */
static void target_from_source(tosac_result *r, const char *arch, diag_sink *d) {
  target_request t;
  char err[512];
  if (!*arch) return;
  if (!target_parse(arch, &t, err, sizeof err)) {
    diag_warning(d, (src_loc){0}, "the entry function's rock.arch '%s' is not a target tosac compiles for (%s); "
                 "compiling for the default targets", arch, err);
    return;
  }
  r->ntargets = 1;
  r->targets[0] = t;
}

static bool load_source(tosac_result *r) {
  if (r->text) /* a buffer */
    return true;
  char err[512];
  r->text = source_load(r->input_path, &r->len, &r->mapped, err, sizeof err);
  if (!r->text) {
    lib_error(r, "%s", err);
    r->status = TOSAC_ERROR_IO;
    return false;
  }
  return true;
}

void lib_compile(tosac_result *r, const tosac_options *o) {
  double t0 = now_ms();
  r->emit = o->emit;
  r->verbose = o->verbose;
  r->messages = o->messages;
  r->write_depfile = o->write_depfile;
  r->depfile = o->depfile ? strdup(o->depfile) : NULL;
  r->dep_target = o->dep_target ? strdup(o->dep_target) : NULL;
  r->ntargets = o->ntargets;
  memcpy(r->targets, o->targets, sizeof(target_request) * (size_t)o->ntargets);
  const char *name = r->src.path;
  const char *in_name = r->input_path ? r->input_path : name;
  if (o->emit == TOSAC_EMIT_HOST) { /* -o names the C file; the bundle keeps its default name */
    size_t n = o->output ? strlen(o->output) : 0;
    if (o->output && (n < 3 || strcmp(o->output + n - 2, ".c") || o->output[n - 3] == '/')) {
      lib_error(r, "--emit=host writes a .c file and a .h file of the same stem: -o must name "
                "the .c file, not '%s'", o->output);
      r->status = TOSAC_ERROR_USAGE;
      lib_show_diagnostics(r);
      return;
    }
    r->host_c_path = o->output ? strdup(o->output) : lib_stem_with(in_name, "_host.c", false);
    r->host_h_path = lib_stem_with(r->host_c_path, ".h", true);
    r->bundle_path = lib_stem_with(in_name, ".hipfb", false);
  } else {
    r->bundle_path = o->output ? strdup(o->output) : lib_stem_with(in_name, ".hipfb", false);
  }
  r->manifest_path = o->manifest ? strdup(o->manifest) : lib_stem_with(r->bundle_path, ".json", true);
  if (!load_source(r)) {
    lib_show_diagnostics(r);
    return;
  }
  r->src.text = r->text, r->src.len = r->len, r->src.mapped = r->mapped;
  diag_sink d;
  diag_init(&d, r->diag_mem);
  d.record = record_diag, d.record_ctx = r;
  r->a = arena_new();
  if (!lib_check_variants(r, o)) {
    lib_show_diagnostics(r);
    return;
  }
  r->g = parse_entries(r, o, &d);
  if (r->g && r->g->arch && !o->targets_given)
    target_from_source(r, r->g->arch, &d);
  /* The text's pages are not needed after parsing (a diagnostic faults its line back in). */
  source_release(&r->src, r->src.text, r->src.text + r->src.len);
  stage_done(r, "parse and verify", &t0);
  if (r->g && !d.errors && !o->syntax_only) {
    if (!optimize_units(r, o, &d))
      r->status = TOSAC_ERROR_INPUT;
    stage_done(r, "optimise graph", &t0);
  }
  if (!r->g || d.errors || r->status != TOSAC_OK) {
    r->status = r->status != TOSAC_OK ? r->status : TOSAC_ERROR_INPUT;
  } else if (o->emit == TOSAC_EMIT_TOSA && !o->syntax_only) {
    size_t len = 0;
    FILE *f = open_memstream(&r->text_out, &len);
    for (int e = 0; f && e < r->nentries; e++) /* one module per entry function */
      fe_print_tosa(f, r->vg[r->entry_first[e]]);
    if (f)
      fclose(f);
  } else if (!o->syntax_only) {
    compile_graph(r, o, &t0);
  }
  if (r->status == TOSAC_OK && r->ndiags)
    for (int i = 0; i < r->ndiags; i++)
      if (!strcmp(r->diags[i].severity, "error"))
        r->status = TOSAC_ERROR_INPUT;
  lib_show_diagnostics(r);
}
