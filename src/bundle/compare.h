/*
 * compare.h - two or more runs compared case by case (`softmax-evidence
 * compare`, docs/COMPARE.md): each run is verified first; the first run is
 * the baseline A and every other run B is compared with it. Per case
 * present in both, the ratio of median times B/A with a bootstrap 95%
 * interval from the raw samples of both runs (resampled independently:
 * sample k of one run has nothing to do with sample k of the other), and a
 * verdict: faster (interval below 1), slower (above 1) or unchanged. The
 * environment fields that differ come with each pair.
 *
 * The numbers are computed here, once, into one JSON document (the
 * `--format json` output); render/compare_print.c only formats it.
 */
#ifndef SE_BUNDLE_COMPARE_H
#define SE_BUNDLE_COMPARE_H

#include <jansson.h>

#include "model/se_common.h"

#define SE_COMPARE_FORMAT "softmax-evidence-compare"
#define SE_COMPARE_VERSION 1

#define SE_FLOOR_FORMAT "softmax-evidence-noise-floor"

typedef struct se_compare_opts {
    const char *scope;      /* "device" (default), "device_cold", "batch" or "host" */
    double fail_if_slower;  /* percent; < 0: no gate */
    const char *a_set, *b_set; /* run sets (bundle/runset.h): several runs a side, dirs unused */
    const char *floor;      /* a noise floor file (se_compare_record_floor), or NULL */
} se_compare_opts;

/* Verifies every run in dirs (n >= 2; a run that does not verify is
 * refused, naming it and its first problems), loads them and builds the
 * comparison document. Bootstrap: the baseline's protocol resamples, seed
 * se_summary_seed(baseline protocol, "compare:<B run id>:<case>/<scope>").
 * *slower counts the cases, over every pair, that got slower by more than
 * o->fail_if_slower percent with the interval excluding that (the lower
 * bound of the ratio above 1 + pct/100); 0 without a gate. */
se_status se_compare_build(const char *const *dirs, size_t n, const se_compare_opts *o,
                           json_t **out, size_t *slower, se_err *err);

/* `compare --record-floor OUT`: the noise between reruns of one commit, per
 * case present in every run: max / min - 1 of the runs' medians of the
 * scope, in percent (noise_pct), with the medians. The runs: dirs[0..n-1],
 * or the run set file set when it is not NULL; two or more, verified, of
 * one commit (environment source.git_commit and git_dirty), GPU model and
 * workload (se_rundata_same_workload). Written to out_path through a temporary file; *cases
 * receives the count. */
se_status se_compare_record_floor(const char *const *dirs, size_t n, const char *set,
                                  const char *scope, const char *out_path, size_t *cases,
                                  se_err *err);

#endif
