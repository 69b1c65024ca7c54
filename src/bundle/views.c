/*
 * views.c - the typed views of a run's JSON (see views.h): each field read
 * once through json_unpack_ex, so a value of the wrong type is refused with
 * jansson's own words and the file and field named here.
 */
#include "bundle/views.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bundle/paths.h"

/* Where a field is: its file and the path of the object holding it. */
typedef struct at {
    const char *file;
    char path[160]; /* "cases[3].scopes.device", "" for the top */
    se_err *err;
} at;

static at at_sub(const at *a, const char *fmt, const char *key, size_t i)
{
    at s = *a;
    char tail[96];
    snprintf(tail, sizeof tail, fmt, key, i);
    int n = snprintf(s.path, sizeof s.path, "%s%s%s", a->path,
                     a->path[0] && tail[0] != '[' ? "." : "", tail);
    if (n < 0 || (size_t)n >= sizeof s.path)
        s.path[sizeof s.path - 1] = '\0'; /* cut short: still names the file */
    return s;
}

/* The object at key of o ("%s"), or entry i of array key ("%s[%zu]"). */
static at at_key(const at *a, const char *key)
{
    return at_sub(a, "%s", key, 0);
}

static at at_index(const at *a, const char *key, size_t i)
{
    return at_sub(a, "%s[%zu]", key, i);
}

static se_status refuse(const at *a, const char *key, const char *why)
{
    return se_fail(a->err, SE_ERR_VALIDATION, "%s: field '%s%s%s': %s", a->file, a->path,
                   a->path[0] ? "." : "", key, why);
}

/* o[key] unpacked with fmt into out; absent or null leaves *has 0. */
static se_status field(const at *a, const json_t *o, const char *key, const char *fmt, void *out,
                       int *has)
{
    const json_t *v = json_object_get(o, key);
    if (has)
        *has = 0;
    if (!v || json_is_null(v))
        return SE_OK;
    json_error_t je;
    if (json_unpack_ex((json_t *)v, &je, 0, fmt, out) != 0)
        return refuse(a, key, je.text);
    if (has)
        *has = 1;
    return SE_OK;
}

static se_status num(const at *a, const json_t *o, const char *key, double *out, int *has)
{
    return field(a, o, key, "F", out, has);
}

static se_status integer(const at *a, const json_t *o, const char *key, long long *out)
{
    json_int_t v = 0;
    se_status st = field(a, o, key, "I", &v, NULL);
    *out = (long long)v;
    return st;
}

static se_status str(const at *a, const json_t *o, const char *key, const char **out)
{
    *out = NULL;
    return field(a, o, key, "s", out, NULL);
}

/* 1, 0, or -1 where absent or null. */
static se_status flag(const at *a, const json_t *o, const char *key, int *out)
{
    int has = 0, v = 0;
    se_status st = field(a, o, key, "b", &v, &has);
    *out = has ? v : -1;
    return st;
}

/* [lo, hi]: an array of exactly two numbers. */
static se_status pair(const at *a, const json_t *o, const char *key, double out[2], int *has)
{
    const json_t *v = json_object_get(o, key);
    *has = 0;
    if (!v || json_is_null(v))
        return SE_OK;
    json_error_t je;
    if (json_unpack_ex((json_t *)v, &je, 0, "[FF!]", &out[0], &out[1]) != 0) {
        char why[sizeof je.text + 48];
        snprintf(why, sizeof why, "expected [lo, hi], two numbers (%s)", je.text);
        return refuse(a, key, why);
    }
    *has = 1;
    return SE_OK;
}

/* o[key] as an object (or absent/null: NULL). */
static se_status object(const at *a, const json_t *o, const char *key, const json_t **out)
{
    *out = NULL;
    json_t *v = NULL;
    se_status st = field(a, o, key, "o", &v, NULL);
    if (st == SE_OK && v && !json_is_object(v))
        return refuse(a, key, "expected an object");
    *out = v;
    return st;
}

/* o[key] as an array, its size in *n (absent/null: NULL, 0). */
static se_status array(const at *a, const json_t *o, const char *key, const json_t **out,
                       size_t *n)
{
    json_t *v = NULL;
    se_status st = field(a, o, key, "o", &v, NULL);
    if (st == SE_OK && v && !json_is_array(v))
        return refuse(a, key, "expected an array");
    *out = v;
    *n = json_array_size(v);
    return st;
}

/* Room for n entries of size each, zeroed (n may be 0). */
static se_status alloc(const at *a, size_t n, size_t size, void *out)
{
    void *p = calloc(n + 1, size);
    *(void **)out = p;
    return p ? SE_OK : se_fail(a->err, SE_ERR_NOMEM, "%s: out of memory", a->file);
}

/* ---- summaries ------------------------------------------------------------ */

static se_status scope_view(const at *a, const json_t *s, se_scope_view *v)
{
    memset(v, 0, sizeof *v);
    if (!s)
        return SE_OK;
    v->present = 1;
    static const struct {
        const char *key;
        size_t off;
    } nums[] = {
        {"median_ns", offsetof(se_scope_view, median_ns)},
        {"p5_ns", offsetof(se_scope_view, p5_ns)},
        {"p25_ns", offsetof(se_scope_view, p25_ns)},
        {"p75_ns", offsetof(se_scope_view, p75_ns)},
        {"p95_ns", offsetof(se_scope_view, p95_ns)},
        {"min_ns", offsetof(se_scope_view, min_ns)},
        {"max_ns", offsetof(se_scope_view, max_ns)},
        {"mean_ns", offsetof(se_scope_view, mean_ns)},
        {"stdev_ns", offsetof(se_scope_view, stdev_ns)},
    };
    se_status st = SE_OK;
    for (size_t i = 0; st == SE_OK && i < sizeof nums / sizeof nums[0]; i++)
        st = num(a, s, nums[i].key, (double *)((char *)v + nums[i].off), NULL);
    const json_t *r = NULL;
    if (st == SE_OK)
        st = integer(a, s, "n", &v->n);
    if (st == SE_OK)
        st = integer(a, s, "throttled", &v->throttled);
    if (st == SE_OK)
        st = pair(a, s, "median_ci95_ns", v->ci95_ns, &v->has_ci);
    if (st == SE_OK)
        st = str(a, s, "l2", &v->l2);
    if (st == SE_OK)
        st = num(a, s, "gbps", &v->gbps, &v->has_gbps);
    if (st == SE_OK)
        st = num(a, s, "fraction_of_copy", &v->fraction_of_copy, &v->has_fraction);
    if (st == SE_OK)
        st = object(a, s, "time_ratio_to_stream", &r);
    if (st == SE_OK && r) {
        at ra = at_key(a, "time_ratio_to_stream");
        int has = 0;
        v->has_ratio = 1;
        st = num(&ra, r, "ratio", &v->ratio, NULL);
        if (st == SE_OK)
            st = pair(&ra, r, "ci95", v->ratio_ci95, &has);
    }
    return st;
}

