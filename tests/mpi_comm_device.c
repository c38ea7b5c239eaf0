/* mpi_comm_device.c - allreduce of device buffers (comm_use_device) on every
 * usable device backend (the emulated GPU everywhere, whose NCCL runs over
 * MPI; a real GPU where one answers, e.g. in make gpu-check): NCCL
 * (COMM_ALG_NCCL) and the host algorithms staging device memory through
 * the host. Check names start with the backend's name.
 *
 * ddl-test-np: 1 2 3
 *
 *   - nccl on device buffers: FP32 and FP16, SUM and AVG, equal to the
 *     exact sums (small multiples of 1/4 sum exactly in FP32 and FP16);
 *   - nccl on a host buffer (copied to the device and back) agrees too;
 *   - every host algorithm on a device buffer gives the bits it gives on a
 *     host buffer (the staging changes nothing but where it runs);
 *   - non-blocking: three nccl requests and a ring request in flight at
 *     once, driven by comm_test only;
 *   - a split Comm opens its own NCCL communicator: averages stay within
 *     the group;
 *   - nccl is unusable, with a reason, on a Comm without a device, and its
 *     calls are not counted as ddlab's own traffic.
 * Device memory is out of the host's reach in the emulator, so a path that
 * touched it on the host would crash here rather than pass. */
#include <stdio.h>
#include <string.h>

#include "comm/comm.h"
#include "util/common.h"
#include "util/half.h"
#include "harness.h"
#include "platform/threads.h"

#ifdef DDL_HAVE_CUDA_EMU
#include "backend/registry.h"

static const Backend *be; /* the backend under test */

static float value(int rank, size_t i) { return (float)((int)((i * 7 + (size_t)rank * 3) % 13) - 6) * 0.25f; }

static float exact_sum(int ranks, size_t i, int first)
{
    float s = 0;
    for (int r = 0; r < ranks; r++) s += value(first + r, i);
    return s;
}

/* Fill a host copy, move it to a device buffer. */
static void *device_vector(size_t n, CommDtype dt, int rank)
{
    size_t es = comm_dtype_size(dt);
    void *h = ddl_alloc(n * es), *d = be->alloc(n * es);
    for (size_t i = 0; i < n; i++) {
        if (dt == COMM_FP32) ((float *)h)[i] = value(rank, i);
        else ((uint16_t *)h)[i] = half_from_float(value(rank, i));
    }
    be->to_device(d, h, n * es);
    ddl_free(h);
    return d;
}

/* Read a device buffer back and count elements differing from want(i). */
static long wrong_elements(const void *d, size_t n, CommDtype dt, int ranks, int first, bool avg)
{
    size_t es = comm_dtype_size(dt);
    void *h = ddl_alloc(n * es);
    be->to_host(h, d, n * es);
    long bad = 0;
    for (size_t i = 0; i < n; i++) {
        float got = dt == COMM_FP32 ? ((float *)h)[i] : half_to_float(((uint16_t *)h)[i]);
        float want = exact_sum(ranks, i, first);
        if (avg) want /= (float)ranks;
        if (dt == COMM_FP16) want = half_to_float(half_from_float(want));
        if (got != want) bad++;
    }
    ddl_free(h);
    return bad;
}

static void test_nccl_blocking(Comm *c)
{
    const size_t n = 4099;
    for (int k = 0; k < 4; k++) {
        CommDtype dt = k & 1 ? COMM_FP16 : COMM_FP32;
        CommReduceOp op = k & 2 ? COMM_AVG : COMM_SUM;
        void *d = device_vector(n, dt, c->rank);
        comm_allreduce(c, d, n, dt, op, COMM_ALG_NCCL);
        long bad = wrong_elements(d, n, dt, c->size, 0, op == COMM_AVG);
        t_check_all(bad == 0, "%s nccl %s %s on device memory equals the exact result (np%d, %ld wrong)",
                    be->name, comm_dtype_name(dt), op == COMM_AVG ? "avg" : "sum", c->size, bad);
        be->release(d);
    }
    /* A host buffer: copied to the device, reduced, copied back. */
    float *h = ddl_alloc(n * sizeof(float));
    for (size_t i = 0; i < n; i++) h[i] = value(c->rank, i);
    comm_allreduce(c, h, n, COMM_FP32, COMM_SUM, COMM_ALG_NCCL);
    long bad = 0;
    for (size_t i = 0; i < n; i++) bad += h[i] != exact_sum(c->size, i, 0);
    t_check_all(bad == 0, "%s nccl on a host buffer stages it through the device (np%d, %ld wrong)", be->name, c->size, bad);
    ddl_free(h);
}

