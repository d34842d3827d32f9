/* inspect.c: list, info and verify for tosac bundles in memory. Every problem becomes an
 * "error: ..." line; nothing in a hostile bundle or manifest is trusted before it is checked. */
#include "inspect.h"

#include "codeobj.h"

#include <cjson/cJSON.h>
#include <stdlib.h>
#include <string.h>

#define BITCODE_MAGIC "BC\xc0\xde"

bool tb_open(const uint8_t *data, size_t size, tb_bundle *b, char *err, size_t errsize) {
  memset(b, 0, sizeof *b);
  b->file = data;
  b->file_size = size;
  if (size >= 4 && memcmp(data, "CCOB", 4) == 0) {
    b->compressed = true;
    char sub[400];
    if (!bnd_ccob_header(data, size, &b->ccob, sub, sizeof sub)) {
      snprintf(err, errsize, "compressed (CCOB) bundle: %s", sub); /* as bnd_parse words it */
      return false;
    }
  }
  if (!bnd_parse(data, size, &b->entries, &b->nentries, err, errsize))
    return false;
  return true;
}

void tb_free(tb_bundle *b) {
  free(b->entries);
  b->entries = NULL;
  b->nentries = 0;
}

const bnd_entry *tb_find(const tb_bundle *b, const char *key) {
  size_t n = strlen(key);
  if (n && n < 6 && strspn(key, "0123456789") == n) {
    int i = atoi(key);
    return i < b->nentries ? &b->entries[i] : NULL;
  }
  for (int i = 0; i < b->nentries; i++)
    if (strcmp(b->entries[i].id, key) == 0)
      return &b->entries[i];
  return NULL;
}

/* Offset of an entry's payload in the (uncompressed) bundle. */
static size_t entry_offset(const tb_bundle *b, const bnd_entry *e) {
  if (!b->compressed)
    return (size_t)(e->data - b->file);
  /* bnd_parse stores the decompressed bundle right after the entry array. */
  const uint8_t *base = (const uint8_t *)(b->entries + b->nentries);
  return (size_t)(e->data - base);
}

static const char *method_name(int m) { return m == 0 ? "zlib" : m == 1 ? "zstd" : "?"; }

void tb_list(const tb_bundle *b, FILE *out) {
  if (b->compressed)
    fprintf(out, "compressed: CCOB version %d, %s, %llu bytes -> %llu bytes\n", b->ccob.version,
            method_name(b->ccob.method), (unsigned long long)b->ccob.total_size,
            (unsigned long long)b->ccob.uncompressed_size);
  fprintf(out, "%-5s %10s %10s  %s\n", "entry", "offset", "size", "id");
  for (int i = 0; i < b->nentries; i++)
    fprintf(out, "%-5d %10zu %10zu  %s\n", i, entry_offset(b, &b->entries[i]),
            b->entries[i].size, b->entries[i].id);
}

/* "hipv4-amdgcn-amd-amdhsa--gfx90a:xnack-" -> kind "hipv4", target ID "gfx90a:xnack-". */
typedef enum entry_kind { EK_HOST, EK_CODE, EK_IR, EK_OTHER } entry_kind;

static entry_kind classify(const char *id, const char **tid) {
  const char *dd = strstr(id, "--");
  *tid = dd ? dd + 2 : "";
  if (strncmp(id, "host-", 5) == 0)
    return EK_HOST;
  if (!dd)
    return EK_OTHER;
  if (strncmp(id, "hipv4-amdgcn-amd-amdhsa--", 25) == 0 ||
      strncmp(id, "hip-amdgcn-amd-amdhsa--", 23) == 0)
    return EK_CODE;
  if (strncmp(id, "openmp-amdgcn-amd-amdhsa--", 26) == 0)
    return EK_IR;
  return EK_OTHER;
}

