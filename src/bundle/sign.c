/*
 * sign.c - Ed25519 signatures over a run's MANIFEST.sha256 (see sign.h and
 * docs/SIGNING.md): OpenSSL's EVP_DigestSign/EVP_DigestVerify, PEM keys,
 * and the five-line signature file, parsed strictly as untrusted input.
 *
 * The run folder is hostile: the signature file and the manifest are read
 * only when they are regular files reached without a symbolic link, opened
 * without blocking (a FIFO cannot hang us), with a size bound. The keys are
 * the caller's own files and are read with OpenSSL's PEM readers.
 */
#define _POSIX_C_SOURCE 200809L

#include "bundle/sign.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <openssl/bio.h>
#include <openssl/err.h>
#include <openssl/evp.h>
#include <openssl/pem.h>
#include <openssl/x509.h>

#include "bundle/fsutil.h"
#include "bundle/manifest.h"
#include "bundle/paths.h"
#include "bundle/sha256.h"
#include "bundle/verify.h"

#define B64_LEN 88 /* base64 of 64 bytes, with its "==" */
#define TMP_SIG ".tmp-signature-XXXXXX"

/* ---- the signature file's text ---------------------------------------- */

/* Takes the next line of text[*pos..len) (without its newline) into
 * line/n; 0 when there is no complete line. */
static int next_line(const char *text, size_t len, size_t *pos, const char **line, size_t *n)
{
    if (*pos >= len)
        return 0;
    const char *start = text + *pos;
    const char *nl = memchr(start, '\n', len - *pos);
    if (!nl)
        return 0;
    *line = start;
    *n = (size_t)(nl - start);
    *pos += *n + 1;
    return 1;
}

/* 1 when line[0..n) is exactly `key` + ' ' + value; *value, *vlen set. */
static int keyed(const char *line, size_t n, const char *key, const char **value, size_t *vlen)
{
    size_t k = strlen(key);
    if (n <= k + 1 || memcmp(line, key, k) != 0 || line[k] != ' ')
        return 0;
    *value = line + k + 1;
    *vlen = n - k - 1;
    return 1;
}

static int exact(const char *line, size_t n, const char *want)
{
    return n == strlen(want) && memcmp(line, want, n) == 0;
}

se_status se_signature_parse(const char *text, size_t len, se_signature *out, se_err *err)
{
    static const char *const what[] = {
        (SE_SIGNATURE_FORMAT " 1"), ("signed-file " SE_MANIFEST_NAME), "algorithm ed25519",
        "key-sha256 <64 lowercase hex digits>", "signature <88 base64 characters>"};
    memset(out, 0, sizeof *out);
    if (len > SE_SIGNATURE_MAX_FILE)
        return se_fail(err, SE_ERR_VALIDATION, "%s: %zu bytes, more than a signature file's %d",
                       SE_MANIFEST_SIG, len, SE_SIGNATURE_MAX_FILE);
    size_t pos = 0;
    for (int i = 0; i < 5; i++) {
        const char *line = NULL, *v = NULL;
        size_t n = 0, vlen = 0;
        int ok = next_line(text, len, &pos, &line, &n);
        if (ok && i == 0)
            ok = exact(line, n, what[0]);
        else if (ok && i == 1)
            ok = exact(line, n, what[1]);
        else if (ok && i == 2)
            ok = exact(line, n, what[2]);
        else if (ok && i == 3) {
            ok = keyed(line, n, "key-sha256", &v, &vlen) && vlen == 64;
            for (size_t k = 0; ok && k < 64; k++)
                ok = (v[k] >= '0' && v[k] <= '9') || (v[k] >= 'a' && v[k] <= 'f');
            if (ok) {
                memcpy(out->key_sha256, v, 64);
                out->key_sha256[64] = '\0';
            }
        } else if (ok && i == 4) {
            ok = keyed(line, n, "signature", &v, &vlen) && vlen == B64_LEN;
            unsigned char raw[B64_LEN], again[B64_LEN + 1];
            char b64[B64_LEN + 1];
            if (ok) {
                memcpy(b64, v, B64_LEN);
                b64[B64_LEN] = '\0';
                /* EVP_DecodeBlock counts the padding; re-encoding must give
                 * the same text, so only the canonical form is accepted. */
                ok = memchr(b64, '\0', B64_LEN) == NULL &&
                     EVP_DecodeBlock(raw, (const unsigned char *)b64, B64_LEN) == 66;
            }
            if (ok) {
                EVP_EncodeBlock(again, raw, SE_SIGNATURE_BYTES);
                ok = memcmp(again, b64, B64_LEN) == 0;
            }
            if (ok)
                memcpy(out->sig, raw, SE_SIGNATURE_BYTES);
        }
        if (!ok)
            return se_fail(err, SE_ERR_VALIDATION, "%s: line %d is not \"%s\"%s", SE_MANIFEST_SIG,
                           i + 1, what[i], line ? "" : " (the file ends before it)");
    }
    if (pos != len)
        return se_fail(err, SE_ERR_VALIDATION, "%s: %zu bytes after the fifth line", SE_MANIFEST_SIG,
                       len - pos);
    return SE_OK;
}

