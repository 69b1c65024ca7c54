/*
 * rederive.c - re-deriving every case's correctness on a CPU (see
 * rederive.h).
 */
#include "bundle/rederive.h"

#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <curand.h>

#include "bundle/fsutil.h"
#include "bundle/paths.h"
#include "model/outliers.h"
#include "model/operation.h"
#include "model/strategy.h"
#include "model/tolerance.h"

void se_check_plan_free(se_check_plan *p)
{
    free(p->row);
    free(p->pos);
    memset(p, 0, sizeof *p);
}

static int in_list(const int64_t *v, size_t n, int64_t x)
{
    for (size_t i = 0; i < n; i++)
        if (v[i] == x)
            return 1;
    return 0;
}

static int cmp_i64(const void *a, const void *b)
{
    int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
    return (x > y) - (x < y);
}

/* Up to want distinct values of 0..count-1 into out: the specials first
 * (those in range, each once), then j * count / want for j = 1, 2, ...,
 * then the smallest unused; sorted. Returns how many. */
static size_t pick(const int64_t *special, size_t n_special, int64_t count, size_t want,
                   int64_t *out)
{
    size_t n = 0;
    if ((int64_t)want > count)
        want = (size_t)count;
    for (size_t i = 0; i < n_special && n < want; i++)
        if (special[i] >= 0 && special[i] < count && !in_list(out, n, special[i]))
            out[n++] = special[i];
    /* j * count / want is increasing in j: only the specials can repeat it. */
    size_t ns = n;
    for (int64_t j = 1; n < want && j < (int64_t)want; j++) {
        int64_t v = (int64_t)((__int128)j * count / (int64_t)want);
        if (!in_list(out, ns, v))
            out[n++] = v;
    }
    qsort(out, n, sizeof *out, cmp_i64);
    size_t have = n, k = 0;
    for (int64_t v = 0; n < want && v < count; v++) {
        while (k < have && out[k] < v)
            k++;
        if (k >= have || out[k] != v)
            out[n++] = v;
    }
    qsort(out, n, sizeof *out, cmp_i64);
    return n;
}

se_status se_check_plan_make(int64_t rows, int64_t cols, uint64_t seed, se_check_plan *p,
                             se_err *err)
{
    memset(p, 0, sizeof *p);
    if (rows < 1 || cols < 1)
        return se_fail(err, SE_ERR_USAGE, "checks: shape %" PRId64 "x%" PRId64 " is empty",
                       rows, cols);
    p->rows = rows;
    p->cols = cols;
    p->whole_rows = cols <= SE_CHECK_SHORT_COLS;
    const int64_t special_rows[3] = {1, 0, rows - 1};
    size_t want = p->whole_rows ? (size_t)(SE_CHECK_ROW_VALUES / cols) : SE_CHECK_LONG_ROWS;
    if (want < 1)
        want = 1;
    if ((int64_t)want > rows)
        want = (size_t)rows;
    p->row = calloc(want, sizeof *p->row);
    if (!p->row)
        return se_fail(err, SE_ERR_NOMEM, "checks: out of memory");
    p->n_rows = pick(special_rows, 3, rows, want, p->row);
    if (p->whole_rows) {
        p->n_values = p->n_rows * (size_t)cols;
        return SE_OK;
    }
    size_t q = SE_CHECK_POS_VALUES / p->n_rows;
    p->pos = calloc(q * p->n_rows, sizeof *p->pos);
    int64_t *colv = calloc(q, sizeof *colv);
    if (!p->pos || !colv) {
        free(colv);
        se_check_plan_free(p);
        return se_fail(err, SE_ERR_NOMEM, "checks: out of memory");
    }
    for (size_t i = 0; i < p->n_rows; i++) {
        int64_t r = p->row[i], special[SE_OUTLIERS + 2];
        for (int k = 0; k < SE_OUTLIERS; k++)
            special[k] = se_outlier_col(seed, r, k, cols);
        special[SE_OUTLIERS] = 0;
        special[SE_OUTLIERS + 1] = cols - 1;
        size_t m = pick(special, SE_OUTLIERS + 2, cols, q, colv);
        for (size_t j = 0; j < m; j++)
            p->pos[p->n_pos++] = r * cols + colv[j];
    }
    free(colv);
    p->n_values = p->n_pos;
    return SE_OK;
}

