/* table.c - lab6's tables and figure data, from every <tag>-summary.csv in
 * results/lab6:
 *   lab6.csv                one row per grid cell (workload x style x
 *                           workers x device; ps_async runs, which are not
 *                           in the seed's table, come last);
 *   report/tables/lab6.tex  the seed's Table I layout: one column per
 *                           workload, row groups per style and worker count
 *                           (training time, test accuracy, iterations per
 *                           second, and the bytes per rank the seed did not
 *                           measure);
 *   iters.csv               iterations/s per workload (rows) and
 *                           style/workers (columns), for the bar figure;
 *   breakdown-<workload>.csv  per style/workers, a step's wall time split
 *                           into compute, exposed communication and the
 *                           rest (data loading, waiting), for the breakdown
 *                           figure. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/common.h"
#include "results/results.h"
#include "lab6.h"

enum { MAX_RUNS = 128 };

/* Grid order: device, style (horovod first), workers, workload. */
static int rank_of(const Table *t)
{
    int wl = 0;
    for (int i = 0; i < workload_count(); i++)
        if (!strcmp(workload_at(i)->name, table_text(t, 0, "workload"))) wl = i;
    const char *style = table_text(t, 0, "style");
    int st = !strcmp(style, "horovod") ? 0 : !strcmp(style, "ps") ? 1 : 2;
    return (strcmp(table_text(t, 0, "device"), "cpu") != 0) * 1000 + st * 100 +
           (int)table_num(t, 0, "workers") * 10 + wl;
}

static int cmp_runs(const void *a, const void *b)
{
    return rank_of(*(Table *const *)a) - rank_of(*(Table *const *)b);
}

static const Table *find(Table **runs, int n, const char *device, const char *style, int workers, const char *workload)
{
    for (int i = 0; i < n; i++)
        if (!strcmp(table_text(runs[i], 0, "device"), device) && !strcmp(table_text(runs[i], 0, "style"), style) &&
            (int)table_num(runs[i], 0, "workers") == workers && !strcmp(table_text(runs[i], 0, "workload"), workload))
            return runs[i];
    return NULL;
}

/* One provenance line for the whole grid (runs differ in ranks). */
static void grid_summary(Table **runs, int n, Meta *meta)
{
    bool real = false, synth = false;
    int max_ranks = 0;
    char over[256] = "";
    for (int i = 0; i < n; i++) {
        if (!strcmp(table_text(runs[i], 0, "data"), "real")) real = true;
        else synth = true;
        int rk = (int)table_num(runs[i], 0, "ranks");
        if (rk > max_ranks) max_ranks = rk;
        if (!strcmp(table_text(runs[i], 0, "oversubscribed"), "yes") && !strstr(over, table_text(runs[i], 0, "style"))) {
            size_t at = strlen(over);
            snprintf(over + at, sizeof over - at, "%s%s %d ranks", at ? ", " : "", table_text(runs[i], 0, "style"), rk);
        }
    }
    meta_set(meta, "summary", "%s data (MNIST, Fashion-MNIST, SDSS DR14), 1-%d ranks on %s cores (%s%s), %s, %s "
             "profile, seed %s", real && synth ? "real and synthetic" : real ? "real" : "synthetic", max_ranks,
             meta_get(meta, "cores") ? meta_get(meta, "cores") : "?", over[0] ? "oversubscribed: " : "not oversubscribed",
             over, table_text(runs[0], 0, "device"), table_text(runs[0], 0, "profile"), meta_get(meta, "seed") ? meta_get(meta, "seed") : "?");
    meta_set(meta, "ranks", "per row (horovod: workers; ps: workers + 1 server)");
    /* the first run's provenance would otherwise speak for the whole grid */
    meta_set(meta, "oversubscribed", "%s%s", over[0] ? "yes: " : "no", over);
    meta_set(meta, "params", "per row");
    meta_set(meta, "buffers", "per run (its summary)");
    meta_set(meta, "run", "grid");
}

