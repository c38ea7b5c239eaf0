/* fuzz.h - what every harness in tests/fuzz/ shares.
 *
 * A harness is one file, tests/fuzz/<target>.c, that defines
 * LLVMFuzzerTestOneInput. The same object is linked two ways (see the
 * Makefile's fuzz section and tests/fuzz/README.md): with libFuzzer by clang
 * (make fuzz), and with replay_main.c by the project's compiler into
 * $(BIN)/fuzz/replay_<target>, which make test runs over the committed
 * corpus and crash inputs. So harnesses use only C11 + POSIX, no libFuzzer
 * API, and must free everything (LeakSanitizer runs in both). */
#ifndef DDL_FUZZ_H
#define DDL_FUZZ_H

/* memfd_create is a GNU extension: include this header first. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#if defined(__SANITIZE_ADDRESS__)
#define FUZZ_SANITIZER 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define FUZZ_SANITIZER 1
#endif
#endif
#ifdef FUZZ_SANITIZER
#include <sanitizer/common_interface_defs.h>
#endif

/* A property of the code under test was violated: say which and abort, so
 * libFuzzer records a crash- artifact and the replay fails, with or
 * without a sanitizer. Sanitizers catch memory errors; these checks catch
 * readers that "succeed" with wrong results. The message also goes out as
 * the sanitizer's SUMMARY line: make fuzz closes the harness's stderr
 * (-close_fd_mask), and the sanitizer writes to the copy libFuzzer keeps. */
static inline _Noreturn void fuzz_check_failed(const char *file, int line, const char *what, const char *cond)
{
    char msg[512];
    snprintf(msg, sizeof msg, "fuzz check failed at %s:%d: %s (%s)", file, line, what, cond);
    fprintf(stderr, "%s\n", msg);
#ifdef FUZZ_SANITIZER
    __sanitizer_report_error_summary(msg);
#endif
    abort();
}
#define FUZZ_CHECK(cond, what)                                                \
    do {                                                                      \
        if (!(cond)) fuzz_check_failed(__FILE__, __LINE__, what, #cond);      \
    } while (0)

/* The input as an open file positioned at 0, for readers that take a file
 * descriptor or a path (/proc/self/fd/N). An anonymous memfd: no file
 * system writes per execution, and fstat() gives the real size (a pipe
 * would report 0, which the IDX reader rightly treats as truncated).
 * Falls back to an unlinked temporary file where memfd_create is missing.
 * Dies when neither works: the harness, not the input, is broken then. */
static inline int fuzz_file(const uint8_t *data, size_t size)
{
#ifdef MFD_CLOEXEC
    int fd = memfd_create("ddl-fuzz", MFD_CLOEXEC);
#else
    int fd = -1;
#endif
    if (fd < 0) {
        char path[] = "/tmp/ddl-fuzz-XXXXXX";
        fd = mkstemp(path);
        if (fd >= 0) unlink(path);
    }
    FUZZ_CHECK(fd >= 0, "cannot create a memfd or a temporary file");
    for (size_t done = 0; done < size;) {
        ssize_t w = write(fd, data + done, size - done);
        FUZZ_CHECK(w > 0, "cannot write the input to its file");
        done += (size_t)w;
    }
    FUZZ_CHECK(lseek(fd, 0, SEEK_SET) == 0, "cannot rewind the input file");
    return fd;
}

#endif
