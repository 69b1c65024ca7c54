/*
 * kernels.h - the C interface to every GPU kernel of softmax-evidence: the
 * RMS-scaled softmax's and LayerNorm forward's (the se_gpu_ln_* functions,
 * ln_*.cu; se_gpu_problem.op says which operation a problem is).
 *
 * Each function enqueues work on a stream and returns at once; launch errors
 * come back as SE_ERR_CUDA with the kernel named. Nothing here synchronizes,
 * so every function can be captured into a CUDA graph.
 */
#ifndef SE_GPU_KERNELS_H
#define SE_GPU_KERNELS_H

#include <stdint.h>

#include <cuda_runtime_api.h>

#include "model/se_common.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Threads per block of every tiled kernel; the per-tile reductions depend on
 * it, so the four tiled strategies share it to stay bitwise identical. */
#define SE_TILE_THREADS 256

/* One traced task: which task, where it ran, and when (%globaltimer, ns).
 * For the tiled strategies `task` is the task id of taskgraph.h; for
 * rowblock it is the row. */
typedef struct se_trace_rec {
    int32_t task;
    int32_t block;
    int32_t sm;
    int32_t reserved;
    uint64_t start_ns;
    uint64_t end_ns;
} se_trace_rec;

/* Where traced kernels append their records: `count` is bumped atomically
 * for every record, also past `cap` (records beyond cap are dropped and the
 * count tells how many there were). */
typedef struct se_trace_buf {
    se_trace_rec *rec;
    int32_t *count;
    int32_t cap;
} se_trace_buf;

/* The operations the GPU layer runs: se_gpu_problem.op, model/operation.h's
 * se_op_id (run/case.c checks that the two agree). */
#define SE_GPU_OP_RMS_SOFTMAX 0
#define SE_GPU_OP_LAYERNORM 1

/* Everything a tiled strategy reads and writes on the device. The task
 * graph's numbers are se_taskgeom_make's (model/taskgraph.h); for
 * LayerNorm (op SE_GPU_OP_LAYERNORM) total_tasks is its graph of three
 * phases (se_taskgeom_make_p), and it uses ln_part, ln_mean and ln_rstd
 * instead of the softmax's partials and row statistics. */
typedef struct se_gpu_problem {
    const float *x;        /* rows x cols input, row-major, 16-byte aligned */
    float *y;              /* rows x cols output, 16-byte aligned */
    int64_t rows, cols, tile, tiles_per_row, tile_tasks, total_tasks;
    int64_t group, groups; /* rows per group (1 unless packed), groups */
    double eps;
    int seg_log2;          /* log2 of the threads a tile gives each row (se_tile_seg) */
    float *part_ss;        /* [rows * tiles_per_row] phase A: sum of squares per row and tile */
    float *part_max;       /* [rows * tiles_per_row] phase A: max per row and tile */
    float *part_l;         /* [rows * tiles_per_row] phase C: sum of exp per row and tile */
    float *row_s;          /* [rows] phase B: s_r */
    float *row_m;          /* [rows] phase B: m_r */
    float *row_inv_l;      /* [rows] phase D: 1 / l_r */
    int32_t *counters;     /* [2 * groups] megakernel: A and C completions per group */
    se_trace_buf trace;    /* trace.rec NULL: untraced (the timed runs) */
    int op;                /* SE_GPU_OP_RMS_SOFTMAX or SE_GPU_OP_LAYERNORM */
    double *ln_part;       /* LayerNorm: [2 * rows * tiles_per_row] phase A's sums of x per row
                            * and tile, then (rows * tiles_per_row on) their sums of x^2 */
    float *ln_mean;        /* LayerNorm: [rows] phase B's mean */
    float *ln_rstd;        /* LayerNorm: [rows] phase B's 1 / sqrt(var + eps) */
} se_gpu_problem;

/* stream / graph: one launch per phase, A, B, C, D, E (five launches). */
se_status se_gpu_phases_enqueue(const se_gpu_problem *p, cudaStream_t stream, se_err *err);

