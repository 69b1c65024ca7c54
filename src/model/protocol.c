/*
 * protocol.c - reading, checking and writing the measurement protocol (see
 * protocol.h and docs/PROTOCOL.md).
 *
 * The file is parsed with jansson, rejecting duplicate keys, and then walked
 * in a fixed order: every object must hold exactly its known keys, every
 * value must have the right JSON type and lie in its range. The first fault
 * found is reported with the file name and either the line and column (JSON
 * syntax) or the dotted path of the field, so a bad protocol is refused
 * before any GPU work. Writing emits the same keys in a fixed order and then
 * parses its own output, so a written protocol is always one that reads back.
 */
#define _POSIX_C_SOURCE 200809L
#include "model/protocol.h"

#include "model/operation.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <jansson.h>

#include "model/json.h"

#include "model/strategy.h"

/* Largest protocol file se_protocol_load reads. */
#define PROTOCOL_MAX_BYTES (1024L * 1024L)

/* Longest dotted field path, e.g. "workload.shapes[123456]". */
#define PATH_MAX_LEN 128

typedef struct ctx {
    const char *name; /* file name prefixed to every message */
    se_err *err;
} ctx;

/* Reports a field error: "NAME: field 'PATH': MESSAGE". */
#if defined(__GNUC__)
__attribute__((format(printf, 3, 4)))
#endif
static se_status field_fail(const ctx *c, const char *path, const char *fmt, ...)
{
    char msg[768];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    return se_fail(c->err, SE_ERR_USAGE, "%s: field '%s': %s", c->name, path, msg);
}

/* out = parent.key, or key at the top level; a path too long for out (an
 * unknown key of any length lands here) ends in "...". */
static void join(char out[PATH_MAX_LEN], const char *parent, const char *key)
{
    int n = snprintf(out, PATH_MAX_LEN, "%s%s%s", parent, parent[0] ? "." : "", key);
    if (n < 0 || n >= PATH_MAX_LEN)
        memcpy(out + PATH_MAX_LEN - 4, "...", 4);
}

/* The JSON type of v as a message word. */
static const char *type_name(const json_t *v)
{
    switch (json_typeof(v)) {
    case JSON_OBJECT: return "object";
    case JSON_ARRAY: return "array";
    case JSON_STRING: return "string";
    case JSON_INTEGER:
    case JSON_REAL: return "number";
    case JSON_TRUE:
    case JSON_FALSE: return "boolean";
    case JSON_NULL: return "null";
    }
    return "unknown";
}

/* The shortest "%.Ng" text of x that reads back as x; whole numbers below
 * 1e15 are written out in full ("1000", not "1e+03"). */
static void fmt_real(double x, char out[32])
{
    if (x == floor(x) && fabs(x) < 1e15) {
        snprintf(out, 32, "%.0f", x);
        return;
    }
    for (int prec = 1; prec <= 17; prec++) {
        snprintf(out, 32, "%.*g", prec, x);
        if (strtod(out, NULL) == x)
            return;
    }
}

/* The member `key` of obj, or a "missing" error. */
static se_status member(const ctx *c, const json_t *obj, const char *parent, const char *key,
                        char path[PATH_MAX_LEN], json_t **out)
{
    join(path, parent, key);
    *out = json_object_get(obj, key);
    if (!*out)
        return field_fail(c, path, "missing");
    return SE_OK;
}

/* A member that must be a non-empty array; *n is its length. */
static se_status nonempty_array(const ctx *c, const json_t *obj, const char *parent,
                                const char *key, char path[PATH_MAX_LEN], json_t **out,
                                size_t *n)
{
    se_status st = member(c, obj, parent, key, path, out);
    if (st != SE_OK)
        return st;
    if (!json_is_array(*out))
        return field_fail(c, path, "expected an array, got %s", type_name(*out));
    *n = json_array_size(*out);
    if (*n == 0)
        return field_fail(c, path, "the list is empty");
    return SE_OK;
}

/* Checks that v is an object holding no key outside keys[0..n). Missing keys
 * are reported by the getters, in the order the fields are read. */
