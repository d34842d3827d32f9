/* main.c: the tosac driver: options, then the stages in the order of DESIGN.md §1. */
#include "tosac.h"

#include <getopt.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define MAX_TARGETS 32

typedef enum emit_kind { EMIT_BUNDLE, EMIT_LLVM, EMIT_ASM, EMIT_PARTITIONS } emit_kind;

typedef struct options {
  const char *input;
  const char *output;
  const char *manifest;
  const char *entry;
  emit_kind emit;
  bool syntax_only, embed_ir, verbose;
  int opt_level, code_object_version;
  int ntargets;
  target_request targets[MAX_TARGETS];
} options;

static const char *usage_text =
    "usage: tosac [options] <input.mlir | ->\n"
    "\n"
    "Compiles a TOSA graph into an AMDGPU offload bundle and a JSON launch manifest.\n"
    "\n"
    "options:\n"
    "  -o FILE                  bundle to write (default: input stem + .hipfb)\n"
    "  --manifest FILE          manifest to write (default: bundle stem + .json)\n"
    "  --offload-arch=ID[,ID]   targets, repeatable; IDs like gfx90a or gfx90a:sramecc+:xnack-\n"
    "                           (default: every target --print-targets marks as default)\n"
    "  --emit=KIND              bundle (default), llvm, asm, partitions; llvm/asm/partitions\n"
    "                           print to -o FILE or standard output\n"
    "  --entry NAME             function to compile (default: the single public one)\n"
    "  --syntax-only            parse and verify only\n"
    "  --embed-ir               store each target's optimised kernel IR in the bundle (for\n"
    "                           tosac-run)\n"
    "  -O0 -O1 -O2 -O3          LLVM optimisation level (default -O3)\n"
    "  --code-object-version=N  4, 5 or 6 (default 5)\n"
    "  --print-targets          list the known targets and exit\n"
    "  -v                       print the stages and their timings\n"
    "  --version                print the version and exit\n"
    "  --help                   print this help and exit\n"
    "\n"
    "exit status: 0 success, 1 input or compile error, 2 usage error\n";

static int usage_error(const char *fmt, const char *arg) {
  fputs("tosac: error: ", stderr);
  fprintf(stderr, fmt, arg);
  fputs("\ntry 'tosac --help' for more information\n", stderr);
  return 2;
}

