/*
 * instance.h - one case's device buffers, and a strategy made ready to run
 * on them: launching an instance enqueues one complete computation of y on
 * a stream (five launches, one graph launch, one cooperative launch, ...),
 * so the timing layer can put events around it and the validation layer
 * can check what it wrote.
 */
#ifndef SE_INSTANCE_H
#define SE_INSTANCE_H

#include <stddef.h>

#include <cuda_runtime_api.h>

#include "gpu/kernels.h"
#include "model/se_common.h"
#include "model/strategy.h"
#include "model/workload.h"
#include "run/cudnn_ref.h"

typedef struct se_case {
    se_shape shape;
    int64_t tile;
    double eps;
    float *x;            /* input, rows * cols + 1 floats */
    float *y;            /* output of the strategy under test */
    float *xs;           /* pre-scaled input, cuDNN's operand */
    void *workspace;     /* partials, row statistics, queue, counters */
    se_gpu_problem prob; /* pointers into the above */
    se_rb_scratch rb;    /* rowblock's grid scratch, also in the workspace */
} se_case;

/* Allocates a case's buffers on the current device. */
se_status se_case_alloc(se_case *c, const se_shape *shape, int64_t tile, double eps,
                        se_err *err);
void se_case_free(se_case *c);

typedef struct se_instance {
    se_strategy strategy;
    se_case *c;
    se_gpu_problem prob;     /* the case's problem, with this instance's trace buffer */
    int blocks;              /* cooperative grid, 0 for others */
    int init_only;           /* megakernel: its queue initialization alone */
    se_cudnn *cudnn;         /* for SE_S_CUDNN */
    cudaGraph_t graph;       /* for graph launch modes */
    cudaGraphExec_t exec;
    size_t graph_nodes;
} se_instance;

/* Readies strategy s on case c: for graph modes captures the launches on
 * stream and instantiates the graph. blocks is the cooperative grid size
 * (ignored by the others); cudnn is used by SE_S_CUDNN only. */
se_status se_instance_prepare(se_instance *in, se_strategy s, se_case *c, int blocks,
                              se_cudnn *cudnn, cudaStream_t stream, se_err *err);

/* The same, traced: every task appends a record to trace (cuDNN cannot be
 * traced and is refused). */
se_status se_instance_prepare_traced(se_instance *in, se_strategy s, se_case *c, int blocks,
                                     se_trace_buf trace, cudaStream_t stream, se_err *err);

/* The megakernel's queue initialization alone (reset + grid barrier, the
 * same grid as the megakernel on this case), launched on a stream. */
se_status se_instance_prepare_mk_init(se_instance *in, se_case *c, int blocks, se_err *err);

/* Enqueues one invocation on stream. */
se_status se_instance_enqueue(se_instance *in, cudaStream_t stream, se_err *err);

/* Destroys the graph and graph exec, if any. */
void se_instance_destroy(se_instance *in);

#endif
