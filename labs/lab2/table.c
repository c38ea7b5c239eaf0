/* table.c - lab2 table: from the CSVs in results/lab2,
 *   report/tables/lab2.tex  three tables: where the ring overtakes
 *                           recursive doubling (measured and predicted,
 *                           per rank count); busbw at the largest size per
 *                           algorithm; training accuracy per algorithm;
 *   results/lab2/ranks.csv  the fixed-size runs at each rank count in one
 *                           file, for the time-vs-ranks figure. */
#include <dirent.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/common.h"
#include "comm/costmodel.h"
#include "lab2.h"

enum { MAX_FILES = 32 };

typedef struct Files { char *name[MAX_FILES]; int ranks[MAX_FILES]; int n; } Files;

static int by_ranks(const void *a, const void *b) { return *(const int *)a - *(const int *)b; }

/* Files "<prefix><N>.csv" in dir, sorted by N. */
static void find(const char *dir, const char *prefix, Files *f)
{
    f->n = 0;
    DIR *d = opendir(dir);
    if (!d) return;
    struct { int ranks; char name[256]; } found[MAX_FILES];
    int n = 0;
    struct dirent *e;
    size_t plen = strlen(prefix);
    while ((e = readdir(d)) && n < MAX_FILES) {
        int ranks = 0;
        char rest[16] = "";
        if (strncmp(e->d_name, prefix, plen) != 0) continue;
        if (sscanf(e->d_name + plen, "%d%15s", &ranks, rest) != 2 || strcmp(rest, ".csv") != 0) continue;
        found[n].ranks = ranks;
        ddl_strlcpy(found[n].name, e->d_name, sizeof found[n].name);
        n++;
    }
    closedir(d);
    qsort(found, (size_t)n, sizeof found[0], by_ranks);
    for (int i = 0; i < n; i++) {
        f->name[i] = strdup(found[i].name);
        f->ranks[i] = found[i].ranks;
    }
    f->n = n;
}

static void free_files(Files *f)
{
    for (int i = 0; i < f->n; i++) free(f->name[i]);
    f->n = 0;
}

static double meta_num(const Table *t, const char *key)
{
    const char *s = meta_get(&t->meta, key);
    return s && *s ? atof(s) : NAN;
}

/* Median latency of `alg` at `bytes` in a bench table, NAN if absent. */
static double median_at(const Table *t, const char *alg, double bytes)
{
    for (int r = 0; r < t->nrows; r++)
        if (!strcmp(table_get(t, r, "alg"), alg) && table_num(t, r, "bytes") == bytes) return table_num(t, r, "median_us");
    return NAN;
}

/* Smallest measured size from which the ring is faster than recursive
 * doubling at that size and every larger one; NAN if never. */
static double measured_crossover(const Table *t)
{
    double sizes[128];
    int n = 0;
    for (int r = 0; r < t->nrows && n < 128; r++)
        if (!strcmp(table_get(t, r, "alg"), "ring")) sizes[n++] = table_num(t, r, "bytes");
    double cross = NAN;
    for (int i = n - 1; i >= 0; i--) {
        double ring = median_at(t, "ring", sizes[i]), rd = median_at(t, "recdoubling", sizes[i]);
        if (!(ring < rd)) break;
        cross = sizes[i];
    }
    return cross;
}

/* Same from the model: scan 4 B .. 4 GiB in steps of 2^(1/16). */
static double predicted_crossover(const CostParams *cp, int ranks, double segment)
{
    if (!isfinite(cp->alpha) || !isfinite(cp->beta) || !isfinite(cp->gamma)) return NAN;
    double cross = NAN;
    for (double b = 4 * 65536.0 * 65536.0; b >= 4; b /= pow(2, 1.0 / 16)) {
        double ring = cost_allreduce(COMM_ALG_RING, ranks, b, segment, cp);
        double rd = cost_allreduce(COMM_ALG_RECDOUBLING, ranks, b, segment, cp);
        if (!(ring < rd)) break;
        cross = b;
    }
    return cross;
}

/* "simulated (SMPI, platform X), " for simulated runs, else "": the
 * summaries written here replace meta_summary's, so they say it too. */
static void sim_prefix(const Meta *m, char *out, size_t cap)
{
    const char *sim = meta_get(m, "simulated");
    if (sim) snprintf(out, cap, "simulated (%s), ", sim);
    else if (cap) out[0] = '\0';
}

