/* checkpoint_state.h - the state of the pieces every run shares, into and
 * out of a checkpoint (results/checkpoint.h): a model (parameters, BN
 * running statistics, its dropout step), SGD (velocity, steps), a batcher
 * (epoch, position, augmentation stream). The prefix names their sections
 * ("model" -> "model.params"). */
#ifndef DDL_TRAIN_CHECKPOINT_STATE_H
#define DDL_TRAIN_CHECKPOINT_STATE_H

#include "../data/dataset.h"
#include "../model/model.h"
#include "optim.h"
#include "../results/checkpoint.h"


void ckpt_put_model(Ckpt *c, const char *prefix, const Model *m);
int ckpt_get_model(const Ckpt *c, const char *prefix, Model *m, char err[DDL_ERRLEN]);
void ckpt_put_sgd(Ckpt *c, const char *prefix, const Sgd *s);
int ckpt_get_sgd(const Ckpt *c, const char *prefix, Sgd *s, char err[DDL_ERRLEN]);
/* The batcher's epoch, position and augmentation stream (its order is
 * rebuilt from the seed and the epoch). */
void ckpt_put_batcher(Ckpt *c, const char *prefix, const Batcher *b);
int ckpt_get_batcher(const Ckpt *c, const char *prefix, Batcher *b, char err[DDL_ERRLEN]);

#endif
