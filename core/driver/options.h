/* options.h - the shared options' command-line fragment and checks
 * (options.c), for driver_start. */
#ifndef DDL_DRIVER_OPTIONS_H
#define DDL_DRIVER_OPTIONS_H

#include "driver.h"
#include "first_failure.h"

/* The entries of the shared options the spec offers, into out (room for
 * 21); returns how many. */
int driver_cli_fragment(Driver *d, CliOption *out);
/* $DDL_DEVICE and $DDL_PROFILE (env) where the program left device and
 * profile unset; then cpu and custom. */
void driver_environment(DriverOptions *o, const DriverEnv *env);
/* The shared values that need no file system (--conv parsed into
 * d->conv_algo); 0, or -1 after a message. */
int driver_check_values(Driver *d);
/* One option's value as text ("0.05", "yes", "vgg11"): what a checkpoint
 * records and what the ranks compare. */
void driver_option_value(const CliOption *o, char *out, size_t cap);
/* Collective (agree.c), before any work: every rank was started with the
 * same program, mode and options, and reached the same verdict on them
 * (0: go on; else it stops). One allreduce of one hash when they agree;
 * otherwise rank 0 names the first option that differs, with two ranks'
 * values, and every rank stops. Returns verdict, or -1 with d->status 2. */
int driver_agree_start(Driver *d, int verdict);
/* Collective (agree.c), once the data is loaded: every rank holds the same
 * training and test splits (a node without the files would train on
 * synthetic data). 0, or 1 after rank 0 named both ranks' data. */
int driver_agree_data(Driver *d);
/* Collective (memory.c), before a model is allocated: its arenas, the
 * optimizer's and one more copy of the weights (a lower bound of the
 * run's memory) against what a rank here may use (MemAvailable or the
 * cgroup's memory.max shared by the ranks on this host, ulimit -v). 0, or
 * 2 after a message with both numbers. */
int driver_check_memory(Driver *d, const char *model, const ModelConfig *cfg, int max_batch);

#endif
