/*
 * timing.c - the measurement scopes and controls (see timing.h).
 *
 * Each sample: the SM clock probe runs first (outside the timed region),
 * then for the cold scope the L2 flush, then the timed region. Strategies
 * are interleaved: in every round each item takes one sample, in an order
 * drawn from a seeded generator and recorded with the sample, so drift on
 * a shared GPU favours none of them.
 */
#define _POSIX_C_SOURCE 200809L
#include "run/timing.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "bundle/rundir.h"
#include "gpu/kernels.h"
#include "gpu/se_cuda.h"
#include "model/stats.h"

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static int64_t now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}


se_status se_timer_init(se_timer *t, cudaStream_t stream, double throttle_fraction, int quiet,
                        int blocking, se_err *err)
{
    memset(t, 0, sizeof *t);
    t->blocking = blocking;
    t->stream = stream;
    t->throttle_fraction = throttle_fraction;
    t->quiet = quiet;
    t->started_s = now_s();
    int dev, l2 = 0, khz = 0;
    SE_CUDA_TRY(cudaGetDevice(&dev));
    SE_CUDA_TRY(cudaDeviceGetAttribute(&l2, cudaDevAttrL2CacheSize, dev));
    SE_CUDA_TRY(cudaDeviceGetAttribute(&khz, cudaDevAttrClockRate, dev));
    t->peak_mhz = khz / 1000.0;
    /* About 10 us of cycles at the peak clock: the probe's error from the
     * 32 ns timer step stays near 0.3%. */
    t->probe_cycles = (long long)(t->peak_mhz * 10.0);
    if (t->probe_cycles < 1000)
        t->probe_cycles = 1000;
    t->flush_bytes = 2 * (size_t)(l2 > 0 ? l2 : (64 << 20));
    SE_CUDA_TRY(cudaEventCreate(&t->start));
    SE_CUDA_TRY(cudaEventCreate(&t->stop));
    SE_CUDA_TRY(cudaMalloc(&t->flush, t->flush_bytes));
    SE_CUDA_TRY(cudaMalloc((void **)&t->probe, 4 * sizeof(unsigned long long)));
    int *flags;
    SE_CUDA_TRY(cudaHostAlloc((void **)&flags, 2 * sizeof(int), cudaHostAllocMapped));
    flags[0] = flags[1] = 0;
    t->release_host = flags;
    t->timed_out_host = flags + 1;
    int *dflags;
    SE_CUDA_TRY(cudaHostGetDevicePointer((void **)&dflags, flags, 0));
    t->release_dev = dflags;
    t->timed_out_dev = dflags + 1;
    return SE_OK;
}

void se_timer_destroy(se_timer *t)
{
    if (t->start)
        cudaEventDestroy(t->start);
    if (t->stop)
        cudaEventDestroy(t->stop);
    cudaFree(t->flush);
    cudaFree(t->probe);
    if (t->release_host)
        cudaFreeHost((void *)t->release_host);
    memset(t, 0, sizeof *t);
}

/* Enqueues one instance of an item (a strategy instance or the copy). */
static se_status enqueue_item(se_timer *t, se_timed *it, se_err *err)
{
    if (it->inst)
        return se_instance_enqueue(it->inst, t->stream, err);
    SE_CUDA_TRY(cudaMemcpyAsync(it->copy_dst, it->copy_src, it->copy_bytes,
                                cudaMemcpyDeviceToDevice, t->stream));
    return SE_OK;
}

/* Runs the clock probe and returns the SM clock in MHz. */
static se_status probe_clock(se_timer *t, double *mhz, se_err *err)
{
    unsigned long long v[2];
    se_status st = se_gpu_clock_probe_enqueue(t->probe, t->probe_cycles, t->stream, err);
    if (st != SE_OK)
        return st;
    SE_CUDA_TRY(cudaMemcpyAsync(v, t->probe, sizeof v, cudaMemcpyDeviceToHost, t->stream));
    SE_CUDA_TRY(cudaStreamSynchronize(t->stream));
    *mhz = v[1] ? (double)v[0] * 1000.0 / (double)v[1] : 0.0;
    return SE_OK;
}

