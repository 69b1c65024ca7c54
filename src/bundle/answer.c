/*
 * answer.c - the answer as numbers (see answer.h).
 */
#include "bundle/answer.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bundle/paths.h"
#include "bundle/records.h"
#include "bundle/samples.h"
#include "bundle/summary.h"
#include "model/stats.h"

static const char *const VS[SE_NVS][2] = {
    [SE_VS_PDL_GRAPH] = {"graph-pdl", "graph"},
    [SE_VS_MEGAKERNEL_PDL] = {"megakernel", "graph-pdl"},
};

void se_answer_vs_names(int k, const char **a, const char **b)
{
    *a = VS[k][0];
    *b = VS[k][1];
}

void se_answer_free(se_answer *a)
{
    free(a->shape);
    free(a->cell);
    free(a->vs);
    free(a->mk_init_ns);
    free(a->context);
    free(a->calib);
    for (size_t i = 0; i < a->n_own_runs; i++)
        se_rundata_free(&a->own_runs[i]);
    free(a->own_runs);
    memset(a, 0, sizeof *a);
}

/* The device scope of a case in a run's summary.json, or NULL. */
static const json_t *device_scope(const se_rundata *rd, const char *shape, const char *what)
{
    char id[SE_CASE_ID_SIZE + 40];
    snprintf(id, sizeof id, "%s.%s", shape, what);
    return se_json_path(se_rundata_summary_case(rd, id), "scopes.device");
}

const char *se_answer_mech_name(const se_answer *a, int m)
{
    return a->table->s[a->mech[m]].name;
}

const char *se_answer_baseline(const se_answer *a)
{
    return a->table->s[SE_STRATEGY_BASELINE].name;
}

static const char *mech_of(const se_answer *a, int m)
{
    return se_answer_mech_name(a, m);
}

/* Folds one run's value into a ratio's range. */
static void add_run(se_answer_ratio *r, double v)
{
    if (!isfinite(v))
        return;
    if (r->n_runs == 0 || v < r->run_min)
        r->run_min = v;
    if (r->n_runs == 0 || v > r->run_max)
        r->run_max = v;
    r->n_runs++;
}

/* The context lines of a shape, from the first run's derived results. */
static void context_of(const se_rundata *rd, const se_shape *sh, se_answer_context *c)
{
    size_t i;
    json_t *e;
    json_array_foreach(json_object_get(se_rundata_derived(rd), "shapes"), i, e) {
        if (se_json_num(e, "rows") != (double)sh->rows || se_json_num(e, "cols") != (double)sh->cols)
            continue;
        const json_t *f = json_object_get(e, "fastest_ours");
        const json_t *b = json_object_get(e, "best_peer");
        if (json_is_object(f)) {
            snprintf(c->fastest, sizeof c->fastest, "%s", se_json_str(f, "strategy", "?"));
            c->fastest_ns = se_json_num(f, "median_ns");
            c->fastest_of_copy = se_json_num(f, "fraction_of_copy");
        }
        if (json_is_object(b)) {
            snprintf(c->peer, sizeof c->peer, "%s", se_json_str(b, "name", "?"));
            c->peer_ns = se_json_num(b, "median_ns");
            c->vs_peer = se_json_num(b, "vs_best_peer");
        }
        return;
    }
}

/* A case's device-scope samples in round order (a verified run has rounds
 * 0..n-1 in order; checked again here). */
