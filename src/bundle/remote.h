/*
 * remote.h - remote.json: which files of a run live only in its archive
 * (docs/ARCHIVE.md). `archive RUN -o RUN.tar.gz` writes the complete run
 * as one deterministic archive and, in the selected bundle that stays
 * local, records the archive's name, size and SHA-256, the SHA-256 of the
 * complete run's manifest (the one inside the archive) and the list of
 * remote-only files. remote.json is itself listed in MANIFEST.sha256, so a
 * signature of the manifest covers it; the other lines of the manifest are
 * the complete run's, byte for byte (se_manifest_sha256_without hashes
 * them), and the SHA-256 of the remote-only files' lines alone (which
 * verify checks, so that a command rewriting a local file, as profile
 * does, leaves them checkable).
 *
 * verify reads it to tell a file that was archived on purpose from one that
 * is missing: the former is counted, named once by archive, and does not
 * fail --strict; `verify --archive` checks them (bundle/archive.h).
 */
#ifndef SE_BUNDLE_REMOTE_H
#define SE_BUNDLE_REMOTE_H

#include <stddef.h>
#include <stdint.h>

#include "bundle/paths.h"
#include "model/se_common.h"

/* SE_REMOTE_JSON: bundle/paths.h */
#define SE_REMOTE_FORMAT "softmax-evidence-remote"
/* The most remote-only files it may list (a manifest's bound). */
#define SE_REMOTE_MAX_FILES (1 << 20)

typedef struct se_remote {
    char run_id[64];
    char archive_name[256];    /* a plain file name, [A-Za-z0-9._+-] */
    char archive_sha256[65];
    uint64_t archive_bytes;
    char manifest_sha256[65];  /* of the complete run's MANIFEST.sha256 */
    /* remote_lines_sha256: of the remote-only files' manifest lines, in
     * manifest order (se_remote_lines_sha256, remote_lines.h); "" in a remote.json written
     * before it was recorded. */
    char lines_sha256[65];
    char **files;              /* the remote-only paths, sorted bytewise, unique */
    size_t n_files;
} se_remote;

/* 1 when path is of a kind that may live only in the archive: a saved
 * array (arrays/<name>.f32), a trace's task records (traces/<case>.csv,
 * not outputs.csv nor the traced/untraced samples, which verify needs for
 * the tracing costs) or the profiler's raw export (profile/ncu_raw.csv).
 * Everything else verify needs locally to recompute what the run says. */
int se_remote_path_allowed(const char *path);

/* Loads dir/remote.json into r (free it with se_remote_free). *present is
 * 0 (and r empty, SE_OK) when the run has no remote.json. Every field's
 * type is checked, each listed path must be allowed and the list sorted
 * and unique; messages name the file and field. */
se_status se_remote_load(const char *dir, se_remote *r, int *present, se_err *err);

/* Writes r as the new file dir/<rel> (created O_EXCL|O_NOFOLLOW: never
 * through a link, never over anything; the caller's private folder), its
 * remote_lines_sha256 r->lines_sha256 (se_remote_lines_sha256). */
se_status se_remote_write(const char *dir, const char *rel, const se_remote *r, se_err *err);


/* 1 when path is one of r's remote-only files. */
int se_remote_has(const se_remote *r, const char *path);

void se_remote_free(se_remote *r);

#endif
