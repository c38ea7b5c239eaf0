/* version.h - what build produced this binary (for result metadata). */
#ifndef DDL_VERSION_H
#define DDL_VERSION_H
const char *ddl_git_rev(void);   /* short commit, "-dirty" when the tree had changes */
const char *ddl_build_flags(void);
/* "reference", or "student" in programs linked with labs/labN/exercises
 * (make labN IMPL=student): core/results/impl.c, rebuilt with -DDDL_IMPL_STUDENT
 * into the student tree, so results say which code produced them. */
const char *ddl_impl(void);
#endif
