/*
 * profile.h - `softmax-evidence profile RUN_DIR`: Nsight Compute over every
 * kernel of every strategy on the run's shapes, with a fixed metric set,
 * saved into the run directory (docs/PROFILING.md).
 */
#ifndef SE_PROFILE_H
#define SE_PROFILE_H

#include <stdio.h>

#include "model/se_common.h"

/* Set (to "1") in the environment by the command line when `profile`
 * should print [n/N] progress; profile-target, under ncu, reads it. */
#define SE_PROFILE_PROGRESS_ENV "SE_PROFILE_PROGRESS"

/* Runs `ncu` on this program's profile-target (self: a link to this
 * program, e.g. /proc/self/exe), parses its CSV, writes profile/ into the
 * run and rewrites the run's manifest. */
se_status se_profile_main(const char *run_dir, const char *self, FILE *out, se_err *err);

/* Rebuilds profile/kernels.csv and profile.json from the run's saved
 * profile/ncu_raw.csv with this program's parser (no GPU), keeping the ncu
 * version and command recorded in profile.json, and rewrites the manifest. */
se_status se_profile_reparse(const char *run_dir, FILE *out, se_err *err);

/* What runs under ncu: for each shape of the run's protocol, the inputs,
 * then each strategy once, preceded by a marker kernel whose grid size is
 * the case's number (1-based), all inside cudaProfilerStart/Stop so that
 * input generation is not profiled. */
se_status se_profile_target(const char *run_dir, se_err *err);

#endif
