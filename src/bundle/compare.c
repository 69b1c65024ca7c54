/*
 * compare.c - runs compared case by case from their raw samples (see
 * compare.h).
 */
#include "bundle/compare.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bundle/fsutil.h"
#include "bundle/paths.h"
#include "bundle/rundata.h"
#include "model/operation.h"
#include "bundle/runset.h"
#include "bundle/samples.h"
#include "bundle/summary.h"
#include "bundle/verify.h"
#include "model/json.h"
#include "model/stats.h"

/* The environment fields a comparison names when they differ: what makes
 * two runs' times comparable or not (GPU, its clocks, driver and toolkit,
 * the code, the host). */
static const char *const env_fields[] = {
    "gpu.name", "gpu.compute_capability", "gpu.sm_count", "gpu.global_memory_bytes",
    "gpu.l2_bytes", "gpu.peak_sm_clock_mhz", "gpu.peak_memory_clock_mhz", "gpu.uuid",
    "software.driver_version", "software.runtime_version", "software.nvcc_version",
    "software.cuda_architectures", "software.cuda_flags", "software.build_type",
    "software.cudnn_version", "source.git_commit", "source.git_dirty", "host.hostname",
    "host.release",
};
#define N_ENV_FIELDS (sizeof env_fields / sizeof env_fields[0])

static json_t *env_diff(const se_rundata *a, const se_rundata *b, size_t *compared)
{
    json_t *diffs = json_array();
    *compared = N_ENV_FIELDS + 1;
    for (size_t i = 0; i < N_ENV_FIELDS; i++) {
        json_t *va = se_json_path(a->env, env_fields[i]);
        json_t *vb = se_json_path(b->env, env_fields[i]);
        if (json_equal(va, vb) || (!va && !vb))
            continue;
        json_array_append_new(diffs, json_pack("{s:s, s:O, s:O}", "field", env_fields[i], "a",
                                               va ? va : json_null(), "b", vb ? vb : json_null()));
    }
    /* The protocol: the same measurement plan, or not. */
    json_t *pa = se_json_path(a->run, "protocol.bundle_copy_sha256");
    json_t *pb = se_json_path(b->run, "protocol.bundle_copy_sha256");
    if (!json_equal(pa, pb))
        json_array_append_new(diffs, json_pack("{s:s, s:O, s:O}", "field", SE_PROTOCOL_JSON " sha256",
                                               "a", pa ? pa : json_null(), "b",
                                               pb ? pb : json_null()));
    return diffs;
}

/* A timed entry of a run (a case of summary.json's "cases" or "controls"),
 * keyed by its id with the shape as the run's own RxC. */
typedef struct entry {
    char id[SE_CASE_ID_SIZE];
    const json_t *j;
    int n_scopes;
} entry;

static se_status list_entries(const se_rundata *rd, entry **out, size_t *n, se_err *err)
{
    const json_t *cases = json_object_get(rd->summary, "cases");
    const json_t *controls = json_object_get(rd->summary, "controls");
    size_t total = json_array_size(cases) + json_array_size(controls), k = 0, i;
    entry *v = calloc(total + 1, sizeof *v);
    if (!v)
        return se_fail(err, SE_ERR_NOMEM, "compare: out of memory");
    json_t *c;
    json_array_foreach(cases, i, c) {
        se_case_id_make(json_integer_value(json_object_get(c, "rows")),
                        json_integer_value(json_object_get(c, "cols")),
                        se_json_str(c, "what", "?"), v[k].id, sizeof v[k].id);
        v[k].j = c;
        v[k++].n_scopes = SE_NSCOPES;
    }
    json_array_foreach(controls, i, c) {
        snprintf(v[k].id, sizeof v[k].id, "%s", se_json_str(c, "case", "?"));
        v[k].j = c;
        v[k++].n_scopes = 1;
    }
    *out = v;
    *n = k;
    return SE_OK;
}

