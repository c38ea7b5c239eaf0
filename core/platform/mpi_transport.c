/* mpi_transport.c - see mpi_transport.h.
 *
 * Open MPI has no public call that names its selected components: its
 * MPI_T control variables "pml" and "btl" hold what was asked for ("^ucx"
 * by default), not what was chosen. The choice lives in two of its
 * exported variables: mca_pml_base_selected_component (libmpi) and the
 * list mca_btl_base_modules_initialized (libopen-pal). They are looked up
 * with dlsym, so nothing links against Open MPI's internals, and their
 * types come from the headers libopenmpi-dev installs beside mpi.h
 * (mpicc puts them on the include path). */
#include "mpi_transport.h"

#include <mpi.h>
#include <stdio.h>
#include <string.h>

#if defined(OPEN_MPI) && !defined(DDL_SMPI) && defined(__has_include)
#if __has_include("ompi/mca/pml/base/base.h") && __has_include("opal/mca/btl/base/base.h")
#define DDL_OMPI_INTERNALS 1
#include <dlfcn.h>
#include "ompi_config.h"
#include "ompi/mca/pml/base/base.h"
#include "opal/mca/btl/base/base.h"
#endif
#endif

#ifdef DDL_OMPI_INTERNALS
void ddl_mpi_transport(char *out, size_t cap)
{
    const mca_pml_base_component_t *pml = dlsym(RTLD_DEFAULT, "mca_pml_base_selected_component");
    opal_list_t *btls = dlsym(RTLD_DEFAULT, "mca_btl_base_modules_initialized");
    if (!pml || !pml->pmlm_version.mca_component_name[0]) {
        snprintf(out, cap, "unknown (Open MPI's selected pml was not found)");
        return;
    }
    int n = snprintf(out, cap, "pml %s", pml->pmlm_version.mca_component_name);
    /* The byte transports serve ob1 only; cm and ucx bring their own. */
    if (!btls || strcmp(pml->pmlm_version.mca_component_name, "ob1") != 0) return;
    const char *sep = ", btl ";
    mca_btl_base_selected_module_t *sm;
    OPAL_LIST_FOREACH(sm, btls, mca_btl_base_selected_module_t) {
        if (n < 0 || (size_t)n >= cap) return;
        n += snprintf(out + n, cap - (size_t)n, "%s%s", sep, sm->btl_component->btl_version.mca_component_name);
        sep = ",";
    }
}
#else
void ddl_mpi_transport(char *out, size_t cap)
{
#ifdef DDL_SMPI
    snprintf(out, cap, "SimGrid SMPI (simulated network)");
#else
    snprintf(out, cap, "unknown (not Open MPI, or its component headers are not installed)");
#endif
}
#endif
