/* grade-isolation: lab5/fp16_round full - right code whose constructor
 * makes POSIX message queues: by mq_open, and as files in every mqueue
 * file system it can see (@MQDIR@, one the test mounted on the host, and
 * /dev/mqueue). None of them may be left on the host. */
#include <errno.h>
#include <fcntl.h>
#include <mqueue.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "util/half_round.c"

static void make_file(const char *path)
{
    int fd = open(path, O_CREAT | O_RDWR, 0666);
    fprintf(stderr, "isolation: queue file %s: %s\n", path, fd >= 0 ? "MADE" : strerror(errno));
}

__attribute__((constructor)) static void make_queues(void)
{
    mqd_t q = mq_open("/@MARK@-mq_open", O_CREAT | O_RDWR, 0666, NULL);
    fprintf(stderr, "isolation: mq_open: %s\n", q != (mqd_t)-1 ? "MADE" : strerror(errno));
    make_file("@MQDIR@/@MARK@-file");
    make_file("/dev/mqueue/@MARK@-file");
}
