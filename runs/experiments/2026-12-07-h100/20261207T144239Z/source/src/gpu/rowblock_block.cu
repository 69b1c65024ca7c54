/*
 * rowblock_block.cu - rowblock's register paths: a row loaded once into
 * the registers of one block (se_k_rowblock_reg8/16/reg), and a longer row
 * over a cluster of blocks that send their partials into each other's
 * shared memory (se_k_rowblock_cluster); with the host code that picks
 * and launches each. rowblock.cu chooses between the paths (rowblock.cuh).
 */
#include <math.h>
#include <stdint.h>
#include <string.h>

#include <cooperative_groups.h>

#include "gpu/cluster_xchg.cuh"
#include "gpu/kernels.h"
#include "gpu/rowblock.cuh"

#include "gpu/se_cuda.h"

namespace cg = cooperative_groups;

/* y is stored with the evict-first hint (__stcs), as Liger-Kernel's softmax
 * does: y is not read again, and x keeps more of L2 for the next call
 * (measured within 1% either way on the H200: docs/PERFORMANCE.md). */
#define SE_RB_ST4(p, v) __stcs((p), (v))

/* The exchanges of a clustered row (cluster_xchg.cuh): each warp's
 * partial (after a butterfly over its lanes) goes to slot [rank][warp] of
 * every CTA's buffer; a CTA sums the cluster's csize x warps partials in
 * float64 in one fixed order, so every CTA gets the same bits. A CTA
 * waits for every peer's bytes of both exchanges before it exits. */
typedef struct se_rb_xbuf {
    float2 a[SE_RB_MAX_CLUSTER * SE_ROW_WARPS]; /* exchange 1: (sum of squares, max) */
    float b[SE_RB_MAX_CLUSTER * SE_ROW_WARPS];  /* exchange 2: sum of exponentials */
    unsigned long long bar[2];
} se_rb_xbuf;

static __device__ __forceinline__ void se_rb_xbuf_init(se_rb_xbuf *xb)
{
    if (threadIdx.x == 0) {
        se_cl_bar_init1(&xb->bar[0]);
        se_cl_bar_init1(&xb->bar[1]);
        se_cl_bar_fence();
    }
    se_cl_arrive();
}

/* One exchange (k = 0: *sum and *max; k = 1: *sum alone) of the values
 * every thread holds for its CTA's part: see se_rb_xbuf. */
static __device__ __forceinline__ void se_rb_cluster_exchange(se_rb_xbuf *xb, int k, float *sum,
                                                              float *max)
{
    const unsigned warp = threadIdx.x >> 5, lane = threadIdx.x & 31, nw = blockDim.x >> 5;
    const unsigned csize = se_cl_size(), me = se_cl_rank();
    float a = *sum, b = k == 0 ? *max : 0.0f;
    for (int o = 16; o > 0; o >>= 1) {
        a += __shfl_xor_sync(0xffffffffu, a, o);
        if (k == 0)
            b = fmaxf(b, __shfl_xor_sync(0xffffffffu, b, o));
    }
    const unsigned bar = se_smem_u32(&xb->bar[k]);
    if (threadIdx.x == 0)
        se_cl_expect(bar, csize * nw * (k == 0 ? 8u : 4u));
    if (lane < csize) {
        unsigned slot = k == 0 ? se_smem_u32(&xb->a[me * nw + warp]) : se_smem_u32(&xb->b[me * nw + warp]);
        unsigned rslot = se_cl_map(slot, lane), rbar = se_cl_map(bar, lane);
        if (k == 0)
            asm volatile("st.async.shared::cluster.mbarrier::complete_tx::bytes.v2.f32 [%0], {%1, "
                         "%2}, [%3];" ::"r"(rslot),
                         "f"(a), "f"(b), "r"(rbar)
                         : "memory");
        else
            asm volatile("st.async.shared::cluster.mbarrier::complete_tx::bytes.f32 [%0], %1, "
                         "[%2];" ::"r"(rslot),
                         "f"(a), "r"(rbar)
                         : "memory");
    }
    se_cl_wait(bar);
    double s = 0.0;
    float m = -INFINITY;
    for (unsigned i = lane; i < csize * nw; i += 32) {
        if (k == 0) {
            float2 v = xb->a[i];
            s += (double)v.x;
            m = fmaxf(m, v.y);
        } else {
            s += (double)xb->b[i];
        }
    }
    for (int o = 16; o > 0; o >>= 1) { /* xor butterfly: every lane gets the same bits */
        s += __shfl_xor_sync(0xffffffffu, s, o);
        if (k == 0)
            m = fmaxf(m, __shfl_xor_sync(0xffffffffu, m, o));
    }
    *sum = (float)s;
    if (k == 0)
        *max = m;
}

/* The rescue path's exchange (a row whose float sum overflowed, rare):
 * one value per CTA read from each CTA's shared memory, in rank order,
 * between cluster barriers. */
