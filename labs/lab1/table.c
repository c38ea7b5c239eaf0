/* table.c - report/tables/lab1.tex from every results/lab1/<run>-summary.csv
 * (the seed 001 Task 1 baseline row and whatever else was run). */
#include <dirent.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "util/common.h"
#include "results/results.h"
#include "lab1.h"

static int by_name(const void *a, const void *b) { return strcmp(*(char *const *)a, *(char *const *)b); }

/* A number cell of the table: "--" where the summary has none or it is not
 * finite (a "nan" would otherwise come out as "nank" params). */
static void put_num(Table *all, const char *col, double v, const char *fmt)
{
    char buf[64];
    if (isfinite(v)) snprintf(buf, sizeof buf, fmt, v);
    else ddl_strlcpy(buf, "--", sizeof buf);
    table_set_str(all, col, buf);
}

/* One summary row of run t into the table. */
static void add_row(Table *all, const Table *t, int r)
{
    const char *model = table_get(t, r, "model"), *width = table_get(t, r, "width");
    table_set_str(all, "model", model ? model : "?");
    table_set_str(all, "width", width ? width : "1");
    table_set_str(all, "dataset", table_text(t, r, "dataset"));
    table_set_str(all, "data", table_text(t, r, "data"));
    double params = table_num(t, r, "params");
    put_num(all, "params", params >= 1e6 ? params / 1e6 : params / 1e3, params >= 1e6 ? "%.2fM" : "%.1fk");
    table_set_str(all, "batch", table_text(t, r, "batch"));
    table_set_str(all, "iterations", table_text(t, r, "iterations"));
    put_num(all, "ms", table_num(t, r, "ms_mean"), "%.1f");
    put_num(all, "ms_std", table_num(t, r, "ms_std"), "%.1f");
    put_num(all, "images_per_s", table_num(t, r, "images_per_s"), "%.0f");
    put_num(all, "final_loss", table_num(t, r, "final_loss"), "%.3f");
    put_num(all, "test_accuracy", 100.0 * table_num(t, r, "test_accuracy"), "%.2f");
    table_end_row(all);
}

int lab1_write_table(const void *ctx)
{
    const Lab1Options *o = ctx;
    DIR *dir = opendir(o->run.out);
    if (!dir) {
        fprintf(stderr, "error: no results in %s: run `make lab1` (or bin/lab1) first\n", o->run.out);
        return 1;
    }
    char *names[256];
    int n = 0;
    struct dirent *e;
    while ((e = readdir(dir)) && n < 256) {
        size_t len = strlen(e->d_name);
        if (len > 12 && !strcmp(e->d_name + len - 12, "-summary.csv")) names[n++] = strdup(e->d_name);
    }
    closedir(dir);
    if (n == 0) {
        fprintf(stderr, "error: no *-summary.csv in %s: run `make lab1` first\n", o->run.out);
        return 1;
    }
    qsort(names, (size_t)n, sizeof names[0], by_name);
    Table *all = table_new("lab1-table", "model,width,dataset,data,params,batch,iterations,ms,ms_std,"
                                         "images_per_s,final_loss,test_accuracy");
    int status = 0, runs = 0;
    for (int i = 0; i < n; i++) {
        char path[1024], err[256];
        snprintf(path, sizeof path, "%s/%s", o->run.out, names[i]);
        Table *t = table_read_csv(path, err, sizeof err);
        if (!t) {
            fprintf(stderr, "error: %s (left out of the table)\n", err);
            status = 1;
            continue;
        }
        if (runs++ == 0) all->meta = t->meta;
        for (int r = 0; r < t->nrows; r++) add_row(all, t, r);
        table_free(t);
    }
    if (runs == 0) { /* a table of no run would look like a result */
        fprintf(stderr, "error: no readable *-summary.csv in %s: %s not written\n", o->run.out, o->run.tex);
        table_free(all);
        for (int i = 0; i < n; i++) free(names[i]);
        return 1;
    }
    /* The per-run rows may differ in profile/dataset; the caption's
     * provenance line comes from the first run, and the data column says
     * real or synthetic per row. */
    {
        const Meta *m0 = &all->meta;
        const char *cores = meta_get(m0, "cores"), *dev = meta_get(m0, "device"), *prof = meta_get(m0, "profile"),
                   *seed = meta_get(m0, "seed"), *over = meta_get(m0, "oversubscribed");
        meta_set(&all->meta, "summary", "each run: 1 rank on %s cores%s, %s, %s profile, seed %s; real or synthetic "
                 "data per row", cores ? cores : "?", over && !strcmp(over, "yes") ? " (oversubscribed)" : "",
                 dev ? dev : "?", prof ? prof : "?", seed ? seed : "?");
    }
    static const char *cols[] = { "model", "width", "dataset", "data", "params", "batch", "iterations", "ms",
                                  "ms_std", "images_per_s", "final_loss", "test_accuracy" };
    static const char *heads[] = { "Model", "Width", "Dataset", "Data", "Params", "Batch", "Iters",
                                   "ms/iter", "std", "img/s", "Final loss", "Test acc.\\ (\\%)" };
    TexSpec spec = { "lab1: single-process training (ms/iter: mean and standard deviation over iterations, "
                     "the first discarded)", "tab:lab1", 12, cols, heads, "lrllrrrrrrrr" };
    char dirbuf[1024];
    ddl_strlcpy(dirbuf, o->run.tex, sizeof dirbuf);
    char *slash = strrchr(dirbuf, '/');
    if (slash) { *slash = '\0'; mkdir_p(dirbuf); }
    if (table_write_tex(all, &spec, o->run.tex) != 0) status = 1;
    else if (runs == n) fprintf(stderr, "lab1: wrote %s (%d runs)\n", o->run.tex, runs);
    else fprintf(stderr, "lab1: wrote %s (%d run%s; %d unreadable summar%s left out)\n", o->run.tex, runs,
                 runs == 1 ? "" : "s", n - runs, n - runs == 1 ? "y" : "ies");
    table_free(all);
    for (int i = 0; i < n; i++) free(names[i]);
    return status;
}
