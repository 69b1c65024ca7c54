/*
 * views.c - the typed views of a run's JSON (see views.h): each field read
 * once through json_unpack_ex, so a value of the wrong type is refused with
 * jansson's own words and the file and field named here. This file holds
 * the readers of one field that every loader shares, se_views_load (the
 * run files' loaders: views_summary.c, views_records.c, views_traces.c) and
 * the lookups; the compare document's view is views_compare.c's.
 */
#include "bundle/views.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bundle/paths.h"
#include "bundle/views_internal.h"

static views_at at_sub(const views_at *a, const char *fmt, const char *key, size_t i)
{
    views_at s = *a;
    char tail[96];
    snprintf(tail, sizeof tail, fmt, key, i);
    int n = snprintf(s.path, sizeof s.path, "%s%s%s", a->path,
                     a->path[0] && tail[0] != '[' ? "." : "", tail);
    if (n < 0 || (size_t)n >= sizeof s.path)
        s.path[sizeof s.path - 1] = '\0'; /* cut short: still names the file */
    return s;
}

views_at views_at_key(const views_at *a, const char *key)
{
    return at_sub(a, "%s", key, 0);
}

views_at views_at_index(const views_at *a, const char *key, size_t i)
{
    return at_sub(a, "%s[%zu]", key, i);
}

static se_status refuse(const views_at *a, const char *key, const char *why)
{
    return se_fail(a->err, SE_ERR_VALIDATION, "%s: field '%s%s%s': %s", a->file, a->path,
                   a->path[0] ? "." : "", key, why);
}

/* o[key] unpacked with fmt into out; absent or null leaves *has 0. */
static se_status field(const views_at *a, const json_t *o, const char *key, const char *fmt,
                       void *out, int *has)
{
    const json_t *v = json_object_get(o, key);
    if (has)
        *has = 0;
    if (!v || json_is_null(v))
        return SE_OK;
    json_error_t je;
    if (json_unpack_ex((json_t *)v, &je, 0, fmt, out) != 0)
        return refuse(a, key, je.text);
    if (has)
        *has = 1;
    return SE_OK;
}

se_status views_num(const views_at *a, const json_t *o, const char *key, double *out, int *has)
{
    return field(a, o, key, "F", out, has);
}

se_status views_integer(const views_at *a, const json_t *o, const char *key, long long *out)
{
    json_int_t v = 0;
    se_status st = field(a, o, key, "I", &v, NULL);
    *out = (long long)v;
    return st;
}

se_status views_str(const views_at *a, const json_t *o, const char *key, const char **out)
{
    *out = NULL;
    return field(a, o, key, "s", out, NULL);
}

se_status views_flag(const views_at *a, const json_t *o, const char *key, int *out)
{
    int has = 0, v = 0;
    se_status st = field(a, o, key, "b", &v, &has);
    *out = has ? v : -1;
    return st;
}

se_status views_truth(const views_at *a, const json_t *o, const char *key, int *out)
{
    int v = -1;
    se_status st = views_flag(a, o, key, &v);
    *out = v == 1;
    return st;
}

se_status views_pair(const views_at *a, const json_t *o, const char *key, double out[2],
                     int *has)
{
    const json_t *v = json_object_get(o, key);
    *has = 0;
    if (!v || json_is_null(v))
        return SE_OK;
    json_error_t je;
    if (json_unpack_ex((json_t *)v, &je, 0, "[FF!]", &out[0], &out[1]) != 0) {
        char why[sizeof je.text + 48];
        snprintf(why, sizeof why, "expected [lo, hi], two numbers (%s)", je.text);
        return refuse(a, key, why);
    }
    *has = 1;
    return SE_OK;
}

se_status views_object(const views_at *a, const json_t *o, const char *key, const json_t **out)
{
    *out = NULL;
    json_t *v = NULL;
    se_status st = field(a, o, key, "o", &v, NULL);
    if (st == SE_OK && v && !json_is_object(v))
        return refuse(a, key, "expected an object");
    *out = v;
    return st;
}

se_status views_array(const views_at *a, const json_t *o, const char *key, const json_t **out,
                      size_t *n)
{
    json_t *v = NULL;
    se_status st = field(a, o, key, "o", &v, NULL);
    if (st == SE_OK && v && !json_is_array(v))
        return refuse(a, key, "expected an array");
    *out = v;
    *n = json_array_size(v);
    return st;
}

se_status views_strs(const views_at *a, const json_t *o, const views_slot *s, size_t n,
                     void *base)
{
    se_status st = SE_OK;
    for (size_t i = 0; st == SE_OK && i < n; i++)
        st = views_str(a, o, s[i].key, (const char **)((char *)base + s[i].off));
    return st;
}

se_status views_integers(const views_at *a, const json_t *o, const views_slot *s, size_t n,
                         void *base)
{
    se_status st = SE_OK;
    for (size_t i = 0; st == SE_OK && i < n; i++)
        st = views_integer(a, o, s[i].key, (long long *)((char *)base + s[i].off));
    return st;
}

