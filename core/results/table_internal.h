/* table_internal.h - shared by the Table writers in core/results. */
#ifndef DDL_RESULTS_TABLE_INTERNAL_H
#define DDL_RESULTS_TABLE_INTERNAL_H

#include "buf.h"
#include "results.h"

/* Column index of name, -1 if unknown. */
int table_col(const Table *t, const char *name);
/* Cell text, NULL when empty. */
const char *table_cell(const Table *t, int row, int col);
/* The provenance line: meta "summary" if set, else meta_summary(). */
void table_summary(const Table *t, char *out, size_t cap);

/* tex_escape() appended to a buffer. */
void tex_escape_buf(Buf *b, const char *s);

/* Whole-file renderers (the file writers add atomicity). */
void csv_render(const Table *t, Buf *b);
void json_render(const Table *t, Buf *b);

#endif
