/* registry.c - see registry.h. One row per backend this build has; a new
 * backend (an emulated GPU, another accelerator) is one more row. */
#include "registry.h"

#include <string.h>
#ifdef DDL_HAVE_CUDA
#include "../cuda/cuda_runtime_probe.h"
#endif

#ifdef DDL_HAVE_CUDA
static bool gpu_answers(void)
{
    char desc[160], why[160];
    return ddl_cuda_probe(0, desc, sizeof desc, why, sizeof why) == 0;
}
#endif

static bool always(void) { return true; }

static const struct {
    const Backend *backend;
    bool (*usable)(void); /* here, now: a built backend may lack its device */
} ROWS[] = {
    { &ddl_backend_cpu, always },
#ifdef DDL_HAVE_CUDA
    { &ddl_backend_cuda, gpu_answers },
#endif
#ifdef DDL_HAVE_CUDA_EMU
    { &ddl_backend_cuda_emu, always },
#endif
};

enum { NROWS = sizeof ROWS / sizeof ROWS[0] };

const Backend *backend_named(const char *name)
{
    for (int i = 0; name && i < NROWS; i++)
        if (strcmp(ROWS[i].backend->name, name) == 0) return ROWS[i].backend;
    return NULL;
}

int backend_usable(const Backend **out, int cap)
{
    int k = 0;
    for (int i = 0; i < NROWS && k < cap; i++)
        if (ROWS[i].usable()) out[k++] = ROWS[i].backend;
    return k;
}
