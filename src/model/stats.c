/*
 * stats.c - timing summaries (percentiles, mean, standard deviation) and
 * bootstrap 95% intervals of a median and of a ratio of two medians.
 *
 * Every result must be reproducible bit for bit, because `verify` recomputes
 * the summaries of an evidence bundle and compares them. So the generator is
 * fixed (xorshift64* seeded through splitmix64), indices are drawn exactly as
 * se_rng_next(&state) % n, sums run in input order, and every sort uses a
 * total order (-0.0 before +0.0; ties between equal samples broken by index)
 * so the result does not depend on the qsort implementation.
 *
 * A bootstrap resample's median is found without sorting the resample: the
 * samples are ranked once, each draw increments the count of its sample's
 * rank, and a walk over the counts yields the order statistics the type-7
 * median needs. That is O(n) per resample and gives exactly the values that
 * sorting the resample would.
 */
#include "model/stats.h"

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

uint64_t se_rng_seed(uint64_t seed)
{
    uint64_t z = seed + 0x9E3779B97F4A7C15ULL;
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
    z ^= z >> 31;
    /* xorshift64* stays at zero forever; splitmix64 is a bijection, so
     * exactly one seed lands here and gets a fixed non-zero state instead. */
    return z ? z : 0x9E3779B97F4A7C15ULL;
}

uint64_t se_rng_next(uint64_t *state)
{
    uint64_t x = *state;
    x ^= x >> 12;
    x ^= x << 25;
    x ^= x >> 27;
    *state = x;
    return x * 2685821657736338717ULL;
}

/* Total order on doubles: numeric, with -0.0 before +0.0. */
static int cmp_double_values(double x, double y)
{
    if (x < y)
        return -1;
    if (x > y)
        return 1;
    return (signbit(y) != 0) - (signbit(x) != 0);
}

static int cmp_double(const void *pa, const void *pb)
{
    return cmp_double_values(*(const double *)pa, *(const double *)pb);
}

/* Position of type-7 percentile q in n sorted values: index lo and the
 * fraction of the way to lo + 1. Clamped to the ends for q outside 0..100. */
static void type7_position(size_t n, double q, size_t *lo, double *frac)
{
    double h = (double)(n - 1) * q / 100.0;
    if (!(h > 0.0)) {
        *lo = 0;
        *frac = 0.0;
        return;
    }
    if (h >= (double)(n - 1)) {
        *lo = n - 1;
        *frac = 0.0;
        return;
    }
    double fl = floor(h);
    *lo = (size_t)fl;
    *frac = h - fl;
}

/* Interpolates between the order statistics at lo and lo + 1; an exact rank
 * returns its value untouched. */
static double type7_value(double x_lo, double x_hi, double frac)
{
    if (frac == 0.0)
        return x_lo;
    return x_lo + frac * (x_hi - x_lo);
}

double se_percentile_sorted(const double *sorted, size_t n, double q)
{
    if (n == 0 || isnan(q))
        return NAN;
    size_t lo;
    double frac;
    type7_position(n, q, &lo, &frac);
    return type7_value(sorted[lo], frac == 0.0 ? sorted[lo] : sorted[lo + 1], frac);
}

/* malloc of count elements of size bytes, NULL on overflow or failure. */
static void *alloc_array(size_t count, size_t size)
{
    if (count == 0)
        count = 1;
    if (count > SIZE_MAX / size)
        return NULL;
    return malloc(count * size);
}

double se_median(const double *values, size_t n)
{
    if (n == 0)
        return NAN;
    double stack_copy[256];
    double *copy = n <= sizeof stack_copy / sizeof stack_copy[0]
                       ? stack_copy
                       : alloc_array(n, sizeof *copy);
    if (!copy)
        return NAN;
    memcpy(copy, values, n * sizeof *copy);
    qsort(copy, n, sizeof *copy, cmp_double);
    double m = se_percentile_sorted(copy, n, 50.0);
    if (copy != stack_copy)
        free(copy);
    return m;
}

/* Fails naming the first empty or non-finite sample set; what names the set
 * in the message ("samples", "a", "b"). */
static se_status check_samples(const double *x, size_t n, const char *what, se_err *err)
{
    if (n == 0)
        return se_fail(err, SE_ERR_USAGE, "stats: %s: no samples (n = 0); need at least one",
                       what);
    for (size_t i = 0; i < n; i++)
        if (!isfinite(x[i]))
            return se_fail(err, SE_ERR_USAGE, "stats: %s[%zu] = %g is not a finite number", what,
                           i, x[i]);
    return SE_OK;
}

