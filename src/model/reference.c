/*
 * reference.c - float64 CPU reference (see reference.h). Written for clarity
 * and accuracy, not speed: three passes per row, every sum in double.
 */
#include "model/reference.h"

#include <math.h>

void se_reference_rms_softmax(const float *x, int64_t rows, int64_t cols, double eps, double *y)
{
    for (int64_t r = 0; r < rows; r++) {
        const float *xr = x + r * cols;
        double *yr = y + r * cols;
        double ss = 0.0;
        for (int64_t c = 0; c < cols; c++)
            ss += (double)xr[c] * (double)xr[c];
        double s = 1.0 / sqrt(ss / (double)cols + eps);
        double m = -INFINITY;
        for (int64_t c = 0; c < cols; c++)
            m = fmax(m, s * (double)xr[c]);
        double l = 0.0;
        for (int64_t c = 0; c < cols; c++) {
            yr[c] = exp(s * (double)xr[c] - m);
            l += yr[c];
        }
        for (int64_t c = 0; c < cols; c++)
            yr[c] /= l;
    }
}
