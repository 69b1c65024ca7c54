/*
 * reference.h - the float64 CPU references of the workloads (the RMS-scaled
 * softmax, LayerNorm forward), the ground truth every strategy is validated
 * against.
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

/* The same reference one row at a time, over the row's values in chunks
 * (verify's streaming re-check of saved arrays: no row or array need be in
 * memory). In order: se_ref_row_init, se_ref_row_squares over the row,
 * se_ref_row_scale, se_ref_row_max over the row, se_ref_row_exps over the
 * row; then se_ref_value of each x of the row is, bit for bit, what
 * se_reference_rms_softmax writes for it (the same operations in the same
 * order). */
typedef struct se_ref_row {
    double ss; /* sum of x^2 */
    double s;  /* 1 / sqrt(mean(x^2) + eps) */
    double m;  /* max(s * x) */
    double l;  /* sum(exp(s * x - m)) */
} se_ref_row;

void se_ref_row_init(se_ref_row *r);
void se_ref_row_squares(se_ref_row *r, const float *x, int64_t n);
void se_ref_row_scale(se_ref_row *r, int64_t cols, double eps);
void se_ref_row_max(se_ref_row *r, const float *x, int64_t n);
void se_ref_row_exps(se_ref_row *r, const float *x, int64_t n);
double se_ref_value(const se_ref_row *r, float x);

/* LayerNorm forward, per row r of x, in float64 throughout:
 *   mean = sum(x) / cols,  var = sum((x - mean)^2) / cols,
 *   rstd = 1 / sqrt(var + eps),
 *   y = (x - mean) * rstd * gamma[c] + beta[c]
 * with gamma and beta the functions of the column of layernorm_params.h.
 * y has rows * cols doubles. */
void se_reference_layernorm(const float *x, int64_t rows, int64_t cols, double eps, double *y);

/* The same streamed (se_ref_row's counterpart): se_ln_row_init, the sum
 * se_ln_row_sum over the row, se_ln_row_mean, the squared deviations
 * se_ln_row_dev over the row, se_ln_row_rstd; then se_ln_value of each x
 * of the row at its column is, bit for bit, what se_reference_layernorm
 * writes there. */
typedef struct se_ln_row {
    double sum;  /* sum of x */
    double mean; /* sum / cols */
    double dev;  /* sum of (x - mean)^2 */
    double rstd; /* 1 / sqrt(dev / cols + eps) */
} se_ln_row;

void se_ln_row_init(se_ln_row *r);
void se_ln_row_sum(se_ln_row *r, const float *x, int64_t n);
void se_ln_row_mean(se_ln_row *r, int64_t cols);
void se_ln_row_dev(se_ln_row *r, const float *x, int64_t n);
void se_ln_row_rstd(se_ln_row *r, int64_t cols, double eps);
double se_ln_value(const se_ln_row *r, float x, int64_t col);

#ifdef __cplusplus
}
#endif

#endif
