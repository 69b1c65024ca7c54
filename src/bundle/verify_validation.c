/*
 * verify_validation.c - verify's re-check of validation.json (records against
 * the protocol, the tiled strategies' identical outputs) and of a validation
 * record from its saved arrays (also used for peers.json's outputs).
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
#include "model/json.h"
#include "bundle/paths.h"
#include "model/reference.h"
#include "model/strategy.h"
#include "model/tolerance.h"
#include "bundle/sha256.h"


/* Reads dir/rel, which must be a regular file of exactly bytes bytes. */
static se_status read_array(const verify_ctx *v, const char *rel, uint64_t bytes, float **out,
                            se_err *err)
{
    int fd;
    uint64_t size = 0;
    *out = NULL;
    se_status st = se_open_below(v->dir, rel, SE_ARRAY_MAX_BYTES, &fd, &size, err);
    if (st != SE_OK)
        return st;
    if (size != bytes) {
        close(fd);
        return se_fail(err, SE_ERR_VALIDATION, "%s: %" PRIu64 " bytes, the protocol's shape "
                       "implies %" PRIu64, rel, size, bytes);
    }
    float *a = malloc(bytes ? (size_t)bytes : 1);
    if (!a) {
        close(fd);
        return se_fail(err, SE_ERR_NOMEM, "%s: out of memory", rel);
    }
    size_t got = 0;
    while (got < bytes) {
        ssize_t n = read(fd, (char *)a + got, (size_t)bytes - got);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            break;
        got += (size_t)n;
    }
    close(fd);
    if (got != bytes) {
        free(a);
        return se_fail(err, SE_ERR_IO, "%s: read %zu of %" PRIu64 " bytes", rel, got, bytes);
    }
    *out = a;
    return SE_OK;
}

/* rel is below the run (lstat, no link followed at its last component). */
static int exists_below(const verify_ctx *v, const char *rel)
{
    char path[4400];
    struct stat sb;
    verify_path_of(v, rel, path, sizeof path);
    return lstat(path, &sb) == 0;
}

/* Recomputes one validation record (of validation.json, or of peers.json,
 * named by `file`) from its saved arrays, if both are present. The shape is
 * the protocol's (sh), never the record's; `name` is the strategy or peer
 * that wrote arrays/<shape>.<name>.y.f32. The recomputed elements, fails,
 * NaN and tiny counts and the max errors must equal the recorded ones.
 * Returns 1 if it was re-checked. */
