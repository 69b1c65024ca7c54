/*
 * tolerance.c - element-wise comparison under atol + rtol * |ref|.
 */
#include "model/tolerance.h"

#include <float.h>
#include <math.h>
#include <string.h>

int se_within_tolerance(double out, double ref, se_tolerance tol)
{
    if (!isfinite(out) || !isfinite(ref))
        return 0;
    /* Written so that a NaN anywhere makes the comparison false. */
    return fabs(out - ref) <= tol.atol + tol.rtol * fabs(ref);
}

static void compare_one(se_compare *res, int64_t i, double out, double ref, se_tolerance tol)
{
    if (!isfinite(out))
        res->n_nan++;
    else {
        double abs_err = fabs(out - ref);
        if (abs_err > res->max_abs_err)
            res->max_abs_err = abs_err;
        if (fabs(ref) >= FLT_MIN) {
            if (abs_err / fabs(ref) > res->max_rel_err)
                res->max_rel_err = abs_err / fabs(ref);
        } else {
            res->n_tiny++;
        }
    }
    if (!se_within_tolerance(out, ref, tol)) {
        if (res->n_mismatches < SE_MAX_MISMATCHES) {
            se_mismatch *m = &res->mismatches[res->n_mismatches++];
            m->index = i;
            m->out = out;
            m->ref = ref;
        }
        res->n_fail++;
    }
}

void se_compare_begin(se_compare *res)
{
    memset(res, 0, sizeof *res);
}

void se_compare_add(se_compare *res, int64_t i, double out, double ref, se_tolerance tol)
{
    res->n++;
    compare_one(res, i, out, ref, tol);
}

void se_compare_f32_f64(const float *out, const double *ref, int64_t n, se_tolerance tol,
                        se_compare *res)
{
    memset(res, 0, sizeof *res);
    res->n = n;
    for (int64_t i = 0; i < n; i++)
        compare_one(res, i, (double)out[i], ref[i], tol);
}

void se_compare_f32_f32(const float *a, const float *b, int64_t n, se_tolerance tol,
                        se_compare *res)
{
    memset(res, 0, sizeof *res);
    res->n = n;
    for (int64_t i = 0; i < n; i++)
        compare_one(res, i, (double)a[i], (double)b[i], tol);
}

int se_compare_passed(const se_compare *res)
{
    return res->n > 0 && res->n_fail == 0;
}
