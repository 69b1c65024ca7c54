/*
 * test_tolerance.c - unit tests of the element-wise comparison in
 * tolerance.h: se_within_tolerance, se_compare_f32_f64, se_compare_f32_f32
 * and se_compare_passed.
 *
 * These functions decide whether a strategy's output is accepted, so the
 * tests pin the exact pass/fail boundary (|out - ref| <= atol + rtol*|ref|,
 * equality passing and one ulp above failing), the handling of NaN and
 * infinities, the statistics and the first mismatches reported, and the
 * fixed tolerance constants documented for the project.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <float.h>
#include <math.h>
#include <string.h>

#include "model/tolerance.h"

/* Dyadic tolerances: every bound below is computed exactly in double. */
static const se_tolerance dyadic = {0.25, 0.5};
static const se_tolerance fixed = {SE_TOL_ATOL, SE_TOL_RTOL};

static void test_fixed_tolerance_constants_are_1e_37_and_1e_4(void **state)
{
    (void)state;
    assert_true(SE_TOL_ATOL == 1e-37);
    assert_true(SE_TOL_RTOL == 1e-4);
    assert_int_equal(SE_MAX_MISMATCHES, 5);
}

/* se_within_tolerance of ref + sign * err, after checking that the output
 * is exact, i.e. that |out - ref| is err and not a rounding of it. */
static int within_at_error(double ref, double sign, double err, se_tolerance tol)
{
    double out = ref + sign * err;
    if (fabs(out - ref) != err)
        fail_msg("test setup: |(%.17g) - (%.17g)| is not exactly %.17g", out, ref, err);
    return se_within_tolerance(out, ref, tol);
}

static void test_error_exactly_at_the_bound_passes(void **state)
{
    (void)state;
    /* ref 1: bound = 0.25 + 0.5 * 1 = 0.75, on both sides. */
    assert_int_equal(within_at_error(1.0, +1.0, 0.75, dyadic), 1);
    assert_int_equal(within_at_error(1.0, -1.0, 0.75, dyadic), 1);
    /* ref -2: bound = 0.25 + 0.5 * 2 = 1.25 (uses |ref|). */
    assert_int_equal(within_at_error(-2.0, +1.0, 1.25, dyadic), 1);
    assert_int_equal(within_at_error(-2.0, -1.0, 1.25, dyadic), 1);
    /* ref 0: bound = atol. */
    assert_int_equal(within_at_error(0.0, +1.0, 0.25, dyadic), 1);
    assert_int_equal(within_at_error(0.0, +1.0, SE_TOL_ATOL, fixed), 1);
    assert_int_equal(within_at_error(0.0, -1.0, SE_TOL_ATOL, fixed), 1);
}

static void test_error_one_ulp_above_the_bound_fails(void **state)
{
    (void)state;
    /* ref +-0.25 with atol 0.25, rtol 1: bound 0.5, and both 0.5 and the
     * next double above it are exact errors on either side of ref. */
    const se_tolerance unit_rtol = {0.25, 1.0};
    const double above = nextafter(0.5, 1.0);
    for (int k = 0; k < 4; k++) {
        double ref = k < 2 ? 0.25 : -0.25;
        double sign = k % 2 ? -1.0 : 1.0;
        assert_int_equal(within_at_error(ref, sign, 0.5, unit_rtol), 1);
        assert_int_equal(within_at_error(ref, sign, above, unit_rtol), 0);
    }
    assert_int_equal(within_at_error(0.0, +1.0, nextafter(0.25, 1.0), dyadic), 0);
    assert_int_equal(within_at_error(0.0, +1.0, nextafter(SE_TOL_ATOL, 1.0), fixed), 0);
    assert_int_equal(within_at_error(0.0, -1.0, nextafter(SE_TOL_ATOL, 1.0), fixed), 0);
}

