/* batcher.c - per-epoch shuffle, DistributedSampler sharding, augmentation,
 * normalisation.
 *
 * Sharding follows torch.utils.data.DistributedSampler so that results can
 * be compared with PyTorch runs: the epoch's permutation is padded by
 * wrapping around to total = ceil(n/W)*W entries and rank r takes entries
 * r, r+W, ... Every rank thus sees the same number of examples (the ranks
 * must run the same number of steps for the collectives to line up); the
 * price is that up to W-1 examples appear twice per epoch. */
#include "dataset.h"

#include <string.h>

#define AUG_PAD 4

void batcher_init(Batcher *b, const Dataset *d, const BatcherOptions *o)
{
    if (!d || d->n < 1) ddl_die("batcher_init: empty dataset");
    if (o->batch < 1) ddl_die("batcher_init: batch %d, expected >= 1", o->batch);
    if (o->world < 1 || o->rank < 0 || o->rank >= o->world)
        ddl_die("batcher_init: rank %d of world %d", o->rank, o->world);
    if (o->augment && (d->h < 2 || d->w < 2))
        ddl_die("batcher_init: augmentation needs images, %s is %dx%dx%d", d->name, d->c, d->h,
                d->w);
    if (o->normalize && d->c > DDL_DATA_MAXCH)
        ddl_die("batcher_init: %d channels, normalisation supports %d", d->c, DDL_DATA_MAXCH);
    memset(b, 0, sizeof *b);
    b->d = d;
    b->o = *o;
    b->order = ddl_alloc(((size_t)(d->n + o->world - 1) / o->world) * sizeof *b->order);
    b->aug = rng_make2(o->seed, "augment", (uint64_t)o->rank);
    batcher_epoch(b, 0);
}

void batcher_free(Batcher *b)
{
    ddl_free(b->order);
    memset(b, 0, sizeof *b);
}

void batcher_epoch(Batcher *b, int epoch)
{
    int n = b->d->n, W = b->o.world;
    int32_t *perm = ddl_alloc((size_t)n * sizeof *perm);
    for (int i = 0; i < n; i++) perm[i] = i;
    if (b->o.shuffle) {
        Rng r = rng_make2(b->o.seed, "shuffle", (uint64_t)epoch);
        rng_shuffle(&r, perm, n);
    }
    int per_rank = (n + W - 1) / W;
    /* Entry j of the padded list is perm[j % n] (wraps more than once only
     * when W > 2n, which DistributedSampler also allows). */
    for (int k = 0; k < per_rank; k++)
        b->order[k] = perm[((long long)k * W + b->o.rank) % n];
    ddl_free(perm);
    b->count = per_rank;
    b->pos = 0;
    b->epoch = epoch;
}

int batcher_batches(const Batcher *b)
{
    return b->o.drop_last ? b->count / b->o.batch : (b->count + b->o.batch - 1) / b->o.batch;
}

/* Pad-4 random crop then horizontal flip: out[y][x] = src[y+dy-4][x'+dx-4]
 * with x' = w-1-x when flipped, zero outside the image. */
static void augment(Rng *r, const float *src, float *dst, int c, int h, int w)
{
    int dy = (int)rng_below(r, 2 * AUG_PAD + 1) - AUG_PAD;
    int dx = (int)rng_below(r, 2 * AUG_PAD + 1) - AUG_PAD;
    bool flip = rng_below(r, 2) != 0;
    for (int ch = 0; ch < c; ch++) {
        const float *s = src + (size_t)ch * h * w;
        float *o = dst + (size_t)ch * h * w;
        for (int y = 0; y < h; y++) {
            int sy = y + dy;
            for (int x = 0; x < w; x++) {
                int sx = (flip ? w - 1 - x : x) + dx;
                o[y * w + x] = (sy >= 0 && sy < h && sx >= 0 && sx < w) ? s[sy * w + sx] : 0.0f;
            }
        }
    }
}

int batcher_next(Batcher *b, float *x, int32_t *y)
{
    const Dataset *d = b->d;
    int left = b->count - b->pos;
    if (left <= 0 || (b->o.drop_last && left < b->o.batch)) return 0;
    int k = DDL_MIN(b->o.batch, left);
    size_t hw = (size_t)d->h * d->w, dim = (size_t)d->c * hw;
    for (int j = 0; j < k; j++) {
        int idx = b->order[b->pos + j];
        const float *src = d->x + (size_t)idx * dim;
        float *dst = x + (size_t)j * dim;
        if (b->o.augment) augment(&b->aug, src, dst, d->c, d->h, d->w);
        else memcpy(dst, src, dim * sizeof *dst);
        if (b->o.normalize)
            for (int ch = 0; ch < d->c; ch++) {
                /* Divide (not multiply by 1/std) to match torchvision's
                 * Normalize bit for bit. */
                float m = d->mean[ch], s = d->std[ch];
                float *p = dst + ch * hw;
                for (size_t i = 0; i < hw; i++) p[i] = (p[i] - m) / s;
            }
        if (y) y[j] = d->y[idx];
    }
    b->pos += k;
    return k;
}
