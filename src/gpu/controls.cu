/*
 * controls.cu - kernels that are not one of the four tiled strategies: the
 * non-tiled rowblock control (a thread, a block, a cluster or blocks of a
 * cooperative grid per row), the pre-scaling that turns the input into
 * cuDNN's softmax input, and the outliers planted in the cuRAND input.
 *
 * The outliers are defined in outliers.h.
 *
 * rowblock is written independently of tile_ops.cuh on purpose: it agrees
 * with the tiled strategies within the tolerances, not bit for bit.
 */
#include <math.h>
#include <stdint.h>
#include <string.h>

#include <cooperative_groups.h>

#include "gpu/kernels.h"
#include "gpu/tile_ops.cuh"

#include "model/outliers.h"

#include "gpu/se_cuda.h"

namespace cg = cooperative_groups;

#define SE_ROW_THREADS 1024
#define SE_ROW_WARPS (SE_ROW_THREADS / 32)

/* Block-wide double sum and float max over the block (a multiple of 32
 * threads, at most 1024); every thread gets the result. */
static __device__ void se_row_reduce(double *sum, float *max, double *red_d, float *red_f)
{
    int warp = threadIdx.x >> 5, lane = threadIdx.x & 31, nwarps = blockDim.x >> 5;
    double a = *sum;
    float b = *max;
    for (int o = 16; o > 0; o >>= 1) {
        a += __shfl_xor_sync(0xffffffffu, a, o);
        b = fmaxf(b, __shfl_xor_sync(0xffffffffu, b, o));
    }
    if (nwarps == 1) { /* one warp: done, no shared memory round trip */
        *sum = a;
        *max = b;
        return;
    }
    if (lane == 0) {
        red_d[warp] = a;
        red_f[warp] = b;
    }
    __syncthreads();
    a = lane < nwarps ? red_d[lane] : 0.0;
    b = lane < nwarps ? red_f[lane] : -INFINITY;
    for (int o = 16; o > 0; o >>= 1) {
        a += __shfl_xor_sync(0xffffffffu, a, o);
        b = fmaxf(b, __shfl_xor_sync(0xffffffffu, b, o));
    }
    *sum = a;
    *max = b;
    __syncthreads();
}

/* s = 1/sqrt(mean x^2 + eps) and max x of one row, by the whole block. */
static __device__ void se_row_scale(const float *xr, int64_t cols, double eps, float *s,
                                    float *mx, double *red_d, float *red_f)
{
    double ss = 0.0;
    float m = -INFINITY;
    for (int64_t c = threadIdx.x; c < cols; c += SE_ROW_THREADS) {
        float v = xr[c];
        ss += (double)v * (double)v;
        m = fmaxf(m, v);
    }
    se_row_reduce(&ss, &m, red_d, red_f);
    *s = (float)(1.0 / sqrt(ss / (double)cols + eps));
    *mx = m;
}

__global__ void __launch_bounds__(SE_ROW_THREADS) se_k_rowblock(const float *x, float *y,
                                                                int64_t cols, double eps,
                                                                se_trace_buf trace)
{
    uint64_t t0 = trace.rec ? se_now_ns() : 0;
    __shared__ double red_d[SE_ROW_WARPS];
    __shared__ float red_f[SE_ROW_WARPS];
    const float *xr = x + (int64_t)blockIdx.x * cols;
    float *yr = y + (int64_t)blockIdx.x * cols;
    float s, mx;
    se_row_scale(xr, cols, eps, &s, &mx, red_d, red_f);
    float m = s * mx;
    double l = 0.0;
    float unused = 0.0f;
    for (int64_t c = threadIdx.x; c < cols; c += SE_ROW_THREADS)
        l += (double)expf(s * xr[c] - m);
    se_row_reduce(&l, &unused, red_d, red_f);
    float inv_l = (float)(1.0 / l);
    for (int64_t c = threadIdx.x; c < cols; c += SE_ROW_THREADS)
        yr[c] = expf(s * xr[c] - m) * inv_l;
    if (trace.rec) {
        __syncthreads();
        if (threadIdx.x == 0)
            se_trace_record(&trace, blockIdx.x, t0);
    }
}

__global__ void __launch_bounds__(SE_ROW_THREADS) se_k_prescale(const float *x, float *xs,
                                                                int64_t cols, double eps)
{
    __shared__ double red_d[SE_ROW_WARPS];
    __shared__ float red_f[SE_ROW_WARPS];
    const float *xr = x + (int64_t)blockIdx.x * cols;
    float *xsr = xs + (int64_t)blockIdx.x * cols;
    float s, mx;
    se_row_scale(xr, cols, eps, &s, &mx, red_d, red_f);
    for (int64_t c = threadIdx.x; c < cols; c += SE_ROW_THREADS)
        xsr[c] = s * xr[c];
}

__global__ void se_k_outliers(float *x, int64_t rows, int64_t cols, uint64_t seed, float scale)
{
    int64_t row = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (row >= rows)
        return;
    for (int k = 0; k < SE_OUTLIERS; k++)
        x[row * cols + se_outlier_col(seed, row, k, cols)] = scale * se_outlier_factor(row, k);
}

/* rowblock, single pass: a row of at most SE_RB_VALS * blockDim.x columns
 * is loaded once into registers (all loads issued before any use), and the
 * scale, max, sum and output are computed from there: one read of x and
 * one write of y. Element k of thread t is column t + k * blockDim.x, or
 * for 16-byte accesses the float4 chunk t + q * blockDim.x.
 *
 * `vals` (8, 16 or 32) is a constant in each of the kernels below, so the
 * loops unroll into registers; short rows get the smallest that fits, with
 * up to 1024 threads, so each thread's serial chain of exponentials is
 * short: that chain, not bandwidth, is what a short row waits for. */
#define SE_RB_VALS 32

/* Largest cluster a long row is split over (16 needs the non-portable
 * cluster size, allowed on sm_90). */
#define SE_RB_MAX_CLUSTER 16

/* Columns a clustered CTA may hold in shared memory beyond its registers
 * (128 KiB: with 1024 x 32 values in registers, one CTA per SM). */
#define SE_RB_SMEM_VALS 32768

/* Rows of at most this many columns run one thread per row. */
#define SE_RB_THREAD_COLS 8

/* Block-wide float sum and max (a multiple of 32 threads, at most 1024);
 * every thread gets the result. Each call needs its own red_s/red_m: there
 * is no barrier at the end, so a second reduction must not reuse them. */
