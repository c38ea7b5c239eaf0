/* image.h - pictures gnuplot cannot draw, written with libpng:
 * dataset sample grids, learned first-layer filters, heat maps. */
#ifndef DDL_IMAGE_H
#define DDL_IMAGE_H

#include <stdint.h>
#include "../data/dataset.h"

/* 8-bit grey (channels = 1) or RGB (channels = 3), row-major, atomically
 * written (the directory of path is created if needed). 0 on success, -1
 * with a message naming path on stderr. At most 16384 pixels per side. */
/* Every writer here returns -1 on failure, and a caller must not drop it
 * (a figure that was not written is a failed run): warn_unused_result
 * makes ignoring it a build error under -Werror. */
#define DDL_MUST_CHECK __attribute__((warn_unused_result))
DDL_MUST_CHECK int png_write(const char *path, int width, int height, int channels, const uint8_t *pixels);

/* rows x cols grid of the first examples of each class (column = class when
 * cols == classes), scaled up by `scale`, 1-pixel grey separators between
 * cells: (cols*w*scale + cols-1) x (rows*h*scale + rows-1) pixels. Cell k
 * (row-major) shows example k / classes of class k % classes (black when
 * the class has too few). c == 3: RGB; otherwise grey (mean over
 * channels). Tabular datasets (h = w = 1): -1 with a message. */
DDL_MUST_CHECK int png_sample_grid(const char *path, const Dataset *d, int rows, int cols, int scale);

/* Conv filters weights[cout][cin][k][k] (cin 1 or 3 shown as grey/RGB,
 * otherwise the mean over input channels), each min-max normalised (a
 * constant filter is mid grey), in a ceil(sqrt(cout))-column grid with
 * 1-pixel separators, each filter k*scale pixels square. Non-finite
 * weights: -1 with a message. */
DDL_MUST_CHECK int png_filters(const char *path, const float *weights, int cout, int cin, int k, int scale);

/* Heat map of an m x n matrix (e.g. a confusion matrix; row i is image
 * row i), min white -> max dark blue, non-finite cells grey; RGB,
 * n*scale x m*scale pixels. */
DDL_MUST_CHECK int png_heatmap(const char *path, const float *values, int m, int n, int scale);

#endif
