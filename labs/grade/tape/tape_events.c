/* tape_events.c - the calls a graded function makes that the replay makes
 * again: comm_allreduce and sync_comm_event (see tape.h). Both are linked
 * with -Wl,--wrap into every graded test program; outside a recorded call
 * (and always in the replay) they are the library's own.
 *
 * Record: each call inside the function's scope is written as an event
 * (which communicator, where in the scope's buffer, how many elements, the
 * type, operation and algorithm; a trace event's name, times and bytes),
 * before it runs. A call outside the scope is written as refused.
 * Replay: the events run again, on the replay's own communicators and
 * buffers, after every field is checked: a communicator index below the
 * scope's count, a range inside its buffer, known enums, a bounded count.
 * So the replay moves (and counts) the same bytes as the submission's run,
 * and its trace holds the same events; the function's results then come
 * from the tape. A whole call (tape_call: its header from tape.c, then
 * these events) is made here, so tape.c, the file, calls nothing above it. */
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tape.h"

void __real_comm_allreduce(Comm *c, void *buf, size_t count, CommDtype dtype, CommReduceOp op, CommAlg alg);
void __wrap_comm_allreduce(Comm *c, void *buf, size_t count, CommDtype dtype, CommReduceOp op, CommAlg alg);
void __real_sync_comm_event(Sync *s, const char *name, double t0, double t1, double bytes);
void __wrap_sync_comm_event(Sync *s, const char *name, double t0, double t1, double bytes);

enum EventKind { EV_END, EV_ALLREDUCE, EV_COMM_EVENT, EV_REFUSED, EV_KINDS };
enum { MAX_ELEMS = 1 << 28 };

typedef struct EvAllreduce {
    int32_t comm, in_scope;   /* in_scope 0: a buffer of the function's own (replayed on zeros) */
    uint64_t off, count;      /* byte offset into the scope's buffer, elements */
    int32_t dtype, op, alg;
} EvAllreduce;
typedef struct EvCommEvent {
    char name[40];            /* SyncEvent's name */
    double t0, t1, bytes;
} EvCommEvent;
typedef struct EvRefused {
    char why[160];
} EvRefused;

/* Record: the scope of the call in progress; NULL outside one (and while
 * a recorded call runs, so the library's own nested calls are not). */
static const TapeScope *recording;
static const TapeScope no_scope;

static void put_kind(uint32_t kind) { tape_io(&kind, sizeof kind); }

