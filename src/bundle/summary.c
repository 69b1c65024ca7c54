/*
 * summary.c - summary.json from raw samples (see summary.h).
 *
 * Bootstrap seeds: every summary draws from its own stream, seeded with
 * se_mix64(bootstrap_seed ^ fnv1a("<case>/<scope>")), and the ratio to the
 * stream baseline with se_mix64 of that seed ^ 1, so each number can be
 * recomputed alone.
 */
#include "bundle/summary.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "model/outliers.h"
#include "model/stats.h"
#include "model/strategy.h"

static uint64_t fnv1a(const char *s)
{
    uint64_t h = 1469598103934665603ULL;
    for (; *s; s++) {
        h ^= (unsigned char)*s;
        h *= 1099511628211ULL;
    }
    return h;
}

static uint64_t summary_seed(const se_protocol *p, const char *id, const char *scope)
{
    char key[160];
    snprintf(key, sizeof key, "%s/%s", id, scope);
    return se_mix64(p->bootstrap_seed ^ fnv1a(key));
}

static int expected_samples(const se_protocol *p, const se_case_id *c, int sc)
{
    if (!c->shape)
        return p->controls.samples;
    switch (sc) {
    case SE_SCOPE_DEVICE: return p->device.samples;
    case SE_SCOPE_DEVICE_COLD: return p->device_cold.samples;
    case SE_SCOPE_BATCH: return p->batch.samples;
    default: return p->host.samples;
    }
}

/* The ns values of one scope in round order, after checking count and order. */
static se_status scope_values(const se_protocol *p, const se_case_id *c, int sc,
                              const se_sample_set *set, double **out, size_t *throttled,
                              se_err *err)
{
    int want = expected_samples(p, c, sc);
    if (set->n != (size_t)want)
        return se_fail(err, SE_ERR_VALIDATION,
                       "case %s, scope %s: %zu samples, the protocol asks for %d", c->id,
                       se_scope_name((se_scope)sc), set->n, want);
    double *v = malloc((size_t)want * sizeof *v);
    if (!v)
        return se_fail(err, SE_ERR_NOMEM, "summary: out of memory");
    *throttled = 0;
    for (size_t i = 0; i < set->n; i++) {
        if (set->v[i].round != (int)i) {
            free(v);
            return se_fail(err, SE_ERR_VALIDATION,
                           "case %s, scope %s: sample %zu has round %d, expected %zu", c->id,
                           se_scope_name((se_scope)sc), i, set->v[i].round, i);
        }
        v[i] = set->v[i].ns;
        *throttled += (size_t)set->v[i].throttled;
    }
    *out = v;
    return SE_OK;
}

static json_t *pair(double a, double b)
{
    return json_pack("[f, f]", a, b);
}

static json_t *summary_json(const se_summary *s, size_t throttled)
{
    json_t *o = json_object();
    json_object_set_new(o, "n", json_integer((json_int_t)s->n));
    json_object_set_new(o, "throttled", json_integer((json_int_t)throttled));
    json_object_set_new(o, "median_ns", json_real(s->median));
    json_object_set_new(o, "median_ci95_ns", pair(s->median_ci_lo, s->median_ci_hi));
    json_object_set_new(o, "p5_ns", json_real(s->p5));
    json_object_set_new(o, "p25_ns", json_real(s->p25));
    json_object_set_new(o, "p75_ns", json_real(s->p75));
    json_object_set_new(o, "p95_ns", json_real(s->p95));
    json_object_set_new(o, "min_ns", json_real(s->min));
    json_object_set_new(o, "max_ns", json_real(s->max));
    json_object_set_new(o, "mean_ns", json_real(s->mean));
    json_object_set_new(o, "stdev_ns", json_real(s->stdev));
    return o;
}

/* Everything known about one shape's cases while its summaries are built. */
typedef struct shape_ctx {
    double *stream[SE_NSCOPES]; /* stream baseline values, for ratios */
    size_t stream_n[SE_NSCOPES];
    double copy_median[SE_NSCOPES];
} shape_ctx;

