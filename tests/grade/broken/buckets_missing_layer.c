/* grade-broken: lab3/buckets - stops one layer early: the first layer's
 * tensors are in no bucket, so DDP would never average them. */
#include "common.h"
#include "sync/sync.h"

int sync_assign_buckets(const Model *m, size_t first_bytes, size_t cap_bytes, Bucket *out, int cap)
{
    int np = model_param_list(m, NULL, 0);
    if (np == 0) return 0;
    ParamInfo *p = ddl_alloc(sizeof *p * (size_t)np);
    model_param_list(m, p, np);
    int stop = 0;
    while (stop < np && p[stop].layer == p[0].layer) stop++;
    int nb = 0;
    Bucket cur = { 0, 0, -1, -1, 0 };
    for (int j = np - 1; j >= stop; j--) {
        if (cur.nparams == 0) {
            cur.off = p[j].off + p[j].count;
            cur.last_layer = p[j].layer;
        }
        cur.off = p[j].off;
        cur.count += p[j].count;
        cur.first_layer = p[j].layer;
        cur.nparams++;
        bool close;
        if (cap_bytes == 0) close = j == stop || p[j - 1].layer != p[j].layer;
        else close = j == stop || cur.count * sizeof(float) >= (nb == 0 ? first_bytes : cap_bytes);
        if (close) {
            if (nb < cap) out[nb] = cur;
            nb++;
            cur = (Bucket){ 0, 0, -1, -1, 0 };
        }
    }
    ddl_free(p);
    return nb;
}
