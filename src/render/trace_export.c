/*
 * trace_export.c - the trace command (see trace_export.h).
 */
#define _POSIX_C_SOURCE 200809L
#include "render/trace_export.h"
#include "model/operation.h"

#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <jansson.h>

#include "model/protocol.h"
#include "model/strategy.h"
#include "bundle/fsutil.h"
#include "model/json.h"
#include "bundle/describe.h"
#include "bundle/paths.h"
#include "bundle/remote.h"
#include "bundle/records.h"
#include "bundle/trace.h"
#include "bundle/views.h"
#include "model/workload.h"

/* Finds the shape and strategy of a case id in the run's protocol. The
 * shape may be written as the protocol writes it (5xT+1) or as rows x
 * columns (5x4097); canon gets the run's own id, <rows>x<cols>.<strategy>,
 * which names its files. */
static se_status find_case(const se_protocol *p, const char *case_id, const se_shape **shape,
                           int *strategy, char *canon, size_t canon_size, se_err *err)
{
    const char *dot = strrchr(case_id, '.');
    se_shape want = {0};
    if (dot && (size_t)(dot - case_id) < 96) {
        char text[96];
        memcpy(text, case_id, (size_t)(dot - case_id));
        text[dot - case_id] = '\0';
        se_err ignored;
        if (se_parse_shape(text, p->tile, &want, &ignored) != SE_OK)
            want.rows = want.cols = 0;
    }
    for (size_t i = 0; dot && i < p->n_shapes; i++)
        for (int s = 0; s < se_protocol_nstrategies(p); s++) {
            if (p->shapes[i].rows != want.rows || p->shapes[i].cols != want.cols ||
                strcmp(dot + 1, se_protocol_strategy(p, s)->name) != 0 ||
                !se_traced_case(p, s, &p->shapes[i]))
                continue;
            *shape = &p->shapes[i];
            *strategy = s;
            snprintf(canon, canon_size, "%" PRId64 "x%" PRId64 ".%s", p->shapes[i].rows,
                     p->shapes[i].cols, se_protocol_strategy(p, s)->name);
            return SE_OK;
        }
    for (size_t i = 0; dot && i < p->n_shapes; i++)
        if (p->shapes[i].rows == want.rows && p->shapes[i].cols == want.cols &&
            se_trace_too_large(p, &p->shapes[i]))
            return se_fail(err, SE_ERR_USAGE,
                           "trace: no traced case '%s': shape %" PRId64 "x%" PRId64 " has more "
                           "than %" PRId64 " (row, tile) pairs, so the run timed and validated it "
                           "without tracing it (its trace file would pass 256 MiB; docs/TRACES.md)",
                           case_id, want.rows, want.cols, SE_TRACE_MAX_ROW_TILES);
    /* The run's own traced cases, as <shapes> x <strategies>. */
    char shapes[400] = "", strategies[300] = "";
    for (size_t i = 0, used = 0; i < p->n_shapes && used < sizeof shapes; i++) {
        int w = snprintf(shapes + used, sizeof shapes - used, "%s%" PRId64 "x%" PRId64,
                         i ? ", " : "", p->shapes[i].rows, p->shapes[i].cols);
        used += w > 0 ? (size_t)w : 0;
    }
    for (int s = 0, used = 0; s < se_protocol_nstrategies(p) && used < (int)sizeof strategies; s++)
        if (se_traced(p, s))
            used += snprintf(strategies + used, sizeof strategies - (size_t)used, "%s%s",
                             used ? ", " : "", se_protocol_strategy(p, s)->name);
    if (!strategies[0])
        return se_fail(err, SE_ERR_USAGE,
                       "trace: no traced case '%s': this run traced no case at all (its "
                       "protocol, %s, has no traces); runs/reference has them", case_id,
                       SE_PROTOCOL_JSON);
    return se_fail(err, SE_ERR_USAGE,
                   "trace: no traced case '%s' in this run; its traced cases are <shape>.<strategy> "
                   "with the shapes %s and the strategies %s", case_id, shapes, strategies);
}

