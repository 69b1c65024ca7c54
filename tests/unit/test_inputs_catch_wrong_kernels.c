/*
 * test_inputs_catch_wrong_kernels.c - proves, without a GPU, that the input
 * distribution (normal times the default scale, plus the outliers of
 * outliers.h) and the fixed tolerances together make a wrong kernel fail.
 *
 * A float32 CPU version of the tiled algorithm stands in for the kernels; it
 * passes validation, and each mutant of it (one classic mistake each) must
 * fail on the shapes where the mistake changes the function. A mutant that
 * computes the same function (the max subtraction dropped on rows too short
 * to overflow) must pass: softmax is shift-invariant, and the test says so.
 */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "tool/cli.h"
#include "model/outliers.h"
#include "model/reference.h"
#include "model/tolerance.h"

enum mutant {
    M_NONE,             /* correct */
    M_NO_SCALE,         /* forgets s: exp(x - max x) */
    M_UNSCALED_MAX,     /* subtracts max x instead of s * max x */
    M_NO_MAX,           /* subtracts nothing */
    M_SUM_NOT_MEAN,     /* s from the sum of squares, not the mean */
    M_DROP_PARTIAL_TILE, /* skips the partial last tile everywhere */
    M_UNGUARDED_SUMSQ    /* keeps a row's sum of squares even where a tile's overflowed */
};

/* The input's scale (standard deviation); the tests of huge and tiny inputs
 * change it. */
static double g_scale = SE_DEFAULT_SCALE;

/* xorshift64* and Box-Muller: normal values for the test's input. */
static uint64_t rng_next(uint64_t *s)
{
    *s ^= *s >> 12;
    *s ^= *s << 25;
    *s ^= *s >> 27;
    return *s * 2685821657736338717ULL;
}

static double rng_uniform(uint64_t *s)
{
    return ((double)(rng_next(s) >> 11) + 0.5) / 9007199254740992.0;
}

static float *make_input(int64_t rows, int64_t cols, uint64_t seed)
{
    float *x = malloc((size_t)(rows * cols) * sizeof *x);
    assert_non_null(x);
    uint64_t s = seed | 1;
    for (int64_t i = 0; i < rows * cols; i++) {
        double u1 = rng_uniform(&s), u2 = rng_uniform(&s);
        x[i] = (float)(g_scale * sqrt(-2.0 * log(u1)) * cos(6.283185307179586 * u2));
    }
    for (int64_t r = 0; r < rows; r++)
        for (int k = 0; k < SE_OUTLIERS; k++)
            x[r * cols + se_outlier_col(seed, r, k, cols)] =
                (float)g_scale * se_outlier_factor(r, k);
    return x;
}

/* The tiled algorithm in float32 with per-tile partials, as the kernels do
 * it, with one mistake selected by m. y starts as NaN (poisoned). */
static void tiled_f32(const float *x, int64_t rows, int64_t cols, int64_t tile, double eps,
                      enum mutant m, float *y)
{
    int64_t ntiles = (cols + tile - 1) / tile;
    if (m == M_DROP_PARTIAL_TILE && cols % tile)
        ntiles--;
    for (int64_t i = 0; i < rows * cols; i++)
        y[i] = NAN;
    for (int64_t r = 0; r < rows; r++) {
        const float *xr = x + r * cols;
        float *yr = y + r * cols;
        double ss = 0.0;
        float mx = -INFINITY;
        for (int64_t t = 0; t < ntiles; t++) {
            float pss = 0.0f;
            for (int64_t c = t * tile; c < cols && c < (t + 1) * tile; c++) {
                pss = fmaf(xr[c], xr[c], pss);
                mx = fmaxf(mx, xr[c]);
            }
            ss += pss;
        }
        if (isinf(ss) && m != M_UNGUARDED_SUMSQ) { /* as se_row_ss_f64 in phase B */
            ss = 0.0;
            for (int64_t c = 0; c < cols; c++)
                ss = fma((double)xr[c], (double)xr[c], ss);
        }
        double mean = m == M_SUM_NOT_MEAN ? ss : ss / (double)cols;
        float s = m == M_NO_SCALE ? 1.0f : (float)(1.0 / sqrt(mean + eps));
        float mm = m == M_NO_MAX ? 0.0f : m == M_UNSCALED_MAX ? mx : s * mx;
        double l = 0.0;
        for (int64_t t = 0; t < ntiles; t++) {
            float pl = 0.0f;
            for (int64_t c = t * tile; c < cols && c < (t + 1) * tile; c++)
                pl += expf(fmaf(s, xr[c], -mm));
            l += pl;
        }
        float inv_l = (float)(1.0 / l);
        for (int64_t t = 0; t < ntiles; t++)
            for (int64_t c = t * tile; c < cols && c < (t + 1) * tile; c++)
                yr[c] = expf(fmaf(s, xr[c], -mm)) * inv_l;
    }
}

