/*
 * compare.c - runs compared case by case from their raw samples (see
 * compare.h).
 */
#include "bundle/compare.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bundle/paths.h"
#include "bundle/rundata.h"
#include "bundle/samples.h"
#include "bundle/summary.h"
#include "bundle/verify.h"
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
        json_array_append_new(diffs, json_pack("{s:s, s:O, s:O}", "field", "protocol.json sha256",
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

/* One pair: B (rb) against the baseline A (ra). */
static se_status compare_pair(const se_rundata *ra, const se_rundata *rb, int scope,
                              const se_compare_opts *o, json_t **out, size_t *slower, se_err *err)
{
    entry *ea = NULL, *eb = NULL;
    size_t na = 0, nb = 0;
    se_status st = list_entries(ra, &ea, &na, err);
    if (st == SE_OK)
        st = list_entries(rb, &eb, &nb, err);
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
        double *va = NULL, *vb = NULL;
        size_t ca = 0, cb = 0;
        st = scope_values(ra, &ea[i], scope, &va, &ca, err);
        if (st == SE_OK)
            st = scope_values(rb, b, scope, &vb, &cb, err);
        se_ratio r;
        char key[SE_CASE_ID_SIZE + 160];
        snprintf(key, sizeof key, "compare:%s:%s/%s", rb->run_id, ea[i].id,
                 se_scope_name((se_scope)scope));
        if (st == SE_OK)
            st = se_ratio_of_medians_independent(vb, cb, va, ca,
                                                 (unsigned)ra->p.bootstrap_resamples,
                                                 se_summary_seed(&ra->p, key), &r, err);
        if (st == SE_OK) {
            const char *verdict = r.hi < 1.0 ? "faster" : r.lo > 1.0 ? "slower" : "unchanged";
            faster += r.hi < 1.0;
            slow += r.lo > 1.0;
            same += !(r.hi < 1.0) && !(r.lo > 1.0);
            int over = o->fail_if_slower >= 0.0 && r.lo > 1.0 + o->fail_if_slower / 100.0;
            gated += over;
            json_t *c = json_pack("{s:s, s:f, s:f, s:I, s:I, s:f, s:[f, f], s:f, s:s}", "case",
                                  ea[i].id, "a_median_ns", se_median(va, ca), "b_median_ns",
                                  se_median(vb, cb), "a_n", (json_int_t)ca, "b_n",
                                  (json_int_t)cb, "ratio", r.ratio, "ci95", r.lo, r.hi,
                                  "change_pct", (r.ratio - 1.0) * 100.0, "verdict", verdict);
            if (o->fail_if_slower >= 0.0)
                json_object_set_new(c, "slower_than_gate", json_boolean(over));
            json_array_append_new(cases, c);
        } else {
            char why[sizeof err->msg];
            snprintf(why, sizeof why, "%s", err->msg);
            st = se_fail(err, st, "compare: %s: %s", ea[i].id, why);
        }
        free(va);
        free(vb);
    }
    for (size_t i = 0; st == SE_OK && i < nb; i++)
        if (!find_entry(ea, na, eb[i].id))
            json_array_append_new(only_b, json_string(eb[i].id));
    size_t compared = 0;
    json_t *diffs = st == SE_OK ? env_diff(ra, rb, &compared) : NULL;
    free(ea);
    free(eb);
    if (st != SE_OK) {
        json_decref(cases);
        json_decref(only_a);
        json_decref(only_b);
        return st;
    }
    *slower += gated;
    *out = json_pack("{s:s, s:s, s:s, s:s, s:{s:I, s:o}, s:o, s:o, s:o, s:{s:I, s:I, s:I, s:I}}",
                     "a", ra->dir, "b", rb->dir, "a_run_id", ra->run_id, "b_run_id", rb->run_id,
                     "environment", "fields_compared", (json_int_t)compared, "differences", diffs,
                     "cases", cases, "only_in_a", only_a, "only_in_b", only_b, "summary", "faster",
                     (json_int_t)faster, "slower", (json_int_t)slow, "unchanged", (json_int_t)same,
                     "slower_than_gate", (json_int_t)gated);
    return *out ? SE_OK : se_fail(err, SE_ERR_NOMEM, "compare: out of memory");
}

se_status se_compare_build(const char *const *dirs, size_t n, const se_compare_opts *o,
                           json_t **out, size_t *slower, se_err *err)
{
    *out = NULL;
    *slower = 0;
    if (n < 2)
        return se_fail(err, SE_ERR_USAGE, "compare: needs two runs or more (RUN_A RUN_B [RUN...])");
    int scope = -1;
    for (int s = 0; s < SE_NSCOPES; s++)
        if (strcmp(o->scope, se_scope_name((se_scope)s)) == 0)
            scope = s;
    if (scope < 0)
        return se_fail(err, SE_ERR_USAGE, "compare: --scope: '%s' is not device, device_cold, "
                       "batch or host", o->scope);
    se_status st = SE_OK;
    for (size_t i = 0; i < n && st == SE_OK; i++)
        st = se_verify_first(dirs[i], "compare", "it is not compared", err);
    if (st != SE_OK)
        return st;
    se_rundata *rd = calloc(n, sizeof *rd);
    if (!rd)
        return se_fail(err, SE_ERR_NOMEM, "compare: out of memory");
    size_t loaded = 0;
    for (; loaded < n && st == SE_OK; loaded++)
        st = se_rundata_load(dirs[loaded], &rd[loaded], err);
    if (st != SE_OK)
        loaded--; /* the one that failed needs no freeing */
    json_t *pairs = json_array();
    for (size_t i = 1; i < n && st == SE_OK; i++) {
        json_t *pair = NULL;
        st = compare_pair(&rd[0], &rd[i], scope, o, &pair, slower, err);
        if (st == SE_OK)
            json_array_append_new(pairs, pair);
    }
    for (size_t i = 0; i < loaded; i++)
        se_rundata_free(&rd[i]);
    free(rd);
    if (st != SE_OK) {
        json_decref(pairs);
        return st;
    }
    *out = json_pack("{s:s, s:i, s:s, s:s, s:s, s:o}", "format", SE_COMPARE_FORMAT, "version",
                     SE_COMPARE_VERSION, "scope", o->scope, "ratio", "median(B) / median(A)",
                     "interval", "bootstrap 95% percentile interval, A and B resampled "
                     "independently; resamples and seed from the baseline's protocol",
                     "comparisons", pairs);
    if (o->fail_if_slower >= 0.0)
        json_object_set_new(*out, "fail_if_slower_pct", json_real(o->fail_if_slower));
    return SE_OK;
}
