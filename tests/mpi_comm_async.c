/* mpi_comm_async.c - non-blocking allreduce (what lab3's DDP buckets
 * use) and sub-communicators (lab4's groups).
 *
 * ddl-test-np: 1 2 3 4 5 8
 *
 *   - several requests in flight at once on one Comm, each with its own
 *     algorithm, driven only by comm_test (no thread, no wait): results are
 *     bit-equal to the blocking calls;
 *   - requests are reusable with other sizes and types;
 *   - comm_split groups average within the group only. */
#include <stdio.h>
#include <string.h>

#include "comm/comm.h"
#include "util/common.h"
#include "util/half.h"
#include "harness.h"

static float value(int k, size_t i) { return (float)((int)((i * 5 + (size_t)k * 11) % 23) - 11) * 0.37f; }

static void fill(float *x, size_t n, int k)
{
    for (size_t i = 0; i < n; i++) x[i] = value(k, i);
}

/* MPI_Iallreduce (libnbc) and MPI_Allreduce (coll/tuned) may add in
 * different orders, so MPI's requests get data that sums exactly: small
 * multiples of 1/4, exact in FP16 too. */
static void fill_for(CommAlg alg, float *x, size_t n, int k)
{
    fill(x, n, k);
    if (alg == COMM_ALG_MPI)
        for (size_t i = 0; i < n; i++) x[i] = (float)(int)(x[i] / 0.37f) * 0.25f;
}

enum { INFLIGHT = 3 };

static void test_concurrent(Comm *c, size_t n, CommDtype dtype)
{
    const int p = c->size;
    for (int a = 0; a < COMM_ALG_HOST_COUNT; a++) {
        CommAlg algs[INFLIGHT] = { (CommAlg)a, (CommAlg)((a + 1) % COMM_ALG_HOST_COUNT),
                                   (CommAlg)((a + 3) % COMM_ALG_HOST_COUNT) };
        CommRequest *req[INFLIGHT];
        float *fbuf[INFLIGHT], *want = ddl_alloc(n * sizeof(float));
        uint16_t *hbuf[INFLIGHT], *hwant = ddl_alloc(n * sizeof(uint16_t));
        for (int j = 0; j < INFLIGHT; j++) {
            req[j] = comm_request_new(c);
            fbuf[j] = ddl_alloc(n * sizeof(float));
            hbuf[j] = ddl_alloc(n * sizeof(uint16_t));
            fill_for(algs[j], fbuf[j], n, c->rank + j);
            for (size_t i = 0; i < n; i++) hbuf[j][i] = half_from_float(fbuf[j][i]);
            void *buf = dtype == COMM_FP16 ? (void *)hbuf[j] : (void *)fbuf[j];
            comm_iallreduce(req[j], buf, n, dtype, COMM_AVG, algs[j]);
        }
        /* Drive all of them by testing only, as a gradient hook would. */
        long tests = 0;
        for (bool all_done = false; !all_done; tests++) {
            all_done = true;
            for (int j = INFLIGHT - 1; j >= 0; j--) all_done &= comm_test(req[j]);
        }
        bool same = true;
        for (int j = 0; j < INFLIGHT; j++) {
            fill_for(algs[j], want, n, c->rank + j);
            for (size_t i = 0; i < n; i++) hwant[i] = half_from_float(want[i]);
            void *w = dtype == COMM_FP16 ? (void *)hwant : (void *)want;
            comm_allreduce(c, w, n, dtype, COMM_AVG, algs[j]);
            const void *got = dtype == COMM_FP16 ? (void *)hbuf[j] : (void *)fbuf[j];
            if (memcmp(got, w, n * comm_dtype_size(dtype)) != 0) same = false;
        }
        t_check_all(same, "%s + %s + %s %s n=%zu np%d in flight together, progressed by comm_test only: "
                    "bit-equal to blocking", comm_alg_name(algs[0]), comm_alg_name(algs[1]),
                    comm_alg_name(algs[2]), comm_dtype_name(dtype), n, p);
        for (int j = 0; j < INFLIGHT; j++) {
            comm_request_free(req[j]);
            ddl_free(fbuf[j]);
            ddl_free(hbuf[j]);
        }
        ddl_free(want);
        ddl_free(hwant);
    }
}

static void test_reuse(Comm *c)
{
    CommRequest *r = comm_request_new(c);
    t_check_all(comm_test(r), "a request never started tests complete");
    bool ok = true;
    const size_t sizes[] = { 5000, 3, 0, 70000, 17 };
    for (int k = 0; k < 5; k++) {
        size_t n = sizes[k];
        float *x = ddl_alloc(n * sizeof(float)), *y = ddl_alloc(n * sizeof(float));
        fill(x, n, c->rank);
        fill(y, n, c->rank);
        CommAlg alg = (CommAlg)(k % COMM_ALG_HOST_COUNT + 1) == COMM_ALG_HOST_COUNT ? COMM_ALG_RING : (CommAlg)(k + 1);
        comm_iallreduce(r, x, n, COMM_FP32, COMM_SUM, alg);
        comm_wait(r);
        comm_allreduce(c, y, n, COMM_FP32, COMM_SUM, alg);
        if (n && memcmp(x, y, n * sizeof(float)) != 0) ok = false;
        ddl_free(x);
        ddl_free(y);
    }
    t_check_all(ok, "one request reused for sizes 5000, 3, 0, 70000, 17 (np%d)", c->size);
    comm_request_free(r);
}

static void test_split(Comm *world)
{
    /* Groups of consecutive pairs, as lab4's pairwise averaging uses. */
    int color = world->rank / 2;
    Comm group;
    comm_split(world, color, world->rank, &group);
    int members = DDL_MIN(2, world->size - 2 * color);
    bool ok = group.size == members && group.rank == world->rank % 2;
    const size_t n = 999;
    for (int a = 0; a < COMM_ALG_HOST_COUNT; a++) {
        float *x = ddl_alloc(n * sizeof(float));
        fill(x, n, world->rank);
        comm_allreduce(&group, x, n, COMM_FP32, COMM_AVG, (CommAlg)a);
        for (size_t i = 0; i < n; i++) {
            float sum = 0;
            for (int m = 0; m < members; m++) sum = m == 0 ? value(2 * color, i) : sum + value(2 * color + m, i);
            if (x[i] != sum / (float)members) ok = false;
        }
        ddl_free(x);
    }
    t_check_all(ok, "comm_split into pairs: every algorithm averages within the pair only (np%d)", world->size);
    t_check_all(world->count[COMM_ALG_RING].calls == 0 || group.count[COMM_ALG_RING].calls == 1,
                "a split Comm counts its own traffic");
    comm_free(&group);

    Comm none;
    comm_split(world, world->rank == 0 ? -1 : 0, 0, &none);
    bool excluded = world->rank == 0 ? none.size == 0 && none.mpi == MPI_COMM_NULL : none.size == world->size - 1;
    t_check_all(excluded, "comm_split with color < 0 leaves the rank out (np%d)", world->size);
    comm_free(&none);
}

int main(int argc, char **argv)
{
    Comm c;
    int rank;
    t_mpi_comm_start(&argc, &argv, &c, &rank);
    c.segment_bytes = 1024; /* many segments: many chances to interleave */
    test_concurrent(&c, 3001, COMM_FP32);
    test_concurrent(&c, 1234, COMM_FP16);
    test_concurrent(&c, 1, COMM_FP32);
    test_reuse(&c);
    comm_counters_reset(&c);
    test_split(&c);
    return t_mpi_comm_done(&c);
}
