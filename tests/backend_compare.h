/* backend_compare.h - what the tests of kernels across backends share:
 * the CPU's results against a backend's through its tables, on fresh
 * seeded inputs, with the backend's outputs poisoned (NaN) first
 * (test_backend_kernels.c, the shared kernels; test_path_<name>.c, one
 * convolution path's kernel table each). Each including file is one
 * program: its own random stream (R, seeded by compare_main). */
#ifndef DDL_TESTS_BACKEND_COMPARE_H
#define DDL_TESTS_BACKEND_COMPARE_H

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "backend/registry.h"
#include "conv/conv.h"
#include "cpu/isa.h"
#include "harness.h"
#include "util/common.h"
#include "util/rng.h"

/* Sums in another order (weight gradients): relative to the largest
 * value, with REL_FLOOR for an all-zero tensor. */
#define TOL_RED 1e-5
#define REL_FLOOR 1e-6

static Rng R;

static inline float *rand_floats(size_t n, float lo, float hi)
{
    float *p = ddl_alloc(sizeof(float) * (n ? n : 1));
    for (size_t i = 0; i < n; i++) p[i] = rng_uniform_range(&R, lo, hi);
    return p;
}

/* A host array's copy in backend memory, and back. */
static inline void *up(const Backend *be, const void *h, size_t bytes)
{
    void *d = be->alloc(bytes);
    be->to_device(d, h, bytes);
    return d;
}

static inline float *down(const Backend *be, const float *d, size_t n)
{
    float *h = ddl_alloc(sizeof(float) * (n ? n : 1));
    t_poison(h, n);
    be->to_host(h, d, sizeof(float) * n);
    return h;
}

static inline float *poisoned(const Backend *be, size_t n)
{
    float *h = ddl_alloc(sizeof(float) * (n ? n : 1));
    t_poison(h, n);
    float *d = up(be, h, sizeof(float) * n);
    ddl_free(h);
    return d;
}

static inline void check_same(const char *be, const char *what, const float *got, const float *want, size_t n)
{
    size_t bad = 0;
    for (size_t i = 0; i < n; i++) bad += memcmp(&got[i], &want[i], sizeof(float)) != 0;
    if (!t_check(bad == 0, "%s %s: bit-exact vs cpu", be, what)) printf("# %zu of %zu differ\n", bad, n);
}

/* Bit-exact, except that a NaN matches any NaN: arithmetic on a NaN gives
 * a NaN whose payload IEEE 754 leaves open (x86 keeps the operand's, an
 * NVIDIA GPU returns its canonical 0x7fffffff; seen on an H200). */
static inline void check_same_nan(const char *be, const char *what, const float *got, const float *want, size_t n)
{
    size_t bad = 0;
    for (size_t i = 0; i < n; i++)
        bad += memcmp(&got[i], &want[i], sizeof(float)) != 0 && !(isnan(got[i]) && isnan(want[i]));
    if (!t_check(bad == 0, "%s %s: bit-exact vs cpu (NaN: any NaN)", be, what)) printf("# %zu of %zu differ\n", bad, n);
}

/* A path's kernel table on be's device (its row's, conv.c). */
static inline const void *table(const Backend *be, const char *key)
{
    ConvPath p = conv_path_named(key);
    const void *t = conv_path_kernels(be->conv, p);
    if (!t) ddl_die("%s has no kernels of path %s", be->name, conv_path_name(p));
    return t;
}

/* The CPU backend of every instruction-set variant (core/cpu/isa.h) the
 * CPU runs, as copies named cpu-avx2, cpu-avx512 for the messages (every
 * variant's own table says "cpu", which DEVICE=cpu asks for); one skip
 * line for each the CPU or the build lacks, saying which. The portable
 * build is the CPU reference the tests compare them with. Returns how
 * many were written. */
static inline int cpu_isa_variants(Backend *out, int cap)
{
    static char names[DDL_ISA_COUNT][24];
    int k = 0;
    for (int i = DDL_ISA_PORTABLE + 1; i < DDL_ISA_COUNT && k < cap; i++) {
        snprintf(names[i], sizeof names[i], "cpu-%s", ddl_isa_name((DdlIsa)i));
        const char *why;
        if (!ddl_isa_runs((DdlIsa)i, &why)) {
            t_skip(names[i], why);
            continue;
        }
        out[k] = *backend_cpu_isa(i);
        out[k++].name = names[i];
    }
    return k;
}

/* A program's main: seeds R by its name, then runs each on every usable
 * backend (the CPU; a GPU or emulated GPU where there is one) and every
 * instruction-set variant of the CPU's kernels, or only on the one
 * DDL_COMPARE_ONLY names: under compute-sanitizer (tests/gpu_check.sh)
 * the GPU's kernels are what is checked, and the other backends' runs
 * would only cost time. Naming one that is not usable fails, so that
 * such a run cannot pass having checked nothing. */
static inline int compare_main(const char *name, void (*each)(const Backend *be))
{
    R = rng_make2(2024, name, 0);
    const Backend *bes[8 + DDL_ISA_COUNT];
    Backend variants[DDL_ISA_COUNT];
    int nb = backend_usable(bes, 8), ran = 0;
    const char *only = getenv("DDL_COMPARE_ONLY");
    if (only && !*only) only = NULL;
    int nv = only && strncmp(only, "cpu-", 4) != 0 ? 0 : cpu_isa_variants(variants, DDL_ISA_COUNT);
    for (int v = 0; v < nv; v++) bes[nb++] = &variants[v];
    for (int b = 0; b < nb; b++)
        if (!only || !strcmp(bes[b]->name, only)) each(bes[b]), ran++;
    if (only) t_check(ran > 0, "DDL_COMPARE_ONLY=%s names a usable backend", only);
    return t_done();
}

#endif
