/* table.c - `lab4 table`: from the runs-npP.csv and iters-npP.csv files in
 * --out,
 *   table2.csv               the seed's Table 2: workers, passes,
 *                            iterations, total traffic (MB), accuracy, the
 *                            minimum-traffic rows per worker count marked;
 *   lga.csv                  the same for --scheme lga runs, when any;
 *   fig3.csv                 the seed's Figure 3 bars (5 workers: all-reduce,
 *                            pairwise at 12 and at 18 iterations);
 *   iters.csv                every iteration of every run, one file, for the
 *                            accuracy-vs-bytes and consensus figures;
 *   report/tables/lab4.tex   Table 2 (minimum-traffic rows in bold) and
 *                            the lga table.
 * Outputs that span several rank counts carry one provenance line naming
 * them all ("2-6 ranks on 2 cores, oversubscribed at 3-6 ranks"). */
#include <dirent.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/common.h"
#include "lab4.h"

enum { MAX_FILES = 64 };

typedef struct Runs {
    int n;
    int workers[MAX_FILES];
    Table *runs[MAX_FILES], *iters[MAX_FILES];
} Runs;

static int by_int(const void *a, const void *b) { return *(const int *)a - *(const int *)b; }

/* runs-npP.csv and iters-npP.csv for every P present, sorted by P. */
static int load_runs(const char *dir, Runs *r)
{
    memset(r, 0, sizeof *r);
    DIR *d = opendir(dir);
    if (!d) return -1;
    int ps[MAX_FILES], n = 0;
    struct dirent *e;
    while ((e = readdir(d)) && n < MAX_FILES) {
        int p = 0;
        char rest[16] = "";
        if (sscanf(e->d_name, "runs-np%d%15s", &p, rest) == 2 && !strcmp(rest, ".csv")) ps[n++] = p;
    }
    closedir(d);
    qsort(ps, (size_t)n, sizeof ps[0], by_int);
    for (int i = 0; i < n; i++) {
        char name[64];
        snprintf(name, sizeof name, "runs-np%d.csv", ps[i]);
        Table *runs = table_read_at(dir, name);
        snprintf(name, sizeof name, "iters-np%d.csv", ps[i]);
        Table *iters = runs ? table_read_at(dir, name) : NULL;
        char err[512];
        bool mixed = iters && results_same_run(runs, iters, err, sizeof err) != 0;
        if (mixed) ddl_error("%s/%s", dir, err);
        if (!runs || !iters || mixed) {
            table_free(runs);
            table_free(iters);
            return -1;
        }
        r->workers[r->n] = ps[i];
        r->runs[r->n] = runs;
        r->iters[r->n++] = iters;
    }
    return r->n;
}

static void free_runs(Runs *r)
{
    for (int i = 0; i < r->n; i++) {
        table_free(r->runs[i]);
        table_free(r->iters[i]);
    }
}

/* "2-6" for a contiguous run of counts, else "2, 4, 6". */
static void list_text(const int *v, int n, char *out, size_t cap)
{
    out[0] = '\0';
    bool contiguous = n > 1;
    for (int i = 1; i < n; i++) contiguous &= v[i] == v[i - 1] + 1;
    if (contiguous) {
        snprintf(out, cap, "%d-%d", v[0], v[n - 1]);
        return;
    }
    size_t len = 0;
    for (int i = 0; i < n && len < cap; i++) len += (size_t)snprintf(out + len, cap - len, "%s%d", i ? ", " : "", v[i]);
}

/* One provenance line for all the rank counts (meta_summary's wording). */
static void summary_all(const Runs *r, char *out, size_t cap)
{
    int over[MAX_FILES], no = 0;
    bool mixed = false;
    const Meta *m0 = &r->runs[0]->meta;
    const char *data = meta_get(m0, "data");
    for (int i = 0; i < r->n; i++) {
        const char *o = meta_get(&r->runs[i]->meta, "oversubscribed"), *d = meta_get(&r->runs[i]->meta, "data");
        if (o && !strcmp(o, "yes")) over[no++] = r->workers[i];
        if (!d || !data || strcmp(d, data)) mixed = true;
    }
    char ranks[128], overs[160] = "";
    list_text(r->workers, r->n, ranks, sizeof ranks);
    if (no == r->n) snprintf(overs, sizeof overs, " (oversubscribed)");
    else if (no > 0) {
        char l[128];
        list_text(over, no, l, sizeof l);
        snprintf(overs, sizeof overs, " (oversubscribed at %s ranks)", l);
    }
    const char *ds = meta_get(m0, "dataset"), *cores = meta_get(m0, "cores");
    const char *pretty = ds && !strcmp(ds, "mnist") ? "MNIST" : ds && !strcmp(ds, "fashion-mnist") ? "Fashion-MNIST" : ds;
    /* a simulated run says so first, as meta_summary does */
    const char *sim = meta_get(m0, "simulated");
    int k = sim ? snprintf(out, cap, "simulated (%s), ", sim) : 0;
    if (k < 0 || (size_t)k >= cap) k = 0;
    snprintf(out + k, cap - (size_t)k, "%s %s, %s ranks on %s cores%s, %s, %s profile, seed %s",
             mixed ? "MIXED real/synthetic" : data ? data : "?", pretty ? pretty : "?", ranks, cores ? cores : "?",
             overs, meta_get(m0, "device") ? meta_get(m0, "device") : "cpu",
             meta_get(m0, "profile") ? meta_get(m0, "profile") : "?", meta_get(m0, "seed") ? meta_get(m0, "seed") : "?");
}

