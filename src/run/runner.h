/*
 * runner.h - the main job on a GPU: validate every strategy on every shape,
 * time every strategy and control in every scope, and write the evidence
 * bundle (docs/BUNDLE.md) into a new run directory.
 */
#ifndef SE_RUNNER_H
#define SE_RUNNER_H

#include <stdio.h>

#include "run/run_config.h"
#include "model/protocol.h"

/* Where the effective protocol came from, for the bundle. */
typedef struct se_protocol_source {
    const char *name;            /* the file given, or the built-in default's name */
    unsigned char sha256[32];    /* of that file's bytes */
} se_protocol_source;

/* What a finished run left: its directory and how many (strategy, shape)
 * cases passed validation. */
typedef struct se_run_outcome {
    char dir[4200];   /* the run directory under its final name, "" if none was written */
    size_t cases;     /* validated (strategy, shape) cases */
    size_t failed;    /* of which failed */
} se_run_outcome;

/* Runs the protocol. The runs folder is checked before any GPU work; the
 * run directory appears under its final name only when complete. Prints
 * the validation table on out; fills outcome when the run directory was
 * written (also when a case failed validation: the run is kept). */
se_status se_run_main(const se_protocol *p, const se_run_config *o, const se_protocol_source *src,
                      int argc, char **argv, FILE *out, se_run_outcome *outcome, se_err *err);

#endif
