/* test_results.c - core/results: CSV/JSON/LaTeX tables, atomic writes,
 * metadata, PNG pictures. An MPI program (meta_collect gathers host
 * names) run at one rank: works without mpirun (singleton init). */
#include <ctype.h>
#include <dirent.h>
#include <fcntl.h>
#include <mpi.h>
#include <png.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "driver/environment.h"
#include "harness.h"
#include "platform/placement.h"
#include "results/image.h"
#include "results/results.h"

static char g_dir[256];   /* scratch directory of this run */

static const char *in_dir(const char *name)
{
    static char path[512];
    snprintf(path, sizeof path, "%s/%s", g_dir, name);
    return path;
}

static char *slurp(const char *path)
{
    FILE *f = fopen(path, "rb");
    if (!f) return NULL;
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    char *s = malloc((size_t)n + 1);
    size_t got = fread(s, 1, (size_t)n, f);
    fclose(f);
    s[got] = '\0';
    return s;
}

/* Files in dir whose name contains ".tmp." (left-over temp files). */
static int count_temps(const char *dir)
{
    DIR *d = opendir(dir);
    if (!d) return 0;
    int n = 0;
    for (struct dirent *e; (e = readdir(d));)
        if (strstr(e->d_name, ".tmp.")) n++;
    closedir(d);
    return n;
}

/* Redirect stderr into a file while a failing call prints its message. */
static int stderr_to(const char *file)
{
    fflush(stderr);
    int saved = dup(2);
    int fd = open(file, O_WRONLY | O_CREAT | O_TRUNC, 0600);
    dup2(fd, 2);
    close(fd);
    return saved;
}

static void stderr_back(int saved)
{
    fflush(stderr);
    dup2(saved, 2);
    close(saved);
}

/* ---- a small strict JSON checker (RFC 8259 grammar) ------------------- */
static const char *js_ws(const char *s) { while (*s == ' ' || *s == '\n' || *s == '\r' || *s == '\t') s++; return s; }
static const char *js_value(const char *s, int depth);

static const char *js_string(const char *s)
{
    if (*s++ != '"') return NULL;
    while (*s != '"') {
        if ((unsigned char)*s < 0x20) return NULL;
        if (*s == '\\') {
            s++;
            if (*s == 'u') {
                for (int i = 1; i <= 4; i++) if (!isxdigit((unsigned char)s[i])) return NULL;
                s += 5;
                continue;
            }
            if (!*s || !strchr("\"\\/bfnrt", *s)) return NULL;
        }
        s++;
    }
    return s + 1;
}

static const char *js_number(const char *s)
{
    if (*s == '-') s++;
    if (*s == '0') s++;
    else if (isdigit((unsigned char)*s)) while (isdigit((unsigned char)*s)) s++;
    else return NULL;
    if (*s == '.') { s++; if (!isdigit((unsigned char)*s)) return NULL; while (isdigit((unsigned char)*s)) s++; }
    if (*s == 'e' || *s == 'E') {
        s++;
        if (*s == '+' || *s == '-') s++;
        if (!isdigit((unsigned char)*s)) return NULL;
        while (isdigit((unsigned char)*s)) s++;
    }
    return s;
}

static const char *js_list(const char *s, char close, bool object, int depth)
{
    s = js_ws(s + 1);
    if (*s == close) return s + 1;
    for (;;) {
        if (object) {
            if (!(s = js_string(s))) return NULL;
            s = js_ws(s);
            if (*s++ != ':') return NULL;
        }
        if (!(s = js_value(s, depth + 1))) return NULL;
        s = js_ws(s);
        if (*s == close) return s + 1;
        if (*s++ != ',') return NULL;
        s = js_ws(s);
    }
}

static const char *js_value(const char *s, int depth)
{
    if (depth > 64) return NULL;
    s = js_ws(s);
    if (*s == '{') return js_list(s, '}', true, depth);
    if (*s == '[') return js_list(s, ']', false, depth);
    if (*s == '"') return js_string(s);
    if (!strncmp(s, "true", 4)) return s + 4;
    if (!strncmp(s, "false", 5)) return s + 5;
    if (!strncmp(s, "null", 4)) return s + 4;
    return js_number(s);
}

static bool json_ok(const char *text)
{
    const char *end = text ? js_value(text, 0) : NULL;
    return end && *js_ws(end) == '\0';
}

