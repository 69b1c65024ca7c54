/*
 * verify.c - the verify command (see verify.h).
 */
#define _POSIX_C_SOURCE 200809L
#include "bundle/verify.h"

#include <errno.h>
#include <inttypes.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <jansson.h>

#include "bundle/derived.h"
#include "bundle/fsutil.h"
#include "model/json.h"
#include "bundle/paths.h"
#include "bundle/peers.h"
#include "bundle/rundata.h"
#include "model/protocol.h"
#include "model/reference.h"
#include "model/strategy.h"
#include "model/tolerance.h"
#include "bundle/manifest.h"
#include "bundle/samples.h"
#include "bundle/summary.h"
#include "bundle/trace.h"

typedef struct verify_ctx {
    const char *dir;
    FILE *out;
    size_t problems;
    size_t samples_read;
    int strict;
    se_rundata rd; /* the run as the one reader loads it (leniently) */
} verify_ctx;

static void problem(verify_ctx *v, const char *fmt, const char *a, const char *b)
{
    v->problems++;
    if (v->out) {
        /* a and b may hold a hostile run's bytes: printed as \xNN. */
        char msg[2048], shown[4 * sizeof msg];
        snprintf(msg, sizeof msg, fmt, a, b);
        se_printable(msg, shown, sizeof shown);
        fprintf(v->out, "  %s\n", shown);
    }
}

static void path_of(const verify_ctx *v, const char *rel, char *buf, size_t size)
{
    se_path_join(v->dir, rel, buf, size);
}

static void rd_problem(void *ctx, const char *message)
{
    problem(ctx, "%s%s", message, "");
}

static se_status file_source(void *ctx, const se_case_id *c, se_sample_set *scopes, int *owned,
                             se_err *err)
{
    verify_ctx *v = ctx;
    char rel[160];
    se_samples_path(c, rel, sizeof rel);
    se_status st = se_samples_load(v->dir, rel, scopes, c->n_scopes, err);
    if (st == SE_OK) {
        *owned = 1;
        for (int sc = 0; sc < c->n_scopes; sc++)
            v->samples_read += scopes[sc].n;
    }
    return st;
}

static void check_summaries(verify_ctx *v, const se_protocol *p)
{
    const json_t *saved = v->rd.summary;
    if (!saved)
        return;
    json_t *again = NULL;
    se_err err = {{0}};
    size_t before = v->problems;
    se_status st = se_summary_build(p, file_source, v, &again, &err);
    /* A version 2 summary records the derived results: recomputed too. */
    if (st == SE_OK && v->rd.summary_version >= SE_SUMMARY_VERSION_DERIVED)
        st = se_derived_add(p, again, v->rd.validation, v->rd.peers, &err);
    if (st != SE_OK) {
        problem(v, "summary.json: cannot be recomputed: %s%s", err.msg, "");
    } else {
        char path[512] = "", what[256] = "";
        if (!se_json_equal(saved, again, path, sizeof path, what, sizeof what)) {
            /* Name the case, not only its index. */
            char where[700];
            const char *id = NULL;
            unsigned idx;
            if (sscanf(path, "cases[%u]", &idx) == 1)
                id = json_string_value(json_object_get(
                    json_array_get(json_object_get(saved, "cases"), idx), "case"));
            snprintf(where, sizeof where, "%s'%s%s%s", path, id ? " (" : "", id ? id : "",
                     id ? ")" : "");
            problem(v, "summary.json: field '%s: %s", where, what);
        }
    }
    size_t n_cases = json_array_size(json_object_get(saved, "cases")) +
                     json_array_size(json_object_get(saved, "controls"));
    if (v->out)
        fprintf(v->out, "summaries: %zu cases recomputed from %zu raw samples: %s\n", n_cases,
                v->samples_read, v->problems == before ? "all match" : "MISMATCH");
    json_decref(again);
}

/* A type error of one record's field, reported (once per call). */
static void type_problem(verify_ctx *v, const se_err *e)
{
    problem(v, "%s%s", e->msg, "");
}

