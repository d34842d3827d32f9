/* graph_check.c: verify's checks of a manifest's launch graph (control nodes: every launch in
 * exactly one list, deps earlier in the same list, conditions are readbacks) and of its
 * variants (shapes consistent with the graph's inputs and with the dimensions they name). */
#include "inspect.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int int_of(const cJSON *o, const char *key, int fallback) {
  const cJSON *it = cJSON_GetObjectItemCaseSensitive(o, key);
  return cJSON_IsNumber(it) ? (int)it->valuedouble : fallback;
}

static const char *kind_of(const cJSON *l) {
  const cJSON *k = cJSON_GetObjectItemCaseSensitive(l, "kind");
  return cJSON_IsString(k) ? k->valuestring : "";
}

/* Put the ids of array `arr` into list number `list` (positions in pos); false if an id is out
 * of range or already listed. */
static bool take_list(const cJSON *arr, int list, int n, int *list_of, int *pos, char *err,
                      size_t errsize) {
  int j = 0;
  const cJSON *it;
  cJSON_ArrayForEach(it, arr) {
    int id = cJSON_IsNumber(it) ? (int)it->valuedouble : -1;
    if (id < 0 || id >= n || list_of[id] != -2) {
      snprintf(err, errsize, "launch %d is out of range or in two lists", id);
      return false;
    }
    list_of[id] = list, pos[id] = j++;
  }
  return true;
}

bool tb_check_launch_lists(const cJSON *t, char *err, size_t errsize) {
  const cJSON *ls = cJSON_GetObjectItemCaseSensitive(t, "launches");
  const cJSON *order = cJSON_GetObjectItemCaseSensitive(t, "order");
  if (!cJSON_IsArray(ls) || !cJSON_IsArray(order)) {
    snprintf(err, errsize, "launches or order missing");
    return false;
  }
  int n = cJSON_GetArraySize(ls);
  int *list_of = malloc(sizeof(int) * (size_t)(n + 1)), *pos = malloc(sizeof(int) * (size_t)(n + 1));
  for (int i = 0; i < n; i++)
    list_of[i] = -2;
  bool ok = take_list(order, -1, n, list_of, pos, err, errsize);
  static const char *const keys[2][2] = {{"then", "else"}, {"cond", "body"}};
  for (int i = 0; ok && i < n; i++) {
    const cJSON *l = cJSON_GetArrayItem(ls, i);
    int w = !strcmp(kind_of(l), "while") ? 1 : !strcmp(kind_of(l), "if") ? 0 : -1;
    for (int r = 0; ok && w >= 0 && r < 2; r++) {
      const cJSON *arr = cJSON_GetObjectItemCaseSensitive(l, keys[w][r]);
      ok = cJSON_IsArray(arr) && take_list(arr, 2 * i + r, n, list_of, pos, err, errsize);
      if (!cJSON_IsArray(arr))
        snprintf(err, errsize, "launch %d (%s) has no '%s' list", i, kind_of(l), keys[w][r]);
    }
  }
  for (int i = 0; ok && i < n; i++) {
    const cJSON *l = cJSON_GetArrayItem(ls, i), *d;
    if (list_of[i] == -2) {
      snprintf(err, errsize, "launch %d is in no list (order, then/else, cond/body)", i);
      ok = false;
      break;
    }
    cJSON_ArrayForEach(d, cJSON_GetObjectItemCaseSensitive(l, "deps")) {
      int x = cJSON_IsNumber(d) ? (int)d->valuedouble : -1;
      if (ok && (x < 0 || x >= n || list_of[x] != list_of[i] || pos[x] >= pos[i])) {
        snprintf(err, errsize, "launch %d depends on %d, which is not earlier in its list", i, x);
        ok = false;
      }
    }
    bool ctl = !strcmp(kind_of(l), "if") || !strcmp(kind_of(l), "while");
    int c = ctl ? int_of(l, "condition", -1) : 0;
    if (ok && ctl && (c < 0 || c >= n || strcmp(kind_of(cJSON_GetArrayItem(ls, c)), "readback"))) {
      snprintf(err, errsize, "launch %d: condition %d is not a readback launch", i, c);
      ok = false;
    }
    if (ok && ctl && !strcmp(kind_of(l), "while") && list_of[c] != 2 * i) {
      snprintf(err, errsize, "launch %d: its readback %d is not in its cond list", i, c);
      ok = false;
    }
  }
  free(list_of);
  free(pos);
  return ok;
}

