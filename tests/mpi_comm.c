/* mpi_comm.c - every allreduce algorithm against MPI_Allreduce and
 * against sums computed locally, for any rank count and awkward sizes.
 *
 * ddl-test-np: 1 2 3 4 5 6 7 8
 *
 * Every rank can compute every rank's input (a hash of rank and index), so
 * each rank checks its result against references of its own:
 *   - small-integer data sum exactly in any order: every algorithm must
 *     then equal MPI_Allreduce bit for bit;
 *   - random data: |result - exact| <= (p-1) u sum|x| (u = 2^-24), the
 *     textbook bound for any summation order; linear must equal the
 *     left-to-right float sum and the rings the ring-order float sum,
 *     bit for bit (same order, same bits);
 *   - AVG == SUM / p bit for bit (one correctly rounded division);
 *   - FP16 within p * 2^-11 * sum|x| of FP32 (a rounding per hop, plus one);
 *   - all ranks hold bit-identical results.
 * `mpi_comm --alg NAME` checks only that algorithm (make grade runs one
 * student algorithm at a time; MPI_Allreduce stays the reference). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "comm/comm.h"
#include "util/common.h"
#include "util/half.h"
#include "harness.h"

static int g_rank, g_size;
static int g_only = -1; /* --alg: the one algorithm checked, else all */

static bool checked(int a) { return g_only < 0 || a == g_only; }

/* Rank k's element i: uniform in [-1, 1) with 24 bits, or a small integer. */
static float random_value(int k, size_t i) { return t_hash_value(k, i); }

static float integer_value(int k, size_t i) { return (float)((int)((i * 7 + (size_t)k * 13) % 19) - 9); }

typedef float (*ValueFn)(int k, size_t i);

static void fill(float *x, size_t n, int k, ValueFn value)
{
    for (size_t i = 0; i < n; i++) x[i] = value(k, i);
}

/* References computed locally from everyone's inputs. */
typedef struct Refs {
    double *exact, *abs_sum;
    float *left_to_right, *ring_order;
} Refs;

static int ring_block_of(size_t i, size_t n, int p)
{
    size_t base = n / (size_t)p, extra = n % (size_t)p;
    size_t big = extra * (base + 1);
    return i < big ? (int)(i / (base + 1)) : (int)(extra + (i - big) / base);
}

static void make_refs(Refs *r, size_t n, int p, ValueFn value)
{
    r->exact = calloc(n + 1, sizeof(double));
    r->abs_sum = calloc(n + 1, sizeof(double));
    r->left_to_right = calloc(n + 1, sizeof(float));
    r->ring_order = calloc(n + 1, sizeof(float));
    for (size_t i = 0; i < n; i++) {
        int b = ring_block_of(i, n, p);
        float ltr = 0, ring = 0;
        for (int k = 0; k < p; k++) {
            float v = value(k, i);
            r->exact[i] += v;
            r->abs_sum[i] += fabs(v);
            ltr = k == 0 ? v : ltr + v;
            /* Ring block b starts at rank b and adds the next ranks. */
            float w = value((b + k) % p, i);
            ring = k == 0 ? w : ring + w;
        }
        r->left_to_right[i] = ltr;
        r->ring_order[i] = ring;
    }
}

static void free_refs(Refs *r)
{
    free(r->exact); free(r->abs_sum); free(r->left_to_right); free(r->ring_order);
}

static bool same_bits(const float *a, const float *b, size_t n)
{
    return n == 0 || memcmp(a, b, n * sizeof(float)) == 0;
}

/* Every rank holds what rank 0 holds. */
static bool identical_on_all_ranks(const void *buf, size_t bytes, MPI_Comm comm)
{
    void *root = malloc(bytes + 1);
    if (g_rank == 0) memcpy(root, buf, bytes);
    MPI_Bcast(root, (int)bytes, MPI_BYTE, 0, comm);
    bool same = bytes == 0 || memcmp(root, buf, bytes) == 0;
    free(root);
    return same;
}

