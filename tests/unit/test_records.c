/*
 * test_records.c - the record writers of bundle/records.h reproduce the
 * committed reference run's run.json, environment.json, resources.json and
 * validation.json byte for byte (serialized as the run serializes them),
 * from structs filled with the values those files hold: the same keys, in
 * the same order, with the same number types. The runner fills the same
 * structs from the GPU. Also: git_dirty -1 is written "unknown".
 */
#define _POSIX_C_SOURCE 200809L

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "model/json.h"
#include "bundle/paths.h"
#include "model/taskgraph.h"
#include "bundle/records.h"
#include "bundle/sha256.h"

#ifndef SE_REFERENCE_RUN
#define SE_REFERENCE_RUN "runs/reference"
#endif

static json_t *load(const char *name)
{
    char path[512];
    json_t *j = NULL;
    se_err err = {{0}};
    se_path_join(SE_REFERENCE_RUN, name, path, sizeof path);
    if (se_json_load(path, name, NULL, 0, NULL, &j, &err) != SE_OK)
        fail_msg("%s", err.msg);
    return j;
}

/* The file's bytes against value serialized as se_rundir_write_json does. */
static void assert_same_bytes(const char *name, const json_t *value)
{
    char path[512];
    se_path_join(SE_REFERENCE_RUN, name, path, sizeof path);
    FILE *f = fopen(path, "rb");
    assert_non_null(f);
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    rewind(f);
    char *want = malloc((size_t)n + 1);
    assert_non_null(want);
    assert_int_equal(fread(want, 1, (size_t)n, f), (size_t)n);
    want[n] = '\0';
    fclose(f);
    assert_non_null(value);
    char *got = json_dumps(value, JSON_INDENT(2) | JSON_PRESERVE_ORDER | JSON_REAL_PRECISION(17));
    assert_non_null(got);
    size_t len = strlen(got);
    if (len + 1 != (size_t)n || memcmp(got, want, len) != 0 || want[len] != '\n') {
        size_t i = 0;
        while (i < len && got[i] == want[i])
            i++;
        fail_msg("%s differs at byte %zu: wrote '%.60s', file has '%.60s'", name, i, got + i,
                 want + i);
    }
    free(got);
    free(want);
}

static const char *str(const json_t *o, const char *key)
{
    return json_string_value(json_object_get(o, key));
}

static int64_t num_i(const json_t *o, const char *key)
{
    return json_integer_value(json_object_get(o, key));
}

static double num_r(const json_t *o, const char *key)
{
    return json_real_value(json_object_get(o, key));
}

static void test_run_json_is_reproduced_byte_for_byte(void **state)
{
    (void)state;
    json_t *j = load(SE_RUN_JSON);
    json_t *files = json_object_get(j, "source_files"), *p = json_object_get(j, "protocol");
    size_t n = json_array_size(files), i;
    se_source_file *s = calloc(n, sizeof *s);
    json_t *e;
    json_array_foreach(files, i, e) {
        snprintf(s[i].path, sizeof s[i].path, "%s", str(e, "path"));
        snprintf(s[i].sha256, sizeof s[i].sha256, "%s", str(e, "sha256"));
        s[i].bytes = (size_t)num_i(e, "bytes");
    }
    se_run_info r = {str(j, "run_id"), str(j, "started_utc"), str(j, "finished_utc"),
                     str(p, "source"), str(p, "source_sha256"), str(p, "bundle_copy_sha256"),
                     json_is_true(json_object_get(j, "arrays_saved")),
                     json_object_get(j, "arrays_max_bytes") != NULL,
                     num_i(j, "arrays_max_bytes"), s, n,
                     json_is_true(json_object_get(j, "blocking_kernel")),
                     (int)num_i(j, "task_graph"),
                     json_is_true(json_object_get(j, "checks_saved"))};
    json_t *w = se_run_json(&r);
    assert_same_bytes(SE_RUN_JSON, w);
    json_decref(w);
    free(s);
    json_decref(j);
}

