/*
 * report_sections.h - private to the report (report*.c): the sections it
 * is built from, in order, and the number formats they share. Each section
 * appends headings, paragraphs and tables to one document (render/doc.h);
 * report.c renders it as report.md and report.html.
 */
#ifndef SE_RENDER_REPORT_SECTIONS_H
#define SE_RENDER_REPORT_SECTIONS_H

#include <stddef.h>

#include <jansson.h>

#include "bundle/rundata.h"
#include "model/se_common.h"
#include "render/doc.h"
#include "render/plot.h"

#define SE_REP_MAX_COLS 32
#define SE_REP_CELL 160

/* The scopes of a case, in the order the tables list them. */
extern const char *const se_rep_scopes[SE_NSCOPES];

/* About four significant digits, never an exponent between 1e-4 and 1e15:
 * 0.08999999 -> "0.09000", 125.67 -> "125.7", 8979.12 -> "8979" (full
 * precision stays in the run's JSON). */
void se_rep_sig(char *buf, size_t size, double v);
/* "a to b" in microseconds from an interval [lo, hi] in nanoseconds. */
void se_rep_us_range(char *buf, size_t size, double lo_ns, double hi_ns);
/* Microseconds from nanoseconds, about four significant digits. */
void se_rep_us(char *buf, size_t size, double ns);
/* "yes" for 1, "no" for 0, "-" otherwise (a flag the run does not have). */
const char *se_rep_yes_no(int v);
/* A JSON value as a table cell. */
void se_rep_num(char *buf, size_t size, const json_t *v);
/* A path recorded on the measuring machine, as the report shows it: relative
 * to the run's source folder (environment.json source.source_dir) when inside
 * it, else .../<last component>; a relative path as it is. */
void se_rep_path(char *buf, size_t size, const char *path, const se_rundata *rd);
/* "13.0" from 13000 (kind 0: driver and runtime), "9.14.0" from 91400
 * (kind 1: cuDNN), "10.4.0" from 10400 (kind 2: cuRAND). */
void se_rep_version(char *buf, size_t size, long long v, int kind);
/* A table row, or header, of n cells. */
void se_rep_row(se_doc *d, int n, char cells[][SE_REP_CELL]);
void se_rep_header(se_doc *d, int n, char cells[][SE_REP_CELL]);

/* report.c */
/* The answer of this run (bundle/answer.h), first in the report. */
void se_rep_answer(se_doc *d, const se_rundata *rd);
void se_rep_intro(se_doc *d, const se_rundata *rd);
void se_rep_strategies(se_doc *d, const se_rundata *rd);
void se_rep_figures(se_doc *d, const se_figure *figs);
void se_rep_limitations(se_doc *d, const se_rundata *rd);
/* report_checks.c */
void se_rep_environment(se_doc *d, const se_rundata *rd);
/* report_results.c */
void se_rep_timing(se_doc *d, const se_rundata *rd);
void se_rep_cudnn(se_doc *d, const se_rundata *rd);
void se_rep_peers(se_doc *d, const se_rundata *rd);
/* report_sweep.c */
void se_rep_sweep(se_doc *d, const se_rundata *rd);
/* report_checks.c */
void se_rep_validation(se_doc *d, const se_rundata *rd);
void se_rep_resources(se_doc *d, const se_rundata *rd);
void se_rep_traces(se_doc *d, const se_rundata *rd);
se_status se_rep_profile(se_doc *d, se_rundata *rd, se_err *err);
/* report_provenance.c */
se_status se_rep_provenance(se_doc *d, se_rundata *rd, se_err *err);

#endif