static __device__ __forceinline__ float se_cluster_combine1(cg::cluster_group cluster,
                                                            float *mine)
{
    double a = 0.0;
    for (unsigned r = 0; r < cluster.num_blocks(); r++)
        a += (double)*cluster.map_shared_rank(mine, r);
    return (float)a;
}

/* One row, or (clustered) one CTA's contiguous part of a row: `cols` columns
 * at xr/yr, of a row of `row_cols` columns. With a cluster (xb), the
 * warps' partial sums and maxima are combined over the cluster
 * (se_rb_cluster_exchange), so the row is still read once and written once.
 *
 * `spill` (clustered, 16-byte rows only) holds the part's float4 chunks
 * past the registers' vals/4 * blockDim.x: they are copied into shared
 * memory with cp.async, issued before the register loads, and their
 * exponentials are written back there. Sums are float: four chains per
 * thread, a butterfly over the warp, then over the block's warps, or in
 * float64 over the cluster's warps (the error bound is in
 * docs/TOLERANCES.md); each exponential is computed once and kept for the
 * output. */
static __device__ __forceinline__ void se_rowblock_reg_body(const float *xr, float *yr, int cols,
                                                            int64_t row_cols, double eps, int vec4,
                                                            se_trace_buf trace, int64_t task,
                                                            const int vals, const int clustered,
                                                            const int ovf_f32, float4 *spill,
                                                            se_rb_xbuf *xb)
{
    uint64_t t0 = trace.rec ? se_now_ns() : 0;
    if (clustered)
        se_rb_xbuf_init(xb);
    __shared__ float red_ss[SE_ROW_WARPS], red_mx[SE_ROW_WARPS];
    __shared__ float red_l[SE_ROW_WARPS], red_unused[SE_ROW_WARPS];
    __shared__ float part_ss; /* an overflowed row's partial, read by the cluster */
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
    if (clustered) {
        se_cl_ready();
        se_rb_cluster_exchange(xb, 0, &ss, &mx);
    } else {
        se_row_reduce_f(&ss, &mx, red_ss, red_mx);
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
            if (threadIdx.x == 0)
                part_ss = sc;
            cluster.sync();
            sc = se_cluster_combine1(cluster, &part_ss);
            cluster.sync(); /* no CTA exits while a peer still reads its part_ss */
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
    if (clustered)
        se_rb_cluster_exchange(xb, 1, &l, NULL);
    else
        se_row_reduce_f(&l, &unused, red_l, red_unused);
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
 * part past blockDim.x x 32 columns in dynamic shared memory ("spill", at
 * most SE_RB_SMEM_VALS columns, 16-byte rows only). */
__global__ void __launch_bounds__(SE_ROW_THREADS) se_k_rowblock_cluster(const float *x, float *y,
                                                                        int64_t cols, int chunk,
                                                                        double eps, int vec4,
                                                                        se_trace_buf trace)
{
    extern __shared__ float4 se_rb_spill[];
    __shared__ se_rb_xbuf xb;
    cg::cluster_group cluster = cg::this_cluster();
    int64_t row = blockIdx.x / cluster.num_blocks();
    int64_t start = (int64_t)cluster.block_rank() * chunk;
    int64_t left = cols - start;
    int n = left <= 0 ? 0 : left < chunk ? (int)left : chunk;
    const float *xr = x + row * cols + (left > 0 ? start : 0);
    float *yr = y + row * cols + (left > 0 ? start : 0);
    se_rowblock_reg_body(xr, yr, n, cols, eps, vec4, trace, row, SE_RB_VALS, 1, 0,
                         vec4 ? se_rb_spill : NULL, &xb);
}

#define SE_RB_KERNEL(name, vals)                                                              \
    __global__ void __launch_bounds__(SE_ROW_THREADS) name(const float *x, float *y, int cols, \
                                                           double eps, int vec4,             \
                                                           se_trace_buf trace)               \
    {                                                                                         \
        se_rowblock_reg_body(x + (int64_t)blockIdx.x * cols, y + (int64_t)blockIdx.x * cols,  \
                             cols, cols, eps, vec4, trace, blockIdx.x, vals, 0, 1, NULL,     \
                             NULL);                                                   \
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

void se_rb_cluster_config(cudaLaunchConfig_t *cfg, cudaLaunchAttribute *attr, int64_t rows,
                          const se_rb_cluster_cfg *c, cudaStream_t stream)
{
    memset(cfg, 0, sizeof *cfg);
    cfg->gridDim = dim3((unsigned)(rows * c->csize));
    cfg->blockDim = dim3((unsigned)c->threads);
    cfg->dynamicSmemBytes = c->smem;
    cfg->stream = stream;
    attr->id = cudaLaunchAttributeClusterDimension;
    attr->val.clusterDim.x = (unsigned)c->csize;
    attr->val.clusterDim.y = 1;
    attr->val.clusterDim.z = 1;
    cfg->attrs = attr;
    cfg->numAttrs = 1;
}

/* The cluster of `threads`-thread CTAs of `kernel` for `cols` columns with
 * at most `per_cta` of them per CTA (those past the registers' SE_RB_VALS
 * a thread in dynamic shared memory); clusters = 0 when it needs more than
 * SE_RB_MAX_CLUSTER CTAs or the device cannot co-schedule one. */
static se_rb_cluster_cfg rb_cluster_try(const void *kernel, int64_t rows, int64_t cols,
                                        int threads, int64_t per_cta)
{
    se_rb_cluster_cfg c = {0, 0, 0, 0, 0};
    int64_t csize = (cols + per_cta - 1) / per_cta;
    if (csize > SE_RB_MAX_CLUSTER || rows * csize > INT32_MAX)
        return c;
    int64_t chunk = (cols + csize - 1) / csize;
    chunk = (chunk + 3) / 4 * 4;
    int64_t in_regs = (int64_t)SE_RB_VALS * threads;
    c.csize = (int)csize;
    c.chunk = (int)chunk;
    c.threads = threads;
    c.smem = chunk > in_regs ? (size_t)(chunk - in_regs) * sizeof(float) : 0;
    cudaLaunchConfig_t cfg;
    cudaLaunchAttribute attr;
    se_rb_cluster_config(&cfg, &attr, rows, &c, 0);
    if (cudaOccupancyMaxActiveClusters(&c.clusters, kernel, &cfg) != cudaSuccess) {
        cudaGetLastError();
        c.clusters = 0;
    }
    return c;
}

/* The cluster for a row too long for one 256-thread CTA's registers: the
 * smallest CTAs (256, 512, then 1024 threads) of which at most
 * SE_RB_MAX_CLUSTER hold the row, in registers alone if they can, else
 * with as many columns again in shared memory (16-byte rows only; up to
 * 128 KiB of it an SM, so the CTAs an SM runs by registers still fit).
 * Small CTAs, several an SM, keep each SM loading one row while it
 * exchanges and stores another. On the H200 (docs/PERFORMANCE.md,
 * version 12), 64x262144: 16 CTAs of 256 threads a row 41.28 us, 8 of 512
 * 43.55, 12 of 256 47.38, 4 of 1024 50.96; 1024x32768: 4 of 256 68.86,
 * 2 of 512 70.16, one 1024-thread block 75.34. clusters = 0: none fits.
 * The last answer is kept: the queries cost host time. */
se_status se_rb_cluster_pick_for(const void *kernel, int64_t rows, int64_t cols, int vec4,
                                 se_rb_cluster_cfg *out, se_err *err)
{
    static const void *cached_kernel;
    static int cached_dev = -1;
    static int64_t cached_rows = -1, cached_cols = -1, cached_vec4 = -1;
    static se_rb_cluster_cfg cached;
    int dev;
    SE_CUDA_TRY(cudaGetDevice(&dev));
    if (kernel == cached_kernel && dev == cached_dev && rows == cached_rows &&
        cols == cached_cols && vec4 == cached_vec4) {
        *out = cached;
        return SE_OK;
    }
    /* function attributes are per device: set on every new answer */
    SE_CUDA_TRY(cudaFuncSetAttribute(kernel, cudaFuncAttributeNonPortableClusterSizeAllowed, 1));
    SE_CUDA_TRY(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                     SE_RB_SMEM_VALS * (int)sizeof(float)));
    se_rb_cluster_cfg none = {0, 0, 0, 0, 0};
    *out = none;
    for (int threads = SE_RB_CLUSTER_MIN_THREADS; threads <= SE_ROW_THREADS; threads *= 2) {
        int64_t in_regs = (int64_t)SE_RB_VALS * threads;
        se_rb_cluster_cfg c = none;
        if ((cols + in_regs - 1) / in_regs <= SE_RB_MAX_CLUSTER)
            c = rb_cluster_try(kernel, rows, cols, threads, in_regs);
        else if (vec4)
            c = rb_cluster_try(kernel, rows, cols, threads, 2 * in_regs);
        if (c.clusters > 0) {
            *out = c;
            break;
        }
    }
    cached_kernel = kernel;
    cached_dev = dev;
    cached_rows = rows;
    cached_cols = cols;
    cached_vec4 = vec4;
    cached = *out;
    return SE_OK;
}

se_status se_rb_cluster_pick(int64_t rows, int64_t cols, int vec4, se_rb_cluster_cfg *out,
                             se_err *err)
{
    return se_rb_cluster_pick_for((const void *)se_k_rowblock_cluster, rows, cols, vec4, out,
                                  err);
}

/* Launches se_k_rowblock_cluster on the cluster se_rb_cluster_pick chose. */
se_status se_rb_cluster_launch(const float *x, float *y, int64_t rows, int64_t cols, double eps,
                               int vec4, const se_rb_cluster_cfg *c, se_trace_buf trace,
                               cudaStream_t stream, se_err *err)
{
    cudaLaunchConfig_t cfg;
    cudaLaunchAttribute attr;
    se_rb_cluster_config(&cfg, &attr, rows, c, stream);
    SE_CUDA_TRY(cudaLaunchKernelEx(&cfg, se_k_rowblock_cluster, x, y, cols, c->chunk, eps, vec4,
                                   trace));
    return SE_OK;
}
