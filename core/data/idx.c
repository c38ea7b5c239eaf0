/* idx.c - IDX readers (MNIST, Fashion-MNIST) straight from .gz via zlib.
 *
 * gzdopen/gzread read plain files too, so one code path serves both; the
 * readers work on a file descriptor (the path forms open one), so tests
 * and fuzzers can hand them memory (memfd). Every
 * header field is checked against caps before anything is allocated, and
 * the payload buffer grows only as data actually arrives, so a corrupt
 * header claiming gigabytes in a tiny file fails with a message instead of
 * a huge allocation. Trailing bytes after the payload are an error: they
 * mean the header's dims do not describe the file. */
#include "readers.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>

#define IDX_MAGIC_IMAGES 0x00000803u /* unsigned byte, 3 dims */
#define IDX_MAGIC_LABELS 0x00000801u /* unsigned byte, 1 dim */
/* Far above any MNIST-family file, low enough that the float copy of a
 * maximal payload (4 bytes per pixel) stays around 1 GiB. */
#define IDX_MAX_ITEMS ((uint32_t)1 << 24)
#define IDX_MAX_SIDE  4096u
#define IDX_MAX_BYTES ((uint64_t)1 << 28)
#define IDX_CHUNK     ((size_t)1 << 22)

static uint32_t be32(const unsigned char *p)
{
    return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

/* Why a read stopped short: zlib's view (truncated or corrupt gzip stream,
 * I/O error) or plain end of data. */
static const char *short_reason(gzFile f)
{
    int code = Z_OK;
    const char *msg = gzerror(f, &code);
    /* zlib names a stream opened by gzdopen "<fd:13>" and puts that name
     * first ("<fd:13>: incorrect data check"); the caller names the file */
    if (msg && !strncmp(msg, "<fd:", 4) && strstr(msg, ": ")) msg = strstr(msg, ": ") + 2;
    if (code == Z_BUF_ERROR) return "truncated gzip stream";
    if (code == Z_DATA_ERROR && msg && !strcmp(msg, "incorrect data check"))
        return "corrupt gzip data (its CRC-32 does not match: fetch the file again)";
    if (code == Z_DATA_ERROR) return msg && *msg ? msg : "corrupt gzip data";
    if (code == Z_ERRNO) return strerror(errno);
    if (code != Z_OK) return msg && *msg ? msg : "zlib error";
    return NULL;
}

/* Read up to n bytes; returns bytes read (gzread takes an unsigned int). */
static size_t read_some(gzFile f, unsigned char *dst, size_t n)
{
    size_t got = 0;
    while (got < n) {
        unsigned want = (unsigned)DDL_MIN(n - got, (size_t)INT_MAX / 2);
        int r = gzread(f, dst + got, want);
        if (r <= 0) break;
        got += (size_t)r;
    }
    return got;
}

/* A zlib stream over fd (plain or gzip); fd is closed on failure. */
static gzFile open_idx(int fd, const char *path, char err[DDL_ERRLEN])
{
    errno = 0;
    gzFile f = gzdopen(fd, "rb");
    if (!f) {
        ddl_errf(err, "%s: cannot read: %s", path, errno ? strerror(errno) : "zlib out of memory");
        close(fd);
        return NULL;
    }
    gzbuffer(f, 1u << 17);
    return f;
}

/* The path forms: open, then the _fd form. */
static int open_path(const char *path, char err[DDL_ERRLEN])
{
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0) ddl_errf(err, "%s: cannot open: %s", path, strerror(errno));
    return fd;
}

