/*
 * derived.c - summary.json's derived results (see derived.h). The choices
 * are the ones the table and the report made before they moved here: the
 * best peer of a shape is the smallest device median among cuDNN (when it
 * passed validation) and the torch peers whose status is "ok", the first
 * met winning a tie; our fastest is the smallest among the validated
 * strategies that are not a reference; the fastest tiled strategy is the
 * smallest among the tiled ones, validated or not.
 */
#define _POSIX_C_SOURCE 200809L
#include "bundle/derived.h"

#include <string.h>
#include <unistd.h>

#include "model/json.h"
#include "bundle/paths.h"
#include "bundle/peers.h"
#include "bundle/samples.h"
#include "bundle/summary.h"
#include "model/strategy.h"

static const json_t *device_of(const json_t *c)
{
    return json_object_get(json_object_get(c, "scopes"), "device");
}

static double median_of(const json_t *d)
{
    return json_number_value(json_object_get(d, "median_ns"));
}

static int on_shape(const json_t *o, const se_shape *s)
{
    return json_integer_value(json_object_get(o, "rows")) == s->rows &&
           json_integer_value(json_object_get(o, "cols")) == s->cols;
}

/* validation.json's pass flag of a case. */
static int passed(const json_t *validation, const char *case_id)
{
    size_t i;
    json_t *v;
    json_array_foreach(json_object_get(validation, "cases"), i, v) {
        const char *c = json_string_value(json_object_get(v, "case"));
        if (c && strcmp(c, case_id) == 0)
            return json_is_true(json_object_get(v, "pass"));
    }
    return 0;
}

/* A copy of o's field key, or null. */
static json_t *field(const json_t *o, const char *key)
{
    json_t *v = json_object_get(o, key);
    return v ? json_deep_copy(v) : json_null();
}

/* best / median, or null when there is no best peer or no positive median. */
static json_t *vs(const json_t *best, double median)
{
    return best && median > 0.0 ? json_real(median_of(best) / median) : json_null();
}

/* {"strategy", "median_ns", "fraction_of_copy"} of a summary case. */
static json_t *pick(const json_t *c)
{
    if (!c)
        return json_null();
    const json_t *d = device_of(c);
    return json_pack("{s:O, s:O, s:o}", "strategy", json_object_get(c, "what"), "median_ns",
                     json_object_get(d, "median_ns"), "fraction_of_copy",
                     field(d, "fraction_of_copy"));
}

