/* entries.c: a client's choice of entry function in a manifest of several (docs/manifest.md
 * "Entries"): the chosen entry's name, inputs, outputs, targets and variants replace the top
 * level's, so every reader written for one entry reads it unchanged. */
#include "bundle/bundle.h"

#include <cjson/cJSON.h>
#include <string.h>

static const char *name_of(const cJSON *o, const char *key) {
  const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, key);
  return cJSON_IsString(v) ? v->valuestring : NULL;
}

/* "@a, @b, ..." of the entries array into buf. */
static void list_names(const cJSON *es, char *buf, size_t size) {
  const cJSON *e;
  size_t n = 0;
  buf[0] = 0;
  cJSON_ArrayForEach(e, es) {
    const char *nm = name_of(e, "name");
    if (n < size)
      n += (size_t)snprintf(buf + n, size - n, "%s@%s", n ? ", " : "", nm ? nm : "?");
  }
}

static void take(cJSON *root, const cJSON *e, const char *key) {
  const cJSON *v = cJSON_GetObjectItemCaseSensitive(e, key);
  cJSON_DeleteItemFromObjectCaseSensitive(root, key);
  if (v)
    cJSON_AddItemToObject(root, key, cJSON_Duplicate(v, true));
}

bool bnd_manifest_select_entry(struct cJSON *root, const char *name, char *err, size_t errsize) {
  const cJSON *es = cJSON_GetObjectItemCaseSensitive(root, "entries");
  const char *want = name && name[0] == '@' ? name + 1 : name;
  const char *top = name_of(root, "entry");
  if (!es) { /* one entry: the top level */
    if (want && (!top || strcmp(want, top) != 0)) {
      snprintf(err, errsize, "no function '%s' (the entry is '%s')", want, top ? top : "");
      return false;
    }
    return true;
  }
  int n = cJSON_GetArraySize(es);
  if (!cJSON_IsArray(es) || n == 0) {
    snprintf(err, errsize, "entries: must be a non-empty array");
    return false;
  }
  char names[512];
  list_names(es, names, sizeof names);
  const cJSON *pick = NULL, *e;
  cJSON_ArrayForEach(e, es) {
    const char *nm = name_of(e, "name");
    if (!cJSON_IsObject(e) || !nm) {
      snprintf(err, errsize, "entries: each entry must be an object with a name");
      return false;
    }
    if (want ? !strcmp(nm, want) : n == 1)
      pick = pick ? pick : e;
  }
  if (!pick && want)
    snprintf(err, errsize, "no function '%s' (the entries are %s)", want, names);
  else if (!pick)
    snprintf(err, errsize, "%d entry functions (%s): choose one with --entry NAME", n, names);
  if (!pick)
    return false;
  cJSON_DeleteItemFromObjectCaseSensitive(root, "entry");
  cJSON_AddStringToObject(root, "entry", name_of(pick, "name"));
  take(root, pick, "inputs");
  take(root, pick, "outputs");
  take(root, pick, "targets");
  take(root, pick, "variants");
  cJSON_DeleteItemFromObjectCaseSensitive(root, "entries");
  return true;
}