static se_status check_object(const ctx *c, json_t *v, const char *path,
                              const char *const *keys, size_t n)
{
    if (!json_is_object(v))
        return field_fail(c, path, "expected an object, got %s", type_name(v));
    const char *key;
    json_t *value;
    json_object_foreach(v, key, value) {
        int known = 0;
        for (size_t i = 0; i < n && !known; i++)
            known = strcmp(key, keys[i]) == 0;
        if (!known) {
            char list[512] = "";
            for (size_t i = 0; i < n; i++) {
                strncat(list, i ? ", " : "", sizeof list - strlen(list) - 1);
                strncat(list, keys[i], sizeof list - strlen(list) - 1);
            }
            char kpath[PATH_MAX_LEN];
            join(kpath, path, key);
            return field_fail(c, kpath, "unknown key '%.200s'; expected %s", key, list);
        }
    }
    return SE_OK;
}

/* Reads obj.key as an object with exactly the given keys. */
static se_status get_object(const ctx *c, const json_t *obj, const char *parent, const char *key,
                            const char *const *keys, size_t n, char path[PATH_MAX_LEN],
                            json_t **out)
{
    se_status st = member(c, obj, parent, key, path, out);
    if (st != SE_OK)
        return st;
    return check_object(c, *out, path, keys, n);
}

/* Checks that v is a JSON integer in [min, max]. */
static se_status int_value(const ctx *c, const json_t *v, const char *path, int64_t min,
                           int64_t max, int64_t *out)
{
    if (json_is_integer(v)) {
        json_int_t x = json_integer_value(v);
        if (x < min || x > max)
            return field_fail(c, path,
                              "must be an integer between %" PRId64 " and %" PRId64 ", got %" PRId64,
                              min, max, (int64_t)x);
        *out = (int64_t)x;
        return SE_OK;
    }
    if (json_is_real(v)) {
        /* Shown as a real, so that 4096.0 does not read as the integer 4096. */
        char got[34];
        fmt_real(json_real_value(v), got);
        if (!strpbrk(got, ".en"))
            strcat(got, ".0");
        return field_fail(c, path,
                          "must be an integer between %" PRId64 " and %" PRId64 ", got %s", min,
                          max, got);
    }
    return field_fail(c, path, "expected an integer, got %s", type_name(v));
}

static se_status get_int(const ctx *c, const json_t *obj, const char *parent, const char *key,
                         int64_t min, int64_t max, int64_t *out)
{
    char path[PATH_MAX_LEN];
    json_t *v;
    se_status st = member(c, obj, parent, key, path, &v);
    if (st != SE_OK)
        return st;
    return int_value(c, v, path, min, max, out);
}

/* get_int for a field stored as int (min and max within int's range). */
static se_status get_int32(const ctx *c, const json_t *obj, const char *parent, const char *key,
                           int min, int max, int *out)
{
    int64_t v;
    se_status st = get_int(c, obj, parent, key, min, max, &v);
    if (st == SE_OK)
        *out = (int)v;
    return st;
}

/* A seed: an integer in [0, INT64_MAX]. */
static se_status get_seed(const ctx *c, const json_t *obj, const char *parent, const char *key,
                          uint64_t *out)
{
    int64_t v;
    se_status st = get_int(c, obj, parent, key, 0, INT64_MAX, &v);
    if (st == SE_OK)
        *out = (uint64_t)v;
    return st;
}

typedef enum upper_bound { UPPER_CLOSED, UPPER_OPEN, UPPER_NONE } upper_bound;

/* Reads obj.key as a number (integer or real) in [min, max], [min, max) or
 * [min, infinity) as `upper` says. */
static se_status get_real(const ctx *c, const json_t *obj, const char *parent, const char *key,
                          double min, double max, upper_bound upper, double *out)
{
    char path[PATH_MAX_LEN];
    json_t *v;
    se_status st = member(c, obj, parent, key, path, &v);
    if (st != SE_OK)
        return st;
    if (!json_is_number(v))
        return field_fail(c, path, "expected a number, got %s", type_name(v));
    double x = json_number_value(v);
    int ok = isfinite(x) && x >= min;
    if (upper == UPPER_CLOSED)
        ok = ok && x <= max;
    else if (upper == UPPER_OPEN)
        ok = ok && x < max;
    if (!ok) {
        char got[32], lo[32], hi[32];
        fmt_real(x, got);
        fmt_real(min, lo);
        fmt_real(max, hi);
        if (upper == UPPER_CLOSED)
            return field_fail(c, path, "must be a number between %s and %s, got %s", lo, hi, got);
        if (upper == UPPER_OPEN)
            return field_fail(c, path, "must be a number >= %s and < %s, got %s", lo, hi, got);
        return field_fail(c, path, "must be a number >= %s, got %s", lo, got);
    }
    *out = x;
    return SE_OK;
}

