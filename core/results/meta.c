/* meta.c - provenance metadata: what produced a result, where, and how.
 *
 * Nothing here keeps state between calls (no static buffers, no globals):
 * under SimGrid SMPI every rank lives in one address space. */
#define _GNU_SOURCE /* cpu_set_t, sched_getaffinity */
#include "results.h"

#include <ctype.h>
#include <sched.h>
#include <mpi.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "../util/common.h"
#include "../platform/mpi_transport.h"
#include "../platform/placement.h"
#include "../platform/threads.h"
#include "version.h"
#include "../cpu/isa.h"
#ifdef DDL_SMPI
#include <simgrid/host.h>
#endif

/* Keys become "# key: value" lines and JSON object keys, so they must be
 * simple words; a bad key is a programming error, not a runtime condition. */
bool meta_key_valid(const char *key)
{
    size_t n = strlen(key);
    if (n == 0 || n >= sizeof ((Meta *)0)->key[0]) return false;
    for (size_t i = 0; i < n; i++)
        if (!(isalnum((unsigned char)key[i]) || key[i] == '_' || key[i] == '-' || key[i] == '.'))
            return false;
    return true;
}

static void check_key(const char *key)
{
    if (!meta_key_valid(key))
        ddl_die("meta key '%s': 1..%zu letters, digits, '_', '-' or '.'", key,
                sizeof ((Meta *)0)->key[0] - 1);
}

void meta_set(Meta *m, const char *key, const char *fmt, ...)
{
    check_key(key);
    int i = 0;
    while (i < m->n && strcmp(m->key[i], key) != 0) i++;
    if (i == m->n) {
        if (m->n == META_MAX) ddl_die("meta: more than %d keys (adding '%s')", META_MAX, key);
        ddl_strlcpy(m->key[i], key, sizeof m->key[i]);
        m->n++;
    }
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(m->val[i], sizeof m->val[i], fmt, ap);
    va_end(ap);
    /* One line per entry in the CSV header: fold line breaks and tabs. */
    for (char *p = m->val[i]; *p; p++)
        if (*p == '\n' || *p == '\r' || *p == '\t') *p = ' ';
}

const char *meta_get(const Meta *m, const char *key)
{
    for (int i = 0; i < m->n; i++)
        if (strcmp(m->key[i], key) == 0) return m->val[i];
    return NULL;
}

static const char *env_or(const char *a, const char *b, const char *fallback)
{
    const char *v = getenv(a);
    if ((!v || !*v) && b) v = getenv(b);
    return v && *v ? v : fallback;
}

/* A field of what the launcher said (placement.h's LaunchInfo), or fallback. */
static const char *said_or(const char *v, const char *fallback) { return v && *v ? v : fallback; }

/* Host count, the job's CPUs and oversubscription need every rank's host
 * name and affinity mask: a collective over MPI_COMM_WORLD. A host's CPUs
 * are the union of the masks of the ranks on it (srun gives each task CPUs
 * of its own, mpirun --bind-to none gives each all of them), and it is
 * oversubscribed when it runs more ranks than that. "cores" is that count
 * on rank 0's host: the CPUs the job may use there, not the machine's
 * (cores_online). */
typedef struct {
    char name[MPI_MAX_PROCESSOR_NAME];
    unsigned char mask[128]; /* CPUs 0..1023; SMPI: the simulated cores' count in mask[0..3] */
} HostSlot;

static void my_slot(HostSlot *me)
{
    memset(me, 0, sizeof *me);
    ddl_host_name(me->name, sizeof me->name);
#ifdef DDL_SMPI
    int cores = sg_host_core_count(sg_host_self());
    memcpy(me->mask, &cores, sizeof cores);
#else
    cpu_set_t set;
    CPU_ZERO(&set);
    if (sched_getaffinity(0, sizeof set, &set) != 0)
        for (int c = 0; c < ddl_cpus_online() && c < CPU_SETSIZE; c++) CPU_SET(c, &set);
    for (int c = 0; c < (int)sizeof me->mask * 8 && c < CPU_SETSIZE; c++)
        if (CPU_ISSET(c, &set)) me->mask[c / 8] |= (unsigned char)(1u << (c % 8));
#endif
}

