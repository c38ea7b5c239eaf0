// scheduler.cc - how the emulated GPU runs a grid (see emu.h).
//
// Whole blocks are spread over the cores (OpenMP, dynamic: blocks differ in
// work). Within a block, one OS thread runs the CUDA threads. One OS thread
// per CUDA thread would never do (a convolution launches millions), and
// neither would a fiber per thread for kernels that never wait. So:
//
//   1. The block's threads run one after another, in this launch's order
//      (forward, reverse or shuffled, strict.h), as plain calls from a loop
//      that itself runs on one fiber (its own small stack).
//   2. A thread that reaches __syncthreads or a warp shuffle stops there:
//      the loop fiber, with that thread inside, becomes the thread's fiber,
//      and every thread the loop had not started yet gets a fiber of its
//      own. (CUDA requires barriers and warp operations to be reached by
//      every thread of the block or warp still running; threads the loop
//      finished before have exited.)
//   3. A round-robin scheduler then runs each fiber, in the launch's order,
//      until it waits or ends. A warp operation releases when every running
//      thread of its warp has reached it, __syncthreads when every running
//      thread of the block has. Without strict mode threads that returned
//      no longer count (as on current GPUs); strict mode reports them, and
//      threads waiting at different __syncthreads, as barrier divergence
//      (undefined in CUDA). Nothing to release while threads still wait is
//      a deadlock, reported as such.
//
// A block that never waits thus costs two fiber switches, whatever its
// size, and one that waits is scheduled exactly as if every thread had had
// a fiber from the start.
//
// Switching fibers costs a few nanoseconds on x86-64 (switch.S-style
// assembly below: callee-saved registers and the stack pointer, no signal
// mask); elsewhere it falls back to ucontext.
#include <cuda_runtime.h>

#include <omp.h>
#include <sys/mman.h>
#if defined(__SANITIZE_ADDRESS__)
#include <sanitizer/asan_interface.h>
#endif

#include <cstdio>
#include <cstring>

#include "memory.h"
#include "runner.h"

extern "C" {
#include "util/common.h"
#include "cpu/parallel.h"
}

