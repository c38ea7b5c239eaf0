/* version.h - what build produced this binary (for result metadata). */
#ifndef DDL_VERSION_H
#define DDL_VERSION_H
const char *ddl_git_rev(void);   /* short commit, "-dirty" when the tree had changes */
const char *ddl_build_flags(void);
#endif
