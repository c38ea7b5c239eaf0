/* evaluate.c - loss and accuracy over a dataset in eval mode. */
#include <math.h>
#include "../common.h"
#include "../cpu/kernels.h"
#include "evaluate.h"

EvalResult evaluate(Model *m, const Dataset *d, int batch)
{
    bool was = m->training;
    model_set_training(m, false);
    if (batch > m->max_batch) batch = m->max_batch;
    BatcherOptions bo = { .batch = batch, .rank = 0, .world = 1, .shuffle = false, .drop_last = false,
                          .augment = false, .normalize = true, .seed = 0 };
    Batcher b;
    batcher_init(&b, d, &bo);
    batcher_epoch(&b, 0);
    int classes = model_classes(m);
    size_t per = (size_t)d->c * d->h * d->w;
    float *x = ddl_alloc(sizeof(float) * per * (size_t)batch);
    int32_t *y = ddl_alloc(sizeof(int32_t) * (size_t)batch);
    float *probs = ddl_alloc(sizeof(float) * (size_t)batch * classes);
    double loss = 0.0;
    long right = 0, total = 0;
    int got;
    while ((got = batcher_next(&b, x, y)) > 0) {
        int c = 0;
        loss += softmax_ce_forward_cpu(model_forward(m, x, got), y, got, classes, probs, &c);
        right += c;
        total += got;
    }
    ddl_free(x);
    ddl_free(y);
    ddl_free(probs);
    batcher_free(&b);
    model_set_training(m, was);
    EvalResult r = { total ? loss / total : NAN, total ? (double)right / total : NAN, (int)total };
    return r;
}
