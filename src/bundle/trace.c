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

int se_trace_kind_of(const se_protocol *p, int strategy)
{
    const se_strategy_info *info = se_protocol_strategy(p, strategy);
    return info && info->trace != SE_TRACE_NONE ? (int)info->trace : -1;
}

int se_traced(const se_protocol *p, int s)
{
    return p->traces && ((p->strategies >> s) & 1u) && se_trace_kind_of(p, s) >= 0;
}

int se_trace_too_large(const se_protocol *p, const se_shape *sh)
{
    int64_t tiles = (sh->cols + p->tile - 1) / p->tile;
    return sh->rows > SE_TRACE_MAX_ROW_TILES / tiles;
}

int se_traced_case(const se_protocol *p, int s, const se_shape *sh)
{
    return se_traced(p, s) && !se_trace_too_large(p, sh);
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

/* The same for LayerNorm's graph of three phases (g->phases 3). */
static const char *const LN_PHASE_WHAT[3] = {
    "per tile: partial sums of x and x^2",
    "per row: combine A's partials into mean and rstd",
    "per tile: write y",
};

/* One record's place in the export: its block's unit (the phase of a
 * phased trace, where each phase is its own launch or is fenced by a grid
 * barrier, or 0: a megakernel's block runs every phase, rowblock's one row
 * after another), its SM and block, its times, and the block slot of its
 * SM that its unit got. */
typedef struct chrome_slot {
    size_t rec;
    int group, sm;
    int64_t block;
    uint64_t s, e;
    int64_t slot, lane, tid;
} chrome_slot;

/* By unit (SM, group, block), then start. */
static int cmp_chrome_unit(const void *a, const void *b)
{
    const chrome_slot *x = a, *y = b;
    if (x->sm != y->sm)
        return x->sm < y->sm ? -1 : 1;
    if (x->group != y->group)
        return x->group < y->group ? -1 : 1;
    if (x->block != y->block)
        return x->block < y->block ? -1 : 1;
    if (x->s != y->s)
        return x->s < y->s ? -1 : 1;
    return x->rec < y->rec ? -1 : x->rec > y->rec;
}

/* A block's stay on its SM: the first start and last end of its unit's
 * records, which are sl[first .. first + n). */
typedef struct chrome_unit {
    int sm;
    uint64_t s, e;
    size_t first, n;
    int64_t slot;
} chrome_unit;

static int cmp_unit_start(const void *a, const void *b)
{
    const chrome_unit *x = a, *y = b;
    if (x->sm != y->sm)
        return x->sm < y->sm ? -1 : 1;
    if (x->s != y->s)
        return x->s < y->s ? -1 : 1;
    if (x->e != y->e)
        return x->e < y->e ? -1 : 1;
    return x->first < y->first ? -1 : x->first > y->first;
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

/* The greedy assignment's step: an occupant from s to e (starts only
 * grow) takes the lowest slot whose last occupant has left by s, or a new
 * one (counted in *count); returns the slot. */
static size_t slot_take(slot_item *busy, size_t *n_busy, slot_item *idle, size_t *n_idle,
                        size_t *count, uint64_t s, uint64_t e)
{
    while (*n_busy && busy[0].key <= s) {
        size_t k = slot_pop(busy, n_busy).slot;
        slot_push(idle, n_idle, (slot_item){k, k});
    }
    size_t k = *n_idle ? slot_pop(idle, n_idle).slot : (*count)++;
    slot_push(busy, n_busy, (slot_item){e, k});
    return k;
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
    chrome_unit *un = malloc((t->n + 1) * sizeof *un);
    int64_t *slot_of = malloc((t->n + 1) * sizeof *slot_of);
    /* Heaps of the greedy assignments: busy slots (or lanes) by the end of
     * their last occupant, idle ones by number; linearithmic in the
     * records, however many of them overlap. */
    slot_item *busy = malloc((t->n + 1) * sizeof *busy);
    slot_item *idle = malloc((t->n + 1) * sizeof *idle);
    size_t *lanes = malloc((t->n + 1) * sizeof *lanes), *base = malloc((t->n + 1) * sizeof *base);
    if (!sl || !un || !slot_of || !busy || !idle || !lanes || !base) {
        free(sl);
        free(un);
        free(slot_of);
        free(busy);
        free(idle);
        free(lanes);
        free(base);
        return se_fail(err, SE_ERR_NOMEM, "%s: out of memory for the Chrome export", title);
    }
    for (size_t i = 0; i < t->n; i++) {
        const se_trace_task *r = &t->v[i];
        int ph = 0;
        int64_t row, tile;
        if (kind != SE_TRACE_ROWS && r->task >= 0 && r->task < g->total)
            se_task_decode(g, r->task, &ph, &row, &tile);
        sl[i] = (chrome_slot){i, kind == SE_TRACE_PHASED ? ph : 0, r->sm, r->block, r->start_ns,
                              r->end_ns < r->start_ns ? r->start_ns : r->end_ns, 0, 0, 0};
    }
    /* Units: the records of one block (and phase, for a phased trace) on
     * one SM; its stay runs from their first start to their last end. */
    qsort(sl, t->n, sizeof *sl, cmp_chrome_unit);
    size_t nu = 0;
    for (size_t i = 0; i < t->n; i++) {
        if (nu && un[nu - 1].sm == sl[i].sm && sl[un[nu - 1].first].group == sl[i].group &&
            sl[un[nu - 1].first].block == sl[i].block) {
            chrome_unit *u = &un[nu - 1];
            u->e = sl[i].e > u->e ? sl[i].e : u->e;
            u->n++;
            continue;
        }
        un[nu++] = (chrome_unit){sl[i].sm, sl[i].s, sl[i].e, i, 1, 0};
    }
    /* Per SM, in order of arrival, each block takes the lowest slot free at
     * its start (a slot whose last block has left), so an SM has as many
     * slots as it ever held blocks at once. */
    qsort(un, nu, sizeof *un, cmp_unit_start);
    json_t *ev = json_array();
    for (size_t a = 0; a < nu;) {
        int sm = un[a].sm;
        size_t c = a, nslots = 0, n_busy = 0, n_idle = 0;
        for (; c < nu && un[c].sm == sm; c++)
            un[c].slot = (int64_t)slot_take(busy, &n_busy, idle, &n_idle, &nslots, un[c].s, un[c].e);
        /* Within a block's stay, tasks that run at once (a fused block's
         * warps on rows of their own) take lanes of its slot the same way;
         * a slot has as many lanes as its busiest block needed. */
        for (size_t k = 0; k < nslots; k++)
            lanes[k] = 1;
        for (size_t u = a; u < c; u++) {
            size_t nl = 0;
            n_busy = n_idle = 0;
            for (size_t i = un[u].first; i < un[u].first + un[u].n; i++) {
                sl[i].slot = un[u].slot;
                sl[i].lane = (int64_t)slot_take(busy, &n_busy, idle, &n_idle, &nl, sl[i].s, sl[i].e);
            }
            if (nl > lanes[un[u].slot])
                lanes[un[u].slot] = nl;
        }
        for (size_t k = 0; k < nslots; k++)
            base[k] = k ? base[k - 1] + lanes[k - 1] : 0;
        for (size_t u = a; u < c; u++)
            for (size_t i = un[u].first; i < un[u].first + un[u].n; i++)
                sl[i].tid = (int64_t)base[sl[i].slot] + sl[i].lane + 1;
        char nm[256];
        snprintf(nm, sizeof nm, "%s: SM %d", title, sm);
        json_array_append_new(ev, json_pack("{s:s, s:s, s:i, s:{s:s}}", "name", "process_name",
                                            "ph", "M", "pid", sm + 1, "args", "name", nm));
        json_array_append_new(ev, json_pack("{s:s, s:s, s:i, s:{s:i}}", "name",
                                            "process_sort_index", "ph", "M", "pid", sm + 1,
                                            "args", "sort_index", sm + 1));
        for (size_t k = 0; k < nslots; k++)
            for (size_t l = 0; l < lanes[k]; l++) {
                json_int_t tid = (json_int_t)(base[k] + l) + 1;
                if (l == 0)
                    snprintf(nm, sizeof nm, "SM %d, block slot %zu", sm, k);
                else
                    snprintf(nm, sizeof nm, "SM %d, block slot %zu, concurrent task %zu", sm, k,
                             l + 1);
                json_array_append_new(ev, json_pack("{s:s, s:s, s:i, s:I, s:{s:s}}", "name",
                                                    "thread_name", "ph", "M", "pid", sm + 1,
                                                    "tid", tid, "args", "name", nm));
                json_array_append_new(ev, json_pack("{s:s, s:s, s:i, s:I, s:{s:I}}", "name",
                                                    "thread_sort_index", "ph", "M", "pid",
                                                    sm + 1, "tid", tid, "args", "sort_index", tid));
            }
        a = c;
    }
    free(un);
    free(lanes);
    free(base);
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
            ev, json_pack("{s:s, s:s, s:s, s:i, s:I, s:f, s:f, s:{s:s, s:i, s:i, s:I, s:I, s:I, "
                          "s:I, s:I}}",
                          "name", nm, "cat", cat, "ph", "X", "pid", p->sm + 1, "tid",
                          (json_int_t)p->tid, "ts", chrome_us(p->s, t0), "dur",
                          chrome_us(p->e, p->s), "args", "phase",
                          ph < 0 ? "one row" : g->phases == 3 ? LN_PHASE_WHAT[ph] : PHASE_WHAT[ph],
                          "block", r->block, "sm", r->sm,
                          "task", (json_int_t)r->task, "row", (json_int_t)row, "tile",
                          (json_int_t)tile, "start_ns", (json_int_t)r->start_ns, "end_ns",
                          (json_int_t)r->end_ns));
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
                                  "cat", "dependency", "ph", "s", "id", id, "pid", p->sm + 1,
                                  "tid", (json_int_t)p->tid, "ts",
                                  chrome_us(p->s + (p->e - p->s) / 2, t0)));
                json_array_append_new(
                    ev, json_pack("{s:s, s:s, s:s, s:s, s:I, s:i, s:I, s:f}", "name",
                                  "dependency", "cat", "dependency", "ph", "f", "bp", "e", "id",
                                  id, "pid", c->sm + 1, "tid", (json_int_t)c->tid, "ts",
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

void se_trace_chrome_counts(const json_t *chrome, size_t *tracks, size_t *groups,
                            size_t *arrows)
{
    size_t i;
    json_t *e;
    *tracks = *groups = *arrows = 0;
    json_array_foreach(json_object_get(chrome, "traceEvents"), i, e) {
        const char *nm = json_string_value(json_object_get(e, "name"));
        const char *ph = json_string_value(json_object_get(e, "ph"));
        *tracks += nm && strcmp(nm, "thread_name") == 0;
        *groups += nm && strcmp(nm, "process_name") == 0;
        *arrows += ph && strcmp(ph, "s") == 0;
    }
}
