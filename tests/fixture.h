/* fixture.h - reader for the PyTorch reference fixtures (tests/fixtures/
 * *.fix, written by tests/gen_fixtures.py). Header-only: static functions,
 * so a test that includes it needs nothing more at link time.
 *
 * File format (all integers and floats little-endian):
 *   magic     8 bytes "DDLFIX1\n"
 *   u32       number of records
 *   record:   u16 name length, name bytes (no NUL)
 *             u8  type: 0 f32, 1 i32, 2 generated f32, 3 text
 *             u8  ndims (0..8), then i32 dims[ndims]; count = product (1 if 0 dims)
 *             payload:
 *               f32   count * 4 bytes
 *               i32   count * 4 bytes (read back as exact floats)
 *               gen   u64 seed, f64 scale, f32 offset, then 3 f32 check values
 *                     (elements 0, count/2, count-1, as the writer computed them)
 *               text  count bytes (ndims = 1, dims[0] = length)
 *
 * A "generated" record holds values too many to store (weights, inputs)
 * as the recipe both sides can compute bit for bit:
 *   s_i  = SplitMix64 output number i (0-based) from state `seed`
 *          (state_i = seed + (i+1) * 0x9E3779B97F4A7C15, then the usual mix)
 *   k_i  = s_i >> 40                             (24 random bits)
 *   v_i  = (float)((double)(k_i - 2^23) * scale) + offset    (float add)
 * i.e. uniform on [offset - 2^23 scale, offset + 2^23 scale). The two steps
 * are separate roundings (double product rounded to float, then a float
 * add), with nothing a compiler may fuse, so C and numpy agree exactly;
 * the three check values make the reader prove it on every load. */
#ifndef DDL_TEST_FIXTURE_H
#define DDL_TEST_FIXTURE_H

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ != __ORDER_LITTLE_ENDIAN__
#error "fixture.h reads little-endian files on a little-endian host only"
#endif

enum { FIX_F32 = 0, FIX_I32 = 1, FIX_GEN = 2, FIX_TEXT = 3, FIX_MAXDIMS = 8 };

typedef struct FixRec {
    char name[128];
    int type;           /* as stored; data is float for F32/I32/GEN */
    int ndims;
    int dims[FIX_MAXDIMS];
    size_t count;       /* elements (bytes for text) */
    float *data;        /* count floats (NULL for text) */
    char *text;         /* NUL-terminated (text records only) */
} FixRec;

typedef struct Fixture {
    int n;
    FixRec *recs;
    char path[512];
    char err[1024];     /* why fix_load failed */
} Fixture;

static inline uint64_t fix_splitmix(uint64_t state)
{
    uint64_t z = state;
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
    return z ^ (z >> 31);
}

/* Element i of a generated record (see the header comment). */
static inline float fix_gen_value(uint64_t seed, double scale, float offset, size_t i)
{
    uint64_t s = fix_splitmix(seed + (uint64_t)(i + 1) * 0x9E3779B97F4A7C15ULL);
    int64_t k = (int64_t)(s >> 40) - 8388608;
    volatile double prod = (double)k * scale; /* volatile: no fusing with the add below */
    float f = (float)prod;
    return f + offset;
}

static inline void fix_free(Fixture *f)
{
    for (int i = 0; i < f->n; i++) {
        free(f->recs[i].data);
        free(f->recs[i].text);
    }
    free(f->recs);
    f->recs = NULL;
    f->n = 0;
}

static inline int fix_read(FILE *fp, void *p, size_t bytes) { return fread(p, 1, bytes, fp) == bytes ? 0 : -1; }

/* Returns 0, or -1 with f->err set (missing file, bad magic, truncation,
 * a generated record whose check values this reader does not reproduce). */
