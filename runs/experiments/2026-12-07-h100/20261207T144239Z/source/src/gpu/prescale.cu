/*
 * prescale.cu - cuDNN's input: xs = s_r * x, one block per row, so that
 * cuDNN's plain softmax of xs is the reference RMS-scaled softmax of x.
 */
#include <stdint.h>

#include "gpu/kernels.h"
#include "gpu/row_scale.cuh"

#include "gpu/se_cuda.h"

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

extern "C" se_status se_gpu_prescale_enqueue(const float *x, float *xs, int64_t rows,
                                             int64_t cols, double eps, cudaStream_t stream,
                                             se_err *err)
{
    se_k_prescale<<<(unsigned)rows, SE_ROW_THREADS, 0, stream>>>(x, xs, cols, eps);
    SE_CUDA_LAUNCHED("se_k_prescale");
    return SE_OK;
}
