/*
 * verify_arrays.c - verify's re-check of a validation record from its saved
 * arrays, streamed (see verify_internal.h): the output and the input are
 * read in chunks of SE_RECHECK_CHUNK elements, each output element compared
 * with the float64 reference of its input element as it comes, the
 * reference computed from per-row statistics (the run's workload's
 * streamed reference, model/operation.h: bit for bit what the run computed). No array, and no
 * reference, is held whole: memory is bounded by the chunks and by the row
 * statistics kept for the next output of the same input (at most
 * SE_RECHECK_STATS_MAX bytes), whatever size the protocol's shape claims.
 */
#define _POSIX_C_SOURCE 200809L
#include "bundle/verify_internal.h"

#include <errno.h>
#include <inttypes.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <jansson.h>

#include "bundle/fsutil.h"
#include "bundle/paths.h"
#include "bundle/sha256.h"
#include "model/json.h"
#include "model/operation.h"
#include "model/tolerance.h"

/* Elements read at a time (1 MiB of floats per buffer). */
#define SE_RECHECK_CHUNK ((size_t)1 << 18)
/* The most bytes of row statistics kept for the next output of one input. */
#define SE_RECHECK_STATS_MAX ((size_t)64 << 20)

struct verify_recheck {
    verify_ctx *v;
    const se_protocol *p;
    int64_t rows, cols;
    uint64_t n, done;          /* elements: of the array, compared so far */
    const float *x_mem;        /* the input in memory (an archive's), or NULL */
    int x_fd;                  /* else the input's file */
    float *xbuf, *ybuf, *sbuf; /* chunks: input, output, input for row statistics */
    size_t ybytes;             /* bytes of ybuf filled (fed in blocks of any size) */
    se_sha256_stream *hx, *hy; /* NULL where the caller has the hash */
    se_compare cmp;
    const se_operation *op;    /* the run's workload */
    int64_t row;               /* the row whose statistics are in cur, -1 for none */
    se_op_row cur;
    se_status st;
    char why[300];
};

void verify_ref_cache_free(verify_ctx *v)
{
    free(v->stats);
    v->stats = NULL;
    v->stats_done = 0;
    v->stats_key[0] = '\0';
}

se_status verify_array_bytes(verify_ctx *v, const se_shape *sh, const char *where,
                             uint64_t *bytes)
{
    int64_t rows = sh->rows, cols = sh->cols;
    if (rows < 1 || cols < 1 || (uint64_t)rows > SE_ARRAY_MAX_BYTES / sizeof(float) / (uint64_t)cols) {
        char limit[32];
        snprintf(limit, sizeof limit, "%" PRIu64, SE_ARRAY_MAX_BYTES);
        verify_problem(v, "%s: the shape's arrays are over the %s bytes verify re-checks", where,
                limit);
        return SE_ERR_LIMIT;
    }
    *bytes = (uint64_t)rows * (uint64_t)cols * sizeof(float);
    return SE_OK;
}

/* Reads n bytes of fd at off into buf. */
static se_status read_at(int fd, uint64_t off, void *buf, size_t n, const char *rel, se_err *err)
{
    size_t got = 0;
    while (got < n) {
        ssize_t r = pread(fd, (char *)buf + got, n - got, (off_t)(off + got));
        if (r < 0 && errno == EINTR)
            continue;
        if (r < 0)
            return se_fail(err, SE_ERR_IO, "%s: %s", rel, strerror(errno));
        if (r == 0)
            return se_fail(err, SE_ERR_IO, "%s: ends at byte %" PRIu64 " (it shrank while read)",
                           rel, off + got);
        got += (size_t)r;
    }
    return SE_OK;
}

