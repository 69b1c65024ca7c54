/*
 * fuzz_archive.c - libFuzzer harness of the archive reader (verify
 * --archive, se_verify_archive): at start, a copy of tests/data/complete-run
 * is archived (se_archive_run, every array and trace remote-only), which leaves a
 * selected bundle with its remote.json; each input is then the archive
 * verify --archive reads against that bundle. The input's first byte picks
 * the layer fuzzed: even, the rest is a tar stream, gzipped here (zlib,
 * level 1) so that mutations reach the tar reader, the entries and the
 * re-check of saved arrays; odd, the rest is the .tar.gz itself (the gzip
 * layer, its CRC and its end). SE_FUZZ_COMPLETE_RUN names the run. With
 * $SE_FUZZ_SEED_OUT the start writes both forms of the real archive there
 * as seeds. docs/FUZZING.md.
 */
#define _POSIX_C_SOURCE 200809L

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <zlib.h>

#include "bundle/archive.h"
#include "fuzz_common.h"

#ifndef SE_FUZZ_COMPLETE_RUN
#error "SE_FUZZ_COMPLETE_RUN (tests/data/complete-run's run) must be defined"
#endif

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static char run[4200], input[4200];
static FILE *devnull;

/* data gzipped (one member) into a malloc'd buffer. */
static uint8_t *gzip_of(const uint8_t *data, size_t size, size_t *out_size)
{
    z_stream z;
    memset(&z, 0, sizeof z);
    if (deflateInit2(&z, 1, Z_DEFLATED, 16 + MAX_WBITS, 8, Z_DEFAULT_STRATEGY) != Z_OK)
        return NULL;
    size_t cap = deflateBound(&z, (uLong)size) + 64;
    uint8_t *out = malloc(cap);
    if (!out) {
        deflateEnd(&z);
        return NULL;
    }
    z.next_in = (Bytef *)data;
    z.avail_in = (uInt)size;
    z.next_out = out;
    z.avail_out = (uInt)cap;
    int r = deflate(&z, Z_FINISH);
    *out_size = cap - z.avail_out;
    deflateEnd(&z);
    if (r != Z_STREAM_END) {
        free(out);
        return NULL;
    }
    return out;
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    (void)argc, (void)argv;
    const char *tmp = se_fuzz_tmpdir();
    if (!tmp)
        abort();
    char archive[4300];
    snprintf(run, sizeof run, "%s/run", tmp);
    snprintf(archive, sizeof archive, "%s/run.tar.gz", tmp);
    snprintf(input, sizeof input, "%s/input.tar.gz", tmp);
    devnull = fopen("/dev/null", "w");
    if (se_fuzz_copy_tree(SE_FUZZ_COMPLETE_RUN, run) != 0)
        abort();
    static const char *const remote[] = {"arrays/*", "traces/*"};
    se_archive_opts o;
    memset(&o, 0, sizeof o);
    o.run = run;
    o.output = archive;
    o.mark = 1;
    o.remote = remote;
    o.n_remote = 2;
    o.min_bytes = 0;
    o.level = 1;
    se_err err;
    if (se_archive_run(&o, devnull, &err) != SE_OK) {
        fprintf(stderr, "fuzz_archive: cannot archive %s: %s\n", run, err.msg);
        abort();
    }
    uint8_t *gz, *tar = NULL;
    size_t n, tn = 0;
    if (se_fuzz_read(archive, &gz, &n) != 0)
        abort();
    /* The tar stream inside, for the even-byte seed. */
    z_stream z;
    memset(&z, 0, sizeof z);
    size_t cap = 8 * n + (1 << 20);
    if (inflateInit2(&z, 16 + MAX_WBITS) == Z_OK && (tar = malloc(cap + 1)) != NULL) {
        z.next_in = gz;
        z.avail_in = (uInt)n;
        z.next_out = tar + 1;
        z.avail_out = (uInt)cap;
        if (inflate(&z, Z_FINISH) == Z_STREAM_END) {
            tn = cap - z.avail_out;
            tar[0] = 0;
            se_fuzz_seed("tar", tar, tn + 1);
        }
        inflateEnd(&z);
    }
    uint8_t *raw = malloc(n + 1);
    if (raw) {
        raw[0] = 1;
        memcpy(raw + 1, gz, n);
        se_fuzz_seed("targz", raw, n + 1);
    }
    free(raw);
    free(tar);
    free(gz);
    return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size == 0)
        return 0;
    uint8_t *gz = NULL;
    size_t n = size - 1;
    const uint8_t *bytes = data + 1;
    if (!(data[0] & 1)) {
        if (!(gz = gzip_of(data + 1, size - 1, &n)))
            return 0;
        bytes = gz;
    }
    if (se_fuzz_write(input, bytes, n) == 0) {
        se_err err;
        se_verify_archive(run, input, devnull, &err);
    }
    free(gz);
    return 0;
}
