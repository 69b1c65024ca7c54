/*
 * write_bundle.c - the run directory's records at the end of a GPU run (see
 * run_state.h): validation.json, environment.json, resources.json, the
 * embedded sources, peers.json, summary.json with its derived results,
 * traces.json and run.json, through the bundle layer's writers.
 */
#define _POSIX_C_SOURCE 200809L
#define _DEFAULT_SOURCE
#include "run/run_state.h"

#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <unistd.h>

#include <cuda_runtime_api.h>
#include <curand.h>
#include <jansson.h>

#include "bundle/derived.h"
#include "bundle/describe.h"
#include "bundle/embedded.h"
#include "bundle/fsutil.h"
#include "bundle/manifest.h"
#include "bundle/paths.h"
#include "bundle/peers.h"
#include "bundle/records.h"
#include "bundle/summary.h"
#include "bundle/trace.h"
#include "gpu/kernels.h"
#include "model/strategy.h"
#include "run/cudnn_ref.h"
#include "run/peers_run.h"
#include "run/runner.h"
#include "run/strategies.h"

#ifndef SE_SOURCE_DIR
#define SE_SOURCE_DIR "."
#endif

static json_t *validation_json(const run_state *rs)
{
    se_validation_record *recs = calloc(rs->n_results ? rs->n_results : 1, sizeof *recs);
    if (!recs)
        return NULL;
    for (size_t i = 0; i < rs->n_results; i++) {
        const se_validation *v = &rs->results[i];
        recs[i] = (se_validation_record){&v->shape, v->tile, se_strategy_get(v->strategy)->name,
                                         v->blocks, v->graph_nodes, v->invocations, &v->vs_ref,
                                         &v->vs_cudnn, v->repeat_identical, v->matches_tiled,
                                         v->input_sha256, v->sha256, v->pass};
    }
    json_t *j = se_validation_json(&rs->p->tol, rs->p->invocations, recs, rs->n_results);
    free(recs);
    return j;
}


static json_t *environment_json(const run_state *rs, int argc, char **argv)
{
    const se_device_info *d = &rs->dev;
    struct cudaDeviceProp prop;
    int mem_khz = 0, sm_khz = 0, l2 = 0, bus = 0, curand_v = 0;
    cudaGetDeviceProperties(&prop, d->ordinal);
    cudaDeviceGetAttribute(&mem_khz, cudaDevAttrMemoryClockRate, d->ordinal);
    cudaDeviceGetAttribute(&sm_khz, cudaDevAttrClockRate, d->ordinal);
    cudaDeviceGetAttribute(&l2, cudaDevAttrL2CacheSize, d->ordinal);
    cudaDeviceGetAttribute(&bus, cudaDevAttrGlobalMemoryBusWidth, d->ordinal);
    curandGetVersion(&curand_v);
    char uuid[48], cc[16];
    snprintf(cc, sizeof cc, "%d.%d", prop.major, prop.minor);
    const unsigned char *u = (const unsigned char *)prop.uuid.bytes;
    snprintf(uuid, sizeof uuid,
             "GPU-%02x%02x%02x%02x-%02x%02x-%02x%02x-%02x%02x-%02x%02x%02x%02x%02x%02x", u[0], u[1],
             u[2], u[3], u[4], u[5], u[6], u[7], u[8], u[9], u[10], u[11], u[12], u[13], u[14], u[15]);
    char host[256] = "", commit[128] = "", dirty[512] = "";
    gethostname(host, sizeof host - 1);
    struct utsname un;
    uname(&un);
    /* --verify --quiet prints nothing where the tree has no commit (a copy
     * of the working tree without history): then SE_GIT_COMMIT, if the
     * person running says which commit the tree is, else "unknown". */
    se_command_line("git -C '" SE_SOURCE_DIR "' rev-parse --verify --quiet HEAD 2>/dev/null", NULL,
                    commit, sizeof commit);
    const char *commit_from = "git rev-parse in the source tree";
    if (!commit[0] && getenv("SE_GIT_COMMIT") && *getenv("SE_GIT_COMMIT")) {
        snprintf(commit, sizeof commit, "%s", getenv("SE_GIT_COMMIT"));
        commit_from = "the SE_GIT_COMMIT variable (the source tree had no git history)";
    } else if (!commit[0]) {
        commit_from = "not known: the source tree had no git history; source_files in " SE_RUN_JSON " "
                      "identify the code by hash";
    }
    /* Whether the code that built this binary differs from the commit: the
     * tracked files of what is compiled and embedded (sources, build
     * scripts, the protocol, the peers script), not other runs' files;
     * "unknown" (-1) where the tree has no git history. */
    int git_dirty = -1;
    if (commit[0] && strcmp(commit_from, "git rev-parse in the source tree") == 0) {
        se_command_line("git -C '" SE_SOURCE_DIR "' status --porcelain --untracked-files=no -- "
                        "src cmake CMakeLists.txt protocol bench 2>/dev/null",
                        NULL, dirty, sizeof dirty);
        git_dirty = dirty[0] != '\0';
    }
    /* The co-residency limit of each cooperative group, in table order. */
    se_coop_limit coop[SE_NSTRATEGIES];
    size_t n_coop = 0;
    for (int s = 0; s < SE_NSTRATEGIES; s++)
        if (se_coop_group_first((se_strategy)s) == (se_strategy)s)
            coop[n_coop++] = (se_coop_limit){se_strategy_get((se_strategy)s)->coop_group,
                                             d->coop_max_blocks[s]};
    se_environment_info e = {
        .gpu = {d->name, uuid, d->ordinal, cc, d->sm_count, (int64_t)d->global_bytes, l2,
                sm_khz / 1000.0, mem_khz / 1000.0, bus, coop, n_coop},
        .globaltimer_smallest_step_ns = rs->timer_step_ns,
        .globaltimer_mean_step_ns = rs->timer_mean_ns,
        .software = {d->driver_version, d->runtime_version, se_build_nvcc_version,
                     se_build_cuda_archs, se_build_cuda_flags, se_build_type,
                     (int64_t)se_cudnn_version(), (int64_t)se_cudnn_compiled_version(), curand_v},
        .host = {host, un.sysname, un.release, un.machine},
        /* Where it ran, as Slurm and the caller placed it (docs/SLURM.md). */
        .placement = {1, getenv("SLURM_JOB_ID"), getenv("SLURM_ARRAY_JOB_ID"),
                      getenv("SLURM_ARRAY_TASK_ID"), host, getenv("CUDA_VISIBLE_DEVICES"),
                      d->ordinal},
        .source = {commit[0] ? commit : "unknown", commit_from, git_dirty, SE_SOURCE_DIR},
        .argc = argc,
        .argv = argv,
    };
    return se_environment_json(&e);
}

