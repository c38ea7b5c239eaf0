/* cli.h - table-driven command-line options shared by every ddlab program,
 * so all of them answer --help the same way and reject bad flags with a
 * message naming the flag and the expected value. */
#ifndef DDL_CLI_H
#define DDL_CLI_H

#include <stdbool.h>
#include <stddef.h>

typedef enum { OPT_INT, OPT_FLOAT, OPT_STR, OPT_FLAG, OPT_U64 } OptType;

typedef struct CliOption {
    const char *name;  /* without dashes: "batch" for --batch */
    OptType type;
    void *target;      /* int*, float*, const char**, bool*, uint64_t* */
    const char *help;
    double min, max;   /* numeric range checked when min < max */
} CliOption;

/* Parse argv. Returns 0 when the program should run, 1 when --help was
 * printed (exit 0), -1 after printing an error and the usage (exit 2). */
int cli_parse(int argc, char **argv, const char *usage_line, const char *description, const CliOption *opts,
              int nopts);

#endif
