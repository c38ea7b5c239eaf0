/* test_tex_escape.c - the one escaping rule for generated LaTeX text:
 * tex_escape() (core/results) maps every special, never splits an escape
 * when it truncates, agrees byte for byte with report/tex_text.sh (the
 * shell spelling report/build.sh uses), and a table whose cells, summary
 * and caption parts hold every byte 1..255 compiles with pdflatex (skipped
 * where pdflatex is not installed). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "harness.h"
#include "results/results.h"

static const char *root(void)
{
    const char *r = getenv("DDL_TEST_ROOT");
    return r && *r ? r : ".";
}

static void test_map(void)
{
    char out[256];
    tex_escape(out, sizeof out, "a_b 50% & #1 $x {y} \\ ~ ^ <> |");
    t_checkf(!strcmp(out, "a\\_b 50\\% \\& \\#1 \\$x \\{y\\} \\textbackslash{} \\textasciitilde{} "
                          "\\textasciicircum{} \\textless{}\\textgreater{} \\textbar{}"),
             "tex_escape: every TeX special escaped", "got '%s'", out);
    tex_escape(out, sizeof out, "sdss_dnn x0.5 on 10000 examples");
    t_checkf(!strcmp(out, "sdss\\_dnn x0.5 on 10000 examples"), "tex_escape: a model name (sdss_dnn)", "got '%s'", out);
    tex_escape(out, sizeof out, "line\nbreak\ttab\x01" "caf\xc3\xa9 \xe2\x86\x92 \xff");
    t_checkf(!strcmp(out, "line break tab caf? ? ?"), "tex_escape: control characters -> spaces, non-ASCII -> '?'",
             "got '%s'", out);
    t_check(!strcmp(tex_escape(out, sizeof out, ""), "") && !strcmp(tex_escape(out, sizeof out, NULL), ""),
            "tex_escape: empty and NULL give an empty string");
    /* "ab\_" needs 5 bytes with the NUL: at 4 the escape is left out whole */
    tex_escape(out, 4, "ab_c");
    t_checkf(!strcmp(out, "ab"), "tex_escape: truncation never splits an escape", "got '%s'", out);
    tex_escape(out, 5, "ab_c");
    t_checkf(!strcmp(out, "ab\\_"), "tex_escape: truncation keeps what fits", "got '%s'", out);
}

/* report/tex_text.sh on `s`, captured. NULL if bash could not run. */
static char *shell_escape(const char *s)
{
    int fd[2];
    if (pipe(fd) != 0) return NULL;
    pid_t pid = fork();
    if (pid == 0) {
        dup2(fd[1], 1);
        close(fd[0]);
        close(fd[1]);
        char script[1024];
        snprintf(script, sizeof script, ". '%s/report/tex_text.sh' && tex_text \"$1\"", root());
        execlp("bash", "bash", "-c", script, "tex_text", s, (char *)NULL);
        _exit(127);
    }
    close(fd[1]);
    size_t cap = 1 << 16, n = 0;
    char *out = malloc(cap);
    ssize_t got;
    while (out && (got = read(fd[0], out + n, cap - 1 - n)) > 0) n += (size_t)got;
    close(fd[0]);
    int st = 0;
    waitpid(pid, &st, 0);
    if (!out || !WIFEXITED(st) || WEXITSTATUS(st) != 0) {
        free(out);
        return NULL;
    }
    out[n] = '\0';
    return out;
}

static void all_bytes(char *s)
{
    for (int c = 1; c < 256; c++) s[c - 1] = (char)c;
    s[255] = '\0';
}

static void test_shell_agrees(void)
{
    char s[256], c_out[4096];
    all_bytes(s);
    tex_escape(c_out, sizeof c_out, s);
    char *sh = shell_escape(s);
    if (!sh) {
        t_skip("tex_text.sh agrees with tex_escape", "bash could not run report/tex_text.sh");
        return;
    }
    size_t i = 0;
    while (sh[i] && sh[i] == c_out[i]) i++;
    t_checkf(!strcmp(sh, c_out), "report/tex_text.sh and tex_escape agree on every byte 1..255",
             "first difference at output byte %zu: shell '%.20s', C '%.20s'", i, sh + i, c_out + i);
    free(sh);
}

static int run_quiet(const char *dir, const char *cmd)
{
    char line[2048];
    snprintf(line, sizeof line, "cd '%s' && %s > /dev/null 2>&1 < /dev/null", dir, cmd);
    return system(line);
}

static void test_pdflatex(void)
{
    if (system("command -v pdflatex > /dev/null 2>&1") != 0) {
        t_skip("hostile text compiles with pdflatex", "pdflatex not installed (make deps)");
        return;
    }
    char dir[] = "/tmp/ddl-tex-XXXXXX";
    if (!mkdtemp(dir)) {
        t_check(false, "hostile text compiles with pdflatex (mkdtemp)");
        return;
    }
    char s[256], esc[4096], caption[4600], path[512];
    all_bytes(s);
    Table *t = table_new("hostile_name%", "a_b,c&d");
    table_set_str(t, "a_b", s);
    table_set_str(t, "c&d", "sdss_dnn 50% $5 #1 {x} \\end{document} ~^<>|");
    table_end_row(t);
    meta_set(&t->meta, "summary", "%s", s + 1);   /* meta values fold line breaks; the rest stays */
    snprintf(caption, sizeof caption, "Generated parts: %s.", tex_escape(esc, sizeof esc, s));
    TexSpec spec = { .caption = caption, .label = "tab:x" };
    snprintf(path, sizeof path, "%s/table.tex", dir);
    int rc = table_write_tex(t, &spec, path);
    table_free(t);
    snprintf(path, sizeof path, "%s/doc.tex", dir);
    FILE *f = fopen(path, "w");
    if (f) {
        fputs("\\documentclass{article}\\usepackage{booktabs}\\begin{document}\\input{table}\\end{document}\n", f);
        fclose(f);
    }
    int latex = rc == 0 && f ? run_quiet(dir, "pdflatex -interaction=nonstopmode -halt-on-error doc.tex") : -1;
    snprintf(path, sizeof path, "%s/doc.pdf", dir);
    t_checkf(latex == 0 && access(path, F_OK) == 0,
             "a table with every byte 1..255 in cells, summary and caption parts compiles with pdflatex",
             "write %d, pdflatex status %d (log in %s/doc.log)", rc, latex, dir);
    if (latex == 0) run_quiet(dir, "rm -f doc.* table.tex && cd / && rmdir \"$OLDPWD\"");
}

int main(void)
{
    test_map();
    test_shell_agrees();
    test_pdflatex();
    return t_done();
}
