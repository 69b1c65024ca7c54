/*
 * fuzz_trace.c - libFuzzer harness of the trace reader (se_trace_read over
 * an fmemopen of the input); what reads is checked (se_trace_check) as a
 * trace of the 1x7 shape of the seeds, in each trace kind. docs/FUZZING.md.
 */
#define _POSIX_C_SOURCE 200809L

#include <stdint.h>
#include <stdio.h>

#include "bundle/trace.h"
#include "model/taskgraph.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size == 0)
        return 0;
    FILE *f = fmemopen((void *)data, size, "rb");
    if (!f)
        return 0;
    se_trace t = {0};
    se_err err;
    if (se_trace_read(f, "fuzz.csv", &t, &err) == SE_OK) {
        se_taskgeom g = se_taskgeom_make(1, 7, 4096);
        for (int kind = SE_TRACE_PHASED; kind <= SE_TRACE_ROWS; kind++) {
            json_t *report = NULL;
            int ok = 0;
            if (se_trace_check(&g, (se_trace_kind)kind, &t, "fuzz.csv", NULL, &report, &ok,
                               &err) == SE_OK)
                json_decref(report);
        }
    }
    se_trace_free(&t);
    fclose(f);
    return 0;
}
