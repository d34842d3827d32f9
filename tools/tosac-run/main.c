/* main.c: tosac-run's command line and top level: bundle + manifest + inputs in, results printed,
 * written or checked like iree-run-module does. */
#include "run.h"
#include "emu/emu.h"

#include <getopt.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

enum { EXIT_RUN = 1, EXIT_USAGE = 2 };

typedef struct options {
  const char *bundle, *manifest, *target, *function;
  const char **inputs, **outputs, **expected;
  int ninputs, noutputs, nexpected;
  run_tolerance tol;
  int64_t print_max;
  bool verbose;
  bool machine_code; /* --exec=isa (the default) */
} options;

static const char usage_text[] =
    "usage: tosac-run MODEL.hipfb [--manifest FILE] --target=ID [--input=VALUE]...\n"
    "                 [--output=SPEC]... [--expected_output=VALUE]... [options]\n"
    "Runs a tosac bundle's launch graph on the CPU: its code objects' machine code, or the\n"
    "kernel IR embedded with tosac --embed-ir (--exec=ir).\n"
    "  --manifest FILE              launch manifest (default: MODEL with extension .json)\n"
    "  --target=ID                  manifest target by target ID or processor (gfx90a, ...);\n"
    "                               optional when the manifest has a single target\n"
    "  --entry NAME, --function=NAME entry function of a module compiled with several public\n"
    "                               functions (default: the only one)\n"
    "  --input=VALUE                one per graph input, in order: 2x3xf32=1 2 3 4 5 6,\n"
    "                               2x3xi32=[1 2 3][4 5 6], 2xi32 (zeros), @x.npy, *all.npy,\n"
    "                               2x4xi32=@x.bin, 2x4xi32=+x.bin, @inputs.txt\n"
    "  --output=SPEC                one per result: @y.npy, +y.npy (append), @y.bin, - (print),\n"
    "                               empty (skip); results are printed when no --output is given\n"
    "  --expected_output=VALUE      one per result, same syntax as --input, or (ignored)\n"
    "  --expected_f32_threshold=X   absolute tolerance for f32 results (also f16, bf16, f64)\n"
    "  --atol=X, --rtol=X           |got - expected| <= atol + rtol * |expected| for all floats\n"
    "  --print_max_element_count=N  elements printed per result (default 1024)\n"
    "  --exec=isa|ir                isa (default, or env TOSAC_EXEC): execute the code object's\n"
    "                               machine code; ir: JIT the embedded kernel IR (faster)\n"
    "  -v                           report each launch and its time on stderr\n"
    "  --help, --version\n";

__attribute__((format(printf, 1, 2))) static void error(const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  fputs("tosac-run: error: ", stderr);
  vfprintf(stderr, fmt, ap);
  fputc('\n', stderr);
  va_end(ap);
}

static void push_arg(const char ***list, int *n, const char *s) {
  *list = realloc(*list, (size_t)(*n + 1) * sizeof(**list));
  (*list)[(*n)++] = s;
}

static bool parse_double(const char *s, double *out) {
  char *end;
  *out = strtod(s, &end);
  return end != s && !*end && *out >= 0 && !isnan(*out);
}

enum {
  OPT_MANIFEST = 256, OPT_TARGET, OPT_INPUT, OPT_OUTPUT, OPT_EXPECTED, OPT_F32_THRESHOLD,
  OPT_F16_THRESHOLD, OPT_BF16_THRESHOLD, OPT_F64_THRESHOLD, OPT_ATOL, OPT_RTOL, OPT_PRINT_MAX,
  OPT_MODULE, OPT_FUNCTION, OPT_DEVICE, OPT_HELP, OPT_VERSION, OPT_EXEC
};

