/*
 * test_operation.c - the workload table (model/operation.h): every entry
 * well formed; each one's streamed reference bit for bit its whole-row
 * reference, in chunks of any size; lookup by name; strategies.json names
 * its workload and a run naming another is refused, naming the field; the
 * default protocol states the tolerances the table holds.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "bundle/describe.h"
#include "model/layernorm_params.h"
#include "model/operation.h"
#include "model/protocol.h"
#include "model/strategy.h"

static void test_every_entry_is_well_formed(void **state)
{
    (void)state;
    assert_true(se_operation_count >= 2);
    assert_string_equal(se_operation_default()->name, "rms-softmax");
    for (size_t i = 0; i < se_operation_count; i++) {
        const se_operation *op = se_operations[i];
        assert_non_null(op->name);
        assert_true(strlen(op->name) > 0 && strlen(op->name) <= 40);
        for (const char *c = op->name; *c; c++)
            assert_true((*c >= 'a' && *c <= 'z') || (*c >= '0' && *c <= '9') || *c == '-');
        for (size_t j = 0; j < i; j++)
            assert_string_not_equal(se_operations[j]->name, op->name);
        assert_non_null(op->title);
        assert_non_null(op->brief);
        assert_non_null(op->formula);
        assert_true(op->n_phases >= 1 && op->n_phases <= SE_OP_MAX_PHASES);
        int tiled = 0;
        for (int p = 0; p < op->n_phases; p++) {
            assert_true(op->phases[p].letter >= 'A' && op->phases[p].letter <= 'Z');
            for (int q = 0; q < p; q++)
                assert_int_not_equal(op->phases[q].letter, op->phases[p].letter);
            assert_non_null(op->phases[p].does);
            tiled += op->phases[p].per_tile;
        }
        assert_true(tiled >= 1);
        assert_true(op->phases[op->n_phases - 1].per_tile); /* the last phase writes y */
        assert_non_null(op->reference);
        assert_true(op->row_passes >= 1);
        assert_non_null(op->row_begin);
        assert_non_null(op->row_pass);
        assert_non_null(op->row_end_pass);
        assert_non_null(op->row_value);
        assert_true(op->tolerance.rtol > 0.0 && op->tolerance.atol >= 0.0);
        assert_non_null(op->peers);
        assert_ptr_equal(se_operation_find(op->name), op);
    }
}

/* LayerNorm's entry: three phases, its reference what the formula says
 * on rows worked by hand, gamma and beta exact float32 values in their
 * ranges, different per column, and the same for every caller. */
static void test_layernorm_entry_is_the_formula(void **state)
{
    (void)state;
    const se_operation *op = se_operation_find("layernorm");
    assert_non_null(op);
    char letters[SE_OP_MAX_PHASES + 1];
    assert_string_equal(se_operation_letters(op, letters), "ABC");
    assert_true(op->phases[0].per_tile && !op->phases[1].per_tile && op->phases[2].per_tile);
    assert_int_equal(op->row_passes, 2);
    assert_int_equal(op->on_gpu, 1);
    assert_int_equal(op->id, SE_OP_LAYERNORM);
    assert_int_equal(op->has_cudnn, 0); /* cuDNN's legacy API has no layer norm */
    assert_true(se_operation_default()->on_gpu);
    assert_int_equal(se_operation_default()->id, SE_OP_RMS_SOFTMAX);
    assert_true(se_operation_default()->has_cudnn);

    int distinct = 0;
    for (int64_t c = 0; c < 100000; c++) {
        float g = se_ln_gamma(c), b = se_ln_beta(c);
        assert_true(g >= 0.5f && g < 1.5f);
        assert_true(b >= -0.5f && b < 0.5f);
        /* multiples of 2^-16: exact in float32 and in double alike */
        assert_true((double)g * 65536.0 == floor((double)g * 65536.0));
        assert_true((double)b * 65536.0 == floor((double)b * 65536.0));
        if (c && (g != se_ln_gamma(c - 1) || b != se_ln_beta(c - 1)))
            distinct++;
    }
    assert_true(distinct > 99000);
    assert_true(se_ln_gamma(1LL << 32) != se_ln_gamma(0) || se_ln_beta(1LL << 32) != se_ln_beta(0));

    /* x = {1, 2, 3, 6}: mean 3, var (4 + 1 + 0 + 9) / 4 = 3.5. */
    const float x[4] = {1.0f, 2.0f, 3.0f, 6.0f};
    double y[4];
    op->reference(x, 1, 4, 1e-5, y);
    double rstd = 1.0 / sqrt(3.5 + 1e-5);
    for (int c = 0; c < 4; c++) {
        double want = ((double)x[c] - 3.0) * rstd * se_ln_gamma(c) + se_ln_beta(c);
        assert_true(fabs(y[c] - want) <= 1e-15);
    }
    /* A constant row: every x is the mean, y is beta. */
    const float k[3] = {7.0f, 7.0f, 7.0f};
    op->reference(k, 1, 3, 1e-5, y);
    for (int c = 0; c < 3; c++)
        assert_true(y[c] == (double)se_ln_beta(c));
    /* Rows are independent: the second row's y is that row alone's. */
    const float two[8] = {1.0f, 2.0f, 3.0f, 6.0f, -4.0f, 0.5f, 9.0f, 2.0f};
    double y2[8], y1[4];
    op->reference(two, 2, 4, 1e-5, y2);
    op->reference(two + 4, 1, 4, 1e-5, y1);
    assert_memory_equal(y2 + 4, y1, sizeof y1);
    assert_true(op->tolerance.atol == 1e-5 && op->tolerance.rtol == SE_TOL_RTOL);
    assert_true(SE_LN_EPS == 1e-5);
}

