/* test_cli_size.c - OPT_SIZE, the byte-count option type of core/util/cli.c:
 * k/K, M and G suffixes are x1024 (as nccl-tests reads -b/-e), everything
 * else is refused with a message naming the flag, and the range check
 * applies to the bytes (lab2's --min-bytes/--max-bytes/--sizes use it). */
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "util/cli.h"
#include "harness.h"

/* cli_parse on argv with stderr silenced. */
static int parse(int argc, char **argv, const CliOption *o, int n)
{
    fflush(stderr);
    int saved = dup(2);
    FILE *null = fopen("/dev/null", "w");
    if (null) dup2(fileno(null), 2);
    int rc = cli_parse(argc, argv, "test", NULL, o, n);
    fflush(stderr);
    dup2(saved, 2);
    close(saved);
    if (null) fclose(null);
    return rc;
}

int main(void)
{
    static const struct { const char *s; size_t bytes; } good[] = {
        { "0", 0 }, { "4", 4 }, { "1000", 1000 }, { "64k", 65536 }, { "64K", 65536 },
        { "1M", 1048576 }, { "3M", 3u << 20 }, { "1G", (size_t)1 << 30 },
    };
    for (size_t i = 0; i < sizeof good / sizeof good[0]; i++) {
        size_t b = 12345;
        char name[96];
        snprintf(name, sizeof name, "size '%s' is %zu bytes", good[i].s, good[i].bytes);
        t_checkf(cli_parse_size(good[i].s, &b) == 0 && b == good[i].bytes, name, "got %zu", b);
    }
    static const char *const bad[] = { "", "k", "-4", "+4", " 4", "4 ", "64x", "64kb", "64KiB", "1m", "1.5M",
                                       "4kk", "0x10", "99999999999999999999", "18014398509481984G" };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        size_t b = 7;
        char name[96];
        snprintf(name, sizeof name, "size '%s' is refused", bad[i]);
        t_checkf(cli_parse_size(bad[i], &b) == -1 && b == 7, name, "accepted as %zu", b);
    }
    char out[32];
    cli_format_size((size_t)64 << 20, out, sizeof out);
    t_checkf(!strcmp(out, "64M"), "64 MiB is written 64M", "got %s", out);
    cli_format_size(1000, out, sizeof out);
    t_checkf(!strcmp(out, "1000"), "1000 bytes are written 1000", "got %s", out);
    cli_format_size(3072, out, sizeof out);
    t_checkf(!strcmp(out, "3k"), "3072 bytes are written 3k", "got %s", out);

    size_t max = 4;
    CliOption opts[] = { { "max-bytes", OPT_SIZE, &max, "largest", 4, 1 << 30 } };
    char *ok_argv[] = { "t", "--max-bytes", "64k" };
    t_checkf(parse(3, ok_argv, opts, 1) == 0 && max == 65536, "--max-bytes 64k sets 65536 bytes", "got %zu", max);
    char *eq_argv[] = { "t", "--max-bytes=2M" };
    t_checkf(parse(2, eq_argv, opts, 1) == 0 && max == ((size_t)2 << 20), "--max-bytes=2M sets 2 MiB", "got %zu", max);
    char *junk_argv[] = { "t", "--max-bytes", "64q" };
    t_check(parse(3, junk_argv, opts, 1) == -1, "--max-bytes 64q is refused");
    char *big_argv[] = { "t", "--max-bytes", "2G" };
    t_check(parse(3, big_argv, opts, 1) == -1, "--max-bytes 2G is outside 4..1G and refused");
    char *small_argv[] = { "t", "--max-bytes", "2" };
    t_check(parse(3, small_argv, opts, 1) == -1, "--max-bytes 2 is below 4 and refused");
    return t_done();
}
