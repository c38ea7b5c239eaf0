/* grade-broken: lab2/recdoubling (alone) - does not compile. */
#include "comm/comm_impl.h"

void build_recdoubling(Schedule *s, int rank, int size, size_t count)
{
    Fold f = fold_make(rank, size)
    sched_fold_in(s, &f, rank, count);
}