verify_recheck *verify_recheck_begin(verify_ctx *v, const se_protocol *p, const se_shape *sh,
                                     const float *x_mem, int x_fd, const char *x_key, int hash_x,
                                     int hash_y)
{
    verify_recheck *rc = calloc(1, sizeof *rc);
    if (!rc)
        return NULL;
    rc->v = v;
    rc->p = p;
    rc->rows = sh->rows;
    rc->cols = sh->cols;
    rc->n = (uint64_t)sh->rows * (uint64_t)sh->cols;
    rc->x_mem = x_mem;
    rc->x_fd = x_fd;
    rc->row = -1;
    rc->op = se_rundata_operation(&v->rd);
    rc->xbuf = malloc(SE_RECHECK_CHUNK * sizeof(float));
    rc->ybuf = malloc(SE_RECHECK_CHUNK * sizeof(float));
    rc->sbuf = malloc(SE_RECHECK_CHUNK * sizeof(float));
    rc->hx = hash_x ? se_sha256_begin() : NULL;
    rc->hy = hash_y ? se_sha256_begin() : NULL;
    se_compare_begin(&rc->cmp);
    if (!rc->xbuf || !rc->ybuf || !rc->sbuf || (hash_x && !rc->hx) || (hash_y && !rc->hy)) {
        verify_recheck_free(rc);
        return NULL;
    }
    /* The row statistics of this input, kept for its next output: the key
     * names the input's bytes (its file's identity, or its hash), the shape
     * and eps. */
    char key[sizeof v->stats_key];
    snprintf(key, sizeof key, "%.200s|%" PRId64 "x%" PRId64 "|%a", x_key, sh->rows, sh->cols,
             p->eps);
    if (strcmp(key, v->stats_key) != 0) {
        verify_ref_cache_free(v);
        if ((uint64_t)sh->rows <= SE_RECHECK_STATS_MAX / sizeof(se_op_row) &&
            (v->stats = malloc((size_t)sh->rows * sizeof(se_op_row))) != NULL)
            snprintf(v->stats_key, sizeof v->stats_key, "%s", key);
    }
    return rc;
}

void verify_recheck_free(verify_recheck *rc)
{
    if (!rc)
        return;
    se_sha256_free(rc->hx);
    se_sha256_free(rc->hy);
    free(rc->xbuf);
    free(rc->ybuf);
    free(rc->sbuf);
    free(rc);
}

/* The statistics of row r into rc->cur: kept ones, else over the input's
 * row (in memory, or read again in chunks), kept for the next output when
 * rows come in order. */
static se_status row_stats(verify_recheck *rc, int64_t r, se_err *err)
{
    verify_ctx *v = rc->v;
    rc->row = r;
    if (v->stats && (size_t)r < v->stats_done) {
        rc->cur = v->stats[r];
        return SE_OK;
    }
    se_op_row *st = &rc->cur;
    const se_operation *op = rc->op;
    op->row_begin(st);
    uint64_t base = (uint64_t)r * (uint64_t)rc->cols;
    for (int pass = 0; pass < op->row_passes; pass++) {
        for (uint64_t c = 0; c < (uint64_t)rc->cols;) {
            size_t k = (uint64_t)rc->cols - c < SE_RECHECK_CHUNK ? (size_t)((uint64_t)rc->cols - c)
                                                                 : SE_RECHECK_CHUNK;
            const float *xs = rc->x_mem ? rc->x_mem + base + c : rc->sbuf;
            if (!rc->x_mem) {
                se_status s = read_at(rc->x_fd, (base + c) * sizeof(float), rc->sbuf,
                                      k * sizeof(float), "the input", err);
                if (s != SE_OK)
                    return s;
            }
            op->row_pass(st, pass, xs, (int64_t)k);
            c += k;
        }
        op->row_end_pass(st, pass, rc->cols, rc->p->eps);
    }
    if (v->stats && (size_t)r == v->stats_done)
        v->stats[v->stats_done++] = *st;
    return SE_OK;
}

/* Compares n output elements ys with the reference of the input elements
 * xs (the same positions, from rc->done on). */
static se_status compare_chunk(verify_recheck *rc, const float *xs, const float *ys, size_t n,
                               se_err *err)
{
    for (size_t k = 0; k < n; k++) {
        uint64_t i = rc->done + k;
        int64_t r = (int64_t)(i / (uint64_t)rc->cols);
        if (r != rc->row) {
            se_status st = row_stats(rc, r, err);
            if (st != SE_OK)
                return st;
        }
        se_compare_add(&rc->cmp, (int64_t)i, (double)ys[k],
                       rc->op->row_value(&rc->cur, xs[k], (int64_t)(i % (uint64_t)rc->cols)),
                       rc->p->tol);
    }
    rc->done += n;
    return SE_OK;
}

