/* zoo.c - model names -> builders, and default configurations. */
#include <stdio.h>
#include <string.h>
#include "models.h"

/* Each model with the input and class count it was built for (its home
 * dataset), which model_config_default fills in when asked. */
static const struct {
    const char *name;
    int (*build)(Model *, const ModelConfig *, char *);
    Shape input;
    int classes;
} ZOO[] = {
    { "mlp", build_mlp, { 1, 28, 28 }, 10 },
    { "cnn3", build_cnn3, { 1, 28, 28 }, 10 },
    { "vgg11", build_vgg11, { 3, 32, 32 }, 10 },
    { "resnet18", build_resnet18, { 3, 32, 32 }, 10 },
    { "resnet50", build_resnet50, { 1, 28, 28 }, 10 },
    { "mobilenetv2", build_mobilenetv2, { 1, 28, 28 }, 10 },
    { "sdss_dnn", build_sdss_dnn, { 10, 1, 1 }, 3 },
};

const char *model_names(void) { return "mlp, cnn3, vgg11, resnet18, resnet50, mobilenetv2, sdss_dnn"; }

ModelConfig model_config_default(const char *name, Shape input, int classes)
{
    ModelConfig c;
    memset(&c, 0, sizeof c);
    c.input = input;
    c.classes = classes;
    for (size_t i = 0; name && i < sizeof ZOO / sizeof ZOO[0]; i++)
        if (strcmp(name, ZOO[i].name) == 0) {
            if (input.c <= 0) c.input = ZOO[i].input;
            if (classes <= 0) c.classes = ZOO[i].classes;
        }
    c.width = 1.0f;
    c.bn_track_stats = true;
    c.dropout = -1.0f;
    if (name && (strcmp(name, "mlp") == 0 || strcmp(name, "sdss_dnn") == 0)) { c.hidden[0] = 128; c.hidden[1] = 64; }
    return c;
}

int scaled_width(int channels, float width)
{
    int c = (int)(channels * width + 0.5f);
    return c < 1 ? 1 : c;
}

/* The zoo's checks and its layers for `name`: 0, or -1 with a message
 * (nothing left to free). */
static int build_layers(Model *m, const char *name, const ModelConfig *cfg, char err[256])
{
    if (cfg->classes < 2) {
        snprintf(err, 256, "model %s: need at least 2 classes (got %d)", name, cfg->classes);
        return -1;
    }
    if (!(cfg->width > 0.0f) || cfg->width > 16.0f) {
        snprintf(err, 256, "model %s: width multiplier %g outside (0, 16]", name, (double)cfg->width);
        return -1;
    }
    for (size_t i = 0; i < sizeof ZOO / sizeof ZOO[0]; i++) {
        if (strcmp(name, ZOO[i].name) != 0) continue;
        model_begin(m, name, cfg->input);
        if (cfg->backend) m->be = cfg->backend;
        m->bn_track_stats = cfg->bn_track_stats;
        m->conv_algo = cfg->conv;
        m->fuse_act = cfg->conv != CONV_ALGO_REFERENCE; /* the reference: each layer as the handouts show it */
        if (ZOO[i].build(m, cfg, err) != 0) {
            model_free(m);
            return -1;
        }
        return 0;
    }
    snprintf(err, 256, "unknown model '%s' (known: %s)", name, model_names());
    return -1;
}

int model_build(Model *m, const char *name, const ModelConfig *cfg, int max_batch, uint64_t seed, char err[256])
{
    if (build_layers(m, name, cfg, err) != 0) return -1;
    model_finalize(m, max_batch, seed);
    return 0;
}

int model_size(const char *name, const ModelConfig *cfg, int max_batch, ModelSize *out, char err[256])
{
    Model m;
    if (build_layers(&m, name, cfg, err) != 0) return -1;
    model_layout_size(&m, max_batch, out);
    model_free(&m); /* no arena was allocated: only the layer and tensor lists */
    return 0;
}

int mb_conv_bn(Model *m, const char *prefix, const char *conv, const char *bn, int x, int cout, int k, int stride,
               bool relu)
{
    char name[64];
    snprintf(name, sizeof name, "%s%s%s", prefix ? prefix : "", prefix ? "." : "", conv);
    int t = mb_conv2d(m, name, x, cout, k, stride, (k - 1) / 2, 1, false);
    snprintf(name, sizeof name, "%s%s%s", prefix ? prefix : "", prefix ? "." : "", bn);
    t = mb_batchnorm(m, name, t);
    return relu ? mb_relu(m, t) : t;
}