/* A trace the run keeps only in its complete archive (remote.json): an
 * error saying so and naming the archive, instead of a bare "No such
 * file". SE_OK when it is local or the run has no remote.json. */
static se_status check_local(const char *dir, const char *rel, se_err *err)
{
    se_remote r;
    int present = 0;
    se_status st = se_remote_load(dir, &r, &present, err);
    if (st != SE_OK || !present)
        return st;
    int remote = 0;
    for (size_t i = 0; i < r.n_files && !remote; i++)
        remote = strcmp(r.files[i], rel) == 0;
    if (remote) {
        char path[4400];
        snprintf(path, sizeof path, "%s/%s", dir, rel);
        if (access(path, F_OK) != 0)
            st = se_fail(err, SE_ERR_IO,
                         "trace: %s is remote-only: this run's selected bundle keeps it only in "
                         "its complete archive %s (%" PRIu64 " bytes, sha256 %.16s..., named in "
                         "%s), which is not in this folder. Unpack that archive (`tar xzf %s`) "
                         "and run trace on the complete run; runs/complete-archive/ shows how a "
                         "complete archive is written and checked (docs/ARCHIVE.md)",
                         rel, r.archive_name, r.archive_bytes, r.archive_sha256, SE_REMOTE_JSON,
                         r.archive_name);
    }
    se_remote_free(&r);
    return st;
}

static void print_summary(FILE *out, const char *case_id, const se_trace_report_view *r)
{
    fprintf(out, "trace %s: %s\n", case_id, r->verdict);
    fprintf(out, "  tasks: %lld expected, %lld recorded, %lld missing, %lld duplicated\n",
            r->tasks_expected, r->records, r->missing_count, r->duplicated_count);
    fprintf(out, "  ordering: %lld dependency edges checked, %lld violations; phase barriers %s, "
            "%lld violations\n", r->dependency_edges_checked, r->order_violations_count,
            r->phase_barriers_checked ? "checked" : "not required",
            r->phase_barrier_violations_count);
    for (size_t i = 0; i < r->n_phases; i++) {
        const se_trace_phase_view *ph = &r->phases[i];
        if (!ph->tasks)
            continue;
        fprintf(out, "  phase %s: %lld tasks, %.3f to %.3f us (span %.3f us)\n", ph->name,
                ph->tasks, ph->start_ns / 1e3, ph->end_ns / 1e3, ph->span_ns / 1e3);
    }
    fprintf(out, "  SMs: %lld used, %lld to %lld tasks each; idle between tasks %.3f us in all, "
            "at most %.3f us on one SM\n", r->sms_used, r->tasks_per_sm_min, r->tasks_per_sm_max,
            r->idle_between_tasks_ns_total / 1e3, r->idle_between_tasks_ns_max_sm / 1e3);
    fprintf(out, "  (%s)\n", r->sm_caveat);
    fprintf(out, "  overlap of later phases with earlier ones: %.3f\n", r->overlap_fraction);
}

/* se_write_replace's fill: the Chrome trace-event JSON. */
static int fill_chrome(FILE *f, const void *chrome)
{
    return json_dumpf(chrome, f, JSON_COMPACT | JSON_REAL_PRECISION(15)) == 0 ? 0 : -1;
}

/* run.json's task graph version (se_run_task_graph): the graph the run's
 * traces are checked against. */
static se_status run_task_graph(const char *dir, int *version, se_err *err)
{
    char *text = NULL;
    size_t len = 0;
    json_t *run = NULL;
    se_status st = se_read_below(dir, SE_RUN_JSON, SE_JSON_MAX_BYTES, &text, &len, err);
    if (st == SE_OK)
        st = se_json_parse(text, len, SE_RUN_JSON, SE_RUN_FORMAT, 1, NULL, &run, err);
    free(text);
    if (st == SE_OK)
        st = se_run_task_graph(run, version, err);
    json_decref(run);
    return st;
}