/* The e_flags a code object for this target ID must carry (code object v4+ feature bits). */
static bool expected_flags(const char *tid, unsigned *flags, char *err, size_t errsize) {
  target_request t;
  if (!target_parse(tid, &t, err, errsize))
    return false;
  unsigned f = t.info->elf_mach;
  if (t.info->has_xnack)
    f |= t.xnack == FEAT_ON ? 0x300u : t.xnack == FEAT_OFF ? 0x200u : 0x100u;
  if (t.info->has_sramecc)
    f |= t.sramecc == FEAT_ON ? 0xc00u : t.sramecc == FEAT_OFF ? 0x800u : 0x400u;
  *flags = f;
  return true;
}

static const char *feature_text(unsigned flags, unsigned shift) {
  static const char *const names[4] = {"unsupported", "any", "off", "on"};
  return names[(flags >> shift) & 3];
}

/* Kernel names: the dynamic symbols "<name>.kd" (the kernel descriptors). */
static int kernel_names(const tb_symbols *syms, char (**out)[72]) {
  *out = calloc(syms->count ? (size_t)syms->count : 1, sizeof **out);
  int n = 0;
  for (int i = 0; *out && i < syms->count; i++) {
    size_t len = strlen(syms->names[i]);
    if (len > 3 && len < sizeof **out + 3 && strcmp(syms->names[i] + len - 3, ".kd") == 0) {
      memcpy((*out)[n], syms->names[i], len - 3);
      (*out)[n++][len - 3] = 0;
    }
  }
  return n;
}

int tb_info(const tb_bundle *b, FILE *out) {
  int problems = 0;
  char err[600];
  if (b->compressed)
    fprintf(out, "compressed: CCOB version %d, %s, %llu bytes -> %llu bytes\n", b->ccob.version,
            method_name(b->ccob.method), (unsigned long long)b->ccob.total_size,
            (unsigned long long)b->ccob.uncompressed_size);
  for (int i = 0; i < b->nentries; i++) {
    const bnd_entry *e = &b->entries[i];
    const char *tid;
    entry_kind kind = classify(e->id, &tid);
    if (kind == EK_IR) {
      fprintf(out, "target %s: kernel IR, %zu bytes of LLVM bitcode\n", tid, e->size);
      continue;
    }
    if (kind != EK_CODE)
      continue;
    tb_elf elf;
    tb_symbols syms;
    if (!tb_elf_header(e->data, e->size, &elf, err, sizeof err) ||
        !tb_elf_dynsyms(e->data, e->size, &syms, err, sizeof err)) {
      fprintf(out, "error: %s: %s\n", e->id, err);
      problems++;
      continue;
    }
    char (*names)[72] = NULL;
    int nk = kernel_names(&syms, &names);
    fprintf(out,
            "target %s: code object %zu bytes, e_flags 0x%x (mach 0x%x, xnack %s, sramecc %s), "
            "abi_version %d (code object v%d), %d kernel%s\n",
            tid, e->size, elf.e_flags, elf.mach, feature_text(elf.e_flags, 8),
            feature_text(elf.e_flags, 10), elf.abi_version, elf.abi_version + 2, nk,
            nk == 1 ? "" : "s");
    for (int k = 0; k < nk; k++) {
      cg_kernel_info ki;
      if (!tb_kernel_meta(e->data, e->size, names[k], &ki, err, sizeof err)) {
        fprintf(out, "error: %s: kernel %s: %s\n", e->id, names[k], err);
        problems++;
        continue;
      }
      fprintf(out,
              "  kernel %s: sgpr %d, vgpr %d, agpr %d, spills %d/%d, lds %lld, private %lld, "
              "kernarg %lld (align %lld, %d args), wave %d, max_flat_workgroup_size %d\n",
              ki.name, ki.sgpr, ki.vgpr, ki.agpr, ki.sgpr_spill, ki.vgpr_spill,
              (long long)ki.lds_bytes, (long long)ki.private_bytes, (long long)ki.kernarg_size,
              (long long)ki.kernarg_align, ki.nargs, ki.wave_size, ki.max_flat_wg);
      tb_kernel_meta_free(&ki);
    }
    free(names);
    tb_symbols_free(&syms);
  }
  return problems;
}