static se_status case_view(const at *a, const json_t *c, se_case_view *v)
{
    if (!json_is_object(c))
        return se_fail(a->err, SE_ERR_VALIDATION, "%s: field '%s': expected an object", a->file,
                       a->path);
    const char **strs[] = {&v->id, &v->what, &v->shape, &v->launch, &v->mechanism,
                           &v->samples_file};
    static const char *const keys[] = {"case", "what", "shape", "launch", "mechanism",
                                       "samples_file"};
    se_status st = SE_OK;
    for (size_t i = 0; st == SE_OK && i < sizeof keys / sizeof keys[0]; i++)
        st = str(a, c, keys[i], strs[i]);
    if (st == SE_OK)
        st = integer(a, c, "rows", &v->rows);
    if (st == SE_OK)
        st = integer(a, c, "cols", &v->cols);
    if (st == SE_OK)
        st = integer(a, c, "tile", &v->tile);
    if (st == SE_OK)
        st = num(a, c, "bytes_moved", &v->bytes_moved, &v->has_bytes);
    const json_t *scopes = NULL;
    if (st == SE_OK)
        st = object(a, c, "scopes", &scopes);
    v->n_scopes = json_object_size(scopes);
    at sa = at_key(a, "scopes");
    for (int sc = 0; st == SE_OK && sc < SE_NSCOPES; sc++) {
        const char *name = se_scope_name((se_scope)sc);
        const json_t *s = NULL;
        st = object(&sa, scopes, name, &s);
        if (st == SE_OK) {
            at one = at_key(&sa, name);
            st = scope_view(&one, s, &v->scope[sc]);
        }
    }
    return st;
}

static se_status case_list(const at *a, const json_t *summary, const char *key,
                           se_case_view **out, size_t *n)
{
    const json_t *arr = NULL;
    se_status st = array(a, summary, key, &arr, n);
    if (st == SE_OK)
        st = alloc(a, *n, sizeof **out, out);
    for (size_t i = 0; st == SE_OK && i < *n; i++) {
        at e = at_index(a, key, i);
        st = case_view(&e, json_array_get(arr, i), &(*out)[i]);
    }
    return st;
}

/* ---- derived -------------------------------------------------------------- */

static se_status derived_case(const at *a, const json_t *c, se_derived_case_view *v)
{
    se_status st = str(a, c, "case", &v->id);
    if (st == SE_OK)
        st = str(a, c, "strategy", &v->strategy);
    if (st == SE_OK)
        st = str(a, c, "role", &v->role);
    if (st == SE_OK)
        st = flag(a, c, "validated", &v->validated);
    if (st == SE_OK)
        st = num(a, c, "median_ns", &v->median_ns, &v->has_median);
    if (st == SE_OK)
        st = num(a, c, "ratio_to_stream", &v->ratio_to_stream, &v->has_ratio);
    if (st == SE_OK)
        st = pair(a, c, "ratio_ci95", v->ratio_ci95, &v->has_ratio_ci);
    if (st == SE_OK)
        st = num(a, c, "fraction_of_copy", &v->fraction_of_copy, &v->has_fraction);
    if (st == SE_OK)
        st = num(a, c, "vs_best_peer", &v->vs_best_peer, &v->has_vs);
    return st;
}

static se_status derived_peer(const at *a, const json_t *c, se_derived_peer_view *v)
{
    se_status st = str(a, c, "peer", &v->peer);
    if (st == SE_OK)
        st = str(a, c, "status", &v->status);
    if (st == SE_OK)
        st = num(a, c, "median_ns", &v->median_ns, &v->has_median);
    if (st == SE_OK)
        st = num(a, c, "fraction_of_copy", &v->fraction_of_copy, &v->has_fraction);
    if (st == SE_OK)
        st = num(a, c, "vs_best_peer", &v->vs_best_peer, &v->has_vs);
    return st;
}

static se_status pick(const at *a, const json_t *shape, const char *key, se_pick_view *v)
{
    const json_t *o = NULL;
    se_status st = object(a, shape, key, &o);
    if (st != SE_OK || !o)
        return st;
    at p = at_key(a, key);
    v->present = 1;
    st = str(&p, o, "strategy", &v->strategy);
    if (st == SE_OK)
        st = num(&p, o, "median_ns", &v->median_ns, NULL);
    if (st == SE_OK)
        st = num(&p, o, "fraction_of_copy", &v->fraction_of_copy, &v->has_fraction);
    if (st == SE_OK)
        st = num(&p, o, "over_cudnn", &v->over_cudnn, &v->has_over_cudnn);
    return st;
}

static se_status best_peer(const at *a, const json_t *shape, se_best_peer_view *v)
{
    const json_t *o = NULL;
    se_status st = object(a, shape, "best_peer", &o);
    if (st != SE_OK || !o)
        return st;
    at p = at_key(a, "best_peer");
    v->present = 1;
    st = str(&p, o, "name", &v->name);
    if (st == SE_OK)
        st = num(&p, o, "median_ns", &v->median_ns, NULL);
    if (st == SE_OK)
        st = num(&p, o, "vs_best_peer", &v->vs_best_peer, &v->has_vs);
    return st;
}

