/* run.c - `lab5 run`: one of the seed's schemes in one precision.
 *
 * The schemes are the csgd, dsgd and fedavg rows of core/sync (fed.h),
 * which train in rounds. csgd runs in one process. dsgd and fedavg run on
 * 1 + U ranks: rank 0 is the cloud (holds the global model, averages,
 * steps for D-SGD, evaluates; it does not train), ranks 1..U are the
 * users, each with its shard of the training subset. Every rank builds the model from the same
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

#include "train/evaluate.h"
#include "lab5.h"

typedef struct Run {
    const Lab5Options *o;
    Driver *d;
    int step_epochs;             /* epochs per report period: fedavg E, else 1 */
    double wall;                 /* training time so far (max over ranks per period) */
    Table *epochs_t, *summary_t;
} Run;

int lab5_check(void *ctx, int ranks)
{
    Lab5Options *o = ctx;
    char schemes[256]; /* the rows of core/sync that lab5 offers (SYNC_LAB(5)) */
    int scheme = driver_choice("scheme", o->scheme, sync_kind_names(schemes, sizeof schemes, "|", 5));
    int prec = driver_choice("precision", o->precision, "fp32|fp16");
    int shards = driver_choice("shards", o->shards, "iid|sorted|dirichlet");
    if (scheme < 0 || prec < 0 || shards < 0) return 2;
    static const FedSharding sharding[] = { FED_IID, FED_LABEL_SORTED, FED_DIRICHLET };
    sync_kind_from_name(o->scheme, &o->kind);
    o->sharding = sharding[shards];
    o->fp16 = prec == 1;
    o->users = o->kind == SYNC_CSGD ? 0 : ranks - 1;
    o->local_batch = o->kind == SYNC_DSGD && o->users > 0 ? o->run.batch / o->users : o->run.batch;
    if (o->kind == SYNC_CSGD && ranks != 1)
        ddl_error("csgd is one process: run it without mpirun or with -np 1 (got %d ranks)", ranks);
    else if (o->kind != SYNC_CSGD && ranks < 2)
        ddl_error("%s needs a cloud and users: mpirun -np 1+U (seed 004: -np 5 for 4 users), got %d rank", o->scheme,
                  ranks);
    else if (o->kind == SYNC_DSGD && o->run.batch % o->users)
        ddl_error("dsgd: global batch %d is not a multiple of the %d users", o->run.batch, o->users);
    else
        return 0;
    return 2;
}

/* How FP16 ran: real FP16 GEMM operands on a device with gemm_f16 (a GPU,
 * or the emulated one), rounding on the CPU otherwise. */
static void fp16_how(const Driver *d, char *out, size_t cap)
{
    if (fed_mixed(d->sync)->fp16_gemm)
        snprintf(out, cap, "FP16 GEMM operands with FP32 accumulation on the %s", d->m.be->what);
    else
        snprintf(out, cap, "FP16 emulated by rounding on CPU");
}

static void describe(Meta *meta, const Lab5Options *o, Driver *d)
{
    char how[120];
    fp16_how(d, how, sizeof how);
    memset(meta, 0, sizeof *meta);
    driver_meta(d, meta);
    meta_set(meta, "experiment", "seed 004: C-SGD vs D-SGD vs FedAvg, FP32 vs FP16 mixed precision, ResNet-18");
    meta_set(meta, "train_examples", "%d (the first %d of the training set)", d->train.n, d->train.n);
    meta_set(meta, "model", "resnet18 (CIFAR variant) width %g", (double)o->run.width);
    meta_set(meta, "label", "%s", d->tag);
    meta_set(meta, "scheme", "%s", sync_kind_name(o->kind));
    if (o->fp16)
        meta_set(meta, "precision", "fp16 mixed precision (%s: FP32 master weights, FP16-rounded weights, "
                                    "activations and gradients, FP32 accumulation, dynamic loss scaling)", how);
    else
        meta_set(meta, "precision", "fp32");
    if (o->fp16)
        meta_set(meta, "loss_scaling", "start %g, halve and skip on inf/NaN, double after %d clean steps",
                 (double)o->loss_scale, o->scale_window);
    meta_set(meta, "optimizer", "SGD lr %g (constant), momentum %g, weight decay %g", (double)o->run.lr,
             (double)o->run.momentum, (double)o->run.wd);
    if (o->kind == SYNC_CSGD) meta_set(meta, "roles", "one process, batch %d", o->run.batch);
    else
        meta_set(meta, "roles", "rank 0 the cloud (global model, averaging, evaluation; does not train), ranks 1-%d "
                                "the %d users, local batch %d, %s shards%s", o->users, o->users, o->local_batch,
                 fed_sharding_name(o->sharding), o->sharding == FED_DIRICHLET ? " (Dirichlet)" : "");
    if (o->sharding == FED_DIRICHLET) meta_set(meta, "alpha", "%g", (double)o->alpha);
    if (o->kind == SYNC_FEDAVG) meta_set(meta, "local_epochs", "%d", o->local_epochs);
    meta_set(meta, "augment", "%s", o->augment ? "pad-4 random crop + flip" : "none (normalisation only, as the seed)");
    if (o->fp16) { /* the provenance line under every table and figure says it too */
        char line[400];
        meta_summary(meta, line, sizeof line);
        meta_set(meta, "summary", "%s; %s", line, how);
    }
    meta_set(meta, "traffic", "payload = parameters (FP32 4 B, FP16 2 B each), counted on every message; BN "
                              "statistics (state) and counts/loss scale (control) counted apart");
}