static bool within_bound(const float *y, const Refs *r, size_t n, double ulps_of_abs_sum, double *worst)
{
    *worst = 0;
    bool ok = true;
    for (size_t i = 0; i < n; i++) {
        double err = fabs((double)y[i] - r->exact[i]);
        double bound = ulps_of_abs_sum * r->abs_sum[i] * 1.0001;
        if (!(err <= bound)) ok = false;
        if (r->abs_sum[i] > 0 && err / r->abs_sum[i] > *worst) *worst = err / r->abs_sum[i];
    }
    return ok;
}

static void check_fp32_random(Comm *c, size_t n, const Refs *refs, const float *mine)
{
    const int p = c->size;
    const double bound = (p - 1) * 0x1p-24;
    float *y = ddl_alloc(n * sizeof(float)), *mpi = ddl_alloc(n * sizeof(float));
    float *avg = ddl_alloc(n * sizeof(float));
    memcpy(mpi, mine, n * sizeof(float));
    comm_allreduce(c, mpi, n, COMM_FP32, COMM_SUM, COMM_ALG_MPI);

    for (int a = 0; a < COMM_ALG_HOST_COUNT; a++) {
        if (!checked(a)) continue;
        const char *name = comm_alg_name((CommAlg)a);
        memcpy(y, mine, n * sizeof(float));
        comm_allreduce(c, y, n, COMM_FP32, COMM_SUM, (CommAlg)a);
        double worst;
        bool ok = within_bound(y, refs, n, bound, &worst);
        t_check_all(ok, "%s fp32 sum n=%zu np%d: |err| <= (p-1)u sum|x| (worst %.2g sum|x|)", name, n, p, worst);
        double vs_mpi = 0;
        for (size_t i = 0; i < n; i++) {
            double d = fabs((double)y[i] - (double)mpi[i]);
            if (d > 2 * bound * refs->abs_sum[i] * 1.0001) vs_mpi = INFINITY;
        }
        t_check_all(vs_mpi == 0, "%s fp32 sum n=%zu np%d: within 2(p-1)u sum|x| of MPI_Allreduce", name, n, p);
        if (a == COMM_ALG_LINEAR)
            t_check_all(same_bits(y, refs->left_to_right, n),
                        "linear fp32 sum n=%zu np%d: bit-equal to the left-to-right sum", n, p);
        if (a == COMM_ALG_RING || a == COMM_ALG_RING_ASYNC)
            t_check_all(same_bits(y, refs->ring_order, n), "%s fp32 sum n=%zu np%d: bit-equal to the ring-order sum",
                        name, n, p);
        t_check_all(identical_on_all_ranks(y, n * sizeof(float), c->mpi),
                    "%s fp32 sum n=%zu np%d: bit-identical on all ranks", name, n, p);

        memcpy(avg, mine, n * sizeof(float));
        comm_allreduce(c, avg, n, COMM_FP32, COMM_AVG, (CommAlg)a);
        bool avg_ok = true;
        for (size_t i = 0; i < n; i++)
            if (avg[i] != y[i] / (float)p) avg_ok = false;
        t_check_all(avg_ok, "%s fp32 avg n=%zu np%d: bit-equal to sum / p", name, n, p);
    }
    ddl_free(y); ddl_free(mpi); ddl_free(avg);
}

static void check_fp32_exact(Comm *c, size_t n)
{
    const int p = c->size;
    float *mpi = ddl_alloc(n * sizeof(float)), *y = ddl_alloc(n * sizeof(float));
    fill(mpi, n, c->rank, integer_value);
    comm_allreduce(c, mpi, n, COMM_FP32, COMM_SUM, COMM_ALG_MPI);
    for (int a = 0; a < COMM_ALG_HOST_COUNT; a++) {
        if (!checked(a)) continue;
        fill(y, n, c->rank, integer_value);
        comm_allreduce(c, y, n, COMM_FP32, COMM_SUM, (CommAlg)a);
        t_check_all(same_bits(y, mpi, n), "%s fp32 sum of integers n=%zu np%d: bit-equal to MPI_Allreduce",
                    comm_alg_name((CommAlg)a), n, p);
    }
    ddl_free(mpi); ddl_free(y);
}

