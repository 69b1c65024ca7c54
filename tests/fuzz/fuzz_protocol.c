/*
 * fuzz_protocol.c - libFuzzer harness of the protocol parser
 * (se_protocol_parse): any bytes are parsed; what parses is written back
 * with se_protocol_write, which must parse again, and its case list built.
 * docs/FUZZING.md.
 */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "bundle/samples.h"
#include "model/protocol.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    se_protocol p;
    se_err err;
    if (se_protocol_parse((const char *)data, size, "fuzz.json", &p, &err) != SE_OK)
        return 0;
    char *text = NULL;
    if (se_protocol_write(&p, &text, &err) == SE_OK) {
        se_protocol q;
        if (se_protocol_parse(text, strlen(text), "written.json", &q, &err) != SE_OK)
            abort(); /* what the writer writes, the parser must read */
        se_protocol_free(&q);
        free(text);
    }
    se_case_id *cases = NULL;
    size_t n = 0;
    if (se_case_list(&p, &cases, &n, &err) == SE_OK)
        free(cases);
    se_protocol_free(&p);
    return 0;
}