static se_status device_values(const se_rundata *rd, const char *case_id, double **v, size_t *n,
                               se_err *err)
{
    char rel[SE_CASE_ID_SIZE + 40];
    se_path_samples(case_id, rel, sizeof rel);
    se_sample_set sets[SE_NSCOPES];
    memset(sets, 0, sizeof sets);
    se_status st = se_rundata_samples(rd, rel, sets, SE_NSCOPES, err);
    if (st != SE_OK)
        return st;
    const se_sample_set *d = &sets[SE_SCOPE_DEVICE];
    *n = d->n;
    *v = calloc(d->n ? d->n : 1, sizeof **v);
    if (!*v)
        st = se_fail(err, SE_ERR_NOMEM, "%s: out of memory", rel);
    for (size_t k = 0; k < d->n && st == SE_OK; k++) {
        if (d->v[k].round != (int)k)
            st = se_fail(err, SE_ERR_VALIDATION, "%s: device sample %zu has round %d", rel, k,
                         d->v[k].round);
        else
            (*v)[k] = d->v[k].ns;
    }
    for (int sc = 0; sc < SE_NSCOPES; sc++)
        se_sample_set_free(&sets[sc]);
    if (st != SE_OK) {
        free(*v);
        *v = NULL;
    }
    return st;
}

/* a / b on one shape of the first run: paired bootstrap over rounds. */
static se_status head_to_head(const se_rundata *rd, const char *shape, const char *a, const char *b,
                              se_answer_ratio *out, se_err *err)
{
    char ida[SE_CASE_ID_SIZE + 40], idb[SE_CASE_ID_SIZE + 40], key[3 * SE_CASE_ID_SIZE];
    snprintf(ida, sizeof ida, "%s.%s", shape, a);
    snprintf(idb, sizeof idb, "%s.%s", shape, b);
    if (!se_rundata_summary_case(rd, ida) || !se_rundata_summary_case(rd, idb))
        return SE_OK;
    double *va = NULL, *vb = NULL;
    size_t na = 0, nb = 0;
    se_status st = device_values(rd, ida, &va, &na, err);
    if (st == SE_OK)
        st = device_values(rd, idb, &vb, &nb, err);
    se_ratio r;
    snprintf(key, sizeof key, "%s/%s/device", ida, idb);
    if (st == SE_OK)
        st = se_ratio_of_medians(va, na, vb, nb, (unsigned)rd->p.bootstrap_resamples,
                                 se_summary_seed(&rd->p, key), &r, err);
    if (st == SE_OK) {
        out->present = 1;
        out->ratio = r.ratio;
        out->lo = r.lo;
        out->hi = r.hi;
    }
    free(va);
    free(vb);
    return st;
}

/* A shape's device samples of stream and of each mechanism in every run:
 * v[(m * n_runs) + r], m = n_mech for stream; NULL where run r lacks it. */
typedef struct shape_samples {
    size_t n_runs;
    int n_cols;
    double **v;
    size_t *n;
} shape_samples;

static void shape_samples_free(shape_samples *s)
{
    for (size_t k = 0; s->v && k < (size_t)s->n_cols * s->n_runs; k++)
        free(s->v[k]);
    free(s->v);
    free(s->n);
    memset(s, 0, sizeof *s);
}

static se_status shape_samples_load(const se_rundata *runs, size_t n_runs, const se_answer *a,
                                    const char *shape, shape_samples *s, se_err *err)
{
    memset(s, 0, sizeof *s);
    s->n_runs = n_runs;
    s->n_cols = a->n_mech + 1;
    s->v = calloc((size_t)s->n_cols * n_runs, sizeof *s->v);
    s->n = calloc((size_t)s->n_cols * n_runs, sizeof *s->n);
    if (!s->v || !s->n) {
        shape_samples_free(s);
        return se_fail(err, SE_ERR_NOMEM, "answer: out of memory");
    }
    se_status st = SE_OK;
    for (int m = 0; m < s->n_cols && st == SE_OK; m++) {
        const char *name = m < a->n_mech ? mech_of(a, m) : se_answer_baseline(a);
        char id[SE_CASE_ID_SIZE + 40];
        snprintf(id, sizeof id, "%s.%s", shape, name);
        for (size_t r = 0; r < n_runs && st == SE_OK; r++) {
            size_t k = (size_t)m * n_runs + r;
            if (se_rundata_summary_case(&runs[r], id))
                st = device_values(&runs[r], id, &s->v[k], &s->n[k], err);
            if (st == SE_OK && s->v[k] && s->n[k] == 0) {
                free(s->v[k]);
                s->v[k] = NULL;
            }
        }
    }
    if (st != SE_OK)
        shape_samples_free(s);
    return st;
}