/* ---- tables ------------------------------------------------------------ */

/* A table whose meta and cells are fixed, so whole files can be compared. */
static Table *sample_table(void)
{
    Table *t = table_new("demo_table", "iter, loss,name");
    meta_set(&t->meta, "program", "test_results");
    meta_set(&t->meta, "dataset", "mnist");
    meta_set(&t->meta, "data", "real");
    meta_set(&t->meta, "ranks", "4");
    meta_set(&t->meta, "cores", "2");
    meta_set(&t->meta, "oversubscribed", "yes");
    meta_set(&t->meta, "device", "cpu");
    meta_set(&t->meta, "profile", "quick");
    meta_set(&t->meta, "seed", "1");
    table_set_int(t, "iter", 1);
    table_set_num(t, "loss", 0.5, NULL);
    table_set_str(t, "name", "a,b");
    table_end_row(t);
    table_set_int(t, "iter", 2);
    table_set_num(t, "loss", 0.25, "%.3f");
    table_set_str(t, "name", "say \"hi\"");
    table_end_row(t);
    table_set_int(t, "iter", 3);
    table_set_str(t, "name", "two\nlines");
    table_end_row(t);
    table_set_num(t, "loss", -1e-3, "%.2e");
    table_set_str(t, "name", "#tag");
    table_end_row(t);
    return t;
}

static const char *const SUMMARY =
    "real MNIST, 4 ranks on 2 cores (oversubscribed), cpu, quick profile, seed 1";

static void test_summary(void)
{
    Meta m = {0};
    char s[256];
    meta_summary(&m, s, sizeof s);
    t_check(s[0] == '\0', "meta_summary of empty meta is empty");
    Table *t = sample_table();
    meta_summary(&t->meta, s, sizeof s);
    t_checkf(strcmp(s, SUMMARY) == 0, "meta_summary example line", "got '%s'", s);
    meta_set(&m, "dataset", "cifar10");
    meta_set(&m, "data", "synthetic");
    meta_set(&m, "ranks", "1");
    meta_set(&m, "cores", "2");
    meta_set(&m, "oversubscribed", "no");
    meta_summary(&m, s, sizeof s);
    t_checkf(strcmp(s, "synthetic CIFAR-10, 1 rank on 2 cores") == 0, "meta_summary skips missing keys",
             "got '%s'", s);
    meta_set(&m, "ranks", "8");
    meta_set(&m, "hosts", "2");
    meta_summary(&m, s, sizeof s);
    t_checkf(strcmp(s, "synthetic CIFAR-10, 8 ranks on 2 hosts") == 0, "meta_summary names hosts when > 1",
             "got '%s'", s);
    meta_set(&m, "seed", "first");
    meta_set(&m, "seed", "7");
    t_check(strcmp(meta_get(&m, "seed"), "7") == 0 && m.n == 7, "meta_set replaces an existing key");
    meta_set(&m, "note", "a\nb");
    t_check(strcmp(meta_get(&m, "note"), "a b") == 0, "meta_set folds line breaks");
    t_check(meta_key_valid("openblas_coretype") && !meta_key_valid("a b") && !meta_key_valid("k:") &&
            !meta_key_valid(""), "meta_key_valid");
    table_free(t);
}

static void test_cells(void)
{
    Table *t = sample_table();
    t_check(t->nrows == 4 && t->ncols == 3 && strcmp(t->cols[1], "loss") == 0, "table_new trims column names");
    const char *a = table_get(t, 0, "loss"), *b = table_get(t, 1, "loss"), *c = table_get(t, 3, "loss");
    t_checkf(a && b && c && !strcmp(a, "0.5") && !strcmp(b, "0.250") && !strcmp(c, "-1.00e-03"),
             "table_set_num formats (%.9g default, caller's format)", "got %s %s %s", a, b, c);
    t_check(table_get(t, 2, "loss") == NULL && table_get(t, 9, "loss") == NULL && table_get(t, 0, "x") == NULL,
            "table_get: empty, out-of-range and unknown give NULL");
    table_set_int(t, "iter", 5);
    t_check(t->nrows == 5 && table_get(t, 4, "iter") && !strcmp(table_get(t, 4, "iter"), "5"),
            "a set after table_end_row opens a new row");
    table_free(t);
}

