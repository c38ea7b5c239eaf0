/* buf.c - see buf.h. Allocation failure aborts (ddl_die), like ddl_alloc. */
#include "buf.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../util/common.h"

static void reserve(Buf *b, size_t extra)
{
    if (b->len + extra + 1 <= b->cap) return;
    size_t cap = b->cap ? b->cap : 256;
    while (cap < b->len + extra + 1) cap *= 2;
    char *p = realloc(b->p, cap);
    if (!p) ddl_die("out of memory growing a text buffer to %zu bytes", cap);
    b->p = p;
    b->cap = cap;
}

void buf_put(Buf *b, const char *s, size_t n)
{
    reserve(b, n);
    memcpy(b->p + b->len, s, n);
    b->len += n;
    b->p[b->len] = '\0';
}

void buf_puts(Buf *b, const char *s) { buf_put(b, s, strlen(s)); }

void buf_putc(Buf *b, char c) { buf_put(b, &c, 1); }

void buf_printf(Buf *b, const char *fmt, ...)
{
    va_list ap, ap2;
    va_start(ap, fmt);
    va_copy(ap2, ap);
    int n = vsnprintf(NULL, 0, fmt, ap);
    va_end(ap);
    if (n < 0) ddl_die("bad format string '%s'", fmt);
    reserve(b, (size_t)n);
    vsnprintf(b->p + b->len, (size_t)n + 1, fmt, ap2);
    va_end(ap2);
    b->len += (size_t)n;
}

void buf_free(Buf *b)
{
    free(b->p);
    b->p = NULL;
    b->len = b->cap = 0;
}
