/*
 * instance.h - a strategy made ready to run on a case: launching an
 * instance enqueues one complete computation of y on a stream (five
 * launches, one graph launch, one cooperative launch, ...), so the timing
 * layer can put events around it and the validation layer can check what
 * it wrote. How each strategy enqueues is in its line of the strategy table
 * (strategies.h); this module adds graph capture and replay.
 */
#ifndef SE_INSTANCE_H
#define SE_INSTANCE_H

#include <stddef.h>

#include <cuda_runtime_api.h>

#include "gpu/kernels.h"
#include "model/se_common.h"
#include "model/strategy.h"
#include "run/case.h"
#include "run/cudnn_ref.h"
#include "run/strategies.h"

typedef struct se_instance {
    se_strategy strategy;
    se_invocation inv;       /* the case, problem, cooperative grid (0 for others), cuDNN */
    se_enqueue_fn enqueue;   /* the strategy's, or its control's (the megakernel's init) */
    cudaGraph_t graph;       /* for graph launch modes */
    cudaGraphExec_t exec;
    size_t graph_nodes;
} se_instance;

/* Readies strategy s on case c: for graph modes captures the launches on
 * stream and instantiates the graph. blocks is the cooperative grid size
 * (ignored by the others); cudnn is used by the strategies that call cuDNN
 * only. */
se_status se_instance_prepare(se_instance *in, se_strategy s, se_case *c, int blocks,
                              se_cudnn *cudnn, cudaStream_t stream, se_err *err);

/* The same, traced: every task appends a record to trace (a strategy whose
 * trace kind is SE_TRACE_NONE cannot be traced and is refused). */
se_status se_instance_prepare_traced(se_instance *in, se_strategy s, se_case *c, int blocks,
                                     se_trace_buf trace, cudaStream_t stream, se_err *err);

/* Strategy s's initialization alone (its init_control: the megakernel's
 * reset + grid barrier, on the megakernel's grid for this case), launched
 * on a stream. */
se_status se_instance_prepare_init(se_instance *in, se_strategy s, se_case *c, int blocks,
                                   se_err *err);

/* Enqueues one invocation on stream. */
se_status se_instance_enqueue(se_instance *in, cudaStream_t stream, se_err *err);

/* Destroys the graph and graph exec, if any. */
void se_instance_destroy(se_instance *in);

#endif
