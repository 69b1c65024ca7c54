/*
 * runset.c - the run set file (see runset.h).
 */
#define _POSIX_C_SOURCE 200809L
#include "bundle/runset.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bundle/paths.h"
#include "model/json.h"

void se_runset_free(se_runset *s)
{
    for (size_t i = 0; s->dirs && i < s->n; i++)
        free(s->dirs[i]);
    free(s->dirs);
    memset(s, 0, sizeof *s);
}

/* An entry must stay below the set's folder: relative, no "." or "..". */
static int entry_ok(const char *e)
{
    if (!e[0] || e[0] == '/')
        return 0;
    for (const char *p = e; *p;) {
        const char *q = strchr(p, '/');
        size_t len = q ? (size_t)(q - p) : strlen(p);
        if (len == 0 || (len == 1 && p[0] == '.') || (len == 2 && p[0] == '.' && p[1] == '.'))
            return 0;
        p += len + (q != NULL);
        if (q && !*p)
            return 0; /* a trailing slash */
    }
    return 1;
}

se_status se_runset_load(const char *path, se_runset *s, se_err *err)
{
    memset(s, 0, sizeof *s);
    json_t *j = NULL;
    se_status st = se_json_load(path, path, SE_RUNSET_FORMAT, 1, NULL, &j, err);
    if (st != SE_OK)
        return st;
    const json_t *runs = json_object_get(j, "runs");
    size_t n = json_array_size(runs);
    if (!json_is_array(runs) || n == 0 || n > SE_RUNSET_MAX_RUNS)
        st = se_fail(err, SE_ERR_VALIDATION, "%s: field 'runs': expected an array of 1 to %d run "
                     "directories, got %s", path, SE_RUNSET_MAX_RUNS,
                     json_is_array(runs) ? "another count" : se_json_type_name(runs));
    char folder[4096];
    snprintf(folder, sizeof folder, "%s", path);
    char *slash = strrchr(folder, '/');
    if (slash)
        slash[slash == folder ? 1 : 0] = '\0';
    else
        snprintf(folder, sizeof folder, ".");
    if (st == SE_OK && !(s->dirs = calloc(n, sizeof *s->dirs)))
        st = se_fail(err, SE_ERR_NOMEM, "%s: out of memory", path);
    for (size_t i = 0; st == SE_OK && i < n; i++) {
        const json_t *e = json_array_get(runs, i);
        const char *v = json_string_value(e);
        if (!v || !entry_ok(v)) {
            char shown[128];
            se_printable(v ? v : se_json_type_name(e), shown, sizeof shown);
            st = se_fail(err, SE_ERR_VALIDATION, "%s: runs[%zu] = '%s': expected a run "
                         "directory relative to the set's folder (not absolute, no '.' or '..')",
                         path, i, shown);
            break;
        }
        for (size_t k = 0; k < i; k++)
            if (strcmp(json_string_value(json_array_get(runs, k)), v) == 0)
                st = se_fail(err, SE_ERR_VALIDATION, "%s: runs[%zu] = '%s' is listed twice",
                             path, i, v);
        size_t len = strlen(folder) + strlen(v) + 2;
        if (st == SE_OK && !(s->dirs[i] = malloc(len)))
            st = se_fail(err, SE_ERR_NOMEM, "%s: out of memory", path);
        if (st == SE_OK) {
            snprintf(s->dirs[i], len, "%s/%s", folder, v);
            s->n = i + 1;
        }
    }
    json_decref(j);
    if (st != SE_OK)
        se_runset_free(s);
    return st;
}
