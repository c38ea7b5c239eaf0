/* table.c - `lab5 table`: every run in --out (summary-*.csv, epochs-*.csv,
 * lossscale-*.csv) into
 *   comm.csv       the seed's Section 3.2: parameters, bytes per round,
 *                  rounds per epoch, bytes per epoch, closed form beside
 *                  measured (per user and direction, as the seed counts);
 *   accuracy.csv   final and best accuracy per scheme and precision, rounds
 *                  and payload bytes until the accuracy first reached --target;
 *   epochs.csv     every epoch of every run (Figures 5 and 6);
 *   lossscale.csv  every FP16 run's loss-scale changes;
 *   report/tables/lab5.tex  the first two. */
#include <dirent.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/common.h"
#include "results/results.h"
#include "lab5.h"

enum { MAX_RUNS = 64 };

typedef struct Runs {
    int n;
    Table *sum[MAX_RUNS], *ep[MAX_RUNS], *ls[MAX_RUNS];
} Runs;

static Table *read_named(const char *dir, const char *prefix, const char *label, bool must)
{
    char path[8192], err[256];
    snprintf(path, sizeof path, "%.4000s/%s-%.96s.csv", dir, prefix, label);
    FILE *f = fopen(path, "r");
    if (!f) {
        if (must) ddl_error("%s is missing", path);
        return NULL;
    }
    fclose(f);
    Table *t = table_read_csv(path, err, sizeof err);
    if (!t) ddl_error("%s", err);
    return t;
}

/* The seed's order: FP32 before FP16; C-SGD, D-SGD (by batch), FL. */
static int rank_of(const Table *s)
{
    const char *sc = table_text(s, 0, "scheme");
    int k = !strcmp(sc, "csgd") ? 0 : !strcmp(sc, "dsgd") ? 1 : 2;
    return (!strcmp(table_text(s, 0, "precision"), "fp16") ? 1000000 : 0) + k * 100000 + (int)table_num(s, 0, "global_batch");
}

static int load(const char *dir, Runs *r)
{
    memset(r, 0, sizeof *r);
    DIR *d = opendir(dir);
    if (!d) return -1;
    char labels[MAX_RUNS][96];
    int n = 0;
    struct dirent *e;
    while ((e = readdir(d)) && n < MAX_RUNS) {
        size_t len = strlen(e->d_name);
        if (strncmp(e->d_name, "summary-", 8) || len < 13 || strcmp(e->d_name + len - 4, ".csv")) continue;
        snprintf(labels[n], sizeof labels[n], "%.*s", (int)(len - 12), e->d_name + 8);
        n++;
    }
    closedir(d);
    for (int i = 0; i < n; i++) {
        Table *s = read_named(dir, "summary", labels[i], true), *ep = read_named(dir, "epochs", labels[i], true);
        Table *ls = s && ep ? read_named(dir, "lossscale", labels[i], false) : NULL;
        char err[512];
        bool mixed = s && ep && (results_same_run(s, ep, err, sizeof err) || (ls && results_same_run(s, ls, err, sizeof err)));
        if (mixed) ddl_error("%s/%s", dir, err);
        if (!s || !ep || s->nrows < 1 || mixed) {
            table_free(ls);
            table_free(s);
            table_free(ep);
            return -1;
        }
        r->sum[r->n] = s;
        r->ep[r->n] = ep;
        r->ls[r->n++] = ls;
    }
    /* insertion sort into the seed's order */
    for (int i = 1; i < r->n; i++)
        for (int j = i; j > 0 && rank_of(r->sum[j]) < rank_of(r->sum[j - 1]); j--) {
            Table *t = r->sum[j]; r->sum[j] = r->sum[j - 1]; r->sum[j - 1] = t;
            t = r->ep[j]; r->ep[j] = r->ep[j - 1]; r->ep[j - 1] = t;
            t = r->ls[j]; r->ls[j] = r->ls[j - 1]; r->ls[j - 1] = t;
        }
    return r->n;
}

static void free_runs(Runs *r)
{
    for (int i = 0; i < r->n; i++) {
        table_free(r->sum[i]);
        table_free(r->ep[i]);
        table_free(r->ls[i]);
    }
}

/* How the FP16 runs ran: rounding on the CPU, real FP16 GEMM operands on a
 * device (a GPU or the emulated one). */
static bool all_on_cpu(const Runs *r)
{
    for (int i = 0; i < r->n; i++) {
        const char *dev = meta_get(&r->sum[i]->meta, "device");
        if (dev && strcmp(dev, "cpu") != 0) return false;
    }
    return true;
}

static const char *fp16_words(const Runs *r)
{
    return all_on_cpu(r) ? "FP16 emulated by rounding on CPU"
                         : "FP16 as each run's summary says (device runs: FP16 GEMM operands)";
}

