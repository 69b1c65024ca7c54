/*
 * test_workload.c - unit tests of workload.h: range-checked number parsing
 * (se_parse_i64, se_parse_f64), shape parsing (se_parse_shape,
 * se_parse_shape_list) and the per-case limits and memory estimates
 * (se_case_check, se_case_device_bytes, se_case_host_bytes).
 *
 * Every user-supplied number and shape goes through these functions before
 * any memory is allocated or any kernel launched, so the tests pin what is
 * accepted, what is refused with which status, and that each message names
 * the field and the offending value. The memory estimates decide whether a
 * case is attempted, so their exact host figure and device lower bound are
 * pinned too.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "model/taskgraph.h"
#include "model/workload.h"

static void assert_msg_has(const se_err *err, const char *needle)
{
    if (!strstr(err->msg, needle))
        fail_msg("message '%s' does not contain '%s'", err->msg, needle);
}

/* Parses text with se_parse_i64 in [min, max], expecting success. */
static int64_t i64_ok(const char *text, int64_t min, int64_t max)
{
    se_err err = {{0}};
    int64_t v = -777;
    se_status st = se_parse_i64(text, min, max, "--n", &v, &err);
    if (st != SE_OK)
        fail_msg("'%s' refused: %s", text, err.msg);
    return v;
}

/* Parses text with se_parse_i64 expecting a usage error that names the field
 * and contains needle, and leaves the output untouched. */
static void i64_refused(const char *text, int64_t min, int64_t max, const char *needle)
{
    se_err err = {{0}};
    int64_t v = -777;
    assert_int_equal(se_parse_i64(text, min, max, "--n", &v, &err), SE_ERR_USAGE);
    assert_int_equal(v, -777);
    assert_msg_has(&err, "--n");
    assert_msg_has(&err, needle);
}

static void f64_refused(const char *text, double min, double max, const char *needle)
{
    se_err err = {{0}};
    double v = -777.0;
    assert_int_equal(se_parse_f64(text, min, max, "--x", &v, &err), SE_ERR_USAGE);
    assert_true(v == -777.0);
    assert_msg_has(&err, "--x");
    assert_msg_has(&err, needle);
}

static double f64_ok(const char *text, double min, double max)
{
    se_err err = {{0}};
    double v = -777.0;
    se_status st = se_parse_f64(text, min, max, "--x", &v, &err);
    if (st != SE_OK)
        fail_msg("'%s' refused: %s", text, err.msg);
    return v;
}

/* Parses a shape with the given tile expecting success. */
static se_shape shape_ok(const char *text, int64_t tile)
{
    se_err err = {{0}};
    se_shape s;
    memset(&s, 0, sizeof s);
    se_status st = se_parse_shape(text, tile, &s, &err);
    if (st != SE_OK)
        fail_msg("shape '%s' refused: %s", text, err.msg);
    return s;
}

/* Parses a shape (tile 4096) expecting a usage error whose message contains
 * needle, and leaves the output untouched. */
static void shape_refused(const char *text, const char *needle)
{
    se_err err = {{0}};
    se_shape s;
    memset(&s, 0, sizeof s);
    assert_int_equal(se_parse_shape(text, 4096, &s, &err), SE_ERR_USAGE);
    assert_msg_has(&err, needle);
    assert_int_equal(s.rows, 0);
    assert_int_equal(s.cols, 0);
}

static void test_parse_i64_accepts_values_within_range_inclusive(void **state)
{
    (void)state;
    assert_int_equal(i64_ok("42", 0, 100), 42);
    assert_int_equal(i64_ok("0", 0, 100), 0);
    assert_int_equal(i64_ok("100", 0, 100), 100);
    assert_int_equal(i64_ok("-7", -10, 10), -7);
    assert_int_equal(i64_ok("+5", 0, 10), 5);
    assert_true(i64_ok("9223372036854775807", INT64_MIN, INT64_MAX) == INT64_MAX);
    assert_true(i64_ok("-9223372036854775808", INT64_MIN, INT64_MAX) == INT64_MIN);
}

static void test_parse_i64_accepts_leading_spaces(void **state)
{
    (void)state;
    assert_int_equal(i64_ok("  12", 0, 100), 12);
    assert_int_equal(i64_ok("\t-3", -5, 5), -3);
}

