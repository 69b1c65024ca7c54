/*
 * trace_report.c - the report of traced cases (see trace.h): one case's
 * traces.json entry and tracing cost from its files, and traces.json.
 */
#include "bundle/trace.h"
#include "model/operation.h"
#include "bundle/trace_internal.h"

#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "bundle/fsutil.h"
#include "model/json.h"
#include "bundle/paths.h"
#include "model/stats.h"
#include "model/strategy.h"
#include "model/taskgraph_host.h"

static se_status open_in(const char *dir, const char *rel, FILE **f, se_err *err)
{
    return se_fopen_below(dir, rel, SE_TRACE_MAX_BYTES, f, NULL, err);
}

/* Median of the device-scope samples in one samples file. */
static se_status file_median(const char *dir, const char *rel, double *median, size_t *n,
                             se_err *err)
{
    FILE *f;
    se_status st = open_in(dir, rel, &f, err);
    if (st != SE_OK)
        return st;
    se_sample_set set[1];
    st = se_samples_read(f, rel, set, 1, err);
    fclose(f);
    if (st != SE_OK)
        return st;
    double *v = malloc((set[0].n + 1) * sizeof *v);
    if (!v) {
        se_sample_set_free(&set[0]);
        return se_fail(err, SE_ERR_NOMEM, "%s: out of memory", rel);
    }
    for (size_t i = 0; i < set[0].n; i++)
        v[i] = set[0].v[i].ns;
    *n = set[0].n;
    *median = set[0].n ? se_median(v, set[0].n) : 0.0;
    free(v);
    se_sample_set_free(&set[0]);
    if (!*n)
        return se_fail(err, SE_ERR_VALIDATION, "%s: no samples", rel);
    return SE_OK;
}

/* The line of traces/outputs.csv for a case: records, dropped, output hash. */
static se_status output_line(const char *dir, const char *id, json_t **o, se_err *err)
{
    FILE *f;
    se_status st = open_in(dir, SE_TRACE_OUTPUTS_CSV, &f, err);
    if (st != SE_OK)
        return st;
    char line[512];
    *o = NULL;
    while (fgets(line, sizeof line, f)) {
        char cid[128], sha[80];
        long long rec, dropped;
        if (sscanf(line, "%127[^,],%lld,%lld,%79[0-9a-f]", cid, &rec, &dropped, sha) == 4 &&
            strcmp(cid, id) == 0) {
            *o = json_pack("{s:I, s:I, s:s}", "records_written_by_gpu", (json_int_t)rec,
                           "records_dropped", (json_int_t)dropped, "output_sha256", sha);
            break;
        }
    }
    fclose(f);
    if (!*o)
        return se_fail(err, SE_ERR_VALIDATION, "%s: no line for %s", SE_TRACE_OUTPUTS_CSV, id);
    return SE_OK;
}

se_status se_trace_env_sm_count(const char *dir, int *sm_count, se_err *err)
{
    char path[4400];
    json_t *env = NULL;
    *sm_count = 0;
    se_path_join(dir, SE_ENVIRONMENT_JSON, path, sizeof path);
    se_status st = se_json_load(path, SE_ENVIRONMENT_JSON, SE_ENVIRONMENT_FORMAT, 1, NULL, &env,
                                err);
    if (st != SE_OK)
        return st;
    json_int_t n = 0;
    st = se_json_get_int(json_object_get(env, "gpu"), "sm_count", 1, SE_TRACE_MAX_SM, &n,
                         SE_ENVIRONMENT_JSON ": gpu", err);
    json_decref(env);
    *sm_count = (int)n;
    return st;
}

static double timer_resolution(const char *dir)
{
    char path[4400];
    json_t *env = NULL;
    se_path_join(dir, SE_ENVIRONMENT_JSON, path, sizeof path);
    if (se_json_load(path, SE_ENVIRONMENT_JSON, SE_ENVIRONMENT_FORMAT, 1, NULL, &env, NULL) !=
        SE_OK)
        return 0.0; /* verify reports the file itself */
    double r = json_number_value(
        json_object_get(json_object_get(env, "globaltimer"), "smallest_step_ns"));
    json_decref(env);
    return r;
}

