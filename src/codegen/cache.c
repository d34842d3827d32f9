/* cache.c: the persistent kernel cache (docs/library.md#kernel-cache).
 *
 * An entry is one work item's object (and, when IR outputs are wanted, its optimised bitcode),
 * keyed by the SHA-256 of everything that determines them: the cache format, tosac's and LLVM's
 * versions, the target (processor and features), the optimisation level, the code object
 * version, which IR outputs are kept, and the work item's unoptimised module as bitcode. The
 * module is built anyway (it is cheap); the cache saves the optimiser and the code generator.
 *
 * Files: DIR/objects/xx/<key> (xx = the key's first two hex digits), each
 *   "TOSACKC1" | u64 object size | u64 bitcode size | SHA-256 of the payload | payload,
 * written to a temporary in the same directory and renamed, so a reader never sees a partial
 * entry; a truncated or damaged entry fails its digest, is removed and recompiled. A hit
 * touches the entry's modification time, which is what least-recently-used eviction sorts by.
 * DIR/stats keeps the hit and miss totals (updated under flock). */
#include "codegen.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <llvm-c/BitWriter.h>
#include <llvm/Config/llvm-config.h>
#include <sha2.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#define CACHE_MAGIC "TOSACKC1"
#define HEADER_BYTES (8 + 8 + 8 + SHA256_DIGEST_LENGTH)
/* Temporaries of a killed writer are removed by the next eviction pass once this old. */
#define STALE_TEMP_SECONDS 3600

static char *path_join(const char *a, const char *b) {
  size_t n = strlen(a) + strlen(b) + 2;
  char *s = malloc(n);
  if (s)
    snprintf(s, n, "%s/%s", a, b);
  return s;
}

static bool make_dir(const char *path, char *err, size_t errsize) {
  if (mkdir(path, 0777) == 0 || errno == EEXIST)
    return true;
  snprintf(err, errsize, "cannot create the kernel cache directory '%s': %s", path,
           strerror(errno));
  return false;
}

bool cg_cache_open(cg_cache *c, const char *dir, uint64_t max_size, char *err, size_t errsize) {
  memset(c, 0, sizeof *c);
  c->dir = strdup(dir);
  c->objects = path_join(dir, "objects");
  c->max_size = max_size;
  if (!c->dir || !c->objects) {
    snprintf(err, errsize, "out of memory");
    return false;
  }
  if (!make_dir(c->dir, err, errsize) || !make_dir(c->objects, err, errsize))
    return false;
  return true;
}

void cg_cache_close(cg_cache *c) {
  free(c->dir);
  free(c->objects);
  memset(c, 0, sizeof *c);
}

static void hash_str(SHA2_CTX *h, const char *s) {
  uint64_t n = s ? strlen(s) : 0;
  SHA256Update(h, (const uint8_t *)&n, sizeof n);
  if (n)
    SHA256Update(h, (const uint8_t *)s, n);
}

static void to_hex(const uint8_t *d, int n, char *out) {
  static const char hex[] = "0123456789abcdef";
  for (int i = 0; i < n; i++)
    out[2 * i] = hex[d[i] >> 4], out[2 * i + 1] = hex[d[i] & 15];
  out[2 * n] = 0;
}

void cg_cache_key(const cg_options *opt, const target_request *t, bool need_ir, LLVMModuleRef m,
                  char key[CG_CACHE_KEY_LEN]) {
  SHA2_CTX h;
  SHA256Init(&h);
  hash_str(&h, "tosac kernel cache 1");
  hash_str(&h, TOSAC_VERSION);
  hash_str(&h, LLVM_VERSION_STRING);
  hash_str(&h, t->info->name);
  hash_str(&h, t->features);
  char num[64];
  snprintf(num, sizeof num, "O%d cov%d ir%d", opt->opt_level, opt->code_object_version,
           need_ir ? 1 : 0);
  hash_str(&h, num);
  LLVMMemoryBufferRef bc = LLVMWriteBitcodeToMemoryBuffer(m);
  SHA256Update(&h, (const uint8_t *)LLVMGetBufferStart(bc), LLVMGetBufferSize(bc));
  LLVMDisposeMemoryBuffer(bc);
  uint8_t d[SHA256_DIGEST_LENGTH];
  SHA256Final(d, &h);
  to_hex(d, SHA256_DIGEST_LENGTH, key);
}

