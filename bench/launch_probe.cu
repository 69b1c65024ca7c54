/*
 * launch_probe.cu - a benchmark of the launch-bound shapes of goal G3
 * (issue 30: 1 or 8 rows, under 1 MB): rowblock's dispatched kernel
 * (se_gpu_rowblock_enqueue) against the same process's copy of the same
 * bytes (cudaMemcpyAsync, the run's copy control, and a float4 copy
 * kernel), and candidate kernels that take a row in one CTA of W warps
 * with V float4 a lane (compile-time W and V, the row length a
 * parameter): one load of the row into registers, float sums, a warp
 * butterfly and, with W > 1, one barrier a reduction (every warp reads
 * the W partials from shared memory). For rows of at most 8 columns, the
 * thread-a-row kernel with only x, y, rows and a float eps as parameters
 * and an approximate reciprocal.
 *
 * Each sample is timed as the run's device scope times it
 * (src/run/timing.c): the stream is held by the blocking kernel until the
 * start event, the launch and the stop event are queued, so the events
 * time the GPU running the launch, not the host submitting it. L2 warm
 * (the same x every launch); candidates interleaved, round by round, in a
 * rotating order. It prints per shape and kernel the median, the median
 * minus the copy's (G3's measure, against cudaMemcpyAsync) and the largest
 * relative difference from rowblock's output (a check that a candidate
 * computes the same function, not a validation).
 *
 *   launch_probe [--samples N] RxC [RxC ...]    (C a multiple of 4, or at most 8)
 *
 * Built by CMake as the optional target se_launch_probe.
 */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gpu/kernels.h"
#include "gpu/rowblock.cuh"

#define PROBE_PROG "launch_probe"
#include "probe_common.cuh"

/* A row in one CTA of W warps, V float4 a lane, cols a multiple of 4 and
 * at most W x 32 x V x 4. */
static __device__ __forceinline__ void probe_cta_body(const float *x, float *y, int cols,
                                                      float rcols, float eps, const int W,
                                                      const int V)
{
    __shared__ float2 red1[32];
    __shared__ float red2[32];
    const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
    const float4 *x4 = (const float4 *)(x + (int64_t)blockIdx.x * cols);
    float4 *y4 = (float4 *)(y + (int64_t)blockIdx.x * cols);
    const int n4 = cols >> 2;
    float4 v[16]; /* V of them used: constant indices after unrolling, so registers */
#pragma unroll
    for (int q = 0; q < V; q++) {
        int i = threadIdx.x + q * W * 32;
        v[q] = i < n4 ? __ldg(x4 + i) : make_float4(0.0f, 0.0f, 0.0f, 0.0f);
    }
    float ss = 0.0f, mx = -INFINITY;
#pragma unroll
    for (int q = 0; q < V; q++) {
        ss = fmaf(v[q].x, v[q].x, ss);
        ss = fmaf(v[q].y, v[q].y, ss);
        ss = fmaf(v[q].z, v[q].z, ss);
        ss = fmaf(v[q].w, v[q].w, ss);
        if (threadIdx.x + q * W * 32 < n4)
            mx = fmaxf(mx, fmaxf(fmaxf(v[q].x, v[q].y), fmaxf(v[q].z, v[q].w)));
    }
#pragma unroll
    for (int o = 16; o > 0; o >>= 1) {
        ss += __shfl_xor_sync(0xffffffffu, ss, o);
        mx = fmaxf(mx, __shfl_xor_sync(0xffffffffu, mx, o));
    }
    if (W > 1) {
        if (lane == 0)
            red1[warp] = make_float2(ss, mx);
        __syncthreads();
        ss = 0.0f;
        mx = -INFINITY;
#pragma unroll
        for (int w = 0; w < W; w++) {
            float2 t = red1[w];
            ss += t.x;
            mx = fmaxf(mx, t.y);
        }
    }
    const float s = rsqrtf(fmaf(ss, rcols, eps));
    const float s2 = s * SE_RB_LOG2E, m2 = s * mx * SE_RB_LOG2E;
    float l = 0.0f;
#pragma unroll
    for (int q = 0; q < V; q++) {
        v[q].x = se_rb_exp2_ftz(s2, v[q].x, m2);
        v[q].y = se_rb_exp2_ftz(s2, v[q].y, m2);
        v[q].z = se_rb_exp2_ftz(s2, v[q].z, m2);
        v[q].w = se_rb_exp2_ftz(s2, v[q].w, m2);
        if (threadIdx.x + q * W * 32 < n4)
            l += (v[q].x + v[q].y) + (v[q].z + v[q].w);
    }
#pragma unroll
    for (int o = 16; o > 0; o >>= 1)
        l += __shfl_xor_sync(0xffffffffu, l, o);
    if (W > 1) {
        if (lane == 0)
            red2[warp] = l;
        __syncthreads();
        l = 0.0f;
#pragma unroll
        for (int w = 0; w < W; w++)
            l += red2[w];
    }
    const float inv = __frcp_rn(l);
#pragma unroll
    for (int q = 0; q < V; q++) {
        int i = threadIdx.x + q * W * 32;
        if (i < n4)
            __stcs(y4 + i, make_float4(v[q].x * inv, v[q].y * inv, v[q].z * inv, v[q].w * inv));
    }
}

