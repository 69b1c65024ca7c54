/*
 * test_answer_runs.c - the answer over several runs (bundle/answer.h) on the
 * committed run set (runs/answer-runs.json, whatever runs it lists): every
 * ratio and interval is the two-level bootstrap over the runs, and the
 * leave-one-out calibration is recomputed here, run by run and ratio by
 * ratio, from the runs' samples, and must equal the counts the answer
 * prints in its footnote. With one run the answer says it rests on one run
 * and measures no calibration.
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
#include <unistd.h>

#include "bundle/answer.h"
#include "bundle/paths.h"
#include "bundle/runset.h"
#include "bundle/summary.h"
#include "model/operation.h"
#include "model/stats.h"
#include "render/answer_text.h"

#ifndef SE_ANSWER_SET
#define SE_ANSWER_SET "runs/answer-runs.json"
#endif

static se_runset set;
static se_rundata *runs;

static int load_all(void **state)
{
    (void)state;
    se_err err;
    if (se_runset_load(SE_ANSWER_SET, &set, &err) != SE_OK) {
        fprintf(stderr, "%s\n", err.msg);
        return -1;
    }
    runs = calloc(set.n, sizeof *runs);
    for (size_t r = 0; r < set.n; r++)
        if (se_rundata_load(set.dirs[r], &runs[r], &err) != SE_OK) {
            fprintf(stderr, "%s\n", err.msg);
            return -1;
        }
    return 0;
}

static int free_all(void **state)
{
    (void)state;
    for (size_t r = 0; r < set.n; r++)
        se_rundata_free(&runs[r]);
    free(runs);
    se_runset_free(&set);
    return 0;
}

/* Device samples of shape.what in a run, in file order; NULL if absent. */
static double *device(const se_rundata *rd, const char *shape, const char *what, size_t *n)
{
    char id[SE_CASE_ID_SIZE + 40], rel[SE_CASE_ID_SIZE + 80];
    snprintf(id, sizeof id, "%s.%s", shape, what);
    if (!se_rundata_summary_case(rd, id))
        return NULL;
    se_path_samples(id, rel, sizeof rel);
    se_sample_set sets[SE_NSCOPES];
    memset(sets, 0, sizeof sets);
    se_err err;
    assert_int_equal(se_rundata_samples(rd, rel, sets, SE_NSCOPES, &err), SE_OK);
    double *v = calloc(sets[SE_SCOPE_DEVICE].n + 1, sizeof *v);
    for (size_t k = 0; k < sets[SE_SCOPE_DEVICE].n; k++)
        v[k] = sets[SE_SCOPE_DEVICE].v[k].ns;
    *n = sets[SE_SCOPE_DEVICE].n;
    for (int s = 0; s < SE_NSCOPES; s++)
        se_sample_set_free(&sets[s]);
    return v;
}

/* The answer's interval, recomputed from docs/TIMING.md ("The answer's
 * interval"): the two-level bounds, widened where k >= 2 by the prediction
 * interval of the per-run ratios (written again here, the t quantile from
 * the library's table, which t_quantiles.py checks). */
static void answer_interval(const se_run_samples *u, const double *own, size_t k,
                            unsigned resamples, uint64_t seed, se_ratio *r)
{
    se_err err;
    assert_int_equal(se_ratio_two_level(u, k, resamples, seed, r, &err), SE_OK);
    if (k < 2 || resamples == 0)
        return;
    double m = 0.0, ss = 0.0;
    for (size_t j = 0; j < k; j++)
        m += log(own[j]);
    m /= (double)k;
    for (size_t j = 0; j < k; j++)
        ss += (log(own[j]) - m) * (log(own[j]) - m);
    double h = se_t975(k - 1) * sqrt(ss / (double)(k - 1)) * sqrt(1.0 + 1.0 / (double)k);
    r->lo = fmin(r->lo, exp(m - h));
    r->hi = fmax(r->hi, exp(m + h));
}

/* Checks one ratio a / b of a shape against the answer's: the interval over
 * all runs, and returns the held-out runs inside the others' interval. */
