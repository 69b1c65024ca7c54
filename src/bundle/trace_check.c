/*
 * trace_check.c - checks of a dependency trace (see trace.h): coverage,
 * ordering against the task graph, the per-SM summary, SMs the GPU has.
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

/* At most this many missing, duplicated or misordered tasks are listed by
 * name in a report; all are counted. */
#define SE_TRACE_LIST 20

static int64_t expected_tasks(const se_taskgeom *g, se_trace_kind kind)
{
    return kind == SE_TRACE_ROWS ? g->rows : g->total;
}

/* A list of named problems: the first SE_TRACE_LIST, and the count. */
typedef struct plist {
    json_t *arr;
    size_t count;
} plist;

/* Once the list holds SE_TRACE_LIST items a problem is only counted: this
 * counts it and says so, so a caller need not build an item to drop it. */
static int plist_count_only(plist *l)
{
    if (l->count < SE_TRACE_LIST)
        return 0;
    l->count++;
    return 1;
}

static void plist_add(plist *l, json_t *item, FILE *out, const char *name, const char *what)
{
    if (out && l->count < SE_TRACE_LIST) {
        char *s = json_dumps(item, JSON_COMPACT | JSON_PRESERVE_ORDER | JSON_ENCODE_ANY);
        fprintf(out, "  %s: %s: %s\n", name, what, s ? s : "?");
        free(s);
    }
    if (plist_count_only(l)) {
        json_decref(item);
        return;
    }
    l->count++;
    json_array_append_new(l->arr, item);
}

/* A record read from a file carries phase, row and tile columns too; they
 * must say what the task id says (the row of a packed group's task is the
 * group's first row). Records built in memory (col_phase empty) have
 * nothing to compare. */
static int columns_agree(const se_taskgeom *g, se_trace_kind kind, const se_trace_task *r)
{
    if (!r->col_phase[0])
        return 1;
    if (kind == SE_TRACE_ROWS)
        return strcmp(r->col_phase, "row") == 0 && r->col_row == r->task && r->col_tile == 0;
    int ph;
    int64_t grp, tile;
    se_task_decode(g, r->task, &ph, &grp, &tile);
    return r->col_phase[0] == se_trace_phase_letter[ph] && r->col_phase[1] == '\0' &&
           r->col_row == se_group_row0(g, grp) && r->col_tile == tile;
}

int se_trace_cmp_u64(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return x < y ? -1 : x > y;
}

typedef struct interval {
    uint64_t s, e;
} interval;

static int cmp_interval(const void *a, const void *b)
{
    const interval *x = a, *y = b;
    return x->s < y->s ? -1 : x->s > y->s ? 1 : (x->e < y->e ? -1 : x->e > y->e);
}

typedef struct sm_interval {
    int sm;
    interval iv;
} sm_interval;

static int cmp_sm_interval(const void *a, const void *b)
{
    const sm_interval *x = a, *y = b;
    if (x->sm != y->sm)
        return x->sm < y->sm ? -1 : 1;
    return cmp_interval(&x->iv, &y->iv);
}

/* Tasks per SM and idle time per SM: the SM's span minus the union of the
 * intervals of the tasks it ran (several blocks share an SM). */
