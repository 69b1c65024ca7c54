/*
 * stats.h - timing summaries computed from raw samples: percentiles, mean,
 * standard deviation, a bootstrap 95% interval of the median, and the ratio
 * of two medians with a bootstrap interval. Deterministic: the same samples
 * and seed give the same bits, so `verify` can recompute every summary.
 */
#ifndef SE_STATS_H
#define SE_STATS_H

#include <stddef.h>
#include <stdint.h>

#include "model/se_common.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct se_summary {
    size_t n;
    double median, p5, p25, p75, p95, min, max, mean, stdev;
    double median_ci_lo, median_ci_hi; /* bootstrap 95% percentile interval of the median */
} se_summary;

typedef struct se_ratio {
    double ratio;  /* median(a) / median(b) */
    double lo, hi; /* bootstrap 95% percentile interval */
} se_ratio;

/* The generator behind every bootstrap: xorshift64* seeded through
 * splitmix64 (a zero seed is valid). */
uint64_t se_rng_next(uint64_t *state);
uint64_t se_rng_seed(uint64_t seed);

/* Percentile q (0..100) of n >= 1 sorted values: linear interpolation
 * between closest ranks, h = (n - 1) * q / 100 (Hyndman-Fan type 7, numpy's
 * default). */
double se_percentile_sorted(const double *sorted, size_t n, double q);

/* Median of n >= 1 values (not necessarily sorted; the input is not
 * modified). */
double se_median(const double *values, size_t n);

/* Summarizes n >= 1 samples. The median's interval: `resamples` bootstrap
 * resamples of size n drawn with replacement using se_rng_next from
 * se_rng_seed(seed); the 2.5th and 97.5th percentiles (type 7) of their
 * medians. stdev is the sample standard deviation (n - 1), 0 for n = 1.
 * Fails (SE_ERR_USAGE) for n = 0 or a non-finite sample, naming it. */
se_status se_summarize(const double *samples, size_t n, unsigned resamples, uint64_t seed,
                       se_summary *out, se_err *err);

/* Ratio of medians a / b with a bootstrap interval. When na == nb the
 * bootstrap is paired (one index drawn for both, as samples of the same
 * round were taken together); otherwise a and b are resampled
 * independently, a first. */
se_status se_ratio_of_medians(const double *a, size_t na, const double *b, size_t nb,
                              unsigned resamples, uint64_t seed, se_ratio *out, se_err *err);

/* The same ratio with a and b always resampled independently, a first,
 * whatever their sizes: for samples of two separate runs, where sample k of
 * one has nothing to do with sample k of the other (compare). */
se_status se_ratio_of_medians_independent(const double *a, size_t na, const double *b,
                                          size_t nb, unsigned resamples, uint64_t seed,
                                          se_ratio *out, se_err *err);

/* One run's samples of a ratio's two sides: a[k] and b[k] were taken in
 * round k (paired when na == nb, as in se_ratio_of_medians). */
typedef struct se_run_samples {
    const double *a, *b;
    size_t na, nb;
} se_run_samples;

/* The ratio a / b over k >= 1 separate runs, with a two-level bootstrap
 * 95% interval of what one run shows, so it carries the spread between
 * runs (docs/TIMING.md, "The two-level bootstrap"). The point value is the
 * median (type 7) of the k per-run ratios median(a_j) / median(b_j).
 * Resample r = 0..resamples-1, one generator from se_rng_seed(seed): first
 * k run draws j_i = next() % k, then for i = 0..k-1 in turn a within-run
 * resample of run j_i drawn as se_ratio_of_medians draws one (paired when
 * na == nb, else a then b), whose ratio of medians is t_(r,i). The
 * interval is the 2.5th and 97.5th percentiles of all resamples * k values
 * t_(r,i), sorted: an interval for the ratio of a run, not only of their
 * median, so a held-out run can be checked against it. With k = 1 it is a
 * within-run interval of that run (other draws than se_ratio_of_medians's:
 * the run draw comes first). Fails (SE_ERR_USAGE) on k = 0, an empty or
 * non-finite sample set or a zero median of b. */
se_status se_ratio_two_level(const se_run_samples *runs, size_t k, unsigned resamples,
                             uint64_t seed, se_ratio *out, se_err *err);

/* The 97.5th percentile of Student's t with df >= 1 degrees of freedom:
 * df 1 to 100 from a table (the quantiles to 9 decimals, found by bisection
 * on the t CDF integrated by Simpson's rule; tests/bootstrap/t_quantiles.py
 * recomputes them), beyond it the Cornish-Fisher expansion to 1 / df^3
 * (within 1e-7 there). 0 for df = 0. */
double se_t975(size_t df);

/* The run-level 95% prediction interval of one more run's ratio from k >= 2
 * per-run ratios r_j > 0 (docs/TIMING.md, "The answer's interval"): on
 * L_j = log r_j in order, m = sum L_j / k, s^2 = sum (L_j - m)^2 / (k - 1),
 * h = se_t975(k - 1) * s * sqrt(1 + 1 / k); lo = exp(m - h), hi = exp(m + h).
 * Exact under normal, exchangeable runs; it does not shrink as k grows, as
 * a rerun's spread does not. Fails (SE_ERR_USAGE) on k < 2 or a ratio that
 * is not finite and positive. */
se_status se_run_prediction(const double *ratio, size_t k, double *lo, double *hi, se_err *err);

/* The ratio x / y of two sides of separate runs (compare's several runs a
 * side; docs/COMPARE.md): kx runs of x samples, ky runs of y samples, no
 * pairing. A side's statistic is the median (type 7) of its runs'
 * medians; the point value is that of x over that of y. Resample r, one
 * generator from se_rng_seed(seed): x's kx run draws j_i = next() % kx,
 * then for i = 0..kx-1 in turn nx[j_i] draws next() % nx[j_i] from run
 * j_i, whose median is m_i; x's statistic the median of m_0..m_{kx-1};
 * then y's the same way; t_r their quotient. The interval: the 2.5th and
 * 97.5th percentiles of the sorted t_r. Fails (SE_ERR_USAGE) on an empty
 * side or run, a non-finite sample or a zero statistic of y. */
se_status se_ratio_of_run_sets(const double *const *x, const size_t *nx, size_t kx,
                               const double *const *y, const size_t *ny, size_t ky,
                               unsigned resamples, uint64_t seed, se_ratio *out, se_err *err);

#ifdef __cplusplus
}
#endif

#endif
