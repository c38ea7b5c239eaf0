/* test_buckets.c - DDP bucket assignment (core/sync/buckets.c).
 *
 * 1. Against PyTorch: tests/fixtures/buckets.txt holds the buckets PyTorch
 *    1.13's DDP makes (its own _compute_bucket_assignment_by_size on
 *    reversed(model.parameters())) for vgg11 and resnet18 at width 1 and
 *    several caps; ddlab's buckets must hold the same tensors in the same
 *    order (tests/gen_bucket_fixtures.py regenerates the file).
 * 2. The rule itself, for every cap tried: buckets are contiguous slices in
 *    reverse arena order that cover every gradient element exactly once;
 *    each bucket but the last closed as soon as it reached its cap (without
 *    its last tensor it was below the cap); cap 0 gives one bucket per
 *    layer with parameters. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harness.h"
#include "model/model.h"
#include "sync/sync.h"

#define MAXB 512
#define MAXP 1024

static int build(Model *m, const char *name)
{
    char err[256];
    ModelConfig cfg = model_config_default(name, (Shape){ 3, 32, 32 }, 10);
    if (model_build(m, name, &cfg, 1, 1, err) != 0) {
        t_checkf(false, "build", "%s: %s", name, err);
        return -1;
    }
    return 0;
}

/* Names of the tensors of bucket b, in the order DDP adds them (reverse). */
static void bucket_names(const ParamInfo *p, int np, const Bucket *b, char *out, size_t cap)
{
    out[0] = 0;
    size_t len = 0;
    for (int j = np - 1; j >= 0; j--) {
        if (p[j].off < b->off || p[j].off + p[j].count > b->off + b->count) continue;
        int w = snprintf(out + len, cap - len, "%s%s", len ? " " : "", p[j].name);
        if (w < 0 || (size_t)w >= cap - len) return;
        len += (size_t)w;
    }
}

static void check_rule(Model *m, const char *name, size_t first, size_t cap)
{
    static Bucket b[MAXB];
    static ParamInfo p[MAXP];
    int np = model_param_list(m, p, MAXP);
    int nb = sync_assign_buckets(m, first, cap, b, MAXB);
    bool ok = nb > 0 && nb <= MAXB;
    size_t expect_hi = m->nparams, covered = 0;
    for (int i = 0; ok && i < nb; i++) {
        ok = b[i].off + b[i].count == expect_hi && b[i].count > 0; /* contiguous, descending */
        expect_hi = b[i].off;
        covered += b[i].count;
        size_t limit = i == 0 ? first : cap;
        /* the tensor added last is the one at the bucket's low end */
        size_t last_tensor = 0;
        for (int j = 0; j < np; j++)
            if (p[j].off == b[i].off) last_tensor = p[j].count;
        if (ok && cap > 0 && i < nb - 1)
            ok = b[i].count * 4 >= limit && (b[i].count - last_tensor) * 4 < limit;
        if (ok && cap == 0) ok = b[i].first_layer == b[i].last_layer;
    }
    ok = ok && expect_hi == 0 && covered == m->nparams;
    if (cap == 0) {
        int with_params = 0;
        for (int l = 0; l < m->nlayers; l++) with_params += m->layers[l].param_count > 0;
        ok = ok && nb == with_params;
    }
    t_check(ok, "buckets %s first %zu cap %zu: %d contiguous buckets in reverse order cover all %zu elements once, "
                "each closed at its cap",
            name, first, cap, nb, m->nparams);
}

static void check_against_torch(void)
{
    const char *path = t_fixture("buckets.txt");
    FILE *f = fopen(path, "r");
    if (!f) {
        t_checkf(false, "buckets fixture", "cannot open %s", path);
        return;
    }
    static char line[1 << 16], mine[1 << 16];
    static Bucket b[MAXB];
    static ParamInfo p[MAXP];
    Model m;
    char current[32] = "";
    bool have_model = false;
    int configs = 0;
    while (fgets(line, sizeof line, f)) {
        if (strncmp(line, "config ", 7) != 0) continue;
        char name[32];
        size_t first, cap;
        int nb_torch;
        if (sscanf(line, "config %31s %zu %zu %d", name, &first, &cap, &nb_torch) != 4) break;
        if (strcmp(name, current) != 0) {
            if (have_model) model_free(&m);
            have_model = build(&m, name) == 0;
            ddl_strlcpy(current, name, sizeof current);
        }
        if (!have_model) break;
        int np = model_param_list(&m, p, MAXP);
        int nb = sync_assign_buckets(&m, first, cap, b, MAXB);
        bool same = nb == nb_torch;
        int bad = -1;
        for (int i = 0; i < nb_torch; i++) {
            if (!fgets(line, sizeof line, f) || strncmp(line, "bucket ", 7) != 0) {
                same = false;
                break;
            }
            line[strcspn(line, "\n")] = 0;
            if (i >= nb) continue;
            bucket_names(p, np, &b[i], mine, sizeof mine);
            if (strcmp(mine, line + 7) != 0 && bad < 0) bad = i;
        }
        same = same && bad < 0;
        char what[160];
        snprintf(what, sizeof what, "buckets %s first %zu cap %zu: the %d buckets of PyTorch DDP, same tensors in the "
                                    "same order", name, first, cap, nb_torch);
        t_checkf(same, what, "ddlab makes %d buckets, first differing: %d", nb, bad);
        configs++;
    }
    if (have_model) model_free(&m);
    fclose(f);
    t_check(configs >= 10, "buckets fixture: %d configurations compared", configs);
}

int main(void)
{
    check_against_torch();
    const char *models[] = { "vgg11", "resnet18", "cnn3", "mlp" };
    const size_t MiB = (size_t)1 << 20;
    const size_t caps[][2] = { { MiB, 25 * MiB }, { MiB, 0 }, { MiB, MiB }, { 4096, 4096 }, { 1, 1 }, { MiB, 100 * MiB } };
    for (size_t i = 0; i < sizeof models / sizeof *models; i++) {
        Model m;
        if (build(&m, models[i]) != 0) continue;
        for (size_t k = 0; k < sizeof caps / sizeof *caps; k++) check_rule(&m, models[i], caps[k][0], caps[k][1]);
        model_free(&m);
    }
    return t_done();
}
