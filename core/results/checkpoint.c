/* checkpoint.c - the checkpoint container (checkpoint.h): sections in,
 * bytes out, and the careful way back. The reader trusts nothing in the
 * file: every length is checked against what is left before it is used
 * (tests/fuzz/checkpoint.c feeds it arbitrary bytes). */
#include "checkpoint.h"

#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>

#include "results.h"

static const char MAGIC[8] = { 'D', 'D', 'L', 'C', 'K', 'P', 'T', '\n' };

typedef struct Section {
    char name[CKPT_NAME_MAX];
    size_t off, len;            /* into Ckpt.data */
} Section;

struct Ckpt {
    Section *sec;
    int n, cap;
    unsigned char *data;
    size_t used, size;
};

Ckpt *ckpt_new(void)
{
    Ckpt *c = ddl_alloc(sizeof *c);
    memset(c, 0, sizeof *c);
    return c;
}

void ckpt_free(Ckpt *c)
{
    if (!c) return;
    ddl_free(c->sec);
    ddl_free(c->data);
    ddl_free(c);
}

/* Grow-by-doubling copies into a fresh block (ddl_alloc has no realloc). */
static void reserve(void **p, size_t *cap, size_t need, size_t elem)
{
    if (need <= *cap) return;
    size_t ncap = *cap ? *cap : 16;
    while (ncap < need) ncap *= 2;
    void *q = ddl_alloc(ncap * elem);
    if (*p) memcpy(q, *p, *cap * elem);
    ddl_free(*p);
    *p = q;
    *cap = ncap;
}

/* The index of a section's name, or -1 (no bytes touched: the parser asks
 * before the data is in place). */
static int index_of(const Ckpt *c, const char *name)
{
    for (int i = 0; i < c->n; i++)
        if (!strcmp(c->sec[i].name, name)) return i;
    return -1;
}

static void add_section(Ckpt *c, const char *name, size_t off, size_t len)
{
    size_t cap = (size_t)c->cap;
    reserve((void **)&c->sec, &cap, (size_t)c->n + 1, sizeof *c->sec);
    c->cap = (int)cap;
    Section *s = &c->sec[c->n++];
    ddl_strlcpy(s->name, name, sizeof s->name);
    s->off = off;
    s->len = len;
}

void ckpt_put(Ckpt *c, const char *name, const void *data, size_t len)
{
    size_t nl = strlen(name);
    if (nl == 0 || nl >= CKPT_NAME_MAX) ddl_die("ckpt_put: bad section name '%s'", name);
    if (index_of(c, name) >= 0) ddl_die("ckpt_put: section '%s' twice", name);
    reserve((void **)&c->data, &c->size, c->used + len + 1, 1);
    if (len) memcpy(c->data + c->used, data, len);
    add_section(c, name, c->used, len);
    c->used += len;
}

void ckpt_put_u64(Ckpt *c, const char *name, uint64_t v)
{
    ckpt_put(c, name, &v, sizeof v);
}

void ckpt_put_str(Ckpt *c, const char *name, const char *s)
{
    ckpt_put(c, name, s, strlen(s) + 1);
}

static void put_bytes(unsigned char **p, const void *src, size_t n)
{
    memcpy(*p, src, n);
    *p += n;
}

int ckpt_write(const Ckpt *c, const char *path, char err[DDL_ERRLEN])
{
    size_t total = sizeof MAGIC + 4 + 4 + 4;
    for (int i = 0; i < c->n; i++) total += 2 + strlen(c->sec[i].name) + 8 + c->sec[i].len;
    unsigned char *buf = ddl_alloc(total), *p = buf;
    uint32_t version = CKPT_VERSION, count = (uint32_t)c->n;
    put_bytes(&p, MAGIC, sizeof MAGIC);
    put_bytes(&p, &version, 4);
    put_bytes(&p, &count, 4);
    for (int i = 0; i < c->n; i++) {
        uint16_t nl = (uint16_t)strlen(c->sec[i].name);
        uint64_t len = c->sec[i].len;
        put_bytes(&p, &nl, 2);
        put_bytes(&p, c->sec[i].name, nl);
        put_bytes(&p, &len, 8);
        if (len) put_bytes(&p, c->data + c->sec[i].off, c->sec[i].len);
    }
    uint32_t crc = (uint32_t)crc32(0L, buf, (uInt)(p - buf));
    put_bytes(&p, &crc, 4);
    int rc = write_file_atomic(path, (const char *)buf, total);
    ddl_free(buf);
    if (rc != 0) snprintf(err, DDL_ERRLEN, "cannot write checkpoint %s", path);
    return rc;
}

/* A bounded cursor over the file's bytes. */
typedef struct Cursor { const unsigned char *p; size_t left; } Cursor;

static bool take(Cursor *k, void *dst, size_t n)
{
    if (n > k->left) return false;
    if (dst) memcpy(dst, k->p, n);
    k->p += n;
    k->left -= n;
    return true;
}

