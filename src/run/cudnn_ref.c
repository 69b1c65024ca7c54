/*
 * cudnn_ref.c - the cuDNN softmax reference (see cudnn_ref.h).
 */
#include "run/cudnn_ref.h"

#include <stdlib.h>

#include <cudnn.h>

struct se_cudnn {
    cudnnHandle_t handle;
    cudnnTensorDescriptor_t desc;
};

#define SE_CUDNN_TRY(call)                                                                  \
    do {                                                                                    \
        cudnnStatus_t s_ = (call);                                                          \
        if (s_ != CUDNN_STATUS_SUCCESS)                                                     \
            return se_fail(err, SE_ERR_CUDA, "%s:%d: %s failed: %s", __FILE__, __LINE__, #call, \
                           cudnnGetErrorString(s_));                                        \
    } while (0)

se_status se_cudnn_create(se_cudnn **out, cudaStream_t stream, se_err *err)
{
    *out = NULL;
    se_cudnn *c = calloc(1, sizeof *c);
    if (!c)
        return se_fail(err, SE_ERR_NOMEM, "cuDNN handle: out of memory");
    cudnnStatus_t s = cudnnCreate(&c->handle);
    if (s == CUDNN_STATUS_SUCCESS)
        s = cudnnSetStream(c->handle, stream);
    if (s == CUDNN_STATUS_SUCCESS)
        s = cudnnCreateTensorDescriptor(&c->desc);
    if (s != CUDNN_STATUS_SUCCESS) {
        se_cudnn_destroy(c);
        return se_fail(err, SE_ERR_CUDA, "cuDNN set-up failed: %s", cudnnGetErrorString(s));
    }
    *out = c;
    return SE_OK;
}

se_status se_cudnn_softmax(se_cudnn *c, const float *xs, float *y, int64_t rows, int64_t cols,
                           se_err *err)
{
    const float one = 1.0f, zero = 0.0f;
    SE_CUDNN_TRY(cudnnSetTensor4dDescriptor(c->desc, CUDNN_TENSOR_NCHW, CUDNN_DATA_FLOAT,
                                            (int)rows, (int)cols, 1, 1));
    SE_CUDNN_TRY(cudnnSoftmaxForward(c->handle, CUDNN_SOFTMAX_ACCURATE, CUDNN_SOFTMAX_MODE_INSTANCE,
                                     &one, c->desc, xs, &zero, c->desc, y));
    return SE_OK;
}

long se_cudnn_version(void)
{
    return (long)cudnnGetVersion();
}

long se_cudnn_compiled_version(void)
{
    return (long)CUDNN_VERSION;
}

void se_cudnn_destroy(se_cudnn *c)
{
    if (!c)
        return;
    if (c->desc)
        cudnnDestroyTensorDescriptor(c->desc);
    if (c->handle)
        cudnnDestroy(c->handle);
    free(c);
}
