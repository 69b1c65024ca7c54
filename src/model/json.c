/*
 * json.c - the one JSON loader (see json.h).
 */
#define _POSIX_C_SOURCE 200809L
#include "model/json.h"

#include <errno.h>
#include <fcntl.h>
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

se_status se_json_parse(const void *data, size_t len, const char *name, const char *format,
                        int max_version, int *version, json_t **out, se_err *err)
{
    *out = NULL;
    json_error_t je;
    json_t *j = json_loadb(data, len, JSON_REJECT_DUPLICATES, &je);
    if (!j) {
        char text[sizeof je.text * 4 + 8];
        se_printable(je.text, text, sizeof text);
        return se_fail(err, SE_ERR_VALIDATION, "%s:%d:%d: %s", name, je.line, je.column, text);
    }
    se_status st = check_format(j, name, format, max_version, version, err);
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
