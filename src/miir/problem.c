/* problem.c: the option string MIOpen builds for a convolution ("--operation
 * conv2d --arch amdgcn-amd-amdhsa:gfx90a:sramecc+:xnack- --fil_layout GNCHW
 * ...", docs/miopen.md) -> a checked miir_problem. Flags are "--name value" or
 * "--name=value"; every failure is a message, never an exit: the parser runs
 * inside MIOpen's process (and under libFuzzer, tests/fuzz). */
#include "miir.h"
#include "tosac.h"

#include <ctype.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

bool miir_fail(char *err, size_t n, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(err, n, fmt, ap);
  va_end(ap);
  return false;
}

typedef enum { F_INT, F_STR } flag_kind;

/* Every flag MIOpen passes (and rocMLIR's explicit per-side paddings). Integer
 * flags land in ints[] at their index; string flags in strs[]. */
enum {
  I_X2,
  I_KERNEL_ID,
  I_NUM_CU,
  I_GROUPS,
  I_N,
  I_C,
  I_K,
  I_HI,
  I_WI,
  I_HO,
  I_WO,
  I_Y,
  I_X,
  I_DIL_H,
  I_DIL_W,
  I_STRIDE_H,
  I_STRIDE_W,
  I_PAD_H,
  I_PAD_W,
  I_PAD_HL,
  I_PAD_HR,
  I_PAD_WL,
  I_PAD_WR,
  I_COUNT
};
enum {
  S_OPERATION,
  S_ARCH,
  S_FIL_LAYOUT,
  S_IN_LAYOUT,
  S_OUT_LAYOUT,
  S_FIL_TYPE,
  S_IN_TYPE,
  S_OUT_TYPE,
  S_KERNEL_NAME,
  S_PERF_CONFIG,
  S_COUNT
};

static const struct {
  const char *name;
  flag_kind kind;
  int slot;
} flags[] = {
    {"x2", F_INT, I_X2},
    {"operation", F_STR, S_OPERATION},
    {"kernel_id", F_INT, I_KERNEL_ID},
    {"num_cu", F_INT, I_NUM_CU},
    {"arch", F_STR, S_ARCH},
    {"groupsize", F_INT, I_GROUPS},
    {"fil_layout", F_STR, S_FIL_LAYOUT},
    {"in_layout", F_STR, S_IN_LAYOUT},
    {"out_layout", F_STR, S_OUT_LAYOUT},
    {"fil_type", F_STR, S_FIL_TYPE},
    {"in_type", F_STR, S_IN_TYPE},
    {"out_type", F_STR, S_OUT_TYPE},
    {"batchsize", F_INT, I_N},
    {"in_channels", F_INT, I_C},
    {"out_channels", F_INT, I_K},
    {"in_h", F_INT, I_HI},
    {"in_w", F_INT, I_WI},
    {"out_h", F_INT, I_HO},
    {"out_w", F_INT, I_WO},
    {"fil_h", F_INT, I_Y},
    {"fil_w", F_INT, I_X},
    {"dilation_h", F_INT, I_DIL_H},
    {"dilation_w", F_INT, I_DIL_W},
    {"conv_stride_h", F_INT, I_STRIDE_H},
    {"conv_stride_w", F_INT, I_STRIDE_W},
    {"padding_h", F_INT, I_PAD_H},
    {"padding_w", F_INT, I_PAD_W},
    {"padding_h_l", F_INT, I_PAD_HL},
    {"padding_h_r", F_INT, I_PAD_HR},
    {"padding_w_l", F_INT, I_PAD_WL},
    {"padding_w_r", F_INT, I_PAD_WR},
    {"kernel_name", F_STR, S_KERNEL_NAME},
    {"perf_config", F_STR, S_PERF_CONFIG},
};
#define NFLAGS (int)(sizeof flags / sizeof flags[0])

