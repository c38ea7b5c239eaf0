/* comm_impl.h - inside core/comm: payloads, schedules, the engine.
 *
 * Each hand-written algorithm is a *schedule builder*: a small function
 * that lists, for this rank, the exchanges it makes ("send elements
 * [a,b) to rank 3, receive [c,d) from rank 1 and add them in"). One engine
 * runs any schedule, either to the end (blocking calls) or as far as it
 * can without waiting (comm_test). So every algorithm is written once,
 * reads like the textbook, and is non-blocking for free; the FP32/FP16
 * difference lives in one place (the payload), and so does the counting
 * (p2p.c). */
#ifndef DDL_COMM_IMPL_H
#define DDL_COMM_IMPL_H

#include "comm.h"
#include "costmodel.h"

/* ---- payload: the vector being reduced ------------------------------- */

/* What a received range does to the running sums. */
typedef enum AbsorbMode { ABSORB_REDUCE, ABSORB_COPY } AbsorbMode;

typedef struct Payload {
    CommDtype dtype;
    CommReduceOp op;
    size_t count;
    int ranks;            /* divisor for AVG */
    void *user;           /* the caller's buffer */
    float *acc;           /* running FP32 sums: the user buffer itself for FP32 */
    void *wire_in;        /* receive staging, count elements in wire format */
    uint16_t *wire_out;   /* FP16 only: acc rounded to half for sending */
    void *scratch;        /* owns acc (FP16), wire_in, wire_out; grows, never shrinks */
    size_t scratch_bytes;
} Payload;

/* Attach a buffer (FP16: converts it into the FP32 sums). */
void payload_begin(Payload *p, void *buf, size_t count, CommDtype dtype, CommReduceOp op, int ranks);
/* Wire bytes to send for elements [off, off+n) (FP16: rounds them now,
 * and the sums keep the rounded values). */
const void *payload_send_buf(Payload *p, size_t off, size_t n);
/* Where to receive elements [off, off+n) for the given mode. */
void *payload_recv_buf(Payload *p, size_t off, size_t n, AbsorbMode mode);
/* Fold a completed receive into the sums. */
void payload_absorb(Payload *p, size_t off, size_t n, AbsorbMode mode);
/* [off, off+n) now holds complete sums: divide for AVG and, for FP16,
 * round to half here, so the owner keeps exactly what the others will
 * receive and all ranks end bit-identical. */
void payload_finish(Payload *p, size_t off, size_t n);
/* FP16: write the sums back to the caller's halves (exact by then). */
void payload_end(Payload *p);
void payload_free(Payload *p);
/* acc[i] += in[i]: the FP32 reduction every algorithm runs (and the one
 * cost_measure_gamma times). */
void reduce_add_fp32(float *restrict acc, const float *restrict in, size_t n);
size_t payload_elem_bytes(CommDtype dtype);

/* ---- schedules ---------------------------------------------------------- */

typedef enum StepKind {
    STEP_XCHG,        /* MPI_Sendrecv: send a range to dst, receive a range from src
                         (either may be MPI_PROC_NULL), absorb */
    STEP_ISEND,       /* post MPI_Isend of a range */
    STEP_IRECV,       /* post MPI_Irecv of a range into receive slot `id` */
    STEP_WAIT_RECV,   /* complete receive slot `id`, absorb it */
    STEP_WAIT_SENDS,  /* complete every posted send (before their source is overwritten) */
    STEP_FINISH       /* the range holds complete sums (payload_finish) */
} StepKind;

typedef struct Step {
    StepKind kind;
    AbsorbMode mode;
    int dst, src;     /* peer ranks (ISEND: dst; IRECV, WAIT_RECV: src) */
    int id;           /* receive slot */
    size_t soff, sn;  /* range sent */
    size_t roff, rn;  /* range received / finished */
} Step;