static const entry *find_entry(const entry *v, size_t n, const char *id)
{
    for (size_t i = 0; i < n; i++)
        if (strcmp(v[i].id, id) == 0)
            return &v[i];
    return NULL;
}

/* The scope's sample times (ns) of an entry; *values is malloc'd. */
static se_status scope_values(const se_rundata *rd, const entry *e, int scope, double **values,
                              size_t *n, se_err *err)
{
    se_sample_set sets[SE_NSCOPES] = {{0}};
    const char *rel = se_json_str(e->j, "samples_file", NULL);
    if (!rel)
        return se_fail(err, SE_ERR_VALIDATION, "%s/%s: case %s has no samples_file", rd->dir,
                       SE_SUMMARY_JSON, e->id);
    se_status st = se_rundata_samples(rd, rel, sets, e->n_scopes, err);
    if (st == SE_OK) {
        *n = sets[scope].n;
        *values = malloc((*n + 1) * sizeof **values);
        if (!*values)
            st = se_fail(err, SE_ERR_NOMEM, "compare: out of memory");
        for (size_t i = 0; st == SE_OK && i < *n; i++)
            (*values)[i] = sets[scope].v[i].ns;
        if (st == SE_OK && *n == 0)
            st = se_fail(err, SE_ERR_VALIDATION, "%s/%s: no %s samples", rd->dir, rel,
                         se_scope_name((se_scope)scope));
        if (st != SE_OK) {
            free(*values);
            *values = NULL;
        }
    }
    for (int s = 0; s < SE_NSCOPES; s++)
        se_sample_set_free(&sets[s]);
    return st;
}

/* The entries of every run of a side, and the runs themselves. */
typedef struct side {
    const se_rundata *rd;
    size_t k;
    entry **e;
    size_t *n;
} side;

static void side_free(side *s)
{
    for (size_t r = 0; s->e && r < s->k; r++)
        free(s->e[r]);
    free(s->e);
    free(s->n);
    memset(s, 0, sizeof *s);
}

static se_status side_init(side *s, const se_rundata *rd, size_t k, se_err *err)
{
    memset(s, 0, sizeof *s);
    s->rd = rd;
    s->k = k;
    s->e = calloc(k, sizeof *s->e);
    s->n = calloc(k, sizeof *s->n);
    if (!s->e || !s->n) {
        side_free(s);
        return se_fail(err, SE_ERR_NOMEM, "compare: out of memory");
    }
    se_status st = SE_OK;
    for (size_t r = 0; r < k && st == SE_OK; r++)
        st = list_entries(&rd[r], &s->e[r], &s->n[r], err);
    if (st != SE_OK)
        side_free(s);
    return st;
}

/* A case's scope values in each run of a side that has it: v[0..*got-1]. */
static se_status side_values(const side *s, const char *id, int scope, double **v, size_t *n,
                             size_t *got, se_err *err)
{
    se_status st = SE_OK;
    *got = 0;
    for (size_t r = 0; r < s->k && st == SE_OK; r++) {
        const entry *e = find_entry(s->e[r], s->n[r], id);
        if (!e || scope >= e->n_scopes)
            continue;
        st = scope_values(&s->rd[r], e, scope, &v[*got], &n[*got], err);
        if (st == SE_OK)
            (*got)++;
    }
    return st;
}

/* The spread between a side's runs: max / min - 1 of their medians (0
 * with one run). */
static double spread_of(double *const *v, const size_t *n, size_t k)
{
    double lo = 0.0, hi = 0.0;
    for (size_t r = 0; r < k; r++) {
        double m = se_median(v[r], n[r]);
        if (r == 0 || m < lo)
            lo = m;
        if (r == 0 || m > hi)
            hi = m;
    }
    return k > 1 && lo > 0.0 ? hi / lo - 1.0 : 0.0;
}

/* The floor's noise of a case (a fraction), or -1 where it has none. */
static double floor_noise(const json_t *floor, const char *id)
{
    const json_t *c = json_object_get(json_object_get(floor, "cases"), id);
    const json_t *v = json_object_get(c, "noise_pct");
    return json_is_number(v) ? json_number_value(v) / 100.0 : -1.0;
}

