/* environment.h - the environment variables the programs read, read in
 * one place (environment.c) when a program starts. Core below the driver
 * (layers, comm, model, data, sync) never reads the environment: what a
 * variable decides reaches it as a field of a config struct or a function
 * argument (tests/e2e_config_edge.sh checks that). */
#ifndef DDL_DRIVER_ENVIRONMENT_H
#define DDL_DRIVER_ENVIRONMENT_H

#include <stdbool.h>
#include <stddef.h>

typedef struct DriverEnv {
    const char *device;          /* DDL_DEVICE: --device's default (NULL: cpu) */
    const char *profile;         /* DDL_PROFILE: --profile's default (NULL: custom) */
    const char *data_root;       /* DDL_DATA: where the datasets are (NULL: datasets/) */
    bool cifar_partial;          /* DDL_CIFAR_PARTIAL=1: CIFAR batch files of other sizes accepted */
    const char *checkpoint_root; /* DDL_CHECKPOINT_ROOT: automatic checkpoints go under it */
    bool resume;                 /* DDL_RESUME=1: continue from the automatic checkpoint */
    long kill_after;             /* DDL_FAULT_KILL_AFTER=N: SIGKILL after the first checkpoint at >= N (-1: off) */
    long restarts;               /* DDL_RESTARTS=N: set by labs/launch.sh, this run's restarts inside its job */
    bool ckpt_on_usr1;           /* DDL_CHECKPOINT_ON_USR1=1: SIGUSR1 asks for a checkpoint, then a stop (preempt.c) */
    bool mpi_device_off;         /* DDL_MPI_CUDA_AWARE=0: stage device buffers through the host for MPI */
    bool malloc_default;         /* DDL_MALLOC_DEFAULT=1: keep glibc's malloc thresholds */
    /* What ddlab's launchers say about the run (placement.h's LaunchInfo:
     * labs/net/net.sh, labs/platforms/sim.sh) */
    const char *net, *net_setup, *net_host;
    const char *sim_platform, *sim_network, *sim_host_speed, *sim_platform_speed, *sim_coll_selector, *sim_compute;
    /* The emulated GPU's strict mode and its number of devices
     * (core/cuda/emu/switches.h) */
    const char *emu_strict, *emu_order, *emu_seed, *emu_devices;
    const char *isa;             /* DDL_ISA: the build of the CPU's kernels to run (NULL: the best the CPU runs) */
    const char *grade_tape;      /* DDL_GRADE_TAPE: the grader's tape (labs/grade/tape) */
} DriverEnv;

/* Reads every variable of the table in environment.c into *env. 0, or -1
 * after a message naming the variable and what it accepts. */
int driver_env_read(DriverEnv *env);
/* Hands the values meant for the layers below the driver to them, once,
 * before MPI_Init: the launcher's word to core/platform (LaunchInfo), the
 * strict-mode switches to the emulated GPU. */
void driver_env_hand_down(const DriverEnv *env);
/* driver_env_read, then driver_env_hand_down: for programs that do not
 * start through the driver (the test programs, tests/harness.c). 0, or -1
 * after a message. */
int driver_env_apply(void);
/* The value of one of the table's text variables (NULL: unset or empty),
 * for code above the driver that starts without it: the grader's tape
 * reads DDL_GRADE_TAPE here. A name not in the table is a bug (abort). */
const char *driver_env_text(const char *name);

/* The table's rows, for --help and documentation: name and meaning of
 * row i (i from 0), false past the last. */
bool driver_env_row(int i, const char **name, const char **meaning);

#endif
