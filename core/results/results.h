/* results.h - tidy result tables with provenance, written atomically.
 *
 * Every lab measurement ends up in a Table: one row per measurement, named
 * columns, and a metadata block (git commit, date, host, ranks, threads,
 * device, dataset real/synthetic, profile, seed, MPI settings...). A table
 * is written as
 *   - CSV:   "# key: value" metadata lines, then a header row, then rows
 *            (gnuplot skips the '#' lines; pandas reads with comment='#');
 *   - JSON:  {"meta": {...}, "columns": [...], "rows": [[...], ...]};
 *   - LaTeX: a booktabs tabular (no siunitx) with a caption that carries
 *            the provenance line, for \input{} from report/report.tex.
 * All writes go to "<path>.tmp.<pid>" and are renamed into place, so a crash
 * never leaves a half-written file for `make figures` to plot.
 */
#ifndef DDL_RESULTS_H
#define DDL_RESULTS_H

#include <stdbool.h>
#include <stddef.h>

#define META_MAX 48

typedef struct Meta {
    int n;
    char key[META_MAX][32];
    char val[META_MAX][256];
} Meta;

/* Set (or replace) a metadata entry. */
void meta_set(Meta *m, const char *key, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
const char *meta_get(const Meta *m, const char *key);
/* Fill what every output must say: program, git commit (from the build),
 * date (UTC ISO 8601), host, cores, ranks, oversubscribed (ranks > cores on
 * one host), threads (OPENBLAS_NUM_THREADS/OMP_NUM_THREADS), openblas core
 * type, MPI library version. Call after MPI_Init. */
void meta_collect(Meta *m, const char *program);
/* One human line: "real MNIST, 4 ranks on 2 cores (oversubscribed), cpu,
 * quick profile, seed 1" built from meta keys dataset, data, ranks, cores,
 * oversubscribed, device, profile, seed (missing keys are skipped). */
void meta_summary(const Meta *m, char *out, size_t cap);

typedef struct Table {
    char name[64];
    int ncols;
    char **cols;
    int nrows, caprows;
    char **cells;          /* nrows * ncols strings, NULL = empty */
    bool row_open;
    Meta meta;
} Table;

/* columns: comma-separated names, e.g. "iter,epoch,loss,accuracy". */
Table *table_new(const char *name, const char *columns);
void table_free(Table *t);
/* Cells of the row being built; a row is opened by the first set after
 * table_end_row() (or creation). Unknown column names abort (a bug). */
void table_set_str(Table *t, const char *col, const char *value);
void table_set_int(Table *t, const char *col, long long value);
/* Numbers are written with %.9g unless fmt is given (e.g. "%.3f"). */
void table_set_num(Table *t, const char *col, double value, const char *fmt);
void table_end_row(Table *t);
/* Read back a cell (row, column name), NULL if empty/unknown. */
const char *table_get(const Table *t, int row, const char *col);

/* Write dir/<name>.csv and dir/<name>.json (mkdir -p dir). 0 on success,
 * -1 with errno-based message on stderr otherwise. */
int table_write(const Table *t, const char *dir);

/* LaTeX table: columns to show and their header labels (parallel arrays,
 * labels may contain LaTeX), alignment string e.g. "llrrr". Caption gets
 * the meta_summary() line appended in \footnotesize. */
typedef struct TexSpec {
    const char *caption;
    const char *label;     /* e.g. "tab:lab1" */
    int ncols;
    const char *const *cols;
    const char *const *headers;
    const char *align;
} TexSpec;
int table_write_tex(const Table *t, const TexSpec *spec, const char *path);

/* Atomic whole-file write helpers used by all writers. */
int write_file_atomic(const char *path, const char *data, size_t len);
/* mkdir -p; 0 on success. */
int mkdir_p(const char *dir);

/* Read a CSV written by table_write back into a Table (for graders,
 * tests and `make figures` helpers). NULL with a message on failure. */
Table *table_read_csv(const char *path, char *err, size_t errcap);

#endif
