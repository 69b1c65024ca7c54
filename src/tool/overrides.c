/*
 * overrides.c - command-line overrides of the protocol (see overrides.h).
 */
#include "tool/overrides.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

se_status se_protocol_apply_overrides(se_protocol *p, const se_run_opts *o, se_err *err)
{
    if (o->given & SE_GIVEN_TILE)
        p->tile = o->tile;
    if (o->given & SE_GIVEN_SHAPES) {
        se_shape *copy = malloc(o->n_shapes * sizeof *copy);
        if (!copy)
            return se_fail(err, SE_ERR_NOMEM, "--shapes: out of memory");
        memcpy(copy, o->shapes, o->n_shapes * sizeof *copy);
        free(p->shapes);
        p->shapes = copy;
        p->n_shapes = o->n_shapes;
    } else if (o->given & SE_GIVEN_TILE) {
        for (size_t i = 0; i < p->n_shapes; i++) {
            se_status st = se_parse_shape(p->shapes[i].spec, p->tile, &p->shapes[i], err);
            if (st != SE_OK)
                return st;
        }
    }
    if (o->given & SE_GIVEN_SEED)
        p->seed = o->seed;
    if (o->given & SE_GIVEN_SCALE)
        p->scale = o->scale;
    if (o->given & SE_GIVEN_EPS)
        p->eps = o->eps;
    if (o->given & SE_GIVEN_STRATEGIES)
        p->strategies = o->strategies;
    if (o->given & SE_GIVEN_INVOCATIONS)
        p->invocations = o->invocations;
    for (size_t i = 0; i < p->n_shapes; i++)
        for (size_t j = 0; j < i; j++)
            if (p->shapes[i].rows == p->shapes[j].rows && p->shapes[i].cols == p->shapes[j].cols)
                return se_fail(err, SE_ERR_USAGE,
                               "shapes '%s' and '%s' are the same size (%" PRId64 "x%" PRId64
                               "); each shape may appear once",
                               p->shapes[j].spec, p->shapes[i].spec, p->shapes[i].rows,
                               p->shapes[i].cols);
    return SE_OK;
}
