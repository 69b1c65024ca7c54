/*
 * test_strategies.c - the strategy table's two halves agree: every strategy
 * of model/strategy.h has a GPU line in run/strategies.c with an enqueue
 * function, exactly the cooperative ones have a co-residency query, one
 * query per cooperative group, every one runs the RMS-scaled softmax and one
 * without LayerNorm kernels is refused for LayerNorm naming both, and the help text lists every strategy with
 * its description; a run's own table (strategies.json, bundle/describe.h)
 * reads back to the compiled one, the frozen legacy v1 table is the ten
 * strategies the committed runs were made with, and a strategies.json that
 * is wrong is refused naming the field. No GPU is needed: nothing here
 * calls CUDA.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bundle/describe.h"
#include "model/operation.h"
#include "model/strategy.h"
#include "run/strategies.h"
#include "tool/cli.h"

static void test_every_strategy_has_an_enqueue_function(void **state)
{
    (void)state;
    for (int s = 0; s < SE_NSTRATEGIES; s++) {
        const se_strategy_gpu *gpu = se_strategy_gpu_get((se_strategy)s);
        assert_non_null(gpu);
        if (!gpu->enqueue)
            fail_msg("%s has no enqueue function", se_strategy_get((se_strategy)s)->name);
    }
    assert_null(se_strategy_gpu_get(SE_NSTRATEGIES));
}

static void test_exactly_cooperative_strategies_have_a_coresidency_query(void **state)
{
    (void)state;
    for (int s = 0; s < SE_NSTRATEGIES; s++) {
        const se_strategy_info *info = se_strategy_get((se_strategy)s);
        int has_query = se_strategy_gpu_get((se_strategy)s)->coop_max_blocks != NULL;
        if (has_query != info->cooperative)
            fail_msg("%s: coop_group %s but %s co-residency query", info->name,
                     info->coop_group ? info->coop_group : "NULL", has_query ? "a" : "no");
    }
}

static void test_strategies_of_one_group_share_its_query_and_first(void **state)
{
    (void)state;
    for (int s = 0; s < SE_NSTRATEGIES; s++) {
        const se_strategy_info *info = se_strategy_get((se_strategy)s);
        se_strategy first = se_coop_group_first((se_strategy)s);
        if (!info->cooperative) {
            assert_int_equal(first, SE_NSTRATEGIES);
            continue;
        }
        assert_true(first <= (se_strategy)s);
        assert_string_equal(se_strategy_get(first)->coop_group, info->coop_group);
        if (se_strategy_gpu_get(first)->coop_max_blocks !=
            se_strategy_gpu_get((se_strategy)s)->coop_max_blocks)
            fail_msg("%s and %s are in group %s but query different kernels",
                     se_strategy_get(first)->name, info->name, info->coop_group);
        for (int o = 0; o < s; o++) { /* no earlier strategy of the group */
            const se_strategy_info *other = se_strategy_get((se_strategy)o);
            if (other->cooperative && strcmp(other->coop_group, info->coop_group) == 0)
                assert_true(first <= (se_strategy)o);
        }
    }
    assert_int_equal(se_coop_group_first(SE_S_FUSION_GRAPH), SE_S_FUSION);
    assert_int_equal(se_coop_group_first(SE_S_MEGAKERNEL_GRAPH), SE_S_MEGAKERNEL);
    assert_int_equal(se_coop_group_first(SE_S_STREAM), SE_NSTRATEGIES);
}

static void test_group_kernel_names_read_as_before(void **state)
{
    (void)state;
    char buf[64];
    se_coop_group_kernel("fusion", buf, sizeof buf);
    assert_string_equal(buf, "fusion kernel");
    se_coop_group_kernel("megakernel", buf, sizeof buf);
    assert_string_equal(buf, "megakernel");
}

static void test_help_lists_every_strategy_with_its_description(void **state)
{
    (void)state;
    FILE *f = tmpfile();
    assert_non_null(f);
    assert_int_equal(se_cli_command_help(f, "run"), 1); /* run --help lists them */
    long len = ftell(f);
    assert_true(len > 0);
    char *text = calloc((size_t)len + 1, 1);
    assert_non_null(text);
    rewind(f);
    assert_int_equal(fread(text, 1, (size_t)len, f), (size_t)len);
    fclose(f);
    for (int s = 0; s < SE_NSTRATEGIES; s++) {
        const se_strategy_info *info = se_strategy_get((se_strategy)s);
        char line[64], words[32];
        snprintf(line, sizeof line, "\n  %-18s", info->name);
        snprintf(words, sizeof words, "%.*s", (int)strcspn(info->description, " "),
                 info->description);
        const char *at = strstr(text, line);
        if (!at || strncmp(at + strlen(line), words, strlen(words)) != 0)
            fail_msg("the help does not list %s with its description", info->name);
    }
    free(text);
}

/* The GPU half has an init_control's enqueue exactly where the host half
 * names one (the megakernel's initialization). */
