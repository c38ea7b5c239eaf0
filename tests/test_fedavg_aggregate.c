/* test_fedavg_aggregate.c - the cloud's step of FedAvg
 * (core/sync/fedavg_aggregate.c; lab5's exercise, make grade item
 * lab5/fedavg_aggregate), against the closed form recomputed here:
 *
 *     global[i] = sum_u w_u x_u[i] / sum_u w_u
 *
 *   - 1, 2, 3, 5 and 8 users, sizes 1, 7 and 1001 (odd, not multiples of
 *     any vector width), UNEQUAL integer weights (sample counts), so
 *     averaging by the user count instead of the weights is caught;
 *   - fractional weights, a user with weight 0 (ignored), weights scaled by
 *     a constant (same average);
 *   - one user comes back bit for bit (w x / w is exact in double);
 *   - in place (global is the first user's array);
 *   - n = 0 writes nothing; nothing is written past n.
 * Tolerance: 1e-6 of the largest input magnitude (the contract accumulates
 * in double; a float accumulation stays well within it at these sizes). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sync/fedavg_aggregate.h"
#include "harness.h"
#include "util/rng.h"

enum { MAXU = 8, GUARD = 4 };

/* users arrays of n floats (plus GUARD sentinels each), deterministic. */
static float **make_users(int users, size_t n, uint64_t seed)
{
    Rng r = rng_make2(seed, "test_fedavg_aggregate", (uint64_t)users * 100003u + n);
    float **x = malloc(sizeof(float *) * (size_t)users);
    for (int u = 0; u < users; u++) {
        x[u] = malloc(sizeof(float) * (n + GUARD));
        /* user u is offset by u, so the weighting visibly moves the mean */
        for (size_t i = 0; i < n + GUARD; i++) x[u][i] = rng_normal(&r) + (float)u;
    }
    return x;
}

static void free_users(float **x, int users)
{
    for (int u = 0; u < users; u++) free(x[u]);
    free(x);
}

/* The closed form, computed independently; max |error| relative to the
 * largest input, or INFINITY if a guard past n was written. */
static double check_against_closed_form(const float *got, float *const *x, const double *w, int users, size_t n)
{
    double total = 0.0, scale = 1e-30, worst = 0.0;
    for (int u = 0; u < users; u++) total += w[u];
    for (int u = 0; u < users; u++)
        for (size_t i = 0; i < n; i++) scale = fmax(scale, fabs((double)x[u][i]));
    for (size_t i = 0; i < n; i++) {
        double want = 0.0;
        for (int u = 0; u < users; u++) want += w[u] / total * (double)x[u][i];
        double e = fabs((double)got[i] - want) / scale;
        if (!(e <= worst)) worst = isnan(e) ? INFINITY : fmax(worst, e);
    }
    for (size_t i = n; i < n + GUARD; i++)
        if (got[i] != -7.0f) return INFINITY;
    return worst;
}

static void test_sizes(void)
{
    static const int user_counts[] = { 1, 2, 3, 5, 8 };
    static const size_t sizes[] = { 1, 7, 1001 };
    /* sample counts: different per user (as non-IID shards have) */
    static const double counts[MAXU] = { 600, 100, 1200, 37, 5, 999, 64, 250 };
    for (size_t a = 0; a < sizeof user_counts / sizeof *user_counts; a++)
        for (size_t b = 0; b < sizeof sizes / sizeof *sizes; b++) {
            int users = user_counts[a];
            size_t n = sizes[b];
            float **x = make_users(users, n, 1);
            float *g = malloc(sizeof(float) * (n + GUARD));
            for (size_t i = 0; i < n + GUARD; i++) g[i] = -7.0f;
            fedavg_aggregate(g, (const float *const *)x, counts, users, n);
            double e = check_against_closed_form(g, x, counts, users, n);
            t_check(e <= 1e-6, "fedavg_aggregate %d users, n=%zu, sample-count weights: weighted mean (err %.2g)",
                    users, n, e);
            free(g);
            free_users(x, users);
        }
}