/* Checks that v is a string; *out points into v. */
static se_status string_value(const ctx *c, const json_t *v, const char *path, const char **out)
{
    if (!json_is_string(v))
        return field_fail(c, path, "expected a string, got %s", type_name(v));
    *out = json_string_value(v);
    return SE_OK;
}

static se_status get_string(const ctx *c, const json_t *obj, const char *parent, const char *key,
                            const char **out)
{
    char path[PATH_MAX_LEN];
    json_t *v;
    se_status st = member(c, obj, parent, key, path, &v);
    if (st != SE_OK)
        return st;
    return string_value(c, v, path, out);
}

/* Reads obj.key as a string that must equal `expected`. */
static se_status get_fixed_string(const ctx *c, const json_t *obj, const char *parent,
                                  const char *key, const char *expected)
{
    const char *s = NULL;
    se_status st = get_string(c, obj, parent, key, &s);
    if (st != SE_OK)
        return st;
    if (strcmp(s, expected) != 0) {
        char path[PATH_MAX_LEN];
        join(path, parent, key);
        return field_fail(c, path, "must be \"%s\", got \"%.200s\"", expected, s);
    }
    return SE_OK;
}

static se_status parse_name(const ctx *c, const json_t *root, se_protocol *p)
{
    const char *s = NULL;
    se_status st = get_string(c, root, "", "name", &s);
    if (st != SE_OK)
        return st;
    size_t len = strlen(s);
    int ok = len >= 1 && len < sizeof p->name;
    for (size_t i = 0; ok && i < len; i++) {
        char ch = s[i];
        ok = (ch >= 'A' && ch <= 'Z') || (ch >= 'a' && ch <= 'z') || (ch >= '0' && ch <= '9') ||
             ch == '.' || ch == '_' || ch == '-';
    }
    if (!ok)
        return field_fail(c, "name", "must be 1 to %zu characters of A-Z a-z 0-9 . _ -, got \"%.200s\"",
                          sizeof p->name - 1, s);
    memcpy(p->name, s, len + 1);
    return SE_OK;
}

/* A shape's dimensions and its index in the file, for finding duplicates. */
typedef struct shape_key {
    int64_t rows;
    int64_t cols;
    size_t index;
} shape_key;

static int cmp_shape_key(const void *a, const void *b)
{
    const shape_key *x = a, *y = b;
    if (x->rows != y->rows)
        return x->rows < y->rows ? -1 : 1;
    if (x->cols != y->cols)
        return x->cols < y->cols ? -1 : 1;
    return x->index < y->index ? -1 : x->index > y->index;
}

/* Refuses two entries that resolve to the same rows and columns ("5xT+1" and
 * "5x4097" with tile 4096), naming the first repeat in file order and the
 * entry it repeats. Sorting keeps this O(n log n) for long lists. */
static se_status check_duplicate_shapes(const ctx *c, const se_shape *shapes, size_t n)
{
    shape_key *keys = malloc(n * sizeof *keys);
    if (!keys)
        return se_fail(c->err, SE_ERR_NOMEM, "%s: out of memory", c->name);
    for (size_t i = 0; i < n; i++)
        keys[i] = (shape_key){shapes[i].rows, shapes[i].cols, i};
    qsort(keys, n, sizeof *keys, cmp_shape_key);
    size_t dup = n, first = n;
    for (size_t k = 1; k < n; k++) {
        /* Within a run of equal shapes the indices ascend, so the smallest
         * repeat of a run is its second entry and keys[k-1] is its first. */
        if (keys[k].rows == keys[k - 1].rows && keys[k].cols == keys[k - 1].cols &&
            keys[k].index < dup) {
            dup = keys[k].index;
            first = keys[k - 1].index;
        }
    }
    free(keys);
    if (dup == n)
        return SE_OK;
    char path[PATH_MAX_LEN];
    snprintf(path, sizeof path, "workload.shapes[%zu]", dup);
    return field_fail(c, path,
                      "'%s' (%" PRId64 "x%" PRId64 ") duplicates workload.shapes[%zu] '%s'",
                      shapes[dup].spec, shapes[dup].rows, shapes[dup].cols, first,
                      shapes[first].spec);
}

