/* run.c - `lab5 run`: one of the seed's schemes in one precision.
 *
 * csgd runs in one process. dsgd and fedavg run on 1 + U ranks: rank 0 is
 * the cloud (holds the global model, averages, steps for D-SGD, evaluates;
 * it does not train), ranks 1..U are the users, each with its shard of the
 * training subset (core/sync/fed.h). Every rank builds the model from the same
 * seed, so all start from the same weights without a first download.
 * After every epoch (fedavg: every round of E local epochs) the cloud
 * evaluates the global model on the test subset; training time excludes
 * that. Written to --out by rank 0:
 *   epochs-LABEL.csv     one row per epoch: rounds and payload bytes so far,
 *                        validation accuracy and loss, training loss,
 *                        the loss scale;
 *   summary-LABEL.csv    one row: the seed's Section 3.2 quantities in
 *                        closed form and measured, final accuracy,
 *                        overflow and skip counts;
 *   lossscale-LABEL.csv  FP16 runs: every change of the loss scale. */
#include <math.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common.h"
#include "evaluate/evaluate.h"
#include "sync/fed.h"
#include "sync/sync.h"
#include "results/results.h"
#include "lab5.h"

typedef struct Setup {
    const Lab5Options *o;
    SyncKind scheme;
    FedSharding sharding;
    bool fp16;
    int rank, world, users;  /* users: 0 for csgd */
    int local_batch;
    char label[64];
} Setup;

static void seed_label(const Setup *s, char *out, size_t cap)
{
    const char *p = s->fp16 ? "FP16" : "FP32";
    const char *name = s->scheme == SYNC_CSGD ? "C_SGD" : s->scheme == SYNC_DSGD ? "D_SGD" : "FL";
    snprintf(out, cap, "%s_BS%d_%s", name, s->o->batch, p);
}

static int parse(const Lab5Options *o, Setup *s)
{
    memset(s, 0, sizeof *s);
    s->o = o;
    MPI_Comm_rank(MPI_COMM_WORLD, &s->rank);
    MPI_Comm_size(MPI_COMM_WORLD, &s->world);
    if (sync_kind_from_name(o->scheme, &s->scheme) ||
        (s->scheme != SYNC_CSGD && s->scheme != SYNC_DSGD && s->scheme != SYNC_FEDAVG)) {
        ddl_error("--scheme '%s': csgd, dsgd or fedavg", o->scheme);
        return -1;
    }
    if (fed_sharding_from_name(o->shards, &s->sharding)) {
        ddl_error("--shards '%s': iid, sorted or dirichlet", o->shards);
        return -1;
    }
    if (strcmp(o->precision, "fp32") && strcmp(o->precision, "fp16")) {
        ddl_error("--precision '%s': fp32 or fp16", o->precision);
        return -1;
    }
    s->fp16 = !strcmp(o->precision, "fp16");
    if (s->scheme == SYNC_CSGD) {
        if (s->world != 1) {
            ddl_error("csgd is one process: run it without mpirun or with -np 1 (got %d ranks)", s->world);
            return -1;
        }
        s->local_batch = o->batch;
    } else {
        if (s->world < 2) {
            ddl_error("%s needs a cloud and users: mpirun -np 1+U (seed 004: -np 5 for 4 users), got %d rank",
                      o->scheme, s->world);
            return -1;
        }
        s->users = s->world - 1;
        if (s->scheme == SYNC_DSGD && o->batch % s->users) {
            ddl_error("dsgd: global batch %d is not a multiple of the %d users", o->batch, s->users);
            return -1;
        }
        s->local_batch = s->scheme == SYNC_DSGD ? o->batch / s->users : o->batch;
    }
    if (o->label && *o->label) ddl_strlcpy(s->label, o->label, sizeof s->label);
    else seed_label(s, s->label, sizeof s->label);
    return 0;
}

