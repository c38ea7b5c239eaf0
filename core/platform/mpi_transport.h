/* mpi_transport.h - which transport the MPI library really selected. */
#ifndef DDL_MPI_TRANSPORT_H
#define DDL_MPI_TRANSPORT_H

#include <stddef.h>

/* Writes e.g. "pml ob1, btl tcp,vader,self" into out: the point-to-point
 * layer and byte transports Open MPI selected in MPI_Init, read from Open
 * MPI itself, never from the environment (a run that leaves the choice to
 * Open MPI still says what it chose). Another MPI, a simulated build or an
 * Open MPI whose internals are not found: a sentence saying so. Call
 * after MPI_Init. */
void ddl_mpi_transport(char *out, size_t cap);

#endif
