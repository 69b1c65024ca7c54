/*
 * runset.h - a run set: a small JSON file that lists separate runs of one
 * protocol (scripts/multirun.sh writes one beside its runs; docs/TIMING.md,
 * "Several runs"). `answer --set FILE` and `compare --a-set/--b-set FILE`
 * read it.
 *
 *   {"format": "softmax-evidence-runset", "version": 1,
 *    "runs": ["20261202T080000Z", "20261202T080700Z", ...]}
 *
 * Each entry is a run directory relative to the folder holding the set
 * file: not empty, not absolute, no "." or ".." component, listed once.
 * Other keys (created_utc, gap_s, devices, command) are informational.
 */
#ifndef SE_BUNDLE_RUNSET_H
#define SE_BUNDLE_RUNSET_H

#include <stddef.h>

#include "model/se_common.h"

#define SE_RUNSET_FORMAT "softmax-evidence-runset"
#define SE_RUNSET_MAX_RUNS 256

typedef struct se_runset {
    size_t n;
    char **dirs; /* each the set file's folder joined with an entry */
} se_runset;

/* Loads and checks a set file; on failure nothing needs freeing and the
 * message names the file and the entry. */
se_status se_runset_load(const char *path, se_runset *s, se_err *err);

void se_runset_free(se_runset *s);

#endif
