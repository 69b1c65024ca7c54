/*
 * archive_internal.h - private to archive.c and archive_scan.c: a run's
 * manifest as a sorted table, and the one streaming reader of an archive
 * that both the writer (reading back what it wrote) and verify --archive
 * use. Not part of the bundle's interface (archive.h is).
 */
#ifndef SE_ARCHIVE_INTERNAL_H
#define SE_ARCHIVE_INTERNAL_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "bundle/verify_internal.h"
#include "model/se_common.h"

/* The largest entry read (256 MiB), except a saved array of exactly its
 * shape's bytes (up to SE_ARRAY_MAX_BYTES). */
#define SE_ARCHIVE_ENTRY_MAX ((uint64_t)256 << 20)

/* verify --archive keeps a saved input in memory for its outputs only when
 * it is at most this (64 MiB) plus twice the archive's bytes: saved inputs
 * are random floats (gzip shrinks them by about 7 %), so a larger one
 * inflated from a small archive is a gzip bomb, hashed and not kept. */
#define SE_ARCHIVE_KEEP_FREE ((uint64_t)64 << 20)

typedef struct manifest_file {
    char *path;
    char hex[65];
    int seen;      /* an archive entry had this path */
} manifest_file;

typedef struct manifest_table {
    manifest_file *v;
    size_t n, cap;
} manifest_table;

/* dir's MANIFEST.sha256, every line well formed, sorted by path, each path
 * once; a malformed or repeated line is an error naming it. */
se_status archive_manifest_load(const char *dir, manifest_table *t, se_err *err);
manifest_file *archive_manifest_find(const manifest_table *t, const char *path);
void archive_manifest_free(manifest_table *t);

typedef struct archive_scan_report {
    size_t entries;          /* entries read */
    size_t matched;          /* entries whose SHA-256 is the listed one */
    size_t problems;
    size_t remote_checked;   /* of them, remote-only in v->remote */
    size_t arrays_validation, arrays_peers; /* outputs re-checked from the archive's arrays */
} archive_scan_report;

/* Streams the archive at path: every entry must be a regular file named
 * <run_id>/<path> with path listed in t (its hex) or MANIFEST.sha256
 * (hashing to manifest_hex) or MANIFEST.sha256.sig, once, of at most
 * SE_ARCHIVE_ENTRY_MAX bytes; every file of t other than skip_path must be
 * there. With v (its run loaded), saved outputs are re-checked against
 * their records. Problems are counted in rep and printed on out ("  " and
 * the message); SE_OK when the archive could be read to its end, else an
 * error naming where it stopped (a truncated or corrupt gzip). */
se_status archive_scan(const char *path, const char *run_id, manifest_table *t,
                       const char *manifest_hex, const char *skip_path, verify_ctx *v, FILE *out,
                       archive_scan_report *rep, se_err *err);

/* libarchive's message for a's last failure, never NULL: libarchive gives
 * none for some truncated streams (a gzip stream without its trailer). */
struct archive;
const char *archive_why(struct archive *a);

/* The order of entries in an archive: bytewise by path, except that
 * arrays/<shape>.x.f32 comes before every other arrays/<shape>.* entry (so
 * a shape's input is read before its outputs). */
int archive_path_cmp(const char *a, const char *b);

#endif