/* 0 on success, else the exit status. */
static int parse_options(int argc, char **argv, options *o) {
  static const struct option longopts[] = {
      {"manifest", required_argument, 0, OPT_MANIFEST},
      {"target", required_argument, 0, OPT_TARGET},
      {"input", required_argument, 0, OPT_INPUT},
      {"output", required_argument, 0, OPT_OUTPUT},
      {"expected_output", required_argument, 0, OPT_EXPECTED},
      {"expected_f32_threshold", required_argument, 0, OPT_F32_THRESHOLD},
      {"expected_f16_threshold", required_argument, 0, OPT_F16_THRESHOLD},
      {"expected_bf16_threshold", required_argument, 0, OPT_BF16_THRESHOLD},
      {"expected_f64_threshold", required_argument, 0, OPT_F64_THRESHOLD},
      {"atol", required_argument, 0, OPT_ATOL},
      {"rtol", required_argument, 0, OPT_RTOL},
      {"print_max_element_count", required_argument, 0, OPT_PRINT_MAX},
      {"module", required_argument, 0, OPT_MODULE},     /* iree-run-module spelling */
      {"function", required_argument, 0, OPT_FUNCTION}, /* the entry (iree-run-module) */
      {"entry", required_argument, 0, OPT_FUNCTION},
      {"device", required_argument, 0, OPT_DEVICE},     /* accepted and ignored */
      {"exec", required_argument, 0, OPT_EXEC},
      {"help", no_argument, 0, OPT_HELP},
      {"version", no_argument, 0, OPT_VERSION},
      {0, 0, 0, 0},
  };
  run_tolerance_defaults(&o->tol);
  o->print_max = 1024;
  /* machine code unless TOSAC_EXEC=ir (make check-ir runs the suites so) or --exec=ir */
  const char *env_exec = getenv("TOSAC_EXEC");
  o->machine_code = !env_exec || strcmp(env_exec, "ir") != 0;
  int c;
  double x;
  opterr = 0; /* our own messages, in the tosac-run: error: form */
  while ((c = getopt_long(argc, argv, ":vh", longopts, NULL)) != -1) {
    elem_type th = ET_INVALID;
    switch (c) {
    case OPT_MANIFEST: o->manifest = optarg; break;
    case OPT_TARGET: o->target = optarg; break;
    case OPT_INPUT: push_arg(&o->inputs, &o->ninputs, optarg); break;
    case OPT_OUTPUT: push_arg(&o->outputs, &o->noutputs, optarg); break;
    case OPT_EXPECTED: push_arg(&o->expected, &o->nexpected, optarg); break;
    case OPT_MODULE: o->bundle = optarg; break;
    case OPT_FUNCTION: o->function = optarg; break;
    case OPT_DEVICE: break;
    case OPT_EXEC:
      if (strcmp(optarg, "ir") && strcmp(optarg, "isa")) {
        error("--exec: '%s' is not ir or isa", optarg);
        return EXIT_USAGE;
      }
      o->machine_code = !strcmp(optarg, "isa");
      break;
    case OPT_F32_THRESHOLD: th = ET_F32; break;
    case OPT_F16_THRESHOLD: th = ET_F16; break;
    case OPT_BF16_THRESHOLD: th = ET_BF16; break;
    case OPT_F64_THRESHOLD: th = ET_F64; break;
    case OPT_ATOL:
    case OPT_RTOL:
      if (!parse_double(optarg, &x)) {
        error("%s: '%s' is not a non-negative number", c == OPT_ATOL ? "--atol" : "--rtol", optarg);
        return EXIT_USAGE;
      }
      for (int t = 0; t < ET_COUNT; t++)
        (c == OPT_ATOL ? o->tol.atol : o->tol.rtol)[t] = x;
      break;
    case OPT_PRINT_MAX: {
      char *end;
      o->print_max = strtoll(optarg, &end, 10);
      if (end == optarg || *end || o->print_max < 0) {
        error("--print_max_element_count: '%s' is not a count", optarg);
        return EXIT_USAGE;
      }
      break;
    }
    case 'v': o->verbose = true; break;
    case 'h':
    case OPT_HELP: fputs(usage_text, stdout); exit(0);
    case OPT_VERSION: printf("tosac-run %s\n", TOSAC_VERSION); exit(0);
    case ':':
      error("option '%s' needs a value (see tosac-run --help)", argv[optind - 1]);
      return EXIT_USAGE;
    default:
      error("unknown option '%s' (see tosac-run --help)", argv[optind - 1]);
      return EXIT_USAGE;
    }
    if (th != ET_INVALID) { /* iree's thresholds are absolute */
      if (!parse_double(optarg, &x)) {
        error("--expected_%s_threshold: '%s' is not a non-negative number", elem_type_name(th),
              optarg);
        return EXIT_USAGE;
      }
      o->tol.atol[th] = x;
      o->tol.rtol[th] = 0;
    }
  }
  if (optind < argc && !o->bundle)
    o->bundle = argv[optind++];
  if (optind < argc) {
    error("unexpected argument '%s'", argv[optind]);
    return EXIT_USAGE;
  }
  if (!o->bundle) {
    error("no bundle given (see tosac-run --help)");
    return EXIT_USAGE;
  }
  return 0;
}

/* model.hipfb -> model.json (the extension of the last path component only). */
static char *default_manifest(const char *bundle) {
  size_t n = strlen(bundle);
  char *s = malloc(n + 6);
  memcpy(s, bundle, n + 1);
  char *slash = strrchr(s, '/'), *dot = strrchr(s, '.');
  if (dot && (!slash || dot > slash + 1))
    *dot = 0;
  strcat(s, ".json");
  return s;
}

