/* parallel.c - how many threads the kernels' parallel loops use
 * (parallel.h). */
#include "parallel.h"

#ifdef _OPENMP
#include <omp.h>
#endif

static int override;

int ddl_kernel_threads(void)
{
#ifdef _OPENMP
    return override > 0 ? override : omp_get_max_threads();
#else
    return 1;
#endif
}

void ddl_set_kernel_threads(int n) { override = n > 0 ? n : 0; }
