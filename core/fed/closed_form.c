/* closed_form.c - seed 004's Section 3.2: bytes per round = parameters x
 * bytes per parameter; bytes per epoch = rounds per epoch x that. */
#include <string.h>

#include "fed.h"

uint64_t fed_bytes_per_round(size_t params, CommDtype dtype)
{
    return (uint64_t)params * (dtype == COMM_FP16 ? 2u : 4u);
}

double fed_rounds_per_epoch(FedScheme s, long train_n, int global_batch, int local_epochs)
{
    switch (s) {
    case FED_CSGD: return 0.0;
    case FED_DSGD: return (double)train_n / (double)global_batch;
    case FED_FEDAVG: return 1.0 / (double)local_epochs;
    }
    return 0.0;
}

const char *fed_scheme_name(FedScheme s)
{
    switch (s) {
    case FED_CSGD: return "csgd";
    case FED_DSGD: return "dsgd";
    case FED_FEDAVG: return "fedavg";
    }
    return "?";
}

int fed_scheme_from_name(const char *name, FedScheme *out)
{
    static const FedScheme all[] = { FED_CSGD, FED_DSGD, FED_FEDAVG };
    for (int i = 0; i < 3; i++)
        if (!strcmp(name, fed_scheme_name(all[i]))) {
            *out = all[i];
            return 0;
        }
    return -1;
}
