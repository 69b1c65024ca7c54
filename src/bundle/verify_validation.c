/*
 * verify_validation.c - verify's re-check of validation.json (records against
 * the protocol, the tiled strategies' identical outputs); each record's
 * saved arrays are re-checked by verify_arrays.c.
 */
#define _POSIX_C_SOURCE 200809L
#include "bundle/verify_internal.h"

#include <errno.h>
#include <inttypes.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <jansson.h>

#include "bundle/fsutil.h"
#include "model/json.h"
#include "bundle/paths.h"
#include "model/reference.h"
#include "model/strategy.h"
#include "model/tolerance.h"
#include "bundle/sha256.h"


/* validation.json's tiled-identity check: the first output hash of a
 * matches_tiled record per shape, in a hash table (linear in the records). */
typedef struct shape_slot {
    const char *shape, *sha;
} shape_slot;

static uint64_t fnv1a(const char *s)
{
    uint64_t h = 1469598103934665603ull;
    for (; *s; s++)
        h = (h ^ (unsigned char)*s) * 1099511628211ull;
    return h;
}

/* The slot of shape in a table of cap (a power of two) slots. */
static shape_slot *slot_of(shape_slot *t, size_t cap, const char *shape)
{
    size_t i = (size_t)fnv1a(shape) & (cap - 1);
    while (t[i].shape && strcmp(t[i].shape, shape) != 0)
        i = (i + 1) & (cap - 1);
    return &t[i];
}

/* The strategy of the k-th selected strategy of p (table order). */
static int selected_strategy(const se_protocol *p, size_t k)
{
    for (int s = 0; s < se_protocol_nstrategies(p); s++)
        if ((p->strategies >> s) & 1u) {
            if (k == 0)
                return s;
            k--;
        }
    return -1;
}