/* The column of a strategy in a shape_samples, or -1. */
static int column_of(const se_answer *a, const char *name)
{
    if (strcmp(name, se_answer_baseline(a)) == 0)
        return a->n_mech;
    for (int m = 0; m < a->n_mech; m++)
        if (strcmp(name, mech_of(a, m)) == 0)
            return m;
    return -1;
}

/* The answer's interval of a run's ratio from k runs (docs/TIMING.md, "The
 * answer's interval"): the two-level bootstrap's, widened where k >= 2 to
 * the run-level prediction interval of the k per-run ratios `own`. */
static se_status run_interval(const se_run_samples *u, const double *own, size_t k,
                              unsigned resamples, uint64_t seed, se_ratio *r, se_err *err)
{
    se_status st = se_ratio_two_level(u, k, resamples, seed, r, err);
    double lo, hi;
    if (st == SE_OK && k >= 2 && resamples > 0 &&
        (st = se_run_prediction(own, k, &lo, &hi, err)) == SE_OK) {
        r->lo = lo < r->lo ? lo : r->lo;
        r->hi = hi > r->hi ? hi : r->hi;
    }
    return st;
}

/* ma / mb over the runs that have both: the answer's interval over all of
 * them, the per-run range, and each run held out against the interval of
 * the others. */
static se_status over_runs(const se_rundata *ref, const shape_samples *s, int ca, int cb,
                           const char *key, se_answer_ratio *out, se_err *err)
{
    if (ca < 0 || cb < 0)
        return SE_OK;
    se_run_samples *u = calloc(s->n_runs + 1, sizeof *u), *rest = calloc(s->n_runs + 1, sizeof *rest);
    double *own = calloc(s->n_runs + 1, sizeof *own), *rest_own = calloc(s->n_runs + 1, sizeof *own);
    if (!u || !rest || !own || !rest_own) {
        free(u);
        free(rest);
        free(own);
        free(rest_own);
        return se_fail(err, SE_ERR_NOMEM, "answer: out of memory");
    }
    size_t k = 0;
    for (size_t r = 0; r < s->n_runs; r++) {
        size_t ia = (size_t)ca * s->n_runs + r, ib = (size_t)cb * s->n_runs + r;
        if (!s->v[ia] || !s->v[ib])
            continue;
        u[k] = (se_run_samples){s->v[ia], s->v[ib], s->n[ia], s->n[ib]};
        own[k] = se_median(u[k].a, u[k].na) / se_median(u[k].b, u[k].nb);
        add_run(out, own[k]);
        k++;
    }
    unsigned resamples = (unsigned)ref->p.bootstrap_resamples;
    uint64_t seed = se_summary_seed(&ref->p, key);
    se_status st = SE_OK;
    if (k > 0) {
        se_ratio r;
        st = run_interval(u, own, k, resamples, seed, &r, err);
        if (st == SE_OK) {
            out->present = 1;
            out->ratio = r.ratio;
            out->lo = r.lo;
            out->hi = r.hi;
        }
    }
    for (size_t h = 0; k > 1 && h < k && st == SE_OK; h++) {
        size_t m = 0;
        for (size_t j = 0; j < k; j++)
            if (j != h) {
                rest_own[m] = own[j];
                rest[m++] = u[j];
            }
        se_ratio r;
        st = run_interval(rest, rest_own, m, resamples, seed, &r, err);
        if (st == SE_OK) {
            out->held_out++;
            out->covered += own[h] >= r.lo && own[h] <= r.hi;
        }
    }
    if (st != SE_OK) {
        char why[sizeof err->msg];
        snprintf(why, sizeof why, "%s", err->msg);
        st = se_fail(err, st, "answer: %s: %s", key, why);
    }
    free(u);
    free(rest);
    free(own);
    free(rest_own);
    return st;
}

