/* files.c: whole-file reads, mapped source text, and crash-safe writes (temporary name, then
 * rename). */
#include "tosac.h"

#include <pthread.h>

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

/* The rest of stream f (closed afterwards unless it is stdin). */
static char *read_stream(FILE *f, bool is_stdin, const char *path, size_t *size, char *err,
                         size_t errsize) {
  struct stat st = {0};
  if (!is_stdin && fstat(fileno(f), &st) == 0 && S_ISDIR(st.st_mode)) {
    snprintf(err, errsize, "cannot read '%s': Is a directory", path);
    fclose(f);
    return NULL;
  }
  /* A regular file is read into one allocation of its size: no regrowth copies. */
  size_t cap = !is_stdin && fstat(fileno(f), &st) == 0 && S_ISREG(st.st_mode) && st.st_size > 0
                   ? (size_t)st.st_size + 1
                   : 1 << 16,
         n = 0;
  char *buf = malloc(cap + 1);
  for (;;) {
    if (!buf) {
      snprintf(err, errsize, "cannot read '%s': out of memory", path);
      break;
    }
    size_t got = fread(buf + n, 1, cap - n, f);
    n += got;
    if (got == 0)
      break;
    if (n == cap) {
      char *nb = realloc(buf, cap * 2 + 1);
      if (!nb)
        free(buf);
      buf = nb;
      cap *= 2;
    }
  }
  bool failed = !buf || ferror(f);
  if (buf && ferror(f))
    snprintf(err, errsize, "cannot read '%s': %s", path, strerror(errno));
  if (!is_stdin)
    fclose(f);
  if (failed) {
    free(buf);
    return NULL;
  }
  buf[n] = 0;
  *size = n;
  return buf;
}

char *read_file(const char *path, size_t *size, char *err, size_t errsize) {
  bool is_stdin = strcmp(path, "-") == 0;
  FILE *f = is_stdin ? stdin : fopen(path, "rb");
  if (!f) {
    snprintf(err, errsize, "cannot read '%s': %s", path, strerror(errno));
    return NULL;
  }
  return read_stream(f, is_stdin, path, size, err, errsize);
}

/* ---------------------------------------------------------------- source text */
static size_t page_size(void) {
  static size_t ps;
  if (!ps) {
    long v = sysconf(_SC_PAGESIZE);
    ps = v > 0 ? (size_t)v : 4096;
  }
  return ps;
}

/* The mapping is one page longer than the file when the file fills its last page, so the
 * byte after the text is a readable NUL either way: the kernel zero-fills the rest of the
 * file's last page, and an anonymous page reserved under the mapping supplies the NUL when
 * there is no rest. */
static size_t mapping_size(size_t len) {
  size_t ps = page_size();
  return (len + 1 + ps - 1) / ps * ps;
}