/* The CPUs of one host: the union of its ranks' masks. */
static int host_cpus(const HostSlot *all, int size, int first)
{
#ifdef DDL_SMPI
    (void)size;
    int cores;
    memcpy(&cores, all[first].mask, sizeof cores);
    return cores;
#else
    unsigned char u[sizeof all->mask] = {0};
    for (int j = first; j < size; j++)
        if (strncmp(all[first].name, all[j].name, MPI_MAX_PROCESSOR_NAME) == 0)
            for (size_t b = 0; b < sizeof u; b++) u[b] |= all[j].mask[b];
    int n = 0;
    for (size_t b = 0; b < sizeof u; b++) n += __builtin_popcount(u[b]);
    return n;
#endif
}

static void collect_mpi(Meta *m)
{
    int inited = 0, finalized = 0;
    MPI_Initialized(&inited);
    MPI_Finalized(&finalized);
    if (!inited || finalized) {
        /* Tools that never start MPI still get complete metadata. */
        meta_set(m, "ranks", "1");
        meta_set(m, "hosts", "1");
        meta_set(m, "cores", "%d", ddl_cpus_allowed());
        meta_set(m, "oversubscribed", "no");
        meta_set(m, "mpi", "not initialised");
        return;
    }
    int size = 1;
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    meta_set(m, "ranks", "%d", size);
    HostSlot me, *all = calloc((size_t)size, sizeof *all);
    if (!all) ddl_die("out of memory gathering host names of %d ranks", size);
    my_slot(&me);
    MPI_Allgather(&me, (int)sizeof me, MPI_BYTE, all, (int)sizeof me, MPI_BYTE, MPI_COMM_WORLD);

    /* O(size^2) string compares: fine for the rank counts of a lab. */
    int hosts = 0;
    bool over = false;
    for (int i = 0; i < size; i++) {
        int first = i, on_host = 0;
        for (int j = 0; j < size; j++) {
            if (strncmp(all[i].name, all[j].name, MPI_MAX_PROCESSOR_NAME) != 0) continue;
            if (j < first) first = j;
            on_host++;
        }
        if (first != i) continue; /* host already counted */
        hosts++;
        int cpus = host_cpus(all, size, i);
        if (ddl_oversubscribed(on_host, cpus)) over = true;
        if (i == 0) meta_set(m, "cores", "%d", cpus);
    }
    free(all);
    meta_set(m, "hosts", "%d", hosts);
    meta_set(m, "oversubscribed", "%s", over ? "yes" : "no");
    char transport[256];
    ddl_mpi_transport(transport, sizeof transport);
    meta_set(m, "mpi_transport", "%s", transport);

    char lib[MPI_MAX_LIBRARY_VERSION_STRING];
    int liblen = 0;
    lib[0] = '\0';
    MPI_Get_library_version(lib, &liblen);
    lib[sizeof lib - 1] = '\0';
    lib[strcspn(lib, "\r\n")] = '\0';
    for (size_t n = strlen(lib); n > 0 && isspace((unsigned char)lib[n - 1]); n--) lib[n - 1] = '\0';
    meta_set(m, "mpi", "%s", lib);
}

#ifdef DDL_SMPI
/* A simulated run (make SIM=1, run by smpirun) says so, and how: the
 * platform, the network model, the host speed calibration and the
 * collective selector come from labs/platforms/sim.sh (DDL_SIM_*); a bare
 * smpirun leaves them "unknown" rather than guessing. "host" and the
 * build keys still describe the machine that ran the simulation; "cores"
 * and "hosts" describe the simulated platform. */
