/*
 * verify_internal.h - private to verify.c, verify_validation.c and
 * verify_traces.c: the state of one verify and the helpers they share.
 * Not part of the bundle's interface (verify.h is).
 */
#ifndef SE_VERIFY_INTERNAL_H
#define SE_VERIFY_INTERNAL_H

#include <stddef.h>
#include <stdio.h>

#include <jansson.h>

#include "bundle/rundata.h"
#include "model/protocol.h"
#include "model/se_common.h"

typedef struct verify_ctx {
    const char *dir;
    FILE *out;
    size_t problems;
    size_t samples_read;
    int strict;
    se_rundata rd; /* the run as the one reader loads it (leniently) */
} verify_ctx;

/* Counts one problem and prints fmt (with a and b, shown printable). */
void verify_problem(verify_ctx *v, const char *fmt, const char *a, const char *b);

/* dir/rel of the run being verified. */
void verify_path_of(const verify_ctx *v, const char *rel, char *buf, size_t size);

/* A type error of one record's field, reported (once per call). */
void verify_type_problem(verify_ctx *v, const se_err *e);

/* 1 when rel is present in the run (stat). */
int verify_present(const verify_ctx *v, const char *rel);

/* Re-checks one validation record from its saved arrays, if present
 * (verify_validation.c). Returns 1 if it was re-checked. */
int verify_recheck_arrays(verify_ctx *v, const se_protocol *p, const se_shape *sh,
                          const json_t *c, const char *cid, const char *name, const char *file);

/* validation.json against the protocol (verify_validation.c). */
void verify_check_validation(verify_ctx *v, const se_protocol *p);

/* traces.json against the traces (verify_traces.c). */
void verify_check_traces(verify_ctx *v, const se_protocol *p);

#endif
