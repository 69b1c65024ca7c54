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
 * for 16-byte accesses the float4 chunk t + q * blockDim.x. */
#define SE_RB_VALS 32

__global__ void __launch_bounds__(SE_ROW_THREADS) se_k_rowblock_reg(const float *x, float *y,
                                                                    int cols, double eps,
                                                                    int vec4, se_trace_buf trace)
{
    uint64_t t0 = trace.rec ? se_now_ns() : 0;
    __shared__ double red_d[SE_ROW_WARPS];
    __shared__ float red_f[SE_ROW_WARPS];
    const float *xr = x + (int64_t)blockIdx.x * cols;
    float *yr = y + (int64_t)blockIdx.x * cols;
    const int nt = blockDim.x;
    float v[SE_RB_VALS];
    if (vec4) {
        const float4 *x4 = (const float4 *)xr;
        int n4 = cols / 4;
#pragma unroll
        for (int q = 0; q < SE_RB_VALS / 4; q++) {
            int i = threadIdx.x + q * nt;
            float4 a = i < n4 ? x4[i] : make_float4(0.0f, 0.0f, 0.0f, 0.0f);
            v[4 * q] = a.x;
            v[4 * q + 1] = a.y;
            v[4 * q + 2] = a.z;
            v[4 * q + 3] = a.w;
        }
    } else {
#pragma unroll
        for (int k = 0; k < SE_RB_VALS; k++) {
            int i = threadIdx.x + k * nt;
            v[k] = i < cols ? xr[i] : 0.0f;
        }
    }
    /* Element k of this thread is valid when its column is inside the row. */
#define SE_RB_VALID(k) (vec4 ? (threadIdx.x + ((k) / 4) * nt) * 4 + ((k) % 4) < cols \
                             : threadIdx.x + (k) * nt < cols)
    float ssf = 0.0f, mx = -INFINITY;
#pragma unroll
    for (int k = 0; k < SE_RB_VALS; k++) {
        ssf = fmaf(v[k], v[k], ssf); /* invalid elements are 0 */
        if (SE_RB_VALID(k))
            mx = fmaxf(mx, v[k]);
    }
    double ss = ssf;
    se_row_reduce(&ss, &mx, red_d, red_f);
    float s = (float)(1.0 / sqrt(ss / (double)cols + eps));
    float m = s * mx;
    float lf = 0.0f, unused = -INFINITY;
#pragma unroll
    for (int k = 0; k < SE_RB_VALS; k++)
        if (SE_RB_VALID(k))
            lf += expf(s * v[k] - m);
    double l = lf;
    se_row_reduce(&l, &unused, red_d, red_f);
    float inv_l = (float)(1.0 / l);
    if (vec4) {
        float4 *y4 = (float4 *)yr;
        int n4 = cols / 4;
#pragma unroll
        for (int q = 0; q < SE_RB_VALS / 4; q++) {
            int i = threadIdx.x + q * nt;
            if (i < n4)
                y4[i] = make_float4(expf(s * v[4 * q] - m) * inv_l, expf(s * v[4 * q + 1] - m) * inv_l,
                                    expf(s * v[4 * q + 2] - m) * inv_l,
                                    expf(s * v[4 * q + 3] - m) * inv_l);
        }
    } else {
#pragma unroll
        for (int k = 0; k < SE_RB_VALS; k++) {
            int i = threadIdx.x + k * nt;
            if (i < cols)
                yr[i] = expf(s * v[k] - m) * inv_l;
        }
    }
#undef SE_RB_VALID
    if (trace.rec) {
        __syncthreads();
        if (threadIdx.x == 0)
            se_trace_record(&trace, blockIdx.x, t0);
    }
}

/* Threads for a register-resident row: enough for SE_RB_VALS columns each,
 * at least 128, a multiple of 32; 0 if the row is too long. */
static int rowblock_reg_threads(int64_t cols)
{
    if (cols > (int64_t)SE_RB_VALS * SE_ROW_THREADS)
        return 0;
    int64_t t = (cols + SE_RB_VALS - 1) / SE_RB_VALS;
    t = (t + 31) / 32 * 32;
    return t < 128 ? 128 : (int)t;
}

extern "C" se_status se_gpu_rowblock_enqueue(const float *x, float *y, int64_t rows,
                                             int64_t cols, double eps, se_trace_buf trace,
                                             cudaStream_t stream, se_err *err)
{
    int threads = rowblock_reg_threads(cols);
    if (threads) {
        se_k_rowblock_reg<<<(unsigned)rows, threads, 0, stream>>>(x, y, (int)cols, eps,
                                                                  cols % 4 == 0, trace);
        SE_CUDA_LAUNCHED("se_k_rowblock_reg");
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