static se_status derived_shape(const at *a, const json_t *s, se_derived_shape_view *v)
{
    const json_t *cases = NULL, *peers = NULL;
    se_status st = str(a, s, "shape", &v->shape);
    if (st == SE_OK)
        st = str(a, s, "id", &v->id);
    if (st == SE_OK)
        st = integer(a, s, "rows", &v->rows);
    if (st == SE_OK)
        st = integer(a, s, "cols", &v->cols);
    if (st == SE_OK)
        st = num(a, s, "copy_median_ns", &v->copy_median_ns, &v->has_copy_median);
    if (st == SE_OK)
        st = array(a, s, "cases", &cases, &v->n_cases);
    if (st == SE_OK)
        st = alloc(a, v->n_cases, sizeof *v->cases, &v->cases);
    for (size_t i = 0; st == SE_OK && i < v->n_cases; i++) {
        at e = at_index(a, "cases", i);
        st = derived_case(&e, json_array_get(cases, i), &v->cases[i]);
    }
    if (st == SE_OK)
        st = array(a, s, "peers", &peers, &v->n_peers);
    if (st == SE_OK)
        st = alloc(a, v->n_peers, sizeof *v->peers, &v->peers);
    for (size_t i = 0; st == SE_OK && i < v->n_peers; i++) {
        at e = at_index(a, "peers", i);
        st = derived_peer(&e, json_array_get(peers, i), &v->peers[i]);
    }
    if (st == SE_OK)
        st = pick(a, s, "fastest_tiled", &v->fastest_tiled);
    if (st == SE_OK)
        st = pick(a, s, "fastest_ours", &v->fastest_ours);
    if (st == SE_OK)
        st = best_peer(a, s, &v->best_peer);
    return st;
}

static se_status derived_view(const at *a, const json_t *d, se_run_views *v)
{
    const json_t *shapes = NULL, *g = NULL;
    se_status st = array(a, d, "shapes", &shapes, &v->n_shapes);
    if (st == SE_OK)
        st = alloc(a, v->n_shapes, sizeof *v->shapes, &v->shapes);
    for (size_t i = 0; st == SE_OK && i < v->n_shapes; i++) {
        at e = at_index(a, "shapes", i);
        st = derived_shape(&e, json_array_get(shapes, i), &v->shapes[i]);
    }
    if (st == SE_OK)
        st = object(a, d, "grid_barrier_ns", &g);
    if (st == SE_OK && g) {
        at ga = at_key(a, "grid_barrier_ns");
        se_grid_barrier_view *b = &v->grid_barrier;
        b->present = 1;
        st = num(&ga, g, "value", &b->value_ns, NULL);
        if (st == SE_OK)
            st = integer(&ga, g, "barriers", &b->barriers);
        if (st == SE_OK)
            st = str(&ga, g, "formula", &b->formula);
    }
    return st;
}

/* ---- peers.json, validation.json, environment.json, run.json, traces.json - */

static se_status peer_entry(const at *a, const json_t *e, se_peer_view *v)
{
    const char **strs[] = {&v->peer, &v->computes, &v->status, &v->reason, &v->error,
                           &v->samples_file, &v->input_sha256, &v->output_sha256};
    static const char *const keys[] = {"peer", "computes", "status", "reason", "error",
                                       "samples_file", "input_sha256", "output_sha256"};
    se_status st = SE_OK;
    for (size_t i = 0; st == SE_OK && i < sizeof keys / sizeof keys[0]; i++)
        st = str(a, e, keys[i], strs[i]);
    if (st == SE_OK)
        st = integer(a, e, "rows", &v->rows);
    if (st == SE_OK)
        st = integer(a, e, "cols", &v->cols);
    if (st == SE_OK)
        st = num(a, e, "max_rel_err", &v->max_rel_err, &v->has_max_rel_err);
    const json_t *s = NULL;
    if (st == SE_OK)
        st = object(a, e, "summary", &s);
    at sa = at_key(a, "summary");
    if (st == SE_OK)
        st = scope_view(&sa, s, &v->summary);
    return st;
}

static se_status peers_view(const json_t *pj, se_peers_view *v, se_err *err)
{
    if (!pj)
        return SE_OK;
    at a = {SE_PEERS_FILE, "", err};
    const json_t *env = NULL, *tol = NULL, *arr = NULL;
    v->present = 1;
    se_status st = str(&a, pj, "script", &v->script);
    if (st == SE_OK)
        st = str(&a, pj, "script_sha256", &v->script_sha256);
    if (st == SE_OK)
        st = str(&a, pj, "script_copy", &v->script_copy);
    if (st == SE_OK)
        st = str(&a, pj, "timing", &v->timing);
    if (st == SE_OK)
        st = object(&a, pj, "environment", &env);
    at ea = at_key(&a, "environment");
    if (st == SE_OK)
        st = str(&ea, env, "torch_version", &v->torch_version);
    if (st == SE_OK)
        st = str(&ea, env, "torch_cuda_version", &v->torch_cuda_version);
    if (st == SE_OK)
        st = str(&ea, env, "triton_version", &v->triton_version);
    if (st == SE_OK)
        st = str(&ea, env, "device_name", &v->device_name);
    if (st == SE_OK)
        st = object(&a, pj, "tolerance", &tol);
    at ta = at_key(&a, "tolerance");
    if (st == SE_OK)
        st = str(&ta, tol, "rule", &v->tolerance_rule);
    if (st == SE_OK)
        st = num(&ta, tol, "atol", &v->atol, NULL);
    if (st == SE_OK)
        st = num(&ta, tol, "rtol", &v->rtol, NULL);
    if (st == SE_OK)
        st = array(&a, pj, "peers", &arr, &v->n);
    if (st == SE_OK)
        st = alloc(&a, v->n, sizeof *v->v, &v->v);
    for (size_t i = 0; st == SE_OK && i < v->n; i++) {
        at e = at_index(&a, "peers", i);
        st = peer_entry(&e, json_array_get(arr, i), &v->v[i]);
    }
    return st;
}