/* Every ratio of one shape over the runs, and its calibration counts. */
static se_status shape_over_runs(const se_rundata *runs, size_t n_runs, se_answer *a, size_t i,
                                 se_err *err)
{
    shape_samples s;
    se_status st = shape_samples_load(runs, n_runs, a, a->shape[i], &s, err);
    if (st != SE_OK)
        return st;
    const char *stream = se_answer_baseline(a);
    char key[3 * SE_CASE_ID_SIZE];
    se_answer_calibration *c = &a->calib[i];
    for (int m = 0; m < a->n_mech && st == SE_OK; m++) {
        se_answer_ratio *r = &a->cell[i * (size_t)a->n_mech + (size_t)m];
        memset(r, 0, sizeof *r);
        snprintf(key, sizeof key, "runs:%s.%s/%s.%s/device", a->shape[i], mech_of(a, m),
                 a->shape[i], stream);
        st = over_runs(&runs[0], &s, m, a->n_mech, key, r, err);
        c->checked += r->held_out;
        c->covered += r->covered;
    }
    for (int k = 0; k < SE_NVS && st == SE_OK; k++) {
        se_answer_ratio *r = &a->vs[i * SE_NVS + (size_t)k];
        memset(r, 0, sizeof *r);
        snprintf(key, sizeof key, "runs:%s.%s/%s.%s/device", a->shape[i], VS[k][0], a->shape[i],
                 VS[k][1]);
        st = over_runs(&runs[0], &s, column_of(a, VS[k][0]), column_of(a, VS[k][1]), key, r, err);
        c->checked += r->held_out;
        c->covered += r->covered;
    }
    a->calib_all.checked += c->checked;
    a->calib_all.covered += c->covered;
    shape_samples_free(&s);
    return st;
}

/* The earliest start and the latest finish of the runs (run.json). */
static se_status run_span(const se_rundata *runs, size_t n_runs, se_answer *a, se_err *err)
{
    int64_t first = 0, last = 0;
    for (size_t r = 0; r < n_runs; r++) {
        const char *s = se_json_str(runs[r].run, "started_utc", NULL);
        const char *f = se_json_str(runs[r].run, "finished_utc", NULL);
        int64_t ts, tf;
        if (se_utc_seconds(s, &ts) != 0 || se_utc_seconds(f, &tf) != 0 || tf < ts)
            return se_fail(err, SE_ERR_VALIDATION, "%s/%s: fields 'started_utc' and "
                           "'finished_utc': expected YYYY-MM-DDTHH:MM:SSZ, the finish not "
                           "before the start", runs[r].dir, SE_RUN_JSON);
        if (r == 0 || ts < first) {
            first = ts;
            snprintf(a->first_start, sizeof a->first_start, "%s", s);
        }
        if (r == 0 || tf > last) {
            last = tf;
            snprintf(a->last_end, sizeof a->last_end, "%s", f);
        }
    }
    a->span_s = (double)(last - first);
    return SE_OK;
}

/* Every ratio of one shape from one run: the ratios to stream and their
 * within-run intervals as summary.json has them, the head-to-heads
 * bootstrapped from its samples (paired by round). */
static se_status shape_of_one_run(const se_rundata *rd, se_answer *a, size_t i, se_err *err)
{
    for (int m = 0; m < a->n_mech; m++) {
        se_answer_ratio *c = &a->cell[i * (size_t)a->n_mech + (size_t)m];
        const json_t *t = json_object_get(device_scope(rd, a->shape[i], mech_of(a, m)),
                                          "time_ratio_to_stream");
        if (!t)
            continue;
        const json_t *ci = json_object_get(t, "ci95");
        c->present = 1;
        c->ratio = se_json_num(t, "ratio");
        c->lo = json_number_value(json_array_get(ci, 0));
        c->hi = json_number_value(json_array_get(ci, 1));
        add_run(c, c->ratio);
    }
    se_status st = SE_OK;
    for (int k = 0; k < SE_NVS && st == SE_OK; k++) {
        se_answer_ratio *v = &a->vs[i * SE_NVS + (size_t)k];
        st = head_to_head(rd, a->shape[i], VS[k][0], VS[k][1], v, err);
        if (st == SE_OK && v->present)
            add_run(v, v->ratio);
    }
    return st;
}

