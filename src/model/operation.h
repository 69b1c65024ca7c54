/*
 * operation.h - the workload table: one descriptor per operation this
 * program measures (docs/ADDING-A-WORKLOAD.md). A descriptor holds what
 * the host knows of the operation: its name (a run's `workload.name` in
 * strategies.json), the phases of its tiled task graph and their per-row
 * combine, its float64 reference (whole rows, and row by row in passes for
 * verify's streaming re-check, bit for bit the same), its tolerances and
 * the PyTorch peers that compute it. The RMS-scaled softmax is the first
 * entry, LayerNorm forward the second. The device phase functions and
 * the fused single-kernel controls are the GPU layer's, chosen by `id`
 * (gpu/kernels.h's se_gpu_problem.op: the softmax's in phases.cu,
 * fusion.cu, megakernel.cu and rowblock*.cu, LayerNorm's in ln_*.cu;
 * docs/ADDING-A-WORKLOAD.md), and `on_gpu` says which entries a run can
 * measure.
 */
#ifndef SE_OPERATION_H
#define SE_OPERATION_H

#include <stddef.h>
#include <stdint.h>

#include "model/tolerance.h"

#ifdef __cplusplus
extern "C" {
#endif

/* A row's reference statistics while the row is streamed, what the
 * operation keeps of it (the RMS-scaled softmax: the sum of squares, the
 * scale, the maximum and the sum of exponentials). */
#define SE_OP_ROW_WORDS 6
typedef struct se_op_row {
    double v[SE_OP_ROW_WORDS];
} se_op_row;

/* One phase of the tiled task graph: its letter, what each task does, and
 * whether it runs per tile (else per row group). */
typedef struct se_op_phase {
    char letter;
    int per_tile;
    const char *does;
} se_op_phase;

#define SE_OP_MAX_PHASES 8

/* Which kernels the GPU layer runs for an entry (se_gpu_problem.op,
 * gpu/kernels.h's SE_GPU_OP_*, the same numbers). */
typedef enum se_op_id { SE_OP_RMS_SOFTMAX = 0, SE_OP_LAYERNORM = 1 } se_op_id;

typedef struct se_operation {
    const char *name;    /* [a-z0-9-]: a run's workload.name */
    const char *title;   /* for people: "RMS-scaled softmax" */
    const char *brief;   /* the report's short form: "y = softmax(x / rms(x))" */
    const char *formula; /* one line: what y is per row */
    int n_phases;
    se_op_phase phases[SE_OP_MAX_PHASES];
    /* Per row r of the row-major rows x cols matrix x, in float64: y has
     * rows * cols doubles. */
    void (*reference)(const float *x, int64_t rows, int64_t cols, double eps, double *y);
    /* The same reference streamed: row_begin, then for pass = 0 ..
     * row_passes - 1 row_pass over the row's values in order (in chunks
     * of any size) followed by row_end_pass; then row_value of the
     * element of column col with value x is, bit for bit, what reference
     * writes there. */
    int row_passes;
    void (*row_begin)(se_op_row *r);
    void (*row_pass)(se_op_row *r, int pass, const float *x, int64_t n);
    void (*row_end_pass)(se_op_row *r, int pass, int64_t cols, double eps);
    double (*row_value)(const se_op_row *r, float x, int64_t col);
    se_tolerance tolerance; /* docs/TOLERANCES.md: what protocol/default.json states */
    const char *peers;      /* the PyTorch peers computing it (bench/peers.py), comma-separated */
    /* Whether the GPU layer runs it: 0 while its kernels are not written
     * (docs/ADDING-A-WORKLOAD.md), and `run` refuses a protocol naming it
     * then, naming workload.operation; verify and the renderers read its
     * runs either way. */
    int on_gpu;
    se_op_id id; /* the GPU layer's kernels for it */
    /* Whether cuDNN's legacy API computes it (strategy cudnn, and the
     * agreement column of validation): the softmax yes, LayerNorm no. */
    int has_cudnn;
    /* Whether cuDNN and the plain-softmax peers take the pre-scaled input
     * xs = s * x (bench/peers.py's xp): the harness computes, stores and
     * sends xs only then. The softmax yes; LayerNorm's peers take x. */
    int prescaled_input;
} se_operation;

/* The table, in order; the first entry is what a run measures unless told
 * otherwise, and what a run made before strategies.json measured. */
extern const se_operation *const se_operations[];
extern const size_t se_operation_count;

/* The entry named `name`, or NULL. */
const se_operation *se_operation_find(const char *name);

/* The first entry (the RMS-scaled softmax). */
const se_operation *se_operation_default(void);

/* The phases' letters of op in order ("ABCDE"), into buf (at least
 * SE_OP_MAX_PHASES + 1 bytes). */
const char *se_operation_letters(const se_operation *op, char *buf);

/* The names in the table, ", "-separated, into buf (for messages). */
const char *se_operation_names(char *buf, size_t size);

#ifdef __cplusplus
}
#endif

#endif
