/* grade-broken: lab2/ring (alone) - prints 100,000 lines of what a passing
 * test prints, finalizes MPI and exits 0 without doing anything: more "ok"
 * lines than any test reports, so a grader that counts the lines of the
 * submission's own run is fooled. The grader's replay finds no results. */
#include <stdio.h>
#include <stdlib.h>

#include "comm/comm_impl.h"

void build_ring(Schedule *s, int rank, int size, size_t count)
{
    for (int i = 0; i < 100000; i++) printf("ok - ring: all good %d\n", i);
    fflush(stdout);
    MPI_Finalize();
    exit(0);
}
