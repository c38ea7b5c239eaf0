/* table.c - report/tables/lab1.tex from every results/lab1/<run>-summary.csv
 * (the seed 001 Task 1 baseline row and whatever else was run). */
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "common.h"
#include "results/results.h"
#include "lab1.h"

static int by_name(const void *a, const void *b) { return strcmp(*(char *const *)a, *(char *const *)b); }

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
    int status = 0;
    for (int i = 0; i < n; i++) {
        char path[1024], err[256];
        snprintf(path, sizeof path, "%s/%s", o->run.out, names[i]);
        Table *t = table_read_csv(path, err, sizeof err);
        if (!t) {
            fprintf(stderr, "error: %s\n", err);
            status = 1;
            continue;
        }
        if (i == 0) all->meta = t->meta;
        for (int r = 0; r < t->nrows; r++) {
            const char *model = table_get(t, r, "model"), *width = table_get(t, r, "width");
            char buf[64];
            table_set_str(all, "model", model ? model : "?");
            table_set_str(all, "width", width ? width : "1");
            table_set_str(all, "dataset", table_get(t, r, "dataset"));
            table_set_str(all, "data", table_get(t, r, "data"));
            double params = atof(table_get(t, r, "params") ? table_get(t, r, "params") : "0");
            snprintf(buf, sizeof buf, params >= 1e6 ? "%.2fM" : "%.1fk", params >= 1e6 ? params / 1e6 : params / 1e3);
            table_set_str(all, "params", buf);
            table_set_str(all, "batch", table_get(t, r, "batch"));
            table_set_str(all, "iterations", table_get(t, r, "iterations"));
            snprintf(buf, sizeof buf, "%.1f", atof(table_get(t, r, "ms_mean")));
            table_set_str(all, "ms", buf);
            snprintf(buf, sizeof buf, "%.1f", atof(table_get(t, r, "ms_std")));
            table_set_str(all, "ms_std", buf);
            snprintf(buf, sizeof buf, "%.0f", atof(table_get(t, r, "images_per_s")));
            table_set_str(all, "images_per_s", buf);
            snprintf(buf, sizeof buf, "%.3f", atof(table_get(t, r, "final_loss")));
            table_set_str(all, "final_loss", buf);
            snprintf(buf, sizeof buf, "%.2f", 100.0 * atof(table_get(t, r, "test_accuracy")));
            table_set_str(all, "test_accuracy", buf);
            table_end_row(all);
        }
        table_free(t);
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
    else fprintf(stderr, "lab1: wrote %s (%d runs)\n", o->run.tex, n);
    table_free(all);
    for (int i = 0; i < n; i++) free(names[i]);
    return status;
}
