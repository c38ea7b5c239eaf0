/* test_costmodel.c - the alpha-beta-gamma formulas give the textbook
 * values (worked out by hand below for alpha = 10, beta = 0.5,
 * gamma = 0.25, n = 1200 bytes), every row of the table has a formula
 * consistent with its own closed-form traffic, and the fit recovers a
 * known line. */
#include <math.h>
#include <stdio.h>

#include "comm/costmodel.h"
#include "harness.h"

static void expect(CommAlg alg, int p, double segment, double want)
{
    const CostParams cp = { 10, 0.5, 0.25 };
    double got = cost_allreduce(alg, p, 1200, segment, &cp);
    char name[128];
    snprintf(name, sizeof name, "cost model %s p=%d n=1200 B: %.6g", comm_alg_name(alg), p, want);
    t_checkf(fabs(got - want) < 1e-9 * fmax(1, want), name, "got %.6g", got);
}

/* The busiest rank's messages and bytes, by the row's traffic formula. */
static CommTraffic busiest(CommAlg alg, int p, size_t count, size_t segment_bytes)
{
    CommTraffic most = { 0, 0, 0 }, t;
    for (int r = 0; r < p; r++)
        if (comm_alg_traffic(alg, r, p, count, COMM_FP32, segment_bytes, &t)) {
            most.msgs = t.msgs > most.msgs ? t.msgs : most.msgs;
            most.bytes = t.bytes > most.bytes ? t.bytes : most.bytes;
        }
    return most;
}

/* For every row, hand-written expectation or not: a scheduled algorithm
 * has a formula; one rank costs 0; and the formula charges at least the
 * messages and bytes its busiest rank sends (they are on the critical
 * path) and reduces no more than it moves. The baselines have none. */
static void every_row_has_a_consistent_formula(void)
{
    const CostParams cp = { 10, 0.5, 0.25 };
    const size_t count = 840 * 64, seg = 4096; /* 840 | every block at p <= 8: the per-rank forms exist */
    const double n = (double)count * 4;
    for (int a = 0; a < COMM_ALG_COUNT; a++) {
        CommAlg alg = (CommAlg)a;
        const char *name = comm_alg_name(alg);
        if (!comm_alg_scheduled(alg)) {
            t_check(isnan(cost_allreduce(alg, 4, n, 0, &cp)), "cost model %s: a baseline has no formula (NAN, never a "
                    "guess)", name);
            continue;
        }
        bool finite = true, consistent = true;
        char why[160] = "";
        for (int p = 2; p <= 8; p++) {
            CostTerms t = cost_terms(alg, p, n, (double)seg);
            CommTraffic most = busiest(alg, p, count, seg);
            finite &= isfinite(t.alphas) && isfinite(t.beta_bytes) && isfinite(t.gamma_bytes);
            if (finite && (t.alphas < (double)most.msgs || t.beta_bytes < (double)most.bytes ||
                           t.gamma_bytes > t.beta_bytes || most.bytes < 0) && consistent) {
                consistent = false;
                snprintf(why, sizeof why, "p=%d: %g alphas, %g beta bytes, %g gamma bytes; busiest rank sends %lld "
                         "messages, %lld bytes", p, t.alphas, t.beta_bytes, t.gamma_bytes, most.msgs, most.bytes);
            }
        }
        t_check(finite, "cost model %s: its row has a formula (finite at p = 2..8)", name);
        t_check(cost_allreduce(alg, 1, n, (double)seg, &cp) == 0, "cost model %s: one rank costs 0", name);
        char what[128];
        snprintf(what, sizeof what, "cost model %s: at least the busiest rank's messages and bytes, p = 2..8", name);
        t_checkf(consistent, what, "%s", why);
    }
}

