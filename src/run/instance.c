/*
 * instance.c - case buffers and strategy instances (see instance.h).
 */
#include "run/instance.h"

#include <inttypes.h>
#include <string.h>

#include "gpu/se_cuda.h"
#include "model/taskgraph.h"

/* Rounds a byte offset up to 256 so every sub-array is aligned for 16-byte
 * accesses. */
static size_t align256(size_t n)
{
    return (n + 255) & ~(size_t)255;
}

se_status se_case_alloc(se_case *c, const se_shape *shape, int64_t tile, double eps,
                        se_err *err)
{
    memset(c, 0, sizeof *c);
    c->shape = *shape;
    c->tile = tile;
    c->eps = eps;
    se_taskgeom g = se_taskgeom_make(shape->rows, shape->cols, tile);
    size_t elems = (size_t)(shape->rows * shape->cols);
    size_t arr = (elems + 1) * sizeof(float);
    size_t parts = align256((size_t)g.tile_tasks * sizeof(float));
    size_t rowst = align256((size_t)shape->rows * sizeof(float));
    size_t queue = align256((size_t)g.total * sizeof(int32_t));
    size_t counters = align256((size_t)(2 * shape->rows) * sizeof(int32_t));
    size_t rb_slot = align256(3 * SE_RB_GRID_CAP * sizeof(unsigned long long));
    size_t rb_start = align256(SE_RB_GRID_CAP * sizeof(uint64_t));
    size_t rb_row = align256(SE_RB_GRID_CAP * sizeof(int32_t));
    size_t ws_bytes = 3 * parts + 3 * rowst + queue + counters + rb_slot + rb_start + 2 * rb_row +
                      256;
    cudaError_t e = cudaSuccess;
    if ((e = cudaMalloc((void **)&c->x, arr)) != cudaSuccess ||
        (e = cudaMalloc((void **)&c->y, arr)) != cudaSuccess ||
        (e = cudaMalloc((void **)&c->xs, arr)) != cudaSuccess ||
        (e = cudaMalloc(&c->workspace, ws_bytes)) != cudaSuccess ||
        (e = cudaMemset(c->workspace, 0, ws_bytes)) != cudaSuccess) {
        se_case_free(c);
        cudaGetLastError();
        return se_fail(err, e == cudaErrorMemoryAllocation ? SE_ERR_LIMIT : SE_ERR_CUDA,
                       "shape %s: allocating %zu bytes of device memory failed: %s",
                       shape->spec, 3 * arr + ws_bytes, cudaGetErrorString(e));
    }
    char *w = c->workspace;
    se_gpu_problem *p = &c->prob;
    p->x = c->x;
    p->y = c->y;
    p->rows = shape->rows;
    p->cols = shape->cols;
    p->tile = tile;
    p->tiles_per_row = g.tiles_per_row;
    p->tile_tasks = g.tile_tasks;
    p->total_tasks = g.total;
    p->eps = eps;
    p->vec4 = shape->cols % 4 == 0 && tile % 4 == 0;
    p->part_ss = (float *)w, w += parts;
    p->part_max = (float *)w, w += parts;
    p->part_l = (float *)w, w += parts;
    p->row_s = (float *)w, w += rowst;
    p->row_m = (float *)w, w += rowst;
    p->row_inv_l = (float *)w, w += rowst;
    p->queue = (int32_t *)w, w += queue;
    p->counters = (int32_t *)w, w += counters;
    p->head_tail = (int32_t *)w, w += 256;
    c->rb.slot = (unsigned long long *)w, w += rb_slot;
    c->rb.start = (uint64_t *)w, w += rb_start;
    c->rb.count = (int32_t *)w, w += rb_row;
    c->rb.gen = (int32_t *)w;
    return SE_OK;
}

void se_case_free(se_case *c)
{
    cudaFree(c->x);
    cudaFree(c->y);
    cudaFree(c->xs);
    cudaFree(c->workspace);
    c->x = c->y = c->xs = NULL;
    c->workspace = NULL;
}

