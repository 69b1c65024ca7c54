/*
 * test_rederive.c - re-deriving correctness on a CPU (bundle/rederive.h) on
 * a small synthetic bundle made here: three shapes (whole short rows, a
 * one-column shape of many rows, long rows checked at positions), the input
 * rows from cuRAND's host generator, each output the float64 reference
 * rounded to float, written by the plan as a run writes them. Every case
 * re-derives without a problem; a flipped output value, a changed stored
 * input value, a missing and a truncated file are each caught, naming the
 * file, row and column. Also the plans' shape (the rows and positions they
 * keep, within 64 KB per output) and the host generator's offsets: a row
 * regenerated from its offset is the same bytes as that row of the whole
 * array generated at once, as the device generates it.
 */
#define _POSIX_C_SOURCE 200809L

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <curand.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "bundle/paths.h"
#include "bundle/rederive.h"
#include "model/outliers.h"
#include "model/protocol.h"
#include "model/reference.h"
#include "model/strategy.h"

#ifndef SE_DEFAULT_PROTOCOL
#define SE_DEFAULT_PROTOCOL "protocol/default.json"
#endif

static char dir[64];
static se_protocol proto;
static char last_problem[700];
static size_t n_problems;

static void on_problem(void *ctx, const char *msg)
{
    (void)ctx;
    n_problems++;
    if (!last_problem[0] || n_problems == 1)
        snprintf(last_problem, sizeof last_problem, "%s", msg);
}

static void write_file(const char *rel, const void *data, size_t n)
{
    char path[256];
    se_path_join(dir, rel, path, sizeof path);
    FILE *f = fopen(path, "wb");
    assert_non_null(f);
    assert_int_equal(fwrite(data, 1, n, f), n);
    fclose(f);
}

/* The whole input of a shape as the run makes it (one generator, the whole
 * array at once, then the outliers), its reference, and the checks files. */
static void make_shape(const se_shape *sh)
{
    size_t n = (size_t)(sh->rows * sh->cols), n_even = n + (n & 1);
    float *x = malloc(n_even * sizeof *x), *y = malloc(n * sizeof *y);
    double *ref = malloc(n * sizeof *ref);
    assert_non_null(x);
    curandGenerator_t g;
    assert_int_equal(curandCreateGeneratorHost(&g, CURAND_RNG_PSEUDO_PHILOX4_32_10), 0);
    assert_int_equal(curandSetPseudoRandomGeneratorSeed(g, proto.seed), 0);
    assert_int_equal(curandGenerateNormal(g, x, n_even, 0.0f, (float)proto.scale), 0);
    curandDestroyGenerator(g);
    for (int64_t r = 0; r < sh->rows; r++)
        for (int k = 0; k < SE_OUTLIERS; k++)
            x[r * sh->cols + se_outlier_col(proto.seed, r, k, sh->cols)] =
                (float)proto.scale * se_outlier_factor(r, k);
    se_reference_rms_softmax(x, sh->rows, sh->cols, proto.eps, ref);
    for (size_t i = 0; i < n; i++)
        y[i] = (float)ref[i];
    se_check_plan plan;
    se_err err;
    assert_int_equal(se_check_plan_make(sh->rows, sh->cols, proto.seed, &plan, &err), SE_OK);
    float *v = malloc(plan.n_values * sizeof *v);
    char rel[200], id[SE_CASE_ID_SIZE];
    if (plan.whole_rows) {
        se_check_extract(&plan, x, v);
        se_path_check_x(sh->rows, sh->cols, rel, sizeof rel);
        write_file(rel, v, plan.n_values * sizeof *v);
    }
    se_check_extract(&plan, y, v);
    for (int s = 0; s < SE_NSTRATEGIES; s++) {
        if (!((proto.strategies >> s) & 1u))
            continue;
        se_case_id_make(sh->rows, sh->cols, se_strategy_get((se_strategy)s)->name, id, sizeof id);
        se_path_check_y(id, rel, sizeof rel);
        write_file(rel, v, plan.n_values * sizeof *v);
    }
    /* The host generator's offsets reproduce the whole array's rows. */
    float *row = malloc(((size_t)sh->cols + 1) * sizeof *row);
    for (size_t i = 0; i < plan.n_rows; i++) {
        assert_int_equal(se_check_generate_row(proto.seed, proto.scale, plan.row[i], sh->cols,
                                               row, &err), SE_OK);
        assert_memory_equal(row, x + plan.row[i] * sh->cols, (size_t)sh->cols * sizeof *row);
    }
    free(row);
    free(v);
    se_check_plan_free(&plan);
    free(x);
    free(y);
    free(ref);
}

