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

#endif
