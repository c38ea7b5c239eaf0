/* with_default_signals.c - run a program with every signal at its default
 * action and none blocked: with_default_signals PROG [ARGS...].
 *
 * A signal ignored when a shell starts can never be trapped in it (POSIX),
 * and an ignored disposition is inherited through fork and exec. So how a
 * test suite was started leaks into the program under test: under nohup
 * SIGHUP is ignored, and a background job of a non-interactive shell has
 * SIGINT and SIGQUIT ignored. A lab shell started that way cannot trap the
 * signal its test sends, and the test fails for a reason that is not the
 * lab's. The signal tests start the program under test through this, so
 * that it sees the dispositions an interactive terminal would give it.
 * (coreutils' env --default-signal does the same from version 9.0 on;
 * Ubuntu 22.04's 8.32 lacks it.) */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

int main(int argc, char **argv)
{
    if (argc < 2) {
        fprintf(stderr, "usage: with_default_signals PROG [ARGS...]: runs PROG with every signal's default action\n");
        return 2;
    }
    struct sigaction dfl;
    memset(&dfl, 0, sizeof dfl);
    dfl.sa_handler = SIG_DFL;
    sigemptyset(&dfl.sa_mask);
    /* SIGKILL and SIGSTOP cannot be changed, and the C library keeps a
     * few real-time signals for itself: those calls fail harmlessly. */
    for (int s = 1; s < NSIG; s++)
        if (s != SIGKILL && s != SIGSTOP) (void)sigaction(s, &dfl, NULL);
    sigset_t none;
    sigemptyset(&none);
    sigprocmask(SIG_SETMASK, &none, NULL);
    execvp(argv[1], argv + 1);
    fprintf(stderr, "with_default_signals: cannot run %s: %s\n", argv[1], strerror(errno));
    return errno == ENOENT ? 127 : 126;
}
