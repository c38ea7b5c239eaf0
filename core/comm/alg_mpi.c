/* alg_mpi.c - the baseline: MPI_Allreduce / MPI_Iallreduce, with Open MPI
 * choosing the algorithm (coll/tuned's decision rules). MPI has no half
 * type in Open MPI 4.1, so FP16 travels as MPI_UINT16_T with a
 * user-defined sum that adds in FP32 and rounds once per addition. */
#include "comm_impl.h"

#include <limits.h>

#include "../util/common.h"
#include "../util/half.h"

static void half_sum(void *in, void *inout, int *len, MPI_Datatype *type)
{
    (void)type;
    const uint16_t *a = in;
    uint16_t *b = inout;
    for (int i = 0; i < *len; i++) b[i] = half_from_float(half_to_float(a[i]) + half_to_float(b[i]));
}

MPI_Op mpi_half_sum_op_create(void)
{
    MPI_Op op;
    MPI_Op_create(half_sum, 1 /* commutative */, &op);
    return op;
}

static int checked_count(size_t count)
{
    if (count > (size_t)INT_MAX) ddl_die("MPI_Allreduce of %zu elements exceeds MPI's int count", count);
    return (int)count;
}

static MPI_Datatype mpi_type(CommDtype dtype) { return dtype == COMM_FP16 ? MPI_UINT16_T : MPI_FLOAT; }
static MPI_Op mpi_sum(const Comm *c, CommDtype dtype) { return dtype == COMM_FP16 ? c->half_sum : MPI_SUM; }

void mpi_allreduce_average(void *buf, size_t count, CommDtype dtype, int ranks)
{
    /* Same division as payload_finish, so the baseline averages alike. */
    if (dtype == COMM_FP32) {
        float *x = buf;
        for (size_t i = 0; i < count; i++) x[i] /= (float)ranks;
    } else {
        uint16_t *h = buf;
        for (size_t i = 0; i < count; i++) h[i] = half_from_float(half_to_float(h[i]) / (float)ranks);
    }
}

/* MPI_IN_PLACE, except on a simulated rank's shared block: SimGrid's
 * in-place allreduce first copies the buffer into a private one of the
 * full size on every rank (1024 ranks x 64 MiB = 64 GiB), while a shared
 * block given as its own send buffer costs nothing and its contents are
 * meaningless anyway. */
static const void *send_of(const void *buf) { return ddl_sim_is_shared(buf) ? buf : MPI_IN_PLACE; }

void mpi_allreduce_blocking(Comm *c, void *buf, size_t count, CommDtype dtype, CommReduceOp op)
{
    MPI_Allreduce(send_of(buf), buf, checked_count(count), mpi_type(dtype), mpi_sum(c, dtype), c->mpi);
    if (op == COMM_AVG) mpi_allreduce_average(buf, count, dtype, c->size);
}

void mpi_iallreduce_start(CommRequest *r, void *buf, size_t count, CommDtype dtype)
{
    MPI_Iallreduce(send_of(buf), buf, checked_count(count), mpi_type(dtype), mpi_sum(r->comm, dtype),
                   r->comm->mpi, &r->mpi_req);
}

/* The baseline: no schedule (comm.c calls the functions above), no
 * formula (Open MPI picks its algorithm at run time), its traffic inside
 * Open MPI (monitor.h). */
const CommAlgRow comm_alg_mpi = { "mpi", "MPI_Allreduce (Open MPI's choice)", NULL, NULL, NULL };