static void test_parse_i64_refuses_values_outside_range_naming_them(void **state)
{
    (void)state;
    i64_refused("101", 0, 100, "101 is out of range");
    i64_refused("101", 0, 100, "between 0 and 100");
    i64_refused("-1", 0, 100, "-1 is out of range");
}

static void test_parse_i64_refuses_empty_and_missing_text(void **state)
{
    (void)state;
    i64_refused("", 0, 100, "empty value");
    i64_refused(NULL, 0, 100, "empty value");
    i64_refused("   ", 0, 100, "expected an integer");
}

static void test_parse_i64_refuses_trailing_garbage_naming_the_text(void **state)
{
    (void)state;
    i64_refused("12x", 0, 100, "'12x'");
    i64_refused("12 ", 0, 100, "'12 '");
    i64_refused("1.5", 0, 100, "'1.5'");
    i64_refused("abc", 0, 100, "'abc'");
    i64_refused("-", 0, 100, "'-'");
    i64_refused("+-5", -10, 10, "'+-5'");
    i64_refused("0x10", 0, 100, "'0x10'");
}

static void test_parse_i64_refuses_overflow(void **state)
{
    (void)state;
    i64_refused("9223372036854775808", INT64_MIN, INT64_MAX,
                "9223372036854775808 is out of range");
    i64_refused("99999999999999999999", 0, 100, "99999999999999999999 is out of range");
    i64_refused("-99999999999999999999", INT64_MIN, INT64_MAX, "-99999999999999999999");
}

static void test_parse_f64_accepts_finite_values_in_range(void **state)
{
    (void)state;
    assert_true(f64_ok("0.5", 0.0, 1.0) == 0.5);
    assert_true(f64_ok("1e-6", 0.0, 1.0) == 1e-6);
    assert_true(f64_ok("+2", 0.0, 3.0) == 2.0);
    assert_true(f64_ok(" 1.25", 0.0, 3.0) == 1.25);
    assert_true(f64_ok("0", 0.0, 1.0) == 0.0);
    assert_true(f64_ok("1", 0.0, 1.0) == 1.0);
}

static void test_parse_f64_refuses_out_of_range_empty_and_garbage(void **state)
{
    (void)state;
    f64_refused("1.5", 0.0, 1.0, "1.5 is out of range");
    f64_refused("-1", 0.0, 1.0, "-1 is out of range");
    f64_refused("", 0.0, 1.0, "empty value");
    f64_refused(NULL, 0.0, 1.0, "empty value");
    f64_refused("0.5x", 0.0, 1.0, "'0.5x'");
    f64_refused("abc", 0.0, 1.0, "'abc'");
}

static void test_parse_f64_refuses_inf_nan_and_overflow(void **state)
{
    (void)state;
    f64_refused("inf", -1e308, 1e308, "inf");
    f64_refused("-inf", -1e308, 1e308, "-inf");
    f64_refused("nan", -1e308, 1e308, "nan");
    f64_refused("1e400", -1e308, 1e308, "1e400");
    f64_refused("infinity", -INFINITY, INFINITY, "infinity");
}

static void test_shape_plain_rows_by_cols(void **state)
{
    (void)state;
    se_shape s = shape_ok("32x4096", 4096);
    assert_int_equal(s.rows, 32);
    assert_int_equal(s.cols, 4096);
    assert_string_equal(s.spec, "32x4096");
    s = shape_ok("1x1", 4096);
    assert_int_equal(s.rows, 1);
    assert_int_equal(s.cols, 1);
}

static void test_shape_t_forms_resolve_against_the_tile(void **state)
{
    (void)state;
    se_shape s = shape_ok("5xT+1", 4096);
    assert_int_equal(s.rows, 5);
    assert_int_equal(s.cols, 4097);
    assert_string_equal(s.spec, "5xT+1");
    s = shape_ok("5xT-1", 4096);
    assert_int_equal(s.cols, 4095);
    s = shape_ok("5xT", 4096);
    assert_int_equal(s.cols, 4096);
    s = shape_ok("5xT+1", 1000);
    assert_int_equal(s.cols, 1001);
    s = shape_ok("2xT-999", 1000);
    assert_int_equal(s.cols, 1);
}

static void test_shape_t_minus_k_below_one_column_is_refused(void **state)
{
    (void)state;
    shape_refused("5xT-4096", "columns must be between 1 and 2147483647, got 0");
    shape_refused("5xTx", "'Tx'");
    shape_refused("5xT+", "'T+'");
}

