/* cuda_aware.c - can MPI take device pointers? (declared in
 * cuda/device_mem.h). A C file because it needs mpi.h and Open MPI's
 * mpi-ext.h, which the C compiler (mpicc) finds and nvcc does not.
 *
 * Open MPI says it twice: MPIX_CUDA_AWARE_SUPPORT (compile time: built with
 * CUDA) and MPIX_Query_cuda_support() (run time: CUDA support enabled).
 * Both must hold. Other MPI libraries have no portable query, so they are
 * treated as not CUDA-aware: callers then stage through pinned host memory,
 * which is always correct, only slower. */
#include <mpi.h>
#include <stdio.h>
#include "../util/common.h"
#include "../cuda/device_mem.h"
#if defined(DDL_HAVE_CUDA) && defined(OPEN_MPI) && OPEN_MPI
#include <mpi-ext.h>
#endif

int ddl_mpi_cuda_aware(char *why, size_t cap)
{
#ifndef DDL_HAVE_CUDA
    snprintf(why, cap, "this build has no CUDA support");
    return 0;
#elif defined(MPIX_CUDA_AWARE_SUPPORT) && MPIX_CUDA_AWARE_SUPPORT
    if (MPIX_Query_cuda_support()) {
        snprintf(why, cap, "Open MPI built with CUDA support and CUDA support enabled at run time");
        return 1;
    }
    snprintf(why, cap, "Open MPI was built with CUDA support but it is disabled at run time "
                       "(MPIX_Query_cuda_support() == 0)");
    return 0;
#elif defined(MPIX_CUDA_AWARE_SUPPORT)
    snprintf(why, cap, "this Open MPI was built without CUDA support (MPIX_CUDA_AWARE_SUPPORT is 0)");
    return 0;
#else
    snprintf(why, cap, "this MPI library has no MPIX_CUDA_AWARE_SUPPORT query; assuming not CUDA-aware");
    return 0;
#endif
}
