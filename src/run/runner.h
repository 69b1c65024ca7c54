/*
 * runner.h - the main job on a GPU: validate every strategy on every shape,
 * time every strategy and control in every scope, and write the evidence
 * bundle (docs/BUNDLE.md) into a new run directory.
 */
#ifndef SE_RUNNER_H
#define SE_RUNNER_H

#include <stdio.h>

#include "../cli.h"
#include "../protocol.h"

/* Where the effective protocol came from, for the bundle. */
typedef struct se_protocol_source {
    const char *name;            /* the file given, or the built-in default's name */
    unsigned char sha256[32];    /* of that file's bytes */
} se_protocol_source;

/* Runs the protocol. The runs folder is checked before any GPU work; the
 * run directory appears under its final name only when complete. Prints
 * the validation table and, last, the timing table on out. */
se_status se_run_main(const se_protocol *p, const se_run_opts *o, const se_protocol_source *src,
                      int argc, char **argv, FILE *out, se_err *err);

#endif