static void test_lookup_and_names(void **state)
{
    (void)state;
    assert_null(se_operation_find(NULL));
    assert_null(se_operation_find(""));
    assert_null(se_operation_find("layernorm-but-not-yet"));
    assert_null(se_operation_find("RMS-SOFTMAX"));
    char buf[256], letters[SE_OP_MAX_PHASES + 1];
    assert_non_null(strstr(se_operation_names(buf, sizeof buf), "rms-softmax"));
    assert_non_null(strstr(buf, "layernorm"));
    assert_string_equal(se_operation_letters(se_operation_default(), letters), "ABCDE");
    char tiny[4];
    se_operation_names(tiny, sizeof tiny); /* truncated, terminated */
    assert_true(strlen(tiny) < sizeof tiny);
}

/* The streamed reference of rows x cols from x, in chunks of `chunk`
 * values, into y: what verify's re-check computes. */
static void streamed(const se_operation *op, const float *x, int64_t rows, int64_t cols,
                     double eps, int64_t chunk, double *y)
{
    for (int64_t r = 0; r < rows; r++) {
        const float *xr = x + r * cols;
        se_op_row st;
        op->row_begin(&st);
        for (int pass = 0; pass < op->row_passes; pass++) {
            for (int64_t c = 0; c < cols; c += chunk)
                op->row_pass(&st, pass, xr + c, cols - c < chunk ? cols - c : chunk);
            op->row_end_pass(&st, pass, cols, eps);
        }
        for (int64_t c = 0; c < cols; c++)
            y[r * cols + c] = op->row_value(&st, xr[c], c);
    }
}

static void test_streamed_reference_is_the_whole_rows_bit_for_bit(void **state)
{
    (void)state;
    static const int64_t shapes[][2] = {{1, 1}, {3, 7}, {5, 37}, {2, 1000}, {2, 4097}};
    static const double scales[] = {1.0, 1e-30, 1e30, 3e38};
    static const int64_t chunks[] = {1, 3, 256, 1 << 20};
    srand(7);
    for (size_t i = 0; i < se_operation_count; i++) {
        const se_operation *op = se_operations[i];
        for (size_t s = 0; s < sizeof shapes / sizeof shapes[0]; s++) {
            int64_t rows = shapes[s][0], cols = shapes[s][1], n = rows * cols;
            float *x = malloc((size_t)n * sizeof *x);
            double *a = malloc((size_t)n * sizeof *a), *b = malloc((size_t)n * sizeof *b);
            assert_non_null(x);
            assert_non_null(a);
            assert_non_null(b);
            for (size_t k = 0; k < sizeof scales / sizeof scales[0]; k++) {
                for (int64_t e = 0; e < n; e++) {
                    double u = (double)rand() / RAND_MAX * 2.0 - 1.0;
                    x[e] = (float)(u * scales[k] > 3.4e38 ? 3.4e38 : u * scales[k]);
                }
                op->reference(x, rows, cols, 1e-6, a);
                for (size_t c = 0; c < sizeof chunks / sizeof chunks[0]; c++) {
                    streamed(op, x, rows, cols, 1e-6, chunks[c], b);
                    assert_memory_equal(a, b, (size_t)n * sizeof *a);
                }
                for (int64_t e = 0; e < n; e++)
                    assert_true(isfinite(a[e]));
            }
            free(x);
            free(a);
            free(b);
        }
    }
}

