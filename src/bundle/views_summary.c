/*
 * views_summary.c - the views of summary.json (see views.h): its cases and
 * controls, each with its timing scopes, and its derived results per shape
 * (bundle/derived.h). A timing scope's reader serves peers.json's summaries
 * too (views_records.c).
 */
#include <stddef.h>
#include <string.h>

#include "bundle/paths.h"
#include "bundle/views_internal.h"

/* ---- summaries ------------------------------------------------------------ */

se_status views_scope(const views_at *a, const json_t *s, se_scope_view *v)
{
    memset(v, 0, sizeof *v);
    if (!s)
        return SE_OK;
    v->present = 1;
    static const views_slot nums[] = {
        {"median_ns", offsetof(se_scope_view, median_ns)},
        {"p5_ns", offsetof(se_scope_view, p5_ns)},
        {"p25_ns", offsetof(se_scope_view, p25_ns)},
        {"p75_ns", offsetof(se_scope_view, p75_ns)},
        {"p95_ns", offsetof(se_scope_view, p95_ns)},
        {"min_ns", offsetof(se_scope_view, min_ns)},
        {"max_ns", offsetof(se_scope_view, max_ns)},
        {"mean_ns", offsetof(se_scope_view, mean_ns)},
        {"stdev_ns", offsetof(se_scope_view, stdev_ns)},
    };
    se_status st = views_nums(a, s, nums, VIEWS_NSLOTS(nums), v);
    const json_t *r = NULL;
    if (st == SE_OK)
        st = views_integer(a, s, "n", &v->n);
    if (st == SE_OK)
        st = views_integer(a, s, "throttled", &v->throttled);
    if (st == SE_OK)
        st = views_pair(a, s, "median_ci95_ns", v->ci95_ns, &v->has_ci);
    if (st == SE_OK)
        st = views_str(a, s, "l2", &v->l2);
    if (st == SE_OK)
        st = views_num(a, s, "gbps", &v->gbps, &v->has_gbps);
    if (st == SE_OK)
        st = views_num(a, s, "fraction_of_copy", &v->fraction_of_copy, &v->has_fraction);
    if (st == SE_OK)
        st = views_object(a, s, "time_ratio_to_stream", &r);
    if (st == SE_OK && r) {
        views_at ra = views_at_key(a, "time_ratio_to_stream");
        int has = 0;
        v->has_ratio = 1;
        st = views_num(&ra, r, "ratio", &v->ratio, NULL);
        if (st == SE_OK)
            st = views_pair(&ra, r, "ci95", v->ratio_ci95, &has);
    }
    return st;
}

static se_status case_view(const views_at *a, const json_t *c, se_case_view *v)
{
    if (!json_is_object(c))
        return se_fail(a->err, SE_ERR_VALIDATION, "%s: field '%s': expected an object", a->file,
                       a->path);
    static const views_slot strs[] = {
        {"case", offsetof(se_case_view, id)},
        {"what", offsetof(se_case_view, what)},
        {"shape", offsetof(se_case_view, shape)},
        {"launch", offsetof(se_case_view, launch)},
        {"mechanism", offsetof(se_case_view, mechanism)},
        {"samples_file", offsetof(se_case_view, samples_file)},
    };
    se_status st = views_strs(a, c, strs, VIEWS_NSLOTS(strs), v);
    if (st == SE_OK)
        st = views_integer(a, c, "rows", &v->rows);
    if (st == SE_OK)
        st = views_integer(a, c, "cols", &v->cols);
    if (st == SE_OK)
        st = views_integer(a, c, "tile", &v->tile);
    if (st == SE_OK)
        st = views_num(a, c, "bytes_moved", &v->bytes_moved, &v->has_bytes);
    const json_t *scopes = NULL;
    if (st == SE_OK)
        st = views_object(a, c, "scopes", &scopes);
    v->n_scopes = json_object_size(scopes);
    views_at sa = views_at_key(a, "scopes");
    for (int sc = 0; st == SE_OK && sc < SE_NSCOPES; sc++) {
        const char *name = se_scope_name((se_scope)sc);
        const json_t *s = NULL;
        st = views_object(&sa, scopes, name, &s);
        if (st == SE_OK) {
            views_at one = views_at_key(&sa, name);
            st = views_scope(&one, s, &v->scope[sc]);
        }
    }
    return st;
}

static se_status case_list(const views_at *a, const json_t *summary, const char *key,
                           se_case_view **out, size_t *n)
{
    const json_t *arr = NULL;
    se_status st = views_array(a, summary, key, &arr, n);
    if (st == SE_OK)
        st = views_alloc(a, *n, sizeof **out, out);
    for (size_t i = 0; st == SE_OK && i < *n; i++) {
        views_at e = views_at_index(a, key, i);
        st = case_view(&e, json_array_get(arr, i), &(*out)[i]);
    }
    return st;
}

/* ---- derived -------------------------------------------------------------- */

static se_status derived_case(const views_at *a, const json_t *c, se_derived_case_view *v)
{
    se_status st = views_str(a, c, "case", &v->id);
    if (st == SE_OK)
        st = views_str(a, c, "strategy", &v->strategy);
    if (st == SE_OK)
        st = views_str(a, c, "role", &v->role);
    if (st == SE_OK)
        st = views_flag(a, c, "validated", &v->validated);
    if (st == SE_OK)
        st = views_num(a, c, "median_ns", &v->median_ns, &v->has_median);
    if (st == SE_OK)
        st = views_num(a, c, "ratio_to_stream", &v->ratio_to_stream, &v->has_ratio);
    if (st == SE_OK)
        st = views_pair(a, c, "ratio_ci95", v->ratio_ci95, &v->has_ratio_ci);
    if (st == SE_OK)
        st = views_num(a, c, "fraction_of_copy", &v->fraction_of_copy, &v->has_fraction);
    if (st == SE_OK)
        st = views_num(a, c, "vs_best_peer", &v->vs_best_peer, &v->has_vs);
    return st;
}

