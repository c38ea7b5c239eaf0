/* grade-isolation: lab5/fp16_round zero - right code whose constructor
 * sends a line to Unix sockets a root process listens on, world-writable
 * (@SOCK@: stream; @SOCK@.dgram: datagram), every way it can: a socket,
 * a datagram socket, a datagram socketpair's sendto, a stream
 * socketpair's connect. When every way fails it exits 3 before main (no
 * points); when one gets through it goes on and earns full marks, as it
 * once did. */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include "util/half_round.c"

static int sent;

static void say(const char *way, int ok)
{
    fprintf(stderr, "isolation: %s: %s\n", way, ok ? "SENT" : strerror(errno));
    sent += ok;
}

static struct sockaddr_un addr(const char *path)
{
    struct sockaddr_un a;
    memset(&a, 0, sizeof a);
    a.sun_family = AF_UNIX;
    snprintf(a.sun_path, sizeof a.sun_path, "%s", path);
    return a;
}

__attribute__((constructor)) static void reach_out(void)
{
    static const char msg[] = "@MARK@ reached the host\n";
    struct sockaddr_un st = addr("@SOCK@"), dg = addr("@SOCK@.dgram");
    int fd = socket(AF_UNIX, SOCK_STREAM, 0);
    say("stream connect", fd >= 0 && connect(fd, (struct sockaddr *)&st, sizeof st) == 0 &&
                              write(fd, msg, sizeof msg - 1) > 0);
    fd = socket(AF_UNIX, SOCK_DGRAM, 0);
    say("datagram sendto", fd >= 0 && sendto(fd, msg, sizeof msg - 1, 0, (struct sockaddr *)&dg, sizeof dg) > 0);
    int pair[2];
    say("datagram socketpair sendto", socketpair(AF_UNIX, SOCK_DGRAM, 0, pair) == 0 &&
                                          sendto(pair[0], msg, sizeof msg - 1, 0, (struct sockaddr *)&dg, sizeof dg) > 0);
    say("stream socketpair connect", socketpair(AF_UNIX, SOCK_STREAM, 0, pair) == 0 &&
                                         connect(pair[0], (struct sockaddr *)&st, sizeof st) == 0 &&
                                         write(pair[0], msg, sizeof msg - 1) > 0);
    if (!sent) _exit(3);
}
