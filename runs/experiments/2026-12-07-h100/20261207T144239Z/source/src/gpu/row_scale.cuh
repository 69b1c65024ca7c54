/*
 * row_scale.cuh - private to the GPU module: a row's scale s_r and maximum
 * computed by one 1024-thread block with float64 sums. rowblock's
 * three-pass kernel (rowblock.cu) and cuDNN's pre-scale (prescale.cu) both
 * start from it.
 */
#ifndef SE_ROW_SCALE_CUH
#define SE_ROW_SCALE_CUH

#include <math.h>
#include <stdint.h>

#include "gpu/kernels.h"

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

#endif
