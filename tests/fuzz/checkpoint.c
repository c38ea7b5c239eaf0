/* checkpoint.c - fuzz the checkpoint reader (core/results/checkpoint.c:
 * ckpt_parse, and the table sections of checkpoint_table.c).
 *
 * The input is a checkpoint file's bytes. A refusal must leave no Ckpt and
 * say why; an accepted file must have a valid CRC-32 over all but its last
 * four bytes (so random bytes are accepted only when the harness itself
 * built a consistent file, as the seed corpus does), sections whose bytes
 * all lie inside the file and whose names find them again, and string and
 * table sections that read back within their bounds. */
#include "fuzz.h"

#include <zlib.h>

#include "results/checkpoint.h"
#include "results/results.h"

static void check_sections(const Ckpt *c, const uint8_t *data, size_t size)
{
    size_t total = 0;
    for (int i = 0; i < ckpt_sections(c); i++) {
        const char *name = ckpt_section_name(c, i);
        FUZZ_CHECK(name && name[0] && strlen(name) < CKPT_NAME_MAX, "section name");
        size_t len = 0;
        const uint8_t *p = ckpt_find(c, name, &len);
        FUZZ_CHECK(p != NULL, "a section's name finds it");
        total += len;
        FUZZ_CHECK(total <= size, "sections lie inside the file");
        unsigned sum = 0;
        for (size_t k = 0; k < len; k++) sum += p[k]; /* ASan: every byte readable */
        (void)sum;
        const char *s = ckpt_str(c, name);
        FUZZ_CHECK(!s || (len > 0 && s[len - 1] == 0), "a string section ends with a NUL inside it");
        /* any section as a table of two columns: refused or read in bounds */
        Table *t = table_new("fuzz", "a,b");
        char err[DDL_ERRLEN] = "";
        if (ckpt_get_table(c, name, t, err) != 0) FUZZ_CHECK(err[0], "a refused table says why");
        table_free(t);
    }
    (void)data;
}

static void parse_one(const uint8_t *data, size_t size)
{
    Ckpt *c = NULL;
    char err[DDL_ERRLEN] = "";
    if (ckpt_parse(data, size, "fuzz.ckpt", &c, err) != 0) {
        FUZZ_CHECK(!c && err[0], "failure contract");
        return;
    }
    FUZZ_CHECK(c && size >= 20, "an accepted file holds at least its header and CRC");
    uint32_t crc;
    memcpy(&crc, data + size - 4, 4);
    FUZZ_CHECK((uint32_t)crc32(0L, data, (uInt)(size - 4)) == crc, "accepted only with a matching CRC");
    check_sections(c, data, size);
    ckpt_free(c);
}

/* Each input twice: as it is (the CRC rejects nearly all mutations), and
 * with its last four bytes replaced by the right CRC, so that mutations
 * reach the section walk behind it. */
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    parse_one(data, size);
    if (size < 4) return 0;
    uint8_t *fixed = malloc(size);
    FUZZ_CHECK(fixed != NULL, "out of memory");
    memcpy(fixed, data, size);
    uint32_t crc = (uint32_t)crc32(0L, fixed, (uInt)(size - 4));
    memcpy(fixed + size - 4, &crc, 4);
    parse_one(fixed, size);
    free(fixed);
    return 0;
}
