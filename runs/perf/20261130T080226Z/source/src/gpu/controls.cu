/*
 * controls.cu - kernels that are not one of the four tiled strategies: the
 * non-tiled rowblock control (one block of 1024 threads per row), the
 * pre-scaling that turns the input into cuDNN's softmax input, and the
 * outliers planted in the cuRAND input.
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

#include "kernels.h"
#include "tile_ops.cuh"

#include "../outliers.h"

#include "../se_cuda.h"

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
 * `vals` (4, 8 or 32) is a constant in each of the kernels below, so the
 * loops unroll into registers; short rows get the smallest that fits, with
 * up to 1024 threads, so each thread's serial chain of exponentials is
 * short: that chain, not bandwidth, is what a short row waits for. */
#define SE_RB_VALS 32

/* Largest cluster a long row is split over (16 needs the non-portable
 * cluster size, allowed on sm_90). */
#define SE_RB_MAX_CLUSTER 16

/* Combines one value per CTA of the cluster (each CTA's `mine`, in its own
 * shared memory) in rank order, so every CTA gets the same result; the
 * caller's cluster.sync() before makes the values visible, and the one
 * after (before `mine` is overwritten or the CTA exits) keeps them alive. */
static __device__ __forceinline__ void se_cluster_combine(cg::cluster_group cluster, double *mine,
                                                          float *mine_max, double *sum, float *max)
{
    double a = 0.0;
    float b = -INFINITY;
    for (unsigned r = 0; r < cluster.num_blocks(); r++) {
        a += *cluster.map_shared_rank(mine, r);
        b = fmaxf(b, *cluster.map_shared_rank(mine_max, r));
    }
    *sum = a;
    *max = b;
}

/* One row, or (clustered) one CTA's contiguous part of a row: `cols` columns
 * at xr/yr, of a row of `row_cols` columns. With a cluster, the CTA's
 * partial sums and maxima are combined over the cluster through distributed
 * shared memory, so the row is still read once and written once. */
static __device__ __forceinline__ void se_rowblock_reg_body(const float *xr, float *yr, int cols,
                                                            int64_t row_cols, double eps, int vec4,
                                                            se_trace_buf trace, int64_t task,
                                                            const int vals, const int clustered)
{
    uint64_t t0 = trace.rec ? se_now_ns() : 0;
    __shared__ double red_d[SE_ROW_WARPS];
    __shared__ float red_f[SE_ROW_WARPS];
    __shared__ double part_d;
    __shared__ float part_f;
    const int nt = blockDim.x;
    float v[SE_RB_VALS];
    if (vec4) {
        const float4 *x4 = (const float4 *)xr;
        int n4 = cols / 4;
#pragma unroll
        for (int q = 0; q < vals / 4; q++) {
            int i = threadIdx.x + q * nt;
            float4 a = i < n4 ? x4[i] : make_float4(0.0f, 0.0f, 0.0f, 0.0f);
            v[4 * q] = a.x;
            v[4 * q + 1] = a.y;
            v[4 * q + 2] = a.z;
            v[4 * q + 3] = a.w;
        }
    } else {
#pragma unroll
        for (int k = 0; k < vals; k++) {
            int i = threadIdx.x + k * nt;
            v[k] = i < cols ? xr[i] : 0.0f;
        }
    }
    /* Element k of this thread is valid when its column is inside the row. */
#define SE_RB_VALID(k) (vec4 ? (threadIdx.x + ((k) / 4) * nt) * 4 + ((k) % 4) < cols \
                             : threadIdx.x + (k) * nt < cols)
    float ssf = 0.0f, mx = -INFINITY;
#pragma unroll
    for (int k = 0; k < vals; k++) {
        ssf = fmaf(v[k], v[k], ssf); /* invalid elements are 0 */
        if (SE_RB_VALID(k))
            mx = fmaxf(mx, v[k]);
    }
    double ss = ssf;
    se_row_reduce(&ss, &mx, red_d, red_f);
    if (clustered) {
        cg::cluster_group cluster = cg::this_cluster();
        if (threadIdx.x == 0) {
            part_d = ss;
            part_f = mx;
        }
        cluster.sync();
        se_cluster_combine(cluster, &part_d, &part_f, &ss, &mx);
        cluster.sync(); /* every CTA has read part_* before they are reused */
    }
    /* In float from here (rsqrtf and a reciprocal: a few instructions, not
     * float64 division and square root on a short row's critical path). */
    float s = rsqrtf(__fmaf_rn((float)ss, __frcp_rn((float)row_cols), (float)eps));
    float m = s * mx;
    float lf = 0.0f, unused = -INFINITY;
#pragma unroll
    for (int k = 0; k < vals; k++)
        if (SE_RB_VALID(k))
            lf += expf(s * v[k] - m);
    double l = lf;
    se_row_reduce(&l, &unused, red_d, red_f);
    if (clustered) {
        cg::cluster_group cluster = cg::this_cluster();
        if (threadIdx.x == 0)
            part_d = l;
        cluster.sync();
        se_cluster_combine(cluster, &part_d, &part_f, &l, &unused);
        cluster.sync(); /* no CTA exits while another still reads its part_d */
    }
    float inv_l = __frcp_rn((float)l);
    if (vec4) {
        float4 *y4 = (float4 *)yr;
        int n4 = cols / 4;
#pragma unroll
        for (int q = 0; q < vals / 4; q++) {
            int i = threadIdx.x + q * nt;
            if (i < n4)
                y4[i] = make_float4(expf(s * v[4 * q] - m) * inv_l, expf(s * v[4 * q + 1] - m) * inv_l,
                                    expf(s * v[4 * q + 2] - m) * inv_l,
                                    expf(s * v[4 * q + 3] - m) * inv_l);
        }
    } else {
#pragma unroll
        for (int k = 0; k < vals; k++) {
            int i = threadIdx.x + k * nt;
            if (i < cols)
                yr[i] = expf(s * v[k] - m) * inv_l;
        }
    }
