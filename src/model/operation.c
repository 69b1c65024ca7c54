/*
 * operation.c - the workload table (operation.h). Each entry wraps its
 * operation's reference functions (model/reference.c); the RMS-scaled
 * softmax's are unchanged, so its outputs and hashes are those of every
 * run before the table.
 */
#include "model/operation.h"

#include <stdio.h>
#include <string.h>

#include "model/reference.h"

/* The RMS-scaled softmax's row state in se_op_row: v[0] the sum of
 * squares, v[1] the scale s, v[2] the maximum m, v[3] the sum l. */
static se_ref_row rms_get(const se_op_row *r)
{
    se_ref_row s = {r->v[0], r->v[1], r->v[2], r->v[3]};
    return s;
}

static void rms_put(se_op_row *r, const se_ref_row *s)
{
    r->v[0] = s->ss;
    r->v[1] = s->s;
    r->v[2] = s->m;
    r->v[3] = s->l;
    r->v[4] = r->v[5] = 0.0;
}

static void rms_begin(se_op_row *r)
{
    se_ref_row s;
    se_ref_row_init(&s);
    rms_put(r, &s);
}

/* Pass 0: squares; pass 1: maximum of the scaled values; pass 2: sum of
 * exponentials (reference.h). */
static void rms_pass(se_op_row *r, int pass, const float *x, int64_t n)
{
    se_ref_row s = rms_get(r);
    if (pass == 0)
        se_ref_row_squares(&s, x, n);
    else if (pass == 1)
        se_ref_row_max(&s, x, n);
    else
        se_ref_row_exps(&s, x, n);
    rms_put(r, &s);
}

static void rms_end_pass(se_op_row *r, int pass, int64_t cols, double eps)
{
    if (pass != 0)
        return;
    se_ref_row s = rms_get(r);
    se_ref_row_scale(&s, cols, eps);
    rms_put(r, &s);
}

static double rms_value(const se_op_row *r, float x, int64_t col)
{
    (void)col;
    se_ref_row s = rms_get(r);
    return se_ref_value(&s, x);
}

static const se_operation rms_softmax = {
    .name = "rms-softmax",
    .title = "RMS-scaled softmax",
    .brief = "y = softmax(x / rms(x))",
    .formula = "s = 1 / sqrt(mean(x^2) + eps), y = exp(s x - max(s x)) / sum(exp(s x - max(s x)))",
    .n_phases = 5,
    .phases = {{'A', 1, "partial sum of squares and partial maximum of each tile"},
               {'B', 0, "combine A's partials of the row: s and m"},
               {'C', 1, "partial sum of exp(s x - m) of each tile"},
               {'D', 0, "combine C's partials of the row: l"},
               {'E', 1, "write y = exp(s x - m) / l of each tile"}},
    .reference = se_reference_rms_softmax,
    .row_passes = 3,
    .row_begin = rms_begin,
    .row_pass = rms_pass,
    .row_end_pass = rms_end_pass,
    .row_value = rms_value,
    .tolerance = {SE_TOL_ATOL, SE_TOL_RTOL},
    .peers = "torch-eager,torch-compile,torch-softmax,liger-softmax,quack-softmax,flashinfer-softmax",
    .on_gpu = 1,
    .id = SE_OP_RMS_SOFTMAX,
    .has_cudnn = 1,
    .prescaled_input = 1,
};

/* LayerNorm's row state in se_op_row: v[0] the sum, v[1] the mean, v[2]
 * the sum of squared deviations, v[3] rstd (reference.h's se_ln_row). */
static se_ln_row ln_get(const se_op_row *r)
{
    se_ln_row s = {r->v[0], r->v[1], r->v[2], r->v[3]};
    return s;
}

static void ln_put(se_op_row *r, const se_ln_row *s)
{
    r->v[0] = s->sum;
    r->v[1] = s->mean;
    r->v[2] = s->dev;
    r->v[3] = s->rstd;
    r->v[4] = r->v[5] = 0.0;
}