/* 1 when the (possibly mutated) kernel passes validation on this shape. */
static int passes(int64_t rows, int64_t cols, int64_t tile, enum mutant m)
{
    size_t n = (size_t)(rows * cols);
    float *x = make_input(rows, cols, 20261130);
    float *y = malloc(n * sizeof *y);
    double *ref = malloc(n * sizeof *ref);
    assert_non_null(y);
    assert_non_null(ref);
    se_reference_rms_softmax(x, rows, cols, SE_DEFAULT_EPS, ref);
    tiled_f32(x, rows, cols, tile, SE_DEFAULT_EPS, m, y);
    se_compare cmp;
    se_tolerance tol = {SE_TOL_ATOL, SE_TOL_RTOL};
    se_compare_f32_f64(y, ref, (int64_t)n, tol, &cmp);
    free(x);
    free(y);
    free(ref);
    return se_compare_passed(&cmp);
}

static void test_correct_tiled_float32_passes_on_short_long_and_partial_shapes(void **state)
{
    (void)state;
    assert_true(passes(4, 4096, 4096, M_NONE));
    assert_true(passes(3, 4097, 4096, M_NONE));
    assert_true(passes(2, 100003, 4096, M_NONE));
    assert_true(passes(1, 7, 4096, M_NONE));
}

static void test_forgetting_the_rms_scale_fails(void **state)
{
    (void)state;
    assert_false(passes(4, 4096, 4096, M_NO_SCALE));
    assert_false(passes(2, 100003, 4096, M_NO_SCALE));
}

static void test_subtracting_the_unscaled_max_fails(void **state)
{
    (void)state;
    assert_false(passes(4, 4096, 4096, M_UNSCALED_MAX));
    assert_false(passes(2, 100003, 4096, M_UNSCALED_MAX));
}

static void test_sum_of_squares_instead_of_mean_fails(void **state)
{
    (void)state;
    assert_false(passes(4, 4096, 4096, M_SUM_NOT_MEAN));
}

static void test_skipping_the_max_overflows_on_the_long_spike_row(void **state)
{
    (void)state;
    assert_false(passes(2, 100003, 4096, M_NO_MAX));
    assert_false(passes(2, 32768, 4096, M_NO_MAX));
}

static void test_skipping_the_max_is_harmless_where_overflow_is_impossible(void **state)
{
    (void)state;
    /* s*x <= sqrt(4096) = 64 < 88: the same function, so it must pass. */
    assert_true(passes(4, 4096, 4096, M_NO_MAX));
}

static void test_dropping_the_partial_last_tile_fails(void **state)
{
    (void)state;
    assert_false(passes(3, 4097, 4096, M_DROP_PARTIAL_TILE));
    assert_false(passes(2, 100003, 4096, M_DROP_PARTIAL_TILE));
}

/* docs/INPUTS.md: every finite input. A scale of 1e30 puts |x| far above
 * 1.8e19, where a float sum of squares overflows; 1e36 puts the largest
 * outlier (256 times the scale) near FLT_MAX; 1e-30 makes every square
 * underflow, so eps decides the scale. The guarded sum (the kernels'
 * float64 path for a row whose tile sums overflowed) passes on all of them;
 * keeping the overflowed sum fails. */
static void test_huge_inputs_need_the_float64_path_and_pass_with_it(void **state)
{
    (void)state;
    static const double scales[] = {1e30, 1e36};
    for (int i = 0; i < 2; i++) {
        g_scale = scales[i];
        assert_true(passes(3, 4097, 4096, M_NONE));
        assert_true(passes(2, 100003, 4096, M_NONE));
        assert_true(passes(1, 7, 4096, M_NONE));
        assert_false(passes(3, 4097, 4096, M_UNGUARDED_SUMSQ));
        assert_false(passes(1, 7, 4096, M_UNGUARDED_SUMSQ));
    }
    g_scale = 1e-30;
    assert_true(passes(3, 4097, 4096, M_NONE));
    assert_true(passes(1, 7, 4096, M_NONE));
    g_scale = SE_DEFAULT_SCALE;
    assert_true(passes(3, 4097, 4096, M_UNGUARDED_SUMSQ)); /* no overflow: the same sums */
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_correct_tiled_float32_passes_on_short_long_and_partial_shapes),
        cmocka_unit_test(test_forgetting_the_rms_scale_fails),
        cmocka_unit_test(test_subtracting_the_unscaled_max_fails),
        cmocka_unit_test(test_sum_of_squares_instead_of_mean_fails),
        cmocka_unit_test(test_skipping_the_max_overflows_on_the_long_spike_row),
        cmocka_unit_test(test_skipping_the_max_is_harmless_where_overflow_is_impossible),
        cmocka_unit_test(test_dropping_the_partial_last_tile_fails),
        cmocka_unit_test(test_huge_inputs_need_the_float64_path_and_pass_with_it),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
