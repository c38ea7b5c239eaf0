/* image.c - PNG pictures gnuplot cannot draw (see image.h).
 *
 * Every picture is drawn into an 8-bit canvas in memory, encoded by
 * libpng's simplified API into memory (no setjmp/longjmp error handling to
 * get wrong) and written with write_file_atomic(), like every other
 * result file. */
#include "image.h"

#include <errno.h>
#include <math.h>
#include <png.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../util/common.h"
#include "results.h"

/* Large enough for any figure, small enough that sizes fit in int and a
 * bad scale factor fails clearly instead of eating the machine's memory. */
#define IMAGE_MAX_SIDE 16384
#define IMAGE_SEPARATOR 128   /* grey of the 1-px lines between cells */

typedef struct Canvas {
    int w, h, ch;
    uint8_t *px;
} Canvas;

static int canvas_new(Canvas *cv, const char *path, long w, long h, int ch, uint8_t fill)
{
    if (w < 1 || h < 1 || w > IMAGE_MAX_SIDE || h > IMAGE_MAX_SIDE) {
        ddl_warn("cannot write %s: image would be %ldx%ld pixels (1..%d per side)", path, w, h,
                 IMAGE_MAX_SIDE);
        return -1;
    }
    cv->w = (int)w;
    cv->h = (int)h;
    cv->ch = ch;
    size_t bytes = (size_t)w * (size_t)h * (size_t)ch;
    cv->px = malloc(bytes);
    if (!cv->px) ddl_die("out of memory for a %ldx%ld image", w, h);
    memset(cv->px, fill, bytes);
    return 0;
}

/* Fill the scale x scale block of logical pixel (x, y) inside the cell whose
 * top-left canvas corner is (x0, y0). rgb[0] is used for grey canvases. */
static void put_block(Canvas *cv, int x0, int y0, int x, int y, int scale, const uint8_t rgb[3])
{
    for (int dy = 0; dy < scale; dy++) {
        uint8_t *row = cv->px + ((size_t)(y0 + y * scale + dy) * (size_t)cv->w + (size_t)(x0 + x * scale)) * (size_t)cv->ch;
        for (int dx = 0; dx < scale; dx++)
            for (int c = 0; c < cv->ch; c++) *row++ = rgb[c];
    }
}

static uint8_t to_byte(float v)
{
    if (!(v > 0.0f)) return 0;   /* also NaN */
    if (v >= 1.0f) return 255;
    return (uint8_t)lrintf(v * 255.0f);
}

int png_write(const char *path, int width, int height, int channels, const uint8_t *pixels)
{
    if (width < 1 || height < 1 || width > IMAGE_MAX_SIDE || height > IMAGE_MAX_SIDE ||
        (channels != 1 && channels != 3) || !pixels) {
        ddl_warn("cannot write %s: bad image %dx%d with %d channels", path, width, height, channels);
        return -1;
    }
    png_image img;
    memset(&img, 0, sizeof img);
    img.version = PNG_IMAGE_VERSION;
    img.width = (png_uint_32)width;
    img.height = (png_uint_32)height;
    img.format = channels == 3 ? PNG_FORMAT_RGB : PNG_FORMAT_GRAY;
    /* The worst case (incompressible data) bounds the encoded size. */
    png_alloc_size_t size = PNG_IMAGE_PNG_SIZE_MAX(img);
    void *mem = malloc(size);
    if (!mem) ddl_die("out of memory encoding %s", path);
    if (!png_image_write_to_memory(&img, mem, &size, 0, pixels, 0, NULL)) {
        ddl_warn("cannot write %s: libpng: %s", path, img.message);
        png_image_free(&img);
        free(mem);
        return -1;
    }
    int rc = -1;
    if (mkdir_parent(path) != 0)
        ddl_warn("cannot write %s: creating its directory: %s", path, strerror(errno));
    else
        rc = write_file_atomic(path, mem, size);
    free(mem);
    return rc;
}

static int canvas_write(Canvas *cv, const char *path)
{
    int rc = png_write(path, cv->w, cv->h, cv->ch, cv->px);
    free(cv->px);
    cv->px = NULL;
    return rc;
}

