/* none.c - the none row: one process, nothing to synchronise (seed 001's
 * Task 1, lab1, the benches' single-process step). */
#include "rows.h"

const SyncRow SYNC_ROW_NONE = {
    .name = "none",
    .description = "single process, no synchronisation",
    .offered_in = SYNC_LAB(3),
    .default_alg = COMM_ALG_MPI,
    .one_process = true,
};
