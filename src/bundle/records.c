/*
 * records.c - run.json, environment.json, resources.json and
 * validation.json from plain structs (see records.h). Keys, their order
 * and their number types are those of the committed runs: verify and the
 * renderers read them back by these names.
 */
#include "bundle/records.h"

#include <math.h>
#include <stdio.h>

#include "bundle/paths.h"
#include "bundle/sha256.h"
#include "model/json.h"
#include "model/taskgraph.h"

/* Days from 1970-01-01 to y-m-d (proleptic Gregorian). */
static int64_t days_from_civil(int64_t y, int m, int d)
{
    y -= m <= 2;
    int64_t era = (y >= 0 ? y : y - 399) / 400;
    int64_t yoe = y - era * 400;
    int64_t doy = (153 * (m + (m > 2 ? -3 : 9)) + 2) / 5 + d - 1;
    int64_t doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    return era * 146097 + doe - 719468;
}

int se_utc_seconds(const char *text, int64_t *seconds)
{
    int y, mo, d, h, mi, s, end = 0;
    char z = 0;
    if (!text || sscanf(text, "%4d-%2d-%2dT%2d:%2d:%2d%c%n", &y, &mo, &d, &h, &mi, &s, &z, &end) != 7 ||
        z != 'Z' || text[end] != '\0' || mo < 1 || mo > 12 || d < 1 || d > 31 || h < 0 ||
        h > 23 || mi < 0 || mi > 59 || s < 0 || s > 60)
        return -1;
    *seconds = days_from_civil(y, mo, d) * 86400 + h * 3600 + mi * 60 + s;
    return 0;
}

json_t *se_run_json(const se_run_info *r)
{
    json_t *sources = json_array();
    for (size_t i = 0; i < r->n_sources; i++)
        json_array_append_new(sources, json_pack("{s:s, s:s, s:I}", "path", r->sources[i].path,
                                                 "sha256", r->sources[i].sha256, "bytes",
                                                 (json_int_t)r->sources[i].bytes));
    /* After arrays_saved, where a reader looks for it; o* leaves the key out
     * of the runs that do not record it (NULL). */
    json_t *max_bytes = !r->record_arrays_max_bytes ? NULL
                        : r->arrays_saved && r->arrays_max_bytes > 0
                            ? json_integer((json_int_t)r->arrays_max_bytes)
                            : json_null();
    json_t *graph = r->task_graph > 0 ? json_integer(r->task_graph) : NULL;
    json_t *run = json_pack(
        "{s:s, s:i, s:s, s:s, s:s, s:s, s:{s:s, s:s, s:s, s:s}, s:b, s:o*, s:o, s:b, s:s, s:s, "
        "s:o*}",
        "format", SE_RUN_FORMAT, "version", 1, "run_id", r->run_id, "started_utc",
        r->started_utc, "finished_utc", r->finished_utc, "status", "complete", "protocol",
        "source", r->protocol_source, "source_sha256", r->protocol_source_sha256, "bundle_copy",
        SE_PROTOCOL_JSON, "bundle_copy_sha256", r->protocol_copy_sha256, "arrays_saved",
        r->arrays_saved, "arrays_max_bytes", max_bytes, "source_files", sources,
        "blocking_kernel", r->blocking_kernel, "interleaving",
        "per round, items in a Fisher-Yates order from se_rng_seed(order_seed ^ "
        "case_index << 40 ^ scope << 32 ^ round); each sample records its round and "
        "position",
        "megakernel",
        "a toy: it shows a persistent kernel's static schedule with per-row counters "
        "and its costs on this workload, not a model-scale megakernel result; its "
        "counter reset runs inside every timed invocation",
        "task_graph", graph);
    if (run && r->checks_saved)
        json_object_set_new(run, "checks_saved", json_true());
    return run;
}

se_status se_run_task_graph(const json_t *run, int *version, se_err *err)
{
    *version = SE_TASKGRAPH_V1;
    if (!json_object_get(run, "task_graph"))
        return SE_OK;
    json_int_t v;
    se_status st = se_json_get_int(run, "task_graph", SE_TASKGRAPH_V1, SE_TASKGRAPH_VERSION, &v,
                                   SE_RUN_JSON, err);
    if (st == SE_OK)
        *version = (int)v;
    return st;
}

