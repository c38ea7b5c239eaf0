/* evaluate.c - loss and accuracy over a dataset in eval mode, on the
 * model's backend (batches staged as in training). */
#include <math.h>
#include "../backend/device_batch.h"
#include "../util/common.h"
#include "evaluate.h"

EvalResult evaluate(Model *m, const Dataset *d, int batch)
{
    /* Examples of another size would be read past their end by the
     * forward pass (the loaders refuse such a pair: dataset_check_pair). */
    size_t numel = (size_t)d->c * d->h * d->w;
    if (numel != shape_numel(m->tensors[m->input].shape) || d->classes > model_classes(m))
        ddl_die("evaluate: %s holds %dx%dx%d examples of %d classes, model %s takes %zu values and %d classes",
                d->source, d->c, d->h, d->w, d->classes, m->name, shape_numel(m->tensors[m->input].shape),
                model_classes(m));
    bool was = m->training;
    model_set_training(m, false);
    if (batch > m->max_batch) batch = m->max_batch;
    BatcherOptions bo = { .batch = batch, .rank = 0, .world = 1, .shuffle = false, .drop_last = false,
                          .augment = false, .normalize = true, .seed = 0 };
    Batcher b;
    batcher_init(&b, d, &bo);
    batcher_epoch(&b, 0);
    int classes = model_classes(m);
    DeviceBatch db;
    device_batch_init(&db, m->be, batch, (size_t)d->c * d->h * d->w);
    float *probs = m->be->alloc(sizeof(float) * (size_t)batch * classes);
    double loss = 0.0;
    long right = 0, total = 0;
    const float *x;
    const int32_t *y;
    int got;
    device_batch_put(&db, batcher_next(&b, device_batch_x(&db), device_batch_y(&db)));
    while ((got = device_batch_get(&db, &x, &y)) > 0) {
        const float *logits = model_forward(m, x, got);
        device_batch_put(&db, batcher_next(&b, device_batch_x(&db), device_batch_y(&db)));
        int c = 0;
        loss += m->be->softmax_ce_forward(logits, y, got, classes, probs, &c);
        right += c;
        total += got;
    }
    m->be->release(probs);
    device_batch_free(&db);
    batcher_free(&b);
    model_set_training(m, was);
    EvalResult r = { total ? loss / total : NAN, total ? (double)right / total : NAN, (int)total };
    return r;
}