/* The next whitespace-separated word of *s into buf; false at the end. */
static bool next_word(const char **s, char *buf, size_t n, bool *too_long) {
  const char *p = *s;
  while (*p && isspace((unsigned char)*p))
    p++;
  if (!*p)
    return false;
  size_t len = 0;
  while (p[len] && !isspace((unsigned char)p[len]))
    len++;
  *too_long = len >= n;
  size_t keep = *too_long ? n - 1 : len;
  memcpy(buf, p, keep);
  buf[keep] = 0;
  *s = p + len;
  return true;
}

static bool parse_int(const char *name, const char *v, int64_t *out, char *err, size_t n) {
  errno = 0;
  char *end;
  long long x = strtoll(v, &end, 10);
  if (!*v || *end || errno || x < 0 || x > (1ll << 31) - 1)
    return miir_fail(err, n, "--%s: '%s' is not a non-negative integer below 2^31", name, v);
  *out = x;
  return true;
}

/* A layout's letters in canonical names for its tensor ("filter", "input",
 * "output"): MIOpen names a filter's dimensions N C H W (k c y x) and an
 * output's channel C (k); rocMLIR also uses k/y/x. Without g, the group
 * dimension goes before the channel that groups split (filter k, input c,
 * output k), as MIOpen's own insertion does. */
static bool canon_layout(const char *role, const char *s, char out[8], char *err, size_t n) {
  const char *want = role[0] == 'f' ? "gkcyx" : role[0] == 'i' ? "gnchw" : "gnkhw";
  char split = role[0] == 'i' ? 'c' : 'k';
  size_t len = strlen(s);
  if (len < 4 || len > 5)
    return miir_fail(err, n, "--%s_layout %s: expected 4 or 5 letters (e.g. %s)",
                     role[0] == 'f'   ? "fil"
                     : role[0] == 'i' ? "in"
                                      : "out",
                     s,
                     role[0] == 'f'   ? "GKCYX"
                     : role[0] == 'i' ? "NGCHW"
                                      : "NGKHW");
  char buf[8] = {0};
  int j = 0;
  bool has_g = false;
  for (size_t i = 0; i < len; i++) {
    char c = (char)tolower((unsigned char)s[i]), m = 0;
    if (c == 'g')
      m = 'g', has_g = true;
    else if (role[0] == 'f')
      m = c == 'n' || c == 'k'   ? 'k'
          : c == 'c'             ? 'c'
          : c == 'h' || c == 'y' ? 'y'
          : c == 'w' || c == 'x' ? 'x'
                                 : 0;
    else if (role[0] == 'i')
      m = c == 'n' ? 'n' : c == 'c' ? 'c' : c == 'h' ? 'h' : c == 'w' ? 'w' : 0;
    else
      m = c == 'n' ? 'n' : c == 'c' || c == 'k' ? 'k' : c == 'h' ? 'h' : c == 'w' ? 'w' : 0;
    if (!m || strchr(buf, m))
      return miir_fail(err, n, "unsupported %s layout '%s': letters are a permutation of %s", role,
                       s,
                       role[0] == 'f'   ? "G K C Y X (or N C H W)"
                       : role[0] == 'i' ? "N G C H W"
                                        : "N G K H W (or C for K)");
    if (!has_g && m == split && len == 4)
      buf[j++] = 'g';
    buf[j++] = m;
  }
  if ((int)strlen(buf) != 5 || strspn(buf, want) != 5)
    return miir_fail(err, n, "unsupported %s layout '%s'", role, s);
  memcpy(out, buf, 8);
  return true;
}

/* MIOpen's type names (DTypeName) -> TOSA element types; NULL: unsupported. */
static const char *tosa_type(const char *t) {
  static const char *const map[][2] = {
      {"fp32", "f32"},        {"f32", "f32"},        {"fp16", "f16"}, {"f16", "f16"},
      {"bf16", "bf16"},       {"i8", "i8"},          {"i32", "i32"},  {"fp8", "f8E4M3FNUZ"},
      {"bfp8", "f8E5M2FNUZ"}, {"bf8", "f8E5M2FNUZ"},
  };
  for (size_t i = 0; i < sizeof map / sizeof map[0]; i++)
    if (!strcmp(t, map[i][0]))
      return map[i][1];
  return NULL;
}