/* Header: magic then `ndims` big-endian u32 dims. */
static int read_header(gzFile f, const char *path, uint32_t magic_want, const char *what,
                       uint32_t *dims, int ndims, char err[DDL_ERRLEN])
{
    unsigned char h[16];
    size_t need = 4 + 4 * (size_t)ndims;
    size_t got = read_some(f, h, need);
    if (got < need) {
        const char *why = short_reason(f);
        /* zlib inflates a small file whole at the first read and rejects it
         * there (a CRC-32 that does not match): nothing of the header came,
         * and the header is not where the fault is */
        if (why && got == 0)
            ddl_errf(err, "%s: %s", path, why);
        else
            ddl_errf(err, "%s: %s in the header (%zu of %zu bytes)", path, why ? why : "file ends", got, need);
        return -1;
    }
    uint32_t magic = be32(h);
    if (magic != magic_want) {
        ddl_errf(err, "%s: bad magic 0x%08x, expected 0x%08x (IDX %s)", path,
                 magic, magic_want, what);
        return -1;
    }
    for (int i = 0; i < ndims; i++) dims[i] = be32(h + 4 + 4 * i);
    return 0;
}

/* Read exactly `bytes` of payload into a malloc'd buffer that grows as data
 * arrives, then require end of file. Returns NULL (message set) on failure. */
static unsigned char *read_payload(gzFile f, const char *path, uint64_t bytes,
                                   const char *dims_text, char err[DDL_ERRLEN])
{
    size_t cap = (size_t)DDL_MIN(bytes, (uint64_t)IDX_CHUNK), got = 0;
    unsigned char *buf = malloc(cap ? cap : 1);
    if (!buf) ddl_die("out of memory reading %s", path);
    while (got < bytes) {
        if (got == cap) {
            cap = (size_t)DDL_MIN((uint64_t)cap * 2, bytes);
            unsigned char *nb = realloc(buf, cap);
            if (!nb) { free(buf); ddl_die("out of memory reading %s", path); }
            buf = nb;
        }
        size_t r = read_some(f, buf + got, cap - got);
        got += r;
        if (got < cap) break;
    }
    if (got < bytes) {
        const char *why = short_reason(f);
        ddl_errf(err, "%s: %s: header says %s = %llu payload bytes, only %zu present",
                 path, why ? why : "truncated", dims_text, (unsigned long long)bytes, got);
        free(buf);
        return NULL;
    }
    /* One more byte must hit the end; reading it also makes zlib check the
     * gzip trailer (CRC and length), which catches a cut-off stream. */
    unsigned char extra;
    int r = gzread(f, &extra, 1);
    const char *why = short_reason(f);
    if (r > 0 || why) {
        if (r > 0)
            ddl_errf(err, "%s: data continues after the %llu payload bytes that the "
                     "header's %s describes", path, (unsigned long long)bytes, dims_text);
        else
            ddl_errf(err, "%s: %s after the payload (header %s)", path, why, dims_text);
        free(buf);
        return NULL;
    }
    return buf;
}

/* The rest of what one IDX file makes: n one-channel h x w items of 10
 * classes, not normalised, read from path. Returns 0. */
static int one_file(Dataset *out, int n, int h, int w, const char *path)
{
    out->n = n;
    out->c = 1;
    out->h = h;
    out->w = w;
    out->classes = 10;
    for (int i = 0; i < DDL_DATA_MAXCH; i++) { out->mean[i] = 0.0f; out->std[i] = 1.0f; }
    out->files_found = 1;
    ddl_strlcpy(out->source, path, sizeof out->source);
    return 0;
}