static __device__ __forceinline__ void se_row_reduce_f(float *sum, float *max, float *red_s,
                                                       float *red_m)
{
    int warp = threadIdx.x >> 5, lane = threadIdx.x & 31, nwarps = blockDim.x >> 5;
    float a = *sum, b = *max;
    for (int o = 16; o > 0; o >>= 1) {
        a += __shfl_xor_sync(0xffffffffu, a, o);
        b = fmaxf(b, __shfl_xor_sync(0xffffffffu, b, o));
    }
    if (nwarps > 1) {
        if (lane == 0) {
            red_s[warp] = a;
            red_m[warp] = b;
        }
        __syncthreads();
        a = lane < nwarps ? red_s[lane] : 0.0f;
        b = lane < nwarps ? red_m[lane] : -INFINITY;
        for (int o = 16; o > 0; o >>= 1) {
            a += __shfl_xor_sync(0xffffffffu, a, o);
            b = fmaxf(b, __shfl_xor_sync(0xffffffffu, b, o));
        }
    }
    *sum = a;
    *max = b;
}

/* Combines one value per CTA of the cluster (each CTA's `mine`, and
 * `mine_max` unless NULL, in its own shared memory) in rank order, so every
 * CTA gets the same result; the caller's cluster.sync() before makes the
 * values visible, and a later one (before the CTA exits) keeps them alive. */
static __device__ __forceinline__ void se_cluster_combine(cg::cluster_group cluster, float *mine,
                                                          float *mine_max, float *sum, float *max)
{
    double a = 0.0; /* up to 16 terms, once per row: float64 costs nothing here */
    float b = -INFINITY;
    for (unsigned r = 0; r < cluster.num_blocks(); r++) {
        a += (double)*cluster.map_shared_rank(mine, r);
        if (mine_max)
            b = fmaxf(b, *cluster.map_shared_rank(mine_max, r));
    }
    *sum = (float)a;
    if (mine_max)
        *max = b;
}

/* Starts copying this thread's float4 chunks t + q * blockDim.x (q <
 * vals / 4) of a row of n4 chunks into `stage` (same indices), with
 * cp.async: each thread later reads back only what it copied, after its own
 * cp.async.wait_all, so no barrier is needed. */
static __device__ __forceinline__ void se_rb_stage_issue(float4 *stage, const float *row, int n4,
                                                         const int vals)
{
    const float4 *src = (const float4 *)row;
#pragma unroll
    for (int q = 0; q < vals / 4; q++) {
        int i = threadIdx.x + q * blockDim.x;
        if (i < n4)
            se_cp_async16(&stage[i], src + i);
    }
    se_cp_async_commit();
}

/* One row, or (clustered) one CTA's contiguous part of a row: `cols` columns
 * at xr/yr, of a row of `row_cols` columns. With a cluster, the CTA's
 * partial sums and maxima are combined over the cluster through distributed
 * shared memory, so the row is still read once and written once.
 *
 * `spill` (clustered, 16-byte rows only) holds the part's float4 chunks
 * past the registers' vals/4 * blockDim.x: they are copied into shared
 * memory with cp.async, issued before the register loads, and their
 * exponentials are written back there. Sums are float: four chains per
 * thread, then butterflies over the block, and float64 over the cluster's
 * CTAs (the error bound is in docs/TOLERANCES.md); each exponential is
 * computed once and kept for the output. */
static __device__ __forceinline__ void se_rowblock_reg_body(const float *xr, float *yr, int cols,
                                                            int64_t row_cols, double eps, int vec4,
                                                            se_trace_buf trace, int64_t task,
                                                            const int vals, const int clustered,
                                                            float4 *spill, float4 *staged,
                                                            const float *next)
{
    uint64_t t0 = trace.rec ? se_now_ns() : 0;
    __shared__ float red_ss[SE_ROW_WARPS], red_mx[SE_ROW_WARPS];
    __shared__ float red_l[SE_ROW_WARPS], red_unused[SE_ROW_WARPS];
    __shared__ float part_ss, part_mx, part_l;
    const int nt = blockDim.x;
    const int n4 = vec4 ? cols / 4 : 0;
    const int r4 = vals / 4 * nt; /* float4 chunks held in registers */
    const float4 *x4 = (const float4 *)xr;
    if (spill) {
        for (int i = r4 + threadIdx.x; i < n4; i += nt)
            se_cp_async16(&spill[i - r4], x4 + i);
        se_cp_async_commit();
    }
    float v[SE_RB_VALS];
    if (staged) /* this thread's own chunks of the row, copied by itself */
        se_cp_async_wait_all();
    if (vec4) {
        const float4 *src4 = staged ? staged : x4;
#pragma unroll
        for (int q = 0; q < vals / 4; q++) {
            int i = threadIdx.x + q * nt;
            float4 a = i < n4 ? src4[i] : make_float4(0.0f, 0.0f, 0.0f, 0.0f);
            v[4 * q] = a.x;
            v[4 * q + 1] = a.y;
            v[4 * q + 2] = a.z;
            v[4 * q + 3] = a.w;
        }
        if (staged && next)
            se_rb_stage_issue(staged, next, n4, vals);
    } else {
#pragma unroll
        for (int k = 0; k < vals; k++) {
            int i = threadIdx.x + k * nt;
            v[k] = i < cols ? xr[i] : 0.0f;
        }
    }
    /* Element k of this thread is valid when its column is inside the row. */
#define SE_RB_VALID(k) (vec4 ? (int)threadIdx.x + ((k) / 4) * nt < n4 \
                             : (int)threadIdx.x + (k) * nt < cols)
    /* Four partial sums per thread (k mod 4): chains of at most vals/4
     * terms, for the error bound (docs/TOLERANCES.md) and for ILP. */
    float acc[4] = {0.0f, 0.0f, 0.0f, 0.0f}, mx = -INFINITY;
#pragma unroll
    for (int k = 0; k < vals; k++) {
        acc[k % 4] = fmaf(v[k], v[k], acc[k % 4]); /* invalid elements are 0 */
        if (SE_RB_VALID(k))
            mx = fmaxf(mx, v[k]);
    }
    if (spill) {
        float sp[4] = {0.0f, 0.0f, 0.0f, 0.0f};
        se_cp_async_wait_all(); /* this thread's own copies */
        for (int i = r4 + threadIdx.x; i < n4; i += nt) {
            float4 a = spill[i - r4];
            sp[0] = fmaf(a.x, a.x, sp[0]);
            sp[1] = fmaf(a.y, a.y, sp[1]);
            sp[2] = fmaf(a.z, a.z, sp[2]);
            sp[3] = fmaf(a.w, a.w, sp[3]);
            mx = fmaxf(mx, fmaxf(fmaxf(a.x, a.y), fmaxf(a.z, a.w)));
        }
        for (int q = 0; q < 4; q++)
            acc[q] += sp[q];
    }
    float ss = (acc[0] + acc[1]) + (acc[2] + acc[3]);
    se_row_reduce_f(&ss, &mx, red_ss, red_mx);
    if (clustered) {
        cg::cluster_group cluster = cg::this_cluster();
        if (threadIdx.x == 0) {
            part_ss = ss;
            part_mx = mx;
        }
        cluster.sync();
        se_cluster_combine(cluster, &part_ss, &part_mx, &ss, &mx);
    }
    /* rsqrtf and a reciprocal: a few instructions, not float64 division
     * and square root on a short row's critical path. */
    float s = rsqrtf(__fmaf_rn(ss, __frcp_rn((float)row_cols), (float)eps));
    float m = s * mx;
    float unused = -INFINITY;
    acc[0] = acc[1] = acc[2] = acc[3] = 0.0f;
