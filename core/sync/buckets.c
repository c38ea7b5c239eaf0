/* buckets.c - DDP bucket assignment (see buckets.h). */
#include "buckets.h"

#include "../util/common.h"

int sync_assign_buckets(const Model *m, size_t first_bytes, size_t cap_bytes, Bucket *out, int cap)
{
    int np = model_param_list(m, NULL, 0);
    if (np == 0) return 0;
    ParamInfo *p = ddl_alloc(sizeof *p * (size_t)np);
    model_param_list(m, p, np);
    int nb = 0;
    Bucket cur = { 0, 0, -1, -1, 0 };
    for (int j = np - 1; j >= 0; j--) {
        /* Tensors sit back to back in the arena, so walking them in reverse
         * grows the bucket downwards and it stays one contiguous slice. */
        if (cur.nparams == 0) {
            cur.off = p[j].off + p[j].count;
            cur.last_layer = p[j].layer;
        } else if (p[j].off + p[j].count != cur.off) {
            ddl_die("model %s: parameter %s is not adjacent to the next one in the arena", m->name, p[j].name);
        }
        cur.off = p[j].off;
        cur.count += p[j].count;
        cur.first_layer = p[j].layer;
        cur.nparams++;
        bool close;
        if (cap_bytes == 0) close = j == 0 || p[j - 1].layer != p[j].layer;
        else close = j == 0 || cur.count * sizeof(float) >= (nb == 0 ? first_bytes : cap_bytes);
        if (close) {
            if (nb < cap) out[nb] = cur;
            nb++;
            cur = (Bucket){ 0, 0, -1, -1, 0 };
        }
    }
    ddl_free(p);
    return nb;
}
