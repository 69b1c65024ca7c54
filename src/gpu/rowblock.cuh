/*
 * rowblock.cuh - private to the rowblock control: its sizes, the
 * block-wide float reduction its register and grid kernels share, and the
 * host half of each path, between which rowblock.cu's dispatcher chooses.
 *
 *   rowblock.cu        the dispatcher, a thread per row (up to 8 columns), and one
 *                      block per row in three passes (what no other path takes)
 *   rowblock_block.cu  a row held in the registers of one block, or of a cluster
 *   rowblock_grid.cu   a long row over the blocks of a cooperative grid
 *   rowblock_rows.cu   many short rows: several a warp, staged as float4 spans
 *
 * rowblock is written independently of tile_ops.cuh's arithmetic on purpose:
 * it agrees with the tiled strategies within the tolerances, not bit for
 * bit.
 */
#ifndef SE_ROWBLOCK_CUH
#define SE_ROWBLOCK_CUH

#include <math.h>
#include <stdint.h>

#include "gpu/kernels.h"
#include "gpu/row_scale.cuh"
#include "gpu/tile_ops.cuh"

/* rowblock, single pass: a row of at most SE_RB_VALS * blockDim.x columns
 * is loaded once into registers (all loads issued before any use), and the
 * scale, max, sum and output are computed from there: one read of x and
 * one write of y. Element k of thread t is column t + k * blockDim.x, or
 * for 16-byte accesses the float4 chunk t + q * blockDim.x.
 *
 * `vals` (8, 16 or 32) is a constant in each register kernel (rowblock_block.cu), so the
 * loops unroll into registers; short rows get the smallest that fits, with
 * up to 1024 threads, so each thread's serial chain of exponentials is
 * short: that chain, not bandwidth, is what a short row waits for. */
#define SE_RB_VALS 32

/* Largest cluster a long row is split over (16 needs the non-portable
 * cluster size, allowed on sm_90). */
#define SE_RB_MAX_CLUSTER 16
/* The shortest cluster CTA chunk (floats) for which se_gpu_rowblock_enqueue
 * takes the grid over clusters that would leave most SMs idle: about where
 * a cluster CTA's load and store of its chunk take as long as the grid's
 * exchanges (rowblock.cu). */
#define SE_RB_IDLE_MIN_CHUNK 49152

/* The smallest CTAs a cluster is made of, and so the longest row one
 * block's registers take (SE_RB_VALS a thread) before a cluster does. */
#define SE_RB_CLUSTER_MIN_THREADS 256
#define SE_RB_REG_COLS (SE_RB_VALS * SE_RB_CLUSTER_MIN_THREADS)

/* Columns a clustered CTA may hold in shared memory beyond its registers:
 * the cluster pick gives a CTA as many as its registers hold (at most
 * 1024 x 32: 128 KiB, the shared memory the CTAs an SM runs by registers
 * then take together). */
#define SE_RB_SMEM_VALS 32768

/* Rows of at most this many columns run one thread per row. */
#define SE_RB_THREAD_COLS 8

/* Rows of at most this many columns take rowblock_rows.cu's span kernels
 * (several rows a warp); longer ones a block, a cluster or the grid. */
#define SE_RB_ROWS_MAX_COLS 512

/* 2^(s2 x - m2): exp(s x - m) with s2 = s log2(e), m2 = m log2(e), one
 * MUFU.EX2 (docs/TOLERANCES.md); the exponentials of a long row are bound
 * by the SM's 16 MUFU operations per clock, not by expf's accuracy. */
#define SE_RB_LOG2E 1.4426950408889634f
static __device__ __forceinline__ float se_rb_exp2(float s2, float x, float m2)
{
    return exp2f(fmaf(s2, x, -m2));
}

/* The same as the bare MUFU.EX2 (ex2.approx.ftz: exp2f's approximation
 * without its fix-ups for results below FLT_MIN, which become 0, inside
 * atol: docs/TOLERANCES.md), for the register and one-thread kernels: on
 * the H200, 1024x32768 in 75.2 us against 78.7 us for the staging kernel
 * with expf (docs/PERFORMANCE.md). The grid kernel keeps se_rb_exp2: with
 * this one it spills 40 bytes at its 64 registers. */