static json_t *sm_summary_of(const se_trace *t)
{
    if (t->n == 0)
        return json_pack("{s:i}", "sms_used", 0);
    /* One sort by (SM, start): linear in the records after it, whatever
     * the SM ids are. */
    sm_interval *iv = malloc(t->n * sizeof *iv);
    size_t used = 0, min_tasks = SIZE_MAX, max_tasks = 0;
    uint64_t idle_total = 0, idle_max = 0;
    if (iv) {
        for (size_t i = 0; i < t->n; i++) {
            iv[i].sm = t->v[i].sm;
            iv[i].iv.s = t->v[i].start_ns;
            iv[i].iv.e = t->v[i].end_ns;
        }
        qsort(iv, t->n, sizeof *iv, cmp_sm_interval);
        for (size_t a = 0; a < t->n;) {
            size_t b = a + 1;
            uint64_t reach = iv[a].iv.e, idle = 0;
            for (; b < t->n && iv[b].sm == iv[a].sm; b++) {
                if (iv[b].iv.s > reach)
                    idle += iv[b].iv.s - reach;
                if (iv[b].iv.e > reach)
                    reach = iv[b].iv.e;
            }
            size_t k = b - a;
            used++;
            min_tasks = k < min_tasks ? k : min_tasks;
            max_tasks = k > max_tasks ? k : max_tasks;
            idle_total += idle;
            idle_max = idle > idle_max ? idle : idle_max;
            a = b;
        }
    }
    json_t *o = json_pack("{s:I, s:I, s:I, s:I, s:I, s:s}", "sms_used", (json_int_t)used,
                          "tasks_per_sm_min", (json_int_t)(used ? min_tasks : 0),
                          "tasks_per_sm_max", (json_int_t)max_tasks, "idle_between_tasks_ns_total",
                          (json_int_t)idle_total, "idle_between_tasks_ns_max_sm",
                          (json_int_t)idle_max, "caveat",
                          "a gap is time in which no traced task of this run was recorded on "
                          "that SM, not measured idle hardware; gaps under the globaltimer "
                          "resolution mean nothing");
    free(iv);
    return o;
}

static json_t *sm_summary(const se_trace *tr, const int64_t *first, const int *seen, int64_t n_exp)
{
    /* Only the valid first record of each task counts. */
    se_trace valid = {malloc((tr->n + 1) * sizeof *tr->v), 0};
    for (int64_t k = 0; valid.v && k < n_exp; k++)
        if (seen[k])
            valid.v[valid.n++] = tr->v[first[k]];
    json_t *o = sm_summary_of(&valid);
    free(valid.v);
    return o;
}

