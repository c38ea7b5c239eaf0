/* ps.c - the ps and ps_async rows: a parameter server (sync.h).
 *
 * Rank 0 is the server, ranks 1..P the workers; the lab's "2 workers" are
 * 3 ranks. The server is a process of its own (as in Ray's or TF's
 * parameter-server setups) rather than a worker doubling as server, so
 * the workers' compute is the same in both designs and the comparison with
 * horovod at P workers is P computing ranks each.
 *
 * One step:
 *   worker  forward + backward on its shard (micro-batches accumulate,
 *           scaled by 1/accumulate), then PUSH its gradient and its batch
 *           norm running statistics to the server, then PULL the weights
 *           and statistics back;
 *   server  receives the P pushes in worker order 1..P (sums in that
 *           order: deterministic), applies ps_server_step() (mean gradient,
 *           SGD with the server's momentum buffers), averages the running
 *           statistics (BN buffers are not trained; averaging keeps one
 *           consistent copy, which the server evaluates with), then sends
 *           weights and statistics to every worker.
 * Asynchronous variant (the ps_async row): the server takes the pushes
 * in arrival order (MPI_Probe on any worker) and for each one at once
 * applies ps_server_step() with that single gradient (scaled by 1/P, so P
 * pushes move the weights as far as one synchronous step), keeps that
 * worker's batch-norm statistics, and sends it the current weights. A
 * fast worker then computes its next gradient on weights that a slower
 * worker's push has not reached yet: stale gradients, no waiting for the
 * slowest worker, results that depend on timing. One server call still
 * handles P pushes, so every rank makes the same number of calls. With one
 * worker it is the synchronous server exactly.
 * Traffic per step, in bytes, with N parameters and S statistics floats:
 * each worker sends 4(N+S) and receives 4(N+S); the server receives
 * 4P(N+S) and sends 4P(N+S). Counted as the messages are posted (the
 * row's counters, which sync_counters adds to the comm layer's). Blocking
 * MPI_Send/MPI_Recv: the server serialises the workers, which is the
 * design's known bottleneck. */
#include "rows.h"
#include "ps_step.h"

#include <stdio.h>
#include <string.h>
#include "../backend/registry.h"
#include "../util/common.h"

enum { TAG_PUSH = 61, TAG_PULL = 62 };
static const size_t SLICE = (size_t)1 << 28; /* MPI counts are ints */

typedef struct Ps {
    float *buf;                /* the server's receive buffer */
    float *velocity;           /* on a device: the server's momentum, staged to the host */
    CommCounters count;        /* the traffic this row moved itself */
} Ps;

static void send_floats(Sync *s, const float *p, size_t n, int dst, int tag)
{
    Ps *ps = s->priv;
    for (size_t lo = 0; lo < n; lo += SLICE) {
        int k = (int)DDL_MIN(SLICE, n - lo);
        MPI_Send(p + lo, k, MPI_FLOAT, dst, tag, s->c->mpi);
        ps->count.msgs_sent++;
        ps->count.bytes_sent += (uint64_t)k * sizeof(float);
    }
}

static void recv_floats(Sync *s, float *p, size_t n, int src, int tag)
{
    Ps *ps = s->priv;
    for (size_t lo = 0; lo < n; lo += SLICE) {
        int k = (int)DDL_MIN(SLICE, n - lo);
        MPI_Recv(p + lo, k, MPI_FLOAT, src, tag, s->c->mpi, MPI_STATUS_IGNORE);
        ps->count.msgs_recv++;
        ps->count.bytes_recv += (uint64_t)k * sizeof(float);
    }
}

static int setup(Sync *s, char err[256])
{
    Ps *ps = s->priv;
    if (s->world < 2) {
        snprintf(err, 256, "ps needs a server (rank 0) and at least one worker: run 2+ ranks (got %d)", s->world);
        return -1;
    }
    if (s->rank == 0) ps->buf = ddl_alloc(sizeof(float) * DDL_MAX(s->m->nparams, s->m->nstate));
    if (s->rank == 0 && sync_staged(s)) ps->velocity = ddl_alloc(sizeof(float) * (s->m->nparams ? s->m->nparams : 1));
    return 0;
}

