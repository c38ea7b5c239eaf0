/* preempt.c - see preempt.h. */
#include "preempt.h"

#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "resume.h"

static volatile sig_atomic_t asked;
static bool armed;

static void on_usr1(int sig)
{
    (void)sig;
    asked = 1;
}

void driver_preempt_arm(const Driver *d)
{
    armed = d->env.ckpt_on_usr1 && d->ckpt_dir[0];
    if (!armed) return;
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_usr1;
    sa.sa_flags = SA_RESTART; /* MPI's and the file system's calls go on */
    sigemptyset(&sa.sa_mask);
    sigaction(SIGUSR1, &sa, NULL);
}

void driver_preempt_point(Driver *d, const DriverHooks *h)
{
    if (!armed || d->ckpt_failed) return;
    /* The signal reaches the ranks at different steps: the largest flag
     * decides, so that all checkpoint at the same step. */
    int any = asked;
    MPI_Allreduce(MPI_IN_PLACE, &any, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
    if (!any) return;
    if (d->ckpt_at != d->st.batch && driver_checkpoint_save(d, h) != 0) {
        d->ckpt_failed = true;
        armed = false;
        if (d->rank == 0)
            fprintf(stderr, "%s: SIGUSR1: the checkpoint at batch %ld was not written (see above): the run goes on\n",
                    d->spec->program, d->st.batch);
        return;
    }
    if (d->rank == 0)
        fprintf(stderr, "%s: SIGUSR1 (a warning before a time limit or preemption): checkpoint at batch %ld in %s; "
                        "stopping with status %d, to continue from there (--resume, or DDL_RESUME=1)\n",
                d->spec->program, d->st.batch, d->ckpt_dir, DRIVER_EXIT_CHECKPOINTED);
    fflush(stderr);
    fflush(stdout);
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_Finalize();
    exit(DRIVER_EXIT_CHECKPOINTED);
}
