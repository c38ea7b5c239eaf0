/* grade-isolation: lab5/fp16_round full - right code whose constructor
 * fills its work folder: 20,000 files, named like sources and objects
 * (junk-N.c, junk-N.o) and not (notes.txt), each run. Only the source
 * and the object the grader made may be left there. */
#include <fcntl.h>
#include <stdio.h>
#include <unistd.h>

#include "util/half_round.c"

__attribute__((constructor)) static void fill(void)
{
    char name[64];
    int made = 0;
    for (int i = 0; i < 20000; i++) {
        snprintf(name, sizeof name, i == 0 ? "notes.txt" : "junk-%05d.%c", i, i % 2 ? 'c' : 'o');
        int fd = open(name, O_CREAT | O_WRONLY | O_TRUNC, 0666);
        if (fd >= 0) {
            made++;
            (void)write(fd, "x\n", 2);
            close(fd);
        }
    }
    fprintf(stderr, "isolation: made %d files\n", made);
}
