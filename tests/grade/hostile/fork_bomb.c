/* grade-hostile: lab5/fedavg_aggregate zero - wrong (zeros), and its
 * first call forks until fork fails (the process limit), each child a
 * `sleep 300`: the limit must hold it, and every child must be gone when
 * the run is over. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "sync/fedavg_aggregate.h"

static void bomb(void)
{
    long children = 0;
    for (;;) {
        pid_t p = fork();
        if (p == 0) {
            execl("/bin/sleep", "@MARK@-bomb", "300", (char *)NULL);
            _exit(0);
        }
        if (p < 0) break;
        children++;
    }
    printf("fork failed after %ld children: %s\n", children, strerror(errno));
    fflush(stdout);
}

void fedavg_aggregate(float *global, const float *const *user_models, const double *weights, int users, size_t n)
{
    static int calls;
    if (calls++ == 0) bomb();
    (void)user_models, (void)weights, (void)users;
    for (size_t i = 0; i < n; i++) global[i] = 0.0f;
}
