/* loop.c - the training loop every lab and bench runs (driver.h): batches
 * (or a round row's rounds) in report periods, the hooks where a lab
 * measures, the progress line, and where the loop stands (DriverState). */
#include "driver.h"

#include <math.h>
#include <stdio.h>
#include "../util/common.h"
#include "preempt.h"
#include "resume.h"

/* The batcher's next batch into the staging buffers, and its copy to the
 * backend started; a new epoch starts when this one is used up. */
static void put_next(Driver *d)
{
    d->unfetched.epoch = d->b.epoch;
    d->unfetched.pos = d->b.pos;
    d->unfetched.aug = d->b.aug;
    d->unfetched.fetch_epoch = d->fetch_epoch;
    int got = batcher_next(&d->b, device_batch_x(&d->db), device_batch_y(&d->db));
    if (got <= 0) {
        batcher_epoch(&d->b, ++d->fetch_epoch);
        got = batcher_next(&d->b, device_batch_x(&d->db), device_batch_y(&d->db));
    }
    d->put_epoch = d->fetch_epoch;
    device_batch_put(&d->db, got);
}

/* This step's batch, in backend memory. On a device the next batch is
 * fetched and its copy started before this step's kernels run, so the copy
 * overlaps the step; on the host there is no copy to hide, and the sampler
 * stays exactly where the loop stands. A rank that computes no gradients
 * (the ps server) fetches nothing. */
static int next_batch(Driver *d, const DriverHooks *h, const float **x, const int32_t **y)
{
    if (h->fetch) return h->fetch(d, x, y, h->ctx);
    if (!sync_computes(d->sync)) {
        *x = device_batch_x(&d->db);
        *y = device_batch_y(&d->db);
        return d->b.o.batch;
    }
    if (!d->prefetched) put_next(d);
    d->st.epoch = d->put_epoch;
    int got = device_batch_get(&d->db, x, y);
    d->prefetched = !d->be->host_memory;
    if (d->prefetched) put_next(d);
    return got;
}

static DriverBatch one_batch(Driver *d, const DriverLoop *loop, const DriverHooks *h)
{
    DriverBatch b = { .index = d->st.batch };
    if (sync_has_rounds(d->sync)) {
        SyncRound r;
        sync_round(d->sync, &r);
        b.n = (int)r.examples;
        b.stepped = r.stepped;
        return b;
    }
    const float *x;
    const int32_t *y;
    double t0 = ddl_now();
    b.n = next_batch(d, h, &x, &y);
    b.data_ms = 1e3 * (ddl_now() - t0);
    b.epoch = d->st.epoch;
    b.loss = sync_train_step(d->sync, x, y, b.n, &b.correct, &b.stepped);
    if (!isfinite(b.loss) && !loop->nonfinite_ok && !d->state_shared)
        ddl_die("loss became %g at batch %ld (epoch %d): lower --lr", b.loss, b.index, b.epoch);
    return b;
}

/* When checkpoints are taken: after every `every` batches that end an
 * optimizer step (`unit` micro-batches), and at the end of the run. */
typedef struct Checkpoints {
    long every, unit, total;
    long period;               /* the loop's period (0: the whole run is one) */
    double spent_s;            /* writing them: kept out of the periods' time */
} Checkpoints;

static Checkpoints checkpoints(const Driver *d, const DriverLoop *loop)
{
    long unit = d->sync ? DDL_MAX(d->sync->cfg.accumulate, 1) : 1;
    long epoch = loop->period > 0 ? loop->period : d->has_batcher ? batcher_batches(&d->b) : loop->batches;
    long every = d->opt->checkpoint_every > 0 ? d->opt->checkpoint_every * unit : DDL_MAX(epoch, 1);
    return (Checkpoints){ every, unit, loop->batches, loop->period, 0.0 };
}

/* A checkpoint now, if one is due. One that cannot be written (the disk
 * filled, the directory went away) does not stop the run: what it has
 * computed is worth more than the chance to continue it, so it goes on
 * without checkpoints, writes its results, and ends with status 1
 * (driver_end). */
