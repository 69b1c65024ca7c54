/*
 * views_records.c - the views of the records a run writes besides its
 * summary (see views.h): peers.json, validation.json, environment.json
 * (its named fields and its every leaf, for the report's table), run.json
 * and resources.json.
 */
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bundle/paths.h"
#include "bundle/views_internal.h"

static se_status peer_entry(const views_at *a, const json_t *e, se_peer_view *v)
{
    static const views_slot strs[] = {
        {"peer", offsetof(se_peer_view, peer)},
        {"computes", offsetof(se_peer_view, computes)},
        {"status", offsetof(se_peer_view, status)},
        {"reason", offsetof(se_peer_view, reason)},
        {"error", offsetof(se_peer_view, error)},
        {"samples_file", offsetof(se_peer_view, samples_file)},
        {"input_sha256", offsetof(se_peer_view, input_sha256)},
        {"output_sha256", offsetof(se_peer_view, output_sha256)},
    };
    se_status st = views_strs(a, e, strs, VIEWS_NSLOTS(strs), v);
    if (st == SE_OK)
        st = views_integer(a, e, "rows", &v->rows);
    if (st == SE_OK)
        st = views_integer(a, e, "cols", &v->cols);
    if (st == SE_OK)
        st = views_num(a, e, "max_rel_err", &v->max_rel_err, &v->has_max_rel_err);
    const json_t *s = NULL;
    if (st == SE_OK)
        st = views_object(a, e, "summary", &s);
    views_at sa = views_at_key(a, "summary");
    if (st == SE_OK)
        st = views_scope(&sa, s, &v->summary);
    return st;
}

/* o's "tolerance": its rule, atol and rtol (peers.json's and
 * validation.json's). */
static se_status tolerance(const views_at *a, const json_t *o, const char **rule, double *atol,
                           double *rtol)
{
    const json_t *tol = NULL;
    se_status st = views_object(a, o, "tolerance", &tol);
    views_at ta = views_at_key(a, "tolerance");
    if (st == SE_OK)
        st = views_str(&ta, tol, "rule", rule);
    if (st == SE_OK)
        st = views_num(&ta, tol, "atol", atol, NULL);
    if (st == SE_OK)
        st = views_num(&ta, tol, "rtol", rtol, NULL);
    return st;
}

static se_status peers_view(const json_t *pj, se_peers_view *v, se_err *err)
{
    if (!pj)
        return SE_OK;
    views_at a = {SE_PEERS_FILE, "", err};
    const json_t *env = NULL, *arr = NULL;
    v->present = 1;
    se_status st = views_str(&a, pj, "script", &v->script);
    if (st == SE_OK)
        st = views_str(&a, pj, "script_sha256", &v->script_sha256);
    if (st == SE_OK)
        st = views_str(&a, pj, "script_copy", &v->script_copy);
    if (st == SE_OK)
        st = views_str(&a, pj, "timing", &v->timing);
    if (st == SE_OK)
        st = views_object(&a, pj, "environment", &env);
    views_at ea = views_at_key(&a, "environment");
    if (st == SE_OK)
        st = views_str(&ea, env, "torch_version", &v->torch_version);
    if (st == SE_OK)
        st = views_str(&ea, env, "torch_cuda_version", &v->torch_cuda_version);
    if (st == SE_OK)
        st = views_str(&ea, env, "triton_version", &v->triton_version);
    if (st == SE_OK)
        st = views_str(&ea, env, "device_name", &v->device_name);
    if (st == SE_OK)
        st = tolerance(&a, pj, &v->tolerance_rule, &v->atol, &v->rtol);
    if (st == SE_OK)
        st = views_array(&a, pj, "peers", &arr, &v->n);
    if (st == SE_OK)
        st = views_alloc(&a, v->n, sizeof *v->v, &v->v);
    for (size_t i = 0; st == SE_OK && i < v->n; i++) {
        views_at e = views_at_index(&a, "peers", i);
        st = peer_entry(&e, json_array_get(arr, i), &v->v[i]);
    }
    return st;
}