/* The largest array verify reads (256 MiB, 64 Mi elements: a default
 * protocol's largest case is 16 Mi): its size comes from the protocol's
 * shape and is checked against the file's before anything is allocated. */
#define SE_ARRAY_MAX_BYTES ((uint64_t)256 << 20)

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
    path_of(v, rel, path, sizeof path);
    return lstat(path, &sb) == 0;
}

/* Recomputes one validation record (of validation.json, or of peers.json,
 * named by `file`) from its saved arrays, if both are present. The shape is
 * the protocol's (sh), never the record's; `name` is the strategy or peer
 * that wrote arrays/<shape>.<name>.y.f32. The recomputed elements, fails,
 * NaN and tiny counts and the max errors must equal the recorded ones.
 * Returns 1 if it was re-checked. */
static int recheck_arrays(verify_ctx *v, const se_protocol *p, const se_shape *sh,
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
    if (rows < 1 || cols < 1 || (uint64_t)rows > SE_ARRAY_MAX_BYTES / sizeof(float) / (uint64_t)cols) {
        problem(v, "%s: the shape's arrays are over the %s bytes verify re-checks", where,
                "268435456");
        return 1;
    }
    size_t n = (size_t)rows * (size_t)cols;
    uint64_t bytes = (uint64_t)n * sizeof(float);
    float *x = NULL, *y = NULL;
    double *ref = NULL;
    se_err e = {{0}};
    se_status st = read_array(v, xrel, bytes, &x, &e);
    if (st == SE_OK)
        st = read_array(v, yrel, bytes, &y, &e);
    if (st == SE_OK && !(ref = malloc(n * sizeof *ref)))
        st = se_fail(&e, SE_ERR_NOMEM, "%s: out of memory", yrel);
    if (st != SE_OK) {
        problem(v, "%s: cannot re-check from the saved arrays: %s", where, e.msg);
        goto out;
    }
    unsigned char dx[32], dy[32];
    char hx[65], hy[65];
    se_sha256_buffer(x, n * sizeof *x, dx, NULL);
    se_sha256_buffer(y, n * sizeof *y, dy, NULL);
    se_hex32(dx, hx);
    se_hex32(dy, hy);
    const char *in_sha = json_string_value(json_object_get(c, "input_sha256"));
    const char *out_sha = json_string_value(json_object_get(c, "output_sha256"));
    if (!in_sha || strcmp(hx, in_sha) != 0)
        problem(v, "%s: field 'input_sha256' does not match %s", where, xrel);
    if (!out_sha || strcmp(hy, out_sha) != 0)
        problem(v, "%s: field 'output_sha256' does not match %s", where, yrel);
    se_reference_rms_softmax(x, rows, cols, p->eps, ref);
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
        type_problem(v, &e);
        goto out;
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
            problem(v, "%s: field '%s", where, what);
        }
    if (se_compare_passed(&cmp) != (cmp.n_fail == 0) || (!se_compare_passed(&cmp) && saved_pass))
        problem(v, "%s: field 'fails'/'pass' disagrees with the arrays recomputed against "
                "the tolerances", where, "");
out:
    free(x);
    free(y);
    free(ref);
    return 1;
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

