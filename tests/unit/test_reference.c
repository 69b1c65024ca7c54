/*
 * test_reference.c - unit tests of the float64 CPU reference
 * se_reference_rms_softmax (reference.h).
 *
 * Every GPU strategy is validated against this function, so a wrong
 * reference would make every validation meaningless. The expected values
 * here are computed independently of the implementation: by hand, from a
 * closed form written out with explicit arithmetic, or as constants computed
 * offline to 40 digits, never by re-running the same three-pass formula.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "model/reference.h"

/* Asserts |actual - expected| <= tol, printing both values on failure. */
static void assert_close(double actual, double expected, double tol)
{
    if (!(fabs(actual - expected) <= tol))
        fail_msg("expected %.17g, got %.17g (|diff| %.3g > %.3g)", expected, actual,
                 fabs(actual - expected), tol);
}

/* A deterministic sequence of floats in [-4, 4), multiples of 1/256 so that
 * multiplying one by a small integer or a short dyadic is exact in float. */
static float test_value(uint32_t *state)
{
    *state = *state * 1664525u + 1013904223u;
    return (float)((int)(*state >> 21) - 1024) / 256.0f;
}

static void test_single_element_row_is_exactly_one(void **state)
{
    (void)state;
    const float xs[] = {0.0f, 1.0f, -3.5f, 1e30f, -1e-30f};
    for (size_t i = 0; i < sizeof xs / sizeof xs[0]; i++) {
        double y = -1.0;
        se_reference_rms_softmax(&xs[i], 1, 1, 1e-6, &y);
        assert_true(y == 1.0);
    }
}

static void test_constant_row_gives_one_over_cols_each(void **state)
{
    (void)state;
    enum { C = 7 };
    float x[C];
    double y[C];
    for (int c = 0; c < C; c++)
        x[c] = 2.5f;
    se_reference_rms_softmax(x, 1, C, 1e-6, y);
    for (int c = 0; c < C; c++)
        assert_close(y[c], 1.0 / 7.0, 1e-16);
}

static void test_two_columns_match_closed_form_sigmoid(void **state)
{
    (void)state;
    /* [a, b] -> y0 = sigma(s * (a - b)), y1 = sigma(s * (b - a)),
     * s = 1 / sqrt((a^2 + b^2) / 2 + eps). */
    const float x[2] = {3.0f, 1.0f};
    const double eps = 0.5;
    double y[2];
    se_reference_rms_softmax(x, 1, 2, eps, y);
    double s = 1.0 / sqrt((3.0 * 3.0 + 1.0 * 1.0) / 2.0 + eps); /* 1 / sqrt(5.5) */
    double y0 = 1.0 / (1.0 + exp(-s * (3.0 - 1.0)));
    double y1 = 1.0 / (1.0 + exp(-s * (1.0 - 3.0)));
    assert_close(y[0], y0, 1e-15);
    assert_close(y[1], y1, 1e-15);
    assert_true(y[0] > y[1]);
}

static void test_two_columns_match_constants_computed_offline(void **state)
{
    (void)state;
    /* [1, -1], eps 0: s = 1, y0 = 1 / (1 + e^-2). */
    const float x1[2] = {1.0f, -1.0f};
    double y[2];
    se_reference_rms_softmax(x1, 1, 2, 0.0, y);
    assert_close(y[0], 0.8807970779778824440597291413023967952061, 2e-16);
    assert_close(y[1], 0.1192029220221175559402708586976032047939, 2e-16);
    /* [3, 1], eps 0: s = 1 / sqrt(5), y0 = 1 / (1 + e^(-2 / sqrt(5))). */
    const float x2[2] = {3.0f, 1.0f};
    se_reference_rms_softmax(x2, 1, 2, 0.0, y);
    assert_close(y[0], 0.7098029437568893223787970674161054153002, 2e-16);
    assert_close(y[1], 0.2901970562431106776212029325838945846997, 2e-16);
}

static void test_negative_outlier_does_not_become_the_maximum(void **state)
{
    (void)state;
    /* [-10, 1, 2], eps 0: s = 1 / sqrt(35); the largest s*x is at index 2,
     * although the largest |x| is at index 0. Constants computed offline. */
    const float x[3] = {-10.0f, 1.0f, 2.0f};
    double y[3];
    se_reference_rms_softmax(x, 1, 3, 0.0, y);
    assert_true(y[2] > y[1]);
    assert_true(y[1] > y[0]);
    assert_close(y[0], 0.06657265936064190890097361468170358591407, 2e-16);
    assert_close(y[1], 0.4273628138289148090515563925930432294857, 2e-16);
    assert_close(y[2], 0.5060645268104432820474699927252531846001, 2e-16);
}