/* One case of a pair: B's runs over A's. */
static se_status compare_case(const side *sa, const side *sb, const char *id, int scope,
                              const se_compare_opts *o, const json_t *floor, json_t **out,
                              se_err *err)
{
    *out = NULL;
    double **va = calloc(sa->k, sizeof *va), **vb = calloc(sb->k, sizeof *vb);
    size_t *na = calloc(sa->k, sizeof *na), *nb = calloc(sb->k, sizeof *nb), ka = 0, kb = 0;
    se_status st = va && vb && na && nb ? SE_OK : se_fail(err, SE_ERR_NOMEM, "compare: out of memory");
    if (st == SE_OK)
        st = side_values(sa, id, scope, va, na, &ka, err);
    if (st == SE_OK)
        st = side_values(sb, id, scope, vb, nb, &kb, err);
    se_ratio r;
    char key[SE_CASE_ID_SIZE + 160];
    snprintf(key, sizeof key, "compare:%s:%s/%s", sb->rd[0].run_id, id,
             se_scope_name((se_scope)scope));
    unsigned resamples = (unsigned)sa->rd[0].p.bootstrap_resamples;
    uint64_t seed = se_summary_seed(&sa->rd[0].p, key);
    if (st == SE_OK && ka == 1 && kb == 1)
        st = se_ratio_of_medians_independent(vb[0], nb[0], va[0], na[0], resamples, seed, &r, err);
    else if (st == SE_OK)
        st = se_ratio_of_run_sets((const double *const *)vb, nb, kb, (const double *const *)va,
                                  na, ka, resamples, seed, &r, err);
    if (st == SE_OK) {
        double runs_noise = spread_of(va, na, ka), b_noise = spread_of(vb, nb, kb);
        if (b_noise > runs_noise)
            runs_noise = b_noise;
        double fl = floor ? floor_noise(floor, id) : -1.0;
        int from_runs = ka > 1 || kb > 1;
        double noise = fl > runs_noise ? fl : runs_noise;
        const char *from = fl >= 0.0 && from_runs ? "floor+runs" : fl >= 0.0 ? "floor"
                           : from_runs ? "runs" : "none";
        const char *verdict = r.hi < 1.0 ? "faster" : r.lo > 1.0 ? "slower" : "unchanged";
        double a_med = 0.0, b_med = 0.0;
        size_t a_n = 0, b_n = 0;
        for (size_t i = 0; i < ka; i++)
            a_n += na[i];
        for (size_t i = 0; i < kb; i++)
            b_n += nb[i];
        if (ka == 1 && kb == 1) {
            a_med = se_median(va[0], na[0]);
            b_med = se_median(vb[0], nb[0]);
        } else {
            double m[SE_RUNSET_MAX_RUNS];
            for (size_t i = 0; i < ka; i++)
                m[i] = se_median(va[i], na[i]);
            a_med = se_median(m, ka);
            for (size_t i = 0; i < kb; i++)
                m[i] = se_median(vb[i], nb[i]);
            b_med = se_median(m, kb);
        }
        *out = json_pack("{s:s, s:f, s:f, s:I, s:I, s:I, s:I, s:f, s:[f, f], s:f, s:s, s:f, "
                         "s:s}", "case", id, "a_median_ns", a_med, "b_median_ns", b_med, "a_n",
                         (json_int_t)a_n, "b_n", (json_int_t)b_n, "a_runs", (json_int_t)ka,
                         "b_runs", (json_int_t)kb, "ratio", r.ratio, "ci95", r.lo, r.hi,
                         "change_pct", (r.ratio - 1.0) * 100.0, "verdict", verdict, "noise_pct",
                         noise * 100.0, "noise_from", from);
        if (o->fail_if_slower >= 0.0) {
            int over = r.lo > 1.0 + o->fail_if_slower / 100.0 && r.lo > 1.0 + noise;
            json_object_set_new(*out, "slower_than_gate", json_boolean(over));
        }
        if (!*out)
            st = se_fail(err, SE_ERR_NOMEM, "compare: out of memory");
    }
    if (st != SE_OK) {
        char why[sizeof err->msg];
        snprintf(why, sizeof why, "%s", err->msg);
        st = se_fail(err, st, "compare: %s: %s", id, why);
    }
    for (size_t i = 0; i < ka; i++)
        free(va[i]);
    for (size_t i = 0; i < kb; i++)
        free(vb[i]);
    free(va);
    free(vb);
    free(na);
    free(nb);
    return st;
}