/* ------------------------------------------------------------------ verify */

typedef struct vctx {
  FILE *out;
  int errors;
  int objects, kernels;
} vctx;

__attribute__((format(printf, 2, 3))) static void verr(vctx *v, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  fputs("error: ", v->out);
  vfprintf(v->out, fmt, ap);
  fputc('\n', v->out);
  va_end(ap);
  v->errors++;
}

/* Checks one code object on its own: header, flags against its entry ID, every kernel's
 * function and descriptor symbol, and a readable metadata entry. */
static void verify_code_object(vctx *v, const bnd_entry *e, const char *tid) {
  char err[600];
  tb_elf elf;
  tb_symbols syms;
  unsigned want;
  if (!tb_elf_header(e->data, e->size, &elf, err, sizeof err)) {
    verr(v, "%s: %s", e->id, err);
    return;
  }
  v->objects++;
  if (!expected_flags(tid, &want, err, sizeof err))
    verr(v, "%s: entry ID: %s", e->id, err);
  else if ((elf.e_flags & 0xfffu) != want)
    verr(v, "%s: e_flags 0x%x do not match the entry ID (expected 0x%x: mach 0x%x, xnack %s, "
            "sramecc %s)", e->id, elf.e_flags, want, want & 0xff, feature_text(want, 8),
         feature_text(want, 10));
  if (elf.abi_version < 2 || elf.abi_version > 4)
    verr(v, "%s: EI_ABIVERSION %d is not code object v4, v5 or v6", e->id, elf.abi_version);
  if (!tb_elf_dynsyms(e->data, e->size, &syms, err, sizeof err)) {
    verr(v, "%s: %s", e->id, err);
    return;
  }
  char (*names)[72] = NULL;
  /* No kernel at all is legitimate: a graph whose results are views of its inputs runs as
   * copies only (the manifest's kernel list, checked against the symbols, is then empty). */
  int nk = kernel_names(&syms, &names);
  for (int k = 0; k < nk; k++) {
    v->kernels++;
    if (!tb_has_symbol(&syms, names[k]))
      verr(v, "%s: kernel descriptor %s.kd has no kernel symbol %s", e->id, names[k], names[k]);
    cg_kernel_info ki;
    if (!tb_kernel_meta(e->data, e->size, names[k], &ki, err, sizeof err)) {
      verr(v, "%s: kernel %s: %s", e->id, names[k], err);
      continue;
    }
    char kd[80];
    snprintf(kd, sizeof kd, "%s.kd", names[k]);
    if (strcmp(ki.symbol, kd) != 0)
      verr(v, "%s: kernel %s: metadata .symbol is '%s', expected '%s'", e->id, names[k],
           ki.symbol, kd);
    for (int a = 0; a < ki.nargs; a++)
      if (ki.args[a].offset < 0 || ki.args[a].size < 0 ||
          ki.args[a].offset + ki.args[a].size > ki.kernarg_size)
        verr(v, "%s: kernel %s: argument %d [%lld, +%lld) lies outside the %lld-byte kernarg "
                "segment", e->id, names[k], a, (long long)ki.args[a].offset,
             (long long)ki.args[a].size, (long long)ki.kernarg_size);
    tb_kernel_meta_free(&ki);
  }
  free(names);
  tb_symbols_free(&syms);
}

static bool jint(const cJSON *o, const char *key, long long *out) {
  const cJSON *j = cJSON_GetObjectItemCaseSensitive(o, key);
  if (!cJSON_IsNumber(j) || !(j->valuedouble >= -0x1p63 && j->valuedouble < 0x1p63))
    return false; /* converting a double outside long long is undefined */
  *out = (long long)j->valuedouble;
  return true;
}