/* The first run's metadata, with what differs between rank counts said
 * for all of them. */
static void provenance(Table *t, const Runs *r, const char *summary)
{
    t->meta = r->runs[0]->meta;
    int over[MAX_FILES], no = 0;
    for (int i = 0; i < r->n; i++) {
        const char *o = meta_get(&r->runs[i]->meta, "oversubscribed");
        if (o && !strcmp(o, "yes")) over[no++] = r->workers[i];
    }
    char ranks[128], overs[128];
    list_text(r->workers, r->n, ranks, sizeof ranks);
    list_text(over, no, overs, sizeof overs);
    meta_set(&t->meta, "ranks", "%s", ranks);
    if (no > 0) meta_set(&t->meta, "oversubscribed", "yes (at %s ranks)", overs);
    meta_set(&t->meta, "optimizer", "per rank count: see runs-npP.csv (learning rate scaled by workers)");
    meta_set(&t->meta, "iteration", "per rank count: see runs-npP.csv (local steps per iteration)");
    meta_set(&t->meta, "summary", "%s", summary);
}

/* The seed's Table 2 for one family of schemes (group + allreduce, or lga). */
static Table *seed_table2(const Runs *r, bool lga, const char *name)
{
    Table *t = table_new(name, "workers,passes,label,group_sizes,iterations,rounds,traffic_mb,bytes_sent,"
                               "bytes_match,accuracy,accuracy_pct,accuracy_avg_model,wall_s,min_traffic");
    for (int i = 0; i < r->n; i++) {
        const Table *runs = r->runs[i];
        /* Minimum traffic among this worker count's rows: exact byte totals,
         * so ties (e.g. 5 workers: all-reduce at 12 and pairs at 24
         * iterations move the same bytes) are all marked. */
        unsigned long long least = ~0ULL;
        for (int row = 0; row < runs->nrows; row++) {
            bool is_lga = !strcmp(table_text(runs, row, "scheme"), "lga");
            if (is_lga != lga) continue;
            unsigned long long b = strtoull(table_text(runs, row, "bytes_sent"), NULL, 10) +
                                   strtoull(table_text(runs, row, "bytes_recv"), NULL, 10);
            if (b < least) least = b;
        }
        for (int row = 0; row < runs->nrows; row++) {
            bool is_lga = !strcmp(table_text(runs, row, "scheme"), "lga");
            if (is_lga != lga) continue;
            unsigned long long b = strtoull(table_text(runs, row, "bytes_sent"), NULL, 10) +
                                   strtoull(table_text(runs, row, "bytes_recv"), NULL, 10);
            table_set_str(t, "workers", table_text(runs, row, "workers"));
            table_set_str(t, "passes", table_text(runs, row, "passes"));
            table_set_str(t, "label", table_text(runs, row, "label"));
            table_set_str(t, "group_sizes", table_text(runs, row, "group_sizes"));
            table_set_str(t, "iterations", table_text(runs, row, "iterations"));
            table_set_str(t, "rounds", table_text(runs, row, "rounds"));
            table_set_num(t, "traffic_mb", table_num(runs, row, "traffic_mb"), "%.2f");
            table_set_str(t, "bytes_sent", table_text(runs, row, "bytes_sent"));
            table_set_str(t, "bytes_match", table_text(runs, row, "bytes_match"));
            table_set_num(t, "accuracy", table_num(runs, row, "accuracy"), "%.4f");
            table_set_num(t, "accuracy_pct", 100 * table_num(runs, row, "accuracy"), "%.2f");
            table_set_num(t, "accuracy_avg_model", table_num(runs, row, "accuracy_avg_model"), "%.4f");
            table_set_num(t, "wall_s", table_num(runs, row, "wall_s"), "%.2f");
            table_set_str(t, "min_traffic", b == least ? "yes" : "no");
            table_end_row(t);
        }
    }
    table_tex_bold(t, "min_traffic");
    return t;
}

/* Row of `label` in an iters table at iteration `it` (or its last one). */
static int iter_row(const Table *t, const char *label, int it)
{
    int last = -1;
    for (int row = 0; row < t->nrows; row++) {
        if (strcmp(table_text(t, row, "label"), label)) continue;
        if ((int)table_num(t, row, "iteration") == it) return row;
        last = row;
    }
    return last;
}

/* Figure 3: at 5 workers (else the most workers run), the all-reduce's
 * final result and pairwise averaging at the all-reduce's iteration count
 * and at 1.5 times it (the seed: 12 and 18). A run of fewer iterations is
 * the start of a longer one (same seed, constant learning rate), so both
 * pairwise bars come from the pairwise run's per-iteration log. */
