/*
 * manifest.h - SHA-256 manifests in `sha256sum -c` format: writing one over a
 * directory, and verifying a directory against one.
 *
 * Format: one line per file, "<64 lowercase hex>  <relative path>\n", paths
 * relative to the directory, '/'-separated, sorted bytewise, the manifest
 * itself not listed. Only paths made of [A-Za-z0-9._/-] are written (no
 * escaping needed), so GNU `sha256sum -c MANIFEST.sha256` checks it too.
 */
#ifndef SE_MANIFEST_H
#define SE_MANIFEST_H

#include <stddef.h>
#include <stdio.h>

#include "model/se_common.h"

#define SE_MANIFEST_NAME "MANIFEST.sha256"

/* SHA-256 of a file's bytes (OpenSSL EVP), streamed. */
se_status se_sha256_file(const char *path, unsigned char digest[32], se_err *err);

/* SHA-256 of a buffer. */
se_status se_sha256_buffer(const void *data, size_t n, unsigned char digest[32], se_err *err);

/* Lowercase hex of a digest into hex (65 bytes with the NUL). */
void se_hex32(const unsigned char digest[32], char hex[65]);

/* Writes dir/<name> (written to a temporary file in dir, then renamed)
 * listing every regular file below dir except <name> itself. Refuses a
 * symbolic link, a non-regular file, or a path with other characters,
 * naming it. */
se_status se_manifest_write(const char *dir, const char *name, se_err *err);

typedef struct se_manifest_report {
    size_t listed;      /* lines in the manifest */
    size_t verified;    /* listed, present, hash matches */
    size_t remote_only; /* listed, not present */
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

/* Sets *listed to 1 when dir/<name> has a well-formed line for rel, else 0.
 * SE_ERR_IO if the manifest cannot be read. */
se_status se_manifest_lists(const char *dir, const char *name, const char *rel, int *listed,
                            se_err *err);

/* 1 when the report has no mismatched, unlisted or malformed entry and, if
 * strict, no remote-only entry. */
int se_manifest_ok(const se_manifest_report *rep, int strict);

#endif
