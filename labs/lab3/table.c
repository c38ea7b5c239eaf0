/* table.c - lab3's tables and figure data, from every <tag>-summary.csv
 * in results/lab3:
 *   table1.csv + report/tables/lab3.tex   the seed's Table 1 (Task, time
 *       per iteration, test loss and accuracy, speedup over Task 1), then
 *       the bucket-cap sweep (time, exposed sync, hidden communication);
 *   scaling-<sync>.csv   time per iteration vs ranks for each strategy
 *       (the seed's Figures 2-4, and all of them on one plot);
 *   buckets.csv          the DDP bucket-cap sweep and the flat control;
 *   scaling-pytorch_ddp.csv, peer.csv   with make lab3 PEER=pytorch, PyTorch
 *       DDP's curve and its times beside ddlab's DDP (*-peer.csv). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/common.h"
#include "results/results.h"
#include "lab3.h"

enum { MAX_RUNS = 256 };

/* --series may name several (e.g. "scale,buckets": one run serves both). */
static bool has_series(const Table *t, const char *what)
{
    char buf[128];
    ddl_strlcpy(buf, table_text(t, 0, "series"), sizeof buf);
    for (char *save = NULL, *tok = strtok_r(buf, ",", &save); tok; tok = strtok_r(NULL, ",", &save))
        if (!strcmp(tok, what)) return true;
    return false;
}

/* Order: by sync strategy as listed in sync.h, then ranks, then cap. */
static int by_sync_np_cap(const void *a, const void *b)
{
    const Table *x = *(Table *const *)a, *y = *(Table *const *)b;
    SyncKind kx = SYNC_NONE, ky = SYNC_NONE;
    sync_kind_from_name(table_text(x, 0, "sync"), &kx);
    sync_kind_from_name(table_text(y, 0, "sync"), &ky);
    if (kx != ky) return (int)kx - (int)ky;
    double d = table_num(x, 0, "np") - table_num(y, 0, "np");
    if (d != 0) return d < 0 ? -1 : 1;
    double cx = table_num(x, 0, "bucket_cap_mb"), cy = table_num(y, 0, "bucket_cap_mb");
    if (isnan(cx)) cx = 1e30;
    if (isnan(cy)) cy = 1e30;
    return (cx > cy) - (cx < cy);
}

/* Rank counts an aggregate table spans, and which were oversubscribed:
 * its provenance line must say so (the first run's "2 ranks" would not). */
typedef struct Span { int lo, hi; char over[96]; } Span;

static void span_add(Span *sp, const Table *run)
{
    int np = atoi(table_text(run, 0, "np"));
    if (sp->hi == 0 || np < sp->lo) sp->lo = np;
    if (np > sp->hi) sp->hi = np;
    if (!strcmp(table_text(run, 0, "oversubscribed"), "yes")) {
        char one[16];
        snprintf(one, sizeof one, "%d", np);
        if (!strstr(sp->over, one)) {
            size_t len = strlen(sp->over);
            snprintf(sp->over + len, sizeof sp->over - len, "%s%d", len ? ", " : "", np);
        }
    }
}

static void span_label(Table *t, const Span *sp)
{
    if (!t) return;
    if (sp->lo == sp->hi) meta_set(&t->meta, "ranks", "%d", sp->lo);
    else meta_set(&t->meta, "ranks", "%d-%d", sp->lo, sp->hi);
    meta_set(&t->meta, "oversubscribed", "%s", sp->over[0] ? "yes" : "no");
    char line[512];
    meta_summary(&t->meta, line, sizeof line);
    if (sp->over[0]) {
        /* name the oversubscribed rank counts instead of a blanket note */
        char *p = strstr(line, " (oversubscribed)");
        if (p) memmove(p, p + 17, strlen(p + 17) + 1);
        size_t len = strlen(line);
        snprintf(line + len, sizeof line - len, "; oversubscribed at %s ranks", sp->over);
        meta_set(&t->meta, "oversubscribed", "at %s ranks", sp->over);
    }
    meta_set(&t->meta, "summary", "%s", line);
}

static void fmt(char *buf, size_t cap, const char *f, double v)
{
    if (isnan(v)) buf[0] = 0;
    else snprintf(buf, cap, f, v);
}