static void collect_sim(Meta *m)
{
    const char *platform = said_or(ddl_launch_info()->sim_platform, "unknown");
    const char *net = said_or(ddl_launch_info()->sim_network, "unknown");
    meta_set(m, "simulated", "SMPI, platform %s", platform);
    if (!strcmp(net, "theory"))
        meta_set(m, "sim_network", "CM02, cross-traffic off (a message costs alpha + n beta, the alpha-beta model)");
    else if (!strcmp(net, "realistic"))
        meta_set(m, "sim_network", "SMPI (SimGrid's default: piecewise factors calibrated on a real cluster, "
                                   "cross-traffic on)");
    else
        meta_set(m, "sim_network", "%s", net);
    meta_set(m, "sim_host_speed", "%s", said_or(ddl_launch_info()->sim_host_speed, "unknown (smpi/host-speed not set by ddlab)"));
    meta_set(m, "sim_platform_speed", "%s", said_or(ddl_launch_info()->sim_platform_speed, "unknown"));
    meta_set(m, "sim_coll_selector", "%s", said_or(ddl_launch_info()->sim_coll_selector, "unknown"));
    /* A benchmark of the network alone is simulated without the host's
     * computation (labs/launch.sh, LAUNCH_SIM_COMPUTE=0), so that its
     * times do not depend on how busy this machine is. */
    const char *compute = said_or(ddl_launch_info()->sim_compute, "1");
    if (!strcmp(compute, "0"))
        meta_set(m, "sim_compute", "not simulated (smpi/simulate-computation:no): the network's time alone, "
                                   "the same however busy this machine is");
    else
        meta_set(m, "sim_compute", "measured on this machine, one thread per rank, scaled by "
                                   "smpi/host-speed / platform speed");
    meta_set(m, "threads", "1 (simulated: one per rank, see core/platform/threads.c)");
}
#endif

/* "host-pid-start": the process that writes, named for all its life and
 * beyond (the start time, in clock ticks since boot, and the first part of
 * the boot id tell apart processes that reuse a pid). Read from /proc
 * each time, so nothing is kept between calls; without /proc, host-pid. */
static void run_id(char *out, size_t cap, const char *host)
{
    long pid = (long)getpid();
    char stat[1024] = "", boot[64] = "";
    FILE *f = fopen("/proc/self/stat", "r");
    if (f) {
        if (!fgets(stat, sizeof stat, f)) stat[0] = '\0';
        fclose(f);
    }
    f = fopen("/proc/sys/kernel/random/boot_id", "r");
    if (f) {
        if (!fgets(boot, sizeof boot, f)) boot[0] = '\0';
        fclose(f);
    }
    boot[strcspn(boot, "-\n")] = '\0';
    /* Field 22 (starttime); the command name (field 2) may hold spaces and
     * parentheses, so count from the last ')'. */
    unsigned long long start = 0;
    const char *p = strrchr(stat, ')');
    for (int field = 2; p && *p && field < 22; p++)
        if (*p == ' ') field++;
    if (p && *p) start = strtoull(p, NULL, 10);
    if (start && boot[0]) snprintf(out, cap, "%s-%ld-%s%llu", host, pid, boot, start);
    else snprintf(out, cap, "%s-%ld", host, pid);
}

/* Who started the ranks, and under which Slurm job: a run inside an
 * allocation (srun, or mpirun in sbatch/salloc) names its job and nodes. */
static void collect_launch(Meta *m)
{
    char launcher[128];
    ddl_launcher(launcher, sizeof launcher);
    meta_set(m, "launcher", "%s", launcher);
    const char *job = env_or("SLURM_JOB_ID", NULL, NULL);
    if (job) {
        meta_set(m, "slurm_job", "%s", job);
        meta_set(m, "slurm_nodes", "%s", env_or("SLURM_JOB_NODELIST", "SLURM_NODELIST", "unknown"));
    }
    const char *restarts = env_or("SLURM_RESTART_COUNT", NULL, "0");
    if (job && strcmp(restarts, "0") != 0) meta_set(m, "slurm_restarts", "%s", restarts);
    meta_set(m, "cpus_allowed", "%d", ddl_cpus_allowed());
    /* srun cannot tell Open MPI that a node is oversubscribed; ddlab
     * decides (core/platform/placement.c), by the rule "oversubscribed" follows. */
    if (strcmp(launcher, "srun") == 0)
        meta_set(m, "mpi_yield_when_idle", "%s", env_or("OMPI_MCA_mpi_yield_when_idle", NULL, "0"));
}

