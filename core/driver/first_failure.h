/* first_failure.h - every rank learns whether any rank failed a check, and
 * the lowest one that did says why (first_failure.c). Below the files
 * that check (start.c, lock.c, resume.c), so none of them calls up into
 * another to stop the run together. */
#ifndef DDL_DRIVER_FIRST_FAILURE_H
#define DDL_DRIVER_FIRST_FAILURE_H

#include <stdbool.h>

#include "driver.h"

/* Collective: the lowest rank that failed prints "error: why" (every rank
 * that fails knows why); returns that rank, or -1 when none failed. */
int driver_first_failure(Driver *d, bool failed, const char *why);

#endif
