/*
 * reference.h - the float64 CPU reference of the RMS-scaled softmax, the
 * ground truth every strategy is validated against.
 */
#ifndef SE_REFERENCE_H
#define SE_REFERENCE_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Per row r of the row-major rows x cols matrix x, in float64 throughout:
 *   s = 1 / sqrt(mean(x^2) + eps),  m = max(s * x),
 *   y = exp(s * x - m) / sum(exp(s * x - m)).
 * y has rows * cols doubles. */
void se_reference_rms_softmax(const float *x, int64_t rows, int64_t cols, double eps, double *y);

#ifdef __cplusplus
}
#endif

#endif
