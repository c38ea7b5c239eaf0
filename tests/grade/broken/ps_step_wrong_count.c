/* grade-broken: lab6/ps_step - divides the gradient sum by workers + 1
 * (counting the server as a worker): every step too small. */
#include "sync/ps_step.h"

void ps_server_step(Sgd *opt, float *params, float *grad_sum, int workers)
{
    for (size_t i = 0; i < opt->n; i++) grad_sum[i] /= (float)(workers + 1);
    sgd_step(opt, params, grad_sum);
}
