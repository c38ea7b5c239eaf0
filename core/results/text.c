/* text.c - a Table printed for people, in the layout of nccl-tests (the
 * NCCL benchmarks most readers of a bench have seen):
 *
 *   # ddlab bench/allreduce: commit 1a2b3c4, 2026-11-27T08:00:00Z, host
 *   # real ..., 2 ranks on 2 cores, cpu, ...
 *   #        alg      bytes    time   busbw  ratio
 *   #                   (B)    (us)  (GB/s)  (/mpi)
 *             ring   67108864  5021.3    13.4   0.97
 *
 * The '#' lines are the provenance and the column heads with their units;
 * every other line is one row, right-aligned under its head. The CSV that
 * table_write writes holds the same rows with full precision. */
#include <stdio.h>
#include <string.h>

#include "../util/common.h"
#include "table_internal.h"

enum { MAX_COLS = 64 };

static const char *meta_or(const Table *t, const char *key, const char *fallback)
{
    const char *v = meta_get(&t->meta, key);
    return v && *v ? v : fallback;
}

void table_print_text(const Table *t, const TextColumn *cols, int ncols, FILE *f)
{
    TextColumn all[MAX_COLS];
    if (!cols || ncols <= 0) { /* every column, under its CSV name */
        ncols = t->ncols < MAX_COLS ? t->ncols : MAX_COLS;
        for (int c = 0; c < ncols; c++) all[c] = (TextColumn){ t->cols[c], t->cols[c], "" };
        cols = all;
    }
    if (ncols > MAX_COLS) ncols = MAX_COLS;
    int index[MAX_COLS], width[MAX_COLS];
    for (int c = 0; c < ncols; c++) {
        index[c] = table_col(t, cols[c].col);
        if (index[c] < 0) ddl_die("table_print_text: table %s has no column '%s'", t->name, cols[c].col);
        size_t w = strlen(cols[c].head);
        size_t u = cols[c].unit && *cols[c].unit ? strlen(cols[c].unit) + 2 : 0;
        w = u > w ? u : w;
        for (int r = 0; r < t->nrows; r++) {
            const char *cell = table_cell(t, r, index[c]);
            size_t n = cell ? strlen(cell) : 1;
            w = n > w ? n : w;
        }
        width[c] = (int)w + (c == 0); /* the first head keeps a space after the '#' */
    }
    char summary[512];
    table_summary(t, summary, sizeof summary);
    Buf b = { 0 };
    buf_printf(&b, "# ddlab %s: commit %s, %s, %s\n", meta_or(t, "program", t->name), meta_or(t, "git", "unknown"),
               meta_or(t, "date", "unknown"), meta_or(t, "host", "unknown"));
    buf_printf(&b, "# %s\n", summary);
    for (int row = -2; row < t->nrows; row++) { /* -2: the heads, -1: their units, then the rows */
        buf_putc(&b, row < 0 ? '#' : ' ');
        for (int c = 0; c < ncols; c++) {
            char unit[64] = "";
            const char *text = row == -2 ? cols[c].head : row == -1 ? unit : table_cell(t, row, index[c]);
            if (row == -1 && cols[c].unit && *cols[c].unit) snprintf(unit, sizeof unit, "(%s)", cols[c].unit);
            buf_printf(&b, "%s%*s", c ? "  " : "", width[c], text ? text : "-");
        }
        while (b.len > 0 && b.p[b.len - 1] == ' ') b.p[--b.len] = '\0'; /* no trailing blanks */
        buf_putc(&b, '\n');
    }
    fputs(b.p, f);
    buf_free(&b);
    fflush(f);
}
