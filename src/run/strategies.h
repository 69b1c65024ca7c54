/*
 * strategies.h - the GPU half of the strategy table: one const record per
 * strategy of SE_STRATEGY_TABLE (model/strategy.h, the host half), saying
 * how one invocation is enqueued and, for a cooperative strategy, how the
 * co-residency limit of its kernel is queried. The run layer walks this
 * table; it has no list of strategies of its own
 * (docs/ADDING-A-STRATEGY.md).
 */
#ifndef SE_STRATEGIES_H
#define SE_STRATEGIES_H

#include <stddef.h>

#include <cuda_runtime_api.h>

#include "gpu/kernels.h"
#include "model/se_common.h"
#include "model/strategy.h"
#include "run/case.h"
#include "run/cudnn_ref.h"

/* What one invocation of a strategy works on. */
typedef struct se_invocation {
    se_case *c;          /* the case's buffers */
    se_gpu_problem prob; /* the case's problem, with the instance's trace buffer */
    int blocks;          /* cooperative grid, 0 for the others */
    se_cudnn *cudnn;     /* a cuDNN handle, for the strategies that call cuDNN */
} se_invocation;

/* Enqueues one invocation on stream and returns at once: every launch is
 * checked, nothing synchronizes, so graph strategies capture exactly these
 * launches. */
typedef se_status (*se_enqueue_fn)(const se_invocation *inv, cudaStream_t stream, se_err *err);

/* Most blocks of a cooperative kernel that can be co-resident on the
 * current device. */
typedef se_status (*se_coop_limit_fn)(int *max_blocks, se_err *err);

typedef struct se_strategy_gpu {
    se_enqueue_fn enqueue;
    se_coop_limit_fn coop_max_blocks; /* non-NULL exactly for strategies with a coop_group */
    se_enqueue_fn init_enqueue;       /* non-NULL exactly for strategies with an
                                         init_control: its initialization alone, on the
                                         strategy's grid, launched on a stream */
} se_strategy_gpu;

/* The GPU half of strategy s; NULL for a value that is no strategy. */
const se_strategy_gpu *se_strategy_gpu_get(se_strategy s);

/* The co-residency limit of strategy s's cooperative kernel for operation
 * op (se_gpu_problem.op): its table query for the softmax; for LayerNorm
 * the limit of LayerNorm's kernel of the same kind (its fusion's where the
 * table's query is se_gpu_fusion_max_blocks, its megakernel's where it is
 * se_gpu_megakernel_max_blocks). 0 for a strategy without one. */
se_status se_coop_max_blocks_op(se_strategy s, int op, int *max_blocks, se_err *err);

/* The first strategy, in table order, of s's cooperative group (s itself
 * when it is the first); SE_NSTRATEGIES when s is not cooperative. The
 * group's limit is queried, written and printed once, for this one. */
se_strategy se_coop_group_first(se_strategy s);

/* The cooperative kernel of a group, for messages: "fusion kernel",
 * "megakernel" (the group's name, with " kernel" unless it ends so). */
void se_coop_group_kernel(const char *group, char *buf, size_t size);

#endif
