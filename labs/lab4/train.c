/* train.c - one lab4 configuration: P workers, each on its shard of the
 * training subset, take local SGD steps; after every step the scheme
 * brings them together:
 *   allreduce  one ring allreduce of the weights over all P (the seed's
 *              baseline; with SGD + momentum this is exactly Horovod's
 *              gradient allreduce, since the update is linear);
 *   group      one round of core/sync/group_avg (groups of k+1, rotating);
 *   lga        gradients of k backward passes summed locally, then one ring
 *              allreduce of them (AVG) and one SGD step with their mean.
 * An iteration is steps_per_iter local steps (default: one pass over the
 * worker's shard, an epoch, as the seed's Horovod loop counted). After each
 * iteration, untimed and uncounted: Horovod-style test accuracy and the
 * consensus distance. Bytes come from ddlab's counters, and next to them
 * the closed form for the groups actually used. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "common.h"
#include "comm/monitor.h"
#include "sync/group_avg.h"
#include "train/train.h"
#include "lab4.h"

typedef struct Totals { unsigned long long sent, recv; } Totals;

static Totals over_ranks(uint64_t sent, uint64_t recv)
{
    unsigned long long v[2] = { sent, recv };
    MPI_Allreduce(MPI_IN_PLACE, v, 2, MPI_UNSIGNED_LONG_LONG, MPI_SUM, MPI_COMM_WORLD);
    return (Totals){ v[0], v[1] };
}

static double max_over_ranks(double v)
{
    MPI_Allreduce(MPI_IN_PLACE, &v, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
    return v;
}

static double mean_over_ranks(double v)
{
    int world;
    MPI_Comm_size(MPI_COMM_WORLD, &world);
    MPI_Allreduce(MPI_IN_PLACE, &v, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
    return v / world;
}

/* State of one run, so the loop below reads like the algorithm. */
typedef struct Run {
    const Lab4Setup *s;
    const Lab4Config *cfg;
    Lab4Result *r;
    Trainer t;
    Batcher b;
    int epoch;
    GroupAvg g;
    bool grouped;      /* allreduce and group go through GroupAvg; lga through the world Comm */
    float *acc;        /* lga: gradients summed since the last allreduce */
    int pending;       /* lga: backward passes in acc */
    float *x;
    int32_t *y;
} Run;

static int next_batch(Run *u)
{
    int got = batcher_next(&u->b, u->x, u->y);
    if (got == 0) {
        batcher_epoch(&u->b, ++u->epoch);
        got = batcher_next(&u->b, u->x, u->y);
    }
    return got;
}

/* Monitoring pvars around a region with no other traffic. */
static void monitored(Run *u, bool before)
{
    CommMonitor *mon = u->s->monitor;
    if (!mon) return;
    uint64_t msgs, bytes;
    if (!comm_monitor_read(mon, &msgs, &bytes)) return;
    u->r->monitored = true;
    if (before) {
        u->r->mon_msgs -= msgs;
        u->r->mon_bytes -= bytes;
    } else {
        u->r->mon_msgs += msgs;
        u->r->mon_bytes += bytes;
    }
}

/* What the averaging after one local step costs and does. Returns seconds. */
static double sync_step(Run *u)
{
    const Lab4Setup *s = u->s;
    Model *m = s->m;
    size_t n = m->nparams;
    uint64_t sent, recv;
    double t0;
    if (u->grouped) {
        trainer_step(&u->t);
        GroupLayout l = group_avg_next_layout(&u->g);
        group_avg_ring_bytes(l.size, l.index, n, sizeof(float), &sent, &recv);
        t0 = ddl_now();
        monitored(u, true);
        group_avg_round(&u->g, m->params, n);
        monitored(u, false);
    } else {
        for (size_t i = 0; i < n; i++) u->acc[i] += m->grads[i];
        if (++u->pending < u->cfg->passes) return 0.0;
        group_avg_ring_bytes(s->world->size, s->world->rank, n, sizeof(float), &sent, &recv);
        t0 = ddl_now();
        monitored(u, true);
        comm_allreduce(s->world, u->acc, n, COMM_FP32, COMM_AVG, COMM_ALG_RING);
        monitored(u, false);
        float inv = 1.0f / (float)u->cfg->passes;
        for (size_t i = 0; i < n; i++) {
            m->grads[i] = u->acc[i] * inv;
            u->acc[i] = 0.0f;
        }
        u->pending = 0;
        trainer_step(&u->t);
    }
    u->r->want_sent += sent;
    u->r->want_recv += recv;
    return ddl_now() - t0;
}

static CommCounters counters(const Run *u)
{
    return u->grouped ? group_avg_counters(&u->g) : comm_counters_total(u->s->world);
}

