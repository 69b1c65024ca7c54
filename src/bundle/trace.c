/*
 * trace.c - dependency traces: which runs are traced, the trace file format
 * (write, read) and the Chrome trace export (see trace.h). The checks are in
 * trace_check.c, the per-case report in trace_report.c.
 */
#include "bundle/trace.h"
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

const char se_trace_phase_letter[SE_NPHASES] = {'A', 'B', 'C', 'D', 'E'};

int se_trace_kind_of(int strategy)
{
    const se_strategy_info *info = se_strategy_get((se_strategy)strategy);
    return info && info->trace != SE_TRACE_NONE ? (int)info->trace : -1;
}

int se_traced(const se_protocol *p, int s)
{
    return p->traces && ((p->strategies >> s) & 1u) && se_trace_kind_of(s) >= 0;
}

void se_trace_task_name(const se_taskgeom *g, se_trace_kind kind, int64_t task, char *buf,
                        size_t size)
{
    if (kind == SE_TRACE_ROWS) {
        snprintf(buf, size, "row(%" PRId64 ")", task);
        return;
    }
    int ph;
    int64_t row, tile;
    se_task_decode(g, task, &ph, &row, &tile);
    if (se_phase_is_tiled(ph))
        snprintf(buf, size, "%c(%" PRId64 ",%" PRId64 ")", se_trace_phase_letter[ph], row, tile);
    else
        snprintf(buf, size, "%c(%" PRId64 ")", se_trace_phase_letter[ph], row);
}

se_status se_trace_write(FILE *f, const se_taskgeom *g, se_trace_kind kind, const se_trace *t,
                         se_err *err)
{
    fprintf(f, "%s\n", SE_TRACE_HEADER);
    for (size_t i = 0; i < t->n; i++) {
        const se_trace_task *r = &t->v[i];
        int ph = -1;
        int64_t row = r->task, tile = 0;
        if (kind != SE_TRACE_ROWS && r->task >= 0 && r->task < g->total)
            se_task_decode(g, r->task, &ph, &row, &tile);
        char phase[4] = {ph >= 0 ? se_trace_phase_letter[ph] : '?', '\0'};
        fprintf(f, "%" PRId64 ",%s,%" PRId64 ",%" PRId64 ",%d,%d,%" PRIu64 ",%" PRIu64 "\n",
                r->task, kind == SE_TRACE_ROWS ? "row" : phase, row, tile, r->block, r->sm,
                r->start_ns, r->end_ns);
    }
    if (ferror(f))
        return se_fail(err, SE_ERR_IO, "writing a trace failed");
    return SE_OK;
}

void se_trace_free(se_trace *t)
{
    free(t->v);
    t->v = NULL;
    t->n = 0;
}

se_status se_trace_read(FILE *f, const char *name, se_trace *t, se_err *err)
{
    char line[512];
    size_t cap = 0;
    long lineno = 0;
    memset(t, 0, sizeof *t);
    while (fgets(line, sizeof line, f)) {
        lineno++;
        size_t len = strlen(line);
        if (len == 0 || line[len - 1] != '\n') {
            se_trace_free(t);
            return se_fail(err, SE_ERR_VALIDATION, "%s:%ld: line is truncated or too long", name,
                           lineno);
        }
        line[len - 1] = '\0';
        if (lineno == 1) {
            if (strcmp(line, SE_TRACE_HEADER) != 0) {
                se_trace_free(t);
                return se_fail(err, SE_ERR_VALIDATION, "%s:1: expected the header '%s'", name,
                               SE_TRACE_HEADER);
            }
            continue;
        }
        se_trace_task r;
        char phase[8];
        int64_t row, tile;
        int used = 0;
        if (strchr(line, '-')) {
            se_trace_free(t);
            return se_fail(err, SE_ERR_VALIDATION, "%s:%ld: negative values are not valid", name,
                           lineno);
        }
        if (sscanf(line, "%" SCNd64 ",%7[^,],%" SCNd64 ",%" SCNd64 ",%d,%d,%" SCNu64 ",%" SCNu64 "%n",
                   &r.task, phase, &row, &tile, &r.block, &r.sm, &r.start_ns, &r.end_ns,
                   &used) != 8 ||
            line[used] != '\0') {
            se_trace_free(t);
            return se_fail(err, SE_ERR_VALIDATION, "%s:%ld: expected %s", name, lineno,
                           SE_TRACE_HEADER);
        }
        snprintf(r.col_phase, sizeof r.col_phase, "%.3s", phase);
        r.col_row = row;
        r.col_tile = tile;
        if (t->n == cap) {
            cap = cap ? 2 * cap : 1024;
            se_trace_task *v = realloc(t->v, cap * sizeof *v);
            if (!v) {
                se_trace_free(t);
                return se_fail(err, SE_ERR_NOMEM, "%s: out of memory", name);
            }
            t->v = v;
        }
        t->v[t->n++] = r;
    }
    if (lineno == 0)
        return se_fail(err, SE_ERR_VALIDATION, "%s: empty file", name);
    return SE_OK;
}