static int write_scaling(const Lab3Options *o, Table **runs, int n)
{
    int status = 0;
    /* Each multi-rank strategy's curve: its scale and task runs, and at
     * one rank the single-process Task 1 (what every strategy reduces to
     * there). */
    for (int k = 0; k < SYNC_KIND_COUNT; k++) {
        if (!sync_kind_offered((SyncKind)k, 3) || sync_kind_one_process((SyncKind)k)) continue;
        Table *t = NULL;
        Span sp = { 0, 0, "" };
        char name[64];
        snprintf(name, sizeof name, "scaling-%s", sync_kind_name((SyncKind)k));
        for (int i = 0; i < n; i++) {
            bool task1 = !strcmp(table_text(runs[i], 0, "task"), "1");
            bool mine = !strcmp(table_text(runs[i], 0, "sync"), sync_kind_name((SyncKind)k)) &&
                        (has_series(runs[i], "scale") || has_series(runs[i], "task"));
            if (!task1 && !mine) continue;
            if (!t) {
                t = table_new(name, "np,ms_mean,s_per_iter,ms_rank_min,ms_rank_max,sync_ms,comm_ms,hidden_frac,"
                                    "batch_per_rank,oversubscribed");
                t->meta = runs[i]->meta;
                meta_set(&t->meta, "run", "%s", name);
            }
            static const char *const cols[] = { "np", "ms_mean", "s_per_iter", "ms_rank_min", "ms_rank_max",
                                                "sync_ms", "comm_ms", "hidden_frac", "batch_per_rank",
                                                "oversubscribed" };
            for (size_t c = 0; c < sizeof cols / sizeof *cols; c++) table_set_str(t, cols[c], table_text(runs[i], 0, cols[c]));
            table_end_row(t);
            span_add(&sp, runs[i]);
        }
        span_label(t, &sp);
        if (t && table_write(t, o->run.out) != 0) status = 1;
        table_free(t);
    }
    return status;
}

/* ddlab's DDP run at np ranks (a scaling or task run at the default cap). */
static const Table *ddp_at(Table **runs, int n, double np)
{
    for (int i = 0; i < n; i++)
        if (!strcmp(table_text(runs[i], 0, "sync"), "ddp") && table_num(runs[i], 0, "np") == np &&
            (has_series(runs[i], "scale") || has_series(runs[i], "task")))
            return runs[i];
    return NULL;
}

static int by_np(const void *a, const void *b)
{
    double d = table_num(*(Table *const *)a, 0, "np") - table_num(*(Table *const *)b, 0, "np");
    return (d > 0) - (d < 0);
}

/* make lab3 PEER=pytorch (bench/peer/lab3.sh): PyTorch DDP's points, one
 * <run>-peer.csv per rank count. They become the curve scaling-pytorch_ddp
 * (beside the strategies' own) and the table "peer": ddlab's DDP and
 * PyTorch's at the same ranks. Kept out of the *-summary.csv runs and of
 * Table 1, whose rows are the seed's tasks. Returns the table, or NULL. */
static Table *peer_table(const Lab3Options *o, Table **runs, int n, int *status)
{
    static Table *peer[64];
    int np = table_read_dir(o->run.out, "-peer.csv", "ms_mean", peer, 64);
    if (np <= 0) return NULL;
    qsort(peer, (size_t)np, sizeof *peer, by_np);
    Table *curve = table_new("scaling-pytorch_ddp", "np,ms_mean,s_per_iter,ms_rank_min,ms_rank_max,batch_per_rank");
    Table *side = table_new("peer", "np,method,ddlab_s_per_iter,pytorch_s_per_iter,ratio");
    curve->meta = side->meta = peer[0]->meta;
    meta_set(&curve->meta, "run", "scaling-pytorch_ddp");
    meta_set(&side->meta, "run", "peer");
    for (int i = 0; i < np; i++) {
        static const char *const cols[] = { "np", "ms_mean", "s_per_iter", "ms_rank_min", "ms_rank_max",
                                            "batch_per_rank" };
        for (size_t c = 0; c < sizeof cols / sizeof *cols; c++) table_set_str(curve, cols[c], table_text(peer[i], 0, cols[c]));
        table_end_row(curve);
        const Table *ours = ddp_at(runs, n, table_num(peer[i], 0, "np"));
        double mine = ours ? table_num(ours, 0, "s_per_iter") : NAN, theirs = table_num(peer[i], 0, "s_per_iter");
        char buf[64];
        table_set_str(side, "np", table_text(peer[i], 0, "np"));
        table_set_str(side, "method", "PyTorch DDP (gloo)");
        fmt(buf, sizeof buf, "%.4f", mine);
        table_set_str(side, "ddlab_s_per_iter", buf);
        table_set_str(side, "pytorch_s_per_iter", table_text(peer[i], 0, "s_per_iter"));
        fmt(buf, sizeof buf, "%.2f", mine / theirs);
        table_set_str(side, "ratio", buf);
        table_end_row(side);
    }
    if (table_write(curve, o->run.out) != 0 || table_write(side, o->run.out) != 0) *status = 1;
    table_free(curve);
    for (int i = 0; i < np; i++) table_free(peer[i]);
    return side;
}