/* One scope of a case: its statistics (the bootstrap seeded from the case id
 * and the scope name), L2 label and, on a shape, GB/s. The values in round
 * order stay in *values for the caller (free them). */
static se_status scope_summary(const se_protocol *p, const se_case_id *c, int sc,
                               const se_sample_set *set, double bytes, double **values,
                               se_summary *s, json_t **out, se_err *err)
{
    double *v = NULL;
    size_t thr = 0;
    se_status st = scope_values(p, c, sc, set, &v, &thr, err);
    if (st == SE_OK)
        st = se_summarize(v, set->n, (unsigned)p->bootstrap_resamples,
                          summary_seed(p, c->id, se_scope_name((se_scope)sc)), s, err);
    if (st != SE_OK) {
        free(v);
        return st;
    }
    json_t *js = summary_json(s, thr);
    json_object_set_new(js, "l2", json_string(se_scope_l2((se_scope)sc)));
    if (c->shape && bytes > 0.0)
        json_object_set_new(js, "gbps", json_real(bytes / s->median));
    *values = v;
    *out = js;
    return SE_OK;
}

static double bytes_moved(const se_shape *s)
{
    return 8.0 * (double)s->rows * (double)s->cols;
}

static se_status case_json(const se_protocol *p, const se_case_id *c, const se_sample_set *sets,
                           shape_ctx *sh, json_t **out, se_err *err)
{
    json_t *o = json_object(), *scopes = json_object();
    char path[160];
    se_samples_path(c, path, sizeof path);
    json_object_set_new(o, "case", json_string(c->id));
    json_object_set_new(o, "what", json_string(c->what));
    json_object_set_new(o, "samples_file", json_string(path));
    double bytes = 0.0;
    if (c->shape) {
        const se_strategy_info *info =
            c->strategy >= 0 ? se_protocol_strategy(p, c->strategy)
            : c->strategy == SE_CASE_MK_INIT ? se_protocol_strategy(p, se_init_control_of(p))
                                             : NULL;
        /* The megakernel's initialization moves none of x or y. */
        bytes = c->strategy == SE_CASE_MK_INIT ? 0.0 : bytes_moved(c->shape);
        json_object_set_new(o, "shape", json_string(c->shape->spec));
        json_object_set_new(o, "rows", json_integer(c->shape->rows));
        json_object_set_new(o, "cols", json_integer(c->shape->cols));
        json_object_set_new(o, "tile", json_integer(p->tile));
        json_object_set_new(o, "mechanism", json_string(info ? info->mechanism : "copy"));
        json_object_set_new(o, "launch", json_string(info ? info->launch : "stream"));
        json_object_set_new(o, "bytes_moved", json_real(bytes));
    }
    se_status st = SE_OK;
    for (int sc = 0; sc < c->n_scopes && st == SE_OK; sc++) {
        double *v = NULL;
        se_summary s;
        json_t *js = NULL;
        st = scope_summary(p, c, sc, &sets[sc], bytes, &v, &s, &js, err);
        if (st != SE_OK)
            break;
        if (c->shape) {
            if (c->strategy == SE_CASE_COPY)
                sh->copy_median[sc] = s.median;
            else if (c->strategy != SE_CASE_MK_INIT && sh->copy_median[sc] > 0.0)
                json_object_set_new(js, "fraction_of_copy", json_real(sh->copy_median[sc] / s.median));
            if (c->strategy == SE_STRATEGY_BASELINE) {
                sh->stream[sc] = v;
                sh->stream_n[sc] = sets[sc].n;
                v = NULL;
            } else if (c->strategy >= 0 && sh->stream[sc]) {
                se_ratio r;
                st = se_ratio_of_medians(v, sets[sc].n, sh->stream[sc], sh->stream_n[sc],
                                         (unsigned)p->bootstrap_resamples,
                                         se_mix64(summary_seed(p, c->id, se_scope_name((se_scope)sc)) ^ 1),
                                         &r, err);
                if (st == SE_OK)
                    json_object_set_new(js, "time_ratio_to_stream",
                                        json_pack("{s:f, s:o}", "ratio", r.ratio, "ci95",
                                                  pair(r.lo, r.hi)));
            }
        }
        free(v);
        json_object_set_new(scopes, se_scope_name((se_scope)sc), js);
    }
    json_object_set_new(o, "scopes", scopes);
    if (st != SE_OK) {
        json_decref(o);
        return st;
    }
    *out = o;
    return SE_OK;
}