#undef SE_RB_VALID
    if (trace.rec) {
        __syncthreads();
        if (clustered)
            cg::this_cluster().sync(); /* the row ends when every CTA has written */
        if (threadIdx.x == 0 && (!clustered || cg::this_cluster().block_rank() == 0))
            se_trace_record(&trace, task, t0);
    }
}

/* A long row over a cluster of gridDim.x / rows CTAs: CTA rank r holds
 * columns [r chunk, (r + 1) chunk), chunk a multiple of 4 (when vec4). */
__global__ void __launch_bounds__(SE_ROW_THREADS) se_k_rowblock_cluster(const float *x, float *y,
                                                                        int64_t cols, int chunk,
                                                                        double eps, int vec4,
                                                                        se_trace_buf trace)
{
    cg::cluster_group cluster = cg::this_cluster();
    int64_t row = blockIdx.x / cluster.num_blocks();
    int64_t start = (int64_t)cluster.block_rank() * chunk;
    int64_t left = cols - start;
    int n = left <= 0 ? 0 : left < chunk ? (int)left : chunk;
    const float *xr = x + row * cols + (left > 0 ? start : 0);
    float *yr = y + row * cols + (left > 0 ? start : 0);
    se_rowblock_reg_body(xr, yr, n, cols, eps, vec4, trace, row, SE_RB_VALS, 1);
}

#define SE_RB_KERNEL(name, vals)                                                              \
    __global__ void __launch_bounds__(SE_ROW_THREADS) name(const float *x, float *y, int cols, \
                                                           double eps, int vec4,             \
                                                           se_trace_buf trace)               \
    {                                                                                         \
        se_rowblock_reg_body(x + (int64_t)blockIdx.x * cols, y + (int64_t)blockIdx.x * cols,  \
                             cols, cols, eps, vec4, trace, blockIdx.x, vals, 0);              \
    }

SE_RB_KERNEL(se_k_rowblock_reg8, 8)
SE_RB_KERNEL(se_k_rowblock_reg16, 16)
SE_RB_KERNEL(se_k_rowblock_reg, SE_RB_VALS)

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

/* Launches se_k_rowblock_cluster with clusters of csize CTAs; SE_ERR_LIMIT
 * (nothing launched) when the device cannot co-schedule such a cluster. */
static se_status rowblock_cluster_launch(const float *x, float *y, int64_t rows, int64_t cols,
                                         int csize, int chunk, double eps, int vec4,
                                         se_trace_buf trace, cudaStream_t stream, se_err *err)
{
    static int nonportable_set = 0;
    if (!nonportable_set) {
        SE_CUDA_TRY(cudaFuncSetAttribute((const void *)se_k_rowblock_cluster,
                                         cudaFuncAttributeNonPortableClusterSizeAllowed, 1));
        nonportable_set = 1;
    }
    cudaLaunchConfig_t cfg;
    cudaLaunchAttribute attr;
    memset(&cfg, 0, sizeof cfg);
    cfg.gridDim = dim3((unsigned)(rows * csize));
    cfg.blockDim = dim3(SE_ROW_THREADS);
    cfg.stream = stream;
    attr.id = cudaLaunchAttributeClusterDimension;
    attr.val.clusterDim.x = (unsigned)csize;
    attr.val.clusterDim.y = 1;
    attr.val.clusterDim.z = 1;
    cfg.attrs = &attr;
    cfg.numAttrs = 1;
    int clusters = 0;
    if (cudaOccupancyMaxActiveClusters(&clusters, (const void *)se_k_rowblock_cluster, &cfg) !=
            cudaSuccess || clusters < 1) {
        cudaGetLastError();
        return SE_ERR_LIMIT;
    }
    SE_CUDA_TRY(cudaLaunchKernelEx(&cfg, se_k_rowblock_cluster, x, y, cols, chunk, eps, vec4,
                                   trace));
    return SE_OK;
}

extern "C" se_status se_gpu_rowblock_enqueue(const float *x, float *y, int64_t rows,
                                             int64_t cols, double eps, se_trace_buf trace,
                                             cudaStream_t stream, se_err *err)
{
    int threads, dev, sms;
    const char *name;
    SE_CUDA_TRY(cudaGetDevice(&dev));
    SE_CUDA_TRY(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev));
    se_rb_fn fn = rowblock_reg_pick(rows, cols, sms, &threads, &name);
    if (fn) {
        fn<<<(unsigned)rows, threads, 0, stream>>>(x, y, (int)cols, eps, cols % 4 == 0, trace);
        SE_CUDA_LAUNCHED(name);
        return SE_OK;
    }
    /* Too long for one block's registers: split over a cluster, if one of at
     * most SE_RB_MAX_CLUSTER CTAs holds it and the device can run one. */
    int64_t per_cta = (int64_t)SE_RB_VALS * SE_ROW_THREADS;
    int64_t csize = (cols + per_cta - 1) / per_cta;
    int vec4 = cols % 4 == 0;
    if (csize <= SE_RB_MAX_CLUSTER && rows * csize <= INT32_MAX) {
        int chunk = (int)((cols + csize - 1) / csize);
        chunk = (chunk + 3) / 4 * 4;
        se_status st = rowblock_cluster_launch(x, y, rows, cols, (int)csize, chunk, eps, vec4,
                                               trace, stream, err);
        if (st != SE_ERR_LIMIT)
            return st;
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
