/*
 * tracing.c - the traced runs of a GPU run (see run_state.h): one traced
 * invocation per (shape, traced strategy), separate from the timed runs,
 * its task records, its output hash and the tracing cost against the
 * untraced instance (docs/TRACES.md).
 */
#include "run/run_state.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bundle/paths.h"
#include "bundle/sha256.h"
#include "bundle/trace.h"
#include "gpu/se_cuda.h"
#include "model/operation.h"
#include "model/strategy.h"
#include "run/instance.h"
#include "run/validate.h"

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
    int kind = se_trace_kind_of(p, s);
    se_taskgeom g = se_taskgeom_make_p(c->shape.rows, c->shape.cols, p->tile,
                                       SE_TASKGRAPH_VERSION, se_protocol_operation(p)->n_phases);
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
        se_path_trace(id, rel, sizeof rel);
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
        se_path_trace_timed(id, k, rel, sizeof rel);
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
se_status se_run_trace_shape(run_state *rs, se_case *c, se_timer *t, se_err *err)
{
    const se_protocol *p = rs->p;
    if (se_trace_too_large(p, &c->shape))
        return SE_OK; /* timed and validated, not traced (SE_TRACE_MAX_ROW_TILES) */
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
    for (int s = 0; s < se_protocol_nstrategies(p) && st == SE_OK; s++)
        if (se_traced_case(p, s, &c->shape))
            st = trace_strategy(rs, c, (se_strategy)s, tb, t, err);
    cudaFree(tb.rec);
    cudaFree(tb.count);
    return st;
}