static void check_validation(verify_ctx *v, const se_protocol *p)
{
    const json_t *j = v->rd.validation;
    if (!j)
        return;
    size_t before = v->problems, n_pass = 0, n_arrays = 0;
    json_t *tol = json_object_get(j, "tolerance");
    if (json_real_value(json_object_get(tol, "atol")) != p->tol.atol ||
        json_real_value(json_object_get(tol, "rtol")) != p->tol.rtol)
        problem(v, "validation.json: field 'tolerance': differs from protocol.json%s%s", "", "");
    json_t *cases = json_object_get(j, "cases");
    size_t n_sel = 0;
    for (int s = 0; s < SE_NSTRATEGIES; s++)
        n_sel += (p->strategies >> s) & 1u;
    size_t want = n_sel * p->n_shapes;
    if (!json_is_array(cases) || json_array_size(cases) != want) {
        char a[32], b[32];
        snprintf(a, sizeof a, "%zu", json_array_size(cases));
        snprintf(b, sizeof b, "%zu", want);
        problem(v, "validation.json: field 'cases': %s records, the protocol implies %s", a, b);
    }
    size_t cap = 16;
    while (cap < 2 * json_array_size(cases))
        cap *= 2;
    shape_slot *tiled = calloc(cap, sizeof *tiled);
    if (!tiled) {
        problem(v, "validation.json: out of memory%s%s", "", "");
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
            problem(v, "validation.json: field 'cases[%s, got '%s'", where, shown);
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
            type_problem(v, &e);
            continue;
        }
        if (rows != sh->rows || cols != sh->cols || strcmp(shape, sh->spec) != 0)
            problem(v, "validation.json: %s: fields 'shape'/'rows'/'cols' differ from the "
                    "protocol's shape%s", cid, "");
        int consistent = (fails == 0 && nan == 0 && repeat && !json_is_false(mt)) == pass;
        if (!consistent)
            problem(v, "validation.json: %s: field 'pass' is inconsistent with fails, nan, "
                    "repeat_identical and matches_tiled%s", cid, "");
        else if (!pass)
            problem(v, "validation.json: %s: failed validation (%s)", cid, "as recorded");
        n_pass += pass && consistent;
        if (inv != p->invocations)
            problem(v, "validation.json: %s: field 'invocations' differs from the protocol%s",
                    cid, "");
        /* The four tiled strategies of one shape wrote the same bytes. */
        if (json_is_true(mt)) {
            shape_slot *t = slot_of(tiled, cap, sh->spec);
            if (!t->shape) {
                t->shape = sh->spec;
                t->sha = out_sha;
            } else if (strcmp(t->sha, out_sha) != 0) {
                problem(v, "validation.json: %s: field 'output_sha256' differs from another "
                        "tiled strategy of the shape, yet matches_tiled is true%s", cid, "");
            }
        }
        n_arrays += (size_t)recheck_arrays(v, p, sh, c, cid, sname, SE_VALIDATION_JSON);
    }
    free(tiled);
    if (v->out)
        fprintf(v->out, "validation: %zu cases re-checked against atol %g, rtol %g: %zu pass%s; "
                "%zu recomputed from saved arrays\n", json_array_size(cases), p->tol.atol,
                p->tol.rtol, n_pass, v->problems == before ? "" : ", PROBLEMS", n_arrays);
}

/* The saved entry of a case in a traces.json array, or NULL. */
static json_t *entry_of(const json_t *arr, const char *id)
{
    size_t i;
    json_t *e;
    json_array_foreach(arr, i, e) {
        const char *c = json_string_value(json_object_get(e, "case"));
        if (c && strcmp(c, id) == 0)
            return e;
    }
    return NULL;
}

static int present(const verify_ctx *v, const char *rel)
{
    char path[4400];
    struct stat sb;
    path_of(v, rel, path, sizeof path);
    return stat(path, &sb) == 0;
}

static void compare_entry(verify_ctx *v, const char *what, const char *id, const json_t *saved,
                          const json_t *again)
{
    char path[512] = "", diff[256] = "";
    if (!saved) {
        problem(v, "traces.json: no %s entry for %s", what, id);
        return;
    }
    if (!se_json_equal(saved, again, path, sizeof path, diff, sizeof diff)) {
        char where[700];
        snprintf(where, sizeof where, "%s %s', field '%s", what, id, path);
        problem(v, "traces.json: '%s': %s", where, diff);
    }
}

/* Each traced case whose files are here is recomputed and compared with
 * its saved entry; a case whose trace file is absent is counted as
 * remote-only (a site bundle keeps only some traces). */
