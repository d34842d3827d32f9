/* files.c: whole-file reads and crash-safe writes (temporary name, then rename). */
#include "tosac.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

char *read_file(const char *path, size_t *size, char *err, size_t errsize) {
  bool is_stdin = strcmp(path, "-") == 0;
  FILE *f = is_stdin ? stdin : fopen(path, "rb");
  if (!f) {
    snprintf(err, errsize, "cannot read '%s': %s", path, strerror(errno));
    return NULL;
  }
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

/* Devices, pipes and terminals (/dev/null, /dev/stdout) are written in place: renaming a
 * temporary file over them would replace the device with a regular file. */
static bool write_in_place(const char *path, const void *data, size_t size, char *err,
                           size_t errsize) {
  int fd = open(path, O_WRONLY | O_TRUNC);
  const char *p = data;
  size_t left = size;
  while (fd >= 0 && left > 0) {
    ssize_t w = write(fd, p, left);
    if (w < 0 && errno == EINTR)
      continue;
    if (w <= 0)
      break;
    p += w;
    left -= (size_t)w;
  }
  bool ok = fd >= 0 && left == 0;
  if (fd >= 0 && close(fd) != 0)
    ok = false;
  if (!ok)
    snprintf(err, errsize, "cannot write '%s': %s", path, strerror(errno ? errno : EIO));
  return ok;
}

bool write_file_atomic(const char *path, const void *data, size_t size, char *err,
                       size_t errsize) {
  struct stat st;
  if (stat(path, &st) == 0 && !S_ISREG(st.st_mode)) {
    if (S_ISDIR(st.st_mode)) {
      snprintf(err, errsize, "cannot write '%s': Is a directory", path);
      return false;
    }
    return write_in_place(path, data, size, err, errsize);
  }
  size_t len = strlen(path);
  char *tmp = malloc(len + 16);
  if (!tmp) {
    snprintf(err, errsize, "cannot write '%s': out of memory", path);
    return false;
  }
  snprintf(tmp, len + 16, "%s.tmpXXXXXX", path);
  int fd = mkstemp(tmp);
  if (fd < 0) {
    snprintf(err, errsize, "cannot write '%s': %s", path, strerror(errno));
    free(tmp);
    return false;
  }
  const char *p = data;
  size_t left = size;
  while (left > 0) {
    ssize_t w = write(fd, p, left);
    if (w < 0 && errno == EINTR)
      continue;
    if (w <= 0)
      break;
    p += w;
    left -= (size_t)w;
  }
  /* mkstemp creates 0600; outputs get the usual umask-derived mode like any compiler output. */
  mode_t mask = umask(0);
  umask(mask);
  bool ok = left == 0 && fchmod(fd, 0666 & ~mask) == 0;
  ok = close(fd) == 0 && ok;
  if (!ok || rename(tmp, path) != 0) {
    snprintf(err, errsize, "cannot write '%s': %s", path, strerror(errno ? errno : EIO));
    unlink(tmp);
    free(tmp);
    return false;
  }
  free(tmp);
  return true;
}
