/*
 * export.h - `softmax-evidence export RUN_DIR --format nvbench|gbench -o
 * FILE`: a verified run written in the JSON of nvbench or of Google
 * Benchmark, so that their own compare scripts (nvbench_compare.py,
 * nvbench_compare_robust.py, Google Benchmark's compare.py) read our runs
 * (docs/EXPORT.md says which of our numbers goes to which field).
 */
#ifndef SE_RENDER_EXPORT_H
#define SE_RENDER_EXPORT_H

#include <stdio.h>

#include "model/se_common.h"

typedef enum se_export_format { SE_EXPORT_NVBENCH, SE_EXPORT_GBENCH } se_export_format;

/* Verifies the run in dir (refused when it does not verify), then writes
 * path: for nvbench also its sidecar folders path-bin/ (sample times,
 * seconds, float32 little-endian, one file per case) and path-freqs-bin/
 * (SM clock per sample, Hz), each built beside and renamed into place, the
 * JSON written last through a temporary file. Prints one line on out. */
se_status se_export_main(const char *dir, se_export_format format, const char *path, FILE *out,
                         se_err *err);

#endif
