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
// kernels several paths share, in the struct's order; each path's own
// kernels are in its row's CUDA table (defined in its .cu file).
const ConvKernels conv_cuda = {
    /* .device = */ DDL_CONV_DEVICE,
    /* .im2col = */ im2col_cuda,
    /* .col2im = */ col2im_cuda,
    /* .images_to_channels = */ images_to_channels_cuda,
    /* .channels_to_images = */ channels_to_images_cuda,
    /* .instead = */ nullptr,
};

} // namespace

extern "C" const Backend ddl_backend_cuda = {
    /* .name = */ DDL_CUDA_BACKEND_NAME,
    /* .what = */ DDL_CUDA_BACKEND_WHAT,
    /* .host_memory = */ false,
    /* .alloc = */ cuda_alloc,
    /* .release = */ ddl_cuda_free,
    /* .to_device = */ ddl_cuda_memcpy_h2d,
    /* .to_host = */ ddl_cuda_memcpy_d2h,
    /* .copy = */ ddl_cuda_memcpy_d2d,
    /* .zero = */ cuda_zero,
    /* .host_alloc = */ ddl_cuda_host_alloc,
    /* .host_free = */ ddl_cuda_host_free,
    /* .synchronize = */ ddl_cuda_synchronize,
    /* .stream_new = */ ddl_cuda_stream_create,
    /* .stream_free = */ ddl_cuda_stream_destroy,
    /* .event_new = */ ddl_cuda_event_create,
    /* .event_free = */ ddl_cuda_event_destroy,
    /* .event_record = */ ddl_cuda_event_record,
    /* .stream_wait = */ ddl_cuda_stream_wait_event,
    /* .event_wait_host = */ ddl_cuda_event_synchronize,
    /* .to_device_async = */ ddl_cuda_memcpy_h2d_async,
    /* .event_done = */ ddl_cuda_event_done,
    /* .owns = */ ddl_cuda_is_device_pointer,
    /* .mpi_reads_device = */ DDL_CUDA_MPI_READS,
    /* .coll_id = */ coll_id_cuda,
    /* .coll_open = */ coll_open_cuda,
    /* .coll_allreduce = */ coll_allreduce_cuda,
    /* .coll_close = */ coll_close_cuda,
    /* .coll_version = */ coll_version_cuda,
    /* .gemm_f32 = */ gemm_f32_cuda,
    /* .gemm_f16 = */ gemm_f16_cuda,
    /* .conv = */ &conv_cuda,
    /* .bias_add = */ bias_add_cuda,
    /* .bias_grad = */ bias_grad_cuda,
    /* .relu_forward = */ relu_forward_cuda,
    /* .relu_backward = */ relu_backward_cuda,
    /* .relu6_forward = */ relu6_forward_cuda,
    /* .relu6_backward = */ relu6_backward_cuda,
    /* .maxpool_forward = */ maxpool_forward_cuda,
    /* .maxpool_backward = */ maxpool_backward_cuda,
    /* .avgpool_forward = */ avgpool_forward_cuda,
    /* .avgpool_backward = */ avgpool_backward_cuda,
    /* .global_avgpool_forward = */ global_avgpool_forward_cuda,
    /* .global_avgpool_backward = */ global_avgpool_backward_cuda,
    /* .batchnorm_forward_train = */ batchnorm_forward_train_cuda,
    /* .batchnorm_forward_eval = */ batchnorm_forward_eval_cuda,
    /* .batchnorm_eval_stats = */ batchnorm_eval_stats_cuda,
    /* .batchnorm_backward = */ batchnorm_backward_cuda,
    /* .dropout_mask = */ dropout_mask_cuda,
    /* .mul = */ mul_cuda,
    /* .mul_backward = */ mul_backward_cuda,
    /* .add = */ add_cuda,
    /* .copy_grad = */ copy_grad_cuda,
    /* .add_relu = */ add_relu_cuda,
    /* .add_relu_backward = */ add_relu_backward_cuda,
    /* .scale = */ scale_cuda,
    /* .softmax_ce_forward = */ softmax_ce_forward_cuda,
    /* .softmax_ce_backward = */ softmax_ce_backward_cuda,
    /* .labels_outside = */ labels_outside_cuda,
    /* .sgd_update = */ sgd_update_cuda,
    /* .half_round = */ half_round_cuda,
    /* .f32_to_f16 = */ f32_to_f16_cuda,
    /* .nonfinite = */ nonfinite_cuda,
};
