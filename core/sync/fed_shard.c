/* fed_shard.c - which training examples each user holds (fed.h). Every rank
 * computes the whole assignment from the same seed and keeps its part, so
 * no example lists travel. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fed_shard.h"
#include "../util/common.h"
#include "../util/rng.h"

const char *fed_sharding_name(FedSharding s)
{
    switch (s) {
    case FED_IID: return "iid";
    case FED_LABEL_SORTED: return "sorted";
    case FED_DIRICHLET: return "dirichlet";
    }
    return "?";
}

int fed_sharding_from_name(const char *name, FedSharding *out)
{
    static const FedSharding all[] = { FED_IID, FED_LABEL_SORTED, FED_DIRICHLET };
    for (int i = 0; i < 3; i++)
        if (!strcmp(name, fed_sharding_name(all[i]))) {
            *out = all[i];
            return 0;
        }
    return -1;
}

/* Gamma(a, 1): Marsaglia and Tsang (2000); a < 1 boosted by U^(1/a). */
static double gamma_draw(Rng *r, double a)
{
    if (a < 1.0) {
        double u = rng_uniform(r);
        return gamma_draw(r, a + 1.0) * pow(u > 0 ? u : 1e-12, 1.0 / a);
    }
    double d = a - 1.0 / 3.0, c = 1.0 / sqrt(9.0 * d);
    for (;;) {
        double x = rng_normal(r), v = 1.0 + c * x;
        if (v <= 0) continue;
        v = v * v * v;
        double u = rng_uniform(r);
        if (u < 1.0 - 0.0331 * x * x * x * x) return d * v;
        if (u > 0 && log(u) < 0.5 * x * x + d * (1.0 - v + log(v))) return d * v;
    }
}


typedef struct { int32_t idx, label; uint64_t key; } Item;
static int cmp_item(const void *a, const void *b)
{
    const Item *x = a, *y = b;
    if (x->label != y->label) return x->label < y->label ? -1 : 1;
    return (x->key > y->key) - (x->key < y->key);
}

/* owner[i] = the user of example i. */
static void assign(const Dataset *d, int users, FedSharding kind, double alpha, uint64_t seed, int *owner)
{
    int n = d->n;
    int32_t *perm = malloc(sizeof(int32_t) * (size_t)n);
    if (!perm) ddl_die("out of memory");
    for (int i = 0; i < n; i++) perm[i] = i;
    Rng r = rng_make(seed, "fed-shard");
    if (kind == FED_IID) {
        rng_shuffle(&r, perm, n);
        for (int k = 0; k < n; k++) owner[perm[k]] = (int)((long)k * users / n);
    } else if (kind == FED_LABEL_SORTED) {
        Item *it = malloc(sizeof(Item) * (size_t)n);
        if (!it) ddl_die("out of memory");
        for (int i = 0; i < n; i++) it[i] = (Item){ i, d->y[i], rng_u64(&r) };
        qsort(it, (size_t)n, sizeof *it, cmp_item);
        for (int k = 0; k < n; k++) owner[it[k].idx] = (int)((long)k * users / n);
        free(it);
    } else {
        if (!(alpha > 0)) ddl_die("fed_shard: Dirichlet alpha must be > 0 (got %g)", alpha);
        double *p = malloc(sizeof(double) * (size_t)users);
        if (!p) ddl_die("out of memory");
        rng_shuffle(&r, perm, n);
        for (int c = 0; c < d->classes; c++) {
            double s = 0;
            for (int u = 0; u < users; u++) s += p[u] = gamma_draw(&r, alpha);
            long nc = 0;
            for (int k = 0; k < n; k++) nc += d->y[perm[k]] == c;
            /* cut the class's examples (in shuffled order) at the
             * cumulative proportions */
            long seen = 0;
            double cum = 0;
            int u = 0;
            for (int k = 0; k < n; k++) {
                if (d->y[perm[k]] != c) continue;
                while (u < users - 1 && (double)seen >= (cum + p[u] / s) * (double)nc) cum += p[u++] / s;
                owner[perm[k]] = u;
                seen++;
            }
        }
        free(p);
        /* nobody empty-handed: an empty user takes one example from the
         * largest shard */
        int *cnt = calloc((size_t)users, sizeof(int));
        if (!cnt) ddl_die("out of memory");
        for (int i = 0; i < n; i++) cnt[owner[i]]++;
        for (int u = 0; u < users; u++) {
            if (cnt[u] > 0) continue;
            int big = 0;
            for (int v = 1; v < users; v++)
                if (cnt[v] > cnt[big]) big = v;
            for (int i = 0; i < n; i++)
                if (owner[i] == big) {
                    owner[i] = u;
                    cnt[big]--;
                    cnt[u]++;
                    break;
                }
        }
        free(cnt);
    }
    free(perm);
}

void fed_shard(const Dataset *d, int user, int users, FedSharding kind, double alpha, uint64_t seed, Dataset *out)
{
    if (users < 1 || user < 0 || user >= users) ddl_die("fed_shard: user %d of %d", user, users);
    if (d->n < users) ddl_die("fed_shard: %d examples cannot be shared by %d users", d->n, users);
    int *owner = malloc(sizeof(int) * (size_t)d->n);
    if (!owner) ddl_die("out of memory");
    assign(d, users, kind, alpha, seed, owner);
    int k = 0;
    for (int i = 0; i < d->n; i++) k += owner[i] == user;
    size_t per = (size_t)d->c * d->h * d->w;
    *out = *d;
    out->n = k;
    out->x = ddl_alloc(sizeof(float) * per * (size_t)(k > 0 ? k : 1));
    out->y = ddl_alloc(sizeof(int32_t) * (size_t)(k > 0 ? k : 1));
    k = 0;
    for (int i = 0; i < d->n; i++)
        if (owner[i] == user) {
            memcpy(out->x + (size_t)k * per, d->x + (size_t)i * per, sizeof(float) * per);
            out->y[k++] = d->y[i];
        }
    snprintf(out->source, sizeof out->source, "%s shard %d/%d (%s)", d->name, user + 1, users, fed_sharding_name(kind));
    free(owner);
}
