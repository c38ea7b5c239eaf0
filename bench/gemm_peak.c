/* gemm_peak.c - the SGEMM rate of this machine or device: the reference
 * for "achieved GFLOP/s" in `make bench` and `make gpu-check`.
 *
 *   bin/bench/gemm_peak                      OpenBLAS, square 1024 and 2048
 *   bin/bench/gemm_peak --device cuda        cuBLAS, square 4096 and 8192 (and
 *                                            cublasGemmEx with FP16 operands)
 * Best of 5 calls per size, after one untimed call; on a device the
 * operands live there and each call is waited for. Prints one line per
 * size: "bench sgemm N^3: X GFLOP/s (...)" ("bench hgemm" for FP16). */
#include <mpi.h>
#include <stdio.h>
#include <string.h>

#include "backend/registry.h"
#include "util/common.h"
#include "platform/device.h"
#include "cpu/gemm.h"
#include "util/half.h"

static double best_gflops(const Backend *be, int n, bool half, void *a, void *b, float *c)
{
    double best = 1e30;
    for (int r = 0; r < 6; r++) {
        be->synchronize();
        double t0 = ddl_now();
        if (half) be->gemm_f16(false, false, n, n, n, 1.0f, a, n, b, n, 0.0f, c, n);
        else be->gemm_f32(false, false, n, n, n, 1.0f, a, n, b, n, 0.0f, c, n);
        be->synchronize();
        double t = ddl_now() - t0;
        if (r > 0 && t < best) best = t; /* the first call sets up (cuBLAS handles, pages) */
    }
    return 2.0 * n * n * (double)n / best * 1e-9;
}

static void measure(const Backend *be, const char *desc, int n, bool half)
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
    double g = best_gflops(be, n, half, a, b, c);
    printf("bench %s %d^3: %.1f GFLOP/s (%s, %s)\n", half ? "hgemm" : "sgemm", n, g,
           half ? "cublasGemmEx FP16 operands, FP32 compute" : be->host_memory ? "OpenBLAS" : "cublasSgemm", desc);
    be->release(a);
    be->release(b);
    be->release(c);
    ddl_free(ha);
    ddl_free(hb);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    const char *name = argc == 3 && !strcmp(argv[1], "--device") ? argv[2] : argc == 1 ? "cpu" : NULL;
    Device dev;
    char err[DDL_ERRLEN] = "", desc[256] = "";
    const Backend *be = NULL;
    if (!name) {
        fprintf(stderr, "usage: gemm_peak [--device cpu|cuda|cuda-emu]\n");
    } else if (device_parse(name, &dev, err) != 0 || device_check_backend(dev, 0, 1, desc, sizeof desc, err) != 0 ||
               !(be = backend_named(name))) {
        fprintf(stderr, "error: %s\n", err[0] ? err : "this build has no such backend");
    }
    if (!be) {
        MPI_Finalize();
        return 2;
    }
    if (be->host_memory) snprintf(desc, sizeof desc, "%s kernels, %d threads", blas_core_name(), blas_threads());
    int lo = be->host_memory ? 1024 : 4096, hi = 2 * lo;
    if (!strcmp(be->name, "cuda-emu")) lo = hi = 512; /* the emulator's GEMM is OpenBLAS: a dry run */
    for (int n = lo; n <= hi; n *= 2) measure(be, desc, n, false);
    if (be->gemm_f16)
        for (int n = lo; n <= hi; n *= 2) measure(be, desc, n, true);
    MPI_Finalize();
    return 0;
}
