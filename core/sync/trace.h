/* trace.h - timelines of one training step: every rank's events gathered
 * and written as a Chrome trace (trace.c). */
#ifndef DDL_SYNC_TRACE_H
#define DDL_SYNC_TRACE_H

#include "strategy.h"

/* Every rank's events of the last step, gathered on rank 0: *out holds
 * *n events and (*ranks)[i] says whose event i is; other ranks get NULL
 * and 0. Collective. Free both with free(). */
void sync_gather_events(Sync *s, SyncEvent **out, int **ranks, int *n);
/* Chrome trace JSON ("traceEvents": one pid per rank, tid 0 compute, tid 1
 * communication, times in microseconds; opens in Perfetto or
 * chrome://tracing), written atomically. `about` goes into "otherData".
 * Returns 0, or -1 if the file could not be written. */
int sync_write_chrome_trace(const char *path, const SyncEvent *ev, const int *ranks, int n, const char *about);

#endif
