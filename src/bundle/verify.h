/*
 * verify.h - re-checking a run directory with no GPU: every file against the
 * manifest, every timing summary recomputed from the raw samples, and the
 * validation results re-checked against the protocol's tolerances (and,
 * where the arrays were saved, recomputed from them).
 */
#ifndef SE_VERIFY_H
#define SE_VERIFY_H

#include <stdio.h>

#include "model/se_common.h"

/* Prints what it checked and every problem on out, naming the file and the
 * field. Returns SE_OK when everything holds, SE_ERR_VALIDATION when any
 * check failed (err says how many), SE_ERR_IO when dir is not a run. */
se_status se_verify_run(const char *dir, int strict, FILE *out, se_err *err);

/* Whether dir is an evidence site rather than a run: it holds
 * SE_SITE_MANIFEST (bundle/paths.h) and no run manifest. A folder with a run
 * manifest is a run, whatever else it holds. Both are looked up with lstat:
 * a symbolic link of either name counts as the file. */
int se_is_site_dir(const char *dir);

/* For a command that builds on a run (figures, table): verifies it without
 * printing. A run that does not verify is refused with SE_ERR_VALIDATION
 * and "<cmd>: the run does not verify, so <consequence>: ...; first
 * problems: ..."; a folder that is not a run keeps verify's status. */
se_status se_verify_first(const char *run_dir, const char *cmd, const char *consequence,
                          se_err *err);

#endif