#define PROBE_CTA(W, V)                                                                      \
    __global__ void __launch_bounds__(W * 32) probe_cta_w##W##_v##V(                         \
        const float *x, float *y, int cols, float rcols, float eps)                          \
    {                                                                                        \
        probe_cta_body(x, y, cols, rcols, eps, W, V);                                        \
    }
#define PROBE_CTA_W(W) PROBE_CTA(W, 1) PROBE_CTA(W, 2) PROBE_CTA(W, 4) PROBE_CTA(W, 8) PROBE_CTA(W, 16)
PROBE_CTA_W(1)
PROBE_CTA_W(2)
PROBE_CTA_W(4)
PROBE_CTA_W(8)
PROBE_CTA_W(16)
PROBE_CTA_W(32)

typedef void (*probe_cta_fn)(const float *, float *, int, float, float);
#define PROBE_ROW(W)                                                                         \
    {probe_cta_w##W##_v1, probe_cta_w##W##_v2, probe_cta_w##W##_v4, probe_cta_w##W##_v8,     \
     probe_cta_w##W##_v16}
static const probe_cta_fn probe_ctas[6][5] = {PROBE_ROW(1),  PROBE_ROW(2),  PROBE_ROW(4),
                                              PROBE_ROW(8),  PROBE_ROW(16), PROBE_ROW(32)};
static const int probe_ws[6] = {1, 2, 4, 8, 16, 32}, probe_vs[5] = {1, 2, 4, 8, 16};

/* A thread a row of C columns: parameters x, y, rows and a float eps, the
 * reciprocal approximate (rcp.approx, one instruction). */
#define PROBE_THREAD(C)                                                                      \
    __global__ void __launch_bounds__(256) probe_thread_c##C(const float *x, float *y,        \
                                                             int rows, float eps)             \
    {                                                                                        \
        int row = blockIdx.x * blockDim.x + threadIdx.x;                                     \
        if (row >= rows)                                                                     \
            return;                                                                          \
        float v[C], ss = 0.0f, mx = -INFINITY;                                               \
        _Pragma("unroll") for (int k = 0; k < C; k++)                                        \
        {                                                                                    \
            v[k] = x[row * C + k];                                                           \
            ss = fmaf(v[k], v[k], ss);                                                       \
            mx = fmaxf(mx, v[k]);                                                            \
        }                                                                                    \
        const float s = rsqrtf(fmaf(ss, 1.0f / C, eps));                                     \
        const float s2 = s * SE_RB_LOG2E, m2 = s * mx * SE_RB_LOG2E;                         \
        float l = 0.0f, inv;                                                                 \
        _Pragma("unroll") for (int k = 0; k < C; k++)                                        \
        {                                                                                    \
            v[k] = se_rb_exp2_ftz(s2, v[k], m2);                                             \
            l += v[k];                                                                       \
        }                                                                                    \
        asm("rcp.approx.ftz.f32 %0, %1;" : "=f"(inv) : "f"(l));                              \
        _Pragma("unroll") for (int k = 0; k < C; k++) y[row * C + k] = v[k] * inv;           \
    }
PROBE_THREAD(1)
PROBE_THREAD(2)
PROBE_THREAD(3)
PROBE_THREAD(4)
PROBE_THREAD(5)
PROBE_THREAD(6)
PROBE_THREAD(7)
PROBE_THREAD(8)
typedef void (*probe_thread_fn)(const float *, float *, int, float);
static const probe_thread_fn probe_threads[8] = {
    probe_thread_c1, probe_thread_c2, probe_thread_c3, probe_thread_c4,
    probe_thread_c5, probe_thread_c6, probe_thread_c7, probe_thread_c8};

__global__ void probe_copy4(const float4 *x, float4 *y, int64_t n4)
{
    int64_t i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n4)
        y[i] = x[i];
}