#pragma unroll
    for (int k = 0; k < vals; k++) {
        v[k] = SE_RB_VALID(k) ? expf(s * v[k] - m) : 0.0f;
        acc[k % 4] += v[k];
    }
    if (spill) {
        float sp[4] = {0.0f, 0.0f, 0.0f, 0.0f};
        for (int i = r4 + threadIdx.x; i < n4; i += nt) {
            float4 a = spill[i - r4];
            a.x = expf(s * a.x - m);
            a.y = expf(s * a.y - m);
            a.z = expf(s * a.z - m);
            a.w = expf(s * a.w - m);
            sp[0] += a.x;
            sp[1] += a.y;
            sp[2] += a.z;
            sp[3] += a.w;
            spill[i - r4] = a;
        }
        for (int q = 0; q < 4; q++)
            acc[q] += sp[q];
    }
    float l = (acc[0] + acc[1]) + (acc[2] + acc[3]);
#undef SE_RB_VALID
    se_row_reduce_f(&l, &unused, red_l, red_unused);
    if (clustered) {
        cg::cluster_group cluster = cg::this_cluster();
        if (threadIdx.x == 0)
            part_l = l;
        cluster.sync(); /* also: every CTA has read part_ss/part_mx */
        se_cluster_combine(cluster, &part_l, NULL, &l, NULL);
        cluster.sync(); /* no CTA exits while another still reads its part_l */
    }
    float inv_l = __frcp_rn(l);
    if (vec4) {
        float4 *y4 = (float4 *)yr;
#pragma unroll
        for (int q = 0; q < vals / 4; q++) {
            int i = threadIdx.x + q * nt;
            if (i < n4)
                y4[i] = make_float4(v[4 * q] * inv_l, v[4 * q + 1] * inv_l, v[4 * q + 2] * inv_l,
                                    v[4 * q + 3] * inv_l);
        }
        if (spill)
            for (int i = r4 + threadIdx.x; i < n4; i += nt) {
                float4 a = spill[i - r4];
                y4[i] = make_float4(a.x * inv_l, a.y * inv_l, a.z * inv_l, a.w * inv_l);
            }
    } else {
#pragma unroll
        for (int k = 0; k < vals; k++) {
            int i = threadIdx.x + k * nt;
            if (i < cols)
                yr[i] = v[k] * inv_l;
        }
    }
    if (trace.rec) {
        __syncthreads();
        if (clustered)
            cg::this_cluster().sync(); /* the row ends when every CTA has written */
        if (threadIdx.x == 0 && (!clustered || cg::this_cluster().block_rank() == 0))
            se_trace_record(&trace, task, t0);
    }
}

/* A long row over a cluster of gridDim.x / rows CTAs: CTA rank r holds
 * columns [r chunk, (r + 1) chunk), chunk a multiple of 4 (when vec4); the
 * part past 1024 x 32 columns in dynamic shared memory ("spill", at most
 * SE_RB_SMEM_VALS columns, 16-byte rows only). */
__global__ void __launch_bounds__(SE_ROW_THREADS) se_k_rowblock_cluster(const float *x, float *y,
                                                                        int64_t cols, int chunk,
                                                                        double eps, int vec4,
                                                                        se_trace_buf trace)
{
    extern __shared__ float4 se_rb_spill[];
    cg::cluster_group cluster = cg::this_cluster();
    int64_t row = blockIdx.x / cluster.num_blocks();
    int64_t start = (int64_t)cluster.block_rank() * chunk;
    int64_t left = cols - start;
    int n = left <= 0 ? 0 : left < chunk ? (int)left : chunk;
    const float *xr = x + row * cols + (left > 0 ? start : 0);
    float *yr = y + row * cols + (left > 0 ? start : 0);
    se_rowblock_reg_body(xr, yr, n, cols, eps, vec4, trace, row, SE_RB_VALS, 1,
                         vec4 ? se_rb_spill : NULL, NULL, NULL);
}

#define SE_RB_KERNEL(name, vals)                                                              \
    __global__ void __launch_bounds__(SE_ROW_THREADS) name(const float *x, float *y, int cols, \
                                                           double eps, int vec4,             \
                                                           se_trace_buf trace)               \
    {                                                                                         \
        se_rowblock_reg_body(x + (int64_t)blockIdx.x * cols, y + (int64_t)blockIdx.x * cols,  \
                             cols, cols, eps, vec4, trace, blockIdx.x, vals, 0, NULL, NULL, \
                             NULL);                                                           \
    }

SE_RB_KERNEL(se_k_rowblock_reg8, 8)
SE_RB_KERNEL(se_k_rowblock_reg16, 16)
SE_RB_KERNEL(se_k_rowblock_reg, SE_RB_VALS)

/* Many 16-byte rows of at most 1024 x 32 columns: persistent CTAs, each
 * walking rows blockIdx.x, + gridDim.x, ...; while a row is reduced and
 * written from registers, the CTA's next row is already on its way into
 * shared memory (cp.async), so its loads overlap this row's arithmetic and
 * stores instead of every CTA loading, computing and storing in lockstep.
 * Launched with vals/4 * blockDim.x float4 of dynamic shared memory. */
__global__ void __launch_bounds__(SE_ROW_THREADS) se_k_rowblock_stream(const float *x, float *y,
                                                                       int64_t rows, int cols,
                                                                       double eps,
                                                                       se_trace_buf trace)
{
    extern __shared__ float4 se_rb_stage[];
    int64_t row = blockIdx.x;
    if (row >= rows)
        return;
    se_rb_stage_issue(se_rb_stage, x + row * cols, cols / 4, SE_RB_VALS);
    for (; row < rows; row += gridDim.x) {
        int64_t next = row + gridDim.x;
        se_rowblock_reg_body(x + row * cols, y + row * cols, cols, cols, eps, 1, trace, row,
                             SE_RB_VALS, 0, NULL, se_rb_stage,
                             next < rows ? x + next * cols : NULL);
    }
}

