/*
 * verify.c - the verify command (see verify.h): the manifest, the summaries,
 * peers.json and run.json, in se_verify_run's order; validation.json in
 * verify_validation.c, traces.json in verify_traces.c.
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
#include "bundle/remote_lines.h"
#include "bundle/describe.h"
#include "bundle/rederive.h"
#include "bundle/samples.h"
#include "bundle/summary.h"
#include "bundle/trace.h"
#include "bundle/verify_internal.h"

void verify_problem(verify_ctx *v, const char *fmt, const char *a, const char *b)
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

void verify_path_of(const verify_ctx *v, const char *rel, char *buf, size_t size)
{
    se_path_join(v->dir, rel, buf, size);
}

static void rd_problem(void *ctx, const char *message)
{
    verify_problem(ctx, "%s%s", message, "");
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
        verify_problem(v, SE_SUMMARY_JSON ": cannot be recomputed: %s%s", err.msg, "");
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
            verify_problem(v, SE_SUMMARY_JSON ": field '%s: %s", where, what);
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
void verify_type_problem(verify_ctx *v, const se_err *e)
{
    verify_problem(v, "%s%s", e->msg, "");
}

int verify_archived(const verify_ctx *v, const char *rel)
{
    return v->have_remote && se_remote_has(&v->remote, rel);
}

static int archived_fn(void *ctx, const char *rel)
{
    return verify_archived(ctx, rel);
}

/* remote.json against the rest: every remote-only file listed in the
 * manifest, the run id run.json's, and the manifest here, less
 * remote.json's line, still the complete run's (complete_manifest_sha256):
 * the lines of the remote-only files, whose files are not here to hash,
 * are checked by it alone. */
static void check_remote(verify_ctx *v)
{
    if (!v->have_remote)
        return;
    const se_remote *r = &v->remote;
    size_t unlisted = 0;
    for (size_t i = 0; i < r->n_files; i++)
        if (!se_rundata_listed(&v->rd, r->files[i]) && unlisted++ < 10)
            verify_problem(v, SE_REMOTE_JSON ": field 'files': %s is not in the manifest%s",
                    r->files[i], "");
    if (!se_rundata_listed(&v->rd, SE_REMOTE_JSON))
        verify_problem(v, SE_REMOTE_JSON ": not listed in the manifest%s%s", "", "");
    if (v->rd.run_id[0] && strcmp(v->rd.run_id, r->run_id) != 0)
        verify_problem(v, SE_REMOTE_JSON ": field 'run_id': '%s' is not " SE_RUN_JSON "'s '%s'", r->run_id,
                v->rd.run_id);
    /* The remote-only files' lines, which no file here can check: by
     * remote_lines_sha256, else (a remote.json written before it was
     * recorded) with --strict by complete_manifest_sha256, which a local
     * file rewritten since (profile --reparse) changes too. */
    char here[65];
    se_err e = {{0}};
    if (r->lines_sha256[0]) {
        if (se_remote_lines_sha256(v->dir, r, here, &e) != SE_OK)
            verify_problem(v, SE_REMOTE_JSON ": field 'remote_lines_sha256': cannot be checked: %s%s",
                           e.msg, "");
        else if (strcmp(here, r->lines_sha256) != 0)
            verify_problem(v, SE_REMOTE_JSON ": field 'remote_lines_sha256': the manifest's lines of "
                           "the remote-only files hash to %s, not to it: a remote-only file's "
                           "line changed since the archive was made%s", here, "");
    } else if (v->strict) {
        if (se_manifest_sha256_without(v->dir, SE_MANIFEST_NAME, SE_REMOTE_JSON, here, &e) != SE_OK)
            verify_problem(v, SE_REMOTE_JSON ": field 'complete_manifest_sha256': cannot be checked: "
                           "%s%s", e.msg, "");
        else if (strcmp(here, r->manifest_sha256) != 0)
            verify_problem(v, SE_REMOTE_JSON ": field 'complete_manifest_sha256' (--strict; this "
                           SE_REMOTE_JSON " has no remote_lines_sha256): the manifest here, less "
                           SE_REMOTE_JSON "'s line, hashes to %s, not to it: a line changed since the "
                           "archive was made (a remote-only file's, or a local file's)%s", here, "");
    }
}

int verify_present(const verify_ctx *v, const char *rel)
{
    char path[4400];
    struct stat sb;
    verify_path_of(v, rel, path, sizeof path);
    return stat(path, &sb) == 0;
}

