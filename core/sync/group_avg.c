/* group_avg.c - see group_avg.h. */
#include "group_avg.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int wrap(long i, int n) { return (int)(((i % n) + n) % n); }

int group_avg_ngroups(int workers, int passes) { return (workers + passes) / (passes + 1); }

GroupLayout group_avg_layout(int workers, int passes, int shift, int rank)
{
    int gs = passes + 1, pos = wrap((long)rank - shift, workers);
    GroupLayout l;
    l.groups = group_avg_ngroups(workers, passes);
    l.group = pos / gs;
    l.index = pos % gs;
    l.size = DDL_MIN(gs, workers - l.group * gs);
    l.first = wrap((long)shift + (long)l.group * gs, workers);
    return l;
}

int group_avg_shift(int workers, bool rotate, long round) { return rotate ? wrap(round, workers) : 0; }

/* Elements in block b of n cut into `size` blocks (core/comm's block_range). */
static size_t block_len(size_t n, int size, int b) { return n / (size_t)size + ((size_t)b < n % (size_t)size); }

void group_avg_ring_bytes(int size, int index, size_t n, size_t elem_bytes, uint64_t *sent, uint64_t *recv)
{
    if (size < 2) {
        *sent = *recv = 0;
        return;
    }
    /* alg_ring.c: reduce-scatter step s sends block i-s (s = 0..size-2, so
     * every block but i+1), allgather step s sends block i+1-s (every block
     * but i+2); the receives are the left neighbour's sends. */
    size_t s = 2 * n - block_len(n, size, wrap(index + 1, size)) - block_len(n, size, wrap(index + 2, size));
    size_t r = 2 * n - block_len(n, size, index) - block_len(n, size, wrap(index + 1, size));
    *sent = (uint64_t)s * elem_bytes;
    *recv = (uint64_t)r * elem_bytes;
}

uint64_t group_avg_round_total_bytes(int workers, int passes, size_t n, size_t elem_bytes)
{
    return 2 * (uint64_t)(workers - group_avg_ngroups(workers, passes)) * n * elem_bytes;
}

void group_avg_sizes_text(int workers, int passes, char *out, size_t cap)
{
    size_t len = 0;
    out[0] = '\0';
    for (int g = 0, left = workers; left > 0 && len < cap; g++) {
        int size = DDL_MIN(passes + 1, left);
        int w = snprintf(out + len, cap - len, "%s%d", g ? "+" : "", size);
        if (w < 0) break;
        len += (size_t)w;
        left -= size;
    }
}

/* Distinct groupings: shifting by a whole group size gives the same groups
 * in the same order when the group size divides P. */
static int distinct_groupings(int workers, int passes, bool rotate)
{
    if (!rotate) return 1;
    return workers % (passes + 1) == 0 ? passes + 1 : workers;
}

int group_avg_init(GroupAvg *g, const Comm *world, int passes, bool rotate, CommAlg alg, char err[DDL_ERRLEN])
{
    memset(g, 0, sizeof *g);
    int P = world->size;
    if (P < 2) {
        snprintf(err, DDL_ERRLEN, "group averaging needs at least 2 workers (this run has %d)", P);
        return -1;
    }
    if (passes < 1 || passes > P - 1) {
        snprintf(err, DDL_ERRLEN,
                 "passes %d is outside 1..%d for %d workers (k passes average groups of k+1 workers; "
                 "k = %d is already the full average)", passes, P - 1, P, P - 1);
        return -1;
    }
    g->workers = P;
    g->passes = passes;
    g->rank = world->rank;
    g->rotate = rotate;
    g->alg = alg;
    g->ngroupings = distinct_groupings(P, passes, rotate);
    g->grouping = calloc((size_t)g->ngroupings, sizeof *g->grouping);
    if (!g->grouping) ddl_die("out of memory for %d group communicators", g->ngroupings);
    for (int s = 0; s < g->ngroupings; s++) {
        GroupLayout l = group_avg_layout(P, passes, s, world->rank);
        comm_split(world, l.group, l.index, &g->grouping[s]);
    }
    return 0;
}

void group_avg_free(GroupAvg *g)
{
    for (int s = 0; s < g->ngroupings; s++) comm_free(&g->grouping[s]);
    free(g->grouping);
    memset(g, 0, sizeof *g);
}

Comm *group_avg_comm(const GroupAvg *g)
{
    return &g->grouping[group_avg_shift(g->workers, g->rotate, g->rounds) % g->ngroupings];
}

GroupLayout group_avg_next_layout(const GroupAvg *g)
{
    return group_avg_layout(g->workers, g->passes, group_avg_shift(g->workers, g->rotate, g->rounds), g->rank);
}

CommCounters group_avg_counters(const GroupAvg *g)
{
    CommCounters t = { 0 };
    for (int s = 0; s < g->ngroupings; s++) {
        CommCounters c = comm_counters_total(&g->grouping[s]);
        comm_counters_add(&t, &c);
    }
    return t;
}