/* Rows of at most SE_RB_THREAD_COLS columns: one thread per row, no
 * shuffles or barriers on the chain (1x1, 1x7). Same arithmetic as the
 * block kernels. */
__global__ void __launch_bounds__(SE_ROW_THREADS) se_k_rowblock_thread(const float *x, float *y,
                                                                       int64_t rows, int cols,
                                                                       double eps,
                                                                       se_trace_buf trace)
{
    uint64_t t0 = trace.rec ? se_now_ns() : 0;
    int64_t row = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (row >= rows)
        return;
    const float *xr = x + row * cols;
    float *yr = y + row * cols;
    float v[SE_RB_THREAD_COLS];
#pragma unroll
    for (int k = 0; k < SE_RB_THREAD_COLS; k++)
        v[k] = k < cols ? xr[k] : 0.0f;
    float ss = 0.0f, mx = -INFINITY;
#pragma unroll
    for (int k = 0; k < SE_RB_THREAD_COLS; k++) {
        ss = fmaf(v[k], v[k], ss);
        if (k < cols)
            mx = fmaxf(mx, v[k]);
    }
    float s = rsqrtf(__fmaf_rn(ss, __frcp_rn((float)cols), (float)eps));
    float m = s * mx;
    float l = 0.0f;
#pragma unroll
    for (int k = 0; k < SE_RB_THREAD_COLS; k++) {
        v[k] = k < cols ? expf(s * v[k] - m) : 0.0f;
        l += v[k];
    }
    float inv_l = __frcp_rn(l);
#pragma unroll
    for (int k = 0; k < SE_RB_THREAD_COLS; k++)
        if (k < cols)
            yr[k] = v[k] * inv_l;
    if (trace.rec)
        se_trace_record(&trace, row, t0);
}

/* Float sums of a thread's float4 chunks i = first, first + stride, ... <
 * end of `src`: four chains (one per component) of at most 16 terms, each
 * 16 flushed into float64, so a long part keeps the chains of
 * docs/TOLERANCES.md. With `exps`, the terms are exp(s x - m) instead of
 * x^2, written back to `keep` (same indices) unless NULL; otherwise the max
 * is taken too. */
/* 2^(s2 x - m2): exp(s x - m) with s2 = s log2(e), m2 = m log2(e), one
 * MUFU.EX2 (docs/TOLERANCES.md); the grid kernel's exponentials are bound
 * by the SM's 16 MUFU operations per clock, not by expf's accuracy. */
#define SE_RB_LOG2E 1.4426950408889634f
static __device__ __forceinline__ float se_rb_exp2(float s2, float x, float m2)
{
    return exp2f(fmaf(s2, x, -m2));
}

static __device__ __forceinline__ void se_rb_grid_term(float4 a, float4 *keep, int i, int exps,
                                                       float s2, float m2, float *acc, float *mx)
{
    if (exps) {
        a.x = se_rb_exp2(s2, a.x, m2);
        a.y = se_rb_exp2(s2, a.y, m2);
        a.z = se_rb_exp2(s2, a.z, m2);
        a.w = se_rb_exp2(s2, a.w, m2);
        acc[0] += a.x;
        acc[1] += a.y;
        acc[2] += a.z;
        acc[3] += a.w;
        if (keep)
            keep[i] = a;
    } else {
        acc[0] = fmaf(a.x, a.x, acc[0]);
        acc[1] = fmaf(a.y, a.y, acc[1]);
        acc[2] = fmaf(a.z, a.z, acc[2]);
        acc[3] = fmaf(a.w, a.w, acc[3]);
        *mx = fmaxf(*mx, fmaxf(fmaxf(a.x, a.y), fmaxf(a.z, a.w)));
    }
}

/* Float sums of a thread's float4 chunks i = first, first + stride, ... <
 * end of `src`: four chains (one per component) of at most 16 terms, each
 * 16 flushed into float64, so a long part keeps the chains of
 * docs/TOLERANCES.md; two loads in flight at a time (more spill registers). With `exps`, the
 * terms are 2^(s2 x - m2) instead of x^2, written back to `keep` (same
 * indices) unless NULL; otherwise the max is taken too. */
static __device__ __forceinline__ double se_rb_grid_sum(const float4 *src, float4 *keep, int first,
                                                        int end, int stride, int exps, float s2,
                                                        float m2, float *mx)
{
    double total = 0.0;
    int i = first;
    while (i < end) {
        float acc[4] = {0.0f, 0.0f, 0.0f, 0.0f};
#pragma unroll 4
        for (int k = 0; k < 16 && i < end; k++, i += stride)
            se_rb_grid_term(src[i], keep, i, exps, s2, m2, acc, mx);
        total += (double)((acc[0] + acc[1]) + (acc[2] + acc[3]));
    }
    return total;
}

static __device__ __forceinline__ void se_st_relaxed_u64(unsigned long long *addr,
                                                         unsigned long long v)
{
    asm volatile("st.relaxed.gpu.global.b64 [%0], %1;" ::"l"(addr), "l"(v) : "memory");
}

static __device__ __forceinline__ unsigned long long se_ld_relaxed_u64(
    const unsigned long long *addr)
{
    unsigned long long v;
    asm volatile("ld.relaxed.gpu.global.b64 %0, [%1];" : "=l"(v) : "l"(addr) : "memory");
    return v;
}

/* Combines the block-wide partials of the `parts` CTAs of this CTA's row:
 * thread 0 publishes this CTA's (*a at word w, and *b at word w + 1 when
 * `two`), each float in one 64-bit word with `tag`, so a reader that sees
 * the tag sees the value: no counter, fence or second read. One warp per
 * 32 CTAs polls their words (every load in flight at once) and sums them
 * in float64 (an xor butterfly); each thread then adds the warps' sums in
 * warp order, so every CTA of the row gets the same bits. cs/cm: one
 * double and one float per warp, not shared with another call. */
