/* main.c: the tosac driver, a thin client of libtosac (include/tosac/tosac.h): options into
 * the options object, one compile, the diagnostics and outputs written, the exit status. */
#include "tosac/tosac.h"

#include <getopt.h>
#include <malloc.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

static const char *usage_text =
    "usage: tosac [options] <input.mlir | ->\n"
    "\n"
    "Compiles a TOSA graph into an AMDGPU offload bundle and a JSON launch manifest.\n"
    "\n"
    "options:\n"
    "  -o FILE                  bundle to write (default: input stem + .hipfb)\n"
    "  --manifest FILE          manifest to write (default: bundle stem + .json)\n"
    "  --weights FILE           weights file for every constant but splats and scalars\n"
    "                           (default: bundle stem + .weights; written only when the\n"
    "                           graph has such constants)\n"
    "  --offload-arch=ID[,ID]   targets, repeatable; IDs like gfx90a or gfx90a:sramecc+:xnack-\n"
    "                           (default: every target --print-targets marks as default)\n"
    "  --emit=KIND              bundle (default), llvm, asm, partitions, dot (Graphviz),\n"
    "                           tosa (the graph as canonical TOSA 1.0 MLIR);\n"
    "                           all but bundle print to -o FILE or standard output;\n"
    "                           host writes the bundle and manifest plus C host code\n"
    "                           (-o FILE.c, default input stem + _host.c, and FILE.h)\n"
    "  --prefix NAME            --emit=host: name of the generated API (NAME_load,\n"
    "                           NAME_run, NAME_unload; default: the entry function's name)\n"
    "  --host-streams=N         --emit=host: run independent partitions on up to N HIP\n"
    "                           streams joined by events (default 1)\n"
    "  --entry NAME             compile only this function (default: every public one)\n"
    "  --syntax-only            parse and verify only\n"
    "  -Wtosa-profile           warn about forms mlir-opt-22 accepts that no TOSA 1.0\n"
    "                           profile defines (an i32 clamp, a same-type cast)\n"
    "  --tosa-strict            refuse those forms\n"
    "  --embed-ir               store each target's optimised kernel IR in the bundle (for\n"
    "                           tosac-run)\n"
    "  -O0 -O1 -O2 -O3          optimisation level (default -O3): -O1 and up run the graph\n"
    "                           optimiser, and set LLVM's level\n"
    "  -fno-fold-constants      do not evaluate ops of constants at compile time\n"
    "  -fno-fold-batchnorm      do not fold per-channel affine chains into weights\n"
    "  -fno-propagate-layout    do not move, compose or cancel transposes\n"
    "  -fno-cleanup             do not remove common subexpressions and no-op views\n"
    "                           (-fNAME, or -f NAME, turns pass NAME on at any level)\n"
    "  --perf-config=STRING     GEMM tile parameters, e.g. bm=128,bn=128,bk=32,wm=64,wn=64,mma=32\n"
    "  --tuning-db=FILE         GEMM tiles per target and problem from a tuning database\n"
    "                           (tosac-tune's output), repeatable; also $TOSAC_TUNING_DB\n"
    "                           (files separated by ':'); --perf-config takes precedence\n"
    "  --specialize=ARG:DIM=V1,V2,...\n"
    "                           compile one variant per value of dimension DIM ('?') of\n"
    "                           argument ARG (name or index), repeatable (the i-th values of\n"
    "                           every --specialize form variant i); one bundle holds them all\n"
    "  --init=memset|kernel     initialise accumulated outputs with fill nodes in the launch\n"
    "                           graph (default) or with generated init kernels\n"
    "  -j N                     code generation threads; the kernels of every target are\n"
    "                           compiled in parallel (default: number of cores)\n"
    "  -MD                      also write a Make depfile (bundle stem + .d)\n"
    "  -MF FILE                 write the depfile to FILE\n"
    "  -MT TARGET               name TARGET as the depfile's target (default: bundle and\n"
    "                           manifest)\n"
    "  --code-object-version=N  4, 5 or 6 (default 5)\n"
    "  --print-targets          list the known targets and exit\n"
    "  -v                       print the stages and their timings\n"
    "  --time-report            print a table of per-stage and per-target times to stderr\n"
    "  --compress[=v2|v3]       write a zstd-compressed (CCOB) bundle, version 2 by default\n"
    "                           (HIP runtimes from ROCm 6.x; ROCm 5.x cannot read it)\n"
    "  --cache-dir=DIR          keep compiled kernels in DIR and reuse them (default:\n"
    "                           $TOSAC_CACHE_DIR, else no cache); outputs are identical\n"
    "  --cache-max-size=SIZE    bound the cache (bytes, or with K, M or G); least recently\n"
    "                           used kernels are evicted\n"
    "  --cache-stats            print the cache's hits, misses, entries and size, and exit\n"
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