typedef struct Schedule {
    Step *steps;
    int n, cap;
    int nrecv_slots;
    int *slot_step;       /* receive slot -> index of its STEP_IRECV */
    int cap_slots;
} Schedule;

void sched_reset(Schedule *s);
void sched_free(Schedule *s);
void sched_xchg(Schedule *s, int dst, size_t soff, size_t sn, int src, size_t roff, size_t rn,
                AbsorbMode mode);
void sched_send(Schedule *s, int dst, size_t off, size_t n);
void sched_recv(Schedule *s, int src, size_t off, size_t n, AbsorbMode mode);
void sched_isend(Schedule *s, int dst, size_t off, size_t n);
int sched_irecv(Schedule *s, int src, size_t off, size_t n, AbsorbMode mode); /* returns the slot */
void sched_wait_recv(Schedule *s, int slot);
void sched_wait_sends(Schedule *s);
void sched_finish(Schedule *s, size_t off, size_t n);

/* Elements of `count` split into `nblocks` near-equal blocks (the first
 * count % nblocks blocks have one more): the range covering blocks
 * [first, first + nblocks_in_range). */
typedef struct Range { size_t off, n; } Range;
Range block_range(size_t count, int nblocks, int first, int nblocks_in_range);

/* Non-power-of-two ranks, MPICH style: with pof2 the largest power of two
 * <= size and rem = size - pof2, ranks 0..2*rem-1 pair up; each even one
 * hands its vector to the odd one above it and sits out (newrank -1), the
 * others are renumbered 0..pof2-1. */
typedef struct Fold { int pof2, rem, newrank; } Fold;
Fold fold_make(int rank, int size);
int fold_real_rank(const Fold *f, int newrank);
void sched_fold_in(Schedule *s, const Fold *f, int rank, size_t count);
void sched_fold_out(Schedule *s, const Fold *f, int rank, size_t count);

/* ---- the algorithms: one row each (algs.def lists them) --------------- */

/* What a schedule builder is told about the call. */
typedef struct AlgShape {
    int rank, size;
    size_t count;            /* elements */
    size_t segment_elems;    /* ring_async's segments, in elements (>= 1) */
} AlgShape;

/* An algorithm, as its alg_<name>.c defines it (comm_alg_<name>). */
typedef struct CommAlgRow {
    const char *name;        /* what --alg takes */
    const char *description; /* one line for legends and READMEs */
    /* Appends this rank's steps to s. NULL: a baseline without a schedule
     * (mpi, nccl: comm.c calls them by their enumerators). */
    void (*build)(Schedule *s, const AlgShape *x);
    /* The alpha-beta-gamma coefficients for `bytes` on p >= 2 ranks
     * (costmodel.h). NULL: no formula (mpi, nccl: the library picks). */
    CostTerms (*cost)(int p, double bytes, double segment_bytes);
    /* Closed-form traffic (comm_alg_traffic) for count >= 1 elements of
     * elem_bytes each. Every row with a schedule has one. */
    CommTraffic (*traffic)(const AlgShape *x, size_t elem_bytes);
} CommAlgRow;

#define COMM_HOST_ALG(NAME, name) extern const CommAlgRow comm_alg_##name;
#define COMM_DEVICE_ALG(NAME, name) extern const CommAlgRow comm_alg_##name;
#include "algs.def"
#undef COMM_HOST_ALG
#undef COMM_DEVICE_ALG

/* The row of alg (algs.c's table); NULL for a value outside the enum. */
const CommAlgRow *comm_alg_row(CommAlg alg);
/* ring_async's segment in elements: segment_bytes / elem_bytes, at least 1. */
size_t comm_segment_elems(size_t segment_bytes, size_t elem_bytes);

/* floor(log2 p) and ceil(log2 p), p >= 1: the rounds of the tree-shaped
 * algorithms, for their cost and traffic formulas. */
static inline int floor_log2(int p) { int l = 0; while ((2 << l) <= p) l++; return l; }
static inline int ceil_log2(int p) { int l = 0; while ((1 << l) < p) l++; return l; }

