/*
 * trace.c - dependency traces: file format, checks, summary and export
 * (see trace.h).
 */
#include "bundle/trace.h"

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

static const char phase_letter[SE_NPHASES] = {'A', 'B', 'C', 'D', 'E'};

int se_trace_kind_of(int strategy)
{
    const se_strategy_info *info = se_strategy_get((se_strategy)strategy);
    return info && info->trace != SE_TRACE_NONE ? (int)info->trace : -1;
}

int se_traced(const se_protocol *p, int s)
{
    return p->traces && ((p->strategies >> s) & 1u) && se_trace_kind_of(s) >= 0;
}

static int64_t expected_tasks(const se_taskgeom *g, se_trace_kind kind)
{
    return kind == SE_TRACE_ROWS ? g->rows : g->total;
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
        snprintf(buf, size, "%c(%" PRId64 ",%" PRId64 ")", phase_letter[ph], row, tile);
    else
        snprintf(buf, size, "%c(%" PRId64 ")", phase_letter[ph], row);
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
        char phase[4] = {ph >= 0 ? phase_letter[ph] : '?', '\0'};
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

/* A list of named problems: the first SE_TRACE_LIST, and the count. */
typedef struct plist {
    json_t *arr;
    size_t count;
} plist;

static void plist_add(plist *l, json_t *item, FILE *out, const char *name, const char *what)
{
    if (out && l->count < SE_TRACE_LIST) {
        char *s = json_dumps(item, JSON_COMPACT | JSON_PRESERVE_ORDER | JSON_ENCODE_ANY);
        fprintf(out, "  %s: %s: %s\n", name, what, s ? s : "?");
        free(s);
    }
    if (l->count++ < SE_TRACE_LIST)
        json_array_append_new(l->arr, item);
    else
        json_decref(item);
}

/* A record read from a file carries phase, row and tile columns too; they
 * must say what the task id says. Records built in memory (col_phase
 * empty) have nothing to compare. */
static int columns_agree(const se_taskgeom *g, se_trace_kind kind, const se_trace_task *r)
{
    if (!r->col_phase[0])
        return 1;
    if (kind == SE_TRACE_ROWS)
        return strcmp(r->col_phase, "row") == 0 && r->col_row == r->task && r->col_tile == 0;
    int ph;
    int64_t row, tile;
    se_task_decode(g, r->task, &ph, &row, &tile);
    return r->col_phase[0] == phase_letter[ph] && r->col_phase[1] == '\0' && r->col_row == row &&
           r->col_tile == tile;
}

static int cmp_u64(const void *a, const void *b)
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
        if (!seen[k]) {
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
        for (int ph = 0; ph < SE_NPHASES; ph++) {
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
        for (int ph = 0; ph < SE_NPHASES; ph++) {
            char key[2] = {phase_letter[ph], '\0'};
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
        qsort(sms, nsm, sizeof *sms, cmp_u64);
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
        char cat[4] = {ph >= 0 ? phase_letter[ph] : 'R', '\0'};
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
                    ",\"sm\":%d}, environment.json's sm_count is %d\n", name, r->task, r->sm,
                    sm_count);
        (*n_bad)++;
    }
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

se_status se_trace_case_report(const se_protocol *p, const char *dir, const se_shape *sh,
                               int strategy, FILE *out, json_t **entry, json_t **cost, int *ok,
                               se_err *err)
{
    se_taskgeom g = se_taskgeom_make(sh->rows, sh->cols, p->tile);
    int kind = se_trace_kind_of(strategy);
    const char *name = se_strategy_get((se_strategy)strategy)->name;
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

se_status se_traces_report(const se_protocol *p, const char *dir, FILE *out, json_t **report,
                           size_t *failures, se_err *err)
{
    json_t *traces = json_array(), *costs = json_array(), *overlap = json_array();
    se_status st = SE_OK;
    *failures = 0;
    for (size_t i = 0; i < p->n_shapes && st == SE_OK; i++) {
        for (int s = 0; s < SE_NSTRATEGIES && st == SE_OK; s++) {
            int kind = se_trace_kind_of(s);
            if (!se_traced(p, s))
                continue;
            json_t *entry = NULL, *cost = NULL;
            int ok = 0;
            st = se_trace_case_report(p, dir, &p->shapes[i], s, out, &entry, &cost, &ok, err);
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
