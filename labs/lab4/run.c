/* run.c - `lab4 run` at P ranks: every configuration of the seed's Table 2
 * for this P, one after the other, from the same initial weights and the
 * same data order, then three CSVs (+ JSON twins) in --out:
 *   runs-npP.csv   one row per configuration: bytes (counted, closed form,
 *                  Open MPI's count when monitoring is on), wall time,
 *                  final accuracy, consensus distance;
 *   iters-npP.csv  one row per configuration and iteration: cumulative
 *                  traffic, accuracy, losses, consensus distance;
 *   ranks-npP.csv  bytes and messages of every rank, next to the closed form. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/common.h"
#include "sync/group_avg.h"
#include "lab4.h"

enum { MAX_CONFIGS = 160 };

/* Per rank, gathered on rank 0 after each configuration. */
enum { R_SENT, R_RECV, R_MSENT, R_MRECV, R_WSENT, R_WRECV, R_MONB, R_MONM, R_MONOK, R_N };

static void describe(Meta *meta, const Lab4Options *o, const Lab4Setup *s, int per_iter, const char *monitor)
{
    Driver *d = s->d;
    const Dataset *train = &d->train;
    int P = d->world;
    memset(meta, 0, sizeof *meta);
    driver_meta(d, meta);
    meta_set(meta, "experiment", "seed 000: group / pairwise weight averaging vs full allreduce, traffic vs accuracy");
    meta_set(meta, "train_examples", "%d (the first %d of the training set, %d per worker)", train->n, train->n,
             (train->n + P - 1) / P);
    meta_set(meta, "model", "cnn3 width %g", (double)o->run.width);
    meta_set(meta, "optimizer", "SGD lr %g (%g x %d workers%s), momentum %g, batch %d per worker",
             (double)s->lr, (double)o->run.lr, o->no_lr_scale ? 1 : P, o->no_lr_scale ? ", unscaled" : "",
             (double)o->run.momentum, o->run.batch);
    if (o->steps_per_iter > 0)
        meta_set(meta, "iteration", "%d local SGD steps, each followed by one averaging round", per_iter);
    else
        meta_set(meta, "iteration", "one pass over the worker's shard (an epoch): %d local SGD steps, each "
                                    "followed by one averaging round", per_iter);
    if (o->iters > 0) meta_set(meta, "schedule", "%d iterations for every configuration", o->iters);
    else
        meta_set(meta, "schedule", "iterations = %d + %d (P - passes); all-reduce counts as passes = P "
                                   "(the seed's Table 2)", o->iters_base, o->iters_step);
    meta_set(meta, "scheme_group", "passes k: groups of k+1 consecutive ring positions (last one smaller), "
                                   "ring allreduce AVG of the weights in each group, grouping shifted one "
                                   "position every round%s", o->no_rotate ? " (rotation OFF: --no-rotate)" : "");
    meta_set(meta, "scheme_allreduce", "ring allreduce AVG of the weights over all workers every round");
    meta_set(meta, "scheme_lga", "Horovod backward_passes_per_step = k: k local gradients summed, ring "
                                 "allreduce AVG of them, one SGD step with their mean");
    meta_set(meta, "traffic", "bytes counted by ddlab on every message of the averaging (FP32 payload); "
                              "traffic_mb = (sent + received) over all workers / 1e6, as the seed summed");
    meta_set(meta, "accuracy", "Horovod style: each worker's own model on its 1/P of the test subset, combined");
    meta_set(meta, "monitoring", "%s", monitor);
}

static void set_common(Table *t, const Lab4Config *c, int P)
{
    char label[32];
    lab4_label(c, label, sizeof label);
    table_set_str(t, "scheme", lab4_scheme_name(c->scheme));
    table_set_int(t, "workers", P);
    table_set_int(t, "passes", c->passes);
    table_set_str(t, "label", label);
}