static int setup(void **state)
{
    (void)state;
    se_err err;
    if (se_protocol_load(SE_DEFAULT_PROTOCOL, &proto, &err) != SE_OK) {
        fprintf(stderr, "%s\n", err.msg);
        return -1;
    }
    static const se_shape shapes[3] = {{5, 300, "5x300"}, {40, 1, "40x1"}, {3, 5000, "3x5000"}};
    proto.n_shapes = 3;
    memcpy(proto.shapes, shapes, sizeof shapes);
    proto.strategies = (1u << SE_S_STREAM) | (1u << SE_S_GRAPH);
    snprintf(dir, sizeof dir, "/tmp/se_rederive_XXXXXX");
    if (!mkdtemp(dir))
        return -1;
    char checks[128];
    snprintf(checks, sizeof checks, "%s/checks", dir);
    mkdir(checks, 0755);
    return 0;
}

static int teardown(void **state)
{
    (void)state;
    char cmd[200];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    return system(cmd) == 0 ? 0 : -1;
}

static se_rederive_counts rederive(void)
{
    se_rederive_counts c;
    se_err err;
    n_problems = 0;
    last_problem[0] = '\0';
    assert_int_equal(se_rederive_dir(dir, &proto, NULL, NULL, &c, on_problem, NULL, &err), SE_OK);
    assert_int_equal(c.problems, n_problems);
    return c;
}

static void test_plans_keep_rows_and_positions_within_64_kb(void **state)
{
    (void)state;
    se_check_plan p;
    se_err err;
    assert_int_equal(se_check_plan_make(32, 4096, 20261130, &p, &err), SE_OK);
    assert_true(p.whole_rows);
    assert_int_equal(p.n_rows, 4);
    assert_int_equal(p.row[0], 0);
    assert_int_equal(p.row[1], 1);
    assert_int_equal(p.row[3], 31);
    assert_true(p.n_values * sizeof(float) <= 65536);
    se_check_plan_free(&p);
    assert_int_equal(se_check_plan_make(1, 1, 20261130, &p, &err), SE_OK);
    assert_int_equal(p.n_rows, 1);
    assert_int_equal(p.n_values, 1);
    se_check_plan_free(&p);
    assert_int_equal(se_check_plan_make(4, 4194304, 20261130, &p, &err), SE_OK);
    assert_false(p.whole_rows);
    assert_int_equal(p.n_rows, 3);
    assert_int_equal(p.row[0], 0);
    assert_int_equal(p.row[1], 1);
    assert_int_equal(p.row[2], 3);
    assert_true(p.n_pos <= SE_CHECK_POS_VALUES && p.n_pos > 4000);
    /* Ascending, distinct, and each row's outliers and ends among them. */
    for (size_t i = 1; i < p.n_pos; i++)
        assert_true(p.pos[i] > p.pos[i - 1]);
    for (size_t i = 0; i < p.n_rows; i++) {
        int64_t want[SE_OUTLIERS + 2];
        for (int k = 0; k < SE_OUTLIERS; k++)
            want[k] = p.row[i] * 4194304 + se_outlier_col(20261130, p.row[i], k, 4194304);
        want[SE_OUTLIERS] = p.row[i] * 4194304;
        want[SE_OUTLIERS + 1] = p.row[i] * 4194304 + 4194303;
        for (int k = 0; k < SE_OUTLIERS + 2; k++) {
            int found = 0;
            for (size_t j = 0; j < p.n_pos && !found; j++)
                found = p.pos[j] == want[k];
            assert_true(found);
        }
    }
    se_check_plan_free(&p);
    assert_int_equal(se_check_plan_make(0, 5, 1, &p, &err), SE_ERR_USAGE);
}

static void test_synthetic_bundle_rederives_every_case(void **state)
{
    (void)state;
    for (size_t i = 0; i < proto.n_shapes; i++)
        make_shape(&proto.shapes[i]);
    se_rederive_counts c = rederive();
    if (c.problems)
        fail_msg("%zu problems, first: %s", c.problems, last_problem);
    assert_int_equal(c.shapes, 3);
    assert_int_equal(c.cases, 6);
    assert_int_equal(c.cases_rederived, 6);
    /* 5 rows of 300 and 40 rows of 1, whole; 3 long rows at positions. */
    assert_int_equal(c.rows_regenerated, 5 + 40 + 3);
    assert_true(c.values_checked > 2 * (1500 + 40 + 4000));
    assert_int_equal(c.values_failed, 0);
}

