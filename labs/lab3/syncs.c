/* syncs.c - the strategies lab3 offers, listed from core/sync's table
 * (the rows whose offered_in has SYNC_LAB(3), in table order), so that a
 * row added there is a --sync choice, in --help, and swept and plotted by
 * `make lab3` (run.sh and figures.sh read --list-syncs) with no list here
 * to edit. What stays lab3's own: which strategy each of the seed's tasks
 * stands for. */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "lab3.h"

/* The seed's tasks and the strategy each one ran. */
static const char *const TASK_SYNC[][2] = { { "1", "none" }, { "2a", "gather_scatter" }, { "2b", "allreduce" },
                                            { "3", "ddp" } };

const char *lab3_task_sync(const char *task)
{
    for (size_t i = 0; i < sizeof TASK_SYNC / sizeof TASK_SYNC[0]; i++)
        if (!strcmp(task, TASK_SYNC[i][0])) return TASK_SYNC[i][1];
    return NULL;
}

static const char *task_of(const char *sync)
{
    for (size_t i = 0; i < sizeof TASK_SYNC / sizeof TASK_SYNC[0]; i++)
        if (!strcmp(sync, TASK_SYNC[i][1])) return TASK_SYNC[i][0];
    return NULL;
}

/* printf at buf + *n; the lists are built once at start, so a buffer too
 * small for a longer table is a bug to hear of at once. */
static void append(char *buf, size_t cap, size_t *n, const char *fmt, ...) __attribute__((format(printf, 4, 5)));
static void append(char *buf, size_t cap, size_t *n, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int w = vsnprintf(buf + *n, cap - *n, fmt, ap);
    va_end(ap);
    if (w < 0 || (size_t)w >= cap - *n) ddl_die("lab3: its list of strategies needs more than %zu bytes", cap);
    *n += (size_t)w;
}

const char *lab3_sync_choices(void)
{
    static char buf[1024];
    return sync_kind_names(buf, sizeof buf, "|", 3);
}

const char *lab3_multirank_syncs(const char *sep)
{
    static char buf[1024];
    size_t n = 0;
    buf[0] = '\0';
    for (int k = 0; k < SYNC_KIND_COUNT; k++)
        if (sync_kind_offered((SyncKind)k, 3) && !sync_kind_one_process((SyncKind)k))
            append(buf, sizeof buf, &n, "%s%s", n ? sep : "", sync_kind_name((SyncKind)k));
    return buf;
}

const char *lab3_sync_help(void)
{
    static char buf[4096];
    size_t n = 0;
    int width = sync_kind_name_width(3, 14); /* at least "allreduce_flat"'s */
    buf[0] = '\0';
    for (int k = 0; k < SYNC_KIND_COUNT; k++) {
        if (!sync_kind_offered((SyncKind)k, 3)) continue;
        const char *task = task_of(sync_kind_name((SyncKind)k));
        append(buf, sizeof buf, &n, "  %-*s  %s", width, sync_kind_name((SyncKind)k),
               sync_kind_description((SyncKind)k));
        if (task) append(buf, sizeof buf, &n, " (Task %s)", task);
        append(buf, sizeof buf, &n, "\n");
    }
    return buf;
}
