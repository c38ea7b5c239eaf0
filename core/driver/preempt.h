/* preempt.h - a checkpoint on request (preempt.c), for the loop (loop.c):
 * before a time limit or a preemption, Slurm warns the batch script
 * (sbatch --signal=B:USR1@N), which passes SIGUSR1 on to every rank; a
 * cancel or a preemption without warning sends SIGTERM, handled alike. */
#ifndef DDL_DRIVER_PREEMPT_H
#define DDL_DRIVER_PREEMPT_H

#include "driver.h"

/* With $DDL_CHECKPOINT_ON_USR1=1 and a checkpoint directory: SIGUSR1 and
 * SIGTERM are caught (they would end the process) and only noted. Call
 * once the checkpoint paths are known. Before, from the program's start
 * (ddl_program_start, core/platform/threads.c), either ends the run at
 * once with status DRIVER_EXIT_NO_CHECKPOINT. */
void driver_preempt_arm(const Driver *d);

/* Collective, at the end of an optimizer step when armed: have any rank
 * been asked (a rank the signal reached agrees with those it has not
 * reached yet, one MPI_Allreduce of an int)? If so every rank writes a
 * checkpoint here (unless one was just written) and the program stops
 * with status DRIVER_EXIT_CHECKPOINTED, to continue with --resume or
 * $DDL_RESUME=1. A checkpoint that cannot be written keeps the run going. */
void driver_preempt_point(Driver *d, const DriverHooks *h);

/* The exit status of a run stopped after a checkpoint on request, and of
 * one stopped by either signal before its training began (no checkpoint
 * yet: the START_SIGNAL_EXIT of core/platform/threads.c). */
enum { DRIVER_EXIT_CHECKPOINTED = 3, DRIVER_EXIT_NO_CHECKPOINT = 4 };

#endif