static void test_strategies_json_names_its_workload(void **state)
{
    (void)state;
    const se_operation *op = se_operation_default();
    json_t *j = se_describe_json(se_strategy_compiled(), op);
    assert_non_null(j);
    json_t *w = json_object_get(j, "workload");
    assert_string_equal(json_string_value(json_object_get(w, "name")), op->name);
    assert_int_equal(json_array_size(json_object_get(w, "phases")), (size_t)op->n_phases);
    se_run_strategies *rs = NULL;
    se_err err = {{0}};
    assert_int_equal(se_describe_parse(j, "strategies.json", &rs, &err), SE_OK);
    assert_ptr_equal(rs->op, op);
    se_run_strategies_free(rs);

    /* The second entry's strategies.json reads back as that entry. */
    const se_operation *ln = se_operation_find("layernorm");
    json_t *jl = se_describe_json(se_strategy_compiled(), ln);
    assert_non_null(jl);
    rs = NULL;
    assert_int_equal(se_describe_parse(jl, "strategies.json", &rs, &err), SE_OK);
    assert_ptr_equal(rs->op, ln);
    se_run_strategies_free(rs);
    /* Its name with the softmax's five phases: refused. */
    json_object_set_new(json_object_get(jl, "workload"), "phases",
                        json_deep_copy(json_object_get(w, "phases")));
    rs = NULL;
    assert_int_equal(se_describe_parse(jl, "strategies.json", &rs, &err), SE_ERR_VALIDATION);
    assert_non_null(strstr(err.msg, "field 'workload.phases'"));
    json_decref(jl);

    /* Another workload's name: refused, naming the field and what is known. */
    json_object_set_new(w, "name", json_string("layer-norm"));
    rs = NULL;
    assert_int_equal(se_describe_parse(j, "strategies.json", &rs, &err), SE_ERR_VALIDATION);
    assert_null(rs);
    assert_non_null(strstr(err.msg, "strategies.json: field 'workload.name': 'layer-norm'"));
    assert_non_null(strstr(err.msg, "rms-softmax"));

    /* The right name with other phases: refused, naming the phases. */
    json_object_set_new(w, "name", json_string(op->name));
    json_t *ph = json_array();
    json_array_append_new(ph, json_string("A"));
    json_array_append_new(ph, json_string("B"));
    json_array_append_new(ph, json_string("C"));
    json_object_set_new(w, "phases", ph);
    assert_int_equal(se_describe_parse(j, "strategies.json", &rs, &err), SE_ERR_VALIDATION);
    assert_non_null(strstr(err.msg, "field 'workload.phases'"));
    json_decref(j);
}

static void test_default_protocol_states_the_tables_tolerances(void **state)
{
    (void)state;
    se_protocol p;
    se_err err = {{0}};
    if (se_protocol_load(SE_DEFAULT_PROTOCOL, &p, &err) != SE_OK)
        fail_msg("%s", err.msg);
    assert_true(p.tol.atol == se_operation_default()->tolerance.atol);
    assert_true(p.tol.rtol == se_operation_default()->tolerance.rtol);
    se_protocol_free(&p);
}

/* protocol/layernorm.json names the second entry and states its
 * tolerances and LayerNorm's eps. */
static void test_layernorm_protocol_names_its_entry(void **state)
{
    (void)state;
    se_protocol p;
    se_err err = {{0}};
    if (se_protocol_load(SE_LAYERNORM_PROTOCOL, &p, &err) != SE_OK)
        fail_msg("%s", err.msg);
    const se_operation *ln = se_operation_find("layernorm");
    assert_ptr_equal(se_protocol_operation(&p), ln);
    assert_true(p.tol.atol == ln->tolerance.atol);
    assert_true(p.tol.rtol == ln->tolerance.rtol);
    assert_true(p.eps == SE_LN_EPS);
    se_protocol_free(&p);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_every_entry_is_well_formed),
        cmocka_unit_test(test_layernorm_entry_is_the_formula),
        cmocka_unit_test(test_lookup_and_names),
        cmocka_unit_test(test_streamed_reference_is_the_whole_rows_bit_for_bit),
        cmocka_unit_test(test_strategies_json_names_its_workload),
        cmocka_unit_test(test_default_protocol_states_the_tables_tolerances),
        cmocka_unit_test(test_layernorm_protocol_names_its_entry),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
