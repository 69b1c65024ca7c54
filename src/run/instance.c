/*
 * instance.c - strategy instances (see instance.h).
 */
#include "run/instance.h"

#include <string.h>

#include "gpu/se_cuda.h"

static se_status prepare(se_instance *in, se_strategy s, se_case *c, int blocks,
                         se_cudnn *cudnn, se_trace_buf trace, cudaStream_t stream, se_err *err)
{
    memset(in, 0, sizeof *in);
    const se_strategy_info *info = se_strategy_get(s);
    const se_strategy_gpu *gpu = se_strategy_gpu_get(s);
    if (!info || !gpu)
        return se_fail(err, SE_ERR_USAGE, "unknown strategy %d", (int)s);
    in->strategy = s;
    in->inv.c = c;
    in->inv.prob = c->prob;
    in->inv.prob.trace = trace;
    in->inv.blocks = info->cooperative ? blocks : 0;
    in->inv.cudnn = cudnn;
    in->enqueue = gpu->enqueue;
    if (strcmp(info->launch, "graph") != 0)
        return SE_OK;
    SE_CUDA_TRY(cudaStreamBeginCapture(stream, cudaStreamCaptureModeThreadLocal));
    se_status st = in->enqueue(&in->inv, stream, err);
    cudaError_t e = cudaStreamEndCapture(stream, &in->graph);
    if (st != SE_OK) {
        se_instance_destroy(in);
        return st;
    }
    if (e != cudaSuccess) {
        se_instance_destroy(in);
        return se_fail(err, SE_ERR_CUDA, "%s: cudaStreamEndCapture failed: %s", info->name,
                       cudaGetErrorString(e));
    }
    e = cudaGraphInstantiate(&in->exec, in->graph, 0);
    if (e == cudaSuccess)
        e = cudaGraphGetNodes(in->graph, NULL, &in->graph_nodes);
    if (e != cudaSuccess) {
        se_instance_destroy(in);
        return se_fail(err, SE_ERR_CUDA, "%s: instantiating the captured graph failed: %s",
                       info->name, cudaGetErrorString(e));
    }
    return SE_OK;
}

se_status se_instance_prepare(se_instance *in, se_strategy s, se_case *c, int blocks,
                              se_cudnn *cudnn, cudaStream_t stream, se_err *err)
{
    se_trace_buf none = {NULL, NULL, 0};
    return prepare(in, s, c, blocks, cudnn, none, stream, err);
}

se_status se_instance_prepare_traced(se_instance *in, se_strategy s, se_case *c, int blocks,
                                     se_trace_buf trace, cudaStream_t stream, se_err *err)
{
    const se_strategy_info *info = se_strategy_get(s);
    if (info && info->trace == SE_TRACE_NONE)
        return se_fail(err, SE_ERR_USAGE, "%s cannot be traced",
                       info->name);
    return prepare(in, s, c, blocks, NULL, trace, stream, err);
}

/* A strategy's initialization: a control of that strategy, on its grid,
 * launched on a stream (never captured), not a strategy of its own. */
se_status se_instance_prepare_init(se_instance *in, se_strategy s, se_case *c, int blocks,
                                   se_err *err)
{
    memset(in, 0, sizeof *in);
    const se_strategy_info *info = se_strategy_get(s);
    const se_strategy_gpu *gpu = se_strategy_gpu_get(s);
    if (!info || !gpu || !info->init_control || !gpu->init_enqueue)
        return se_fail(err, SE_ERR_USAGE, "strategy %d has no init_control", (int)s);
    in->strategy = s;
    in->inv.c = c;
    in->inv.prob = c->prob;
    in->inv.blocks = info->cooperative ? blocks : 0;
    in->enqueue = gpu->init_enqueue;
    return SE_OK;
}

se_status se_instance_enqueue(se_instance *in, cudaStream_t stream, se_err *err)
{
    if (in->exec) {
        SE_CUDA_TRY(cudaGraphLaunch(in->exec, stream));
        return SE_OK;
    }
    return in->enqueue(&in->inv, stream, err);
}

void se_instance_destroy(se_instance *in)
{
    if (in->exec)
        cudaGraphExecDestroy(in->exec);
    if (in->graph)
        cudaGraphDestroy(in->graph);
    in->exec = NULL;
    in->graph = NULL;
}
