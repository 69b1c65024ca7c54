/*
 * rundata.c - loading a verified run for the figures command (see
 * rundata.h).
 */
#define _POSIX_C_SOURCE 200809L
#include "bundle/rundata.h"
#include "model/operation.h"

#include "bundle/describe.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "bundle/derived.h"
#include "bundle/fsutil.h"
#include "model/json.h"
#include "bundle/manifest.h"
#include "bundle/paths.h"
#include "bundle/summary.h"
#include "bundle/peers.h"
#include "bundle/views.h"

void se_rundata_path(const se_rundata *rd, const char *rel, char *path, size_t size)
{
    se_path_join(rd->dir, rel, path, size);
}

static se_status load_json(const se_rundata *rd, const char *rel, const char *format,
                           int max_version, int *version, json_t **out, se_err *err)
{
    char path[4400];
    se_rundata_path(rd, rel, path, sizeof path);
    return se_json_load(path, rel, format, max_version, version, out, err);
}

/* se_manifest_read's callback: one listed file (verify has judged the lines;
 * a malformed one here is an error). */
static se_status add_file(void *ctx, const se_manifest_line *line, se_err *err)
{
    se_rundata *rd = ctx;
    if (!line->path && rd->lenient)
        return SE_OK; /* verify's manifest check reports it */
    if (!line->path)
        return se_fail(err, SE_ERR_VALIDATION, "%s:%zu: %s", SE_MANIFEST_NAME, line->line_no,
                       line->why);
    if (rd->n_files == rd->cap_files) {
        size_t cap = rd->cap_files ? 2 * rd->cap_files : 512;
        se_run_file *v = realloc(rd->files, cap * sizeof *v);
        if (!v)
            return se_fail(err, SE_ERR_NOMEM, "%s: out of memory", SE_MANIFEST_NAME);
        rd->files = v;
        rd->cap_files = cap;
    }
    se_run_file *e = &rd->files[rd->n_files];
    memset(e, 0, sizeof *e);
    e->path = strdup(line->path);
    if (!e->path)
        return se_fail(err, SE_ERR_NOMEM, "%s: out of memory", SE_MANIFEST_NAME);
    memcpy(e->listed, line->hex, sizeof e->listed);
    rd->n_files++;
    return SE_OK;
}

/* The derived results: summary.json's for a version 2 summary, computed
 * for a version 1 one (grid_barrier_ns as recorded, shapes computed). */
static se_status derive(se_rundata *rd, se_err *err)
{
    json_t *rec = json_object_get(rd->summary, "derived");
    if (rd->summary_version >= SE_SUMMARY_VERSION_DERIVED) {
        if (!json_is_array(json_object_get(rec, "shapes")))
            return se_fail(err, SE_ERR_VALIDATION, "%s: field 'derived.shapes': expected an array "
                           "in a version %d summary", SE_SUMMARY_JSON, rd->summary_version);
        rd->derived = json_incref(rec);
        return SE_OK;
    }
    json_t *d = json_is_object(rec) ? json_deep_copy(rec) : json_object();
    json_t *shapes = NULL;
    se_status st = d ? se_derived_shapes(&rd->p, rd->summary, rd->validation, rd->peers, &shapes,
                                         err)
                     : se_fail(err, SE_ERR_NOMEM, "%s: derived: out of memory", SE_SUMMARY_JSON);
    if (st == SE_OK)
        json_object_set_new(d, "shapes", shapes);
    if (st == SE_OK)
        rd->derived = d;
    else
        json_decref(d);
    return st;
}

const json_t *se_rundata_derived(const se_rundata *rd)
{
    return rd->derived;
}

const se_run_views *se_rundata_views(const se_rundata *rd)
{
    return rd->views;
}

/* Where load_all sends a problem: a strict load stops at the first (err),
 * a lenient one reports each through problem and goes on. */
typedef struct loader {
    se_rundata_problem_fn problem; /* NULL: strict */
    void *ctx;
    size_t problems;
} loader;

/* A failed step: strict loads return st; lenient ones report "<rel>: cannot
 * be read: <why>" and continue (SE_OK). */
static se_status failed(loader *ld, const char *rel, se_status st, const se_err *e)
{
    if (!ld->problem)
        return st;
    size_t n = strlen(rel);
    const char *why = e->msg;
    if (strncmp(why, rel, n) == 0 && why[n] == ':')
        why += n + 1 + (why[n + 1] == ' ');
    char msg[sizeof e->msg + 256];
    snprintf(msg, sizeof msg, "%s: cannot be read: %s", rel, why);
    ld->problem(ld->ctx, msg);
    ld->problems++;
    return SE_OK;
}