static bool yes(const Table *t, const char *key)
{
    const char *v = meta_get(&t->meta, key);
    return v && !strcmp(v, "yes");
}

static Table *crossover_table(const char *dir, const Files *bench)
{
    Table *out = table_new("lab2-crossover", "ranks,oversubscribed,measured,predicted,alpha_us,beta_GBs,gamma_GBs");
    for (int i = 0; i < bench->n; i++) {
        Table *t = table_read_at(dir, bench->name[i]);
        if (!t) continue;
        if (i == 0) out->meta = t->meta;
        CostParams cp = { meta_num(t, "alpha_us") * 1e-6, meta_num(t, "beta_ns_per_byte") * 1e-9,
                          meta_num(t, "gamma_ns_per_byte") * 1e-9 };
        double seg = meta_num(t, "ring_async_segment_bytes");
        char buf[64];
        table_set_int(out, "ranks", bench->ranks[i]);
        table_set_str(out, "oversubscribed", yes(t, "oversubscribed") ? "yes" : "no");
        double m = measured_crossover(t), p = predicted_crossover(&cp, bench->ranks[i], seg);
        format_bytes(m, buf, sizeof buf);
        table_set_str(out, "measured", isfinite(m) ? buf : "none in range");
        format_bytes(p, buf, sizeof buf);
        table_set_str(out, "predicted", isfinite(p) ? buf : "n/a");
        table_set_num(out, "alpha_us", cp.alpha * 1e6, "%.3g");
        table_set_num(out, "beta_GBs", 1e-9 / cp.beta, "%.3g");
        table_set_num(out, "gamma_GBs", 1e-9 / cp.gamma, "%.3g");
        table_end_row(out);
        table_free(t);
    }
    return out;
}

/* busbw (GB/s) at the largest size of each sweep: one row per algorithm,
 * one column per rank count. */
static Table *busbw_table(const char *dir, const Files *bench, double *largest)
{
    char cols[512] = "alg";
    for (int i = 0; i < bench->n; i++) {
        size_t len = strlen(cols);
        snprintf(cols + len, sizeof cols - len, ",np%d", bench->ranks[i]);
    }
    Table *out = table_new("lab2-busbw", cols);
    Table *t[MAX_FILES];
    *largest = 0;
    for (int i = 0; i < bench->n; i++) {
        t[i] = table_read_at(dir, bench->name[i]);
        if (t[i] && i == 0) out->meta = t[i]->meta;
        for (int r = 0; t[i] && r < t[i]->nrows; r++) *largest = fmax(*largest, table_num(t[i], r, "bytes"));
    }
    for (int a = 0; a < COMM_ALG_COUNT; a++) {
        const char *alg = comm_alg_name((CommAlg)a);
        bool any = false; /* a device algorithm (nccl) has rows only from device runs */
        for (int i = 0; i < bench->n; i++)
            for (int r = 0; t[i] && r < t[i]->nrows; r++) any |= !strcmp(table_get(t[i], r, "alg"), alg);
        if (a >= COMM_ALG_HOST_COUNT && !any) continue;
        table_set_str(out, "alg", alg);
        for (int i = 0; i < bench->n; i++) {
            char col[16];
            snprintf(col, sizeof col, "np%d", bench->ranks[i]);
            double busbw = NAN;
            for (int r = 0; t[i] && r < t[i]->nrows; r++)
                if (!strcmp(table_get(t[i], r, "alg"), alg) && table_num(t[i], r, "bytes") == *largest)
                    busbw = table_num(t[i], r, "busbw_GBs");
            if (isfinite(busbw)) table_set_num(out, col, busbw, "%.2f");
            else table_set_str(out, col, "n/a");
        }
        table_end_row(out);
    }
    for (int i = 0; i < bench->n; i++) table_free(t[i]);
    return out;
}

/* Training, per algorithm, over every hidden width of the run with the
 * most ranks. */