static void test_fixed_tolerance_accepts_1e_4_relative_and_refuses_2e_4(void **state)
{
    (void)state;
    assert_int_equal(se_within_tolerance(1.0 + 0.99e-4, 1.0, fixed), 1);
    assert_int_equal(se_within_tolerance(1.0 - 0.99e-4, 1.0, fixed), 1);
    assert_int_equal(se_within_tolerance(1.0 + 2e-4, 1.0, fixed), 0);
    assert_int_equal(se_within_tolerance(1e-30 * (1.0 + 0.99e-4), 1e-30, fixed), 1);
    assert_int_equal(se_within_tolerance(1e-30 * (1.0 + 2e-4), 1e-30, fixed), 0);
}

static void test_nan_never_passes_even_with_huge_tolerance(void **state)
{
    (void)state;
    const se_tolerance huge = {INFINITY, INFINITY};
    const se_tolerance big = {1e300, 1e300};
    assert_int_equal(se_within_tolerance(NAN, 1.0, big), 0);
    assert_int_equal(se_within_tolerance(NAN, 1.0, huge), 0);
    assert_int_equal(se_within_tolerance(1.0, NAN, big), 0);
    assert_int_equal(se_within_tolerance(1.0, NAN, huge), 0);
    assert_int_equal(se_within_tolerance(NAN, NAN, huge), 0);
    assert_int_equal(se_within_tolerance(-NAN, 0.0, big), 0);
}

static void test_infinite_output_fails_even_against_infinite_ref(void **state)
{
    (void)state;
    const se_tolerance big = {1e300, 1e300};
    assert_int_equal(se_within_tolerance(INFINITY, 1.0, big), 0);
    assert_int_equal(se_within_tolerance(-INFINITY, 1.0, big), 0);
    assert_int_equal(se_within_tolerance(INFINITY, INFINITY, big), 0);
    assert_int_equal(se_within_tolerance(1.0, INFINITY, big), 0);
}

static void test_compare_counts_nan_and_inf_outputs_as_failures(void **state)
{
    (void)state;
    const float out[6] = {0.5f, NAN, INFINITY, -INFINITY, 0.25f, NAN};
    const double ref[6] = {0.5, 0.5, 0.5, 0.5, 0.25, 0.0};
    se_compare res;
    se_compare_f32_f64(out, ref, 6, fixed, &res);
    assert_int_equal(res.n, 6);
    assert_int_equal(res.n_nan, 4);
    assert_int_equal(res.n_fail, 4);
    assert_int_equal(res.n_mismatches, 4);
    assert_int_equal(res.mismatches[0].index, 1);
    assert_true(isnan(res.mismatches[0].out));
    assert_true(res.mismatches[1].out == INFINITY);
    assert_true(res.mismatches[2].out == -INFINITY);
    assert_int_equal(res.mismatches[3].index, 5);
    /* Non-finite outputs stay out of the error maxima. */
    assert_true(res.max_abs_err == 0.0);
    assert_true(res.max_rel_err == 0.0);
    assert_int_equal(se_compare_passed(&res), 0);
}

static void test_compare_max_abs_and_rel_errors_are_exact(void **state)
{
    (void)state;
    /* abs errors 0.5, 0.5, 0.25, 1, (NaN skipped), 0; rel errors 0.5, 0.2,
     * (ref 0 skipped), 0.25, -, 0. */
    const float out[6] = {1.5f, 2.0f, 0.25f, 5.0f, NAN, 8.0f};
    const double ref[6] = {1.0, 2.5, 0.0, 4.0, 1000.0, 8.0};
    se_compare res;
    se_compare_f32_f64(out, ref, 6, dyadic, &res);
    assert_true(res.max_abs_err == 1.0);
    assert_true(res.max_rel_err == 0.5);
    assert_int_equal(res.n_nan, 1);
    /* Bounds: 0.75, 1.5, 0.25, 2.25, -, 4.25: only the NaN fails. */
    assert_int_equal(res.n_fail, 1);
    assert_int_equal(res.mismatches[0].index, 4);
    assert_true(res.mismatches[0].ref == 1000.0);
}