/* Replaces value k of a checks file by v, returning the old one. */
static float poke(const char *rel, size_t k, float v)
{
    char path[256];
    se_path_join(dir, rel, path, sizeof path);
    FILE *f = fopen(path, "r+b");
    assert_non_null(f);
    float old;
    assert_int_equal(fseek(f, (long)(k * sizeof old), SEEK_SET), 0);
    assert_int_equal(fread(&old, sizeof old, 1, f), 1);
    assert_int_equal(fseek(f, (long)(k * sizeof old), SEEK_SET), 0);
    assert_int_equal(fwrite(&v, sizeof v, 1, f), 1);
    fclose(f);
    return old;
}

static void test_flipped_output_value_is_caught_naming_it(void **state)
{
    (void)state;
    se_check_plan p;
    se_err err;
    assert_int_equal(se_check_plan_make(3, 5000, proto.seed, &p, &err), SE_OK);
    size_t k = p.n_pos / 2;
    int64_t row = p.pos[k] / 5000, col = p.pos[k] % 5000;
    float old = poke("checks/3x5000.graph.y.f32", k, 0.0f);
    float flipped = old;
    uint32_t bits;
    memcpy(&bits, &flipped, sizeof bits);
    bits ^= 1u << 30; /* an exponent bit: far outside any tolerance */
    memcpy(&flipped, &bits, sizeof bits);
    poke("checks/3x5000.graph.y.f32", k, flipped);
    se_rederive_counts c = rederive();
    assert_int_equal(c.problems, 1);
    assert_int_equal(c.values_failed, 1);
    char want[128];
    snprintf(want, sizeof want, "checks/3x5000.graph.y.f32: row %lld col %lld: output",
             (long long)row, (long long)col);
    if (!strstr(last_problem, want))
        fail_msg("'%s' lacks '%s'", last_problem, want);
    poke("checks/3x5000.graph.y.f32", k, old);
    assert_int_equal(rederive().problems, 0);
    se_check_plan_free(&p);
}

static void test_changed_input_and_damaged_files_are_caught(void **state)
{
    (void)state;
    float old = poke("checks/5x300.x.f32", 300 + 7, 1.0f); /* row 1, col 7 */
    se_rederive_counts c = rederive();
    assert_true(c.problems >= 1);
    assert_non_null(strstr(last_problem, "checks/5x300.x.f32: row 1 col 7: stored input"));
    poke("checks/5x300.x.f32", 300 + 7, old);
    char path[256];
    se_path_join(dir, "checks/40x1.stream.y.f32", path, sizeof path);
    assert_int_equal(truncate(path, 8), 0);
    c = rederive();
    assert_int_equal(c.problems, 1);
    assert_non_null(strstr(last_problem, "checks/40x1.stream.y.f32: 8 bytes, the plan"));
    assert_int_equal(c.cases_rederived, 5);
    unlink(path);
    c = rederive();
    assert_int_equal(c.problems, 1);
    assert_non_null(strstr(last_problem, "checks/40x1.stream.y.f32"));
}

/* A hostile protocol's rows of 2^27 + 1 columns are refused, not
 * allocated. */
static void test_rows_over_the_limit_are_a_problem_not_an_allocation(void **state)
{
    (void)state;
    se_shape saved = proto.shapes[0];
    size_t n = proto.n_shapes;
    proto.shapes[0] = (se_shape){1, SE_CHECK_MAX_ROW_COLS + 1, "1xhuge"};
    proto.n_shapes = 1;
    se_rederive_counts c = rederive();
    proto.shapes[0] = saved;
    proto.n_shapes = n;
    assert_int_equal(c.problems, 1);
    assert_non_null(strstr(last_problem, "checks: shape 1xhuge: rows of 134217729 columns are over"));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_plans_keep_rows_and_positions_within_64_kb),
        cmocka_unit_test(test_synthetic_bundle_rederives_every_case),
        cmocka_unit_test(test_flipped_output_value_is_caught_naming_it),
        cmocka_unit_test(test_changed_input_and_damaged_files_are_caught),
        cmocka_unit_test(test_rows_over_the_limit_are_a_problem_not_an_allocation),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
