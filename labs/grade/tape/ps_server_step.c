/* ps_server_step.c - lab6/ps_step's tape (see tape.h): the results are
 * the parameters, the gradient sum (the function may overwrite it), the
 * momentum buffers and the step count. */
#include "sync/ps_step.h"
#include "tape.h"

void __real_ps_server_step(Sgd *opt, float *params, float *grad_sum, int workers);
void __wrap_ps_server_step(Sgd *opt, float *params, float *grad_sum, int workers);

void __wrap_ps_server_step(Sgd *opt, float *params, float *grad_sum, int workers)
{
    if (tape_mode() == TAPE_OFF) {
        __real_ps_server_step(opt, params, grad_sum, workers);
        return;
    }
    size_t bytes = opt->n * sizeof(float);
    int64_t shape[3] = { workers, (int64_t)opt->n, opt->steps };
    uint64_t in = tape_digest(TAPE_DIGEST0, shape, sizeof shape);
    in = tape_digest(in, &opt->cfg, sizeof opt->cfg);
    in = tape_digest(tape_digest(in, params, bytes), grad_sum, bytes);
    if (opt->velocity) in = tape_digest(in, opt->velocity, bytes);
    if (tape_call("ps_server_step", in, NULL)) {
        __real_ps_server_step(opt, params, grad_sum, workers);
        tape_call_end();
    }
    tape_io(params, bytes);
    tape_io(grad_sum, bytes);
    if (opt->velocity) tape_io(opt->velocity, bytes);
    tape_io(&opt->steps, sizeof opt->steps);
}
