/*
 * test_derived.c - summary.json's derived results (bundle/derived.h) on the
 * committed reference run (a version 1 summary, so the run reader computes
 * them): every case's numbers are the ones its summary records, and the
 * fastest tiled strategy, our fastest validated strategy and the best peer
 * of each shape are those the table and report printed before the
 * renderers read derived (/tmp/before/table.txt of the redesign). Then a
 * copy of the run made version 2 verifies, and a tampered derived value in
 * it is caught by verify, naming the field.
 */
#define _POSIX_C_SOURCE 200809L

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bundle/derived.h"
#include "bundle/fsutil.h"
#include "bundle/manifest.h"
#include "bundle/paths.h"
#include "bundle/rundata.h"
#include "bundle/summary.h"
#include "bundle/verify.h"

#ifndef SE_REFERENCE_RUN
#define SE_REFERENCE_RUN "runs/reference"
#endif

static const json_t *shape_of(const json_t *derived, const char *spec)
{
    size_t i;
    json_t *s;
    json_array_foreach(json_object_get(derived, "shapes"), i, s)
        if (strcmp(json_string_value(json_object_get(s, "shape")), spec) == 0)
            return s;
    fail_msg("derived has no shape %s", spec);
    return NULL;
}

static double num(const json_t *o, const char *path)
{
    const json_t *v = se_json_path(o, path);
    if (!json_is_number(v))
        fail_msg("field '%s' is not a number", path);
    return json_number_value(v);
}

static void assert_near(double got, double want, double tol)
{
    if (fabs(got - want) > tol)
        fail_msg("got %.6f, want %.6f (within %g)", got, want, tol);
}

static void test_derived_cases_copy_what_the_summary_records(void **state)
{
    (void)state;
    se_rundata rd;
    se_err err = {{0}};
    assert_int_equal(se_rundata_load(SE_REFERENCE_RUN, &rd, &err), SE_OK);
    assert_int_equal(rd.summary_version, 2);
    const json_t *d = se_rundata_derived(&rd);
    assert_non_null(d);
    /* grid_barrier_ns as recorded */
    assert_true(json_equal(json_object_get(d, "grid_barrier_ns"),
                           se_json_path(rd.summary, "derived.grid_barrier_ns")));
    const json_t *shapes = json_object_get(d, "shapes");
    assert_int_equal(json_array_size(shapes), rd.p.n_shapes);
    size_t n_cases = 0, i, k;
    json_t *s, *c;
    json_array_foreach(shapes, i, s) {
        char id[SE_CASE_ID_SIZE];
        se_shape_id(rd.p.shapes[i].rows, rd.p.shapes[i].cols, id, sizeof id);
        assert_string_equal(json_string_value(json_object_get(s, "id")), id);
        assert_string_equal(json_string_value(json_object_get(s, "shape")), rd.p.shapes[i].spec);
        json_array_foreach(json_object_get(s, "cases"), k, c) {
            const char *cid = json_string_value(json_object_get(c, "case"));
            const json_t *sc = se_rundata_summary_case(&rd, cid);
            assert_non_null(sc);
            const json_t *dev = se_json_path(sc, "scopes.device");
            assert_true(num(c, "median_ns") == num(dev, "median_ns"));
            const json_t *r = json_object_get(dev, "time_ratio_to_stream");
            if (r) {
                assert_true(num(c, "ratio_to_stream") == num(r, "ratio"));
                assert_true(json_equal(json_object_get(c, "ratio_ci95"), json_object_get(r, "ci95")));
            } else {
                assert_true(json_is_null(json_object_get(c, "ratio_to_stream")));
            }
            n_cases++;
        }
    }
    assert_int_equal(n_cases, json_array_size(json_object_get(rd.summary, "cases")));

    /* 4096x4096 as the table prints it (runs/reference, 20261204T165545Z) */
    s = (json_t *)shape_of(d, "4096x4096");
    assert_string_equal(json_string_value(se_json_path(s, "fastest_ours.strategy")), "rowblock");
    assert_near(num(s, "fastest_ours.median_ns") / 1e3, 34.91, 0.005);
    assert_near(num(s, "fastest_ours.fraction_of_copy"), 0.996, 0.0005);
    assert_string_equal(json_string_value(se_json_path(s, "best_peer.name")), "liger-softmax");
    assert_near(num(s, "best_peer.median_ns") / 1e3, 33.79, 0.005);
    assert_near(num(s, "best_peer.vs_best_peer"), 0.968, 0.0005);
    assert_near(num(s, "copy_median_ns") / 1e3, 34.78, 0.005);
    /* the report's cuDNN table: fusion is the fastest tiled strategy */
    assert_string_equal(json_string_value(se_json_path(s, "fastest_tiled.strategy")), "fusion");
    assert_near(num(s, "fastest_tiled.median_ns") / 1e3, 72.19, 0.005);
    assert_near(num(s, "fastest_tiled.over_cudnn"), 72.19 / 43.41, 0.001);
    json_array_foreach(json_object_get(s, "cases"), k, c) {
        const char *what = json_string_value(json_object_get(c, "strategy"));
        if (strcmp(what, "graph") == 0) {
            assert_string_equal(json_string_value(json_object_get(c, "role")), "tiled mechanism");
            assert_near(num(c, "ratio_to_stream"), 0.958, 0.0005);
            assert_near(num(c, "vs_best_peer"), 0.404, 0.0005);
        } else if (strcmp(what, "cudnn") == 0) {
            assert_string_equal(json_string_value(json_object_get(c, "role")), "reference");
            assert_near(num(c, "vs_best_peer"), 0.778, 0.0005);
        } else if (strcmp(what, "megakernel_init") == 0 || strcmp(what, "copy") == 0) {
            assert_string_equal(json_string_value(json_object_get(c, "role")), "control");
            assert_true(json_is_null(json_object_get(c, "validated")));
        }
        if (strcmp(what, "megakernel_init") == 0)
            assert_true(json_is_null(json_object_get(c, "vs_best_peer")));
        if (strcmp(what, "copy") == 0)
            assert_near(num(c, "vs_best_peer"), 0.971, 0.0005);
    }
    const json_t *tc = json_array_get(json_object_get(s, "peers"), 3);
    assert_string_equal(json_string_value(json_object_get(tc, "peer")), "liger-softmax");
    assert_true(num(tc, "vs_best_peer") == 1.0);

    /* other shapes' last lines of the table */
    s = (json_t *)shape_of(d, "2x100003");
    assert_string_equal(json_string_value(se_json_path(s, "fastest_ours.strategy")), "rowblock");
    assert_near(num(s, "best_peer.vs_best_peer"), 2.813, 0.0005);
    s = (json_t *)shape_of(d, "1x7");
    assert_string_equal(json_string_value(se_json_path(s, "best_peer.name")), "torch-softmax");
    assert_near(num(s, "best_peer.vs_best_peer"), 0.981, 0.0005);
    s = (json_t *)shape_of(d, "5xT+1");
    assert_string_equal(json_string_value(json_object_get(s, "id")), "5x4097");
    assert_near(num(s, "fastest_ours.median_ns") / 1e3, 5.04, 0.005);
    se_rundata_free(&rd);
}

