/* modelled.c - a simulated rank charged from the stage model (compute.h). */
#include "compute.h"

#include <math.h>
#ifdef DDL_SMPI
#include <smpi/smpi.h>
#endif

/* A draw from the row's distribution: normal, kept within the measured
 * range (a step is never charged less than the fastest time measured or
 * more than the slowest). */
static double draw(const ComputeRow *row, Rng *rng)
{
    double t = row->mean_s + row->sd_s * (double)rng_normal(rng);
    return fmin(fmax(t, row->min_s), row->max_s);
}

static bool modelled_before(Model *m, int stage, bool backward, void *ctx)
{
    (void)m;
    ComputeModelled *r = ctx;
    const ComputeRow *row = &r->cm->rows[compute_slot(stage, backward)];
    if (row->samples == 0) return r->run_kernels; /* the optimizer of a model without one: free */
    double t = draw(row, &r->rng);
    r->charged_s += t;
#ifdef DDL_SMPI
    /* this machine's seconds, scaled to the simulated host's speed by
     * smpi/host-speed as SMPI scales a measured computation
     * (smpi_execute_benched would charge them unscaled) */
    smpi_execute(t);
#endif
    return r->run_kernels;
}

void compute_modelled_begin(ComputeModelled *r, Model *m, const ComputeModel *cm, bool run_kernels, uint64_t seed,
                            int rank)
{
#ifndef DDL_SMPI
    ddl_die("a modelled compute time needs a simulated clock to charge: simulated builds (make SIM=1) only");
#endif
    *r = (ComputeModelled){ .m = m, .cm = cm, .run_kernels = run_kernels,
                            .rng = rng_make2(seed, "compute", (uint64_t)rank) };
    r->runner = (StageRunner){ modelled_before, NULL, r };
    m->runner = &r->runner;
}

void compute_modelled_end(ComputeModelled *r)
{
    if (r->m) r->m->runner = NULL;
}
