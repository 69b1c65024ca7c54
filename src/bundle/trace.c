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
    int64_t grp, tile;
    se_task_decode(g, task, &ph, &grp, &tile);
    if (g->group > 1) /* a packed group: its rows, first..last (one tile) */
        snprintf(buf, size, "%c(%" PRId64 "..%" PRId64 ")", se_trace_phase_letter[ph],
                 se_group_row0(g, grp), se_group_row0(g, grp) + se_group_rows(g, grp) - 1);
    else if (se_phase_is_tiled(ph))
        snprintf(buf, size, "%c(%" PRId64 ",%" PRId64 ")", se_trace_phase_letter[ph], grp, tile);
    else
        snprintf(buf, size, "%c(%" PRId64 ")", se_trace_phase_letter[ph], grp);
}

se_status se_trace_write(FILE *f, const se_taskgeom *g, se_trace_kind kind, const se_trace *t,
                         se_err *err)
{
    fprintf(f, "%s\n", SE_TRACE_HEADER);
    for (size_t i = 0; i < t->n; i++) {
        const se_trace_task *r = &t->v[i];
        int ph = -1;
        int64_t row = r->task, tile = 0;
        if (kind != SE_TRACE_ROWS && r->task >= 0 && r->task < g->total) {
            se_task_decode(g, r->task, &ph, &row, &tile);
            row = se_group_row0(g, row);
        }
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

/* ---- Chrome trace-event export ------------------------------------------ */

/* What the phases compute, for the track groups' names. */
static const char *const PHASE_WHAT[SE_NPHASES] = {
    "per tile: partial sum of squares and max",
    "per row: combine A's partials into s_r and m_r",
    "per tile: partial sum of exp(s_r x - m_r)",
    "per row: combine C's partials into 1/l_r",
    "per tile: write y",
};

/* One record's place in the export: its track group (phase, or 0 for
 * rows), its SM, and the slot within that SM the greedy assignment gave it. */
typedef struct chrome_slot {
    size_t rec;
    int group, sm;
    uint64_t s, e;
    int64_t tid;
} chrome_slot;

static int cmp_chrome_slot(const void *a, const void *b)
{
    const chrome_slot *x = a, *y = b;
    if (x->group != y->group)
        return x->group < y->group ? -1 : 1;
    if (x->sm != y->sm)
        return x->sm < y->sm ? -1 : 1;
    if (x->s != y->s)
        return x->s < y->s ? -1 : 1;
    if (x->e != y->e)
        return x->e < y->e ? -1 : 1;
    return x->rec < y->rec ? -1 : x->rec > y->rec;
}

/* A min-heap entry of the greedy slot assignment: a busy slot keyed by the
 * end of its last slice, or an idle slot keyed by its number. */
typedef struct slot_item {
    uint64_t key;
    size_t slot;
} slot_item;

static void slot_push(slot_item *h, size_t *n, slot_item x)
{
    size_t i = (*n)++;
    while (i > 0 && h[(i - 1) / 2].key > x.key) {
        h[i] = h[(i - 1) / 2];
        i = (i - 1) / 2;
    }
    h[i] = x;
}

static slot_item slot_pop(slot_item *h, size_t *n)
{
    slot_item top = h[0], x = h[--*n];
    size_t i = 0;
    for (;;) {
        size_t c = 2 * i + 1;
        if (c >= *n)
            break;
        if (c + 1 < *n && h[c + 1].key < h[c].key)
            c++;
        if (h[c].key >= x.key)
            break;
        h[i] = h[c];
        i = c;
    }
    if (*n)
        h[i] = x;
    return top;
}

/* Microseconds from t0, exact to the nanosecond once printed with 15
 * significant digits (JSON_REAL_PRECISION(15) in the writer). */
static double chrome_us(uint64_t ns, uint64_t t0)
{
    return (double)(ns - t0) / 1000.0;
}

se_status se_trace_chrome(const se_taskgeom *g, se_trace_kind kind, const se_trace *t,
                          const char *title, json_t **out, se_err *err)
{
    uint64_t t0 = UINT64_MAX;
    for (size_t i = 0; i < t->n; i++)
        t0 = t->v[i].start_ns < t0 ? t->v[i].start_ns : t0;
    chrome_slot *sl = malloc((t->n + 1) * sizeof *sl);
    int64_t *slot_of = malloc((t->n + 1) * sizeof *slot_of);
    /* The slots of the current (group, SM): busy ones by the end of their
     * last slice, idle ones by number (heaps: linearithmic in the records,
     * however many of them overlap). */
    slot_item *busy = malloc((t->n + 1) * sizeof *busy);
    slot_item *idle = malloc((t->n + 1) * sizeof *idle);
    if (!sl || !slot_of || !busy || !idle) {
        free(sl);
        free(slot_of);
        free(busy);
        free(idle);
        return se_fail(err, SE_ERR_NOMEM, "%s: out of memory for the Chrome export", title);
    }
    for (size_t i = 0; i < t->n; i++) {
        const se_trace_task *r = &t->v[i];
        int ph = 0;
        int64_t row, tile;
        if (kind != SE_TRACE_ROWS && r->task >= 0 && r->task < g->total)
            se_task_decode(g, r->task, &ph, &row, &tile);
        sl[i] = (chrome_slot){i, ph, r->sm, r->start_ns,
                              r->end_ns < r->start_ns ? r->start_ns : r->end_ns, 0};
    }
    qsort(sl, t->n, sizeof *sl, cmp_chrome_slot);
    json_t *ev = json_array();
    /* Greedy slots: within one (group, SM), records in start order each take
     * the lowest slot whose last slice has ended, so the slices of one slot
     * never overlap. Track ids count up within a group. */
    int groups_named = 0;
    for (size_t a = 0; a < t->n;) {
        int group = sl[a].group;
        int64_t next_tid = 1;
        if (!(groups_named & (1 << group))) {
            groups_named |= 1 << group;
            char nm[256];
            if (kind == SE_TRACE_ROWS)
                snprintf(nm, sizeof nm, "%s: one task per row", title);
            else
                snprintf(nm, sizeof nm, "%s: phase %c (%s)", title, se_trace_phase_letter[group],
                         PHASE_WHAT[group]);
            json_array_append_new(ev, json_pack("{s:s, s:s, s:i, s:{s:s}}", "name", "process_name",
                                                "ph", "M", "pid", group + 1, "args", "name", nm));
            json_array_append_new(ev, json_pack("{s:s, s:s, s:i, s:{s:i}}", "name",
                                                "process_sort_index", "ph", "M", "pid", group + 1,
                                                "args", "sort_index", group + 1));
        }
        size_t b = a;
        while (b < t->n && sl[b].group == group) {
            int sm = sl[b].sm;
            size_t c = b, nslots = 0, n_busy = 0, n_idle = 0;
            for (; c < t->n && sl[c].group == group && sl[c].sm == sm; c++) {
                /* Starts only grow: a slot that has ended stays ended. */
                while (n_busy && busy[0].key <= sl[c].s) {
                    size_t k = slot_pop(busy, &n_busy).slot;
                    slot_push(idle, &n_idle, (slot_item){k, k});
                }
                size_t k = n_idle ? slot_pop(idle, &n_idle).slot : nslots++;
                slot_push(busy, &n_busy, (slot_item){sl[c].e, k});
                sl[c].tid = next_tid + (int64_t)k;
            }
            for (size_t k = 0; k < nslots; k++) {
                char nm[64];
                snprintf(nm, sizeof nm, "SM %d, block slot %zu", sm, k);
                json_array_append_new(ev, json_pack("{s:s, s:s, s:i, s:I, s:{s:s}}", "name",
                                                    "thread_name", "ph", "M", "pid", group + 1,
                                                    "tid", (json_int_t)(next_tid + (int64_t)k),
                                                    "args", "name", nm));
                json_array_append_new(ev, json_pack("{s:s, s:s, s:i, s:I, s:{s:I}}", "name",
                                                    "thread_sort_index", "ph", "M", "pid",
                                                    group + 1, "tid",
                                                    (json_int_t)(next_tid + (int64_t)k), "args",
                                                    "sort_index",
                                                    (json_int_t)(next_tid + (int64_t)k)));
            }
            next_tid += (int64_t)nslots;
            b = c;
        }
        a = b;
    }
    for (size_t i = 0; i < t->n; i++)
        slot_of[sl[i].rec] = (int64_t)i;
    for (size_t i = 0; i < t->n; i++) {
        const se_trace_task *r = &t->v[i];
        const chrome_slot *p = &sl[slot_of[i]];
        char nm[64];
        int ph = -1;
        int64_t row = r->task, tile = 0;
        if (kind != SE_TRACE_ROWS && r->task >= 0 && r->task < g->total) {
            se_task_decode(g, r->task, &ph, &row, &tile);
            row = se_group_row0(g, row);
        }
        se_trace_task_name(g, kind, r->task, nm, sizeof nm);
        char cat[4] = {ph >= 0 ? se_trace_phase_letter[ph] : 'R', '\0'};
        json_array_append_new(
            ev, json_pack("{s:s, s:s, s:s, s:i, s:I, s:f, s:f, s:{s:i, s:i, s:I, s:I, s:I, s:I, "
                          "s:I}}",
                          "name", nm, "cat", cat, "ph", "X", "pid", p->group + 1, "tid",
                          (json_int_t)p->tid, "ts", chrome_us(p->s, t0), "dur",
                          chrome_us(p->e, p->s), "args", "block", r->block, "sm", r->sm, "task",
                          (json_int_t)r->task, "row", (json_int_t)row, "tile", (json_int_t)tile,
                          "start_ns", (json_int_t)r->start_ns, "end_ns", (json_int_t)r->end_ns));
    }
    /* The dependency edges the checks test (model/taskgraph_host.c), as
     * flow arrows from the producer's slice to the consumer's: a flow start
     * ("s") inside the producer, a flow end ("f", bound to the enclosing
     * slice) inside the consumer, both at the middle of their slices. The
     * first record of each task, as in the checks. */
    if (kind != SE_TRACE_ROWS && g->total > 0) {
        int64_t *first = malloc((size_t)g->total * sizeof *first);
        if (!first) {
            json_decref(ev);
            free(sl);
            free(slot_of);
            free(busy);
            free(idle);
            return se_fail(err, SE_ERR_NOMEM, "%s: out of memory for the Chrome export", title);
        }
        for (int64_t k = 0; k < g->total; k++)
            first[k] = -1;
        for (size_t i = 0; i < t->n; i++)
            if (t->v[i].task >= 0 && t->v[i].task < g->total && first[t->v[i].task] < 0)
                first[t->v[i].task] = (int64_t)i;
        json_int_t id = 0;
        for (int64_t k = 0; k < g->total; k++) {
            if (first[k] < 0)
                continue;
            const chrome_slot *c = &sl[slot_of[first[k]]];
            int64_t nd = se_task_dep_count(g, k);
            for (int64_t d = 0; d < nd; d++) {
                int64_t pk = se_task_dep(g, k, d);
                if (pk < 0 || pk >= g->total || first[pk] < 0)
                    continue;
                const chrome_slot *p = &sl[slot_of[first[pk]]];
                id++;
                json_array_append_new(
                    ev, json_pack("{s:s, s:s, s:s, s:I, s:i, s:I, s:f}", "name", "dependency",
                                  "cat", "dependency", "ph", "s", "id", id, "pid", p->group + 1,
                                  "tid", (json_int_t)p->tid, "ts",
                                  chrome_us(p->s + (p->e - p->s) / 2, t0)));
                json_array_append_new(
                    ev, json_pack("{s:s, s:s, s:s, s:s, s:I, s:i, s:I, s:f}", "name",
                                  "dependency", "cat", "dependency", "ph", "f", "bp", "e", "id",
                                  id, "pid", c->group + 1, "tid", (json_int_t)c->tid, "ts",
                                  chrome_us(c->s + (c->e - c->s) / 2, t0)));
            }
        }
        free(first);
    }
    free(sl);
    free(slot_of);
    free(busy);
    free(idle);
    *out = json_pack("{s:o, s:{s:s, s:s}}", "traceEvents", ev, "otherData", "case", title,
                     "time_origin", "ts 0 is the trace's first recorded %globaltimer start");
    return *out ? SE_OK : se_fail(err, SE_ERR_NOMEM, "%s: out of memory for the Chrome export",
                                  title);
}