static Table *bucket_table(Table **runs, int n)
{
    Table *t = NULL;
    Span sp = { 0, 0, "" };
    for (int i = 0; i < n; i++) {
        if (!has_series(runs[i], "buckets")) continue;
        bool flat = !strcmp(table_text(runs[i], 0, "sync"), "allreduce_flat");
        if (!flat && strcmp(table_text(runs[i], 0, "sync"), "ddp") != 0) continue;
        if (!t) {
            t = table_new("buckets", "label,cap_mb,buckets,np,ms_mean,forward_ms,backward_ms,sync_ms,comm_ms,"
                                     "hidden_ms,hidden_frac,oversubscribed");
            t->meta = runs[i]->meta;
            meta_set(&t->meta, "run", "buckets");
        }
        double cap = table_num(runs[i], 0, "bucket_cap_mb");
        char label[32];
        if (flat) ddl_strlcpy(label, "flat", sizeof label);
        else if (cap == 0) ddl_strlcpy(label, "per layer", sizeof label);
        else snprintf(label, sizeof label, "%g MiB", cap);
        table_set_str(t, "label", label);
        if (!flat) table_set_str(t, "cap_mb", table_text(runs[i], 0, "bucket_cap_mb"));
        table_set_str(t, "buckets", flat ? "1" : table_text(runs[i], 0, "buckets"));
        static const char *const cols[] = { "np", "ms_mean", "forward_ms", "backward_ms", "sync_ms", "comm_ms",
                                            "hidden_ms", "hidden_frac", "oversubscribed" };
        for (size_t c = 0; c < sizeof cols / sizeof *cols; c++) table_set_str(t, cols[c], table_text(runs[i], 0, cols[c]));
        table_end_row(t);
        span_add(&sp, runs[i]);
    }
    span_label(t, &sp);
    return t;
}

static Table *table1(Table **runs, int n)
{
    static const char *const order[] = { "1", "2a", "2b", "3" };
    static const char *const what[] = { "single process", "gather/scatter", "allreduce per parameter",
                                        "DDP buckets + overlap" };
    const Table *task[4] = { NULL };
    for (int i = 0; i < n; i++)
        for (int k = 0; k < 4; k++)
            if (!strcmp(table_text(runs[i], 0, "task"), order[k])) task[k] = runs[i];
    Table *t = NULL;
    Span sp = { 0, 0, "" };
    double t1 = task[0] ? table_num(task[0], 0, "s_per_iter") : NAN;
    for (int k = 0; k < 4; k++) {
        if (!task[k]) continue;
        if (!t) {
            t = table_new("table1", "task,method,sync,np,batch_per_rank,s_per_iter,test_loss,test_accuracy_pct,"
                                    "acc_rank_spread_pct,speedup,oversubscribed");
            t->meta = task[k]->meta;
            meta_set(&t->meta, "run", "table1");
        }
        char buf[64];
        double s = table_num(task[k], 0, "s_per_iter");
        table_set_str(t, "task", order[k]);
        table_set_str(t, "method", what[k]);
        table_set_str(t, "sync", table_text(task[k], 0, "sync"));
        table_set_str(t, "np", table_text(task[k], 0, "np"));
        table_set_str(t, "batch_per_rank", table_text(task[k], 0, "batch_per_rank"));
        fmt(buf, sizeof buf, "%.3f", s);
        table_set_str(t, "s_per_iter", buf);
        fmt(buf, sizeof buf, "%.3f", table_num(task[k], 0, "test_loss"));
        table_set_str(t, "test_loss", buf);
        fmt(buf, sizeof buf, "%.2f", 100 * table_num(task[k], 0, "test_accuracy"));
        table_set_str(t, "test_accuracy_pct", buf);
        fmt(buf, sizeof buf, "%.2f", 100 * (table_num(task[k], 0, "test_acc_max") - table_num(task[k], 0, "test_acc_min")));
        table_set_str(t, "acc_rank_spread_pct", buf);
        fmt(buf, sizeof buf, "%.2f", t1 / s);
        table_set_str(t, "speedup", buf);
        table_set_str(t, "oversubscribed", table_text(task[k], 0, "oversubscribed"));
        table_end_row(t);
        span_add(&sp, task[k]);
    }
    span_label(t, &sp);
    return t;
}