static void describe(Meta *meta, const Setup *s, const Dataset *train, const Dataset *test, const Model *m)
{
    const Lab5Options *o = s->o;
    memset(meta, 0, sizeof *meta);
    meta_collect(meta, "lab5");
    meta_set(meta, "experiment", "seed 004: C-SGD vs D-SGD vs FedAvg, FP32 vs FP16 mixed precision, ResNet-18");
    meta_set(meta, "profile", "%s", o->profile);
    meta_set(meta, "seed", "%llu", (unsigned long long)o->seed);
    meta_set(meta, "device", "cpu");
    meta_set(meta, "dataset", "%s", train->name);
    meta_set(meta, "data", "%s", train->synthetic ? "synthetic" : "real");
    meta_set(meta, "data_source", "%s", train->source);
    meta_set(meta, "train_examples", "%d (the first %d of the training set)", train->n, train->n);
    meta_set(meta, "test_examples", "%d", test->n);
    meta_set(meta, "model", "resnet18 (CIFAR variant) width %g", (double)o->width);
    meta_set(meta, "params", "%zu", m->nparams);
    meta_set(meta, "label", "%s", s->label);
    meta_set(meta, "scheme", "%s", sync_kind_name(s->scheme));
    meta_set(meta, "precision", "%s", s->fp16 ? "fp16 mixed precision (FP16 emulated by rounding on CPU: FP32 master "
                                               "weights, FP16-rounded weights, activations and gradients, FP32 "
                                               "accumulation, dynamic loss scaling)" : "fp32");
    if (s->fp16)
        meta_set(meta, "loss_scaling", "start %g, halve and skip on inf/NaN, double after %d clean steps",
                 (double)o->loss_scale, o->scale_window);
    meta_set(meta, "optimizer", "SGD lr %g (constant), momentum %g, weight decay %g", (double)o->lr,
             (double)o->momentum, (double)o->weight_decay);
    if (s->scheme == SYNC_CSGD) meta_set(meta, "roles", "one process, batch %d", o->batch);
    else
        meta_set(meta, "roles", "rank 0 the cloud (global model, averaging, evaluation; does not train), ranks 1-%d "
                                "the %d users, local batch %d, %s shards%s", s->users, s->users, s->local_batch,
                 fed_sharding_name(s->sharding), s->sharding == FED_DIRICHLET ? " (Dirichlet)" : "");
    if (s->sharding == FED_DIRICHLET) meta_set(meta, "alpha", "%g", (double)o->alpha);
    if (s->scheme == SYNC_FEDAVG) meta_set(meta, "local_epochs", "%d", o->local_epochs);
    meta_set(meta, "augment", "%s", o->augment ? "pad-4 random crop + flip" : "none (normalisation only, as the seed)");
    if (s->fp16) { /* the provenance line under every table and figure says it too */
        char line[400];
        meta_summary(meta, line, sizeof line);
        meta_set(meta, "summary", "%s; FP16 emulated by rounding on CPU", line);
    }
    meta_set(meta, "traffic", "payload = parameters (FP32 4 B, FP16 2 B each), counted on every message; BN "
                              "statistics (state) and counts/loss scale (control) counted apart");
}

typedef struct Run {
    Setup *s;
    Model m;
    Trainer t;
    Sync sync;           /* the csgd, dsgd or fedavg row */
} Run;

/* Payload bytes so far, over all users (the cloud's view: it receives every
 * upload and sends every download). csgd: 0. */
static void payload_so_far(const Run *r, unsigned long long *up, unsigned long long *down, long *rounds)
{
    unsigned long long v[5] = { 0, 0, 0, 0, 0 };
    const FedLink *l = fed_link_of(&r->sync);
    if (l && l->cloud) {
        v[0] = l->ctr.bytes_up[FED_PAYLOAD];
        v[1] = l->ctr.bytes_down[FED_PAYLOAD];
        v[2] = l->ctr.rounds;
    }
    *up = v[0];
    *down = v[1];
    *rounds = (long)v[2];
}