/* The filled part of ybuf, against the input at the same positions. */
static se_status flush(verify_recheck *rc, se_err *err)
{
    size_t n = rc->ybytes / sizeof(float);
    rc->ybytes = 0;
    if (n == 0)
        return SE_OK;
    if (rc->done + n > rc->n)
        return se_fail(err, SE_ERR_VALIDATION, "more elements than the shape's %" PRIu64, rc->n);
    const float *xs = rc->x_mem ? rc->x_mem + rc->done : rc->xbuf;
    if (!rc->x_mem) {
        se_status st = read_at(rc->x_fd, rc->done * sizeof(float), rc->xbuf, n * sizeof(float),
                               "the input", err);
        if (st != SE_OK)
            return st;
    }
    if (rc->hx)
        se_sha256_update(rc->hx, xs, n * sizeof(float));
    if (rc->hy)
        se_sha256_update(rc->hy, rc->ybuf, n * sizeof(float));
    return compare_chunk(rc, xs, rc->ybuf, n, err);
}

se_status verify_recheck_feed(verify_recheck *rc, const void *data, size_t n, se_err *err)
{
    const unsigned char *b = data;
    while (n > 0) {
        size_t room = SE_RECHECK_CHUNK * sizeof(float) - rc->ybytes, k = n < room ? n : room;
        memcpy((unsigned char *)rc->ybuf + rc->ybytes, b, k);
        rc->ybytes += k;
        b += k;
        n -= k;
        if (rc->ybytes == SE_RECHECK_CHUNK * sizeof(float)) {
            se_status st = flush(rc, err);
            if (st != SE_OK)
                return st;
        }
    }
    return SE_OK;
}

/* The record c's hashes, counts and max errors against the recomputed ones. */
static void judge(verify_ctx *v, const json_t *c, const char *where, const char *hx,
                  const char *hy, const char *xrel, const char *yrel, const se_compare *cmp)
{
    se_err e = {{0}};
    const char *in_sha = json_string_value(json_object_get(c, "input_sha256"));
    const char *out_sha = json_string_value(json_object_get(c, "output_sha256"));
    if (!in_sha || strcmp(hx, in_sha) != 0)
        verify_problem(v, "%s: field 'input_sha256' does not match %s", where, xrel);
    if (!out_sha || strcmp(hy, out_sha) != 0)
        verify_problem(v, "%s: field 'output_sha256' does not match %s", where, yrel);
    json_int_t elements, fails, nan, tiny;
    double max_abs, max_rel;
    int saved_pass;
    if (se_json_get_int(c, "elements", 0, INT64_MAX, &elements, where, &e) != SE_OK ||
        se_json_get_int(c, "fails", 0, INT64_MAX, &fails, where, &e) != SE_OK ||
        se_json_get_int(c, "nan", 0, INT64_MAX, &nan, where, &e) != SE_OK ||
        se_json_get_int(c, "tiny", 0, INT64_MAX, &tiny, where, &e) != SE_OK ||
        se_json_get_real(c, "max_abs_err", &max_abs, where, &e) != SE_OK ||
        se_json_get_real(c, "max_rel_err", &max_rel, where, &e) != SE_OK ||
        se_json_get_bool(c, "pass", &saved_pass, where, &e) != SE_OK) {
        verify_type_problem(v, &e);
        return;
    }
    static const char *const names[6] = {"elements", "fails", "nan", "tiny", "max_abs_err",
                                         "max_rel_err"};
    double saved[6] = {(double)elements, (double)fails, (double)nan, (double)tiny, max_abs, max_rel};
    double again[6] = {(double)cmp->n, (double)cmp->n_fail, (double)cmp->n_nan,
                       (double)cmp->n_tiny, cmp->max_abs_err, cmp->max_rel_err};
    for (int k = 0; k < 6; k++)
        if (saved[k] != again[k]) {
            char what[200];
            snprintf(what, sizeof what, "%s': saved %.17g, recomputed from the arrays %.17g",
                     names[k], saved[k], again[k]);
            verify_problem(v, "%s: field '%s", where, what);
        }
    if (se_compare_passed(cmp) != (cmp->n_fail == 0) || (!se_compare_passed(cmp) && saved_pass))
        verify_problem(v, "%s: field 'fails'/'pass' disagrees with the arrays recomputed against "
                "the tolerances", where, "");
}

/* The hash a stream computed, or the caller's. */
static se_status hash_of(se_sha256_stream **s, const char *given, char hex[65], se_err *err)
{
    if (!*s) {
        snprintf(hex, 65, "%s", given ? given : "");
        return SE_OK;
    }
    unsigned char d[32];
    se_status st = se_sha256_end(*s, d, err);
    *s = NULL;
    if (st == SE_OK)
        se_hex32(d, hex);
    return st;
}

