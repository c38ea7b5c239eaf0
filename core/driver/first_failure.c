/* first_failure.c - see first_failure.h. One MPI_Allreduce (MIN over the
 * failing ranks' numbers): every rank stops or goes on together, and one
 * line, not one per rank, says why. */
#include "first_failure.h"

#include <mpi.h>
#include <stdio.h>

int driver_first_failure(Driver *d, bool failed, const char *why)
{
    int first = failed ? d->rank : d->world;
    MPI_Allreduce(MPI_IN_PLACE, &first, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
    if (first == d->world) return -1;
    if (d->rank == first) fprintf(stderr, "error: %s\n", why);
    return first;
}
