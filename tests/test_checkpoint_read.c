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
    t_scratch("ddl-ckpt-read");
    Ckpt *w = ckpt_new();
    ckpt_put_str(w, "settings", "program test\n");
    char err[DDL_ERRLEN] = "";
    int rc = ckpt_write(w, t_at("rank0-b1.ckpt"), err);
    ckpt_free(w);
    Ckpt *c = NULL;
    rc = rc ? rc : ckpt_read(t_at("rank0-b1.ckpt"), &c, err);
    t_checkf(rc == 0 && c && ckpt_str(c, "settings") && !strcmp(ckpt_str(c, "settings"), "program test\n"),
             "a checkpoint written by ckpt_write reads back", "rc %d: %s", rc, err);
    ckpt_free(c);

    if (symlink("/dev/zero", t_at("zero.ckpt")) != 0) perror("symlink");
    refused(t_at("zero.ckpt"), "is a device, not a checkpoint file", "a rank file linked to /dev/zero is refused");
    if (mkfifo(t_at("fifo.ckpt"), 0600) != 0) perror("mkfifo");
    refused(t_at("fifo.ckpt"), "is a FIFO, not a checkpoint file", "a FIFO is refused without blocking");
    if (mkdir(t_at("dir.ckpt"), 0700) != 0) perror("mkdir");
    refused(t_at("dir.ckpt"), "is a directory, not a checkpoint file", "a directory is refused");
    int fd = open(t_at("huge.ckpt"), O_WRONLY | O_CREAT, 0600);
    if (fd < 0 || ftruncate(fd, (off_t)CKPT_MAX_BYTES + 1) != 0) perror("huge.ckpt");
    if (fd >= 0) close(fd);
    refused(t_at("huge.ckpt"), "more than a checkpoint may", "a file over CKPT_MAX_BYTES is refused before reading");
    refused(t_at("absent.ckpt"), "No such file", "an absent file is refused");

    t_scratch_remove();
    return t_done();
}