static se_status validation_entry(const at *a, const json_t *c, se_validation_view *v)
{
    const char **strs[] = {&v->id, &v->strategy, &v->shape, &v->input_sha256,
                           &v->output_sha256};
    static const char *const keys[] = {"case", "strategy", "shape", "input_sha256",
                                       "output_sha256"};
    se_status st = SE_OK;
    for (size_t i = 0; st == SE_OK && i < sizeof keys / sizeof keys[0]; i++)
        st = str(a, c, keys[i], strs[i]);
    static const struct {
        const char *key;
        size_t off;
    } ints[] = {
        {"rows", offsetof(se_validation_view, rows)},
        {"cols", offsetof(se_validation_view, cols)},
        {"tile", offsetof(se_validation_view, tile)},
        {"blocks", offsetof(se_validation_view, blocks)},
        {"graph_nodes", offsetof(se_validation_view, graph_nodes)},
        {"elements", offsetof(se_validation_view, elements)},
        {"fails", offsetof(se_validation_view, fails)},
        {"nan", offsetof(se_validation_view, nan)},
        {"tiny", offsetof(se_validation_view, tiny)},
        {"vs_cudnn_fails", offsetof(se_validation_view, vs_cudnn_fails)},
    };
    for (size_t i = 0; st == SE_OK && i < sizeof ints / sizeof ints[0]; i++)
        st = integer(a, c, ints[i].key, (long long *)((char *)v + ints[i].off));
    if (st == SE_OK)
        st = num(a, c, "max_abs_err", &v->max_abs_err, NULL);
    if (st == SE_OK)
        st = num(a, c, "max_rel_err", &v->max_rel_err, NULL);
    if (st == SE_OK)
        st = num(a, c, "vs_cudnn_max_rel", &v->vs_cudnn_max_rel, &v->has_vs_cudnn);
    int pass = -1;
    if (st == SE_OK)
        st = flag(a, c, "pass", &pass);
    v->pass = pass == 1;
    if (st == SE_OK)
        st = flag(a, c, "repeat_identical", &v->repeat_identical);
    if (st == SE_OK)
        st = flag(a, c, "matches_tiled", &v->matches_tiled);
    return st;
}

static se_status validation_view(const json_t *val, se_run_views *v, se_err *err)
{
    at a = {SE_VALIDATION_JSON, "", err}, ta = at_key(&a, "tolerance");
    const json_t *arr = NULL, *tol = NULL;
    se_status st = object(&a, val, "tolerance", &tol);
    if (st == SE_OK)
        st = str(&ta, tol, "rule", &v->tolerance_rule);
    if (st == SE_OK)
        st = num(&ta, tol, "atol", &v->atol, NULL);
    if (st == SE_OK)
        st = num(&ta, tol, "rtol", &v->rtol, NULL);
    if (st == SE_OK)
        st = integer(&a, val, "invocations", &v->invocations);
    if (st == SE_OK)
        st = array(&a, val, "cases", &arr, &v->n_validation);
    if (st == SE_OK)
        st = alloc(&a, v->n_validation, sizeof *v->validation, &v->validation);
    for (size_t i = 0; st == SE_OK && i < v->n_validation; i++) {
        at e = at_index(&a, "cases", i);
        st = validation_entry(&e, json_array_get(arr, i), &v->validation[i]);
    }
    return st;
}

static se_status env_gpu(const at *a, const json_t *g, se_env_view *v)
{
    se_status st = str(a, g, "name", &v->gpu_name);
    if (st == SE_OK)
        st = str(a, g, "compute_capability", &v->compute_capability);
    if (st == SE_OK)
        st = integer(a, g, "sm_count", &v->sm_count);
    if (st == SE_OK)
        st = integer(a, g, "l2_bytes", &v->l2_bytes);
    if (st == SE_OK)
        st = integer(a, g, "global_memory_bytes", &v->global_memory_bytes);
    if (st == SE_OK)
        st = integer(a, g, "memory_bus_bits", &v->memory_bus_bits);
    if (st == SE_OK)
        st = num(a, g, "peak_sm_clock_mhz", &v->peak_sm_clock_mhz, NULL);
    if (st == SE_OK)
        st = num(a, g, "peak_memory_clock_mhz", &v->peak_memory_clock_mhz, NULL);
    return st;
}

/* Appends every leaf of o below prefix to v->fields (objects recurse, an
 * array is one leaf with its items). */
static se_status env_fields(const at *a, const json_t *o, const char *prefix, se_env_view *v)
{
    const char *key;
    json_t *x;
    se_status st = SE_OK;
    json_object_foreach((json_t *)o, key, x) {
        char name[sizeof v->fields[0].name];
        int w = snprintf(name, sizeof name, "%s%s%s", prefix, *prefix ? "." : "", key);
        if (w < 0 || (size_t)w >= sizeof name)
            name[sizeof name - 1] = '\0'; /* a long path is shown cut short */
        if (json_is_object(x)) {
            st = env_fields(a, x, name, v);
        } else {
            se_env_field *f = realloc(v->fields, (v->n_fields + 1) * sizeof *f);
            if (!f)
                return se_fail(a->err, SE_ERR_NOMEM, "%s: out of memory", a->file);
            v->fields = f;
            f = &v->fields[v->n_fields++];
            memset(f, 0, sizeof *f);
            memcpy(f->name, name, sizeof name);
            f->value = x;
            if (json_is_array(x)) {
                f->n_items = json_array_size(x);
                st = alloc(a, f->n_items, sizeof *f->items, &f->items);
                for (size_t i = 0; st == SE_OK && i < f->n_items; i++)
                    f->items[i] = json_array_get(x, i);
            }
        }
        if (st != SE_OK)
            return st;
    }
    return st;
}

static se_status env_view(const json_t *env, se_env_view *v, se_err *err)
{
    at a = {SE_ENVIRONMENT_JSON, "", err};
    const json_t *g = NULL, *sw = NULL, *src = NULL, *host = NULL, *timer = NULL;
    se_status st = object(&a, env, "gpu", &g);
    at ga = at_key(&a, "gpu"), sa = at_key(&a, "software"), ca = at_key(&a, "source");
    at ha = at_key(&a, "host"), ta = at_key(&a, "globaltimer");
    if (st == SE_OK)
        st = env_gpu(&ga, g, v);
    if (st == SE_OK)
        st = object(&a, env, "software", &sw);
    if (st == SE_OK)
        st = integer(&sa, sw, "driver_version", &v->driver_version);
    if (st == SE_OK)
        st = integer(&sa, sw, "runtime_version", &v->runtime_version);
    if (st == SE_OK)
        st = integer(&sa, sw, "cudnn_version", &v->cudnn_version);
    if (st == SE_OK)
        st = integer(&sa, sw, "cudnn_compiled_version", &v->cudnn_compiled_version);
    if (st == SE_OK)
        st = integer(&sa, sw, "curand_version", &v->curand_version);
    if (st == SE_OK)
        st = str(&sa, sw, "nvcc_version", &v->nvcc_version);
    if (st == SE_OK)
        st = str(&sa, sw, "cuda_architectures", &v->cuda_architectures);
    if (st == SE_OK)
        st = object(&a, env, "source", &src);
    if (st == SE_OK)
        st = str(&ca, src, "git_commit", &v->git_commit);
    if (st == SE_OK)
        st = str(&ca, src, "source_dir", &v->source_dir);
    int dirty = -1;
    if (st == SE_OK)
        st = flag(&ca, src, "git_dirty", &dirty);
    v->git_dirty = dirty == 1;
    if (st == SE_OK)
        st = object(&a, env, "host", &host);
    if (st == SE_OK)
        st = str(&ha, host, "hostname", &v->hostname);
    if (st == SE_OK)
        st = object(&a, env, "globaltimer", &timer);
    if (st == SE_OK)
        st = num(&ta, timer, "smallest_step_ns", &v->timer_step_ns, &v->has_timer_step);
    if (st == SE_OK)
        st = env_fields(&a, env, "", v);
    return st;
}