static __device__ __forceinline__ void se_rb_grid_combine(unsigned long long *row_slots, int p,
                                                          int parts, int w, int two, unsigned tag,
                                                          float *a, float *b, double *cs,
                                                          float *cm)
{
    const unsigned long long t = (unsigned long long)tag << 32;
    const int warp = threadIdx.x >> 5, lane = threadIdx.x & 31;
    const int nw = (int)(blockDim.x >> 5), pw = min(nw, (parts + 31) / 32);
    if (threadIdx.x == 0) {
        se_st_relaxed_u64(row_slots + 3 * p + w, t | __float_as_uint(*a));
        if (two)
            se_st_relaxed_u64(row_slots + 3 * p + w + 1, t | __float_as_uint(*b));
    }
    if (warp < pw) {
        double sum = 0.0;
        float mx = -INFINITY;
        for (int r = warp * 32 + lane; r < parts; r += pw * 32) {
            unsigned long long va, vb;
            do {
                va = se_ld_relaxed_u64(row_slots + 3 * r + w);
                vb = two ? se_ld_relaxed_u64(row_slots + 3 * r + w + 1) : t;
            } while ((unsigned)(va >> 32) != tag || (unsigned)(vb >> 32) != tag);
            sum += (double)__uint_as_float((unsigned)va);
            mx = fmaxf(mx, __uint_as_float((unsigned)vb));
        }
        for (int o = 16; o > 0; o >>= 1) { /* xor butterfly: every lane gets the same bits */
            sum += __shfl_xor_sync(0xffffffffu, sum, o);
            mx = fmaxf(mx, __shfl_xor_sync(0xffffffffu, mx, o));
        }
        if (lane == 0) {
            cs[warp] = sum;
            cm[warp] = mx;
        }
    }
    __syncthreads();
    double sum = 0.0;
    float mx = -INFINITY;
    for (int k = 0; k < pw; k++) {
        sum += cs[k];
        mx = fmaxf(mx, cm[k]);
    }
    *a = (float)sum;
    if (two)
        *b = mx;
}

/* Launch counts wrap here, so tags (2 gen + 1, 2 gen + 2) are never 0, the
 * tag of the cleared scratch; every launch has tags of its own, so a word
 * left by an earlier launch, of any shape, never matches. */
#define SE_RB_GEN_MASK 0x3fffffff

/* A long 16-byte row split over `parts` CTAs of a cooperative grid (all
 * co-resident, so a CTA may wait for the others of its row): CTA b holds
 * row b / parts, columns [p chunk, (p + 1) chunk) with p = b % parts and
 * chunk a multiple of 4. Of its part, the first 1024 x 32 columns are held
 * in registers, the next `smem4` float4 in dynamic shared memory; the rest
 * (the tail, when the rows are more than the chip holds) is read again
 * in each pass, from L2 where it stays there: x's register part is loaded
 * and y stored with the evict-first hint, so that L2 keeps the tail (an
 * L2 prefetch of the tail at the start measured slower). Two exchanges
 * per row (sums of squares and maxima; sums of exponentials) through
 * tagged words in `sc`, and one exponential per element held (two per
 * tail element); after its writes
 * each CTA arrives on its row's counter (the last one resets it and
 * records the row's trace) and on the grid's (the last one resets it and
 * advances the launch count: the next launch's tags). */
__global__ void __launch_bounds__(SE_ROW_THREADS) se_k_rowblock_grid(const float *x, float *y,
                                                                     int64_t cols, int parts,
                                                                     int chunk, int smem4,
                                                                     double eps, se_rb_scratch sc,
                                                                     se_trace_buf trace)
{
    extern __shared__ float4 se_rb_held[];
    __shared__ float red_ss[SE_ROW_WARPS], red_mx[SE_ROW_WARPS];
    __shared__ float red_l[SE_ROW_WARPS], red_unused[SE_ROW_WARPS];
    __shared__ double cs1[SE_ROW_WARPS], cs2[SE_ROW_WARPS];
    __shared__ float cm1[SE_ROW_WARPS], cm2[SE_ROW_WARPS];
    uint64_t t0 = trace.rec ? se_now_ns() : 0;
    const int nt = blockDim.x, tid = threadIdx.x;
    const int64_t row = blockIdx.x / parts;
    const int p = blockIdx.x % parts;
    const int64_t start = (int64_t)p * chunk;
    const int64_t left = cols - start;
    const int n4 = left <= 0 ? 0 : (left < chunk ? (int)left : chunk) / 4;
    const float4 *x4 = (const float4 *)(x + row * cols + (left > 0 ? start : 0));
    float4 *y4 = (float4 *)(y + row * cols + (left > 0 ? start : 0));
    const int r4 = SE_RB_VALS / 4 * nt;               /* float4 chunks in registers */
    const int h4 = min(n4, r4 + smem4);               /* ... and in shared memory */
    const int hs = h4 - r4;                           /* se_rb_held[j] is x4[r4 + j] */
    unsigned long long *row_slots = sc.slot + 3 * row * parts;

    for (int j = tid; j < hs; j += nt) /* each thread reads back only its own copies */
        se_cp_async16(&se_rb_held[j], x4 + r4 + j);
    se_cp_async_commit();
    float v[SE_RB_VALS];
#pragma unroll
    for (int q = 0; q < SE_RB_VALS / 4; q++) {
        int i = tid + q * nt;
        float4 a = i < n4 ? __ldcs(x4 + i) : make_float4(0.0f, 0.0f, 0.0f, 0.0f);
        v[4 * q] = a.x;
        v[4 * q + 1] = a.y;
        v[4 * q + 2] = a.z;
        v[4 * q + 3] = a.w;
    }
    const unsigned gen = (unsigned)__ldcg(sc.gen) & SE_RB_GEN_MASK;
    float acc[4] = {0.0f, 0.0f, 0.0f, 0.0f}, mx = -INFINITY;
#pragma unroll
    for (int k = 0; k < SE_RB_VALS; k++) {
        acc[k % 4] = fmaf(v[k], v[k], acc[k % 4]); /* invalid elements are 0 */
        if (tid + (k / 4) * nt < n4)
            mx = fmaxf(mx, v[k]);
    }
    double part = se_rb_grid_sum(x4, NULL, h4 + tid, n4, nt, 0, 0.0f, 0.0f, &mx);
    se_cp_async_wait_all();
    part += se_rb_grid_sum(se_rb_held, NULL, tid, hs, nt, 0, 0.0f, 0.0f, &mx);
    float ss = (float)((double)((acc[0] + acc[1]) + (acc[2] + acc[3])) + part);
    se_row_reduce_f(&ss, &mx, red_ss, red_mx);
    se_rb_grid_combine(row_slots, p, parts, 0, 1, 2 * gen + 1, &ss, &mx, cs1, cm1);

    /* float64 once per block, off any short row's critical path: the
     * error of s is then the sums' alone (docs/TOLERANCES.md). */
    float s = (float)(1.0 / sqrt((double)ss / (double)cols + eps));
    float s2 = __fmul_rn(s, SE_RB_LOG2E), m2 = __fmul_rn(__fmul_rn(s, mx), SE_RB_LOG2E);
    acc[0] = acc[1] = acc[2] = acc[3] = 0.0f;
#pragma unroll
    for (int k = 0; k < SE_RB_VALS; k++) {
        v[k] = tid + (k / 4) * nt < n4 ? se_rb_exp2(s2, v[k], m2) : 0.0f;
        acc[k % 4] += v[k];
    }
    float unused = -INFINITY;
    part = se_rb_grid_sum(x4, NULL, h4 + tid, n4, nt, 1, s2, m2, &unused);
    part += se_rb_grid_sum(se_rb_held, se_rb_held, tid, hs, nt, 1, s2, m2, &unused);
    float l = (float)((double)((acc[0] + acc[1]) + (acc[2] + acc[3])) + part);
    se_row_reduce_f(&l, &unused, red_l, red_unused);
    se_rb_grid_combine(row_slots, p, parts, 2, 0, 2 * gen + 2, &l, &unused, cs2, cm2);

    float inv_l = __frcp_rn(l);
    for (int i = h4 + tid; i < n4; i += nt) { /* the tail first, while L2 still has it */
        float4 a = x4[i];
        __stcs(y4 + i, make_float4(se_rb_exp2(s2, a.x, m2) * inv_l,
                                   se_rb_exp2(s2, a.y, m2) * inv_l,
                                   se_rb_exp2(s2, a.z, m2) * inv_l,
                                   se_rb_exp2(s2, a.w, m2) * inv_l));
    }
    for (int j = tid; j < hs; j += nt) {
        float4 a = se_rb_held[j];
        __stcs(y4 + r4 + j, make_float4(a.x * inv_l, a.y * inv_l, a.z * inv_l, a.w * inv_l));
    }
#pragma unroll
    for (int q = 0; q < SE_RB_VALS / 4; q++) {
        int i = tid + q * nt;
        if (i < n4)
            __stcs(y4 + i, make_float4(v[4 * q] * inv_l, v[4 * q + 1] * inv_l,
                                       v[4 * q + 2] * inv_l, v[4 * q + 3] * inv_l));
    }
    __syncthreads(); /* the CTA's writes are done */
    if (tid == 0) {
        if (trace.rec) {
            sc.start[blockIdx.x] = t0;
            __threadfence();
        }
        /* Both arrivals at once (relaxed: the counters order nothing within
         * the launch; the next launch sees them after this one ends). */
        int row_done = atomicAdd(sc.count + row, 1) == parts - 1;
        int grid_done = atomicAdd(sc.gen + 1, 1) == (int)gridDim.x - 1;
        if (row_done) {
            sc.count[row] = 0;
            if (trace.rec) {
                __threadfence();
                uint64_t first = t0;
                for (int r = 0; r < parts; r++) {
                    uint64_t t = __ldcg((const unsigned long long *)sc.start + row * parts + r);
                    first = t < first ? t : first;
                }
                se_trace_record(&trace, row, first);
            }
        }
        if (grid_done) {
            sc.gen[1] = 0;
            sc.gen[0] = (int32_t)((gen + 1) & SE_RB_GEN_MASK);
        }
    }
}

