/* isa.h - which instruction set the CPU's hand-written kernels run with,
 * chosen once at start-up by the CPU's features.
 *
 * Why at run time: one binary runs on every x86-64 CPU its users have
 * (laptops with AVX2, clusters and cloud VMs with AVX-512), so the build
 * cannot assume the CPU it was compiled on (-march=native). The Makefile
 * compiles the kernels' files once per instruction set (ISA_SRC): the
 * ordinary objects are the portable build, and each variant's copy has
 * every global name suffixed (_avx2, _avx512), so the CPU backend of each
 * (ddl_backend_cpu, ddl_backend_cpu_avx2, ...) links beside the others.
 * The programs run the CPU backend picked here (backend_named("cpu"));
 * the portable one stays the reference the tests compare the others with.
 *
 * DDL_ISA=portable|avx2|avx512 forces one (a lower one, to compare or to
 * test it; one the CPU lacks stops the program, saying why): the driver
 * reads it with the other DDL_ variables (core/driver/environment.c) and
 * hands it down here (ddl_isa_request) before any kernel runs. */
#ifndef DDL_CPU_ISA_H
#define DDL_CPU_ISA_H

#include <stdbool.h>
#include <stddef.h>

/* In order of preference, the portable one first (index 0: the ordinary
 * objects' names carry no suffix). */
typedef enum DdlIsa { DDL_ISA_PORTABLE, DDL_ISA_AVX2, DDL_ISA_AVX512, DDL_ISA_COUNT } DdlIsa;

/* The build a file is compiled for: the Makefile's variants define it. */
#ifndef DDL_ISA_BUILD
#define DDL_ISA_BUILD DDL_ISA_PORTABLE
#endif

/* "portable", "avx2", "avx512": DDL_ISA's values. */
const char *ddl_isa_name(DdlIsa isa);
/* Whether this build has the variant and this CPU runs it; else *why
 * (when why is not NULL) says which is missing. */
bool ddl_isa_runs(DdlIsa isa, const char **why);
/* Run the build named (DDL_ISA's values; NULL or "": the best this CPU
 * runs). Before the first ddl_isa_active(); a name that cannot run, or
 * another than the one already picked, stops the program, saying why. */
void ddl_isa_request(const char *name);
/* The one picked for this process: the requested, else the best this CPU runs. */
DdlIsa ddl_isa_active(void);
/* How it was picked, for outputs' provenance: "avx512 (the best of
 * portable, avx2, avx512 this CPU runs)" or "avx2 (DDL_ISA=avx2)". */
const char *ddl_isa_summary(void);

#endif
