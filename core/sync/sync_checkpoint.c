/* sync_checkpoint.c - a strategy's part of a checkpoint (sync.h): what
 * every row shares (steps, traffic) here, and the row's own state through
 * its save/load operations. */
#include "sync.h"

#include <string.h>

typedef struct SyncSaved {
    int64_t steps;
    CommCounters traffic;
} SyncSaved;

void sync_save(const Sync *s, Ckpt *c)
{
    SyncSaved v = { .steps = s->steps, .traffic = sync_counters(s) };
    ckpt_put(c, "sync.shared", &v, sizeof v);
    ckpt_put_str(c, "sync.row", s->row->name);
    if (s->row->save) s->row->save(s, c);
}

/* What setting the strategy up moved again is already counted; the
 * checkpoint's total replaces it: resumed = saved - now (wraps back when
 * added). */
static void rebase(Sync *s, const CommCounters *saved)
{
    memset(&s->resumed, 0, sizeof s->resumed); /* sync_counters adds it */
    s->resumed = comm_counters_minus(*saved, sync_counters(s));
}

int sync_load(Sync *s, const Ckpt *c, char err[DDL_ERRLEN])
{
    const char *row = ckpt_str(c, "sync.row");
    if (!row || strcmp(row, s->row->name))
        return ddl_errf(err, "checkpoint was written by strategy '%s', this run uses '%s'", row ? row : "?",
                             s->row->name);
    SyncSaved v;
    if (ckpt_get(c, "sync.shared", &v, sizeof v, err)) return -1;
    if (s->row->load && s->row->load(s, c, err)) return -1;
    s->steps = (long)v.steps;
    rebase(s, &v.traffic);
    return 0;
}
