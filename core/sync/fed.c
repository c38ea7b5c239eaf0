/* fed.c - what the csgd, dsgd and fedavg rows share (fed.h): setting up
 * the cloud or a user (or csgd's one process), the BN statistics the cloud
 * evaluates with, and what lab5 reads between rounds. */
#include "fed.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "../util/common.h"

static float **arrays(int k, size_t n)
{
    float **a = ddl_alloc(sizeof(float *) * (size_t)(k > 0 ? k : 1));
    for (int i = 0; i < k; i++) a[i] = ddl_alloc(sizeof(float) * (n > 0 ? n : 1));
    return a;
}

static void free_arrays(float **a, int k)
{
    if (!a) return;
    for (int i = 0; i < k; i++) ddl_free(a[i]);
    ddl_free(a);
}

/* D-SGD: an epoch is as many rounds as the largest shard has local
 * batches (equal shards: train_n / global batch, rounded up). */
static void count_rounds(FedState *f)
{
    f->rounds_per_epoch = 1;
    if (!f->cloud_steps) return;
    int mine = f->trains ? batcher_batches(&f->local.b) : 0;
    MPI_Allreduce(&mine, &f->rounds_per_epoch, 1, MPI_INT, MPI_MAX, f->link.comm);
}

int fed_setup(Sync *s, bool linked, bool cloud_steps, char err[256])
{
    FedState *f = s->priv;
    const FedConfig *c = s->cfg.fed;
    if (!c || !c->data) {
        snprintf(err, 256, "sync %s needs its FedConfig (SyncConfig.fed) with the training set", s->row->name);
        return -1;
    }
    f->linked = linked;
    f->cloud_steps = cloud_steps;
    if (linked && fed_link_init(&f->link, s->c->mpi, c->fp16 ? COMM_FP16 : COMM_FP32, err) != 0) return -1;
    Model *dm = sync_device_model(s); /* the arrays the rows move: a device's on a GPU */
    if (linked) fed_link_on(&f->link, dm->be);
    f->trains = !linked || !f->link.cloud;
    FedLocalConfig lc = { c->fp16, c->loss_scale, c->scale_window, c->batch, c->augment,
                          c->seed * 1000003u + (uint64_t)s->rank };
    if (f->trains) {
        const Dataset *mine = c->data;
        if (linked) {
            fed_shard(c->data, s->rank - 1, f->link.users, c->sharding, c->alpha, c->seed, &f->shard);
            f->has_shard = true;
            mine = &f->shard;
        }
        fed_local_init(&f->local, s->t, mine, &lc);
    } else {
        mixed_init(&f->cloud_mx, dm, c->fp16, c->loss_scale, c->scale_window);
        f->bufs = arrays(f->link.users, s->m->nparams);
        f->state_bufs = arrays(f->link.users, s->m->nstate);
    }
    count_rounds(f);
    return 0;
}

void fed_teardown(Sync *s)
{
    FedState *f = s->priv;
    if (f->trains) {
        fed_local_free(&f->local);
    } else {
        mixed_free(&f->cloud_mx);
        free_arrays(f->bufs, f->link.users);
        free_arrays(f->state_bufs, f->link.users);
    }
    if (f->has_shard) dataset_free(&f->shard);
    if (f->linked) fed_link_free(&f->link);
}

void fed_sync_state(FedLink *l, Model *m, float *const *state_bufs)
{
    if (m->nstate == 0) return;
    fed_upload(l, FED_STATE, m->state, state_bufs, m->nstate);
    if (l->cloud) {
        int U = l->users;
        double *weights = ddl_alloc(sizeof(double) * (size_t)U);
        for (int u = 0; u < U; u++) weights[u] = 1.0;
        fed_aggregate(l, m->state, (const float *const *)state_bufs, weights, U, m->nstate);
        ddl_free(weights);
    }
}

const FedLink *fed_link_of(const Sync *s)
{
    const FedState *f = s->priv;
    return f->linked ? &f->link : NULL;
}