void se_check_extract(const se_check_plan *p, const float *full, float *out)
{
    if (p->whole_rows) {
        for (size_t i = 0; i < p->n_rows; i++)
            memcpy(out + i * (size_t)p->cols, full + p->row[i] * p->cols,
                   (size_t)p->cols * sizeof *out);
        return;
    }
    for (size_t i = 0; i < p->n_pos; i++)
        out[i] = full[p->pos[i]];
}

/* One row from an open host generator (see se_check_generate_row). */
static se_status generate_row(curandGenerator_t g, uint64_t seed, double scale, int64_t row,
                              int64_t cols, float *out, se_err *err)
{
    size_t n = (size_t)cols + ((size_t)cols & 1u);
    curandStatus_t s = curandSetPseudoRandomGeneratorSeed(g, seed);
    if (s == CURAND_STATUS_SUCCESS)
        s = curandSetGeneratorOffset(g, (unsigned long long)(row * cols));
    if (s == CURAND_STATUS_SUCCESS)
        s = curandGenerateNormal(g, out, n, 0.0f, (float)scale);
    if (s != CURAND_STATUS_SUCCESS)
        return se_fail(err, SE_ERR_CUDA, "checks: cuRAND's host generator failed on row %" PRId64
                       " (status %d)", row, (int)s);
    for (int k = 0; k < SE_OUTLIERS; k++)
        out[se_outlier_col(seed, row, k, cols)] = (float)scale * se_outlier_factor(row, k);
    return SE_OK;
}

static se_status open_generator(curandGenerator_t *g, se_err *err)
{
    curandStatus_t s = curandCreateGeneratorHost(g, CURAND_RNG_PSEUDO_PHILOX4_32_10);
    if (s != CURAND_STATUS_SUCCESS)
        return se_fail(err, SE_ERR_CUDA, "checks: curandCreateGeneratorHost(PHILOX4_32_10) "
                       "failed (status %d)", (int)s);
    return SE_OK;
}

se_status se_check_generate_row(uint64_t seed, double scale, int64_t row, int64_t cols,
                                float *out, se_err *err)
{
    curandGenerator_t g;
    se_status st = open_generator(&g, err);
    if (st != SE_OK)
        return st;
    st = generate_row(g, seed, scale, row, cols, out, err);
    curandDestroyGenerator(g);
    return st;
}

/* A problem, formatted, to the caller and counted. */
typedef struct reporter {
    se_rederive_problem_fn fn;
    void *ctx;
    se_rederive_counts *c;
    const se_remote *remote; /* NULL: every checks/ file is here */
    const se_operation *op;  /* the run's workload */
} reporter;

