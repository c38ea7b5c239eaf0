/* test_checkpoint_read.c - ckpt_read (core/results/checkpoint.c) reads
 * only what can be a checkpoint: a regular file of at most CKPT_MAX_BYTES.
 * A rank file linked to /dev/zero was read until memory ran out, and a
 * FIFO blocked forever; both, a directory and a huge (sparse) file are now
 * refused by what they are, before anything is read. An alarm ends the
 * program if a read hangs, which run.sh counts as a failure. */
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "harness.h"
#include "results/checkpoint.h"

static char root[256];

static const char *at(const char *rel)
{
    static char buf[4][600];
    static int k;
    k = (k + 1) % 4;
    snprintf(buf[k], sizeof buf[k], "%s/%s", root, rel);
    return buf[k];
}

/* ckpt_read of path refused with a message holding `says`. */
static void refused(const char *path, const char *says, const char *name)
{
    Ckpt *c = NULL;
    char err[DDL_ERRLEN] = "";
    int rc = ckpt_read(path, &c, err);
    t_checkf(rc == -1 && !c && strstr(err, says) && strstr(err, path), name, "rc %d: %s", rc, err);
    ckpt_free(c);
}

int main(void)
{
    alarm(60); /* a read that blocks or never ends fails the program, it does not hang the suite */
    snprintf(root, sizeof root, "%s/ddl-ckpt-read.XXXXXX", getenv("TMPDIR") && *getenv("TMPDIR") ? getenv("TMPDIR")
                                                                                                 : "/tmp");
    if (!mkdtemp(root)) {
        perror("mkdtemp");
        return 2;
    }
    Ckpt *w = ckpt_new();
    ckpt_put_str(w, "settings", "program test\n");
    char err[DDL_ERRLEN] = "";
    int rc = ckpt_write(w, at("rank0-b1.ckpt"), err);
    ckpt_free(w);
    Ckpt *c = NULL;
    rc = rc ? rc : ckpt_read(at("rank0-b1.ckpt"), &c, err);
    t_checkf(rc == 0 && c && ckpt_str(c, "settings") && !strcmp(ckpt_str(c, "settings"), "program test\n"),
             "a checkpoint written by ckpt_write reads back", "rc %d: %s", rc, err);
    ckpt_free(c);

    if (symlink("/dev/zero", at("zero.ckpt")) != 0) perror("symlink");
    refused(at("zero.ckpt"), "is a device, not a checkpoint file", "a rank file linked to /dev/zero is refused");
    if (mkfifo(at("fifo.ckpt"), 0600) != 0) perror("mkfifo");
    refused(at("fifo.ckpt"), "is a FIFO, not a checkpoint file", "a FIFO is refused without blocking");
    if (mkdir(at("dir.ckpt"), 0700) != 0) perror("mkdir");
    refused(at("dir.ckpt"), "is a directory, not a checkpoint file", "a directory is refused");
    int fd = open(at("huge.ckpt"), O_WRONLY | O_CREAT, 0600);
    if (fd < 0 || ftruncate(fd, (off_t)CKPT_MAX_BYTES + 1) != 0) perror("huge.ckpt");
    if (fd >= 0) close(fd);
    refused(at("huge.ckpt"), "more than a checkpoint may", "a file over CKPT_MAX_BYTES is refused before reading");
    refused(at("absent.ckpt"), "No such file", "an absent file is refused");

    char cmd[400];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", root);
    if (system(cmd) != 0) fprintf(stderr, "could not remove %s\n", root);
    return t_done();
}
