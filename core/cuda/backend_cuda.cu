// backend_cuda.cu - the CUDA backend: device memory, the CUDA twins and
// cuBLAS (see core/backend/backend.h). Every entry runs on this thread's
// stream (ddl_cuda_stream); batches are staged through page-locked memory
// on a copy stream of their own (core/backend/device_batch.c). Mixed
// precision gets real FP16 GEMM operands (gemm_f16_cuda: cublasGemmEx,
// FP32 accumulation). Host code only: it compiles as plain C++ too.
//
// The emulated build of this same file (DDL_CUDA_EMU) names its table
// "cuda-emu" and its device "emulated GPU", so outputs say which it was.
#include "../backend/backend.h"
#include "cuda_runtime_probe.h"
#include "device_mem.h"
#include "kernels_cuda.h"
#include "nccl_coll.h"

#ifdef DDL_CUDA_EMU
#define DDL_CUDA_BACKEND_NAME "cuda-emu"
#define DDL_CUDA_BACKEND_WHAT "emulated GPU"
#define DDL_CUDA_MPI_READS false
#else
#define DDL_CUDA_MPI_READS true
#define DDL_CUDA_BACKEND_NAME "cuda"
#define DDL_CUDA_BACKEND_WHAT "GPU"
#endif

#ifdef DDL_CUDA_EMU
#define DDL_CONV_DEVICE CONV_ON_CUDA_EMU
#else
#define DDL_CONV_DEVICE CONV_ON_CUDA
#endif

namespace {

// Arenas start zeroed, as on the CPU (calloc): the memset is queued on this
// thread's stream, ahead of any kernel or copy that uses the memory.
void *cuda_alloc(size_t bytes)
{
    void *p = ddl_cuda_malloc(bytes);
    ddl_cuda_memset(p, 0, bytes);
    return p;
}

void cuda_zero(void *dst, size_t bytes) { ddl_cuda_memset(dst, 0, bytes); }

// The convolution sub-table (core/conv/kernels.h): the CUDA twins of the
// kernels several paths share, set by name as the table below is; each
// path's own kernels are in its row's CUDA table (defined in its .cu file).
constexpr ConvKernels conv_cuda_table()
{
    ConvKernels k{};
    k.device = DDL_CONV_DEVICE;
    k.im2col = im2col_cuda;
    k.col2im = col2im_cuda;
    k.images_to_channels = images_to_channels_cuda;
    k.channels_to_images = channels_to_images_cuda;
    k.instead = nullptr;
    return k;
}
constexpr ConvKernels conv_cuda = conv_cuda_table();

#ifdef DDL_CUDA_EMU
bool device_usable() { return true; } // the emulated GPU is the CPU: always here
#else
// A GPU answers (the registry lists this backend only then).
bool device_usable()
{
    char desc[160], why[160];
    return ddl_cuda_probe(0, desc, sizeof desc, why, sizeof why) == 0;
}
#endif

// The table, every entry set by name (C++17 has no designated
// initializers): a constant expression, so the table is constant data, as
// the CPU's is, and two entries of one type cannot be swapped unseen.
constexpr Backend cuda_backend()
{
    Backend b{};
    b.name = DDL_CUDA_BACKEND_NAME;
    b.what = DDL_CUDA_BACKEND_WHAT;
    b.host_memory = false;
    b.usable = device_usable;
    b.alloc = cuda_alloc;
    b.release = ddl_cuda_free;
    b.to_device = ddl_cuda_memcpy_h2d;
    b.to_host = ddl_cuda_memcpy_d2h;
    b.copy = ddl_cuda_memcpy_d2d;
    b.zero = cuda_zero;
    b.host_alloc = ddl_cuda_host_alloc;
    b.host_free = ddl_cuda_host_free;
    b.synchronize = ddl_cuda_synchronize;
    b.stream_new = ddl_cuda_stream_create;
    b.stream_free = ddl_cuda_stream_destroy;
    b.event_new = ddl_cuda_event_create;
    b.event_free = ddl_cuda_event_destroy;
    b.event_record = ddl_cuda_event_record;
    b.stream_wait = ddl_cuda_stream_wait_event;
    b.event_wait_host = ddl_cuda_event_synchronize;
    b.to_device_async = ddl_cuda_memcpy_h2d_async;
    b.event_done = ddl_cuda_event_done;
    b.owns = ddl_cuda_is_device_pointer;
    b.mpi_reads_device = DDL_CUDA_MPI_READS;
    b.coll_id = coll_id_cuda;
    b.coll_open = coll_open_cuda;
    b.coll_allreduce = coll_allreduce_cuda;
    b.coll_close = coll_close_cuda;
    b.coll_version = coll_version_cuda;
    b.gemm_f32 = gemm_f32_cuda;
    b.gemm_f16 = gemm_f16_cuda;
    b.conv = &conv_cuda;
    // every kernel of the list (core/cpu/kernels.def), by name
#define KERNEL(name, ret, params) b.name = name##_cuda;
#include "../cpu/kernels.def"
    return b;
}

// constexpr: the compiler refuses the table if any entry were not constant.
constexpr Backend CUDA_TABLE = cuda_backend();

} // namespace

extern "C" const Backend ddl_backend_cuda = CUDA_TABLE;
