/*
 * inputs.cu - the input generator's GPU part: the outliers planted in each
 * row of the cuRAND input (run/inputs.c draws the rest), where and as large
 * as model/outliers.h says: one definition for this kernel and for the CPU
 * tests that prove a wrong kernel cannot pass on such inputs.
 */
#include <stdint.h>

#include "gpu/kernels.h"

#include "model/outliers.h"

#include "gpu/se_cuda.h"

__global__ void se_k_outliers(float *x, int64_t rows, int64_t cols, uint64_t seed, float scale)
{
    int64_t row = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (row >= rows)
        return;
    for (int k = 0; k < SE_OUTLIERS; k++)
        x[row * cols + se_outlier_col(seed, row, k, cols)] = scale * se_outlier_factor(row, k);
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