/* Parses workload.shapes against the already parsed tile. */
static se_status parse_shapes(const ctx *c, const json_t *workload, se_protocol *p)
{
    char path[PATH_MAX_LEN];
    json_t *arr;
    size_t n;
    se_status st = nonempty_array(c, workload, "workload", "shapes", path, &arr, &n);
    if (st != SE_OK)
        return st;
    p->shapes = calloc(n, sizeof *p->shapes);
    if (!p->shapes)
        return se_fail(c->err, SE_ERR_NOMEM, "%s: out of memory for %zu shapes", c->name, n);
    for (size_t i = 0; i < n; i++) {
        char ipath[PATH_MAX_LEN];
        snprintf(ipath, sizeof ipath, "workload.shapes[%zu]", i);
        const char *spec = NULL;
        st = string_value(c, json_array_get(arr, i), ipath, &spec);
        if (st != SE_OK)
            return st;
        se_err serr;
        if (se_parse_shape(spec, p->tile, &p->shapes[i], &serr) != SE_OK)
            return field_fail(c, ipath, "%s", serr.msg);
        p->n_shapes = i + 1;
    }
    return check_duplicate_shapes(c, p->shapes, n);
}

static se_status parse_workload(const ctx *c, const json_t *root, se_protocol *p)
{
    static const char *const keys[] = {"shapes", "tile", "dtype", "input", "eps", "operation"};
    static const char *const input_keys[] = {"generator", "distribution", "seed", "scale",
                                             "outliers"};
    char path[PATH_MAX_LEN], ipath[PATH_MAX_LEN];
    json_t *w, *in;
    se_status st = get_object(c, root, "", "workload", keys, 6, path, &w);
    /* The operation (model/operation.h): optional, the workload table's
     * first where absent (every protocol written before the table). */
    p->op = se_operation_default();
    if (st == SE_OK && json_object_get(w, "operation")) {
        const char *name = NULL;
        st = get_string(c, w, path, "operation", &name);
        if (st == SE_OK && !(p->op = se_operation_find(name))) {
            char known[256], opath[PATH_MAX_LEN];
            join(opath, path, "operation");
            st = field_fail(c, opath, "'%.60s' is not a workload this program measures (%s)",
                            name, se_operation_names(known, sizeof known));
        }
    }
    if (st == SE_OK)
        st = get_int(c, w, path, "tile", 1, SE_MAX_DIM, &p->tile);
    if (st == SE_OK)
        st = parse_shapes(c, w, p);
    if (st == SE_OK)
        st = get_fixed_string(c, w, path, "dtype", "float32");
    if (st == SE_OK)
        st = get_object(c, w, path, "input", input_keys, 5, ipath, &in);
    if (st == SE_OK)
        st = get_fixed_string(c, in, ipath, "generator", "curand-philox4_32_10");
    if (st == SE_OK)
        st = get_fixed_string(c, in, ipath, "distribution", "normal");
    if (st == SE_OK)
        st = get_seed(c, in, ipath, "seed", &p->seed);
    if (st == SE_OK)
        st = get_real(c, in, ipath, "scale", SE_SCALE_MIN, SE_SCALE_MAX, UPPER_CLOSED, &p->scale);
    if (st == SE_OK)
        st = get_fixed_string(c, in, ipath, "outliers", "outliers.h");
    if (st == SE_OK)
        st = get_real(c, w, path, "eps", 0.0, 1.0, UPPER_CLOSED, &p->eps);
    return st;
}

static se_status parse_strategies(const ctx *c, const json_t *root, se_protocol *p)
{
    char path[PATH_MAX_LEN];
    json_t *arr;
    size_t n;
    se_status st = nonempty_array(c, root, "", "strategies", path, &arr, &n);
    if (st != SE_OK)
        return st;
    p->strategies = 0;
    for (size_t i = 0; i < n; i++) {
        char ipath[PATH_MAX_LEN];
        snprintf(ipath, sizeof ipath, "strategies[%zu]", i);
        const char *s = NULL;
        st = string_value(c, json_array_get(arr, i), ipath, &s);
        if (st != SE_OK)
            return st;
        const se_strategy_table *t = se_protocol_table(p);
        int k = se_stable_find(t, s);
        if (k == t->n) {
            char list[1024] = "";
            for (int j = 0; j < t->n; j++) {
                strncat(list, j ? ", " : "", sizeof list - strlen(list) - 1);
                strncat(list, t->s[j].name, sizeof list - strlen(list) - 1);
            }
            return field_fail(c, ipath, "unknown strategy '%.200s'; valid: %s", s, list);
        }
        if (p->strategies & (1u << k))
            return field_fail(c, ipath, "duplicate strategy '%s'", s);
        p->strategies |= 1u << k;
    }
    return SE_OK;
}

