/* gather_scatter.h - lab3's per-parameter synchronisation (the seed's
 * Listings 3 and 4), in a file of its own because it is an exercise
 * (labs/lab3/exercises/gather_scatter.c replaces gather_scatter.c). */
#ifndef DDL_SYNC_GATHER_SCATTER_H
#define DDL_SYNC_GATHER_SCATTER_H

#include "strategy.h"

/* One allreduce AVG of m->grads per tensor (weight, then bias, layer by
 * layer in model order) with `alg`, each recorded by sync_comm_event as
 * "<layer>.weight" / "<layer>.bias". */
void sync_per_parameter(Sync *s, CommAlg alg);

#endif