static char *map_text(int fd, size_t len) {
  size_t total = mapping_size(len);
  char *base = mmap(NULL, total, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (base == MAP_FAILED)
    return NULL;
  if (mmap(base, len, PROT_READ, MAP_PRIVATE | MAP_FIXED, fd, 0) == MAP_FAILED) {
    munmap(base, total);
    return NULL;
  }
  return base;
}

char *source_load(const char *path, size_t *size, bool *mapped, char *err, size_t errsize) {
  *mapped = false;
  struct stat st;
  int fd = strcmp(path, "-") ? open(path, O_RDONLY) : -1;
  /* Only non-empty regular files are mapped (mmap of length 0 fails, and /proc files report
   * size 0); if mapping fails for any reason the read path still works. */
  if (fd >= 0 && fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && st.st_size > 0 &&
      (uint64_t)st.st_size < SIZE_MAX / 2) {
    char *text = map_text(fd, (size_t)st.st_size);
    if (text) {
      close(fd);
      /* Read once, front to back: ask for read-ahead and no lingering pages. */
      madvise(text, (size_t)st.st_size, MADV_SEQUENTIAL);
      *mapped = true;
      *size = (size_t)st.st_size;
      return text;
    }
  }
  /* A named pipe is read through the descriptor already open: reopening it could lose what
   * the writer sent. */
  FILE *f = fd >= 0 ? fdopen(fd, "rb") : NULL;
  if (f)
    return read_stream(f, false, path, size, err, errsize);
  if (fd >= 0)
    close(fd);
  return read_file(path, size, err, errsize);
}

void source_unload(char *text, size_t size, bool mapped) {
  if (mapped)
    munmap(text, mapping_size(size));
  else
    free(text);
}

const char *source_release(const source_file *src, const char *from, const char *to) {
  if (!src->mapped || to <= from)
    return from;
  uintptr_t ps = page_size(), lo = ((uintptr_t)from + ps - 1) & ~(ps - 1), hi = (uintptr_t)to & ~(ps - 1);
  if (hi <= lo)
    return from;
  /* Private, read-only and never written: dropping the pages loses nothing, a later read
   * (a diagnostic's source line) faults them back in from the file. */
  madvise((void *)lo, hi - lo, MADV_DONTNEED);
  return (const char *)hi;
}

static bool write_all(int fd, const void *data, size_t size) {
  const char *p = data;
  while (size > 0) {
    ssize_t w = write(fd, p, size);
    if (w < 0 && errno == EINTR)
      continue;
    if (w <= 0)
      return false;
    p += w;
    size -= (size_t)w;
  }
  return true;
}

/* Devices, pipes and terminals (/dev/null, /dev/stdout) are written in place: renaming a
 * temporary file over them would replace the device with a regular file. */
static bool write_in_place(const char *path, file_writer fill, const void *ctx, char *err,
                           size_t errsize) {
  int fd = open(path, O_WRONLY | O_TRUNC);
  errno = 0;
  bool ok = fd >= 0 && fill(fd, ctx);
  if (fd >= 0 && close(fd) != 0)
    ok = false;
  if (!ok)
    snprintf(err, errsize, "cannot write '%s': %s", path, strerror(errno ? errno : EIO));
  return ok;
}

/* Where the symlink `path` points, relative targets taken from the link's directory; NULL if
 * path is not a symlink. Malloc'd. */
static char *link_target(const char *path) {
  struct stat st;
  if (lstat(path, &st) != 0 || !S_ISLNK(st.st_mode))
    return NULL;
  char *real = realpath(path, NULL); /* the whole chain, when its end exists */
  if (real)
    return real;
  char target[4096];
  ssize_t n = readlink(path, target, sizeof target - 1);
  if (n <= 0)
    return NULL;
  target[n] = 0;
  const char *slash = strrchr(path, '/');
  size_t dir = target[0] == '/' || !slash ? 0 : (size_t)(slash - path) + 1;
  char *out = malloc(dir + (size_t)n + 1);
  if (out)
    snprintf(out, dir + (size_t)n + 1, "%.*s%s", (int)dir, path, target);
  return out;
}

/* umask can only be read by setting it: done once, before any thread of a library client could
 * create files under a briefly zero mask. */
static mode_t umask_value;
static pthread_once_t umask_once = PTHREAD_ONCE_INIT;
static void read_umask(void) {
  umask_value = umask(0);
  umask(umask_value);
}
static mode_t process_umask(void) {
  pthread_once(&umask_once, read_umask);
  return umask_value;
}

/* An unnamed regular file in path's directory; -1 where the filesystem has no O_TMPFILE. */
static int open_unnamed(const char *path) {
  const char *slash = strrchr(path, '/');
  char *dir = slash ? strndup(path, slash == path ? 1 : (size_t)(slash - path)) : strdup(".");
  int fd = dir ? open(dir, O_TMPFILE | O_WRONLY | O_CLOEXEC, 0600) : -1;
  free(dir);
  return fd;
}

/* Give the unnamed file fd a fresh name: tmp's XXXXXX replaced until linkat finds it free. */
static bool link_unnamed(int fd, char *tmp) {
  char proc[64];
  snprintf(proc, sizeof proc, "/proc/self/fd/%d", fd);
  size_t n = strlen(tmp);
  for (int attempt = 0; attempt < 100; attempt++) {
    static const char digits[] = "abcdefghijklmnopqrstuvwxyz0123456789";
    unsigned long long r = ((unsigned long long)getpid() << 20) ^ (unsigned long long)attempt ^
                           (unsigned long long)(uintptr_t)tmp * 2654435761u ^ (unsigned)random();
    for (int i = 0; i < 6; i++, r /= 36)
      tmp[n - 6 + i] = digits[r % 36];
    if (linkat(AT_FDCWD, proc, AT_FDCWD, tmp, AT_SYMLINK_FOLLOW) == 0)
      return true;
    if (errno != EEXIST)
      return false;
  }
  return false;
}

/* A file written but not yet in place (stage_file / commit_staged). */
struct staged_file {
  char *path;  /* final name (symlinks resolved) */
  char *tmp;   /* temporary name: mkstemp's, or the pattern link_unnamed fills in */
  int fd;      /* open until the commit; -1 when written in place (devices) */
  bool unnamed;
};

static void staged_free(staged_file *f) {
  if (!f)
    return;
  if (f->fd >= 0)
    close(f->fd);
  if (f->fd >= 0 && !f->unnamed)
    unlink(f->tmp);
  free(f->path);
  free(f->tmp);
  free(f);
}

static staged_file *stage(const char *path, file_writer fill, const void *ctx, char *err,
                          size_t errsize) {
  struct stat st;
  /* A symlink (/dev/stdout -> /proc/self/fd/1 redirected to a file, a link to a build output)
   * is followed: renaming the temporary over the link itself would replace the link. A chain
   * of dangling links is followed a bounded number of times. */
  char *target = link_target(path);
  for (int hops = 0; target; hops++) {
    char *next = link_target(target);
    if (!next) {
      staged_file *f = stage(target, fill, ctx, err, errsize);
      free(target);
      return f;
    }
    free(target);
    target = next;
    if (hops == 40) {
      free(target);
      snprintf(err, errsize, "cannot write '%s': Too many levels of symbolic links", path);
      return NULL;
    }
  }
  staged_file *f = calloc(1, sizeof *f);
  size_t len = strlen(path);
  if (f && (f->path = strdup(path)) && (f->tmp = malloc(len + 16)))
    snprintf(f->tmp, len + 16, "%s.tmpXXXXXX", path);
  if (!f || !f->tmp) {
    snprintf(err, errsize, "cannot write '%s': out of memory", path);
    staged_free(f);
    return NULL;
  }
  f->fd = -1;
  if (stat(path, &st) == 0 && !S_ISREG(st.st_mode)) {
    bool ok = !S_ISDIR(st.st_mode) && write_in_place(path, fill, ctx, err, errsize);
    if (S_ISDIR(st.st_mode))
      snprintf(err, errsize, "cannot write '%s': Is a directory", path);
    if (!ok) {
      staged_free(f);
      return NULL;
    }
    return f; /* nothing left to commit */
  }
  /* The bytes go to an unnamed file (O_TMPFILE) in the output's directory: a run killed
   * before the commit leaves nothing behind. Only for the instant between linking it under a
   * temporary name and the rename does a name exist (`<path>.tmpXXXXXX`, as on filesystems
   * without O_TMPFILE, where mkstemp makes it first). */
  f->fd = open_unnamed(path);
  f->unnamed = f->fd >= 0;
  if (!f->unnamed && (f->fd = mkstemp(f->tmp)) < 0) {
    snprintf(err, errsize, "cannot write '%s': %s", path, strerror(errno));
    staged_free(f);
    return NULL;
  }
  errno = 0;
  bool ok = fill(f->fd, ctx);
  /* Outputs get the usual umask-derived mode like any compiler output (mkstemp makes 0600). */
  ok = ok && fchmod(f->fd, 0666 & ~process_umask()) == 0;
  if (!ok) {
    snprintf(err, errsize, "cannot write '%s': %s", path, strerror(errno ? errno : EIO));
    staged_free(f);
    return NULL;
  }
  return f;
}

/* Give f its final name: link the unnamed file under a temporary name, then rename. */
static bool commit_one(staged_file *f, char *err, size_t errsize) {
  if (f->fd < 0)
    return true; /* written in place */
  errno = 0;
  bool ok = !f->unnamed || link_unnamed(f->fd, f->tmp);
  ok = close(f->fd) == 0 && ok;
  bool linked = ok || !f->unnamed;
  f->fd = -1;
  if (ok && rename(f->tmp, f->path) == 0)
    return true;
  snprintf(err, errsize, "cannot write '%s': %s", f->path, strerror(errno ? errno : EIO));
  if (linked)
    unlink(f->tmp);
  return false;
}

bool commit_staged(staged_file **files, int n, char *err, size_t errsize) {
  bool ok = true;
  for (int i = 0; i < n; i++) {
    if (!files[i])
      ok = false; /* a stage that failed: its message is already in err */
    else if (ok)
      ok = commit_one(files[i], err, errsize);
    staged_free(files[i]);
    files[i] = NULL;
  }
  return ok;
}

void discard_staged(staged_file **files, int n) {
  for (int i = 0; i < n; i++) {
    staged_free(files[i]);
    files[i] = NULL;
  }
}

static bool write_via_temp(const char *path, file_writer fill, const void *ctx, char *err,
                           size_t errsize) {
  staged_file *f = stage(path, fill, ctx, err, errsize);
  return f && commit_staged(&f, 1, err, errsize);
}

typedef struct bytes_ctx {
  const void *data;
  size_t size;
} bytes_ctx;

static bool write_bytes(int fd, const void *ctx) {
  const bytes_ctx *b = ctx;
  return write_all(fd, b->data, b->size);
}

bool write_file_atomic(const char *path, const void *data, size_t size, char *err,
                       size_t errsize) {
  bytes_ctx b = {data, size};
  return write_via_temp(path, write_bytes, &b, err, errsize);
}

typedef struct pieces_ctx {
  size_t total;
  const file_piece *pieces;
  int n;
} pieces_ctx;

/* `span` bytes of `size`-byte data repeated (a zero gap is data = NULL). Written through one
 * 64 KiB buffer of whole repeats. */
static bool write_repeated(int fd, const void *data, size_t size, size_t span) {
  unsigned char buf[1 << 16];
  if (data && (size == 0 || size > sizeof buf))
    return false; /* elements are at most 8 bytes */
  size_t fill = data ? sizeof buf / size * size : sizeof buf;
  if (!data)
    memset(buf, 0, fill);
  for (size_t o = 0; data && o < fill; o += size)
    memcpy(buf + o, data, size);
  while (span > 0) {
    size_t n = span < fill ? span : fill;
    if (!write_all(fd, buf, n))
      return false;
    span -= n;
  }
  return true;
}

static bool write_pieces(int fd, const void *ctx) {
  const pieces_ctx *c = ctx;
  size_t at = 0;
  for (int i = 0; i < c->n; i++) {
    const file_piece *pc = &c->pieces[i];
    if (pc->offset < at || pc->offset + pc->span > c->total)
      return false; /* overlapping or out of range: a caller bug */
    if (pc->offset > at && !write_repeated(fd, NULL, 0, pc->offset - at))
      return false;
    bool ok = pc->span == pc->size ? write_all(fd, pc->data, pc->size)
                                   : write_repeated(fd, pc->data, pc->size, pc->span);
    if (!ok)
      return false;
    at = pc->offset + pc->span;
  }
  return at == c->total || write_repeated(fd, NULL, 0, c->total - at);
}

bool write_file_pieces(const char *path, size_t total, const file_piece *pieces, int n, char *err,
                       size_t errsize) {
  pieces_ctx c = {total, pieces, n};
  return write_via_temp(path, write_pieces, &c, err, errsize);
}

staged_file *stage_file(const char *path, const void *data, size_t size, char *err,
                        size_t errsize) {
  bytes_ctx b = {data, size};
  return stage(path, write_bytes, &b, err, errsize);
}

staged_file *stage_file_pieces(const char *path, size_t total, const file_piece *pieces, int n,
                               char *err, size_t errsize) {
  pieces_ctx c = {total, pieces, n};
  return stage(path, write_pieces, &c, err, errsize);
}

staged_file *stage_file_with(const char *path, file_writer fill, const void *ctx, char *err,
                             size_t errsize) {
  return stage(path, fill, ctx, err, errsize);
}