/* Provenance: the first run's, with ranks saying both counts. */
static void provenance(Table *t, const Runs *r)
{
    t->meta = r->sum[0]->meta;
    int lo = 1 << 30, hi = 0, widest = 0;
    bool over = false, synthetic = false, on_cpu = all_on_cpu(r);
    for (int i = 0; i < r->n; i++) {
        const char *k = meta_get(&r->sum[i]->meta, "ranks"), *o = meta_get(&r->sum[i]->meta, "oversubscribed");
        const char *d = meta_get(&r->sum[i]->meta, "data");
        int v = k ? atoi(k) : 1;
        lo = DDL_MIN(lo, v);
        if (v > hi) widest = i;
        hi = DDL_MAX(hi, v);
        over |= o && !strcmp(o, "yes");
        synthetic |= d && !strcmp(d, "synthetic");
    }
    /* the machine (or simulated platform) of the widest run */
    const char *cores = meta_get(&r->sum[widest]->meta, "cores"), *sim = meta_get(&t->meta, "simulated");
    const char *hosts = meta_get(&r->sum[widest]->meta, "hosts");
    char ranks[32], where[64];
    if (hosts && atoi(hosts) > 1) snprintf(where, sizeof where, "%s hosts", hosts); /* as meta_summary says it */
    else snprintf(where, sizeof where, "%s cores", cores ? cores : "?");
    if (lo == hi) snprintf(ranks, sizeof ranks, "%d", lo);
    else snprintf(ranks, sizeof ranks, "%d-%d", lo, hi);
    meta_set(&t->meta, "ranks", "%s", ranks);
    /* the first run's provenance would otherwise speak for every run */
    meta_set(&t->meta, "oversubscribed", "%s", over ? "yes (some runs)" : "no");
    meta_set(&t->meta, "roles", "per run (its summary)");
    const char *fp16 = fp16_words(r);
    meta_set(&t->meta, "summary", "%s%s%s%s CIFAR-10, %s ranks on %s%s, %s, %s profile, seed %s; FP16 runs: %s",
             sim ? "simulated (" : "", sim ? sim : "", sim ? "), " : "", synthetic ? "synthetic" : "real", ranks, where,
             over ? " (oversubscribed)" : "", on_cpu ? "cpu" : "devices as per run",
             meta_get(&t->meta, "profile") ? meta_get(&t->meta, "profile") : "?",
             meta_get(&t->meta, "seed") ? meta_get(&t->meta, "seed") : "?", fp16);
    meta_set(&t->meta, "label", "all runs");
    meta_set(&t->meta, "scheme", "all runs");
    meta_set(&t->meta, "precision", "fp32 and fp16 (%s)", fp16);
}

static void mb(Table *t, const char *col, double bytes) { table_set_num(t, col, bytes / 1e6, "%.3f"); }

/* The run summary's cells of these columns into the row being built. */
static void copy_cells(Table *t, const Table *summary, const char *const *cols, int n)
{
    for (int c = 0; c < n; c++) table_set_str(t, cols[c], table_text(summary, 0, cols[c]));
}

static Table *comm_table(const Runs *r)
{
    Table *t = table_new("comm", "label,scheme,precision,params,bytes_per_round_closed,bytes_per_round,"
                                 "mb_per_round_closed,mb_per_round,rounds_per_epoch_closed,rounds_per_epoch,"
                                 "mb_per_epoch_closed,mb_per_epoch,bytes_match");
    for (int i = 0; i < r->n; i++) {
        const Table *s = r->sum[i];
        const char *cols[] = { "label", "scheme", "precision", "params", "bytes_per_round_closed", "bytes_per_round",
                               "rounds_per_epoch_closed", "rounds_per_epoch", "bytes_match" };
        copy_cells(t, s, cols, (int)(sizeof cols / sizeof cols[0]));
        mb(t, "mb_per_round_closed", table_num(s, 0, "bytes_per_round_closed"));
        mb(t, "mb_per_round", table_num(s, 0, "bytes_per_round"));
        mb(t, "mb_per_epoch_closed", table_num(s, 0, "bytes_per_epoch_closed"));
        mb(t, "mb_per_epoch", table_num(s, 0, "bytes_per_epoch"));
        table_end_row(t);
    }
    return t;
}

