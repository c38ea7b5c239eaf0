/* comm.h - allreduce over MPI: hand-written algorithms, MPI's own as the
 * baseline, and exact per-rank traffic counters.
 *
 * A Comm wraps one MPI communicator (a private duplicate, so ddlab's
 * messages never match the caller's). Everything it sends or receives goes
 * through one counting wrapper (p2p.c), so the bytes and messages charged
 * to each algorithm are exact. There is no global state: counters, scratch
 * buffers and the FP16 MPI_Op live in the Comm, so ranks sharing one
 * address space (SimGrid SMPI) stay independent.
 *
 * Algorithms (Thakur, Rabenseifner & Gropp 2005; Patarasuk & Yuan 2009),
 * one line each in algs.def and one row each in alg_<name>.c:
 *   mpi           MPI_Allreduce itself, Open MPI choosing the algorithm.
 *   linear        rank 0 receives every vector, sums in rank order, sends
 *                 the result back to each rank (gather + scatter at a root).
 *   tree          binomial-tree reduce to rank 0, binomial broadcast.
 *   recdoubling   recursive doubling ("butterfly"): log2(p) exchanges of
 *                 the whole vector.
 *   rabenseifner  reduce-scatter by recursive halving, allgather by
 *                 recursive doubling.
 *   ring          reduce-scatter then allgather around a ring, p-1 blocking
 *                 MPI_Sendrecv steps each.
 *   ring_async    the same ring, each block cut into segments sent with
 *                 MPI_Isend/MPI_Irecv as soon as they are reduced, so
 *                 transfers and reductions overlap (the seed's "async ring").
 * Every algorithm works for any rank count (recursive doubling and
 * Rabenseifner fold the ranks beyond the largest power of two into their
 * neighbours first, as MPICH does), any element count (count < ranks
 * included; count 0 returns at once without communicating), in place.
 *
 * Payloads: FP32 (float) or FP16 (IEEE half bit patterns, uint16_t, see
 * half.h). FP16 goes over the wire as halves but is accumulated in FP32:
 * each rank keeps FP32 running sums and only the values it sends are
 * rounded to half.
 *
 * Numerics: SUM or AVG (the sum divided by the rank count, rounded once).
 * After any call, every rank holds bit-identical results. The sum's order
 * depends on the algorithm: linear adds ranks 0,1,..,p-1 left to right;
 * ring block b adds ranks b, b+1, .. (cyclically); the others pair partial
 * sums in a tree. So algorithms agree exactly when the data sum exactly
 * (e.g. small integers) and within float reassociation otherwise.
 *
 * Non-blocking use (DDP buckets in lab3): comm_iallreduce() starts an
 * operation on a CommRequest and returns; comm_test() advances it as far
 * as it can without waiting and says whether it is done; comm_wait()
 * finishes it. No helper thread and no MPI_THREAD_MULTIPLE is needed:
 * progress happens inside comm_test/comm_wait (call comm_test from the
 * gradient-ready hook). Several requests may be in flight on one Comm if
 * every rank starts them in the same order (each gets its own tag).
 *
 * Sub-communicators (lab4 group averaging): comm_split() makes a Comm over
 * a subset of ranks; allreduce with AVG on it averages within the group. */
#ifndef DDL_COMM_H
#define DDL_COMM_H

#include <mpi.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct Backend;

/* COMM_ALG_MPI, COMM_ALG_LINEAR, ..., COMM_ALG_NCCL: one per line of
 * algs.def. The host algorithms come first, in the file's order, and
 * reduce on the host, everywhere: loops over "every algorithm" of a host
 * buffer stop at COMM_ALG_HOST_COUNT, or ask comm_alg_usable. After them,
 * the device ones: NCCL's allreduce on device memory (comm_use_device
 * with a backend that has it: DEVICE=cuda, cuda-emu). */
