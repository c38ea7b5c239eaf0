/* checkpoint.h - the file a run continues from: named sections of bytes,
 * with a format version and a checksum, written atomically.
 *
 * A checkpoint holds whatever a run needs to go on exactly where it stood
 * (parameters, optimizer velocity, batch-norm statistics, random streams,
 * the sampler's position, a strategy's rounds, a lab's tables so far);
 * the writers name their sections ("model.params", "lab.iters") and read
 * them back by name, so a section added later does not move the others.
 *
 * On disk (little-endian, as the hosts ddlab runs on):
 *   "DDLCKPT\n"                8 bytes of magic
 *   u32 version                CKPT_VERSION of the build that wrote it
 *   u32 sections
 *   per section: u16 name length, the name, u64 length, the bytes
 *   u32 CRC-32 (zlib) of everything before it
 * A file cut short, padded, or with one byte changed fails the length
 * walk or the CRC, and is refused as corrupt; another version is refused
 * by name before anything else is read.
 */
#ifndef DDL_RESULTS_CHECKPOINT_H
#define DDL_RESULTS_CHECKPOINT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "../util/common.h"

#define CKPT_VERSION 1u
#define CKPT_NAME_MAX 64
/* The largest file ckpt_read reads: far above any model's checkpoint
 * (resnet50 at width 1 in mixed precision: parameters, FP32 masters,
 * momentum and statistics, about 0.4 GB), far below what would exhaust a
 * machine's memory when a path points at something else. */
#define CKPT_MAX_BYTES ((uint64_t)4 << 30)

typedef struct Ckpt Ckpt;

/* An empty checkpoint to fill. */
Ckpt *ckpt_new(void);
void ckpt_free(Ckpt *c);
/* Add a section (the bytes are copied). A name is 1..63 characters; a
 * repeated name replaces nothing: it is a bug, and aborts. */
void ckpt_put(Ckpt *c, const char *name, const void *data, size_t len);
void ckpt_put_u64(Ckpt *c, const char *name, uint64_t v);
void ckpt_put_str(Ckpt *c, const char *name, const char *s);
/* Serialise and write atomically (write_file_atomic). 0, or -1 with a
 * message naming path in err. */
int ckpt_write(const Ckpt *c, const char *path, char err[DDL_ERRLEN]);

/* Parse a checkpoint's bytes (name for messages). 0 with *out set, or -1
 * with a message: not a checkpoint, another format version, corrupt or
 * truncated. Reads nothing outside data[0, len). */
int ckpt_parse(const void *data, size_t len, const char *name, Ckpt **out, char err[DDL_ERRLEN]);
/* The same from a file: a regular file of at most CKPT_MAX_BYTES, opened
 * without blocking (a FIFO, a device such as /dev/zero, a directory are
 * refused by what they are, before anything is read). */
int ckpt_read(const char *path, Ckpt **out, char err[DDL_ERRLEN]);

/* The sections, in file order: how many, and the i-th's name. */
int ckpt_sections(const Ckpt *c);
const char *ckpt_section_name(const Ckpt *c, int i);
/* A section's bytes (NULL when absent; *len its length). */
const void *ckpt_find(const Ckpt *c, const char *name, size_t *len);
/* Copy a section of exactly len bytes into dst: 0, or -1 with "section
 * 'name' missing" / "holds N bytes, expected M" in err. */
int ckpt_get(const Ckpt *c, const char *name, void *dst, size_t len, char err[DDL_ERRLEN]);
int ckpt_get_u64(const Ckpt *c, const char *name, uint64_t *v, char err[DDL_ERRLEN]);
/* A string section (NUL-terminated in the file), or NULL. */
const char *ckpt_str(const Ckpt *c, const char *name);

/* A results table's rows so far (a lab's iterations before the
 * checkpoint): put saves every cell; get appends the saved rows to t,
 * whose columns must be the same. 0, or -1 with a message in err. */
struct Table;
void ckpt_put_table(Ckpt *c, const char *name, const struct Table *t);
int ckpt_get_table(const Ckpt *c, const char *name, struct Table *t, char err[DDL_ERRLEN]);


#endif
