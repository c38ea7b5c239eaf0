/* monitor.c - Open MPI's monitoring counters through MPI_T (monitor.h). */
#include "monitor.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../util/common.h"

static void unavailable(CommMonitor *m, const char *why)
{
    m->available = false;
    ddl_strlcpy(m->why, why, sizeof m->why);
}

#ifdef DDL_SMPI
/* SimGrid's SMPI implements no MPI_T tools interface, so simulated runs
 * report MPI_Allreduce's traffic as n/a, like an MPI without monitoring. */
void comm_monitor_open(CommMonitor *m, const Comm *c)
{
    memset(m, 0, sizeof *m);
    m->nranks = c->size;
    unavailable(m, "n/a under SimGrid SMPI (no MPI_T interface)");
}

bool comm_monitor_read(CommMonitor *m, uint64_t *msgs, uint64_t *bytes)
{
    (void)m, (void)msgs, (void)bytes;
    return false;
}

void comm_monitor_close(CommMonitor *m) { memset(m, 0, sizeof *m); }
#else

/* Index, element size and binding of a performance variable, by name. */
static int find_pvar(const char *wanted, int *index, int *elem_bytes)
{
    int num = 0;
    if (MPI_T_pvar_get_num(&num) != MPI_SUCCESS) return -1;
    for (int i = 0; i < num; i++) {
        char name[256], desc[256];
        int name_len = sizeof name, desc_len = sizeof desc;
        int verbosity, var_class, bind, readonly, continuous, atomic;
        MPI_Datatype type;
        MPI_T_enum enumtype;
        /* Unregistered variables leave holes in the index: skip them. */
        if (MPI_T_pvar_get_info(i, name, &name_len, &verbosity, &var_class, &type, &enumtype, desc, &desc_len,
                                &bind, &readonly, &continuous, &atomic) != MPI_SUCCESS)
            continue;
        if (strcmp(name, wanted) != 0 || bind != MPI_T_BIND_MPI_COMM) continue;
        int size = 0;
        MPI_Type_size(type, &size);
        if (size != 4 && size != 8) return -1;
        *index = i;
        *elem_bytes = size;
        return 0;
    }
    return -1;
}

static int bind_and_start(CommMonitor *m, MPI_Comm *comm, int index, MPI_T_pvar_handle *h)
{
    int count = 0;
    if (MPI_T_pvar_handle_alloc(m->session, index, comm, h, &count) != MPI_SUCCESS) return -1;
    if (count != m->nranks) return -1;
    /* Continuous variables cannot be started; others must be. */
    int rc = MPI_T_pvar_start(m->session, *h);
    if (rc != MPI_SUCCESS && rc != MPI_T_ERR_PVAR_NO_STARTSTOP) return -1;
    return 0;
}

void comm_monitor_open(CommMonitor *m, const Comm *c)
{
    memset(m, 0, sizeof *m);
    m->nranks = c->size;
    m->session = MPI_T_PVAR_SESSION_NULL;
    int provided, count_index = -1, size_index = -1;
    if (MPI_T_init_thread(MPI_THREAD_SINGLE, &provided) != MPI_SUCCESS) {
        unavailable(m, "MPI_T could not be initialised");
        return;
    }
    m->tools_initialized = true;
    if (find_pvar("pml_monitoring_messages_count", &count_index, &m->count_elem_bytes) != 0 ||
        find_pvar("pml_monitoring_messages_size", &size_index, &m->size_elem_bytes) != 0) {
        /* One message for both cases: whether the job asked for monitoring
         * is the launcher's business, and Open MPI registers no variable
         * that says so once it has unloaded the component. */
        unavailable(m, "MPI exposes no pml_monitoring pvars (run with --mca pml_monitoring_enable 1; Open MPI "
                       "4.1.x unloads its monitoring PML even then: open-mpi/ompi#9260)");
        return;
    }
    if (MPI_T_pvar_session_create(&m->session) != MPI_SUCCESS) {
        unavailable(m, "MPI_T_pvar_session_create failed");
        return;
    }
    MPI_Comm comm = c->mpi;
    if (bind_and_start(m, &comm, count_index, &m->count_handle) != 0 ||
        bind_and_start(m, &comm, size_index, &m->size_handle) != 0) {
        unavailable(m, "could not bind the pml_monitoring pvars to the communicator");
        return;
    }
    m->values = calloc((size_t)m->nranks, 8);
    if (!m->values) ddl_die("out of memory for %d monitoring values", m->nranks);
    m->available = true;
}

static uint64_t sum_values(const void *values, int n, int elem_bytes)
{
    uint64_t total = 0;
    for (int i = 0; i < n; i++)
        total += elem_bytes == 8 ? ((const uint64_t *)values)[i] : ((const uint32_t *)values)[i];
    return total;
}

bool comm_monitor_read(CommMonitor *m, uint64_t *msgs, uint64_t *bytes)
{
    if (!m->available) return false;
    if (MPI_T_pvar_read(m->session, m->count_handle, m->values) != MPI_SUCCESS) return false;
    *msgs = sum_values(m->values, m->nranks, m->count_elem_bytes);
    if (MPI_T_pvar_read(m->session, m->size_handle, m->values) != MPI_SUCCESS) return false;
    *bytes = sum_values(m->values, m->nranks, m->size_elem_bytes);
    return true;
}

void comm_monitor_close(CommMonitor *m)
{
    if (m->session != MPI_T_PVAR_SESSION_NULL) MPI_T_pvar_session_free(&m->session);
    if (m->tools_initialized) MPI_T_finalize();
    free(m->values);
    memset(m, 0, sizeof *m);
}
#endif /* DDL_SMPI */