/* inputs[] arrays a and b agree in element types and ranks (and dims, when dims_too). */
static bool same_types(const cJSON *a, const cJSON *b, bool dims_too) {
  if (cJSON_GetArraySize(a) != cJSON_GetArraySize(b))
    return false;
  for (int i = 0; i < cJSON_GetArraySize(a); i++) {
    const cJSON *x = cJSON_GetArrayItem(a, i), *y = cJSON_GetArrayItem(b, i);
    const cJSON *ex = cJSON_GetObjectItemCaseSensitive(x, "element_type");
    const cJSON *ey = cJSON_GetObjectItemCaseSensitive(y, "element_type");
    const cJSON *sx = cJSON_GetObjectItemCaseSensitive(x, "shape");
    const cJSON *sy = cJSON_GetObjectItemCaseSensitive(y, "shape");
    if (!cJSON_IsString(ex) || !cJSON_IsString(ey) || strcmp(ex->valuestring, ey->valuestring) ||
        cJSON_GetArraySize(sx) != cJSON_GetArraySize(sy))
      return false;
    for (int d = 0; dims_too && d < cJSON_GetArraySize(sx); d++)
      if (cJSON_GetArrayItem(sx, d)->valuedouble != cJSON_GetArrayItem(sy, d)->valuedouble)
        return false;
  }
  return true;
}

bool tb_check_variants(const cJSON *root, char *err, size_t errsize) {
  const cJSON *vs = cJSON_GetObjectItemCaseSensitive(root, "variants"), *v;
  if (!vs)
    return true;
  const cJSON *targets = cJSON_GetObjectItemCaseSensitive(root, "targets");
  const cJSON *inputs = cJSON_GetObjectItemCaseSensitive(root, "inputs");
  int nv = cJSON_GetArraySize(vs), k = 0;
  if (!cJSON_IsArray(vs) || nv == 0) {
    snprintf(err, errsize, "variants: not a non-empty array");
    return false;
  }
  cJSON_ArrayForEach(v, vs) {
    const cJSON *vin = cJSON_GetObjectItemCaseSensitive(v, "inputs");
    const cJSON *vt = cJSON_GetObjectItemCaseSensitive(v, "targets"), *d;
    if (int_of(v, "id", -1) != k || !same_types(vin, inputs, false)) {
      snprintf(err, errsize, "variants[%d]: id or input ranks and types differ from the graph's", k);
      return false;
    }
    if (k == 0 && !same_types(vin, inputs, true)) {
      snprintf(err, errsize, "variants[0]: input shapes differ from the top level's");
      return false;
    }
    if (cJSON_GetArraySize(vt) != cJSON_GetArraySize(targets)) {
      snprintf(err, errsize, "variants[%d]: %d targets, the top level has %d", k,
               cJSON_GetArraySize(vt), cJSON_GetArraySize(targets));
      return false;
    }
    for (int t = 0; t < cJSON_GetArraySize(vt); t++) {
      const cJSON *a = cJSON_GetObjectItemCaseSensitive(cJSON_GetArrayItem(vt, t), "target_id");
      const cJSON *b = cJSON_GetObjectItemCaseSensitive(cJSON_GetArrayItem(targets, t), "target_id");
      if (!cJSON_IsString(a) || !cJSON_IsString(b) || strcmp(a->valuestring, b->valuestring)) {
        snprintf(err, errsize, "variants[%d].targets[%d]: target_id differs from targets[%d]", k, t, t);
        return false;
      }
    }
    cJSON_ArrayForEach(d, cJSON_GetObjectItemCaseSensitive(v, "dims")) {
      const cJSON *in = cJSON_GetArrayItem(vin, int_of(d, "input", -1));
      const cJSON *dim = in ? cJSON_GetArrayItem(cJSON_GetObjectItemCaseSensitive(in, "shape"),
                                                 int_of(d, "dim", -1))
                            : NULL;
      if (!dim || (int)dim->valuedouble != int_of(d, "value", -1)) {
        snprintf(err, errsize, "variants[%d].dims: input %d dimension %d is not %d", k,
                 int_of(d, "input", -1), int_of(d, "dim", -1), int_of(d, "value", -1));
        return false;
      }
    }
    for (int w = 0; w < k; w++)
      if (same_types(vin, cJSON_GetObjectItemCaseSensitive(cJSON_GetArrayItem(vs, w), "inputs"), true)) {
        snprintf(err, errsize, "variants[%d] takes the same input shapes as variants[%d]", k, w);
        return false;
      }
    k++;
  }
  return true;
}