static void test_exactly_strategies_with_an_init_control_have_its_enqueue(void **state)
{
    (void)state;
    for (int s = 0; s < SE_NSTRATEGIES; s++) {
        const se_strategy_info *info = se_strategy_get((se_strategy)s);
        const se_strategy_gpu *gpu = se_strategy_gpu_get((se_strategy)s);
        if ((info->init_control != NULL) != (gpu->init_enqueue != NULL))
            fail_msg("%s: init_control %s but init_enqueue %s", info->name,
                     info->init_control ? info->init_control : "NULL",
                     gpu->init_enqueue ? "set" : "NULL");
    }
    assert_string_equal(se_strategy_get(SE_S_MEGAKERNEL)->init_control, "megakernel_init");
}

static void assert_same_entry(const se_strategy_info *a, const se_strategy_info *b)
{
    assert_string_equal(a->name, b->name);
    assert_string_equal(a->mechanism, b->mechanism);
    assert_string_equal(a->launch, b->launch);
    assert_int_equal(a->role, b->role);
    assert_int_equal(a->tiled, b->tiled);
    assert_int_equal(a->cooperative, b->cooperative);
    if (a->coop_group || b->coop_group) {
        assert_non_null(a->coop_group);
        assert_non_null(b->coop_group);
        assert_string_equal(a->coop_group, b->coop_group);
    }
    if (a->init_control || b->init_control) {
        assert_non_null(a->init_control);
        assert_non_null(b->init_control);
        assert_string_equal(a->init_control, b->init_control);
    }
    assert_int_equal(a->trace, b->trace);
    assert_string_equal(a->colour, b->colour);
    assert_string_equal(a->description, b->description);
}

static void test_strategies_json_reads_back_to_the_compiled_table(void **state)
{
    (void)state;
    const se_strategy_table *t = se_strategy_compiled();
    json_t *j = se_describe_json(t, se_operation_default());
    assert_non_null(j);
    se_run_strategies *rs = NULL;
    se_err err = {{0}};
    if (se_describe_parse(j, "strategies.json", &rs, &err) != SE_OK)
        fail_msg("%s", err.msg);
    assert_int_equal(rs->table.n, t->n);
    for (int i = 0; i < t->n; i++)
        assert_same_entry(&rs->table.s[i], &t->s[i]);
    se_run_strategies_free(rs);
    json_decref(j);
}

/* The committed runs' strategies, as their protocols list them. */
static void test_legacy_v1_is_the_ten_strategies_of_the_committed_runs(void **state)
{
    (void)state;
    static const char *const names[] = {"stream",     "graph",        "stream-pdl", "graph-pdl",
                                        "fusion",     "fusion-graph", "megakernel",
                                        "megakernel-graph", "rowblock", "cudnn"};
    const se_strategy_table *t = se_strategy_legacy_v1();
    assert_int_equal(t->n, (int)(sizeof names / sizeof names[0]));
    for (int i = 0; i < t->n; i++)
        assert_string_equal(t->s[i].name, names[i]);
    assert_string_equal(t->s[se_stable_find(t, "fusion")].coop_group, "fusion");
    assert_int_equal(t->s[se_stable_find(t, "megakernel")].trace, SE_TRACE_TASKS);
    assert_string_equal(t->s[se_stable_find(t, "megakernel-graph")].init_control,
                        "megakernel_init");
    assert_null(t->s[se_stable_find(t, "fusion")].init_control);
    assert_int_equal(t->s[se_stable_find(t, "cudnn")].role, SE_ROLE_REFERENCE);
}

/* se_describe_parse of the compiled table's document after edit() refuses
 * it with a message containing want. */
static void expect_refused(void (*edit)(json_t *root), const char *want)
{
    json_t *j = se_describe_json(se_strategy_compiled(), se_operation_default());
    assert_non_null(j);
    edit(j);
    se_run_strategies *rs = NULL;
    se_err err = {{0}};
    assert_int_equal(se_describe_parse(j, "strategies.json", &rs, &err), SE_ERR_VALIDATION);
    assert_null(rs);
    if (!strstr(err.msg, want))
        fail_msg("message '%s' does not contain '%s'", err.msg, want);
    json_decref(j);
}

static json_t *entry(json_t *root, size_t i)
{
    return json_array_get(json_object_get(root, "strategies"), i);
}

static void edit_unknown_key(json_t *r) { json_object_set_new(entry(r, 1), "kernel", json_true()); }
static void edit_path_name(json_t *r) { json_object_set_new(entry(r, 1), "name", json_string("../x")); }
static void edit_twice(json_t *r) { json_object_set_new(entry(r, 2), "name", json_string("stream")); }
static void edit_role(json_t *r) { json_object_set_new(entry(r, 1), "role", json_string("fast")); }
static void edit_launch(json_t *r) { json_object_set_new(entry(r, 1), "launch", json_string("x")); }
static void edit_colour(json_t *r) { json_object_set_new(entry(r, 1), "colour", json_string("red")); }
static void edit_workload(json_t *r)
{
    json_object_set_new(json_object_get(r, "workload"), "name", json_string("group-norm"));
}
static void edit_baseline(json_t *r)
{
    json_object_set_new(entry(r, 0), "role", json_string("control"));
}
static void edit_too_many(json_t *r)
{
    json_t *arr = json_object_get(r, "strategies");
    for (int i = 0; json_array_size(arr) <= SE_STRATEGY_MAX; i++) {
        json_t *e = json_deep_copy(json_array_get(arr, 0));
        char name[32];
        snprintf(name, sizeof name, "copy%d", i);
        json_object_set_new(e, "name", json_string(name));
        json_array_append_new(arr, e);
    }
}

