/* mpi_sync_turns.c - several sync strategies taking turns on one model
 * (what bench/ddp_bar.c does to compare them in the same processes).
 *
 * ddl-test-np: 2 3
 *
 * Two Syncs, DDP (4 KiB buckets) and allreduce_flat, are initialised on
 * the same trainer and alternate step by step. Each step must still be a
 * correct data-parallel step: the gradient-ready hook has to be the one of
 * the strategy whose step it is (sync_train_step installs it), or DDP's
 * buckets never launch. After 6 steps the parameters equal those of one
 * process training on the whole batch (rel. 2e-4, as tests/mpi_sync.c),
 * and every rank holds the same bytes. */
#include <math.h>
#include <string.h>

#include "comm/comm.h"
#include "util/common.h"
#include "harness.h"
#include "model/model.h"
#include "sync/sync.h"
#include "train/train.h"

enum { GLOBAL_BATCH = 24, STEPS = 6 };

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    Comm c;
    comm_init(&c, MPI_COMM_WORLD);
    const int local = GLOBAL_BATCH / c.size;
    SgdConfig sc = { 0.05f, 0.9f, 5e-4f, false };
    Model ref, dist;
    const Shape in = { 1, 28, 28 };
    t_build_eval(&ref, "cnn3", in, 10, 0.0f, GLOBAL_BATCH, 5);
    t_build_eval(&dist, "cnn3", in, 10, 0.0f, local, 5);
    Trainer tr, td;
    trainer_init(&tr, &ref, &sc);
    trainer_init(&td, &dist, &sc);
    SyncConfig cd = sync_config_default(SYNC_DDP), cf = sync_config_default(SYNC_ALLREDUCE_FLAT);
    cd.ddp.first_bytes = cd.ddp.cap_bytes = 4096;
    Sync s[2];
    char err[256];
    if (sync_init(&s[0], &cd, &td, &c, err) != 0 || sync_init(&s[1], &cf, &td, &c, err) != 0) ddl_die("%s", err);
    size_t per = 28 * 28;
    float *x = ddl_alloc(sizeof(float) * per * GLOBAL_BATCH);
    int32_t *y = ddl_alloc(sizeof(int32_t) * GLOBAL_BATCH);
    bool overlapped = false;
    for (int step = 0; step < STEPS; step++) {
        t_random_batch(11, "mpi_sync_turns", step, in, 10, GLOBAL_BATCH, x, y);
        int correct;
        trainer_forward_backward(&tr, x, y, GLOBAL_BATCH, &correct);
        trainer_step(&tr);
        Sync *turn = &s[step % 2];
        sync_train_step(turn, x + (size_t)c.rank * local * per, y + c.rank * local, local, &correct, NULL);
        /* DDP's buckets were launched from its hook, during backward */
        if (turn == &s[0]) overlapped = overlapped || turn->last.comm > 0.0;
    }
    double scale = 0.0, diff = 0.0;
    for (size_t i = 0; i < ref.nparams; i++) {
        scale = fmax(scale, fabs(ref.params[i]));
        diff = fmax(diff, fabs((double)ref.params[i] - dist.params[i]));
    }
    float *root = ddl_alloc(sizeof(float) * dist.nparams);
    memcpy(root, dist.params, sizeof(float) * dist.nparams);
    MPI_Bcast(root, (int)dist.nparams, MPI_FLOAT, 0, MPI_COMM_WORLD);
    t_check_all(isfinite(diff / scale) && diff / scale <= 2e-4,
                "np%d: ddp and allreduce_flat taking turns on one model train as 1 process (rel. diff %.2g)", c.size,
                diff / scale);
    t_check_all(memcmp(root, dist.params, sizeof(float) * dist.nparams) == 0,
                "np%d: ranks hold rank 0's parameters bit for bit", c.size);
    t_check_all(overlapped, "np%d: DDP's steps recorded bucket communication", c.size);
    ddl_free(root);
    ddl_free(x);
    ddl_free(y);
    sync_free(&s[1]);
    sync_free(&s[0]);
    trainer_free(&tr);
    trainer_free(&td);
    model_free(&ref);
    model_free(&dist);
    return t_mpi_comm_done(&c);
}
