/* device.c - device selection and the checks behind DEVICE=cuda. */
#include "device.h"

#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include "../cpu/parallel.h"
#include "../cpu/gemm.h"
#include "../cuda/cuda_runtime_probe.h"
#include "../cuda/device_mem.h"

int device_parse(const char *s, Device *out, char err[DDL_ERRLEN])
{
    if (s && strcmp(s, "cpu") == 0) { *out = DEVICE_CPU; return 0; }
    if (s && strcmp(s, "cuda") == 0) { *out = DEVICE_CUDA; return 0; }
    if (s && strcmp(s, "cuda-emu") == 0) { *out = DEVICE_CUDA_EMU; return 0; }
    snprintf(err, DDL_ERRLEN, "unknown device '%s' (use cpu, cuda or cuda-emu)", s ? s : "(null)");
    return -1;
}


static void cpu_model(char *out, size_t cap)
{
    ddl_strlcpy(out, "unknown CPU", cap);
    FILE *f = fopen("/proc/cpuinfo", "r");
    if (!f) return;
    char line[512];
    while (fgets(line, sizeof line, f)) {
        if (strncmp(line, "model name", 10) != 0) continue;
        char *v = strchr(line, ':');
        if (!v) break;
        v++;
        while (*v == ' ') v++;
        v[strcspn(v, "\n")] = '\0';
        ddl_strlcpy(out, v, cap);
        break;
    }
    fclose(f);
}

/* The GPU calls of one device kind: nvcc's build for cuda, the emulated
 * GPU's (core/cuda/emu/names.h) for cuda-emu, so that both choose a rank's
 * GPU alike. NULL where this build has none. */
typedef struct GpuOps {
    const char *name;
    int (*probe)(int index, char *desc, size_t cap, char *err, size_t errcap);
    int (*count)(void);
    void (*select)(int index);
    const char *missing; /* what to say in a build without it */
} GpuOps;

static const GpuOps *gpu_ops(Device d)
{
    static const GpuOps ops[] = {
#ifdef DDL_HAVE_CUDA
        { "cuda", ddl_cuda_probe, ddl_cuda_device_count, ddl_cuda_set_device, NULL },
#else
        { "cuda", NULL, NULL, NULL,
          "this build has no CUDA support (nvcc was not found at build time; install the CUDA toolkit and rebuild, "
          "or use DEVICE=cpu)" },
#endif
#ifdef DDL_HAVE_CUDA_EMU
        { "cuda-emu", ddl_cuda_probe_emu, ddl_cuda_device_count_emu, ddl_cuda_set_device_emu, NULL },
#else
        { "cuda-emu", NULL, NULL, NULL,
          "this build has no emulated GPU (built with EMU=0 or under SimGrid); rebuild with a C++ compiler" },
#endif
    };
    return d == DEVICE_CUDA ? &ops[0] : d == DEVICE_CUDA_EMU ? &ops[1] : NULL;
}

/* Whether d can be used here, and its description; no policy. */
static int probe(Device d, int local_rank, int local_ranks, char *desc, size_t cap, char err[DDL_ERRLEN])
{
    if (d == DEVICE_CPU) {
        char name[160];
        cpu_model(name, sizeof name);
        snprintf(desc, cap, "cpu (%s, %ld cores, OpenBLAS %s)", name, sysconf(_SC_NPROCESSORS_ONLN),
                 blas_core_name());
        return 0;
    }
    const GpuOps *g = gpu_ops(d);
    if (!g->probe) {
        snprintf(err, DDL_ERRLEN, "DEVICE=%s: %s", g->name, g->missing);
        return -1;
    }
    char gpu[160], why[160];
    if (g->probe(local_rank, gpu, sizeof gpu, why, sizeof why) != 0) {
        snprintf(err, DDL_ERRLEN, "DEVICE=%s: no usable GPU: %s", g->name, why);
        return -1;
    }
    int count = g->count();
    if (local_ranks > count)
        snprintf(desc, cap, "%s (%s; %d ranks of this node share %d GPU%s)", g->name, gpu, local_ranks, count,
                 count == 1 ? "" : "s");
    else
        snprintf(desc, cap, "%s (%s)", g->name, gpu);
    return 0;
}

int device_check_backend(Device d, int local_rank, int local_ranks, char *desc, size_t cap, char err[DDL_ERRLEN])
{
    if (probe(d, local_rank, local_ranks, desc, cap, err) != 0) return -1;
    /* GPU local_rank % count, current before the first allocation */
    if (d != DEVICE_CPU) gpu_ops(d)->select(local_rank);
    return 0;
}

int device_check(Device d, int local_rank, int local_ranks, char *desc, size_t cap, char err[DDL_ERRLEN])
{
    if (probe(d, local_rank, local_ranks, desc, cap, err) != 0) return -1;
    if (d == DEVICE_CPU) return 0;
    /* The model runs on the GPU (core/backend) but this program's gradient
     * synchronisation still reads arenas on the host: the honest answer is
     * a clear refusal, not a CPU run. */
    snprintf(err, DDL_ERRLEN, "DEVICE=%s: found %s, but this program does not train on the GPU yet; "
                              "use DEVICE=cpu", d == DEVICE_CUDA_EMU ? "cuda-emu" : "cuda", desc);
    return -1;
}