static void check_traces(verify_ctx *v, const se_protocol *p)
{
    const json_t *saved = v->rd.traces;
    if (!saved)
        return;
    const json_t *val = v->rd.validation;
    json_t *traces = json_object_get(saved, "traces"), *costs = json_object_get(saved, "tracing_cost");
    json_t *overlap = json_object_get(saved, "overlap");
    size_t before = v->problems, checked = 0, remote = 0, failures = 0, expected = 0, n_overlap = 0;
    for (size_t i = 0; i < p->n_shapes; i++)
        for (int s = 0; s < SE_NSTRATEGIES; s++) {
            int kind = se_trace_kind_of(s);
            if (!se_traced(p, s))
                continue;
            expected++;
            char id[SE_CASE_ID_SIZE], rel[200];
            se_case_id_make(p->shapes[i].rows, p->shapes[i].cols,
                            se_strategy_get((se_strategy)s)->name, id, sizeof id);
            se_path_trace(id, rel, sizeof rel);
            json_t *se = entry_of(traces, id);
            if (kind != SE_TRACE_ROWS) {
                json_t *oi = json_array_get(overlap, n_overlap++);
                json_t *want = se ? se_trace_overlap_item(se) : NULL;
                if (!want || !json_equal(oi, want))
                    problem(v, "traces.json: field 'overlap' for %s does not match its trace "
                            "entry%s", id, "");
                json_decref(want);
            }
            if (!present(v, rel)) {
                remote++;
                if (!se)
                    problem(v, "traces.json: no entry for %s%s", id, "");
                /* A run that traced the case wrote the file: absent, it must
                 * at least be listed (remote-only), and --strict wants it. */
                if (!se_rundata_listed(&v->rd, rel))
                    problem(v, "%s: the traced case's trace is neither here nor listed in "
                            "the manifest%s", rel, "");
                else if (v->strict)
                    problem(v, "%s: the traced case's trace is not here (--strict)%s", rel, "");
                continue;
            }
            json_t *entry = NULL, *cost = NULL;
            int ok = 0;
            se_err err = {{0}};
            if (se_trace_case_report(p, v->dir, &p->shapes[i], s, v->out, &entry, &cost, &ok,
                                     &err) != SE_OK) {
                problem(v, "%s: cannot be re-checked: %s", rel, err.msg);
                continue;
            }
            checked++;
            failures += !ok;
            v->problems += !ok;
            compare_entry(v, "trace", id, se, entry);
            compare_entry(v, "tracing_cost", id, entry_of(costs, id), cost);
            /* A traced run computes the same bytes as the validated one. */
            json_t *vc = entry_of(json_object_get(val, "cases"), id);
            if (vc && !json_equal(json_object_get(vc, "output_sha256"),
                                  json_object_get(entry, "output_sha256")))
                problem(v, SE_TRACE_OUTPUTS_CSV ": %s: the traced run's output differs from the "
                        "validated output (%s)", id, "output_sha256");
            json_decref(entry);
            json_decref(cost);
        }
    if (json_array_size(traces) != expected || n_overlap != json_array_size(overlap))
        problem(v, "traces.json: field 'traces'/'overlap': the entries do not match the "
                "protocol's traced cases%s%s", "", "");
    if (json_number_value(json_object_get(saved, "globaltimer_resolution_ns")) !=
        se_trace_timer_resolution(v->dir))
        problem(v, "traces.json: field 'globaltimer_resolution_ns' differs from "
                "environment.json%s%s", "", "");
    if (v->out)
        fprintf(v->out, "traces: %zu checked for coverage and ordering (%zu fail), %zu "
                "remote-only: %s\n", checked, failures, remote,
                v->problems == before ? "all match the saved report" : "PROBLEMS");
}

/* 1 when arrays/<rel> of a shape is required: an array the rule of
 * --arrays-max-bytes saved must be listed in the manifest. */
static void require_array(verify_ctx *v, const char *rel, size_t *missing)
{
    if (se_rundata_listed(&v->rd, rel))
        return;
    if ((*missing)++ < 10)
        problem(v, "run.json: field 'arrays_saved' is true, yet %s, which the rule saves, is not "
                "in the manifest%s", rel, "");
}

