/* cli.h - table-driven command-line options shared by every ddlab program,
 * so all of them answer --help the same way and reject bad flags with a
 * message naming the flag and the expected value. */
#ifndef DDL_CLI_H
#define DDL_CLI_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* OPT_SIZE: a byte count, "N" or "N" with a suffix k/K, M or G meaning
 * x1024, x1024^2, x1024^3 (binary, as nccl-tests' -b/-e read them), into a
 * size_t; anything else is refused with a message naming the flag. */
typedef enum { OPT_INT, OPT_FLOAT, OPT_STR, OPT_FLAG, OPT_U64, OPT_SIZE } OptType;

typedef struct CliOption {
    const char *name;  /* without dashes: "batch" for --batch */
    OptType type;
    void *target;      /* int*, float*, const char**, bool*, uint64_t*, size_t* */
    const char *help;
    double min, max;   /* numeric range checked when min < max */
} CliOption;

/* Parse argv. Returns 0 when the program should run, 1 when --help was
 * printed (exit 0), -1 after printing an error and the usage (exit 2). */
int cli_parse(int argc, char **argv, const char *usage_line, const char *description, const CliOption *opts,
              int nopts);
/* A size as OPT_SIZE reads it ("64", "64k", "1M", "2G"): 0 with *bytes
 * set, -1 when s is not one (for lists of sizes, e.g. lab2's --sizes). */
int cli_parse_size(const char *s, size_t *bytes);
/* The one checked number parser: every number a command line gives (an
 * option's value, each number of a list such as lab2's --hidden 16,64)
 * goes through these, so "1e3", "16abc", "4294967312" for an int, " 5",
 * "" and "," are refused alike instead of read as 1, 16, 16 or 0.
 * Integers: decimal digits only, a leading '-' where min < 0, nothing
 * before or after, within [min, max]. 0 with *out set, or -1 with why
 * ("'16abc' is not a whole number", "4294967312 is outside 1..65536"). */
#define CLI_WHY 160
int cli_parse_int(const char *s, long long min, long long max, long long *out, char why[CLI_WHY]);
/* 0..2^64-1 (seeds). */
int cli_parse_u64(const char *s, uint64_t *out, char why[CLI_WHY]);
/* A finite number that a float holds ("0.05", "1e-3"; not "inf", "nan",
 * "0x1p3", " 1", "1e39"). */
int cli_parse_float(const char *s, double *out, char why[CLI_WHY]);
/* A comma list of integers in [min, max] ("16,64,256") into out: how many
 * (1..cap), or -1 with why (an empty list or entry, a bad number, more
 * than cap). */
int cli_parse_int_list(const char *list, long long min, long long max, int *out, int cap, char why[CLI_WHY]);
/* "64M", "4k", "1000": bytes written the way cli_parse_size reads them
 * (the largest suffix that divides exactly). */
void cli_format_size(size_t bytes, char *out, size_t cap);

#endif