static void test_outlier_row_is_shifted_by_max_of_scaled_x_not_max_abs(void **state)
{
    (void)state;
    /* x = [-1e6, 1, 1, ..., 1] with C = 640000: s ~ 1/1250, so s*x[0] ~ -800.
     * Shifting by max|s*x| (800) would underflow every exp to 0 and give 0/0;
     * shifting by max(s*x) gives y[c>0] = 1/(C-1) and y[0] = e^-800 = 0. */
    enum { C = 640000 };
    float *x = malloc(C * sizeof *x);
    double *y = malloc(C * sizeof *y);
    assert_non_null(x);
    assert_non_null(y);
    x[0] = -1e6f;
    for (int c = 1; c < C; c++)
        x[c] = 1.0f;
    se_reference_rms_softmax(x, 1, C, 0.0, y);
    assert_true(y[0] == 0.0);
    double expected = 1.0 / (double)(C - 1);
    for (int c = 1; c < C; c++)
        assert_close(y[c], expected, expected * 1e-14);
    free(x);
    free(y);
}

static void test_each_row_sums_to_one_within_1e_15(void **state)
{
    (void)state;
    enum { R = 6, C = 97 };
    float x[R * C];
    double y[R * C];
    uint32_t seed = 12345;
    for (int i = 0; i < R * C; i++)
        x[i] = test_value(&seed);
    se_reference_rms_softmax(x, R, C, 1e-6, y);
    for (int r = 0; r < R; r++) {
        double sum = 0.0;
        for (int c = 0; c < C; c++) {
            assert_true(y[r * C + c] > 0.0);
            assert_true(y[r * C + c] < 1.0);
            sum += y[r * C + c];
        }
        assert_close(sum, 1.0, 1e-15);
    }
}

static void test_rows_computed_together_equal_rows_computed_alone(void **state)
{
    (void)state;
    enum { C = 33 };
    float x[2 * C];
    double both[2 * C], alone[C];
    uint32_t seed = 777;
    for (int i = 0; i < 2 * C; i++)
        x[i] = test_value(&seed);
    x[C + 5] = 40.0f; /* make row 1 very different from row 0 */
    se_reference_rms_softmax(x, 2, C, 1e-6, both);
    for (int r = 0; r < 2; r++) {
        se_reference_rms_softmax(x + r * C, 1, C, 1e-6, alone);
        assert_memory_equal(both + r * C, alone, sizeof alone);
    }
}

static void test_output_is_invariant_to_scaling_the_row_when_eps_is_zero(void **state)
{
    (void)state;
    enum { C = 50 };
    /* Each k*x is exact in float, so only the reference's own rounding
     * (of s) can differ between y(k*x) and y(x). */
    const float ks[] = {3.0f, 1000.0f, 0.3125f, 7.25f};
    float x[C], kx[C];
    double y[C], ky[C];
    uint32_t seed = 4242;
    for (int c = 0; c < C; c++)
        x[c] = test_value(&seed);
    se_reference_rms_softmax(x, 1, C, 0.0, y);
    for (size_t i = 0; i < sizeof ks / sizeof ks[0]; i++) {
        for (int c = 0; c < C; c++)
            kx[c] = ks[i] * x[c];
        se_reference_rms_softmax(kx, 1, C, 0.0, ky);
        for (int c = 0; c < C; c++)
            assert_close(ky[c], y[c], 1e-12 * y[c] + 1e-300);
    }
}

static void test_scaling_by_a_power_of_two_is_bitwise_invariant(void **state)
{
    (void)state;
    /* k = 2^m: x^2, the mean, the sqrt and s all scale exactly, so s*x is
     * bitwise unchanged and so is y. */
    enum { C = 20 };
    float x[C], kx[C];
    double y[C], ky[C];
    uint32_t seed = 99;
    for (int c = 0; c < C; c++) {
        x[c] = test_value(&seed);
        kx[c] = 64.0f * x[c];
    }
    se_reference_rms_softmax(x, 1, C, 0.0, y);
    se_reference_rms_softmax(kx, 1, C, 0.0, ky);
    assert_memory_equal(y, ky, sizeof y);
}

