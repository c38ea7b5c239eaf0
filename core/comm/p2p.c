/* p2p.c - the only place core/comm sends or receives: every message is
 * counted here, against the counters of the algorithm that made it.
 * Payloads travel as MPI_BYTE: the algorithms already know sizes in bytes
 * and the counters (and Open MPI's monitoring) count bytes. */
#include "comm_impl.h"

#include <limits.h>

#include "../util/common.h"

static int checked_int(size_t bytes)
{
    if (bytes > (size_t)INT_MAX) ddl_die("message of %zu bytes exceeds MPI's int count", bytes);
    return (int)bytes;
}

static void count_send(CommCounters *ctr, int dst, size_t bytes)
{
    if (dst == MPI_PROC_NULL) return;
    ctr->msgs_sent++;
    ctr->bytes_sent += bytes;
}

static void count_recv(CommCounters *ctr, int src, size_t bytes)
{
    if (src == MPI_PROC_NULL) return;
    ctr->msgs_recv++;
    ctr->bytes_recv += bytes;
}

void p2p_sendrecv(const Comm *c, CommCounters *ctr, const void *sbuf, size_t sbytes, int dst, void *rbuf,
                  size_t rbytes, int src, int tag)
{
    count_send(ctr, dst, sbytes);
    count_recv(ctr, src, rbytes);
    MPI_Sendrecv(sbuf, checked_int(sbytes), MPI_BYTE, dst, tag, rbuf, checked_int(rbytes), MPI_BYTE, src, tag,
                 c->mpi, MPI_STATUS_IGNORE);
}

void p2p_isend(const Comm *c, CommCounters *ctr, const void *buf, size_t bytes, int dst, int tag,
               MPI_Request *req)
{
    count_send(ctr, dst, bytes);
    MPI_Isend(buf, checked_int(bytes), MPI_BYTE, dst, tag, c->mpi, req);
}

void p2p_irecv(const Comm *c, CommCounters *ctr, void *buf, size_t bytes, int src, int tag,
               MPI_Request *req)
{
    count_recv(ctr, src, bytes);
    MPI_Irecv(buf, checked_int(bytes), MPI_BYTE, src, tag, c->mpi, req);
}
