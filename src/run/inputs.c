/*
 * inputs.c - input generation with cuRAND's host API (see inputs.h).
 */
#include "run/inputs.h"

#include <curand.h>

#include "gpu/kernels.h"

#define SE_CURAND_TRY(call)                                                              \
    do {                                                                                 \
        curandStatus_t s_ = (call);                                                      \
        if (s_ != CURAND_STATUS_SUCCESS) {                                               \
            st = se_fail(err, SE_ERR_CUDA, "%s:%d: %s failed: cuRAND status %d", __FILE__, \
                         __LINE__, #call, (int)s_);                                      \
            goto out;                                                                    \
        }                                                                                \
    } while (0)

se_status se_inputs_generate(float *x, int64_t rows, int64_t cols, uint64_t seed, double scale,
                             cudaStream_t stream, se_err *err)
{
    se_status st = SE_OK;
    curandGenerator_t gen = NULL;
    /* curandGenerateNormal needs an even count: x has room for one more. */
    size_t n = (size_t)(rows * cols);
    size_t n_even = n + (n & 1);
    SE_CURAND_TRY(curandCreateGenerator(&gen, CURAND_RNG_PSEUDO_PHILOX4_32_10));
    SE_CURAND_TRY(curandSetStream(gen, stream));
    SE_CURAND_TRY(curandSetPseudoRandomGeneratorSeed(gen, seed));
    SE_CURAND_TRY(curandGenerateNormal(gen, x, n_even, 0.0f, (float)scale));
    st = se_gpu_outliers_enqueue(x, rows, cols, seed, scale, stream, err);
out:
    if (gen)
        curandDestroyGenerator(gen);
    return st;
}
