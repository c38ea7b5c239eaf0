/* costmodel.c - the formulas of costmodel.h (each algorithm's in its row), nothing measured here. */
#include "comm_impl.h"

#include <math.h>

/* Each algorithm's coefficients are its row's (alg_<name>.c); one rank
 * sends nothing. */
CostTerms cost_terms(CommAlg alg, int p, double n, double segment_bytes)
{
    const CommAlgRow *row = comm_alg_row(alg);
    if (p <= 1) return (CostTerms){ 0, 0, 0 };
    if (!row || !row->cost) return (CostTerms){ NAN, NAN, NAN };
    return row->cost(p, n, segment_bytes);
}

double cost_allreduce(CommAlg alg, int p, double bytes, double segment_bytes, const CostParams *cp)
{
    CostTerms t = cost_terms(alg, p, bytes, segment_bytes);
    if (p <= 1) return 0;
    return t.alphas * cp->alpha + t.beta_bytes * cp->beta + t.gamma_bytes * cp->gamma;
}

double cost_fit_alpha_beta(const double *x, const double *y, int n, double *alpha, double *beta)
{
    /* beta: least-squares slope of the largest sizes, where the bytes
     * dominate; alpha: what the smallest message costs beyond its bytes. A
     * line through every point (least squares on relative error, ddlab's
     * earlier fit) is pulled by the middle sizes, where the
     * protocols change (eager to rendezvous, one packet to several), and
     * then misses both ends: on the emulated 1 Gbit/s link it gave 9.24
     * ns/B and over-predicted 8 MiB by 10%, against a slope of 8.37. */
    int first = n > COST_FIT_LARGEST ? n - COST_FIT_LARGEST : 0, m = n - first;
    double sx = 0, sy = 0, sxx = 0, sxy = 0;
    for (int i = first; i < n; i++) {
        sx += x[i]; sy += y[i]; sxx += x[i] * x[i]; sxy += x[i] * y[i];
    }
    double det = m * sxx - sx * sx;
    *beta = m >= 2 && det > 0 ? (m * sxy - sx * sy) / det : y[n - 1] / x[n - 1];
    int smallest = 0;
    for (int i = 1; i < n; i++)
        if (x[i] < x[smallest]) smallest = i;
    *alpha = y[smallest] - *beta * x[smallest];
    double worst = 0;
    for (int i = 0; i < n; i++) {
        double rel = fabs(*alpha + *beta * x[i] - y[i]) / y[i];
        if (rel > worst) worst = rel;
    }
    return worst;
}