/* A setter's refusal is a usage error with the library's message. */
static int check(tosac_options *o, tosac_status s) {
  return s == TOSAC_OK ? 0 : usage_error("%s", tosac_options_error(o));
}

/* "123", "64K", "512M", "2G" (powers of 1024). */
static bool parse_size(const char *s, uint64_t *out) {
  char *end;
  unsigned long long v = strtoull(s, &end, 10);
  unsigned shift = 0;
  if (end == s || *s == '-')
    return false;
  if (*end == 'K' || *end == 'k') shift = 10, end++;
  else if (*end == 'M' || *end == 'm') shift = 20, end++;
  else if (*end == 'G' || *end == 'g') shift = 30, end++;
  if (*end || v > (UINT64_MAX >> shift))
    return false;
  *out = (uint64_t)v << shift;
  return true;
}

typedef struct driver {
  tosac_options *o;
  const char *input, *output, *cache_dir;
  bool time_report, cache_stats, verbose, depfile;
  const char *depfile_path, *dep_target;
} driver;

static int cache_stats(const char *dir) {
  uint64_t hits, misses, entries, bytes;
  if (!dir) {
    fputs("tosac: error: --cache-stats needs --cache-dir=DIR or TOSAC_CACHE_DIR\n", stderr);
    return 2;
  }
  if (tosac_cache_stats(dir, &hits, &misses, &entries, &bytes) != TOSAC_OK) {
    fprintf(stderr, "tosac: error: '%s' is not a tosac kernel cache\n", dir);
    return 1;
  }
  printf("cache %s\nhits %llu\nmisses %llu\nentries %llu\nsize %llu bytes\n", dir,
         (unsigned long long)hits, (unsigned long long)misses, (unsigned long long)entries,
         (unsigned long long)bytes);
  return 0;
}

