/* device.c - device selection and the checks behind DEVICE=cuda. */
#include "device.h"

#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include "../cpu/parallel.h"
#include "../cpu/gemm.h"
#ifdef DDL_HAVE_CUDA
#include "../cuda/cuda_runtime_probe.h"
#include "../cuda/device_mem.h"
#endif

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
    if (d == DEVICE_CUDA_EMU) {
#ifdef DDL_HAVE_CUDA_EMU
        snprintf(desc, cap, "cuda-emu (emulated GPU: core/cuda's kernels on %d CPU threads, no GPU)",
                 ddl_kernel_threads());
        return 0;
#else
        snprintf(err, DDL_ERRLEN, "DEVICE=cuda-emu: this build has no emulated GPU (built with EMU=0 or under "
                                  "SimGrid); rebuild with a C++ compiler");
        return -1;
#endif
    }
#ifdef DDL_HAVE_CUDA
    char gpu[160], why[160];
    if (ddl_cuda_probe(local_rank, gpu, sizeof gpu, why, sizeof why) != 0) {
        snprintf(err, DDL_ERRLEN, "DEVICE=cuda: no usable GPU: %s", why);
        return -1;
    }
    int count = ddl_cuda_device_count();
    if (local_ranks > count)
        snprintf(desc, cap, "cuda (%s; %d ranks of this node share %d GPU%s)", gpu, local_ranks, count,
                 count == 1 ? "" : "s");
    else
        snprintf(desc, cap, "cuda (%s)", gpu);
    return 0;
#else
    (void)local_rank;
    (void)local_ranks;
    (void)desc;
    (void)cap;
    snprintf(err, DDL_ERRLEN, "DEVICE=cuda: this build has no CUDA support (nvcc was not found at build time; "
                              "install the CUDA toolkit and rebuild, or use DEVICE=cpu)");
    return -1;
#endif
}

int device_check_backend(Device d, int local_rank, int local_ranks, char *desc, size_t cap, char err[DDL_ERRLEN])
{
    if (probe(d, local_rank, local_ranks, desc, cap, err) != 0) return -1;
#ifdef DDL_HAVE_CUDA
    if (d == DEVICE_CUDA) ddl_cuda_set_device(local_rank); /* before the first allocation */
#endif
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
