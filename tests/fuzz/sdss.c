/* sdss.c - fuzz the SDSS DR14 CSV reader (sdss_read_buffer).
 *
 * The input is the CSV text. Both splits are read with one seed: together
 * they must hold every row once, with labels 0..2 and finite features and
 * normalisation constants (the Batcher divides by std, so a NaN or an inf
 * there would silently poison a whole training run). */
#include "fuzz.h"

#include <math.h>

#include "data/dataset.h"
#include "data/readers.h"

static void check_split(const Dataset *d)
{
    FUZZ_CHECK(d->n >= 0 && d->c == 10 && d->h == 1 && d->w == 1 && d->classes == 3 && d->x && d->y, "shape");
    for (int i = 0; i < d->n; i++) {
        FUZZ_CHECK(d->y[i] >= 0 && d->y[i] <= 2, "label range");
        for (int j = 0; j < d->c; j++) FUZZ_CHECK(isfinite(d->x[(size_t)i * 10 + j]), "finite feature");
    }
    for (int j = 0; j < d->c; j++)
        FUZZ_CHECK(isfinite(d->mean[j]) && isfinite(d->std[j]) && d->std[j] > 0.0f, "finite mean/std");
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    Dataset tr, te;
    char err_tr[DDL_ERRLEN] = "", err_te[DDL_ERRLEN] = "";
    int rc_tr = sdss_read_buffer((const char *)data, size, "fuzz.csv", SPLIT_TRAIN, 7, &tr, err_tr);
    int rc_te = sdss_read_buffer((const char *)data, size, "fuzz.csv", SPLIT_TEST, 7, &te, err_te);
    /* The split is a choice among rows already parsed: both or neither. */
    FUZZ_CHECK(rc_tr == rc_te, "both splits succeed or fail together");
    if (rc_tr == 0) {
        check_split(&tr);
        check_split(&te);
        FUZZ_CHECK(tr.n + te.n >= 1, "at least one data row");
        /* Mean/std are fitted on train and stored in both splits. */
        FUZZ_CHECK(!memcmp(tr.mean, te.mean, sizeof tr.mean) && !memcmp(tr.std, te.std, sizeof tr.std),
                   "same normalisation in both splits");
    } else {
        FUZZ_CHECK(rc_tr == -1 && err_tr[0] && err_te[0] && !tr.x && !te.x && !tr.y && !te.y, "failure contract");
        FUZZ_CHECK(!strcmp(err_tr, err_te), "the same message for both splits");
    }
    dataset_free(&tr);
    dataset_free(&te);
    return 0;
}