se_status se_summary_peer(const se_protocol *p, const se_case_id *c, const se_sample_set *device,
                          double copy_median_ns, json_t **out, se_err *err)
{
    double *v = NULL;
    se_summary s;
    json_t *js = NULL;
    se_status st = scope_summary(p, c, SE_SCOPE_DEVICE, device, bytes_moved(c->shape), &v, &s,
                                 &js, err);
    free(v);
    if (st != SE_OK)
        return st;
    if (copy_median_ns > 0.0)
        json_object_set_new(js, "fraction_of_copy", json_real(copy_median_ns / s.median));
    *out = js;
    return SE_OK;
}

static void shape_ctx_reset(shape_ctx *sh)
{
    for (int sc = 0; sc < SE_NSCOPES; sc++)
        free(sh->stream[sc]);
    memset(sh, 0, sizeof *sh);
}

/* The copy case of a shape comes last in the case list, but every
 * strategy's fraction of copy bandwidth needs its median: summarize it
 * first, then the others in list order. */
static se_status copy_first(const se_protocol *p, const se_case_id *cases, size_t n, size_t i,
                            se_sample_source source, void *ctx, shape_ctx *sh, se_err *err)
{
    for (size_t j = i; j < n && cases[j].shape == cases[i].shape; j++) {
        if (cases[j].strategy != SE_CASE_COPY)
            continue;
        se_sample_set sets[SE_NSCOPES];
        int owned = 0;
        json_t *ignored = NULL;
        se_status st = source(ctx, &cases[j], sets, &owned, err);
        if (st == SE_OK)
            st = case_json(p, &cases[j], sets, sh, &ignored, err);
        json_decref(ignored);
        if (owned)
            for (int sc = 0; sc < SE_NSCOPES; sc++)
                se_sample_set_free(&sets[sc]);
        return st;
    }
    return SE_OK;
}

static json_t *derived_json(const se_protocol *p, json_t *controls)
{
    double noop = 0.0, bars = 0.0;
    size_t i;
    json_t *c;
    json_array_foreach(controls, i, c) {
        const char *what = json_string_value(json_object_get(c, "what"));
        double med = json_real_value(
            json_object_get(json_object_get(json_object_get(c, "scopes"), "device"), "median_ns"));
        if (what && strcmp(what, "coop_noop") == 0)
            noop = med;
        if (what && strcmp(what, "barriers") == 0)
            bars = med;
    }
    return json_pack("{s:{s:f, s:i, s:s}}", "grid_barrier_ns", "value",
                     (bars - noop) / (double)p->barriers, "barriers", (json_int_t)p->barriers,
                     "formula", "(median(barriers) - median(coop_noop)) / barriers");
}

