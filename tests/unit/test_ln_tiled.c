/*
 * test_ln_tiled.c - proves, without a GPU, that the numerics of tiled
 * LayerNorm (gpu/ln_ops.cuh) pass validation against the float64
 * reference on the run's own inputs, and that the inputs and the
 * tolerance make a wrong kernel fail.
 *
 * A CPU version of the tiled algorithm stands in for the kernels, with
 * their formulas: phase A's sums of x and x^2 in float64 per tile of T
 * columns (a float32 x^2 overflows above 1.8e19), phase B's combine of
 * the tiles in order (mean = S / C, var = max(Q / C - mean^2, 0), mean and
 * rstd rounded to float32), phase C's write fmaf((x - mean) * rstd,
 * gamma(c), beta(c)) in float32. (The kernels sum a tile over 256 threads
 * in a fixed butterfly order; the order changes the last bits of a
 * float64 sum, not whether the tolerance holds.) The inputs are the run's:
 * cuRAND's Philox normal * scale with the outliers of outliers.h
 * (se_check_generate_row), at the protocol's scale 16 and at a scale
 * that puts the outliers near FLT_MAX. Each mutant (one mistake each)
 * must fail on the shapes where the mistake changes the function.
 */
#include <float.h>
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "bundle/rederive.h"
#include "model/layernorm_params.h"
#include "model/operation.h"
#include "model/reference.h"
#include "model/tolerance.h"

enum mutant {
    M_NONE,          /* the kernels' formulas */
    M_FLOAT_SQUARES, /* phase A sums x^2 in float32: inf on large inputs */
    M_NO_MEAN,       /* y = x rstd gamma + beta: forgets to subtract the mean */
    M_TILE_COLUMN,   /* gamma and beta of the column within the tile, not the row */
    M_LAST_TILE,     /* phase B combines every tile but the row's last */
    M_NO_EPS,        /* rstd = 1 / sqrt(var) */
};

#define TILE 4096
#define SEED 20261130u

/* One row by the tiled algorithm (or a mutant of it) into y. */
static void ln_row_tiled(const float *x, int64_t cols, double eps, enum mutant m, float *y)
{
    double sum = 0.0, sq = 0.0;
    int64_t tiles = (cols + TILE - 1) / TILE;
    for (int64_t t = 0; t < tiles; t++) {
        if (m == M_LAST_TILE && t == tiles - 1 && tiles > 1)
            break;
        double ts = 0.0, tq = 0.0;
        float fq = 0.0f;
        int64_t end = (t + 1) * TILE < cols ? (t + 1) * TILE : cols;
        for (int64_t c = t * TILE; c < end; c++) {
            ts += (double)x[c];
            tq = fma((double)x[c], (double)x[c], tq);
            fq = fmaf(x[c], x[c], fq);
        }
        sum += ts;
        sq += m == M_FLOAT_SQUARES ? (double)fq : tq;
    }
    double n = (double)cols, mean = sum / n, var = sq / n - mean * mean;
    var = var > 0.0 ? var : 0.0;
    float mean_f = (float)mean;
    float rstd_f = (float)(1.0 / sqrt(var + (m == M_NO_EPS ? 0.0 : eps)));
    for (int64_t c = 0; c < cols; c++) {
        int64_t col = m == M_TILE_COLUMN ? c % TILE : c;
        float d = m == M_NO_MEAN ? x[c] : x[c] - mean_f;
        y[c] = fmaf(d * rstd_f, se_ln_gamma(col), se_ln_beta(col));
    }
}

/* Runs the algorithm on every row of rows x cols at `scale` and compares it
 * with the float64 reference under LayerNorm's tolerance: returns the
 * elements that fail (NaN and inf included). */
static int64_t fails_on(int64_t rows, int64_t cols, double scale, enum mutant m, double *worst)
{
    const se_operation *op = se_operation_find("layernorm");
    assert_non_null(op);
    float *x = malloc((size_t)(cols + 1) * sizeof *x);
    float *y = malloc((size_t)cols * sizeof *y);
    double *ref = malloc((size_t)cols * sizeof *ref);
    assert_non_null(x);
    assert_non_null(y);
    assert_non_null(ref);
    int64_t fails = 0;
    *worst = 0.0;
    for (int64_t r = 0; r < rows; r++) {
        se_err err = {{0}};
        assert_int_equal(se_check_generate_row(SEED, scale, r, cols, x, &err), SE_OK);
        op->reference(x, 1, cols, SE_LN_EPS, ref);
        ln_row_tiled(x, cols, SE_LN_EPS, m, y);
        se_compare cmp;
        se_compare_f32_f64(y, ref, cols, op->tolerance, &cmp);
        fails += cmp.n_fail;
        if (cmp.max_abs_err > *worst)
            *worst = cmp.max_abs_err;
    }
    free(x);
    free(y);
    free(ref);
    return fails;
}