/* Payload bytes so far, over all users (the cloud's view: it receives every
 * upload and sends every download). csgd: 0. */
static void payload_so_far(const Driver *d, unsigned long long *up, unsigned long long *down, long *rounds)
{
    const FedLink *l = fed_link_of(d->sync);
    bool cloud = l && l->cloud;
    *up = cloud ? l->ctr.bytes_up[FED_PAYLOAD] : 0;
    *down = cloud ? l->ctr.bytes_down[FED_PAYLOAD] : 0;
    *rounds = cloud ? (long)l->ctr.rounds : 0;
}

/* After every epoch (fedavg: every round of E local epochs; 0: before
 * training) the cloud evaluates the global model, with the users' averaged
 * BN statistics. Training time excludes it. */
static void epoch_row(Driver *d, int period, double seconds, void *ctx)
{
    Run *r = ctx;
    const Lab5Options *o = r->o;
    double train_loss = NAN, train_acc = NAN;
    if (period > 0) {
        MPI_Allreduce(MPI_IN_PLACE, &seconds, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
        r->wall += seconds;
        fed_take_train_stats(d->sync, &train_loss, &train_acc);
        fed_prepare_eval(d->sync);
    }
    float scale = fed_mixed(d->sync)->ls.scale;
    if (d->rank != 0) return;
    EvalResult e = evaluate(&d->m, &d->test, o->eval_batch);
    unsigned long long up, down;
    long rounds;
    payload_so_far(d, &up, &down, &rounds);
    Table *t = r->epochs_t;
    table_set_str(t, "label", d->tag);
    table_set_str(t, "scheme", sync_kind_name(o->kind));
    table_set_str(t, "precision", o->fp16 ? "fp16" : "fp32");
    table_set_int(t, "epoch", period * r->step_epochs);
    table_set_int(t, "rounds", rounds);
    table_set_int(t, "payload_up_bytes", (long long)up);
    table_set_int(t, "payload_down_bytes", (long long)down);
    table_set_num(t, "payload_mb", (double)(up + down) / 1e6, "%.6f");
    table_set_num(t, "val_accuracy", e.accuracy, "%.4f");
    table_set_num(t, "val_loss", e.loss, "%.5f");
    if (period > 0) {
        table_set_num(t, "train_loss", train_loss, "%.5f");
        table_set_num(t, "train_accuracy", train_acc, "%.4f");
    }
    table_set_num(t, "train_s", r->wall, "%.3f");
    table_set_num(t, "loss_scale", scale, "%g");
    table_end_row(t);
    if (!o->run.quiet)
        fprintf(stderr, "lab5: %s epoch %d: val accuracy %.2f%% (loss %.4f), train loss %.4f, %ld rounds, "
                        "%.1f MB payload, %.1f s\n", d->tag, period * r->step_epochs, 100 * e.accuracy, e.loss,
                train_loss, rounds, (double)(up + down) / 1e6, r->wall);
}

/* What a resumed run needs of this one: the rows so far and the time. */
static void save(Driver *d, Ckpt *c, void *ctx)
{
    Run *r = ctx;
    ckpt_put_table(c, "lab.epochs", r->epochs_t);
    ckpt_put(c, "lab.wall", &r->wall, sizeof r->wall);
}

static int load(Driver *d, const Ckpt *c, void *ctx, char err[DDL_ERRLEN])
{
    Run *r = ctx;
    return ckpt_get_table(c, "lab.epochs", r->epochs_t, err) || ckpt_get(c, "lab.wall", &r->wall, sizeof r->wall, err)
               ? -1 : 0;
}

static void summary_row(const Run *r, Table *t, int epochs, long overflows, const LossScaler *ls)
{
    const Lab5Options *o = r->o;
    const Driver *d = r->d;
    const Dataset *train = &d->train;
    const Table *ep = r->epochs_t;
    size_t n = d->m.nparams;
    CommDtype dt = o->fp16 ? COMM_FP16 : COMM_FP32;
    unsigned long long up, down;
    long rounds;
    payload_so_far(d, &up, &down, &rounds);
    double rpe_closed = fed_rounds_per_epoch(o->kind, train->n, o->run.batch, o->local_epochs);
    uint64_t per_round = o->kind == SYNC_CSGD ? 0 : fed_bytes_per_round(n, dt);
    int U = o->users > 0 ? o->users : 1;
    /* measured per user and round: every upload of every user over rounds */
    double per_round_meas = rounds > 0 ? (double)up / (double)rounds / U : 0.0;
    double rpe_meas = (double)rounds / epochs;
    bool match = o->kind == SYNC_CSGD ? up == 0
                                       : (up == (unsigned long long)rounds * U * per_round &&
                                          down == (unsigned long long)rounds * U * per_round);
    table_set_str(t, "label", d->tag);
    table_set_str(t, "scheme", sync_kind_name(o->kind));
    table_set_str(t, "precision", o->fp16 ? "fp16" : "fp32");
    table_set_int(t, "users", o->users);
    table_set_int(t, "global_batch", o->kind == SYNC_FEDAVG ? o->run.batch * U : o->run.batch);
    table_set_int(t, "local_batch", o->local_batch);
    table_set_int(t, "local_epochs", o->kind == SYNC_FEDAVG ? o->local_epochs : 0);
    table_set_str(t, "shards", o->kind == SYNC_CSGD ? "-" : fed_sharding_name(o->sharding));
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
    const FedLink *l = fed_link_of(d->sync);
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
    table_set_num(t, "final_loss_scale", o->fp16 ? ls->scale : 1.0, "%g");
    table_set_num(t, "train_s", r->wall, "%.3f");
    table_end_row(t);
}

/* FP16: every change of the loss scale. */
static Table *scale_trace(const Run *r, const LossScaler *ls, const Meta *meta)
{
    const Lab5Options *o = r->o;
    const char *label = r->d->tag;
    char name[192];
    snprintf(name, sizeof name, "lossscale-%s", label);
    Table *t = table_new(name, "label,update,loss_scale,event");
    t->meta = *meta;
    table_set_str(t, "label", label);
    table_set_int(t, "update", 0);
    table_set_num(t, "loss_scale", o->loss_scale, "%g");
    table_set_str(t, "event", "start");
    table_end_row(t);
    for (int i = 0; i < ls->ntrace; i++) {
        table_set_str(t, "label", label);
        table_set_int(t, "update", ls->trace[i].step + 1);
        table_set_num(t, "loss_scale", ls->trace[i].scale, "%g");
        table_set_str(t, "event", ls->trace[i].overflow ? "overflow" : "grow");
        table_end_row(t);
    }
    table_set_str(t, "label", label);
    table_set_int(t, "update", ls->updates);
    table_set_num(t, "loss_scale", ls->scale, "%g");
    table_set_str(t, "event", "end");
    table_end_row(t);
    return t;
}

/* The data, ResNet-18 (the cloud also evaluates with it), SGD, the row. */
static int set_up(const Lab5Options *o, Driver *d, FedConfig *fc)
{
    if (driver_open(d)) return 2;
    if (driver_load(d, true)) return 1;
    if (o->users > d->train.n) {
        ddl_error("%d users but only %d training examples", o->users, d->train.n);
        return 2;
    }
    int max_batch = d->rank == 0 ? DDL_MAX(o->eval_batch, o->kind == SYNC_CSGD ? o->local_batch : 1) : o->local_batch;
    if (driver_build(d, "resnet18", NULL, max_batch)) return 2;
    const char *name = o->kind == SYNC_CSGD ? "C_SGD" : o->kind == SYNC_DSGD ? "D_SGD" : "FL";
    driver_tag(d, "%s_BS%d_%s", name, o->run.batch, o->fp16 ? "FP16" : "FP32");
    driver_run_begin(d, o->run.out, (const char *const[]){ "epochs-*", "summary-*", "lossscale-*", NULL });
    driver_trainer(d, NULL);
    *fc = (FedConfig){ &d->train, o->sharding, o->alpha, o->fp16, o->loss_scale, o->scale_window, o->local_batch,
                       o->local_epochs, o->augment, o->run.seed };
    SyncConfig sc = sync_config_default(o->kind);
    sc.fed = fc;
    return driver_sync(d, &sc);
}

static Table *new_table(const Driver *d, const char *prefix, const char *columns, const Meta *meta)
{
    char name[192];
    snprintf(name, sizeof name, "%s-%s", prefix, d->tag);
    Table *t = table_new(name, columns);
    t->meta = *meta;
    return t;
}

/* Rank 0: the summary, the loss-scale trace (FP16), the files. */
static int write_outputs(Run *r, const Meta *meta, int epochs)
{
    const Lab5Options *o = r->o;
    Driver *d = r->d;
    LossScaler ls;
    long overflows;
    fed_scaler_report(d->sync, &ls, &overflows);
    Table *t[3] = { r->epochs_t, r->summary_t, NULL };
    int n = 0;
    if (d->rank == 0) {
        summary_row(r, r->summary_t, epochs, overflows, &ls);
        if (o->fp16) t[2] = scale_trace(r, &ls, meta);
        n = o->fp16 ? 3 : 2;
    }
    int status = driver_write(d, t, n);
    if (d->rank == 0) {
        const Table *sum = r->summary_t;
        if (!o->run.quiet)
            fprintf(stderr, "lab5: %s: final accuracy %s, %s rounds, bytes %s closed form, %ld overflows; wrote "
                            "%s/{%s,%s}.csv\n", d->tag, table_get(sum, 0, "final_accuracy"), table_get(sum, 0, "rounds"),
                    !strcmp(table_get(sum, 0, "bytes_match"), "yes") ? "==" : "!=", overflows, o->run.out,
                    r->epochs_t->name, sum->name);
        if (strcmp(table_get(sum, 0, "bytes_match"), "yes")) status = 1;
        free(ls.trace);
    }
    MPI_Bcast(&status, 1, MPI_INT, 0, MPI_COMM_WORLD);
    table_free(t[2]);
    return status;
}

int lab5_run(void *ctx, Driver *d)
{
    const Lab5Options *o = ctx;
    FedConfig fc;
    int status = set_up(o, d, &fc);
    if (status) return status;
    Meta meta;
    describe(&meta, o, d);
    char how[120];
    fp16_how(d, how, sizeof how);
    if (d->rank == 0 && !o->run.quiet)
        fprintf(stderr, "lab5: %s: %s, resnet18 width %g (%zu params), %s %s %d train / %d test, %d rank%s, local "
                        "batch %d, %d epochs%s%s\n", d->tag, sync_kind_name(o->kind), (double)o->run.width, d->m.nparams,
                d->train.synthetic ? "synthetic" : "real", d->train.name, d->train.n, d->test.n, d->world,
                d->world > 1 ? "s (rank 0 the cloud)" : "", o->local_batch, o->epochs, o->fp16 ? ", " : "",
                o->fp16 ? how : "");
    Run r = { .o = o, .d = d, .step_epochs = o->kind == SYNC_FEDAVG ? o->local_epochs : 1 };
    r.epochs_t = new_table(d, "epochs", "label,scheme,precision,epoch,rounds,payload_up_bytes,payload_down_bytes,"
                                        "payload_mb,val_accuracy,val_loss,train_loss,train_accuracy,train_s,loss_scale",
                           &meta);
    r.summary_t = new_table(d, "summary", "label,scheme,precision,users,global_batch,local_batch,local_epochs,shards,"
                                          "params,train_examples,epochs,rounds,rounds_per_epoch_closed,rounds_per_epoch,"
                                          "bytes_per_round_closed,bytes_per_round,bytes_per_epoch_closed,"
                                          "bytes_per_epoch,payload_up_bytes,payload_down_bytes,state_bytes,"
                                          "control_bytes,bytes_match,final_accuracy,best_accuracy,final_train_loss,"
                                          "overflows,skipped_steps,scale_updates,final_loss_scale,train_s", &meta);
    int periods = (o->epochs + r.step_epochs - 1) / r.step_epochs, per = sync_rounds_per_epoch(d->sync);
    DriverLoop loop = { .batches = (long)periods * per, .period = per, .report_start = true, .barrier_start = true };
    DriverHooks hooks = { .ctx = &r, .after_period = epoch_row, .save = save, .load = load };
    status = driver_train(d, &loop, &hooks);
    if (!status) status = write_outputs(&r, &meta, periods * r.step_epochs);
    table_free(r.epochs_t);
    table_free(r.summary_t);
    return status;
}