/* The builders of lab2's exercises keep the signature their skeletons
 * (labs/lab2/exercises) and the grader's tapes use; their rows live in
 * alg_<name>_row.c, because a student's file replaces alg_<name>.o whole. */
void build_ring(Schedule *s, int rank, int size, size_t count);
void build_recdoubling(Schedule *s, int rank, int size, size_t count);

/* ---- counted point-to-point (p2p.c): the only place messages are made -- */

void p2p_sendrecv(const Comm *c, CommCounters *ctr, const void *sbuf, size_t sbytes, int dst, void *rbuf,
                  size_t rbytes, int src, int tag);
void p2p_isend(const Comm *c, CommCounters *ctr, const void *buf, size_t bytes, int dst, int tag,
               MPI_Request *req);
void p2p_irecv(const Comm *c, CommCounters *ctr, void *buf, size_t bytes, int src, int tag,
               MPI_Request *req);

/* ---- requests and the engine (engine.c) ------------------------------- */

struct CommRequest {
    Comm *comm;
    CommAlg alg;
    bool active;          /* started and not yet completed */
    int tag;
    Payload pay;
    Schedule sched;
    int pc;               /* next step */
    bool xchg_posted;     /* a STEP_XCHG run non-blocking has its requests out */
    MPI_Request xchg_req[2];
    MPI_Request *recv_req; int cap_recv;
    MPI_Request *send_req; int nsend, cap_send;
    MPI_Request mpi_req;  /* COMM_ALG_MPI: the MPI_Iallreduce */
    /* A buffer on the wrong side for the algorithm (stage.c): the caller's
     * buffer while its copy is reduced (NULL: not staged), and the copies. */
    void *user;
    size_t user_bytes;
    void *host_stage, *dev_stage;       /* page-locked host / device, grown on demand */
    size_t host_stage_bytes, dev_stage_bytes;
    void *nccl_done;                    /* nccl: event after the allreduce */
    void *kernels_done;                 /* CUDA-aware mpi: event after the kernels that wrote the buffer */
};

/* Run the schedule from r->pc: to the end when `block`, else until a step
 * would wait. Returns true when the schedule is done. */
bool engine_run(CommRequest *r, bool block);

/* Staging between the backend's device memory and the host (stage.c).
 * stage_to_host: a device buffer's copy in page-locked host memory (the
 * buffer itself when it is host memory); stage_to_device: a host buffer's
 * copy in device memory. stage_back copies the result to the caller's
 * buffer, if one was staged. */
void *stage_to_host(CommRequest *r, void *buf, size_t bytes);
void *stage_to_device(CommRequest *r, void *buf, size_t bytes);
void stage_back(CommRequest *r);
/* CUDA-aware MPI's blocking MPI_Allreduce takes this buffer as it is
 * (Comm.mpi_device, FP32, device memory): true after waiting for the
 * kernels that wrote it (an event on their stream, not the whole device). */
bool stage_mpi_direct(CommRequest *r, const void *buf, CommDtype dtype);
void stage_free(CommRequest *r);

/* NCCL (alg_nccl.c): queued on the Comm's stream, done at its event. */
void nccl_start(CommRequest *r, void *buf, size_t count, CommDtype dtype, CommReduceOp op);
bool nccl_test(CommRequest *r);
void nccl_finish(CommRequest *r);
void nccl_comm_free(Comm *c);

/* The MPI baseline (alg_mpi.c). */
void mpi_allreduce_blocking(Comm *c, void *buf, size_t count, CommDtype dtype, CommReduceOp op);
void mpi_iallreduce_start(CommRequest *r, void *buf, size_t count, CommDtype dtype);
/* AVG after the sum (MPI has no average op). */
void mpi_allreduce_average(void *buf, size_t count, CommDtype dtype, int ranks);
MPI_Op mpi_half_sum_op_create(void);

#endif