static se_status load_all(const char *dir, se_rundata *rd, loader *ld, se_err *err)
{
    memset(rd, 0, sizeof *rd);
    if (strlen(dir) >= sizeof rd->dir)
        return se_fail(err, SE_ERR_USAGE, "RUN_DIR '%.80s...' is too long", dir);
    snprintf(rd->dir, sizeof rd->dir, "%s", dir);
    rd->lenient = ld->problem != NULL;
    static const struct {
        const char *rel, *format;
        int max_version;
        size_t offset;
    } files[] = {
        {SE_RUN_JSON, SE_RUN_FORMAT, 1, offsetof(se_rundata, run)},
        {SE_ENVIRONMENT_JSON, SE_ENVIRONMENT_FORMAT, 1, offsetof(se_rundata, env)},
        {SE_SUMMARY_JSON, SE_SUMMARY_FORMAT, SE_SUMMARY_VERSION, offsetof(se_rundata, summary)},
        {SE_VALIDATION_JSON, SE_VALIDATION_FORMAT, 1, offsetof(se_rundata, validation)},
        {SE_RESOURCES_JSON, SE_RESOURCES_FORMAT, 1, offsetof(se_rundata, resources)},
        {SE_TRACES_JSON, SE_TRACES_FORMAT, 1, offsetof(se_rundata, traces)},
    };
    se_status st = SE_OK;
    se_err e = {{0}};
    for (size_t i = 0; st == SE_OK && i < sizeof files / sizeof files[0]; i++) {
        st = load_json(rd, files[i].rel, files[i].format, files[i].max_version,
                       files[i].offset == offsetof(se_rundata, summary) ? &rd->summary_version
                                                                        : NULL,
                       (json_t **)((char *)rd + files[i].offset), &e);
        if (st != SE_OK)
            st = failed(ld, files[i].rel, st, &e);
    }
    char path[4400];
    se_rundata_path(rd, SE_PEERS_FILE, path, sizeof path);
    if (st == SE_OK && access(path, F_OK) == 0) {
        st = load_json(rd, SE_PEERS_FILE, SE_PEERS_FORMAT, SE_PEERS_VERSION, NULL, &rd->peers, &e);
        if (st != SE_OK)
            st = failed(ld, SE_PEERS_FILE, st, &e);
    }
    se_rundata_path(rd, SE_PROFILE_JSON, path, sizeof path);
    if (st == SE_OK && access(path, F_OK) == 0) {
        st = load_json(rd, SE_PROFILE_JSON, SE_PROFILE_FORMAT, 1, NULL, &rd->profile, &e);
        if (st != SE_OK)
            st = failed(ld, SE_PROFILE_JSON, st, &e);
    }
    int table_ok = 1;
    se_rundata_path(rd, SE_STRATEGIES_JSON, path, sizeof path);
    if (st == SE_OK && access(path, F_OK) == 0) {
        json_t *j = NULL;
        st = load_json(rd, SE_STRATEGIES_JSON, SE_STRATEGIES_FORMAT, SE_STRATEGIES_VERSION, NULL,
                       &j, &e);
        if (st == SE_OK)
            st = se_describe_parse(j, SE_STRATEGIES_JSON, &rd->described, &e);
        json_decref(j);
        table_ok = st == SE_OK;
        if (st != SE_OK)
            st = failed(ld, SE_STRATEGIES_JSON, st, &e);
    }
    if (st == SE_OK && !table_ok && ld->problem) {
        /* Without its table the run's protocol cannot be read. */
        char msg[256];
        snprintf(msg, sizeof msg, "%s: not read: %s cannot be read", SE_PROTOCOL_JSON,
                 SE_STRATEGIES_JSON);
        ld->problem(ld->ctx, msg);
        ld->problems++;
    }
    if (st == SE_OK && table_ok) {
        /* Read as untrusted input below the run (no link, FIFO or device). */
        char *text = NULL;
        size_t len = 0;
        st = se_read_below(rd->dir, SE_PROTOCOL_JSON, SE_JSON_MAX_BYTES, &text, &len, &e);
        if (st == SE_OK)
            st = se_protocol_parse_table(text, len, SE_PROTOCOL_JSON, se_rundata_table(rd),
                                         &rd->p, &e);
        free(text);
        rd->have_protocol = st == SE_OK;
        if (st != SE_OK && ld->problem) {
            char msg[sizeof e.msg + 32];
            snprintf(msg, sizeof msg, "%s: %s", SE_PROTOCOL_JSON, e.msg);
            ld->problem(ld->ctx, msg);
            ld->problems++;
            st = SE_OK;
        }
    }
    if (st == SE_OK && rd->run) {
        const char *id = json_string_value(json_object_get(rd->run, "run_id"));
        if (!id || !*id || strlen(id) >= sizeof rd->run_id) {
            st = se_fail(&e, SE_ERR_VALIDATION, "%s: field 'run_id': expected a run id",
                         SE_RUN_JSON);
            if (ld->problem) {
                ld->problem(ld->ctx, e.msg);
                ld->problems++;
                st = SE_OK;
            }
        } else {
            snprintf(rd->run_id, sizeof rd->run_id, "%s", id);
        }
    }
    if (st == SE_OK) {
        st = se_manifest_read(rd->dir, SE_MANIFEST_NAME, add_file, rd, &e);
        if (st != SE_OK)
            st = failed(ld, SE_MANIFEST_NAME, st, &e);
    }
    if (st == SE_OK && rd->summary && rd->have_protocol) {
        st = derive(rd, &e);
        if (st != SE_OK && ld->problem) {
            ld->problem(ld->ctx, e.msg);
            ld->problems++;
            st = SE_OK;
        }
    }
    if (st == SE_OK && !ld->problem) {
        se_views_json in = {rd->run,        rd->env,    rd->summary, rd->derived,
                            rd->validation, rd->traces, rd->peers, rd->resources};
        st = se_views_load(&in, &rd->views, &e);
    }
    if (st != SE_OK) {
        se_fail(err, st, "%s", e.msg);
        se_rundata_free(rd);
    }
    return st;
}

