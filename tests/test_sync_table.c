/* test_sync_table.c - the table of synchronisation strategies
 * (core/sync/rows.def) as data: every row, whatever it does, is whole and
 * reachable, and what the labs list from it (their choices, lab3's sweep)
 * is the table's rows in the table's order. The rows are read through
 * rows.def itself, so a row added there is checked here without an edit.
 *
 * Per row: a name and a description; the name is unique and
 * sync_kind_from_name finds the row's own SyncKind; sync_config_default
 * takes the row's algorithm and buffer broadcast; save and load come
 * together (a checkpoint written must be readable); a round row is not
 * also a step row; offered_in names labs 1..6 only; a row lab3 offers
 * trains in steps through sync_train_step (no round of its own: lab3's
 * loop runs steps) and does not serve from rank 0 (lab3 times every rank's
 * step). Per lab: sync_kind_names is the offered rows in table order. */
#include <stdio.h>
#include <string.h>

#include "harness.h"
#include "sync/rows.h"
#include "sync/sync.h"

static const SyncRow *const ROWS[] = {
#define SYNC_ROW(NAME) &SYNC_ROW_##NAME,
#include "sync/rows.def"
#undef SYNC_ROW
};
#define NROWS ((int)(sizeof ROWS / sizeof ROWS[0]))

static void check_row(int k)
{
    const SyncRow *r = ROWS[k];
    const char *name = r->name ? r->name : "(no name)";
    SyncKind found = SYNC_KIND_COUNT;
    t_check(r->name && *r->name && r->description && *r->description, "row %d (%s): a name and a description", k,
            name);
    bool known = sync_kind_from_name(name, &found) == 0;
    t_check(known && found == (SyncKind)k && !strcmp(sync_kind_name(found), name),
            "%s: sync_kind_from_name finds its own kind (%d; found %d)", name, k, known ? (int)found : -1);
    SyncConfig cfg = sync_config_default((SyncKind)k);
    t_check(cfg.kind == (SyncKind)k && cfg.alg == r->default_alg && cfg.broadcast_buffers == r->broadcast_buffers,
            "%s: sync_config_default takes its kind, algorithm and buffer broadcast", name);
    t_check(!r->save == !r->load, "%s: saves state only if it loads it, and the other way round", name);
    t_check(!(r->round && r->step), "%s: trains in rounds or in steps, not both", name);
    unsigned labs = SYNC_LAB(1) | SYNC_LAB(2) | SYNC_LAB(3) | SYNC_LAB(4) | SYNC_LAB(5) | SYNC_LAB(6);
    t_check((r->offered_in & ~labs) == 0, "%s: offered_in names labs 1..6 only (0x%x)", name, r->offered_in);
    if (r->offered_in & SYNC_LAB(3))
        t_check(!r->round && !r->rank0_serves, "%s: offered by lab3, so trains in steps on every rank", name);
}

/* sync_kind_names(lab) against the table read here, in its order. */
static void check_lab(int lab)
{
    char got[1024], want[1024] = "";
    sync_kind_names(got, sizeof got, "|", lab);
    for (int k = 0; k < NROWS; k++)
        if (ROWS[k]->offered_in & SYNC_LAB(lab)) {
            if (*want) strcat(want, "|");
            strcat(want, ROWS[k]->name);
        }
    t_check(!strcmp(got, want), "lab%d: sync_kind_names lists the rows it offers in table order ('%s'; want '%s')",
            lab, got, want);
}

int main(void)
{
    t_checkf(NROWS == SYNC_KIND_COUNT, "rows.def has one row per SyncKind", "%d rows, %d kinds", NROWS,
             (int)SYNC_KIND_COUNT);
    for (int k = 0; k < NROWS; k++) check_row(k);
    bool unique = true;
    for (int i = 0; i < NROWS; i++)
        for (int j = i + 1; j < NROWS; j++) unique = unique && strcmp(ROWS[i]->name, ROWS[j]->name) != 0;
    t_check(unique, "every row's name is its own");
    for (int lab = 1; lab <= 6; lab++) check_lab(lab);
    /* what lab3's --sync offers and what make lab3 sweeps: at least one
     * row that runs one process (Task 1) and one that synchronises ranks */
    bool one = false, many = false;
    for (int k = 0; k < NROWS; k++)
        if (sync_kind_offered((SyncKind)k, 3)) {
            one = one || sync_kind_one_process((SyncKind)k);
            many = many || !sync_kind_one_process((SyncKind)k);
        }
    t_check(one && many, "lab3 offers a one-process row (Task 1) and rows that synchronise ranks");
    return t_done();
}
