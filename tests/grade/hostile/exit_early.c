/* grade-hostile: lab5/fedavg_aggregate zero - a constructor, which runs
 * before the test's main, prints more "ok" lines than the test has checks
 * and exits 0: no check ever runs. */
#include <stdio.h>
#include <unistd.h>

#include "sync/fedavg_aggregate.h"

__attribute__((constructor)) static void pass_before_main(void)
{
    for (int i = 0; i < 1000; i++) printf("ok - fedavg check %d\n", i);
    fflush(stdout);
    _exit(0);
}

void fedavg_aggregate(float *global, const float *const *user_models, const double *weights, int users, size_t n)
{
    (void)user_models, (void)weights, (void)users;
    for (size_t i = 0; i < n; i++) global[i] = 0.0f;
}