static void refuse(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void refuse(const char *fmt, ...)
{
    EvRefused e;
    memset(&e, 0, sizeof e);
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(e.why, sizeof e.why, fmt, ap);
    va_end(ap);
    put_kind(EV_REFUSED);
    tape_io(&e, sizeof e);
}

static size_t elem_bytes(int32_t dtype) { return dtype == COMM_FP16 ? 2 : dtype == COMM_FP32 ? 4 : 0; }

static void record_allreduce(const TapeScope *sc, Comm *c, void *buf, size_t count, CommDtype dtype, CommReduceOp op,
                             CommAlg alg)
{
    EvAllreduce e;
    memset(&e, 0, sizeof e);
    e.comm = -1;
    for (int i = 0; i < sc->ncomms; i++)
        if (c == &sc->comms[i]) e.comm = i;
    size_t esz = elem_bytes((int32_t)dtype);
    if (e.comm < 0 || !esz) {
        refuse("comm_allreduce on a communicator that is not the function's own, or of data type %d", (int)dtype);
        return;
    }
    uintptr_t lo = (uintptr_t)sc->buf, p = (uintptr_t)buf;
    if (sc->buf && p >= lo && p - lo <= sc->buf_bytes && count <= (sc->buf_bytes - (p - lo)) / esz) {
        e.in_scope = 1;
        e.off = p - lo;
    }
    e.count = count;
    e.dtype = (int32_t)dtype;
    e.op = (int32_t)op;
    e.alg = (int32_t)alg;
    put_kind(EV_ALLREDUCE);
    tape_io(&e, sizeof e);
}

void __wrap_comm_allreduce(Comm *c, void *buf, size_t count, CommDtype dtype, CommReduceOp op, CommAlg alg)
{
    const TapeScope *sc = recording;
    if (sc) {
        record_allreduce(sc, c, buf, count, dtype, op, alg);
        recording = NULL;
    }
    __real_comm_allreduce(c, buf, count, dtype, op, alg);
    recording = sc;
}

void __wrap_sync_comm_event(Sync *s, const char *name, double t0, double t1, double bytes)
{
    const TapeScope *sc = recording;
    if (sc && s != sc->sync) {
        refuse("sync_comm_event on a Sync that is not the function's own");
    } else if (sc) {
        EvCommEvent e;
        memset(&e, 0, sizeof e);
        snprintf(e.name, sizeof e.name, "%s", name ? name : "");
        e.t0 = t0;
        e.t1 = t1;
        e.bytes = bytes;
        put_kind(EV_COMM_EVENT);
        tape_io(&e, sizeof e);
    }
    recording = NULL;
    __real_sync_comm_event(s, name, t0, t1, bytes);
    recording = sc;
}

static void replay_allreduce(const TapeScope *sc)
{
    EvAllreduce e;
    tape_io(&e, sizeof e);
    size_t esz = elem_bytes(e.dtype);
    if (e.comm < 0 || e.comm >= sc->ncomms) tape_reject("comm_allreduce on communicator %d of %d", e.comm, sc->ncomms);
    if (!esz || (e.op != COMM_SUM && e.op != COMM_AVG) || e.alg < 0 || e.alg >= COMM_ALG_COUNT)
        tape_reject("comm_allreduce with type %d, operation %d, algorithm %d", e.dtype, e.op, e.alg);
    if (e.count > MAX_ELEMS) tape_reject("comm_allreduce of %llu elements", (unsigned long long)e.count);
    void *own = NULL, *p;
    if (e.in_scope) {
        if (e.off % esz || e.off > sc->buf_bytes || e.count > (sc->buf_bytes - e.off) / esz)
            tape_reject("comm_allreduce of %llu elements at byte %llu of a %zu-byte buffer",
                        (unsigned long long)e.count, (unsigned long long)e.off, sc->buf_bytes);
        p = (char *)sc->buf + e.off;
    } else {
        p = own = calloc(e.count ? e.count : 1, esz);
        if (!own) tape_reject("out of memory replaying comm_allreduce of %llu elements", (unsigned long long)e.count);
    }
    __real_comm_allreduce(&sc->comms[e.comm], p, e.count, (CommDtype)e.dtype, (CommReduceOp)e.op, (CommAlg)e.alg);
    free(own);
}

static void replay_comm_event(const TapeScope *sc)
{
    EvCommEvent e;
    tape_io(&e, sizeof e);
    e.name[sizeof e.name - 1] = 0;
    if (!sc->sync) tape_reject("sync_comm_event where the function has no Sync");
    __real_sync_comm_event(sc->sync, e.name, e.t0, e.t1, e.bytes);
}

static void replay_refused(const TapeScope *sc)
{
    EvRefused e;
    tape_io(&e, sizeof e);
    e.why[sizeof e.why - 1] = 0;
    tape_reject("the submission's function made a call the grader cannot replay: %s", e.why);
}

static void (*const REPLAY[EV_KINDS])(const TapeScope *) = {
    [EV_ALLREDUCE] = replay_allreduce,
    [EV_COMM_EVENT] = replay_comm_event,
    [EV_REFUSED] = replay_refused,
};

static void scope_replay(const TapeScope *scope)
{
    const TapeScope *sc = scope ? scope : &no_scope;
    for (;;) {
        uint32_t kind;
        tape_io(&kind, sizeof kind);
        if (kind == EV_END) return;
        if (kind >= EV_KINDS || !REPLAY[kind]) tape_reject("an event of unknown kind %u", kind);
        REPLAY[kind](sc);
    }
}

/* A call: its header (tape.c), then the calls it makes, recorded while the
 * real function runs (until tape_call_end) or replayed here at once. */
bool tape_call(const char *fn, uint64_t in, const TapeScope *scope)
{
    tape_call_header(fn, in);
    if (tape_mode() == TAPE_RECORD) {
        recording = scope ? scope : &no_scope;
        return true;
    }
    scope_replay(scope);
    return false;
}

void tape_call_end(void)
{
    recording = NULL;
    put_kind(EV_END);
}