static se_status alloc_answer(se_answer *a, size_t n_shapes, se_err *err)
{
    a->shape = calloc(n_shapes ? n_shapes : 1, sizeof *a->shape);
    a->cell = calloc(n_shapes * SE_STRATEGY_MAX + 1, sizeof *a->cell);
    a->vs = calloc(n_shapes * SE_NVS + 1, sizeof *a->vs);
    a->mk_init_ns = calloc(n_shapes + 1, sizeof *a->mk_init_ns);
    a->context = calloc(n_shapes + 1, sizeof *a->context);
    a->calib = calloc(n_shapes + 1, sizeof *a->calib);
    if (!a->shape || !a->cell || !a->vs || !a->mk_init_ns || !a->context || !a->calib) {
        se_answer_free(a);
        return se_fail(err, SE_ERR_NOMEM, "answer: out of memory");
    }
    return SE_OK;
}

se_status se_answer_build(const se_rundata *runs, size_t n_runs, se_answer *a, se_err *err)
{
    memset(a, 0, sizeof *a);
    if (n_runs == 0)
        return se_fail(err, SE_ERR_USAGE, "answer: no run given");
    const se_rundata *ref = &runs[0];
    for (size_t r = 1; r < n_runs; r++) {
        se_status st = se_rundata_same_workload(ref, &runs[r], err);
        if (st != SE_OK)
            return st;
    }
    se_status st = alloc_answer(a, ref->p.n_shapes, err);
    if (st != SE_OK)
        return st;
    a->n_runs = n_runs;
    a->multi = n_runs > 1;
    a->op = se_rundata_operation(ref);
    st = run_span(runs, n_runs, a, err);
    if (st != SE_OK) {
        se_answer_free(a);
        return st;
    }
    for (size_t r = 0; r < n_runs && r < 8; r++)
        snprintf(a->run_ids[r], sizeof a->run_ids[r], "%s", runs[r].run_id);
    a->n_shapes = ref->p.n_shapes;
    a->table = se_protocol_table(&ref->p);
    for (int s = 0; s < a->table->n; s++)
        if (a->table->s[s].tiled && s != SE_STRATEGY_BASELINE && ((ref->p.strategies >> s) & 1u))
            a->mech[a->n_mech++] = s;
    int have_init = 0;
    for (size_t i = 0; i < a->n_shapes && st == SE_OK; i++) {
        const se_shape *sh = &ref->p.shapes[i];
        se_shape_id(sh->rows, sh->cols, a->shape[i], sizeof a->shape[i]);
        if (a->multi)
            st = shape_over_runs(runs, n_runs, a, i, err);
        else
            st = shape_of_one_run(ref, a, i, err);
        context_of(ref, sh, &a->context[i]);
        int owner = se_init_control_of(&ref->p);
        const json_t *init =
            owner < 0 ? NULL
                      : device_scope(ref, a->shape[i], a->table->s[owner].init_control);
        if (init) {
            double ns = se_json_num(init, "median_ns");
            a->mk_init_ns[i] = ns;
            if (!have_init || ns < a->mk_init_min_ns)
                a->mk_init_min_ns = ns;
            if (!have_init || ns > a->mk_init_max_ns)
                a->mk_init_max_ns = ns;
            have_init = 1;
        }
    }
    if (st != SE_OK)
        se_answer_free(a);
    return st;
}
