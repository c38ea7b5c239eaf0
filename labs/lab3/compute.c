/* compute.c - lab3's computation measured or modelled (lab3.h, core/compute).
 *
 * Three ways a step's computation is timed, written in every output:
 *   run      the kernels run and are timed (natively; under SMPI their CPU
 *            time is charged, scaled to the platform's speed);
 *   calibrate  as run, and each stage's time is kept for a model
 *            (--calibrate-compute, native and single-threaded);
 *   model    simulated: each stage is charged a time drawn from that model
 *            (--compute-model); ranks from --private-ranks on keep their
 *            weights, gradients, optimizer state, buckets and activations
 *            in one block shared by all of them (ddl_sim_alias_allocations)
 *            and run no kernel at all, so 1024 ranks
 *            of VGG-11 take neither 1024 steps of this machine's time nor
 *            1024 copies of the model. The ranks below it run every kernel
 *            on private memory: their numbers are checked. */
#include <stdio.h>
#include <string.h>

#include "lab3.h"

/* Shared allocations from this size: the model's arenas, its optimizer
 * state and buckets; its small bookkeeping (layer tables, offsets) stays
 * private, as its values steer the code. */
#define SHARE_FROM ((size_t)64 << 10)

int lab3_compute_share(Lab3Compute *c, const Lab3Options *o, Driver *d)
{
    *c = (Lab3Compute){ 0 };
    if (*o->calibrate_compute && *o->compute_model) {
        ddl_error("--calibrate-compute measures a model and --compute-model uses one: one run does one");
        return 2;
    }
    if (o->private_ranks == 0) {
        ddl_error("--private-ranks 0: rank 0 gathers and writes every output, so it keeps its memory (1 or more)");
        return 2;
    }
    if (o->private_ranks >= 0 && !*o->compute_model) {
        ddl_error("--private-ranks %d: ranks that run no kernels need --compute-model for their time",
                  o->private_ranks);
        return 2;
    }
#ifdef DDL_SMPI
    if (*o->calibrate_compute) {
        ddl_error("--calibrate-compute measures this machine: a native build (bin/lab3), not a simulated one");
        return 2;
    }
    if (*o->compute_model && strcmp(d->env.sim_compute ? d->env.sim_compute : "1", "0")) {
        ddl_error("--compute-model charges the model's times: run the network alone (LAUNCH_SIM_COMPUTE=0), or the "
                  "kernels' CPU time would be charged as well");
        return 2;
    }
#else
    if (*o->compute_model) {
        ddl_error("--compute-model charges a simulated clock: a simulated build (make SIM=1, bin/sim/lab3)");
        return 2;
    }
#endif
    c->shared = *o->compute_model && o->private_ranks >= 0 && d->rank >= o->private_ranks;
    /* once any rank shares, every average takes in meaningless gradients:
     * a private rank's loss is checked at the first step only, and may
     * then become NaN without that being the run's error */
    d->state_shared = *o->compute_model && o->private_ranks >= 0 && o->private_ranks < d->world;
    lab3_compute_sharing(c, true);
    return 0;
}

void lab3_compute_sharing(const Lab3Compute *c, bool on)
{
    if (c->shared) ddl_sim_alias_allocations(on ? SHARE_FROM : 0);
}

int lab3_compute_begin(Lab3Compute *c, const Lab3Options *o, Driver *d, int batch)
{
    if (*o->calibrate_compute) {
        compute_calibration_begin(&c->calib, &d->m, 1);
        c->calibrating = true;
        return 0;
    }
    if (!*o->compute_model) return 0;
    char err[DDL_ERRLEN];
    if (compute_model_load(&c->cm, o->compute_model, &d->m, batch, err)) {
        ddl_error("%s", err);
        return 2;
    }
    c->has_model = true;
    compute_modelled_begin(&c->modelled, &d->m, &c->cm, !c->shared, o->run.seed, d->rank);
    return 0;
}

void lab3_compute_meta(const Lab3Compute *c, const Lab3Options *o, const Driver *d, Meta *meta)
{
    if (c->calibrating) {
        meta_set(meta, "compute", "run, and each stage timed for a model (%s/%s.csv)", o->run.out,
                 o->calibrate_compute);
        return;
    }
    if (!c->has_model) {
        meta_set(meta, "compute", "run%s", d->env.sim_platform ? " (SMPI charges each computation's CPU time)" : "");
        return;
    }
    int private = o->private_ranks < 0 ? d->world : DDL_MIN(o->private_ranks, d->world);
    meta_set(meta, "compute", "modelled: each layer's forward and backward, the loss and the optimizer charged a "
             "time drawn from %s (normal, measured mean and sd, within the measured range), %.1f ms a step on "
             "average%s", c->cm.source, 1e3 * compute_model_step_s(&c->cm),
             private == d->world ? "; every rank runs its kernels too (numbers checked)" : "");
    if (private < d->world)
        meta_set(meta, "private_ranks", "ranks 0..%d run their kernels on private memory (numbers checked); ranks "
                 "%d..%d keep weights, gradients, optimizer state, buckets and activations in one block shared by all of them "
                 "and run none (loss n/a)", private - 1, private, d->world - 1);
}

int lab3_compute_end(Lab3Compute *c, const Lab3Options *o, const Driver *d, const Meta *meta)
{
    int status = 0;
    if (c->calibrating && d->rank == 0) {
        status = compute_calibration_write(&c->calib, meta, o->run.out, o->calibrate_compute) ? 1 : 0;
        if (!status && !o->run.quiet)
            fprintf(stderr, "lab3: wrote %s/%s.csv (the step's stages, timed)\n", o->run.out, o->calibrate_compute);
    }
    if (c->calibrating) compute_calibration_end(&c->calib);
    if (c->has_model) {
        compute_modelled_end(&c->modelled);
        compute_model_free(&c->cm);
    }
    return status;
}