static void maybe_checkpoint(Driver *d, const DriverHooks *h, Checkpoints *k)
{
    long done = d->st.batch;
    if (!d->ckpt_dir[0] || d->ckpt_failed || done == d->ckpt_at || done % k->unit) return;
    if (done % k->every && done != k->total) return;
    double t0 = ddl_now();
    if (driver_checkpoint_save(d, h) != 0) {
        d->ckpt_failed = true;
        if (d->rank == 0)
            fprintf(stderr, "%s: the checkpoint at batch %ld was not written (see above); the run goes on without "
                            "checkpoints and writes its results%s\n", d->spec->program, done,
                    d->ckpt_at >= 0 ? "; the last whole checkpoint is still there" : "");
    }
    k->spent_s += ddl_now() - t0;
}

/* One report period: batches [d->st.batch, end) (the rest of it after a
 * resume). Returns its time. A checkpoint inside it comes before the
 * lab's period hook, so that a run cut there and continued runs the same
 * periods as one that was not; only a period's natural end (a whole
 * epoch) is checkpointed after the hook (driver_train). */
static double period(Driver *d, const DriverLoop *loop, const DriverHooks *h, long end, int periods, Checkpoints *k)
{
    long start = d->st.batch;
    bool show = loop->progress && d->rank == 0 && !d->opt->quiet && end > start;
    Progress pr;
    if (show) {
        char label[64];
        if (loop->period > 0) snprintf(label, sizeof label, "%s %d/%d", loop->progress, d->st.period + 1, periods);
        else snprintf(label, sizeof label, "%s", loop->progress);
        progress_init(&pr, label, loop->progress_every);
    }
    if (loop->barrier_start) MPI_Barrier(MPI_COMM_WORLD);
    double t0 = ddl_now(), loss = 0.0, spent0 = k->spent_s, before = d->st.open_s;
    long seen = 0, right = 0;
    while (d->st.batch < end) {
        if (h->before_batch) h->before_batch(d, d->st.batch, h->ctx);
        DriverBatch b = one_batch(d, loop, h);
        loss += b.loss * b.n;
        seen += b.n;
        right += b.correct;
        if (h->after_batch) h->after_batch(d, &b, h->ctx);
        d->st.batch++;
        if (show)
            progress_update(&pr, d->st.batch - start, end - start, "loss %.4f acc %.3f", loss / DDL_MAX(seen, 1),
                            (double)right / (double)DDL_MAX(seen, 1));
        bool natural_end = d->st.batch == end && k->period > 0 && d->st.batch % k->period == 0;
        d->st.open_s = before + ddl_now() - t0 - (k->spent_s - spent0);
        if (!natural_end) maybe_checkpoint(d, h, k);
        /* at a period's natural end, after its hook (driver_train) */
        if (!natural_end && d->st.batch % k->unit == 0) driver_preempt_point(d, h);
    }
    if (loop->barrier_end) MPI_Barrier(MPI_COMM_WORLD);
    double dt = before + ddl_now() - t0 - (k->spent_s - spent0);
    d->st.open_s = 0.0;
    if (show) progress_end(&pr);
    return dt;
}

int driver_train(Driver *d, const DriverLoop *loop, const DriverHooks *h)
{
    static const DriverHooks none = { 0 };
    if (!h) h = &none;
    if (!d->sync) ddl_die("driver_train: no strategy (driver_sync first)");
    long total = loop->batches, per = loop->period > 0 ? loop->period : DDL_MAX(total, 1);
    int periods = (int)((total + per - 1) / per);
    driver_checkpoint_paths(d);
    if (driver_checkpoint_claim(d) != 0) return 2;
    if (d->resume_dir[0] && driver_checkpoint_resume(d, h, total) != 0) return 2;
    Checkpoints k = checkpoints(d, loop);
    driver_preempt_arm(d);
    if (loop->report_start && d->st.batch == 0 && h->after_period) h->after_period(d, 0, 0.0, h->ctx);
    /* a resumed run may stand at the end of a period whose hook has not run */
    while (d->st.batch < total || d->st.period < (d->st.batch + per - 1) / per) {
        long end = DDL_MIN((d->st.batch / per + 1) * per, total);
        if (d->st.batch == total) end = total;
        double dt = period(d, loop, h, end, periods, &k);
        d->st.train_s += dt;
        d->st.period++;
        if (h->after_period) h->after_period(d, d->st.period, dt, h->ctx);
        maybe_checkpoint(d, h, &k);
        if (d->st.batch < total) driver_preempt_point(d, h);
    }
    return 0;
}
