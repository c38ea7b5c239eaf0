/* version.c - compiled with -DDDL_GIT_REV and -DDDL_CFLAGS by the Makefile,
 * and rebuilt whenever the commit changes (build/<tree>/git-rev stamp). */
#include "version.h"

#ifndef DDL_GIT_REV
#define DDL_GIT_REV "unknown"
#endif
#ifndef DDL_CFLAGS
#define DDL_CFLAGS "unknown"
#endif

const char *ddl_git_rev(void) { return DDL_GIT_REV; }
const char *ddl_build_flags(void) { return DDL_CFLAGS; }
