/* switches.h - strict mode's switches and the number of emulated GPUs,
 * handed to the emulated GPU by the program's edge
 * (core/driver/environment.c reads DDL_EMU_STRICT, DDL_EMU_ORDER,
 * DDL_EMU_SEED and DDL_EMU_DEVICES with the programs' other variables).
 * A C header: the driver is C, the emulator C++ (strict.cc). */
#ifndef DDL_EMU_SWITCHES_H
#define DDL_EMU_SWITCHES_H

#ifdef __cplusplus
extern "C" {
#endif

/* The three values as the environment gave them (NULL: unset). Call
 * before the first CUDA call: strict.cc reads them once, at the first
 * launch, copy or allocation, and stops a run on a value it does not know. */
void ddl_emu_switches_set(const char *strict, const char *order, const char *seed);

/* DDL_EMU_DEVICES as the environment gave it (NULL: unset, one GPU): how
 * many GPUs the emulated machine shows (runtime.cc), read once at the
 * first CUDA call, which stops a run on a value outside 1 .. 64. */
void ddl_emu_devices_set(const char *count);

#ifdef __cplusplus
}
#endif

#endif
