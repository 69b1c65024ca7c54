/*
 * sha256.h - SHA-256 of a file or a buffer, and its lowercase hex: the
 * hashes a manifest lists and validation.json records.
 */
#ifndef SE_BUNDLE_SHA256_H
#define SE_BUNDLE_SHA256_H

#include <stddef.h>

#include "model/se_common.h"

/* SHA-256 of a file's bytes (OpenSSL EVP), streamed. */
se_status se_sha256_file(const char *path, unsigned char digest[32], se_err *err);

/* SHA-256 of a buffer. */
se_status se_sha256_buffer(const void *data, size_t n, unsigned char digest[32], se_err *err);

/* SHA-256 over a stream of pieces (an archive's entries, streamed): begin,
 * any number of updates, then end, which writes the digest and frees the
 * context. NULL from begin means out of memory; free an unfinished one
 * with se_sha256_free. */
typedef struct se_sha256_stream se_sha256_stream;
se_sha256_stream *se_sha256_begin(void);
void se_sha256_update(se_sha256_stream *s, const void *data, size_t n);
se_status se_sha256_end(se_sha256_stream *s, unsigned char digest[32], se_err *err);
void se_sha256_free(se_sha256_stream *s);

/* Lowercase hex of a digest into hex (65 bytes with the NUL). */
void se_hex32(const unsigned char digest[32], char hex[65]);

/* Whether s is such a hex digest: exactly 64 lowercase hex digits. */
int se_is_hex64(const char *s);

#endif