se_status se_trace_chrome(const se_taskgeom *g, se_trace_kind kind, const se_trace *t,
                          const char *title, json_t **out, se_err *err)
{
    (void)err;
    uint64_t t0 = UINT64_MAX;
    for (size_t i = 0; i < t->n; i++)
        t0 = t->v[i].start_ns < t0 ? t->v[i].start_ns : t0;
    json_t *ev = json_array();
    json_array_append_new(ev, json_pack("{s:s, s:s, s:i, s:{s:s}}", "name", "process_name", "ph",
                                        "M", "pid", 1, "args", "name", title));
    /* Name each SM's track once. */
    uint64_t *sms = malloc((t->n + 1) * sizeof *sms);
    size_t nsm = 0;
    for (size_t i = 0; sms && i < t->n; i++)
        sms[nsm++] = (uint64_t)t->v[i].sm;
    if (sms) {
        qsort(sms, nsm, sizeof *sms, se_trace_cmp_u64);
        for (size_t i = 0; i < nsm; i++) {
            if (i && sms[i] == sms[i - 1])
                continue;
            char nm[32];
            snprintf(nm, sizeof nm, "SM %" PRIu64, sms[i]);
            json_array_append_new(ev, json_pack("{s:s, s:s, s:i, s:I, s:{s:s}}", "name",
                                                "thread_name", "ph", "M", "pid", 1, "tid",
                                                (json_int_t)sms[i], "args", "name", nm));
        }
        free(sms);
    }
    for (size_t i = 0; i < t->n; i++) {
        const se_trace_task *r = &t->v[i];
        char nm[64];
        int ph = -1;
        int64_t row = r->task, tile = 0;
        if (kind != SE_TRACE_ROWS && r->task >= 0 && r->task < g->total)
            se_task_decode(g, r->task, &ph, &row, &tile);
        se_trace_task_name(g, kind, r->task, nm, sizeof nm);
        char cat[4] = {ph >= 0 ? se_trace_phase_letter[ph] : 'R', '\0'};
        json_array_append_new(
            ev, json_pack("{s:s, s:s, s:s, s:i, s:i, s:f, s:f, s:{s:i, s:I, s:I, s:I, s:I, s:I}}",
                          "name", nm, "cat", cat, "ph", "X", "pid", 1, "tid", r->sm, "ts",
                          (double)(r->start_ns - t0) / 1000.0, "dur",
                          (double)(r->end_ns - r->start_ns) / 1000.0, "args", "block", r->block,
                          "task", (json_int_t)r->task, "row", (json_int_t)row, "tile",
                          (json_int_t)tile, "start_ns", (json_int_t)r->start_ns, "end_ns",
                          (json_int_t)r->end_ns));
    }
    *out = json_pack("{s:o, s:s}", "traceEvents", ev, "displayTimeUnit", "ns");
    return SE_OK;
}
