/* sync_per_parameter.c - lab3/gather_scatter's tape (see tape.h). The
 * function's calls are replayed (its comm_allreduce calls on the Sync's
 * communicator over the gradient arena, its sync_comm_event calls), so the
 * replay communicates, counts and traces as the submission did; the
 * result is the gradient arena it left. */
#include "sync/gather_scatter.h"
#include "tape.h"

void __real_sync_per_parameter(Sync *s, CommAlg alg);
void __wrap_sync_per_parameter(Sync *s, CommAlg alg);

void __wrap_sync_per_parameter(Sync *s, CommAlg alg)
{
    if (tape_mode() == TAPE_OFF) {
        __real_sync_per_parameter(s, alg);
        return;
    }
    Model *m = s->m;
    size_t bytes = m->nparams * sizeof(float);
    int64_t shape[2] = { alg, (int64_t)m->nparams };
    uint64_t in = tape_digest(tape_digest(TAPE_DIGEST0, shape, sizeof shape), m->grads, bytes);
    TapeScope scope = { .comms = s->c, .ncomms = s->c ? 1 : 0, .buf = m->grads, .buf_bytes = bytes, .sync = s };
    if (tape_call("sync_per_parameter", in, &scope)) {
        __real_sync_per_parameter(s, alg);
        tape_call_end();
    }
    tape_io(m->grads, bytes);
}