/* One pair: B's runs (rb[0..kb-1]) against the baseline A's (ra[0..ka-1]);
 * the cases are those of A's first run that B's first run has too. */
static se_status compare_pair(const se_rundata *ra, size_t ka, const se_rundata *rb, size_t kb,
                              int scope, const se_compare_opts *o, const json_t *floor,
                              json_t **out, size_t *slower, se_err *err)
{
    /* Ratios between two operations' times would say nothing: every run of
     * the pair measures the baseline's workload. */
    const se_operation *op = se_rundata_operation(&ra[0]);
    for (size_t i = 0; i < ka + kb; i++) {
        const se_rundata *r = i < ka ? &ra[i] : &rb[i - ka];
        const se_operation *ro = se_rundata_operation(r);
        if (ro != op)
            return se_fail(err, SE_ERR_USAGE,
                           "%s measures %s (" SE_STRATEGIES_JSON "'s workload), %s measures %s: "
                           "compare takes runs of one workload",
                           ra[0].dir, op->name, r->dir, ro->name);
    }
    side sa, sb;
    se_status st = side_init(&sa, ra, ka, err);
    if (st != SE_OK)
        return st;
    st = side_init(&sb, rb, kb, err);
    if (st != SE_OK) {
        side_free(&sa);
        return st;
    }
    const entry *ea = sa.e[0], *eb = sb.e[0];
    size_t na = sa.n[0], nb = sb.n[0];
    json_t *cases = json_array(), *only_a = json_array(), *only_b = json_array();
    size_t faster = 0, slow = 0, same = 0, gated = 0;
    for (size_t i = 0; st == SE_OK && i < na; i++) {
        const entry *b = find_entry(eb, nb, ea[i].id);
        if (!b) {
            json_array_append_new(only_a, json_string(ea[i].id));
            continue;
        }
        if (scope >= ea[i].n_scopes || scope >= b->n_scopes)
            continue; /* run-level controls have the device scope only */
        json_t *c = NULL;
        st = compare_case(&sa, &sb, ea[i].id, scope, o, floor, &c, err);
        if (st != SE_OK)
            break;
        const char *v = se_json_str(c, "verdict", "");
        faster += strcmp(v, "faster") == 0;
        slow += strcmp(v, "slower") == 0;
        same += strcmp(v, "unchanged") == 0;
        gated += json_is_true(json_object_get(c, "slower_than_gate"));
        json_array_append_new(cases, c);
    }
    for (size_t i = 0; st == SE_OK && i < nb; i++)
        if (!find_entry(ea, na, eb[i].id))
            json_array_append_new(only_b, json_string(eb[i].id));
    size_t compared = 0;
    json_t *diffs = st == SE_OK ? env_diff(&ra[0], &rb[0], &compared) : NULL;
    side_free(&sa);
    side_free(&sb);
    if (st != SE_OK) {
        json_decref(cases);
        json_decref(only_a);
        json_decref(only_b);
        return st;
    }
    *slower += gated;
    json_t *a_ids = json_array(), *b_ids = json_array();
    for (size_t r = 0; r < ka; r++)
        json_array_append_new(a_ids, json_string(ra[r].run_id));
    for (size_t r = 0; r < kb; r++)
        json_array_append_new(b_ids, json_string(rb[r].run_id));
    *out = json_pack("{s:s, s:s, s:s, s:s, s:o, s:o, s:{s:I, s:o}, s:o, s:o, s:o, "
                     "s:{s:I, s:I, s:I, s:I}}",
                     "a", ra->dir, "b", rb->dir, "a_run_id", ra->run_id, "b_run_id", rb->run_id,
                     "a_runs", a_ids, "b_runs", b_ids,
                     "environment", "fields_compared", (json_int_t)compared, "differences", diffs,
                     "cases", cases, "only_in_a", only_a, "only_in_b", only_b, "summary", "faster",
                     (json_int_t)faster, "slower", (json_int_t)slow, "unchanged", (json_int_t)same,
                     "slower_than_gate", (json_int_t)gated);
    return *out ? SE_OK : se_fail(err, SE_ERR_NOMEM, "compare: out of memory");
}