static int parse_options(int argc, char **argv, driver *dr) {
  enum { OPT_MANIFEST = 256, OPT_WEIGHTS, OPT_MD, OPT_MF, OPT_MT, OPT_ARCH, OPT_EMIT, OPT_ENTRY,
         OPT_SYNTAX, OPT_EMBED, OPT_COV, OPT_TIME_REPORT, OPT_COMPRESS, OPT_PRINT_TARGETS,
         OPT_VERSION, OPT_HELP, OPT_PERF_CONFIG, OPT_INIT, OPT_CACHE_DIR, OPT_CACHE_MAX,
         OPT_CACHE_STATS, OPT_TUNING_DB, OPT_SPECIALIZE, OPT_PREFIX, OPT_HOST_STREAMS,
         OPT_WPROFILE, OPT_STRICT };
  static const struct option longopts[] = {
      {"manifest", required_argument, 0, OPT_MANIFEST},
      {"weights", required_argument, 0, OPT_WEIGHTS},
      {"MD", no_argument, 0, OPT_MD},
      {"MF", required_argument, 0, OPT_MF},
      {"MT", required_argument, 0, OPT_MT},
      {"offload-arch", required_argument, 0, OPT_ARCH},
      {"emit", required_argument, 0, OPT_EMIT},
      {"entry", required_argument, 0, OPT_ENTRY},
      {"syntax-only", no_argument, 0, OPT_SYNTAX},
      {"embed-ir", no_argument, 0, OPT_EMBED},
      {"perf-config", required_argument, 0, OPT_PERF_CONFIG},
      {"tuning-db", required_argument, 0, OPT_TUNING_DB},
      {"init", required_argument, 0, OPT_INIT},
      {"specialize", required_argument, 0, OPT_SPECIALIZE},
      {"code-object-version", required_argument, 0, OPT_COV},
      {"print-targets", no_argument, 0, OPT_PRINT_TARGETS},
      {"time-report", no_argument, 0, OPT_TIME_REPORT},
      {"compress", optional_argument, 0, OPT_COMPRESS},
      {"cache-dir", required_argument, 0, OPT_CACHE_DIR},
      {"cache-max-size", required_argument, 0, OPT_CACHE_MAX},
      {"cache-stats", no_argument, 0, OPT_CACHE_STATS},
      {"prefix", required_argument, 0, OPT_PREFIX},
      {"host-streams", required_argument, 0, OPT_HOST_STREAMS},
      {"Wtosa-profile", no_argument, 0, OPT_WPROFILE},
      {"tosa-strict", no_argument, 0, OPT_STRICT},
      {"version", no_argument, 0, OPT_VERSION},
      {"help", no_argument, 0, OPT_HELP},
      {0, 0, 0, 0}};
  static const char *const emit_names[] = {"bundle", "llvm", "asm", "partitions", "dot", "tosa",
                                           "host"};
  tosac_options *o = dr->o;
  const char *env_cache = getenv("TOSAC_CACHE_DIR");
  dr->cache_dir = env_cache && *env_cache ? env_cache : NULL;
  opterr = 0;
  int c, rc = 0;
  /* $TOSAC_TUNING_DB first, so that a --tuning-db file's entries win */
  const char *env_db = getenv("TOSAC_TUNING_DB");
  for (const char *p = env_db; p && *p && !rc;) {
    size_t n = strcspn(p, ":");
    if (n) {
      char *path = strndup(p, n);
      rc = path ? check(o, tosac_options_add_tuning_db(o, path)) : 1;
      free(path);
    }
    p += n + (p[n] == ':');
  }
  while (!rc && (c = getopt_long_only(argc, argv, ":o:O:j:vf:", longopts, NULL)) != -1) {
    switch (c) {
    case 'o': dr->output = optarg; break;
    case 'v': dr->verbose = true; break;
    case 'j': {
      char *end;
      long n = strtol(optarg, &end, 10);
      if (*end || n < 1 || n > 256)
        return usage_error("invalid job count '-j %s' (use 1 to 256)", optarg);
      rc = check(o, tosac_options_set_jobs(o, (int)n));
      break;
    }
    case OPT_MD: dr->depfile = true; break;
    case OPT_MF: dr->depfile = true; dr->depfile_path = optarg; break;
    case OPT_MT: dr->dep_target = optarg; break;
    case 'O':
      if (strlen(optarg) != 1 || optarg[0] < '0' || optarg[0] > '3')
        return usage_error("invalid optimisation level '-O%s' (use -O0 to -O3)", optarg);
      rc = check(o, tosac_options_set_opt_level(o, optarg[0] - '0'));
      break;
    case 'f': {
      bool on = strncmp(optarg, "no-", 3) != 0;
      if (tosac_options_set_pass(o, on ? optarg : optarg + 3, on) != TOSAC_OK)
        return usage_error("unknown option '-f%s' (optimisation passes: fold-constants, fold-batchnorm, "
                           "propagate-layout, cleanup)", optarg);
      break;
    }
    case OPT_WPROFILE: rc = check(o, tosac_options_set_tosa_profile_check(o, 1)); break;
    case OPT_STRICT: rc = check(o, tosac_options_set_tosa_profile_check(o, 2)); break;
    case OPT_MANIFEST: rc = check(o, tosac_options_set_manifest_path(o, optarg)); break;
    case OPT_WEIGHTS: rc = check(o, tosac_options_set_weights_path(o, optarg)); break;
    case OPT_ARCH: rc = check(o, tosac_options_add_targets(o, optarg)); break;
    case OPT_EMIT: {
      int k = 0;
      while (k < 7 && strcmp(optarg, emit_names[k]))
        k++;
      if (k == 7)
        return usage_error("unknown --emit kind '%s' (use bundle, llvm, asm, partitions, dot, tosa or host)", optarg);
      rc = check(o, tosac_options_set_emit(o, (tosac_emit)k));
      break;
    }
    case OPT_ENTRY: rc = check(o, tosac_options_set_entry(o, optarg)); break;
    case OPT_SYNTAX: rc = check(o, tosac_options_set_syntax_only(o, 1)); break;
    case OPT_EMBED: rc = check(o, tosac_options_set_embed_ir(o, 1)); break;
    case OPT_PERF_CONFIG: rc = check(o, tosac_options_set_perf_config(o, optarg)); break;
    case OPT_TUNING_DB:
      if (!*optarg)
        return usage_error("%s", "--tuning-db needs a file");
      rc = check(o, tosac_options_add_tuning_db(o, optarg));
      break;
    case OPT_SPECIALIZE: rc = check(o, tosac_options_add_specialize(o, optarg)); break;
    case OPT_INIT:
      if (strcmp(optarg, "memset") && strcmp(optarg, "kernel"))
        return usage_error("unknown --init mode '%s' (use memset or kernel)", optarg);
      rc = check(o, tosac_options_set_init_mode(o, strcmp(optarg, "kernel") ? TOSAC_INIT_MEMSET
                                                                          : TOSAC_INIT_KERNEL));
      break;
    case OPT_COV:
      if (strcmp(optarg, "4") && strcmp(optarg, "5") && strcmp(optarg, "6"))
        return usage_error("invalid code object version '%s' (use 4, 5 or 6)", optarg);
      rc = check(o, tosac_options_set_code_object_version(o, optarg[0] - '0'));
      break;
    case OPT_TIME_REPORT: dr->time_report = true; break;
    case OPT_COMPRESS:
      if (optarg && strcmp(optarg, "v2") && strcmp(optarg, "v3"))
        return usage_error("invalid --compress version '%s' (use v2 or v3)", optarg);
      rc = check(o, tosac_options_set_compress(o, optarg && !strcmp(optarg, "v3") ? 3 : 2));
      break;
    case OPT_CACHE_DIR:
      if (!*optarg)
        return usage_error("%s", "--cache-dir needs a directory");
      dr->cache_dir = optarg;
      break;
    case OPT_CACHE_MAX: {
      uint64_t size;
      if (!parse_size(optarg, &size))
        return usage_error("invalid --cache-max-size '%s' (use bytes, or a number with K, M or G)", optarg);
      rc = check(o, tosac_options_set_cache_max_size(o, size));
      break;
    }
    case OPT_CACHE_STATS: dr->cache_stats = true; break;
    case OPT_PREFIX: rc = check(o, tosac_options_set_host_prefix(o, optarg)); break;
    case OPT_HOST_STREAMS: {
      char *end;
      long n = strtol(optarg, &end, 10);
      if (*end || n < 1 || n > 16)
        return usage_error("invalid --host-streams '%s' (use 1 to 16)", optarg);
      rc = check(o, tosac_options_set_host_streams(o, (int)n));
      break;
    }
    case OPT_PRINT_TARGETS: fputs(tosac_targets_table(), stdout); exit(0);
    case OPT_VERSION: printf("tosac %s (LLVM 22)\n", tosac_version()); exit(0);
    case OPT_HELP: fputs(usage_text, stdout); exit(0);
    case ':': return usage_error("option '%s' needs a value", argv[optind - 1]);
    default: return usage_error("unknown option '%s'", argv[optind - 1]);
    }
  }
  if (rc || dr->cache_stats)
    return rc;
  if (optind == argc)
    return usage_error("%s", "no input file");
  if (optind + 1 < argc)
    return usage_error("only one input file may be given, got also '%s'", argv[optind + 1]);
  dr->input = argv[optind];
  return check(o, tosac_options_set_cache_dir(o, dr->cache_dir)) ||
         check(o, tosac_options_set_depfile(o, dr->depfile, dr->depfile_path, dr->dep_target)) ||
         check(o, tosac_options_set_message_stream(o, stderr, dr->verbose, 1));
}

