/* grade-broken: lab3/gather_scatter - averages the weights and forgets
 * the biases: each rank keeps its own bias gradients. */
#include <stdio.h>

#include "sync/gather_scatter.h"

void sync_per_parameter(Sync *s, CommAlg alg)
{
    const Model *m = s->m;
    for (int i = 0; i < m->nlayers; i++) {
        const Layer *l = &m->layers[i];
        if (!l->weight_count) continue;
        double t0 = sync_clock(s);
        comm_allreduce(s->c, m->grads + l->param_off, l->weight_count, COMM_FP32, COMM_AVG, alg);
        char name[40];
        snprintf(name, sizeof name, "%s.weight", l->name);
        sync_comm_event(s, name, t0, sync_clock(s), (double)l->weight_count * sizeof(float));
    }
}