/* The same data, host buffer and device buffer: bit-identical results. */
static void test_host_algs_on_device(Comm *c)
{
    const size_t n = 3001;
    bool ok = true;
    for (int a = 0; a < COMM_ALG_HOST_COUNT; a++) {
        float *h = ddl_alloc(n * sizeof(float)), *back = ddl_alloc(n * sizeof(float));
        for (size_t i = 0; i < n; i++) h[i] = value(c->rank, i) * 1.37f; /* inexact: order matters */
        float *d = be->alloc(n * sizeof(float));
        be->to_device(d, h, n * sizeof(float));
        comm_allreduce(c, h, n, COMM_FP32, COMM_AVG, (CommAlg)a);
        comm_allreduce(c, d, n, COMM_FP32, COMM_AVG, (CommAlg)a);
        be->to_host(back, d, n * sizeof(float));
        if (memcmp(h, back, n * sizeof(float)) != 0) {
            ok = false;
            printf("# %s: a device buffer's result differs from the host buffer's\n", comm_alg_name((CommAlg)a));
        }
        be->release(d);
        ddl_free(h);
        ddl_free(back);
    }
    t_check_all(ok, "%s: every host algorithm on a device buffer gives the host buffer's bits (np%d)", be->name, c->size);
}

static void test_nonblocking(Comm *c)
{
    enum { K = 4 };
    const size_t n[K] = { 5000, 17, 70000, 1234 };
    const CommAlg alg[K] = { COMM_ALG_NCCL, COMM_ALG_NCCL, COMM_ALG_RING, COMM_ALG_NCCL };
    CommRequest *r[K];
    void *d[K];
    for (int k = 0; k < K; k++) {
        r[k] = comm_request_new(c);
        d[k] = device_vector(n[k], COMM_FP32, c->rank);
        comm_iallreduce(r[k], d[k], n[k], COMM_FP32, COMM_AVG, alg[k]);
    }
    for (bool all = false; !all;) {
        all = true;
        for (int k = K - 1; k >= 0; k--) all &= comm_test(r[k]);
    }
    long bad = 0;
    for (int k = 0; k < K; k++) {
        bad += wrong_elements(d[k], n[k], COMM_FP32, c->size, 0, true);
        comm_request_free(r[k]);
        be->release(d[k]);
    }
    t_check_all(bad == 0, "%s: 3 nccl and 1 ring requests in flight on device buffers, driven by comm_test (np%d)",
                be->name, c->size);
}

static void test_split(Comm *world)
{
    int color = world->rank / 2;
    Comm g;
    comm_split(world, color, world->rank, &g);
    const size_t n = 777;
    void *d = device_vector(n, COMM_FP32, world->rank);
    comm_allreduce(&g, d, n, COMM_FP32, COMM_AVG, COMM_ALG_NCCL);
    long bad = wrong_elements(d, n, COMM_FP32, g.size, 2 * color, true);
    t_check_all(bad == 0, "%s nccl on a split Comm averages within the pair only (np%d)", be->name, world->size);
    be->release(d);
    comm_free(&g);
}

static void test_usable(Comm *dev)
{
    Comm host;
    comm_init(&host, MPI_COMM_WORLD);
    char why[256] = "";
    bool no = !comm_alg_usable(&host, COMM_ALG_NCCL, why) && strstr(why, "DEVICE=cuda");
    t_check_all(no, "%s: nccl on a Comm without a device is refused with a reason ('%s')", be->name, why);
    t_check_all(comm_alg_usable(dev, COMM_ALG_NCCL, why) && comm_alg_usable(&host, COMM_ALG_RING, why),
                "%s: nccl is usable there (%s), host algorithms everywhere", be->name,
                comm_nccl_version(dev));
    comm_free(&host);
    CommCounters t = comm_counters_total(dev);
    t_check_all(dev->count[COMM_ALG_NCCL].calls > 0 && t.bytes_sent == 0 && t.calls == 0,
                "%s: nccl calls are counted as nccl's, not as ddlab's own traffic", be->name);
}

int main(int argc, char **argv)
{
    int rank, size;
    ddl_program_start(&argc, &argv, &rank, &size, false, false); /* MPI_Init, rank-prefixed messages, threads per rank */
    const Backend *all[4];
    int n = backend_usable(all, 4), devices = 0;
    for (int k = 0; k < n; k++) {
        if (all[k]->host_memory) continue;
        be = all[k];
        devices++;
        Comm c;
        comm_init(&c, MPI_COMM_WORLD);
        comm_use_device(&c, be, true);
        char name[64];
        snprintf(name, sizeof name, "%s nccl", be->name);
        if (comm_nccl_version(&c)) {
            test_nccl_blocking(&c);
            test_nonblocking(&c);
            test_split(&c);
            comm_counters_reset(&c);
            test_nccl_blocking(&c);
            test_usable(&c);
        } else { /* a real-CUDA build without NCCL; the emulated GPU always has its own */
            t_skip(name, "this build has no NCCL (nccl.h or libnccl.so missing beside nvcc)");
        }
        test_host_algs_on_device(&c);
        comm_free(&c);
    }
    t_check_all(devices > 0, "at least one device backend to test (the emulated GPU is in every build with it)");
    int rc = t_done();
    MPI_Finalize();
    return rc;
}

#else

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    t_skip("allreduce of device buffers", "this build has no emulated GPU (EMU=0 or SIM=1)");
    int rc = t_done();
    MPI_Finalize();
    return rc;
}

#endif