/* A sample set ranked once for O(n) resample medians: sorted values, the
 * rank of each original index in that order, and a count per rank. */
typedef struct ranked {
    size_t n;
    double *sorted;
    size_t *rank;
    size_t *count;
} ranked;

/* A sample and its original index, for ranking. */
typedef struct indexed {
    double v;
    size_t i;
} indexed;

static int cmp_indexed(const void *pa, const void *pb)
{
    const indexed *a = pa, *b = pb;
    int c = cmp_double_values(a->v, b->v);
    if (c)
        return c;
    return (a->i > b->i) - (a->i < b->i);
}

static void ranked_free(ranked *r)
{
    free(r->sorted);
    free(r->rank);
    free(r->count);
    memset(r, 0, sizeof *r);
}

static se_status ranked_init(ranked *r, const double *x, size_t n, se_err *err)
{
    memset(r, 0, sizeof *r);
    r->n = n;
    r->sorted = alloc_array(n, sizeof *r->sorted);
    r->rank = alloc_array(n, sizeof *r->rank);
    r->count = alloc_array(n, sizeof *r->count);
    indexed *order = alloc_array(n, sizeof *order);
    if (!r->sorted || !r->rank || !r->count || !order) {
        free(order);
        ranked_free(r);
        return se_fail(err, SE_ERR_NOMEM, "stats: cannot allocate bootstrap buffers for %zu samples",
                       n);
    }
    for (size_t i = 0; i < n; i++) {
        order[i].v = x[i];
        order[i].i = i;
    }
    qsort(order, n, sizeof *order, cmp_indexed);
    for (size_t k = 0; k < n; k++) {
        r->sorted[k] = order[k].v;
        r->rank[order[k].i] = k;
    }
    free(order);
    memset(r->count, 0, n * sizeof *r->count);
    return SE_OK;
}

/* Records one draw of original index i. */
static void ranked_draw(ranked *r, size_t i)
{
    r->count[r->rank[i]]++;
}

/* Type-7 median of the n values drawn since the last call, then clears the
 * counts. Equal to sorting the drawn values and taking se_percentile_sorted
 * at q = 50. */
static double ranked_take_median(ranked *r)
{
    size_t lo;
    double frac;
    type7_position(r->n, 50.0, &lo, &frac);
    size_t hi = frac == 0.0 ? lo : lo + 1;
    double x_lo = 0.0, x_hi = 0.0;
    size_t seen = 0;
    int have_lo = 0;
    for (size_t k = 0; k < r->n; k++) {
        seen += r->count[k];
        if (!have_lo && seen > lo) {
            x_lo = r->sorted[k];
            have_lo = 1;
        }
        if (seen > hi) {
            x_hi = r->sorted[k];
            break;
        }
    }
    memset(r->count, 0, r->n * sizeof *r->count);
    return type7_value(x_lo, x_hi, frac);
}

/* Sorts the resample statistics and stores their 2.5th and 97.5th
 * percentiles. */
static void percentile_interval(double *stats, size_t m, double *lo, double *hi)
{
    qsort(stats, m, sizeof *stats, cmp_double);
    *lo = se_percentile_sorted(stats, m, 2.5);
    *hi = se_percentile_sorted(stats, m, 97.5);
}