static int epoch_row(Run *r, Table *t, const Dataset *test, int epoch, double wall, double train_loss,
                     double train_acc, float scale)
{
    Setup *s = r->s;
    EvalResult e = { NAN, NAN, 0 };
    if (s->rank == 0) e = evaluate(&r->m, test, s->o->eval_batch);
    if (s->rank != 0) return 0;
    unsigned long long up, down;
    long rounds;
    payload_so_far(r, &up, &down, &rounds);
    table_set_str(t, "label", s->label);
    table_set_str(t, "scheme", sync_kind_name(s->scheme));
    table_set_str(t, "precision", s->fp16 ? "fp16" : "fp32");
    table_set_int(t, "epoch", epoch);
    table_set_int(t, "rounds", rounds);
    table_set_int(t, "payload_up_bytes", (long long)up);
    table_set_int(t, "payload_down_bytes", (long long)down);
    table_set_num(t, "payload_mb", (double)(up + down) / 1e6, "%.6f");
    table_set_num(t, "val_accuracy", e.accuracy, "%.4f");
    table_set_num(t, "val_loss", e.loss, "%.5f");
    if (epoch > 0) {
        table_set_num(t, "train_loss", train_loss, "%.5f");
        table_set_num(t, "train_accuracy", train_acc, "%.4f");
    }
    table_set_num(t, "train_s", wall, "%.3f");
    table_set_num(t, "loss_scale", scale, "%g");
    table_end_row(t);
    if (!s->o->quiet)
        fprintf(stderr, "lab5: %s epoch %d: val accuracy %.2f%% (loss %.4f), train loss %.4f, %ld rounds, "
                        "%.1f MB payload, %.1f s\n", s->label, epoch, 100 * e.accuracy, e.loss, train_loss,
                rounds, (double)(up + down) / 1e6, wall);
    return 0;
}

static void summary_row(Run *r, Table *t, const Dataset *train, int epochs, double wall, long overflows,
                        const LossScaler *ls, const Table *ep)
{
    Setup *s = r->s;
    const Lab5Options *o = s->o;
    size_t n = r->m.nparams;
    CommDtype dt = s->fp16 ? COMM_FP16 : COMM_FP32;
    unsigned long long up, down;
    long rounds;
    payload_so_far(r, &up, &down, &rounds);
    double rpe_closed = fed_rounds_per_epoch(s->scheme, train->n, o->batch, o->local_epochs);
    uint64_t per_round = s->scheme == SYNC_CSGD ? 0 : fed_bytes_per_round(n, dt);
    int U = s->users > 0 ? s->users : 1;
    /* measured per user and round: every upload of every user over rounds */
    double per_round_meas = rounds > 0 ? (double)up / (double)rounds / U : 0.0;
    double rpe_meas = (double)rounds / epochs;
    bool match = s->scheme == SYNC_CSGD ? up == 0
                                       : (up == (unsigned long long)rounds * U * per_round &&
                                          down == (unsigned long long)rounds * U * per_round);
    table_set_str(t, "label", s->label);
    table_set_str(t, "scheme", sync_kind_name(s->scheme));
    table_set_str(t, "precision", s->fp16 ? "fp16" : "fp32");
    table_set_int(t, "users", s->users);
    table_set_int(t, "global_batch", s->scheme == SYNC_FEDAVG ? o->batch * U : o->batch);
    table_set_int(t, "local_batch", s->local_batch);
    table_set_int(t, "local_epochs", s->scheme == SYNC_FEDAVG ? o->local_epochs : 0);
    table_set_str(t, "shards", s->scheme == SYNC_CSGD ? "-" : fed_sharding_name(s->sharding));
    table_set_int(t, "params", (long long)n);
    table_set_int(t, "train_examples", train->n);
    table_set_int(t, "epochs", epochs);
    table_set_int(t, "rounds", rounds);
    table_set_num(t, "rounds_per_epoch_closed", rpe_closed, "%.2f");
    table_set_num(t, "rounds_per_epoch", rpe_meas, "%.2f");
    table_set_int(t, "bytes_per_round_closed", (long long)per_round);
    table_set_num(t, "bytes_per_round", per_round_meas, "%.0f");
    table_set_num(t, "bytes_per_epoch_closed", rpe_closed * (double)per_round, "%.0f");
    table_set_num(t, "bytes_per_epoch", rpe_meas * per_round_meas, "%.0f");
    table_set_int(t, "payload_up_bytes", (long long)up);
    table_set_int(t, "payload_down_bytes", (long long)down);
    unsigned long long st = 0, ctl = 0;
    const FedLink *l = fed_link_of(&r->sync);
    if (l && l->cloud) {
        st = l->ctr.bytes_up[FED_STATE] + l->ctr.bytes_down[FED_STATE];
        ctl = l->ctr.bytes_up[FED_CONTROL] + l->ctr.bytes_down[FED_CONTROL];
    }
    table_set_int(t, "state_bytes", (long long)st);
    table_set_int(t, "control_bytes", (long long)ctl);
    table_set_str(t, "bytes_match", match ? "yes" : "no");
    int last = ep->nrows - 1;
    double best = 0;
    for (int i = 0; i < ep->nrows; i++) best = fmax(best, atof(table_get(ep, i, "val_accuracy")));
    table_set_str(t, "final_accuracy", table_get(ep, last, "val_accuracy"));
    table_set_num(t, "best_accuracy", best, "%.4f");
    table_set_str(t, "final_train_loss", table_get(ep, last, "train_loss") ? table_get(ep, last, "train_loss") : "");
    table_set_int(t, "overflows", overflows);
    table_set_int(t, "skipped_steps", overflows);
    table_set_int(t, "scale_updates", ls->updates);
    table_set_num(t, "final_loss_scale", s->fp16 ? ls->scale : 1.0, "%g");
    table_set_num(t, "train_s", wall, "%.3f");
    table_end_row(t);
}

