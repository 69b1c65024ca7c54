/*
 * tolerance.h - element-wise comparison of a float32 output against the
 * float64 reference under fixed tolerances (docs/TOLERANCES.md).
 *
 * An element passes when it is not NaN and |out - ref| <= atol + rtol * |ref|.
 */
#ifndef SE_TOLERANCE_H
#define SE_TOLERANCE_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct se_tolerance {
    double atol;
    double rtol;
} se_tolerance;

/* The fixed tolerances of docs/TOLERANCES.md. */
#define SE_TOL_ATOL 1e-37
#define SE_TOL_RTOL 1e-4

#define SE_MAX_MISMATCHES 5

typedef struct se_mismatch {
    int64_t index;
    double out;
    double ref;
} se_mismatch;

typedef struct se_compare {
    int64_t n;            /* elements compared */
    int64_t n_fail;       /* elements outside tolerance (NaN included) */
    int64_t n_nan;        /* NaN or infinite outputs */
    double max_abs_err;   /* max |out - ref| over finite outputs */
    double max_rel_err;   /* max |out - ref| / |ref| over finite outputs with |ref| >= FLT_MIN */
    int64_t n_tiny;       /* finite outputs with |ref| < FLT_MIN: below fp32's normal range,
                             where only atol applies and no relative error is reported */
    int n_mismatches;     /* first mismatches kept, at most SE_MAX_MISMATCHES */
    se_mismatch mismatches[SE_MAX_MISMATCHES];
} se_compare;

/* Tests one element. */
int se_within_tolerance(double out, double ref, se_tolerance tol);

/* The same comparison one element at a time (verify's streaming re-check):
 * se_compare_begin, then se_compare_add for i = 0, 1, ... in order, gives
 * what se_compare_f32_f64 gives over the whole array. */
void se_compare_begin(se_compare *res);
void se_compare_add(se_compare *res, int64_t i, double out, double ref, se_tolerance tol);

/* Compares n outputs with n reference values. */
void se_compare_f32_f64(const float *out, const double *ref, int64_t n, se_tolerance tol,
                        se_compare *res);

/* Compares two float32 arrays, b taken as the reference (for agreement with
 * cuDNN): same rules, b widened to double. */
void se_compare_f32_f32(const float *a, const float *b, int64_t n, se_tolerance tol,
                        se_compare *res);

/* 1 when every element passed and there was at least one. */
int se_compare_passed(const se_compare *res);

#ifdef __cplusplus
}
#endif

#endif
