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
#include "model/operation.h"
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

/* Most blocks of the strategy's cooperative kernel for operation op
 * (se_gpu_problem.op) that can be co-resident on the current device. */
typedef se_status (*se_coop_limit_fn)(int op, int *max_blocks, se_err *err);

/* The operations a strategy's GPU line runs: one bit per se_gpu_problem.op
 * (SE_GPU_OP_*). Every strategy runs the RMS-scaled softmax, the first
 * workload; one without LayerNorm kernels says SE_RUNS_SOFTMAX, and `run`
 * refuses it for a LayerNorm protocol, naming the strategy and the workload,
 * before any GPU work. */
#define SE_RUNS(op) (1u << (op))
#define SE_RUNS_SOFTMAX SE_RUNS(SE_GPU_OP_RMS_SOFTMAX)
#define SE_RUNS_SOFTMAX_LAYERNORM (SE_RUNS(SE_GPU_OP_RMS_SOFTMAX) | SE_RUNS(SE_GPU_OP_LAYERNORM))

typedef struct se_strategy_gpu {
    se_enqueue_fn enqueue;            /* runs each operation of `ops` (it reads prob.op) */
    se_coop_limit_fn coop_max_blocks; /* non-NULL exactly for strategies with a coop_group */
    se_enqueue_fn init_enqueue;       /* non-NULL exactly for strategies with an
                                         init_control: its initialization alone, on the
                                         strategy's grid, launched on a stream */
    unsigned ops;                     /* SE_RUNS_SOFTMAX or SE_RUNS_SOFTMAX_LAYERNORM */
} se_strategy_gpu;

/* The GPU half of strategy s; NULL for a value that is no strategy. */
const se_strategy_gpu *se_strategy_gpu_get(se_strategy s);

/* The co-residency limit of strategy s's cooperative kernel for operation
 * op (se_gpu_problem.op), through its GPU line's query. 0 for a strategy
 * without one, and for one that does not run op (it has no kernel to ask
 * about, and a run of op cannot select it: se_strategy_check_operation). */
se_status se_coop_max_blocks_op(se_strategy s, int op, int *max_blocks, se_err *err);

/* Whether strategy s's GPU line runs operation op (se_gpu_problem.op). */
int se_strategy_runs_op(se_strategy s, int op);

/* SE_OK when strategy s runs operation op; else SE_ERR_USAGE, the message
 * (after "where: ") naming the strategy and the workload. */
se_status se_strategy_check_operation(const char *where, se_strategy s, const se_operation *op,
                                      se_err *err);

/* The first strategy, in table order, of s's cooperative group (s itself
 * when it is the first); SE_NSTRATEGIES when s is not cooperative. The
 * group's limit is queried, written and printed once, for this one. */
se_strategy se_coop_group_first(se_strategy s);

/* The cooperative kernel of a group, for messages: "fusion kernel",
 * "megakernel" (the group's name, with " kernel" unless it ends so). */
void se_coop_group_kernel(const char *group, char *buf, size_t size);

#endif
