/*
 * rowblock_block.cu - rowblock's register paths: a row loaded once into
 * the registers of one block (se_k_rowblock_reg8/16/reg), and a longer row
 * over a cluster of blocks that
 * combine their partials through distributed shared memory
 * (se_k_rowblock_cluster); with the host code that picks and launches
 * each. rowblock.cu chooses between the paths (rowblock.cuh).
 */
#include <math.h>
#include <stdint.h>
#include <string.h>

#include <cooperative_groups.h>

#include "gpu/kernels.h"
#include "gpu/rowblock.cuh"

#include "gpu/se_cuda.h"

namespace cg = cooperative_groups;

/* y is stored with the evict-first hint (__stcs), as Liger-Kernel's softmax
 * does: y is not read again, and x keeps more of L2 for the next call
 * (measured within 1% either way on the H200: docs/PERFORMANCE.md). */
#define SE_RB_ST4(p, v) __stcs((p), (v))

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
                                                            const int ovf_f32, float4 *spill)
{
    uint64_t t0 = trace.rec ? se_now_ns() : 0;
    __shared__ float red_ss[SE_ROW_WARPS], red_mx[SE_ROW_WARPS];
    __shared__ float red_l[SE_ROW_WARPS], red_unused[SE_ROW_WARPS];
    __shared__ float part_ss, part_mx, part_l;
    __shared__ float red_o[SE_ROW_WARPS], red_om[SE_ROW_WARPS]; /* an overflowed row's sums */
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
    if (vec4) {
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
    float s;
    if (ovf_f32 && isinf(ss)) {
        /* The float sums of the values held again, each scaled by 2^-80
         * first (rowblock.cuh): what kept se_k_rowblock_reg* at their
         * registers; float64 here cost 32x4096 0.15 us on the H200. */
        float a2 = 0.0f, unused_o = -INFINITY;
#pragma unroll
        for (int k = 0; k < vals; k++) {
            float w = __fmul_rn(v[k], 0x1p-80f);
            a2 = fmaf(w, w, a2); /* invalid elements are 0 */
        }
        se_row_reduce_f(&a2, &unused_o, red_o, red_om);
        s = se_rb_scale_from_scaled_f(a2, __frcp_rn((float)row_cols));
    } else if (isinf(ss)) { /* uniform: every CTA of the cluster combined the same partials */
        double d = 0.0;
#pragma unroll
        for (int k = 0; k < vals; k++)
            d = fma((double)v[k], (double)v[k], d); /* invalid elements are 0 */
        if (spill)
            for (int i = r4 + threadIdx.x; i < n4; i += nt) {
                float4 a = spill[i - r4];
                d = fma((double)a.x, (double)a.x, d);
                d = fma((double)a.y, (double)a.y, d);
                d = fma((double)a.z, (double)a.z, d);
                d = fma((double)a.w, (double)a.w, d);
            }
        float sc = se_rb_block_sum_scaled(d);
        if (clustered) {
            cg::cluster_group cluster = cg::this_cluster();
            cluster.sync(); /* every CTA has read part_ss */
            if (threadIdx.x == 0)
                part_ss = sc;
            cluster.sync();
            se_cluster_combine(cluster, &part_ss, NULL, &sc, NULL);
        }
        s = se_rb_scale_from_scaled(sc, row_cols, eps);
    } else {
        /* rsqrtf and a reciprocal: a few instructions, not float64 division
         * and square root on a short row's critical path. */
        s = rsqrtf(__fmaf_rn(ss, __frcp_rn((float)row_cols), (float)eps));
    }
    float m = s * mx;
    const float s2 = __fmul_rn(s, SE_RB_LOG2E), m2 = __fmul_rn(m, SE_RB_LOG2E);
    float unused = -INFINITY;
    acc[0] = acc[1] = acc[2] = acc[3] = 0.0f;
#pragma unroll
    for (int k = 0; k < vals; k++) {
        v[k] = SE_RB_VALID(k) ? se_rb_exp2_ftz(s2, v[k], m2) : 0.0f;
        acc[k % 4] += v[k];
    }
    if (spill) {
        float sp[4] = {0.0f, 0.0f, 0.0f, 0.0f};
        for (int i = r4 + threadIdx.x; i < n4; i += nt) {
            float4 a = spill[i - r4];
            a.x = se_rb_exp2_ftz(s2, a.x, m2);
            a.y = se_rb_exp2_ftz(s2, a.y, m2);
            a.z = se_rb_exp2_ftz(s2, a.z, m2);
            a.w = se_rb_exp2_ftz(s2, a.w, m2);
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
                SE_RB_ST4(y4 + i, make_float4(v[4 * q] * inv_l, v[4 * q + 1] * inv_l,
                                              v[4 * q + 2] * inv_l, v[4 * q + 3] * inv_l));
        }
        if (spill)
            for (int i = r4 + threadIdx.x; i < n4; i += nt) {
                float4 a = spill[i - r4];
                SE_RB_ST4(y4 + i, make_float4(a.x * inv_l, a.y * inv_l, a.z * inv_l, a.w * inv_l));
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
    se_rowblock_reg_body(xr, yr, n, cols, eps, vec4, trace, row, SE_RB_VALS, 1, 0,
                         vec4 ? se_rb_spill : NULL);
}

#define SE_RB_KERNEL(name, vals)                                                              \
    __global__ void __launch_bounds__(SE_ROW_THREADS) name(const float *x, float *y, int cols, \
                                                           double eps, int vec4,             \
                                                           se_trace_buf trace)               \
    {                                                                                         \
        se_rowblock_reg_body(x + (int64_t)blockIdx.x * cols, y + (int64_t)blockIdx.x * cols,  \
                             cols, cols, eps, vec4, trace, blockIdx.x, vals, 0, 1, NULL);    \
    }

SE_RB_KERNEL(se_k_rowblock_reg8, 8)
SE_RB_KERNEL(se_k_rowblock_reg16, 16)
SE_RB_KERNEL(se_k_rowblock_reg, SE_RB_VALS)

/* The register-resident kernel for a row, its threads (a multiple of 32)
 * and name; NULL if the row is too long for any of them. With rows enough
 * for two blocks on every SM, few threads per row with many values each
 * (more rows in flight per SM: bandwidth); with fewer rows, as many
 * threads per row as fit (short serial chains: latency). */
se_rb_fn se_rb_reg_pick(int64_t rows, int64_t cols, int sms, int *threads, const char **name)
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
static se_rb_cluster_cfg rb_cluster_try(int64_t rows, int64_t cols, int64_t per_cta)
{
    se_rb_cluster_cfg c = {0, 0, 0, 0};
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

static int64_t rb_waves(int64_t rows, const se_rb_cluster_cfg *c)
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
se_status se_rb_cluster_pick(int64_t rows, int64_t cols, int vec4, se_rb_cluster_cfg *out,
                             se_err *err)
{
    static int attrs_dev = -1, cached_dev = -1;
    static int64_t cached_rows = -1, cached_cols = -1;
    static se_rb_cluster_cfg cached;
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
    se_rb_cluster_cfg regs = rb_cluster_try(rows, cols, in_regs);
    *out = regs;
    if (vec4) {
        se_rb_cluster_cfg both = rb_cluster_try(rows, cols, in_regs + SE_RB_SMEM_VALS);
        if (both.clusters > 0 && rb_waves(rows, &both) < rb_waves(rows, &regs))
            *out = both;
    }
    cached_dev = dev;
    cached_rows = rows;
    cached_cols = cols;
    cached = *out;
    return SE_OK;
}

/* Launches se_k_rowblock_cluster on the cluster se_rb_cluster_pick chose. */
se_status se_rb_cluster_launch(const float *x, float *y, int64_t rows, int64_t cols, double eps,
                               int vec4, const se_rb_cluster_cfg *c, se_trace_buf trace,
                               cudaStream_t stream, se_err *err)
{
    cudaLaunchConfig_t cfg;
    cudaLaunchAttribute attr;
    rb_launch_config(&cfg, &attr, rows, c->csize, c->smem, stream);
    SE_CUDA_TRY(cudaLaunchKernelEx(&cfg, se_k_rowblock_cluster, x, y, cols, c->chunk, eps, vec4,
                                   trace));
    return SE_OK;
}