static se_environment_info environment_of(const json_t *j, se_coop_limit *coop, size_t *n_coop,
                                          const char **argv)
{
    const json_t *g = json_object_get(j, "gpu"), *t = json_object_get(j, "globaltimer");
    const json_t *sw = json_object_get(j, "software"), *h = json_object_get(j, "host");
    const json_t *src = json_object_get(j, "source");
    const char *key;
    json_t *v;
    *n_coop = 0;
    json_object_foreach((json_t *)g, key, v) {
        if (strncmp(key, "cooperative_max_blocks_", 23) == 0) {
            coop[*n_coop].group = key + 23;
            coop[(*n_coop)++].max_blocks = (int)json_integer_value(v);
        }
    }
    size_t i;
    json_array_foreach(json_object_get(j, "command_line"), i, v)
        argv[i] = json_string_value(v);
    se_environment_info e = {
        .gpu = {str(g, "name"), str(g, "uuid"), (int)num_i(g, "ordinal"),
                str(g, "compute_capability"), (int)num_i(g, "sm_count"),
                num_i(g, "global_memory_bytes"), (int)num_i(g, "l2_bytes"),
                num_r(g, "peak_sm_clock_mhz"), num_r(g, "peak_memory_clock_mhz"),
                (int)num_i(g, "memory_bus_bits"), coop, *n_coop},
        .globaltimer_smallest_step_ns = num_r(t, "smallest_step_ns"),
        .globaltimer_mean_step_ns = num_r(t, "mean_step_ns"),
        .software = {(int)num_i(sw, "driver_version"), (int)num_i(sw, "runtime_version"),
                     str(sw, "nvcc_version"), str(sw, "cuda_architectures"), str(sw, "cuda_flags"),
                     str(sw, "build_type"), num_i(sw, "cudnn_version"),
                     num_i(sw, "cudnn_compiled_version"), (int)num_i(sw, "curand_version")},
        .host = {str(h, "hostname"), str(h, "os"), str(h, "release"), str(h, "machine")},
        .source = {str(src, "git_commit"), str(src, "git_commit_from"),
                   json_is_true(json_object_get(src, "git_dirty")), str(src, "source_dir")},
        /* Recorded by the runs made since environment.json had it. */
        .placement = {json_object_get(j, "placement") != NULL,
                      str(json_object_get(j, "placement"), "slurm_job_id"),
                      str(json_object_get(j, "placement"), "slurm_array_job_id"),
                      str(json_object_get(j, "placement"), "slurm_array_task_id"),
                      str(json_object_get(j, "placement"), "hostname"),
                      str(json_object_get(j, "placement"), "cuda_visible_devices"),
                      (int)num_i(json_object_get(j, "placement"), "device_ordinal")},
        .argc = (int)json_array_size(json_object_get(j, "command_line")),
        .argv = (char *const *)argv,
    };
    return e;
}

static void test_environment_json_is_reproduced_byte_for_byte(void **state)
{
    (void)state;
    json_t *j = load(SE_ENVIRONMENT_JSON);
    se_coop_limit coop[8];
    const char *argv[64];
    size_t n_coop;
    assert_true(json_array_size(json_object_get(j, "command_line")) <= 64);
    se_environment_info e = environment_of(j, coop, &n_coop, argv);
    assert_int_equal(n_coop, 2);
    json_t *w = se_environment_json(&e);
    assert_same_bytes(SE_ENVIRONMENT_JSON, w);
    json_decref(w);
    /* where git cannot say, git_dirty is "unknown", not false */
    e.source.git_dirty = -1;
    w = se_environment_json(&e);
    assert_string_equal(json_string_value(json_object_get(json_object_get(w, "source"),
                                                          "git_dirty")), "unknown");
    json_decref(w);
    json_decref(j);
}

/* environment.json's placement: the Slurm ids, CUDA_VISIBLE_DEVICES and the
 * --device ordinal, null where unset, after command_line. */
static void test_environment_json_records_where_the_run_ran(void **state)
{
    (void)state;
    json_t *j = load(SE_ENVIRONMENT_JSON);
    se_coop_limit coop[8];
    const char *argv[64];
    size_t n_coop;
    se_environment_info e = environment_of(j, coop, &n_coop, argv);
    e.placement.recorded = 1;
    e.placement.slurm_job_id = "4242";
    e.placement.slurm_array_job_id = "4240";
    e.placement.slurm_array_task_id = "2";
    e.placement.hostname = "node-a";
    e.placement.cuda_visible_devices = NULL;
    e.placement.device_ordinal = 1;
    json_t *w = se_environment_json(&e), *pl = json_object_get(w, "placement");
    assert_non_null(pl);
    assert_string_equal(str(pl, "slurm_job_id"), "4242");
    assert_string_equal(str(pl, "slurm_array_job_id"), "4240");
    assert_string_equal(str(pl, "slurm_array_task_id"), "2");
    assert_string_equal(str(pl, "hostname"), "node-a");
    assert_true(json_is_null(json_object_get(pl, "cuda_visible_devices")));
    assert_int_equal(num_i(pl, "device_ordinal"), 1);
    json_decref(w);
    e.placement.recorded = 0;
    w = se_environment_json(&e);
    assert_null(json_object_get(w, "placement"));
    json_decref(w);
    json_decref(j);
}

