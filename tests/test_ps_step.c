/* test_ps_step.c - the parameter server's update (core/sync/ps_step.c;
 * lab6's exercise, make grade item lab6/ps_step), against SGD written out
 * here from its definition (PyTorch's torch.optim.SGD):
 *
 *     g = grad_sum / workers + weight_decay w
 *     v = momentum v + g                      (v = 0 before the first step)
 *     w = w - lr (nesterov ? g + momentum v : v)
 *
 *   - 1, 2, 3, 5 and 8 workers, sizes 1, 7 and 1001, four optimizer
 *     settings (plain SGD, momentum, momentum + weight decay, Nesterov),
 *     four steps each, so a step that divides by the wrong count, forgets
 *     the momentum buffers (or resets them) or the weight decay is caught;
 *     the server's Sgd carries the velocity from one step to the next.
 * Tolerance: 1e-5 of the largest weight (float rounding over 4 steps is
 * below 4e-7; forgetting the weight decay costs 5e-4 per step). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harness.h"
#include "util/rng.h"
#include "sync/ps_step.h"

enum { STEPS = 4 };

/* One step of the definition above, in double over float inputs. */
static void sgd_by_definition(const SgdConfig *c, double *w, double *v, const float *grad_sum, int workers,
                              size_t n)
{
    for (size_t i = 0; i < n; i++) {
        double g = (double)grad_sum[i] / workers + c->weight_decay * w[i];
        v[i] = c->momentum * v[i] + g;
        w[i] -= c->lr * (c->nesterov ? g + c->momentum * v[i] : v[i]);
    }
}

static double run_case(const SgdConfig *c, int workers, size_t n)
{
    Rng r = rng_make2(7, "test_ps_step", (uint64_t)workers * 10007u + n);
    float *params = malloc(sizeof(float) * n), *grad = malloc(sizeof(float) * n);
    double *w = malloc(sizeof(double) * n), *v = calloc(n, sizeof(double));
    for (size_t i = 0; i < n; i++) w[i] = params[i] = 2.0f * rng_normal(&r);
    Sgd opt;
    sgd_init(&opt, c, n);
    double worst = 0.0;
    for (int s = 0; s < STEPS; s++) {
        /* the sum of `workers` gradients of unit size: grows with workers */
        for (size_t i = 0; i < n; i++) grad[i] = (float)workers * rng_normal(&r) + 0.5f * (float)workers;
        sgd_by_definition(c, w, v, grad, workers, n);
        ps_server_step(&opt, params, grad, workers);
        double scale = 1e-30;
        for (size_t i = 0; i < n; i++) scale = fmax(scale, fabs(w[i]));
        for (size_t i = 0; i < n; i++) {
            double e = fabs((double)params[i] - w[i]) / scale;
            worst = isnan(e) ? INFINITY : fmax(worst, e);
        }
    }
    sgd_free(&opt);
    free(params);
    free(grad);
    free(w);
    free(v);
    return worst;
}

int main(void)
{
    static const struct {
        const char *name;
        SgdConfig c;
    } configs[] = {
        { "plain SGD lr 0.1", { 0.1f, 0.0f, 0.0f, false } },
        { "momentum 0.9", { 0.1f, 0.9f, 0.0f, false } },
        { "momentum 0.9 + weight decay 0.05", { 0.1f, 0.9f, 0.05f, false } },
        { "Nesterov 0.9 + weight decay 1e-2", { 0.05f, 0.9f, 1e-2f, true } },
    };
    static const int worker_counts[] = { 1, 2, 3, 5, 8 };
    static const size_t sizes[] = { 1, 7, 1001 };
    for (size_t k = 0; k < sizeof configs / sizeof *configs; k++)
        for (size_t a = 0; a < sizeof worker_counts / sizeof *worker_counts; a++) {
            double worst = 0.0;
            for (size_t b = 0; b < sizeof sizes / sizeof *sizes; b++)
                worst = fmax(worst, run_case(&configs[k].c, worker_counts[a], sizes[b]));
            t_check(worst <= 1e-5, "ps_server_step %s, %d worker(s), n = 1, 7, 1001, %d steps: one SGD step on the "
                    "mean gradient (err %.2g)", configs[k].name, worker_counts[a], STEPS, worst);
        }
    return t_done();
}