static __device__ __forceinline__ float se_rb_exp2_ftz(float s2, float x, float m2)
{
    float r;
    asm("ex2.approx.ftz.f32 %0, %1;" : "=f"(r) : "f"(fmaf(s2, x, -m2)));
    return r;
}


/* Loads one thread's elements of a row part at xr into v[0 .. vals): element
 * k is float4 chunk threadIdx.x + (k / 4) nt of n4 (vec4, 16-byte rows) or
 * column threadIdx.x + k nt of cols; every load is issued before any use,
 * and elements outside the part are 0. vals is a constant where it is
 * inlined, so the loops unroll into registers. LayerNorm's cluster kernel
 * uses it; the softmax's se_rowblock_reg_body keeps its own copy of these
 * loops, as measured: calling this one gave the same instructions in
 * another register order (different machine code for se_k_rowblock_reg
 * and _reg16), which no GPU has timed. */
static __device__ __forceinline__ void se_rb_load_part(float *v, const float *xr, int cols,
                                                       int n4, int nt, int vec4, const int vals)
{
    const float4 *x4 = (const float4 *)xr;
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
}

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

/* A row whose float sum of squares overflowed (|x| above about 1.8e19, or
 * many large values: the float sum is inf although every x is finite) is
 * summed again: by the one-thread and one-block register kernels as floats
 * of the values they hold scaled by 2^-80, by the cluster kernel
 * in float64 from the values they hold, by the grid kernel out of
 * line in float64, reading its part again from device memory. Each is the
 * variant that kept its kernel's float path at the registers it had
 * (docs/PERFORMANCE.md); only such rows pay for it (docs/INPUTS.md). Its partials cross blocks and clusters as
 * floats scaled by 2^-160: a float64 sum of at most 2^31 squares of floats
 * (each below 1.2e77) then stays below FLT_MAX, and a sum that overflowed
 * in float (above 3.4e38) stays far above float's smallest normal. */
#define SE_RB_SS_SHIFT 160

/* The block's sum of its threads' float64 partials d, scaled by 2^-160 and
 * summed as floats; every thread gets it. Ends with a barrier, so it may be
 * called again for the next row. Uniform branch: every thread calls it. */
static __device__ __forceinline__ float se_rb_block_sum_scaled(double d)
{
    __shared__ float red_a[SE_ROW_WARPS], red_b[SE_ROW_WARPS];
    float sc = (float)ldexp(d, -SE_RB_SS_SHIFT), unused = -INFINITY;
    se_row_reduce_f(&sc, &unused, red_a, red_b);
    __syncthreads();
    return sc;
}

/* This thread's float64 sum of squares of elements first, first + stride,
 * ... < end of a row part read again from device memory (as float4 chunks
 * when vec4): out of line, so the float path keeps its registers. */
static __device__ __noinline__ double se_rb_thread_ss_f64(const float *x, int first, int end,
                                                          int stride, int vec4)
{
    double d = 0.0;
    if (vec4) {
        const float4 *x4 = (const float4 *)x;
        for (int i = first; i < end; i += stride) {
            float4 a = x4[i];
            d = fma((double)a.x, (double)a.x, d);
            d = fma((double)a.y, (double)a.y, d);
            d = fma((double)a.z, (double)a.z, d);
            d = fma((double)a.w, (double)a.w, d);
        }
    } else {
        for (int i = first; i < end; i += stride)
            d = fma((double)x[i], (double)x[i], d);
    }
    return d;
}

/* The same from a row's float sum a2 of squares of values scaled by 2^-80
 * (the register kernels' path) and 1 / cols: mean x^2 = a2 / cols * 2^160
 * is at least FLT_MAX / 2^31 where this path is taken, so eps (at most 1)
 * is below its rounding and s = 2^-80 / sqrt(a2 / cols), in float. */
static __device__ __forceinline__ float se_rb_scale_from_scaled_f(float a2, float rcols)
{
    return __fmul_rn(rsqrtf(__fmul_rn(a2, rcols)), 0x1p-80f);
}

