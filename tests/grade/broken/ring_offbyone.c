/* grade-broken: lab2/ring - off-by-one chunking: blocks of count / size
 * elements (rounded down), so the last count % size elements are never
 * reduced. Right whenever size divides count, wrong otherwise: only the
 * odd sizes in the tests catch it. */
#include "comm/comm_impl.h"

static int wrap(int i, int size) { return ((i % size) + size) % size; }

static Range chunk(size_t count, int size, int b)
{
    size_t n = count / (size_t)size;
    return (Range){ (size_t)b * n, n };
}

void build_ring(Schedule *s, int rank, int size, size_t count)
{
    int right = wrap(rank + 1, size), left = wrap(rank - 1, size);
    for (int step = 0; step < size - 1; step++) {
        Range send = chunk(count, size, wrap(rank - step, size));
        Range recv = chunk(count, size, wrap(rank - step - 1, size));
        sched_xchg(s, right, send.off, send.n, left, recv.off, recv.n, ABSORB_REDUCE);
    }
    Range own = chunk(count, size, wrap(rank + 1, size));
    sched_finish(s, own.off, own.n);
    for (int step = 0; step < size - 1; step++) {
        Range send = chunk(count, size, wrap(rank + 1 - step, size));
        Range recv = chunk(count, size, wrap(rank - step, size));
        sched_xchg(s, right, send.off, send.n, left, recv.off, recv.n, ABSORB_COPY);
    }
}
