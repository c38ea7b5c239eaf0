/* test_cli_numbers.c - the one checked number parser (core/util/cli.c): what a
 * command line's numbers may be, and every refusal with its reason.
 * "1e3" once trained a width of 1, "4294967312" one of 16 and "16abc" one
 * of 16; a seed above 2^63-1 was refused though valid; "--out --synthetic"
 * made a folder named --synthetic. */
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "util/cli.h"
#include "harness.h"

/* cli_parse on argv with stderr captured into msg. */
static int parse(int argc, char **argv, const CliOption *o, int n, char *msg, size_t cap)
{
    fflush(stderr);
    int saved = dup(2);
    FILE *tmp = tmpfile();
    if (tmp) dup2(fileno(tmp), 2);
    int rc = cli_parse(argc, argv, "test", NULL, o, n);
    fflush(stderr);
    dup2(saved, 2);
    close(saved);
    msg[0] = '\0';
    if (tmp) {
        rewind(tmp);
        size_t got = fread(msg, 1, cap - 1, tmp);
        msg[got] = '\0';
        fclose(tmp);
    }
    return rc;
}

static void test_ints(void)
{
    static const struct { const char *s; long long min, max, want; } good[] = {
        { "0", 0, 10, 0 }, { "16", 1, 65536, 16 }, { "-5", -10, 10, -5 }, { "007", 0, 10, 7 },
        { "2147483647", INT32_MIN, INT32_MAX, INT32_MAX },
    };
    for (size_t i = 0; i < sizeof good / sizeof good[0]; i++) {
        long long x = -1;
        char why[CLI_WHY] = "", name[96];
        snprintf(name, sizeof name, "int '%s' reads as %lld", good[i].s, good[i].want);
        t_checkf(cli_parse_int(good[i].s, good[i].min, good[i].max, &x, why) == 0 && x == good[i].want, name,
                 "got %lld: %s", x, why);
    }
    static const struct { const char *s, *why; } bad[] = {
        { "1e3", "not a whole number" }, { "16abc", "not a whole number" }, { "", "not a whole number" },
        { " 5", "not a whole number" }, { "5 ", "not a whole number" }, { "+5", "not a whole number" },
        { "-5", "not a whole number" }, { "0x10", "not a whole number" }, { "1.0", "not a whole number" },
        { "4294967312", "outside 1..65536" }, { "65537", "outside 1..65536" }, { "0", "outside 1..65536" },
        { "99999999999999999999999", "outside 1..65536" },
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        long long x = 12345;
        char why[CLI_WHY] = "", name[96];
        snprintf(name, sizeof name, "int '%s' in 1..65536 is refused: %s", bad[i].s, bad[i].why);
        t_checkf(cli_parse_int(bad[i].s, 1, 65536, &x, why) == -1 && x == 12345 && strstr(why, bad[i].why), name,
                 "got %lld, why '%s'", x, why);
    }
}

static void test_u64_float(void)
{
    uint64_t u = 0;
    char why[CLI_WHY] = "";
    t_checkf(cli_parse_u64("18446744073709551615", &u, why) == 0 && u == UINT64_MAX,
             "u64: 2^64-1 (a seed above 2^63-1) is accepted", "%s", why);
    t_checkf(cli_parse_u64("9223372036854775808", &u, why) == 0 && u == (uint64_t)1 << 63, "u64: 2^63 is accepted",
             "%s", why);
    static const char *const bad_u[] = { "18446744073709551616", "-1", "1e3", "", "12x" };
    for (size_t i = 0; i < sizeof bad_u / sizeof bad_u[0]; i++) {
        char name[96];
        snprintf(name, sizeof name, "u64 '%s' is refused with a reason", bad_u[i]);
        why[0] = '\0';
        t_checkf(cli_parse_u64(bad_u[i], &u, why) == -1 && why[0], name, "accepted as %llu",
                 (unsigned long long)u);
    }
    double x = 0;
    t_checkf(cli_parse_float("0.05", &x, why) == 0 && x == 0.05 && cli_parse_float("1e-3", &x, why) == 0 &&
                 x == 1e-3 && cli_parse_float("-2", &x, why) == 0 && x == -2,
             "float: 0.05, 1e-3 and -2 read", "%s", why);
    static const char *const bad_f[] = { "nan", "inf", "-inf", "0x1p3", " 1", "1 ", "1e39", "1e", ".", "", "1,5",
                                         "1e-50", "-1e-40" };
    for (size_t i = 0; i < sizeof bad_f / sizeof bad_f[0]; i++) {
        char name[96];
        snprintf(name, sizeof name, "float '%s' is refused with a reason", bad_f[i]);
        why[0] = '\0';
        t_checkf(cli_parse_float(bad_f[i], &x, why) == -1 && why[0], name, "accepted as %g", x);
    }
}