/* --emit=host: what was written and the command lines that build it (docs/host.md). */
static void print_host_build(const tosac_result *r) {
  const char *c = tosac_result_host_source_path(r);
  size_t n = strlen(c) > 2 && !strcmp(c + strlen(c) - 2, ".c") ? strlen(c) - 2 : strlen(c);
  fprintf(stderr, "tosac: wrote %s, %s, %s, %s%s%s\n", c, tosac_result_host_header_path(r),
          tosac_result_bundle_path(r), tosac_result_manifest_path(r),
          tosac_result_weights_path(r) ? ", " : "",
          tosac_result_weights_path(r) ? tosac_result_weights_path(r) : "");
  fprintf(stderr, "tosac: build with: cc -std=c17 -Wall -D__HIP_PLATFORM_AMD__ -c %s -o %.*s.o\n", c,
          (int)n, c);
  fprintf(stderr, "tosac: and link your program with %.*s.o -lamdhip64 (or -ltosac-hipemu to run "
          "on the CPU emulator)\n", (int)n, c);
}

static int run(driver *dr) {
  tosac_options *o = dr->o;
  /* -o names the bundle, or the file of a text --emit kind (tosac_result_write's text_path) */
  tosac_options_set_output(o, dr->output);
  tosac_result *r = tosac_compile_file(o, dr->input);
  if (!r) {
    fputs("tosac: error: out of memory\n", stderr);
    return 1;
  }
  /* diagnostics were shown on stderr as they arose (the message stream) */
  int rc = tosac_result_status(r) == TOSAC_OK ? 0 : 1;
  if (tosac_result_status(r) == TOSAC_ERROR_USAGE) { /* options that only conflict together */
    fputs("try 'tosac --help' for more information\n", stderr);
    rc = 2;
  }
  if (!rc && tosac_result_write(r, dr->output) != TOSAC_OK) {
    fprintf(stderr, "tosac: error: %s\n", tosac_result_write_error(r));
    rc = 1;
  }
  if (!rc && tosac_result_host_source(r))
    print_host_build(r);
  if (dr->time_report)
    fputs(tosac_result_time_report(r), stderr);
  tosac_result_dispose(r);
  return rc;
}

int main(int argc, char **argv) {
  /* Blocks of 128 KiB and more come from mmap and go back to the system when freed. glibc
   * otherwise raises this threshold to the largest block freed so far (the parser's value-name
   * table: 32 MB at a million values), after which every freed table stays in the heap, where
   * the codegen threads, each with its own malloc arena, cannot reuse it: 1,000,000 ops peaked
   * 30 MB higher in code generation (docs/bench.md). */
  mallopt(M_MMAP_THRESHOLD, 128 * 1024);
  driver dr = {.o = tosac_options_create()};
  if (!dr.o) {
    fputs("tosac: error: out of memory\n", stderr);
    return 1;
  }
  int rc = parse_options(argc, argv, &dr);
  if (!rc)
    rc = dr.cache_stats ? cache_stats(dr.cache_dir) : run(&dr);
  tosac_options_dispose(dr.o);
  return rc;
}