static void problem(const reporter *r, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static void problem(const reporter *r, const char *fmt, ...)
{
    char msg[600];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    r->c->problems++;
    if (r->fn)
        r->fn(r->ctx, msg);
}

/* Reads a checks file of exactly n floats into a malloc'd buffer, or
 * reports why not and returns NULL. */
static float *read_values(const char *dir, const char *rel, size_t n, const reporter *r)
{
    char *buf = NULL;
    size_t len = 0;
    se_err e = {{0}};
    if (se_read_below(dir, rel, (uint64_t)n * sizeof(float) + 1, &buf, &len, &e) != SE_OK) {
        problem(r, "%s: %s", rel, e.msg);
        return NULL;
    }
    if (len != n * sizeof(float)) {
        problem(r, "%s: %zu bytes, the plan of the shape needs %zu (%zu values)", rel, len,
                n * sizeof(float), n);
        free(buf);
        return NULL;
    }
    return (float *)buf;
}

/* The shape's strategies' stored outputs: y[s] (NULL where absent). */
static void load_outputs(const char *dir, const se_protocol *p, const se_shape *sh,
                         const se_check_plan *plan, float **y, const reporter *r)
{
    for (int s = 0; s < se_protocol_nstrategies(p); s++) {
        y[s] = NULL;
        if (!((p->strategies >> s) & 1u))
            continue;
        char id[SE_CASE_ID_SIZE], rel[SE_CASE_ID_SIZE + 32];
        se_case_id_make(sh->rows, sh->cols, se_protocol_strategy(p, s)->name, id, sizeof id);
        se_path_check_y(id, rel, sizeof rel);
        r->c->cases++;
        y[s] = read_values(dir, rel, plan->n_values, r);
    }
}

/* Checks the values of row `row` (its reference ref[0..cols-1]) that the
 * plan stores, from index *at of y on; *fails per strategy. */
static void check_row(const se_protocol *p, const se_shape *sh, const se_check_plan *plan,
                      size_t ri, const double *ref, float *const *y, size_t *fails,
                      const reporter *r)
{
    int64_t row = plan->row[ri];
    size_t lo = 0, hi = 0;
    if (plan->whole_rows) {
        lo = ri * (size_t)sh->cols;
        hi = lo + (size_t)sh->cols;
    } else {
        while (lo < plan->n_pos && plan->pos[lo] / sh->cols < row)
            lo++;
        for (hi = lo; hi < plan->n_pos && plan->pos[hi] / sh->cols == row; hi++)
            ;
    }
    for (int s = 0; s < se_protocol_nstrategies(p); s++) {
        if (!y[s])
            continue;
        for (size_t k = lo; k < hi; k++) {
            int64_t col = plan->whole_rows ? (int64_t)(k - lo) : plan->pos[k] % sh->cols;
            double want = ref[col];
            r->c->values_checked++;
            if (se_within_tolerance((double)y[s][k], want, p->tol))
                continue;
            r->c->values_failed++;
            if (fails[s]++ < 3)
                problem(r, "checks/%" PRId64 "x%" PRId64 ".%s.y.f32: row %" PRId64 " col %" PRId64
                        ": output %.9g is outside |out - ref| <= %g + %g*|ref| of the float64 "
                        "reference %.17g", sh->rows, sh->cols,
                        se_protocol_strategy(p, s)->name, row, col, (double)y[s][k], want,
                        p->tol.atol, p->tol.rtol);
        }
    }
}

/* Whether any of the shape's checks/ files is remote-only. */
static int shape_remote(const se_protocol *p, const se_shape *sh, const se_remote *remote)
{
    if (!remote)
        return 0;
    char rel[SE_CASE_ID_SIZE + 32], id[SE_CASE_ID_SIZE];
    se_path_check_x(sh->rows, sh->cols, rel, sizeof rel);
    if (se_remote_has(remote, rel))
        return 1;
    for (int s = 0; s < se_protocol_nstrategies(p); s++) {
        if (!((p->strategies >> s) & 1u))
            continue;
        se_case_id_make(sh->rows, sh->cols, se_protocol_strategy(p, s)->name, id, sizeof id);
        se_path_check_y(id, rel, sizeof rel);
        if (se_remote_has(remote, rel))
            return 1;
    }
    return 0;
}

static se_status rederive_shape(const char *dir, const se_protocol *p, const se_shape *sh,
                                curandGenerator_t g, const reporter *r, se_err *err)
{
    if (shape_remote(p, sh, r->remote)) {
        r->c->shapes++;
        for (int s = 0; s < se_protocol_nstrategies(p); s++)
            if ((p->strategies >> s) & 1u) {
                r->c->cases++;
                r->c->cases_remote++;
            }
        return SE_OK;
    }
    se_check_plan plan;
    se_status st = se_check_plan_make(sh->rows, sh->cols, p->seed, &plan, err);
    if (st != SE_OK)
        return st;
    r->c->shapes++;
    if (sh->cols > SE_CHECK_MAX_ROW_COLS) {
        problem(r, "checks: shape %s: rows of %" PRId64 " columns are over the %" PRId64
                " verify regenerates", sh->spec, sh->cols, (int64_t)SE_CHECK_MAX_ROW_COLS);
        se_check_plan_free(&plan);
        return SE_OK;
    }
    float *y[SE_STRATEGY_MAX];
    load_outputs(dir, p, sh, &plan, y, r);
    float *xs = NULL;
    char xrel[160];
    se_path_check_x(sh->rows, sh->cols, xrel, sizeof xrel);
    if (plan.whole_rows)
        xs = read_values(dir, xrel, plan.n_values, r);
    float *x = malloc(((size_t)sh->cols + 1) * sizeof *x);
    double *ref = malloc((size_t)sh->cols * sizeof *ref);
    size_t fails[SE_STRATEGY_MAX] = {0};
    if (!x || !ref)
        st = se_fail(err, SE_ERR_NOMEM, "checks: shape %s: out of memory for a row", sh->spec);
    for (size_t i = 0; i < plan.n_rows && st == SE_OK; i++) {
        st = generate_row(g, p->seed, p->scale, plan.row[i], sh->cols, x, err);
        if (st != SE_OK)
            break;
        r->c->rows_regenerated++;
        if (xs) {
            /* cuRAND's host generator is not the device's to the bit (its
             * normal transform uses the CPU's math library: measured on the
             * H200, docs/VALIDATION.md), so a stored row is the generator's
             * within SE_CHECK_INPUT_TOL of the scale, and the reference is
             * computed from the stored row, the device's own input. */
            const float *xr = xs + i * (size_t)sh->cols;
            double tol = SE_CHECK_INPUT_TOL * p->scale;
            for (int64_t c = 0; c < sh->cols; c++) {
                double d = fabs((double)xr[c] - (double)x[c]);
                if (!(d <= tol)) {
                    problem(r, "%s: row %" PRId64 " col %" PRId64 ": stored input %.9g is not the "
                            "generator's %.9g within %g of the scale (seed %" PRIu64 ", offset %"
                            PRId64 ")", xrel, plan.row[i], c, (double)xr[c], (double)x[c],
                            SE_CHECK_INPUT_TOL, p->seed, plan.row[i] * sh->cols + c);
                    break;
                }
            }
            memcpy(x, xr, (size_t)sh->cols * sizeof *x);
        }
        r->op->reference(x, 1, sh->cols, p->eps, ref);
        check_row(p, sh, &plan, i, ref, y, fails, r);
    }
    for (int s = 0; s < se_protocol_nstrategies(p); s++) {
        r->c->cases_rederived += y[s] != NULL && (!plan.whole_rows || xs != NULL);
        free(y[s]);
    }
    free(xs);
    free(x);
    free(ref);
    se_check_plan_free(&plan);
    return st;
}

se_status se_rederive_dir(const char *dir, const se_protocol *p, const se_operation *op,
                          const se_remote *remote, se_rederive_counts *counts,
                          se_rederive_problem_fn fn, void *ctx, se_err *err)
{
    memset(counts, 0, sizeof *counts);
    curandGenerator_t g;
    se_status st = open_generator(&g, err);
    if (st != SE_OK)
        return st;
    reporter r = {fn, ctx, counts, remote, op ? op : se_operation_default()};
    for (size_t i = 0; i < p->n_shapes && st == SE_OK; i++)
        st = rederive_shape(dir, p, &p->shapes[i], g, &r, err);
    curandDestroyGenerator(g);
    return st;
}
