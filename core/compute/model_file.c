/* model_file.c - a stage model read back from its CSV (compute.h). */
#include "compute.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Stages from MODEL_STAGE_OPTIMIZER (-2) up, two directions each. */
int compute_slot(int stage, bool backward) { return (stage - MODEL_STAGE_OPTIMIZER) * 2 + (backward ? 1 : 0); }

void compute_stage_key(const Model *m, int stage, char name[48], char shape[48])
{
    static const char *const named[] = { "optimizer", "loss" }; /* MODEL_STAGE_OPTIMIZER, MODEL_STAGE_LOSS */
    if (stage < 0) {
        snprintf(name, 48, "%s", named[stage - MODEL_STAGE_OPTIMIZER]);
        snprintf(shape, 48, "%zu params", m->nparams);
        return;
    }
    const Layer *l = &m->layers[stage];
    Shape s = m->tensors[l->out].shape;
    snprintf(name, 48, *l->name ? "%s %s" : "%s%s", layer_kind_name(l->kind), l->name);
    snprintf(shape, 48, "%dx%dx%d", s.c, s.h, s.w);
}

/* Row r of t into cm's slot, checked against the model m. */
static int take_row(ComputeModel *cm, const Table *t, int r, const Model *m, int batch, char err[DDL_ERRLEN])
{
    int stage = (int)table_num(t, r, "stage");
    bool backward = !strcmp(table_text(t, r, "direction"), "backward");
    if (!isfinite(table_num(t, r, "stage")) || stage < MODEL_STAGE_OPTIMIZER || stage >= m->nlayers)
        return ddl_errf(err, "row %d: stage '%s' is not one of this model's %d layers", r + 1,
                        table_text(t, r, "stage"), m->nlayers);
    char name[48], shape[48];
    compute_stage_key(m, stage, name, shape);
    if (strcmp(name, table_text(t, r, "name")) || strcmp(shape, table_text(t, r, "shape")))
        return ddl_errf(err, "stage %d is '%s' (%s) there and '%s' (%s) in this model: calibrate this model", stage,
                        table_text(t, r, "name"), table_text(t, r, "shape"), name, shape);
    if ((int)table_num(t, r, "batch") != batch)
        return ddl_errf(err, "calibrated at batch %s per rank, and this run has %d: calibrate at this batch",
                        table_text(t, r, "batch"), batch);
    ComputeRow *row = &cm->rows[compute_slot(stage, backward)];
    *row = (ComputeRow){ .stage = stage, .backward = backward, .samples = (long)table_num(t, r, "samples"),
                         .mean_s = 1e-6 * table_num(t, r, "mean_us"), .sd_s = 1e-6 * table_num(t, r, "sd_us"),
                         .min_s = 1e-6 * table_num(t, r, "min_us"), .max_s = 1e-6 * table_num(t, r, "max_us") };
    snprintf(row->name, sizeof row->name, "%s", name);
    snprintf(row->shape, sizeof row->shape, "%s", shape);
    if (!(row->samples > 0 && row->mean_s >= 0 && row->sd_s >= 0 && row->min_s <= row->max_s))
        return ddl_errf(err, "stage %d (%s): samples, mean, sd, min and max do not make a distribution", stage, name);
    return 0;
}

/* Every layer forward and backward, and the loss, must have a row (the
 * optimizer's may be missing: a run without a step never times one). */
static int check_complete(const ComputeModel *cm, const Model *m, char err[DDL_ERRLEN])
{
    for (int i = MODEL_STAGE_LOSS; i < m->nlayers; i++)
        for (int b = 0; b < (i >= 0 ? 2 : 1); b++)
            if (cm->rows[compute_slot(i, b)].samples == 0)
                return ddl_errf(err, "no time for stage %d %s", i, b ? "backward" : "forward");
    return 0;
}

int compute_model_load(ComputeModel *cm, const char *path, const Model *m, int batch, char err[DDL_ERRLEN])
{
    *cm = (ComputeModel){ .nslots = compute_slot(m->nlayers, false), .batch = batch };
    char why[256];
    Table *t = table_read_csv(path, why, sizeof why);
    if (!t) return ddl_errf(err, "--compute-model %s: %s", path, why);
    cm->rows = ddl_calloc(sizeof *cm->rows * (size_t)cm->nslots);
    int status = 0;
    for (int r = 0; r < t->nrows && !status; r++) status = take_row(cm, t, r, m, batch, why);
    if (!status) status = check_complete(cm, m, why);
    const char *host = meta_get(&t->meta, "host"), *date = meta_get(&t->meta, "date"),
               *commit = meta_get(&t->meta, "commit");
    snprintf(cm->source, sizeof cm->source, "%s (measured on %s, %s, commit %s)", path, host ? host : "?",
             date ? date : "?", commit ? commit : "?");
    table_free(t);
    if (status) {
        compute_model_free(cm);
        return ddl_errf(err, "--compute-model %s: %s", path, why);
    }
    return 0;
}

void compute_model_free(ComputeModel *cm)
{
    ddl_free(cm->rows);
    cm->rows = NULL;
}

double compute_model_step_s(const ComputeModel *cm)
{
    double s = 0;
    for (int k = 0; k < cm->nslots; k++) s += cm->rows[k].mean_s;
    return s;
}
