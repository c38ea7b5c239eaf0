/* Exercise (lab2): the ring allreduce's schedule.
 * Replaces core/comm/alg_ring.c in `make lab2 IMPL=student` and in
 * `make grade` (item "ring"; tests: mpi_comm --alg ring at 1..8 ranks).
 *
 * You do not call MPI yourself: you list, for this rank, the exchanges it
 * makes, and ddlab's engine runs them (blocking or not, FP32 or FP16, with
 * counted bytes). The API is in core/comm/comm_impl.h:
 *   block_range(count, size, b, 1)  elements [off, off+n) of block b when
 *                                   count is cut into `size` near-equal
 *                                   blocks (the first count % size are one
 *                                   element longer);
 *   sched_xchg(s, dst, soff, sn, src, roff, rn, mode)
 *                                   send [soff, soff+sn) to dst and receive
 *                                   [roff, roff+rn) from src at once
 *                                   (MPI_Sendrecv); ABSORB_REDUCE adds what
 *                                   arrives into the sums, ABSORB_COPY
 *                                   overwrites them;
 *   sched_finish(s, off, n)         [off, off+n) now holds the complete sum
 *                                   (call it exactly once per element this
 *                                   rank completes itself: AVG divides there).
 *
 * Contract: build_ring(s, rank, size, count) appends to s the steps of the
 * ring allreduce (Patarasuk & Yuan): cut the vector into `size` blocks;
 * reduce-scatter: in step k = 0..size-2, rank r sends block (r-k) mod size
 * to its right neighbour (r+1) and adds block (r-k-1) mod size received
 * from its left neighbour (r-1); afterwards it holds the complete sum of
 * block (r+1) mod size (finish it); allgather: size-1 more steps pass the
 * complete blocks around with ABSORB_COPY (step k sends block (r+1-k) and
 * receives block (r-k)). Must work for any size >= 1 (size 1: no steps)
 * and any count, including 0 and count < size (empty blocks). The grader
 * checks the result bit for bit against the ring-order sum at 1..8 ranks,
 * on every rank, for FP32 and FP16, SUM and AVG. */
#include <stdio.h>
#include <stdlib.h>

#include "comm/comm_impl.h"

void build_ring(Schedule *s, int rank, int size, size_t count)
{
    /* TODO: your code here (delete the two lines below). */
    fprintf(stderr, "exercise ring not implemented\n");
    abort();
}