static int write_grid(Table **runs, int n, const char *dir)
{
    Table *g = table_new("lab6", "device,style,workers,ranks,workload,workload_label,model,width,params,train_s,"
                                 "test_accuracy_pct,iters_per_s,bytes_per_rank,bytes_max_rank,wall_step_ms,compute_ms,"
                                 "sync_ms,other_ms,oversubscribed,data,profile");
    g->meta = runs[0]->meta;
    grid_summary(runs, n, &g->meta);
    static const char *const copy[] = { "device", "style", "workers", "ranks", "workload", "workload_label", "model",
                                        "width", "params", "train_s", "test_accuracy_pct", "iters_per_s",
                                        "bytes_per_rank", "bytes_max_rank", "wall_step_ms", "compute_ms", "sync_ms",
                                        "other_ms", "oversubscribed", "data", "profile" };
    for (int i = 0; i < n; i++) {
        for (size_t k = 0; k < sizeof copy / sizeof *copy; k++) table_set_str(g, copy[k], table_text(runs[i], 0, copy[k]));
        table_end_row(g);
    }
    int rc = table_write(g, dir);
    table_free(g);
    return rc;
}

/* The seed's Table I: rows (setting, workers, metric), one column per
 * workload. */
static int write_tex(Table **runs, int n, const char *tex)
{
    const int nw = workload_count();
    char cols[256] = "setting,workers,metric";
    for (int i = 0; i < nw; i++) {
        size_t at = strlen(cols);
        snprintf(cols + at, sizeof cols - at, ",%s", workload_at(i)->name);
    }
    Table *t = table_new("lab6-table1", cols);
    t->meta = runs[0]->meta;
    grid_summary(runs, n, &t->meta);
    static const char *const metrics[] = { "Training time (s)", "Testing accuracy (%)", "Iterations per second",
                                           "Bytes sent per rank per step" };
    static const char *const devices[] = { "cpu", "cuda" };
    static const char *const styles[] = { "horovod", "ps" };
    for (int d = 0; d < 2; d++)
        for (int s = 0; s < 2; s++)
            for (int w = 1; w <= 2; w++) {
                bool any = false;
                for (int i = 0; i < nw; i++) any = any || find(runs, n, devices[d], styles[s], w, workload_at(i)->name);
                if (!any) continue;
                for (int m = 0; m < 4; m++) {
                    char setting[64] = "", workers[32] = "";
                    if (m == 0) {
                        snprintf(setting, sizeof setting, "%s, %s", s ? "parameter server" : "Horovod-style", devices[d]);
                        snprintf(workers, sizeof workers, "%d worker%s", w, w > 1 ? "s" : "");
                    }
                    table_set_str(t, "setting", setting);
                    table_set_str(t, "workers", workers);
                    table_set_str(t, "metric", metrics[m]);
                    for (int i = 0; i < nw; i++) {
                        const Table *r = find(runs, n, devices[d], styles[s], w, workload_at(i)->name);
                        char cell[64] = "--";
                        if (r && m == 0) snprintf(cell, sizeof cell, "%.4g", table_num(r, 0, "train_s"));
                        if (r && m == 1) snprintf(cell, sizeof cell, "%.1f", table_num(r, 0, "test_accuracy_pct"));
                        if (r && m == 2) snprintf(cell, sizeof cell, "%.2f", table_num(r, 0, "iters_per_s"));
                        if (r && m == 3) format_bytes(table_num(r, 0, "bytes_per_rank"), cell, sizeof cell);
                        table_set_str(t, workload_at(i)->name, cell);
                    }
                    table_end_row(t);
                }
            }
    /* headers and caption are LaTeX; what comes from the runs is escaped */
    const char *headers[8] = { "Setting", "Workers", "" };
    char labels[5][64];
    for (int i = 0; i < nw && i < 5; i++) headers[3 + i] = tex_escape(labels[i], sizeof labels[i], workload_at(i)->label);
    /* what the profile trained: widths and examples per workload */
    char caption[2048], what[512] = "", what_tex[1024];
    for (int i = 0; i < nw; i++) {
        const Table *r = NULL;
        for (int k = 0; k < n && !r; k++)
            if (!strcmp(table_text(runs[k], 0, "workload"), workload_at(i)->name)) r = runs[k];
        if (!r) continue;
        size_t at = strlen(what);
        snprintf(what + at, sizeof what - at, "%s%s x%s on %s training examples", at ? "; " : "", table_text(r, 0, "model"),
                 table_text(r, 0, "width"), table_text(r, 0, "train_examples"));
    }
    snprintf(caption, sizeof caption, "lab6 (seed 003, Table I): Horovod-style ring allreduce with tensor fusion vs a "
             "synchronous parameter server, 1 and 2 workers (ps adds a server rank). Training time is the wall time of "
             "the training loop; bytes are those each rank sent per step (mean over ranks). Models: %s.",
             tex_escape(what_tex, sizeof what_tex, what));
    TexSpec spec = { .caption = caption,
                     .label = "tab:lab6",
                     .ncols = 3 + nw,
                     .headers = headers,
                     .align = "lllrrr" };
    int rc = table_write_tex(t, &spec, tex);
    table_free(t);
    return rc;
}