se_status se_summarize(const double *samples, size_t n, unsigned resamples, uint64_t seed,
                       se_summary *out, se_err *err)
{
    se_status st = check_samples(samples, n, "samples", err);
    if (st != SE_OK)
        return st;

    ranked r;
    st = ranked_init(&r, samples, n, err);
    if (st != SE_OK)
        return st;
    double *medians = NULL;
    if (resamples > 0) {
        medians = alloc_array(resamples, sizeof *medians);
        if (!medians) {
            ranked_free(&r);
            return se_fail(err, SE_ERR_NOMEM, "stats: cannot allocate %u bootstrap medians",
                           resamples);
        }
    }

    se_summary s;
    memset(&s, 0, sizeof s);
    s.n = n;
    s.min = r.sorted[0];
    s.max = r.sorted[n - 1];
    s.median = se_percentile_sorted(r.sorted, n, 50.0);
    s.p5 = se_percentile_sorted(r.sorted, n, 5.0);
    s.p25 = se_percentile_sorted(r.sorted, n, 25.0);
    s.p75 = se_percentile_sorted(r.sorted, n, 75.0);
    s.p95 = se_percentile_sorted(r.sorted, n, 95.0);

    double sum = 0.0;
    for (size_t i = 0; i < n; i++)
        sum += samples[i];
    s.mean = sum / (double)n;
    if (n > 1) {
        double ss = 0.0;
        for (size_t i = 0; i < n; i++) {
            double d = samples[i] - s.mean;
            ss += d * d;
        }
        s.stdev = sqrt(ss / (double)(n - 1));
    }

    if (resamples == 0) {
        s.median_ci_lo = s.median;
        s.median_ci_hi = s.median;
    } else {
        uint64_t state = se_rng_seed(seed);
        for (unsigned b = 0; b < resamples; b++) {
            for (size_t k = 0; k < n; k++)
                ranked_draw(&r, (size_t)(se_rng_next(&state) % n));
            medians[b] = ranked_take_median(&r);
        }
        percentile_interval(medians, resamples, &s.median_ci_lo, &s.median_ci_hi);
    }

    free(medians);
    ranked_free(&r);
    *out = s;
    return SE_OK;
}

static se_status ratio_of_medians(const double *a, size_t na, const double *b, size_t nb,
                                  int paired, unsigned resamples, uint64_t seed, se_ratio *out,
                                  se_err *err)
{
    se_status st = check_samples(a, na, "a", err);
    if (st != SE_OK)
        return st;
    st = check_samples(b, nb, "b", err);
    if (st != SE_OK)
        return st;

    ranked ra, rb;
    st = ranked_init(&ra, a, na, err);
    if (st != SE_OK)
        return st;
    st = ranked_init(&rb, b, nb, err);
    if (st != SE_OK) {
        ranked_free(&ra);
        return st;
    }

    se_ratio res;
    double med_a = se_percentile_sorted(ra.sorted, na, 50.0);
    double med_b = se_percentile_sorted(rb.sorted, nb, 50.0);
    if (med_b == 0.0) {
        st = se_fail(err, SE_ERR_USAGE,
                     "stats: ratio of medians: median of b is 0 (over %zu samples); the ratio is "
                     "undefined",
                     nb);
        goto done;
    }
    res.ratio = med_a / med_b;
    res.lo = res.ratio;
    res.hi = res.ratio;

    if (resamples > 0) {
        double *ratios = alloc_array(resamples, sizeof *ratios);
        if (!ratios) {
            st = se_fail(err, SE_ERR_NOMEM, "stats: cannot allocate %u bootstrap ratios",
                         resamples);
            goto done;
        }
        uint64_t state = se_rng_seed(seed);
        for (unsigned k = 0; k < resamples; k++) {
            if (paired) {
                for (size_t j = 0; j < na; j++) {
                    size_t i = (size_t)(se_rng_next(&state) % na);
                    ranked_draw(&ra, i);
                    ranked_draw(&rb, i);
                }
            } else {
                for (size_t j = 0; j < na; j++)
                    ranked_draw(&ra, (size_t)(se_rng_next(&state) % na));
                for (size_t j = 0; j < nb; j++)
                    ranked_draw(&rb, (size_t)(se_rng_next(&state) % nb));
            }
            double ma = ranked_take_median(&ra);
            double mb = ranked_take_median(&rb);
            ratios[k] = ma / mb;
            if (!isfinite(ratios[k])) {
                st = se_fail(err, SE_ERR_USAGE,
                             "stats: ratio of medians: bootstrap resample %u (seed %llu) has "
                             "median(a) = %g, median(b) = %g; the ratio is not finite",
                             k, (unsigned long long)seed, ma, mb);
                free(ratios);
                goto done;
            }
        }
        percentile_interval(ratios, resamples, &res.lo, &res.hi);
        free(ratios);
    }
    *out = res;

done:
    ranked_free(&ra);
    ranked_free(&rb);
    return st;
}

se_status se_ratio_of_medians(const double *a, size_t na, const double *b, size_t nb,
                              unsigned resamples, uint64_t seed, se_ratio *out, se_err *err)
{
    return ratio_of_medians(a, na, b, nb, na == nb, resamples, seed, out, err);
}