typedef struct shape {
    int64_t rows, cols;
} shape;

/* protocol/layernorm.json's shapes that a CPU takes in a second or two,
 * and odd and packed ones. */
static const shape shapes[] = {{32, 4096}, {1, 1}, {1, 7}, {3, 4097}, {5, 4097},
                               {2, 100003}, {8, 32768}, {200, 101}, {64, 37}};
#define N_SHAPES (sizeof shapes / sizeof shapes[0])

static void test_tiled_formulas_pass_at_the_protocols_scale(void **state)
{
    (void)state;
    for (size_t i = 0; i < N_SHAPES; i++) {
        double worst;
        int64_t f = fails_on(shapes[i].rows, shapes[i].cols, 16.0, M_NONE, &worst);
        if (f)
            fail_msg("%lldx%lld: %lld elements out of tolerance (worst abs error %g)",
                     (long long)shapes[i].rows, (long long)shapes[i].cols, (long long)f, worst);
        assert_true(worst < 1e-5);
    }
}

/* Outliers near FLT_MAX: row 1's spike is 256 times the scale, 256 *
 * 1.3e36 = 3.3e38, and every row's outliers are 9 to 18 times it. Their
 * squares overflow float32; in float64 they do not. */
static void test_tiled_formulas_pass_with_outliers_near_flt_max(void **state)
{
    (void)state;
    const double scale = 1.3e36;
    assert_true(256.0 * scale < FLT_MAX && 256.0 * scale > 0.9 * FLT_MAX);
    for (size_t i = 0; i < N_SHAPES; i++) {
        double worst;
        int64_t f = fails_on(shapes[i].rows, shapes[i].cols, scale, M_NONE, &worst);
        if (f)
            fail_msg("scale %g, %lldx%lld: %lld elements out of tolerance (worst %g)", scale,
                     (long long)shapes[i].rows, (long long)shapes[i].cols, (long long)f, worst);
    }
    /* and at a tiny scale, where eps dominates the variance */
    double worst;
    assert_int_equal(fails_on(3, 4097, 1e-6, M_NONE, &worst), 0);
}

static void test_each_mutant_fails_where_its_mistake_matters(void **state)
{
    (void)state;
    double worst;
    /* float32 squares: inf, rstd 0, y = beta on every row with a large x */
    assert_true(fails_on(3, 4097, 1.3e36, M_FLOAT_SQUARES, &worst) > 0);
    /* and harmless at scale 16, where no square overflows */
    assert_int_equal(fails_on(3, 4097, 16.0, M_FLOAT_SQUARES, &worst), 0);
    /* the mean is what the outliers make it (about scale * 6 / C): not 0 */
    assert_true(fails_on(1, 7, 16.0, M_NO_MEAN, &worst) > 0);
    assert_true(fails_on(32, 4096, 16.0, M_NO_MEAN, &worst) > 0);
    /* gamma and beta differ per column: a row's second tile shows it */
    assert_true(fails_on(3, 4097, 16.0, M_TILE_COLUMN, &worst) > 0);
    assert_true(fails_on(2, 100003, 16.0, M_TILE_COLUMN, &worst) > 0);
    /* the last tile's sums matter, even a tile of one column */
    assert_true(fails_on(2, 100003, 16.0, M_LAST_TILE, &worst) > 0);
    assert_true(fails_on(5, 4097, 16.0, M_LAST_TILE, &worst) > 0);
    /* eps matters on a row of one column (var 0) */
    assert_true(fails_on(1, 1, 16.0, M_NO_EPS, &worst) > 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_tiled_formulas_pass_at_the_protocols_scale),
        cmocka_unit_test(test_tiled_formulas_pass_with_outliers_near_flt_max),
        cmocka_unit_test(test_each_mutant_fails_where_its_mistake_matters),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
