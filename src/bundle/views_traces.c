/*
 * views_traces.c - the views of a run's traces (see views.h): traces.json
 * (each trace's checks and the tracing cost), read with the run, and one
 * trace's check report, which the renderers get from the bundle
 * (trace.h's se_trace_check) rather than from a run's files.
 */
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "bundle/paths.h"
#include "bundle/views_internal.h"

/* ---- traces.json ---------------------------------------------------------- */

static se_status trace_entry(const views_at *a, const json_t *t, se_trace_view *v)
{
    static const views_slot counts[] = {
        {"tasks_expected", offsetof(se_trace_view, tasks_expected)},
        {"records", offsetof(se_trace_view, records)},
        {"invalid_count", offsetof(se_trace_view, invalid_count)},
        {"missing_count", offsetof(se_trace_view, missing_count)},
        {"duplicated_count", offsetof(se_trace_view, duplicated_count)},
        {"dependency_edges_checked", offsetof(se_trace_view, dependency_edges_checked)},
        {"order_violations_count", offsetof(se_trace_view, order_violations_count)},
        {"phase_barrier_violations_count",
         offsetof(se_trace_view, phase_barrier_violations_count)},
        {"span_ns", offsetof(se_trace_view, span_ns)},
    };
    se_status st = views_str(a, t, "case", &v->id);
    if (st == SE_OK)
        st = views_str(a, t, "kind", &v->kind);
    if (st == SE_OK)
        st = views_str(a, t, "verdict", &v->verdict);
    if (st == SE_OK)
        st = views_integers(a, t, counts, VIEWS_NSLOTS(counts), v);
    if (st == SE_OK)
        st = views_truth(a, t, "phase_barriers_checked", &v->phase_barriers_checked);
    const json_t *ov = NULL, *sm = NULL;
    if (st == SE_OK)
        st = views_object(a, t, "overlap", &ov);
    views_at oa = views_at_key(a, "overlap"), sa = views_at_key(a, "sm");
    if (st == SE_OK)
        st = views_num(&oa, ov, "fraction", &v->overlap_fraction, NULL);
    if (st == SE_OK)
        st = views_object(a, t, "sm", &sm);
    if (st == SE_OK)
        st = views_integer(&sa, sm, "sms_used", &v->sms_used);
    return st;
}

static se_status tracing_cost(const views_at *a, const json_t *c, se_tracing_cost_view *v)
{
    static const views_slot nums[] = {
        {"untraced_median_ns", offsetof(se_tracing_cost_view, untraced_median_ns)},
        {"traced_median_ns", offsetof(se_tracing_cost_view, traced_median_ns)},
        {"overhead_ns", offsetof(se_tracing_cost_view, overhead_ns)},
        {"overhead_fraction", offsetof(se_tracing_cost_view, overhead_fraction)},
    };
    se_status st = views_str(a, c, "case", &v->id);
    if (st == SE_OK)
        st = views_str(a, c, "untraced_samples_file", &v->untraced_samples_file);
    if (st == SE_OK)
        st = views_str(a, c, "traced_samples_file", &v->traced_samples_file);
    if (st == SE_OK)
        st = views_integer(a, c, "samples", &v->samples);
    if (st == SE_OK)
        st = views_nums(a, c, nums, VIEWS_NSLOTS(nums), v);
    return st;
}

se_status views_traces_load(const json_t *tj, se_traces_view *v, se_err *err)
{
    views_at a = {SE_TRACES_JSON, "", err};
    const json_t *arr = NULL;
    se_status st = views_num(&a, tj, "globaltimer_resolution_ns", &v->timer_resolution_ns, NULL);
    if (st == SE_OK)
        st = views_array(&a, tj, "traces", &arr, &v->n);
    if (st == SE_OK)
        st = views_alloc(&a, v->n, sizeof *v->v, &v->v);
    for (size_t i = 0; st == SE_OK && i < v->n; i++) {
        views_at e = views_at_index(&a, "traces", i);
        st = trace_entry(&e, json_array_get(arr, i), &v->v[i]);
    }
    if (st == SE_OK)
        st = views_str(&a, tj, "note", &v->note);
    if (st == SE_OK)
        st = views_array(&a, tj, "tracing_cost", &arr, &v->n_cost);
    if (st == SE_OK)
        st = views_alloc(&a, v->n_cost, sizeof *v->cost, &v->cost);
    for (size_t i = 0; st == SE_OK && i < v->n_cost; i++) {
        views_at e = views_at_index(&a, "tracing_cost", i);
        st = tracing_cost(&e, json_array_get(arr, i), &v->cost[i]);
    }
    return st;
}

