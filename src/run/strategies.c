/*
 * strategies.c - the GPU half of the strategy table (see strategies.h).
 */
#include "run/strategies.h"

#include <stdio.h>
#include <string.h>

/* Each enqueue runs the kernels of the case's operation (se_gpu_problem.op):
 * the RMS-scaled softmax's, or LayerNorm's (ln_*.cu). */
static int is_ln(const se_invocation *inv)
{
    return inv->prob.op == SE_GPU_OP_LAYERNORM;
}

/* stream, graph: the five phase launches (graph captures them); three for
 * LayerNorm. */
static se_status enqueue_phases(const se_invocation *inv, cudaStream_t stream, se_err *err)
{
    if (is_ln(inv))
        return se_gpu_ln_phases_enqueue(&inv->prob, 0, stream, err);
    return se_gpu_phases_enqueue(&inv->prob, stream, err);
}

/* stream-pdl, graph-pdl: the same five kernels, B..E with programmatic
 * dependent launch (graph-pdl captures them as programmatic edges). */
static se_status enqueue_phases_pdl(const se_invocation *inv, cudaStream_t stream, se_err *err)
{
    if (is_ln(inv))
        return se_gpu_ln_phases_enqueue(&inv->prob, 1, stream, err);
    return se_gpu_phases_pdl_enqueue(&inv->prob, stream, err);
}

static se_status enqueue_fusion(const se_invocation *inv, cudaStream_t stream, se_err *err)
{
    if (is_ln(inv))
        return se_gpu_ln_fusion_enqueue(&inv->prob, inv->blocks, stream, err);
    return se_gpu_fusion_enqueue(&inv->prob, inv->blocks, stream, err);
}

static se_status enqueue_megakernel(const se_invocation *inv, cudaStream_t stream, se_err *err)
{
    if (is_ln(inv))
        return se_gpu_ln_megakernel_enqueue(&inv->prob, inv->blocks, stream, err);
    return se_gpu_megakernel_enqueue(&inv->prob, inv->blocks, stream, err);
}

static se_status enqueue_rowblock(const se_invocation *inv, cudaStream_t stream, se_err *err)
{
    const se_case *c = inv->c;
    if (is_ln(inv))
        return se_gpu_ln_rowblock_enqueue(c->x, c->y, c->shape.rows, c->shape.cols, c->eps,
                                          c->rb, inv->prob.trace, stream, err);
    return se_gpu_rowblock_enqueue(c->x, c->y, c->shape.rows, c->shape.cols, c->eps, c->rb,
                                   inv->prob.trace, stream, err);
}

/* On the handle's stream (the caller's: se_cudnn_create binds it). cuDNN's
 * legacy API has a softmax and no layer norm. */
static se_status enqueue_cudnn(const se_invocation *inv, cudaStream_t stream, se_err *err)
{
    (void)stream;
    const se_case *c = inv->c;
    if (is_ln(inv))
        return se_fail(err, SE_ERR_USAGE, "strategy 'cudnn' does not run workload 'layernorm': "
                       "cuDNN's legacy API has no layer norm");
    if (!inv->cudnn)
        return se_fail(err, SE_ERR_USAGE, "cudnn: no cuDNN handle was given");
    return se_cudnn_softmax(inv->cudnn, c->xs, c->y, c->shape.rows, c->shape.cols, err);
}

/* The megakernel's initialization alone (counter reset and grid barrier):
 * the init_control of the megakernel strategies, on their grid. */
static se_status enqueue_megakernel_init(const se_invocation *inv, cudaStream_t stream,
                                         se_err *err)
{
    return se_gpu_megakernel_init_enqueue(&inv->prob, inv->blocks, stream, err);
}

/* The co-residency queries: the kernel of the case's operation. */
static se_status fusion_max_blocks(int op, int *max_blocks, se_err *err)
{
    if (op == SE_GPU_OP_LAYERNORM)
        return se_gpu_ln_fusion_max_blocks(max_blocks, err);
    return se_gpu_fusion_max_blocks(max_blocks, err);
}

static se_status megakernel_max_blocks(int op, int *max_blocks, se_err *err)
{
    if (op == SE_GPU_OP_LAYERNORM)
        return se_gpu_ln_megakernel_max_blocks(max_blocks, err);
    return se_gpu_megakernel_max_blocks(max_blocks, err);
}

/*
 * One line per strategy of SE_STRATEGY_TABLE: SE_GPU_<ID> is {enqueue
 * function, co-residency query or NULL, init_control's enqueue or NULL, the
 * operations it runs}. The table below is generated from SE_STRATEGY_TABLE,
 * so a strategy without its line here does not compile.
 */
