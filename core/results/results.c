/* results.c - the Table: named columns, rows of text cells, metadata.
 *
 * Cells are kept as the text that will be written, so CSV, JSON and LaTeX
 * show exactly the same digits and a table read back from CSV compares
 * equal to the one written. */
#include "results.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../util/common.h"
#include "table_internal.h"

static char *xstrdup(const char *s)
{
    size_t n = strlen(s) + 1;
    char *p = malloc(n);
    if (!p) ddl_die("out of memory copying a %zu-byte string", n);
    memcpy(p, s, n);
    return p;
}

static void add_column(Table *t, const char *name, size_t len)
{
    while (len > 0 && isspace((unsigned char)*name)) { name++; len--; }
    while (len > 0 && isspace((unsigned char)name[len - 1])) len--;
    if (len == 0) ddl_die("table '%s': empty column name", t->name);
    char *col = malloc(len + 1);
    if (!col) ddl_die("out of memory");
    memcpy(col, name, len);
    col[len] = '\0';
    if (table_col(t, col) >= 0) ddl_die("table '%s': duplicate column '%s'", t->name, col);
    char **cols = realloc(t->cols, (size_t)(t->ncols + 1) * sizeof *cols);
    if (!cols) ddl_die("out of memory");
    t->cols = cols;
    t->cols[t->ncols++] = col;
}

Table *table_new(const char *name, const char *columns)
{
    Table *t = calloc(1, sizeof *t);
    if (!t) ddl_die("out of memory");
    /* The name becomes a file name: keep it to one path component. */
    if (!name || !*name || strchr(name, '/') || strlen(name) >= sizeof t->name)
        ddl_die("table name '%s' must be 1..%zu characters without '/'", name ? name : "(null)",
                sizeof t->name - 1);
    ddl_strlcpy(t->name, name, sizeof t->name);
    const char *p = columns;
    for (;;) {
        const char *comma = strchr(p, ',');
        size_t len = comma ? (size_t)(comma - p) : strlen(p);
        add_column(t, p, len);
        if (!comma) break;
        p = comma + 1;
    }
    return t;
}

void table_free(Table *t)
{
    if (!t) return;
    for (size_t i = 0; i < (size_t)t->nrows * (size_t)t->ncols; i++) free(t->cells[i]);
    free(t->cells);
    for (int c = 0; c < t->ncols; c++) free(t->cols[c]);
    free(t->cols);
    free(t);
}

void table_tex_bold(Table *t, const char *col)
{
    if (!col || !*col) {
        t->tex_bold[0] = '\0';
        return;
    }
    if (table_col(t, col) < 0) ddl_die("table '%s': no column '%s' to mark bold rows", t->name, col);
    ddl_strlcpy(t->tex_bold, col, sizeof t->tex_bold);
}

int table_col(const Table *t, const char *name)
{
    for (int c = 0; c < t->ncols; c++)
        if (strcmp(t->cols[c], name) == 0) return c;
    return -1;
}

const char *table_cell(const Table *t, int row, int col)
{
    if (row < 0 || row >= t->nrows || col < 0 || col >= t->ncols) return NULL;
    return t->cells[(size_t)row * (size_t)t->ncols + (size_t)col];
}

void table_summary(const Table *t, char *out, size_t cap)
{
    const char *s = meta_get(&t->meta, "summary");
    if (!s) {
        meta_summary(&t->meta, out, cap);
        return;
    }
    /* A provenance line a lab composed itself still says which network
     * the runs crossed (make labN NET=...; meta_summary says it first). */
    const char *net = meta_get(&t->meta, "emulated_network");
    if (net && !strstr(s, "emulated network")) snprintf(out, cap, "emulated network: %s, %s", net, s);
    else ddl_strlcpy(out, s, cap);
}

/* The open row is counted in nrows, so table_get and the writers see it. */
static char **open_row_cell(Table *t, const char *col)
{
    int c = table_col(t, col);
    if (c < 0) ddl_die("table '%s' has no column '%s'", t->name, col);
    if (!t->row_open) {
        if (t->nrows == t->caprows) {
            int cap = t->caprows ? 2 * t->caprows : 16;
            char **cells = realloc(t->cells, (size_t)cap * (size_t)t->ncols * sizeof *cells);
            if (!cells) ddl_die("out of memory growing table '%s' to %d rows", t->name, cap);
            t->cells = cells;
            t->caprows = cap;
        }
        memset(t->cells + (size_t)t->nrows * (size_t)t->ncols, 0, (size_t)t->ncols * sizeof *t->cells);
        t->nrows++;
        t->row_open = true;
    }
    return &t->cells[(size_t)(t->nrows - 1) * (size_t)t->ncols + (size_t)c];
}

void table_set_str(Table *t, const char *col, const char *value)
{
    char **cell = open_row_cell(t, col);
    free(*cell);
    *cell = value && *value ? xstrdup(value) : NULL;
}

void table_set_int(Table *t, const char *col, long long value)
{
    char s[32];
    snprintf(s, sizeof s, "%lld", value);
    table_set_str(t, col, s);
}

/* A caller's format must convert exactly one double: "%[flags][width]
 * [.prec](f|e|g|a|F|E|G|A)", plus literal text. Anything else is a bug
 * that would otherwise read garbage off the stack. */
static bool double_format_ok(const char *fmt)
{
    int conversions = 0;
    for (const char *p = fmt; *p; p++) {
        if (*p != '%') continue;
        if (p[1] == '%') { p++; continue; }
        p++;
        while (*p && strchr("-+ #0", *p)) p++;
        while (isdigit((unsigned char)*p)) p++;
        if (*p == '.') {
            p++;
            while (isdigit((unsigned char)*p)) p++;
        }
        if (!*p || !strchr("feEgGaAF", *p)) return false;
        conversions++;
    }
    return conversions == 1;
}

void table_set_num(Table *t, const char *col, double value, const char *fmt)
{
    if (!fmt) fmt = "%.9g";
    if (!double_format_ok(fmt)) ddl_die("table '%s' column '%s': bad number format '%s'", t->name, col, fmt);
    char s[128];
    snprintf(s, sizeof s, fmt, value);
    table_set_str(t, col, s);
}

void table_end_row(Table *t) { t->row_open = false; }

const char *table_get(const Table *t, int row, const char *col)
{
    return table_cell(t, row, table_col(t, col));
}

const char *table_text(const Table *t, int row, const char *col)
{
    const char *s = table_get(t, row, col);
    return s ? s : "";
}

double table_num(const Table *t, int row, const char *col)
{
    const char *s = table_get(t, row, col);
    return s && *s ? atof(s) : NAN;
}

static int write_rendered(const Table *t, const char *dir, const char *ext,
                          void (*render)(const Table *, Buf *))
{
    char path[4096];
    if (snprintf(path, sizeof path, "%s/%s.%s", dir, t->name, ext) >= (int)sizeof path) {
        ddl_warn("cannot write %s/%s.%s: path too long", dir, t->name, ext);
        return -1;
    }
    Buf b = {0};
    render(t, &b);
    int rc = write_file_atomic(path, b.p ? b.p : "", b.len);
    buf_free(&b);
    return rc;
}

int table_write(const Table *t, const char *dir)
{
    if (mkdir_p(dir) != 0) {
        ddl_warn("cannot write table '%s': creating directory %s: %s", t->name, dir, strerror(errno));
        return -1;
    }
    int rc = write_rendered(t, dir, "csv", csv_render);
    if (write_rendered(t, dir, "json", json_render) != 0) rc = -1;
    return rc;
}