static int write_figure_data(Table **runs, int n, const char *dir)
{
    const char *device = table_text(runs[0], 0, "device");
    Table *it = table_new("iters", "workload,label,horovod_w1,horovod_w2,ps_w1,ps_w2");
    it->meta = runs[0]->meta;
    grid_summary(runs, n, &it->meta);
    int rc = 0;
    for (int i = 0; i < workload_count(); i++) {
        const Workload *w = workload_at(i);
        table_set_str(it, "workload", w->name);
        table_set_str(it, "label", w->label);
        static const char *const cols[] = { "horovod_w1", "horovod_w2", "ps_w1", "ps_w2" };
        for (int k = 0; k < 4; k++) {
            const Table *r = find(runs, n, device, k < 2 ? "horovod" : "ps", 1 + k % 2, w->name);
            if (r) table_set_num(it, cols[k], table_num(r, 0, "iters_per_s"), "%.3f");
        }
        table_end_row(it);
        char name[96];
        snprintf(name, sizeof name, "breakdown-%s", w->name);
        Table *b = table_new(name, "label,compute_ms,sync_ms,other_ms,wall_step_ms");
        b->meta = runs[0]->meta;
        grid_summary(runs, n, &b->meta);
        meta_set(&b->meta, "workload", "%s", w->label);
        for (int k = 0; k < 4; k++) {
            const Table *r = find(runs, n, device, k < 2 ? "horovod" : "ps", 1 + k % 2, w->name);
            if (!r) continue;
            char label[64];
            snprintf(label, sizeof label, "%s %dw", k < 2 ? "horovod" : "ps", 1 + k % 2);
            table_set_str(b, "label", label);
            table_set_num(b, "compute_ms", table_num(r, 0, "compute_ms"), "%.3f");
            table_set_num(b, "sync_ms", table_num(r, 0, "sync_ms"), "%.3f");
            table_set_num(b, "other_ms", table_num(r, 0, "other_ms"), "%.3f");
            table_set_num(b, "wall_step_ms", table_num(r, 0, "wall_step_ms"), "%.3f");
            table_end_row(b);
        }
        if (b->nrows && table_write(b, dir)) rc = 1;
        table_free(b);
    }
    if (table_write(it, dir)) rc = 1;
    table_free(it);
    return rc;
}

int lab6_table(const void *ctx)
{
    const Lab6Options *o = ctx;
    Table *runs[MAX_RUNS];
    int n = table_read_dir(o->run.out, "-summary.csv", "iters_per_s", runs, MAX_RUNS);
    if (n == 0) {
        fprintf(stderr, "lab6: no <tag>-summary.csv in %s (run make lab6)\n", o->run.out);
        return 1;
    }
    qsort(runs, (size_t)n, sizeof *runs, cmp_runs);
    int rc = write_grid(runs, n, o->run.out) | write_tex(runs, n, o->run.tex) | write_figure_data(runs, n, o->run.out);
    if (!o->run.quiet) fprintf(stderr, "lab6: %d runs -> %s/lab6.csv, %s\n", n, o->run.out, o->run.tex);
    for (int i = 0; i < n; i++) table_free(runs[i]);
    return rc ? 1 : 0;
}