static int check_ratio(const se_answer *ans, const char *shape, const char *a, const char *b,
                       const se_answer_ratio *got, int *checked)
{
    size_t k = set.n, na[SE_RUNSET_MAX_RUNS], nb[SE_RUNSET_MAX_RUNS];
    double *va[SE_RUNSET_MAX_RUNS], *vb[SE_RUNSET_MAX_RUNS];
    se_run_samples u[SE_RUNSET_MAX_RUNS], rest[SE_RUNSET_MAX_RUNS];
    for (size_t r = 0; r < k; r++) {
        va[r] = device(&runs[r], shape, a, &na[r]);
        vb[r] = device(&runs[r], shape, b, &nb[r]);
        assert_non_null(va[r]);
        assert_non_null(vb[r]);
        u[r] = (se_run_samples){va[r], vb[r], na[r], nb[r]};
    }
    char key[3 * SE_CASE_ID_SIZE];
    snprintf(key, sizeof key, "runs:%s.%s/%s.%s/device", shape, a, shape, b);
    uint64_t seed = se_summary_seed(&runs[0].p, key);
    unsigned resamples = (unsigned)runs[0].p.bootstrap_resamples;
    double own[SE_RUNSET_MAX_RUNS], rest_own[SE_RUNSET_MAX_RUNS];
    for (size_t r = 0; r < k; r++)
        own[r] = se_median(va[r], na[r]) / se_median(vb[r], nb[r]);
    se_ratio all;
    answer_interval(u, own, k, resamples, seed, &all);
    assert_memory_equal(&all.ratio, &got->ratio, sizeof all.ratio);
    assert_memory_equal(&all.lo, &got->lo, sizeof all.lo);
    assert_memory_equal(&all.hi, &got->hi, sizeof all.hi);
    int covered = 0;
    for (size_t h = 0; k > 1 && h < k; h++) {
        size_t m = 0;
        for (size_t j = 0; j < k; j++)
            if (j != h) {
                rest_own[m] = own[j];
                rest[m++] = u[j];
            }
        se_ratio r;
        answer_interval(rest, rest_own, m, resamples, seed, &r);
        covered += own[h] >= r.lo && own[h] <= r.hi;
        (*checked)++;
    }
    for (size_t r = 0; r < k; r++) {
        free(va[r]);
        free(vb[r]);
    }
    (void)ans;
    return covered;
}

static void test_calibration_recomputed_from_the_committed_runs(void **state)
{
    (void)state;
    se_answer ans;
    se_err err;
    assert_int_equal(se_answer_build(runs, set.n, &ans, &err), SE_OK);
    assert_int_equal(ans.multi, set.n > 1);
    int all_checked = 0, all_covered = 0;
    for (size_t i = 0; i < ans.n_shapes; i++) {
        int checked = 0, covered = 0;
        for (int m = 0; m < ans.n_mech; m++)
            covered += check_ratio(&ans, ans.shape[i], se_strategy_get(ans.mech[m])->name,
                                   "stream", &ans.cell[i * (size_t)ans.n_mech + (size_t)m],
                                   &checked);
        for (int k = 0; k < SE_NVS; k++) {
            const char *a, *b;
            se_answer_vs_names(k, &a, &b);
            covered += check_ratio(&ans, ans.shape[i], a, b, &ans.vs[i * SE_NVS + (size_t)k],
                                   &checked);
        }
        assert_int_equal(ans.calib[i].checked, checked);
        assert_int_equal(ans.calib[i].covered, covered);
        all_checked += checked;
        all_covered += covered;
    }
    assert_int_equal(ans.calib_all.checked, all_checked);
    assert_int_equal(ans.calib_all.covered, all_covered);
    assert_int_equal(all_checked, (int)(set.n * ans.n_shapes * (size_t)(ans.n_mech + SE_NVS)));
    /* The footnote quotes those counts. */
    char *text = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&text, &len);
    se_answer_print(f, &ans, SE_FORMAT_TEXT, 0);
    fclose(f);
    char want[160];
    snprintf(want, sizeof want, "%d of %d held-out ratios (%.0f%%)", all_covered, all_checked,
             100.0 * all_covered / all_checked);
    assert_non_null(strstr(text, want));
    snprintf(want, sizeof want, "rests on %zu separate runs", set.n);
    assert_non_null(strstr(text, want));
    printf("calibration of %s: %s\n", SE_ANSWER_SET, strstr(text, "Calibration"));
    free(text);
    se_answer_free(&ans);
}

static void test_one_run_says_so_and_measures_no_calibration(void **state)
{
    (void)state;
    se_answer ans;
    se_err err;
    assert_int_equal(se_answer_build(runs, 1, &ans, &err), SE_OK);
    assert_int_equal(ans.multi, 0);
    assert_int_equal(ans.calib_all.checked, 0);
    char *s = se_answer_sentences(&ans);
    assert_non_null(strstr(s, "This answer rests on one run"));
    free(s);
    /* Its ratios are the run's own, as summary.json records them. */
    const json_t *t = se_json_path(se_rundata_summary_case(&runs[0], "32x4096.graph"),
                                   "scopes.device.time_ratio_to_stream.ratio");
    if (t && ans.n_mech > 0 && ans.mech[0] == SE_S_GRAPH)
        assert_true(ans.cell[0].ratio == json_number_value(t));
    se_answer_free(&ans);
}

