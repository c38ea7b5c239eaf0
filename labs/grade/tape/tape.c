/* tape.c - the tape's file, its mode and the header of each call (see
 * tape.h); a whole call, with the calls it makes, is tape_events.c's,
 * above this file. One tape per process, written or read front to back
 * by the thread that made the first call: a second thread would make the
 * order of calls, and so the replay, depend on timing. */
#include "tape.h"
#include "driver/environment.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

enum { CALL_MAGIC = 0x4c4c4143u }; /* "CALL" */
static const char FILE_MAGIC[8] = { 'd', 'd', 'l', 't', 'a', 'p', 'e', '1' };

static struct {
    bool opened;
    TapeMode mode;
    FILE *f;
    char path[4096];
    pthread_t owner;
    const char *fn;    /* the call in progress, for messages */
    long calls;
    bool said_differ;
} T;

uint64_t tape_digest(uint64_t h, const void *p, size_t n)
{
    const unsigned char *b = p;
    for (size_t i = 0; i < n; i++) h = (h ^ b[i]) * 1099511628211ull;
    return h;
}

_Noreturn void tape_reject(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    fputs("grade-tape: ", stderr);
    vfprintf(stderr, fmt, ap);
    fputc('\n', stderr);
    va_end(ap);
    fflush(stderr);
    int up = 0, down = 0;
    MPI_Initialized(&up);
    MPI_Finalized(&down);
    if (up && !down) MPI_Abort(MPI_COMM_WORLD, 3);
    _exit(3);
}

/* Rank r of an MPI job has its own tape, PATH.r (Open MPI names the rank
 * in the environment of each process it starts). */
static const char *rank_name(void)
{
    const char *r = getenv("OMPI_COMM_WORLD_RANK");
    if (!r) r = getenv("PMIX_RANK");
    return r && *r && strlen(r) < 9 && strspn(r, "0123456789") == strlen(r) ? r : "0";
}

static void open_file(void)
{
    bool rec = T.mode == TAPE_RECORD;
    int fd = rec ? open(T.path, O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW | O_CLOEXEC, 0644)
                 : open(T.path, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
    if (fd < 0 && !rec)
        tape_reject("no recording %s (%s): the submission's run ended before its first call", T.path, strerror(errno));
    if (fd < 0) tape_reject("cannot write the tape %s: %s", T.path, strerror(errno));
    struct stat st;
    if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) tape_reject("%s is not a regular file", T.path);
    T.f = fdopen(fd, rec ? "wb" : "rb");
    if (!T.f) tape_reject("%s: %s", T.path, strerror(errno));
    setvbuf(T.f, NULL, _IOFBF, 1 << 20);
    char magic[sizeof FILE_MAGIC];
    if (rec) {
        if (fwrite(FILE_MAGIC, 1, sizeof magic, T.f) != sizeof magic) tape_reject("writing %s failed", T.path);
    } else if (fread(magic, 1, sizeof magic, T.f) != sizeof magic || memcmp(magic, FILE_MAGIC, sizeof magic)) {
        tape_reject("%s is not a tape written by the grader's recorder", T.path);
    }
}

static void open_tape(void)
{
    T.opened = true;
    const char *spec = driver_env_text("DDL_GRADE_TAPE");
    if (!spec || !*spec) return;
    if (!strncmp(spec, "record:", 7)) T.mode = TAPE_RECORD;
    else if (!strncmp(spec, "replay:", 7)) T.mode = TAPE_REPLAY;
    else tape_reject("DDL_GRADE_TAPE=%s: expected record:PATH or replay:PATH", spec);
    int len = snprintf(T.path, sizeof T.path, "%s.%s", spec + 7, rank_name());
    if (len < 0 || (size_t)len >= sizeof T.path) tape_reject("DDL_GRADE_TAPE: path too long");
    T.owner = pthread_self();
    T.fn = "?";
    open_file();
}

TapeMode tape_mode(void)
{
    if (!T.opened) open_tape();
    return T.mode;
}

void tape_io(void *p, size_t n)
{
    if (T.mode == TAPE_OFF || n == 0) return;
    if (!pthread_equal(T.owner, pthread_self()))
        tape_reject("%s was called from a second thread: the order of its calls would depend on timing", T.fn);
    if (T.mode == TAPE_RECORD) {
        if (fwrite(p, 1, n, T.f) != n) tape_reject("writing %s: %s", T.path, strerror(errno));
    } else if (fread(p, 1, n, T.f) != n) {
        tape_reject("the recording ends in call %ld of %s: the submission's run made no more calls (it stopped "
                    "or crashed there, or was cut short)", T.calls, T.fn);
    }
}

static void say_differ(const char *fn)
{
    if (T.said_differ) return;
    T.said_differ = true;
    fprintf(stderr, "grade-tape: note: call %ld of %s had other inputs in the submission's run (results that "
                    "depend on more than the function's arguments, or memory written outside its results)\n",
            T.calls, fn);
}

void tape_call_header(const char *fn, uint64_t in)
{
    struct { uint32_t magic, fn; uint64_t in; } want = { CALL_MAGIC, 0, in }, got;
    want.fn = (uint32_t)tape_digest(TAPE_DIGEST0, fn, strlen(fn));
    T.fn = fn;
    T.calls++;
    if (T.mode == TAPE_RECORD) {
        tape_io(&want, sizeof want);
        return;
    }
    tape_io(&got, sizeof got);
    if (got.magic != want.magic || got.fn != want.fn)
        tape_reject("call %ld of %s: the recording holds something else here", T.calls, fn);
    if (got.in != in) say_differ(fn);
}

void tape_scalar_call(const char *fn)
{
    T.fn = fn;
    T.calls++;
}

void tape_check_digest(const char *fn, uint64_t digest)
{
    uint64_t rec = digest;
    T.fn = fn;
    tape_io(&rec, sizeof rec);
    if (T.mode == TAPE_REPLAY && rec != digest) say_differ(fn);
}