/* Rank 0: the configuration's rows in runs and ranks. */
static bool report(Table *runs, Table *ranks, const Lab4Config *c, const Lab4Result *r, const uint64_t *all,
                   int P, size_t nparams)
{
    uint64_t sent = 0, recv = 0, want = 0, mon = 0, smin = UINT64_MAX, smax = 0;
    bool exact = true, monitored = true, mon_same = true;
    for (int q = 0; q < P; q++) {
        const uint64_t *v = all + (size_t)q * R_N;
        sent += v[R_SENT];
        recv += v[R_RECV];
        want += v[R_WSENT];
        mon += v[R_MONB];
        smin = DDL_MIN(smin, v[R_SENT]);
        smax = DDL_MAX(smax, v[R_SENT]);
        exact &= v[R_SENT] == v[R_WSENT] && v[R_RECV] == v[R_WRECV];
        monitored &= v[R_MONOK] != 0;
        mon_same &= v[R_MONB] == v[R_SENT];
        set_common(ranks, c, P);
        table_set_int(ranks, "iterations", c->iters);
        table_set_int(ranks, "rank", q);
        table_set_int(ranks, "bytes_sent", (long long)v[R_SENT]);
        table_set_int(ranks, "bytes_recv", (long long)v[R_RECV]);
        table_set_int(ranks, "closed_form_sent", (long long)v[R_WSENT]);
        table_set_int(ranks, "closed_form_recv", (long long)v[R_WRECV]);
        table_set_int(ranks, "msgs_sent", (long long)v[R_MSENT]);
        table_set_int(ranks, "msgs_recv", (long long)v[R_MRECV]);
        if (v[R_MONOK]) table_set_int(ranks, "monitor_bytes_sent", (long long)v[R_MONB]);
        else table_set_str(ranks, "monitor_bytes_sent", "n/a");
        table_end_row(ranks);
    }
    char sizes[64];
    if (c->scheme == SCHEME_GROUP) group_avg_sizes_text(P, c->passes, sizes, sizeof sizes);
    else snprintf(sizes, sizeof sizes, "%d", P);
    set_common(runs, c, P);
    table_set_str(runs, "group_sizes", sizes);
    table_set_int(runs, "iterations", c->iters);
    table_set_int(runs, "rounds", r->rounds);
    table_set_int(runs, "params", (long long)nparams);
    table_set_int(runs, "bytes_sent", (long long)sent);
    table_set_int(runs, "bytes_recv", (long long)recv);
    table_set_num(runs, "traffic_mb", (double)(sent + recv) / 1e6, "%.6f");
    table_set_int(runs, "rank_sent_min", (long long)smin);
    table_set_int(runs, "rank_sent_max", (long long)smax);
    table_set_int(runs, "closed_form_sent", (long long)want);
    table_set_str(runs, "bytes_match", exact ? "yes" : "no");
    if (monitored) {
        table_set_int(runs, "monitor_bytes_sent", (long long)mon);
        table_set_str(runs, "monitor_match", mon_same ? "yes" : "no");
    } else {
        table_set_str(runs, "monitor_bytes_sent", "n/a");
        table_set_str(runs, "monitor_match", "n/a");
    }
    table_set_num(runs, "wall_s", r->wall_s, "%.4f");
    table_set_num(runs, "sync_s", r->sync_s, "%.4f");
    table_set_num(runs, "accuracy", r->accuracy, "%.4f");
    table_set_num(runs, "test_loss", r->test_loss, "%.5f");
    table_set_num(runs, "accuracy_avg_model", r->accuracy_avg_model, "%.4f");
    table_set_num(runs, "consensus", r->consensus, "%.6g");
    table_set_num(runs, "consensus_rel", r->consensus_rel, "%.6g");
    table_set_num(runs, "train_loss", r->train_loss, "%.5f");
    table_end_row(runs);
    return exact && (!monitored || mon_same);
}

/* Per configuration: rank 0's rows in runs and ranks, and its line. */
static int one_config(const Lab4Options *o, Lab4Setup *s, const Lab4Config *cfg, Table *runs, Table *ranks,
                      uint64_t *all)
{
    Driver *d = s->d;
    Lab4Result r;
    char scope[48];
    lab4_label(cfg, scope, sizeof scope);
    driver_checkpoint_scope(d, scope);
    int rc = lab4_train(s, cfg, &r);
    if (rc != 0) return rc;
    uint64_t mine[R_N] = { r.ctr.bytes_sent, r.ctr.bytes_recv, r.ctr.msgs_sent, r.ctr.msgs_recv,
                           r.want_sent, r.want_recv, r.mon_bytes, r.mon_msgs, r.monitored };
    MPI_Gather(mine, R_N, MPI_UINT64_T, all, R_N, MPI_UINT64_T, 0, MPI_COMM_WORLD);
    if (d->rank != 0) return 0;
    bool ok = report(runs, ranks, cfg, &r, all, d->world, d->m.nparams);
    char label[32];
    lab4_label(cfg, label, sizeof label);
    if (!o->run.quiet)
        fprintf(stderr, "lab4: P=%d %-11s %3d it. %5ld rounds %10.3f MB%s  %6.2f s  accuracy %6.2f%%  consensus %.3g\n",
                d->world, label, cfg->iters, r.rounds, atof(table_get(runs, runs->nrows - 1, "traffic_mb")),
                ok ? "" : " (BYTES != CLOSED FORM)", r.wall_s, 100 * r.accuracy, r.consensus);
    return ok ? 0 : 1;
}

/* A resumed run: the last configuration with a checkpoint continues (its
 * tables hold the rows of those before it); -1: start from the first. */
static int resume_from(const Lab4Options *o, Lab4Setup *s, const Lab4Config *cfgs, int nc)
{
    int from = -1;
    for (int i = 0; i < nc; i++) {
        char scope[48];
        lab4_label(&cfgs[i], scope, sizeof scope);
        if (driver_checkpoint_found(s->d, scope)) from = i;
    }
    if (from < 0 && o->run.resume) {
        ddl_error("--resume %s: no checkpoint of any configuration there", o->run.resume);
        return -2;
    }
    return from;
}

