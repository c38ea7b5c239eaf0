/* group_avg_row.c - the group_avg row: after every local SGD step, one
 * round of group / pairwise weight averaging (group_avg.h, seed 000):
 * rotating groups of k+1 ring neighbours replace their weights by the
 * group's mean. k = P-1 without rotation is the full average (the seed's
 * all-reduce row). */
#include "rows.h"

#include <stdio.h>
#include "group_avg.h"

static int setup(Sync *s, char err[256])
{
    if (!s->c) {
        snprintf(err, 256, "group averaging needs ranks (a communicator)");
        return -1;
    }
    return group_avg_init(s->priv, s->c, s->cfg.group.passes, s->cfg.group.rotate, s->cfg.alg, err);
}

static void teardown(Sync *s) { group_avg_free(s->priv); }

static void after_step(Sync *s)
{
    GroupAvg *g = s->priv;
    double t0 = sync_clock(s);
    group_avg_round(g, s->m->params, s->m->nparams);
    sync_comm_event(s, "group average", t0, sync_clock(s), (double)s->m->nparams * sizeof(float));
}

/* The group Comms carry the traffic; s->c carries none of it. */
static void counters(const Sync *s, CommCounters *add)
{
    CommCounters c = group_avg_counters(s->priv);
    comm_counters_add(add, &c);
}

/* The rounds done pick the next grouping; the group Comms' traffic is
 * carried by Sync.resumed like every row's. */
static void save(const Sync *s, Ckpt *c)
{
    const GroupAvg *g = s->priv;
    ckpt_put_u64(c, "group_avg.rounds", (uint64_t)g->rounds);
}

static int load(Sync *s, const Ckpt *c, char err[DDL_ERRLEN])
{
    GroupAvg *g = s->priv;
    uint64_t rounds;
    if (ckpt_get_u64(c, "group_avg.rounds", &rounds, err)) return -1;
    g->rounds = (long)rounds;
    return 0;
}

const SyncRow SYNC_ROW_GROUP_AVG = {
    .name = "group_avg",
    .description = "after every local SGD step, rotating groups of k+1 ring neighbours average their weights",
    .state_bytes = sizeof(GroupAvg),
    .default_alg = COMM_ALG_RING,
    .setup = setup,
    .teardown = teardown,
    .after_step = after_step,
    .counters = counters,
    .save = save,
    .load = load,
};