int idx_read_images_fd(int fd, const char *path, Dataset *out, char err[DDL_ERRLEN])
{
    memset(out, 0, sizeof *out);
    gzFile f = open_idx(fd, path, err);
    if (!f) return -1;
    uint32_t d[3];
    if (read_header(f, path, IDX_MAGIC_IMAGES, "ubyte images, 3 dims", d, 3, err)) {
        gzclose(f);
        return -1;
    }
    char dims_text[64];
    snprintf(dims_text, sizeof dims_text, "%ux%ux%u", d[0], d[1], d[2]);
    if (d[0] == 0 || d[0] > IDX_MAX_ITEMS || d[1] == 0 || d[1] > IDX_MAX_SIDE ||
        d[2] == 0 || d[2] > IDX_MAX_SIDE ||
        (uint64_t)d[0] * d[1] * d[2] > IDX_MAX_BYTES) {
        ddl_errf(err, "%s: absurd header dims %s, expected 1..%u images of "
                 "1..%u x 1..%u pixels, at most %llu bytes", path, dims_text, IDX_MAX_ITEMS,
                 IDX_MAX_SIDE, IDX_MAX_SIDE, (unsigned long long)IDX_MAX_BYTES);
        gzclose(f);
        return -1;
    }
    uint64_t bytes = (uint64_t)d[0] * d[1] * d[2];
    /* Plain files: the size is known, so an impossible header fails before
     * any allocation (gzdirect is valid once the header was read). */
    struct stat st;
    if (gzdirect(f) && fstat(fd, &st) == 0 && (uint64_t)st.st_size < 16 + bytes) {
        ddl_errf(err, "%s: truncated: header says %s = %llu payload bytes, file "
                 "holds %lld", path, dims_text, (unsigned long long)bytes,
                 (long long)st.st_size - 16);
        gzclose(f);
        return -1;
    }
    unsigned char *buf = read_payload(f, path, bytes, dims_text, err);
    gzclose(f);
    if (!buf) return -1;

    /* Exact division through a table: b / 255.0f, correctly rounded. */
    float lut[256];
    for (int i = 0; i < 256; i++) lut[i] = (float)i / 255.0f;
    float *x = ddl_alloc((size_t)bytes * sizeof *x);
    for (size_t i = 0; i < (size_t)bytes; i++) x[i] = lut[buf[i]];
    free(buf);

    out->x = x;
    return one_file(out, (int)d[0], (int)d[1], (int)d[2], path);
}

int idx_read_labels_fd(int fd, const char *path, Dataset *out, char err[DDL_ERRLEN])
{
    memset(out, 0, sizeof *out);
    gzFile f = open_idx(fd, path, err);
    if (!f) return -1;
    uint32_t n;
    if (read_header(f, path, IDX_MAGIC_LABELS, "ubyte labels, 1 dim", &n, 1, err)) {
        gzclose(f);
        return -1;
    }
    char dims_text[32];
    snprintf(dims_text, sizeof dims_text, "%u labels", n);
    if (n == 0 || n > IDX_MAX_ITEMS) {
        ddl_errf(err, "%s: absurd header: %s, expected 1..%u", path, dims_text,
                 IDX_MAX_ITEMS);
        gzclose(f);
        return -1;
    }
    struct stat st;
    if (gzdirect(f) && fstat(fd, &st) == 0 && (uint64_t)st.st_size < 8 + (uint64_t)n) {
        ddl_errf(err, "%s: truncated: header says %s, file holds %lld", path,
                 dims_text, (long long)st.st_size - 8);
        gzclose(f);
        return -1;
    }
    unsigned char *buf = read_payload(f, path, n, dims_text, err);
    gzclose(f);
    if (!buf) return -1;
    for (uint32_t i = 0; i < n; i++) {
        if (buf[i] > 9) {
            ddl_errf(err, "%s: label %u at index %u, expected 0..9", path, buf[i], i);
            free(buf);
            return -1;
        }
    }
    int32_t *y = ddl_alloc((size_t)n * sizeof *y);
    for (uint32_t i = 0; i < n; i++) y[i] = buf[i];
    free(buf);
    out->y = y;
    return one_file(out, (int)n, 1, 1, path);
}

int idx_read_images(const char *path, Dataset *out, char err[DDL_ERRLEN])
{
    memset(out, 0, sizeof *out);
    int fd = open_path(path, err);
    return fd < 0 ? -1 : idx_read_images_fd(fd, path, out, err);
}

int idx_read_labels(const char *path, Dataset *out, char err[DDL_ERRLEN])
{
    memset(out, 0, sizeof *out);
    int fd = open_path(path, err);
    return fd < 0 ? -1 : idx_read_labels_fd(fd, path, out, err);
}