static void test_csv(void)
{
    Table *t = sample_table();
    t_check(table_write(t, in_dir("out/nested")) == 0, "table_write creates the directory and writes");
    char *csv = slurp(in_dir("out/nested/demo_table.csv"));
    const char *expect =
        "# program: test_results\n"
        "# dataset: mnist\n"
        "# data: real\n"
        "# ranks: 4\n"
        "# cores: 2\n"
        "# oversubscribed: yes\n"
        "# device: cpu\n"
        "# profile: quick\n"
        "# seed: 1\n"
        "# summary: real MNIST, 4 ranks on 2 cores (oversubscribed), cpu, quick profile, seed 1\n"
        "iter,loss,name\n"
        "1,0.5,\"a,b\"\n"
        "2,0.250,\"say \"\"hi\"\"\"\n"
        "3,,\"two\nlines\"\n"
        ",-1.00e-03,\"#tag\"\n";
    t_checkf(csv && strcmp(csv, expect) == 0, "CSV: meta lines, summary, header, rows, RFC 4180 quoting",
             "got:\n%s", csv ? csv : "(missing)");
    free(csv);

    char err[256] = "";
    Table *r = table_read_csv(in_dir("out/nested/demo_table.csv"), err, sizeof err);
    t_checkf(r != NULL, "table_read_csv reads what table_write wrote", "%s", err);
    if (r) {
        bool same = r->ncols == t->ncols && r->nrows == t->nrows && !strcmp(r->name, t->name);
        for (int c = 0; same && c < t->ncols; c++) same = !strcmp(r->cols[c], t->cols[c]);
        for (int i = 0; same && i < t->nrows; i++)
            for (int c = 0; same && c < t->ncols; c++) {
                const char *x = table_get(t, i, t->cols[c]), *y = table_get(r, i, t->cols[c]);
                same = (!x && !y) || (x && y && !strcmp(x, y));
            }
        t_check(same, "CSV round trip: name, columns and every cell equal");
        bool meta_same = r->meta.n == t->meta.n + 1;
        for (int i = 0; meta_same && i < t->meta.n; i++) {
            const char *v = meta_get(&r->meta, t->meta.key[i]);
            meta_same = v && !strcmp(v, t->meta.val[i]);
        }
        const char *s = meta_get(&r->meta, "summary");
        t_checkf(meta_same && s && !strcmp(s, SUMMARY), "CSV round trip: meta equal, summary read back",
                 "%d vs %d entries", r->meta.n, t->meta.n);
        /* Written again, the read table gives the same bytes. */
        t_check(table_write(r, in_dir("again")) == 0, "table_write of a read table");
        char *x = slurp(in_dir("out/nested/demo_table.csv")), *y = slurp(in_dir("again/demo_table.csv"));
        t_check(x && y && !strcmp(x, y), "CSV write -> read -> write is byte-identical");
        free(x);
        free(y);
        table_free(r);
    }

    FILE *f = fopen(in_dir("bad.csv"), "w");
    fputs("# k: v\na,b\n1,2\n3,\"open\n", f);
    fclose(f);
    r = table_read_csv(in_dir("bad.csv"), err, sizeof err);
    t_checkf(!r && strstr(err, "bad.csv:4"), "table_read_csv: unterminated quote names file and line", "err '%s'",
             err);
    table_free(r);
    f = fopen(in_dir("short.csv"), "w");
    fputs("a,b\n1\n", f);
    fclose(f);
    r = table_read_csv(in_dir("short.csv"), err, sizeof err);
    t_checkf(!r && strstr(err, "short.csv:2") && strstr(err, "expected 2"), "table_read_csv: wrong field count",
             "err '%s'", err);
    table_free(r);
    r = table_read_csv(in_dir("missing.csv"), err, sizeof err);
    t_checkf(!r && strstr(err, "missing.csv"), "table_read_csv: missing file named", "err '%s'", err);
    table_free(r);

    char *json = slurp(in_dir("out/nested/demo_table.json"));
    t_checkf(json_ok(json), "JSON twin is well-formed (strict checker)", "got:\n%s", json ? json : "(missing)");
    t_checkf(json && strstr(json, "[1, 0.5, \"a,b\"]") && strstr(json, "[2, 0.250, \"say \\\"hi\\\"\"]") &&
                 strstr(json, "[3, null, \"two\\nlines\"]") && strstr(json, "[null, -1.00e-03, \"#tag\"]"),
             "JSON: numbers unquoted, strings escaped, empty cells null", "got:\n%s", json ? json : "");
    t_check(json && strstr(json, "\"columns\": [\"iter\", \"loss\", \"name\"]") &&
                strstr(json, "\"ranks\": \"4\"") && strstr(json, "\"summary\": \"real MNIST,"),
            "JSON: columns and meta (values as strings, summary)");
    free(json);
    if (system("command -v python3 >/dev/null 2>&1") == 0) {
        char cmd[1024];
        snprintf(cmd, sizeof cmd, "python3 -c 'import json,sys; json.load(open(sys.argv[1]))' '%s'",
                 in_dir("out/nested/demo_table.json"));
        int rc = system(cmd);
        t_check(rc != -1 && WIFEXITED(rc) && WEXITSTATUS(rc) == 0, "JSON twin loads with python3's json");
    } else {
        t_skip("JSON twin loads with python3's json", "python3 not installed");
    }

    /* Odd numbers and strings: JSON grammar, not strtod, decides. */
    Table *o = table_new("odd", "a,b,c,d,e,f,g");
    table_set_str(o, "a", "007");
    table_set_str(o, "b", ".5");
    table_set_str(o, "c", "nan");
    table_set_str(o, "d", "inf");
    table_set_str(o, "e", "0x10");
    table_set_str(o, "f", "1e999");
    table_set_str(o, "g", "caf\xc3\xa9 \xff\x01");
    table_end_row(o);
    t_check(table_write(o, g_dir) == 0, "table_write odd cells");
    json = slurp(in_dir("odd.json"));
    t_checkf(json_ok(json) && strstr(json, "[7, 0.5, \"nan\", \"inf\", \"0x10\", \"1e999\", \"caf\xc3\xa9 \\ufffd\\u0001\"]"),
             "JSON: non-JSON numerals normalised, nan/inf/hex/overflow quoted, bad UTF-8 replaced", "got:\n%s",
             json ? json : "");
    free(json);
    table_free(o);
    table_free(t);
}

