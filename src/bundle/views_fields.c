/*
 * views_fields.c - the readers of one field that every view loader shares
 * (see views_fields.h): each field read once through json_unpack_ex, so a
 * value of the wrong type is refused with jansson's own words and the file
 * and field named.
 */
#include "bundle/views_fields.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static views_at at_sub(const views_at *a, const char *fmt, const char *key, size_t i)
{
    views_at s = *a;
    char tail[96];
    snprintf(tail, sizeof tail, fmt, key, i);
    int n = snprintf(s.path, sizeof s.path, "%s%s%s", a->path,
                     a->path[0] && tail[0] != '[' ? "." : "", tail);
    if (n < 0 || (size_t)n >= sizeof s.path)
        s.path[sizeof s.path - 1] = '\0'; /* cut short: still names the file */
    return s;
}

views_at views_at_key(const views_at *a, const char *key)
{
    return at_sub(a, "%s", key, 0);
}

views_at views_at_index(const views_at *a, const char *key, size_t i)
{
    return at_sub(a, "%s[%zu]", key, i);
}

static se_status refuse(const views_at *a, const char *key, const char *why)
{
    return se_fail(a->err, SE_ERR_VALIDATION, "%s: field '%s%s%s': %s", a->file, a->path,
                   a->path[0] ? "." : "", key, why);
}

/* o[key] unpacked with fmt into out; absent or null leaves *has 0. */
static se_status field(const views_at *a, const json_t *o, const char *key, const char *fmt,
                       void *out, int *has)
{
    const json_t *v = json_object_get(o, key);
    if (has)
        *has = 0;
    if (!v || json_is_null(v))
        return SE_OK;
    json_error_t je;
    if (json_unpack_ex((json_t *)v, &je, 0, fmt, out) != 0)
        return refuse(a, key, je.text);
    if (has)
        *has = 1;
    return SE_OK;
}

se_status views_num(const views_at *a, const json_t *o, const char *key, double *out, int *has)
{
    return field(a, o, key, "F", out, has);
}

se_status views_integer(const views_at *a, const json_t *o, const char *key, long long *out)
{
    json_int_t v = 0;
    se_status st = field(a, o, key, "I", &v, NULL);
    *out = (long long)v;
    return st;
}

se_status views_str(const views_at *a, const json_t *o, const char *key, const char **out)
{
    *out = NULL;
    return field(a, o, key, "s", out, NULL);
}

se_status views_flag(const views_at *a, const json_t *o, const char *key, int *out)
{
    int has = 0, v = 0;
    se_status st = field(a, o, key, "b", &v, &has);
    *out = has ? v : -1;
    return st;
}

se_status views_truth(const views_at *a, const json_t *o, const char *key, int *out)
{
    int v = -1;
    se_status st = views_flag(a, o, key, &v);
    *out = v == 1;
    return st;
}

se_status views_pair(const views_at *a, const json_t *o, const char *key, double out[2],
                     int *has)
{
    const json_t *v = json_object_get(o, key);
    *has = 0;
    if (!v || json_is_null(v))
        return SE_OK;
    json_error_t je;
    if (json_unpack_ex((json_t *)v, &je, 0, "[FF!]", &out[0], &out[1]) != 0) {
        char why[sizeof je.text + 48];
        snprintf(why, sizeof why, "expected [lo, hi], two numbers (%s)", je.text);
        return refuse(a, key, why);
    }
    *has = 1;
    return SE_OK;
}

se_status views_object(const views_at *a, const json_t *o, const char *key, const json_t **out)
{
    *out = NULL;
    json_t *v = NULL;
    se_status st = field(a, o, key, "o", &v, NULL);
    if (st == SE_OK && v && !json_is_object(v))
        return refuse(a, key, "expected an object");
    *out = v;
    return st;
}

se_status views_array(const views_at *a, const json_t *o, const char *key, const json_t **out,
                      size_t *n)
{
    json_t *v = NULL;
    se_status st = field(a, o, key, "o", &v, NULL);
    if (st == SE_OK && v && !json_is_array(v))
        return refuse(a, key, "expected an array");
    *out = v;
    *n = json_array_size(v);
    return st;
}

se_status views_strs(const views_at *a, const json_t *o, const views_slot *s, size_t n,
                     void *base)
{
    se_status st = SE_OK;
    for (size_t i = 0; st == SE_OK && i < n; i++)
        st = views_str(a, o, s[i].key, (const char **)((char *)base + s[i].off));
    return st;
}

se_status views_integers(const views_at *a, const json_t *o, const views_slot *s, size_t n,
                         void *base)
{
    se_status st = SE_OK;
    for (size_t i = 0; st == SE_OK && i < n; i++)
        st = views_integer(a, o, s[i].key, (long long *)((char *)base + s[i].off));
    return st;
}

se_status views_nums(const views_at *a, const json_t *o, const views_slot *s, size_t n,
                     void *base)
{
    se_status st = SE_OK;
    for (size_t i = 0; st == SE_OK && i < n; i++)
        st = views_num(a, o, s[i].key, (double *)((char *)base + s[i].off), NULL);
    return st;
}

se_status views_alloc(const views_at *a, size_t n, size_t size, void *out)
{
    void *p = calloc(n + 1, size);
    *(void **)out = p;
    return p ? SE_OK : se_fail(a->err, SE_ERR_NOMEM, "%s: out of memory", a->file);
}