static const char *jstr(const cJSON *o, const char *key) {
  const cJSON *j = cJSON_GetObjectItemCaseSensitive(o, key);
  return cJSON_IsString(j) ? j->valuestring : NULL;
}

/* One manifest kernel against the code object's symbols and metadata. */
static void verify_manifest_kernel(vctx *v, const char *tid, const bnd_entry *e,
                                   const tb_symbols *syms, const cJSON *mk, long long wave) {
  char err[600];
  const char *name = jstr(mk, "name"), *symbol = jstr(mk, "symbol");
  if (!name || !symbol) {
    verr(v, "manifest target %s: a kernel lacks name or symbol", tid);
    return;
  }
  char kd[200];
  snprintf(kd, sizeof kd, "%s.kd", name);
  if (strcmp(symbol, kd) != 0)
    verr(v, "manifest target %s: kernel %s: symbol '%s' is not '%s'", tid, name, symbol, kd);
  if (!tb_has_symbol(syms, name))
    verr(v, "%s: kernel symbol '%s' named by the manifest is missing", e->id, name);
  if (!tb_has_symbol(syms, kd))
    verr(v, "%s: kernel descriptor symbol '%s' named by the manifest is missing", e->id, kd);
  cg_kernel_info ki;
  if (!tb_kernel_meta(e->data, e->size, name, &ki, err, sizeof err)) {
    verr(v, "%s: kernel %s: %s", e->id, name, err);
    return;
  }
  long long x;
  if (!jint(mk, "kernarg_size", &x) || x != ki.kernarg_size)
    verr(v, "%s: kernel %s: manifest kernarg_size differs from the metadata (%lld)", e->id, name,
         (long long)ki.kernarg_size);
  if (!jint(mk, "kernarg_align", &x) || x != ki.kernarg_align)
    verr(v, "%s: kernel %s: manifest kernarg_align differs from the metadata (%lld)", e->id,
         name, (long long)ki.kernarg_align);
  if (!jint(mk, "lds_bytes", &x) || x != ki.lds_bytes)
    verr(v, "%s: kernel %s: manifest lds_bytes differs from the metadata (%lld)", e->id, name,
         (long long)ki.lds_bytes);
  if (wave != ki.wave_size)
    verr(v, "%s: kernel %s: wavefront size %d, manifest target says %lld", e->id, name,
         ki.wave_size, wave);
  const cJSON *args = cJSON_GetObjectItemCaseSensitive(mk, "args");
  int na = cJSON_IsArray(args) ? cJSON_GetArraySize(args) : -1;
  if (na != ki.nargs) {
    verr(v, "%s: kernel %s: manifest lists %d arguments, the metadata %d", e->id, name, na,
         ki.nargs);
  } else {
    for (int a = 0; a < na; a++) {
      const cJSON *ma = cJSON_GetArrayItem(args, a);
      long long off, size;
      const char *vk = jstr(ma, "value_kind");
      if (!jint(ma, "offset", &off) || !jint(ma, "size", &size) || !vk ||
          off != ki.args[a].offset || size != ki.args[a].size ||
          strcmp(vk, ki.args[a].value_kind) != 0)
        verr(v, "%s: kernel %s: argument %d differs: metadata has offset %lld size %lld %s",
             e->id, name, a, (long long)ki.args[a].offset, (long long)ki.args[a].size,
             ki.args[a].value_kind);
    }
  }
  tb_kernel_meta_free(&ki);
}

/* Distinct kernel names of a kernels array added to names (n of them). */
static void add_names(const cJSON *ks, char (**names)[72], int *n, int *cap) {
  const cJSON *k;
  cJSON_ArrayForEach(k, ks) {
    const char *nm = jstr(k, "name");
    bool seen = !nm;
    for (int i = 0; !seen && i < *n; i++)
      seen = !strcmp((*names)[i], nm);
    if (seen)
      continue;
    if (*n == *cap)
      *names = realloc(*names, sizeof **names * (size_t)(*cap = *cap ? 2 * *cap : 64));
    snprintf((*names)[(*n)++], sizeof **names, "%s", nm);
  }
}

