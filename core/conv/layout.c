/* layout.c - NCHW <-> channel-major, around convolution GEMMs that cover
 * several images: the GEMM's result is [c][nb*p], the next layer wants
 * [nb][c][p]; backward needs dy the other way round. Row copies of p
 * floats, one image per thread. */
#include "kernels_cpu.h"

#include <string.h>
#include "../cpu/parallel.h"

void images_to_channels_cpu(const float *x, int nb, int c, int p, float *t)
{
    size_t ld = (size_t)nb * p, img = (size_t)c * p;
    PARALLEL_FOR((size_t)nb * img)
    for (int i = 0; i < nb; i++)
        for (int j = 0; j < c; j++)
            memcpy(t + (size_t)j * ld + (size_t)i * p, x + i * img + (size_t)j * p, sizeof(float) * p);
}

void channels_to_images_cpu(const float *t, int nb, int c, int p, float *y)
{
    size_t ld = (size_t)nb * p, img = (size_t)c * p;
    PARALLEL_FOR((size_t)nb * img)
    for (int i = 0; i < nb; i++)
        for (int j = 0; j < c; j++)
            memcpy(y + i * img + (size_t)j * p, t + (size_t)j * ld + (size_t)i * p, sizeof(float) * p);
}