static Table *accuracy_table(const Runs *r, double target)
{
    Table *t = table_new("accuracy", "label,scheme,precision,epochs,final_accuracy,final_pct,best_accuracy,target,"
                                     "epoch_to_target,rounds_to_target,mb_to_target,overflows,skipped_steps,"
                                     "final_loss_scale,train_s");
    for (int i = 0; i < r->n; i++) {
        const Table *s = r->sum[i], *ep = r->ep[i];
        static const char *const run[] = { "label", "scheme", "precision", "epochs", "final_accuracy" };
        static const char *const fp16[] = { "overflows", "skipped_steps", "final_loss_scale", "train_s" };
        copy_cells(t, s, run, 5);
        copy_cells(t, s, fp16, 4);
        table_set_num(t, "final_pct", 100 * table_num(s, 0, "final_accuracy"), "%.2f");
        table_set_str(t, "best_accuracy", table_text(s, 0, "best_accuracy"));
        table_set_num(t, "target", target, "%.3f");
        int hit = -1;
        for (int row = 0; row < ep->nrows && hit < 0; row++)
            if (table_num(ep, row, "epoch") > 0 && table_num(ep, row, "val_accuracy") >= target) hit = row;
        if (hit >= 0) {
            table_set_str(t, "epoch_to_target", table_text(ep, hit, "epoch"));
            table_set_str(t, "rounds_to_target", table_text(ep, hit, "rounds"));
            table_set_num(t, "mb_to_target", table_num(ep, hit, "payload_mb"), "%.3f");
        } else {
            table_set_str(t, "epoch_to_target", "not reached");
            table_set_str(t, "rounds_to_target", "-");
            table_set_str(t, "mb_to_target", "-");
        }
        table_end_row(t);
    }
    return t;
}

static Table *concat(Table *const *parts, int n, const char *name)
{
    const Table *first = NULL;
    for (int i = 0; i < n && !first; i++) first = parts[i];
    if (!first) return table_new(name, "label");
    char cols[1024] = "";
    for (int c = 0; c < first->ncols; c++) {
        strcat(cols, c ? "," : "");
        strcat(cols, first->cols[c]);
    }
    Table *t = table_new(name, cols);
    for (int i = 0; i < n; i++) {
        if (!parts[i]) continue;
        for (int row = 0; row < parts[i]->nrows; row++) {
            for (int c = 0; c < first->ncols; c++) table_set_str(t, first->cols[c], table_text(parts[i], row, first->cols[c]));
            table_end_row(t);
        }
    }
    return t;
}

int lab5_table(const void *ctx)
{
    const Lab5Options *o = ctx;
    Runs r;
    if (load(o->run.out, &r) <= 0) {
        ddl_error("no summary-*.csv / epochs-*.csv in %s: run `make lab5` (or bin/lab5 run) first", o->run.out);
        free_runs(&r);
        return 1;
    }
    Table *comm = comm_table(&r), *acc = accuracy_table(&r, o->target);
    Table *ep = concat(r.ep, r.n, "epochs"), *ls = concat(r.ls, r.n, "lossscale");
    Table *all[] = { comm, acc, ep, ls };
    int status = 0;
    for (int i = 0; i < 4; i++) {
        provenance(all[i], &r);
        if (all[i]->nrows > 0 && table_write(all[i], o->run.out) != 0) status = 1;
    }
    char cap1[640], cap2[640];
    snprintf(cap1, sizeof cap1, "lab5 (seed 004, Section 3.2): payload per user and direction. Closed form: "
             "parameters $\\times$ 4 B (FP32) or 2 B (FP16) per round; rounds per epoch $N/B$ for D-SGD, $1/E$ for "
             "FL, 0 for C-SGD. Measured: bytes counted on every message divided by users and rounds. "
             "Each pair: the formula, then what the run did. MB = $10^6$ bytes.");
    snprintf(cap2, sizeof cap2, "lab5 (seed 004, Figures 5 and 6 at their last epoch): validation accuracy of the "
             "global model per scheme and precision; rounds and payload (all users, up + down) until it first reached "
             "%.0f\\%%; FP16 overflows (skipped steps). %s.", 100.0 * o->target, fp16_words(&r));
    static const char *c1[] = { "label", "mb_per_round_closed", "mb_per_round", "rounds_per_epoch_closed",
                                "rounds_per_epoch", "mb_per_epoch_closed", "mb_per_epoch" };
    static const char *h1[] = { "Scheme", "MB/round", "counted", "Rounds/epoch", "run", "MB/epoch", "counted" };
    static const char *c2[] = { "label", "epochs", "final_pct", "epoch_to_target", "rounds_to_target", "mb_to_target",
                                "overflows" };
    static const char *h2[] = { "Scheme", "Epochs", "Accuracy (\\%)", "Epoch to target", "Rounds", "MB",
                                "Overflows" };
    TexSpec specs[2] = { { cap1, "tab:lab5-comm", 7, c1, h1, "lrrrrrr" },
                         { cap2, "tab:lab5-accuracy", 7, c2, h2, "lrrrrrr" } };
    const Table *tex[2] = { comm, acc };
    if (tables_write_tex(tex, specs, 2, o->run.tex) != 0) status = 1;
    else if (!o->run.quiet) fprintf(stderr, "lab5: wrote %s and %s/{comm,accuracy,epochs,lossscale}.csv\n", o->run.tex, o->run.out);
    for (int i = 0; i < 4; i++) table_free(all[i]);
    free_runs(&r);
    return status;
}
