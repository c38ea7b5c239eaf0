/* identity.c - dataset_identity (dataset.h): one line that says which data
 * a run trained on, for checkpoints. A run checkpointed on synthetic data
 * and continued on real data (or on files that were fetched again) would
 * end as neither: the line differs, and resume.c calls that another run.
 * Real files are identified by content (size and CRC-32, read in chunks),
 * not by path, so moving the data root is still the same data. */
#include "dataset.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>

/* Size and CRC-32 of a regular file. 0, or -1 with a message. */
static int file_crc(const char *path, long long *size, unsigned long *crc, char err[DDL_ERRLEN])
{
    int fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
    struct stat st;
    if (fd < 0 || fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
        int e = errno;
        if (fd >= 0) close(fd);
        return ddl_errf(err, "%s: cannot read it to identify the data: %s", path,
                        fd >= 0 && e == 0 ? "not a regular file" : strerror(e));
    }
    enum { CHUNK = 1 << 20 };
    unsigned char *buf = malloc(CHUNK);
    if (!buf) ddl_die("out of memory hashing %s", path);
    uLong c = crc32(0L, Z_NULL, 0);
    long long total = 0;
    ssize_t got;
    while ((got = read(fd, buf, CHUNK)) != 0) {
        if (got < 0) {
            if (errno == EINTR) continue;
            int e = errno;
            free(buf);
            close(fd);
            return ddl_errf(err, "%s: read error while identifying the data: %s", path, strerror(e));
        }
        c = crc32(c, buf, (uInt)got);
        total += got;
    }
    free(buf);
    close(fd);
    *size = total;
    *crc = (unsigned long)c;
    return 0;
}

int dataset_identity(const Dataset *d, char *out, size_t cap, char err[DDL_ERRLEN])
{
    /* synthetic: its source says "synthetic mnist (seed S, n N)" */
    int n = snprintf(out, cap, "%s%s, %d examples of %dx%dx%d, %d classes", d->synthetic ? "" : "real ",
                     d->synthetic ? d->source : d->name, d->n, d->c, d->h, d->w, d->classes);
    if (d->synthetic || !d->files[0]) return 0;
    char names[sizeof d->files];
    ddl_strlcpy(names, d->files, sizeof names);
    for (char *save = NULL, *name = strtok_r(names, " ", &save); name; name = strtok_r(NULL, " ", &save)) {
        char path[1400];
        snprintf(path, sizeof path, "%s/%s", d->dir, name);
        long long size = 0;
        unsigned long crc = 0;
        if (file_crc(path, &size, &crc, err) != 0) return -1;
        if (n >= 0 && (size_t)n < cap)
            n += snprintf(out + n, cap - (size_t)n, "; %s %lld bytes crc32 %08lx", name, size, crc);
    }
    return 0;
}
