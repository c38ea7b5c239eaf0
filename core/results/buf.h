/* buf.h - growable text buffer (internal to core/results).
 *
 * Every writer renders its whole file into memory first and hands it to
 * write_file_atomic(): one write, one rename, nothing half-written. */
#ifndef DDL_RESULTS_BUF_H
#define DDL_RESULTS_BUF_H

#include <stddef.h>

typedef struct Buf {
    char *p;      /* always NUL-terminated once anything was added */
    size_t len, cap;
} Buf;

void buf_put(Buf *b, const char *s, size_t n);
void buf_puts(Buf *b, const char *s);
void buf_putc(Buf *b, char c);
void buf_printf(Buf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void buf_free(Buf *b);

#endif