int main(void)
{
    /* p = 4: lg p = 2, (p-1)/p = 3/4.  n beta = 600, n gamma = 300. */
    expect(COMM_ALG_LINEAR, 4, 0, 2 * 3 * 10 + 2 * 3 * 600 + 3 * 300);          /* 4560 */
    expect(COMM_ALG_TREE, 4, 0, 2 * 2 * 10 + 2 * 2 * 600 + 2 * 300);            /* 3040 */
    expect(COMM_ALG_RECDOUBLING, 4, 0, 2 * (10 + 600 + 300));                   /* 1820 */
    expect(COMM_ALG_RABENSEIFNER, 4, 0, 2 * 2 * 10 + 2 * 0.75 * 600 + 0.75 * 300); /* 1165 */
    expect(COMM_ALG_RING, 4, 0, 2 * 3 * 10 + 2 * 0.75 * 600 + 0.75 * 300);      /* 1185 */
    /* 300-byte blocks in 100-byte segments: s = 3. */
    expect(COMM_ALG_RING_ASYNC, 4, 100, 2 * 3 * 3 * 10 + 2 * 0.75 * 600 + 0.75 * 300 / 3); /* 1155 */
    expect(COMM_ALG_RING_ASYNC, 4, 1e9, 1185);                                  /* one segment = ring */

    /* p = 6: floor(lg p) = 2, ceil(lg p) = 3, p' = 4. */
    expect(COMM_ALG_LINEAR, 6, 0, 2 * 5 * 10 + 2 * 5 * 600 + 5 * 300);          /* 7600 */
    expect(COMM_ALG_TREE, 6, 0, 2 * 3 * 10 + 2 * 3 * 600 + 3 * 300);            /* 4560 */
    expect(COMM_ALG_RECDOUBLING, 6, 0, 4 * 10 + 4 * 600 + 3 * 300);             /* 3340 */
    expect(COMM_ALG_RABENSEIFNER, 6, 0,
           2 * 2 * 10 + 2 * 0.75 * 600 + 0.75 * 300 + 2 * 10 + 2 * 600 + 300);  /* 2685 */
    expect(COMM_ALG_RING, 6, 0, 2 * 5 * 10 + 2 * (5.0 / 6) * 600 + (5.0 / 6) * 300); /* 1350 */

    /* p = 2: every algorithm but linear/tree is one exchange each way. */
    expect(COMM_ALG_RECDOUBLING, 2, 0, 10 + 600 + 300);
    expect(COMM_ALG_RING, 2, 0, 2 * 10 + 600 + 150);

    every_row_has_a_consistent_formula();
    CostTerms ring = cost_terms(COMM_ALG_RING, 8, 800, 0);
    t_check(ring.alphas == 14 && fabs(ring.beta_bytes - 1400) < 1e-9 && fabs(ring.gamma_bytes - 700) < 1e-9,
            "ring terms at p=8: 14 alpha + 1400 beta + 700 gamma for 800 bytes");

    double x[] = { 8, 1024, 65536, 1 << 20, 8 << 20 }, y[5], alpha, beta;
    for (int i = 0; i < 5; i++) y[i] = 2e-6 + 1e-10 * x[i];
    double resid = cost_fit_alpha_beta(x, y, 5, &alpha, &beta);
    t_checkf(fabs(alpha - 2e-6) < 1e-15 && fabs(beta - 1e-10) < 1e-19 && resid < 1e-9,
             "fit recovers alpha = 2 us, beta = 0.1 ns/B from exact points", "alpha %g beta %g resid %g", alpha,
             beta, resid);
    y[1] *= 1.5; /* a middle size that pays a protocol switch */
    resid = cost_fit_alpha_beta(x, y, 5, &alpha, &beta);
    t_checkf(fabs(alpha - 2e-6) < 1e-15 && fabs(beta - 1e-10) < 1e-19,
             "a slow middle size moves neither alpha (smallest size) nor beta (largest sizes)", "alpha %g beta %g",
             alpha, beta);
    t_checkf(resid > 0.1, "fit reports a bad point through its residual", "resid %g", resid);
    y[1] /= 1.5;
    y[3] = 2e-6 + 1.1e-10 * x[3];
    y[4] = 2e-6 + 1.1e-10 * x[4];
    cost_fit_alpha_beta(x, y, 5, &alpha, &beta);
    t_checkf(fabs(beta - 1.1e-10) < 0.02e-10, "beta follows the largest sizes' slope (1.1e-10 within 2%)", "beta %g",
             beta);

    double gamma = cost_measure_gamma(1 << 20, 2);
    t_checkf(isfinite(gamma) && gamma > 0, "gamma measurement gives a positive number", "gamma %g", gamma);
    return t_done();
}
