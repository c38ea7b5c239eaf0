/* impl.c - ddl_impl() (see version.h). Alone in its file: the student
 * tree compiles it again with -DDDL_IMPL_STUDENT and links that object
 * before libddl.a, so this member is not pulled from the library. */
#include "version.h"

#ifdef DDL_IMPL_STUDENT
const char *ddl_impl(void) { return "student"; }
#else
const char *ddl_impl(void) { return "reference"; }
#endif