se_status se_trace_case_report(const se_protocol *p, const char *dir, int task_graph,
                               const se_shape *sh, int strategy, FILE *out, json_t **entry,
                               json_t **cost, int *ok, se_err *err)
{
    /* the graph of the run's operation (its protocol's workload.operation) */
    se_taskgeom g = se_taskgeom_make_p(sh->rows, sh->cols, p->tile, task_graph,
                                       se_protocol_operation(p)->n_phases);
    int kind = se_trace_kind_of(p, strategy);
    const char *name = se_protocol_strategy(p, strategy)->name;
    char id[SE_CASE_ID_SIZE], rel[200], urel[220], trel[220];
    se_case_id_make(sh->rows, sh->cols, name, id, sizeof id);
    se_path_trace(id, rel, sizeof rel);
    se_path_trace_timed(id, 0, urel, sizeof urel);
    se_path_trace_timed(id, 1, trel, sizeof trel);
    *entry = *cost = NULL;
    FILE *f;
    se_trace t;
    se_status st = open_in(dir, rel, &f, err);
    if (st != SE_OK)
        return st;
    st = se_trace_read(f, rel, &t, err);
    fclose(f);
    if (st != SE_OK)
        return st;
    json_t *rep = NULL, *outl = NULL;
    int sm_count = 0;
    size_t off_gpu = 0;
    st = se_trace_env_sm_count(dir, &sm_count, err);
    if (st == SE_OK)
        st = se_trace_check(&g, (se_trace_kind)kind, &t, rel, out, &rep, ok, err);
    if (st == SE_OK) {
        se_trace_check_sms(&t, sm_count, rel, out, &off_gpu);
        *ok = *ok && off_gpu == 0;
    }
    se_trace_free(&t);
    if (st == SE_OK)
        st = output_line(dir, id, &outl, err);
    double mu = 0, mt = 0;
    size_t nu = 0, nt = 0;
    if (st == SE_OK)
        st = file_median(dir, urel, &mu, &nu, err);
    if (st == SE_OK)
        st = file_median(dir, trel, &mt, &nt, err);
    if (st != SE_OK) {
        json_decref(rep);
        json_decref(outl);
        return st;
    }
    json_t *e = json_pack("{s:s, s:s, s:s, s:s}", "case", id, "shape", sh->spec, "strategy", name,
                          "file", rel);
    json_object_update(e, outl);
    json_object_update(e, rep);
    json_decref(outl);
    json_decref(rep);
    *entry = e;
    *cost = json_pack("{s:s, s:s, s:s, s:I, s:f, s:f, s:f, s:f}", "case", id,
                      "untraced_samples_file", urel, "traced_samples_file", trel, "samples",
                      (json_int_t)nt, "untraced_median_ns", mu, "traced_median_ns", mt,
                      "overhead_ns", mt - mu, "overhead_fraction", mu > 0 ? (mt - mu) / mu : 0.0);
    return SE_OK;
}

/* The overlap summary of one entry. */
static json_t *overlap_item(const json_t *entry)
{
    return json_pack("{s:O, s:O, s:O}", "shape", json_object_get(entry, "shape"), "strategy",
                     json_object_get(entry, "strategy"), "fraction",
                     json_object_get(json_object_get(entry, "overlap"), "fraction"));
}

json_t *se_trace_overlap_item(const json_t *entry)
{
    return overlap_item(entry);
}

double se_trace_timer_resolution(const char *dir)
{
    return timer_resolution(dir);
}

se_status se_traces_report(const se_protocol *p, const char *dir, int task_graph, FILE *out,
                           json_t **report, size_t *failures, se_err *err)
{
    json_t *traces = json_array(), *costs = json_array(), *overlap = json_array();
    se_status st = SE_OK;
    *failures = 0;
    for (size_t i = 0; i < p->n_shapes && st == SE_OK; i++) {
        for (int s = 0; s < se_protocol_nstrategies(p) && st == SE_OK; s++) {
            int kind = se_trace_kind_of(p, s);
            if (!se_traced_case(p, s, &p->shapes[i]))
                continue;
            json_t *entry = NULL, *cost = NULL;
            int ok = 0;
            st = se_trace_case_report(p, dir, task_graph, &p->shapes[i], s, out, &entry, &cost,
                                      &ok, err);
            if (st != SE_OK)
                break;
            *failures += !ok;
            if (kind != SE_TRACE_ROWS)
                json_array_append_new(overlap, overlap_item(entry));
            json_array_append_new(traces, entry);
            json_array_append_new(costs, cost);
        }
    }
    if (st != SE_OK) {
        json_decref(traces);
        json_decref(costs);
        json_decref(overlap);
        return st;
    }
    *report = json_pack("{s:s, s:i, s:f, s:s, s:o, s:o, s:o}", "format", SE_TRACES_FORMAT,
                        "version", 1, "globaltimer_resolution_ns", timer_resolution(dir), "note",
                        "traced runs are separate from the timed runs; cuDNN cannot be traced; "
                        "times are %globaltimer nanoseconds; a gap or order smaller than the "
                        "resolution is not meaningful",
                        "traces", traces, "overlap", overlap, "tracing_cost", costs);
    return SE_OK;
}
