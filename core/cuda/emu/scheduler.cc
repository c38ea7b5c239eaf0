// scheduler.cc - how the emulated GPU runs a grid (see emu.h).
//
// Whole blocks are spread over the cores (OpenMP, dynamic: blocks differ in
// work). Within a block, one OS thread runs the CUDA threads. One OS thread
// per CUDA thread would never do (a convolution launches millions), and
// neither would a fiber per thread for kernels that never wait. So:
//
//   1. Thread 0 of the block runs on a fiber (its own small stack).
//   2. If it finishes without waiting, the kernel has no barrier on this
//      block's path (CUDA requires __syncthreads and warp operations to be
//      reached by every thread of the block or warp that is still running),
//      and threads 1..n-1 run one after another as plain calls: a loop.
//      One of them reaching a barrier after all is a divergent barrier, a
//      bug in the kernel, and stops the run with a message.
//   3. If it waits, every thread gets a fiber and a round-robin scheduler
//      runs each until it waits or ends. A warp operation releases when
//      every running thread of its warp has reached it, __syncthreads when
//      every running thread of the block has; threads that returned no
//      longer count (as on current GPUs). Nothing to release while threads
//      still wait is a deadlock, reported as such.
//
// Switching fibers costs a few nanoseconds on x86-64 (switch.S-style
// assembly below: callee-saved registers and the stack pointer, no signal
// mask); elsewhere it falls back to ucontext.
#include <cuda_runtime.h>

#include <omp.h>
#include <sys/mman.h>

#if !defined(__x86_64__)
#include <ucontext.h>
#endif

extern "C" {
#include "common.h"
#include "cpu/parallel.h"
}

