/* mpistub.c - the single-rank MPI stand-in declared in core/mpistub/mpi.h
 * (read its comment first): for single-process builds on machines without
 * an MPI library, e.g. `make gpu-check` (mk/gpu-check.mk). Never part of
 * the normal build; it lives in src/ so that the Makefile's core/x/y.c
 * wildcard does not put it into the normal libddl.a.
 *
 * One process is rank 0 of every communicator, each of size 1. A call that
 * would need a second rank (a message to or from rank 0 other than a
 * MPI_Sendrecv with itself) stops the program with a message, rather than
 * hang as it would under a real MPI. */
#ifndef _POSIX_C_SOURCE
#define _POSIX_C_SOURCE 200809L /* clock_gettime, gethostname under -std=c11 */
#endif
#include "mpi.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static int g_initialized, g_finalized;
static int g_next_comm = 3;  /* 0 null, 1 world, 2 self */
static int g_next_op = 100;  /* above the predefined operations */

static void stub_fatal(const char *fmt, ...) __attribute__((format(printf, 1, 2), noreturn));
static void stub_fatal(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    fputs("ddlab MPI stub (core/mpistub, one rank): ", stderr);
    vfprintf(stderr, fmt, ap);
    fputc('\n', stderr);
    va_end(ap);
    exit(1);
}

static void need_comm(MPI_Comm comm, const char *fn)
{
    if (comm == MPI_COMM_NULL) stub_fatal("%s on MPI_COMM_NULL", fn);
}

static void need_root(int root, const char *fn)
{
    if (root != 0) stub_fatal("%s with root %d: the only rank is 0", fn, root);
}

static size_t type_bytes(MPI_Datatype t, const char *fn)
{
    switch (t) {
    case MPI_CHAR:
    case MPI_BYTE:
    case MPI_C_BOOL: return 1;
    case MPI_UINT16_T: return 2;
    case MPI_INT:
    case MPI_UNSIGNED:
    case MPI_FLOAT:
    case MPI_UINT32_T:
    case MPI_INT32_T: return 4;
    case MPI_LONG: return sizeof(long);
    case MPI_UNSIGNED_LONG: return sizeof(unsigned long);
    case MPI_LONG_LONG: return sizeof(long long);
    case MPI_DOUBLE:
    case MPI_UINT64_T:
    case MPI_INT64_T: return 8;
    default: stub_fatal("%s: unknown datatype %d", fn, (int)t);
    }
}

static size_t span(int count, MPI_Datatype t, const char *fn)
{
    if (count < 0) stub_fatal("%s: negative count %d", fn, count);
    return (size_t)count * type_bytes(t, fn);
}

/* The one rank's contribution, from send to recv (MPI_IN_PLACE: already there). */
static void copy_in(const void *send, void *recv, size_t bytes)
{
    if (send != MPI_IN_PLACE && bytes && send != recv) memmove(recv, send, bytes);
}

/* Gather, Allgather, Scatter and Gatherv with one rank: the sent block
 * lands at `recv`, and must fit the block the receiver expects. */
static void copy_block(const void *send, int scount, MPI_Datatype stype, void *recv, int rcount,
                       MPI_Datatype rtype, const char *fn)
{
    size_t bytes = span(scount, stype, fn);
    if (bytes > span(rcount, rtype, fn)) stub_fatal("%s: %d sent elements do not fit %d received", fn, scount, rcount);
    copy_in(send, recv, bytes);
}

static void empty_status(MPI_Status *st, int source)
{
    if (st == MPI_STATUS_IGNORE) return;
    st->MPI_SOURCE = source;
    st->MPI_TAG = MPI_ANY_TAG;
    st->MPI_ERROR = MPI_SUCCESS;
    st->count_bytes = 0;
}

static void no_peer(const char *fn, const char *dir, int rank)
{
    stub_fatal("%s %s rank %d: single-rank builds have no peer to exchange messages with (with one rank it "
               "could only deadlock); this program needs a real MPI (build it with the normal Makefile)",
               fn, dir, rank);
}

/* ---- environment ---- */

int MPI_Init(int *argc, char ***argv)
{
    (void)argc, (void)argv;
    if (g_initialized) stub_fatal("MPI_Init called twice");
    g_initialized = 1;
    return MPI_SUCCESS;
}

int MPI_Init_thread(int *argc, char ***argv, int required, int *provided)
{
    *provided = required;
    return MPI_Init(argc, argv);
}

int MPI_Initialized(int *flag)
{
    *flag = g_initialized;
    return MPI_SUCCESS;
}

int MPI_Finalize(void)
{
    g_finalized = 1;
    return MPI_SUCCESS;
}

