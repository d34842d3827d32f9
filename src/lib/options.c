/* options.c: libtosac's options object (include/tosac/tosac.h). Every setter validates its
 * value and leaves a message for tosac_options_error when it refuses one. */
#include "lib.h"

#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static int default_jobs(void) {
  long n = sysconf(_SC_NPROCESSORS_ONLN);
  return n < 1 ? 1 : n > 64 ? 64 : (int)n;
}

static tosac_status refuse(tosac_options *o, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static tosac_status refuse(tosac_options *o, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(o->error, sizeof o->error, fmt, ap);
  va_end(ap);
  return TOSAC_ERROR_USAGE;
}

static tosac_status accept(tosac_options *o) {
  o->error[0] = 0;
  return TOSAC_OK;
}

/* Replace *slot by a copy of s (NULL stays NULL). */
static tosac_status set_string(tosac_options *o, char **slot, const char *s) {
  char *copy = s ? strdup(s) : NULL;
  if (s && !copy)
    return refuse(o, "out of memory");
  free(*slot);
  *slot = copy;
  return accept(o);
}

tosac_options *tosac_options_create(void) {
  tosac_options *o = calloc(1, sizeof *o);
  if (!o)
    return NULL;
  o->opt_level = 3;
  o->code_object_version = 5;
  o->jobs = default_jobs();
  o->host_streams = 1;
  for (int i = 0; i < target_count; i++) {
    char err[256];
    if (target_table[i].default_target && o->ntargets < LIB_MAX_TARGETS &&
        target_parse(target_table[i].name, &o->targets[o->ntargets], err, sizeof err))
      o->ntargets++;
  }
  return o;
}

void tosac_options_dispose(tosac_options *o) {
  if (!o)
    return;
  free(o->entry);
  free(o->perf_config);
  free(o->output);
  free(o->manifest);
  free(o->weights);
  free(o->depfile);
  free(o->dep_target);
  free(o->cache_dir);
  for (int i = 0; i < o->ntuning_db; i++)
    free(o->tuning_db[i]);
  free(o->tuning_db);
  for (int s = 0; s < o->nspec; s++)
    free((char *)o->spec[0][s].arg);
  free(o->host_prefix);
  free(o);
}

const char *tosac_options_error(const tosac_options *o) { return o ? o->error : "no options"; }

tosac_status tosac_options_add_targets(tosac_options *o, const char *ids) {
  if (!ids || !*ids)
    return refuse(o, "--offload-arch needs at least one target");
  target_request parsed[LIB_MAX_TARGETS];
  int n = o->targets_given ? o->ntargets : 0;
  memcpy(parsed, o->targets, sizeof(target_request) * (size_t)n);
  char *copy = strdup(ids);
  if (!copy)
    return refuse(o, "out of memory");
  for (char *save = NULL, *tok = strtok_r(copy, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
    target_request t;
    char err[512];
    if (!target_parse(tok, &t, err, sizeof err)) {
      free(copy);
      return refuse(o, "%s", err);
    }
    bool dup = false;
    for (int i = 0; i < n; i++)
      dup |= strcmp(parsed[i].id, t.id) == 0;
    if (dup)
      continue;
    if (n == LIB_MAX_TARGETS) {
      free(copy);
      return refuse(o, "too many targets (at most %d)", LIB_MAX_TARGETS);
    }
    parsed[n++] = t;
  }
  free(copy);
  if (n == 0)
    return refuse(o, "--offload-arch needs at least one target");
  memcpy(o->targets, parsed, sizeof(target_request) * (size_t)n);
  o->ntargets = n;
  o->targets_given = true;
  return accept(o);
}

tosac_status tosac_options_set_opt_level(tosac_options *o, int level) {
  if (level < 0 || level > 3)
    return refuse(o, "invalid optimisation level '-O%d' (use -O0 to -O3)", level);
  o->opt_level = level;
  return accept(o);
}

tosac_status tosac_options_set_pass(tosac_options *o, const char *pass, int enabled) {
  int p = pass ? opt_pass_lookup(pass) : -1;
  if (p < 0)
    return refuse(o, "unknown optimisation pass '%s' (use fold-constants, fold-batchnorm, "
                     "propagate-layout or cleanup)", pass ? pass : "(null)");
  o->pass_set[p] = enabled ? 1 : -1;
  return accept(o);
}

tosac_status tosac_options_set_tosa_profile_check(tosac_options *o, int mode) {
  if (mode < FE_PROFILE_ACCEPT || mode > FE_PROFILE_STRICT)
    return refuse(o, "invalid TOSA profile check %d (use 0 accept, 1 warn, 2 strict)", mode);
  o->tosa_profile = mode;
  return accept(o);
}

tosac_status tosac_options_set_code_object_version(tosac_options *o, int v) {
  if (v < 4 || v > 6)
    return refuse(o, "invalid code object version '%d' (use 4, 5 or 6)", v);
  o->code_object_version = v;
  return accept(o);
}

tosac_status tosac_options_set_init_mode(tosac_options *o, tosac_init_mode m) {
  if (m != TOSAC_INIT_MEMSET && m != TOSAC_INIT_KERNEL)
    return refuse(o, "unknown init mode %d (use memset or kernel)", (int)m);
  o->init = m;
  return accept(o);
}

tosac_status tosac_options_set_workspace_expansions(tosac_options *o, int on) {
  if (on != 0 && on != 1)
    return refuse(o, "invalid workspace expansions setting '%d' (use 0 or 1)", on);
  o->no_workspace_expansions = !on;
  return accept(o);
}

tosac_status tosac_options_set_zeroed_workspace(tosac_options *o, int available) {
  if (available != 0 && available != 1)
    return refuse(o, "invalid zeroed workspace setting '%d' (use 0 or 1)", available);
  o->no_zeroed_workspace = !available;
  return accept(o);
}

tosac_status tosac_options_set_perf_config(tosac_options *o, const char *config) {
  return set_string(o, &o->perf_config, config && *config ? config : NULL);
}

tosac_status tosac_options_add_tuning_db(tosac_options *o, const char *path) {
  if (!path) { /* forget the files given so far */
    for (int i = 0; i < o->ntuning_db; i++)
      free(o->tuning_db[i]);
    o->ntuning_db = 0;
    return accept(o);
  }
  if (!*path)
    return refuse(o, "--tuning-db needs a file");
  char **grown = realloc(o->tuning_db, sizeof *grown * (size_t)(o->ntuning_db + 1));
  char *copy = strdup(path);
  if (!grown || !copy) {
    free(copy);
    if (grown)
      o->tuning_db = grown;
    return refuse(o, "out of memory");
  }
  o->tuning_db = grown;
  o->tuning_db[o->ntuning_db++] = copy;
  return accept(o);
}

tosac_status tosac_options_set_jobs(tosac_options *o, int jobs) {
  if (jobs < 1 || jobs > 256)
    return refuse(o, "invalid job count '-j %d' (use 1 to 256)", jobs);
  o->jobs = jobs;
  return accept(o);
}

tosac_status tosac_options_set_emit(tosac_options *o, tosac_emit what) {
  if ((unsigned)what > TOSAC_EMIT_HOST)
    return refuse(o, "unknown emit kind %d", (int)what);
  o->emit = what;
  return accept(o);
}

tosac_status tosac_options_set_host_prefix(tosac_options *o, const char *prefix) {
  if (prefix && !bnd_host_prefix_valid(prefix))
    return refuse(o, "invalid --prefix '%s' (a C identifier of at most 40 characters)", prefix);
  return set_string(o, &o->host_prefix, prefix);
}

tosac_status tosac_options_set_host_streams(tosac_options *o, int streams) {
  if (streams < 1 || streams > 16)
    return refuse(o, "invalid --host-streams '%d' (use 1 to 16)", streams);
  o->host_streams = streams;
  return accept(o);
}

tosac_status tosac_options_set_entry(tosac_options *o, const char *function) {
  return set_string(o, &o->entry, function);
}

tosac_status tosac_options_set_syntax_only(tosac_options *o, int on) {
  o->syntax_only = on != 0;
  return accept(o);
}

tosac_status tosac_options_set_embed_ir(tosac_options *o, int on) {
  o->embed_ir = on != 0;
  return accept(o);
}

tosac_status tosac_options_set_compress(tosac_options *o, int version) {
  if (version != 0 && version != 2 && version != 3)
    return refuse(o, "invalid --compress version '%d' (use v2 or v3)", version);
  o->compress = version;
  return accept(o);
}

tosac_status tosac_options_set_output(tosac_options *o, const char *bundle_path) {
  return set_string(o, &o->output, bundle_path);
}

tosac_status tosac_options_set_manifest_path(tosac_options *o, const char *path) {
  return set_string(o, &o->manifest, path);
}

tosac_status tosac_options_set_weights_path(tosac_options *o, const char *path) {
  return set_string(o, &o->weights, path);
}

tosac_status tosac_options_set_depfile(tosac_options *o, int on, const char *path,
                                       const char *target) {
  tosac_status s = set_string(o, &o->depfile, path);
  if (s == TOSAC_OK)
    s = set_string(o, &o->dep_target, target);
  o->write_depfile = on != 0;
  return s;
}

tosac_status tosac_options_set_cache_dir(tosac_options *o, const char *dir) {
  return set_string(o, &o->cache_dir, dir && *dir ? dir : NULL);
}

tosac_status tosac_options_set_cache_max_size(tosac_options *o, uint64_t bytes) {
  o->cache_max_size = bytes;
  return accept(o);
}

tosac_status tosac_options_set_message_stream(tosac_options *o, FILE *stream, int verbose,
                                              int progress) {
  o->messages = stream;
  o->verbose = stream && verbose;
  o->progress = stream && progress;
  return accept(o);
}

const char *tosac_version(void) { return TOSAC_VERSION; }

static char targets_text[4096];
static pthread_once_t targets_once = PTHREAD_ONCE_INIT;

static void fill_targets_text(void) {
  size_t n = 0, cap = sizeof targets_text;
  n += (size_t)snprintf(targets_text + n, cap - n, "%-8s %-6s %-5s %-9s %-8s %s\n", "target",
                        "family", "wave", "LDS", "matrix", "default");
  for (int i = 0; i < target_count && n < cap; i++) {
    const target_info *t = &target_table[i];
    n += (size_t)snprintf(targets_text + n, cap - n, "%-8s %-6s %-5d %-9d %-8s %s\n", t->name,
                          t->family, t->wave_size, t->lds_bytes,
                          t->has_mfma ? "mfma" : t->has_wmma ? "wmma" : "none",
                          t->default_target ? "yes" : "no");
  }
}

const char *tosac_targets_table(void) {
  pthread_once(&targets_once, fill_targets_text);
  return targets_text;
}