namespace ddl_emu {

thread_local ThreadIndex now;

namespace {

constexpr unsigned MAX_THREADS = 1024;      // per block, as on every GPU since sm_20
constexpr size_t STACK_BYTES = 64 * 1024;   // per fiber, the lowest page a guard

enum State : unsigned char { RUNNABLE, WAIT_BLOCK, WAIT_WARP, DONE };

#if defined(__x86_64__)
// Saves rbp, rbx, r12-r15, MXCSR and the x87 control word on the current
// stack, stores the stack pointer in *from, loads `to` and pops the same.
extern "C" void ddl_emu_switch(void **from, void *to);
asm(".text\n"
    ".globl ddl_emu_switch\n"
    ".type ddl_emu_switch,@function\n"
    "ddl_emu_switch:\n"
    "  pushq %rbp\n  pushq %rbx\n  pushq %r12\n  pushq %r13\n  pushq %r14\n  pushq %r15\n"
    "  subq $8, %rsp\n  stmxcsr (%rsp)\n  fnstcw 4(%rsp)\n"
    "  movq %rsp, (%rdi)\n  movq %rsi, %rsp\n"
    "  ldmxcsr (%rsp)\n  fldcw 4(%rsp)\n  addq $8, %rsp\n"
    "  popq %r15\n  popq %r14\n  popq %r13\n  popq %r12\n  popq %rbx\n  popq %rbp\n"
    "  ret\n"
    ".size ddl_emu_switch,.-ddl_emu_switch\n");

struct Context {
    void *sp;
};

// A new context starts in entry() on a fresh stack: the frame
// ddl_emu_switch pops, with entry as the return address, placed so that
// entry starts with the stack aligned as after a call.
void context_make(Context *c, char *stack, size_t bytes, void (*entry)())
{
    uintptr_t top = ((uintptr_t)(stack + bytes)) & ~(uintptr_t)15;
    void **ret = reinterpret_cast<void **>(top - 16); // entry's "return address" slot
    ret[1] = nullptr;                                 // entry never returns
    ret[0] = reinterpret_cast<void *>(entry);
    uint64_t *frame = reinterpret_cast<uint64_t *>(ret) - 7; // control words + 6 registers
    std::memset(frame, 0, 7 * sizeof(uint64_t));
    uint32_t mxcsr;
    uint16_t fpucw;
    asm volatile("stmxcsr %0" : "=m"(mxcsr));
    asm volatile("fnstcw %0" : "=m"(fpucw));
    std::memcpy(reinterpret_cast<char *>(frame), &mxcsr, 4);
    std::memcpy(reinterpret_cast<char *>(frame) + 4, &fpucw, 2);
    c->sp = frame;
}

inline void context_switch(Context *from, Context *to) { ddl_emu_switch(&from->sp, to->sp); }
#else
struct Context {
    ucontext_t uc;
};

void context_make(Context *c, char *stack, size_t bytes, void (*entry)())
{
    getcontext(&c->uc);
    c->uc.uc_stack.ss_sp = stack;
    c->uc.uc_stack.ss_size = bytes;
    c->uc.uc_link = nullptr;
    makecontext(&c->uc, entry, 0);
}

inline void context_switch(Context *from, Context *to) { swapcontext(&from->uc, &to->uc); }
#endif

// What one OS thread needs to run blocks: made on its first block, kept.
struct Runner {
    const char *kernel;
    void (*body)(void *);
    void *arg;
    unsigned n;          // threads per block
    int current;         // the fiber running, -1: plain calls (no fiber)
    Context scheduler;
    Context fiber[MAX_THREADS];
    State state[MAX_THREADS];
    unsigned char parity[MAX_THREADS];   // which exchange buffer its next warp op uses
    uint64_t exchange[2][MAX_THREADS];   // two, so a fast lane never overwrites a value still to be read
    char *stacks;
};

thread_local Runner *tl_runner;

Runner *runner()
{
    if (tl_runner) return tl_runner;
    Runner *r = new Runner();
    void *s = mmap(nullptr, MAX_THREADS * STACK_BYTES, PROT_READ | PROT_WRITE,
                   MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    if (s == MAP_FAILED) ddl_die("emulated GPU: cannot map %u fiber stacks", MAX_THREADS);
    r->stacks = static_cast<char *>(s);
    for (unsigned t = 0; t < MAX_THREADS; t++) // a stack overflow faults instead of corrupting its neighbour
        mprotect(r->stacks + t * STACK_BYTES, 4096, PROT_NONE);
    tl_runner = r;
    return r;
}

void set_thread(unsigned t)
{
    const uint3 &b = now.block_dim;
    now.thread = uint3{ t % b.x, (t / b.x) % b.y, t / (b.x * b.y) };
}

[[noreturn]] void fiber_main()
{
    Runner *r = tl_runner;
    r->body(r->arg);
    r->state[r->current] = DONE;
    context_switch(&r->fiber[r->current], &r->scheduler);
    __builtin_unreachable();
}

void resume(Runner *r, unsigned t)
{
    r->current = (int)t;
    set_thread(t);
    context_switch(&r->scheduler, &r->fiber[t]);
}

void start(Runner *r, unsigned t)
{
    r->state[t] = RUNNABLE;
    r->parity[t] = 0;
    context_make(&r->fiber[t], r->stacks + t * STACK_BYTES + 4096, STACK_BYTES - 4096, fiber_main);
}

[[noreturn]] void stuck(Runner *r, const char *why)
{
    const uint3 &b = now.block;
    ddl_die("emulated GPU: kernel %s, block (%u,%u,%u): %s", r->kernel, b.x, b.y, b.z, why);
}

// Makes runnable the threads whose barrier every running thread of its
// scope has reached; false when there were none.
bool release(Runner *r)
{
    bool released = false;
    unsigned live = 0, at_block = 0;
    for (unsigned w = 0; w < r->n; w += 32) {
        unsigned end = w + 32 < r->n ? w + 32 : r->n, wl = 0, ww = 0;
        for (unsigned t = w; t < end; t++) {
            if (r->state[t] == DONE) continue;
            wl++;
            ww += r->state[t] == WAIT_WARP;
            at_block += r->state[t] == WAIT_BLOCK;
        }
        live += wl;
        if (wl && ww == wl) {
            for (unsigned t = w; t < end; t++)
                if (r->state[t] == WAIT_WARP) r->state[t] = RUNNABLE;
            released = true;
        }
    }
    if (!released && live && at_block == live) {
        for (unsigned t = 0; t < r->n; t++)
            if (r->state[t] == WAIT_BLOCK) r->state[t] = RUNNABLE;
        released = true;
    }
    if (!released && live)
        stuck(r, "deadlock: some threads wait at __syncthreads while others of their warp wait at a warp "
                 "shuffle");
    return live != 0;
}

void run_block(Runner *r)
{
    start(r, 0);
    resume(r, 0);
    if (r->state[0] == DONE) {
        r->current = -1;
        for (unsigned t = 1; t < r->n; t++) {
            set_thread(t);
            r->body(r->arg);
        }
        return;
    }
    for (unsigned t = 1; t < r->n; t++) start(r, t);
    do {
        for (unsigned t = 0; t < r->n; t++)
            if (r->state[t] == RUNNABLE) resume(r, t);
    } while (release(r));
}

void wait(State s)
{
    Runner *r = tl_runner;
    if (!r || r->current < 0) {
        if (!r) ddl_die("emulated GPU: __syncthreads or a warp shuffle called outside a kernel");
        stuck(r, "a thread reached __syncthreads or a warp shuffle that thread 0 of its block never reached "
                 "(a divergent barrier)");
    }
    unsigned t = (unsigned)r->current;
    r->state[t] = s;
    context_switch(&r->fiber[t], &r->scheduler);
}

unsigned linear_thread()
{
    const uint3 &b = now.block_dim, &t = now.thread;
    return t.x + b.x * (t.y + b.y * t.z);
}

} // namespace

void sync_block() { wait(WAIT_BLOCK); }

uint64_t warp_exchange_xor(uint64_t mine, int xor_mask)
{
    Runner *r = tl_runner;
    unsigned t = linear_thread();
    unsigned buf = r ? r->parity[t] : 0;
    if (r) {
        r->exchange[buf][t] = mine;
        r->parity[t] ^= 1;
    }
    wait(WAIT_WARP);
    unsigned src = (t & ~31u) | ((t & 31u) ^ ((unsigned)xor_mask & 31u));
    // A lane that had already returned left no value: undefined on a GPU.
    return src < r->n ? r->exchange[buf][src] : mine;
}

void run_grid(const char *kernel, dim3 grid, dim3 block, size_t shared_bytes, void (*body)(void *), void *arg)
{
    size_t per_block = (size_t)block.x * block.y * block.z;
    size_t blocks = (size_t)grid.x * grid.y * grid.z;
    if (per_block == 0 || per_block > MAX_THREADS || blocks == 0 || grid.y > 65535 || grid.z > 65535 ||
        block.z > 64) {
        set_last_error(cudaErrorInvalidConfiguration);
        return;
    }
    if (shared_bytes)
        ddl_die("emulated GPU: kernel %s asks for %zu bytes of dynamic shared memory, which this emulation does "
                "not provide (use a fixed-size __shared__ array)",
                kernel, shared_bytes);
    memory_open();
    int threads = blocks > 1 ? ddl_kernel_threads() : 1;
    long chunk = (long)(blocks / ((size_t)threads * 8)) + 1;
#pragma omp parallel for schedule(dynamic, chunk) num_threads(threads)
    for (size_t i = 0; i < blocks; i++) {
        Runner *r = runner();
        r->kernel = kernel;
        r->body = body;
        r->arg = arg;
        r->n = (unsigned)per_block;
        now.block_dim = uint3{ block.x, block.y, block.z };
        now.grid_dim = uint3{ grid.x, grid.y, grid.z };
        now.block = uint3{ (unsigned)(i % grid.x), (unsigned)(i / grid.x % grid.y), (unsigned)(i / grid.x / grid.y) };
        run_block(r);
    }
    memory_close();
}

} // namespace ddl_emu
