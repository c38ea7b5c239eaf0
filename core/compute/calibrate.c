/* calibrate.c - measure every stage of a native training step (compute.h). */
#define _POSIX_C_SOURCE 200809L
#include "compute.h"

#include <math.h>
#include <stdio.h>
#include <time.h>

/* This thread's CPU seconds: what SMPI charges a computation by. */
static double thread_cpu_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static bool calib_before(Model *m, int stage, bool backward, void *ctx)
{
    (void)m, (void)stage, (void)backward;
    ComputeCalibration *c = ctx;
    c->t0 = thread_cpu_s();
    return true;
}

static void calib_after(Model *m, int stage, bool backward, void *ctx)
{
    (void)m;
    ComputeCalibration *c = ctx;
    double t = thread_cpu_s() - c->t0;
    if (c->steps >= c->skip) {
        int k = compute_slot(stage, backward);
        double *s = c->stat[k];
        s[3] = s[0] == 0 ? t : fmin(s[3], t);
        c->max_s[k] = fmax(c->max_s[k], t);
        s[0] += 1;
        s[1] += t;
        s[2] += t * t;
    }
    if (stage == MODEL_STAGE_OPTIMIZER) c->steps++;
}

void compute_calibration_begin(ComputeCalibration *c, Model *m, int skip)
{
    int slots = compute_slot(m->nlayers, false);
    *c = (ComputeCalibration){ .m = m, .skip = skip };
    c->stat = ddl_calloc(sizeof *c->stat * (size_t)slots);
    c->max_s = ddl_calloc(sizeof *c->max_s * (size_t)slots);
    c->runner = (StageRunner){ calib_before, calib_after, c };
    m->runner = &c->runner;
}

void compute_calibration_end(ComputeCalibration *c)
{
    if (c->m) c->m->runner = NULL;
    ddl_free(c->stat);
    ddl_free(c->max_s);
    *c = (ComputeCalibration){ 0 };
}

int compute_calibration_write(const ComputeCalibration *c, const Meta *meta, const char *dir, const char *name)
{
    Table *t = table_new(name, "stage,direction,name,shape,batch,samples,mean_us,sd_us,min_us,max_us");
    t->meta = *meta;
    meta_set(&t->meta, "compute_model", "each stage's time by this thread's CPU clock (CLOCK_THREAD_CPUTIME_ID), "
                                        "one thread, steps from %d on (earlier ones warm up); read by "
                                        "--compute-model in simulated runs", c->skip);
    for (int stage = MODEL_STAGE_OPTIMIZER; stage < c->m->nlayers; stage++)
        for (int b = 0; b < 2; b++) {
            int k = compute_slot(stage, b);
            const double *s = c->stat[k];
            if (s[0] == 0) continue;
            double mean = s[1] / s[0], var = s[0] > 1 ? (s[2] - s[0] * mean * mean) / (s[0] - 1) : 0.0;
            char key[48], shape[48];
            compute_stage_key(c->m, stage, key, shape);
            table_set_int(t, "stage", stage);
            table_set_str(t, "direction", b ? "backward" : "forward");
            table_set_str(t, "name", key);
            table_set_str(t, "shape", shape);
            table_set_int(t, "batch", c->m->batch);
            table_set_int(t, "samples", (long long)s[0]);
            table_set_num(t, "mean_us", 1e6 * mean, "%.3f");
            table_set_num(t, "sd_us", 1e6 * sqrt(fmax(var, 0.0)), "%.3f");
            table_set_num(t, "min_us", 1e6 * s[3], "%.3f");
            table_set_num(t, "max_us", 1e6 * c->max_s[k], "%.3f");
            table_end_row(t);
        }
    int status = table_write(t, dir);
    table_free(t);
    return status;
}
