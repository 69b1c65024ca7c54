/*
 * report.h - report.md and report.html of a run: the same content in both
 * (built once, rendered twice), every number traced to its case, samples
 * file and the SHA-256 of its input and output (docs/FIGURES.md).
 */
#ifndef SE_REPORT_REPORT_H
#define SE_REPORT_REPORT_H

#include "model/se_common.h"
#include "render/plot.h"
#include "bundle/rundata.h"

/* Writes dir/report.md and dir/report.html; the figures are embedded by
 * relative path (PNG, linking to the SVG). */
se_status se_report_write(se_rundata *rd, const se_figure figs[SE_NFIGURES], const char *dir,
                          se_err *err);

#endif
