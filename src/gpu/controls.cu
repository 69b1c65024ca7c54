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

#include "kernels.h"
#include "tile_ops.cuh"

#include "../outliers.h"

#include "../se_cuda.h"

#define SE_ROW_THREADS 1024
#define SE_ROW_WARPS (SE_ROW_THREADS / 32)

/* Block-wide double sum and float max over SE_ROW_THREADS threads; every
 * thread gets the result. */
static __device__ void se_row_reduce(double *sum, float *max, double *red_d, float *red_f)
{
    int warp = threadIdx.x >> 5, lane = threadIdx.x & 31;
    double a = *sum;
    float b = *max;
    for (int o = 16; o > 0; o >>= 1) {
        a += __shfl_xor_sync(0xffffffffu, a, o);
        b = fmaxf(b, __shfl_xor_sync(0xffffffffu, b, o));
    }
    if (lane == 0) {
        red_d[warp] = a;
        red_f[warp] = b;
    }
    __syncthreads();
    a = red_d[lane];
    b = red_f[lane];
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

extern "C" se_status se_gpu_rowblock_enqueue(const float *x, float *y, int64_t rows,
                                             int64_t cols, double eps, se_trace_buf trace,
                                             cudaStream_t stream, se_err *err)
{
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