void meta_collect(Meta *m, const char *program)
{
    meta_set(m, "program", "%s", program ? program : "unknown");
    meta_set(m, "git", "%s", ddl_git_rev());
    meta_set(m, "build", "%s", ddl_build_flags());
    meta_set(m, "impl", "%s", ddl_impl());
    /* which build of the CPU's kernels ran (core/cpu/isa.h): the same
     * binary runs AVX-512, AVX2 or portable code by the CPU under it */
    meta_set(m, "isa", "%s", ddl_isa_summary());

    char date[32] = "unknown";
    time_t now = time(NULL);
    struct tm tm;
    if (gmtime_r(&now, &tm)) strftime(date, sizeof date, "%Y-%m-%dT%H:%M:%SZ", &tm);
    meta_set(m, "date", "%s", date);

    char host[256] = "unknown";
    if (gethostname(host, sizeof host) != 0) ddl_strlcpy(host, "unknown", sizeof host);
    host[sizeof host - 1] = '\0';
    meta_set(m, "host", "%s", host);
    char id[384];
    run_id(id, sizeof id, host);
    meta_set(m, "run_id", "%s", id);

    meta_set(m, "cores_online", "%d", ddl_cpus_online());
    collect_mpi(m);
    collect_launch(m);
    meta_set(m, "threads", "%d", ddl_threads_in_use());
    meta_set(m, "openblas_coretype", "%s", env_or("OPENBLAS_CORETYPE", NULL, "auto"));
    /* make labN NET=...: the launcher (labs/net/net.sh) passes what the
     * emulated cluster is and how it was built to every rank. */
    const char *net = said_or(ddl_launch_info()->net, NULL);
    if (net) {
        meta_set(m, "emulated_network", "%s", net);
        meta_set(m, "emulated_network_setup", "%s", said_or(ddl_launch_info()->net_setup, "unknown"));
    }
#ifdef DDL_SMPI
    collect_sim(m);
#endif
}

/* "mnist" -> "MNIST" etc.; unknown names are shown as given. */
static const char *pretty_dataset(const char *name)
{
    static const char *const map[][2] = {
        {"mnist", "MNIST"},       {"fashion-mnist", "Fashion-MNIST"},
        {"cifar10", "CIFAR-10"},  {"cifar-10", "CIFAR-10"},
        {"sdss", "SDSS"},
    };
    for (size_t i = 0; i < sizeof map / sizeof map[0]; i++)
        if (strcmp(name, map[i][0]) == 0) return map[i][1];
    return name;
}

static void part(char *out, size_t cap, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
/* Append ", <text>" (no comma before the first part). */
static void part(char *out, size_t cap, const char *fmt, ...)
{
    size_t n = strlen(out);
    if (n + 1 >= cap) return;
    if (n > 0) {
        snprintf(out + n, cap - n, ", ");
        n = strlen(out);
    }
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(out + n, cap - n, fmt, ap);
    va_end(ap);
}

void meta_summary(const Meta *m, char *out, size_t cap)
{
    if (cap == 0) return;
    out[0] = '\0';
    const char *dataset = meta_get(m, "dataset"), *data = meta_get(m, "data");
    const char *ranks = meta_get(m, "ranks"), *cores = meta_get(m, "cores");
    const char *hosts = meta_get(m, "hosts"), *over = meta_get(m, "oversubscribed");
    const char *device = meta_get(m, "device"), *profile = meta_get(m, "profile");
    const char *seed = meta_get(m, "seed");

    /* Simulated runs say so first, in every CSV, table and figure. */
    const char *simulated = meta_get(m, "simulated");
    if (simulated) part(out, cap, "simulated (%s)", simulated);
    const char *net = meta_get(m, "emulated_network");
    if (net) part(out, cap, "emulated network: %s", net);

    if (dataset && data) part(out, cap, "%s %s", data, pretty_dataset(dataset));
    else if (dataset) part(out, cap, "%s", pretty_dataset(dataset));
    else if (data) part(out, cap, "%s data", data);

    bool oversub = over && strcmp(over, "yes") == 0;
    const char *paren = oversub ? " (oversubscribed)" : "";
    bool one_rank = ranks && strcmp(ranks, "1") == 0;
    if (ranks && hosts && atoi(hosts) > 1)
        part(out, cap, "%s ranks on %s hosts%s", ranks, hosts, paren);
    else if (ranks && cores)
        part(out, cap, "%s rank%s on %s core%s%s", ranks, one_rank ? "" : "s", cores,
             strcmp(cores, "1") == 0 ? "" : "s", paren);
    else if (ranks)
        part(out, cap, "%s rank%s%s", ranks, one_rank ? "" : "s", paren);
    else if (cores)
        part(out, cap, "%s core%s", cores, strcmp(cores, "1") == 0 ? "" : "s");

    if (device) part(out, cap, "%s", device);
    if (profile) part(out, cap, "%s profile", profile);
    if (seed) part(out, cap, "seed %s", seed);
}