/* stream-pdl / graph-pdl: the same five kernels, B..E launched with
 * programmatic dependent launch (each may start while the one before it
 * drains, and waits for its results with griddepcontrol.wait). */
se_status se_gpu_phases_pdl_enqueue(const se_gpu_problem *p, cudaStream_t stream, se_err *err);

/* fusion: one cooperative launch of `blocks` blocks, grid barriers between
 * phases. */
se_status se_gpu_fusion_enqueue(const se_gpu_problem *p, int blocks, cudaStream_t stream,
                                se_err *err);

/* megakernel: one cooperative launch of `blocks` persistent blocks that reset
 * the per-row counters, pass one grid barrier, then run their units of rows
 * on the static schedule (se_mk_visit_at in taskgraph.h). */
se_status se_gpu_megakernel_enqueue(const se_gpu_problem *p, int blocks, cudaStream_t stream,
                                    se_err *err);

/* The megakernel's initialization alone (counter reset + one grid barrier),
 * with the same grid: its cost, timed on its own. */
se_status se_gpu_megakernel_init_enqueue(const se_gpu_problem *p, int blocks, cudaStream_t stream,
                                         se_err *err);

/* Most blocks of the fusion kernel, and of the megakernel, that can be
 * co-resident on the current device (occupancy per SM times the SM count):
 * each one's cooperative launch limit. The query also fails when the
 * kernels were not built for this GPU. */
se_status se_gpu_fusion_max_blocks(int *max_blocks, se_err *err);
se_status se_gpu_megakernel_max_blocks(int *max_blocks, se_err *err);

/* CTAs of rowblock's cooperative grid that its scratch holds. */
#define SE_RB_GRID_CAP 4096

/* 64-bit words per CTA in rowblock's grid scratch: for the softmax, sum of
 * squares, max, sum of exponentials, and the scaled sum of squares of a
 * row whose float sum overflowed (rowblock.cuh); for LayerNorm, the high
 * and low halves of its float64 sums of x and x^2 (ln_rowblock.cu). */
#define SE_RB_SLOT_WORDS 4

/* rowblock's scratch for a row split over CTAs of a cooperative grid
 * (se_k_rowblock_grid), SE_RB_GRID_CAP entries each: per CTA
 * SE_RB_SLOT_WORDS 64-bit words (each 32 bits of value and a 32-bit tag)
 * and, traced, its start time; per row a counter of CTAs done; the count of launches (which makes the tags) and a counter of CTAs
 * done in the grid. Cleared once when allocated; every launch leaves the
 * counters zero. One launch at a time may use it. */
typedef struct se_rb_scratch {
    unsigned long long *slot; /* [SE_RB_SLOT_WORDS * cap] float bits | tag << 32 */
    uint64_t *start;          /* [cap] %globaltimer at the CTA's start, traced launches */
    int32_t *count;           /* [cap] per row: CTAs done */
    int32_t *gen;             /* [2] launches so far, CTAs of this launch done */
} se_rb_scratch;

/* rowblock control: not tiled, a thread, a block, a cluster or CTAs of a
 * cooperative grid per row (docs/STRATEGIES.md); traced (one record per
 * row) when trace.rec is not NULL. */
se_status se_gpu_rowblock_enqueue(const float *x, float *y, int64_t rows, int64_t cols,
                                  double eps, se_rb_scratch scratch, se_trace_buf trace,
                                  cudaStream_t stream, se_err *err);

/* LayerNorm forward (ln_phases.cu, ln_fused.cu, ln_rowblock.cu): the same
 * strategies over its three phases, A (per tile: sums of x and x^2 in
 * float64), B (per group: mean and rstd), C (per tile: the write). */

/* stream / graph (pdl 0), stream-pdl / graph-pdl (pdl 1): three launches. */
se_status se_gpu_ln_phases_enqueue(const se_gpu_problem *p, int pdl, cudaStream_t stream,
                                   se_err *err);