/* Enqueues the blocking kernel: the timed region's launches queue up
 * behind it until release_and_time lets it go. */
static se_status hold_stream(se_timer *t, se_err *err)
{
    if (!t->blocking)
        return SE_OK;
    *t->release_host = 0;
    *t->timed_out_host = 0;
    __sync_synchronize();
    return se_gpu_block_until_enqueue(t->release_dev, t->timed_out_dev, 1000000000ull, t->stream,
                                      err);
}

/* Releases the blocking kernel (always, even after a failed enqueue, so the
 * stream drains) and reads the events' elapsed time per instance. */
static se_status release_and_time(se_timer *t, se_status st, int n, double *ns, se_err *err)
{
    __sync_synchronize();
    *t->release_host = 1;
    if (st != SE_OK) {
        cudaStreamSynchronize(t->stream);
        return st;
    }
    SE_CUDA_TRY(cudaEventSynchronize(t->stop));
    if (*t->timed_out_host)
        return se_fail(err, SE_ERR_CUDA, "the blocking kernel timed out after 1 s before the "
                       "timed launches were enqueued; the host is too slow to time this");
    float ms = 0.0f;
    SE_CUDA_TRY(cudaEventElapsedTime(&ms, t->start, t->stop));
    *ns = (double)ms * 1e6 / (double)n;
    return SE_OK;
}

/* One timed sample of `it` in scope `sc` (`batch` instances for the batch
 * scope), returned as nanoseconds per instance. */
static se_status take(se_timer *t, se_timed *it, se_scope sc, int batch, double *ns, se_err *err)
{
    se_status st = SE_OK;
    if (sc == SE_SCOPE_DEVICE_COLD)
        SE_CUDA_TRY(cudaMemsetAsync(t->flush, (int)(t->seq & 0xff), t->flush_bytes, t->stream));
    if (sc == SE_SCOPE_HOST) {
        SE_CUDA_TRY(cudaStreamSynchronize(t->stream));
        int64_t t0 = now_ns();
        st = enqueue_item(t, it, err);
        if (st != SE_OK)
            return st;
        SE_CUDA_TRY(cudaStreamSynchronize(t->stream));
        *ns = (double)(now_ns() - t0);
        return SE_OK;
    }
    int n = sc == SE_SCOPE_BATCH ? batch : 1;
    st = hold_stream(t, err);
    if (st != SE_OK)
        return st;
    SE_CUDA_TRY(cudaEventRecord(t->start, t->stream));
    for (int i = 0; i < n && st == SE_OK; i++)
        st = enqueue_item(t, it, err);
    if (st == SE_OK && cudaEventRecord(t->stop, t->stream) != cudaSuccess)
        st = se_fail(err, SE_ERR_CUDA, "cudaEventRecord failed");
    return release_and_time(t, st, n, ns, err);
}

static const se_scope_cfg *scope_cfg(const se_protocol *p, se_scope sc)
{
    switch (sc) {
    case SE_SCOPE_DEVICE: return &p->device;
    case SE_SCOPE_DEVICE_COLD: return &p->device_cold;
    case SE_SCOPE_BATCH: return &p->batch;
    default: return &p->host;
    }
}

/* The order of the items in one round: a Fisher-Yates shuffle from a
 * generator seeded by (order_seed, case, scope, round). */
static void round_order(uint64_t order_seed, int case_index, int scope, int round, size_t n,
                        size_t *order)
{
    uint64_t st = se_rng_seed(order_seed ^ ((uint64_t)case_index << 40) ^
                              ((uint64_t)scope << 32) ^ (uint64_t)round);
    for (size_t i = 0; i < n; i++)
        order[i] = i;
    for (size_t i = n; i > 1; i--) {
        size_t j = (size_t)(se_rng_next(&st) % i);
        size_t tmp = order[i - 1];
        order[i - 1] = order[j];
        order[j] = tmp;
    }
}

