/* mpi_horovod.c - the horovod strategy (core/sync/horovod.c), lab6.
 *
 * ddl-test-np: 1 2 4
 *
 * As tests/mpi_sync.c: P ranks with batch 64/P each must train the model
 * one process trains with batch 64 (5 SGD steps, momentum, weight decay;
 * no batch norm or dropout in cnn3 and sdss_dnn, so only float
 * reassociation separates them: tolerance 2e-4 relative to the largest
 * parameter; measured ~1e-7). At one rank horovod is plain SGD: the
 * weights must be bit-identical to the trainer's own steps.
 * Fusion must not change the result: threshold 128 MiB (Horovod 0.28's
 * default), 0 (fusion off: one allreduce per tensor), 4 KiB (many small
 * groups), cycle time 0 (each layer its own cycle) give the same weights
 * (1e-6 relative; bit-identical measured at 1 and 2 ranks, where every
 * element is a sum of at most 2 values). backward_passes_per_step 2
 * (accumulate) of 32/P equals one batch of 64/P. FP16 compression stays
 * within 1e-2 of FP32 (halves carry ~3 decimal digits).
 * Bytes: over all ranks, a ring allreduce of a group of n elements sends
 * exactly 2(p-1) n elements in total, so one step sends 2(p-1) N x 4 bytes
 * (N parameters; 2 bytes each with FP16), whatever the grouping. Groups:
 * fusion off = one per tensor; cycle 0 = one per layer from step 1 on (the
 * plan rank 0's step-0 times make).
 *
 * Quick tier (make test; make test-full runs the rest): every case on
 * sdss_dnn (linear layers: weight and bias tensors per layer, as in
 * cnn3), cnn3 on the first (Horovod 0.28's defaults) only: each fusion,
 * cycle, accumulation and compression setting once, each model once. cnn3
 * was nearly all of this program's time (2026-11-27, c53debc). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "comm/comm.h"
#include "util/common.h"
#include "harness.h"
#include "model/model.h"
#include "util/rng.h"
#include "sync/sync.h"
#include "train/train.h"

enum { GLOBAL_BATCH = 64, STEPS = 5 };

typedef struct Case {
    const char *label;
    size_t fusion;
    double cycle_ms;
    bool fp16;
    int accumulate;
} Case;

typedef struct Outcome {
    float *params;
    size_t n;
    int groups;
    uint64_t bytes_sent; /* this rank, whole run */
} Outcome;

/* Train with horovod; the reference trainer (batch 64, one process) runs
 * alongside on every rank when ref != NULL. */
static Outcome run(Comm *c, const char *model, Shape in, int classes, const Case *k, Model *ref, Trainer *tr)
{
    const int p = c->size, local = GLOBAL_BATCH / p, micro = local / k->accumulate;
    SyncConfig cfg = sync_config_default(SYNC_HOROVOD);
    cfg.horovod.fusion_bytes = k->fusion;
    cfg.horovod.cycle_ms = k->cycle_ms;
    cfg.horovod.fp16 = k->fp16;
    cfg.accumulate = k->accumulate;
    TDist d;
    t_dist_init(&d, c, &cfg, model, in, classes, 0.0f, micro, GLOBAL_BATCH);
    CommCounters before = sync_counters(&d.s);
    for (int step = 0; step < STEPS; step++) {
        t_random_batch(11, "mpi_horovod batch", step, in, classes, GLOBAL_BATCH, d.x, d.y);
        int correct;
        if (ref) {
            trainer_forward_backward(tr, d.x, d.y, GLOBAL_BATCH, &correct);
            trainer_step(tr);
        }
        for (int u = 0; u < k->accumulate; u++) {
            int first = c->rank * local + u * micro;
            sync_train_step(&d.s, d.x + (size_t)first * d.per, d.y + first, micro, &correct, NULL);
        }
    }
    Outcome o = { ddl_alloc(sizeof(float) * d.m.nparams), d.m.nparams, sync_groups(&d.s),
                  sync_counters(&d.s).bytes_sent - before.bytes_sent };
    memcpy(o.params, d.m.params, sizeof(float) * d.m.nparams);
    t_dist_free(&d);
    return o;
}

