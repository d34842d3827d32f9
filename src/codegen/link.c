/* link.c: link relocatable AMDGPU objects into one shared code object with in-process lld.
 * lld is not thread-safe, so links are serialised with one mutex; the inputs are handed over
 * through memfds (/proc/self/fd/N), the output goes through a temporary file. */
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

/* One memfd per input object, named /proc/self/fd/N on lld's command line. */
static bool write_inputs(const cg_object *objs, int n, int *fds, char (*paths)[32], char *err,
                         size_t errsize) {
  for (int i = 0; i < n; i++) {
    fds[i] = memfd_create("tosac-obj", MFD_CLOEXEC);
    if (fds[i] < 0) {
      snprintf(err, errsize, "memfd_create: %s", strerror(errno));
      return false;
    }
    if (!write_all(fds[i], objs[i].data, objs[i].size)) {
      snprintf(err, errsize, "cannot write an object to a memfd: %s", strerror(errno));
      return false;
    }
    snprintf(paths[i], sizeof paths[i], "/proc/self/fd/%d", fds[i]);
  }
  return true;
}

static bool run_lld(const char **argv, int argc, const char *out_path, uint8_t **out,
                    size_t *out_size, char *err, size_t errsize) {
  char lld_err[1024] = "";
  int can_run_again = 1;
  int rc = cg_lld_main(argc, argv, lld_err, sizeof lld_err, &can_run_again);
  if (!can_run_again)
    lld_broken = true;
  if (rc != 0) {
    size_t n = strlen(lld_err);
    while (n && lld_err[n - 1] == '\n')
      lld_err[--n] = 0;
    snprintf(err, errsize, "lld failed (exit %d): %s", rc, lld_err[0] ? lld_err : "no message");
    return false;
  }
  /* lld replaces the output file (rename), so reopen it by name. */
  int rfd = open(out_path, O_RDONLY | O_CLOEXEC);
  if (rfd < 0 || !(*out = read_fd(rfd, out_size))) {
    snprintf(err, errsize, "cannot read the linked code object %s", out_path);
    if (rfd >= 0)
      close(rfd);
    return false;
  }
  close(rfd);
  return true;
}

static bool link_locked(const cg_object *objs, int n, uint8_t **out, size_t *out_size, char *err,
                        size_t errsize) {
  if (lld_broken) {
    snprintf(err, errsize, "lld crashed earlier in this process and cannot run again");
    return false;
  }
  int *fds = malloc((size_t)n * sizeof *fds);
  char(*paths)[32] = malloc((size_t)n * sizeof *paths);
  const char **argv = malloc(((size_t)n + 8) * sizeof *argv);
  for (int i = 0; i < n; i++)
    fds[i] = -1;
  char out_path[] = "/tmp/tosac-link-XXXXXX";
  int out_fd = -1;
  bool ok = false;
  if (!write_inputs(objs, n, fds, paths, err, errsize))
    goto done;
  if ((out_fd = mkstemp(out_path)) < 0) {
    snprintf(err, errsize, "mkstemp: %s", strerror(errno));
    goto done;
  }
  static const char *const flags[] = {"ld.lld", "-shared", "-m", "elf64_amdgpu", "--no-undefined"};
  int argc = 0;
  for (size_t i = 0; i < sizeof flags / sizeof flags[0]; i++)
    argv[argc++] = flags[i];
  for (int i = 0; i < n; i++)
    argv[argc++] = paths[i];
  argv[argc++] = "-o";
  argv[argc++] = out_path;
  ok = run_lld(argv, argc, out_path, out, out_size, err, errsize);
done:
  for (int i = 0; i < n; i++)
    if (fds[i] >= 0)
      close(fds[i]);
  if (out_fd >= 0) {
    close(out_fd);
    unlink(out_path);
  }
  free(fds);
  free(paths);
  free(argv);
  return ok;
}

bool cg_link(const cg_object *objs, int n, uint8_t **out, size_t *out_size, char *err,
             size_t errsize) {
  pthread_mutex_lock(&link_mutex);
  bool ok = link_locked(objs, n, out, out_size, err, errsize);
  pthread_mutex_unlock(&link_mutex);
  return ok;
}
