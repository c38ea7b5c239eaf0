/* rows.h - the rows of the strategy table (sync.c), one per strategy,
 * each defined in the file named beside it. */
#ifndef DDL_SYNC_ROWS_H
#define DDL_SYNC_ROWS_H

#include "strategy.h"

extern const SyncRow SYNC_ROW_NONE;            /* none.c */
extern const SyncRow SYNC_ROW_GATHER_SCATTER;  /* per_parameter.c */
extern const SyncRow SYNC_ROW_ALLREDUCE;       /* per_parameter.c */
extern const SyncRow SYNC_ROW_ALLREDUCE_FLAT;  /* flat.c */
extern const SyncRow SYNC_ROW_DDP;             /* ddp.c */
extern const SyncRow SYNC_ROW_HOROVOD;         /* horovod.c */
extern const SyncRow SYNC_ROW_PS;              /* ps.c */
extern const SyncRow SYNC_ROW_PS_ASYNC;        /* ps.c */
extern const SyncRow SYNC_ROW_WEIGHT_AVG;      /* weight_avg.c */
extern const SyncRow SYNC_ROW_GROUP_AVG;       /* group_avg_row.c */
extern const SyncRow SYNC_ROW_CSGD;            /* csgd.c */
extern const SyncRow SYNC_ROW_DSGD;            /* dsgd.c */
extern const SyncRow SYNC_ROW_FEDAVG;          /* fedavg.c */

#endif
