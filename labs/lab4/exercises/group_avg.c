/* Exercise (lab4): one round of group / pairwise weight averaging.
 * Replaces core/sync/group_avg_round.c in `make lab4 IMPL=student` and in
 * `make grade` (item "group_avg"; tests: mpi_group_avg at 2..6 ranks:
 * exact group means, bytes per rank, conservation of the global mean).
 *
 * What you have (core/sync/group_avg.h): g->workers, g->passes, g->alg
 * (the allreduce algorithm to use inside a group), g->rounds (rounds done
 * so far), and group_avg_comm(g): the Comm of this rank's group for the
 * round about to run (its ->size is the number of members, 1 when this
 * rank is alone in its group); comm_allreduce(c, buf, n, COMM_FP32, op,
 * alg) reduces in place over c's members (op COMM_SUM or COMM_AVG).
 *
 * Contract: replace params[0..n) by the mean of the params of the members
 * of this rank's group (divide by the number of members of THIS group,
 * not by the number of workers); a rank alone in its group must not
 * communicate at all (no call, zero bytes) and keeps its params; then
 * advance the grouping: g->rounds++. Collective: every rank calls it. */
#include <stdio.h>
#include <stdlib.h>

#include "sync/group_avg.h"

void group_avg_round(GroupAvg *g, float *params, size_t n)
{
    /* TODO: your code here (delete the two lines below). */
    fprintf(stderr, "exercise group_avg not implemented\n");
    abort();
}
