/*
 * archive.h - the complete run as one deterministic .tar.gz, the selected
 * bundle that stays local, and verify --archive (docs/ARCHIVE.md).
 *
 * Written and read with libarchive, which is optional: a build without it
 * (the H200 image lacks libarchive-dev) has both commands say so with
 * SE_ERR_USAGE. Nothing here needs a network: where the archive is kept
 * (a path, a shared file system, an object store the user copies it to) is
 * the user's.
 */
#ifndef SE_BUNDLE_ARCHIVE_H
#define SE_BUNDLE_ARCHIVE_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "model/se_common.h"

/* 1 when this build has libarchive. */
int se_archive_supported(void);

typedef struct se_archive_opts {
    const char *run;             /* the complete run directory */
    const char *output;          /* -o FILE.tar.gz; FILE.tar.gz.sha256 is written beside it */
    int mark;                    /* 0: only write the archive, the run is left as it is */
    const char *const *remote;   /* globs (fnmatch, '*' crosses '/') of files to leave remote-only */
    size_t n_remote;
    int remote_given;            /* the globs are the user's: one that selects a file verify
                                    needs locally is an error, not skipped */
    const char *const *keep;     /* globs of files that stay local whatever else matches */
    size_t n_keep;
    uint64_t min_bytes;          /* only files of at least this many bytes are left remote-only */
    int level;                   /* gzip compression level, 0 (stored) to 9 */
} se_archive_opts;

/* The default gzip level of `archive` (zlib's own default). */
#define SE_ARCHIVE_DEFAULT_LEVEL 6

/* archive RUN -o FILE.tar.gz: verifies the run (it must be complete: every
 * listed file here, no remote.json), writes the archive to a temporary
 * file beside FILE (entries sorted bytewise by path, except that a shape's
 * input array comes before its outputs; every entry a regular file
 * <run_id>/<path> with mode 0644, uid and gid 0, no owner names, mtime the
 * run's start; gzip without a name or time), reads it back checking every
 * entry against the manifest, renames it to FILE (never over an existing
 * file) and writes FILE.sha256 in sha256sum format. With o->mark, it then
 * records the selected remote-only files in RUN/remote.json, adds that file
 * to the manifest (the other lines unchanged), removes the selected files
 * from RUN and verifies what is left with --strict. A signed run is not
 * marked (its signature would no longer hold): sign after archiving. */
se_status se_archive_run(const se_archive_opts *o, FILE *out, se_err *err);

/* verify RUN --archive FILE: FILE's size and SHA-256 against remote.json,
 * then every entry streamed (nothing unpacked to disk, one entry in memory
 * at most, plus a shape's input while its outputs are checked): a regular
 * file below <run_id>/, listed in the manifest, once, of at most 256 MiB,
 * with the listed SHA-256 (the complete manifest's against remote.json's
 * record); every remote-only file present; and every saved output whose
 * input came before it re-checked like verify re-checks local arrays (the
 * recorded counts and errors recomputed from the float64 reference).
 * SE_ERR_VALIDATION when anything differs, each problem printed on out. */
se_status se_verify_archive(const char *run, const char *archive, FILE *out, se_err *err);

#endif
