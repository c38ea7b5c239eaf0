/* mpi_group_avg.c - lab4's group / pairwise averaging (core/sync/group_avg).
 *
 * ddl-test-np: 1 2 3 4 5 6
 *
 *   - the groups of every round cover every worker exactly once, are runs
 *     of consecutive ring positions of k+1 (the last one shorter), and
 *     shift by one ring position per round (pure functions, any P);
 *   - each round averages within the rank's own group only (exact data:
 *     bit for bit against the mean computed locally);
 *   - bytes sent and received per rank equal the closed form for the
 *     group sizes used, round by round, and over all ranks
 *     2 (P - groups) n elements per round;
 *   - with k = P-1 the weights equal averaging through MPI_Allreduce
 *     (bit for bit when the sums are exact, within reassociation
 *     otherwise), and every replica is identical;
 *   - rotating pairs spread information to all workers (the spread of the
 *     weights shrinks towards the global mean, which is conserved); fixed
 *     pairs never mix;
 *   - impossible passes are refused with a message. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "comm/comm.h"
#include "util/common.h"
#include "harness.h"
#include "sync/group_avg.h"

static int g_rank, g_size;

static float int_value(int k, size_t i) { return (float)((int)((i * 7 + (size_t)k * 13) % 19) - 9); }

/* ---- pure layout and closed forms, every P up to 9 ---- */

static void test_layout(void)
{
    bool cover = true, consecutive = true, sizes = true, rotates = true, neighbours = true;
    for (int P = 2; P <= 9; P++)
        for (int k = 1; k <= P - 1; k++) {
            int gs = k + 1, groups = group_avg_ngroups(P, k);
            if (groups != (P + k) / (k + 1) || (groups - 1) * gs >= P) sizes = false;
            for (int shift = 0; shift < P; shift++) {
                int seen[16] = { 0 };
                for (int r = 0; r < P; r++) {
                    GroupLayout l = group_avg_layout(P, k, shift, r);
                    int want_size = l.group < groups - 1 ? gs : P - (groups - 1) * gs;
                    if (l.groups != groups || l.size != want_size || l.index < 0 || l.index >= l.size) sizes = false;
                    /* consecutive: member i of a group is its first member + i on the ring */
                    if ((l.first + l.index) % P != r || l.first != (shift + l.group * gs) % P) consecutive = false;
                    seen[r]++;
                    /* rotation: the next round is this one moved one position along the ring */
                    GroupLayout nx = group_avg_layout(P, k, (shift + 1) % P, (r + 1) % P);
                    if (nx.index != l.index || nx.size != l.size || nx.first != (l.first + 1) % P) rotates = false;
                }
                for (int r = 0; r < P; r++)
                    if (seen[r] != 1) cover = false;
            }
            /* Over P rounds every pair of ring neighbours shares a group. */
            for (int r = 0; r < P; r++) {
                bool met = false;
                for (int shift = 0; shift < P; shift++) {
                    GroupLayout a = group_avg_layout(P, k, shift, r), b = group_avg_layout(P, k, shift, (r + 1) % P);
                    met |= a.group == b.group;
                }
                if (!met) neighbours = false;
            }
        }
    if (g_rank != 0) return;
    t_check(cover, "every round's groups cover every worker exactly once (P 2..9, every k, every shift)");
    t_check(consecutive, "groups are runs of consecutive ring positions starting at the shift");
    t_check(sizes, "groups have k+1 members, the last one the P mod (k+1) left over");
    t_check(rotates, "the grouping moves one ring position per round");
    t_check(neighbours, "within P rounds every pair of ring neighbours averages together");

    bool sums = true;
    const size_t ns[] = { 0, 1, 5, 1000, 1003 };
    for (int size = 1; size <= 9; size++)
        for (int j = 0; j < 5; j++) {
            uint64_t s = 0, r = 0;
            for (int i = 0; i < size; i++) {
                uint64_t si, ri;
                group_avg_ring_bytes(size, i, ns[j], 4, &si, &ri);
                s += si;
                r += ri;
            }
            if (s != 2 * (uint64_t)(size - 1) * ns[j] * 4 || r != s) sums = false;
        }
    t_check(sums, "ring closed form: a group of g moves 2(g-1)n elements, sent == received");
    char text[64];
    group_avg_sizes_text(5, 1, text, sizeof text);
    t_checkf(!strcmp(text, "2+2+1"), "group sizes in words: P 5, k 1 is 2+2+1", "got '%s'", text);
}

/* ---- on MPI ranks ---- */

