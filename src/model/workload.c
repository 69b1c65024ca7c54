/*
 * workload.c - shape parsing, range-checked number parsing and per-case
 * limits and memory needs.
 */
#include "model/workload.h"

#include <ctype.h>
#include <errno.h>
#include <float.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "model/taskgraph_host.h"

se_status se_parse_i64(const char *text, int64_t min, int64_t max, const char *what,
                       int64_t *out, se_err *err)
{
    if (!text || !*text)
        return se_fail(err, SE_ERR_USAGE, "%s: expected an integer, got an empty value", what);
    const char *p = text;
    while (isspace((unsigned char)*p))
        p++;
    if (!isdigit((unsigned char)*p) && *p != '-' && *p != '+')
        return se_fail(err, SE_ERR_USAGE, "%s: expected an integer, got '%s'", what, text);
    errno = 0;
    char *end = NULL;
    long long v = strtoll(p, &end, 10);
    if (end == p || *end != '\0')
        return se_fail(err, SE_ERR_USAGE, "%s: expected an integer, got '%s'", what, text);
    if (errno == ERANGE || v < min || v > max)
        return se_fail(err, SE_ERR_USAGE,
                       "%s: %s is out of range; it must be between %" PRId64 " and %" PRId64, what,
                       text, min, max);
    *out = (int64_t)v;
    return SE_OK;
}

se_status se_parse_f64(const char *text, double min, double max, const char *what, double *out,
                       se_err *err)
{
    if (!text || !*text)
        return se_fail(err, SE_ERR_USAGE, "%s: expected a number, got an empty value", what);
    if (strpbrk(text, "xXpP"))
        return se_fail(err, SE_ERR_USAGE, "%s: expected a decimal number, got '%s'", what, text);
    errno = 0;
    char *end = NULL;
    double v = strtod(text, &end);
    if (end == text || *end != '\0')
        return se_fail(err, SE_ERR_USAGE, "%s: expected a number, got '%s'", what, text);
    /* ERANGE on underflow still leaves a usable (subnormal or zero) value. */
    int overflow = errno == ERANGE && fabs(v) > DBL_MIN;
    if (overflow || !isfinite(v) || v < min || v > max)
        return se_fail(err, SE_ERR_USAGE, "%s: %s is out of range; it must be between %g and %g",
                       what, text, min, max);
    *out = v;
    return SE_OK;
}

/* 1 when text is an optional '-' then one or more decimal digits: shapes
 * take no spaces, '+' signs or other decorations. */
static int plain_integer(const char *text)
{
    if (*text == '-')
        text++;
    if (!*text)
        return 0;
    for (; *text; text++)
        if (!isdigit((unsigned char)*text))
            return 0;
    return 1;
}

/* Columns: a plain integer, or T, T+k, T-k with T = tile. */
static se_status parse_cols(const char *text, const char *shape, int64_t tile, int64_t *cols,
                            se_err *err)
{
    char what[96];
    snprintf(what, sizeof what, "shape '%s': columns", shape);
    if (text[0] != 'T') {
        if (!plain_integer(text))
            return se_fail(err, SE_ERR_USAGE, "%s: expected an integer, T, T+k or T-k, got '%s'",
                           what, text);
        return se_parse_i64(text, INT64_MIN, INT64_MAX, what, cols, err);
    }
    if (text[1] == '\0') {
        *cols = tile;
        return SE_OK;
    }
    if ((text[1] != '+' && text[1] != '-') || !isdigit((unsigned char)text[2]) ||
        !plain_integer(text + 2))
        return se_fail(err, SE_ERR_USAGE, "%s: expected T, T+k or T-k, got '%s'", what, text);
    int64_t k;
    se_status st = se_parse_i64(text + 2, 0, SE_MAX_DIM, what, &k, err);
    if (st != SE_OK)
        return st;
    *cols = text[1] == '+' ? tile + k : tile - k;
    return SE_OK;
}