size_t se_signature_format(const se_signature *sig, char *buf, size_t size)
{
    unsigned char b64[B64_LEN + 1];
    EVP_EncodeBlock(b64, sig->sig, SE_SIGNATURE_BYTES);
    int n = snprintf(buf, size, "%s %d\nsigned-file %s\nalgorithm ed25519\nkey-sha256 %s\nsignature %s\n",
                     SE_SIGNATURE_FORMAT, SE_SIGNATURE_VERSION, SE_MANIFEST_NAME, sig->key_sha256,
                     (const char *)b64);
    return n < 0 ? 0 : (size_t)n < size ? (size_t)n : size - 1;
}

/* ---- files of the run ------------------------------------------------- */

/* Reads a regular file of the run, not through a symbolic link, without
 * blocking on a FIFO, of at most max bytes, into a malloc'd *data.
 * *missing is set when it does not exist. Statuses: SE_ERR_VALIDATION when
 * the file is missing, not regular or too large (a problem of the run),
 * SE_ERR_IO when it cannot be read, SE_ERR_NOMEM. */
static se_status read_run_file(const char *path, const char *name, size_t max, char **data,
                               size_t *len, int *missing, se_err *err)
{
    *data = NULL;
    *len = 0;
    *missing = 0;
    int fd = open(path, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
    if (fd < 0) {
        *missing = errno == ENOENT;
        if (errno == ENOENT)
            return se_fail(err, SE_ERR_VALIDATION, "%s: missing", name);
        if (errno == ELOOP)
            return se_fail(err, SE_ERR_VALIDATION, "%s: a symbolic link, not a regular file", name);
        return se_fail(err, SE_ERR_IO, "%s: cannot open: %s", name, strerror(errno));
    }
    struct stat sb;
    se_status st = SE_OK;
    if (fstat(fd, &sb) != 0)
        st = se_fail(err, SE_ERR_IO, "%s: cannot stat: %s", name, strerror(errno));
    else if (!S_ISREG(sb.st_mode))
        st = se_fail(err, SE_ERR_VALIDATION, "%s: not a regular file", name);
    else if (sb.st_size < 0 || (unsigned long long)sb.st_size > max)
        st = se_fail(err, SE_ERR_VALIDATION, "%s: %lld bytes, more than the %zu read", name,
                     (long long)sb.st_size, max);
    char *buf = NULL;
    size_t have = 0;
    if (st == SE_OK) {
        buf = malloc((size_t)sb.st_size + 1);
        if (!buf)
            st = se_fail(err, SE_ERR_NOMEM, "%s: out of memory", name);
    }
    /* Read up to one byte past the size seen, to notice a file that grows. */
    while (st == SE_OK) {
        ssize_t r = read(fd, buf + have, (size_t)sb.st_size + 1 - have);
        if (r < 0 && errno == EINTR)
            continue;
        if (r < 0)
            st = se_fail(err, SE_ERR_IO, "%s: cannot read: %s", name, strerror(errno));
        else if (r == 0)
            break;
        else if ((have += (size_t)r) > (size_t)sb.st_size)
            st = se_fail(err, SE_ERR_VALIDATION, "%s: changed while it was read", name);
    }
    close(fd);
    if (st != SE_OK) {
        free(buf);
        return st;
    }
    *data = buf;
    *len = have;
    return SE_OK;
}

/* ---- keys --------------------------------------------------------------- */

/* The last OpenSSL error as text, and the queue cleared. */
static void ssl_reason(char *buf, size_t size)
{
    unsigned long e = ERR_peek_last_error();
    if (e)
        ERR_error_string_n(e, buf, size);
    else
        snprintf(buf, size, "no PEM key found");
    ERR_clear_error();
}

/* A PEM Ed25519 key is about 120 bytes; a file larger than this is none. */
#define SE_KEY_MAX_BYTES 16384

static se_status load_key(const char *path, int private_key, EVP_PKEY **out, se_err *err)
{
    *out = NULL;
    /* Opened without blocking (a FIFO or device is refused, not waited on),
     * and, for a private key, refused when others may read it (as ssh does). */
    int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
    if (fd < 0)
        return se_fail(err, SE_ERR_IO, "%s: cannot read the key: %s", path, strerror(errno));
    struct stat sb;
    char text[SE_KEY_MAX_BYTES + 1];
    ssize_t n = -1;
    se_status st = SE_OK;
    if (fstat(fd, &sb) != 0 || !S_ISREG(sb.st_mode))
        st = se_fail(err, SE_ERR_USAGE, "%s: the key is not a regular file", path);
    else if (sb.st_size > SE_KEY_MAX_BYTES)
        st = se_fail(err, SE_ERR_USAGE, "%s: %lld bytes, more than the %d a PEM key may have",
                     path, (long long)sb.st_size, SE_KEY_MAX_BYTES);
    else if ((n = read(fd, text, sizeof text)) < 0 || n > SE_KEY_MAX_BYTES)
        st = se_fail(err, SE_ERR_IO, "%s: cannot read the key: %s", path,
                     n < 0 ? strerror(errno) : "it grew while being read");
    close(fd);
    if (st != SE_OK)
        return st;
    BIO *bio = BIO_new_mem_buf(text, (int)n);
    if (!bio)
        return se_fail(err, SE_ERR_NOMEM, "%s: out of memory reading the key", path);
    EVP_PKEY *k = private_key ? PEM_read_bio_PrivateKey(bio, NULL, NULL, NULL)
                              : PEM_read_bio_PUBKEY(bio, NULL, NULL, NULL);
    BIO_free(bio);
    if (!k) {
        char why[256];
        ssl_reason(why, sizeof why);
        return se_fail(err, SE_ERR_USAGE, "%s: not a PEM %s key (%s)%s", path,
                       private_key ? "private" : "public", why,
                       private_key ? "; make one with: openssl genpkey -algorithm ed25519 -out KEY"
                                   : "; write one with: openssl pkey -in KEY -pubout -out PUB");
    }
    if (EVP_PKEY_id(k) != EVP_PKEY_ED25519) {
        EVP_PKEY_free(k);
        return se_fail(err, SE_ERR_USAGE, "%s: not an Ed25519 key (signed runs use Ed25519: "
                       "openssl genpkey -algorithm ed25519)", path);
    }
    if (private_key && (sb.st_mode & 077)) {
        EVP_PKEY_free(k);
        return se_fail(err, SE_ERR_USAGE, "%s: the private key's permissions %04o let others "
                       "read or change it; it is not used (chmod 600 %s, as ssh requires)", path,
                       (unsigned)(sb.st_mode & 07777), path);
    }
    *out = k;
    return SE_OK;
}

/* SHA-256 of the key's public half as DER SubjectPublicKeyInfo, in hex:
 * `openssl pkey -pubin -in PUB -outform DER | sha256sum`. */
static se_status key_fingerprint(EVP_PKEY *k, char hex[65], se_err *err)
{
    unsigned char *der = NULL;
    int n = i2d_PUBKEY(k, &der);
    if (n <= 0) {
        ERR_clear_error();
        return se_fail(err, SE_ERR_NOMEM, "cannot encode the public key");
    }
    unsigned char d[32];
    se_status st = se_sha256_buffer(der, (size_t)n, d, err);
    OPENSSL_free(der);
    if (st == SE_OK)
        se_hex32(d, hex);
    return st;
}

/* ---- signing and checking ---------------------------------------------- */

static se_status write_signature(const char *run_dir, const se_signature *sig, se_err *err)
{
    char text[SE_SIGNATURE_MAX_FILE], tmp[4400], final[4400];
    size_t n = se_signature_format(sig, text, sizeof text);
    se_path_join(run_dir, TMP_SIG, tmp, sizeof tmp);
    se_path_join(run_dir, SE_MANIFEST_SIG, final, sizeof final);
    int fd = mkstemp(tmp);
    if (fd < 0)
        return se_fail(err, SE_ERR_IO, "cannot create a temporary file in %s: %s", run_dir,
                       strerror(errno));
    se_status st = SE_OK;
    size_t done = 0;
    while (st == SE_OK && done < n) {
        ssize_t w = write(fd, text + done, n - done);
        if (w < 0 && errno == EINTR)
            continue;
        if (w <= 0)
            st = se_fail(err, SE_ERR_IO, "cannot write %s: %s", tmp, strerror(errno));
        else
            done += (size_t)w;
    }
    if (st == SE_OK && (fchmod(fd, 0644) != 0 || fsync(fd) != 0))
        st = se_fail(err, SE_ERR_IO, "cannot write %s: %s", tmp, strerror(errno));
    if (close(fd) != 0 && st == SE_OK)
        st = se_fail(err, SE_ERR_IO, "cannot close %s: %s", tmp, strerror(errno));
    if (st == SE_OK)
        st = se_check_replaceable(final, "sign:", err);
    if (st == SE_OK && rename(tmp, final) != 0)
        st = se_fail(err, SE_ERR_IO, "cannot rename %s to %s: %s", tmp, final, strerror(errno));
    if (st != SE_OK)
        unlink(tmp);
    return st;
}

se_status se_sign_manifest(const char *run_dir, const char *key_path, char fingerprint[65],
                           se_err *err)
{
    EVP_PKEY *k = NULL;
    se_status st = load_key(key_path, 1, &k, err);
    if (st != SE_OK)
        return st;
    se_signature sig;
    memset(&sig, 0, sizeof sig);
    st = key_fingerprint(k, sig.key_sha256, err);
    char mpath[4400], *msg = NULL;
    size_t mlen = 0;
    se_path_join(run_dir, SE_MANIFEST_NAME, mpath, sizeof mpath);
    if (st == SE_OK) {
        int missing;
        st = read_run_file(mpath, mpath, SE_SIGN_MAX_MANIFEST, &msg, &mlen, &missing, err);
        if (st == SE_ERR_VALIDATION)
            st = SE_ERR_IO; /* signing: the run is the caller's, its manifest must be there */
    }
    if (st == SE_OK) {
        EVP_MD_CTX *ctx = EVP_MD_CTX_new();
        size_t siglen = sizeof sig.sig;
        if (!ctx || EVP_DigestSignInit(ctx, NULL, NULL, NULL, k) != 1 ||
            EVP_DigestSign(ctx, sig.sig, &siglen, (const unsigned char *)msg, mlen) != 1 ||
            siglen != SE_SIGNATURE_BYTES) {
            char why[256];
            ssl_reason(why, sizeof why);
            st = se_fail(err, SE_ERR_IO, "cannot sign %s: %s", mpath, why);
        }
        EVP_MD_CTX_free(ctx);
    }
    if (st == SE_OK)
        st = write_signature(run_dir, &sig, err);
    if (st == SE_OK && fingerprint)
        memcpy(fingerprint, sig.key_sha256, 65);
    free(msg);
    EVP_PKEY_free(k);
    return st;
}

se_status se_signature_check(const char *run_dir, const char *pub_path, se_err *err)
{
    EVP_PKEY *k = NULL;
    se_status st = load_key(pub_path, 0, &k, err);
    if (st != SE_OK)
        return st;
    char trusted[65];
    st = key_fingerprint(k, trusted, err);
    char path[4400], *text = NULL, *msg = NULL;
    size_t tlen = 0, mlen = 0;
    int missing = 0;
    se_signature sig;
    if (st == SE_OK) {
        se_path_join(run_dir, SE_MANIFEST_SIG, path, sizeof path);
        st = read_run_file(path, SE_MANIFEST_SIG, SE_SIGNATURE_MAX_FILE, &text, &tlen, &missing,
                           err);
        if (missing)
            st = se_fail(err, SE_ERR_VALIDATION, "%s: missing: the run is not signed (sign it "
                         "with: softmax-evidence sign RUN --key KEY)", SE_MANIFEST_SIG);
    }
    if (st == SE_OK)
        st = se_signature_parse(text, tlen, &sig, err);
    if (st == SE_OK && strcmp(sig.key_sha256, trusted) != 0)
        st = se_fail(err, SE_ERR_VALIDATION, "%s: signed with the key whose SHA-256 is %s, not the "
                     "trusted key %s (%s)", SE_MANIFEST_SIG, sig.key_sha256, trusted, pub_path);
    if (st == SE_OK) {
        se_path_join(run_dir, SE_MANIFEST_NAME, path, sizeof path);
        st = read_run_file(path, SE_MANIFEST_NAME, SE_SIGN_MAX_MANIFEST, &msg, &mlen, &missing,
                           err);
    }
    if (st == SE_OK) {
        EVP_MD_CTX *ctx = EVP_MD_CTX_new();
        if (!ctx) {
            st = se_fail(err, SE_ERR_NOMEM, "cannot allocate a verification context");
        } else if (EVP_DigestVerifyInit(ctx, NULL, NULL, NULL, k) != 1 ||
                   EVP_DigestVerify(ctx, sig.sig, SE_SIGNATURE_BYTES, (const unsigned char *)msg,
                                    mlen) != 1) {
            ERR_clear_error();
            st = se_fail(err, SE_ERR_VALIDATION, "%s: the signature does not match the bytes of "
                         "%s: the manifest changed after it was signed, or the signature is "
                         "not of this manifest", SE_MANIFEST_SIG, SE_MANIFEST_NAME);
        }
        EVP_MD_CTX_free(ctx);
    }
    free(text);
    free(msg);
    EVP_PKEY_free(k);
    return st;
}

se_status se_sign_run(const char *run_dir, const char *key_path, FILE *out, se_err *err)
{
    se_status st = se_verify_first(run_dir, "sign", "it is not signed", err);
    if (st != SE_OK)
        return st;
    char fp[65];
    st = se_sign_manifest(run_dir, key_path, fp, err);
    if (st == SE_OK && out)
        fprintf(out, "signed %s/%s: Ed25519, key SHA-256 %s; signature in %s/%s\n", run_dir,
                SE_MANIFEST_NAME, fp, run_dir, SE_MANIFEST_SIG);
    return st;
}

se_status se_signature_check_run(const char *run_dir, const char *pub_path, FILE *out,
                                 se_err *err)
{
    se_err e = {{0}};
    se_status st = se_signature_check(run_dir, pub_path, &e);
    if (out) {
        if (st == SE_OK)
            fprintf(out, "signature: OK: %s is signed by the trusted key %s\n", SE_MANIFEST_NAME,
                    pub_path);
        else
            fprintf(out, "signature: FAILED: %s\n", e.msg);
    }
    return st == SE_OK ? SE_OK : se_fail(err, st, "%s", e.msg);
}