void verify_check_validation(verify_ctx *v, const se_protocol *p)
{
    const json_t *j = v->rd.validation;
    if (!j)
        return;
    size_t before = v->problems, n_pass = 0, n_arrays = 0;
    json_t *tol = json_object_get(j, "tolerance");
    if (json_real_value(json_object_get(tol, "atol")) != p->tol.atol ||
        json_real_value(json_object_get(tol, "rtol")) != p->tol.rtol)
        verify_problem(v, SE_VALIDATION_JSON ": field 'tolerance': differs from " SE_PROTOCOL_JSON "%s%s", "", "");
    json_t *cases = json_object_get(j, "cases");
    size_t n_sel = 0;
    for (int s = 0; s < se_protocol_nstrategies(p); s++)
        n_sel += (p->strategies >> s) & 1u;
    size_t want = n_sel * p->n_shapes;
    if (!json_is_array(cases) || json_array_size(cases) != want) {
        char a[32], b[32];
        snprintf(a, sizeof a, "%zu", json_array_size(cases));
        snprintf(b, sizeof b, "%zu", want);
        verify_problem(v, SE_VALIDATION_JSON ": field 'cases': %s records, the protocol implies %s", a, b);
    }
    size_t cap = 16;
    while (cap < 2 * json_array_size(cases))
        cap *= 2;
    shape_slot *tiled = calloc(cap, sizeof *tiled);
    if (!tiled) {
        verify_problem(v, SE_VALIDATION_JSON ": out of memory%s%s", "", "");
        return;
    }
    size_t i;
    json_t *c;
    json_array_foreach(cases, i, c) {
        if (i >= want)
            break; /* reported above; the protocol has no case for it */
        const se_shape *sh = &p->shapes[i / n_sel];
        const char *sname = se_protocol_strategy(p, selected_strategy(p, i % n_sel))->name;
        char expect[SE_CASE_ID_SIZE], where[SE_CASE_ID_SIZE + 64], shown[4 * 64 + 8];
        se_case_id_make(sh->rows, sh->cols, sname, expect, sizeof expect);
        const char *cid = json_string_value(json_object_get(c, "case"));
        if (!cid || strcmp(cid, expect) != 0) {
            se_printable(cid ? cid : "(not a string)", shown, sizeof shown);
            snprintf(where, sizeof where, "%zu].case': expected %s", i, expect);
            verify_problem(v, SE_VALIDATION_JSON ": field 'cases[%s, got '%s'", where, shown);
            continue;
        }
        snprintf(where, sizeof where, "%s: %s", SE_VALIDATION_JSON, cid);
        se_err e = {{0}};
        json_int_t fails, nan, inv, rows, cols;
        int pass, repeat;
        const char *shape, *out_sha;
        const json_t *mt = json_object_get(c, "matches_tiled");
        if (se_json_get_int(c, "rows", 1, INT64_MAX, &rows, where, &e) != SE_OK ||
            se_json_get_int(c, "cols", 1, INT64_MAX, &cols, where, &e) != SE_OK ||
            se_json_get_int(c, "fails", 0, INT64_MAX, &fails, where, &e) != SE_OK ||
            se_json_get_int(c, "nan", 0, INT64_MAX, &nan, where, &e) != SE_OK ||
            se_json_get_int(c, "invocations", 0, INT64_MAX, &inv, where, &e) != SE_OK ||
            se_json_get_bool(c, "pass", &pass, where, &e) != SE_OK ||
            se_json_get_bool(c, "repeat_identical", &repeat, where, &e) != SE_OK ||
            se_json_get_str(c, "shape", &shape, where, &e) != SE_OK ||
            se_json_get_str(c, "output_sha256", &out_sha, where, &e) != SE_OK ||
            (!json_is_boolean(mt) && !json_is_null(mt) &&
             se_fail(&e, SE_ERR_VALIDATION, "%s: field 'matches_tiled': expected true, false or "
                     "null, got %s", where, se_json_type_name(mt)))) {
            verify_type_problem(v, &e);
            continue;
        }
        if (rows != sh->rows || cols != sh->cols || strcmp(shape, sh->spec) != 0)
            verify_problem(v, SE_VALIDATION_JSON ": %s: fields 'shape'/'rows'/'cols' differ from the "
                    "protocol's shape%s", cid, "");
        int consistent = (fails == 0 && nan == 0 && repeat && !json_is_false(mt)) == pass;
        if (!consistent)
            verify_problem(v, SE_VALIDATION_JSON ": %s: field 'pass' is inconsistent with fails, nan, "
                    "repeat_identical and matches_tiled%s", cid, "");
        else if (!pass)
            verify_problem(v, SE_VALIDATION_JSON ": %s: failed validation (%s)", cid, "as recorded");
        n_pass += pass && consistent;
        if (inv != p->invocations)
            verify_problem(v, SE_VALIDATION_JSON ": %s: field 'invocations' differs from the protocol%s",
                    cid, "");
        /* The four tiled strategies of one shape wrote the same bytes. */
        if (json_is_true(mt)) {
            shape_slot *t = slot_of(tiled, cap, sh->spec);
            if (!t->shape) {
                t->shape = sh->spec;
                t->sha = out_sha;
            } else if (strcmp(t->sha, out_sha) != 0) {
                verify_problem(v, SE_VALIDATION_JSON ": %s: field 'output_sha256' differs from another "
                        "tiled strategy of the shape, yet matches_tiled is true%s", cid, "");
            }
        }
        n_arrays += (size_t)verify_recheck_arrays(v, p, sh, c, cid, sname, SE_VALIDATION_JSON);
    }
    free(tiled);
    if (v->out)
        fprintf(v->out, "validation: %zu cases re-checked against atol %g, rtol %g: %zu pass%s; "
                "%zu recomputed from saved arrays\n", json_array_size(cases), p->tol.atol,
                p->tol.rtol, n_pass, v->problems == before ? "" : ", PROBLEMS", n_arrays);
}