static se_status parse_tolerance(const ctx *c, const json_t *root, se_protocol *p)
{
    static const char *const keys[] = {"atol", "rtol"};
    char path[PATH_MAX_LEN];
    json_t *t;
    se_status st = get_object(c, root, "", "tolerance", keys, 2, path, &t);
    if (st == SE_OK)
        st = get_real(c, t, path, "atol", 0.0, 0.0, UPPER_NONE, &p->tol.atol);
    if (st == SE_OK)
        st = get_real(c, t, path, "rtol", 0.0, 1.0, UPPER_OPEN, &p->tol.rtol);
    return st;
}

static se_status parse_validation(const ctx *c, const json_t *root, se_protocol *p)
{
    static const char *const keys[] = {"invocations"};
    char path[PATH_MAX_LEN];
    json_t *v;
    se_status st = get_object(c, root, "", "validation", keys, 1, path, &v);
    if (st == SE_OK)
        st = get_int32(c, v, path, "invocations", 1, 100, &p->invocations);
    return st;
}

/* Reads parent.key as {samples, warmup} plus `extra` (NULL for none), whose
 * value goes to *extra_out within [1, extra_max]. */
static se_status parse_counts(const ctx *c, const json_t *parent_obj, const char *parent,
                              const char *key, const char *extra, int extra_max, se_scope_cfg *out,
                              int *extra_out)
{
    const char *keys[] = {"samples", "warmup", extra};
    char path[PATH_MAX_LEN];
    json_t *o;
    se_status st = get_object(c, parent_obj, parent, key, keys, extra ? 3 : 2, path, &o);
    if (st == SE_OK)
        st = get_int32(c, o, path, "samples", 1, 100000, &out->samples);
    if (st == SE_OK)
        st = get_int32(c, o, path, "warmup", 0, 100000, &out->warmup);
    if (st == SE_OK && extra)
        st = get_int32(c, o, path, extra, 1, extra_max, extra_out);
    out->batch = 1;
    return st;
}

static se_status parse_scopes(const ctx *c, const json_t *root, se_protocol *p)
{
    static const char *const keys[] = {"device", "device_cold", "batch", "host"};
    char path[PATH_MAX_LEN];
    json_t *s;
    se_status st = get_object(c, root, "", "scopes", keys, 4, path, &s);
    if (st == SE_OK)
        st = parse_counts(c, s, path, "device", NULL, 0, &p->device, NULL);
    if (st == SE_OK)
        st = parse_counts(c, s, path, "device_cold", NULL, 0, &p->device_cold, NULL);
    int batch = 1;
    if (st == SE_OK)
        st = parse_counts(c, s, path, "batch", "batch", 10000, &p->batch, &batch);
    p->batch.batch = batch;
    if (st == SE_OK)
        st = parse_counts(c, s, path, "host", NULL, 0, &p->host, NULL);
    return st;
}

static se_status parse_analysis(const ctx *c, const json_t *root, se_protocol *p)
{
    static const char *const keys[] = {"bootstrap_resamples", "bootstrap_seed", "order_seed",
                                       "throttle_fraction"};
    char path[PATH_MAX_LEN];
    json_t *a;
    se_status st = get_object(c, root, "", "analysis", keys, 4, path, &a);
    if (st == SE_OK)
        st = get_int32(c, a, path, "bootstrap_resamples", 0, 1000000, &p->bootstrap_resamples);
    if (st == SE_OK)
        st = get_seed(c, a, path, "bootstrap_seed", &p->bootstrap_seed);
    if (st == SE_OK)
        st = get_seed(c, a, path, "order_seed", &p->order_seed);
    if (st == SE_OK)
        st = get_real(c, a, path, "throttle_fraction", 0.0, 1.0, UPPER_CLOSED,
                      &p->throttle_fraction);
    return st;
}

/* The bootstrap draws a run's summaries take, which verify takes again:
 * resamples times every sample of every case (per shape the strategies,
 * and at most SE_PROTOCOL_OTHER_CASES controls and peers, each with every
 * scope's samples). Bounded, so that a protocol, or a run folder's
 * protocol.json, cannot make the run or verify work for hours: the default
 * protocol (14 shapes) takes about 1.2e8. */
