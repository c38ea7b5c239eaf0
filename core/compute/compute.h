/* compute.h - a training step's computation, stage by stage (each layer
 * forward and backward, the loss, the optimizer step): measured natively
 * (calibration) into a per-shape model with its spread, and charged from
 * that model in simulated runs instead of being run.
 *
 * Why: under SimGrid SMPI every rank's computation otherwise runs for real,
 * one rank after another on this machine, so 1024 ranks of VGG-11 cost
 * 1024 real steps of wall time and memory. With the model, a simulated
 * rank charges each stage a time drawn from the calibrated distribution
 * (normal with the measured mean and standard deviation, kept within the
 * measured range: variability, not a constant, since noiseless kernel
 * models predict too fast a step) and runs no kernel, except on the ranks
 * kept private, whose numbers are checked. Every output says which.
 *
 * The model file is a CSV (written by compute_calibration_write): one row
 * per stage and direction, keyed by the layer's index, name and output
 * shape and the batch, so a model of another network or batch is refused. */
#ifndef DDL_COMPUTE_H
#define DDL_COMPUTE_H

#include <stdbool.h>
#include <stdint.h>

#include "../model/model.h"
#include "../results/results.h"
#include "../util/common.h"
#include "../util/rng.h"

/* One stage in one direction: what was measured, in seconds. */
typedef struct ComputeRow {
    int stage;             /* a layer index, MODEL_STAGE_LOSS or MODEL_STAGE_OPTIMIZER */
    bool backward;
    char name[48], shape[48];
    long samples;
    double mean_s, sd_s, min_s, max_s;
} ComputeRow;

typedef struct ComputeModel {
    int nslots;            /* (layers + 2) x 2: index compute_slot() */
    ComputeRow *rows;      /* by slot; samples 0 where the stage never ran */
    int batch;             /* examples per rank it was calibrated at */
    char source[512];      /* where and when it was measured (the file's provenance) */
} ComputeModel;

/* The slot of (stage, direction) in a model of `layers` layers. */
int compute_slot(int stage, bool backward);
/* The stage's name and output shape as the model file keys them. */
void compute_stage_key(const Model *m, int stage, char name[48], char shape[48]);

/* ---- calibration (native runs) ----
 * Times every stage by this thread's CPU time (the clock SMPI charges
 * computation by, and one another user's jobs on the machine do not
 * inflate), from the optimizer step numbered `skip` on (warm-up first). */
typedef struct ComputeCalibration {
    StageRunner runner;
    Model *m;
    int skip;
    long steps;
    double t0;
    double (*stat)[4];     /* by slot: n, sum, sum of squares, min; max in max_s */
    double *max_s;
} ComputeCalibration;
void compute_calibration_begin(ComputeCalibration *c, Model *m, int skip);
/* <dir>/<name>.csv (rank 0 calls it); 0, or -1 after a message. */
int compute_calibration_write(const ComputeCalibration *c, const Meta *meta, const char *dir, const char *name);
void compute_calibration_end(ComputeCalibration *c);

/* ---- the model ---- */
/* Read `path` for model m at `batch` per rank: 0, or -1 and why in err (a
 * missing file, another model, batch or layer shape, a stage missing). */
int compute_model_load(ComputeModel *cm, const char *path, const Model *m, int batch, char err[DDL_ERRLEN]);
void compute_model_free(ComputeModel *cm);
/* The modelled step's stages summed (means), seconds: for messages. */
double compute_model_step_s(const ComputeModel *cm);

/* ---- a simulated run charged from the model ----
 * Each stage charges a time drawn from its row (SMPI: smpi_execute, i.e.
 * this machine's seconds scaled to the platform's speed), and its
 * kernels run only where run_kernels (a private rank). The draws come from
 * the stream (seed, "compute", rank). Native builds have no simulated
 * clock to charge: there compute_modelled_begin dies (a bug). */
typedef struct ComputeModelled {
    StageRunner runner;
    Model *m;
    const ComputeModel *cm;
    bool run_kernels;
    Rng rng;
    double charged_s;      /* what this rank was charged so far */
} ComputeModelled;
void compute_modelled_begin(ComputeModelled *r, Model *m, const ComputeModel *cm, bool run_kernels, uint64_t seed,
                            int rank);
void compute_modelled_end(ComputeModelled *r);

#endif
