/* atomic.c - whole-file writes that are never seen half-done, and mkdir -p.
 *
 * The data goes to "<path>.tmp.<pid>" (created O_EXCL so that two writers
 * never share a temp file; under SimGrid SMPI all ranks share one pid, so a
 * numeric suffix is added when the name is taken), is flushed to disk, and
 * is renamed over <path>. Readers (gnuplot, graders, `make figures`) see the
 * old file or the new one, never a prefix. On any error the temp file is
 * removed and -1 is returned with a message naming <path>; a SIGINT,
 * SIGTERM or SIGHUP while it exists removes it too (pending.c). */
#include "results.h"
#include "pending.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../util/common.h"

/* Create the temp file; fills tmp and *slot (its entry in the table of
 * files a signal removes: registered before the file exists, so there is
 * no moment when it exists unregistered). -1 with errno set on failure. */
static int open_temp(const char *path, char *tmp, size_t cap, int *slot)
{
    long pid = (long)getpid();
    for (int attempt = 0; attempt < 100; attempt++) {
        int n = attempt == 0 ? snprintf(tmp, cap, "%s.tmp.%ld", path, pid)
                             : snprintf(tmp, cap, "%s.tmp.%ld.%d", path, pid, attempt);
        if (n < 0 || (size_t)n >= cap) {
            errno = ENAMETOOLONG;
            return -1;
        }
        *slot = pending_add(tmp);
        int fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
        if (fd >= 0) return fd;
        int err = errno;
        pending_done(*slot);
        *slot = -1;
        errno = err;
        if (err != EEXIST) return -1;
    }
    errno = EEXIST;
    return -1;
}

static int write_all(int fd, const char *data, size_t len)
{
    while (len > 0) {
        ssize_t w = write(fd, data, len);
        if (w < 0) {
            if (errno == EINTR) continue;
            return -1;
        }
        data += w;
        len -= (size_t)w;
    }
    return 0;
}

int write_file_atomic(const char *path, const char *data, size_t len)
{
    char tmp[4096 + 64];
    int slot = -1;
    int fd = open_temp(path, tmp, sizeof tmp, &slot);
    if (fd < 0) {
        ddl_warn("cannot write %s: creating a temporary file: %s", path, strerror(errno));
        return -1;
    }
    const char *step = "writing";
    int err = 0;
    if (write_all(fd, data, len) != 0) err = errno;
    /* fsync so that a power cut after the rename cannot expose an empty
     * file; EINVAL/ENOTSUP mean the file system cannot sync (pipes, some
     * FUSE mounts), which is not a reason to fail. */
    if (!err && fsync(fd) != 0 && errno != EINVAL && errno != ENOTSUP) { err = errno; step = "syncing"; }
    if (close(fd) != 0 && !err) { err = errno; step = "closing"; }
    if (!err && rename(tmp, path) != 0) { err = errno; step = "renaming into place"; }
    if (err) unlink(tmp);
    pending_done(slot);
    if (err) {
        ddl_warn("cannot write %s: %s: %s", path, step, strerror(err));
        return -1;
    }
    return 0;
}

int mkdir_p(const char *dir)
{
    char p[4096];
    size_t n = strlen(dir);
    if (n == 0) return 0;
    if (n >= sizeof p) {
        errno = ENAMETOOLONG;
        return -1;
    }
    memcpy(p, dir, n + 1);
    /* Create each prefix ending before a '/', then the whole path. */
    for (size_t i = 1; i <= n; i++) {
        if (p[i] != '/' && p[i] != '\0') continue;
        char saved = p[i];
        p[i] = '\0';
        if (mkdir(p, 0777) != 0) {
            struct stat st;
            if (errno != EEXIST) return -1;
            if (stat(p, &st) != 0) return -1;
            if (!S_ISDIR(st.st_mode)) {
                errno = ENOTDIR;
                return -1;
            }
        }
        p[i] = saved;
    }
    return 0;
}

int mkdir_parent(const char *path)
{
    const char *slash = strrchr(path, '/');
    if (!slash || slash == path) return 0;   /* "file" or "/file" */
    char dir[4096];
    size_t n = (size_t)(slash - path);
    if (n >= sizeof dir) {
        errno = ENAMETOOLONG;
        return -1;
    }
    memcpy(dir, path, n);
    dir[n] = '\0';
    return mkdir_p(dir);
}
