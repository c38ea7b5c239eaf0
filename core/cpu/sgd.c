/* sgd.c - the SGD update (PyTorch's torch.optim.SGD, dampening 0). */
#include "kernels.h"
#include "parallel.h"

void sgd_update_cpu(float *w, const float *grad, float *velocity, size_t count, float lr, float momentum,
                    float weight_decay, bool nesterov)
{
    if (momentum == 0.0f) {
        PARALLEL_FOR(count)
        for (size_t i = 0; i < count; i++) w[i] -= lr * (grad[i] + weight_decay * w[i]);
        return;
    }
    PARALLEL_FOR(count)
    for (size_t i = 0; i < count; i++) {
        float g = grad[i] + weight_decay * w[i];
        float v = momentum * velocity[i] + g;
        velocity[i] = v;
        w[i] -= lr * (nesterov ? g + momentum * v : v);
    }
}