static se_status validation_entry(const views_at *a, const json_t *c, se_validation_view *v)
{
    static const views_slot strs[] = {
        {"case", offsetof(se_validation_view, id)},
        {"strategy", offsetof(se_validation_view, strategy)},
        {"shape", offsetof(se_validation_view, shape)},
        {"input_sha256", offsetof(se_validation_view, input_sha256)},
        {"output_sha256", offsetof(se_validation_view, output_sha256)},
    };
    se_status st = views_strs(a, c, strs, VIEWS_NSLOTS(strs), v);
    static const views_slot ints[] = {
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
    if (st == SE_OK)
        st = views_integers(a, c, ints, VIEWS_NSLOTS(ints), v);
    if (st == SE_OK)
        st = views_num(a, c, "max_abs_err", &v->max_abs_err, NULL);
    if (st == SE_OK)
        st = views_num(a, c, "max_rel_err", &v->max_rel_err, NULL);
    if (st == SE_OK)
        st = views_num(a, c, "vs_cudnn_max_rel", &v->vs_cudnn_max_rel, &v->has_vs_cudnn);
    if (st == SE_OK)
        st = views_truth(a, c, "pass", &v->pass);
    if (st == SE_OK)
        st = views_flag(a, c, "repeat_identical", &v->repeat_identical);
    if (st == SE_OK)
        st = views_flag(a, c, "matches_tiled", &v->matches_tiled);
    return st;
}

static se_status validation_view(const json_t *val, se_run_views *v, se_err *err)
{
    views_at a = {SE_VALIDATION_JSON, "", err};
    const json_t *arr = NULL;
    se_status st = tolerance(&a, val, &v->tolerance_rule, &v->atol, &v->rtol);
    if (st == SE_OK)
        st = views_integer(&a, val, "invocations", &v->invocations);
    if (st == SE_OK)
        st = views_array(&a, val, "cases", &arr, &v->n_validation);
    if (st == SE_OK)
        st = views_alloc(&a, v->n_validation, sizeof *v->validation, &v->validation);
    for (size_t i = 0; st == SE_OK && i < v->n_validation; i++) {
        views_at e = views_at_index(&a, "cases", i);
        st = validation_entry(&e, json_array_get(arr, i), &v->validation[i]);
    }
    return st;
}

static se_status env_gpu(const views_at *a, const json_t *g, se_env_view *v)
{
    se_status st = views_str(a, g, "name", &v->gpu_name);
    if (st == SE_OK)
        st = views_str(a, g, "compute_capability", &v->compute_capability);
    if (st == SE_OK)
        st = views_integer(a, g, "sm_count", &v->sm_count);
    if (st == SE_OK)
        st = views_integer(a, g, "l2_bytes", &v->l2_bytes);
    if (st == SE_OK)
        st = views_integer(a, g, "global_memory_bytes", &v->global_memory_bytes);
    if (st == SE_OK)
        st = views_integer(a, g, "memory_bus_bits", &v->memory_bus_bits);
    if (st == SE_OK)
        st = views_num(a, g, "peak_sm_clock_mhz", &v->peak_sm_clock_mhz, NULL);
    if (st == SE_OK)
        st = views_num(a, g, "peak_memory_clock_mhz", &v->peak_memory_clock_mhz, NULL);
    return st;
}

/* Appends every leaf of o below prefix to v->fields (objects recurse, an
 * array is one leaf with its items). */
static se_status env_fields(const views_at *a, const json_t *o, const char *prefix,
                            se_env_view *v)
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
                st = views_alloc(a, f->n_items, sizeof *f->items, &f->items);
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
    views_at a = {SE_ENVIRONMENT_JSON, "", err};
    const json_t *g = NULL, *sw = NULL, *src = NULL, *host = NULL, *timer = NULL;
    se_status st = views_object(&a, env, "gpu", &g);
    views_at ga = views_at_key(&a, "gpu"), sa = views_at_key(&a, "software");
    views_at ca = views_at_key(&a, "source"), ha = views_at_key(&a, "host");
    views_at ta = views_at_key(&a, "globaltimer");
    if (st == SE_OK)
        st = env_gpu(&ga, g, v);
    if (st == SE_OK)
        st = views_object(&a, env, "software", &sw);
    if (st == SE_OK)
        st = views_integer(&sa, sw, "driver_version", &v->driver_version);
    if (st == SE_OK)
        st = views_integer(&sa, sw, "runtime_version", &v->runtime_version);
    if (st == SE_OK)
        st = views_integer(&sa, sw, "cudnn_version", &v->cudnn_version);
    if (st == SE_OK)
        st = views_integer(&sa, sw, "cudnn_compiled_version", &v->cudnn_compiled_version);
    if (st == SE_OK)
        st = views_integer(&sa, sw, "curand_version", &v->curand_version);
    if (st == SE_OK)
        st = views_str(&sa, sw, "nvcc_version", &v->nvcc_version);
    if (st == SE_OK)
        st = views_str(&sa, sw, "cuda_architectures", &v->cuda_architectures);
    if (st == SE_OK)
        st = views_object(&a, env, "source", &src);
    if (st == SE_OK)
        st = views_str(&ca, src, "git_commit", &v->git_commit);
    if (st == SE_OK)
        st = views_str(&ca, src, "source_dir", &v->source_dir);
    if (st == SE_OK)
        st = views_truth(&ca, src, "git_dirty", &v->git_dirty);
    if (st == SE_OK)
        st = views_object(&a, env, "host", &host);
    if (st == SE_OK)
        st = views_str(&ha, host, "hostname", &v->hostname);
    if (st == SE_OK)
        st = views_object(&a, env, "globaltimer", &timer);
    if (st == SE_OK)
        st = views_num(&ta, timer, "smallest_step_ns", &v->timer_step_ns, &v->has_timer_step);
    if (st == SE_OK)
        st = env_fields(&a, env, "", v);
    return st;
}