/* The register-resident kernel for a row, its threads (a multiple of 32)
 * and name; NULL if the row is too long for any of them. With rows enough
 * for two blocks on every SM, few threads per row with many values each
 * (more rows in flight per SM: bandwidth); with fewer rows, as many
 * threads per row as fit (short serial chains: latency). */
typedef void (*se_rb_fn)(const float *, float *, int, double, int, se_trace_buf);

static se_rb_fn rowblock_reg_pick(int64_t rows, int64_t cols, int sms, int *threads,
                                  const char **name)
{
    static const struct {
        se_rb_fn fn;
        int vals;
        const char *name;
    } k[] = {{se_k_rowblock_reg8, 8, "se_k_rowblock_reg8"},
             {se_k_rowblock_reg16, 16, "se_k_rowblock_reg16"},
             {se_k_rowblock_reg, SE_RB_VALS, "se_k_rowblock_reg"}};
    const size_t nk = sizeof k / sizeof k[0];
    /* Few rows: the fewest values per thread (at least 8) that fit the row
     * in 1024 threads: short serial chains. Measured on the H200, 32x4096:
     * 1024 threads x 4 values 5.15 us, 512 x 8 5.09 us, 256 x 16 5.22 us;
     * 3x4097: 544 x 8 5.44 us, 288 x 16 5.86 us (docs/PERFORMANCE.md).
     * Many rows: the most values per thread (more rows in flight per SM). */
    for (size_t i = rows >= 2 * (int64_t)sms ? nk - 1 : 0; i < nk; i++) {
        if (cols > (int64_t)k[i].vals * SE_ROW_THREADS)
            continue;
        int64_t t = (cols + k[i].vals - 1) / k[i].vals;
        t = (t + 31) / 32 * 32;
        *threads = (int)t;
        *name = k[i].name;
        return k[i].fn;
    }
    return NULL;
}

/* A clustered launch: csize CTAs per row, each `chunk` columns, `smem`
 * bytes of dynamic shared memory; `clusters` of them fit on the device at
 * once. */
typedef struct rb_cluster_cfg {
    int csize, chunk, clusters;
    size_t smem;
} rb_cluster_cfg;

static void rb_launch_config(cudaLaunchConfig_t *cfg, cudaLaunchAttribute *attr, int64_t rows,
                             int csize, size_t smem, cudaStream_t stream)
{
    memset(cfg, 0, sizeof *cfg);
    cfg->gridDim = dim3((unsigned)(rows * csize));
    cfg->blockDim = dim3(SE_ROW_THREADS);
    cfg->dynamicSmemBytes = smem;
    cfg->stream = stream;
    attr->id = cudaLaunchAttributeClusterDimension;
    attr->val.clusterDim.x = (unsigned)csize;
    attr->val.clusterDim.y = 1;
    attr->val.clusterDim.z = 1;
    cfg->attrs = attr;
    cfg->numAttrs = 1;
}

/* The cluster shape for `cols` columns with at most `per_cta` of them per
 * CTA; clusters = 0 when it needs more than SE_RB_MAX_CLUSTER CTAs or the
 * device cannot co-schedule one. */
static rb_cluster_cfg rb_cluster_try(int64_t rows, int64_t cols, int64_t per_cta)
{
    rb_cluster_cfg c = {0, 0, 0, 0};
    int64_t csize = (cols + per_cta - 1) / per_cta;
    if (csize > SE_RB_MAX_CLUSTER || rows * csize > INT32_MAX)
        return c;
    int64_t chunk = (cols + csize - 1) / csize;
    chunk = (chunk + 3) / 4 * 4;
    int64_t in_regs = (int64_t)SE_RB_VALS * SE_ROW_THREADS;
    c.csize = (int)csize;
    c.chunk = (int)chunk;
    c.smem = chunk > in_regs ? (size_t)(chunk - in_regs) * sizeof(float) : 0;
    cudaLaunchConfig_t cfg;
    cudaLaunchAttribute attr;
    rb_launch_config(&cfg, &attr, rows, c.csize, c.smem, 0);
    if (cudaOccupancyMaxActiveClusters(&c.clusters, (const void *)se_k_rowblock_cluster, &cfg) !=
        cudaSuccess) {
        cudaGetLastError();
        c.clusters = 0;
    }
    return c;
}

