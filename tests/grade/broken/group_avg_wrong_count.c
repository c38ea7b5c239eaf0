/* grade-broken: lab4/group_avg - sums over the group but divides by all
 * the workers instead of the group's members: right only when the group
 * is everyone (k = P-1). */
#include "sync/group_avg.h"

void group_avg_round(GroupAvg *g, float *params, size_t n)
{
    Comm *c = group_avg_comm(g);
    if (c->size > 1) {
        comm_allreduce(c, params, n, COMM_FP32, COMM_SUM, g->alg);
        for (size_t i = 0; i < n; i++) params[i] /= (float)g->workers;
    }
    g->rounds++;
}