/* Metrics after an iteration, one row of the per-iteration table. */
static void record(Run *u, int iter, double train_s, double train_loss, double *avg)
{
    const Lab4Setup *s = u->s;
    Lab4Result *r = u->r;
    CommCounters c = counters(u);
    Totals tot = over_ranks(c.bytes_sent, c.bytes_recv);
    lab4_eval_workers(s->m, s->test, &r->accuracy, &r->test_loss);
    lab4_consensus(s->m->params, s->m->nparams, avg, &r->consensus, &r->consensus_rel);
    double elapsed = max_over_ranks(train_s);
    char label[32];
    lab4_label(u->cfg, label, sizeof label);
    Table *t = s->iters;
    table_set_str(t, "scheme", lab4_scheme_name(u->cfg->scheme));
    table_set_int(t, "workers", s->world->size);
    table_set_int(t, "passes", u->cfg->passes);
    table_set_str(t, "label", label);
    table_set_int(t, "iteration", iter);
    table_set_int(t, "rounds", r->rounds);
    table_set_int(t, "bytes_sent", (long long)tot.sent);
    table_set_num(t, "traffic_mb", (double)(tot.sent + tot.recv) / 1e6, "%.6f");
    table_set_num(t, "accuracy", r->accuracy, "%.4f");
    table_set_num(t, "test_loss", r->test_loss, "%.5f");
    if (iter > 0) table_set_num(t, "train_loss", train_loss, "%.5f");
    table_set_num(t, "consensus", r->consensus, "%.6g");
    table_set_num(t, "consensus_rel", r->consensus_rel, "%.6g");
    table_set_num(t, "train_s", elapsed, "%.4f");
    table_end_row(t);
}

int lab4_train(const Lab4Setup *s, const Lab4Config *cfg, Lab4Result *r)
{
    const Lab4Options *o = s->o;
    Model *m = s->m;
    const int P = s->world->size;
    memset(r, 0, sizeof *r);
    Run u;
    memset(&u, 0, sizeof u);
    u.s = s;
    u.cfg = cfg;
    u.r = r;
    u.grouped = cfg->scheme != SCHEME_LGA;
    if (u.grouped) {
        /* The all-reduce is the one group of P, in rank order every round. */
        int k = cfg->scheme == SCHEME_ALLREDUCE ? P - 1 : cfg->passes;
        bool rotate = cfg->scheme == SCHEME_GROUP && !o->no_rotate;
        char err[DDL_ERRLEN];
        if (group_avg_init(&u.g, s->world, k, rotate, COMM_ALG_RING, err) != 0) {
            lab4_error("%s", err);
            return 2;
        }
    } else {
        comm_counters_reset(s->world);
        u.acc = ddl_calloc(m->nparams * sizeof(float));
    }
    memcpy(m->params, s->init, m->nparams * sizeof(float));
    SgdConfig sc = { s->lr, o->momentum, 0.0f, false };
    trainer_init(&u.t, m, &sc);
    BatcherOptions bo = { .batch = o->batch, .rank = s->world->rank, .world = P, .shuffle = true,
                          .drop_last = false, .augment = false, .normalize = true, .seed = o->seed };
    batcher_init(&u.b, s->train, &bo);
    batcher_epoch(&u.b, 0);
    int per_iter = o->steps_per_iter > 0 ? o->steps_per_iter : batcher_batches(&u.b);
    size_t per = (size_t)s->train->c * s->train->h * s->train->w;
    u.x = ddl_alloc(sizeof(float) * per * (size_t)o->batch);
    u.y = ddl_alloc(sizeof(int32_t) * (size_t)o->batch);
    double *avg = ddl_alloc(m->nparams * sizeof(double));

    double train_s = 0.0, sync_s = 0.0, loss = NAN;
    record(&u, 0, 0.0, NAN, avg);
    for (int it = 1; it <= cfg->iters; it++) {
        MPI_Barrier(MPI_COMM_WORLD); /* the metrics above leave ranks apart; start together */
        double t0 = ddl_now(), loss_sum = 0.0;
        long seen = 0;
        for (int step = 0; step < per_iter; step++) {
            int got = next_batch(&u), correct;
            double l = trainer_forward_backward(&u.t, u.x, u.y, got, &correct);
            if (!isfinite(l)) ddl_die("loss became %g (%s passes %d, iteration %d): lower --lr", l,
                                      lab4_scheme_name(cfg->scheme), cfg->passes, it);
            loss_sum += l * got;
            seen += got;
            sync_s += sync_step(&u);
            r->rounds++;
        }
        train_s += ddl_now() - t0;
        loss = mean_over_ranks(loss_sum / (double)seen);
        record(&u, it, train_s, loss, avg);
    }
    r->train_loss = loss;
    r->accuracy_avg_model = lab4_eval_average(m, avg, s->test);
    r->wall_s = max_over_ranks(train_s);
    r->sync_s = max_over_ranks(sync_s);
    r->ctr = counters(&u);

    ddl_free(avg);
    ddl_free(u.x);
    ddl_free(u.y);
    ddl_free(u.acc);
    batcher_free(&u.b);
    trainer_free(&u.t);
    if (u.grouped) group_avg_free(&u.g);
    return 0;
}
