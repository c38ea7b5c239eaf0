/* algs.c - the table of allreduce algorithms, made from algs.def: each
 * line's row (defined in its alg_<name>.c) at its enumerator, and the
 * lookups every program's --alg, --help and output go through. Nothing
 * here names an algorithm: a new one appears by its line and its row. */
#include "comm_impl.h"

#include <stdio.h>
#include <string.h>

static const CommAlgRow *const ALGS[COMM_ALG_COUNT] = {
#define COMM_HOST_ALG(NAME, name) [COMM_ALG_##NAME] = &comm_alg_##name,
#define COMM_DEVICE_ALG(NAME, name) [COMM_ALG_##NAME] = &comm_alg_##name,
#include "algs.def"
#undef COMM_HOST_ALG
#undef COMM_DEVICE_ALG
};

const CommAlgRow *comm_alg_row(CommAlg alg) { return (unsigned)alg < COMM_ALG_COUNT ? ALGS[alg] : NULL; }

const char *comm_alg_name(CommAlg alg) { return (unsigned)alg < COMM_ALG_COUNT ? ALGS[alg]->name : "?"; }

const char *comm_alg_description(CommAlg alg)
{
    return (unsigned)alg < COMM_ALG_COUNT ? ALGS[alg]->description : "?";
}

bool comm_alg_scheduled(CommAlg alg) { return (unsigned)alg < COMM_ALG_COUNT && ALGS[alg]->build; }

int comm_alg_from_name(const char *name, CommAlg *out)
{
    for (int a = 0; a < COMM_ALG_COUNT; a++)
        if (strcmp(name, ALGS[a]->name) == 0) {
            *out = (CommAlg)a;
            return 0;
        }
    return -1;
}

void comm_alg_names(char *out, size_t cap, const char *sep)
{
    size_t at = 0;
    if (cap) out[0] = '\0';
    for (int a = 0; a < COMM_ALG_COUNT && at < cap; a++) {
        int n = snprintf(out + at, cap - at, "%s%s", a ? sep : "", ALGS[a]->name);
        if (n < 0) break;
        at += (size_t)n;
    }
}

/* The segment in elements as comm.c's build gives it to ring_async. */
size_t comm_segment_elems(size_t segment_bytes, size_t elem_bytes)
{
    size_t seg = segment_bytes / elem_bytes;
    return seg ? seg : 1;
}

bool comm_alg_traffic(CommAlg alg, int rank, int size, size_t count, CommDtype dtype, size_t segment_bytes,
                      CommTraffic *out)
{
    const CommAlgRow *row = comm_alg_row(alg);
    if (!row || !row->traffic) return false;
    size_t esize = payload_elem_bytes(dtype);
    const AlgShape x = { rank, size, count, comm_segment_elems(segment_bytes, esize) };
    *out = count == 0 ? (CommTraffic){ 0, 0, 0 } : row->traffic(&x, esize); /* count 0 sends nothing */
    return true;
}