static void test_compare_reports_no_relative_error_below_fp32_normal_range(void **state)
{
    (void)state;
    /* |ref| < FLT_MIN (0 and 1e-39) is counted in n_tiny and left out of
     * max_rel_err; FLT_MIN itself is a normal value and counts (rel 0.5).
     * Below FLT_MIN only atol applies: 1e-37f (9.99999991e-38) against 0
     * passes, 3e-37f against 0 fails. */
    const float out[5] = {1e-37f, 2e-39f, 0.5f, 1.5f * FLT_MIN, 3e-37f};
    const double ref[5] = {0.0, 1e-39, 0.5, (double)FLT_MIN, 0.0};
    se_compare res;
    se_compare_f32_f64(out, ref, 5, fixed, &res);
    assert_int_equal(res.n_tiny, 3);
    assert_true(res.max_rel_err == 0.5);
    assert_true(res.max_abs_err == (double)3e-37f);
    assert_int_equal(res.n_fail, 1);
    assert_int_equal(res.mismatches[0].index, 4);
}

static void test_compare_keeps_first_five_mismatches_and_counts_all(void **state)
{
    (void)state;
    enum { N = 12 };
    float out[N];
    double ref[N];
    /* Fails at 1, 2, 4, 6, 7, 9, 10, 11 (out = 10 * (i + 1), ref = i). */
    const int fails[N] = {0, 1, 1, 0, 1, 0, 1, 1, 0, 1, 1, 1};
    for (int i = 0; i < N; i++) {
        ref[i] = (double)i;
        out[i] = fails[i] ? 10.0f * (float)(i + 1) : (float)i;
    }
    se_compare res;
    se_compare_f32_f64(out, ref, N, fixed, &res);
    assert_int_equal(res.n, N);
    assert_int_equal(res.n_fail, 8);
    assert_int_equal(res.n_mismatches, SE_MAX_MISMATCHES);
    const int64_t want[SE_MAX_MISMATCHES] = {1, 2, 4, 6, 7};
    for (int k = 0; k < SE_MAX_MISMATCHES; k++) {
        assert_int_equal(res.mismatches[k].index, want[k]);
        assert_true(res.mismatches[k].out == 10.0 * (double)(want[k] + 1));
        assert_true(res.mismatches[k].ref == (double)want[k]);
    }
    assert_true(res.max_abs_err == 120.0 - 11.0);
    assert_int_equal(se_compare_passed(&res), 0);
}

static void test_compare_of_matching_arrays_passes_with_zero_error(void **state)
{
    (void)state;
    const float out[4] = {0.125f, 0.25f, 0.5f, 0.125f};
    const double ref[4] = {0.125, 0.25, 0.5, 0.125};
    se_compare res;
    se_compare_f32_f64(out, ref, 4, fixed, &res);
    assert_int_equal(res.n, 4);
    assert_int_equal(res.n_fail, 0);
    assert_int_equal(res.n_nan, 0);
    assert_int_equal(res.n_mismatches, 0);
    assert_true(res.max_abs_err == 0.0);
    assert_true(res.max_rel_err == 0.0);
    assert_int_equal(se_compare_passed(&res), 1);
}

static void test_compare_resets_a_reused_result(void **state)
{
    (void)state;
    const float bad[2] = {NAN, 7.0f};
    const float good[2] = {1.0f, 2.0f};
    const double ref[2] = {1.0, 2.0};
    se_compare res;
    se_compare_f32_f64(bad, ref, 2, fixed, &res);
    assert_int_equal(res.n_fail, 2);
    se_compare_f32_f64(good, ref, 2, fixed, &res);
    assert_int_equal(res.n_fail, 0);
    assert_int_equal(res.n_nan, 0);
    assert_int_equal(res.n_mismatches, 0);
    assert_true(res.max_abs_err == 0.0);
    assert_int_equal(se_compare_passed(&res), 1);
}