static void ln_begin(se_op_row *r)
{
    se_ln_row s;
    se_ln_row_init(&s);
    ln_put(r, &s);
}

/* Pass 0: the sum (then the mean); pass 1: the squared deviations from
 * the mean (then rstd). */
static void ln_pass(se_op_row *r, int pass, const float *x, int64_t n)
{
    se_ln_row s = ln_get(r);
    if (pass == 0)
        se_ln_row_sum(&s, x, n);
    else
        se_ln_row_dev(&s, x, n);
    ln_put(r, &s);
}

static void ln_end_pass(se_op_row *r, int pass, int64_t cols, double eps)
{
    se_ln_row s = ln_get(r);
    if (pass == 0)
        se_ln_row_mean(&s, cols);
    else
        se_ln_row_rstd(&s, cols, eps);
    ln_put(r, &s);
}

static double ln_value(const se_op_row *r, float x, int64_t col)
{
    se_ln_row s = ln_get(r);
    return se_ln_value(&s, x, col);
}

/* LayerNorm forward. The reference is two-pass in float64 (the mean, then
 * the squared deviations), whatever the kernels do; gamma and beta are
 * functions of the column (model/layernorm_params.h), eps the protocol's
 * (protocol/layernorm.json: 1e-5, PyTorch's default). The tolerance:
 * y is O(1) (gamma in [0.5, 1.5), beta in [-0.5, 0.5)), and where
 * (x - mean) rstd gamma and beta cancel y is near 0 and has no relative
 * meaning, so an absolute term of 1e-5, about a hundred float32 ulps of
 * the terms that cancelled, with the softmax's rtol of 1e-4 elsewhere
 * (docs/TOLERANCES.md). */
static const se_operation layernorm = {
    .name = "layernorm",
    .title = "LayerNorm forward",
    .brief = "y = layer_norm(x) * gamma + beta",
    .formula = "mean = mean(x), rstd = 1 / sqrt(mean((x - mean)^2) + eps), "
               "y = (x - mean) rstd gamma + beta",
    .n_phases = 3,
    .phases = {{'A', 1, "partial sums of x and x^2 of each tile"},
               {'B', 0, "combine A's partials of the row: mean and rstd"},
               {'C', 1, "write y = (x - mean) rstd gamma + beta of each tile"}},
    .reference = se_reference_layernorm,
    .row_passes = 2,
    .row_begin = ln_begin,
    .row_pass = ln_pass,
    .row_end_pass = ln_end_pass,
    .row_value = ln_value,
    .tolerance = {1e-5, SE_TOL_RTOL},
    .peers = "torch-layernorm-eager,torch-layernorm-compile,liger-layernorm",
    .on_gpu = 1,
    .id = SE_OP_LAYERNORM,
    .has_cudnn = 0,
    .prescaled_input = 0,
};

const se_operation *const se_operations[] = {&rms_softmax, &layernorm};
const size_t se_operation_count = sizeof se_operations / sizeof se_operations[0];

const se_operation *se_operation_find(const char *name)
{
    for (size_t i = 0; name && i < se_operation_count; i++)
        if (strcmp(se_operations[i]->name, name) == 0)
            return se_operations[i];
    return NULL;
}

const se_operation *se_operation_default(void)
{
    return se_operations[0];
}

const char *se_operation_letters(const se_operation *op, char *buf)
{
    int n = op->n_phases < SE_OP_MAX_PHASES ? op->n_phases : SE_OP_MAX_PHASES;
    for (int i = 0; i < n; i++)
        buf[i] = op->phases[i].letter;
    buf[n] = '\0';
    return buf;
}

const char *se_operation_names(char *buf, size_t size)
{
    size_t used = 0;
    if (size)
        buf[0] = '\0';
    for (size_t i = 0; i < se_operation_count && used < size; i++) {
        int k = snprintf(buf + used, size - used, "%s%s", i ? ", " : "", se_operations[i]->name);
        if (k < 0)
            break;
        used += (size_t)k;
    }
    return buf;
}
