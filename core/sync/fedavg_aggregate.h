/* fedavg_aggregate.h - the cloud's step of federated averaging
 * (McMahan et al. 2017, "Communication-Efficient Learning of Deep
 * Networks from Decentralized Data", Algorithm 1):
 *
 *     w_global = sum_k (n_k / n) w_k,   n = sum_k n_k
 *
 * one weighted average of the users' models, weights = how many examples
 * each user trained on. Kept alone in its own file so that an exercise can
 * replace it. */
#ifndef DDL_FED_FEDAVG_AGGREGATE_H
#define DDL_FED_FEDAVG_AGGREGATE_H

#include <stddef.h>

/* Contract:
 *   global        out: n floats, global[i] = sum_u weights[u] * user_models[u][i] / sum_u weights[u];
 *                 may be one of user_models (each element is read before it is written);
 *   user_models   users arrays of n floats each;
 *   weights       users non-negative weights (sample counts) with a positive sum;
 *   accumulation  in double, users in order 0..users-1, so the result does
 *                 not depend on threads and one user's model comes back
 *                 bit for bit (w * x / w is exact in double for integer
 *                 weights below 2^29).
 * Bad arguments (users < 1, a negative weight, zero total) abort. */
void fedavg_aggregate(float *global, const float *const *user_models, const double *weights, int users, size_t n);

#endif
