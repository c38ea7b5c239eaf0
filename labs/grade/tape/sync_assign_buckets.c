/* sync_assign_buckets.c - lab3/buckets's tape (see tape.h): the result
 * is the bucket count and the buckets written to out. The replay bounds
 * both by the model (at most one bucket per parameter tensor, each a
 * slice of the arena, layers of the model) before the test sees them. */
#include "model/model.h"
#include "sync/buckets.h"
#include "tape.h"

int __real_sync_assign_buckets(const Model *m, size_t first_bytes, size_t cap_bytes, Bucket *out, int cap);
int __wrap_sync_assign_buckets(const Model *m, size_t first_bytes, size_t cap_bytes, Bucket *out, int cap);

static void check_bucket(const Model *m, const Bucket *b, int i, int tensors)
{
    if (b->off > m->nparams || b->count > m->nparams - b->off || b->first_layer < -1 ||
        b->first_layer >= m->nlayers || b->last_layer < -1 || b->last_layer >= m->nlayers || b->nparams < 0 ||
        b->nparams > tensors)
        tape_reject("sync_assign_buckets: bucket %d [%zu, +%zu), layers %d..%d, %d tensors is not part of the "
                    "model (%zu parameters, %d layers, %d tensors)",
                    i, b->off, b->count, b->first_layer, b->last_layer, b->nparams, m->nparams, m->nlayers, tensors);
}

int __wrap_sync_assign_buckets(const Model *m, size_t first_bytes, size_t cap_bytes, Bucket *out, int cap)
{
    TapeMode mode = tape_mode();
    if (mode == TAPE_OFF) return __real_sync_assign_buckets(m, first_bytes, cap_bytes, out, cap);
    int64_t in[6] = { (int64_t)first_bytes, (int64_t)cap_bytes, cap, out != NULL, (int64_t)m->nparams, m->nlayers };
    int32_t nb = 0;
    if (tape_call("sync_assign_buckets", tape_digest(TAPE_DIGEST0, in, sizeof in), NULL)) {
        nb = __real_sync_assign_buckets(m, first_bytes, cap_bytes, out, cap);
        tape_call_end();
    }
    tape_io(&nb, sizeof nb);
    int tensors = model_param_list(m, NULL, 0);
    if (mode == TAPE_REPLAY && (nb < 0 || nb > tensors))
        tape_reject("sync_assign_buckets returned %d buckets for %d parameter tensors", nb, tensors);
    int written = out ? (nb < cap ? nb : cap) : 0;
    for (int i = 0; i < written; i++) {
        tape_io(&out[i], sizeof out[i]);
        if (mode == TAPE_REPLAY) check_bucket(m, &out[i], i, tensors);
    }
    return nb;
}
