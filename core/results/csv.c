/* csv.c - CSV rendering (RFC 4180 quoting) and reading back.
 *
 * Layout:  "# key: value" per meta entry, "# summary: <provenance line>",
 *          the header row, then one line per row.
 * gnuplot skips the '#' lines; pandas reads it with comment='#'. The
 * summary line is derived (meta "summary" if set, else meta_summary()), so
 * a meta entry named "summary" is not written twice. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../util/common.h"
#include "table_internal.h"

/* Quote when a reader would otherwise split or misread the cell: separators,
 * quotes, line breaks, and a leading '#' (it would look like a comment). */
static void put_cell(Buf *b, const char *s, bool only_cell)
{
    /* A one-column row with an empty cell would be a blank line, which
     * readers skip: write it as "". */
    if (!s) {
        if (only_cell) buf_puts(b, "\"\"");
        return;
    }
    if (!strpbrk(s, ",\"\r\n") && s[0] != '#') {
        buf_puts(b, s);
        return;
    }
    buf_putc(b, '"');
    for (; *s; s++) {
        if (*s == '"') buf_putc(b, '"');
        buf_putc(b, *s);
    }
    buf_putc(b, '"');
}

void csv_render(const Table *t, Buf *b)
{
    for (int i = 0; i < t->meta.n; i++)
        if (strcmp(t->meta.key[i], "summary") != 0)
            buf_printf(b, "# %s: %s\n", t->meta.key[i], t->meta.val[i]);
    char summary[512];
    table_summary(t, summary, sizeof summary);
    buf_printf(b, "# summary: %s\n", summary);
    for (int c = 0; c < t->ncols; c++) {
        if (c) buf_putc(b, ',');
        put_cell(b, t->cols[c], t->ncols == 1);
    }
    buf_putc(b, '\n');
    for (int r = 0; r < t->nrows; r++) {
        for (int c = 0; c < t->ncols; c++) {
            if (c) buf_putc(b, ',');
            put_cell(b, table_cell(t, r, c), t->ncols == 1);
        }
        buf_putc(b, '\n');
    }
}

/* ---- reading ------------------------------------------------------------ */

typedef struct Fields {
    int n, cap;
    char **v;
} Fields;

static void fields_clear(Fields *f)
{
    for (int i = 0; i < f->n; i++) free(f->v[i]);
    f->n = 0;
}

static void fields_push(Fields *f, Buf *cell)
{
    f->v = ddl_grow(f->v, f->n, &f->cap, sizeof *f->v, 16, "a CSV row's fields");
    /* Hand the buffer over (an empty cell has no buffer yet). */
    if (!cell->p) buf_puts(cell, "");
    f->v[f->n++] = cell->p;
    *cell = (Buf){0};
}

/* Parse one record starting at *pos; advances past its line end. Returns
 * 0, or -1 on an unterminated quote. Line numbers count physical lines. */
static int parse_record(const char *s, size_t len, size_t *pos, Fields *f, int *line)
{
    Buf cell = {0};
    size_t i = *pos;
    fields_clear(f);
    for (;;) {
        if (i < len && s[i] == '"') {
            i++;
            for (;;) {
                if (i >= len) {
                    buf_free(&cell);
                    return -1;
                }
                if (s[i] == '"') {
                    if (i + 1 < len && s[i + 1] == '"') { buf_putc(&cell, '"'); i += 2; continue; }
                    i++;
                    break;
                }
                if (s[i] == '\n') (*line)++;
                buf_putc(&cell, s[i++]);
            }
        }
        /* Unquoted text (or anything after a closing quote) up to a separator. */
        while (i < len && s[i] != ',' && s[i] != '\n' && s[i] != '\r') buf_putc(&cell, s[i++]);
        fields_push(f, &cell);
        if (i < len && s[i] == ',') { i++; continue; }
        if (i < len && s[i] == '\r') i++;
        if (i < len && s[i] == '\n') i++;
        (*line)++;
        *pos = i;
        return 0;
    }
}

static char *read_whole(const char *path, size_t *len, char *err, size_t errcap)
{
    FILE *f = fopen(path, "rb");
    if (!f) {
        snprintf(err, errcap, "%s: %s", path, strerror(errno));
        return NULL;
    }
    Buf b = {0};
    char chunk[65536];
    size_t n;
    while ((n = fread(chunk, 1, sizeof chunk, f)) > 0) buf_put(&b, chunk, n);
    int bad = ferror(f);
    fclose(f);
    if (bad) {
        snprintf(err, errcap, "%s: read error", path);
        buf_free(&b);
        return NULL;
    }
    if (!b.p) buf_puts(&b, "");
    *len = b.len;
    return b.p;
}