static int64_t rb_waves(int64_t rows, const rb_cluster_cfg *c)
{
    return c->clusters > 0 ? (rows + c->clusters - 1) / c->clusters : INT64_MAX;
}

/* The cluster for a row too long for one CTA's registers: registers only
 * (1024 x 32 columns per CTA) unless CTAs that also hold up to
 * SE_RB_SMEM_VALS columns in shared memory (16-byte rows only; fewer CTAs
 * per row, so more rows at once) need fewer waves of co-resident clusters.
 * On the H200, 64x262144: clusters of 8 fit 15 at a time (5 waves, 73 us),
 * clusters of 4 with 128 KiB each fit 30 (3 waves, 62 us); persistent
 * clusters staging their next row in shared memory took 83 us
 * (docs/PERFORMANCE.md). clusters = 0: no cluster fits (the three-pass
 * kernel runs). The last answer is kept: the queries cost host time. */
static se_status rb_cluster_pick(int64_t rows, int64_t cols, int vec4, rb_cluster_cfg *out,
                                 se_err *err)
{
    static int attrs_dev = -1, cached_dev = -1;
    static int64_t cached_rows = -1, cached_cols = -1;
    static rb_cluster_cfg cached;
    int dev;
    SE_CUDA_TRY(cudaGetDevice(&dev));
    if (dev == cached_dev && rows == cached_rows && cols == cached_cols) {
        *out = cached;
        return SE_OK;
    }
    if (attrs_dev != dev) { /* function attributes are per device */
        SE_CUDA_TRY(cudaFuncSetAttribute((const void *)se_k_rowblock_cluster,
                                         cudaFuncAttributeNonPortableClusterSizeAllowed, 1));
        SE_CUDA_TRY(cudaFuncSetAttribute((const void *)se_k_rowblock_cluster,
                                         cudaFuncAttributeMaxDynamicSharedMemorySize,
                                         SE_RB_SMEM_VALS * (int)sizeof(float)));
        attrs_dev = dev;
    }
    int64_t in_regs = (int64_t)SE_RB_VALS * SE_ROW_THREADS;
    rb_cluster_cfg regs = rb_cluster_try(rows, cols, in_regs);
    *out = regs;
    if (vec4) {
        rb_cluster_cfg both = rb_cluster_try(rows, cols, in_regs + SE_RB_SMEM_VALS);
        if (both.clusters > 0 && rb_waves(rows, &both) < rb_waves(rows, &regs))
            *out = both;
    }
    cached_dev = dev;
    cached_rows = rows;
    cached_cols = cols;
    cached = *out;
    return SE_OK;
}

/* The cooperative grid for 16-byte rows too long for one CTA's registers
 * when there are CTAs enough for two or more per row: `parts` CTAs per row
 * of `chunk` columns, each with smem4 float4 of shared memory; parts = 0
 * when it does not serve. Every CTA co-resident is what the cooperative
 * launch guarantees; one CTA per SM (1024 threads, 32 values each). The
 * last answer is kept, as for the clusters. */
typedef struct rb_grid_cfg {
    int parts, chunk, smem4;
} rb_grid_cfg;

static se_status rb_grid_pick(int64_t rows, int64_t cols, int vec4, int sms, rb_grid_cfg *out,
                              se_err *err)
{
    static int cached_dev = -1, smem_max = 0;
    static int64_t cached_rows = -1, cached_cols = -1;
    static rb_grid_cfg cached;
    const int64_t in_regs = (int64_t)SE_RB_VALS * SE_ROW_THREADS;
    rb_grid_cfg g = {0, 0, 0};
    *out = g;
    if (!vec4 || cols <= in_regs)
        return SE_OK;
    int dev;
    SE_CUDA_TRY(cudaGetDevice(&dev));
    if (dev == cached_dev && rows == cached_rows && cols == cached_cols) {
        *out = cached;
        return SE_OK;
    }
    if (dev != cached_dev) {
        cudaFuncAttributes fa;
        int optin;
        cached_dev = -1; /* until this device's attributes are set */
        cached_rows = cached_cols = -1;
        SE_CUDA_TRY(cudaFuncGetAttributes(&fa, (const void *)se_k_rowblock_grid));
        SE_CUDA_TRY(cudaDeviceGetAttribute(&optin, cudaDevAttrMaxSharedMemoryPerBlockOptin, dev));
        smem_max = (optin - (int)fa.sharedSizeBytes) / 16 * 16;
        SE_CUDA_TRY(cudaFuncSetAttribute((const void *)se_k_rowblock_grid,
                                         cudaFuncAttributeMaxDynamicSharedMemorySize, smem_max));
        cached_dev = dev;
    }
    int per_sm = 0;
    SE_CUDA_TRY(cudaOccupancyMaxActiveBlocksPerMultiprocessor(
        &per_sm, (const void *)se_k_rowblock_grid, SE_ROW_THREADS, (size_t)smem_max));
    int64_t ctas = (int64_t)per_sm * sms;
    if (ctas > SE_RB_GRID_CAP)
        ctas = SE_RB_GRID_CAP;
    int64_t parts = ctas / rows;
    if (parts >= 2) {
        int64_t chunk = ((cols + parts - 1) / parts + 3) / 4 * 4;
        int64_t smem4 = (chunk - in_regs) / 4;
        g.parts = (int)((cols + chunk - 1) / chunk); /* no CTA without columns */
        g.chunk = (int)chunk;
        g.smem4 = (int)(smem4 < 0 ? 0 : smem4 < smem_max / 16 ? smem4 : smem_max / 16);
    }
    cached_rows = rows;
    cached_cols = cols;
    cached = g;
    *out = g;
    return SE_OK;
}

