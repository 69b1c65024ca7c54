/*
 * protocol_write.c - writing a protocol back as JSON (see protocol.h): the
 * effective protocol a run copies into its bundle, keys in a fixed order,
 * refusing what would not read back (non-finite reals, seeds above
 * INT64_MAX). The parser is protocol.c.
 */
#include "model/protocol.h"

#include "model/operation.h"

#include <inttypes.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "model/strategy.h"

/* Sets obj[key] = value (stolen); counts a failure (NULL value or no memory). */
static void put(json_t *obj, const char *key, json_t *value, int *failed)
{
    if (json_object_set_new(obj, key, value) != 0)
        (*failed)++;
}

static void append(json_t *arr, json_t *value, int *failed)
{
    if (json_array_append_new(arr, value) != 0)
        (*failed)++;
}

static json_t *counts_json(const se_scope_cfg *s, const char *extra, int extra_value, int *failed)
{
    json_t *o = json_object();
    if (!o) {
        (*failed)++;
        return NULL;
    }
    put(o, "samples", json_integer(s->samples), failed);
    put(o, "warmup", json_integer(s->warmup), failed);
    if (extra)
        put(o, extra, json_integer(extra_value), failed);
    return o;
}

/* Builds the document in the order of docs/PROTOCOL.md; NULL if out of memory. */
static json_t *protocol_json(const se_protocol *p)
{
    int failed = 0;
    json_t *root = json_object();
    if (!root)
        return NULL;
    put(root, "format", json_string(SE_PROTOCOL_FORMAT), &failed);
    put(root, "version", json_integer(SE_PROTOCOL_VERSION), &failed);
    put(root, "name", json_string(p->name), &failed);

    json_t *w = json_object(), *shapes = json_array(), *in = json_object();
    if (shapes)
        for (size_t i = 0; i < p->n_shapes; i++)
            append(shapes, json_string(p->shapes[i].spec), &failed);
    if (w) {
        put(w, "shapes", shapes, &failed);
        put(w, "tile", json_integer((json_int_t)p->tile), &failed);
        put(w, "dtype", json_string("float32"), &failed);
    } else {
        json_decref(shapes);
    }
    if (in) {
        put(in, "generator", json_string("curand-philox4_32_10"), &failed);
        put(in, "distribution", json_string("normal"), &failed);
        put(in, "seed", json_integer((json_int_t)p->seed), &failed);
        put(in, "scale", json_real(p->scale), &failed);
        put(in, "outliers", json_string("outliers.h"), &failed);
    }
    if (w) {
        put(w, "input", in, &failed);
        put(w, "eps", json_real(p->eps), &failed);
        /* Written only where it is not the default, so that every protocol
         * of the one workload reads and writes as before the table. */
        if (p->op && p->op != se_operation_default())
            put(w, "operation", json_string(p->op->name), &failed);
    } else {
        json_decref(in);
    }
    put(root, "workload", w, &failed);

    json_t *strategies = json_array();
    if (strategies)
        for (int i = 0; i < se_protocol_nstrategies(p); i++)
            if (p->strategies & (1u << i))
                append(strategies, json_string(se_protocol_strategy(p, i)->name), &failed);
    put(root, "strategies", strategies, &failed);

    json_t *tol = json_object();
    if (tol) {
        put(tol, "atol", json_real(p->tol.atol), &failed);
        put(tol, "rtol", json_real(p->tol.rtol), &failed);
    }
    put(root, "tolerance", tol, &failed);

    json_t *val = json_object();
    if (val)
        put(val, "invocations", json_integer(p->invocations), &failed);
    put(root, "validation", val, &failed);

    json_t *scopes = json_object();
    if (scopes) {
        put(scopes, "device", counts_json(&p->device, NULL, 0, &failed), &failed);
        put(scopes, "device_cold", counts_json(&p->device_cold, NULL, 0, &failed), &failed);
        put(scopes, "batch", counts_json(&p->batch, "batch", p->batch.batch, &failed), &failed);
        put(scopes, "host", counts_json(&p->host, NULL, 0, &failed), &failed);
    }
    put(root, "scopes", scopes, &failed);
    put(root, "controls", counts_json(&p->controls, "barriers", p->barriers, &failed), &failed);

    json_t *an = json_object();
    if (an) {
        put(an, "bootstrap_resamples", json_integer(p->bootstrap_resamples), &failed);
        put(an, "bootstrap_seed", json_integer((json_int_t)p->bootstrap_seed), &failed);
        put(an, "order_seed", json_integer((json_int_t)p->order_seed), &failed);
        put(an, "throttle_fraction", json_real(p->throttle_fraction), &failed);
    }
    put(root, "analysis", an, &failed);
    /* Written only when off, so protocols of runs made before the field
     * existed read back unchanged. */
    if (!p->traces)
        put(root, "traces", json_false(), &failed);

    if (failed) {
        json_decref(root);
        return NULL;
    }
    return root;
}

