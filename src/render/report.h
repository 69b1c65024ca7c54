/*
 * report.h - report.md and report.html of a run: one document (render/doc.h)
 * rendered twice, every number traced to its case, samples file and the
 * SHA-256 of its input and output (docs/FIGURES.md).
 */
#ifndef SE_REPORT_REPORT_H
#define SE_REPORT_REPORT_H

#include "bundle/rundata.h"
#include "model/se_common.h"
#include "render/doc.h"
#include "render/plot.h"

/* Builds the report of a run into d (empty); figures are referenced by
 * relative path (PNG, linking to the SVG). Free d with se_doc_free, also
 * on failure. */
se_status se_report_build(se_rundata *rd, const se_figure figs[SE_NFIGURES], se_doc *d,
                          se_err *err);

/* Builds the report and writes dir/report.md and dir/report.html; when
 * keep is not NULL it receives the document (free it with se_doc_free). */
se_status se_report_write(se_rundata *rd, const se_figure figs[SE_NFIGURES], const char *dir,
                          se_doc *keep, se_err *err);

#endif