static void test_empty_compare_does_not_pass(void **state)
{
    (void)state;
    const float out[1] = {1.0f};
    const double ref[1] = {1.0};
    const float ref32[1] = {1.0f};
    se_compare res;
    memset(&res, 0x5a, sizeof res);
    se_compare_f32_f64(out, ref, 0, fixed, &res);
    assert_int_equal(res.n, 0);
    assert_int_equal(res.n_fail, 0);
    assert_int_equal(se_compare_passed(&res), 0);
    se_compare_f32_f32(out, ref32, 0, fixed, &res);
    assert_int_equal(res.n, 0);
    assert_int_equal(se_compare_passed(&res), 0);
}

static void test_compare_f32_f32_takes_second_array_as_reference(void **state)
{
    (void)state;
    /* The bound uses |b|. With b = 0 the bound is atol = 0.25: a = 0.25
     * passes, a = 0.5 fails. Swapped, the bounds are 0.375 and 0.5 and both
     * pass, so the two argument orders give different results. */
    const float a[2] = {0.25f, 0.5f};
    const float b[2] = {0.0f, 0.0f};
    se_compare res;
    se_compare_f32_f32(a, b, 2, dyadic, &res);
    assert_int_equal(res.n, 2);
    assert_int_equal(res.n_fail, 1);
    assert_int_equal(res.n_mismatches, 1);
    assert_int_equal(res.mismatches[0].index, 1);
    assert_true(res.mismatches[0].out == 0.5);
    assert_true(res.mismatches[0].ref == 0.0);
    assert_true(res.max_abs_err == 0.5);
    assert_true(res.max_rel_err == 0.0);
    se_compare_f32_f32(b, a, 2, dyadic, &res);
    assert_int_equal(res.n_fail, 0);
    assert_true(res.max_rel_err == 1.0);
    assert_int_equal(se_compare_passed(&res), 1);
}

static void test_compare_f32_f32_counts_nan_in_either_array(void **state)
{
    (void)state;
    const float a[3] = {NAN, 1.0f, 1.0f};
    const float b[3] = {1.0f, NAN, 1.0f};
    se_compare res;
    se_compare_f32_f32(a, b, 3, fixed, &res);
    assert_int_equal(res.n_nan, 1); /* only outputs (a) count as NaN outputs */
    assert_int_equal(res.n_fail, 2);
    assert_int_equal(res.mismatches[0].index, 0);
    assert_int_equal(res.mismatches[1].index, 1);
    assert_int_equal(se_compare_passed(&res), 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_fixed_tolerance_constants_are_1e_37_and_1e_4),
        cmocka_unit_test(test_error_exactly_at_the_bound_passes),
        cmocka_unit_test(test_error_one_ulp_above_the_bound_fails),
        cmocka_unit_test(test_fixed_tolerance_accepts_1e_4_relative_and_refuses_2e_4),
        cmocka_unit_test(test_nan_never_passes_even_with_huge_tolerance),
        cmocka_unit_test(test_infinite_output_fails_even_against_infinite_ref),
        cmocka_unit_test(test_compare_counts_nan_and_inf_outputs_as_failures),
        cmocka_unit_test(test_compare_max_abs_and_rel_errors_are_exact),
        cmocka_unit_test(test_compare_reports_no_relative_error_below_fp32_normal_range),
        cmocka_unit_test(test_compare_keeps_first_five_mismatches_and_counts_all),
        cmocka_unit_test(test_compare_of_matching_arrays_passes_with_zero_error),
        cmocka_unit_test(test_compare_resets_a_reused_result),
        cmocka_unit_test(test_empty_compare_does_not_pass),
        cmocka_unit_test(test_compare_f32_f32_takes_second_array_as_reference),
        cmocka_unit_test(test_compare_f32_f32_counts_nan_in_either_array),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