#define SE_PROTOCOL_OTHER_CASES 16
#define SE_PROTOCOL_MAX_DRAWS 2e8

static se_status check_bootstrap_work(const ctx *c, const se_protocol *p)
{
    double per_case = (double)p->device.samples + p->device_cold.samples +
                      p->batch.samples + p->host.samples + p->controls.samples;
    double cases = (double)p->n_shapes *
                   (__builtin_popcount(p->strategies) + SE_PROTOCOL_OTHER_CASES);
    double draws = (double)p->bootstrap_resamples * cases * per_case;
    if (draws > SE_PROTOCOL_MAX_DRAWS)
        return field_fail(c, "analysis.bootstrap_resamples",
                          "%d resamples of every sample of %.0f cases (%.0f samples each) are "
                          "%.3g bootstrap draws, more than the %.0e a run and its verify may take; "
                          "use fewer resamples, samples or shapes",
                          p->bootstrap_resamples, cases, per_case, draws,
                          SE_PROTOCOL_MAX_DRAWS);
    return SE_OK;
}

/* Walks a loaded document into p (p->shapes is owned even on failure). */
static se_status parse_root(const ctx *c, json_t *root, se_protocol *p)
{
    static const char *const keys[] = {"format",     "version",    "name",     "workload",
                                       "strategies", "tolerance",  "validation", "scopes",
                                       "controls",   "analysis",   "traces"};
    if (!json_is_object(root))
        return se_fail(c->err, SE_ERR_USAGE, "%s: expected a JSON object at the top level, got %s",
                       c->name, type_name(root));
    /* Format and version first: a file of another kind is named as such. */
    se_status st = get_fixed_string(c, root, "", "format", SE_PROTOCOL_FORMAT);
    if (st != SE_OK)
        return st;
    char path[PATH_MAX_LEN];
    json_t *version;
    st = member(c, root, "", "version", path, &version);
    if (st != SE_OK)
        return st;
    if (json_is_integer(version) && json_integer_value(version) != SE_PROTOCOL_VERSION)
        return field_fail(c, path, "unsupported version %" JSON_INTEGER_FORMAT
                          "; this program reads version %d",
                          json_integer_value(version), SE_PROTOCOL_VERSION);
    if (!json_is_integer(version))
        return field_fail(c, path, "expected the integer %d, got %s", SE_PROTOCOL_VERSION,
                          json_is_real(version) ? "a real number" : type_name(version));
    st = check_object(c, root, "", keys, sizeof keys / sizeof keys[0]);
    if (st == SE_OK)
        st = parse_name(c, root, p);
    if (st == SE_OK)
        st = parse_workload(c, root, p);
    if (st == SE_OK)
        st = parse_strategies(c, root, p);
    if (st == SE_OK)
        st = parse_tolerance(c, root, p);
    if (st == SE_OK)
        st = parse_validation(c, root, p);
    if (st == SE_OK)
        st = parse_scopes(c, root, p);
    if (st == SE_OK)
        st = parse_counts(c, root, "", "controls", "barriers", 100000, &p->controls, &p->barriers);
    if (st == SE_OK)
        st = parse_analysis(c, root, p);
    if (st == SE_OK)
        st = check_bootstrap_work(c, p);
    p->traces = 1;
    json_t *traces = json_object_get(root, "traces");
    if (st == SE_OK && traces) {
        if (!json_is_boolean(traces))
            st = field_fail(c, "traces", "expected true or false, got %s", type_name(traces));
        else
            p->traces = json_is_true(traces);
    }
    return st;
}

se_status se_protocol_parse(const char *text, size_t len, const char *name, se_protocol *p,
                            se_err *err)
{
    return se_protocol_parse_table(text, len, name, se_strategy_compiled(), p, err);
}

const se_strategy_table *se_protocol_table(const se_protocol *p)
{
    return p && p->table ? p->table : se_strategy_compiled();
}

const se_strategy_info *se_protocol_strategy(const se_protocol *p, int s)
{
    return se_stable_get(se_protocol_table(p), s);
}

int se_protocol_nstrategies(const se_protocol *p)
{
    return se_protocol_table(p)->n;
}

int se_protocol_find_strategy(const se_protocol *p, const char *name)
{
    return se_stable_find(se_protocol_table(p), name);
}

