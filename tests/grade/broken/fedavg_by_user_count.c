/* grade-broken: lab5/fedavg_aggregate - averages by the number of users
 * instead of by the weights (sample counts): right only when every user
 * holds the same amount of data. */
#include "sync/fedavg_aggregate.h"

void fedavg_aggregate(float *global, const float *const *user_models, const double *weights, int users, size_t n)
{
    (void)weights;
    for (size_t i = 0; i < n; i++) {
        double s = 0.0;
        for (int u = 0; u < users; u++) s += (double)user_models[u][i];
        global[i] = (float)(s / users);
    }
}
