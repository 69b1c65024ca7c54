/*
 * verify_traces.c - verify's re-check of traces.json: every traced case whose
 * trace is here recomputed and compared with its saved entry.
 */
#define _POSIX_C_SOURCE 200809L
#include "bundle/verify_internal.h"

#include <string.h>

#include <jansson.h>

#include "model/json.h"
#include "bundle/paths.h"
#include "bundle/records.h"
#include "bundle/rundata.h"
#include "model/strategy.h"
#include "bundle/summary.h"
#include "bundle/trace.h"

/* The saved entry of a case in a traces.json array, or NULL. */
static json_t *entry_of(const json_t *arr, const char *id)
{
    size_t i;
    json_t *e;
    json_array_foreach(arr, i, e) {
        const char *c = json_string_value(json_object_get(e, "case"));
        if (c && strcmp(c, id) == 0)
            return e;
    }
    return NULL;
}

static void compare_entry(verify_ctx *v, const char *what, const char *id, const json_t *saved,
                          const json_t *again)
{
    char path[512] = "", diff[256] = "";
    if (!saved) {
        verify_problem(v, SE_TRACES_JSON ": no %s entry for %s", what, id);
        return;
    }
    if (!se_json_equal(saved, again, path, sizeof path, diff, sizeof diff)) {
        char where[700];
        snprintf(where, sizeof where, "%s %s', field '%s", what, id, path);
        verify_problem(v, SE_TRACES_JSON ": '%s': %s", where, diff);
    }
}

/* Each traced case whose files are here is recomputed and compared with
 * its saved entry; a case whose trace file is absent is counted as
 * remote-only (a site bundle keeps only some traces, a selected bundle
 * leaves some in its archive: remote.json). */
void verify_check_traces(verify_ctx *v, const se_protocol *p)
{
    const json_t *saved = v->rd.traces;
    if (!saved)
        return;
    const json_t *val = v->rd.validation;
    json_t *traces = json_object_get(saved, "traces"), *costs = json_object_get(saved, "tracing_cost");
    json_t *overlap = json_object_get(saved, "overlap");
    size_t before = v->problems, checked = 0, remote = 0, failures = 0, expected = 0, n_overlap = 0;
    /* The graph the run's kernels ran: the runs before packing record none. */
    int task_graph = SE_TASKGRAPH_V1;
    se_err gerr = {{0}};
    if (v->rd.run && se_run_task_graph(v->rd.run, &task_graph, &gerr) != SE_OK) {
        verify_type_problem(v, &gerr);
        return;
    }
    for (size_t i = 0; i < p->n_shapes; i++)
        for (int s = 0; s < se_protocol_nstrategies(p); s++) {
            int kind = se_trace_kind_of(p, s);
            if (!se_traced_case(p, s, &p->shapes[i]))
                continue;
            expected++;
            char id[SE_CASE_ID_SIZE], rel[200];
            se_case_id_make(p->shapes[i].rows, p->shapes[i].cols,
                            se_protocol_strategy(p, s)->name, id, sizeof id);
            se_path_trace(id, rel, sizeof rel);
            json_t *se = entry_of(traces, id);
            if (kind != SE_TRACE_ROWS) {
                json_t *oi = json_array_get(overlap, n_overlap++);
                json_t *want = se ? se_trace_overlap_item(se) : NULL;
                if (!want || !json_equal(oi, want))
                    verify_problem(v, SE_TRACES_JSON ": field 'overlap' for %s does not match its trace "
                            "entry%s", id, "");
                json_decref(want);
            }
            if (!verify_present(v, rel)) {
                remote++;
                if (!se)
                    verify_problem(v, SE_TRACES_JSON ": no entry for %s%s", id, "");
                /* A run that traced the case wrote the file: absent, it must
                 * at least be listed (remote-only), and --strict wants it. */
                if (!se_rundata_listed(&v->rd, rel))
                    verify_problem(v, "%s: the traced case's trace is neither here nor listed in "
                            "the manifest%s", rel, "");
                else if (v->strict && !verify_archived(v, rel))
                    verify_problem(v, "%s: the traced case's trace is not here (--strict)%s", rel, "");
                continue;
            }
            json_t *entry = NULL, *cost = NULL;
            int ok = 0;
            se_err err = {{0}};
            if (se_trace_case_report(p, v->dir, task_graph, &p->shapes[i], s, v->out, &entry,
                                     &cost, &ok, &err) != SE_OK) {
                verify_problem(v, "%s: cannot be re-checked: %s", rel, err.msg);
                continue;
            }
            checked++;
            failures += !ok;
            v->problems += !ok;
            compare_entry(v, "trace", id, se, entry);
            compare_entry(v, "tracing_cost", id, entry_of(costs, id), cost);
            /* A traced run computes the same bytes as the validated one. */
            json_t *vc = entry_of(json_object_get(val, "cases"), id);
            if (vc && !json_equal(json_object_get(vc, "output_sha256"),
                                  json_object_get(entry, "output_sha256")))
                verify_problem(v, SE_TRACE_OUTPUTS_CSV ": %s: the traced run's output differs from the "
                        "validated output (%s)", id, "output_sha256");
            json_decref(entry);
            json_decref(cost);
        }
    if (json_array_size(traces) != expected || n_overlap != json_array_size(overlap))
        verify_problem(v, SE_TRACES_JSON ": field 'traces'/'overlap': the entries do not match the "
                "protocol's traced cases%s%s", "", "");
    if (json_number_value(json_object_get(saved, "globaltimer_resolution_ns")) !=
        se_trace_timer_resolution(v->dir))
        verify_problem(v, SE_TRACES_JSON ": field 'globaltimer_resolution_ns' differs from "
                SE_ENVIRONMENT_JSON "%s%s", "", "");
    if (v->out)
        fprintf(v->out, "traces: %zu checked for coverage and ordering (%zu fail), %zu "
                "remote-only: %s\n", checked, failures, remote,
                v->problems == before ? "all match the saved report" : "PROBLEMS");
}
