/* gather_scatter.c - the per-parameter strategies of lab3 Tasks 2a and 2b
 * (see gather_scatter.h): one blocking allreduce AVG per tensor, in model order,
 * as the seed's loops over model.parameters(). Task 2a passes
 * COMM_ALG_LINEAR (gather to rank 0, mean, scatter back), 2b the
 * configured algorithm. It is alone in this file because it is an exercise
 * (labs/lab3/exercises/gather_scatter.c replaces it in student builds). */
#include "gather_scatter.h"

#include <stdio.h>

void sync_per_parameter(Sync *s, CommAlg alg)
{
    const Model *m = s->m;
    for (int i = 0; i < m->nlayers; i++) {
        const Layer *l = &m->layers[i];
        if (!l->param_count) continue;
        size_t parts[2][2] = { { l->param_off, l->weight_count },
                               { l->param_off + l->weight_count, l->param_count - l->weight_count } };
        for (int k = 0; k < 2; k++) {
            if (!parts[k][1]) continue;
            double t0 = sync_clock(s);
            comm_allreduce(s->c, m->grads + parts[k][0], parts[k][1], COMM_FP32, COMM_AVG, alg);
            char name[40];
            snprintf(name, sizeof name, "%s.%s", l->name, k ? "bias" : "weight");
            sync_comm_event(s, name, t0, sync_clock(s), (double)parts[k][1] * sizeof(float));
        }
    }
}
