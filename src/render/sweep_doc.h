/*
 * sweep_doc.h - the row-length reading of a run as documents (bundle/
 * sweep.h computes it): the fraction-of-copy table per group of shapes
 * (the report's, beside fig7), and issue 30's goals G1 to G5 per shape
 * with the five-phase bound, which `softmax-evidence goals RUN` prints
 * (Markdown or plain text) and the report carries (docs/PERFORMANCE.md).
 */
#ifndef SE_RENDER_SWEEP_DOC_H
#define SE_RENDER_SWEEP_DOC_H

#include <stdio.h>

#include "bundle/rundata.h"
#include "bundle/sweep.h"
#include "model/se_common.h"
#include "render/doc.h"

/* One table per group (heading level `level`): per shape, in order of row
 * length, every strategy's and peer's fraction of copy, L2 warm / flushed. */
void se_sweep_doc_fractions(se_doc *d, const se_sweep *s, int level);

/* The goals: per shape, per unaligned pair, one line per goal, then the
 * five-phase bound; the thresholds and rules in a paragraph before each. */
void se_sweep_doc_goals(se_doc *d, const se_rundata *rd, const se_sweep *s, const se_goals *g);

/* `softmax-evidence goals RUN_DIR [--format text|md]`: refuses a run that
 * does not verify, then prints the goals (markdown: 1 for md). */
se_status se_goals_main(const char *dir, int markdown, FILE *out, se_err *err);

#endif