static bool is_f8(const char *t) { return !strncmp(t, "f8", 2); }
static bool is_float(const char *t) {
  return !strcmp(t, "f32") || !strcmp(t, "f16") || !strcmp(t, "bf16");
}

static bool check_types(miir_problem *p, char *err, size_t n) {
  const char *f = p->fil_type, *i = p->in_type, *o = p->out_type;
  bool ok;
  if (p->op == MIIR_FWD)
    ok = (is_float(i) && !strcmp(i, f) && !strcmp(i, o)) ||
         (!strcmp(i, "i8") && !strcmp(f, "i8") && !strcmp(o, "i32")) ||
         (is_f8(i) && is_f8(f) && (!strcmp(o, "f32") || !strcmp(o, "f16")));
  else
    ok = is_float(i) && !strcmp(i, f) && !strcmp(i, o);
  if (!ok)
    return miir_fail(err, n,
                     "unsupported types for %s: filter %s, input %s, output %s (supported: "
                     "fp32, fp16, bf16 throughout; forward also i8 -> i32 and fp8/bfp8 -> "
                     "fp32/fp16)",
                     p->op == MIIR_FWD        ? "conv2d"
                     : p->op == MIIR_BWD_DATA ? "conv2d_bwd_data"
                                              : "conv2d_bwd_weight",
                     f, i, o);
  return true;
}

/* The output size a forward convolution of these sizes has (0 when the window
 * does not fit). */
static int64_t conv_out(int64_t in, int64_t pad, int64_t fil, int64_t dil, int64_t stride) {
  int64_t span = dil * (fil - 1) + 1;
  return in + pad < span ? 0 : (in + pad - span) / stride + 1;
}