static json_t *shape_json(const se_protocol *p, const se_shape *s, const json_t *summary,
                          const json_t *validation, const json_t *peers)
{
    const json_t *cases = json_object_get(summary, "cases");
    size_t i;
    json_t *c;

    /* The best peer first: every case's vs_best_peer divides by it. */
    const json_t *best = NULL;
    const char *best_name = NULL;
    json_array_foreach(cases, i, c) {
        const char *what = json_string_value(json_object_get(c, "what"));
        const se_strategy_info *info = se_protocol_strategy_named(p, what);
        const json_t *d = device_of(c);
        if (!on_shape(c, s) || !info || !d || info->role != SE_ROLE_REFERENCE ||
            !passed(validation, json_string_value(json_object_get(c, "case"))))
            continue;
        if (!best || median_of(d) < median_of(best)) {
            best = d;
            best_name = what;
        }
    }
    json_array_foreach(json_object_get(peers, "peers"), i, c) {
        const json_t *d = json_object_get(c, "summary");
        const char *status = json_string_value(json_object_get(c, "status"));
        if (!status || strcmp(status, "ok") != 0 || !on_shape(c, s) || !d)
            continue;
        if (!best || median_of(d) < median_of(best)) {
            best = d;
            best_name = json_string_value(json_object_get(c, "peer"));
        }
    }

    json_t *arr = json_array();
    const json_t *copy = NULL, *tiled = NULL, *ours = NULL, *cudnn = NULL;
    json_array_foreach(cases, i, c) {
        if (!on_shape(c, s))
            continue;
        const char *what = json_string_value(json_object_get(c, "what"));
        const char *cid = json_string_value(json_object_get(c, "case"));
        const se_strategy_info *info = se_protocol_strategy_named(p, what);
        const json_t *d = device_of(c);
        const json_t *r = json_object_get(d, "time_ratio_to_stream");
        double m = median_of(d);
        int pass = info && cid && passed(validation, cid);
        if (what && strcmp(what, "copy") == 0)
            copy = c;
        if (info && info->tiled && (!tiled || m < median_of(device_of(tiled))))
            tiled = c;
        if (info && info->role != SE_ROLE_REFERENCE && pass &&
            (!ours || m < median_of(device_of(ours))))
            ours = c;
        if (info && info->role == SE_ROLE_REFERENCE && !cudnn)
            cudnn = c;
        int mk_init = se_stable_is_init_control(se_protocol_table(p), what);
        json_array_append_new(
            arr, json_pack("{s:O, s:O, s:s, s:o, s:o, s:o, s:o, s:o, s:o}", "case",
                           json_object_get(c, "case"), "strategy", json_object_get(c, "what"),
                           "role", info ? se_role_name(info->role) : "control", "validated",
                           info ? json_boolean(pass) : json_null(), "median_ns",
                           field(d, "median_ns"), "ratio_to_stream",
                           r ? field(r, "ratio") : json_null(),
                           "ratio_ci95", r ? field(r, "ci95") : json_null(), "fraction_of_copy",
                           field(d, "fraction_of_copy"), "vs_best_peer",
                           mk_init ? json_null() : vs(best, m)));
    }

    json_t *peer_arr = json_array();
    json_array_foreach(json_object_get(peers, "peers"), i, c) {
        if (!on_shape(c, s))
            continue;
        const json_t *d = json_object_get(c, "summary");
        const char *status = json_string_value(json_object_get(c, "status"));
        int ok = status && strcmp(status, "ok") == 0;
        json_array_append_new(
            peer_arr, json_pack("{s:O, s:O, s:o, s:o, s:o}", "peer", json_object_get(c, "peer"),
                                "status", json_object_get(c, "status"), "median_ns",
                                d ? field(d, "median_ns") : json_null(), "fraction_of_copy",
                                d ? field(d, "fraction_of_copy") : json_null(), "vs_best_peer",
                                ok && d ? vs(best, median_of(d)) : json_null()));
    }

    json_t *ft = pick(tiled);
    if (tiled) {
        double cm = cudnn ? median_of(device_of(cudnn)) : 0.0;
        json_object_set_new(ft, "over_cudnn",
                            cm > 0.0 ? json_real(median_of(device_of(tiled)) / cm) : json_null());
    }
    json_t *bp = json_null();
    if (best)
        bp = json_pack("{s:s, s:O, s:o}", "name", best_name ? best_name : "?", "median_ns",
                       json_object_get(best, "median_ns"), "vs_best_peer",
                       ours ? json_real(median_of(best) / median_of(device_of(ours)))
                            : json_null());
    char id[SE_CASE_ID_SIZE];
    se_shape_id(s->rows, s->cols, id, sizeof id);
    (void)p;
    return json_pack("{s:s, s:s, s:I, s:I, s:o, s:o, s:o, s:o, s:o, s:o}", "shape", s->spec, "id",
                     id, "rows", (json_int_t)s->rows, "cols", (json_int_t)s->cols, "copy_median_ns",
                     copy ? field(device_of(copy), "median_ns") : json_null(), "cases", arr,
                     "peers", peer_arr, "fastest_tiled", ft, "fastest_ours", pick(ours),
                     "best_peer", bp);
}

se_status se_derived_shapes(const se_protocol *p, const json_t *summary, const json_t *validation,
                            const json_t *peers, json_t **out, se_err *err)
{
    json_t *arr = json_array();
    for (size_t i = 0; arr && i < p->n_shapes; i++) {
        json_t *o = shape_json(p, &p->shapes[i], summary, validation, peers);
        if (!o || json_array_append_new(arr, o) != 0) {
            json_decref(arr);
            arr = NULL;
        }
    }
    *out = arr;
    return arr ? SE_OK : se_fail(err, SE_ERR_NOMEM, SE_SUMMARY_JSON ": derived: out of memory");
}

se_status se_derived_add(const se_protocol *p, json_t *summary, const json_t *validation,
                         const json_t *peers, se_err *err)
{
    json_t *shapes = NULL;
    se_status st = se_derived_shapes(p, summary, validation, peers, &shapes, err);
    if (st != SE_OK)
        return st;
    json_t *d = json_object_get(summary, "derived");
    if (!json_is_object(d)) {
        d = json_object();
        json_object_set_new(summary, "derived", d);
    }
    json_object_set_new(d, "shapes", shapes);
    json_object_set_new(summary, "version", json_integer(SE_SUMMARY_VERSION_DERIVED));
    return SE_OK;
}

se_status se_derived_add_dir(const se_protocol *p, const char *dir, json_t *summary, se_err *err)
{
    char path[4400];
    json_t *validation = NULL, *peers = NULL;
    se_path_join(dir, SE_VALIDATION_JSON, path, sizeof path);
    se_status st = se_json_load(path, SE_VALIDATION_JSON, SE_VALIDATION_FORMAT, 1, NULL,
                                &validation, err);
    se_path_join(dir, SE_PEERS_FILE, path, sizeof path);
    if (st == SE_OK && access(path, F_OK) == 0) /* a run without peers.json has no peers */
        st = se_json_load(path, SE_PEERS_FILE, SE_PEERS_FORMAT, SE_PEERS_VERSION, NULL, &peers, err);
    if (st == SE_OK)
        st = se_derived_add(p, summary, validation, peers, err);
    json_decref(validation);
    json_decref(peers);
    return st;
}