static json_t *resources_json(const run_state *rs)
{
    const se_kernel_entry *tab;
    size_t n = se_gpu_kernel_table(&tab), nk = 0;
    se_kernel_resources *k = calloc(n ? n : 1, sizeof *k);
    se_launch_resources *l = calloc(rs->n_results ? rs->n_results : 1, sizeof *l);
    json_t *j = NULL;
    if (k && l) {
        for (size_t i = 0; i < n; i++) {
            struct cudaFuncAttributes a;
            int per_sm = 0;
            if (cudaFuncGetAttributes(&a, tab[i].fn) != cudaSuccess)
                continue;
            cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, tab[i].fn,
                                                          tab[i].block_threads, 0);
            k[nk++] = (se_kernel_resources){tab[i].name, tab[i].used_by, tab[i].block_threads,
                                            a.numRegs, (int64_t)a.sharedSizeBytes,
                                            (int64_t)a.localSizeBytes, (int64_t)a.constSizeBytes,
                                            a.maxThreadsPerBlock, a.ptxVersion, a.binaryVersion,
                                            per_sm};
        }
        for (size_t i = 0; i < rs->n_results; i++) {
            const se_validation *v = &rs->results[i];
            const se_strategy_info *s = se_strategy_get(v->strategy);
            l[i] = (se_launch_resources){v->shape.spec, s->name, s->launch, (int)v->graph_nodes,
                                         v->blocks};
        }
        j = se_resources_json(k, nk, l, rs->n_results);
    }
    free(k);
    free(l);
    return j;
}

static se_status write_sources(run_state *rs, se_source_file *list, se_err *err)
{
    for (size_t i = 0; i < se_embedded_count; i++) {
        const se_embedded_file *f = &se_embedded_files[i];
        se_source_file *s = &list[i];
        unsigned char d[32];
        snprintf(s->path, sizeof s->path, SE_SOURCE_PREFIX "%s", f->path);
        se_status st = se_rundir_write(&rs->rd, s->path, f->data, f->len, err);
        if (st == SE_OK)
            st = se_sha256_buffer(f->data, f->len, d, err);
        if (st != SE_OK)
            return st;
        se_hex32(d, s->sha256);
        s->bytes = f->len;
    }
    return SE_OK;
}

