/* data.c - the readers' error helper (data.h). */
#include "data.h"

#include <stdarg.h>
#include <stdio.h>

int ddl_data_errf(char err[DDL_ERRLEN], const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(err, DDL_ERRLEN, fmt, ap);
    va_end(ap);
    return -1;
}
