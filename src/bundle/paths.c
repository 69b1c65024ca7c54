/*
 * paths.c - a run directory's names (see paths.h).
 */
#include "bundle/paths.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void se_shape_id(int64_t rows, int64_t cols, char *buf, size_t size)
{
    snprintf(buf, size, "%" PRId64 "x%" PRId64, rows, cols);
}

void se_case_id_make(int64_t rows, int64_t cols, const char *what, char *buf, size_t size)
{
    snprintf(buf, size, "%" PRId64 "x%" PRId64 ".%s", rows, cols, what);
}

void se_control_id(const char *name, char *buf, size_t size)
{
    snprintf(buf, size, "control.%s", name);
}

static int parse_dim(const char *s, const char *end, int64_t *v)
{
    if (s == end || end - s > 18)
        return 0;
    int64_t n = 0;
    for (const char *c = s; c < end; c++) {
        if (*c < '0' || *c > '9')
            return 0;
        n = n * 10 + (*c - '0');
    }
    *v = n;
    return n > 0;
}

int se_case_id_parse(const char *id, int64_t *rows, int64_t *cols, char *what, size_t what_size)
{
    const char *x = strchr(id, 'x');
    const char *dot = x ? strchr(x, '.') : NULL;
    if (!x || !dot || !dot[1] || !parse_dim(id, x, rows) || !parse_dim(x + 1, dot, cols))
        return 0;
    if (strlen(dot + 1) >= what_size)
        return 0;
    memcpy(what, dot + 1, strlen(dot + 1) + 1);
    return 1;
}

void se_path_samples(const char *case_id, char *buf, size_t size)
{
    snprintf(buf, size, "samples/%s.csv", case_id);
}

void se_path_trace(const char *case_id, char *buf, size_t size)
{
    snprintf(buf, size, "traces/%s.csv", case_id);
}

void se_path_trace_timed(const char *case_id, int traced, char *buf, size_t size)
{
    snprintf(buf, size, "traces/%s.%s.csv", case_id, traced ? "traced" : "untraced");
}

void se_path_array_x(int64_t rows, int64_t cols, char *buf, size_t size)
{
    snprintf(buf, size, "arrays/%" PRId64 "x%" PRId64 ".x.f32", rows, cols);
}

void se_path_array_y(const char *case_id, char *buf, size_t size)
{
    snprintf(buf, size, "arrays/%s.y.f32", case_id);
}

void se_path_check_x(int64_t rows, int64_t cols, char *buf, size_t size)
{
    snprintf(buf, size, "checks/%" PRId64 "x%" PRId64 ".x.f32", rows, cols);
}

void se_path_check_y(const char *case_id, char *buf, size_t size)
{
    snprintf(buf, size, "checks/%s.y.f32", case_id);
}

void se_path_join(const char *dir, const char *rel, char *buf, size_t size)
{
    snprintf(buf, size, "%s/%s", dir, rel);
}