/* Verifies and loads n runs; *rd has n entries, free with free_runs. */
static se_status load_runs(const char *const *dirs, size_t n, se_rundata **rd, se_err *err)
{
    *rd = NULL;
    se_status st = SE_OK;
    for (size_t i = 0; i < n && st == SE_OK; i++)
        st = se_verify_first(dirs[i], "compare", "it is not compared", err);
    if (st != SE_OK)
        return st;
    *rd = calloc(n ? n : 1, sizeof **rd);
    if (!*rd)
        return se_fail(err, SE_ERR_NOMEM, "compare: out of memory");
    size_t loaded = 0;
    for (; loaded < n && st == SE_OK; loaded++)
        st = se_rundata_load(dirs[loaded], &(*rd)[loaded], err);
    if (st != SE_OK) {
        for (size_t i = 0; i + 1 < loaded; i++) /* the one that failed needs no freeing */
            se_rundata_free(&(*rd)[i]);
        free(*rd);
        *rd = NULL;
    }
    return st;
}

static void free_runs(se_rundata *rd, size_t n)
{
    for (size_t i = 0; rd && i < n; i++)
        se_rundata_free(&rd[i]);
    free(rd);
}

static int scope_index(const char *name)
{
    for (int s = 0; s < SE_NSCOPES; s++)
        if (strcmp(name, se_scope_name((se_scope)s)) == 0)
            return s;
    return -1;
}

/* A floor file for the scope: {"cases": {id: {"noise_pct": x, ...}}}. */
static se_status load_floor(const char *path, const char *scope, json_t **out, se_err *err)
{
    json_t *j = NULL;
    se_status st = se_json_load(path, path, SE_FLOOR_FORMAT, 1, NULL, &j, err);
    if (st != SE_OK)
        return st;
    const char *fs = se_json_str(j, "scope", NULL);
    const json_t *cases = json_object_get(j, "cases");
    if (!fs || strcmp(fs, scope) != 0)
        st = se_fail(err, SE_ERR_USAGE, "%s: field 'scope': the floor is of scope '%s', the "
                     "comparison's is '%s'", path, fs ? fs : "?", scope);
    else if (!json_is_object(cases))
        st = se_fail(err, SE_ERR_VALIDATION, "%s: field 'cases': expected an object, got %s",
                     path, se_json_type_name(cases));
    const char *id;
    json_t *c;
    json_object_foreach((json_t *)cases, id, c) {
        if (st != SE_OK)
            break;
        double v = 0.0;
        char where[SE_CASE_ID_SIZE + 4200];
        snprintf(where, sizeof where, "%s: cases.%s", path, id);
        st = se_json_get_real(c, "noise_pct", &v, where, err);
        if (st == SE_OK && !(v >= 0.0 && v <= 1000.0))
            st = se_fail(err, SE_ERR_VALIDATION, "%s: field 'noise_pct': %g is not 0 to 1000",
                         where, v);
    }
    if (st != SE_OK) {
        json_decref(j);
        return st;
    }
    *out = j;
    return SE_OK;
}

/* The runs' directories: positional, or the two sets. */
typedef struct run_lists {
    se_runset a, b;
} run_lists;