static se_status run_view(const json_t *run, se_run_view *v, se_err *err)
{
    at a = {SE_RUN_JSON, "", err};
    const json_t *pr = NULL;
    se_status st = str(&a, run, "started_utc", &v->started_utc);
    if (st == SE_OK)
        st = str(&a, run, "finished_utc", &v->finished_utc);
    if (st == SE_OK)
        st = str(&a, run, "status", &v->status);
    if (st == SE_OK)
        st = str(&a, run, "megakernel", &v->megakernel);
    if (st == SE_OK)
        st = str(&a, run, "interleaving", &v->interleaving);
    int blocking = -1;
    if (st == SE_OK)
        st = flag(&a, run, "blocking_kernel", &blocking);
    v->blocking_kernel = blocking == 1;
    if (st == SE_OK)
        st = object(&a, run, "protocol", &pr);
    at pa = at_key(&a, "protocol");
    if (st == SE_OK)
        st = str(&pa, pr, "source", &v->protocol_source);
    if (st == SE_OK)
        st = str(&pa, pr, "source_sha256", &v->protocol_sha256);
    if (st == SE_OK)
        st = str(&pa, pr, "bundle_copy_sha256", &v->bundle_copy_sha256);
    return st;
}

static se_status trace_entry(const at *a, const json_t *t, se_trace_view *v)
{
    static const struct {
        const char *key;
        size_t off;
    } counts[] = {
        {"tasks_expected", offsetof(se_trace_view, tasks_expected)},
        {"records", offsetof(se_trace_view, records)},
        {"invalid_count", offsetof(se_trace_view, invalid_count)},
        {"missing_count", offsetof(se_trace_view, missing_count)},
        {"duplicated_count", offsetof(se_trace_view, duplicated_count)},
        {"dependency_edges_checked", offsetof(se_trace_view, dependency_edges_checked)},
        {"order_violations_count", offsetof(se_trace_view, order_violations_count)},
        {"phase_barrier_violations_count",
         offsetof(se_trace_view, phase_barrier_violations_count)},
        {"span_ns", offsetof(se_trace_view, span_ns)},
    };
    se_status st = str(a, t, "case", &v->id);
    if (st == SE_OK)
        st = str(a, t, "kind", &v->kind);
    if (st == SE_OK)
        st = str(a, t, "verdict", &v->verdict);
    for (size_t i = 0; st == SE_OK && i < sizeof counts / sizeof counts[0]; i++)
        st = integer(a, t, counts[i].key, (long long *)((char *)v + counts[i].off));
    int checked = -1;
    if (st == SE_OK)
        st = flag(a, t, "phase_barriers_checked", &checked);
    v->phase_barriers_checked = checked == 1;
    const json_t *ov = NULL, *sm = NULL;
    if (st == SE_OK)
        st = object(a, t, "overlap", &ov);
    at oa = at_key(a, "overlap"), sa = at_key(a, "sm");
    if (st == SE_OK)
        st = num(&oa, ov, "fraction", &v->overlap_fraction, NULL);
    if (st == SE_OK)
        st = object(a, t, "sm", &sm);
    if (st == SE_OK)
        st = integer(&sa, sm, "sms_used", &v->sms_used);
    return st;
}

static se_status tracing_cost(const at *a, const json_t *c, se_tracing_cost_view *v)
{
    static const struct {
        const char *key;
        size_t off;
    } nums[] = {
        {"untraced_median_ns", offsetof(se_tracing_cost_view, untraced_median_ns)},
        {"traced_median_ns", offsetof(se_tracing_cost_view, traced_median_ns)},
        {"overhead_ns", offsetof(se_tracing_cost_view, overhead_ns)},
        {"overhead_fraction", offsetof(se_tracing_cost_view, overhead_fraction)},
    };
    se_status st = str(a, c, "case", &v->id);
    if (st == SE_OK)
        st = str(a, c, "untraced_samples_file", &v->untraced_samples_file);
    if (st == SE_OK)
        st = str(a, c, "traced_samples_file", &v->traced_samples_file);
    if (st == SE_OK)
        st = integer(a, c, "samples", &v->samples);
    for (size_t i = 0; st == SE_OK && i < sizeof nums / sizeof nums[0]; i++)
        st = num(a, c, nums[i].key, (double *)((char *)v + nums[i].off), NULL);
    return st;
}

static se_status traces_view(const json_t *tj, se_traces_view *v, se_err *err)
{
    at a = {SE_TRACES_JSON, "", err};
    const json_t *arr = NULL;
    se_status st = num(&a, tj, "globaltimer_resolution_ns", &v->timer_resolution_ns, NULL);
    if (st == SE_OK)
        st = array(&a, tj, "traces", &arr, &v->n);
    if (st == SE_OK)
        st = alloc(&a, v->n, sizeof *v->v, &v->v);
    for (size_t i = 0; st == SE_OK && i < v->n; i++) {
        at e = at_index(&a, "traces", i);
        st = trace_entry(&e, json_array_get(arr, i), &v->v[i]);
    }
    if (st == SE_OK)
        st = str(&a, tj, "note", &v->note);
    if (st == SE_OK)
        st = array(&a, tj, "tracing_cost", &arr, &v->n_cost);
    if (st == SE_OK)
        st = alloc(&a, v->n_cost, sizeof *v->cost, &v->cost);
    for (size_t i = 0; st == SE_OK && i < v->n_cost; i++) {
        at e = at_index(&a, "tracing_cost", i);
        st = tracing_cost(&e, json_array_get(arr, i), &v->cost[i]);
    }
    return st;
}