se_status se_trace_check(const se_taskgeom *g, se_trace_kind kind, const se_trace *t,
                         const char *name, FILE *out, json_t **report, int *ok, se_err *err)
{
    int64_t n_exp = expected_tasks(g, kind);
    /* Sized by the task graph, not by the records: bounded first. */
    if (n_exp < 0 || n_exp > SE_TRACE_MAX_TASKS)
        return se_fail(err, SE_ERR_VALIDATION, "%s: the shape and tile imply %" PRId64 " tasks, "
                       "more than the %" PRId64 " a trace file of at most %" PRIu64 " bytes can "
                       "record: not checked", name, n_exp, SE_TRACE_MAX_TASKS,
                       SE_TRACE_MAX_BYTES);
    int64_t *first = malloc((size_t)n_exp * sizeof *first);
    int *seen = calloc((size_t)n_exp, sizeof *seen);
    if (!first || !seen) {
        free(first);
        free(seen);
        return se_fail(err, SE_ERR_NOMEM, "%s: out of memory", name);
    }
    plist missing = {json_array(), 0}, dup = {json_array(), 0}, bad = {json_array(), 0},
          order = {json_array(), 0}, barrier = {json_array(), 0};
    char a[64], b[64];
    uint64_t t0 = UINT64_MAX;
    for (size_t i = 0; i < t->n; i++) {
        const se_trace_task *r = &t->v[i];
        if (r->task < 0 || r->task >= n_exp || r->end_ns < r->start_ns || r->sm < 0 ||
            r->sm >= SE_TRACE_MAX_SM || r->block < 0 || !columns_agree(g, kind, r)) {
            plist_add(&bad, json_pack("{s:I, s:i, s:I, s:I}", "task", (json_int_t)r->task, "sm",
                                      r->sm, "start_ns", (json_int_t)r->start_ns, "end_ns",
                                      (json_int_t)r->end_ns),
                      out, name, "invalid record");
            continue;
        }
        if (r->start_ns < t0)
            t0 = r->start_ns;
        if (seen[r->task]++ == 0)
            first[r->task] = (int64_t)i;
        else {
            se_trace_task_name(g, kind, r->task, a, sizeof a);
            plist_add(&dup, json_pack("{s:s, s:i}", "task", a, "times", seen[r->task]), out, name,
                      "duplicated task");
        }
    }
    for (int64_t k = 0; k < n_exp; k++)
        if (!seen[k] && !plist_count_only(&missing)) {
            se_trace_task_name(g, kind, k, a, sizeof a);
            plist_add(&missing, json_string(a), out, name, "missing task");
        }
    /* Dependency edges. */
    size_t edges = 0;
    if (kind != SE_TRACE_ROWS)
        for (int64_t k = 0; k < n_exp; k++) {
            if (!seen[k])
                continue;
            const se_trace_task *c = &t->v[first[k]];
            int64_t nd = se_task_dep_count(g, k);
            for (int64_t d = 0; d < nd; d++) {
                int64_t pk = se_task_dep(g, k, d);
                if (!seen[pk])
                    continue;
                edges++;
                const se_trace_task *pr = &t->v[first[pk]];
                if (c->start_ns < pr->end_ns) {
                    se_trace_task_name(g, kind, pk, a, sizeof a);
                    se_trace_task_name(g, kind, k, b, sizeof b);
                    plist_add(&order,
                              json_pack("{s:s, s:I, s:s, s:I, s:I}", "producer", a, "producer_end_ns",
                                        (json_int_t)pr->end_ns, "consumer", b, "consumer_start_ns",
                                        (json_int_t)c->start_ns, "early_by_ns",
                                        (json_int_t)(pr->end_ns - c->start_ns)),
                              out, name, "consumer started before its producer ended");
                }
            }
        }
    /* Phase spans, and the grid-wide barriers of the phased strategies. */
    json_t *phases = json_object();
    uint64_t ph_start[SE_NPHASES], ph_end[SE_NPHASES];
    int64_t ph_last[SE_NPHASES], ph_tasks[SE_NPHASES];
    double overlap_ns = 0.0, later_ns = 0.0;
    if (kind != SE_TRACE_ROWS) {
        for (int ph = 0; ph < g->phases; ph++) {
            ph_start[ph] = UINT64_MAX;
            ph_end[ph] = 0;
            ph_last[ph] = -1;
            ph_tasks[ph] = 0;
        }
        for (int64_t k = 0; k < n_exp; k++) {
            if (!seen[k])
                continue;
            int ph;
            int64_t row, tile;
            se_task_decode(g, k, &ph, &row, &tile);
            const se_trace_task *r = &t->v[first[k]];
            ph_tasks[ph]++;
            if (r->start_ns < ph_start[ph])
                ph_start[ph] = r->start_ns;
            if (r->end_ns > ph_end[ph]) {
                ph_end[ph] = r->end_ns;
                ph_last[ph] = k;
            }
        }
        for (int ph = 0; ph < g->phases; ph++) {
            char key[2] = {se_trace_phase_letter[ph], '\0'};
            json_object_set_new(phases, key,
                                ph_tasks[ph] ? json_pack("{s:I, s:I, s:I, s:I}", "tasks",
                                                         (json_int_t)ph_tasks[ph], "start_ns",
                                                         (json_int_t)(ph_start[ph] - t0), "end_ns",
                                                         (json_int_t)(ph_end[ph] - t0), "span_ns",
                                                         (json_int_t)(ph_end[ph] - ph_start[ph]))
                                             : json_pack("{s:i}", "tasks", 0));
        }
        for (int64_t k = 0; k < n_exp; k++) {
            if (!seen[k])
                continue;
            int ph;
            int64_t row, tile;
            se_task_decode(g, k, &ph, &row, &tile);
            if (ph == SE_PHASE_A || !ph_tasks[ph - 1])
                continue;
            const se_trace_task *r = &t->v[first[k]];
            uint64_t limit = ph_end[ph - 1];
            later_ns += (double)(r->end_ns - r->start_ns);
            if (r->start_ns < limit)
                overlap_ns += (double)((r->end_ns < limit ? r->end_ns : limit) - r->start_ns);
            if (kind == SE_TRACE_PHASED && r->start_ns < limit) {
                se_trace_task_name(g, kind, ph_last[ph - 1], a, sizeof a);
                se_trace_task_name(g, kind, k, b, sizeof b);
                plist_add(&barrier,
                          json_pack("{s:s, s:I, s:s, s:I, s:I}", "last_of_previous_phase", a,
                                    "end_ns", (json_int_t)limit, "task", b, "start_ns",
                                    (json_int_t)r->start_ns, "early_by_ns",
                                    (json_int_t)(limit - r->start_ns)),
                          out, name, "task started before the previous phase ended grid-wide");
            }
        }
    }
    uint64_t t_end = 0;
    for (int64_t k = 0; k < n_exp; k++)
        if (seen[k] && t->v[first[k]].end_ns > t_end)
            t_end = t->v[first[k]].end_ns;
    *ok = missing.count == 0 && dup.count == 0 && bad.count == 0 && order.count == 0 &&
          barrier.count == 0;
    json_t *o = json_object();
    json_object_set_new(o, "kind", json_string(kind == SE_TRACE_PHASED ? "phased"
                                               : kind == SE_TRACE_TASKS ? "tasks" : "rows"));
    json_object_set_new(o, "tasks_expected", json_integer(n_exp));
    json_object_set_new(o, "records", json_integer((json_int_t)t->n));
    json_object_set_new(o, "span_ns", json_integer(t_end > t0 ? (json_int_t)(t_end - t0) : 0));
    json_object_set_new(o, "invalid_count", json_integer((json_int_t)bad.count));
    json_object_set_new(o, "invalid", bad.arr);
    json_object_set_new(o, "missing_count", json_integer((json_int_t)missing.count));
    json_object_set_new(o, "missing", missing.arr);
    json_object_set_new(o, "duplicated_count", json_integer((json_int_t)dup.count));
    json_object_set_new(o, "duplicated", dup.arr);
    json_object_set_new(o, "dependency_edges_checked", json_integer((json_int_t)edges));
    json_object_set_new(o, "order_violations_count", json_integer((json_int_t)order.count));
    json_object_set_new(o, "order_violations", order.arr);
    json_object_set_new(o, "phase_barriers_checked", json_boolean(kind == SE_TRACE_PHASED));
    json_object_set_new(o, "phase_barrier_violations_count", json_integer((json_int_t)barrier.count));
    json_object_set_new(o, "phase_barrier_violations", barrier.arr);
    json_object_set_new(o, "phases", phases);
    json_object_set_new(o, "overlap",
                        json_pack("{s:f, s:s}", "fraction", later_ns > 0 ? overlap_ns / later_ns : 0.0,
                                  "definition",
                                  "share of the task time of phases B to E spent before the last "
                                  "task of the previous phase ended, anywhere on the GPU: work of "
                                  "a row's later phase done while other rows were still in the "
                                  "earlier one"));
    json_object_set_new(o, "sm", sm_summary(t, first, seen, n_exp));
    json_object_set_new(o, "verdict", json_string(*ok ? "pass" : "fail"));
    free(first);
    free(seen);
    *report = o;
    return SE_OK;
}

void se_trace_check_sms(const se_trace *t, int sm_count, const char *name, FILE *out,
                        size_t *n_bad)
{
    *n_bad = 0;
    for (size_t i = 0; i < t->n; i++) {
        const se_trace_task *r = &t->v[i];
        if (r->sm < sm_count)
            continue;
        if (out && *n_bad < SE_TRACE_LIST)
            fprintf(out, "  %s: record on an SM the GPU does not have: {\"task\":%" PRId64
                    ",\"sm\":%d}, " SE_ENVIRONMENT_JSON "'s sm_count is %d\n", name, r->task, r->sm,
                    sm_count);
        (*n_bad)++;
    }
}