/* One graph's (the top level's or an entry's) target t and the same target of each of its
 * variants: kernels against the code object, launch lists, kernel names collected. */
static void verify_graph_target(vctx *v, const char *tid, const bnd_entry *e, const tb_symbols *syms,
                                const cJSON *g, const cJSON *t, int ti, long long wave,
                                const char *entry, char (**mnames)[72], int *nmk, int *mcap) {
  char err[600], where[200] = "";
  if (entry)
    snprintf(where, sizeof where, "entry %s ", entry);
  const cJSON *vs = cJSON_GetObjectItemCaseSensitive(g, "variants");
  int nvar = cJSON_IsArray(vs) ? cJSON_GetArraySize(vs) : 0;
  for (int vi = -1; vi < nvar; vi++) { /* -1: the graph's own targets */
    const cJSON *var = vi < 0 ? NULL : cJSON_GetArrayItem(vs, vi);
    const cJSON *vt = var ? cJSON_GetArrayItem(cJSON_GetObjectItemCaseSensitive(var, "targets"), ti) : t;
    const cJSON *ks = cJSON_GetObjectItemCaseSensitive(vt, "kernels"), *k;
    cJSON_ArrayForEach(k, ks) verify_manifest_kernel(v, tid, e, syms, k, wave);
    add_names(ks, mnames, nmk, mcap);
    if (vt && !tb_check_launch_lists(vt, err, sizeof err)) {
      if (vi < 0)
        verr(v, "manifest %starget %s: %s", where, tid, err);
      else
        verr(v, "manifest %svariant %d target %s: %s", where, vi, tid, err);
    }
  }
}

/* Target t (targets[ti]) and the same target of every variant: one code object holds the
 * kernels of all of them. */
static void verify_manifest_target(vctx *v, const tb_bundle *b, const cJSON *t, const cJSON *root,
                                   int ti) {
  char err[600];
  const char *tid = jstr(t, "target_id"), *eid = jstr(t, "bundle_entry_id");
  if (!tid || !eid) {
    verr(v, "manifest: a target lacks target_id or bundle_entry_id");
    return;
  }
  const bnd_entry *e = tb_find(b, eid);
  if (!e || classify(eid, &(const char *){0}) != EK_CODE) {
    verr(v, "manifest target %s: bundle has no code object entry '%s'", tid, eid);
    return;
  }
  const cJSON *ir = cJSON_GetObjectItemCaseSensitive(t, "ir_entry_id");
  if (cJSON_IsString(ir) && !tb_find(b, ir->valuestring))
    verr(v, "manifest target %s: bundle has no IR entry '%s'", tid, ir->valuestring);
  tb_elf elf;
  tb_symbols syms;
  if (!tb_elf_header(e->data, e->size, &elf, err, sizeof err) ||
      !tb_elf_dynsyms(e->data, e->size, &syms, err, sizeof err))
    return; /* already reported by the bundle checks */
  const char *flags = jstr(t, "e_flags");
  if (!flags || strtoul(flags, NULL, 16) != elf.e_flags)
    verr(v, "manifest target %s: e_flags %s, the code object has 0x%x", tid,
         flags ? flags : "(missing)", elf.e_flags);
  long long abi = -1, wave = -1;
  if (!jint(t, "abi_version", &abi) || abi != elf.abi_version)
    verr(v, "manifest target %s: abi_version %lld, the code object has %d", tid, abi,
         elf.abi_version);
  jint(t, "wavefront_size", &wave);
  char (*mnames)[72] = NULL;
  int nmk = 0, mcap = 0;
  /* The top level, then every entry function (docs/manifest.md "Entries"), each with its
   * variants: all their kernels live in this one code object. */
  const cJSON *es = cJSON_GetObjectItemCaseSensitive(root, "entries");
  int nent = cJSON_IsArray(es) ? cJSON_GetArraySize(es) : 0;
  for (int en = -1; en < nent; en++) {
    const cJSON *g = en < 0 ? root : cJSON_GetArrayItem(es, en);
    const cJSON *gt = en < 0 ? t : cJSON_GetArrayItem(cJSON_GetObjectItemCaseSensitive(g, "targets"), ti);
    const char *gtid = jstr(gt, "target_id");
    if (en >= 0 && (!gtid || strcmp(gtid, tid) != 0)) {
      verr(v, "manifest entry %s: targets[%d] is not %s", jstr(g, "name") ? jstr(g, "name") : "?", ti, tid);
      continue;
    }
    verify_graph_target(v, tid, e, &syms, g, gt, ti, wave, en < 0 ? NULL : jstr(g, "name"), &mnames, &nmk, &mcap);
  }
  free(mnames);
  char (*names)[72] = NULL;
  int nk = kernel_names(&syms, &names);
  if (nk != nmk)
    verr(v, "manifest target %s: %d kernels, the code object has %d", tid, nmk, nk);
  free(names);
  tb_symbols_free(&syms);
}

