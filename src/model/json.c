/*
 * json.c - the one JSON loader (see json.h).
 */
#define _POSIX_C_SOURCE 200809L
#include "model/json.h"

#include <errno.h>
#include <fcntl.h>
#include <malloc.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

void se_printable(const char *s, char *buf, size_t size)
{
    size_t o = 0;
    if (!size)
        return;
    for (const unsigned char *c = (const unsigned char *)s; *c && o + 5 < size; c++) {
        if (*c >= 0x20 && *c < 0x7f)
            buf[o++] = (char)*c;
        else
            o += (size_t)snprintf(buf + o, size - o, "\\x%02x", *c);
    }
    buf[o] = '\0';
}

void se_printable_plain(const char *s, char *buf, size_t size)
{
    char plain[4096];
    size_t o = 0;
    for (const unsigned char *c = (const unsigned char *)s; *c && o + 1 < sizeof plain; c++) {
        if (c[0] == 0x1b && c[1] == '[') {
            const unsigned char *e = c + 2;
            while (*e >= 0x30 && *e <= 0x3f) /* parameters */
                e++;
            while (*e >= 0x20 && *e <= 0x2f) /* intermediates */
                e++;
            if (*e >= 0x40 && *e <= 0x7e) { /* final byte: the whole sequence goes */
                c = e;
                continue;
            }
        }
        plain[o++] = (char)*c;
    }
    plain[o] = '\0';
    se_printable(plain, buf, size);
}

const char *se_json_type_name(const json_t *j)
{
    if (!j)
        return "nothing";
    switch (json_typeof(j)) {
    case JSON_OBJECT: return "an object";
    case JSON_ARRAY: return "an array";
    case JSON_STRING: return "a string";
    case JSON_INTEGER: return "an integer";
    case JSON_REAL: return "a real";
    case JSON_TRUE:
    case JSON_FALSE: return "a boolean";
    case JSON_NULL: return "null";
    }
    return "an unknown type";
}

se_status se_json_get_int(const json_t *obj, const char *key, json_int_t min, json_int_t max,
                          json_int_t *out, const char *where, se_err *err)
{
    const json_t *v = json_object_get(obj, key);
    *out = 0;
    if (!json_is_integer(v) || json_integer_value(v) < min || json_integer_value(v) > max)
        return se_fail(err, SE_ERR_VALIDATION,
                       "%s: field '%s': expected an integer from %" JSON_INTEGER_FORMAT
                       " to %" JSON_INTEGER_FORMAT ", got %s", where, key, min, max,
                       json_is_integer(v) ? "one out of range" : se_json_type_name(v));
    *out = json_integer_value(v);
    return SE_OK;
}

se_status se_json_get_real(const json_t *obj, const char *key, double *out, const char *where,
                           se_err *err)
{
    const json_t *v = json_object_get(obj, key);
    *out = 0.0;
    if (!json_is_number(v))
        return se_fail(err, SE_ERR_VALIDATION, "%s: field '%s': expected a number, got %s",
                       where, key, se_json_type_name(v));
    *out = json_number_value(v);
    return SE_OK;
}

se_status se_json_get_bool(const json_t *obj, const char *key, int *out, const char *where,
                           se_err *err)
{
    const json_t *v = json_object_get(obj, key);
    *out = 0;
    if (!json_is_boolean(v))
        return se_fail(err, SE_ERR_VALIDATION, "%s: field '%s': expected true or false, got %s",
                       where, key, se_json_type_name(v));
    *out = json_is_true(v);
    return SE_OK;
}

se_status se_json_get_str(const json_t *obj, const char *key, const char **out,
                          const char *where, se_err *err)
{
    const json_t *v = json_object_get(obj, key);
    *out = NULL;
    if (!json_is_string(v))
        return se_fail(err, SE_ERR_VALIDATION, "%s: field '%s': expected a string, got %s",
                       where, key, se_json_type_name(v));
    *out = json_string_value(v);
    return SE_OK;
}

static se_status check_format(json_t *j, const char *name, const char *format, int max_version,
                              int *version, se_err *err)
{
    if (!format)
        return SE_OK;
    if (!json_is_object(j))
        return se_fail(err, SE_ERR_VALIDATION, "%s: the top level is not a JSON object", name);
    const char *f = json_string_value(json_object_get(j, "format"));
    json_t *v = json_object_get(j, "version");
    if (!f || strcmp(f, format) != 0)
        return se_fail(err, SE_ERR_VALIDATION, "%s: field 'format': expected \"%s\"", name, format);
    if (!json_is_integer(v) || json_integer_value(v) < 1 || json_integer_value(v) > max_version)
        return se_fail(err, SE_ERR_VALIDATION,
                       "%s: field 'version': expected an integer from 1 to %d", name, max_version);
    if (version)
        *version = (int)json_integer_value(v);
    return SE_OK;
}

/* Finds the first value nested deeper than SE_JSON_MAX_DEPTH below v (at
 * depth d), its field path left in path (of size n, used up to at). */
