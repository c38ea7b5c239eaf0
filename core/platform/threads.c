/* threads.c - see threads.h. */
#include "threads.h"

#include <cblas.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#if defined(__GLIBC__) && !defined(DDL_SMPI) /* SMPI redefines malloc & co. as macros */
#include <malloc.h>
#endif
#include <unistd.h>
#include "../util/common.h"
#include "placement.h"
#ifdef _OPENMP
#include <omp.h>
#endif

/* Open MPI allocates a collective's temporary buffers on every call and
 * frees them after; glibc serves blocks above its mmap threshold (at most
 * 32 MiB) from fresh mappings, so each call page-faults its buffers in
 * again: VGG-11's 37 MB gradient in one MPI_Allreduce spent 17-19 ms per
 * step instead of 8-10 ms here (lab3's flat control). Freed memory stays in
 * the heap instead, as a caching allocator would keep it; the labs measure
 * the algorithms, not the page faults. malloc_default (the driver's
 * DDL_MALLOC_DEFAULT=1) keeps glibc's defaults, and so do glibc's own
 * MALLOC_MMAP_THRESHOLD_ / MALLOC_TRIM_THRESHOLD_ when set: glibc read
 * them already, and they win. */
static void keep_freed_memory(bool malloc_default)
{
#if defined(__GLIBC__) && !defined(DDL_SMPI)
    if (malloc_default || getenv("MALLOC_MMAP_THRESHOLD_") || getenv("MALLOC_TRIM_THRESHOLD_")) return;
    mallopt(M_MMAP_THRESHOLD, 1 << 30);
    mallopt(M_TRIM_THRESHOLD, 1 << 30);
#else
    (void)malloc_default;
#endif
}

/* OMP_NUM_THREADS and OPENBLAS_NUM_THREADS, when set, decide the threads
 * (ddl_threads_init). A value libgomp cannot start (OMP_NUM_THREADS=100000
 * ended in SIGSEGV inside GOMP_parallel, with no message) or that is not a
 * count is refused by name before MPI starts. The bound, 64 threads per
 * CPU online, is far past any useful oversubscription and far below where
 * thread stacks run out. OMP_NUM_THREADS may be a list (nested levels):
 * each entry is checked. */
static void threads_env_check(void)
{
    const long most = 64L * ddl_cpus_online();
    const char *names[] = {"OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS"};
    for (int i = 0; i < 2; i++) {
        const char *v = getenv(names[i]);
        if (!v || !*v) continue;
        for (const char *p = v; *p;) {
            char *end;
            long n = strtol(p, &end, 10);
            if (end == p || n < 1 || n > most || (*end && *end != ',')) {
                fprintf(stderr, "error: %s=%s: a number of threads from 1 to %ld (64 per CPU online; "
                                "this machine has %d)\n", names[i], v, most, ddl_cpus_online());
                exit(2);
            }
            p = *end ? end + 1 : end;
        }
    }
}

/* Slurm's warning (SIGUSR1) and its end of a job (SIGTERM, scancel, a
 * preemption) from the program's very start, in the jobs that checkpoint
 * on them ($DDL_CHECKPOINT_ON_USR1=1, the labs/slurm scripts): blocked
 * first, before MPI_Init (whose threads inherit the mask) and data
 * loading, then caught by start_signal, which ends the run at once with
 * "no checkpoint yet" and status START_SIGNAL_EXIT (DRIVER_EXIT_NO_CHECKPOINT
 * in core/driver/preempt.h), until the training loop takes them over
 * (driver_preempt_arm: a checkpoint at the end of the current step). A
 * program that trains nothing (a benchmark) keeps this handler: it stops
 * at once, as the default action would, with that status. */
enum { START_SIGNAL_EXIT = 4 };
static char start_msg[2][256];
static size_t start_len[2];
static volatile sig_atomic_t start_rank = -1;

static void start_signal(int sig)
{
    int i = sig == SIGTERM;
    if (start_rank <= 0 && write(STDERR_FILENO, start_msg[i], start_len[i]) < 0) {
        /* nothing to do: the run ends either way */
    }
    _exit(START_SIGNAL_EXIT);
}