static int parse_sections(Ckpt *c, Cursor *k, uint32_t count, const char *name, char err[DDL_ERRLEN])
{
    const unsigned char *base = k->p;
    for (uint32_t i = 0; i < count; i++) {
        uint16_t nl;
        uint64_t len;
        char sname[CKPT_NAME_MAX];
        if (!take(k, &nl, 2) || nl == 0 || nl >= CKPT_NAME_MAX || !take(k, sname, nl))
            return ddl_errf(err, "%s: corrupt or truncated checkpoint (section %u's name)", name, i);
        sname[nl] = '\0';
        if (memchr(sname, '\0', nl) || index_of(c, sname) >= 0)
            return ddl_errf(err, "%s: corrupt checkpoint (section %u's name)", name, i);
        if (!take(k, &len, 8) || len > k->left)
            return ddl_errf(err, "%s: corrupt or truncated checkpoint (section '%s')", name, sname);
        add_section(c, sname, (size_t)(k->p - base), (size_t)len);
        take(k, NULL, (size_t)len);
    }
    return 0;
}

int ckpt_parse(const void *data, size_t len, const char *name, Ckpt **out, char err[DDL_ERRLEN])
{
    *out = NULL;
    Cursor k = { data, len };
    char magic[sizeof MAGIC];
    uint32_t version, count, crc;
    if (!take(&k, magic, sizeof magic) || memcmp(magic, MAGIC, sizeof MAGIC))
        return ddl_errf(err, "%s: not a ddlab checkpoint", name);
    if (!take(&k, &version, 4)) return ddl_errf(err, "%s: truncated checkpoint", name);
    if (version != CKPT_VERSION)
        return ddl_errf(err, "%s: checkpoint format version %u, this build reads version %u only; start the "
                                  "run afresh", name, version, CKPT_VERSION);
    if (len < sizeof MAGIC + 12) return ddl_errf(err, "%s: truncated checkpoint", name);
    memcpy(&crc, (const unsigned char *)data + len - 4, 4);
    if ((uint32_t)crc32(0L, data, (uInt)(len - 4)) != crc)
        return ddl_errf(err, "%s: corrupt or truncated checkpoint (checksum mismatch)", name);
    k.left -= 4; /* the CRC */
    if (!take(&k, &count, 4)) return ddl_errf(err, "%s: truncated checkpoint", name);
    Ckpt *c = ckpt_new();
    const unsigned char *body = k.p;
    if (parse_sections(c, &k, count, name, err) != 0 || k.left != 0) {
        if (k.left != 0 && c->n == (int)count) ddl_errf(err, "%s: corrupt checkpoint (trailing bytes)", name);
        ckpt_free(c);
        return -1;
    }
    size_t body_len = (size_t)(k.p - body);
    c->data = ddl_alloc(body_len + 1);
    memcpy(c->data, body, body_len);
    c->used = c->size = body_len;
    *out = c;
    return 0;
}

int ckpt_read(const char *path, Ckpt **out, char err[DDL_ERRLEN])
{
    *out = NULL;
    /* Without blocking (a FIFO would wait for a writer forever), and only a
     * regular file of a size a checkpoint can have: /dev/zero never ends. */
    int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
    if (fd < 0) return ddl_errf(err, "%s: %s", path, strerror(errno));
    struct stat st;
    if (fstat(fd, &st) != 0) {
        int e = errno;
        close(fd);
        return ddl_errf(err, "%s: %s", path, strerror(e));
    }
    if (!S_ISREG(st.st_mode)) {
        close(fd);
        return ddl_errf(err, "%s is %s, not a checkpoint file", path, ddl_file_kind(st.st_mode));
    }
    if ((uint64_t)st.st_size > CKPT_MAX_BYTES) {
        close(fd);
        return ddl_errf(err, "%s holds %lld bytes, more than a checkpoint may (%llu): not one ddlab wrote", path,
                        (long long)st.st_size, (unsigned long long)CKPT_MAX_BYTES);
    }
    size_t n = (size_t)st.st_size, got = 0;
    unsigned char *buf = ddl_alloc(n + 1);
    while (got < n) {
        ssize_t r = read(fd, buf + got, n - got);
        if (r < 0 && errno == EINTR) continue;
        if (r <= 0) break;
        got += (size_t)r;
    }
    int e = errno;
    close(fd);
    int rc = got != n ? ddl_errf(err, "%s: read %zu of %zu bytes (%s)", path, got, n, strerror(e))
                      : ckpt_parse(buf, n, path, out, err);
    ddl_free(buf);
    return rc;
}

int ckpt_sections(const Ckpt *c) { return c->n; }
const char *ckpt_section_name(const Ckpt *c, int i) { return i >= 0 && i < c->n ? c->sec[i].name : NULL; }

const void *ckpt_find(const Ckpt *c, const char *name, size_t *len)
{
    int i = index_of(c, name);
    if (i < 0) return NULL;
    if (len) *len = c->sec[i].len;
    return c->data + c->sec[i].off;
}

int ckpt_get(const Ckpt *c, const char *name, void *dst, size_t len, char err[DDL_ERRLEN])
{
    size_t have;
    const void *p = ckpt_find(c, name, &have);
    if (!p) return ddl_errf(err, "checkpoint has no section '%s'", name);
    if (have != len) return ddl_errf(err, "checkpoint section '%s' holds %zu bytes, expected %zu", name, have, len);
    if (len) memcpy(dst, p, len);
    return 0;
}

int ckpt_get_u64(const Ckpt *c, const char *name, uint64_t *v, char err[DDL_ERRLEN])
{
    return ckpt_get(c, name, v, sizeof *v, err);
}

const char *ckpt_str(const Ckpt *c, const char *name)
{
    size_t len;
    const char *p = ckpt_find(c, name, &len);
    return p && len > 0 && p[len - 1] == '\0' ? p : NULL;
}
