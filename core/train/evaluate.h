/* evaluate.h - loss and accuracy of a model over a whole dataset. */
#ifndef DDL_EVALUATE_H
#define DDL_EVALUATE_H

#include "../data/dataset.h"
#include "../model/model.h"

/* Loss and accuracy over a whole dataset in eval mode, batches of `batch`
 * (normalised as the Batcher does, no augmentation). Restores the mode. */
typedef struct EvalResult { double loss, accuracy; int n; } EvalResult;
EvalResult evaluate(Model *m, const Dataset *d, int batch);

#endif