__global__ void probe_copy1(const float *x, float *y, int64_t n)
{
    int64_t i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        y[i] = x[i];
}

enum { K_MEMCPY, K_COPYK, K_ROWBLOCK, K_THREAD, K_CTA };
typedef struct {
    char name[40];
    int kind, w, v; /* K_CTA: indices into probe_ws, probe_vs */
    double *t;
    double med, maxrel;
} cand;

typedef struct {
    const float *x;
    float *y;
    int64_t rows;
    int cols;
    se_rb_scratch rb;
} probe_case;

static void launch(const cand *c, const probe_case *pc, float *y, cudaStream_t s)
{
    int64_t n = pc->rows * pc->cols;
    switch (c->kind) {
    case K_MEMCPY:
        CK(cudaMemcpyAsync(y, pc->x, (size_t)n * sizeof(float), cudaMemcpyDeviceToDevice, s));
        break;
    case K_COPYK:
        if (n % 4 == 0)
            probe_copy4<<<(unsigned)((n / 4 + 255) / 256), 256, 0, s>>>(
                (const float4 *)pc->x, (float4 *)y, n / 4);
        else
            probe_copy1<<<(unsigned)((n + 255) / 256), 256, 0, s>>>(pc->x, y, n);
        break;
    case K_ROWBLOCK: {
        se_err err;
        se_trace_buf tr = {NULL, NULL, 0};
        if (se_gpu_rowblock_enqueue(pc->x, y, pc->rows, pc->cols, 1e-6, pc->rb, tr, s, &err) !=
            SE_OK) {
            fprintf(stderr, "launch_probe: rowblock: %s\n", err.msg);
            exit(1);
        }
        break;
    }
    case K_THREAD:
        probe_threads[pc->cols - 1]<<<1, (unsigned)((pc->rows + 31) / 32 * 32), 0, s>>>(
            pc->x, y, (int)pc->rows, 1e-6f);
        break;
    default:
        probe_ctas[c->w][c->v]<<<(unsigned)pc->rows, probe_ws[c->w] * 32, 0, s>>>(
            pc->x, y, pc->cols, 1.0f / (float)pc->cols, 1e-6f);
    }
    CK(cudaGetLastError());
}