typedef enum CommAlg {
#define COMM_HOST_ALG(NAME, name) COMM_ALG_##NAME,
#define COMM_DEVICE_ALG(NAME, name)
#include "algs.def"
#undef COMM_HOST_ALG
#undef COMM_DEVICE_ALG
    COMM_ALG_HOST_COUNT,
    COMM_ALG_LAST_HOST = COMM_ALG_HOST_COUNT - 1, /* the device algorithms start at COMM_ALG_HOST_COUNT */
#define COMM_HOST_ALG(NAME, name)
#define COMM_DEVICE_ALG(NAME, name) COMM_ALG_##NAME,
#include "algs.def"
#undef COMM_HOST_ALG
#undef COMM_DEVICE_ALG
    COMM_ALG_COUNT
} CommAlg;

typedef enum CommDtype { COMM_FP32, COMM_FP16 } CommDtype;
typedef enum CommReduceOp { COMM_SUM, COMM_AVG } CommReduceOp;

/* What this rank sent and received, counted when each message is posted
 * (every receive is posted with its exact size). Messages to and from
 * MPI_PROC_NULL are not messages and are not counted. */
typedef struct CommCounters {
    uint64_t calls;
    uint64_t msgs_sent, bytes_sent;
    uint64_t msgs_recv, bytes_recv;
} CommCounters;

typedef struct CommRequest CommRequest;

typedef struct Comm {
    MPI_Comm mpi;                        /* private duplicate (MPI_COMM_NULL: not a member) */
    int rank, size;
    /* Per algorithm, this rank. count[COMM_ALG_MPI] counts calls only: its
     * traffic is inside Open MPI (see monitor.h). */
    CommCounters count[COMM_ALG_COUNT];
    /* ring_async cuts blocks into segments of at most this many bytes. */
    size_t segment_bytes;
    /* Operations started; picks each operation's tag, so concurrent
     * non-blocking operations never match each other's messages. */
    unsigned long started;
    MPI_Op half_sum;                     /* FP16 sum for the MPI baseline */
    CommRequest *blocking;               /* reused by comm_allreduce: warm scratch */
    /* Device buffers (comm_use_device; NULL be: host memory only). */
    const struct Backend *be;
    void *coll;                          /* the backend's NCCL communicator, opened at first use */
    void *coll_stream;                   /* NCCL runs on it, beside the kernels */
    void *coll_ready;                    /* event: the kernels that wrote a buffer are done */
    bool mpi_device;                     /* MPI takes FP32 device buffers (CUDA-aware MPI) */
} Comm;

#define COMM_DEFAULT_SEGMENT_BYTES ((size_t)256 * 1024)

/* Collective over `parent`. Returns 0. Requests made with
 * comm_request_new(c) keep the address c: keep the Comm where it is. */
int comm_init(Comm *c, MPI_Comm parent);
/* Collective: frees the duplicate communicator and scratch. */
void comm_free(Comm *c);
/* Collective over parent: ranks with the same color >= 0 form a new Comm
 * ordered by key; ranks passing color < 0 get an empty Comm (size 0,
 * mpi = MPI_COMM_NULL) that they must still comm_free. */
int comm_split(const Comm *parent, int color, int key, Comm *out);

/* Buffers may be the backend's device memory from now on (not collective;
 * a Comm split from this one inherits it; the CPU backend changes nothing).
 * - Host algorithms (every one but nccl) given a device buffer copy it to
 *   page-locked host memory, reduce there and copy the result back: always
 *   correct, and what a GPU without CUDA-aware MPI needs.
 * - Except blocking mpi on FP32 device buffers when MPI is CUDA-aware
 *   (ddl_mpi_cuda_aware(), on a GPU) and mpi_may_read_device (false:
 *   the driver's DDL_MPI_CUDA_AWARE=0): the
 *   device pointer goes to MPI_Allreduce after the kernels that wrote it
 *   have finished, and AVG scales on the device. Non-blocking mpi
 *   (MPI_Iallreduce) always stages: Open MPI 4.x takes no device buffers
 *   in its non-blocking collectives.
 * - COMM_ALG_NCCL reduces device buffers where they are, on a stream of
 *   its own after the kernels queued so far; a host buffer is copied to
 *   the device and back. Its communicator is made at its first use
 *   (collective, as every allreduce is). */
