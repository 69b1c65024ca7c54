/*
 * se_cuda.h - checking CUDA runtime calls: SE_CUDA_TRY returns SE_ERR_CUDA
 * from the enclosing function (which has an `se_err *err`) with the file,
 * line, the failing call and CUDA's own message.
 */
#ifndef SE_CUDA_H
#define SE_CUDA_H

#include <cuda_runtime_api.h>

#include "model/se_common.h"

#define SE_CUDA_TRY(call)                                                                   \
    do {                                                                                    \
        cudaError_t se_e_ = (call);                                                         \
        if (se_e_ != cudaSuccess)                                                           \
            return se_fail(err, SE_ERR_CUDA, "%s:%d: %s failed: %s (%s)", __FILE__, __LINE__, \
                           #call, cudaGetErrorString(se_e_), cudaGetErrorName(se_e_));      \
    } while (0)

/* After a kernel launch: returns the launch's own error, naming the kernel. */
#define SE_CUDA_LAUNCHED(kernel)                                                        \
    do {                                                                                \
        cudaError_t se_e_ = cudaGetLastError();                                         \
        if (se_e_ != cudaSuccess)                                                       \
            return se_fail(err, SE_ERR_CUDA, "launch of %s failed: %s (%s)", kernel,    \
                           cudaGetErrorString(se_e_), cudaGetErrorName(se_e_));         \
    } while (0)

#endif