static Table *figure3(const Runs *r)
{
    Table *t = table_new("fig3", "workers,bar,label,iterations,traffic_mb,accuracy");
    int pick = -1;
    for (int i = 0; i < r->n; i++)
        if (r->workers[i] == 5 || (pick < 0 && i == r->n - 1)) pick = i;
    if (pick < 0) return t;
    const Table *it = r->iters[pick];
    int ar = iter_row(it, "all-reduce", -1);
    if (ar < 0 || iter_row(it, "k=1", -1) < 0) return t;
    int n_ar = (int)table_num(it, ar, "iteration");
    struct { const char *bar; const char *label; int iteration; } bars[3] = {
        { "all-reduce", "all-reduce", n_ar },
        { "pairwise", "k=1", n_ar },
        { "pairwise", "k=1", n_ar + n_ar / 2 },
    };
    for (int b = 0; b < 3; b++) {
        int row = iter_row(it, bars[b].label, bars[b].iteration);
        char text[64];
        snprintf(text, sizeof text, "%s (%d it.)", bars[b].bar, (int)table_num(it, row, "iteration"));
        table_set_int(t, "workers", r->workers[pick]);
        table_set_str(t, "bar", text);
        table_set_str(t, "label", bars[b].label);
        table_set_str(t, "iterations", table_text(it, row, "iteration"));
        table_set_str(t, "traffic_mb", table_text(it, row, "traffic_mb"));
        table_set_str(t, "accuracy", table_text(it, row, "accuracy"));
        table_end_row(t);
    }
    return t;
}

static Table *all_iterations(const Runs *r)
{
    const Table *first = r->iters[0];
    char cols[512] = "";
    for (int c = 0; c < first->ncols; c++) {
        strcat(cols, c ? "," : "");
        strcat(cols, first->cols[c]);
    }
    Table *t = table_new("iters", cols);
    for (int i = 0; i < r->n; i++)
        for (int row = 0; row < r->iters[i]->nrows; row++) {
            for (int c = 0; c < first->ncols; c++) table_set_str(t, first->cols[c], table_text(r->iters[i], row, first->cols[c]));
            table_end_row(t);
        }
    return t;
}

int lab4_table(const void *ctx)
{
    const Lab4Options *o = ctx;
    Runs r;
    int n = load_runs(o->run.out, &r);
    if (n <= 0) {
        ddl_error("no runs-npP.csv / iters-npP.csv in %s: run `make lab4` (or mpirun -np P bin/lab4 run) first",
                   o->run.out);
        free_runs(&r);
        return 1;
    }
    char summary[512];
    summary_all(&r, summary, sizeof summary);
    Table *t2 = seed_table2(&r, false, "table2"), *lga = seed_table2(&r, true, "lga");
    Table *f3 = figure3(&r), *its = all_iterations(&r);
    Table *all[] = { t2, lga, f3, its };
    int status = 0;
    for (int i = 0; i < 4; i++) {
        provenance(all[i], &r, summary);
        if (all[i]->nrows > 0 && table_write(all[i], o->run.out) != 0) status = 1;
    }

    char cap1[768], cap2[512];
    snprintf(cap1, sizeof cap1, "lab4 (seed 000, Table 2): weights averaged after every local step, either by a "
             "ring allreduce over all workers or in rotating groups of $k+1$ ring neighbours ($k$ passes; "
             "\\emph{Groups}: their sizes). Traffic: bytes sent plus received by all workers during the averaging, "
             "counted exactly by ddlab (the seed measured terabytes of docker network I/O). Accuracy: each "
             "worker's model on its share of the test subset. Bold: the least traffic for each worker count.");
    snprintf(cap2, sizeof cap2, "lab4, the other reading of the seed: Horovod's \\texttt{backward\\_passes\\_per\\_step}"
             " $= k$ (gradients of $k$ local backward passes summed, then one allreduce and one step). Bold: the "
             "least traffic for each worker count.");
    static const char *cols[] = { "workers", "passes", "label", "group_sizes", "iterations", "traffic_mb",
                                  "accuracy_pct" };
    static const char *heads[] = { "Workers", "Passes", "Averaging", "Groups", "Iterations", "Traffic (MB)",
                                   "Accuracy (\\%)" };
    TexSpec specs[2] = {
        { cap1, "tab:lab4", 7, cols, heads, "rrllrrr" },
        { cap2, "tab:lab4-lga", 7, cols, heads, "rrllrrr" },
    };
    const Table *tex[2] = { t2, lga };
    int ntex = lga->nrows > 0 ? 2 : 1;
    if (t2->nrows == 0) {
        tex[0] = lga;
        specs[0] = specs[1];
        ntex = 1;
    }
    if (tables_write_tex(tex, specs, ntex, o->run.tex) != 0) status = 1;
    else if (!o->run.quiet)
        fprintf(stderr, "lab4: wrote %s and %s/{table2,fig3,iters%s}.csv (%s)\n", o->run.tex, o->run.out,
                lga->nrows ? ",lga" : "", summary);
    for (int i = 0; i < 4; i++) table_free(all[i]);
    free_runs(&r);
    return status;
}
