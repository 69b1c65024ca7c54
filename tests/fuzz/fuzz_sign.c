/*
 * fuzz_sign.c - libFuzzer harness of signatures (docs/SIGNING.md): at start
 * an Ed25519 key is made and a copy of the mini run's manifest signed with
 * it (se_sign_manifest). The input's first byte picks what the rest is:
 * even, MANIFEST.sha256.sig (parsed by se_signature_parse, then checked by
 * se_signature_check against the manifest and the key); odd, the public
 * key's PEM file the signature is checked with. With $SE_FUZZ_SEED_OUT the
 * start writes both real files there as seeds. docs/FUZZING.md.
 */
#define _POSIX_C_SOURCE 200809L

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <openssl/evp.h>
#include <openssl/pem.h>

#include "bundle/paths.h"
#include "bundle/sign.h"
#include "fuzz_common.h"

#ifndef SE_FUZZ_MINIRUN
#error "SE_FUZZ_MINIRUN (the mini run made by make_seeds.py) must be defined"
#endif

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static char dir[4200], sig[4300], pub[4300], fuzz_pub[4300];
static uint8_t *real_sig;
static size_t real_sig_n;

static void write_seed(const char *name, int selector, const char *path)
{
    uint8_t *d;
    size_t n;
    if (se_fuzz_read(path, &d, &n) != 0)
        abort();
    uint8_t *s = malloc(n + 1);
    if (!s)
        abort();
    s[0] = (uint8_t)selector;
    memcpy(s + 1, d, n);
    se_fuzz_seed(name, s, n + 1);
    free(s);
    free(d);
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    (void)argc, (void)argv;
    const char *tmp = se_fuzz_tmpdir();
    if (!tmp)
        abort();
    char key[4300];
    snprintf(dir, sizeof dir, "%s/run", tmp);
    snprintf(key, sizeof key, "%s/key.pem", tmp);
    snprintf(pub, sizeof pub, "%s/pub.pem", tmp);
    snprintf(fuzz_pub, sizeof fuzz_pub, "%s/fuzz-pub.pem", tmp);
    snprintf(sig, sizeof sig, "%s/%s", dir, SE_MANIFEST_SIG);
    EVP_PKEY *k = EVP_PKEY_Q_keygen(NULL, NULL, "ED25519");
    /* The private key is the owner's alone: sign refuses one others can
       read, as ssh does (hostile L11). */
    int kfd = open(key, O_WRONLY | O_CREAT | O_EXCL, 0600);
    FILE *kf = kfd >= 0 ? fdopen(kfd, "wb") : NULL, *pf = fopen(pub, "wb");
    if (!k || !kf || !pf || !PEM_write_PrivateKey(kf, k, NULL, NULL, 0, NULL, NULL) ||
        !PEM_write_PUBKEY(pf, k))
        abort();
    fclose(kf);
    fclose(pf);
    EVP_PKEY_free(k);
    if (se_fuzz_copy_tree(SE_FUZZ_MINIRUN, dir) != 0)
        abort();
    se_err err;
    if (se_sign_manifest(dir, key, NULL, &err) != SE_OK) {
        fprintf(stderr, "fuzz_sign: cannot sign: %s\n", err.msg);
        abort();
    }
    if (se_signature_check(dir, pub, &err) != SE_OK)
        abort(); /* the harness's own signature holds */
    if (se_fuzz_read(sig, &real_sig, &real_sig_n) != 0)
        abort();
    write_seed("sig", 0, sig);
    write_seed("pub", 1, pub);
    return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size == 0)
        return 0;
    se_err err;
    if (!(data[0] & 1)) {
        se_signature s;
        se_signature_parse((const char *)data + 1, size - 1, &s, &err);
        if (se_fuzz_write(sig, data + 1, size - 1) != 0)
            return 0;
        se_status st = se_signature_check(dir, pub, &err);
        /* Only the real signature's bytes are a good signature by this key. */
        if (st == SE_OK && (size - 1 != real_sig_n || memcmp(data + 1, real_sig, real_sig_n) != 0))
            abort();
        se_fuzz_write(sig, real_sig, real_sig_n);
    } else {
        if (se_fuzz_write(fuzz_pub, data + 1, size - 1) != 0)
            return 0;
        se_signature_check(dir, fuzz_pub, &err);
    }
    return 0;
}
