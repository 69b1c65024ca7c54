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
#include <time.h>
#include <unistd.h>

#include <jansson.h>

#include "bundle/paths.h"
#include "bundle/rederive.h"
#include "bundle/rundir.h"
#include "bundle/samples.h"
#include "gpu/kernels.h"
#include "run/peers_run.h"
#include "gpu/se_cuda.h"
#include "model/strategy.h"
#include "run/cudnn_ref.h"
#include "run/instance.h"
#include "run/timing.h"
#include "run/run_state.h"
#include "run/validate.h"

#ifndef SE_SOURCE_DIR
#define SE_SOURCE_DIR "."
#endif

void se_run_utc_now(char *buf, size_t size)
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

se_status se_run_kept_source(void *ctx, const se_case_id *c, se_sample_set *scopes, int *owned,
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
    se_path_samples(id, rel, sizeof rel);
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
    char id[SE_CASE_ID_SIZE];
    se_case_id_make(s->rows, s->cols, name, id, sizeof id);
    se_path_array_y(id, rel, sizeof rel);
    return se_rundir_write(&rs->rd, rel, y, bytes, err);
}

/* checks/<shape>.x.f32 (short rows) or checks/<id>.y.f32: the values of
 * a full array that bundle/rederive.h's plan keeps, for a reader to re-check
 * the case on a CPU. */
static se_status save_check(run_state *rs, const se_shape *s, const char *name, const float *a,
                            se_err *err)
{
    se_check_plan plan;
    se_status st = se_check_plan_make(s->rows, s->cols, rs->p->seed, &plan, err);
    if (st != SE_OK)
        return st;
    char rel[SE_CASE_ID_SIZE + 40], id[SE_CASE_ID_SIZE];
    if (name) {
        se_case_id_make(s->rows, s->cols, name, id, sizeof id);
        se_path_check_y(id, rel, sizeof rel);
    } else {
        se_path_check_x(s->rows, s->cols, rel, sizeof rel);
    }
    float *v = NULL;
    if (name || plan.whole_rows) {
        v = malloc((plan.n_values ? plan.n_values : 1) * sizeof *v);
        if (!v)
            st = se_fail(err, SE_ERR_NOMEM, "%s: out of memory", rel);
        if (st == SE_OK) {
            se_check_extract(&plan, a, v);
            st = se_rundir_write(&rs->rd, rel, v, plan.n_values * sizeof *v, err);
        }
    }
    free(v);
    se_check_plan_free(&plan);
    return st;
}

static se_status save_output(void *ctx, const se_validation *v, const float *y, se_err *err)
{
    const char *name = se_strategy_get(v->strategy)->name;
    se_status st = save_check(ctx, &v->shape, name, y, err);
    return st == SE_OK ? save_array(ctx, &v->shape, name, y, err) : st;
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
    /* A strategy's initialization on its own (its init_control: the
     * megakernel's), on its grid, when such a strategy is timed. */
    int init = se_init_control_of(p);
    if (st == SE_OK && init >= 0) {
        int blocks = se_coop_blocks(p, rs->o, &rs->dev, (se_strategy)init, &c->shape);
        st = se_instance_prepare_init(&inst[n], (se_strategy)init, c, blocks, err);
        if (st == SE_OK) {
            items[n].inst = &inst[n];
            snprintf(items[n].name, sizeof items[n].name, "%s",
                     se_strategy_get((se_strategy)init)->init_control);
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
        fprintf(stderr, "[%zu/%zu] %s %" PRId64 "x%" PRId64 " (%.0f s elapsed, about %.0f s left)\n",
                done + 1, rs->p->n_shapes, what, shape->rows, shape->cols, el,
                el * (w_all - w_done) / w_done);
    else
        fprintf(stderr, "[%zu/%zu] %s %" PRId64 "x%" PRId64 "\n", done + 1, rs->p->n_shapes, what,
                shape->rows, shape->cols);
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
            /* The peers get the same x, and the same pre-scaled xp as cuDNN
             * where the operation has one (LayerNorm's peers take x only). */
            size_t bytes = (size_t)(sh->rows * sh->cols) * sizeof(float);
            if (!c.xs)
                se_peers_add_shape(rs->peers, i, h.x, NULL, h.input_sha256);
            else if (cudaMemcpy(h.out, c.xs, bytes, cudaMemcpyDeviceToHost) != cudaSuccess)
                st = se_fail(err, SE_ERR_CUDA, "shape %s: copying the pre-scaled input failed",
                             sh->spec);
            else
                se_peers_add_shape(rs->peers, i, h.x, h.out, h.input_sha256);
        }
        if (st == SE_OK)
            st = save_check(rs, sh, NULL, h.x, err);
        if (st == SE_OK && saves_arrays(rs->o, sh)) {
            char rel[128];
            se_path_array_x(sh->rows, sh->cols, rel, sizeof rel);
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
            st = se_run_trace_shape(rs, &c, t, err);
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
    se_run_utc_now(rs.started, sizeof rs.started);
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
        st = se_run_write_bundle(&rs, src, argc, argv, &summary, err);
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