static void test_tex(void)
{
    Table *t = sample_table();
    table_set_str(t, "name", "a_b 50% & #1 $x");
    table_end_row(t);
    const char *cols[] = {"iter", "name"};
    const char *heads[] = {"Iteration", "Run name"};
    TexSpec spec = {.caption = "Demo table", .label = "tab:demo", .ncols = 2, .cols = cols, .headers = heads,
                    .align = "rl"};
    t_check(table_write_tex(t, &spec, in_dir("demo.tex")) == 0, "table_write_tex writes");
    char *tex = slurp(in_dir("demo.tex"));
    t_check(tex && strstr(tex, "\\toprule") && strstr(tex, "\\midrule") && strstr(tex, "\\bottomrule") &&
                strstr(tex, "\\begin{tabular}{rl}") && strstr(tex, "\\begin{table}"),
            "TeX: booktabs rules inside a table environment");
    t_check(tex && strstr(tex, "a\\_b 50\\% \\& \\#1 \\$x") && strstr(tex, "Iteration & Run name \\\\"),
            "TeX: cell text escaped, headers as given");
    t_check(tex && strstr(tex, SUMMARY) && strstr(tex, "\\footnotesize") && strstr(tex, "\\caption{Demo table}") &&
                strstr(tex, "\\label{tab:demo}"),
            "TeX: caption, provenance line in \\footnotesize, label");
    t_check(tex && !strstr(tex, "siunitx"), "TeX: no siunitx");
    free(tex);
    const char *badcols[] = {"nope"};
    TexSpec bad = {.caption = "x", .ncols = 1, .cols = badcols};
    int saved = stderr_to(in_dir("stderr.txt"));
    int rc = table_write_tex(t, &bad, in_dir("bad.tex"));
    stderr_back(saved);
    char *msg = slurp(in_dir("stderr.txt"));
    t_check(rc == -1 && msg && strstr(msg, "nope") && access(in_dir("bad.tex"), F_OK) != 0,
            "TeX: unknown column fails with a message, writes nothing");
    free(msg);
    t_check(table_write_tex(t, NULL, in_dir("tables/new/all.tex")) == 0 && access(in_dir("tables/new/all.tex"), F_OK) == 0,
            "TeX: NULL spec shows every column; missing directories are created");
    table_free(t);

    Table *b = table_new("bold", "x,best");
    table_set_str(b, "x", "plain_1");
    table_set_str(b, "best", "no");
    table_end_row(b);
    table_set_str(b, "x", "top_2");
    table_set_str(b, "best", "yes");
    table_end_row(b);
    table_tex_bold(b, "best");
    const char *bcols[] = {"x"};
    TexSpec bspec = {.caption = "Bold", .ncols = 1, .cols = bcols};
    t_check(table_write_tex(b, &bspec, in_dir("bold.tex")) == 0, "table_write_tex with bold rows writes");
    tex = slurp(in_dir("bold.tex"));
    t_check(tex && strstr(tex, "\\textbf{top\\_2} \\\\") && strstr(tex, "\nplain\\_1 \\\\") && !strstr(tex, "textbf{plain"),
            "TeX: rows marked \"yes\" in the bold column are bold, others plain");
    free(tex);
    table_free(b);
}

