/* fed_closed_form.c - seed 004's Section 3.2: bytes per round = parameters
 * x bytes per parameter; bytes per epoch = rounds per epoch x that. */
#include "fed_closed_form.h"

uint64_t fed_bytes_per_round(size_t params, CommDtype dtype)
{
    return (uint64_t)params * (dtype == COMM_FP16 ? 2u : 4u);
}

double fed_rounds_per_epoch(SyncKind kind, long train_n, int global_batch, int local_epochs)
{
    if (kind == SYNC_DSGD) return (double)train_n / (double)global_batch;
    if (kind == SYNC_FEDAVG) return 1.0 / (double)local_epochs;
    return 0.0; /* csgd: no link */
}
