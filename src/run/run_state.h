/*
 * run_state.h - what one GPU run holds while it runs, shared by the files
 * of the runner: runner.c (the order of the work, timing, the outcome),
 * tracing.c (the traced runs) and write_bundle.c (the records written at
 * the end). Private to src/run.
 */
#ifndef SE_RUN_STATE_H
#define SE_RUN_STATE_H

#include <stddef.h>

#include <jansson.h>

#include "bundle/rundir.h"
#include "bundle/samples.h"
#include "model/protocol.h"
#include "run/case.h"
#include "run/device.h"
#include "run/peers_run.h"
#include "run/run_config.h"
#include "run/timing.h"
#include "run/validate.h"

struct se_protocol_source; /* run/runner.h */

/* Samples kept in memory for summary.json, found by case id. */
typedef struct kept_case {
    char id[96];
    se_sample_set scopes[SE_NSCOPES];
} kept_case;

typedef struct run_state {
    const se_protocol *p;
    const se_run_config *o;
    se_rundir rd;
    se_device_info dev;
    se_validation *results;
    size_t n_results;
    kept_case *kept;
    size_t n_kept;
    double timer_step_ns, timer_mean_ns, peak_mhz;
    se_peers_run *peers;   /* the PyTorch peers (docs/PEERS.md) */
    char *trace_outputs;   /* lines of traces/outputs.csv */
    size_t trace_outputs_len;
    char started[32], finished[32];
} run_state;

/* "2026-11-30T06:15:00Z": the current UTC time. */
void se_run_utc_now(char *buf, size_t size);

/* The summaries' sample source over the samples kept in memory. */
se_status se_run_kept_source(void *ctx, const se_case_id *c, se_sample_set *scopes, int *owned,
                             se_err *err);

/* The traced runs of one shape, separate from its timed runs (tracing.c). */
se_status se_run_trace_shape(run_state *rs, se_case *c, se_timer *t, se_err *err);

/* Writes every record of the finished run into its directory
 * (write_bundle.c); *summary receives summary.json's value. */
se_status se_run_write_bundle(run_state *rs, const struct se_protocol_source *src, int argc,
                              char **argv, json_t **summary, se_err *err);

#endif
