/* grade-hostile: lab5/fp16_round full - right (the reference, included),
 * but before main it shapes its work folder, where the grader keeps the
 * tapes and the test program: a folder, with a folder in it, named like a
 * tape (tape-1.zz), a link named like one, a folder in place of the test
 * program, its source copy replaced by a file of mode 0777, and the work
 * folder itself made mode 1777. The grader must not be steered by any of
 * it (the right answer keeps its marks, not "could not be graded"), and
 * must leave nothing world-writable behind. */
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include "@ROOT@/core/util/half_round.c"

__attribute__((constructor)) static void steer(void)
{
    if (mkdir("tape-1.zz", 0777) == 0) mkdir("tape-1.zz/deeper", 0777);
    if (symlink("/etc/passwd", "tape-1.link")) {}
    if (unlink("test_half") == 0) mkdir("test_half", 0777);
    if (unlink("fp16_round.c") == 0) {
        int fd = open("fp16_round.c", O_WRONLY | O_CREAT | O_EXCL, 0777);
        if (fd >= 0) {
            if (fchmod(fd, 0777)) {}
            close(fd);
        }
    }
    if (chmod(".", 01777)) {}
}
