/* pending.c - a killed run leaves no "<path>.tmp.<pid>" files behind.
 *
 * write_file_atomic writes to a temp file and renames it into place; a
 * SIGINT (Ctrl-C), SIGTERM (mpirun tearing a job down, a batch system's
 * time limit) or SIGHUP in between would leave the temp file. The handler
 * below removes every registered temp file, then restores the default
 * action and re-raises the signal, so the process ends as it would have.
 * Where the program had its own handler for the signal, that handler is
 * called instead and nothing is removed (the program goes on, and so do
 * its writes); a handler installed later replaces this one.
 *
 * A handler can only reach static storage, so this is one of the few
 * pieces of mutable global state in the core: a fixed table (no malloc in
 * the handler) whose slots are claimed with atomics, and only unlink(),
 * sigaction() and raise() in the handler, all async-signal-safe. Under
 * SimGrid SMPI each rank has its own copy (smpicc privatizes globals), and
 * a signal ends the whole simulation anyway. */
#include "pending.h"

#include <signal.h>
#include <stdatomic.h>
#include <string.h>
#include <unistd.h>

#define PENDING_SLOTS 32
#define PENDING_PATH 4160   /* as the temp name in atomic.c */

enum { SLOT_FREE, SLOT_CLAIMED, SLOT_READY };

static atomic_int slot_state[PENDING_SLOTS];
static char slot_path[PENDING_SLOTS][PENDING_PATH];

static const int cleanup_signals[] = { SIGINT, SIGTERM, SIGHUP };
#define NSIGNALS ((int)(sizeof cleanup_signals / sizeof cleanup_signals[0]))
static struct sigaction previous[NSIGNALS];
static atomic_int installed;   /* 0 no, 1 installing, 2 yes */

static void remove_pending(void)
{
    for (int i = 0; i < PENDING_SLOTS; i++)
        if (atomic_load(&slot_state[i]) == SLOT_READY) unlink(slot_path[i]);
}

static void on_signal(int sig, siginfo_t *info, void *ctx)
{
    for (int k = 0; k < NSIGNALS; k++) {
        if (cleanup_signals[k] != sig) continue;
        const struct sigaction *old = &previous[k];
        /* A program that handles the signal itself goes on running, and
         * its writes complete: leave the temp files to them. */
        if (old->sa_flags & SA_SIGINFO) {
            if (old->sa_sigaction) old->sa_sigaction(sig, info, ctx);
            return;
        }
        if (old->sa_handler != SIG_DFL) {
            if (old->sa_handler != SIG_IGN) old->sa_handler(sig);
            return;
        }
        /* The default action ends the process: remove the temp files, then
         * end it by the same signal, so that the parent (a shell, mpirun)
         * sees how it ended. The signal is blocked until this handler
         * returns, then delivered. */
        remove_pending();
        sigaction(sig, old, NULL);
        raise(sig);
        return;
    }
}

static void install(void)
{
    int expected = 0;
    if (!atomic_compare_exchange_strong(&installed, &expected, 1)) return;
    for (int k = 0; k < NSIGNALS; k++) {
        struct sigaction old;
        if (sigaction(cleanup_signals[k], NULL, &old) != 0) continue;
        previous[k] = old;
        if (!(old.sa_flags & SA_SIGINFO) && old.sa_handler == SIG_IGN) continue;   /* e.g. nohup */
        struct sigaction sa;
        memset(&sa, 0, sizeof sa);
        sa.sa_sigaction = on_signal;
        sa.sa_flags = SA_SIGINFO | SA_RESTART;
        sigemptyset(&sa.sa_mask);
        for (int j = 0; j < NSIGNALS; j++) sigaddset(&sa.sa_mask, cleanup_signals[j]);
        sigaction(cleanup_signals[k], &sa, NULL);
    }
    atomic_store(&installed, 2);
}

int pending_add(const char *path)
{
    install();
    size_t n = strlen(path);
    if (n >= PENDING_PATH) return -1;
    for (int i = 0; i < PENDING_SLOTS; i++) {
        int expected = SLOT_FREE;
        if (!atomic_compare_exchange_strong(&slot_state[i], &expected, SLOT_CLAIMED)) continue;
        memcpy(slot_path[i], path, n + 1);
        atomic_store(&slot_state[i], SLOT_READY);
        return i;
    }
    return -1;
}

void pending_done(int slot)
{
    if (slot >= 0 && slot < PENDING_SLOTS) atomic_store(&slot_state[slot], SLOT_FREE);
}