int verify_recheck_arrays(verify_ctx *v, const se_protocol *p, const se_shape *sh,
                          const json_t *c, const char *cid, const char *name, const char *file)
{
    int64_t rows = sh->rows, cols = sh->cols;
    char xrel[160], yrel[200], id[SE_CASE_ID_SIZE], where[300];
    se_path_array_x(rows, cols, xrel, sizeof xrel);
    se_case_id_make(rows, cols, name, id, sizeof id);
    se_path_array_y(id, yrel, sizeof yrel);
    if (!exists_below(v, xrel) || !exists_below(v, yrel))
        return 0;
    snprintf(where, sizeof where, "%s: %s", file, cid);
    uint64_t bytes = 0;
    if (verify_array_bytes(v, sh, where, &bytes) != SE_OK)
        return 1;
    float *x = NULL, *y = NULL;
    se_err e = {{0}};
    se_status st = read_array(v, xrel, bytes, &x, &e);
    if (st == SE_OK)
        st = read_array(v, yrel, bytes, &y, &e);
    if (st != SE_OK)
        verify_problem(v, "%s: cannot re-check from the saved arrays: %s", where, e.msg);
    else
        verify_recheck_buffers(v, p, sh, c, where, x, y, xrel, yrel, NULL, NULL);
    free(x);
    free(y);
    return 1;
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

void verify_recheck_buffers(verify_ctx *v, const se_protocol *p, const se_shape *sh,
                            const json_t *c, const char *where, const float *x, const float *y,
                            const char *xrel, const char *yrel, const char *x_hex,
                            const char *y_hex)
{
    int64_t rows = sh->rows, cols = sh->cols;
    size_t n = (size_t)rows * (size_t)cols;
    se_err e = {{0}};
    unsigned char d[32];
    char hx[65], hy[65];
    if (x_hex) {
        snprintf(hx, sizeof hx, "%s", x_hex);
    } else {
        se_sha256_buffer(x, n * sizeof *x, d, NULL);
        se_hex32(d, hx);
    }
    if (y_hex) {
        snprintf(hy, sizeof hy, "%s", y_hex);
    } else {
        se_sha256_buffer(y, n * sizeof *y, d, NULL);
        se_hex32(d, hy);
    }
    /* The reference of these input bytes, once for all their outputs. */
    double *ref = v->ref;
    if (!ref || strcmp(v->ref_x_hex, hx) != 0 || v->ref_rows != rows || v->ref_cols != cols ||
        v->ref_eps != p->eps) {
        verify_ref_cache_free(v);
        ref = malloc(n * sizeof *ref);
        if (!ref) {
            verify_problem(v, "%s: cannot re-check from the saved arrays: out of memory for %s",
                    where, yrel);
            return;
        }
        se_reference_rms_softmax(x, rows, cols, p->eps, ref);
        v->ref = ref;
        snprintf(v->ref_x_hex, sizeof v->ref_x_hex, "%s", hx);
        v->ref_rows = rows;
        v->ref_cols = cols;
        v->ref_eps = p->eps;
    }
    const char *in_sha = json_string_value(json_object_get(c, "input_sha256"));
    const char *out_sha = json_string_value(json_object_get(c, "output_sha256"));
    if (!in_sha || strcmp(hx, in_sha) != 0)
        verify_problem(v, "%s: field 'input_sha256' does not match %s", where, xrel);
    if (!out_sha || strcmp(hy, out_sha) != 0)
        verify_problem(v, "%s: field 'output_sha256' does not match %s", where, yrel);
    se_compare cmp;
    se_compare_f32_f64(y, ref, (int64_t)n, p->tol, &cmp);
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
    double again[6] = {(double)cmp.n, (double)cmp.n_fail, (double)cmp.n_nan, (double)cmp.n_tiny,
                       cmp.max_abs_err, cmp.max_rel_err};
    for (int k = 0; k < 6; k++)
        if (saved[k] != again[k]) {
            char what[200];
            snprintf(what, sizeof what, "%s': saved %.17g, recomputed from the arrays %.17g",
                     names[k], saved[k], again[k]);
            verify_problem(v, "%s: field '%s", where, what);
        }
    if (se_compare_passed(&cmp) != (cmp.n_fail == 0) || (!se_compare_passed(&cmp) && saved_pass))
        verify_problem(v, "%s: field 'fails'/'pass' disagrees with the arrays recomputed against "
                "the tolerances", where, "");
}

void verify_ref_cache_free(verify_ctx *v)
{
    free(v->ref);
    v->ref = NULL;
    v->ref_x_hex[0] = '\0';
}

/* validation.json's tiled-identity check: the first output hash of a
 * matches_tiled record per shape, in a hash table (linear in the records). */
typedef struct shape_slot {
    const char *shape, *sha;
} shape_slot;

static uint64_t fnv1a(const char *s)
{
    uint64_t h = 1469598103934665603ull;
    for (; *s; s++)
        h = (h ^ (unsigned char)*s) * 1099511628211ull;
    return h;
}

/* The slot of shape in a table of cap (a power of two) slots. */
static shape_slot *slot_of(shape_slot *t, size_t cap, const char *shape)
{
    size_t i = (size_t)fnv1a(shape) & (cap - 1);
    while (t[i].shape && strcmp(t[i].shape, shape) != 0)
        i = (i + 1) & (cap - 1);
    return &t[i];
}

/* The strategy of the k-th selected strategy of p (table order). */
static int selected_strategy(const se_protocol *p, size_t k)
{
    for (int s = 0; s < SE_NSTRATEGIES; s++)
        if ((p->strategies >> s) & 1u) {
            if (k == 0)
                return s;
            k--;
        }
    return -1;
}

void verify_check_validation(verify_ctx *v, const se_protocol *p)
{
    const json_t *j = v->rd.validation;
    if (!j)
        return;
    size_t before = v->problems, n_pass = 0, n_arrays = 0;
    json_t *tol = json_object_get(j, "tolerance");
    if (json_real_value(json_object_get(tol, "atol")) != p->tol.atol ||
        json_real_value(json_object_get(tol, "rtol")) != p->tol.rtol)
        verify_problem(v, "validation.json: field 'tolerance': differs from protocol.json%s%s", "", "");
    json_t *cases = json_object_get(j, "cases");
    size_t n_sel = 0;
    for (int s = 0; s < SE_NSTRATEGIES; s++)
        n_sel += (p->strategies >> s) & 1u;
    size_t want = n_sel * p->n_shapes;
    if (!json_is_array(cases) || json_array_size(cases) != want) {
        char a[32], b[32];
        snprintf(a, sizeof a, "%zu", json_array_size(cases));
        snprintf(b, sizeof b, "%zu", want);
        verify_problem(v, "validation.json: field 'cases': %s records, the protocol implies %s", a, b);
    }
    size_t cap = 16;
    while (cap < 2 * json_array_size(cases))
        cap *= 2;
    shape_slot *tiled = calloc(cap, sizeof *tiled);
    if (!tiled) {
        verify_problem(v, "validation.json: out of memory%s%s", "", "");
        return;
    }
    size_t i;
    json_t *c;
    json_array_foreach(cases, i, c) {
        if (i >= want)
            break; /* reported above; the protocol has no case for it */
        const se_shape *sh = &p->shapes[i / n_sel];
        const char *sname = se_strategy_get((se_strategy)selected_strategy(p, i % n_sel))->name;
        char expect[SE_CASE_ID_SIZE], where[SE_CASE_ID_SIZE + 64], shown[4 * 64 + 8];
        se_case_id_make(sh->rows, sh->cols, sname, expect, sizeof expect);
        const char *cid = json_string_value(json_object_get(c, "case"));
        if (!cid || strcmp(cid, expect) != 0) {
            se_printable(cid ? cid : "(not a string)", shown, sizeof shown);
            snprintf(where, sizeof where, "%zu].case': expected %s", i, expect);
            verify_problem(v, "validation.json: field 'cases[%s, got '%s'", where, shown);
            continue;
        }
        snprintf(where, sizeof where, "%s: %s", SE_VALIDATION_JSON, cid);
        se_err e = {{0}};
        json_int_t fails, nan, inv, rows, cols;
        int pass, repeat;
        const char *shape, *out_sha;
        const json_t *mt = json_object_get(c, "matches_tiled");
        if (se_json_get_int(c, "rows", 1, INT64_MAX, &rows, where, &e) != SE_OK ||
            se_json_get_int(c, "cols", 1, INT64_MAX, &cols, where, &e) != SE_OK ||
            se_json_get_int(c, "fails", 0, INT64_MAX, &fails, where, &e) != SE_OK ||
            se_json_get_int(c, "nan", 0, INT64_MAX, &nan, where, &e) != SE_OK ||
            se_json_get_int(c, "invocations", 0, INT64_MAX, &inv, where, &e) != SE_OK ||
            se_json_get_bool(c, "pass", &pass, where, &e) != SE_OK ||
            se_json_get_bool(c, "repeat_identical", &repeat, where, &e) != SE_OK ||
            se_json_get_str(c, "shape", &shape, where, &e) != SE_OK ||
            se_json_get_str(c, "output_sha256", &out_sha, where, &e) != SE_OK ||
            (!json_is_boolean(mt) && !json_is_null(mt) &&
             se_fail(&e, SE_ERR_VALIDATION, "%s: field 'matches_tiled': expected true, false or "
                     "null, got %s", where, se_json_type_name(mt)))) {
            verify_type_problem(v, &e);
            continue;
        }
        if (rows != sh->rows || cols != sh->cols || strcmp(shape, sh->spec) != 0)
            verify_problem(v, "validation.json: %s: fields 'shape'/'rows'/'cols' differ from the "
                    "protocol's shape%s", cid, "");
        int consistent = (fails == 0 && nan == 0 && repeat && !json_is_false(mt)) == pass;
        if (!consistent)
            verify_problem(v, "validation.json: %s: field 'pass' is inconsistent with fails, nan, "
                    "repeat_identical and matches_tiled%s", cid, "");
        else if (!pass)
            verify_problem(v, "validation.json: %s: failed validation (%s)", cid, "as recorded");
        n_pass += pass && consistent;
        if (inv != p->invocations)
            verify_problem(v, "validation.json: %s: field 'invocations' differs from the protocol%s",
                    cid, "");
        /* The four tiled strategies of one shape wrote the same bytes. */
        if (json_is_true(mt)) {
            shape_slot *t = slot_of(tiled, cap, sh->spec);
            if (!t->shape) {
                t->shape = sh->spec;
                t->sha = out_sha;
            } else if (strcmp(t->sha, out_sha) != 0) {
                verify_problem(v, "validation.json: %s: field 'output_sha256' differs from another "
                        "tiled strategy of the shape, yet matches_tiled is true%s", cid, "");
            }
        }
        n_arrays += (size_t)verify_recheck_arrays(v, p, sh, c, cid, sname, SE_VALIDATION_JSON);
    }
    free(tiled);
    if (v->out)
        fprintf(v->out, "validation: %zu cases re-checked against atol %g, rtol %g: %zu pass%s; "
                "%zu recomputed from saved arrays\n", json_array_size(cases), p->tol.atol,
                p->tol.rtol, n_pass, v->problems == before ? "" : ", PROBLEMS", n_arrays);
}
