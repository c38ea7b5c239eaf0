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
 * never leaves a half-written file for `make figures` to plot, and a run
 * killed by SIGINT/SIGTERM/SIGHUP leaves no temp file either.
 */
#ifndef DDL_RESULTS_H
#define DDL_RESULTS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#define META_MAX 96 /* a lab run's ~50 keys, and a Slurm job's or an emulated network's on top */

typedef struct Meta {
    int n;
    char key[META_MAX][32];
    char val[META_MAX][768]; /* room for the emulated network's setup line (~500 characters) */
} Meta;

/* Start from a zeroed Meta (Meta m = {0}; a Table's is already zeroed).
 * Keys are 1..31 characters of [A-Za-z0-9_.-] (anything else is a bug and
 * aborts); values are truncated to 767 characters, line breaks folded to
 * spaces. Set (or replace) an entry: */
void meta_set(Meta *m, const char *key, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
const char *meta_get(const Meta *m, const char *key);
bool meta_key_valid(const char *key);
/* Fill what every output must say: program, git (commit of the build),
 * build (compiler flags), date (UTC ISO 8601), host, run_id (the writing
 * process: host-pid-<boot id><start time>; see results_same_run), cores (online CPUs),
 * ranks, hosts (distinct processor names), oversubscribed ("yes" when some
 * host runs more ranks than it has cores), threads (OPENBLAS_NUM_THREADS,
 * else OMP_NUM_THREADS, else "default"), openblas_coretype (or "auto"),
 * mpi (first line of MPI_Get_library_version).
 * Simulated builds (SIM=1, SimGrid SMPI) add simulated ("SMPI, platform
 * X"), sim_network, sim_host_speed, sim_platform_speed, sim_coll_selector
 * and sim_compute, and count cores and hosts on the simulated platform.
 * COLLECTIVE over MPI_COMM_WORLD (it gathers host names): call it on every
 * rank, after MPI_Init. Without MPI initialised it reports 1 rank. */
void meta_collect(Meta *m, const char *program);
/* One human line: "real MNIST, 4 ranks on 2 cores (oversubscribed), cpu,
 * quick profile, seed 1" built from meta keys simulated (first:
 * "simulated (SMPI, platform X), ..."), dataset, data, ranks, cores
 * (or hosts when > 1: "8 ranks on 2 hosts"), oversubscribed, device,
 * profile, seed (missing keys are skipped). Labs set dataset (e.g.
 * Dataset.name), data ("real"/"synthetic"), device, profile and seed. */
void meta_summary(const Meta *m, char *out, size_t cap);
/* Writers put the provenance line "# summary: ..." (CSV), "summary" (JSON)
 * and the LaTeX caption line from meta "summary" when a lab sets it, else
 * from meta_summary(); table_read_csv() returns it as meta "summary". */

typedef struct Table {
    char name[64];
    int ncols;
    char **cols;
    int nrows, caprows;
    char **cells;          /* nrows * ncols strings, NULL = empty */
    bool row_open;
    Meta meta;
    /* LaTeX only: rows whose cell in this column is "yes" are set in bold
     * (a paper's "best row" convention); "" = none. Set with table_tex_bold. */
    char tex_bold[32];
} Table;

/* columns: comma-separated names, e.g. "iter,epoch,loss,accuracy". */
Table *table_new(const char *name, const char *columns);
void table_free(Table *t);
/* Cells of the row being built; a row is opened by the first set after
 * table_end_row() (or creation) and is already counted in nrows. Unknown
 * column names abort (a bug). Empty strings are stored as empty (NULL). */
void table_set_str(Table *t, const char *col, const char *value);
void table_set_int(Table *t, const char *col, long long value);
/* Numbers are written with %.9g unless fmt is given (e.g. "%.3f"; exactly
 * one floating conversion, else abort). */
void table_set_num(Table *t, const char *col, double value, const char *fmt);
void table_end_row(Table *t);
/* LaTeX output sets a row in bold when its cell in column `col` is "yes"
 * (the CSV keeps the column, so scripts see the same marks). Unknown
 * column aborts (a bug); NULL or "" turns it off. */
void table_tex_bold(Table *t, const char *col);
/* Read back a cell (row, column name), NULL if empty/unknown. */
const char *table_get(const Table *t, int row, const char *col);
/* The same as text ("" when empty) and as a number (NAN when empty), for
 * the programs that read results back. */
const char *table_text(const Table *t, int row, const char *col);
double table_num(const Table *t, int row, const char *col);

/* Write dir/<name>.csv and dir/<name>.json (mkdir -p dir). 0 on success,
 * -1 with errno-based message on stderr otherwise.
 * CSV: "# key: value" per meta entry, "# summary: <line>", header, rows;
 *      cells with , " CR LF or a leading # are quoted (RFC 4180).
 * JSON: cells that are decimal numbers are unquoted, empty cells null,
 *      everything else (and every meta value) a string. */
int table_write(const Table *t, const char *dir);

/* LaTeX table: columns to show and their header labels (parallel arrays,
 * labels may contain LaTeX), alignment string e.g. "llrrr". Caption gets
 * the meta_summary() line appended in \footnotesize (a line of its own
 * under \caption{} and \label{}, inside the table). cols == NULL (or
 * ncols == 0) shows every column; headers == NULL uses the escaped column
 * names; align == NULL is "l" then "r"s; caption and headers are LaTeX
 * templates used as given (pass their generated parts through
 * tex_escape). Cells and the provenance line are escaped with tex_escape.
 * Needs only booktabs. Unknown
 * column: -1 with a message. Written atomically; the directory of path is
 * created if needed (report/tables/ is not in git). */
typedef struct TexSpec {
    const char *caption;
    const char *label;     /* e.g. "tab:lab1" */
    int ncols;
    const char *const *cols;
    const char *const *headers;
    const char *align;
} TexSpec;
int table_write_tex(const Table *t, const TexSpec *spec, const char *path);
/* The one rule for generated text in LaTeX (table cells, the provenance
 * line, and every generated part a lab puts into a caption or a header:
 * lab names, models, datasets, tags, numbers with %...). Writes into out
 * (NUL-terminated, truncated before an escape that would not fit) and
 * returns out, e.g.
 *   snprintf(caption, cap, "Models: %s.", tex_escape(buf, sizeof buf, what));
 * _ % & # $ { } get a backslash; \ ~ ^ < > | become \textbackslash{} etc.;
 * control characters become spaces; each non-ASCII character becomes '?'
 * (the report's OT1 fonts have no glyph for most of them, and a byte that
 * is not UTF-8 would stop pdflatex). report/tex_text.sh is the same rule
 * for the shell (tests/test_tex_escape.c checks that they agree). */
char *tex_escape(char *out, size_t cap, const char *s);
/* A table printed for people (text.c), in nccl-tests' layout: two '#'
 * provenance lines (program, commit, date, host; the summary line), a '#'
 * row of column heads and a '#' row of their units in parentheses, then
 * one right-aligned line per row ("-" for an empty cell). cols picks and
 * names the columns shown (NULL: all, under their CSV names); an unknown
 * column aborts (a bug). The benchmarks print their results this way and
 * write the same table as CSV with table_write. */
typedef struct TextColumn {
    const char *col;       /* the Table's column */
    const char *head;      /* its head in the text */
    const char *unit;      /* "us", "GB/s"; "" or NULL: none */
} TextColumn;
void table_print_text(const Table *t, const TextColumn *cols, int ncols, FILE *f);

/* Several tables, one after another, in one file (written atomically);
 * specs may be NULL (defaults for every table). */
int tables_write_tex(const Table *const *tables, const TexSpec *specs, int n, const char *path);

/* Atomic whole-file write used by all writers: "<path>.tmp.<pid>", fsync,
 * rename. -1 (temp file removed, message naming path on stderr) on error.
 * A SIGINT, SIGTERM or SIGHUP that ends the process mid-write removes the
 * temp file before the process dies of it (core/results/pending.c). */
int write_file_atomic(const char *path, const char *data, size_t len);
/* mkdir -p; 0 on success, -1 with errno set (no message). */
int mkdir_p(const char *dir);
/* mkdir -p of the directory part of a file path (nothing for "name"). */
int mkdir_parent(const char *path);

/* A run's outputs never mix with another run's (run.c). Call this at the
 * start of every run, before it writes anything, on the ranks that write:
 * it removes what an earlier run of the same name left in dir, so that a
 * run killed or failed half-way leaves only its own files. names is a
 * NULL-terminated list of templates in which '*' stands for run: without
 * an extension a Table name (its .csv and .json go), with one a file name,
 * e.g. lab1: results_run_begin(out, "t", (const char *const[]){ "*-iters",
 * "*-epochs", "*-summary", NULL }) removes t-iters.csv, t-iters.json, ...
 * 0, or -1 after a message naming a file that could not be removed (do not
 * start the run then). */
int results_run_begin(const char *dir, const char *run, const char *const *names);
/* Every output carries meta "run_id" (meta_collect: host, process id and
 * start time of the process that wrote it). Jobs that combine several files
 * of one run (a summary with its per-epoch table) check them with this: 0
 * when a and b come from the same run (or one of them predates run ids),
 * else -1 with a message naming both in err. */
int results_same_run(const Table *a, const Table *b, char *err, size_t cap);

/* Read a CSV written by table_write back into a Table (for graders,
 * tests and `make figures` helpers): meta lines -> meta (incl. "summary"),
 * the table name is the file name without ".csv". NULL with a message in
 * err ("path:line: what") on failure. */
Table *table_read_csv(const char *path, char *err, size_t errcap);

/* Every "<dir>/<name><suffix>" CSV (e.g. suffix "-summary.csv") with at
 * least one row and a column `need` (NULL: any), in file-name order, so
 * tables never depend on the file system's order. Unreadable files and
 * files without the column are skipped with a warning on stderr. Returns
 * how many tables went to out (at most cap; 0 when dir does not exist). */
int table_read_dir(const char *dir, const char *suffix, const char *need, Table **out, int cap);
/* "<dir>/<name>" read as table_read_csv does; NULL after an error line on
 * stderr that says why (the labs' table jobs). */
Table *table_read_at(const char *dir, const char *name);

/* A byte count as the labs' tables print it: "512 B", "1.5 KiB",
 * "12.3 MiB", "1.25 GiB" (3 significant digits), "n/a" when not finite. */
void format_bytes(double bytes, char *out, size_t cap);

#endif