/* 1 when arrays/<rel> of a shape is required: an array the rule of
 * --arrays-max-bytes saved must be listed in the manifest. */
static void require_array(verify_ctx *v, const char *rel, size_t *missing)
{
    if (se_rundata_listed(&v->rd, rel))
        return;
    if ((*missing)++ < 10)
        verify_problem(v, SE_RUN_JSON ": field 'arrays_saved' is true, yet %s, which the rule saves, is not "
                "in the manifest%s", rel, "");
}

/* run.json against the rest: bundle_copy_sha256 is protocol.json's hash,
 * and arrays_saved true means every array the rule saves is listed: the
 * arrays of every shape of at most arrays_max_bytes input bytes (recorded
 * since run.json had it; else the largest shape with a listed input). */
/* Names the first key of obj (at field prefix) outside keys[0..n). */
static void unknown_keys(verify_ctx *v, const json_t *obj, const char *prefix,
                         const char *const *keys, size_t n)
{
    const char *key;
    json_t *val;
    json_object_foreach((json_t *)obj, key, val) {
        size_t k = 0;
        while (k < n && strcmp(key, keys[k]) != 0)
            k++;
        if (k == n) {
            char shown[4 * 64 + 8];
            se_printable(key, shown, sizeof shown);
            verify_problem(v, SE_RUN_JSON ": field '%s%.200s': an unknown key (a " SE_RUN_JSON " holds only "
                           "the fields docs/BUNDLE.md lists)", prefix, shown);
            return;
        }
    }
}

