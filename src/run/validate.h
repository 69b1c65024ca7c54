/*
 * validate.h - the validation run: every selected strategy on every shape,
 * each output poisoned with NaN before each invocation and compared element
 * by element with the float64 reference and with cuDNN.
 *
 * The per (strategy, shape) results are kept in se_validation records so
 * that later stages (the evidence bundle) can write them out.
 */
#ifndef SE_VALIDATE_H
#define SE_VALIDATE_H

#include <stdio.h>

#include <cuda_runtime_api.h>

#include "run/run_config.h"
#include "model/protocol.h"
#include "model/strategy.h"
#include "model/tolerance.h"
#include "model/workload.h"
#include "run/cudnn_ref.h"
#include "run/device.h"
#include "run/instance.h"

typedef struct se_validation {
    se_strategy strategy;
    se_shape shape;
    int64_t tile;
    int blocks;              /* cooperative grid, 0 for others */
    size_t graph_nodes;      /* nodes of the instantiated graph, 0 for stream launches */
    int invocations;
    se_compare vs_ref;       /* the worst invocation against the float64 reference */
    se_compare vs_cudnn;     /* first invocation against cuDNN's output */
    int repeat_identical;    /* every invocation wrote the same bytes */
    int matches_tiled;       /* -1 not tiled; else 1 if bitwise equal to the case's first tiled strategy */
    unsigned char sha256[32];       /* of the first invocation's output bytes */
    unsigned char input_sha256[32]; /* of the case's input bytes */
    int pass;
} se_validation;

typedef struct se_validation_run {
    se_device_info device;
    se_validation *results;  /* n_results records, strategy-major within each shape */
    size_t n_results;
    size_t n_failed;
} se_validation_run;

/* Host copies of one case: the input, the float64 reference, cuDNN's output,
 * the first invocation's output of the strategy being validated, and a
 * scratch buffer. */
typedef struct se_case_host {
    float *x, *out, *first, *cudnn;
    double *ref;
    unsigned char input_sha256[32];
} se_case_host;

/* Everything that can be checked before any kernel runs: each shape's
 * limits, the device, a --blocks over the cooperative limit, device memory,
 * host memory. */
se_status se_validate_preflight(const se_protocol *p, const se_run_config *o, se_device_info *dev,
                                se_err *err);

/* Allocates a case, generates its input, hashes it, copies it to the host,
 * computes the float64 reference and cuDNN's output. On failure nothing is
 * left allocated. */
se_status se_case_prepare(const se_protocol *p, const se_shape *shape, se_cudnn *cudnn,
                          cudaStream_t stream, se_case *c, se_case_host *h, se_err *err);
void se_case_release(se_case *c, se_case_host *h);

/* Called after each strategy is validated, with its first invocation's
 * output (host memory). */
typedef se_status (*se_case_output_fn)(void *ctx, const se_validation *v, const float *y,
                                       se_err *err);

/* Validates every strategy of the protocol on a prepared case, appending
 * records to results (and printing rows on out, if not NULL). */
se_status se_validate_strategies(const se_protocol *p, const se_run_config *o,
                                 const se_device_info *dev, se_case *c, se_case_host *h,
                                 size_t shape_index, se_cudnn *cudnn, cudaStream_t stream,
                                 FILE *out, se_validation *results, size_t *n_results,
                                 se_case_output_fn on_output, void *ctx, se_err *err);

void se_validation_print_header(FILE *out);

/* The validate-only run: preflight, then every case validated. Prints
 * progress on stderr unless o->quiet, and the validation table on out.
 * Returns SE_ERR_VALIDATION if any case failed; run->results is filled
 * either way (free with se_validation_run_free). */
se_status se_validate_run(const se_protocol *p, const se_run_config *o, FILE *out,
                          se_validation_run *run, se_err *err);

/* The cooperative grid a strategy gets on a shape: --blocks, or every block
 * that can be co-resident, capped by the most that have work. */
int se_coop_blocks(const se_protocol *p, const se_run_config *o, const se_device_info *d,
                   se_strategy s, const se_shape *shape);

void se_validation_run_free(se_validation_run *run);

/* Lowercase hex of a SHA-256 digest into hex (65 bytes). */
void se_sha256_hex(const unsigned char digest[32], char hex[65]);

#endif
