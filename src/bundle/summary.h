/*
 * summary.h - timing summaries of a run as JSON (summary.json), computed
 * from raw samples by the same code in the run that writes them and in
 * verify that recomputes them. Which cases exist, what each is called and
 * which samples file holds it all follow from the protocol (samples.h).
 */
#ifndef SE_SUMMARY_H
#define SE_SUMMARY_H

#include <jansson.h>

#include "model/protocol.h"
#include "model/se_common.h"
#include "bundle/samples.h"

#define SE_SUMMARY_FORMAT "softmax-evidence-summary"
/* The newest version a reader accepts. se_summary_build writes version 1
 * (every summary recomputable from the samples); a run adds the derived
 * results (bundle/derived.h) and writes version 2. */
#define SE_SUMMARY_VERSION 2

/* Gives the samples of one case: fills n_scopes sets. If *owned is set on
 * return, the caller frees the sets with se_sample_set_free. */
typedef se_status (*se_sample_source)(void *ctx, const se_case_id *c, se_sample_set *scopes,
                                      int *owned, se_err *err);

/* Builds summary.json for every case of the protocol. Each scope of each
 * case must hold exactly the protocol's sample count, with rounds 0..n-1 in
 * order; a case without it is refused, naming the case and the scope. */
se_status se_summary_build(const se_protocol *p, se_sample_source source, void *ctx,
                           json_t **out, se_err *err);

/* The summary of a peer case (docs/PEERS.md): a program outside the
 * harness timed on a shape c->shape, device scope only, summarized exactly
 * like a case's device scope (same statistics, seed rule, sample-count and
 * round checks, GB/s), with its fraction of the same-run copy bandwidth
 * when copy_median_ns > 0. */
se_status se_summary_peer(const se_protocol *p, const se_case_id *c, const se_sample_set *device,
                          double copy_median_ns, json_t **out, se_err *err);

/* The bootstrap seed of a summary keyed `key` ("<case>/<scope>" for a
 * case's scope): se_mix64(bootstrap_seed ^ fnv1a(key)), docs/TIMING.md. */
uint64_t se_summary_seed(const se_protocol *p, const char *key);

/* Compares two JSON values: numbers within a relative 1e-12 (integers
 * exactly), everything else exactly. On the first difference fills path
 * (e.g. "cases[3].scopes.device.median_ns") and a description in what, and
 * returns 0. */
int se_json_equal(const json_t *a, const json_t *b, char *path, size_t path_size, char *what,
                  size_t what_size);

#endif
