/* run.c - one run's outputs never mix with another run's.
 *
 * A run writes its files at different moments (lab2's calibration first,
 * its bench table at the end; a table's CSV, then its JSON). A run that is
 * killed, or fails half-way, would otherwise leave its first files beside
 * the last files of an earlier run of the same name: the iterations of one
 * seed next to the summary of another. So a run starts by removing what an
 * earlier run of its name wrote (results_run_begin), and every file carries
 * the id of the process that wrote it (meta "run_id", set by meta_collect)
 * for the jobs that combine several files of one run to check
 * (results_same_run). */
#include "results.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "../util/common.h"

/* Remove dir/file; 0 when it is gone (or never was). */
static int remove_old(const char *dir, const char *file, const char *run)
{
    char path[4096];
    if (snprintf(path, sizeof path, "%s/%s", dir, file) >= (int)sizeof path) {
        ddl_warn("cannot start run '%s': output path %s/%s is too long", run, dir, file);
        return -1;
    }
    if (unlink(path) == 0 || errno == ENOENT) return 0;
    ddl_warn("cannot start run '%s': cannot remove %s, left by an earlier run: %s (the new run's outputs would mix "
             "with it)", run, path, strerror(errno));
    return -1;
}

int results_run_begin(const char *dir, const char *run, const char *const *names)
{
    int rc = 0;
    for (; names && *names; names++) {
        const char *tpl = *names, *star = strchr(tpl, '*');
        char name[1024];
        int n = star ? snprintf(name, sizeof name, "%.*s%s%s", (int)(star - tpl), tpl, run, star + 1)
                     : snprintf(name, sizeof name, "%s", tpl);
        if (n < 0 || n >= (int)sizeof name) {
            ddl_warn("cannot start run '%s': output name '%s' is too long", run, tpl);
            rc = -1;
            continue;
        }
        /* The template, written by the programmer, says what the name is:
         * with an extension a file, without one a Table (CSV and JSON). */
        if (strchr(tpl, '.')) {
            if (remove_old(dir, name, run) != 0) rc = -1;
            continue;
        }
        static const char *const ext[] = { ".csv", ".json" };
        for (int e = 0; e < 2; e++) {
            char file[1100];
            snprintf(file, sizeof file, "%s%s", name, ext[e]);
            if (remove_old(dir, file, run) != 0) rc = -1;
        }
    }
    return rc;
}

int results_same_run(const Table *a, const Table *b, char *err, size_t cap)
{
    const char *ia = meta_get(&a->meta, "run_id"), *ib = meta_get(&b->meta, "run_id");
    /* Files written before run ids existed cannot be checked. */
    if (!ia || !ib || !strcmp(ia, ib)) return 0;
    snprintf(err, cap, "%s and %s come from different runs (run_id %s and %s): run it again", a->name, b->name, ia,
             ib);
    return -1;
}
