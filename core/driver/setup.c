/* setup.c - what a run trains with (driver.h): the data, the model, the
 * optimizer, the synchronisation strategy and this rank's batches. Each
 * call replaces what the same call set up before, so a lab can run several
 * configurations from one start (lab2's algorithms, lab4's schemes). */
#include "driver.h"

#include <stdio.h>
#include <string.h>
#include "../util/common.h"
#include "options.h"

/* Every rank agrees whether any failed (a rank alone in an error would
 * leave the others waiting in a collective). */
static bool any(const Driver *d, bool mine)
{
    int bad = mine;
    MPI_Allreduce(MPI_IN_PLACE, &bad, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
    return bad != 0;
}

static int load(const Driver *d, Split split, int limit, Dataset *out)
{
    const DriverOptions *o = d->opt;
    DataOptions dopt = { .root = d->env.data_root, .allow_synthetic = !o->no_synthetic,
                         .force_synthetic = o->synthetic, .seed = driver_data_seed(o), .limit = limit,
                         .cifar_partial = d->env.cifar_partial };
    return dataset_load_for_run(o->dataset, split, &dopt, out);
}

int driver_load(Driver *d, bool test)
{
    if (d->has_train) dataset_free(&d->train);
    if (d->has_test) dataset_free(&d->test);
    d->has_train = load(d, SPLIT_TRAIN, d->opt->limit, &d->train) == 0;
    d->has_test = test && d->has_train && load(d, SPLIT_TEST, d->opt->test_limit, &d->test) == 0;
    d->data_identity[0] = '\0'; /* of the data loaded before: resume.c asks again */
    char err[DDL_ERRLEN];
    bool mismatch = d->has_test && dataset_check_pair(&d->train, &d->test, err) != 0;
    if (mismatch) ddl_error("%s", err); /* every rank loaded the same files */
    if (!any(d, !d->has_train || (test && !d->has_test) || mismatch) && driver_agree_data(d) == 0) return 0;
    if (d->has_train) dataset_free(&d->train);
    if (d->has_test) dataset_free(&d->test);
    d->has_train = d->has_test = false;
    return 1;
}

ModelConfig driver_model_config(const Driver *d, const char *model)
{
    const Dataset *t = &d->train;
    ModelConfig cfg = model_config_default(model, (Shape){ t->c, t->h, t->w }, t->classes);
    cfg.width = d->opt->width;
    return cfg;
}

int driver_build(Driver *d, const char *model, const ModelConfig *cfg, int max_batch)
{
    if (d->has_trainer) trainer_free(&d->t);
    if (d->has_model) model_free(&d->m);
    d->has_trainer = false;
    ModelConfig mine = cfg ? *cfg : driver_model_config(d, model);
    mine.backend = d->be;
    if (d->opt->conv) mine.conv = d->conv_algo; /* parsed once, with the options */
    if (driver_check_memory(d, model, &mine, max_batch) != 0) return 2;
    char err[DDL_ERRLEN] = "";
    d->has_model = model_build(&d->m, model, &mine, max_batch, d->opt->seed, err) == 0;
    if (!any(d, !d->has_model)) return 0;
    if (!d->has_model) ddl_error("%s", err);
    else model_free(&d->m);
    d->has_model = false;
    return 2;
}

void driver_trainer(Driver *d, const SgdConfig *sgd)
{
    const DriverOptions *o = d->opt;
    SgdConfig mine = sgd ? *sgd : (SgdConfig){ o->lr, o->momentum, o->wd, false };
    if (d->has_sync) sync_free(&d->own);
    if (d->has_trainer) trainer_free(&d->t);
    d->has_sync = false;
    d->sync = NULL;
    trainer_init(&d->t, &d->m, &mine);
    d->has_trainer = true;
}

int driver_sync(Driver *d, const SyncConfig *cfg)
{
    if (d->has_sync) sync_free(&d->own);
    d->sync = NULL;
    char err[256] = "";
    d->has_sync = sync_init(&d->own, cfg, &d->t, &d->comm, err) == 0;
    if (!d->has_sync) {
        /* strategies refuse alike on every rank */
        ddl_error("%s", err);
        return 2;
    }
    d->sync = &d->own;
    d->st = (DriverState){ 0 };
    return 0;
}

void driver_batches(Driver *d, const BatcherOptions *bo)
{
    if (d->has_batcher) {
        batcher_free(&d->b);
        device_batch_free(&d->db);
    }
    batcher_init(&d->b, &d->train, bo);
    d->has_batcher = true;
    device_batch_init(&d->db, d->be, bo->batch, (size_t)d->train.c * d->train.h * d->train.w);
    d->prefetched = false;
    d->st.epoch = d->fetch_epoch = d->put_epoch = 0; /* batcher_init prepared epoch 0 */
}