se_status se_ratio_of_medians_independent(const double *a, size_t na, const double *b,
                                          size_t nb, unsigned resamples, uint64_t seed,
                                          se_ratio *out, se_err *err)
{
    return ratio_of_medians(a, na, b, nb, 0, resamples, seed, out, err);
}

/* One resample of a run's ratio of medians, drawn from *state as
 * ratio_of_medians draws one. */
static double draw_run_ratio(ranked *ra, ranked *rb, uint64_t *state)
{
    size_t na = ra->n, nb = rb->n;
    if (na == nb) {
        for (size_t j = 0; j < na; j++) {
            size_t i = (size_t)(se_rng_next(state) % na);
            ranked_draw(ra, i);
            ranked_draw(rb, i);
        }
    } else {
        for (size_t j = 0; j < na; j++)
            ranked_draw(ra, (size_t)(se_rng_next(state) % na));
        for (size_t j = 0; j < nb; j++)
            ranked_draw(rb, (size_t)(se_rng_next(state) % nb));
    }
    double ma = ranked_take_median(ra);
    return ma / ranked_take_median(rb);
}

se_status se_ratio_two_level(const se_run_samples *runs, size_t k, unsigned resamples,
                             uint64_t seed, se_ratio *out, se_err *err)
{
    if (k == 0)
        return se_fail(err, SE_ERR_USAGE, "stats: two-level bootstrap: no runs (k = 0)");
    for (size_t j = 0; j < k; j++) {
        char what[48];
        snprintf(what, sizeof what, "run %zu: a", j);
        se_status st = check_samples(runs[j].a, runs[j].na, what, err);
        if (st == SE_OK) {
            snprintf(what, sizeof what, "run %zu: b", j);
            st = check_samples(runs[j].b, runs[j].nb, what, err);
        }
        if (st != SE_OK)
            return st;
    }
    ranked *ra = alloc_array(k, sizeof *ra), *rb = alloc_array(k, sizeof *rb);
    double *per_run = alloc_array(k, sizeof *per_run);
    double *stats = resamples <= SIZE_MAX / sizeof(double) / k
                        ? alloc_array((size_t)resamples * k, sizeof *stats)
                        : NULL;
    size_t *pick = alloc_array(k, sizeof *pick);
    size_t ready = 0;
    se_status st = SE_OK;
    if (!ra || !rb || !per_run || !stats || !pick)
        st = se_fail(err, SE_ERR_NOMEM, "stats: cannot allocate a two-level bootstrap of %zu runs",
                     k);
    for (; st == SE_OK && ready < k; ready++) {
        st = ranked_init(&ra[ready], runs[ready].a, runs[ready].na, err);
        if (st == SE_OK) {
            st = ranked_init(&rb[ready], runs[ready].b, runs[ready].nb, err);
            if (st != SE_OK)
                ranked_free(&ra[ready]);
        }
        if (st != SE_OK)
            break;
        double mb = se_percentile_sorted(rb[ready].sorted, rb[ready].n, 50.0);
        if (mb == 0.0) {
            st = se_fail(err, SE_ERR_USAGE, "stats: two-level bootstrap: run %zu: median of b is "
                         "0; the ratio is undefined", ready);
            ranked_free(&ra[ready]);
            ranked_free(&rb[ready]);
            break;
        }
        per_run[ready] = se_percentile_sorted(ra[ready].sorted, ra[ready].n, 50.0) / mb;
    }
    se_ratio res;
    if (st == SE_OK) {
        res.ratio = se_median(per_run, k);
        res.lo = res.hi = res.ratio;
    }
    if (st == SE_OK && resamples > 0) {
        uint64_t state = se_rng_seed(seed);
        for (unsigned r = 0; r < resamples && st == SE_OK; r++) {
            for (size_t i = 0; i < k; i++)
                pick[i] = (size_t)(se_rng_next(&state) % k);
            for (size_t i = 0; i < k; i++) {
                double t = draw_run_ratio(&ra[pick[i]], &rb[pick[i]], &state);
                stats[(size_t)r * k + i] = t;
                if (!isfinite(t)) {
                    st = se_fail(err, SE_ERR_USAGE, "stats: two-level bootstrap: resample %u "
                                 "(seed %llu), run %zu: the ratio is not finite", r,
                                 (unsigned long long)seed, pick[i]);
                    break;
                }
            }
        }
        if (st == SE_OK)
            percentile_interval(stats, (size_t)resamples * k, &res.lo, &res.hi);
    }
    if (st == SE_OK)
        *out = res;
    for (size_t j = 0; j < ready; j++) {
        ranked_free(&ra[j]);
        ranked_free(&rb[j]);
    }
    free(ra);
    free(rb);
    free(per_run);
    free(stats);
    free(pick);
    return st;
}

