/*
 * case.h - one case's device buffers: the input, the output of the
 * strategy under test, cuDNN's pre-scaled input, and the workspace every
 * strategy's partials, row statistics and counters live in. Every
 * strategy of a shape runs on the same case.
 */
#ifndef SE_CASE_H
#define SE_CASE_H

#include <stddef.h>

#include "gpu/kernels.h"
#include "model/se_common.h"
#include "model/workload.h"

typedef struct se_case {
    se_shape shape;
    int64_t tile;
    double eps;
    int op;              /* the operation: model/operation.h's se_op_id */
    float *x;            /* input, rows * cols + 1 floats */
    float *y;            /* output of the strategy under test */
    float *xs;           /* pre-scaled input, cuDNN's operand; NULL where the
                          * operation has none (prescaled_input) */
    void *workspace;     /* partials, row statistics, counters */
    se_gpu_problem prob; /* pointers into the above */
    se_rb_scratch rb;    /* rowblock's grid scratch, also in the workspace */
} se_case;

struct se_operation;

/* Allocates a case's buffers on the current device for operation op:
 * LayerNorm's also get its float64 partials, mean and rstd, and only an
 * operation with a pre-scaled input (op->prescaled_input) gets xs. */
se_status se_case_alloc(se_case *c, const se_shape *shape, int64_t tile, double eps,
                        const struct se_operation *op, se_err *err);
void se_case_free(se_case *c);

#endif