/* all: every case, else the first only (the quick tier's cnn3). */
static void test_model(Comm *c, const char *model, Shape in, int classes, bool all)
{
    const int p = c->size;
    const size_t MiB = (size_t)1 << 20;
    const Case cases[] = {
        { "fusion 128 MiB, cycle 1 ms (Horovod 0.28)", 128 * MiB, 1.0, false, 1 },
        { "fusion off", 0, 1.0, false, 1 },
        { "fusion 4 KiB", 4096, 1.0, false, 1 },
        { "cycle 0 (each layer a cycle)", 128 * MiB, 0.0, false, 1 },
        { "backward_passes_per_step 2", 128 * MiB, 1.0, false, 2 },
        { "fp16 compression", 128 * MiB, 1.0, true, 1 },
    };
    const int ncases = all ? (int)(sizeof cases / sizeof cases[0]) : 1;
    Outcome base = { 0 };
    for (int i = 0; i < ncases; i++) {
        const Case *k = &cases[i];
        SgdConfig sc = { 0.05f, 0.9f, 5e-4f, false };
        Model ref;
        t_build_eval(&ref, model, in, classes, 0.0f, GLOBAL_BATCH, 3);
        Trainer tr;
        trainer_init(&tr, &ref, &sc);
        Outcome o = run(c, model, in, classes, k, &ref, &tr);
        double rel = t_rel_err(o.params, ref.params, o.n, 0.0);
        if (k->fp16) {
            t_check_all(isfinite(rel) && rel <= 1e-2, "horovod %s %s np%d: within 1e-2 of 1 rank x batch 64 (rel %.2g)",
                        model, k->label, p, rel);
        } else if (p == 1 && k->accumulate == 1) {
            t_check_all(rel == 0.0, "horovod %s %s np1: bit-identical to plain SGD (rel %.2g)", model, k->label, rel);
        } else {
            t_check_all(isfinite(rel) && rel <= 2e-4, "horovod %s %s np%d: %d ranks x batch %d equal 1 rank x batch 64 "
                        "(rel %.2g <= 2e-4)", model, k->label, p, p, GLOBAL_BATCH / p, rel);
        }
        if (i == 0) {
            base = o;
        } else {
            if (!k->fp16 && k->accumulate == 1) {
                double d = t_rel_err(o.params, base.params, o.n, 0.0);
                t_check_all(d <= 1e-6, "horovod %s np%d: %s gives the weights of fusion 128 MiB (rel %.2g <= 1e-6)",
                            model, p, k->label, d);
            }
            ddl_free(o.params);
        }
        /* bytes: totals over ranks equal 2(p-1) N elements per step */
        uint64_t total = 0, mine = o.bytes_sent;
        MPI_Allreduce(&mine, &total, 1, MPI_UINT64_T, MPI_SUM, c->mpi);
        uint64_t want = (uint64_t)STEPS * 2u * (uint64_t)(p - 1) * o.n * (k->fp16 ? 2u : 4u);
        t_check_all(total == want, "horovod %s %s np%d: ranks sent 2(p-1) N x %d bytes per step in total (%llu, want %llu)",
                    model, k->label, p, k->fp16 ? 2 : 4, (unsigned long long)total, (unsigned long long)want);
        int ntensors = model_param_list(&ref, NULL, 0);
        if (k->fusion == 0)
            t_check_all(o.groups == ntensors, "horovod %s fusion off np%d: one group per tensor (%d of %d)", model, p,
                        o.groups, ntensors);
        if (k->cycle_ms == 0.0) { /* from step 1 on, each layer's tensors are a cycle of their own */
            int layers = 0;
            for (int l = 0; l < ref.nlayers; l++) layers += ref.layers[l].param_count > 0;
            t_check_all(o.groups == layers, "horovod %s cycle 0 np%d: after step 0, one group per layer with "
                        "parameters (%d of %d)", model, p, o.groups, layers);
        }
        if (k->fusion == 4096)
            t_check_all(o.groups > 1 && o.groups <= ntensors, "horovod %s fusion 4 KiB np%d: several groups (%d)", model,
                        p, o.groups);
        trainer_free(&tr);
        model_free(&ref);
    }
    ddl_free(base.params);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    Comm c;
    comm_init(&c, MPI_COMM_WORLD);
    bool quick = t_quick("cnn3's cases other than Horovod 0.28's defaults (here cnn3 on that case, sdss_dnn on all)");
    test_model(&c, "cnn3", (Shape){ 1, 28, 28 }, 10, !quick);
    test_model(&c, "sdss_dnn", (Shape){ 10, 1, 1 }, 3, true);
    return t_mpi_comm_done(&c);
}
