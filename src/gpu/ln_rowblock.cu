/*
 * ln_rowblock.cu - LayerNorm forward's rowblock control: not tiled, one
 * kernel, every row in one launch with no partials in device memory,
 * exact two-pass statistics of the row held on chip where it fits.
 *
 *   rows of up to SE_LN_RB_WARP_COLS (1024) columns: a warp a row (8 rows
 *   a block of 256), the row in registers (up to 32 values a lane), read
 *   once;
 *   longer rows: a block of 1024 threads a row, the row in registers (up
 *   to SE_LN_RB_REG values a thread, 8192 columns) read once; past that
 *   the row is read three times (the sum, the squared deviations, the
 *   write; the second and third mostly from L2).
 *
 * Statistics in float64, in a fixed order: mean = sum(x) / C, then
 * var = sum((x - mean)^2) / C (two passes, as the float64 reference), rstd
 * = 1 / sqrt(var + eps); y with ln_ops.cuh's formula (se_ln_y), so the
 * control differs from the tiled strategies only in how the statistics
 * are summed. Traced: one record per row (task = row).
 */
#include "gpu/ln_ops.cuh"

#include "gpu/se_cuda.h"

#define SE_LN_RB_WARP_REG (SE_LN_RB_WARP_COLS / 32)
#define SE_LN_RB_THREADS 1024
#define SE_LN_RB_REG 8
#define SE_LN_RB_BLOCK_WARPS (SE_LN_RB_THREADS / 32)

/* A row's mean and rstd as se_ln_y takes them. */
static __device__ __forceinline__ se_ln_stats se_ln_rb_stats(double mean, double dev,
                                                             int64_t cols, double eps)
{
    se_ln_stats s;
    s.mean = (float)mean;
    s.rstd = (float)(1.0 / sqrt(dev / (double)cols + eps));
    return s;
}

/* A warp a row, the row in registers. */
__global__ void __launch_bounds__(SE_TILE_THREADS) se_k_ln_rowblock_warp(const float *x, float *y, int64_t rows, int cols, double eps,
                          se_trace_buf trace)
{
    const int lane = threadIdx.x & 31;
    const int64_t row = (int64_t)blockIdx.x * SE_TILE_WARPS + (threadIdx.x >> 5);
    if (row >= rows)
        return;
    uint64_t t0 = trace.rec ? se_now_ns() : 0;
    const float *xr = x + row * cols;
    float *yr = y + row * cols;
    float v[SE_LN_RB_WARP_REG];
    double sum = 0.0;
#pragma unroll
    for (int i = 0; i < SE_LN_RB_WARP_REG; i++) {
        int c = lane + 32 * i;
        v[i] = c < cols ? xr[c] : 0.0f;
        sum = __dadd_rn(sum, (double)v[i]);
    }
    sum = se_warp_sum_d(sum);
    const double mean = sum / (double)cols;
    double dev = 0.0;
#pragma unroll
    for (int i = 0; i < SE_LN_RB_WARP_REG; i++) {
        int c = lane + 32 * i;
        double d = (double)v[i] - mean;
        if (c < cols)
            dev = __fma_rn(d, d, dev);
    }
    dev = se_warp_sum_d(dev);
    const se_ln_stats st = se_ln_rb_stats(mean, dev, cols, eps);
#pragma unroll
    for (int i = 0; i < SE_LN_RB_WARP_REG; i++) {
        int c = lane + 32 * i;
        if (c < cols)
            yr[c] = se_ln_y(v[i], st, c);
    }
    if (trace.rec && lane == 0)
        se_trace_record(&trace, row, t0);
}

/* The block's sum of each thread's v, in float64: warps, then warp 0 over
 * the warps' sums in order; every thread gets it. */
static __device__ __forceinline__ double se_ln_rb_block_sum(double v, double *red)
{
    const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
    v = se_warp_sum_d(v);
    if (lane == 0)
        red[warp] = v;
    __syncthreads();
    if (warp == 0) {
        double w = lane < SE_LN_RB_BLOCK_WARPS ? red[lane] : 0.0;
        w = se_warp_sum_d(w);
        if (lane == 0)
            red[SE_LN_RB_BLOCK_WARPS] = w;
    }
    __syncthreads();
    double r = red[SE_LN_RB_BLOCK_WARPS];
    __syncthreads(); /* red may be reused at once */
    return r;
}

