/*
 * runner.c - the main job (see runner.h): per shape, prepare the case,
 * validate every strategy, time every strategy and the copy control in
 * every scope; then the run-level controls; then write the bundle and
 * rename the run directory into place.
 */
#define _POSIX_C_SOURCE 200809L
#include "run/runner.h"

#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <time.h>
#include <unistd.h>

#include <curand.h>
#include <jansson.h>

#include "bundle/embedded.h"
#include "bundle/fsutil.h"
#include "bundle/manifest.h"
#include "bundle/rundir.h"
#include "bundle/samples.h"
#include "bundle/derived.h"
#include "bundle/records.h"
#include "bundle/summary.h"
#include "bundle/trace.h"
#include "gpu/kernels.h"
#include "bundle/peers.h"
#include "run/peers_run.h"
#include "gpu/se_cuda.h"
#include "model/strategy.h"
#include "run/cudnn_ref.h"
#include "run/instance.h"
#include "run/strategies.h"
#include "run/timing.h"
#include "run/validate.h"

#ifndef SE_SOURCE_DIR
#define SE_SOURCE_DIR "."
#endif

/* Samples kept in memory for summary.json, found by case id. */
typedef struct kept_case {
    char id[96];
    se_sample_set scopes[SE_NSCOPES];
} kept_case;

typedef struct run_state {
    const se_protocol *p;
    const se_run_config *o;
    se_rundir rd;
    se_device_info dev;
    se_validation *results;
    size_t n_results;
    kept_case *kept;
    size_t n_kept;
    double timer_step_ns, timer_mean_ns, peak_mhz;
    se_peers_run *peers;   /* the PyTorch peers (docs/PEERS.md) */
    char *trace_outputs;   /* lines of traces/outputs.csv */
    size_t trace_outputs_len;
    char started[32], finished[32];
} run_state;

static void utc_now(char *buf, size_t size)
{
    time_t now = time(NULL);
    struct tm tm;
    gmtime_r(&now, &tm);
    strftime(buf, size, "%Y-%m-%dT%H:%M:%SZ", &tm);
}

static double mono_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static se_status keep(run_state *rs, const char *id, se_sample_set *scopes, se_err *err)
{
    kept_case *k = realloc(rs->kept, (rs->n_kept + 1) * sizeof *k);
    if (!k)
        return se_fail(err, SE_ERR_NOMEM, "samples: out of memory");
    rs->kept = k;
    kept_case *c = &rs->kept[rs->n_kept++];
    snprintf(c->id, sizeof c->id, "%s", id);
    memcpy(c->scopes, scopes, sizeof c->scopes);
    memset(scopes, 0, SE_NSCOPES * sizeof *scopes);
    return SE_OK;
}

static se_status kept_source(void *ctx, const se_case_id *c, se_sample_set *scopes, int *owned,
                             se_err *err)
{
    run_state *rs = ctx;
    *owned = 0;
    for (size_t i = 0; i < rs->n_kept; i++)
        if (strcmp(rs->kept[i].id, c->id) == 0) {
            memcpy(scopes, rs->kept[i].scopes, SE_NSCOPES * sizeof *scopes);
            return SE_OK;
        }
    return se_fail(err, SE_ERR_VALIDATION, "no samples were taken for case %s", c->id);
}

/* Writes one case's samples file and keeps the samples. */
static se_status save_samples(run_state *rs, const char *id, se_sample_set *scopes, int n_scopes,
                              se_err *err)
{
    char rel[160];
    snprintf(rel, sizeof rel, "samples/%s.csv", id);
    se_status st = se_rundir_write_samples(&rs->rd, rel, scopes, n_scopes, err);
    return st == SE_OK ? keep(rs, id, scopes, err) : st;
}

/* --save-arrays (within --arrays-max-bytes): each case's input once and
 * each strategy's output. */
static int saves_arrays(const se_run_config *o, const se_shape *s)
{
    int64_t bytes = s->rows * s->cols * (int64_t)sizeof(float);
    return o->save_arrays && (o->arrays_max_bytes == 0 || bytes <= o->arrays_max_bytes);
}

