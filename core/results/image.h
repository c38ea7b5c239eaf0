/* image.h - pictures gnuplot cannot draw, written with libpng:
 * dataset sample grids, learned first-layer filters, heat maps. */
#ifndef DDL_IMAGE_H
#define DDL_IMAGE_H

#include <stdint.h>
#include "../data/dataset.h"

/* 8-bit grey (channels = 1) or RGB (channels = 3), row-major, atomically
 * written. 0 on success, -1 with a message on stderr. */
int png_write(const char *path, int width, int height, int channels, const uint8_t *pixels);

/* rows x cols grid of the first examples of each class (column = class when
 * cols == classes), scaled up by `scale`, 1-pixel separators. */
int png_sample_grid(const char *path, const Dataset *d, int rows, int cols, int scale);

/* Conv filters weights[cout][cin][k][k] (cin 1 or 3 shown as grey/RGB,
 * otherwise the mean over input channels), each min-max normalised. */
int png_filters(const char *path, const float *weights, int cout, int cin, int k, int scale);

/* Heat map of an m x n matrix (e.g. a confusion matrix), white->dark blue. */
int png_heatmap(const char *path, const float *values, int m, int n, int scale);

#endif
