/* gemm_peak.c - the SGEMM rate of this machine or device: the reference
 * for "achieved GFLOP/s" in `make bench` and `make gpu-check`.
 *
 *   bin/bench/gemm_peak                      OpenBLAS, square 1024 and 2048
 *   bin/bench/gemm_peak --device cuda        cuBLAS, square 4096 and 8192 (and
 *                                            cublasGemmEx with FP16 operands)
 * Best of 5 calls per size, after one untimed call; on a device the
 * operands live there and each call is waited for. Prints the rows as a
 * table (table_print_text, the layout every bench shares), writes them
 * with their provenance to --out (default results/bench) as
 * gemm_peak-<device>.csv and .json, then one line per size that
 * labs/platforms/sim.sh and tests/gpu_check.sh read:
 * "bench sgemm N^3: X GFLOP/s (...)" ("bench hgemm" for FP16).
 * --clock cpu (CPU only) times each call by this thread's CPU time, the
 * clock SimGrid SMPI charges computations by: on a loaded machine the wall
 * clock gives the share of a core this process got, and sim.sh's
 * smpi/host-speed from it made every simulated computation too short
 * (43.9 instead of 105.8 GFLOP/s at load average 10, 2026-11-29). */
#include <mpi.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "backend/registry.h"
#include "util/cli.h"
#include "util/common.h"
#include "platform/device.h"
#include "cpu/gemm.h"
#include "results/results.h"
#include "util/half.h"

/* Seconds on the chosen clock: wall, or this thread's CPU time (single-
 * threaded BLAS runs the GEMM on the calling thread). */