/* arrays/<rows>x<cols>.<name>.y.f32, within --save-arrays' limit. */
static se_status save_array(run_state *rs, const se_shape *s, const char *name, const float *y,
                            se_err *err)
{
    if (!saves_arrays(rs->o, s))
        return SE_OK;
    char rel[160];
    size_t bytes = (size_t)(s->rows * s->cols) * sizeof(float);
    snprintf(rel, sizeof rel, "arrays/%" PRId64 "x%" PRId64 ".%s.y.f32", s->rows, s->cols, name);
    return se_rundir_write(&rs->rd, rel, y, bytes, err);
}

static se_status save_output(void *ctx, const se_validation *v, const float *y, se_err *err)
{
    return save_array(ctx, &v->shape, se_strategy_get(v->strategy)->name, y, err);
}

static se_status save_peer_output(void *ctx, const se_shape *s, const char *peer, const float *y,
                                  se_err *err)
{
    return save_array(ctx, s, peer, y, err);
}

static se_status time_shape(run_state *rs, size_t si, se_case *c, se_cudnn *cudnn,
                            se_timer *t, se_err *err)
{
    const se_protocol *p = rs->p;
    se_timed items[SE_NSTRATEGIES + 2];
    se_instance inst[SE_NSTRATEGIES + 1];
    size_t n = 0;
    se_status st = SE_OK;
    memset(items, 0, sizeof items);
    for (int s = 0; s < SE_NSTRATEGIES && st == SE_OK; s++) {
        if (!((p->strategies >> s) & 1u))
            continue;
        int blocks = se_coop_blocks(p, rs->o, &rs->dev, (se_strategy)s, &c->shape);
        st = se_instance_prepare(&inst[n], (se_strategy)s, c, blocks, cudnn, t->stream, err);
        if (st != SE_OK)
            break;
        items[n].inst = &inst[n];
        snprintf(items[n].name, sizeof items[n].name, "%s", se_strategy_get((se_strategy)s)->name);
        n++;
    }
    /* The megakernel's queue initialization on its own, on the megakernel's
     * grid, when a megakernel strategy is timed. */
    if (st == SE_OK && se_selects_megakernel(p)) {
        int blocks = se_coop_blocks(p, rs->o, &rs->dev, SE_S_MEGAKERNEL, &c->shape);
        st = se_instance_prepare_mk_init(&inst[n], c, blocks, err);
        if (st == SE_OK) {
            items[n].inst = &inst[n];
            snprintf(items[n].name, sizeof items[n].name, "%s", SE_MK_INIT_NAME);
            n++;
        }
    }
    size_t n_inst = n;
    if (st == SE_OK) {
        snprintf(items[n].name, sizeof items[n].name, "copy");
        items[n].copy_src = c->x;
        items[n].copy_dst = c->y;
        items[n].copy_bytes = (size_t)(c->shape.rows * c->shape.cols) * sizeof(float);
        n++;
        st = se_time_case(t, p, (int)si, items, n, err);
    }
    for (size_t i = 0; i < n_inst; i++)
        se_instance_destroy(&inst[i]);
    for (size_t i = 0; i < n && st == SE_OK; i++) {
        char id[96];
        snprintf(id, sizeof id, "%" PRId64 "x%" PRId64 ".%.31s", c->shape.rows, c->shape.cols,
                 items[i].name);
        st = save_samples(rs, id, items[i].scope, SE_NSCOPES, err);
    }
    for (size_t i = 0; i < n; i++)
        for (int sc = 0; sc < SE_NSCOPES; sc++)
            se_sample_set_free(&items[i].scope[sc]);
    return st;
}

static se_status append_output_line(run_state *rs, const char *line, se_err *err)
{
    size_t n = strlen(line);
    char *b = realloc(rs->trace_outputs, rs->trace_outputs_len + n + 1);
    if (!b)
        return se_fail(err, SE_ERR_NOMEM, "traces: out of memory");
    memcpy(b + rs->trace_outputs_len, line, n + 1);
    rs->trace_outputs = b;
    rs->trace_outputs_len += n;
    return SE_OK;
}

/* One traced invocation of strategy s: its records (traces/<case>.csv),
 * its output hash, and the tracing cost against the untraced instance,
 * interleaved (traces/<case>.untraced.csv and .traced.csv). */