static Table *train_table(const char *dir, const Files *train, int *ranks)
{
    Table *out = table_new("lab2-train", "alg,acc_mean,acc_range,acc_vs_ref,diff_first,diff_final,identical,"
                                         "elapsed");
    *ranks = 0;
    if (train->n == 0) return out;
    Table *t = table_read_at(dir, train->name[train->n - 1]);
    if (!t) return out;
    *ranks = train->ranks[train->n - 1];
    out->meta = t->meta;
    for (int a = 0; a < COMM_ALG_COUNT; a++) {
        const char *alg = comm_alg_name((CommAlg)a);
        double sum = 0, lo = INFINITY, hi = -INFINITY, vs = 0, d1 = 0, df = 0, elapsed = 0;
        int n = 0;
        bool identical = true;
        for (int r = 0; r < t->nrows; r++) {
            if (strcmp(table_get(t, r, "alg"), alg) != 0) continue;
            double acc = 100 * table_num(t, r, "test_accuracy");
            sum += acc;
            lo = fmin(lo, acc);
            hi = fmax(hi, acc);
            vs = fmax(vs, fabs(100 * table_num(t, r, "accuracy_minus_reference")));
            d1 = fmax(d1, table_num(t, r, "maxdiff_first_step"));
            df = fmax(df, table_num(t, r, "maxdiff_final"));
            elapsed += table_num(t, r, "elapsed_s");
            identical &= !strcmp(table_get(t, r, "replicas_identical"), "yes");
            n++;
        }
        if (n == 0) continue;
        char buf[64];
        table_set_str(out, "alg", alg);
        table_set_num(out, "acc_mean", sum / n, "%.2f");
        snprintf(buf, sizeof buf, "%.2f--%.2f", lo, hi);
        table_set_str(out, "acc_range", buf);
        table_set_num(out, "acc_vs_ref", vs, "%.2f");
        table_set_num(out, "diff_first", d1, "%.2g");
        table_set_num(out, "diff_final", df, "%.2g");
        table_set_str(out, "identical", identical ? "yes" : "no");
        table_set_num(out, "elapsed", elapsed, "%.1f");
        table_end_row(out);
    }
    table_free(t);
    return out;
}

/* The fixed-size runs at each rank count, as one CSV. */
static int write_ranks_csv(const char *dir, const Files *ranks)
{
    if (ranks->n == 0) return 0;
    Table *out = table_new("ranks", "alg,ranks,oversubscribed,bytes,median_us,busbw_GBs,model_us");
    for (int i = 0; i < ranks->n; i++) {
        Table *t = table_read_at(dir, ranks->name[i]);
        if (!t) continue;
        if (i == 0) {
            out->meta = t->meta;
            const char *cores = meta_get(&t->meta, "cores"), *profile = meta_get(&t->meta, "profile"),
                       *seed = meta_get(&t->meta, "seed");
            meta_set(&out->meta, "ranks", "%d..%d, one run each", ranks->ranks[0], ranks->ranks[ranks->n - 1]);
            meta_set(&out->meta, "experiment", "allreduce time vs ranks at a fixed size");
            char sim[320];
            sim_prefix(&t->meta, sim, sizeof sim);
            meta_set(&out->meta, "summary", "%s%d..%d ranks on %s cores (oversubscribed beyond), cpu, %s profile, seed %s",
                     sim, ranks->ranks[0], ranks->ranks[ranks->n - 1], cores ? cores : "?", profile ? profile : "?",
                     seed ? seed : "?");
        }
        for (int r = 0; r < t->nrows; r++) {
            table_set_str(out, "alg", table_get(t, r, "alg"));
            table_set_int(out, "ranks", ranks->ranks[i]);
            table_set_str(out, "oversubscribed", yes(t, "oversubscribed") ? "yes" : "no");
            table_set_str(out, "bytes", table_get(t, r, "bytes"));
            table_set_str(out, "median_us", table_get(t, r, "median_us"));
            table_set_str(out, "busbw_GBs", table_get(t, r, "busbw_GBs"));
            const char *model = table_get(t, r, "model_us");
            if (model) table_set_str(out, "model_us", model);
            table_end_row(out);
        }
        table_free(t);
    }
    int rc = table_write(out, dir);
    table_free(out);
    return rc;
}