static double now_ms(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

static void stage_done(const options *o, const char *what, double *t0) {
  double t = now_ms();
  if (o->verbose)
    fprintf(stderr, "tosac: %-28s %8.1f ms\n", what, t - *t0);
  *t0 = t;
}

static int add_targets(options *o, const char *list) {
  char *copy = strdup(list);
  int rc = 0;
  for (char *save = NULL, *tok = strtok_r(copy, ",", &save); tok && !rc;
       tok = strtok_r(NULL, ",", &save)) {
    char err[512];
    target_request t;
    if (!target_parse(tok, &t, err, sizeof err)) {
      rc = usage_error("%s", err);
      break;
    }
    bool dup = false;
    for (int i = 0; i < o->ntargets; i++)
      dup |= strcmp(o->targets[i].id, t.id) == 0;
    if (dup)
      continue;
    if (o->ntargets == MAX_TARGETS) {
      rc = usage_error("too many targets (at most %s)", "32");
      break;
    }
    o->targets[o->ntargets++] = t;
  }
  if (!copy || (!rc && !*list))
    rc = usage_error("%s", "--offload-arch needs at least one target");
  free(copy);
  return rc;
}

static void print_targets(void) {
  printf("%-8s %-6s %-5s %-9s %-8s %s\n", "target", "family", "wave", "LDS", "matrix", "default");
  for (int i = 0; i < target_count; i++) {
    const target_info *t = &target_table[i];
    printf("%-8s %-6s %-5d %-9d %-8s %s\n", t->name, t->family, t->wave_size, t->lds_bytes,
           t->has_mfma ? "mfma" : t->has_wmma ? "wmma" : "none", t->default_target ? "yes" : "no");
  }
}

static int parse_options(int argc, char **argv, options *o) {
  enum { OPT_MANIFEST = 256, OPT_ARCH, OPT_EMIT, OPT_ENTRY, OPT_SYNTAX, OPT_EMBED, OPT_COV,
         OPT_PRINT_TARGETS, OPT_VERSION, OPT_HELP };
  static const struct option longopts[] = {
      {"manifest", required_argument, 0, OPT_MANIFEST},
      {"offload-arch", required_argument, 0, OPT_ARCH},
      {"emit", required_argument, 0, OPT_EMIT},
      {"entry", required_argument, 0, OPT_ENTRY},
      {"syntax-only", no_argument, 0, OPT_SYNTAX},
      {"embed-ir", no_argument, 0, OPT_EMBED},
      {"code-object-version", required_argument, 0, OPT_COV},
      {"print-targets", no_argument, 0, OPT_PRINT_TARGETS},
      {"version", no_argument, 0, OPT_VERSION},
      {"help", no_argument, 0, OPT_HELP},
      {0, 0, 0, 0}};
  *o = (options){.opt_level = 3, .code_object_version = 5};
  opterr = 0;
  int c, rc;
  while ((c = getopt_long(argc, argv, ":o:O:v", longopts, NULL)) != -1) {
    switch (c) {
    case 'o': o->output = optarg; break;
    case 'v': o->verbose = true; break;
    case 'O':
      if (strlen(optarg) != 1 || optarg[0] < '0' || optarg[0] > '3')
        return usage_error("invalid optimisation level '-O%s' (use -O0 to -O3)", optarg);
      o->opt_level = optarg[0] - '0';
      break;
    case OPT_MANIFEST: o->manifest = optarg; break;
    case OPT_ARCH:
      if ((rc = add_targets(o, optarg)))
        return rc;
      break;
    case OPT_EMIT:
      if (!strcmp(optarg, "bundle")) o->emit = EMIT_BUNDLE;
      else if (!strcmp(optarg, "llvm")) o->emit = EMIT_LLVM;
      else if (!strcmp(optarg, "asm")) o->emit = EMIT_ASM;
      else if (!strcmp(optarg, "partitions")) o->emit = EMIT_PARTITIONS;
      else
        return usage_error("unknown --emit kind '%s' (use bundle, llvm, asm or partitions)", optarg);
      break;
    case OPT_ENTRY: o->entry = optarg; break;
    case OPT_SYNTAX: o->syntax_only = true; break;
    case OPT_EMBED: o->embed_ir = true; break;
    case OPT_COV:
      if (strcmp(optarg, "4") && strcmp(optarg, "5") && strcmp(optarg, "6"))
        return usage_error("invalid code object version '%s' (use 4, 5 or 6)", optarg);
      o->code_object_version = optarg[0] - '0';
      break;
    case OPT_PRINT_TARGETS: print_targets(); exit(0);
    case OPT_VERSION: printf("tosac %s (LLVM 22)\n", TOSAC_VERSION); exit(0);
    case OPT_HELP: fputs(usage_text, stdout); exit(0);
    case ':': return usage_error("option '%s' needs a value", argv[optind - 1]);
    default: return usage_error("unknown option '%s'", argv[optind - 1]);
    }
  }
  if (optind == argc)
    return usage_error("%s", "no input file");
  if (optind + 1 < argc)
    return usage_error("only one input file may be given, got also '%s'", argv[optind + 1]);
  o->input = argv[optind];
  if (o->ntargets == 0)
    for (int i = 0; i < target_count; i++)
      if (target_table[i].default_target)
        add_targets(o, target_table[i].name);
  return 0;
}

/* "dir/model.mlir" -> "model" + ext; "-" -> "a" + ext. */
static char *stem_with(const char *path, const char *ext, bool keep_dir) {
  const char *base = keep_dir ? path : strrchr(path, '/');
  base = base ? (keep_dir ? base : base + 1) : path;
  if (!strcmp(path, "-"))
    base = "a";
  const char *slash = strrchr(base, '/');
  const char *dot = strrchr(slash ? slash : base, '.');
  size_t n = dot && dot != (slash ? slash + 1 : base) ? (size_t)(dot - base) : strlen(base);
  char *s = malloc(n + strlen(ext) + 1);
  memcpy(s, base, n);
  strcpy(s + n, ext);
  return s;
}

static bool write_text(const char *path, const char *text) {
  char err[512];
  if (!path) {
    fputs(text, stdout);
    return true;
  }
  if (!write_file_atomic(path, text, strlen(text), err, sizeof err)) {
    fprintf(stderr, "tosac: error: %s\n", err);
    return false;
  }
  return true;
}

/* Text outputs (--emit=llvm/asm) for several targets are concatenated with a header each. */
static char *join_text(const options *o, cg_result *res, bool want_asm) {
  size_t total = 1;
  for (int i = 0; i < o->ntargets; i++) {
    const char *t = want_asm ? res[i].asm_text : res[i].llvm_ir;
    total += (t ? strlen(t) : 0) + 128;
  }
  char *s = malloc(total), *p = s;
  *p = 0;
  for (int i = 0; i < o->ntargets; i++) {
    const char *t = want_asm ? res[i].asm_text : res[i].llvm_ir;
    if (o->ntargets > 1)
      p += sprintf(p, "%s target %s\n", want_asm ? ";" : ";", o->targets[i].id);
    p += sprintf(p, "%s", t ? t : "");
  }
  return s;
}

static int write_bundle(const options *o, const graph *g, const partition_plan **plans,
                        cg_result *res, const cg_options *cgo) {
  bnd_entry entries[1 + 2 * MAX_TARGETS];
  int n = 0;
  entries[n++] = (bnd_entry){.id = BND_HOST_ID, .data = NULL, .size = 0};
  for (int i = 0; i < o->ntargets; i++) {
    bnd_code_object_id(&o->targets[i], entries[n].id, sizeof entries[n].id);
    entries[n].data = res[i].code_object;
    entries[n++].size = res[i].code_size;
  }
  for (int i = 0; o->embed_ir && i < o->ntargets; i++) {
    bnd_bitcode_id(&o->targets[i], entries[n].id, sizeof entries[n].id);
    entries[n].data = res[i].bitcode;
    entries[n++].size = res[i].bitcode_size;
  }
  char *out = o->output ? strdup(o->output) : stem_with(o->input, ".hipfb", false);
  char *man = o->manifest ? strdup(o->manifest) : stem_with(out, ".json", true);
  size_t size = 0;
  uint8_t *bundle = bnd_build(entries, n, BND_ALIGN, &size);
  bnd_manifest_input mi = {.g = g, .source_path = o->input, .bundle_path = out,
                           .ntargets = o->ntargets, .targets = o->targets, .plans = plans,
                           .results = res, .cg = cgo};
  char *json = bundle ? bnd_manifest_json(&mi) : NULL;
  char err[512];
  int rc = 0;
  if (!bundle || !json) {
    fprintf(stderr, "tosac: error: cannot build the bundle and manifest\n");
    rc = 1;
  } else if (!write_file_atomic(out, bundle, size, err, sizeof err) ||
             !write_file_atomic(man, json, strlen(json), err, sizeof err)) {
    fprintf(stderr, "tosac: error: %s\n", err);
    rc = 1;
  } else if (o->verbose) {
    fprintf(stderr, "tosac: wrote %s (%zu bytes) and %s\n", out, size, man);
  }
  free(bundle);
  free(json);
  free(out);
  free(man);
  return rc;
}

static int compile(const options *o, const graph *g, arena *a, diag_sink *d, double *t0) {
  const partition_plan *plans[MAX_TARGETS];
  for (int i = 0; i < o->ntargets; i++) {
    plans[i] = part_plan(a, g, &o->targets[i], d);
    if (!plans[i])
      return 1;
  }
  stage_done(o, "partition", t0);
  if (o->emit == EMIT_PARTITIONS) {
    FILE *f = stdout;
    char *buf = NULL;
    size_t len = 0;
    if (o->output)
      f = open_memstream(&buf, &len);
    for (int i = 0; i < o->ntargets; i++)
      part_print(f, g, plans[i]);
    if (o->output) {
      fclose(f);
      bool ok = write_text(o->output, buf);
      free(buf);
      return ok ? 0 : 1;
    }
    return 0;
  }
  cg_options cgo = {.opt_level = o->opt_level, .code_object_version = o->code_object_version,
                    .embed_ir = o->embed_ir, .want_llvm_ir = o->emit == EMIT_LLVM,
                    .want_asm = o->emit == EMIT_ASM};
  cg_result res[MAX_TARGETS] = {0};
  int rc = 0;
  cg_init();
  for (int i = 0; i < o->ntargets && !rc; i++) {
    if (!cg_compile(g, plans[i], &cgo, &res[i], d))
      rc = 1;
    if (o->verbose && !rc) {
      char what[96];
      snprintf(what, sizeof what, "codegen %s", o->targets[i].id);
      stage_done(o, what, t0);
    }
  }
  if (!rc && (o->emit == EMIT_LLVM || o->emit == EMIT_ASM)) {
    char *text = join_text(o, res, o->emit == EMIT_ASM);
    rc = write_text(o->output, text) ? 0 : 1;
    free(text);
  } else if (!rc) {
    rc = write_bundle(o, g, plans, res, &cgo);
    stage_done(o, "bundle and manifest", t0);
  }
  for (int i = 0; i < o->ntargets; i++)
    cg_result_free(&res[i]);
  return rc;
}

int main(int argc, char **argv) {
  options o;
  int rc = parse_options(argc, argv, &o);
  if (rc)
    return rc;
  double t0 = now_ms();
  char err[512];
  size_t len = 0;
  char *text = read_file(o.input, &len, err, sizeof err);
  if (!text) {
    fprintf(stderr, "tosac: error: %s\n", err);
    return 1;
  }
  source_file src = {.path = strcmp(o.input, "-") ? o.input : "<stdin>", .text = text, .len = len};
  diag_sink d;
  diag_init(&d, stderr);
  arena *a = arena_new();
  fe_options fo = {.entry = o.entry};
  graph *g = fe_parse(a, &src, &fo, &d);
  stage_done(&o, "parse and verify", &t0);
  if (!g || d.errors)
    rc = 1;
  else if (!o.syntax_only)
    rc = compile(&o, g, a, &d, &t0);
  if (!rc && d.errors)
    rc = 1;
  arena_free(a);
  free(text);
  return rc;
}