static se_status rb_grid_launch(const float *x, float *y, int64_t rows, int64_t cols, double eps,
                                const rb_grid_cfg *g, se_rb_scratch sc, se_trace_buf trace,
                                cudaStream_t stream, se_err *err)
{
    int parts = g->parts, chunk = g->chunk, smem4 = g->smem4;
    void *args[] = {(void *)&x, (void *)&y, (void *)&cols, (void *)&parts, (void *)&chunk,
                    (void *)&smem4, (void *)&eps, (void *)&sc, (void *)&trace};
    cudaError_t e = cudaLaunchCooperativeKernel((const void *)se_k_rowblock_grid,
                                                dim3((unsigned)(rows * parts)),
                                                dim3(SE_ROW_THREADS), args, (size_t)smem4 * 16,
                                                stream);
    if (e != cudaSuccess) {
        cudaGetLastError();
        return se_fail(err, e == cudaErrorCooperativeLaunchTooLarge ? SE_ERR_LIMIT : SE_ERR_CUDA,
                       "se_k_rowblock_grid: cooperative launch of %lld rows x %d blocks of %d "
                       "threads (%d columns and %d bytes of shared memory each) failed: %s (%s)",
                       (long long)rows, parts, SE_ROW_THREADS, chunk, smem4 * 16,
                       cudaGetErrorString(e), cudaGetErrorName(e));
    }
    return SE_OK;
}

/* se_k_rowblock_stream serves many 16-byte rows of 16385 to 32768 columns:
 * one 1024-thread CTA per SM, so without the staging every CTA loads,
 * computes and stores in lockstep. Measured on the H200: 1024x32768 81.2 ->
 * 77.1 us; on 4096x4096 (38.4 vs 36.2 us) and 512x8192 the several CTAs
 * per SM of se_k_rowblock_reg already overlap, and staging loses. */
static int rb_stream_fits(int64_t rows, int64_t cols, int vec4, int sms)
{
    return vec4 && cols > (int64_t)(SE_RB_VALS / 2) * SE_ROW_THREADS &&
           cols <= (int64_t)SE_RB_VALS * SE_ROW_THREADS && rows >= 2 * (int64_t)sms;
}

static se_status rb_stream_launch(const float *x, float *y, int64_t rows, int64_t cols,
                                  double eps, int dev, int sms, se_trace_buf trace,
                                  cudaStream_t stream, se_err *err)
{
    static int attr_dev = -1;
    if (attr_dev != dev) { /* function attributes are per device */
        SE_CUDA_TRY(cudaFuncSetAttribute((const void *)se_k_rowblock_stream,
                                         cudaFuncAttributeMaxDynamicSharedMemorySize,
                                         SE_RB_VALS * SE_ROW_THREADS * (int)sizeof(float)));
        attr_dev = dev;
    }
    int threads = (int)(((cols + SE_RB_VALS - 1) / SE_RB_VALS + 31) / 32 * 32);
    size_t smem = (size_t)threads * SE_RB_VALS * sizeof(float);
    int per_sm = 0;
    SE_CUDA_TRY(cudaOccupancyMaxActiveBlocksPerMultiprocessor(
        &per_sm, (const void *)se_k_rowblock_stream, threads, smem));
    if (per_sm < 1)
        return se_fail(err, SE_ERR_CUDA, "se_k_rowblock_stream: no block of %d threads with %zu "
                       "bytes of shared memory fits on an SM", threads, smem);
    int64_t grid = (int64_t)per_sm * sms;
    if (grid > rows)
        grid = rows;
    se_k_rowblock_stream<<<(unsigned)grid, threads, smem, stream>>>(x, y, rows, (int)cols, eps,
                                                                    trace);
    SE_CUDA_LAUNCHED("se_k_rowblock_stream");
    return SE_OK;
}

extern "C" se_status se_gpu_rowblock_enqueue(const float *x, float *y, int64_t rows,
                                             int64_t cols, double eps, se_rb_scratch scratch,
                                             se_trace_buf trace, cudaStream_t stream,
                                             se_err *err)
{
    int threads, dev, sms;
    const char *name;
    if (cols <= SE_RB_THREAD_COLS) {
        threads = rows < 256 ? (int)((rows + 31) / 32 * 32) : 256;
        se_k_rowblock_thread<<<(unsigned)((rows + threads - 1) / threads), threads, 0, stream>>>(
            x, y, rows, (int)cols, eps, trace);
        SE_CUDA_LAUNCHED("se_k_rowblock_thread");
        return SE_OK;
    }
    int vec4 = cols % 4 == 0;
    SE_CUDA_TRY(cudaGetDevice(&dev));
    SE_CUDA_TRY(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev));
    if (rb_stream_fits(rows, cols, vec4, sms))
        return rb_stream_launch(x, y, rows, cols, eps, dev, sms, trace, stream, err);
    se_rb_fn fn = rowblock_reg_pick(rows, cols, sms, &threads, &name);
    if (fn) {
        fn<<<(unsigned)rows, threads, 0, stream>>>(x, y, (int)cols, eps, vec4, trace);
        SE_CUDA_LAUNCHED(name);
        return SE_OK;
    }
    /* Too long for one block's registers: split over CTAs of a cooperative
     * grid when it has two or more for every row; else over a cluster, if
     * one of at most SE_RB_MAX_CLUSTER CTAs holds it and the device can run
     * one. */
    rb_grid_cfg g;
    se_status st = rb_grid_pick(rows, cols, vec4, sms, &g, err);
    if (st != SE_OK)
        return st;
    if (g.parts > 0)
        return rb_grid_launch(x, y, rows, cols, eps, &g, scratch, trace, stream, err);
    rb_cluster_cfg c;
    st = rb_cluster_pick(rows, cols, vec4, &c, err);
    if (st != SE_OK)
        return st;
    if (c.clusters > 0) {
        cudaLaunchConfig_t cfg;
        cudaLaunchAttribute attr;
        rb_launch_config(&cfg, &attr, rows, c.csize, c.smem, stream);
        SE_CUDA_TRY(cudaLaunchKernelEx(&cfg, se_k_rowblock_cluster, x, y, cols, c.chunk, eps,
                                       vec4, trace));
        return SE_OK;
    }
    se_k_rowblock<<<(unsigned)rows, SE_ROW_THREADS, 0, stream>>>(x, y, cols, eps, trace);
    SE_CUDA_LAUNCHED("se_k_rowblock");
    return SE_OK;
}

extern "C" se_status se_gpu_prescale_enqueue(const float *x, float *xs, int64_t rows,
                                             int64_t cols, double eps, cudaStream_t stream,
                                             se_err *err)
{
    se_k_prescale<<<(unsigned)rows, SE_ROW_THREADS, 0, stream>>>(x, xs, cols, eps);
    SE_CUDA_LAUNCHED("se_k_prescale");
    return SE_OK;
}

extern "C" se_status se_gpu_outliers_enqueue(float *x, int64_t rows, int64_t cols,
                                             uint64_t seed, double scale, cudaStream_t stream,
                                             se_err *err)
{
    unsigned blocks = (unsigned)((rows + 255) / 256);
    se_k_outliers<<<blocks, 256, 0, stream>>>(x, rows, cols, seed, (float)scale);
    SE_CUDA_LAUNCHED("se_k_outliers");
    return SE_OK;
}