static void check_run_record(verify_ctx *v, const se_protocol *p)
{
    const json_t *run = v->rd.run;
    if (!run)
        return;
    static const char *const top[] = {"format", "version", "run_id", "started_utc",
                                      "finished_utc", "status", "protocol", "arrays_saved",
                                      "arrays_max_bytes", "source_files", "blocking_kernel",
                                      "interleaving", "megakernel", "checks_saved", "task_graph"};
    static const char *const proto_keys[] = {"source", "source_sha256", "bundle_copy",
                                             "bundle_copy_sha256"};
    unknown_keys(v, run, "", top, sizeof top / sizeof *top);
    if (json_is_object(json_object_get(run, "protocol")))
        unknown_keys(v, json_object_get(run, "protocol"), "protocol.", proto_keys,
                     sizeof proto_keys / sizeof *proto_keys);
    se_err e = {{0}};
    const char *copy = NULL, *want = NULL;
    const json_t *proto = json_object_get(run, "protocol");
    if (se_json_get_str(proto, "bundle_copy", &copy, SE_RUN_JSON ": protocol", &e) != SE_OK ||
        se_json_get_str(proto, "bundle_copy_sha256", &want, SE_RUN_JSON ": protocol", &e) != SE_OK)
        verify_type_problem(v, &e);
    else if (strcmp(copy, SE_PROTOCOL_JSON) != 0)
        verify_problem(v, SE_RUN_JSON ": field 'protocol.bundle_copy': expected %s%s", SE_PROTOCOL_JSON, "");
    else {
        char *buf = NULL;
        size_t len = 0;
        unsigned char d[32];
        char hex[65];
        if (se_read_below(v->dir, SE_PROTOCOL_JSON, SE_JSON_MAX_BYTES, &buf, &len, &e) != SE_OK) {
            verify_type_problem(v, &e);
        } else {
            se_sha256_buffer(buf, len, d, NULL);
            se_hex32(d, hex);
            if (strcmp(hex, want) != 0)
                verify_problem(v, SE_RUN_JSON ": field 'protocol.bundle_copy_sha256' is not the SHA-256 of "
                        "%s (%s)", SE_PROTOCOL_JSON, hex);
        }
        free(buf);
    }
    int saved = 0;
    if (se_json_get_bool(run, "arrays_saved", &saved, SE_RUN_JSON, &e) != SE_OK) {
        verify_type_problem(v, &e);
        return;
    }
    if (!saved)
        return;
    /* arrays_max_bytes: the cap in input bytes, or null for every case;
     * absent in the runs made before run.json recorded it. */
    json_int_t max_bytes = -1;
    const json_t *cap = json_object_get(run, "arrays_max_bytes");
    if (json_is_null(cap))
        max_bytes = 0;
    else if (cap &&
             se_json_get_int(run, "arrays_max_bytes", 1, INT64_MAX, &max_bytes, SE_RUN_JSON, &e) !=
                 SE_OK) {
        verify_type_problem(v, &e);
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
            verify_problem(v, SE_RUN_JSON ": field 'arrays_saved' is true, yet no array is in the "
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
        for (int s = 0; s < se_protocol_nstrategies(p); s++) {
            if (!((p->strategies >> s) & 1u))
                continue;
            se_case_id_make(sh->rows, sh->cols, se_protocol_strategy(p, s)->name, id,
                            sizeof id);
            se_path_array_y(id, rel, sizeof rel);
            require_array(v, rel, &missing);
        }
        size_t per = se_peers_per_shape(v->rd.peers); /* the document: its version */
        for (size_t k = 0; k < per; k++) {
            const json_t *e1 = json_array_get(peers, i * per + k);
            const char *st = json_string_value(json_object_get(e1, "status"));
            if (!st || (strcmp(st, "ok") != 0 && strcmp(st, "failed") != 0))
                continue;
            se_case_id c;
            se_peer_case(sh, se_peers_set(v->rd.peers).first + (int)k, &c);
            se_path_array_y(c.id, rel, sizeof rel);
            require_array(v, rel, &missing);
        }
    }
    if (missing > 10) {
        char n[32];
        snprintf(n, sizeof n, "%zu", missing - 10);
        verify_problem(v, SE_RUN_JSON ": field 'arrays_saved': %s more arrays the rule saves are not in the "
                "manifest%s", n, "");
    }
}

/* environment.json's placement, where the run recorded one (docs/SLURM.md):
 * the Slurm ids and CUDA_VISIBLE_DEVICES strings or null, the host name a
 * string, the device ordinal a whole number equal to gpu.ordinal. */
static void rederive_problem(void *ctx, const char *message)
{
    verify_problem(ctx, "%s%s", message, "");
}

/* checks/ (bundle/rederive.h): every case's correctness re-derived on the
 * CPU from the run's own files, where run.json says they were saved. */
/* The run's two words on its workload agree: strategies.json's
 * workload.name (or, in a run made before that file, the RMS-scaled
 * softmax) is protocol.json's workload.operation. */
static void check_operation(verify_ctx *v, const se_protocol *p)
{
    const se_operation *a = se_rundata_operation(&v->rd), *b = se_protocol_operation(p);
    if (a != b)
        verify_problem(v, SE_STRATEGIES_JSON ": field 'workload.name': '%s' is not " SE_PROTOCOL_JSON "'s "
                       "workload.operation '%s'", a->name, b->name);
}

static void check_rederive(verify_ctx *v, const se_protocol *p)
{
    if (!json_is_true(json_object_get(v->rd.run, "checks_saved"))) {
        if (v->out)
            fprintf(v->out, "rederive: the run saved no checks/ (it predates them), so none of "
                    "its outputs can be re-derived on a CPU here; " SE_VALIDATION_JSON "'s word "
                    "stands\n");
        return;
    }
    se_rederive_counts c;
    se_err e = {{0}};
    size_t before = v->problems;
    if (se_rederive_dir(v->dir, p, se_rundata_operation(&v->rd), v->have_remote ? &v->remote : NULL, &c,
                        rederive_problem, v, &e) != SE_OK) {
        verify_problem(v, "rederive: %s%s", e.msg, "");
        return;
    }
    char remote_note[200] = "";
    if (c.cases_remote)
        snprintf(remote_note, sizeof remote_note, "; %zu cases' checks/ are remote-only "
                 "(" SE_REMOTE_JSON "): not re-derived here, the archive holds them", c.cases_remote);
    if (v->out)
        fprintf(v->out, "rederive: %zu of %zu cases re-derived on the CPU from checks/ (%zu "
                "shapes, %zu input rows regenerated with cuRAND's host generator, %zu output "
                "values checked against the float64 reference, %zu outside the tolerance)%s%s\n",
                c.cases_rederived, c.cases, c.shapes, c.rows_regenerated, c.values_checked,
                c.values_failed, remote_note,
                v->problems == before ? "" : ": PROBLEMS");
}

static void check_placement(verify_ctx *v)
{
    const json_t *env = v->rd.env, *pl = json_object_get(env, "placement");
    if (!env || !pl)
        return;
    static const char where[] = SE_ENVIRONMENT_JSON ": placement";
    if (!json_is_object(pl)) {
        verify_problem(v, "%s: expected an object, got %s", where, se_json_type_name(pl));
        return;
    }
    static const char *const maybe[] = {"slurm_job_id", "slurm_array_job_id",
                                        "slurm_array_task_id", "cuda_visible_devices"};
    for (size_t k = 0; k < sizeof maybe / sizeof maybe[0]; k++) {
        const json_t *f = json_object_get(pl, maybe[k]);
        if (!json_is_string(f) && !json_is_null(f)) {
            char what[160];
            snprintf(what, sizeof what, "%s': expected a string or null, got %s", maybe[k],
                     f ? se_json_type_name(f) : "nothing");
            verify_problem(v, "%s: field '%s", where, what);
        }
    }
    se_err e = {{0}};
    const char *host;
    json_int_t ordinal, gpu_ordinal;
    if (se_json_get_str(pl, "hostname", &host, where, &e) != SE_OK ||
        se_json_get_int(pl, "device_ordinal", 0, INT32_MAX, &ordinal, where, &e) != SE_OK) {
        verify_type_problem(v, &e);
        return;
    }
    if (se_json_get_int(json_object_get(env, "gpu"), "ordinal", 0, INT32_MAX, &gpu_ordinal,
                        SE_ENVIRONMENT_JSON ": gpu", &e) != SE_OK)
        verify_type_problem(v, &e);
    else if (gpu_ordinal != ordinal)
        verify_problem(v, "%s: field 'device_ordinal' differs from gpu.ordinal%s", where, "");
}

static int peers_listed(void *ctx, const char *rel)
{
    verify_ctx *v = ctx;
    return se_rundata_listed(&v->rd, rel);
}

static void peers_problem(void *ctx, const char *message)
{
    verify_problem(ctx, "%s%s", message, "");
}

/* peers.json, when the run has one (runs made before the peers have none):
 * the entries against the protocol, manifest and input hashes, every
 * summary recomputed from its samples, saved outputs re-checked. */
static void check_peers(verify_ctx *v, const se_protocol *p)
{
    if (!verify_present(v, SE_PEERS_FILE)) {
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
    /* The script as it ran is peers/peers.py of this run, read below it (no
     * path of the run's choosing: not /dev/zero, a FIFO or a file outside). */
    const json_t *copy_j = json_object_get(j, "script_copy");
    const char *copy = json_string_value(copy_j);
    if (copy_j && !json_is_null(copy_j) && (!copy || strcmp(copy, SE_PEERS_SCRIPT_COPY) != 0)) {
        char shown[300];
        se_printable(copy ? copy : se_json_type_name(copy_j), shown, sizeof shown);
        verify_problem(v, SE_PEERS_FILE ": field 'script_copy': expected \"%s\", got '%.200s'",
                       SE_PEERS_SCRIPT_COPY, shown);
    } else if (copy) {
        unsigned char d[32];
        char *text = NULL, hex[65] = "";
        size_t len = 0;
        se_err e = {{0}};
        if (se_read_below(v->dir, SE_PEERS_SCRIPT_COPY, SE_PEERS_SCRIPT_MAX_BYTES, &text, &len,
                          &e) != SE_OK) {
            verify_type_problem(v, &e);
        } else {
            se_sha256_buffer(text, len, d, NULL);
            se_hex32(d, hex);
            const char *want = json_string_value(json_object_get(j, "script_sha256"));
            if (!want || strcmp(hex, want) != 0)
                verify_problem(v, SE_PEERS_FILE ": field 'script_sha256': does not match %s", copy, "");
        }
        free(text);
    } else if (n.ok + n.failed > 0) {
        /* Peers that ran were measured by a script: the run must hold it. */
        char ran[32];
        snprintf(ran, sizeof ran, "%zu", n.ok + n.failed);
        verify_problem(v, SE_PEERS_FILE ": field 'script_copy': missing or null, though %s peer "
                       "cases ran: the script that measured them is not in the run%s", ran, "");
    }
    /* Saved peer outputs: entry i is (shape i / per, peer i % per) of the
     * protocol (se_peers_check reports an entry that is not). */
    size_t i, per = se_peers_per_shape(j);
    json_t *e;
    json_array_foreach(json_object_get(j, "peers"), i, e) {
        if (!per || i >= p->n_shapes * per)
            break;
        se_case_id c;
        se_peer_case(&p->shapes[i / per], se_peers_set(j).first + (int)(i % per), &c);
        const char *st = json_string_value(json_object_get(e, "status"));
        const char *cid = json_string_value(json_object_get(e, "case"));
        if (cid && strcmp(cid, c.id) == 0 && st &&
            (strcmp(st, "ok") == 0 || strcmp(st, "failed") == 0))
            n_arrays += (size_t)verify_recheck_arrays(v, p, c.shape, e, c.id, c.what, SE_PEERS_FILE);
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
                    "errors, %zu skipped; %zu summaries recomputed from their samples, %zu outputs "
                    "from saved arrays: %s\n", n.entries, n.ok, n.failed, n.errors, n.skipped,
                    n.recomputed, n_arrays,
                    v->problems == before ? "all match" : "PROBLEMS");
    }
}

se_status se_verify_run(const char *dir, int strict, FILE *out, se_err *err)
{
    struct stat sb;
    if (stat(dir, &sb) != 0)
        return se_fail(err, SE_ERR_IO, "%s: %s", dir,
                       errno == ENOENT ? "does not exist" : strerror(errno));
    if (!S_ISDIR(sb.st_mode))
        return se_fail(err, SE_ERR_IO, "%s: not a directory", dir);
    verify_ctx v;
    memset(&v, 0, sizeof v);
    v.dir = dir;
    v.out = out;
    v.strict = strict;
    if (out)
        fprintf(out, "verify %s\n", dir);
    /* remote.json first: the files it says live only in the archive are
     * remote-only on purpose (counted, not a --strict failure). */
    se_err rerr = {{0}};
    size_t remote_problems = 0;
    if (se_remote_load(dir, &v.remote, &v.have_remote, &rerr) != SE_OK) {
        v.have_remote = 0;
        remote_problems++;
        if (out) {
            char shown[2048];
            se_printable(rerr.msg, shown, sizeof shown);
            fprintf(out, "  %s\n", shown);
        }
    }
    se_manifest_report rep;
    se_status st = se_manifest_verify_archived(dir, SE_MANIFEST_NAME, out, &rep, archived_fn, &v,
                                               err);
    if (st != SE_OK) {
        se_remote_free(&v.remote);
        return st;
    }
    if (out)
        fprintf(out, "files: %zu verified, %zu remote-only, %zu mismatched, %zu unlisted, %zu "
                "malformed manifest lines\n", rep.verified, rep.remote_only + rep.archived,
                rep.mismatched, rep.unlisted, rep.malformed);
    if (out && v.have_remote) {
        char name[4 * sizeof v.remote.archive_name];
        se_printable(v.remote.archive_name, name, sizeof name);
        fprintf(out, "archive: %zu of the remote-only files live in %s (%" PRIu64 " bytes, SHA-256 "
                "%s; " SE_REMOTE_JSON "), unchecked here: verify --archive %s checks them\n",
                rep.archived, name, v.remote.archive_bytes, v.remote.archive_sha256, name);
    }
    size_t file_problems = rep.mismatched + rep.unlisted + rep.malformed +
                           (strict ? rep.remote_only : 0) + remote_problems;
    se_rundata_load_each(dir, &v.rd, rd_problem, &v);
    check_remote(&v);
    if (v.rd.have_protocol) {
        check_operation(&v, &v.rd.p);
        check_summaries(&v, &v.rd.p);
        verify_check_validation(&v, &v.rd.p);
        verify_check_traces(&v, &v.rd.p);
        check_peers(&v, &v.rd.p);
        check_run_record(&v, &v.rd.p);
        check_rederive(&v, &v.rd.p);
    }
    check_placement(&v);
    verify_ref_cache_free(&v);
    se_rundata_free(&v.rd);
    se_remote_free(&v.remote);
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

int se_is_site_dir(const char *dir)
{
    char run_manifest[4400], site_manifest[4400];
    struct stat sb;
    se_path_join(dir, SE_MANIFEST_NAME, run_manifest, sizeof run_manifest);
    se_path_join(dir, SE_SITE_MANIFEST, site_manifest, sizeof site_manifest);
    return lstat(run_manifest, &sb) != 0 && lstat(site_manifest, &sb) == 0;
}

se_status se_verify_first(const char *run_dir, const char *cmd, const char *consequence,
                          se_err *err)
{
    /* An evidence site is not a run: say so, rather than fail on a file
     * the site leaves out. */
    if (se_is_site_dir(run_dir))
        return se_fail(err, SE_ERR_USAGE, "%s: %s is an evidence site (it holds %s and no %s), "
                       "not a run directory; %s reads a run (the site's run/ keeps only some of "
                       "its files): give it the run the site was built from", cmd, run_dir,
                       SE_SITE_MANIFEST, SE_MANIFEST_NAME, cmd);
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