/* One side of se_ratio_of_run_sets: its runs ranked, and scratch space. */
typedef struct run_side {
    size_t k, ready;
    ranked *runs;
    double *medians; /* each run's own median */
    double *scratch; /* a resample's run medians */
    size_t *pick;
} run_side;

static void run_side_free(run_side *s)
{
    for (size_t j = 0; j < s->ready; j++)
        ranked_free(&s->runs[j]);
    free(s->runs);
    free(s->medians);
    free(s->scratch);
    free(s->pick);
    memset(s, 0, sizeof *s);
}

static se_status run_side_init(run_side *s, const double *const *v, const size_t *n, size_t k,
                               const char *name, se_err *err)
{
    memset(s, 0, sizeof *s);
    if (k == 0)
        return se_fail(err, SE_ERR_USAGE, "stats: run sets: side %s has no runs", name);
    s->k = k;
    s->runs = alloc_array(k, sizeof *s->runs);
    s->medians = alloc_array(k, sizeof *s->medians);
    s->scratch = alloc_array(k, sizeof *s->scratch);
    s->pick = alloc_array(k, sizeof *s->pick);
    if (!s->runs || !s->medians || !s->scratch || !s->pick) {
        run_side_free(s);
        return se_fail(err, SE_ERR_NOMEM, "stats: cannot allocate run sets of %zu runs", k);
    }
    se_status st = SE_OK;
    for (size_t j = 0; j < k && st == SE_OK; j++) {
        char what[48];
        snprintf(what, sizeof what, "%s run %zu", name, j);
        st = check_samples(v[j], n[j], what, err);
        if (st == SE_OK)
            st = ranked_init(&s->runs[j], v[j], n[j], err);
        if (st == SE_OK) {
            s->medians[j] = se_percentile_sorted(s->runs[j].sorted, n[j], 50.0);
            s->ready++;
        }
    }
    if (st != SE_OK)
        run_side_free(s);
    return st;
}

/* The side's statistic over its own runs (draw = 0) or over one resample. */
static double run_side_statistic(run_side *s, int draw, uint64_t *state)
{
    if (!draw)
        return se_median(s->medians, s->k);
    double *m = s->scratch;
    for (size_t i = 0; i < s->k; i++)
        s->pick[i] = (size_t)(se_rng_next(state) % s->k);
    for (size_t i = 0; i < s->k; i++) {
        ranked *r = &s->runs[s->pick[i]];
        for (size_t j = 0; j < r->n; j++)
            ranked_draw(r, (size_t)(se_rng_next(state) % r->n));
        m[i] = ranked_take_median(r);
    }
    return se_median(m, s->k);
}

se_status se_ratio_of_run_sets(const double *const *x, const size_t *nx, size_t kx,
                               const double *const *y, const size_t *ny, size_t ky,
                               unsigned resamples, uint64_t seed, se_ratio *out, se_err *err)
{
    run_side sx, sy;
    se_status st = run_side_init(&sx, x, nx, kx, "x", err);
    if (st != SE_OK)
        return st;
    st = run_side_init(&sy, y, ny, ky, "y", err);
    if (st != SE_OK) {
        run_side_free(&sx);
        return st;
    }
    double *t = resamples ? alloc_array(resamples, sizeof *t) : NULL;
    se_ratio res;
    double my = run_side_statistic(&sy, 0, NULL);
    if (my == 0.0)
        st = se_fail(err, SE_ERR_USAGE, "stats: run sets: the median of y's run medians is 0; "
                     "the ratio is undefined");
    else if (resamples && !t)
        st = se_fail(err, SE_ERR_NOMEM, "stats: cannot allocate %u bootstrap ratios", resamples);
    if (st == SE_OK) {
        res.ratio = run_side_statistic(&sx, 0, NULL) / my;
        res.lo = res.hi = res.ratio;
        uint64_t state = se_rng_seed(seed);
        for (unsigned r = 0; r < resamples && st == SE_OK; r++) {
            double a = run_side_statistic(&sx, 1, &state);
            double b = run_side_statistic(&sy, 1, &state);
            t[r] = a / b;
            if (!isfinite(t[r]))
                st = se_fail(err, SE_ERR_USAGE, "stats: run sets: bootstrap resample %u (seed "
                             "%llu): %g / %g is not finite", r, (unsigned long long)seed, a, b);
        }
        if (st == SE_OK && resamples)
            percentile_interval(t, resamples, &res.lo, &res.hi);
    }
    if (st == SE_OK)
        *out = res;
    free(t);
    run_side_free(&sx);
    run_side_free(&sy);
    return st;
}

