/* fed_shard.h - which training examples each user holds (fed.h). */
#ifndef DDL_SYNC_FED_SHARD_H
#define DDL_SYNC_FED_SHARD_H

#include <stdint.h>
#include "../data/dataset.h"

typedef enum FedSharding { FED_IID, FED_LABEL_SORTED, FED_DIRICHLET } FedSharding;
const char *fed_sharding_name(FedSharding s);           /* "iid", "sorted", "dirichlet" */
int fed_sharding_from_name(const char *name, FedSharding *out);
/* Split d's examples among `users` (seeded):
 *   iid         a random permutation cut into near-equal parts;
 *   sorted      examples ordered by label (ties in random order) cut into
 *               near-equal contiguous parts: each user sees few classes;
 *   dirichlet   per class, proportions ~ Dir(alpha) over users (small alpha:
 *               skewed; Hsu et al. 2019); every user keeps at least one
 *               example.
 * Writes user `user`'s (0-based) examples into out, a Dataset of its own
 * (dataset_free it). Deterministic in (seed, users, kind, alpha). */
void fed_shard(const Dataset *d, int user, int users, FedSharding kind, double alpha, uint64_t seed, Dataset *out);

#endif