se_status se_run_write_bundle(run_state *rs, const se_protocol_source *src, int argc,
                              char **argv, json_t **summary, se_err *err)
{
    char *ptext = NULL;
    se_status st = se_protocol_write(rs->p, &ptext, err);
    unsigned char pd[32];
    char phex[65], srchex[65];
    if (st == SE_OK)
        st = se_rundir_write(&rs->rd, SE_PROTOCOL_JSON, ptext, strlen(ptext), err);
    if (st == SE_OK)
        st = se_sha256_buffer(ptext, strlen(ptext), pd, err);
    free(ptext);
    if (st != SE_OK)
        return st;
    se_hex32(pd, phex);
    se_hex32(src->sha256, srchex);
    /* The run's own table: what renders it later walks this, not the
     * table of the binary that renders it (bundle/describe.h). */
    json_t *j = se_describe_json(se_protocol_table(rs->p), se_protocol_operation(rs->p));
    st = j ? se_rundir_write_json(&rs->rd, SE_STRATEGIES_JSON, j, err)
           : se_fail(err, SE_ERR_NOMEM, "%s: out of memory", SE_STRATEGIES_JSON);
    json_decref(j);
    if (st != SE_OK)
        return st;
    j = validation_json(rs);
    st = se_rundir_write_json(&rs->rd, SE_VALIDATION_JSON, j, err);
    json_decref(j);
    if (st == SE_OK) {
        j = environment_json(rs, argc, argv);
        st = se_rundir_write_json(&rs->rd, SE_ENVIRONMENT_JSON, j, err);
        json_decref(j);
    }
    if (st == SE_OK) {
        j = resources_json(rs);
        st = se_rundir_write_json(&rs->rd, SE_RESOURCES_JSON, j, err);
        json_decref(j);
    }
    if (st == SE_OK)
        st = se_summary_build(rs->p, se_run_kept_source, rs, summary, err);
    if (st == SE_OK)
        st = se_rundir_write(&rs->rd, SE_TRACE_OUTPUTS_CSV, rs->trace_outputs ? rs->trace_outputs : "",
                             rs->trace_outputs_len, err);
    size_t trace_failures = 0;
    if (st == SE_OK) {
        /* Built from the files just written, exactly as verify rebuilds it. */
        j = NULL;
        st = se_traces_report(rs->p, rs->rd.tmp, SE_TASKGRAPH_VERSION, stderr, &j,
                              &trace_failures, err);
        if (st == SE_OK)
            st = se_rundir_write_json(&rs->rd, SE_TRACES_JSON, j, err);
        json_decref(j);
        if (st == SE_OK && trace_failures)
            fprintf(stderr, "warning: %zu traces fail their checks (listed above); the run "
                    "is kept as evidence and verify will fail it\n", trace_failures);
    }
    if (st == SE_OK) {
        j = NULL;
        st = se_peers_json(rs->peers, *summary, &j, err);
        if (st == SE_OK)
            st = se_rundir_write_json(&rs->rd, SE_PEERS_FILE, j, err);
        json_decref(j);
    }
    /* summary.json version 2: its derived results read validation.json and
     * peers.json, written above. */
    if (st == SE_OK)
        st = se_derived_add_dir(rs->p, rs->rd.tmp, *summary, err);
    if (st == SE_OK)
        st = se_rundir_write_json(&rs->rd, SE_SUMMARY_JSON, *summary, err);
    se_source_file *sources = calloc(se_embedded_count ? se_embedded_count : 1, sizeof *sources);
    if (st == SE_OK && !sources)
        st = se_fail(err, SE_ERR_NOMEM, SE_RUN_JSON ": out of memory");
    if (st == SE_OK)
        st = write_sources(rs, sources, err);
    if (st != SE_OK) {
        free(sources);
        return st;
    }
    se_run_utc_now(rs->finished, sizeof rs->finished);
    se_run_info info = {rs->rd.id, rs->started, rs->finished, src->name, srchex, phex,
                        rs->o->save_arrays, 1, rs->o->arrays_max_bytes, sources,
                        se_embedded_count,
                        !rs->o->no_blocking_kernel, SE_TASKGRAPH_VERSION, 1};
    j = se_run_json(&info);
    free(sources);
    st = se_rundir_write_json(&rs->rd, SE_RUN_JSON, j, err);
    json_decref(j);
    return st;
}