static int run_all(const Lab4Options *o, Lab4Setup *s, const Lab4Config *cfgs, int nc, const Meta *meta)
{
    Driver *d = s->d;
    char name[3][192];
    snprintf(name[0], sizeof name[0], "runs-%s", d->tag);
    snprintf(name[1], sizeof name[1], "iters-%s", d->tag);
    snprintf(name[2], sizeof name[2], "ranks-%s", d->tag);
    Table *runs = table_new(name[0], "scheme,workers,passes,label,group_sizes,iterations,rounds,params,bytes_sent,"
                                     "bytes_recv,traffic_mb,rank_sent_min,rank_sent_max,closed_form_sent,bytes_match,"
                                     "monitor_bytes_sent,monitor_match,wall_s,sync_s,accuracy,test_loss,"
                                     "accuracy_avg_model,consensus,consensus_rel,train_loss");
    s->iters = table_new(name[1], "scheme,workers,passes,label,iteration,rounds,bytes_sent,traffic_mb,accuracy,"
                                  "test_loss,train_loss,consensus,consensus_rel,train_s");
    Table *ranks = table_new(name[2], "scheme,workers,passes,label,iterations,rank,bytes_sent,bytes_recv,"
                                      "closed_form_sent,closed_form_recv,msgs_sent,msgs_recv,monitor_bytes_sent");
    runs->meta = s->iters->meta = ranks->meta = *meta;
    uint64_t *all = ddl_alloc(sizeof(uint64_t) * R_N * (size_t)d->world);
    s->runs = runs;
    s->ranks = ranks;
    s->status = 0;
    int first = resume_from(o, s, cfgs, nc);
    if (first == -2) s->status = 2;
    for (int i = DDL_MAX(first, 0); i < nc && s->status != 2; i++) {
        int rc = one_config(o, s, &cfgs[i], runs, ranks, all);
        s->status = rc > s->status ? rc : s->status;
    }
    int status = s->status;
    MPI_Bcast(&status, 1, MPI_INT, 0, MPI_COMM_WORLD);
    if (status != 2) {
        Table *t[3] = { runs, s->iters, ranks };
        if (driver_write(d, t, 3)) status = 1;
        else if (d->rank == 0 && !o->run.quiet)
            fprintf(stderr, "lab4: wrote %s/{%s,%s,%s}.csv\n", o->run.out, name[0], name[1], name[2]);
    }
    ddl_free(all);
    table_free(runs);
    table_free(s->iters);
    table_free(ranks);
    return status;
}

int lab4_run(void *ctx, Driver *d)
{
    const Lab4Options *o = ctx;
    const int P = d->world;
    Lab4Config cfgs[MAX_CONFIGS];
    int nc = lab4_configs(o, P, cfgs, MAX_CONFIGS);
    if (nc < 0 || driver_open(d)) return 2;
    if (driver_load(d, true)) return 1;
    if (driver_build(d, "cnn3", NULL, DDL_MAX(o->run.batch, 500))) return 2;
    driver_tag(d, "np%d", P);
    driver_run_begin(d, o->run.out, (const char *const[]){ "runs-*", "iters-*", "ranks-*", NULL });
    float *init = ddl_alloc(d->m.nparams * sizeof(float));
    model_params_to_host(&d->m, init); /* the model may live on a device */
    CommMonitor mon;
    comm_monitor_open(&mon, &d->comm);
    Lab4Setup s = { .o = o, .d = d, .init = init, .lr = o->run.lr * (o->no_lr_scale ? 1.0f : (float)P),
                    .monitor = mon.available ? &mon : NULL };
    Batcher probe;
    BatcherOptions bo = { .batch = o->run.batch, .rank = d->rank, .world = P, .seed = o->run.seed };
    batcher_init(&probe, &d->train, &bo);
    int per_iter = o->steps_per_iter > 0 ? o->steps_per_iter : batcher_batches(&probe);
    batcher_free(&probe);
    char monitor[300];
    snprintf(monitor, sizeof monitor, "%s", mon.available ? "Open MPI pml monitoring pvars read around every round"
                                                          : mon.why);
    Meta meta;
    describe(&meta, o, &s, per_iter, monitor);
    if (d->rank == 0 && !o->run.quiet)
        fprintf(stderr, "lab4: %d workers, cnn3 (%zu params), %s %s: %d train / %d test, %d steps per iteration, %d "
                        "configurations, monitoring %s\n", P, d->m.nparams, d->train.synthetic ? "synthetic" : "real",
                d->train.name, d->train.n, d->test.n, per_iter, nc, mon.available ? "on" : "off");
    int status = run_all(o, &s, cfgs, nc, &meta);
    comm_monitor_close(&mon);
    ddl_free(init);
    return status;
}