se_status views_nums(const views_at *a, const json_t *o, const views_slot *s, size_t n,
                     void *base)
{
    se_status st = SE_OK;
    for (size_t i = 0; st == SE_OK && i < n; i++)
        st = views_num(a, o, s[i].key, (double *)((char *)base + s[i].off), NULL);
    return st;
}

se_status views_alloc(const views_at *a, size_t n, size_t size, void *out)
{
    void *p = calloc(n + 1, size);
    *(void **)out = p;
    return p ? SE_OK : se_fail(a->err, SE_ERR_NOMEM, "%s: out of memory", a->file);
}

/* ---- the run's views ------------------------------------------------------ */

se_status se_views_load(const se_views_json *in, se_run_views **out, se_err *err)
{
    *out = NULL;
    se_run_views *v = calloc(1, sizeof *v);
    if (!v)
        return se_fail(err, SE_ERR_NOMEM, "%s: out of memory", SE_SUMMARY_JSON);
    se_status st = views_summary_load(in->summary, in->derived, v, err);
    if (st == SE_OK)
        st = views_records_load(in, v, err);
    if (st == SE_OK)
        st = views_traces_load(in->traces, &v->traces, err);
    if (st != SE_OK) {
        se_views_free(v);
        return st;
    }
    *out = v;
    return SE_OK;
}

void se_views_free(se_run_views *v)
{
    if (!v)
        return;
    free(v->cases);
    free(v->controls);
    for (size_t i = 0; i < v->n_shapes; i++) {
        free(v->shapes[i].cases);
        free(v->shapes[i].peers);
    }
    free(v->shapes);
    free(v->peers.v);
    free(v->validation);
    free(v->kernels);
    free(v->launches);
    for (size_t i = 0; i < v->env.n_fields; i++)
        free(v->env.fields[i].items);
    free(v->env.fields);
    free(v->traces.v);
    free(v->traces.cost);
    free(v);
}

/* ---- lookups -------------------------------------------------------------- */

static int same(const char *a, const char *b)
{
    return a && b && strcmp(a, b) == 0;
}

const se_case_view *se_views_case(const se_run_views *v, const char *id)
{
    for (size_t i = 0; i < v->n_cases; i++)
        if (same(v->cases[i].id, id))
            return &v->cases[i];
    for (size_t i = 0; i < v->n_controls; i++)
        if (same(v->controls[i].id, id))
            return &v->controls[i];
    return NULL;
}

const se_case_view *se_views_case_on(const se_run_views *v, long long rows, long long cols,
                                     const char *what)
{
    for (size_t i = 0; i < v->n_cases; i++)
        if (v->cases[i].rows == rows && v->cases[i].cols == cols && same(v->cases[i].what, what))
            return &v->cases[i];
    return NULL;
}

const se_case_view *se_views_control(const se_run_views *v, const char *what)
{
    for (size_t i = 0; i < v->n_controls; i++)
        if (same(v->controls[i].what, what))
            return &v->controls[i];
    return NULL;
}

const se_derived_shape_view *se_views_shape(const se_run_views *v, long long rows,
                                            long long cols)
{
    for (size_t i = 0; i < v->n_shapes; i++)
        if (v->shapes[i].rows == rows && v->shapes[i].cols == cols)
            return &v->shapes[i];
    return NULL;
}

const se_derived_case_view *se_views_shape_case(const se_derived_shape_view *s, const char *id)
{
    for (size_t i = 0; s && i < s->n_cases; i++)
        if (same(s->cases[i].id, id))
            return &s->cases[i];
    return NULL;
}

const se_derived_peer_view *se_views_shape_peer(const se_derived_shape_view *s, const char *peer)
{
    for (size_t i = 0; s && i < s->n_peers; i++)
        if (same(s->peers[i].peer, peer))
            return &s->peers[i];
    return NULL;
}

const se_trace_view *se_views_trace(const se_run_views *v, const char *id)
{
    for (size_t i = 0; i < v->traces.n; i++)
        if (same(v->traces.v[i].id, id))
            return &v->traces.v[i];
    return NULL;
}

const se_tracing_cost_view *se_views_tracing_cost(const se_run_views *v, const char *id)
{
    for (size_t i = 0; i < v->traces.n_cost; i++)
        if (same(v->traces.cost[i].id, id))
            return &v->traces.cost[i];
    return NULL;
}

const se_validation_view *se_views_validation_on(const se_run_views *v, const char *shape)
{
    for (size_t i = 0; i < v->n_validation; i++)
        if (same(v->validation[i].shape, shape))
            return &v->validation[i];
    return NULL;
}

const se_validation_view *se_views_validation(const se_run_views *v, const char *id)
{
    for (size_t i = 0; i < v->n_validation; i++)
        if (same(v->validation[i].id, id))
            return &v->validation[i];
    return NULL;
}