namespace ddl_emu {

thread_local ThreadIndex now;

namespace {

constexpr size_t STACK_BYTES = 64 * 1024;   // per fiber, the lowest page a guard

#if defined(__x86_64__)
#if defined(__SANITIZE_ADDRESS__)
void unpoison_stack(char *stack, size_t bytes) { __asan_unpoison_memory_region(stack, bytes); }
#else
void unpoison_stack(char *, size_t) {}
#endif
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

// A new context starts in entry() on a fresh stack: the frame
// ddl_emu_switch pops, with entry as the return address, placed so that
// entry starts with the stack aligned as after a call.
void context_make(Context *c, char *stack, size_t bytes, void (*entry)())
{
    // A fiber never returns, so AddressSanitizer's redzones from its last
    // frames stay in the stack's shadow; ASan's own swapcontext clears them,
    // and this switch must too, or the next fiber on the stack "overflows".
    unpoison_stack(stack, bytes);
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

// Strict mode's search for the thread that wrote a red zone (launch.cc):
// after every stretch a thread ran, the zone is checked again.
void hunt_check(Runner *r)
{
    if (r->hunt && !redzones_intact(r->hunt)) report_redzone(r->hunt, "a kernel thread (found on a second run)");
}

[[noreturn]] void fiber_main()
{
    Runner *r = tl_runner;
    r->body(r->arg);
    r->state[r->current] = DONE;
    context_switch(&r->fiber[r->current], &r->scheduler);
    __builtin_unreachable();
}

// The loop of step 1 (above). A thread that waits leaves it (wait() ends
// looping and keeps this stack as that thread's fiber); should that thread
// later return here, it is a fiber like any other and ends as one.
[[noreturn]] void loop_main()
{
    Runner *r = tl_runner;
    while (r->loop_next < r->n) {
        unsigned t = r->order_of[r->loop_next];
        r->current = (int)t;
        set_thread(t);
        r->state[t] = RUNNABLE;
        r->parity[t] = 0;
        r->body(r->arg);
        r->state[t] = DONE;
        if (!r->looping) context_switch(&r->fiber[t], &r->scheduler); // resumed as a fiber: it ends as one
        hunt_check(r);
        r->loop_next++;
    }
    r->looping = false;
    r->loop_finished = true;
    context_switch(&r->loop_ctx, &r->scheduler);
    __builtin_unreachable();
}

void resume(Runner *r, unsigned t)
{
    r->current = (int)t;
    set_thread(t);
    context_switch(&r->scheduler, &r->fiber[t]);
    hunt_check(r);
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

// Strict: a block barrier releases only when every thread waits at it, at
// the same __syncthreads.
void check_barrier(Runner *r)
{
    unsigned first = MAX_THREADS;
    for (unsigned t = 0; t < r->n; t++) {
        if (r->state[t] == DONE) {
            unsigned w = 0;
            while (r->state[w] != WAIT_BLOCK) w++;
            char a[40], b[40];
            thread_name(t, a, sizeof a);
            thread_name(w, b, sizeof b);
            report("barrier-divergence",
                   "thread %s returned while thread %s waits at __syncthreads (%s): every thread of the block must "
                   "reach it",
                   a, b, r->site[w]);
        }
        if (first == MAX_THREADS) first = t;
        else if (r->site[t] != r->site[first] && strcmp(r->site[t], r->site[first])) {
            char a[40], b[40];
            thread_name(first, a, sizeof a);
            thread_name(t, b, sizeof b);
            report("barrier-divergence", "thread %s waits at __syncthreads %s, thread %s at another one, %s", a,
                   r->site[first], b, r->site[t]);
        }
    }
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
            uint32_t lanes = 0;
            for (unsigned t = w; t < end; t++)
                if (r->state[t] == WAIT_WARP) {
                    r->state[t] = RUNNABLE;
                    lanes |= 1u << (t - w);
                }
            r->arrived[w / 32] = lanes;
            released = true;
        }
    }
    if (!released && live && at_block == live) {
        if (strict()) check_barrier(r);
        for (unsigned t = 0; t < r->n; t++)
            if (r->state[t] == WAIT_BLOCK) r->state[t] = RUNNABLE;
        r->epoch++;
        released = true;
    }
    if (!released && live)
        stuck(r, "deadlock: some threads wait at __syncthreads while others of their warp wait at a warp "
                 "shuffle");
    return live != 0;
}

// This launch's order of the block's threads (strict.h).
void make_order(Runner *r)
{
    unsigned n = r->n;
    for (unsigned k = 0; k < n; k++) r->order_of[k] = r->order == Order::REVERSE ? n - 1 - k : k;
    if (r->order != Order::SHUFFLED) return;
    const uint3 &b = now.block;
    uint64_t h = mix64(config().seed ^ mix64(r->launch ^ mix64(((uint64_t)b.z << 42) ^ ((uint64_t)b.y << 21) ^ b.x)));
    for (unsigned k = n - 1; k > 0; k--) {
        h = mix64(h);
        unsigned j = (unsigned)(h % (k + 1)), t = r->order_of[k];
        r->order_of[k] = r->order_of[j];
        r->order_of[j] = t;
    }
}

void run_block(Runner *r)
{
    make_order(r);
    r->epoch = 1;
    r->gen++;
    r->static_shared = 0;
    // Step 1 on the stack of the first thread in order: should a later
    // thread wait, the first has exited and needs its stack no more.
    r->looping = true;
    r->loop_finished = false;
    r->loop_next = 0;
    context_make(&r->loop_ctx, r->stacks + r->order_of[0] * STACK_BYTES + 4096, STACK_BYTES - 4096, loop_main);
    context_switch(&r->scheduler, &r->loop_ctx);
    if (r->loop_finished) return; // every thread ran to its end without waiting
    // Step 2: the waiting thread keeps the loop's stack; those not started get fibers.
    for (unsigned k = r->loop_next; k < r->n; k++) start(r, r->order_of[k]);
    do {
        for (unsigned k = 0; k < r->n; k++)
            if (r->state[r->order_of[k]] == RUNNABLE) resume(r, r->order_of[k]);
    } while (release(r));
}

void wait(State s)
{
    Runner *r = tl_runner;
    if (!r || !r->in_block) ddl_die("emulated GPU: __syncthreads or a warp shuffle called outside a kernel");
    unsigned t = (unsigned)r->current;
    r->state[t] = s;
    if (r->looping) { // step 2: the loop ends here, this stack is now t's fiber
        r->looping = false;
        r->loop_next++;
    }
    context_switch(&r->fiber[t], &r->scheduler);
}

} // namespace

Runner *running()
{
    Runner *r = tl_runner;
    return r && r->in_block ? r : nullptr;
}

unsigned linear_thread()
{
    const uint3 &b = now.block_dim, &t = now.thread;
    return t.x + b.x * (t.y + b.y * t.z);
}

void thread_name(unsigned t, char *buf, size_t cap)
{
    const uint3 &b = now.block_dim;
    snprintf(buf, cap, "(%u,%u,%u)", t % b.x, (t / b.x) % b.y, t / (b.x * b.y));
}

void describe_running(char *buf, size_t cap)
{
    Runner *r = running();
    if (!r) {
        *buf = 0;
        return;
    }
    const uint3 &b = now.block, &g = now.grid_dim, &t = now.thread, &d = now.block_dim;
    snprintf(buf, cap, "in kernel %s (launch #%llu, thread order %s), block (%u,%u,%u) of (%u,%u,%u), thread "
                       "(%u,%u,%u) of (%u,%u,%u)",
             r->kernel, (unsigned long long)r->launch, order_name(r->order), b.x, b.y, b.z, g.x, g.y, g.z, t.x, t.y,
             t.z, d.x, d.y, d.z);
}

void sync_block(const char *site)
{
    Runner *r = tl_runner;
    if (r && r->in_block && r->current >= 0) r->site[r->current] = site;
    wait(WAIT_BLOCK);
}

uint64_t warp_exchange_xor(uint64_t mine, int xor_mask, unsigned mask)
{
    Runner *r = tl_runner;
    unsigned t = linear_thread(), lane = t & 31u;
    unsigned buf = r ? r->parity[t] : 0;
    if (r) {
        r->exchange[buf][t] = mine;
        r->parity[t] ^= 1;
    }
    wait(WAIT_WARP);
    unsigned src_lane = lane ^ ((unsigned)xor_mask & 31u), src = (t & ~31u) | src_lane;
    if (strict()) {
        const char *why = !(mask >> lane & 1u)       ? "the calling lane is not in the shuffle's mask"
                          : !(mask >> src_lane & 1u) ? "the lane it reads is not in the shuffle's mask"
                          : src >= r->n              ? "the lane it reads does not exist (a partial warp)"
                          : !(r->arrived[t / 32] >> src_lane & 1u) ? "the lane it reads has exited"
                                                                    : nullptr;
        if (why)
            report("shuffle-lane", "__shfl_xor_sync(0x%08x, v, %d) in lane %u reads lane %u: %s (undefined in CUDA)",
                   mask, xor_mask, lane, src_lane, why);
    }
    // A lane that had already returned left no value: undefined on a GPU.
    return src < r->n && (r->arrived[t / 32] >> src_lane & 1u) ? r->exchange[buf][src] : mine;
}

// Runs the blocks of a checked grid: every block once, spread over the
// cores, in the launch's block order.
void run_grid(const LaunchSpec &spec, void (*body)(void *), void *arg, uint64_t launch_no, Order order,
              const char *hunt)
{
    dim3 grid = spec.grid, block = spec.block;
    size_t per_block = (size_t)block.x * block.y * block.z;
    size_t blocks = (size_t)grid.x * grid.y * grid.z;
    int threads = blocks > 1 && !hunt ? ddl_kernel_threads() : 1;
    long chunk = (long)(blocks / ((size_t)threads * 8)) + 1;
    // Reverse and shuffled orders visit the blocks in another order too
    // (shuffled: i -> (a i + c) mod blocks, a coprime with blocks).
    size_t a = 1, c = 0;
    if (order == Order::SHUFFLED && blocks > 1) {
        uint64_t h = mix64(config().seed ^ mix64(launch_no));
        a = 1 + h % (blocks - 1);
        auto gcd = [](size_t x, size_t y) { while (y) { size_t t = x % y; x = y; y = t; } return x; };
        while (gcd(a, blocks) != 1) a = a % (blocks - 1) + 1;
        c = mix64(h) % blocks;
    }
#pragma omp parallel for schedule(dynamic, chunk) num_threads(threads)
    for (size_t i = 0; i < blocks; i++) {
        size_t k = order == Order::REVERSE ? blocks - 1 - i : (size_t)(((unsigned __int128)a * i + c) % blocks);
        Runner *r = runner();
        r->kernel = spec.kernel;
        r->launch = launch_no;
        r->order = order;
        r->dynamic_shared = spec.shared;
        r->body = body;
        r->arg = arg;
        r->n = (unsigned)per_block;
        r->hunt = hunt;
        now.block_dim = uint3{ block.x, block.y, block.z };
        now.grid_dim = uint3{ grid.x, grid.y, grid.z };
        now.block = uint3{ (unsigned)(k % grid.x), (unsigned)(k / grid.x % grid.y), (unsigned)(k / grid.x / grid.y) };
        r->in_block = true;
        if (strict()) fpe_block_begin();
        run_block(r);
        if (strict()) fpe_block_end();
        r->in_block = false;
    }
}

} // namespace ddl_emu