static void test_lists(void)
{
    int h[4] = { 0 };
    char why[CLI_WHY] = "";
    int n = cli_parse_int_list("16,64,256", 1, 65536, h, 4, why);
    t_checkf(n == 3 && h[0] == 16 && h[1] == 64 && h[2] == 256, "list '16,64,256' reads as 3 widths", "n %d: %s",
             n, why);
    static const struct { const char *s, *why; } bad[] = {
        { ",", "empty" }, { "", "empty" }, { "16,", "empty" }, { ",16", "empty" }, { "16,,64", "empty" },
        { "16,1e3", "'1e3' is not a whole number" }, { "4294967312", "outside 1..65536" },
        { "1,2,3,4,5", "more than 4" },
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        char name[96];
        why[0] = '\0';
        snprintf(name, sizeof name, "list '%s' is refused: %s", bad[i].s, bad[i].why);
        n = cli_parse_int_list(bad[i].s, 1, 65536, h, 4, why);
        t_checkf(n == -1 && strstr(why, bad[i].why), name, "n %d, why '%s'", n, why);
    }
}

static void test_options(void)
{
    int hidden = 1, reps = 0;
    uint64_t seed = 1;
    const char *out = "results";
    bool synthetic = false;
    float lr = 0.1f;
    CliOption o[] = {
        { "hidden", OPT_INT, &hidden, "a width", 1, 65536 },
        { "reps", OPT_INT, &reps, "timed calls", 0, 1000 },
        { "seed", OPT_U64, &seed, "seed", 0, 0 },
        { "out", OPT_STR, &out, "dir", 0, 0 },
        { "synthetic", OPT_FLAG, &synthetic, "flag", 0, 0 },
        { "lr", OPT_FLOAT, &lr, "rate", 0, 100 },
    };
    char msg[512];
    static const struct { const char *flag, *value, *says; } bad[] = {
        { "--hidden", "1e3", "'1e3' is not a whole number" },
        { "--hidden", "4294967312", "outside" },
        { "--hidden", "16abc", "'16abc' is not a whole number" },
        { "--reps", "5000", "5000 is outside the allowed range 0..1000" },
        { "--seed", "18446744073709551616", "outside 0..18446744073709551615" },
        { "--lr", "nan", "'nan' is not a number" },
        { "--out", "--synthetic", "needs a value, but the next argument is the option '--synthetic'" },
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        char *argv[] = { "t", (char *)bad[i].flag, (char *)bad[i].value };
        char name[128];
        snprintf(name, sizeof name, "%s %s is refused, saying why", bad[i].flag, bad[i].value);
        int rc = parse(3, argv, o, 6, msg, sizeof msg);
        t_checkf(rc == -1 && strstr(msg, bad[i].says), name, "rc %d: %s", rc, msg);
    }
    t_checkf(!synthetic && !strcmp(out, "results"), "a refused --out --synthetic sets neither", "out '%s'", out);
    char *eq[] = { "t", "--out=--odd", "--seed", "18446744073709551615" };
    int rc = parse(4, eq, o, 6, msg, sizeof msg);
    t_checkf(rc == 0 && !strcmp(out, "--odd") && seed == UINT64_MAX,
             "--out=--odd takes the value; --seed 2^64-1 is accepted", "rc %d out '%s': %s", rc, out, msg);
}

int main(void)
{
    test_ints();
    test_u64_float();
    test_lists();
    test_options();
    return t_done();
}
