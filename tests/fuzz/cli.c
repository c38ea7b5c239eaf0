/* cli.c - fuzz the command-line parser (cli_parse) and the size syntax.
 *
 * The input is an argument vector: its bytes split at every NUL or newline
 * (a final separator ends the last argument, it does not add an empty one).
 * The option table has every option type, with and without a range, and
 * names that share prefixes, as the labs' tables do. */
#include "fuzz.h"

#include <float.h>
#include <math.h>

#include "util/cli.h"

#define MAX_ARGS 256

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char *buf = malloc(size + 1);
    FUZZ_CHECK(buf, "out of memory");
    memcpy(buf, data, size);
    buf[size] = '\0';
    char *argv[MAX_ARGS + 1];
    int argc = 0;
    argv[argc++] = "fuzz";
    for (size_t start = 0, i = 0; i <= size && argc < MAX_ARGS; i++) {
        if (i < size && buf[i] != '\0' && buf[i] != '\n') continue;
        if (i == size && start == size) break; /* nothing after the last separator */
        buf[i] = '\0';
        argv[argc++] = buf + start;
        start = i + 1;
    }
    argv[argc] = NULL;

    int n = 3, ranged = 10;
    float x = 0.5f, frac = 0.25f;
    const char *name = "default", *by = NULL;
    bool flag = false, verbose = false;
    size_t bytes = 4096, bucket = (size_t)1 << 20;
    uint64_t seed = 1;
    const CliOption opts[] = {
        { "n", OPT_INT, &n, "an integer", 0, 0 },
        { "ranged", OPT_INT, &ranged, "an integer in 1..1000", 1, 1000 },
        { "x", OPT_FLOAT, &x, "a number", 0, 0 },
        { "frac", OPT_FLOAT, &frac, "a number in 0..1", 0, 1 },
        { "name", OPT_STR, &name, "a string", 0, 0 },
        { "by", OPT_STR, &by, "a string without a default (prefix of --bytes)", 0, 0 },
        { "flag", OPT_FLAG, &flag, "a flag", 0, 0 },
        { "verbose", OPT_FLAG, &verbose, "another flag", 0, 0 },
        { "bytes", OPT_SIZE, &bytes, "a size", 0, 0 },
        { "bucket", OPT_SIZE, &bucket, "a size in 1k..1G", 1024, (double)(1 << 30) },
        { "seed", OPT_U64, &seed, "a seed", 0, 0 },
    };
    int rc = cli_parse(argc, argv, "fuzz [options]", "cli_parse under libFuzzer", opts,
                       (int)(sizeof opts / sizeof opts[0]));
    FUZZ_CHECK(rc == -1 || rc == 0 || rc == 1, "return value");
    if (rc == 0) {
        /* Ranges hold and strings point into argv (or are the defaults). */
        FUZZ_CHECK(ranged >= 1 && ranged <= 1000, "--ranged in range");
        FUZZ_CHECK(frac >= 0.0f && frac <= 1.0f, "--frac in range");
        FUZZ_CHECK(bucket >= 1024 && bucket <= (size_t)1 << 30, "--bucket in range");
        FUZZ_CHECK(!strcmp(name, "default") || (name >= buf && name <= buf + size), "--name points into argv");
        FUZZ_CHECK(!by || (by >= buf && by <= buf + size), "--by points into argv");
    }
    /* The checked number parser: what it accepts is in range and reads
     * back; what it refuses says why. */
    for (int i = 1; i < argc; i++) {
        char why[CLI_WHY] = "";
        int list[16];
        int n_list = cli_parse_int_list(argv[i], 1, 65536, list, 16, why);
        FUZZ_CHECK(n_list == -1 ? why[0] != '\0' : n_list >= 1 && n_list <= 16, "int list: a count or a reason");
        for (int k = 0; k < n_list; k++) FUZZ_CHECK(list[k] >= 1 && list[k] <= 65536, "int list: in range");
        long long iv;
        why[0] = '\0';
        if (cli_parse_int(argv[i], -1000, 1000, &iv, why) == 0)
            FUZZ_CHECK(iv >= -1000 && iv <= 1000 && strspn(argv[i], "-0123456789") == strlen(argv[i]),
                       "int: in range, decimal digits only");
        else
            FUZZ_CHECK(why[0], "int: a refusal says why");
        double num;
        why[0] = '\0';
        if (cli_parse_float(argv[i], &num, why) == 0)
            FUZZ_CHECK(isfinite(num) && fabs(num) <= FLT_MAX, "float: finite");
        else
            FUZZ_CHECK(why[0], "float: a refusal says why");
    }
    /* The size syntax: whatever parses formats back to the same bytes. */
    for (int i = 1; i < argc; i++) {
        const char *v = strchr(argv[i], '=');
        size_t s = 0, back = 0;
        if (cli_parse_size(v ? v + 1 : argv[i], &s) != 0) continue;
        char text[32];
        cli_format_size(s, text, sizeof text);
        FUZZ_CHECK(cli_parse_size(text, &back) == 0 && back == s, "cli_format_size reads back");
    }
    free(buf);
    return 0;
}