/* run.json against the rest: bundle_copy_sha256 is protocol.json's hash,
 * and arrays_saved true means every array the rule saves is listed: the
 * arrays of every shape of at most arrays_max_bytes input bytes (recorded
 * since run.json had it; else the largest shape with a listed input). */
static void check_run_record(verify_ctx *v, const se_protocol *p)
{
    const json_t *run = v->rd.run;
    if (!run)
        return;
    se_err e = {{0}};
    const char *copy = NULL, *want = NULL;
    const json_t *proto = json_object_get(run, "protocol");
    if (se_json_get_str(proto, "bundle_copy", &copy, SE_RUN_JSON ": protocol", &e) != SE_OK ||
        se_json_get_str(proto, "bundle_copy_sha256", &want, SE_RUN_JSON ": protocol", &e) != SE_OK)
        type_problem(v, &e);
    else if (strcmp(copy, SE_PROTOCOL_JSON) != 0)
        problem(v, "run.json: field 'protocol.bundle_copy': expected %s%s", SE_PROTOCOL_JSON, "");
    else {
        char *buf = NULL;
        size_t len = 0;
        unsigned char d[32];
        char hex[65];
        if (se_read_below(v->dir, SE_PROTOCOL_JSON, SE_JSON_MAX_BYTES, &buf, &len, &e) != SE_OK) {
            type_problem(v, &e);
        } else {
            se_sha256_buffer(buf, len, d, NULL);
            se_hex32(d, hex);
            if (strcmp(hex, want) != 0)
                problem(v, "run.json: field 'protocol.bundle_copy_sha256' is not the SHA-256 of "
                        "%s (%s)", SE_PROTOCOL_JSON, hex);
        }
        free(buf);
    }
    int saved = 0;
    if (se_json_get_bool(run, "arrays_saved", &saved, SE_RUN_JSON, &e) != SE_OK) {
        type_problem(v, &e);
        return;
    }
    if (!saved)
        return;
    json_int_t max_bytes = -1;
    if (json_object_get(run, "arrays_max_bytes") &&
        se_json_get_int(run, "arrays_max_bytes", 0, INT64_MAX, &max_bytes, SE_RUN_JSON, &e) !=
            SE_OK) {
        type_problem(v, &e);
        return;
    }
    char rel[200], id[SE_CASE_ID_SIZE];
    if (max_bytes < 0) {
        for (size_t i = 0; i < p->n_shapes; i++) {
            const se_shape *sh = &p->shapes[i];
            se_path_array_x(sh->rows, sh->cols, rel, sizeof rel);
            int64_t bytes = sh->rows * sh->cols * (int64_t)sizeof(float);
            if (se_rundata_listed(&v->rd, rel) && bytes > max_bytes)
                max_bytes = bytes;
        }
        if (max_bytes < 0) {
            problem(v, "run.json: field 'arrays_saved' is true, yet no array is in the "
                    "manifest%s%s", "", "");
            return;
        }
    }
    size_t missing = 0;
    const json_t *peers = json_object_get(v->rd.peers, "peers");
    for (size_t i = 0; i < p->n_shapes; i++) {
        const se_shape *sh = &p->shapes[i];
        int64_t bytes = sh->rows * sh->cols * (int64_t)sizeof(float);
        if (max_bytes != 0 && bytes > max_bytes)
            continue;
        se_path_array_x(sh->rows, sh->cols, rel, sizeof rel);
        require_array(v, rel, &missing);
        for (int s = 0; s < SE_NSTRATEGIES; s++) {
            if (!((p->strategies >> s) & 1u))
                continue;
            se_case_id_make(sh->rows, sh->cols, se_strategy_get((se_strategy)s)->name, id,
                            sizeof id);
            se_path_array_y(id, rel, sizeof rel);
            require_array(v, rel, &missing);
        }
        for (int k = 0; k < SE_NPEERS; k++) {
            const json_t *e1 = json_array_get(peers, i * SE_NPEERS + (size_t)k);
            const char *st = json_string_value(json_object_get(e1, "status"));
            if (!st || (strcmp(st, "ok") != 0 && strcmp(st, "failed") != 0))
                continue;
            se_case_id c;
            se_peer_case(sh, k, &c);
            se_path_array_y(c.id, rel, sizeof rel);
            require_array(v, rel, &missing);
        }
    }
    if (missing > 10) {
        char n[32];
        snprintf(n, sizeof n, "%zu", missing - 10);
        problem(v, "run.json: field 'arrays_saved': %s more arrays the rule saves are not in the "
                "manifest%s", n, "");
    }
}

