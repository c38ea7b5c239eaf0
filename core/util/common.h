/* common.h - error handling, allocation and small utilities shared by libddl.
 *
 * Errors in ddlab are reported, never swallowed: library functions that can
 * fail on bad input (files, flags) return a status and fill a message;
 * programming errors and allocation failures abort with a clear line via
 * ddl_die(), which in an MPI run names the rank. */
#ifndef DDL_COMMON_H
#define DDL_COMMON_H

#include <stddef.h>
#include <stdint.h>
#include <stdbool.h>

#define DDL_ERRLEN 256

/* Print "ddlab: <message>" to stderr and exit(1). In MPI runs (after
 * ddl_set_rank) the rank is prefixed and MPI_Abort is used so that no
 * peer is left hanging. */
void ddl_die(const char *fmt, ...) __attribute__((noreturn, format(printf, 1, 2)));
void ddl_warn(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* Print "error: <message>" to stderr, on rank 0 only in MPI runs: a bad
 * flag or file is seen alike by every rank, and one line says it. */
void ddl_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* printf into err, cut to DDL_ERRLEN on purpose (messages name files whose
 * paths can be long); returns -1, so that a reader can
 * `return ddl_errf(err, ...)`. */
int ddl_errf(char err[DDL_ERRLEN], const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Set by programs after MPI_Init so that messages carry the rank. */
void ddl_set_rank(int rank, int size);

/* 64-byte aligned allocations (AVX-512 lines); abort on failure. */
void *ddl_alloc(size_t bytes);
void *ddl_calloc(size_t bytes);
void ddl_free(void *p);
/* An array of n elements of `size` bytes with room for *cap (malloc'd or
 * NULL), with room for one more: doubled from `first` by realloc when
 * full (free() it); dies naming `what` when memory runs out. */
void *ddl_grow(void *p, int n, int *cap, size_t size, int first, const char *what);
/* Simulated builds (SIM=1, SimGrid SMPI) only, else a no-op: from now on
 * this rank's ddl_alloc() of at least min_bytes (0: stop) returns SMPI
 * shared memory, aliased by every rank, whose contents are meaningless.
 * For payloads that are only timed (lab2's bench at 80 simulated ranks):
 * never for data whose values matter. */
void ddl_sim_share_allocations(size_t min_bytes);
/* The same for many ranks' whole training state: from now on this rank's
 * ddl_alloc() of at least min_bytes (0: stop) returns memory that every
 * aliasing rank's allocation of the same order and size also gets (one
 * plain block in the simulator's process, made by the first; ddl_free
 * keeps it). Contents meaningless, as above. Unlike SMPI's shared malloc,
 * nothing is mapped per rank: 1024 ranks x 100 MB of SMPI shared mappings
 * took minutes per 4 GB on a disk-backed /tmp (each first write to a page
 * of each mapping goes through the file system), and SMPI copies messages
 * between aliased blocks as between private ones. */
void ddl_sim_alias_allocations(size_t min_bytes);
/* Whether p points into such a shared or aliased block of this rank
 * (false in native builds): its contents are meaningless, so code may pass
 * it where MPI would otherwise make a private copy (MPI_IN_PLACE). */
bool ddl_sim_is_shared(const void *p);

/* Wall-clock seconds from a monotonic clock. */
double ddl_now(void);

/* Bounded string copy that always terminates. */
void ddl_strlcpy(char *dst, const char *src, size_t cap);
/* What a stat() st_mode is, for messages refusing a path that should be a
 * regular file: "a directory", "a FIFO", "a device", "a socket", "a
 * symbolic link", "a regular file". */
const char *ddl_file_kind(unsigned mode);

#define DDL_MIN(a, b) ((a) < (b) ? (a) : (b))
#define DDL_MAX(a, b) ((a) > (b) ? (a) : (b))

#endif