static void test_atomic(void)
{
    char msgfile[512], path[600];
    snprintf(msgfile, sizeof msgfile, "%s", in_dir("stderr.txt"));
    snprintf(path, sizeof path, "%s/no/such/dir/x.csv", g_dir);
    int saved = stderr_to(msgfile);
    int rc = write_file_atomic(path, "abc", 3);
    stderr_back(saved);
    char *msg = slurp(msgfile);
    t_checkf(rc == -1 && msg && strstr(msg, path), "atomic write: missing parent -> -1, message names the path",
             "rc %d, message '%s'", rc, msg ? msg : "");
    free(msg);

    /* A regular file where a directory should be (works as root too). */
    write_file_atomic(in_dir("plainfile"), "x", 1);
    snprintf(path, sizeof path, "%s/plainfile/x.csv", g_dir);
    saved = stderr_to(msgfile);
    rc = write_file_atomic(path, "abc", 3);
    Table *t = sample_table();
    int rc2 = table_write(t, in_dir("plainfile/sub"));
    table_free(t);
    stderr_back(saved);
    t_check(rc == -1 && rc2 == -1, "atomic write / table_write under a regular file -> -1");

    /* The rename fails (target is a directory) after the temp file was
     * written: the temp file must be removed. */
    mkdir(in_dir("adir"), 0777);
    saved = stderr_to(msgfile);
    rc = write_file_atomic(in_dir("adir"), "abc", 3);
    stderr_back(saved);
    t_check(rc == -1 && count_temps(g_dir) == 0, "atomic write: failed rename leaves no *.tmp.* file");

    /* A directory this process may not write: as root, whom permissions do
     * not stop, the write runs in a child that has become nobody (65534),
     * with the scratch folder opened to it for the time of the check. */
    mkdir(in_dir("ro"), 0555);
    chmod(in_dir("ro"), 0555);
    saved = stderr_to(msgfile);
    if (geteuid() != 0) {
        rc = write_file_atomic(in_dir("ro/x.csv"), "abc", 3);
    } else {
        chmod(g_dir, 0711);
        mkdir(in_dir("rw"), 0777);
        chmod(in_dir("rw"), 0777);
        pid_t child = fork();
        if (child == 0) { /* 0 only when nobody can write rw/ (the control) and not ro/ */
            bool nobody = setgid(65534) == 0 && setuid(65534) == 0;
            bool control = nobody && write_file_atomic(in_dir("rw/x.csv"), "abc", 3) == 0;
            _exit(control ? (write_file_atomic(in_dir("ro/x.csv"), "abc", 3) == -1 ? 0 : 1) : 2);
        }
        int st = 0;
        rc = child > 0 && waitpid(child, &st, 0) == child && WIFEXITED(st) && WEXITSTATUS(st) == 0 ? -1 : 0;
        chmod(g_dir, 0700);
    }
    stderr_back(saved);
    t_check(rc == -1 && count_temps(in_dir("ro")) == 0,
            geteuid() ? "atomic write: read-only directory -> -1, no temp"
                      : "atomic write: a directory nobody may write (as nobody) -> -1, no temp");
    chmod(in_dir("ro"), 0755);

    const char *longtext = "a long first version of the file\nwith two lines\n";
    rc = write_file_atomic(in_dir("over.txt"), longtext, strlen(longtext));
    rc |= write_file_atomic(in_dir("over.txt"), "short\n", 6);
    char *s = slurp(in_dir("over.txt"));
    t_check(rc == 0 && s && !strcmp(s, "short\n"), "atomic write: overwriting replaces the whole file");
    free(s);
    t_check(count_temps(g_dir) == 0 && count_temps(in_dir("out/nested")) == 0, "no *.tmp.* files left anywhere");
}