static se_status kernel_entry(const at *a, const json_t *k, se_kernel_view *v)
{
    static const struct {
        const char *key;
        size_t off;
    } ints[] = {
        {"block_threads", offsetof(se_kernel_view, block_threads)},
        {"registers", offsetof(se_kernel_view, registers)},
        {"shared_static_bytes", offsetof(se_kernel_view, shared_static_bytes)},
        {"local_bytes", offsetof(se_kernel_view, local_bytes)},
        {"const_bytes", offsetof(se_kernel_view, const_bytes)},
        {"max_blocks_per_sm", offsetof(se_kernel_view, max_blocks_per_sm)},
        {"ptx_version", offsetof(se_kernel_view, ptx_version)},
        {"binary_version", offsetof(se_kernel_view, binary_version)},
    };
    se_status st = str(a, k, "kernel", &v->kernel);
    if (st == SE_OK)
        st = str(a, k, "used_by", &v->used_by);
    for (size_t i = 0; st == SE_OK && i < sizeof ints / sizeof ints[0]; i++)
        st = integer(a, k, ints[i].key, (long long *)((char *)v + ints[i].off));
    return st;
}

static se_status launch_entry(const at *a, const json_t *l, se_launch_view *v)
{
    se_status st = str(a, l, "shape", &v->shape);
    if (st == SE_OK)
        st = str(a, l, "strategy", &v->strategy);
    if (st == SE_OK)
        st = str(a, l, "launch", &v->launch);
    if (st == SE_OK)
        st = integer(a, l, "graph_nodes", &v->graph_nodes);
    if (st == SE_OK)
        st = integer(a, l, "cooperative_blocks", &v->cooperative_blocks);
    return st;
}

static se_status resources_view(const json_t *res, se_run_views *v, se_err *err)
{
    at a = {SE_RESOURCES_JSON, "", err};
    const json_t *arr = NULL;
    se_status st = array(&a, res, "kernels", &arr, &v->n_kernels);
    if (st == SE_OK)
        st = alloc(&a, v->n_kernels, sizeof *v->kernels, &v->kernels);
    for (size_t i = 0; st == SE_OK && i < v->n_kernels; i++) {
        at e = at_index(&a, "kernels", i);
        st = kernel_entry(&e, json_array_get(arr, i), &v->kernels[i]);
    }
    if (st == SE_OK)
        st = array(&a, res, "launches", &arr, &v->n_launches);
    if (st == SE_OK)
        st = alloc(&a, v->n_launches, sizeof *v->launches, &v->launches);
    for (size_t i = 0; st == SE_OK && i < v->n_launches; i++) {
        at e = at_index(&a, "launches", i);
        st = launch_entry(&e, json_array_get(arr, i), &v->launches[i]);
    }
    return st;
}

static se_status records_view(const se_views_json *in, se_run_views *v, se_err *err)
{
    se_status st = peers_view(in->peers, &v->peers, err);
    if (st == SE_OK)
        st = resources_view(in->resources, v, err);
    if (st == SE_OK)
        st = validation_view(in->validation, v, err);
    if (st == SE_OK)
        st = env_view(in->env, &v->env, err);
    if (st == SE_OK)
        st = run_view(in->run, &v->run, err);
    if (st == SE_OK)
        st = traces_view(in->traces, &v->traces, err);
    return st;
}

se_status se_views_load(const se_views_json *in, se_run_views **out, se_err *err)
{
    *out = NULL;
    se_run_views *v = calloc(1, sizeof *v);
    if (!v)
        return se_fail(err, SE_ERR_NOMEM, "%s: out of memory", SE_SUMMARY_JSON);
    at a = {SE_SUMMARY_JSON, "", err};
    se_status st = case_list(&a, in->summary, "cases", &v->cases, &v->n_cases);
    if (st == SE_OK)
        st = case_list(&a, in->summary, "controls", &v->controls, &v->n_controls);
    at d = at_key(&a, "derived");
    if (st == SE_OK)
        st = derived_view(&d, in->derived, v);
    if (st == SE_OK)
        st = records_view(in, v, err);
    if (st != SE_OK) {
        se_views_free(v);
        return st;
    }
    *out = v;
    return SE_OK;
}

void se_views_free(se_run_views *v)
{
    if (!v)
        return;
    free(v->cases);
    free(v->controls);
    for (size_t i = 0; i < v->n_shapes; i++) {
        free(v->shapes[i].cases);
        free(v->shapes[i].peers);
    }
    free(v->shapes);
    free(v->peers.v);
    free(v->validation);
    free(v->kernels);
    free(v->launches);
    for (size_t i = 0; i < v->env.n_fields; i++)
        free(v->env.fields[i].items);
    free(v->env.fields);
    free(v->traces.v);
    free(v->traces.cost);
    free(v);
}

/* ---- lookups -------------------------------------------------------------- */

static int same(const char *a, const char *b)
{
    return a && b && strcmp(a, b) == 0;
}

const se_case_view *se_views_case(const se_run_views *v, const char *id)
{
    for (size_t i = 0; i < v->n_cases; i++)
        if (same(v->cases[i].id, id))
            return &v->cases[i];
    for (size_t i = 0; i < v->n_controls; i++)
        if (same(v->controls[i].id, id))
            return &v->controls[i];
    return NULL;
}

const se_case_view *se_views_case_on(const se_run_views *v, long long rows, long long cols,
                                     const char *what)
{
    for (size_t i = 0; i < v->n_cases; i++)
        if (v->cases[i].rows == rows && v->cases[i].cols == cols && same(v->cases[i].what, what))
            return &v->cases[i];
    return NULL;
}

const se_case_view *se_views_control(const se_run_views *v, const char *what)
{
    for (size_t i = 0; i < v->n_controls; i++)
        if (same(v->controls[i].what, what))
            return &v->controls[i];
    return NULL;
}