static se_status trace_strategy(run_state *rs, se_case *c, se_strategy s, se_trace_buf tb,
                                se_timer *t, se_err *err)
{
    const se_protocol *p = rs->p;
    int kind = se_trace_kind_of(s);
    se_taskgeom g = se_taskgeom_make(c->shape.rows, c->shape.cols, p->tile);
    int blocks = se_coop_blocks(p, rs->o, &rs->dev, s, &c->shape);
    se_instance traced, plain;
    se_status st = se_instance_prepare_traced(&traced, s, c, blocks, tb, t->stream, err);
    if (st != SE_OK)
        return st;
    st = se_instance_prepare(&plain, s, c, blocks, NULL, t->stream, err);
    if (st != SE_OK) {
        se_instance_destroy(&traced);
        return st;
    }
    size_t n = (size_t)(c->shape.rows * c->shape.cols);
    float *y = malloc(n * sizeof *y);
    se_trace tr = {malloc((size_t)tb.cap * sizeof *tr.v), 0};
    se_trace_rec *raw = malloc((size_t)tb.cap * sizeof *raw);
    int32_t count = 0;
    if (!y || !tr.v || !raw)
        st = se_fail(err, SE_ERR_NOMEM, "traces: out of memory");
    /* A warm-up invocation, then the recorded one. */
    for (int k = 0; k < 2 && st == SE_OK; k++) {
        if (cudaMemsetAsync(tb.count, 0, sizeof(int32_t), t->stream) != cudaSuccess)
            st = se_fail(err, SE_ERR_CUDA, "resetting the trace counter failed");
        if (st == SE_OK)
            st = se_instance_enqueue(&traced, t->stream, err);
        if (st == SE_OK && cudaStreamSynchronize(t->stream) != cudaSuccess)
            st = se_fail(err, SE_ERR_CUDA, "traced %s: %s", se_strategy_get(s)->name,
                         cudaGetErrorString(cudaGetLastError()));
    }
    if (st == SE_OK && (cudaMemcpy(&count, tb.count, sizeof count, cudaMemcpyDeviceToHost) != cudaSuccess ||
                        cudaMemcpy(raw, tb.rec, (size_t)(count < tb.cap ? count : tb.cap) * sizeof *raw,
                                   cudaMemcpyDeviceToHost) != cudaSuccess ||
                        cudaMemcpy(y, c->y, n * sizeof *y, cudaMemcpyDeviceToHost) != cudaSuccess))
        st = se_fail(err, SE_ERR_CUDA, "copying the trace back failed");
    char id[128], rel[200], line[300], hex[65];
    snprintf(id, sizeof id, "%" PRId64 "x%" PRId64 ".%s", c->shape.rows, c->shape.cols,
             se_strategy_get(s)->name);
    if (st == SE_OK) {
        tr.n = (size_t)(count < tb.cap ? count : tb.cap);
        for (size_t i = 0; i < tr.n; i++) {
            tr.v[i].task = raw[i].task;
            tr.v[i].block = raw[i].block;
            tr.v[i].sm = raw[i].sm;
            tr.v[i].start_ns = raw[i].start_ns;
            tr.v[i].end_ns = raw[i].end_ns;
        }
        snprintf(rel, sizeof rel, "traces/%s.csv", id);
        FILE *f;
        st = se_rundir_fopen(&rs->rd, rel, &f, err);
        if (st == SE_OK) {
            st = se_trace_write(f, &g, (se_trace_kind)kind, &tr, err);
            se_status st2 = se_rundir_fclose(f, rel, err);
            st = st == SE_OK ? st2 : st;
        }
    }
    if (st == SE_OK) {
        unsigned char d[32];
        st = se_sha256_buffer(y, n * sizeof *y, d, err);
        se_hex32(d, hex);
        snprintf(line, sizeof line, "%s,%d,%d,%s\n", id, (int)count,
                 count > tb.cap ? (int)(count - tb.cap) : 0, hex);
        if (st == SE_OK)
            st = append_output_line(rs, line, err);
    }
    se_timed a, b;
    memset(&a, 0, sizeof a);
    memset(&b, 0, sizeof b);
    a.inst = &plain;
    b.inst = &traced;
    if (st == SE_OK)
        st = se_time_pair(t, &a, &b, tb.count, sizeof(int32_t), p->device.samples,
                          p->device.warmup, err);
    for (int k = 0; k < 2 && st == SE_OK; k++) {
        snprintf(rel, sizeof rel, "traces/%s.%s.csv", id, k ? "traced" : "untraced");
        st = se_rundir_write_samples(&rs->rd, rel, (k ? &b : &a)->scope, 1, err);
    }
    se_sample_set_free(&a.scope[0]);
    se_sample_set_free(&b.scope[0]);
    free(y);
    free(raw);
    se_trace_free(&tr);
    se_instance_destroy(&traced);
    se_instance_destroy(&plain);
    return st;
}