static void test_errors(Comm *world)
{
    char err[DDL_ERRLEN] = "";
    GroupAvg g;
    int rc = group_avg_init(&g, world, world->size, true, COMM_ALG_RING, err);
    if (world->size < 2) {
        t_check_all(rc == -1 && strstr(err, "at least 2 workers") != NULL,
                    "one worker: refused with a message ('%s')", err);
        return;
    }
    t_check_all(rc == -1 && strstr(err, "passes") != NULL, "passes = P refused: '%s' (np%d)", err, world->size);
    err[0] = '\0';
    rc = group_avg_init(&g, world, 0, true, COMM_ALG_RING, err);
    t_check_all(rc == -1 && strstr(err, "passes 0") != NULL, "passes = 0 refused (np%d)", world->size);
}

/* Every rank's own value for round t: exact small integers, different per round. */
static float round_value(int rank, size_t i, long t) { return int_value(rank + 3 * (int)t, i); }

static void test_rounds_and_bytes(Comm *world)
{
    const int P = world->size;
    const size_t n = 1003;
    float *x = ddl_alloc(n * sizeof(float));
    for (int k = 1; k <= P - 1; k++) {
        char err[DDL_ERRLEN];
        GroupAvg g;
        if (group_avg_init(&g, world, k, true, COMM_ALG_RING, err) != 0) {
            t_check_all(false, "group_avg_init k=%d np%d: %s", k, P, err);
            continue;
        }
        const long rounds = 2 * P + 1;
        bool exact = true;
        uint64_t want_sent = 0, want_recv = 0;
        for (long t = 0; t < rounds; t++) {
            GroupLayout l = group_avg_next_layout(&g);
            GroupLayout pure = group_avg_layout(P, k, (int)(t % P), world->rank);
            if (memcmp(&l, &pure, sizeof l) != 0) exact = false;
            for (size_t i = 0; i < n; i++) x[i] = round_value(world->rank, i, t);
            group_avg_round(&g, x, n);
            for (size_t i = 0; i < n; i++) {
                float sum = 0.0f;
                for (int m = 0; m < l.size; m++) sum += round_value((l.first + m) % P, i, t);
                if (x[i] != sum / (float)l.size) exact = false;
            }
            uint64_t s, r;
            group_avg_ring_bytes(l.size, l.index, n, sizeof(float), &s, &r);
            want_sent += s;
            want_recv += r;
        }
        CommCounters c = group_avg_counters(&g);
        t_check_all(exact, "k=%d np%d: %ld rounds, each averages exactly within the rank's own group", k, P, rounds);
        t_check_all(c.bytes_sent == want_sent && c.bytes_recv == want_recv,
                    "k=%d np%d: bytes per rank == closed form for the group sizes used (%llu sent, %llu received)",
                    k, P, (unsigned long long)c.bytes_sent, (unsigned long long)c.bytes_recv);
        unsigned long long mine[2] = { c.bytes_sent, c.bytes_recv }, all[2];
        MPI_Allreduce(mine, all, 2, MPI_UNSIGNED_LONG_LONG, MPI_SUM, MPI_COMM_WORLD);
        uint64_t total = (uint64_t)rounds * group_avg_round_total_bytes(P, k, n, sizeof(float));
        t_check_all(all[0] == total && all[1] == total,
                    "k=%d np%d: over all ranks 2(P - groups) n x 4 bytes per round (%llu)", k, P,
                    (unsigned long long)total);
        group_avg_free(&g);
    }
    ddl_free(x);
}