se_status se_parse_shape(const char *text, int64_t tile, se_shape *out, se_err *err)
{
    if (!text || !*text)
        return se_fail(err, SE_ERR_USAGE, "shape: expected RxC, got an empty value");
    if (strlen(text) >= sizeof out->spec)
        return se_fail(err, SE_ERR_USAGE, "shape '%.40s...': too long", text);
    char buf[sizeof out->spec];
    strcpy(buf, text);
    char *x = strchr(buf, 'x');
    if (!x || x == buf || x[1] == '\0')
        return se_fail(err, SE_ERR_USAGE, "shape '%s': expected RxC, e.g. 32x4096", text);
    *x = '\0';
    char what[96];
    snprintf(what, sizeof what, "shape '%s': rows", text);
    int64_t rows, cols;
    if (!plain_integer(buf))
        return se_fail(err, SE_ERR_USAGE, "%s: expected an integer, got '%s'", what, buf);
    se_status st = se_parse_i64(buf, INT64_MIN, INT64_MAX, what, &rows, err);
    if (st != SE_OK)
        return st;
    st = parse_cols(x + 1, text, tile, &cols, err);
    if (st != SE_OK)
        return st;
    if (rows < 1 || rows > SE_MAX_DIM)
        return se_fail(err, SE_ERR_USAGE,
                       "shape '%s': rows must be between 1 and %d, got %" PRId64, text,
                       SE_MAX_DIM, rows);
    if (cols < 1 || cols > SE_MAX_DIM)
        return se_fail(err, SE_ERR_USAGE,
                       "shape '%s': columns must be between 1 and %d, got %" PRId64, text,
                       SE_MAX_DIM, cols);
    if (rows > SE_MAX_ELEMENTS / cols)
        return se_fail(err, SE_ERR_USAGE,
                       "shape '%s': %" PRId64 " x %" PRId64 " elements overflow the limit of %" PRId64
                       " elements per case",
                       text, rows, cols, (int64_t)SE_MAX_ELEMENTS);
    out->rows = rows;
    out->cols = cols;
    strcpy(out->spec, text);
    return SE_OK;
}

se_status se_parse_shape_list(const char *text, int64_t tile, se_shape **out, size_t *count,
                              se_err *err)
{
    *out = NULL;
    *count = 0;
    if (!text || !*text)
        return se_fail(err, SE_ERR_USAGE, "--shapes: the list is empty");
    size_t n = 1;
    for (const char *p = text; *p; p++)
        n += *p == ',';
    se_shape *shapes = calloc(n, sizeof *shapes);
    char *copy = malloc(strlen(text) + 1);
    if (!shapes || !copy) {
        free(shapes);
        free(copy);
        return se_fail(err, SE_ERR_NOMEM, "--shapes: out of memory");
    }
    strcpy(copy, text);
    size_t i = 0;
    se_status st = SE_OK;
    char *item = copy;
    for (;;) {
        char *comma = strchr(item, ',');
        if (comma)
            *comma = '\0';
        if (!*item) {
            st = se_fail(err, SE_ERR_USAGE, "--shapes: empty entry at position %zu in '%s'",
                         i + 1, text);
            break;
        }
        st = se_parse_shape(item, tile, &shapes[i++], err);
        if (st != SE_OK || !comma)
            break;
        item = comma + 1;
    }
    free(copy);
    if (st != SE_OK) {
        free(shapes);
        return st;
    }
    *out = shapes;
    *count = i;
    return SE_OK;
}

uint64_t se_case_device_bytes(const se_shape *s, int64_t tile)
{
    se_taskgeom g = se_taskgeom_make(s->rows, s->cols, tile);
    uint64_t elems = (uint64_t)s->rows * (uint64_t)s->cols;
    /* x (padded even), y, and the softmax's xs (LayerNorm has none: the
     * larger, so one bound serves both workloads) */
    uint64_t arrays = 3 * (elems + 1) * sizeof(float);
    /* the softmax's three float partials and row statistics, or LayerNorm's
     * two float64 partials and two float row statistics (run/case.c): the
     * larger of each, so one bound serves both workloads */
    uint64_t partials = 2 * (uint64_t)g.partials * sizeof(double);
    uint64_t rowstats = 3 * (uint64_t)s->rows * sizeof(float);
    uint64_t counters = 2 * (uint64_t)g.groups * sizeof(int32_t); /* the megakernel's */
    uint64_t slack = 64u << 20; /* cuDNN workspace, cuRAND state, allocation rounding */
    return arrays + partials + rowstats + counters + slack;
}

uint64_t se_case_host_bytes(const se_shape *s)
{
    uint64_t elems = (uint64_t)s->rows * (uint64_t)s->cols;
    return elems * (sizeof(float) + sizeof(double) + 2 * sizeof(float));
}

se_status se_case_check(const se_shape *s, int64_t tile, se_err *err)
{
    se_taskgeom g = se_taskgeom_make(s->rows, s->cols, tile);
    return se_taskgeom_check(&g, err);
}
