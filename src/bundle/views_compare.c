/*
 * views_compare.c - the view of the compare document (see views.h), which
 * the renderers get from the bundle (compare.h) rather than from a run's
 * files: per pair of runs or run sets, B/A per case, the differences of
 * their environments and the counts of faster, slower and unchanged cases.
 */
#include <stddef.h>
#include <stdlib.h>

#include "bundle/views_internal.h"

/* o[key] as an array of strings (absent: none). */
static se_status strings(const views_at *a, const json_t *o, const char *key, const char ***out,
                         size_t *n)
{
    const json_t *arr = NULL;
    se_status st = views_array(a, o, key, &arr, n);
    if (st == SE_OK)
        st = views_alloc(a, *n, sizeof **out, out);
    for (size_t i = 0; st == SE_OK && i < *n; i++) {
        json_error_t je;
        if (json_unpack_ex(json_array_get(arr, i), &je, 0, "s", &(*out)[i]) != 0) {
            views_at e = views_at_index(a, key, i);
            st = se_fail(a->err, SE_ERR_VALIDATION, "%s: field '%s': %s", a->file, e.path,
                         je.text);
        }
    }
    return st;
}

static se_status compare_case(const views_at *a, const json_t *c, se_compare_case_view *v)
{
    int has = 0;
    se_status st = views_str(a, c, "case", &v->id);
    if (st == SE_OK)
        st = views_str(a, c, "verdict", &v->verdict);
    if (st == SE_OK)
        st = views_str(a, c, "noise_from", &v->noise_from);
    if (st == SE_OK)
        st = views_num(a, c, "a_median_ns", &v->a_median_ns, NULL);
    if (st == SE_OK)
        st = views_num(a, c, "b_median_ns", &v->b_median_ns, NULL);
    if (st == SE_OK)
        st = views_num(a, c, "ratio", &v->ratio, NULL);
    if (st == SE_OK)
        st = views_pair(a, c, "ci95", v->ci95, &has);
    if (st == SE_OK)
        st = views_num(a, c, "change_pct", &v->change_pct, NULL);
    if (st == SE_OK)
        st = views_num(a, c, "noise_pct", &v->noise_pct, NULL);
    if (st == SE_OK)
        st = views_integer(a, c, "a_n", &v->a_n);
    if (st == SE_OK)
        st = views_integer(a, c, "b_n", &v->b_n);
    if (st == SE_OK)
        st = views_flag(a, c, "slower_than_gate", &v->slower_than_gate);
    return st;
}

static se_status compare_env(const views_at *a, const json_t *pair, se_compare_pair_view *v)
{
    const json_t *env = NULL, *d = NULL;
    se_status st = views_object(a, pair, "environment", &env);
    views_at ea = views_at_key(a, "environment");
    if (st == SE_OK)
        st = views_integer(&ea, env, "fields_compared", &v->fields_compared);
    if (st == SE_OK)
        st = views_array(&ea, env, "differences", &d, &v->n_diffs);
    if (st == SE_OK)
        st = views_alloc(a, v->n_diffs, sizeof *v->diffs, &v->diffs);
    for (size_t i = 0; st == SE_OK && i < v->n_diffs; i++) {
        views_at e = views_at_index(&ea, "differences", i);
        const json_t *diff = json_array_get(d, i);
        st = views_str(&e, diff, "field", &v->diffs[i].field);
        v->diffs[i].a = json_object_get(diff, "a");
        v->diffs[i].b = json_object_get(diff, "b");
    }
    return st;
}

static se_status compare_pair(const views_at *a, const json_t *p, se_compare_pair_view *v)
{
    const json_t *cases = NULL, *sum = NULL;
    static const views_slot strs[] = {
        {"a", offsetof(se_compare_pair_view, a)},
        {"a_run_id", offsetof(se_compare_pair_view, a_run_id)},
        {"b", offsetof(se_compare_pair_view, b)},
        {"b_run_id", offsetof(se_compare_pair_view, b_run_id)},
    };
    se_status st = views_strs(a, p, strs, VIEWS_NSLOTS(strs), v);
    if (st == SE_OK)
        st = strings(a, p, "a_runs", &v->a_runs, &v->n_a_runs);
    if (st == SE_OK)
        st = strings(a, p, "b_runs", &v->b_runs, &v->n_b_runs);
    if (st == SE_OK)
        st = strings(a, p, "only_in_a", &v->only_in_a, &v->n_only_in_a);
    if (st == SE_OK)
        st = strings(a, p, "only_in_b", &v->only_in_b, &v->n_only_in_b);
    if (st == SE_OK)
        st = compare_env(a, p, v);
    if (st == SE_OK)
        st = views_array(a, p, "cases", &cases, &v->n_cases);
    if (st == SE_OK)
        st = views_alloc(a, v->n_cases, sizeof *v->cases, &v->cases);
    for (size_t i = 0; st == SE_OK && i < v->n_cases; i++) {
        views_at e = views_at_index(a, "cases", i);
        st = compare_case(&e, json_array_get(cases, i), &v->cases[i]);
    }
    if (st == SE_OK)
        st = views_object(a, p, "summary", &sum);
    views_at sa = views_at_key(a, "summary");
    static const views_slot counts[] = {
        {"faster", offsetof(se_compare_pair_view, faster)},
        {"slower", offsetof(se_compare_pair_view, slower)},
        {"unchanged", offsetof(se_compare_pair_view, unchanged)},
        {"slower_than_gate", offsetof(se_compare_pair_view, slower_than_gate)},
    };
    if (st == SE_OK)
        st = views_integers(&sa, sum, counts, VIEWS_NSLOTS(counts), v);
    return st;
}

se_status se_compare_view_load(const json_t *doc, se_compare_view **out, se_err *err)
{
    views_at a = {"compare", "", err};
    const json_t *pairs = NULL;
    se_compare_view *v = calloc(1, sizeof *v);
    *out = NULL;
    if (!v)
        return se_fail(err, SE_ERR_NOMEM, "compare: out of memory");
    se_status st = views_str(&a, doc, "scope", &v->scope);
    if (st == SE_OK)
        st = views_num(&a, doc, "fail_if_slower_pct", &v->fail_if_slower_pct, &v->has_gate);
    if (st == SE_OK)
        st = views_array(&a, doc, "comparisons", &pairs, &v->n_pairs);
    if (st == SE_OK)
        st = views_alloc(&a, v->n_pairs, sizeof *v->pairs, &v->pairs);
    for (size_t i = 0; st == SE_OK && i < v->n_pairs; i++) {
        views_at e = views_at_index(&a, "comparisons", i);
        st = compare_pair(&e, json_array_get(pairs, i), &v->pairs[i]);
    }
    if (st != SE_OK) {
        se_compare_view_free(v);
        return st;
    }
    *out = v;
    return SE_OK;
}

void se_compare_view_free(se_compare_view *v)
{
    if (!v)
        return;
    for (size_t i = 0; v->pairs && i < v->n_pairs; i++) {
        se_compare_pair_view *p = &v->pairs[i];
        free(p->a_runs);
        free(p->b_runs);
        free(p->only_in_a);
        free(p->only_in_b);
        free(p->diffs);
        free(p->cases);
    }
    free(v->pairs);
    free(v);
}