se_status se_compare_build(const char *const *dirs, size_t n, const se_compare_opts *o,
                           json_t **out, size_t *slower, se_err *err)
{
    *out = NULL;
    *slower = 0;
    int sets = o->a_set != NULL;
    if (!sets && n < 2)
        return se_fail(err, SE_ERR_USAGE, "compare: needs two runs or more (RUN_A RUN_B [RUN...])");
    if (sets && (!o->b_set || n != 0))
        return se_fail(err, SE_ERR_USAGE, "compare: --a-set and --b-set go together, without "
                       "run directories");
    int scope = scope_index(o->scope);
    if (scope < 0)
        return se_fail(err, SE_ERR_USAGE, "compare: --scope: '%s' is not device, device_cold, "
                       "batch or host", o->scope);
    run_lists l;
    memset(&l, 0, sizeof l);
    se_status st = SE_OK;
    if (sets) {
        st = se_runset_load(o->a_set, &l.a, err);
        if (st == SE_OK)
            st = se_runset_load(o->b_set, &l.b, err);
        if (st != SE_OK) {
            se_runset_free(&l.a);
            return st;
        }
    }
    json_t *floor = NULL;
    if (o->floor)
        st = load_floor(o->floor, o->scope, &floor, err);
    se_rundata *ra = NULL, *rb = NULL;
    size_t ka = sets ? l.a.n : n, kb = sets ? l.b.n : 0;
    if (st == SE_OK)
        st = load_runs(sets ? (const char *const *)l.a.dirs : dirs, ka, &ra, err);
    if (st == SE_OK && sets)
        st = load_runs((const char *const *)l.b.dirs, kb, &rb, err);
    json_t *pairs = json_array();
    if (st == SE_OK && sets) {
        json_t *pair = NULL;
        st = compare_pair(ra, ka, rb, kb, scope, o, floor, &pair, slower, err);
        if (st == SE_OK)
            json_array_append_new(pairs, pair);
    }
    for (size_t i = 1; !sets && i < n && st == SE_OK; i++) {
        json_t *pair = NULL;
        st = compare_pair(&ra[0], 1, &ra[i], 1, scope, o, floor, &pair, slower, err);
        if (st == SE_OK)
            json_array_append_new(pairs, pair);
    }
    free_runs(ra, ka);
    free_runs(rb, kb);
    se_runset_free(&l.a);
    se_runset_free(&l.b);
    if (st != SE_OK) {
        json_decref(pairs);
        json_decref(floor);
        return st;
    }
    *out = json_pack("{s:s, s:i, s:s, s:s, s:s, s:s, s:o}", "format", SE_COMPARE_FORMAT,
                     "version", SE_COMPARE_VERSION, "scope", o->scope, "ratio",
                     sets ? "median over B's runs of their medians / the same over A's"
                          : "median(B) / median(A)",
                     "interval", sets ? "two-level bootstrap 95% percentile interval (runs, "
                     "then samples within each run), A and B independent; resamples and seed "
                     "from the baseline's protocol" : "bootstrap 95% percentile interval, A and "
                     "B resampled independently; resamples and seed from the baseline's protocol",
                     "noise", "per case, the larger of the floor's noise_pct and each side's "
                     "spread between its runs (max / min - 1 of the run medians); the gate "
                     "needs the interval's lower bound above 1 + gate and above 1 + noise",
                     "comparisons", pairs);
    if (o->fail_if_slower >= 0.0)
        json_object_set_new(*out, "fail_if_slower_pct", json_real(o->fail_if_slower));
    if (floor)
        json_object_set_new(*out, "floor", json_string(o->floor));
    json_decref(floor);
    return SE_OK;
}