static se_status derived_peer(const views_at *a, const json_t *c, se_derived_peer_view *v)
{
    se_status st = views_str(a, c, "peer", &v->peer);
    if (st == SE_OK)
        st = views_str(a, c, "status", &v->status);
    if (st == SE_OK)
        st = views_num(a, c, "median_ns", &v->median_ns, &v->has_median);
    if (st == SE_OK)
        st = views_num(a, c, "fraction_of_copy", &v->fraction_of_copy, &v->has_fraction);
    if (st == SE_OK)
        st = views_num(a, c, "vs_best_peer", &v->vs_best_peer, &v->has_vs);
    return st;
}

static se_status pick(const views_at *a, const json_t *shape, const char *key, se_pick_view *v)
{
    const json_t *o = NULL;
    se_status st = views_object(a, shape, key, &o);
    if (st != SE_OK || !o)
        return st;
    views_at p = views_at_key(a, key);
    v->present = 1;
    st = views_str(&p, o, "strategy", &v->strategy);
    if (st == SE_OK)
        st = views_num(&p, o, "median_ns", &v->median_ns, NULL);
    if (st == SE_OK)
        st = views_num(&p, o, "fraction_of_copy", &v->fraction_of_copy, &v->has_fraction);
    if (st == SE_OK)
        st = views_num(&p, o, "over_cudnn", &v->over_cudnn, &v->has_over_cudnn);
    return st;
}

static se_status best_peer(const views_at *a, const json_t *shape, se_best_peer_view *v)
{
    const json_t *o = NULL;
    se_status st = views_object(a, shape, "best_peer", &o);
    if (st != SE_OK || !o)
        return st;
    views_at p = views_at_key(a, "best_peer");
    v->present = 1;
    st = views_str(&p, o, "name", &v->name);
    if (st == SE_OK)
        st = views_num(&p, o, "median_ns", &v->median_ns, NULL);
    if (st == SE_OK)
        st = views_num(&p, o, "vs_best_peer", &v->vs_best_peer, &v->has_vs);
    return st;
}

static se_status derived_shape(const views_at *a, const json_t *s, se_derived_shape_view *v)
{
    const json_t *cases = NULL, *peers = NULL;
    se_status st = views_str(a, s, "shape", &v->shape);
    if (st == SE_OK)
        st = views_str(a, s, "id", &v->id);
    if (st == SE_OK)
        st = views_integer(a, s, "rows", &v->rows);
    if (st == SE_OK)
        st = views_integer(a, s, "cols", &v->cols);
    if (st == SE_OK)
        st = views_num(a, s, "copy_median_ns", &v->copy_median_ns, &v->has_copy_median);
    if (st == SE_OK)
        st = views_array(a, s, "cases", &cases, &v->n_cases);
    if (st == SE_OK)
        st = views_alloc(a, v->n_cases, sizeof *v->cases, &v->cases);
    for (size_t i = 0; st == SE_OK && i < v->n_cases; i++) {
        views_at e = views_at_index(a, "cases", i);
        st = derived_case(&e, json_array_get(cases, i), &v->cases[i]);
    }
    if (st == SE_OK)
        st = views_array(a, s, "peers", &peers, &v->n_peers);
    if (st == SE_OK)
        st = views_alloc(a, v->n_peers, sizeof *v->peers, &v->peers);
    for (size_t i = 0; st == SE_OK && i < v->n_peers; i++) {
        views_at e = views_at_index(a, "peers", i);
        st = derived_peer(&e, json_array_get(peers, i), &v->peers[i]);
    }
    if (st == SE_OK)
        st = pick(a, s, "fastest_tiled", &v->fastest_tiled);
    if (st == SE_OK)
        st = pick(a, s, "fastest_ours", &v->fastest_ours);
    if (st == SE_OK)
        st = best_peer(a, s, &v->best_peer);
    return st;
}

static se_status derived_view(const views_at *a, const json_t *d, se_run_views *v)
{
    const json_t *shapes = NULL, *g = NULL;
    se_status st = views_array(a, d, "shapes", &shapes, &v->n_shapes);
    if (st == SE_OK)
        st = views_alloc(a, v->n_shapes, sizeof *v->shapes, &v->shapes);
    for (size_t i = 0; st == SE_OK && i < v->n_shapes; i++) {
        views_at e = views_at_index(a, "shapes", i);
        st = derived_shape(&e, json_array_get(shapes, i), &v->shapes[i]);
    }
    if (st == SE_OK)
        st = views_object(a, d, "grid_barrier_ns", &g);
    if (st == SE_OK && g) {
        views_at ga = views_at_key(a, "grid_barrier_ns");
        se_grid_barrier_view *b = &v->grid_barrier;
        b->present = 1;
        st = views_num(&ga, g, "value", &b->value_ns, NULL);
        if (st == SE_OK)
            st = views_integer(&ga, g, "barriers", &b->barriers);
        if (st == SE_OK)
            st = views_str(&ga, g, "formula", &b->formula);
    }
    return st;
}

se_status views_summary_load(const json_t *summary, const json_t *derived, se_run_views *v,
                             se_err *err)
{
    views_at a = {SE_SUMMARY_JSON, "", err};
    se_status st = case_list(&a, summary, "cases", &v->cases, &v->n_cases);
    if (st == SE_OK)
        st = case_list(&a, summary, "controls", &v->controls, &v->n_controls);
    views_at d = views_at_key(&a, "derived");
    if (st == SE_OK)
        st = derived_view(&d, derived, v);
    return st;
}
