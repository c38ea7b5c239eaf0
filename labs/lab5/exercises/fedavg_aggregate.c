/* Exercise (lab5): the cloud's step of federated averaging (McMahan et al.
 * 2017, Algorithm 1): the new global model is the average of the users'
 * models weighted by how many examples each trained on,
 *
 *     global[i] = sum_u weights[u] * user_models[u][i] / sum_u weights[u]
 *
 * Replaces core/sync/fedavg_aggregate.c in `make lab5 IMPL=student` and in
 * `make grade` (item "fedavg_aggregate"; tests: test_fedavg_aggregate,
 * 1-8 users, unequal and fractional weights, odd sizes, n = 0, in place).
 * The cloud calls it for FedAvg's models and for D-SGD's gradients
 * (core/sync/fedavg.c, dsgd.c).
 *
 * Contract (core/sync/fedavg_aggregate.h):
 *   - weight by weights[u] (the users' sample counts), NOT by 1/users:
 *     users with more data count more, and a user of weight 0 not at all;
 *   - divide by the SUM of the weights (it need not be 1);
 *   - global may be the same array as user_models[0]: read each element of
 *     every user before writing global[i];
 *   - accumulate in double, users in order 0..users-1, so one user's model
 *     comes back bit for bit;
 *   - write global[0..n) only (n may be 0);
 *   - bad arguments (users < 1, a negative weight, weights summing to 0)
 *     abort with a message (ddl_die in common.h). */
#include <stdio.h>
#include <stdlib.h>

#include "sync/fedavg_aggregate.h"

void fedavg_aggregate(float *global, const float *const *user_models, const double *weights, int users, size_t n)
{
    /* TODO: your code here (delete the two lines below). */
    fprintf(stderr, "exercise fedavg_aggregate not implemented\n");
    abort();
}
