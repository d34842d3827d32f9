/* link.c: link a relocatable AMDGPU object into a shared code object with in-process lld.
 * lld is not thread-safe, so links are serialised with one mutex; the input is handed over
 * through a memfd (/proc/self/fd/N), the output goes through a temporary file. */
#include "codegen.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

static pthread_mutex_t link_mutex = PTHREAD_MUTEX_INITIALIZER;
static bool lld_broken; /* lld crashed once: it must not run again in this process */

static bool write_all(int fd, const uint8_t *p, size_t n) {
  while (n) {
    ssize_t w = write(fd, p, n);
    if (w < 0 && errno == EINTR)
      continue;
    if (w <= 0)
      return false;
    p += w;
    n -= (size_t)w;
  }
  return true;
}

static uint8_t *read_fd(int fd, size_t *size) {
  off_t end = lseek(fd, 0, SEEK_END);
  if (end < 0 || lseek(fd, 0, SEEK_SET) < 0)
    return NULL;
  uint8_t *buf = malloc(end ? (size_t)end : 1);
  size_t got = 0;
  while (got < (size_t)end) {
    ssize_t r = read(fd, buf + got, (size_t)end - got);
    if (r < 0 && errno == EINTR)
      continue;
    if (r <= 0) {
      free(buf);
      return NULL;
    }
    got += (size_t)r;
  }
  *size = got;
  return buf;
}

static bool link_locked(const uint8_t *obj, size_t size, uint8_t **out, size_t *out_size,
                        char *err, size_t errsize) {
  if (lld_broken) {
    snprintf(err, errsize, "lld crashed earlier in this process and cannot run again");
    return false;
  }
  int in_fd = memfd_create("tosac-obj", MFD_CLOEXEC);
  if (in_fd < 0) {
    snprintf(err, errsize, "memfd_create: %s", strerror(errno));
    return false;
  }
  char out_path[] = "/tmp/tosac-link-XXXXXX";
  int out_fd = mkstemp(out_path);
  if (out_fd < 0) {
    snprintf(err, errsize, "mkstemp: %s", strerror(errno));
    close(in_fd);
    return false;
  }
  bool ok = false;
  if (!write_all(in_fd, obj, size)) {
    snprintf(err, errsize, "cannot write the object to a memfd: %s", strerror(errno));
    goto done;
  }
  char in_path[64];
  snprintf(in_path, sizeof in_path, "/proc/self/fd/%d", in_fd);
  const char *argv[] = {"ld.lld", "-shared", "-m", "elf64_amdgpu", "--no-undefined",
                        in_path,  "-o",      out_path};
  char lld_err[1024] = "";
  int can_run_again = 1;
  int rc = cg_lld_main((int)(sizeof argv / sizeof argv[0]), argv, lld_err, sizeof lld_err,
                       &can_run_again);
  if (!can_run_again)
    lld_broken = true;
  if (rc != 0) {
    size_t n = strlen(lld_err);
    while (n && lld_err[n - 1] == '\n')
      lld_err[--n] = 0;
    snprintf(err, errsize, "lld failed (exit %d): %s", rc, lld_err[0] ? lld_err : "no message");
    goto done;
  }
  /* lld replaces the output file (rename), so reopen it by name. */
  int rfd = open(out_path, O_RDONLY | O_CLOEXEC);
  if (rfd < 0 || !(*out = read_fd(rfd, out_size))) {
    snprintf(err, errsize, "cannot read the linked code object %s", out_path);
    if (rfd >= 0)
      close(rfd);
    goto done;
  }
  close(rfd);
  ok = true;
done:
  close(in_fd);
  close(out_fd);
  unlink(out_path);
  return ok;
}

bool cg_link(const uint8_t *obj, size_t size, uint8_t **out, size_t *out_size, char *err,
             size_t errsize) {
  pthread_mutex_lock(&link_mutex);
  bool ok = link_locked(obj, size, out, out_size, err, errsize);
  pthread_mutex_unlock(&link_mutex);
  return ok;
}
