// launch.cc - a kernel launch on the emulated GPU (emu.h): the checks a
// GPU makes of its configuration, strict mode's checks of its arguments,
// its place in its stream, and afterwards what it did to memory.
#include <cuda_runtime.h>

#include <atomic>
#include <mutex>
#include <string>

#include "memory.h"
#include "runner.h"
#include "streams.h"

extern "C" {
#include "util/common.h"
}

namespace ddl_emu {

bool g_shared_checks = false;

namespace {

std::atomic<uint64_t> g_launches{ 0 };

// sm_90's limits. A GPU refuses such a launch (cudaGetLastError says
// so); strict mode reports it with the kernel's name.
bool config_ok(const LaunchSpec &s)
{
    const dim3 &g = s.grid, &b = s.block;
    size_t per_block = (size_t)b.x * b.y * b.z;
    char why[200] = "";
    if (!b.x || !b.y || !b.z || !g.x || !g.y || !g.z)
        snprintf(why, sizeof why, "a zero dimension (grid (%u,%u,%u), block (%u,%u,%u))", g.x, g.y, g.z, b.x, b.y, b.z);
    else if (per_block > MAX_THREADS || b.x > 1024 || b.y > 1024 || b.z > 64)
        snprintf(why, sizeof why, "a block of (%u,%u,%u) = %zu threads (at most 1024, and z at most 64)", b.x, b.y, b.z,
                 per_block);
    else if (g.x > 0x7FFFFFFFu || g.y > 65535 || g.z > 65535)
        snprintf(why, sizeof why, "a grid of (%u,%u,%u) blocks (x at most 2^31-1, y and z at most 65535)", g.x, g.y,
                 g.z);
    else if (s.shared > SM90_STATIC_SHARED)
        snprintf(why, sizeof why,
                 "%zu bytes of dynamic shared memory (over 48 KiB needs cudaFuncSetAttribute; sm_90 allows 227 KiB "
                 "at most)",
                 s.shared);
    if (!*why) return true;
    if (strict()) report("launch-limit", "kernel %s is launched with %s", s.kernel, why);
    set_last_error(cudaErrorInvalidConfiguration);
    return false;
}

// Every pointer argument must be device memory of a live allocation (a
// host pointer crashes a GPU's kernel; a freed one reads garbage).
void check_args(const LaunchSpec &s)
{
    for (int i = 0; i < s.nptrs; i++) {
        const void *p = s.ptrs[i];
        const char *user = nullptr;
        size_t bytes = 0;
        if (!p) continue;
        if (!is_device_pointer(p))
            report("host-pointer", "kernel %s gets host memory (%p) as its pointer argument %d: a GPU cannot reach it",
                   s.kernel, p, i + 1);
        if (!find_allocation(p, &user, &bytes))
            report("use-after-free",
                   "kernel %s gets %p as its pointer argument %d, which lies in no live allocation (freed, or never "
                   "allocated)",
                   s.kernel, p, i + 1);
    }
}

Order pick_order(uint64_t n)
{
    Order o = config().order;
    if (o != Order::SEEDED) return o;
    return static_cast<Order>(mix64(config().seed ^ mix64(n)) % 3);
}

// Runs the grid (memory open), then, in strict mode, looks at what it did.
void execute(const LaunchSpec &spec, void (*body)(void *), void *arg, uint64_t n)
{
    if (spec.shared)
        ddl_die("emulated GPU: kernel %s asks for %zu bytes of dynamic shared memory, which this emulation does "
                "not provide (use a fixed-size __shared__ ddl_shared array)",
                spec.kernel, spec.shared);
    Order o = pick_order(n);
    memory_open();
    run_grid(spec, body, arg, n, o, nullptr);
    const char *damaged = nullptr;
    if (strict() && !after_kernel(spec.ptrs, spec.nptrs, &damaged)) {
        // Which thread? Run the grid again, one thread at a time, the zone
        // restored and checked after each: its report names the thread.
        // (The run ends here anyway, so the second run's effects do not matter.)
        repair_redzones(damaged);
        run_grid(spec, body, arg, n, o, damaged);
        std::string when = "kernel " + std::string(spec.kernel) + " (launch #" + std::to_string(n) +
                           "; no thread wrote it again on a second run)";
        report_redzone(damaged, when.c_str());
    }
    memory_close();
}

} // namespace

void launch(const LaunchSpec &spec, void (*body)(void *), std::shared_ptr<void> arg)
{
    if (!config_ok(spec)) return;
    uint64_t n = ++g_launches;
    if (!strict()) {
        execute(spec, body, arg.get(), n);
        return;
    }
    static std::once_flag once;
    std::call_once(once, [] {
        g_shared_checks = true;
        fpe_install();
    });
    check_args(spec);
    Access acc[MAX_ARG_PTRS];
    for (int i = 0; i < spec.nptrs; i++) acc[i] = Access{ spec.ptrs[i], SIZE_MAX, spec.writes[i] };
    std::string what = "kernel " + std::string(spec.kernel);
    submit(spec.stream, what.c_str(), [spec, body, arg, n] { execute(spec, body, arg.get(), n); }, acc, spec.nptrs,
           false);
}

} // namespace ddl_emu
