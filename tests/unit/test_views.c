/*
 * test_views.c - the typed views of a run (bundle/views.h): on the
 * committed reference run they hold what its JSON holds; a malformed value
 * in any of the files they read (a string where a number belongs, an
 * interval of three numbers, a real where a count belongs) is refused with
 * a message that names the file and the field; absent and null fields read
 * as not present. The views of the compare document and of a trace's check
 * report refuse the same way.
 */
#define _POSIX_C_SOURCE 200809L

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <string.h>

#include "bundle/rundata.h"
#include "bundle/views.h"

#ifndef SE_REFERENCE_RUN
#define SE_REFERENCE_RUN "runs/reference"
#endif

/* A small well-formed set of the files the views read. */
typedef struct files {
    json_t *run, *env, *summary, *validation, *traces, *peers, *resources;
} files;

static json_t *scope(double median)
{
    return json_pack("{s:i, s:i, s:f, s:[f, f], s:s, s:f, s:{s:f, s:[f, f]}}", "n", 50,
                     "throttled", 0, "median_ns", median, "median_ci95_ns", median - 1.0,
                     median + 1.0, "l2", "warm", "gbps", 68.25, "time_ratio_to_stream", "ratio",
                     0.5, "ci95", 0.25, 0.75);
}

static files good(void)
{
    files f;
    f.run = json_pack("{s:s, s:s, s:{s:s, s:s, s:s}}", "started_utc", "2026-12-04T16:55:45Z",
                      "megakernel", "a toy", "protocol", "source", "default.json",
                      "source_sha256", "ab", "bundle_copy_sha256", "cd");
    f.env = json_pack("{s:{s:s, s:i, s:I, s:f}, s:{s:i}, s:{s:s, s:b}, s:{s:f}}", "gpu", "name",
                      "NVIDIA H200", "sm_count", 132, "l2_bytes", (json_int_t)62914560,
                      "peak_sm_clock_mhz", 1980.0, "software", "driver_version", 13000,
                      "source", "git_commit", "cf2037a", "git_dirty", 0, "globaltimer",
                      "smallest_step_ns", 32.0);
    f.summary = json_pack(
        "{s:[{s:s, s:s, s:i, s:i, s:{s:o}}], s:[{s:s, s:s, s:{s:o}}], "
        "s:{s:{s:f, s:i, s:s}, s:[{s:s, s:s, s:i, s:i, s:n, s:[{s:s, s:f, s:n, s:f}], s:[], "
        "s:n, s:n, s:n}]}}",
        "cases", "case", "32x4096.stream", "what", "stream", "rows", 32, "cols", 4096, "scopes",
        "device", scope(15360.0), "controls", "case", "control.barriers", "what", "barriers",
        "scopes", "device", scope(82000.0), "derived", "grid_barrier_ns", "value", 1253.5,
        "barriers", 64, "formula", "(a - b) / n", "shapes", "shape", "32x4096", "id", "32x4096",
        "rows", 32, "cols", 4096, "copy_median_ns", "cases", "case", "32x4096.stream",
        "median_ns", 15360.0, "ratio_to_stream", "vs_best_peer", 0.285, "peers",
        "fastest_tiled", "fastest_ours", "best_peer");
    f.validation = json_pack("{s:[{s:s, s:i, s:f, s:b}]}", "cases", "case", "32x4096.stream",
                             "tile", 4096, "max_rel_err", 1e-7, "pass", 1);
    f.traces = json_pack("{s:f, s:[{s:s, s:s, s:i, s:{s:f}}], s:[{s:s, s:i, s:f}]}",
                         "globaltimer_resolution_ns", 32.0, "traces", "case", "32x4096.stream",
                         "verdict", "pass", "records", 160, "overlap", "fraction", 0.0,
                         "tracing_cost", "case", "32x4096.stream", "samples", 50,
                         "overhead_fraction", 0.117);
    f.resources = json_pack("{s:[{s:s, s:i}], s:[{s:s, s:i}]}", "kernels", "kernel",
                            "se_k_phase_a", "registers", 32, "launches", "strategy", "graph",
                            "graph_nodes", 160);
    f.peers = json_pack("{s:s, s:[{s:s, s:s, s:i, s:i, s:o}, {s:s, s:s, s:i, s:i}]}", "script",
                        "bench/peers.py", "peers", "peer", "torch-softmax", "status", "ok", "rows",
                        32, "cols", 4096, "summary", scope(4380.0), "peer", "liger-softmax",
                        "status", "skipped", "rows", 32, "cols", 4096);
    return f;
}

static void drop(files *f)
{
    json_decref(f->run);
    json_decref(f->env);
    json_decref(f->summary);
    json_decref(f->validation);
    json_decref(f->traces);
    json_decref(f->peers);
    json_decref(f->resources);
}