static int peers_listed(void *ctx, const char *rel)
{
    verify_ctx *v = ctx;
    return se_rundata_listed(&v->rd, rel);
}

static void peers_problem(void *ctx, const char *message)
{
    problem(ctx, "%s%s", message, "");
}

/* peers.json, when the run has one (runs made before the peers have none):
 * the entries against the protocol, manifest and input hashes, every
 * summary recomputed from its samples, saved outputs re-checked. */
static void check_peers(verify_ctx *v, const se_protocol *p)
{
    if (!present(v, SE_PEERS_FILE)) {
        if (v->out)
            fprintf(v->out, "peers: none recorded (the run predates the PyTorch peers)\n");
        return;
    }
    const json_t *j = v->rd.peers;
    if (!j)
        return;
    const json_t *summary = v->rd.summary, *val = v->rd.validation;
    size_t before = v->problems, n_arrays = 0;
    se_peers_env env = {p, summary, val, file_source, v, peers_listed, peers_problem, v};
    se_peers_counts n;
    se_peers_check(j, &env, &n);
    const char *status = json_string_value(json_object_get(j, "status"));
    const char *copy = json_string_value(json_object_get(j, "script_copy"));
    if (copy) {
        unsigned char d[32];
        char path[4400], hex[65] = "";
        path_of(v, copy, path, sizeof path);
        if (se_sha256_file(path, d, NULL) == SE_OK)
            se_hex32(d, hex);
        const char *want = json_string_value(json_object_get(j, "script_sha256"));
        if (!want || strcmp(hex, want) != 0)
            problem(v, "peers.json: field 'script_sha256': does not match %s", copy, "");
    }
    /* Saved peer outputs: entry i is (shape i / SE_NPEERS, peer i % SE_NPEERS)
     * of the protocol (se_peers_check reports an entry that is not). */
    size_t i;
    json_t *e;
    json_array_foreach(json_object_get(j, "peers"), i, e) {
        if (i >= p->n_shapes * SE_NPEERS)
            break;
        se_case_id c;
        se_peer_case(&p->shapes[i / SE_NPEERS], (int)(i % SE_NPEERS), &c);
        const char *st = json_string_value(json_object_get(e, "status"));
        const char *cid = json_string_value(json_object_get(e, "case"));
        if (cid && strcmp(cid, c.id) == 0 && st &&
            (strcmp(st, "ok") == 0 || strcmp(st, "failed") == 0))
            n_arrays += (size_t)recheck_arrays(v, p, c.shape, e, c.id, c.what, SE_PEERS_FILE);
    }
    if (v->out) {
        if (status && strcmp(status, "skipped") == 0) {
            const char *reason = json_string_value(json_object_get(j, "reason"));
            char shown[1024];
            se_printable(reason ? reason : "no reason", shown, sizeof shown);
            fprintf(v->out, "peers: skipped (%s): %s\n", shown,
                    v->problems == before ? "consistent" : "PROBLEMS");
        }
        else
            fprintf(v->out, "peers: %zu (peer, shape) cases: %zu pass, %zu fail validation, %zu "
                    "errors; %zu summaries recomputed from their samples, %zu outputs from saved "
                    "arrays: %s\n", n.entries, n.ok, n.failed, n.errors, n.recomputed, n_arrays,
                    v->problems == before ? "all match" : "PROBLEMS");
    }
}

