/* cifar.c - fuzz the CIFAR-10 batch reader (cifar_read_buffer).
 *
 * The input is one batch file's bytes. Each input is read twice, as a
 * partial batch (any whole number of records) and as an official one
 * (exactly 10000 records, so fuzz-sized inputs exercise its refusal). */
#include "fuzz.h"

#include "data/dataset.h"
#include "data/readers.h"

#define REC (1 + 3 * 32 * 32) /* label byte + 3 planes of 32x32 */

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    for (int partial = 1; partial >= 0; partial--) {
        Dataset d;
        char err[DDL_ERRLEN] = "";
        int rc = cifar_read_buffer(data, size, "fuzz.bin", partial, &d, err);
        if (rc != 0) {
            FUZZ_CHECK(rc == -1 && err[0] && !d.x && !d.y && d.n == 0, "failure contract");
            continue;
        }
        /* Success: one example per record, label and pixels as stored. */
        FUZZ_CHECK(size % REC == 0 && (size_t)d.n == size / REC, "record count");
        FUZZ_CHECK(partial || d.n == 10000, "official batches hold 10000 records");
        FUZZ_CHECK(d.c == 3 && d.h == 32 && d.w == 32 && d.classes == 10 && d.x && d.y, "shape");
        for (int r = 0; r < d.n; r++) {
            const uint8_t *rec = data + (size_t)r * REC;
            FUZZ_CHECK(d.y[r] == rec[0] && rec[0] <= 9, "label");
            for (int i = 0; i < REC - 1; i++)
                FUZZ_CHECK(d.x[(size_t)r * (REC - 1) + i] == (float)rec[1 + i] / 255.0f, "pixel");
        }
        dataset_free(&d);
    }
    return 0;
}
