/* group_avg_round.c - lab4/group_avg's tape (see tape.h). Its allreduces
 * over the group communicators (one per grouping, g->grouping) and its
 * params are replayed, so the replay's byte counters are the submission's;
 * the results are params[0..n) and the round count, which must not be
 * negative: group_avg_comm indexes the groupings with it. */
#include "sync/group_avg.h"
#include "tape.h"

void __real_group_avg_round(GroupAvg *g, float *params, size_t n);
void __wrap_group_avg_round(GroupAvg *g, float *params, size_t n);

void __wrap_group_avg_round(GroupAvg *g, float *params, size_t n)
{
    TapeMode mode = tape_mode();
    if (mode == TAPE_OFF) {
        __real_group_avg_round(g, params, n);
        return;
    }
    int64_t shape[3] = { g->rounds, (int64_t)n, g->ngroupings };
    uint64_t in = tape_digest(tape_digest(TAPE_DIGEST0, shape, sizeof shape), params, n * sizeof *params);
    TapeScope scope = { .comms = g->grouping, .ncomms = g->ngroupings, .buf = params, .buf_bytes = n * sizeof *params };
    if (tape_call("group_avg_round", in, &scope)) {
        __real_group_avg_round(g, params, n);
        tape_call_end();
    }
    tape_io(params, n * sizeof *params);
    tape_io(&g->rounds, sizeof g->rounds);
    if (mode == TAPE_REPLAY && g->rounds < 0) tape_reject("group_avg_round left %ld rounds", g->rounds);
}
