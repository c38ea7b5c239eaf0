// memory.h - the emulated GPU's device memory (arena.cc): allocation, the
// host's exclusion from it, and what strict mode keeps about every
// allocation. Internal to core/cuda/emu.
//
// Strict mode (strict.h) lays an allocation out as
//     [256-byte red zone][the bytes asked for][red zone to the next 256 + 256]
// fills the red zones with REDZONE_WORD and the bytes with FRESH_WORD, and
// keeps, per allocation, which bytes nobody has written yet ("unwritten"):
// host-side writes (copies, memsets, GEMM outputs, NCCL) clear their range
// exactly; a kernel's writes are found after it ran, by looking for the
// bytes of its pointer arguments' allocations that no longer hold the fill
// (a kernel that copies fill bytes leaves them unwritten: they still came
// from nobody). A copy to the host, a GEMM or NCCL reading unwritten bytes
// is reported, and so is a red zone that changed (after every launch, for
// the launch's allocations, and at cudaFree).
#ifndef DDL_CUDA_EMU_MEMORY_H
#define DDL_CUDA_EMU_MEMORY_H

#include <cstddef>
#include <cstdint>

namespace ddl_emu {

constexpr size_t REDZONE = 256;

// cudaMalloc and cudaFree without the error bookkeeping: 0 on success.
int arena_alloc(void **p, size_t bytes);
int arena_free(void *p);
size_t arena_reserved();
size_t arena_in_use();

// The live allocation that holds p (p may be its end: a pointer one past
// the last byte still belongs to it). Fills *user and *bytes; false when p
// lies in no live allocation.
bool find_allocation(const void *p, const char **user, size_t *bytes);

// ---- strict mode only (no-ops otherwise) ----
// Reports (detector out-of-bounds) unless [p, p + bytes) lies within one
// live allocation; `what` names the operation.
void check_range(const char *what, const void *p, size_t bytes);
// Host-side writes: [p, p + bytes) now holds data.
void mark_written(const void *p, size_t bytes);
// A device-to-device copy: dst's bytes are written where src's were.
void copy_written(const void *dst, const void *src, size_t bytes);
// Reports (detector uninitialised-copy) when [p, p + bytes) holds a byte
// nobody wrote; `what` names the operation.
void check_written(const char *what, const void *p, size_t bytes);
// After a kernel: finds what it wrote in the allocations of its pointer
// arguments and checks their red zones; false when a red zone changed
// (*user then names that allocation; the caller looks for the thread).
bool after_kernel(const void *const *ptrs, int n, const char **user);
// Whether the red zones of the allocation starting at user still hold
// their pattern (the scheduler's search for the thread that wrote one).
bool redzones_intact(const char *user);
// Writes the pattern over that allocation's red zones again (memory open).
void repair_redzones(const char *user);
// Reports a changed red zone of that allocation (detector out-of-bounds-write).
[[noreturn]] void report_redzone(const char *user, const char *when);

} // namespace ddl_emu

#endif
