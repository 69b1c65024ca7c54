/*
 * trace_export.h - `softmax-evidence trace RUN_DIR CASE -o FILE.json`: one trace
 * of a run as Chrome trace-event JSON, with its summary printed.
 */
#ifndef SE_EXPORT_H
#define SE_EXPORT_H

#include <stdio.h>

#include "model/se_common.h"

/* Reads RUN_DIR/traces/CASE.csv (CASE like "4096x4096.megakernel"), checks
 * it, writes the Chrome JSON to out_path (through a temporary file renamed
 * into place) and prints the summary on out. */
se_status se_trace_export(const char *dir, const char *case_id, const char *out_path, FILE *out,
                          se_err *err);

#endif
