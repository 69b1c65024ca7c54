/*
 * case.c - one case's device buffers (see case.h).
 */
#include "run/case.h"

#include <stdint.h>
#include <string.h>

#include "model/operation.h"
#include "model/taskgraph.h"

_Static_assert(SE_GPU_OP_RMS_SOFTMAX == SE_OP_RMS_SOFTMAX && SE_GPU_OP_LAYERNORM == SE_OP_LAYERNORM,
               "gpu/kernels.h's SE_GPU_OP_* are model/operation.h's se_op_id");

/* Rounds a byte offset up to 256 so every sub-array is aligned for 16-byte
 * accesses. */
static size_t align256(size_t n)
{
    return (n + 255) & ~(size_t)255;
}

se_status se_case_alloc(se_case *c, const se_shape *shape, int64_t tile, double eps,
                        const se_operation *op, se_err *err)
{
    memset(c, 0, sizeof *c);
    c->shape = *shape;
    c->tile = tile;
    c->eps = eps;
    c->op = op->id;
    const int ln = op->id == SE_OP_LAYERNORM;
    /* the graph of the operation's phases (LayerNorm: 3) */
    se_taskgeom g = se_taskgeom_make_p(shape->rows, shape->cols, tile, SE_TASKGRAPH_VERSION,
                                       ln ? 3 : SE_NPHASES);
    size_t elems = (size_t)(shape->rows * shape->cols);
    size_t arr = (elems + 1) * sizeof(float);
    size_t parts = align256((size_t)g.partials * sizeof(float));
    size_t rowst = align256((size_t)shape->rows * sizeof(float));
    size_t counters = align256((size_t)(2 * g.groups) * sizeof(int32_t));
    size_t rb_slot = align256(SE_RB_SLOT_WORDS * SE_RB_GRID_CAP * sizeof(unsigned long long));
    size_t rb_start = align256(SE_RB_GRID_CAP * sizeof(uint64_t));
    size_t rb_row = align256(SE_RB_GRID_CAP * sizeof(int32_t));
    /* LayerNorm's float64 sums of x and x^2 per row and tile, mean, rstd */
    size_t ln_parts = ln ? align256((size_t)(2 * g.partials) * sizeof(double)) : 0;
    size_t ln_rowst = ln ? rowst : 0;
    size_t ws_bytes = 3 * parts + 3 * rowst + counters + rb_slot + rb_start + 2 * rb_row +
                      ln_parts + 2 * ln_rowst;
    cudaError_t e = cudaSuccess;
    if ((e = cudaMalloc((void **)&c->x, arr)) != cudaSuccess ||
        (e = cudaMalloc((void **)&c->y, arr)) != cudaSuccess ||
        (op->prescaled_input && (e = cudaMalloc((void **)&c->xs, arr)) != cudaSuccess) ||
        (e = cudaMalloc(&c->workspace, ws_bytes)) != cudaSuccess ||
        (e = cudaMemset(c->workspace, 0, ws_bytes)) != cudaSuccess) {
        se_case_free(c);
        cudaGetLastError();
        return se_fail(err, e == cudaErrorMemoryAllocation ? SE_ERR_LIMIT : SE_ERR_CUDA,
                       "shape %s: allocating %zu bytes of device memory failed: %s",
                       shape->spec, (op->prescaled_input ? 3 : 2) * arr + ws_bytes,
                       cudaGetErrorString(e));
    }
    /* The tile functions read x and write y as float4 in the frame of
     * 16-byte addresses (tile_ops.cuh); cudaMalloc aligns to 256 bytes. */
    if (((uintptr_t)c->x | (uintptr_t)c->y) & 15) {
        se_case_free(c);
        return se_fail(err, SE_ERR_CUDA, "shape %s: x or y is not 16-byte aligned",
                       shape->spec);
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
    p->group = g.group;
    p->groups = g.groups;
    p->eps = eps;
    unsigned seg = se_tile_seg(&g, SE_TILE_THREADS);
    for (p->seg_log2 = 0; (1u << p->seg_log2) < seg; p->seg_log2++)
        ;
    p->part_ss = (float *)w, w += parts;
    p->part_max = (float *)w, w += parts;
    p->part_l = (float *)w, w += parts;
    p->row_s = (float *)w, w += rowst;
    p->row_m = (float *)w, w += rowst;
    p->row_inv_l = (float *)w, w += rowst;
    p->counters = (int32_t *)w, w += counters;
    c->rb.slot = (unsigned long long *)w, w += rb_slot;
    c->rb.start = (uint64_t *)w, w += rb_start;
    c->rb.count = (int32_t *)w, w += rb_row;
    c->rb.gen = (int32_t *)w, w += rb_row;
    p->op = op;
    if (ln) {
        p->ln_part = (double *)w, w += ln_parts;
        p->ln_mean = (float *)w, w += ln_rowst;
        p->ln_rstd = (float *)w;
    }
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