static char *entry_path(const cg_cache *c, const char *key, bool make_parent) {
  char sub[3] = {key[0], key[1], 0};
  char *dir = path_join(c->objects, sub);
  if (!dir)
    return NULL;
  if (make_parent && mkdir(dir, 0777) != 0 && errno != EEXIST) {
    free(dir);
    return NULL;
  }
  char *p = path_join(dir, key);
  free(dir);
  return p;
}

static uint64_t get_u64(const uint8_t *p) {
  uint64_t v;
  memcpy(&v, p, sizeof v);
  return v;
}

static bool payload_ok(const uint8_t *data, size_t size, uint64_t *nobj, uint64_t *nbc) {
  if (size < HEADER_BYTES || memcmp(data, CACHE_MAGIC, 8) != 0)
    return false;
  *nobj = get_u64(data + 8), *nbc = get_u64(data + 16);
  if (*nobj == 0 || *nobj > size || *nbc > size || HEADER_BYTES + *nobj + *nbc != size)
    return false;
  uint8_t d[SHA256_DIGEST_LENGTH];
  SHA2_CTX h;
  SHA256Init(&h);
  SHA256Update(&h, data + HEADER_BYTES, size - HEADER_BYTES);
  SHA256Final(d, &h);
  return memcmp(d, data + 24, SHA256_DIGEST_LENGTH) == 0;
}

static uint8_t *copy_bytes(const uint8_t *p, size_t n) {
  uint8_t *q = malloc(n ? n : 1);
  if (q && n)
    memcpy(q, p, n);
  return q;
}

bool cg_cache_get(cg_cache *c, const char *key, bool need_ir, cg_object *obj, cg_object *bc) {
  char *path = entry_path(c, key, false);
  char err[256];
  size_t size = 0;
  uint8_t *data = path ? (uint8_t *)read_file(path, &size, err, sizeof err) : NULL;
  uint64_t nobj = 0, nbc = 0;
  bool ok = data && payload_ok(data, size, &nobj, &nbc) && (!need_ir || nbc > 0);
  if (ok) {
    obj->data = copy_bytes(data + HEADER_BYTES, nobj), obj->size = nobj;
    if (need_ir)
      bc->data = copy_bytes(data + HEADER_BYTES + nobj, nbc), bc->size = nbc;
    utimensat(AT_FDCWD, path, NULL, 0); /* most recently used now */
  } else if (data) {
    unlink(path); /* damaged: recompiled and rewritten by this compile */
  }
  atomic_fetch_add(ok ? &c->hits : &c->misses, 1);
  free(data);
  free(path);
  return ok;
}

void cg_cache_put(cg_cache *c, const char *key, const cg_object *obj, const cg_object *bc) {
  size_t nbc = bc && bc->data ? bc->size : 0, size = HEADER_BYTES + obj->size + nbc;
  uint8_t *data = malloc(size);
  char *path = entry_path(c, key, true);
  if (data && path) {
    uint64_t a = obj->size, b = nbc;
    memcpy(data, CACHE_MAGIC, 8);
    memcpy(data + 8, &a, 8);
    memcpy(data + 16, &b, 8);
    memcpy(data + HEADER_BYTES, obj->data, obj->size);
    if (nbc)
      memcpy(data + HEADER_BYTES + obj->size, bc->data, nbc);
    SHA2_CTX h;
    SHA256Init(&h);
    SHA256Update(&h, data + HEADER_BYTES, size - HEADER_BYTES);
    SHA256Final(data + 24, &h);
    char err[512];
    /* A failed store only costs a later recompile; the compile itself goes on. */
    (void)write_file_atomic(path, data, size, err, sizeof err);
  }
  free(data);
  free(path);
}

/* ---------------------------------------------------------------- totals and eviction */
typedef struct cache_file {
  char *path;
  uint64_t size;
  struct timespec mtime;
} cache_file;

static int older_first(const void *a, const void *b) {
  const cache_file *x = a, *y = b;
  if (x->mtime.tv_sec != y->mtime.tv_sec)
    return x->mtime.tv_sec < y->mtime.tv_sec ? -1 : 1;
  if (x->mtime.tv_nsec != y->mtime.tv_nsec)
    return x->mtime.tv_nsec < y->mtime.tv_nsec ? -1 : 1;
  return strcmp(x->path, y->path);
}