/* Warm-up, then `samples` interleaved rounds of one scope. */
static se_status time_scope(se_timer *t, const se_protocol *p, const se_scope_cfg *cfg,
                            se_scope sc, int case_index, se_timed *items, size_t n_items,
                            se_err *err)
{
    se_status st = SE_OK;
    size_t *order = malloc(n_items * sizeof *order);
    if (!order)
        return se_fail(err, SE_ERR_NOMEM, "timing: out of memory");
    for (size_t i = 0; i < n_items && st == SE_OK; i++)
        for (int w = 0; w < cfg->warmup && st == SE_OK; w++) {
            double ignored;
            st = take(t, &items[i], sc, cfg->batch, &ignored, err);
        }
    for (int r = 0; r < cfg->samples && st == SE_OK; r++) {
        if (se_rundir_interrupted()) {
            st = se_fail(err, SE_ERR_IO, "interrupted");
            break;
        }
        round_order(p->order_seed, case_index, (int)sc, r, n_items, order);
        for (size_t k = 0; k < n_items && st == SE_OK; k++) {
            se_timed *it = &items[order[k]];
            se_sample s = {0};
            st = probe_clock(t, &s.sm_mhz, err);
            if (st == SE_OK)
                st = take(t, it, sc, cfg->batch, &s.ns, err);
            if (st != SE_OK)
                break;
            s.seq = t->seq++;
            s.round = r;
            s.position = (int)k;
            s.throttled = s.sm_mhz < t->throttle_fraction * t->peak_mhz;
            st = se_sample_set_push(&it->scope[sc], &s, err);
        }
    }
    free(order);
    return st;
}

se_status se_time_case(se_timer *t, const se_protocol *p, int case_index, se_timed *items,
                       size_t n_items, se_err *err)
{
    for (int sc = 0; sc < SE_NSCOPES; sc++) {
        se_status st = time_scope(t, p, scope_cfg(p, (se_scope)sc), (se_scope)sc, case_index,
                                  items, n_items, err);
        if (st != SE_OK)
            return st;
    }
    return SE_OK;
}

/* The controls are enqueued through a small dispatcher so they share the
 * sampling loop with the strategies. */
enum { C_EMPTY_STREAM, C_EMPTY_GRAPH, C_COOP_NOOP, C_BARRIERS };

typedef struct control_ctx {
    int sm_count, coop_blocks, barriers;
    cudaGraphExec_t empty_exec;
} control_ctx;

static se_status enqueue_control(se_timer *t, int which, const control_ctx *c, se_err *err)
{
    switch (which) {
    case C_EMPTY_STREAM: return se_gpu_empty_enqueue(c->sm_count, t->stream, err);
    case C_EMPTY_GRAPH: SE_CUDA_TRY(cudaGraphLaunch(c->empty_exec, t->stream)); return SE_OK;
    case C_COOP_NOOP: return se_gpu_coop_noop_enqueue(c->coop_blocks, t->stream, err);
    default: return se_gpu_barriers_enqueue(c->coop_blocks, c->barriers, t->stream, err);
    }
}

static se_status take_control(se_timer *t, int which, const control_ctx *c, double *ns, se_err *err)
{
    se_status st = hold_stream(t, err);
    if (st != SE_OK)
        return st;
    SE_CUDA_TRY(cudaEventRecord(t->start, t->stream));
    st = enqueue_control(t, which, c, err);
    if (st == SE_OK && cudaEventRecord(t->stop, t->stream) != cudaSuccess)
        st = se_fail(err, SE_ERR_CUDA, "cudaEventRecord failed");
    return release_and_time(t, st, 1, ns, err);
}

static se_status capture_empty_graph(se_timer *t, int blocks, cudaGraph_t *g,
                                     cudaGraphExec_t *exec, se_err *err)
{
    SE_CUDA_TRY(cudaStreamBeginCapture(t->stream, cudaStreamCaptureModeThreadLocal));
    se_status st = se_gpu_empty_enqueue(blocks, t->stream, err);
    cudaError_t e = cudaStreamEndCapture(t->stream, g);
    if (st != SE_OK)
        return st;
    if (e != cudaSuccess)
        return se_fail(err, SE_ERR_CUDA, "capturing the empty-kernel graph: %s",
                       cudaGetErrorString(e));
    SE_CUDA_TRY(cudaGraphInstantiate(exec, *g, 0));
    return SE_OK;
}