se_status se_verify_run(const char *dir, int strict, FILE *out, se_err *err)
{
    struct stat sb;
    if (stat(dir, &sb) != 0 || !S_ISDIR(sb.st_mode))
        return se_fail(err, SE_ERR_IO, "%s: not a directory", dir);
    verify_ctx v;
    memset(&v, 0, sizeof v);
    v.dir = dir;
    v.out = out;
    v.strict = strict;
    if (out)
        fprintf(out, "verify %s\n", dir);
    se_manifest_report rep;
    se_status st = se_manifest_verify(dir, SE_MANIFEST_NAME, out, &rep, err);
    if (st != SE_OK)
        return st;
    if (out)
        fprintf(out, "files: %zu verified, %zu remote-only, %zu mismatched, %zu unlisted, %zu "
                "malformed manifest lines\n", rep.verified, rep.remote_only, rep.mismatched,
                rep.unlisted, rep.malformed);
    size_t file_problems = rep.mismatched + rep.unlisted + rep.malformed +
                           (strict ? rep.remote_only : 0);
    se_rundata_load_each(dir, &v.rd, rd_problem, &v);
    if (v.rd.have_protocol) {
        check_summaries(&v, &v.rd.p);
        check_validation(&v, &v.rd.p);
        check_traces(&v, &v.rd.p);
        check_peers(&v, &v.rd.p);
        check_run_record(&v, &v.rd.p);
    }
    se_rundata_free(&v.rd);
    size_t total = file_problems + v.problems;
    if (out)
        fprintf(out, "verify: %s (%zu problem%s)\n", total ? "FAILED" : "OK", total,
                total == 1 ? "" : "s");
    if (total)
        return se_fail(err, SE_ERR_VALIDATION,
                       "%s does not verify: %zu file problem%s (%zu mismatched, %zu unlisted, %zu "
                       "malformed, %zu remote-only%s), %zu content problem%s",
                       dir, file_problems, file_problems == 1 ? "" : "s", rep.mismatched,
                       rep.unlisted, rep.malformed, rep.remote_only,
                       strict ? ", counted with --strict" : ", allowed", v.problems,
                       v.problems == 1 ? "" : "s");
    return SE_OK;
}

/* Lines of verify's output that name a problem (not its progress lines). */
static void first_problems(const char *text, char *buf, size_t size)
{
    size_t used = 0;
    int count = 0;
    buf[0] = '\0';
    while (*text && count < 3) {
        size_t len = strcspn(text, "\n");
        int is_problem = strncmp(text, "mismatch: ", 10) == 0 || strncmp(text, "unlisted: ", 10) == 0 ||
                         strncmp(text, "malformed: ", 11) == 0 || strncmp(text, "  ", 2) == 0;
        if (is_problem && used + 4 < size) {
            const char *line = text;
            size_t n = len;
            while (n && *line == ' ') {
                line++;
                n--;
            }
            int w = snprintf(buf + used, size - used, "%s%.*s", count ? "; " : "", (int)n, line);
            used += w > 0 ? (size_t)w : 0;
            used = used < size ? used : size - 1;
            count++;
        }
        text += len;
        if (*text == '\n')
            text++;
    }
}

se_status se_verify_first(const char *run_dir, const char *cmd, const char *consequence,
                          se_err *err)
{
    char *text = NULL;
    size_t len = 0;
    FILE *log = open_memstream(&text, &len);
    if (!log)
        return se_fail(err, SE_ERR_NOMEM, "out of memory for verify's report");
    se_err verr = {{0}};
    se_status st = se_verify_run(run_dir, 0, log, &verr);
    fclose(log);
    if (st == SE_ERR_VALIDATION) {
        char problems[700];
        first_problems(text ? text : "", problems, sizeof problems);
        st = se_fail(err, SE_ERR_VALIDATION, "%s: the run does not verify, so %s: %s%s%s", cmd,
                     consequence, verr.msg, problems[0] ? "; first problems: " : "", problems);
    } else if (st != SE_OK) {
        st = se_fail(err, st, "%s: %s", cmd, verr.msg);
    }
    free(text);
    return st;
}
