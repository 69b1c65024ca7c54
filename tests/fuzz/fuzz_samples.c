/*
 * fuzz_samples.c - libFuzzer harness of the samples reader
 * (se_samples_read over an fmemopen of the input). docs/FUZZING.md.
 */
#define _POSIX_C_SOURCE 200809L

#include <stdint.h>
#include <stdio.h>

#include "bundle/samples.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size == 0)
        return 0; /* fmemopen refuses a zero-size buffer */
    FILE *f = fmemopen((void *)data, size, "rb");
    if (!f)
        return 0;
    se_sample_set sets[SE_NSCOPES] = {{0}};
    se_err err;
    se_samples_read(f, "fuzz.csv", sets, SE_NSCOPES, &err);
    for (int s = 0; s < SE_NSCOPES; s++)
        se_sample_set_free(&sets[s]);
    fclose(f);
    return 0;
}