int lab2_table(const void *ctx)
{
    const Lab2Options *o = ctx;
    Files bench, ranks, train;
    find(o->run.out, "bench-np", &bench);
    find(o->run.out, "bench-ranks-np", &ranks);
    find(o->run.out, "train-np", &train);
    if (bench.n == 0 && train.n == 0) {
        fprintf(stderr, "error: no bench-np*.csv or train-np*.csv in %s: run `make lab2` first\n", o->run.out);
        return 1;
    }
    int status = write_ranks_csv(o->run.out, &ranks) != 0;
    double largest = 0;
    int train_ranks = 0;
    Table *tables[3] = { crossover_table(o->run.out, &bench), busbw_table(o->run.out, &bench, &largest),
                         train_table(o->run.out, &train, &train_ranks) };
    /* Captions: the provenance line under each names the first run's
     * settings; the ranks and oversubscription are per row or per column. */
    for (int i = 0; i < 2; i++) {
        char sim[320];
        sim_prefix(&tables[i]->meta, sim, sizeof sim);
        meta_set(&tables[i]->meta, "summary", "%sbench runs at %d rank count(s) on %s cores, cpu, %s profile; "
                 "oversubscribed where ranks exceed cores", sim, bench.n,
                 meta_get(&tables[i]->meta, "cores") ? meta_get(&tables[i]->meta, "cores") : "?",
                 meta_get(&tables[i]->meta, "profile") ? meta_get(&tables[i]->meta, "profile") : "?");
    }
    char cap1[512], cap2[512], cap3[768], size[32], size_tex[64];
    format_bytes(largest, size, sizeof size);
    snprintf(cap1, sizeof cap1, "lab2: message size from which the ring allreduce is faster than recursive "
             "doubling (at that size and every larger one measured), and the size the alpha-beta-gamma model "
             "fitted on this machine predicts");
    snprintf(cap2, sizeof cap2, "lab2: bus bandwidth (GB/s, nccl-tests definition: bytes/time $\\times$ "
             "2(p-1)/p) at %s, FP32, per algorithm and rank count", tex_escape(size_tex, sizeof size_tex, size));
    snprintf(cap3, sizeof cap3, "lab2: the seed's training at %d ranks, weights averaged after every step "
             "by each algorithm: test accuracy over the hidden widths run, the largest accuracy difference from "
             "the MPI\\_Allreduce run (percentage points), the largest weight difference from it after the first "
             "step and at the end, whether all replicas held identical weights, total training time (s)",
             train_ranks);
    static const char *c1[] = { "ranks", "oversubscribed", "measured", "predicted", "alpha_us", "beta_GBs",
                                "gamma_GBs" };
    static const char *h1[] = { "Ranks", "Oversubscribed", "Measured", "Model", "$\\alpha$ ($\\mu$s)",
                                "$1/\\beta$ (GB/s)", "$1/\\gamma$ (GB/s)" };
    const char *c2[MAX_FILES + 1], *h2[MAX_FILES + 1];
    char h2buf[MAX_FILES][16], align2[MAX_FILES + 2];
    c2[0] = "alg";
    h2[0] = "Algorithm";
    align2[0] = 'l';
    for (int i = 0; i < tables[1]->ncols - 1; i++) {
        c2[i + 1] = tables[1]->cols[i + 1];
        snprintf(h2buf[i], sizeof h2buf[i], "%d ranks", bench.ranks[i]);
        h2[i + 1] = h2buf[i];
        align2[i + 1] = 'r';
    }
    align2[tables[1]->ncols] = '\0';
    static const char *c3[] = { "alg", "acc_mean", "acc_range", "acc_vs_ref", "diff_first", "diff_final",
                                "identical", "elapsed" };
    static const char *h3[] = { "Algorithm", "Acc.\\ (\\%)", "Range", "$|\\Delta$acc$|$", "$|\\Delta w|$ step 1",
                                "$|\\Delta w|$ end", "Replicas equal", "Time (s)" };
    TexSpec specs[3] = {
        { cap1, "tab:lab2-crossover", 7, c1, h1, "rlllrrr" },
        { cap2, "tab:lab2-busbw", tables[1]->ncols, c2, h2, align2 },
        { cap3, "tab:lab2-train", 8, c3, h3, "lrrrrrlr" },
    };
    /* Leave out what was not run (an empty table says nothing). */
    Table *keep[3];
    TexSpec keep_spec[3];
    int n = 0;
    for (int i = 0; i < 3; i++)
        if (tables[i]->nrows > 0) {
            keep[n] = tables[i];
            keep_spec[n++] = specs[i];
        }
    char dir[1024];
    ddl_strlcpy(dir, o->run.tex, sizeof dir);
    char *slash = strrchr(dir, '/');
    if (slash) {
        *slash = '\0';
        mkdir_p(dir);
    }
    if (tables_write_tex((const Table *const *)keep, keep_spec, n, o->run.tex) != 0) status = 1;
    else if (!o->run.quiet) fprintf(stderr, "lab2: wrote %s (%d tables)\n", o->run.tex, n);
    for (int i = 0; i < 3; i++) table_free(tables[i]);
    free_files(&bench);
    free_files(&ranks);
    free_files(&train);
    return status;
}