/* FP16 payload against FP32 on the same (half-representable) data. */
static void check_fp16(Comm *c, size_t n)
{
    const int p = c->size;
    uint16_t *h = ddl_alloc(n * sizeof(uint16_t) + 2);
    float *f = ddl_alloc(n * sizeof(float)), *abs_sum = ddl_alloc(n * sizeof(float));
    for (size_t i = 0; i < n; i++) {
        abs_sum[i] = 0;
        for (int k = 0; k < p; k++) abs_sum[i] += fabsf(half_to_float(half_from_float(random_value(k, i))));
    }
    for (int op = COMM_SUM; op <= COMM_AVG; op++) {
        const char *opname = op == COMM_SUM ? "sum" : "avg";
        for (int a = 0; a < COMM_ALG_HOST_COUNT; a++) {
        if (!checked(a)) continue;
            for (size_t i = 0; i < n; i++) {
                h[i] = half_from_float(random_value(c->rank, i));
                f[i] = half_to_float(h[i]);
            }
            comm_allreduce(c, f, n, COMM_FP32, (CommReduceOp)op, COMM_ALG_MPI);
            comm_allreduce(c, h, n, COMM_FP16, (CommReduceOp)op, (CommAlg)a);
            double scale = op == COMM_AVG ? 1.0 / p : 1.0;
            bool ok = true;
            double worst = 0;
            for (size_t i = 0; i < n; i++) {
                double err = fabs((double)half_to_float(h[i]) - (double)f[i]);
                double bound = (p * 0x1p-11 * abs_sum[i] + 0x1p-24) * scale + 0x1p-24;
                if (!(err <= bound)) ok = false;
                if (abs_sum[i] > 0 && err / (abs_sum[i] * scale) > worst) worst = err / (abs_sum[i] * scale);
            }
            t_check_all(ok, "%s fp16 %s n=%zu np%d: within p 2^-11 sum|x| of fp32 (worst %.2g sum|x|)",
                        comm_alg_name((CommAlg)a), opname, n, p, worst);
            t_check_all(identical_on_all_ranks(h, n * sizeof(uint16_t), c->mpi),
                        "%s fp16 %s n=%zu np%d: bit-identical on all ranks", comm_alg_name((CommAlg)a), opname, n,
                        p);
        }
    }
    ddl_free(h); ddl_free(f); ddl_free(abs_sum);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &g_rank);
    MPI_Comm_size(MPI_COMM_WORLD, &g_size);
    ddl_set_rank(g_rank, g_size);
    if (argc == 3 && !strcmp(argv[1], "--alg")) {
        CommAlg a;
        if (comm_alg_from_name(argv[2], &a) != 0) {
            if (g_rank == 0) printf("not ok - mpi_comm: unknown algorithm '%s'\n", argv[2]);
            MPI_Finalize();
            return 1;
        }
        g_only = (int)a;
    }
    Comm c;
    comm_init(&c, MPI_COMM_WORLD);
    const int p = c.size;
    size_t sizes[] = { 0, 1, (size_t)p - 1, (size_t)p, 1000, (1u << 20) + 3 };
    for (size_t s = 0; s < sizeof sizes / sizeof sizes[0]; s++) {
        size_t n = sizes[s];
        if (s > 0 && n == sizes[s - 1]) continue; /* p-1 == 0 or 1 at small p */
        if (s == 2 && n == 0) continue;
        float *mine = ddl_alloc(n * sizeof(float));
        fill(mine, n, c.rank, random_value);
        Refs refs;
        make_refs(&refs, n, p, random_value);
        check_fp32_random(&c, n, &refs, mine);
        free_refs(&refs);
        ddl_free(mine);
        check_fp32_exact(&c, n);
        if (n <= 1000) check_fp16(&c, n);
    }
    check_fp16(&c, (1u << 16) + 7); /* several ring_async segments per block */
    return t_mpi_comm_done(&c);
}