static se_status load(const files *f, se_run_views **v, se_err *err)
{
    se_views_json in = {f->run, f->env, f->summary, json_object_get(f->summary, "derived"),
                        f->validation, f->traces, f->peers, f->resources};
    return se_views_load(&in, v, err);
}

/* Sets the value at a dotted path of root ("cases.0.scopes.device.n":
 * numbers index arrays) and expects the load to fail naming want. */
static void refused(const char *which, const char *path, json_t *value, const char *want)
{
    files f = good();
    json_t *root = strcmp(which, "run") == 0          ? f.run
                   : strcmp(which, "env") == 0        ? f.env
                   : strcmp(which, "summary") == 0    ? f.summary
                   : strcmp(which, "validation") == 0 ? f.validation
                   : strcmp(which, "traces") == 0     ? f.traces
                   : strcmp(which, "resources") == 0  ? f.resources
                                                      : f.peers;
    char buf[256], *save = NULL;
    snprintf(buf, sizeof buf, "%s", path);
    json_t *o = root;
    char *key = strtok_r(buf, ".", &save), *next;
    while ((next = strtok_r(NULL, ".", &save))) {
        o = json_is_array(o) ? json_array_get(o, (size_t)strtoul(key, NULL, 10))
                             : json_object_get(o, key);
        key = next;
    }
    assert_non_null(o);
    json_object_set_new(o, key, value);
    se_run_views *v = NULL;
    se_err err = {{0}};
    assert_int_equal(load(&f, &v, &err), SE_ERR_VALIDATION);
    assert_null(v);
    print_message("refused: %s\n", err.msg);
    if (!strstr(err.msg, want))
        fail_msg("expected the message to name \"%s\", got: %s", want, err.msg);
    drop(&f);
}

static void test_a_well_formed_run_reads_into_typed_fields(void **state)
{
    (void)state;
    files f = good();
    se_run_views *v = NULL;
    se_err err = {{0}};
    assert_int_equal(load(&f, &v, &err), SE_OK);
    assert_int_equal(v->n_cases, 1);
    const se_case_view *c = se_views_case(v, "32x4096.stream");
    assert_non_null(c);
    assert_int_equal(c->rows, 32);
    assert_true(c->scope[SE_SCOPE_DEVICE].present);
    assert_false(c->scope[SE_SCOPE_HOST].present);
    assert_true(c->scope[SE_SCOPE_DEVICE].median_ns == 15360.0);
    assert_true(c->scope[SE_SCOPE_DEVICE].has_ci && c->scope[SE_SCOPE_DEVICE].ci95_ns[1] == 15361.0);
    assert_true(c->scope[SE_SCOPE_DEVICE].has_ratio && c->scope[SE_SCOPE_DEVICE].ratio == 0.5);
    assert_false(c->scope[SE_SCOPE_DEVICE].has_fraction);
    assert_ptr_equal(se_views_case(v, "control.barriers"), &v->controls[0]);
    assert_true(v->grid_barrier.present && v->grid_barrier.barriers == 64);
    /* null reads as not present */
    const se_derived_shape_view *s = se_views_shape(v, 32, 4096);
    assert_non_null(s);
    assert_false(s->has_copy_median);
    assert_false(s->best_peer.present);
    const se_derived_case_view *dc = se_views_shape_case(s, "32x4096.stream");
    assert_non_null(dc);
    assert_false(dc->has_ratio);
    assert_true(dc->has_vs && dc->vs_best_peer == 0.285);
    assert_int_equal(dc->validated, -1);
    assert_int_equal(v->peers.n, 2);
    assert_true(v->peers.v[0].summary.present);
    assert_false(v->peers.v[1].summary.present);
    assert_string_equal(v->env.gpu_name, "NVIDIA H200");
    assert_int_equal(v->env.l2_bytes, 62914560);
    assert_null(v->env.hostname);
    assert_true(se_views_validation(v, "32x4096.stream")->pass);
    assert_int_equal(v->traces.v[0].records, 160);
    se_views_free(v);
    drop(&f);
}

