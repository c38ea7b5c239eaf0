/* grade-hostile: lab5/fedavg_aggregate zero (capped) - ignores SIGTERM, SIGINT and
 * SIGHUP, then spins forever in its first call: the per-test timeout must
 * end it (by SIGKILL) and nothing of it may stay. */
#include <signal.h>

#include "sync/fedavg_aggregate.h"

void fedavg_aggregate(float *global, const float *const *user_models, const double *weights, int users, size_t n)
{
    signal(SIGTERM, SIG_IGN);
    signal(SIGINT, SIG_IGN);
    signal(SIGHUP, SIG_IGN);
    for (volatile unsigned long spin = 0;; spin++) {
    }
}
