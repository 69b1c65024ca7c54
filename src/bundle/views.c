/*
 * views.c - the typed views of a run's JSON (see views.h): their release
 * and the lookups. se_views_load is views_load.c's, the run files' loaders
 * views_summary.c's, views_records.c's and views_traces.c's, the readers of
 * one field views_fields.c's, the compare document's view
 * views_compare.c's.
 */
#include "bundle/views.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- the run's views ------------------------------------------------------ */

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