/* A block a row: in registers up to SE_LN_RB_REG values a thread, else
 * three passes over the row in device memory. */
__global__ void __launch_bounds__(SE_LN_RB_THREADS) se_k_ln_rowblock_block(const float *x, float *y, int64_t cols, double eps, se_trace_buf trace)
{
    __shared__ double red[SE_LN_RB_BLOCK_WARPS + 1];
    const int64_t row = blockIdx.x;
    uint64_t t0 = trace.rec ? se_now_ns() : 0;
    const float *xr = x + row * cols;
    float *yr = y + row * cols;
    const int in_regs = cols <= (int64_t)SE_LN_RB_THREADS * SE_LN_RB_REG;
    double sum = 0.0, dev = 0.0, mean;
    if (in_regs) {
        float v[SE_LN_RB_REG];
#pragma unroll
        for (int i = 0; i < SE_LN_RB_REG; i++) {
            int64_t c = threadIdx.x + (int64_t)SE_LN_RB_THREADS * i;
            v[i] = c < cols ? xr[c] : 0.0f;
            sum = __dadd_rn(sum, (double)v[i]);
        }
        mean = se_ln_rb_block_sum(sum, red) / (double)cols;
#pragma unroll
        for (int i = 0; i < SE_LN_RB_REG; i++) {
            int64_t c = threadIdx.x + (int64_t)SE_LN_RB_THREADS * i;
            double d = (double)v[i] - mean;
            if (c < cols)
                dev = __fma_rn(d, d, dev);
        }
        const se_ln_stats st = se_ln_rb_stats(mean, se_ln_rb_block_sum(dev, red), cols, eps);
#pragma unroll
        for (int i = 0; i < SE_LN_RB_REG; i++) {
            int64_t c = threadIdx.x + (int64_t)SE_LN_RB_THREADS * i;
            if (c < cols)
                yr[c] = se_ln_y(v[i], st, c);
        }
    } else {
        for (int64_t c = threadIdx.x; c < cols; c += SE_LN_RB_THREADS)
            sum = __dadd_rn(sum, (double)xr[c]);
        mean = se_ln_rb_block_sum(sum, red) / (double)cols;
        for (int64_t c = threadIdx.x; c < cols; c += SE_LN_RB_THREADS) {
            double d = (double)xr[c] - mean;
            dev = __fma_rn(d, d, dev);
        }
        const se_ln_stats st = se_ln_rb_stats(mean, se_ln_rb_block_sum(dev, red), cols, eps);
        for (int64_t c = threadIdx.x; c < cols; c += SE_LN_RB_THREADS)
            yr[c] = se_ln_y(xr[c], st, c);
    }
    if (trace.rec) {
        __syncthreads();
        if (threadIdx.x == 0)
            se_trace_record(&trace, row, t0);
    }
}

extern "C" se_status se_gpu_ln_rowblock_enqueue(const float *x, float *y, int64_t rows,
                                                int64_t cols, double eps, se_trace_buf trace,
                                                cudaStream_t stream, se_err *err)
{
    /* rows <= SE_MAX_TASKS < 2^31 - 1, the grid's x limit (se_case_check) */
    if (cols <= SE_LN_RB_WARP_COLS) {
        unsigned blocks = (unsigned)((rows + SE_TILE_WARPS - 1) / SE_TILE_WARPS);
        se_k_ln_rowblock_warp<<<blocks, SE_TILE_THREADS, 0, stream>>>(x, y, rows, (int)cols, eps,
                                                                      trace);
        SE_CUDA_LAUNCHED("se_k_ln_rowblock_warp");
    } else {
        se_k_ln_rowblock_block<<<(unsigned)rows, SE_LN_RB_THREADS, 0, stream>>>(x, y, cols, eps,
                                                                                trace);
        SE_CUDA_LAUNCHED("se_k_ln_rowblock_block");
    }
    return SE_OK;
}
