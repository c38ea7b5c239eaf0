/* grade-hostile: lab5/fedavg_aggregate full - right, but its first call
 * leaves a daemon behind (a new session, `sleep 300` holding the test's
 * output open): it must be killed with the run, and must not make the
 * right answer time out. */
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "sync/fedavg_aggregate.h"

static void leave_daemon(void)
{
    pid_t p = fork();
    if (p != 0) return;
    setsid();
    if (fork() == 0) execl("/bin/sleep", "@MARK@-daemon", "300", (char *)NULL);
    _exit(0);
}

void fedavg_aggregate(float *global, const float *const *user_models, const double *weights, int users, size_t n)
{
    static int calls;
    if (calls++ == 0) leave_daemon();
    double total = 0.0;
    for (int u = 0; u < users; u++) total += weights[u];
    for (size_t i = 0; i < n; i++) {
        double s = 0.0;
        for (int u = 0; u < users; u++) s += weights[u] * (double)user_models[u][i];
        global[i] = (float)(s / total);
    }
}