#define SE_RUNS_BOTH SE_RUNS_SOFTMAX_LAYERNORM
#define SE_GPU_STREAM           {enqueue_phases, NULL, NULL, SE_RUNS_BOTH}
#define SE_GPU_GRAPH            {enqueue_phases, NULL, NULL, SE_RUNS_BOTH}
#define SE_GPU_STREAM_PDL       {enqueue_phases_pdl, NULL, NULL, SE_RUNS_BOTH}
#define SE_GPU_GRAPH_PDL        {enqueue_phases_pdl, NULL, NULL, SE_RUNS_BOTH}
#define SE_GPU_FUSION           {enqueue_fusion, fusion_max_blocks, NULL, SE_RUNS_BOTH}
#define SE_GPU_FUSION_GRAPH     {enqueue_fusion, fusion_max_blocks, NULL, SE_RUNS_BOTH}
/* test build: fusion's kernels, declared softmax-only so that the refusal of a
 * strategy without LayerNorm kernels is tested (tests/CMakeLists.txt) */
#define SE_GPU_TEST_EXTRA       {enqueue_fusion, fusion_max_blocks, NULL, SE_RUNS_SOFTMAX}
#define SE_GPU_MEGAKERNEL       {enqueue_megakernel, megakernel_max_blocks, \
                                 enqueue_megakernel_init, SE_RUNS_BOTH}
#define SE_GPU_MEGAKERNEL_GRAPH {enqueue_megakernel, megakernel_max_blocks, \
                                 enqueue_megakernel_init, SE_RUNS_BOTH}
#define SE_GPU_ROWBLOCK         {enqueue_rowblock, NULL, NULL, SE_RUNS_BOTH}
#define SE_GPU_CUDNN            {enqueue_cudnn, NULL, NULL, SE_RUNS_SOFTMAX}

static const se_strategy_gpu table[] = {
#define SE_GPU_LINE(id, ...) [SE_S_##id] = SE_GPU_##id,
    SE_STRATEGY_TABLE(SE_GPU_LINE)
#undef SE_GPU_LINE
};

_Static_assert(sizeof table / sizeof table[0] == SE_NSTRATEGIES,
               "run/strategies.c: one GPU line per strategy of model/strategy.h");

const se_strategy_gpu *se_strategy_gpu_get(se_strategy s)
{
    return (unsigned)s < SE_NSTRATEGIES ? &table[s] : NULL;
}

se_status se_coop_max_blocks_op(se_strategy s, int op, int *max_blocks, se_err *err)
{
    const se_strategy_gpu *gpu = se_strategy_gpu_get(s);
    *max_blocks = 0;
    if (!gpu || !gpu->coop_max_blocks || !se_strategy_runs_op(s, op))
        return SE_OK;
    return gpu->coop_max_blocks(op, max_blocks, err);
}

int se_strategy_runs_op(se_strategy s, int op)
{
    const se_strategy_gpu *gpu = se_strategy_gpu_get(s);
    return gpu && op >= 0 && op < 32 && ((gpu->ops >> op) & 1u);
}

se_status se_strategy_check_operation(const char *where, se_strategy s, const se_operation *op,
                                      se_err *err)
{
    const se_strategy_info *info = se_strategy_get(s);
    if (!info)
        return se_fail(err, SE_ERR_USAGE, "%s: strategy %d is not in this binary's table",
                       where, (int)s);
    if (se_strategy_runs_op(s, (int)op->id))
        return SE_OK;
    return se_fail(err, SE_ERR_USAGE,
                   "%s: strategy '%s' cannot run workload '%s': it has no %s kernels (its "
                   "GPU line in run/strategies.c does not list the operation); take '%s' out "
                   "of the protocol's strategies",
                   where, info->name, op->name, op->title, info->name);
}

se_strategy se_coop_group_first(se_strategy s)
{
    const se_strategy_info *info = se_strategy_get(s);
    if (!info || !info->cooperative)
        return SE_NSTRATEGIES;
    for (int i = 0; i < SE_NSTRATEGIES; i++) {
        const se_strategy_info *o = se_strategy_get((se_strategy)i);
        if (o->cooperative && strcmp(o->coop_group, info->coop_group) == 0)
            return (se_strategy)i;
    }
    return s;
}

void se_coop_group_kernel(const char *group, char *buf, size_t size)
{
    size_t n = strlen(group);
    int ends = n >= 6 && strcmp(group + n - 6, "kernel") == 0;
    snprintf(buf, size, "%s%s", group, ends ? "" : " kernel");
}
