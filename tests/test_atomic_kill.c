/* test_atomic_kill.c - a run killed in the middle of an atomic write
 * leaves no "<path>.tmp.<pid>" file (core/results/pending.c).
 *
 * A child process writes an 8 MiB result file over and over (its temp file
 * exists nearly all the time: write, fsync, rename, again); the parent
 * waits until it sees the temp file, sends the signal, and checks that the
 * child died by that very signal, that no temp file is left, and that the
 * result file, if any, is whole. Then with a handler of the program's own:
 * it is called instead, and the writes go on. A checkpoint (ckpt_write,
 * "rankR-bN.ckpt.tmp.<pid>") is written the same way and gets the same
 * check. */
#include <dirent.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "harness.h"
#include "results/checkpoint.h"
#include "results/results.h"

#define BIG (8u << 20)

static int count_temps(const char *dir)
{
    DIR *d = opendir(dir);
    if (!d) return -1;
    int n = 0;
    for (struct dirent *e; (e = readdir(d));)
        if (strstr(e->d_name, ".tmp.")) n++;
    closedir(d);
    return n;
}

static void sleep_ms(long ms)
{
    struct timespec ts = { ms / 1000, (ms % 1000) * 1000000L };
    nanosleep(&ts, NULL);
}

static volatile sig_atomic_t own_handler_calls;
static void own_handler(int sig) { (void)sig; own_handler_calls++; }

/* Child: write forever (or `rounds` times when > 0), a plain file or a
 * checkpoint (ckpt); exit 0 after. */
static void writer(const char *path, int rounds, bool own, bool ckpt)
{
    if (own) signal(SIGTERM, own_handler);
    char *data = malloc(BIG);
    if (!data) _exit(3);
    memset(data, 'x', BIG);
    Ckpt *c = ckpt_new();
    ckpt_put(c, "model.params", data, BIG);
    char err[DDL_ERRLEN];
    for (int i = 0; rounds <= 0 || i < rounds; i++)
        if ((ckpt ? ckpt_write(c, path, err) : write_file_atomic(path, data, BIG)) != 0) _exit(4);
    ckpt_free(c);
    free(data);
    _exit(own && own_handler_calls > 0 ? 0 : 5);
}

/* Wait (up to 20 s) until dir holds a temp file. */
static bool wait_for_temp(const char *dir)
{
    for (int i = 0; i < 20000; i++) {
        if (count_temps(dir) > 0) return true;
        sleep_ms(1);
    }
    return false;
}

/* The child's status once it has ended; one that outlives the signal by
 * 60 s is killed (the test then fails on its status) rather than left
 * writing. */
static int reap(pid_t pid)
{
    int st = 0;
    for (int i = 0; i < 60000; i++) {
        if (waitpid(pid, &st, WNOHANG) == pid) return st;
        sleep_ms(1);
    }
    kill(pid, SIGKILL);
    waitpid(pid, &st, 0);
    return st;
}

static void kill_mid_write(const char *root, int sig, const char *name, bool ckpt)
{
    char dir[512], path[600];
    snprintf(dir, sizeof dir, "%s/sig%d%s", root, sig, ckpt ? "-ckpt" : "");
    mkdir(dir, 0777);
    snprintf(path, sizeof path, "%s/%s", dir, ckpt ? "rank0-b4.ckpt" : "result.bin");
    pid_t pid = fork();
    if (pid == 0) {
        /* The signal's default action, whatever this test inherited: under
         * nohup SIGHUP, in a background job of a non-interactive shell
         * SIGINT, come ignored, and pending.c rightly keeps them so. */
        signal(sig, SIG_DFL);
        writer(path, 0, false, ckpt);
    }
    bool seen = wait_for_temp(dir);
    kill(pid, sig);
    int st = reap(pid);
    t_checkf(seen && WIFSIGNALED(st) && WTERMSIG(st) == sig, name, "temp file seen %d, child %s %d", seen,
             WIFSIGNALED(st) ? "killed by signal" : "exited with", WIFSIGNALED(st) ? WTERMSIG(st) : WEXITSTATUS(st));
    char what[128];
    snprintf(what, sizeof what, "%s: no temp file left", name);
    int left = count_temps(dir);
    t_checkf(left == 0, what, "%d temp file(s) left in %s", left, dir);
    struct stat sb;
    snprintf(what, sizeof what, "%s: the result file is absent or whole", name);
    bool whole = stat(path, &sb) != 0;
    if (!whole && ckpt) { /* a checkpoint is whole when it reads back */
        Ckpt *c = NULL;
        char err[DDL_ERRLEN];
        whole = ckpt_read(path, &c, err) == 0;
        ckpt_free(c);
    } else if (!whole) {
        whole = sb.st_size == (off_t)BIG;
    }
    t_checkf(whole, what, "%lld bytes", (long long)sb.st_size);
}

int main(void)
{
    char root[] = "/tmp/ddl-kill-XXXXXX";
    if (!mkdtemp(root)) {
        t_check(false, "mkdtemp");
        return t_done();
    }
    kill_mid_write(root, SIGTERM, "SIGTERM mid-write ends the run by SIGTERM", false);
    kill_mid_write(root, SIGINT, "SIGINT mid-write ends the run by SIGINT", false);
    kill_mid_write(root, SIGTERM, "SIGTERM mid-checkpoint ends the run by SIGTERM", true);

    /* A program with its own SIGTERM handler keeps it: the handler runs,
     * the write in progress completes, the program decides. */
    char dir[512], path[600];
    snprintf(dir, sizeof dir, "%s/own", root);
    mkdir(dir, 0777);
    snprintf(path, sizeof path, "%s/result.bin", dir);
    pid_t pid = fork();
    if (pid == 0) writer(path, 40, true, false);
    bool seen = wait_for_temp(dir);
    kill(pid, SIGTERM);
    int st = reap(pid);
    struct stat sb;
    t_checkf(seen && WIFEXITED(st) && WEXITSTATUS(st) == 0 && count_temps(dir) == 0 && stat(path, &sb) == 0 &&
                 sb.st_size == (off_t)BIG,
             "a program's own SIGTERM handler is called instead and its writes complete",
             "temp seen %d, status %d (%s)", seen, st, WIFSIGNALED(st) ? "killed" : "exited");

    char cmd[600];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", root);
    if (system(cmd) != 0) fprintf(stderr, "could not remove %s\n", root);
    return t_done();
}