static void verify_manifest(vctx *v, const tb_bundle *b, const char *text) {
  cJSON *root = cJSON_Parse(text);
  if (!root) {
    verr(v, "manifest: not valid JSON");
    return;
  }
  const char *format = jstr(root, "format");
  const cJSON *targets = cJSON_GetObjectItemCaseSensitive(root, "targets"), *t;
  if (!format || strcmp(format, "tosac-manifest") != 0 || !cJSON_IsArray(targets)) {
    verr(v, "manifest: not a tosac manifest (format \"tosac-manifest\" with targets)");
    cJSON_Delete(root);
    return;
  }
  /* The bundle must be the one this manifest was written with (docs/manifest.md, digests). */
  const cJSON *dg = cJSON_GetObjectItemCaseSensitive(root, "digests");
  const char *digest = jstr(dg, "bundle");
  char err[600];
  if (dg && !cJSON_IsObject(dg))
    verr(v, "manifest: digests is not an object");
  else if (!bnd_digest_check(digest, b->file, b->file_size, "the bundle", err, sizeof err))
    verr(v, "%s", err);
  int ti = 0;
  cJSON_ArrayForEach(t, targets) verify_manifest_target(v, b, t, root, ti++);
  if (!tb_check_variants(root, err, sizeof err))
    verr(v, "manifest: %s", err);
  const cJSON *es = cJSON_GetObjectItemCaseSensitive(root, "entries"), *en;
  if (es && (!cJSON_IsArray(es) || cJSON_GetArraySize(es) < 2))
    verr(v, "manifest: entries: not an array of at least 2 entry functions");
  int ei = 0;
  cJSON_ArrayForEach(en, es) {
    const char *nm = jstr(en, "name");
    if (!nm || cJSON_GetArraySize(cJSON_GetObjectItemCaseSensitive(en, "targets")) !=
                   cJSON_GetArraySize(targets))
      verr(v, "manifest: entries[%d]: no name, or not one target per top-level target", ei);
    else if (!tb_check_variants(en, err, sizeof err))
      verr(v, "manifest: entry %s: %s", nm, err);
    ei++;
  }
  /* The reverse direction: every code object in the bundle belongs to a manifest target. */
  for (int i = 0; i < b->nentries; i++) {
    const char *tid;
    if (classify(b->entries[i].id, &tid) != EK_CODE)
      continue;
    bool found = false;
    cJSON_ArrayForEach(t, targets) {
      const char *eid = jstr(t, "bundle_entry_id");
      found |= eid && strcmp(eid, b->entries[i].id) == 0;
    }
    if (!found)
      verr(v, "%s: no manifest target names this bundle entry", b->entries[i].id);
  }
  cJSON_Delete(root);
}

/* The weights file the manifest names (constants.file, relative to the manifest's directory)
 * exists, has constants.bytes bytes and digests.weights. */
