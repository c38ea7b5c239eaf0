/* group_avg.h - iterative group / pairwise weight averaging (seed 000,
 * lab4): less traffic per round than a full average, paid back with more
 * rounds.
 *
 * P workers sit on a ring (ring position = rank). With "passes" k,
 * 1 <= k <= P-1, every averaging round cuts the ring into groups of k+1
 * consecutive positions starting at position `shift` (the last group keeps
 * the P mod (k+1) workers left over, when there are any), and each group
 * replaces its members' weights by their mean with a ring allreduce among
 * the group only. Between rounds the grouping moves one position along the
 * ring, so workers that are never in the same group in one round still mix
 * through the others a few rounds later:
 *   k = P-1   one group of P: the full average (the all-reduce baseline);
 *   k = 1     pairs: iterative pairwise averaging, i.e. gossip averaging
 *             over alternating matchings of the ring (the seed's title).
 * A worker alone in a group (P not a multiple of k+1, the last group of
 * one) keeps its weights that round and sends nothing.
 *
 * Traffic: a ring over g members moves 2(g-1) n elements in all (each of its
 * g blocks travels g-1 hops in the reduce-scatter and g-1 in the
 * allgather), so a round moves 2(P - groups) n elements over all ranks:
 * 2(P-1) n for the full average, P n for pairs with P even. Per rank it is
 * 2n minus the two blocks it never sends (see group_avg_ring_bytes).
 *
 * Cheap groups: there are only P distinct groupings (the shift modulo P;
 * modulo k+1 when k+1 divides P, since shifting by a whole group gives the
 * same groups), so group_avg_init splits one Comm per grouping once and a
 * round is one allreduce on a ready Comm, never an MPI_Comm_split. The
 * bytes come from those Comms' counters (core/comm counts every message). */
#ifndef DDL_SYNC_GROUP_AVG_H
#define DDL_SYNC_GROUP_AVG_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "../comm/comm.h"
#include "../util/common.h"

/* Where one rank sits in one grouping. */
typedef struct GroupLayout {
    int group;   /* 0..groups-1; group 0 starts at ring position `shift` */
    int index;   /* position inside the group, in ring order (= its rank in the group's Comm) */
    int size;    /* members of this rank's group */
    int first;   /* world rank of the group's first member */
    int groups;  /* groups in the grouping: ceil(P / (k+1)) */
} GroupLayout;

/* ---- the scheme as pure functions (tests and closed forms use these) ---- */

/* Groups per round: ceil(workers / (passes + 1)). */
int group_avg_ngroups(int workers, int passes);
/* The grouping of `rank` when the groups start at ring position `shift`. */
GroupLayout group_avg_layout(int workers, int passes, int shift, int rank);
/* The shift round `round` (0, 1, ...) uses: round mod P when rotating, else 0. */
int group_avg_shift(int workers, bool rotate, long round);
/* Exact bytes member `index` of a ring over `size` members sends and
 * receives for n elements of elem_bytes: the blocks of core/comm's ring
 * (n cut into `size` near-equal blocks, the first n mod size one element
 * longer); member i sends every block but i+1 and i+2 (mod size) and
 * receives every block but i and i+1. size 1: nothing. */
void group_avg_ring_bytes(int size, int index, size_t n, size_t elem_bytes, uint64_t *sent, uint64_t *recv);
/* Bytes sent (= received) over all ranks in one round: 2 (P - groups) n elem_bytes. */
uint64_t group_avg_round_total_bytes(int workers, int passes, size_t n, size_t elem_bytes);

/* ---- running it ---- */

typedef struct GroupAvg {
    int workers, passes, rank;
    bool rotate;       /* false: the shift-0 grouping every round (no mixing between groups) */
    CommAlg alg;       /* the allreduce inside a group; COMM_ALG_RING as in the seed */
    int ngroupings;    /* Comms below */
    Comm *grouping;    /* [ngroupings]: this rank's group under each distinct shift */
    long rounds;       /* rounds done; the next one uses group_avg_shift(.., rounds) */
} GroupAvg;

/* Collective over `world`. Returns 0, or -1 with a one-line reason in err
 * (the same on every rank, so no rank is left in a collective) when
 * passes is outside 1..P-1 or P < 2. */
int group_avg_init(GroupAvg *g, const Comm *world, int passes, bool rotate, CommAlg alg, char err[DDL_ERRLEN]);
/* Collective: frees the group Comms. */
void group_avg_free(GroupAvg *g);
/* One averaging round over params[0..n) (FP32, in place): this rank's
 * group (group_avg_comm) replaces its members' params by their mean, a
 * member alone in its group sends nothing and keeps its own; then the
 * grouping moves on (rounds + 1). Collective over the world.
 * (group_avg_round.c, alone there: it is lab4's exercise.) */
void group_avg_round(GroupAvg *g, float *params, size_t n);
/* The Comm of this rank's group in the round about to run (rounds so far). */
Comm *group_avg_comm(const GroupAvg *g);
/* This rank's place in the next round. */
GroupLayout group_avg_next_layout(const GroupAvg *g);
/* What this rank sent and received through every group Comm so far. */
CommCounters group_avg_counters(const GroupAvg *g);
/* The group sizes joined by '+', e.g. "2+2+1" for P 5, k 1. */
void group_avg_sizes_text(int workers, int passes, char *out, size_t cap);

#endif