/* t(0.975, df) for df = 1..100: bisection on the t CDF, integrated by
 * Simpson's rule in float64 (tests/bootstrap/t_quantiles.py does it again
 * and compares); df 1 and 2 agree with their closed forms, tan(0.475 pi)
 * and sqrt(2 / (4 * 0.975 * 0.025) - 2), to 1e-12. */
static const double t975_table[100] = {
    12.706204736, 4.302652730, 3.182446305, 2.776445105, 2.570581836,
    2.446911851, 2.364624252, 2.306004135, 2.262157163, 2.228138852,
    2.200985160, 2.178812830, 2.160368656, 2.144786688, 2.131449546,
    2.119905299, 2.109815578, 2.100922040, 2.093024054, 2.085963447,
    2.079613845, 2.073873068, 2.068657610, 2.063898562, 2.059538553,
    2.055529439, 2.051830516, 2.048407142, 2.045229642, 2.042272456,
    2.039513446, 2.036933343, 2.034515297, 2.032244509, 2.030107928,
    2.028094001, 2.026192463, 2.024394164, 2.022690920, 2.021075390,
    2.019540970, 2.018081703, 2.016692199, 2.015367574, 2.014103389,
    2.012895599, 2.011740514, 2.010634758, 2.009575237, 2.008559112,
    2.007583770, 2.006646805, 2.005745995, 2.004879288, 2.004044783,
    2.003240719, 2.002465459, 2.001717484, 2.000995378, 2.000297822,
    1.999623585, 1.998971517, 1.998340543, 1.997729654, 1.997137908,
    1.996564419, 1.996008354, 1.995468931, 1.994945415, 1.994437112,
    1.993943368, 1.993463567, 1.992997126, 1.992543495, 1.992102154,
    1.991672610, 1.991254395, 1.990847069, 1.990450210, 1.990063421,
    1.989686323, 1.989318557, 1.988959780, 1.988609667, 1.988267907,
    1.987934206, 1.987608282, 1.987289865, 1.986978700, 1.986674541,
    1.986377154, 1.986086317, 1.985801814, 1.985523442, 1.985251004,
    1.984984312, 1.984723186, 1.984467455, 1.984216952, 1.983971519,
};

double se_t975(size_t df)
{
    if (df == 0)
        return 0.0;
    if (df <= 100)
        return t975_table[df - 1];
    const double z = 1.959963984540054; /* the normal's 97.5th percentile */
    double v = (double)df, z2 = z * z;
    return z + z * (z2 + 1.0) / (4.0 * v) + z * ((5.0 * z2 + 16.0) * z2 + 3.0) / (96.0 * v * v) +
           z * (((3.0 * z2 + 19.0) * z2 + 17.0) * z2 - 15.0) / (384.0 * v * v * v);
}

se_status se_run_prediction(const double *ratio, size_t k, double *lo, double *hi, se_err *err)
{
    if (k < 2)
        return se_fail(err, SE_ERR_USAGE, "stats: a run-level prediction needs 2 runs or more, "
                       "got %zu", k);
    double sum = 0.0;
    for (size_t j = 0; j < k; j++) {
        if (!(isfinite(ratio[j]) && ratio[j] > 0.0))
            return se_fail(err, SE_ERR_USAGE, "stats: run-level prediction: run %zu's ratio %g is "
                           "not finite and positive", j, ratio[j]);
        sum += log(ratio[j]);
    }
    double m = sum / (double)k, ss = 0.0;
    for (size_t j = 0; j < k; j++) {
        double d = log(ratio[j]) - m;
        ss += d * d;
    }
    double h = se_t975(k - 1) * sqrt(ss / (double)(k - 1)) * sqrt(1.0 + 1.0 / (double)k);
    *lo = exp(m - h);
    *hi = exp(m + h);
    return SE_OK;
}