static inline int fix_load(Fixture *f, const char *path)
{
    memset(f, 0, sizeof *f);
    snprintf(f->path, sizeof f->path, "%.500s", path);
    FILE *fp = fopen(path, "rb");
    if (!fp) {
        snprintf(f->err, sizeof f->err, "cannot open %.400s (fixtures are committed; regenerate with "
                 "/usr/bin/python3 tests/gen_fixtures.py)", path);
        return -1;
    }
    char magic[8];
    uint32_t nrec = 0;
    if (fix_read(fp, magic, 8) || memcmp(magic, "DDLFIX1\n", 8) != 0 || fix_read(fp, &nrec, 4) || nrec > 100000) {
        snprintf(f->err, sizeof f->err, "%.400s: not a DDLFIX1 file", path);
        fclose(fp);
        return -1;
    }
    f->recs = calloc(nrec ? nrec : 1, sizeof(FixRec));
    if (!f->recs) { snprintf(f->err, sizeof f->err, "out of memory"); fclose(fp); return -1; }
    for (uint32_t r = 0; r < nrec; r++) {
        FixRec *x = &f->recs[r];
        f->n = (int)r + 1;
        uint16_t len = 0;
        uint8_t type = 0, nd = 0;
        if (fix_read(fp, &len, 2) || len >= sizeof x->name || fix_read(fp, x->name, len)) goto trunc;
        x->name[len] = '\0';
        if (fix_read(fp, &type, 1) || fix_read(fp, &nd, 1) || type > FIX_TEXT || nd > FIX_MAXDIMS) goto trunc;
        x->type = type;
        x->ndims = nd;
        x->count = 1;
        for (int d = 0; d < nd; d++) {
            int32_t v;
            if (fix_read(fp, &v, 4) || v < 0 || v > (1 << 28)) goto trunc;
            x->dims[d] = v;
            x->count *= (size_t)v;
        }
        if (x->count > ((size_t)1 << 28)) goto trunc;
        if (type == FIX_TEXT) {
            x->text = malloc(x->count + 1);
            if (!x->text || fix_read(fp, x->text, x->count)) goto trunc;
            x->text[x->count] = '\0';
            continue;
        }
        x->data = malloc(sizeof(float) * (x->count ? x->count : 1));
        if (!x->data) goto trunc;
        if (type == FIX_F32) {
            if (fix_read(fp, x->data, sizeof(float) * x->count)) goto trunc;
        } else if (type == FIX_I32) {
            for (size_t i = 0; i < x->count; i++) {
                int32_t v;
                if (fix_read(fp, &v, 4)) goto trunc;
                x->data[i] = (float)v;
            }
        } else { /* FIX_GEN */
            uint64_t seed;
            double scale;
            float offset, check[3];
            if (fix_read(fp, &seed, 8) || fix_read(fp, &scale, 8) || fix_read(fp, &offset, 4) ||
                fix_read(fp, check, 12))
                goto trunc;
            for (size_t i = 0; i < x->count; i++) x->data[i] = fix_gen_value(seed, scale, offset, i);
            size_t at[3] = { 0, x->count / 2, x->count ? x->count - 1 : 0 };
            for (int c = 0; c < 3 && x->count; c++)
                if (memcmp(&x->data[at[c]], &check[c], sizeof(float)) != 0) {
                    snprintf(f->err, sizeof f->err,
                             "%.400s: generated record %.127s: element %zu is %.9g here, %.9g in the writer "
                             "(generator mismatch)", path, x->name, at[c], (double)x->data[at[c]], (double)check[c]);
                    fclose(fp);
                    fix_free(f);
                    return -1;
                }
        }
    }
    {
        char extra;
        if (fread(&extra, 1, 1, fp) != 0) {
            snprintf(f->err, sizeof f->err, "%.400s: trailing bytes after %u records", path, nrec);
            fclose(fp);
            fix_free(f);
            return -1;
        }
    }
    fclose(fp);
    return 0;
trunc:
    snprintf(f->err, sizeof f->err, "%.400s: truncated or corrupt at record %d", path, f->n - 1);
    fclose(fp);
    fix_free(f);
    return -1;
}

/* The record called name, or NULL. */
static inline const FixRec *fix_get(const Fixture *f, const char *name)
{
    for (int i = 0; i < f->n; i++)
        if (strcmp(f->recs[i].name, name) == 0) return &f->recs[i];
    return NULL;
}

#endif