int main(int argc, char **argv)
{
    int samples = 200, first;
    if (probe_parse_samples(argc, argv, 100000, &samples, &first))
        return 2;
    int64_t maxn = 0;
    for (int a = first; a < argc; a++) {
        long long r, c;
        char tail;
        if (sscanf(argv[a], "%lldx%lld%c", &r, &c, &tail) != 2 || r < 1 || r > 256 || c < 1 ||
            c > 131072 || (c > 8 && c % 4 != 0)) {
            fprintf(stderr, "launch_probe: shape '%s': expected RxC, 1 <= R <= 256, C at most 8 "
                            "or a multiple of 4 up to 131072\n", argv[a]);
            return 2;
        }
        if (r * c > maxn)
            maxn = r * c;
    }
    float *x, *y, *yref;
    CK(cudaMalloc(&x, maxn * sizeof(float)));
    CK(cudaMalloc(&y, maxn * sizeof(float)));
    CK(cudaMalloc(&yref, maxn * sizeof(float)));
    probe_fill<<<64, 256>>>(x, maxn);
    CK(cudaGetLastError());
    /* rowblock's grid scratch, as run/case.c lays it out, cleared */
    size_t slot = SE_RB_SLOT_WORDS * SE_RB_GRID_CAP * sizeof(unsigned long long);
    size_t start = SE_RB_GRID_CAP * sizeof(uint64_t), rowc = SE_RB_GRID_CAP * sizeof(int32_t);
    char *ws;
    CK(cudaMalloc(&ws, slot + start + 2 * rowc));
    CK(cudaMemset(ws, 0, slot + start + 2 * rowc));
    se_rb_scratch rb = {(unsigned long long *)ws, (uint64_t *)(ws + slot),
                        (int32_t *)(ws + slot + start), (int32_t *)(ws + slot + start + rowc)};
    int *flags, *dflags;
    CK(cudaHostAlloc((void **)&flags, 2 * sizeof(int), cudaHostAllocMapped));
    CK(cudaHostGetDevicePointer((void **)&dflags, flags, 0));
    cudaStream_t s;
    CK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
    float *hy = (float *)malloc(maxn * sizeof(float)), *hr = (float *)malloc(maxn * sizeof(float));
    cudaEvent_t e0, e1;
    CK(cudaEventCreate(&e0));
    CK(cudaEventCreate(&e1));
    cudaDeviceProp prop;
    CK(cudaGetDeviceProperties(&prop, 0));
    printf("launch_probe: %s, %d SMs, %d samples a kernel, L2 warm, stream held until queued\n",
           prop.name, prop.multiProcessorCount, samples);
    printf("%-10s %-14s %10s %12s %10s\n", "shape", "kernel", "median us", "- memcpy us",
           "max rel");
    for (int a = first; a < argc; a++) {
        long long rl, cl;
        sscanf(argv[a], "%lldx%lld", &rl, &cl);
        probe_case pc = {x, NULL, rl, (int)cl, rb};
        size_t bytes = (size_t)rl * cl * sizeof(float);
        cand c[64];
        int nc = 0;
        const int kinds[] = {K_MEMCPY, K_COPYK, K_ROWBLOCK};
        const char *names[] = {"memcpy", "copy kernel", "rowblock"};
        for (int k = 0; k < 3; k++) {
            memset(&c[nc], 0, sizeof c[nc]);
            c[nc].kind = kinds[k];
            snprintf(c[nc].name, sizeof c[nc].name, "%s", names[k]);
            nc++;
        }
        if (cl <= 8) {
            memset(&c[nc], 0, sizeof c[nc]);
            c[nc].kind = K_THREAD;
            snprintf(c[nc].name, sizeof c[nc].name, "thread lean");
            nc++;
        } else {
            int n4 = (int)(cl / 4);
            for (int w = 0; w < 6; w++)
                for (int v = 0; v < 5; v++) {
                    int cap = probe_ws[w] * 32 * probe_vs[v];
                    if (cap < n4 || (cap >= 2 * n4 && !(w == 0 && v == 0)))
                        continue; /* does not fit, or half its lanes idle */
                    memset(&c[nc], 0, sizeof c[nc]);
                    c[nc].kind = K_CTA;
                    c[nc].w = w;
                    c[nc].v = v;
                    snprintf(c[nc].name, sizeof c[nc].name, "cta w%d v%d", probe_ws[w],
                             probe_vs[v]);
                    nc++;
                }
        }
        launch(&c[2], &pc, yref, s);
        CK(cudaStreamSynchronize(s));
        CK(cudaMemcpy(hr, yref, bytes, cudaMemcpyDeviceToHost));
        for (int i = 0; i < nc; i++) {
            c[i].t = (double *)malloc(samples * sizeof(double));
            c[i].maxrel = -1;
            if (c[i].kind == K_MEMCPY || c[i].kind == K_COPYK)
                continue;
            CK(cudaMemset(y, 0xff, bytes));
            launch(&c[i], &pc, y, s);
            CK(cudaStreamSynchronize(s));
            CK(cudaMemcpy(hy, y, bytes, cudaMemcpyDeviceToHost));
            c[i].maxrel = probe_max_rel(hy, hr, rl * cl);
        }
        for (int w = 0; w < 5; w++)
            for (int i = 0; i < nc; i++)
                launch(&c[i], &pc, y, s);
        CK(cudaStreamSynchronize(s));
        for (int smp = 0; smp < samples; smp++)
            for (int k = 0; k < nc; k++) {
                int i = (k + smp) % nc;
                flags[0] = flags[1] = 0;
                __sync_synchronize();
                se_err err;
                if (se_gpu_block_until_enqueue(dflags, dflags + 1, 1000000000ull, s, &err) !=
                    SE_OK) {
                    fprintf(stderr, "launch_probe: %s\n", err.msg);
                    return 1;
                }
                CK(cudaEventRecord(e0, s));
                launch(&c[i], &pc, y, s);
                CK(cudaEventRecord(e1, s));
                __sync_synchronize();
                flags[0] = 1;
                CK(cudaEventSynchronize(e1));
                if (flags[1]) {
                    fprintf(stderr, "launch_probe: the blocking kernel timed out\n");
                    return 1;
                }
                float ms;
                CK(cudaEventElapsedTime(&ms, e0, e1));
                c[i].t[smp] = ms * 1e3;
            }
        for (int i = 0; i < nc; i++)
            c[i].med = probe_median(c[i].t, samples);
        for (int i = 0; i < nc; i++) {
            char rel[24];
            probe_rel_text(c[i].maxrel, rel, sizeof rel);
            printf("%-10s %-14s %10.3f %+12.3f %10s\n", argv[a], c[i].name, c[i].med,
                   c[i].med - c[0].med, rel);
            free(c[i].t);
        }
        fflush(stdout);
    }
    return 0;
}