int png_sample_grid(const char *path, const Dataset *d, int rows, int cols, int scale)
{
    if (!d || !d->x || d->n < 1 || d->c < 1 || d->h < 1 || d->w < 1) {
        ddl_warn("cannot write %s: empty dataset", path);
        return -1;
    }
    if (d->h == 1 && d->w == 1) {
        ddl_warn("cannot write %s: dataset '%s' is tabular (%d features), it has no pictures", path,
                 d->name, d->c);
        return -1;
    }
    if (rows < 1 || cols < 1 || scale < 1) {
        ddl_warn("cannot write %s: bad grid %dx%d at scale %d", path, rows, cols, scale);
        return -1;
    }
    /* Cell k (row-major) shows occurrence k / classes of class k % classes,
     * so with cols == classes column j is class j. Without labels the
     * cells are simply the first examples. */
    long cells = (long)rows * cols;
    int classes = d->y && d->classes > 0 ? d->classes : 1;
    long need = (cells + classes - 1) / classes;
    if (need > d->n) need = d->n;
    int *pick = malloc((size_t)classes * (size_t)need * sizeof *pick);
    int *found = calloc((size_t)classes, sizeof *found);
    if (!pick || !found) ddl_die("out of memory");
    for (int i = 0; i < d->n; i++) {
        int y = d->y && d->classes > 0 ? d->y[i] : 0;
        if (y < 0 || y >= classes || found[y] >= need) continue;
        pick[(size_t)y * (size_t)need + (size_t)found[y]++] = i;
    }

    int ch = d->c == 3 ? 3 : 1;
    long cw = (long)d->w * scale, chh = (long)d->h * scale;
    Canvas cv;
    if (canvas_new(&cv, path, cols * cw + (cols - 1), rows * chh + (rows - 1), ch, IMAGE_SEPARATOR) != 0) {
        free(pick);
        free(found);
        return -1;
    }
    size_t plane = (size_t)d->h * (size_t)d->w, per = plane * (size_t)d->c;
    uint8_t black[3] = {0, 0, 0};
    for (long k = 0; k < cells; k++) {
        int r = (int)(k / cols), c = (int)(k % cols);
        int x0 = (int)(c * (cw + 1)), y0 = (int)(r * (chh + 1));
        int cls = (int)(k % classes);
        long occ = k / classes;
        bool have = occ < found[cls];
        const float *img = have ? d->x + (size_t)pick[(size_t)cls * (size_t)need + (size_t)occ] * per : NULL;
        for (int y = 0; y < d->h; y++)
            for (int x = 0; x < d->w; x++) {
                uint8_t rgb[3];
                size_t at = (size_t)y * (size_t)d->w + (size_t)x;
                if (!img) memcpy(rgb, black, 3);
                else if (ch == 3)
                    for (int p = 0; p < 3; p++) rgb[p] = to_byte(img[(size_t)p * plane + at]);
                else {
                    /* One channel, or the mean of an unusual channel count. */
                    float s = 0;
                    for (int p = 0; p < d->c; p++) s += img[(size_t)p * plane + at];
                    rgb[0] = to_byte(s / (float)d->c);
                }
                put_block(&cv, x0, y0, x, y, scale, rgb);
            }
    }
    free(pick);
    free(found);
    return canvas_write(&cv, path);
}

int png_filters(const char *path, const float *weights, int cout, int cin, int k, int scale)
{
    if (!weights || cout < 1 || cin < 1 || k < 1 || scale < 1) {
        ddl_warn("cannot write %s: bad filter bank %dx%dx%dx%d at scale %d", path, cout, cin, k, k, scale);
        return -1;
    }
    int gcols = (int)ceil(sqrt((double)cout));
    int grows = (cout + gcols - 1) / gcols;
    long side = (long)k * scale;
    int ch = cin == 3 ? 3 : 1;
    size_t plane = (size_t)k * (size_t)k;
    for (size_t i = 0; i < (size_t)cout * (size_t)cin * plane; i++)
        if (!isfinite(weights[i])) {
            ddl_warn("cannot write %s: filter %zu has a non-finite weight", path, i / ((size_t)cin * plane));
            return -1;
        }
    Canvas cv;
    if (canvas_new(&cv, path, gcols * side + (gcols - 1), grows * side + (grows - 1), ch, IMAGE_SEPARATOR) != 0)
        return -1;
    float *img = malloc(plane * (size_t)ch * sizeof *img);
    if (!img) ddl_die("out of memory");
    for (int f = 0; f < cout; f++) {
        const float *w = weights + (size_t)f * (size_t)cin * plane;
        /* RGB keeps the channels' relative strength: one min/max per filter. */
        for (size_t i = 0; i < plane; i++) {
            if (ch == 3) {
                for (int p = 0; p < 3; p++) img[(size_t)p * plane + i] = w[(size_t)p * plane + i];
            } else {
                float s = 0;
                for (int p = 0; p < cin; p++) s += w[(size_t)p * plane + i];
                img[i] = s / (float)cin;
            }
        }
        float lo = img[0], hi = img[0];
        for (size_t i = 0; i < plane * (size_t)ch; i++) {
            lo = fminf(lo, img[i]);
            hi = fmaxf(hi, img[i]);
        }
        int x0 = (int)((f % gcols) * (side + 1)), y0 = (int)((f / gcols) * (side + 1));
        for (int y = 0; y < k; y++)
            for (int x = 0; x < k; x++) {
                uint8_t rgb[3];
                for (int p = 0; p < ch; p++) {
                    float v = img[(size_t)p * plane + (size_t)y * (size_t)k + (size_t)x];
                    rgb[p] = hi > lo ? to_byte((v - lo) / (hi - lo)) : 128;
                }
                put_block(&cv, x0, y0, x, y, scale, rgb);
            }
    }
    free(img);
    return canvas_write(&cv, path);
}

int png_heatmap(const char *path, const float *values, int m, int n, int scale)
{
    if (!values || m < 1 || n < 1 || scale < 1) {
        ddl_warn("cannot write %s: bad heat map %dx%d at scale %d", path, m, n, scale);
        return -1;
    }
    float lo = INFINITY, hi = -INFINITY;
    for (size_t i = 0; i < (size_t)m * (size_t)n; i++)
        if (isfinite(values[i])) {
            lo = fminf(lo, values[i]);
            hi = fmaxf(hi, values[i]);
        }
    Canvas cv;
    if (canvas_new(&cv, path, (long)n * scale, (long)m * scale, 3, 0) != 0) return -1;
    /* White (lowest) to ColorBrewer's darkest "Blues" (highest); non-finite
     * cells are mid grey so that they stand out from both ends. */
    const float from[3] = {255, 255, 255}, to[3] = {8, 48, 107};
    for (int i = 0; i < m; i++)
        for (int j = 0; j < n; j++) {
            float v = values[(size_t)i * (size_t)n + (size_t)j];
            uint8_t rgb[3] = {128, 128, 128};
            if (isfinite(v)) {
                float t = hi > lo ? (v - lo) / (hi - lo) : 0.0f;
                for (int p = 0; p < 3; p++) rgb[p] = (uint8_t)lrintf(from[p] + t * (to[p] - from[p]));
            }
            put_block(&cv, 0, 0, j, i, scale, rgb);
        }
    return canvas_write(&cv, path);
}
