/*
 * figures.h - `softmax-evidence figures RUN_DIR OUT_DIR`: verify the run,
 * then draw its figures with gnuplot and write the report and the figures'
 * provenance (docs/FIGURES.md).
 */
#ifndef SE_FIGURES_H
#define SE_FIGURES_H

#include <stdio.h>

#include "model/se_common.h"
#include "render/doc.h"

/* Refuses (SE_ERR_VALIDATION, saying why) a run that does not verify.
 * Prints progress and the list of files written on out. */
se_status se_figures_main(const char *run_dir, const char *out_dir, FILE *out, se_err *err);

/* The same; when report is not NULL it receives the report's document
 * (free it with se_doc_free), for the site to show it in its own frame. */
se_status se_figures_make(const char *run_dir, const char *out_dir, FILE *out, se_doc *report,
                          se_err *err);

#endif
