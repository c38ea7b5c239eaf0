// runner.h - what an OS thread keeps to run the blocks of a grid
// (scheduler.cc), shared with launch.cc, shared.cc and fpe.cc. Internal to
// core/cuda/emu.
#ifndef DDL_CUDA_EMU_RUNNER_H
#define DDL_CUDA_EMU_RUNNER_H

#include <cuda_runtime.h>

#include <vector>

#if !defined(__x86_64__)
#include <ucontext.h>
#endif

#include "strict.h"

namespace ddl_emu {

constexpr unsigned MAX_THREADS = 1024;             // per block, as on every GPU since sm_20
constexpr size_t SM90_STATIC_SHARED = 48 * 1024;   // static __shared__ per block
constexpr size_t SM90_MAX_SHARED = 227 * 1024;     // static + dynamic, with the opt-in attribute

enum State : unsigned char { RUNNABLE, WAIT_BLOCK, WAIT_WARP, DONE };

#if defined(__x86_64__)
struct Context {
    void *sp;
};
#else
struct Context {
    ucontext_t uc;
};
#endif

// Strict mode's record of one element of a __shared__ array in the block
// now running: the barrier interval (epoch, counted from 1 per block) and
// thread of its last write and of its reads in the current interval.
struct SharedCell {
    uint32_t w_epoch, r_epoch; // 0: never in this block
    uint16_t writer, reader, reader2;
    uint8_t readers;           // 1, or 2 for "more than one" (reader2 the second)
};

struct SharedRegion {
    const char *base;
    size_t count, elem;
    unsigned gen; // the block it was reset for
    std::vector<SharedCell> cells;
};

struct Runner {
    const char *kernel;
    uint64_t launch;     // its number (reports, seeded order)
    Order order;         // this launch's thread order
    size_t dynamic_shared;
    void (*body)(void *);
    void *arg;
    unsigned n;          // threads per block
    int current;         // the thread running
    bool in_block;       // a block of a kernel runs on this OS thread
    bool looping;        // its threads still run as plain calls of the loop fiber (scheduler.cc)
    bool loop_finished;  // the loop ran every thread to its end
    unsigned loop_next;  // the loop's next thread, by its place in order_of
    Context loop_ctx;
    const char *hunt;    // strict: the allocation whose red zone a thread wrote (searching for it)
    Context scheduler;
    Context fiber[MAX_THREADS];
    State state[MAX_THREADS];
    unsigned char parity[MAX_THREADS];   // which exchange buffer its next warp op uses
    uint64_t exchange[2][MAX_THREADS];   // two, so a fast lane never overwrites a value still to be read
    const char *site[MAX_THREADS];       // the __syncthreads a thread waits at
    unsigned mask[MAX_THREADS];          // the mask of the shuffle a thread waits at
    uint32_t arrived[MAX_THREADS / 32];  // lanes that took part in each warp's last shuffle
    unsigned order_of[MAX_THREADS];      // the block's threads in the order they run
    uint32_t epoch;                      // barriers passed by this block, from 1
    unsigned gen;                        // blocks run by this OS thread
    size_t static_shared;                // __shared__ bytes this block touched
    std::vector<SharedRegion> regions;
    char *stacks;
};

// This OS thread's runner while it runs a block, else null.
Runner *running();

// The CUDA thread now running: its index within the block.
unsigned linear_thread();

// Formats a thread index of the running block as "(x,y,z)".
void thread_name(unsigned t, char *buf, size_t cap);

// Runs every block of spec's grid (spec already checked) in the given
// order (launch.cc calls it from the launch's stream). hunt: strict mode's
// search for the thread that wrote the red zone of that allocation (one OS
// thread, the zone checked after every stretch a thread runs).
void run_grid(const LaunchSpec &spec, void (*body)(void *), void *arg, uint64_t launch_no, Order order,
              const char *hunt);

// FP traps (fpe.cc): on while a block runs in strict mode, so that
// arithmetic on the fill patterns is reported where it happens.
void fpe_install();
void fpe_block_begin();
void fpe_block_end();

} // namespace ddl_emu

#endif