/* Parse a list of specs against the manifest's types; expected outputs may say "(ignored)". */
static bool parse_values(const char *what, const char **specs, int n, const tensor_type *types,
                         int ntypes, bool allow_ignored, run_value_list *out) {
  run_file_cursor cur = {0};
  char err[512];
  bool ok = true;
  for (int i = 0; ok && i < n; i++) {
    if (allow_ignored && strcmp(specs[i], "(ignored)") == 0) {
      run_value_list_push(out, (run_value){0});
      continue;
    }
    int before = out->count;
    ok = run_parse_value(specs[i], types, ntypes, out, &cur, err, sizeof(err));
    if (!ok)
      error("%s %d: %s", what, before, err);
  }
  run_cursor_free(&cur);
  return ok;
}

static bool check_inputs(const run_manifest *m, const run_value_list *in) {
  if (in->count != m->ninputs) {
    error("%s takes %d input%s, got %d", m->entry, m->ninputs, m->ninputs == 1 ? "" : "s",
          in->count);
    return false;
  }
  for (int i = 0; i < in->count; i++) {
    if (!tensor_type_equal(&in->items[i].type, &m->inputs[i])) {
      char e[160], g[160];
      error("input %d: expected %s, got %s", i, run_shape_type_str(&m->inputs[i], e, sizeof(e)),
            run_shape_type_str(&in->items[i].type, g, sizeof(g)));
      return false;
    }
  }
  return true;
}

static const bnd_entry *find_entry(const bnd_entry *es, int n, const char *id) {
  for (int i = 0; id[0] && i < n; i++)
    if (strcmp(es[i].id, id) == 0)
      return &es[i];
  return NULL;
}

static const run_target *select_target(const run_manifest *m, const char *name,
                                       const char *manifest_path) {
  if (!name && m->ntargets == 1)
    return &m->targets[0];
  const run_target *t = name ? run_manifest_find_target(m, name) : NULL;
  if (t)
    return t;
  char list[1024] = "";
  size_t n = 0;
  for (int i = 0; i < m->ntargets && n < sizeof(list); i++)
    n += (size_t)snprintf(list + n, sizeof(list) - n, "%s%s", i ? ", " : "",
                          m->targets[i].target_id);
  if (name)
    error("%s has no target '%s'; available: %s", manifest_path, name, list);
  else
    error("%s has several targets; choose one with --target (available: %s)", manifest_path,
          list);
  return NULL;
}

/* Write/print the results and compare them with the expected values. Exit status. */
static int report(const options *o, const run_value_list *results,
                  const run_value_list *expected) {
  char err[512];
  for (int i = 0; i < results->count; i++) {
    /* Without --output, results are printed unless they are being checked (like iree). */
    const char *spec = i < o->noutputs ? o->outputs[i] : o->nexpected || o->noutputs ? "" : "-";
    if (!run_write_output(spec, i, &results->items[i], o->print_max, err, sizeof(err))) {
      error("result %d: %s", i, err);
      return EXIT_RUN;
    }
  }
  if (!o->nexpected)
    return 0;
  bool all = true;
  for (int i = 0; i < results->count; i++)
    if (expected->items[i].type.elem != ET_INVALID)
      all &= run_compare(i, &results->items[i], &expected->items[i], &o->tol, stdout);
  if (all)
    printf("[SUCCESS] all function outputs matched their expected values.\n");
  return all ? 0 : EXIT_RUN;
}

/* The weights file named by the manifest, relative to the manifest's directory. */
static bool load_weights(run_manifest *m, const char *manifest_path, char **data) {
  if (!m->weights_file[0])
    return true;
  const char *slash = strrchr(manifest_path, '/');
  size_t dirlen = m->weights_file[0] == '/' || !slash ? 0 : (size_t)(slash - manifest_path + 1);
  size_t n = dirlen + strlen(m->weights_file) + 1;
  char *path = malloc(n), err[1024];
  snprintf(path, n, "%.*s%s", (int)dirlen, manifest_path, m->weights_file);
  size_t size = 0;
  *data = read_file(path, &size, err, sizeof(err));
  bool ok = *data != NULL;
  if (!ok)
    error("%s (the weights file the manifest names)", err);
  else if (!(ok = run_weights_check(m, (const uint8_t *)*data, size, path, err, sizeof err)))
    error("%s (manifest %s)", err, manifest_path);
  m->weights = (const uint8_t *)*data;
  free(path);
  return ok;
}

