/* fedavg.h - one round of federated averaging (seed 004, 1.2.2; McMahan
 * et al. 2017; fed.h): the fedavg row's round. */
#ifndef DDL_SYNC_FEDAVG_H
#define DDL_SYNC_FEDAVG_H

#include "../mixed/mixed.h"
#include "fed_link.h"

/* One FedAvg round after the users' local epochs. Users upload their
 * model (master weights: FP16 runs send them rounded to half), their BN
 * statistics and the examples they trained on, then download the global
 * model and statistics. Cloud: fedavg_aggregate of models and of
 * statistics (bufs/state_bufs: U arrays each), then sends them down. */
void fedavg_round(FedLink *l, Mixed *mx, double examples, float *const *bufs, float *const *state_bufs);

#endif