se_status se_time_controls(se_timer *t, const se_protocol *p, int sm_count, int coop_blocks,
                           se_timed *items, se_err *err)
{
    static const char *names[SE_NCONTROLS] = {"empty_stream", "empty_graph", "coop_noop",
                                              "barriers"};
    control_ctx c = {sm_count, coop_blocks, p->barriers, NULL};
    cudaGraph_t g = NULL;
    size_t order[SE_NCONTROLS];
    for (int i = 0; i < SE_NCONTROLS; i++) {
        memset(&items[i], 0, sizeof items[i]);
        snprintf(items[i].name, sizeof items[i].name, "%s", names[i]);
    }
    se_status st = capture_empty_graph(t, sm_count, &g, &c.empty_exec, err);
    for (int i = 0; i < SE_NCONTROLS && st == SE_OK; i++)
        for (int w = 0; w < p->controls.warmup && st == SE_OK; w++) {
            double ignored;
            st = take_control(t, i, &c, &ignored, err);
        }
    for (int r = 0; r < p->controls.samples && st == SE_OK; r++) {
        round_order(p->order_seed, -1, SE_SCOPE_DEVICE, r, SE_NCONTROLS, order);
        for (int k = 0; k < SE_NCONTROLS && st == SE_OK; k++) {
            int which = (int)order[k];
            se_sample s = {0};
            st = probe_clock(t, &s.sm_mhz, err);
            if (st == SE_OK)
                st = take_control(t, which, &c, &s.ns, err);
            if (st != SE_OK)
                break;
            s.seq = t->seq++;
            s.round = r;
            s.position = k;
            s.throttled = s.sm_mhz < t->throttle_fraction * t->peak_mhz;
            st = se_sample_set_push(&items[which].scope[SE_SCOPE_DEVICE], &s, err);
        }
    }
    if (c.empty_exec)
        cudaGraphExecDestroy(c.empty_exec);
    if (g)
        cudaGraphDestroy(g);
    return st;
}

se_status se_time_pair(se_timer *t, se_timed *a, se_timed *b, void *reset, size_t reset_bytes,
                       int n, int warmup, se_err *err)
{
    se_status st = SE_OK;
    for (int r = -warmup; r < n && st == SE_OK; r++) {
        for (int k = 0; k < 2 && st == SE_OK; k++) {
            se_timed *it = ((r & 1) ? 1 - k : k) == 0 ? a : b;
            se_sample s = {0};
            if (it == b && cudaMemsetAsync(reset, 0, reset_bytes, t->stream) != cudaSuccess)
                return se_fail(err, SE_ERR_CUDA, "resetting the trace counter failed");
            st = probe_clock(t, &s.sm_mhz, err);
            if (st == SE_OK)
                st = take(t, it, SE_SCOPE_DEVICE, 1, &s.ns, err);
            if (st != SE_OK || r < 0)
                continue;
            s.seq = t->seq++;
            s.round = r;
            s.position = k;
            s.throttled = s.sm_mhz < t->throttle_fraction * t->peak_mhz;
            st = se_sample_set_push(&it->scope[SE_SCOPE_DEVICE], &s, err);
        }
    }
    return st;
}

se_status se_timer_resolution(se_timer *t, double *smallest_ns, double *mean_ns, se_err *err)
{
    unsigned long long v[3];
    se_status st = se_gpu_timer_resolution_enqueue(t->probe, 100000, t->stream, err);
    if (st != SE_OK)
        return st;
    SE_CUDA_TRY(cudaMemcpyAsync(v, t->probe, sizeof v, cudaMemcpyDeviceToHost, t->stream));
    SE_CUDA_TRY(cudaStreamSynchronize(t->stream));
    *smallest_ns = v[2] ? (double)v[0] : 0.0;
    *mean_ns = v[2] ? (double)v[1] / (double)v[2] : 0.0;
    return SE_OK;
}
