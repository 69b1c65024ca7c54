/*
 * manifest.h - SHA-256 manifests in `sha256sum -c` format: writing one over a
 * directory, and verifying a directory against one.
 *
 * Format: one line per file, "<64 lowercase hex>  <relative path>\n", paths
 * relative to the directory, '/'-separated, sorted bytewise, the manifest
 * itself not listed (nor, beside MANIFEST.sha256, its signature
 * MANIFEST.sha256.sig: bundle/sign.h). Only paths made of [A-Za-z0-9._/-] are written (no
 * escaping needed), so GNU `sha256sum -c MANIFEST.sha256` checks it too.
 */
#ifndef SE_MANIFEST_H
#define SE_MANIFEST_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "bundle/sha256.h" /* the hashes it lists; callers of the old home keep compiling */
#include "bundle/paths.h"
#include "model/se_common.h"

/* SE_MANIFEST_NAME: bundle/paths.h */

/* The prefix of the temporary names the program makes in a directory
 * while it rewrites its manifest (the manifest's own temporary file,
 * archive's private folder, profile's previous profile/ folder). Such a
 * name is listed and reported like any other (a leftover is `unlisted`):
 * only the one folder the caller names to se_manifest_write_skipping is
 * left out of the walk. */
#define SE_MANIFEST_TMP_PREFIX ".tmp-manifest"

/* Bounds on an untrusted manifest: its size (checked from fstat before
 * reading; a run's is tens of kB) and the files it may list. Lines are at
 * most 4096 bytes; verify prints the first 20 malformed lines and counts
 * the rest. */
#define SE_MANIFEST_MAX_BYTES ((uint64_t)64 << 20)
#define SE_MANIFEST_MAX_FILES (1 << 20)

/* Writes dir/<name> (written to a temporary file in dir, then renamed)
 * listing every regular file below dir except <name> itself; in a
 * selected bundle (dir/remote.json), also the remote-only files it names
 * that are not here, with the hashes the manifest listed. Refuses a
 * symbolic link, a non-regular file, or a path with other characters,
 * naming it. */
se_status se_manifest_write(const char *dir, const char *name, se_err *err);

/* The same, leaving out the top-level entry `skip`: a folder the caller
 * itself created in dir (mkdtemp) and removes once the manifest is in
 * place (profile's previous profile/, moved aside). */
se_status se_manifest_write_skipping(const char *dir, const char *name, const char *skip,
                                     se_err *err);

typedef struct se_manifest_report {
    size_t listed;      /* lines in the manifest */
    size_t verified;    /* listed, present, hash matches */
    size_t remote_only; /* listed, not present (and not recorded as archived) */
    size_t archived;    /* listed, not present, recorded as living in the run's archive */
    size_t mismatched;  /* listed and present with another hash, or unreadable */
    size_t unlisted;    /* present below dir, not listed (other than the manifest) */
    size_t malformed;   /* manifest lines that do not parse */
} se_manifest_report;

/* Verifies dir against dir/<name>. Prints one line per problem on out
 * ("mismatch: PATH: expected HEX, got HEX", "remote-only: PATH",
 * "unlisted: PATH", "malformed: NAME:LINE: ..."), then nothing else;
 * counts go to rep. Returns SE_OK when the manifest could be read, even if
 * files mismatch (the caller judges rep); SE_ERR_IO if it cannot be read,
 * naming it. */
se_status se_manifest_verify(const char *dir, const char *name, FILE *out,
                             se_manifest_report *rep, se_err *err);

/* The same, where the caller knows which files live only in an archive
 * (bundle/remote.h): a listed file that is not present and for which
 * archived(ctx, path) is 1 is counted in rep->archived and not printed;
 * the others as se_manifest_verify does. */
typedef int (*se_manifest_archived_fn)(void *ctx, const char *path);
se_status se_manifest_verify_archived(const char *dir, const char *name, FILE *out,
                                      se_manifest_report *rep, se_manifest_archived_fn archived,
                                      void *ctx, se_err *err);

/* One line of a manifest as se_manifest_read parsed it. */
typedef struct se_manifest_line {
    size_t line_no;   /* from 1 */
    const char *path; /* the listed path, valid during the callback; NULL when malformed */
    char hex[65];     /* its lowercase SHA-256 when path is set */
    char why[96];     /* why the line is malformed when path is NULL */
} se_manifest_line;

typedef se_status (*se_manifest_line_fn)(void *ctx, const se_manifest_line *line, se_err *err);

/* The one manifest line reader: calls fn for every line of dir/<name>, in
 * file order. Lines are parsed strictly, as untrusted input: 64 lowercase
 * hex digits, two spaces (or " *"), a relative path of [A-Za-z0-9._/-]
 * without empty, "." or ".." components, at most 4096 bytes; any other line
 * comes with path NULL and why set. A callback that returns other than
 * SE_OK stops the reading, and that status is returned. SE_ERR_IO when the
 * manifest cannot be read, naming it. Duplicates are the caller's to judge. */
se_status se_manifest_read(const char *dir, const char *name, se_manifest_line_fn fn, void *ctx,
                           se_err *err);

/* Sets *listed to 1 when dir/<name> has a well-formed line for rel, else 0.
 * SE_ERR_IO if the manifest cannot be read. */
se_status se_manifest_lists(const char *dir, const char *name, const char *rel, int *listed,
                            se_err *err);

/* Whether dir may be replaced by a command (`who`: site, figures) that
 * wrote dir/<name> over its earlier output: SE_OK when dir holds that
 * manifest, well formed, and nothing else than the regular files it lists,
 * each with the SHA-256 listed (as the command wrote it; dot-files and
 * temporary-looking names count like any other). Otherwise SE_ERR_USAGE
 * naming the first file the user added or changed there (or the missing
 * manifest): the caller must leave dir untouched. */
se_status se_manifest_own_output(const char *dir, const char *name, const char *who, se_err *err);

/* SHA-256 (hex) of dir/<name> without the one line that lists rel: for a
 * selected bundle, with rel remote.json, the complete run's manifest that
 * the marking extended by that line (bundle/remote.h). */
se_status se_manifest_sha256_without(const char *dir, const char *name, const char *rel,
                                     char hex[65], se_err *err);

/* 1 when the report has no mismatched, unlisted or malformed entry and, if
 * strict, no remote-only entry (archived ones are allowed). */
int se_manifest_ok(const se_manifest_report *rep, int strict);

#endif