/* "# key: value" -> meta; other comment lines are ignored. */
static void parse_meta_line(Table *t, const char *line, size_t n)
{
    char tmp[512];
    if (n >= sizeof tmp) n = sizeof tmp - 1;
    memcpy(tmp, line, n);
    tmp[n] = '\0';
    if (n > 0 && tmp[n - 1] == '\r') tmp[--n] = '\0';
    char *key = tmp + 1;
    while (*key == ' ') key++;
    char *colon = strstr(key, ": ");
    if (!colon) {
        size_t kl = strlen(key);
        if (kl == 0 || key[kl - 1] != ':') return;   /* not "key: value" */
        colon = key + kl - 1;                        /* "key:" with empty value */
    }
    *colon = '\0';
    const char *val = colon[1] ? colon + 2 : "";
    if (!meta_key_valid(key) || (t->meta.n == META_MAX && !meta_get(&t->meta, key))) return;
    meta_set(&t->meta, key, "%s", val);
}

Table *table_read_csv(const char *path, char *err, size_t errcap)
{
    size_t len = 0;
    char *s = read_whole(path, &len, err, errcap);
    if (!s) return NULL;

    /* Table name: file name without directory and ".csv". */
    const char *base = strrchr(path, '/');
    base = base ? base + 1 : path;
    char name[64];
    ddl_strlcpy(name, base, sizeof name);
    size_t nl = strlen(name);
    if (nl > 4 && strcmp(name + nl - 4, ".csv") == 0) name[nl - 4] = '\0';
    if (!name[0]) ddl_strlcpy(name, "table", sizeof name);

    size_t pos = 0;
    int line = 1;
    Table *t = NULL;
    Fields f = {0};
    Table holder = {0};   /* collects meta before the header creates t */

    while (pos < len && s[pos] == '#') {
        const char *eol = memchr(s + pos, '\n', len - pos);
        size_t n = eol ? (size_t)(eol - (s + pos)) : len - pos;
        parse_meta_line(&holder, s + pos, n);
        pos += n + (eol ? 1 : 0);
        line++;
    }
    if (pos >= len) {
        snprintf(err, errcap, "%s: no header row", path);
        goto fail;
    }
    if (parse_record(s, len, &pos, &f, &line) != 0) {
        snprintf(err, errcap, "%s:%d: unterminated quote in header", path, line);
        goto fail;
    }
    {
        /* Columns are taken as they are (they may contain commas, so
         * table_new()'s comma-separated spec cannot be used). */
        t = calloc(1, sizeof *t);
        if (!t) ddl_die("out of memory");
        ddl_strlcpy(t->name, name, sizeof t->name);
        for (int c = 0; c < f.n; c++) {
            if (!f.v[c][0] || table_col(t, f.v[c]) >= 0) {
                snprintf(err, errcap, "%s:%d: empty or duplicate column name '%s'", path, line - 1, f.v[c]);
                goto fail;
            }
            char **cols = realloc(t->cols, (size_t)(t->ncols + 1) * sizeof *cols);
            if (!cols) ddl_die("out of memory");
            t->cols = cols;
            t->cols[t->ncols++] = f.v[c];
            f.v[c] = NULL;   /* now owned by t */
        }
        f.n = 0;
    }
    t->meta = holder.meta;

    while (pos < len) {
        /* Blank lines and '#' comments (a data cell starting with '#' is
         * always quoted) are not rows. */
        if (s[pos] == '\n' || s[pos] == '#' || (s[pos] == '\r' && pos + 1 < len && s[pos + 1] == '\n')) {
            const char *eol = memchr(s + pos, '\n', len - pos);
            pos = eol ? (size_t)(eol - s) + 1 : len;
            line++;
            continue;
        }
        int first = line;
        if (parse_record(s, len, &pos, &f, &line) != 0) {
            snprintf(err, errcap, "%s:%d: unterminated quote", path, first);
            goto fail;
        }
        if (f.n != t->ncols) {
            snprintf(err, errcap, "%s:%d: %d fields, expected %d", path, first, f.n, t->ncols);
            goto fail;
        }
        for (int c = 0; c < f.n; c++)
            if (f.v[c][0]) table_set_str(t, t->cols[c], f.v[c]);
        /* An all-empty row still counts as a row. */
        if (!t->row_open) table_set_str(t, t->cols[0], NULL);
        table_end_row(t);
    }
    fields_clear(&f);
    free(f.v);
    free(s);
    return t;

fail:
    fields_clear(&f);
    free(f.v);
    free(s);
    table_free(t);
    return NULL;
}