void fed_take_train_stats(Sync *s, double *loss, double *accuracy)
{
    FedState *f = s->priv;
    double l = NAN, a = NAN;
    long n = 0;
    if (f->trains) fed_local_take_loss(&f->local, &l, &a, &n);
    double v[3] = { n ? l * n : 0, n ? a * n : 0, (double)n };
    if (f->linked) MPI_Allreduce(MPI_IN_PLACE, v, 3, MPI_DOUBLE, MPI_SUM, f->link.comm);
    *loss = v[2] > 0 ? v[0] / v[2] : NAN;
    *accuracy = v[2] > 0 ? v[1] / v[2] : NAN;
}

void fed_prepare_eval(Sync *s)
{
    FedState *f = s->priv;
    if (f->cloud_steps) fed_sync_state(&f->link, sync_device_model(s), f->state_bufs);
}

const Mixed *fed_mixed(const Sync *s)
{
    const FedState *f = s->priv;
    return f->trains ? &f->local.mx : &f->cloud_mx;
}

static void copy_scaler(LossScaler *out, const LossScaler *in)
{
    *out = *in;
    out->captrace = in->ntrace;
    out->trace = calloc((size_t)(in->ntrace > 0 ? in->ntrace : 1), sizeof *out->trace);
    if (!out->trace) ddl_die("out of memory");
    if (in->ntrace) memcpy(out->trace, in->trace, sizeof *out->trace * (size_t)in->ntrace);
}

/* FedAvg: user 1's scaler travels to the cloud. */
static void receive_scaler(FedState *f, const LossScaler *mine, LossScaler *out)
{
    MPI_Comm comm = f->link.comm;
    if (f->link.rank == 1) {
        long head[4] = { mine->ntrace, mine->updates, mine->skips, mine->growths };
        float sc = mine->scale;
        MPI_Send(head, 4, MPI_LONG, 0, 7, comm);
        MPI_Send(&sc, 1, MPI_FLOAT, 0, 8, comm);
        for (int i = 0; i < mine->ntrace; i++) {
            double ev[3] = { (double)mine->trace[i].step, mine->trace[i].scale, mine->trace[i].overflow };
            MPI_Send(ev, 3, MPI_DOUBLE, 0, 9, comm);
        }
    } else if (f->link.rank == 0) {
        long head[4];
        MPI_Recv(head, 4, MPI_LONG, 1, 7, comm, MPI_STATUS_IGNORE);
        MPI_Recv(&out->scale, 1, MPI_FLOAT, 1, 8, comm, MPI_STATUS_IGNORE);
        out->updates = head[1];
        out->skips = head[2];
        out->growths = head[3];
        out->ntrace = out->captrace = (int)head[0];
        out->trace = calloc((size_t)(head[0] > 0 ? head[0] : 1), sizeof *out->trace);
        if (!out->trace) ddl_die("out of memory");
        for (int i = 0; i < out->ntrace; i++) {
            double ev[3];
            MPI_Recv(ev, 3, MPI_DOUBLE, 1, 9, comm, MPI_STATUS_IGNORE);
            out->trace[i] = (LossScaleEvent){ (long)ev[0], (float)ev[1], ev[2] != 0 };
        }
    }
}

void fed_scaler_report(Sync *s, LossScaler *out, long *overflows)
{
    FedState *f = s->priv;
    /* D-SGD users never step, so only the cloud's scaler counts there;
     * FedAvg's cloud never steps. */
    const LossScaler *mine = !f->linked ? &f->local.mx.ls
                             : f->cloud_steps ? (f->trains ? NULL : &f->cloud_mx.ls)
                                              : (f->trains ? &f->local.mx.ls : NULL);
    long ov = mine ? mine->overflows : 0;
    if (f->linked) MPI_Allreduce(MPI_IN_PLACE, &ov, 1, MPI_LONG, MPI_SUM, f->link.comm);
    *overflows = ov;
    memset(out, 0, sizeof *out);
    if (!f->linked || f->cloud_steps) {
        if (s->rank == 0) copy_scaler(out, mine);
        return;
    }
    receive_scaler(f, mine, out);
}
