/* results_csv.c - fuzz the results-CSV reader (table_read_csv).
 *
 * The reader takes a path, so the input goes into a memfd read through
 * /proc/self/fd/N (no file system writes per execution). Besides memory
 * safety it checks a round trip: a table read from any input, written
 * back by the CSV writer (csv_render, what table_write puts in the file)
 * and read again, has the same columns, cells and metadata. The one
 * exception is meta "summary": the writer derives that line (results.h). */
#include "fuzz.h"

#include "results/results.h"
#include "results/table_internal.h"

static Table *read_bytes(const void *data, size_t size, char *err, size_t cap)
{
    int fd = fuzz_file(data, size);
    char path[64];
    snprintf(path, sizeof path, "/proc/self/fd/%d", fd);
    Table *t = table_read_csv(path, err, cap);
    close(fd);
    return t;
}

static bool same_str(const char *a, const char *b) { return (!a && !b) || (a && b && !strcmp(a, b)); }

/* Meta entries other than "summary", in order. */
static int next_meta(const Meta *m, int i)
{
    while (i < m->n && !strcmp(m->key[i], "summary")) i++;
    return i;
}

static void check_table(const Table *t)
{
    FUZZ_CHECK(t->ncols >= 1 && t->nrows >= 0, "shape");
    for (int c = 0; c < t->ncols; c++) {
        FUZZ_CHECK(t->cols[c] && t->cols[c][0], "column names are not empty");
        for (int k = 0; k < c; k++) FUZZ_CHECK(strcmp(t->cols[c], t->cols[k]) != 0, "column names are unique");
    }
    for (int i = 0; i < t->meta.n; i++) {
        FUZZ_CHECK(meta_key_valid(t->meta.key[i]), "meta keys are valid");
        for (int k = 0; k < i; k++) FUZZ_CHECK(strcmp(t->meta.key[i], t->meta.key[k]) != 0, "meta keys are unique");
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char err[512] = "";
    Table *t = read_bytes(data, size, err, sizeof err);
    if (!t) {
        FUZZ_CHECK(err[0], "failure comes with a message");
        return 0;
    }
    check_table(t);

    Buf b = {0};
    csv_render(t, &b);
    char err2[512] = "";
    Table *u = read_bytes(b.p, b.len, err2, sizeof err2);
    if (!u) fprintf(stderr, "re-reading the written CSV: %s\n", err2);
    FUZZ_CHECK(u, "what the writer wrote reads back");
    FUZZ_CHECK(u->ncols == t->ncols && u->nrows == t->nrows, "round trip: shape");
    for (int c = 0; c < t->ncols; c++) {
        FUZZ_CHECK(!strcmp(u->cols[c], t->cols[c]), "round trip: column names");
        for (int r = 0; r < t->nrows; r++)
            FUZZ_CHECK(same_str(table_get(u, r, t->cols[c]), table_get(t, r, t->cols[c])), "round trip: cells");
    }
    int i = next_meta(&t->meta, 0), k = next_meta(&u->meta, 0);
    for (; i < t->meta.n && k < u->meta.n; i = next_meta(&t->meta, i + 1), k = next_meta(&u->meta, k + 1))
        FUZZ_CHECK(!strcmp(t->meta.key[i], u->meta.key[k]) && !strcmp(t->meta.val[i], u->meta.val[k]),
                   "round trip: meta entries");
    FUZZ_CHECK(i == t->meta.n && k == u->meta.n, "round trip: meta count");
    buf_free(&b);
    table_free(u);
    table_free(t);
    return 0;
}