const se_derived_shape_view *se_views_shape(const se_run_views *v, long long rows,
                                            long long cols)
{
    for (size_t i = 0; i < v->n_shapes; i++)
        if (v->shapes[i].rows == rows && v->shapes[i].cols == cols)
            return &v->shapes[i];
    return NULL;
}

const se_derived_case_view *se_views_shape_case(const se_derived_shape_view *s, const char *id)
{
    for (size_t i = 0; s && i < s->n_cases; i++)
        if (same(s->cases[i].id, id))
            return &s->cases[i];
    return NULL;
}

const se_derived_peer_view *se_views_shape_peer(const se_derived_shape_view *s, const char *peer)
{
    for (size_t i = 0; s && i < s->n_peers; i++)
        if (same(s->peers[i].peer, peer))
            return &s->peers[i];
    return NULL;
}

const se_trace_view *se_views_trace(const se_run_views *v, const char *id)
{
    for (size_t i = 0; i < v->traces.n; i++)
        if (same(v->traces.v[i].id, id))
            return &v->traces.v[i];
    return NULL;
}

const se_tracing_cost_view *se_views_tracing_cost(const se_run_views *v, const char *id)
{
    for (size_t i = 0; i < v->traces.n_cost; i++)
        if (same(v->traces.cost[i].id, id))
            return &v->traces.cost[i];
    return NULL;
}

const se_validation_view *se_views_validation_on(const se_run_views *v, const char *shape)
{
    for (size_t i = 0; i < v->n_validation; i++)
        if (same(v->validation[i].shape, shape))
            return &v->validation[i];
    return NULL;
}

const se_validation_view *se_views_validation(const se_run_views *v, const char *id)
{
    for (size_t i = 0; i < v->n_validation; i++)
        if (same(v->validation[i].id, id))
            return &v->validation[i];
    return NULL;
}

/* ---- the compare document -------------------------------------------------- */

/* o[key] as an array of strings (absent: none). */
static se_status strings(const at *a, const json_t *o, const char *key, const char ***out,
                         size_t *n)
{
    const json_t *arr = NULL;
    se_status st = array(a, o, key, &arr, n);
    if (st == SE_OK)
        st = alloc(a, *n, sizeof **out, out);
    for (size_t i = 0; st == SE_OK && i < *n; i++) {
        json_error_t je;
        if (json_unpack_ex(json_array_get(arr, i), &je, 0, "s", &(*out)[i]) != 0) {
            at e = at_index(a, key, i);
            st = se_fail(a->err, SE_ERR_VALIDATION, "%s: field '%s': %s", a->file, e.path,
                         je.text);
        }
    }
    return st;
}

static se_status compare_case(const at *a, const json_t *c, se_compare_case_view *v)
{
    int has = 0;
    se_status st = str(a, c, "case", &v->id);
    if (st == SE_OK)
        st = str(a, c, "verdict", &v->verdict);
    if (st == SE_OK)
        st = str(a, c, "noise_from", &v->noise_from);
    if (st == SE_OK)
        st = num(a, c, "a_median_ns", &v->a_median_ns, NULL);
    if (st == SE_OK)
        st = num(a, c, "b_median_ns", &v->b_median_ns, NULL);
    if (st == SE_OK)
        st = num(a, c, "ratio", &v->ratio, NULL);
    if (st == SE_OK)
        st = pair(a, c, "ci95", v->ci95, &has);
    if (st == SE_OK)
        st = num(a, c, "change_pct", &v->change_pct, NULL);
    if (st == SE_OK)
        st = num(a, c, "noise_pct", &v->noise_pct, NULL);
    if (st == SE_OK)
        st = integer(a, c, "a_n", &v->a_n);
    if (st == SE_OK)
        st = integer(a, c, "b_n", &v->b_n);
    if (st == SE_OK)
        st = flag(a, c, "slower_than_gate", &v->slower_than_gate);
    return st;
}

static se_status compare_env(const at *a, const json_t *pair, se_compare_pair_view *v)
{
    const json_t *env = NULL, *d = NULL;
    se_status st = object(a, pair, "environment", &env);
    at ea = at_key(a, "environment");
    if (st == SE_OK)
        st = integer(&ea, env, "fields_compared", &v->fields_compared);
    if (st == SE_OK)
        st = array(&ea, env, "differences", &d, &v->n_diffs);
    if (st == SE_OK)
        st = alloc(a, v->n_diffs, sizeof *v->diffs, &v->diffs);
    for (size_t i = 0; st == SE_OK && i < v->n_diffs; i++) {
        at e = at_index(&ea, "differences", i);
        const json_t *diff = json_array_get(d, i);
        st = str(&e, diff, "field", &v->diffs[i].field);
        v->diffs[i].a = json_object_get(diff, "a");
        v->diffs[i].b = json_object_get(diff, "b");
    }
    return st;
}

static se_status compare_pair(const at *a, const json_t *p, se_compare_pair_view *v)
{
    const json_t *cases = NULL, *sum = NULL;
    const char **strs[] = {&v->a, &v->a_run_id, &v->b, &v->b_run_id};
    static const char *const keys[] = {"a", "a_run_id", "b", "b_run_id"};
    se_status st = SE_OK;
    for (size_t i = 0; st == SE_OK && i < sizeof keys / sizeof keys[0]; i++)
        st = str(a, p, keys[i], strs[i]);
    if (st == SE_OK)
        st = strings(a, p, "a_runs", &v->a_runs, &v->n_a_runs);
    if (st == SE_OK)
        st = strings(a, p, "b_runs", &v->b_runs, &v->n_b_runs);
    if (st == SE_OK)
        st = strings(a, p, "only_in_a", &v->only_in_a, &v->n_only_in_a);
    if (st == SE_OK)
        st = strings(a, p, "only_in_b", &v->only_in_b, &v->n_only_in_b);
    if (st == SE_OK)
        st = compare_env(a, p, v);
    if (st == SE_OK)
        st = array(a, p, "cases", &cases, &v->n_cases);
    if (st == SE_OK)
        st = alloc(a, v->n_cases, sizeof *v->cases, &v->cases);
    for (size_t i = 0; st == SE_OK && i < v->n_cases; i++) {
        at e = at_index(a, "cases", i);
        st = compare_case(&e, json_array_get(cases, i), &v->cases[i]);
    }
    if (st == SE_OK)
        st = object(a, p, "summary", &sum);
    at sa = at_key(a, "summary");
    long long *counts[] = {&v->faster, &v->slower, &v->unchanged, &v->slower_than_gate};
    static const char *const ckeys[] = {"faster", "slower", "unchanged", "slower_than_gate"};
    for (size_t i = 0; st == SE_OK && i < sizeof ckeys / sizeof ckeys[0]; i++)
        st = integer(&sa, sum, ckeys[i], counts[i]);
    return st;
}