void verify_recheck_end(verify_recheck *rc, const json_t *c, const char *where, const char *xrel,
                        const char *yrel, const char *x_hex, const char *y_hex)
{
    se_err e = {{0}};
    char hx[65], hy[65];
    se_status st = flush(rc, &e);
    if (st == SE_OK && rc->done != rc->n)
        st = se_fail(&e, SE_ERR_VALIDATION, "%" PRIu64 " of the shape's %" PRIu64 " elements",
                     rc->done, rc->n);
    if (st == SE_OK)
        st = hash_of(&rc->hx, x_hex, hx, &e);
    if (st == SE_OK)
        st = hash_of(&rc->hy, y_hex, hy, &e);
    if (st != SE_OK)
        verify_problem(rc->v, "%s: cannot re-check from the saved arrays: %s", where, e.msg);
    else
        judge(rc->v, c, where, hx, hy, xrel, yrel, &rc->cmp);
    verify_recheck_free(rc);
}

/* rel is below the run (lstat, no link followed at its last component). */
static int exists_below(const verify_ctx *v, const char *rel)
{
    char path[4400];
    struct stat sb;
    verify_path_of(v, rel, path, sizeof path);
    return lstat(path, &sb) == 0;
}

/* Opens dir/rel, which must be a regular file of exactly bytes bytes. */
static se_status open_array(const verify_ctx *v, const char *rel, uint64_t bytes, int *fd,
                            se_err *err)
{
    uint64_t size = 0;
    se_status st = se_open_below(v->dir, rel, SE_ARRAY_MAX_BYTES, fd, &size, err);
    if (st == SE_OK && size != bytes) {
        close(*fd);
        *fd = -1;
        return se_fail(err, SE_ERR_VALIDATION, "%s: %" PRIu64 " bytes, the protocol's shape "
                       "implies %" PRIu64, rel, size, bytes);
    }
    return st;
}

int verify_recheck_arrays(verify_ctx *v, const se_protocol *p, const se_shape *sh,
                          const json_t *c, const char *cid, const char *name, const char *file)
{
    char xrel[160], yrel[200], id[SE_CASE_ID_SIZE], where[300];
    se_path_array_x(sh->rows, sh->cols, xrel, sizeof xrel);
    se_case_id_make(sh->rows, sh->cols, name, id, sizeof id);
    se_path_array_y(id, yrel, sizeof yrel);
    if (!exists_below(v, xrel) || !exists_below(v, yrel))
        return 0;
    snprintf(where, sizeof where, "%s: %s", file, cid);
    uint64_t bytes = 0;
    if (verify_array_bytes(v, sh, where, &bytes) != SE_OK)
        return 1;
    int xfd = -1, yfd = -1;
    se_err e = {{0}};
    se_status st = open_array(v, xrel, bytes, &xfd, &e);
    if (st == SE_OK)
        st = open_array(v, yrel, bytes, &yfd, &e);
    /* The input's identity keys its row statistics for the next output. */
    struct stat sb;
    char key[200];
    if (st == SE_OK && fstat(xfd, &sb) != 0)
        st = se_fail(&e, SE_ERR_IO, "%s: %s", xrel, strerror(errno));
    verify_recheck *rc = NULL;
    if (st == SE_OK) {
        snprintf(key, sizeof key, "%s|%ju:%ju:%jd:%jd.%09ld", xrel, (uintmax_t)sb.st_dev,
                 (uintmax_t)sb.st_ino, (intmax_t)sb.st_size, (intmax_t)sb.st_mtim.tv_sec,
                 sb.st_mtim.tv_nsec);
        if (!(rc = verify_recheck_begin(v, p, sh, NULL, xfd, key, 1, 1)))
            st = se_fail(&e, SE_ERR_NOMEM, "out of memory");
    }
    for (uint64_t off = 0; st == SE_OK && off < bytes;) {
        size_t k = bytes - off < SE_RECHECK_CHUNK * sizeof(float)
                       ? (size_t)(bytes - off) : SE_RECHECK_CHUNK * sizeof(float);
        st = read_at(yfd, off, rc->ybuf, k, yrel, &e);
        if (st == SE_OK) {
            rc->ybytes = k;
            st = flush(rc, &e);
        }
        off += k;
    }
    if (st != SE_OK) {
        verify_problem(v, "%s: cannot re-check from the saved arrays: %s", where, e.msg);
        verify_recheck_free(rc);
    } else {
        verify_recheck_end(rc, c, where, xrel, yrel, NULL, NULL);
    }
    if (xfd >= 0)
        close(xfd);
    if (yfd >= 0)
        close(yfd);
    return 1;
}
