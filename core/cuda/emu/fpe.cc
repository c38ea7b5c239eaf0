// fpe.cc - strict mode's floating-point traps: arithmetic on memory nobody
// wrote, on a red zone or on freed memory, reported by the kernel thread
// that does it.
//
// Strict mode fills such memory with signalling NaNs (strict.h). While a
// block runs, the SSE "invalid operation" exception is unmasked, so the
// first arithmetic on one traps (SIGFPE). The trap alone cannot tell a
// signalling NaN from the kernel's own inf - inf or 0 * inf, which a GPU
// computes quietly; so the handler masks the exception and single-steps the
// instruction (the trap flag, then SIGTRAP), and looks at the vector
// registers: an operation on a signalling NaN leaves its payload there,
// quieted (as a float, or widened to a double), while inf - inf leaves the
// default NaN. A pattern's payload is reported with the kernel, block and
// thread; anything else is the kernel's own NaN, and the traps stay off for
// the rest of that launch on that OS thread (so a tensor of infinities
// costs one trap, not one per element).
//
// Limits: integer and FP16 data are not covered (FP16 is widened in
// software, without a trap), nor a pattern only copied (that stays
// "unwritten", memory.h, and is reported where it leaves the device).
// x86-64 only; elsewhere the traps are off.
#include "runner.h"

#if defined(__x86_64__)
#include <signal.h>
#include <ucontext.h>
#include <xmmintrin.h>

#include <cstring>
#endif

namespace ddl_emu {

#if defined(__x86_64__)

namespace {

constexpr unsigned INVALID_MASK = 0x80, FLAGS = 0x3f; // MXCSR bits
constexpr long TRAP_FLAG = 0x100;                     // EFLAGS.TF

thread_local bool tl_stepping = false;
thread_local uint64_t tl_quiet_launch = 0; // a launch in which this OS thread met the kernel's own NaN
thread_local unsigned tl_saved_csr = 0;
struct sigaction g_old_fpe, g_old_trap;

uint64_t quiet_double(uint32_t w)
{
    uint64_t m = (w & 0x7FFFFFu) | 0x400000u;
    return ((uint64_t)(w >> 31) << 63) | (0x7FFull << 52) | (m << 29);
}

// Which pattern's payload the registers hold: 0 (none), 1 fresh, 2 red zone, 3 freed.
int classify(const _libc_fpstate *fp)
{
    const uint32_t words[3] = { FRESH_WORD, REDZONE_WORD, FREED_WORD };
    for (int r = 0; r < 16; r++) {
        const uint32_t *l = fp->_xmm[r].element;
        for (int w = 0; w < 3; w++) {
            uint64_t qd = quiet_double(words[w]);
            for (int k = 0; k < 4; k++)
                if (l[k] == words[w] || l[k] == (words[w] | 0x400000u)) return w + 1;
            for (int k = 0; k < 4; k += 2)
                if (((uint64_t)l[k + 1] << 32 | l[k]) == qd) return w + 1;
        }
    }
    return 0;
}

// Not ours (host code, a debugger's trap): the previous handler, or the
// default action.
void chain(const struct sigaction *old, int sig, siginfo_t *si, void *uc)
{
    if ((old->sa_flags & SA_SIGINFO) && old->sa_sigaction) {
        old->sa_sigaction(sig, si, uc);
        return;
    }
    if (old->sa_handler != SIG_DFL && old->sa_handler != SIG_IGN) {
        old->sa_handler(sig);
        return;
    }
    signal(sig, SIG_DFL);
    if (sig == SIGTRAP) raise(sig); // SIGFPE: returning runs the instruction again, which now kills
}

void on_fpe(int sig, siginfo_t *si, void *ucv)
{
    ucontext_t *uc = static_cast<ucontext_t *>(ucv);
    if (!running()) {
        chain(&g_old_fpe, sig, si, ucv);
        return;
    }
    if (si->si_code == FPE_INTDIV) report("arithmetic", "integer division by zero");
    if (si->si_code != FPE_FLTINV) report("arithmetic", "a floating-point exception (si_code %d)", si->si_code);
    uc->uc_mcontext.fpregs->mxcsr |= INVALID_MASK;
    uc->uc_mcontext.gregs[REG_EFL] |= TRAP_FLAG;
    tl_stepping = true;
}

void on_trap(int sig, siginfo_t *si, void *ucv)
{
    ucontext_t *uc = static_cast<ucontext_t *>(ucv);
    if (!tl_stepping) {
        chain(&g_old_trap, sig, si, ucv);
        return;
    }
    tl_stepping = false;
    uc->uc_mcontext.gregs[REG_EFL] &= ~TRAP_FLAG;
    switch (classify(uc->uc_mcontext.fpregs)) {
    case 1:
        report("uninitialised-read", "arithmetic on device memory that nothing wrote (strict mode's fill, a "
                                     "signalling NaN; garbage on a GPU)");
    case 2:
        report("out-of-bounds-read", "arithmetic on a red zone: a read past the end (or before the start) of an "
                                     "allocation");
    case 3: report("use-after-free", "arithmetic on device memory that cudaFree gave back");
    default: break;
    }
    uc->uc_mcontext.fpregs->mxcsr &= ~FLAGS; // the kernel's own NaN: as a GPU, carry on quietly
    Runner *r = running();
    tl_quiet_launch = r ? r->launch : 0;
}

} // namespace

void fpe_install()
{
    struct sigaction sa;
    std::memset(&sa, 0, sizeof sa);
    sa.sa_flags = SA_SIGINFO;
    sigemptyset(&sa.sa_mask);
    sa.sa_sigaction = on_fpe;
    sigaction(SIGFPE, &sa, &g_old_fpe);
    sa.sa_sigaction = on_trap;
    sigaction(SIGTRAP, &sa, &g_old_trap);
}

void fpe_block_begin()
{
    Runner *r = running();
    tl_saved_csr = _mm_getcsr();
    unsigned csr = tl_saved_csr & ~FLAGS;
    if (r && tl_quiet_launch == r->launch) csr |= INVALID_MASK;
    else csr &= ~INVALID_MASK;
    _mm_setcsr(csr);
}

void fpe_block_end() { _mm_setcsr(tl_saved_csr); }

#else

void fpe_install() {}
void fpe_block_begin() {}
void fpe_block_end() {}

#endif

} // namespace ddl_emu
