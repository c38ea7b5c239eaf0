/* preempt.c - see preempt.h. */
#include "preempt.h"

#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "resume.h"

static volatile sig_atomic_t asked; /* the signal that asked, 0 for none */
static bool armed;

static void on_signal(int sig)
{
    asked = sig;
}

void driver_preempt_arm(const Driver *d)
{
    armed = d->env.ckpt_on_usr1 && d->ckpt_dir[0];
    if (!armed) return;
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_signal;
    sa.sa_flags = SA_RESTART; /* MPI's and the file system's calls go on */
    sigemptyset(&sa.sa_mask);
    sigaddset(&sa.sa_mask, SIGUSR1);
    sigaddset(&sa.sa_mask, SIGTERM);
    /* Both: Slurm's warning, and its SIGTERM (scancel, a preemption,
     * a time limit without warning) within KillWait. Until now they were
     * blocked, then caught by ddl_program_start's handler (no checkpoint
     * yet: status 4). */
    sigaction(SIGUSR1, &sa, NULL);
    sigaction(SIGTERM, &sa, NULL);
    sigset_t set;
    sigemptyset(&set);
    sigaddset(&set, SIGUSR1);
    sigaddset(&set, SIGTERM);
    sigprocmask(SIG_UNBLOCK, &set, NULL);
}

static const char *signal_name(int sig)
{
    return sig == SIGTERM ? "SIGTERM (Slurm ending or preempting the job)"
                          : "SIGUSR1 (a warning before a time limit or preemption)";
}

void driver_preempt_point(Driver *d, const DriverHooks *h)
{
    if (!armed || d->ckpt_failed) return;
    /* The signal reaches the ranks at different steps: the largest flag
     * decides, so that all checkpoint at the same step. */
    int any = asked ? (asked == SIGTERM ? 2 : 1) : 0;
    MPI_Allreduce(MPI_IN_PLACE, &any, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
    if (!any) return;
    if (d->ckpt_at != d->st.batch && driver_checkpoint_save(d, h) != 0) {
        d->ckpt_failed = true;
        armed = false;
        if (d->rank == 0)
            fprintf(stderr, "%s: %s: the checkpoint at batch %ld was not written (see above): the run goes on\n",
                    d->spec->program, any == 2 ? "SIGTERM" : "SIGUSR1", d->st.batch);
        return;
    }
    if (d->rank == 0)
        fprintf(stderr, "%s: %s: checkpoint at batch %ld in %s; "
                        "stopping with status %d, to continue from there (--resume, or DDL_RESUME=1)\n",
                d->spec->program, signal_name(any == 2 ? SIGTERM : SIGUSR1), d->st.batch, d->ckpt_dir,
                DRIVER_EXIT_CHECKPOINTED);
    fflush(stderr);
    fflush(stdout);
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_Finalize();
    exit(DRIVER_EXIT_CHECKPOINTED);
}