static Table *scale_trace(const Setup *s, const LossScaler *ls, const char *name)
{
    Table *t = table_new(name, "label,update,loss_scale,event");
    table_set_str(t, "label", s->label);
    table_set_int(t, "update", 0);
    table_set_num(t, "loss_scale", s->o->loss_scale, "%g");
    table_set_str(t, "event", "start");
    table_end_row(t);
    for (int i = 0; i < ls->ntrace; i++) {
        table_set_str(t, "label", s->label);
        table_set_int(t, "update", ls->trace[i].step + 1);
        table_set_num(t, "loss_scale", ls->trace[i].scale, "%g");
        table_set_str(t, "event", ls->trace[i].overflow ? "overflow" : "grow");
        table_end_row(t);
    }
    table_set_str(t, "label", s->label);
    table_set_int(t, "update", ls->updates);
    table_set_num(t, "loss_scale", ls->scale, "%g");
    table_set_str(t, "event", "end");
    table_end_row(t);
    return t;
}

static int train(Run *r, const Dataset *train_set, const Dataset *test, const Meta *meta, Comm *c)
{
    Setup *s = r->s;
    const Lab5Options *o = s->o;
    FedConfig fc = { train_set, s->sharding, o->alpha, s->fp16, o->loss_scale, o->scale_window, s->local_batch,
                     o->local_epochs, o->augment, o->seed };
    SyncConfig sc = sync_config_default(s->scheme);
    sc.fed = &fc;
    SgdConfig sgd = { o->lr, o->momentum, o->weight_decay, false };
    trainer_init(&r->t, &r->m, &sgd);
    char err[256];
    if (sync_init(&r->sync, &sc, &r->t, c, err) != 0) ddl_die("%s", err);
    char name[3][96];
    snprintf(name[0], sizeof name[0], "epochs-%s", s->label);
    snprintf(name[1], sizeof name[1], "summary-%s", s->label);
    snprintf(name[2], sizeof name[2], "lossscale-%s", s->label);
    Table *ep = table_new(name[0], "label,scheme,precision,epoch,rounds,payload_up_bytes,payload_down_bytes,"
                                   "payload_mb,val_accuracy,val_loss,train_loss,train_accuracy,train_s,loss_scale");
    Table *sum = table_new(name[1], "label,scheme,precision,users,global_batch,local_batch,local_epochs,shards,params,"
                                    "train_examples,epochs,rounds,rounds_per_epoch_closed,rounds_per_epoch,"
                                    "bytes_per_round_closed,bytes_per_round,bytes_per_epoch_closed,bytes_per_epoch,"
                                    "payload_up_bytes,payload_down_bytes,state_bytes,control_bytes,bytes_match,"
                                    "final_accuracy,best_accuracy,final_train_loss,overflows,skipped_steps,"
                                    "scale_updates,final_loss_scale,train_s");
    ep->meta = sum->meta = *meta;

    double wall = 0.0;
    epoch_row(r, ep, test, 0, 0.0, NAN, NAN, fed_mixed(&r->sync)->ls.scale);
    int step_epochs = s->scheme == SYNC_FEDAVG ? o->local_epochs : 1;
    int rounds = sync_rounds_per_epoch(&r->sync);
    int epoch = 0;
    while (epoch < o->epochs) {
        MPI_Barrier(MPI_COMM_WORLD);
        double t0 = ddl_now();
        for (int k = 0; k < rounds; k++) {
            SyncRound rd;
            sync_round(&r->sync, &rd);
        }
        double dt = ddl_now() - t0;
        MPI_Allreduce(MPI_IN_PLACE, &dt, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
        wall += dt;
        epoch += step_epochs;
        double tl, ta;
        fed_take_train_stats(&r->sync, &tl, &ta);
        /* D-SGD: the cloud evaluates with the users' averaged BN statistics */
        fed_prepare_eval(&r->sync);
        epoch_row(r, ep, test, epoch, wall, tl, ta, fed_mixed(&r->sync)->ls.scale);
    }
    LossScaler ls;
    long overflows;
    fed_scaler_report(&r->sync, &ls, &overflows);
    int status = 0;
    if (s->rank == 0) {
        summary_row(r, sum, train_set, epoch, wall, overflows, &ls, ep);
        if (table_write(ep, o->out) || table_write(sum, o->out)) status = 1;
        if (s->fp16) {
            Table *tr = scale_trace(s, &ls, name[2]);
            tr->meta = *meta;
            if (table_write(tr, o->out)) status = 1;
            table_free(tr);
        }
        if (!o->quiet)
            fprintf(stderr, "lab5: %s: final accuracy %s, %s rounds, bytes %s closed form, %ld overflows; wrote "
                            "%s/{%s,%s}.csv\n", s->label, table_get(sum, 0, "final_accuracy"),
                    table_get(sum, 0, "rounds"), !strcmp(table_get(sum, 0, "bytes_match"), "yes") ? "==" : "!=",
                    overflows, o->out, name[0], name[1]);
        if (strcmp(table_get(sum, 0, "bytes_match"), "yes")) status = 1;
        free(ls.trace);
    }
    MPI_Bcast(&status, 1, MPI_INT, 0, MPI_COMM_WORLD);
    table_free(ep);
    table_free(sum);
    sync_free(&r->sync);
    trainer_free(&r->t);
    return status;
}

int lab5_run(const Lab5Options *o)
{
    Setup s;
    if (parse(o, &s)) return 2;
    Dataset train_set, test;
    if (dataset_load_for_run(o->dataset, SPLIT_TRAIN, o->limit, o->seed, true, o->force_synthetic, &train_set))
        return 1;
    if (dataset_load_for_run(o->dataset, SPLIT_TEST, o->test_limit, o->seed, true, o->force_synthetic, &test)) {
        dataset_free(&train_set);
        return 1;
    }
    if (s.users > train_set.n) {
        ddl_error("%d users but only %d training examples", s.users, train_set.n);
        dataset_free(&train_set);
        dataset_free(&test);
        return 2;
    }
    Run r;
    memset(&r, 0, sizeof r);
    r.s = &s;
    ModelConfig mc = model_config_default("resnet18", (Shape){ train_set.c, train_set.h, train_set.w },
                                          train_set.classes);
    mc.width = o->width;
    char err[256];
    int max_batch = s.rank == 0 ? DDL_MAX(o->eval_batch, s.scheme == SYNC_CSGD ? s.local_batch : 1) : s.local_batch;
    int status = 0;
    if (model_build(&r.m, "resnet18", &mc, max_batch, o->seed, err) != 0) {
        ddl_error("%s", err);
        status = 2;
    } else {
        Meta meta;
        describe(&meta, &s, &train_set, &test, &r.m);
        if (s.rank == 0 && !o->quiet)
            fprintf(stderr, "lab5: %s: %s, resnet18 width %g (%zu params), %s %s %d train / %d test, %d rank%s%s, "
                            "local batch %d, %d epochs%s\n", s.label, sync_kind_name(s.scheme), (double)o->width,
                    r.m.nparams, train_set.synthetic ? "synthetic" : "real", train_set.name, train_set.n, test.n,
                    s.world, s.world > 1 ? "s (rank 0 the cloud)" : "", "", s.local_batch, o->epochs,
                    s.fp16 ? ", FP16 emulated by rounding on CPU" : "");
        Comm c;
        comm_init(&c, MPI_COMM_WORLD);
        status = train(&r, &train_set, &test, &meta, &c);
        comm_free(&c);
        model_free(&r.m);
    }
    dataset_free(&train_set);
    dataset_free(&test);
    return status;
}
