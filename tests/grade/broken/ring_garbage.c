/* grade-broken: lab2/ring (alone) - prints what a passing test prints, finalizes
 * MPI and exits 0 without doing anything: the grader must not be fooled
 * (it expects as many "ok" lines as the reference reports). */
#include <stdio.h>
#include <stdlib.h>

#include "comm/comm_impl.h"

void build_ring(Schedule *s, int rank, int size, size_t count)
{
    printf("ok - ring: all good\nok - ring: really\n");
    fflush(stdout);
    MPI_Finalize();
    exit(0);
}
