/*
 * sha256.c - SHA-256 of files and buffers through OpenSSL's EVP interface
 * (see sha256.h).
 */
#include "bundle/sha256.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <openssl/evp.h>

#define CHUNK_BYTES (1u << 20)

se_status se_sha256_file(const char *path, unsigned char digest[32], se_err *err)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return se_fail(err, SE_ERR_IO, "cannot open %s: %s", path, strerror(errno));
    unsigned char *buf = malloc(CHUNK_BYTES);
    EVP_MD_CTX *ctx = EVP_MD_CTX_new();
    se_status st = SE_OK;
    if (!buf || !ctx) {
        st = se_fail(err, SE_ERR_NOMEM, "cannot allocate a SHA-256 context for %s", path);
        goto done;
    }
    if (EVP_DigestInit_ex(ctx, EVP_sha256(), NULL) != 1) {
        st = se_fail(err, SE_ERR_IO, "OpenSSL cannot start SHA-256 of %s", path);
        goto done;
    }
    for (;;) {
        size_t got = fread(buf, 1, CHUNK_BYTES, f);
        if (got > 0 && EVP_DigestUpdate(ctx, buf, got) != 1) {
            st = se_fail(err, SE_ERR_IO, "OpenSSL SHA-256 update failed on %s", path);
            goto done;
        }
        if (got < CHUNK_BYTES) {
            if (ferror(f)) {
                st = se_fail(err, SE_ERR_IO, "cannot read %s: %s", path, strerror(errno));
                goto done;
            }
            break;
        }
    }
    unsigned int len = 0;
    if (EVP_DigestFinal_ex(ctx, digest, &len) != 1 || len != 32)
        st = se_fail(err, SE_ERR_IO, "OpenSSL cannot finish SHA-256 of %s", path);
done:
    EVP_MD_CTX_free(ctx);
    free(buf);
    fclose(f);
    return st;
}

se_status se_sha256_buffer(const void *data, size_t n, unsigned char digest[32], se_err *err)
{
    unsigned int len = 0;
    if (EVP_Digest(n ? data : "", n, digest, &len, EVP_sha256(), NULL) != 1 || len != 32)
        return se_fail(err, SE_ERR_IO, "OpenSSL SHA-256 of a %zu-byte buffer failed", n);
    return SE_OK;
}

struct se_sha256_stream {
    EVP_MD_CTX *ctx;
    int failed;
};

se_sha256_stream *se_sha256_begin(void)
{
    se_sha256_stream *s = calloc(1, sizeof *s);
    if (!s)
        return NULL;
    s->ctx = EVP_MD_CTX_new();
    if (!s->ctx || EVP_DigestInit_ex(s->ctx, EVP_sha256(), NULL) != 1) {
        se_sha256_free(s);
        return NULL;
    }
    return s;
}

void se_sha256_update(se_sha256_stream *s, const void *data, size_t n)
{
    if (n && EVP_DigestUpdate(s->ctx, data, n) != 1)
        s->failed = 1;
}

se_status se_sha256_end(se_sha256_stream *s, unsigned char digest[32], se_err *err)
{
    unsigned int len = 0;
    int ok = !s->failed && EVP_DigestFinal_ex(s->ctx, digest, &len) == 1 && len == 32;
    se_sha256_free(s);
    return ok ? SE_OK : se_fail(err, SE_ERR_IO, "OpenSSL SHA-256 of a stream failed");
}

void se_sha256_free(se_sha256_stream *s)
{
    if (!s)
        return;
    EVP_MD_CTX_free(s->ctx);
    free(s);
}

void se_hex32(const unsigned char digest[32], char hex[65])
{
    static const char digits[] = "0123456789abcdef";
    for (int i = 0; i < 32; i++) {
        hex[2 * i] = digits[digest[i] >> 4];
        hex[2 * i + 1] = digits[digest[i] & 15];
    }
    hex[64] = '\0';
}

int se_is_hex64(const char *s)
{
    if (strlen(s) != 64)
        return 0;
    for (; *s; s++)
        if (!((*s >= '0' && *s <= '9') || (*s >= 'a' && *s <= 'f')))
            return 0;
    return 1;
}