static double clock_s(bool cpu)
{
    if (!cpu) return ddl_now();
    struct timespec ts;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static double best_gflops(const Backend *be, int n, bool half, bool cpu, void *a, void *b, float *c)
{
    double best = 1e30;
    for (int r = 0; r < 6; r++) {
        be->synchronize();
        double t0 = clock_s(cpu);
        if (half) be->gemm_f16(false, false, n, n, n, 1.0f, a, n, b, n, 0.0f, c, n);
        else be->gemm_f32(false, false, n, n, n, 1.0f, a, n, b, n, 0.0f, c, n);
        be->synchronize();
        double t = clock_s(cpu) - t0;
        if (r > 0 && t < best) best = t; /* the first call sets up (cuBLAS handles, pages) */
    }
    return 2.0 * n * n * (double)n / best * 1e-9;
}

static const char *library(const Backend *be, bool half)
{
    return half ? "cublasGemmEx FP16 operands, FP32 compute" : be->host_memory ? "OpenBLAS" : "cublasSgemm";
}

/* One size: its row of t, and its GFLOP/s. */
static double measure(const Backend *be, Table *t, int n, bool half, bool cpu)
{
    size_t count = (size_t)n * n, es = half ? sizeof(uint16_t) : sizeof(float);
    void *ha = ddl_calloc(count * es), *hb = ddl_calloc(count * es);
    for (size_t i = 0; i < count; i++) {
        float va = 1e-3f * (float)(i % 7), vb = 1e-3f * (float)(i % 5);
        if (half) ((uint16_t *)ha)[i] = half_from_float(va), ((uint16_t *)hb)[i] = half_from_float(vb);
        else ((float *)ha)[i] = va, ((float *)hb)[i] = vb;
    }
    void *a = be->alloc(count * es), *b = be->alloc(count * es);
    float *c = be->alloc(count * sizeof(float));
    be->to_device(a, ha, count * es);
    be->to_device(b, hb, count * es);
    double g = best_gflops(be, n, half, cpu, a, b, c);
    table_set_str(t, "op", half ? "hgemm" : "sgemm");
    table_set_int(t, "n", n);
    table_set_num(t, "gflops", g, "%.1f");
    table_set_str(t, "library", library(be, half));
    table_end_row(t);
    be->release(a);
    be->release(b);
    be->release(c);
    ddl_free(ha);
    ddl_free(hb);
    return g;
}

/* Every size, printed and written; 0, or 1 when the files were not written. */
static int run(const Backend *be, const char *desc, const char *out, bool cpu)
{
    char name[96];
    snprintf(name, sizeof name, "gemm_peak-%s", be->name);
    Table *t = table_new(name, "op,n,gflops,library");
    meta_collect(&t->meta, "gemm_peak");
    meta_set(&t->meta, "device", "%s", desc);
    meta_set(&t->meta, "seed", "n/a (fixed operands)");
    meta_set(&t->meta, "timing", "best of 5 calls after one untimed call, %s; on a device each call is waited for",
             cpu ? "by this thread's CPU time" : "by the wall clock");
    int lo = be->host_memory ? 1024 : 4096, hi = 2 * lo, nrows = 0;
    if (!strcmp(be->name, "cuda-emu")) lo = hi = 512; /* the emulator's GEMM is OpenBLAS: a dry run */
    struct { int n; bool half; double gflops; } row[8];
    for (int half = 0; half <= (be->gemm_f16 != NULL); half++)
        for (int n = lo; n <= hi && nrows < 8; n *= 2, nrows++)
            row[nrows].n = n, row[nrows].half = half, row[nrows].gflops = measure(be, t, n, half, cpu);
    static const TextColumn show[] = {
        { "op", "op", "" }, { "n", "size", "n^3" }, { "gflops", "rate", "GFLOP/s" }, { "library", "library", "" },
    };
    table_print_text(t, show, (int)(sizeof show / sizeof show[0]), stdout);
    for (int i = 0; i < nrows; i++)
        printf("bench %s %d^3: %.1f GFLOP/s (%s, %s)\n", row[i].half ? "hgemm" : "sgemm", row[i].n, row[i].gflops,
               library(be, row[i].half), desc);
    fflush(stdout);
    int status = table_write(t, out) != 0;
    table_free(t);
    return status;
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    const char *name = "cpu", *out = "results/bench", *clock = "wall";
    const CliOption opts[] = {
        { "device", OPT_STR, &name, "cpu | cuda | cuda-emu (default cpu)", 0, 0 },
        { "out", OPT_STR, &out, "where the CSV and JSON go (default results/bench)", 0, 0 },
        { "clock", OPT_STR, &clock, "wall | cpu: this thread's CPU time, CPU device only (default wall)", 0, 0 },
    };
    int rc = cli_parse(argc, argv, "gemm_peak [--device cpu|cuda|cuda-emu] [--out DIR] [--clock wall|cpu]",
                       "the SGEMM (and, on a GPU, FP16 GEMM) rate of this machine or device, best of 5",
                       opts, (int)(sizeof opts / sizeof opts[0]));
    Device dev;
    char err[DDL_ERRLEN] = "", desc[256] = "";
    const Backend *be = NULL;
    if (rc == 0 && (device_parse(name, &dev, err) != 0 ||
                    device_check_backend(dev, 0, 1, desc, sizeof desc, err) != 0 || !(be = backend_named(name))))
        fprintf(stderr, "error: %s\n", err[0] ? err : "this build has no such backend");
    bool cpu = !strcmp(clock, "cpu");
    /* A thread's CPU time counts its own work only: one BLAS thread, and
     * the GEMM on the host. */
    if (be && ((strcmp(clock, "wall") && !cpu) || (cpu && (!be->host_memory || blas_threads() != 1)))) {
        fprintf(stderr, "error: --clock %s: wall, or cpu on the CPU device with one BLAS thread "
                        "(OPENBLAS_NUM_THREADS=1 OMP_NUM_THREADS=1)\n", clock);
        be = NULL, rc = 2;
    }
    if (!be) {
        MPI_Finalize();
        return rc == 1 ? 0 : 2;
    }
    if (be->host_memory) snprintf(desc, sizeof desc, "%s kernels, %d threads", blas_core_name(), blas_threads());
    int status = run(be, desc, out, cpu);
    MPI_Finalize();
    return status;
}
