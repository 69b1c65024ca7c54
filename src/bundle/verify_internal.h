/*
 * verify_internal.h - private to verify.c, verify_validation.c,
 * verify_arrays.c, verify_traces.c and archive_scan.c: the state of one
 * verify and the helpers they share.
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
    /* The reference's row statistics of the last input re-checked from
     * its saved array, for the next output of the same input (every
     * strategy's and peer's): keyed by the input's identity (its file's,
     * or its hash), shape and eps; rows [0, stats_done) are filled. NULL
     * where they would take over 64 MiB (they are then recomputed).
     * Freed by verify_ref_cache_free. */
    struct se_op_row *stats;
    size_t stats_done;
    char stats_key[300];
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
 * (verify_arrays.c). Returns 1 if it was re-checked. */
int verify_recheck_arrays(verify_ctx *v, const se_protocol *p, const se_shape *sh,
                          const json_t *c, const char *cid, const char *name, const char *file);

/* The largest array verify reads (4 GiB, 1 Gi elements: the default
 * protocol's largest case, 256x1048576, is 1 GiB): its size comes from the
 * protocol's shape and is checked against the file's (or archive entry's)
 * before anything is read. The re-check streams it (verify_arrays.c), so
 * its memory does not grow with the shape. */
#define SE_ARRAY_MAX_BYTES ((uint64_t)4 << 30)

/* The bytes of one array of shape sh, or a problem (where: the record)
 * and SE_ERR_LIMIT when they are over SE_ARRAY_MAX_BYTES. */
se_status verify_array_bytes(verify_ctx *v, const se_shape *sh, const char *where,
                             uint64_t *bytes);

/* One output's streamed re-check against its input (verify_arrays.c): the
 * input in memory (x_mem, an archive's) or a file (x_fd, read at the
 * output's positions), x_key naming its bytes for the row statistics kept
 * between outputs; the output fed in blocks of any size, in order. The
 * arrays are hashed here where hash_x/hash_y, else the caller gives their
 * hashes to verify_recheck_end. NULL when out of memory. */
typedef struct verify_recheck verify_recheck;
verify_recheck *verify_recheck_begin(verify_ctx *v, const se_protocol *p, const se_shape *sh,
                                     const float *x_mem, int x_fd, const char *x_key, int hash_x,
                                     int hash_y);
se_status verify_recheck_feed(verify_recheck *rc, const void *data, size_t n, se_err *err);
/* The record c against what was fed: the hashes, the recorded counts and
 * max errors (problems named by where, xrel, yrel); frees rc. */
void verify_recheck_end(verify_recheck *rc, const json_t *c, const char *where, const char *xrel,
                        const char *yrel, const char *x_hex, const char *y_hex);
/* Frees an unfinished re-check. */
void verify_recheck_free(verify_recheck *rc);

/* validation.json against the protocol (verify_validation.c). */
void verify_check_validation(verify_ctx *v, const se_protocol *p);

/* traces.json against the traces (verify_traces.c). */
void verify_check_traces(verify_ctx *v, const se_protocol *p);

#endif
