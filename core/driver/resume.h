/* resume.h - checkpoints and continuation inside the driver (resume.c),
 * for the loop (loop.c). */
#ifndef DDL_DRIVER_RESUME_H
#define DDL_DRIVER_RESUME_H

#include "driver.h"

/* Where this run's checkpoints go and where it continues from:
 * --checkpoint / --resume, else $DDL_CHECKPOINT_ROOT/<program>-<tag>
 * (and $DDL_RESUME=1 continues from there when a checkpoint is). */
void driver_checkpoint_paths(Driver *d);
/* The same before a program's scope is added: where checkpoints go and
 * where the run continues from ("" for none; the automatic ones only once
 * d->tag is set). */
void driver_checkpoint_bases(const Driver *d, char *ckpt, char *resume, size_t cap);
/* Collective (lock.c): rank 0 locks the checkpoint directory this run
 * writes (DIR/checkpoint.lock, exclusive) and the one it continues from
 * (shared), unless it holds them already; a directory another run holds
 * is refused, naming that run's pid. 0, or 2 after a message. */
int driver_checkpoint_claim(Driver *d);
/* Drop lock 0 (written) or 1 (continued from); driver_end drops both. */
void driver_checkpoint_unclaim_one(Driver *d, int which);
/* Collective: every rank's state into d->ckpt_dir. 0, or 2 after a
 * message. */
int driver_checkpoint_save(Driver *d, const DriverHooks *h);
/* Collective: every rank's state from d->resume_dir, refused when it is
 * corrupt, of another format version, of other settings, or past total.
 * 0, or 2 after a message. */
int driver_checkpoint_resume(Driver *d, const DriverHooks *h, long total);

#endif
