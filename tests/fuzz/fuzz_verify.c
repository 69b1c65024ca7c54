/*
 * fuzz_verify.c - libFuzzer harness of verify's checks of a run's JSON
 * files and manifest: the mini run (tests/fuzz/make_seeds.py: the reference
 * run cut down to the 1x7 shape, which verifies) is copied once; the
 * input's first byte picks one of its files, the rest of the input replaces
 * it, and se_verify_run checks the whole run (typed loading, summaries,
 * derived results, validation with saved arrays, traces, peers); the file
 * is then restored. SE_FUZZ_MINIRUN names the mini run. docs/FUZZING.md.
 */
#define _POSIX_C_SOURCE 200809L

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "bundle/fsutil.h"
#include "bundle/verify.h"
#include "fuzz_common.h"

#ifndef SE_FUZZ_MINIRUN
#error "SE_FUZZ_MINIRUN (the mini run made by make_seeds.py) must be defined"
#endif

/* The same list as VERIFY_TARGETS in make_seeds.py. */
static const char *const targets[] = {"protocol.json", "summary.json", "validation.json",
                                      "traces.json", "peers.json", "run.json",
                                      "environment.json", "resources.json", "MANIFEST.sha256"};
#define N_TARGETS (sizeof targets / sizeof targets[0])

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static char run[4200];
    const char *tmp = se_fuzz_tmpdir();
    if (!tmp || size == 0)
        return 0;
    if (!run[0]) {
        snprintf(run, sizeof run, "%s/run", tmp);
        if (se_fuzz_copy_tree(SE_FUZZ_MINIRUN, run) != 0) {
            fprintf(stderr, "fuzz_verify: cannot copy %s to %s\n", SE_FUZZ_MINIRUN, run);
            abort();
        }
    }
    const char *rel = targets[data[0] % N_TARGETS];
    char path[4400], orig[4400];
    snprintf(path, sizeof path, "%s/%s", run, rel);
    snprintf(orig, sizeof orig, "%s/%s", SE_FUZZ_MINIRUN, rel);
    if (se_fuzz_write(path, data + 1, size - 1) != 0)
        return 0;
    se_err err;
    se_verify_run(run, 1, NULL, &err);
    /* se_copy_file makes a new file only (it never replaces one). */
    unlink(path);
    if (se_copy_file(orig, path, &err) != SE_OK) {
        fprintf(stderr, "fuzz_verify: cannot restore %s: %s\n", path, err.msg);
        abort();
    }
    return 0;
}
