/* styles.c - the styles lab6 offers, listed from core/sync's table (the
 * rows whose offered_in has SYNC_LAB(6): horovod and ps, the two designs
 * seed 003 compares), in table order: --style's choices and --help's
 * lines, and `bin/lab6 --list-styles` for make lab6 (run.sh), which
 * gives a style whose rank 0 serves one rank more than its workers. */
#include <stdio.h>
#include <string.h>

#include "lab6.h"

const char *lab6_style_choices(void)
{
    static char buf[512];
    return sync_kind_names(buf, sizeof buf, "|", 6);
}

const char *lab6_style_help(void)
{
    static char buf[2048];
    size_t n = 0;
    int width = sync_kind_name_width(6, 7); /* at least "horovod"'s */
    buf[0] = '\0';
    for (int k = 0; k < SYNC_KIND_COUNT; k++) {
        if (!sync_kind_offered((SyncKind)k, 6)) continue;
        bool serves = sync_kind_rank0_serves((SyncKind)k);
        int w = snprintf(buf + n, sizeof buf - n, "  %-*s  %s\n%*s%s", width, sync_kind_name((SyncKind)k),
                         sync_kind_description((SyncKind)k), serves ? width + 4 : 0, "",
                         serves ? "(rank 0 serves: P workers are P+1 ranks)\n" : "");
        if (w < 0 || (size_t)w >= sizeof buf - n) ddl_die("lab6: its styles' help needs more than %zu bytes", sizeof buf);
        n += (size_t)w;
    }
    return buf;
}

void lab6_list_styles(void)
{
    for (int k = 0; k < SYNC_KIND_COUNT; k++)
        if (sync_kind_offered((SyncKind)k, 6))
            printf("%s %d\n", sync_kind_name((SyncKind)k), sync_kind_rank0_serves((SyncKind)k) ? 1 : 0);
}
