/* registry.h - which backends this build and this machine can run.
 *
 * Tests that compare backends iterate over backend_usable(); programs map
 * DEVICE=name to a table with backend_named() after device_check() has
 * said why a device cannot be used. */
#ifndef DDL_BACKEND_REGISTRY_H
#define DDL_BACKEND_REGISTRY_H

#include "backend.h"

/* The backend DEVICE=name selects, or NULL when this build has none of
 * that name (it may still fail to start: device_check says why). */
const Backend *backend_named(const char *name);
/* Backends built in and usable here, the CPU first (a CUDA backend only
 * where a GPU answers). Returns how many were written (at most cap). */
int backend_usable(const Backend **out, int cap);
/* The CPU's backend built for one instruction set (DdlIsa,
 * core/cpu/isa.h), NULL where the build has no such variant: the tests
 * run each that the CPU runs against the portable one. "cpu" above is
 * the one ddl_isa_active() names. */
const Backend *backend_cpu_isa(int isa);
/* The CPU's backend that runs here: the instruction set picked at
 * start-up (what DEVICE=cpu and a model built without a backend get; the
 * portable build's ddl_backend_cpu is the tests' reference, and 90x
 * slower where its kernels' fmaf has no FMA instruction). */
const Backend *backend_cpu(void);
/* Is be one of the CPU's backends, of any instruction set? Their results
 * are the same bits (tests/test_isa_kernels.c). */
bool backend_is_cpu(const Backend *be);

#endif