/* The softmax's answer has no workload section (committed runs render as
 * before); a run of another workload (LayerNorm) gets one first, from its
 * descriptor's phases, and no cuDNN in its closing line. */
static void test_a_second_workloads_answer_has_its_own_section(void **state)
{
    (void)state;
    se_answer ans;
    se_err err;
    assert_int_equal(se_answer_build(runs, 1, &ans, &err), SE_OK);
    assert_ptr_equal(ans.op, se_operation_default());
    char *s = se_answer_sentences(&ans);
    assert_null(strstr(s, "Workload:"));
    assert_non_null(strstr(s, "rowblock (a non-tiled control), cuDNN and the PyTorch peers are "
                              "context"));
    free(s);
    ans.op = se_operation_find("layernorm"); /* as a LayerNorm run's answer would read */
    s = se_answer_sentences(&ans);
    assert_int_equal(strncmp(s, "Workload: LayerNorm forward", 27), 0);
    assert_non_null(strstr(s, "a tiled operation of 3 phases (A per tile: "));
    assert_non_null(strstr(s, "C per tile: write y"));
    assert_non_null(strstr(s, "stream and graph launch 3 kernels a call (the RMS-scaled softmax 5)"));
    assert_non_null(strstr(s, "fusion passes 2 grid barriers (4)"));
    assert_non_null(strstr(s, "the megakernel waits on 1 per-row counter (2)"));
    assert_non_null(strstr(s, "cuDNN's legacy API has no LayerNorm forward"));
    assert_null(strstr(s, "cuDNN and the PyTorch peers"));
    printf("%.*s\n", (int)(strchr(s, '\n') - s), s);
    free(s);
    se_answer_free(&ans);
}

static void test_bad_run_sets_refused_naming_the_entry(void **state)
{
    (void)state;
    char dir[] = "/tmp/se_runset_XXXXXX";
    assert_non_null(mkdtemp(dir));
    const char *bad[] = {
        "{\"format\":\"softmax-evidence-runset\",\"version\":1,\"runs\":[\"../x\"]}",
        "{\"format\":\"softmax-evidence-runset\",\"version\":1,\"runs\":[\"/abs\"]}",
        "{\"format\":\"softmax-evidence-runset\",\"version\":1,\"runs\":[]}",
        "{\"format\":\"softmax-evidence-runset\",\"version\":1,\"runs\":[\"a\",\"a\"]}",
        "{\"format\":\"softmax-evidence-runset\",\"version\":1,\"runs\":[3]}",
        "{\"format\":\"other\",\"version\":1,\"runs\":[\"a\"]}",
    };
    const char *why[] = {"runs[0] = '../x'", "runs[0] = '/abs'", "field 'runs'", "listed twice",
                         "runs[0]", "format"};
    char path[128];
    snprintf(path, sizeof path, "%s/set.json", dir);
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        FILE *f = fopen(path, "w");
        fputs(bad[i], f);
        fclose(f);
        se_runset s;
        se_err err;
        assert_int_not_equal(se_runset_load(path, &s, &err), SE_OK);
        if (!strstr(err.msg, why[i]))
            fail_msg("set %zu: message '%s' lacks '%s'", i, err.msg, why[i]);
    }
    FILE *f = fopen(path, "w");
    fputs("{\"format\":\"softmax-evidence-runset\",\"version\":1,\"runs\":[\"a/b\",\"c\"]}", f);
    fclose(f);
    se_runset s;
    se_err err;
    assert_int_equal(se_runset_load(path, &s, &err), SE_OK);
    assert_int_equal(s.n, 2);
    char want[160];
    snprintf(want, sizeof want, "%s/a/b", dir);
    assert_string_equal(s.dirs[0], want);
    se_runset_free(&s);
    remove(path);
    rmdir(dir);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_calibration_recomputed_from_the_committed_runs),
        cmocka_unit_test(test_one_run_says_so_and_measures_no_calibration),
        cmocka_unit_test(test_a_second_workloads_answer_has_its_own_section),
        cmocka_unit_test(test_bad_run_sets_refused_naming_the_entry),
    };
    return cmocka_run_group_tests(tests, load_all, free_all);
}