static void test_shape_with_signs_or_spaces_is_refused(void **state)
{
    (void)state;
    shape_refused("5xT++1", "expected T, T+k or T-k, got 'T++1'");
    shape_refused("5xT- 1", "expected T, T+k or T-k, got 'T- 1'");
    shape_refused("5x 7", "expected an integer, T, T+k or T-k, got ' 7'");
    shape_refused("5x+7", "got '+7'");
    shape_refused("+5x7", "rows: expected an integer, got '+5'");
}

static void test_parse_f64_accepts_subnormal_and_refuses_hex(void **state)
{
    (void)state;
    se_err err = {{0}};
    double v = -1.0;
    assert_int_equal(se_parse_f64("1e-310", 0.0, 1.0, "--eps", &v, &err), SE_OK);
    assert_true(v > 0.0 && v < 1e-300);
    assert_int_equal(se_parse_f64("0x10", 0.0, 100.0, "--scale", &v, &err), SE_ERR_USAGE);
    assert_msg_has(&err, "--scale: expected a decimal number, got '0x10'");
}

static void test_shape_zero_rows_is_refused_with_the_value(void **state)
{
    (void)state;
    shape_refused("0x5", "'0x5'");
    shape_refused("0x5", "rows must be between 1 and 2147483647, got 0");
}

static void test_shape_zero_cols_is_refused_with_the_value(void **state)
{
    (void)state;
    shape_refused("5x0", "'5x0'");
    shape_refused("5x0", "columns must be between 1 and 2147483647, got 0");
}

static void test_shape_negative_rows_is_refused_with_the_value(void **state)
{
    (void)state;
    shape_refused("-1x5", "rows must be between 1 and 2147483647, got -1");
}

static void test_shape_without_rows_or_cols_is_refused(void **state)
{
    (void)state;
    shape_refused("x5", "expected RxC");
    shape_refused("x5", "'x5'");
    shape_refused("5x", "expected RxC");
    shape_refused("5", "expected RxC");
    shape_refused("", "empty value");
}

static void test_shape_with_three_dimensions_is_refused(void **state)
{
    (void)state;
    shape_refused("3x4x5", "'3x4x5'");
    shape_refused("3x4x5", "columns");
    shape_refused("3x4x5", "'4x5'");
}

static void test_shape_rows_over_int32_is_refused_with_the_limit(void **state)
{
    (void)state;
    shape_refused("2147483648x1", "rows must be between 1 and 2147483647, got 2147483648");
    shape_refused("1x2147483648", "columns must be between 1 and 2147483647, got 2147483648");
    se_shape s = shape_ok("1x2147483647", 4096);
    assert_int_equal(s.cols, INT64_C(2147483647));
}

static void test_shape_with_too_many_elements_is_refused_as_overflow(void **state)
{
    (void)state;
    shape_refused("2147483647x2147483647", "overflow");
    shape_refused("2147483647x2147483647", "1099511627776");
}

static void test_shape_element_limit_is_exactly_2_to_the_40(void **state)
{
    (void)state;
    se_shape s = shape_ok("1024x1073741824", 4096);
    assert_true((uint64_t)s.rows * (uint64_t)s.cols == UINT64_C(1) << 40);
    shape_refused("1025x1073741824", "overflow");
    shape_refused("1025x1073741824", "1025 x 1073741824");
}

static void test_shape_spec_too_long_is_refused(void **state)
{
    (void)state;
    /* "1x000...01": a valid 1x1 shape padded with zeros to a given length. */
    char spec[61];
    memset(spec, '0', 60);
    spec[0] = '1';
    spec[1] = 'x';
    spec[59] = '1';
    spec[60] = '\0';
    shape_refused(spec, "too long");
    shape_refused(spec, "'1x0000000000");
    /* 48 characters do not fit the 48-byte spec; 47 do. */
    spec[47] = '1';
    spec[48] = '\0';
    shape_refused(spec, "too long");
    spec[46] = '1';
    spec[47] = '\0';
    se_shape s = shape_ok(spec, 4096);
    assert_int_equal(s.rows, 1);
    assert_int_equal(s.cols, 1);
    assert_string_equal(s.spec, spec);
}