static int run(const options *o) {
  char err[1024];
  int status = EXIT_RUN;
  size_t bundle_size = 0, manifest_size = 0;
  char *manifest_path = o->manifest ? strdup(o->manifest) : default_manifest(o->bundle);
  char *bundle = read_file(o->bundle, &bundle_size, err, sizeof(err));
  char *manifest_text = NULL;
  bnd_entry *entries = NULL;
  int nentries = 0;
  run_manifest m = {0};
  char *weights = NULL;
  run_value_list inputs = {0}, expected = {0}, results = {0};
  if (!bundle) {
    error("%s", err);
    goto done;
  }
  if (!bnd_parse((const uint8_t *)bundle, bundle_size, &entries, &nentries, err, sizeof(err))) {
    error("%s: %s", o->bundle, err);
    goto done;
  }
  if (!(manifest_text = read_file(manifest_path, &manifest_size, err, sizeof(err)))) {
    error("%s (the manifest tosac wrote next to the bundle; pass --manifest FILE)", err);
    goto done;
  }
  if (!run_manifest_parse_entry(manifest_text, o->function, &m, err, sizeof(err))) {
    error("%s: %s", manifest_path, err);
    goto done;
  }
  if (!bnd_digest_check(m.bundle_digest, bundle, bundle_size, o->bundle, err, sizeof err)) {
    error("%s (manifest %s)", err, manifest_path);
    goto done;
  }
  /* The inputs' shapes choose the variant (tosac --specialize) before the target is chosen. */
  if (!parse_values("input", o->inputs, o->ninputs, m.inputs, m.ninputs, false, &inputs))
    goto done;
  tensor_type *shapes = calloc((size_t)inputs.count + 1, sizeof *shapes);
  for (int i = 0; i < inputs.count; i++)
    shapes[i] = inputs.items[i].type;
  bool picked = inputs.count != m.ninputs || run_manifest_pick(&m, shapes, inputs.count, err, sizeof(err));
  free(shapes);
  if (!picked) {
    error("%s", err);
    goto done;
  }
  if (o->verbose && m.nvariants)
    fprintf(stderr, "tosac-run: variant %d of %d\n", m.variant, m.nvariants);
  const run_target *t = select_target(&m, o->target, manifest_path);
  if (!t || !load_weights(&m, manifest_path, &weights))
    goto done;
  const bnd_entry *code = find_entry(entries, nentries, t->bundle_entry_id);
  if (!code && o->verbose)
    fprintf(stderr, "tosac-run: note: %s has no code object %s\n", o->bundle,
            t->bundle_entry_id);
  const bnd_entry *ir = o->machine_code ? code : find_entry(entries, nentries, t->ir_entry_id);
  if (!ir && o->machine_code && t->nkernels) {
    error("%s has no code object %s", o->bundle, t->bundle_entry_id);
    goto done;
  }
  if (!ir && !o->machine_code) {
    error("bundle has no embedded IR for %s, which --exec=ir runs; compile with --embed-ir or run "
          "the machine code (--exec=isa, the default)",
          o->target ? o->target : t->processor);
    goto done;
  }
  if (!check_inputs(&m, &inputs))
    goto done;
  if (o->nexpected) {
    if (!parse_values("expected output", o->expected, o->nexpected, m.outputs, m.noutputs, true,
                      &expected))
      goto done;
    if (expected.count != m.noutputs) {
      error("%s returns %d result%s, got %d expected outputs", m.entry, m.noutputs,
            m.noutputs == 1 ? "" : "s", expected.count);
      goto done;
    }
  }
  if (o->noutputs > m.noutputs) {
    error("%d --output given, %s returns %d result%s", o->noutputs, m.entry, m.noutputs,
          m.noutputs == 1 ? "" : "s");
    goto done;
  }
  if (o->verbose)
    fprintf(stderr, "tosac-run: %s on %s: %d kernel%s, %d launch%s, workspace %lld bytes\n",
            m.entry, t->target_id, t->nkernels, t->nkernels == 1 ? "" : "s", t->nlaunches,
            t->nlaunches == 1 ? "" : "es", (long long)t->workspace_bytes);
  if (!run_execute(&m, t, ir ? ir->data : NULL, ir ? ir->size : 0, o->machine_code, &inputs,
                   &results, o->verbose, err, sizeof(err))) {
    error("%s", err);
    goto done;
  }
  status = report(o, &results, &expected);
done:
  run_value_list_free(&inputs);
  run_value_list_free(&expected);
  run_value_list_free(&results);
  run_manifest_free(&m);
  free(weights);
  free(entries);
  free(manifest_text);
  free(bundle);
  free(manifest_path);
  return status;
}

int main(int argc, char **argv) {
  options o = {0};
  int status = parse_options(argc, argv, &o);
  if (status == 0)
    status = run(&o);
  free(o.inputs);
  free(o.outputs);
  free(o.expected);
  return status;
}
