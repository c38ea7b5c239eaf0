/* test_costmodel.c - the alpha-beta-gamma formulas give the textbook
 * values (worked out by hand below for alpha = 10, beta = 0.5,
 * gamma = 0.25, n = 1200 bytes), and the fit recovers a known line. */
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

    const CostParams cp = { 10, 0.5, 0.25 };
    bool zero = true;
    for (int a = COMM_ALG_LINEAR; a < COMM_ALG_HOST_COUNT; a++)
        zero &= cost_allreduce((CommAlg)a, 1, 1200, 100, &cp) == 0;
    t_check(zero, "one rank: every algorithm costs 0");
    t_check(isnan(cost_allreduce(COMM_ALG_MPI, 4, 1200, 0, &cp)), "MPI_Allreduce has no formula (NAN, never a guess)");

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