/* The traced runs of one shape, separate from its timed runs. */
static se_status trace_shape(run_state *rs, se_case *c, se_timer *t, se_err *err)
{
    const se_protocol *p = rs->p;
    se_taskgeom g = se_taskgeom_make(c->shape.rows, c->shape.cols, p->tile);
    /* Room for every task twice, so that duplicates are recorded too. */
    se_trace_buf tb = {NULL, NULL, (int32_t)(2 * (g.total > g.rows ? g.total : g.rows) + 64)};
    if (cudaMalloc((void **)&tb.rec, (size_t)tb.cap * sizeof *tb.rec) != cudaSuccess ||
        cudaMalloc((void **)&tb.count, sizeof(int32_t)) != cudaSuccess) {
        cudaFree(tb.rec);
        return se_fail(err, SE_ERR_CUDA, "shape %s: allocating the trace buffer failed",
                       c->shape.spec);
    }
    se_status st = SE_OK;
    for (int s = 0; s < SE_NSTRATEGIES && st == SE_OK; s++)
        if (se_traced(p, s))
            st = trace_strategy(rs, c, (se_strategy)s, tb, t, err);
    cudaFree(tb.rec);
    cudaFree(tb.count);
    return st;
}

static void progress(const run_state *rs, size_t done, double t0, const char *what,
                     const se_shape *shape)
{
    if (rs->o->quiet)
        return;
    double w_done = 0.0, w_all = 0.0;
    for (size_t i = 0; i < rs->p->n_shapes; i++) {
        double w = (double)(rs->p->shapes[i].rows * rs->p->shapes[i].cols) + 4e6;
        w_all += w;
        if (i < done)
            w_done += w;
    }
    double el = mono_s() - t0;
    if (w_done > 0.0)
        fprintf(stderr, "[case %zu of %zu] %s %s (%.0f s elapsed, about %.0f s left)\n", done + 1,
                rs->p->n_shapes, what, shape->spec, el, el * (w_all - w_done) / w_done);
    else
        fprintf(stderr, "[case %zu of %zu] %s %s\n", done + 1, rs->p->n_shapes, what, shape->spec);
}

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
        commit_from = "not known: the source tree had no git history; source_files in run.json "
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
        snprintf(s->path, sizeof s->path, "source/%s", f->path);
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

