/* options.c - the options every program shares: defaults, the CLI
 * fragment a program's own options join, and the checks of their values
 * (driver.h). A bad value is refused here, before any work starts, with
 * the flag and what it accepts: a run that silently used "off" for
 * "--augment maybe", or wrote "-summary.csv" for an empty tag, measures
 * something nobody asked for. */
#include "options.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "../backend/registry.h"
#include "../util/common.h"

uint64_t driver_data_seed(const DriverOptions *o)
{
    return o->data_seed ? o->data_seed : 1;
}

void driver_environment(DriverOptions *o, const DriverEnv *env)
{
    if (!o->device) o->device = env->device ? env->device : "cpu";
    if (!o->profile) o->profile = env->profile ? env->profile : "custom";
}

/* "a|b|c" -> "a, b or c" (for messages). */
static void spoken(const char *choices, char *out, size_t cap)
{
    size_t n = 0, bars = 0;
    for (const char *p = choices; *p; p++) bars += *p == '|';
    out[0] = '\0';
    for (const char *p = choices; *p && n + 5 < cap; p++) {
        if (*p != '|') {
            out[n++] = *p;
        } else {
            const char *sep = --bars ? ", " : " or ";
            for (const char *q = sep; *q && n + 1 < cap; q++) out[n++] = *q;
        }
    }
    out[n] = '\0';
}

int driver_choice(const char *flag, const char *value, const char *choices)
{
    size_t len = value ? strlen(value) : 0;
    int index = 0;
    for (const char *p = choices; value; index++) {
        const char *end = strchr(p, '|');
        size_t n = end ? (size_t)(end - p) : strlen(p);
        if (n == len && !strncmp(p, value, n)) return index;
        if (!end) break;
        p = end + 1;
    }
    char list[256];
    spoken(choices, list, sizeof list);
    ddl_error("unknown --%s '%s': %s", flag, value ? value : "", list);
    return -1;
}

int driver_choice_list(const char *flag, const char *value, const char *choices)
{
    char buf[256], *save = NULL;
    ddl_strlcpy(buf, value ? value : "", sizeof buf);
    int n = 0;
    for (char *tok = strtok_r(buf, ",", &save); tok; tok = strtok_r(NULL, ",", &save), n++)
        if (driver_choice(flag, tok, choices) < 0) return -1;
    return n > 0 ? 0 : driver_choice(flag, "", choices);
}

/* A run's name becomes part of file names: letters, digits and . _ + = -,
 * not starting with . or - (hidden files, options), 1..100 of them. */
static int check_tag(const char *flag, const char *tag)
{
    size_t n = strlen(tag);
    bool ok = n > 0 && n <= 100 && tag[0] != '.' && tag[0] != '-';
    for (size_t i = 0; ok && i < n; i++) {
        char c = tag[i];
        ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || strchr("._+=-", c);
    }
    if (ok) return 0;
    ddl_error("--%s '%s': a run's name goes into file names: 1-100 letters, digits and . _ + = -, not starting "
              "with . or -", flag, tag);
    return -1;
}

/* --dataset against the program's list ("synthetic-" prefixes allowed). */
static int check_dataset(const DriverSpec *spec, const char *name)
{
    const char *base = name && !strncmp(name, "synthetic-", 10) ? name + 10 : name;
    size_t len = base ? strlen(base) : 0;
    for (const char *p = spec->datasets; base && p && *p;) {
        const char *end = strchr(p, '|');
        size_t n = end ? (size_t)(end - p) : strlen(p);
        if (n == len && !strncmp(p, base, n)) return 0;
        if (!end) break;
        p = end + 1;
    }
    char list[256];
    spoken(spec->datasets, list, sizeof list);
    ddl_error("--dataset '%s': %s runs on %s", name ? name : "", spec->program, list);
    return -1;
}

