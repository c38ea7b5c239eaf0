/* rows.h - the rows of the strategy table (sync.c), one per line of
 * rows.def, each defined in the file named there. */
#ifndef DDL_SYNC_ROWS_H
#define DDL_SYNC_ROWS_H

#include "strategy.h"

#define SYNC_ROW(NAME) extern const SyncRow SYNC_ROW_##NAME;
#include "rows.def"
#undef SYNC_ROW

#endif