/* Weights beyond sample counts: fractions, a zero, a common factor. */
static void test_weights(void)
{
    enum { U = 4, N = 33 };
    float **x = make_users(U, N, 2);
    float g[N + GUARD], h[N + GUARD];
    static const double frac[U] = { 0.125, 0.5, 0.25, 0.125 };
    for (int i = 0; i < N + GUARD; i++) g[i] = -7.0f;
    fedavg_aggregate(g, (const float *const *)x, frac, U, N);
    double e = check_against_closed_form(g, x, frac, U, N);
    t_check(e <= 1e-6, "fedavg_aggregate: fractional weights (err %.2g)", e);

    static const double zero[U] = { 3, 0, 5, 0 };
    for (int i = 0; i < N + GUARD; i++) g[i] = -7.0f;
    fedavg_aggregate(g, (const float *const *)x, zero, U, N);
    e = check_against_closed_form(g, x, zero, U, N);
    t_check(e <= 1e-6, "fedavg_aggregate: users of weight 0 do not count (err %.2g)", e);

    static const double small[U] = { 1, 2, 3, 4 }, big[U] = { 1000, 2000, 3000, 4000 };
    for (int i = 0; i < N + GUARD; i++) g[i] = h[i] = -7.0f;
    fedavg_aggregate(g, (const float *const *)x, small, U, N);
    fedavg_aggregate(h, (const float *const *)x, big, U, N);
    e = check_against_closed_form(g, x, small, U, N);
    t_check(e <= 1e-6 && t_max_abs_diff(g, h, N) <= 1e-6 * (1.0 + fabs(g[0])),
            "fedavg_aggregate: weights 1:2:3:4 and 1000:2000:3000:4000 give the same mean (err %.2g)", e);
    free_users(x, U);
}

static void test_exact_cases(void)
{
    enum { N = 19 };
    float **x = make_users(1, N, 3);
    float g[N + GUARD];
    for (int i = 0; i < N + GUARD; i++) g[i] = -7.0f;
    const double w = 37.0;
    fedavg_aggregate(g, (const float *const *)x, &w, 1, N);
    t_check(!memcmp(g, x[0], sizeof(float) * N) && g[N] == -7.0f,
            "fedavg_aggregate: one user (weight 37) comes back bit for bit");
    free_users(x, 1);

    enum { U = 3 };
    x = make_users(U, N, 4);
    float *copy[U], want[N + GUARD];
    static const double cw[U] = { 10, 30, 60 };
    for (int u = 0; u < U; u++) {
        copy[u] = malloc(sizeof(float) * (N + GUARD));
        memcpy(copy[u], x[u], sizeof(float) * (N + GUARD));
    }
    for (int i = 0; i < N + GUARD; i++) want[i] = -7.0f;
    fedavg_aggregate(want, (const float *const *)copy, cw, U, N);
    for (int i = N; i < N + GUARD; i++) x[0][i] = -7.0f; /* sentinels for the in-place check */
    fedavg_aggregate(x[0], (const float *const *)x, cw, U, N);
    double e = check_against_closed_form(x[0], copy, cw, U, N);
    t_check(e <= 1e-6, "fedavg_aggregate: in place over the first user's model (err %.2g)", e);
    for (int u = 0; u < U; u++) free(copy[u]);
    free_users(x, U);

    float **z = make_users(2, 0, 5);
    float none[GUARD] = { -7.0f, -7.0f, -7.0f, -7.0f };
    static const double zw[2] = { 1, 2 };
    fedavg_aggregate(none, (const float *const *)z, zw, 2, 0);
    t_check(none[0] == -7.0f && none[GUARD - 1] == -7.0f, "fedavg_aggregate: n = 0 writes nothing");
    free_users(z, 2);
}

int main(void)
{
    test_sizes();
    test_weights();
    test_exact_cases();
    return t_done();
}
