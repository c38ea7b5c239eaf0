/* registry.c - see registry.h. One row per backend this build has; a new
 * backend (an emulated GPU, another accelerator) is one more row. */
#include "registry.h"

#include <string.h>
#include "../cpu/isa.h"

/* The CPU's backend of each instruction set: the portable build's names
 * carry no suffix, the variants' (x86-64 only) _avx2 and _avx512
 * (core/cpu/isa.h says how the Makefile makes them). */
#ifdef DDL_ISA_VARIANTS
#define ISA_VARIANT(b) (&b)
#else
#define ISA_VARIANT(b) NULL
#endif
static const Backend *const CPU_BY_ISA[DDL_ISA_COUNT] = {
    [DDL_ISA_PORTABLE] = &ddl_backend_cpu,
    [DDL_ISA_AVX2] = ISA_VARIANT(ddl_backend_cpu_avx2),
    [DDL_ISA_AVX512] = ISA_VARIANT(ddl_backend_cpu_avx512),
};

const Backend *backend_cpu_isa(int isa) { return isa >= 0 && isa < DDL_ISA_COUNT ? CPU_BY_ISA[isa] : NULL; }

/* DEVICE=cpu runs the instruction set picked at start-up. */
static const Backend *cpu_picked(void) { return CPU_BY_ISA[ddl_isa_active()]; }
const Backend *backend_cpu(void) { return cpu_picked(); }

bool backend_is_cpu(const Backend *be)
{
    for (int i = 0; i < DDL_ISA_COUNT; i++)
        if (be && be == CPU_BY_ISA[i]) return true;
    return false;
}
#ifdef DDL_HAVE_CUDA
static const Backend *cuda(void) { return &ddl_backend_cuda; }
#endif
#ifdef DDL_HAVE_CUDA_EMU
static const Backend *cuda_emu(void) { return &ddl_backend_cuda_emu; }
#endif

/* Each row's backend says itself whether its device is here (usable): a
 * GPU's asks the GPU, so this file needs no device's headers. */
static const Backend *(*const ROWS[])(void) = {
    cpu_picked,
#ifdef DDL_HAVE_CUDA
    cuda,
#endif
#ifdef DDL_HAVE_CUDA_EMU
    cuda_emu,
#endif
};

enum { NROWS = sizeof ROWS / sizeof ROWS[0] };

const Backend *backend_named(const char *name)
{
    for (int i = 0; name && i < NROWS; i++)
        if (strcmp(ROWS[i]()->name, name) == 0) return ROWS[i]();
    return NULL;
}

int backend_usable(const Backend **out, int cap)
{
    int k = 0;
    for (int i = 0; i < NROWS && k < cap; i++)
        if (ROWS[i]()->usable()) out[k++] = ROWS[i]();
    return k;
}