/* The launches of one invocation, as they are enqueued on a stream (the
 * graph modes capture exactly these). */
static se_status enqueue_direct(se_instance *in, cudaStream_t stream, se_err *err)
{
    se_case *c = in->c;
    switch (in->strategy) {
    case SE_S_STREAM:
    case SE_S_GRAPH:
        return se_gpu_phases_enqueue(&in->prob, stream, err);
    case SE_S_FUSION:
    case SE_S_FUSION_GRAPH:
        return se_gpu_fusion_enqueue(&in->prob, in->blocks, stream, err);
    case SE_S_MEGAKERNEL:
    case SE_S_MEGAKERNEL_GRAPH:
        if (in->init_only)
            return se_gpu_megakernel_init_enqueue(&in->prob, in->blocks, stream, err);
        return se_gpu_megakernel_enqueue(&in->prob, in->blocks, stream, err);
    case SE_S_ROWBLOCK:
        return se_gpu_rowblock_enqueue(c->x, c->y, c->shape.rows, c->shape.cols, c->eps,
                                       c->rb, in->prob.trace, stream, err);
    case SE_S_CUDNN:
        return se_cudnn_softmax(in->cudnn, c->xs, c->y, c->shape.rows, c->shape.cols, err);
    default:
        return se_fail(err, SE_ERR_USAGE, "unknown strategy %d", (int)in->strategy);
    }
}

static se_status prepare(se_instance *in, se_strategy s, se_case *c, int blocks,
                         se_cudnn *cudnn, se_trace_buf trace, cudaStream_t stream, se_err *err)
{
    memset(in, 0, sizeof *in);
    in->strategy = s;
    in->c = c;
    in->prob = c->prob;
    in->prob.trace = trace;
    in->blocks = se_strategy_get(s)->cooperative ? blocks : 0;
    in->cudnn = cudnn;
    if (strcmp(se_strategy_get(s)->launch, "graph") != 0)
        return SE_OK;
    SE_CUDA_TRY(cudaStreamBeginCapture(stream, cudaStreamCaptureModeThreadLocal));
    se_status st = enqueue_direct(in, stream, err);
    cudaError_t e = cudaStreamEndCapture(stream, &in->graph);
    if (st != SE_OK) {
        se_instance_destroy(in);
        return st;
    }
    if (e != cudaSuccess) {
        se_instance_destroy(in);
        return se_fail(err, SE_ERR_CUDA, "%s: cudaStreamEndCapture failed: %s",
                       se_strategy_get(s)->name, cudaGetErrorString(e));
    }
    e = cudaGraphInstantiate(&in->exec, in->graph, 0);
    if (e == cudaSuccess)
        e = cudaGraphGetNodes(in->graph, NULL, &in->graph_nodes);
    if (e != cudaSuccess) {
        se_instance_destroy(in);
        return se_fail(err, SE_ERR_CUDA, "%s: instantiating the captured graph failed: %s",
                       se_strategy_get(s)->name, cudaGetErrorString(e));
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
    if (s == SE_S_CUDNN)
        return se_fail(err, SE_ERR_USAGE, "cuDNN's kernels cannot be traced");
    return prepare(in, s, c, blocks, NULL, trace, stream, err);
}

se_status se_instance_prepare_mk_init(se_instance *in, se_case *c, int blocks, se_err *err)
{
    se_trace_buf none = {NULL, NULL, 0};
    se_status st = prepare(in, SE_S_MEGAKERNEL, c, blocks, NULL, none, NULL, err);
    in->init_only = 1;
    return st;
}

se_status se_instance_enqueue(se_instance *in, cudaStream_t stream, se_err *err)
{
    if (in->exec) {
        SE_CUDA_TRY(cudaGraphLaunch(in->exec, stream));
        return SE_OK;
    }
    return enqueue_direct(in, stream, err);
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
