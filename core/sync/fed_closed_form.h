/* fed_closed_form.h - seed 004's Section 3.2: what the cloud-and-users
 * schemes move per round and per epoch, in closed form (fed.h). */
#ifndef DDL_SYNC_FED_CLOSED_FORM_H
#define DDL_SYNC_FED_CLOSED_FORM_H

#include <stdint.h>
#include "../comm/comm.h"
#include "strategy.h"

/* Bytes one user uploads per round (= what it downloads): params x 4 in
 * FP32, x 2 in FP16. The seed's "size per round". */
uint64_t fed_bytes_per_round(size_t params, CommDtype dtype);
/* Rounds per epoch as the seed computes them: csgd 0, dsgd
 * train_n / global_batch (not rounded: 50000/256 = 195.3), fedavg
 * 1 / local_epochs (kind: SYNC_CSGD, SYNC_DSGD, SYNC_FEDAVG). */
double fed_rounds_per_epoch(SyncKind kind, long train_n, int global_batch, int local_epochs);

#endif