static void test_a_malformed_field_is_refused_naming_its_file_and_field(void **state)
{
    (void)state;
    refused("summary", "cases.0.scopes.device.median_ns", json_string("15 us"),
            "summary.json: field 'cases[0].scopes.device.median_ns'");
    refused("summary", "cases.0.scopes.device.median_ci95_ns", json_pack("[f, f, f]", 1.0, 2.0, 3.0),
            "summary.json: field 'cases[0].scopes.device.median_ci95_ns'");
    refused("summary", "cases.0.scopes.device.time_ratio_to_stream.ratio", json_true(),
            "summary.json: field 'cases[0].scopes.device.time_ratio_to_stream.ratio'");
    refused("summary", "cases.0.rows", json_real(32.5), "summary.json: field 'cases[0].rows'");
    refused("summary", "cases.0.scopes", json_array(), "summary.json: field 'cases[0].scopes'");
    refused("summary", "controls.0.what", json_integer(3), "summary.json: field 'controls[0].what'");
    refused("summary", "derived.shapes.0.cases.0.vs_best_peer", json_string("fast"),
            "summary.json: field 'derived.shapes[0].cases[0].vs_best_peer'");
    refused("summary", "derived.grid_barrier_ns.barriers", json_string("64"),
            "summary.json: field 'derived.grid_barrier_ns.barriers'");
    refused("summary", "derived.shapes.0.best_peer", json_string("liger"),
            "summary.json: field 'derived.shapes[0].best_peer'");
    refused("peers", "peers.1.rows", json_string("32"), "peers.json: field 'peers[1].rows'");
    refused("peers", "peers.0.summary.gbps", json_string("68"),
            "peers.json: field 'peers[0].summary.gbps'");
    refused("env", "gpu.sm_count", json_real(132.0), "environment.json: field 'gpu.sm_count'");
    refused("env", "source.git_dirty", json_string("no"),
            "environment.json: field 'source.git_dirty'");
    refused("validation", "cases.0.pass", json_string("PASS"),
            "validation.json: field 'cases[0].pass'");
    refused("traces", "traces.0.overlap.fraction", json_string("0"),
            "traces.json: field 'traces[0].overlap.fraction'");
    refused("run", "protocol.source", json_integer(1), "run.json: field 'protocol.source'");
    refused("traces", "tracing_cost.0.samples", json_real(50.0),
            "traces.json: field 'tracing_cost[0].samples'");
    refused("resources", "launches.0.graph_nodes", json_string("160"),
            "resources.json: field 'launches[0].graph_nodes'");
}

/* The compare document's and a trace report's views refuse the same way. */
static void test_the_compare_and_trace_report_views_name_a_malformed_field(void **state)
{
    (void)state;
    se_err err = {{0}};
    se_compare_view *cv = NULL;
    json_t *doc = json_pack("{s:s, s:[{s:s, s:[{s:s, s:f, s:[f, f]}], s:[s, i]}]}", "scope",
                            "device", "comparisons", "a", "runs/reference", "cases", "case",
                            "32x4096.stream", "ratio", 0.98, "ci95", 0.97, 0.99, "only_in_a",
                            "1x1.stream", 7);
    assert_int_equal(se_compare_view_load(doc, &cv, &err), SE_ERR_VALIDATION);
    assert_null(cv);
    print_message("refused: %s\n", err.msg);
    assert_non_null(strstr(err.msg, "field 'comparisons[0].only_in_a[1]'"));
    json_array_remove(json_object_get(json_array_get(json_object_get(doc, "comparisons"), 0),
                                      "only_in_a"), 1);
    assert_int_equal(se_compare_view_load(doc, &cv, &err), SE_OK);
    assert_int_equal(cv->pairs[0].n_cases, 1);
    assert_true(cv->pairs[0].cases[0].ci95[1] == 0.99);
    assert_int_equal(cv->pairs[0].cases[0].slower_than_gate, -1);
    se_compare_view_free(cv);
    json_decref(doc);

    se_trace_report_view rv;
    json_t *rep = json_pack("{s:s, s:i, s:{s:{s:i}, s:{s:s}}}", "verdict", "pass", "records", 160,
                            "phases", "A", "tasks", 32, "B", "tasks", "32");
    assert_int_equal(se_trace_report_view_load(rep, "32x4096.stream", &rv, &err),
                     SE_ERR_VALIDATION);
    print_message("refused: %s\n", err.msg);
    assert_non_null(strstr(err.msg, "32x4096.stream: field 'phases.B.tasks'"));
    json_decref(rep);
}

/* The reference run's views hold what its summary holds. */
static void test_the_reference_run_views_match_its_json(void **state)
{
    (void)state;
    se_rundata rd;
    se_err err = {{0}};
    assert_int_equal(se_rundata_load(SE_REFERENCE_RUN, &rd, &err), SE_OK);
    const se_run_views *v = se_rundata_views(&rd);
    assert_non_null(v);
    const json_t *cases = json_object_get(rd.summary, "cases");
    assert_int_equal(v->n_cases, json_array_size(cases));
    assert_int_equal(v->n_shapes, rd.p.n_shapes);
    for (size_t i = 0; i < v->n_cases; i++) {
        const json_t *c = json_array_get(cases, i);
        assert_string_equal(v->cases[i].id, json_string_value(json_object_get(c, "case")));
        assert_true(v->cases[i].scope[SE_SCOPE_DEVICE].median_ns ==
                    json_number_value(se_json_path(c, "scopes.device.median_ns")));
    }
    assert_int_equal(v->peers.present, rd.peers != NULL);
    se_rundata_free(&rd);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_a_well_formed_run_reads_into_typed_fields),
        cmocka_unit_test(test_a_malformed_field_is_refused_naming_its_file_and_field),
        cmocka_unit_test(test_the_compare_and_trace_report_views_name_a_malformed_field),
        cmocka_unit_test(test_the_reference_run_views_match_its_json),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