int driver_check_values(Driver *d)
{
    const DriverOptions *o = d->opt;
    const DriverSpec *spec = d->spec;
    if (driver_choice("profile", o->profile, "quick|paper|smoke|custom") < 0) return -1;
    if (o->tag && check_tag("tag", o->tag) != 0) return -1;
    if ((spec->shared & DRV_DATASET) && check_dataset(spec, o->dataset) != 0) return -1;
    if ((spec->shared & DRV_DEVICE) && driver_choice("device", o->device, "cpu|cuda|cuda-emu") < 0) return -1;
    if (o->conv && (driver_choice("conv", o->conv, conv_algo_choices()) < 0 ||
                    conv_algo_parse(o->conv, &d->conv_algo) != 0))
        return -1;
    if (o->checkpoint && !*o->checkpoint) {
        ddl_error("--checkpoint is empty: give the directory the checkpoints go to");
        return -1;
    }
    if (o->resume && !*o->resume) {
        ddl_error("--resume is empty: give the directory of the checkpoint to continue from");
        return -1;
    }
    /* Room for a scope and the rank files' names after the directory (a
     * longer one was cut, and the files went somewhere else). */
    const char *root = d->env.checkpoint_root;
    const char *const paths[][2] = { { "checkpoint", o->checkpoint }, { "resume", o->resume },
                                     { "checkpoint (DDL_CHECKPOINT_ROOT)", root } };
    for (int i = 0; i < 3; i++)
        if ((spec->shared & DRV_CHECKPOINT) && paths[i][1] && strlen(paths[i][1]) > DRIVER_CKPT_PATH_MAX) {
            ddl_error("--%s: the path has %zu characters, more than the %d a checkpoint directory may have",
                      paths[i][0], strlen(paths[i][1]), DRIVER_CKPT_PATH_MAX);
            return -1;
        }
    if (o->checkpoint_every > 0 && !o->checkpoint && !(root && *root)) {
        ddl_error("--checkpoint-every %d: without --checkpoint DIR (or $DDL_CHECKPOINT_ROOT) no checkpoint is "
                  "written; give the directory too", o->checkpoint_every);
        return -1;
    }
    if ((spec->shared & DRV_OUT) && (!o->out || !*o->out)) {
        ddl_error("--out is empty: give the directory the results go to");
        return -1;
    }
    return 0;
}

/* --conv's help: the values (conv.c's table names the forced ones), and
 * whether this build can run cuDNN (only its CUDA backend can, when the
 * build found cuDNN). */
static void conv_help(char *out, size_t cap)
{
    const Backend *cuda = backend_named("cuda");
    char has[160], forced[160] = "";
    const char *cudnn = cuda ? conv_cudnn_version(cuda->conv) : NULL;
    if (cudnn)
        snprintf(has, sizeof has, "this build has %s", cudnn);
    else
        snprintf(has, sizeof has, "this build has none%s", cuda ? "" : ", nor CUDA");
    size_t n = 0;
    for (ConvAlgo a = CONV_ALGO_REFERENCE + 1; a < conv_algo_count() && n < sizeof forced; a++)
        if (strcmp(conv_algo_name(a), "cudnn"))
            n += (size_t)snprintf(forced + n, sizeof forced - n, "%s%s", n ? " | " : "", conv_algo_name(a));
    snprintf(out, cap,
             "how convolutions run: auto (the fast path measured for each layer's shape) | reference (every one by "
             "im2col + GEMM, no fused activation: the code the handouts describe) | %s (that path wherever it can "
             "run) | cudnn (cuDNN's own algorithms, only on --device cuda in a build with cuDNN: %s) "
             "(core/conv/README.md)",
             forced, has);
}