int MPI_Finalized(int *flag)
{
    *flag = g_finalized;
    return MPI_SUCCESS;
}

int MPI_Abort(MPI_Comm comm, int errorcode)
{
    (void)comm;
    fprintf(stderr, "ddlab MPI stub: MPI_Abort(errorcode %d)\n", errorcode);
    exit(errorcode ? errorcode : 1); /* an abort never reads as success */
}

double MPI_Wtime(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

int MPI_Get_processor_name(char *name, int *resultlen)
{
    if (gethostname(name, MPI_MAX_PROCESSOR_NAME) != 0) snprintf(name, MPI_MAX_PROCESSOR_NAME, "localhost");
    name[MPI_MAX_PROCESSOR_NAME - 1] = '\0';
    *resultlen = (int)strlen(name);
    return MPI_SUCCESS;
}

int MPI_Get_library_version(char *version, int *resultlen)
{
    int n = snprintf(version, MPI_MAX_LIBRARY_VERSION_STRING,
                     "ddlab single-rank MPI stub (core/mpistub: one process, no MPI library)");
    *resultlen = n < MPI_MAX_LIBRARY_VERSION_STRING ? n : MPI_MAX_LIBRARY_VERSION_STRING - 1;
    return MPI_SUCCESS;
}

/* ---- communicators, types, operations ---- */

int MPI_Comm_rank(MPI_Comm comm, int *rank)
{
    need_comm(comm, "MPI_Comm_rank");
    *rank = 0;
    return MPI_SUCCESS;
}

int MPI_Comm_size(MPI_Comm comm, int *size)
{
    need_comm(comm, "MPI_Comm_size");
    *size = 1;
    return MPI_SUCCESS;
}

int MPI_Comm_dup(MPI_Comm comm, MPI_Comm *newcomm)
{
    need_comm(comm, "MPI_Comm_dup");
    *newcomm = g_next_comm++;
    return MPI_SUCCESS;
}

int MPI_Comm_split(MPI_Comm comm, int color, int key, MPI_Comm *newcomm)
{
    (void)key;
    need_comm(comm, "MPI_Comm_split");
    *newcomm = color == MPI_UNDEFINED ? MPI_COMM_NULL : g_next_comm++;
    return MPI_SUCCESS;
}

int MPI_Comm_split_type(MPI_Comm comm, int split_type, int key, MPI_Info info, MPI_Comm *newcomm)
{
    (void)key, (void)info;
    need_comm(comm, "MPI_Comm_split_type");
    *newcomm = split_type == MPI_UNDEFINED ? MPI_COMM_NULL : g_next_comm++;
    return MPI_SUCCESS;
}

int MPI_Comm_free(MPI_Comm *comm)
{
    if (*comm == MPI_COMM_NULL || *comm == MPI_COMM_WORLD || *comm == MPI_COMM_SELF) return MPI_ERR_COMM;
    *comm = MPI_COMM_NULL;
    return MPI_SUCCESS;
}

/* Every communicator is the same world of one process: the same handle
 * is identical, two handles congruent (same group, same order). */
int MPI_Comm_compare(MPI_Comm a, MPI_Comm b, int *result)
{
    need_comm(a, "MPI_Comm_compare");
    need_comm(b, "MPI_Comm_compare");
    *result = a == b ? MPI_IDENT : MPI_CONGRUENT;
    return MPI_SUCCESS;
}

int MPI_Type_size(MPI_Datatype datatype, int *size)
{
    *size = (int)type_bytes(datatype, "MPI_Type_size");
    return MPI_SUCCESS;
}

int MPI_Op_create(MPI_User_function *user_fn, int commute, MPI_Op *op)
{
    (void)user_fn, (void)commute; /* one contribution: never applied */
    *op = g_next_op++;
    return MPI_SUCCESS;
}

int MPI_Op_free(MPI_Op *op)
{
    *op = MPI_OP_NULL;
    return MPI_SUCCESS;
}

/* ---- collectives: the one rank's data is the result ---- */

int MPI_Barrier(MPI_Comm comm)
{
    need_comm(comm, "MPI_Barrier");
    return MPI_SUCCESS;
}

int MPI_Bcast(void *buffer, int count, MPI_Datatype datatype, int root, MPI_Comm comm)
{
    (void)buffer;
    need_comm(comm, "MPI_Bcast");
    need_root(root, "MPI_Bcast");
    span(count, datatype, "MPI_Bcast");
    return MPI_SUCCESS;
}

int MPI_Reduce(const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype, MPI_Op op, int root,
               MPI_Comm comm)
{
    (void)op;
    need_comm(comm, "MPI_Reduce");
    need_root(root, "MPI_Reduce");
    copy_in(sendbuf, recvbuf, span(count, datatype, "MPI_Reduce"));
    return MPI_SUCCESS;
}

int MPI_Allreduce(const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype, MPI_Op op, MPI_Comm comm)
{
    (void)op;
    need_comm(comm, "MPI_Allreduce");
    copy_in(sendbuf, recvbuf, span(count, datatype, "MPI_Allreduce"));
    return MPI_SUCCESS;
}

int MPI_Iallreduce(const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype, MPI_Op op, MPI_Comm comm,
                   MPI_Request *request)
{
    MPI_Allreduce(sendbuf, recvbuf, count, datatype, op, comm);
    *request = MPI_REQUEST_NULL; /* complete already */
    return MPI_SUCCESS;
}

int MPI_Gather(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf, int recvcount,
               MPI_Datatype recvtype, int root, MPI_Comm comm)
{
    need_comm(comm, "MPI_Gather");
    need_root(root, "MPI_Gather");
    if (sendbuf != MPI_IN_PLACE) copy_block(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, "MPI_Gather");
    return MPI_SUCCESS;
}

int MPI_Gatherv(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf, const int recvcounts[],
                const int displs[], MPI_Datatype recvtype, int root, MPI_Comm comm)
{
    need_comm(comm, "MPI_Gatherv");
    need_root(root, "MPI_Gatherv");
    if (sendbuf == MPI_IN_PLACE) return MPI_SUCCESS;
    copy_block(sendbuf, sendcount, sendtype, (char *)recvbuf + span(displs[0], recvtype, "MPI_Gatherv"), recvcounts[0],
               recvtype, "MPI_Gatherv");
    return MPI_SUCCESS;
}

int MPI_Allgather(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf, int recvcount,
                  MPI_Datatype recvtype, MPI_Comm comm)
{
    need_comm(comm, "MPI_Allgather");
    if (sendbuf == MPI_IN_PLACE) return MPI_SUCCESS;
    copy_block(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, "MPI_Allgather");
    return MPI_SUCCESS;
}

int MPI_Scatter(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf, int recvcount,
                MPI_Datatype recvtype, int root, MPI_Comm comm)
{
    need_comm(comm, "MPI_Scatter");
    need_root(root, "MPI_Scatter");
    if (recvbuf == MPI_IN_PLACE) return MPI_SUCCESS;
    copy_block(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, "MPI_Scatter");
    return MPI_SUCCESS;
}

/* ---- point-to-point: only MPI_PROC_NULL and a Sendrecv with itself ---- */

int MPI_Send(const void *buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm)
{
    (void)buf, (void)tag;
    need_comm(comm, "MPI_Send");
    span(count, datatype, "MPI_Send");
    if (dest != MPI_PROC_NULL) no_peer("MPI_Send", "to", dest);
    return MPI_SUCCESS;
}

int MPI_Recv(void *buf, int count, MPI_Datatype datatype, int source, int tag, MPI_Comm comm, MPI_Status *status)
{
    (void)buf, (void)tag;
    need_comm(comm, "MPI_Recv");
    span(count, datatype, "MPI_Recv");
    if (source != MPI_PROC_NULL) no_peer("MPI_Recv", "from", source);
    empty_status(status, MPI_PROC_NULL);
    return MPI_SUCCESS;
}

int MPI_Sendrecv(const void *sendbuf, int sendcount, MPI_Datatype sendtype, int dest, int sendtag, void *recvbuf,
                 int recvcount, MPI_Datatype recvtype, int source, int recvtag, MPI_Comm comm, MPI_Status *status)
{
    need_comm(comm, "MPI_Sendrecv");
    size_t sbytes = span(sendcount, sendtype, "MPI_Sendrecv"), rbytes = span(recvcount, recvtype, "MPI_Sendrecv");
    if (dest == MPI_PROC_NULL && source == MPI_PROC_NULL) {
        empty_status(status, MPI_PROC_NULL);
        return MPI_SUCCESS;
    }
    if (dest != 0 || source != 0 || (recvtag != MPI_ANY_TAG && recvtag != sendtag))
        stub_fatal("MPI_Sendrecv to %d (tag %d) from %d (tag %d): with one rank only an exchange with itself "
                   "(dest = source = 0, matching tags) completes", dest, sendtag, source, recvtag);
    if (sbytes > rbytes) stub_fatal("MPI_Sendrecv with itself: %zu bytes sent, %zu bytes of room", sbytes, rbytes);
    if (sbytes) memmove(recvbuf, sendbuf, sbytes);
    if (status != MPI_STATUS_IGNORE) {
        status->MPI_SOURCE = 0;
        status->MPI_TAG = sendtag;
        status->MPI_ERROR = MPI_SUCCESS;
        status->count_bytes = (int)sbytes;
    }
    return MPI_SUCCESS;
}

int MPI_Isend(const void *buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm,
              MPI_Request *request)
{
    MPI_Send(buf, count, datatype, dest, tag, comm); /* only MPI_PROC_NULL gets here */
    *request = MPI_REQUEST_NULL;
    return MPI_SUCCESS;
}

int MPI_Irecv(void *buf, int count, MPI_Datatype datatype, int source, int tag, MPI_Comm comm,
              MPI_Request *request)
{
    MPI_Recv(buf, count, datatype, source, tag, comm, MPI_STATUS_IGNORE);
    *request = MPI_REQUEST_NULL;
    return MPI_SUCCESS;
}

int MPI_Probe(int source, int tag, MPI_Comm comm, MPI_Status *status)
{
    (void)tag;
    need_comm(comm, "MPI_Probe");
    if (source != MPI_PROC_NULL) no_peer("MPI_Probe", "for a message from", source);
    empty_status(status, MPI_PROC_NULL);
    return MPI_SUCCESS;
}

/* Every request the stub hands out is complete (MPI_REQUEST_NULL). */
static void finish(MPI_Request *r, MPI_Status *status, const char *fn)
{
    if (*r != MPI_REQUEST_NULL) stub_fatal("%s: request %d was not made by this stub", fn, (int)*r);
    empty_status(status, MPI_ANY_SOURCE);
}

int MPI_Wait(MPI_Request *request, MPI_Status *status)
{
    finish(request, status, "MPI_Wait");
    return MPI_SUCCESS;
}

int MPI_Waitall(int count, MPI_Request array_of_requests[], MPI_Status array_of_statuses[])
{
    for (int i = 0; i < count; i++)
        finish(&array_of_requests[i], array_of_statuses == MPI_STATUSES_IGNORE ? MPI_STATUS_IGNORE
                                                                               : &array_of_statuses[i],
               "MPI_Waitall");
    return MPI_SUCCESS;
}

int MPI_Test(MPI_Request *request, int *flag, MPI_Status *status)
{
    finish(request, status, "MPI_Test");
    *flag = 1;
    return MPI_SUCCESS;
}

int MPI_Testall(int count, MPI_Request array_of_requests[], int *flag, MPI_Status array_of_statuses[])
{
    MPI_Waitall(count, array_of_requests, array_of_statuses);
    *flag = 1;
    return MPI_SUCCESS;
}

/* ---- MPI_T: no performance variables ---- */

int MPI_T_init_thread(int required, int *provided)
{
    *provided = required;
    return MPI_SUCCESS;
}

int MPI_T_finalize(void) { return MPI_SUCCESS; }

int MPI_T_pvar_get_num(int *num_pvar)
{
    *num_pvar = 0;
    return MPI_SUCCESS;
}

int MPI_T_pvar_get_info(int pvar_index, char *name, int *name_len, int *verbosity, int *var_class,
                        MPI_Datatype *datatype, MPI_T_enum *enumtype, char *desc, int *desc_len, int *bind,
                        int *readonly, int *continuous, int *atomic)
{
    (void)pvar_index, (void)name, (void)name_len, (void)verbosity, (void)var_class, (void)datatype;
    (void)enumtype, (void)desc, (void)desc_len, (void)bind, (void)readonly, (void)continuous, (void)atomic;
    return MPI_T_ERR_INVALID_INDEX;
}

int MPI_T_pvar_session_create(MPI_T_pvar_session *session)
{
    *session = 1;
    return MPI_SUCCESS;
}

int MPI_T_pvar_session_free(MPI_T_pvar_session *session)
{
    *session = MPI_T_PVAR_SESSION_NULL;
    return MPI_SUCCESS;
}

int MPI_T_pvar_handle_alloc(MPI_T_pvar_session session, int pvar_index, void *obj_handle, MPI_T_pvar_handle *handle,
                            int *count)
{
    (void)session, (void)pvar_index, (void)obj_handle, (void)handle, (void)count;
    return MPI_T_ERR_INVALID_INDEX;
}

int MPI_T_pvar_start(MPI_T_pvar_session session, MPI_T_pvar_handle handle)
{
    (void)session, (void)handle;
    return MPI_T_ERR_INVALID_HANDLE;
}

int MPI_T_pvar_read(MPI_T_pvar_session session, MPI_T_pvar_handle handle, void *buf)
{
    (void)session, (void)handle, (void)buf;
    return MPI_T_ERR_INVALID_HANDLE;
}
