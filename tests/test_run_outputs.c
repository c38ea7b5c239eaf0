/* test_run_outputs.c - core/results/run.c: results_run_begin removes what
 * an earlier run of the same name wrote (tables: CSV and JSON; files as
 * named) and nothing else; a file it cannot remove stops the run with a
 * message; meta_collect's run_id names the writing process (the same for
 * all its outputs, another for another process); results_same_run tells
 * files of one run from a mix. */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "harness.h"
#include "results/results.h"

static const char *dir; /* the scratch folder */

static void touch(const char *name)
{
    int fd = open(t_at(name), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    if (fd >= 0) close(fd);
}

static bool exists(const char *name) { return access(t_at(name), F_OK) == 0; }

static void test_begin(void)
{
    const char *files[] = { "t-iters.csv", "t-iters.json", "t-summary.csv", "t-summary.json", "lab1-filters-t.png",
                            "u-iters.csv", "t-other.csv", "train-t.csv", "bench-t.csv", "t-iters.csv.bak" };
    for (size_t i = 0; i < sizeof files / sizeof *files; i++) touch(files[i]);
    int rc = results_run_begin(dir, "t", (const char *const[]){ "*-iters", "*-summary", "lab1-filters-*.png", NULL });
    t_check(rc == 0, "results_run_begin succeeds");
    t_check(!exists("t-iters.csv") && !exists("t-iters.json") && !exists("t-summary.csv") && !exists("t-summary.json"),
            "a table's CSV and JSON of the run are removed");
    t_check(!exists("lab1-filters-t.png"), "a named file of the run is removed");
    t_check(exists("u-iters.csv") && exists("t-other.csv") && exists("train-t.csv") && exists("bench-t.csv") &&
                exists("t-iters.csv.bak"),
            "other runs' and other jobs' files are kept");
    rc = results_run_begin(dir, "t", (const char *const[]){ "bench-*", NULL });
    t_check(rc == 0 && !exists("bench-t.csv") && exists("train-t.csv"), "a prefix template removes only its own");
    t_check(results_run_begin(dir, "t", (const char *const[]){ "*-iters", NULL }) == 0,
            "nothing to remove is not an error");
    char missing[600];
    snprintf(missing, sizeof missing, "%s/not-yet", dir);
    t_check(results_run_begin(missing, "t", (const char *const[]){ "*-iters", NULL }) == 0,
            "a folder that does not exist yet is not an error");

    /* A directory where an output goes cannot be removed: no start. */
    mkdir(t_at("d-summary.json"), 0755);
    fflush(stderr);
    int saved = dup(2), null = open("/dev/null", O_WRONLY);
    dup2(null, 2);
    rc = results_run_begin(dir, "d", (const char *const[]){ "*-summary", NULL });
    fflush(stderr);
    dup2(saved, 2);
    close(saved);
    close(null);
    t_check(rc == -1, "an earlier output that cannot be removed stops the run (-1 with a message)");
    rmdir(t_at("d-summary.json"));
}

static void test_run_id(void)
{
    Meta a = { 0 }, b = { 0 };
    meta_collect(&a, "test");
    meta_collect(&b, "test");
    const char *ia = meta_get(&a, "run_id"), *ib = meta_get(&b, "run_id");
    t_checkf(ia && ib && ia[0] && !strcmp(ia, ib), "meta_collect: one run_id for every output of a process",
             "'%s' vs '%s'", ia ? ia : "(none)", ib ? ib : "(none)");
    int fd[2];
    char child[256] = "";
    if (pipe(fd) == 0) {
        pid_t pid = fork();
        if (pid == 0) {
            Meta c = { 0 };
            meta_collect(&c, "child");
            const char *ic = meta_get(&c, "run_id");
            if (ic && write(fd[1], ic, strlen(ic)) < 0) _exit(1);
            _exit(0);
        }
        close(fd[1]);
        ssize_t n = read(fd[0], child, sizeof child - 1);
        child[n > 0 ? n : 0] = '\0';
        close(fd[0]);
        waitpid(pid, NULL, 0);
    }
    t_checkf(child[0] && ia && strcmp(child, ia) != 0, "another process has another run_id", "'%s' vs '%s'", child,
             ia ? ia : "(none)");

    Table *x = table_new("x-summary", "v"), *y = table_new("x-iters", "v"), *z = table_new("x-epochs", "v"),
          *old = table_new("x-old", "v");
    x->meta = a;
    y->meta = b;
    meta_set(&z->meta, "run_id", "%s", child);
    char err[512] = "";
    t_check(results_same_run(x, y, err, sizeof err) == 0, "results_same_run: files of one run pass");
    t_checkf(results_same_run(x, z, err, sizeof err) == -1 && strstr(err, "x-summary") && strstr(err, "x-epochs"),
             "results_same_run: files of two runs are refused, naming both", "'%s'", err);
    t_check(results_same_run(x, old, err, sizeof err) == 0, "results_same_run: a file without run_id is not judged");
    table_free(x);
    table_free(y);
    table_free(z);
    table_free(old);
}

int main(void)
{
    dir = t_scratch("ddl-run");
    test_begin();
    test_run_id();
    t_scratch_remove();
    return t_done();
}