/* run.json's arrays_max_bytes: the cap, or null for every case (and where
 * no arrays were saved), right after arrays_saved. */
static void test_run_json_records_the_arrays_cap(void **state)
{
    (void)state;
    se_run_info r = {"id", "s", "f", "p", "h1", "h2", 1, 1, 100000, NULL, 0, 1};
    json_t *w = se_run_json(&r);
    assert_int_equal(num_i(w, "arrays_max_bytes"), 100000);
    const char *key, *prev = "";
    json_t *v;
    json_object_foreach(w, key, v) {
        if (strcmp(key, "arrays_max_bytes") == 0)
            assert_string_equal(prev, "arrays_saved");
        prev = key;
    }
    json_decref(w);
    r.arrays_max_bytes = 0;
    w = se_run_json(&r);
    assert_true(json_is_null(json_object_get(w, "arrays_max_bytes")));
    json_decref(w);
    r.arrays_saved = 0;
    r.arrays_max_bytes = 5;
    w = se_run_json(&r);
    assert_true(json_is_null(json_object_get(w, "arrays_max_bytes")));
    json_decref(w);
    r.record_arrays_max_bytes = 0;
    w = se_run_json(&r);
    assert_null(json_object_get(w, "arrays_max_bytes"));
    json_decref(w);
}

static void test_resources_json_is_reproduced_byte_for_byte(void **state)
{
    (void)state;
    json_t *j = load(SE_RESOURCES_JSON);
    json_t *ks = json_object_get(j, "kernels"), *ls = json_object_get(j, "launches"), *e;
    size_t nk = json_array_size(ks), nl = json_array_size(ls), i;
    se_kernel_resources *k = calloc(nk, sizeof *k);
    se_launch_resources *l = calloc(nl, sizeof *l);
    json_array_foreach(ks, i, e)
        k[i] = (se_kernel_resources){str(e, "kernel"), str(e, "used_by"),
                                     (int)num_i(e, "block_threads"), (int)num_i(e, "registers"),
                                     num_i(e, "shared_static_bytes"), num_i(e, "local_bytes"),
                                     num_i(e, "const_bytes"), (int)num_i(e, "max_threads_per_block"),
                                     (int)num_i(e, "ptx_version"), (int)num_i(e, "binary_version"),
                                     (int)num_i(e, "max_blocks_per_sm")};
    json_array_foreach(ls, i, e)
        l[i] = (se_launch_resources){str(e, "shape"), str(e, "strategy"), str(e, "launch"),
                                     (int)num_i(e, "graph_nodes"),
                                     (int)num_i(e, "cooperative_blocks")};
    json_t *w = se_resources_json(k, nk, l, nl);
    assert_same_bytes(SE_RESOURCES_JSON, w);
    json_decref(w);
    free(k);
    free(l);
    json_decref(j);
}

static void hex_to_bytes(const char *hex, unsigned char out[32])
{
    for (int i = 0; i < 32; i++) {
        unsigned v = 0;
        sscanf(hex + 2 * i, "%2x", &v);
        out[i] = (unsigned char)v;
    }
}