/* Refuses what JSON cannot carry: non-finite reals, seeds above INT64_MAX,
 * strategy bits outside the table. The rest is checked by reading back. */
static se_status check_writable(const se_protocol *p, se_err *err)
{
    const struct {
        const char *path;
        double value;
    } reals[] = {{"workload.input.scale", p->scale},
                 {"workload.eps", p->eps},
                 {"tolerance.atol", p->tol.atol},
                 {"tolerance.rtol", p->tol.rtol},
                 {"analysis.throttle_fraction", p->throttle_fraction}};
    for (size_t i = 0; i < sizeof reals / sizeof reals[0]; i++)
        if (!isfinite(reals[i].value))
            return se_fail(err, SE_ERR_USAGE, "protocol: field '%s': %g is not a finite number",
                           reals[i].path, reals[i].value);
    const struct {
        const char *path;
        uint64_t value;
    } seeds[] = {{"workload.input.seed", p->seed},
                 {"analysis.bootstrap_seed", p->bootstrap_seed},
                 {"analysis.order_seed", p->order_seed}};
    for (size_t i = 0; i < sizeof seeds / sizeof seeds[0]; i++)
        if (seeds[i].value > (uint64_t)INT64_MAX)
            return se_fail(err, SE_ERR_USAGE,
                           "protocol: field '%s': %" PRIu64 " is above the largest seed, %" PRId64,
                           seeds[i].path, seeds[i].value, INT64_MAX);
    int n = se_protocol_nstrategies(p);
    if (p->strategies & ~se_strategy_all_mask(n))
        return se_fail(err, SE_ERR_USAGE, "protocol: field 'strategies': mask 0x%x has bits "
                       "outside the %d strategies", p->strategies, n);
    if (p->n_shapes > 0 && !p->shapes)
        return se_fail(err, SE_ERR_USAGE, "protocol: field 'workload.shapes': %zu shapes "
                       "but no array", p->n_shapes);
    return SE_OK;
}

se_status se_protocol_write(const se_protocol *p, char **text, se_err *err)
{
    *text = NULL;
    se_status st = check_writable(p, err);
    if (st != SE_OK)
        return st;
    json_t *root = protocol_json(p);
    if (!root)
        return se_fail(err, SE_ERR_NOMEM, "protocol: out of memory building the JSON document");
    char *dumped =
        json_dumps(root, JSON_INDENT(2) | JSON_PRESERVE_ORDER | JSON_REAL_PRECISION(17));
    json_decref(root);
    if (!dumped)
        return se_fail(err, SE_ERR_NOMEM, "protocol: out of memory writing the JSON document");
    size_t len = strlen(dumped);
    char *out = malloc(len + 2);
    if (!out) {
        free(dumped);
        return se_fail(err, SE_ERR_NOMEM, "protocol: out of memory writing the JSON document");
    }
    memcpy(out, dumped, len);
    out[len] = '\n';
    out[len + 1] = '\0';
    free(dumped);

    /* A protocol that would not read back (a count out of range, a bad shape)
     * is refused with the reader's message. */
    se_protocol check;
    st = se_protocol_parse_table(out, len + 1, "protocol (as written)", se_protocol_table(p),
                                 &check, err);
    se_protocol_free(&check);
    if (st != SE_OK) {
        free(out);
        return st;
    }
    *text = out;
    return SE_OK;
}