se_status se_protocol_retable(se_protocol *p, const se_strategy_table *to, se_err *err)
{
    const se_strategy_table *from = se_protocol_table(p);
    unsigned mask = 0;
    for (int s = 0; s < from->n; s++) {
        if (!((p->strategies >> s) & 1u))
            continue;
        int k = se_stable_find(to, from->s[s].name);
        if (k == to->n)
            return se_fail(err, SE_ERR_USAGE, "the run's strategy '%s' is not one of this "
                           "program's (%s)", from->s[s].name, se_strategy_names());
        mask |= 1u << k;
    }
    p->strategies = mask;
    p->table = to;
    return SE_OK;
}

const se_strategy_info *se_protocol_strategy_named(const se_protocol *p, const char *name)
{
    return name ? se_protocol_strategy(p, se_protocol_find_strategy(p, name)) : NULL;
}

se_status se_protocol_parse_table(const char *text, size_t len, const char *name,
                                  const se_strategy_table *table, se_protocol *p, se_err *err)
{
    memset(p, 0, sizeof *p);
    ctx c = {name ? name : "protocol", err};
    /* The one JSON parser (duplicate keys refused, the file's bytes in its
     * messages made printable); a protocol's syntax error is the user's. */
    json_t *root = NULL;
    se_err perr = {{0}};
    if (se_json_parse(text, len, c.name, NULL, 0, NULL, &root, &perr) != SE_OK)
        return se_fail(err, SE_ERR_USAGE, "%s", perr.msg);
    se_protocol q;
    memset(&q, 0, sizeof q);
    q.table = table ? table : se_strategy_compiled();
    se_status st = parse_root(&c, root, &q);
    json_decref(root);
    if (st != SE_OK) {
        se_protocol_free(&q);
        return st;
    }
    *p = q;
    return SE_OK;
}

se_status se_protocol_load(const char *path, se_protocol *p, se_err *err)
{
    memset(p, 0, sizeof *p);
    /* O_NONBLOCK and a regular file only: a FIFO or device must not block
     * or stream forever. */
    int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
    if (fd < 0)
        return se_fail(err, SE_ERR_IO, "%s: cannot open: %s", path, strerror(errno));
    struct stat sb;
    if (fstat(fd, &sb) != 0 || !S_ISREG(sb.st_mode)) {
        close(fd);
        return se_fail(err, SE_ERR_IO, "%s: not a regular file", path);
    }
    FILE *f = fdopen(fd, "rb");
    if (!f) {
        close(fd);
        return se_fail(err, SE_ERR_IO, "%s: cannot open: %s", path, strerror(errno));
    }
    char *buf = malloc(PROTOCOL_MAX_BYTES + 1);
    if (!buf) {
        fclose(f);
        return se_fail(err, SE_ERR_NOMEM, "%s: out of memory", path);
    }
    errno = 0;
    size_t n = fread(buf, 1, PROTOCOL_MAX_BYTES + 1, f);
    int read_errno = errno;
    if (ferror(f)) {
        fclose(f);
        free(buf);
        return se_fail(err, SE_ERR_IO, "%s: cannot read: %s", path,
                       read_errno ? strerror(read_errno) : "read error");
    }
    if (n > PROTOCOL_MAX_BYTES) {
        /* Name the size where it is known (a regular file), not for a pipe. */
        long size = fseek(f, 0, SEEK_END) == 0 ? ftell(f) : -1;
        fclose(f);
        free(buf);
        if (size > PROTOCOL_MAX_BYTES)
            return se_fail(err, SE_ERR_USAGE,
                           "%s: the file is %ld bytes; a protocol file may be at most %ld bytes "
                           "(1 MiB)",
                           path, size, PROTOCOL_MAX_BYTES);
        return se_fail(err, SE_ERR_USAGE,
                       "%s: more than %ld bytes; a protocol file may be at most %ld bytes (1 MiB)",
                       path, PROTOCOL_MAX_BYTES, PROTOCOL_MAX_BYTES);
    }
    fclose(f);
    se_status st = se_protocol_parse(buf, n, path, p, err);
    free(buf);
    return st;
}

const se_operation *se_protocol_operation(const se_protocol *p)
{
    return p->op ? p->op : se_operation_default();
}

void se_protocol_free(se_protocol *p)
{
    if (!p)
        return;
    free(p->shapes);
    memset(p, 0, sizeof *p);
}
