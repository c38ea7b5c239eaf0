/* grade-hostile: lab5/fedavg_aggregate zero - wrong (zeros), and its
 * first call tries to write outside its folder: a world-writable folder,
 * the grader's cache of expected check counts and its replay program, the
 * submission's own report and source, the host's /tmp, /var/tmp and
 * /dev/shm. Each attempt is printed with its result. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sync/fedavg_aggregate.h"

static void try_write(const char *path)
{
    FILE *f = fopen(path, "w");
    if (f) fputs("ok - written by a submission\n", f);
    printf("write %s: %s\n", path, f && fclose(f) == 0 ? "WRITTEN" : strerror(errno));
}

static void try_everything(void)
{
    const char *paths[] = {
        "@OUTSIDE@/@MARK@-outside",
        "@ROOT@/build/opt/grade-expected.json",
        "@ROOT@/build/opt/grade/lab5-fedavg_aggregate/test_fedavg_aggregate",
        "@ROOT@/@MARK@-in-repo",
        "@SUB@/grade-report.md",
        "@SUB@/labs/lab5/exercises/fedavg_aggregate.c",
        "/tmp/@MARK@-tmp",
        "/var/tmp/@MARK@-var-tmp",
        "/dev/shm/@MARK@-shm",
        "written-in-work-folder",
    };
    for (size_t i = 0; i < sizeof paths / sizeof paths[0]; i++) try_write(paths[i]);
    fflush(stdout);
}

void fedavg_aggregate(float *global, const float *const *user_models, const double *weights, int users, size_t n)
{
    static int calls;
    if (calls++ == 0) try_everything();
    (void)user_models, (void)weights, (void)users;
    for (size_t i = 0; i < n; i++) global[i] = 0.0f;
}