/* s = 1 / sqrt(mean x^2 + eps) from a row's scaled sum of squares. */
static __device__ __forceinline__ float se_rb_scale_from_scaled(float sc, int64_t cols,
                                                                double eps)
{
    return (float)(1.0 / sqrt(ldexp((double)sc, SE_RB_SS_SHIFT) / (double)cols + eps));
}

/* rowblock_rows.cu: rows of at most SE_RB_ROWS_MAX_COLS columns. */
se_status se_rb_rows_launch(const float *x, float *y, int64_t rows, int64_t cols, double eps,
                            se_trace_buf trace, cudaStream_t stream, se_err *err);

/* rowblock_block.cu: the register-resident kernel for rows of `cols`
 * columns (see there), NULL if the row is too long for every one. */
typedef void (*se_rb_fn)(const float *, float *, int, double, int, se_trace_buf);
se_rb_fn se_rb_reg_pick(int64_t rows, int64_t cols, int sms, int *threads, const char **name);

/* A clustered launch: csize CTAs of `threads` threads per row, each
 * `chunk` columns, `smem` bytes of dynamic shared memory; `clusters` of
 * them fit on the device at once. */
typedef struct se_rb_cluster_cfg {
    int csize, chunk, clusters, threads;
    size_t smem;
} se_rb_cluster_cfg;

/* rowblock_block.cu: the cluster for a row too long for one CTA's
 * registers (clusters = 0: none fits), and its launch. se_rb_cluster_pick_for
 * picks for another clustered kernel of the same shape (SE_RB_VALS values a
 * thread, up to SE_RB_SMEM_VALS more in dynamic shared memory:
 * LayerNorm's, ln_rowblock.cu), se_rb_cluster_config fills its launch. */
se_status se_rb_cluster_pick_for(const void *kernel, int64_t rows, int64_t cols, int vec4,
                                 se_rb_cluster_cfg *out, se_err *err);
void se_rb_cluster_config(cudaLaunchConfig_t *cfg, cudaLaunchAttribute *attr, int64_t rows,
                          const se_rb_cluster_cfg *c, cudaStream_t stream);
se_status se_rb_cluster_pick(int64_t rows, int64_t cols, int vec4, se_rb_cluster_cfg *out,
                             se_err *err);
se_status se_rb_cluster_launch(const float *x, float *y, int64_t rows, int64_t cols, double eps,
                               int vec4, const se_rb_cluster_cfg *c, se_trace_buf trace,
                               cudaStream_t stream, se_err *err);

/* The cooperative grid: `parts` CTAs per row of `chunk` columns, each with
 * smem4 float4 of shared memory; `tail` when a part is more than registers
 * and shared memory hold (the rest is read again, from L2). */
typedef struct se_rb_grid_cfg {
    int parts, chunk, smem4, tail;
} se_rb_grid_cfg;

/* rowblock_grid.cu: the cooperative grid for rows too long for one
 * CTA's registers (parts = 0: it does not serve), and its launch.
 * se_rb_grid_pick_for picks for another grid kernel of the same shape
 * (1024 threads, SE_RB_VALS values a thread, then dynamic shared memory:
 * LayerNorm's, ln_rowblock.cu). */
se_status se_rb_grid_pick_for(const void *kernel, int64_t rows, int64_t cols, int frame, int sms,
                              se_rb_grid_cfg *out, se_err *err);
se_status se_rb_grid_pick(int64_t rows, int64_t cols, int frame, int sms, se_rb_grid_cfg *out,
                          se_err *err);
se_status se_rb_grid_launch(const float *x, float *y, int64_t rows, int64_t cols, double eps,
                            const se_rb_grid_cfg *g, se_rb_scratch sc, se_trace_buf trace,
                            cudaStream_t stream, se_err *err);

/* rowblock.cu: which path takes a row too long for one CTA's registers,
 * given the cluster and the grid its kernels would have (the softmax's
 * and LayerNorm's dispatchers alike); NONE: neither serves. */
typedef enum se_rb_long { SE_RB_LONG_CLUSTER, SE_RB_LONG_GRID, SE_RB_LONG_NONE } se_rb_long;
se_rb_long se_rb_long_path(int64_t rows, int sms, const se_rb_cluster_cfg *c,
                           const se_rb_grid_cfg *g);

#endif
