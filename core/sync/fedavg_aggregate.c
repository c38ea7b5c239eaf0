/* fedavg_aggregate.c - see fedavg_aggregate.h: the weighted average of the
 * users' models that is the whole of the cloud's work in FedAvg. */
#include "fedavg_aggregate.h"

#include "../util/common.h"

void fedavg_aggregate(float *global, const float *const *user_models, const double *weights, int users, size_t n)
{
    if (users < 1) ddl_die("fedavg_aggregate: %d users", users);
    double total = 0.0;
    for (int u = 0; u < users; u++) {
        if (!(weights[u] >= 0.0)) ddl_die("fedavg_aggregate: user %d has weight %g", u, weights[u]);
        total += weights[u];
    }
    if (!(total > 0.0)) ddl_die("fedavg_aggregate: the weights sum to %g", total);
    for (size_t i = 0; i < n; i++) {
        double s = 0.0;
        for (int u = 0; u < users; u++) s += weights[u] * (double)user_models[u][i];
        global[i] = (float)(s / total);
    }
}