/* Writes summary.json of dir and rewrites the manifest over it. */
static void rewrite_summary(const char *dir, const json_t *summary)
{
    char path[4400];
    se_path_join(dir, SE_SUMMARY_JSON, path, sizeof path);
    assert_int_equal(json_dump_file(summary, path,
                                    JSON_INDENT(2) | JSON_PRESERVE_ORDER | JSON_REAL_PRECISION(17)),
                     0);
    se_err err = {{0}};
    assert_int_equal(se_manifest_write(dir, SE_MANIFEST_NAME, &err), SE_OK);
}

static se_status verify_quiet(const char *dir, char **text)
{
    size_t len = 0;
    FILE *out = open_memstream(text, &len);
    se_err err = {{0}};
    se_status st = se_verify_run(dir, 0, out, &err);
    fclose(out);
    return st;
}

static void test_a_version_2_summary_verifies_and_a_tampered_derived_value_is_caught(void **state)
{
    (void)state;
    char dir[] = "/tmp/se_derived_XXXXXX", cmd[256];
    assert_non_null(mkdtemp(dir));
    snprintf(cmd, sizeof cmd, "cp -r '%s' '%s/run' && chmod -R u+w '%s/run'", SE_REFERENCE_RUN,
             dir, dir);
    assert_int_equal(system(cmd), 0);
    char run[300];
    snprintf(run, sizeof run, "%s/run", dir);

    se_rundata rd;
    se_err err = {{0}};
    assert_int_equal(se_rundata_load(run, &rd, &err), SE_OK);
    json_t *summary = json_deep_copy(rd.summary);
    assert_int_equal(se_derived_add_dir(&rd.p, run, summary, &err), SE_OK);
    assert_int_equal(json_integer_value(json_object_get(summary, "version")), 2);
    /* the recorded derived is what the reader computed for version 1 */
    assert_true(json_equal(json_object_get(summary, "derived"), se_rundata_derived(&rd)));
    se_rundata_free(&rd);

    char *text = NULL;
    rewrite_summary(run, summary);
    if (verify_quiet(run, &text) != SE_OK)
        fail_msg("the version 2 copy does not verify:\n%s", text);
    free(text);
    assert_int_equal(se_rundata_load(run, &rd, &err), SE_OK);
    assert_int_equal(rd.summary_version, 2);
    assert_ptr_equal(se_rundata_derived(&rd), json_object_get(rd.summary, "derived"));
    se_rundata_free(&rd);

    json_t *f = se_json_path(summary, "derived.shapes");
    json_object_set_new(json_object_get(json_array_get(f, 1), "fastest_ours"), "median_ns",
                        json_real(1.0));
    rewrite_summary(run, summary);
    text = NULL;
    assert_int_equal(verify_quiet(run, &text), SE_ERR_VALIDATION);
    if (!strstr(text, "summary.json: field 'derived.shapes[1].fastest_ours.median_ns'"))
        fail_msg("verify did not name the tampered field:\n%s", text);
    free(text);

    /* a version 2 summary without derived.shapes is refused by the reader */
    json_object_del(json_object_get(summary, "derived"), "shapes");
    rewrite_summary(run, summary);
    assert_int_equal(se_rundata_load(run, &rd, &err), SE_ERR_VALIDATION);
    assert_non_null(strstr(err.msg, "derived.shapes"));
    json_decref(summary);
    se_remove_tree(dir);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_derived_cases_copy_what_the_summary_records),
        cmocka_unit_test(test_a_version_2_summary_verifies_and_a_tampered_derived_value_is_caught),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
