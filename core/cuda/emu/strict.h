// strict.h - the emulated GPU's strict mode (DDL_EMU_STRICT=1): how it is
// configured, the patterns it fills memory with, and how it reports.
// Internal to core/cuda/emu (the kernels never see it).
//
// Strict mode turns the emulated GPU into a sanitizer: every detector
// (core/cuda/README.md, "Strict mode", lists them) ends the run through
// report(), which names the detector, the kernel, block and thread when a
// kernel was running, the launch and the seed, and exits non-zero (through
// ddl_die: MPI_Abort in a multi-rank run, so no peer hangs).
#ifndef DDL_CUDA_EMU_STRICT_H
#define DDL_CUDA_EMU_STRICT_H

#include <cstddef>
#include <cstdint>

namespace ddl_emu {

// The order in which the threads of a block (and the blocks of a grid)
// run: one for every launch, or SEEDED: each launch picks one of the three
// from DDL_EMU_SEED and its launch number.
enum class Order : unsigned char { FORWARD, REVERSE, SHUFFLED, SEEDED };

struct Config {
    bool strict;   // DDL_EMU_STRICT=1
    Order order;   // DDL_EMU_ORDER (default: seeded when strict, else forward)
    uint64_t seed; // DDL_EMU_SEED (default 1)
};

// Parsed on first use from what the program's edge handed
// (switches.h: DDL_EMU_STRICT, DDL_EMU_ORDER, DDL_EMU_SEED, read in
// core/driver/environment.c); a value it does not know stops the run
// with the values it does.
const Config &config();
inline bool strict() { return config().strict; }
const char *order_name(Order o);

// 32-bit words that strict mode writes, repeated, over memory nobody wrote.
// Each is a signalling NaN as a float (exponent all ones, quiet bit clear)
// and a NaN in both of its halves as FP16, so any use shows: arithmetic on
// it traps (fpe.cc tells which pattern), and copied out it reads as NaN.
constexpr uint32_t FRESH_WORD = 0x7FA57FA5u;   // a new allocation's bytes
constexpr uint32_t REDZONE_WORD = 0x7FBD7FBDu; // around every allocation
constexpr uint32_t FREED_WORD = 0x7F9F7F9Fu;   // memory given back by cudaFree
void fill_pattern(void *dst, size_t bytes, uint32_t word); // dst 4-byte aligned

// A strict-mode finding: prints it with what was running and ends the run
// (exit status 1). Only the first report of a process prints; a second
// thread reporting at the same time waits for the exit.
[[noreturn]] void report(const char *detector, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

// SplitMix64's finaliser: the seeded choices (thread order, stream order).
inline uint64_t mix64(uint64_t x)
{
    x += 0x9E3779B97F4A7C15ull;
    x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ull;
    x = (x ^ (x >> 27)) * 0x94D049BB133111EBull;
    return x ^ (x >> 31);
}

// What report() says about the code that was running (scheduler.cc): the
// kernel, block and thread, or "" outside a kernel.
void describe_running(char *buf, size_t cap);

} // namespace ddl_emu

#endif