/* ---- a trace's check report ------------------------------------------------ */

static se_status report_phase(const views_at *a, const char *name, const json_t *ph,
                              se_trace_phase_view *v)
{
    views_at pa = views_at_key(a, name);
    v->name = name;
    se_status st = views_integer(&pa, ph, "tasks", &v->tasks);
    if (st == SE_OK)
        st = views_integer(&pa, ph, "start_ns", &v->start_ns);
    if (st == SE_OK)
        st = views_integer(&pa, ph, "end_ns", &v->end_ns);
    if (st == SE_OK)
        st = views_integer(&pa, ph, "span_ns", &v->span_ns);
    return st;
}

static se_status report_phases(const views_at *a, const json_t *r, se_trace_report_view *v)
{
    const json_t *phases = NULL;
    se_status st = views_object(a, r, "phases", &phases);
    v->n_phases = json_object_size(phases);
    if (st == SE_OK)
        st = views_alloc(a, v->n_phases, sizeof *v->phases, &v->phases);
    views_at pa = views_at_key(a, "phases");
    const char *key;
    json_t *ph;
    size_t i = 0;
    json_object_foreach((json_t *)phases, key, ph) {
        if (st == SE_OK)
            st = report_phase(&pa, key, ph, &v->phases[i++]);
    }
    return st;
}

se_status se_trace_report_view_load(const json_t *report, const char *case_id,
                                    se_trace_report_view *v, se_err *err)
{
    static const views_slot counts[] = {
        {"tasks_expected", offsetof(se_trace_report_view, tasks_expected)},
        {"records", offsetof(se_trace_report_view, records)},
        {"missing_count", offsetof(se_trace_report_view, missing_count)},
        {"duplicated_count", offsetof(se_trace_report_view, duplicated_count)},
        {"dependency_edges_checked", offsetof(se_trace_report_view, dependency_edges_checked)},
        {"order_violations_count", offsetof(se_trace_report_view, order_violations_count)},
        {"phase_barrier_violations_count",
         offsetof(se_trace_report_view, phase_barrier_violations_count)},
    }, sm_counts[] = {
        {"sms_used", offsetof(se_trace_report_view, sms_used)},
        {"tasks_per_sm_min", offsetof(se_trace_report_view, tasks_per_sm_min)},
        {"tasks_per_sm_max", offsetof(se_trace_report_view, tasks_per_sm_max)},
        {"idle_between_tasks_ns_total",
         offsetof(se_trace_report_view, idle_between_tasks_ns_total)},
        {"idle_between_tasks_ns_max_sm",
         offsetof(se_trace_report_view, idle_between_tasks_ns_max_sm)},
    };
    views_at a = {case_id, "", err};
    memset(v, 0, sizeof *v);
    se_status st = views_str(&a, report, "verdict", &v->verdict);
    if (st == SE_OK)
        st = views_integers(&a, report, counts, VIEWS_NSLOTS(counts), v);
    if (st == SE_OK)
        st = views_truth(&a, report, "phase_barriers_checked", &v->phase_barriers_checked);
    if (st == SE_OK)
        st = report_phases(&a, report, v);
    const json_t *sm = NULL, *ov = NULL;
    views_at sa = views_at_key(&a, "sm"), oa = views_at_key(&a, "overlap");
    if (st == SE_OK)
        st = views_object(&a, report, "sm", &sm);
    if (st == SE_OK)
        st = views_integers(&sa, sm, sm_counts, VIEWS_NSLOTS(sm_counts), v);
    if (st == SE_OK)
        st = views_str(&sa, sm, "caveat", &v->sm_caveat);
    if (st == SE_OK)
        st = views_object(&a, report, "overlap", &ov);
    if (st == SE_OK)
        st = views_num(&oa, ov, "fraction", &v->overlap_fraction, NULL);
    if (st != SE_OK)
        se_trace_report_view_free(v);
    return st;
}

void se_trace_report_view_free(se_trace_report_view *v)
{
    free(v->phases);
    memset(v, 0, sizeof *v);
}