void comm_use_device(Comm *c, const struct Backend *be, bool mpi_may_read_device);
/* Can alg run on this Comm? Only nccl may not: false, with the reason. */
bool comm_alg_usable(const Comm *c, CommAlg alg, char why[256]);
/* "NCCL 2.28.9", "emulated NCCL (...)"; NULL without one. */
const char *comm_nccl_version(const Comm *c);

/* In-place allreduce of `count` elements of `buf` (float* for FP32,
 * uint16_t* halves for FP16). Collective: every rank passes the same
 * count, dtype, op and alg. */
void comm_allreduce(Comm *c, void *buf, size_t count, CommDtype dtype, CommReduceOp op, CommAlg alg);

/* Non-blocking allreduce. A request is reusable: start, test/wait, start
 * again (its scratch buffers stay allocated until comm_request_free). The
 * buffer must not be touched until the request completes. */
CommRequest *comm_request_new(Comm *c);
void comm_request_free(CommRequest *r);
void comm_iallreduce(CommRequest *r, void *buf, size_t count, CommDtype dtype, CommReduceOp op,
                     CommAlg alg);
/* Advance without blocking; true when the operation has completed (also
 * true for a request that was never started). */
bool comm_test(CommRequest *r);
void comm_wait(CommRequest *r);

/* Collective: true on every rank when any rank passes true. For checks
 * every rank makes (arguments, files), so that all ranks stop together
 * instead of some waiting forever in the next collective. */
bool comm_any(const Comm *c, bool mine);

void comm_counters_reset(Comm *c);
/* Sum over the hand-written algorithms (what ddlab itself sent). */
CommCounters comm_counters_total(const Comm *c);
/* t += a, and a - b (unsigned: a difference that wraps comes back when it
 * is added again), field by field. */
void comm_counters_add(CommCounters *t, const CommCounters *a);
CommCounters comm_counters_minus(CommCounters a, CommCounters b);

/* "mpi", "linear", "tree", "recdoubling", "rabenseifner", "ring", "ring_async", "nccl" */
const char *comm_alg_name(CommAlg alg);
/* Does ddlab run alg as a schedule of its own, with counted traffic?
 * false for the baselines (mpi, nccl), whose traffic is inside MPI or NCCL. */
bool comm_alg_scheduled(CommAlg alg);
/* One line for legends and READMEs. */
const char *comm_alg_description(CommAlg alg);
/* 0 and *out set, or -1 for an unknown name. */
int comm_alg_from_name(const char *name, CommAlg *out);
/* Every name of the table, in its order, joined by sep ("mpi, linear,
 * ..., nccl"), for messages and --help: a new algorithm appears in them
 * by its row alone. Cut to cap. */
void comm_alg_names(char *out, size_t cap, const char *sep);
/* The closed-form traffic of a scheduled algorithm (its row's formula,
 * which tests/mpi_comm_counters.c holds against the counters): what
 * `rank` of `size` sends in one allreduce of `count` elements of dtype
 * (ring_async: segments of segment_bytes), and what all ranks send
 * together. false for the baselines. */
typedef struct CommTraffic {
    long long msgs, bytes;   /* this rank sends; -1: no closed form at this count */
    long long total_bytes;   /* every rank together: always exact */
} CommTraffic;
bool comm_alg_traffic(CommAlg alg, int rank, int size, size_t count, CommDtype dtype, size_t segment_bytes,
                      CommTraffic *out);
const char *comm_dtype_name(CommDtype dtype);   /* "fp32", "fp16" */
size_t comm_dtype_size(CommDtype dtype);        /* 4, 2 */

#endif
