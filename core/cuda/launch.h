// launch.h - kernel launches in one spelling, DDL_LAUNCH(kernel, grid,
// block, shared_bytes, stream)(args...), so the same .cu source can also be
// compiled by a host C++ compiler (where <<<...>>> does not parse) against
// an emulation of the runtime. Under nvcc it is the triple-chevron launch.
// The emulated GPU (core/cuda/emu/emu.h, reached through its
// <cuda_runtime.h>) defines DDL_LAUNCH before this.
#ifndef DDL_CUDA_LAUNCH_H
#define DDL_CUDA_LAUNCH_H

#ifndef DDL_LAUNCH
#define DDL_LAUNCH(kernel, grid, block, shared_bytes, stream) kernel<<<(grid), (block), (shared_bytes), (stream)>>>
#endif

#endif
