/*
 * sign.h - signed runs: an Ed25519 signature (RFC 8032, OpenSSL's EVP) over
 * the exact bytes of a run's MANIFEST.sha256, kept beside it in
 * MANIFEST.sha256.sig (docs/SIGNING.md). A manifest alone is a checksum list
 * anyone can recompute; the signature says which key's holder listed those
 * files with those hashes.
 *
 * The signature file is five text lines, nothing else:
 *
 *     softmax-evidence-signature 1
 *     signed-file MANIFEST.sha256
 *     algorithm ed25519
 *     key-sha256 <SHA-256 of the public key's DER SubjectPublicKeyInfo, hex>
 *     signature <the 64-byte signature, base64, one line>
 *
 * The signature is the one `openssl pkeyutl -sign -rawin` makes, so the
 * openssl command line checks it and makes one we accept. Keys are PEM
 * files as `openssl genpkey -algorithm ed25519` and `openssl pkey -pubout`
 * write them.
 */
#ifndef SE_BUNDLE_SIGN_H
#define SE_BUNDLE_SIGN_H

#include <stddef.h>
#include <stdio.h>

#include "model/se_common.h"

#define SE_SIGNATURE_FORMAT "softmax-evidence-signature"
#define SE_SIGNATURE_VERSION 1
#define SE_SIGNATURE_BYTES 64
/* The largest signature file read; a valid one is about 260 bytes. */
#define SE_SIGNATURE_MAX_FILE 1024
/* The largest manifest signed or checked (the reference run's is 55 kB). */
#define SE_SIGN_MAX_MANIFEST ((size_t)64 << 20)

/* A parsed signature file. */
typedef struct se_signature {
    char key_sha256[65];                        /* lowercase hex */
    unsigned char sig[SE_SIGNATURE_BYTES];
} se_signature;

/* Parses the text of a signature file (len bytes, untrusted, may hold NUL
 * bytes) strictly: the five lines above in that order, each ending in a
 * newline, the hex lowercase, the base64 canonical (88 characters). On
 * failure err says which line is wrong (no bytes of the file are echoed)
 * and the status is SE_ERR_VALIDATION. */
se_status se_signature_parse(const char *text, size_t len, se_signature *out, se_err *err);

/* Writes the text of a signature file for sig into buf (at least
 * SE_SIGNATURE_MAX_FILE bytes), NUL-terminated; returns its length. */
size_t se_signature_format(const se_signature *sig, char *buf, size_t size);

/* Signs run_dir/MANIFEST.sha256 with the Ed25519 private key in the PEM
 * file key_path and writes run_dir/MANIFEST.sha256.sig (a temporary file
 * beside it, renamed), replacing an older one; fingerprint receives the
 * key's SHA-256 (hex) when not NULL. Does not verify the run (se_sign_run
 * does). SE_ERR_USAGE when the key is not an Ed25519 private key, SE_ERR_IO
 * when a file cannot be read or written, SE_ERR_LIMIT for a manifest over
 * SE_SIGN_MAX_MANIFEST. */
se_status se_sign_manifest(const char *run_dir, const char *key_path, char fingerprint[65],
                           se_err *err);

/* Checks run_dir/MANIFEST.sha256.sig against run_dir/MANIFEST.sha256 with
 * the Ed25519 public key in the PEM file pub_path. SE_OK when the signature
 * is that key's over the manifest's exact bytes; SE_ERR_VALIDATION, with
 * the reason in err, when the signature file is missing, not a regular
 * file, malformed, made with another key or over other bytes;
 * SE_ERR_USAGE or SE_ERR_IO when the public key cannot be used (a problem
 * of the caller's, not of the run). Reads only regular files, never
 * through a symbolic link, with bounded sizes. */
se_status se_signature_check(const char *run_dir, const char *pub_path, se_err *err);

/* The `sign` command: verifies run_dir (as `verify`, not strict) and, if it
 * holds, signs it, printing one line on out. A run that does not verify is
 * not signed (SE_ERR_VALIDATION). */
se_status se_sign_run(const char *run_dir, const char *key_path, FILE *out, se_err *err);

/* `verify --trusted-key`'s part: checks the signature and prints
 * "signature: OK ..." or "signature: FAILED: ..." on out; returns as
 * se_signature_check. */
se_status se_signature_check_run(const char *run_dir, const char *pub_path, FILE *out,
                                 se_err *err);

#endif
