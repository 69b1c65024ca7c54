/*
 * verify.c - the verify command (see verify.h).
 */
#define _POSIX_C_SOURCE 200809L
#include "bundle/verify.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <jansson.h>

#include "bundle/derived.h"
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
    se_rundata rd; /* the run as the one reader loads it (leniently) */
} verify_ctx;

static void problem(verify_ctx *v, const char *fmt, const char *a, const char *b)
{
    v->problems++;
    if (v->out) {
        fprintf(v->out, "  ");
        fprintf(v->out, fmt, a, b);
        fputc('\n', v->out);
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

static int bool_field(const json_t *o, const char *k)
{
    return json_is_true(json_object_get(o, k));
}

/* Recomputes one validation record (of validation.json, or of peers.json,
 * named by `file`) from its saved arrays, if both are present; `name` is
 * the strategy or peer that wrote arrays/<shape>.<name>.y.f32. Returns 1 if
 * it was re-checked. */
static int recheck_arrays(verify_ctx *v, const se_protocol *p, const json_t *c, const char *cid,
                          const char *name, const char *file)
{
    int64_t rows = json_integer_value(json_object_get(c, "rows"));
    int64_t cols = json_integer_value(json_object_get(c, "cols"));
    char xrel[160], yrel[200], xp[4400], yp[4400], id[SE_CASE_ID_SIZE];
    se_path_array_x(rows, cols, xrel, sizeof xrel);
    se_case_id_make(rows, cols, name ? name : "?", id, sizeof id);
    se_path_array_y(id, yrel, sizeof yrel);
    path_of(v, xrel, xp, sizeof xp);
    path_of(v, yrel, yp, sizeof yp);
    struct stat sx, sy;
    if (stat(xp, &sx) != 0 || stat(yp, &sy) != 0)
        return 0;
    size_t n = (size_t)(rows * cols);
    if ((size_t)sx.st_size != n * sizeof(float) || (size_t)sy.st_size != n * sizeof(float)) {
        problem(v, "%s: arrays of the wrong size for %s", yrel, cid);
        return 1;
    }
    float *x = malloc(n * sizeof *x), *y = malloc(n * sizeof *y);
    double *ref = malloc(n * sizeof *ref);
    FILE *fx = fopen(xp, "rb"), *fy = fopen(yp, "rb");
    int ok = x && y && ref && fx && fy && fread(x, sizeof *x, n, fx) == n &&
             fread(y, sizeof *y, n, fy) == n;
    if (fx)
        fclose(fx);
    if (fy)
        fclose(fy);
    if (!ok) {
        problem(v, "%s: cannot be read to re-check %s", yrel, cid);
    } else {
        unsigned char dx[32], dy[32];
        char hx[65], hy[65];
        se_sha256_buffer(x, n * sizeof *x, dx, NULL);
        se_sha256_buffer(y, n * sizeof *y, dy, NULL);
        se_hex32(dx, hx);
        se_hex32(dy, hy);
        const char *in_sha = json_string_value(json_object_get(c, "input_sha256"));
        const char *out_sha = json_string_value(json_object_get(c, "output_sha256"));
        char where[300];
        snprintf(where, sizeof where, "%s: %s", file, cid);
        if (!in_sha || strcmp(hx, in_sha) != 0)
            problem(v, "%s: field 'input_sha256' does not match %s", where, xrel);
        if (!out_sha || strcmp(hy, out_sha) != 0)
            problem(v, "%s: field 'output_sha256' does not match %s", where, yrel);
        se_reference_rms_softmax(x, rows, cols, p->eps, ref);
        se_compare cmp;
        se_compare_f32_f64(y, ref, (int64_t)n, p->tol, &cmp);
        int saved_pass = bool_field(c, "pass");
        if (se_compare_passed(&cmp) != (cmp.n_fail == 0) ||
            (cmp.n_fail == 0) != (json_integer_value(json_object_get(c, "fails")) == 0) ||
            (!se_compare_passed(&cmp) && saved_pass))
            problem(v, "%s: field 'fails'/'pass' disagrees with the arrays recomputed against "
                    "the tolerances", where, "");
    }
    free(x);
    free(y);
    free(ref);
    return 1;
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
    size_t want = 0;
    for (int s = 0; s < SE_NSTRATEGIES; s++)
        want += (p->strategies >> s) & 1u;
    want *= p->n_shapes;
    if (json_array_size(cases) != want) {
        char a[32], b[32];
        snprintf(a, sizeof a, "%zu", json_array_size(cases));
        snprintf(b, sizeof b, "%zu", want);
        problem(v, "validation.json: field 'cases': %s records, the protocol implies %s", a, b);
    }
    size_t i;
    json_t *c;
    json_array_foreach(cases, i, c) {
        const char *cid = json_string_value(json_object_get(c, "case"));
        cid = cid ? cid : "?";
        int pass = bool_field(c, "pass");
        int consistent = (json_integer_value(json_object_get(c, "fails")) == 0 &&
                          json_integer_value(json_object_get(c, "nan")) == 0 &&
                          bool_field(c, "repeat_identical") &&
                          !json_is_false(json_object_get(c, "matches_tiled"))) == pass;
        if (!consistent)
            problem(v, "validation.json: %s: field 'pass' is inconsistent with fails, nan, "
                    "repeat_identical and matches_tiled%s", cid, "");
        else if (!pass)
            problem(v, "validation.json: %s: failed validation (%s)", cid, "as recorded");
        n_pass += pass && consistent;
        if (json_integer_value(json_object_get(c, "invocations")) != p->invocations)
            problem(v, "validation.json: %s: field 'invocations' differs from the protocol%s",
                    cid, "");
        /* The four tiled strategies of one shape wrote the same bytes. */
        if (json_is_true(json_object_get(c, "matches_tiled"))) {
            size_t k;
            json_t *d;
            json_array_foreach(cases, k, d) {
                if (k >= i || !json_is_true(json_object_get(d, "matches_tiled")) ||
                    !json_equal(json_object_get(d, "shape"), json_object_get(c, "shape")))
                    continue;
                if (!json_equal(json_object_get(d, "output_sha256"),
                                json_object_get(c, "output_sha256")))
                    problem(v, "validation.json: %s: field 'output_sha256' differs from another "
                            "tiled strategy of the shape, yet matches_tiled is true%s", cid, "");
                break;
            }
        }
        n_arrays += (size_t)recheck_arrays(v, p, c, cid,
                                           json_string_value(json_object_get(c, "strategy")),
                                           SE_VALIDATION_JSON);
    }
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
    size_t i;
    json_t *e;
    json_array_foreach(json_object_get(j, "peers"), i, e) {
        const char *st = json_string_value(json_object_get(e, "status"));
        if (st && (strcmp(st, "ok") == 0 || strcmp(st, "failed") == 0))
            n_arrays += (size_t)recheck_arrays(v, p, e, json_string_value(json_object_get(e, "case")),
                                               json_string_value(json_object_get(e, "peer")),
                                               SE_PEERS_FILE);
    }
    if (v->out) {
        if (status && strcmp(status, "skipped") == 0)
            fprintf(v->out, "peers: skipped (%s): %s\n",
                    json_string_value(json_object_get(j, "reason")),
                    v->problems == before ? "consistent" : "PROBLEMS");
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
