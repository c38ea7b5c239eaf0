/* cli.h - table-driven command-line options shared by every ddlab program,
 * so all of them answer --help the same way and reject bad flags with a
 * message naming the flag and the expected value. */
#ifndef DDL_CLI_H
#define DDL_CLI_H

#include <stdbool.h>
#include <stddef.h>

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
/* "64M", "4k", "1000": bytes written the way cli_parse_size reads them
 * (the largest suffix that divides exactly). */
void cli_format_size(size_t bytes, char *out, size_t cap);

#endif
