/*
 * remote.c - remote.json, the record of a run's remote-only files (see
 * remote.h): reading it as untrusted input, writing it, and the complete
 * run's manifest it names.
 */
#define _POSIX_C_SOURCE 200809L
#include "bundle/remote.h"

#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <jansson.h>

#include "bundle/fsutil.h"
#include "bundle/paths.h"
#include "bundle/sha256.h"
#include "model/json.h"

static int ends_with(const char *s, const char *tail)
{
    size_t n = strlen(s), m = strlen(tail);
    return n >= m && strcmp(s + n - m, tail) == 0;
}

int se_remote_path_allowed(const char *path)
{
    if (strcmp(path, SE_PROFILE_NCU_RAW_CSV) == 0)
        return 1;
    if (strncmp(path, SE_ARRAYS_PREFIX, 7) == 0)
        return !strchr(path + 7, '/') && strlen(path) > 7 + 4 && ends_with(path, ".f32");
    if (strncmp(path, SE_CHECKS_PREFIX, 7) == 0) /* re-derived where present: rederive.h */
        return !strchr(path + 7, '/') && strlen(path) > 7 + 4 && ends_with(path, ".f32");
    if (strncmp(path, SE_TRACES_PREFIX, 7) == 0)
        return !strchr(path + 7, '/') && strlen(path) > 7 + 4 && ends_with(path, ".csv") &&
               strcmp(path, SE_TRACE_OUTPUTS_CSV) != 0 && !ends_with(path, ".traced.csv") &&
               !ends_with(path, ".untraced.csv");
    return 0;
}

void se_remote_free(se_remote *r)
{
    for (size_t i = 0; i < r->n_files; i++)
        free(r->files[i]);
    free(r->files);
    memset(r, 0, sizeof *r);
}

static int plain_name(const char *s)
{
    size_t n = strlen(s);
    if (n == 0 || n > 255 || strcmp(s, ".") == 0 || strcmp(s, "..") == 0)
        return 0;
    for (; *s; s++)
        if (!((*s >= 'a' && *s <= 'z') || (*s >= 'A' && *s <= 'Z') || (*s >= '0' && *s <= '9') ||
              *s == '.' || *s == '_' || *s == '+' || *s == '-'))
            return 0;
    return 1;
}

/* A string field of at most size-1 bytes passing ok(), copied into buf. */
static se_status get_text(const json_t *o, const char *key, const char *where, int (*ok)(const char *),
                          const char *want, char *buf, size_t size, se_err *err)
{
    const char *s;
    se_status st = se_json_get_str(o, key, &s, where, err);
    if (st != SE_OK)
        return st;
    if (strlen(s) >= size || !ok(s)) {
        char shown[300];
        se_printable(s, shown, sizeof shown);
        return se_fail(err, SE_ERR_VALIDATION, "%s: field '%s': expected %s, got '%.200s'", where,
                       key, want, shown);
    }
    snprintf(buf, size, "%s", s);
    return SE_OK;
}

static int run_id_ok(const char *s)
{
    return plain_name(s) && strlen(s) < 64;
}