static void teardown(Sync *s)
{
    ddl_free(((Ps *)s->priv)->buf);
    ddl_free(((Ps *)s->priv)->velocity);
}

/* The server's update, ps_server_step, on the host view. On a device the
 * optimizer's momentum lives there: it comes to the host for the step and
 * goes back, and the server's model follows its view, so the update is
 * the CPU's to the bit and evaluation and checkpoints see it. */
static void server_update(Sync *s, int workers)
{
    Model *m = s->m;
    Sgd *opt = &s->t->opt;
    if (!sync_staged(s)) {
        ps_server_step(opt, m->params, m->grads, workers);
        return;
    }
    Sgd host = *opt;
    host.be = backend_cpu();
    host.velocity = ((Ps *)s->priv)->velocity;
    opt->be->to_host(host.velocity, opt->velocity, sizeof(float) * opt->n);
    ps_server_step(&host, m->params, m->grads, workers);
    opt->be->to_device(opt->velocity, host.velocity, sizeof(float) * opt->n);
    opt->steps = host.steps;
}

static void counters(const Sync *s, CommCounters *add)
{
    comm_counters_add(add, &((const Ps *)s->priv)->count);
}

/* Receive one array from every worker and sum it into dst in worker order. */
static void gather_sum(Sync *s, float *dst, size_t n, int tag)
{
    float *buf = ((Ps *)s->priv)->buf;
    for (int w = 1; w < s->world; w++) {
        float *into = w == 1 ? dst : buf;
        recv_floats(s, into, n, w, tag);
        if (w > 1)
            for (size_t i = 0; i < n; i++) dst[i] += buf[i];
    }
}

static void server_round(Sync *s)
{
    Model *m = s->m;
    const int workers = s->world - 1;
    double t0 = sync_clock(s);
    ((Ps *)s->priv)->count.calls++;
    gather_sum(s, m->grads, m->nparams, TAG_PUSH);
    if (m->nstate) gather_sum(s, m->state, m->nstate, TAG_PUSH);
    double t1 = sync_clock(s);
    server_update(s, workers);
    for (size_t i = 0; i < m->nstate; i++) m->state[i] /= (float)workers;
    sync_stage_out(s, STAGE_PARAMS | STAGE_STATE);
    double t2 = sync_clock(s);
    for (int w = 1; w < s->world; w++) {
        send_floats(s, m->params, m->nparams, w, TAG_PULL);
        if (m->nstate) send_floats(s, m->state, m->nstate, w, TAG_PULL);
    }
    double t3 = sync_clock(s);
    sync_comm_event(s, "push (receive)", t0, t1, (double)workers * (double)(m->nparams + m->nstate) * 4.0);
    sync_event(s, TRACK_COMPUTE, "optimizer", t1, t2, 0.0);
    sync_comm_event(s, "pull (send)", t2, t3, (double)workers * (double)(m->nparams + m->nstate) * 4.0);
    s->last.sync_wait = 1e3 * ((t1 - t0) + (t3 - t2));
    s->last.optimizer = 1e3 * (t2 - t1);
    s->last.comm = s->last.sync_wait;
}