bool miir_parse(const char *options, miir_problem *p, char *err, size_t n) {
  memset(p, 0, sizeof *p);
  if (!options)
    return miir_fail(err, n, "no options");
  int64_t ints[I_COUNT];
  bool have_int[I_COUNT] = {0};
  char strs[S_COUNT][256];
  bool have_str[S_COUNT] = {0};
  const char *s = options;
  char word[256];
  bool too_long;
  while (next_word(&s, word, sizeof word, &too_long)) {
    if (too_long)
      return miir_fail(err, n, "option word '%.40s...' is longer than %zu bytes", word,
                       sizeof word - 1);
    if (word[0] != '-')
      return miir_fail(err, n, "expected a flag (--name), got '%s'", word);
    char *name = word + (word[1] == '-' ? 2 : 1);
    char *eq = strchr(name, '=');
    char value[256];
    if (eq) {
      *eq = 0;
      snprintf(value, sizeof value, "%s", eq + 1);
    }
    int f = 0;
    while (f < NFLAGS && strcmp(flags[f].name, name))
      f++;
    if (f == NFLAGS)
      return miir_fail(err, n, "unknown flag --%s", name);
    if (!eq && (!next_word(&s, value, sizeof value, &too_long) || too_long))
      return miir_fail(err, n, too_long ? "--%s: value too long" : "--%s needs a value", name);
    /* A repeated flag is refused (as rocMLIR's command-line parser does): which of two values
     * was meant cannot be known, and taking either silently computes a different problem. */
    if (flags[f].kind == F_INT ? have_int[flags[f].slot] : have_str[flags[f].slot])
      return miir_fail(err, n, "--%s is given twice", name);
    if (flags[f].kind == F_INT) {
      if (!parse_int(name, value, &ints[flags[f].slot], err, n))
        return false;
      have_int[flags[f].slot] = true;
    } else {
      snprintf(strs[flags[f].slot], sizeof strs[0], "%s", value);
      have_str[flags[f].slot] = true;
    }
  }
  static const char *const required_str[S_COUNT] = {[S_OPERATION] = "operation",
                                                    [S_ARCH] = "arch",
                                                    [S_FIL_LAYOUT] = "fil_layout",
                                                    [S_IN_LAYOUT] = "in_layout",
                                                    [S_OUT_LAYOUT] = "out_layout"};
  for (int i = 0; i < S_COUNT; i++)
    if (required_str[i] && !have_str[i])
      return miir_fail(err, n, "missing --%s", required_str[i]);
  static const int required_int[] = {I_N, I_C, I_K, I_HI, I_WI, I_Y, I_X};
  for (size_t i = 0; i < sizeof required_int / sizeof required_int[0]; i++)
    if (!have_int[required_int[i]]) {
      for (int f = 0; f < NFLAGS; f++)
        if (flags[f].kind == F_INT && flags[f].slot == required_int[i])
          return miir_fail(err, n, "missing --%s", flags[f].name);
    }
  const char *opn = strs[S_OPERATION];
  if (!strcmp(opn, "conv2d") || !strcmp(opn, "conv"))
    p->op = MIIR_FWD;
  else if (!strcmp(opn, "conv2d_bwd_data") || !strcmp(opn, "conv_bwd_data"))
    p->op = MIIR_BWD_DATA;
  else if (!strcmp(opn, "conv2d_bwd_weight") || !strcmp(opn, "conv_bwd_weight"))
    p->op = MIIR_BWD_WEIGHT;
  else
    return miir_fail(err, n,
                     "unsupported --operation %s (conv2d, conv2d_bwd_data, "
                     "conv2d_bwd_weight)",
                     opn);
  /* --arch: a clang target triple and ID
   * "amdgcn-amd-amdhsa:gfx90a:sramecc+:xnack-" or the ID */
  const char *arch = strs[S_ARCH];
  if (!strncmp(arch, "amdgcn-amd-amdhsa", 17))
    arch += 17 + (arch[17] == ':' || arch[17] == '-' ? 1 : 0);
  target_request tr;
  char terr[512];
  if (!target_parse(arch, &tr, terr, sizeof terr))
    return miir_fail(err, n, "--arch %s: %s", strs[S_ARCH], terr);
  snprintf(p->target, sizeof p->target, "%s", tr.id);
  if (!canon_layout("filter", strs[S_FIL_LAYOUT], p->fil_layout, err, n) ||
      !canon_layout("input", strs[S_IN_LAYOUT], p->in_layout, err, n) ||
      !canon_layout("output", strs[S_OUT_LAYOUT], p->out_layout, err, n))
    return false;
  const char *ty[3] = {have_str[S_FIL_TYPE] ? strs[S_FIL_TYPE] : "fp32",
                       have_str[S_IN_TYPE] ? strs[S_IN_TYPE] : "fp32",
                       have_str[S_OUT_TYPE] ? strs[S_OUT_TYPE] : "fp32"};
  char *dst[3] = {p->fil_type, p->in_type, p->out_type};
  static const char *const tname[3] = {"fil_type", "in_type", "out_type"};
  for (int i = 0; i < 3; i++) {
    const char *t = tosa_type(ty[i]);
    if (!t)
      return miir_fail(err, n, "unsupported --%s %s (fp32, fp16, bf16, i8, i32, fp8, bfp8)",
                       tname[i], ty[i]);
    snprintf(dst[i], 16, "%s", t);
  }
  if (!check_types(p, err, n))
    return false;
  p->x2 = have_int[I_X2] && ints[I_X2];
  p->kernel_id = have_int[I_KERNEL_ID] ? (int)ints[I_KERNEL_ID] : 0;
  p->num_cu = have_int[I_NUM_CU] ? (int)ints[I_NUM_CU] : 0;
  p->groups = have_int[I_GROUPS] ? (int)ints[I_GROUPS] : 1;
  p->n = ints[I_N], p->c = ints[I_C], p->k = ints[I_K];
  p->hi = ints[I_HI], p->wi = ints[I_WI], p->y = ints[I_Y], p->x = ints[I_X];
  p->dil_h = have_int[I_DIL_H] ? ints[I_DIL_H] : 1;
  p->dil_w = have_int[I_DIL_W] ? ints[I_DIL_W] : 1;
  p->stride_h = have_int[I_STRIDE_H] ? ints[I_STRIDE_H] : 1;
  p->stride_w = have_int[I_STRIDE_W] ? ints[I_STRIDE_W] : 1;
  int64_t ph = have_int[I_PAD_H] ? ints[I_PAD_H] : 0, pw = have_int[I_PAD_W] ? ints[I_PAD_W] : 0;
  p->pad_t = have_int[I_PAD_HL] ? ints[I_PAD_HL] : ph;
  p->pad_b = have_int[I_PAD_HR] ? ints[I_PAD_HR] : ph;
  p->pad_l = have_int[I_PAD_WL] ? ints[I_PAD_WL] : pw;
  p->pad_r = have_int[I_PAD_WR] ? ints[I_PAD_WR] : pw;
  const struct {
    const char *name;
    int64_t v;
  } positive[] = {{"batchsize", p->n},
                  {"in_channels", p->c},
                  {"out_channels", p->k},
                  {"in_h", p->hi},
                  {"in_w", p->wi},
                  {"fil_h", p->y},
                  {"fil_w", p->x},
                  {"dilation_h", p->dil_h},
                  {"dilation_w", p->dil_w},
                  {"conv_stride_h", p->stride_h},
                  {"conv_stride_w", p->stride_w},
                  {"groupsize", p->groups}};
  for (size_t i = 0; i < sizeof positive / sizeof positive[0]; i++)
    if (positive[i].v < 1)
      return miir_fail(err, n, "--%s must be at least 1", positive[i].name);
  if (p->c % p->groups || p->k % p->groups)
    return miir_fail(err, n,
                     "--groupsize %d does not divide --in_channels %lld and "
                     "--out_channels %lld",
                     p->groups, (long long)p->c, (long long)p->k);
  int64_t ho = conv_out(p->hi, p->pad_t + p->pad_b, p->y, p->dil_h, p->stride_h);
  int64_t wo = conv_out(p->wi, p->pad_l + p->pad_r, p->x, p->dil_w, p->stride_w);
  if (!ho || !wo)
    return miir_fail(err, n,
                     "the %lldx%lld filter (dilation %lldx%lld) does not fit the padded "
                     "%lldx%lld input",
                     (long long)p->y, (long long)p->x, (long long)p->dil_h, (long long)p->dil_w,
                     (long long)(p->hi + p->pad_t + p->pad_b),
                     (long long)(p->wi + p->pad_l + p->pad_r));
  p->ho = have_int[I_HO] ? ints[I_HO] : ho;
  p->wo = have_int[I_WO] ? ints[I_WO] : wo;
  if (p->ho != ho || p->wo != wo)
    return miir_fail(err, n,
                     "--out_h %lld --out_w %lld are inconsistent with the problem: the "
                     "convolution gives %lldx%lld",
                     (long long)p->ho, (long long)p->wo, (long long)ho, (long long)wo);
  /* Tensor sizes in elements must stay far below 2^40 bytes; the emulator and
   * TOSA both use 64-bit indexing, but an absurd request should fail here, not
   * in an allocation. */
  double elems[3] = {(double)p->n * p->c * p->hi * p->wi,
                     (double)p->k * (p->c / p->groups) * p->y * p->x,
                     (double)p->n * p->k * p->ho * p->wo};
  for (int i = 0; i < 3; i++)
    if (elems[i] > (double)(1ll << 34))
      return miir_fail(err, n, "the %s tensor has %.0f elements; at most 2^34 are supported",
                       i == 0   ? "input"
                       : i == 1 ? "filter"
                                : "output",
                       elems[i]);
  snprintf(p->kernel_name, sizeof p->kernel_name, "%s",
           have_str[S_KERNEL_NAME] ? strs[S_KERNEL_NAME] : "mlir_gen_igemm_conv2d");
  for (const char *c = p->kernel_name; *c; c++)
    if (!isalnum((unsigned char)*c) && *c != '_' && *c != '.' && *c != '$')
      return miir_fail(err, n, "--kernel_name %s: not a symbol name", p->kernel_name);
  if (have_str[S_PERF_CONFIG])
    snprintf(p->perf_config, sizeof p->perf_config, "%s", strs[S_PERF_CONFIG]);
  return true;
}