static void test_shape_list_keeps_count_and_order(void **state)
{
    (void)state;
    se_shape *shapes = NULL;
    size_t n = 0;
    se_err err = {{0}};
    assert_int_equal(se_parse_shape_list("32x4096,5xT+1,1x1,3xT", 100, &shapes, &n, &err), SE_OK);
    assert_int_equal(n, 4);
    assert_non_null(shapes);
    const int64_t rows[4] = {32, 5, 1, 3};
    const int64_t cols[4] = {4096, 101, 1, 100};
    const char *specs[4] = {"32x4096", "5xT+1", "1x1", "3xT"};
    for (int i = 0; i < 4; i++) {
        assert_int_equal(shapes[i].rows, rows[i]);
        assert_int_equal(shapes[i].cols, cols[i]);
        assert_string_equal(shapes[i].spec, specs[i]);
    }
    free(shapes);
}

static void test_shape_list_of_one_shape(void **state)
{
    (void)state;
    se_shape *shapes = NULL;
    size_t n = 0;
    se_err err = {{0}};
    assert_int_equal(se_parse_shape_list("7x9", 4096, &shapes, &n, &err), SE_OK);
    assert_int_equal(n, 1);
    assert_int_equal(shapes[0].rows, 7);
    assert_int_equal(shapes[0].cols, 9);
    free(shapes);
}

static void test_shape_list_bad_middle_entry_is_named(void **state)
{
    (void)state;
    se_shape sentinel;
    se_shape *shapes = &sentinel;
    size_t n = 99;
    se_err err = {{0}};
    assert_int_equal(se_parse_shape_list("1x1,5x0,2x2", 4096, &shapes, &n, &err), SE_ERR_USAGE);
    assert_msg_has(&err, "'5x0'");
    assert_msg_has(&err, "columns");
    assert_null(shapes);
    assert_int_equal(n, 0);
}

static void test_shape_list_empty_entries_are_refused_with_position(void **state)
{
    (void)state;
    se_shape *shapes = NULL;
    size_t n = 0;
    se_err err = {{0}};
    assert_int_equal(se_parse_shape_list("32x4096,,1x1", 4096, &shapes, &n, &err), SE_ERR_USAGE);
    assert_msg_has(&err, "empty entry at position 2");
    assert_null(shapes);
    assert_int_equal(se_parse_shape_list("1x1,", 4096, &shapes, &n, &err), SE_ERR_USAGE);
    assert_msg_has(&err, "position 2");
    assert_int_equal(se_parse_shape_list(",1x1", 4096, &shapes, &n, &err), SE_ERR_USAGE);
    assert_msg_has(&err, "position 1");
    assert_int_equal(se_parse_shape_list("", 4096, &shapes, &n, &err), SE_ERR_USAGE);
    assert_msg_has(&err, "--shapes");
    assert_msg_has(&err, "empty");
}

static void test_host_bytes_are_20_per_element(void **state)
{
    (void)state;
    se_shape s = shape_ok("3x4097", 4096);
    assert_true(se_case_host_bytes(&s) == UINT64_C(20) * 3 * 4097);
    s = shape_ok("4096x4096", 4096);
    assert_true(se_case_host_bytes(&s) == UINT64_C(20) * 4096 * 4096);
    s = shape_ok("1x1", 4096);
    assert_true(se_case_host_bytes(&s) == 20);
}