se_status se_remote_load(const char *dir, se_remote *r, int *present, se_err *err)
{
    memset(r, 0, sizeof *r);
    *present = 0;
    char path[4400];
    se_path_join(dir, SE_REMOTE_JSON, path, sizeof path);
    if (access(path, F_OK) != 0)
        return SE_OK;
    *present = 1;
    json_t *j = NULL;
    se_status st = se_json_load(path, SE_REMOTE_JSON, SE_REMOTE_FORMAT, 1, NULL, &j, err);
    if (st != SE_OK)
        return st;
    static const char where[] = SE_REMOTE_JSON, awhere[] = SE_REMOTE_JSON ": archive";
    const json_t *a = json_object_get(j, "archive"), *files = json_object_get(j, "files");
    json_int_t bytes = 0;
    st = get_text(j, "run_id", where, run_id_ok, "a run id", r->run_id, sizeof r->run_id, err);
    if (st == SE_OK && !json_is_object(a))
        st = se_fail(err, SE_ERR_VALIDATION, "%s: field 'archive': expected an object, got %s",
                     where, se_json_type_name(a));
    if (st == SE_OK)
        st = get_text(a, "name", awhere, plain_name, "a file name of [A-Za-z0-9._+-]",
                      r->archive_name, sizeof r->archive_name, err);
    if (st == SE_OK)
        st = get_text(a, "sha256", awhere, se_is_hex64, "64 lowercase hex digits", r->archive_sha256,
                      sizeof r->archive_sha256, err);
    if (st == SE_OK)
        st = se_json_get_int(a, "bytes", 0, INT64_MAX, &bytes, awhere, err);
    r->archive_bytes = (uint64_t)bytes;
    if (st == SE_OK)
        st = get_text(j, "complete_manifest_sha256", where, se_is_hex64, "64 lowercase hex digits",
                      r->manifest_sha256, sizeof r->manifest_sha256, err);
    const json_t *lines = json_object_get(j, "remote_lines_sha256");
    if (st == SE_OK && lines)
        st = get_text(j, "remote_lines_sha256", where, se_is_hex64, "64 lowercase hex digits",
                      r->lines_sha256, sizeof r->lines_sha256, err);
    if (st == SE_OK && !json_is_array(files))
        st = se_fail(err, SE_ERR_VALIDATION, "%s: field 'files': expected an array, got %s", where,
                     se_json_type_name(files));
    size_t n = st == SE_OK ? json_array_size(files) : 0;
    if (st == SE_OK && n > SE_REMOTE_MAX_FILES)
        st = se_fail(err, SE_ERR_LIMIT, "%s: field 'files': %zu entries, more than a manifest may "
                     "list", where, n);
    if (st == SE_OK && !(r->files = calloc(n ? n : 1, sizeof *r->files)))
        st = se_fail(err, SE_ERR_NOMEM, "%s: out of memory", where);
    for (size_t i = 0; st == SE_OK && i < n; i++) {
        const char *f = json_string_value(json_array_get(files, i));
        char shown[300];
        se_printable(f ? f : "", shown, sizeof shown);
        if (!f)
            st = se_fail(err, SE_ERR_VALIDATION, "%s: field 'files[%zu]': expected a string, got %s",
                         where, i, se_json_type_name(json_array_get(files, i)));
        else if (!se_remote_path_allowed(f))
            st = se_fail(err, SE_ERR_VALIDATION, "%s: field 'files[%zu]': '%.200s' may not be "
                         "remote-only (verify needs it here)", where, i, shown);
        else if (i > 0 && strcmp(r->files[i - 1], f) >= 0)
            st = se_fail(err, SE_ERR_VALIDATION, "%s: field 'files[%zu]': '%.200s' is out of order "
                         "or repeated (the list is sorted bytewise, each path once)", where, i,
                         shown);
        else if (!(r->files[i] = strdup(f)))
            st = se_fail(err, SE_ERR_NOMEM, "%s: out of memory", where);
        else
            r->n_files = i + 1;
    }
    json_decref(j);
    if (st != SE_OK)
        se_remote_free(r);
    return st;
}

se_status se_remote_write(const char *dir, const char *rel, const se_remote *r, se_err *err)
{
    const char *lines = r->lines_sha256; /* se_remote_lines_sha256, by the caller */
    json_t *files = json_array();
    for (size_t i = 0; files && i < r->n_files; i++)
        json_array_append_new(files, json_string(r->files[i]));
    json_t *j = json_pack("{s:s, s:i, s:s, s:{s:s, s:s, s:I}, s:s, s:s, s:s, s:o}", "format",
                          SE_REMOTE_FORMAT, "version", 1, "run_id", r->run_id, "archive", "name",
                          r->archive_name, "sha256", r->archive_sha256, "bytes",
                          (json_int_t)r->archive_bytes, "complete_manifest_sha256",
                          r->manifest_sha256, "remote_lines_sha256", lines, "note",
                          "the files listed here live only in the archive named above (the "
                          "complete run); verify --archive checks them against " SE_MANIFEST_NAME,
                          "files", files);
    char *text = j ? json_dumps(j, JSON_INDENT(2) | JSON_PRESERVE_ORDER) : NULL;
    json_decref(j);
    if (!text)
        return se_fail(err, SE_ERR_NOMEM, "%s: out of memory", SE_REMOTE_JSON);
    char path[4400];
    se_path_join(dir, rel, path, sizeof path);
    FILE *f = NULL;
    se_status st = se_fcreate_new(path, path, &f, err);
    int ok = f && fputs(text, f) >= 0 && fputc('\n', f) != EOF;
    if (f)
        ok = fclose(f) == 0 && ok;
    free(text);
    if (st != SE_OK)
        return st;
    return ok ? SE_OK : se_fail(err, SE_ERR_IO, "%s cannot be written", path);
}

int se_remote_has(const se_remote *r, const char *path)
{
    size_t lo = 0, hi = r->n_files;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        int c = strcmp(r->files[mid], path);
        if (c == 0)
            return 1;
        if (c < 0)
            lo = mid + 1;
        else
            hi = mid;
    }
    return 0;
}