se_status se_rundata_load(const char *dir, se_rundata *rd, se_err *err)
{
    loader ld = {NULL, NULL, 0};
    return load_all(dir, rd, &ld, err);
}

size_t se_rundata_load_each(const char *dir, se_rundata *rd, se_rundata_problem_fn problem,
                            void *ctx)
{
    loader ld = {problem, ctx, 0};
    se_err err = {{0}};
    if (load_all(dir, rd, &ld, &err) != SE_OK) {
        problem(ctx, err.msg);
        ld.problems++;
    }
    return ld.problems;
}

void se_rundata_free(se_rundata *rd)
{
    json_decref(rd->run);
    json_decref(rd->env);
    json_decref(rd->summary);
    json_decref(rd->validation);
    json_decref(rd->resources);
    json_decref(rd->traces);
    json_decref(rd->peers);
    json_decref(rd->derived);
    json_decref(rd->profile);
    se_views_free(rd->views);
    if (rd->have_protocol)
        se_protocol_free(&rd->p);
    se_run_strategies_free(rd->described);
    for (size_t i = 0; i < rd->n_files; i++)
        free(rd->files[i].path);
    free(rd->files);
    memset(rd, 0, sizeof *rd);
}

const se_strategy_table *se_rundata_table(const se_rundata *rd)
{
    return rd->described ? &rd->described->table : se_strategy_legacy_v1();
}

const se_operation *se_rundata_operation(const se_rundata *rd)
{
    return rd->described && rd->described->op ? rd->described->op : se_operation_default();
}

static se_run_file *find_file(const se_rundata *rd, const char *rel)
{
    for (size_t i = 0; i < rd->n_files; i++)
        if (strcmp(rd->files[i].path, rel) == 0)
            return &rd->files[i];
    return NULL;
}

int se_rundata_listed(const se_rundata *rd, const char *rel)
{
    return find_file(rd, rel) != NULL;
}

se_status se_rundata_hash(se_rundata *rd, const char *rel, char hex[65], se_err *err)
{
    se_run_file *e = find_file(rd, rel);
    if (!e)
        return se_fail(err, SE_ERR_VALIDATION, "%s: not listed in the run's %s", rel,
                       SE_MANIFEST_NAME);
    if (!e->actual[0]) {
        char path[4400];
        unsigned char d[32];
        se_rundata_path(rd, rel, path, sizeof path);
        se_status st = se_sha256_file(path, d, err);
        if (st != SE_OK)
            return st;
        se_hex32(d, e->actual);
    }
    if (strcmp(e->actual, e->listed) != 0)
        return se_fail(err, SE_ERR_VALIDATION,
                       "%s changed after the run was verified: %s lists %s, the file hashes to %s",
                       rel, SE_MANIFEST_NAME, e->listed, e->actual);
    memcpy(hex, e->actual, 65);
    return SE_OK;
}

