/*
 * rundata.c - loading a verified run for the figures command (see
 * rundata.h).
 */
#define _POSIX_C_SOURCE 200809L
#include "bundle/rundata.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "bundle/manifest.h"
#include "bundle/summary.h"
#include "bundle/peers.h"

void se_rundata_path(const se_rundata *rd, const char *rel, char *path, size_t size)
{
    snprintf(path, size, "%s/%s", rd->dir, rel);
}

static se_status load_json(const se_rundata *rd, const char *rel, const char *format, json_t **out,
                           se_err *err)
{
    char path[4400];
    se_rundata_path(rd, rel, path, sizeof path);
    json_error_t je;
    json_t *j = json_load_file(path, JSON_REJECT_DUPLICATES, &je);
    if (!j)
        return se_fail(err, SE_ERR_IO, "%s:%d:%d: %s", rel, je.line, je.column, je.text);
    const char *f = json_string_value(json_object_get(j, "format"));
    if (!f || strcmp(f, format) != 0 || json_integer_value(json_object_get(j, "version")) != 1) {
        json_decref(j);
        return se_fail(err, SE_ERR_VALIDATION, "%s: field 'format'/'version': expected %s version 1",
                       rel, format);
    }
    *out = j;
    return SE_OK;
}

static int is_hex64(const char *s)
{
    for (int i = 0; i < 64; i++)
        if (!((s[i] >= '0' && s[i] <= '9') || (s[i] >= 'a' && s[i] <= 'f')))
            return 0;
    return 1;
}

/* Reads MANIFEST.sha256 ("<hex>  <path>" lines; verify has checked them). */
static se_status load_manifest(se_rundata *rd, se_err *err)
{
    char path[4400];
    se_rundata_path(rd, SE_MANIFEST_NAME, path, sizeof path);
    FILE *f = fopen(path, "rb");
    if (!f)
        return se_fail(err, SE_ERR_IO, "%s: cannot be read: %s", SE_MANIFEST_NAME, strerror(errno));
    char line[4400];
    size_t cap = 0;
    long lineno = 0;
    se_status st = SE_OK;
    while (st == SE_OK && fgets(line, sizeof line, f)) {
        lineno++;
        size_t len = strlen(line);
        if (len && line[len - 1] == '\n')
            line[--len] = '\0';
        if (len < 67 || !is_hex64(line) || line[64] != ' ' || line[65] != ' ') {
            st = se_fail(err, SE_ERR_VALIDATION, "%s:%ld: expected '<sha256>  <path>'",
                         SE_MANIFEST_NAME, lineno);
            break;
        }
        if (rd->n_files == cap) {
            cap = cap ? 2 * cap : 512;
            se_run_file *v = realloc(rd->files, cap * sizeof *v);
            if (!v) {
                st = se_fail(err, SE_ERR_NOMEM, "%s: out of memory", SE_MANIFEST_NAME);
                break;
            }
            rd->files = v;
        }
        se_run_file *e = &rd->files[rd->n_files];
        memset(e, 0, sizeof *e);
        e->path = strdup(line + 66);
        if (!e->path) {
            st = se_fail(err, SE_ERR_NOMEM, "%s: out of memory", SE_MANIFEST_NAME);
            break;
        }
        memcpy(e->listed, line, 64);
        rd->n_files++;
    }
    fclose(f);
    return st;
}

se_status se_rundata_load(const char *dir, se_rundata *rd, se_err *err)
{
    memset(rd, 0, sizeof *rd);
    if (strlen(dir) >= sizeof rd->dir)
        return se_fail(err, SE_ERR_USAGE, "RUN_DIR '%.80s...' is too long", dir);
    snprintf(rd->dir, sizeof rd->dir, "%s", dir);
    static const struct {
        const char *rel, *format;
        size_t offset;
    } files[] = {
        {"run.json", "softmax-evidence-run", offsetof(se_rundata, run)},
        {"environment.json", "softmax-evidence-environment", offsetof(se_rundata, env)},
        {"summary.json", SE_SUMMARY_FORMAT, offsetof(se_rundata, summary)},
        {"validation.json", "softmax-evidence-validation", offsetof(se_rundata, validation)},
        {"resources.json", "softmax-evidence-resources", offsetof(se_rundata, resources)},
        {"traces.json", SE_TRACES_FORMAT, offsetof(se_rundata, traces)},
    };
    se_status st = SE_OK;
    for (size_t i = 0; st == SE_OK && i < sizeof files / sizeof files[0]; i++)
        st = load_json(rd, files[i].rel, files[i].format,
                       (json_t **)((char *)rd + files[i].offset), err);
    char path[4400];
    se_rundata_path(rd, SE_PEERS_FILE, path, sizeof path);
    if (st == SE_OK && access(path, F_OK) == 0)
        st = load_json(rd, SE_PEERS_FILE, SE_PEERS_FORMAT, &rd->peers, err);
    if (st == SE_OK) {
        se_rundata_path(rd, "protocol.json", path, sizeof path);
        st = se_protocol_load(path, &rd->p, err);
        rd->have_protocol = st == SE_OK;
    }
    if (st == SE_OK) {
        const char *id = json_string_value(json_object_get(rd->run, "run_id"));
        if (!id || !*id || strlen(id) >= sizeof rd->run_id)
            st = se_fail(err, SE_ERR_VALIDATION, "run.json: field 'run_id': expected a run id");
        else
            snprintf(rd->run_id, sizeof rd->run_id, "%s", id);
    }
    if (st == SE_OK)
        st = load_manifest(rd, err);
    if (st != SE_OK)
        se_rundata_free(rd);
    return st;
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
    if (rd->have_protocol)
        se_protocol_free(&rd->p);
    for (size_t i = 0; i < rd->n_files; i++)
        free(rd->files[i].path);
    free(rd->files);
    memset(rd, 0, sizeof *rd);
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
    char path[4400];
    se_rundata_path(rd, rel, path, sizeof path);
    FILE *f = fopen(path, "rb");
    if (!f)
        return se_fail(err, SE_ERR_IO, "%s: cannot be read: %s", rel, strerror(errno));
    se_status st = se_trace_read(f, rel, t, err);
    fclose(f);
    return st;
}

void se_rundata_shape_id(const se_shape *s, char *buf, size_t size)
{
    snprintf(buf, size, "%" PRId64 "x%" PRId64, s->rows, s->cols);
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