static bool start_signals_block(const char *argv0, bool on)
{
#ifdef DDL_SMPI
    /* SimGrid runs the ranks as threads of one process: no signals here. */
    (void)argv0;
    (void)on;
    (void)start_signal;
    return false;
#else
    if (!on) return false;
    sigset_t set;
    sigemptyset(&set);
    sigaddset(&set, SIGUSR1);
    sigaddset(&set, SIGTERM);
    sigprocmask(SIG_BLOCK, &set, NULL);
    const char *name = argv0 ? strrchr(argv0, '/') : NULL;
    name = name ? name + 1 : argv0 ? argv0 : "ddlab";
    const char *sigs[2] = {"SIGUSR1", "SIGTERM"};
    for (int i = 0; i < 2; i++) {
        int n = snprintf(start_msg[i], sizeof start_msg[i],
                         "%s: %s before the first training step: no checkpoint yet; stopping with status %d "
                         "(a requeued job starts this run afresh)\n", name, sigs[i], START_SIGNAL_EXIT);
        start_len[i] = n > 0 ? DDL_MIN((size_t)n, sizeof start_msg[i] - 1) : 0;
    }
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = start_signal;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGUSR1, &sa, NULL);
    sigaction(SIGTERM, &sa, NULL);
    return true;
#endif
}

/* After MPI_Init: a signal that came during it is delivered now. */
static void start_signals_release(int rank)
{
    start_rank = rank;
    sigset_t set;
    sigemptyset(&set);
    sigaddset(&set, SIGUSR1);
    sigaddset(&set, SIGTERM);
    sigprocmask(SIG_UNBLOCK, &set, NULL);
}

void ddl_program_start(int *argc, char ***argv, int *rank, int *size, bool malloc_default, bool stop_signals)
{
    bool held = start_signals_block(argc && *argc > 0 && argv && *argv ? (*argv)[0] : NULL, stop_signals);
    keep_freed_memory(malloc_default);
    threads_env_check();
    ddl_placement_before_init();
    /* Started without a launcher (bin/lab1 ... at one rank), Open MPI 4.1
     * forks a daemon (orted) for MPI_Comm_spawn, which ddlab never calls;
     * it cost 0.4-0.9 s of every such start on a 2-core VM. Isolated, the
     * singleton starts alone. Under mpirun or srun this component is not
     * used, and a value already set wins. */
    setenv("OMPI_MCA_ess_singleton_isolated", "1", 0);
    MPI_Init(argc, argv);
    MPI_Comm_rank(MPI_COMM_WORLD, rank);
    MPI_Comm_size(MPI_COMM_WORLD, size);
    ddl_set_rank(*rank, *size);
    ddl_threads_init(MPI_COMM_WORLD);
    if (held) start_signals_release(*rank);
}

int ddl_threads_init(MPI_Comm comm)
{
#ifdef DDL_SMPI
    /* SimGrid SMPI runs the ranks one at a time in one process and charges
     * each rank's computation by the CPU time of the thread running it:
     * threads of a rank would work uncharged (and OpenMP's per-thread state
     * would be shared by every rank). One thread per rank, whatever the
     * environment says. */
    (void)comm;
#ifdef _OPENMP
    omp_set_num_threads(1);
#endif
    openblas_set_num_threads(1);
    return 1;
#endif
    const char *omp = getenv("OMP_NUM_THREADS"), *blas = getenv("OPENBLAS_NUM_THREADS");
    if ((omp && *omp) || (blas && *blas)) return openblas_get_num_threads();
    int local = 1;
    ddl_node_rank(comm, &local);
    int t = ddl_threads_for(ddl_cpus_for_threads(), ddl_cpus_online(), local);
#ifdef _OPENMP
    omp_set_num_threads(t);
#endif
    openblas_set_num_threads(t);
    return t;
}

int ddl_threads_for(int allowed, int online, int local)
{
    if (allowed < 1) allowed = 1;
    if (online < allowed) online = allowed;
    if (local < 1) local = 1;
    /* How many of this host's ranks share this rank's CPUs: all of them
     * when each may run anywhere (mpirun --bind-to none), one when each
     * has CPUs of its own (srun's task/affinity, --bind-to core), and in
     * between in proportion (ranks bound to a socket each). */
    long share = ((long)local * allowed + online - 1) / online;
    if (share < 1) share = 1;
    if (share > local) share = local;
    int t = (int)(allowed / share);
    return t >= 1 ? t : 1;
}

int ddl_threads_in_use(void)
{
#ifdef DDL_SMPI
    return 1;
#else
    int t = openblas_get_num_threads();
    return t >= 1 ? t : 1;
#endif
}
