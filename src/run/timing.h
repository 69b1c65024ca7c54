/*
 * timing.h - the measurement scopes: device time of one instance (CUDA
 * events around all of its launches) with L2 warm and after an L2 flush,
 * steady-state time of a batch of back-to-back instances, and host-observed
 * latency (first launch call to stream synchronize). In the three event
 * scopes a blocking kernel holds the stream until every launch of the
 * sample is enqueued, so device time excludes host submission latency;
 * the host scope includes it by definition. Every sample keeps its
 * place in the run (sequence number, round, position in the round's
 * interleaving order) and the SM clock read just before it.
 */
#ifndef SE_TIMING_H
#define SE_TIMING_H

#include <stddef.h>
#include <stdint.h>

#include <cuda_runtime_api.h>

#include "bundle/samples.h"
#include "model/protocol.h"
#include "model/se_common.h"
#include "run/instance.h"

/* Something timed on a case: a strategy instance, or the device-to-device
 * copy of the case's bytes (inst NULL). */
typedef struct se_timed {
    char name[32];
    se_instance *inst;
    const float *copy_src;
    float *copy_dst;
    size_t copy_bytes;
    se_sample_set scope[SE_NSCOPES];
} se_timed;

typedef struct se_timer {
    cudaStream_t stream;
    cudaEvent_t start, stop;
    void *flush;                 /* 2 x L2 bytes, written to flush L2 */
    size_t flush_bytes;
    unsigned long long *probe;   /* device: clock probe output */
    volatile int *release_host;  /* mapped host memory: releases the blocking kernel */
    int *release_dev;
    int *timed_out_host;         /* mapped: the blocking kernel gave up */
    int *timed_out_dev;
    double peak_mhz;             /* cudaDevAttrClockRate */
    double throttle_fraction;
    long long probe_cycles;
    int64_t seq;
    int quiet;
    int blocking;                /* hold the stream with the blocking kernel (default) */
    /* progress */
    size_t units_done, units_total;
    double started_s;
} se_timer;

se_status se_timer_init(se_timer *t, cudaStream_t stream, double throttle_fraction, int quiet,
                        int blocking, se_err *err);
void se_timer_destroy(se_timer *t);

/* Times every item of one case in every scope of the protocol, items
 * interleaved in each round in an order drawn from (order_seed, case_index,
 * scope, round). */
se_status se_time_case(se_timer *t, const se_protocol *p, int case_index, se_timed *items,
                       size_t n_items, se_err *err);

/* The run-level controls, interleaved by round: "empty_stream" (an empty
 * kernel of one block per SM on a stream), "empty_graph" (the same as a
 * one-node graph), "coop_noop" (cooperative launch of `coop_blocks` blocks
 * that do nothing), "barriers" (the same with p->barriers grid barriers).
 * items must hold 4 entries, filled here (device scope only). */
se_status se_time_controls(se_timer *t, const se_protocol *p, int sm_count, int coop_blocks,
                           se_timed *items, se_err *err);

/* Tracing cost: `n` rounds of one device-scope sample (L2 warm) of a and
 * one of b, the order alternating by round, after `warmup` of each. Before
 * every sample of b the `reset_bytes` at `reset` (its trace counter) are
 * zeroed outside the timed region. Samples go to a->scope[0] and
 * b->scope[0]. */
se_status se_time_pair(se_timer *t, se_timed *a, se_timed *b, void *reset, size_t reset_bytes,
                       int n, int warmup, se_err *err);

/* Smallest and mean step of %globaltimer, nanoseconds. */
se_status se_timer_resolution(se_timer *t, double *smallest_ns, double *mean_ns, se_err *err);

#endif