se_status se_trace_export(const char *dir, const char *case_id, const char *out_path, FILE *out,
                          se_err *err)
{
    se_protocol p;
    char *text = NULL;
    size_t len = 0;
    se_run_strategies *described = NULL;
    const se_strategy_table *table = NULL;
    se_status st = se_describe_load(dir, &described, &table, err);
    if (st == SE_OK)
        st = se_read_below(dir, SE_PROTOCOL_JSON, SE_JSON_MAX_BYTES, &text, &len, err);
    if (st == SE_OK)
        st = se_protocol_parse_table(text, len, SE_PROTOCOL_JSON, table, &p, err);
    free(text);
    if (st != SE_OK) {
        se_run_strategies_free(described);
        return st;
    }
    const se_shape *shape = NULL;
    int strategy = -1, task_graph = SE_TASKGRAPH_V1;
    char canon[200];
    st = find_case(&p, case_id, &shape, &strategy, canon, sizeof canon, err);
    if (st == SE_OK)
        case_id = canon;
    if (st == SE_OK)
        st = run_task_graph(dir, &task_graph, err);
    se_taskgeom g = shape ? se_taskgeom_make_p(shape->rows, shape->cols, p.tile, task_graph,
                                               se_protocol_operation(&p)->n_phases)
                          : se_taskgeom_make(1, 1, 1);
    se_trace t = {NULL, 0};
    if (st == SE_OK) {
        char rel[240];
        se_path_trace(case_id, rel, sizeof rel);
        FILE *f;
        st = check_local(dir, rel, err);
        if (st == SE_OK)
            st = se_fopen_below(dir, rel, SE_TRACE_MAX_BYTES, &f, NULL, err);
        if (st == SE_OK) {
            st = se_trace_read(f, rel, &t, err);
            fclose(f);
        }
    }
    int sm_count = 0;
    size_t off_gpu = 0;
    if (st == SE_OK)
        st = se_trace_env_sm_count(dir, &sm_count, err);
    json_t *report = NULL, *chrome = NULL;
    int ok = 0;
    se_trace_kind kind = (se_trace_kind)se_trace_kind_of(&p, strategy);
    if (st == SE_OK)
        st = se_trace_check(&g, kind, &t, case_id, out, &report, &ok, err);
    if (st == SE_OK)
        se_trace_check_sms(&t, sm_count, case_id, out, &off_gpu);
    if (st == SE_OK)
        st = se_trace_chrome(&g, kind, &t, case_id, &chrome, err);
    if (st == SE_OK)
        st = se_write_replace(out_path, "-o", fill_chrome, chrome, err);
    se_trace_report_view rv = {0};
    if (st == SE_OK)
        st = se_trace_report_view_load(report, case_id, &rv, err);
    if (st == SE_OK) {
        print_summary(out, case_id, &rv);
        se_trace_report_view_free(&rv);
        size_t tracks, groups, arrows;
        se_trace_chrome_counts(chrome, &tracks, &groups, &arrows);
        fprintf(out, "wrote %s: %zu task slices on %zu block-slot tracks in %zu SM groups, "
                "%zu dependency arrows (open it in Perfetto or chrome://tracing)\n", out_path, t.n,
                tracks, groups, arrows);
        /* Written for inspection, but a trace that fails its checks is
         * not a success. */
        if (!ok || off_gpu)
            st = se_fail(err, SE_ERR_VALIDATION, "trace %s fails its checks (the problems are "
                         "listed above); %s is written for inspection", case_id, out_path);
    }
    json_decref(report);
    json_decref(chrome);
    se_trace_free(&t);
    se_protocol_free(&p);
    se_run_strategies_free(described);
    return st;
}