/* A string that may be absent, as JSON: the string or null. */
static json_t *str_or_null(const char *s)
{
    return s ? json_string(s) : json_null();
}

json_t *se_environment_json(const se_environment_info *e)
{
    json_t *gpu = json_pack("{s:s, s:s, s:i, s:s, s:i, s:I, s:i, s:f, s:f, s:i}", "name",
                            e->gpu.name, "uuid", e->gpu.uuid, "ordinal", e->gpu.ordinal,
                            "compute_capability", e->gpu.compute_capability, "sm_count",
                            e->gpu.sm_count, "global_memory_bytes",
                            (json_int_t)e->gpu.global_memory_bytes, "l2_bytes", e->gpu.l2_bytes,
                            "peak_sm_clock_mhz", e->gpu.peak_sm_clock_mhz,
                            "peak_memory_clock_mhz", e->gpu.peak_memory_clock_mhz,
                            "memory_bus_bits", e->gpu.memory_bus_bits);
    for (size_t i = 0; gpu && i < e->gpu.n_coop; i++) {
        char key[128];
        snprintf(key, sizeof key, "cooperative_max_blocks_%s", e->gpu.coop[i].group);
        json_object_set_new(gpu, key, json_integer(e->gpu.coop[i].max_blocks));
    }
    json_t *cmd = json_array();
    for (int i = 0; i < e->argc; i++)
        json_array_append_new(cmd, json_string(e->argv[i]));
    json_t *dirty = e->source.git_dirty < 0 ? json_string("unknown")
                                            : json_boolean(e->source.git_dirty);
    json_t *j = json_pack(
        "{s:s, s:i, s:o, s:{s:f, s:f}, s:{s:i, s:i, s:s, s:s, s:s, s:s, s:I, s:I, s:i},"
        " s:{s:s, s:s, s:s, s:s}, s:{s:s, s:s, s:o, s:s}, s:o}",
        "format", SE_ENVIRONMENT_FORMAT, "version", 1, "gpu", gpu, "globaltimer",
        "smallest_step_ns", e->globaltimer_smallest_step_ns, "mean_step_ns",
        e->globaltimer_mean_step_ns, "software", "driver_version", e->software.driver_version,
        "runtime_version", e->software.runtime_version, "nvcc_version",
        e->software.nvcc_version, "cuda_architectures", e->software.cuda_architectures,
        "cuda_flags", e->software.cuda_flags, "build_type", e->software.build_type,
        "cudnn_version", (json_int_t)e->software.cudnn_version, "cudnn_compiled_version",
        (json_int_t)e->software.cudnn_compiled_version, "curand_version",
        e->software.curand_version, "host", "hostname", e->host.hostname, "os", e->host.os,
        "release", e->host.release, "machine", e->host.machine, "source", "git_commit",
        e->source.git_commit, "git_commit_from", e->source.git_commit_from, "git_dirty", dirty,
        "source_dir", e->source.source_dir, "command_line", cmd);
    if (j && e->placement.recorded)
        json_object_set_new(
            j, "placement",
            json_pack("{s:o, s:o, s:o, s:o, s:o, s:i}", "slurm_job_id",
                      str_or_null(e->placement.slurm_job_id), "slurm_array_job_id",
                      str_or_null(e->placement.slurm_array_job_id), "slurm_array_task_id",
                      str_or_null(e->placement.slurm_array_task_id), "hostname",
                      str_or_null(e->placement.hostname), "cuda_visible_devices",
                      str_or_null(e->placement.cuda_visible_devices), "device_ordinal",
                      e->placement.device_ordinal));
    return j;
}