int lab3_table(const void *ctx)
{
    const Lab3Options *o = ctx;
    static Table *runs[MAX_RUNS];
    int n = table_read_dir(o->run.out, "-summary.csv", "ms_mean", runs, MAX_RUNS);
    if (n == 0) {
        fprintf(stderr, "error: no lab3 runs (*-summary.csv) in %s: run make lab3\n", o->run.out);
        return 1;
    }
    qsort(runs, (size_t)n, sizeof *runs, by_sync_np_cap);
    int status = write_scaling(o, runs, n);
    Table *t1 = table1(runs, n), *tb = bucket_table(runs, n), *tp = peer_table(o, runs, n, &status);
    const Table *tex[3];
    TexSpec specs[3];
    int nt = 0;
    if (t1) {
        if (table_write(t1, o->run.out) != 0) status = 1;
        static const char *const cols[] = { "task", "method", "np", "s_per_iter", "test_loss", "test_accuracy_pct",
                                            "speedup" };
        static const char *const heads[] = { "Task", "Method", "Ranks", "Avg.\\ time/iter (s)", "Loss",
                                             "Accuracy (\\%)", "Speedup" };
        specs[nt] = (TexSpec){ "lab3: the seed's Table 1. Time per iteration: the first 40 iterations timed, the "
                               "first discarded, averaged per rank and then over ranks; test loss and accuracy of "
                               "rank 0 after the run; speedup over Task 1.",
                               "tab:lab3", 7, cols, heads, "cllrrrr" };
        tex[nt++] = t1;
    }
    if (tb) {
        if (table_write(tb, o->run.out) != 0) status = 1;
        static const char *const cols[] = { "label", "buckets", "np", "ms_mean", "sync_ms", "comm_ms", "hidden_frac" };
        static const char *const heads[] = { "Bucket cap", "Buckets", "Ranks", "ms/iter", "Exposed sync (ms)",
                                             "Comm.\\ (ms)", "Hidden" };
        specs[nt] = (TexSpec){ "lab3: DDP bucket cap sweep and the flat control (one allreduce after backward). "
                               "Hidden: the fraction of communication time that ended before backward did.",
                               "tab:lab3-buckets", 7, cols, heads, "lrrrrrr" };
        tex[nt++] = tb;
    }
    if (tp) {
        static const char *const cols[] = { "method", "np", "ddlab_s_per_iter", "pytorch_s_per_iter", "ratio" };
        static const char *const heads[] = { "Reference", "Ranks", "ddlab DDP (s/iter)", "Reference (s/iter)",
                                             "ddlab / reference" };
        specs[nt] = (TexSpec){ "lab3: your bucketed DDP beside PyTorch DDP (gloo backend, 25 MiB buckets) on the "
                               "same platform, model and total batch 256 (make lab3 PEER=pytorch). Timed as the "
                               "strategies are; PyTorch trains on random inputs of the same shape (no accuracy).",
                               "tab:lab3-peer", 5, cols, heads, "lrrrr" };
        tex[nt++] = tp;
    }
    if (nt > 0) {
        if (mkdir_parent(o->run.tex) != 0 || tables_write_tex(tex, specs, nt, o->run.tex) != 0) status = 1;
        else fprintf(stderr, "lab3: wrote %s and the figure CSVs in %s (%d runs)\n", o->run.tex, o->run.out, n);
    } else {
        fprintf(stderr, "lab3: no task or bucket runs in %s: nothing for %s\n", o->run.out, o->run.tex);
    }
    table_free(t1);
    table_free(tb);
    table_free(tp);
    for (int i = 0; i < n; i++) table_free(runs[i]);
    return status;
}
