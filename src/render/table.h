/*
 * table.h - the timing table a run prints last, and `softmax-evidence
 * table RUN_DIR`, which prints the same table from a saved run after
 * verifying it: per shape, every strategy, the copy control and every peer
 * with its median device time, interval, ratio to stream, GB/s, fraction
 * of the same-run copy bandwidth and ratio to the best peer (docs/PEERS.md).
 */
#ifndef SE_REPORT_TABLE_H
#define SE_REPORT_TABLE_H

#include <stdio.h>

#include "model/se_common.h"
#include "bundle/rundata.h"
#include "render/format.h"

/* Prints the table of a loaded run (peers.json may be absent). */
void se_table_print(FILE *out, const se_rundata *rd);

/* Loads the run in dir and prints its table (no verification: the run
 * command prints the run it has just written). */
se_status se_table_print_dir(FILE *out, const char *dir, se_err *err);

/* The table in a format: text is se_table_print; md the timing table, the
 * run-level controls and the grid barrier in Markdown (the README's table);
 * csv and json the timing table's rows (shape, what, kind, status, median
 * and interval in ns, ratio to stream and interval, GB/s, fraction of copy,
 * vs_best_peer), controls last with an empty shape. */
void se_table_print_format(FILE *out, const se_rundata *rd, se_format format);

se_status se_table_print_dir_format(FILE *out, const char *dir, se_format format, se_err *err);

/* `softmax-evidence table RUN_DIR [--format F]`: refuses a run that does
 * not verify, naming its first problems, then prints its table on out. */
se_status se_table_main(const char *dir, se_format format, FILE *out, se_err *err);

#endif
