/* isa.c - see isa.h. One row per instruction set: its name and what the
 * CPU must have for its variant (the Makefile's ISA_FLAGS_<name> compile
 * it for exactly these). Picked once, with pthread_once: every kernel of
 * a process runs the same variant, which outputs record. */
#include "isa.h"

#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include "../util/common.h"

typedef struct IsaRow {
    const char *name;
    const char *lacks; /* what a CPU without it lacks, for the why */
    bool (*cpu_has)(void);
} IsaRow;

static bool always(void) { return true; }

/* The variants exist on x86-64 builds only (the Makefile defines
 * DDL_ISA_VARIANTS there); __builtin_cpu_supports reads CPUID and, for
 * AVX and AVX-512, whether the OS saves their registers (XGETBV). */
#ifdef DDL_ISA_VARIANTS
static bool has_avx2(void)
{
    __builtin_cpu_init();
    return __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma") && __builtin_cpu_supports("f16c");
}
static bool has_avx512(void)
{
    __builtin_cpu_init();
    return has_avx2() && __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512dq") &&
           __builtin_cpu_supports("avx512bw") && __builtin_cpu_supports("avx512vl");
}
#define VARIANT(f) f
#else
#define VARIANT(f) NULL
#endif

static const IsaRow ROWS[DDL_ISA_COUNT] = {
    [DDL_ISA_PORTABLE] = { "portable", "", always },
    [DDL_ISA_AVX2] = { "avx2", "AVX2, FMA and F16C", VARIANT(has_avx2) },
    [DDL_ISA_AVX512] = { "avx512", "AVX-512 F, DQ, BW and VL", VARIANT(has_avx512) },
};

const char *ddl_isa_name(DdlIsa isa) { return isa >= 0 && isa < DDL_ISA_COUNT ? ROWS[isa].name : "?"; }

bool ddl_isa_runs(DdlIsa isa, const char **why)
{
    static char lacks[DDL_ISA_COUNT][96];
    const char *w = NULL;
    if (isa < 0 || isa >= DDL_ISA_COUNT)
        w = "no such instruction set";
    else if (!ROWS[isa].cpu_has)
        w = "this build has no such variant (x86-64 builds only)";
    else if (!ROWS[isa].cpu_has()) {
        snprintf(lacks[isa], sizeof lacks[isa], "this CPU lacks %s", ROWS[isa].lacks);
        w = lacks[isa];
    }
    if (why) *why = w;
    return !w;
}

static DdlIsa active;
static char summary[160];
static const char *want; /* ddl_isa_request's */

static void pick(void)
{
    if (want && *want) {
        int i = 0;
        while (i < DDL_ISA_COUNT && strcmp(ROWS[i].name, want) != 0) i++;
        const char *why;
        if (!ddl_isa_runs((DdlIsa)i, &why)) ddl_die("DDL_ISA=%s: %s (values: portable, avx2, avx512)", want, why);
        active = (DdlIsa)i;
        snprintf(summary, sizeof summary, "%s (DDL_ISA=%s)", want, want);
        return;
    }
    for (int i = 0; i < DDL_ISA_COUNT; i++)
        if (ddl_isa_runs((DdlIsa)i, NULL)) active = (DdlIsa)i;
    snprintf(summary, sizeof summary, "%s (the best of portable, avx2, avx512 this CPU and build run)",
             ROWS[active].name);
}

static pthread_once_t once = PTHREAD_ONCE_INIT;

void ddl_isa_request(const char *name)
{
    if (!name || !*name) return;
    want = name;
    pthread_once(&once, pick);
    if (strcmp(ROWS[active].name, name) != 0)
        ddl_die("DDL_ISA=%s came after the %s kernels were picked", name, ROWS[active].name);
}

DdlIsa ddl_isa_active(void)
{
    pthread_once(&once, pick);
    return active;
}

const char *ddl_isa_summary(void)
{
    pthread_once(&once, pick);
    return summary;
}
