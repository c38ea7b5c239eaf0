/* replay_main.c - run a fuzz harness over saved inputs, without libFuzzer.
 *
 * usage: replay_<target> PATH...   (files, or directories of files)
 *
 * Linked with one harness (tests/fuzz/<target>.c) by the project's own
 * compiler, in the optimised and the sanitizer trees, so make test replays
 * the committed corpus and every committed crash input on every change
 * without needing clang. Each file is read into a buffer of exactly its
 * size (as libFuzzer does, so a one-byte overread is an ASan error) and
 * passed to LLVMFuzzerTestOneInput, in name order. Prints one check line
 * for tests/run.sh: "ok - fuzz replay <target>: N inputs", or "not ok -"
 * naming the input that failed. A crash prints the "not ok" line from a
 * signal handler (or the sanitizer's death callback) before dying, so the
 * log names the input. */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#if defined(__SANITIZE_ADDRESS__)
#define REPLAY_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define REPLAY_ASAN 1
#endif
#endif
#ifdef REPLAY_ASAN
#include <sanitizer/common_interface_defs.h>
#endif

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static const char *g_target = "?";
static char g_current[4096] = "(before the first input)";

static void put(const char *s) { (void)!write(2, s, strlen(s)); }

/* Async-signal-safe: write(2) only. stderr, unbuffered, so the line is not
 * lost with stdout's buffer when the process dies. */
static void report_crash(const char *why)
{
    put("\nnot ok - fuzz replay ");
    put(g_target);
    put(": ");
    put(why);
    put(" on ");
    put(g_current);
    put("\n");
}

static void on_death(void) { report_crash("sanitizer error"); }

static void on_signal(int sig)
{
    report_crash(sig == SIGABRT ? "abort (a fuzz check or assert)" : "fatal signal");
    signal(sig, SIG_DFL);
    raise(sig);
}

static int by_name(const void *a, const void *b) { return strcmp(*(char *const *)a, *(char *const *)b); }

/* Read and run one file; -1 when it cannot be read. */
static int run_file(const char *path)
{
    FILE *f = fopen(path, "rb");
    if (!f) return -1;
    struct stat st;
    if (fstat(fileno(f), &st) != 0 || !S_ISREG(st.st_mode)) { fclose(f); return -1; }
    size_t size = (size_t)st.st_size;
    /* malloc(0) may return NULL; the harness still gets a valid pointer. */
    uint8_t *data = malloc(size ? size : 1);
    if (!data) { fclose(f); return -1; }
    size_t got = fread(data, 1, size, f);
    fclose(f);
    if (got != size) { free(data); return -1; }
    snprintf(g_current, sizeof g_current, "%s", path);
    LLVMFuzzerTestOneInput(data, size);
    free(data);
    return 0;
}

/* A file, or every regular file directly in a directory (name order).
 * Returns the inputs run, or -1 after a message. */
static long run_path(const char *path)
{
    struct stat st;
    if (stat(path, &st) != 0) {
        printf("not ok - fuzz replay %s: %s: %s\n", g_target, path, strerror(errno));
        return -1;
    }
    if (!S_ISDIR(st.st_mode)) {
        if (run_file(path) == 0) return 1;
        printf("not ok - fuzz replay %s: cannot read %s\n", g_target, path);
        return -1;
    }
    DIR *d = opendir(path);
    if (!d) {
        printf("not ok - fuzz replay %s: %s: %s\n", g_target, path, strerror(errno));
        return -1;
    }
    char **names = NULL;
    size_t n = 0, cap = 0;
    for (struct dirent *e; (e = readdir(d));) {
        if (e->d_name[0] == '.') continue; /* ., .., and hidden files (editor droppings) */
        if (n == cap) {
            cap = cap ? 2 * cap : 64;
            char **nn = realloc(names, cap * sizeof *nn);
            if (!nn) { perror("replay"); exit(1); }
            names = nn;
        }
        names[n] = malloc(strlen(path) + strlen(e->d_name) + 2);
        if (!names[n]) { perror("replay"); exit(1); }
        sprintf(names[n], "%s/%s", path, e->d_name);
        n++;
    }
    closedir(d);
    if (n) qsort(names, n, sizeof *names, by_name);
    long ran = 0;
    for (size_t i = 0; i < n; i++) {
        struct stat fs;
        if (stat(names[i], &fs) == 0 && S_ISREG(fs.st_mode)) {
            if (run_file(names[i]) != 0) {
                printf("not ok - fuzz replay %s: cannot read %s\n", g_target, names[i]);
                ran = -1;
            } else if (ran >= 0) {
                ran++;
            }
        }
        free(names[i]);
    }
    free(names);
    return ran;
}

int main(int argc, char **argv)
{
    /* The target's name is the program's: replay_<target>. */
    const char *base = strrchr(argv[0], '/');
    base = base ? base + 1 : argv[0];
    g_target = strncmp(base, "replay_", 7) == 0 ? base + 7 : base;
    if (argc < 2) {
        fprintf(stderr, "usage: %s PATH... (input files or directories)\n", argv[0]);
        return 2;
    }
#ifdef REPLAY_ASAN
    /* ASan and UBSan handle SIGSEGV themselves and end in this callback. */
    __sanitizer_set_death_callback(on_death);
    signal(SIGABRT, on_signal);
#else
    (void)on_death;
    int sigs[] = { SIGABRT, SIGSEGV, SIGBUS, SIGFPE, SIGILL };
    for (size_t i = 0; i < sizeof sigs / sizeof sigs[0]; i++) signal(sigs[i], on_signal);
#endif
    long total = 0;
    int bad = 0;
    for (int i = 1; i < argc; i++) {
        long r = run_path(argv[i]);
        if (r < 0) bad = 1;
        else total += r;
    }
    /* LeakSanitizer reports at exit, after every input ran. */
    snprintf(g_current, sizeof g_current, "(exit: a leak, after the last input?)");
    if (bad) return 1;
    if (total == 0) {
        /* An empty corpus would make this check pass without testing. */
        printf("not ok - fuzz replay %s: no inputs in", g_target);
        for (int i = 1; i < argc; i++) printf(" %s", argv[i]);
        printf("\n");
        return 1;
    }
    printf("ok - fuzz replay %s: %ld inputs\n", g_target, total);
    return 0;
}