se_status se_compare_view_load(const json_t *doc, se_compare_view **out, se_err *err)
{
    at a = {"compare", "", err};
    const json_t *pairs = NULL;
    se_compare_view *v = calloc(1, sizeof *v);
    *out = NULL;
    if (!v)
        return se_fail(err, SE_ERR_NOMEM, "compare: out of memory");
    se_status st = str(&a, doc, "scope", &v->scope);
    if (st == SE_OK)
        st = num(&a, doc, "fail_if_slower_pct", &v->fail_if_slower_pct, &v->has_gate);
    if (st == SE_OK)
        st = array(&a, doc, "comparisons", &pairs, &v->n_pairs);
    if (st == SE_OK)
        st = alloc(&a, v->n_pairs, sizeof *v->pairs, &v->pairs);
    for (size_t i = 0; st == SE_OK && i < v->n_pairs; i++) {
        at e = at_index(&a, "comparisons", i);
        st = compare_pair(&e, json_array_get(pairs, i), &v->pairs[i]);
    }
    if (st != SE_OK) {
        se_compare_view_free(v);
        return st;
    }
    *out = v;
    return SE_OK;
}

void se_compare_view_free(se_compare_view *v)
{
    if (!v)
        return;
    for (size_t i = 0; v->pairs && i < v->n_pairs; i++) {
        se_compare_pair_view *p = &v->pairs[i];
        free(p->a_runs);
        free(p->b_runs);
        free(p->only_in_a);
        free(p->only_in_b);
        free(p->diffs);
        free(p->cases);
    }
    free(v->pairs);
    free(v);
}

/* ---- a trace's check report ------------------------------------------------ */

static se_status report_phase(const at *a, const char *name, const json_t *ph,
                              se_trace_phase_view *v)
{
    at pa = at_key(a, name);
    v->name = name;
    se_status st = integer(&pa, ph, "tasks", &v->tasks);
    if (st == SE_OK)
        st = integer(&pa, ph, "start_ns", &v->start_ns);
    if (st == SE_OK)
        st = integer(&pa, ph, "end_ns", &v->end_ns);
    if (st == SE_OK)
        st = integer(&pa, ph, "span_ns", &v->span_ns);
    return st;
}

static se_status report_phases(const at *a, const json_t *r, se_trace_report_view *v)
{
    const json_t *phases = NULL;
    se_status st = object(a, r, "phases", &phases);
    v->n_phases = json_object_size(phases);
    if (st == SE_OK)
        st = alloc(a, v->n_phases, sizeof *v->phases, &v->phases);
    at pa = at_key(a, "phases");
    const char *key;
    json_t *ph;
    size_t i = 0;
    json_object_foreach((json_t *)phases, key, ph) {
        if (st == SE_OK)
            st = report_phase(&pa, key, ph, &v->phases[i++]);
    }
    return st;
}

se_status se_trace_report_view_load(const json_t *report, const char *case_id,
                                    se_trace_report_view *v, se_err *err)
{
    static const struct {
        const char *key;
        size_t off;
    } counts[] = {
        {"tasks_expected", offsetof(se_trace_report_view, tasks_expected)},
        {"records", offsetof(se_trace_report_view, records)},
        {"missing_count", offsetof(se_trace_report_view, missing_count)},
        {"duplicated_count", offsetof(se_trace_report_view, duplicated_count)},
        {"dependency_edges_checked", offsetof(se_trace_report_view, dependency_edges_checked)},
        {"order_violations_count", offsetof(se_trace_report_view, order_violations_count)},
        {"phase_barrier_violations_count",
         offsetof(se_trace_report_view, phase_barrier_violations_count)},
    }, sm_counts[] = {
        {"sms_used", offsetof(se_trace_report_view, sms_used)},
        {"tasks_per_sm_min", offsetof(se_trace_report_view, tasks_per_sm_min)},
        {"tasks_per_sm_max", offsetof(se_trace_report_view, tasks_per_sm_max)},
        {"idle_between_tasks_ns_total",
         offsetof(se_trace_report_view, idle_between_tasks_ns_total)},
        {"idle_between_tasks_ns_max_sm",
         offsetof(se_trace_report_view, idle_between_tasks_ns_max_sm)},
    };
    at a = {case_id, "", err};
    memset(v, 0, sizeof *v);
    se_status st = str(&a, report, "verdict", &v->verdict);
    for (size_t i = 0; st == SE_OK && i < sizeof counts / sizeof counts[0]; i++)
        st = integer(&a, report, counts[i].key, (long long *)((char *)v + counts[i].off));
    int checked = -1;
    if (st == SE_OK)
        st = flag(&a, report, "phase_barriers_checked", &checked);
    v->phase_barriers_checked = checked == 1;
    if (st == SE_OK)
        st = report_phases(&a, report, v);
    const json_t *sm = NULL, *ov = NULL;
    at sa = at_key(&a, "sm"), oa = at_key(&a, "overlap");
    if (st == SE_OK)
        st = object(&a, report, "sm", &sm);
    for (size_t i = 0; st == SE_OK && i < sizeof sm_counts / sizeof sm_counts[0]; i++)
        st = integer(&sa, sm, sm_counts[i].key, (long long *)((char *)v + sm_counts[i].off));
    if (st == SE_OK)
        st = str(&sa, sm, "caveat", &v->sm_caveat);
    if (st == SE_OK)
        st = object(&a, report, "overlap", &ov);
    if (st == SE_OK)
        st = num(&oa, ov, "fraction", &v->overlap_fraction, NULL);
    if (st != SE_OK)
        se_trace_report_view_free(v);
    return st;
}

void se_trace_report_view_free(se_trace_report_view *v)
{
    free(v->phases);
    memset(v, 0, sizeof *v);
}