/* ---- pictures ----------------------------------------------------------- */

/* Read a PNG back with libpng: size, channels (1 grey, 3 RGB), pixels. */
static uint8_t *read_png(const char *path, int *w, int *h, int *ch)
{
    png_image img;
    memset(&img, 0, sizeof img);
    img.version = PNG_IMAGE_VERSION;
    if (!png_image_begin_read_from_file(&img, path)) return NULL;
    *ch = (img.format & PNG_FORMAT_FLAG_COLOR) ? 3 : 1;
    img.format = *ch == 3 ? PNG_FORMAT_RGB : PNG_FORMAT_GRAY;
    *w = (int)img.width;
    *h = (int)img.height;
    uint8_t *px = malloc(PNG_IMAGE_SIZE(img));
    if (!png_image_finish_read(&img, NULL, px, 0, NULL)) {
        free(px);
        png_image_free(&img);
        return NULL;
    }
    return px;
}

static void test_png(void)
{
    uint8_t grey[5 * 3], rgb[4 * 2 * 3];
    for (int i = 0; i < 15; i++) grey[i] = (uint8_t)(i * 17);
    for (int i = 0; i < 24; i++) rgb[i] = (uint8_t)(255 - i * 10);
    int w, h, ch;
    t_check(png_write(in_dir("g.png"), 5, 3, 1, grey) == 0, "png_write grey");
    uint8_t *px = read_png(in_dir("g.png"), &w, &h, &ch);
    t_check(px && w == 5 && h == 3 && ch == 1 && !memcmp(px, grey, sizeof grey), "PNG round trip: grey 5x3");
    free(px);
    t_check(png_write(in_dir("c.png"), 4, 2, 3, rgb) == 0, "png_write RGB");
    px = read_png(in_dir("c.png"), &w, &h, &ch);
    t_check(px && w == 4 && h == 2 && ch == 3 && !memcmp(px, rgb, sizeof rgb), "PNG round trip: RGB 4x2");
    free(px);
    int saved = stderr_to(in_dir("stderr.txt"));
    int rc = png_write(in_dir("x.png"), 4, 2, 2, rgb);
    stderr_back(saved);
    t_check(rc == -1, "png_write rejects 2 channels");

    /* Fake dataset: 30 examples of 3 classes, 4x3 pixels, each example
     * filled with its class's grey level. */
    enum { N = 30, H = 4, W = 3 };
    float x[N * 3 * H * W];
    int32_t y[N];
    const float level[3] = {0.0f, 0.4f, 1.0f};
    for (int i = 0; i < N; i++) y[i] = (i * 7) % 3;
    /* NCHW with c = 1 first; refilled for c = 3 below. */
    for (int i = 0; i < N; i++)
        for (int j = 0; j < H * W; j++) x[i * H * W + j] = level[y[i]];
    Dataset d;
    memset(&d, 0, sizeof d);
    snprintf(d.name, sizeof d.name, "fake");
    d.n = N; d.c = 1; d.h = H; d.w = W; d.classes = 3; d.x = x; d.y = y;
    t_check(png_sample_grid(in_dir("grid.png"), &d, 2, 3, 2) == 0, "png_sample_grid grey");
    px = read_png(in_dir("grid.png"), &w, &h, &ch);
    t_checkf(px && w == 3 * W * 2 + 2 && h == 2 * H * 2 + 1 && ch == 1, "sample grid: (cols*w*scale + cols-1) x "
             "(rows*h*scale + rows-1), grey", "got %dx%d, %d channels", w, h, ch);
    if (px && w == 20 && h == 17) {
        bool cls = true;
        for (int r = 0; r < 2; r++)
            for (int c = 0; c < 3; c++) {
                int cx = c * (W * 2 + 1) + 2, cy = r * (H * 2 + 1) + 3;
                int want = (int)(level[c] * 255.0f + 0.5f);
                cls = cls && px[cy * w + cx] == want;
            }
        t_checkf(cls, "sample grid: column j shows class j", "row 0: %d %d %d", px[3 * w + 2], px[3 * w + 9],
                 px[3 * w + 16]);
        t_check(px[0 * w + W * 2] == 128 && px[(H * 2) * w + 0] == 128, "sample grid: 1-px separators");
    }
    free(px);
    d.c = 3;
    for (int i = 0; i < N; i++)
        for (int j = 0; j < 3 * H * W; j++) x[i * 3 * H * W + j] = level[y[i]];
    t_check(png_sample_grid(in_dir("grid3.png"), &d, 1, 3, 1) == 0, "png_sample_grid RGB");
    px = read_png(in_dir("grid3.png"), &w, &h, &ch);
    t_checkf(px && w == 3 * W + 2 && h == H && ch == 3, "sample grid: 3-channel dataset gives RGB",
             "got %dx%d, %d channels", w, h, ch);
    free(px);
    d.c = 12; d.h = 1; d.w = 1;
    saved = stderr_to(in_dir("stderr.txt"));
    rc = png_sample_grid(in_dir("tab.png"), &d, 2, 3, 2);
    stderr_back(saved);
    char *msg = slurp(in_dir("stderr.txt"));
    t_check(rc == -1 && msg && strstr(msg, "tabular") && access(in_dir("tab.png"), F_OK) != 0,
            "sample grid: tabular dataset -> -1 with a message");
    free(msg);

    /* 5 grey filters 3x3 -> 3x2 grid; filter f holds f*10 + 0..8. */
    float wts[5 * 1 * 9];
    for (int i = 0; i < 45; i++) wts[i] = (float)((i / 9) * 10 + i % 9);
    t_check(png_filters(in_dir("filters.png"), wts, 5, 1, 3, 2) == 0, "png_filters grey");
    px = read_png(in_dir("filters.png"), &w, &h, &ch);
    t_checkf(px && w == 3 * 6 + 2 && h == 2 * 6 + 1 && ch == 1, "filters: 5 filters in a 3x2 grid",
             "got %dx%d, %d channels", w, h, ch);
    if (px && w == 20 && h == 13)
        t_check(px[0] == 0 && px[5 * w + 5] == 255 && px[7 * w + 7 + 0] == 0,
                "filters: each filter min-max normalised to 0..255");
    free(px);
    float wrgb[2 * 3 * 4];
    for (int i = 0; i < 24; i++) wrgb[i] = (float)i;
    t_check(png_filters(in_dir("filters3.png"), wrgb, 2, 3, 2, 1) == 0, "png_filters RGB");
    px = read_png(in_dir("filters3.png"), &w, &h, &ch);
    t_check(px && w == 2 * 2 + 1 && h == 2 && ch == 3, "filters: cin = 3 gives RGB");
    free(px);

    float hm[2 * 3] = {0, 1, 2, 3, 4, 5};
    t_check(png_heatmap(in_dir("figs/heat.png"), hm, 2, 3, 4) == 0, "png_heatmap (creating figs/)");
    px = read_png(in_dir("figs/heat.png"), &w, &h, &ch);
    t_check(px && w == 12 && h == 8 && ch == 3 && px[0] == 255 && px[1] == 255 && px[2] == 255 &&
                px[(7 * 12 + 11) * 3] == 8 && px[(7 * 12 + 11) * 3 + 2] == 107,
            "heat map: n*scale x m*scale RGB, min white, max dark blue");
    free(px);
    t_check(count_temps(g_dir) == 0 && count_temps(in_dir("figs")) == 0, "pictures leave no *.tmp.* files");
}

