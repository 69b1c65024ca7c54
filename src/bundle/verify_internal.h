/*
 * verify_internal.h - private to verify.c, verify_validation.c and
 * verify_traces.c: the state of one verify and the helpers they share.
 * Not part of the bundle's interface (verify.h is).
 */
#ifndef SE_VERIFY_INTERNAL_H
#define SE_VERIFY_INTERNAL_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include <jansson.h>

#include "bundle/remote.h"
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
    se_remote remote; /* remote.json: files that live only in the run's archive */
    int have_remote;
    /* The float64 reference of the last input re-checked, for the next
     * output of the same input (every strategy's and peer's): keyed by the
     * input's SHA-256, shape and eps, so only identical bytes reuse it.
     * Freed by verify_ref_cache_free. */
    double *ref;
    char ref_x_hex[65];
    int64_t ref_rows, ref_cols;
    double ref_eps;
} verify_ctx;

/* Frees verify_ctx's cached reference. */
void verify_ref_cache_free(verify_ctx *v);

/* 1 when rel is recorded in remote.json as living only in the archive. */
int verify_archived(const verify_ctx *v, const char *rel);

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

/* The largest array verify reads (4 GiB, 1 Gi elements: the default
 * protocol's largest case, 256x1048576, is 1 GiB; re-checking one holds x,
 * y and a float64 reference, 4 times its bytes): its size comes from the
 * protocol's shape and is checked against the file's (or archive
 * entry's) before anything is allocated. */
#define SE_ARRAY_MAX_BYTES ((uint64_t)4 << 30)

/* The bytes of one array of shape sh, or a problem (where: the record)
 * and SE_ERR_LIMIT when they are over SE_ARRAY_MAX_BYTES. */
se_status verify_array_bytes(verify_ctx *v, const se_shape *sh, const char *where,
                             uint64_t *bytes);

/* The re-check itself, over arrays in memory (of files, or of an archive's
 * entries: verify_archive.c): x and y of sh's size, their hashes against
 * the record c's, the float64 reference recomputed and compared, the
 * recorded counts and max errors against the recomputed ones. xrel and
 * yrel name the arrays in messages, `where` the record. x_hex and y_hex
 * are the arrays' SHA-256 where the caller already has it (the archive's
 * scan hashed each entry as it read it), NULL to compute it here. */
void verify_recheck_buffers(verify_ctx *v, const se_protocol *p, const se_shape *sh,
                            const json_t *c, const char *where, const float *x, const float *y,
                            const char *xrel, const char *yrel, const char *x_hex,
                            const char *y_hex);

/* validation.json against the protocol (verify_validation.c). */
void verify_check_validation(verify_ctx *v, const se_protocol *p);

/* traces.json against the traces (verify_traces.c). */
void verify_check_traces(verify_ctx *v, const se_protocol *p);

#endif
