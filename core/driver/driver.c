/* driver.c - the driver's own small things (driver.h): the run's name,
 * and the end of a program, which frees whatever the run set up. The
 * steps of a run live in the files beside this one: start.c (command
 * line, device, --out), setup.c (data, model, trainer, strategy, batches),
 * loop.c (the training loop), report.c (results). */
#include "driver.h"

#include <mpi.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include "../util/common.h"
#include "resume.h"

const char *driver_tag(Driver *d, const char *fmt, ...)
{
    if (d->opt && d->opt->tag) {
        ddl_strlcpy(d->tag, d->opt->tag, sizeof d->tag);
        return d->tag;
    }
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(d->tag, sizeof d->tag, fmt, ap);
    va_end(ap);
    return d->tag;
}

void driver_run_begin(Driver *d, const char *dir, const char *const *names)
{
    if (d->rank == 0 && results_run_begin(dir, d->tag, names) != 0) ddl_die("run '%s' not started", d->tag);
}

/* Everything a run may have set up, in the reverse order. */
void driver_release(Driver *d)
{
    if (d->has_batcher) {
        batcher_free(&d->b);
        device_batch_free(&d->db);
    }
    d->has_batcher = false;
    if (d->has_sync) sync_free(&d->own);
    d->has_sync = false;
    d->sync = NULL;
    if (d->has_trainer) trainer_free(&d->t);
    d->has_trainer = false;
    if (d->has_model) model_free(&d->m);
    d->has_model = false;
    if (d->has_train) dataset_free(&d->train);
    if (d->has_test) dataset_free(&d->test);
    d->has_train = d->has_test = false;
    free(d->events);
    free(d->event_ranks);
    d->events = NULL;
    d->event_ranks = NULL;
    d->nevents = 0;
}

int driver_end(Driver *d, int status)
{
    driver_release(d);
    driver_checkpoint_unclaim_one(d, 0);
    driver_checkpoint_unclaim_one(d, 1);
    /* The results were written; a checkpoint was not (loop.c said so when
     * it failed): the run did not do all it was asked. */
    if (status == 0 && d->ckpt_failed) status = 1;
    if (d->opened) comm_free(&d->comm);
    d->opened = false;
    int up = 0, down = 0;
    MPI_Initialized(&up);
    MPI_Finalized(&down);
    if (up && !down) MPI_Finalize();
    return status;
}