se_status se_summary_build(const se_protocol *p, se_sample_source source, void *ctx,
                           json_t **out, se_err *err)
{
    se_case_id *cases = NULL;
    size_t n = 0;
    se_status st = se_case_list(p, &cases, &n, err);
    if (st != SE_OK)
        return st;
    json_t *root = json_object(), *arr = json_array(), *controls = json_array();
    shape_ctx sh;
    memset(&sh, 0, sizeof sh);
    for (size_t i = 0; i < n && st == SE_OK; i++) {
        const se_case_id *c = &cases[i];
        if (c->shape && (i == 0 || cases[i - 1].shape != c->shape)) {
            shape_ctx_reset(&sh);
            st = copy_first(p, cases, n, i, source, ctx, &sh, err);
            if (st != SE_OK)
                break;
        }
        se_sample_set sets[SE_NSCOPES];
        int owned = 0;
        json_t *cj = NULL;
        st = source(ctx, c, sets, &owned, err);
        if (st == SE_OK)
            st = case_json(p, c, sets, &sh, &cj, err);
        if (owned)
            for (int sc = 0; sc < c->n_scopes; sc++)
                se_sample_set_free(&sets[sc]);
        if (st == SE_OK)
            json_array_append_new(c->shape ? arr : controls, cj);
    }
    shape_ctx_reset(&sh);
    free(cases);
    if (st != SE_OK) {
        json_decref(root);
        json_decref(arr);
        json_decref(controls);
        return st;
    }
    json_object_set_new(root, "format", json_string(SE_SUMMARY_FORMAT));
    json_object_set_new(root, "version", json_integer(1));
    json_object_set_new(root, "bootstrap",
                        json_pack("{s:i, s:I, s:s}", "resamples", (json_int_t)p->bootstrap_resamples,
                                  "seed", (json_int_t)p->bootstrap_seed, "seed_rule",
                                  "se_mix64(seed ^ fnv1a(\"<case>/<scope>\")); ratio: se_mix64(that ^ 1)"));
    json_object_set_new(root, "ratio_definition",
                        json_string("time_ratio_to_stream = median(strategy) / median(stream), same "
                                    "shape and scope; < 1 is faster; paired bootstrap by round"));
    json_object_set_new(root, "cases", arr);
    json_object_set_new(root, "derived", derived_json(p, controls));
    json_object_set_new(root, "controls", controls);
    *out = root;
    return SE_OK;
}

int se_json_equal(const json_t *a, const json_t *b, char *path, size_t path_size, char *what,
                  size_t what_size)
{
    size_t len = strlen(path);
    if (json_is_number(a) && json_is_number(b)) {
        if (json_is_integer(a) && json_is_integer(b)) {
            if (json_integer_value(a) == json_integer_value(b))
                return 1;
        } else {
            double x = json_number_value(a), y = json_number_value(b);
            if (x == y || fabs(x - y) <= 1e-12 * fmax(fabs(x), fabs(y)))
                return 1;
        }
        snprintf(what, what_size, "saved %.17g, recomputed %.17g", json_number_value(a),
                 json_number_value(b));
        return 0;
    }
    if (json_typeof(a) != json_typeof(b)) {
        snprintf(what, what_size, "saved and recomputed values have different types");
        return 0;
    }
    if (json_is_object(a)) {
        const char *key;
        json_t *v;
        json_object_foreach((json_t *)a, key, v) {
            snprintf(path + len, path_size - len, "%s%s", len ? "." : "", key);
            json_t *w = json_object_get(b, key);
            if (!w) {
                snprintf(what, what_size, "not in the recomputed summary");
                return 0;
            }
            if (!se_json_equal(v, w, path, path_size, what, what_size))
                return 0;
        }
        json_object_foreach((json_t *)b, key, v) {
            if (!json_object_get(a, key)) {
                snprintf(path + len, path_size - len, "%s%s", len ? "." : "", key);
                snprintf(what, what_size, "missing from the saved summary");
                return 0;
            }
        }
        path[len] = '\0';
        return 1;
    }
    if (json_is_array(a)) {
        if (json_array_size(a) != json_array_size(b)) {
            snprintf(what, what_size, "saved %zu entries, recomputed %zu", json_array_size(a),
                     json_array_size(b));
            return 0;
        }
        for (size_t i = 0; i < json_array_size(a); i++) {
            snprintf(path + len, path_size - len, "[%zu]", i);
            if (!se_json_equal(json_array_get(a, i), json_array_get(b, i), path, path_size, what,
                               what_size))
                return 0;
        }
        path[len] = '\0';
        return 1;
    }
    if (json_equal((json_t *)a, (json_t *)b))
        return 1;
    snprintf(what, what_size, "saved and recomputed values differ");
    return 0;
}

uint64_t se_summary_seed(const se_protocol *p, const char *key)
{
    return se_mix64(p->bootstrap_seed ^ fnv1a(key));
}
