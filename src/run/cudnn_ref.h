/*
 * cudnn_ref.h - cuDNN's softmax (cudnnSoftmaxForward, accurate mode,
 * instance mode over a rows x cols x 1 x 1 NCHW tensor) on the pre-scaled
 * input: the library reference, and later a peer.
 */
#ifndef SE_CUDNN_REF_H
#define SE_CUDNN_REF_H

#include <stdint.h>

#include <cuda_runtime_api.h>

#include "model/se_common.h"

typedef struct se_cudnn se_cudnn;

/* Creates a cuDNN handle bound to stream. */
se_status se_cudnn_create(se_cudnn **out, cudaStream_t stream, se_err *err);

/* y = softmax(xs) per row, enqueued on the handle's stream. */
se_status se_cudnn_softmax(se_cudnn *c, const float *xs, float *y, int64_t rows, int64_t cols,
                           se_err *err);

/* cuDNN's version as cudnnGetVersion reports it (e.g. 91400). */
long se_cudnn_version(void);

/* The cuDNN version this program was compiled against (CUDNN_VERSION). */
long se_cudnn_compiled_version(void);

void se_cudnn_destroy(se_cudnn *c);

#endif