static void test_full_equals_mpi(Comm *world)
{
    const int P = world->size;
    const size_t n = 4099;
    char err[DDL_ERRLEN];
    GroupAvg g;
    if (group_avg_init(&g, world, P - 1, true, COMM_ALG_RING, err) != 0) {
        t_check_all(false, "group_avg_init k=P-1: %s", err);
        return;
    }
    float *a = ddl_alloc(n * sizeof(float)), *b = ddl_alloc(n * sizeof(float));
    /* Exact sums: bit for bit, whatever the order. Every shift (ring order) once. */
    bool bits = true;
    for (int t = 0; t < P; t++) {
        for (size_t i = 0; i < n; i++) a[i] = b[i] = round_value(world->rank, i, t);
        group_avg_round(&g, a, n);
        MPI_Allreduce(MPI_IN_PLACE, b, (int)n, MPI_FLOAT, MPI_SUM, MPI_COMM_WORLD);
        for (size_t i = 0; i < n; i++) b[i] /= (float)P;
        if (memcmp(a, b, n * sizeof(float)) != 0) bits = false;
    }
    t_check_all(bits, "k=P-1 np%d: same weights as MPI_Allreduce averaging, bit for bit (exact sums, every shift)", P);

    /* Training-like: perturb, average, repeat; the two paths stay within
     * float reassociation of each other, and replicas stay identical. */
    for (size_t i = 0; i < n; i++) a[i] = b[i] = t_hash_value(world->rank, i);
    double worst = 0.0;
    bool same_replicas = true;
    float *h = ddl_alloc(n * sizeof(float));
    for (int t = 0; t < 10; t++) {
        for (size_t i = 0; i < n; i++) {
            float d = 0.01f * t_hash_value(world->rank + 100 * (t + 1), i);
            a[i] += d;
            b[i] += d;
        }
        group_avg_round(&g, a, n);
        MPI_Allreduce(MPI_IN_PLACE, b, (int)n, MPI_FLOAT, MPI_SUM, MPI_COMM_WORLD);
        for (size_t i = 0; i < n; i++) b[i] /= (float)P;
        worst = fmax(worst, t_max_abs_diff(a, b, n));
        memcpy(h, a, n * sizeof(float));
        MPI_Bcast(h, (int)n, MPI_FLOAT, 0, MPI_COMM_WORLD);
        if (memcmp(h, a, n * sizeof(float)) != 0) same_replicas = false;
    }
    /* Each round's sums differ by at most (P-1) u sum|x| <= (P-1) 2^-24 P
     * (|x| <= ~1.1); ten rounds of such differences stay far below 1e-5. */
    MPI_Allreduce(MPI_IN_PLACE, &worst, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
    t_check_all(worst <= 1e-5, "k=P-1 np%d: 10 perturb+average rounds within 1e-5 of MPI_Allreduce's weights "
                "(max |diff| %.3g)", P, worst);
    t_check_all(same_replicas, "k=P-1 np%d: every replica bit-identical after every round", P);
    ddl_free(h);
    ddl_free(a);
    ddl_free(b);
    group_avg_free(&g);
}

/* Largest |x - global mean| over ranks and elements, and the global mean's
 * change from the start. */
static double spread(const float *x, size_t n, double *mean_sum)
{
    double *sum = ddl_alloc(n * sizeof(double));
    for (size_t i = 0; i < n; i++) sum[i] = x[i];
    MPI_Allreduce(MPI_IN_PLACE, sum, (int)n, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
    double worst = 0.0, total = 0.0;
    for (size_t i = 0; i < n; i++) {
        worst = fmax(worst, fabs(x[i] - sum[i] / g_size));
        total += sum[i];
    }
    MPI_Allreduce(MPI_IN_PLACE, &worst, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
    ddl_free(sum);
    *mean_sum = total;
    return worst;
}

static void test_mixing(Comm *world)
{
    const int P = world->size;
    if (P < 3) return; /* with 2 workers a pair is everyone */
    const size_t n = 257;
    float *x = ddl_alloc(n * sizeof(float));
    for (int rotate = 1; rotate >= 0; rotate--) {
        char err[DDL_ERRLEN];
        GroupAvg g;
        if (group_avg_init(&g, world, 1, rotate, COMM_ALG_RING, err) != 0) break;
        for (size_t i = 0; i < n; i++) x[i] = t_hash_value(world->rank, i);
        double s0, s1, before = spread(x, n, &s0);
        for (int t = 0; t < 40 * P; t++) group_avg_round(&g, x, n);
        double after = spread(x, n, &s1);
        if (rotate) {
            t_check_all(after < 1e-3 * before && fabs(s1 - s0) < 1e-3,
                        "rotating pairs np%d: %d rounds bring every worker to the global mean (spread %.3g -> %.3g)",
                        P, 40 * P, before, after);
        } else {
            t_check_all(after > 0.1 * before, "fixed pairs np%d: groups never mix (spread %.3g -> %.3g)", P, before,
                        after);
        }
        group_avg_free(&g);
    }
    ddl_free(x);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &g_rank);
    MPI_Comm_size(MPI_COMM_WORLD, &g_size);
    ddl_set_rank(g_rank, g_size);
    Comm world;
    comm_init(&world, MPI_COMM_WORLD);
    test_layout();
    test_errors(&world);
    if (g_size >= 2) {
        test_rounds_and_bytes(&world);
        test_full_equals_mpi(&world);
        test_mixing(&world);
    }
    return t_mpi_comm_done(&world);
}