static void server_round_async(Sync *s)
{
    Model *m = s->m;
    const int workers = s->world - 1;
    double comm = 0.0, opt = 0.0;
    ((Ps *)s->priv)->count.calls++;
    for (int k = 0; k < workers; k++) {
        double t0 = sync_clock(s);
        MPI_Status st;
        MPI_Probe(MPI_ANY_SOURCE, TAG_PUSH, s->c->mpi, &st);
        int w = st.MPI_SOURCE;
        /* a push is the gradient then the statistics, in order from one
         * source: take all of it before probing again */
        recv_floats(s, m->grads, m->nparams, w, TAG_PUSH);
        if (m->nstate) recv_floats(s, m->state, m->nstate, w, TAG_PUSH);
        double t1 = sync_clock(s);
        server_update(s, workers);
        sync_stage_out(s, STAGE_PARAMS | STAGE_STATE);
        double t2 = sync_clock(s);
        send_floats(s, m->params, m->nparams, w, TAG_PULL);
        if (m->nstate) send_floats(s, m->state, m->nstate, w, TAG_PULL);
        double t3 = sync_clock(s);
        sync_comm_event(s, "push (receive)", t0, t1, (double)(m->nparams + m->nstate) * 4.0);
        sync_event(s, TRACK_COMPUTE, "optimizer", t1, t2, 0.0);
        sync_comm_event(s, "pull (send)", t2, t3, (double)(m->nparams + m->nstate) * 4.0);
        comm += (t1 - t0) + (t3 - t2);
        opt += t2 - t1;
    }
    s->last.sync_wait = 1e3 * comm;
    s->last.optimizer = 1e3 * opt;
    s->last.comm = s->last.sync_wait;
}

static void worker_round(Sync *s)
{
    Model *m = s->m;
    double t0 = sync_clock(s);
    ((Ps *)s->priv)->count.calls++;
    sync_stage_in(s, STAGE_GRADS | STAGE_STATE);
    send_floats(s, m->grads, m->nparams, 0, TAG_PUSH);
    if (m->nstate) send_floats(s, m->state, m->nstate, 0, TAG_PUSH);
    recv_floats(s, m->params, m->nparams, 0, TAG_PULL);
    if (m->nstate) recv_floats(s, m->state, m->nstate, 0, TAG_PULL);
    sync_stage_out(s, STAGE_PARAMS | STAGE_STATE);
    double t1 = sync_clock(s);
    sync_comm_event(s, "push + pull", t0, t1, 2.0 * (double)(m->nparams + m->nstate) * 4.0);
    s->last.sync_wait = 1e3 * (t1 - t0);
    s->last.comm = s->last.sync_wait;
}

/* The server computes no forward or backward: its step is the round. */
static double step(Sync *s, const float *x, const int32_t *y, int n, int *correct, bool *stepped, bool async)
{
    sync_step_begin(s);
    bool last = s->micro == s->cfg.accumulate - 1;
    double loss = 0.0;
    if (correct) *correct = 0;
    if (s->rank != 0) {
        loss = sync_step_forward(s, x, y, n, correct);
        sync_step_backward(s);
    }
    if (last && s->rank != 0) {
        sync_step_scale_accumulated(s);
        worker_round(s);
    } else if (last) {
        if (async) server_round_async(s);
        else server_round(s);
    }
    bool done = sync_step_end(s);
    if (stepped) *stepped = done;
    return loss;
}

static double step_sync(Sync *s, const float *x, const int32_t *y, int n, int *correct, bool *stepped)
{
    return step(s, x, y, n, correct, stepped, false);
}

static double step_async(Sync *s, const float *x, const int32_t *y, int n, int *correct, bool *stepped)
{
    return step(s, x, y, n, correct, stepped, true);
}

const SyncRow SYNC_ROW_PS = {
    .name = "ps",
    .description = "parameter server: rank 0 averages pushed gradients, applies SGD, workers pull weights",
    .offered_in = SYNC_LAB(6),
    .state_bytes = sizeof(Ps),
    .default_alg = COMM_ALG_MPI,
    .rank0_serves = true,
    .setup = setup,
    .teardown = teardown,
    .step = step_sync,
    .counters = counters,
};

const SyncRow SYNC_ROW_PS_ASYNC = {
    .name = "ps_async",
    .description = "asynchronous parameter server: each push applied on arrival, that worker answered at once",
    .state_bytes = sizeof(Ps),
    .default_alg = COMM_ALG_MPI,
    .rank0_serves = true,
    .setup = setup,
    .teardown = teardown,
    .step = step_async,
    .counters = counters,
};