static se_status run_view(const json_t *run, se_run_view *v, se_err *err)
{
    views_at a = {SE_RUN_JSON, "", err};
    const json_t *pr = NULL;
    se_status st = views_str(&a, run, "started_utc", &v->started_utc);
    if (st == SE_OK)
        st = views_str(&a, run, "finished_utc", &v->finished_utc);
    if (st == SE_OK)
        st = views_str(&a, run, "status", &v->status);
    if (st == SE_OK)
        st = views_str(&a, run, "megakernel", &v->megakernel);
    if (st == SE_OK)
        st = views_str(&a, run, "interleaving", &v->interleaving);
    if (st == SE_OK)
        st = views_truth(&a, run, "blocking_kernel", &v->blocking_kernel);
    if (st == SE_OK)
        st = views_object(&a, run, "protocol", &pr);
    views_at pa = views_at_key(&a, "protocol");
    if (st == SE_OK)
        st = views_str(&pa, pr, "source", &v->protocol_source);
    if (st == SE_OK)
        st = views_str(&pa, pr, "source_sha256", &v->protocol_sha256);
    if (st == SE_OK)
        st = views_str(&pa, pr, "bundle_copy_sha256", &v->bundle_copy_sha256);
    return st;
}

static se_status kernel_entry(const views_at *a, const json_t *k, se_kernel_view *v)
{
    static const views_slot ints[] = {
        {"block_threads", offsetof(se_kernel_view, block_threads)},
        {"registers", offsetof(se_kernel_view, registers)},
        {"shared_static_bytes", offsetof(se_kernel_view, shared_static_bytes)},
        {"local_bytes", offsetof(se_kernel_view, local_bytes)},
        {"const_bytes", offsetof(se_kernel_view, const_bytes)},
        {"max_blocks_per_sm", offsetof(se_kernel_view, max_blocks_per_sm)},
        {"ptx_version", offsetof(se_kernel_view, ptx_version)},
        {"binary_version", offsetof(se_kernel_view, binary_version)},
    };
    se_status st = views_str(a, k, "kernel", &v->kernel);
    if (st == SE_OK)
        st = views_str(a, k, "used_by", &v->used_by);
    if (st == SE_OK)
        st = views_integers(a, k, ints, VIEWS_NSLOTS(ints), v);
    return st;
}

static se_status launch_entry(const views_at *a, const json_t *l, se_launch_view *v)
{
    se_status st = views_str(a, l, "shape", &v->shape);
    if (st == SE_OK)
        st = views_str(a, l, "strategy", &v->strategy);
    if (st == SE_OK)
        st = views_str(a, l, "launch", &v->launch);
    if (st == SE_OK)
        st = views_integer(a, l, "graph_nodes", &v->graph_nodes);
    if (st == SE_OK)
        st = views_integer(a, l, "cooperative_blocks", &v->cooperative_blocks);
    return st;
}

static se_status resources_view(const json_t *res, se_run_views *v, se_err *err)
{
    views_at a = {SE_RESOURCES_JSON, "", err};
    const json_t *arr = NULL;
    se_status st = views_array(&a, res, "kernels", &arr, &v->n_kernels);
    if (st == SE_OK)
        st = views_alloc(&a, v->n_kernels, sizeof *v->kernels, &v->kernels);
    for (size_t i = 0; st == SE_OK && i < v->n_kernels; i++) {
        views_at e = views_at_index(&a, "kernels", i);
        st = kernel_entry(&e, json_array_get(arr, i), &v->kernels[i]);
    }
    if (st == SE_OK)
        st = views_array(&a, res, "launches", &arr, &v->n_launches);
    if (st == SE_OK)
        st = views_alloc(&a, v->n_launches, sizeof *v->launches, &v->launches);
    for (size_t i = 0; st == SE_OK && i < v->n_launches; i++) {
        views_at e = views_at_index(&a, "launches", i);
        st = launch_entry(&e, json_array_get(arr, i), &v->launches[i]);
    }
    return st;
}

se_status views_records_load(const se_views_json *in, se_run_views *v, se_err *err)
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
    return st;
}

