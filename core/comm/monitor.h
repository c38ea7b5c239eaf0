/* monitor.h - what Open MPI itself sent, read through MPI_T.
 *
 * MPI_Allreduce's messages are made inside Open MPI, out of reach of
 * ddlab's counters. Open MPI's monitoring PML counts every message its
 * PML sends, per peer, and exposes the counts as MPI_T performance
 * variables "pml_monitoring_messages_count" and "..._size" bound to a
 * communicator, when the job runs with `--mca pml_monitoring_enable 1`.
 * This module reads them around a region of interest. With the same
 * reading around a hand-written algorithm, the two counts must agree:
 * that is how ddlab's counters are checked against MPI's own.
 *
 * When the variables are absent (the flag not given, another MPI, or an
 * Open MPI whose monitoring PML fails to stay loaded: 4.1.x, see
 * open-mpi/ompi#9260) the monitor says so in `why` and every consumer
 * prints "n/a": numbers are never made up.
 *
 * Counts cover everything this rank sent to the communicator's members
 * through the PML (any communicator among the same processes), so read
 * them around regions with no other traffic. */
#ifndef DDL_COMM_MONITOR_H
#define DDL_COMM_MONITOR_H

#include <stdbool.h>
#include <stdint.h>

#include "comm.h"

typedef struct CommMonitor {
    bool available;
    char why[256];           /* when !available: the reason, one line */
    int nranks;
    bool tools_initialized;  /* MPI_T_init_thread succeeded (undone at close) */
#ifndef DDL_SMPI             /* SimGrid's SMPI has no MPI_T: always unavailable there */
    MPI_T_pvar_session session;
    MPI_T_pvar_handle count_handle, size_handle;
#endif
    int count_elem_bytes, size_elem_bytes; /* 4 or 8, per the variables' datatypes */
    void *values;            /* nranks elements of the widest type */
} CommMonitor;

/* Never fails hard: on any problem the monitor is left unavailable. */
void comm_monitor_open(CommMonitor *m, const Comm *c);
/* Messages and bytes this rank has sent to members of the communicator
 * since Open MPI started counting (take differences). false when
 * unavailable. */
bool comm_monitor_read(CommMonitor *m, uint64_t *msgs, uint64_t *bytes);
void comm_monitor_close(CommMonitor *m);

#endif