json_t *se_resources_json(const se_kernel_resources *k, size_t n_kernels,
                          const se_launch_resources *l, size_t n_launches)
{
    json_t *kernels = json_array(), *launches = json_array();
    for (size_t i = 0; i < n_kernels; i++)
        json_array_append_new(
            kernels,
            json_pack("{s:s, s:s, s:i, s:i, s:I, s:I, s:I, s:i, s:i, s:i, s:i}", "kernel",
                      k[i].kernel, "used_by", k[i].used_by, "block_threads", k[i].block_threads,
                      "registers", k[i].registers, "shared_static_bytes",
                      (json_int_t)k[i].shared_static_bytes, "local_bytes",
                      (json_int_t)k[i].local_bytes, "const_bytes", (json_int_t)k[i].const_bytes,
                      "max_threads_per_block", k[i].max_threads_per_block, "ptx_version",
                      k[i].ptx_version, "binary_version", k[i].binary_version,
                      "max_blocks_per_sm", k[i].max_blocks_per_sm));
    for (size_t i = 0; i < n_launches; i++)
        json_array_append_new(
            launches, json_pack("{s:s, s:s, s:s, s:i, s:i}", "shape", l[i].shape, "strategy",
                                l[i].strategy, "launch", l[i].launch, "graph_nodes",
                                l[i].graph_nodes, "cooperative_blocks", l[i].cooperative_blocks));
    return json_pack("{s:s, s:i, s:o, s:o}", "format", SE_RESOURCES_FORMAT, "version", 1,
                     "kernels", kernels, "launches", launches);
}

void se_compare_json_set(json_t *o, const se_compare *c)
{
    json_object_set_new(o, "elements", json_integer(c->n));
    json_object_set_new(o, "fails", json_integer(c->n_fail));
    json_object_set_new(o, "nan", json_integer(c->n_nan));
    json_object_set_new(o, "tiny", json_integer(c->n_tiny));
    json_object_set_new(o, "max_abs_err", json_real(c->max_abs_err));
    json_object_set_new(o, "max_rel_err", json_real(c->max_rel_err));
}

json_t *se_validation_json(const se_tolerance *tol, int invocations,
                           const se_validation_record *v, size_t n)
{
    json_t *arr = json_array();
    for (size_t i = 0; i < n; i++) {
        char id[SE_CASE_ID_SIZE], in_hex[65], out_hex[65];
        se_case_id_make(v[i].shape->rows, v[i].shape->cols, v[i].strategy, id, sizeof id);
        se_hex32(v[i].input_sha256, in_hex);
        se_hex32(v[i].output_sha256, out_hex);
        json_t *o = json_object();
        json_object_set_new(o, "case", json_string(id));
        json_object_set_new(o, "shape", json_string(v[i].shape->spec));
        json_object_set_new(o, "rows", json_integer(v[i].shape->rows));
        json_object_set_new(o, "cols", json_integer(v[i].shape->cols));
        json_object_set_new(o, "tile", json_integer(v[i].tile));
        json_object_set_new(o, "strategy", json_string(v[i].strategy));
        json_object_set_new(o, "blocks", json_integer(v[i].blocks));
        json_object_set_new(o, "graph_nodes", json_integer((json_int_t)v[i].graph_nodes));
        json_object_set_new(o, "invocations", json_integer(v[i].invocations));
        se_compare_json_set(o, v[i].vs_ref);
        /* NaN where the operation has no cuDNN reference (LayerNorm): null */
        json_object_set_new(o, "vs_cudnn_max_rel", isnan(v[i].vs_cudnn->max_rel_err)
                                                       ? json_null()
                                                       : json_real(v[i].vs_cudnn->max_rel_err));
        json_object_set_new(o, "vs_cudnn_fails", json_integer(v[i].vs_cudnn->n_fail));
        json_object_set_new(o, "repeat_identical", json_boolean(v[i].repeat_identical));
        json_object_set_new(o, "matches_tiled", v[i].matches_tiled < 0
                                                    ? json_null()
                                                    : json_boolean(v[i].matches_tiled));
        json_object_set_new(o, "input_sha256", json_string(in_hex));
        json_object_set_new(o, "output_sha256", json_string(out_hex));
        json_object_set_new(o, "pass", json_boolean(v[i].pass));
        json_array_append_new(arr, o);
    }
    return json_pack("{s:s, s:i, s:{s:f, s:f, s:s}, s:i, s:o}", "format", SE_VALIDATION_FORMAT,
                     "version", 1, "tolerance", "atol", tol->atol, "rtol", tol->rtol, "rule",
                     "pass element: finite and |out - ref| <= atol + rtol * |ref|", "invocations",
                     invocations, "cases", arr);
}