static void test_device_bytes_exceed_three_float_arrays_and_grow_with_size(void **state)
{
    (void)state;
    /* Element counts strictly increasing. */
    const char *specs[] = {"1x1", "1x7", "3x4097", "32x4096", "2x100003", "4096x4096",
                           "1024x32768"};
    uint64_t prev = 0;
    for (size_t i = 0; i < sizeof specs / sizeof specs[0]; i++) {
        se_shape s = shape_ok(specs[i], 4096);
        uint64_t bytes = se_case_device_bytes(&s, 4096);
        uint64_t floats3 = UINT64_C(12) * (uint64_t)s.rows * (uint64_t)s.cols;
        if (!(bytes > floats3))
            fail_msg("%s: %llu device bytes, not above 3 float arrays (%llu)", specs[i],
                     (unsigned long long)bytes, (unsigned long long)floats3);
        if (!(bytes > prev))
            fail_msg("%s: %llu device bytes, not above the smaller case's %llu", specs[i],
                     (unsigned long long)bytes, (unsigned long long)prev);
        prev = bytes;
    }
    /* LayerNorm's float64 partials (two a piece, run/case.c) are inside the bound:
     * 4x16777216 in tiles of 16 has 4 million of them, 64 MiB, beyond the slack. */
    se_shape many = shape_ok("4x16777216", 16);
    se_taskgeom gm = se_taskgeom_make(many.rows, many.cols, 16);
    uint64_t need_ln = UINT64_C(12) * (uint64_t)many.rows * (uint64_t)many.cols +
                       16 * (uint64_t)gm.partials + (UINT64_C(64) << 20);
    assert_true(se_case_device_bytes(&many, 16) >= need_ln);
    se_shape small = shape_ok("8x1000", 4096), big = shape_ok("8x1001", 4096);
    assert_true(se_case_device_bytes(&big, 4096) > se_case_device_bytes(&small, 4096));
    /* A smaller tile means more tiles, so more partials. */
    assert_true(se_case_device_bytes(&small, 1) > se_case_device_bytes(&small, 4096));
}

static void test_case_check_refuses_too_many_tasks(void **state)
{
    (void)state;
    se_shape s = shape_ok("1000x1000000", 1);
    se_err err = {{0}};
    assert_int_equal(se_case_check(&s, 1, &err), SE_ERR_LIMIT);
    assert_msg_has(&err, "3000002000");
    assert_msg_has(&err, "--tile");
}

static void test_case_check_accepts_4x4194304_with_tile_4096(void **state)
{
    (void)state;
    se_shape s = shape_ok("4x4194304", 4096);
    se_err err = {{0}};
    assert_int_equal(se_case_check(&s, 4096, &err), SE_OK);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_parse_i64_accepts_values_within_range_inclusive),
        cmocka_unit_test(test_parse_i64_accepts_leading_spaces),
        cmocka_unit_test(test_parse_i64_refuses_values_outside_range_naming_them),
        cmocka_unit_test(test_parse_i64_refuses_empty_and_missing_text),
        cmocka_unit_test(test_parse_i64_refuses_trailing_garbage_naming_the_text),
        cmocka_unit_test(test_parse_i64_refuses_overflow),
        cmocka_unit_test(test_parse_f64_accepts_finite_values_in_range),
        cmocka_unit_test(test_parse_f64_refuses_out_of_range_empty_and_garbage),
        cmocka_unit_test(test_parse_f64_refuses_inf_nan_and_overflow),
        cmocka_unit_test(test_shape_plain_rows_by_cols),
        cmocka_unit_test(test_shape_t_forms_resolve_against_the_tile),
        cmocka_unit_test(test_shape_t_minus_k_below_one_column_is_refused),
        cmocka_unit_test(test_shape_with_signs_or_spaces_is_refused),
        cmocka_unit_test(test_parse_f64_accepts_subnormal_and_refuses_hex),
        cmocka_unit_test(test_shape_zero_rows_is_refused_with_the_value),
        cmocka_unit_test(test_shape_zero_cols_is_refused_with_the_value),
        cmocka_unit_test(test_shape_negative_rows_is_refused_with_the_value),
        cmocka_unit_test(test_shape_without_rows_or_cols_is_refused),
        cmocka_unit_test(test_shape_with_three_dimensions_is_refused),
        cmocka_unit_test(test_shape_rows_over_int32_is_refused_with_the_limit),
        cmocka_unit_test(test_shape_with_too_many_elements_is_refused_as_overflow),
        cmocka_unit_test(test_shape_element_limit_is_exactly_2_to_the_40),
        cmocka_unit_test(test_shape_spec_too_long_is_refused),
        cmocka_unit_test(test_shape_list_keeps_count_and_order),
        cmocka_unit_test(test_shape_list_of_one_shape),
        cmocka_unit_test(test_shape_list_bad_middle_entry_is_named),
        cmocka_unit_test(test_shape_list_empty_entries_are_refused_with_position),
        cmocka_unit_test(test_host_bytes_are_20_per_element),
        cmocka_unit_test(test_device_bytes_exceed_three_float_arrays_and_grow_with_size),
        cmocka_unit_test(test_case_check_refuses_too_many_tasks),
        cmocka_unit_test(test_case_check_accepts_4x4194304_with_tile_4096),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
