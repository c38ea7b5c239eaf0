/* json.c - the JSON twin of a table:
 *   {"meta": {"key": "value", ...}, "columns": [...], "rows": [[...], ...]}
 * Cells that are numbers are written as JSON numbers, everything else as
 * strings; meta values stay strings (a commit id like "0123456" is text). */
#include <ctype.h>
#include <math.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "../util/common.h"
#include "table_internal.h"

/* Length of a valid UTF-8 sequence at s (1..4), 0 if invalid. */
static int utf8_len(const unsigned char *s)
{
    int n;
    unsigned min;
    unsigned cp;
    if (s[0] < 0x80) return 1;
    if ((s[0] & 0xE0) == 0xC0) { n = 2; cp = s[0] & 0x1F; min = 0x80; }
    else if ((s[0] & 0xF0) == 0xE0) { n = 3; cp = s[0] & 0x0F; min = 0x800; }
    else if ((s[0] & 0xF8) == 0xF0) { n = 4; cp = s[0] & 0x07; min = 0x10000; }
    else return 0;
    for (int i = 1; i < n; i++) {
        if ((s[i] & 0xC0) != 0x80) return 0;
        cp = (cp << 6) | (s[i] & 0x3F);
    }
    if (cp < min || cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF)) return 0;
    return n;
}

/* Quoted JSON string; invalid UTF-8 bytes become U+FFFD so the output
 * always parses. */
static void put_string(Buf *b, const char *str)
{
    const unsigned char *s = (const unsigned char *)(str ? str : "");
    buf_putc(b, '"');
    while (*s) {
        unsigned char c = *s;
        if (c == '"' || c == '\\') { buf_putc(b, '\\'); buf_putc(b, (char)c); s++; continue; }
        if (c < 0x20) {
            switch (c) {
            case '\n': buf_puts(b, "\\n"); break;
            case '\r': buf_puts(b, "\\r"); break;
            case '\t': buf_puts(b, "\\t"); break;
            case '\b': buf_puts(b, "\\b"); break;
            case '\f': buf_puts(b, "\\f"); break;
            default: buf_printf(b, "\\u%04x", c);
            }
            s++;
            continue;
        }
        int n = utf8_len(s);
        if (n == 0) { buf_puts(b, "\\ufffd"); s++; continue; }
        buf_put(b, (const char *)s, (size_t)n);
        s += n;
    }
    buf_putc(b, '"');
}

/* Exactly JSON's number grammar: -?(0|[1-9][0-9]*)(.[0-9]+)?([eE][+-]?[0-9]+)? */
static bool json_number_syntax(const char *s)
{
    if (*s == '-') s++;
    if (*s == '0') s++;
    else if (*s >= '1' && *s <= '9') while (isdigit((unsigned char)*s)) s++;
    else return false;
    if (*s == '.') {
        s++;
        if (!isdigit((unsigned char)*s)) return false;
        while (isdigit((unsigned char)*s)) s++;
    }
    if (*s == 'e' || *s == 'E') {
        s++;
        if (*s == '+' || *s == '-') s++;
        if (!isdigit((unsigned char)*s)) return false;
        while (isdigit((unsigned char)*s)) s++;
    }
    return *s == '\0';
}

/* A decimal number in a form JSON does not allow ("+1", ".5", "1.", "007")
 * is still a number: only digits, sign, point and exponent, parsed whole
 * by strtod. Hex, "inf" and "nan" are not (strtod would take them). */
static bool decimal_number(const char *s, double *v)
{
    if (!*s || strspn(s, "0123456789+-.eE") != strlen(s)) return false;
    char *end;
    *v = strtod(s, &end);
    return *end == '\0' && isfinite(*v);
}

static void put_cell(Buf *b, const char *s)
{
    double v;
    if (!s) buf_puts(b, "null");
    else if (json_number_syntax(s) && decimal_number(s, &v)) buf_puts(b, s);
    else if (decimal_number(s, &v)) buf_printf(b, "%.17g", v);
    else put_string(b, s);
}

void json_render(const Table *t, Buf *b)
{
    buf_puts(b, "{\n  \"meta\": {");
    bool first = true;
    for (int i = 0; i < t->meta.n; i++) {
        if (strcmp(t->meta.key[i], "summary") == 0) continue;   /* written below */
        buf_puts(b, first ? "\n    " : ",\n    ");
        first = false;
        put_string(b, t->meta.key[i]);
        buf_puts(b, ": ");
        put_string(b, t->meta.val[i]);
    }
    char summary[512];
    table_summary(t, summary, sizeof summary);
    buf_puts(b, first ? "\n    " : ",\n    ");
    buf_puts(b, "\"summary\": ");
    put_string(b, summary);
    buf_puts(b, "\n  },\n  \"columns\": [");
    for (int c = 0; c < t->ncols; c++) {
        if (c) buf_puts(b, ", ");
        put_string(b, t->cols[c]);
    }
    buf_puts(b, "],\n  \"rows\": [");
    for (int r = 0; r < t->nrows; r++) {
        buf_puts(b, r ? ",\n    [" : "\n    [");
        for (int c = 0; c < t->ncols; c++) {
            if (c) buf_puts(b, ", ");
            put_cell(b, table_cell(t, r, c));
        }
        buf_putc(b, ']');
    }
    buf_puts(b, t->nrows ? "\n  ]\n}\n" : "]\n}\n");
}