static void test_eps_makes_an_all_zero_row_uniform(void **state)
{
    (void)state;
    /* mean(x^2) = 0, so s = 1/sqrt(eps) is finite and every s*x is 0. */
    enum { C = 8 };
    float x[C] = {0};
    double y[C];
    se_reference_rms_softmax(x, 1, C, 1e-6, y);
    for (int c = 0; c < C; c++)
        assert_true(y[c] == 0.125);
}

static void test_eps_changes_the_result_of_a_small_row(void **state)
{
    (void)state;
    /* [1e-3, -1e-3]: eps 0 gives s = 1000 and y0 = sigma(2); eps 1e-6 (the
     * default), about mean(x^2), gives s = 1000/sqrt(2), y0 = sigma(sqrt 2). */
    const float x[2] = {1e-3f, -1e-3f};
    double y[2];
    double a = (double)1e-3f;
    se_reference_rms_softmax(x, 1, 2, 0.0, y);
    assert_close(y[0], 1.0 / (1.0 + exp(-2.0 * a / sqrt(a * a))), 1e-15);
    se_reference_rms_softmax(x, 1, 2, 1e-6, y);
    double s = 1.0 / sqrt(a * a + 1e-6);
    assert_close(y[0], 1.0 / (1.0 + exp(-2.0 * a * s)), 1e-15);
    assert_true(y[0] < 0.85); /* sigma(2) = 0.8808 without eps */
}

/* verify's streamed re-check (se_ref_row, fed in chunks of any size) gives
 * bit for bit what se_reference_rms_softmax writes: the recorded counts and
 * max errors of a run must match exactly. */
static void test_row_statistics_in_chunks_are_bitwise_the_reference(void **state)
{
    (void)state;
    enum { ROWS = 3, COLS = 1031 };
    static float x[ROWS * COLS];
    static double y[ROWS * COLS];
    uint32_t g = 12345;
    for (int i = 0; i < ROWS * COLS; i++) {
        g = g * 1664525u + 1013904223u;
        x[i] = ((float)(g >> 8) / 16777216.0f - 0.5f) * 40.0f;
    }
    se_reference_rms_softmax(x, ROWS, COLS, 1e-6, y);
    const int64_t chunks[] = {1, 7, 256, COLS};
    for (size_t k = 0; k < sizeof chunks / sizeof chunks[0]; k++)
        for (int r = 0; r < ROWS; r++) {
            const float *xr = x + (int64_t)r * COLS;
            se_ref_row st;
            se_ref_row_init(&st);
            for (int64_t c = 0; c < COLS; c += chunks[k])
                se_ref_row_squares(&st, xr + c, c + chunks[k] <= COLS ? chunks[k] : COLS - c);
            se_ref_row_scale(&st, COLS, 1e-6);
            for (int64_t c = 0; c < COLS; c += chunks[k])
                se_ref_row_max(&st, xr + c, c + chunks[k] <= COLS ? chunks[k] : COLS - c);
            for (int64_t c = 0; c < COLS; c += chunks[k])
                se_ref_row_exps(&st, xr + c, c + chunks[k] <= COLS ? chunks[k] : COLS - c);
            for (int c = 0; c < COLS; c++) {
                double v = se_ref_value(&st, xr[c]);
                assert_memory_equal(&v, &y[(int64_t)r * COLS + c], sizeof v);
            }
        }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_single_element_row_is_exactly_one),
        cmocka_unit_test(test_constant_row_gives_one_over_cols_each),
        cmocka_unit_test(test_two_columns_match_closed_form_sigmoid),
        cmocka_unit_test(test_two_columns_match_constants_computed_offline),
        cmocka_unit_test(test_negative_outlier_does_not_become_the_maximum),
        cmocka_unit_test(test_outlier_row_is_shifted_by_max_of_scaled_x_not_max_abs),
        cmocka_unit_test(test_each_row_sums_to_one_within_1e_15),
        cmocka_unit_test(test_rows_computed_together_equal_rows_computed_alone),
        cmocka_unit_test(test_output_is_invariant_to_scaling_the_row_when_eps_is_zero),
        cmocka_unit_test(test_scaling_by_a_power_of_two_is_bitwise_invariant),
        cmocka_unit_test(test_eps_makes_an_all_zero_row_uniform),
        cmocka_unit_test(test_eps_changes_the_result_of_a_small_row),
        cmocka_unit_test(test_row_statistics_in_chunks_are_bitwise_the_reference),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
