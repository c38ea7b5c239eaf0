/* measure.h - timing and checking one allreduce configuration, the way
 * lab2's benchmark and bench/allreduce report it.
 *
 * Timing: `warmup` untimed calls, then `reps` timed ones; each timed call
 * starts after a barrier and its time is the slowest rank's (an allreduce
 * is done when the last rank is done). The summary is the min and the
 * median of those per-call maxima. The buffer holds zeros while timing so
 * repeated sums never overflow (adding zeros costs what adding anything
 * else does). With reps <= 0 the number of timed calls is chosen from
 * the warm-up: enough to fill about 0.2 s, between 5 and 1000 (rank 0
 * decides and tells the others, so every rank makes the same calls).
 *
 * Bandwidth as nccl-tests defines it for allreduce:
 *   algbw = bytes / time,  busbw = algbw * 2(p-1)/p,
 * busbw being comparable across rank counts with the link bandwidth.
 *
 * Checking: one call on small-integer data whose exact sum every rank
 * computes locally; `wrong` counts mismatching elements over all ranks. */
#ifndef DDL_COMM_MEASURE_H
#define DDL_COMM_MEASURE_H

#include <stddef.h>

#include "comm.h"

typedef struct AllreduceTiming {
    double min_s, median_s, mean_s;
    int reps;
} AllreduceTiming;

/* Collective. buf must hold count elements of dtype; it is overwritten. */
AllreduceTiming comm_time_allreduce(Comm *c, CommAlg alg, CommDtype dtype, size_t count, int warmup, int reps,
                                    void *buf);
/* Collective. Returns the number of wrong elements summed over ranks. */
long comm_check_allreduce(Comm *c, CommAlg alg, CommDtype dtype, size_t count, void *buf);

double comm_algbw(double bytes, double seconds);                 /* bytes/s */
double comm_busbw(double bytes, double seconds, int ranks);      /* bytes/s */

#endif
