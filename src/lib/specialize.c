/* specialize.c: the --specialize option (tosac_options_add_specialize): one more '?' dimension
 * with one value per variant, and the check that no two variants are the same compile. */
#include "lib.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static tosac_status refuse(tosac_options *o, const char *fmt, const char *spec) {
  snprintf(o->error, sizeof o->error, fmt, spec);
  return TOSAC_ERROR_USAGE;
}

tosac_status tosac_options_add_specialize(tosac_options *o, const char *spec) {
  static const char *const form = "invalid --specialize '%s' (use ARG:DIM=V1,V2,..., e.g. x:0=1,8)";
  const char *eq = spec ? strchr(spec, '=') : NULL;
  const char *colon = eq ? memrchr(spec, ':', (size_t)(eq - spec)) : NULL;
  if (!colon || colon == spec || eq == colon + 1 || !eq[1])
    return refuse(o, form, spec ? spec : "");
  char *end;
  long dim = strtol(colon + 1, &end, 10);
  if (end != eq || dim < 0 || dim >= TOSAC_MAX_RANK)
    return refuse(o, "invalid dimension in --specialize '%s' (use an index from 0 to 7)", spec);
  size_t alen = (size_t)(colon - spec);
  for (int s = 0; s < o->nspec; s++)
    if (strlen(o->spec[0][s].arg) == alen && !strncmp(o->spec[0][s].arg, spec, alen) &&
        o->spec[0][s].dim == (int)dim)
      return refuse(o, "--specialize '%s' names a dimension given before", spec);
  if (o->nspec == LIB_MAX_SPECIALIZE)
    return refuse(o, "too many --specialize options (at most 16), at '%s'", spec);
  int64_t values[LIB_MAX_VARIANTS];
  int n = 0;
  for (const char *v = eq + 1;; v = end + 1) {
    long long x = strtoll(v, &end, 10);
    if (end == v || (*end && *end != ',') || x < 1 || x > ((long long)1 << 31))
      return refuse(o, "invalid value in --specialize '%s' (values are integers from 1 to 2^31)", spec);
    if (n == LIB_MAX_VARIANTS)
      return refuse(o, "--specialize '%s' lists too many values (at most 64 variants)", spec);
    values[n++] = x;
    if (!*end)
      break;
  }
  if (o->nspec && n != o->nvariants) {
    snprintf(o->error, sizeof o->error, "--specialize '%s' lists %d value%s, but the first "
             "--specialize lists %d (variant i takes the i-th value of each)", spec, n,
             n == 1 ? "" : "s", o->nvariants);
    return TOSAC_ERROR_USAGE;
  }
  char *arg = strndup(spec, alen);
  if (!arg)
    return refuse(o, "out of memory%s", "");
  for (int v = 0; v < n; v++)
    o->spec[v][o->nspec] = (fe_dim_value){.arg = arg, .dim = (int)dim, .value = values[v]};
  o->nvariants = n;
  o->nspec++;
  o->error[0] = 0;
  return TOSAC_OK;
}

bool lib_check_variants(tosac_result *r, const tosac_options *o) {
  for (int v = 0; v < o->nvariants; v++)
    for (int w = 0; w < v; w++) {
      bool same = true;
      for (int s = 0; s < o->nspec; s++)
        same &= o->spec[v][s].value == o->spec[w][s].value;
      if (same) {
        lib_error(r, "--specialize gives variants %d and %d the same values", w, v);
        r->status = TOSAC_ERROR_USAGE;
        return false;
      }
    }
  return true;
}
