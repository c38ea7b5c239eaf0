/* test_isa.c - which build of the CPU's kernels runs (core/cpu/isa.h),
 * and that each instruction set's CPU backend runs its own build of
 * every kernel table. The variants' results against the portable build,
 * the CPU reference, are checked kernel by kernel in
 * test_backend_kernels.c and test_path_<name>.c (every variant this CPU
 * runs; the others skipped, saying why).
 *
 * Checked: the process runs the best variant the CPU runs, or the one
 * DDL_ISA names; DEVICE=cpu's backend is that variant's; each variant's
 * backend (the CPU runs it) points at its own elementwise kernels, at its
 * own convolution sub-table, whose device is the variant's, and through
 * it at its own table of every convolution path that has one; DDL_ISA
 * forces a lower variant in a child process, and a value the CPU or the
 * build cannot run stops the program with status 1, saying why. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>

#include "backend/registry.h"
#include "conv/paths.h"
#include "cpu/isa.h"
#include "harness.h"

/* The best variant the CPU runs: what runs without DDL_ISA. */
static DdlIsa best(void)
{
    DdlIsa b = DDL_ISA_PORTABLE;
    for (int i = 0; i < DDL_ISA_COUNT; i++)
        if (ddl_isa_runs((DdlIsa)i, NULL)) b = (DdlIsa)i;
    return b;
}

static void picked(void)
{
    const char *want = getenv("DDL_ISA");
    DdlIsa a = ddl_isa_active();
    if (want && *want)
        t_check(!strcmp(ddl_isa_name(a), want), "DDL_ISA=%s runs %s", want, ddl_isa_name(a));
    else
        t_check(a == best(), "without DDL_ISA the best variant this CPU runs, %s, runs (%s)", ddl_isa_name(best()),
                ddl_isa_name(a));
    t_check(backend_named("cpu") == backend_cpu_isa(a), "DEVICE=cpu runs the %s build of the kernels", ddl_isa_name(a));
    t_check(!strncmp(ddl_isa_summary(), ddl_isa_name(a), strlen(ddl_isa_name(a))), "the provenance line names it: %s",
            ddl_isa_summary());
}

/* Variant i's backend: its own kernels, sub-table and path tables. */
static void own_tables(DdlIsa i)
{
    const char *name = ddl_isa_name(i), *why;
    if (!ddl_isa_runs(i, &why)) {
        t_skip(name, why);
        return;
    }
    const Backend *be = backend_cpu_isa(i), *portable = backend_cpu_isa(DDL_ISA_PORTABLE);
    if (!t_check(be != NULL, "%s: the build has its CPU backend", name)) return;
    bool own = i == DDL_ISA_PORTABLE || (be->relu_forward != portable->relu_forward &&
                                         be->batchnorm_backward != portable->batchnorm_backward &&
                                         be->conv != portable->conv && be->conv->im2col != portable->conv->im2col);
    t_check(own, "%s: its backend's kernels and convolution sub-table are its own build's", name);
    t_check(be->conv->device == CONV_ON_CPU_BUILD(i), "%s: its convolution sub-table names its device", name);
    for (ConvPath p = 0; p < conv_path_count(); p++) {
        const void *mine = conv_path_kernels(be->conv, p), *base = conv_path_kernels(portable->conv, p);
        if (!base) continue; /* the reference: the shared kernels only */
        t_check(mine && (i == DDL_ISA_PORTABLE || mine != base), "%s: path %s runs its own kernel table", name,
                CONV_PATHS[p].key);
    }
}

/* This program again with DDL_ISA=value, printing what runs; its status. */
static int child(const char *self, const char *value, char *out, size_t cap)
{
    char cmd[512];
    snprintf(cmd, sizeof cmd, "DDL_ISA=%s '%s' --print-isa 2>&1", value, self);
    FILE *f = popen(cmd, "r");
    if (!f) return -1;
    size_t n = fread(out, 1, cap - 1, f);
    out[n] = '\0';
    int st = pclose(f);
    return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

static void forced(const char *self)
{
    char out[512];
    int st = child(self, "portable", out, sizeof out);
    t_checkf(st == 0 && !strcmp(out, "portable\n"), "DDL_ISA=portable forces the portable build", "status %d, '%s'",
             st, out);
    for (int i = DDL_ISA_PORTABLE + 1; i < DDL_ISA_COUNT; i++) {
        const char *name = ddl_isa_name((DdlIsa)i), *why;
        char label[96];
        st = child(self, name, out, sizeof out);
        bool runs = ddl_isa_runs((DdlIsa)i, &why);
        snprintf(label, sizeof label, runs ? "DDL_ISA=%s forces it" : "DDL_ISA=%s stops, saying why", name);
        if (runs)
            t_checkf(st == 0 && !strncmp(out, name, strlen(name)), label, "status %d, '%s'", st, out);
        else
            t_checkf(st == 1 && strstr(out, why), label, "status %d, '%s'", st, out);
    }
    st = child(self, "sse9", out, sizeof out);
    t_checkf(st == 1 && strstr(out, "DDL_ISA=sse9") && strstr(out, "avx512"), "DDL_ISA=sse9 stops, naming the values",
             "status %d, '%s'", st, out);
}

int main(int argc, char **argv)
{
    /* a test program has no driver: it hands DDL_ISA down itself, as the
     * driver does (core/driver/environment.c) */
    ddl_isa_request(getenv("DDL_ISA"));
    if (argc > 1 && !strcmp(argv[1], "--print-isa")) {
        printf("%s\n", ddl_isa_name(ddl_isa_active()));
        return 0;
    }
    picked();
    for (int i = 0; i < DDL_ISA_COUNT; i++) own_tables((DdlIsa)i);
    forced(argv[0]);
    return t_done();
}