/* The shared entries of the command line, in the order --help lists them. */
int driver_cli_fragment(Driver *d, CliOption *out)
{
    DriverOptions *o = d->opt;
    const DriverSpec *spec = d->spec;
    o->data_seed = driver_data_seed(o); /* the default, as --help shows it */
    snprintf(d->opt_help[0], sizeof d->opt_help[0], "the model: %s", model_names());
    char list[120];
    spoken(spec->datasets ? spec->datasets : "", list, sizeof list);
    snprintf(d->opt_help[1], sizeof d->opt_help[1], "the data: %s", list);
    snprintf(d->opt_help[2], sizeof d->opt_help[2], "name part of the output files (default %s)",
             spec->tag_default ? spec->tag_default : "the program's");
    if (spec->shared & DRV_CONV) conv_help(d->conv_help, sizeof d->conv_help);
    const CliOption all[] = {
        { "model", OPT_STR, &o->model, d->opt_help[0], 0, 0 },
        { "dataset", OPT_STR, &o->dataset, d->opt_help[1], 0, 0 },
        { "width", OPT_FLOAT, &o->width, spec->width_help ? spec->width_help : "channel width multiplier (1 = as "
          "published)", spec->width_help ? spec->width_min : 0.001, 16 },
        { "limit", OPT_INT, &o->limit, "use only the first N training examples (0: all)", 0, 100000000 },
        { "test-limit", OPT_INT, &o->test_limit, "use only the first N test examples (0: all)", 0, 100000000 },
        { "batch", OPT_INT, &o->batch, spec->batch_help ? spec->batch_help : "examples per step on each rank",
          spec->batch_min, 65536 },
        { "lr", OPT_FLOAT, &o->lr, "SGD learning rate", 0, 100 },
        { "momentum", OPT_FLOAT, &o->momentum, "SGD momentum", 0, 0.9999 },
        { "wd", OPT_FLOAT, &o->wd, "SGD weight decay", 0, 1 },
        { "seed", OPT_U64, &o->seed, "seed for initialisation, shuffling, augmentation", 0, 0 },
        { "data-seed", OPT_U64, &o->data_seed, "seed of the synthetic data and of SDSS's train/test split: "
          "repeats that vary --seed keep one dataset", 0, 0 },
        { "device", OPT_STR, &o->device,
          "cpu | cuda | cuda-emu (one rank per GPU; cuda-emu: the CUDA kernels run on the CPU; $DDL_DEVICE sets it)", 0, 0 },
        { "profile", OPT_STR, &o->profile, "label written to outputs: quick | paper | smoke | custom ($DDL_PROFILE "
                                           "sets it)", 0, 0 },
        { "synthetic", OPT_FLAG, &o->synthetic, "use synthetic data even when real files exist", 0, 0 },
        { "out", OPT_STR, &o->out, "directory for CSV/JSON results", 0, 0 },
        { "tag", OPT_STR, &o->tag, d->opt_help[2], 0, 0 },
        { "quiet", OPT_FLAG, &o->quiet, "no progress output", 0, 0 },
        { "tex", OPT_STR, &o->tex, "table job: path of the LaTeX table", 0, 0 },
        { "checkpoint", OPT_STR, &o->checkpoint, "write checkpoints into DIR (one file per rank), to continue a "
                                                 "killed run with --resume", 0, 0 },
        { "checkpoint-every", OPT_INT, &o->checkpoint_every, "checkpoint every N iterations (rounds); 0: each "
                                                             "epoch", 0, 1000000000 },
        { "resume", OPT_STR, &o->resume, "continue the run checkpointed in DIR (same settings) to --iters/--epochs",
          0, 0 },
        { "conv", OPT_STR, &o->conv, d->conv_help, 0, 0 },
    };
    static const unsigned bit[] = { DRV_MODEL, DRV_DATASET, DRV_WIDTH, DRV_LIMITS, DRV_LIMITS, DRV_BATCH, DRV_LR,
                                    DRV_MOMENTUM, DRV_WD, DRV_SEED, DRV_SEED, DRV_DEVICE, DRV_PROFILE, DRV_SYNTHETIC, DRV_OUT,
                                    DRV_TAG, DRV_QUIET, DRV_TEX, DRV_CHECKPOINT, DRV_CHECKPOINT, DRV_CHECKPOINT,
                                    DRV_CONV };
    int n = 0;
    for (size_t i = 0; i < sizeof all / sizeof all[0]; i++)
        if (spec->shared & bit[i]) out[n++] = all[i];
    return n;
}

void driver_option_value(const CliOption *o, char *out, size_t cap)
{
    if (!out || cap == 0) return; /* (and GCC's sanitizer build sees out is not NULL) */
    switch (o->type) {
    case OPT_INT: snprintf(out, cap, "%d", *(const int *)o->target); break;
    case OPT_FLOAT: { /* the shortest text that reads back as the same float: "0.05" */
        float v = *(const float *)o->target;
        for (int digits = 6; digits <= 9; digits++) {
            snprintf(out, cap, "%.*g", digits, (double)v);
            if (strtof(out, NULL) == v) break;
        }
        break;
    }
    case OPT_STR: snprintf(out, cap, "%s", *(const char *const *)o->target ? *(const char *const *)o->target : "");
        break;
    case OPT_FLAG: snprintf(out, cap, "%s", *(const bool *)o->target ? "yes" : "no"); break;
    case OPT_U64: snprintf(out, cap, "%llu", (unsigned long long)*(const uint64_t *)o->target); break;
    case OPT_SIZE: snprintf(out, cap, "%zu", *(const size_t *)o->target); break;
    }
}