static void test_validation_json_is_reproduced_byte_for_byte(void **state)
{
    (void)state;
    json_t *j = load(SE_VALIDATION_JSON);
    json_t *cases = json_object_get(j, "cases"), *e;
    size_t n = json_array_size(cases), i;
    se_validation_record *r = calloc(n, sizeof *r);
    se_shape *shapes = calloc(n, sizeof *shapes);
    se_compare *ref = calloc(n, sizeof *ref), *dnn = calloc(n, sizeof *dnn);
    unsigned char(*hashes)[2][32] = calloc(n, sizeof *hashes);
    json_array_foreach(cases, i, e) {
        shapes[i].rows = num_i(e, "rows");
        shapes[i].cols = num_i(e, "cols");
        snprintf(shapes[i].spec, sizeof shapes[i].spec, "%s", str(e, "shape"));
        ref[i].n = num_i(e, "elements");
        ref[i].n_fail = num_i(e, "fails");
        ref[i].n_nan = num_i(e, "nan");
        ref[i].n_tiny = num_i(e, "tiny");
        ref[i].max_abs_err = num_r(e, "max_abs_err");
        ref[i].max_rel_err = num_r(e, "max_rel_err");
        dnn[i].max_rel_err = num_r(e, "vs_cudnn_max_rel");
        dnn[i].n_fail = num_i(e, "vs_cudnn_fails");
        hex_to_bytes(str(e, "input_sha256"), hashes[i][0]);
        hex_to_bytes(str(e, "output_sha256"), hashes[i][1]);
        json_t *mt = json_object_get(e, "matches_tiled");
        r[i] = (se_validation_record){&shapes[i], num_i(e, "tile"), str(e, "strategy"),
                                      (int)num_i(e, "blocks"), (size_t)num_i(e, "graph_nodes"),
                                      (int)num_i(e, "invocations"), &ref[i], &dnn[i],
                                      json_is_true(json_object_get(e, "repeat_identical")),
                                      json_is_null(mt) ? -1 : json_is_true(mt), hashes[i][0],
                                      hashes[i][1], json_is_true(json_object_get(e, "pass"))};
    }
    const json_t *tol = json_object_get(j, "tolerance");
    se_tolerance t = {num_r(tol, "atol"), num_r(tol, "rtol")};
    json_t *w = se_validation_json(&t, (int)num_i(j, "invocations"), r, n);
    assert_same_bytes(SE_VALIDATION_JSON, w);
    json_decref(w);
    free(r);
    free(shapes);
    free(ref);
    free(dnn);
    free(hashes);
    json_decref(j);
}

/* run.json's task_graph: absent in the runs before packing (version 1),
 * else an integer this code knows; anything else names the field. */
static void test_run_task_graph_is_1_when_absent_and_checked_when_present(void **state)
{
    (void)state;
    int v = 0;
    se_err err = {{0}};
    json_t *run = json_pack("{s:s}", "run_id", "x");
    assert_int_equal(se_run_task_graph(run, &v, &err), SE_OK);
    assert_int_equal(v, SE_TASKGRAPH_V1);
    json_object_set_new(run, "task_graph", json_integer(SE_TASKGRAPH_VERSION));
    assert_int_equal(se_run_task_graph(run, &v, &err), SE_OK);
    assert_int_equal(v, SE_TASKGRAPH_VERSION);
    json_object_set_new(run, "task_graph", json_integer(SE_TASKGRAPH_VERSION + 1));
    assert_int_equal(se_run_task_graph(run, &v, &err), SE_ERR_VALIDATION);
    assert_non_null(strstr(err.msg, "run.json"));
    assert_non_null(strstr(err.msg, "task_graph"));
    json_object_set_new(run, "task_graph", json_string("2"));
    assert_int_equal(se_run_task_graph(run, &v, &err), SE_ERR_VALIDATION);
    assert_non_null(strstr(err.msg, "task_graph"));
    json_decref(run);
    /* The writer records the version it is given, and leaves it out at 0. */
    se_run_info r = {"id", "s", "f", "p", "h1", "h2", 0, 0, 0, NULL, 0, 1, SE_TASKGRAPH_VERSION};
    json_t *w = se_run_json(&r);
    assert_int_equal(se_run_task_graph(w, &v, &err), SE_OK);
    assert_int_equal(v, SE_TASKGRAPH_VERSION);
    json_decref(w);
    r.task_graph = 0;
    w = se_run_json(&r);
    assert_null(json_object_get(w, "task_graph"));
    json_decref(w);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_run_json_is_reproduced_byte_for_byte),
        cmocka_unit_test(test_run_task_graph_is_1_when_absent_and_checked_when_present),
        cmocka_unit_test(test_environment_json_is_reproduced_byte_for_byte),
        cmocka_unit_test(test_environment_json_records_where_the_run_ran),
        cmocka_unit_test(test_run_json_records_the_arrays_cap),
        cmocka_unit_test(test_resources_json_is_reproduced_byte_for_byte),
        cmocka_unit_test(test_validation_json_is_reproduced_byte_for_byte),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