/* fusion: one cooperative launch, two grid barriers. */
se_status se_gpu_ln_fusion_enqueue(const se_gpu_problem *p, int blocks, cudaStream_t stream,
                                   se_err *err);

/* megakernel: one cooperative launch, the counter reset and one grid
 * barrier, then the static schedule with one counter per group. */
se_status se_gpu_ln_megakernel_enqueue(const se_gpu_problem *p, int blocks, cudaStream_t stream,
                                       se_err *err);

/* The co-residency limits of LayerNorm's fusion and megakernel kernels. */
se_status se_gpu_ln_fusion_max_blocks(int *max_blocks, se_err *err);
se_status se_gpu_ln_megakernel_max_blocks(int *max_blocks, se_err *err);

/* LayerNorm's rowblock control: not tiled, one read of each row (a warp a
 * row of up to SE_LN_RB_WARP_COLS columns, else a CTA, a cluster of CTAs
 * or CTAs of a cooperative grid a row, the last with the softmax's
 * scratch: ln_rowblock.cu); traced (one
 * record per row) when trace.rec is not NULL. */
#define SE_LN_RB_WARP_COLS 1024
se_status se_gpu_ln_rowblock_enqueue(const float *x, float *y, int64_t rows, int64_t cols,
                                     double eps, se_rb_scratch scratch, se_trace_buf trace,
                                     cudaStream_t stream, se_err *err);

/* cuDNN's input: xs = s_r * x, one block per row. */
se_status se_gpu_prescale_enqueue(const float *x, float *xs, int64_t rows, int64_t cols,
                                  double eps, cudaStream_t stream, se_err *err);

/* Input outliers: SE_OUTLIERS values per row, planted where and as large
 * as outliers.h says. */
se_status se_gpu_outliers_enqueue(float *x, int64_t rows, int64_t cols, uint64_t seed,
                                  double scale, cudaStream_t stream, se_err *err);

/* Controls and probes (controls.cu). */
se_status se_gpu_empty_enqueue(int blocks, cudaStream_t stream, se_err *err);
se_status se_gpu_coop_noop_enqueue(int blocks, cudaStream_t stream, se_err *err);
/* A cooperative kernel that does nothing but n grid barriers. */
se_status se_gpu_barriers_enqueue(int blocks, int n, cudaStream_t stream, se_err *err);
/* Writes out[0] = SM cycles and out[1] = %globaltimer nanoseconds over at
 * least `cycles` cycles of one thread (device memory, 2 values). */
se_status se_gpu_clock_probe_enqueue(unsigned long long *out, long long cycles,
                                     cudaStream_t stream, se_err *err);
/* Writes out[0] = smallest non-zero %globaltimer step, out[1] = sum of the
 * steps, out[2] = their count, over `reads` reads (device memory, 3 values). */
se_status se_gpu_timer_resolution_enqueue(unsigned long long *out, int reads,
                                          cudaStream_t stream, se_err *err);

/* A kernel that holds the stream until *release (mapped host memory)
 * becomes non-zero, or timeout_ns pass (then *timed_out = 1). */
se_status se_gpu_block_until_enqueue(const int *release, int *timed_out,
                                     unsigned long long timeout_ns, cudaStream_t stream,
                                     se_err *err);

/* An empty kernel whose grid size is case_no: under Nsight Compute it
 * marks where a case's kernels begin. */
se_status se_gpu_profile_marker_enqueue(int case_no, cudaStream_t stream, se_err *err);

/* Every kernel of the project, for the resource report (kernel_table.cu). */
typedef struct se_kernel_entry {
    const char *name;
    const void *fn;
    int block_threads; /* block size it is launched with */
    const char *used_by;
} se_kernel_entry;

size_t se_gpu_kernel_table(const se_kernel_entry **table);

#ifdef __cplusplus
}
#endif

#endif
