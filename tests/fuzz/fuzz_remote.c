/*
 * fuzz_remote.c - libFuzzer harness of remote.json's reader: the input is
 * remote.json of a copy of the mini run (make_seeds.py), loaded with every
 * field's type checked (se_remote_load); what loads has its remote-only
 * lines hashed from the run's manifest (se_remote_lines_sha256) and each
 * listed path looked up (se_remote_has), and the whole run is verified
 * (se_verify_run, which judges remote.json against the rest). The seeds are
 * the committed selected bundles' remote.json files. docs/FUZZING.md.
 */
#define _POSIX_C_SOURCE 200809L

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bundle/remote.h"
#include "bundle/verify.h"
#include "fuzz_common.h"

#ifndef SE_FUZZ_MINIRUN
#error "SE_FUZZ_MINIRUN (the mini run made by make_seeds.py) must be defined"
#endif

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static char run[4200];
    const char *tmp = se_fuzz_tmpdir();
    if (!tmp)
        return 0;
    if (!run[0]) {
        snprintf(run, sizeof run, "%s/run", tmp);
        if (se_fuzz_copy_tree(SE_FUZZ_MINIRUN, run) != 0)
            abort();
    }
    char path[4400];
    snprintf(path, sizeof path, "%s/%s", run, SE_REMOTE_JSON);
    if (se_fuzz_write(path, data, size) != 0)
        return 0;
    se_remote r;
    int present = 0;
    se_err err;
    if (se_remote_load(run, &r, &present, &err) == SE_OK && present) {
        char hex[65];
        se_remote_lines_sha256(run, &r, hex, &err);
        for (size_t i = 0; i < r.n_files; i++)
            if (!se_remote_has(&r, r.files[i]))
                abort(); /* a listed path is always found */
        se_remote_free(&r);
        /* Only a remote.json that loads reaches verify's judgement of it
         * against the rest (a whole verify: the slow part). */
        se_verify_run(run, 1, NULL, &err);
    }
    return 0;
}
