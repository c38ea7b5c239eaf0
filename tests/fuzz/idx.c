/* idx.c - fuzz the IDX readers (MNIST images and labels, plain or gzip).
 *
 * The input is one file, handed over as a memfd (the _fd forms take a file
 * descriptor). Both readers see every input: the two formats differ only in
 * the magic and the number of dims, so one corpus serves both. */
#include "fuzz.h"

#include "data/dataset.h"
#include "data/readers.h"

/* Properties of a successful read, beyond "no memory error". */
static void check_images(const Dataset *d, const uint8_t *data, size_t size)
{
    FUZZ_CHECK(d->n > 0 && d->c == 1 && d->h > 0 && d->w > 0 && d->x && !d->y, "images: shape");
    size_t pixels = (size_t)d->n * (size_t)d->h * (size_t)d->w;
    /* A plain file (not gzip) is the 16-byte header plus exactly the payload. */
    if (size < 2 || data[0] != 0x1f || data[1] != 0x8b) FUZZ_CHECK(size == 16 + pixels, "images: size");
    for (size_t i = 0; i < pixels; i++) FUZZ_CHECK(d->x[i] >= 0.0f && d->x[i] <= 1.0f, "images: pixel range");
}

static void check_labels(const Dataset *d, const uint8_t *data, size_t size)
{
    FUZZ_CHECK(d->n > 0 && d->y && !d->x && d->classes == 10, "labels: shape");
    if (size < 2 || data[0] != 0x1f || data[1] != 0x8b) FUZZ_CHECK(size == 8 + (size_t)d->n, "labels: size");
    for (int i = 0; i < d->n; i++) FUZZ_CHECK(d->y[i] >= 0 && d->y[i] <= 9, "labels: range");
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    for (int labels = 0; labels < 2; labels++) {
        Dataset d;
        char err[DDL_ERRLEN] = "";
        int fd = fuzz_file(data, size); /* the reader closes it */
        int rc = labels ? idx_read_labels_fd(fd, "fuzz.idx", &d, err) : idx_read_images_fd(fd, "fuzz.idx", &d, err);
        if (rc == 0) {
            if (labels) check_labels(&d, data, size);
            else check_images(&d, data, size);
        } else {
            /* readers.h: on failure -1 with *out empty and a message. */
            FUZZ_CHECK(rc == -1 && err[0] && !d.x && !d.y && d.n == 0, "failure contract");
        }
        dataset_free(&d);
    }
    return 0;
}