/* Every entry under objects/ (stale temporaries of killed writers are removed on the way). */
static cache_file *list_entries(const char *objects, int *n, uint64_t *total) {
  cache_file *v = NULL;
  int cap = 0;
  *n = 0, *total = 0;
  DIR *top = opendir(objects);
  struct dirent *e;
  time_t now = time(NULL);
  while (top && (e = readdir(top))) {
    if (e->d_name[0] == '.')
      continue;
    char *sub = path_join(objects, e->d_name);
    DIR *d = sub ? opendir(sub) : NULL;
    struct dirent *f;
    while (d && (f = readdir(d))) {
      struct stat st;
      char *p = f->d_name[0] == '.' ? NULL : path_join(sub, f->d_name);
      if (!p || stat(p, &st) != 0 || !S_ISREG(st.st_mode)) {
        free(p);
        continue;
      }
      if (strstr(f->d_name, ".tmp")) {
        if (now - st.st_mtime > STALE_TEMP_SECONDS)
          unlink(p);
        free(p);
        continue;
      }
      if (*n == cap) {
        cap = cap ? 2 * cap : 64;
        v = realloc(v, (size_t)cap * sizeof *v);
      }
      v[(*n)++] = (cache_file){p, (uint64_t)st.st_size, st.st_mtim};
      *total += (uint64_t)st.st_size;
    }
    if (d)
      closedir(d);
    free(sub);
  }
  if (top)
    closedir(top);
  return v;
}

static void read_totals(FILE *f, uint64_t *hits, uint64_t *misses) {
  unsigned long long h = 0, m = 0;
  *hits = *misses = 0;
  rewind(f);
  if (fscanf(f, "hits %llu\nmisses %llu\n", &h, &m) == 2)
    *hits = h, *misses = m;
}

/* The stats file, opened and locked (the caller unlocks by closing). */
static FILE *open_stats(const char *dir, bool create) {
  char *path = path_join(dir, "stats");
  int fd = path ? open(path, create ? O_RDWR | O_CREAT | O_CLOEXEC : O_RDONLY | O_CLOEXEC, 0666)
                : -1;
  free(path);
  if (fd < 0)
    return NULL;
  flock(fd, create ? LOCK_EX : LOCK_SH);
  FILE *f = fdopen(fd, create ? "r+" : "r");
  if (!f)
    close(fd);
  return f;
}

void cg_cache_finish(cg_cache *c) {
  FILE *f = open_stats(c->dir, true);
  if (!f)
    return;
  uint64_t hits, misses;
  read_totals(f, &hits, &misses);
  hits += atomic_load(&c->hits), misses += atomic_load(&c->misses);
  rewind(f);
  if (ftruncate(fileno(f), 0) == 0)
    fprintf(f, "hits %llu\nmisses %llu\n", (unsigned long long)hits, (unsigned long long)misses);
  fflush(f);
  /* Eviction runs under the same lock, so two compiles never evict at once. */
  int n = 0;
  uint64_t total = 0;
  cache_file *v = list_entries(c->objects, &n, &total);
  if (c->max_size && total > c->max_size) {
    qsort(v, (size_t)n, sizeof *v, older_first);
    for (int i = 0; i < n && total > c->max_size; i++)
      if (unlink(v[i].path) == 0)
        total -= v[i].size;
  }
  for (int i = 0; i < n; i++)
    free(v[i].path);
  free(v);
  fclose(f);
}

bool cg_cache_stats(const char *dir, uint64_t *hits, uint64_t *misses, uint64_t *entries,
                    uint64_t *bytes) {
  char *objects = path_join(dir, "objects");
  struct stat st;
  bool ok = objects && stat(objects, &st) == 0 && S_ISDIR(st.st_mode);
  *hits = *misses = *entries = *bytes = 0;
  if (ok) {
    FILE *f = open_stats(dir, false);
    if (f) {
      read_totals(f, hits, misses);
      fclose(f);
    }
    int n = 0;
    cache_file *v = list_entries(objects, &n, bytes);
    for (int i = 0; i < n; i++)
      free(v[i].path);
    free(v);
    *entries = (uint64_t)n;
  }
  free(objects);
  return ok;
}
