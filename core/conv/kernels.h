/* kernels.h - the convolution sub-table of a backend: the kernels that
 * several convolution paths share (the lowering and layout changes around
 * a GEMM), one table per device, and which device it is.
 *
 * A path's own kernels are not here: each path's row (conv.c) holds its
 * kernel table for every device (the CPU's, defined beside its CPU
 * kernels, and its CUDA twin's, defined in its .cu file), and conv.c
 * hands the path the one of the device named here. So a new path adds
 * no entry to this table.
 *
 * The CPU's table is conv_kernels_cpu (kernels_cpu.c); the CUDA one is in
 * core/cuda/backend_cuda.cu, built once by nvcc and once by the host
 * compiler as the emulated GPU (a device of its own: its kernel tables
 * are the emulated build's). A Backend points at its device's table
 * (Backend.conv), so the rest of core never names a convolution kernel.
 * Pointers are the backend's memory; scalars are host values. Plain C:
 * the CUDA table is defined in a .cu file. */
#ifndef DDL_CONV_KERNELS_H
#define DDL_CONV_KERNELS_H

#include <stdbool.h>
#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/* A layer's geometry: input cin x h x w, output cout x oh x ow, square
 * k x k filters, stride, zero padding, groups. */
typedef struct ConvShape {
    int cin, h, w, cout, oh, ow, k, stride, pad, groups;
} ConvShape;

/* The devices a path's row has a kernel table for (ConvPathRow.kernels).
 * The CPU is one device per instruction set its kernels are built for
 * (core/cpu/isa.h): CONV_ON_CPU, the portable build, and the AVX2 and
 * AVX-512 builds of the same files, each one more column of the rows, as
 * a GPU's table is. They come last so that the GPU's values stay what
 * objects built before them hold (nvcc's objects do not track headers). */
typedef enum ConvDevice {
    CONV_ON_CPU, CONV_ON_CUDA, CONV_ON_CUDA_EMU, CONV_ON_CPU_AVX2, CONV_ON_CPU_AVX512, CONV_DEVICES
} ConvDevice;
/* The CPU's device for a build of its kernels (DdlIsa: 0 portable, 1
 * AVX2, 2 AVX-512), and whether a device is one of the CPU's builds. */
#define CONV_ON_CPU_BUILD(isa) ((isa) == 0 ? CONV_ON_CPU : (ConvDevice)(CONV_ON_CPU_AVX2 + (isa) - 1))
static inline bool conv_on_cpu(ConvDevice d)
{
    return d == CONV_ON_CPU || d == CONV_ON_CPU_AVX2 || d == CONV_ON_CPU_AVX512;
}

/* The name of a path's CUDA kernel table in the build at hand: p_cuda for
 * nvcc's, p_cuda_emu for the emulated GPU's, so both builds of a .cu file
 * define their own and link side by side. */
#ifdef DDL_CUDA_EMU
#define CONV_CUDA_TABLE(p) p##_cuda_emu
#else
#define CONV_CUDA_TABLE(p) p##_cuda
#endif

/* Declares a path's kernel tables of type T: p_cpu (with its AVX2 and
 * AVX-512 builds, p_cpu_avx2 and p_cpu_avx512), and p_cuda and
 * p_cuda_emu, its CUDA twin's in the two builds of its .cu file. */
#define CONV_KERNEL_TABLES(T, p) extern const T p##_cpu, p##_cpu_avx2, p##_cpu_avx512, p##_cuda, p##_cuda_emu

typedef struct ConvKernels {
    ConvDevice device; /* which of a path's kernel tables run here */
    /* im2col + GEMM, the reference (im2col.c, layout.c); the other paths
     * fall back on it with FP16 GEMM operands */
    void (*im2col)(const float *x, int nb, int C, int H, int W, int k, int stride, int pad, int OH, int OW,
                   float *col);
    void (*col2im)(const float *col, int nb, int C, int H, int W, int k, int stride, int pad, int OH, int OW,
                   float *dx, bool acc);
    void (*images_to_channels)(const float *x, int nb, int c, int p, float *t);
    void (*channels_to_images)(const float *t, int nb, int c, int p, float *y);
    /* NULL, or per path (ConvPath order, CONV_PATHS_MAX entries) a kernel
     * table that runs instead of its row's where not NULL: the tests'
     * counting kernels and their stand-in for cuDNN on the CPU */
    const void *const *instead;
} ConvKernels;

/* kernels_cpu.c */
extern const ConvKernels conv_kernels_cpu;

#ifdef __cplusplus
}
#endif

#endif
