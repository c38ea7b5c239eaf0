/* schedule.c - building schedules: the step list, block ranges, and the
 * non-power-of-two fold shared by recursive doubling and Rabenseifner. */
#include "comm_impl.h"

#include <stdlib.h>
#include <string.h>

#include "../util/common.h"

void sched_reset(Schedule *s)
{
    s->n = 0;
    s->nrecv_slots = 0;
}

void sched_free(Schedule *s)
{
    free(s->steps);
    free(s->slot_step);
    memset(s, 0, sizeof *s);
}

static Step *push(Schedule *s, StepKind kind)
{
    s->steps = ddl_grow(s->steps, s->n, &s->cap, sizeof *s->steps, 64, "a schedule's steps");
    Step *st = &s->steps[s->n++];
    memset(st, 0, sizeof *st);
    st->kind = kind;
    st->dst = st->src = MPI_PROC_NULL;
    st->id = -1;
    return st;
}

void sched_xchg(Schedule *s, int dst, size_t soff, size_t sn, int src, size_t roff, size_t rn,
                AbsorbMode mode)
{
    Step *st = push(s, STEP_XCHG);
    st->dst = dst; st->soff = soff; st->sn = sn;
    st->src = src; st->roff = roff; st->rn = rn;
    st->mode = mode;
}

void sched_send(Schedule *s, int dst, size_t off, size_t n)
{
    sched_xchg(s, dst, off, n, MPI_PROC_NULL, 0, 0, ABSORB_COPY);
}

void sched_recv(Schedule *s, int src, size_t off, size_t n, AbsorbMode mode)
{
    sched_xchg(s, MPI_PROC_NULL, 0, 0, src, off, n, mode);
}

void sched_isend(Schedule *s, int dst, size_t off, size_t n)
{
    Step *st = push(s, STEP_ISEND);
    st->dst = dst; st->soff = off; st->sn = n;
}

int sched_irecv(Schedule *s, int src, size_t off, size_t n, AbsorbMode mode)
{
    s->slot_step = ddl_grow(s->slot_step, s->nrecv_slots, &s->cap_slots, sizeof *s->slot_step, 64,
                            "a schedule's receives");
    Step *st = push(s, STEP_IRECV);
    st->src = src; st->roff = off; st->rn = n; st->mode = mode;
    st->id = s->nrecv_slots++;
    s->slot_step[st->id] = s->n - 1;
    return st->id;
}

void sched_wait_recv(Schedule *s, int slot)
{
    /* The wait repeats the receive's range and mode so the engine can
     * absorb without looking back. */
    if (slot < 0 || slot >= s->nrecv_slots)
        ddl_die("schedule waits on receive slot %d that was never posted", slot);
    Step copy = s->steps[s->slot_step[slot]];
    Step *st = push(s, STEP_WAIT_RECV);
    *st = copy;
    st->kind = STEP_WAIT_RECV;
}

void sched_wait_sends(Schedule *s) { push(s, STEP_WAIT_SENDS); }

void sched_finish(Schedule *s, size_t off, size_t n)
{
    Step *st = push(s, STEP_FINISH);
    st->roff = off; st->rn = n;
}

Range block_range(size_t count, int nblocks, int first, int nblocks_in_range)
{
    size_t base = count / (size_t)nblocks, extra = count % (size_t)nblocks;
    size_t lo = (size_t)first, hi = (size_t)(first + nblocks_in_range);
    size_t off_lo = lo * base + DDL_MIN(lo, extra);
    size_t off_hi = hi * base + DDL_MIN(hi, extra);
    Range r = { off_lo, off_hi - off_lo };
    return r;
}

Fold fold_make(int rank, int size)
{
    Fold f;
    f.pof2 = 1;
    while (f.pof2 * 2 <= size) f.pof2 *= 2;
    f.rem = size - f.pof2;
    if (rank < 2 * f.rem) f.newrank = (rank % 2 == 0) ? -1 : rank / 2;
    else f.newrank = rank - f.rem;
    return f;
}

int fold_real_rank(const Fold *f, int newrank)
{
    return newrank < f->rem ? 2 * newrank + 1 : newrank + f->rem;
}

void sched_fold_in(Schedule *s, const Fold *f, int rank, size_t count)
{
    if (rank >= 2 * f->rem) return;
    if (rank % 2 == 0) sched_send(s, rank + 1, 0, count);
    else sched_recv(s, rank - 1, 0, count, ABSORB_REDUCE);
}

void sched_fold_out(Schedule *s, const Fold *f, int rank, size_t count)
{
    if (rank >= 2 * f->rem) return;
    if (rank % 2 == 0) sched_recv(s, rank + 1, 0, count, ABSORB_COPY);
    else sched_send(s, rank - 1, 0, count);
}
