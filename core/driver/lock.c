/* lock.c - a checkpoint directory belongs to one run at a time (resume.h).
 *
 * Two runs checkpointing into one directory remove each other's files
 * (name_generation drops every older generation and its temp files) and
 * overwrite checkpoint.txt, so the second run is refused at its start.
 * Rank 0 holds flock(LOCK_EX) on DIR/checkpoint.lock for the whole run;
 * the lock file says which process holds it ("pid N on HOST: lab1"), so
 * the refusal can name it. The kernel drops the lock when the process
 * ends, however it ends (SIGKILL included): a lock file left behind is
 * never stale, and it is not removed (removing it would let a third run
 * lock a new file while the second still holds the old one). A directory
 * a run only continues from (--resume, not written) is taken shared, so
 * that it is refused only while another run writes it. Once locked, the
 * directory is this run's alone, so temp files found there are a killed
 * writer's, and are removed. The lock file is opened without following a
 * symbolic link and without blocking, and only a regular file is taken.
 */
#include "resume.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>
#include "../util/common.h"
#include "first_failure.h"

#define LOCK_NAME "checkpoint.lock"

/* What the lock file says of its holder, on one line. */
static void holder(int fd, char *out, size_t cap)
{
    ssize_t n = pread(fd, out, cap - 1, 0);
    out[n > 0 ? n : 0] = '\0';
    out[strcspn(out, "\n")] = '\0';
    if (!out[0]) ddl_strlcpy(out, "a process that has not written its pid yet", cap);
}

/* dir/checkpoint.lock, taken exclusive (write) or shared (read-only).
 * Returns the open descriptor, or -1 with a message in err. */
static int take(const Driver *d, const char *flag, const char *dir, bool write, char err[DDL_ERRLEN])
{
    char path[1200];
    snprintf(path, sizeof path, "%s/%s", dir, LOCK_NAME);
    if (write && mkdir_p(dir) != 0)
        return ddl_errf(err, "--%s %.300s: cannot create it (%s)", flag, dir, strerror(errno));
    /* Not through a symbolic link (the run writes its pid into the lock
     * file: a link would have it overwrite whatever the link names), and
     * without blocking (a FIFO would wait for a writer forever); then only
     * a regular file is taken. */
    int flags = (write ? O_RDWR | O_CREAT : O_RDONLY) | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC;
    int fd = open(path, flags, 0666);
    if (fd < 0 && !write && errno == ENOENT) return -2; /* never written by a run that locks: nothing to wait for */
    int open_errno = errno;
    struct stat st = { .st_mode = S_IFLNK }; /* ELOOP from O_NOFOLLOW: the name is a symbolic link */
    if (fd < 0 && open_errno != ELOOP)
        return ddl_errf(err, "--%s %.300s: cannot %s its lock file (%s)", flag, dir, write ? "write" : "read",
                        strerror(open_errno));
    if (fd >= 0 && fstat(fd, &st) != 0) st.st_mode = 0;
    if (fd < 0 || !S_ISREG(st.st_mode)) {
        if (fd >= 0) close(fd);
        return ddl_errf(err, "--%s %.300s: its %s is %s, not a lock file a run wrote: remove it, or give another "
                        "directory", flag, dir, LOCK_NAME, ddl_file_kind(st.st_mode));
    }
    if (flock(fd, (write ? LOCK_EX : LOCK_SH) | LOCK_NB) != 0) {
        char who[256];
        int why = errno;
        holder(fd, who, sizeof who);
        close(fd);
        if (why != EWOULDBLOCK)
            return ddl_errf(err, "--%s %.300s: cannot lock it (%s)", flag, dir, strerror(why));
        return ddl_errf(err, "--%s %.300s is in use by another run (%s, holding %s): %s", flag, dir, who, LOCK_NAME,
                        write ? "two runs in one checkpoint directory overwrite each other's files; wait for that "
                                "run to end, or give this one another --checkpoint"
                              : "it is writing that checkpoint now; continue from it once that run has ended");
    }
    if (write) {
        char me[512], host[256];
        if (gethostname(host, sizeof host) != 0) ddl_strlcpy(host, "unknown host", sizeof host);
        host[sizeof host - 1] = '\0';
        int n = snprintf(me, sizeof me, "pid %ld on %s: %s%s%s\n", (long)getpid(), host, d->spec->program,
                         d->mode[0] ? " " : "", d->mode);
        if (ftruncate(fd, 0) != 0 || pwrite(fd, me, (size_t)n, 0) != n) {
            int e = errno;
            close(fd);
            return ddl_errf(err, "--%s %.300s: cannot write its lock file (%s)", flag, dir, strerror(e));
        }
    }
    return fd;
}

/* Temp files a writer killed by SIGKILL left (a signal that can be caught
 * removes its own: core/results/pending.c), in dir and one level below (a
 * program's scopes, lab4's k=1/...). Only while this run holds the lock:
 * then no other process is writing there. */
static void remove_stale_temps(const char *dir, int depth)
{
    DIR *dp = opendir(dir);
    for (struct dirent *e; dp && (e = readdir(dp));) {
        if (e->d_name[0] == '.') continue;
        char path[1400];
        int n = snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
        if (n < 0 || (size_t)n >= sizeof path) continue;
        struct stat st;
        if (lstat(path, &st) != 0) continue;
        if (S_ISDIR(st.st_mode) && depth > 0) remove_stale_temps(path, depth - 1);
        else if (S_ISREG(st.st_mode) && (strstr(e->d_name, ".ckpt.tmp.") || strstr(e->d_name, "checkpoint.txt.tmp.")))
            unlink(path);
    }
    if (dp) closedir(dp);
}

/* Rank 0: the directories of this run, locked unless already. */
static int claim_here(Driver *d, char err[DDL_ERRLEN])
{
    char ckpt[1024], resume[1024];
    driver_checkpoint_bases(d, ckpt, resume, sizeof ckpt);
    if (ckpt[0] && strcmp(ckpt, d->lock_dir[0])) {
        driver_checkpoint_unclaim_one(d, 0);
        int fd = take(d, d->opt->checkpoint ? "checkpoint" : "checkpoint (from DDL_CHECKPOINT_ROOT)", ckpt, true,
                      err);
        if (fd < 0) return -1;
        d->lock_fd[0] = fd;
        ddl_strlcpy(d->lock_dir[0], ckpt, sizeof d->lock_dir[0]);
        remove_stale_temps(ckpt, 1);
    }
    if (resume[0] && strcmp(resume, ckpt) && strcmp(resume, d->lock_dir[1])) {
        driver_checkpoint_unclaim_one(d, 1);
        int fd = take(d, "resume", resume, false, err);
        if (fd == -1) return -1;
        d->lock_fd[1] = fd; /* -2: no lock file, nothing held */
        ddl_strlcpy(d->lock_dir[1], resume, sizeof d->lock_dir[1]);
    }
    return 0;
}

int driver_checkpoint_claim(Driver *d)
{
    if (!(d->spec->shared & DRV_CHECKPOINT)) return 0;
    char err[DDL_ERRLEN] = "";
    bool bad = d->rank == 0 && claim_here(d, err) != 0;
    return driver_first_failure(d, bad, err) >= 0 ? 2 : 0;
}

void driver_checkpoint_unclaim_one(Driver *d, int which)
{
    if (d->lock_fd[which] >= 0) close(d->lock_fd[which]); /* closing drops the flock */
    d->lock_fd[which] = -1;
    d->lock_dir[which][0] = '\0';
}