static se_status write_bundle(run_state *rs, const se_protocol_source *src, int argc,
                              char **argv, json_t **summary, se_err *err)
{
    char *ptext = NULL;
    se_status st = se_protocol_write(rs->p, &ptext, err);
    unsigned char pd[32];
    char phex[65], srchex[65];
    if (st == SE_OK)
        st = se_rundir_write(&rs->rd, "protocol.json", ptext, strlen(ptext), err);
    if (st == SE_OK)
        st = se_sha256_buffer(ptext, strlen(ptext), pd, err);
    free(ptext);
    if (st != SE_OK)
        return st;
    se_hex32(pd, phex);
    se_hex32(src->sha256, srchex);
    json_t *j = validation_json(rs);
    st = se_rundir_write_json(&rs->rd, "validation.json", j, err);
    json_decref(j);
    if (st == SE_OK) {
        j = environment_json(rs, argc, argv);
        st = se_rundir_write_json(&rs->rd, "environment.json", j, err);
        json_decref(j);
    }
    if (st == SE_OK) {
        j = resources_json(rs);
        st = se_rundir_write_json(&rs->rd, "resources.json", j, err);
        json_decref(j);
    }
    if (st == SE_OK)
        st = se_summary_build(rs->p, kept_source, rs, summary, err);
    if (st == SE_OK)
        st = se_rundir_write(&rs->rd, "traces/outputs.csv", rs->trace_outputs ? rs->trace_outputs : "",
                             rs->trace_outputs_len, err);
    size_t trace_failures = 0;
    if (st == SE_OK) {
        /* Built from the files just written, exactly as verify rebuilds it. */
        j = NULL;
        st = se_traces_report(rs->p, rs->rd.tmp, stderr, &j, &trace_failures, err);
        if (st == SE_OK)
            st = se_rundir_write_json(&rs->rd, "traces.json", j, err);
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
        st = se_rundir_write_json(&rs->rd, "summary.json", *summary, err);
    se_source_file *sources = calloc(se_embedded_count ? se_embedded_count : 1, sizeof *sources);
    if (st == SE_OK && !sources)
        st = se_fail(err, SE_ERR_NOMEM, "run.json: out of memory");
    if (st == SE_OK)
        st = write_sources(rs, sources, err);
    if (st != SE_OK) {
        free(sources);
        return st;
    }
    utc_now(rs->finished, sizeof rs->finished);
    se_run_info info = {rs->rd.id, rs->started, rs->finished, src->name, srchex, phex,
                        rs->o->save_arrays, sources, se_embedded_count,
                        !rs->o->no_blocking_kernel};
    j = se_run_json(&info);
    free(sources);
    st = se_rundir_write_json(&rs->rd, "run.json", j, err);
    json_decref(j);
    return st;
}

static se_status run_cases(run_state *rs, se_cudnn *cudnn, se_timer *t, FILE *out, se_err *err)
{
    const se_protocol *p = rs->p;
    double t0 = mono_s();
    se_status st = SE_OK;
    se_validation_print_header(out);
    for (size_t i = 0; i < p->n_shapes && st == SE_OK; i++) {
        const se_shape *sh = &p->shapes[i];
        se_case c;
        se_case_host h;
        progress(rs, i, t0, "validating and timing", sh);
        st = se_case_prepare(p, sh, cudnn, t->stream, &c, &h, err);
        if (st != SE_OK)
            break;
        if (st == SE_OK && se_peers_active(rs->peers)) {
            /* The peers get the same x, and the same pre-scaled xp as cuDNN. */
            size_t bytes = (size_t)(sh->rows * sh->cols) * sizeof(float);
            if (cudaMemcpy(h.out, c.xs, bytes, cudaMemcpyDeviceToHost) != cudaSuccess)
                st = se_fail(err, SE_ERR_CUDA, "shape %s: copying the pre-scaled input failed",
                             sh->spec);
            else
                se_peers_add_shape(rs->peers, i, h.x, h.out, h.input_sha256);
        }
        if (st == SE_OK && saves_arrays(rs->o, sh)) {
            char rel[128];
            snprintf(rel, sizeof rel, "arrays/%" PRId64 "x%" PRId64 ".x.f32", sh->rows, sh->cols);
            st = se_rundir_write(&rs->rd, rel, h.x, (size_t)(sh->rows * sh->cols) * sizeof(float),
                                 err);
        }
        if (st == SE_OK)
            st = se_validate_strategies(p, rs->o, &rs->dev, &c, &h, i, cudnn, t->stream, out,
                                        rs->results, &rs->n_results, save_output, rs, err);
        if (st == SE_OK && se_rundir_interrupted())
            st = se_fail(err, SE_ERR_IO, "interrupted");
        if (st == SE_OK)
            st = time_shape(rs, i, &c, cudnn, t, err);
        if (st == SE_OK)
            st = trace_shape(rs, &c, t, err);
        if (st == SE_OK && se_rundir_interrupted())
            st = se_fail(err, SE_ERR_IO, "interrupted");
        se_case_release(&c, &h);
    }
    return st;
}

se_status se_run_main(const se_protocol *p, const se_run_config *o, const se_protocol_source *src,
                      int argc, char **argv, FILE *out, se_run_outcome *outcome, se_err *err)
{
    run_state rs;
    memset(&rs, 0, sizeof rs);
    memset(outcome, 0, sizeof *outcome);
    rs.p = p;
    rs.o = o;
    utc_now(rs.started, sizeof rs.started);
    if (o->peers_script && access(o->peers_script, R_OK) != 0)
        return se_fail(err, SE_ERR_USAGE, "--peers-script: %s cannot be read: %s", o->peers_script,
                       strerror(errno));
    /* The runs folder first: it is checked before any GPU work. */
    se_status st = se_rundir_begin(&rs.rd, o->runs_dir, err);
    if (st != SE_OK)
        return st;
    st = se_validate_preflight(p, o, &rs.dev, err);
    se_peers_opts po = {o->peers_python ? o->peers_python : "python3",
                        o->peers_script ? o->peers_script : SE_SOURCE_DIR "/bench/peers.py",
                        o->device, o->quiet, o->no_peers ? "--no-peers was given" : NULL};
    if (st == SE_OK)
        st = se_peers_begin(&rs.peers, p, &po, err);
    if (st != SE_OK) {
        se_rundir_abort(&rs.rd);
        return st;
    }
    rs.results = calloc(p->n_shapes * SE_NSTRATEGIES, sizeof *rs.results);
    cudaStream_t stream = NULL;
    se_cudnn *cudnn = NULL;
    se_timer t;
    memset(&t, 0, sizeof t);
    json_t *summary = NULL;
    if (!rs.results)
        st = se_fail(err, SE_ERR_NOMEM, "results: out of memory");
    if (st == SE_OK && cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking) != cudaSuccess)
        st = se_fail(err, SE_ERR_CUDA, "cudaStreamCreate failed");
    if (st == SE_OK)
        st = se_cudnn_create(&cudnn, stream, err);
    if (st == SE_OK)
        st = se_timer_init(&t, stream, p->throttle_fraction, o->quiet, !o->no_blocking_kernel, err);
    if (st == SE_OK)
        st = se_timer_resolution(&t, &rs.timer_step_ns, &rs.timer_mean_ns, err);
    if (st == SE_OK) {
        fprintf(out, "run %s on %s (%d SMs), protocol %s\n", rs.rd.id, rs.dev.name,
                rs.dev.sm_count, src->name);
        st = run_cases(&rs, cudnn, &t, out, err);
    }
    se_timed controls[SE_NCONTROLS];
    memset(controls, 0, sizeof controls);
    if (st == SE_OK) {
        if (!o->quiet)
            fprintf(stderr, "[controls] empty launches, cooperative no-op, grid barriers\n");
        /* The cooperative no-op and the barriers on the fusion kernel's
         * grid: the grid the barrier cost is compared with. */
        st = se_time_controls(&t, p, rs.dev.sm_count, rs.dev.coop_max_blocks[SE_S_FUSION],
                              controls, err);
    }
    for (int i = 0; i < SE_NCONTROLS && st == SE_OK; i++) {
        char id[96];
        snprintf(id, sizeof id, "control.%.31s", controls[i].name);
        st = save_samples(&rs, id, controls[i].scope, 1, err);
    }
    for (int i = 0; i < SE_NCONTROLS; i++)
        se_sample_set_free(&controls[i].scope[0]);
    /* The peers, after everything the harness times itself; their samples
     * are numbered after the run's own. */
    if (st == SE_OK)
        st = se_peers_measure(rs.peers, &rs.rd, t.seq, save_peer_output, &rs, err);
    if (st == SE_OK)
        st = write_bundle(&rs, src, argc, argv, &summary, err);
    if (st == SE_OK)
        st = se_rundir_finish(&rs.rd, err);
    se_timer_destroy(&t);
    se_cudnn_destroy(cudnn);
    if (stream)
        cudaStreamDestroy(stream);
    size_t failed = 0;
    for (size_t i = 0; i < rs.n_results; i++)
        failed += !rs.results[i].pass;
    se_peers_end(rs.peers);
    if (st == SE_OK) {
        snprintf(outcome->dir, sizeof outcome->dir, "%s", rs.rd.final);
        outcome->cases = rs.n_results;
        outcome->failed = failed;
        if (failed)
            st = se_fail(err, SE_ERR_VALIDATION, "%zu of %zu cases failed validation; the run "
                         "was kept in %s", failed, rs.n_results, rs.rd.final);
    } else {
        se_rundir_abort(&rs.rd);
        if (se_rundir_interrupted()) {
            char why[sizeof err->msg];
            snprintf(why, sizeof why, "%s", err->msg);
            se_fail(err, SE_ERR_IO, "%s; the incomplete run directory was removed and no run "
                    "was written", why);
        }
    }
    json_decref(summary);
    for (size_t i = 0; i < rs.n_kept; i++)
        for (int sc = 0; sc < SE_NSCOPES; sc++)
            se_sample_set_free(&rs.kept[i].scopes[sc]);
    free(rs.kept);
    free(rs.results);
    free(rs.trace_outputs);
    return st;
}
