/* checkpoint_table.c - a results table's rows in a checkpoint
 * (checkpoint.h): u32 columns, u32 rows, the column names, then every
 * cell, each a NUL-terminated string ("" for an empty cell). */
#include "checkpoint.h"

#include <string.h>

#include "buf.h"
#include "results.h"

void ckpt_put_table(Ckpt *c, const char *name, const Table *t)
{
    Buf b = { 0 };
    uint32_t head[2] = { (uint32_t)t->ncols, (uint32_t)t->nrows };
    buf_put(&b, (const char *)head, sizeof head);
    for (int j = 0; j < t->ncols; j++) buf_put(&b, t->cols[j], strlen(t->cols[j]) + 1);
    for (int i = 0; i < t->nrows; i++)
        for (int j = 0; j < t->ncols; j++) {
            const char *cell = t->cells[(size_t)i * t->ncols + j];
            buf_put(&b, cell ? cell : "", strlen(cell ? cell : "") + 1);
        }
    ckpt_put(c, name, b.p, b.len);
    buf_free(&b);
}

/* The next NUL-terminated string inside [*p, end), or NULL. */
static const char *next_str(const char **p, const char *end)
{
    const char *s = *p, *nul = s < end ? memchr(s, '\0', (size_t)(end - s)) : NULL;
    if (!nul) return NULL;
    *p = nul + 1;
    return s;
}

int ckpt_get_table(const Ckpt *c, const char *name, Table *t, char err[DDL_ERRLEN])
{
    size_t len = 0;
    const char *p = ckpt_find(c, name, &len);
    uint32_t head[2];
    if (!p || len < sizeof head) return ddl_errf(err, "checkpoint has no table '%s'", name);
    const char *end = p + len;
    memcpy(head, p, sizeof head);
    p += sizeof head;
    if ((int)head[0] != t->ncols) return ddl_errf(err, "checkpoint table '%s' has other columns", name);
    for (int j = 0; j < t->ncols; j++) {
        const char *col = next_str(&p, end);
        if (!col || strcmp(col, t->cols[j])) return ddl_errf(err, "checkpoint table '%s' has other columns", name);
    }
    for (uint32_t i = 0; i < head[1]; i++) {
        for (int j = 0; j < t->ncols; j++) {
            const char *cell = next_str(&p, end);
            if (!cell) return ddl_errf(err, "checkpoint table '%s' is cut short", name);
            table_set_str(t, t->cols[j], cell);
        }
        table_end_row(t);
    }
    return p == end ? 0 : ddl_errf(err, "checkpoint table '%s' has trailing bytes", name);
}
