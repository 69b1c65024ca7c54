/*
 * reference.c - float64 CPU reference (see reference.h). Written for clarity
 * and accuracy, not speed: three passes per row, every sum in double.
 */
#include "model/reference.h"

#include <math.h>

#include "model/layernorm_params.h"

void se_ref_row_init(se_ref_row *r)
{
    r->ss = 0.0;
    r->s = 0.0;
    r->m = -INFINITY;
    r->l = 0.0;
}

void se_ref_row_squares(se_ref_row *r, const float *x, int64_t n)
{
    for (int64_t c = 0; c < n; c++)
        r->ss += (double)x[c] * (double)x[c];
}

void se_ref_row_scale(se_ref_row *r, int64_t cols, double eps)
{
    r->s = 1.0 / sqrt(r->ss / (double)cols + eps);
}

void se_ref_row_max(se_ref_row *r, const float *x, int64_t n)
{
    for (int64_t c = 0; c < n; c++)
        r->m = fmax(r->m, r->s * (double)x[c]);
}

void se_ref_row_exps(se_ref_row *r, const float *x, int64_t n)
{
    for (int64_t c = 0; c < n; c++)
        r->l += exp(r->s * (double)x[c] - r->m);
}

double se_ref_value(const se_ref_row *r, float x)
{
    return exp(r->s * (double)x - r->m) / r->l;
}

void se_reference_rms_softmax(const float *x, int64_t rows, int64_t cols, double eps, double *y)
{
    for (int64_t r = 0; r < rows; r++) {
        const float *xr = x + r * cols;
        double *yr = y + r * cols;
        se_ref_row st;
        se_ref_row_init(&st);
        se_ref_row_squares(&st, xr, cols);
        se_ref_row_scale(&st, cols, eps);
        se_ref_row_max(&st, xr, cols);
        double l = 0.0;
        for (int64_t c = 0; c < cols; c++) {
            yr[c] = exp(st.s * (double)xr[c] - st.m);
            l += yr[c];
        }
        for (int64_t c = 0; c < cols; c++)
            yr[c] /= l;
    }
}

void se_ln_row_init(se_ln_row *r)
{
    r->sum = 0.0;
    r->mean = 0.0;
    r->dev = 0.0;
    r->rstd = 0.0;
}

void se_ln_row_sum(se_ln_row *r, const float *x, int64_t n)
{
    for (int64_t c = 0; c < n; c++)
        r->sum += (double)x[c];
}

void se_ln_row_mean(se_ln_row *r, int64_t cols)
{
    r->mean = r->sum / (double)cols;
}

void se_ln_row_dev(se_ln_row *r, const float *x, int64_t n)
{
    for (int64_t c = 0; c < n; c++) {
        double d = (double)x[c] - r->mean;
        r->dev += d * d;
    }
}

void se_ln_row_rstd(se_ln_row *r, int64_t cols, double eps)
{
    r->rstd = 1.0 / sqrt(r->dev / (double)cols + eps);
}

double se_ln_value(const se_ln_row *r, float x, int64_t col)
{
    return ((double)x - r->mean) * r->rstd * (double)se_ln_gamma(col) + (double)se_ln_beta(col);
}

void se_reference_layernorm(const float *x, int64_t rows, int64_t cols, double eps, double *y)
{
    for (int64_t r = 0; r < rows; r++) {
        const float *xr = x + r * cols;
        double *yr = y + r * cols;
        se_ln_row st;
        se_ln_row_init(&st);
        se_ln_row_sum(&st, xr, cols);
        se_ln_row_mean(&st, cols);
        se_ln_row_dev(&st, xr, cols);
        se_ln_row_rstd(&st, cols, eps);
        for (int64_t c = 0; c < cols; c++)
            yr[c] = se_ln_value(&st, xr[c], c);
    }
}
