/* tape_schedule.c - record and replay a schedule builder's steps (see
 * tape_schedule.h). The replay hands the schedule to ddlab's engine, which
 * trusts its builders: so every step is checked before it is added (a
 * known kind and absorb mode, peers that are ranks of this communicator or
 * MPI_PROC_NULL, ranges inside the vector, receive slots in order), and
 * added by the same sched_* calls a builder uses, never copied in. */
#include "tape_schedule.h"

#include "tape.h"

enum { MAX_STEPS = 1 << 20 };

static void add_xchg(Schedule *s, const Step *t)
{
    sched_xchg(s, t->dst, t->soff, t->sn, t->src, t->roff, t->rn, t->mode);
}
static void add_isend(Schedule *s, const Step *t) { sched_isend(s, t->dst, t->soff, t->sn); }
static void add_irecv(Schedule *s, const Step *t)
{
    int slot = sched_irecv(s, t->src, t->roff, t->rn, t->mode);
    if (slot != t->id) tape_reject("schedule step %d: receive slot %d where the next is %d", s->n - 1, t->id, slot);
}
static void add_wait_recv(Schedule *s, const Step *t)
{
    if (t->id < 0 || t->id >= s->nrecv_slots)
        tape_reject("schedule step %d waits on receive slot %d of %d posted", s->n, t->id, s->nrecv_slots);
    sched_wait_recv(s, t->id);
}
static void add_wait_sends(Schedule *s, const Step *t) { sched_wait_sends(s); }
static void add_finish(Schedule *s, const Step *t) { sched_finish(s, t->roff, t->rn); }

static void (*const ADD[])(Schedule *, const Step *) = {
    [STEP_XCHG] = add_xchg,           [STEP_ISEND] = add_isend,           [STEP_IRECV] = add_irecv,
    [STEP_WAIT_RECV] = add_wait_recv, [STEP_WAIT_SENDS] = add_wait_sends, [STEP_FINISH] = add_finish,
};

static bool peer_ok(int p, int size) { return p == MPI_PROC_NULL || (p >= 0 && p < size); }
static bool range_ok(size_t off, size_t n, size_t count) { return off <= count && n <= count - off; }

static void check_step(const Step *t, int i, int size, size_t count)
{
    if ((unsigned)t->kind >= sizeof ADD / sizeof ADD[0] || (t->mode != ABSORB_REDUCE && t->mode != ABSORB_COPY))
        tape_reject("schedule step %d: kind %d, absorb mode %d", i, (int)t->kind, (int)t->mode);
    if (!peer_ok(t->dst, size) || !peer_ok(t->src, size))
        tape_reject("schedule step %d: peers %d and %d on %d ranks", i, t->dst, t->src, size);
    if (!range_ok(t->soff, t->sn, count) || !range_ok(t->roff, t->rn, count))
        tape_reject("schedule step %d: ranges [%zu, +%zu) and [%zu, +%zu) of %zu elements", i, t->soff, t->sn, t->roff,
                    t->rn, count);
}

void tape_schedule(const char *fn, ScheduleBuilder real, Schedule *s, int rank, int size, size_t count)
{
    if (tape_mode() == TAPE_OFF) {
        real(s, rank, size, count);
        return;
    }
    int64_t in[3] = { rank, size, (int64_t)count };
    if (tape_call(fn, tape_digest(TAPE_DIGEST0, in, sizeof in), NULL)) {
        real(s, rank, size, count);
        tape_call_end();
    }
    int32_t n = s->n;
    tape_io(&n, sizeof n);
    if (tape_mode() == TAPE_RECORD) {
        if (n > 0) tape_io(s->steps, (size_t)n * sizeof *s->steps);
        return;
    }
    if (n < 0 || n > MAX_STEPS) tape_reject("%s: a schedule of %d steps", fn, n);
    sched_reset(s);
    for (int i = 0; i < n; i++) {
        Step t;
        tape_io(&t, sizeof t);
        check_step(&t, i, size, count);
        ADD[t.kind](s, &t);
    }
}
