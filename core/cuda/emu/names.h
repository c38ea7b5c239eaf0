/* names.h - force-included (-include) by every emulated-GPU compile
 * (DDL_CUDA_EMU): the same core/cuda sources, built a second time by the
 * host compiler, must not define the same C symbols as the nvcc build that
 * sits beside them in libddl.a. Every extern "C" name declared by hand in
 * kernels_cuda.h, device_mem.h, cuda_runtime_probe.h and nccl_coll.h, and
 * the backend table, gets an _emu suffix here; C++ names need nothing (the
 * emulated runtime lives in namespace ddl_emu, so it never clashes with
 * libcudart either). The kernels of the list (core/cpu/kernels.def) are
 * not here: kernels_cuda.h gives each its _emu symbol as it declares it.
 *
 * A name missing from this list shows as a duplicate symbol at link time
 * in a build with nvcc, so the list cannot silently fall behind. */
#ifndef DDL_CUDA_EMU_NAMES_H
#define DDL_CUDA_EMU_NAMES_H
#ifdef DDL_CUDA_EMU
#define channels_to_images_cuda channels_to_images_cuda_emu
#define col2im_cuda col2im_cuda_emu
#define coll_allreduce_cuda coll_allreduce_cuda_emu
#define coll_close_cuda coll_close_cuda_emu
#define coll_id_cuda coll_id_cuda_emu
#define coll_open_cuda coll_open_cuda_emu
#define coll_version_cuda coll_version_cuda_emu
#define ddl_backend_cuda ddl_backend_cuda_emu
#define ddl_cuda_blas_release ddl_cuda_blas_release_emu
#define ddl_cuda_current_device ddl_cuda_current_device_emu
#define ddl_cuda_device_count ddl_cuda_device_count_emu
#define ddl_cuda_event_create ddl_cuda_event_create_emu
#define ddl_cuda_event_destroy ddl_cuda_event_destroy_emu
#define ddl_cuda_event_done ddl_cuda_event_done_emu
#define ddl_cuda_event_record ddl_cuda_event_record_emu
#define ddl_cuda_event_synchronize ddl_cuda_event_synchronize_emu
#define ddl_cuda_free ddl_cuda_free_emu
#define ddl_cuda_host_alloc ddl_cuda_host_alloc_emu
#define ddl_cuda_host_free ddl_cuda_host_free_emu
#define ddl_cuda_is_device_pointer ddl_cuda_is_device_pointer_emu
#define ddl_cuda_malloc ddl_cuda_malloc_emu
#define ddl_cuda_memcpy_d2d ddl_cuda_memcpy_d2d_emu
#define ddl_cuda_memcpy_d2h ddl_cuda_memcpy_d2h_emu
#define ddl_cuda_memcpy_h2d ddl_cuda_memcpy_h2d_emu
#define ddl_cuda_memcpy_h2d_async ddl_cuda_memcpy_h2d_async_emu
#define ddl_cuda_memset ddl_cuda_memset_emu
#define ddl_cuda_probe ddl_cuda_probe_emu
#define ddl_cuda_set_device ddl_cuda_set_device_emu
#define ddl_cuda_set_stream ddl_cuda_set_stream_emu
#define ddl_cuda_stream ddl_cuda_stream_emu
#define ddl_cuda_stream_create ddl_cuda_stream_create_emu
#define ddl_cuda_stream_destroy ddl_cuda_stream_destroy_emu
#define ddl_cuda_stream_synchronize ddl_cuda_stream_synchronize_emu
#define ddl_cuda_stream_wait_event ddl_cuda_stream_wait_event_emu
#define ddl_cuda_synchronize ddl_cuda_synchronize_emu
#define f16_to_f32_cuda f16_to_f32_cuda_emu
#define gemm_f16_cuda gemm_f16_cuda_emu
#define gemm_f32_cuda gemm_f32_cuda_emu
#define im2col_cuda im2col_cuda_emu
#define images_to_channels_cuda images_to_channels_cuda_emu
#define nonfinite_flag_cuda nonfinite_flag_cuda_emu
#endif
#endif