se_status se_rundata_samples(const se_rundata *rd, const char *rel, se_sample_set *sets,
                             int n_scopes, se_err *err)
{
    return se_samples_load(rd->dir, rel, sets, n_scopes, err);
}

se_status se_rundata_trace(const se_rundata *rd, const char *rel, se_trace *t, se_err *err)
{
    FILE *f;
    se_status st = se_fopen_below(rd->dir, rel, SE_TRACE_MAX_BYTES, &f, NULL, err);
    if (st != SE_OK)
        return st;
    st = se_trace_read(f, rel, t, err);
    fclose(f);
    return st;
}

void se_rundata_shape_id(const se_shape *s, char *buf, size_t size)
{
    se_shape_id(s->rows, s->cols, buf, size);
}

json_t *se_rundata_find(const json_t *array, const char *key, const char *value)
{
    size_t i;
    json_t *e;
    json_array_foreach(array, i, e) {
        const char *v = json_string_value(json_object_get(e, key));
        if (v && strcmp(v, value) == 0)
            return e;
    }
    return NULL;
}

json_t *se_rundata_summary_case(const se_rundata *rd, const char *case_id)
{
    json_t *c = se_rundata_find(json_object_get(rd->summary, "cases"), "case", case_id);
    return c ? c : se_rundata_find(json_object_get(rd->summary, "controls"), "case", case_id);
}

json_t *se_rundata_validation_case(const se_rundata *rd, const char *case_id)
{
    return se_rundata_find(json_object_get(rd->validation, "cases"), "case", case_id);
}

double se_json_num(const json_t *o, const char *key)
{
    return json_number_value(json_object_get(o, key));
}

json_t *se_json_path(const json_t *o, const char *path)
{
    char key[128];
    const json_t *cur = o;
    while (cur && *path) {
        size_t n = strcspn(path, ".");
        if (n >= sizeof key)
            return NULL;
        memcpy(key, path, n);
        key[n] = '\0';
        cur = json_object_get(cur, key);
        path += n;
        if (*path == '.')
            path++;
    }
    return (json_t *)cur;
}

const char *se_json_str(const json_t *o, const char *key, const char *fallback)
{
    const char *s = json_string_value(json_object_get(o, key));
    return s ? s : fallback;
}

se_status se_rundata_same_workload(const se_rundata *ref, const se_rundata *rd, se_err *err)
{
    const se_operation *op_ref = se_rundata_operation(ref), *op = se_rundata_operation(rd);
    if (op != op_ref)
        return se_fail(err, SE_ERR_USAGE,
                       "%s measures %s (" SE_STRATEGIES_JSON "'s workload), %s measures %s; runs "
                       "compared must share their protocol's workload",
                       rd->dir, op->name, ref->dir, op_ref->name);
    /* The same strategies by name, in the same order: each run's mask is
     * over its own table. */
    int same = rd->p.n_shapes == ref->p.n_shapes &&
               __builtin_popcount(rd->p.strategies) == __builtin_popcount(ref->p.strategies);
    for (int a = 0, b = 0; same; a++, b++) {
        while (a < se_protocol_nstrategies(&ref->p) && !((ref->p.strategies >> a) & 1u))
            a++;
        while (b < se_protocol_nstrategies(&rd->p) && !((rd->p.strategies >> b) & 1u))
            b++;
        if (a >= se_protocol_nstrategies(&ref->p) || b >= se_protocol_nstrategies(&rd->p))
            break;
        same = strcmp(se_protocol_strategy(&ref->p, a)->name,
                      se_protocol_strategy(&rd->p, b)->name) == 0;
    }
    if (!same)
        return se_fail(err, SE_ERR_USAGE,
                       "%s: its protocol has other shapes or strategies than %s's; runs compared "
                       "must share their protocol's workload", rd->dir, ref->dir);
    for (size_t i = 0; i < rd->p.n_shapes; i++)
        if (rd->p.shapes[i].rows != ref->p.shapes[i].rows ||
            rd->p.shapes[i].cols != ref->p.shapes[i].cols || rd->p.tile != ref->p.tile)
            return se_fail(err, SE_ERR_USAGE,
                           "%s: shape %zu or the tile differs from %s's; runs compared "
                           "must share their protocol's workload", rd->dir, i + 1, ref->dir);
    return SE_OK;
}