static int too_deep(const json_t *v, int d, char *path, size_t n, size_t at)
{
    if (!json_is_object(v) && !json_is_array(v))
        return 0;
    if (d >= SE_JSON_MAX_DEPTH)
        return 1;
    const char *key;
    json_t *c;
    size_t i;
    if (json_is_object(v)) {
        json_object_foreach((json_t *)v, key, c) {
            int w = snprintf(path + at, n - at, "%s%.40s", at ? "." : "", key);
            if (too_deep(c, d + 1, path, n, at + ((size_t)w < n - at ? (size_t)w : n - at - 1)))
                return 1;
        }
    } else {
        json_array_foreach(v, i, c) {
            int w = snprintf(path + at, n - at, "[%zu]", i);
            if (too_deep(c, d + 1, path, n, at + ((size_t)w < n - at ? (size_t)w : n - at - 1)))
                return 1;
        }
    }
    path[at] = '\0';
    return 0;
}

/* No file of ours nests deeper than a few levels: a deeper one is refused,
 * naming the field where the bound is passed. */
static se_status check_depth(const json_t *j, const char *name, se_err *err)
{
    char path[512] = "";
    if (!too_deep(j, 0, path, sizeof path, 0))
        return SE_OK;
    char shown[sizeof path * 4 + 8];
    se_printable(path, shown, sizeof shown);
    return se_fail(err, SE_ERR_VALIDATION, "%s: field '%.300s...': nested deeper than the %d "
                   "levels a file of ours may have", name, shown, SE_JSON_MAX_DEPTH);
}

/* Jansson's allocations, counted while a parse runs (malloc_usable_size:
 * what each block really holds), so that one parse is refused past its
 * budget instead of growing without bound. The functions stay installed;
 * outside a parse they only allocate. */
static _Thread_local size_t parse_used, parse_budget;
static _Thread_local int parse_counting, parse_over;

static void *counted_malloc(size_t n)
{
    if (parse_counting && (parse_over || n > parse_budget - parse_used)) {
        parse_over = 1;
        return NULL;
    }
    void *p = malloc(n);
    if (p && parse_counting) {
        parse_used += malloc_usable_size(p);
        if (parse_used > parse_budget)
            parse_over = 1;
    }
    return p;
}

static void counted_free(void *p)
{
    if (p && parse_counting) {
        size_t n = malloc_usable_size(p);
        parse_used = n < parse_used ? parse_used - n : 0;
    }
    free(p);
}

se_status se_json_parse(const void *data, size_t len, const char *name, const char *format,
                        int max_version, int *version, json_t **out, se_err *err)
{
    *out = NULL;
    json_error_t je;
    json_set_alloc_funcs(counted_malloc, counted_free);
    parse_used = 0;
    parse_over = 0;
    parse_budget = SE_JSON_MEMORY_FACTOR * len + SE_JSON_MEMORY_SLACK;
    parse_counting = 1;
    json_t *j = json_loadb(data, len, JSON_REJECT_DUPLICATES, &je);
    parse_counting = 0;
    if (!j && parse_over)
        return se_fail(err, SE_ERR_LIMIT, "%s: parsing it takes more than %zu bytes of memory "
                       "(%d times its %zu bytes, and %zu MiB): refused as built to exhaust memory "
                       "(a run's JSON files take at most about 5 times their size)", name,
                       parse_budget, SE_JSON_MEMORY_FACTOR, len, SE_JSON_MEMORY_SLACK >> 20);
    if (!j && je.line < 0)
        return se_fail(err, SE_ERR_NOMEM, "%s: out of memory while parsing its %zu bytes", name,
                       len);
    if (!j) {
        char text[sizeof je.text * 4 + 8];
        se_printable(je.text, text, sizeof text);
        return se_fail(err, SE_ERR_VALIDATION, "%s:%d:%d: %s", name, je.line, je.column, text);
    }
    se_status st = check_depth(j, name, err);
    if (st == SE_OK)
        st = check_format(j, name, format, max_version, version, err);
    if (st != SE_OK) {
        json_decref(j);
        return st;
    }
    *out = j;
    return SE_OK;
}

se_status se_json_load(const char *path, const char *name, const char *format, int max_version,
                       int *version, json_t **out, se_err *err)
{
    *out = NULL;
    /* O_NONBLOCK: opening a FIFO must not wait for a writer. */
    int fd = open(path, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
    if (fd < 0)
        return se_fail(err, SE_ERR_IO, "%s: cannot be opened: %s", name, strerror(errno));
    struct stat sb;
    if (fstat(fd, &sb) != 0 || !S_ISREG(sb.st_mode)) {
        close(fd);
        return se_fail(err, SE_ERR_IO, "%s: not a regular file", name);
    }
    if ((size_t)sb.st_size > SE_JSON_MAX_BYTES) {
        close(fd);
        return se_fail(err, SE_ERR_LIMIT, "%s: %lld bytes, more than the %zu a JSON file may have",
                       name, (long long)sb.st_size, SE_JSON_MAX_BYTES);
    }
    size_t len = (size_t)sb.st_size;
    char *buf = malloc(len ? len : 1);
    if (!buf) {
        close(fd);
        return se_fail(err, SE_ERR_NOMEM, "%s: out of memory", name);
    }
    size_t got = 0;
    while (got < len) {
        ssize_t n = read(fd, buf + got, len - got);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            break;
        got += (size_t)n;
    }
    close(fd);
    se_status st = got == len
                       ? se_json_parse(buf, len, name, format, max_version, version, out, err)
                       : se_fail(err, SE_ERR_IO, "%s: read %zu of %zu bytes", name, got, len);
    free(buf);
    return st;
}