static void test_meta_collect(void)
{
    Meta m = {0};
    meta_collect(&m, "test_results");
    const char *cores = meta_get(&m, "cores"), *date = meta_get(&m, "date");
    t_check(meta_get(&m, "ranks") && !strcmp(meta_get(&m, "ranks"), "1"), "meta_collect: ranks = 1");
    t_check(cores && atoi(cores) > 0, "meta_collect: cores > 0");
    t_check(meta_get(&m, "oversubscribed") && !strcmp(meta_get(&m, "oversubscribed"), "no"),
            "meta_collect: oversubscribed = no at one rank");
    t_check(meta_get(&m, "hosts") && !strcmp(meta_get(&m, "hosts"), "1"), "meta_collect: hosts = 1");
    t_check(date && strlen(date) == 20 && date[4] == '-' && date[10] == 'T' && date[19] == 'Z',
            "meta_collect: date is UTC ISO 8601");
    const char *keys[] = {"program", "git", "build", "host", "threads", "openblas_coretype", "mpi"};
    bool all = true;
    for (size_t i = 0; i < sizeof keys / sizeof keys[0]; i++) all = all && meta_get(&m, keys[i]) && *meta_get(&m, keys[i]);
    t_check(all, "meta_collect: program, git, build, host, threads, openblas_coretype, mpi filled");
    t_check(!meta_get(&m, "emulated_network"), "meta_collect: no emulated_network key without DDL_NET");

    /* make labN NET=...: labs/net/net.sh passes DDL_NET to every rank, and
     * every output's provenance line must carry it. */
    setenv("DDL_NET", "2 hosts, 1 Gbit/s, no added latency", 1);
    setenv("DDL_NET_SETUP", "tbf=rate 1000000000bit burst 12500 limit 2500000", 1);
    t_check(driver_env_apply() == 0, "the edge reads DDL_NET");
    /* This test runs on the machine's own network, not on an emulated host:
     * the edge drops a DDL_NET here (core/driver/environment.c), so that a
     * stray one cannot label a shared-memory run. */
    Meta stray = {0};
    meta_collect(&stray, "test_results");
    t_check(!meta_get(&stray, "emulated_network"), "meta_collect: a DDL_NET outside an emulated host labels nothing");
    /* On an emulated host the edge hands it down as this does. */
    ddl_launch_info_set(&(LaunchInfo){ .net = getenv("DDL_NET"), .net_setup = getenv("DDL_NET_SETUP") });
    Meta n = {0};
    meta_collect(&n, "test_results");
    unsetenv("DDL_NET");
    unsetenv("DDL_NET_SETUP");
    driver_env_apply();
    const char *net = meta_get(&n, "emulated_network"), *setup = meta_get(&n, "emulated_network_setup");
    t_checkf(net && !strcmp(net, "2 hosts, 1 Gbit/s, no added latency") && setup && strstr(setup, "tbf=rate"),
             "meta_collect: DDL_NET and DDL_NET_SETUP become emulated_network and emulated_network_setup",
             "got '%s', '%s'", net ? net : "(none)", setup ? setup : "(none)");
    char s[512];
    meta_summary(&n, s, sizeof s);
    t_checkf(strstr(s, "emulated network: 2 hosts, 1 Gbit/s, no added latency, ") == s,
             "meta_summary starts with the emulated network", "got '%s'", s);
    /* Labs that compose their own "summary" (lab6's table) keep the label
     * in what they write. */
    Table *t = table_new("net_summary", "a");
    t->meta = n;
    meta_set(&t->meta, "summary", "real data, 1-3 ranks on 2 cores");
    table_set_int(t, "a", 1);
    table_end_row(t);
    char *csv = table_write(t, in_dir("net")) == 0 ? slurp(in_dir("net/net_summary.csv")) : NULL;
    t_checkf(csv && strstr(csv, "\n# summary: emulated network: 2 hosts, 1 Gbit/s, no added latency, real data, 1-3 ranks "
                                "on 2 cores\n"),
             "a lab's own summary line gets the emulated network in front", "got %s", csv ? csv : "(not written)");
    free(csv);
    meta_set(&t->meta, "summary", "emulated network: 2 hosts, 1 Gbit/s, no added latency, x");
    csv = table_write(t, in_dir("net")) == 0 ? slurp(in_dir("net/net_summary.csv")) : NULL;
    t_checkf(csv && strstr(csv, "\n# summary: emulated network: 2 hosts, 1 Gbit/s, no added latency, x\n"),
             "a summary that says it already does not say it twice", "got %s", csv ? csv : "(not written)");
    free(csv);
    table_free(t);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    const char *tmp = getenv("TMPDIR");
    snprintf(g_dir, sizeof g_dir, "%s/ddl_test_results_XXXXXX", tmp && *tmp ? tmp : "/tmp");
    if (!mkdtemp(g_dir)) {
        perror("mkdtemp");
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    test_summary();
    test_cells();
    test_csv();
    test_tex();
    test_atomic();
    test_png();
    test_meta_collect();
    char cmd[512];
    snprintf(cmd, sizeof cmd, "rm -rf -- '%s'", g_dir);
    if (system(cmd) != 0) fprintf(stderr, "could not remove %s\n", g_dir);
    MPI_Finalize();
    return t_done();
}
