/* tape.h - the boundary between a graded function and the test that
 * checks it (make grade; labs/grade/README.md, "Why a submission cannot
 * write its own verdict").
 *
 * A submission is linked into its test program, so it controls that
 * process: it can print "ok" lines, exit early, or overwrite the
 * harness's counters. Its run therefore only *records* what the graded
 * function returned; the verdict comes from a second run of the same test
 * in which the function is not the submission's code but a player of that
 * recording. Both programs are linked with -Wl,--wrap=<function>, so every
 * call of the function goes through __wrap_<function> here:
 *   record (the submission's run): call the real function, then write its
 *     results (and the calls it made that the tape replays: allreduces,
 *     trace events) to the tape;
 *   replay (the grader's run, no submission code in it): read them back,
 *     check them against the call's own arguments (every range, rank and
 *     count is bounded before the trusted program uses it), replay the
 *     recorded calls, and return the recorded results.
 * The replay's test checks those results with its own code, so a forged
 * tape passes only by holding the right answers to the test's inputs.
 *
 * DDL_GRADE_TAPE selects the mode: "record:PATH" or "replay:PATH" (rank r
 * of an MPI job uses PATH.r); unset, the wrappers call the real function
 * and nothing else. A tape that cannot be played (it ends early, holds
 * another function's call, or an out-of-range value) ends the replay with
 * "grade-tape: <why>" on stderr and a non-zero exit. */
#ifndef DDL_GRADE_TAPE_H
#define DDL_GRADE_TAPE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "comm/comm.h"
#include "sync/strategy.h"

typedef enum TapeMode { TAPE_OFF, TAPE_RECORD, TAPE_REPLAY } TapeMode;

/* This process's mode (the tape is opened on the first call). */
TapeMode tape_mode(void);

/* What a graded function may reach through the calls the tape replays:
 * comm_allreduce on one of comms[0..ncomms) over a range inside
 * [buf, buf + buf_bytes), and sync_comm_event on `sync`. A call outside
 * the scope is recorded as one the replay cannot make, and fails it. */
typedef struct TapeScope {
    Comm *comms;
    int ncomms;
    void *buf;
    size_t buf_bytes;
    Sync *sync;
} TapeScope;

/* Start one call of `fn`, whose inputs digest to `in`. Record: writes the
 * call's header, opens `scope` and returns true: run the real function,
 * then call tape_call_end(). Replay: checks the header (the inputs'
 * digest only says, once, that the runs differ), replays the recorded
 * calls in `scope` and returns false. */
bool tape_call(const char *fn, uint64_t in, const TapeScope *scope);
void tape_call_end(void); /* tape_call and tape_call_end: tape_events.c */
/* The function's results: record writes p[0..n), replay reads them into p. */
void tape_io(void *p, size_t n);
/* One call of a scalar function without a header (tape_io its result):
 * counts it for the messages. */
void tape_scalar_call(const char *fn);
/* Record: writes `digest`; replay: compares it with the recorded one and
 * says once when they differ (for functions called too often for a
 * header per call). */
void tape_check_digest(const char *fn, uint64_t digest);

#define TAPE_DIGEST0 1469598103934665603ull
/* FNV-1a over p[0..n), continuing from h. */
uint64_t tape_digest(uint64_t h, const void *p, size_t n);
/* Replay: the tape cannot be played: "grade-tape: <why>", exit status 3. */
_Noreturn void tape_reject(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* A call's header alone (tape.c; tape_call in tape_events.c adds the
 * calls it makes): counts the call; record writes fn's digest and `in`,
 * replay checks them. */
void tape_call_header(const char *fn, uint64_t in);

#endif
