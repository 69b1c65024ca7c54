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

#include "../cli.h"
#include "../strategy.h"
#include "../tolerance.h"
#include "../workload.h"
#include "device.h"

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

/* Checks everything that can be checked before any kernel runs (limits,
 * device, memory, cooperative grid), then validates. Prints progress on
 * stderr unless o->quiet, and the validation table on out. Returns
 * SE_ERR_VALIDATION if any case failed; run->results is filled either way
 * (free with se_validation_run_free). */
se_status se_validate_run(const se_run_opts *o, FILE *out, se_validation_run *run, se_err *err);

void se_validation_run_free(se_validation_run *run);

/* Lowercase hex of a SHA-256 digest into hex (65 bytes). */
void se_sha256_hex(const unsigned char digest[32], char hex[65]);

#endif
