/* preempt.h - a checkpoint on request (preempt.c), for the loop (loop.c):
 * before a time limit or a preemption, Slurm warns the batch script
 * (sbatch --signal=B:USR1@N), which passes SIGUSR1 on to every rank. */
#ifndef DDL_DRIVER_PREEMPT_H
#define DDL_DRIVER_PREEMPT_H

#include "driver.h"

/* With $DDL_CHECKPOINT_ON_USR1=1 and a checkpoint directory: SIGUSR1 is
 * caught (it would end the process) and only noted. Call once the
 * checkpoint paths are known. */
void driver_preempt_arm(const Driver *d);

/* Collective, at the end of an optimizer step when armed: have any rank
 * been asked (a rank the signal reached agrees with those it has not
 * reached yet, one MPI_Allreduce of an int)? If so every rank writes a
 * checkpoint here (unless one was just written) and the program stops
 * with status DRIVER_EXIT_CHECKPOINTED, to continue with --resume or
 * $DDL_RESUME=1. A checkpoint that cannot be written keeps the run going. */
void driver_preempt_point(Driver *d, const DriverHooks *h);

/* The exit status of a run stopped after a checkpoint on request. */
enum { DRIVER_EXIT_CHECKPOINTED = 3 };

#endif