static void test_a_wrong_strategies_json_is_refused_naming_the_field(void **state)
{
    (void)state;
    expect_refused(edit_unknown_key, "field 'strategies[1].kernel': unknown");
    expect_refused(edit_path_name, "field 'strategies[1].name': '../x'");
    expect_refused(edit_twice, "field 'strategies[2].name': 'stream' twice");
    expect_refused(edit_role, "field 'strategies[1].role'");
    expect_refused(edit_launch, "field 'strategies[1].launch'");
    expect_refused(edit_colour, "field 'strategies[1].colour'");
    expect_refused(edit_workload, "field 'workload.name': 'group-norm'");
    expect_refused(edit_baseline, "the baseline, 'stream', is not tiled");
    expect_refused(edit_too_many, "more than the 32 a protocol's selection can hold");
}

/* Every strategy runs the first workload, the RMS-scaled softmax. One whose
 * GPU line does not list an operation (cudnn for LayerNorm: cuDNN's legacy
 * API has no layer norm) is refused for it, naming the strategy and the
 * workload, and has no co-residency limit to ask for it; the others pass.
 * (The test build's test-extra, a cooperative strategy without LayerNorm
 * kernels, is refused by `run` itself: tests/CMakeLists.txt.) */
static void test_a_strategy_without_an_operations_kernels_is_refused_for_it(void **state)
{
    (void)state;
    const se_operation *softmax = se_operation_default();
    const se_operation *ln = se_operation_find("layernorm");
    assert_non_null(ln);
    assert_int_equal(softmax->id, SE_GPU_OP_RMS_SOFTMAX);
    assert_int_equal(ln->id, SE_GPU_OP_LAYERNORM);
    se_err err;
    for (int s = 0; s < SE_NSTRATEGIES; s++) {
        const char *name = se_strategy_get((se_strategy)s)->name;
        if (!se_strategy_runs_op((se_strategy)s, SE_GPU_OP_RMS_SOFTMAX))
            fail_msg("%s does not run the RMS-scaled softmax", name);
        assert_int_equal(se_strategy_check_operation("p.json", (se_strategy)s, softmax, &err),
                         SE_OK);
        int runs = se_strategy_runs_op((se_strategy)s, SE_GPU_OP_LAYERNORM);
        se_status st = se_strategy_check_operation("p.json", (se_strategy)s, ln, &err);
        assert_int_equal(st, runs ? SE_OK : SE_ERR_USAGE);
        if (!runs) {
            char want[128];
            snprintf(want, sizeof want, "p.json: strategy '%s' cannot run workload 'layernorm'",
                     name);
            if (strncmp(err.msg, want, strlen(want)) != 0)
                fail_msg("refusal of %s: %s", name, err.msg);
            int limit = -1; /* no kernel to ask: no CUDA call, no error */
            assert_int_equal(se_coop_max_blocks_op((se_strategy)s, SE_GPU_OP_LAYERNORM, &limit,
                                                   &err), SE_OK);
            assert_int_equal(limit, 0);
        }
    }
    assert_false(se_strategy_runs_op(SE_S_CUDNN, SE_GPU_OP_LAYERNORM));
    assert_true(se_strategy_runs_op(SE_S_FUSION, SE_GPU_OP_LAYERNORM));
    assert_true(se_strategy_runs_op(SE_S_ROWBLOCK, SE_GPU_OP_LAYERNORM));
    assert_false(se_strategy_runs_op(SE_NSTRATEGIES, SE_GPU_OP_RMS_SOFTMAX));
    assert_false(se_strategy_runs_op(SE_S_STREAM, 40));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_every_strategy_has_an_enqueue_function),
        cmocka_unit_test(test_exactly_cooperative_strategies_have_a_coresidency_query),
        cmocka_unit_test(test_strategies_of_one_group_share_its_query_and_first),
        cmocka_unit_test(test_group_kernel_names_read_as_before),
        cmocka_unit_test(test_help_lists_every_strategy_with_its_description),
        cmocka_unit_test(test_exactly_strategies_with_an_init_control_have_its_enqueue),
        cmocka_unit_test(test_a_strategy_without_an_operations_kernels_is_refused_for_it),
        cmocka_unit_test(test_strategies_json_reads_back_to_the_compiled_table),
        cmocka_unit_test(test_legacy_v1_is_the_ten_strategies_of_the_committed_runs),
        cmocka_unit_test(test_a_wrong_strategies_json_is_refused_naming_the_field),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