se_status se_compare_record_floor(const char *const *dirs, size_t n, const char *set,
                                  const char *scope_name, const char *out_path, size_t *cases,
                                  se_err *err)
{
    *cases = 0;
    int scope = scope_index(scope_name);
    if (scope < 0)
        return se_fail(err, SE_ERR_USAGE, "compare: --scope: '%s' is not device, device_cold, "
                       "batch or host", scope_name);
    se_runset rs;
    memset(&rs, 0, sizeof rs);
    se_status st = set ? se_runset_load(set, &rs, err) : SE_OK;
    if (st != SE_OK)
        return st;
    if (set) {
        dirs = (const char *const *)rs.dirs;
        n = rs.n;
    }
    if (n < 2 || n > SE_RUNSET_MAX_RUNS) {
        se_runset_free(&rs);
        return se_fail(err, SE_ERR_USAGE, "compare: --record-floor: needs 2 to %d runs of one "
                       "commit (got %zu)", SE_RUNSET_MAX_RUNS, n);
    }
    se_rundata *rd = NULL;
    st = load_runs(dirs, n, &rd, err);
    /* One commit, one protocol, one GPU model: a floor of the noise between
     * reruns, not of a change. */
    static const char *const same[] = {"source.git_commit", "source.git_dirty", "gpu.name"};
    for (size_t r = 1; st == SE_OK && r < n; r++)
        for (size_t f = 0; f < 3 && st == SE_OK; f++)
            if (!json_equal(se_json_path(rd[0].env, same[f]), se_json_path(rd[r].env, same[f])))
                st = se_fail(err, SE_ERR_USAGE, "compare: --record-floor: %s's %s differs from "
                             "%s's: a noise floor is made of reruns of one commit on one GPU "
                             "model", rd[r].dir, same[f], rd[0].dir);
    for (size_t r = 1; st == SE_OK && r < n; r++)
        st = se_rundata_same_workload(&rd[0], &rd[r], err);
    side s;
    int have_side = 0;
    if (st == SE_OK && (st = side_init(&s, rd, n, err)) == SE_OK)
        have_side = 1;
    json_t *cj = json_object(), *ids = json_array();
    for (size_t i = 0; have_side && st == SE_OK && i < s.n[0]; i++) {
        const entry *e = &s.e[0][i];
        if (scope >= e->n_scopes)
            continue;
        double *v[SE_RUNSET_MAX_RUNS];
        size_t nv[SE_RUNSET_MAX_RUNS], got = 0;
        st = side_values(&s, e->id, scope, v, nv, &got, err);
        if (st == SE_OK && got == n) {
            json_t *meds = json_array();
            for (size_t r = 0; r < got; r++)
                json_array_append_new(meds, json_real(se_median(v[r], nv[r])));
            json_object_set_new(cj, e->id, json_pack("{s:f, s:o}", "noise_pct",
                                                     spread_of(v, nv, got) * 100.0,
                                                     "medians_ns", meds));
            (*cases)++;
        }
        for (size_t r = 0; r < got; r++)
            free(v[r]);
    }
    for (size_t r = 0; st == SE_OK && r < n; r++)
        json_array_append_new(ids, json_string(rd[r].run_id));
    json_t *doc = NULL;
    if (st == SE_OK)
        doc = json_pack("{s:s, s:i, s:s, s:O, s:O, s:s, s:O, s:O}", "format", SE_FLOOR_FORMAT,
                        "version", 1, "scope", scope_name, "git_commit",
                        se_json_path(rd[0].env, "source.git_commit") ?: json_null(), "gpu",
                        se_json_path(rd[0].env, "gpu.name") ?: json_null(), "noise",
                        "per case, max / min - 1 of the runs' medians, in percent", "runs", ids,
                        "cases", cj);
    if (st == SE_OK && !doc)
        st = se_fail(err, SE_ERR_NOMEM, "compare: out of memory");
    if (st == SE_OK)
        st = se_write_json_replace(out_path, doc, "compare: --record-floor", err);
    json_decref(doc);
    json_decref(cj);
    json_decref(ids);
    if (have_side)
        side_free(&s);
    free_runs(rd, rd ? n : 0);
    se_runset_free(&rs);
    return st;
}