static void verify_weights(vctx *v, const char *manifest_text, const char *manifest_path) {
  cJSON *root = cJSON_Parse(manifest_text);
  const cJSON *c = cJSON_GetObjectItemCaseSensitive(root, "constants");
  const char *file = jstr(c, "file");
  long long bytes = 0;
  if (!file || !jint(c, "bytes", &bytes)) {
    cJSON_Delete(root);
    return; /* no weights file (or not a manifest: verify_manifest reports that) */
  }
  const char *slash = strrchr(manifest_path, '/');
  size_t dir = file[0] == '/' || !slash ? 0 : (size_t)(slash - manifest_path) + 1;
  size_t n = dir + strlen(file) + 1, size = 0;
  char *path = malloc(n), err[600];
  snprintf(path, n, "%.*s%s", (int)dir, manifest_path, file);
  char *data = read_file(path, &size, err, sizeof err);
  const cJSON *dg = cJSON_GetObjectItemCaseSensitive(root, "digests");
  if (!data)
    verr(v, "%s (the weights file the manifest names)", err);
  else if ((long long)size != bytes)
    verr(v, "%s has %zu bytes; the manifest says %lld", path, size, bytes);
  else if (!bnd_digest_check(jstr(dg, "weights"), data, size, path, err, sizeof err))
    verr(v, "%s", err);
  free(data);
  free(path);
  cJSON_Delete(root);
}

int tb_verify(const tb_bundle *b, const char *manifest_text, const char *manifest_path,
              FILE *out) {
  vctx v = {.out = out};
  if (b->compressed) {
    /* bnd_parse accepts a wrong hash like the bundler does; verify does not. */
    const uint8_t *plain = (const uint8_t *)(b->entries + b->nentries);
    uint64_t h = bnd_ccob_hash(plain, (size_t)b->ccob.uncompressed_size); /* the copy's size */
    if (h != b->ccob.hash)
      verr(&v, "compressed bundle hash 0x%016llx does not match its contents (0x%016llx)",
           (unsigned long long)b->ccob.hash, (unsigned long long)h);
  } else {
    size_t header = bnd_header_size(b->entries, b->nentries);
    if (header > BND_HIP_HEADER_LIMIT)
      verr(&v, "bundle header is %zu bytes; hipModuleLoadData reads only the first %d", header,
           BND_HIP_HEADER_LIMIT);
  }
  int ncode = 0;
  for (int i = 0; i < b->nentries; i++) {
    const bnd_entry *e = &b->entries[i];
    const char *tid;
    switch (classify(e->id, &tid)) {
    case EK_HOST:
      break;
    case EK_CODE:
      ncode++;
      verify_code_object(&v, e, tid);
      break;
    case EK_IR: {
      char co[160];
      snprintf(co, sizeof co, "hipv4-amdgcn-amd-amdhsa--%s", tid);
      if (e->size < 4 || memcmp(e->data, BITCODE_MAGIC, 4) != 0)
        verr(&v, "%s: not LLVM bitcode", e->id);
      if (!tb_find(b, co))
        verr(&v, "%s: no code object entry %s for this IR", e->id, co);
      break;
    }
    case EK_OTHER:
      verr(&v, "%s: unknown entry kind (expected host-, hipv4- or openmp-amdgcn-amd-amdhsa--)",
           e->id);
      break;
    }
  }
  if (ncode == 0)
    verr(&v, "bundle has no code object (hipv4-amdgcn-amd-amdhsa--...) entry");
  if (manifest_text)
    verify_manifest(&v, b, manifest_text);
  if (manifest_text && manifest_path)
    verify_weights(&v, manifest_text, manifest_path);
  if (v.errors == 0)
    fprintf(out, "ok: %d code object%s, %d kernel%s%s\n", v.objects, v.objects == 1 ? "" : "s",
            v.kernels, v.kernels == 1 ? "" : "s", manifest_text ? ", manifest agrees" : "");
  return v.errors;
}

